"""The cost ladder of a small op: what each thing a tensor library must do per op costs in Python.

Section 1's target (the 8x8 chain at most 1.0x torch) was set from a 60-line prototype that
measured about 0.4x. The ladder rebuilds that prototype and adds, one rung at a time, the
work inplace_lab's op does for every result, each rung on the same ``workloads.chain``
program, so the gap between the prototype and the library is measured piece by piece
instead of argued. Every rung is a real (minimal) implementation of its piece, not a sleep:

1. ``prototype``: a slotted class holding the array and a grad_fn slot; ``a * b`` is the ufunc
   on the two arrays and a new object.
2. ``+ checks``: the lane's questions before the kernel (is it a tensor, one dtype whose rule
   the op answers, one device, one facade; a Python number's range) and after it (result
   dtype, C order, 0-dim), asked as inplace_lab asks them.
3. ``+ tensor fields``: the result carries what views and autograd read (shape, strides,
   offset, dtype, base, view meta, grad flags, facade), written as ``tensor.fresh`` writes them.
4. ``+ version counter``: an object shared with views, so an in-place write through any view
   is seen by all (PyTorch's VariableVersion).
5. ``+ storage with exact bytes``: a Storage object with an id, counted into live bytes and
   the peak at allocation and freed in ``__del__`` when the last tensor on it dies.

The last rung does the same work per op as inplace_lab's lane (hooks and recording checks
aside); the library's own figure is measured beside it.
"""
from __future__ import annotations

import itertools

import numpy as np

_mul, _add, _sub, _tanh = np.multiply, np.add, np.subtract, np.tanh
_new = object.__new__


class Proto:
    """Rung 1: the 60-line prototype's tensor."""

    __slots__ = ("a", "grad_fn")

    def __init__(self, a):
        self.a = a
        self.grad_fn = None

    def __mul__(self, o):
        return Proto(_mul(self.a, o.a))

    def __add__(self, o):
        return Proto(_add(self.a, o.a))

    def __sub__(self, o):
        return Proto(_sub(self.a, o.a))

    def tanh(self):
        return Proto(_tanh(self.a))


class _Dev:
    __slots__ = ("type", "key")

    def __init__(self):
        self.type, self.key = "cpu", "cpu"


class _DT:
    __slots__ = ("np", "category")

    def __init__(self):
        self.np, self.category = np.dtype(np.float32), 2


_CPU, _F32 = _Dev(), _DT()
_ndarray = np.ndarray


def _make_class(fields: bool, counter: bool, storage: bool):
    """A tensor class for rungs 2-5: the lane's checks always; the rest as asked."""

    class Checked:
        __slots__ = ("a", "grad_fn", "dt", "dev", "pol", "rg", "st", "shape", "strides",
                     "offset", "vc", "base", "nr", "vm")

        def _op2(self, o, ufn):
            if isinstance(self, Checked):
                dt = self.dt
                npd = _DTS.get(dt)
                dev = self.dev
                if npd and dev.type == "cpu":
                    oc = o.__class__
                    if oc is float or oc is int and -2**63 <= o < 2**64:
                        b = o
                    elif isinstance(o, Checked) and o.dt is dt and o.pol is self.pol and \
                            o.dev is dev:
                        b = o.a
                    else:
                        b = None
                    if b is not None:
                        r = ufn(self.a, b)
                        if r.dtype is npd and r.__class__ is _ndarray and r.ndim and \
                                r.flags.c_contiguous:
                            res = _result(r, dt, dev, self.pol)
                            if self.rg:
                                raise AssertionError("nothing records on the ladder")
                            return res
            raise TypeError("not on the ladder's path")

        def __mul__(self, o):
            return self._op2(o, _mul)

        def __add__(self, o):
            return self._op2(o, _add)

        def __sub__(self, o):
            return self._op2(o, _sub)

        def tanh(self):
            dt = self.dt
            npd = _DTS.get(dt)
            if npd and self.dev.type == "cpu":
                r = _tanh(self.a)
                if r.dtype is npd and r.__class__ is _ndarray and r.ndim and r.flags.c_contiguous:
                    return _result(r, dt, self.dev, self.pol)
            raise TypeError("not on the ladder's path")

    def _result(r, dt, dev, pol):
        t = _new(Checked)
        t.a = r
        t.grad_fn = None
        t.dt = dt
        t.dev = dev
        t.pol = pol
        t.rg = False
        if storage:
            st = t.st = _new(_Storage)
            st.data = r.ravel()
            st.dev = dev
            st.id = next(_ids)
            n = r.nbytes
            cur = _allocated[0] + n
            _allocated[0] = cur
            if cur > _allocated[1]:
                _allocated[1] = cur
        if fields:
            shape = t.shape = r.shape
            t.strides = _STRIDES.get(shape)
            t.offset = 0
            t.base = None
            t.nr = 0
            t.vm = None
        if counter:
            t.vc = _VC()
        return t

    def make(a):
        return _result(np.ascontiguousarray(a), _F32, _CPU, None)

    return make


_DTS = {_F32: _F32.np}
_STRIDES = {(8, 8): (8, 1)}
_ids = itertools.count(1)
_allocated = [0, 0]  # live bytes, peak


class _VC:
    __slots__ = ("version",)

    def __init__(self):
        self.version = 0


class _Storage:
    __slots__ = ("data", "dev", "id", "__weakref__", "__dict__")

    def __del__(self):
        _allocated[0] -= self.data.nbytes


RUNGS = (
    ("prototype", Proto),
    ("+ checks", _make_class(False, False, False)),
    ("+ tensor fields", _make_class(True, False, False)),
    ("+ version counter", _make_class(True, True, False)),
    ("+ storage with exact bytes", _make_class(True, True, True)),
)


def inputs(make, n: int = 8):
    """The chain's three operands (values as ``workloads.small_inputs``) for one rung."""
    return tuple(make(np.full((n, n), v, np.float32)) for v in (0.75, 0.5, 0.125))
