"""More of Paddle 3.3.1's top-level names: take_along_axis, gather_nd, scatter_nd, add_n, ...

Each is a thin function with Paddle's argument names, defaults, results and errors over
the op table (Paddle-only kernels are in ``inplace_lab/ops/paddle_ops.py``, where their
specs are named after Paddle's kernels: GatherNdGradNode, ScatterNdAddGradNode ...) or over
the core's recorded ops. Random functions draw from inplace_lab's generator: their values
are not Paddle's (shapes, dtypes and flags are).
"""
from __future__ import annotations

import builtins
import dataclasses
import math
import numbers

import numpy as np

import inplace_lab as _il
from inplace_lab import backend, creation as _creation, dtypes
from inplace_lab.ops import dispatch as _dispatch
from inplace_lab.ops import paddle_ops as _pops
from inplace_lab.ops.paddle_ops import OPS_PADDLE
from inplace_lab.ops.table import OPS
from inplace_lab.tensor import Tensor as _Core

from . import creation as _pc
from . import printing as _printing
from . import views as _views

NAMES = (
    "take_along_axis", "rand_like", "randn_like", "randint_like", "shape", "rank", "tolist",
    "is_empty", "is_floating_point", "is_integer", "is_complex", "logspace", "atleast_1d",
    "atleast_2d", "atleast_3d", "broadcast_shape", "broadcast_shapes", "tril_indices",
    "triu_indices", "manual_seed", "get_rng_state", "set_rng_state", "set_printoptions",
    "get_default_device", "set_default_device", "finfo", "iinfo",
    "gather_nd", "scatter_nd", "scatter_nd_add", "index_sample", "add_n", "reverse",
    "strided_slice", "crop", "multiplex", "increment", "stanh", "i0e", "i1", "i1e",
    "cartesian_prod", "combinations", "column_stack", "row_stack", "view_as", "reduce_as",
    "matrix_transpose", "histogram_bin_edges", "pdist", "hann_window", "hamming_window",
    "blackman_window", "bartlett_window", "kaiser_window",
)
# Of NAMES, those paddle.Tensor also has as methods (``x`` being the tensor).
METHODS = (
    "take_along_axis", "rank", "is_empty", "is_floating_point", "is_integer",
    "is_complex", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shape",
    "broadcast_shapes", "gather_nd", "scatter_nd", "scatter_nd_add", "index_sample", "add_n",
    "reverse", "strided_slice", "multiplex", "increment", "stanh", "i0e", "i1", "i1e",
    "combinations", "view_as", "reduce_as", "matrix_transpose", "histogram_bin_edges",
)

_RENAMED = {
    "take_along_axis": dataclasses.replace(OPS["gather"], name="take_along_axis", select=None),
    "i1": dataclasses.replace(OPS["special_i1"], name="i1", select=None),
    "reduce_as": dataclasses.replace(OPS["sum_to_size"], name="reduce_as", select=None),
}


def _call(name, *args, **params):
    spec = OPS_PADDLE.get(name) or _RENAMED[name]
    return _dispatch.call(spec, args, params)


def _tensor(x):
    return x if isinstance(x, _Core) else _pc.to_tensor(x)


def _non_negative(axis, nd):
    return axis + nd if axis < 0 else axis


# ---- 1: indexing, creation, queries -----------------------------------------------------------

def take_along_axis(arr=None, indices=None, axis=None, broadcast=True, *, out=None, **alias):
    """``paddle.take_along_axis``: with ``broadcast`` (the default) indices and arr are
    broadcast against each other except along ``axis`` (Paddle's rule: any 0 wins, else the
    larger size); without, indices may be smaller than arr (``torch.gather``). ``input``
    and ``dim`` are accepted for ``arr`` and ``axis``."""
    arr, axis = _aliases("take_along_axis", alias, arr, axis)
    if len(arr.shape) != len(indices.shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions!")
    axis = _non_negative(axis, arr.ndim)
    if broadcast:
        shp = [0 if indices.shape[i] == 0 or arr.shape[i] == 0
               else builtins.max(arr.shape[i], indices.shape[i]) for i in range(arr.ndim)]
        shp[axis] = indices.shape[axis]
        if list(indices.shape) != shp:
            indices = _views.broadcast_to(indices, shp)
        shp[axis] = arr.shape[axis]
        if list(arr.shape) != shp:
            arr = _views.broadcast_to(arr, shp)
    else:
        for i in range(arr.ndim):
            if i != axis and arr.shape[i] < indices.shape[i]:
                raise RuntimeError(
                    f"Size does not match at dimension {i} expected index {indices.shape} to be "
                    f"smaller than self {arr.shape} apart from dimension {axis}")
    _check_index_dtype(indices, "take_along_axis")
    indices = _wrap_gather_index(indices, arr.shape[axis])
    r = _call("take_along_axis", arr, axis, indices)
    if out is not None:
        from .inplace import copy_

        copy_(out, r)
        out._vc.bump()
        return out
    return r


def _aliases(fname, alias, arr, axis):
    for k in alias:
        if k not in ("input", "dim"):
            raise TypeError(f"{fname}() got an unexpected keyword argument '{k}'")
    return alias.get("input", arr), alias.get("dim", axis)


def _wrap_gather_index(indices, n):
    """Paddle's gather kernel: an index in [-n, n) (negative ones count from the end), else
    its IndexError."""
    a = backend.to_numpy(indices._a)
    bad = a[(a < -n) | (a >= n)]
    if bad.size:
        raise IndexError(
            f"(OutOfRange) Variable value (index) of gather cpu kernel, expected >= -{n} and < "
            f"{n}, but got {int(bad.flat[0])}.Please check the input value.\n  [Hint: Expected "
            "(index >= -src_select_dim_size) && (index < src_select_dim_size) == true, but "
            "received (index >= -src_select_dim_size) && (index < src_select_dim_size):0 != "
            "true:1.] (at /paddle/paddle/phi/kernels/funcs/gather_scatter_functor.cc:319)\n")
    if (a < 0).any():
        return _pc._own(_creation.tensor(np.where(a < 0, a + n, a), dtype=indices._dtype,
                                         device=indices.device))
    return indices


def _check_index_dtype(index, op):
    if index._dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"(InvalidType) The data type of index of {op} must be int32 or int64, but "
            f"received {index._dtype.name}.")


def _like(x, dtype):
    return _pc._dtype(dtype, x._dtype)


_RANDOM_DTYPES = "float64, complex128, float16, float32, complex64, bfloat16"


def _random_kernel(kernel, dt):
    from inplace_lab.policy import paddle_kernel_error

    if dt.category < 2:
        raise paddle_kernel_error(kernel, dt.name, _RANDOM_DTYPES)


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad=False):
    _random_kernel("uniform", _like(input, dtype))
    r = _pc._own(_creation.rand(tuple(input.shape), dtype=_like(input, dtype),
                                device=input.device, generator=_pc._gen), not requires_grad)
    return r


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False):
    _random_kernel("gaussian", _like(x, dtype))
    return _pc._own(_creation.randn(tuple(x.shape), dtype=_like(x, dtype), device=x.device,
                                    generator=_pc._gen), not requires_grad)


def randint_like(x, low=0, high=None, dtype=None, name=None):
    if high is None:
        if low <= 0:
            raise ValueError(
                f"If high is None, low must be greater than 0, but received low = {low}.")
        low, high = 0, low
    if low >= high:
        raise ValueError(
            f"randint_like's low must less then high, but received low = {low}, high = {high}")
    dt = _like(x, dtype)
    a = _creation.randint(low, high, tuple(x.shape), dtype=dtypes.int64, device=x.device,
                          generator=_pc._gen)
    return _pc._own(a.to(dt) if dt is not dtypes.int64 else a)


def shape(input):
    """``paddle.shape``: the shape as a 1-D int64 tensor."""
    return _pc._own(_creation.tensor(list(input.shape), dtype=dtypes.int64, device=input.device))


def rank(input):
    """``paddle.rank``: the number of dimensions, a 0-D int32 tensor."""
    return _pc.to_tensor(np.array(len(input.shape), "int32"))


def tolist(x):
    return x.tolist()


def is_empty(x, name=None):
    return _pc._own(_creation.tensor(x.numel() == 0, dtype=dtypes.bool_, device=x.device))


def is_floating_point(x):
    return x._dtype.name in ("float16", "bfloat16", "float32", "float64")


def is_integer(x):
    return x._dtype.name in ("uint8", "int8", "int16", "int32", "int64")


def is_complex(x):
    return x._dtype.name in ("complex64", "complex128")


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``paddle.logspace``: ``base ** linspace(start, stop, num)`` in ``dtype`` (default:
    the default dtype), computed as Paddle's kernel does (powers in float64)."""
    if isinstance(num, _Core) and num._dtype.name != "int32":
        from .numeric import _retrieve_error

        raise _retrieve_error("int32", num._dtype.name)
    vals = [v.item() if isinstance(v, _Core) else v for v in (start, stop, num, base)]
    start, stop, num, base = vals
    dt = _pc._dtype(dtype, dtypes.get_default_dtype())
    if num == 1:
        a = np.array([base ** start], dtype=np.float64)
    else:
        step = (stop - start) / (num - 1)
        half = num // 2
        i = np.arange(num)
        e = np.where(i < half, start + step * i, stop - step * (num - 1 - i))
        a = np.power(float(base), e)
    if dt.category < 2:
        a = np.trunc(a)
    return _pc._own(_creation.tensor(a.astype(dt.np), dtype=dt, device=_pc.current()))


def _atleast(inputs, nd):
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)) and \
            any(isinstance(t, _Core) for t in inputs[0]):
        inputs = inputs[0]
    from inplace_lab.paddle import unsqueeze

    out = []
    for t in inputs:
        t = _tensor(t)
        if t.ndim == 0:
            r = _views.reshape(t, (1,) * nd) if nd > 1 else _views.reshape(t, [1])
        elif t.ndim == 1 and nd == 2:
            r = unsqueeze(t, 0)
        elif t.ndim == 1 and nd == 3:
            r = unsqueeze(t, [0, 2])
        elif t.ndim == 2 and nd == 3:
            r = unsqueeze(t, 2)
        else:
            r = t
        out.append(r)
    return out[0] if len(out) == 1 else out


def atleast_1d(*inputs, name=None):
    return _atleast(inputs, 1)


def atleast_2d(*inputs, name=None):
    return _atleast(inputs, 2)


def atleast_3d(*inputs, name=None):
    return _atleast(inputs, 3)


def broadcast_shape(x_shape, y_shape):
    """``paddle.broadcast_shape``: the broadcast shape of two shapes, a list; Paddle's
    error where a size is neither equal nor 1."""
    x, y = list(x_shape), list(y_shape)
    n = builtins.max(len(x), len(y))
    xa, ya = [1] * (n - len(x)) + x, [1] * (n - len(y)) + y
    out = []
    for i, (a, b) in enumerate(zip(xa, ya)):
        if not (a == b or (a <= 1 and a != 0) or (b <= 1 and b != 0)):
            raise ValueError(
                "(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast "
                f"together with the shape of X = {x} and the shape of Y = {y}. Received [{a}] "
                f"in X is not equal to [{b}] in Y at i:{i}.\n  [Hint: Expected x_dims_array[i] "
                "== y_dims_array[i] || (x_dims_array[i] <= 1 && x_dims_array[i] != 0) || "
                "(y_dims_array[i] <= 1 && y_dims_array[i] != 0) == true, but received "
                "x_dims_array[i] == y_dims_array[i] || (x_dims_array[i] <= 1 && x_dims_array[i] "
                "!= 0) || (y_dims_array[i] <= 1 && y_dims_array[i] != 0):0 != true:1.] (at "
                "/paddle/paddle/phi/kernels/funcs/common_shape.h:72)\n")
        out.append(b if a == 1 or (a == -1 and b != 1) else a)
    return out


def broadcast_shapes(*shapes):
    out = list(shapes[0])
    for s in shapes[1:]:
        out = broadcast_shape(out, s)
    return out


def _tri_indices(row, col, offset, dtype, upper):
    from inplace_lab.policy import paddle_kernel_error

    dt = _pc._dtype(dtype)
    if dt.name not in ("int32", "int64"):
        raise paddle_kernel_error(f"{'triu' if upper else 'tril'}_indices", dt.name,
                                  "int64, int32")
    r, c = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    a = np.stack([r, c]).astype(dt.np) if r.size else np.zeros((2, 0), dt.np)
    return _pc._own(_creation.tensor(a, dtype=dt, device=_pc.current()))


def tril_indices(row, col, offset=0, dtype="int64"):
    if not isinstance(row, int) or row < 0:
        raise TypeError("row should be a non-negative int")
    if col is None:
        col = row
    return _tri_indices(row, col, offset, dtype, False)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    if not isinstance(row, int) or row < 0:
        raise TypeError("row should be a non-negative int")
    return _tri_indices(row, row if col is None else col, offset, dtype, True)


class Generator:
    """What ``paddle.manual_seed`` returns (inplace_lab's generator, seeded)."""

    def __init__(self, seed=0):
        self._seed = seed

    def manual_seed(self, seed):
        _pc.seed(seed)
        self._seed = seed
        return self

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return get_rng_state()[0]

    def set_state(self, state):
        set_rng_state([state])


def manual_seed(seed):
    _pc.seed(int(seed))
    return Generator(int(seed))


class GeneratorState:
    """One device's generator state, as ``paddle.get_rng_state`` lists them."""

    def __init__(self, state):
        self._state = state


def get_rng_state(device=None):
    """One state per device (the CPU's here): a copy of Paddle's generator state (rng)."""
    return [GeneratorState(_pc._gen.get_state())]


def set_rng_state(state_list, device=None):
    for s in state_list:
        _pc._gen.set_state(s._state)


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None,
                     linewidth=None):
    """``paddle.set_printoptions``: how paddle tensors print from now on."""
    for value, name, kind in ((precision, "precision", int), (threshold, "threshold", int),
                              (edgeitems, "edgeitems", int), (linewidth, "linewidth", int),
                              (sci_mode, "sci_mode", bool)):
        if value is not None and not isinstance(value, kind):  # (Paddle's check_type is
            raise RuntimeError(  # off in dynamic mode: the C++ binding refuses the value)
                f"Unable to cast Python instance of type {type(value)} to C++ type '?' (#define "
                "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)")
        if value is not None:
            setattr(_printing, name.upper(), value)


def get_default_device():
    from inplace_lab.paddle.device import get_device

    dev = get_device()
    return _Device(dev)


class _Device(str):
    """``paddle.get_default_device()``: prints as 'cpu' / 'gpu:0'."""

    @property
    def type(self):
        return self.split(":")[0]


def set_default_device(device):
    from inplace_lab.paddle import set_device

    if isinstance(device, int):
        device = f"gpu:{device}"
    set_device(str(device) if not hasattr(device, "_dev") else
               ("cpu" if device._dev.type == "cpu" else f"gpu:{device._dev.index or 0}"))


_FINFO = {"float16": 16, "float32": 32, "float64": 64, "bfloat16": 16,
          "complex64": 32, "complex128": 64}


def _dtype_name(d):
    if isinstance(d, str):
        return d.replace("paddle.", "")
    return dtypes.from_any(d).name


class finfo:
    """``paddle.finfo(dtype)``: the limits of a floating dtype (Paddle's fields and repr)."""

    def __init__(self, dtype):
        name = _dtype_name(dtype)
        if name not in _FINFO:
            raise ValueError(
                "(InvalidArgument) The argument of paddle.finfo can only be paddle.float32, "
                "paddle.float64, paddle.float16, paddle.bfloat16, paddle.float8_e4m3fn, "
                "paddle.float8_e5m2, paddle.complex64 or paddle.complex128 (at "
                "/paddle/paddle/fluid/pybind/pybind.cc:572)\n")
        real = {"complex64": "float32", "complex128": "float64"}.get(name, name)
        fi = np.finfo(np.dtype(real))
        self.bits = _FINFO[name]
        self.dtype = real
        self.eps = float(fi.eps)
        self.max = float(fi.max)
        self.min = float(fi.min)
        self.resolution = 10.0 ** -int(fi.precision)
        self.smallest_normal = float(fi.smallest_normal)
        self.tiny = float(fi.tiny)

    def __repr__(self):
        return (f"paddle.finfo(min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"resolution={self.resolution:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, bits={self.bits}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    """``paddle.iinfo(dtype)``: the limits of an integer dtype."""

    def __init__(self, dtype):
        name = _dtype_name(dtype)
        if name not in ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"):
            raise ValueError(
                "(InvalidArgument) the argument of paddle.iinfo can only be paddle.int8, "
                "paddle.int16, paddle.int32, paddle.int64, or paddle.uint8 (at "
                "/paddle/paddle/fluid/pybind/pybind.cc:518)\n")
        ii = np.iinfo(np.dtype(name))
        self.bits, self.dtype, self.min, self.max = ii.bits, name, int(ii.min), int(ii.max)

    def __repr__(self):
        return (f"paddle.iinfo(min={self.min}, max={self.max}, bits={self.bits}, "
                f"dtype={self.dtype})")

    __str__ = __repr__


# ---- 2: Paddle's own kernels -------------------------------------------------------------------

def gather_nd(x, index, name=None):
    """``paddle.gather_nd``: ``index[..., :k]`` picks slices of the first k axes of x."""
    if index._dtype.name not in ("int32", "int64"):
        raise ValueError(
            f"(InvalidArgument) Index holds the wrong type, it holds [{index._dtype.name}],but "
            "desires to be [int32] or [int64]\n  [Hint: Expected index_type_match == true, but "
            "received index_type_match:0 != true:1.] (at "
            "/paddle/paddle/phi/kernels/cpu/gather_nd_kernel.cc:50)\n")
    _pops.check_gather_nd(tuple(x.shape), backend.to_numpy(index._a))
    return _call("gather_nd", x, index)


def scatter_nd_add(x, index, updates, name=None):
    """``paddle.scatter_nd_add``: a copy of x with updates added at the slices index names
    (repeated indices accumulate)."""
    _pops.check_scatter_nd_add(tuple(x.shape), backend.to_numpy(index._a), tuple(updates.shape))
    return _call("scatter_nd_add", x, index, updates)


def scatter_nd(index, updates, shape, name=None):
    """``paddle.scatter_nd``: ``scatter_nd_add`` into zeros of ``shape``."""
    z = _pc._own(_creation.zeros(tuple(int(s) for s in shape), dtype=updates._dtype,
                                 device=updates.device))
    return scatter_nd_add(z, index, updates)


def index_sample(x, index):
    """``paddle.index_sample``: ``out[i, j] = x[i, index[i, j]]`` (both 2-D)."""
    _pops.check_index_sample(x, index)
    if index._dtype.name not in ("int32", "int64"):
        raise ValueError(
            f"(InvalidArgument) Input(Index) holds the wrong type, it holds "
            f"{index._dtype.name}, but desires to be int32 or int64\n  [Hint: Expected "
            "index_type_match == true, but received index_type_match:0 != true:1.] (at "
            "/paddle/paddle/phi/kernels/cpu/index_sample_kernel.cc:97)\n")
    _pops.check_index_sample_values(x.shape[1], backend.to_numpy(index._a))
    return _call("index_sample", x, index)


def add_n(inputs, name=None):
    """``paddle.add_n``: the sum of a tensor or list of tensors of one shape and dtype."""
    if isinstance(inputs, _Core):
        inputs = [inputs]
    inputs = list(inputs)
    for t in inputs[1:]:
        if t._dtype is not inputs[0]._dtype:
            from .numeric import _retrieve_error

            raise _retrieve_error(inputs[0]._dtype.name, t._dtype.name)
    for i, t in enumerate(inputs[1:], 1):
        if list(t.shape) != list(inputs[0].shape):
            a, b = list(inputs[0].shape), list(t.shape)
            raise ValueError(
                "(InvalidArgument) The input tensor X of AddNOp must have same shape. But "
                f"received X[0]'s shape = {a}, X[{i}]'s shape = {b}.\n  [Hint: Expected in_dim "
                f"== x_dim, but received in_dim:{', '.join(map(str, a))} != x_dim:"
                f"{', '.join(map(str, b))}.] (at /paddle/paddle/phi/infermeta/multiary.cc:423)\n")
    return _call("add_n", _il.stack(inputs))


def reverse(x, axis, name=None):
    from inplace_lab.paddle import flip

    return flip(x, axis)


def _slice_params(x, axes, starts, ends, strides):
    def ints(v):
        if isinstance(v, _Core):
            v = v.tolist()
        return [int(i.item()) if isinstance(i, _Core) else int(i) for i in v]

    axes, starts, ends = ints(axes), ints(starts), ints(ends)
    strides = ints(strides) if strides is not None else [1] * len(axes)
    for what, v in (("starts", starts), ("ends", ends), ("strides", strides)):
        if len(v) != len(axes):
            raise ValueError(
                f"(InvalidArgument) The size of {what} attribute in StridedSlice operator is not "
                f"equal to the size of axes attribute. The {what} attribute's size is {len(v)}, "
                f"axes attribute's size is {len(axes)}.\n  [Hint: Expected {what}_size == "
                f"axes.size(), but received {what}_size:{len(v)} != axes.size():{len(axes)}.] "
                "(at /paddle/paddle/phi/infermeta/unary.cc:5264)\n")
    return {"axes": tuple(_non_negative(a, x.ndim) for a in axes), "starts": tuple(starts),
            "ends": tuple(ends), "strides": tuple(strides)}


def strided_slice(x, axes, starts, ends, strides, name=None):
    """``paddle.strided_slice``: a copy of x sliced along ``axes`` with steps ``strides``."""
    return _dispatch.call(OPS_PADDLE["strided_slice"], (x,),
                          _slice_params(x, axes, starts, ends, strides))


def crop(x, shape=None, offsets=None, name=None):
    """``paddle.crop``: the block of ``shape`` (-1: to the end) at ``offsets`` (default 0)."""
    if isinstance(shape, _Core):
        shape = shape.shape if shape.ndim == len(x.shape) and shape.ndim > 1 else shape.tolist()
    shape = list(x.shape) if shape is None else [int(s) for s in shape]
    offsets = [0] * x.ndim if offsets is None else (
        offsets.tolist() if isinstance(offsets, _Core) else [int(o) for o in offsets])
    for i, (o, n) in enumerate(zip(offsets, shape)):
        if n != -1 and o + n > x.shape[i]:
            raise ValueError(
                f"(InvalidArgument) The sum of the {i}th elements of offsets ({o}) and shape ({n}) "
                f"of Op(crop_tensor) should be less than or equal to the size of {i}th dimension "
                f"of the input.\n  [Hint: Expected offsets_vec[i] + shape_vec[i] <= x_dims[i], "
                f"but received offsets_vec[i] + shape_vec[i]:{o + n} > x_dims[i]:{x.shape[i]}.] "
                "(at /paddle/paddle/phi/kernels/impl/crop_kernel_impl.h:113)\n")
    ends = [x.shape[i] if s == -1 else o + s for i, (o, s) in enumerate(zip(offsets, shape))]
    return _dispatch.call(OPS_PADDLE["crop"], (x,), {
        "axes": tuple(range(x.ndim)), "starts": tuple(offsets), "ends": tuple(ends),
        "strides": (1,) * x.ndim})


def multiplex(inputs, index, name=None):
    """``paddle.multiplex``: row i of the result is row i of ``inputs[index[i]]``."""
    if len(inputs) < 2:
        raise ValueError(
            "(InvalidArgument) multiplex operator should have more than one candidate input "
            f"tensors.\n  [Hint: Expected num_ins > 1, but received num_ins:{len(inputs)} <= "
            "1:1.] (at /paddle/paddle/phi/infermeta/multiary.cc:4424)\n")
    if index._dtype.name != "int32":
        from .numeric import _retrieve_error

        raise _retrieve_error("int32", index._dtype.name)
    _pops.check_multiplex((len(inputs),) + tuple(inputs[0].shape), backend.to_numpy(index._a))
    return _call("multiplex", _il.stack(list(inputs)), index)


def increment(x, value=1.0, name=None):
    """``paddle.increment``: x (one element) += value in place, unrecorded; x back."""
    if x.numel() != 1:
        raise ValueError(
            "(InvalidArgument) The number of elements in Input(X) should be 1.Now the number "
            f"is {x.numel()}.\n  [Hint: Expected product(x.dims()) == 1UL, but received "
            f"product(x.dims()):{x.numel()} != 1UL:1.] (at "
            "/paddle/paddle/phi/infermeta/unary.cc:2378)\n")
    x._a[...] = x._a + np.asarray(value).astype(x._dtype.np)
    x._vc.bump()
    return x


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    return _call("stanh", x, scale_a=scale_a, scale_b=scale_b)


def i0e(x, name=None):
    return _call("i0e", x)


def i1(x, name=None):
    return _call("i1", x)


def i1e(x, name=None):
    return _call("i1e", x)


# ---- composites over the core's ops (grad nodes as Paddle's composites) ------------------------

def cartesian_prod(x, name=None):
    """``paddle.cartesian_prod``: every combination of the 1-D inputs' elements as rows."""
    from inplace_lab.paddle import meshgrid, stack

    for t in x:
        if t.ndim != 1:
            raise ValueError(f"Expect a 1D vector, but got shape {t.shape}")
    if len(x) == 1:
        return x[0]
    grids = meshgrid(*x)
    return _views.reshape(stack(grids, axis=-1), [-1, len(x)])


def combinations(x, r=2, with_replacement=False, name=None):
    """``paddle.combinations``: the r-length combinations of a 1-D x's elements as rows."""
    import itertools

    from inplace_lab.paddle import index_select, stack

    if x.ndim != 1:
        raise TypeError(f"Expect a 1-D vector, but got x shape {x.shape}")
    if not isinstance(r, int) or r < 0:
        raise ValueError(f"Expect a non-negative int, but got r={r}")
    if r == 0:
        return _pc._own(_creation.empty((0,), dtype=x._dtype, device=x.device))
    n = x.shape[0]
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = list(pick(range(n), r))
    if not rows:
        return _pc._own(_creation.empty((0, r), dtype=x._dtype, device=x.device))
    cols = np.array(rows, dtype=np.int64).T
    return stack([index_select(x, _pc.to_tensor(c), axis=0) for c in cols], axis=1)


def column_stack(x, name=None):
    from inplace_lab.paddle import concat

    cols = [_views.reshape(t, [-1, 1]) if t.ndim < 2 else t for t in x]
    return concat(cols, axis=1)


def row_stack(x, name=None):
    from inplace_lab.paddle import vstack

    return vstack(x)


def view_as(x, other, name=None):
    """``paddle.view_as``: a view of x in other's shape (ViewShapeGradNode)."""
    return _views.view(x, list(other.shape))


def reduce_as(x, target, name=None):
    """``paddle.reduce_as``: x summed down to target's shape (ReduceAsGradNode)."""
    xs, ts = list(x.shape), list(target.shape)
    diff = len(xs) - len(ts)
    for i, n in enumerate(ts):
        if diff < 0 or (xs[i + diff] != n and n != 1):
            raise ValueError(
                "(InvalidArgument) ReduceDims dimension mismatch. Operands could not be "
                f"broadcast together with the shape of in_dims = {xs} and the shape of out_dims "
                f"= {ts}. Received [{xs[i + diff]}] in X is not equal to [{n}] in Y at i:{i}.\n  "
                f"[Hint: Expected in_dims[i + diff] == out_dims[i], but received in_dims[i + "
                f"diff]:{xs[i + diff]} != out_dims[i]:{n}.] (at "
                "/paddle/paddle/phi/kernels/funcs/common_shape.h:347)\n")
    return _call("reduce_as", x, list(target.shape))


def matrix_transpose(x, name=None):
    from inplace_lab.paddle import transpose

    if x.ndim < 2:
        raise ValueError(f"Tensor.ndim({x.ndim}) is required to be greater than or equal to 2.")
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):
    """``paddle.histogram_bin_edges``: Paddle's composite, ``linspace(min, max, bins + 1)``
    in the default dtype over the data's range when min and max are both 0 (a zero-width
    range widened by 0.5 each side)."""
    import inplace_lab.paddle as paddle

    if input._dtype.name not in ("float32", "float64", "int32", "int64"):
        raise TypeError("The data type of 'input' in histogram_bin_edges must be ['float32', "
                        f"'float64', 'int32', 'int64'], but received {input._dtype.name}. ")
    if not isinstance(bins, int):
        raise TypeError("The type of 'bins' in histogram_bin_edges must be <class 'int'>, but "
                        f"received {type(bins)}. ")
    if max == 0.0 and min == 0.0:
        min, max = paddle.min(input), paddle.max(input)
    elif max < min:
        raise ValueError("max must be larger than min in range parameter")
    if (min - max) == 0.0:
        max, min = max + 0.5, min - 0.5
    return paddle.linspace(min, max, bins + 1)


def pdist(x, p=2.0, name=None):
    """``paddle.pdist``: the distances between the rows of a 2-D x (upper triangle, row
    order), as Paddle's composite: cdist, then the triangle's mask (MaskedSelectGradNode)."""
    from inplace_lab.paddle import cdist, masked_select

    if x.ndim != 2:
        raise AssertionError(f"The x must be 2-dimensional, but got {x.ndim}")
    n = x.shape[0]
    d = cdist(x, x, p=p) if hasattr(_il, "cdist") else None
    mask = _pc.to_tensor(np.triu(np.ones((n, n), bool), 1))
    return masked_select(d, mask)


# ---- windows: Paddle's paddle/audio/functional/window.py (scipy's formulas), in the dtype ---

def _len_guards(m):
    if int(m) != m or m < 0:
        raise ValueError("Window length M must be a non-negative integer")
    return m <= 1


def _general_cosine(m, a, sym, dtype):
    import inplace_lab.paddle as paddle

    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = (m, False) if sym else (m + 1, True)
    fac = paddle.linspace(-math.pi, math.pi, m, dtype=dtype)
    w = paddle.zeros((m,), dtype=dtype)
    for k in range(len(a)):
        w = w + a[k] * paddle.cos(k * fac)
    return w[:-1] if trunc else w


def _bartlett(m, sym, dtype):
    import inplace_lab.paddle as paddle

    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = (m, False) if sym else (m + 1, True)
    n = paddle.arange(0, m, dtype=dtype)
    mt = paddle.to_tensor(m, dtype=dtype)
    w = paddle.where(paddle.less_equal(n, (mt - 1) / 2.0), 2.0 * n / (mt - 1),
                     2.0 - 2.0 * n / (mt - 1))
    return w[:-1] if trunc else w


def _kaiser(m, beta, sym, dtype):
    import inplace_lab.paddle as paddle

    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = (m, False) if sym else (m + 1, True)
    beta = paddle.to_tensor(beta, dtype=dtype)
    n = paddle.arange(0, m, dtype=dtype)
    mt = paddle.to_tensor(m, dtype=dtype)
    alpha = (mt - 1) / 2.0
    w = paddle.i0(beta * paddle.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / paddle.i0(beta)
    return w[:-1] if trunc else w


def _window(w, requires_grad):
    w = w.detach()
    w._policy = "paddle"
    if requires_grad:
        w.stop_gradient = False
    return w


def hann_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                pin_memory=False, requires_grad=False):
    return _window(_general_cosine(window_length, [0.5, 0.5], not periodic, dtype),
                   requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype="float32",
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    w0 = _general_cosine(window_length, [0.54, 1.0 - 0.54], not periodic, dtype)
    b = beta / 0.46
    return _window((alpha - b * 0.54) + b * w0, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    return _window(_general_cosine(window_length, [0.42, 0.50, 0.08], not periodic, dtype),
                   requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    return _window(_bartlett(window_length, not periodic, dtype), requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype="float32", layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    return _window(_kaiser(window_length, beta, not periodic, dtype), requires_grad)


# ---- Tensor methods of module functions, conversions, modes -----------------------------------

def _method_of(fname):
    def method(self, *args, **kwargs):
        import inplace_lab.paddle as _p

        return getattr(_p, fname)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = fname
    return method


TENSOR_METHODS = {n: _method_of(n) for n in ("tensordot", "cdist", "block_diag",
                                             "broadcast_tensors", "vander")}


def _converter(dname):
    def convert(self):
        """``x.float32()`` ...: x cast to the dtype (x itself when it has it)."""
        if self._dtype.name == dname:
            return self
        return self.astype(dname)

    convert.__name__ = convert.__qualname__ = dname
    return convert


for _d in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"):
    TENSOR_METHODS[_d] = _converter(_d)


def _is_same_shape(self, y):
    return list(self.shape) == list(y.shape)


TENSOR_METHODS.update(is_same_shape=_is_same_shape, is_tensor=lambda self: True,
                      is_dense=lambda self: True)

NAMES += ("in_dynamic_mode", "is_compiled_with_cuda", "is_compiled_with_xpu",
          "is_compiled_with_rocm", "is_compiled_with_ipu", "is_compiled_with_cinn",
          "is_compiled_with_custom_device", "is_compiled_with_distribute", "disable_static",
          "enable_static", "as_tensor", "asarray", "standard_normal", "isreal", "vecdot")


def in_dynamic_mode():
    return True


def is_compiled_with_cuda():
    """True where a GPU (cupy, or the simulated one) can be used: ``set_device('gpu')``."""
    return backend.gpu_count() > 0


def _false(*args):
    return False


is_compiled_with_xpu = is_compiled_with_rocm = is_compiled_with_ipu = _false
is_compiled_with_cinn = is_compiled_with_distribute = _false


def is_compiled_with_custom_device(device_type):
    return False


def disable_static(place=None):
    """Dynamic mode is the only mode here: nothing to do (``place`` sets the device)."""
    if place is not None:
        set_default_device(place)


def enable_static():
    raise NotImplementedError("inplace_lab.paddle runs in dynamic (eager) mode only: "
                              "paddle.enable_static() and static graphs are not supported")


def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """``paddle.as_tensor``: ``to_tensor`` (a copy, even of a tensor)."""
    return _pc.to_tensor(data, dtype=dtype, place=device, stop_gradient=not requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    return as_tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)


def standard_normal(shape, dtype=None, name=None, *, out=None, device=None,
                    requires_grad=False):
    return _pc._own(_pc.randn(shape, dtype), not requires_grad)


def isreal(x, name=None):
    if x._dtype.name in ("complex64", "complex128"):
        return _il.imag(x) == 0
    return _pc._own(_creation.ones(tuple(x.shape), dtype=dtypes.bool_, device=x.device))


def vecdot(x, y, axis=-1, name=None):
    return (x * y).sum(axis)


# ---- Paddle's own composites for names the op table answers with PyTorch's ---------------------

NAMES += ("block_diag", "cdist", "vander", "broadcast_tensors")


def block_diag(inputs, name=None):
    """``paddle.block_diag``: Paddle's composite (zero blocks concatenated: ConcatGradNode)."""
    from inplace_lab.paddle import concat, zeros

    def to_2d(a):
        if a.ndim == 0:
            return a.unsqueeze(axis=0).unsqueeze(axis=0)
        if a.ndim == 1:
            return a.unsqueeze(axis=0)
        if a.ndim == 2:
            return a
        raise ValueError("For 'block_diag', the dimension of each elements in 'inputs' must be "
                         f"0, 1, or 2, but got {a.ndim}")

    arys = [to_2d(a) for a in inputs]
    cols = [concat([a if j == i else zeros([b.shape[0], a.shape[1]], dtype=a.dtype)
                    for j, b in enumerate(arys)], axis=0) for i, a in enumerate(arys)]
    return concat(cols, axis=1)


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """``paddle.cdist``: Paddle's composite (the p-norm of the pairwise differences,
    PNormGradNode; for p=2 with more than 25 rows, the matmul expansion)."""
    from inplace_lab.paddle import clip, empty, matmul, norm, transpose, zeros

    if compute_mode not in _CDIST_MODES:
        raise ValueError(
            "The compute_mode should be 'use_mm_for_euclid_dist_if_necessary', "
            "'use_mm_for_euclid_dist' or 'donot_use_mm_for_euclid_dist', "
            f"but received compute_mode is {compute_mode}.")
    mode = _CDIST_MODES.index(compute_mode)
    xs, ys = list(x.shape), list(y.shape)
    assert len(xs) >= 2, ("The x must be at least 2-dimensional, "
                          f"But received Input x's dimensional is {len(xs)}.\n")
    assert len(ys) >= 2, ("The y must be at least 2-dimensional, "
                          f"But received Input y's dimensional is {len(ys)}.\n")
    assert xs[-1] == ys[-1], (
        "The x and y must have same last dimension, "
        f"But received Input x's last dimension is {xs[-1]}, "
        f"Input y's last dimension is {ys[-1]}.\n")
    assert p >= 0, f"The p must be greater than or equal to 0, But received p is {p}.\n"
    r1, r2, c1 = xs[-2], ys[-2], xs[-1]
    p = builtins.float(p)
    if r1 == 0 or r2 == 0:
        return empty((r1, r2), dtype=x.dtype)
    if c1 == 0:
        return zeros((r1, r2), dtype=x.dtype)
    if p == 2.0 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        x_norm = (x.pow(2)).sum(axis=-1, keepdim=True)
        y_norm = (y.pow(2)).sum(axis=-1, keepdim=True)
        yt = transpose(y, [*range(y.ndim - 2), y.ndim - 1, y.ndim - 2])
        ynt = transpose(y_norm, [*range(y_norm.ndim - 2), y_norm.ndim - 1, y_norm.ndim - 2])
        res = matmul(x, yt) * -2 + ynt + x_norm
        return clip(res, min=0.0).sqrt()
    return norm(x.unsqueeze(-2) - y.unsqueeze(-3), p=p, axis=-1)


def vander(x, n=None, increasing=False, name=None):
    """``paddle.vander``: columns ``x ** i`` (decreasing unless ``increasing``); the
    decreasing form is a reversed strided slice (StridedSliceGradNode), as Paddle's."""
    from inplace_lab.paddle import ones, stack

    if x.ndim != 1:
        raise ValueError("The input of x is expected to be a 1-D Tensor."
                         f"But now the dims of Input(X) is {x.ndim}.")
    if n is None:
        n = x.shape[0]
    if n < 0:
        raise ValueError("N must be non-negative.")
    if n == 0:
        return _pc._own(_creation.empty((x.shape[0], 0), dtype=x._dtype, device=x.device))
    cols = [ones([x.shape[0]], dtype=x.dtype)] + [x if i == 1 else x ** i for i in range(1, n)]
    res = stack(cols, axis=1)
    if increasing:
        return res
    return strided_slice(res, [1], [n - 1], [-n - 1], [-1])


def broadcast_tensors(input, name=None):
    """``paddle.broadcast_tensors``: new tensors (not views) of the common shape, each with
    a BroadcastTensorsGradNode."""
    shp = broadcast_shapes(*[list(t.shape) for t in input])
    return [_dispatch.call(_BROADCAST, (t,), {"size": tuple(shp)}) for t in input]


def _broadcast_fwd(xp, a, out=None, dt=None, size=()):
    r = xp.broadcast_to(a, size).copy()
    return r if out is None else r


_BROADCAST = dataclasses.replace(
    OPS["expand"], name="broadcast_tensors", kind="normal", forward=_broadcast_fwd,
    backward=lambda c, g: (g.sum_to_size(c.input_meta[0][0]),), args=("self",),
    params={"size": ()}, saves=(), select=None, variadic=False, perm_of=None, out=False,
    function=False, method=False, dtype_rule="self", backward_array=None)


NAMES += ("tensordot",)


def tensordot(x, y, axes=2, name=None):
    """``paddle.tensordot``: Paddle's composite (size-1 contracted axes summed first, then
    transpose, reshape, one matmul, reshape)."""
    if isinstance(axes, _Core):
        axes = axes.tolist()
    axes_x, axes_y = [], []
    if np.issubdtype(type(axes), np.integer):
        assert axes >= 0, ("The 'axes' in tensordot should not be negative, but received "
                           f"axes={axes}.")
        axes_x, axes_y = range(x.ndim - axes, x.ndim), range(axes)
    elif not axes or np.issubdtype(type(axes[0]), np.integer):
        axes_x = axes
    else:
        axes_x = axes[0]
        if len(axes) > 1:
            axes_y = axes[1]
    axes_x = axes_x.tolist() if isinstance(axes_x, _Core) else list(axes_x)
    axes_y = axes_y.tolist() if isinstance(axes_y, _Core) else list(axes_y)
    if len(axes_x) < len(axes_y):
        axes_x.extend(axes_y[len(axes_x):])
    elif len(axes_y) < len(axes_x):
        axes_y.extend(axes_x[len(axes_y):])
    shape_x, shape_y = list(x.shape), list(y.shape)
    need_x, need_y = np.zeros(x.ndim, dtype=bool), np.zeros(y.ndim, dtype=bool)
    contraction = 1
    for dim_x, dim_y in zip(axes_x, axes_y):
        sx, sy = shape_x[dim_x], shape_y[dim_y]
        if sx == 1:
            shape_y[dim_y] = 1
            y = y.sum(dim_y, dtype=y.dtype).reshape(shape_y)
        elif sy == 1:
            shape_x[dim_x] = 1
            x = x.sum(dim_x, dtype=x.dtype).reshape(shape_x)
        else:
            assert sx == sy, (
                "The dimensional size for 'x' and 'y' in tensordot should match each other, "
                f"but 'x' has size {sx} in dim {dim_x} while 'y' has size {sy} in dim {dim_y}.")
        need_x[dim_x] = need_y[dim_y] = True
        contraction *= shape_x[dim_x]
    perm_x, perm_y, shape_out = [], [], []
    nx = ny = 1
    for i in range(x.ndim):
        if not need_x[i]:
            perm_x.append(i)
            shape_out.append(shape_x[i])
            nx *= shape_x[i]
    perm_x.extend(axes_x)
    perm_y.extend(axes_y)
    for i in range(y.ndim):
        if not need_y[i]:
            perm_y.append(i)
            shape_out.append(shape_y[i])
            ny *= shape_y[i]
    x = x.transpose(perm=perm_x).reshape([nx, contraction])
    y = y.transpose(perm=perm_y).reshape([contraction, ny])
    return x.matmul(y).reshape(shape_out)


NAMES += ("create_parameter",)


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """``paddle.create_parameter``: a parameter named ``create_parameter_N.w_0`` (or
    ``.b_0``), filled by ``default_initializer`` (XavierUniform / Constant(0) by default)."""
    from .nn.parameter import ParamAttr, make_parameter, unique_name

    if name is not None and attr is None:
        attr = ParamAttr(name=name)
    return make_parameter(unique_name("create_parameter"), shape, attr, dtype, is_bias,
                          default_initializer)


class VisibleDeprecationWarning(UserWarning):
    """Paddle's ``paddle.utils.deprecated.VisibleDeprecationWarning``."""


def _gradient(self):
    """``x.gradient()`` (deprecated since 2.1): x's gradient as a numpy array, or None."""
    import warnings

    warnings.warn(
        "\x1b[93m\nWarning:\nAPI \"paddle.base.dygraph.tensor_patch_methods.gradient\" is "
        "deprecated since 2.1.0, and will be removed in future versions.\n    Reason: Please use "
        "tensor.grad, which returns the tensor value of the gradient. \x1b[0m",
        VisibleDeprecationWarning, stacklevel=2)
    g = self.grad
    return None if g is None else g.numpy()


def _apply(self, func):
    """``x.apply(func)``: ``func(x)``, refused on a tensor that requires grad."""
    if not self.stop_gradient:
        raise RuntimeError("Cannot apply function on a tensor that required gradient.")
    return func(self)


TENSOR_METHODS.update(slice=_method_of("slice"), gradient=_gradient, apply=_apply)


NAMES += ("slice",)


def slice(input, axes, starts, ends):  # noqa: A001  (Paddle's name)
    """``paddle.slice(input, axes, starts, ends)``: a view of ``input[starts:ends]`` along
    each axis (Python's clamping of out-of-range bounds; SliceGradNode)."""
    p = _slice_params(input, axes, starts, ends, None)
    out = input
    for ax, s, e in zip(p["axes"], p["starts"], p["ends"]):
        n = out.shape[ax]
        lo, hi, _ = builtins.slice(s, e).indices(n)
        out = _dispatch.call_view(OPS["slice"], (out,), {"dim": ax, "start": lo,
                                                          "end": builtins.max(hi, lo), "step": 1})
    return out


# ---- Paddle's gather, scatter, roll, count_nonzero, histogram (Paddle's arguments) ---------------

NAMES += ("gather", "scatter", "roll", "count_nonzero", "histogram")
METHODS += ("gather", "scatter", "roll", "count_nonzero", "histogram")

_GATHER = dataclasses.replace(OPS["index_select"], name="gather", select=None)


def gather(x, index, axis=None, name=None, out=None):
    """``paddle.gather``: the slices ``index`` (1-D; a 0-D index drops the axis; a 2-D one
    is flattened) of x along ``axis`` (0 by default); GatherGradNode."""
    if isinstance(axis, _Core):
        axis = int(axis.item())
    axis = 0 if axis is None else _non_negative(int(axis), x.ndim)
    n = x.shape[axis]
    a = backend.to_numpy(index._a).reshape(-1)
    big = a[a >= n]
    if big.size:
        i = int(np.argmax(a >= n))
        raise IndexError(
            "(OutOfRange) The element of Index must be less than the size of input dim size of "
            f"axis which is {n}, but received index element which is {int(big[0])} in the {i} "
            f"index.\n  [Hint: Expected p_index[i] < index_dim_size, but received "
            f"p_index[i]:{int(big[0])} >= index_dim_size:{n}.] (at "
            "/paddle/paddle/phi/kernels/funcs/gather.h:82)\n")
    flat = index if index.ndim == 1 else _views.reshape(index, [-1])
    r = _dispatch.call(_GATHER, (x, axis, flat), {})
    if index.ndim == 0:
        from inplace_lab.paddle import squeeze

        r = squeeze(r, axis)
    if out is not None:
        from .inplace import copy_

        copy_(out, r)
        out._vc.bump()
        return out
    return r


def scatter(x, index, updates, overwrite=True, name=None):
    """``paddle.scatter``: a copy of x whose rows ``index`` are ``updates``' rows
    (``overwrite=False``: those rows zeroed, then every update added); ScatterGradNode."""
    return _dispatch.call(_pops.PADDLE_SCATTER, (x, index, updates),
                          {"overwrite": builtins.bool(overwrite)})


def roll(x, shifts, axis=None, name=None):
    return _il.roll(x, shifts, axis) if axis is not None else _il.roll(x, shifts)


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """``paddle.count_nonzero``: int64 counts of the nonzero elements over ``axis``."""
    from inplace_lab.paddle import sum as _sum

    nz = (x != 0).astype("int64")
    return _sum(nz, axis=axis, keepdim=keepdim)


def histogram(input, bins=100, min=0.0, max=0.0, weight=None, density=False, name=None):
    """``paddle.histogram``: counts in ``bins`` equal bins over [min, max] (the data's range
    when both are 0; a zero-width range widened by 1 each side); int64 counts, the weight's
    dtype with ``weight``, float32 densities with ``density``."""
    a = backend.to_numpy(input._a).astype(np.float64).reshape(-1)
    lo, hi = builtins.float(min), builtins.float(max)
    if lo == 0 and hi == 0 and a.size:
        lo, hi = builtins.float(a.min()), builtins.float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    w = None if weight is None else backend.to_numpy(weight._a).astype(np.float64).reshape(-1)
    counts, _ = np.histogram(a, bins=bins, range=(lo, hi), weights=w)
    if density:
        total = counts.sum()
        counts = counts / (total * (hi - lo) / bins) if total else counts * 0.0
        dt = dtypes.float32
    else:
        dt = dtypes.int64 if weight is None else weight._dtype
    return _pc._own(_creation.tensor(counts.astype(dt.np), dtype=dt, device=input.device))


NAMES += ("slice_scatter",)


def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """``paddle.slice_scatter``: a copy of x with ``value`` written into the strided slice
    (Paddle's set_value_with_tensor: SetValueWithTensorGradNode)."""
    p = _slice_params(x, axes, starts, ends, strides)
    y = _Core.clone(x)
    where = _pops._slices(tuple(x.shape), p["axes"], p["starts"], p["ends"], p["strides"])
    if builtins.all(s.step is None or s.step > 0 for s in where):
        y[where] = value
    else:  # (a negative step: the same cells by a positive one, the value flipped there)
        from inplace_lab.paddle import flip

        pos, neg = [], []
        for d, s in enumerate(where):
            if s.step is not None and s.step < 0:
                cells = np.arange(x.shape[d])[s]
                pos.append(builtins.slice(int(cells[-1]), int(cells[0]) + 1, -s.step)
                           if cells.size else builtins.slice(0, 0))
                neg.append(d)
            else:
                pos.append(s)
        y[tuple(pos)] = flip(value, neg)
    from inplace_lab.version import VersionCounter

    y._vc = VersionCounter()  # (one out-of-place op in Paddle: the result's version is 0)
    return y


# ---- more of Paddle's argument lists over the core's ops --------------------------------------

NAMES += ("diagonal_scatter", "argmax", "argmin", "logcumsumexp", "bernoulli", "frexp", "take")
METHODS += ("argmax", "argmin", "logcumsumexp", "frexp", "take", "diagonal_scatter")


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """``paddle.diagonal_scatter``: Paddle's fill_diagonal_tensor (FillDiagonalTensorGradNode)."""
    return _dispatch.call(OPS["fill_diagonal_tensor"], (x, y),
                          {"offset": offset, "dim1": axis1, "dim2": axis2})


def _arg_reduce(fn, x, axis, keepdim, dtype):
    dt = _pc._dtype(dtype)
    if dt.name not in ("int32", "int64"):
        raise TypeError("the value of 'dtype' in argmax could not be None, but received None"
                        if dtype is None else
                        f"The data type of 'dtype' in {fn.__name__} must be ['int32', 'int64'], "
                        f"but received {dt.name}.")
    r = fn(x, axis, keepdim) if axis is not None else fn(x)
    if axis is None and keepdim:
        r = _views.reshape(r, [1] * x.ndim)
    return r if dt is dtypes.int64 else r.astype(dt.name)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    return _arg_reduce(_il.argmax, x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    return _arg_reduce(_il.argmin, x, axis, keepdim, dtype)


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """``paddle.logcumsumexp``: over the flattened x when ``axis`` is None; ``dtype`` casts
    x first."""
    if dtype is not None:
        x = x.astype(_pc._dtype(dtype).name)
    if axis is None:
        x = _views.reshape(x, [-1])
        axis = 0
    return _il.logcumsumexp(x, axis)


def bernoulli(x, p=None, name=None):
    """``paddle.bernoulli``: 0/1 draws with probabilities x, or ``p`` everywhere (a uniform
    of x's dtype per element from Paddle's generator, 1 where it falls below)."""
    if p is None:
        return _il.bernoulli(x, generator=_pc._gen)
    from inplace_lab.paddle import full_like

    return _il.bernoulli(full_like(x, builtins.float(p)), generator=_pc._gen)


def frexp(x, name=None):
    """``paddle.frexp``: Paddle's composite (mantissa differentiable; exponent in x's dtype)."""
    import inplace_lab.paddle as paddle

    if x._dtype.name not in ("float32", "float64"):
        raise TypeError("The data type of input must be one of ['float32', 'float64'], but got "
                        f"{x.dtype}")
    input_x = paddle.abs(x)
    exponent = paddle.floor(paddle.log2(input_x))
    exponent = paddle.where(paddle.isinf(exponent), paddle.full_like(exponent, 0), exponent)
    mantissa = paddle.divide(input_x, 2 ** exponent)
    exponent = paddle.where(mantissa >= 1, paddle.add(exponent, paddle.ones_like(exponent)),
                            exponent)
    mantissa = paddle.where(mantissa >= 1,
                            paddle.divide(mantissa, 2 ** paddle.ones_like(exponent)), mantissa)
    mantissa = paddle.where(x < 0, mantissa * -1, mantissa)
    return mantissa, exponent


def take(x, index, mode="raise", name=None):
    """``paddle.take``: elements of the flattened x (``mode``: 'raise' checks the bounds and
    counts negative indices from the end, 'wrap' takes them modulo, 'clip' clamps them)."""
    from inplace_lab.paddle import index_select

    if mode not in ("raise", "wrap", "clip"):
        raise ValueError("'mode' in 'take' should be 'raise', 'wrap', 'clip', but received "
                         f"{mode}.")
    if not isinstance(index, _Core):
        raise TypeError(f"The type of 'index' must be Tensor, but got {type(index)}")
    if index._dtype.name not in ("int32", "int64"):
        raise TypeError("The data type of 'index' must be one of ['int32', 'int64'], but got "
                        f"{index.dtype}")
    n = int(np.prod(x.shape))
    a = backend.to_numpy(index._a)
    if mode == "raise":  # (negative indices wrap once here, and once more in index_select)
        a = np.where(a < 0, a + n, a)
        bad = a[(a < -n) | (a >= n)]
        if bad.size:
            v = int(bad.reshape(-1)[0])
            hint = (f"index_data[i] < input_dim[dim], but received index_data[i]:{v} >= "
                    f"input_dim[dim]:{n}" if v >= n else
                    f"index_data[i] >= -input_dim[dim], but received index_data[i]:{v} < "
                    f"-input_dim[dim]:{-n}")
            raise ValueError(
                f"(InvalidArgument) Variable value (index) of OP(index_select) expected >= -{n} "
                f"and < {n}, but got {v}. Please check input value.\n  [Hint: Expected {hint}.] "
                f"(at /paddle/paddle/phi/kernels/cpu/index_select_impl.h:{96 if v >= n else 86})\n")
        a = np.where(a < 0, a + n, a)
    elif mode == "wrap":
        a = np.mod(a, n)
    else:
        a = np.clip(a, 0, n - 1)
    flat_index = _pc.to_tensor(a.reshape(-1).astype(index._dtype.np))
    r = index_select(_views.reshape(x, [-1]), flat_index, axis=0)
    return _views.reshape(r, list(index.shape))


def _paddle_new(fname):
    core = getattr(_Core, fname)

    def new(self, *args, **kwargs):
        r = core(self, *args, **kwargs)
        r._policy = "paddle"
        return r

    new.__name__ = new.__qualname__ = fname
    return new


for _n in ("new_full", "new_zeros", "new_ones", "new_empty", "new_tensor"):
    if hasattr(_Core, _n):
        TENSOR_METHODS[_n] = _paddle_new(_n)


NAMES += ("summary", "flops")


def summary(net, input_size=None, dtypes=None, input=None):
    """``paddle.summary``: the layer table Paddle prints (see hapi_summary.py)."""
    from .hapi_summary import summary as _summary

    return _summary(net, input_size, dtypes, input)


def flops(net, input_size, custom_ops=None, print_detail=False):
    raise NotImplementedError("paddle.flops is not reproduced by inplace_lab")


def _rtruediv(self, other):
    """``number / x``: Paddle fills the number into a tensor and divides (DivideGradNode)."""
    if isinstance(other, numbers.Number) and not isinstance(other, builtins.bool) and \
            self._dtype.name in ("float16", "float32", "float64"):
        from inplace_lab.paddle import divide, full

        return divide(full([], other, dtype=self._dtype.name), self)
    return _Core.__rtruediv__(self, other)


TENSOR_METHODS["__rtruediv__"] = _rtruediv
