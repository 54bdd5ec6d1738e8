"""The last ``torch.nn`` layers: ``EmbeddingBag``, the lazy ``Linear`` and norms, the fractional
max pools, the legacy upsamplers, ``AdaptiveLogSoftmaxWithLoss``, ``CrossMapLRN2d`` and
``Buffer``, each with PyTorch's arguments, checks, initialisation and repr.
"""
from __future__ import annotations

import sys

from .. import creation, dtypes
from ..tensor import Tensor
from . import functional as F
from . import init
from .conv_more import UninitializedParameter
from .layers import BatchNorm1d, BatchNorm2d, Linear
from .module import Module
from .parameter import Parameter
from .pool_norm import BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["EmbeddingBag"]


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (``F.embedding_bag``)."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(creation.empty(num_embeddings, embedding_dim, device=device,
                                                   dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            from ..autograd import no_grad

            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings!r}, {self.embedding_dim!r}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode,
                  sparse=sparse, include_last_offset=include_last_offset,
                  padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag


# ---- lazy Linear and norms ---------------------------------------------------------------------

class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet (a lazy norm's running statistics)."""

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        data = creation.empty(0, device=device, dtype=dtype)
        t = cls._make(data._storage, data._shape, data._strides, data._offset, data._vc, None)
        t._arr, t._pol = data._arr, data._pol
        return t

    def __init__(self, *args, **kwargs):
        pass

    def __repr__(self):
        return "<UninitializedBuffer>"

    __str__ = __repr__


def _is_lazy(t) -> bool:
    return isinstance(t, (UninitializedParameter, UninitializedBuffer))


class _LazyMixin:
    """torch's ``LazyModuleMixin``: parameters (and buffers) stay uninitialized until the first
    call, which reads the missing size from the input (``_lazy_size``), makes them with the
    factory's device and dtype, runs ``reset_parameters`` and turns the module into
    ``cls_to_become`` (``LazyLinear`` -> ``Linear``)."""

    cls_to_become = None

    def has_uninitialized_params(self) -> bool:
        return any(_is_lazy(t) for t in list(self._parameters.values()) +
                   list(self._buffers.values()))

    def initialize_parameters(self, input) -> None:
        raise NotImplementedError

    def _become(self):
        become = self.cls_to_become
        facade = type(self).__module__ == "inplace_lab.torch.nn"
        if facade:  # (the facade's own class)
            become = getattr(sys.modules["inplace_lab.torch.nn"], become.__name__)
            for t in list(self._parameters.values()) + list(self._buffers.values()):
                if t is not None:
                    t._policy = "pytorch"
        self.__dict__.pop("_lazy_factory", None)
        self.__class__ = become

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """torch's ``_lazy_load_hook``: an uninitialized parameter or buffer found in the state
        dict takes its shape first (the module stays lazy until its first call)."""
        fk = self.__dict__.get("_lazy_factory", {})
        for name, t in list(self._parameters.items()):
            if _is_lazy(t) and name in state_dict:
                setattr(self, name, Parameter(creation.empty(*state_dict[name].shape, **fk)))
        for name, t in list(self._buffers.items()):
            if _is_lazy(t) and name in state_dict:
                setattr(self, name, creation.empty(*state_dict[name].shape, **fk))
        return Module.load_state_dict(self, state_dict, strict, assign)

    def __call__(self, *args, **kwargs):
        self.initialize_parameters(*args, **kwargs)  # (torch's _infer_parameters pre-hook)
        if not self.has_uninitialized_params():
            self._become()
        return Module.__call__(self, *args, **kwargs)


class LazyLinear(_LazyMixin, Linear):
    """``Linear`` whose ``in_features`` is read from the first input's last dim."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Linear.__init__(self, 0, 0, False)
        self.out_features = out_features
        self._lazy_factory = {"device": device, "dtype": dtype}
        self.weight = UninitializedParameter()
        if bias:
            self.bias = UninitializedParameter()

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            fk = self._lazy_factory
            self.weight = Parameter(creation.empty(self.out_features, self.in_features, **fk))
            if self.bias is not None:
                self.bias = Parameter(creation.empty(self.out_features, **fk))
            self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is "
                                     "not equal to in_features from self.weight: "
                                     f"{self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyNormBase(_LazyMixin):
    """torch's ``_LazyNormBase``: ``num_features`` from the first input's dim 1."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        self.cls_to_become.__init__(self, 0, eps, momentum, False, False, device, dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        self._lazy_factory = {"device": device, "dtype": dtype}
        if affine:
            self.weight = UninitializedParameter()
            self.bias = UninitializedParameter()
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, dtype=dtypes.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        fk = self._lazy_factory
        if self.affine:
            self.weight = Parameter(creation.empty(self.num_features, **fk))
            self.bias = Parameter(creation.empty(self.num_features, **fk))
        if self.track_running_stats:
            self.running_mean = creation.empty(self.num_features, **fk)
            self.running_var = creation.empty(self.num_features, **fk)
        self.reset_parameters()


def _lazy_norm(name, base):
    return type(name, (_LazyNormBase, base), {
        "cls_to_become": base, "__module__": __name__,
        "__doc__": f"``{base.__name__}`` whose ``num_features`` is read from the first input."})


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d)

__all__ += ["LazyLinear", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
            "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
            "UninitializedBuffer"]


# ---- fractional max pooling ----------------------------------------------------------------------

def _ntuple(v, n):
    if isinstance(v, (tuple, list)):
        return tuple(v)
    return (v,) * n


class _FractionalMaxPoolNd(Module):
    nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        nd, name = self.nd, type(self).__name__
        if nd == 3 and ((isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _ntuple(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, nd) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, nd) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name.split('_')[0]} requires specifying either an output size, "
                             "or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = F.fractional_max_pool2d if self.nd == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max over pseudo-random windows (``F.fractional_max_pool2d``)."""

    nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max over pseudo-random 3-d windows (``F.fractional_max_pool3d``)."""

    nd = 3


__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
