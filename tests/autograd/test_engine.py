"""The engine: backward/grad arguments, accumulation into leaves, freeing, second order.

Each program runs on torch 2.13 and on inplace_lab and the observations must agree
(values, grads, ``_version``, grad_fn names, error class and first line).
"""
import pytest

pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
from tests.differential.harness import attempt, compare_torch  # noqa: E402


def _leaf(T, data=(1., 2., 3.)):
    return T.tensor(list(data), requires_grad=True)


# ---- accumulation into leaves -------------------------------------------------------------------

def test_grad_accumulates_in_place_same_object_version_0_then_1():
    def prog(T):
        x = _leaf(T)
        (x * 2).sum().backward()
        g, v0 = x.grad, x.grad._version
        (x * 3).sum().backward()
        return {"same": g is x.grad, "v0": v0, "v1": x.grad._version, "grad": x.grad}
    compare_torch(prog)


def test_two_gradients_meeting_at_a_leaf_are_summed_in_place_version_1():
    # MulBackward0 sends two gradients to x's AccumulateGrad: the engine's buffer adds the
    # second into the first in place (PyTorch's InputBuffer), then the leaf steals it.
    def prog(T):
        x = _leaf(T)
        (x * x).sum().backward()
        return {"grad": x.grad, "v": x.grad._version}
    compare_torch(prog)


def test_user_gradient_is_copied_not_stolen():
    def prog(T):
        x = _leaf(T)
        g = T.tensor([1., 1., 1.])
        x.backward(g)
        y = _leaf(T)
        (y + 0).backward(g)
        return {"x_is_g": x.grad is g, "y_is_g": y.grad is g, "g_v": g._version,
                "x": x.grad, "y": y.grad}
    compare_torch(prog)


def test_preset_grad_is_accumulated_into():
    def prog(T):
        x = _leaf(T)
        x.grad = T.ones(3)
        g = x.grad
        (x * 2).sum().backward()
        return {"grad": x.grad, "same": g is x.grad, "v": g._version}
    compare_torch(prog)


def test_grad_of_expanded_leaf_is_dense_with_leaf_strides():
    def prog(T):
        x = T.ones(3, 2).t().requires_grad_()
        (x.expand(2, 2, 3) * 1).sum().backward()
        return {"grad": x.grad, "strides": list(x.grad.stride())}
    compare_torch(prog)


def test_backward_twice_without_saved_tensors_works():
    def prog(T):
        x = _leaf(T)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return {"grad": x.grad}
    compare_torch(prog)


# ---- freeing saved tensors ----------------------------------------------------------------------

def test_second_backward_raises_trying_to_backward_a_second_time():
    def prog(T):
        x = _leaf(T)
        y = (x * x).sum()
        y.backward()
        return {"second": attempt(y.backward), "grad": x.grad}
    compare_torch(prog)


def test_saved_self_after_free_raises_the_same_error():
    def prog(T):
        x = _leaf(T)
        y = x * x
        y.sum().backward()
        return {"read": attempt(lambda: y.grad_fn._saved_self)}
    compare_torch(prog)


def test_autograd_grad_twice_raises_and_retain_graph_allows_it():
    def prog(T):
        x = _leaf(T)
        y = (x * x).sum()
        g1, = T.autograd.grad(y, x, retain_graph=True)
        g2, = T.autograd.grad(y, x)
        return {"g1": g1, "g2": g2, "third": attempt(lambda: T.autograd.grad(y, x))}
    compare_torch(prog)


def test_retain_graph_keeps_saved_tensors():
    def prog(T):
        x = _leaf(T)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return {"grad": x.grad, "saved": y.grad_fn.next_functions[0][0]._saved_self}
    compare_torch(prog)


def test_saved_tensor_error_is_a_runtime_error_subclass():
    x = il.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


# ---- argument checks ----------------------------------------------------------------------------

ERROR_PROGRAMS = {
    "non_scalar": lambda T: (_leaf(T) * 2).backward(),
    "no_grad_fn": lambda T: T.ones(3).sum().backward(),
    "element_1": lambda T: T.autograd.backward([(_leaf(T) * 2).sum(), T.tensor(1.)]),
    "shape_mismatch": lambda T: (_leaf(T) * 2).backward(T.ones(2)),
    "grad_outputs_mismatch": lambda T: T.autograd.grad(_leaf(T) * 2, [T.ones(1)], T.ones(2)),
    "gradient_float": lambda T: T.autograd.backward([(_leaf(T) * 2).sum()], [2.0]),
    "tensor_backward_float": lambda T: (_leaf(T) * 2).sum().backward(2.0),
    "inputs_empty": lambda T: (_leaf(T) * 2).sum().backward(inputs=[]),
    "inputs_no_grad": lambda T: (_leaf(T) * 2).sum().backward(inputs=[T.ones(3)]),
    "grad_input_no_grad": lambda T: T.autograd.grad((_leaf(T) * 2).sum(), T.ones(3)),
    "grad_inputs_empty": lambda T: T.autograd.grad((_leaf(T) * 2).sum(), []),
    "unused": lambda T: T.autograd.grad((_leaf(T) * 2).sum(), [_leaf(T)]),
    "unused_index_1": lambda T: (lambda x: T.autograd.grad((x * 2).sum(), [x, _leaf(T)]))(
        _leaf(T)),
    "materialize_and_not_allow_unused": lambda T: T.autograd.grad(
        (_leaf(T) * 2).sum(), _leaf(T), allow_unused=False, materialize_grads=True),
    "int_scalar_implicit": lambda T: T.autograd.backward(
        [T.tensor(1, dtype=T.int64)], inputs=None),
}


@pytest.mark.parametrize("name", sorted(ERROR_PROGRAMS))
def test_argument_errors_match_torch(name):
    compare_torch(lambda T: {"r": attempt(lambda: ERROR_PROGRAMS[name](T))})


# ---- backward(inputs=...) and autograd.grad -------------------------------------------------------

def test_backward_inputs_accumulates_only_into_the_inputs():
    def prog(T):
        x, w = _leaf(T), _leaf(T, (4., 5., 6.))
        (x * w).sum().backward(inputs=[x])
        return {"x": x.grad, "w": w.grad}
    compare_torch(prog)


def test_backward_inputs_non_leaf_gets_grad_once_and_retains_grad():
    def prog(T):
        x, w = _leaf(T), _leaf(T, (4., 5., 6.))
        h = x * 2
        h.retain_grad()
        (h * w).sum().backward(inputs=[h])
        k = x * 3
        (k * w).sum().backward(inputs=k)
        return {"h": h.grad, "x": x.grad, "w": w.grad, "k": k.grad, "k_retains": k.retains_grad}
    compare_torch(prog)


def test_backward_inputs_runs_only_nodes_on_the_path():
    def prog(T):
        x, w = _leaf(T), _leaf(T, (4., 5., 6.))
        a, b = x * 2, w * 3
        log = []
        a.grad_fn.register_prehook(lambda g: log.append("a"))
        b.grad_fn.register_prehook(lambda g: log.append("b"))
        (a * b).sum().backward(inputs=[x])
        T.autograd.grad((a * b).sum(), [a])
        return {"log": log, "w": w.grad}
    compare_torch(prog)


def test_grad_returns_without_touching_dot_grad():
    def prog(T):
        x, w = _leaf(T), _leaf(T, (1., 1.))
        y = x * 2
        z = (y * y).sum()
        gy, = T.autograd.grad(z, y, retain_graph=True)
        gx, gw = T.autograd.grad(z, [x, w], allow_unused=True)
        return {"gy": gy, "gx": gx, "gw": gw, "x": x.grad,
                "mat": T.autograd.grad((x * x).sum(), [x, w], materialize_grads=True)}
    compare_torch(prog)


def test_grad_outputs_and_leaf_itself():
    def prog(T):
        x = _leaf(T)
        return {"vjp": T.autograd.grad(x * 2, x, grad_outputs=T.tensor([1., 0., 2.])),
                "self": T.autograd.grad(x, x, T.ones(3)),
                "sum": T.autograd.grad(x.sum(), x),
                "f64": T.autograd.grad((x * 2).sum(), x, T.tensor(1., dtype=T.float64))}
    compare_torch(prog)


def test_grad_with_dict_inputs_returns_dict():
    def prog(T):
        x, w = _leaf(T), _leaf(T, (4., 5., 6.))
        r = T.autograd.grad((x * w).sum(), {"x": x, "w": w})
        return {"keys": sorted(r), "x": r["x"], "w": r["w"]}
    compare_torch(prog)


def test_invalid_gradient_shape_from_a_function_is_reported_with_the_node_name():
    def prog(T):
        class Bad(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g[:1]
        x = _leaf(T)
        return {"r": attempt(lambda: Bad.apply(x).sum().backward())}
    compare_torch(prog)


# ---- create_graph: second-order gradients ---------------------------------------------------------

SECOND_ORDER = {
    "pow": lambda x: x ** 3,
    "exp_sin": lambda x: x.exp() * x.sin(),
    "mul_div": lambda x: (x * x) / (x + 1),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "log_sqrt": lambda x: x.log() * x.sqrt(),
    "cos_neg": lambda x: -x.cos(),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_gradients_match_torch(name):
    def prog(T):
        x = _leaf(T, (0.5, 1.0, 2.0))
        y = SECOND_ORDER[name](x).sum()
        g, = T.autograd.grad(y, x, create_graph=True)
        g2, = T.autograd.grad(g.sum(), x)
        return {"g": g, "g2": g2, "requires_grad": g.requires_grad, "x": x.grad}
    compare_torch(prog)


def test_backward_create_graph_makes_grad_differentiable():
    def prog(T):
        x = _leaf(T, (0.5, 1.0, 2.0))
        (x.exp() * x.sin()).sum().backward(create_graph=True)
        g = x.grad
        x.grad = None
        g.sum().backward()
        return {"g": g, "g_fn": g.grad_fn, "g2": x.grad}
    compare_torch(prog)


def test_backward_create_graph_warns_about_the_reference_cycle():
    x = il.tensor([1., 2.], requires_grad=True)
    with pytest.warns(UserWarning, match="^Using backward\\(\\) with create_graph=True"):
        (x * x).sum().backward(create_graph=True)


def test_second_backward_with_create_graph_adds_out_of_place():
    def prog(T):
        x = _leaf(T)
        (x * 2).sum().backward()
        g = x.grad
        (x * x).sum().backward(create_graph=True)
        return {"same": g is x.grad, "grad": x.grad, "fn": x.grad.grad_fn, "v": g._version}
    compare_torch(prog)


@pytest.mark.skipif(not hasattr(il, "matmul"), reason="ops/linalg.py not landed")
def test_second_order_through_matmul():
    def prog(T):
        a = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        b = T.tensor([[0.5, -1.], [2., 1.]], requires_grad=True)
        y = (T.matmul(a, b) * T.matmul(a, b)).sum()
        ga, gb = T.autograd.grad(y, [a, b], create_graph=True)
        h = T.autograd.grad((ga * ga).sum() + gb.sum(), [a, b])
        return {"ga": ga, "gb": gb, "h": h}
    compare_torch(prog)


def test_leaf_grad_copied_to_the_leaf_layout_is_a_fresh_version_zero_tensor():
    """AccumulateGrad's layout copy (a gradient arriving through w.t()) is not a user write."""
    def prog(T):
        w = T.ones(4, 3, requires_grad=True)
        T.ones(5, 3).matmul(w.t()).sum().backward()
        return {"v": w.grad._version, "stride": tuple(w.grad.stride()), "grad": w.grad}
    compare_torch(prog)
