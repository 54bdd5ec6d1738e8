"""PyTorch's Python argument parser, for the convolution and pooling builtins: which values
it refuses and its words (``TypeError``), before any data is touched.

``F.conv2d`` and friends are C++ builtins in torch; a float padding (``padding=k / 2``)
never reaches ATen but stops in the parser:

- a builtin with one signature (``conv_transpose2d``, ``avg_pool2d``): ``argument 'padding'
  must be tuple of ints, not float`` (keyword) or ``argument 'padding' (position 5) must be
  tuple of ints, but found element of type float at pos 0`` (positional);
- one with several (``conv1d/2d/3d``: numeric or string padding): ``conv2d() received an
  invalid combination of arguments - got (...), but expected one of: ...`` with the
  signatures, and, when the number of arguments fits, the legacy matcher's (odd, but
  torch's) marks of which arguments did not match;
- an int list whose first element is an int passes the type check and fails while being
  unpacked: ``argument 'padding' failed to unpack the object at pos 2 with error "type must
  be tuple of ints,but got float"``.

``parsed(name, signature...)`` wraps a functional with these checks; the wrapped function
keeps its name, docstring and signature (``functools.wraps``).
"""
from __future__ import annotations

import functools
import numbers

__all__ = ["parsed", "CONV_SIGNATURES", "conv_transpose_params", "pool_params"]

TENSOR, OPT_TENSOR, INTS, INT, STR = "Tensor", "Tensor?", "tuple of ints", "int", "str"
OPT_INTS = "tuple of ints?"  # (a pool's stride: None is the kernel size)
BOOL, OPT_INT = "bool", "int?"


def _type_name(v) -> str:
    t = type(v)
    if t.__module__ not in ("builtins",) and t.__name__ == "ndarray":
        return "numpy.ndarray"
    return t.__name__


def _is_tensor(v) -> bool:
    from ..tensor import Tensor

    return isinstance(v, Tensor)


def _is_int(v) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, numbers.Integral):
        return True
    return _is_tensor(v) and v.ndim == 0 and not v.is_floating_point() and \
        not v.is_complex() and v._dtype.name != "bool"


def _check(kind, v):
    """(passes the parser's type check, index and type of the first element that fails to
    unpack afterwards, or None)."""
    if kind == TENSOR:
        return _is_tensor(v), None
    if kind == OPT_TENSOR:
        return v is None or _is_tensor(v), None
    if kind == INT:
        return _is_int(v), None
    if kind == STR:
        return isinstance(v, str), None
    if kind in (OPT_INTS, OPT_INT) and v is None:
        return True, None
    if kind == OPT_INT:
        return _is_int(v), None
    if kind == BOOL:
        return isinstance(v, bool), None
    if _is_int(v):
        return True, None
    if isinstance(v, (tuple, list)):
        if not v:
            return True, None
        if not _is_int(v[0]):
            return False, (0, _type_name(v[0]))
        for i, e in enumerate(v):
            if not _is_int(e):
                return True, (i, _type_name(e))
        return True, None
    return False, None


_MISSING = object()


def _as_int(v):
    """An int argument as a Python int (a 0-d integer tensor is one to the parser)."""
    if _is_tensor(v):
        return int(v.item())
    if isinstance(v, (tuple, list)) and any(_is_tensor(e) for e in v):
        return type(v)(int(e.item()) if _is_tensor(e) else e for e in v)
    return v


def _unpack_error(fn, name, bad):
    i, t = bad
    return TypeError(f"{fn}(): argument '{name}' failed to unpack the object at pos {i + 1} with "
                     f"error \"type must be tuple of ints,but got {t}\"")


def _single(fn, params, args, kwargs):
    """One signature: the first argument (in the signature's order) that fails."""
    names = [n for n, _ in params]
    for k in kwargs:
        if k not in names:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{k}'")
    if len(args) > len(params):
        raise TypeError(f"{fn}() takes from {sum(1 for _, k in params if k == TENSOR)} to "
                        f"{len(params)} positional arguments but {len(args)} were given")
    late = None
    for pos, (name, kind) in enumerate(params):
        if pos < len(args):
            v, where = args[pos], f" (position {pos + 1})"
        elif name in kwargs:
            v, where = kwargs[name], ""
        else:
            continue
        if v is _MISSING:
            continue
        ok, bad = _check(kind, v)
        if ok:
            late = late or (bad and (name, bad))
            continue
        if where and bad is not None:
            raise TypeError(f"{fn}(): argument '{name}'{where} must be {kind.rstrip('?')}, but "
                            f"found element of type {bad[1]} at pos {bad[0]}")
        raise TypeError(f"{fn}(): argument '{name}'{where} must be {kind.rstrip('?')}, not "
                        f"{_type_name(v)}")
    if late:
        raise _unpack_error(fn, *late)


# ---- conv1d/2d/3d: two signatures (numeric or string padding) ----------------------------------

_CONV = [("input", TENSOR), ("weight", TENSOR), ("bias", OPT_TENSOR), ("stride", INTS),
         ("padding", INTS), ("dilation", INTS), ("groups", INT)]
CONV_SIGNATURES = (
    "(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints "
    "padding = 0, tuple of ints dilation = 1, int groups = 1)",
    "(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "
    "\"valid\", tuple of ints dilation = 1, int groups = 1)")


def _describe(v) -> str:
    """The legacy matcher's description of an argument: ``tuple of (int, float)``."""
    if isinstance(v, tuple):
        return "tuple of (" + ", ".join(_type_name(e) for e in v) + ("," if len(v) == 1 else "") \
            + ")"
    if isinstance(v, list):
        return "list of [" + ", ".join(_type_name(e) for e in v) + "]"
    return _type_name(v)


def _conv_overloads(fn, args, kwargs):
    names = [n for n, _ in _CONV]
    values = dict(zip(names, args))
    unknown = [k for k in kwargs if k not in names or k in values]
    values.update((k, v) for k, v in kwargs.items() if k in names)
    matched = None
    if len(args) <= len(_CONV) and not unknown and "input" in values and "weight" in values:
        for padding_kind in (INTS, STR):
            kinds = dict(_CONV, padding=padding_kind)
            checks = {n: _check(kinds[n], v) for n, v in values.items()}
            if all(ok for ok, _ in checks.values()):
                matched = checks
                break
    if matched is not None:
        for name in names:
            if name in matched and matched[name][1] is not None:
                raise _unpack_error(fn, name, matched[name][1])
        return
    kw = list(reversed(list(kwargs.items())))  # (the order torch's message shows them in)
    got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kw])
    if kw and not args:  # (torch's message keeps the last separator then)
        got += ", "
    msg = f"{fn}() received an invalid combination of arguments - got ({got}), but expected " \
          "one of:\n"
    fits = len(args) + len(kwargs) == len(_CONV)
    for sig in CONV_SIGNATURES:
        msg += f" * {sig}\n"
        if not fits:
            continue
        if kwargs:
            msg += "      didn't match because some of the keywords were incorrect: " + \
                ", ".join(k for k, _ in kw) + "\n"
        else:
            marks = [_describe(a) if i < 2 and _describe(a) == "Tensor" else f"!{_describe(a)}!"
                     for i, a in enumerate(args)]
            msg += "      didn't match because some of the arguments have invalid types: (" + \
                ", ".join(marks) + ")\n"
    raise TypeError(msg)


def conv_transpose_params():
    return [("input", TENSOR), ("weight", TENSOR), ("bias", OPT_TENSOR), ("stride", INTS),
            ("padding", INTS), ("output_padding", INTS), ("groups", INT), ("dilation", INTS)]


def pool_params(avg, divisor=True):
    """A pool builtin's signature: ``avg`` ``(input, kernel_size, stride, padding, ceil_mode,
    count_include_pad[, divisor_override])``, max ``(input, kernel_size, stride, padding,
    dilation, ceil_mode)``."""
    lead = [("input", TENSOR), ("kernel_size", INTS), ("stride", OPT_INTS), ("padding", INTS)]
    if avg:
        return lead + [("ceil_mode", BOOL), ("count_include_pad", BOOL)] + \
            ([("divisor_override", OPT_INT)] if divisor else [])
    return lead + [("dilation", INTS), ("ceil_mode", BOOL)]


def check_int_list(fn, name, pos, v):
    """A builtin's int-list argument given by position (``output_size`` of the adaptive
    pools, after torch's Python front end has filled its Nones)."""
    ok, bad = _check(INTS, v)
    if not ok:
        if bad is not None:
            raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be tuple of ints, "
                            f"but found element of type {bad[1]} at pos {bad[0]}")
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be tuple of ints, not "
                        f"{_type_name(v)}")
    if bad is not None:
        raise _unpack_error(fn, name, bad)


def parsed(fn, params=None, positional=False):
    """Wrap a functional with the parser's checks of the builtin ``fn``: ``params`` is its
    one signature (None: the convolutions' two). ``positional``: torch's Python front end
    passes every argument by position (``F.max_pool2d`` calls ``torch.max_pool2d(input,
    kernel_size, stride, ...)``), so the messages always name a position."""
    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if params is None:
                _conv_overloads(fn, args, kwargs)
            elif positional:
                names = [n for n, _ in params]
                given = list(args[:len(names)])
                given += [kwargs.get(n, _MISSING) for n in names[len(given):]]
                indices = args[6] if len(args) > 6 else kwargs.get("return_indices", False)
                for k in kwargs:  # (torch's boolean_dispatch: _max_pool2d or ..._with_indices)
                    if k not in names + ["ceil_mode", "return_indices"]:
                        raise TypeError(f"{fn}_with_indices() got an unexpected keyword argument "
                                        f"'{k}'" if indices else
                                        f"_{fn}() got an unexpected keyword argument '{k}'")
                _single(fn + "_with_indices" if indices else fn, params, tuple(given), {})
            else:
                _single(fn, params, args[:len(params)],
                        {k: v for k, v in kwargs.items() if k in dict(params)})
            kinds = dict(_CONV if params is None else params)
            args = tuple(_as_int(v) if kinds.get(n) in (INT, INTS, OPT_INTS, OPT_INT) else v
                         for n, v in zip(list(kinds), args)) + args[len(kinds):]
            kwargs = {k: _as_int(v) if kinds.get(k) in (INT, INTS, OPT_INTS, OPT_INT) else v
                      for k, v in kwargs.items()}
            return f(*args, **kwargs)
        return wrapper
    return deco
