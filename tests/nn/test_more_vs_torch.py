"""The losses, layers and dropouts of nn.functional_more / nn.more against torch 2.13:
values, gradients, node names, module reprs and error messages on the same inputs."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab  # noqa: E402
import inplace_lab.torch as il  # noqa: E402

TF, XF = torch.nn.functional, il.nn.functional
RNG = np.random.default_rng(3)
F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=1e-5, atol=1e-5)


def _pair(a, grad=True):
    return torch.tensor(a, requires_grad=grad), il.tensor(a, requires_grad=grad)


def _const(a):
    return torch.tensor(a), il.tensor(a)


def _same(t, x, tol=F64):
    np.testing.assert_allclose(x.detach().numpy(), t.detach().numpy(), **tol)


def _compare(ft, fx, leaves, tol=F64, node=True):
    """Run both, compare values, the node name and the gradients of ``leaves``."""
    pt, px = ft(), fx()
    _same(pt, px, tol)
    if node:
        assert type(px.grad_fn).__name__ == type(pt.grad_fn).__name__
    g = RNG.standard_normal(tuple(pt.shape))
    pt.backward(torch.tensor(g, dtype=pt.dtype))
    px.backward(il.tensor(g.astype(pt.detach().numpy().dtype)))
    for t, x in leaves:
        _same(t.grad, x.grad, tol)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


# ---- gaussian_nll_loss ------------------------------------------------------------------------

@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1), "float"])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gaussian_nll_loss(var_shape, full, reduction):
    (ti, xi), (tt, xt) = _pair(RNG.standard_normal((4, 3))), _pair(RNG.standard_normal((4, 3)))
    if var_shape == "float":
        tv = xv = 0.7
        leaves = [(ti, xi), (tt, xt)]
    else:
        v = RNG.random(var_shape) + 1e-7
        v.flat[0] = 1e-9  # below eps: clamped under no_grad
        tv, xv = _pair(v)
        leaves = [(ti, xi), (tt, xt), (tv, xv)]
    _compare(lambda: TF.gaussian_nll_loss(ti, tt, tv, full=full, reduction=reduction),
             lambda: XF.gaussian_nll_loss(xi, xt, xv, full=full, reduction=reduction), leaves)


def test_gaussian_nll_loss_module_and_errors():
    (ti, xi), (tt, xt), (tv, xv) = (_pair(RNG.standard_normal((4, 3))) for _ in range(3))
    assert _error(lambda: XF.gaussian_nll_loss(xi, xt, xv)) == \
        _error(lambda: TF.gaussian_nll_loss(ti, tt, tv))
    tv, xv = _pair(RNG.random((3, 2)))
    assert _error(lambda: XF.gaussian_nll_loss(xi, xt, xv)) == \
        _error(lambda: TF.gaussian_nll_loss(ti, tt, tv))
    tv, xv = _pair(RNG.random((4, 3)))
    assert _error(lambda: XF.gaussian_nll_loss(xi, xt, xv, reduction="x")) == \
        _error(lambda: TF.gaussian_nll_loss(ti, tt, tv, reduction="x"))
    m, n = torch.nn.GaussianNLLLoss(full=True, eps=1e-3), il.nn.GaussianNLLLoss(full=True, eps=1e-3)
    _same(m(ti, tt, tv), n(xi, xt, xv))
    assert repr(n) == repr(m) and n.full and n.eps == 1e-3


# ---- multilabel_soft_margin_loss -----------------------------------------------------------------

@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_soft_margin_loss(weighted, reduction):
    (ti, xi) = _pair(RNG.standard_normal((3, 5)))
    (tt, xt) = _pair((RNG.random((3, 5)) > 0.5).astype(float))
    tw, xw = _const(RNG.random(5)) if weighted else (None, None)
    _compare(lambda: TF.multilabel_soft_margin_loss(ti, tt, tw, reduction=reduction),
             lambda: XF.multilabel_soft_margin_loss(xi, xt, xw, reduction=reduction),
             [(ti, xi), (tt, xt)])
    m = torch.nn.MultiLabelSoftMarginLoss(tw, reduction=reduction)
    n = il.nn.MultiLabelSoftMarginLoss(xw, reduction=reduction)
    _same(m(ti, tt), n(xi, xt))
    assert list(n.state_dict()) == list(m.state_dict())


# ---- triplet_margin_with_distance_loss -------------------------------------------------------------

@pytest.mark.parametrize("dist", [None, "cosine"])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_triplet_margin_with_distance_loss(dist, swap, reduction):
    ts, xs = zip(*(_pair(RNG.standard_normal((4, 6))) for _ in range(3)))
    dt = (lambda a, b: 1 - TF.cosine_similarity(a, b)) if dist else None
    dx = (lambda a, b: 1 - XF.cosine_similarity(a, b)) if dist else None
    _compare(lambda: TF.triplet_margin_with_distance_loss(*ts, distance_function=dt, margin=0.5,
                                                          swap=swap, reduction=reduction),
             lambda: XF.triplet_margin_with_distance_loss(*xs, distance_function=dx, margin=0.5,
                                                          swap=swap, reduction=reduction),
             list(zip(ts, xs)))


def test_triplet_margin_with_distance_loss_module_and_errors():
    m, n = torch.nn.TripletMarginWithDistanceLoss(), il.nn.TripletMarginWithDistanceLoss()
    assert repr(n) == repr(m)
    ts, xs = zip(*(_pair(RNG.standard_normal((4, 6))) for _ in range(3)))
    _same(m(*ts), n(*xs))
    assert _error(lambda: il.nn.TripletMarginWithDistanceLoss(margin=0)) == \
        _error(lambda: torch.nn.TripletMarginWithDistanceLoss(margin=0))
    assert _error(lambda: XF.triplet_margin_with_distance_loss(xs[0], xs[1], xs[2][0])) == \
        _error(lambda: TF.triplet_margin_with_distance_loss(ts[0], ts[1], ts[2][0]))
    assert _error(lambda: XF.triplet_margin_with_distance_loss(*xs, reduction="x")) == \
        _error(lambda: TF.triplet_margin_with_distance_loss(*ts, reduction="x"))


# ---- multi_margin_loss ------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(4, 5), (5,)])
def test_multi_margin_loss(p, weighted, reduction, shape):
    ti, xi = _pair(RNG.standard_normal(shape))
    tg = RNG.integers(0, 5, shape[:-1]) if len(shape) == 2 else np.array(2)
    tt, xt = _const(tg)
    tw, xw = _const(RNG.random(5)) if weighted else (None, None)
    _compare(lambda: TF.multi_margin_loss(ti, tt, p, 0.8, tw, reduction=reduction),
             lambda: XF.multi_margin_loss(xi, xt, p, 0.8, xw, reduction=reduction), [(ti, xi)])


def test_multi_margin_loss_float32_module_and_errors():
    ti, xi = _pair(RNG.standard_normal((6, 4)).astype(np.float32))
    tt, xt = _const(RNG.integers(0, 4, 6))
    m, n = torch.nn.MultiMarginLoss(p=2), il.nn.MultiMarginLoss(p=2)
    assert repr(n) == repr(m)
    _compare(lambda: m(ti, tt), lambda: n(xi, xt), [(ti, xi)], F32)
    for args in ((np.array([0, 1, 9, 0, 0, 0]),), (np.array([0, 1]),),
                 (np.array([0, 1, 1, 0, 0, 0], dtype=np.int32),)):
        a, b = _const(args[0])
        assert _error(lambda: XF.multi_margin_loss(xi, b)) == _error(lambda: TF.multi_margin_loss(ti, a))
    assert _error(lambda: XF.multi_margin_loss(xi, xt, p=3)) == \
        _error(lambda: TF.multi_margin_loss(ti, tt, p=3))
    assert _error(lambda: il.nn.MultiMarginLoss(weight=il.ones(2, 2))) == \
        _error(lambda: torch.nn.MultiMarginLoss(weight=torch.ones(2, 2)))
    assert _error(lambda: XF.multi_margin_loss(xi, xt, reduction="bad")) == \
        _error(lambda: TF.multi_margin_loss(ti, tt, reduction="bad"))


# ---- multilabel_margin_loss ---------------------------------------------------------------------------

TARGETS = np.array([[0, 3, -1, 1, 1], [4, -1, 0, 0, 0], [-1, 1, 1, 1, 1], [2, 2, 0, -1, 3]])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("batched", [True, False])
def test_multilabel_margin_loss(reduction, batched):
    a = RNG.standard_normal((4, 5)) * 0.5
    tg = TARGETS
    if not batched:
        a, tg = a[0], tg[0]
    ti, xi = _pair(a)
    tt, xt = _const(tg)
    _compare(lambda: TF.multilabel_margin_loss(ti, tt, reduction=reduction),
             lambda: XF.multilabel_margin_loss(xi, xt, reduction=reduction), [(ti, xi)])
    _same(torch.nn.MultiLabelMarginLoss(reduction=reduction)(ti, tt),
          il.nn.MultiLabelMarginLoss(reduction=reduction)(xi, xt))


def test_multilabel_margin_loss_errors():
    ti, xi = _pair(RNG.standard_normal((4, 5)))
    for tg in (TARGETS[:, :3], np.where(TARGETS == 4, 7, TARGETS), np.where(TARGETS == 4, -3, TARGETS),
               TARGETS.astype(np.int32)):
        tt, xt = _const(tg)
        assert _error(lambda: XF.multilabel_margin_loss(xi, xt)) == \
            _error(lambda: TF.multilabel_margin_loss(ti, tt))


# ---- NLLLoss2d ----------------------------------------------------------------------------------------

def test_nll_loss_2d_is_a_deprecated_nll_loss():
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        m = torch.nn.NLLLoss2d(ignore_index=1)
    with warnings.catch_warnings(record=True) as wx:
        warnings.simplefilter("always")
        n = il.nn.NLLLoss2d(ignore_index=1)
    assert [(w.category, str(w.message)) for w in wx] == [(w.category, str(w.message)) for w in wt]
    assert isinstance(n, inplace_lab.nn.NLLLoss) and repr(n) == repr(m)
    ti, xi = _pair(np.log(RNG.dirichlet(np.ones(3), (2, 4, 5))).transpose(0, 3, 1, 2).copy())
    tt, xt = _const(RNG.integers(0, 3, (2, 4, 5)))
    _compare(lambda: m(ti, tt), lambda: n(xi, xt), [(ti, xi)])  # (NllLoss2DBackward0)


# ---- ctc_loss ------------------------------------------------------------------------------------------

T_, N_, C_ = 9, 3, 5
IN_LEN, TG_LEN = [9, 6, 7], [3, 0, 2]
CONCAT, PADDED = np.array([1, 2, 2, 3, 4]), np.array([[1, 2, 2], [0, 0, 0], [3, 4, 1]])


@pytest.mark.parametrize("layout", ["concat", "padded"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("lengths", ["tensor", "list"])
def test_ctc_loss_through_log_softmax(layout, reduction, zero_infinity, lengths):
    ti, xi = _pair(RNG.standard_normal((T_, N_, C_)))
    tt, xt = _const(CONCAT if layout == "concat" else PADDED)
    if lengths == "tensor":
        (til, xil), (ttl, xtl) = _const(np.array(IN_LEN)), _const(np.array(TG_LEN))
    else:
        til = xil = tuple(IN_LEN)
        ttl = xtl = tuple(TG_LEN)
    _compare(lambda: TF.ctc_loss(ti.log_softmax(2), tt, til, ttl, reduction=reduction,
                                 zero_infinity=zero_infinity),
             lambda: XF.ctc_loss(xi.log_softmax(2), xt, xil, xtl, reduction=reduction,
                                 zero_infinity=zero_infinity), [(ti, xi)])


def test_ctc_loss_gradient_of_leaf_log_probs_is_atens_formula():
    """ATen's gradient assumes log_probs came from a log_softmax; a leaf gets it as is."""
    lp = np.log(RNG.dirichlet(np.ones(C_), (T_, N_)))
    ti, xi = _pair(lp)
    tt, xt = _const(np.where(PADDED == 4, 0, PADDED))  # (no target may be the blank)
    _compare(lambda: TF.ctc_loss(ti, tt, IN_LEN, TG_LEN, blank=4, reduction="sum"),
             lambda: XF.ctc_loss(xi, xt, IN_LEN, TG_LEN, blank=4, reduction="sum"), [(ti, xi)])


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_impossible_alignment(zero_infinity):
    ti, xi = _pair(np.log(RNG.dirichlet(np.ones(C_), (4, N_))))
    tt, xt = _const(np.array([[1, 1, 1, 1, 1]] * 3))
    pt = TF.ctc_loss(ti, tt, [4, 4, 3], [5, 2, 1], reduction="none", zero_infinity=zero_infinity)
    px = XF.ctc_loss(xi, xt, [4, 4, 3], [5, 2, 1], reduction="none", zero_infinity=zero_infinity)
    _same(pt, px)
    pt.sum().backward()
    px.sum().backward()
    np.testing.assert_allclose(xi.grad.numpy(), ti.grad.numpy(), rtol=1e-9, atol=1e-11,
                               equal_nan=True)


def test_ctc_loss_unbatched_float32_and_module():
    ti, xi = _pair(np.log(RNG.dirichlet(np.ones(C_), T_)).astype(np.float32))
    tt, xt = _const(np.array([1, 3, 3]))
    m, n = torch.nn.CTCLoss(blank=0, zero_infinity=True), il.nn.CTCLoss(blank=0, zero_infinity=True)
    assert repr(n) == repr(m)
    _compare(lambda: m(ti, tt, torch.tensor(T_), torch.tensor(3)),
             lambda: n(xi, xt, il.tensor(T_), il.tensor(3)), [(ti, xi)], F32)


# ---- bilinear / Bilinear ----------------------------------------------------------------------------

@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batch", [(3,), (2, 3)])
def test_bilinear(bias, batch):
    (t1, x1), (t2, x2) = _pair(RNG.standard_normal(batch + (4,))), _pair(RNG.standard_normal(batch + (5,)))
    tw, xw = _pair(RNG.standard_normal((2, 4, 5)))
    tb, xb = _pair(RNG.standard_normal(2)) if bias else (None, None)
    leaves = [(t1, x1), (t2, x2), (tw, xw)] + ([(tb, xb)] if bias else [])
    _compare(lambda: TF.bilinear(t1, t2, tw, tb), lambda: XF.bilinear(x1, x2, xw, xb), leaves,
             node=bias)  # (without bias torch's top node is the view of _trilinear's result)


def test_bilinear_module_and_errors():
    torch.manual_seed(0)
    m, n = torch.nn.Bilinear(4, 5, 2, dtype=torch.float64), il.nn.Bilinear(4, 5, 2, dtype=il.float64)
    assert repr(n) == repr(m) and list(n.state_dict()) == list(m.state_dict())
    n.load_state_dict({k: il.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    (t1, x1), (t2, x2) = _pair(RNG.standard_normal((3, 4))), _pair(RNG.standard_normal((3, 5)))
    _compare(lambda: m(t1, t2), lambda: n(x1, x2), [(t1, x1), (t2, x2)])
    bound = 1 / 2
    assert np.abs(il.nn.Bilinear(4, 5, 2).weight.detach().numpy()).max() <= bound
    w = RNG.standard_normal((2, 4, 5))
    for a, b in (((3, 4), (3,)), ((3, 4), (2, 5)), ((3, 3), (3, 5)), ((3, 4), (3, 6))):
        (t1, x1), (t2, x2) = _const(RNG.standard_normal(a)), _const(RNG.standard_normal(b))
        assert _error(lambda: XF.bilinear(x1, x2, il.tensor(w))) == \
            _error(lambda: TF.bilinear(t1, t2, torch.tensor(w)))
    assert _error(lambda: il.nn.Bilinear(0, 2, 2)) == _error(lambda: torch.nn.Bilinear(0, 2, 2))


# ---- pdist -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [2, 1, 3, 0.5, float("inf")])
def test_pdist(p):
    t, x = _pair(RNG.standard_normal((5, 3)))
    _compare(lambda: TF.pdist(t, p), lambda: XF.pdist(x, p), [(t, x)], node=False)


def test_pdist_errors_and_one_row():
    t, x = _pair(RNG.standard_normal((1, 3)))
    assert tuple(XF.pdist(x).shape) == tuple(TF.pdist(t).shape) == (0,)
    t, x = _pair(RNG.standard_normal((2, 3, 4)))
    assert _error(lambda: XF.pdist(x)) == _error(lambda: TF.pdist(t))


# ---- gumbel_softmax (torch's RNG cannot be matched: properties only) ----------------------------------

def test_gumbel_softmax_soft_is_a_distribution():
    x = il.tensor(RNG.standard_normal((4, 6)), requires_grad=True)
    y = XF.gumbel_softmax(x, tau=0.5)
    np.testing.assert_allclose(y.detach().numpy().sum(-1), 1.0, rtol=1e-12)
    assert (y.detach().numpy() > 0).all() and type(y.grad_fn).__name__ == "SoftmaxBackward0"


def test_gumbel_softmax_hard_is_one_hot_with_soft_gradient():
    x = il.tensor(RNG.standard_normal((4, 6)), requires_grad=True)
    y = XF.gumbel_softmax(x, hard=True, dim=0)
    v = y.detach().numpy()
    assert set(np.unique(v)) <= {0.0, 1.0} and (v.sum(0) == 1).all()
    assert type(y.grad_fn).__name__ == "AddBackward0"
    y.backward(il.ones(4, 6))
    np.testing.assert_allclose(x.grad.numpy(), 0, atol=1e-12)  # (softmax's grad of a constant)


def test_gumbel_softmax_eps_warns():
    x = il.tensor(RNG.standard_normal((2, 3)))
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        XF.gumbel_softmax(x, eps=1e-3)


def test_gumbel_softmax_noise_follows_gumbel_statistics():
    il.manual_seed(0)
    x = il.zeros(20000, 2, dtype=il.float64)
    y = XF.gumbel_softmax(x, tau=1.0, hard=True)
    assert abs(y.numpy()[:, 0].mean() - 0.5) < 0.02  # equal logits: a fair coin
    x = il.tensor(np.tile(np.log([[0.2, 0.8]]), (20000, 1)))
    assert abs(XF.gumbel_softmax(x, hard=True).numpy()[:, 1].mean() - 0.8) < 0.02


# ---- dropouts (torch's RNG cannot be matched: identity cases, groups, scaling) -------------------------

_DROPOUTS = [("dropout1d", "Dropout1d", (4, 6, 50)), ("dropout3d", "Dropout3d", (4, 6, 3, 4, 5)),
             ("alpha_dropout", "AlphaDropout", (40, 60)),
             ("feature_alpha_dropout", "FeatureAlphaDropout", (4, 6, 50))]


@pytest.mark.parametrize("fname,cls,shape", _DROPOUTS)
def test_dropout_identity_in_eval_and_at_p0(fname, cls, shape):
    x = il.tensor(RNG.standard_normal(shape))
    assert getattr(XF, fname)(x, 0.3, training=False) is x
    assert getattr(XF, fname)(x, 0.0, training=True) is x
    n, m = getattr(il.nn, cls)(0.3), getattr(torch.nn, cls)(0.3)
    assert repr(n) == repr(m)
    n.eval()
    assert n(x) is x


@pytest.mark.parametrize("fname", ["dropout1d", "dropout3d"])
def test_channel_dropouts_drop_whole_channels(fname):
    shape = dict((f, s) for f, _, s in _DROPOUTS)[fname]
    il.manual_seed(1)
    x = il.tensor(RNG.random(shape) + 1.0, requires_grad=True)
    y = getattr(XF, fname)(x, 0.5, training=True)
    ratio = (y / x).detach().numpy().reshape(shape[0], shape[1], -1)
    assert np.allclose(ratio, ratio[:, :, :1])  # one value per (sample, channel)
    vals = np.unique(np.round(ratio[:, :, 0], 10))
    assert set(vals) <= {0.0, 2.0} and len(vals) == 2
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy().reshape(ratio.shape), ratio)


def test_feature_alpha_dropout_drops_whole_channels_to_one_value():
    il.manual_seed(2)
    x = il.tensor(RNG.random((4, 6, 50)) + 1.0)
    y = XF.feature_alpha_dropout(x, 0.5, training=True).numpy()
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha * alpha * 0.5 + 1) * 0.5)
    dropped = np.isclose(y, -alpha * a + alpha * a * 0.5).all(-1)
    kept = np.isclose(y, a * x.numpy() + alpha * a * 0.5).all(-1)
    assert (dropped ^ kept).all() and dropped.any() and kept.any()


def test_alpha_dropout_keeps_mean_and_variance():
    il.manual_seed(0)
    x = il.tensor(RNG.standard_normal((400, 500)))
    y = XF.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha * alpha * 0.2 + 1) * 0.8)
    dropped = np.isclose(y, a * -alpha + alpha * a * 0.2)
    assert abs(dropped.mean() - 0.2) < 0.01


def test_dropout_unbatched_and_errors():
    x = il.tensor(RNG.random((6, 50)) + 1.0)
    y = XF.dropout1d(x, 0.5, training=True)
    assert tuple(y.shape) == (6, 50)
    r = (y / x).numpy()
    assert np.allclose(r, r[:, :1])
    t = torch.zeros(3)
    assert _error(lambda: XF.dropout1d(il.zeros(3), 0.5)) == _error(lambda: TF.dropout1d(t, 0.5))
    assert _error(lambda: XF.alpha_dropout(il.zeros(3), 1.5)) == \
        _error(lambda: TF.alpha_dropout(t, 1.5))
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        TF.dropout3d(torch.zeros(2, 3, 4), 0.5)
    with warnings.catch_warnings(record=True) as wx:
        warnings.simplefilter("always")
        XF.dropout3d(il.zeros(2, 3, 4), 0.5)
    assert [str(w.message) for w in wx] == [str(w.message) for w in wt]


@pytest.mark.parametrize("p", [2, 1, 0, 0.5, 3, float("inf")])
def test_pdist_is_one_kernel_with_atens_gradient(p):
    """PdistBackward0 (saves input and result); rows 1 and 3 equal: a zero distance."""
    x0 = np.random.default_rng(0).standard_normal((5, 3))
    x0[3] = x0[1]
    out = []
    for M in (torch, il):
        x = M.tensor(x0, requires_grad=True)
        y = M.nn.functional.pdist(x, p)
        (y * M.arange(float(y.numel()), dtype=M.float64)).sum().backward()
        out.append((np.round(y.tolist(), 8).tolist(), np.round(x.grad.tolist(), 8).tolist(),
                    type(y.grad_fn).__name__))
    assert out[1] == out[0]
