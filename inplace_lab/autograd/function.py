"""Custom autograd Functions: your own forward and backward, as ``torch.autograd.Function``.

>>> import inplace_lab as il
>>> class Square(il.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x * x
...     @staticmethod
...     def backward(ctx, g):
...         x, = ctx.saved_tensors      # version-checked, like a built-in node's
...         return 2 * x * g
>>> x = il.tensor([1., 2.], requires_grad=True)
>>> y = Square.apply(x)
>>> y.grad_fn.name()
'SquareBackward'

As in PyTorch, ``ctx`` *is* the graph node (``y.grad_fn is ctx``): attributes
set on it in forward are there in backward. Its edges go to the tensor
arguments only. ``forward`` runs with grad disabled; its in-place ops bump
versions, and ``ctx.mark_dirty(x)`` bumps ``x`` once more and rewrites ``x``'s
history to this node (a view's base gets a ``CopySlices``). Tensors given to
``save_for_backward`` are saved *after* forward, so their recorded version is
the one forward left them at.
"""
from __future__ import annotations

import functools

from .. import errors
from . import anomaly as _anomaly, grad_mode
from .node import Node, edge_of, move_retained_grad
from .saved import SavedTensor


def _is_tensor(x) -> bool:
    from ..tensor import Tensor

    return isinstance(x, Tensor)


class FunctionCtx:
    """What ``forward`` may call on ``ctx`` (the node class below inherits these)."""

    __slots__ = ()

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors for backward; ``ctx.saved_tensors`` will check their versions."""
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors) -> None:
        """Declare the inputs forward modified in place (they must be returned)."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Outputs that get ``requires_grad=False`` (their gradient in backward is zeros)."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """``False``: backward receives ``None`` (not zeros) for outputs that got no gradient."""
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The node of one ``Function.apply`` call; subclassed per Function as ``<Name>Backward``."""

    _forward_cls = None
    user_code = True  # the engine never steals tensors a user backward returned

    def __init__(self, next_functions=()):
        Node.__init__(self, next_functions)
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved = []
        self._is_tensor_input = ()

    def name(self) -> str:
        return type(self).__name__

    @property
    def num_outputs(self) -> int:
        return len(self.output_meta) or 1

    @property
    def saved_tensors(self) -> tuple:
        """The saved tensors, each checked against the version it had when saved."""
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    saved_variables = saved_tensors

    def saved_tensors_info(self) -> dict:
        return {str(i): s for i, s in enumerate(self._saved) if s is not None}

    def apply(self, grads):
        result = self._forward_cls.backward(self, *grads)  # the engine zero-filled if asked
        if not isinstance(result, tuple):
            result = (result,)
        return self._grads_for_edges(result)

    def _grads_for_edges(self, result):
        """Check the returned gradients (one per forward argument) and keep the tensor ones."""
        n = len(self._is_tensor_input)
        if len(result) != n:
            if len(result) > n and all(g is None for g in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                                   f"gradients (expected {n}, got {len(result)})")
        out = []
        for i, (g, is_t) in enumerate(zip(result, self._is_tensor_input)):
            if not is_t:
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a Variable")
                continue
            out.append(g if self.needs_input_grad[i] else None)
        return tuple(out)


class FunctionMeta(type):
    """Gives every Function subclass its node class ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call ``apply``.

    The newer style is also accepted: ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)``.
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        is_tensor = tuple(_is_tensor(a) for a in args)
        needs = tuple(t and a._requires_grad for t, a in zip(is_tensor, args))
        executable = grad_mode.state.enabled and any(needs)
        ctx = cls._backward_cls(tuple(edge_of(a) for a, t in zip(args, is_tensor) if t)
                                if executable else ())
        ctx._is_tensor_input = is_tensor
        ctx.needs_input_grad = needs
        with grad_mode.no_grad():
            if cls.setup_context is Function.setup_context:
                outputs = cls.forward(ctx, *args, **kwargs)
            else:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        _bump_dirty(ctx, args)
        outs = _wrap_outputs(ctx, args, outs, executable)
        if executable:
            ctx._saved = [_save(ctx, t, outs) for t in ctx.to_save]
            if _anomaly.state.enabled:  # (ops reach anomaly mode through the event bus)
                _anomaly.note(ctx)
        return outs[0] if single else outs


def _bump_dirty(ctx, args) -> None:
    """``mark_dirty`` counts as an in-place write: one more version bump (PyTorch does this)."""
    for t in ctx.dirty_tensors:
        t._vc.bump()


def _differentiable_dtype(t) -> bool:
    return t._dtype.is_floating_point or t._dtype.is_complex


def _wrap_outputs(ctx, args, outs, executable):
    """Point each output's history at ``ctx`` (PyTorch's ``_process_backward_mode_ad``).

    - An input returned as-is comes back as a *view* of it (``view_as``), never the same
      object; one that is not differentiable here (no graph recorded, or marked
      non-differentiable) and requires grad comes back as a detached alias instead.
    - A dirty input (``mark_dirty``) keeps its identity and gets this node as history
      (a view input: its base gets a CopySlices), after the leaf / view checks.
    - Every output that is a view (a returned input, or a view made in forward) is marked
      as made inside a custom Function ("multi_output" when the Function has several
      differentiable outputs): modifying it in place later is refused, as in PyTorch,
      since rewriting its history would bypass this Function's backward.
    """
    from . import views

    inputs = {id(a) for a in args if _is_tensor(a)}
    dirty = {id(t) for t in ctx.dirty_tensors}
    non_diff = {id(t) for t in ctx.non_differentiable}
    if executable:
        for t in ctx.dirty_tensors:
            if not any(t is o for o in outs):
                raise RuntimeError(
                    "Some elements marked as dirty during the forward method were not returned as "
                    "output. The inputs that are modified inplace must all be outputs of the "
                    "Function.")
    diff = [executable and _is_tensor(o) and id(o) not in non_diff and _differentiable_dtype(o)
            for o in outs]
    n_diff = sum(diff)
    creation = "multi_output" if n_diff > 1 else "custom_function"
    result = []
    for nr, o in enumerate(outs):
        if not _is_tensor(o):
            result.append(o)
            continue
        is_input, is_modified = id(o) in inputs, id(o) in dirty
        if executable:
            ctx.output_meta.append((o._shape, o._dtype, o._storage.device))
        if not diff[nr]:
            if not o._requires_grad:
                if is_input and not is_modified:
                    o = _view_as_self(o)
            elif is_input:
                o = o.detach()  # PyTorch returns a detached alias (the input keeps its flag)
            elif o._base is None:
                o.detach_()
        elif is_modified:
            _check_dirty(ctx, o, n_diff)
            if o._base is not None:
                views.rebase_history(o, ctx)
            else:
                _set_history(o, ctx, nr)
        else:
            if is_input:
                o = _view_as_self(o)
            _set_history(o, ctx, nr)
        if not (is_input and is_modified) and o._base is not None and o._view_meta is not None:
            o._view_meta.creation = creation
        result.append(o)
    return tuple(result)


def _view_as_self(t):
    """``t.view_as(t)`` made without recording (PyTorch's _view_as_self_with_no_grad)."""
    with grad_mode.no_grad():
        return t.view_as(t)


def _check_dirty(ctx, o, n_diff) -> None:
    """May a dirty input get this node as history? PyTorch's checks, in PyTorch's order."""
    from .. import policy

    if o.is_leaf and o._requires_grad:
        raise errors.LeafInplaceError(
            "a leaf Variable that requires grad has been used in an in-place operation.",
            tensor=o, op=ctx.name())
    if o._base is not None and n_diff > 1:
        raise RuntimeError(
            "If your Function modifies inplace an input that is a view of another Tensor, "
            "your Function cannot return more than one Tensor. This is not supported by "
            "the current autograd engine. You should either make sure the input is not a "
            "view (using .clone() for example) or make your Function only return one "
            "Tensor (potentially splitting it into two Functions: one doing the inplace "
            "that returns a single Tensor and a second one that does the other "
            "operations). You can ask on the forum https://discuss.pytorch.org/ if you need "
            "help to do this change.")
    if o._base is not None:  # a no_grad / multi-output view, or a view of a leaf: refused
        policy.check_autograd_inplace(ctx.name(), o, policy.policy_of(o))


def _set_history(t, node, nr) -> None:
    old, old_nr = t._grad_fn, t._output_nr
    t._grad_fn, t._output_nr, t._requires_grad = node, nr, True
    move_retained_grad(t, old, old_nr, node, nr)  # retain_grad survives, as for built-in ops


def _save(ctx, t, outs):
    if t is None:
        return None
    if not _is_tensor(t):
        raise TypeError("save_for_backward can only save variables, but argument 0 is of type "
                        f"{type(t).__name__}")
    is_output = any(t is o for o in outs)
    return SavedTensor(t, ctx.name(), is_output=is_output, policy=None, name="saved_tensors")


def once_differentiable(fn):
    """Mark a backward as not itself differentiable (PyTorch's decorator).

    The backward runs with grad disabled. If it ran while a graph is being built
    (``create_graph=True``) on gradients that require grad, its results are routed
    through an ``Error`` node instead, so that differentiating them again raises
    "trying to differentiate twice a function that was marked with @once_differentiable".
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.state.enabled:
            return outputs
        if not any(_is_tensor(a) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        fakes = []
        for v in outs:  # detached leaves that require grad: the Error node's inputs
            if _is_tensor(v):
                v = v.detach()
                v._requires_grad = True
            fakes.append(v)
        node = DelayedError(_ONCE_TEXT, tuple(edge_of(v) for v in fakes))
        wrapped = []
        for i, v in enumerate(fakes):
            if _is_tensor(v):
                v = v._alias_with_grad(node, i)
                node.output_meta.append((v._shape, v._dtype, v._storage.device))
            wrapped.append(v)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper


_ONCE_TEXT = "trying to differentiate twice a function that was marked with @once_differentiable"


class DelayedError(Node):
    """A node whose backward raises: what ``once_differentiable`` puts on its results."""

    __slots__ = ("msg",)

    def __init__(self, msg, next_functions=()):
        super().__init__(next_functions)
        self.msg = msg

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads):
        raise RuntimeError(self.msg)
