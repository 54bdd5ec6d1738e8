"""Which Paddle 3.3.1 shape ops view, which copy, and what a copy still shares.

Measured against paddle 3.3.1 (tests/paddle/test_sweep_regressions.py runs both):

- ``split``/``chunk`` (``num_or_sections`` pieces, or a list of sizes with one -1),
  ``expand``/``expand_as``/``broadcast_to`` return **copies** (fresh buffer, fresh counter),
  where PyTorch returns views.
- ``reshape``/``flatten`` of a tensor that cannot be viewed (a transpose, a 0-D tensor)
  copy the data but **keep the source's version counter** (an in-place op on either moves
  both); ``reshape`` to the tensor's own shape, written out, returns the tensor itself.
- ``view`` never copies: a non-viewable input (or a 0-D one) is a ValueError.
- ``x[:]``, ``x[:, 0:n]``, ``x[...]``: an index made only of whole-dimension slices is
  the tensor itself (a leaf stays a leaf, so writing to it is the leaf error).
- ``as_strided``'s offset counts **bytes** from the start of the storage.
- ``is_contiguous()`` is true only when the strides are exactly the row-major ones
  (a size-1 dimension with another stride counts, unlike PyTorch).
"""
from __future__ import annotations

import dataclasses

from inplace_lab import layout
from inplace_lab.ops import dispatch
from inplace_lab.ops.table import OPS
from inplace_lab.tensor import Tensor as _Core


def _copy(t, kernel=None):
    """A row-major copy with its own buffer and counter (recorded as a clone; ``kernel``:
    recorded under that Paddle kernel's name, SplitGradNode, ExpandGradNode ...).

    (The contiguous-copy op copies only what numpy does not already call C-contiguous, so
    a C-contiguous piece goes through clone: either way the result owns new memory.)
    """
    contiguous = t._a.flags.c_contiguous
    if kernel is None:
        return _Core.clone(t) if contiguous else dispatch.call(OPS["_contiguous_copy"], (t,), {})
    return dispatch.call(_named_copy("clone" if contiguous else "_contiguous_copy", kernel),
                         (t,), {})


_NAMED_COPIES: dict = {}


def _named_copy(op, kernel):
    """A copy op under a Paddle kernel's name (its backward passes g through)."""
    if (op, kernel) not in _NAMED_COPIES:
        _NAMED_COPIES[op, kernel] = dataclasses.replace(OPS[op], name=kernel, select=None)
    return _NAMED_COPIES[op, kernel]


def _sizes(n: int, num_or_sections, dim: int, shape) -> list:
    if isinstance(num_or_sections, _Core):
        num_or_sections = num_or_sections.tolist()
    if isinstance(num_or_sections, int):
        k = num_or_sections
        if k <= 0 or n % k:
            raise ValueError(
                "(InvalidArgument) The input's size along the split dimension must be evenly "
                "divisible by Attr(num_or_sections). But received Attr(num_or_sections) = "
                f"{k}, input(X)'s shape = {list(shape)}, Attr(dim) = {dim}.")
        return [n // k] * k
    sizes = [int(s.item()) if isinstance(s, _Core) else int(s) for s in num_or_sections]
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise ValueError(
            "(InvalidArgument) The sum of Attr(num_or_sections) must be equal to the input's "
            f"size along the split dimension. But received Attr(num_or_sections) = {sizes}, "
            f"input(X)'s shape = {list(shape)}, Attr(dim) = {dim}.")
    return sizes


def split(x, num_or_sections, axis=0, name=None):
    """``paddle.split``: a list of copies (PyTorch's split returns views)."""
    if isinstance(axis, _Core):
        axis = int(axis.item())
    dim = layout.wrap_dim(axis, x.ndim)
    sizes = _sizes(x.shape[dim], num_or_sections, dim, x.shape)
    kernel = "split_with_num" if isinstance(num_or_sections, int) else "split"
    return [_copy(p, kernel) for p in _Core.split(x, sizes, dim)]


def chunk(x, chunks, axis=0, name=None):
    return split(x, chunks, axis)


def unstack(x, axis=0, num=None, name=None):
    """``paddle.unstack``: the slices along ``axis`` as copies (own buffers, as Paddle's kernel
    writes them), with Paddle's checks of ``axis`` and ``num``."""
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"`axis` must be in the range [-{x.ndim}, {x.ndim})")
    n = x.shape[axis]
    if num is not None and (num < 0 or num > n):
        raise ValueError(f"`num` must be in the range [0, {n})")
    if num is not None and num != n:
        raise ValueError(
            f"(InvalidArgument) The number of attribute num is not equal to the length of the "
            f"{axis % x.ndim} axis of Input(X). Expect {n} but got {num}.")
    return [_copy(p, "unstack") for p in _Core.unbind(x, axis)] if n else []


def expand(x, shape, name=None, _kernel="expand"):
    """``paddle.expand``: the broadcast values in a new buffer (writable, own counter)."""
    if isinstance(shape, _Core):
        shape = shape.tolist()
    shape = [int(s.item()) if isinstance(s, _Core) else int(s) for s in shape]
    _check_expand(list(x.shape), shape)
    return _copy(_Core.expand(x, shape), _kernel)


def _check_expand(have, shape):
    """Paddle's expand_v2 checks, in its words."""
    if len(shape) < len(have):
        raise ValueError(f"(InvalidArgument) The number of elements ({len(shape)}) of 'shape' for "
                         f"expand_v2 op must be greater than or equal to the rank ({len(have)}) "
                         "of the input.")
    for n, want in zip(have, shape[len(shape) - len(have):]):
        if n != 1 and want != -1 and n != want:
            raise ValueError(f"(InvalidArgument) The value ({n}) of the non-singleton dimension "
                             f"does not match the corresponding value ({want}) in shape for "
                             "expand_v2 op.")


def check_perm(nd, perm):
    """Paddle's transpose checks of ``perm``, in its words (a perm shorter than x's rank,
    which Paddle half-applies, is left to the core's error)."""
    if len(perm) > nd:
        raise ValueError("(InvalidArgument) The input tensor's dimension should be equal to or "
                         f"greater than the axis's size. But received input tensor's dimension "
                         f"is {nd}, axis's size is {len(perm)}")
    for i, v in enumerate(perm):
        if not -nd <= v < nd:
            gap = " " if v >= 0 else "  "  # (Paddle's two messages differ by a space)
            raise ValueError(f"(InvalidArgument) The reduce dim index {i} should be in the range "
                             f"[ -dimension(X), dimension(X) ){gap}which dimension = {nd}. But "
                             f"received dim index = {v}.")
    seen = set()
    for i, v in enumerate(perm):  # (the index where a dim comes back is the one named)
        if v % nd in seen:
            raise ValueError(f"(InvalidArgument) Each element of axis should be unique. but "
                             f"axis[{i}] is {v} appear not only once")
        seen.add(v % nd)


def expand_as(x, y, name=None):
    return expand(x, list(y.shape), _kernel="expand_as")


broadcast_to = expand


def _shared_counter_copy(x, shape):
    """Paddle's copying reshape: new buffer, the source's version counter."""
    r = _copy(x).reshape(shape) if x.ndim else _Core.reshape(_copy(x), shape)
    r._vc = x._vc
    return r


def _shape_list(shape):
    if isinstance(shape, _Core):
        shape = shape.tolist()
    return [int(s.item()) if isinstance(s, _Core) else int(s) for s in shape]


def _size_error(x, shape):
    n = layout.numel(x.shape)
    cap = 1
    for s in shape:
        cap *= s if s != -1 else 1
    if -1 in shape:
        got = (n // cap) * cap if cap else 0
        return ValueError(
            "(InvalidArgument) The 'shape' attribute in ReshapeOp is invalid. The input tensor "
            "X'size must be divisible by known capacity of 'shape'. But received X's shape = "
            f"{list(x.shape)}, X's size = {n}, 'shape' is {shape}, known capacity of 'shape' is "
            f"{cap}.\n  [Hint: Expected output_shape[unk_dim_idx] * capacity == in_size, but "
            f"received output_shape[unk_dim_idx] * capacity:{got} != in_size:{n}.] (at "
            "/paddle/paddle/phi/infermeta/unary.cc:2517)\n")
    return ValueError(
        "(InvalidArgument) The 'shape' in ReshapeOp is invalid. The input tensor X'size must be "
        f"equal to the capacity of 'shape'. But received X's shape = {list(x.shape)}, X's size = "
        f"{n}, 'shape' is {shape}, the capacity of 'shape' is {cap}.\n  [Hint: Expected capacity "
        f"== in_size, but received capacity:{cap} != in_size:{n}.] (at "
        "/paddle/paddle/phi/infermeta/unary.cc:2536)\n")


def _target(x, shape):
    try:
        return list(layout.infer_size(tuple(shape), layout.numel(x.shape)))
    except (RuntimeError, ValueError):
        raise _size_error(x, shape) from None


def copy_zero_dims(x, shape) -> list:
    """Paddle's reshape reads a 0 as "this dim of x" (``x.reshape([0, -1])`` keeps dim 0)."""
    return [x.shape[i] if n == 0 and i < x.ndim else n for i, n in enumerate(shape)]


def reshape(x, shape, name=None):
    shape = copy_zero_dims(x, _shape_list(shape))
    if shape == list(x.shape):
        return x
    target = _target(x, shape)
    if x.ndim == 0 and target:
        return _shared_counter_copy(x, target)
    r = _Core.reshape(x, target)
    if r._storage is not x._storage:
        r._vc = x._vc
    return r


def view(x, shape_or_dtype, name=None):
    if not isinstance(shape_or_dtype, (list, tuple, _Core)):
        if isinstance(shape_or_dtype, str):  # ('int32', 'paddle.float64': a dtype by name)
            from inplace_lab import dtypes

            shape_or_dtype = dtypes.from_any(shape_or_dtype.replace("paddle.", ""))
        return _Core.view(x, shape_or_dtype)
    shape = _shape_list(shape_or_dtype)
    target = _target(x, shape)
    if x.ndim == 0 and target:
        raise _view_error()
    if layout.view_strides(x.shape, x.stride(), target) is None:
        raise _view_error()
    return dispatch.call_view(VIEW_SHAPE, (x, target), {})


# Paddle's view(shape) is its view_shape kernel (ViewShapeGradNode), PyTorch's view otherwise.
VIEW_SHAPE = dataclasses.replace(OPS["view"], name="view_shape", select=None)
FLATTEN = dataclasses.replace(OPS["view"], name="flatten", select=None)


def _view_error():
    return ValueError("(InvalidArgument) The Tensor can not be viewed, please call reshape.")


def flatten_axes(nd, start_axis, stop_axis, zero_d=True):
    """Paddle's checks of flatten's axes (``zero_d``: flatten's own 0-D rule; flatten_ has
    none, so any axis of a 0-D tensor is out of range)."""
    if nd == 0 and zero_d:
        for which, a in (("start_axis", start_axis), ("stop_axis", stop_axis)):
            if not isinstance(a, int) or a not in (0, -1):
                raise ValueError(f"The {which} should be int, and should be 0 or -1 when the "
                                 "input tensor is a 0-D-Tensor")
        return 0, 0
    for which, a in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not isinstance(a, int) or a > nd - 1 or a < -nd:
            raise ValueError(f"The {which} should be a int, and in range [-rank(x), rank(x))")
    s, e = start_axis % nd, stop_axis % nd
    if s > e:
        raise ValueError("The stop_axis should be larger than stat_axis")
    return s, e


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    nd = x.ndim
    flatten_axes(nd, start_axis, stop_axis)
    if nd == 0:
        return _shared_counter_copy(x, [1])
    s, e = start_axis % nd, stop_axis % nd
    target = list(x.shape[:s]) + [layout.numel(x.shape[s:e + 1])] + list(x.shape[e + 1:])
    if layout.view_strides(x.shape, x.stride(), target) is not None:  # (FlattenGradNode)
        return dispatch.call_view(FLATTEN, (x, target), {})
    r = _Core.flatten(x, start_axis, stop_axis)
    if r is x:  # nothing to merge: still a new view (a leaf's flatten is not a leaf)
        return _Core.view(x, list(x.shape))
    if r._storage is not x._storage:
        r._vc = x._vc
    return r


def as_strided(x, shape, stride, offset=0, name=None):
    """``paddle.as_strided``: ``offset`` in bytes from the start of x's storage."""
    size = x._dtype.itemsize
    if offset % size:
        raise ValueError(f"inplace_lab: as_strided offset {offset} is not a multiple of the "
                         f"element size ({size} bytes); Paddle would read misaligned memory")
    return _Core.as_strided(x, list(shape), list(stride), offset // size)


def is_whole(item, shape) -> bool:
    """True when ``x[item]`` selects every element, in order, as Paddle's no-op index."""
    items = item if isinstance(item, tuple) else (item,)
    if not all(i is Ellipsis or isinstance(i, slice) for i in items):
        return False
    if sum(i is Ellipsis for i in items) > 1:
        return False
    n = len(items) - (Ellipsis in items)
    if n > len(shape):
        return False
    dims, k = [], 0
    for i in items:
        if i is Ellipsis:
            k += len(shape) - n
            continue
        dims.append((i, shape[k]))
        k += 1
    for s, size in dims:
        if any(isinstance(v, _Core) for v in (s.start, s.stop, s.step)):
            return False
        if s.indices(size) != (0, size, 1):
            return False
    return True


def is_contiguous(x) -> bool:
    return tuple(x.stride()) == tuple(layout.contiguous_strides(x.shape))


def check_index(item, shape) -> None:
    """Paddle's errors for basic indexing: an int out of range, more indices than dims."""
    items = item if isinstance(item, tuple) else (item,)
    if any(isinstance(i, (_Core, list)) or (hasattr(i, "dtype") and hasattr(i, "shape"))
           for i in items):
        return  # advanced indexing: the core's rules
    used = [i for i in items if i is not None and i is not Ellipsis]
    k = 0
    for i in items:
        if i is Ellipsis:
            k += max(len(shape) - len(used), 0)
            continue
        if i is None:
            continue
        n = shape[k] if k < len(shape) else 0
        if isinstance(i, int) and not isinstance(i, bool):
            if not -n <= i < n:
                raise IndexError(f"(OutOfRange) The starting index {i} of slice is out of bounds "
                                 f"in tensor {k}-th axis, it should be in the range of "
                                 f"[{-n}, {n}).")
        elif k >= len(shape):
            raise ValueError(f"(InvalidArgument) Too many indices ({len(used)}) for tensor of "
                             f"dimension {len(shape)}.")
        k += 1
