"""torch.func's transforms (grad, grad_and_value, vjp, jacrev, vmap) against torch 2.13:
values, shapes, pytrees, nesting, has_aux, and the errors of bad calls."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402

X = [0.5, -1.25, 2.0]

CASES = {
    "grad": lambda T, F: F.grad(lambda x: (x ** 3).sum())(T.tensor(X)),
    "grad_not_scalar": lambda T, F: F.grad(lambda x: x * 2)(T.tensor(X)),
    "grad_bad_argnum": lambda T, F: F.grad(lambda x: x.sum(), argnums=1)(T.tensor(X)),
    "grad_of_grad": lambda T, F: F.grad(F.grad(lambda x: (x ** 3).sum()))(T.tensor(2.0)),
    "grad_has_aux": lambda T, F: F.grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(
        T.tensor(X)),
    "grad_and_value_two": lambda T, F: F.grad_and_value(
        lambda x, y: (x * y).sum(), argnums=(0, 1))(T.tensor(X), T.tensor(X) + 1),
    "grad_dict": lambda T, F: F.grad(lambda p: (p["w"] * p["b"]).sum())(
        {"w": T.tensor(X), "b": T.tensor(2.0)}),
    "jacrev": lambda T, F: F.jacrev(lambda x: x.sin())(T.tensor(X)),
    "jacrev_arg1": lambda T, F: F.jacrev(lambda x, y: x * y, argnums=1)(T.tensor(X),
                                                                          T.tensor(X)),
    "vjp": lambda T, F: F.vjp(lambda x: x ** 2, T.tensor(X))[1](T.ones(3)),
    "vmap_sum": lambda T, F: F.vmap(lambda a: a.sum())(T.arange(6.0).reshape(2, 3)),
    "vmap_in_dim1": lambda T, F: F.vmap(lambda a: a * 2, in_dims=1)(T.arange(6.0).reshape(2, 3)),
    "vmap_none": lambda T, F: F.vmap(lambda a, b: a + b, in_dims=(0, None))(
        T.ones(2, 3), T.tensor(X)),
    "vmap_sizes": lambda T, F: F.vmap(lambda a, b: a + b)(T.ones(2, 3), T.ones(3, 3)),
    "vmap_tuple_out": lambda T, F: F.vmap(lambda a: (a, a * 2))(T.ones(2, 2)),
    "vmap_dot": lambda T, F: T.vmap(T.dot)(T.ones(2, 3), T.arange(6.0).reshape(2, 3)),
    "vmap_grad": lambda T, F: F.vmap(F.grad(lambda w, xi: (w * xi).sum() ** 2),
                                     in_dims=(None, 0))(T.tensor(X), T.arange(12.0).reshape(4, 3)),
}


def _observe(v):
    if isinstance(v, dict):
        return {k: _observe(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [_observe(x) for x in v]
    if hasattr(v, "detach"):
        return ("tensor", tuple(v.shape), v.grad_fn is None, v.detach().numpy().tolist())
    return v


def _run(T, F, case):
    try:
        return _observe(CASES[case](T, F))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("case", sorted(CASES))
def test_transform_matches_torch(case):
    import torch.func as tf

    import inplace_lab.torch.func as lf

    ref, got = _run(torch, tf, case), _run(il, lf, case)
    assert type(ref) is type(got)
    flat_r, flat_g = str(ref), str(got)
    if "tensor" not in flat_r:
        assert got == ref
        return
    np.testing.assert_allclose(np.array(_numbers(got), dtype=float),
                               np.array(_numbers(ref), dtype=float), rtol=1e-5)
    assert _structure(got) == _structure(ref)


def _numbers(v):
    if isinstance(v, dict):
        return [n for k in sorted(v) for n in _numbers(v[k])]
    if isinstance(v, tuple) and v and v[0] == "tensor":
        return list(np.ravel(v[3]))
    if isinstance(v, (tuple, list)):
        return [n for x in v for n in _numbers(x)]
    return []


def _structure(v):
    if isinstance(v, dict):
        return {k: _structure(x) for k, x in v.items()}
    if isinstance(v, tuple) and v and v[0] == "tensor":
        return v[:3]
    if isinstance(v, (tuple, list)):
        return [_structure(x) for x in v]
    return v


def test_per_sample_gradients_as_the_tutorial():
    def grads(T, F):
        T.manual_seed(0)
        model = T.nn.Linear(3, 2)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, xi, yi):
            out = F.functional_call(model, p, (xi.unsqueeze(0),))
            return T.nn.functional.cross_entropy(out, yi.unsqueeze(0))

        xs, ys = T.randn(4, 3), T.tensor([0, 1, 1, 0])
        g = F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
        return {k: v.numpy() for k, v in g.items()}

    import torch.func as tf

    import inplace_lab.torch.func as lf

    ref, got = grads(torch, tf), grads(il, lf)
    assert set(ref) == set(got)
    for k in ref:
        assert got[k].shape == ref[k].shape
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-5, atol=1e-7)
