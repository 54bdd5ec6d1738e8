"""``paddle.nn`` general layers: Linear, Bilinear, Embedding, Identity, Flatten, Unflatten,
CosineSimilarity, Unfold, Fold. Each keeps Paddle's constructor and attribute names and
calls its ``paddle.nn.functional`` function at forward time, as Paddle's layers do.
Dropout, padding and upsampling layers are in ``common_resample.py``."""
from __future__ import annotations

from . import functional
from .layers import Layer

__all__ = ["Identity", "Linear", "Bilinear", "Embedding", "Flatten", "Unflatten",
           "CosineSimilarity", "Unfold", "Fold"]


def _name_str(name):
    return f", name={name}" if name else ""


def _forbid_torch_keywords(kwargs, illegal, func_name):
    """Paddle's ``ForbidKeywordsDecorator``: PyTorch's keywords point to ``paddle.compat``;
    any other unknown keyword is Python's own TypeError."""
    found = sorted(k for k in kwargs if k in illegal)
    if found:
        raise TypeError(f"paddle.nn.{func_name}() received unexpected keyword argument"
                        f"{'s' if len(found) > 1 else ''} {', '.join(repr(k) for k in found)}. "
                        f"\nDid you mean to use paddle.compat.nn.{func_name}() instead?")
    if kwargs:
        raise TypeError(f"{func_name}.__init__() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")


class Identity(Layer):
    """Returns its input; takes (and ignores) any arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Layer):
    """``y = x @ weight + bias`` with Paddle's [in_features, out_features] weight layout.

    XavierUniform weight, zero bias, named after the layer (``linear_0.w_0``); ``name``
    only shows in the repr. ``bias_attr=False`` leaves ``bias`` None.
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None,
                 **kwargs):
        _forbid_torch_keywords(kwargs, {"bias", "device", "dtype"}, "Linear")
        super().__init__()
        self._dtype = "float32"
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self.weight = self.create_parameter([in_features, out_features], weight_attr,
                                            self._dtype, False)
        self.bias = self.create_parameter([out_features], bias_attr, self._dtype, True)
        self.name = name

    def forward(self, input):
        return functional.linear(x=input, weight=self.weight, bias=self.bias, name=self.name)

    def extra_repr(self) -> str:
        return f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, " \
               f"dtype={self._dtype}{_name_str(self.name)}"


class Bilinear(Layer):
    """``out[:, k] = x1 @ weight[k] @ x2.T + bias[k]``; weight [out, in1, in2], bias [1, out]."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        self._weight_attr, self._bias_attr, self._name = weight_attr, bias_attr, name
        self._in1_features, self._in2_features = in1_features, in2_features
        self._out_features = out_features
        self._dtype = "float32"
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            weight_attr, self._dtype, False)
        self.bias = self.create_parameter([1, out_features], bias_attr, self._dtype, True)

    def forward(self, x1, x2):
        return functional.bilinear(x1, x2, self.weight, self.bias, self._name)

    def extra_repr(self) -> str:
        return f"in1_features={self._in1_features}, in2_features={self._in2_features}, " \
               f"out_features={self._out_features}, dtype={self._dtype}{_name_str(self._name)}"


class Embedding(Layer):
    """A lookup table [num_embeddings, embedding_dim], XavierUniform-initialised; the row
    ``padding_idx`` (negative counts from the end) starts at zero and gets no gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, *, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None, weight_attr=None, name=None):
        super().__init__()
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._sparse, self._is_distributed = sparse, False
        self._max_norm, self._norm_type = max_norm, norm_type
        self._padding_idx, self._scale_grad_by_freq = padding_idx, scale_grad_by_freq
        if num_embeddings <= 0:
            raise ValueError("num_embeddings must be gather than 0")
        if embedding_dim <= 0:
            raise ValueError("embedding_dim must be gather than 0")
        row = -1 if padding_idx is None else \
            padding_idx if padding_idx >= 0 else num_embeddings + padding_idx
        if row >= num_embeddings or row < -num_embeddings:
            raise ValueError(f"padding_idx must be within [-{num_embeddings}, {num_embeddings})")
        self._dtype = "float32" if dtype is None else dtype
        self._size = [num_embeddings, embedding_dim]
        self._weight_attr, self._name = weight_attr, name
        if _weight is not None:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = _weight
            self.weight.stop_gradient = _freeze
        else:
            self.weight = self.create_parameter(self._size, weight_attr, self._dtype, False)
            if weight_attr is None:
                self.weight.stop_gradient = _freeze
        if row != -1:  # (Paddle writes the row under no_grad: version + 1)
            from inplace_lab.autograd import no_grad

            with no_grad():
                self.weight[row] = 0.0

    @property
    def padding_idx(self):
        return self._padding_idx

    @padding_idx.setter
    def padding_idx(self, value):
        self._padding_idx = value

    def forward(self, x):
        return functional.embedding(x, weight=self.weight, padding_idx=self._padding_idx,
                                    max_norm=self._max_norm, norm_type=self._norm_type,
                                    sparse=self._sparse,
                                    scale_grad_by_freq=self._scale_grad_by_freq,
                                    name=self._name)

    def extra_repr(self) -> str:
        s = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            s += f", padding_idx={self._padding_idx}"
        s += f", sparse={self._sparse}, scale_grad_by_freq={self._scale_grad_by_freq}"
        return s + (f", name={self._name}" if self._name is not None else "")


class Flatten(Layer):
    """``paddle.flatten(x, start_axis, stop_axis)``; by default all but the batch axis."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        import inplace_lab.paddle as paddle

        return paddle.flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)


class Unflatten(Layer):
    """``paddle.unflatten(x, axis, shape)``."""

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape, self.name = axis, shape, name

    def forward(self, input):
        import inplace_lab.paddle as paddle

        return paddle.unflatten(input, axis=self.axis, shape=self.shape, name=self.name)

    def extra_repr(self) -> str:
        return f"axis={self.axis}, shape={self.shape}{_name_str(self.name)}"


class CosineSimilarity(Layer):
    """``functional.cosine_similarity(x1, x2, axis, eps)``."""

    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    @property
    def dim(self):
        return self._axis

    @dim.setter
    def dim(self, value):
        self._axis = value

    def forward(self, x1, x2):
        return functional.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self) -> str:
        return f"axis={self._axis}, eps={self._eps}"


class Unfold(Layer):
    """im2col: ``functional.unfold(x, kernel_sizes, strides, paddings, dilations)``."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None, **kwargs):
        _forbid_torch_keywords(kwargs, {"kernel_size", "dilation", "padding", "stride"},
                               "Unfold")
        super().__init__()
        self.kernel_sizes, self.dilations = kernel_sizes, dilations
        self.paddings, self.strides, self.name = paddings, strides, name

    def forward(self, input):
        return functional.unfold(input, kernel_sizes=self.kernel_sizes, strides=self.strides,
                                 paddings=self.paddings, dilations=self.dilations,
                                 name=self.name)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, " \
               f"padding={self.paddings}, stride={self.strides}{_name_str(self.name)}"


class Fold(Layer):
    """col2im, the adjoint of Unfold: ``functional.fold(x, output_sizes, kernel_sizes, ...)``."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None):
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides, self.name = dilations, paddings, strides, \
            name

    def forward(self, input):
        return functional.fold(input, output_sizes=self.output_sizes,
                               kernel_sizes=self.kernel_sizes, strides=self.strides,
                               paddings=self.paddings, dilations=self.dilations,
                               name=self.name)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, " \
               f"padding={self.paddings}, stride={self.strides}{_name_str(self.name)}"


from . import common_resample as _resample  # noqa: E402
from .common_resample import *  # noqa: E402,F401,F403

__all__ += _resample.__all__
