"""The random course-style programs of ``program_builder``, with a wider vocabulary.

``program_builder.Builder`` writes the lesson core (views, the common elementwise ops,
in-place writes, backward). This builder keeps all of that and, about half the time, picks
from a wider set a course reaches for later: more unary math (domains included: ``log`` of a
negative number), activations from ``nn.functional`` (``inplace=True`` too), reductions with
dims and the ones returning (values, indices), sorting, indexing ops (gather, scatter,
index_fill_, masked_scatter_), dtype conversions, ternary ops (lerp, addcmul, addcdiv),
rounding division, and gradient hooks. Its seeds are a separate sweep
(``test_program_sweep_wide.py``), so the core sweep's programs stay as they were.
"""
from __future__ import annotations

from .program_builder import Builder
from .program_builder import build as _build

F = "T.nn.functional"


class WideBuilder(Builder):
    STEPS = ("create", "view", "view", "out_of_place", "out_of_place", "out_of_place",
             "inplace", "inplace", "inplace", "context_block", "backward")

    def out_of_place(self):
        a = self.pick()
        if a is None or self.rng.random() < 0.5:
            return super().out_of_place()
        r, t = self.rng, self.t(a)
        other = self._partner(t)
        nd = t.dim()
        ops = [f"{a}.log()", f"{a}.sqrt()", f"{a}.rsqrt()", f"{a}.reciprocal()", f"{a}.cos()",
               f"{a}.sign()", f"{a}.floor()", f"{a}.round()", f"{a}.trunc()", f"{a}.frac()",
               f"{a}.erf()", f"{a}.expm1()", f"{a}.log1p()", f"{a}.atan()", f"{a}.sinh()",
               f"{a}.neg()", f"{a} ** 0.5", f"2 ** {a}", f"{a} // 2", f"{a} % 2",
               f"{a}.clamp(min=0.1)", f"{a}.clamp(max=-0.1)", f"{a}.norm()", f"{a}.var()",
               f"{a}.std()", f"{a}.prod()", f"{a}.argmax()", f"{a}.nan_to_num()",
               f"{F}.gelu({a})", f"{F}.silu({a})", f"{F}.leaky_relu({a}, 0.1)",
               f"{F}.elu({a})", f"{F}.softplus({a})", f"{F}.hardtanh({a})",
               f"{F}.relu6({a})", f"{F}.logsigmoid({a})", f"{a}.double()", f"{a}.float()",
               f"{a}.to(T.float32)", f"{a}.int()", f"{a}.bool()", f"{a}.long()",
               f"{a}.detach().clone().requires_grad_()", f"{a}.type(T.float64)",
               f"T.zeros_like({a})", f"T.ones_like({a}, requires_grad=True)",
               f"{a}.new_zeros(2)", f"{a}.lerp(T.zeros_like({a}), 0.25)",
               f"{a}.masked_fill({a} < 0, float('nan'))", f"T.where({a} > 0, {a}, 0.0)"]
        if other:
            ops += [f"{a}.lerp({other}, 0.3)", f"T.addcmul({a}, {other}, {other}, value=0.5)",
                    f"T.addcdiv({a}, {other}, {other}.abs() + 1, value=0.5)",
                    f"{a}.clamp(min={other})", f"{a}.pow({other})", f"T.atan2({a}, {other})",
                    f"{a}.div({other}, rounding_mode='floor')",
                    f"{a}.div({other}, rounding_mode='trunc')", f"T.minimum({a}, {other})",
                    f"{a}.eq({other})", f"{a} > {other}", f"{a}.dist({other})"]
        if nd:
            d = r.randrange(nd)
            s = t.shape[d]
            ops += [f"{a}.logsumexp({d})", f"{a}.softmax({d})", f"{a}.log_softmax({d})",
                    f"{a}.prod({d})", f"{a}.amax({d})", f"{a}.amin({d}, keepdim=True)",
                    f"{a}.flip({d})", f"{a}.roll(1, {d})", f"{a}.cumprod({d})",
                    f"{a}.var({d})", f"{a}.std({d}, keepdim=True)", f"{a}.norm(dim={d})",
                    f"{a}.argmin({d})", f"{a}.repeat({', '.join(['2'] + ['1'] * (nd - 1))})",
                    f"{a}.tile((2,))", f"{a}.diff(dim={d})" if s > 1 else f"{a}.cumsum({d})",
                    f"{a}.masked_select({a} > 0)", f"{a}.unique()" if self.off(0.3) else
                    f"{a}.abs()",
                    f"{a}.gather({d}, T.zeros_like({a}, dtype=T.long))",
                    f"{a}.scatter({d}, T.zeros_like({a}, dtype=T.long), {a})",
                    f"{a}.index_fill({d}, T.tensor([0]), -1.0)",
                    f"{a}.narrow({d}, 0, 1).contiguous()"]
            multi = [f"{a}.max({d})", f"{a}.min({d})", f"{a}.sort({d})",
                     f"{a}.topk(1, {d})", f"{a}.cummax({d})",
                     f"{a}.sort({d}, descending=True)", f"{a}.kthvalue(1, {d})"]
            if 0 not in t.stride():  # (torch 2.13's median(dim) of an expanded tensor reads
                multi.append(f"{a}.median({d})")  # the wrong elements)
            if r.random() < 0.25:
                v, i = self.new(), self.new()
                return self.emit(f"{v}, {i} = {r.choice(multi)}")
        if nd == 2:
            ops += [f"{a}.tril()", f"{a}.triu(1)", f"{a}.trace()", f"{a}.T @ {a}",
                    f"T.einsum('ij->ji', {a})", f"{a}.diag()" if t.shape[0] == t.shape[1]
                    else f"{a}.t().contiguous()"]
        if nd == 1:
            ops += [f"T.outer({a}, {a})", f"{a}.dot({a})", f"{a}.diag()", f"{a} @ {a}"]
        self.emit(f"{self.new()} = {r.choice(ops)}")

    def inplace(self):
        a = self.pick(lambda t: not t.is_leaf) if self.rng.random() < 0.6 else None
        a = a or self.pick()
        if a is None or self.rng.random() < 0.5:
            return super().inplace()
        r, t = self.rng, self.t(a)
        other = self._partner(t)
        n = self.num()
        nd = t.dim()
        ops = [f"{a}.log_()", f"{a}.sqrt_()", f"{a}.reciprocal_()", f"{a}.clamp_max_({n})",
               f"{a}.clamp_min_({n})", f"{a}.floor_()", f"{a}.round_()", f"{a}.trunc_()",
               f"{a}.sign_()", f"{a}.erf_()", f"{a}.atan_()", f"{a}.square_()",
               f"{a}.cos_()", f"{a}.expm1_()", f"{a}.log1p_()", f"{a}.rsqrt_()",
               f"{a}.frac_()", f"{a}.nan_to_num_()", f"{a}.div_(2, rounding_mode='floor')",
               f"{a}.pow_(0.5)", f"{a}.lerp_(T.zeros_like({a}), 0.5)", f"{a} /= 2",
               f"{a} **= 2", f"{F}.relu({a}, inplace=True)",
               f"{F}.leaky_relu({a}, 0.2, inplace=True)", f"{F}.hardtanh_({a})",
               f"{F}.elu({a}, inplace=True)", f"{F}.relu6({a}, inplace=True)",
               f"{F}.silu({a}, inplace=True)", f"{F}.dropout({a}, 0.0, True, True)",
               f"{F}.threshold_({a}, 0.1, 20.0)", f"{a}.data.mul_(2)",
               f"{a}.detach().add_(1)", f"{a}.requires_grad_(False)",
               f"{a}.register_hook(lambda g: g * 2)", f"{a}.resize_({t.numel()})",
               f"{a}.copy_(T.ones({', '.join(map(str, t.shape))}, dtype=T.int64))",
               f"{a}.masked_fill_({a} < 0, float('inf'))"]
        if other:
            ops += [f"{a}.addcmul_({other}, {other}, value=0.5)",
                    f"{a}.addcdiv_({other}, {other}.abs() + 1)", f"{a}.lerp_({other}, 0.3)",
                    f"{a}.pow_({other})", f"{a}.div_({other}, rounding_mode='trunc')",
                    f"{a}.sub_({other}, alpha=0.5)", f"{a}.clamp_(min={other})",
                    f"{a}.copy_({other}.double())", f"{a}.set_({other})",
                    f"T.mul({a}, {other}, out={a})", f"{a}.masked_scatter_({other} > 0, {other})"]
        if nd:
            d = r.randrange(nd)
            idx = f"T.zeros_like({a}, dtype=T.long)"
            ops += [f"{a}.scatter_({d}, {idx}, {a}.detach())",
                    f"{a}.scatter_add_({d}, {idx}, T.ones_like({a}))",
                    f"{a}.scatter_({d}, {idx}, 2.0)",
                    f"{a}.index_fill_({d}, T.tensor([0]), {n})",
                    f"{a}.index_copy_({d}, T.tensor([0]), {a}.narrow({d}, 0, 1).detach())",
                    f"{a}.cumsum_({d})", f"{a}.put_(T.tensor([0]), T.tensor([9.0], dtype={a}.dtype))",
                    f"{a}.index_put_((T.tensor([0]),), T.tensor(5.0, dtype={a}.dtype))",
                    f"{a}.swapdims_(0, {d})", f"{a}[{a} > 0] *= 2"]
        if nd == 2:
            ops += [f"{a}.tril_()", f"{a}.triu_()", f"{a}.fill_diagonal_({n})"]
        self.emit(self._context(r.choice(ops)))


def build(seed: int, length: int | None = None) -> list[str]:
    """One wide-vocabulary program for ``seed`` (``program_builder.build``'s steps)."""
    return _build(seed, length, WideBuilder)
