"""Paddle functions whose parameters differ in order or name from the table op's.

``api_names.FUNCTION_ARGS`` lists Paddle's parameters for them (``paddle.index_select(x,
index, axis=0)`` is the op ``index_select(self, dim, index)``; ``paddle.where(condition, x,
y)``). The table is checked against paddle 3.3.1's own signatures, and each function is
called positionally and by keyword, as a module function and as a Tensor method, on real
Paddle and on the facade.
"""
import inspect
import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
warnings.filterwarnings("ignore")

import inplace_lab.paddle as lab  # noqa: E402
from inplace_lab.paddle import api_names  # noqa: E402


@pytest.mark.parametrize("name", sorted(api_names.FUNCTION_ARGS))
def test_the_table_lists_paddles_parameters_in_paddles_order(name):
    params = [p.name for p in inspect.signature(getattr(paddle, name)).parameters.values()
              if p.kind is p.POSITIONAL_OR_KEYWORD and p.name != "name"]
    assert [p for p, _ in api_names.FUNCTION_ARGS[name]] == params


A = np.array([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32)
B = np.array([[0.5, 1.0, -1.5], [2.0, -0.5, 1.0]], np.float32)
SQ = np.arange(9, dtype=np.float32).reshape(3, 3)

CALLS = {
    "where_positional": lambda L, a, b: L.where(a > 0, a, b),
    "where_keywords": lambda L, a, b: L.where(condition=a > 0, x=a, y=b),
    "where_method": lambda L, a, b: (a > 0).where(a, b),
    "index_select_default_axis": lambda L, a, b: L.index_select(a, L.to_tensor([1, 0])),
    "index_select_axis": lambda L, a, b: L.index_select(a, L.to_tensor([2, 0]), 1),
    "index_select_method": lambda L, a, b: a.index_select(L.to_tensor([2]), axis=1),
    "index_add": lambda L, a, b: L.index_add(a, L.to_tensor([0, 2]), 1, b[:, :2]),
    "index_fill": lambda L, a, b: L.index_fill(a, L.to_tensor([1]), 1, 9.0),
    "index_put": lambda L, a, b: L.index_put(a, (L.to_tensor([0, 1]), L.to_tensor([2, 0])),
                                             L.to_tensor([7.0, 8.0])),
    "concat_positional": lambda L, a, b: L.concat([a, b], 1),
    "stack_keyword": lambda L, a, b: L.stack(x=[a, b], axis=1),
    "sum_dtype_then_keepdim": lambda L, a, b: L.sum(a, 1, None, True),
    "sum_method": lambda L, a, b: a.sum(0, keepdim=True),
    "diagonal_axes": lambda L, a, b: L.diagonal(L.to_tensor(SQ), 1, 0, 1),
    "rot90_axes": lambda L, a, b: L.rot90(a, 1, axes=[0, 1]),
    "renorm_max_norm": lambda L, a, b: L.renorm(a, 2.0, 0, max_norm=1.0),
    "put_along_axis": lambda L, a, b: L.put_along_axis(a, L.to_tensor([[0], [2]]), 5.0, 1),
    "take_along_dim": lambda L, a, b: L.take_along_dim(a, L.to_tensor([[0], [2]]), 1),
    "masked_scatter": lambda L, a, b: L.masked_scatter(a, a > 0, b),
    "addmm": lambda L, a, b: L.addmm(L.ones([2, 2]), a, b.t(), 0.5, 2.0),
    "unflatten": lambda L, a, b: L.unflatten(a.flatten(), 0, [3, 2]),
    "isin": lambda L, a, b: L.isin(a, b),
    "trapezoid": lambda L, a, b: L.trapezoid(a, dx=0.5, axis=0),
}


@pytest.mark.parametrize("case", sorted(CALLS))
def test_calls_match_paddle(case):
    outs = []
    for L in (paddle, lab):
        a, b = L.to_tensor(A), L.to_tensor(B)
        r = CALLS[case](L, a, b)
        outs.append((str(r.dtype).split(".")[-1], list(r.shape), np.asarray(r.numpy()).tolist()))
    assert outs[1][:2] == outs[0][:2]
    np.testing.assert_allclose(outs[1][2], outs[0][2], rtol=1e-6)


def test_too_many_arguments_is_a_type_error():
    with pytest.raises(TypeError, match="takes from 4 to 5 positional arguments but 6 were given"):
        lab.index_fill(lab.ones([2]), lab.to_tensor([0]), 0, 1.0, "n", 1)  # (as Paddle's)
    # (index_select is Paddle's own function here: name is its fourth positional, as in Paddle)
    with pytest.raises(TypeError, match="takes from 2 to 4 positional arguments but 5 were given"):
        lab.index_select(lab.ones([2]), lab.to_tensor([0]), 0, None, 1)


SQ3 = (np.arange(9, dtype=np.float32).reshape(3, 3) * 0.37 - 1.1) ** 2 + np.eye(3, dtype=np.float32)
METHODS = {  # name: (x, call on the tensor): the method is Paddle's function, not PyTorch's
    "allclose": (A, lambda L, x: x.allclose(x * 1.0)),
    "amax": (A, lambda L, x: x.amax()),
    "amin": (A, lambda L, x: x.amin(axis=0)),
    "argsort": (A, lambda L, x: x.argsort(axis=0, descending=True)),
    "bucketize": (A, lambda L, x: x.bucketize(L.to_tensor([-1.0, 0.0, 1.0]))),
    "cross": (SQ3, lambda L, x: x.cross(x * 2.0 + 1.0)),
    "cummax": (A, lambda L, x: x.cummax(axis=1)[0]),
    "cummin": (A, lambda L, x: x.cummin(0)[1]),
    "cumprod": (A, lambda L, x: x.cumprod(dim=1)),
    "cumsum": (A, lambda L, x: x.cumsum()),
    "diag": (SQ3, lambda L, x: x.diag()),
    "diff": (A, lambda L, x: x.diff()),
    "dot": (A, lambda L, x: x.dot(x)),
    "equal": (A, lambda L, x: x.equal(x.round())),
    "equal_all": (A, lambda L, x: x.equal_all(x * 1.0)),
    "flip": (A, lambda L, x: x.flip([0])),
    "inner": (A, lambda L, x: x.inner(x)),
    "inverse": (SQ3, lambda L, x: x.inverse()),
    "isclose": (A, lambda L, x: x.isclose(x + 1e-9)),
    "kron": (A, lambda L, x: x.kron(x)),
    "kthvalue": (A, lambda L, x: x.kthvalue(2)[0]),
    "logsumexp": (A, lambda L, x: x.logsumexp(axis=1)),
    "max": (A, lambda L, x: x.max(axis=1)),
    "median": (SQ3, lambda L, x: x.median()),
    "min": (A, lambda L, x: x.min(axis=0, keepdim=True)),
    "mode": (SQ3.round(), lambda L, x: x.mode()[0]),
    "nanmean": (A, lambda L, x: x.nanmean()),
    "nanmedian": (SQ3, lambda L, x: x.nanmedian()),
    "nanquantile": (A, lambda L, x: x.nanquantile(0.5)),
    "nansum": (A, lambda L, x: x.nansum(axis=1)),
    "outer": (A, lambda L, x: x.outer(x)),
    "quantile": (A, lambda L, x: x.quantile(0.25, axis=1)),
    "repeat_interleave": (A, lambda L, x: x.repeat_interleave(2, axis=0)),
    "sort": (A, lambda L, x: x.sort(axis=1)),
    "topk": (A, lambda L, x: x.topk(2)[0]),
    "trace": (SQ3, lambda L, x: x.trace()),
    "unique": (SQ3.round(), lambda L, x: x.unique()),
    "mean": (A, lambda L, x: x.mean(axis=1, keepdim=True)),
    "clip": (A, lambda L, x: x.clip(-1.0, max=1.0)),
    "index_select": (A, lambda L, x: x.index_select(L.to_tensor([-1, 0]), axis=1)),
    "where": (A, lambda L, x: (x > 0).where(x, x * 2)),
}


def test_every_paddle_semantics_method_has_a_case():
    assert set(METHODS) | {"multinomial"} == set(api_names.SEMANTICS_METHODS)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_tensor_methods_are_paddles_functions(name):
    data, call = METHODS[name]
    outs = []
    for L in (paddle, lab):
        r = call(L, L.to_tensor(data))
        assert not isinstance(r, tuple), f"{name} gave a tuple on {L.__name__}"
        outs.append((str(r.dtype).split(".")[-1], list(r.shape), np.asarray(r.numpy())))
    assert outs[1][:2] == outs[0][:2]
    np.testing.assert_allclose(outs[1][2], outs[0][2], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(api_names.FUNCTIONAL_ARGS))
def test_the_functional_table_lists_paddles_parameters(name):
    params = [p.name for p in inspect.signature(getattr(paddle.nn.functional, name))
              .parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD and p.name != "name"]
    assert [p for p, _ in api_names.FUNCTIONAL_ARGS[name]] == params


FUNCTIONAL = {
    "log_softmax_default_axis": lambda F, t: F.log_softmax(t),
    "log_softmax_axis0": lambda F, t: F.log_softmax(t, 0),
    "hardshrink_default": lambda F, t: F.hardshrink(t),
    "hardshrink_threshold": lambda F, t: F.hardshrink(t, 0.8),
    "softshrink_keyword": lambda F, t: F.softshrink(t, threshold=0.3),
    "selu_scale_then_alpha": lambda F, t: F.selu(t, 1.1, 1.5),
    "silu": lambda F, t: F.silu(t),
}


@pytest.mark.parametrize("case", sorted(FUNCTIONAL))
def test_functional_calls_match_paddle(case):
    x = A * 1.1  # (no element on a shrink threshold: Paddle keeps x == threshold, not pinned)
    outs = [np.asarray(FUNCTIONAL[case](L.nn.functional, L.to_tensor(x)).numpy())
            for L in (paddle, lab)]
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)
