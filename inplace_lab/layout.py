"""Pure stride/offset maths: where a tensor's elements live in its storage.

A tensor is a window on a flat storage: element ``(i0, i1, ...)`` lives at
``offset + i0*stride0 + i1*stride1 + ...`` (strides counted in elements, as in
PyTorch). Everything here is a pure function of shapes, strides and offsets, so
the ops, the in-place checks and the storage renderer share one definition.

>>> contiguous_strides((2, 3))
(3, 1)
>>> cells((2, 2), (1, 2), 0)   # a transposed 2x2 reads cells 0, 2, 1, 3
[0, 2, 1, 3]
"""
from __future__ import annotations

from itertools import product
from math import prod
from typing import Sequence

Shape = tuple[int, ...]


def contiguous_strides(shape: Sequence[int]) -> Shape:
    """Row-major strides for ``shape``."""
    strides = []
    acc = 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def numel(shape: Sequence[int]) -> int:
    return prod(shape)


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's rule: size-1 dims may have any stride; empty tensors are contiguous."""
    if numel(shape) == 0:
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != expected:
                return False
            expected *= n
    return True


def is_dense(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the strides are a permutation of contiguous
    ones (size-1 dims aside). Such a tensor's layout is what ``*_like`` and ``clone`` keep.
    An empty tensor counts as contiguous, so as dense, whatever its strides."""
    if 0 in shape:
        return True
    expected = 1
    for st, n in sorted((s, n) for n, s in zip(shape, strides) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def is_channels_last(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's ``is_channels_last_strides_2d`` for a 4-dim tensor (what
    ``suggest_memory_format`` reads): C fastest, then W, H, N; ambiguous cases say no.

    >>> is_channels_last((1, 2, 3, 4), (24, 1, 8, 2))
    True
    >>> is_channels_last((1, 2, 3, 4), (24, 12, 4, 1))
    False
    """
    return len(shape) == 4 and _channels_last_order(shape, strides)


def is_channels_last_3d(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's ``is_channels_last_strides_3d`` for a 5-dim tensor: C, W, H, D, N."""
    return len(shape) == 5 and _channels_last_order(shape, strides)


def _channels_last_order(shape, strides) -> bool:
    """C fastest, then the spatial dims from the last, then N (ambiguous cases say no)."""
    if strides[1] == 0:
        return False
    low = 0
    for d in (1, *range(len(shape) - 1, 1, -1), 0):
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggests_channels_last(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """``suggest_memory_format() == channels_last`` of a 4-dim tensor (what batch norm's
    ``empty_like`` reads): never when it is contiguous, always when it is channels-last
    contiguous (both ignore size-1 dims), else ``is_channels_last``'s strides test. Checked
    against torch 2.13 on every permutation of every shape in {1, 2, 3}^4.

    >>> suggests_channels_last((1, 4, 2, 3), (4, 1, 12, 4))
    True
    >>> suggests_channels_last((2, 3, 1, 1), (3, 1, 3, 3))
    False
    """
    if len(shape) != 4 or is_contiguous(shape, strides):
        return False
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] != 1:
            if strides[d] != expected:
                return is_channels_last(shape, strides)
            expected *= shape[d]
    return True


def _perm(shape: Sequence[int], operands: Sequence[Sequence[int]], reduction=False) -> list:
    """TensorIterator's ``reorder_dimensions``: the dims from fastest to slowest, by an
    insertion sort that asks each operand's strides in turn (a 0 stride, a broadcast dim, has
    no say; equal strides put the smaller dim first; the first operand with an opinion wins).
    ``empty_like``'s ``infer_dense_strides`` is the same sort with one operand.
    ``reduction``: ``operands[0]`` is a reduction's output, whose reduced dims (stride 0) go
    first, before any other operand is asked."""
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))

    def should_swap(d0, d1):
        for k, st in enumerate(operands):
            s0, s1 = st[d0], st[d1]
            if reduction and k == 0 and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _strides_of_perm(shape: Sequence[int], perm: list, zero_sizes_count: bool) -> Shape:
    if perm == list(range(len(shape) - 1, -1, -1)):
        return contiguous_strides(shape)  # (the inverted order: a plain contiguous result)
    out = [0] * len(shape)
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d] if zero_sizes_count else max(shape[d], 1)
    return tuple(out)


def dense_strides_like(shape: Sequence[int], strides: Sequence[int]) -> Shape:
    """``empty_like(t)``'s strides (preserve_format): ``t``'s own when it is non-overlapping
    and dense, else dense strides in ``t``'s dim order (``infer_dense_strides``).

    >>> dense_strides_like((3, 2), (1, 3))        # a transposed tensor stays transposed
    (1, 3)
    >>> dense_strides_like((2, 3), (1, 4))        # a sliced one: dense, in the same order
    (1, 2)
    """
    if is_dense(shape, strides):
        return tuple(strides)
    return _strides_of_perm(shape, _perm(shape, [strides]), False)


def iterator_strides(shape: Sequence[int], operands: Sequence[tuple]) -> Shape:
    """The strides of an elementwise result as PyTorch's TensorIterator lays it out.

    ``operands``: ``(shape, strides)`` of each input in argument order, a Python number as
    ``((), ())``. All of one shape: contiguous if all are, else the common strides if all are
    dense with the same ones. Otherwise the dims are sorted by the inputs' broadcast strides
    (``_perm``): ``x.t() + y`` comes out transposed like ``x``, ``y + x.t()`` contiguous.

    >>> iterator_strides((3, 2), [((3, 2), (1, 3)), ((3, 2), (2, 1))])
    (1, 3)
    >>> iterator_strides((3, 2), [((3, 2), (2, 1)), ((3, 2), (1, 3))])
    (2, 1)
    """
    if all(tuple(s) == tuple(shape) for s, _ in operands):
        if all(is_contiguous(s, st) for s, st in operands):
            return contiguous_strides(shape)
        first = tuple(operands[0][1])
        if all(is_dense(s, st) and tuple(st) == first for s, st in operands):
            return first
    nd = len(shape)
    bcast = []
    for s, st in operands:
        lead = nd - len(s)
        bcast.append([0] * lead + [0 if n == 1 and shape[lead + i] != 1 else st[i]
                                   for i, n in enumerate(s)])
    return _strides_of_perm(shape, _perm(shape, bcast), True)


def index_to_position(index: Sequence[int], strides: Sequence[int], offset: int = 0) -> int:
    """Storage position of one multi-index."""
    return offset + sum(i * s for i, s in zip(index, strides))


def cells(shape: Sequence[int], strides: Sequence[int], offset: int) -> list[int]:
    """Storage positions covered, in the tensor's row-major element order (repeats kept)."""
    return [index_to_position(ix, strides, offset) for ix in product(*(range(n) for n in shape))]


def extent(shape: Sequence[int], strides: Sequence[int], offset: int) -> tuple[int, int]:
    """(lowest, one-past-highest) storage position touched; (offset, offset) when empty."""
    if numel(shape) == 0:
        return offset, offset
    lo = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    hi = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    return lo, hi + 1


def storage_size_needed(shape: Sequence[int], strides: Sequence[int], offset: int) -> int:
    return extent(shape, strides, offset)[1] if numel(shape) else 0


def has_internal_overlap(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """True when two elements share a storage cell (PyTorch's ``MemOverlap::Yes``).

    Like PyTorch this is a conservative check: a stride of 0 on a dim of size > 1
    overlaps for sure; otherwise, sorted by stride, each stride must step over
    everything the smaller dims cover.
    """
    if numel(shape) == 0:
        return False  # no elements, nothing can repeat
    dims = [(s, n) for n, s in zip(shape, strides) if n > 1]
    if any(s == 0 for s, _ in dims):
        return True
    dims.sort(key=lambda d: abs(d[0]))
    span = 1
    for s, n in dims:
        if abs(s) < span:
            return True
        span = abs(s) * (n - 1) + span
    return False


def has_broadcast_overlap(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's ``has_internal_overlap`` answering Yes: not dense, and a stride-0 dim of size
    > 1 (an expanded tensor). It calls any other overlap "too hard" (see has_internal_overlap).
    """
    return numel(shape) > 1 and not is_dense(shape, strides) and \
        any(s == 0 and n > 1 for n, s in zip(shape, strides))


def overlap_kind_as_torch(a: tuple, b: tuple) -> str:
    """PyTorch's ``get_overlap_status`` for two windows on one storage: "partial" only for two
    dense tensors whose memory ranges meet without being the same range with the same
    strides; anything else it cannot tell ("too hard") is "none" here."""
    na, nb = numel(a[0]), numel(b[0])
    if not na or not nb or not is_dense(a[0], a[1]) or not is_dense(b[0], b[1]):
        return "none"
    if a[2] == b[2] and na == nb:
        return "full" if tuple(a[1]) == tuple(b[1]) else "partial"
    return "partial" if a[2] < b[2] + nb and b[2] < a[2] + na else "none"


def overlap_kind(a: tuple, b: tuple) -> str:
    """How two (shape, strides, offset) windows on one storage overlap.

    Returns ``"full"`` (same cells in the same order: an elementwise op may read
    and write them), ``"partial"`` (some shared cells), or ``"none"``.
    """
    if numel(a[0]) == 0 or numel(b[0]) == 0:
        return "none"
    if tuple(a[0]) == tuple(b[0]) and tuple(a[1]) == tuple(b[1]) and a[2] == b[2]:
        return "full"
    lo_a, hi_a = extent(*a)
    lo_b, hi_b = extent(*b)
    if hi_a <= lo_b or hi_b <= lo_a:
        return "none"
    if numel(a[0]) * numel(b[0]) > 4_000_000:
        return "partial"  # bounding boxes overlap: be conservative on huge tensors
    return "partial" if set(cells(*a)) & set(cells(*b)) else "none"


def broadcast_shapes(*shapes: Sequence[int]) -> Shape:
    """NumPy/PyTorch broadcasting, folded pairwise like PyTorch's ``infer_size`` (same error text:
    the rightmost mismatch is reported, with its dimension counted in the result)."""
    out: Shape = ()
    for i, shp in enumerate(shapes):
        out = tuple(shp) if i == 0 else _broadcast_pair(out, tuple(shp))
    return out


def _broadcast_pair(a: Shape, b: Shape) -> Shape:
    ndim = max(len(a), len(b))
    out = [1] * ndim
    for i in range(ndim - 1, -1, -1):
        k = ndim - 1 - i
        na = a[len(a) - 1 - k] if k < len(a) else 1
        nb = b[len(b) - 1 - k] if k < len(b) else 1
        if na != nb and na != 1 and nb != 1:
            raise RuntimeError(
                f"The size of tensor a ({na}) must match the size of tensor b ({nb}) "
                f"at non-singleton dimension {i}")
        out[i] = nb if na == 1 else na
    return tuple(out)


def broadcast_index(index: Sequence[int], big: Sequence[int], small: Sequence[int]) -> Shape:
    """The index into ``small`` that broadcasting maps ``index`` (into ``big``) to."""
    off = len(big) - len(small)
    return tuple(0 if n == 1 else index[off + i] for i, n in enumerate(small))


def expand_strides(shape: Sequence[int], strides: Sequence[int], target: Sequence[int]) -> Shape:
    """Strides of ``expand(target)``: broadcast dims get stride 0 (PyTorch's inferExpandGeometry;
    a new leading dim of size 1 gets the stride that would make it contiguous with the next)."""
    off = len(target) - len(shape)
    if off < 0:
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(target)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({len(shape)})")
    out = [0] * len(target)
    sizes = [0] * len(target)
    for i in range(len(target) - 1, -1, -1):
        t = target[i]
        if i < off:
            if t < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({t}) isn't allowed in a leading, "
                    f"non-existing dimension {i}")
            nxt = sizes[i + 1] * out[i + 1] if i + 1 < len(target) else 0
            sizes[i], out[i] = t, (nxt if t == 1 else 0)
            continue
        n, s = shape[i - off], strides[i - off]
        if t == -1 or t == n:
            sizes[i], out[i] = n, s
        elif n == 1:
            sizes[i], out[i] = t, 0
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({t}) must match the existing size ({n}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(target)}.  Tensor sizes: {list(shape)}")
    return tuple(out)


def dims_arg(args: tuple, name: str = "") -> tuple:
    """Sizes or dims given PyTorch's two ways, ``f(2, 3)`` or ``f((2, 3))``, as one tuple.

    ``name``: the function, for which none given at all is PyTorch's TypeError (``x.view()``,
    ``x.permute()``; ``x.permute(())`` is an empty tuple, judged by the op)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return tuple(args[0])
    if not args and name in _SIZES_ARG:
        if name == "view":
            raise TypeError("view() received an invalid combination of arguments - got (), but "
                            "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n")
        raise TypeError(f'{name}() missing 1 required positional arguments: "{_SIZES_ARG[name]}"')
    return tuple(args)


_SIZES_ARG = {"view": "size", "permute": "dims", "expand": "size", "reshape": "shape",
              "repeat": "repeats"}


def infer_size(shape: Sequence[int], total: int) -> Shape:
    """Resolve one ``-1`` in a requested shape, with PyTorch's error text."""
    shape = list(shape)
    neg = [i for i, n in enumerate(shape) if n == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, n in enumerate(shape):
        if n < -1:
            raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape {_fmt(shape)}")
    known = prod(n for n in shape if n != -1)
    if known == total or (neg and known > 0 and total % known == 0):
        if neg:
            if known == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {_fmt(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous")
            shape[neg[0]] = total // known
        return tuple(shape)
    raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {total}")


def _fmt(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def view_strides(shape: Sequence[int], strides: Sequence[int], new_shape: Sequence[int]):
    """Strides that let ``new_shape`` alias the same cells, or None (PyTorch's computeStride)."""
    if numel(shape) == 0 and tuple(shape) == tuple(new_shape):
        return tuple(strides)  # empty tensors keep their strides when the shape is unchanged
    if numel(shape) == 0 or len(shape) == 0:
        return contiguous_strides(new_shape)
    newstride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        if tensor_d == 0 or (shape[tensor_d - 1] != 1 and
                             strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def wrap_dim(dim: int, ndim: int) -> int:
    """Normalise a possibly negative dim, with PyTorch's IndexError text."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def positions(shape: Sequence[int], strides: Sequence[int], offset: int):
    """Storage position of every element, as an int64 numpy array of ``shape`` (index maths)."""
    import numpy as np

    pos = np.full(tuple(shape), offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        if n > 1 and s:
            sh = [1] * len(shape)
            sh[d] = n
            pos = pos + (np.arange(n, dtype=np.int64) * s).reshape(sh)
    return pos


def element_index_map(in_geo: tuple, view_geo: tuple):
    """For each element of a view (row-major), the row-major index of the same cell in its input,
    -1 for a cell outside the input (``as_strided`` may reach any cell of the storage: PyTorch's
    as_strided_backward gives such cells' gradient to nobody).

    Both geometries are on one storage.
    """
    import numpy as np

    in_pos = positions(*in_geo).ravel()
    view_pos = positions(*view_geo).ravel()
    if in_pos.size == 0 or view_pos.size == 0:
        return np.zeros(view_pos.size, dtype=np.int64)
    lo = int(min(in_pos.min(), view_pos.min()))
    hi = int(max(in_pos.max(), view_pos.max())) + 1
    lut = np.full(hi - lo, -1, dtype=np.int64)
    lut[in_pos - lo] = np.arange(in_pos.size, dtype=np.int64)
    return lut[view_pos - lo]
