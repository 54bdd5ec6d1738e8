"""Paddle 3.3.1's signatures for torch-level functions the op table answers with PyTorch's.

``paddle.diag(x, offset, padding_value)``, ``paddle.diff(x, n, axis)``,
``paddle.repeat_interleave(x, repeats, axis)``, ``paddle.searchsorted(..., out_int32,
right)``, ``paddle.allclose`` (a bool *tensor*), ``paddle.cross(axis=9)``, ``paddle.dot``
of 2-D rows, ``paddle.outer``/``ger`` of flattened inputs ... Each is a thin function
over the core op with Paddle's argument names, defaults and result types; gradients
come from the core's recorded ops.
"""
from __future__ import annotations

import math

import numpy as np

import inplace_lab as _il
from inplace_lab import dtypes, policy
from inplace_lab.tensor import Tensor as _Core

from .selection import _to_last
from .views import reshape


def _dims(axis):
    return axis if axis is None or isinstance(axis, int) else tuple(axis)


def diag(x, offset=0, padding_value=0, name=None):
    """``paddle.diag``: a 1-D x becomes a matrix whose off-diagonal cells are ``padding_value``."""
    d = _il.diag(x, offset)
    if x.ndim == 1 and padding_value != 0:
        n = d.shape[0]
        mask = _il.tensor(np.eye(n, n, offset, dtype=bool), device=x.device)
        d = _il.where(mask, d, _il.tensor(padding_value, dtype=d.dtype, device=x.device))
    return d


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    return _il.diff(x, n=n, dim=axis, prepend=prepend, append=append)


def _as_kernel(t, kernel):
    """t recorded under Paddle's kernel name (a labelled copy; the gradient passes through)."""
    if not isinstance(t, _Core) or t.stop_gradient:
        return t
    from .views import _copy

    return _copy(t, kernel)


def repeat_interleave(x, repeats, axis=None, name=None, output_size=None):
    return _as_kernel(_il.repeat_interleave(x, repeats, dim=axis),
                      "repeat_interleave_with_tensor_index" if isinstance(repeats, _Core)
                      else "repeat_interleave")


def meshgrid(*args, **kwargs):
    """``paddle.meshgrid``: tensors or one list of them; always 'ij' indexing; a list back."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    return list(_il.meshgrid(*args, indexing="ij"))


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None, *,
                 side=None, sorter=None):
    return _il.searchsorted(sorted_sequence, values, out_int32=out_int32, right=right,
                            side=side, sorter=sorter)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """``paddle.bucketize``: ``sorted_sequence`` must be 1-D (Paddle's check)."""
    if sorted_sequence.ndim != 1:
        raise ValueError("sorted_sequence tensor must be 1 dimension, but got dim "
                         f"{sorted_sequence.ndim}")
    return _il.bucketize(x, sorted_sequence, out_int32=out_int32, right=right)


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    return _il.nansum(x, dim=_dims(axis), keepdim=keepdim,
                      dtype=None if dtype is None else dtypes.from_any(dtype))


def nanmean(x, axis=None, keepdim=False, name=None):
    return _il.nanmean(x, dim=_dims(axis), keepdim=keepdim)


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    return _il.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """``paddle.allclose``: a 0-D bool tensor (PyTorch returns a Python bool)."""
    return _il.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan).all()


def einsum(equation, *operands):
    """``paddle.einsum``: the core's einsum (its table ops run with PyTorch's method
    signatures, ``policy.core_calls``), after the checks of Paddle's kernel: its dtypes, one
    size per label (Paddle's ValueError)."""
    for op in operands:  # (Paddle reads each operand's shape first: no list of operands)
        if not isinstance(op, _Core):
            raise AttributeError(f"'{type(op).__name__}' object has no attribute 'shape'")
    _check_einsum_dtypes(operands)
    _check_label_sizes(equation, operands)
    return _il.einsum(equation, *operands)


_EINSUM_CPU = ("float32", "float64", "complex64", "complex128")
_PHI_CODE = {"bool": 1, "uint8": 2, "int8": 3, "int16": 5, "int32": 7, "int64": 9,
             "float32": 10, "float64": 11, "complex64": 12, "complex128": 13, "float16": 15,
             "bfloat16": 16}  # (phi::DataType, as Paddle's messages print it)


def _retrieve_error(wanted: str, held: str) -> ValueError:
    """Paddle's DenseTensor::data<T>() check: a kernel read a tensor as another dtype."""
    codes = (f"dtype():{_PHI_CODE[held]} != phi::CppTypeToDataType<T>::Type():"
             f"{_PHI_CODE[wanted]}" if wanted in _PHI_CODE and held in _PHI_CODE
             else "dtype() != phi::CppTypeToDataType<T>::Type()")
    return ValueError(
        f"(InvalidArgument) The type of data we are trying to retrieve ({wanted}) does not "
        f"match the type of data ({held}) currently contained in the container.\n  "
        f"[Hint: Expected dtype() == phi::CppTypeToDataType<T>::Type(), but received "
        f"{codes}.] (at /paddle/paddle/phi/core/dense_tensor.cc:153)\n")


def _check_einsum_dtypes(operands):
    """Paddle's CPU einsum kernel: float32/64 and complex only, one dtype for all operands."""
    for op in operands:
        name = op._dtype.name
        if name not in _EINSUM_CPU and op._storage.device.type == "cpu":
            raise policy.paddle_kernel_error("einsum", name,
                                             "float64, complex128, float32, complex64")
    first = operands[0]._dtype.name
    for op in operands[1:]:
        if op._dtype.name != first:
            raise _retrieve_error(first, op._dtype.name)


def equal(x, y, name=None):
    """``paddle.equal``: elementwise ``==`` (PyTorch's ``equal`` is ``equal_all``)."""
    return _il.eq(x, y)


def equal_all(x, y, name=None):
    """``paddle.equal_all``: a 0-D bool tensor, True when the shapes and all elements are
    equal (different shapes: False; another dtype: the kernel's ValueError)."""
    if not isinstance(y, _Core):
        raise ValueError(f"(InvalidArgument) equal_all(): argument 'y' (position 1) must be "
                         f"Tensor, but got {type(y).__name__} (at "
                         "/paddle/paddle/fluid/pybind/eager_utils.cc:1526)\n")
    if y._dtype is not x._dtype:
        raise _retrieve_error(y._dtype.name, x._dtype.name)
    from .creation import to_tensor  # (creation imports this module's neighbours)

    return to_tensor(tuple(x.shape) == tuple(y.shape) and _il.equal(x, y), place=x.place)


def _check_label_sizes(equation, operands):
    """Paddle's einsum kernel check: one size per label (no broadcasting of size 1)."""
    lhs = equation.replace(" ", "").split("->")[0].split(",")
    if len(lhs) != len(operands):
        return  # (the core says how many operands the equation wants)
    sizes = {}
    for spec, op in zip(lhs, operands):
        if "..." in spec:
            head, tail = spec.split("...", 1)
            dims = list(zip(head, op.shape[:len(head)]))
            dims += list(zip(tail, op.shape[op.ndim - len(tail):])) if tail else []
        else:
            dims = list(zip(spec, op.shape))
        for label, n in dims:
            seen = sizes.setdefault(label, n)
            if seen != n:
                raise ValueError(
                    f"(InvalidArgument) Same label have different shapes for label: `{label}`\n"
                    f"  [Hint: Expected (*labelshape)[c] == op_dim[dim_ptr], but received "
                    f"(*labelshape)[c]:{seen} != op_dim[dim_ptr]:{n}.] (at "
                    f"/paddle/paddle/phi/kernels/impl/einsum_kernel_impl.h:227)\n")


def kron(x, y, name=None):
    return _il.kron(x, y)


def cross(x, y, axis=9, name=None):
    """``paddle.cross``: ``axis=9`` (the default) is the first axis of size 3."""
    if axis == 9:  # (the first axis of size 3, found here: torch's own default warns)
        axis = next((i for i, n in enumerate(x.shape) if n == 3), None)
        if axis is None:
            raise ValueError(
                "(InvalidArgument) There must be at least one dimension 'd' so that "
                f"Input(X/Y).dims()[d] is equal to 3. But received: Input(X/Y).dims() == "
                f"{list(x.shape)}.\n  [Hint: Expected dim == DDim::kMaxRank == false, but "
                "received dim == DDim::kMaxRank:1 != false:0.] (at "
                "/paddle/paddle/phi/kernels/cpu/cross_kernel.cc:65)\n")
    return _il.cross(x, y, dim=axis)


def inner(x, y, name=None):
    """``paddle.inner`` as Paddle composes it: a one-element operand multiplies; otherwise
    both are flattened to rows of their last dim, ``matmul(nx, ny, transpose_y=True)``,
    reshaped to ``x.shape[:-1] + y.shape[:-1]``."""
    from . import matmul, multiply

    if x.size == 1 or y.size == 1:
        return multiply(x, y)
    xs, ys = list(x.shape), list(y.shape)
    nx = reshape(x, (-1, xs[-1]) if xs[-1] else (math.prod(xs[:-1]) if len(xs) > 1 else 1, 0))
    ny = reshape(y, (-1, ys[-1]) if ys[-1] else (math.prod(ys[:-1]) if len(ys) > 1 else 1, 0))
    if xs[-1] != ys[-1]:
        raise ValueError(
            "After performing an optional transpose, Input X's last dim should be equal to Y's "
            "last dim for multiplication prerequisites. But received X's shape: "
            f"{list(nx.shape)}, Y's shape: {list(ny.shape)}\n")
    return reshape(matmul(nx, ny, transpose_y=True), xs[:-1] + ys[:-1])


def dot(x, y, name=None):
    """``paddle.dot``: 1-D inner product, or of each row of two 2-D tensors."""
    if x.ndim == 2:
        return _il.sum(_il.mul(x, y), dim=-1)
    return _il.dot(x, y)


def outer(x, y, name=None):
    """``paddle.outer``/``ger`` as Paddle composes it: ``x`` flattened to a column times
    ``y`` flattened to a row (Paddle's multiply, with its dtype rules)."""
    from . import multiply

    nx = reshape(x, (0, 1) if x.size == 0 else (-1, 1))
    ny = reshape(y, (1, 0) if y.size == 0 else (1, -1))
    return multiply(nx, ny)


ger = outer


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    return _as_kernel(_il.sum(_il.diagonal(x, offset=offset, dim1=axis1, dim2=axis2), dim=-1),
                      "trace")


def flip(x, axis, name=None):
    return _il.flip(x, [axis] if isinstance(axis, int) else list(axis))


def _quantile(core, x, q, axis, keepdim, interpolation):
    if isinstance(q, _Core) and q.ndim == 0:
        q = float(q.item())
    elif isinstance(q, (list, tuple)):  # (the core's quantile takes a 1-D tensor of x's dtype)
        q = _il.tensor([float(v) for v in q], dtype=x.dtype, device=x.device)
    if axis is None or isinstance(axis, int):
        return core(x, q, dim=axis, keepdim=keepdim, interpolation=interpolation)
    t, shape = _to_last(x, axis, keepdim)
    r = core(t, q, dim=-1, interpolation=interpolation)
    return _Core.reshape(r, tuple(shape))


def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """``paddle.quantile``: q a number, list or tensor; ``axis`` an int or a list of axes."""
    return _quantile(_il.quantile, x, q, axis, keepdim, interpolation)


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    return _quantile(_il.nanquantile, x, q, axis, keepdim, interpolation)


def _is_float(x) -> bool:
    return x._dtype.is_floating_point or x._dtype.is_complex


def mean(x, axis=None, keepdim=False, name=None):
    """``paddle.mean``: of an integer (or bool) tensor, the sum divided by the count in
    integer arithmetic, truncated toward zero, in x's dtype (PyTorch refuses)."""
    if _is_float(x):
        return _il.mean(x, dim=_dims(axis), keepdim=keepdim)
    from inplace_lab import creation

    from .creation import _own

    s = _il.sum(x, dim=_dims(axis), keepdim=keepdim)
    with np.errstate(invalid="ignore", divide="ignore"):  # (empty: 0/0, NaN cast to int)
        q = np.asarray(s.numpy(), np.float64) / (x.numel() // max(s.numel(), 1))
        q = q != 0 if x._dtype is dtypes.bool_ else np.trunc(q)  # (a bool mean: any nonzero)
        # (an op's result: no name until Python reads one, unlike to_tensor's generated_tensor)
        return _own(creation.tensor(q.astype(x._dtype.np), device=x.device))


def clip(x, min=None, max=None, name=None):
    """``paddle.clip``: an integer tensor with a float bound is clipped as float32."""
    if not _is_float(x) and (isinstance(min, float) or isinstance(max, float)):
        x = _il.Tensor.to(x, dtypes.float32)
    return _il.clamp(x, min, max)


def multinomial(x, num_samples=1, replacement=False, name=None):
    """Paddle's CPU kernel (MultinomialFunctor): per row, the cumulative probabilities
    normalised (the last set to 1), one uniform of x's dtype per sample searched in them;
    without replacement the drawn category's mass is taken out and the rest renormalised."""
    if x.device.type != "cpu":
        return _il.multinomial(x, num_samples, replacement=replacement)
    from inplace_lab import rng
    from inplace_lab.ops.table import OPS

    spec = OPS["multinomial"]  # (the op's argument checks, without its draws)
    spec.dtype_rule(spec, [x], {"num_samples": num_samples, "replacement": replacement})
    probs = x.numpy()
    rows = probs.reshape(-1, probs.shape[-1])
    ct = rows.dtype.type
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows):
        cum = np.cumsum(row, dtype=ct)
        cum = cum / cum[-1]
        for s in range(num_samples):
            u = rng.paddle_generator.uniform(1, rows.dtype)[0]
            cum[-1] = 1
            k = int(np.searchsorted(cum, u, side="left"))
            out[i, s] = k
            if not replacement and s < num_samples - 1:
                taken = cum[k] - (cum[k - 1] if k else ct(0))
                cum = np.where(np.arange(cum.size) >= k, cum - taken, cum) / (ct(1) - taken)
    return _il.tensor(out.reshape(probs.shape[:-1] + (num_samples,)))


def inverse(x, name=None):
    return _il.inverse(x)


NAMES = ("equal", "equal_all", "diag", "diff", "repeat_interleave", "meshgrid", "searchsorted", "bucketize", "nansum",
         "nanmean", "isclose", "allclose", "einsum", "kron", "cross", "inner", "dot", "outer",
         "ger", "trace", "flip", "quantile", "nanquantile", "multinomial", "inverse", "mean",
         "clip")
