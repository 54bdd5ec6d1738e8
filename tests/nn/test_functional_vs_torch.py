"""nn.functional vs torch 2.13: values, input/weight grads and grad_fn names (float64)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

import inplace_lab as il  # noqa: E402
import inplace_lab.nn.functional as F  # noqa: E402

rng = np.random.default_rng(0)


def pair(*arrays, grad=True):
    t = [torch.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    i = [il.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    return t, i


def check(tout, iout, tins, iins, name=True):
    np.testing.assert_allclose(iout.detach().numpy(), tout.detach().numpy(), rtol=1e-7, atol=1e-9)
    if name:
        assert iout.grad_fn.name() == tout.grad_fn.name()
    g = rng.normal(size=tuple(tout.shape))
    tout.backward(torch.tensor(g))
    iout.backward(il.tensor(g))
    for a, b in zip(tins, iins):
        if a.requires_grad:
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"dilation": 2, "padding": 2},
                                {"groups": 2, "stride": (1, 2)}, {"padding": "same"}])
def test_conv2d_matches_torch(kw):
    x, w, b = rng.normal(size=(2, 4, 7, 6)), rng.normal(size=(6, 4 // kw.get("groups", 1), 3, 3)), \
        rng.normal(size=6)
    (tx, tw, tb), (ix, iw, ib) = pair(x, w, b)
    check(TF.conv2d(tx, tw, tb, **kw), F.conv2d(ix, iw, ib, **kw), (tx, tw, tb), (ix, iw, ib))


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 2, "ceil_mode": True},
                                {"kernel_size": 2, "stride": 1, "dilation": 2}])
def test_max_pool2d_matches_torch(kw):
    (tx,), (ix,) = pair(rng.normal(size=(2, 3, 7, 7)))
    check(TF.max_pool2d(tx, **kw), F.max_pool2d(ix, **kw), (tx,), (ix,))


def test_max_pool2d_ties_route_grad_to_first_max_like_torch():
    (tx,), (ix,) = pair(np.zeros((1, 1, 4, 4)))
    check(TF.max_pool2d(tx, 2), F.max_pool2d(ix, 2), (tx,), (ix,))


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_torch_and_updates_running_stats(training):
    x, w, b = rng.normal(size=(5, 3, 4)), rng.normal(size=3), rng.normal(size=3)
    (tx, tw, tb), (ix, iw, ib) = pair(x, w, b)
    trm, trv = torch.zeros(3, dtype=torch.float64) + 0.5, torch.ones(3, dtype=torch.float64) * 2
    irm, irv = il.tensor(trm.numpy().copy()), il.tensor(trv.numpy().copy())
    check(TF.batch_norm(tx, trm, trv, tw, tb, training, 0.3),
          F.batch_norm(ix, irm, irv, iw, ib, training, 0.3), (tx, tw, tb), (ix, iw, ib))
    np.testing.assert_allclose(irm.numpy(), trm.numpy(), rtol=1e-12)
    np.testing.assert_allclose(irv.numpy(), trv.numpy(), rtol=1e-12)
    assert irm._version == trm._version == 0  # torch's kernel writes them out of band


def test_embedding_with_padding_idx_matches_torch():
    w = rng.normal(size=(5, 3))
    idx = np.array([[0, 2, 2], [4, 1, 0]])
    (tw,), (iw,) = pair(w)
    check(TF.embedding(torch.tensor(idx), tw, padding_idx=0),
          F.embedding(il.tensor(idx), iw, padding_idx=0), (tw,), (iw,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_torch(reduction):
    (ta, tb), (ia, ib) = pair(rng.normal(size=(4, 3)), rng.normal(size=(4, 3)))
    check(TF.mse_loss(ta, tb, reduction=reduction), F.mse_loss(ia, ib, reduction=reduction),
          (ta, tb), (ia, ib))


@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"},
                                {"ignore_index": 1}, {"weight": True},
                                {"weight": True, "ignore_index": 2, "reduction": "mean"}])
def test_nll_and_cross_entropy_match_torch(kw):
    x, t = rng.normal(size=(6, 4)), np.array([0, 1, 2, 3, 1, 2])
    w = rng.uniform(0.5, 2, size=4)
    for tfn, ifn in ((TF.nll_loss, F.nll_loss), (TF.cross_entropy, F.cross_entropy)):
        (tx,), (ix,) = pair(x)
        tk, ik = dict(kw), dict(kw)
        if kw.get("weight"):
            tk["weight"], ik["weight"] = torch.tensor(w), il.tensor(w)
        check(tfn(tx, torch.tensor(t), **tk), ifn(ix, il.tensor(t), **ik), (tx,), (ix,))


def test_cross_entropy_label_smoothing_spatial_and_probabilities_match_torch():
    x, t = rng.normal(size=(3, 4, 2, 2)), rng.integers(0, 4, size=(3, 2, 2))
    (tx,), (ix,) = pair(x)
    tl = TF.cross_entropy(tx, torch.tensor(t), label_smoothing=0.2)
    il_ = F.cross_entropy(ix, il.tensor(t), label_smoothing=0.2)
    np.testing.assert_allclose(il_.item(), tl.item(), rtol=1e-10)
    p = rng.dirichlet(np.ones(4), size=3)
    (tx, tp), (ix, ip) = pair(rng.normal(size=(3, 4)), p)
    # torch divides by a C++ scalar (DivBackward1), which Python's ``/`` cannot name
    check(TF.cross_entropy(tx, tp), F.cross_entropy(ix, ip), (tx, tp), (ix, ip), name=False)


@pytest.mark.parametrize("extra", [{}, {"weight": True}, {"pos_weight": True},
                                   {"reduction": "none"}])
def test_bce_with_logits_matches_torch(extra):
    x, y = rng.normal(size=(4, 3)) * 3, rng.uniform(size=(4, 3))
    (tx, ty), (ix, iy) = pair(x, y)
    tk, ik = {}, {}
    for k in ("weight", "pos_weight"):
        if extra.get(k):
            v = rng.uniform(0.5, 2, size=3)
            tk[k], ik[k] = torch.tensor(v), il.tensor(v)
    if "reduction" in extra:
        tk["reduction"] = ik["reduction"] = extra["reduction"]
    check(TF.binary_cross_entropy_with_logits(tx, ty, **tk),
          F.binary_cross_entropy_with_logits(ix, iy, **ik), (tx, ty), (ix, iy))


def test_linear_grad_fn_names_match_torch():
    (tx, tw, tb), (ix, iw, ib) = pair(rng.normal(size=(2, 5, 3)), rng.normal(size=(4, 3)),
                                      rng.normal(size=4))
    check(TF.linear(tx, tw, tb), F.linear(ix, iw, ib), (tx, tw, tb), (ix, iw, ib))
    assert F.linear(ix[0], iw, ib).grad_fn.name() == "AddmmBackward0"
    assert F.linear(ix[0], iw).grad_fn.name() == "MmBackward0"


def test_errors_match_torch_texts():
    with pytest.raises(RuntimeError, match=r"Given groups=1, weight of size \[4, 3, 3, 3\], "
                                           r"expected input\[2, 5, 5, 5\] to have 3 channels"):
        F.conv2d(il.randn(2, 5, 5, 5), il.randn(4, 3, 3, 3))
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        F.nll_loss(il.randn(2, 3), il.tensor([0, 3]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
        F.nll_loss(il.randn(2, 3), il.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target"):
        F.cross_entropy(il.randn(2, 3), il.tensor([0, 1, 1]))
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(il.tensor([5]), il.randn(3, 2))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(il.randn(1, 3), il.zeros(3), il.ones(3), training=True)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 5x4\)"):
        F.linear(il.randn(2, 3), il.randn(4, 5))


def test_relu_inplace_on_a_leaf_raises_torchs_leaf_error_and_leaves_data():
    x = il.tensor([-1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an "
                                           "in-place operation."):
        F.relu(x, inplace=True)
    assert x._version == 0 and x.tolist() == [-1.0, 2.0]


def test_inplace_activation_after_conv_is_free_but_after_sigmoid_breaks_backward():
    w = il.randn(2, 1, 3, 3, requires_grad=True)
    y = F.conv2d(il.randn(1, 1, 4, 4), w)
    r = F.relu(y, inplace=True)  # conv saved its input and weight, not its output
    assert r is y and y._version == 1
    r.sum().backward()
    s = il.randn(3, requires_grad=True).sigmoid()  # sigmoid saves its result
    F.elu(s, inplace=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()


def test_dropout_inplace_bumps_version_once_and_scales_survivors():
    il.manual_seed(0)
    x = il.ones(1000, dtype=il.float64)
    out = F.dropout(x, 0.25, training=True, inplace=True)
    assert out is x and x._version == 1
    vals = set(np.round(x.numpy(), 12).tolist())
    assert vals <= {0.0, round(1 / 0.75, 12)}
    assert 0.15 < (x.numpy() == 0).mean() < 0.35
    y = il.ones(4)
    assert F.dropout(y, 0.5, training=False) is y
    g = il.ones(3, requires_grad=True) * 1
    assert F.dropout(g, 0.5).grad_fn.name() == "MulBackward0"
