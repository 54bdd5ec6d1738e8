"""Paddle 3.3.1's in-place API, with Paddle's names and signatures, over the op table.

Every name Paddle exports (``api_names``: the Tensor methods, the ``paddle.X_``
functions, ``paddle.nn.functional.X_``) becomes one adapter that, *at call time*:

1. binds Paddle's arguments by Paddle's parameter names (``api_names.SIGNATURES``),
2. finds the table op (``clip_`` -> clamp, ``gammaln_`` -> lgamma, ``scale_`` -> scale),
3. renames the arguments to the op's (``y`` -> other, ``axis`` -> dim, ``min`` -> min_val),
4. sends it through the dispatcher's in-place path (checks, version bump, graph).

Metadata ops (``reshape_``, ``transpose_(perm)``, ``flatten_`` ...) and the few
that are not table ops (``cast_``, ``apply_``, ``where_``) have a small handler here.
``describe(name)`` says what a name maps to; the coverage table reads it.

Version counts are Paddle's, to the letter: where Paddle 3.3.1 moves
``_inplace_version()`` by other than 1 (a Python composite of several in-place calls,
a kernel that does not bump), the adapter moves it by the same amount, from the
measured data in ``version_counts.py`` (``scripts/measure_paddle_versions.py``).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from inplace_lab import dtypes, facade, layout, policy, rng
from inplace_lab.autograd import grad_mode
from inplace_lab.ops import dispatch
from inplace_lab.ops.table import OPS
from inplace_lab.tensor import Tensor as _Core

from . import api_names, version_counts

# Paddle names whose table op is called differently (used when the table has no such alias).
RENAMES = {
    "gammaln": "lgamma", "clip": "clamp", "multiply": "mul", "divide": "div",
    "subtract": "sub", "floor_mod": "remainder", "mod": "remainder", "equal": "eq",
    "not_equal": "ne", "less": "lt", "less_than": "lt", "less_equal": "le",
    "greater_than": "gt", "greater_equal": "ge", "bitwise_invert": "bitwise_not",
}

# Paddle parameter name -> table parameter names it may be called (first one the op has wins).
_CANDIDATES = {
    "y": ("other", "exponent", "end", "mat2", "batch2", "src", "source"),
    "x": ("mat1", "batch1"),
    "axis": ("dim",),
    "value": ("value", "source", "values", "src", "fill_value"),
    "min": ("min_val", "from_", "low"),
    "max": ("max_val", "to", "high"),
    "lam": ("lambd",),
    "loc": ("median",),
    "scale": ("sigma",),
    "probs": ("p",),
    "from_": ("from", "low"),
    "max_norm": ("maxnorm",),
    "updates": ("src",),
    "indices": ("index",),
    "values": ("src",),
}

# Paddle defaults that differ from the table op's (passed when the caller leaves them out).
_DEFAULTS = {"softmax_": {"axis": -1}}


def op_of(name: str):
    """The table op behind a Paddle in-place name, or None (looked up now: the table grows)."""
    return facade.resolve(name, RENAMES)


def _table_names(spec):
    return spec.args[1:] + spec.param_names


def translate(spec, pname: str, args: tuple, kwargs: dict) -> dict:
    """Paddle's arguments (after the target) as keyword arguments of the table op."""
    names = api_names.SIGNATURES.get(pname)
    given = dict(_DEFAULTS.get(pname, {}))
    if names is None:
        if args:
            known = _table_names(spec)
            if len(args) > len(known):
                raise TypeError(f"{pname}() takes at most {len(known) + 1} positional arguments")
            given.update(zip(known, args))
    else:
        n_pos = api_names.SIGNATURE_POSITIONAL.get(pname, len(names))
        if len(args) == n_pos + 1:  # (Paddle's ``name``, given in place: not an argument)
            args = args[:-1]
        if len(args) > n_pos:
            raise TypeError(f"{pname}() takes at most {n_pos + 2} positional arguments but "
                            f"{len(args) + 1} were given")
        given.update(zip(names, args))
    for k, v in kwargs.items():
        if k != "name":
            given[k] = v
    known = set(_table_names(spec))
    out = {}
    for k, v in given.items():
        target = k if k in known else next((c for c in _CANDIDATES.get(k, ()) if c in known), None)
        if target is None:
            raise TypeError(f"{pname}(): argument '{k}' has no counterpart in inplace_lab's "
                            f"'{spec.name}' op (its arguments: {', '.join(sorted(known))})")
        out[target] = v
    return out


def _not_yet(pname: str, why: str):
    return NotImplementedError(f"paddle {pname}: {why} (inplace_lab's op table does not have it "
                               "yet)")


def _generic(pname: str):
    def fn_(x, *args, **kwargs):
        spec = op_of(pname)
        if spec is None:
            core = getattr(_Core, pname, None)
            if callable(core):  # a core Tensor method of that name (e.g. resize_, detach_)
                return core(x, *args, **{k: v for k, v in kwargs.items() if k != "name"})
            raise _not_yet(pname, f"no op {pname[:-1]!r}")
        if not spec.inplace:
            raise _not_yet(pname, f"the op {spec.name!r} has no in-place form")
        kw = translate(spec, pname, args, kwargs)
        if "generator" in spec.params and kw.get("generator") is None:  # (Paddle's draws)
            kw["generator"] = rng.paddle_generator
        y = args[0] if args else kwargs.get("y")
        if isinstance(y, _Core):
            _check_operand(pname, x, y)
            if _promotes(pname, x, y):
                wide = dtypes.promote_types(x._dtype, y._dtype)
                if not x.is_contiguous():  # (Paddle's kernel retypes x over its bytes, then
                    was = x._dtype.name    # the strided write-back refuses: seed 58080)
                    retype_over_bytes(x, wide)
                    raise retrieve_error(was, wide.name)
                # x's old values stay what backward saved: x itself moves to the new buffer
                old = x.to(wide)  # (a 0-D y promotes too)
                return _take_result(x, dispatch.call(spec, (old,), kw))
        if _gives_bool(spec) and x._dtype is not dtypes.bool_:
            # Paddle's comparison ops in place turn x into a bool tensor (x.equal_(y))
            return _take_result(x, dispatch.call(spec, (x,), kw))
        if policy.paddle_int_to_float_inplace(spec, x):
            return _int_to_float_(x, spec, kw)
        return dispatch.call_inplace(spec, (x,), kw)

    return fn_


def retrieve_error(wanted: str, held: str) -> ValueError:
    """Paddle's error when a kernel's write-back reads a buffer retyped under it."""
    return ValueError(f"(InvalidArgument) The type of data we are trying to retrieve ({wanted}) "
                      f"does not match the type of data ({held}) currently contained in the "
                      "container.")


def retype_over_bytes(x, dt) -> None:
    """x becomes a ``dt`` tensor over the same bytes of the same allocation (Paddle's kernel
    allocating its output of another dtype in x's holder): no new memory; the other tensors
    on the allocation keep their dtype and still share it. Offsets stay in bytes, strides in
    elements (as Paddle's DenseTensor meta)."""
    from inplace_lab import storage as _storage

    old = x._storage
    if old.nbytes() % dt.itemsize:  # (no whole number of dt elements: left as it is)
        return
    view = _storage.Storage(old.data.view(dt.np), dt, old.device, counted=False)
    view.base_storage = getattr(old, "base_storage", old)  # (the allocation: what it shares)
    off = x._offset * x._dtype.itemsize // dt.itemsize
    x._storage, x._dtype = view, dt
    x._set_geometry(x._shape, x._strides, off)
    share_meta(x)


def _int_to_float_(x, spec, kw):
    """``x.exp_()`` on an int32/int64 x: Paddle's kernel is registered for integers and
    allocates its float32 output in x itself, in x's own allocation (big enough): x becomes
    float32 over the same bytes (version + 1, no new memory, nothing recorded). Other tensors
    on that allocation keep their integer dtype and read the float32 bits as integers.

    A non-contiguous x goes through a contiguous copy whose write-back reads the float32
    buffer as x's integer type: Paddle's ValueError, after x already became float32 over its
    untouched bytes (its values: the integer bits read as float32)."""
    f32 = dtypes.float32
    with grad_mode.no_grad(), np.errstate(over="ignore"):  # (in double, rounded once:
        new = dispatch.call(spec, (x.to(dtypes.float64),), kw) if x.is_contiguous() else None
        new = new.to(f32) if new is not None else None  # Paddle's float32 values, no warning)
    dispatch.before_write(x)
    was = x._dtype.name
    retype_over_bytes(x, f32)
    if new is None:
        raise retrieve_error(was, "float32")
    x._a[...] = new._a
    x._vc.bump()
    return x


# ---- Paddle's Python-side checks of the second operand ----------------------------------------

# In-place ops whose Python wrapper refuses a broadcast that would resize x (paddle/tensor/*.py).
_BROADCAST_CHECKED = frozenset((
    "add_", "subtract_", "sub_", "divide_", "div_", "floor_divide_", "remainder_", "mod_",
    "floor_mod_", "multiply_", "mul_", "lerp_", "gcd_", "bitwise_left_shift_",
    "bitwise_right_shift_", "copysign_", "logical_and_", "logical_or_", "logical_xor_",
    "equal_", "greater_equal_", "greater_than_", "less_equal_", "less_than_", "not_equal_",
    "bitwise_and_", "bitwise_or_", "bitwise_xor_"))
# Arithmetic whose kernels promote between tensors: int with float is a TypeError, and a
# lower-precision float x takes the wider dtype of a (non 0-D) y.
_ARITHMETIC = frozenset(("add_", "subtract_", "sub_", "multiply_", "mul_", "divide_", "div_"))


def _check_operand(pname: str, x, y) -> None:
    """Paddle's checks before an in-place binary kernel runs (nothing is written): the
    shapes (its Python wrapper), then the dtypes (the kernel's type promotion)."""
    if pname in _BROADCAST_CHECKED:
        policy.check_paddle_broadcast(tuple(x.shape), tuple(y.shape))
        out = list(layout.broadcast_shapes(tuple(x.shape), tuple(y.shape)))
        if out != list(x.shape):
            raise ValueError(f"The shape of broadcast output {out} is different from that of "
                             f"inplace tensor {x.shape} in the Inplace operation.")
    if pname in _ARITHMETIC:
        policy.check_paddle_promotion(x, y, inplace=True)


def _promotes(pname: str, x, y) -> bool:
    """float32 ``x.add_(y64)``: Paddle's result is float64 and x becomes it (0-D y too; a
    Python number does not promote)."""
    if pname not in _ARITHMETIC or x._dtype is y._dtype:
        return False
    if not (x._dtype.is_floating_point and y._dtype.is_floating_point):
        return False
    return dtypes.promote_types(x._dtype, y._dtype) is not x._dtype


def check_strided_copy(x, src) -> None:
    """Paddle's strided copy (an operand not contiguous) needs equal shapes: its ValueError."""
    if tuple(src.shape) != tuple(x.shape) and not (x.is_contiguous() and src.is_contiguous()):
        raise ValueError(f"(InvalidArgument) Input shape({', '.join(map(str, src.shape))}) must "
                         f"be equal with out shape({', '.join(map(str, x.shape))}).")


def copy_(x, src, blocking=True, name=None):
    """Paddle's ``x.copy_(src, blocking)``: a raw copy of src's values into x.

    As Paddle 3.3.1's ``Tensor::copy_``: out of band, like a write through ``.numpy()``:
    no leaf check, no version bump, nothing recorded (x keeps its history and its
    stop_gradient, and a graph that saved x sees the new values without an error).
    The dtypes must match; a src of another shape re-shapes x when both are contiguous (in
    x's buffer when it fits, else in a new one) and is a ValueError when one is strided.
    """
    if src._dtype is not x._dtype:
        raise RuntimeError(f"(PreconditionNotMet) Tensor {x._name or ''} has different data "
                           f"type with Tensor {src._name or ''}, Tensor Copy cannot be performed!")
    from inplace_lab import backend

    xp = backend.xp_of(x.device)
    if tuple(src.shape) == tuple(x.shape):
        x._a[...] = xp.asarray(src._a)
        return x
    check_strided_copy(x, src)
    n = src.numel()
    if x._offset + n <= x._storage.size():
        shape = tuple(src.shape)
        values = xp.asarray(src._a).reshape(-1).copy()
        x._set_geometry(shape, layout.contiguous_strides(shape), x._offset)
        x._a.reshape(-1)[...] = values
        return share_meta(x)
    with grad_mode.no_grad():
        new = src.detach().clone()
    x._storage = new._storage
    x._set_geometry(new._shape, new._strides, new._offset)
    return share_meta(x)


# ---- handlers for metadata ops and ops that are not table entries ---------------------------

def share_meta(x):
    """Give x's buffer, dtype and geometry to the tensors ``detach()`` made from it (and it
    from them): Paddle's detach shares the whole DenseTensor, not just the buffer."""
    group = getattr(x, "_twins", None)
    if group is None:
        return x
    for r in group:
        t = r()
        if t is not None and t is not x:
            t._storage, t._dtype = x._storage, x._dtype
            t._set_geometry(x._shape, x._strides, x._offset)
    return x



def _view_inplace(x, shape):
    """Change x's shape in place (same object, one version bump): a view of its storage, or,
    for a layout no view can express, a contiguous copy that x takes over."""
    from inplace_lab.ops import methods

    shape = layout.infer_size(tuple(int(n) for n in shape), x.numel())
    if layout.view_strides(x._shape, x._strides, shape) is None:
        # not expressible as a view (x transposed): Paddle lays x out afresh in that shape
        return _take_result(x, _Core.reshape(x, shape))
    return share_meta(methods._inplace_view("view")(x, *shape))


def reshape_(x, shape, name=None):
    from .views import copy_zero_dims

    return _view_inplace(x, copy_zero_dims(x, [int(n) for n in shape]))


def flatten_(x, start_axis=0, stop_axis=-1, name=None):
    from .views import flatten_axes

    s, e = flatten_axes(x.ndim, start_axis, stop_axis, zero_d=False)
    shape = list(x.shape[:s]) + [layout.numel(x.shape[s:e + 1])] + list(x.shape[e + 1:])
    return _view_inplace(x, shape)


def _axes(axis, nd):
    if axis is None:
        return None
    if isinstance(axis, _Core):
        axis = axis.tolist()
    axis = [axis] if isinstance(axis, int) else list(axis)
    return sorted({layout.wrap_dim(a, nd) for a in axis})


def squeeze_(x, axis=None, name=None):
    axes = _axes(axis, x.ndim)
    shape = [n for i, n in enumerate(x.shape) if not (n == 1 and (axes is None or i in axes))]
    return _view_inplace(x, shape)


def unsqueeze_(x, axis, name=None):
    """``x.unsqueeze_(axis)``: the strides of Paddle's unsqueeze (as the out-of-place view's:
    a new dimension at d takes ``size[d] * stride[d]``, at the end 1), not a reshape's."""
    axis = axis.tolist() if isinstance(axis, _Core) else axis
    shape, strides = list(x.shape), list(x._strides)
    for a in ([axis] if isinstance(axis, int) else list(axis)):
        d = a if a >= 0 else a + len(shape) + 1
        strides.insert(d, shape[d] * strides[d] if d < len(shape) else 1)
        shape.insert(d, 1)
    r = _view_inplace(x, shape)
    if r is x and list(x._shape) == shape:
        x._set_geometry(tuple(shape), tuple(strides), x._offset)
    return share_meta(x)


def transpose_(x, perm, name=None):
    return share_meta(_Core.permute_(x, list(perm)))


def t_(input, name=None):
    if input.ndim > 2:
        raise ValueError(f"Input(input) only support N-D (N<=2) tensor, but received length of "
                         f"Input(input) is {input.ndim}. Perhaps you can use paddle.tensor.transpose"
                         "() instead.")
    return share_meta(_Core.t_(input))


def _gives_bool(spec) -> bool:
    rule = spec.dtype_rule
    return rule == "bool" or getattr(rule, "__name__", "") == "bool_rule"


def _take_result(x, new, leaf_check=True):
    """x takes ``new``'s storage, dtype and history in place (one version bump).

    For Paddle's in-place ops that change the dtype (``cast_``, ``equal_`` on floats):
    no buffer can hold the new dtype, so x is re-pointed at the result's storage. Also
    ``paddle.assign(x, output)``, which checks no leaf (``leaf_check=False``).
    """
    if leaf_check and x._requires_grad and x._grad_fn is None and grad_mode.state.enabled:
        from inplace_lab import policy

        raise policy.leaf_error(x, policy.policy_of(x), op="cast")
    x._storage, x._dtype = new._storage, new._dtype
    x._set_geometry(new._shape, new._strides, new._offset)
    x._vc.bump()
    return adopt_history(share_meta(x), new)


def adopt_history(x, new):
    """x takes ``new``'s node (when it has one), as Paddle's in-place kernels' outputs do."""
    if new._grad_fn is not None:
        x._grad_fn, x._output_nr, x._requires_grad = new._grad_fn, new._output_nr, True
    return x


def cast_(x, dtype):
    """Change x's dtype in place: x takes the converted storage, version + 1."""
    dt = dtypes.from_any(dtype.replace("paddle.", "") if isinstance(dtype, str) else dtype)
    if dt is x._dtype:
        x._vc.bump()
        return x
    return _take_result(x, x.to(dt))


def apply_(x, func):
    """``x.apply_(f)``: overwrite x with ``f(x)``; only without gradient, as in Paddle."""
    if x._requires_grad:
        raise RuntimeError("Cannot apply function on a tensor that required gradient.")
    with grad_mode.no_grad():
        r = func(x)
        return _Core.copy_(x, r)


def where_(condition, x=None, y=None, name=None):
    """``paddle.where_(cond, x, y)`` writes the result into x (one version bump on x)."""
    if OPS.get("where") is None:
        raise _not_yet("where_", "no op 'where'")
    if x is None or y is None or np.isscalar(x) or np.isscalar(y):
        raise ValueError("either both or neither of x and y should be given")
    from .selection import check_where

    check_where(condition, x, y)
    r = dispatch.call(OPS["where"], (condition, x, y), {})
    return _Core.copy_(x, r)


def set_(x, source=None, shape=None, stride=None, offset=0, name=None):
    """Make x a window on ``source``'s storage (or an empty tensor); version + 1."""
    if source is None:
        from inplace_lab import creation

        source = creation.empty((0,), dtype=x._dtype, device=x.device)
    shape = list(source.shape) if shape is None else list(shape)
    stride = list(layout.contiguous_strides(shape)) if stride is None else list(stride)
    x._storage, x._dtype = source._storage, source._dtype
    x._set_geometry(shape, stride, source._offset + offset)
    x._vc.bump()
    return share_meta(x)


def reconstruct_from_(x, other):
    """Paddle's internal ``reconstruct_from_``: x takes other's storage, shape and strides.

    Returns None, as Paddle's does.
    """
    set_(x, other, list(other.shape), list(other.stride()), 0)


def resize_(x, shape, fill_zero=False, name=None):
    old = x.numel()
    _Core.resize_(x, list(shape))
    if fill_zero and x.numel() > old:
        x._a.reshape(-1)[old:] = 0
    return share_meta(x)


def scatter_(x, index, updates, overwrite=True, name=None):
    """Paddle's row scatter: ``x[index[i]] = updates[i]`` (or summed, after zeroing, if not overwrite)."""
    spec = OPS.get("index_put")
    if spec is None or not spec.inplace:
        raise _not_yet("scatter_", "no in-place op 'index_put'")
    if not overwrite:
        zeros = updates * 0
        dispatch.call_inplace(spec, (x,), {"indices": (index,), "values": zeros})
        x._vc.bump(-1)  # one Paddle call, one bump
    return dispatch.call_inplace(spec, (x,), {"indices": (index,), "values": updates,
                                              "accumulate": not overwrite})


def embedding_renorm_(x, weight, max_norm, norm_type=2.0):
    """``F.embedding_renorm_(ids, weight, ...)``: rows of weight used by ids rescaled in place.

    Paddle runs it without grad (so a weight that requires grad is fine) and returns weight.
    """
    spec = OPS["embedding_renorm"]
    with grad_mode.no_grad():
        return dispatch.call_inplace(spec, (weight, x), {"max_norm": max_norm,
                                                         "norm_type": norm_type})


def clip_(x, min=None, max=None, name=None):
    """``x.clip_(min, max)``: an integer x takes its float bounds truncated toward zero."""
    if not (x._dtype.is_floating_point or x._dtype.is_complex):
        min = int(min) if isinstance(min, float) else min
        max = int(max) if isinstance(max, float) else max
    return _generic("clip_")(x, min, max)


def _int_write(x, arr):
    """An integer/bool x overwritten with ``arr`` by Paddle's kernel: version + 1, nothing
    recorded (such a tensor stops gradient)."""
    from inplace_lab.ops.dispatch import before_write

    before_write(x)
    x._a[...] = arr
    x._vc.bump()
    return x


def scale_(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """``x.scale_``: an integer or bool x takes ``scale`` and ``bias`` cast to its type."""
    from . import intmath

    if x._dtype.is_floating_point or x._dtype.is_complex:
        return _generic("scale_")(x, scale, bias, bias_after_scale)
    return _int_write(x, intmath.scale_int(x, scale, bias, bias_after_scale))


def frac_(x, name=None):
    """``x.frac_()``: Paddle's dtype check; an int32/int64 x becomes zeros (version + 1)."""
    from . import intmath

    intmath.frac_check(x)
    if x._dtype.is_floating_point:
        return _generic("frac_")(x)
    return _int_write(x, 0)


def neg_(x, name=None):
    """``x.neg_()``: a bool x is Paddle's ``scale(x, -1)``, values unchanged (version + 1)."""
    if x._dtype is dtypes.bool_:
        return _int_write(x, x._a.copy())
    r = _generic("neg_")(x)
    if x._dtype.is_floating_point:
        from . import intmath

        intmath.no_negative_zero(x)  # (scale's + 0.0: no negative zeros)
    return r


def gammaln_(x, name=None):
    """``x.gammaln_()``: Paddle's gammaln kernel (float only), then the lgamma op."""
    from . import intmath

    intmath.check_gammaln(x)
    return _generic("gammaln_")(x)


def cumsum_(x, axis=None, dtype=None, name=None):
    """``x.cumsum_()``: with no axis Paddle's kernel flattens x (x becomes 1-D), one version
    bump for the whole call."""
    kw = {} if dtype is None else {"dtype": dtype}
    if axis is not None:
        return _generic("cumsum_")(x, axis, **kw)
    flatten_(x)
    r = _generic("cumsum_")(x, 0, **kw)
    x._vc.bump(-1)  # (one Paddle call, one bump)
    return r


def nan_to_num_(x, nan=0.0, posinf=None, neginf=None, name=None):
    """``x.nan_to_num_``: Paddle's Python assert (float32/float64 only), then the op."""
    from . import intmath

    intmath.check_nan_to_num(x)
    return _generic("nan_to_num_")(x, nan, posinf, neginf)


_IINFO = ("(InvalidArgument) the argument of paddle.iinfo can only be paddle.int8, paddle.int16, "
          "paddle.int32, paddle.int64, or paddle.uint8 (at /paddle/paddle/fluid/pybind/"
          "pybind.cc:518)")


def random_(x, from_=0, to=None, generator=None, name=None):
    """``x.random_``: a bool x fails Paddle's ``iinfo`` (its default bound), int8/int16/uint8
    the ``random`` kernel's registration."""
    if x._dtype is dtypes.bool_ and to is None:
        raise ValueError(_IINFO)
    listed = "int64, float64, float16, float32, int32, bfloat16"
    if x._dtype.name not in listed.split(", "):
        raise policy.paddle_kernel_error("random", x._dtype.name, listed,
                                         "CPU" if x._storage.device.type == "cpu" else "GPU")
    args = (from_,) if to is None else (from_, to)
    return _generic("random_")(x, *args)


SPECIAL = {f.__name__: f for f in (scatter_, reshape_, flatten_, squeeze_, unsqueeze_, transpose_, t_,
                                    cast_, apply_, where_, set_, reconstruct_from_, resize_,
                                    embedding_renorm_, copy_, clip_, scale_, frac_, neg_,
                                    gammaln_, cumsum_, nan_to_num_, random_)}
_OP_SPECIAL = ("clip_", "scale_", "frac_", "neg_", "gammaln_", "cumsum_", "nan_to_num_",
               "random_")
# Tensor methods that are not ops: the core Tensor's own method.
_CORE_METHODS = ("requires_grad_", "detach_")


# ---- Paddle's version counts ------------------------------------------------------------

def paddle_bumps(pname: str, x, args: tuple, kwargs: dict) -> int:
    """How far Paddle 3.3.1 moves x's version for this call (measured: ``version_counts``)."""
    if pname in version_counts.LOOP:  # gcd_: abs_, then two where_ per Euclid step
        base, per = version_counts.LOOP[pname]
        y = args[0] if args else kwargs.get("y")
        return base + per * version_counts.euclid_steps(_numpy(x), _numpy(y))
    if pname in version_counts.EMPTY_INDEX:
        index = args[0] if args else kwargs.get("index")
        if isinstance(index, _Core) and index.numel() == 0:
            return version_counts.EMPTY_INDEX[pname]
    return version_counts.BUMPS.get(pname, 1)


def _numpy(t):
    from inplace_lab import backend

    return backend.to_numpy(t._a) if isinstance(t, _Core) else t


def _counted(pname: str, fn):
    """``fn`` (which bumps x once) made to bump x as often as Paddle does.

    The extra bumps come *before* the write, so whatever the write saves for backward
    records the final version (Paddle's composites save at their last step); a call
    that raises leaves the version as it was.
    """

    def counted(x, *args, **kwargs):
        extra = paddle_bumps(pname, x, args, kwargs) - 1
        if not extra:
            return fn(x, *args, **kwargs)
        vc = x._vc
        vc.bump(extra)
        try:
            return fn(x, *args, **kwargs)
        except BaseException:
            vc.bump(-extra)
            raise

    counted.__name__ = counted.__qualname__ = pname
    counted.__doc__ = fn.__doc__
    counted.__wrapped__ = fn
    return counted


def adapter(pname: str):
    """The callable for one Paddle in-place name (target first), with Paddle's version count."""
    if pname in _CORE_METHODS:
        return getattr(_Core, pname)
    if pname in SPECIAL:
        fn = SPECIAL[pname]
    else:
        fn = _generic(pname)
        fn.__name__ = fn.__qualname__ = pname
        spec = op_of(pname)
        fn.__doc__ = f"paddle {pname}: in-place {spec.name if spec else pname[:-1]} (Paddle's " \
                     "signature)."
    if pname == "copy_":  # out of band: no bump, no leaf check
        return fn
    if pname in version_counts.BUMPS or pname in version_counts.LOOP:
        return _counted(pname, fn)
    return fn


def describe(pname: str) -> tuple[bool, Optional[object], str]:
    """(supported now, table op or None, note) for the coverage table."""
    if pname in _CORE_METHODS or pname == "grad_":
        return True, None, "Tensor method (no op)"
    if pname in SPECIAL and pname not in _OP_SPECIAL:  # (the op, its arguments adapted)
        if pname == "where_":
            spec = OPS.get("where")
            return spec is not None, spec, "where, result copied into x"
        if pname == "copy_":
            return True, OPS.get("copy"), "raw copy, out of band (no bump, not recorded)"
        if pname in ("cast_",):
            return True, OPS.get("_to_copy"), "converted storage swapped in"
        if pname == "scatter_":
            spec = OPS.get("index_put")
            return spec is not None and spec.inplace, spec, "row scatter via index_put"
        if pname == "embedding_renorm_":
            return True, OPS.get("embedding_renorm"), "writes weight (arguments: ids, weight)"
        if pname in ("apply_", "set_", "reconstruct_from_", "resize_"):
            return True, None, "metadata / storage change"
        return True, OPS.get("view") if pname != "transpose_" else OPS.get("permute"), \
            "in-place view (metadata only)"
    spec = op_of(pname)
    if spec is None:
        if callable(getattr(_Core, pname, None)):
            return True, None, "Tensor method"
        return False, None, f"no op {pname[:-1]!r} yet"
    if not spec.inplace:
        return False, spec, f"op {spec.name!r} has no in-place form yet"
    return True, spec, ""
