"""Paddle's grad node names, and its error when backward reaches a released node.

``y.grad_fn.name()`` of a Paddle tensor is Paddle's kernel name + ``GradNode``: ``x * y`` is
MultiplyGradNode, but ``x * 2`` (a Python number) is ScaleGradNode, ``clone`` is
AssignGradNode, a reshape ReshapeGradNode, a leaf's node GradNodeAccumulation. A second
backward without ``retain_graph`` fails at the first released node it reaches, whatever
that node saved: SystemError ``(Fatal) The TensorWrappers of <name> do not exist...``.
"""
import warnings

import pytest

paddle = pytest.importorskip("paddle")
warnings.filterwarnings("ignore")

import inplace_lab.paddle as lab  # noqa: E402

OPS = {
    "x*2": lambda L, x, y: x * 2, "x+1": lambda L, x, y: x + 1, "x-y": lambda L, x, y: x - y,
    "x*y": lambda L, x, y: x * y, "x+y": lambda L, x, y: x + y, "x/y": lambda L, x, y: x / y,
    "x/2": lambda L, x, y: x / 2, "1-x": lambda L, x, y: 1.0 - x, "neg": lambda L, x, y: -x,
    "x**y": lambda L, x, y: x ** y, "pow": lambda L, x, y: x.pow(2),
    "square": lambda L, x, y: x.square(), "exp": lambda L, x, y: x.exp(),
    "sum": lambda L, x, y: x.sum(), "mean": lambda L, x, y: x.mean(),
    "reshape": lambda L, x, y: x.reshape([3, 2]), "transpose": lambda L, x, y: x.transpose([1, 0]),
    "t": lambda L, x, y: x.t(), "relu": lambda L, x, y: L.nn.functional.relu(x),
    "sigmoid": lambda L, x, y: L.nn.functional.sigmoid(x), "tanh": lambda L, x, y: x.tanh(),
    "slice": lambda L, x, y: x[0], "clone": lambda L, x, y: x.clone(),
    "assign": lambda L, x, y: L.assign(x), "matmul": lambda L, x, y: L.matmul(x, y.t()),
    "unsqueeze": lambda L, x, y: x.unsqueeze(0), "squeeze": lambda L, x, y: x.unsqueeze(0).squeeze(0),
    "cast": lambda L, x, y: x.cast("float64"), "clip": lambda L, x, y: L.clip(x, -0.5, 0.5),
    "concat": lambda L, x, y: L.concat([x, y]), "stack": lambda L, x, y: L.stack([x, y]),
    "softmax": lambda L, x, y: L.nn.functional.softmax(x), "max": lambda L, x, y: x.max(),
    "maximum": lambda L, x, y: L.maximum(x, y), "where": lambda L, x, y: L.where(x > 0, x, y),
    "cumsum": lambda L, x, y: L.cumsum(x), "flip": lambda L, x, y: L.flip(x, [0]),
    "index_select": lambda L, x, y: L.index_select(x, L.to_tensor([0]), axis=0),
    "unbind": lambda L, x, y: L.unbind(x)[0], "masked_select": lambda L, x, y: L.masked_select(x, x > 0),
    "abs": lambda L, x, y: x.abs(), "scale": lambda L, x, y: L.scale(x, 2.0),
    "exp_": lambda L, x, y: (x * 1).exp_(), "add_": lambda L, x, y: (x * 1).add_(y),
}
X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
Y = [[1.5, 2.0, 0.5], [0.5, 1.25, 2.0]]


def _make(L):
    return (L.to_tensor(X, stop_gradient=False), L.to_tensor(Y, stop_gradient=False))


def _run(L, name):
    x, y = _make(L)
    z = OPS[name](L, x, y)
    first = z.grad_fn.name()
    z.sum().backward()
    try:
        z.mean().backward()
        again = "ok"
    except Exception as e:  # noqa: BLE001 - the error is compared
        again = (isinstance(e, SystemError), str(e))
    return first, again


@pytest.mark.parametrize("name", sorted(OPS))
def test_node_names_and_the_released_node_error_match_paddle(name):
    assert _run(lab, name) == _run(paddle, name)


def test_a_leafs_node_is_grad_node_accumulation():
    for L in (paddle, lab):
        x = L.to_tensor([1.0], stop_gradient=False)
        nxt = (x * 3).grad_fn.next_functions[0]
        node = nxt[0] if isinstance(nxt, tuple) else nxt
        assert node.name() == "GradNodeAccumulation"


def test_retain_graph_keeps_the_nodes():
    x = lab.to_tensor([1.0, 2.0], stop_gradient=False)
    s = (x * x).sum()
    s.backward(retain_graph=True)
    s.backward()
    assert x.grad.numpy().tolist() == [4.0, 8.0]


def test_setitem_nodes_and_their_released_error_match_paddle():
    def run(L):
        x = L.to_tensor([[1.1, 0.42], [1.16, 1.73]], stop_gradient=False)
        y = L.cumsum(x)
        y[1] = 2.0
        z = x * 1
        z[1] = L.to_tensor([5.0, 6.0], stop_gradient=False)
        names = (y.grad_fn.name(), z.grad_fn.name())
        y.mean().backward()
        try:
            y.sum().backward(retain_graph=True)
            again = "ok"
        except Exception as e:  # noqa: BLE001
            again = (isinstance(e, SystemError), str(e))
        return names, again

    assert run(lab) == run(paddle)


def test_clear_gradient_zeroes_without_a_version_bump():
    for L in (paddle, lab):
        x = L.to_tensor([1.0, 2.0], stop_gradient=False)
        x.sum().backward()
        x.clear_gradient()
        assert x.grad.numpy().tolist() == [0.0, 0.0] and x.grad.inplace_version == 0


def test_the_session_policy_keeps_pytorchs_names_for_core_tensors():
    """``il.inplace_policy("paddle")`` changes the in-place rules of core tensors, not their
    graph's names: an in-place node and an out-of-place one both keep PyTorch's."""
    import inplace_lab as il

    with il.inplace_policy("paddle"):
        x = il.tensor([1.0, 2.0], requires_grad=True)
        h = x * 1
        h.sin_()
        names = (h.grad_fn.name(), (h * 2).grad_fn.name())
    assert names == ("SinBackward0", "MulBackward0")
