"""paddle.Tensor and the paddle facade: names, flags, layers, and what stays PyTorch-style."""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
import inplace_lab.paddle as paddle
import inplace_lab.torch as torch
from inplace_lab import errors


def test_facade_tensors_are_paddle_tensors_and_results_inherit_the_class():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    for t in (x, x * 2, x.reshape([2, 1]), x[0], x.detach()):
        assert isinstance(t, paddle.Tensor) and t._policy == "paddle"
    (x * x).sum().backward()
    assert isinstance(x.grad, paddle.Tensor)


def test_pytorch_style_tensors_keep_pytorch_methods():
    t = il.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert not isinstance(t, paddle.Tensor)
    assert t.transpose(0, 1).shape == (2, 2)
    assert t.relu_() is t
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'relu_'"):
        paddle.to_tensor([1.0]).relu_()


def test_mixing_facades_in_one_op_is_a_clear_error():
    p, t = paddle.to_tensor([1.0]), torch.tensor([1.0])
    with pytest.raises(errors.FacadeMismatchError, match="cannot mix a tensor of the 'paddle' "
                                                         "facade with one of the 'pytorch'"):
        p + t
    with pytest.raises(errors.FacadeMismatchError):
        t.add_(p)
    assert t._version == 0


def test_stop_gradient_is_the_inverse_of_requires_grad():
    x = paddle.to_tensor([1.0])
    assert x.stop_gradient and not x.requires_grad
    x.stop_gradient = False
    assert x.requires_grad and x.is_leaf
    y = x * 2
    y.stop_gradient = True  # a non-leaf stays a non-leaf in Paddle (no error)
    assert y.stop_gradient


def test_inplace_version_is_read_only_and_shared_with_views():
    x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    v = x.reshape([2, 2])
    v.scale_(2.0)
    assert x.inplace_version == v._inplace_version() == 1
    with pytest.raises(AttributeError):
        x.inplace_version = 3


def test_names_follow_paddle():
    a = paddle.to_tensor([1.0])
    assert a.name.startswith("generated_tensor_")
    b = a * 2
    assert b.name.startswith("eager_tmp_") and b.name == b.name
    b.name = "mine"
    assert b.name == "mine"


def test_shape_place_size_numpy():
    x = paddle.to_tensor([[1.0, 2.0, 3.0]], stop_gradient=False)
    assert x.shape == [1, 3] and repr(x.shape) == "paddle.Size([1, 3])"
    assert str(x.place) == "Place(cpu)" and x.size == 3
    a = x.numpy()  # Paddle copies, and allows it on a tensor that needs grad
    a[0, 0] = 9
    assert x.numpy()[0, 0] == 1.0


def test_paddle_signatures_for_axis_and_perm():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(x.sum(axis=0).numpy(), [4.0, 6.0])
    np.testing.assert_allclose(x.transpose([1, 0]).numpy(), [[1.0, 3.0], [2.0, 4.0]])
    np.testing.assert_allclose(paddle.add(x, y=x).numpy(), [[2.0, 4.0], [6.0, 8.0]])
    assert x.flatten_(0, 1) is x and x.shape == [4] and x.inplace_version == 1


def test_cast_and_comparisons_change_dtype_in_place():
    x = paddle.to_tensor([1.0, 2.0])
    assert x.cast_("float64") is x and x.dtype is paddle.float64 and x.inplace_version == 1
    y = paddle.to_tensor([1.0, 2.0])
    y.equal_(paddle.to_tensor([1.0, 0.0]))
    assert y.dtype is paddle.bool and y.tolist() == [True, False]


def test_grad_underscore_reads_the_gradient():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * 3).sum().backward()
    assert x.grad_.tolist() == [3.0, 3.0]


def test_layer_collects_parameters_and_calls_forward():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([2])
            self.inner = paddle.nn.ReLU()

        def forward(self, x):
            return self.inner(x * self.w)

    net = Net()
    assert net.parameters() == [net.w] and not net.w.stop_gradient
    assert net.sublayers() == [net.inner]
    out = net(paddle.to_tensor([1.0, -1.0]))
    out.sum().backward()
    assert net.w.grad is not None


def test_functional_relu_and_relu_inplace():
    F = paddle.nn.functional
    x = paddle.to_tensor([-1.0, 2.0])
    y = F.relu(x)
    assert y is not x and x.inplace_version == 0
    assert F.relu_(x) is x and x.inplace_version == 1
    assert F.hardtanh(paddle.to_tensor([-3.0, 3.0]), min=-1.0, max=2.0).tolist() == [-1.0, 2.0]
