"""Bags of embeddings, grid sampling and fractional max pooling: one table op each, with
PyTorch's node names; the backward of each is another (non-recorded) table op on the saved
arrays, as ATen's ``*_backward`` kernels are.

- ``_embedding_bag`` (EmbeddingBagBackward0) -> (output, offset2bag, bag_size, max_indices), as
  ``torch.embedding_bag``. Bags are the slices ``input[offsets[i]:offsets[i+1]]``; entries equal
  to ``padding_idx`` are left out of a bag (and of its size). The weight's gradient copies
  ATen's CPU kernel, including how it scales by frequency: the divisor of the k-th distinct index
  (in sorted order) is the count of ``sorted_indices[k]``, not of that index (ATen indexes its
  count table with the group number). ``sparse=True`` gives the same gradient, dense (there
  are no sparse tensors here).
- ``_affine_grid`` (AffineGridGeneratorBackward0): ``base_grid @ theta^T``.
- ``_grid_sampler_2d`` / ``_grid_sampler_3d`` (GridSampler2DBackward0, GridSampler3DBackward0):
  ATen's source index maths (unnormalise, clip or reflect, then bilinear, nearest or bicubic
  taps); the gradient of the input scatters the taps back, that of the grid differentiates the
  tap weights.
- ``_fractional_max_pool2d`` / ``3d`` (FractionalMaxPool2DBackward0 ...): ATen's pseudo-random
  window starts from ``_random_samples`` in [0, 1).
- ``conv_tbc`` (ConvTbcBackward0): a 1-d convolution over time of (time, batch, channels).
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


def _eb_flat(xp, w, idx, offsets, include_last_offset, padding_idx):
    """(int64 indices, bag starts, the bag of each position (-1: none), the positions that
    count: in a bag and not ``padding_idx``), with ATen's index and offset checks."""
    idx = idx.astype(xp.int64)
    n = idx.shape[0]
    if n and (int(idx.min()) < 0 or int(idx.max()) >= w.shape[0]):
        raise _index_error()
    starts, _ = _eb_layout(xp, n, offsets, include_last_offset)
    j = xp.arange(n, dtype=xp.int64)
    bag = xp.searchsorted(starts, j, side="right").astype(xp.int64) - 1  # (empty bags skipped)
    valid = bag >= 0
    if padding_idx is not None and padding_idx >= 0:
        valid &= idx != padding_idx
    return idx, starts, bag, valid


def _eb_sizes(xp, bag, valid, b):
    sizes = xp.zeros(b, dtype=xp.int64)
    if b:
        backend.add_at(xp, sizes, bag[valid], 1)
    return sizes


def _offset2bag(xp, n, starts):
    o2b = xp.zeros(n + 1, dtype=xp.int64)
    if starts.shape[0] > 1:
        backend.add_at(xp, o2b, starts[1:], 1)
    return xp.cumsum(o2b[:n])


def _eb_max(xp, w, idx, starts, n, valid_flat, bag=None):
    """Each bag's maximum per column (the first of equal values) and the row it came from:
    segment reductions (``reduceat``) with numpy, a (bags, longest bag) window elsewhere."""
    b, d = starts.shape[0], w.shape[1]
    ends = xp.concatenate([starts[1:], xp.asarray([n], dtype=xp.int64)])
    if xp is backend.np and n and b:
        size = _eb_sizes(xp, bag, valid_flat, b)
        seg = starts[ends > starts]  # (empty bags delimit nothing)
        rows = xp.where(valid_flat[:, None], w[idx], -xp.inf)
        mx = xp.zeros((b, d), dtype=rows.dtype)
        mx[ends > starts] = xp.maximum.reduceat(rows, seg, axis=0)
        j = xp.arange(n, dtype=xp.int64)[:, None]
        hit = (rows == mx[xp.maximum(bag, 0)]) & valid_flat[:, None]
        first = xp.zeros((b, d), dtype=xp.int64)
        first[ends > starts] = xp.minimum.reduceat(xp.where(hit, j, n - 1), seg, axis=0)
        has = size[:, None] > 0
        return (xp.where(has, mx, 0).astype(w.dtype), xp.where(has, idx[first], 0), size)
    lmax = int((ends - starts).max()) if b else 0
    pos = starts[:, None] + xp.arange(lmax, dtype=xp.int64)[None, :]  # (B, L)
    inside = pos < ends[:, None]
    pos = xp.where(inside, pos, 0)
    valid = inside & valid_flat[pos] if n else inside
    size = valid.sum(1).astype(xp.int64)
    if not lmax:
        return xp.zeros((b, d), dtype=w.dtype), xp.zeros((b, d), dtype=xp.int64), size
    rows = w[idx[pos]]  # (B, L, D)
    am = xp.argmax(xp.where(valid[..., None], rows, -xp.inf), axis=1)
    mx = xp.take_along_axis(rows, am[:, None, :], 1)[:, 0, :]
    src = xp.take_along_axis(pos, am, 1) if d else am
    y = xp.where(size[:, None] > 0, mx, 0).astype(w.dtype)
    return y, xp.where(size[:, None] > 0, idx[src], 0).astype(xp.int64), size


def _eb_fwd(xp, w, idx, offsets, psw, out=None, dt=None, scale_grad_by_freq=False, mode=1,
            sparse=False, include_last_offset=False, padding_idx=-1):
    if psw is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    if psw is not None and (psw.ndim != 1 or psw.shape[0] != idx.shape[0]):
        raise RuntimeError("embedding_bag: Expected per_sample_weights.numel() == "
                           "indices.numel() to be true, but got false.")
    idx, starts, bag, valid = _eb_flat(xp, w, idx, offsets, include_last_offset, padding_idx)
    b, d, n = starts.shape[0], w.shape[1], idx.shape[0]
    if mode == 2:
        y, max_idx, bag_size = _eb_max(xp, w, idx, starts, n, valid, bag)
        return (xp.ascontiguousarray(y), _offset2bag(xp, n, starts), bag_size, max_idx)
    size = _eb_sizes(xp, bag, valid, b)
    summed = valid
    if include_last_offset and b:  # (ATen: the last bag sums up to offsets[-1] only, but its
        #                             size, maximum and gradient run to the end of the input)
        summed = valid & (xp.arange(n) < offsets.astype(xp.int64)[-1])
    y = xp.zeros((b, d), dtype=w.dtype)
    rows = w[idx[summed]]
    if psw is not None:
        rows = rows * psw[summed][:, None]
    backend.add_at(xp, y, bag[summed], rows)
    if mode == 1:
        y = (y / xp.maximum(size, 1)[:, None]).astype(w.dtype)
        bag_size, max_idx = size, size.copy()
    else:
        bag_size, max_idx = xp.zeros(b, dtype=xp.int64), xp.zeros(b, dtype=xp.int64)
    return (y, _offset2bag(xp, n, starts), bag_size, max_idx)


def _eb_grad_fwd(xp, g, idx, offsets, psw, max_idx, out=None, dt=None, num_weights=0,
                 scale_grad_by_freq=False, mode=1, include_last_offset=False, padding_idx=-1):
    """ATen's dense backward of embedding_bag (``_embedding_bag_dense_backward_cpu``)."""
    d = g.shape[1]
    gw = xp.zeros((num_weights, d), dtype=g.dtype)
    if not idx.shape[0]:
        return gw
    idx, starts, bag, valid = _eb_flat(xp, gw, idx, offsets, include_last_offset, padding_idx)
    if mode == 2:
        keep = _eb_sizes(xp, bag, valid, starts.shape[0]) > 0
        cols = xp.broadcast_to(xp.arange(d), max_idx.shape)
        backend.add_at(xp, gw, (max_idx[keep], cols[keep]), g[keep])
        return gw
    scale = xp.ones(idx.shape[0], dtype=g.dtype)
    if psw is not None:
        scale = scale * psw
    if mode == 1:
        size = _eb_sizes(xp, bag, valid, starts.shape[0])
        scale = scale / xp.maximum(size, 1)[xp.maximum(bag, 0)]
    if scale_grad_by_freq:
        srt = xp.sort(idx)
        counts = xp.bincount(idx, minlength=num_weights)
        uniq = xp.unique(srt)  # the k-th distinct index divides by counts[srt[k]]
        div = xp.ones(num_weights, dtype=g.dtype)
        div[uniq] = counts[srt[: uniq.shape[0]]]
        scale = scale / div[idx]
    backend.add_at(xp, gw, idx[valid], g[bag[valid]] * scale[valid][:, None])
    return gw


def _eb_psw_grad_fwd(xp, g, w, idx, offsets, out=None, dt=None, mode=0,
                     include_last_offset=False, padding_idx=-1):
    """``d out / d per_sample_weights[j] = <grad[bag(j)], weight[input[j]]>``, 0 for padding."""
    res = xp.zeros(idx.shape[0], dtype=g.dtype)
    if not idx.shape[0]:
        return res
    idx, starts, bag, valid = _eb_flat(xp, w, idx, offsets, include_last_offset, padding_idx)
    res[valid] = (g[bag[valid]] * w[idx[valid]]).sum(-1)
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


# ---- affine_grid --------------------------------------------------------------------------------

def _linspace_from_neg_one(xp, n, align_corners, dtype):
    """ATen's ``linspace_from_neg_one``: ``linspace(-1, 1, n)`` (torch's two-sided steps), scaled
    by ``(n - 1) / n`` without ``align_corners``; 0 for one step."""
    if n <= 1:
        return xp.zeros(max(n, 1), dtype=dtype)[:n] if n == 0 else xp.zeros(1, dtype=dtype)
    step = dtype.type(2.0 / (n - 1))
    i = xp.arange(n)
    half = n // 2
    r = xp.where(i < half, dtype.type(-1) + step * i.astype(dtype),
                 dtype.type(1) - step * (n - 1 - i).astype(dtype)).astype(dtype)
    if not align_corners:
        r = (r * dtype.type(n - 1) / dtype.type(n)).astype(dtype)
    return r


def _base_grid(xp, size, align_corners, dtype):
    """(N-less) base grid ``(*spatial, nd + 1)``: x (the last dim) first, then y (, z), then 1."""
    sp = tuple(size[2:])
    nd = len(sp)
    base = xp.ones(sp + (nd + 1,), dtype=dtype)
    for k in range(nd):  # coordinate k runs along spatial dim nd - 1 - k
        ax = nd - 1 - k
        shape = [1] * nd
        shape[ax] = sp[ax]
        base[..., k] = _linspace_from_neg_one(xp, sp[ax], align_corners, dtype).reshape(shape)
    return base


def _affine_grid_fwd(xp, theta, out=None, dt=None, size=(), align_corners=False):
    n = size[0]
    if theta.shape[0] != n:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{n}, {theta.shape[2]}] but got: [{theta.shape[0]}, "
                           f"{theta.shape[2]}].")
    base = _base_grid(xp, size, align_corners, theta.dtype)
    nd = base.shape[-1] - 1
    flat = base.reshape(-1, nd + 1)
    res = xp.matmul(flat[None], xp.swapaxes(theta, 1, 2))  # (N, prod(sp), nd)
    return res.reshape((n,) + tuple(size[2:]) + (nd,))


def _affine_grid_grad_fwd(xp, g, out=None, dt=None, size=(), align_corners=False):
    base = _base_grid(xp, size, align_corners, g.dtype)
    nd = base.shape[-1] - 1
    flat = base.reshape(-1, nd + 1)
    gt = xp.matmul(flat.T[None], g.reshape(g.shape[0], -1, nd))  # (N, nd + 1, nd)
    return xp.ascontiguousarray(xp.swapaxes(gt, 1, 2))


_affine_grad = _helper("_affine_grid_generator_backward", _affine_grid_grad_fwd,
                       params={"size": (), "align_corners": False})
register(OpSpec(
    name="affine_grid_generator", forward=_affine_grid_fwd,
    backward=lambda c, g: (_affine_grad(g.contiguous(), size=c["size"],
                                        align_corners=c["align_corners"]),),
    params={"size": (), "align_corners": False}, dtype_rule="self", method=False, out=False,
    node_name="AffineGridGeneratorBackward0",
    doc="affine_grid_generator(theta, size, align_corners): base grid @ theta^T; saves "
        "nothing (linear in theta)."))


# ---- grid_sampler -------------------------------------------------------------------------------

def _unnormalize(xp, c, n, align_corners):
    """(source coordinate, d source / d grid) as ATen's ``grid_sampler_unnormalize``."""
    if align_corners:
        return (c + 1) / 2 * (n - 1), (n - 1) / 2
    return ((c + 1) * n - 1) / 2, n / 2


def _clip(xp, c, n):
    """``clip_coordinates_set_grad``: into [0, n - 1]; gradient 1 strictly inside."""
    g = ((c > 0) & (c < n - 1)).astype(c.dtype)
    return xp.minimum(n - 1, xp.maximum(c, 0)).astype(c.dtype), g


def _reflect(xp, c, twice_low, twice_high):
    """``reflect_coordinates_set_grad``: fold ``c`` into [low, high] by mirror images."""
    if twice_low == twice_high:
        return xp.zeros_like(c), xp.zeros_like(c)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = c - lo
    sign = xp.where(c < 0, -1.0, 1.0).astype(c.dtype)
    c = xp.abs(c)
    extra = xp.fmod(c, span)
    flips = xp.floor(c / span)
    even = (flips % 2) == 0
    return (xp.where(even, extra + lo, span - extra + lo).astype(c.dtype),
            xp.where(even, sign, -sign).astype(c.dtype))


def _compute_coordinates(xp, c, n, padding_mode, align_corners):
    """(coordinate after padding_mode, its derivative): border clips, reflection mirrors then
    clips; zeros keeps it."""
    one = xp.ones_like(c)
    if padding_mode == 1:
        return _clip(xp, c, n)
    if padding_mode == 2:
        if align_corners:
            c, g1 = _reflect(xp, c, 0, 2 * (n - 1))
        else:
            c, g1 = _reflect(xp, c, -1, 2 * n - 1)
        c, g2 = _clip(xp, c, n)
        return c, g1 * g2
    return c, one


def _cubic_coeffs(xp, t):
    """ATen's cubic convolution weights (A = -0.75) of the taps -1, 0, 1, 2, and their
    derivatives in t."""
    a = -0.75

    def c1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def c2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    def d1(x):
        return (3 * (a + 2) * x - 2 * (a + 3)) * x

    def d2(x):
        return (3 * a * x - 10 * a) * x + 8 * a

    w = [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]
    dw = [d2(t + 1), d1(t), -d1(1 - t), -d2(2 - t)]
    return w, dw


def _gs_taps(xp, shape, grid, mode, padding_mode, align_corners):
    """The taps of every output point: a list of (integer coordinates per spatial dim (x, y,
    z order), in-bounds mask, weight, d weight / d grid per coordinate)."""
    sp = shape[2:]
    nd = len(sp)
    sizes = sp[::-1]  # x runs along the last dim
    dt = grid.dtype
    per_dim = []  # per coordinate: list of (integer position, weight, d weight / d grid)
    for k in range(nd):
        n = sizes[k]
        c, m = _unnormalize(xp, grid[..., k], n, align_corners)
        c = c.astype(dt)
        if mode == 2:  # bicubic: padding applies to the taps, not to the coordinate
            f = xp.floor(c)
            t = c - f
            w, dw = _cubic_coeffs(xp, t)
            per_dim.append([(f + (i - 1), w[i], dw[i] * m) for i in range(4)])
            continue
        c, gc = _compute_coordinates(xp, c, n, padding_mode, align_corners)
        if mode == 1:
            per_dim.append([(xp.rint(c), xp.ones_like(c), xp.zeros_like(c))])
            continue
        f = xp.floor(c)
        fr = c - f
        gm = gc * m
        per_dim.append([(f, 1 - fr, -gm), (f + 1, fr, gm)])
    taps = []
    for combo in itertools.product(*per_dim):
        pos, inb = [], None
        for k, (p, _, _) in enumerate(combo):
            if mode == 2:  # ATen's get_value_bounded: the tap position through padding_mode
                p, _ = _compute_coordinates(xp, p, sizes[k], padding_mode, align_corners)
                p = xp.rint(p) if padding_mode else p
            ok = (p >= 0) & (p <= sizes[k] - 1)
            inb = ok if inb is None else inb & ok
            pos.append(xp.where(ok, p, 0).astype(xp.int64))
        weight = None
        for _, w, _ in combo:
            weight = w if weight is None else weight * w
        dws = []
        for k in range(nd):
            d = combo[k][2]
            for j, (_, w, _) in enumerate(combo):
                if j != k:
                    d = d * w
            dws.append(d)
        taps.append((pos, inb, weight, dws))
    return taps


def _gather(xp, x, pos, inb):
    """x[n, :, z, y, x] at every output point -> (N, *out, C), 0 outside."""
    nidx = xp.arange(x.shape[0]).reshape((-1,) + (1,) * (pos[0].ndim - 1))
    xl = xp.moveaxis(x, 1, -1)  # (N, *sp, C)
    v = xl[(nidx,) + tuple(pos[::-1])]
    return v * inb[..., None].astype(x.dtype)


def _gs_check(shape, gshape, dtype, gdtype, mode, nd_want):
    nd = len(shape) - 2
    if gshape[0] != shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but "
                           f"got input with sizes {list(shape)} and grid with sizes {list(gshape)}")
    if gshape[-1] != len(shape) - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {len(shape) - 2} in last "
                           f"dimension, but got grid with sizes {list(gshape)}")
    for i in range(2, len(shape)):
        if shape[i] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(shape)} with dimension "
                               f"{i} being empty")
    if len(shape) != nd_want + 2 or len(gshape) != nd_want + 2:
        raise RuntimeError(f"grid_sampler(): expected {nd_want + 2}D input and grid with same "
                           f"number of dimensions, but got input with sizes {list(shape)} and "
                           f"grid with sizes {list(gshape)}")
    if nd_want == 3 and mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    return nd


def _gs_dtype(nd):
    def rule(spec, ins, params):
        x, g = ins
        _gs_check(tuple(x.shape), tuple(g.shape), x._dtype, g._dtype,
                  params.get("interpolation_mode", 0), nd)
        if not x._dtype.is_floating_point or x._dtype.name == "bfloat16" and nd == 3:
            kern = "grid_sampler_2d_cpu_kernel_impl" if nd == 2 else "grid_sampler3d_cpu"
            raise NotImplementedError(f'"{kern}" not implemented for '
                                      f"'{x._dtype.torch_name}'")
        if g._dtype is not x._dtype:
            raise RuntimeError(f"expected scalar type {x._dtype.torch_name} but found "
                               f"{g._dtype.torch_name}")
        return x._dtype

    return rule


def _gs_fwd(xp, x, grid, out=None, dt=None, interpolation_mode=0, padding_mode=0,
            align_corners=False):
    res = xp.zeros((x.shape[0],) + grid.shape[1:-1] + (x.shape[1],), dtype=x.dtype)
    if res.size:
        for pos, inb, w, _ in _gs_taps(xp, x.shape, grid, interpolation_mode, padding_mode,
                                       align_corners):
            res += _gather(xp, x, pos, inb) * w[..., None].astype(x.dtype)
    return xp.ascontiguousarray(xp.moveaxis(res, -1, 1))


def _gs_grad_fwd(xp, g, x, grid, out=None, dt=None, interpolation_mode=0, padding_mode=0,
                 align_corners=False, need_input=True, need_grid=True):
    """(grad input, grad grid): the taps' weights scatter the gradient back into the input; the
    grid's gradient is the derivative of the weights times the values read."""
    gl = xp.moveaxis(g, 1, -1)  # (N, *out, C)
    gx = xp.zeros(x.shape[:1] + x.shape[2:] + x.shape[1:2], dtype=x.dtype)  # (N, *sp, C)
    gg = xp.zeros(grid.shape, dtype=grid.dtype)
    if gl.size:
        nidx = xp.arange(x.shape[0]).reshape((-1,) + (1,) * (grid.ndim - 2))
        nidx = xp.broadcast_to(nidx, grid.shape[:-1])
        for pos, inb, w, dws in _gs_taps(xp, x.shape, grid, interpolation_mode, padding_mode,
                                         align_corners):
            if need_input:
                vals = gl * (w * inb)[..., None].astype(x.dtype)
                backend.add_at(xp, gx, (nidx,) + tuple(pos[::-1]), vals)
            if need_grid and interpolation_mode != 1:
                v = (_gather(xp, x, pos, inb) * gl).sum(-1)
                for k, d in enumerate(dws):
                    gg[..., k] += (v * d).astype(grid.dtype)
    return xp.ascontiguousarray(xp.moveaxis(gx, -1, 1)), gg


def _gs_bw(c, g):
    need_x, need_g = c.needs_input_grad[0], c.needs_input_grad[1]
    gx, gg = _gs_grad(g.contiguous(), c["self"], c["grid"],
                      interpolation_mode=c["interpolation_mode"],
                      padding_mode=c["padding_mode"], align_corners=c["align_corners"],
                      need_input=need_x, need_grid=need_g)
    return (gx if need_x else None, gg if need_g else None)


_gs_grad_spec = register(OpSpec(
    name="_grid_sampler_backward", forward=_gs_grad_fwd, args=("self", "input", "grid"),
    params={"interpolation_mode": 0, "padding_mode": 0, "align_corners": False,
            "need_input": True, "need_grid": True}, outputs=("grad_input", "grad_grid"),
    dtype_rule="self", method=False, function=False, out=False))


def _gs_grad(*a, **p):
    return dispatch.call(_gs_grad_spec, a, p)


_GS_PARAMS = {"interpolation_mode": 0, "padding_mode": 0, "align_corners": False}
for _nd in (2, 3):
    register(OpSpec(
        name=f"grid_sampler_{_nd}d", forward=_gs_fwd, backward=_gs_bw, args=("self", "grid"),
        params=dict(_GS_PARAMS), saves=("self", "grid"), dtype_rule=_gs_dtype(_nd),
        method=False, out=False, nondiff=(), node_name=f"GridSampler{_nd}DBackward0",
        doc=f"grid_sampler_{_nd}d(input, grid, interpolation_mode, padding_mode, "
            "align_corners): input read at the grid's normalised points; saves both."))


# ---- fractional max pooling ---------------------------------------------------------------------

_FMP_DIMS = {2: ("height", "width"), 3: ("time", "height", "width")}


def _fmp_intervals(xp, sample, n, o, k, dtype):
    """ATen's ``generate_intervals`` in the input's dtype: window starts
    ``int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (n - k) / (o - 1)``; the last
    window ends at the input's end. ``sample`` holds one u per plane: -> (..., o) int64."""
    seq = xp.empty(sample.shape + (o,), dtype=xp.int64)
    if o > 1:
        alpha = dtype.type(n - k) / dtype.type(o - 1)
        i = xp.arange(o - 1).astype(dtype)
        a = ((i + sample[..., None]).astype(dtype) * alpha).astype(dtype)
        b = (sample * alpha).astype(dtype)
        seq[..., :-1] = xp.trunc(a).astype(xp.int64) - xp.trunc(b).astype(xp.int64)[..., None]
    if o > 0:
        seq[..., -1] = n - k
    return seq


def _fmp_check(nd, shape, kernel_size, output_size, samples_shape, dtype, sdtype):
    name = f"fractional_max_pool{nd}d"
    where = f"{name}()" if nd == 2 else f"{name}_out()"
    k = (kernel_size,) * nd if isinstance(kernel_size, int) else tuple(kernel_size)
    o = (output_size,) * nd if isinstance(output_size, int) else tuple(output_size)
    if len(k) == 1:
        k = k * nd
    if len(o) == 1:
        o = o * nd
    if len(k) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of Ints")
    if len(o) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of Ints")
    if len(shape) not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}: Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(shape)}")
    for i in range(1, len(shape)):
        if shape[i] <= 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(shape)} with dimension {i} being "
                               "empty.")
    sp = shape[-nd:]
    order = (0, 1) if nd == 2 else (0, 2, 1)  # (ATen checks the 3-d width before the height)
    for d in order:
        word, n, kk, oo = _FMP_DIMS[nd][d], sp[d], k[d], o[d]
        if oo + kk - 1 > n - (nd == 3):  # (ATen's 3-d check is strict: < input size)
            raise RuntimeError(f"{where}: pool {word} {kk} too large relative to input {word} "
                               f"{n}")
    if sdtype is not dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    nb = shape[0] if len(shape) == nd + 2 else 1
    if len(samples_shape) != 3:
        raise RuntimeError(f"Expect _random_samples to be 3D tensor, got: {len(samples_shape)}D")
    if samples_shape[0] < nb:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples_shape[1] != shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples_shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples_shape[2]}.")
    return k, o


def _fmp_dtype(nd):
    def rule(spec, ins, params):
        x, s = ins
        _fmp_check(nd, tuple(x.shape), params["kernel_size"], params["output_size"],
                   tuple(s.shape), x._dtype, s._dtype)
        return x._dtype

    return rule


def _fmp_fwd(nd):
    def fwd(xp, x, samples, out=None, dt=None, kernel_size=2, output_size=1):
        k, o = _fmp_check(nd, x.shape, kernel_size, output_size, samples.shape, x.dtype,
                          samples.dtype)
        batched = x.ndim == nd + 2
        xb = x if batched else x[None]
        nb, c = xb.shape[:2]
        sp = xb.shape[2:]
        u = samples[:nb].astype(x.dtype)  # (N, C, nd)
        order = (1, 0) if nd == 2 else (0, 1, 2)  # (2-d: W reads sample 0, H sample 1)
        seqs = [_fmp_intervals(xp, u[..., order[d]], sp[d], o[d], k[d], x.dtype)
                for d in range(nd)]
        plane = xb.reshape(nb, c, -1)
        strides = [math.prod(sp[d + 1:]) for d in range(nd)]
        start = 0
        for d in range(nd):
            shape = (nb, c) + tuple(o[e] if e == d else 1 for e in range(nd))
            start = start + (seqs[d] * strides[d]).reshape(shape)
        start = xp.broadcast_to(start, (nb, c) + tuple(o))
        best = xp.full(start.shape, -xp.inf if x.dtype.kind == "f" else 0, dtype=x.dtype)
        idx = start.copy()
        for offs in itertools.product(*(range(kk) for kk in k)):
            flat = start + sum(a * s for a, s in zip(offs, strides))
            v = xp.take_along_axis(plane, flat.reshape(nb, c, -1), 2).reshape(flat.shape)
            m = v > best
            if x.dtype.kind == "f":
                m |= xp.isnan(v)
            best = xp.where(m, v, best)
            idx = xp.where(m, flat, idx)
        if not batched:
            best, idx = best[0], idx[0]
        return xp.ascontiguousarray(best), xp.ascontiguousarray(idx.astype(xp.int64))

    return fwd


def _fmp_bw(nd):
    from .nn_pool_more import _scatter_back

    return lambda c, g: _scatter_back(c, g, nd) + (None,)


for _nd in (2, 3):
    register(OpSpec(
        name=f"_fractional_max_pool{_nd}d", forward=_fmp_fwd(_nd), backward=_fmp_bw(_nd),
        args=("self", "random_samples"), nondiff=("random_samples",),
        params={"kernel_size": 2, "output_size": 1}, outputs=("output", "result1"),
        saves=("self", "result1"), dtype_rule=_fmp_dtype(_nd), method=False, function=False,
        out=False, node_name=f"FractionalMaxPool{_nd}DBackward0",
        doc=f"fractional_max_pool{_nd}d(input, kernel_size, output_size, random_samples) -> "
            "(output, indices): max over pseudo-random windows; saves input and indices."))


# ---- conv_tbc (time, batch, channels) -----------------------------------------------------------

def _tbc_dtype(spec, ins, params):
    x, w, b = ins
    if x.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if w.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if b.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if x.shape[2] != w.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if b.shape[0] != w.shape[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    ot = x.shape[0] + 2 * params.get("pad", 0) - w.shape[0] + 1
    if ot < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {ot}: "
                           f"[{ot}, {x.shape[1]}, {w.shape[2]}]")
    if x._dtype is not w._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{x._dtype.torch_name} and {w._dtype.torch_name}")
    return x._dtype


def _tbc_pad(xp, x, pad):
    """The input with ``pad`` zero steps either side in time (ATen's shifted slices)."""
    if pad <= 0:
        return x[-pad:x.shape[0] + pad] if pad < 0 else x
    z = xp.zeros((pad,) + x.shape[1:], dtype=x.dtype)
    return xp.concatenate([z, x, z], 0)


def _tbc_fwd(xp, x, w, b, out=None, dt=None, pad=0):
    ot = x.shape[0] + 2 * pad - w.shape[0] + 1
    y = xp.broadcast_to(b.astype(x.dtype), (ot, x.shape[1], w.shape[2])).copy()
    xpad = _tbc_pad(xp, x, pad)
    for k in range(w.shape[0]):
        y += xp.matmul(xpad[k:k + ot], w[k])
    return y


def _tbc_grad_fwd(xp, g, x, w, out=None, dt=None, pad=0):
    """ATen's ``conv_tbc_backward``: (grad input, grad weight, grad bias)."""
    ot = g.shape[0]
    xpad = _tbc_pad(xp, x, pad)
    gpad = xp.zeros(xpad.shape, dtype=g.dtype)
    gw = xp.empty(w.shape, dtype=g.dtype)
    for k in range(w.shape[0]):
        gpad[k:k + ot] += xp.matmul(g, w[k].T)
        gw[k] = xp.tensordot(xpad[k:k + ot], g, axes=([0, 1], [0, 1]))
    if pad > 0:
        gx = gpad[pad:pad + x.shape[0]]
    elif pad < 0:
        gx = xp.zeros(x.shape, dtype=g.dtype)
        gx[-pad:x.shape[0] + pad] = gpad
    else:
        gx = gpad
    return xp.ascontiguousarray(gx), gw, g.sum((0, 1))


_tbc_grad_spec = register(OpSpec(
    name="_conv_tbc_backward", forward=_tbc_grad_fwd, args=("self", "input", "weight"),
    params={"pad": 0}, outputs=("grad_input", "grad_weight", "grad_bias"), dtype_rule="self",
    method=False, function=False, out=False))


def _tbc_bw(c, g):
    gx, gw, gb = dispatch.call(_tbc_grad_spec, (g.contiguous(), c["self"], c["weight"]),
                               {"pad": c["pad"]})
    need = c.needs_input_grad
    return (gx if need[0] else None, gw if need[1] else None, gb if need[2] else None)


register(OpSpec(
    name="conv_tbc", forward=_tbc_fwd, backward=_tbc_bw, args=("self", "weight", "bias"),
    params={"pad": 0}, saves=("self", "weight"), dtype_rule=_tbc_dtype, method=False, out=False,
    node_name="ConvTbcBackward0", layout="contiguous",
    doc="conv_tbc(input, weight, bias, pad=0): a 1-d convolution over time of (time, batch, "
        "channels) input, weight (kernel, in, out); saves input and weight."))
