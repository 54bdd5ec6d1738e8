"""What the Paddle training-lesson sweep (paddle_program_builder_train) found, against paddle
3.3.1: BatchNorm with one value per channel in training copies its input through (and leaves
the running statistics alone), and leaky_relu's gradient at 0 is 1 (Paddle's functor
multiplies by ``alpha * (x < 0) + (x >= 0)``; PyTorch's selects the slope there)."""
from __future__ import annotations

import numpy as np

from ._functional_harness import same


def test_batch_norm_of_one_value_per_channel_copies_it_through():
    def fn(pd):
        bn = pd.nn.BatchNorm1D(3)
        x = pd.to_tensor([[0.9, 1.89, -0.1]], dtype="float32", stop_gradient=False)
        y = bn(x)
        (y * pd.to_tensor([[1.0, 2.0, 3.0]])).sum().backward()
        x2 = pd.to_tensor([[[0.5], [-1.0], [2.0]]], dtype="float32")
        return [y, x.grad, bn.weight.grad, bn.bias.grad, bn._mean, bn._variance, bn(x2),
                bn._mean]
    same(fn)


def test_leaky_relu_gradient_at_zero_and_nan():
    def fn(pd):
        x = pd.to_tensor([0.0, -1.0, 2.0, float("nan")], stop_gradient=False)
        pd.nn.functional.leaky_relu(x, 0.1).sum().backward()
        x2 = pd.to_tensor([0.0, -1.0, 2.0], stop_gradient=False)
        y = x2 * 1
        pd.nn.functional.leaky_relu_(y, 0.1)
        y.sum().backward()
        return [np.nan_to_num(x.grad.numpy(), nan=-7.0), x2.grad]
    a, b = (fn(__import__("paddle")), fn(__import__("inplace_lab.paddle", fromlist=["x"])))
    np.testing.assert_array_equal(a[0], b[0])
    same(lambda pd: fn(pd)[1])


def test_smooth_l1_keeps_its_residual():
    """Paddle's smooth_l1_loss is huber_loss, whose grad node keeps the residual (label -
    input) it computed: a later in-place write to the input, or an optimizer step on a
    parameter, changes neither a retained second backward nor raises (train sweep seed 837)."""
    def fn(pd):
        x = pd.to_tensor([0.5, -2.0, 3.0], stop_gradient=False)
        z = x * 1
        loss = pd.nn.functional.smooth_l1_loss(z, pd.zeros([3]), reduction="sum")
        with pd.no_grad():
            z.scale_(10.0)
        loss.backward()
        pd.seed(3)
        lin = pd.nn.Linear(3, 2)
        w = lin.weight
        loss2 = pd.nn.functional.smooth_l1_loss(w, pd.ones_like(w))
        loss2.backward(retain_graph=True)
        pd.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters(), weight_decay=0.01).step()
        loss2.backward()
        y = pd.to_tensor([0.0, 0.0, 1.0], stop_gradient=False)
        loss3 = pd.nn.functional.smooth_l1_loss(x, y, is_huber=False, delta=0.5)
        loss3.backward()
        return [loss, x.grad, w.grad, loss3, y.grad]
    same(fn)
