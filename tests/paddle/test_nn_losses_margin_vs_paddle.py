"""paddle.nn.functional margin / embedding / distribution / detection losses, and the older
elementwise ones (mse, l1, smooth_l1, kl_div, bce), against real Paddle 3.3.1: values for
each reduction, gradients of every differentiable input, and Paddle's errors."""
from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
from tests.paddle._loss_harness import same  # noqa: E402

RNG = np.random.default_rng(1)
A = RNG.standard_normal((4, 3)).astype("float32")
B = RNG.standard_normal((4, 3)).astype("float32")
C = RNG.standard_normal((4, 3)).astype("float32")
SIGN = np.array([1.0, -1.0, -1.0, 1.0], "float32")
SIGN43 = np.where(RNG.random((4, 3)) > 0.5, 1.0, -1.0).astype("float32")
PROB = RNG.uniform(0.05, 0.95, (4, 3)).astype("float32")
TARGET01 = (RNG.random((4, 3)) > 0.5).astype("float32")
REDUCTIONS = ["none", "mean", "sum"]


def grads(call, *arrays, const=()):
    """call(F, *tensors) -> loss; returns [loss, grad of each non-const input]."""

    def fn(pd):
        ts = [pd.to_tensor(a, stop_gradient=i in const) for i, a in enumerate(arrays)]
        out = call(pd.nn.functional, *ts)
        out.sum().backward()
        return [out] + [t.grad for i, t in enumerate(ts) if i not in const]

    return fn


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.3])
def test_margin_ranking_loss(reduction, margin):
    same(grads(lambda F, a, b, y: F.margin_ranking_loss(a, b, y, margin, reduction),
               A, B, SIGN43, const=(2,)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_hinge_embedding_loss(reduction):
    same(grads(lambda F, a, y: F.hinge_embedding_loss(a, y, 0.5, reduction), A, SIGN43,
               const=(1,)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(reduction):
    same(grads(lambda F, a, y: F.soft_margin_loss(a, y, reduction), A, SIGN43, const=(1,)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding_loss(reduction):
    same(grads(lambda F, a, b, y: F.cosine_embedding_loss(a, b, y, 0.2, reduction),
               A, B, SIGN, const=(2,)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss(reduction, swap):
    same(grads(lambda F, a, b, c: F.triplet_margin_loss(a, b, c, 1.0, 2, 1e-6, swap, reduction),
               A, B, C))
    same(grads(lambda F, a, b, c: F.triplet_margin_loss(a, b, c, p=1, swap=swap,
                                                        reduction=reduction), A, B, C))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_with_distance_loss(reduction):
    same(grads(lambda F, a, b, c: F.triplet_margin_with_distance_loss(a, b, c,
                                                                      reduction=reduction),
               A, B, C))
    same(grads(lambda F, a, b, c: F.triplet_margin_with_distance_loss(
        a, b, c, distance_function=lambda x, y: (x - y).abs().sum(-1), margin=2.0, swap=True,
        reduction=reduction), A, B, C))


def test_triplet_errors():
    same(lambda pd: pd.nn.functional.triplet_margin_loss(*[pd.to_tensor(A)] * 3, margin=-1.0))
    same(lambda pd: pd.nn.functional.triplet_margin_loss(pd.to_tensor(A), pd.to_tensor(A[:2]),
                                                         pd.to_tensor(A)))
    same(lambda pd: pd.nn.functional.triplet_margin_with_distance_loss(
        *[pd.to_tensor(A)] * 3, distance_function=lambda x, y: (x - y).sum(-1) - 100.0))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input,full", [(True, False), (False, False), (True, True)])
def test_poisson_nll_loss(reduction, log_input, full):
    label = np.array([[0, 1, 2], [3, 0.5, 4], [1, 1, 7], [0, 2, 2]], "float32")
    same(grads(lambda F, x, y: F.poisson_nll_loss(x, y, log_input, full, reduction=reduction),
               PROB, label, const=(1,)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss_variance_gets_no_gradient(reduction, full):
    var = np.array([[0.5, 1e-8, 2.0]] * 4, "float32")
    same(grads(lambda F, x, y, v: F.gaussian_nll_loss(x, y, v, full, reduction=reduction),
               A, B, var))
    same(grads(lambda F, x, y, v: F.gaussian_nll_loss(x, y, v, reduction=reduction),
               A, B, PROB[:, 0]))


def test_gaussian_nll_loss_errors():
    same(lambda pd: pd.nn.functional.gaussian_nll_loss(pd.to_tensor(A), pd.to_tensor(B),
                                                       pd.to_tensor(PROB[:2])))
    same(lambda pd: pd.nn.functional.gaussian_nll_loss(pd.to_tensor(A), pd.to_tensor(B),
                                                       pd.to_tensor(PROB), reduction="x"))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_label_soft_margin_loss(reduction):
    same(grads(lambda F, x, y: F.multi_label_soft_margin_loss(x, y, reduction=reduction),
               A, TARGET01, const=(1,)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_loss(reduction, p, weighted):
    label = np.array([2, 0, 1, 2])
    w = np.array([1.0, 0.5, 2.0], "float32")

    def fn(pd):
        x = pd.to_tensor(A, stop_gradient=False)
        wt = pd.to_tensor(w, stop_gradient=False) if weighted else None
        out = pd.nn.functional.multi_margin_loss(x, pd.to_tensor(label), p, 0.8, wt, reduction)
        out.sum().backward()
        return [out, x.grad] + ([wt.grad] if weighted else [])

    same(fn)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_label_margin_loss_stops_at_first_minus_one(reduction):
    label = np.array([[2, 0, -1], [1, -1, 2], [-1, 0, 0], [0, 1, 2]])
    same(grads(lambda F, x, y: F.multi_label_margin_loss(x, y, reduction), A, label,
               const=(1,)))


def test_multi_label_margin_loss_errors():
    for label in ([[3, 0, -1]] * 4, [[-2, 0, -1]] * 4, [1, 2, 0, 1]):
        same(lambda pd: pd.nn.functional.multi_label_margin_loss(
            pd.to_tensor(A), pd.to_tensor(np.array(label))))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("normalizer", [None, 2.5])
def test_sigmoid_focal_loss(reduction, normalizer):
    def fn(pd):
        x = pd.to_tensor(A, stop_gradient=False)
        norm = None if normalizer is None else pd.to_tensor([normalizer])
        out = pd.nn.functional.sigmoid_focal_loss(x, pd.to_tensor(TARGET01), norm,
                                                  reduction=reduction)
        out.sum().backward()
        return [out, x.grad]

    same(fn)
    same(lambda pd: pd.nn.functional.sigmoid_focal_loss(pd.to_tensor(A), pd.to_tensor(A),
                                                        reduction="x"))


def test_dice_loss_and_its_assertions():
    label = np.array([[2], [0], [1], [1]])
    same(grads(lambda F, x, y: F.dice_loss(x, y), PROB, label, const=(1,)))
    same(lambda pd: pd.nn.functional.dice_loss(pd.to_tensor(PROB), pd.to_tensor(label[:, 0])))
    same(lambda pd: pd.nn.functional.dice_loss(pd.to_tensor(PROB),
                                               pd.to_tensor(np.zeros((4, 2), "int64"))))


@pytest.mark.parametrize("labels", [np.array([0, 1, 0, 2]), np.array([1.0, 1.0, 2.0, 3.0],
                                                                      "float32")])
def test_npair_loss(labels):
    same(grads(lambda F, a, p, y: F.npair_loss(a, p, y), A, B, labels, const=(2,)))


# ---- the elementwise losses that existed before ----------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_l1_losses(reduction):
    same(grads(lambda F, x, y: F.mse_loss(x, y, reduction), A, B))
    same(grads(lambda F, x, y: F.l1_loss(x, y, reduction), A, B))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("is_huber", [True, False])
def test_smooth_l1_loss(reduction, is_huber):
    same(grads(lambda F, x, y: F.smooth_l1_loss(x, y, reduction, 0.7, is_huber), A, B))


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    label = np.log(PROB) if log_target else PROB
    same(grads(lambda F, x, y: F.kl_div(x, y, reduction, log_target), A, label, const=(1,)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction):
    w = np.array([1.0, 2.0, 0.5], "float32")
    same(grads(lambda F, x, y: F.binary_cross_entropy(x, y, reduction=reduction), PROB,
               TARGET01, const=(1,)))
    same(grads(lambda F, x, y, w: F.binary_cross_entropy(x, y, w, reduction), PROB, TARGET01,
               w, const=(1, 2)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits(reduction):
    w = np.array([1.0, 2.0, 0.5], "float32")
    pos = np.array([3.0, 1.0, 0.2], "float32")
    same(grads(lambda F, x, y, w, p: F.binary_cross_entropy_with_logits(x, y, w, reduction, p),
               A, TARGET01, w, pos, const=(1, 2, 3)))
    same(grads(lambda F, x, y: F.binary_cross_entropy_with_logits(x, y, reduction=reduction),
               A, TARGET01, const=(1,)))


@pytest.mark.parametrize("fname", ["mse_loss", "l1_loss", "smooth_l1_loss", "kl_div",
                                   "binary_cross_entropy", "binary_cross_entropy_with_logits",
                                   "margin_ranking_loss", "hinge_embedding_loss",
                                   "soft_margin_loss", "poisson_nll_loss",
                                   "multi_label_soft_margin_loss", "triplet_margin_loss"])
def test_bad_reduction_text(fname):
    def fn(pd):
        f = getattr(pd.nn.functional, fname)
        args = [pd.to_tensor(PROB), pd.to_tensor(TARGET01)]
        if fname in ("margin_ranking_loss", "triplet_margin_loss"):
            args.append(pd.to_tensor(SIGN43))
        return f(*args, reduction="avg")

    same(fn)


def test_kl_div_zero_label_mixed_dtypes_and_unchecked_reduction():
    label = np.array([[0.0, 0.5, 0.2]] * 4, "float32")
    same(grads(lambda F, x, y: F.kl_div(x, y, "sum"), A, label, const=(1,)))
    same(grads(lambda F, x, y: F.kl_div(x, y, "mean"), A, label.astype("float64"), const=(1,)))
    same(grads(lambda F, x, y: F.kl_div(x, y, "batchmean"), A.astype("float64"), label,
               const=(1,)))
    same(grads(lambda F, x, y: F.kl_div(x, y, "avg"), A, label, const=(1,)))
    same(grads(lambda F, x, y: F.kl_div(x, y, "batchmean"), np.float32(0.3), np.float32(0.5),
               const=(1,)))


LABEL_GRAD_CASES = {  # which labels get a gradient is Paddle's: kernels give none, ops do
    "mse": (lambda F, x, y: F.mse_loss(x, y), B),
    "l1": (lambda F, x, y: F.l1_loss(x, y), B),
    "huber": (lambda F, x, y: F.smooth_l1_loss(x, y), B),
    "bce": (lambda F, x, y: F.binary_cross_entropy(x.sigmoid(), y), PROB),
    "bce_logits": (lambda F, x, y: F.binary_cross_entropy_with_logits(x, y), PROB),
    "kl_div": (lambda F, x, y: F.kl_div(x, y), PROB),
    "log_loss": (lambda F, x, y: F.log_loss(x[:, :1].sigmoid(), y[:, :1]).sum(), PROB),
    "square_error_cost": (lambda F, x, y: F.square_error_cost(x, y).sum(), B),
    "soft_margin": (lambda F, x, y: F.soft_margin_loss(x, y), SIGN43),
    "poisson": (lambda F, x, y: F.poisson_nll_loss(x, y), PROB),
    "gaussian": (lambda F, x, y: F.gaussian_nll_loss(x, y, y.abs()), B),
    "multi_label_soft_margin": (lambda F, x, y: F.multi_label_soft_margin_loss(x, y), PROB),
    "focal": (lambda F, x, y: F.sigmoid_focal_loss(x, y), PROB),
    "margin_ranking": (lambda F, x, y: F.margin_ranking_loss(x, y, y), B),
}


@pytest.mark.parametrize("case", sorted(LABEL_GRAD_CASES))
def test_label_gradient_exists_only_where_paddle_has_one(case):
    call, label = LABEL_GRAD_CASES[case]
    same(grads(call, A, label))


def test_bce_weight_and_pos_weight_gradients():
    w = np.array([1.0, 2.0, 0.5], "float32")
    pos = np.array([3.0, 1.0, 0.2], "float32")
    same(grads(lambda F, x, y, w: F.binary_cross_entropy(x, y, w), PROB, TARGET01, w,
               const=(1,)))
    same(grads(lambda F, x, y, w, p: F.binary_cross_entropy_with_logits(x, y, w, "sum", p),
               A, TARGET01, w, pos, const=(1,)))


def test_bce_with_logits_pos_weight_on_soft_labels_is_pytorchs_formula():
    pos = np.array([3.0, 1.0, 0.2], "float32")
    same(grads(lambda F, x, y, p: F.binary_cross_entropy_with_logits(x, y, None, "none", p),
               A, PROB, pos, const=(1,)))


@pytest.mark.parametrize("fname", ["mse_loss", "l1_loss", "smooth_l1_loss", "kl_div",
                                   "binary_cross_entropy", "binary_cross_entropy_with_logits",
                                   "square_error_cost"])
@pytest.mark.parametrize("label_shape", [(4, 1), (3,), (4, 3, 1), (2, 3)])
def test_label_shape_broadcast_or_kernel_shape_error(fname, label_shape):
    """mse/l1/square_error_cost are ops and broadcast; the kernels check in their words."""
    label = np.full(label_shape, 0.25, "float32")

    def fn(pd):
        x = pd.to_tensor(PROB, stop_gradient=False)
        out = getattr(pd.nn.functional, fname)(x, pd.to_tensor(label))
        out.sum().backward()
        return [out, x.grad]

    same(fn)



EDGE_RNG = np.random.default_rng(7)
a1 = EDGE_RNG.standard_normal(3).astype("float32")
b1 = EDGE_RNG.standard_normal(3).astype("float32")
A2 = EDGE_RNG.standard_normal((4, 3)).astype("float32")
ONES = np.ones((2, 3, 2, 2), "float32")


def _edge(fname, *args, **kwargs):
    """A call of F.<fname> on tensors made from args (numbers and lists become tensors)."""
    return lambda pd: getattr(pd.nn.functional, fname)(
        *[pd.to_tensor(a) for a in args],
        **{k: pd.to_tensor(v) if isinstance(v, (list, np.ndarray)) else v
           for k, v in kwargs.items()})


EDGE_CASES = {  # 0-D / 1-D inputs (Paddle's [1]-shaped constants show), and input checks
    "cos1d": _edge("cosine_embedding_loss", a1, b1, [1], reduction="none"),
    "cos_int": _edge("cosine_embedding_loss", A2, A2 * 2, [1, -1, 1, -1], reduction="none"),
    "cos_shape": _edge("cosine_embedding_loss", A2, A2[:2], [1, -1, 1, -1]),
    "hinge0d": _edge("hinge_embedding_loss", 0.3, -1.0, reduction="none"),
    "mrl0d": _edge("margin_ranking_loss", 0.3, 0.1, -1.0, margin=0.5, reduction="none"),
    "mrl_bad": _edge("margin_ranking_loss", A2, A2[:2], A2),
    "mm_shape": _edge("multi_margin_loss", A2, [1, 2]),
    "mm_w": _edge("multi_margin_loss", A2, [1, 2, 0, 0], weight=[1.0, 2.0]),
    "mm_N1": _edge("multi_margin_loss", A2, [[1], [2], [0], [0]], reduction="none"),
    "mlsm_bad": _edge("multi_label_soft_margin_loss", A2, A2[:2]),
    "poisson_shape": _edge("poisson_nll_loss", A2, A2[:2]),
    "gauss_N1": _edge("gaussian_nll_loss", A2, A2, np.ones((4, 1), "float32"),
                      reduction="none"),
    "focal_norm2d": _edge("sigmoid_focal_loss", A2, A2,
                          normalizer=np.ones((1, 1), "float32")),
    "npair_int": _edge("npair_loss", A2, A2 * 0.5, np.array([1, 2, 1, 3])),
    "triplet_1d": _edge("triplet_margin_loss", a1, b1, a1 * 2),
    "nll_weight_size": _edge("nll_loss", A2, [0, 1, 2, 0], weight=[1.0, 2.0]),
    "nll_4d_ignored": _edge("nll_loss", ONES, np.full((2, 2, 2), -100), reduction="none"),
    "ce_weight_ignore": _edge("cross_entropy", A2, [[0], [1], [2], [1]],
                              weight=[1.0, 2.0, 3.0], ignore_index=1, reduction="none"),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_edge_shapes_and_input_checks(case):
    same(EDGE_CASES[case])
