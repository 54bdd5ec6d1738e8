"""``paddle.nn.init``: PyTorch-style in-place initialisers, each Paddle's thin wrapper over
an ``paddle.nn.initializer`` class (``xavier_uniform_(w)`` is ``XavierUniform()(w)``): the
tensor is filled out of band (``inplace_version`` unchanged) and None is returned, as in
Paddle 3.3.1 (not the tensor, as PyTorch).
"""
from __future__ import annotations

import numpy as np

from .initializer import (Constant, Dirac, KaimingNormal, KaimingUniform, Normal,  # noqa: F401
                          Orthogonal, TruncatedNormal, Uniform, XavierNormal, XavierUniform,
                          calculate_gain)


def _calculate_fan_in_and_fan_out(var):
    shape = var.shape
    if not shape or len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = np.prod(shape[2:])
    return int(shape[1] * receptive), int(shape[0] * receptive)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    return KaimingUniform(negative_slope=a, nonlinearity=nonlinearity, mode=mode)(tensor)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    return KaimingNormal(negative_slope=a, nonlinearity=nonlinearity, mode=mode)(tensor)


def xavier_uniform_(tensor, gain=1.0, fan_in=None, fan_out=None):
    return XavierUniform(gain=gain, fan_in=fan_in, fan_out=fan_out)(tensor)


def xavier_normal_(tensor, gain=1.0, fan_in=None, fan_out=None):
    return XavierNormal(gain=gain, fan_in=fan_in, fan_out=fan_out)(tensor)


def uniform_(tensor, a=0.0, b=1.0):
    return Uniform(low=a, high=b)(tensor)


def normal_(tensor, mean=0.0, std=1.0):
    return Normal(mean=mean, std=std)(tensor)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    return TruncatedNormal(mean=mean, std=std, a=a, b=b)(tensor)


def constant_(tensor, val):
    return Constant(value=val)(tensor)


def ones_(tensor):
    return Constant(value=1.0)(tensor)


def zeros_(tensor):
    return Constant(value=0.0)(tensor)


def dirac_(tensor, groups=1):
    return Dirac(groups=groups)(tensor)


def eye_(tensor):
    """The identity (``paddle.eye``) into a 2-D tensor, out of band."""
    if len(tensor.shape) != 2:
        raise AssertionError(f"Only support 2 dimensional tensor, but got {len(tensor.shape)}.")
    from inplace_lab import paddle

    tensor.set_value(paddle.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype).numpy())
    return None


def orthogonal_(tensor, gain=1):
    return Orthogonal(gain=gain)(tensor)
