"""``import inplace_lab.torch as torch`` runs PyTorch code unchanged: compared with torch 2.13."""
from __future__ import annotations

import contextlib
import importlib
import io
import textwrap
import warnings

import pytest

pytest.importorskip("torch")

import inplace_lab.torch as itorch  # noqa: E402
from inplace_lab.torch import api_names  # noqa: E402


def _run(snippet: str, module: str) -> str:
    ns = {"torch": importlib.import_module(module)}
    ns["F"] = importlib.import_module(module + ".nn.functional")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(textwrap.dedent(snippet), ns)  # noqa: S102 - the snippet is the test input
        except Exception as e:  # noqa: BLE001 - compared below
            kind = "RuntimeError" if isinstance(e, RuntimeError) else type(e).__name__
            print(f"{kind}: {str(e).splitlines()[0]}")
        for w in caught:
            print(f"warning {w.category.__name__}: {w.message}")
    return out.getvalue()


def same_on_both(snippet: str) -> str:
    want = _run(snippet, "torch")
    got = _run(snippet, "inplace_lab.torch")
    assert got == want
    return got


def test_requires_grad_propagates_like_pytorch():
    out = same_on_both("""
        x = torch.randn(5, 5)
        y = torch.randn(5, 5)
        z = torch.randn((5, 5), requires_grad=True)
        a = x + y
        print(a.requires_grad)
        b = a + z
        print(b.requires_grad)
    """)
    assert out == "False\nTrue\n"


def test_module_level_inplace_functions_exist_exactly_as_in_torch():
    out = same_on_both("""
        x = torch.tensor([-1., 0.5])
        print(torch.relu_(x) is x, torch.sin_(x) is x, x._version)
        torch.add_(x, x)
    """)
    assert out.endswith("AttributeError: module 'torch' has no attribute 'add_'\n")


def test_functional_inplace_flag_and_relu_():
    same_on_both("""
        x = torch.tensor([-1., 2., -3.])
        print(F.relu(x, inplace=True) is x, x, x._version)
        y = torch.tensor([-1., 2., -3.])
        print(F.relu_(y) is y, F.leaky_relu(y, 0.1, inplace=True) is y, y._version)
        print(F.relu(torch.tensor([-1., 1.])))
    """)


def test_leaf_inplace_error_and_no_grad_update():
    same_on_both("""
        w = torch.tensor([1., 2.], requires_grad=True)
        with torch.no_grad():
            w.mul_(2)
        print(w, w._version)
        w.add_(1)
    """)


def test_saved_tensor_version_error_text():
    same_on_both("""
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x.exp()
        y.add_(1)
        y.sum().backward()
    """)


def test_saved_tensors_hooks_skip_the_version_check():
    same_on_both("""
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.exp()
        y.add_(1)
        y.sum().backward()
        print(x.grad)
    """)


def test_increment_version_reports_out_of_band_writes():
    same_on_both("""
        x = torch.tensor([1., 2.])
        x.numpy()[0] = 5
        print(x._version)
        torch.autograd.graph.increment_version(x)
        print(x._version, x)
    """)


def test_variable_volatile_warns_and_has_no_effect():
    out = same_on_both("""
        x = torch.tensor([1., 2.])
        v = torch.autograd.Variable(x, volatile=True)
        print(v is x, v.requires_grad, v)
        w = torch.autograd.Variable(x, requires_grad=True)
        print(w.is_leaf, w.requires_grad)
    """)
    assert "volatile was removed and now has no effect" in out


def test_grad_mode_contexts_and_autograd_grad():
    same_on_both("""
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        with torch.no_grad():
            print((x * 2).requires_grad)
        with torch.inference_mode():
            print((x * 2).requires_grad)
        with torch.no_grad():
            with torch.enable_grad():
                print((x * 2).requires_grad)
        print(torch.autograd.grad((x * x).sum(), x))
    """)


def test_dtypes_and_creation_names():
    same_on_both("""
        print(torch.zeros(2, 3, dtype=torch.float64))
        print(torch.arange(5), torch.ones(2).dtype == torch.float32)
        print(torch.full((2,), 3), torch.eye(2), torch.linspace(0, 1, 3))
    """)


def test_module_inplace_names_are_the_torch_ones():
    torch = pytest.importorskip("torch")
    for name in dir(itorch):
        if name.endswith("_") and not name.startswith("_"):
            assert hasattr(torch, name), name
    assert set(api_names.MODULE_INPLACE) >= {n for n in dir(itorch) if n.endswith("_") and
                                             not n.startswith("_")}


def test_facade_tensors_carry_the_pytorch_policy_and_results_inherit_it():
    x = itorch.tensor([1.0, 2.0])
    assert x._policy == "pytorch"
    assert (x * 2)._policy == "pytorch"
    assert x[0]._policy == "pytorch"
    assert type(x) is itorch.Tensor


def test_cuda_unavailable_without_a_gpu():
    import inplace_lab as il

    il.set_simulated_gpu(False)
    if il.backend.gpu_count():
        pytest.skip("a real GPU is present")
    assert itorch.cuda.is_available() is False
