"""``nn.functional``'s last layers: ``embedding_bag``, ``affine_grid``/``grid_sample`` and the
fractional max pools, each PyTorch's Python checks over one table op of ``ops/nn_sample.py``
(EmbeddingBagBackward0, AffineGridGeneratorBackward0, GridSampler2DBackward0 ...);
``feature_dropout`` (``torch.feature_dropout``) is the channel dropout of ``dropout2d``.
"""
from __future__ import annotations

import warnings

import inplace_lab as _il

from .. import ops as _ops
from ..autograd import no_grad
from ..ops import dispatch as _dispatch
from ..ops.table import OPS as _OPS
from .functional import _op

__all__ = ["embedding_bag"]


def _top_level(fn, name=None):
    """Also ``torch.<name>`` (and ``inplace_lab.<name>``): the torch facade exports the public
    functions of ``ops.functions`` that torch has at its top level."""
    _ops.functions.setdefault(name or fn.__name__, fn)
    return fn


# ---- embedding_bag -----------------------------------------------------------------------------

def _shape_text(shape):
    return f"torch.Size([{', '.join(str(int(s)) for s in shape)}])"


def _type_str(v):
    return "<class 'torch.Tensor'>" if isinstance(v, _il.Tensor) else str(type(v))


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, means or maxima of bags of embeddings (EmbeddingBagBackward0): torch's Python checks
    (the old argument order, 1-D input with offsets or 2-D input of fixed-size bags), then the
    table op ``_embedding_bag``. ``max_norm`` renormalises the looked-up rows of ``weight`` in
    place first, under no_grad (one version bump), as ``embedding`` does."""
    if weight._dtype.name == "int64" and input._dtype.is_floating_point:
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights "
                         f"({_shape_text(per_sample_weights.shape)}) is not None, then it must "
                         f"have the same shape as the input ({_shape_text(input.shape)})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is "
                             "a mini-batch of fixed length sequences. However, found offsets of "
                             f"type {_type_str(offsets)}")
        offsets = _il.arange(0, input.numel(), input.shape[1], dtype=input.dtype,
                             device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        with no_grad():
            _dispatch.call_inplace(_OPS["embedding_renorm"], (weight, input.contiguous()),
                                   {"max_norm": max_norm, "norm_type": norm_type})
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on GitHub.")
    return embedding_bag_aten(weight, input, offsets, scale_grad_by_freq, mode_enum, sparse,
                          per_sample_weights, include_last_offset, padding_idx)[0]


def embedding_bag_aten(weight, input, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``torch.embedding_bag``: ATen's padding_idx check, then the table op -> (output,
    offset2bag, bag_size, max_indices)."""
    n = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif not -n <= padding_idx < n:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} through "
                           f"{n - 1}, but got {padding_idx}")
    elif padding_idx < 0:
        padding_idx += n
    return _op("_embedding_bag", weight, input, offsets, per_sample_weights,
               scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
               include_last_offset=include_last_offset, padding_idx=padding_idx)


embedding_bag_aten.__name__ = embedding_bag_aten.__qualname__ = "embedding_bag"
_top_level(embedding_bag_aten)


# ---- affine_grid, grid_sample ------------------------------------------------------------------

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


def _size_text(size):
    return f"torch.Size([{', '.join(str(int(s)) for s in size)}])"


def affine_grid(theta, size, align_corners=None):
    """The sampling grid ``base @ theta^T`` (AffineGridGeneratorBackward0) over a base grid in
    [-1, 1] (x along the last dim first), with torch's checks and warnings."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {_size_text(theta.shape)}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {_size_text(theta.shape)}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _op("affine_grid_generator", theta, size=tuple(size), align_corners=bool(align_corners))


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler``: the 2-d kernel for a 4-D input, else the 3-d one."""
    name = "grid_sampler_2d" if input.dim() == 4 else "grid_sampler_3d"
    return _op(name, input, grid, interpolation_mode=int(interpolation_mode),
               padding_mode=int(padding_mode), align_corners=bool(align_corners))


_top_level(grid_sampler)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """``input`` read at ``grid``'s normalised points (GridSampler2DBackward0 /
    GridSampler3DBackward0): bilinear (trilinear on 5-D), nearest or bicubic (4-D), outside
    points by zeros, the border or reflection."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    mode_enum = {"bilinear": 0, "nearest": 1, "bicubic": 2}[mode]
    padding_enum = {"zeros": 0, "border": 1, "reflection": 2}[padding_mode]
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, mode_enum, padding_enum, align_corners)


__all__ += ["affine_grid", "grid_sample"]


# ---- fractional max pooling ---------------------------------------------------------------------

def _fractional(nd, input, kernel_size, output_size, output_ratio, _random_samples):
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:  # (a number fails here, TypeError, as torch)
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple "
                             "of Ints.")
        ratio = (output_ratio,) * nd if isinstance(output_ratio, (int, float)) else \
            tuple(output_ratio)
        if len(ratio) == 1:
            ratio = ratio * nd
        output_size = [int(input.size(-nd + i) * ratio[i]) for i in range(nd)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        if not input.is_floating_point():
            raise NotImplementedError(_uniform_error(input))
        _random_samples = _il.rand(n_batch, input.size(-nd - 1), nd, dtype=input.dtype,
                                   device=input.device)
    return _op(f"_fractional_max_pool{nd}d", input, _random_samples, kernel_size=kernel_size,
               output_size=output_size)


def _uniform_error(t):
    return f"\"check_uniform_bounds\" not implemented for '{t._dtype.torch_name}'"


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Max over pseudo-random windows (FractionalMaxPool2DBackward0) -> (output, indices);
    ``_random_samples`` (N, C, 2) in [0, 1) fixes the windows."""
    return tuple(_fractional(2, input, kernel_size, output_size, output_ratio, _random_samples))


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    r = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                           return_indices, _random_samples)
    return r if return_indices else r[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """The 3-d fractional max pool (FractionalMaxPool3DBackward0): samples (N, C, 3)."""
    return tuple(_fractional(3, input, kernel_size, output_size, output_ratio, _random_samples))


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    r = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                           return_indices, _random_samples)
    return r if return_indices else r[0]


__all__ += ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
            "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]


# ---- torch.feature_dropout ---------------------------------------------------------------------

def _aten_p(p):
    if p < 0 or p > 1:  # (ATen's check: a RuntimeError, where F's is a ValueError)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def feature_dropout(input, p, train):
    """``torch.feature_dropout``: one Bernoulli draw per (sample, channel), scaled by 1/(1-p)."""
    from .functional_more import _dropout_impl

    _aten_p(p)
    return _dropout_impl(input, p, train, False, feature=True, alpha=False)


def feature_dropout_(input, p, train):
    """``torch.feature_dropout_``: the same, in place."""
    from .functional_more import _dropout_impl

    _aten_p(p)
    return _dropout_impl(input, p, train, True, feature=True, alpha=False)


_top_level(feature_dropout)
_top_level(feature_dropout_)


# ---- linear_cross_entropy (torch 2.13) ----------------------------------------------------------

class LinearCrossEntropyOptions:
    """torch's ``nn.LinearCrossEntropyOptions`` (a frozen dataclass): the chunking and
    accumulation settings of the chunked path, checked as torch checks them."""

    __slots__ = ("allow_retain_graph", "batch_chunk_size", "chunking_method", "acc_policy",
                 "acc_dtype")

    def __init__(self, allow_retain_graph=False, batch_chunk_size=None, chunking_method="auto",
                 acc_policy="auto", acc_dtype=None):
        for k, v in (("allow_retain_graph", allow_retain_graph),
                     ("batch_chunk_size", batch_chunk_size),
                     ("chunking_method", chunking_method), ("acc_policy", acc_policy),
                     ("acc_dtype", acc_dtype)):
            object.__setattr__(self, k, v)
        if acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {acc_policy!r}")
        if chunking_method is not None and chunking_method != "auto":
            name, sep, factor = chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {chunking_method!r}")
        if not (batch_chunk_size is None or (isinstance(batch_chunk_size, int) and
                                             batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got "
                             f"{batch_chunk_size!r}")
        if acc_dtype is not None and getattr(acc_dtype, "name", None) not in (
                "float16", "bfloat16", "float32", "float64"):
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                             f"torch.float32, torch.float64}}, got {acc_dtype!r}. Pass "
                             "acc_dtype=None to let the op pick automatically.")

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field '{name}'")  # (frozen)

    def __eq__(self, other):
        return type(other) is type(self) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __hash__(self):
        return hash(tuple(getattr(self, k) for k in self.__slots__))

    def __repr__(self):
        return "LinearCrossEntropyOptions(" + ", ".join(
            f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


def _chunked_function(no_reduction):
    """torch's chunked path is one custom autograd function (its node
    ``GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_[no_reduction_]default
    Backward``); here its forward is the plain ``linear`` + ``cross_entropy`` maths and its
    backward differentiates that again (the same values and gradients)."""
    from ..autograd import enable_grad, grad as _grad
    from ..autograd.function import Function
    from .functional import cross_entropy, linear

    def plain(x, w, t, b, weight, reduction, ignore_index):
        return cross_entropy(linear(x, w, b), t, weight=weight, reduction=reduction,
                             ignore_index=ignore_index)

    class _Chunked(Function):
        @staticmethod
        def forward(ctx, x, w, t, b, weight, reduction, ignore_index):
            ctx.args = (x, w, t, b, weight, reduction, ignore_index)
            return plain(x, w, t, b, weight, reduction, ignore_index)

        @staticmethod
        def backward(ctx, g):
            x, w, t, b, weight, reduction, ignore_index = ctx.args
            leaves = [v.detach().requires_grad_(True) if v is not None else None
                      for v in (x, w, b)]
            with enable_grad():
                out = plain(leaves[0], leaves[1], t, leaves[2], weight, reduction, ignore_index)
                need = [v for v in leaves if v is not None]
                grads = list(_grad(out, need, g))
            gx, gw = grads[0], grads[1]
            gb = grads[2] if b is not None else None
            return gx, gw, None, gb, None, None, None

    name = ("GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_"
            + ("no_reduction_" if no_reduction else "") + "default")
    _Chunked.__name__ = _Chunked.__qualname__ = name
    _Chunked._backward_cls.__name__ = _Chunked._backward_cls.__qualname__ = name + "Backward"
    return _Chunked


_CHUNKED: dict = {}


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0, options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target)`` with torch 2.13's
    checks; ``linear_weight`` of shape (classes, *out_features, in_features) gives a
    K-dimensional loss. With ``options`` (the chunked path) the result is one custom-function
    node, as torch's."""
    import math

    from .functional import cross_entropy, linear

    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if len(out_features) > 0 and len(num_batches) == 0:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    target_contains_probabilities = tuple(target.shape) == logits_shape
    if target_contains_probabilities and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    chunked = reduction in {"mean", "sum", "none"} and label_smoothing == 0.0 and \
        target.dtype == _il.int64 and not out_features
    if options is not None and not chunked:
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                      "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                      f"out_features == (). Got reduction={reduction!r}, label_smoothing="
                      f"{label_smoothing}, target.dtype={target.dtype}, out_features="
                      f"{tuple(out_features)}, tracing=False, linear_bias.shape="
                      f"{tuple(linear_bias.shape) if linear_bias is not None else None}.",
                      stacklevel=2)
    if options is not None and chunked:
        batched = input.dim() == 2
        if not batched:
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        key = reduction == "none"
        fn = _CHUNKED.get(key) or _CHUNKED.setdefault(key, _chunked_function(key))
        result = fn.apply(input, linear_weight, target, linear_bias, weight, reduction,
                          ignore_index)
        return result if batched else result.squeeze(0)
    if out_features:
        n = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((n, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(n)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


__all__ += ["linear_cross_entropy"]


conv_tbc = _ops.functions["conv_tbc"]  # (torch.nn.functional.conv_tbc is torch.conv_tbc)
__all__ += ["conv_tbc"]


# ---- multi_head_attention_forward ---------------------------------------------------------------

def assert_int_or_pair(arg, arg_name, message):
    """torch's ``F.assert_int_or_pair``."""
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     "instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    from .functional import linear

    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2) \
                .contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2) \
            .contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    from .functional import linear

    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for w, shape, what in ((w_q, (Eq, Eq), "query"), (w_k, (Eq, Ek), "key"),
                           (w_v, (Eq, Ev), "value")):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {what} weights shape of {shape}, but got {w.shape}")
    for b, what in ((b_q, "query"), (b_k, "key"), (b_v, "value")):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """torch's ``F.multi_head_attention_forward``, op for op: packed or separate input
    projections, ``bias_k``/``bias_v``, ``add_zero_attn``, ``static_k``/``static_v``, masks;
    the weights path (``baddbmm``, softmax, dropout, ``bmm``) or scaled_dot_product_attention."""
    import math

    from .functional import dropout, linear, softmax
    from .functional_layers import pad
    from .attention import scaled_dot_product_attention
    from .transformer import _canonical_mask, _none_or_dtype

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query._dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query._dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for w, what in ((q_proj_weight, "q"), (k_proj_weight, "k"), (v_proj_weight, "v")):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {what}_proj_weight "
                                     "is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,
                                 b_q, b_k, b_v)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _il.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _il.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    else:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    for name, static, t in (("k", static_k, k), ("v", static_v, v)):
        if static is None:
            t = t.view(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
        else:
            if static.size(0) != bsz * num_heads:
                raise AssertionError(f"expecting static_{name}.size(0) of {bsz * num_heads}, but "
                                     f"got {static.size(0)}")
            if static.size(2) != head_dim:
                raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got "
                                     f"{static.size(2)}")
            t = static
        if name == "k":
            k = t
        else:
            v = t
    if add_zero_attn:
        zero_shape = (bsz * num_heads, 1, head_dim)
        k = _il.cat([k, _il.zeros(zero_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = _il.cat([v, _il.zeros(zero_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = q.shape[2]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = _il.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _il.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = _il.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


__all__ += ["assert_int_or_pair", "multi_head_attention_forward"]
