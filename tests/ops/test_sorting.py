"""Sorting and selection vs torch 2.13: values, indices (ties, NaN), dtypes, 0-dim and empty
inputs, grad_fn names, gradients and their ``_version``, what each backward saves, out=,
and errors in PyTorch's words."""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab.autograd import gradcheck
from inplace_lab.ops.selection import quickselect_index
from tests.differential.harness import attempt, compare_torch, probe

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
X35 = RNG.standard_normal((3, 5))
X234 = RNG.standard_normal((2, 3, 4))
NAN = float("nan")

# (expression on `x`, input): run with grad, weighted, backpropagated; values, indices,
# grad_fn, x.grad and x.grad._version compared
CASES = [
    ("x.sort()", X35), ("x.sort(0, True)", X234), ("x.sort(dim=1, descending=True)", X234),
    ("x.sort(stable=True)", X35), ("T.sort(x, stable=False, dim=0)", X35),
    ("T.sort(x, descending=True, stable=True)", X234), ("T.msort(x)", X234), ("x.msort()", X35),
    ("x.topk(2)", X35), ("T.topk(x, 1, dim=0, largest=False)", X234),
    ("x.topk(3, -2, True, True)", X234), ("x.topk(0)", X35),
    ("x.kthvalue(2)", X35), ("x.kthvalue(3, 0, True)", X35), ("T.kthvalue(x, 1, dim=1)", X234),
    ("x.median()", X35), ("x.median(0)", X35), ("x.median(dim=-1, keepdim=True)", X234),
    ("x.nanmedian()", X234), ("x.nanmedian(1)", X35), ("T.nanmedian(x, 0, True)", X234),
    ("x.mode()", X35), ("x.mode(0, True)", X234), ("x.cummax(1)", X35), ("T.cummin(x, 0)", X234),
    ("x.cummax(dim=-1)", X234),
    ("x.sort()", np.array(2.5)), ("x.topk(1)", np.array(2.5)), ("x.kthvalue(1, 0)", np.array(2.5)),
    ("x.median()", np.array(2.5)), ("x.median(0)", np.array(2.5)), ("x.nanmedian()", np.array(2.5)),
    ("x.mode()", np.array(2.5)), ("x.cummax(0)", np.array(2.5)), ("x.cummin(-1)", np.array(2.5)),
]


def _pick(r):
    return r[0] if isinstance(r, tuple) else r


@pytest.mark.parametrize("expr,data", CASES, ids=[f"{c[0]}-{np.ndim(c[1])}d" for c in CASES])
def test_values_indices_grads_and_grad_versions_match_torch(expr, data):
    def prog(T):
        x = T.tensor(data, requires_grad=True)
        r = eval(expr)
        y = _pick(r)
        w = T.tensor(np.arange(1, y.numel() + 1, dtype=np.float64).reshape(tuple(y.shape)))
        (y * w).sum().backward()
        return {"r": r, "fn": y.grad_fn, "g": x.grad, "gv": x.grad._version,
                "idx_rg": r[1].requires_grad if isinstance(r, tuple) else None}
    compare_torch(prog)


@pytest.mark.parametrize("expr", ["x.sort()", "x.topk(2)", "x.kthvalue(2)", "x.median()",
                                  "x.median(0)", "x.nanmedian(1)", "x.mode(1)", "x.cummax(0)",
                                  "x.cummin(1)", "x.msort()"])
def test_gradcheck_float64(expr):
    x = il.tensor(X35, requires_grad=True)
    assert gradcheck(lambda x: _pick(eval(expr)), (x,))


def test_grad_version_after_sort_matches_torch_and_leaf_grad_is_fresh():
    def prog(T):
        x = T.tensor([3.0, 1.0, 2.0], requires_grad=True)
        x.sort().values.mul(2).sum().backward()
        x.topk(2).values.sum().backward()  # accumulated: x.grad written in place
        return {"g": x.grad, "v": x.grad._version}
    compare_torch(prog)


def test_return_types_are_named_tuples_with_values_and_indices():
    r = il.tensor([2.0, 1.0]).sort()
    assert r._fields == ("values", "indices") and type(r).__name__ == "sort"
    assert r.values is r[0] and r.indices.dtype is il.int64
    assert type(il.tensor([2.0, 1.0]).sort(stable=True)).__name__ == "sort"
    assert type(il.tensor([[2.0, 1.0]]).median(0)).__name__ == "median"


# ---- tie-breaking and NaN ----------------------------------------------------------------------

def _tie_heavy(seed, shape, nan=False, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, shape).astype(dtype)
    if nan:
        a[rng.random(shape) < 0.3] = np.nan
    return a


@pytest.mark.parametrize("expr", [
    "x.sort(dim=d, stable=True)", "x.sort(dim=d, descending=True, stable=True)",
    "T.argsort(x, dim=d, stable=True)", "T.argsort(x, dim=d, descending=True, stable=True)",
    "x.kthvalue(1, d)", "x.kthvalue(max(1, x.shape[d] // 2), d)", "x.kthvalue(x.shape[d], d)",
    "x.median(d)", "x.median()", "x.nanmedian()", "x.cummax(d)", "x.cummin(d)",
    "T.unique(x, return_inverse=True, return_counts=True)",
])
@pytest.mark.parametrize("nan", [False, True], ids=["ties", "ties+nan"])
def test_ties_and_nan_pick_torchs_indices(expr, nan):
    for seed, shape in enumerate([(23,), (4, 9), (3, 2, 20), (40,), (5, 17)]):
        if "unique" in expr and nan:
            continue  # (PyTorch's NaN order in unique's inverse is its unstable sort's)
        data = _tie_heavy(seed, shape, nan)
        d = seed % len(shape) - len(shape) * (seed % 2)
        compare_torch(lambda T, data=data, d=d: {"r": eval(expr, {"T": T, "x": T.tensor(data),
                                                                  "d": d, "max": max})})


def test_nanmedian_and_sort_treat_nan_as_largest():
    data = np.array([[1.0, NAN, -1.0, np.inf, NAN, 0.0], [NAN, 2.0, 2.0, NAN, 2.0, 1.0]])
    distinct = np.array([[1.0, NAN, -1.0, np.inf, NAN, 0.0], [NAN, 2.0, 3.0, NAN, 4.0, 1.0]])
    compare_torch(lambda T: {
        "s": T.tensor(data).sort(), "sd": T.tensor(data).sort(descending=True),
        "k": T.tensor(distinct).topk(3), "ks": T.tensor(distinct).topk(3, largest=False),
        "nm": T.tensor(data).nanmedian(1), "m": T.tensor(data).median(1),
        "kth": T.tensor(data).kthvalue(5), "cm": T.tensor(data).cummax(1),
        "nmall": T.tensor([[NAN, NAN], [1.0, NAN]]).nanmedian(1)})


def test_mode_of_short_rows_matches_torch_with_ties_and_nan():
    for seed in range(8):
        data = _tie_heavy(seed, (6, 1 + seed * 2), nan=seed % 2 == 1)
        compare_torch(lambda T, data=data: {"m": T.tensor(data).mode(),
                                            "m0": T.tensor(data).mode(0)})


def test_topk_without_ties_and_sorted_false_selects_the_same_set():
    data = RNG.permutation(40).astype(np.float64).reshape(4, 10)
    compare_torch(lambda T: {"k": T.tensor(data).topk(4), "s": T.tensor(data).topk(4, 0, False)})
    ref = torch.tensor(data).topk(4, sorted=False)
    got = il.tensor(data).topk(4, sorted=False)
    assert np.array_equal(np.sort(ref.indices.numpy(), 1), np.sort(got.indices.numpy(), 1))


def test_quickselect_replay_is_pytorchs_on_tied_rows():
    rng = np.random.default_rng(5)
    for _ in range(60):
        row = rng.integers(0, 4, int(rng.integers(1, 30))).astype(np.float64)
        row[rng.random(row.size) < 0.2] = np.nan
        k = int(rng.integers(1, row.size + 1))
        assert quickselect_index(row.tolist(), k - 1) == torch.tensor(row).kthvalue(k).indices.item()


# ---- dtypes, empty inputs --------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "T.tensor([3, 1, 2, 1]).sort(descending=True)", "T.tensor([True, False, True]).sort()",
    "T.tensor([3, 1, 2], dtype=T.uint8).sort(descending=True)",
    "T.tensor([1.5, -2.0, 0.0], dtype=T.float16).sort()", "T.tensor([-0.0, 0.0, -0.0]).sort()",
    "T.tensor([3, 1, 2]).topk(2)", "T.tensor([3, 1, 2, 4]).kthvalue(2)",
    "T.tensor([1, 2, 3, 4]).median()", "T.tensor([1, 2, 3, 4]).median(0)",
    "T.tensor([True, False, True]).mode()", "T.tensor([True, False, True]).cummax(0)",
    "T.tensor([3, 1, 2]).cummin(0)", "T.tensor([3, 1, 2]).argsort()",
    "T.zeros(0).sort()", "T.zeros(2, 0).sort(0)", "T.zeros(2, 0).topk(0)", "T.zeros(0).topk(0)",
    "T.zeros(0).median()", "T.zeros(0).nanmedian()", "T.zeros(2, 0).median(0)",
    "T.zeros(0, 2).mode()", "T.zeros(0).cummax(0)", "T.zeros(0, 3).kthvalue(1, 1)",
    "T.tensor(5.).topk(0)", "T.tensor(5.).sort(-1)",
    "T.unique(T.tensor([3, 1, 2, 3, 1]))", "T.tensor([3, 1, 2, 3, 1]).unique(sorted=False)",
    "T.unique(T.tensor(3.), return_inverse=True, return_counts=True)",
    "T.unique(T.zeros(0), return_inverse=True, return_counts=True)",
    "T.unique(T.tensor([[2., 1.], [1., 0.]]), return_inverse=True)",
    "T.unique(T.tensor([True, False, True]), return_counts=True)",
    "T.tensor([0.0, -0.0, 1.0]).unique()",
])
def test_dtypes_and_empty_inputs_match_torch(expr):
    compare_torch(lambda T: {"r": eval(expr)})


# ---- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "T.zeros(2, 3).topk(4)", "T.zeros(2, 3).topk(-1)", "T.tensor(5.).topk(2)", "T.zeros(0).topk(1)",
    "T.zeros(2, 3).topk(2, 2)", "T.zeros(2, 3).topk(2.0)", "T.tensor([True]).topk(1)",
    "T.tensor([1 + 1j]).topk(1)",
    "T.zeros(2, 3).kthvalue(4)", "T.zeros(2, 3).kthvalue(0)", "T.tensor(5.).kthvalue(2)",
    "T.zeros(0).kthvalue(1)", "T.zeros(2, 3).kthvalue(True)", "T.tensor([True]).kthvalue(1)",
    "T.zeros(2, 3).sort(2)", "T.zeros(2, 3).sort(-3)", "T.tensor(5.).sort(1)",
    "T.tensor([1 + 1j]).sort()", "T.tensor([1 + 1j]).argsort()", "T.tensor([1 + 1j]).msort()",
    "T.zeros(2, 0).median(1)", "T.tensor([True]).median()", "T.tensor([1 + 1j]).median()",
    "T.zeros(2, 0).mode(1)", "T.tensor([1 + 1j]).mode()",
    "T.tensor(3.).cummax(1)", "T.zeros(2, 3).cummax(2)", "T.tensor([1 + 1j]).cummax(0)",
    "T.zeros(3).cummax()", "T.tensor([1 + 1j]).unique()",
    "T.argsort(T.zeros(3), 0, stable=True)", "T.argsort(T.zeros(3), stable=None)",
    "T.argsort(T.zeros(3), out=T.zeros(3, dtype=T.int64))",
])
def test_errors_match_torch(expr):
    compare_torch(lambda T: {"err": attempt(lambda: eval(expr))})


def test_unique_has_no_derivative_and_its_side_outputs_no_grad():
    def prog(T):
        x = T.tensor([2.0, 1.0, 2.0], requires_grad=True)
        u, inv, cnt = T.unique(x, return_inverse=True, return_counts=True)
        with T.no_grad():
            plain = T.unique(x)
        return {"fn": u.grad_fn, "inv": inv.requires_grad, "cnt": cnt.requires_grad,
                "plain": plain.requires_grad, "bw": attempt(lambda: u.sum().backward())}
    compare_torch(prog)


# ---- what the backwards save -------------------------------------------------------------------

@pytest.mark.parametrize("expr,write", [
    ("x.sort()", "y.mul_(2)"), ("x.sort()", "r[1].add_(0)"), ("x.topk(2)", "y.mul_(2)"),
    ("x.kthvalue(2)", "y.mul_(2)"), ("x.median()", "y.mul_(2)"), ("x.median(1)", "y.mul_(2)"),
    ("x.mode(1)", "r[1].add_(0)"), ("x.cummax(1)", "y.mul_(2)"), ("x.cummin(1)", "r[1].add_(0)"),
    ("x.nanmedian()", "y.mul_(2)"),
])
def test_inplace_writes_break_backward_exactly_where_torch_saves(expr, write):
    """sort & co save only their indices; median() saves input and result, cummax input and
    indices: a later in-place write breaks backward only where a saved tensor changed."""
    def prog(T):
        x0 = T.tensor(X35, requires_grad=True)
        x = x0 * 1
        y = x  # noqa: F841  (named in `write`)
        r = eval(expr)
        eval(write)
        return {"bw": attempt(lambda: _pick(r).sum().backward()), "g": x0.grad}
    compare_torch(prog)


# ---- out=(values, indices) ---------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    "T.sort(x, out=o)", "T.sort(x, 0, True, out=o)", "T.sort(x, stable=True, out=o)",
    "T.topk(x, 2, out=o)", "T.kthvalue(x, 2, 0, out=o)", "T.median(x, 1, out=o)",
    "T.nanmedian(x, 0, True, out=o)", "T.mode(x, out=o)", "T.cummax(x, 1, out=o)",
    "T.cummin(x, 0, out=o)",
])
def test_out_tuple_is_written_resized_and_versioned(call):
    def prog(T):
        x = T.tensor(X35)  # noqa: F841  (named in `call`)
        o = (T.empty(0, dtype=T.float64), T.empty(0, dtype=T.int64))
        r = eval(call)
        return {"r": r, "same": r[0] is o[0] and r[1] is o[1],
                "v": [o[0]._version, o[1]._version]}
    compare_torch(prog)


@pytest.mark.parametrize("call", ["T.sort(x, out=o)", "T.topk(x, 2, out=o)",
                                  "T.kthvalue(x, 2, out=o)", "T.median(x, 1, out=o)",
                                  "T.nanmedian(x, 0, out=o)", "T.mode(x, out=o)",
                                  "T.cummax(x, 1, out=o)", "T.cummin(x, 1, out=o)"])
@pytest.mark.parametrize("out", ["(T.empty(0), T.empty(0, dtype=T.int64))",
                                 "(T.empty(0, dtype=T.float64), T.empty(0, dtype=T.int32))",
                                 "(T.empty(0), T.empty(0, dtype=T.int32))", "T.empty(0)"])
def test_out_tuple_dtype_errors_match_torch(call, out):
    def prog(T):
        x = T.tensor(X35)  # noqa: F841  (named in `call`)
        o = eval(out)
        return {"err": attempt(lambda: eval(call)), "v": [t._version for t in
                                                          (o if isinstance(o, tuple) else (o,))]}
    compare_torch(prog, prefix=40 if out == "T.empty(0)" else None)


def test_argsort_stable_out_and_requires_grad_out_refused():
    def prog(T):
        x = T.tensor(X35)
        o = T.empty(0, dtype=T.int64)
        r = T.argsort(x, stable=True, dim=0, out=o)
        xr = T.tensor(X35, requires_grad=True)
        bad = probe(lambda: T.sort(xr, out=(T.empty(0), T.empty(0, dtype=T.int64))))
        return {"r": r, "same": r is o, "v": o._version, "bad": bad}
    compare_torch(prog, prefix=8)
