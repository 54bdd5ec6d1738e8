"""Two faithfulness gaps closed against PyTorch 2.13 (each program runs on torch and inplace_lab):

* ``torch.max/min(x, dim, keepdim, out=(values, indices))``: the out tensors are written,
  resized (with the deprecation warning when they had elements), each one's version goes up
  by one, the namedtuple holds the out tensors themselves; errors (out requiring grad, a
  wrong dtype, overlap) leave every out tensor as it was.
* ``Tensor.set_``: the tensor becomes a window on another storage (same storage object), keeps
  its own version counter (bumped once), follows the in-place leaf rules, gets a
  NotImplemented grad_fn under autograd, and the old storage is freed.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inplace_lab as il
from tests.differential.harness import attempt, compare_torch

torch = pytest.importorskip("torch")

X = [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]


def _empty_outs(T, values_dtype=None):
    return T.empty(0, dtype=values_dtype or T.float32), T.empty(0, dtype=T.int64)


# ---- max/min out=(values, indices) ---------------------------------------------------------------

@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (-1, False)])
def test_max_min_out_writes_into_the_given_tensors(op, dim, keepdim):
    def prog(T):
        x = T.tensor(X)
        v, i = _empty_outs(T)
        r = getattr(T, op)(x, dim, keepdim, out=(v, i))
        return {"values": v, "indices": i, "same": [r.values is v, r.indices is i, r[0] is v],
                "versions": [v._version, i._version], "type": type(r).__name__,
                "contiguous": v.is_contiguous()}

    ref = compare_torch(prog)
    assert ref["type"] == f"{op}_out"


def test_out_accepts_a_list_and_keyword_arguments():
    def prog(T):
        x = T.tensor(X)
        v, i = _empty_outs(T)
        r = T.min(input=x, dim=0, keepdim=True, out=[v, i])
        return {"r": list(r), "v": v, "versions": [v._version, i._version]}

    compare_torch(prog)


def test_out_of_the_right_shape_keeps_its_strides_and_base_sees_the_bump():
    def prog(T):
        x = T.tensor(X)
        vb, ib = T.zeros(2, 2), T.zeros(2, 2, dtype=T.int64)
        v, i = vb[:, 0], ib[:, 1]  # non-contiguous views of the right shape
        T.max(x, 1, out=(v, i))
        return {"vb": vb, "ib": ib, "strides": [list(v.stride()), list(i.stride())],
                "versions": [vb._version, ib._version, v._version]}

    compare_torch(prog)


def test_nonempty_out_of_the_wrong_shape_is_resized_with_the_deprecation_warning():
    for T in (torch, il):
        x = T.tensor(X)
        v, i = T.zeros(5), T.zeros(5, dtype=T.int64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.max(x, 1, out=(v, i))
        texts = [str(w.message) for w in caught if w.category is UserWarning]
        assert len(texts) == 2, T
        assert texts[0].startswith("An output with one or more elements was resized since it had "
                                   "shape [5], which does not match the required output shape [2]. "
                                   "This behavior is deprecated")
        assert tuple(v.shape) == (2,) and v.stride() == (1,) and v._version == 1


def test_empty_out_is_resized_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = il.max(il.tensor(X), 1, out=(il.empty(0), il.empty(0, dtype=il.int64)))
    assert r.values.tolist() == [5.0, 6.0] and r.indices.tolist() == [1, 2]


def test_the_warning_points_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        il.max(il.tensor(X), 1, out=(il.zeros(3), il.empty(0, dtype=il.int64)))
    assert caught[0].filename == __file__


@pytest.mark.parametrize("case", ["values_double", "values_long", "indices_int", "indices_float"])
def test_wrong_out_dtype_is_refused_and_nothing_changes(case):
    dts = {"values_double": ("float64", "int64"), "values_long": ("int64", "int64"),
           "indices_int": ("float32", "int32"), "indices_float": ("float32", "float32")}[case]

    def prog(T):
        x = T.tensor(X)
        v, i = T.zeros(2, dtype=getattr(T, dts[0])), T.zeros(2, dtype=getattr(T, dts[1]))
        err = attempt(lambda: T.max(x, 1, out=(v, i)))
        return {"err": err, "v": v, "i": i, "versions": [v._version, i._version]}

    compare_torch(prog)


def test_other_dtypes_are_named_as_pytorch_names_them():
    def prog(T):
        x = T.tensor(X)
        return [attempt(lambda dt=dt: T.max(x, 1, out=(T.zeros(2, dtype=dt),
                                                       T.zeros(2, dtype=T.int64))))
                for dt in (T.float16, T.bool, T.int8, T.uint8, T.int16, T.complex64)]

    compare_torch(prog)


def test_out_with_grad_is_refused_before_any_write():
    def prog(T):
        x = T.tensor(X, requires_grad=True)
        v, i = T.zeros(5), T.zeros(5, dtype=T.int64)
        e1 = attempt(lambda: T.max(x, 1, out=(v, i)))
        e2 = attempt(lambda: T.min(T.tensor(X), 1, out=(T.zeros(2, requires_grad=True), i)))
        with T.no_grad():
            r = T.max(x, 1, out=(v, i))
        return {"e1": e1, "e2": e2, "v": v, "shape_after": list(v.shape), "rg": r.values.requires_grad,
                "versions": [v._version, i._version]}

    compare_torch(prog)


def test_overlapping_outs_are_refused():
    def prog(T):
        x = T.tensor(X)
        partial = attempt(lambda: T.max(x, 1, out=(x[0, :2], T.zeros(2, dtype=T.int64))))
        internal = attempt(lambda: T.max(x, 1, out=(T.zeros(1).expand(2), T.zeros(2, dtype=T.int64))))
        return {"partial": partial, "internal": internal, "x": x, "v": x._version}

    compare_torch(prog)


def test_kernel_errors_come_before_dtype_errors():
    def prog(T):
        bad = (T.zeros(0, dtype=T.float64), T.zeros(0, dtype=T.int64))
        return [attempt(lambda: T.max(T.tensor(X), 5, out=bad)),
                attempt(lambda: T.max(T.zeros(2, 0), 1, out=bad))]

    compare_torch(prog)


def test_outs_sharing_one_counter_are_bumped_once_each():
    def prog(T):
        b = T.zeros(4, dtype=T.int64)
        T.max(T.tensor(X).long(), 1, out=(b[:2], b[2:]))
        return {"b": b, "v": b._version}

    compare_torch(prog)


def test_zero_dim_input_and_the_full_reduction_out():
    def prog(T):
        r = T.max(T.tensor(3.0), 0, out=_empty_outs(T))
        o = T.zeros(3)
        full = T.max(T.tensor(X), out=o)
        return {"r": list(r), "full": full, "same": full is o, "v": o._version}

    compare_torch(prog)


def test_out_tuple_of_the_wrong_length_or_kind_is_a_type_error():
    for T in (torch, il):
        with pytest.raises(TypeError, match="expected tuple of 2 elements but got 1"):
            T.max(T.tensor(X), 1, out=(T.zeros(0),))
        with pytest.raises(TypeError, match="max\\(\\) received an invalid combination of arguments"):
            T.max(T.tensor(X), 1, out=T.zeros(0))
        with pytest.raises(TypeError, match="max\\(\\) received an invalid combination of arguments"):
            T.max(T.tensor(X), out=(T.zeros(0), T.zeros(0)))


def test_plain_max_min_calls_are_unchanged():
    def prog(T):
        x = T.tensor(X, requires_grad=True)
        r = T.max(x, 1)
        return {"r": list(r), "type": type(r).__name__, "fn": r.values.grad_fn,
                "full": x.min(), "other": T.max(x, x * 2), "full_fn": x.max().grad_fn}

    compare_torch(prog)


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_out_form_equals_the_plain_form(shape, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = data.draw(st.booleans())
    a = np.random.default_rng(len(shape) * 7 + dim).integers(-3, 3, shape).astype(np.float32)
    for T in (torch, il):
        x = T.tensor(a)
        v, i = _empty_outs(T)
        T.min(x, dim, keepdim, out=(v, i))
        plain = T.min(x, dim, keepdim)
        assert np.array_equal(np.asarray(v.numpy()), np.asarray(plain.values.numpy()))
        assert np.array_equal(np.asarray(i.numpy()), np.asarray(plain.indices.numpy()))
        ref = torch.min(torch.tensor(a), dim, keepdim)
        assert np.array_equal(np.asarray(i.numpy()), ref.indices.numpy())


# ---- set_ ------------------------------------------------------------------------------------------

def test_set_to_a_tensor_shares_its_storage_but_keeps_its_own_counter():
    def prog(T):
        x, y = T.zeros(3), T.arange(6.0).reshape(2, 3)
        x.add_(1)
        y.add_(1)
        y.add_(1)
        r = x.set_(y)
        same = x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
        geo = [list(x.shape), list(x.stride()), x.storage_offset()]
        v0 = [x._version, y._version]
        x.add_(1)
        v1 = [x._version, y._version]
        y.mul_(2)
        return {"is": r is x, "same": same, "geo": geo, "v0": v0, "v1": v1,
                "v2": [x._version, y._version], "y": y, "x": x, "view": x._is_view()}

    compare_torch(prog)


def test_set_shares_the_very_storage_object():
    x, y = il.zeros(3), il.arange(6.0)
    x.set_(y[1:4])
    assert x.untyped_storage() is y.untyped_storage()
    x[0] = 100.0
    assert y[1].item() == 100.0


def test_set_to_a_strided_view_takes_its_geometry():
    def prog(T):
        x, y = T.zeros(3), T.arange(10.0)
        v = y[2:8:2]
        x.set_(v)
        return {"x": x, "geo": [list(x.stride()), x.storage_offset()],
                "v": [x._version, v._version, y._version]}

    compare_torch(prog)


def test_set_with_storage_offset_size_and_stride():
    def prog(T):
        y = T.arange(10.0)
        a = T.zeros(3)
        a.set_(y.untyped_storage(), 2, (2, 2), (1, 3))
        b = T.zeros(1)
        b.set_(y.untyped_storage(), 1, [3])  # stride defaults to contiguous
        c = T.zeros(1)
        c.set_(y.untyped_storage())  # the whole storage, 1-D
        d = T.zeros(1)
        d.set_(y[3:], 1, (2,), (2,))  # a tensor source: offset counted from its own
        e = T.zeros(1)
        e.set_(source=y.untyped_storage(), storage_offset=1, size=(2,), stride=(2,))
        return {"a": a, "b": b, "c": c, "d": d, "e": e,
                "geo": [list(a.stride()), a.storage_offset(), list(b.stride()), d.storage_offset()],
                "v": [a._version, c._version, y._version]}

    compare_torch(prog)


def test_set_with_no_arguments_gives_an_empty_storage():
    def prog(T):
        x = T.ones(3)
        x.add_(1)
        x.set_()
        return {"x": x, "stride": list(x.stride()), "v": x._version,
                "nbytes": x.untyped_storage().nbytes(), "ptr": x.data_ptr()}

    compare_torch(prog)


def test_set_past_the_end_grows_the_storage():
    def prog(T):
        y = T.arange(10.0)
        t = T.zeros(1)
        t.set_(y.untyped_storage(), 5, (10,), (1,))
        return {"head": t[:5], "nbytes": y.untyped_storage().nbytes(),
                "same": t.untyped_storage().data_ptr() == y.untyped_storage().data_ptr(),
                "y": y}

    compare_torch(prog)


def test_set_errors_match_torch_and_change_nothing():
    def prog(T):
        x = T.zeros(2)
        y = T.arange(10.0)
        errs = [attempt(lambda: x.set_(T.arange(3))),
                attempt(lambda: T.zeros(1, dtype=T.int32).set_(T.ones(2))),
                attempt(lambda: x.set_(y.untyped_storage(), 0, (3,), (1, 1))),
                attempt(lambda: x.set_(y.untyped_storage(), -1, (1,), (1,)))]
        return {"errs": errs, "x": x, "v": x._version, "ptr_kept": x.untyped_storage().nbytes()}

    compare_torch(prog)


def test_set_with_a_negative_size_is_refused_before_anything_changes():
    """PyTorch raises the same text but leaves the tensor with the negative size; here x is kept."""
    for T in (torch, il):
        with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
            T.zeros(2).set_(T.arange(4.0).untyped_storage(), 0, (-1,), (1,))
    x = il.zeros(2)
    with pytest.raises(RuntimeError):
        x.set_(il.arange(4.0).untyped_storage(), 0, (-1,), (1,))
    assert x.shape == (2,) and x._version == 0 and x.tolist() == [0.0, 0.0]


def test_set_with_a_wrong_argument_kind_is_a_type_error():
    for T in (torch, il):
        y = T.arange(4.0)
        for args in ((3,), (y.untyped_storage(), 1), (y.untyped_storage(), 0, 3)):
            with pytest.raises(TypeError, match=r"set_\(\) received an invalid combination"):
                T.zeros(1).set_(*args)


def test_set_storage_of_another_dtype_is_refused_with_a_reason():
    """PyTorch reinterprets an untyped storage's bytes; inplace_lab's storages are typed."""
    x = il.zeros(1, dtype=il.float64)
    with pytest.raises(RuntimeError, match="storages are typed"):
        x.set_(il.arange(4.0).untyped_storage(), 0, (2,), (1,))
    assert x._version == 0 and x.shape == (1,)


def test_set_on_a_leaf_that_requires_grad_follows_the_inplace_rules():
    def prog(T):
        w = T.zeros(4, requires_grad=True)
        errs = [attempt(lambda: w.set_(T.ones(4))), attempt(lambda: w.set_()),
                attempt(lambda: w[:2].set_(T.ones(2)))]
        v_after_errors = w._version
        with T.no_grad():
            w.set_(T.ones(3))
        return {"errs": errs, "v0": v_after_errors, "w": w, "v": w._version, "leaf": w.is_leaf,
                "rg": w.requires_grad, "fn": w.grad_fn}

    compare_torch(prog)


def test_set_under_autograd_gives_a_not_implemented_node():
    def prog(T):
        a = T.ones(3, requires_grad=True)
        x = T.zeros(3)
        x.set_(a)
        b = a * 2
        y = T.zeros(3)
        y.set_(b)
        c = a * 3
        c.set_(T.ones(2))
        with T.no_grad():
            z = T.zeros(3)
            z.set_(a)
        edges = [[n is None for n, _ in t.grad_fn.next_functions] for t in (x, y, c)]
        return {"fn": [x.grad_fn, y.grad_fn, c.grad_fn], "edges": edges,
                "rg": [x.requires_grad, z.requires_grad, z.grad_fn is None],
                "bw": attempt(lambda: x.sum().backward()), "bw_c": attempt(lambda: c.sum().backward()),
                "v": [x._version, c._version, a._version]}

    compare_torch(prog)


def test_set_on_a_view_keeps_its_base_and_shares_the_bump():
    def prog(T):
        base = T.zeros(4)
        v = base[:2]
        v.set_(T.ones(3))
        a = T.ones(4, requires_grad=True)
        nb = a * 1
        nv = nb[:2]
        nv.set_(T.ones(2) * 5)
        return {"v": v, "view": [v._is_view(), v._base is base], "ver": [v._version, base._version],
                "fn": [nv.grad_fn, nb.grad_fn], "bw": attempt(lambda: nv.sum().backward())}

    compare_torch(prog)


def test_set_on_an_inference_tensor_is_refused_outside_inference_mode():
    def prog(T):
        with T.inference_mode():
            t = T.zeros(3)
        return attempt(lambda: t.set_(T.ones(2)))

    compare_torch(prog)
    with il.inference_mode():
        t = il.zeros(3)
    with pytest.raises(RuntimeError):
        t.set_(il.ones(2))
    assert t.shape == (2,)  # (as PyTorch, and as add_: the bump refuses after the write)


def test_set_frees_the_old_storage():
    il.memory.reset_peak_memory_stats()
    a, b = il.zeros(1000), il.zeros(10)
    before = il.memory_allocated()
    a.set_(b)
    assert before - il.memory_allocated() == 4000  # a's 1000 float32 are gone
    keep = il.zeros(500)
    view = keep[:10]
    before = il.memory_allocated()
    keep.set_(b)
    assert il.memory_allocated() == before  # a view still looks at the old storage
    del view
    assert before - il.memory_allocated() == 2000
    c = il.zeros(100)
    before = il.memory_allocated()
    c.set_()
    assert before - il.memory_allocated() == 400


def test_set_and_max_out_emit_their_op_and_bump_events():
    from inplace_lab import hooks

    seen = []
    handle = hooks.subscribe(seen.append)
    try:
        x, y = il.zeros(3), il.ones(2)
        x.set_(y)
        v, i = _empty_outs(il)
        il.max(il.tensor(X), 1, out=(v, i))
    finally:
        hooks.unsubscribe(handle)
    ops = [(e.event, e.op, e.kind) for e in seen if e.event in ("op", "bump")]
    assert ("op", "set_", "inplace") in ops and ("bump", "set_", "") in ops
    assert ("op", "_max_dim", "out") in ops and ("bump", "_max_dim", "") in ops
