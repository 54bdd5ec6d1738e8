"""scatter(reduce=), scatter_reduce and index_reduce against torch 2.13.

Values for every reduction, include_self and dtype; gradients (sum, mean, prod with zeros,
amax/amin with ties) compared with torch's own; grad_fn names and edges; versions of the
in-place forms; saved-tensor version errors; every error type and text; the signed zero a
max/min keeps; the deprecation and beta warnings (once per process, as TORCH_WARN_ONCE).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inplace_lab as il
from inplace_lab.ops import gather_scatter
from tests.differential.harness import attempt, compare_torch

torch = pytest.importorskip("torch")

REDUCES = ["sum", "prod", "mean", "amax", "amin"]
DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool", "complex64"]
SELF = [[5, -7, 3, 0], [2, 1, -1, 6], [4, 4, 0, -3]]
SRC = [[1, 2, -4], [-5, 6, 0], [3, -2, 2]]
SCATTER_INDEX = [[0, 0, 2], [1, 0, 2], [2, 1, 0]]


def _t(T, data, dtype):
    return T.tensor(np.array(data)).to(getattr(T, dtype))


# ---- values ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_values_match_torch(reduce, dtype):
    def prog(T):
        x, s = _t(T, SELF, dtype), _t(T, SRC, dtype)
        out = {}
        for dim in (0, 1, -1):
            for inc in (True, False):
                out[f"{dim}{inc}"] = x.scatter_reduce(dim, T.tensor(SCATTER_INDEX), s, reduce,
                                                      include_self=inc)
        return out

    compare_torch(prog)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_values_match_torch(reduce, dtype):
    def prog(T):
        x = _t(T, SELF, dtype)
        sources = {1: _t(T, SRC, dtype), 0: _t(T, np.resize(SRC, (3, 4)), dtype)}  # 3 slices each
        return {f"{dim}{inc}": x.index_reduce(dim, T.tensor(i), sources[dim], reduce,
                                              include_self=inc)
                for dim, i in ((1, [0, 3, 0]), (0, [2, 0, 2])) for inc in (True, False)}

    compare_torch(prog)


def test_integer_mean_floors_the_wrapped_sum():
    x = il.tensor([1, 2], dtype=il.int8)
    r = x.scatter_reduce(0, il.tensor([0, 0]), il.tensor([100, 100], dtype=il.int8), "mean")
    assert r.tolist() == [-19, 2]  # 201 wraps to -55; floor(-55 / 3) = -19, as torch
    r = il.tensor([5, -7]).scatter_reduce(0, il.tensor([1, 1]), il.tensor([-4, -5]), "mean")
    assert r.tolist() == [5, -6]


def test_legacy_max_and_min_run_forward_but_refuse_backward():
    def prog(T):
        x = T.tensor([5.0, -7.0, 3.0], requires_grad=True)
        ys = [x.scatter_reduce(0, T.tensor([0, 0]), T.tensor([1.0, 2.0]), r, include_self=inc)
              for r in ("max", "min") for inc in (True, False)]
        return {"ys": ys, "fn": ys[0].grad_fn, "bw": attempt(lambda: ys[0].sum().backward())}

    compare_torch(prog)


def test_nan_propagates_through_amax_and_amin():
    def prog(T):
        x = T.tensor([1.0, float("nan"), 2.0])
        i, s = T.tensor([0, 1, 2]), T.tensor([float("nan"), 3.0, 1.0])
        return [x.scatter_reduce(0, i, s, r) for r in ("amax", "amin")] + \
               [x.index_reduce(0, i, s, r, include_self=False) for r in ("amax", "amin")]

    compare_torch(prog)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("inc", [True, False])
@pytest.mark.parametrize("zeros", [(-0.0, 0.0, -0.0), (0.0, -0.0, 0.0), (-0.0, -0.0, 0.0),
                                   (0.0, 0.0, -0.0)])
def test_the_first_zero_met_keeps_its_sign(reduce, inc, zeros):
    s0, s1, s2 = zeros

    def sign_bits(T):
        a = T.tensor([[s0, s0]])
        src = T.tensor([[s1, s1], [s2, s2]])
        rs = [T.tensor([s0]).scatter_reduce(0, T.tensor([0, 0]), T.tensor([s1, s2]), reduce,
                                            include_self=inc),
              a.scatter_reduce(0, T.tensor([[0, 0], [0, 0]]), src, reduce, include_self=inc),
              a.index_reduce(0, T.tensor([0, 0]), src, reduce, include_self=inc)]
        return [np.signbit(r.numpy()).tolist() for r in rs]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert sign_bits(il) == sign_bits(torch)


def test_zero_dim_and_empty_operands():
    def prog(T):
        return [T.tensor(5.0).scatter_reduce(0, T.tensor(0), T.tensor(2.0), "prod"),
                T.tensor(5.0).scatter_reduce(0, T.tensor([0]), T.tensor([2.0]), "sum"),
                T.tensor(5.0).index_reduce(0, T.tensor(0), T.tensor(2.0), "prod"),
                T.zeros(3).scatter_reduce(0, T.tensor([], dtype=T.int64), T.ones(0), "mean"),
                T.zeros(3).scatter_reduce(0, T.tensor([0, 0], dtype=T.int32),
                                          T.tensor([2.0, 3.0]), "sum")]

    compare_torch(prog)


def test_index_smaller_than_src_uses_its_region():
    def prog(T):
        x = T.arange(12.0).reshape(3, 4)
        s = T.arange(20.0).reshape(4, 5) - 7
        return [x.scatter_reduce(1, T.tensor([[0, 1, 2], [2, 1, 0]]), s, r) for r in REDUCES]

    compare_torch(prog)


# ---- gradients ------------------------------------------------------------------------------


def _grads(T, op, reduce, inc, x, idx, src, dim=0, weight=None):
    xl = T.tensor(x, dtype=T.float64, requires_grad=True)
    sl = T.tensor(src, dtype=T.float64, requires_grad=True)
    y = getattr(xl, op)(dim, T.tensor(idx), sl, reduce, include_self=inc)
    w = T.arange(1.0, y.numel() + 1, dtype=T.float64).reshape(y.shape) if weight is None else weight
    (y * w).sum().backward()
    return {"y": y, "gx": xl.grad, "gs": sl.grad, "fn": y.grad_fn}


GRAD_CASES = {
    "ties": ([2.0, 5.0, 1.0, 0.0], [0, 0, 1, 1, 2], [2.0, 2.0, 5.0, -1.0, 1.0]),
    "one_zero": ([2.0, 0.0, 3.0, 4.0], [0, 0, 1, 2, 2], [0.0, 3.0, 2.0, 0.0, 5.0]),
    "two_zeros": ([2.0, 1.0, 3.0, 4.0], [0, 0, 1, 1, 3], [0.0, 0.0, 2.0, 7.0, 5.0]),
    "self_equals_result": ([3.0, 1.0, 3.0, 4.0], [0, 0, 2, 2, 2], [3.0, 1.0, 2.0, 3.0, 9.0]),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
@pytest.mark.parametrize("inc", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_gradients_match_torch(reduce, inc, case):
    x, idx, src = GRAD_CASES[case]
    compare_torch(lambda T: _grads(T, "scatter_reduce", reduce, inc, x, idx, src), rtol=1e-12)


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
@pytest.mark.parametrize("inc", [True, False])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_gradients_match_torch(reduce, inc, case):
    x, idx, src = GRAD_CASES[case]
    x2 = np.stack([x, np.array(x) * 2]).T  # [4, 2]: slices along dim 0
    s2 = np.stack([src, np.array(src) - 1]).T
    compare_torch(lambda T: _grads(T, "index_reduce", reduce, inc, x2, idx, s2), rtol=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_random_programs_match_torch_values_and_grads(data):
    """Random shapes, dims and small integer values (so ties and zeros are common)."""
    op = data.draw(st.sampled_from(["scatter_reduce", "index_reduce"]))
    reduce = data.draw(st.sampled_from(REDUCES if op == "scatter_reduce" else REDUCES[1:]))
    inc = data.draw(st.booleans())
    rows, cols = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    dim = data.draw(st.integers(0, 1))
    n = (rows, cols)[dim]
    vals = st.integers(-2, 2).map(float)
    x = np.array(data.draw(st.lists(vals, min_size=rows * cols, max_size=rows * cols)))
    x = x.reshape(rows, cols)
    if op == "scatter_reduce":
        k = data.draw(st.integers(1, 5))
        ishape = (k, cols) if dim == 0 else (rows, k)
        idx = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k * ishape[1 - dim],
                                          max_size=k * ishape[1 - dim]))).reshape(ishape)
        sshape = ishape
    else:
        k = data.draw(st.integers(1, 5))
        idx = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)))
        sshape = (k, cols) if dim == 0 else (rows, k)
    size = int(np.prod(sshape))
    src = np.array(data.draw(st.lists(vals, min_size=size, max_size=size))).reshape(sshape)
    compare_torch(lambda T: _grads(T, op, reduce, inc, x, idx.tolist(), src, dim), rtol=1e-12)


def test_mismatched_index_and_src_fail_at_backward_as_torch():
    def prog(T, reduce):
        x = T.ones(3, 4, dtype=T.float64, requires_grad=True)
        s = T.ones(4, 5, dtype=T.float64, requires_grad=True)
        y = x.scatter_reduce(1, T.tensor([[0, 1, 2], [2, 1, 0]]), s, reduce)
        return {"y": y, "backward": attempt(lambda: y.sum().backward())}

    for reduce in REDUCES:
        compare_torch(lambda T: prog(T, reduce))


# ---- graph, versions, saved tensors ---------------------------------------------------------


def test_nodes_edges_and_saved_attributes():
    def prog(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = T.tensor([4.0, 5.0], requires_grad=True)
        i = T.tensor([0, 0])
        y = x.scatter_reduce(0, i, s, "amax", include_self=False)
        z = x.index_reduce(0, i, s, "prod")
        w = x.detach().scatter_reduce(0, i, s, "sum")
        return {"y": y.grad_fn, "z": z.grad_fn, "edges": [f for f, _ in w.grad_fn.next_functions],
                "saved": [y.grad_fn._saved_reduce, y.grad_fn._saved_include_self,
                          y.grad_fn._saved_dim, y.grad_fn._saved_self, y.grad_fn._saved_src,
                          y.grad_fn._saved_result, y.grad_fn._saved_index, z.grad_fn._saved_source],
                "int_result": T.tensor([1, 2]).scatter_reduce(0, i, T.tensor([1, 2]), "sum")}

    compare_torch(prog)


@pytest.mark.parametrize("op", ["scatter_reduce_", "index_reduce_"])
def test_in_place_forms_bump_once_and_keep_backward_right(op):
    def prog(T):
        x = T.tensor([1.0, 0.0, 3.0], requires_grad=True)
        s = T.tensor([4.0, 0.5], requires_grad=True)
        a = x * 2
        v0 = a._version
        r = getattr(a, op)(0, T.tensor([0, 1]), s, "prod")
        a.sum().backward()
        b = x.detach().clone()
        getattr(b, op)(0, T.tensor([2, 2]), s.detach(), "mean")
        return {"same": r is a, "v": [v0, a._version, b._version], "fn": a.grad_fn, "a": a,
                "gx": x.grad, "gs": s.grad, "b": b,
                "leaf": attempt(lambda: getattr(x, op)(0, T.tensor([0]), s[:1], "amax"))}

    compare_torch(prog)


@pytest.mark.parametrize("reduce", ["sum", "amax"])
@pytest.mark.parametrize("op", ["scatter_reduce", "index_reduce"])
def test_modifying_a_saved_tensor_breaks_backward_as_torch(op, reduce):
    if op == "index_reduce" and reduce == "sum":
        reduce = "mean"

    def prog(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = T.tensor([4.0, 5.0], requires_grad=True)
        i = T.tensor([0, 0])
        a = x * 1
        y1 = getattr(a, op)(0, i, s, reduce)
        a.add_(1)  # self was saved (even for sum, as torch's node saves it)
        y2 = getattr(x, op)(0, i, s, reduce)
        y2.mul_(2)  # the result was saved
        b = s * 1
        y3 = getattr(x, op)(0, i, b, reduce)
        b.sub_(1)  # src was saved
        c = x * 1
        getattr(c, op + "_")(0, i, s, reduce)
        c.add_(1)  # the in-place result, at version 2 instead of 1
        return [attempt(lambda y=y: y.sum().backward()) for y in (y1, y2, y3, c)]

    compare_torch(prog)


# ---- errors ---------------------------------------------------------------------------------

SCATTER_ERRORS = {
    "bad_reduce": lambda T, x, i, s: x.scatter_reduce(0, i, s, "MAX"),
    "bad_reduce_before_bounds": lambda T, x, i, s: x.scatter_reduce(0, i + 9, s, "add"),
    "index_dtype_first": lambda T, x, i, s: x.scatter_reduce(0, i.float(), s.double(), "bad"),
    "src_dtype": lambda T, x, i, s: x.scatter_reduce_(0, i, s.double(), "bad"),
    "index_dims": lambda T, x, i, s: x.scatter_reduce(0, i.reshape(1, 2), s, "bad"),
    "src_dims": lambda T, x, i, s: x.scatter_reduce(0, i, s.reshape(1, 2), "sum"),
    "index_too_big": lambda T, x, i, s: x.scatter_reduce(0, T.tensor([0, 1, 2]), s, "sum"),
    "bounds": lambda T, x, i, s: x.scatter_reduce(0, i + 3, s, "sum"),
    "negative": lambda T, x, i, s: x.scatter_reduce(0, i - 2, s, "sum"),
    "dim": lambda T, x, i, s: x.scatter_reduce(3, i, s, "bad"),
    "number_src": lambda T, x, i, s: x.scatter_reduce(0, i, 3.0, "sum"),
    "number_src_inplace": lambda T, x, i, s: x.scatter_reduce_(0, i, 3, "sum"),
    "missing_reduce": lambda T, x, i, s: x.scatter_reduce(0, i, s),
    "bool_mean": lambda T, x, i, s: x.bool().scatter_reduce(0, i + 9, s.bool(), "mean"),
    "complex_amax": lambda T, x, i, s: x.to(T.complex64).scatter_reduce(0, i, s.to(T.complex64),
                                                                        "amax"),
    "complex_amin": lambda T, x, i, s: x.to(T.complex128).scatter_reduce(0, i, s.to(T.complex128),
                                                                         "amin"),
    "partial_overlap": lambda T, x, i, s: x[1:].scatter_reduce_(0, i, x[:2], "sum"),
    "full_overlap": lambda T, x, i, s: x.scatter_reduce_(0, T.tensor([0, 1, 2]), x, "sum"),
    "expanded": lambda T, x, i, s: T.zeros(3).expand(2, 3).scatter_reduce_(
        1, T.tensor([[0]]), T.ones(1, 1), "sum"),
}
INDEX_ERRORS = {
    "bad_reduce": lambda T, x, i, s: x.index_reduce(0, i, s, "sum"),
    "bad_reduce_first": lambda T, x, i, s: x.index_reduce_(0, i.float(), s.double(), "add"),
    "dim_before_reduce": lambda T, x, i, s: x.index_reduce(3, i, s, "bad"),
    "vector": lambda T, x, i, s: x.index_reduce(0, i.reshape(2, 1), s, "prod"),
    "index_dtype": lambda T, x, i, s: x.index_reduce(0, i.float(), s, "prod"),
    "source_dtype": lambda T, x, i, s: x.index_reduce(0, i, s.double(), "prod"),
    "count": lambda T, x, i, s: x.index_reduce(0, i[:1], s, "prod"),
    "source_dim": lambda T, x, i, s: T.zeros(2, 3).index_reduce(1, i, T.ones(2), "prod"),
    "slices": lambda T, x, i, s: T.zeros(2, 3).index_reduce(0, i, T.ones(2, 2), "prod"),
    "zero_dim_self": lambda T, x, i, s: T.tensor(5.0).index_reduce(0, i, s, "prod"),
    "bounds": lambda T, x, i, s: x.index_reduce(0, i + 3, s, "prod"),
    "negative": lambda T, x, i, s: x.index_reduce(0, i - 3, s, "prod"),
    "bool_before_bounds": lambda T, x, i, s: x.bool().index_reduce(0, i + 9, s.bool(), "mean"),
    "complex": lambda T, x, i, s: x.to(T.complex64).index_reduce(0, i, s.to(T.complex64), "prod"),
    "number_source": lambda T, x, i, s: x.index_reduce_(0, i, 2.0, "prod"),
    "missing_reduce": lambda T, x, i, s: x.index_reduce(0, i, s),
    "overlap": lambda T, x, i, s: x.index_reduce_(0, T.tensor([0, 1, 2]), x, "prod"),
}


@pytest.mark.parametrize("name", sorted(SCATTER_ERRORS))
def test_scatter_reduce_errors_match_torch(name):
    compare_torch(lambda T: _refused(T, SCATTER_ERRORS[name]))


@pytest.mark.parametrize("name", sorted(INDEX_ERRORS))
def test_index_reduce_errors_match_torch(name):
    compare_torch(lambda T: _refused(T, INDEX_ERRORS[name]))


def _refused(T, fn):
    """The error, and a target left exactly as it was (data and version)."""
    x = T.tensor([1.0, 2.0, 3.0])
    res = attempt(lambda: fn(T, x, T.tensor([0, 1]), T.tensor([4.0, 5.0])))
    assert res != "ok"
    return {"error": res, "x": x, "v": x._version}


# ---- scatter(..., reduce=) ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_with_reduce_values_match_torch(reduce, dtype):
    def prog(T):
        x, s = _t(T, SELF, dtype), _t(T, SRC, dtype)
        i = T.tensor(SCATTER_INDEX)
        value = True if dtype == "bool" else 2
        y = x.clone()
        y.scatter_(1, i, s, reduce=reduce)
        return [x.scatter(0, i, s, reduce=reduce), x.scatter(1, i, value, reduce=reduce), y,
                y._version, T.scatter(x, 0, i, s, reduce=reduce)]

    compare_torch(prog)


def test_scatter_with_reduce_has_a_not_implemented_node():
    def prog(T):
        x = T.arange(6.0).reshape(2, 3).requires_grad_()
        s = (T.arange(6.0).reshape(2, 3) + 10).requires_grad_()
        i = T.tensor([[0, 1, 0], [1, 0, 1]])
        y = x.scatter(0, i, s, reduce="add")
        z = x * 1
        z.scatter_(0, i, 3.0, reduce="multiply")
        v = x * 1
        v[0].scatter_(0, T.tensor([0, 0]), 5.0, reduce="add")
        edges = [len(t.scatter(0, i, u, reduce="add").grad_fn.next_functions)
                 for t, u in ((x, s), (x.detach(), s), (x, s.detach()), (x, 2.0))]
        return {"fn": y.grad_fn, "zfn": z.grad_fn, "vfn": v.grad_fn, "edges": edges, "y": y,
                "z": z, "zv": z._version, "repr": repr(y).split("grad_fn=")[1],
                "bw": attempt(lambda: y.sum().backward()),
                "bw_": attempt(lambda: z.sum().backward()),
                "bw_view": attempt(lambda: v.sum().backward())}

    compare_torch(prog)


SCATTER_OLD_ERRORS = {
    "bad_reduce": lambda T, x, i: x.scatter(0, i, T.ones(2), reduce="max"),
    "bad_reduce_value": lambda T, x, i: x.scatter_(0, i, 1.0, reduce="sum"),
    "index_dtype_first": lambda T, x, i: x.scatter(0, i.float(), 1j, reduce="bad"),
    "src_dtype_before_dims": lambda T, x, i: x.scatter(0, i.reshape(1, 2), T.ones(2).double()),
    "in_place_is_worded_scatter": lambda T, x, i: x.scatter_(0, i.float(), T.ones(2)),
    "bounds_before_value": lambda T, x, i: x.scatter(0, i + 7, 1j, reduce="add"),
    "complex_value": lambda T, x, i: x.scatter(0, i, 1j, reduce="add"),
    "too_big_value": lambda T, x, i: x.scatter(0, i, 1e300, reduce="multiply"),
    "long_value": lambda T, x, i: x.long().scatter(0, i, 1j),
    "uint8_overflow": lambda T, x, i: x.to(T.uint8).scatter(0, i, 300, reduce="add"),
    "uint8_negative_float": lambda T, x, i: x.to(T.uint8).scatter(0, i, -1.5),
    "int32_overflow": lambda T, x, i: x.int().scatter(0, i, 2 ** 40, reduce="add"),
    "half_overflow": lambda T, x, i: x.half().scatter(0, i, 70000.0),
    "int_too_big": lambda T, x, i: x.scatter(0, i, 2 ** 64),
}


@pytest.mark.parametrize("name", sorted(SCATTER_OLD_ERRORS))
def test_scatter_with_reduce_errors_match_torch(name):
    compare_torch(lambda T: _refused(T, lambda T, x, i, s: SCATTER_OLD_ERRORS[name](T, x, i)))


def test_values_that_fit_are_converted_as_torch():
    def prog(T):
        i = T.tensor([0, 0])
        return [T.tensor([1, 2], dtype=T.uint8).scatter(0, i, -1, reduce="add"),
                T.tensor([1, 2]).scatter(0, i, -2.7, reduce="add"),
                T.tensor([True, False]).scatter(0, T.tensor([1]), 3, reduce="add"),
                T.zeros(2).scatter(0, i, 2 + 0j),
                T.zeros(2, dtype=T.float16).scatter(0, i, float("inf"), reduce="add")]

    compare_torch(prog)


def test_warnings_fire_once_per_process_like_torch_warn_once():
    gather_scatter._WARNED.clear()
    x, i, s = il.zeros(3), il.tensor([0, 0]), il.ones(2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        x.scatter(0, i, s, reduce="add")
        x.scatter(0, i, s, reduce="multiply")
        x.scatter(0, i, 2.0, reduce="add")  # a number src is not deprecated
        x.index_reduce(0, i, s, "prod")
        x.index_reduce(0, i, s, "amax")
    assert [str(w.message) for w in seen] == [
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
        "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
        "index_reduce() is in beta and the API may change at any time."]
    assert all(w.category is UserWarning for w in seen)


# ---- Paddle ---------------------------------------------------------------------------------


def test_table_flags_follow_paddle():
    paddle = pytest.importorskip("paddle")
    from inplace_lab.ops.table import OPS

    for name in ("scatter_reduce", "index_reduce"):
        assert not hasattr(paddle.Tensor, name + "_") and not OPS[name].paddle_inplace
        assert OPS[name].inplace and OPS[name].torch_inplace
    assert hasattr(paddle, "scatter_reduce") and not hasattr(paddle, "index_reduce")


def test_paddle_scatter_reduce_values_match_the_same_kernel():
    paddle = pytest.importorskip("paddle")
    x, i, s = np.array(SELF[0]), np.array([0, 0, 1, 3]), np.array([1, 2, -4, 6])
    for reduce in REDUCES:
        for inc in (True, False):
            ref = paddle.scatter_reduce(paddle.to_tensor(x), 0, paddle.to_tensor(i),
                                        paddle.to_tensor(s), reduce, include_self=inc)
            got = il.tensor(x).scatter_reduce(0, il.tensor(i), il.tensor(s), reduce,
                                              include_self=inc)
            assert got.tolist() == ref.tolist(), (reduce, inc)
