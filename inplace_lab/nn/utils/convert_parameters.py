"""``torch.nn.utils.convert_parameters``: all parameters as one vector, and back."""
from __future__ import annotations

from ...tensor import Tensor


def _check_param_device(param, old):
    dev = param.device.index if param.device.type == "cuda" else -1
    if old is not None and dev != old:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return dev


def parameters_to_vector(parameters):
    """One flat vector of all parameters (``cat`` of their views: differentiable)."""
    import inplace_lab as il

    dev, vec = None, []
    for p in parameters:
        dev = _check_param_device(p, dev)
        vec.append(p.view(-1))
    return il.cat(vec)


def vector_to_parameters(vec, parameters):
    """Point each parameter's ``.data`` at its slice of ``vec`` (they share ``vec``'s storage)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    dev, pointer = None, 0
    for p in parameters:
        dev = _check_param_device(p, dev)
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n
