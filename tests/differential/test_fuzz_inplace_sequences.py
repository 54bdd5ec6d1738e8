"""Random op sequences on torch and inplace_lab: views, in-place ops, no_grad blocks, backward.

Hypothesis draws a list of abstract steps; ``make_program`` turns it into one program that
both frameworks run. Each step's error (if any) is recorded and the sequence carries on,
so a single example checks many things: values, gradients, versions, grad_fn names,
requires_grad flags and the type and text of every error along the way.

CI runs a fixed budget of 60 derandomized examples; set ``INPLACE_LAB_FUZZ_EXAMPLES=2000``
for a longer, random search.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential.harness import Raised, assert_same, probe, run

torch = pytest.importorskip("torch")

_BUDGET = os.environ.get("INPLACE_LAB_FUZZ_EXAMPLES")
EXAMPLES = int(_BUDGET) if _BUDGET else 60

# ---- steps ----------------------------------------------------------------------------------

VIEWS = ("slice", "select", "t", "transpose", "view_flat", "unsqueeze", "expand")
INPLACE = ("add_", "mul_", "sin_", "exp_", "zero_", "copy_", "setitem", "iadd", "mul_t")
OUT = ("mul", "exp", "sin", "sum", "clone")

pool_index = st.integers(0, 15)
view_step = st.tuples(st.just("view"), pool_index, st.sampled_from(VIEWS), st.integers(0, 3),
                      st.integers(0, 2))
inplace_step = st.tuples(st.just("inplace"), pool_index, st.sampled_from(INPLACE), pool_index,
                         st.sampled_from([0.5, 2.0, -1.0]))
out_step = st.tuples(st.just("out"), pool_index, st.sampled_from(OUT), pool_index)
flat_step = st.one_of(view_step, inplace_step, out_step)
no_grad_step = st.tuples(st.just("no_grad"), st.lists(flat_step, min_size=1, max_size=3))
steps = st.lists(st.one_of(flat_step, flat_step, no_grad_step), min_size=1, max_size=8)


def _view(t, kind, a, b):
    nd = t.dim()
    if kind in ("slice", "select", "transpose") and nd == 0:
        return t.unsqueeze(0)
    if kind == "slice":
        d = a % nd
        return t.narrow(d, 0, max(1, t.shape[d] - b)) if t.shape[d] else t[:]
    if kind == "select":
        d = a % nd
        return t.select(d, b % t.shape[d]) if t.shape[d] else t[:]
    if kind == "t":
        return t.t() if nd <= 2 else t.transpose(0, 1)
    if kind == "transpose":
        return t.transpose(a % nd, b % nd)
    if kind == "view_flat":
        return t.view(-1)
    if kind == "unsqueeze":
        return t.unsqueeze(a % (nd + 1))
    ones = [d for d in range(nd) if t.shape[d] == 1]
    if ones:
        shape = list(t.shape)
        shape[ones[0]] = 2
        return t.expand(*shape)
    return t.unsqueeze(0).expand(2, *t.shape)


def _inplace(T, t, kind, other, scalar):
    if kind == "add_":
        t.add_(scalar)
    elif kind == "mul_":
        t.mul_(scalar)
    elif kind == "mul_t":  # a 0-d tensor operand: autograd sees both sides
        t.mul_(other.sum())
    elif kind == "sin_":
        t.sin_()
    elif kind == "exp_":
        t.exp_()
    elif kind == "zero_":
        t.zero_()
    elif kind == "copy_":
        t.copy_(other if tuple(other.shape) == tuple(t.shape) else other.sum())
    elif kind == "iadd":
        t += scalar
    elif t.dim() == 0:
        t.fill_(scalar)
    else:
        t[0] = scalar


def _out(t, kind, other):
    if kind == "mul":
        return t * (other.sum() if other is not None else 2.0)
    if kind == "exp":
        return t.exp()
    if kind == "sin":
        return t.sin()
    if kind == "sum":
        return t.sum()
    return t.clone()


def make_program(plan):
    """One program for both frameworks: a pool of tensors that the steps grow and modify."""

    def prog(T):
        # float64 and small values: chains like exp_ exp_ sin_ stay comparable across libms
        x = T.tensor([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], dtype=T.float64, requires_grad=True)
        c = T.tensor([[0.5, -1.0, 0.25], [1.0, 0.75, -0.5]], dtype=T.float64)
        pool = [x, x * 1, c]
        log = []

        def do(step):
            kind = step[0]
            t = pool[step[1] % len(pool)]
            if kind == "view":
                r = probe(lambda: _view(t, *step[2:]))
                if not isinstance(r, Raised):
                    pool.append(r)
                return r if isinstance(r, Raised) else "ok"
            if kind == "inplace":
                other = pool[step[3] % len(pool)]
                return probe(lambda: _inplace(T, t, step[2], other, step[4]))
            other = pool[step[3] % len(pool)] if step[2] == "mul" else None
            r = probe(lambda: _out(t, step[2], other))
            if not isinstance(r, Raised):
                pool.append(r)
            return r if isinstance(r, Raised) else "ok"

        for step in plan:
            if step[0] == "no_grad":
                with T.no_grad():
                    log.append([do(s) for s in step[1]])
            else:
                log.append(do(step))

        def loss():
            parts = [(t * float(i + 1)).sum() for i, t in enumerate(pool) if t.requires_grad]
            if not parts:
                return "nothing requires grad"
            total = parts[0]
            for p in parts[1:]:
                total = total + p
            total.backward()
            return "ok"

        log.append(probe(loss))
        return {
            "log": log,
            "values": [t.detach() for t in pool],
            "versions": [t._version for t in pool],
            "flags": [[t.requires_grad, t._is_view()] for t in pool],
            "grad_fns": [probe(lambda t=t: t.grad_fn) for t in pool],
            "x.grad": x.grad,
        }

    return prog


@settings(max_examples=EXAMPLES, deadline=None, derandomize=_BUDGET is None,
          suppress_health_check=[HealthCheck.too_slow], database=None)
@given(plan=steps)
def test_random_inplace_sequences_match_torch(plan):
    import inplace_lab as il

    prog = make_program(plan)
    ref = run(prog, torch)
    with il.inplace_policy("pytorch"):
        got = run(prog, il)
    assert_same(ref, got, rtol=1e-4)
