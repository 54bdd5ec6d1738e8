"""The array-level backward formulas (ops/backward_arrays.py) give the very gradients of the
tensor formulas they shortcut: bit for bit, same dtype, shape and strides, for every op that
has one, with broadcasting, numbers as arguments and several dtypes; and the lane is really
taken (counted), and left for create_graph, hooks and mixed dtypes."""
import numpy as np
import pytest

import inplace_lab as il
from inplace_lab.ops.table import OPS

ARRAY_OPS = sorted(n for n, s in OPS.items() if s.backward_array is not None)


def test_the_hot_ops_have_array_formulas():
    assert set(ARRAY_OPS) >= {"add", "sub", "mul", "div", "neg", "exp", "log", "sin", "cos",
                              "tanh", "sigmoid", "relu", "mm", "pow"}


def _programs(dt):
    """(op name, program(x, y) -> loss) with x (3,4) and y (4,) / (1,4) / (4,5): broadcasting."""
    return [
        ("add", lambda x, y: x + y), ("add", lambda x, y: il.add(x, y, alpha=2.5)),
        ("add", lambda x, y: x + 3), ("sub", lambda x, y: x - y), ("sub", lambda x, y: y - x),
        ("sub", lambda x, y: il.sub(x, y, alpha=3)), ("mul", lambda x, y: x * y),
        ("mul", lambda x, y: x * 1.5), ("mul", lambda x, y: x * x),
        ("div", lambda x, y: x / y), ("div", lambda x, y: x / 3), ("neg", lambda x, y: -x * y),
        ("exp", lambda x, y: (x * y).exp()), ("log", lambda x, y: (x * x + y).log()),
        ("sin", lambda x, y: x.sin() * y), ("cos", lambda x, y: (x + y).cos()),
        ("tanh", lambda x, y: (x * y).tanh()), ("sigmoid", lambda x, y: (x - y).sigmoid()),
        ("relu", lambda x, y: (x - y).relu()), ("pow", lambda x, y: x ** 2 * y),
        ("pow", lambda x, y: x.abs() ** 0.5), ("pow", lambda x, y: x ** 0 + y),
        ("mm", lambda x, y: x.mm(y.reshape(4, 1) * il.ones(1, 5, dtype=dt))),
    ]


def _grads(prog, dt, use_arrays, gy_shape):
    rng = np.random.default_rng(0)
    x = il.tensor(rng.uniform(0.5, 2.0, (3, 4)).astype(dt.np), requires_grad=True)
    y = il.tensor(rng.uniform(0.5, 2.0, gy_shape).astype(dt.np), requires_grad=True)
    saved = {n: OPS[n].backward_array for n in ARRAY_OPS}
    taken = []
    try:
        for n in ARRAY_OPS:
            f = saved[n]
            OPS[n].backward_array = (lambda node, g, f=f: taken.append(f(node, g)) or taken[-1]) \
                if use_arrays else None
        out = prog(x, y)
        out.backward(il.ones_like(out) * 0.75)
    finally:
        for n in ARRAY_OPS:
            OPS[n].backward_array = saved[n]
    return x.grad, y.grad, sum(t is not None for t in taken)


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride() and \
        np.array_equal(a.numpy(), b.numpy(), equal_nan=True) and \
        np.array_equal(np.signbit(a.numpy()), np.signbit(b.numpy()))


@pytest.mark.parametrize("dt", [il.float32, il.float64, il.float16], ids=str)
@pytest.mark.parametrize("gy_shape", [(4,), (1, 4), (3, 4)], ids=str)
def test_array_formulas_equal_tensor_formulas(dt, gy_shape):
    for name, prog in _programs(dt):
        if name == "mm" and gy_shape == (3, 4):
            continue
        ax, ay, n_taken = _grads(prog, dt, True, gy_shape)
        tx, ty, _ = _grads(prog, dt, False, gy_shape)
        assert n_taken > 0, name
        assert _same(ax, tx) and _same(ay, ty), (name, dt, gy_shape)


def test_lane_left_for_create_graph_hooks_and_mixed_dtypes():
    x = il.tensor([0.5, 1.0], requires_grad=True)
    calls = []
    f = OPS["tanh"].backward_array
    OPS["tanh"].backward_array = lambda node, g: calls.append(f(node, g)) or calls[-1]
    try:
        y = x.tanh()
        (g,) = il.autograd.grad(y.sum(), x, create_graph=True)
        assert calls == [None] and g.requires_grad  # create_graph: declined, recorded formula
        y = x.tanh()
        y.grad_fn.register_hook(lambda gi, go: None)
        y.sum().backward()
        assert calls == [None]  # a hooked node is never offered the lane (node._extra)
        y = x.tanh()
        y.backward(il.tensor([1.0, 1.0], dtype=il.float64))
        assert calls == [None, None]  # float64 gradient into a float32 node: declined
        y = x.tanh()
        y.sum().backward()
        assert calls[-1] is not None
    finally:
        OPS["tanh"].backward_array = f


def test_saved_tensor_version_check_still_runs():
    x = il.tensor([0.5, 1.0], requires_grad=True)
    y = x.tanh()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("facade", ["torch", "paddle"])
def test_facade_tensors_take_the_array_lane_and_keep_their_class(facade):
    """A facade's nodes run the array formulas too; the gradients are that facade's tensors,
    bit for bit the tensor formulas' (which are what runs with the lane switched off)."""
    import importlib

    lib = importlib.import_module(f"inplace_lab.{facade}")
    make = lib.to_tensor if facade == "paddle" else lib.tensor
    out = []
    for use_arrays in (True, False):
        saved = {n: OPS[n].backward_array for n in ARRAY_OPS}
        taken = []
        try:
            for n in ARRAY_OPS:
                f = saved[n]
                OPS[n].backward_array = (lambda node, g, f=f: taken.append(f(node, g)) or
                                         taken[-1]) if use_arrays else None
            rng = np.random.default_rng(3)
            x = make(rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32), stop_gradient=False) \
                if facade == "paddle" else make(rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32),
                                                 requires_grad=True)
            y = ((x * 1.5 + 0.25).tanh() - x).exp() * x
            y.sum().backward()
        finally:
            for n in ARRAY_OPS:
                OPS[n].backward_array = saved[n]
        assert type(x.grad) is type(x) and x.grad._pol == x._pol
        out.append((x.grad, sum(t is not None for t in taken)))
    (ga, n_arrays), (gt, n_tensor) = out
    assert n_arrays >= 6 and n_tensor == 0
    assert np.array_equal(ga.numpy(), gt.numpy())
