"""Saved tensors: torch's ``_saved_<name>`` attributes, version checks, hooks and their hole."""
import pytest

pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
from tests.differential.harness import attempt, compare_torch  # noqa: E402


def _leaf(T, data=(1., 2., 3.)):
    return T.tensor(list(data), requires_grad=True)


def test_saved_attribute_names_match_torch():
    def prog(T):
        x = _leaf(T)
        y = x * x
        z = x.exp()
        k = x * 2
        return {"mul": y.grad_fn, "self": y.grad_fn._saved_self, "other": y.grad_fn._saved_other,
                "self_is_x": y.grad_fn._saved_self is x,
                "exp": z.grad_fn, "result": z.grad_fn._saved_result,
                "result_fn": z.grad_fn._saved_result.grad_fn,
                "result_is_z": z.grad_fn._saved_result is z,
                "scalar_other": k.grad_fn._saved_other, "unsaved_self": k.grad_fn._saved_self}
    compare_torch(prog)


def test_missing_saved_attribute_is_an_attribute_error():
    y = il.tensor([1., 2.], requires_grad=True).exp()
    with pytest.raises(AttributeError):
        y.grad_fn._saved_nothing


def test_reading_a_saved_tensor_after_inplace_raises_with_torch_text():
    def prog(T):
        x = _leaf(T)
        z = x.exp()
        fn = z.grad_fn
        z.add_(1)
        h = x * 1
        w = h * h
        h.add_(1)
        return {"result": attempt(lambda: fn._saved_result),
                "input": attempt(lambda: w.grad_fn._saved_self),
                "backward": attempt(lambda: w.sum().backward())}
    compare_torch(prog)


def test_mul_saves_an_operand_only_if_the_other_needs_grad():
    def prog(T):
        x = _leaf(T)
        y = x * 2
        y.add_(1)
        y.sum().backward()
        ok = x.grad.clone()
        e = x.exp()
        e.add_(1)
        return {"mul_ok": ok, "exp": attempt(lambda: e.sum().backward())}
    compare_torch(prog)


def test_no_grad_modifies_version():
    # PyTorch's test_autograd.py::test_no_grad_modifies_version
    def prog(T):
        x, y = _leaf(T), _leaf(T, (4., 5., 6.))
        z = (x * y).sum()
        with T.no_grad():
            x *= 2
        return {"v": x._version, "backward": attempt(z.backward)}
    compare_torch(prog)


def test_version_counter():
    # PyTorch's test_autograd.py::test_version_counter, observed rather than asserted
    def prog(T):
        x = T.tensor([[0.5, -1.0]])
        seen = [x._version]
        x.add_(1).add_(1)
        seen.append(x._version)
        xz = x[:]
        seen.append((x._version, xz._version))
        xz.add_(1)
        seen.append((x._version, xz._version))
        x.data = T.ones(2, 3)
        seen.append(x._version)
        x.add_(1)
        seen.append((x._version, xz._version))
        xz.add_(1)
        seen.append((x._version, xz._version))
        return {"seen": seen}
    compare_torch(prog)


# ---- saved_tensors_hooks and increment_version --------------------------------------------------

def test_saved_tensors_hooks_pack_on_save_unpack_on_use():
    def prog(T):
        log = []

        def pack(t):
            log.append(("pack", t.tolist()))
            return t * 1

        def unpack(t):
            log.append(("unpack", t.tolist()))
            return t
        x = _leaf(T)
        with T.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).sum()
        y.backward()
        return {"log": log, "grad": x.grad}
    compare_torch(prog)


def test_saved_tensors_hooks_skip_the_version_check_silently_wrong():
    # PyTorch's hole, kept on purpose: with hooks there is no counter to check, so
    # backward uses the zeroed result and x.grad silently becomes 0.
    def prog(T):
        x = _leaf(T)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.exp()
        y.detach().mul_(0)
        r = attempt(lambda: y.sum().backward())
        return {"r": r, "grad": x.grad, "v": y._version}
    compare_torch(prog)


def test_without_hooks_the_same_program_raises():
    def prog(T):
        x = _leaf(T)
        y = x.exp()
        y.detach().mul_(0)
        return {"r": attempt(lambda: y.sum().backward()), "grad": x.grad}
    compare_torch(prog)


def test_increment_version_reports_an_out_of_band_write():
    def prog(T):
        x = _leaf(T)
        y = x.exp()
        y.detach().numpy()[:] = 0  # invisible to autograd ...
        silent = y._version
        T.autograd.graph.increment_version(y)  # ... until reported
        T.autograd.graph.increment_version([y, x])
        return {"silent": silent, "v": y._version, "xv": x._version,
                "r": attempt(lambda: y.sum().backward())}
    compare_torch(prog)


def test_saved_output_error_names_custom_function():
    def prog(T):
        class H(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                r = x.exp()
                ctx.save_for_backward(r)
                return r

            @staticmethod
            def backward(ctx, g):
                r, = ctx.saved_tensors
                return g * r
        x = _leaf(T)
        r = H.apply(x)
        r.add_(1)
        return {"r": attempt(lambda: r.sum().backward())}
    compare_torch(prog)
