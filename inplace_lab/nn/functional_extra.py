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


# ---- fractional max pooling ----------------------------------------------------------------------

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
