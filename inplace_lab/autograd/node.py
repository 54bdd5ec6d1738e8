"""Graph nodes (``grad_fn``): what backward runs, with PyTorch's names and surface.

A node is created by the dispatcher when an op runs with grad enabled on an
input that requires grad. It knows where to send gradients
(``next_functions``: one ``(node, output_nr)`` edge per op argument) and what it
saved (``_saved_self``, ``_saved_other``, ``_saved_result`` ...).

- ``OpNode``: the backward of one op-table entry (``MulBackward0``...).
- ``AccumulateGrad``: the sink of a leaf; adds the gradient into ``leaf.grad``.
- ``CopySlices``/``AsStridedBackward0`` (in ``views.py``): history rewriting
  for in-place ops on views.
"""
from __future__ import annotations

import itertools
import weakref

from . import grad_mode
from . import saved as _saved_mod
from .. import layout
from ..policy import core_calls as _core_calls, is_paddle as _is_paddle, \
    paddle_node_name as _paddle_node_name

_seq = itertools.count()


def _lazy(name, factory, doc):
    """A node container made on first use and kept in the node's ``_extra`` dict.

    Almost no node ever gets a hook, a retained gradient, metadata or op_meta, so a node
    starts with ``_extra = None`` instead of six empty containers; reading one of them
    makes it (so writers such as ``node._hooks.append(fn)`` work as with a plain
    attribute). The engine tests ``node._extra is None`` to skip every hook at once.
    """

    def get(self):
        extra = self._extra
        if extra is None:
            extra = self._extra = {}
        c = extra.get(name)
        if c is None:
            c = extra[name] = factory()
        return c

    def set_(self, value):
        if self._extra is None:
            self._extra = {}
        self._extra[name] = value

    return property(get, set_, doc=doc)


class Node:
    """Base of every grad_fn."""

    __slots__ = ("next_functions", "_extra", "seq", "_released", "output_meta", "__weakref__",
                 "__dict__")

    # What the engine asks every node; a custom Function's node overrides them. Class
    # attributes, so asking never falls through to ``__getattr__`` below.
    materialize_grads = True  # outputs that got no gradient receive zeros (not None)
    user_code = False  # backward is user code: the tensors it returns may be held elsewhere

    def __init__(self, next_functions=()):
        self.next_functions = tuple(next_functions)
        self._extra = None  # the containers below, made on first use (see _lazy)
        self.seq = next(_seq)
        self._released = False
        self.output_meta = []  # per output: (shape, dtype, device), to make zero gradients

    metadata = _lazy("metadata", dict, "the user's dict, empty as in PyTorch")
    op_meta = _lazy("op_meta", dict, "what the library's formulas need (geometry, perm, policy)")
    _pre_hooks = _lazy("_pre_hooks", list, "register_prehook functions")
    _hooks = _lazy("_hooks", list, "register_hook functions")
    _tensor_pre_hooks = _lazy("_tensor_pre_hooks", dict,
                              "output_nr -> [fn]: tensor.register_hook on non-leaves")
    _retains = _lazy("_retains", dict, "output_nr -> weakref(tensor): retain_grad()")

    # -- PyTorch surface ------------------------------------------------------------------
    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        """Creation order: later nodes have larger numbers (PyTorch's sequence_nr)."""
        return self.seq

    def __call__(self, *grads):
        """Run this node's backward formula directly: ``y.grad_fn(g)`` -> one grad per edge."""
        out = self.apply(tuple(grads))
        return out if isinstance(out, tuple) else (out,)

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after the node runs; may return new grad_inputs."""
        self._hooks.append(fn)
        return _Handle(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before the node runs; may return new grad_outputs."""
        self._pre_hooks.append(fn)
        return _Handle(self._pre_hooks, fn)

    @property
    def num_outputs(self) -> int:
        return 1

    def saved_tensors_info(self) -> dict:
        """name -> SavedTensor (for renderers and ``_saved_<name>``)."""
        return {}

    def __getattr__(self, item):
        if item.startswith("_raw_saved_"):  # the SavedTensor itself (register_hooks)
            key = item[len("_raw_saved_"):]
            info = self.saved_tensors_info()
            if key in info:
                return info[key]
            if key in self._saveable_names() and key not in (getattr(self, "params", None) or {}):
                from .saved import UndefinedSaved

                return UndefinedSaved()
        if item.startswith("_saved_"):
            info = self.saved_tensors_info()
            key = item[len("_saved_"):]
            if key in info:
                return info[key].unpack(self)
            params = getattr(self, "params", None) or {}
            if key in params:
                spec = getattr(self, "spec", None)
                if spec is not None and key in spec.args and spec.scalar_edges:
                    # A Tensor overload (mul, div ...): PyTorch wrapped the number in a 0-dim
                    # tensor and saved it only if the formula needs it (add's other: no).
                    if _number_saved(self, spec, key):
                        return _wrapped_number(params[key])
                else:  # a Scalar argument (pow's exponent, clamp's min ...): the number itself
                    return params[key]
            if key in self._saveable_names():
                return None  # saved only when needed (mul saves self only if other needs grad)
        raise AttributeError(f"'{self.name()}' object has no attribute '{item}'")

    def _saveable_names(self) -> tuple:
        return ()

    def __repr__(self) -> str:  # PyTorch's: <MulBackward0 object at 0x...>
        return f"<{self.name().rsplit('::', 1)[-1]} object at {hex(id(self))}>"

    # -- engine interface -------------------------------------------------------------------
    def apply(self, grads: tuple) -> tuple:
        """Gradients for each edge in ``next_functions``, given one per output."""
        raise NotImplementedError

    def release(self) -> None:
        """Free saved tensors after backward (unless retain_graph)."""
        self._released = True
        for s in self.saved_tensors_info().values():
            s.free()


def _number_saved(node, spec, key) -> bool:
    """Did ``node`` save its number argument ``key`` (wrapped in a tensor, ``x * 2``'s other)?
    Saved when the gradient that reads it is needed (``save_if``), as a tensor would be."""
    c = spec.save_if.get(key)
    return key in spec.saves and (c is None or node.needs_input_grad[spec.args.index(c)])


def _wrapped_number(v):
    """PyTorch returns a scalar argument saved by a node as a 0-dim tensor (``tensor(2)``)."""
    if not isinstance(v, (int, float, complex)):
        return v
    from .. import creation, dtypes

    dt = dtypes.bool_ if isinstance(v, bool) else dtypes.int64 if isinstance(v, int) else \
        dtypes.float64 if isinstance(v, float) else dtypes.complex128
    return creation.tensor(v, dtype=dt)


def _Handle(hooks, fn):
    """What ``register_hook`` returns (``torch.utils.hooks.RemovableHandle``)."""
    from ..utils.hooks import RemovableHandle

    return RemovableHandle(hooks, fn)


def register_post_accumulate_grad_hook(self, hook):
    """``Tensor.register_post_accumulate_grad_hook``: ``hook(leaf)`` runs after backward has
    accumulated into ``leaf.grad`` (after the leaf's ``register_hook`` functions), so it can
    step the parameter in place right there (an optimizer inside backward). Not run by
    ``autograd.grad``, which accumulates nothing. ``handle.remove()`` takes it off."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not self.is_leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = self.__dict__.setdefault("_post_accumulate_grad_hooks", [])
    hooks.append(hook)
    return _Handle(hooks, hook)


class AccumulateGrad(Node):
    """The sink of a leaf: ``leaf.grad += grad`` (in place, as PyTorch does).

    A leaf's ``register_hook`` functions run on this node, before it accumulates
    (so ``autograd.grad(y, leaf)`` returns the hooked gradient too).
    """

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__(())
        self.variable = variable
        self.output_meta.append((variable._shape, variable._dtype, variable._storage.device))

    def name(self) -> str:
        if _is_paddle(self.variable._pol):
            return "GradNodeAccumulation"
        return "torch::autograd::AccumulateGrad"

    def accumulate(self, grad, steal=False) -> None:
        from .engine import accumulate_into_leaf

        v = self.variable
        if not v._requires_grad and (not _is_paddle(v._pol) or v._grad_acc is None
                                     or v._grad_acc() is not self):
            return  # detach_()ed since the graph was built: torch's AccumulateGrad skips a
            #         leaf that needs no grad; Paddle's skips only a detach_()ed one (its
            #         node is gone), not one set stop_gradient=True
        accumulate_into_leaf(v, grad, steal)
        post = v.__dict__.get("_post_accumulate_grad_hooks")
        for hook in list(post or ()):  # after .grad holds the sum (PyTorch's order)
            r = hook(v)
            if r is not None:
                raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")

    def apply(self, grads):
        self.accumulate(grads[0])
        return ()


def move_retained_grad(t, old, old_nr, node, nr) -> None:
    """An in-place op gave ``t`` a new node: its retain_grad hook moves there (so ``.grad`` is
    the gradient of t's new value). Metadata in-place ops (t_, squeeze_ ...) do not call this:
    PyTorch leaves the hook, and so the gradient's old shape, on the old node. Paddle leaves
    it there after every in-place op (``.grad`` is the gradient of the value it hooked)."""
    if _is_paddle(t._pol):
        return
    if old is not None and old._retains.get(old_nr) is not None and old._retains[old_nr]() is t:
        node._retains[nr] = old._retains.pop(old_nr)
        t._retain_site = (weakref.ref(node), nr)


def accumulator_of(leaf) -> AccumulateGrad:
    """The (cached, weakly held) AccumulateGrad node of a leaf."""
    ref = leaf._grad_acc
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(leaf)
        leaf._grad_acc = weakref.ref(acc)
    elif (acc.output_meta[0][0] != leaf._shape or acc.output_meta[0][1] is not leaf._dtype) \
            and _is_paddle(leaf._pol):
        # (reshaped in place since, or promoted by an in-place op (float32 -= float64 gives
        # float64): Paddle's next graph sends the gradient of the new shape and dtype)
        acc.output_meta[0] = (leaf._shape, leaf._dtype, leaf._storage.device)
    return acc


def edge_of(t):
    """The ``(node, output_nr)`` a gradient for ``t`` flows into, or ``(None, 0)``.

    ``t`` may be a number or None (no edge): only tensors have ``_requires_grad``.
    """
    if not getattr(t, "_requires_grad", False):
        return (None, 0)
    gf = t.grad_fn
    if gf is None:
        vm = t._view_meta
        if vm is not None and vm.inherited:  # requires grad only through its base: no sink
            return (None, 0)
        return (accumulator_of(t), 0)
    return (gf, t._output_nr)


class OpNode(Node):
    """The backward of one op from the op table (``MulBackward0``, ``ExpBackward0``...)."""

    __slots__ = ("spec", "params", "saved", "input_meta", "needs_input_grad", "edge_args",
                 "policy")

    def __init__(self, spec, next_functions, params, input_meta, needs_input_grad,
                 edge_args=None, policy=None):
        # (Node.__init__, written out: one node per recorded op)
        self.next_functions = next_functions if next_functions.__class__ is tuple else \
            tuple(next_functions)
        self._extra = None
        self.seq = next(_seq)
        self._released = False
        self.output_meta = []
        self.spec = spec
        self.params = params
        self.saved = {}
        self.input_meta = input_meta  # per arg: (shape, dtype, device) or None for scalars
        self.needs_input_grad = needs_input_grad
        # which arguments the edges belong to (backward formulas answer per argument)
        self.edge_args = tuple(range(len(next_functions))) if edge_args is None else edge_args
        self.policy = policy  # a facade's tensors: whose rules the op ran under

    def name(self) -> str:
        if self.policy is not None and _is_paddle(self.policy):  # (a Paddle graph's names)
            return _paddle_node_name(self)
        return self.spec.node_name

    def __dir__(self):
        """With the ``_saved_<name>`` attributes, as PyTorch's nodes list them (``dir(y.grad_fn)``
        is how a student finds what a node keeps)."""
        spec = self.spec
        hidden = spec.hidden_attrs
        # (a Python number of a Tensor overload is kept only if saved: add's other is not)
        unsaved = spec.args if spec.scalar_edges else ()
        return sorted(set(super().__dir__()) | {
            f"_saved_{k}" for k in (*spec.saves, *self.params) if (k != "result" or
                                                                   "result" in self.saved)
            and k not in hidden and (k in spec.saves or k not in unsaved)} | {
            f"_saved_{k}" for k, v in spec.node_attrs.items() if v is not None and
            (v != "result" or "result" in self.saved)})

    def __getattr__(self, item):
        """``_saved_<name>`` as torch's node lists it (OpSpec.node_attrs: hidden params,
        renames, sizes worked out from input_meta here, when asked)."""
        if item.startswith(("_saved_", "_raw_saved_")) and self.spec.node_attrs:
            spec = self.spec
            pre, _, key = item.partition("saved_")
            src = spec.node_attrs.get(key, key)
            if isinstance(src, str):  # (a rename, or a name the table does not mention)
                if src not in spec.hidden_attrs or src != key:
                    return Node.__getattr__(self, f"{pre}saved_{src}")
            elif src is not None and pre == "_":
                return _node_attr(self, src)
            raise AttributeError(f"'{self.name()}' object has no attribute '{item}'")
        return Node.__getattr__(self, item)

    @property
    def num_outputs(self) -> int:
        return len(self.output_meta) or 1

    def saved_tensors_info(self):
        return self.saved

    def release(self) -> None:
        self._released = True
        for s in self.saved.values():
            s.free()

    def _saveable_names(self) -> tuple:
        return self.spec.saves

    def _keeps_wrapped_numbers(self) -> bool:
        """Did this node save a Python number PyTorch wraps in a tensor (``x * 2``'s other)?"""
        spec = self.spec
        return spec.scalar_edges and any(
            k in self.params and k in spec.args and _number_saved(self, spec, k)
            for k in spec.saves)

    # ctx-style accessors the backward formulas use
    def __getitem__(self, key):
        """``ctx["self"]``: a saved tensor (version-checked) or a scalar argument."""
        if _UNPACKED:  # (a node with saved-tensor hooks, running: unpacked once, see apply)
            u = _UNPACKED.get(id(self))
            if u is not None and key in u:
                return u[key]
        s = self.saved.get(key)
        if s is not None:
            return s.unpack(self)
        if self._released and key in self.spec.saves:
            # a saved Python number: PyTorch wraps it in a tensor and saves *that* (x * 2's
            # MulBackward0 keeps other=2), so a second backward finds it freed too
            from .saved import freed_error

            raise freed_error(self)
        return self.params[key]

    def apply(self, grads):
        if _saved_mod.hooked[0] and self.saved and id(self) not in _UNPACKED and \
                any(s._unpack is not None for s in self.saved.values()):
            # PyTorch's generated apply unpacks every saved tensor once, in the order they
            # were saved, before its formula runs: an unpack hook is called once per tensor
            _UNPACKED[id(self)] = {k: s.unpack(self) for k, s in self.saved.items()}
            try:
                return self.apply(grads)
            finally:
                del _UNPACKED[id(self)]
        if self._released and (self.saved or self._keeps_wrapped_numbers()):
            # PyTorch's generated apply unpacks every saved variable before its formula runs,
            # needed by this call's gradients or not: a second backward through a released node
            # that saved anything fails, even where the formula at hand reads nothing (a
            # rounding div's self gradient is zeros). x * 2 saved other=2 as a tensor too.
            from .saved import freed_error

            raise freed_error(self)
        if self.saved:  # every saved tensor is checked, read by this call's formula or not
            _check_saved(self)  # (which modified saved tensor an error names: see _check_saved)
        fa = self.spec.backward_array  # raw arrays when nothing can see the difference
        out = fa(self, grads) if fa is not None and self._extra is None else None
        if out is None:
            cc = _core_calls
            cc[0] += 1  # (the formula's method calls have PyTorch's signatures: see policy)
            try:
                out = self.spec.backward(self, *grads)
            finally:
                cc[0] -= 1
        if not isinstance(out, tuple):
            out = (out,)
        gl = self.spec.grad_layout
        if gl and out[0] is not None and len(out[0]._shape) > 1 and not grad_mode.state.enabled:
            out = (_laid_out(self, gl, grads[0], out[0]),) + out[1:]
        keep = self.edge_args  # backward formulas answer per argument; edges skip some
        if len(keep) != len(out):
            out = tuple(out[i] if i < len(out) else None for i in keep)
        k = self.spec.grad_writes
        if k and not grad_mode.state.enabled:  # (see OpSpec.grad_writes; a create_graph
            for g in out:                       # gradient may be saved: left as made)
                if g is not None:
                    g._vc.bump(k)
        return out


def _node_attr(node, src):
    """A derived ``_saved_`` attribute (OpSpec.node_attrs): an input's sizes, numel, one size,
    or what a callable makes of the node."""
    if callable(src):
        return src(node)
    from ..layout import numel

    kind, arg = src[0], src[1]
    meta = node.output_meta[0] if arg == "result" else node.input_meta[node.spec.args.index(arg)]
    if meta is None:  # (an optional tensor left out: conv's bias)
        return None
    shape = tuple(meta[0])
    return shape if kind == "sizes" else numel(shape) if kind == "numel" else shape[src[2]]


_UNPACKED: dict = {}  # id(node) -> {name: unpacked value} while a hooked node's apply runs


def _laid_out(node, order, g, r):
    """``r`` (the input gradient) with the strides ATen's TensorIterator gives a pointwise
    backward kernel over the operands ``order`` names (OpSpec.grad_layout); a fresh copy
    only where the formula's ops laid it out otherwise."""
    if order[0] == "contiguous":
        want = layout.contiguous_strides(r._shape)
    else:
        ops = []
        for name in order:  # (an in-place overload saves its result instead: EluBackward1)
            t = g if name == "grad" else node[name if name in node.saved else "result"]
            ops.append((t._shape, t._strides))
        want = layout.iterator_strides(r._shape, ops)
    if want == r._strides or not layout.is_dense(r._shape, want):
        return r
    from ..storage import Storage
    from ..tensor import Tensor

    out = Tensor._make(Storage.allocate(r.numel(), r._dtype, r.device), r._shape, want, 0)
    out._policy = r._policy
    out._a[...] = r._a
    return out


def _check_saved(node) -> None:
    """PyTorch's generated ``apply`` unpacks a node's saved variables before its formula
    runs: the saved inputs in the order of their names, then the saved outputs (``result``),
    so of two modified (or freed) ones the error names the first (``maximum(a, b)``:
    ``other``; ``dist(a, b)``: ``self`` before ``result``), whatever order the formula reads
    them in, and whether or not this call's gradients read them (an in-place rounding div_
    keeps ``other`` for a zero gradient: writing it fails the backward, wide seed 67653).
    Only one that fails is unpacked here (it raises); the formula unpacks the rest."""
    saved = node.saved
    if len(saved) == 1:  # (the common node: nothing to order)
        for s in saved.values():
            if s.fails():
                s.unpack(node)
        return
    args = node.spec.args
    for name in sorted(saved, key=lambda n: (n not in args, n)):
        if saved[name].fails():
            saved[name].unpack(node)


_NODE_CLASSES: dict = {}


def node_class(spec) -> type:
    """The OpNode subclass named after ``spec``'s node, as PyTorch's: ``type(y.grad_fn).__name__``
    is ``MulBackward0`` (``torch::autograd::CopyBackwards`` -> ``CopyBackwards``). One per name,
    adding nothing to OpNode."""
    name = spec.node_name
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        short = name.rsplit("::", 1)[-1]
        cls = _NODE_CLASSES[name] = type(short, (OpNode,), {"__slots__": (), "__module__": __name__})
    return cls
