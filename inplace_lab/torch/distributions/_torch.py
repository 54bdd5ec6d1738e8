"""The ``torch`` the vendored distribution modules import: the inplace_lab.torch facade, plus
the few names PyTorch's distributions use that the facade does not export (yet).

Every attribute not defined here is looked up on ``inplace_lab.torch`` at use time, so an op
that lands in the facade later (``torch.linalg.solve_triangular``, ``torch.special``) is
used as soon as it exists; the fallbacks below are compositions of the facade's own
differentiable ops (values as torch's; grad_fn names may differ) or, for the samplers
``_standard_gamma``/``_sample_dirichlet``, torch's own gamma draws (``rng.standard_gamma``).
"""
from __future__ import annotations

import math
import types
import warnings
from typing import Union

import inplace_lab.torch as _t
from inplace_lab import backend as _backend
from inplace_lab.autograd.function import Function as _Function, once_differentiable  # noqa: F401
from inplace_lab.tensor import Tensor

_np = _backend.np  # (the samplers' host-side arithmetic; backend.py owns numpy)

SymInt = int
nan = math.nan
inf = math.inf
_Number = (int, float, bool)
Number = Union[int, float, bool]
_size = Union[tuple, list]
_dtype = object
Device = object


def is_tensor_like(x) -> bool:
    return isinstance(x, Tensor)


def _infer_size(a, b):
    return _t.Size(_t.broadcast_shapes(a, b))


_C = types.SimpleNamespace(_get_tracing_state=lambda: None, _infer_size=_infer_size)
jit = types.SimpleNamespace(script_if_tracing=lambda fn: fn)


def _is_all_true(t):
    return t.all()


def __getattr__(name):
    return getattr(_t, name)


# ---- torch.linalg: the facade's, else a fallback -----------------------------------------------

def _linalg_solve_module():
    try:
        from inplace_lab.ops import linalg_solve
    except ImportError:  # pragma: no cover
        return None
    return linalg_solve


def _facade_linalg(name):
    try:
        return getattr(_t.linalg, name)
    except AttributeError:
        pass
    mod = _linalg_solve_module()
    fn = getattr(mod, "linalg_" + name, None) if mod is not None else None
    return fn


def _cholesky(A, *, upper=False, out=None):
    fn = _facade_linalg("cholesky")
    if fn is not None:
        return fn(A, upper=upper)
    with warnings.catch_warnings():  # (torch.cholesky's deprecation: not the user's call)
        warnings.simplefilter("ignore")
        return _t.cholesky(A, upper=upper)


def _cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    fn = _facade_linalg("cholesky_ex")
    if fn is not None:
        return fn(A, upper=upper, check_errors=check_errors)
    # info: 0 where every leading minor is positive-definite (the batch is checked on numpy)
    a = _np_of(A).astype(_np.float64)
    n = a.shape[-1]
    flat = a.reshape(-1, n, n)
    info = _np.zeros(flat.shape[0], dtype=_np.int32)
    for i, m in enumerate(flat):
        for k in range(1, n + 1):
            try:
                _np.linalg.cholesky(m[:k, :k])
            except _np.linalg.LinAlgError:
                info[i] = k
                break
    info_t = _t.tensor(info.reshape(a.shape[:-2]), dtype=_t.int32, device=A.device)
    L = _t.zeros_like(A)
    if not info.any():
        L = _cholesky(A, upper=upper)
    return types.SimpleNamespace(L=L, info=info_t)


def _solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    fn = _facade_linalg("solve_triangular")
    if fn is not None:
        return fn(A, B, upper=upper, left=left, unitriangular=unitriangular)
    A = A.triu() if upper else A.tril()
    if unitriangular:
        n = A.shape[-1]
        eye = _t.eye(n, dtype=A.dtype)
        A = A * (1 - eye) + eye
    inv = _t.linalg.inv(A)
    return inv @ B if left else B @ inv


def _eigvalsh(A, UPLO="L", *, out=None):
    fn = _facade_linalg("eigvalsh")
    if fn is not None:
        return fn(A, UPLO=UPLO)
    return _like(_np.linalg.eigvalsh(_np_of(A), UPLO=UPLO), A)


class _Namespace(types.ModuleType):
    """A module whose names come from ``primary`` (the facade's) before the fallbacks."""

    def __init__(self, name, primary, fallbacks):
        super().__init__(name)
        self._primary = primary
        self._fallbacks = fallbacks

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        primary = self._primary()
        if primary is not None:
            try:
                return getattr(primary, name)
            except AttributeError:
                pass
        try:
            return self._fallbacks[name]
        except KeyError:
            raise AttributeError(
                f"module 'torch.{self.__name__}' has no attribute '{name}'") from None


linalg = _Namespace("linalg", lambda: None, {
    "cholesky": _cholesky, "cholesky_ex": _cholesky_ex, "solve_triangular": _solve_triangular,
    "eigvalsh": _eigvalsh,
})
linalg._fallbacks.update({k: (lambda k: lambda *a, **kw: getattr(_t.linalg, k)(*a, **kw))(k)
                          for k in ("norm", "slogdet", "inv", "det", "vector_norm")})


def _ndtri(p):
    return math.sqrt(2.0) * _t.erfinv(2 * p - 1)


def _facade_special():
    try:
        return _t.special
    except AttributeError:
        return None


special = _Namespace("special", _facade_special, {
    "xlogy": lambda a, b: _t.xlogy(a, b), "expm1": lambda x: _t.expm1(x),
    "gammainc": lambda a, x: _t.igamma(a, x), "gammaincc": lambda a, x: _t.igammac(a, x),
    "i0": lambda x: _t.i0(x), "ndtri": _ndtri, "erfinv": lambda x: _t.erfinv(x),
    "log1p": lambda x: _t.log1p(x), "digamma": lambda x: _t.digamma(x),
    "gammaln": lambda x: _t.lgamma(x), "logit": lambda x, eps=None: _t.logit(x, eps),
})


# ---- gamma and Dirichlet draws (the library's seeded generator) -------------------------------

def _np_of(t):
    return _np.asarray(_backend.to_numpy(t.detach()._a))


def _like(arr, t):
    """``arr`` (numpy) as a tensor of t's dtype on t's device."""
    return _t.tensor(_np.asarray(arr).astype(_np_dtype(t)), dtype=t.dtype, device=t.device)


def _standard_gamma_grad(alpha, x):
    """d x / d alpha of a standard gamma draw (implicit reparameterisation, torch's
    ``_standard_gamma_grad``): -(dF/dalpha) / (dF/dx) with F the regularised lower
    incomplete gamma function."""
    sp = _backend.special()

    a = _np_of(alpha).astype(_np.float64)
    v = _np_of(x).astype(_np.float64)
    a, v = _np.broadcast_arrays(a, v)
    h = 1e-4 * _np.maximum(a, 1.0)
    h = _np.minimum(h, 0.5 * a)
    dF_da = (sp.gammainc(a + h, v) - sp.gammainc(a - h, v)) / (2 * h)
    log_pdf = (a - 1) * _np.log(_np.maximum(v, 1e-300)) - v - sp.gammaln(a)
    with _np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        g = -dF_da / _np.exp(log_pdf)
    g = _np.where(_np.isfinite(g), g, 0.0)
    return _like(g, alpha)


def _np_dtype(t):
    return {"float64": _np.float64, "float16": _np.float16}.get(str(t.dtype).replace("torch.", ""),
                                                               _np.float32)


class _StandardGamma(_Function):
    @staticmethod
    def forward(ctx, alpha):
        a = _np_of(alpha)
        out = _like(_np.maximum(_draw_gamma(a), _np.finfo(_np_dtype(alpha)).tiny), alpha)
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        alpha, out = ctx.saved_tensors
        return grad * _standard_gamma_grad(alpha, out)


_StandardGamma._backward_cls.__name__ = "StandardGammaBackward0"
_StandardGamma._backward_cls.__qualname__ = "StandardGammaBackward0"


def _standard_gamma(alpha, generator=None):
    """``torch._standard_gamma``: one Gamma(alpha, 1) draw per element (StandardGammaBackward0)."""
    return _StandardGamma.apply(alpha)


def _draw_gamma(a):
    """torch's gamma draws (rng.standard_gamma) for the host array ``a`` (``_np_of``'s)."""
    from inplace_lab import creation

    return creation.cpu_generator().standard_gamma(a).reshape(a.shape)


def _sample_dirichlet(alpha, generator=None):
    a = _np_of(alpha).astype(_np.float64)  # (torch: the gamma draws in float64)
    g = _draw_gamma(a)
    g = _np.maximum(g, _np.finfo(_np_dtype(alpha)).tiny)
    x = g / g.sum(-1, keepdims=True)
    return _like(x, alpha)


def _dirichlet_grad(x, alpha, total):
    """torch's ``_dirichlet_grad``: the scaled reparameterised gradient of a Beta(alpha,
    total - alpha) draw x, ``-(d/dalpha cdf(x; alpha, beta)) / pdf(x; alpha, beta) / (1 - x)``
    (beta held fixed; the derivative by a central difference in float64)."""
    sp = _backend.special()

    xv = _np_of(x).astype(_np.float64)
    a = _np_of(alpha).astype(_np.float64)
    tot = _np_of(total).astype(_np.float64)
    xv, a, tot = _np.broadcast_arrays(xv, a, tot)
    b = tot - a
    h = 1e-5 * _np.minimum(a, 1.0)
    with _np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        dF = (sp.betainc(a + h, b, xv) - sp.betainc(a - h, b, xv)) / (2 * h)
        log_pdf = (a - 1) * _np.log(xv) + (b - 1) * _np.log1p(-xv) - sp.betaln(a, b)
        g = -dF / _np.exp(log_pdf) / (1 - xv)
    g = _np.where(_np.isfinite(g), g, 0.0)
    return _like(g, x)
