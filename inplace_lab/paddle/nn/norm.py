"""``paddle.nn`` normalisation layers: LayerNorm, BatchNorm1D/2D/3D, BatchNorm (the older
fluid-style one, still exported by 3.3.1), GroupNorm, InstanceNorm1D/2D/3D,
LocalResponseNorm. Each calls its ``paddle.nn.functional`` function at forward time.

Batch norm's running statistics are *parameters* in Paddle, not buffers: ``_mean`` and
``_variance`` are made by ``create_parameter`` with ``trainable=False`` (so
``stop_gradient=True``), are named ``batch_norm2d_0.w_1`` / ``.w_2``, appear in
``parameters()`` and ``state_dict()``, and ``named_buffers()`` is empty. In training the
functional updates them as ``running = momentum * running + (1 - momentum) * batch``
(biased batch variance), out of band: their ``inplace_version`` stays 0.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from . import functional
from .initializer import Constant
from .layers import Layer
from .parameter import ParamAttr

__all__ = ["LayerNorm", "BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LocalResponseNorm"]


class LayerNorm(Layer):
    """Normalise over the trailing ``normalized_shape`` axes; weight ones, bias zeros, both
    flat ``[prod(normalized_shape)]``."""

    def __init__(self, normalized_shape, epsilon=1e-5, *, elementwise_affine=True, bias=True,
                 device=None, dtype=None, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = [normalized_shape]
        self._normalized_shape = list(normalized_shape)
        self._epsilon = epsilon
        self._dtype = "float32" if dtype is None else dtype
        if not elementwise_affine:
            weight_attr = bias_attr = False
        elif not bias:
            bias_attr = False
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        shape = [int(np.prod(self._normalized_shape))]
        self.weight = None if weight_attr is False else self.create_parameter(
            shape, weight_attr, self._dtype, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            shape, bias_attr, self._dtype, True, Constant(0.0))

    def forward(self, input):
        return functional.layer_norm(input, normalized_shape=self._normalized_shape,
                                     weight=self.weight, bias=self.bias,
                                     epsilon=self._epsilon)

    def extra_repr(self) -> str:
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


def _running_stat(layer, name, value, dtype, do_model_average=True):
    p = layer.create_parameter([layer._num_features], ParamAttr(
        name=name, initializer=Constant(value), trainable=False,
        do_model_average=do_model_average), dtype)
    p.stop_gradient = True
    return p


class _BatchNormBase(Layer):
    """Weight ones, bias zeros, running mean zeros and variance ones (see the module doc)."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None, name=None):
        super().__init__()
        self._num_features = num_features
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self._use_global_stats = use_global_stats
        self._dtype = "float32"
        shape = [num_features]
        self.weight = None if weight_attr is False else self.create_parameter(
            shape, weight_attr, self._dtype, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            shape, bias_attr, self._dtype, True)
        self._mean = _running_stat(self, None if name is None else name + "_mean", 0.0,
                                   self._dtype)
        self._variance = _running_stat(self, None if name is None else name + "_variance",
                                       1.0, self._dtype)
        self._data_format, self._in_place = data_format, False
        self._momentum, self._epsilon = momentum, epsilon
        self._fuse_with_relu, self._name = False, name

    def _check_input_dim(self, input):
        raise NotImplementedError("BatchNorm Base error")

    def _check_data_format(self, input):
        raise NotImplementedError("BatchNorm Base data format error")

    def forward(self, input):
        self._check_data_format(self._data_format)
        self._check_input_dim(input)
        if self.training:
            warnings.warn("When training, we now always track global mean and variance.")
        return functional.batch_norm(input, self._mean, self._variance, weight=self.weight,
                                     bias=self.bias, training=self.training,
                                     momentum=self._momentum, epsilon=self._epsilon,
                                     data_format=self._data_format,
                                     use_global_stats=self._use_global_stats)

    def extra_repr(self) -> str:
        s = f"num_features={self._num_features}, momentum={self._momentum}, " \
            f"epsilon={self._epsilon}"
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        if self._name is not None:
            s += f", name={self._name}"
        return s


def _check_dims(input, allowed, words):
    if len(input.shape) not in allowed:
        raise ValueError(f"expected {words} input (got {len(input.shape)}D input)")


class BatchNorm1D(_BatchNormBase):
    """Batch norm over [N, C] or [N, C, L] inputs."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)

    def _check_data_format(self, input):
        if input in ("NCHW", "NC", "NCL"):
            self._data_format = "NCHW"
        elif input in ("NHWC", "NLC"):
            self._data_format = "NHWC"
        else:
            raise ValueError("expected NC , NCL, NLC or None for data_format input")

    def _check_input_dim(self, input):
        _check_dims(input, (2, 3), "2D or 3D")


class BatchNorm2D(_BatchNormBase):
    """Batch norm over [N, C, H, W] inputs."""

    def _check_data_format(self, input):
        if input not in ("NCHW", "NHWC"):
            raise ValueError("expected NCHW or NHWC for data_format input")
        self._data_format = input

    def _check_input_dim(self, input):
        _check_dims(input, (4,), "4D")


class BatchNorm3D(_BatchNormBase):
    """Batch norm over [N, C, D, H, W] inputs."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)

    def _check_data_format(self, input):
        if input in ("NCHW", "NCDHW"):
            self._data_format = "NCHW"
        elif input in ("NHWC", "NDHWC"):
            self._data_format = "NHWC"
        else:
            raise ValueError("expected NCDHW, NDHWC or None for data_format input")

    def _check_input_dim(self, input):
        _check_dims(input, (5,), "5D")


class BatchNorm(Layer):
    """The fluid-era batch norm: ``num_channels``, an optional activation ``act``,
    ``is_test`` for eval mode, ``param_attr`` for the weight, ``data_layout``."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__()
        self._param_attr, self._bias_attr, self._act = param_attr, bias_attr, act
        self._dtype = "float32" if dtype == "float16" else dtype
        self._num_features = num_channels
        shape = [num_channels]
        self.weight = None if param_attr is False else self.create_parameter(
            shape, param_attr, self._dtype, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            shape, bias_attr, self._dtype, True)
        self._mean = _running_stat(self, moving_mean_name, 0.0, self._dtype,
                                   do_model_average_for_mean_and_var)
        self._variance = _running_stat(self, moving_variance_name, 1.0, self._dtype,
                                       do_model_average_for_mean_and_var)
        self._in_place, self._data_layout = in_place, data_layout
        self._momentum, self._epsilon, self._is_test = momentum, epsilon, is_test
        self._fuse_with_relu, self._use_global_stats = False, use_global_stats
        self._trainable_statistics = trainable_statistics
        self.training = not is_test

    def forward(self, input):
        """Paddle calls the kernel with (is_test, use_global_stats, trainable_statistics);
        the kernel reads the running statistics when ``is_test and not
        trainable_statistics`` or ``use_global_stats``. The functional takes
        (training, use_global_stats) and derives trainable_statistics, so map the three
        onto the call that reads the same statistics."""
        test_mode = not self.training and not self._trainable_statistics
        if test_mode or not self._use_global_stats:
            training, global_stats = not test_mode, None
        else:
            training, global_stats = self.training, True
        out = functional.batch_norm(input, self._mean, self._variance, weight=self.weight,
                                    bias=self.bias, training=training,
                                    momentum=self._momentum, epsilon=self._epsilon,
                                    data_format=self._data_layout,
                                    use_global_stats=global_stats)
        return out if self._act is None else getattr(functional, self._act)(out)


class GroupNorm(Layer):
    """Normalise each of ``num_groups`` channel groups per sample; weight ones, bias zeros
    (a ``learning_rate=0`` ParamAttr freezes them)."""

    def __init__(self, num_groups, num_channels, epsilon=1e-5, *, affine=True, device=None,
                 dtype=None, weight_attr=None, bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        self._epsilon, self._num_channels, self._num_groups = epsilon, num_channels, num_groups
        self._dtype = "float32" if dtype is None else dtype
        if data_format not in ["NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"]:
            raise ValueError("unsupported data layout:" + data_format)
        self._data_format = "NCHW" if data_format[1] == "C" else "NHWC"
        if not affine:
            weight_attr = bias_attr = False
        self._weight_attr, self._bias_attr = weight_attr, bias_attr

        def frozen(attr):
            return attr is not None and getattr(attr, "learning_rate", None) == 0.0

        self.weight = self.bias = None
        if weight_attr is not False:
            self.weight = self.create_parameter([num_channels], weight_attr, self._dtype,
                                                default_initializer=Constant(1.0))
            self.weight.stop_gradient = frozen(weight_attr)
        if bias_attr is not False:
            self.bias = self.create_parameter([num_channels], bias_attr, self._dtype, True,
                                              Constant(0.0))
            self.bias.stop_gradient = frozen(bias_attr)

    def forward(self, input):
        return functional.group_norm(input, self._num_groups, self._epsilon, self.weight,
                                     self.bias, self._data_format)

    def extra_repr(self) -> str:
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, " \
               f"epsilon={self._epsilon}"


class _InstanceNormBase(Layer):
    """Per-sample, per-channel normalisation; the affine parameters are ``scale`` (ones)
    and ``bias`` (zeros), or neither (both attrs False)."""

    _dims, _words = (4,), "4D"

    def __init__(self, num_features, epsilon=1e-5, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        if weight_attr is False or bias_attr is False:
            assert weight_attr == bias_attr, ("weight_attr and bias_attr must be set to False "
                                              "at the same time in InstanceNorm")
        self._momentum, self._epsilon = momentum, epsilon
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self._num_features, self._data_format = num_features, data_format
        if weight_attr is not False and bias_attr is not False:
            self.scale = self.create_parameter([num_features], weight_attr,
                                               default_initializer=Constant(1.0))
            self.bias = self.create_parameter([num_features], bias_attr, None, True,
                                              Constant(0.0))
        else:
            self.scale = self.bias = None

    def forward(self, input):
        _check_dims(input, self._dims, self._words)
        return functional.instance_norm(input, weight=self.scale, bias=self.bias,
                                        momentum=self._momentum, eps=self._epsilon,
                                        data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    _dims, _words = (2, 3), "2D or 3D"

    def __init__(self, num_features, epsilon=1e-5, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCL", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format,
                         name)


class InstanceNorm2D(_InstanceNormBase):
    _dims, _words = (4,), "4D"


class InstanceNorm3D(_InstanceNormBase):
    _dims, _words = (5,), "5D"

    def __init__(self, num_features, epsilon=1e-5, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format,
                         name)


class LocalResponseNorm(Layer):
    """``functional.local_response_norm(x, size, alpha, beta, k, data_format)``."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k
        self.data_format, self.name = data_format, name

    def forward(self, input):
        return functional.local_response_norm(input, self.size, self.alpha, self.beta, self.k,
                                              self.data_format, self.name)

    def extra_repr(self) -> str:
        s = f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
        if self.data_format != "NCHW":
            s += f", data_format={self.data_format}"
        if self.name is not None:
            s += f", name={self.name}"
        return s
