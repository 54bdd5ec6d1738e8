"""Reductions: sum, mean, ... over dims, with PyTorch's dtype and keepdim rules."""
from __future__ import annotations

from .. import dtypes, layout
from .table import OpSpec, register


def dims_of(dim, ndim):
    """Normalise ``dim`` (None, int or sequence) to a sorted tuple of axes."""
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        ds = tuple(sorted(layout.wrap_dim(d, ndim) for d in dim))
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"dim {ds[0]} appears multiple times in the list of dims")
        return ds
    return (layout.wrap_dim(dim, ndim),)


def expand_back(g, in_shape, dim, keepdim):
    """Broadcast a reduced gradient back to the input's shape."""
    if not keepdim and dim is not None and len(in_shape):
        for d in dims_of(dim, len(in_shape)):
            g = g.unsqueeze(d)
    return g.expand(in_shape)


def _sum_dtype(spec, ins, params):
    if params.get("dtype") is not None:
        return dtypes.from_any(params["dtype"])
    dt = ins[0]._dtype
    return dtypes.int64 if dt.category <= dtypes.INT else dt


def _sum_fwd(xp, a, out=None, dt=None, dim=None, keepdim=False, dtype=None):
    axes = dims_of(dim, a.ndim)
    return xp.sum(a, axis=axes, keepdims=keepdim, dtype=dt.np)


def _sum_bw(c, g):
    shape = c.input_meta[0][0]
    return expand_back(g, shape, c["dim"], c["keepdim"])


register(OpSpec(name="sum", forward=_sum_fwd, backward=_sum_bw, dtype_rule=_sum_dtype,
                params={"dim": None, "keepdim": False, "dtype": None},
                node_name="SumBackward0"))


def _mean_dtype(spec, ins, params):
    if params.get("dtype") is not None:
        return dtypes.from_any(params["dtype"])
    dt = ins[0]._dtype
    if dt.category <= dtypes.INT:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {dt.torch_name}")
    return dt


def _mean_fwd(xp, a, out=None, dt=None, dim=None, keepdim=False, dtype=None):
    axes = dims_of(dim, a.ndim)
    return xp.mean(a, axis=axes, keepdims=keepdim, dtype=dt.np)


def _mean_bw(c, g):
    shape = c.input_meta[0][0]
    axes = dims_of(c["dim"], len(shape))
    n = 1
    for d in axes:
        n *= shape[d]
    return expand_back(g / n, shape, c["dim"], c["keepdim"])


register(OpSpec(name="mean", forward=_mean_fwd, backward=_mean_bw, dtype_rule=_mean_dtype,
                params={"dim": None, "keepdim": False, "dtype": None},
                node_name="MeanBackward0"))


def _sum_to_fwd(xp, a, out=None, dt=None, size=()):
    size = tuple(size)
    lead = a.ndim - len(size)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(size) if n == 1 and a.shape[lead + i] != 1)
    r = xp.sum(a, axis=axes, keepdims=True, dtype=dt.np) if axes else a
    return r.reshape(size) if r.shape != size else r


register(OpSpec(name="sum_to_size", forward=_sum_to_fwd,
                backward=lambda c, g: g.expand(c.input_meta[0][0]), dtype_rule="self",
                params={"size": ()}, function=False, out=False, node_name="SumBackward1"))
