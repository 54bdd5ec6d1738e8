"""In-place ops on views: rewriting the base's history (PyTorch's CopySlices).

When ``v = y[1:3]`` is modified in place (``v.mul_(10)``), the values of ``y``
change too, so ``y``'s gradient must change. PyTorch rewrites ``y.grad_fn`` as a
``CopySlices`` node: it passes ``y``'s incoming gradient through unchanged,
except in ``v``'s cells, where it applies the in-place op's backward. ``v``'s
own grad_fn is rebuilt lazily (``AsStridedBackward0`` on top of the new base
history) the next time anyone asks for it.

A view *requires grad* whenever its base does, even a view made under
``no_grad`` or one taken before the base started requiring grad (PyTorch's
``DifferentiableViewMeta::requires_grad``). Such an inherited flag gives the view
no gradient sink of its own: without a grad_fn its gradient is dropped, as in
PyTorch (``ViewMeta.inherited``).

Views made under ``no_grad`` / ``inference_mode`` and outputs of
unbind/split/chunk refuse in-place ops while grad is recorded, directly (the
view is modified) or indirectly (its base or a sibling was modified and the
view's grad_fn is asked for).

Under the ``paddle`` policies there is no rewrite: the view simply gets the
op's node, as Paddle 3.3.1 does.
"""
from __future__ import annotations

import weakref

from .. import errors, layout, policy
from . import grad_mode
from .node import Node, edge_of, move_retained_grad

_BAN_NO_GRAD = (" Given that this use case is ambiguous and error-prone, it is forbidden. You can "
                "clarify your code by moving both the view and the inplace either both inside the "
                "{block} block (if you don't want the inplace to be tracked) or both outside (if "
                "you want the inplace to be tracked).")
_BAN_MULTI = (" This view is the output of a function that returns multiple views. Such functions "
              "do not allow the output views to be modified inplace. You should replace the "
              "inplace operation by an out-of-place one.")

_BAN_CUSTOM = (" This view was created inside a custom Function (or because an input was returned "
               "as-is) and the autograd logic to handle view+inplace would override the custom "
               "backward associated with the custom Function, leading to incorrect gradients. "
               "This behavior is forbidden. You can fix this by cloning the output of the custom "
               "Function.")


class ViewMeta:
    """How a view was made (PyTorch's creation_meta) and when its grad_fn was last valid.

    ``inherited``: the view requires grad only because its base does (no own sink).
    """

    __slots__ = ("creation", "attr_version", "inherited")

    def __init__(self, creation: str, attr_version: int):
        self.creation = creation  # default | no_grad | multi_output | inference | custom_function
        self.attr_version = attr_version
        self.inherited = False

    def stale(self, view) -> bool:
        if self.attr_version == view._vc.version:
            return False
        base = view._base  # (torch: stale unless it has no grad_fn and its base needs none)
        return base is not None and (base._requires_grad or view._grad_fn is not None) and \
            not policy.is_paddle(policy.policy_of(view))

    def check_inplace(self, view, op: str) -> None:
        """PyTorch's handle_view_on_rebase: no_grad views and multi-output views are refused."""
        if self.creation != "default":
            raise _rebase_error(view, self.creation, op, indirect=False)


def _rebase_error(view, creation: str, op: str, *, indirect: bool):
    """PyTorch's words for an in-place op that would rebase a non-default view's history."""
    from .saved import _short

    gf = view._grad_fn
    what = "its base or another view of its base has been" if indirect else "is being"
    if creation in ("multi_output", "custom_function") and gf is not None:
        msg = f"Output {view._output_nr} of {_short(gf.name())} is a view and {what} modified inplace."
    else:
        head = (f"Output {view._output_nr} of {_short(gf.name())} is a view of a view which was "
                "created in") if gf is not None else "A view was created in"
        if creation == "inference":
            msg = f"{head} inference mode and {what} modified inplace in normal mode."
        else:
            msg = f"{head} no_grad mode and {what} modified inplace with grad mode enabled."
    if creation == "multi_output":
        return errors.MultiOutputViewInplaceError(msg + _BAN_MULTI, tensor=view, op=op,
                                                  node=gf, indirect=indirect)
    if creation == "custom_function":
        return errors.CustomFunctionViewInplaceError(msg + _BAN_CUSTOM, tensor=view, op=op,
                                                     node=gf, indirect=indirect,
                                                     creation=creation)
    block = "inference_mode" if creation == "inference" else "no_grad"
    return errors.NoGradViewInplaceError(msg + _BAN_NO_GRAD.format(block=block), tensor=view,
                                         op=op, node=gf, creation=creation, indirect=indirect)


def mark_views(spec, src, outs) -> None:
    """Give each new view its creation meta (inherited from a non-default source view).

    Also PyTorch's rule that a view requires grad when its base does: a view made
    under no_grad of a base that requires grad reports ``requires_grad=True``.
    """
    if src._vc.inference:  # views of inference tensors are plain inference tensors (no meta)
        return
    st = grad_mode.state
    if st.inference:
        creation = "inference"
    elif not st.enabled:
        creation = "no_grad"
    elif spec.multi_output:
        creation = "multi_output"
    else:
        creation = "default"
    prev = src._view_meta.creation if src._view_meta is not None else "default"
    if prev != "default" and (creation == "default" or prev == "inference"):
        creation = prev  # torch's propagate_creation_meta: a new non-default mode wins

    version = src._vc.version
    root = src._base if src._base is not None else src
    torch_rules = not policy.is_paddle(policy.policy_of(src))
    for v in outs:
        v._view_meta = ViewMeta(creation, version)
        if not torch_rules:
            continue
        if root._requires_grad:
            if not v._requires_grad:  # (made under no_grad/inference_mode: no grad_fn)
                v._requires_grad = True
                v._view_meta.inherited = True
                _remember_view(root, v)  # (the base may stop requiring grad: so does this view)
        else:  # the base may start requiring grad later: then so does this view
            _remember_view(root, v)


def _remember_view(root, v) -> None:
    """Note ``v`` on ``root`` (weakly): a list of weakrefs, cleared of dead views whenever it
    doubles (a WeakSet's add costs several times more, and almost no base ever reads it)."""
    d = root.__dict__
    reg = d.get("_views")
    if reg is None:
        reg = d["_views"] = [8]  # [prune threshold, weakref, weakref, ...]
    reg.append(weakref.ref(v))
    if len(reg) > reg[0]:
        reg[1:] = [r for r in reg[1:] if r() is not None]
        reg[0] = max(8, 2 * len(reg))


def base_requires_grad_now(root, flag: bool = True) -> None:
    """``root`` started (or, ``flag`` False, stopped) requiring grad: so do its views that
    have no grad_fn and no flag of their own (PyTorch's view requires_grad reads the base's)."""
    reg = root.__dict__.get("_views")
    if not reg:
        return
    for r in reg[1:]:
        v = r()
        if v is None or v._grad_fn is not None:
            continue
        if flag and not v._requires_grad:
            v._requires_grad = True
            v._view_meta.inherited = True
        elif not flag and v._requires_grad and v._view_meta.inherited:
            v._requires_grad = False


def _geometry(t):
    return (t._shape, t._strides, t._offset)


def rebase_history(target, node, setitem_owner=None) -> None:
    """After an in-place op recorded ``node`` on ``target``: make the graph say so.

    PyTorch rewrites the root base (CopySlices). Paddle leaves the base alone and gives
    the written view the op's node, except for setitem (``y[0] = v``): that is one
    set_value op on ``y`` itself, so ``y`` gets a CopySlices-like node over its region.
    """
    base = target._base
    paddle_rules = policy.is_paddle(policy.policy_of(target))
    if paddle_rules and setitem_owner is not None and setitem_owner is not target:
        copy = CopySlices(edge_of(setitem_owner), _geometry(setitem_owner), _geometry(target),
                          node, setitem_owner)
        _set_grad_fn(setitem_owner, copy)
        return
    if base is None or paddle_rules:
        _set_grad_fn(target, node)
        if base is None:
            base_requires_grad_now(target)
        return
    copy = CopySlices(edge_of(base), _geometry(base), _geometry(target), node, base)
    _set_grad_fn(base, copy)
    base_requires_grad_now(base)
    target._view_meta.attr_version = -1  # force the AsStridedBackward0 rebuild
    target._view_meta.inherited = False
    target._requires_grad = True
    if target._view_meta.creation == "default":  # torch rebuilds it at once ("trigger an
        refresh_view_grad_fn(target)  # update to the view's grad_fn"): the node before dies


def _set_grad_fn(t, node, move_retains=True) -> None:
    old = t._grad_fn
    nr = t._output_nr
    t._grad_fn = node
    t._output_nr = 0
    t._requires_grad = True
    node.output_meta[:] = [(t._shape, t._dtype, t._storage.device)]
    if move_retains:  # (retain_grad survives in-place ops, metadata ones aside)
        move_retained_grad(t, old, nr, node, 0)


def refresh_view_grad_fn(view) -> None:
    """Rebuild a view's grad_fn as AsStridedBackward0 on its base's current history.

    A view made under no_grad (or by unbind/split/chunk) cannot be rebuilt: PyTorch
    raises its "its base or another view of its base has been modified" error.
    """
    vm = view._view_meta
    if vm.creation != "default":
        raise _rebase_error(view, vm.creation, "", indirect=True)
    base = view._base
    old, old_nr = view._grad_fn, view._output_nr
    view._grad_fn = AsStridedBackward0(edge_of(base), _geometry(base), _geometry(view))
    view._grad_fn.output_meta.append((view._shape, view._dtype, view._storage.device))
    view._output_nr = 0
    # (torch's update_tensor_hooks_on_new_gradfn: a retain_grad hook follows the view to its
    # rebuilt node, so .grad is filled after a write under no_grad too: wide seed 52256)
    move_retained_grad(view, old, old_nr, view._grad_fn, 0)
    view._requires_grad = True
    vm.inherited = False
    vm.attr_version = view._vc.version


def _strided_zeros(base_geo, dt, dev):
    """A zero tensor laid out like ``base_geo`` in a fresh storage, and the shift to apply."""
    from ..storage import Storage
    from ..tensor import Tensor

    shape, strides, offset = base_geo
    lo, hi = layout.extent(shape, strides, offset)
    st = Storage.allocate(max(hi - lo, 0), dt, dev)
    st.data[...] = 0
    return Tensor._make(st, shape, strides, offset - lo), lo


class CopySlices(Node):
    """The base's new grad_fn after an in-place op on one of its views."""

    __slots__ = ("base_geo", "view_geo", "fn", "_base_meta")

    def __init__(self, base_edge, base_geo, view_geo, fn, base):
        super().__init__((base_edge,) + tuple(fn.next_functions[1:]))
        # fn's edge 0 (the view's old node) is taken over by the base's: fn lets go of it, as
        # in torch, so that node dies unless the graph holds it elsewhere (saved.view_node)
        fn.next_functions = ((None, 0),) + tuple(fn.next_functions[1:])
        self.base_geo = base_geo
        self.view_geo = view_geo
        self.fn = fn
        self._base_meta = (base._dtype, base._storage.device)
        self.output_meta.append((base._shape, base._dtype, base._storage.device))

    @property
    def policy(self):
        """The facade of the base it writes (Paddle's setitem: SetValue[WithTensor]GradNode)."""
        return getattr(self.fn, "policy", None)

    def name(self) -> str:
        if policy.is_paddle(self.policy):
            # (a value tensor that needs grad is fn's second edge; one that does not is not told
            # apart from a number here: SetValueGradNode)
            tensor = any(n is not None for n, _ in self.fn.next_functions[1:])
            return "SetValueWithTensorGradNode" if tensor else "SetValueGradNode"
        return "torch::autograd::CopySlices"

    def saved_tensors_info(self):
        return self.fn.saved_tensors_info()

    def release(self):
        super().release()
        self.fn.release()

    def apply(self, grads):
        from ..tensor import Tensor

        if self._released:  # torch's CopySlices drops its fn on release: always refused again
            from .saved import freed_error

            raise freed_error(self)
        g = grads[0]
        result, lo = _strided_zeros(self.base_geo, g._dtype, g.device)
        shape, strides, offset = self.view_geo
        need = layout.storage_size_needed(shape, strides, offset - lo)
        if need > result._storage.size():  # (the base shrank since, under an out= resize:
            # torch's as_strided of the view on the base-sized gradient refuses)
            item = g._dtype.itemsize
            raise RuntimeError(
                f"setStorage: sizes {list(shape)}, strides {list(strides)}, storage offset "
                f"{offset - lo}, and itemsize {item} requiring a storage size of {need * item} "
                f"are out of bounds for storage of size {result._storage.size() * item}")
        region = Tensor._make(result._storage, shape, strides, offset - lo, result._vc)
        if g._pol is not None:  # a facade's gradient stays the facade's (torch.float64 ...)
            result._policy = region._policy = g._pol
        result.copy_(g)
        # (torch: grad_slice.clone(at::MemoryFormat::Contiguous), so the view's node gets a
        # C-ordered gradient whatever the view's strides)
        from ..ops.linalg_more import _clone_contiguous

        res = self.fn.apply((_clone_contiguous(region),))
        if res[0] is None:
            region.zero_()
        else:
            region.copy_(res[0])
        return (result,) + tuple(res[1:])


class AsStridedBackward0(Node):
    """A view's rebuilt grad_fn: scatter its gradient into the base's shape."""

    __slots__ = ("base_geo", "view_geo", "_ref")

    def __init__(self, base_edge, base_geo, view_geo):
        super().__init__((base_edge,))
        self.base_geo = base_geo
        self.view_geo = view_geo

    def apply(self, grads):
        from ..ops.shape import as_strided_grad_view, scatter_to_geometry

        g = scatter_to_geometry(grads[0], self.base_geo, self.view_geo)
        if not grad_mode.state.enabled:  # torch's as_strided_backward writes into it once,
            g = as_strided_grad_view(g, self.base_geo, self.view_geo)  # and returns a view of
            g._vc.bump()  # that buffer with the base's geometry: the engine adds no second
        return (g,)  # gradient into it in place (GradBuffers._sole)

