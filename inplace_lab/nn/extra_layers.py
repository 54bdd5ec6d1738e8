"""The last ``torch.nn`` layers: ``EmbeddingBag``, the lazy ``Linear`` and norms, the fractional
max pools, the legacy upsamplers, ``AdaptiveLogSoftmaxWithLoss``, ``CrossMapLRN2d`` and
``Buffer``, each with PyTorch's arguments, checks, initialisation and repr.
"""
from __future__ import annotations

import itertools
import sys
from collections import namedtuple

import inplace_lab as _il

from .. import creation, dtypes
from ..tensor import Tensor
from . import functional as F
from . import init
from .conv_more import UninitializedParameter
from ..autograd.function import Function
from .layers import BatchNorm1d, BatchNorm2d, Linear, ModuleList, Sequential
from .module import Module
from .parameter import Parameter
from .pool_norm import BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .upsampling import Upsample

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
                setattr(self, name, Parameter(creation.empty(tuple(state_dict[name].shape), **fk)))
        for name, t in list(self._buffers.items()):
            if _is_lazy(t) and name in state_dict:
                setattr(self, name, creation.empty(tuple(state_dict[name].shape), **fk))
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


# ---- fractional max pooling ---------------------------------------------------------------------

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


# ---- legacy upsamplers --------------------------------------------------------------------------

class UpsamplingNearest2d(Upsample):
    """``Upsample(mode='nearest')`` (torch's legacy name)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(mode='bilinear', align_corners=True)`` (torch's legacy name)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


__all__ += ["UpsamplingNearest2d", "UpsamplingBilinear2d"]


# ---- Buffer -------------------------------------------------------------------------------------

class _BufferMeta(type):
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and bool(instance.__dict__.get("_is_buffer"))
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """torch >= 2.5's ``nn.Buffer``: ``Buffer(data)`` is ``data.detach()`` marked as a buffer
    (``persistent`` kept on it); assigning it to a module attribute registers it as a buffer
    (persistent or not), as ``register_buffer`` does."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = creation.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


__all__ += ["Buffer"]


# ---- CrossMapLRN2d ------------------------------------------------------------------------------

class _CrossMapLRN2dFn(Function):
    """torch's ``nn.modules._functions.CrossMapLRN2d``: the same running window over the
    channels (its ``c > pre_pad`` keeps one extra channel in), the same backward loops."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        channels = input.size(1)
        input_square = input.pow(2)
        scale = _il.zeros_like(input)
        pre_pad = int((size - 1) / 2 + 1)
        scale_first = scale.select(1, 0)
        for c in range(min(pre_pad, channels)):
            scale_first.add_(input_square.select(1, c))
        for c in range(1, channels):
            cur = scale.select(1, c)
            cur.copy_(scale.select(1, c - 1))
            if c < channels - pre_pad + 1:
                cur.add_(input_square.select(1, c + pre_pad - 1), alpha=1)
            if c > pre_pad:
                cur.add_(input_square.select(1, c - pre_pad), alpha=-1)
        scale.mul_(alpha / size).add_(k)
        ctx.scale = scale
        output = scale.pow(-beta).mul_(input)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        n_batch, channels, h, w = input.shape
        padded = _il.zeros(channels + ctx.size - 1, h, w, dtype=input.dtype,
                           device=input.device)
        cache = 2 * ctx.alpha * ctx.beta / ctx.size
        inverse_pre_pad = int(ctx.size - (ctx.size - 1) / 2)
        grad_input = ctx.scale.pow(-ctx.beta).mul_(grad_output)
        center = padded.narrow(0, inverse_pre_pad, channels)
        for n in range(n_batch):
            center.copy_(grad_output[n] * output[n])
            center.div_(ctx.scale[n])
            accum = padded.narrow(0, 0, ctx.size - 1).sum(0)
            for c in range(channels):
                accum.add_(padded[c + ctx.size - 1])
                grad_input[n][c].addcmul_(input[n][c], accum, value=-cache)
                accum.add_(padded[c], alpha=-1)
        return grad_input, None, None, None, None


_CrossMapLRN2dFn.__name__ = _CrossMapLRN2dFn.__qualname__ = "CrossMapLRN2d"
_CrossMapLRN2dFn._backward_cls.__name__ = "CrossMapLRN2dBackward"
_CrossMapLRN2dFn._backward_cls.__qualname__ = "CrossMapLRN2dBackward"


class CrossMapLRN2d(Module):
    """Local response normalisation across channels (torch's legacy ``CrossMapLRN2d``; its
    custom autograd function, ``CrossMapLRN2dBackward``)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _CrossMapLRN2dFn.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


__all__ += ["CrossMapLRN2d"]


# ---- AdaptiveLogSoftmaxWithLoss -----------------------------------------------------------------

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax for many classes (Grave et al.): a head over the shortlist and one
    cluster per tail, each a two-layer projection; torch's code, op for op."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs)) or (min(cutoffs) <= 0) or \
                (max(cutoffs) > (n_classes - 1)) or (len(set(cutoffs)) != len(cutoffs)) or \
                any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in "
                             "an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(self.in_features, self.head_size, bias=self.head_bias, **fk)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(self.in_features // (self.div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(self.in_features, hsz, bias=False, **fk),
                                        Linear(hsz, osz, bias=False, **fk)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs "
                                   f"with size {input_.size()}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs "
                                   f"with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)
        used_rows = 0
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low_idx, high_idx = cutoff_values[i], cutoff_values[i + 1]
            target_mask = (target >= low_idx) & (target < high_idx)
            row_indices = target_mask.nonzero().squeeze()
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - low_idx
                input_subset = input.index_select(0, row_indices)
                cluster_output = self.tail[i - 1](input_subset)
                cluster_index = self.shortlist_size + i - 1
                gather_inds.index_fill_(0, row_indices, cluster_index)
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()
        if used_rows != batch_size:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values "
                               f"in range [{target.min().item()}, {target.max().item()}] were "
                               "found. ")
        head_output = self.head(input)
        head_logprob = F.log_softmax(head_output, dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, : self.shortlist_size] = head_logprob[:, : self.shortlist_size]
        for i, (start_idx, stop_idx) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_output = self.tail[i](input)
            cluster_logprob = F.log_softmax(cluster_output, dim=1)
            output_logprob = cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
            out[:, start_idx:stop_idx] = output_logprob
        return out

    def log_prob(self, input):
        head_output = self.head(input)
        return self._get_full_log_prob(input, head_output)

    def predict(self, input):
        head_output = self.head(input)
        output = _il.argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        all_in_shortlist = not (not_in_shortlist.any())
        if all_in_shortlist:
            return output
        elif not_in_shortlist.all():
            log_prob = self._get_full_log_prob(input, head_output)
            return _il.argmax(log_prob, dim=1)
        else:
            log_prob = self._get_full_log_prob(input[not_in_shortlist],
                                               head_output[not_in_shortlist])
            output[not_in_shortlist] = _il.argmax(log_prob, dim=1)
            return output


__all__ += ["AdaptiveLogSoftmaxWithLoss"]


# ---- LinearCrossEntropyLoss (torch 2.13) --------------------------------------------------------

from .functional_extra import LinearCrossEntropyOptions  # noqa: E402
from .loss import _WeightedLoss  # noqa: E402


class LinearCrossEntropyLoss(_WeightedLoss):
    """A ``Linear`` layer and ``cross_entropy`` as one loss (``F.linear_cross_entropy``)."""

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        import math

        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes, self.out_features = num_classes, out_features
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias,
                             device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        linear_weight = self.linear.weight.reshape((self.num_classes, *self.out_features,
                                                    self.linear.in_features))
        linear_bias = self.linear.bias.reshape((self.num_classes, *self.out_features)) \
            if self.linear.bias is not None else None
        return F.linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias,
                                      weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


# ---- Container, SyncBatchNorm, DataParallel, factory_kwargs -------------------------------------

class Container(Module):
    """torch's deprecated ``nn.Container``: a Module holding the keyword modules."""

    def __init__(self, **kwargs):
        import warnings

        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented "
                      "in `nn.Module`. Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class SyncBatchNorm(BatchNorm1d):
    """torch's ``SyncBatchNorm`` outside a process group (the only case here): batch norm over
    dim 1 of any input of at least 2 dims (torch's non-synchronised path, ``F.batch_norm``)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        if affine and not bias:
            self.register_parameter("bias", None)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Every ``_BatchNorm`` of the tree replaced by a SyncBatchNorm sharing its parameters
        and running statistics (torch's classmethod)."""
        from .layers import _BatchNorm

        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = cls(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group,
                                bias=module.bias is not None)
            if module.affine:
                module_output.weight = module.weight
                module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return module_output


class DataParallel(Module):
    """torch's ``DataParallel`` where no accelerator is used: it holds ``module`` and calls it
    (``device_ids`` is empty, as torch's on a CPU-only machine)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def factory_kwargs(kwargs):
    """torch's ``nn.factory_kwargs``: the device/dtype/memory_format keywords, checked."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r


__all__ += ["Container", "SyncBatchNorm", "DataParallel", "factory_kwargs"]
