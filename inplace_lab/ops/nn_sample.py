"""Bags of embeddings, grid sampling and fractional max pooling: one table op each, with
PyTorch's node names; the backward of each is another (non-recorded) table op on the saved
arrays, as ATen's ``*_backward`` kernels are.

- ``_embedding_bag`` (EmbeddingBagBackward0) -> (output, offset2bag, bag_size, max_indices), as
  ``torch.embedding_bag``. Bags are the slices ``input[offsets[i]:offsets[i+1]]``; entries equal
  to ``padding_idx`` are left out of a bag (and of its size). The weight's gradient copies
  ATen's CPU kernel, including how it scales by frequency: the divisor of the k-th distinct index
  (in sorted order) is the count of ``sorted_indices[k]``, not of that index (ATen indexes its
  count table with the group number).
- ``_affine_grid`` (AffineGridGeneratorBackward0): ``base_grid @ theta^T``.
- ``_grid_sampler_2d`` / ``_grid_sampler_3d`` (GridSampler2DBackward0, GridSampler3DBackward0):
  ATen's source index maths (unnormalise, clip or reflect, then bilinear, nearest or bicubic
  taps); the gradient of the input scatters the taps back, that of the grid differentiates the
  tap weights.
- ``_fractional_max_pool2d`` / ``3d`` (FractionalMaxPool2DBackward0 ...): ATen's pseudo-random
  window starts from ``_random_samples`` in [0, 1).
Kernels are written against the array module ``xp`` (numpy or cupy).
"""
from __future__ import annotations

import itertools
import math

from .. import backend
from . import dispatch
from .table import OpSpec, register


def _helper(name, fwd, args=("self",), dtype_rule="self", **kw):
    spec = register(OpSpec(name=name, forward=fwd, args=args, dtype_rule=dtype_rule,
                           method=False, function=False, out=False, **kw))
    return lambda *a, **p: dispatch.call(spec, a, p)


def _index_error():
    return RuntimeError("Expected i < index_size to be true, but got false.  (Could this error "
                        "message be improved?  If so, please report an enhancement request to "
                        "PyTorch.)")


# ---- embedding_bag ------------------------------------------------------------------------------

_MODES = {0: "sum", 1: "mean", 2: "max"}


def _eb_dtype(spec, ins, params):
    w, idx, off, psw = ins
    for t, what in ((idx, "indices"), (off, "indices")):  # (ATen names both 'indices')
        if t._dtype.name not in ("int64", "int32"):
            raise RuntimeError(f"Expected tensor for argument #1 '{what}' to have one of the "
                               "following scalar types: Long, Int; but got "
                               f"torch.{t._dtype.torch_name}Tensor instead (while checking "
                               "arguments for embedding_bag)")
    if w._dtype.name not in ("float16", "bfloat16", "float32", "float64"):
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following "
                           "scalar types: Half, BFloat16, Float, Double; but got "
                           f"torch.{w._dtype.torch_name}Tensor instead (while checking arguments "
                           "for embedding_bag)")
    if psw is not None and psw._dtype is not w._dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as "
                           "tensor for argument #1 'per_sample_weights'; but type "
                           f"torch.{w._dtype.torch_name}Tensor does not equal "
                           f"torch.{psw._dtype.torch_name}Tensor (while checking arguments for "
                           "embedding_bag)")
    return w._dtype


def _eb_layout(xp, n, offsets, include_last_offset):
    """(starts, ends) of each bag, checked as ATen does: a bag runs to the next one's start,
    the last one to the end of the input (with ``include_last_offset`` too)."""
    off = offsets.astype(xp.int64)
    if off.shape[0] and int(off[0]) != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has "
                           f"to start from position 0. However, got {int(off[0])}\n"
                           "[ torch.LongTensor{} ]")
    if off.shape[0] and int(off[-1]) > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got "
                           f"offsets[-1] of {int(off[-1])}")
    starts = off[:-1] if include_last_offset else off
    ends = xp.concatenate([starts[1:], xp.asarray([n], dtype=xp.int64)])
    if bool((ends < starts).any()):
        raise _index_error()
    return starts, ends


def _eb_prepare(xp, w, idx, offsets, mode, include_last_offset, padding_idx):
    idx = idx.astype(xp.int64)
    n = idx.shape[0]
    if n and (int(idx.min()) < 0 or int(idx.max()) >= w.shape[0]):
        raise _index_error()
    starts, ends = _eb_layout(xp, n, offsets, include_last_offset)
    lmax = int((ends - starts).max()) if starts.shape[0] else 0
    pos = starts[:, None] + xp.arange(lmax, dtype=xp.int64)[None, :]  # (B, L)
    inside = pos < ends[:, None]
    pos = xp.where(inside, pos, 0)
    valid = inside.copy()
    if n:
        valid &= idx[pos] != (-1 if padding_idx is None else padding_idx)
    else:
        valid[...] = False
    return idx, starts, pos, valid


def _offset2bag(xp, n, starts):
    o2b = xp.zeros(n + 1, dtype=xp.int64)
    if starts.shape[0] > 1:
        backend.add_at(xp, o2b, starts[1:], 1)
    return xp.cumsum(o2b[:n])


def _eb_fwd(xp, w, idx, offsets, psw, out=None, dt=None, scale_grad_by_freq=False, mode=1,
            sparse=False, include_last_offset=False, padding_idx=-1):
    if sparse:
        raise NotImplementedError("embedding_bag(sparse=True) is not supported here: the "
                                  "gradient would be a sparse tensor")
    if psw is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    if psw is not None and (psw.ndim != 1 or psw.shape[0] != idx.shape[0]):
        raise RuntimeError("embedding_bag: Expected per_sample_weights.numel() == "
                           f"indices.numel() to be true, but got false.")
    idx, starts, pos, valid = _eb_prepare(xp, w, idx, offsets, mode, include_last_offset,
                                          padding_idx)
    b, d = starts.shape[0], w.shape[1]
    summed = valid
    if include_last_offset and b:  # (ATen: the last bag sums up to offsets[-1] only, but its
        #                             size, maximum and gradient run to the end of the input)
        summed = valid & (pos < offsets.astype(xp.int64)[-1])
    n = idx.shape[0]
    size = valid.sum(1).astype(xp.int64)
    rows = w[idx[pos]] if n else xp.zeros(pos.shape + (d,), dtype=w.dtype)  # (B, L, D)
    if mode == 2:
        low = xp.where(valid[..., None], rows, -xp.inf)
        am = xp.argmax(low, axis=1) if pos.shape[1] else xp.zeros((b, d), dtype=xp.int64)
        mx = xp.take_along_axis(rows, am[:, None, :], 1)[:, 0, :] if pos.shape[1] else \
            xp.zeros((b, d), dtype=w.dtype)
        y = xp.where(size[:, None] > 0, mx, 0).astype(w.dtype)
        src = xp.take_along_axis(xp.broadcast_to(pos[..., None], pos.shape + (d,)),
                                 am[:, None, :], 1)[:, 0, :] if pos.shape[1] else am
        max_idx = xp.where(size[:, None] > 0, idx[src] if n else 0, 0).astype(xp.int64)
        bag_size = size
    else:
        wts = summed.astype(w.dtype)
        if psw is not None and n:
            wts = wts * psw[pos]
        y = (rows * wts[..., None]).sum(1).astype(w.dtype)
        if mode == 1:
            y = (y / xp.maximum(size, 1)[:, None]).astype(w.dtype)
            bag_size = size
            max_idx = size.copy()
        else:
            bag_size = xp.zeros(b, dtype=xp.int64)
            max_idx = xp.zeros(b, dtype=xp.int64)
    return (xp.ascontiguousarray(y), _offset2bag(xp, n, starts), bag_size, max_idx)


def _eb_grad_fwd(xp, g, idx, offsets, psw, max_idx, out=None, dt=None, num_weights=0,
                 scale_grad_by_freq=False, mode=1, include_last_offset=False, padding_idx=-1):
    """ATen's dense backward of embedding_bag (``_embedding_bag_dense_backward_cpu``)."""
    d = g.shape[1]
    gw = xp.zeros((num_weights, d), dtype=g.dtype)
    idx = idx.astype(xp.int64)
    n = idx.shape[0]
    if not n:
        return gw
    if mode == 2:
        size = max_idx.shape[0]
        keep = xp.zeros(size, dtype=bool)
        _, starts, pos, valid = _eb_prepare(xp, gw, idx, offsets, mode, include_last_offset,
                                            padding_idx)
        keep = valid.any(1)
        cols = xp.broadcast_to(xp.arange(d), max_idx.shape)
        backend.add_at(xp, gw, (max_idx[keep], cols[keep]), g[keep])
        return gw
    _, starts, pos, valid = _eb_prepare(xp, gw, idx, offsets, mode, include_last_offset,
                                        padding_idx)
    scale = valid.astype(g.dtype)
    if psw is not None:
        scale = scale * psw[pos]
    if mode == 1:
        scale = scale / xp.maximum(valid.sum(1), 1)[:, None]
    if scale_grad_by_freq:
        srt = xp.sort(idx)
        counts = xp.bincount(idx, minlength=num_weights)
        uniq = xp.unique(srt)  # the k-th distinct index divides by counts[srt[k]]
        div = xp.ones(num_weights, dtype=g.dtype)
        div[uniq] = counts[srt[: uniq.shape[0]]]
        scale = scale / div[idx[pos]]
    contrib = g[:, None, :] * scale[..., None]  # (B, L, D)
    backend.add_at(xp, gw, idx[pos][valid], contrib[valid])
    return gw


def _eb_psw_grad_fwd(xp, g, w, idx, offsets, out=None, dt=None, mode=0,
                     include_last_offset=False, padding_idx=-1):
    """``d out / d per_sample_weights[j] = <grad[bag(j)], weight[input[j]]>``, 0 for padding."""
    idx64 = idx.astype(xp.int64)
    res = xp.zeros(idx.shape[0], dtype=g.dtype)
    if not idx.shape[0]:
        return res
    _, starts, pos, valid = _eb_prepare(xp, w, idx64, offsets, mode, include_last_offset,
                                        padding_idx)
    dots = (g[:, None, :] * w[idx64[pos]]).sum(-1)
    res[pos[valid]] = dots[valid]
    return res


_eb_grad = _helper("_embedding_bag_dense_backward", _eb_grad_fwd,
                   args=("self", "indices", "offsets", "per_sample_weights", "max_indices"),
                   optional_args=("per_sample_weights",),
                   params={"num_weights": 0, "scale_grad_by_freq": False, "mode": 1,
                           "include_last_offset": False, "padding_idx": -1})
_eb_psw_grad = _helper("_embedding_bag_per_sample_weights_backward", _eb_psw_grad_fwd,
                       args=("self", "weight", "indices", "offsets"),
                       params={"mode": 0, "include_last_offset": False, "padding_idx": -1})


def _eb_bw(c, g):
    gw = gpsw = None
    common = {"mode": c["mode"], "include_last_offset": c["include_last_offset"],
              "padding_idx": c["padding_idx"]}
    psw = c["per_sample_weights"]
    if c.needs_input_grad[0]:
        gw = _eb_grad(g.contiguous(), c["input"], c["offsets"], psw, c["max_indices"],
                      num_weights=c.input_meta[0][0][0],
                      scale_grad_by_freq=c["scale_grad_by_freq"], **common)
    if psw is not None and c.needs_input_grad[3]:
        gpsw = _eb_psw_grad(g.contiguous(), c["weight"], c["input"], c["offsets"], **common)
    return (gw, None, None, gpsw)


register(OpSpec(
    name="_embedding_bag", forward=_eb_fwd, backward=_eb_bw,
    args=("weight", "input", "offsets", "per_sample_weights"),
    optional_args=("per_sample_weights",), nondiff=("input", "offsets"),
    params={"scale_grad_by_freq": False, "mode": 1, "sparse": False,
            "include_last_offset": False, "padding_idx": -1},
    outputs=("output", "offset2bag", "bag_size", "max_indices"),
    saves=("weight", "input", "offsets", "per_sample_weights", "max_indices"),
    dtype_rule=_eb_dtype, method=False, function=False, out=False,
    node_name="EmbeddingBagBackward0",
    doc="embedding_bag(weight, input, offsets, scale_grad_by_freq, mode, sparse, "
        "per_sample_weights, include_last_offset, padding_idx) -> (output, offset2bag, "
        "bag_size, max_indices): sums, means or maxima of bags of rows of weight."))
