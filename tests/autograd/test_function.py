"""Custom autograd Functions, against ``torch.autograd.Function``.

Each Function class is defined inside the program from ``T.autograd.Function``, so the same
source runs on torch and on inplace_lab.
"""
import pytest

pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
from tests.differential.harness import attempt, compare_torch  # noqa: E402


def _leaf(T, data=(1., 2., 3.)):
    return T.tensor(list(data), requires_grad=True)


def _scale(T):
    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * k, x + 1

        @staticmethod
        def backward(ctx, g1, g2):
            x, = ctx.saved_tensors
            return g1 * ctx.k + g2 * x, None
    return Scale


def test_apply_builds_a_named_node_with_edges_to_tensor_args_only():
    def prog(T):
        x = _leaf(T)
        y, z = _scale(T).apply(x, 3)
        y2 = y * 1
        (y2.sum() + z.sum()).backward()
        return {"fn": y.grad_fn, "shared": y.grad_fn is z.grad_fn,
                "needs": list(y.grad_fn.needs_input_grad), "k": y.grad_fn.k,
                "edges": [n for n, _ in y.grad_fn.next_functions],
                "grad": x.grad, "cls": type(y.grad_fn).__name__}
    compare_torch(prog)


def test_saved_tensors_are_version_checked_with_torch_text():
    def prog(T):
        x = _leaf(T)
        h = x * 1
        y, _ = _scale(T).apply(h, 3)
        h.add_(1)
        return {"r": attempt(lambda: y.sum().backward())}
    compare_torch(prog)


def test_saved_tensors_are_freed_after_backward():
    def prog(T):
        x = _leaf(T)
        y, _ = _scale(T).apply(x, 3)
        y.sum().backward()
        return {"r": attempt(lambda: y.grad_fn.saved_tensors), "again": attempt(
            lambda: y.sum().backward())}
    compare_torch(prog)


def _dirty(T):
    class MulTwo_(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return MulTwo_


def test_mark_dirty_bumps_again_and_rebases_history():
    def prog(T):
        a = _leaf(T)
        b = a * 1
        out = _dirty(T).apply(b)
        fn = b.grad_fn
        b.sum().backward()
        return {"same": out is b, "v": b._version, "fn": fn,
                "next": [n for n, _ in fn.next_functions], "grad": a.grad, "b": b}
    compare_torch(prog)


def test_mark_dirty_on_a_leaf_that_requires_grad_raises():
    def prog(T):
        a = _leaf(T)
        return {"r": attempt(lambda: _dirty(T).apply(a)), "v": a._version, "a": a.detach()}
    compare_torch(prog)


def test_mark_dirty_on_a_view_rewrites_the_base_as_copyslices():
    def prog(T):
        a = _leaf(T, (1., 2., 3., 4.))
        b = a * 1
        v = b[1:3]
        _dirty(T).apply(v)
        b.sum().backward()
        return {"base_fn": b.grad_fn, "view_fn": v.grad_fn, "grad": a.grad,
                "v": (b._version, v._version), "b": b}
    compare_torch(prog)


def test_return_leaf_inplace():
    # PyTorch's test_autograd.py::test_return_leaf_inplace
    def prog(T):
        class Inplace(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.mark_dirty(a)
                return a.add_(b), b + 2

            @staticmethod
            def backward(ctx, grad_a, grad_b):
                return grad_a, grad_a + grad_b
        x = T.zeros(2, 2)
        y = T.ones(2, 2, requires_grad=True)
        q, p = Inplace.apply(x, y)
        out = {"is_x": q is x, "cls": type(q.grad_fn) is Inplace._backward_cls,
               "rg": q.requires_grad, "v": x._version}
        q.sum().backward()
        out["y"] = y.grad
        return out
    compare_torch(prog)


def test_an_input_returned_as_is_comes_back_as_a_view():
    def prog(T):
        class Id(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 5
        x = _leaf(T)
        o = Id.apply(x)
        o.sum().backward()
        return {"is_x": o is x, "view": o._is_view(), "base": o._base is x, "fn": o.grad_fn,
                "grad": x.grad}
    compare_torch(prog)


def test_non_differentiable_outputs_and_materialized_zero_grads():
    def prog(T):
        seen = []

        class ArgMax(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                a, b = x * 2, x.argmax()
                ctx.mark_non_differentiable(b)
                return a, b

            @staticmethod
            def backward(ctx, ga, gb):
                seen.append(gb)
                return ga * 2

        class NoMat(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                seen.append(gb)
                return ga * 2
        x = _leaf(T)
        a, b = ArgMax.apply(x)
        a.sum().backward()
        c, _ = NoMat.apply(x)
        c.sum().backward()
        return {"b_rg": b.requires_grad, "a_rg": a.requires_grad, "seen": seen, "grad": x.grad}
    compare_torch(prog)


def test_no_grad_apply_records_nothing():
    # PyTorch's test_autograd.py::test_no_grad_input
    def prog(T):
        x = _leaf(T)
        with T.no_grad():
            y, _ = _scale(T).apply(x, 2)
        return {"x_rg": x.requires_grad, "fn": y.grad_fn, "rg": y.requires_grad}
    compare_torch(prog)


BAD_BACKWARDS = {
    "too_few": lambda g: g,
    "grad_for_non_tensor": lambda g: (g, g),
}


@pytest.mark.parametrize("name", sorted(BAD_BACKWARDS))
def test_backward_returning_wrong_gradients_is_refused(name):
    def prog(T):
        class Bad(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return BAD_BACKWARDS[name](g)
        return {"r": attempt(lambda: Bad.apply(_leaf(T), 2).sum().backward())}
    compare_torch(prog)


def test_extra_none_gradients_are_accepted():
    def prog(T):
        class Extra(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, None, None
        x = _leaf(T)
        Extra.apply(x).sum().backward()
        return {"grad": x.grad}
    compare_torch(prog)


def test_setup_context_style():
    def prog(T):
        class Scale(T.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.k = inputs[1]
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * ctx.k + x * 0, None
        x = _leaf(T)
        Scale.apply(x, 5).sum().backward()
        return {"grad": x.grad}
    compare_torch(prog)


def test_double_backward_through_a_custom_function():
    def prog(T):
        class Cube(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 3 * x ** 2 * g
        x = _leaf(T)
        g, = T.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        g2, = T.autograd.grad(g.sum(), x)
        return {"g": g, "g2": g2}
    compare_torch(prog)


def test_once_differentiable_backward_runs_without_grad():
    seen = []

    class F(il.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @il.autograd.once_differentiable
        def backward(ctx, g):
            seen.append(il.is_grad_enabled())
            return g * 2
    x = il.tensor([1., 2.], requires_grad=True)
    g, = il.autograd.grad(F.apply(x).sum(), x, create_graph=True)
    assert seen == [False] and not g.requires_grad and g.tolist() == [2.0, 2.0]
