"""Write one random Paddle-style lesson program (source lines over ``P``) from a seed.

The Paddle twin of ``program_builder``: leaves with ``stop_gradient=False`` and constants,
views (slices, ``reshape``, ``transpose(perm)``, ``unsqueeze``, ``split``/``unbind``),
out-of-place and in-place ops under Paddle's names (``scale_``, ``clip_``, ``F.relu_``,
``x[...] = v``, ``+=`` which rebinds in Paddle), ``no_grad`` blocks, ``backward`` (twice
with ``retain_graph``), ``paddle.grad``, ``clear_gradient``, ``stop_gradient`` flips, and
now and then a deliberately wrong argument or dtype so that errors are compared too. Each
line runs on real Paddle while it is written, so the next line can fit the tensors there.
"""
from __future__ import annotations

import warnings

import paddle

from . import program_builder
from .program_builder import _factor, _nest

SHAPES = [(3,), (4,), (2, 3), (3, 4), (1, 3), (2, 1), (2, 3, 2), (4, 2)]


class Builder(program_builder.Builder):
    """``program_builder.Builder``'s bookkeeping (names, picking, numbers) over Paddle."""

    tensor_type = paddle.Tensor

    def __init__(self, seed: int):
        super().__init__(seed)
        self.ns = {"P": paddle, "F": paddle.nn.functional}

    def emit(self, line: str) -> None:
        with warnings.catch_warnings():  # (Paddle's own deprecation chatter)
            warnings.simplefilter("ignore")
            super().emit(line)

    # -- lines ----------------------------------------------------------------------------------

    def create(self):
        r = self.rng
        shape = r.choice(SHAPES)
        n = 1
        for s in shape:
            n *= s
        vals = [round(r.uniform(-2, 2), 2) for _ in range(n)]
        dt = r.choice(["'float32'", "'float32'", "'float64'"])
        sg = "False" if r.random() < 0.6 else "True"
        how = r.random()
        if how < 0.65:
            expr = f"P.to_tensor({_nest(vals, shape)!r}, dtype={dt}, stop_gradient={sg})"
        elif how < 0.8:
            f = r.choice(["zeros", "ones"])
            expr = f"P.{f}({list(shape)}, dtype={dt})"
        elif how < 0.9:
            expr = f"P.arange({n}, dtype={dt}).reshape({list(shape)})"
        else:  # integer data: Paddle's dtype rules and checks
            expr = f"P.to_tensor({[int(v) for v in _nest(vals, (n,))]}).reshape({list(shape)})"
        name = self.new()
        self.emit(f"{name} = {expr}")
        if r.random() < 0.4 and "float" in expr:
            self.emit(f"{name}.stop_gradient = {r.choice(['False', 'True'])}")
        if r.random() < 0.5:
            self.emit(f"{self.new()} = {r.choice([f'{name} * 1', f'{name}.clone()', f'{name} + 0'])}")

    def view(self):
        a = self.pick()
        if a is None:
            return self.create()
        t, r = self.t(a), self.rng
        sh = list(t.shape)
        nd = len(sh)
        d = r.randrange(nd) if nd else 0
        opts = ["slice", "slice", "reshape", "unsqueeze", "flatten", "squeeze", "detach",
                "transpose", "expand"]
        if nd >= 2:
            opts += ["t"]
        if nd and sh[d] >= 2:
            opts += ["unbind", "split"]
        kind = r.choice(opts)
        if kind == "unbind":
            names = [self.new() for _ in range(sh[d])]
            return self.emit(f"{', '.join(names)}, = P.unbind({a}, axis={d})")
        if kind == "split":
            k = r.choice([s for s in (2, 3) if sh[d] % s == 0] or [sh[d]])
            names = [self.new() for _ in range(k)]
            return self.emit(f"{', '.join(names)}, = P.split({a}, {k}, axis={d})")
        if kind == "slice":
            expr = f"{a}[{_index(r, sh)}]"
        elif kind == "reshape":
            expr = f"{a}.reshape([{_factor(r, tuple(sh))}])"
        elif kind == "unsqueeze":
            expr = f"{a}.unsqueeze({r.randrange(-nd - 1, nd + 1)})"
        elif kind == "flatten":
            expr = f"{a}.flatten()"
        elif kind == "squeeze":
            expr = f"{a}.squeeze({d})" if nd and r.random() < 0.5 else f"{a}.squeeze()"
        elif kind == "detach":
            expr = f"{a}.detach()"
        elif kind == "transpose":
            p = list(range(nd))
            r.shuffle(p)
            expr = f"{a}.transpose({p})" if not self.off() else f"{a}.transpose([0])"
        elif kind == "expand":
            shape = [2] + sh if not self.off() else [3] * (nd or 1)
            expr = f"{a}.expand({shape})"
        else:
            expr = f"{a}.t()"
        self.emit(f"{self.new()} = {expr}")

    def out_of_place(self):
        a = self.pick()
        if a is None:
            return self.create()
        r, t = self.rng, self.t(a)
        other = self._partner(t)
        ops = [f"{a}.exp()", f"F.sigmoid({a})", f"F.relu({a})", f"{a}.sin()", f"{a}.tanh()",
               f"{a} * {self.num()}", f"{a} + {self.num()}", f"{self.num()} - {a}",
               f"P.clip({a}, -0.5, 0.5)", f"{a}.pow(2)", f"{a}.clone()", f"{a}.sum()",
               f"{a}.mean()", f"{a}.abs()", f"{a} / 2", f"{a}.square()", f"P.scale({a}, 2.0)",
               f"{a}.astype('float64')", f"{a}.cast('float32')", f"P.assign({a})",
               f"P.sqrt(P.abs({a}))", f"{a}.max()", f"P.cumsum({a})"]
        if other:
            ops += [f"{a} * {other}", f"{a} + {other}", f"{a} - {other}",
                    f"P.where({other} > 0, {a}, {other})", f"P.maximum({a}, {other})",
                    f"P.multiply({a}, {other})", f"P.add({a}, {other})",
                    f"P.divide({a}, {other} + 3.0)"]
        nd = len(t.shape)
        if nd:
            d = r.randrange(nd)
            ops += [f"{a}.sum(axis={d})", f"{a}.mean(axis={d}, keepdim=True)",
                    f"P.concat([{a}, {a}], axis={d})", f"P.stack([{a}, {a}])",
                    f"P.index_select({a}, P.to_tensor([0]), axis={d})",
                    f"P.cumsum({a}, axis={d})", f"{a}.max(axis={d})", f"P.flip({a}, [{d}])",
                    f"P.masked_select({a}, {a} > 0)", f"F.softmax({a}, axis={d})"]
        if nd == 2:
            ops += [f"P.matmul({a}, {a}.t())", f"P.matmul({a}, {a}, transpose_y=True)",
                    f"{a} @ {a}.t()"]
        self.emit(f"{self.new()} = {r.choice(ops)}")

    def _partner(self, t):
        def fits(u):
            try:
                return list(paddle.broadcast_shape(list(u.shape), list(t.shape))) == \
                    list(t.shape)
            except Exception:  # noqa: BLE001
                return False
        if self.off(0.05):
            return self.pick()
        return self.pick(fits)

    def inplace(self):
        a = self.pick(lambda t: not t.is_leaf) if self.rng.random() < 0.6 else None
        a = a or self.pick()
        if a is None:
            return self.create()
        r, t = self.rng, self.t(a)
        other = self._partner(t)
        n = self.num()
        ops = [f"{a}.add_(P.to_tensor({n}))", f"{a}.scale_({n})", f"{a}.clip_(-0.5, 0.5)",
               f"F.relu_({a})", f"{a}.exp_()", f"{a}.tanh_()", f"{a}.sin_()",
               f"{a}.zero_()", f"{a}.fill_({n})", f"{a} += {n}", f"{a} *= {n}",
               f"{a}.sqrt_()", f"{a}.pow_(2)", f"{a}.neg_()", f"{a}.sigmoid_()",
               f"{a}.stop_gradient = {r.choice(['True', 'False'])}", f"{a}.detach_()",
               f"{a}.unsqueeze_(0)", f"{a}.flatten_()", f"{a}.abs_()"]
        if other:
            ops += [f"{a}.add_({other})", f"{a}.multiply_({other})", f"{a}.subtract_({other})",
                    f"{a} += {other}", f"{a}.copy_({other}, False)",
                    f"P.assign({other}, {a})"]
        sh = list(t.shape)
        if sh:
            ops += [f"{a}[{_index(r, sh)}] = {n}", f"{a}[0] = {n}", f"{a}[{a} > 0] = {n}"]
            if other is not None:
                ops += [f"{a}[:] = {other}"]
        if len(sh) == 2:
            ops += [f"{a}.t_()", f"{a}.transpose_([1, 0])"]
        if not t.stop_gradient and t.is_leaf:
            ops += [f"{a}.clear_gradient()", f"{a}.clear_gradient(False)"]
        stmt = r.choice(ops)
        if r.random() < 0.15:
            stmt = f"with P.no_grad(): {stmt}"
        self.emit(stmt)

    def context_block(self):
        a = self.pick()
        if a is None:
            return self.create()
        r, t = self.rng, self.t(a)
        name = self.new()
        made = r.choice([f"{a}[0]" if len(t.shape) else f"{a}.reshape([1])",
                         f"{a}.reshape([-1])", f"{a} * 2", f"{a}.detach()"])
        after = r.choice(["", f"; {name}.add_(P.to_tensor(1.0, dtype={a}.dtype))",
                          f"; {name}.scale_(2)"])
        self.emit(f"with P.no_grad(): {name} = {made}{after}")

    def backward(self):
        r = self.rng
        a = self.pick(lambda t: not t.stop_gradient)
        if a is None:
            return self.inplace()
        loss = self.new()
        red = r.choice([".sum()", ".sum()", ".mean()", ".pow(2).sum()", ".exp().sum()"])
        self.emit(f"{loss} = {a}{red}")
        leaves = self.tensors(lambda u: u.is_leaf and not u.stop_gradient)
        how = r.random()
        if how < 0.45:
            self.emit(f"{loss}.backward()")
        elif how < 0.65:
            self.emit(f"{loss}.backward(retain_graph=True)")
            if r.random() < 0.5:
                self.inplace()
            self.emit(f"{loss}.backward()")
        elif how < 0.85 and leaves:
            chosen = r.sample(leaves, min(len(leaves), r.randrange(1, 3)))
            g = f"g{self.g}"
            self.g += 1
            kw = r.choice(["", ", retain_graph=True", ", allow_unused=True"])
            self.emit(f"{g} = P.grad([{loss}], [{', '.join(chosen)}]{kw})")
        else:
            self.emit(f"{a}.backward()")  # (non-scalar: Paddle seeds ones)


def _index(r, shape) -> str:
    """A basic index (ints, slices with steps, None, ...), in bounds mostly."""
    parts = []
    for s in shape[: r.randrange(1, len(shape) + 1)]:
        k = r.random()
        if k < 0.3:
            parts.append(str(r.randrange(-s, s) if r.random() > 0.05 else s))
        elif k < 0.85:
            start = r.choice(["", str(r.randrange(s))])
            stop = r.choice(["", str(r.randrange(1, s + 1)), "-1"])
            step = r.choice(["", ":2", ":1"])
            parts.append(f"{start}:{stop}{step}")
        elif k < 0.92:
            parts.append("None")
        else:
            parts.append(":")
    if r.random() < 0.1:
        parts.insert(r.randrange(len(parts) + 1), "...")
    return ", ".join(parts) if parts else ":"


def build(seed: int, length: int | None = None) -> list[str]:
    """One program for ``seed``: a few tensors, then a mix of steps, then often a backward."""
    b = Builder(seed)
    r = b.rng
    for _ in range(r.randrange(1, 3)):
        b.create()
    steps = [b.create, b.view, b.view, b.out_of_place, b.out_of_place, b.out_of_place,
             b.inplace, b.inplace, b.inplace, b.context_block, b.backward]
    for _ in range(length or r.randrange(4, 14)):
        try:
            r.choice(steps)()
        except Exception:  # noqa: BLE001 - a step that does not fit the tensors there
            pass
    if r.random() < 0.7:
        try:
            b.backward()
        except Exception:  # noqa: BLE001
            pass
    return b.lines
