"""Out-of-place ops whose tensor arguments do not broadcast raise PyTorch's RuntimeError."""
import pytest

torch = pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402

CASES = [
    ("add", lambda m: m.ones(2) + m.ones(3)),
    ("mul", lambda m: m.ones(2, 3).mul(m.ones(4))),
    ("atan2", lambda m: m.ones(2).atan2(m.ones(3))),
    ("maximum", lambda m: m.maximum(m.ones(2, 1, 3), m.ones(4, 2))),
    ("eq", lambda m: m.ones(5) == m.ones(2)),
]


@pytest.mark.parametrize("name,prog", CASES, ids=[c[0] for c in CASES])
def test_non_broadcastable_shapes_raise_torch_error(name, prog):
    with pytest.raises(RuntimeError) as ref:
        prog(torch)
    with pytest.raises(RuntimeError) as got:
        prog(il)
    assert str(got.value) == str(ref.value)
