"""Random Paddle-style programs on paddle 3.3.1 and ``inplace_lab.paddle``, line by line.

``paddle_program_builder.build(seed)`` writes a short lesson program (leaves with
``stop_gradient=False``, views, Paddle's in-place ops and ``x[...] = v``, ``no_grad``,
``backward``/``paddle.grad``, integer tensors, wrong arguments now and then);
``paddle_program_sweep.difference`` runs it on both and after every line compares each named
tensor's values, shape, dtype, strides, offset, stop_gradient, is_leaf, inplace_version,
``.grad`` and buffer sharing, and the line's error. ``paddle_program_sweep.KNOWN`` lists the
differences known today, each with its reason.

``INPLACE_LAB_PADDLE_SWEEP=N`` runs N seeds (default 600, a few seconds; 1200 pass); a
failure prints the minimised program. ``python -m tests.differential.paddle_program_sweep N
[START]`` lists every difference of a range. Seed 1274 aborts Paddle 3.3.1 itself (a C++
abort in backward after ``loss.copy_(x)`` reshaped the loss), so ranges past it die there.
"""
from __future__ import annotations

import os

import pytest

paddle = pytest.importorskip("paddle")

import inplace_lab.paddle as lab  # noqa: E402
from tests.differential.paddle_program_builder import build  # noqa: E402
from tests.differential.paddle_program_sweep import KNOWN, difference, shrink  # noqa: E402

SEEDS = int(os.environ.get("INPLACE_LAB_PADDLE_SWEEP", "600"))
CHUNK = 25


@pytest.mark.parametrize("start", range(0, SEEDS, CHUNK))
def test_random_paddle_programs_match_paddle_line_by_line(start):
    for seed in range(start, min(start + CHUNK, SEEDS)):
        lines = build(seed)
        if difference(lines, paddle, lab) is None:
            continue
        small, d = shrink(lines, paddle, lab)
        program = "\n".join(small)
        pytest.fail(f"seed {seed}: line {d[0]} {d[1]}\n{program}\npaddle: {d[2]!r}\n"
                    f"inplace_lab: {d[3]!r}")


def test_builder_is_deterministic_and_varied():
    assert build(7) == build(7)
    text = "\n".join(line for s in range(100) for line in build(s))
    for needle in ("stop_gradient", "P.no_grad()", ".backward(", "P.grad(", "retain_graph",
                   "] = ", "+=", ".detach()", "P.unbind(", "P.split(", ".transpose(",
                   ".reshape(", ".scale_(", "F.relu_(", "clear_gradient", "P.assign("):
        assert needle in text, needle


def test_a_difference_is_found_and_minimised():
    """The sweep can fail: a stand-in whose ``scale_`` forgets to write is caught at that
    line, on the values, and the program shrinks to the lines that matter."""
    class Forgetful:
        Tensor = lab.Tensor

        def __getattr__(self, name):
            return getattr(lab, name)

        def to_tensor(self, *a, **k):
            t = lab.to_tensor(*a, **k)
            t.__class__ = _Forgets
            return t

    class _Forgets(lab.Tensor):
        __slots__ = ()

        def scale_(self, *a, **k):
            return self

    lines = ["a = 1", "t0 = P.to_tensor([1.0, 2.0])", "b = 2", "t0.scale_(3.0)"]
    assert difference(lines, paddle, lab) is None
    small, d = shrink(lines, paddle, Forgetful())
    assert d is not None and d[1].endswith("values")
    assert small == ["t0 = P.to_tensor([1.0, 2.0])", "t0.scale_(3.0)"]


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_known_differences_say_why(name):
    import inspect

    from tests.differential import paddle_program_sweep as sweep

    src = inspect.getsource(sweep)
    before = src[:src.index(f'"{name}":')].rstrip().splitlines()
    assert before[-1].lstrip().startswith("#"), f"KNOWN[{name!r}] has no comment"
