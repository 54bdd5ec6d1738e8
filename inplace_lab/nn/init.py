"""``nn.init``: in-place initialisers, run under no_grad as PyTorch does.

Each one is a single in-place op on the parameter (``uniform_``, ``normal_``,
``fill_``, ``zero_``): the parameter's ``_version`` bumps by one, and because grad
mode is off there is no leaf error although a Parameter is a leaf that requires grad.

>>> import inplace_lab as il
>>> w = il.nn.Parameter(il.empty(3, 4))
>>> _ = il.nn.init.zeros_(w); w._version
1
"""
from __future__ import annotations

import math

from ..autograd import no_grad


def calculate_gain(nonlinearity: str, param=None) -> float:
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d")
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    with no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    with no_grad():
        return tensor.normal_(mean, std)


def constant_(tensor, val: float):
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def ones_(tensor):
    with no_grad():
        return tensor.fill_(1.0)


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None):
    if 0 in tensor.shape:
        warnings_zero()
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None):
    if 0 in tensor.shape:
        warnings_zero()
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std)


def warnings_zero():
    import warnings

    warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=3)


def orthogonal_(tensor, gain: float = 1.0, generator=None):
    """A (semi-)orthogonal matrix, as PyTorch: QR of a normal sample, Q's columns signed by
    ``diag(R)``, trailing dimensions flattened; one ``copy_`` and one ``mul_`` (version +2)."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    from .. import backend, creation

    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    xp = backend.xp_of(tensor.device)
    flat = xp.asarray(tensor.new_empty((rows, cols)).normal_(0, 1)._a)
    if rows < cols:
        flat = flat.T
    q, r = xp.linalg.qr(flat)
    q = q * xp.sign(xp.diag(r))
    if rows < cols:
        q = q.T
    q = creation.tensor(xp.ascontiguousarray(q), dtype=tensor.dtype, device=tensor.device)
    with no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """Normal(mean, std) truncated to [a, b], by inverse-CDF sampling on a scratch tensor
    (``uniform_``, ``erfinv_``, ``mul_``, ``add_``, ``clamp_``), then one ``copy_`` into
    ``tensor`` (version +1)."""
    import warnings

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)
        tmp = tensor.new_empty(tuple(tensor.shape)).uniform_(2 * lo - 1, 2 * hi - 1)
        tmp.erfinv_().mul_(std * math.sqrt(2.0)).add_(mean).clamp_(a, b)
        return tensor.copy_(tmp)
