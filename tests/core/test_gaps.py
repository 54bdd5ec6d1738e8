"""Closing gaps of issue 2, against torch 2.13 (and tracemalloc for what numpy allocates).

- in-place ops torch allows on an expanded (internally overlapping) target: tril_, triu_,
  baddbmm_, threshold_, with torch's values (the shared cells end up as torch leaves them);
- ``out=`` writes a ufunc's result straight into ``out`` (no result-sized temporary), with
  the resize/warning/version rules unchanged; ``add_(y, alpha=a)`` / ``sub_`` without an
  ``a * y`` temporary of the full size;
- ``device("cuda").index is None`` while tensors made on it report ``cuda:0``;
  ``data_ptr()`` of an empty tensor is 0.
"""
import tracemalloc
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
from tests.differential.harness import attempt, compare_torch  # noqa: E402

MB4 = 1000 * 1000 * 4  # one float32 [1000, 1000] tensor


def _peak(fn):
    """Bytes numpy allocated at the peak while ``fn`` ran (after one warm-up call)."""
    fn()
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ---- in-place on expanded targets --------------------------------------------------------------

@pytest.mark.parametrize("call", [
    "tril_()", "triu_()", "tril_(1)", "triu_(-1)", "tril_(-1)", "triu_(1)"])
def test_triangle_ops_on_an_expanded_target(call):
    def prog(T):
        row = T.tensor([[0.2, 0.7, -0.4]])
        t = row.expand(3, 3)
        out = eval("t." + call)
        return {"same": out is t, "t": t, "row": row, "v": (t._version, row._version)}
    compare_torch(prog)


@pytest.mark.parametrize("kw", [{}, {"beta": 0.5, "alpha": 2}, {"beta": 0}, {"alpha": -1}])
@pytest.mark.parametrize("expand", ["rows", "cols", "batch"])
def test_baddbmm_on_an_expanded_target_accumulates_like_torch(kw, expand):
    """torch's CPU loop reads and writes each element in turn: shared cells accumulate."""
    def prog(T):
        if expand == "rows":
            base = T.tensor([[[0.2, 0.7]]])
            t = base.expand(2, 2, 2)
        elif expand == "cols":
            base = T.tensor([[[0.2], [0.7]]])
            t = base.expand(2, 2, 2)
        else:
            base = T.tensor([[[0.2, 0.7], [0.1, -0.3]]])
            t = base.expand(2, 2, 2)
        b1, b2 = T.ones(2, 2, 3), T.arange(12.).view(2, 3, 2)
        t.baddbmm_(b1, b2, **kw)
        return {"t": t, "base": base, "v": t._version}
    compare_torch(prog)


def test_threshold_on_an_expanded_target():
    def prog(T):
        row = T.tensor([[0.2, 0.7, -0.4]])
        t = row.expand(2, 3)
        T.threshold_(t, 0.5, 9.)
        row2 = T.tensor([[0.2, 0.7, -0.4]])
        T.threshold_(row2.expand(2, 3), 0.1, -1.)
        return {"t": t, "row": row, "row2": row2, "v": t._version}
    compare_torch(prog)


def test_ops_without_the_exemption_still_refuse_expanded_targets():
    def prog(T):
        t = T.tensor([[0.2, 0.7]]).expand(2, 2)
        return {"addmm": attempt(lambda: t.addmm_(T.ones(2, 3), T.ones(3, 2))),
                "relu": attempt(lambda: t.relu_()), "t": t, "v": t._version}
    compare_torch(prog)


def test_triangle_ops_in_place_keep_the_untouched_cells_and_allocate_little():
    a = il.rand(1000, 1000)
    before = a.clone()
    a.tril_()
    assert np.array_equal(a.numpy(), np.tril(before.numpy()))
    assert _peak(lambda: a.tril_()) < MB4 // 2  # a bool mask, not a float result
    b = il.rand(3, 4, 5)
    ref = torch.from_numpy(b.numpy().copy())
    b.triu_(1)
    ref.triu_(1)
    assert np.array_equal(b.numpy(), ref.numpy())


# ---- out= straight into the out tensor ---------------------------------------------------------

OUT_OPS = {
    "add": lambda T, a, b, o: T.add(a, b, out=o),
    "add_alpha": lambda T, a, b, o: T.add(a, b, alpha=2, out=o),
    "sub_alpha": lambda T, a, b, o: T.sub(a, b, alpha=0.5, out=o),
    "mul": lambda T, a, b, o: T.mul(a, b, out=o),
    "div": lambda T, a, b, o: T.div(a, b, out=o),
    "maximum": lambda T, a, b, o: T.maximum(a, b, out=o),
    "exp": lambda T, a, b, o: T.exp(a, out=o),
    "sin": lambda T, a, b, o: T.sin(a, out=o),
}


@pytest.mark.parametrize("name", sorted(OUT_OPS))
def test_out_writes_without_a_result_sized_temporary(name):
    f = OUT_OPS[name]
    a, b, o = il.rand(1000, 1000), il.rand(1000, 1000) + 0.5, il.empty(1000, 1000)
    ptr, v = o.data_ptr(), o._version
    assert f(il, a, b, o) is o and o.data_ptr() == ptr and o._version == v + 1
    ref = f(torch, torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy()),
            torch.empty(1000, 1000))
    np.testing.assert_allclose(o.numpy(), ref.numpy(), rtol=1e-6)
    assert _peak(lambda: f(il, a, b, o)) < MB4 // 4


@pytest.mark.parametrize("name", sorted(OUT_OPS))
def test_out_rules_unchanged(name):
    """Resize of an empty out (silent) and of a wrong-sized one (warning), broadcasting,
    an out that is one of the inputs, an out of a wider dtype, refusals."""
    f = OUT_OPS[name]

    def prog(T):
        a, b = T.tensor([[1., 2., 3.]]), T.tensor([[0.5], [2.]])
        e = T.empty(0)
        r1 = f(T, a, b, e)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            wrong = T.zeros(4)
            f(T, a, b, wrong)
        same = T.tensor([[1., 2., 3.], [4., 5., 6.]])
        f(T, same, T.tensor([[2., 2., 2.], [2., 2., 2.]]), same)
        wide = T.zeros(2, 3, dtype=T.float64)
        f(T, a, b, wide)
        narrow = T.zeros(2, 3, dtype=T.int64)
        part = T.arange(4.)
        return {"e": (r1 is e, e, e._version), "wrong": (wrong, wrong._version, len(w),
                                                         str(w[0].message)[:60] if w else ""),
                "same": (same, same._version), "wide": (wide, wide._version),
                "narrow": attempt(lambda: f(T, a, b, narrow)), "narrow_v": narrow._version,
                "overlap": attempt(lambda: f(T, part[:3], part[1:], part[1:])),
                "grad": attempt(lambda: f(T, T.ones(2, requires_grad=True), T.ones(2), T.empty(2)))}
    compare_torch(prog)


# ---- add_ / sub_ with alpha -----------------------------------------------------------------

ALPHA = {
    "add_": lambda T, x, y: x.add_(y, alpha=0.5),
    "sub_": lambda T, x, y: x.sub_(y, alpha=3),
    "add_row": lambda T, x, y: x.add_(y[0], alpha=2),
    "sub_col": lambda T, x, y: x.sub_(y[:, :1], alpha=-1.5),
    "iadd": lambda T, x, y: x.add_(y, alpha=1),
}


@pytest.mark.parametrize("name", sorted(ALPHA))
def test_add_sub_alpha_in_place_allocates_no_scaled_copy(name):
    f = ALPHA[name]
    x, y = il.rand(1000, 1000), il.rand(1000, 1000)
    tx, ty = torch.from_numpy(x.numpy().copy()), torch.from_numpy(y.numpy().copy())
    ptr = x.data_ptr()
    assert f(il, x, y) is x and x.data_ptr() == ptr and x._version == 1
    f(torch, tx, ty)
    np.testing.assert_allclose(x.numpy(), tx.numpy(), rtol=1e-6, atol=1e-6)
    assert _peak(lambda: f(il, x, y)) < MB4 // 8


def test_add_alpha_out_of_place_allocates_only_its_result():
    x, y = il.rand(1000, 1000), il.rand(1000, 1000)
    assert _peak(lambda: il.add(x, y, alpha=2)) < MB4 * 1.2
    assert _peak(lambda: il.sub(x, y[0], alpha=2)) < MB4 * 1.2


def test_add_alpha_values_and_dtypes_match_torch():
    def prog(T):
        big = T.arange(40000.).view(200, 200)
        i = T.arange(40000).view(200, 200)
        x = T.ones(200, 200)
        x.add_(big, alpha=0.25)
        ii = T.ones(200, 200, dtype=T.int64)
        ii.sub_(i, alpha=3)
        t = T.ones(200, 200).t()  # a transposed target: the iterator follows its strides
        t.add_(big, alpha=2)
        return {"x": x, "ii": ii, "t": t, "t_strides": t.stride(),
                "oop": T.add(big.t(), big, alpha=-2), "oop_strides": T.add(big.t(), big, alpha=-2).stride(),
                "int_float_alpha": attempt(lambda: T.ones(3, dtype=T.int64).add_(T.ones(3, dtype=T.int64), alpha=0.5)),
                "self": x.add_(x, alpha=2)}
    compare_torch(prog)


# ---- devices and data_ptr ----------------------------------------------------------------------

def test_cuda_device_without_index_is_like_torch():
    for spec in ("cuda", "cuda:0", "cuda:1", "cpu"):
        t, i = torch.device(spec), il.device(spec)
        assert (i.type, i.index, str(i), repr(i)) == (t.type, t.index, str(t), repr(t))
    assert (il.device("cuda") == il.device("cuda:0")) == (torch.device("cuda") == torch.device("cuda:0"))
    assert il.device("gpu").index is None and il.device("cuda", 0).index == 0


def test_tensors_made_on_plain_cuda_live_on_the_current_device():
    il.set_simulated_gpu(True)  # tests/conftest.py restores the switch
    t = il.ones(2, device="cuda")
    assert str(t.device) == "cuda:0" and t.device.index == 0
    assert t.to("cuda") is t and t.to(il.device("cuda")) is t and t.cuda() is t
    assert str(il.ones(2).cuda().device) == "cuda:0" and str(il.ones(2).to("cuda").device) == "cuda:0"
    assert il.memory.memory_allocated("cuda") == il.memory.memory_allocated("cuda:0") > 0
    assert str((t + il.zeros(2, device="cuda:0")).device) == "cuda:0"


def test_empty_tensors_have_data_ptr_zero():
    def prog(T):
        r = T.ones(3)
        r.resize_(0)
        full = T.ones(3)
        return {"empty": T.empty(0).data_ptr(), "zeros": T.zeros(2, 0).data_ptr(),
                "list": T.tensor([]).data_ptr(), "slice": T.ones(3)[3:].data_ptr(),
                "resized": r.data_ptr(), "storage": T.empty(0).untyped_storage().data_ptr(),
                "nonzero": full.data_ptr() != 0, "view": full[1:].data_ptr() - full.data_ptr()}
    compare_torch(prog)
