"""The softmax family: softmax, log_softmax, logsumexp (reductions along a dim).

These are the classic "saves its result" ops: softmax's backward is
``y * (g - sum(g * y))`` and log_softmax's is ``g - exp(y) * sum(g)``, both read only
the output ``y``. So ``y = x.softmax(0); y.add_(1)`` breaks backward (the saved
output moved to version 1) while modifying ``x`` afterwards does not.
logsumexp saves both its input and its result (``g * exp(x - result)``).

>>> import inplace_lab as il
>>> il.tensor([1.0, 2.0]).softmax(0).grad_fn is None
True
"""
from __future__ import annotations

from .. import dtypes, layout
from .reduction import dims_of, keep
from .table import OpSpec, register


def _softmax_dtype(kernel):
    """The result dtype; integers are refused by the kernel ATen picks: ``<kernel>_lastdim``
    along the last dim (or a 0-dim input), the strided one along any other."""
    def rule(spec, ins, params):
        dt = dtypes.from_any(params["dtype"]) if params.get("dtype") is not None else ins[0]._dtype
        if not (dt.is_floating_point or dt.is_complex):
            nd, d = ins[0].dim(), params.get("dim")
            last = d is None or not nd or d in (-1, nd - 1)
            name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
            raise NotImplementedError(f'"{name}" not implemented for \'{dt.torch_name}\'')
        return dt

    return rule


def _dim_required(who, dim, ndim):
    if dim is None:
        raise TypeError(f'{who}() missing 1 required positional arguments: "dim"')
    return layout.wrap_dim(dim, ndim) if ndim else None


def _softmax_fwd(log):
    def fwd(xp, a, out=None, dt=None, dim=None, dtype=None):
        d = _dim_required("log_softmax" if log else "softmax", dim, a.ndim)
        a = a.astype(dt.np, copy=False)
        if not a.size:  # (an empty input: an empty result of its shape, no max to take)
            return a.copy() if out is None else out
        shifted = a - xp.max(a, axis=d, keepdims=True)
        if log:
            return shifted - xp.log(xp.sum(xp.exp(shifted), axis=d, keepdims=True))
        e = xp.exp(shifted)
        return xp.divide(e, xp.sum(e, axis=d, keepdims=True), out=out)  # out: Paddle's softmax_

    return fwd


def _to_input_dtype(c, g):
    dt = c.input_meta[0][1]
    return g if g._dtype is dt else g.to(dt)


def _softmax_bw(c, g):
    y = c["result"]
    if not y.ndim:
        return _to_input_dtype(c, g * 0)
    return _to_input_dtype(c, y * (g - (g * y).sum(c["dim"], keepdim=True)))


def _log_softmax_bw(c, g):
    y = c["result"]
    if not y.ndim:
        return _to_input_dtype(c, g * 0)
    return _to_input_dtype(c, g - y.exp() * g.sum(c["dim"], keepdim=True))


register(OpSpec(name="softmax", forward=_softmax_fwd(False), backward=_softmax_bw,
                dtype_rule=_softmax_dtype("softmax"), params={"dim": None, "dtype": None},
                saves=("result",), inplace=True, torch_inplace=False, paddle_inplace=True,
                doc="softmax(input, dim, dtype=None): saves its result (Paddle has softmax_)."))
register(OpSpec(name="log_softmax", forward=_softmax_fwd(True), backward=_log_softmax_bw,
                dtype_rule=_softmax_dtype("log_softmax"),
                params={"dim": None, "dtype": None}, saves=("result",), node_name="LogSoftmaxBackward0",
                doc="log_softmax(input, dim, dtype=None): saves its result."))


def _logsumexp_fwd(xp, a, out=None, dt=None, dim=None, keepdim=False):
    if dim is None:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    axes = dims_of(dim, a.ndim)
    a = a.astype(dt.np, copy=False)
    if a.size == 0:
        return xp.log(xp.sum(xp.exp(a), axis=axes, keepdims=keepdim))
    m = xp.max(a, axis=axes, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    r = xp.log(xp.sum(xp.exp(a - m), axis=axes, keepdims=True)) + m
    return r if keepdim else r.reshape(tuple(n for i, n in enumerate(a.shape) if i not in axes))


def _logsumexp_bw(c, g):
    x, r = c["self"], c["result"]
    shape, dim, kd = c.input_meta[0][0], c["dim"], c["keepdim"]
    return keep(g, shape, dim, kd) * (x - keep(r, shape, dim, kd)).exp()


register(OpSpec(name="logsumexp", forward=_logsumexp_fwd, backward=_logsumexp_bw,
                dtype_rule="float", params={"dim": None, "keepdim": False},
                saves=("self", "result"), doc="logsumexp(input, dim, keepdim=False)"))
