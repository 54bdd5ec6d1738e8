"""A numpy that behaves like cupy where the two differ, for the simulated GPU in tests.

Most sessions have no GPU, so the cupy half of the backend would go unchecked between the
rare runs on one. ``cupy_like`` stands in for cupy behind the simulated GPU
(``backend._simulated_xp``): the arrays are numpy's, but the module refuses what cupy
refuses and allocates as cupy allocates. What it copies (each one met on a real H200 with
cupy 14, tests/differential/device_sweep.py):

- ufuncs take no ``where=`` (cupy: ``TypeError: Wrong arguments {'where': ...}``);
- a ufunc's new result is C-contiguous whatever its inputs' layout (numpy follows them);
- ``ufunc.accumulate`` exists for add and multiply only (``NotImplementedError``);
- no ``errstate``; ``clip`` takes no ``dtype``/``casting``;
- ``add.at`` accumulates only 32/64-bit numbers and float16 (bool: ``TypeError``);
- ``sinc`` is left out: cupy's rounds otherwise than numpy's and torch's (sinc(2.0) is 0.0 in
  float32 where torch gives 2.78e-08), so the library must not call it.

It cannot copy the device boundary itself (a cupy function given a numpy array), nor the
order of duplicate-index writes: those need the real GPU.
"""
from __future__ import annotations

import contextlib
import types

import numpy as np

_ACCUMULATE = ("add", "multiply")
_ADD_AT = ("int32", "int64", "float16", "float32", "float64", "uint32", "uint64")


class _Ufunc:
    __slots__ = ("_f", "__name__")

    def __init__(self, f):
        self._f, self.__name__ = f, f.__name__

    def __call__(self, *args, **kw):
        if "where" in kw:
            raise TypeError(f"Wrong arguments {{'where': {kw['where']!r}}}")
        r = self._f(*args, **kw)
        if kw.get("out") is None:
            return tuple(_c_order(x) for x in r) if isinstance(r, tuple) else _c_order(r)
        return r

    def at(self, a, ix, vals=None):
        if self.__name__ == "add" and a.dtype.name not in _ADD_AT:
            raise TypeError("cupy.add.at only supports int32, int64, float16, float32, float64, "
                            "uint32, uint64 as data type")
        return self._f.at(a, ix, vals)

    def accumulate(self, a, axis=0, **kw):
        if self.__name__ not in _ACCUMULATE:
            raise NotImplementedError(f"`cupy_{self.__name__}.accumulate` is not supported yet")
        return _c_order(self._f.accumulate(a, axis=axis, **kw))

    def __getattr__(self, name):  # reduce, at, outer, nin, types ...
        return getattr(self._f, name)


def _c_order(x):
    if isinstance(x, np.ndarray) and x.ndim > 1 and not x.flags.c_contiguous:
        return np.ascontiguousarray(x)
    return x


def clip(a, a_min=None, a_max=None, out=None, **kw):
    if kw:
        raise TypeError(f"clip() got an unexpected keyword argument '{next(iter(kw))}'")
    return np.clip(a, a_min, a_max, out=out)


def _module():
    mod = types.ModuleType("cupy_like", __doc__)
    for name in dir(np):
        if name.startswith("__") or name in ("errstate", "sinc"):
            continue
        val = getattr(np, name)
        setattr(mod, name, _Ufunc(val) if isinstance(val, np.ufunc) else val)
    mod.clip = clip
    import scipy.special

    mod.special = scipy.special  # (cupyx.scipy.special's stand-in: backend.special_for)
    return mod


cupy_like = _module()


@contextlib.contextmanager
def simulated_cupy():
    """The simulated GPU on, backed by ``cupy_like``, for the block (then as it was)."""
    from inplace_lab import backend

    old = backend._simulated, backend._simulated_xp
    backend.set_simulated_gpu(True)
    backend._simulated_xp = cupy_like
    try:
        yield cupy_like
    finally:
        backend._simulated, backend._simulated_xp = old


@contextlib.contextmanager
def any_gpu():
    """The real GPU where there is one, else the simulated one backed by cupy_like (the
    fixture of the GPU-path tests)."""
    from inplace_lab import backend

    if backend.gpu_count() and not backend.simulated_gpu():
        yield None
        return
    with simulated_cupy() as xp:
        yield xp
