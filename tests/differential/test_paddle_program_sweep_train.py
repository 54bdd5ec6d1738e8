"""The Paddle sweep on ``paddle_program_builder_train``'s training lessons: ``paddle.nn``
layers, forward passes, losses and ``backward``, ``paddle.optimizer`` steps and ``clear_grad``,
and the writes between them, compared with paddle 3.3.1 line by line (``paddle_program_sweep``'s
fields and KNOWN differences).

``INPLACE_LAB_PADDLE_TRAIN_SWEEP=N`` runs N seeds (default 300); ``python -m
tests.differential.paddle_program_sweep --train N [START]`` lists every difference of a range.
"""
from __future__ import annotations

import os

import pytest

paddle = pytest.importorskip("paddle")

import inplace_lab.paddle as lab  # noqa: E402
from tests.differential.paddle_program_builder_train import build  # noqa: E402
from tests.differential.paddle_program_sweep import difference, shrink  # noqa: E402

SEEDS = int(os.environ.get("INPLACE_LAB_PADDLE_TRAIN_SWEEP", "300"))
CHUNK = 25


@pytest.mark.parametrize("start", range(0, SEEDS, CHUNK))
def test_paddle_training_programs_match_paddle_line_by_line(start):
    for seed in range(start, min(start + CHUNK, SEEDS)):
        lines = build(seed)
        if difference(lines, paddle, lab) is None:
            continue
        small, d = shrink(lines, paddle, lab)
        pytest.fail(f"seed {seed}: line {d[0]} {d[1]}\n" + "\n".join(small) +
                    f"\npaddle: {d[2]!r}\ninplace_lab: {d[3]!r}")


def test_paddle_train_builder_reaches_its_vocabulary():
    assert build(5) == build(5)
    text = "\n".join(line for s in range(200) for line in build(s))
    for needle in ("P.nn.Linear(", "P.nn.LayerNorm(", "P.optimizer.Adam(", "P.optimizer.Momentum(",
                   ".step()", ".clear_grad()", "F.cross_entropy(", "F.mse_loss(", ".set_value(",
                   "clear_gradient()", "with P.no_grad():", "retain_graph=True", ".eval()"):
        assert needle in text, needle
