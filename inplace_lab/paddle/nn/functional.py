"""``paddle.nn.functional``: table ops under Paddle's functional names and signatures.

Out-of-place and in-place forms (``relu``/``relu_``, ``hardtanh(x, min, max)``,
``softmax(x, axis)`` ...) exist where Paddle 3.3.1 has them and the op table has the op.
"""
from __future__ import annotations

from inplace_lab import facade as _facade
from inplace_lab.ops import dispatch as _dispatch

from .. import api_names as _api
from .. import inplace as _inplace


def _functional(name, spec):
    order = _api.FUNCTIONAL_ARGS.get(name)
    if order is not None:  # (Paddle's parameters differ from the op's)
        from ..tensor import paddle_signature

        fn = paddle_signature(name, spec, order, _api.FUNCTIONAL_DEFAULTS.get(name, {}))
        fn.__doc__ = f"paddle.nn.functional.{name}: the {spec.name!r} op."
        return fn
    sig_name = name + "_"

    def fn(x, *args, **kwargs):
        if sig_name in _api.SIGNATURES:
            return _dispatch.call(spec, (x,), _inplace.translate(spec, sig_name, args, kwargs))
        return _dispatch.call(spec, (x,) + args, {k: v for k, v in kwargs.items() if k != "name"})

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"paddle.nn.functional.{name}: the {spec.name!r} op."
    return fn


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` (Paddle's weight is [in_features, out_features])."""
    y = x.matmul(weight)
    return y + bias if bias is not None else y


# Paddle-signature functions, one file per family; the op table fills in the rest below.
from .functional_loss import *  # noqa: E402,F401,F403
from .functional_pool import *  # noqa: E402,F401,F403
from .functional_conv import *  # noqa: E402,F401,F403
from .functional_norm import *  # noqa: E402,F401,F403
from .functional_common import *  # noqa: E402,F401,F403
from .functional_pad import *  # noqa: E402,F401,F403
from .functional_activation import *  # noqa: E402,F401,F403
from .functional_vision import *  # noqa: E402,F401,F403
from .functional_extra import *  # noqa: E402,F401,F403
from .functional_misc import *  # noqa: E402,F401,F403


def _export():
    g = globals()
    for name in _api.FUNCTIONAL_FUNCTIONS:
        if name in g:
            continue
        spec = _facade.resolve(name, _inplace.RENAMES)
        if spec is not None and spec.kind != "view":
            g[name] = _functional(name, spec)
    for name in _api.FUNCTIONAL_INPLACE:
        g.setdefault(name, _inplace.adapter(name))


_export()
