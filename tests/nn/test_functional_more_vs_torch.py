"""The rest of nn.functional vs torch 2.13: values, grads, grad_fn names, versions (float64)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

import inplace_lab as il  # noqa: E402
import inplace_lab.nn.functional as F  # noqa: E402

rng = np.random.default_rng(1)


def pair(*arrays, grad=True):
    t = [torch.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    i = [il.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    return t, i


def check(tout, iout, tins, iins, name=True, version=True):
    np.testing.assert_allclose(iout.detach().numpy(), tout.detach().numpy(), rtol=1e-7, atol=1e-10)
    assert iout.dtype.torch_name == {torch.float64: "Double", torch.float32: "Float",
                                     torch.int64: "Long"}[tout.dtype]
    if version:
        assert iout._version == tout._version
    if name:
        assert iout.grad_fn.name() == tout.grad_fn.name()
    g = rng.normal(size=tuple(tout.shape))
    tout.backward(torch.tensor(g))
    iout.backward(il.tensor(g))
    for a, b in zip(tins, iins):
        if a.requires_grad:
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-6, atol=1e-9)


def run(fn_name, arrays, *args, grad_mask=None, **kw):
    (ts, is_) = pair(*arrays)
    if grad_mask is not None:
        for t, i, m in zip(ts, is_, grad_mask):
            t.requires_grad_(m and t.is_floating_point())
            i.requires_grad_(m and i.is_floating_point())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tout = getattr(TF, fn_name)(*ts, *args, **kw)
        iout = getattr(F, fn_name)(*is_, *args, **kw)
    check(tout, iout, ts, is_)


# ---- pooling ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 3, "stride": 2, "padding": 1,
                                 "count_include_pad": False},
                                {"kernel_size": 2, "ceil_mode": True},
                                {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                                 "count_include_pad": False},
                                {"kernel_size": (2, 3), "divisor_override": 4}])
def test_avg_pool2d_matches_torch(kw):
    run("avg_pool2d", [rng.normal(size=(2, 3, 7, 8))], **kw)


def test_avg_pool2d_unbatched_and_avg_pool1d():
    run("avg_pool2d", [rng.normal(size=(3, 6, 6))], 2)
    run("avg_pool1d", [rng.normal(size=(2, 3, 9))], 3, 2, 1)
    run("avg_pool1d", [rng.normal(size=(3, 9))], 2, ceil_mode=True)


@pytest.mark.parametrize("size", [(2, 3), 3, (None, 2), 1, (5, 7)])
def test_adaptive_avg_pool2d_matches_torch(size):
    run("adaptive_avg_pool2d", [rng.normal(size=(2, 3, 7, 5))], size)


@pytest.mark.parametrize("size", [(2, 3), 3, (4, 4)])
def test_adaptive_max_pool2d_matches_torch(size):
    run("adaptive_max_pool2d", [rng.normal(size=(2, 3, 7, 5))], size)
    (tx,), (ix,) = pair(rng.normal(size=(3, 7, 5)))
    tv, ti = TF.adaptive_max_pool2d(tx, size, return_indices=True)
    iv, ii = F.adaptive_max_pool2d(ix, size, return_indices=True)
    np.testing.assert_array_equal(ii.numpy(), ti.numpy())
    assert ii.dtype is il.int64


def test_max_pool1d_is_unsqueeze_pool_squeeze():
    run("max_pool1d", [rng.normal(size=(2, 3, 9))], 2)
    run("max_pool1d", [rng.normal(size=(3, 9))], 3, 2, 1)


# ---- conv1d, pad -------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"dilation": 2, "padding": 2},
                                {"groups": 2}, {"padding": "same"}])
def test_conv1d_matches_torch(kw):
    g = kw.get("groups", 1)
    run("conv1d", [rng.normal(size=(2, 4, 9)), rng.normal(size=(6, 4 // g, 3)),
                   rng.normal(size=6)], **kw)


def test_conv1d_unbatched_and_no_bias():
    run("conv1d", [rng.normal(size=(4, 9)), rng.normal(size=(6, 4, 3))])


@pytest.mark.parametrize("p", [(1, 2), (1, 1, 2, 0), (-1, 2, 0, 1), (0, 0, 0, 0, 1, 1)])
def test_constant_pad_matches_torch(p):
    run("pad", [rng.normal(size=(2, 3, 4))], p, value=1.5)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape,p", [((2, 5), (2, 1)), ((2, 3, 5), (1, 3)),
                                     ((2, 3, 4, 5), (1, 2, 3, 0)), ((3, 4, 5), (2, 2, 1, 1)),
                                     ((1, 2, 3, 4, 5), (1, 1, 1, 1, 2, 2))])
def test_reflect_and_replicate_pad_match_torch(mode, shape, p):
    run("pad", [rng.normal(size=shape)], p, mode=mode)


def test_constant_pad_backward_is_differentiable_again():
    x = il.tensor(rng.normal(size=(2, 3)), requires_grad=True)
    gx = il.autograd.grad(F.pad(x, (1, 1)).pow(2).sum(), x, create_graph=True)[0]
    assert gx.grad_fn is not None
    np.testing.assert_allclose(gx.detach().numpy(), 2 * x.detach().numpy())


# ---- activations ----------------------------------------------------------------------------------

def test_logsigmoid_softsign_softmin_glu_prelu_match_torch():
    x = rng.normal(size=(4, 6)) * 5
    run("logsigmoid", [x])
    run("softsign", [x])
    run("softmin", [x], 1)
    run("glu", [x])
    run("glu", [x], 0)
    run("prelu", [x, np.array([0.25])])
    run("prelu", [rng.normal(size=(2, 3, 4)), rng.normal(size=3)])


def test_dropout2d_zeroes_whole_channels_and_scales_the_rest():
    x = il.ones(8, 16, 3, 3, requires_grad=True)
    y = F.dropout2d(x, 0.5)
    assert y.grad_fn.name() == "MulBackward0"
    per_channel = y.detach().numpy().reshape(8, 16, 9)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # one draw per channel
    assert F.dropout2d(x, 0.5, training=False) is x


def test_dropout2d_warns_like_torch_for_3d_input():
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input"):
        F.dropout2d(il.ones(2, 3, 4))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout2d(il.ones(2, 3, 4, 4), 1.5)


# ---- distances ------------------------------------------------------------------------------------

def test_cosine_similarity_pairwise_distance_normalize_match_torch():
    a, b = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    run("cosine_similarity", [a, b])
    run("cosine_similarity", [a, b[0]], 1)
    run("cosine_similarity", [a, b], 0, 1e-6)
    run("pairwise_distance", [a, b])
    run("pairwise_distance", [a, b], 1.0, keepdim=True)
    run("normalize", [a])
    run("normalize", [a], 1.0, 0)


def test_cosine_similarity_clamps_its_cloned_norms_in_place():
    (ta, tb), (ia, ib) = pair(np.zeros((2, 3)), rng.normal(size=(2, 3)))
    check(TF.cosine_similarity(ta, tb), F.cosine_similarity(ia, ib), (ta, tb), (ia, ib))


def test_one_hot_matches_torch():
    idx = np.array([[0, 3], [2, 1]])
    np.testing.assert_array_equal(F.one_hot(il.tensor(idx)).numpy(),
                                  TF.one_hot(torch.tensor(idx)).numpy())
    out = F.one_hot(il.tensor(idx), 6)
    assert out.dtype is il.int64 and tuple(out.shape) == (2, 2, 6)
    assert tuple(F.one_hot(il.tensor(np.zeros(0, dtype=np.int64)), 3).shape) == (0, 3)


def test_one_hot_of_a_torch_facade_tensor():
    """The facade's int64 is its own dtype object: one_hot must still take it (it raised)."""
    import inplace_lab.torch as T

    got = T.nn.functional.one_hot(T.tensor([0, 3, 3]), 4)
    want = TF.one_hot(torch.tensor([0, 3, 3]), 4)
    assert got.tolist() == want.tolist() and str(got.dtype) == str(want.dtype)
    with pytest.raises(RuntimeError, match="LongTensor"):
        T.nn.functional.one_hot(T.tensor([0, 1], dtype=T.int32), 2)


@pytest.mark.parametrize("case", ["nll", "nll_nd", "ce", "ce_smooth"])
def test_a_class_weight_that_requires_grad_is_refused_as_torch(case):
    import inplace_lab.torch as T

    outs = []
    for M in (torch, T):
        F_ = M.nn.functional
        x = M.tensor(np.linspace(-1, 1, 20, dtype=np.float32).reshape(4, 5), requires_grad=True)
        w = M.tensor([0.5, 1.0, 2.0, 1.0, 0.25], requires_grad=True)
        t = M.tensor([1, 0, 3, 2])
        run = {"nll": lambda: F_.nll_loss(x, t, weight=w),
               "nll_nd": lambda: F_.nll_loss(x.reshape(2, 5, 2), t.reshape(2, 2), weight=w),
               "ce": lambda: F_.cross_entropy(x, t, weight=w),
               "ce_smooth": lambda: F_.cross_entropy(x, t, weight=w, label_smoothing=0.1)}[case]
        with pytest.raises(RuntimeError) as e:
            run()
        outs.append(str(e.value))
        with M.no_grad():
            assert run().grad_fn is None  # (no_grad: no refusal)
    assert outs[1] == outs[0]
