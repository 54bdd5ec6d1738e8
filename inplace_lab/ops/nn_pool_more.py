"""Pooling kernels with indices, 3-d pooling, unpooling and channel shuffle.

Each is one table op with PyTorch's node name, written once for any number of spatial
dims (the window walk is the same in 1, 2 or 3 dims):

- ``_max_pool2d_with_indices`` / ``_max_pool3d_with_indices`` (MaxPool2DWithIndicesBackward0,
  MaxPool3DWithIndicesBackward0) -> (output, indices). The indices are flat positions in each
  input plane (``h * W + w``), int64, found by ATen's rule ``val > max or isnan(val)``: the
  first of equal values wins, the *last* NaN wins, a window of -inf points at its first cell
  inside the input. They save the input and the indices (``_saved_self``, ``_saved_result1``:
  the second result); the gradient goes back through the indices (``scatter_add``:
  overlapping windows add up).
- ``_avg_pool3d`` (AvgPool3DBackward0) saves its input, as PyTorch, though its backward is
  linear and reads only the input's shape (so writing the input before backward fails).
- ``_adaptive_avg_pool3d`` / ``_adaptive_max_pool3d`` (AdaptiveAvgPool3DBackward0,
  AdaptiveMaxPool3DBackward0): ATen's windows ``[floor(i*n/o), ceil((i+1)*n/o))``; both
  save the input, the max pool also its indices (``result1``).
- ``_max_unpool2d`` / ``_max_unpool3d`` (MaxUnpool2DBackward0 ...): zeros, then each value
  written at its index; the backward gathers the gradient at the same indices.
- ``_channel_shuffle`` (ChannelShuffleBackward0): a permutation of the channels; its
  backward is the inverse shuffle.
"""
from __future__ import annotations

import itertools
import math

from . import dispatch
from .nn_extra import _adaptive_bounds, _cast
from .table import OpSpec, register

_WORDS = {1: "one", 2: "two", 3: "three"}


def _nn_op(name, fwd, bw, node_name, doc, args=("self",), **kw):
    kw.setdefault("dtype_rule", "self")
    return register(OpSpec(name=name, forward=fwd, backward=bw, args=args, method=False,
                           function=False, out=False, node_name=node_name, doc=doc, **kw))


def _helper(name, fwd, args=("self",), **kw):
    spec = register(OpSpec(name=name, forward=fwd, args=args, dtype_rule="self", method=False,
                           function=False, out=False, **kw))
    return lambda *a, **p: dispatch.call(spec, a, p)


def _tuple(v, nd, what, op, default=None, omitted=False):
    """ATen's ``kernel_size must either be a single int, or a tuple of three ints``."""
    if v is None or v == ():
        if default is not None:
            return default
    if isinstance(v, int):
        return (v,) * nd
    v = tuple(int(e) for e in v)
    if len(v) == 1:
        return v * nd
    if len(v) != nd:
        either = "either be omitted, a single int," if omitted else (
            "be either a single int," if what == "dilation" else "either be a single int,")
        raise RuntimeError(f"{op}: {what} must {either} or a tuple of {_WORDS[nd]} ints")
    return v


def _out_size(n, k, s, p, d, ceil_mode):
    """ATen's ``pooling_output_shape``: the last window must start inside the input or the
    left padding."""
    span = n + 2 * p - d * (k - 1) - 1
    o = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def _check_dims(shape, nd, op):
    if len(shape) not in (nd + 1, nd + 2) or any(n == 0 for n in shape[1:]):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for "
                           "input")


def pool_geometry(shape, nd, kernel_size, stride, padding, dilation, ceil_mode, op, avg=False):
    """(k, s, p, d, out): the pooling windows of an ``nd``-d pool, with ATen's checks."""
    k = _tuple(kernel_size, nd, "kernel_size", op)
    s = _tuple(stride, nd, "stride", op, default=k, omitted=True)
    p = _tuple(padding, nd, "padding", op)
    d = _tuple(dilation, nd, "dilation", op)
    if any(e == 0 for e in s):
        raise RuntimeError("stride should not be zero")
    if any(e <= 0 for e in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got "
                           + " ".join(f"k{a}: {e}" for a, e in zip("THW"[-nd:], k)))
    if any(e <= 0 for e in d):
        raise RuntimeError("dilation should be greater than zero, but got "
                           + " ".join(f"dilation{a}: {e}" for a, e in zip("THW"[-nd:], d)))
    _check_dims(shape, nd, op)
    for kk, pp, dd in zip(k, p, d):
        if pp > kk // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation={dd}")
    sp = tuple(shape[-nd:])
    if avg and any(n + 2 * pp < kk for n, pp, kk in zip(sp, p, k)):
        raise RuntimeError("input image (" + " ".join(f"{a}: {n}" for a, n in zip("THW", sp))
                           + ") smaller than kernel size (" +
                           " ".join(f"k{a}: {e}" for a, e in zip("THW", k)) + ")")
    out = tuple(_out_size(*a, ceil_mode) for a in zip(sp, k, s, p, d))
    if any(o < 1 for o in out):
        c = shape[-nd - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + sp))}). Calculated "
                           f"output size: ({'x'.join(map(str, (c,) + out))}). Output size is "
                           "too small")
    return k, s, p, d, out


def _padded(xp, x, nd, k, s, p, d, out, fill):
    """``x`` padded by ``p`` on each side (and on the right as far as ceil_mode's last window
    reaches), holding ``fill``."""
    lead = x.ndim - nd
    widths = [(0, 0)] * lead
    for n, kk, ss, pp, dd, o in zip(x.shape[lead:], k, s, p, d, out):
        need = (o - 1) * ss + dd * (kk - 1) + 1
        widths.append((pp, pp + max(0, need - (n + 2 * pp))))
    if any(a or b for a, b in widths):
        return xp.pad(x, widths, constant_values=fill)
    return x


def _taps(nd, k, s, d, out):
    """Each kernel tap: its offsets and the strided slice of the padded input it reads."""
    for offs in itertools.product(*(range(kk) for kk in k)):
        yield offs, (Ellipsis,) + tuple(
            slice(o * dd, o * dd + ss * (n - 1) + 1, ss) for o, dd, ss, n in zip(offs, d, s, out))


def _plane_strides(sp):
    st, acc = [], 1
    for n in reversed(sp):
        st.append(acc)
        acc *= n
    return st[::-1]


def _lowest(xp, dtype):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def _max_pool_nd(xp, x, nd, k, s, p, d, out):
    """(values, flat indices) by ATen's window walk (see the module docstring)."""
    sp = x.shape[-nd:]
    low = _lowest(xp, x.dtype)
    xpad = _padded(xp, x, nd, k, s, p, d, out, low)
    pst = _plane_strides(sp)
    y = xp.full(x.shape[:-nd] + tuple(out), low, dtype=x.dtype)
    base = 0  # flat index of each window's first tap (may lie in the padding)
    first = 0  # flat index of each window's first cell inside the input (ATen's start)
    for i, (o, ss, pp, dd, st) in enumerate(zip(out, s, p, d, pst)):
        shape = [1] * nd
        shape[i] = o
        start = xp.arange(o, dtype=xp.int64) * ss - pp
        inside = xp.where(start < 0, start + ((-start + dd - 1) // dd) * dd, start)
        base = base + (start * st).reshape(shape)
        first = first + (inside * st).reshape(shape)
    idx = xp.broadcast_to(xp.asarray(first, dtype=xp.int64), y.shape).copy()
    nan = x.dtype.kind == "f"
    for offs, sl in _taps(nd, k, s, d, out):
        t = xpad[sl]
        m = t > y
        if nan:
            m |= xp.isnan(t)
        xp.copyto(y, t, where=m)
        tap = sum(o * dd * st for o, dd, st in zip(offs, d, pst))
        idx = xp.where(m, base + tap, idx)
    return y, idx


def _max_pool_indices_fwd(nd):
    op = f"max_pool{nd}d"

    def fwd(xp, x, out=None, dt=None, kernel_size=2, stride=None, padding=0, dilation=1,
            ceil_mode=False):
        k, s, p, d, o = pool_geometry(x.shape, nd, kernel_size, stride, padding, dilation,
                                      ceil_mode, op)
        return _max_pool_nd(xp, x, nd, k, s, p, d, o)

    return fwd


def _scatter_back(c, g, nd):
    """The gradient of a pool with indices: each output's gradient added at its index."""
    from .. import creation

    shape, _, dev = c.input_meta[0]
    lead, plane = tuple(shape[:-nd]), math.prod(shape[-nd:])
    flat = creation.zeros(lead + (plane,), dtype=g._dtype, device=dev)
    gx = flat.scatter_add(-1, c["result1"].reshape(lead + (-1,)), g.reshape(lead + (-1,)))
    return (gx.view(tuple(shape)),)


_MAX_PARAMS = {"kernel_size": 2, "stride": None, "padding": 0, "dilation": 1, "ceil_mode": False}
for _nd in (2, 3):
    _nn_op(f"_max_pool{_nd}d_with_indices", _max_pool_indices_fwd(_nd),
           (lambda nd: lambda c, g: _scatter_back(c, g, nd))(_nd),
           f"MaxPool{_nd}DWithIndicesBackward0", params=dict(_MAX_PARAMS),
           outputs=("output", "result1"), saves=("self", "result1"),
           doc=f"max_pool{_nd}d_with_indices(input, kernel_size, stride=None, padding=0, "
               "dilation=1, ceil_mode=False) -> (output, indices): saves input and indices.")


# ---- average pooling (3-d) ------------------------------------------------------------------

def _avg_divisor(xp, sp, k, s, p, out, count_include_pad, divisor_override):
    """ATen's divisors: the window clipped to the padded input (``count_include_pad``) or to
    the input itself; the product over the dims (a separable count)."""
    if divisor_override is not None:
        return xp.asarray(float(divisor_override))
    div = 1.0
    for i, (n, kk, ss, pp, o) in enumerate(zip(sp, k, s, p, out)):
        start = xp.arange(o) * ss - pp
        end = xp.minimum(start + kk, n + pp)
        cnt = end - start if count_include_pad else xp.minimum(end, n) - xp.maximum(start, 0)
        shape = [1] * len(sp)
        shape[i] = o
        div = div * cnt.reshape(shape).astype(float)
    return div


def _avg_geometry(xp, shape, nd, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    k, s, p, d, o = pool_geometry(shape, nd, kernel_size, stride, padding, 1, ceil_mode,
                                  f"avg_pool{nd}d", avg=True)
    return k, s, p, d, o, _avg_divisor(xp, shape[-nd:], k, s, p, o, count_include_pad,
                                       divisor_override)


def _avg3_fwd(xp, x, out=None, dt=None, kernel_size=2, stride=None, padding=0, ceil_mode=False,
              count_include_pad=True, divisor_override=None):
    k, s, p, d, o, div = _avg_geometry(xp, x.shape, 3, kernel_size, stride, padding, ceil_mode,
                                       count_include_pad, divisor_override)
    acc = x.dtype if x.dtype.kind == "f" else xp.float64
    xpad = _padded(xp, x.astype(acc, copy=False), 3, k, s, p, d, o, 0)
    y = None
    for _, sl in _taps(3, k, s, d, o):
        y = xpad[sl].copy() if y is None else y + xpad[sl]
    return _cast(xp, y / div, dt)


def _avg3_grad_fwd(xp, g, out=None, dt=None, input_shape=None, kernel_size=2, stride=None,
                   padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    """Each output's gradient over its divisor, added back to every cell it averaged."""
    k, s, p, d, o, div = _avg_geometry(xp, input_shape, 3, kernel_size, stride, padding,
                                       ceil_mode, count_include_pad, divisor_override)
    gd = (g / div).astype(g.dtype, copy=False)
    lead, sp = tuple(input_shape[:-3]), tuple(input_shape[-3:])
    size = [max(n + 2 * pp, (oo - 1) * ss + kk) for n, pp, oo, ss, kk in zip(sp, p, o, s, k)]
    gp = xp.zeros(lead + tuple(size), dtype=g.dtype)
    for _, sl in _taps(3, k, s, d, o):
        gp[sl] += gd
    return gp[(Ellipsis,) + tuple(slice(pp, pp + n) for pp, n in zip(p, sp))]


_AVG_PARAMS = {"kernel_size": 2, "stride": None, "padding": 0, "ceil_mode": False,
               "count_include_pad": True, "divisor_override": None}
_avg3_grad = _helper("_avg_pool3d_grad", _avg3_grad_fwd, params={"input_shape": None, **_AVG_PARAMS})
_nn_op("_avg_pool3d", _avg3_fwd,
       lambda c, g: (_avg3_grad(g, input_shape=tuple(c.input_meta[0][0]),
                                **{k: c[k] for k in _AVG_PARAMS}),),
       "AvgPool3DBackward0", params=dict(_AVG_PARAMS), saves=("self",),
       doc="avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, "
           "count_include_pad=True, divisor_override=None): saves its input (as PyTorch).")


# ---- adaptive pooling (3-d) -----------------------------------------------------------------

def _window_matrix(xp, n, o, dtype):
    m = xp.zeros((o, n), dtype=dtype)
    for i, (a, b) in enumerate(_adaptive_bounds(n, o)):
        m[i, a:b] = 1.0 / (b - a)
    return m


def _check_4d_5d(shape, name, colon=""):
    if len(shape) not in (4, 5):
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got{colon} {list(shape)}")


def _adaptive_avg3_fwd(xp, x, out=None, dt=None, output_size=(1, 1, 1)):
    """Window means as three small matrix products, one per spatial dim."""
    _check_4d_5d(x.shape, "adaptive_avg_pool3d")
    acc = x.dtype if x.dtype.kind == "f" else xp.float64
    y = x.astype(acc, copy=False)
    for ax, o in zip((-3, -2, -1), output_size):
        m = _window_matrix(xp, y.shape[ax], o, acc)
        y = xp.moveaxis(xp.tensordot(y, m, axes=([ax], [1])), -1, ax)
    return _cast(xp, y, dt)


def _adaptive_avg3_grad_fwd(xp, g, out=None, dt=None, input_shape=None):
    y = g
    for ax, n in zip((-3, -2, -1), input_shape[-3:]):
        m = _window_matrix(xp, n, y.shape[ax], g.dtype)
        y = xp.moveaxis(xp.tensordot(y, m, axes=([ax], [0])), -1, ax)
    return xp.ascontiguousarray(y)


_adaptive_avg3_grad = _helper("_adaptive_avg_pool3d_grad", _adaptive_avg3_grad_fwd,
                              params={"input_shape": None})
_nn_op("_adaptive_avg_pool3d", _adaptive_avg3_fwd,
       lambda c, g: (_adaptive_avg3_grad(g, input_shape=tuple(c.input_meta[0][0])),),
       "AdaptiveAvgPool3DBackward0", params={"output_size": (1, 1, 1)}, saves=("self",),
       doc="adaptive_avg_pool3d(input, output_size): saves its input (as PyTorch).")


def _adaptive_max3_fwd(xp, x, out=None, dt=None, output_size=(1, 1, 1)):
    """Each window's maximum by ATen's rule (first of equal values, last NaN) and its flat
    index in the (D, H, W) volume."""
    _check_4d_5d(x.shape, "adaptive_max_pool3d", ":")
    sp = x.shape[-3:]
    lead = x.shape[:-3]
    vals = xp.empty(lead + tuple(output_size), dtype=x.dtype)
    idx = xp.empty(lead + tuple(output_size), dtype=xp.int64)
    bounds = [_adaptive_bounds(n, o) for n, o in zip(sp, output_size)]
    for cell in itertools.product(*(range(o) for o in output_size)):
        (d0, d1), (h0, h1), (w0, w1) = (bounds[a][i] for a, i in enumerate(cell))
        win = x[..., d0:d1, h0:h1, w0:w1].reshape(lead + (-1,))
        a = xp.argmax(win, axis=-1)
        if x.dtype.kind == "f":
            isn = xp.isnan(win)
            last_nan = win.shape[-1] - 1 - xp.argmax(isn[..., ::-1], axis=-1)
            a = xp.where(isn.any(-1), last_nan, a)
        hw = (h1 - h0) * (w1 - w0)
        dd, r = a // hw, a % hw
        hh, ww = r // (w1 - w0), r % (w1 - w0)
        vals[(Ellipsis,) + cell] = xp.take_along_axis(win, a[..., None], -1)[..., 0]
        idx[(Ellipsis,) + cell] = ((d0 + dd) * sp[1] + h0 + hh) * sp[2] + w0 + ww
    return vals, idx


_nn_op("_adaptive_max_pool3d", _adaptive_max3_fwd, lambda c, g: _scatter_back(c, g, 3),
       "AdaptiveMaxPool3DBackward0", params={"output_size": (1, 1, 1)},
       outputs=("output", "result1"), saves=("self", "result1"),
       doc="adaptive_max_pool3d(input, output_size) -> (output, indices): saves its input and "
           "the indices (``result1``).")


# ---- max unpooling --------------------------------------------------------------------------

def _unpool_fwd(nd):
    def fwd(xp, x, ix, out=None, dt=None, output_size=()):
        name = f"max_unpooling{nd}d"
        if ix.dtype != xp.int64:
            from ..dtypes import from_numpy_dtype

            got = "" if nd == 3 else f" but got: {from_numpy_dtype(ix.dtype).torch_name}"
            raise RuntimeError(f"elements in indices should be type int64{got}")
        if x.ndim not in (nd + 1, nd + 2):
            raise RuntimeError(f"Input to {name} should be a {nd + 1}d or {nd + 2}d Tensor, but "
                               f"got a tensor with {x.ndim} dimensions.")
        if len(output_size) != nd:
            what = "two elements (height, width)" if nd == 2 else \
                "three elements (depth, height, width)"
            raise RuntimeError(f"There should be exactly {what} in output_size, but got "
                               f"{len(output_size)} elements.")
        if ix.shape != x.shape:
            raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                               f"({list(x.shape)}) but got indices tensor with shape: "
                               f"{list(ix.shape)}")
        plane = math.prod(output_size)
        lead = x.shape[:-nd]
        flat_ix = ix.reshape(lead + (-1,))
        if flat_ix.size and (bool((flat_ix < 0).any()) or bool((flat_ix >= plane).any())):
            bad = flat_ix[(flat_ix < 0) | (flat_ix >= plane)].reshape(-1)[0]
            raise RuntimeError(f"Found an invalid max index: {int(bad)} (output volumes are of "
                               f"size {'x'.join(map(str, output_size))})")
        rows = math.prod(lead)
        y = xp.zeros((rows, plane), dtype=x.dtype)
        y[xp.arange(rows)[:, None], flat_ix.reshape(rows, -1)] = x.reshape(rows, -1)
        return y.reshape(lead + tuple(output_size))

    return fwd


def _unpool_bw(c, g, nd):
    """MaxUnpool's backward: the gradient read back at each input's index (``gather``)."""
    ix = c["indices"]
    lead = tuple(ix.shape[:-nd])
    gx = g.reshape(lead + (-1,)).gather(-1, ix.reshape(lead + (-1,)))
    return (gx.view(tuple(ix.shape)), None)


for _nd in (2, 3):
    _nn_op(f"_max_unpool{_nd}d", _unpool_fwd(_nd), (lambda nd: lambda c, g: _unpool_bw(c, g, nd))(_nd),
           f"MaxUnpool{_nd}DBackward0", args=("self", "indices"), params={"output_size": ()},
           saves=("indices",),
           doc=f"max_unpool{_nd}d(input, indices, output_size): zeros with each value at its "
               "index; saves the indices.")


# ---- channel shuffle ------------------------------------------------------------------------

def _shuffle(x, groups):
    n, c = x.shape[:2]
    return x.reshape((n, groups, c // groups) + x.shape[2:]).swapaxes(1, 2).reshape(x.shape)


def _channel_shuffle_fwd(xp, x, out=None, dt=None, groups=1):
    if x.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(x.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if x.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {x.shape[1]} "
                           f"channels and {groups} groups.")
    return xp.ascontiguousarray(_shuffle(x, groups))


_CHANNEL_SHUFFLE = _nn_op(
    "_channel_shuffle", _channel_shuffle_fwd,
    lambda c, g: (dispatch.call(_CHANNEL_SHUFFLE, (g,),
                                {"groups": c.input_meta[0][0][1] // c["groups"]}),),
    "ChannelShuffleBackward0", params={"groups": 1},
    doc="channel_shuffle(input, groups): saves nothing (a permutation of the channels).")
