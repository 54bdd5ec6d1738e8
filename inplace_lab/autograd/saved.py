"""SavedTensor: what a node keeps for backward, with the version it saw.

When a node saves a tensor it records the tensor's version counter value. At
backward (or when anyone reads ``grad_fn._saved_x``) the current version must
still be the same; otherwise the values backward would read are not the ones
the forward pass used, and the active policy's error is raised.

``saved_tensors_hooks(pack, unpack)`` replaces the stored tensor by whatever
``pack`` returns; as in PyTorch, the version check is then skipped (a known
hole, reproduced on purpose so a lesson can show it).
"""
from __future__ import annotations

import contextlib
import re

from .. import errors, hooks
from .. import policy as _policies
from .grad_mode import state as _gm

_hook_stack: list = []
_disabled: list = [None]  # the error message while ``disable_saved_tensors_hooks`` is on
hooked = [False]  # has any saved tensor been packed by hooks (OpNode.apply then looks)


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack, unpack):`` every tensor saved inside the block is
    stored as ``pack(tensor)`` and read back as ``unpack(packed)`` (only the innermost pair
    applies). A class, as PyTorch's, so a lesson can subclass it (``save_on_cpu`` does)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _disabled[0] is not None:
            raise RuntimeError(_disabled[0])
        _hook_stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *args) -> None:
        _hook_stack.pop()


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Inside the block, installing saved-tensor hooks raises ``RuntimeError(error_message)``
    (so does entering it while hooks are installed)."""
    prev = _disabled[0]
    try:
        _disabled[0] = error_message
        if _hook_stack:
            raise RuntimeError(error_message)
        yield
    finally:
        _disabled[0] = prev


def _pack(pack, t):
    """``pack(t)`` without recording, refusing a hook that writes its input (PyTorch's check)."""
    version = t._vc.version
    with _no_grad():
        packed = pack(t)
    if t._vc.version != version:
        raise RuntimeError(
            "A saved tensor pack hook is modifying its input in place. Tensors provided as input "
            "to pack hook cannot be modified by in-place operations as this can lead to "
            "unexpected side-effects. Please open an issue if you need to perform in-place "
            "operations on the input to a pack hook.")
    return packed


def _no_grad():
    from .grad_mode import no_grad

    return no_grad()


def freed_error(node):
    """PyTorch's error for a saved value read after backward freed it."""
    return errors.BackwardTwiceError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the "
        "graph are freed when you call .backward() or autograd.grad(). Specify "
        "retain_graph=True if you need to backward through the graph a second time or if "
        "you need to access saved tensors after calling backward.", node=node)


class SavedTensor:
    """One tensor saved by one node."""

    __slots__ = ("_tensor", "version", "_vc", "is_output", "node_name", "output_nr",
                 "_packed", "_unpack", "freed", "policy", "_shape", "_dtype", "name", "_producer",
                 "_nonleaf", "view_node", "_meta")

    def __init__(self, t, node_name: str, *, is_output: bool, policy: str, name: str):
        if t._vc.inference:
            _refuse_inference(t, node_name)
        self.version = t._vc.version
        self._vc = t._vc
        self.is_output = is_output
        self.node_name = node_name
        self.name = name
        # PyTorch names an output's own node, but an input's *current* grad_fn (see producer_name).
        self._producer = _short(node_name) if is_output else None
        # An in-place op's result on a view: a weak reference to the view's node, rebuilt on
        # the rebased base when the result was saved (PyTorch's weak_grad_fn_; see producer_name)
        self.view_node = None
        self.output_nr = t._output_nr
        self.policy = policy if policy is not None else _policies._current  # (get_inplace_policy)
        # A saved non-leaf input must not be detach_()ed before backward (see unpack); Paddle's
        # TensorWrapper keeps the values, so there detach_ is fine.
        self._nonleaf = not is_output and t._grad_fn is not None and \
            not _policies.is_paddle(self.policy)
        self.freed = False
        self._shape = t._shape  # a plain tuple; tensor_for_message makes it a Size
        self._dtype = t._dtype
        self._packed = None
        self._unpack = None
        self._meta = None  # (with hooks: what unpack gives back, see _set_hooks)
        # An output must not hold its own grad_fn (that would be a reference cycle):
        # keep a detached alias that shares storage and version counter.
        self._tensor = _tensor_class()._alias(t) if is_output else t
        if _hook_stack:
            self._set_hooks(*_hook_stack[-1], t)
        if hooks.active:
            hooks.emit_save(self, t)

    def _set_hooks(self, pack, unpack, t, data=None) -> None:
        """Store ``pack(data)`` (``t`` itself by default) instead of the tensor ``t``; remember
        what ``unpack`` must give its result back (PyTorch's SavedVariable: requires_grad, the
        grad_fn of a non-leaf input, the AccumulateGrad of a leaf)."""
        rg = t._requires_grad
        hooked[0] = True
        self._meta = (rg, t._grad_fn if not self.is_output else None, t._output_nr,
                      _leaf_acc(t) if rg and t._grad_fn is None and not self.is_output
                      else None)
        self._packed = _pack(pack, t if data is None else data)
        self._unpack = unpack
        self._tensor = None

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        """``grad_fn._raw_saved_<name>.register_hooks(pack, unpack)``: hooks for this one saved
        tensor, packed now (an input is handed to ``pack`` detached, as PyTorch does)."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked "
                f"with: {self!r}, {pack_hook!r}, {unpack_hook!r}")
        if self.freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")
        if self._unpack is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        t = self._tensor
        self._set_hooks(pack_hook, unpack_hook, t, None if self.is_output else t.detach())

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"

    @property
    def producer_name(self) -> str:
        """The op named in PyTorch's error: 'output 0 of Exp'.

        For an in-place op's result on a view, the view's node as it was rebuilt when the
        result was saved ('output 0 of AsStrided') while that node lives (the view still has
        it, or a graph holds it); once it is gone (the view's node was rebuilt again after
        another write), the op that saved it, as PyTorch's ``saved_for`` fallback."""
        if self.view_node is not None:
            gf = self.view_node()
            if gf is not None:
                return _short(gf.name())
        if self._producer is not None:
            return self._producer
        gf = _current_grad_fn(self._tensor) if self._tensor is not None else None
        return _short(gf.name()) if gf is not None else ""

    def tensor_for_message(self):
        if self._tensor is not None:
            return self._tensor
        from ..tensor import Size  # local: tensor imports autograd

        return _Meta(Size(self._shape), self._dtype)

    @property
    def current_version(self) -> int:
        return self._vc.version

    def fails(self) -> bool:
        """Would ``unpack`` raise: freed, modified since saved, or a non-leaf detached in place
        (never with saved-tensor hooks, which skip the checks)?"""
        return self.freed or (self._unpack is None and (
            self._vc.version != self.version or
            self._nonleaf and self._tensor is not None and self._tensor._grad_fn is None))

    def unpack(self, node=None):
        """The saved value, after checking it was not modified in place since."""
        if self.freed:
            raise freed_error(node)
        if self._unpack is not None:
            if hooks.active:
                hooks.emit_check(self, self._vc.version, None, node)
            # hooks installed: no version check (PyTorch's hole)
            return self._unpacked(self._unpack(self._packed), node)
        if self._nonleaf and self._tensor is not None and self._tensor._grad_fn is None:
            raise RuntimeError(
                "Trying to use a saved tensor that has been detached in-place, i.e. with "
                ".detach_().This is not supported, please use out-of-place `.detach()` instead")
        found = self._vc.version
        if hooks.active:
            hooks.emit_check(self, found, found == self.version, node)
        if found != self.version:
            from .. import policy

            raise policy.saved_error(self, found, self.policy)
        t = self._tensor
        if self.is_output and node is not None and t._requires_grad is False:
            if _gm.enabled:  # create_graph: let gradients flow through the output again
                t = t._alias_with_grad(node, self.output_nr)
        return t

    def _unpacked(self, r, node):
        """An unpack hook's result, given back the saved tensor's autograd identity as
        PyTorch's SavedVariable::unpack does (an alias: same storage, same version counter)."""
        if not isinstance(r, _tensor_class()):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(r).__name__}")
        rg, gf, nr, acc = self._meta
        if self.is_output and node is not None:
            gf, nr = node, self.output_nr
        if gf is None and not rg and not r._requires_grad:
            return r
        a = _tensor_class()._alias(r)
        if gf is not None:
            a._grad_fn, a._output_nr, a._requires_grad = gf, nr, True
        else:
            a._requires_grad = rg
            a._grad_acc = acc  # (its gradient flows to the saved leaf's AccumulateGrad)
        return a

    def free(self) -> None:
        self.freed = True
        self._tensor = None
        self._packed = None


class UndefinedSaved:
    """``_raw_saved_<name>`` of a tensor the node did not need to save (mul's ``self`` when
    ``other`` needs no grad): PyTorch's SavedTensor holding no value."""

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"


UndefinedSaved.__name__ = UndefinedSaved.__qualname__ = "SavedTensor"


def _leaf_acc(t):
    """A weak reference to leaf ``t``'s AccumulateGrad (made now if it has none yet)."""
    from .node import accumulator_of

    accumulator_of(t)
    return t._grad_acc


_Tensor = None


def _tensor_class():
    """``Tensor``, imported on first use (tensor imports autograd, so not at module level)."""
    global _Tensor
    if _Tensor is None:
        from ..tensor import Tensor

        _Tensor = Tensor
    return _Tensor


def _refuse_inference(t, node_name):
    """PyTorch's SavedVariable refuses inference tensors (they have no version to record)."""
    raise errors.InferenceTensorError(
        "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
        "inference mode in computation tracked by autograd. To work around this, you can make a "
        "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
        "`torch.inference_mode()`.", kind="save", tensor=t, node=node_name)


class _Meta:
    """Shape/dtype stand-in for a saved tensor kept only in packed form."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.name = shape, dtype, ""


def _short(node_name: str) -> str:
    """'ExpBackward0' -> 'Exp', 'PowBackward1' -> 'Pow1', 'SquareBackward' -> 'Square'.

    PyTorch's producer name in errors (checked against torch 2.13: MaxBackward1 -> Max1).
    Memoised: every saved output asks, and there are only as many names as ops.
    """
    short = _SHORT.get(node_name)
    if short is None:
        short = _SHORT[node_name] = re.sub(r"Backward(\d*)$", lambda m: m.group(1).lstrip("0"),
                                           node_name)
    return short


_SHORT: dict = {}


def _current_grad_fn(t):
    """``t.grad_fn`` as PyTorch reads it for the message: a stale view's is rebuilt first."""
    try:
        return t.grad_fn
    except RuntimeError:  # a no_grad / multi-output view whose base changed: keep the old one
        return t._grad_fn
