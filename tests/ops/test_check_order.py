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


def test_inplace_on_a_view_names_the_views_regenerated_node():
    """An in-place op on a view saves its result after the base's rebase: torch's error then
    names the view's regenerated node (AsStrided), not the op (seed 2732)."""
    texts = []
    for T in (torch, ilt):
        x = T.arange(3.0, dtype=T.float64).requires_grad_()
        y = x * 1
        v = y[0]
        v.exp_()
        y.add_(1)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        texts.append(str(e.value))
    assert texts[0] == texts[1] and "output 0 of AsStrided" in texts[1]
