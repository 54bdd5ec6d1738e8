"""The classic Paddle lesson snippets, verbatim, on paddle 3.3.1 and on inplace_lab.paddle.

Each snippet is run by both libraries; printed output, versions and errors must agree
(generated tensor numbers are normalised: they depend on how many tensors a session made).
"""
from __future__ import annotations

import contextlib
import io
import re
import textwrap
import warnings

import pytest

pytest.importorskip("paddle")
warnings.filterwarnings("ignore", category=UserWarning)


def _run(snippet: str, module: str) -> str:
    """exec the snippet with ``paddle`` bound to ``module``; stdout plus the error line if any."""
    import importlib

    ns = {"paddle": importlib.import_module(module)}
    ns["F"] = importlib.import_module(module + ".nn.functional")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(textwrap.dedent(snippet), ns)  # noqa: S102 - the snippet is the test input
        except Exception as e:  # noqa: BLE001 - compared below
            print(f"{_builtin_name(e)}: {str(e).splitlines()[0]}")
    return re.sub(r"generated_tensor_\d+", "generated_tensor_N", out.getvalue())


def _builtin_name(e) -> str:
    """The built-in type a user catches (inplace_lab's error classes subclass those)."""
    for cls in (ValueError, RuntimeError, AttributeError, TypeError):
        if isinstance(e, cls):
            return cls.__name__
    return type(e).__name__


def same_on_both(snippet: str) -> str:
    want = _run(snippet, "paddle")
    got = _run(snippet, "inplace_lab.paddle")
    assert got == want
    return got


def test_add_with_alpha_then_subtract_with_alpha():
    out = same_on_both("""
        x = paddle.to_tensor([1., 2., 3.])
        y = paddle.to_tensor([1., 1., 1.])
        x.add_(y, alpha=1); x.subtract_(y, alpha=2)
        print(x, x.inplace_version, x._inplace_version())
    """)
    assert "[0., 1., 2.]) 2 2" in out


def test_functional_relu_inplace_returns_x():
    out = same_on_both("""
        x = paddle.to_tensor([-1., 2., -3.])
        y = paddle.nn.functional.relu_(x)
        print(y is x, x, x.inplace_version)
    """)
    assert out.startswith("True")


def test_transpose_inplace_of_arange_reshape():
    out = same_on_both("""
        X = paddle.arange(12).reshape([3, 4])
        Y = X.transpose_([1, 0])
        print(Y is X, X, X.inplace_version)
    """)
    assert "shape=[4, 3], dtype=int64" in out


def test_scale_inplace_on_a_leaf_that_needs_grad_is_refused():
    out = same_on_both("""
        x = paddle.to_tensor([1., 2., 3.], stop_gradient=False)
        x.scale_(2.0)
    """)
    assert out.startswith("ValueError: (InvalidArgument) Leaf Var (generated_tensor_N) that "
                          "doesn't stop gradient can't use inplace strategy.")


def test_leaf_error_leaves_the_data_alone_where_paddle_writes_first():
    """A known Paddle 3.3.1 quirk: scale_ writes x, *then* raises (version stays 0).

    inplace_lab checks before it writes, so x keeps its values; pinned here.
    """
    snippet = """
        x = paddle.to_tensor([1., 2., 3.], stop_gradient=False)
        try:
            x.scale_(2.0)
        except ValueError:
            pass
        print(x.numpy(), x.inplace_version)
    """
    assert _run(snippet, "paddle") == "[2. 4. 6.] 0\n"
    assert _run(snippet, "inplace_lab.paddle") == "[1. 2. 3.] 0\n"


def test_plus_equals_rebinds_in_paddle():
    out = same_on_both("""
        x = paddle.to_tensor([1., 2.], stop_gradient=False)
        old = x
        x += 1
        print(x is old, old.inplace_version, x.stop_gradient, x.is_leaf)
    """)
    assert out.startswith("False 0 False False")


def test_modified_saved_tensor_error_at_backward():
    out = same_on_both("""
        a = paddle.to_tensor([1., 2.], stop_gradient=False)
        b = a.exp()
        b.add_(paddle.to_tensor(1.))
        b.sum().backward()
    """)
    assert out.startswith("RuntimeError: (PermissionDenied) Tensor '' used in gradient "
                          "computation has been modified by an inplace operation. Its version "
                          "is 1 but the expected version is 0.")


def test_non_scalar_backward_uses_ones_and_grad_prints():
    out = same_on_both("""
        x = paddle.to_tensor([1., 2., 3.], stop_gradient=False)
        (x * x).backward()
        print(x.grad.numpy(), x.is_leaf, (x * 2).stop_gradient)
    """)
    assert out.startswith("[2. 4. 6.] True False")


def test_paddle_grad_returns_a_list():
    same_on_both("""
        x = paddle.to_tensor([1., 2., 3.], stop_gradient=False)
        g = paddle.grad([(x * x).sum()], [x])
        print(type(g).__name__, g[0].numpy())
    """)


def test_in_place_on_a_view_of_a_leaf_is_allowed_in_paddle():
    same_on_both("""
        x = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
        v = x.reshape([4])
        print(v.inplace_version, x.inplace_version)
    """)


def test_printing_matches_paddle():
    same_on_both("""
        print(paddle.to_tensor([1.5, -2.25, 3.]))
        print(paddle.to_tensor([1e-5, 1e5]))
        print(paddle.to_tensor(3.5))
        print(paddle.to_tensor([True, False]))
        print(paddle.to_tensor([[1, -2], [3, 4]], dtype='int32'))
        print(paddle.to_tensor([[1., 2.], [3., 4.]], dtype='float64'))
        print(paddle.arange(2000).reshape([2, 1000]))
        print(paddle.zeros([2, 0]))
    """)


def test_no_grad_in_place_on_a_leaf_is_allowed():
    same_on_both("""
        w = paddle.to_tensor([1., 2.], stop_gradient=False)
        with paddle.no_grad():
            w.scale_(0.5)
        print(w, w.inplace_version)
    """)


def test_stop_gradient_flags_after_ops():
    same_on_both("""
        x = paddle.to_tensor([1., 2.])
        y = paddle.to_tensor([1., 2.], stop_gradient=False)
        print((x + x).stop_gradient, (x + y).stop_gradient, y.stop_gradient)
        y.stop_gradient = True
        print(y.stop_gradient)
    """)


def test_module_level_add_inplace_does_not_exist():
    out = same_on_both("""
        x = paddle.to_tensor([1.])
        paddle.add_(x, x)
    """)
    assert out.startswith("AttributeError: module 'paddle' has no attribute 'add_'")


def test_module_level_functions_paddle_exports_exist():
    same_on_both("""
        x = paddle.to_tensor([0.5])
        print(paddle.sin_(x) is x, paddle.erf_(x) is x, paddle.expm1_(x) is x, x.inplace_version)
    """)
