"""dtype objects and PyTorch's type-promotion rules.

A dtype here is a small immutable object named like PyTorch's (``float32``,
``int64``...). It knows the numpy dtype that backs it and its *category*
(bool < integer < floating < complex), which is what promotion works on.

Promotion follows c10's ``ResultTypeState``: operands fall in three tiers,
dimensioned tensors, zero-dim tensors and wrapped Python numbers. A lower tier
only wins when it is of a higher category, so ``int32_tensor + 1.5`` is the
default float dtype (float32), not float64 as numpy would say.

>>> result_type_of([int32], [], [1.5]).name
'float32'

Each framework facade shows its own dtype objects: a tensor of
``inplace_lab.torch`` says ``torch.float32``, one of ``inplace_lab.paddle`` says
``paddle.float32``. Those are singletons of small subclasses (``TorchDtype``,
``PaddleDtype``) that only print differently; each knows its core dtype
(``d._core``) and the core only ever stores and compares core dtypes
(``Tensor._dtype``, ``from_any`` at every entry), so its ``is`` checks stay valid.

>>> FACADE["pytorch"]["float32"], str(FACADE["paddle"]["float32"])
(torch.float32, 'paddle.float32')
"""
from __future__ import annotations

import numpy as np

BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type (``inplace_lab.float32`` ...)."""

    __slots__ = ("name", "np", "itemsize", "category", "torch_name", "paddle_name", "_core",
                 "_facades")

    def __init__(self, name: str, np_dtype, category: int, torch_name: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.category = category
        self.torch_name = torch_name  # the name in "result type Float can't be cast"
        self.paddle_name = name
        self._core = self  # a facade's dtype points at the core one it stands for
        self._facades = {None: self}  # tensor policy -> the dtype object Tensor.dtype shows

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOAT

    @property
    def is_complex(self) -> bool:
        return self.category == COMPLEX

    @property
    def is_signed(self) -> bool:
        return self.name not in ("uint8", "bool")

    def __repr__(self) -> str:
        return f"inplace_lab.{self.name}"

    def __reduce__(self):
        return (from_any, (self.name,))


bool_ = dtype("bool", np.bool_, BOOL, "Bool")
uint8 = dtype("uint8", np.uint8, INT, "Byte")
int8 = dtype("int8", np.int8, INT, "Char")
int16 = dtype("int16", np.int16, INT, "Short")
int32 = dtype("int32", np.int32, INT, "Int")
int64 = dtype("int64", np.int64, INT, "Long")
float16 = dtype("float16", np.float16, FLOAT, "Half")
float32 = dtype("float32", np.float32, FLOAT, "Float")
float64 = dtype("float64", np.float64, FLOAT, "Double")
complex64 = dtype("complex64", np.complex64, COMPLEX, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, COMPLEX, "ComplexDouble")

# C++'s names, which some ATen messages print (``c10::CppTypeToScalarType``): "long int"
CPP_NAMES = {"Long": "long int", "Int": "int", "Short": "short int", "Float": "float",
             "Double": "double", "Half": "c10::Half", "BFloat16": "c10::BFloat16", "Bool": "bool",
             "Byte": "unsigned char", "Char": "signed char", "ComplexFloat": "c10::complex<float>",
             "ComplexDouble": "c10::complex<double>"}


def cpp_name(d) -> str:
    """The C++ type name some ATen messages print for a dtype ("long int" for int64)."""
    return CPP_NAMES.get(d.torch_name, d.torch_name)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
_BY_NP = {d.np: d for d in ALL}
_ALIASES = {
    "bool": bool_, "uint8": uint8, "int8": int8, "int16": int16, "short": int16,
    "int32": int32, "int": int32, "int64": int64, "long": int64,
    "float16": float16, "half": float16, "float32": float32, "float": float32,
    "float64": float64, "double": float64, "complex64": complex64, "cfloat": complex64,
    "complex128": complex128, "cdouble": complex128,
}



class _FacadeDtype(dtype):
    """A framework's face of a core dtype: same attributes, its own printing and pickling.

    Equal to (and hashed like) the core dtype it stands for, so ``torch.float32 ==
    inplace_lab.float32``; the core never sees one: ``from_any`` returns ``d._core``.
    """

    __slots__ = ()
    policy = ""

    def __init__(self, core: dtype):
        for slot in dtype.__slots__:
            object.__setattr__(self, slot, getattr(core, slot))
        self._core = core

    def __eq__(self, other):
        return isinstance(other, dtype) and other._core is self._core

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._core)

    def __reduce__(self):
        return (_facade_dtype, (self.policy, self._core.name))


class TorchDtype(_FacadeDtype):
    """``torch.float32``: PyTorch prints its dtypes the same way for str and repr."""

    __slots__ = ()
    policy = "pytorch"

    def __repr__(self) -> str:
        return f"torch.{self._core.name}"

    def to_real(self) -> "TorchDtype":
        c = self._core
        return FACADE["pytorch"][{"complex64": "float32", "complex128": "float64"}.get(c.name, c.name)]

    def to_complex(self) -> "TorchDtype":
        c = self._core
        if c.category == COMPLEX:
            return self
        if c.category != FLOAT:
            raise RuntimeError(f"to_complex is only supported for floating point types, got {self}")
        return FACADE["pytorch"]["complex128" if c.name == "float64" else "complex64"]


# Paddle 3.3.1's DataType enum: str(paddle.float32) is 'paddle.float32', repr is the enum's.
_PADDLE_VALUES = {"bool": 1, "uint8": 2, "int8": 3, "int16": 5, "int32": 7, "int64": 9,
                  "float16": 15, "float32": 10, "float64": 11, "complex64": 12, "complex128": 13}


class PaddleDtype(_FacadeDtype):
    """``paddle.float32``: str ``paddle.float32``, repr ``<DataType.FLOAT32: 10>``, ``.name``
    ``'FLOAT32'`` and ``.value`` 10, as Paddle's pybind enum."""

    __slots__ = ()
    policy = "paddle"

    def __init__(self, core: dtype):
        super().__init__(core)
        self.name = core.name.upper()

    @property
    def value(self) -> int:
        return _PADDLE_VALUES[self._core.name]

    def __str__(self) -> str:
        return f"paddle.{self._core.name}"

    def __repr__(self) -> str:
        return f"<DataType.{self.name}: {self.value}>"


FACADE = {"pytorch": {d.name: TorchDtype(d) for d in ALL},
          "paddle": {d.name: PaddleDtype(d) for d in ALL}}
for _d in ALL:
    _d._facades.update({"pytorch": FACADE["pytorch"][_d.name], "paddle": FACADE["paddle"][_d.name],
                        "paddle-legacy": FACADE["paddle"][_d.name]})


def _facade_dtype(policy: str, name: str) -> dtype:
    """Unpickle a facade dtype as its singleton."""
    return FACADE[policy][name]


def facade_dtype(d, policy) -> dtype:
    """The dtype object a tensor of ``policy`` shows for core dtype ``d``."""
    return from_any(d)._facades[policy]


_default_float = float32


def get_default_dtype() -> dtype:
    return _default_float


def set_default_dtype(d) -> None:
    global _default_float
    d = from_any(d)
    if d.category != FLOAT:
        raise TypeError(f"only floating-point types are supported as the default type, got {d.name}")
    _default_float = d


def default_complex() -> dtype:
    return complex128 if _default_float is float64 else complex64


def from_any(d) -> dtype:
    """Turn a dtype, a name ('float32', 'paddle.float32'), a numpy dtype or a Python type into a dtype."""
    if isinstance(d, dtype):
        return d._core
    if isinstance(d, str):
        key = d.rsplit(".", 1)[-1].lower()
        if key in _ALIASES:
            return _ALIASES[key]
        raise TypeError(
            f"unknown dtype {d!r}: use one of {', '.join(x.name for x in ALL)}")
    if d is float:
        return _default_float
    if d is int:
        return int64
    if d is bool:
        return bool_
    if d is complex:
        return default_complex()
    try:
        npd = np.dtype(d)
    except TypeError:
        npd = None
    if npd is not None and npd in _BY_NP:
        return _BY_NP[npd]
    raise TypeError(f"unknown dtype {d!r}: use one of {', '.join(x.name for x in ALL)}")


def from_numpy_dtype(npd) -> dtype:
    d = _BY_NP.get(npd) if isinstance(npd, np.dtype) else None  # an array's .dtype: one lookup
    if d is not None:
        return d
    try:
        return _BY_NP[np.dtype(npd)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(npd)}. The only supported types are: "
            + ", ".join(d.name for d in ALL)) from None


def _to_complex(d: dtype) -> dtype:
    return complex128 if d is float64 else complex64


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's ``promote_types`` for two dtypes (no tiers)."""
    if a is b:
        return a
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        if hi.category == COMPLEX and lo is float64:
            return complex128
        return hi
    return _BY_NP[np.promote_types(a.np, b.np)]


def scalar_dtype(v) -> dtype:
    """The dtype a wrapped Python number stands for in promotion."""
    if isinstance(v, (bool, np.bool_)):
        return bool_
    if isinstance(v, (int, np.integer)):
        return int64
    if isinstance(v, complex):
        return default_complex()
    return _default_float


def _combine(higher, lower):
    """c10's combine_categories: a lower tier only matters if its category is higher."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        return _to_complex(higher) if higher.category == FLOAT else lower
    if higher.category == FLOAT:
        return higher
    if higher is bool_ or lower.category == FLOAT:
        return promote_types(higher, lower)
    return higher


def _fold(ds):
    out = None
    for d in ds:
        out = d if out is None else promote_types(out, d)
    return out


def result_type_of(dim_dtypes, zero_dim_dtypes, scalars) -> dtype:
    """Promote over the three tiers: dimensioned tensors, 0-dim tensors, Python numbers."""
    wrapped = _fold(scalar_dtype(s) for s in scalars)
    return _combine(_fold(dim_dtypes), _combine(_fold(zero_dim_dtypes), wrapped))


def can_cast(frm: dtype, to: dtype) -> bool:
    """PyTorch's canCast: no narrowing across categories (float->int, int->bool...)."""
    return frm.category <= to.category
