"""The same MLP / CNN, same initial weights and batches, trained under torch 2.13 and
inplace_lab: losses and parameters agree to 1e-5 (float64) for every optimizer."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
import inplace_lab.nn as nn  # noqa: E402
import inplace_lab.optim as optim  # noqa: E402

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=1e-3)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=1e-2, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=1e-3, initial_accumulator_value=0.1)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=1e-3)),
]


def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(inplace=True), lib.nn.Linear(8, 8),
                             lib.nn.LeakyReLU(0.1, inplace=True), lib.nn.Linear(8, 3))


def _cnn(lib):
    n = lib.nn
    return n.Sequential(n.Conv2d(2, 4, 3, padding=1), n.BatchNorm2d(4), n.ReLU(inplace=True),
                        n.MaxPool2d(2), n.Conv2d(4, 4, 3, stride=1, groups=2, bias=False),
                        n.ELU(inplace=True), n.Flatten(), n.Linear(4, 3))


def _copy_weights(src, dst):
    """torch -> inplace_lab through numpy (same initial values in both libraries)."""
    sd = {k: il.tensor(v.detach().numpy().copy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(sd)


def _run(builder, opt_name, kw, x_np, y_np, steps=4):
    torch.manual_seed(0)
    tm = builder(torch).double()
    im = builder(il).double()
    _copy_weights(tm, im)
    topt = getattr(torch.optim, opt_name)(tm.parameters(), **kw)
    iopt = getattr(optim, opt_name)(im.parameters(), **kw)
    tloss_fn, iloss_fn = torch.nn.CrossEntropyLoss(), nn.CrossEntropyLoss()
    for s in range(steps):
        xb, yb = x_np[s], y_np[s]
        tl = tloss_fn(tm(torch.tensor(xb)), torch.tensor(yb))
        il_ = iloss_fn(im(il.tensor(xb)), il.tensor(yb))
        np.testing.assert_allclose(il_.item(), tl.item(), rtol=1e-5, atol=1e-7)
        topt.zero_grad()
        iopt.zero_grad()
        tl.backward()
        il_.backward()
        topt.step()
        iopt.step()
    for (tn, tp), (iname, ip) in zip(tm.state_dict().items(), im.state_dict().items()):
        assert tn == iname
        np.testing.assert_allclose(ip.numpy(), tp.numpy(), rtol=1e-5, atol=1e-7, err_msg=tn)


@pytest.mark.parametrize("opt_name,kw", OPTIMIZERS)
def test_mlp_training_matches_torch(opt_name, kw):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 16, 4))
    y = rng.integers(0, 3, size=(4, 16))
    _run(_mlp, opt_name, kw, x, y)


@pytest.mark.parametrize("opt_name,kw", OPTIMIZERS)
def test_cnn_training_matches_torch(opt_name, kw):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(3, 6, 2, 6, 6))
    y = rng.integers(0, 3, size=(3, 6))
    _run(_cnn, opt_name, kw, x, y, steps=3)
