"""Run one case of ``paddle_cases.CASES`` on real paddle or on inplace_lab.paddle."""
from __future__ import annotations

import numpy as np

from .paddle_cases import CASES, T


def _build(lib, v):
    if isinstance(v, T):
        return v.make(lib)
    if isinstance(v, tuple) and v and isinstance(v[0], T):
        return tuple(_build(lib, w) for w in v)
    return v


def _names(lib):
    from inplace_lab.paddle import api_names

    return api_names


def run(lib, functional, name):
    """(outcome, details): outcome 'ok' with a summary of the written tensor, or 'error'."""
    api = _names(lib)
    target, args, kwargs, kind = CASES[name]
    x = target.make(lib)
    args = tuple(_build(lib, a) for a in args)
    try:
        if name in api.TENSOR_INPLACE:
            out = getattr(x, name)(*args, **kwargs)
        elif name in api.MODULE_INPLACE:
            out = getattr(lib, name)(x, *args, **kwargs)
        else:
            out = getattr(functional, name)(x, *args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the error itself is what is compared
        return "error", (type(e).__name__, str(e).split("\n")[0])
    written = {"where": lambda: args[0], "weight": lambda: args[0]}.get(kind, lambda: x)()
    return "ok", summary(written, out is written, kind)


def summary(t, same_object, kind):
    vals = np.array(t.numpy())
    info = {"same_object": same_object, "dtype": str(t.dtype).split(".")[-1],
            "shape": list(t.shape), "version": t.inplace_version}
    if kind != "random":
        info["values"] = vals
    else:
        info["finite"] = bool(np.isfinite(vals.astype(np.float64)).all())
    return info
