"""The three in-place policies: switching them, and what each allows, refuses and says.

tests/differential/test_paddle_policy_vs_paddle.py checks the "paddle" policy against
paddle 3.3.1 itself; these tests pin the rules without the oracle, plus "paddle-legacy"
(Paddle before 2.6, which no installed paddle can show).
"""
from __future__ import annotations

import math

import pytest

import inplace_lab as il
from inplace_lab import errors


@pytest.fixture(autouse=True)
def _restore_policy():
    prev = il.get_inplace_policy()
    yield
    il.set_inplace_policy(prev)


def test_default_policy_is_pytorch_and_set_switches_it():
    assert il.get_inplace_policy() == "pytorch"
    il.set_inplace_policy("paddle")
    assert il.get_inplace_policy() == "paddle"


def test_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="unknown in-place policy 'tf'"):
        il.set_inplace_policy("tf")


def test_policy_block_restores_the_previous_policy_even_after_an_error():
    with pytest.raises(RuntimeError):
        with il.inplace_policy("paddle-legacy"):
            assert il.get_inplace_policy() == "paddle-legacy"
            raise RuntimeError("boom")
    assert il.get_inplace_policy() == "pytorch"


# ---- paddle --------------------------------------------------------------------------------

@pytest.mark.parametrize("name, shown", [(None, ""), ("weight", "weight")])
def test_paddle_leaf_inplace_is_a_value_error_naming_the_tensor(name, shown):
    x = il.tensor([1.0, 2.0], requires_grad=True)
    x.name = name
    with il.inplace_policy("paddle"), pytest.raises(ValueError) as e:
        x.exp_()
    assert str(e.value) == (f"(InvalidArgument) Leaf Var ({shown}) that doesn't stop gradient "
                            "can't use inplace strategy.")
    assert isinstance(e.value, errors.LeafInplaceError) and e.value.policy == "paddle"
    assert x.tolist() == [1.0, 2.0] and x._version == 0


def test_paddle_leaf_setitem_says_leaf_tensor():
    x = il.tensor([1.0, 2.0], requires_grad=True)
    with il.inplace_policy("paddle"), pytest.raises(ValueError, match=r"^\(InvalidArgument\) Leaf "
                                                    r"Tensor \(\) that doesn't stop gradient"):
        x[0] = 3.0


def test_paddle_view_of_leaf_is_written_silently_without_rebase():
    with il.inplace_policy("paddle"):
        x = il.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x[1:].mul_(il.tensor(2.0))
        assert x.tolist() == [1.0, 4.0, 6.0] and x._version == 1
        (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_paddle_row_inplace_does_not_rewrite_the_base():
    with il.inplace_policy("paddle"):
        a = il.tensor([[1.0, 1.0], [1.0, 1.0]], requires_grad=True)
        b = a * 1
        b[0].mul_(il.tensor(2.0))
        b.sum().backward()
    assert a.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_paddle_setitem_on_a_non_leaf_zeroes_the_written_gradient():
    with il.inplace_policy("paddle"):
        x = il.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 3
        y[0] = 0.0
        y.sum().backward()
    assert x.grad.tolist() == [0.0, 3.0, 3.0]


def test_paddle_saved_tensor_error_prints_no_name():
    with il.inplace_policy("paddle"):
        x = il.tensor([1.0, 2.0], requires_grad=True)
        z = x.exp()
        z.name = "z"
        z.add_(il.tensor(1.0))
        with pytest.raises(RuntimeError) as e:
            z.sum().backward()
    assert str(e.value).startswith("(PermissionDenied) Tensor '' used in gradient computation has "
                                   "been modified by an inplace operation. Its version is 1 but "
                                   "the expected version is 0.")


def test_paddle_non_scalar_backward_uses_ones():
    with il.inplace_policy("paddle"):
        x = il.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_paddle_sin_inplace_clones_its_input_like_paddle_2_6():
    with il.inplace_policy("paddle"):
        x = il.tensor([0.5, 1.0], requires_grad=True)
        y = x * 1
        y.sin_()
        y.sum().backward()
    assert x.grad.tolist() == pytest.approx([math.cos(0.5), math.cos(1.0)], rel=1e-6)


# ---- paddle-legacy ---------------------------------------------------------------------------

def test_legacy_refuses_inplace_ops_whose_backward_needs_the_input():
    with il.inplace_policy("paddle-legacy"):
        x = il.tensor([0.5, 1.0], requires_grad=True)
        y = x * 1
        with pytest.raises(errors.LegacyInplaceUnsupportedError) as e:
            y.sin_()
    msg = str(e.value)
    assert msg.startswith("(Unimplemented) sin_ has no in-place form before Paddle 2.6")
    assert "paddle.sin(x)" in msg and "needs the value of x" in msg
    assert y.tolist() == [0.5, 1.0] and y._version == 0 and isinstance(e.value, RuntimeError)


def test_legacy_names_paddles_out_of_place_op():
    with il.inplace_policy("paddle-legacy"):
        w = il.tensor([2.0, 3.0], requires_grad=True)
        y = w * 1
        with pytest.raises(errors.LegacyInplaceUnsupportedError, match=r"paddle\.multiply\(x, y\)"):
            il.tensor([1.0, 1.0]).mul_(y)


def test_legacy_allows_ops_that_need_only_their_result_or_nothing():
    with il.inplace_policy("paddle-legacy"):
        x = il.tensor([0.5, 1.0], requires_grad=True)
        y = x * 1
        y.exp_()
        y.mul_(2.0)  # mul by a constant saves nothing
        y.add_(il.tensor(1.0))
        with pytest.raises(RuntimeError, match=r"^\(PermissionDenied\)"):
            y.sum().backward()  # exp's saved result was modified: Paddle's saved-tensor error


def test_legacy_allows_anything_when_nothing_is_recorded():
    with il.inplace_policy("paddle-legacy"):
        x = il.tensor([0.5, 1.0], requires_grad=True)
        y = x * 1
        with il.no_grad():
            y.sin_()
        plain = il.tensor([0.5])
        plain.sin_()
    assert y._version == 1 and plain._version == 1
