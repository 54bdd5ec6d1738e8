"""The program sweep on ``program_builder_train``'s training lessons: small ``nn`` modules,
forward passes, losses and backward, optimizers' step and zero_grad, and the writes a
student makes between them (to parameters, running statistics, ``.grad``), compared with
torch 2.13 line by line. Known differences are ``program_sweep.KNOWN``'s, and the float32
rounding pinned below.

``INPLACE_LAB_TRAIN_SWEEP=N`` runs N seeds (default 500, about 15 s); a failure prints the
minimised program. ``python -m tests.differential.program_sweep --train N [START]`` lists every
difference from START on.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from tests.differential.program_builder_train import build
from tests.differential.program_sweep import first_failure

torch = pytest.importorskip("torch")
ilt = pytest.importorskip("inplace_lab.torch")

SEEDS = int(os.environ.get("INPLACE_LAB_TRAIN_SWEEP", "500"))
CHUNK = 50


@pytest.mark.parametrize("start", range(0, SEEDS, CHUNK))
def test_training_programs_match_torch_line_by_line(start):
    report = first_failure(build, range(start, min(start + CHUNK, SEEDS)), torch, ilt)
    assert report is None, report


def test_train_builder_reaches_its_vocabulary():
    assert build(7) == build(7)
    text = "\n".join(line for s in range(300) for line in build(s))
    for needle in ("T.nn.Linear(", "inplace=True", "T.nn.BatchNorm1d(", "T.nn.LayerNorm(",
                   "T.nn.Conv2d(", "T.nn.MaxPool2d(", ".reshape(2, 1, 5, 5)",
                   "T.nn.Embedding(", "padding_idx=0", "lr_scheduler.StepLR(",
                   "T.optim.Adam(", "momentum=0.9", ".step()", ".zero_grad(", "cross_entropy(",
                   "label_smoothing", "clip_grad_norm_(", ".running_mean", ".data.add_(",
                   "with T.no_grad():", ".backward(retain_graph=True)", "T.autograd.grad(",
                   ".double()", ".eval()"):
        assert needle in text, needle


# ---- float32 rounding the sweep found and inplace_lab does not replay (strict: a fix fails) ------

def _layer_norm_grad(L):
    L.manual_seed(595)
    m1 = L.nn.Sequential(L.nn.Linear(3, 3), L.nn.Hardtanh(inplace=True))
    t6 = m1[0].bias
    t7 = L.nn.LayerNorm(3)(t6.float())
    t7.pow(2).sum().backward()
    return t6.grad.numpy()


@pytest.mark.xfail(strict=True, reason="seed 595: layer norm's input gradient in float32, where "
                   "the row's gradient cancels: ATen's reductions and fused multiply-adds in "
                   "layer_norm_backward_frame are not replayed (the forward is, bit for bit)")
def test_known_layer_norm_gradient_rounding():
    np.testing.assert_allclose(_layer_norm_grad(ilt), _layer_norm_grad(torch), rtol=1e-5,
                               atol=1e-6)


def _adam_on_a_constant_loss(L):
    L.manual_seed(401)
    x = L.tensor([[-1.14, -0.33, 0.9, 1.81], [-0.04, -0.84, 1.38, -1.44]])
    m = L.nn.Sequential(L.nn.Linear(4, 3), L.nn.Softmax(dim=-1))
    m(x).sum().backward()  # (a sum of softmaxes is constant: its gradients are rounding noise)
    L.optim.Adam(m.parameters(), lr=0.01).step()
    return m(x).detach().numpy()


@pytest.mark.xfail(strict=True, reason="seed 2401: Adam normalises gradients that are float32 "
                   "rounding noise (the loss is constant), so the step follows the noise's signs")
def test_known_adam_amplifies_rounding_noise():
    np.testing.assert_allclose(_adam_on_a_constant_loss(ilt), _adam_on_a_constant_loss(torch),
                               rtol=1e-5, atol=1e-6)
