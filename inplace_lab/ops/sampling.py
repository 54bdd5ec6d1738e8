"""Functional sampling: ``multinomial`` and the out-of-place ``normal`` overloads.

Both draw from the generator ``inplace_lab.manual_seed`` seeds (ops/random.py), so a
seeded notebook repeats itself; the stream is numpy's, not PyTorch's, so the numbers
differ from torch's for the same seed (their distribution does not).

``multinomial`` follows PyTorch's CPU algorithms: without replacement (or for one
sample) the "exponential race" ``argmax/topk(p / q)`` with ``q ~ Exp(1)``; with
replacement an inverse-CDF search of uniform draws. ``normal(mean, std)`` with a tensor
mean and/or std is a node (NormalBackward1/2/3, as PyTorch) whose gradient is zero: the
draws are not reparameterised (use ``mean + std * randn`` for that).

>>> import inplace_lab as il
>>> _ = il.manual_seed(0)
>>> il.multinomial(il.tensor([0., 0., 1.]), 2, replacement=True).tolist()
[2, 2]
"""
from __future__ import annotations

import math

from .. import creation, dtypes, layout, rng
from . import dispatch
from .elementwise import arg, is_tensor, overload
from .random import _g, _gen
from .table import OpSpec, register

# ---- multinomial -----------------------------------------------------------------------------------


def _multinomial_rule(spec, ins, params):
    p, n, repl = ins[0], params["num_samples"], params["replacement"]
    if not 0 < p.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not p._dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{p._dtype.torch_name}")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not repl and n > p.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if p.numel() == 0:  # no rows: nothing to draw; rows without categories: no mass to draw from
        if repl and n > 1 and p.shape[-1] == 0 and (p.ndim == 1 or p.shape[0]):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        return dtypes.int64
    a = p._a.astype("float64")
    rows = a.reshape(-1, a.shape[-1])
    if not repl or n == 1:
        if not (a.max() < float("inf") and a.min() >= 0):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (rows.sum(-1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        return dtypes.int64
    for row in rows:
        if not (row >= 0).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        if not (abs(row) < float("inf")).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        if not row.sum() > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return dtypes.int64


def _multinomial_fwd(xp, p, out=None, dt=None, num_samples=1, replacement=False, generator=None):
    """PyTorch's CPU kernel: without replacement (or one sample) the top ``p / q`` with
    ``q ~ Exp(1)`` drawn in p's dtype; with replacement a float64 uniform per sample, row by
    row, searched in the row's normalised cumulative sum."""
    g = _gen(xp, generator)
    cpu = xp.__name__ == "numpy"
    rows = p.reshape(-1, p.shape[-1])
    shape = p.shape[:-1] + (num_samples,)
    if rows.shape[0] == 0:
        r = xp.zeros(shape, dtype=dt.np)
    elif not replacement or num_samples == 1:
        if cpu:
            q = g.exponential(rows.size, 1.0).astype(rows.dtype).reshape(rows.shape)
        else:
            q = g.standard_exponential(size=rows.shape)
        keys = rows / q
        r = xp.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    else:
        rows = rows.astype("float64")
        cdf = xp.cumsum(rows, -1)
        cdf /= cdf[:, -1:]
        u = g.uniform(rows.shape[0] * num_samples, xp.float64).reshape(
            rows.shape[0], num_samples) if cpu else g.random(size=(rows.shape[0], num_samples))
        r = xp.stack([xp.searchsorted(c, ui, side="left") for c, ui in zip(cdf, u)])
        r = xp.minimum(r, rows.shape[1] - 1)
    r = r.reshape(shape).astype(dt.np, copy=False)
    if out is not None:
        out[...] = r
        return out
    return r


register(OpSpec(
    name="multinomial", forward=_multinomial_fwd, dtype_rule=_multinomial_rule,
    params={"num_samples": 1, "replacement": False, "generator": None},
    doc="torch.multinomial(input, num_samples, replacement=False): int64 category indices "
        "drawn from each row of (unnormalised) probabilities."))


# ---- normal(mean, std) -----------------------------------------------------------------------------

def _normal_rule(spec, ins, params):
    mean, std = ins
    dt = mean._dtype if is_tensor(mean) else std._dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f'"normal_kernel_cpu" not implemented for \'{dt.torch_name}\'')
    if is_tensor(std):
        if is_tensor(mean):
            layout.broadcast_shapes(mean.shape, std.shape)
        if std.numel() and not bool((std._a >= 0).all()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(float(std))}")
    return dt


def _normal_fwd(xp, mean, std, out=None, dt=None):
    shape = layout.broadcast_shapes(xp.shape(mean), xp.shape(std))
    npd = dt.np if dt.np.itemsize >= 4 else "float32"
    if xp.__name__ == "numpy":  # (PyTorch: the result's normal_(0, 1), times std, plus mean)
        n = math.prod(shape)
        r = _gen(xp).normal(n, npd, 0.0, 1.0).reshape(shape).astype(dt.np, copy=False)
    else:
        r = _gen(xp).standard_normal(size=shape, dtype=npd).astype(dt.np, copy=False)
    r = r * xp.asarray(std, dtype=dt.np) + xp.asarray(mean, dtype=dt.np)
    r = xp.asarray(r, dtype=dt.np)
    if out is not None:
        out[...] = r
        return out
    return r


def _normal_bw(c, g):
    """Zero, shaped like each tensor argument: the draws do not depend on mean and std."""
    grads = []
    for i, meta in enumerate(c.input_meta):
        if meta is None or not c.needs_input_grad[i]:
            grads.append(None)
        else:
            grads.append(creation.zeros(meta[0], dtype=meta[1], device=meta[2]))
    return tuple(grads)


NORMAL = register(OpSpec(
    name="_normal_tensor", forward=_normal_fwd, backward=_normal_bw, args=("mean", "std"),
    dtype_rule=_normal_rule, node_name="NormalBackward3", method=False, function=False,
    doc="normal(mean, std) with a tensor mean and/or std (NormalBackward1/2/3)."))
_NORMAL_TS = overload(NORMAL, "NormalBackward1")  # tensor mean, number std
_NORMAL_ST = overload(NORMAL, "NormalBackward2")  # number mean, tensor std
NORMAL.select = lambda args, kw: (None if is_tensor(arg(args, kw, 1, "std")) else _NORMAL_TS) \
    if is_tensor(arg(args, kw, 0, "mean")) else _NORMAL_ST


def normal(mean=None, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """``torch.normal``: ``normal(mean, std)`` with a tensor mean and/or std (the result has
    their broadcast shape), or ``normal(mean, std, size)`` with two numbers."""
    if not is_tensor(mean) and not is_tensor(std):
        if size is None:
            raise TypeError(f"normal() received an invalid combination of arguments - got "
                            f"({type(mean).__name__}, {type(std).__name__}), but expected one of:\n"
                            " * (Tensor mean, Tensor std, *, torch.Generator generator = None, "
                            "Tensor out = None)\n * (Tensor mean, float std = 1, *, "
                            "torch.Generator generator = None, Tensor out = None)\n * (float mean,"
                            " Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                            " * (float mean, float std, tuple of ints size, *, torch.Generator "
                            "generator = None, Tensor out = None, torch.dtype dtype = None, "
                            "torch.layout layout = None, torch.device device = None, bool "
                            "pin_memory = False, bool requires_grad = False)\n")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(float(std))}")
        t = out if out is not None else creation.empty(tuple(size), dtype=dtype, device=device)
        from ..autograd import no_grad

        with no_grad():
            t.normal_(mean, std)
        if requires_grad:
            t.requires_grad_(True)
        return t
    kw = {} if out is None else {"out": out}
    return dispatch.call(NORMAL, (mean, std), kw)


register(OpSpec(name="_normal_front", forward=normal, kind="composite", aliases=("normal",),
                method=False, doc=normal.__doc__))
