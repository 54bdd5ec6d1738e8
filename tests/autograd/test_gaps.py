"""Closing gaps of issue 3, each program run on torch 2.13 and on inplace_lab and compared.

- inference mode: inference tensors (``is_inference``), no version counter, no saving for
  backward, in-place outside the mode refused (after the write, as torch), views, the
  ``requires_grad`` rules, ``inference_mode(False)`` and the decorator forms;
- custom Functions: an input returned as-is then modified in place, ``once_differentiable``
  on double backward, ``Tensor.output_nr``, ``mark_dirty`` on a view input;
- saved scalar arguments read back (``_saved_other`` of ``x * 3`` is ``tensor(3)``) and the
  edges a number gets (``3 * x``, ``2 - x``, ``xlogy(x, 2)`` ...).
"""
import pytest

pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
from inplace_lab import errors  # noqa: E402
from tests.differential.harness import attempt, compare_torch, probe  # noqa: E402


def _inf(T, data=(1., 2., 3.)):
    with T.inference_mode():
        return T.tensor(list(data))


def _state(t):
    """Values and shape, read without touching the (missing) version counter."""
    return {"values": t.detach().clone(), "shape": list(t.shape)}


# ---- inference mode --------------------------------------------------------------------------

def test_tensors_made_in_inference_mode_are_inference_tensors():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        n = T.ones(2)
        with T.inference_mode():
            a = T.ones(2)
            b = x * 2
            v = n[1:]  # a view of a normal tensor stays normal (shared counter)
            n.add_(1)  # normal tensors may be written in inference mode: version bumps
            inside = (a.is_inference(), b.is_inference(), b.requires_grad, v.is_inference(),
                      n.is_inference(), probe(lambda: a._version), v._version)
        return {"inside": inside, "n": n._version, "v_base": v._base is n,
                "clone": a.clone().is_inference(), "detach": a.detach().is_inference(),
                "data": a.data.is_inference(), "op": (a + 1).is_inference(),
                "view": a[1:].is_inference(), "view_is_view": a[1:]._is_view(),
                "view_base": a[1:]._base is None, "version": probe(lambda: a._version),
                "fn": T.is_inference(a), "normal": x.is_inference(),
                "same_dtype_to": a.float().is_inference(), "leaf": a.is_leaf}
    compare_torch(prog)


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("write", [
    lambda T, a: a.add_(1), lambda T, a: a.mul_(2), lambda T, a: a.zero_(),
    lambda T, a: a.fill_(7.), lambda T, a: a.copy_(T.ones(3)), lambda T, a: a.exp_(),
    lambda T, a: a.clamp_(0, 1), lambda T, a: a.__setitem__(0, 9.),
    lambda T, a: a.unsqueeze_(0), lambda T, a: a.t_(), lambda T, a: a.as_strided_((2,), (1,)),
    lambda T, a: a[1:].mul_(3), lambda T, a: a.index_fill_(0, T.tensor([0]), 5.),
    lambda T, a: T.add(T.ones(3), 5, out=a), lambda T, a: T.add(T.ones(2), 5, out=a),
], ids=["add_", "mul_", "zero_", "fill_", "copy_", "exp_", "clamp_", "setitem", "unsqueeze_",
        "t_", "as_strided_", "view_mul_", "index_fill_", "out", "out_resize"])
def test_in_place_on_inference_tensor_outside_the_mode_raises_after_the_write(write):
    """torch's error comes from the version bump, after the kernel: the data *is* changed."""
    def prog(T):
        a = _inf(T)
        err = attempt(lambda: write(T, a))
        return {"err": err, **_state(a)}
    compare_torch(prog)
    a = _inf(il)
    with pytest.raises(errors.InferenceTensorError) as e:
        write(il, a)
    assert e.value.kind == "inplace"


def test_in_place_on_inference_tensor_inside_the_mode_and_under_no_grad():
    def prog(T):
        a = _inf(T)
        with T.no_grad():  # no_grad is not inference mode: still refused
            e1 = attempt(lambda: a.add_(1))
        with T.inference_mode():
            a.add_(1)
            a.t_()
            with T.inference_mode(False):  # turned off again inside: refused
                e2 = attempt(lambda: a.mul_(2))
        return {"e1": e1, "e2": e2, **_state(a), "resize_same": attempt(lambda: a.resize_(3)),
                "detach_": attempt(lambda: a.detach_()),
                "rg_false": attempt(lambda: a.requires_grad_(False))}
    compare_torch(prog)


def test_inference_tensors_cannot_be_saved_for_backward():
    def prog(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        a = _inf(T)
        y = x * 1
        mul = attempt(lambda: a * x)  # MulBackward0 saves a
        inplace = attempt(lambda: y.mul_(a))  # refused before the write: y unchanged
        add = (a + x).grad_fn  # add saves nothing: allowed
        (x.exp() + a).sum().backward()

        class Keep(T.autograd.Function):
            @staticmethod
            def forward(ctx, p, q):
                ctx.save_for_backward(q)
                return p * q

            @staticmethod
            def backward(ctx, g):
                return g, None
        fn = attempt(lambda: Keep.apply(x, a))
        with T.inference_mode():
            with T.inference_mode(False):
                nested = attempt(lambda: _inf(T) * x)
        return {"mul": mul, "inplace": inplace, "y": y, "y_v": y._version, "add": add,
                "grad": x.grad, "fn": fn, "nested": nested}
    compare_torch(prog)
    with pytest.raises(errors.InferenceTensorError) as e:
        _inf(il) * il.ones(3, requires_grad=True)
    assert e.value.kind == "save"


def test_requires_grad_rules_for_inference_tensors():
    def prog(T):
        a = _inf(T)
        outside = attempt(lambda: a.requires_grad_())
        attr = attempt(lambda: setattr(a, "requires_grad", True))
        with T.inference_mode():
            b = T.ones(2)
            b.requires_grad_()
            c = T.ones(2, requires_grad=True)
            inside = (b.requires_grad, b.is_leaf, c.requires_grad, (b * 2).requires_grad,
                      (b * 2).grad_fn)
        i = _inf(T).long()
        return {"outside": outside, "attr": attr, "inside": inside, "a": a.requires_grad,
                "int": attempt(lambda: i.requires_grad_()),  # the dtype check comes first
                "add": (b + 1).grad_fn, "hook": attempt(lambda: a.register_hook(lambda g: g))}
    compare_torch(prog)


def test_views_in_inference_mode_of_normal_tensors():
    def prog(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        n = T.ones(3)
        with T.inference_mode():
            w = n[1:]
            wx = x.view(3)
            y_leaf_inplace = attempt(lambda: x.add_(1))  # allowed: no recording here
        y = x * 1
        with T.inference_mode():
            v = y[1:]
        w.add_(1)  # no grad involved: allowed
        return {"w": (w._base is n, w._is_view(), w.is_inference(), n._version),
                "wx": (wx._base is x, wx.requires_grad, wx.grad_fn, wx.is_leaf),
                "leaf": y_leaf_inplace, "x": x, "x_v": x._version,
                "v": attempt(lambda: v.mul_(2)), "v_fn": probe(lambda: v.grad_fn)}
    compare_torch(prog)


def test_inference_mode_false_and_decorators():
    def prog(T):
        @T.inference_mode()
        def f():
            return T.ones(1).is_inference(), T.is_grad_enabled(), T.is_inference_mode_enabled()

        @T.inference_mode
        def g():
            return T.ones(1).is_inference()

        @T.inference_mode(False)
        def h():
            return T.ones(1).is_inference(), T.is_inference_mode_enabled()

        with T.inference_mode():
            with T.inference_mode(False):
                state = (T.is_inference_mode_enabled(), T.is_grad_enabled(),
                         T.ones(1).is_inference())
            after = (T.is_inference_mode_enabled(), T.is_grad_enabled())
        with T.no_grad():
            with T.inference_mode(False):  # turns grad mode on even under no_grad
                ng = (T.is_inference_mode_enabled(), T.is_grad_enabled())
        return {"f": f(), "g": g(), "h": h(), "state": state, "after": after, "ng": ng,
                "mode": (T.inference_mode().mode, T.inference_mode(False).mode,
                         T.inference_mode(False).clone().mode),
                "end": (T.is_inference_mode_enabled(), T.is_grad_enabled())}
    compare_torch(prog)


# ---- custom Functions -------------------------------------------------------------------------

def _identity(T):
    class Id(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Id


def _pair(T):
    class Pair(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x, y * 3

        @staticmethod
        def backward(ctx, g, h):
            return g * 2, h * 3
    return Pair


def _double_dirty(T, outputs=1):
    class Dbl(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x if outputs == 1 else (x, x * 1)

        @staticmethod
        def backward(ctx, g, *rest):
            return g * 2
    return Dbl


def test_input_returned_as_is_then_modified_in_place():
    def prog(T):
        Id = _identity(T)
        x = T.tensor([1., 2.], requires_grad=True)
        y = Id.apply(x)
        meta = (y is x, y._is_view(), y._base is x, y.grad_fn, y.output_nr, y.is_leaf)
        leaf = attempt(lambda: y.add_(1))  # custom-Function view error, not the leaf error
        a = x * 1
        b = Id.apply(a)
        direct = attempt(lambda: b.mul_(3))
        of_view = attempt(lambda: b[0:1].mul_(2))  # a view of it inherits the ban
        b.sum().backward(retain_graph=True)
        g1 = x.grad.clone()
        a.mul_(3)  # the base changes: the custom view cannot be rebuilt
        return {"meta": meta, "leaf": leaf, "direct": direct, "of_view": of_view, "g1": g1,
                "indirect": attempt(lambda: b.grad_fn),
                "backward": attempt(lambda: b.sum().backward()), "versions": (a._version,
                                                                            b._version)}
    compare_torch(prog)
    x = il.tensor([1., 2.], requires_grad=True)
    with pytest.raises(errors.CustomFunctionViewInplaceError):
        _identity(il).apply(x * 1).add_(1)


def test_returned_inputs_with_several_outputs_and_without_graph():
    def prog(T):
        Pair = _pair(T)
        x = T.tensor([1., 2.], requires_grad=True)
        a = x * 1
        p, q = Pair.apply(a, x)
        n = T.ones(2)
        p2, _ = Pair.apply(n, x)
        with T.no_grad():
            y = _identity(T).apply(a)

        class ND(T.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                ctx.mark_non_differentiable(t)
                return t

            @staticmethod
            def backward(ctx, g):
                return g
        nd = ND.apply(a)
        plain = _identity(T).apply(n)
        return {"nr": (p.output_nr, q.output_nr), "p_fn": p.grad_fn, "p": attempt(lambda: p.mul_(2)),
                "p_base": attempt(lambda: a.mul_(2) and p.grad_fn),
                "p2": (p2 is n, p2._is_view(), p2.requires_grad, p2.grad_fn),
                "p2_inplace": attempt(lambda: p2.add_(1)),
                "no_grad": (y is a, y.requires_grad, y._is_view(), y.grad_fn),
                "nd": (nd is a, nd.requires_grad, nd._is_view(), a.requires_grad),
                "plain": (plain is n, plain._is_view(), plain._base is n, plain.requires_grad),
                "plain_add": attempt(lambda: plain.add_(1)), "n": n}
    compare_torch(prog)


def test_mark_dirty_on_a_view_input():
    def prog(T):
        Dbl = _double_dirty(T)
        x = T.tensor([1., 2., 3.], requires_grad=True)
        base = x * 1
        v = base[1:]
        r = Dbl.apply(v)
        out = {"same": r is v, "v": (v._version, base._version), "fn": (v.grad_fn, base.grad_fn),
               "base_of": r._base is base, "nr": r.output_nr}
        base.sum().backward()
        out["grad"] = x.grad
        leaf = T.tensor([1., 2., 3.], requires_grad=True)
        out["view_of_leaf"] = attempt(lambda: Dbl.apply(leaf[1:]))
        out["leaf_after"] = (leaf._version, leaf.detach().clone())
        b2 = T.tensor([1., 2., 3.], requires_grad=True) * 1
        out["two_outputs"] = attempt(lambda: _double_dirty(T, 2).apply(b2[1:]))
        b3 = T.tensor([1., 2., 3.], requires_grad=True) * 1
        with T.no_grad():
            nv = b3[1:]
        out["no_grad_view"] = attempt(lambda: Dbl.apply(nv))
        b4 = T.tensor([1., 2., 3.], requires_grad=True) * 1
        out["unbind_view"] = attempt(lambda: Dbl.apply(b4.unbind()[0]))
        return out
    compare_torch(prog)


def test_once_differentiable_refuses_double_backward():
    def prog(T):
        if T is il:
            from inplace_lab.autograd.function import once_differentiable
        else:
            from torch.autograd.function import once_differentiable

        class Sq(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @once_differentiable
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g
        x = T.tensor([1., 2.], requires_grad=True)
        first = T.autograd.grad(Sq.apply(x).sum(), x)  # plain backward: fine
        g0, = T.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)  # ones don't need grad
        z = Sq.apply(x)
        g, = T.autograd.grad((z * z).sum(), x, create_graph=True)
        return {"first": first, "g0": (g0.requires_grad, g0.grad_fn), "g": g,
                "g_meta": (g.requires_grad, g.grad_fn, g.is_leaf,
                           [e[0] for e in g.grad_fn.next_functions]),
                "double": attempt(lambda: (g * 3).sum().backward()),
                "grad": attempt(lambda: T.autograd.grad(g.sum(), x)), "x_grad": x.grad}
    compare_torch(prog)


def test_output_nr():
    def prog(T):
        x = T.tensor([[3., 1.], [2., 4.]], requires_grad=True)
        return {"leaf": x.output_nr, "op": (x * 2).output_nr,
                "unbind": [t.output_nr for t in (x * 1).unbind()],
                "split": [t.output_nr for t in T.split(x * 1, 1)],
                "max": [t.output_nr for t in x.max(0)], "view": x[0].output_nr}
    compare_torch(prog)


# ---- saved scalar arguments and the edges of numbers -----------------------------------------

SAVED = {
    "x*3": lambda T, x: ((x * 3).grad_fn, ["_saved_other", "_saved_self"]),
    "3*x": lambda T, x: ((3 * x).grad_fn, ["_saved_other", "_saved_self"]),
    "x*3.5": lambda T, x: ((x * 3.5).grad_fn, ["_saved_other"]),
    "x*True": lambda T, x: (x.mul(True).grad_fn, ["_saved_other"]),
    "x*1j": lambda T, x: ((x * (1 + 2j)).grad_fn, ["_saved_other"]),
    "x/3": lambda T, x: ((x / 3).grad_fn, ["_saved_other", "_saved_self"]),
    "3/x": lambda T, x: ((3 / x).grad_fn, ["_saved_other", "_saved_self"]),
    "x.mul_(3)": lambda T, x: ((x * 1).mul_(3).grad_fn, ["_saved_other"]),
    "div rounding": lambda T, x: (T.div(x, 2, rounding_mode="floor").grad_fn, ["_saved_other"]),
    "add": lambda T, x: (T.add(x, 3, alpha=2).grad_fn, ["_saved_alpha", "_saved_other"]),
    "3+x": lambda T, x: ((3 + x).grad_fn, ["_saved_alpha", "_saved_other"]),
    "3-x": lambda T, x: ((3 - x).grad_fn, ["_saved_alpha"]),
    "sub": lambda T, x: (T.sub(x, 3, alpha=2).grad_fn, ["_saved_alpha", "_saved_other"]),
    "pow": lambda T, x: ((x ** 2).grad_fn, ["_saved_exponent"]),
    "pow float": lambda T, x: ((x ** 2.5).grad_fn, ["_saved_exponent"]),
    "rpow": lambda T, x: ((2 ** x).grad_fn, ["_saved_self", "_saved_result"]),
    "clamp": lambda T, x: (x.clamp(0, 1).grad_fn, ["_saved_min", "_saved_max"]),
    "lerp": lambda T, x: (T.lerp(x, x * 2, 0.3).grad_fn, ["_saved_weight"]),
    "xlogy": lambda T, x: (T.xlogy(x, 2).grad_fn, ["_saved_other"]),
    "xlogy1": lambda T, x: (T.xlogy(2, x).grad_fn, ["_saved_self"]),
    "addcmul": lambda T, x: (T.addcmul(x, x, x, value=2).grad_fn, ["_saved_value"]),
    "where": lambda T, x: (T.where(x > 1, x, 2.).grad_fn, ["_saved_other"]),
    "copysign": lambda T, x: (T.copysign(x, 2).grad_fn, []),
    "fmod": lambda T, x: (T.fmod(x, 2).grad_fn, []),
    "remainder": lambda T, x: (T.remainder(x, 2).grad_fn, []),
    "rsub": lambda T, x: (T.rsub(x, 2).grad_fn, ["_saved_alpha"]),
}


@pytest.mark.parametrize("case", sorted(SAVED))
def test_saved_scalars_and_number_edges_match_torch(case):
    """What ``_saved_<name>`` returns (a 0-dim tensor only where torch wrapped the number),
    and which edges a number gets in ``next_functions``."""
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        fn, names = SAVED[case](T, x)
        return {"fn": fn, "edges": [(e[0], e[1]) for e in fn.next_functions],
                **{n: probe(lambda n=n: getattr(fn, n)) for n in names}}
    compare_torch(prog)


def test_saved_scalar_types():
    """The harness compares tensors by value: check the Python types and dtypes here."""
    import torch

    x_t, x_i = torch.tensor([1., 2.], requires_grad=True), il.tensor([1., 2.], requires_grad=True)
    for f in (lambda T, x: (x * 3).grad_fn._saved_other, lambda T, x: (x * 3.5).grad_fn._saved_other,
              lambda T, x: x.mul(True).grad_fn._saved_other, lambda T, x: (x ** 2).grad_fn._saved_exponent,
              lambda T, x: x.clamp(0, 1).grad_fn._saved_min, lambda T, x: T.add(x, 3, alpha=2).grad_fn._saved_alpha):
        ref, got = f(torch, x_t), f(il, x_i)
        if isinstance(ref, torch.Tensor):
            assert isinstance(got, il.Tensor) and got.ndim == 0
            assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
            assert got.item() == ref.item()
        else:
            assert type(got) is type(ref) and got == ref


def test_number_operands_keep_the_backward_maths():
    def prog(T):
        x = T.tensor([1., 2., 4.], requires_grad=True)
        (3 * x + 2 / x - (5 - x) + x.rsub(1) + T.xlogy(x, 2) + T.remainder(x, 3)).sum().backward()
        return {"grad": x.grad, "value": 3 / x}
    compare_torch(prog)
