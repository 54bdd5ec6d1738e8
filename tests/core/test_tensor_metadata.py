"""out= semantics, resize_, storage and pointer metadata, sizes and contiguity, vs torch."""
from __future__ import annotations

import warnings

import pytest

import inplace_lab as il

torch = pytest.importorskip("torch")


def _run(L, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f(L)
        except Exception as e:  # noqa: BLE001 - compared as text
            builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
            r = ("error", builtin.__name__, str(e).split("\n")[0])  # inplace_lab's are subclasses
    return r, [str(x.message)[:200] for x in w if issubclass(x.category, UserWarning)]


def _out_empty(L):
    o = L.empty(0)
    r = L.add(L.ones(2, 3), 1, out=o)
    return [r is o, o._version, tuple(o.shape), o.stride(), o.tolist()]


def _out_nonempty_resized(L):
    o = L.zeros(4)
    L.mul(L.ones(2), 3, out=o)
    return [o._version, tuple(o.shape), o.tolist()]


def _out_same_shape(L):
    o = L.zeros(3)
    L.exp(L.zeros(3), out=o)
    L.add(L.ones(3), L.ones(3), out=o)
    return [o._version, o.tolist()]


def _out_input_requires_grad(L):
    return L.exp(L.ones(2, requires_grad=True), out=L.empty(2))


def _out_requires_grad(L):
    return L.add(L.ones(2), 1, out=L.empty(2, requires_grad=True))


def _out_under_no_grad(L):
    o = L.empty(2)
    with L.no_grad():
        L.exp(L.zeros(2, requires_grad=True), out=o)
    return [o._version, o.tolist()]


def _out_narrowing_cast(L):
    return L.add(L.ones(2), 0.5, out=L.zeros(2, dtype=L.int64))


def _out_widening_cast(L):
    o = L.zeros(2, dtype=L.float64)
    L.add(L.ones(2, dtype=L.int64), 1, out=o)
    return [str(o.dtype).split(".")[-1], o.tolist()]


def _resize_requires_grad(L):
    return L.zeros(2, requires_grad=True).resize_(3)


def _resize_shrink_then_grow(L):
    x = L.arange(6.0)
    x.resize_(2)
    a = x.tolist()
    x.resize_(2, 3)
    return [a, x.tolist(), x._version, x.is_contiguous()]


PROGRAMS = [_out_empty, _out_nonempty_resized, _out_same_shape, _out_input_requires_grad,
            _out_requires_grad, _out_under_no_grad, _out_narrowing_cast, _out_widening_cast,
            _resize_requires_grad, _resize_shrink_then_grow]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__.strip("_"))
def test_out_and_resize_semantics_match_torch(prog):
    assert _run(il, prog) == _run(torch, prog)


def test_resizing_a_nonempty_out_warns_with_torchs_text():
    _, w = _run(il, _out_nonempty_resized)
    assert len(w) == 1 and w[0].startswith("An output with one or more elements was resized")


META = {
    "contiguous": lambda L: L.zeros(2, 3, 4),
    "transposed": lambda L: L.zeros(2, 3, 4).transpose(0, 2),
    "sliced": lambda L: L.zeros(4, 6)[1:3, ::2],
    "narrow_rows": lambda L: L.zeros(4, 6)[1:3],
    "expanded": lambda L: L.zeros(3, 1).expand(3, 4),
    "size_one_dims": lambda L: L.zeros(1, 3, 1),
    "size_one_strided": lambda L: L.zeros(4, 6)[:1, ::2],
    "empty": lambda L: L.zeros(0, 3),
    "empty_strided": lambda L: L.zeros(3, 4).t()[:0],
    "scalar": lambda L: L.tensor(2.0),
    "int16": lambda L: L.zeros(5, dtype=L.int16),
    "float64_view": lambda L: L.zeros(4, 4, dtype=L.float64).diagonal(),
}


def _meta(L, t):
    root = t._base if t._base is not None else t
    return {"shape": tuple(t.shape), "size": tuple(t.size()), "stride": t.stride(),
            "offset": t.storage_offset(), "dim": t.dim(), "ndim": t.ndim, "numel": t.numel(),
            "element_size": t.element_size(), "itemsize": t.itemsize, "nbytes": t.nbytes,
            "contiguous": t.is_contiguous(),
            "storage_nbytes": t.untyped_storage().nbytes(),
            "ptr_from_root": t.data_ptr() - root.data_ptr() if t.numel() else None,
            "storage_ptr_is_roots": t.untyped_storage().data_ptr() == root.untyped_storage().data_ptr(),
            "size_repr": repr(t.shape)}


@pytest.mark.parametrize("name", META)
def test_metadata_matches_torch(name):
    assert _meta(il, META[name](il)) == _meta(torch, META[name](torch))


def test_data_ptr_is_storage_pointer_plus_offset():
    x = il.zeros(4, 6, dtype=il.float64)
    v = x[1:, 2:]
    assert v.data_ptr() == x.data_ptr() + (6 + 2) * 8
    assert x.untyped_storage().data_ptr() == x.data_ptr()
    assert v.untyped_storage() is x.untyped_storage()
    assert len(v.untyped_storage()) == 4 * 6 * 8


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_size_and_stride_of_one_dim_match_torch(dim):
    a, b = il.zeros(2, 3).t(), torch.zeros(2, 3).t()
    assert (a.size(dim), a.stride(dim)) == (b.size(dim), b.stride(dim))


def test_size_of_a_bad_dim_raises_like_torch():
    with pytest.raises(IndexError) as want:
        torch.zeros(2, 3).size(2)
    with pytest.raises(IndexError) as got:
        il.zeros(2, 3).size(2)
    assert str(got.value) == str(want.value)
