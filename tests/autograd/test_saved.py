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


# ---- saved-tensor hooks: the class, save_on_cpu, disabling, _raw_saved_ (the PyTorch tutorial) --

def _logging_hooks(T, log, a, b):
    def pack(t):
        names = [n for n, o in (("a", a), ("b", b)) if t is o]
        log.append(("pack", names[0] if names else type(t.grad_fn).__name__, t.requires_grad))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t
    return pack, unpack


def test_pack_hooks_see_the_saves_in_torchs_order():
    """Inputs in the order of their names (mul: other, then self), then the results."""
    def prog(T):
        out = {}
        for name, f in {"mul": lambda a, b: a * b, "div": lambda a, b: a / b,
                        "pow": lambda a, b: a ** b, "atan2": lambda a, b: T.atan2(a, b),
                        "mm": lambda a, b: a.mm(b.t()), "hypot": lambda a, b: T.hypot(a, b),
                        "lerp": lambda a, b: T.lerp(a, b, 0.5), "mse": lambda a, b:
                        T.nn.functional.mse_loss(a, b) if hasattr(T, "nn") else a}.items():
            log = []
            a, b = _leaf(T), _leaf(T, (2., 3., 4.))
            a, b = a.reshape(1, 3), b.reshape(1, 3)
            with T.autograd.graph.saved_tensors_hooks(*_logging_hooks(T, log, a, b)):
                y = f(a, b)
            y.sum().backward()
            out[name] = log
        return out
    compare_torch(prog)


def test_saved_tensors_hooks_is_a_class_to_subclass():
    def prog(T):
        class Doubled(T.autograd.graph.saved_tensors_hooks):
            def __init__(self):
                super().__init__(lambda t: t * 2, lambda t: t / 2)
        x = _leaf(T)
        h = T.autograd.graph.saved_tensors_hooks(print, print)
        with Doubled() as entered:
            y = x.exp()
        y.sum().backward()
        return {"grad": x.grad, "attrs": (h.pack_hook is print, h.unpack_hook is print),
                "entered": entered, "type": type(h).__name__}
    compare_torch(prog)


def test_unpack_hook_must_return_a_tensor():
    def prog(T):
        x = _leaf(T)
        out = {}
        for bad in (5, None, [1.0]):
            with T.autograd.graph.saved_tensors_hooks(lambda t: bad, lambda p: p):
                y = x.exp()
            out[repr(bad)] = attempt(lambda: y.sum().backward())
        return out
    compare_torch(prog)


def test_a_pack_hook_writing_its_input_is_refused():
    def prog(T):
        x = _leaf(T)
        y = x * 1
        z = y.exp()
        raw = z.grad_fn._raw_saved_result
        r = attempt(lambda: raw.register_hooks(lambda t: t.mul_(2), lambda t: t))
        return {"r": r, "z": z}
    compare_torch(prog)


def test_unpacked_tensors_keep_the_saved_tensors_autograd_identity():
    """PyTorch's SavedVariable::unpack gives the hook's result back its requires_grad and
    grad_fn: a leaf's gradient still reaches the leaf through create_graph."""
    def prog(T):
        x = _leaf(T)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach() * 1,
                                                    lambda t: t):
            y = (x * x).sum()
            w = x.exp()
        s = w.grad_fn._saved_result
        g, = T.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return {"g": g, "xgrad": x.grad, "s_rg": s.requires_grad,
                "s_fn": type(s.grad_fn).__name__, "s_leaf": s.is_leaf}
    compare_torch(prog)


def test_raw_saved_register_hooks_as_in_the_tutorial():
    def prog(T):
        log = []
        x = _leaf(T)
        y = x.pow(2)
        raw = y.grad_fn._raw_saved_self
        raw.register_hooks(lambda t: (log.append(("pack", t.requires_grad)), t * 10)[1],
                           lambda t: (log.append("unpack"), t)[1])
        seen = y.grad_fn._saved_self
        again = attempt(lambda: raw.register_hooks(lambda t: t, lambda t: t))
        y.sum().backward()
        after = attempt(lambda: y.grad_fn._raw_saved_self.register_hooks(lambda t: t,
                                                                         lambda t: t))
        k = x * T.ones(3)  # self is not saved: other needs no grad
        unsaved = attempt(lambda: k.grad_fn._raw_saved_self.register_hooks(lambda t: t,
                                                                           lambda t: t))
        number = attempt(lambda: y.grad_fn._raw_saved_exponent)
        return {"log": log, "seen": seen, "again": again, "grad": x.grad, "after": after,
                "unsaved": unsaved, "number": number,
                "type": type(x.exp().grad_fn._raw_saved_result).__name__}
    compare_torch(prog)


def test_save_on_cpu_keeps_cpu_tensors_as_they_are():
    def prog(T):
        x = _leaf(T)
        with T.autograd.graph.save_on_cpu():
            y = x.exp()
        y.detach().mul_(2)  # the hooks' hole: backward reads the doubled result
        y.sum().backward()
        g1 = x.grad.clone()
        x.grad = None
        with T.autograd.graph.save_on_cpu(pin_memory=True):  # no GPU: a plain CPU copy
            z = x.exp()
        z.detach().mul_(2)
        z.sum().backward()
        return {"g1": g1, "g2": x.grad, "pinned": z.grad_fn._saved_result.is_pinned()}
    compare_torch(prog)


def test_disable_saved_tensors_hooks():
    def prog(T):
        g = T.autograd.graph
        with g.disable_saved_tensors_hooks("hooks are off in this lesson"):
            inside = attempt(lambda: g.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__())
            cpu = attempt(lambda: g.save_on_cpu().__enter__())
        with g.saved_tensors_hooks(lambda t: t, lambda t: t):
            nested = attempt(lambda: g.disable_saved_tensors_hooks("no").__enter__())
        log = []
        with g.saved_tensors_hooks(lambda t: (log.append("outer"), t)[1], lambda t: t):
            with g.saved_tensors_hooks(lambda t: (log.append("inner"), t)[1], lambda t: t):
                _leaf(T).exp()
        return {"inside": inside, "cpu": cpu, "nested": nested, "innermost": log}
    compare_torch(prog)


_SAVE_CASES = {  # op -> (arity, program); inputs are (2, 3) tensors unless mm's second
    "zeta": (2, lambda T, a, b: T.special.zeta(a + 1, b)),
    "mul": (2, lambda T, a, b: a * b), "div": (2, lambda T, a, b: a / b),
    "pow": (2, lambda T, a, b: a ** b), "atan2": (2, lambda T, a, b: T.atan2(a, b)),
    "maximum": (2, lambda T, a, b: T.maximum(a, b)), "hypot": (2, lambda T, a, b: T.hypot(a, b)),
    "xlogy": (2, lambda T, a, b: T.xlogy(a, b)), "copysign": (2, lambda T, a, b: T.copysign(a, b)),
    "fmod": (2, lambda T, a, b: T.fmod(a, b)), "mm": (2, lambda T, a, b: a.mm(b.t())),
    "dist": (2, lambda T, a, b: T.dist(a, b)), "logaddexp": (2, lambda T, a, b: T.logaddexp(a, b)),
    "addcmul": (3, lambda T, a, b, c: T.addcmul(a, b, c)),
    "addcdiv": (3, lambda T, a, b, c: T.addcdiv(a, b, c)),
    "lerp": (3, lambda T, a, b, c: T.lerp(a, b, c)),
    "where": (3, lambda T, a, b, c: T.where(a > 1, b, c)),
    "igamma": (2, lambda T, a, b: T.igamma(a, b)),  # (self's gradient: not implemented)
    "igammac": (2, lambda T, a, b: T.igammac(a, b)),
}


@pytest.mark.parametrize("op", sorted(_SAVE_CASES))
def test_an_input_is_saved_only_when_a_gradient_that_reads_it_is_needed(op):
    """Which inputs a node saves, for every combination of inputs that require grad (PyTorch's
    rule: an input read by one formula only is saved when that gradient is needed; addcdiv's
    tensor2 and lerp's weight feed several and are always saved). A pack hook sees them."""
    import itertools

    n, f = _SAVE_CASES[op]

    def prog(T):
        out = {}
        for rg in itertools.product((False, True), repeat=n):
            if not any(rg):
                continue
            ins = [T.tensor([[0.5, 1.5, 2.5], [1.2, 0.7, 2.0]], requires_grad=r) for r in rg]
            log = []

            def pack(t):
                log.append(next((k for k, o in enumerate(ins) if t is o), "other"))
                return t
            with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                f(T, *ins)
            out["".join("1" if r else "0" for r in rg)] = log
        return out
    compare_torch(prog, facade=True)


_INDEX_SAVE_CASES = {  # op -> (the second tensor's shape, or None; program on a (3, 4) self)
    "scatter_add": ((2, 4), lambda T, s, o: T.scatter_add(
        s, 0, T.tensor([[0, 1, 2, 0], [1, 2, 0, 1]]), o)),
    "scatter": ((2, 4), lambda T, s, o: T.scatter(s, 0, T.tensor([[0, 1, 2, 0], [1, 2, 0, 1]]), o)),
    "index_add": ((2, 4), lambda T, s, o: T.index_add(s, 0, T.tensor([0, 2]), o, alpha=2.0)),
    "index_copy": ((2, 4), lambda T, s, o: T.index_copy(s, 0, T.tensor([0, 2]), o)),
    "put": ((2,), lambda T, s, o: s.put(T.tensor([0, 5]), o)),
    "put accumulate": ((2,), lambda T, s, o: s.put(T.tensor([0, 5]), o, accumulate=True)),
    "index_put": ((2, 4), lambda T, s, o: s.index_put((T.tensor([0, 2]),), o)),
    "masked_scatter": ((3, 4), lambda T, s, o: s.masked_scatter(s > 0, o)),
    "take": (None, lambda T, s, o: T.take(s, T.tensor([0, 5]))),
    "gather": (None, lambda T, s, o: T.gather(s, 0, T.tensor([[0, 1, 2, 0]]))),
}


@pytest.mark.parametrize("op", sorted(_INDEX_SAVE_CASES))
def test_index_ops_save_what_torchs_nodes_save(op):
    """index_add and index_copy keep their source (torch's formula expands to its shape) and
    put its source, each only when the source needs a gradient; scatter_add keeps its index only
    then (self's gradient is grad itself); take keeps self. A saved tensor is version-checked:
    writing it before backward is an error in torch, so it must be here."""
    import itertools

    shape, f = _INDEX_SAVE_CASES[op]

    def prog(T):
        out = {}
        for rg in itertools.product((False, True), repeat=1 if shape is None else 2):
            if not any(rg):
                continue
            s = T.tensor([[0.5, -1.5, 2.5, 1.0], [1.2, 0.7, -2.0, 0.3], [0.1, 0.9, 1.1, -0.4]],
                         requires_grad=rg[0])
            o = None if shape is None else T.full(shape, 0.25, requires_grad=rg[1])
            log = []

            def pack(t):
                log.append("self" if t is s else "other" if t is o else str(t.dtype))
                return t
            with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                y = f(T, s, o)
            key = "".join("1" if r else "0" for r in rg)
            out[key] = sorted(log)
            with T.no_grad():  # (then each saved float input is written before backward)
                for t in (s, o):
                    if t is not None and t.requires_grad:
                        t.mul_(2)
            out[key + " after a write"] = attempt(lambda: y.sum().backward())
        return out
    compare_torch(prog, facade=True)


def test_a_second_backward_fails_exactly_where_a_node_saved_something():
    """PyTorch's generated apply unpacks every saved variable first: a second backward through
    a released node that saved anything fails, even where the gradient needed reads nothing
    (a rounding div's, wide sweep seed 48422); a node that saved nothing runs again (sum, add,
    scatter_add and index_add with only self requiring grad)."""
    progs = {
        "floor div": lambda T, x: (x * 1).div(T.tensor([2.0, 3.0]), rounding_mode="floor"),
        "trunc div by a number": lambda T, x: (x * 1).div(2.0, rounding_mode="trunc"),
        "floor": lambda T, x: x.floor(), "sign": lambda T, x: x.sign(),
        "add": lambda T, x: x + x, "sum": lambda T, x: x.sum(), "expand": lambda T, x: x[:1].expand(3),
        "mul by a tensor": lambda T, x: x * T.tensor([2.0, 3.0]),
        "scatter_add, self only": lambda T, x: x.scatter_add(0, T.tensor([0, 1]), T.ones(2)),
        "index_add, self only": lambda T, x: x.index_add(0, T.tensor([0, 1]), T.ones(2)),
        "index_add, source too": lambda T, x: T.zeros(2).index_add(0, T.tensor([0, 1]), x),
        "where": lambda T, x: T.where(x > 2, x, 0.0),
    }

    def prog(T):
        out = {}
        for name, f in progs.items():
            x = T.tensor([1.5, 2.5], requires_grad=True)
            y = f(T, x).sum()
            y.backward()
            out[name] = attempt(y.backward)
            out[name + " grad"] = x.grad
        return out
    compare_torch(prog, facade=True)


def test_an_unsaved_input_may_change_before_backward():
    """addcdiv_ with only self requiring grad keeps tensor1 out of the graph: writing it in
    place is fine, and an inference tensor there is no refusal (wide sweep seeds 35993, 37482)."""
    def prog(T):
        t1 = T.tensor([[0.5, 1.9], [1.6, 0.7]], dtype=T.float64, requires_grad=True).clone()
        t2 = T.tensor([[1.5], [-1.4]], dtype=T.float64)
        t1.addcdiv_(t2, t2.abs() + 1)
        with T.no_grad():
            t2.abs_()
        with T.inference_mode():
            t4 = T.ones(2, 1, dtype=T.float64) * 2
        t5 = T.tensor([[0.5, 1.9], [1.6, 0.7]], dtype=T.float64, requires_grad=True) * 1
        r = attempt(lambda: t5.addcdiv_(t4, t4.abs() + 1))
        t1.sum().backward()
        return {"r": r, "t5": t5, "t1": t1}
    compare_torch(prog)


def test_every_hook_handle_is_torchs_removable_handle():
    """Tensor, node and module hooks all hand back torch.utils.hooks.RemovableHandle: ``id``
    counts up, ``remove()`` twice is harmless, ``with`` removes at the end of the block."""
    import inplace_lab.torch as T

    x = T.ones(2, requires_grad=True)
    handles = [x.register_hook(lambda g: g * 2), (x * 2).grad_fn.register_hook(lambda *a: None),
               T.nn.Linear(2, 2).register_forward_hook(lambda *a: None)]
    assert all(type(h) is T.utils.hooks.RemovableHandle for h in handles)
    assert [h.id for h in handles] == list(range(handles[0].id, handles[0].id + 3))
    (x * 1).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    handles[0].remove()
    handles[0].remove()
    x.grad = None
    with x.register_hook(lambda g: g * 3):
        (x * 1).sum().backward()
    (x * 1).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]  # 3 with the hook, then 1 without


def test_allow_mutation_on_saved_tensors_as_torch():
    """Inside the context a saved tensor about to be written (in place, out=, copy_, t_) is
    cloned first and backward reads the clone; PyTorch's aliasing key is (data_ptr, version),
    so a write through a view at another offset is not seen (``b[1] = 10``: silently the new
    value, as in torch); a backward outside the context and nesting are refused."""
    def prog(T):
        G = T.autograd.graph
        out = {}

        def run(name, mutate):
            with G.allow_mutation_on_saved_tensors():
                a = T.ones(2, 3, requires_grad=True)
                b = a * 2
                y = b.sin()
                mutate(b)
                y.sum().backward()
            out[name] = (a.grad, b._version)
        run("sin_", lambda b: b.sin_())
        run("copy_", lambda b: b.copy_(T.zeros(2, 3)))
        run("t_", lambda b: b.t_())
        run("out=", lambda b: T.add(b.detach(), 1, out=b.detach()))
        run("row 0", lambda b: b[0].mul_(5))
        run("setitem row 1", lambda b: b.__setitem__(1, 10.0))
        with G.allow_mutation_on_saved_tensors() as ctx:
            a = T.ones(3, requires_grad=True)
            b = a * 2
            y = b.exp()
            y.sum().backward(retain_graph=True)
            b.mul_(3)
            y.sum().backward()
            out["after a backward"] = (a.grad, type(ctx).__name__)
            y2 = (a * 2).sin()
        out["outside"] = attempt(lambda: y2.sum().backward())

        def nested():
            with G.allow_mutation_on_saved_tensors():
                with G.allow_mutation_on_saved_tensors():
                    pass
        out["nested"] = attempt(nested)
        return out
    compare_torch(prog)


def test_allow_mutation_clones_cost_memory_and_leave_no_hook():
    """The clone is a real allocation while the graph needs it; after the context the write
    hook is gone and a saved tensor's write breaks backward again."""
    import inplace_lab as il
    from inplace_lab.ops import dispatch

    with il.autograd.graph.allow_mutation_on_saved_tensors():
        a = il.ones(1000, requires_grad=True)
        b = a * 2
        y = b.sin()
        before = il.memory_allocated()
        b.mul_(3)
        assert il.memory_allocated() - before == 4000  # the clone of b
        y.sum().backward()
    assert not dispatch.WRITE_HOOKS
    b = a * 2
    y = b.sin()
    b.mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
