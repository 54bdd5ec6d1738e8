"""Two torch rules found by the differential sweeps, pinned against torch 2.13.

* ``clone()`` (preserve_format) keeps the strides of a non-overlapping and dense input and
  makes anything else (expanded, sliced) C-contiguous.
* ``var``/``std`` backward with no degrees of freedom left (``correction >= n``): the
  whole-tensor form gives ``inf`` (``NaN`` where the element equals the mean), the dim form
  ``(2 / 0) * grad * (x - mean)``; std's ``grad / (2 * std)`` is 0 where std is 0.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as ilt  # noqa: E402

CLONES = {
    "expanded": lambda T: T.arange(6.).reshape(2, 1, 3).expand(2, 2, 3),
    "transposed": lambda T: T.arange(6.).reshape(2, 3).t(),
    "permuted": lambda T: T.arange(24.).reshape(2, 3, 4).permute(2, 0, 1),
    "sliced": lambda T: T.arange(24.).reshape(2, 3, 4)[:, ::2],
    "expanded then transposed": lambda T: T.arange(3.).reshape(3, 1).expand(3, 4).t(),
    "column expanded": lambda T: T.arange(6.).reshape(2, 3)[:, :1].expand(2, 3),
}


@pytest.mark.parametrize("name", sorted(CLONES))
def test_clone_strides_as_torch(name):
    make = CLONES[name]
    want, got = make(torch).clone(), make(ilt).clone()
    assert got.stride() == want.stride() and got.tolist() == want.tolist()


CASES = [("var", 2, [1., 2.]), ("std", 2, [1., 2.]), ("var", 3, [1., 2.]), ("var", 2, [2., 2.]),
         ("std", 1, [2., 2.]), ("var", 1, [1., 2., 4.]), ("std", 1, [1., 2., 4.])]


@pytest.mark.parametrize("f,corr,xs", CASES)
def test_var_std_backward_without_degrees_of_freedom_as_torch(f, corr, xs):
    out = []
    for T in (torch, ilt):
        x = T.tensor(xs, requires_grad=True)
        getattr(x, f)(correction=corr).backward()
        out.append(str([round(v, 5) for v in x.grad.tolist()]))
    assert out[1] == out[0]


def test_var_and_std_over_a_dim_without_degrees_of_freedom_as_torch():
    out = []
    for T in (torch, ilt):
        x = T.tensor([[1., 2.], [3., 3.]], requires_grad=True)
        x.var(1, correction=2).sum().backward()
        y = T.tensor([[1., 2.], [3., 3.]], requires_grad=True)
        y.std(1).sum().backward()
        out.append(str((x.grad.tolist(), [[round(v, 5) for v in r] for r in y.grad.tolist()])))
    assert out[1] == out[0]


LIKES = {
    "transposed": lambda T: T.arange(12.).reshape(3, 4).t(),
    "permuted": lambda T: T.arange(24.).reshape(2, 3, 4).permute(2, 0, 1),
    "sliced (not dense)": lambda T: T.arange(12.).reshape(3, 4)[:, ::2],
    "size-1 dims": lambda T: T.ones(1, 3, 1)[:, :, :],
}


@pytest.mark.parametrize("name", sorted(LIKES))
@pytest.mark.parametrize("fn", ["ones_like", "zeros_like", "empty_like", "randn_like"])
def test_like_factories_keep_a_dense_layout_as_torch(name, fn):
    make = LIKES[name]
    assert getattr(ilt, fn)(make(ilt)).stride() == getattr(torch, fn)(make(torch)).stride()


def test_a_transposed_root_gradient_is_stolen_by_the_leaf_as_torch():
    out = []
    for T in (torch, ilt):
        x = T.arange(12.0, dtype=T.float64).reshape(3, 4).requires_grad_()
        y = x.clone()
        y.t_()
        y.backward(T.ones_like(y))
        out.append((x.grad._version, x.grad.stride()))
    assert out[1] == out[0]


@pytest.mark.parametrize("expr", [
    "T.tensor([1.]).var()", "T.tensor([]).var()", "T.tensor([]).mean()", "T.zeros(2, 0).mean(1)",
    "T.tensor([]).std()", "T.zeros(0, 2).var(0)", "T.tensor([1., 2.]).var()",
    "T.tensor([1., 2.]).std(correction=2)", "T.var(T.tensor([3.]))", "T.std(T.ones(2, 1), 1)"])
def test_empty_and_no_dof_reductions_warn_as_torch(expr):
    """torch's own var()/std() warning when the degrees of freedom are <= 0, and none of
    numpy's RuntimeWarnings (the mean of an empty slice is NaN, silently)."""
    import warnings

    got = []
    for T in (torch, ilt):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = eval(expr, {"T": T})  # noqa: S307
        got.append((repr(r.tolist()), [(str(m.message).split(" (Triggered")[0], m.category)
                                       for m in w]))
    assert got[0] == got[1]
