"""``torch.special``: PyTorch's special functions, with its names, dtypes and grad_fn nodes.

Functions PyTorch implements with another op keep that op's node (``expit`` records
SigmoidBackward0, ``psi`` DigammaBackward0, ``gammaln`` LgammaBackward0, ``round``
RoundBackward1, ``ndtr`` the MulBackward1 of its composite ``(1 + erf(x / sqrt 2)) * 0.5``);
the others are ``inplace_lab/ops/special_fns.py``'s table ops (SpecialEntrBackward0 ...).
Arguments are checked as PyTorch's argument parser checks them (a Python number where a
tensor is expected is a TypeError naming the ``special_<name>()`` overload).

>>> import inplace_lab.torch as torch
>>> torch.special.expit(torch.tensor([0.0], requires_grad=True)).grad_fn.name()
'SigmoidBackward0'
"""
from __future__ import annotations

import math as _math

import inplace_lab as _il
from inplace_lab import dtypes as _dtypes
from inplace_lab.ops import dispatch as _dispatch
from inplace_lab.ops.table import OPS as _OPS
from inplace_lab.tensor import Tensor as _Tensor

Tensor = _Tensor  # (torch.special.Tensor is torch.Tensor)

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
    "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
    "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
    "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax",
    "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py",
    "xlogy", "zeta"]


# ---- argument checks (PyTorch's Python argument parser) ---------------------------------------

def _type_name(v) -> str:
    return "NoneType" if v is None else type(v).__name__


def _tensor_arg(fn, v, pos=1, name="input"):
    if not isinstance(v, _Tensor):
        raise TypeError(f"special_{fn}(): argument '{name}' (position {pos}) must be Tensor, "
                        f"not {_type_name(v)}")


def _int_arg(fn, v, pos, name):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"special_{fn}(): argument '{name}' (position {pos}) must be int, "
                        f"not {_type_name(v)}")


def _is_number(v) -> bool:
    return isinstance(v, (int, float, complex)) or (
        isinstance(v, _Tensor) is False and hasattr(v, "dtype") and getattr(v, "shape", 1) == ())


def _label(v) -> str:
    return "Tensor" if isinstance(v, _Tensor) else _type_name(v)


def _combination_error(fn, names, args, kwargs=None):
    """PyTorch's TypeError for arguments none of the three overloads takes."""
    got = ", ".join([_label(a) for a in args] +
                    [f"{k}={_label(v)}" for k, v in (kwargs or {}).items()])
    first = "self" if names[0] == "input" else names[0]
    return TypeError(
        f"special_{fn}() received an invalid combination of arguments - got "
        f"({got}{', ' if kwargs else ''}), but expected one of:\n"
        f" * (Tensor {names[0]}, Tensor {names[1]}, *, Tensor out = None)\n"
        f" * (Number {first}, Tensor {names[1]}, *, Tensor out = None)\n"
        f" * (Tensor {names[0]}, Number {names[1]}, *, Tensor out = None)\n")


def _pair(fn, a, b, names=("input", "other")):
    """The three overloads (Tensor, Tensor), (Number, Tensor), (Tensor, Number)."""
    ta, tb = isinstance(a, _Tensor), isinstance(b, _Tensor)
    if not ((ta and (tb or _is_number(b))) or (tb and _is_number(a))):
        raise _combination_error(fn, names, (a, b))


def _parsed(fn):
    """PyTorch's argument-parser wording for a call the signature does not take: too many
    positional arguments, a missing one (a two-tensor function: no overload matches), an
    unknown keyword. ``fn`` is ``torch.special.<name>``'s Python signature."""
    import functools
    import inspect

    sig = inspect.signature(fn)
    name = "polygamma" if fn.__name__ == "_torch_polygamma" else f"special_{fn.__name__}"
    positional = [p.name for p in sig.parameters.values()
                  if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            sig.bind(*args, **kwargs)
        except TypeError:
            unknown = [k for k in kwargs if k not in sig.parameters]
            if len(args) > len(positional):
                n = len(positional)
                raise TypeError(f"{name}() takes {n} positional argument{'s' * (n != 1)} but "
                                f"{len(args)} were given") from None
            if unknown:
                raise TypeError(f"{name}() got an unexpected keyword argument "
                                f"'{unknown[0]}'") from None
            if positional[1:2] == ["other"]:
                raise _combination_error(fn.__name__, ("input", "other"), args, kwargs) from None
            missing = next(p for p in positional[len(args):] if p not in kwargs)
            raise TypeError(f'{name}() missing 1 required positional arguments: "{missing}"') \
                from None
        return fn(*args, **kwargs)

    return call


def _real_only(kernel, *args):
    """ATen's real-only kernels refuse complex inputs by their own name (``"erf_vml_cpu" not
    implemented for 'ComplexFloat'``); the table's kernels would fail inside scipy."""
    from inplace_lab.ops.elementwise import promote

    if any(isinstance(a, complex) or (isinstance(a, _Tensor) and a._dtype.category ==
                                      _dtypes.COMPLEX) for a in args):
        dt = promote([a for a in args if isinstance(a, (_Tensor, complex, float, int))])
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.torch_name}\'')


def _out(out):
    return {} if out is None else {"out": out}


def _table(name, *args, out=None, differentiable=True):
    """Call ``special_<name>`` of the op table. Non-differentiable ops take out= whatever
    their inputs require (PyTorch checks out= against autograd only for differentiable ops)."""
    spec = _OPS["special_" + name]
    if out is not None and not differentiable:
        args = tuple(a.detach() if isinstance(a, _Tensor) else a for a in args)
    return _dispatch.call(spec, args, _out(out))


# ---- the unary functions -------------------------------------------------------------------------

def _single(name, args, kwargs, argname="input"):
    """The one tensor argument of ``special_<name>(input, *, out=None)``, parsed as PyTorch's
    argument parser does (its wording for too many, missing and unknown arguments)."""
    if len(args) > 1:
        raise TypeError(f"special_{name}() takes 1 positional argument but {len(args)} were "
                        "given")
    if args:
        x = args[0]
    elif argname in kwargs:
        x = kwargs.pop(argname)
    else:
        raise TypeError(f'special_{name}() missing 1 required positional arguments: '
                        f'"{argname}"')
    if kwargs:
        raise TypeError(f"special_{name}() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")
    _tensor_arg(name, x, name=argname)
    return x


def _alias(name, target, kernel=None):
    """``torch.special.<name>(input, *, out=None)`` as ``inplace_lab.<target>`` (``kernel``:
    ATen's real-only kernel, named when a complex input is refused)."""

    def fn(*args, out=None, **kwargs):
        x = _single(name, args, kwargs)
        if kernel:
            _real_only(kernel, x)
        return getattr(_il, target)(x, **_out(out))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.special.{name}(input, *, out=None)``: ``torch.{target}``."
    return fn


def _own(name, differentiable=True, argname="input", kernel=None):
    """``torch.special.<name>(input, *, out=None)`` over the table's ``special_<name>``."""

    def fn(*args, out=None, **kwargs):
        x = _single(name, args, kwargs, argname)
        if kernel:
            _real_only(kernel, x)
        return _table(name, x, out=out, differentiable=differentiable)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.special.{name}({argname}, *, out=None)`` (special_{name})."
    return fn


digamma = _alias("digamma", "digamma", "digamma")
psi = _alias("psi", "digamma", "digamma")
erf = _alias("erf", "erf", "erf_vml_cpu")
erfc = _alias("erfc", "erfc", "erfc_vml_cpu")
erfinv = _alias("erfinv", "erfinv", "erfinv_vml_cpu")
exp2 = _alias("exp2", "exp2")
expit = _alias("expit", "sigmoid")
expm1 = _alias("expm1", "expm1")
gammaln = _alias("gammaln", "lgamma", "lgamma_vml_cpu")
i0 = _alias("i0", "i0", "i0_vml_cpu")
log1p = _alias("log1p", "log1p")
sinc = _alias("sinc", "sinc")

i1 = _own("i1", kernel="i1_cpu")  # (the table's special_i1, whose node is SpecialI1Backward0)
entr = _own("entr")
erfcx = _own("erfcx")
ndtri = _own("ndtri")
log_ndtr = _own("log_ndtr")
i0e = _own("i0e")
i1e = _own("i1e")
airy_ai = _own("airy_ai", differentiable=False, argname="x")
bessel_j0 = _own("bessel_j0", differentiable=False)
bessel_j1 = _own("bessel_j1", differentiable=False)
bessel_y0 = _own("bessel_y0", differentiable=False)
bessel_y1 = _own("bessel_y1", differentiable=False)
modified_bessel_i0 = _own("modified_bessel_i0", differentiable=False)
modified_bessel_i1 = _own("modified_bessel_i1", differentiable=False)
modified_bessel_k0 = _own("modified_bessel_k0", differentiable=False)
modified_bessel_k1 = _own("modified_bessel_k1", differentiable=False)
scaled_modified_bessel_k0 = _own("scaled_modified_bessel_k0", differentiable=False, argname="x")
scaled_modified_bessel_k1 = _own("scaled_modified_bessel_k1", differentiable=False, argname="x")
spherical_bessel_j0 = _own("spherical_bessel_j0", differentiable=False, argname="x")


def _scalar(name, t, number):
    """``at::mul(t, 0.5)`` in an ATen composite: the Scalar overload (MulBackward1 ...)."""
    from inplace_lab.ops.elementwise import SCALAR

    return _dispatch.call(SCALAR[name], (t, number), {})


@_parsed
def ndtr(input, *, out=None):
    """The standard normal CDF, PyTorch's composite ``(1 + erf(x * M_SQRT1_2)) * 0.5``
    (MulBackward1 over AddBackward1 over ErfBackward0); with ``out=`` a ``copy_`` into it."""
    _tensor_arg("ndtr", input)
    _real_only("erf_vml_cpu", input)
    r = _scalar("mul", _scalar("add", _scalar("mul", input, _math.sqrt(0.5)).erf(), 1), 0.5)
    if out is None:
        return r
    if not _dtypes.can_cast(r._dtype, out._dtype):
        raise RuntimeError(f"result type {r._dtype.torch_name} can't be cast to the desired "
                           f"output type {out._dtype.torch_name}")
    if out._shape != r._shape:
        _dispatch.resize_out(out, r._shape, stacklevel=3)
    return out.copy_(r)


@_parsed
def logit(input, eps=None, *, out=None):
    """``torch.special.logit``: ``torch.logit`` (LogitBackward0)."""
    _tensor_arg("logit", input)
    _real_only("logit_cpu", input)
    return _il.logit(input, eps=eps, **_out(out))


def round(*args, decimals=0, out=None, **kwargs):  # noqa: A001  (PyTorch's name)
    """``torch.special.round``: ``torch.round(input, decimals=decimals)`` (RoundBackward1:
    the ``round.decimals`` overload, whose kernels have no integer loops)."""
    input = _single("round", args, kwargs)
    _real_only("round_cpu" if decimals else "round_vml_cpu", input)
    if out is not None and out._dtype is not input._dtype:
        raise RuntimeError(f"Found dtype {out._dtype.torch_name} but expected "
                           f"{input._dtype.torch_name}")
    return _il.round(input, decimals=decimals, **_out(out))


def _polygamma(label, n, input, out):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{label}(): argument 'n' (position 1) must be int, not "
                        f"{'Tensor' if isinstance(n, _Tensor) else _type_name(n)}")
    if not isinstance(input, _Tensor):
        raise TypeError(f"{label}(): argument 'input' (position 2) must be Tensor, not "
                        f"{_type_name(input)}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    _real_only({0: "digamma", 1: "trigamma"}.get(n, "polygamma"), input)
    return _dispatch.call(_OPS["polygamma"], (input,), {"n": n, **_out(out)})


@_parsed
def polygamma(n, input, *, out=None):
    """``torch.special.polygamma(n, input)``: the n-th derivative of digamma."""
    return _polygamma("special_polygamma", n, input, out)


@_parsed
def _torch_polygamma(n, input, *, out=None):
    """``torch.polygamma(n, input)``: ``n`` first, as PyTorch's top-level function (the
    method is ``input.polygamma(n)``)."""
    return _polygamma("polygamma", n, input, out)


_torch_polygamma.__name__ = _torch_polygamma.__qualname__ = "polygamma"


@_parsed
def multigammaln(input, p, *, out=None):
    """``torch.special.multigammaln``: ``torch.mvlgamma`` (MvlgammaBackward0)."""
    _tensor_arg("multigammaln", input)
    _int_arg("multigammaln", p, 2, "p")
    if input._dtype.category == _dtypes.BOOL:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    _real_only("arange_cpu", input)  # (ATen's mvlgamma starts from arange(..., input's dtype))
    if out is not None:
        dt = input._dtype if input._dtype.category >= _dtypes.FLOAT else \
            _dtypes.get_default_dtype()
        if not _dtypes.can_cast(dt, out._dtype):  # (ATen's message names input's dtype first)
            raise RuntimeError(f"mvlgamma: result type {input._dtype.torch_name} can't be cast "
                               f"to the desired output type {dt.torch_name}")
    return _il.mvlgamma(input, p, **_out(out))


def _softmax_real_only(name, input, dim, dtype):
    """The softmax kernels have no complex loop (named by whether ``dim`` is the last)."""
    dt = dtype if dtype is not None else input._dtype
    if getattr(dt, "is_complex", False) and isinstance(dim, int) and input.dim() > 0:
        last = dim % input.dim() == input.dim() - 1
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.torch_name}\'')


@_parsed
def softmax(input, dim, dtype=None):
    """``torch.special.softmax``: ``torch.softmax`` (SoftmaxBackward0)."""
    _tensor_arg("softmax", input)
    _softmax_real_only("softmax", input, dim, dtype)
    return _il.softmax(input, dim, dtype=dtype)


@_parsed
def log_softmax(input, dim, *, dtype=None):
    """``torch.special.log_softmax``: ``torch.log_softmax`` (LogSoftmaxBackward0)."""
    _tensor_arg("log_softmax", input)
    _softmax_real_only("log_softmax", input, dim, dtype)
    return _il.log_softmax(input, dim, dtype=dtype)


@_parsed
def logsumexp(input, dim, keepdim=False, *, out=None):
    """``torch.special.logsumexp``: ``torch.logsumexp`` (LogsumexpBackward0)."""
    _tensor_arg("logsumexp", input)
    if out is not None and out._dtype.category < _dtypes.FLOAT:
        raise RuntimeError("logsumexp(): Expected floating point type for result tensor, but "
                           f"got: {out._dtype.torch_name}")
    return _il.logsumexp(input, dim, keepdim=keepdim, **_out(out))


# ---- two arguments ---------------------------------------------------------------------------

@_parsed
def xlogy(input, other, *, out=None):
    """``torch.special.xlogy``: ``torch.xlogy`` (XlogyBackward0/1/2 by overload)."""
    _pair("xlogy", input, other)
    _real_only("xlogy_cpu", input, other)
    return _il.xlogy(input, other, **_out(out))


@_parsed
def xlog1py(input, other, *, out=None):
    """``x * log1p(y)``, 0 where x == 0 (SpecialXlog1PyBackward0/1/2 by overload)."""
    _pair("xlog1py", input, other)
    return _table("xlog1py", input, other, out=out)


@_parsed
def zeta(input, other, *, out=None):
    """The Hurwitz zeta function (SpecialZetaBackward0/1/2; no derivative in ``input``)."""
    _pair("zeta", input, other)
    return _table("zeta", input, other, out=out)


@_parsed
def gammainc(input, other, *, out=None):
    """``torch.special.gammainc``: ``torch.igamma`` (IgammaBackward0; tensors only)."""
    _tensor_arg("gammainc", input)
    _tensor_arg("gammainc", other, pos=2, name="other")
    _real_only("igamma_cpu", input, other)
    return _il.igamma(input, other, **_out(out))


@_parsed
def gammaincc(input, other, *, out=None):
    """``torch.special.gammaincc``: ``torch.igammac`` (IgammacBackward0; tensors only)."""
    _tensor_arg("gammaincc", input)
    _tensor_arg("gammaincc", other, pos=2, name="other")
    _real_only("igammac_cpu", input, other)
    return _il.igammac(input, other, **_out(out))


def _polynomial(name):
    """``torch.special.<name>(input, n, *, out=None)``: no derivative, ``n`` truncated."""

    def fn(*args, out=None, **kwargs):
        names = ("x", "n")
        vals = list(args[:2]) + [kwargs[k] for k in names[len(args):] if k in kwargs]
        if len(args) > 2 or set(kwargs) - set(names[len(args):]) or len(vals) < 2:
            raise _combination_error(name, names, args, kwargs)
        _pair(name, vals[0], vals[1], names=names)
        return _table(name, vals[0], vals[1], out=out, differentiable=False)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.special.{name}(input, n, *, out=None)`` (no derivative)."
    return fn


for _n in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"):
    globals()[_n] = _polynomial(_n)
del _n
del annotations  # (dir(torch.special) lists its functions and Tensor, as PyTorch's)
