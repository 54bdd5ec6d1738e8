"""Write one random course-style program (a list of source lines over ``T``) from a seed.

The builder runs every line it writes on real torch, so the next line can look at the
tensors that exist (their shapes, which are leaves, which require grad) and pick arguments
that fit; about one choice in ten is deliberately off (a wrong shape, an index out of range,
``view`` of a non-contiguous tensor) so that error types and texts are compared too.
Tensors are named ``t0, t1, ...`` (results of ``autograd.grad`` ``g0, g1, ...``); values
are short decimal literals, so a failing program reads as a plain script.
"""
from __future__ import annotations

import random

import torch

SHAPES = [(3,), (4,), (2, 3), (3, 4), (1, 3), (2, 1), (2, 3, 2), (4, 2), ()]


class Builder:
    STEPS = ("create", "view", "view", "view", "out_of_place", "out_of_place", "inplace",
             "inplace", "inplace", "context_block", "backward")

    tensor_type = torch.Tensor  # (what ``tensors`` lists; the Paddle builder's is paddle.Tensor)
    AS_STRIDED = 0.05  # how often a view is as_strided (it reads whatever the storage holds)

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.ns = {"T": torch}
        self.lines: list[str] = []
        self.n = 0
        self.g = 0

    # -- bookkeeping ----------------------------------------------------------------------

    def emit(self, line: str) -> None:
        self.lines.append(line)
        try:
            exec(line, self.ns)  # noqa: S102
        except Exception:  # noqa: BLE001 - errors are part of the program
            pass

    def new(self) -> str:
        self.n += 1
        return f"t{self.n - 1}"

    def tensors(self, pred=lambda t: True):
        return [k for k, v in self.ns.items() if k[:1] == "t" and k[1:].isdigit()
                and isinstance(v, self.tensor_type) and _ok(pred, v)]

    def pick(self, pred=lambda t: True):
        names = self.tensors(pred)
        return self.rng.choice(names) if names else None

    def t(self, name):
        return self.ns[name]

    def num(self) -> str:
        return repr(self.rng.choice([0.5, 2.0, -1.0, 1.5, 0.0, -0.25, 3.0]))

    def off(self, p=0.1) -> bool:
        return self.rng.random() < p

    # -- lines --------------------------------------------------------------------------------

    def create(self):
        r = self.rng
        shape = r.choice(SHAPES)
        n = 1
        for s in shape:
            n *= s
        vals = [round(r.uniform(-2, 2), 2) for _ in range(n)]
        data = repr(_nest(vals, shape))
        dt = r.choice(["T.float64", "T.float64", "T.float32"])
        rg = r.random() < 0.6
        how = r.random()
        if how < 0.7:
            expr = f"T.tensor({data}, dtype={dt}{', requires_grad=True' if rg else ''})"
        elif how < 0.85:
            f = r.choice(["zeros", "ones"])
            expr = f"T.{f}({', '.join(map(str, shape))}, dtype={dt}" \
                   f"{', requires_grad=True' if rg else ''})"
        else:
            expr = f"T.arange({float(n)}, dtype={dt}).reshape({list(shape)})"
            if rg:
                expr += ".requires_grad_()"
        name = self.new()
        self.emit(f"{name} = {expr}")
        if rg and r.random() < 0.6:
            self.emit(f"{self.new()} = {r.choice([f'{name} * 1', f'{name}.clone()', f'{name} + 0'])}")

    def view(self):
        a = self.pick()
        if a is None:
            return self.create()
        t, r = self.t(a), self.rng
        nd, sh = t.dim(), tuple(t.shape)
        d = r.randrange(nd) if nd else 0
        opts = ["slice", "slice", "transpose", "view", "reshape", "unsqueeze", "expand",
                "narrow", "select", "flatten", "squeeze", "detach", "data"]
        if nd:  # (not ``x.permute()``: a known difference, see program_sweep.KNOWN)
            opts.append("permute")
        if nd >= 2:
            opts += ["diagonal", "t", "mT"]
        if nd and sh[d] >= 2:
            opts += ["unbind", "split", "chunk"]
        if nd == 1:
            opts += ["t"]
        if r.random() < self.AS_STRIDED:
            opts = ["as_strided"]
        kind = r.choice(opts)
        if kind in ("unbind", "split", "chunk"):
            return self._multi(a, kind, d)
        name = self.new()
        if kind == "slice":
            expr = f"{a}[{_index(r, sh)}]"
        elif kind == "transpose":
            expr = f"{a}.transpose({r.randrange(-nd, nd) if nd else 0}, {r.randrange(nd) if nd else 0})"
        elif kind == "view":
            expr = f"{a}.view({r.choice(['-1', _factor(r, sh)])})"
        elif kind == "reshape":
            expr = f"{a}.reshape({_factor(r, sh)})"
        elif kind == "unsqueeze":
            expr = f"{a}.unsqueeze({r.randrange(-nd - 1, nd + 1)})"
        elif kind == "expand":
            expr = f"{a}.expand({', '.join(map(str, _expanded(r, sh)))})"
        elif kind == "narrow":
            s = sh[d] if nd else 1
            st = r.randrange(s) if not self.off() else s + 1
            expr = f"{a}.narrow({d}, {st}, {max(1, r.randrange(1, s + 1) - st) if s > st else 1})"
        elif kind == "select":
            s = sh[d] if nd else 1
            expr = f"{a}.select({d}, {r.randrange(-s, s) if not self.off() else s})"
        elif kind == "permute":
            p = list(range(nd))
            r.shuffle(p)
            expr = f"{a}.permute({', '.join(map(str, p))})" if nd else f"{a}.permute()"
        elif kind == "flatten":
            expr = f"{a}.flatten()"
        elif kind == "squeeze":
            expr = f"{a}.squeeze({d})" if nd and r.random() < 0.5 else f"{a}.squeeze()"
        elif kind == "detach":
            expr = f"{a}.detach()"
        elif kind == "data":
            expr = f"{a}.data"
        elif kind == "diagonal":
            expr = f"{a}.diagonal({r.choice([0, 0, 1, -1])}, {nd - 2}, {nd - 1})"
        elif kind == "t":
            expr = f"{a}.t()"
        elif kind == "mT":
            expr = f"{a}.mT"
        else:
            size = r.choice([(2,), (2, 2), (3,)])
            stride = tuple(r.choice([1, 2, 0]) for _ in size)
            expr = f"{a}.as_strided({size}, {stride}, {r.randrange(0, 2)})"
        self.emit(f"{name} = {expr}")

    def _multi(self, a, kind, d):
        r, s = self.rng, self.t(a).shape[d]
        if kind == "unbind":
            k, call = s, f"{a}.unbind({d})"
        elif kind == "split":
            size = r.randrange(1, s)
            k, call = -(-s // size), f"{a}.split({size}, {d})"
        else:
            c = r.randrange(2, s + 1)
            size = -(-s // c)
            k, call = -(-s // size), f"{a}.chunk({c}, {d})"
        names = [self.new() for _ in range(k)]
        self.emit(f"{', '.join(names)}, = {call}")

    def out_of_place(self):
        a = self.pick()
        if a is None:
            return self.create()
        r, t = self.rng, self.t(a)
        other = self._partner(t)
        ops = [f"{a}.exp()", f"{a}.sigmoid()", f"{a}.relu()", f"{a}.sin()", f"{a}.tanh()",
               f"{a} * {self.num()}", f"{a} + {self.num()}", f"{self.num()} - {a}",
               f"{a}.clamp({-0.5}, {0.5})", f"{a}.pow(2)", f"{a}.clone()", f"{a}.sum()",
               f"{a}.mean()", f"{a}.contiguous()", f"{a}.abs()", f"{a} / 2",
               f"{a}.masked_fill({a} > 0, {self.num()})", f"{a}.square()"]
        if other:
            ops += [f"{a} * {other}", f"{a} + {other}", f"{a} - {other}",
                    f"T.where({other} > 0, {a}, {other})", f"T.maximum({a}, {other})"]
        if t.dim():
            d = r.randrange(t.dim())
            ops += [f"{a}.sum({d})", f"{a}.mean({d}, keepdim=True)", f"{a}[{a} > 0]",
                    f"{a}[[0, -1]]", f"{a}.max()", f"T.cat([{a}, {a}], {d})",
                    f"T.stack([{a}, {a}])", f"{a}.index_select({d}, T.tensor([0]))",
                    f"{a}.cumsum({d})"]
        if t.dim() == 2:
            ops += [f"{a} @ {a}.t()", f"{a}.mm({a}.t())"]
        self.emit(f"{self.new()} = {r.choice(ops)}")

    def _partner(self, t):
        """A tensor whose shape broadcasts with ``t``'s (exactly, or sometimes not at all)."""
        def fits(u):
            try:
                return tuple(torch.broadcast_shapes(u.shape, t.shape)) == tuple(t.shape)
            except RuntimeError:
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
        ops = [f"{a}.add_({n})", f"{a}.mul_({n})", f"{a}.sub_({n})", f"{a}.div_(2)",
               f"{a}.clamp_(-0.5, 0.5)", f"{a}.clamp_(min=0)", f"{a}.relu_()",
               f"T.relu_({a})", f"{a}.sigmoid_()", f"{a}.exp_()", f"{a}.tanh_()",
               f"{a}.sin_()", f"{a}.neg_()", f"{a}.pow_(2)", f"{a}.zero_()",
               f"{a}.fill_({n})", f"{a} += {n}", f"{a} *= {n}", f"{a} -= {n}",
               f"{a}.masked_fill_({a} > 0, {n})", f"{a}.detach_()", f"{a}.requires_grad_()",
               f"{a}.abs_()", f"{a}.fill_(T.tensor({n}))"]
        if other:
            ops += [f"{a}.add_({other})", f"{a}.mul_({other})", f"{a}.copy_({other})",
                    f"{a} += {other}", f"{a} *= {other}", f"{a}.add_({other}, alpha=2)",
                    f"{a}.masked_fill_({other} > 0, {n})", f"T.add({a}, 1, out={other})",
                    f"T.mul({other}, 2, out={a})"]
        if t.dim():
            sh = tuple(t.shape)
            ops += [f"{a}[{_index(r, sh)}] = {n}", f"{a}[{a} > 0] = {n}",
                    f"{a}[..., 0] = {n}", f"{a}[{r.randrange(sh[0])}] = {n}",
                    f"{a}[0] += 1", f"{a}[:] = {other if other else n}",
                    self._index_add(a, t)]
        if t.dim() == 2:
            ops += [f"{a}.t_()", f"{a}.transpose_(0, 1)"]
        ops += [f"{a}.unsqueeze_(0)", f"{a}.squeeze_()"] if self.off(0.3) else []
        if t.is_leaf and t.requires_grad:
            ops += [f"{a}.grad = None", f"{a}.grad.zero_()" if t.grad is not None else
                    f"{a}.retain_grad()"]
        elif t.requires_grad:
            ops += [f"{a}.retain_grad()"]
        self.emit(self._context(r.choice(ops)))

    def _index_add(self, a, t):
        r = self.rng
        d = r.randrange(t.dim())
        k = r.randrange(1, t.shape[d] + 1)
        idx = [r.randrange(t.shape[d]) for _ in range(k)]
        src = list(t.shape)
        src[d] = k
        dt = str(t.dtype).replace("torch.", "T.")
        return (f"{a}.index_add_({d}, T.tensor({idx}), T.ones({', '.join(map(str, src))}, "
                f"dtype={dt}), alpha={self.num()})")

    def _context(self, stmt: str) -> str:
        p = self.rng.random()
        if p < 0.15:
            return f"with T.no_grad(): {stmt}"
        if p < 0.2:
            return f"with T.inference_mode(): {stmt}"
        return stmt

    def context_block(self):
        """A view or op made under no_grad / inference_mode, used (sometimes) inside too."""
        a = self.pick()
        if a is None:
            return self.create()
        r, t = self.rng, self.t(a)
        ctx = r.choice(["T.no_grad()", "T.no_grad()", "T.inference_mode()"])
        name = self.new()
        made = r.choice([f"{a}[0]" if t.dim() else f"{a}.view(1)", f"{a}.view(-1)",
                         f"{a} * 2", f"{a}.detach()", f"{a}.t()" if t.dim() <= 2 else f"{a}[:]"])
        after = r.choice(["", f"; {name}.add_(1)", f"; {name}.mul_(2)"])
        self.emit(f"with {ctx}: {name} = {made}{after}")

    def backward(self):
        r = self.rng
        a = self.pick(lambda t: t.requires_grad)
        if a is None:
            return self.inplace()
        t = self.t(a)
        red = r.choice([".sum()", ".sum()", ".mean()", ".pow(2).sum()", ".exp().sum()"])
        loss = self.new()
        self.emit(f"{loss} = {a}{red}")
        leaves = self.tensors(lambda u: u.is_leaf and u.requires_grad)
        how = r.random()
        if how < 0.45:
            self.emit(f"{loss}.backward()")
        elif how < 0.65:
            self.emit(f"{loss}.backward(retain_graph=True)")
            if r.random() < 0.5:
                self.inplace()
            self.emit(f"{loss}.backward()")
        elif how < 0.9 and leaves:
            chosen = r.sample(leaves, min(len(leaves), r.randrange(1, 3)))
            g = f"g{self.g}"
            self.g += 1
            kw = r.choice(["", ", retain_graph=True", ", allow_unused=True"])
            self.emit(f"{g} = T.autograd.grad({loss}, [{', '.join(chosen)}]{kw})")
        elif t.dim() and not self.off(0.3):
            self.emit(f"{a}.backward(T.ones_like({a}))")
        else:
            self.emit(f"{a}.backward()")


def _ok(pred, v) -> bool:
    try:
        return bool(pred(v))
    except Exception:  # noqa: BLE001
        return False


def _nest(vals, shape):
    if not shape:
        return vals[0]
    step = len(vals) // shape[0]
    return [_nest(vals[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _index(r, shape) -> str:
    """A basic index: ints, slices with steps, ``...``, ``None``; within bounds mostly."""
    if not shape:
        return r.choice(["...", "None", "()"])
    parts = []
    for s in shape[: r.randrange(1, len(shape) + 1)]:
        k = r.random()
        if k < 0.3:
            parts.append(str(r.randrange(-s, s) if r.random() > 0.05 else s))
        elif k < 0.8:
            start = r.choice(["", str(r.randrange(s))])
            stop = r.choice(["", str(r.randrange(1, s + 1)), "-1"])
            step = r.choice(["", ":2", ":1", ":3"])
            parts.append(f"{start}:{stop}{step}")
        elif k < 0.9:
            parts.append("None")
        else:
            parts.append(":")
    if r.random() < 0.15:
        parts.insert(r.randrange(len(parts) + 1), "...")
    return ", ".join(parts) if parts else ":"


def _factor(r, shape) -> str:
    n = 1
    for s in shape:
        n *= s
    cands = [f"{d}, {n // d}" for d in range(1, n + 1) if n % d == 0] + [f"{n}", "-1, 1"]
    if r.random() < 0.08:
        cands = [f"{n + 1}"]
    return r.choice(cands)


def _expanded(r, shape):
    ones = [i for i, s in enumerate(shape) if s == 1]
    out = list(shape)
    if ones and r.random() < 0.7:
        out[r.choice(ones)] = 3
        return out
    if r.random() < 0.1 and shape:
        out[0] = out[0] + 1  # not expandable
        return out
    return [2] + out


def build(seed: int, length: int | None = None, builder=None) -> list[str]:
    """One program for ``seed``: a few tensors, then a mix of steps (``builder.STEPS``, drawn
    evenly: a name twice is twice as likely), then often a backward."""
    b = (builder or Builder)(seed)
    r = b.rng
    for _ in range(r.randrange(1, 3)):
        b.create()
    steps = [getattr(b, name) for name in b.STEPS]
    for _ in range(length or r.randrange(4, 14)):
        _step(r.choice(steps))
    if r.random() < 0.7:
        _step(b.backward)
    return b.lines


def _step(write) -> None:
    """Write one step; a step whose choices do not fit the tensors it found (a 0-d or
    empty tensor where it wanted a dimension) is skipped, leaving the program as it was."""
    try:
        write()
    except Exception:  # noqa: BLE001 - torch can refuse even a look (is_leaf of a dead view)
        pass
