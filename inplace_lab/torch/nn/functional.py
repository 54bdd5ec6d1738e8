"""``torch.nn.functional``: the op table's ops under the names PyTorch's functional module has.

``F.relu(x, inplace=True)`` is ``F.relu_(x)``: the ``inplace`` flag picks the op's
in-place form, as in PyTorch. In-place names exist only where PyTorch has them
(``relu_``, ``elu_``, ``leaky_relu_``, ``hardtanh_``, ``threshold_`` ...).
"""
from __future__ import annotations

from inplace_lab import facade as _facade
from inplace_lab.ops import dispatch as _dispatch

from .. import api_names as _api

# PyTorch's functional names whose table op has another name (none now: F.threshold is the
# table's own ``threshold`` op, ThresholdBackward0/1; thresholded_relu is Paddle's).
_RENAMES: dict = {}


def _functional(name, spec):
    def fn(input, *args, inplace=False, **kwargs):
        if inplace:
            return _facade.inplace_call(spec, (input,) + args, kwargs)
        return _dispatch.call(spec, (input,) + args, kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.nn.functional.{name}: the {spec.name!r} op (inplace=True: {spec.name}_)."
    return fn


def _inplace(name, spec):
    def fn_(input, *args, **kwargs):
        return _facade.inplace_call(spec, (input,) + args, kwargs)

    fn_.__name__ = fn_.__qualname__ = name
    fn_.__doc__ = f"torch.nn.functional.{name}: in-place {spec.name}."
    return fn_


def _export():
    """Hand-written functions of ``inplace_lab.nn.functional`` first (they carry PyTorch's
    signatures: conv2d, cross_entropy, dropout ...), then table ops under PyTorch's names."""
    from inplace_lab.nn import functional as _core

    g = globals()
    for name in list(_api.FUNCTIONAL_FUNCTIONS) + list(_api.FUNCTIONAL_INPLACE):
        if callable(getattr(_core, name, None)) and not name.startswith("_"):
            g[name] = getattr(_core, name)
    for name in _api.FUNCTIONAL_FUNCTIONS:
        if name in g:
            continue
        spec = _facade.resolve(name, _RENAMES)
        if spec is not None and spec.kind != "view":
            g[name] = _functional(name, spec)
    for name in _api.FUNCTIONAL_INPLACE:
        if name in g:
            continue
        spec = _facade.resolve(name, _RENAMES)
        if spec is not None and spec.inplace:
            g[name] = _inplace(name, spec)


_export()
