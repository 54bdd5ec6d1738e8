"""The smaller top-level names of ``torch`` (2.13): constants, the legacy tensor types
(``torch.FloatTensor`` ...), memory formats, ``unsafe_split`` and the ``*_copy`` ops, print
options and the global flags (deterministic algorithms, matmul precision, warn_always ...).

The flags are state only: this library's kernels are deterministic and run on numpy/cupy,
so setting them changes what the getters answer, not how anything computes.
"""
from __future__ import annotations

import math as _math
import os as _os
import sys as _sys
import warnings as _warnings

from inplace_lab import dtypes as _dtypes
from inplace_lab import printing as _printing
from inplace_lab.ops import tensor_misc as _tm
from inplace_lab.tensor import Tensor as _Tensor

_torch = _sys.modules["inplace_lab.torch"]
_POLICY = "pytorch"

__all__ = [
    "e", "pi", "inf", "nan", "newaxis",
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
    "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "set_default_tensor_type",
    "tensor",
    "memory_format", "contiguous_format", "preserve_format", "legacy_contiguous_format",
    "channels_last", "channels_last_3d",
    "empty", "zeros", "ones", "empty_like", "zeros_like", "ones_like", "full_like", "rand_like",
    "randn_like", "randint_like", "clone", "empty_permuted",
    "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes", *sorted(_tm.COPY_OPS),
    "detach", "fill", "get_device", "isreal", "nonzero_static", "histogramdd",
    "set_printoptions", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "get_deterministic_debug_mode",
    "set_deterministic_debug_mode", "set_flush_denormal", "get_num_interop_threads",
    "set_num_interop_threads", "get_float32_matmul_precision", "set_float32_matmul_precision",
    "set_warn_always", "is_warn_always_enabled", "is_vulkan_available",
    "compiled_with_cxx11_abi", "has_lapack", "has_mkl", "has_openmp", "has_spectral",
    "init_num_threads", "is_distributed",
]

# ---- 1. constants ------------------------------------------------------------------------------

e = _math.e
pi = _math.pi
inf = _math.inf
nan = _math.nan
newaxis = None

# ---- 2. the legacy tensor types ------------------------------------------------------------------

_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}
_SIGNATURES = ["(*, torch.device device = None)", "(torch.Storage storage)", "(Tensor other)",
               "(tuple of ints size, *, torch.device device = None)",
               "(object data, *, torch.device device = None)"]


def _options(dt_name):
    return (f"TensorOptions(dtype={_CPP_NAMES.get(dt_name, dt_name)}, device=cpu, "
            "layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _pytype(v):
    if isinstance(v, _Tensor):
        return "Tensor"
    if isinstance(v, _dtypes.dtype):
        return "torch.dtype"
    return type(v).__name__


def _invalid_combination(args, kwargs):
    """torch's ``new() received an invalid combination of arguments`` for a bad keyword."""
    got = ", ".join([_pytype(a) for a in args] + [f"{k}={_pytype(v)}" for k, v in kwargs.items()])
    if not args:
        got += ", "
    bad = ", ".join(k for k in kwargs if k != "device")
    lines = []
    for i, sig in enumerate(_SIGNATURES):
        lines.append(f" * {sig}")
        if not args and i in (1, 2) or args and i == 0:
            lines.append(f"      didn't match because some of the keywords were incorrect: {bad}")
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), "
                     "but expected one of:\n" + "\n".join(lines) + "\n")


def _invalid_types(args):
    got = ", ".join(_pytype(a) for a in args)
    marked = ", ".join(f"!{_pytype(a)}!" for a in args)
    lines = [f" * {_SIGNATURES[0]}",
             f"      didn't match because some of the arguments have invalid types: ({marked})"]
    lines += [f" * {s}" for s in _SIGNATURES[1:]]
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), "
                     "but expected one of:\n" + "\n".join(lines) + "\n")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) or (
        isinstance(v, _Tensor) and v.ndim == 0 and not v._dtype.is_floating_point and
        v._dtype.name != "bool")


class tensortype(type):
    """The metaclass of torch's legacy tensor types: ``isinstance(x, torch.FloatTensor)`` is
    true for a strided CPU float32 tensor, and calling the type is the legacy constructor."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _Tensor) and obj._dtype is cls._dtype and \
            obj._storage.device.type == "cpu"

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"

    @property
    def dtype(cls):
        return cls._dtype._facades[_POLICY]

    @property
    def is_cuda(cls):
        return False

    @property
    def is_sparse(cls):
        return False

    def __call__(cls, *args, **kwargs):
        return _legacy_new(cls, args, kwargs)


tensortype.__module__ = "torch"


def _legacy_new(cls, args, kwargs, any_tensor=False):
    """torch's ``legacy_tensor_ctor`` for one dtype on the CPU (``any_tensor``: torch.Tensor's
    own, which aliases a tensor of any dtype)."""
    from inplace_lab import creation

    dt = cls._dtype
    kwargs = dict(kwargs)
    if "size" in kwargs and not args:  # (the keyword form: a tuple of ints, not data)
        size = kwargs.pop("size")
        args = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    for k in ("data", "other"):
        if k in kwargs and not args:
            args = (kwargs.pop(k),)
    extra = [k for k in kwargs if k != "device"]
    if extra:
        raise _invalid_combination(args, kwargs)
    dev = kwargs.get("device")
    if dev is not None:
        from inplace_lab.backend import device as _device

        d = _device(dev) if not isinstance(dev, _device) else dev
        if d.type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                               f"{d.type} was passed")
    if not args:
        return _adopt(creation.empty((0,), dtype=dt))
    if len(args) == 1:
        a = args[0]
        if isinstance(a, _Tensor):
            if dev is not None:
                raise RuntimeError("Legacy tensor constructor of the form torch.Tensor(tensor, "
                                   "device=device) is not supported.  Use torch.tensor(...) or "
                                   "torch.as_tensor(...) instead.")
            if not any_tensor and (a._dtype is not dt or a._storage.device.type != "cpu"):
                raise TypeError(f"expected {_options(dt.name)} (got {_options(a._dtype.name)})")
            return a.alias() if hasattr(a, "alias") else _Tensor._alias(a)
        if isinstance(a, _torch.Size):
            return _sized(dt, tuple(a))
        import numpy as np

        if _is_int(a) or isinstance(a, np.integer):
            return _sized(dt, (int(a),))
        if isinstance(a, str):
            raise TypeError("new(): invalid data type 'str'")
        if isinstance(a, (float, bool, complex, np.generic)) or a is None:
            mod = type(a).__module__
            name = type(a).__name__ if mod == "builtins" else f"{mod}.{type(a).__name__}"
            raise TypeError(f"new(): data must be a sequence (got {name})")
        return tensor(a, dtype=dt)
    if any(isinstance(a, _Tensor) and not _is_int(a) for a in args):
        raise _invalid_types(args)
    for i, a in enumerate(args):
        if not _is_int(a):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} "
                            f"with error \"type must be tuple of ints,but got "
                            f"{type(a).__name__}\"")
    return _sized(dt, tuple(int(a) for a in args))


def _checked_data(data, dt):
    """torch's overflow check (c10::overflows) of Python numbers going into a small integer
    dtype: an unsigned type takes integers in -max..max (a negative one wraps: uint8 -1 -> 255)
    and floats in 0..max, a signed one its range; beyond, or NaN/inf: torch's RuntimeError.
    Returns the data as a numpy array of ``dt`` (wrapped as torch does), or None to leave it."""
    import numpy as np

    if not isinstance(data, (list, tuple, int, float)) or isinstance(data, bool) or \
            dt.is_floating_point or dt.is_complex or dt.name in ("bool", "int64"):
        return None
    try:
        raw = np.array(data)
    except (ValueError, TypeError):
        return None
    if raw.dtype.kind not in "iuf" or raw.size == 0:
        return None
    info = np.iinfo(dt.np)
    low = -int(info.max) if info.min == 0 and raw.dtype.kind != "f" else int(info.min)
    finite = raw[np.isfinite(raw)] if raw.dtype.kind == "f" else raw
    if finite.size != raw.size or finite.max() > info.max or finite.min() < low:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
    return raw.astype(np.int64).astype(dt.np)


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _scan(data, target=None):
    """torch's reading of nested Python data: a tensor element must hold one value and is
    read as a number, a Python int must fit in 64 bits. Returns ``(data, dtype)``: the data
    with tensors read as numbers, and the dtype torch infers (every leaf's type promoted: a
    tensor's dtype, bool, int64, the default float) when a tensor was among them, else None."""
    if isinstance(data, int) and not isinstance(data, bool):
        if not _INT64[0] <= data <= _INT64[1]:
            raise ValueError("Overflow when unpacking long long")
        return data, None
    if not isinstance(data, (list, tuple)):
        return data, None
    state = {"dt": None, "tensor": False, "other": False}
    index_target = target is not None and not (target.is_floating_point or target.is_complex)

    def see(d):
        state["dt"] = d if state["dt"] is None else _dtypes.promote_types(state["dt"], d)

    def walk(seq):
        out, changed = [], False
        for v in seq:
            if isinstance(v, _Tensor):
                if index_target and (v.numel() != 1 or v._dtype.is_floating_point or
                                     v._dtype.is_complex):  # (read through __index__)
                    raise TypeError("only integer tensors of a single element can be "
                                    "converted to an index")
                if v.numel() != 1:
                    raise ValueError("only one element tensors can be converted to Python "
                                     "scalars")
                see(v._dtype)
                state["tensor"] = True
                v, changed = v.item(), True
            elif isinstance(v, (list, tuple)):
                w = walk(v)
                changed = changed or w is not v
                v = w
            elif isinstance(v, bool):
                see(_dtypes.bool_)
            elif isinstance(v, int):
                if not _INT64[0] <= v <= _INT64[1]:
                    raise ValueError("Overflow when unpacking long long")
                see(_dtypes.int64)
            elif isinstance(v, float):
                see(_dtypes.get_default_dtype())
            else:  # (numpy values, complex ...: creation.tensor infers as before)
                state["other"] = True
            out.append(v)
        return out if changed else seq

    data = walk(data)
    if not state["tensor"] or state["other"]:
        return data, None
    return data, state["dt"]


def tensor(data, *args, dtype=None, **kwargs):
    """``torch.tensor``, with torch's checks of nested data (one-element tensors, 64-bit ints)
    and of numbers going into int8/uint8/int16/int32."""
    data, inferred = _scan(data, _dtypes.from_any(dtype) if dtype is not None else None)
    if dtype is None and inferred is not None:
        dtype = inferred._facades[_POLICY]
    if dtype is not None and not isinstance(data, _Tensor):
        arr = _checked_data(data, _dtypes.from_any(dtype))
        if arr is not None:
            data = arr if arr.ndim else arr.item()
    import numpy as np

    with np.errstate(over="ignore"):  # (1e6 into float16 is inf, silently, as in torch)
        return _tensor(data, *args, dtype=dtype, **kwargs)


_tensor = _torch.tensor
tensor.__doc__ = _tensor.__doc__


def _sized(dt, shape):
    from inplace_lab import creation

    neg = [n for n in shape if n < 0]
    if neg:
        raise RuntimeError(f"Trying to create tensor with negative dimension {neg[0]}: "
                           f"{list(shape)}")
    return _adopt(creation.empty(shape, dtype=dt))


def _adopt(t):
    t._policy = _POLICY
    return t


def _legacy_type(name, dt):
    cls = tensortype(name, (), {"__module__": "torch", "_dtype": dt,
                                "__doc__": f"torch.{name}: the legacy {dt.name} CPU tensor type."})
    return cls


FloatTensor = _legacy_type("FloatTensor", _dtypes.float32)
DoubleTensor = _legacy_type("DoubleTensor", _dtypes.float64)
HalfTensor = _legacy_type("HalfTensor", _dtypes.float16)
LongTensor = _legacy_type("LongTensor", _dtypes.int64)
IntTensor = _legacy_type("IntTensor", _dtypes.int32)
ShortTensor = _legacy_type("ShortTensor", _dtypes.int16)
CharTensor = _legacy_type("CharTensor", _dtypes.int8)
ByteTensor = _legacy_type("ByteTensor", _dtypes.uint8)
BoolTensor = _legacy_type("BoolTensor", _dtypes.bool_)
_LEGACY = {c.__name__: c for c in (FloatTensor, DoubleTensor, HalfTensor,
                                   LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor,
                                   BoolTensor)}


def _legacy_from_name(name):
    """'torch.FloatTensor' -> FloatTensor; 'torch.cuda.X' -> 'cuda'; else None."""
    if not isinstance(name, str):
        return None
    if name.startswith("torch.cuda.") and name[len("torch.cuda."):] in _LEGACY:
        return "cuda"
    if name.startswith("torch.") and name[len("torch."):] in _LEGACY:
        return _LEGACY[name[len("torch."):]]
    return None


def set_default_tensor_type(t):
    """Deprecated (torch 2.1): the default floating dtype from a legacy type or its name."""
    if isinstance(t, str):
        got = _legacy_from_name(t)
        if got == "cuda":
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        if got is None:
            raise ValueError(f"invalid type: '{t}'")  # (torch's _import_dotted_name fails)
        t = got
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not t._dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if not _FLAGS["default_type_warned"]:  # (TORCH_WARN_ONCE: once per process)
        _FLAGS["default_type_warned"] = True
        _warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, "
                       "please use "
                       "torch.set_default_dtype() and torch.set_default_device() as alternatives. "
                       "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/tensor/"
                       "python_tensor.cpp:434.)", UserWarning, stacklevel=2)
    _dtypes.set_default_dtype(t._dtype)


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """``x.type()``: the legacy type name; ``x.type(torch.FloatTensor)`` / ``('torch.LongTensor')``
    / ``(torch.int32)``: the same object when nothing changes, else a cast."""
    if dtype is None:
        return _tm._orig["type"](self)
    if isinstance(dtype, str):
        got = _legacy_from_name(dtype)
        if got is None:
            raise ValueError(f"invalid type: '{dtype}'")
        if got == "cuda":  # (torch.cuda.FloatTensor: that dtype on the GPU)
            dt = _LEGACY[dtype[len("torch.cuda."):]]._dtype
            return _tm.to(self, "cuda", dt._facades[_POLICY])
        dtype = got
    if isinstance(dtype, tensortype):  # (a legacy type is a CPU type: a GPU tensor comes home)
        return _tm.to(self, "cpu", dtype.dtype)
    return _tm._orig["type"](self, dtype, non_blocking, **kwargs)


# ---- 3. memory formats ---------------------------------------------------------------------------

memory_format = _tm.memory_format
contiguous_format = _tm.contiguous_format
preserve_format = _tm.preserve_format
channels_last = _tm.channels_last
channels_last_3d = _tm.channels_last_3d
legacy_contiguous_format = _tm.contiguous_format  # (the same object in torch)


def _with_format(fn, name, like=False):
    def f(*args, memory_format=None, **kwargs):
        _tm.check_format(name, memory_format)
        if memory_format is None or (like and memory_format is _tm.preserve_format):
            return fn(*args, **kwargs)
        if like and args and isinstance(args[0], _Tensor):
            _tm.format_strides(args[0]._shape, memory_format)  # (rank error first)
        out = fn(*args, **kwargs)
        if not like:
            _tm.format_strides(out._shape, memory_format)
        return _tm.relayout(out, memory_format)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = fn.__doc__
    f.__wrapped__ = fn
    return f


empty = _with_format(_torch.empty, "empty")
zeros = _torch.zeros  # (torch.zeros/ones take no memory_format: the TypeError is Python's)
ones = _torch.ones
empty_like = _with_format(_torch.empty_like, "empty_like", like=True)
zeros_like = _with_format(_torch.zeros_like, "zeros_like", like=True)
ones_like = _with_format(_torch.ones_like, "ones_like", like=True)
full_like = _with_format(_torch.full_like, "full_like", like=True)
rand_like = _with_format(_torch.rand_like, "rand_like", like=True)
randn_like = _with_format(_torch.randn_like, "randn_like", like=True)
randint_like = _with_format(_torch.randint_like, "randint_like", like=True)


def clone(input, *, memory_format=None):
    """``torch.clone(input, memory_format=torch.preserve_format)``."""
    return _tm.clone(input, memory_format=memory_format)


def empty_permuted(size, physical_layout, *, dtype=None, device=None, requires_grad=False,
                   layout=None, pin_memory=False):
    """An uninitialised tensor of ``size`` whose dims lie in memory in ``physical_layout``."""
    size, perm = tuple(size), tuple(physical_layout)
    if len(size) != len(perm):
        raise RuntimeError("Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(perm)}")
    for k, d in enumerate(perm):
        if not 0 <= d < len(size):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got "
                f"{d} at index {k}).  NB: negative dims not currently supported; file an issue "
                "if you want it.")
    if len(set(perm)) != len(perm):
        raise RuntimeError("Duplicate dim not allowed")
    phys = _torch.empty([size[d] for d in perm], dtype=dtype, device=device)
    inv = [perm.index(d) for d in range(len(size))]
    out = phys.permute(*inv) if size else phys
    out = _Tensor._make(out._storage, out._shape, out._strides, out._offset)
    out._policy = _POLICY
    if requires_grad:
        out.requires_grad_(True)
    return out


# ---- 4. unsafe splits and copies -----------------------------------------------------------------

unsafe_split = _tm.unsafe_split
unsafe_chunk = _tm.unsafe_chunk
unsafe_split_with_sizes = _tm.unsafe_split_with_sizes
globals().update(_tm.COPY_OPS)

# ---- 5. small functions --------------------------------------------------------------------------


def detach(input):
    """``torch.detach(x)`` is ``x.detach()``."""
    return input.detach()


def fill(input, value):
    """``torch.fill(x, v)``: a new tensor like ``x`` filled with ``v`` (FillBackward)."""
    return _tm.fill(input, value)


def get_device(input):
    """``torch.get_device(x)``: -1 on the CPU, else the device index."""
    return input.get_device()


def isreal(input):
    """True where an element is real: every element of a real tensor."""
    return _tm.isreal(input)


def nonzero_static(input, *, size, fill_value=-1):
    return _tm.nonzero_static(input, size=size, fill_value=fill_value)


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):  # noqa: A002
    return _tm.histogramdd(input, bins, range=range, weight=weight, density=density)


# ---- 6. print options and global flags -----------------------------------------------------------


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """torch.set_printoptions: what every tensor repr reads (torch's profiles included)."""
    p = _printing
    if profile is not None:
        if profile == "default":
            p.PRECISION, p.THRESHOLD, p.EDGEITEMS, p.LINEWIDTH = 4, 1000, 3, 80
        elif profile == "short":
            p.PRECISION, p.THRESHOLD, p.EDGEITEMS, p.LINEWIDTH = 2, 1000, 2, 80
        elif profile == "full":
            p.PRECISION, p.THRESHOLD, p.EDGEITEMS, p.LINEWIDTH = 4, _math.inf, 3, 80
    if precision is not None:
        p.PRECISION = precision
    if threshold is not None:
        p.THRESHOLD = threshold
    if edgeitems is not None:
        p.EDGEITEMS = edgeitems
    if linewidth is not None:
        p.LINEWIDTH = linewidth
    p.SCI_MODE = sci_mode


_FLAGS = {"deterministic": False, "warn_only": False, "interop": _os.cpu_count() or 1,
          "interop_set": False, "matmul": "highest", "warn_always": False,
          "default_type_warned": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _FLAGS["deterministic"], _FLAGS["warn_only"] = mode, warn_only if mode else False


def are_deterministic_algorithms_enabled():
    return _FLAGS["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _FLAGS["warn_only"]


def get_deterministic_debug_mode():
    if not _FLAGS["deterministic"]:
        return 0
    return 1 if _FLAGS["warn_only"] else 2


def set_deterministic_debug_mode(debug_mode):
    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def set_flush_denormal(mode):
    """True: this CPU supports flushing denormals (torch's answer on x86 with SSE3)."""
    return True


def get_num_interop_threads():
    return _FLAGS["interop"]


def set_num_interop_threads(num):
    """Once per process, as torch (a second call: its RuntimeError); state only here."""
    if not isinstance(num, int) or isinstance(num, bool):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got "
                           f"{type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _FLAGS["interop_set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    _FLAGS["interop"], _FLAGS["interop_set"] = num, True


def get_float32_matmul_precision():
    return _FLAGS["matmul"]


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        _warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                       "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
                       "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)", UserWarning,
                       stacklevel=2)
        return
    _FLAGS["matmul"] = precision


def set_warn_always(b):
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _FLAGS["warn_always"] = b


def is_warn_always_enabled():
    return _FLAGS["warn_always"]


def _tensor_init(self, *args, **kwargs):
    """``torch.Tensor(...)``: the legacy constructor of the default dtype (``torch.Tensor(2, 3)``
    is a 2x3 tensor, ``torch.Tensor([2, 3])`` holds 2 and 3), the new object taking over the
    made tensor's state (an alias of a tensor argument keeps its view and history)."""
    paddle_cls = _Tensor._policy_classes.get("paddle")
    if paddle_cls is not None and isinstance(self, paddle_cls):
        return _orig_init(self, *args, **kwargs)
    made = _legacy_new(_LEGACY_BY_DTYPE[_dtypes.get_default_dtype().name], args, kwargs,
                       any_tensor=True)
    for slot in _Tensor.__slots__:
        if slot not in ("__weakref__", "__dict__"):
            setattr(self, slot, getattr(made, slot))
    self.__dict__.update(made.__dict__)
    self._policy = _POLICY


_orig_init = _Tensor.__init__
_LEGACY_BY_DTYPE = {c._dtype.name: c for c in _LEGACY.values()}
def is_vulkan_available():
    return False


def compiled_with_cxx11_abi():
    return True


has_lapack = has_mkl = has_openmp = has_spectral = True  # (what the CPU torch 2.13 wheel says)


def init_num_threads():
    """Nothing to do here (torch initialises its OpenMP/MKL thread pools)."""


def is_distributed(input):
    return False


_tm.install(_type)
_Tensor.__init__ = _tensor_init
