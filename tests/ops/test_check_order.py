"""Which error an illegal in-place write raises when it breaks several rules: torch 2.13's
order (autograd's checks, then TensorIterator's: internal overlap, partial overlap with an
input, the shapes, the dtypes), and that nothing is written. Found by the program sweep."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ilt = pytest.importorskip("inplace_lab.torch")

PROGRAMS = [
    "x = T.ones(4); t = x[0]; t += x",
    "x = T.ones(1).expand(3); x.add_(T.ones(2, 3))",
    "x = T.ones(4, dtype=T.int64); t = x[0]; t.add_(x * 1.5)",
    "x = T.ones(1, dtype=T.int64).expand(3); x.add_(T.ones(3) * 1.5)",
    "x = T.ones(4); t = x[:2]; t.mul_(x[1:3])",
    "x = T.ones(4); t = x[:2]; t.mul_(x)",
    "x = T.ones(4, requires_grad=True); t = x[:2]; t.mul_(x)",
    "x = T.ones(4); t = x[0]; t.copy_(x)",
    "x = T.ones(4); t = x[0]; t.masked_fill_(x > 0, 1.)",
    "x = T.ones(4); x.add_(x[:2])",
    "x = T.ones(4); x[:2].add_(x[1:3].reshape(2, 1))",
    "x = T.arange(6.).reshape(2, 3); x.t().add_(x)",
    # overlaps torch calls "too hard" (a non-dense tensor): its shape error comes first
    "x = T.ones(2, 3); t = x.unbind(1)[0]; t *= x",
    "x = T.ones(4, 2); t = x[..., 0]; x *= t",
    "x = T.ones(2, 3, 2); x.select(2, -2).add_(x.transpose(-2, 1))",
    "x = T.ones(3, 3); x.add_(x.t())",
    "x = T.ones(4, 2); x[:, 0].add_(x[:, 1])",
]


def _run(T, src):
    ns = {"T": T}
    try:
        exec(src, ns)  # noqa: S102
        err = "ok"
    except RuntimeError as e:
        err = str(e)
    x = ns["x"]
    return err, x.tolist(), x._version


@pytest.mark.parametrize("src", PROGRAMS)
def test_first_error_and_untouched_data_match_torch(src):
    assert _run(ilt, src) == _run(torch, src)


VIEW_RESULT_PROGRAMS = {  # which node torch's error names, for an in-place op's result on a view
    "AsStrided": "v.exp_()\ny.add_(1)\ny.sum().backward()",
    "AsStrided ": "v.exp_()\nw = v * 2\ny.add_(1)\nu = v * 3\n(w + u).backward()",
    "Exp": "v.exp_()\nwith T.no_grad(): y.add_(1)\nu = v * 3\nu.backward()",
    "Relu": "w = y.as_strided((2,), (1,), 1)\nT.relu_(w)\ny.t_()\nw.sum().backward()",
    "Tanh": "w = y.sum().unsqueeze(-1)\nw.tanh_()\nwith T.no_grad(): w._base.mul_(2)\n"
            "w.mean().backward()",
    # a second in-place op on the view rebuilds its node at once: the first one's dies ...
    "Relu ": "w = y.reshape(1, 3).t()\nT.relu_(w)\nw += -1.0\nw.mean().backward()",
    # ... unless something still holds it
    "AsStrided  ": "w = y.reshape(1, 3).t()\nT.relu_(w)\nkeep = w.grad_fn\nw += -1.0\n"
                   "w.mean().backward()",
}


@pytest.mark.parametrize("name", VIEW_RESULT_PROGRAMS)
def test_inplace_result_on_a_view_names_the_node_torch_names(name):
    """torch saves such a result after the base's rebase, with a weak reference to the view's
    rebuilt node: its error names that node (AsStrided) while it lives, and the op that saved
    it once the view's node was rebuilt again (seeds 2732, 3074, 3124)."""
    texts = []
    for T in (torch, ilt):
        x = T.arange(3.0, dtype=T.float64).requires_grad_()
        ns = {"T": T, "x": x, "y": x * 1}
        ns["v"] = ns["y"][0]
        with pytest.raises(RuntimeError) as e:
            exec(VIEW_RESULT_PROGRAMS[name], ns)  # noqa: S102
        texts.append(str(e.value))
    assert texts[0] == texts[1]
    assert f"output 0 of {name.strip()}," in texts[1]


EXPANDED_WRITES = [
    "x.masked_fill_(T.tensor([[True, False, True], [False, True, False]]), 2.)",
    "x[T.tensor([0])] = 5.", "x.index_put_((T.tensor([1]),), T.tensor(7.))", "x[x > -1] = 1.",
    "x.fill_(3.)", "x.zero_()", "x[0] = 4.", "x.index_fill_(1, T.tensor([0]), 2.)",
    "x.masked_scatter_(T.ones(2, 3, dtype=T.bool), T.arange(6.))"]


@pytest.mark.parametrize("src", EXPANDED_WRITES)
def test_writes_into_an_expanded_tensor_warn_and_write_as_torch(src):
    import warnings

    got = []
    for T in (torch, ilt):
        ns = {"T": T, "x": T.zeros(3).expand(2, 3)}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                exec(src, ns)  # noqa: S102
                err = "ok"
            except RuntimeError as e:  # (masked_scatter_ refuses an expanded target)
                err = str(e)
        got.append((err, ns["x"].tolist(), [str(m.message).split(" (Triggered")[0] for m in w]))
    assert got[0] == got[1]
