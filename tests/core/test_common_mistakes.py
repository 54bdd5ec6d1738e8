"""Common student mistakes raise what PyTorch raises: same type, same message.

Each program runs on torch 2.13 and on inplace_lab; either both succeed with the same
values, or both raise the same exception type with the same first line.
"""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402

CASES = {
    "add_shapes": lambda m: m.ones(2) + m.ones(3),
    "mul_shapes": lambda m: m.ones(2, 3).mul(m.ones(4)),
    "atan2_shapes": lambda m: m.ones(2).atan2(m.ones(3)),
    "maximum_shapes": lambda m: m.maximum(m.ones(2, 1, 3), m.ones(4, 2)),
    "eq_shapes": lambda m: m.ones(5) == m.ones(2),
    "reshape_size": lambda m: m.ones(2, 3).reshape(4),
    "index_oob": lambda m: m.ones(2, 3)[10],
    "cat_shapes": lambda m: m.cat([m.ones(2, 3), m.ones(2, 4)]),
    "sum_dim": lambda m: m.ones(2, 3).sum(dim=3),
    "ragged_list": lambda m: m.tensor([[1, 2], [3]]),
    "ragged_deep": lambda m: m.tensor([[[1], [2]], [[3]]]),
    "mixed_nesting": lambda m: m.tensor([[1, 2], 3]),
    "item_many": lambda m: m.ones(2).item(),
    "mm_shapes": lambda m: m.ones(2, 3).mm(m.ones(2, 3)),
    "matmul_shapes": lambda m: m.ones(2, 3) @ m.ones(2, 3),
    "stack_shapes": lambda m: m.stack([m.ones(2), m.ones(3)]),
    "view_noncontig": lambda m: m.ones(2, 3).t().view(6),
    "softmax_dim": lambda m: m.ones(2, 3).softmax(3),
    "int_requires_grad": lambda m: m.ones(2, dtype=m.int64, requires_grad=True),
    "float_index": lambda m: m.ones(3)[m.tensor([1.0])],
    "bool_ambiguous": lambda m: bool(m.ones(2)),
    "expand_size": lambda m: m.ones(2, 3).expand(3, 3),
    "transpose_dim": lambda m: m.ones(2, 3).transpose(0, 5),
    "int_floordiv_zero": lambda m: m.ones(2, dtype=m.int64) // m.zeros(2, dtype=m.int64),
    "int_remainder_zero": lambda m: m.ones(2, dtype=m.int64) % 0,
    "int_div_floor_zero": lambda m: m.ones(2, dtype=m.int64).div(0, rounding_mode="floor"),
    "bool_sub": lambda m: m.tensor([True]) - m.tensor([False]),
    "bool_neg": lambda m: -m.tensor([True]),
    "negative_size": lambda m: m.zeros(-1),
    "randn_int": lambda m: m.randn(2, dtype=m.int64),
    "rand_int": lambda m: m.rand(2, dtype=m.int32),
    "arange_sign": lambda m: m.arange(5, 0),
    "arange_zero_step": lambda m: m.arange(0, 5, 0),
    "dot_shapes": lambda m: m.ones(3).dot(m.ones(4)),
    "float_div_zero": lambda m: m.ones(2) / 0,
    "float_log_zero": lambda m: m.zeros(2).log(),
}


def _run(m, prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # see the subprocess test below
        try:
            return "ok", prog(m).tolist()
        except Exception as e:  # noqa: BLE001 - the comparison is the point
            return type(e).__name__, str(e).split("\n")[0]


@pytest.mark.parametrize("name", list(CASES))
def test_same_outcome_as_torch(name):
    ref = _run(torch, CASES[name])
    got = _run(il, CASES[name])
    if ref[0] == "ok" and got[0] == "ok":
        np.testing.assert_array_equal(np.array(got[1]), np.array(ref[1]))
    else:
        assert got == ref


def test_float_division_by_zero_prints_no_numpy_warning_in_a_plain_session():
    """PyTorch returns inf/nan silently; numpy's RuntimeWarnings must not reach the student.

    Run in a fresh interpreter: pytest resets warning filters around collection, so an
    in-process check would not see the filter inplace_lab installs at import.
    """
    import subprocess
    import sys

    code = ("import inplace_lab as il\n"
            "print((il.ones(2) / 0).tolist(), il.zeros(1).log().tolist(), "
            "(-il.ones(1)).sqrt().tolist(), (il.ones(1) // 0).tolist())")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[inf, inf] [-inf] [nan] [inf]"
    assert "RuntimeWarning" not in run.stderr
