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


_top_level(embedding_bag_aten, "embedding_bag")
