"""Paddle 3.3.1's kernels on integer and bool tensors where they differ from PyTorch's.

* ``scale``: the kernel casts ``scale`` and ``bias`` to x's type first (``static_cast<T>``):
  an integer x gets them truncated toward zero (``scale(x, 2.5, 1.7)`` is ``x * 2 + 1``),
  a bool x gets ``bool(scale)``, ``bool(bias)``; the result keeps x's dtype (0-D too).
* ``frac``: Python-side ``x - trunc(x)``, allowed for int32, int64, float16, float32, float64
  (an integer x gives zeros of its dtype; float16 then reaches ``trunc``, not registered for
  it); any other dtype is Paddle's TypeError.
* ``exp``/``log``/``log1p``/``log2``/``log10``/``expm1`` of int32/int64: float32, correctly
  rounded (Paddle's integer kernels), where the float32 kernels may be an ulp off.
* ``neg`` (and ``-x``) of a bool tensor: Paddle's ``scale(x, -1)``: ``bool(-1)`` is true, so
  the values are unchanged; of a float one, no negative zeros (``-0.0 + 0.0``).

``install`` wraps the facade's functions and Tensor methods (the originals answer every other
dtype); the in-place forms (``scale_``, ``frac_``, ``neg_``) are ``paddle.inplace`` handlers
that call ``int_args``/``frac_check`` here.
"""
from __future__ import annotations

from inplace_lab import dtypes, policy
from inplace_lab.tensor import Tensor as _Core

# Float math whose Paddle kernel is registered for int32/int64 and gives float32 (correctly
# rounded: computed here in double), out of place and (``paddle.inplace``) in place.
INT_FLOAT_KERNELS = ("exp", "log", "log1p", "log2", "log10", "expm1")
_FRAC_DTYPES = ("int32", "int64", "float32", "float64", "float16")


def _is_float(x) -> bool:
    return x._dtype.is_floating_point or x._dtype.is_complex


def int_args(x, scale, bias):
    """``scale`` and ``bias`` as Paddle's scale kernel reads them for x's dtype."""
    if _is_float(x):
        return scale, bias
    if isinstance(scale, _Core):
        scale = scale.item()
    if isinstance(bias, _Core):
        bias = bias.item()
    conv = bool if x._dtype is dtypes.bool_ else int  # (int(): C++'s truncation toward zero)
    return conv(scale), conv(bias)


def scale_int(x, scale, bias, bias_after_scale):
    """An integer/bool x scaled by Paddle's kernel: x's dtype, wrapped as C++ arithmetic."""
    from inplace_lab import backend

    s, b = int_args(x, scale, bias)
    xp = backend.xp_of(x.device)
    a = x._a
    if x._dtype is dtypes.bool_:
        r = (a & s) | b if bias_after_scale else (a | b) & s
    else:
        wide = a.astype(xp.int64)
        r = wide * s + b if bias_after_scale else (wide + b) * s
        r = r.astype(a.dtype)  # (two's complement wrap, as the C++ kernel's T arithmetic)
    return xp.asarray(r, dtype=a.dtype).reshape(tuple(x.shape)).copy()


def _wrap_tensor(x, arr):
    from inplace_lab import creation

    from .creation import _own

    return _own(creation.tensor(arr, dtype=x._dtype, device=x.device))


def frac_check(x) -> None:
    """Paddle's ``frac`` dtype check (its Python wrapper), then the kernels' (float16: trunc)."""
    dt = x._dtype.name
    if dt not in _FRAC_DTYPES:
        raise TypeError(f"The data type of input must be one of {list(_FRAC_DTYPES)}, but got "
                        f"paddle.{dt}")
    if dt == "float16":
        raise policy.paddle_kernel_error("trunc", dt, policy.PADDLE_KERNELS["trunc"][1],
                                         "CPU" if x._storage.device.type == "cpu" else "GPU")


def check_gammaln(x) -> None:
    """``paddle.gammaln`` is its own kernel (not lgamma's), float only, with no Python-side
    cast of integers: any other dtype is its kernel refusal."""
    if x._dtype.name not in ("float32", "float64"):
        raise policy.paddle_kernel_error("gammaln", x._dtype.name, "float64, float32",
                                         "CPU" if x._storage.device.type == "cpu" else "GPU")


def no_negative_zero(r) -> None:
    """Paddle's neg is ``scale(x, -1.0, bias=0.0)``: ``-0.0 + 0.0`` is ``+0.0``, so its zeros
    print unsigned. (In r's fresh buffer: nothing saved or versioned changes.)"""
    a = r._a
    a[a == 0] = 0


def check_nan_to_num(x) -> None:
    """``paddle.nan_to_num``'s Python assert: float32 and float64 only (a bare AssertionError)."""
    if x._dtype.name not in ("float32", "float64"):
        raise AssertionError()


def install(g: dict, tensor_cls) -> None:
    """Wrap ``paddle.scale/frac/neg`` (in ``g``) and the matching Tensor methods."""
    cc = policy.core_calls

    def wrap_scale(orig):
        def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
            if cc[0] or not isinstance(x, _Core) or _is_float(x):
                return orig(x, scale, bias, bias_after_scale, act) if act is not None else \
                    orig(x, scale, bias, bias_after_scale)
            return _wrap_tensor(x, scale_int(x, scale, bias, bias_after_scale))
        scale.__doc__ = __doc__
        return scale

    def wrap_frac(orig):
        def frac(x, name=None):
            if cc[0] or not isinstance(x, _Core):
                return orig(x)
            frac_check(x)
            if _is_float(x):
                return orig(x)
            from inplace_lab import backend

            return _wrap_tensor(x, backend.xp_of(x.device).zeros(tuple(x.shape), x._a.dtype))
        return frac

    def wrap_neg(orig):
        def neg(x, *args, **kwargs):
            if not cc[0] and isinstance(x, _Core) and x._dtype is dtypes.bool_:
                return _wrap_tensor(x, x._a.copy())
            r = orig(x, *args, **kwargs)
            if not cc[0] and isinstance(r, _Core) and r._dtype.is_floating_point:
                no_negative_zero(r)
            return r
        return neg

    def wrap_int_float(orig):
        def f(x, *args, **kwargs):
            if cc[0] or not isinstance(x, _Core) or x._dtype.name not in ("int32", "int64"):
                return orig(x, *args, **kwargs)
            from inplace_lab.autograd import grad_mode

            import numpy as np

            with grad_mode.no_grad(), np.errstate(over="ignore"):  # (in double, rounded once:
                r = orig(_Core.to(x, dtypes.float64), *args, **kwargs)  # Paddle's float32)
                return _Core.to(r, dtypes.float32)
        f.__name__ = f.__qualname__ = getattr(orig, "__name__", "f")
        f.__doc__ = orig.__doc__
        return f

    def wrap_gammaln(orig):
        def gammaln(x, *args, **kwargs):
            if not cc[0] and isinstance(x, _Core):
                check_gammaln(x)
            return orig(x, *args, **kwargs)
        return gammaln

    def wrap_nan_to_num(orig):
        def nan_to_num(x, *args, **kwargs):
            if not cc[0] and isinstance(x, _Core):
                check_nan_to_num(x)
            return orig(x, *args, **kwargs)
        return nan_to_num

    wraps = [("scale", wrap_scale), ("frac", wrap_frac), ("neg", wrap_neg),
             ("gammaln", wrap_gammaln), ("nan_to_num", wrap_nan_to_num)]
    wraps += [(n, wrap_int_float) for n in INT_FLOAT_KERNELS]
    for name, wrap in wraps:
        if name in g:
            g[name] = wrap(g[name])
        meth = tensor_cls.__dict__.get(name) or getattr(tensor_cls, name)
        setattr(tensor_cls, name, wrap(meth))
    tensor_cls.__neg__ = wrap_neg(tensor_cls.__neg__)
