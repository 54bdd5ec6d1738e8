"""Grad modes, requires_grad propagation, detach/data and the requires_grad_ errors, vs torch."""
import threading

import pytest

pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
from tests.differential.harness import attempt, compare_torch  # noqa: E402


def _leaf(T, data=(1., 2., 3.)):
    return T.tensor(list(data), requires_grad=True)


def test_requires_grad_propagates_from_any_input():
    def prog(T):
        x, y, z = T.ones(3), T.ones(3), T.ones(3, requires_grad=True)
        a = x + y
        b = a + z
        return {"a": a.requires_grad, "b": b.requires_grad, "a_leaf": a.is_leaf,
                "b_leaf": b.is_leaf, "b_fn": b.grad_fn, "a_fn": a.grad_fn}
    compare_torch(prog)


def test_no_grad_and_enable_grad_nest():
    def prog(T):
        x = _leaf(T)
        with T.no_grad():
            y = x * 2
            inside = T.is_grad_enabled()
            with T.enable_grad():
                z = x * 2
        return {"y": y.requires_grad, "y_fn": y.grad_fn, "z": z.requires_grad,
                "inside": inside, "after": T.is_grad_enabled()}
    compare_torch(prog)


def test_set_grad_enabled_as_call_context_and_decorator():
    def prog(T):
        x = _leaf(T)
        T.set_grad_enabled(False)
        a = (x * 2).requires_grad
        T.set_grad_enabled(True)
        with T.set_grad_enabled(False):
            b = (x * 2).requires_grad

        @T.set_grad_enabled(False)
        def f():
            return (x * 2).requires_grad, T.is_grad_enabled()

        @T.no_grad()
        def g():
            return (x * 2).requires_grad

        @T.no_grad
        def h():
            return (x * 2).requires_grad

        @T.enable_grad()
        def k():
            return (x * 2).requires_grad
        with T.no_grad():
            kk = k()
        return {"a": a, "b": b, "after_decoration": T.is_grad_enabled(), "f": f(), "g": g(),
                "h": h(), "k": kk, "end": T.is_grad_enabled()}
    compare_torch(prog)


def test_no_grad_decorates_generators():
    def prog(T):
        x = _leaf(T)

        @T.no_grad()
        def gen():
            yield (x * 2).requires_grad
            yield T.is_grad_enabled()
        return {"g": list(gen()), "after": T.is_grad_enabled()}
    compare_torch(prog)


def test_inference_mode_disables_recording():
    def prog(T):
        x = _leaf(T)
        with T.inference_mode():
            y = x * 2
            state = (T.is_grad_enabled(), T.is_inference_mode_enabled())
            with T.inference_mode(False):
                inner = (T.is_grad_enabled(), T.is_inference_mode_enabled())

        @T.inference_mode()
        def f():
            return (x * 2).requires_grad

        @T.inference_mode
        def g():
            return T.is_inference_mode_enabled()
        return {"y": y.requires_grad, "state": state, "inner": inner, "f": f(), "g": g(),
                "after": (T.is_grad_enabled(), T.is_inference_mode_enabled())}
    compare_torch(prog)


@pytest.mark.parametrize("lib", ["torch", "il"])
def test_grad_mode_is_thread_local(lib):
    T = il if lib == "il" else pytest.importorskip("torch")
    seen = []
    with T.no_grad():
        t = threading.Thread(target=lambda: seen.append(T.is_grad_enabled()))
        t.start()
        t.join()
        seen.append(T.is_grad_enabled())
    assert seen == [True, False]


def test_no_grad_inplace_on_leaf_is_allowed_and_not_recorded():
    def prog(T):
        x = _leaf(T)
        y = x * 2
        with T.no_grad():
            y.mul_(3)
            x.add_(1)
        y.sum().backward()
        return {"grad": x.grad, "xv": x._version, "yv": y._version, "y_fn": y.grad_fn}
    compare_torch(prog)


def test_leaf_assignment():
    # PyTorch's test_autograd.py::test_leaf_assignment (and test_no_grad_assignment)
    def prog(T):
        x = T.zeros(5, 5)
        y = T.tensor([1., 2., 3., 4., 5.], requires_grad=True)
        z = T.tensor([5., 4., 3., 2., 1.], requires_grad=True)
        x[0] = y
        x[1] = 2 * z
        out = {"rg": x.requires_grad, "fn": x.grad_fn, "leaf": x.is_leaf, "v": x._version}
        x.sum().backward()
        out.update(y=y.grad, z=z.grad)
        w = T.zeros(5, 5, requires_grad=True)
        with T.no_grad():
            w[0] = y
        out.update(w_rg=w.requires_grad, w_fn=w.grad_fn,
                   w_err=attempt(lambda: w.__setitem__(0, y)))
        return out
    compare_torch(prog)


# ---- requires_grad_ and its errors ----------------------------------------------------------------

REQUIRES_GRAD_ERRORS = {
    "non_leaf_off": lambda T: (_leaf(T) * 2).requires_grad_(False),
    "non_leaf_attr_off": lambda T: setattr(_leaf(T) * 2, "requires_grad", False),
    "int_method": lambda T: T.ones(2, dtype=T.int64).requires_grad_(),
    "int_attribute": lambda T: setattr(T.ones(2, dtype=T.int64), "requires_grad", True),
    "int_factory": lambda T: T.tensor([1, 2], requires_grad=True),
    "int_ones_factory": lambda T: T.ones(2, dtype=T.int64, requires_grad=True),
    "bool_method": lambda T: T.zeros(2, dtype=T.bool).requires_grad_(),
    "detach_view_": lambda T: (_leaf(T) * 2)[1:].detach_(),
}


@pytest.mark.parametrize("name", sorted(REQUIRES_GRAD_ERRORS))
def test_requires_grad_errors_match_torch(name):
    compare_torch(lambda T: {"r": attempt(lambda: REQUIRES_GRAD_ERRORS[name](T))})


def test_requires_grad_allowed_cases():
    def prog(T):
        y = _leaf(T) * 2
        return {"on_non_leaf": y.requires_grad_(True).requires_grad,
                "int_off": T.ones(2, dtype=T.int64).requires_grad_(False).requires_grad,
                "complex": T.ones(2, dtype=T.complex64).requires_grad_().requires_grad}
    compare_torch(prog)


# ---- detach, detach_ and .data --------------------------------------------------------------------

def test_detach_shares_storage_and_version_counter():
    def prog(T):
        x = _leaf(T)
        y = x * 2
        d = y.detach()
        d.zero_()
        return {"dv": d._version, "yv": y._version, "y": y, "rg": d.requires_grad,
                "leaf": d.is_leaf, "view": d._is_view(), "fn": d.grad_fn}
    compare_torch(prog)


def test_detach_then_zero_raises_at_backward():
    def prog(T):
        x = _leaf(T)
        y = x.exp()
        y.detach().zero_()
        return {"r": attempt(lambda: y.sum().backward()), "grad": x.grad}
    compare_torch(prog)


def test_data_zero_silently_corrupts_gradients():
    # The classic lesson: .data has a fresh version counter, so nothing notices the write.
    def prog(T):
        x = _leaf(T)
        y = x.exp()
        d = y.data
        d.zero_()
        y.sum().backward()
        return {"grad": x.grad, "yv": y._version, "dv": d._version, "fresh": y.data._version,
                "rg": d.requires_grad, "leaf": d.is_leaf, "fn": d.grad_fn}
    compare_torch(prog)


def test_detach_inplace_cuts_history_without_bump():
    def prog(T):
        x = _leaf(T)
        y = x * 2
        r = y.detach_()
        return {"same": r is y, "rg": y.requires_grad, "fn": y.grad_fn, "leaf": y.is_leaf,
                "v": y._version}
    compare_torch(prog)
