"""torch-level functions notebooks call (``torch.reshape(x, s)``, ``torch.flatten(x, 1)``,
``torch.allclose`` ...): each program runs on PyTorch 2.13 and on ``inplace_lab.torch`` and
the two must agree on values, dtype, shape, strides, view-ness and storage sharing, grad_fn
names, gradients, versions and errors. Gradients are also checked numerically (gradcheck).
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab.torch as iltorch
from inplace_lab.autograd import gradcheck
from tests.differential.harness import assert_same, run

torch = pytest.importorskip("torch")

A = [[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]
NAN = [[1.0, float("nan"), 3.0], [float("nan"), 5.0, -6.0]]


def same(prog, *, prefix=None):
    """Run ``prog(T)`` on torch and on inplace_lab.torch; assert they agree; return torch's."""
    ref = run(prog, torch)
    assert_same(ref, run(prog, iltorch), prefix=prefix)
    return ref


def look(T, out, *inputs):
    """What a result is: value, strides, view-ness, which inputs' storage it shares, grad_fn."""
    def one(t):
        if not hasattr(t, "stride"):
            return t
        shares = [t.untyped_storage().data_ptr() == i.untyped_storage().data_ptr()
                  for i in inputs]
        return {"t": t, "stride": list(t.stride()), "view": t._is_view(), "shares": shares,
                "fn": t.grad_fn, "rg": t.requires_grad, "version": t._version,
                "is_input": [t is i for i in inputs]}
    if isinstance(out, (tuple, list)):
        return {"type": type(out).__name__, "items": [one(t) for t in out]}
    return one(out)


def grads(T, out, *inputs):
    """Backward of a weighted sum of every float output; the inputs' gradients."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = 0
    for k, o in enumerate(outs):
        w = T.arange(o.numel(), dtype=o.dtype).reshape(o.shape) + k + 1
        total = total + (o * w).sum()
    total.backward()
    return [i.grad for i in inputs]


def leaf(T, data, dtype=None):
    return T.tensor(data, dtype=dtype or T.float64, requires_grad=True)


# ---- cases: (name, fn(T, *inputs), input data) ----------------------------------------------------

B3 = np.arange(24.0).reshape(2, 3, 4).tolist()
DIFFERENTIABLE = [
    ("reshape_view", lambda T, x: T.reshape(x, (3, 2)), [A]),
    ("reshape_copy", lambda T, x: T.reshape(x.t(), (-1,)), [A]),
    ("reshape_kw", lambda T, x: T.reshape(input=x, shape=[6]), [A]),
    ("flatten", lambda T, x: T.flatten(x), [B3]),
    ("flatten_1", lambda T, x: T.flatten(x, 1), [B3]),
    ("flatten_copy", lambda T, x: T.flatten(x.transpose(0, 2), 0, 1), [B3]),
    ("flatten_same", lambda T, x: T.flatten(x, 1, 1), [B3]),
    ("flatten_0d", lambda T, x: T.flatten(x.sum()), [A]),
    ("ravel", lambda T, x: T.ravel(x), [A]),
    ("ravel_copy", lambda T, x: T.ravel(x.t()), [A]),
    ("broadcast_to", lambda T, x: T.broadcast_to(x[0], (4, 3)), [A]),
    ("broadcast_to_same", lambda T, x: T.broadcast_to(x, (2, 3)), [A]),
    ("broadcast_to_minus1", lambda T, x: T.broadcast_to(x, (2, -1, 3)), [A]),
    ("broadcast_tensors", lambda T, x, y: T.broadcast_tensors(x, y[0], y[:, :1]), [A, A]),
    ("broadcast_tensors_one", lambda T, x: T.broadcast_tensors(x), [A]),
    ("meshgrid_ij", lambda T, x: T.meshgrid(x[0], x[1, :2], indexing="ij"), [A]),
    ("meshgrid_xy", lambda T, x: T.meshgrid(x[0], x[1, :2], indexing="xy"), [A]),
    ("meshgrid_xy3", lambda T, x: T.meshgrid([x[0], x[1, :2], x[0, :1]], indexing="xy"), [A]),
    ("meshgrid_0d", lambda T, x: T.meshgrid(x[0, 0], x[1], indexing="ij"), [A]),
    ("dstack", lambda T, x, y: T.dstack([x, y]), [A, A]),
    ("dstack_1d_0d", lambda T, x: T.dstack((x[0, 0], x[1, 1])), [A]),
    ("dstack_1d", lambda T, x: T.dstack([x[0], x[1]]), [A]),
    ("rot90", lambda T, x: T.rot90(x), [A]),
    ("rot90_k2", lambda T, x: T.rot90(x, 2), [A]),
    ("rot90_k3", lambda T, x: T.rot90(x, 3, [1, 0]), [A]),
    ("rot90_k0_t", lambda T, x: T.rot90(x.t(), 0), [A]),
    ("rot90_neg", lambda T, x: T.rot90(x, -5, (0, 2)), [B3]),
    ("rot90_method", lambda T, x: x.rot90(1, [-1, 0]), [B3]),
    ("fliplr", lambda T, x: T.fliplr(x), [A]),
    ("flipud", lambda T, x: T.flipud(x), [A]),
    ("flipud_method", lambda T, x: x.flipud(), [B3]),
    ("ri_int", lambda T, x: T.repeat_interleave(x, 2), [A]),
    ("ri_int_dim", lambda T, x: T.repeat_interleave(x.t(), 2, dim=1), [A]),
    ("ri_int_neg_dim", lambda T, x: x.repeat_interleave(3, -1, output_size=9), [A]),
    ("ri_int_1d", lambda T, x: T.repeat_interleave(x[0], 2), [A]),
    ("ri_tensor", lambda T, x: T.repeat_interleave(x, T.tensor([1, 2]), dim=0), [A]),
    ("ri_tensor_flat", lambda T, x: T.repeat_interleave(x, T.tensor([1, 0, 2, 1, 1, 3])), [A]),
    ("ri_tensor_one", lambda T, x: T.repeat_interleave(x, T.tensor([2]), dim=1), [A]),
    ("ri_tensor_0d", lambda T, x: T.repeat_interleave(x, T.tensor(2)), [A]),
    ("ri_output_size", lambda T, x: T.repeat_interleave(x, T.tensor([1, 2]), 0, output_size=3),
     [A]),
    ("diag_1d", lambda T, x: T.diag(x[0]), [A]),
    ("diag_1d_off", lambda T, x: T.diag(x[1], -2), [A]),
    ("diag_2d", lambda T, x: T.diag(x), [A]),
    ("diag_2d_off", lambda T, x: x.diag(1), [A]),
    ("diag_2d_far", lambda T, x: T.diag(x, 5), [A]),
    ("diag_embed", lambda T, x: T.diag_embed(x), [A]),
    ("diag_embed_dims", lambda T, x: T.diag_embed(x, 1, 0, 2), [A]),
    ("diag_embed_neg", lambda T, x: x.diag_embed(-1, 2, 0), [B3]),
    ("diagflat", lambda T, x: T.diagflat(x), [A]),
    ("diagflat_t", lambda T, x: T.diagflat(x.t(), 1), [A]),
    ("diagflat_0d", lambda T, x: T.diagflat(x[0, 0], -1), [A]),
    ("diff", lambda T, x: T.diff(x), [A]),
    ("diff_n2_dim0", lambda T, x, y: T.diff(x, n=2, dim=0, prepend=y), [A, A]),
    ("diff_append", lambda T, x, y: x.diff(1, -1, y[:, :1], y[:, 1:]), [A, A]),
    ("diff_n0", lambda T, x: T.diff(x, n=0), [A]),
    ("diff_big_n", lambda T, x: T.diff(x, n=7), [A]),
    ("nansum", lambda T, x: T.nansum(x), [NAN]),
    ("nansum_dim", lambda T, x: T.nansum(x, 1, keepdim=True), [NAN]),
    ("nansum_dims", lambda T, x: x.nansum((0, 1)), [NAN]),
    ("nansum_dtype", lambda T, x: T.nansum(x.float(), 0, dtype=T.float64), [NAN]),
    ("nanmean", lambda T, x: T.nanmean(x), [NAN]),
    ("nanmean_dim", lambda T, x: x.nanmean(dim=0, keepdim=True), [NAN]),
    ("std_mean", lambda T, x: T.std_mean(x), [A]),
    ("std_mean_dim", lambda T, x: T.std_mean(x, 1), [A]),
    ("std_mean_unbiased", lambda T, x: T.std_mean(x, 1, False, True), [A]),
    ("std_mean_corr", lambda T, x: T.std_mean(x, dim=[0, 1], correction=0, keepdim=True), [A]),
    ("var_mean", lambda T, x: T.var_mean(x), [A]),
    ("var_mean_bool", lambda T, x: T.var_mean(x, False), [A]),
    ("var_mean_dim", lambda T, x: T.var_mean(x, 1, correction=2), [A]),
]


@pytest.mark.parametrize("name,fn,data", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_result_layout_graph_and_grads_match_torch(name, fn, data):
    def prog(T):
        xs = [leaf(T, d) for d in data]
        out = fn(T, *xs)
        return {"out": look(T, out, *xs), "grads": grads(T, out, *xs)}

    same(prog)


def _float64_leaves(data):
    return [iltorch.tensor(d, dtype=iltorch.float64, requires_grad=True) for d in data]


@pytest.mark.parametrize("name,fn,data", [c for c in DIFFERENTIABLE if "nan" not in c[0]
                                          and "dtype" not in c[0]],
                         ids=[c[0] for c in DIFFERENTIABLE if "nan" not in c[0]
                              and "dtype" not in c[0]])
def test_gradients_pass_gradcheck(name, fn, data):
    xs = _float64_leaves(data)
    assert gradcheck(lambda *a: fn(iltorch, *a), xs)


def test_nansum_and_nanmean_gradcheck_away_from_nan():
    x = iltorch.tensor(NAN, dtype=iltorch.float64, requires_grad=True)
    assert gradcheck(lambda a: iltorch.nansum(a * 1, 1), [x])
    assert gradcheck(lambda a: iltorch.nanmean(a, 0), [x])


# ---- non-differentiable results --------------------------------------------------------------------

INTS = [[3, 6], [0, 9]]
VALUES = [
    ("numel", lambda T: T.numel(T.ones(2, 3, 4))),
    ("isclose", lambda T: T.isclose(T.tensor([1.0, 2.0, float("nan"), float("inf")]),
                                    T.tensor([1.0 + 1e-6, 2.1, float("nan"), float("inf")]))),
    ("isclose_nan", lambda T: T.isclose(T.tensor([float("nan"), 1.0, float("-inf")]),
                                        T.tensor([float("nan"), 1.0, float("inf")]),
                                        equal_nan=True)),
    ("isclose_int", lambda T: T.isclose(T.tensor([1, 2, 5]), T.tensor([1, 3, 7]), rtol=0.4)),
    ("isclose_bcast", lambda T: T.tensor(A).isclose(T.tensor(A[0]), atol=0.5)),
    ("isclose_f32", lambda T: T.isclose(T.tensor([1e-3, 100.0]), T.tensor([1.00001e-3, 100.001]),
                                        rtol=1e-5, atol=0)),
    ("allclose", lambda T: [T.allclose(T.tensor(A), T.tensor(A) + 1e-9),
                            T.tensor(A).allclose(T.tensor(A) + 1e-3),
                            T.allclose(T.tensor([float("nan")]), T.tensor([float("nan")]),
                                       equal_nan=True)]),
    ("isin", lambda T: T.isin(T.tensor(INTS), T.tensor([9, 3]))),
    ("isin_invert", lambda T: T.isin(T.tensor(INTS), T.tensor([[9], [0]]), invert=True)),
    ("isin_scalar", lambda T: [T.isin(T.tensor(INTS), 6), T.isin(6, T.tensor(INTS))]),
    ("isin_float", lambda T: T.isin(T.tensor([1.0, float("nan"), 2.5]),
                                    T.tensor([float("nan"), 2.5]))),
    ("tril_indices", lambda T: [T.tril_indices(3, 3), T.tril_indices(3, 4, -1),
                                T.tril_indices(0, 3), T.tril_indices(3, 3, 10),
                                T.tril_indices(4, 2, dtype=T.int32)]),
    ("triu_indices", lambda T: [T.triu_indices(3, 3), T.triu_indices(3, 4, 1),
                                T.triu_indices(3, 3, -10), T.triu_indices(2, 5, 2)]),
    ("logspace", lambda T: [T.logspace(0, 2, 5), T.logspace(0, 1, 4, base=2.0),
                            T.logspace(-1, 1, 3, dtype=T.float64), T.logspace(0, 3, 4,
                                                                            dtype=T.int64),
                            T.logspace(0, 1, 1), T.logspace(0, 1, 0),
                            T.logspace(0, 2, 3, requires_grad=True).requires_grad]),
    ("unravel_index", lambda T: T.unravel_index(T.tensor([4, 5, 0]), (2, 3))),
    ("unravel_nd", lambda T: T.unravel_index(T.tensor([[1234], [5678]]), (10, 10, 10, 10))),
    ("unravel_int", lambda T: T.unravel_index(T.tensor(7, dtype=T.int32), 4)),
    ("unravel_wraps", lambda T: T.unravel_index(T.tensor([6, -1, -7]), (2, 3))),
    ("unravel_empty", lambda T: T.unravel_index(T.tensor(0), ())),
    ("unravel_views", lambda T: [t._is_view() for t in T.unravel_index(T.tensor([4]), (2, 3))]),
    ("searchsorted", lambda T: T.searchsorted(T.tensor([1, 3, 5, 7]), T.tensor(INTS))),
    ("searchsorted_right", lambda T: [
        T.searchsorted(T.tensor([1, 3, 5, 7]), T.tensor(INTS), right=True),
        T.searchsorted(T.tensor([1, 3, 5, 7]), T.tensor(INTS), side="right"),
        T.searchsorted(T.tensor([1, 3, 3, 7]), 3, side="left"),
        T.searchsorted(T.tensor([1, 3, 5, 7]), 3.5, out_int32=True)]),
    ("searchsorted_nd", lambda T: T.searchsorted(T.tensor([[1, 3, 5], [2, 4, 6]]),
                                                 T.tensor([[3, 6, 0], [3, 1, 7]]))),
    ("searchsorted_sorter", lambda T: T.searchsorted(T.tensor([5.0, 1.0, 3.0]),
                                                     T.tensor([2.0, 4.0, 9.0]),
                                                     sorter=T.tensor([1, 2, 0]))),
    ("searchsorted_mixed", lambda T: T.searchsorted(T.tensor([1.0, 2.5, 4.0]), T.tensor([2, 3]))),
    ("searchsorted_nan", lambda T: [T.searchsorted(T.tensor([1.0, 2.0]), T.tensor([float("nan")])),
                                    T.bucketize(T.tensor([1.0, float("nan")]),
                                                T.tensor([0.0, 2.0, float("nan")]))]),
    ("searchsorted_kw", lambda T: T.searchsorted(sorted_sequence=T.tensor([1, 3]),
                                                 input=T.tensor([2]))),
    ("bucketize", lambda T: [T.bucketize(T.tensor(INTS), T.tensor([1, 3, 5, 7])),
                             T.bucketize(T.tensor(INTS), T.tensor([1, 3, 5, 7]), right=True),
                             T.bucketize(3, T.tensor([1, 3, 5]), right=True),
                             T.bucketize(T.tensor([1.5]), T.tensor([1, 2]), out_int32=True)]),
    ("histc", lambda T: [T.histc(T.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3),
                         T.histc(T.tensor([0.0, 1, 2, 3]), 3, 1, 2),
                         T.histc(T.tensor([1.0, 1.0]), 4),
                         T.histc(T.tensor([], dtype=T.float64), 2),
                         T.tensor([0.1, 0.2, 0.3, 0.7, 0.9, 1.0]).histc(5)]),
    ("histc_no_grad", lambda T: T.histc(T.ones(3, requires_grad=True), 2).requires_grad),
    ("ri_index", lambda T: [T.repeat_interleave(T.tensor([2, 1, 3])),
                            T.repeat_interleave(T.tensor([1, 2], dtype=T.int32), output_size=3)]),
    ("diff_bool_int", lambda T: [T.diff(T.tensor([True, False, False])),
                                 T.diff(T.tensor([1, 4, 9])),
                                 T.diff(T.tensor([1, 2]), prepend=T.tensor([0.5]))]),
    ("diag_int", lambda T: [T.diag(T.tensor([1, 2])), T.diag(T.tensor([[1, 2], [3, 4]]), -1)]),
    ("nansum_int", lambda T: [T.nansum(T.tensor([1, 2])), T.nansum(T.tensor([True, True]))]),
    ("nanmean_all_nan", lambda T: T.nanmean(T.tensor([float("nan")]))),
    ("isin_no_grad", lambda T: T.isin(T.ones(2, requires_grad=True), T.ones(1)).requires_grad),
]


@pytest.mark.parametrize("name,fn", VALUES, ids=[c[0] for c in VALUES])
def test_values_match_torch(name, fn):
    same(lambda T: {"r": fn(T)})


# ---- errors ----------------------------------------------------------------------------------------

X = A
ERRORS = [
    ("reshape_3_args", lambda T: T.reshape(T.tensor(X), 3, 2)),
    ("reshape_bad_size", lambda T: T.reshape(T.tensor(X), (4, 2))),
    ("reshape_two_minus1", lambda T: T.reshape(T.tensor(X), (-1, -1))),
    ("flatten_order", lambda T: T.flatten(T.tensor(X), 1, 0)),
    ("numel_list", lambda T: T.numel([1, 2])),
    ("broadcast_to_size", lambda T: T.broadcast_to(T.tensor(X), (3, 3))),
    ("broadcast_to_fewer", lambda T: T.broadcast_to(T.tensor(X), (3,))),
    ("broadcast_tensors", lambda T: T.broadcast_tensors(T.tensor(X), T.ones(4))),
    ("broadcast_tensors_list", lambda T: T.broadcast_tensors([T.tensor(X)])),
    ("meshgrid_indexing", lambda T: T.meshgrid(T.ones(2), indexing="ab")),
    ("meshgrid_2d", lambda T: T.meshgrid(T.ones(2, 2), indexing="ij")),
    ("meshgrid_empty", lambda T: T.meshgrid(indexing="ij")),
    ("meshgrid_dtypes", lambda T: T.meshgrid(T.ones(2), T.ones(2, dtype=T.int64), indexing="ij")),
    ("dstack_empty", lambda T: T.dstack([])),
    ("dstack_tensor", lambda T: T.dstack(T.tensor(X))),
    ("dstack_sizes", lambda T: T.dstack([T.tensor(X), T.tensor(X)[0]])),
    ("rot90_one_dim", lambda T: T.rot90(T.tensor(X), 1, [0])),
    ("rot90_1d", lambda T: T.rot90(T.ones(3))),
    ("rot90_same", lambda T: T.rot90(T.tensor(X), 1, [0, 0])),
    ("rot90_same_wrapped", lambda T: T.rot90(T.tensor(X), 1, [-1, 1])),
    ("rot90_range", lambda T: T.rot90(T.tensor(X), 1, [0, 2])),
    ("fliplr_1d", lambda T: T.fliplr(T.ones(3))),
    ("flipud_0d", lambda T: T.flipud(T.tensor(1.0))),
    ("ri_negative", lambda T: T.repeat_interleave(T.tensor(X), -1)),
    ("ri_negative_tensor", lambda T: T.repeat_interleave(T.tensor(X), T.tensor([-1, 1]), dim=0)),
    ("ri_size", lambda T: T.repeat_interleave(T.tensor(X), T.tensor([1, 2, 3]), dim=0)),
    ("ri_2d", lambda T: T.repeat_interleave(T.tensor(X), T.tensor([[1, 2]]), dim=0)),
    ("ri_float", lambda T: T.repeat_interleave(T.tensor(X), T.tensor([1.0, 2.0]), dim=0)),
    ("ri_output_size", lambda T: T.repeat_interleave(T.tensor(X), 2, dim=0, output_size=5)),
    ("ri_output_size_t", lambda T: T.repeat_interleave(T.tensor(X), T.tensor([1, 2]), dim=0,
                                                       output_size=2)),
    ("ri_index_2d", lambda T: T.repeat_interleave(T.tensor([[1, 2]]))),
    ("ri_0d_dim", lambda T: T.repeat_interleave(T.tensor(3.0), 2, dim=0)),
    ("diag_3d", lambda T: T.diag(T.ones(2, 2, 2))),
    ("diag_0d", lambda T: T.diag(T.tensor(1.0))),
    ("diag_embed_same", lambda T: T.diag_embed(T.tensor(X), 0, 0, 0)),
    ("diag_embed_range", lambda T: T.diag_embed(T.tensor(X), 0, 0, 3)),
    ("diff_0d", lambda T: T.diff(T.tensor(1.0))),
    ("diff_negative_n", lambda T: T.diff(T.tensor(X), n=-1)),
    ("diff_prepend_dims", lambda T: T.diff(T.tensor(X), prepend=T.ones(3))),
    ("diff_prepend_shape", lambda T: T.diff(T.tensor(X), dim=0, prepend=T.ones(1, 2))),
    ("diff_prepend_float", lambda T: T.diff(T.tensor(X), prepend=1.0)),
    ("nansum_complex", lambda T: T.nansum(T.tensor([1j]))),
    ("nanmean_int", lambda T: T.nanmean(T.tensor([1, 2]))),
    ("std_mean_int", lambda T: T.std_mean(T.tensor([1, 2]))),
    ("var_mean_int", lambda T: T.var_mean(T.tensor([1, 2]))),
    ("isclose_dtypes", lambda T: T.isclose(T.tensor(X), T.tensor(X, dtype=T.float64))),
    ("isclose_number", lambda T: T.isclose(T.tensor(X), 1.0)),
    ("isclose_rtol", lambda T: T.isclose(T.tensor(X), T.tensor(X), rtol=-1)),
    ("isclose_atol", lambda T: T.isclose(T.tensor(X), T.tensor(X), atol=-0.5)),
    ("allclose_shapes", lambda T: T.allclose(T.tensor(X), T.ones(4))),
    ("allclose_dtypes", lambda T: T.allclose(T.tensor(X), T.tensor(X).double())),
    ("isin_numbers", lambda T: T.isin(1, 2)),
    ("unravel_float", lambda T: T.unravel_index(T.tensor([1.0]), (2, 3))),
    ("unravel_negative", lambda T: T.unravel_index(T.tensor([1]), (2, -3))),
    ("searchsorted_side", lambda T: T.searchsorted(T.tensor([1, 3]), T.tensor([2]), side="mid")),
    ("searchsorted_opposite", lambda T: T.searchsorted(T.tensor([1, 3]), T.tensor([2]),
                                                       right=True, side="left")),
    ("searchsorted_dims", lambda T: T.searchsorted(T.ones(2, 3), T.ones(2))),
    ("searchsorted_scalar_nd", lambda T: T.searchsorted(T.ones(2, 3), 3)),
    ("searchsorted_0d", lambda T: T.searchsorted(T.tensor(1), T.tensor([2]))),
    ("searchsorted_sorter_size", lambda T: T.searchsorted(T.tensor([5, 1, 3]), T.tensor([2]),
                                                          sorter=T.tensor([1, 2]))),
    ("searchsorted_sorter_dtype", lambda T: T.searchsorted(T.tensor([5, 1, 3]), T.tensor([2]),
                                                           sorter=T.tensor([1.0, 2, 0]))),
    ("searchsorted_sorter_range", lambda T: T.searchsorted(T.tensor([5, 1, 3]), T.tensor([2]),
                                                           sorter=T.tensor([1, 2, 5]))),
    ("searchsorted_bool", lambda T: T.searchsorted(T.tensor([True]), T.tensor([True]))),
    ("bucketize_2d", lambda T: T.bucketize(T.tensor([1]), T.ones(2, 2))),
    ("histc_int", lambda T: T.histc(T.tensor([1, 2]), 3)),
    ("histc_bins", lambda T: T.histc(T.ones(3), -1)),
    ("histc_bins_float", lambda T: T.histc(T.ones(3), bins=2.5)),
    ("histc_min_max", lambda T: T.histc(T.ones(3), 3, 2, 1)),
    ("histc_inf", lambda T: T.histc(T.tensor([1.0, float("inf")]), 3)),
    ("tril_indices_col", lambda T: T.tril_indices(3, -1)),
    ("triu_indices_row", lambda T: T.triu_indices(-2, 3)),
    ("tril_indices_float", lambda T: T.tril_indices(3, 3, dtype=T.float32)),
    ("logspace_steps", lambda T: T.logspace(0, 1, -1)),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_match_torch(name, fn):
    same(lambda T: {"r": fn(T)}, prefix=60)


def test_meshgrid_without_indexing_warns_as_torch():
    import warnings

    for T in (torch, iltorch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            g = T.meshgrid(T.ones(2), T.ones(3))
        assert [t.shape for t in g] == [(2, 3), (2, 3)]
        assert [x.category for x in w] == [UserWarning]
        assert str(w[0].message).startswith(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing")


# ---- aliasing and versions ----------------------------------------------------------------------

def test_views_share_storage_and_version_with_their_base():
    def prog(T):
        x = T.zeros(2, 3)
        r, f, b = T.reshape(x, (6,)), T.flatten(x), T.broadcast_to(x[0], (4, 3))
        g0, g1 = T.meshgrid(x[0], x[1, :2], indexing="xy")
        r.add_(1)
        return {"x": x, "versions": [t._version for t in (x, r, f, b, g0, g1)],
                "base": [t._base is x for t in (r, f, b, g0, g1)], "f": f, "b": b, "g0": g0}

    same(prog)


def test_copies_have_their_own_storage_and_counter():
    def prog(T):
        x = T.zeros(2, 3)
        outs = [T.reshape(x.t(), (6,)), T.rot90(x), T.diag(x), T.diff(x), T.fliplr(x),
                T.repeat_interleave(x, 2), T.dstack([x, x]), T.diagflat(x), T.diff(x, n=0)]
        x.add_(1)
        return {"versions": [t._version for t in outs], "base": [t._base is None for t in outs],
                "vals": outs}

    same(prog)


def test_in_place_on_a_broadcast_to_view_is_refused_and_changes_nothing():
    def prog(T):
        x = T.ones(3)
        b = T.broadcast_to(x, (2, 3))
        err = None
        try:
            b.add_(1)
        except RuntimeError as e:
            err = str(e)
        return {"err": err, "x": x, "version": x._version}

    same(prog)


def test_saved_input_of_nansum_is_version_checked():
    def prog(T):
        x = T.tensor(NAN, requires_grad=True)
        y = x * 1
        s = T.nansum(y)
        y.add_(1)
        try:
            s.backward()
        except RuntimeError as e:
            return {"err": str(e)[:150]}
        return {"err": None}

    same(prog)


def test_std_mean_outputs_share_one_node():
    def prog(T):
        x = T.tensor(A, requires_grad=True)
        s, m = T.std_mean(x, 0)
        m.sum().backward()
        return {"same": s.grad_fn is m.grad_fn, "nr": [s.output_nr, m.output_nr], "g": x.grad}

    same(prog)


def test_torch_facade_results_carry_the_torch_policy():
    x = iltorch.tensor(A)
    for r in (iltorch.reshape(x, (6,)), iltorch.rot90(x), iltorch.diag(x), iltorch.nansum(x),
              iltorch.isclose(x, x), iltorch.searchsorted(iltorch.tensor([1.0]), x),
              iltorch.logspace(0, 1, 2), iltorch.tril_indices(2, 2), iltorch.diff(x, n=0),
              *iltorch.std_mean(x), *iltorch.unravel_index(iltorch.tensor([1]), (2, 2))):
        assert r._policy == "pytorch"


# ---- property tests: searches and histograms on random data ---------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_small = st.lists(st.integers(-5, 5), min_size=0, max_size=8)


@settings(max_examples=50, deadline=None)
@given(bnd=_small, vals=_small, right=st.booleans())
def test_searchsorted_and_bucketize_match_torch_on_random_data(bnd, vals, right):
    bnd = sorted(bnd)
    same(lambda T: {"s": T.searchsorted(T.tensor(bnd, dtype=T.int64), T.tensor(vals, dtype=T.int64),
                                        right=right),
                    "b": T.bucketize(T.tensor(vals, dtype=T.float32),
                                     T.tensor(bnd, dtype=T.float32), right=right)})


@settings(max_examples=50, deadline=None)
@given(vals=st.lists(st.floats(-10, 10, width=32), min_size=0, max_size=12),
       bins=st.integers(1, 7), lo=st.integers(-4, 0), width=st.integers(0, 6))
def test_histc_matches_torch_on_random_data(vals, bins, lo, width):
    same(lambda T: {"h": T.histc(T.tensor(vals, dtype=T.float32), bins, lo, lo + width)})


@settings(max_examples=50, deadline=None)
@given(k=st.integers(-6, 6), dims=st.sampled_from([(0, 1), (1, 0), (0, 2), (2, -2), (-1, 0)]))
def test_rot90_layout_matches_torch_for_every_k_and_dims(k, dims):
    def prog(T):
        x = T.arange(24.0).reshape(2, 3, 4)
        r = T.rot90(x, k, dims)
        return {"r": r, "stride": list(r.stride())}

    same(prog)


# ---- whole graphs: the chain of nodes PyTorch's composites record ---------------------------------

def _chain(t):
    out = []

    def walk(f, depth):
        if f is not None:
            out.append("  " * depth + f.name())
            for g, _ in f.next_functions:
                walk(g, depth + 1)
    walk(t.grad_fn, 0)
    return out


CHAINS = [
    ("ri_int", lambda T, x: T.repeat_interleave(x, 2)),
    ("ri_tensor", lambda T, x: T.repeat_interleave(x, T.tensor([1, 2, 1, 1, 1, 1]))),
    ("ri_0d_tensor", lambda T, x: T.repeat_interleave(x, T.tensor(2), dim=1)),
    ("diff", lambda T, x: T.diff(x, n=2, dim=0, prepend=x)),
    ("diff_n0", lambda T, x: T.diff(x, n=0)),
    ("nanmean", lambda T, x: T.nanmean(x)),
    ("dstack", lambda T, x: T.dstack([x[0, 0], x[1, 1]])),
    ("diagflat", lambda T, x: T.diagflat(x.t())),
    ("diag_1d", lambda T, x: T.diag(x[0], -1)),
    ("meshgrid", lambda T, x: T.meshgrid(x[0], x[1], indexing="xy")[1]),
    ("broadcast_tensors", lambda T, x: T.broadcast_tensors(x, x[:1])[1]),
    ("flatten_copy", lambda T, x: T.flatten(x.t())),
    ("ravel_copy", lambda T, x: T.ravel(x.t())),
]


@pytest.mark.parametrize("name,fn", CHAINS, ids=[c[0] for c in CHAINS])
def test_whole_graph_matches_torch(name, fn):
    same(lambda T: {"chain": _chain(fn(T, leaf(T, A)))})


def test_out_arguments_write_and_bump_as_torch():
    def prog(T):
        x = T.tensor(A)
        outs = [T.empty(0), T.empty(0, dtype=T.int64), T.empty(0), T.empty(0), T.empty(0)]
        rs = [T.diag(x, out=outs[0]),
              T.searchsorted(T.tensor([1.0, 3.0]), T.tensor([2.0, 4.0]), out=outs[1]),
              T.histc(x, 3, out=outs[2]), T.nanmean(x, 1, out=outs[3]),
              T.dstack([x, x], out=outs[4])]
        return {"outs": outs, "same": [r is o for r, o in zip(rs, outs)],
                "versions": [o._version for o in outs]}

    same(prog)
