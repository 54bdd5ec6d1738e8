"""Regressions the wide program sweep (program_builder_wide.py) found, minimised, vs torch 2.13
and paddle 3.3.1: special values, integer and bool kernels, 0-d operands, hooks' gradients,
clamp's tensor bounds, out= aliasing, resize_, and the Paddle/torch name splits (equal, sign)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.differential.harness import assert_same, attempt, compare_torch, probe, run

torch = pytest.importorskip("torch")

SPECIAL = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, -2.5, 1.0]


def _special(T):
    return T.tensor(SPECIAL)


@pytest.mark.parametrize("fn", [
    lambda T, x: x.sign(), lambda T, x: x.sgn(), lambda T, x: T.threshold(x, 0.5, -1.0),
    lambda T, x: x.lgamma(), lambda T, x: x.rsqrt(), lambda T, x: T.signbit(x),
    lambda T, x: T.isposinf(x), lambda T, x: T.isneginf(x),
    lambda T, x: x.div(2, rounding_mode="floor"), lambda T, x: x.div(2, rounding_mode="trunc"),
    lambda T, x: T.lerp(x, T.ones(7), 1.0), lambda T, x: T.lerp(x, T.ones(7), 0.5),
    lambda T, x: T.lerp(x, T.ones(7), T.full((7,), 0.75)),
    lambda T, x: T.nn.functional.hardtanh(x), lambda T, x: T.nn.functional.relu6(x),
    lambda T, x: x.half().sigmoid(), lambda T, x: x.half().erf(), lambda T, x: x.half().lgamma(),
], ids=["sign", "sgn", "threshold", "lgamma", "rsqrt", "signbit", "isposinf", "isneginf",
        "div_floor", "div_trunc", "lerp_w1", "lerp_half", "lerp_tensor_w", "hardtanh", "relu6",
        "sigmoid_f16", "erf_f16", "lgamma_f16"])
def test_nan_inf_and_signed_zero_through_pointwise_ops(fn):
    compare_torch(lambda T: {"r": fn(T, _special(T))})


@pytest.mark.parametrize("fn", [
    lambda T, x: x.lerp(T.ones(3), 0.5), lambda T, x: T.addcmul(x, x, x, value=2),
    lambda T, x: T.addcdiv(x, x, T.tensor(4.), value=2), lambda T, x: x.div(x, rounding_mode="floor"),
    lambda T, x: x.rsqrt(), lambda T, x: T.nn.Hardsigmoid()(x),
    lambda T, x: T.threshold(x, 1.0, 0.0),
], ids=["lerp", "addcmul", "addcdiv", "div_floor", "rsqrt", "hardsigmoid", "threshold"])
def test_zero_dim_operands(fn):
    compare_torch(lambda T: {"r": fn(T, T.tensor(2.5))})


@pytest.mark.parametrize("fn", [
    lambda T: T.nn.functional.gelu(T.arange(3)), lambda T: T.nn.functional.silu(T.arange(3)),
    lambda T: T.nn.functional.softplus(T.arange(3)),
    lambda T: T.nn.functional.mish(T.tensor([True])),
    lambda T: T.softmax(T.arange(3), 0), lambda T: T.log_softmax(T.arange(6).reshape(2, 3), 0),
    lambda T: T.tensor([True, False]).argmax(), lambda T: T.tensor([True, False]).argmin(0),
    lambda T: T.addcmul(T.tensor([True]), T.tensor([True]), T.tensor([True])),
    lambda T: T.ones(2, 2, dtype=T.bool) @ T.ones(2, 2, dtype=T.bool),
    lambda T: T.ones(2, dtype=T.bool).dot(T.ones(2, dtype=T.bool)),
    lambda T: T.mv(T.ones(2, 2, dtype=T.bool), T.ones(2, dtype=T.bool)),
    lambda T: T.bmm(T.ones(1, 2, 2, dtype=T.bool), T.ones(1, 2, 2, dtype=T.bool)),
    lambda T: T.arange(3).lerp(T.arange(3), 0.5),
    lambda T: T.arange(3).lerp(T.arange(3), T.arange(3)),
    lambda T: T.nn.functional.hardtanh(T.tensor([True, False])),
    lambda T: T.nn.functional.hardtanh(T.tensor([0, 200], dtype=T.uint8)),
    lambda T: T.nn.functional.relu6(T.tensor([0, 200], dtype=T.uint8)),
    lambda T: T.nn.functional.hardtanh(T.ones(2), 1.0, -1.0),
], ids=["gelu", "silu", "softplus", "mish", "softmax", "log_softmax", "argmax", "argmin",
        "addcmul", "matmul", "dot", "mv", "bmm", "lerp_scalar_w", "lerp_tensor_w",
        "hardtanh_bool", "hardtanh_uint8", "relu6_uint8", "hardtanh_min_gt_max"])
def test_integer_and_bool_kernels_raise_or_compute_as_torch(fn):
    compare_torch(lambda T: {"r": fn(T)}, facade=True)


def test_bincount_values_weights_and_errors():
    def prog(T):
        x = T.tensor([0, 3, 3, 1])
        w = T.tensor([0.5, 1.0, 2.0, 4.0], requires_grad=True)
        r = T.bincount(x, weights=w, minlength=6)
        return {"plain": T.bincount(x), "min": x.bincount(minlength=2), "w": r,
                "fn": r.grad_fn, "back": attempt(lambda: r.sum().backward()),
                "neg": probe(lambda: T.bincount(T.tensor([-1, 2]))),
                "float": probe(lambda: T.bincount(T.tensor([1.0]))),
                "2d": probe(lambda: T.bincount(T.zeros(2, 2, dtype=T.long))),
                "empty": T.bincount(T.tensor([], dtype=T.long))}
    compare_torch(prog)


def test_equal_is_one_bool_in_torch():
    compare_torch(lambda T: {"same": T.equal(T.ones(2), T.ones(2)),
                             "shape": T.equal(T.ones(2), T.ones(1)),
                             "method": T.ones(2).equal(T.zeros(2)),
                             "eq": T.eq(T.ones(2), T.tensor([1.0, 0.0]))})


def _compare_paddle_facade(prog):
    """``prog(paddle)`` against ``prog(inplace_lab.paddle)``: Paddle's own namespace."""
    paddle = pytest.importorskip("paddle")
    import inplace_lab.paddle as ilp

    assert_same(run(prog, paddle), run(prog, ilp), ref_name="paddle")


def test_equal_is_elementwise_and_equal_all_one_bool_in_paddle():
    def prog(P):
        a, b = P.to_tensor([1.0, 2.0]), P.to_tensor([1.0, 3.0])
        return {"equal": P.equal(a, b), "method": a.equal(b), "all": P.equal_all(a, b),
                "all_same": P.equal_all(a, a), "all_shape": P.equal_all(a, P.to_tensor([1.0])),
                "dtype": probe(lambda: P.equal_all(a, P.to_tensor([1, 2])))}
    _compare_paddle_facade(prog)


def test_sign_keeps_nan_in_paddle():
    _compare_paddle_facade(lambda P: {"r": P.sign(P.to_tensor([float("nan"), -2.0, 0.0, 3.0]))})


def test_clamp_with_tensor_bounds_edges_and_gradients():
    def prog(T):
        out = {}
        for name, kw in [("min", dict(min=T.tensor([0.0, 0.0, 5.0]))),
                         ("max", dict(max=T.tensor([0.0, 3.0, 0.0]))),
                         ("both", dict(min=T.tensor([0.0, 2.0, 1.0, 1.0]),
                                       max=T.tensor([1.0, 1.0, 3.0, 3.0])))]:
            n = len(next(iter(kw.values())))
            x = T.tensor([-1.0, 2.5, 7.0, 2.0][:n], requires_grad=True)
            bounds = {k: v.clone().requires_grad_() for k, v in kw.items()}
            y = x.clamp(**bounds)
            y.sum().backward()
            out[name] = {"y": y, "fn": y.grad_fn,
                         "edges": [None if f is None else (f.name(), i)
                                   for f, i in y.grad_fn.next_functions],
                         "gx": x.grad, **{f"g{k}": v.grad for k, v in bounds.items()}}
        return out
    compare_torch(prog)


@pytest.mark.parametrize("hook", ["new", "kept", "none", "clone"])
def test_a_hooks_gradient_is_stolen_into_grad_unless_the_hook_keeps_it(hook):
    def prog(T):
        kept = []
        fn = {"new": lambda g: g * 2, "kept": lambda g: kept.append(g * 2) or kept[-1],
              "none": lambda g: None, "clone": lambda g: g.clone()}[hook]
        x = T.ones(3, requires_grad=True)
        x.register_hook(fn)
        (x * 3).sum().backward()
        y = T.ones(3, requires_grad=True)
        z = y * 2
        z.register_hook(fn)
        (z * 3).sum().backward()
        return {"x": x.grad, "xv": x.grad._version, "y": y.grad, "yv": y.grad._version}
    compare_torch(prog)


def test_resize_refuses_grad_under_no_grad_and_keeps_strides_for_the_same_sizes():
    def prog(T):
        x = T.ones(2, 3, requires_grad=True)
        with T.no_grad():
            err = attempt(lambda: x.resize_(6))
        t = T.arange(6.).reshape(2, 3).t()
        t.resize_(3, 2)
        return {"err": err, "v": x._version, "stride": list(t.stride()), "tv": t._version,
                "t": t}
    compare_torch(prog)


def test_out_that_is_also_an_input_is_not_resized():
    def prog(T):
        a = T.ones(3)
        err = attempt(lambda: T.add(a, T.ones(2, 3), out=a))
        return {"err": err, "a": a, "v": a._version, "mul": probe(lambda: T.mul(a, 2, out=a))}
    compare_torch(prog)


def test_grad_of_a_leaf_resized_after_the_graph_was_built():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        y = (x * 2).sum()
        with T.no_grad():
            x.set_(T.ones(2, 3))
        return {"err": attempt(y.backward), "grad": x.grad}
    compare_torch(prog)


def test_trace_backward_writes_a_fresh_gradient():
    def prog(T):
        x = T.arange(9.).reshape(3, 3).requires_grad_()
        T.trace(x).backward()
        return {"g": x.grad, "v": x.grad._version, "fn": T.trace(x).grad_fn}
    compare_torch(prog, facade=True)


def test_set_of_a_tensor_that_requires_grad_is_a_not_implemented_node():
    import inplace_lab.torch as il

    def names(T):
        x = T.zeros(3, requires_grad=True).clone()
        with T.no_grad():
            pass
        x.set_(T.ones(3, requires_grad=True))
        return type(x.grad_fn).__name__, attempt(lambda: x.sum().backward())
    (tn, terr), (n, err) = names(torch), names(il)
    assert n == tn == "NotImplemented"
    assert err.cls is terr.cls and err.message == terr.message


def test_lerp_is_exact_at_the_ends_and_symmetric_around_half():
    def prog(T):
        a = T.tensor([1e8, -3.0, 0.1, float("inf")])
        b = T.tensor([1.0, 7.0, 0.3, 1.0])
        return {str(w): T.lerp(a, b, w) for w in (0.0, 0.25, 0.5, 0.75, 1.0)}
    ref = compare_torch(prog, rtol=0)
    assert np.array_equal(ref["1.0"][3][:3], np.array([1.0, 7.0, 0.3], dtype=np.float32))


def test_positive_is_its_input():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        y = x * 2
        return {"same": y.positive() is y, "op": (+y) is y, "fn": T.positive(y).grad_fn,
                "bool": attempt(lambda: +T.tensor([True])), "int": +T.arange(3)}
    compare_torch(prog)


_LAYOUT_INPUTS = {
    "transposed": lambda T: T.arange(24.).reshape(2, 3, 4).transpose(0, 2),
    "sliced": lambda T: T.arange(24.).reshape(2, 3, 4)[:, ::2],
    "one_element_strided": lambda T: T.arange(8.).reshape(4, 2)[:1, :1],  # strides (2, 1)
    "row_of_a_column": lambda T: T.arange(8.).reshape(4, 2)[:, :1].t(),  # (1, 4), strides (1, 2)
}


@pytest.mark.parametrize("inp", list(_LAYOUT_INPUTS))
@pytest.mark.parametrize("fn", [
    lambda T, x: T.nn.functional.hardtanh(x), lambda T, x: T.nn.functional.relu6(x),
    lambda T, x: x.nan_to_num(), lambda T, x: x.deg2rad(), lambda T, x: x.rad2deg(),
    lambda T, x: T.nn.functional.prelu(x, T.tensor([0.25])),
    lambda T, x: T.nn.functional.logsigmoid(x),
    lambda T, x: T.nn.functional.rrelu(x, training=False),
], ids=["hardtanh", "relu6", "nan_to_num", "deg2rad", "rad2deg", "prelu", "logsigmoid",
        "rrelu"])
def test_result_strides_of_empty_like_and_contiguous_kernels(fn, inp):
    """hardtanh, nan_to_num, deg2rad, prelu write into ``empty_like(self)`` (self's strides
    where dense); log_sigmoid and rrelu allocate row-major results."""
    def prog(T):
        r = fn(T, _LAYOUT_INPUTS[inp](T))
        return {"r": r, "stride": list(r.stride())}
    compare_torch(prog)


def test_two_gradients_reduced_by_sum_to_are_added_out_of_place():
    """torch's sum_to views its keepdim sum, and the engine adds into no view: the leaf's
    gradient is a fresh sum (version 0), through the array lane and the tensor formulas."""
    def prog(T):
        out = {}
        w = T.ones(1, 2, 1, dtype=T.float64)
        for name, f in [("mul", lambda t: w * t + t), ("pow", lambda t: w.pow(t) + t),
                        ("single", lambda t: w.pow(t))]:
            t0 = T.zeros(2, 1, dtype=T.float64, requires_grad=True)
            f(t0).sum().backward()
            out[name] = {"g": t0.grad, "v": t0.grad._version, "view": t0.grad._is_view()}
        x = T.ones(3, 2, 1, requires_grad=True)
        r = x.sum_to_size(2, 1)
        out["sum_to"] = {"fn": r.grad_fn, "next": [f.name() for f, _ in r.grad_fn.next_functions],
                         "view": r._is_view(), "same": x.sum_to_size(3, 2, 1) is x}
        return out
    compare_torch(prog)


def test_diag_of_a_matrix_is_a_copy_even_of_one_element():
    def prog(T):
        x = T.tensor([[1.0, 2.0, 3.0]])
        d = x[:, 2:].diag()
        d.add_(1)
        return {"x": x, "d": d, "alias": d.data_ptr() == x[:, 2:].data_ptr(), "xv": x._version}
    compare_torch(prog)


def test_fill_diagonal_is_fill_through_a_strided_view():
    def prog(T):
        y = T.tensor([[-1.5, 1.7, 1.1]], requires_grad=True) * 1
        y.fill_diagonal_(-1.0)
        y.sum().backward(retain_graph=True)
        tall = T.zeros(7, 3)
        tall.fill_diagonal_(5, wrap=True)
        t = T.arange(16.).reshape(4, 4).t()
        t.fill_diagonal_(-1)
        return {"fn": y.grad_fn, "v": y._version, "y": y, "tall": tall, "tv": tall._version,
                "t": t, "leaf": attempt(lambda: T.ones(3, 3, requires_grad=True).fill_diagonal_(0.)),
                "1d": attempt(lambda: T.zeros(3).fill_diagonal_(1)),
                "cube": attempt(lambda: T.zeros(3, 2, 3).fill_diagonal_(1))}
    compare_torch(prog)


def test_saved_inputs_are_checked_before_the_saved_result():
    def prog(T):
        t1 = T.zeros(3, 4, requires_grad=True) * 1
        t2 = T.tensor(0.73)
        t3 = t1.dist(t2)
        with T.no_grad():
            t3.trunc_()
        t1.copy_(t2.double())
        return {"err": attempt(lambda: t3.sum().backward())}
    compare_torch(prog)


@pytest.mark.parametrize("src", [
    "x.lerp_(d, 0.3)", "x[:2].lerp_(d[:2], 0.5)", "x.t().lerp_(d, 0.5)",
    "x.sub_(T.ones(3, dtype=T.bool))", "x.add_(T.ones(2))", "x.addcmul_(d, d)",
    "T.ones(3, dtype=T.long).clamp_(0.5)", "T.ones(3, dtype=T.long).clamp_min_(0.5)",
    "T.ones(3, dtype=T.uint8).clamp_max_(0.5)", "T.ones(3, dtype=T.long).clamp_(T.tensor(0.5))",
    "T.ones(3, dtype=T.int32).add_(0.5)",
])
def test_in_place_autograd_checks_come_before_the_kernels_dtype_checks(src):
    def prog(T):
        x = T.ones(3, requires_grad=True)
        d = T.ones(3, dtype=T.float64)
        return {"err": attempt(lambda: eval(src, {"T": T, "x": x, "d": d})),  # noqa: S307
                "v": x._version}
    compare_torch(prog, facade=True)


def test_clamp_refuses_a_tensor_bound_beside_a_number_bound():
    def prog(T):
        x = T.tensor([-1.0, 0.5, 3.0], requires_grad=True)
        return {"fn_mixed": attempt(lambda: T.clamp(x, min=0.0, max=T.ones(3))),
                "fn_pos": attempt(lambda: T.clamp(x, T.zeros(3), 2)),
                "zero_dim": x.clamp(min=T.tensor(0.0), max=1.0),
                "zero_dim_fn": x.clamp(0.0, T.tensor(1.0)).grad_fn,
                "both": x.clamp(T.zeros(3), T.ones(3)).grad_fn}
    compare_torch(prog, facade=True)


def test_addcdiv_refuses_integer_division_only():
    def prog(T):
        i = T.ones(2, dtype=T.long)
        return {"ints": probe(lambda: T.addcdiv(T.ones(2), i, i)),
                "bool_int": probe(lambda: T.addcdiv(T.ones(2), T.ones(2, dtype=T.bool),
                                                    T.ones(2, dtype=T.int32))),
                "mixed": T.addcdiv(T.ones(2), i, T.ones(2)),
                "int_self": T.addcdiv(i, T.ones(2), T.ones(2))}
    compare_torch(prog)


def test_masked_scatter_reads_an_overlapping_source_as_a_copy():
    def prog(T):
        a = T.arange(6.)
        a.masked_scatter_(a > 2, a)
        b = T.arange(6.)
        b[:3].masked_scatter_(T.tensor([True, False, True]), b[2:])
        c = T.arange(4.).reshape(2, 2)
        c.masked_scatter_(c > 0, c.t())
        e = T.arange(8.).reshape(4, 2)
        err = attempt(lambda: e.masked_scatter_(e > -1, e.as_strided((2,), (2,), 0)))
        return {"a": a, "b": b, "c": c, "err": err}  # (e: torch wrote its first cells)
    compare_torch(prog)


def test_more_backward_formulas_as_torch():
    def prog(T):
        out = {}
        x = T.ones(2, 2, requires_grad=True)
        x.diag().sum().backward()
        out["diag_v"] = x.grad._version
        a = T.zeros(3, requires_grad=True)
        b = T.zeros(3, requires_grad=True)
        T.atan2(a, b).sum().backward()
        out["atan2"] = [a.grad, b.grad]
        t0 = T.ones(2, 3, requires_grad=True)
        with T.no_grad():
            t0.transpose_(0, 1)
        t0.unsqueeze(0).sign().pow(2).sum().backward()
        out["sign"] = [t0.grad._version, list(t0.grad.stride())]
        t6 = T.tensor([[0.83, -2.0, 0.75]], requires_grad=True)
        t9 = t6.sum()
        t4 = T.arange(4.)
        t4.addcdiv_(t9, t9.abs() + 1)
        out["zero_dim_sum_to"] = T.autograd.grad(t4.mean(), [t6])[0]._version
        t1 = T.ones(3, 4, requires_grad=True)
        t2 = t1 + 0
        t2[2] = 2.0
        t5 = t2.t()
        t2.add_(t1)
        out["as_strided_view"] = T.autograd.grad(t5.sum(), [t1])[0]._version
        return out
    compare_torch(prog)


def test_gather_keeps_its_input_and_nodes_list_what_they_keep():
    def prog(T):
        x = T.ones(3, requires_grad=True) * 1
        g = x.gather(0, T.zeros(3, dtype=T.long))
        with T.no_grad():
            x.mul_(2)
        saved = sorted(k for k in dir(g.grad_fn) if k.startswith("_saved_"))
        return {"err": attempt(lambda: g.sum().backward()), "saved": saved,
                "mul": sorted(k for k in dir((x * x).grad_fn) if k.startswith("_saved_"))}
    compare_torch(prog)


def test_dist_promotes_like_an_elementwise_op():
    compare_torch(lambda T: {"f32": T.ones(2).dist(T.tensor(2.0, dtype=T.float64)),
                             "f64": T.ones(2, dtype=T.float64).dist(T.tensor(2.0))})


def test_masked_scatter_checks_dtypes_before_the_mask_shape():
    compare_torch(lambda T: {
        "src": attempt(lambda: T.ones(()).masked_scatter_(T.ones(2, 3) > 0,
                                                         T.ones(6, dtype=T.float64))),
        "mask": attempt(lambda: T.ones(3).masked_scatter_(T.ones(3), T.ones(3)))})


def test_requires_grad_on_a_view_made_in_inference_mode_gives_it_its_own_grad():
    def prog(T):
        t0 = T.tensor([0.5, -1.8, -1.2], dtype=T.float64, requires_grad=True)
        with T.inference_mode():
            t5 = t0.t()
        before = t5.exp().grad_fn.next_functions[0][0]
        t5.requires_grad_()
        t5.exp().sum().backward()
        return {"before": before, "grad": t5.grad, "base": t0.grad, "leaf": t5.is_leaf}
    compare_torch(prog)


def test_like_factories_and_clone_keep_the_layout():
    def prog(T):
        y = T.ones(4, 6)[:, ::2].t()  # not dense: dense strides in its dim order
        e = T.zeros(2, 1).diagonal(1, 0, 1)  # empty: its strides as they are
        s = T.empty_strided((2, 3), (1, 2))
        return {"zeros": list(T.zeros_like(y).stride()), "ones": list(T.ones_like(y).stride()),
                "empty_clone": list(e.clone().stride()), "strided": list(s.stride()),
                "strided_clone": list(s.clone().stride()),
                "bytes": s.untyped_storage().nbytes(),
                "bad": attempt(lambda: T.empty_strided((2,), (1, 2)))}
    compare_torch(prog, facade=True)


_NAN_INPUT = [float("nan"), 1.0, -0.5, 0.0]  # (short: torch's scalar kernels; its float64
# vector lanes treat NaN differently for some ops, which no test here pins)


@pytest.mark.parametrize("fn", [
    lambda T, x: T.nn.functional.relu(x), lambda T, x: T.nn.functional.relu(x * 1, inplace=True),
    lambda T, x: T.nn.functional.threshold(x, 0.1, 2.0), lambda T, x: T.nn.functional.hardswish(x),
    lambda T, x: T.nn.functional.hardsigmoid(x), lambda T, x: T.nn.functional.elu(x),
    lambda T, x: T.nn.functional.elu(x * 1, inplace=True), lambda T, x: T.nn.functional.selu(x),
    lambda T, x: T.nn.functional.leaky_relu(x, 0.1),
    lambda T, x: T.nn.functional.leaky_relu(x * 1, 0.1, inplace=True),
    lambda T, x: T.maximum(x, T.zeros_like(x)), lambda T, x: T.minimum(x, T.zeros_like(x)),
    lambda T, x: x.max(), lambda T, x: x.min(), lambda T, x: x.logit(), lambda T, x: x.sinc(),
    lambda T, x: x.prod(), lambda T, x: x.reshape(2, 2).prod(1),
], ids=["relu", "relu_", "threshold", "hardswish", "hardsigmoid", "elu", "elu_", "selu", "leaky",
        "leaky_", "maximum", "minimum", "max", "min", "logit", "sinc", "prod", "prod_dim"])
def test_gradients_at_nan_and_edges_follow_torchs_selects(fn):
    def prog(T):
        out = {}
        for name, vals in [("nan", _NAN_INPUT), ("edges", [-3.0, 3.0, 0.0, 2.0]),
                           ("inf", [float("inf"), -float("inf"), 0.0, 1.0])]:
            x = T.tensor(vals, dtype=T.float64, requires_grad=True)
            fn(T, x).sum().backward()
            out[name] = x.grad
        return out
    compare_torch(prog, facade=True)


def test_hooks_on_an_output_without_a_gradient_get_none():
    def prog(T):
        seen = []
        t0 = T.arange(6.0).reshape(2, 3).requires_grad_()
        a, b, c = t0.chunk(3, 1)
        b.register_hook(lambda g: seen.append(g))
        c.mean().backward()
        t1 = T.arange(6.0).reshape(2, 3).requires_grad_()
        a, b, c = t1.chunk(3, 1)
        b.register_hook(lambda g: T.ones(2, 1))
        return {"seen": seen, "grad": t0.grad, "replace": attempt(lambda: c.mean().backward())}
    compare_torch(prog)


def test_special_values_raise_no_numpy_warnings():
    import warnings

    import inplace_lab.torch as il

    x = il.tensor([float("inf"), -float("inf"), 0.0, 1e38], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)  # (numpy's Python frames: not covered
        warnings.filterwarnings("ignore", category=RuntimeWarning,  # by the package's filter,
                                module=r"inplace_lab(\.|$)")  # which this keeps)
        for f in (lambda: x.sum(), lambda: x.prod(), lambda: x.cumprod(0), lambda: x.cumsum(0),
                  lambda: x.sinc(), lambda: x.nansum(), lambda: x.round(decimals=2),
                  lambda: x[:3].cross(x[:3] * 2, dim=0)):
            f()
        x.prod().backward()
    assert [str(w.message) for w in caught if w.category is RuntimeWarning] == []


def test_alpha_and_value_must_be_numbers():
    def prog(T):
        x = T.ones(3)
        return {"tensor": attempt(lambda: x.add(1, alpha=T.ones(1))),
                "zero_dim": x.add(1, alpha=T.tensor(2.0)), "str": attempt(lambda: x.add(x, alpha="a")),
                "none_": attempt(lambda: x.add_(x, alpha=None)),
                "sub": x.sub(T.ones(3), alpha=T.tensor(2)),
                "value": attempt(lambda: T.addcmul(x, x, x, value=T.ones(2))), "v": x._version}
    compare_torch(prog)


def test_root_gradient_of_a_tensor_reshaped_under_no_grad():
    """backward() validates the root gradient against the shape the graph recorded (torch's
    validate_outputs): summed to it when it broadcasts, torch's RuntimeError when it does not."""
    def prog(T):
        x = T.tensor([[0.41, -1.15, -1.12]], dtype=T.float64, requires_grad=True)
        y, z = x + 0, x * 2
        with T.no_grad():
            y.transpose_(0, 1)
            z.unsqueeze_(0)
        z.backward(T.ones(1, 1, 3, dtype=T.float32) * 3)
        return {"transposed": attempt(lambda: y.backward(T.ones_like(y))),
                "grad_fn": attempt(lambda: T.autograd.grad(y, x, T.ones_like(y))),
                "grad": x.grad, "float64": x.grad.dtype == T.float64}
    compare_torch(prog)


def test_roll_of_an_empty_tensor_is_a_clone_with_its_strides():
    def prog(T):
        x = T.arange(24.).reshape(2, 3, 4)[:, :, ::2]
        t = T.arange(6.).reshape(2, 3).t()
        return {"strided": x.roll(1, 0).stride(), "empty": x[:0].roll(1, 0).stride(),
                "empty_t": t[:0].roll(1, 0).stride(), "flat": t[:, :0].roll(1).stride(),
                "t": t.roll(1, 0).stride()}
    compare_torch(prog)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 17, 1000])
def test_relu_keeps_nan_and_negative_zero(n):
    """ATen's relu is clamp_min(x, 0): a NaN stays NaN and -0.0 stays -0.0 (numpy's maximum
    does so only with 0 as its first operand), at every length (SIMD and scalar tails)."""
    def prog(T):
        vals = ([float("nan"), -0.0, 0.0, -1.5, 2.0] * n)[:max(n, 2)]
        x = T.tensor(vals, requires_grad=True)
        y = T.relu(x)
        y.sum().backward()
        z = T.tensor(vals, dtype=T.float64)
        z.relu_()
        return {"y": y, "signbit": T.signbit(y), "grad": x.grad, "z": z, "z_sign": T.signbit(z),
                "module": T.nn.ReLU()(T.tensor(vals))}
    compare_torch(prog)


def test_softmax_of_an_empty_tensor():
    def prog(T):
        x = T.zeros(0, 4, requires_grad=True)
        ys = [T.softmax(x, 0), T.log_softmax(x, 1), T.nn.functional.softmin(x, 0),
              T.softmax(x.double(), 0, dtype=T.float32)]
        ys[0].sum().backward()
        return {"shapes": [tuple(y.shape) for y in ys], "strides": [y.stride() for y in ys],
                "nodes": [y.grad_fn.name() for y in ys], "grad": x.grad}
    compare_torch(prog)


def test_second_backward_through_a_node_that_kept_a_wrapped_number():
    """x * 2 and x.div(2, rounding_mode=...) keep other=2 as a tensor, freed by the first
    backward (even where the gradient is zeros); x + 2, x.pow(2), x.fmod(2) keep no tensor."""
    fns = [lambda v: v + 2, lambda v: v * 2, lambda v: v.div(2, rounding_mode="floor"),
           lambda v: v.div_(2, rounding_mode="trunc"), lambda v: v / 2, lambda v: 2 - v,
           lambda v: v.pow(2), lambda v: v.fmod(2), lambda v: v.sub(1, alpha=2),
           lambda v: v.mul(_zero_dim_two(v))]

    def prog(T):
        out = []
        for f in fns:
            x = T.ones(3, requires_grad=True)
            y = f(x + 0).sum()
            y.backward()
            out.append(attempt(lambda: y.backward()))
        return {"second": out}
    compare_torch(prog)


def _zero_dim_two(v):
    return (v.detach() * 0 + 2)[0]


def test_masked_scatter_in_place_expands_the_mask_to_self():
    """masked_scatter_ expands the mask to self's shape (expand's error text, wide seed 11032);
    a refused call leaves self and its version untouched."""
    def prog(T):
        t = T.zeros(3, 4)
        src = T.arange(12.0)
        errs = [attempt(lambda m=m: t.masked_scatter_(m, src)) for m in
                (T.ones(2, dtype=T.bool), T.ones(2, 1, dtype=T.bool), T.ones(1, 3, 4, dtype=T.bool))]
        t.masked_scatter_(T.tensor([[True], [False], [True]]), src)
        return {"errors": errs, "t": t, "version": t._version}
    compare_torch(prog)


def test_a_leaf_transposed_under_no_grad_refuses_its_gradient_as_aten_copy():
    """The first gradient of a leaf reshaped in place after its graph was built is copied into
    the leaf's shape: ATen's copy_ errors (wide seed 13388)."""
    def prog(T):
        out = []
        for rows in ([[1.5, -1.0, 0.5]], [[1.5, -1.0, 0.5], [2.0, 1.0, -0.5]]):
            x = T.tensor(rows, requires_grad=True)
            y = (x * 1).float()
            with T.no_grad():
                x.t_()
            out.append(attempt(lambda: y.exp().sum().backward()))
            out.append(x.grad)
        return {"out": out}
    compare_torch(prog)


def test_masked_select_saves_self_and_checks_it():
    """MaskedSelectBackward0 keeps self (and the mask): an in-place write or a detach_() of
    self before backward is torch's error (wide seed 13410)."""
    def prog(T):
        out = []
        for change in (lambda y: y.add_(1), lambda y: y.detach_()):
            x = T.tensor([1.5, -0.5, 0.75], requires_grad=True)
            y = x.clone()
            z = y.masked_select(y > 0)
            out.append(sorted(k for k in dir(z.grad_fn) if k.startswith("_saved_")))
            with T.no_grad():
                change(y)
            out.append(attempt(lambda: T.autograd.grad((z * 0.0).sum(), [x])))
        return {"out": out}
    compare_torch(prog)


def test_addcmul_of_integers_reads_value_as_an_integer():
    """ATen reads addcmul's value as the integer type: 0.5 is 0, -1.5 is -1 (wide seed 13774)."""
    def prog(T):
        a = T.tensor([2, 3])
        b = a.clone()
        b.addcmul_(b, b, value=0.5)
        return {"r": [a.addcmul(a, a, value=v) for v in (0.5, 1.5, -1.5, 2)], "b": b}
    compare_torch(prog)


def test_cumulative_ops_in_place_refuse_bool_and_another_dtype():
    """cumsum_/cumprod_ of a bool tensor: ATen's NotImplementedError (wide seed 14487); an
    asked dtype other than the tensor's: its "Bad in-place call" error; the data untouched."""
    def prog(T):
        b = T.tensor([[True, False]])
        i = T.tensor([[1, 2]])
        errs = [attempt(lambda: b.cumsum_(1)), attempt(lambda: b.cumprod_(1)),
                attempt(lambda: i.cumsum_(1, dtype=T.float32))]
        return {"errors": errs, "b": b, "i": i, "versions": (b._version, i._version),
                "ok": T.tensor([[1, 2]], dtype=T.int32).cumsum_(1)}
    compare_torch(prog)


def test_a_refused_gradient_keeps_the_graph_for_another_try():
    """PyTorch validates a node's outputs before it frees what the node saved: after the
    "invalid gradient" error a second backward meets the same error, not the freed-graph
    one (wide seed 15216)."""
    def prog(T):
        t0 = T.arange(3.0, dtype=T.float64).reshape([1, 3]).requires_grad_()
        t1 = t0 * 1
        with T.inference_mode():
            t1.transpose_(0, 1)
        t6 = t1.pow(2).sum()
        return {"first": attempt(lambda: t6.backward()), "grad": t0.grad,
                "second": attempt(lambda: T.autograd.grad(t6, [t0]))}
    compare_torch(prog)


def test_dist_of_bool_tensors_is_the_subtraction_error():
    """dist(a, b) is norm(a - b): bool operands meet sub's refusal first (wide seed 15611),
    integers norm's."""
    def prog(T):
        b, f, i = T.tensor([True, False]), T.tensor([1.0, 2.0]), T.tensor([1, 2])
        return {"e": [attempt(lambda x=x, y=y: x.dist(y)) for x, y in
                      ((b, b), (b, f), (f, b), (i, i), (f, i))]}
    compare_torch(prog)


def test_an_inference_tensor_to_be_saved_is_refused_before_a_shape_error():
    """PyTorch's autograd kernel saves before the op's kernel checks shapes: an inference
    tensor the node would keep is the error, in place or not (wide seed 16294); one it
    would not keep (add) leaves the shape error."""
    def prog(T):
        t0 = T.ones(2, 1, requires_grad=True)
        with T.inference_mode():
            t7 = T.ones(4, 2)
        return {"e": [attempt(f) for f in (lambda: t0 * t7, lambda: (t0 ** 0.5).mul_(t7),
                                             lambda: T.ones(2, 1) * t7, lambda: t0 + t7,
                                             lambda: t0.add_(t7))]}
    compare_torch(prog)


def test_threshold_has_no_bool_kernel():
    """F.threshold / threshold_ of a bool tensor: ATen's NotImplementedError (wide seed 18051)."""
    def prog(T):
        b = T.tensor([True, False])
        F = T.nn.functional
        return {"e": [attempt(lambda: F.threshold(b, 0.1, 20.0)),
                      attempt(lambda: F.threshold_(b, 0.1, 20.0))],
                "b": b, "int": T.threshold(T.tensor([1, 2]), 1, 5)}
    compare_torch(prog)


@pytest.mark.parametrize("case", ["mT0", "mT1", "mT2", "perm", "perm_mid", "nonadj", "twod",
                                  "twod_t", "twod_t_mid", "mask", "mask1", "step", "contig",
                                  "contig_mid", "both", "exp", "nonadj2", "ellip"])
def test_advanced_indexing_lays_out_its_result_as_aten(case):
    """a[indices] is a TensorIterator over a restrided to the result (indexed dims at stride
    0, moved to the front when not adjacent) and the index tensors: the result keeps a
    permuted input's order (wide seeds 9878, 19860); values and gradients as torch's."""
    def prog(T):
        x = T.arange(24.).reshape(2, 3, 4).requires_grad_()
        i2 = T.tensor([[0, 1], [1, 0]])
        cases = {
            "mT0": lambda: x.mT[[0, -1]], "mT1": lambda: x.mT[:, [0, 1]],
            "mT2": lambda: x.mT[:, :, [0, 2]], "perm": lambda: x.permute(2, 0, 1)[[1, 3]],
            "perm_mid": lambda: x.permute(2, 0, 1)[:, [1, 0]],
            "nonadj": lambda: x.permute(2, 0, 1)[[1, 3], :, [0, 1]], "twod": lambda: x.mT[i2],
            "twod_t": lambda: x[i2.t()], "twod_t_mid": lambda: x[:, i2.t()],
            "mask": lambda: x.mT[x.mT[:, :, 0] > 5], "mask1": lambda: x.mT[T.tensor([True, False])],
            "step": lambda: x[:, ::2][[1, 0]], "contig": lambda: x[[1, 0]],
            "contig_mid": lambda: x[:, [2, 0]], "both": lambda: x.mT[[0, 1], [1, 2]],
            "exp": lambda: x[:, :1].expand(2, 3, 4)[[1, 0]],
            "nonadj2": lambda: x.mT[[0, 1], :, [1, 2]],
            "ellip": lambda: x.transpose(0, 1)[..., [1, 2]]}
        r = cases[case]()
        (r * T.arange(float(r.numel())).reshape(r.shape)).sum().backward()
        return {"r": r, "shape": tuple(r.shape), "stride": r.stride(), "grad": x.grad}
    compare_torch(prog)


def test_div_in_place_with_rounding_rounds_in_the_common_dtype():
    """x32.div_(y64, rounding_mode=...) truncates/floors the float64 quotient, then stores it
    as float32 (wide seed 20129): log(7) in float32 over log(7) in float64 is 0.99999... -> 0."""
    def prog(T):
        t1 = T.arange(12.0, dtype=T.float64).reshape([3, 4]).log()[-2]
        out = []
        for m in ("trunc", "floor", None):
            t4 = t1.float()
            t4.div_(t1, rounding_mode=m)
            out.append(t4)
        return {"out": out}
    compare_torch(prog)


def test_index_fill_and_index_put_keep_the_input_layout():
    """Out of place they are a clone(Preserve) written in place: a transposed input gives a
    transposed result (wide seed 20452); index_add/index_copy/masked_fill/scatter do not."""
    def prog(T):
        x = T.arange(8.0).reshape(4, 2).t()
        y = T.arange(8.0).reshape(2, 2, 2).permute(2, 0, 1)
        e = T.arange(8.0).reshape(4, 2)[:, :1].expand(4, 3)
        i = T.tensor([0])
        rs = [t.index_fill(0, i, -1.0) for t in (x, y, e)] + \
             [t.index_put((i,), T.tensor(1.0)) for t in (x, y, e)] + \
             [x.index_add(0, i, T.ones(1, 4)), x.index_copy(0, i, T.ones(1, 4)),
              x.masked_fill(x > 2, 0.0), x.scatter(0, T.tensor([[0]]), 5.0)]
        return {"strides": [r.stride() for r in rs], "values": rs}
    compare_torch(prog)


@pytest.mark.parametrize("op", ["squeeze_", "unsqueeze_", "t_", "transpose_", "swapdims_",
                                "as_strided_", "mul_", "zero_", "copy_"])
def test_retain_grad_hook_stays_on_the_node_for_metadata_in_place_ops(op):
    """retain_grad's hook moves to the new node after an in-place op (.grad is the new
    value's gradient), not after a metadata one (t_, squeeze_ ...): .grad keeps the old shape
    there (seed 8472). retains_grad stays True; a second retain_grad() changes nothing."""
    def prog(T):
        ops = {"squeeze_": lambda t: t.squeeze_(), "unsqueeze_": lambda t: t.unsqueeze_(0),
               "t_": lambda t: t.t_(), "transpose_": lambda t: t.transpose_(0, 1),
               "swapdims_": lambda t: t.swapdims_(0, 1),
               "as_strided_": lambda t: t.as_strided_((2,), (1,)), "mul_": lambda t: t.mul_(2),
               "zero_": lambda t: t.zero_(), "copy_": lambda t: t.copy_(T.ones(2, 1))}
        t0 = T.arange(2.0).reshape([2, 1]).requires_grad_()
        t1 = t0 * 1
        t1.retain_grad()
        ops[op](t1)
        t1.retain_grad()
        (t1 * T.arange(2.0, 2.0 + t1.numel()).reshape(t1.shape)).sum().backward()
        return {"grad": t1.grad, "retains": t1.retains_grad, "t0": t0.grad}
    compare_torch(prog)


def test_triu_tril_in_place_of_bool_tensors():
    """x.triu_() of a bool tensor zeroed the cut with an int 0 numpy refuses (seed 24848)."""
    def prog(T):
        b = T.ones(4, 2).bool()
        b.triu_()
        c = T.ones(3, 3).bool().tril_(-1)
        return {"b": b, "c": c, "v": b._version}
    compare_torch(prog)


def test_advanced_index_into_an_empty_dimension_uses_atens_words():
    """'index is out of bounds for dimension with size 0' (seed 24788)."""
    def prog(T):
        out = {}
        for k, f in enumerate((lambda: T.zeros(0).index_put_((T.tensor([0]),), T.tensor(5.0)),
                               lambda: T.zeros(2, 0)[:, T.tensor([1])],
                               lambda: T.zeros(0, 3)[T.tensor([-1])])):
            try:
                f()
            except IndexError as e:
                out[k] = str(e)
        return out
    compare_torch(prog)


def test_min_dim_backward_scatters_through_the_saved_indices():
    """Indices changed through .data (no version bump) are used by backward: an index out of
    range is scatter's error in torch, it was silently a zero gradient here (seed 25089)."""
    def prog(T):
        x = T.tensor([[0.87, 1.45], [-0.44, -1.04], [1.36, 1.89]], requires_grad=True)
        v, i = x.min(0)
        i.data.mul_(3)
        try:
            v.sum().backward()
        except RuntimeError as e:
            err = str(e)
        y = T.tensor([[0.87, 1.45], [-0.44, -1.04], [1.36, 1.89]], requires_grad=True)
        w, j = y.max(1, keepdim=True)
        j.data.copy_(T.tensor([[1], [1], [0]]))
        (w * T.tensor([[1.0], [2.0], [3.0]])).sum().backward()
        return {"err": err, "grad": y.grad}
    compare_torch(prog)


def test_block_diag_is_one_kernel_as_torch():
    """torch.block_diag: 0-, 1- and 2-d blocks, promotion, BlockDiagBackward0 and its
    gradient slices, the empty call, the >2-d error."""
    def prog(T):
        a = T.ones(2, 2, requires_grad=True)
        b = T.tensor([[5.0, 6.0, 7.0]], requires_grad=True)
        c = T.tensor(3.0, requires_grad=True)
        y = T.block_diag(a, b, c)
        (y * T.arange(24.0).reshape(4, 6)).sum().backward()
        try:
            T.block_diag(T.ones(2, 2, 2))
        except RuntimeError as e:
            err = str(e)
        return {"y": y, "node": type(y.grad_fn).__name__, "strides": y.stride(),
                "grads": [a.grad, b.grad, c.grad], "empty": tuple(T.block_diag().shape),
                "mixed": T.block_diag(T.tensor([1, 2]), T.tensor([1.5], dtype=T.float64)).dtype
                == T.float64,
                "zero_cols": T.block_diag(T.ones(2, 0), T.ones(1, 1)), "err": err}
    compare_torch(prog)


def test_index_fill_of_an_empty_tensor_checks_no_index():
    """ATen's index_fill_ of an empty self checks no index (seed 25963); along the empty dim
    it fails restriding a 1-wide slice (its setStorage error)."""
    def prog(T):
        out = {}
        for k, (shape, d, i) in enumerate([((0, 2), 1, 5), ((0, 2), 0, 5), ((2, 0), 1, 0),
                                           ((2, 0), 0, 7), ((0, 0), 1, 0)]):
            try:
                out[k] = tuple(T.zeros(*shape).index_fill(d, T.tensor([i]), 1.0).shape)
            except RuntimeError as e:
                out[k] = str(e)
        return out
    compare_torch(prog)


def test_masked_scatter_source_gradient_is_its_own_tensor():
    """ATen's masked_scatter_backward gives the source a tensor of its own (no _base), so a
    second gradient meeting it in the engine's buffer is summed into it in place: the
    gradient autograd.grad returns is at version 1 (seed 25314)."""
    def prog(T):
        out = {}
        for shape in [(), (3,), (2, 3)]:
            t0 = T.full(shape, 1.99, dtype=T.float64, requires_grad=True)
            t1 = t0 * 1
            t1.masked_scatter_(t0 > 0, t0)
            g, = T.autograd.grad(t1.mean(), [t0])
            out[shape] = (g, g._version, g._base is None)
            src = T.arange(7.0, requires_grad=True)
            seen = []
            y = (T.ones(2, 3) * 1).masked_scatter(T.tensor([True, False, True]), src)
            y.grad_fn.register_hook(lambda gi, go: seen.append(
                (gi[1].shape, gi[1].stride(), gi[1]._base is None)))
            y.sum().backward()
            out[f"src{shape}"] = (src.grad, seen)
        return out
    compare_torch(prog)


def test_column_major_matrix_gradients_are_views_of_the_product():
    """mm's gradient for a column-major operand is ``(b @ g.T).t()``, a view, in the array
    lane too: two of them meeting in the engine's buffer are summed out of place, so the
    leaf's gradient stays at version 0 (seed 26007); a Linear weight's gradients as torch's."""
    def prog(T):
        t0 = T.tensor([[-1.62, 1.04], [0.94, 1.77], [1.24, -0.39], [0.65, 1.01]],
                      dtype=T.float64, requires_grad=True)
        t2 = t0.mT
        t2.mm(t2.t()).pow(2).sum().backward()
        out = {"g": t0.grad, "v": t0.grad._version, "s": t0.grad.stride()}
        w = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        x = T.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
        for k in range(2):
            T.addmm(T.zeros(2), x, w.t(), alpha=2 if k else 1).sum().backward()
            out[k] = (w.grad.clone(), w.grad._version, w.grad.stride(), w.grad._base is None)
        return out
    compare_torch(prog)


def test_as_strided_backward_lays_the_gradient_out_as_the_input():
    """ATen's as_strided_backward returns its buffer viewed with the input's geometry: through
    a transposed input (or a view rebuilt as AsStridedBackward0 after its base was transposed
    in place, seed 27503) the leaf's gradient keeps the leaf's layout and version."""
    def prog(T):
        out = {}
        x = T.arange(8.0).reshape(4, 2).requires_grad_()
        y = x.t()
        seen = []
        z = y.as_strided((2, 2), (1, 2), 1)
        z.grad_fn.register_hook(lambda gi, go: seen.append((gi[0].stride(), gi[0]._version,
                                                              gi[0]._base is None)))
        (z * T.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        out["as_strided"] = (x.grad, x.grad.stride(), x.grad._version, seen)
        t2 = T.tensor([[-1.84, -1.35], [-1.92, -1.57], [-0.18, 1.9], [-0.44, -1.97]],
                      dtype=T.float64, requires_grad=True)
        t3 = t2 * 1
        t6 = t3.t()
        t3.transpose_(0, 1)
        t6.backward(T.arange(8.0, dtype=T.float64).reshape(2, 4))
        out["rebuilt"] = (t2.grad, t2.grad.stride(), t2.grad._version, type(t6.grad_fn).__name__)
        return out
    compare_torch(prog)


def test_bool_median_and_round_name_atens_kernels():
    """The refusals name the kernel ATen dispatches to: median/nanmedian of the whole tensor
    "median_cpu", along a dim "median_out" (seed 27134); round "round_vml_cpu", round with
    decimals != 0 "round_cpu" (seed 28447)."""
    def prog(T):
        b = T.zeros(2, 3).eq(0)
        out = {}
        for k, f in enumerate([lambda: b.median(), lambda: b.median(0), lambda: b.nanmedian(),
                               lambda: b.nanmedian(1, keepdim=True), lambda: b.round(),
                               lambda: b.clone().round_(), lambda: b.round(decimals=0),
                               lambda: b.round(decimals=2), lambda: b.clone().round_(decimals=1),
                               lambda: T.round(b, out=T.empty(2, 3, dtype=T.bool))]):
            try:
                f()
                out[k] = "ok"
            except RuntimeError as e:
                out[k] = str(e)
        return out
    compare_torch(prog)


def test_heaviside_has_no_derivative():
    """heaviside of a tensor that requires grad records PyTorch's NotImplemented node, which
    raises only when backward reaches it (in place: aten::heaviside_)."""
    def prog(T):
        x = T.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        r = x.heaviside(T.tensor(0.5))
        out = {"r": r.detach(), "node": type(r.grad_fn).__name__, "rg": r.requires_grad}
        for k, y in (("out", r), ("inplace", x.clone().heaviside_(T.tensor(0.5)))):
            try:
                y.sum().backward()
            except RuntimeError as e:
                out[k] = str(e)
        return out
    compare_torch(prog)


def test_out_errors_in_tensor_iterators_order():
    """An elementwise op with ``out=``: TensorIterator checks the operands' shapes (then an
    output that is also an input) before the result type can be cast (seed 33816)."""
    def prog(T):
        i2 = T.tensor([1, 0])
        f24 = T.ones(2, 4, dtype=T.float64)
        f2 = T.ones(2, dtype=T.float64)
        return {"broadcast": attempt(lambda: T.mul(i2, f24, out=i2)),
                "aliased": attempt(lambda: T.add(i2, T.ones(3, 2), out=i2)),
                "cast": attempt(lambda: T.mul(i2, f2, out=i2)),
                "resized": attempt(lambda: T.mul(f2, f24, out=T.empty(0, dtype=T.int64))),
                "i2": i2}
    compare_torch(prog)


def test_a_view_without_grad_fn_follows_its_bases_requires_grad():
    """A view made under no_grad / inference_mode requires grad through its base only: when
    the base stops (``requires_grad_(False)``) so does the view, and back (seed 38359); a view
    with its own flag or a grad_fn keeps it."""
    def prog(T):
        out = {}
        for mode in ("no_grad", "inference_mode"):
            t1 = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
            with getattr(T, mode)():
                t3, t4 = t1.view(-1), t1[1:]
            t1.requires_grad_(False)
            off = (t3.requires_grad, t4.requires_grad, t3.is_leaf)
            t1.requires_grad_(True)
            on = (t3.requires_grad, t4.requires_grad)
            t4.requires_grad_(True)
            t1.requires_grad_(False)
            out[mode] = (off, on, t3.requires_grad, t4.requires_grad)
        t1 = T.tensor([1.0, 2.0, 3.0])
        v = t1[1:]
        t1.requires_grad_()
        w = t1[:1]
        t1.requires_grad_(False)
        out["grad mode"] = (v.requires_grad, w.requires_grad, v.is_leaf, w.is_leaf)
        return out
    compare_torch(prog)


def test_index_fill_put_take_index_add_on_empty_and_0dim_tensors():
    """ATen's checks in its order: index_fill_ restrides self (an empty view inside a bigger
    storage passes and gets the IndexError, seed 39343; past its end the setStorage error),
    put_/take refuse an empty self in their words (seed 42932), index_add's vector kernel says
    "index out of range in self", and a 0-dim self is its own one slice."""
    def prog(T):
        out = {}
        cases = {
            "fill view0": lambda: T.arange(3.0)[2:-1].index_fill_(0, T.tensor([0]), 0.0),
            "fill view0 end": lambda: T.arange(3.0)[3:].index_fill_(0, T.tensor([0]), 0.0),
            "fill oop": lambda: T.arange(3.0)[3:].index_fill(0, T.tensor([0]), 0.0),
            "fill 2x0": lambda: T.arange(6.0).reshape(2, 3)[:, 1:1].index_fill_(
                1, T.tensor([0, 0]), 0.0),
            "fill 0d": lambda: T.tensor(1.0).index_fill_(0, T.tensor(0), 2.0),
            "fill 0d oob": lambda: T.tensor(1.0).index_fill(0, T.tensor([1]), 2.0),
            "fill 0x3": lambda: T.zeros(0, 3).index_fill_(1, T.tensor([5]), 0.0),
            "put empty": lambda: T.zeros(0).put_(T.tensor([0]), T.tensor([9.0])),
            "put sizes": lambda: T.zeros(0).put_(T.tensor([0]), T.tensor([9.0, 1.0])),
            "put dtypes": lambda: T.zeros(3).put_(T.tensor([0]), T.tensor([9, 1])),
            "take empty": lambda: T.zeros(0).take(T.tensor([0])),
            "add vec oob": lambda: T.zeros(3).index_add_(0, T.tensor([3]), T.tensor([1.0])),
            "add vec neg": lambda: T.zeros(3).index_add_(0, T.tensor([-1]), T.tensor([1.0])),
            "add 0d": lambda: T.zeros(()).index_add_(0, T.tensor([0]), T.tensor(1.0), alpha=3),
            "add 0x2": lambda: T.zeros(0, 2).index_add_(0, T.tensor([0]), T.ones(1, 2)),
            "add 2x0 oob": lambda: T.zeros(2, 0).index_add_(0, T.tensor([5]), T.ones(1, 0)),
            "add matrix oob": lambda: T.zeros(3, 2).index_add_(0, T.tensor([3]), T.ones(1, 2)),
        }
        for k, f in cases.items():
            out[k] = probe(f)
        return out
    compare_torch(prog)


def test_integer_results_never_join_a_graph_as_torchs():
    """copy_ into an integer or bool tensor is written, never checked nor recorded (so a no_grad
    view of one takes it, seed 44948); an out-of-place op whose result is an integer dtype
    refuses to record ("Autograd not support dtype"); a cast is a plain result; masked_fill_,
    fill_ and index_fill_ in place do record, as torch's generated code does."""
    def prog(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        i = T.tensor([1, 2, 3])
        with T.no_grad():
            v = i[0:2]
        out = {"view copy_": probe(lambda: v.copy_(y)), "i": i}
        cases = {
            "copy_": lambda: T.tensor([1, 2]).copy_(y),
            "bool copy_": lambda: T.tensor([True]).copy_(y),
            "setitem": lambda: (lambda t: (t.__setitem__(0, y), t)[1])(T.tensor([1, 2])),
            "setitem slice": lambda: (lambda t: (t.__setitem__(slice(0, 1), y), t)[1])(
                T.tensor([1, 2])),
            "masked_fill_": lambda: T.tensor([1, 2]).masked_fill_(T.tensor([True, False]), y),
            "fill_": lambda: T.tensor([1, 2]).fill_(y),
            "masked_fill": lambda: T.tensor([1, 2]).masked_fill(T.tensor([True, False]), y),
            "index_fill": lambda: T.tensor([1, 2]).index_fill(0, T.tensor([0]), y),
            "sum dtype": lambda: x.sum(dtype=T.int64),
            "cumsum dtype": lambda: x.cumsum(0, dtype=T.int64),
            "long": lambda: x.long(), "to int": lambda: x.to(T.int32), "bool": lambda: x.bool(),
            "type": lambda: x.type(T.int64), "index_put": lambda: T.tensor([1, 2]).index_put(
                (T.tensor([0]),), y.long()),
        }
        for k, f in cases.items():
            r = probe(f)
            out[k] = r if not hasattr(r, "requires_grad") else (
                r, r.requires_grad, type(r.grad_fn).__name__)
        return out
    compare_torch(prog)


def test_set_of_an_inference_tensor_changes_it_then_refuses_the_bump():
    """Outside inference_mode, ``t.set_(src)`` on an inference tensor raises PyTorch's error
    from the version bump, after the kernel has made t a window on src (seeds 43453, 45795)."""
    def prog(T):
        t1 = T.arange(6.0).reshape([2, 3])
        with T.inference_mode():
            t2 = (t1 * 2).reshape(3, 2)
            t3 = (t1 * 2).expand(2, 2, 3)
        r2, r3 = attempt(lambda: t2.set_(t1)), attempt(lambda: t3.set_(t1))
        return {"r2": r2, "r3": r3, "t2": t2, "shape3": tuple(t3.shape),
                "shared": t2.data_ptr() == t1.data_ptr(), "inference": t2.is_inference()}
    compare_torch(prog)


def test_retain_grad_follows_a_view_to_its_rebuilt_node():
    """A write under no_grad makes a view's grad_fn AsStridedBackward0 when it is next read;
    torch moves the view's retain_grad hook there (update_tensor_hooks_on_new_gradfn), so
    autograd.grad still fills .grad (wide seed 52256: it stayed None here)."""
    def prog(T):
        out = {}
        for case in ("retain under no_grad", "retain, then write", "write under grad too"):
            t2 = T.tensor([0.5, 1.92, 0.12], dtype=T.float64, requires_grad=True)
            t4 = (t2 + 0).narrow(0, 1, 1)
            if case == "retain under no_grad":
                with T.no_grad():
                    t4.retain_grad()
            else:
                t4.retain_grad()
            with T.no_grad():
                t4.sub_(-0.25)
            if case == "write under grad too":
                t4.mul_(2)
            g = T.autograd.grad((t4 * 3).sum(), [t2])
            out[case] = {"grad": t4.grad, "node": type(t4.grad_fn).__name__, "g": g[0],
                         "retains": t4.retains_grad}
        return out
    compare_torch(prog, facade=True)


def test_a_no_grad_views_requires_grad_is_its_own_flag_or_its_bases():
    """PyTorch reads a view's requires_grad as its own flag or its base's: requires_grad_(False)
    on a view made under no_grad or inference_mode leaves it requiring grad while the base does
    (wide seed 57688), and it follows the base after."""
    def prog(T):
        out = {}
        for mode in ("inference_mode", "no_grad"):
            t0 = T.ones(4, 2, dtype=T.float64, requires_grad=True)
            with getattr(T, mode)():
                t2 = t0.t()
            seen = [t2.requires_grad]
            with T.no_grad():
                t2.requires_grad_(False)
            seen.append(t2.requires_grad)
            t0.requires_grad_(False)
            seen.append(t2.requires_grad)
            t0.requires_grad_(True)
            seen += [t2.requires_grad, t2.is_leaf, t2.grad_fn]
            out[mode] = seen
        return out
    compare_torch(prog, facade=True)


def test_index_fill_of_a_non_dense_view_fills_a_contiguous_clone():
    """Out of place, ATen fills clone(Preserve): a non-dense view (one of unbind's, a strided
    slice) clones contiguous, so the restride check passes (wide seed 62551 raised setStorage)."""
    def prog(T):
        out = {}
        for name, sl in (("unbind", lambda t: t.unbind(1)[0]), ("strided", lambda t: t[:, ::2])):
            t1 = T.zeros(2, 3, 2, requires_grad=True) if name == "unbind" else \
                T.zeros(3, 4, requires_grad=True)
            r = sl(t1).index_fill(1, T.tensor([0]), -1.0)
            r.sum().backward()
            out[name] = {"r": r, "stride": r.stride(), "grad": t1.grad}
        return out
    compare_torch(prog, facade=True)


def test_out_overlap_is_judged_before_the_shapes():
    """TensorIterator checks out='s overlaps (compute_mem_overlaps) before the shapes: an out=
    that is also an input, transposed, is an overlap error first (wide seed 64014)."""
    def prog(T):
        t0 = T.arange(8.0, dtype=T.float64).reshape([4, 2])
        with T.inference_mode():
            t4 = t0.t()
        r = attempt(lambda: T.mul(t0, t4, out=t0))
        s = attempt(lambda: T.mul(t0, T.ones(3), out=t0))
        return {"r": r, "s": s, "t0": t0}
    compare_torch(prog, facade=True)


def test_cumsum_of_negative_zeros_starts_from_zero():
    """ATen's scan starts from 0, so a run of -0.0 sums to +0.0 (its reciprocal is +inf; wide
    seed 69146); a 0-dim cumsum is the value itself."""
    def prog(T):
        x = T.tensor([[-0.0], [-0.0]], dtype=T.float64)
        y = T.tensor([-0.0, -0.0, 1.0])
        z = T.tensor([-0.0])
        z.cumsum_(0)
        return {"r": x.cumsum(1).reciprocal(), "y": y.cumsum(0).reciprocal(), "z": z.reciprocal(),
                "h": y.cumsum(0, dtype=T.float16).reciprocal(),
                "0d": T.tensor(-0.0).cumsum(0).reciprocal()}
    compare_torch(prog, facade=True)


def test_a_saved_tensor_is_checked_even_where_the_gradient_does_not_read_it():
    """torch's generated apply unpacks (and version-checks) every saved variable first: an
    in-place rounding div_ keeps ``other`` for a zero gradient, and writing it before backward
    fails (wide seed 67653); the pow_ before it names the same version rule."""
    def prog(T):
        t1 = T.tensor([-1.16, 0.61, -0.6, 1.09], dtype=T.float64, requires_grad=True)
        t2 = t1.clone()
        t3 = t2.detach()
        t2.div_(t3, rounding_mode="trunc")
        a = attempt(lambda: t2.sum().backward())
        t4 = t1.clone()
        t4.pow_(t4)
        t5 = t4.detach()
        t4.div_(t5, rounding_mode="trunc")
        b = attempt(lambda: t4.sum().backward())
        return {"a": a, "b": b, "grad": t1.grad}
    compare_torch(prog, facade=True)


def test_repeat_of_an_inference_tensor_outside_inference_mode_is_a_view():
    """torch's repeat writes its result through an alias; with an inference tensor as input and
    no inference_mode, no autograd kernel surrounds the op and the alias comes back: a view of
    a hidden result, version 1 (wide seed 74462); inside the mode, or an empty result, a plain
    tensor (version 0) as always."""
    def prog(T):
        t0 = T.tensor([[1.57, -1.81, -1.85]], dtype=T.float64)
        with T.inference_mode():
            t2 = t0 * 2
            inside = t2.repeat(2, 1)
            inside_view = inside._is_view()
        out = {"inside": inside_view, "plain": [t0.tile((2,))._is_view(), t0.repeat(2, 1)._version]}
        for name, r in [("tile", t2.tile((2,))), ("repeat", t2.repeat(2, 1)),
                        ("empty", t2.repeat(0, 1))]:
            view = r._is_view()
            out[name] = [r, view, r._version, r.is_inference(), r.is_leaf, r.requires_grad,
                         r._base._version if view else None, r._base.is_leaf if view else None]
        r = t2.repeat(1, 2)
        r.add_(1)
        out["written"] = [r, r._version, r._base._version, r._base]
        return out
    compare_torch(prog, facade=True)


@pytest.mark.parametrize("how", ["set_", "set_storage", "data_dtype", "data_same", "resize_inference"])
def test_set_and_resize_forget_a_leafs_accumulator(how):
    """torch's set_ and resize_ kernels reset a leaf's AccumulateGrad (``.data =`` does when the
    dtype or device changes): the old graph still accumulates into ``.grad``, but
    ``autograd.grad(old, leaf)`` no longer finds the leaf in it (wide seed 75478)."""
    def prog(T):
        t0 = T.ones(4, 2, dtype=T.float32, requires_grad=True)
        seen = []
        t0.register_hook(lambda g: seen.append(round(g.sum().item(), 3)))
        t1 = t0 + 0
        t3 = t1.reshape(2, 4).exp().sum()
        if how == "set_":
            with T.no_grad():
                t0.set_(t1)
        elif how == "set_storage":
            with T.no_grad():
                t0.set_(T.zeros(8).untyped_storage() if hasattr(T.zeros(1), "untyped_storage")
                        else T.zeros(8), 0, (4, 2))
        elif how == "data_dtype":
            t0.data = T.zeros(4, 2, dtype=T.float64)
        elif how == "data_same":
            t0.data = T.zeros(4, 2)
        else:
            with T.inference_mode():
                t0.resize_(4, 2)
        g = probe(lambda: T.autograd.grad(t3, [t0], retain_graph=True))
        u = probe(lambda: T.autograd.grad(t3, [t0], retain_graph=True, allow_unused=True))
        b = attempt(lambda: t3.backward(retain_graph=True))
        fresh = probe(lambda: T.autograd.grad((t0 * 2).sum(), [t0]))
        return {"g": g, "u": u, "b": b, "grad": t0.grad, "seen": seen, "fresh": fresh}
    compare_torch(prog, facade=True)


def test_number_bounds_keep_x_where_it_equals_the_bound():
    """ATen's clamp_scalar kernels keep x on a tie: clamp(min=0) of -0.0 is -0.0, so its
    reciprocal is -inf (wide seed 91460); NaN stays NaN, a NaN bound makes every value NaN.
    Tensor bounds are maximum/minimum, whose tie depends on ATen's vector loop (not here)."""
    def prog(T):
        x = T.tensor([-0.0, 0.0, float("nan"), 1.0, -2.0] * 4, dtype=T.float64)
        y = x.clone()
        y.clamp_(min=0)
        return {"min": x.clamp(min=0.0).reciprocal(), "max": x.clamp(max=0.0).reciprocal(),
                "max-0": x.clamp(max=-0.0).reciprocal(), "both": x.clamp(-0.0, 0.0).reciprocal(),
                "clamp_min": x.clamp_min(0).reciprocal(), "clamp_max": T.clamp_max(x, 0).reciprocal(),
                "inplace": y.reciprocal(), "nan": x.clamp(min=float("nan")),
                "f32": T.tensor([-0.0, 3.0]).clamp(0, 1).reciprocal(),
                "0d": T.tensor(-0.0).clamp(-0.5, 0.5).reciprocal(), "0d_min": T.tensor(2.0).clamp(0)}
    compare_torch(prog, facade=True)


def test_copy_slices_onto_a_base_that_shrank_refuses_as_torch():
    """Wide seed 93237: ``out=`` resized a base to fewer elements after a view of it was
    written; backward's CopySlices lays the view on a base-sized gradient, which torch's
    as_strided refuses (setStorage), a RuntimeError, not numpy's ValueError."""
    def prog(T):
        t0 = T.tensor([[-1.98, 1.89, -1.65], [0.14, -0.06, -1.68]], requires_grad=True)
        t1 = t0.clone()
        t3 = t1.transpose(1, 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with T.no_grad():
                T.mul(T.arange(3.0), 2, out=t1)
        t3.copy_(t1.exp().sum())
        return {"r": attempt(lambda: t3.sum().backward()), "shape": list(t1.shape)}
    compare_torch(prog, facade=True)


def test_a_one_element_value_is_read_before_it_is_written():
    """torch's setitem fills with a 0-dim CPU value (``fill_(value.item())``), index_put_ with
    one bool mask and a one-element value is ``masked_fill_(mask, value.item())``, and a
    broadcast one-element copy source is too hard for its overlap check: all allowed, though
    the value lives in the written tensor (wide seed 111886); ``copy_`` of a 0-dim alias and
    an integer-indexed put still refuse, as torch's."""
    def prog(T):
        out = {}
        for name, f in [("slice", lambda x: x.__setitem__(slice(None), x[1])),
                        ("part", lambda x: x.__setitem__(slice(0, 2), x[1])),
                        ("mask", lambda x: x.__setitem__(x > 1, x[0])),
                        ("one", lambda x: x.__setitem__(slice(None), x[1:2])),
                        ("fill", lambda x: x.fill_(x[1])),
                        ("copy", lambda x: x.copy_(x[1])),
                        ("index", lambda x: x.__setitem__(T.tensor([0, 2]), x[1]))]:
            x = T.arange(4.0)
            out[name] = [attempt(lambda: f(x)), x, x._version]
        t0 = T.tensor([-0.75, -0.65, -1.96, 1.73], dtype=T.float64)
        with T.inference_mode():
            t1 = t0 * 2
        with T.no_grad():
            out["inference"] = [attempt(lambda: t1.__setitem__(slice(None), t1.unbind(0)[1])), t1]
        x = T.arange(4.0, requires_grad=True).clone()
        x[:] = x[1]
        x.sum().backward()
        out["graph"] = [x.grad_fn.name(), x]
        return out
    compare_torch(prog, facade=True)


def test_prod_over_a_size_one_dim_with_zeros_passes_the_gradient_on():
    """Wide seed 110805: prod_safe_zeros_backward returns the (unsqueezed) gradient itself for
    a size-1 dim, a view that AccumulateGrad copies into the leaf's layout (version 1)."""
    def prog(T):
        t0 = T.arange(2.0, dtype=T.float64).reshape([2, 1]).requires_grad_()
        t0.prod(1).sum().backward()
        a = [t0.grad, t0.grad._version]
        t0.grad = None
        t0.prod(1, keepdim=True).sum().backward()
        t1 = T.tensor([[0.0, 2.0], [3.0, 0.0]], requires_grad=True)
        t1.prod(1).sum().backward()
        return {"a": a, "b": [t0.grad, t0.grad._version], "c": [t1.grad, t1.grad._version]}
    compare_torch(prog, facade=True)


def test_pow_of_signed_zero_and_its_gradient():
    """Wide seed 114843: ``t1`` is -0.0 (0 * a negative sum); torch's ``** 0.5`` is sqrt
    (-0.0 stays -0.0) and the gradient's ``pow(-0.5)`` is 1/sqrt: -inf, not pow's +inf."""
    def prog(T):
        t0 = T.tensor([[-1.5, -0.45], [0.61, -1.6]], dtype=T.float64, requires_grad=True)
        t1 = T.zeros(2, 1, dtype=T.float64, requires_grad=True)
        t3 = t0.sum()
        with T.no_grad():
            t1.mul_(t3)
        t5 = t1 ** 0.5
        t5.exp().sum().backward()
        t6 = T.tensor([-0.0, 0.0, 2.0]) ** -0.5
        return {"t5": t5, "grad": t1.grad, "t6": t6, "cube": T.tensor([1.1, -2.3]) ** 3}
    compare_torch(prog, facade=True)


def test_clamp_scalar_cast_refusal_comes_before_the_overlap_check():
    """Wide seed 125129: clamp_'s meta refuses a float bound on an integer tensor before the
    TensorIterator looks at the (expanded) target; a tensor bound goes through the iterator,
    whose overlap check comes first."""
    def prog(T):
        t7 = T.tensor([[1], [0]]).expand(2, 3)
        return {k: attempt(f) for k, f in {
            "both": lambda: t7.clamp_(-0.5, 0.5), "min": lambda: t7.clamp_(min=0.5),
            "clamp_min_": lambda: t7.clamp_min_(0.5), "tensor": lambda: t7.clamp_(T.tensor(0.5)),
            "ints": lambda: t7.clamp_(1, 2)}.items()}
    compare_torch(prog, facade=True)
