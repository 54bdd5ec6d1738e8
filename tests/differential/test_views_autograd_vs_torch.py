"""In-place ops on views under autograd (SEMANTICS 6) and PyTorch's own view tests, vs torch.

CopySlices rebases the base's history; the view's grad_fn is rebuilt lazily as
AsStridedBackward0; views made under no_grad and outputs of unbind/split/chunk refuse
in-place ops while grad is recorded.
"""
from __future__ import annotations

import pytest

from tests.differential.harness import attempt, compare_torch

pytest.importorskip("torch")


# ---- SEMANTICS 6 examples ----------------------------------------------------------------------

def mul_on_a_slice_rebases_the_base(T):
    x = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    v = y[1:3]
    v.mul_(10)
    fns = {"y": y.grad_fn, "v": v.grad_fn, "v.next": v.grad_fn.next_functions[0][0]}
    y.sum().backward()
    return {"grad": x.grad, "fns": fns, "versions": [y._version, v._version], "y": y}


def setitem_makes_a_buffer_require_grad(T):
    w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    buf = T.zeros(2, 3)
    buf[0] = w * 2
    buf[1].add_(w ** 2)
    flags = [buf.requires_grad, buf.is_leaf]
    (buf * T.tensor([[1.0], [10.0]])).sum().backward()
    return {"grad": w.grad, "flags": flags, "fn": buf.grad_fn, "v": buf._version}


def base_modified_after_view_taken(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.clone()
    v = y[:2]
    y.mul_(x)
    v.sum().backward()
    return {"grad": x.grad, "v.fn": v.grad_fn, "v": v}


def row_mul_rewrites_base_grad(T):
    a = T.tensor([[1.0, 1.0], [1.0, 1.0]], requires_grad=True)
    b = a * 1
    b[0].mul_(2)
    b.sum().backward()
    return {"grad": a.grad, "b": b}


def t_inplace_on_non_leaf(T):
    x = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1
    y2 = y.t_()
    out = {"same": y2 is y, "shape": list(y.shape), "stride": list(y.stride()), "v": y._version,
           "fn": y.grad_fn}
    (y * T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    out["grad"] = x.grad
    return out


def transpose_inplace_on_non_leaf(T):
    x = T.arange(6.0).reshape(1, 2, 3).requires_grad_()
    y = x * 2
    y.transpose_(0, 2)
    out = {"shape": list(y.shape), "stride": list(y.stride()), "v": y._version, "fn": y.grad_fn}
    (y * T.arange(6.0).reshape(3, 2, 1)).sum().backward()
    out["grad"] = x.grad
    return out


def t_inplace_on_leaf_refused(T):
    x = T.ones(2, 3, requires_grad=True)
    return {"err": attempt(x.t_), "shape": list(x.shape), "v": x._version}


def view_from_no_grad_modified_with_grad(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with T.no_grad():
        v = y[1:]
    return {"err": attempt(lambda: v.mul_(2)), "y": y, "v": y._version,
            "rg": v.requires_grad}


def view_from_no_grad_modified_under_no_grad(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with T.no_grad():
        v = y[1:]
        v.mul_(2)
    y.sum().backward()
    return {"grad": x.grad, "y": y, "fn": y.grad_fn}


def view_of_no_grad_view_inherits_the_ban(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with T.no_grad():
        v = y[1:]
    w = v[:1]
    return {"err": attempt(lambda: w.add_(1))}


def view_from_no_grad_of_a_plain_tensor_is_fine(T):
    w = T.tensor([1.0, 2.0], requires_grad=True)
    buf = T.zeros(3)
    with T.no_grad():
        v = buf[1:]
    v.mul_(w)
    v.sum().backward()
    return {"grad": w.grad, "buf": buf, "fn": buf.grad_fn}


def _multi(split):
    def prog(T):
        x = T.arange(6.0).reshape(3, 2).requires_grad_()
        y = x * 1
        parts = split(y)
        return {"err": attempt(lambda: parts[1].mul_(2)), "y": y, "v": y._version,
                "fn": parts[1].grad_fn}
    return prog


unbind_output_refused = _multi(lambda y: y.unbind())
split_output_refused = _multi(lambda y: y.split(1))
chunk_output_refused = _multi(lambda y: y.chunk(3))


def multi_output_view_of_view_refused(T):
    a = T.arange(4.0).requires_grad_().clone()
    b = a.unbind(0)
    c = b[0].view_as(b[0])
    return {"err": attempt(lambda: c.mul_(2))}


def multi_output_under_no_grad_is_fine(T):
    a = T.arange(4.0)
    b = a.unbind(0)
    b[1].mul_(3)
    return {"a": a, "v": a._version}


def views_of_views_share_root_base(T):
    x = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1
    v = y[1]
    w = v[1:]
    w.mul_(5)
    fns = [y.grad_fn, v.grad_fn, w.grad_fn]
    (y * y).sum().backward()
    return {"grad": x.grad, "base_is_root": w._base is y, "fns": fns,
            "versions": [y._version, v._version, w._version]}


def old_view_after_base_inplace(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[1:]
    y.mul_(x)
    fn = v.grad_fn
    (v * v).sum().backward()
    return {"grad": x.grad, "fn": fn, "v": v, "versions": [y._version, v._version]}


def view_then_base_inplace_breaks_saved_view(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[1:]
    z = v * v
    y.add_(1)
    return {"backward": attempt(lambda: z.sum().backward())}


def expand_view_inplace_refused_before_writing(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    e = y.expand(2, 3)
    return {"err": attempt(lambda: e.add_(1)), "y": y, "v": y._version}


def no_grad_view_requires_grad_but_has_no_sink(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with T.no_grad():
        v = y[1:]
    flags = [v.requires_grad, v.grad_fn, v.is_leaf]
    (v * 2).sum().backward()
    return {"flags": flags, "x.grad": x.grad, "v.grad": v.grad}


def no_grad_view_after_base_inplace_has_no_grad_fn(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with T.no_grad():
        v = y[1:]
    y.mul_(2)
    return {"err": attempt(lambda: v.grad_fn), "y": y}


def unbind_output_after_base_inplace_has_no_grad_fn(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    parts = y.unbind()
    y.mul_(2)
    return {"err": attempt(lambda: parts[0].grad_fn),
            "backward": attempt(lambda: (parts[1] * 2).sum().backward())}


def inference_mode_view_modified_outside(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with T.inference_mode():
        v = y[1:]
    return {"err": attempt(lambda: v.mul_(2)), "y": y, "v": y._version}


# ---- PyTorch's own tests (test/test_autograd.py, TestAutogradDeviceType), as programs ----------

ROOT = [[0.5, -1.0], [2.0, 3.0]]


def pytorch_test_inplace_on_view_backprop_base(T):
    root = T.tensor(ROOT, requires_grad=True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v1.mul_(2)
    x.sum().backward()
    return {"grad": root.grad}


def pytorch_test_inplace_on_view_backprop_view_of_view(T):
    root = T.tensor(ROOT, requires_grad=True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v2 = x.narrow(0, 0, 1)
    v1.mul_(2)
    v2.sum().backward()
    return {"grad": root.grad}


def pytorch_test_inplace_on_view_of_view(T):
    root = T.tensor(ROOT, requires_grad=True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v2 = v1.narrow(1, 1, 1)
    v2.mul_(2)
    x.sum().backward()
    return {"grad": root.grad}


def pytorch_test_inplace_on_view_then_no_grad(T):
    a = T.ones(3, 1, dtype=T.float64, requires_grad=True)
    b = a * 2
    c = b.view_as(b)
    c[0][0] = 3
    with T.no_grad():
        fn = c.grad_fn
    c.sum().backward()
    return {"grad": a.grad, "fn": fn}


def pytorch_test_inplace_on_view_multiple_outputs(T):
    root = T.arange(9.0, dtype=T.float64).reshape(3, 3).requires_grad_()
    x = root.clone()
    v1 = x.unbind()
    return {"err": attempt(lambda: v1[0].mul_(2))}


def pytorch_test_inplace_on_view_makes_base_require_grad(T):
    a = T.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], dtype=T.float64)
    b = T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64, requires_grad=True)
    x = a.clone()
    before = x.requires_grad
    x.narrow(1, 2, 2).mul_(b)
    after = x.requires_grad
    (x * x).sum().backward()
    return {"before": before, "after": after, "grad": b.grad, "fn": x.grad_fn}


def pytorch_test_inplace_on_view_backprop_view(T):
    a = T.tensor([2.0, 5.0], requires_grad=False)
    b = T.tensor([3.0], requires_grad=True)
    res = a.narrow(0, 1, 1).mul_(b)
    res.sum().backward()
    return {"grad": b.grad, "a.grad": a.grad, "a": a, "fn": res.grad_fn}


def pytorch_test_inplace_on_view_modify_base(T):
    r = T.ones(1, dtype=T.float64, requires_grad=True)
    x = T.ones(5, dtype=T.float64)
    v = x.select(0, 1)
    before = [v.requires_grad, v.grad_fn]
    x.add_(r)
    after = [v.requires_grad, v.grad_fn]
    v.backward()
    return {"before": before, "after": after, "grad": r.grad, "v": v}


def pytorch_test_inplace_on_view_non_contig(T):
    root = T.ones(2, 3, 2).select(2, 1).t().requires_grad_(True)
    x = root.clone()
    v1 = x.narrow(0, 0, 1)
    v2 = v1.narrow(1, 1, 1)
    v2.mul_(2)
    x.sum().backward()
    return {"grad": root.grad}


def pytorch_test_inplace_on_view_multi_output_safe(T):
    out = []
    for f in (lambda t: t.split(1), lambda t: t.chunk(3)):
        a = T.ones(3, 3, requires_grad=True)
        b = a + a
        s1, s2, s3 = f(b)
        out.append(attempt(lambda: s1.mul_(s2)))
    return {"errs": out}


PROGRAMS = [mul_on_a_slice_rebases_the_base, setitem_makes_a_buffer_require_grad,
            base_modified_after_view_taken, row_mul_rewrites_base_grad, t_inplace_on_non_leaf,
            transpose_inplace_on_non_leaf, t_inplace_on_leaf_refused,
            view_from_no_grad_modified_with_grad, view_from_no_grad_modified_under_no_grad,
            view_of_no_grad_view_inherits_the_ban, view_from_no_grad_of_a_plain_tensor_is_fine,
            unbind_output_refused, split_output_refused, chunk_output_refused,
            multi_output_view_of_view_refused, multi_output_under_no_grad_is_fine,
            views_of_views_share_root_base, old_view_after_base_inplace,
            view_then_base_inplace_breaks_saved_view, expand_view_inplace_refused_before_writing,
            no_grad_view_requires_grad_but_has_no_sink,
            no_grad_view_after_base_inplace_has_no_grad_fn,
            unbind_output_after_base_inplace_has_no_grad_fn, inference_mode_view_modified_outside,
            pytorch_test_inplace_on_view_backprop_base,
            pytorch_test_inplace_on_view_backprop_view_of_view,
            pytorch_test_inplace_on_view_of_view, pytorch_test_inplace_on_view_then_no_grad,
            pytorch_test_inplace_on_view_multiple_outputs,
            pytorch_test_inplace_on_view_makes_base_require_grad,
            pytorch_test_inplace_on_view_backprop_view, pytorch_test_inplace_on_view_modify_base,
            pytorch_test_inplace_on_view_non_contig, pytorch_test_inplace_on_view_multi_output_safe]

for _name, _p in (("unbind_output_refused", unbind_output_refused),
                  ("split_output_refused", split_output_refused),
                  ("chunk_output_refused", chunk_output_refused)):
    _p.__name__ = _name


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_views_under_autograd_match_torch(prog):
    compare_torch(prog)


def view_taken_before_base_requires_grad(T):
    a = T.zeros(3)
    v = a[1:]
    a.requires_grad_()
    flags = [v.requires_grad, v.grad_fn, v.is_leaf]
    return {"flags": flags, "err": attempt(lambda: v.add_(1)), "a": a, "v": a._version}


def test_view_taken_before_base_requires_grad():
    compare_torch(view_taken_before_base_requires_grad)


@pytest.mark.parametrize("view", [
    lambda T, e: (e[0] * T.tensor([1.0, 2.0, 3.0])).sum(), lambda T, e: e[:, 1:].sum(),
    lambda T, e: e.t()[1].sum(), lambda T, e: e.narrow(1, 1, 2).sum() * 2,
    lambda T, e: e.diagonal().sum(), lambda T, e: e.unbind(0)[1].sum(),
    lambda T, e: sum(p.sum() * (i + 1) for i, p in enumerate(e.split(1, 0))),
    lambda T, e: e.unfold(1, 2, 1).sum(), lambda T, e: e.unsqueeze(0)[0, 1].sum(),
    lambda T, e: e[1, ::2].sum(), lambda T, e: e.select(1, 2).sum(),
], ids=["select", "slice", "t-select", "narrow", "diagonal", "unbind", "split", "unfold",
        "unsqueeze-index", "strided", "select-dim1"])
def test_a_view_of_an_expanded_tensor_sends_its_gradient_by_index(view):
    """PyTorch's view backwards work by index (zeros(sizes).slice(...).copy_(grad)): a hook on
    an expanded tensor sees the gradient where the view read it; by cell it would be spread over
    (or given to the last of) the elements sharing that cell. The leaf's gradient is the same
    either way, which is why only the hook shows it."""
    def prog(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        e = (x * 1).expand(2, 3)
        seen = []
        e.register_hook(lambda g: seen.append(g.clone()))
        view(T, e).backward()
        return {"seen": seen, "grad": x.grad}
    compare_torch(prog, facade=True)
