"""nn faithfulness gaps vs torch 2.13: F.threshold_ / nn.Threshold, F.embedding(max_norm),
nuclear and matrix norms, module reprs, cross_entropy with probability targets.

Each test runs the same program on torch and on ``inplace_lab.torch`` and compares values,
gradients, grad_fn names (the whole chain where it matters) and ``_version``.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as it

LIBS = {"torch": torch, "il": it}
rng = np.random.default_rng(7)


def chain(t):
    """grad_fn names depth first, with each edge's output index (None edges included)."""
    out, seen = [], set()

    def rec(f, d):
        if f is None or id(f) in seen:
            return
        seen.add(id(f))
        out.append((d, f.name(), tuple((n.name() if n is not None else None, i)
                                       for n, i in f.next_functions)))
        for n, _ in f.next_functions:
            rec(n, d + 1)

    rec(t.grad_fn, 0)
    return out


def both(fn):
    return fn(torch), fn(it)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(b.detach().numpy()), a.detach().numpy(), rtol=tol,
                               atol=tol)


# ---- 1. threshold_ ------------------------------------------------------------------------------

X = np.array([1.0, -2.0, 3.0, 0.5, 0.7])


def _threshold_run(m, how):
    x = m.tensor(X, requires_grad=True)
    y = x * 1
    F = m.nn.functional
    if how == "F.threshold_":
        z = F.threshold_(y, 0.7, 9.0)
    elif how == "F.threshold(inplace)":
        z = F.threshold(y, 0.7, 9.0, inplace=True)
    elif how == "nn.Threshold(inplace)":
        z = m.nn.Threshold(0.7, 9.0, inplace=True)(y)
    else:
        z = F.threshold(y, 0.7, 9.0)
    (z * m.tensor(np.arange(5.0))).sum().backward()
    return x, y, z


@pytest.mark.parametrize("how", ["F.threshold_", "F.threshold(inplace)", "nn.Threshold(inplace)",
                                 "F.threshold"])
def test_threshold_values_grads_version_and_node_match_torch(how):
    (tx, ty, tz), (ix, iy, iz) = both(lambda m: _threshold_run(m, how))
    close(tz, iz)
    close(tx.grad, ix.grad)
    assert (iz is iy) == (tz is ty)
    assert iy._version == ty._version
    assert iz.grad_fn.name() == tz.grad_fn.name()


def test_threshold_inplace_on_a_leaf_is_refused_and_changes_nothing():
    for m in LIBS.values():
        x = m.tensor(X, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
            m.nn.functional.threshold_(x, 0.1, 2.0)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            m.nn.Threshold(0.1, 2.0, inplace=True)(x[1:])
        assert x._version == 0 and x.detach().numpy().tolist() == X.tolist()


def test_threshold_inplace_on_a_view_rewrites_the_base_like_torch():
    def run(m):
        x = m.tensor(X, requires_grad=True)
        y = x * 1
        v = y[1:4]
        m.nn.functional.threshold_(v, 0.0, 5.0)
        (y * m.tensor(np.arange(1.0, 6.0))).sum().backward()
        return x, y, v

    (tx, ty, tv), (ix, iy, iv) = both(run)
    close(ty, iy)
    close(tx.grad, ix.grad)
    assert iy.grad_fn.name() == ty.grad_fn.name() and iv.grad_fn.name() == tv.grad_fn.name()
    assert iy._version == ty._version == 1


def test_threshold_module_repr_matches_torch():
    for kw in ({}, {"inplace": True}):
        assert repr(it.nn.Threshold(0.7, 9.0, **kw)) == repr(torch.nn.Threshold(0.7, 9.0, **kw))


# ---- 2. embedding(max_norm) ----------------------------------------------------------------------

W = rng.normal(size=(6, 3)) * 2
IDX = np.array([[0, 2, 2], [5, 1, 0]])


@pytest.mark.parametrize("kw", [{"max_norm": 1.0}, {"max_norm": 0.5, "norm_type": 1.0},
                                {"max_norm": 1.0, "norm_type": float("inf")},
                                {"max_norm": 1.0, "padding_idx": 0},
                                {"max_norm": 1.0, "scale_grad_by_freq": True}])
def test_embedding_max_norm_renormalises_the_weight_in_place_like_torch(kw):
    def run(m):
        w = m.tensor(W, requires_grad=True)
        out = m.nn.functional.embedding(m.tensor(IDX), w, **kw)
        (out * m.tensor(rng_g)).sum().backward()
        return w, out

    rng_g = np.random.default_rng(1).normal(size=IDX.shape + (3,))
    (tw, to), (iw, io) = both(run)
    close(tw, iw)  # the looked-up rows of the weight itself were scaled down
    close(to, io)
    close(tw.grad, iw.grad)
    assert iw._version == tw._version == 1
    assert io.grad_fn.name() == to.grad_fn.name() == "EmbeddingBackward0"


def test_embedding_max_norm_bumps_a_non_leaf_weight_once_even_when_no_row_changes():
    def run(m):
        base = m.tensor(np.full((4, 3), 0.01), requires_grad=True)
        w = base * 3
        out = m.nn.functional.embedding(m.tensor([1, 1, 3]), w, max_norm=1.0)
        out.sum().backward()
        return base, w

    (tb, tw), (ib, iw) = both(run)
    assert iw._version == tw._version == 1
    assert iw.grad_fn.name() == tw.grad_fn.name() == "MulBackward0"
    close(tb.grad, ib.grad)


def test_embedding_max_norm_float32_values_match_torch():
    w0 = (np.random.default_rng(3).normal(size=(50, 8)) * 3).astype("float32")
    idx = np.random.default_rng(4).integers(-50, 50, size=40)

    def run(m):
        w = m.tensor(w0)
        m.nn.functional.embedding(m.tensor(idx % 50), w, max_norm=1.5)
        m.embedding_renorm_(w, m.tensor(idx), 1.0, 2.0)  # negative indices count from the end
        return w

    tw, iw = both(run)
    np.testing.assert_allclose(iw.numpy(), tw.numpy(), rtol=2e-7, atol=0)


def test_embedding_module_max_norm_repr_and_version_match_torch():
    kw = {"padding_idx": 2, "max_norm": 1.0, "norm_type": 1.0, "scale_grad_by_freq": True}
    assert repr(it.nn.Embedding(5, 3, **kw)) == repr(torch.nn.Embedding(5, 3, **kw))
    t_m, i_m = torch.nn.Embedding(5, 3, max_norm=1.0), it.nn.Embedding(5, 3, max_norm=1.0)
    v0 = t_m.weight._version, i_m.weight._version
    t_m(torch.tensor([0, 4])), i_m(it.tensor([0, 4]))
    assert (t_m.weight._version - v0[0]) == (i_m.weight._version - v0[1]) == 1
    assert float(i_m.weight[0].norm()) <= 1.0 and float(i_m.weight[4].norm()) <= 1.0


@pytest.mark.parametrize("case", ["float indices", "out of range", "1-D weight", "int weight"])
def test_embedding_max_norm_errors_match_torch_and_change_nothing(case):
    def run(m):
        w = m.tensor(W[:5])
        idx, weight = m.tensor([1, 7]), w
        if case == "float indices":
            idx = m.tensor([1.0])
        elif case == "1-D weight":
            weight = m.tensor(W[0])
        elif case == "int weight":
            weight = m.ones(5, 3, dtype=m.int64)
        with pytest.raises(Exception) as e:
            m.embedding_renorm_(weight, idx, 1.0, 2.0)
        assert weight._version == 0
        if m is it:  # torch has already scaled row 1 when it meets index 7; here nothing moved
            assert w.numpy().tolist() == W[:5].tolist()
        return e.value

    te, ie = both(run)
    assert type(te) is type(ie) or isinstance(ie, type(te))
    assert str(ie) == str(te)


# ---- 3. nuclear norm ------------------------------------------------------------------------------

A3 = rng.normal(size=(3, 4))
B3 = rng.normal(size=(2, 3, 4))
NORMS = [
    ("linalg.norm nuc", A3, lambda m, a: m.linalg.norm(a, "nuc")),
    ("torch.norm p=nuc", A3, lambda m, a: m.norm(a, p="nuc")),
    ("Tensor.norm p=nuc", A3, lambda m, a: a.norm(p="nuc")),
    ("matrix_norm nuc", A3, lambda m, a: m.linalg.matrix_norm(a, "nuc")),
    ("matrix_norm nuc keepdim", A3, lambda m, a: m.linalg.matrix_norm(a, "nuc", keepdim=True)),
    ("linalg.norm nuc dim (1,0)", A3, lambda m, a: m.linalg.norm(a, "nuc", dim=(1, 0))),
    ("batched matrix_norm nuc", B3, lambda m, a: m.linalg.matrix_norm(a, "nuc")),
    ("linalg.norm nuc dim (2,0) keepdim", B3,
     lambda m, a: m.linalg.norm(a, "nuc", dim=(2, 0), keepdim=True)),
    ("torch.norm nuc dim (0,2)", B3, lambda m, a: m.norm(a, p="nuc", dim=(0, 2))),
    ("matrix_norm fro", B3, lambda m, a: m.linalg.matrix_norm(a)),
    ("linalg.norm default", A3, lambda m, a: m.linalg.norm(a)),
    ("torch.norm fro", A3, lambda m, a: m.norm(a, p="fro")),
    ("matrix_norm ord 2", B3, lambda m, a: m.linalg.matrix_norm(a, 2)),
    ("matrix_norm ord -inf keepdim", B3, lambda m, a: m.linalg.matrix_norm(a, -float("inf"),
                                                                          keepdim=True)),
    ("linalg.norm ord 1", A3, lambda m, a: m.linalg.norm(a, 1)),
    ("svdvals", A3.T, lambda m, a: m.linalg.svdvals(a)),
]


def _without_output_index(c):
    """PyTorch's S is output 1 of LinalgSvdBackward0, output 0 here (module docstring)."""
    return [(d, n, tuple((e, 0 if e == "LinalgSvdBackward0" else i) for e, i in nf))
            for d, n, nf in c]


@pytest.mark.parametrize("name,a0,fn", NORMS, ids=[n[0] for n in NORMS])
def test_matrix_norms_values_grads_and_graph_match_torch(name, a0, fn):
    def run(m):
        a = m.tensor(a0, requires_grad=True)
        r = fn(m, a)
        g = np.random.default_rng(2).normal(size=tuple(r.shape))  # the same seed on both
        (r * m.tensor(g)).sum().backward()
        return a, r

    (ta, tr), (ia, ir) = both(run)
    assert tuple(ir.shape) == tuple(tr.shape)
    close(tr, ir, 1e-9)
    close(ta.grad, ia.grad, 1e-8)
    assert _without_output_index(chain(ir)) == _without_output_index(chain(tr))


def test_nuclear_norm_saves_the_svd_outputs_not_the_input():
    """Overwriting A after norm(A, 'nuc') does not break backward (torch saves U, S, Vh)."""
    def run(m):
        x = m.tensor(A3, requires_grad=True)
        a = x * 1
        n = m.linalg.norm(a, "nuc")
        a.add_(1.0)
        n.backward()
        return x

    tx, ix = both(run)
    close(tx.grad, ix.grad, 1e-9)


def test_nuclear_norm_float32_matches_torch():
    a0 = rng.normal(size=(5, 3)).astype("float32")
    tr, ir = both(lambda m: m.linalg.matrix_norm(m.tensor(a0), "nuc"))
    assert ir.dtype == it.float32
    np.testing.assert_allclose(ir.numpy(), tr.numpy(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.matrix_norm(m.randn(3, 4), "foo"),
    lambda m: m.linalg.matrix_norm(m.ones(3), "nuc"),
    lambda m: m.linalg.matrix_norm(m.ones(3, 3, dtype=m.int64), "nuc"),
    lambda m: m.linalg.matrix_norm(m.randn(3, 4), "nuc", dim=(1, -1)),
    lambda m: m.linalg.matrix_norm(m.randn(3, 4), "nuc", dim=(0,)),
    lambda m: m.linalg.matrix_norm(m.randn(3, 4).half(), "nuc"),
    lambda m: m.linalg.norm(m.ones(2, 3, 4), "nuc"),
    lambda m: m.linalg.matrix_norm(m.randn(3, 4), "nuc", dtype=m.int64),
    lambda m: m.linalg.matrix_norm(m.randn(3, 4).double(), "nuc", dtype=m.float32),
    lambda m: m.linalg.matrix_norm(m.randn(3, 4), "nuc", dim=(0, 5)),
    lambda m: m.norm(m.randn(3, 4), p="nuc", dim=1),
    lambda m: m.norm(m.ones(2, 3, 4), p="nuc"),
])
def test_matrix_norm_errors_match_torch(call):
    errs = []
    for m in (torch, it):
        with pytest.raises(Exception) as e:
            call(m)
        errs.append(e.value)
    assert isinstance(errs[1], type(errs[0])) and str(errs[1]) == str(errs[0])


# ---- 4. reprs ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda m: m.nn.BatchNorm1d(3),
    lambda m: m.nn.BatchNorm1d(3, affine=False),
    lambda m: m.nn.BatchNorm1d(3, track_running_stats=False),
    lambda m: m.nn.BatchNorm1d(3, momentum=None),
    lambda m: m.nn.BatchNorm2d(4, eps=1e-3, momentum=0.2, affine=False, track_running_stats=False),
    lambda m: m.nn.Sequential(m.nn.Linear(2, 3), m.nn.BatchNorm1d(3), m.nn.ReLU()),
    lambda m: m.nn.LayerNorm(5),
    lambda m: m.nn.LayerNorm((2, 3), elementwise_affine=False),
    lambda m: m.nn.LayerNorm(4, bias=False),
    lambda m: m.nn.LayerNorm([4], eps=1e-6),
    lambda m: m.nn.GroupNorm(2, 4),
    lambda m: m.nn.GroupNorm(2, 4, affine=False, eps=1e-3),
])
def test_norm_module_reprs_match_torch(make):
    assert repr(make(it)) == repr(make(torch))


NORM_LAYERS = [
    ("LayerNorm(4)", (3, 4), lambda m: m.nn.LayerNorm(4)),
    ("LayerNorm((3,4)) no bias", (2, 3, 4), lambda m: m.nn.LayerNorm((3, 4), bias=False)),
    ("LayerNorm no affine", (2, 3, 4), lambda m: m.nn.LayerNorm(4, elementwise_affine=False)),
    ("GroupNorm(2, 4)", (2, 4, 3), lambda m: m.nn.GroupNorm(2, 4)),
    ("GroupNorm(3, 6) 4-D", (2, 6, 2, 3), lambda m: m.nn.GroupNorm(3, 6, eps=1e-3)),
    ("GroupNorm no affine", (3, 4), lambda m: m.nn.GroupNorm(4, 4, affine=False)),
]


@pytest.mark.parametrize("name,shape,make", NORM_LAYERS, ids=[n[0] for n in NORM_LAYERS])
def test_layer_and_group_norm_values_grads_and_versions_match_torch(name, shape, make):
    x0 = np.random.default_rng(9).normal(size=shape) * 2 + 1
    g0 = np.random.default_rng(10).normal(size=shape)

    def run(m):
        mod = make(m).double()
        with m.no_grad():  # non-trivial affine parameters, same on both
            for k, p in enumerate(mod.parameters()):
                p.copy_(m.tensor(np.random.default_rng(k).normal(size=tuple(p.shape))))
        x = m.tensor(x0, requires_grad=True)
        y = mod(x)
        (y * m.tensor(g0)).sum().backward()
        return mod, x, y

    (tm, tx, ty), (im, ix, iy) = both(run)
    close(ty, iy, 1e-9)
    close(tx.grad, ix.grad, 1e-8)
    for tp, ip in zip(tm.parameters(), im.parameters()):
        close(tp.grad, ip.grad, 1e-8)
        assert ip._version == tp._version
    assert iy.grad_fn.name() == ty.grad_fn.name()


def test_layer_norm_saves_its_input():
    for m in LIBS.values():
        x = m.randn(2, 4, requires_grad=True)
        h = x * 1
        y = m.nn.functional.layer_norm(h, (4,))
        h.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("norm", ["layer", "group"])
def test_layer_and_group_norm_keep_torchs_saved_tensors(norm):
    """native_layer_norm / native_group_norm save input, weight (layer norm: bias too) and
    each block's mean and 1/std as tensors of their own: the names, shapes and dtypes of
    ``_saved_*``, the order a pack hook sees them, and the bytes the graph keeps alive."""
    F = {m: m.nn.functional for m in (torch, it)}

    def run(m):
        rng = np.random.default_rng(3)
        x = m.tensor(rng.normal(size=(2, 3, 4)), requires_grad=True)
        w = m.tensor(rng.normal(size=4 if norm == "layer" else 3), requires_grad=True)
        b = m.tensor(rng.normal(size=4 if norm == "layer" else 3), requires_grad=True)
        packed = []
        with m.autograd.graph.saved_tensors_hooks(
                lambda t: (packed.append((tuple(t.shape), t is x, t is w, t is b)), t)[1],
                lambda t: t):
            y = F[m].layer_norm(x, (4,), w, b) if norm == "layer" else \
                F[m].group_norm(x, 1, w, b)
        fn = y.grad_fn
        saved = {n: getattr(fn, n) for n in ("_saved_input", "_saved_weight", "_saved_result1",
                                              "_saved_result2")}
        return packed, {n: (tuple(v.shape), str(v.dtype)) for n, v in saved.items()}, y, x

    (tp, ts, ty, tx), (ip, is_, iy, ix) = both(run)
    assert ip == tp and is_ == ts
    close(iy, ty, 1e-12)
    ty.sum().backward(), iy.sum().backward()
    close(ix.grad, tx.grad, 1e-10)
    import inplace_lab as il

    x = it.rand(2, 3, 4, requires_grad=True)
    before = il.memory_allocated()
    y = F[it].layer_norm(x, (4,)) if norm == "layer" else F[it].group_norm(x, 1)
    stats = 2 * (6 if norm == "layer" else 2) * 4  # mean and rstd, float32
    assert il.memory_allocated() - before == y.numel() * 4 + stats
    del y
    assert il.memory_allocated() == before


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_and_nll_keep_torchs_saved_tensors(training):
    """native_batch_norm keeps save_mean / save_invstd per channel in training (empty in eval),
    nll_loss its 0-dim total_weight: names, shapes, values, pack order, gradients."""
    def run(m):
        rng = np.random.default_rng(4)
        x = m.tensor(rng.normal(size=(4, 3, 2)), requires_grad=True)
        w = m.tensor(rng.normal(size=3), requires_grad=True)
        rm, rv = m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64)
        packed = []
        with m.autograd.graph.saved_tensors_hooks(
                lambda t: (packed.append((tuple(t.shape), t is x, t is w)), t)[1], lambda t: t):
            y = m.nn.functional.batch_norm(x, rm, rv, w, None, training=training)
            loss = m.nn.functional.nll_loss(y[:, :, 0].log_softmax(1), m.tensor([0, 2, -100, 1]))
        bn, nl = y.grad_fn, loss.grad_fn
        saved = [bn._saved_result1, bn._saved_result2, nl._saved_total_weight]
        loss.backward()
        return packed, saved, x.grad, w.grad

    (tp, ts, tx, tw), (ip, is_, ix, iw) = both(run)
    if not training:  # (in training torch also packs the running stats, which its kernel
        assert ip == tp  # updates unversioned and never checks: ours are not saved there)
    for a, b in zip(is_, ts):
        assert tuple(a.shape) == tuple(b.shape)
        close(a, b, 1e-12)
    close(ix, tx, 1e-10), close(iw, tw, 1e-10)


def test_logsigmoid_keeps_atens_buffer():
    """log_sigmoid_forward's buffer exp(-|x|), an input-sized tensor the graph keeps (CPU)."""
    x0 = np.array([[-800.0, -3.0, -0.0], [0.0, 2.0, 50.0]], np.float32)

    def run(m):
        x = m.tensor(x0, requires_grad=True)
        shapes = []
        with m.autograd.graph.saved_tensors_hooks(
                lambda t: (shapes.append((tuple(t.shape), t is x)), t)[1], lambda t: t):
            y = m.nn.functional.logsigmoid(x)
        buf = y.grad_fn._saved_buffer
        y.sum().backward()
        return shapes, buf, y, x.grad

    (ts, tb, ty, tg), (is_, ib, iy, ig) = both(run)
    assert is_ == ts
    close(ib, tb, 1e-7), close(iy, ty, 1e-6), close(ig, tg, 1e-7)
    import inplace_lab as il

    x = it.tensor(x0, requires_grad=True)
    before = il.memory_allocated()
    y = it.nn.functional.logsigmoid(x)
    assert il.memory_allocated() - before == 2 * x0.nbytes  # the result and the buffer


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.layer_norm(m.randn(2, 4), (5,)),
    lambda m: m.nn.functional.layer_norm(m.randn(2, 4), (4,), m.ones(3)),
    lambda m: m.nn.functional.group_norm(m.randn(2, 6, 3), 4),
    lambda m: m.nn.GroupNorm(4, 6),
])
def test_layer_and_group_norm_errors_match_torch(call):
    errs = []
    for m in (torch, it):
        with pytest.raises(Exception) as e:
            call(m)
        errs.append(e.value)
    assert isinstance(errs[1], type(errs[0])) and str(errs[1]) == str(errs[0])


# ---- 5. cross_entropy with probability targets --------------------------------------------------------

XC, TC = rng.normal(size=(4, 5)), rng.random(size=(4, 5))
TC /= TC.sum(1, keepdims=True)
WC = rng.random(5) + 0.5
CE = [({}, (4, 5)), ({"label_smoothing": 0.2}, (4, 5)), ({"weight": True}, (4, 5)),
      ({"weight": True, "label_smoothing": 0.1}, (4, 5)), ({"reduction": "sum"}, (4, 5)),
      ({"reduction": "none", "label_smoothing": 0.3, "weight": True}, (4, 5)),
      ({}, (5,)), ({"label_smoothing": 0.1}, (2, 5, 3)), ({"weight": True}, (2, 5, 3)),
      ({"reduction": "none"}, (2, 5, 3))]


@pytest.mark.parametrize("kw,shape", CE, ids=[f"{k}-{s}" for k, s in CE])
def test_cross_entropy_probability_targets_match_torch(kw, shape):
    g = np.random.default_rng(5)
    x0, t0 = g.normal(size=shape), g.random(size=shape)

    def run(m):
        x = m.tensor(x0, requires_grad=True)
        t = m.tensor(t0, requires_grad=True)
        k = dict(kw)
        if k.get("weight"):
            k["weight"] = m.tensor(WC)
        loss = m.nn.functional.cross_entropy(x, t, **k)
        (loss * m.tensor(np.arange(1.0, 1.0 + loss.numel()).reshape(tuple(loss.shape)))) \
            .sum().backward()
        return x, t, loss

    (tx, tt, tl), (ix, itt, il_) = both(run)
    close(tl, il_)
    close(tx.grad, ix.grad)
    close(tt.grad, itt.grad)
    assert chain(il_) == chain(tl)  # DivBackward1, MulBackward1, AddBackward1: no number edges


def test_cross_entropy_probability_target_errors_match_torch():
    calls = [
        lambda m: m.nn.functional.cross_entropy(m.randn(4, 5), m.ones(4, 5, dtype=m.int64)),
        lambda m: m.nn.functional.cross_entropy(m.randn(4, 5), m.rand(4, 5), ignore_index=0),
        lambda m: m.nn.functional.cross_entropy(m.randn(4, 5), m.rand(4, 5), label_smoothing=1.5),
        lambda m: m.nn.functional.cross_entropy(m.randn(4, 5), m.rand(4, 5), weight=m.ones(3)),
    ]
    for call in calls:
        errs = []
        for m in (torch, it):
            with pytest.raises(RuntimeError) as e:
                call(m)
            errs.append(str(e.value))
        assert errs[1] == errs[0]


def test_scalar_overloads_have_no_edge_for_the_number():
    from inplace_lab.ops import dispatch
    from inplace_lab.ops.elementwise import SCALAR

    x = it.ones(3, requires_grad=True) * 1
    tx = torch.ones(3, requires_grad=True) * 1
    for name in ("add", "sub", "mul", "div"):
        r = dispatch.call(SCALAR[name], (x, 4), {})
        t = getattr(torch.ops.aten, name).Scalar(tx, 4)
        close(t, r)
        assert chain(r) == chain(t)
