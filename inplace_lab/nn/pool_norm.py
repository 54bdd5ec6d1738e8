"""Modules for the 3-d pools, unpooling, instance/RMS/local response norms, power-average
pools, channel shuffle, Softmax2d and the circular / 3-d zero pads.

Constructor signatures, defaults, ``extra_repr`` and state_dict keys are PyTorch's
(``InstanceNorm*d`` has no parameters or buffers unless asked; with
``track_running_stats`` it has ``num_batches_tracked`` too, which, as in torch, it never
advances). Argument errors are raised with torch's messages before any data is touched.
"""
from __future__ import annotations

import warnings

from .. import creation
from . import functional as F
from . import init
from .layers import _BatchNorm, _factory
from .module import Module
from .parameter import Parameter
from .functional_pool_norm import pad_circular
from .pooling import (ConstantPad3d, _AdaptiveMaxPool, _AdaptivePool, _AvgPoolNd, _MaxPoolNd,
                      _ntuple)


def _n(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


# ---- pooling --------------------------------------------------------------------------------

class MaxPool3d(_MaxPoolNd):
    _fname = "max_pool3d"


class AvgPool3d(_AvgPoolNd):
    _fname = "avg_pool3d"


class AdaptiveAvgPool3d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    _fname = "adaptive_max_pool1d"


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    _fname = "adaptive_max_pool3d"


class _MaxUnpoolNd(Module):
    _dims = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _n(kernel_size, self._dims)
        self.stride = _n(stride if stride is not None else kernel_size, self._dims)
        self.padding = _n(padding, self._dims)

    def forward(self, input, indices, output_size=None):
        fn = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self._dims - 1]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _dims = 3


class _LPPool(Module):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)

    def extra_repr(self):
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, " \
               f"stride={self.stride}, ceil_mode={self.ceil_mode}"


class LPPool1d(_LPPool):
    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPool):
    _fn = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPool):
    _fn = staticmethod(F.lp_pool3d)


# ---- normalisation --------------------------------------------------------------------------

class BatchNorm3d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _InstanceNorm(_BatchNorm):
    """torch's ``_InstanceNorm``: per-sample, per-channel statistics; by default neither
    affine nor tracking running statistics. An unbatched input is unsqueezed, normalised,
    squeezed back."""

    _no_batch_dim = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    _no_batch_dim = 2

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    _no_batch_dim = 3

    def _check_input_dim(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class InstanceNorm3d(_InstanceNorm):
    _no_batch_dim = 4

    def _check_input_dim(self, input):
        if input.dim() not in (4, 5):
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")


class RMSNorm(Module):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims; the
    weight starts at ones (``init.ones_``: version 1, as in torch)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine: bool = True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.empty(tuple(self.normalized_shape),
                                                   **_factory(device, dtype)))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, " \
               f"elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# ---- shuffles, softmax, pads ----------------------------------------------------------------

class ChannelShuffle(Module):
    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of a (C, H, W) or (N, C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3)


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(Module):
    _dims = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._dims)

    def forward(self, input):
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got "
                             f"{input.dim()}D input)")
        return pad_circular(input, self.padding)

    def extra_repr(self):
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    _dims = 1


class CircularPad2d(_CircularPadNd):
    _dims = 2


class CircularPad3d(_CircularPadNd):
    _dims = 3


__all__ = ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d",
           "LPPool2d", "LPPool3d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "RMSNorm", "LocalResponseNorm", "ChannelShuffle", "Softmax2d",
           "ZeroPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]
