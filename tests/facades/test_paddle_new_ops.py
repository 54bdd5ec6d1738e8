"""The ops Paddle's in-place API needed (fill_diagonal, fill_diagonal_tensor, put_along_axis,
renorm, embedding_renorm, softmax_) and Paddle's version counts, against paddle 3.3.1 and
torch 2.13: values, gradients, versions, errors.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
torch = pytest.importorskip("torch")
import paddle.nn.functional as PF  # noqa: E402

import inplace_lab.paddle as ip  # noqa: E402
import inplace_lab.paddle.nn.functional as IF  # noqa: E402
import inplace_lab.torch as it  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)

W = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
G = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0], [2.0, 1.0, 4.0]]


def _grad_run(lib, F, write, w=W, g=G):
    """y = w * 1; write(y) in place; backward of (y * g).sum(): (y, w.grad, y's version)."""
    wt = lib.to_tensor(np.array(w, "float32"), stop_gradient=False)
    y = wt * 1
    write(lib, F, y)
    (y * lib.to_tensor(np.array(g, "float32"))).sum().backward()
    return np.array(y.numpy()), np.array(wt.grad.numpy()), y._inplace_version()


WRITES = {
    "fill_diagonal_": lambda lib, F, y: y.fill_diagonal_(0.5, offset=1),
    "fill_diagonal_tensor_": lambda lib, F, y: y.fill_diagonal_tensor_(
        lib.to_tensor(np.array([7.0, 8.0], "float32")), offset=-1),
    "put_along_axis_": lambda lib, F, y: y.put_along_axis_(
        lib.to_tensor(np.array([[0], [2], [1]])), lib.to_tensor(np.array([[9.0], [8.0], [7.0]],
                                                                         "float32")), 1),
    "put_along_axis_add": lambda lib, F, y: y.put_along_axis_(
        lib.to_tensor(np.array([[0, 0], [2, 1], [1, 1]])), 2.0, 1, reduce="add"),
    "renorm_": lambda lib, F, y: y.renorm_(2.0, 0, 6.0),
    "renorm_p3": lambda lib, F, y: y.renorm_(3.0, 1, 5.0),
    "softmax_": lambda lib, F, y: F.softmax_(y, axis=0),
    "hypot_": lambda lib, F, y: y.hypot_(lib.to_tensor(np.ones((3, 3), "float32"))),
    "sinc_": lambda lib, F, y: y.sinc_(),
    "nan_to_num_": lambda lib, F, y: y.nan_to_num_(),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_values_grads_and_versions_under_autograd_match_paddle(name):
    want = _grad_run(paddle, PF, WRITES[name])
    got = _grad_run(ip, IF, WRITES[name])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    assert got[2] == want[2]


def test_fill_diagonal_tensor_gives_y_no_gradient_as_paddle():
    for lib in (paddle, ip):
        w = lib.to_tensor(np.array(W, "float32"), stop_gradient=False)
        v = lib.to_tensor(np.array([1.0, 2.0, 3.0], "float32"), stop_gradient=False)
        y = w * 1
        y.fill_diagonal_tensor_(v * 3)
        (y * w.detach()).sum().backward()
        assert v.grad is None
        np.testing.assert_allclose(w.grad.numpy(), np.array(W) * (1 - np.eye(3)))


@pytest.mark.parametrize("shape,offset,wrap", [((4, 3), 0, False), ((7, 3), 0, True),
                                               ((3, 4), -1, False), ((3, 5), 2, True),
                                               ((2, 2, 2), 0, False)])
def test_fill_diagonal_cells_match_paddle(shape, offset, wrap):
    want = paddle.ones(list(shape))
    want.fill_diagonal_(5.0, offset=offset, wrap=wrap)
    got = ip.ones(list(shape))
    got.fill_diagonal_(5.0, offset=offset, wrap=wrap)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("reduce", ["assign", "add", "mul", "mean", "amin", "amax"])
@pytest.mark.parametrize("include_self", [True, False])
def test_put_along_axis_reductions_match_paddle(reduce, include_self):
    idx, vals = np.array([[0, 0], [2, 2]]), np.array([[2.0, 3.0], [4.0, 9.0]], "float32")
    out = []
    for lib in (paddle, ip):
        x = lib.to_tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"))
        x.put_along_axis_(lib.to_tensor(idx), lib.to_tensor(vals), 1, reduce=reduce,
                          include_self=include_self)
        out.append((x.numpy(), x._inplace_version()))
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-6)
    assert out[1][1] == out[0][1] == 1


def test_put_along_axis_broadcasts_indices_like_paddle():
    out = []
    for lib in (paddle, ip):
        x = lib.to_tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"))
        lib.put_along_axis(x, lib.to_tensor(np.array([[1]])), 7.0, 0)  # out of place
        x.put_along_axis_(lib.to_tensor(np.array([[1]])), lib.to_tensor(np.array([[7.0]],
                                                                                   "float32")), 0)
        out.append(x.numpy())
    np.testing.assert_array_equal(out[1], out[0])


def test_softmax_inplace_saves_its_result_and_later_writes_break_backward():
    """softmax_ saves the overwritten x (its result): a later add_ is caught at backward."""
    msgs = []
    for lib, F in ((paddle, PF), (ip, IF)):
        w = lib.to_tensor(np.array([1.0, 2.0, 3.0], "float32"), stop_gradient=False)
        y = w * 1
        F.softmax_(y)
        y.add_(lib.to_tensor(np.ones(3, "float32")))
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        msgs.append(str(e.value))
    assert "Its version is 2 but the expected version is 1" in msgs[0]
    assert "Its version is 2 but the expected version is 1" in msgs[1]


@pytest.mark.parametrize("call", ["fill_diagonal_", "renorm_", "softmax_", "put_along_axis_"])
def test_inplace_on_a_leaf_that_needs_grad_is_paddles_error(call):
    fns = {"fill_diagonal_": lambda lib, F, t: t.fill_diagonal_(1.0),
           "renorm_": lambda lib, F, t: t.renorm_(2.0, 0, 1.0),
           "softmax_": lambda lib, F, t: F.softmax_(t),
           "put_along_axis_": lambda lib, F, t: t.put_along_axis_(
               lib.to_tensor(np.array([[0, 1]])), 1.0, 1)}
    for lib, F in ((paddle, PF), (ip, IF)):
        t = lib.to_tensor(np.array([[1.0, 2.0], [3.0, 4.0]], "float32"), stop_gradient=False)
        with pytest.raises(ValueError, match=r"\(InvalidArgument\) Leaf Var \(.*\) that doesn't "
                                             r"stop gradient can't use inplace strategy"):
            fns[call](lib, F, t)
        assert t._inplace_version() == 0


def test_embedding_renorm_rescales_used_rows_of_weight_like_paddle_and_torch():
    w0, ids = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], "float32"), np.array([0, 1, 0])
    wp = paddle.to_tensor(w0)
    PF.embedding_renorm_(paddle.to_tensor(ids), wp, 1.0)
    wi = ip.to_tensor(w0, stop_gradient=False)  # Paddle runs it without grad
    assert IF.embedding_renorm_(ip.to_tensor(ids), wi, 1.0) is wi
    wt = it.tensor(w0)
    it.embedding_renorm_(wt, it.tensor(ids), 1.0, 2.0)
    np.testing.assert_allclose(wi.detach().numpy(), wp.numpy(), rtol=1e-6)
    np.testing.assert_allclose(wt.numpy(), wp.numpy(), rtol=1e-6)
    assert wi._inplace_version() == wp._inplace_version() == wt._version == 1


# ---- Paddle's version counts -------------------------------------------------------------------

@pytest.mark.parametrize("xs,ys", [([5], [0]), ([12], [8]), ([21], [13]), ([34, 4], [21, 6]),
                                   ([-12, 18], [8, -4]), ([89, 1], [55, 1])])
def test_gcd_inplace_version_follows_paddles_loop(xs, ys):
    out = []
    for lib in (paddle, ip):
        x = lib.to_tensor(np.array(xs, "int64"))
        x.gcd_(lib.to_tensor(np.array(ys, "int64")))
        out.append((x.numpy().tolist(), x._inplace_version()))
    assert out[1] == out[0]


def test_index_fill_with_an_empty_index_does_not_bump_as_paddle():
    out = []
    for lib in (paddle, ip):
        x = lib.ones([3, 2])
        x.index_fill_(lib.to_tensor(np.array([], "int64")), 0, -1.0)
        out.append(x._inplace_version())
    assert out[1] == out[0] == 0


def test_a_failed_multi_bump_call_leaves_the_version_as_it_was():
    x = ip.to_tensor([3.0, 4.0])
    with pytest.raises(Exception):
        x.hypot_(ip.to_tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert x._inplace_version() == 0 and x.tolist() == [3.0, 4.0]


def test_copy_does_not_bump_so_an_earlier_save_is_not_caught_as_in_paddle():
    """Paddle's copy_ leaves the version alone: backward silently reads the new value."""
    grads = []
    for lib in (paddle, ip):
        w = lib.to_tensor(np.array([1.0, 2.0], "float32"), stop_gradient=False)
        y = w * 1
        z = y * y  # saves y
        y.copy_(lib.to_tensor(np.array([10.0, 20.0], "float32")), False) if lib is paddle \
            else y.copy_(ip.to_tensor([10.0, 20.0]))
        assert y._inplace_version() == 0
        z.sum().backward()
        grads.append(np.array(w.grad.numpy()))
    np.testing.assert_allclose(grads[1], grads[0])


def test_torch_core_version_counts_are_unchanged():
    x = it.tensor([12, 18])
    x.gcd_(it.tensor([8, 12]))
    y = it.tensor([3.0, 4.0])
    y.hypot_(it.tensor([4.0, 3.0]))
    assert x._version == y._version == 1


# ---- the PyTorch side of the shared ops -------------------------------------------------------

def test_renorm_values_and_grads_match_torch():
    out = []
    for lib in (torch, it):
        w = lib.tensor(W, requires_grad=True)
        y = w * 1
        y.renorm_(2.0, 0, 6.0)
        (y * lib.tensor(G)).sum().backward()
        r = lib.renorm(lib.tensor(W), 1.0, 1, 10.0)
        out.append((y.detach().numpy(), w.grad.numpy(), y._version, y.grad_fn.name(),
                    r.numpy()))
    for k in (0, 1, 4):
        np.testing.assert_allclose(out[1][k], out[0][k], rtol=1e-5)
    assert out[1][2:4] == out[0][2:4] == (1, "RenormBackward0")


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((4, 3), False), ((3, 5), True),
                                        ((3, 3, 3), False)])
def test_fill_diagonal_values_match_torch(shape, wrap):
    a, b = torch.ones(*shape), it.ones(*shape)
    a.fill_diagonal_(5.0, wrap)
    b.fill_diagonal_(5.0, wrap)
    np.testing.assert_array_equal(b.numpy(), a.numpy())


@pytest.mark.parametrize("shape,msg", [((3,), "dimensions must larger than 1"),
                                       ((2, 3, 2), "all dimensions of input must be of equal")])
def test_fill_diagonal_errors_match_torch(shape, msg):
    for lib in (torch, it):
        with pytest.raises(RuntimeError, match=msg):
            lib.ones(*shape).fill_diagonal_(1.0)


def test_fill_diagonal_is_torch_composite_on_the_torch_facade():
    """PyTorch composes fill_diagonal_ of as_strided views + fill_: CopySlices, two bumps on a
    wrapped tall matrix, the view-of-a-leaf error; the torch facade does the same (Paddle's
    fill_diagonal_ is the table op, one node and one bump)."""
    a, b = torch.ones(7, 3), it.ones(7, 3)
    a.fill_diagonal_(5.0, wrap=True)
    b.fill_diagonal_(5.0, wrap=True)
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    assert a._version == b._version == 2
    y, ty = it.ones(2, 2, requires_grad=True) * 1, torch.ones(2, 2, requires_grad=True) * 1
    y.fill_diagonal_(0.0)
    ty.fill_diagonal_(0.0)
    assert y.grad_fn.name() == ty.grad_fn.name() == "torch::autograd::CopySlices"
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable"):
        it.ones(2, 2, requires_grad=True).fill_diagonal_(0.0)


def test_softmax_inplace_is_paddle_only():
    assert not hasattr(torch.Tensor, "softmax_") and not hasattr(torch, "softmax_")
    assert hasattr(ip.nn.functional, "softmax_")
    with pytest.raises(AttributeError):
        ip.to_tensor([1.0]).relu_  # names Paddle's Tensor lacks stay hidden
