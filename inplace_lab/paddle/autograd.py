"""``paddle.autograd``: backward over several tensors (gradients of ones for non-scalars)."""
from __future__ import annotations

from inplace_lab import autograd as _core
from inplace_lab.autograd import saved as _saved
from inplace_lab.tensor import Tensor as _Tensor


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Paddle's argument checks (its Python asserts, word for word), then the backward."""
    tensors = _check_tensors(tensors, "tensors")
    assert len(tensors) == len({id(t) for t in tensors}), (
        "The argument 'tensors' of paddle.autograd.backward contains duplicate paddle.Tensor "
        "object.")
    if grad_tensors is not None:
        if not isinstance(grad_tensors, (list, tuple)):
            grad_tensors = [grad_tensors]
        for g in grad_tensors:
            assert g is None or isinstance(g, _Tensor), (
                "The argument 'grad_tensors' of paddle.autograd.backward is invalid, it can be "
                "'None', 'paddle.Tensor' or 'list[None/paddle.Tensor]'.")
        assert not grad_tensors or len(tensors) == len(grad_tensors), (
            "The length of grad_tensors must be equal to tensors")
    assert isinstance(retain_graph, bool), "retain_graph must be True or False"
    _core.backward(list(tensors), None if not grad_tensors else list(grad_tensors),
                   retain_graph=retain_graph)


def _check_tensors(in_out_list, name):
    assert in_out_list is not None, f"{name} should not be None"
    if isinstance(in_out_list, (list, tuple)):
        assert len(in_out_list) > 0, f"{name} cannot be empty"
        for t in in_out_list:
            assert isinstance(t, _Tensor), f"Elements of {name} must be paddle.Tensor"
        return in_out_list
    assert isinstance(in_out_list, _Tensor), f"{name} must be Tensor or list of Tensor"
    return [in_out_list]


# ---- PyLayer: Paddle's custom autograd function ------------------------------------------------

from inplace_lab.autograd.function import BackwardCFunction as _BackwardCFunction  # noqa: E402
from inplace_lab.autograd.function import Function as _Function  # noqa: E402
from inplace_lab.autograd.function import FunctionMeta as _FunctionMeta  # noqa: E402

no_grad = _core.no_grad
enable_grad = _core.enable_grad
set_grad_enabled = _core.set_grad_enabled
is_grad_enabled = _core.is_grad_enabled


class PyLayerContext:
    """What ``forward``/``backward`` may call on ``ctx`` beyond the core's (``saved_tensor()``
    is a method in Paddle; ``mark_not_inplace`` and ``set_grad_in_dtype_consistent`` are
    accepted)."""

    __slots__ = ()

    def saved_tensor(self):
        return self.saved_tensors

    def mark_not_inplace(self, *args) -> None:
        self.not_inplace_tensors = args

    def set_grad_in_dtype_consistent(self, flag) -> None:
        self.grad_in_dtype_consistent = bool(flag)


class _PyLayerNode(PyLayerContext, _BackwardCFunction):
    """The node of one ``PyLayer.apply`` call: ``GradNodePyLayer_<Name>``; backward returns
    one gradient per *tensor* input (non-tensor arguments take none), as Paddle's."""

    __slots__ = ()

    def name(self) -> str:
        return f"GradNodePyLayer_{self._forward_cls.__name__}"

    def _grads_for_edges(self, result):
        tensor_pos = [i for i, t in enumerate(self._is_tensor_input) if t]
        if len(result) > len(tensor_pos):
            raise ValueError(
                f"(InvalidArgument) {self.name()} : The number of outputs of `PyLayer.backward` "
                f"should be {len(tensor_pos)}, but received {len(result)}. (at "
                "/paddle/paddle/fluid/eager/pylayer/py_layer_node.cc:196)\n")
        out = []
        for k, i in enumerate(tensor_pos):
            g = result[k] if k < len(result) else None
            if g is None and self.needs_input_grad[i]:
                raise ValueError(
                    f"(InvalidArgument) {self.name()}'s backward function should not return "
                    f"empty at {k} position.\n  [Hint: Expected this->OutputMeta()[i][0]."
                    "IsStopGradient() == true, but received this->OutputMeta()[i][0]."
                    "IsStopGradient():0 != true:1.] (at "
                    "/paddle/paddle/fluid/eager/pylayer/py_layer_node.cc:243)\n")
            if g is not None and not self.needs_input_grad[i]:
                raise ValueError(
                    f"(InvalidArgument) {self.name()}'s backward function should return None at "
                    f"{k} position, because it's forward Tensor's stopgradient is true.\n  "
                    f"[Hint: Expected obj == (&_Py_NoneStruct), but received obj:{hex(id(g))} != "
                    f"(&_Py_NoneStruct):{hex(id(None))}.] (at "
                    "/paddle/paddle/fluid/eager/pylayer/py_layer_node.cc:213)\n")
            out.append(g if self.needs_input_grad[i] else None)
        return tuple(out)


class _PyLayerMeta(_FunctionMeta):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "_backward", (_PyLayerNode,), {"_forward_cls": cls})


class PyLayer(_Function, metaclass=_PyLayerMeta):
    """``paddle.autograd.PyLayer``: static ``forward(ctx, *args)`` and ``backward(ctx,
    *grads)``, called through ``apply``; ``ctx.save_for_backward`` / ``ctx.saved_tensor()``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for PyLayer.")

    @staticmethod
    def backward(ctx, *args):
        raise NotImplementedError("You must implement the backward function for PyLayer.")

    @classmethod
    def apply(cls, *args, **kwargs):
        out = super().apply(*args, **kwargs)
        for t in (out if isinstance(out, tuple) else (out,)):
            if isinstance(t, _Tensor) and t._pol is None and any(
                    isinstance(a, _Tensor) and a._pol is not None for a in args):
                t._policy = "paddle"
        return out


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """``paddle.autograd.grad``: ``paddle.grad``."""
    from inplace_lab import paddle as _paddle

    return _paddle.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
                        allow_unused, no_grad_vars)


Function = PyLayer  # (paddle.autograd.Function is PyLayer)


class saved_tensors_hooks(_saved.saved_tensors_hooks):
    """``with paddle.autograd.saved_tensors_hooks(pack, unpack):`` every tensor a node keeps
    for backward inside the block is stored as ``pack(tensor)`` and read back as
    ``unpack(packed)`` (a lesson packs to numpy and unpacks with ``paddle.to_tensor``)."""
