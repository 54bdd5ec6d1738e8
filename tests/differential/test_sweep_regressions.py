"""Regressions the program sweep (test_program_sweep.py) found, each minimised, vs torch 2.13."""
from __future__ import annotations

import pytest

from tests.differential.harness import attempt, compare_torch, probe

torch = pytest.importorskip("torch")


def test_inplace_on_a_leaf_that_is_a_view_says_view_of_a_leaf():
    """``arange(6.).reshape(2, 3).requires_grad_()`` is a view whose base needs no grad."""
    def prog(T):
        x = T.arange(6.).reshape(2, 3).requires_grad_()
        d = x.diagonal()
        return {"leaf": attempt(lambda: x.mul_(2)), "view": attempt(lambda: d.clamp_(min=0)),
                "v": x._version}
    compare_torch(prog)


def test_view_with_grad_fn_goes_stale_even_if_its_base_needs_no_grad():
    def prog(T):
        x = T.arange(6.).reshape(2, 3).requires_grad_()
        d = x.diagonal(1)
        with T.inference_mode():
            x.t().mul_(2)
        return {"fn": d.grad_fn, "next": [f for f, _ in d.grad_fn.next_functions]}
    compare_torch(prog)


def test_fill_with_a_tensor_value_is_fill_backward3_and_refuses_an_expanded_target():
    def prog(T):
        y = T.zeros(1, 3, requires_grad=True).clone()
        y.fill_(T.tensor(3.))
        z = T.zeros(1, 3, requires_grad=True).clone()
        z.fill_(3.)
        e = T.ones(3).expand(2, 3)
        return {"y": y.grad_fn, "z": z.grad_fn, "fill_num": attempt(lambda: e.fill_(1.)),
                "fill_t": attempt(lambda: e.fill_(T.tensor(1.))),
                "setitem_all": attempt(lambda: e.__setitem__(slice(None), 1.)),
                "setitem_row": attempt(lambda: e.__setitem__(0, 1.))}
    compare_torch(prog)


def test_narrow_of_a_0_dim_tensor():
    compare_torch(lambda T: {"e": probe(lambda: T.tensor(1.).narrow(0, 0, 1))})


def test_detach__refuses_any_view_but_does_nothing_under_inference_mode():
    def prog(T):
        plain = attempt(lambda: T.ones(3)[1:].unsqueeze(0).detach_())
        x = T.zeros(4, 2, requires_grad=True)
        v = x[:1]
        with T.inference_mode():
            v.detach_()
        return {"plain": plain, "rg": v.requires_grad, "fn": v.grad_fn}
    compare_torch(prog)


def test_neg_of_a_16_byte_strided_float32_view():
    """numpy 2.4's negative loop misreads such an input when writing a strided output."""
    def prog(T):
        x = T.tensor([[-1.5, -0.33, 0.61], [-0.55, -1.64, -0.2]])
        x.diagonal(1).neg_()
        a = T.arange(12, dtype=T.int32)
        a[1::4].neg_()
        b = T.arange(12.).reshape(3, 4)
        T.neg(b[:, 0], out=b[:, 1])
        return {"x": x, "a": a, "b": b}
    compare_torch(prog)


def test_setitem_of_a_broadcast_value_records_view_and_expand():
    def prog(T):
        w = T.ones(3, requires_grad=True) * 1
        x = T.zeros(2, 3)
        x[:] = w
        e = x.grad_fn.next_functions[1][0]
        u = T.ones(1, 3, requires_grad=True) * 1
        y = T.zeros(2, 3)
        y[0] = u
        f = y.grad_fn.next_functions[1][0]
        return {"e": e, "e_next": e.next_functions[0][0], "f": f}
    compare_torch(prog)


def test_a_no_grad_view_of_a_multi_output_view_reports_no_grad():
    """torch's propagate_creation_meta: the new view's no_grad mode wins over multi-output."""
    def prog(T):
        x = T.zeros(2, 3, 2, requires_grad=True)
        _, b = x.split(1, 0)
        with T.no_grad():
            v = b[0]
        with T.inference_mode():
            w = x[0]
        u = w[0]
        return {"v": attempt(lambda: v.__setitem__(0, 0.5)), "u": attempt(lambda: u.add_(1))}
    compare_torch(prog)


def test_array_lane_lays_gradients_out_as_tensoriterator():
    """The array lane's kernels lay a gradient out as TensorIterator does where operands
    disagree (a gradient through a transposed view times a contiguous saved result): numpy's
    own choice made the leaf steal a gradient torch copies (version 0 against 1, seed 17517)."""
    def prog(T):
        t0 = T.tensor([[-1.08, 1.53, 0.84, -1.47], [-1.27, -1.98, 1.85, -1.05],
                       [0.33, -0.98, 0.94, -0.21]], dtype=T.float64, requires_grad=True)
        t5 = t0.squeeze(0).exp()
        t5.mT[:-1:3].exp().sum().backward()
        out = {"g": t0.grad, "v": t0.grad._version, "s": t0.grad.stride()}
        w = T.ones(3, 4, requires_grad=True)
        (w.t().tanh() * T.arange(12.0).reshape(4, 3)).sum().backward()
        out["tanh"] = (w.grad, w.grad._version, w.grad.stride())
        return out
    compare_torch(prog)


def test_as_strided_of_an_expanded_tensor_divides_by_each_cells_readers():
    """ATen's as_strided_backward on an input whose elements share cells: the summed gradient
    of each cell is divided by how many input elements read it (core seed 33890: the leaf got
    twice torch's gradient), the buffer is written twice (version 2), and it differentiates
    again under create_graph."""
    def prog(T):
        t0 = T.tensor([[-1.37, 0.49, -1.23, -1.33], [1.36, 1.94, 0.41, -1.72]],
                      dtype=T.float64, requires_grad=True)
        t4 = t0.clone().expand(3, 2, 4)
        seen = []
        t4.register_hook(lambda g: seen.append({"g": g.clone(), "v": g._version,
                                                "stride": g.stride()}))
        (-1.0 - t4.as_strided((3,), (1,), 1)).mean().backward()
        t1 = T.ones(2, 4, dtype=T.float64, requires_grad=True)
        t6 = (t1 * 1).expand(2, 2, 4).as_strided((2, 3), (1, 1), 1)
        gx, = T.autograd.grad((t6 ** 2).sum(), [t1], create_graph=True)
        gg, = T.autograd.grad(gx.sum(), [t1])
        return {"grad": t0.grad, "seen": seen, "gx": gx, "gg": gg}
    compare_torch(prog, facade=True)


def test_a_view_made_under_no_grad_has_no_edge_so_nothing_is_saved_for_it():
    """torch's should_compute_output is the edge's validity: a view made under no_grad requires
    grad but has no edge, so ``view * 2.0`` keeps no wrapped 2.0 (``_saved_other`` is None) and
    a second backward through it runs (core seed 42158); with a real input it is saved."""
    def prog(T):
        t0 = T.tensor([[0.57, -1.41, 1.71]], dtype=T.float64, requires_grad=True)
        with T.no_grad():
            t4 = t0[0]
        t5 = t4 * 2.0
        y = t4 * t0
        out = {"other": t5.grad_fn._saved_other, "y self": y.grad_fn._saved_self,
               "y other": y.grad_fn._saved_other, "rg": t4.requires_grad}
        t6 = t5.mean()
        t6.backward()
        t8 = t6.pow(2).sum()
        out["second"] = attempt(t8.backward)
        z = (t0 * 1) * 2.0
        z.sum().backward()
        out["saved number"] = attempt(lambda: z.sum().backward())
        return out
    compare_torch(prog, facade=True)


def test_max_of_a_transposed_tensor_sends_a_contiguous_gradient():
    """Seed 89550: max()'s backward is ``grad.new_zeros(sizes).masked_fill_(...)``, contiguous
    whatever the input's layout; a transposed view's gradient then reaches a contiguous leaf
    transposed through a mul, so AccumulateGrad copies it into the leaf's layout (version 1)."""
    def prog(T):
        t1 = T.tensor([[1.25, 1.54, 1.38, -1.03], [-0.55, 1.22, 0.05, 0.08],
                       [0.17, 0.85, -1.2, 0.37]], dtype=T.float64, requires_grad=True)
        seen = []
        t4 = (t1 * 1).mT
        t4.register_hook(lambda g: seen.append((g.stride(), g._version)))
        t4.max().backward()
        out = {"grad": t1.grad, "version": t1.grad._version, "stride": t1.grad.stride(),
               "seen": seen}
        t1.grad = None
        (t1 + 0).t().min().backward()
        out["min"] = [t1.grad, t1.grad._version]
        return out
    compare_torch(prog, facade=True)


def test_index_select_on_an_empty_dim_of_a_matrix():
    """Seed 84665: ATen refuses a non-empty index into a size-0 dim of a matrix first (a
    RuntimeError), and calls any other bad index out of range (an IndexError)."""
    def prog(T):
        x = T.ones(3, 4)[:, 2:3][2:2]
        return {"empty": attempt(lambda: x.index_select(0, T.tensor([0]))),
                "none": x.index_select(0, T.tensor([], dtype=T.long)).shape,
                "vector": attempt(lambda: T.ones(0).index_select(0, T.tensor([0]))),
                "range": attempt(lambda: T.ones(3, 1).index_select(0, T.tensor([3])))}
    compare_torch(prog, facade=True)


def test_inplace_op_on_an_inference_view_reports_the_broadcast_first():
    """Seed 104708: an in-place op saves a clone of its target (original_self), never the
    inference tensor itself, so ``t4 *= t6`` with shapes that do not broadcast is the kernel's
    broadcast error; with shapes that do, the version bump's inference refusal."""
    def prog(T):
        out = {}
        for op in ("mul_", "div_", "add_"):
            for shape in ((3,), (4, 2)):
                t0 = T.zeros(1, 3, dtype=T.float64, requires_grad=True)
                with T.inference_mode():
                    t2 = t0 * 2
                with T.no_grad():
                    t4 = t2.view(-1)
                t6 = T.ones(*shape, dtype=T.float64, requires_grad=True).clone()
                out[f"{op}{shape}"] = attempt(lambda: getattr(t4, op)(t6))
        return out
    compare_torch(prog, facade=True)


def test_gradient_through_copyslices_reaches_the_view_node_c_ordered():
    """Seed 123413: CopySlices hands the view's node ``grad_slice.clone(Contiguous)``, so the
    gradients an in-place op on a permuted view sends its other input are C-ordered, and the
    engine sums them in place into one buffer (the leaf's .grad at version 2)."""
    def prog(T):
        t0 = T.arange(12.0, dtype=T.float64).reshape(2, 3, 2).requires_grad_()
        t1 = t0 + 0
        t3 = t1.permute(2, 1, 0)
        t3.sub_(t0, alpha=0.5)
        t3.add_(t0, alpha=2)
        (t3 * t3).sum().backward()
        return {"grad": t0.grad, "version": t0.grad._version, "stride": t0.grad.stride()}
    compare_torch(prog, facade=True)
