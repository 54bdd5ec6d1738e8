"""Paddle-named functions over torch-semantics core ops, run on paddle 3.3.1 and the facade.

Each case is one program ``f(lib, *inputs)`` run on real Paddle and on
``inplace_lab.paddle``: the result's structure (Tensor / tuple / list), dtypes,
shapes, values (NaN where NaN), ``stop_gradient``; then, where the first output is
differentiable, the gradients of ``sum(out * w)`` w.r.t. every float input.
Inputs are random without ties, so gradients do not depend on tie-breaking.
"""
import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
warnings.filterwarnings("ignore")

import inplace_lab.paddle as lab  # noqa: E402
import inplace_lab.paddle.nn.functional as labF  # noqa: E402

PF = paddle.nn.functional
rng = np.random.default_rng(7)


def r(*shape):
    return rng.permutation(np.arange(np.prod(shape)) * 0.37 - 3.0).reshape(shape).astype(
        np.float32) + rng.uniform(0, 0.01, shape).astype(np.float32)


A = r(3, 4)
B = r(3, 4)
A5 = r(5, 3)
ODD = r(3, 5)
NAN = A.copy()
NAN[0, 1] = NAN[2, 0] = NAN[2, 3] = np.nan
ALLNAN = A.copy()
ALLNAN[1] = np.nan
INT = np.array([[3, 1, 4, 1], [5, 9, 2, 6]], np.int64)
V3 = r(4, 3)
W3 = r(4, 3)
SQ = (r(3, 3) + 4 * np.eye(3)).astype(np.float32)
SORTED = np.sort(r(6))
PROB = np.abs(r(2, 4)) + 0.1
IMG = r(2, 3, 6, 6)
IMG_NHWC = r(2, 6, 6, 3)
P01 = 1 / (1 + np.exp(-r(3, 4)))
LBL = (r(3, 4) > 0).astype(np.float32)
LOGP = np.log(PROB / PROB.sum(-1, keepdims=True)).astype(np.float32)
TGT = (PROB / PROB.sum(-1, keepdims=True)).astype(np.float32)

CASES = {
    # sorting and selection
    "sort": (lambda L, x: L.sort(x), A),
    "sort_desc_axis0": (lambda L, x: L.sort(x, axis=0, descending=True), A),
    "argsort": (lambda L, x: L.argsort(x, axis=0, descending=True), A),
    "topk_default_axis": (lambda L, x: L.topk(x, 2), A),
    "topk_axis0_smallest": (lambda L, x: L.topk(x, 2, axis=0, largest=False), A),
    "median_all": (lambda L, x: L.median(x), A),
    "median_axis": (lambda L, x: L.median(x, axis=1), A),
    "median_axis_odd": (lambda L, x: L.median(x, axis=1), ODD),
    "median_axis0_keepdim": (lambda L, x: L.median(x, 0, True), A),
    "median_keepdim_none": (lambda L, x: L.median(x, keepdim=True), A),
    "median_min_axis": (lambda L, x: L.median(x, axis=1, mode="min"), A),
    "median_min_all": (lambda L, x: L.median(x, mode="min"), A),
    "median_int": (lambda L, x: L.median(x, axis=1), INT),
    "median_int_all": (lambda L, x: L.median(x), INT),
    "median_int_min": (lambda L, x: L.median(x, axis=1, mode="min"), INT),
    "median_nan": (lambda L, x: L.median(x, axis=1), NAN),
    "nanmedian_all": (lambda L, x: L.nanmedian(x), NAN),
    "nanmedian_axis": (lambda L, x: L.nanmedian(x, axis=1), NAN),
    "nanmedian_allnan_row": (lambda L, x: L.nanmedian(x, axis=1), ALLNAN),
    "nanmedian_min_axis": (lambda L, x: L.nanmedian(x, axis=1, mode="min"), NAN),
    "nanmedian_axes_list": (lambda L, x: L.nanmedian(x, axis=[0, 1], keepdim=True), NAN),
    "cummax_flat": (lambda L, x: L.cummax(x), A),
    "cummax_axis": (lambda L, x: L.cummax(x, axis=0), A),
    "cummin_int32": (lambda L, x: L.cummin(x, 1, dtype="int32"), A),
    "kthvalue_default": (lambda L, x: L.kthvalue(x, 2), A),
    "kthvalue_axis0_keepdim": (lambda L, x: L.kthvalue(x, 1, 0, True), A),
    "mode": (lambda L, x: L.mode(x, axis=1), INT),
    "mode_keepdim": (lambda L, x: L.mode(x, 0, True), INT),
    "unique": (lambda L, x: L.unique(x), INT),
    "unique_all": (lambda L, x: L.unique(x, True, True, True), INT),
    "unique_float_int32": (lambda L, x: L.unique(x, return_inverse=True, dtype="int32"), A),
    "max_axis": (lambda L, x: L.max(x, axis=1), A),
    "max_axes_keepdim": (lambda L, x: L.max(x, axis=[0, 1], keepdim=True), A),
    "min_axis0": (lambda L, x: L.min(x, 0), A),
    "amin_axis": (lambda L, x: L.amin(x, axis=1), A),
    "logsumexp_all": (lambda L, x: L.logsumexp(x), A),
    "cumsum_flat": (lambda L, x: L.cumsum(x), A),
    "cumsum_axis": (lambda L, x: L.cumsum(x, axis=1), A),
    "cumprod_flat": (lambda L, x: L.cumprod(x), A),
    # torch-level functions under Paddle's signatures
    "flatten": (lambda L, x: L.flatten(L.reshape(x, [2, 2, 3]), start_axis=1, stop_axis=2), A),
    "diag_vector_padding": (lambda L, x: L.diag(x[0], offset=1, padding_value=9.0), A),
    "diag_matrix": (lambda L, x: L.diag(x, offset=-1), A),
    "diff_axis0": (lambda L, x: L.diff(x, n=1, axis=0), A),
    "diff_prepend": (lambda L, x, y: L.diff(x, axis=-1, prepend=y), A, B),
    "meshgrid_list": (lambda L, x, y: L.meshgrid([x[0], y[1]]), A, B),
    "meshgrid_args": (lambda L, x, y: L.meshgrid(x[0], y[:, 1]), A, B),
    "repeat_interleave_flat": (lambda L, x: L.repeat_interleave(x, 2), A),
    "repeat_interleave_axis": (lambda L, x: L.repeat_interleave(x, 2, axis=1), A),
    "searchsorted_right": (lambda L, s, v: L.searchsorted(s, v, right=True), SORTED, A),
    "searchsorted_int32": (lambda L, s, v: L.searchsorted(s, v, out_int32=True), SORTED, A),
    "bucketize": (lambda L, v, s: L.bucketize(v, s), A, SORTED),
    "nansum_axis": (lambda L, x: L.nansum(x, axis=1), NAN),
    "nansum_keepdim": (lambda L, x: L.nansum(x, axis=[0, 1], keepdim=True), NAN),
    "nanmean": (lambda L, x: L.nanmean(x, axis=0), NAN),
    "isclose": (lambda L, x, y: L.isclose(x, y, atol=2.0), A, B),
    "allclose_true": (lambda L, x: L.allclose(x, x * 1.0), A),
    "allclose_false": (lambda L, x, y: L.allclose(x, y), A, B),
    "kron": (lambda L, x, y: L.kron(x, y), A, B),
    "cross_default": (lambda L, x, y: L.cross(x, y), V3, W3),
    "cross_axis": (lambda L, x, y: L.cross(x, y, axis=1), V3, W3),
    "dot_rows": (lambda L, x, y: L.dot(x, y), A, B),
    "trace_offset": (lambda L, x: L.trace(x, offset=1), A),
    "flip_axis": (lambda L, x: L.flip(x, axis=1), A),
    "quantile": (lambda L, x: L.quantile(x, 0.3), A),
    "quantile_list": (lambda L, x: L.quantile(x, [0.2, 0.5], axis=1), A),
    "quantile_list_all": (lambda L, x: L.quantile(x, [0.25, 0.75]), A),
    "quantile_list_axes_keepdim": (lambda L, x: L.quantile(x, (0.4,), axis=[0, 1], keepdim=True),
                                   A),
    # Paddle's composites: outer/inner flatten as Paddle's Python does, einsum is one kernel
    "outer_2d": (lambda L, x, y: L.outer(x, y), A, B),
    "outer_1d": (lambda L, x, y: L.outer(x[0], y[1]), A, B),
    "ger": (lambda L, x, y: L.ger(x[0], y[1]), A, B),
    "inner_2d": (lambda L, x, y: L.inner(x, y), A, B),
    "inner_3d_2d": (lambda L, x, y: L.inner(x, y), IMG[0, :, :3, :4], B),
    "inner_1d": (lambda L, x, y: L.inner(x[0], y[0]), A, B),
    "inner_one_element": (lambda L, x, y: L.inner(x, y[0, :1]), A, B),
    "einsum_mm": (lambda L, x, y: L.einsum("ij,kj->ik", x, y), A, B),
    "einsum_bmm": (lambda L, x, y: L.einsum("bij,bjk->bik", x, y), IMG[0, :, :3, :4],
                   IMG[1, :, :4, :2]),
    "einsum_trace": (lambda L, x: L.einsum("ii", x), SQ),
    "einsum_diagonal": (lambda L, x: L.einsum("ii->i", x), SQ),
    "einsum_implicit": (lambda L, x, y: L.einsum("ij,kj", x, y), A, B),
    "einsum_ellipsis": (lambda L, x, y: L.einsum("...j,kj->...k", x, y), IMG[0, :, :3, :4], B),
    "einsum_three": (lambda L, x, y, z: L.einsum("ij,kj,k->i", x, y, z), A, B, A[:, 0]),
    "einsum_sum_all": (lambda L, x: L.einsum("ij->", x), A),
    # batched products: core composites whose steps call PyTorch-signature methods
    "matmul_3d_2d": (lambda L, x, y: L.matmul(x, y), IMG[0, :, :3, :4], A5.T[:, :4].T.copy()),
    "matmul_3d_3d": (lambda L, x, y: L.matmul(x, y), IMG[0, :, :3, :4], IMG[1, :, :4, :2]),
    "matmul_1d_3d": (lambda L, x, y: L.matmul(x[0], y), A, IMG[1, :, :4, :2]),
    "matmul_transpose_y": (lambda L, x, y: L.matmul(x, y, transpose_y=True),
                           IMG[0, :, :3, :4], IMG[1, :, :2, :4]),
    "bmm": (lambda L, x, y: L.bmm(x, y), IMG[0, :, :3, :4], IMG[1, :, :4, :2]),
    "linear_3d": (lambda L, x, w: _F(L).linear(x, w), IMG[0, :, :3, :4], B.T.copy()),
    "quantile_axes": (lambda L, x: L.quantile(x, 0.5, axis=[0, 1], keepdim=True), A),
    "nanquantile": (lambda L, x: L.nanquantile(x, 0.5, axis=1), NAN),
    "inverse": (lambda L, x: L.inverse(x), SQ),
    "linalg_det": (lambda L, x: L.linalg.det(x), SQ),
    "linalg_inv": (lambda L, x: L.linalg.inv(x), SQ),
    "linalg_slogdet": (lambda L, x: L.linalg.slogdet(x), SQ),
    "linalg_svd_S": (lambda L, x: L.linalg.svd(x)[1], A5),
    # nn.functional under Paddle's names
    "l1_loss": (lambda L, x, y: _F(L).l1_loss(x, y), A, B),
    "l1_loss_none": (lambda L, x, y: _F(L).l1_loss(x, y, reduction="none"), A, B),
    "smooth_l1_huber": (lambda L, x, y: _F(L).smooth_l1_loss(x, y, delta=2.0), A, B),
    "smooth_l1_not_huber": (lambda L, x, y: _F(L).smooth_l1_loss(x, y, "sum", 2.0, False), A, B),
    "kl_div_mean": (lambda L, x, y: _F(L).kl_div(x, y), LOGP, TGT),
    "kl_div_batchmean": (lambda L, x, y: _F(L).kl_div(x, y, reduction="batchmean"), LOGP, TGT),
    "bce": (lambda L, x, y: _F(L).binary_cross_entropy(x, y), P01, LBL),
    "bce_logits": (lambda L, x, y: _F(L).binary_cross_entropy_with_logits(x, y), A, LBL),
    "avg_pool2d_exclusive": (lambda L, x: _F(L).avg_pool2d(x, 3, 2, 1), IMG),
    "avg_pool2d_inclusive_ceil": (
        lambda L, x: _F(L).avg_pool2d(x, kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                      exclusive=False), IMG),
    "avg_pool2d_nhwc": (lambda L, x: _F(L).avg_pool2d(x, 2, data_format="NHWC"), IMG_NHWC),
    "avg_pool1d": (lambda L, x: _F(L).avg_pool1d(x[0], 3, 2, 1), IMG),
    "max_pool2d": (lambda L, x: _F(L).max_pool2d(x, 2, 2), IMG),
    "max_pool1d": (lambda L, x: _F(L).max_pool1d(x[0], 3, 2, 1), IMG),
    "adaptive_avg_pool2d": (lambda L, x: _F(L).adaptive_avg_pool2d(x, 4), IMG),
    "adaptive_avg_pool1d": (lambda L, x: _F(L).adaptive_avg_pool1d(x[0], 4), IMG),
    "adaptive_max_pool2d": (lambda L, x: _F(L).adaptive_max_pool2d(x, 3), IMG),
}

# Values only: Paddle's median kernels send a NaN slice's gradient to the NaN element
# and scale nanmedian's gradient over all axes differently; not reproduced (values are).
# Paddle 3.3.1 segfaults in backward through meshgrid when one grid goes unused.
NO_GRAD = {"median_nan", "nanmedian_all", "nanmedian_allnan_row", "meshgrid_list",
           "meshgrid_args"}

# Labels stay stop_gradient (Paddle's bce/kl_div give a label no gradient).
LABELS = (LBL, TGT)


def _F(L):
    return PF if L is paddle else labF


def _run(L, fn, arrays):
    ins = [L.to_tensor(a.copy(), stop_gradient=not np.issubdtype(a.dtype, np.floating)
                       or any(a is lb for lb in LABELS)) for a in arrays]
    return ins, fn(L, *ins)


def _flat(out):
    if isinstance(out, (tuple, list)):  # (paddle.topk's TopKRetType is a tuple)
        return "list" if isinstance(out, list) else "tuple", list(out)
    return "Tensor", [out]


def _describe(t):
    """dtype, shape, and stop_gradient for float results (Paddle leaves stop_gradient=False on
    some integer results of a differentiable input, e.g. argsort; inplace_lab's integer
    tensors never require grad)."""
    dt = str(t.dtype).split(".")[-1]
    return dt, list(t.shape), bool(t.stop_gradient) if dt.startswith(("float", "bfloat")) else None


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_paddle(case):
    fn, *arrays = CASES[case]
    p_in, p_out = _run(paddle, fn, arrays)
    l_in, l_out = _run(lab, fn, arrays)
    p_kind, p_list = _flat(p_out)
    l_kind, l_list = _flat(l_out)
    assert l_kind == p_kind and len(l_list) == len(p_list)
    for p, q in zip(p_list, l_list):
        assert _describe(q) == _describe(p)
        np.testing.assert_allclose(q.numpy().astype(np.float64), p.numpy().astype(np.float64),
                                   rtol=1e-5, atol=1e-5, equal_nan=True)
    head_p, head_l = p_list[0], l_list[0]
    if head_p.stop_gradient or case in NO_GRAD or not str(head_p.dtype).startswith("paddle.float"):
        return
    w = rng.uniform(0.5, 1.5, list(head_p.shape)).astype(head_p.numpy().dtype)
    (head_p * paddle.to_tensor(w)).sum().backward()
    (head_l * lab.to_tensor(w)).sum().backward()
    for p, q in zip(p_in, l_in):
        if p.stop_gradient:
            continue
        gp = None if p.grad is None else p.grad.numpy()
        gq = None if q.grad is None else q.grad.numpy()
        assert (gq is None) == (gp is None)
        if gp is not None:
            np.testing.assert_allclose(gq, gp, rtol=1e-4, atol=1e-5, equal_nan=True)


def test_multinomial_shape_dtype_and_support():
    for L in (paddle, lab):
        p = L.to_tensor(PROB)
        s = L.multinomial(p, 3)
        assert list(s.shape) == [2, 3] and str(s.dtype).endswith("int64")
        s = L.multinomial(p, 4, replacement=False).numpy()
        assert all(sorted(row) == [0, 1, 2, 3] for row in s)


def test_unsupported_forms_say_so():
    x = lab.to_tensor(INT)
    with pytest.raises(NotImplementedError, match="axis"):
        lab.unique(x, axis=0)
    with pytest.raises(AttributeError, match="not implemented"):
        lab.linalg.matrix_norm  # noqa: B018
    with pytest.raises(ValueError, match="Mode"):
        lab.median(lab.to_tensor(A), mode="max")
    with pytest.raises(ValueError, match="sum', 'mean' or 'none'"):
        labF.l1_loss(lab.to_tensor(A), lab.to_tensor(B), reduction="avg")
