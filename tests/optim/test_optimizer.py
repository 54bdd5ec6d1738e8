"""Optimizers update parameters in place under no_grad; zero_grad; state dicts; a classifier trains."""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
import inplace_lab.nn as nn
import inplace_lab.optim as optim


def _step(opt_cls, **kw):
    p = nn.Parameter(il.tensor([1.0, -2.0]))
    opt = opt_cls([p], **kw)
    (p * p).sum().backward()
    st = p.untyped_storage()
    opt.step()
    return p, st, opt


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam, optim.AdamW, optim.Adagrad, optim.RMSprop])
def test_step_writes_into_the_same_storage_and_bumps_the_version(cls):
    p, st, opt = _step(cls, lr=0.1)
    assert p.untyped_storage() is st and p.is_leaf and p.grad_fn is None
    assert p._version == (2 if cls is optim.AdamW else 1)  # AdamW: mul_ (decay), then addcdiv_


def test_sgd_value_and_momentum_buffer_is_updated_in_place():
    p, _, opt = _step(optim.SGD, lr=0.1, momentum=0.9)
    assert p.tolist() == pytest.approx([0.8, -1.6])
    buf = opt.state[p]["momentum_buffer"]
    opt.step()
    assert opt.state[p]["momentum_buffer"] is buf and buf._version == 2  # mul_ then add_


def test_zero_grad_default_sets_none():
    p, _, opt = _step(optim.SGD, lr=0.1)
    opt.zero_grad()
    assert p.grad is None


def test_step_with_grad_mode_on_outside_would_be_a_leaf_error_but_step_runs_under_no_grad():
    p = nn.Parameter(il.ones(2))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        p.add_(il.ones(2), alpha=-0.1)
    p.grad = il.ones(2)
    optim.SGD([p], lr=0.1).step()
    assert p.tolist() == pytest.approx([0.9, 0.9])


def test_state_dict_round_trip_continues_identically():
    def run(resume):
        il.manual_seed(0)
        p = nn.Parameter(il.tensor([1.0, 2.0, 3.0], dtype=il.float64))
        opt = optim.Adam([p], lr=0.1)
        for k in range(4):
            if resume and k == 2:
                sd = opt.state_dict()
                opt = optim.Adam([p], lr=0.1)
                opt.load_state_dict(sd)
            opt.zero_grad()
            (p ** 3).sum().backward()
            opt.step()
        return p.tolist(), opt.state_dict()

    (a, sda), (b, _) = run(False), run(True)
    assert a == b
    assert list(sda["state"]) == [0] and sda["param_groups"][0]["params"] == [0]
    assert sda["state"][0]["step"].item() == 4


def test_invalid_arguments_raise_torchs_errors():
    p = [nn.Parameter(il.ones(1))]
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD(p, lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD(p, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.Adam([])


def test_small_cnn_classifier_reaches_95_percent_on_synthetic_bars():
    """Vertical vs horizontal bars in noisy 8x8 images: >= 95% test accuracy in a few epochs."""
    from inplace_lab.utils.data import DataLoader, Generator, TensorDataset

    rng = np.random.default_rng(0)

    def make(n):
        y = rng.integers(0, 2, size=n)
        x = rng.normal(scale=0.3, size=(n, 1, 8, 8))
        pos = rng.integers(1, 7, size=n)
        for k in range(n):
            if y[k]:
                x[k, 0, :, pos[k]] += 1.0
            else:
                x[k, 0, pos[k], :] += 1.0
        return il.tensor(x, dtype=il.float32), il.tensor(y)

    xtr, ytr = make(512)
    xte, yte = make(256)
    il.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64, 2))
    opt = optim.Adam(model.parameters(), lr=0.02)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True,
                        generator=Generator().manual_seed(0))
    for _ in range(4):
        for xb, yb in loader:
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()
    model.eval()
    with il.no_grad():
        acc = (model(xte).argmax(1) == yte).float().mean().item()
    assert acc >= 0.95
