"""utils.checkpoint against torch 2.13: same grads and grad_fn as without it, fewer bytes at peak."""
import gc
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab as il
import inplace_lab.torch as it
from inplace_lab.utils.checkpoint import checkpoint


def _seg(T):
    def f(a, w):
        h = (a @ w).tanh()
        h = (h @ w).sin() * h
        return (h @ w).exp()
    return f


def _run(T, ckpt, reentrant):
    from torch.utils.checkpoint import checkpoint as tc
    rng = np.random.default_rng(0)
    x = T.tensor(rng.standard_normal((4, 5)), requires_grad=True)
    w = T.tensor(rng.standard_normal((5, 5)) / 3, requires_grad=True)
    f = _seg(T)
    cp = tc if T is torch else checkpoint
    y = cp(f, x, w, use_reentrant=reentrant) if ckpt else f(x, w)
    name = type(y.grad_fn).__name__
    (y * y).sum().backward()
    return x.grad.tolist(), w.grad.tolist(), name


@pytest.mark.parametrize("reentrant", [False, True])
def test_same_grads_as_torch_and_as_without(reentrant):
    gx, gw, name = _run(it, True, reentrant)
    tx, tw, tname = _run(torch, True, reentrant)
    px, pw, _ = _run(it, False, reentrant)
    np.testing.assert_allclose(gx, tx, rtol=1e-12)
    np.testing.assert_allclose(gw, tw, rtol=1e-12)
    np.testing.assert_allclose(gx, px, rtol=1e-12)
    np.testing.assert_allclose(gw, pw, rtol=1e-12)
    assert name == tname  # ExpBackward0 / CheckpointFunctionBackward


def test_missing_use_reentrant_warns_like_torch():
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        y = checkpoint(lambda a: a * 2, it.ones(2, requires_grad=True))
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"


def _peak(ckpt):
    gc.collect()  # (earlier tests' cycles freed now, not in the middle of the measurement)
    x = it.randn(256, 256, requires_grad=True)

    def block(a):
        for _ in range(3):
            a = a.tanh().sin()
        return a

    il.reset_peak_memory_stats()
    base = il.memory_allocated()
    y = x
    for _ in range(4):  # four segments: backward recomputes one at a time
        y = checkpoint(block, y, use_reentrant=False) if ckpt else block(y)
    after_forward = il.memory_allocated() - base
    y.sum().backward()
    del y
    assert il.memory_allocated() - base == 256 * 256 * 4  # only x.grad is left
    return after_forward, il.max_memory_allocated() - base, x.grad


def test_checkpoint_keeps_less_memory():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept_plain, peak_plain, _ = _peak(False)
        kept_ckpt, peak_ckpt, _ = _peak(True)
    assert kept_ckpt == 4 * 256 * 256 * 4  # only the four segment outputs stay
    assert kept_plain > 3 * kept_ckpt  # not every saved activation
    assert peak_ckpt < 0.75 * peak_plain  # one segment's activations at a time, not all four



def test_retain_graph_backward_twice_reruns():
    runs = []

    def seg(a):
        runs.append(1)
        return (a.sin() * a).exp()

    results = []
    for T, cp in ((it, checkpoint), (torch, None)):
        from torch.utils.checkpoint import checkpoint as tc
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
        y = (cp or tc)(seg, x, use_reentrant=False).sum()
        y.backward(retain_graph=True)
        y.backward()
        results.append((x.grad.tolist(), len(runs)))
        runs.clear()
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    assert results[0][1] == results[1][1] == 3  # forward, then one rerun per backward


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_sequential_as_torch(reentrant):
    """Same output, grad_fn and gradients as torch's checkpoint_sequential over a Sequential,
    and the same refusal of unknown keywords and warning without use_reentrant."""
    def run(T):
        from torch.utils.checkpoint import checkpoint_sequential as tcs

        from inplace_lab.utils.checkpoint import checkpoint_sequential as ics
        cs = tcs if T is torch else ics
        rng = np.random.default_rng(1)
        layers = [T.nn.Linear(4, 4), T.nn.Tanh(), T.nn.Linear(4, 4), T.nn.ReLU(),
                  T.nn.Linear(4, 2)]
        with T.no_grad():
            for m in layers:
                for p in m.parameters():
                    p.copy_(T.tensor(rng.standard_normal(tuple(p.shape))))
        model = T.nn.Sequential(*layers).double()
        x = T.tensor(rng.standard_normal((3, 4)), requires_grad=True)
        y = cs(model, 2, x, use_reentrant=reentrant)
        y.sum().backward()
        try:
            cs(model, 2, x, use_reentrant=reentrant, bogus=1)
            err = None
        except ValueError as e:
            err = str(e)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            cs(list(model.children()), 3, x)
        return (y.detach().numpy(), type(y.grad_fn).__name__, x.grad.numpy(),
                [p.grad.numpy() for p in model.parameters()], err, [str(m.message) for m in w])

    t, i = run(torch), run(it)
    np.testing.assert_allclose(i[0], t[0], rtol=1e-12)
    assert i[1] == t[1] and i[4] == t[4] and i[5] == t[5]
    np.testing.assert_allclose(i[2], t[2], rtol=1e-12)
    for a, b in zip(i[3], t[3]):
        np.testing.assert_allclose(a, b, rtol=1e-12)
