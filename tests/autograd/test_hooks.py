"""Hooks and retain_grad, against torch: which gradient each hook sees, and in what order."""
import warnings

import pytest

pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
from tests.differential.harness import compare_torch  # noqa: E402


def _leaf(T, data=(1., 2., 3.)):
    return T.tensor(list(data), requires_grad=True)


def _lists(gs):
    return [None if g is None else g.tolist() for g in gs]


def test_leaf_hook_replaces_the_gradient_and_can_be_removed():
    def prog(T):
        x = _leaf(T)
        h = x.register_hook(lambda g: g * 10)
        (x * 2).sum().backward()
        first = x.grad.clone()
        h.remove()
        (x * 2).sum().backward()
        return {"first": first, "grad": x.grad}
    compare_torch(prog)


def test_leaf_hook_runs_under_autograd_grad_too():
    def prog(T):
        x = _leaf(T)
        x.register_hook(lambda g: g * 10)
        y = x * 1
        y.register_hook(lambda g: g * 100)
        return {"leaf": T.autograd.grad((x * 3).sum(), x),
                "non_leaf": T.autograd.grad((y * 3).sum(), y), "x": x.grad}
    compare_torch(prog)


def test_hook_order_tensor_hook_retain_prehook_posthook_leaf():
    def prog(T):
        x = _leaf(T)
        y = x * 1
        log = []
        y.grad_fn.register_prehook(lambda go: log.append(("node_pre", _lists(go))))
        y.register_hook(lambda g: log.append(("tensor", g.tolist())) or g * 2)
        y.retain_grad()
        y.grad_fn.register_hook(lambda gi, go: log.append(("node_post", _lists(gi), _lists(go))))
        x.register_hook(lambda g: log.append(("leaf", g.tolist())))
        y.sum().backward()
        return {"log": log, "y_grad": y.grad, "x_grad": x.grad}
    compare_torch(prog)


def test_node_hooks_may_replace_gradients():
    def prog(T):
        x = _leaf(T)
        y = x * 2
        y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
        y.sum().backward()
        return {"grad": x.grad}
    compare_torch(prog)


def test_hook_registered_before_inplace_sees_gradient_of_old_value():
    def prog(T):
        x = _leaf(T)
        y = x * 2
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()))
        y.mul_(3)
        y.register_hook(lambda g: seen.append(("new", g.tolist())))
        (y * y).sum().backward()
        return {"seen": seen, "grad": x.grad, "fn": y.grad_fn}
    compare_torch(prog)


def test_retain_grad_survives_inplace_ops():
    def prog(T):
        x = _leaf(T)
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        (y * y).sum().backward()
        return {"y": y.grad, "x": x.grad, "retains": y.retains_grad, "fn": y.grad_fn}
    compare_torch(prog)


def test_retain_grad_accumulates_over_backwards():
    def prog(T):
        x = _leaf(T)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward(retain_graph=True)
        first = y.grad
        (y * y).sum().backward()
        return {"first": first, "y": y.grad, "same": first is y.grad}
    compare_torch(prog)


def test_reading_grad_of_non_leaf_warns_with_torch_text():
    def prog(T):
        y = _leaf(T) * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            g = y.grad
        return {"g": g, "msg": [str(m.message)[:120] for m in w]}
    compare_torch(prog)


def test_hook_errors_on_tensor_without_grad():
    def prog(T):
        def go(fn):
            try:
                fn()
            except RuntimeError as e:
                return str(e)
        return {"hook": go(lambda: T.ones(2).register_hook(lambda g: g)),
                "retain": go(lambda: T.ones(2).retain_grad())}
    compare_torch(prog)


def test_next_functions_names_and_output_numbers():
    def prog(T):
        x = _leaf(T)
        y = (x * 2 + x).sum()

        def walk(n):
            if n is None:
                return None
            return [n.name(), [[walk(c), nr] for c, nr in n.next_functions]]
        return {"graph": walk(y.grad_fn), "leaf_fn": x.grad_fn,
                "acc_var": y.grad_fn.next_functions[0][0].next_functions[0][0]
                .next_functions[0][0].variable is x}
    compare_torch(prog)


def test_node_metadata_is_an_empty_user_dict_and_node_is_callable():
    def prog(T):
        x = _leaf(T)
        y = x * x
        y.grad_fn.metadata["k"] = 1
        z = x * 2
        return {"meta": sorted(y.grad_fn.metadata.items()), "z_meta": len(z.grad_fn.metadata),
                "call": list(z.grad_fn(T.ones(3))),
                "order": y.grad_fn._sequence_nr() < z.grad_fn._sequence_nr(),
                "is_node": isinstance(y.grad_fn, T.autograd.graph.Node)}
    compare_torch(prog)


def test_hook_handle_is_a_context_manager():
    x = il.tensor([1., 2.], requires_grad=True)
    with x.register_hook(lambda g: g * 0):
        (x * 2).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
