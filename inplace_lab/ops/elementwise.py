"""Elementwise ops with two or more operands: arithmetic, comparisons, logic, bitwise, clamps.

Each entry is a forward kernel (a numpy/cupy ufunc writing into ``out`` when
given, so an in-place form allocates nothing of the target's size) and a backward
formula written with tensor ops (so ``create_graph=True`` differentiates it again).
``saves`` says what the formula reads; SEMANTICS.md section 5 is the reference.

Overloads: PyTorch names a node after the overload that ran, so ``x**2`` is
``PowBackward0``, ``x**y`` ``PowBackward1`` and ``2**x`` ``PowBackward2``. Such an
op keeps one table entry; ``select`` picks an unregistered variant (``overload``)
that differs only in its node name, what it saves and its backward.

Unary math lives in ``unary.py``, activations in ``activation.py``.
"""
from __future__ import annotations

import dataclasses
import math

from .. import backend, cuda_kernels, dtypes, layout
from ..autograd import grad_mode
from ..backend import special_for
from . import blas
from .dispatch import result_dtype
from .table import OPS, OpSpec, register

LN2 = math.log(2.0)


# ---- helpers shared with unary.py and activation.py --------------------------------------------

def masked_grad(g, mask):
    """``g`` where ``mask``, 0 elsewhere: PyTorch's masked backwards (threshold_backward,
    clamp's, where's) select rather than multiply, so a NaN or a -0.0 in ``g`` outside the
    mask does not leak into the gradient."""
    return g.where(mask, 0.0)


def zeros_grad(g):
    """PyTorch's ``zeros_like(grad)``: a gradient that is 0 whatever arrived (NaN included),
    laid out as ``grad`` (so a leaf's .grad can take it as it is)."""
    from ..creation import zeros_like

    return zeros_like(g)


def red(ctx, i, g):
    """Reduce a broadcast gradient back to argument ``i``'s shape (None if it needs no grad)."""
    meta = ctx.input_meta[i]
    if meta is None or not ctx.needs_input_grad[i]:
        return None
    shape, dt, _ = meta
    if g._shape != shape:
        g = g.sum_to_size(shape)
    if g._dtype is not dt and (dt.is_floating_point or dt.is_complex):
        g = g.to(dt)
    return g


def ufunc(f, a, out, dt):
    """``f(*a, out=out, dtype=dt)``, the ufunc call of every elementwise kernel.

    When every operand is already an array of the result dtype and there is no ``out``,
    the plain call ``f(*a)`` picks the very same loop and skips numpy's type resolution
    for an explicit dtype (about half the cost of a small op's kernel call).
    """
    npd = dt.np
    if f.__class__ is _CUPY_UFUNC:  # add, sub, mul, div of plain float arrays: 16-byte loads
        r = cuda_kernels.binary(f, a, out, npd)
        if r is not None:
            return r
    if out is None:
        if f.__class__ is not _NP_UFUNC:  # cupy's: a new result is C-ordered whatever a's layout
            out = gpu_out(a, npd) if getattr(f, "nout", 1) == 1 else None
            if out is None:
                return f(*a, dtype=npd, casting="unsafe")
            return f(*a, out=out, dtype=npd, casting="unsafe")
        for x in a:
            if getattr(x, "dtype", None) is not npd:
                # A Python float or int next to float32/float64 arrays is converted to that
                # dtype by numpy itself (NEP 50: Python numbers are "weak"), the same loop.
                c = x.__class__
                if (c is float or c is int) and npd in _WEAK_OK:
                    continue
                break
        else:
            r = f(*a)
            if r.dtype is npd:
                return r
        return f(*a, dtype=npd, casting="unsafe")
    return f(*a, out=out, dtype=npd, casting="unsafe")


_WEAK_OK = (dtypes.float32.np, dtypes.float64.np)  # (not float16: a big number overflows there)
_NP_UFUNC = backend.np.ufunc
_CUPY_UFUNC = backend.cupy_ufunc_class()  # (None without a GPU: the test above never holds)


def gpu_out(a, npd):
    """The result buffer of a GPU ufunc whose operands are not all C-contiguous, laid out as
    TensorIterator lays it out (numpy follows its inputs much the same way; cupy allocates C
    order), so a GPU gives the CPU's strides (x.t() * 2, a gradient through a permute).
    None when a plain C-ordered result is that layout."""
    arrs = [x for x in a if hasattr(x, "strides")]
    if all(x.flags.c_contiguous or x.ndim < 2 for x in arrs):
        return None
    shape = backend.np.broadcast_shapes(*(x.shape for x in arrs))
    if len(shape) < 2 or 0 in shape:
        return None
    operands = [(x.shape, tuple(s // x.itemsize for s in x.strides)) if hasattr(x, "strides")
                else ((), ()) for x in a]
    strides = layout.iterator_strides(shape, operands)
    if strides == layout.contiguous_strides(shape):
        return None
    it = backend.np.dtype(npd).itemsize
    xp = backend.array_module(arrs[0])
    return backend.as_strided(xp.empty(layout.numel(shape), npd), shape,
                              tuple(s * it for s in strides), 0)


def uf(fname):
    """Forward from a ufunc name: ``xp.<fname>(*args, out=out, dtype=dt)`` (no temporaries)."""

    def fwd(xp, *a, out=None, dt=None):
        return ufunc(getattr(xp, fname), a, out, dt)

    fwd.__name__ = fname
    fwd.ufunc = fname  # (OpSpec.ufunc: the fast lane may call it directly)
    return fwd


def assign(xp, out, r):
    """Store a computed result: returned as is, or copied into ``out`` (kernels without out=)."""
    if out is None:
        return r
    out[...] = r
    return out


def scratch(r):
    """``r`` as the ``out=`` of the next ufunc that works on it in place, or None where it
    cannot be written into: numpy gives a 0-dim operation's result as a scalar."""
    return r if r.__class__ is not r.dtype.type else None


def flags(torch: bool, paddle: bool) -> dict:
    """In-place flags: a ``name_`` form exists here when PyTorch 2.13 or Paddle 3.3.1 has one."""
    return {"inplace": torch or paddle, "torch_inplace": torch, "paddle_inplace": paddle}


def overload(spec: OpSpec, node_name: str, **changes) -> OpSpec:
    """An unregistered variant of ``spec`` (same op, another PyTorch overload)."""
    return dataclasses.replace(spec, node_name=node_name, select=None, **changes)


def arg(args, kwargs, i, name, default=None):
    """Argument ``i`` (or keyword ``name``) of a raw call, for ``select``."""
    return args[i] if len(args) > i else kwargs.get(name, default)


def is_tensor(x) -> bool:
    return hasattr(x, "_vc")


def promote(ins):
    return result_dtype(_PROMOTE, ins, None)


def not_implemented_for(kernel, kinds):
    """A dtype rule that refuses some categories, as PyTorch's CPU kernels do."""
    from ..dtypes import BOOL, COMPLEX, FLOAT, INT

    cats = {"bool": BOOL, "int": INT, "float": FLOAT, "complex": COMPLEX}
    bad = {cats[k] for k in kinds}

    def rule(spec, ins, params):
        dt = promote(ins)
        if dt.category in bad:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.torch_name}\'')
        return dt

    return rule


def under_torch(ins) -> bool:
    """Whether the call runs under PyTorch's rules (its tensors are no Paddle facade's)."""
    from .. import policy

    t = next((x for x in ins if is_tensor(x)), None)
    return t is None or not policy.is_paddle(policy.policy_of(t))


def refuse_complex(rule, message, exc=NotImplementedError):
    """``rule`` (a rule function, or "promote", "float", "self"), refusing complex operands
    first as PyTorch does: ``message`` in its words, or, for a bare kernel name, ATen's
    '"kernel" not implemented for 'ComplexFloat''. ``{name}`` in it is the op's name."""
    def rule_of(spec, ins, params):
        if callable(rule):
            return rule(spec, ins, params)
        if rule == "self":
            return ins[0]._dtype
        return (float_rule if rule == "float" else lambda s, i, p: promote(i))(spec, ins, params)

    def wrapped(spec, ins, params):
        for x in ins:  # (the usual case, no complex operand, at the cost of a loop)
            d = getattr(x, "_dtype", None)
            if x.__class__ is complex or (d is not None and d.category == dtypes.COMPLEX):
                break
        else:
            return rule_of(spec, ins, params)
        src = promote([x for x in ins if x is not None]) if rule != "self" else ins[0]._dtype
        if src.category == dtypes.COMPLEX and under_torch(ins):
            text = message.format(name=spec.name)
            if " " not in text:
                text = f'"{text}" not implemented for \'{src.torch_name}\''
            raise exc(text)
        return rule_of(spec, ins, params)

    if callable(rule):  # (what the rule is called by: paddle/inplace.py asks for bool_rule's)
        wrapped.__name__ = rule.__name__
    base_plain = (lambda dt: dtypes.bool_) if rule is bool_rule else \
        getattr(rule, "plain_dtype", None) if callable(rule) else {
        "self": lambda dt: dt, "promote": lambda dt: dt}.get(rule, float_rule.plain_dtype)
    if base_plain is not None or not callable(rule):
        wrapped.plain_dtype = lambda dt: None if dt.category == dtypes.COMPLEX else base_plain(dt)
    return wrapped


def float_rule(spec, ins, params):
    dt = result_dtype(_PROMOTE, ins, None)
    return dtypes.get_default_dtype() if dt.category < dtypes.FLOAT else dt


# What a rule answers when the tensors share one dtype ``dt`` and the numbers cannot lift it
# (the dispatcher's fast lane asks this instead of calling the rule; None: call the rule).
float_rule.plain_dtype = lambda dt: dt if dt.category >= dtypes.FLOAT else dtypes.get_default_dtype()


def bool_rule(spec, ins, params):
    return dtypes.bool_


_PROMOTE = OpSpec(name="_promote", forward=None)


def binary(name, fwd, backward=None, saves=(), dtype_rule="promote", t=True, p=False, **kw):
    kw.setdefault("out_direct", not callable(fwd))  # ufunc kernels write any out= directly
    return register(OpSpec(name=name, forward=fwd if callable(fwd) else uf(fwd), backward=backward,
                           args=("self", "other"), saves=saves, dtype_rule=dtype_rule,
                           **flags(t, p), **kw))


# ---- add, sub, rsub, mul, div -------------------------------------------------------------------

def _scaled(xp, b, alpha):
    return b if alpha == 1 else xp.multiply(b, alpha)


def _check_alpha(alpha, dt):
    """PyTorch's alpha_check (in the kernel, so after the autograd checks, before any write)."""
    if isinstance(alpha, bool):
        if dt.category != dtypes.BOOL:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and dt.category < dtypes.FLOAT:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def _add_fwd(xp, a, b, out=None, dt=None, alpha=1):
    if alpha.__class__ is not int:
        _check_alpha(alpha, dt)
    if alpha != 1:
        r = blas.axpy(xp, a, b, alpha, out, dt.np)  # PyTorch's fused multiply-add, when exact
        if r is not None:
            return r
        if getattr(b, "size", 0) >= _AXPY_CHUNK:
            return _axpy(xp, a, b, alpha, out, dt)
    return ufunc(xp.add, (a, _scaled(xp, b, alpha)), out, dt)


def _sub_fwd(xp, a, b, out=None, dt=None, alpha=1):
    if alpha.__class__ is not int:
        _check_alpha(alpha, dt)
    if alpha != 1:
        r = blas.axpy(xp, a, b, -alpha, out, dt.np)  # (a - k*b is a + (-k)*b: negation is exact)
        if r is not None:
            return r
        if getattr(b, "size", 0) >= _AXPY_CHUNK:
            return _axpy(xp, a, b, -alpha, out, dt)
    return ufunc(xp.subtract, (a, _scaled(xp, b, alpha)), out, dt)


_AXPY_CHUNK = 1 << 14  # elements per block of the blocked multiply-add below


def _axpy(xp, a, b, k, out, dt):
    """``a + k * b`` without a temporary ``k * b`` of the full size (``add_(y, alpha=k)``).

    In place (``out is a``): numpy's buffered iterator walks ``b`` and ``out`` in blocks
    of ``_AXPY_CHUNK`` elements; each block is scaled into one small buffer and added
    into ``out``. Out of place (or ``out=`` that overlaps no input): ``k * b`` is written
    straight into the result, which then receives ``a`` in place. ``sub`` passes ``-k``
    (negation is exact). cupy, and an ``out`` that shares memory with an input, take
    the plain two-step path.
    """
    npd = dt.np
    if getattr(xp, "nditer", None) is None or b.ndim == 0:  # cupy: the plain path
        return ufunc(xp.add, (a, xp.multiply(b, k)), out, dt)
    if out is None or (out is not a and not xp.may_share_memory(out, a)
                       and not xp.may_share_memory(out, b)):
        if out is None:
            shape = xp.broadcast_shapes(xp.shape(a), b.shape)
            out = xp.empty_like(a, dtype=npd) if xp.shape(a) == shape else xp.empty(shape, npd)
        xp.multiply(b, k, out=out, dtype=npd, casting="unsafe")
        return xp.add(a, out, out=out, dtype=npd, casting="unsafe")
    if out is not a:
        return ufunc(xp.add, (a, xp.multiply(b, k)), out, dt)
    buf = xp.empty(_AXPY_CHUNK, npd)
    it = xp.nditer([b, out], flags=["external_loop", "buffered", "zerosize_ok", "refs_ok"],
                   op_flags=[["readonly"], ["readwrite"]], op_dtypes=[npd, out.dtype],
                   casting="unsafe", buffersize=_AXPY_CHUNK)
    with it:
        for y, z in it:
            t = buf[:y.shape[0]]
            xp.multiply(y, k, out=t, casting="unsafe")
            xp.add(z, t, out=z, casting="unsafe")
    return out


def _sub_dtype(spec, ins, params):
    bool_ = dtypes.bool_
    n_bool = 0
    for x in ins:
        if x is bool_ or x is True or x is False or getattr(x, "_dtype", None) is bool_:
            n_bool += 1
    if n_bool == len(ins):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if n_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return promote(ins)


_sub_dtype.plain_dtype = lambda dt: None if dt is dtypes.bool_ else dt  # bool: the rule raises


def _alpha_g(c, g, sign, i=1):
    """The gradient of argument ``i`` scaled by alpha (None when it needs none: not computed)."""
    if not c.needs_input_grad[i]:
        return None
    a = c["alpha"] * sign
    return g if a == 1 else g * a


binary("add", _add_fwd, lambda c, g: (red(c, 0, g), red(c, 1, _alpha_g(c, g, 1))),
       params={"alpha": 1}, p=True, out_direct=True, ufunc="add")
SUB = binary("sub", _sub_fwd, lambda c, g: (red(c, 0, g), red(c, 1, _alpha_g(c, g, -1))),
             params={"alpha": 1}, dtype_rule=_sub_dtype, p=True, aliases=("subtract",),
             out_direct=True, ufunc="subtract")  # (select: RsubBackward1 only for a number first)
_RSUB_SCALAR = overload(SUB, "RsubBackward1", scalar_edges=False)  # 2 - x: number first
SUB.select = lambda args, kw: _RSUB_SCALAR if args and not is_tensor(args[0]) else None


def _rsub_fwd(xp, a, b, out=None, dt=None, alpha=1):
    if alpha.__class__ is not int:
        _check_alpha(alpha, dt)
    return ufunc(xp.subtract, (b, _scaled(xp, a, alpha)), out, dt)


RSUB = binary("rsub", _rsub_fwd, lambda c, g: (red(c, 0, _alpha_g(c, g, -1, 0)), red(c, 1, g)),
              params={"alpha": 1}, dtype_rule=_sub_dtype, t=False, method=False)
_RSUB1 = overload(RSUB, "RsubBackward1", scalar_edges=False)
RSUB.select = lambda args, kw: None if is_tensor(arg(args, kw, 1, "other")) else _RSUB1

binary("mul", "multiply",
       lambda c, g: (red(c, 0, g * c["other"]) if c.needs_input_grad[0] else None,
                     red(c, 1, g * c["self"]) if c.needs_input_grad[1] else None),
       saves=("self", "other"), save_if={"self": "other", "other": "self"},
       p=True, aliases=("multiply",))


def check_int_divisor(xp, b, dt):
    """Integer division by zero is an error in PyTorch (numpy would return 0 and warn)."""
    if dt.category < 2 and bool(xp.any(xp.asarray(b) == 0)):
        raise RuntimeError("ZeroDivisionError")


def int_div_checked(fname):
    """A ufunc forward that refuses an integer divisor of zero before writing anything."""
    base = uf(fname)

    def fwd(xp, a, b, out=None, dt=None):
        check_int_divisor(xp, b, dt)
        return base(xp, a, b, out=out, dt=dt)

    fwd.__name__ = fname
    fwd.ufunc = fname  # (OpSpec.ufunc: the fast lane may call it directly)
    return fwd


def _div_fwd(xp, a, b, out=None, dt=None, rounding_mode=None):
    if rounding_mode is None:
        return xp.true_divide(a, b, out=out, dtype=dt.np, casting="unsafe")
    if dt.category < 2:  # integers: exact integer floor/trunc division
        check_int_divisor(xp, b, dt)
        a, b = xp.asarray(a, dtype=dt.np), xp.asarray(b, dtype=dt.np)  # (bool operands)
        q = xp.floor_divide(a, b, dtype=dt.np)
        if rounding_mode == "trunc":
            q = q + ((xp.remainder(a, b, dtype=dt.np) != 0) & ((xp.sign(a) * xp.sign(b)) < 0))
        return assign(xp, out, q.astype(dt.np, copy=False))
    if rounding_mode == "floor":  # (ATen's div_floor_floating is numpy's: from fmod, so
        return xp.floor_divide(a, b, out=out, dtype=dt.np, casting="unsafe")  # inf // 2 is nan)
    if out is not None and out.dtype != dt.np:  # (x32.div_(y64, "trunc"): truncate in float64,
        return assign(xp, out, xp.trunc(xp.true_divide(a, b, dtype=dt.np)))  # then round)
    r = xp.true_divide(a, b, out=out, dtype=dt.np, casting="unsafe")
    return xp.trunc(r, out=scratch(r))


def _no_bool(kernel, dt):
    """ATen's division kernels have no bool (and no complex) loop: refused before the
    integer zero check."""
    if dt is dtypes.bool_ or dt.category == dtypes.COMPLEX:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.torch_name}\'')
    return dt


def _div_dtype(spec, ins, params):
    mode = params.get("rounding_mode")
    if mode is None:
        return float_rule(spec, ins, params)
    return _no_bool(f"div_{mode}_cpu", promote(ins)) if mode in ("trunc", "floor") else promote(ins)


def _div_bw(c, g):
    if c["rounding_mode"] is not None:
        return (red(c, 0, zeros_grad(g)), red(c, 1, zeros_grad(g)))
    return (red(c, 0, g / c["other"]),
            red(c, 1, -g * c["self"] / (c["other"] * c["other"])) if c.needs_input_grad[1] else None)


DIV = binary("div", _div_fwd, _div_bw, saves=("self", "other"), save_if={"self": "other"},
             dtype_rule=_div_dtype, params={"rounding_mode": None}, p=True,
             aliases=("divide", "true_divide"), out_direct=True,
             ufunc="true_divide")  # (select: DivBackward2 only with a rounding_mode)
_DIV2 = overload(DIV, "DivBackward2")  # the rounding_mode overload, even with None
DIV.select = lambda args, kw: _DIV2 if len(args) > 2 or "rounding_mode" in kw else None

# PyTorch's C++ Scalar overloads (add.Scalar, sub.Scalar, mul.Scalar, div.Scalar): what
# ``at::div(t, 2)`` records inside an ATen composite (cross_entropy's mean is DivBackward1,
# its label smoothing MulBackward1 then AddBackward1). Python never reaches them: ``t / 2``
# wraps the 2 into a tensor (div.Tensor: DivBackward0, with a (None, 0) edge for the number),
# so no select picks them; a composite that follows ATen's code calls them through
# ``SCALAR``. Same kernels and formulas; the number gets no edge.
SCALAR = {_n: overload(OPS[_n], _n.capitalize() + "Backward1", scalar_edges=False)
          for _n in ("add", "sub", "mul", "div")}


# ---- pow, float_power ---------------------------------------------------------------------------

def _plain_pow_fwd(xp, a, b, out=None, dt=None):
    """pow itself (Paddle's kernel; PyTorch's for any other exponent)."""
    if dt is dtypes.bool_:  # (only x.pow(True) / x.pow(False) get here: _pow_dtype)
        return assign(xp, out, xp.array(a, dtype=bool) if b else xp.ones(xp.shape(a), bool))
    if dt.category < 2:
        neg = (b < 0) if not hasattr(b, "shape") else bool((b < 0).any())
        if neg:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    return xp.power(a, b, out=out, dtype=dt.np, casting="unsafe")


_REAL_FLOATS = (dtypes.float32, dtypes.float64)
_SPECIAL = (0.5, -0.5, -1, 2, 3, -2)


def _pow_fwd(xp, a, b, out=None, dt=None):
    """PyTorch's pow kernel: for a float32/float64 tensor and a number exponent, ATen's
    pow_tensor_scalar_kernel computes 0.5, -0.5 and -1 as sqrt, 1/sqrt and 1/x, and 2, 3 and
    -2 as x*x, x*x*x and 1/(x*x) (PowKernel.cpp), each rounded as those operations round,
    not as a correctly rounded pow: ``x ** 3`` differs from numpy's power in the last bit for
    about a third of the values, and ``(-0.0) ** -0.5`` is -inf. Anything else is pow."""
    if dt in _REAL_FLOATS and (b.__class__ is float or b.__class__ is int) and b in _SPECIAL:
        npd = dt.np
        if a.dtype != npd:  # (an integer base: the iterator casts it first)
            a = a.astype(npd)
        if b == 0.5:
            return xp.sqrt(a, out=out)
        if b == 2:
            return xp.multiply(a, a, out=out)
        if b == -1:
            return xp.divide(1, a, out=out, dtype=npd)
        t = xp.sqrt(a) if b == -0.5 else xp.multiply(a, a)  # (a temporary: ``out`` may be
        if b == 3:                                          # ``a`` itself, in pow_)
            return xp.multiply(t, a, out=out)
        return xp.divide(1, t, out=out, dtype=npd)  # -0.5, -2
    return _plain_pow_fwd(xp, a, b, out, dt)


def _pow_scalar_bw(c, g):  # x ** 2: PowBackward0 saves self (and the number)
    e = c["exponent"]
    if e == 0:
        return (red(c, 0, zeros_grad(g)), None)
    return (red(c, 0, g * (e * c["self"].pow(e - 1))), None)  # torch's grouping, bit for bit


def _log_times_result(base, result, exponent):
    """result * log(base), zero where base == 0 and exponent >= 0 (pow_backward_exponent)."""
    t = result * base.log()
    return t.where(~((base == 0) & (exponent >= 0)), 0.0)


def _pow_tensor_bw(c, g):  # x ** y: PowBackward1
    # PyTorch unpacks (and version-checks) every saved tensor up front, exponent first.
    e, x, r = c["exponent"], c["self"], c["result"]
    gx = None
    if c.needs_input_grad[0]:  # torch's pow_backward_self: 0 where the exponent is 0
        t = g * (e * x.pow(e - 1))
        gx = red(c, 0, t.where(e != 0, 0.0))
    ge = red(c, 1, g * _log_times_result(x, r, e)) if c.needs_input_grad[1] else None
    return (gx, ge)


def _pow_number_bw(c, g):  # 2 ** x: PowBackward2
    base = c["self"]
    if base == 0:
        return (None, red(c, 1, zeros_grad(g)))
    return (None, red(c, 1, g * (c["result"] * math.log(base))))


def _pow_dtype(spec, ins, params):
    """Promotion; ATen's pow kernels have no bool loop ("pow" not implemented for 'Bool'),
    but pow(Tensor, Scalar) copies for an exponent of True and fills ones for False before
    any kernel runs (bool_tensor.pow(True) is a bool tensor)."""
    dt = promote(ins)
    if dt is dtypes.bool_ and not (is_tensor(ins[0]) and ins[1].__class__ is bool):
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    return dt


_pow_dtype.plain_dtype = lambda dt: None if dt is dtypes.bool_ else dt  # (bool: the rule)


POW = register(OpSpec(name="pow", forward=_pow_fwd, backward=_pow_scalar_bw,
                      args=("self", "exponent"), saves=("self",), **flags(True, True),
                      dtype_rule=_pow_dtype, node_name="PowBackward0"))
_POW1 = overload(POW, "PowBackward1", backward=_pow_tensor_bw, saves=("self", "exponent", "result"))
_POW2 = overload(POW, "PowBackward2", backward=_pow_number_bw, saves=("exponent", "result"))


_POW_PADDLE = dataclasses.replace(POW, forward=_plain_pow_fwd, select=None)


def _pow_select(args, kw):
    if args and not is_tensor(args[0]):
        return _POW2
    if is_tensor(arg(args, kw, 1, "exponent")):
        return _POW1
    return None if under_torch(args[:1]) else _POW_PADDLE  # (Paddle's kernel is pow itself)


POW.select = _pow_select


def _double_rule(spec, ins, params):
    from ..dtypes import COMPLEX, complex128, float64

    return complex128 if promote(ins).category == COMPLEX else float64


def _float_power_fwd(xp, a, b, out=None, dt=None):
    if out is not None and out.dtype != dt.np:  # in place: the target must already be double
        from ..dtypes import from_numpy_dtype

        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{from_numpy_dtype(out.dtype).torch_name} but the operation's result "
                           f"requires dtype {dt.torch_name}")
    return xp.power(a, b, out=out, dtype=dt.np, casting="unsafe")


def _float_power_cast(ins, dt, target, inplace):
    """float_power_ and out=: the target must have the double dtype itself (ATen's check,
    before anything else; a float32 target is refused too)."""
    if target is dt or not under_torch(ins):
        return None
    who = "the base given to float_power_" if inplace else "the output given to float_power"
    return (f"{who} has dtype {target.torch_name} but the operation's result requires dtype "
            f"{dt.torch_name}")


FLOAT_POWER = register(OpSpec(name="float_power", forward=_float_power_fwd, cast_error=_float_power_cast,
                              backward=lambda c, g: _pow_scalar_bw(c, g.to(c.input_meta[0][1])),
                              args=("self", "exponent"), saves=("self",),
                              dtype_rule=_double_rule, node_name="PowBackward0",
                              **flags(True, False)))
FLOAT_POWER.select = lambda args, kw: (
    overload(FLOAT_POWER, "PowBackward1", backward=_pow_tensor_bw,
             saves=("self", "exponent", "result"))
    if is_tensor(arg(args, kw, 1, "exponent")) else None)


# ---- other binary arithmetic ---------------------------------------------------------------------

def _atan2_bw(c, g):
    """PyTorch's atan2_backward: ``g * other / r2`` and ``g * -self / r2``, with 1 / r2 taken
    as 0 where ``self`` and ``other`` are both 0 (a zero gradient there, not NaN)."""
    x, y = c["self"], c["other"]
    r2 = x * x + y * y
    recip = r2.reciprocal().masked_fill(r2 == 0, 0)
    return (red(c, 0, g * y * recip), red(c, 1, g * -x * recip))


binary("atan2", "arctan2", _atan2_bw, saves=("self", "other"),
       dtype_rule=refuse_complex(float_rule, "atan2_cpu"),
       aliases=("arctan2",))


def _minmax_bw(pick_self):
    """torch's maximum (minimum): ``where(x == y, g / 2, g)``, then ``masked_fill_(x < y, 0)``
    for self and ``(x > y, 0)`` for other (the reverse for minimum): where either is NaN, both
    get the whole gradient."""
    def bw(c, g):
        x, y = c["self"], c["other"]
        loses_x, loses_y = pick_self(y, x), pick_self(x, y)  # (maximum: x < y, x > y)
        shared = g.where((x == y).logical_not(), g / 2)
        gx = masked_grad(shared, loses_x.logical_not())
        gy = masked_grad(shared, loses_y.logical_not())
        if not grad_mode.state.enabled:  # torch's formula ends in masked_fill_ (before the
            gx._vc.bump()                # broadcast reduction): a same-shape grad is at version 1
            gy._vc.bump()
        return (red(c, 0, gx), red(c, 1, gy))

    return bw


def _fminmax_bw(pick_self):
    def bw(c, g):
        x, y = c["self"], c["other"]
        m = pick_self(x, y).logical_or(y.isnan())
        return (red(c, 0, masked_grad(g, m)), red(c, 1, masked_grad(g, ~m)))

    return bw


_MINMAX_DT = refuse_complex("promote", "{name} not implemented for complex tensors.", RuntimeError)
binary("maximum", "maximum", _minmax_bw(lambda x, y: x > y), saves=("self", "other"), t=False,
       dtype_rule=_MINMAX_DT)
binary("minimum", "minimum", _minmax_bw(lambda x, y: x < y), saves=("self", "other"), t=False,
       dtype_rule=_MINMAX_DT)
binary("fmax", "fmax", _fminmax_bw(lambda x, y: x >= y), saves=("self", "other"), t=False,
       dtype_rule=_MINMAX_DT)
binary("fmin", "fmin", _fminmax_bw(lambda x, y: x <= y), saves=("self", "other"), t=False,
       dtype_rule=_MINMAX_DT)


def _rounded_quotient_bw(rounder):
    def bw(c, g):
        gy = None
        if c.needs_input_grad[1]:
            gy = red(c, 1, -g * getattr(c["self"] / c["other"], rounder)())
        return (red(c, 0, g), gy)

    return bw


def _tensor_overload(spec, node_name, backward, saves):
    """Tensor-other variant of an op whose number-other form saves nothing (remainder, fmod).

    PyTorch's formula for ``other`` is ``-grad * self.div(other, rounding_mode)``, so both
    are saved only when ``other`` requires grad (else ``_saved_self`` is None, and changing
    ``self`` in place afterwards does not break backward).
    """
    variant = overload(spec, node_name, backward=backward, saves=saves,
                       save_if={s: "other" for s in saves}, nondiff=None, scalar_edges=False)
    spec.select = lambda args, kw: variant if is_tensor(arg(args, kw, 1, "other")) else None


def _number_other_rule(spec, ins, params, kernel=None):
    """Promotion, after PyTorch's Scalar conversion of a Python int ``other``.

    The number of ``fmod(x, 2)`` is no edge of the node (``nondiff`` below), so the
    dispatcher's per-edge conversion check does not see it: checked here, before any write.
    """
    from . import dispatch

    v = ins[1] if len(ins) > 1 else None
    if v.__class__ is int and not -2 ** 63 <= v < 2 ** 64:
        dispatch._int_overflow(v, ins)
    return _no_bool(kernel or f"{spec.name}_cpu", promote(ins))


# (the fast path's numbers are in range already; bool: the rule refuses)
_number_other_rule.plain_dtype = lambda dt: None if dt is dtypes.bool_ or \
    dt.category == dtypes.COMPLEX else dt


def _floor_divide_dtype(spec, ins, params):
    return _no_bool("div_floor_cpu", promote(ins))


_floor_divide_dtype.plain_dtype = _number_other_rule.plain_dtype


for _n, _f, _r, _al in [("remainder", "remainder", "floor", ("mod", "floor_mod")),
                        ("fmod", "fmod", "trunc", ())]:
    # PyTorch's Scalar overloads (FmodBackward0, RemainderBackward0) give the number no edge
    # and save nothing: ``grad_fn._saved_other`` is an AttributeError there. nondiff keeps the
    # number off the edges; scalar_edges=True makes ``Node.__getattr__`` treat it as an operand
    # that is exposed only when listed in ``saves`` (it is not), not as a saved Scalar param.
    _s = binary(_n, int_div_checked(_f), lambda c, g: (red(c, 0, g), None), p=_n == "remainder",
                aliases=_al, scalar_edges=True, nondiff=("other",), out_direct=True,
                dtype_rule=_number_other_rule)
    _tensor_overload(_s, _n.capitalize() + "Backward1", _rounded_quotient_bw(_r), ("self", "other"))

binary("floor_divide", int_div_checked("floor_divide"), None, p=True, out_direct=True,
       dtype_rule=_floor_divide_dtype)
binary("hypot", "hypot", lambda c, g: (
    red(c, 0, g * c["self"] / c["result"]) if c.needs_input_grad[0] else None,
    red(c, 1, g * c["other"] / c["result"]) if c.needs_input_grad[1] else None),
       saves=("self", "other", "result"), save_if={"self": "self", "other": "other"},
       dtype_rule=not_implemented_for("hypot_cpu", ("int", "bool", "complex")), p=True)


def _copysign_bw(c, g):
    gy = red(c, 1, zeros_grad(g)) if len(c.needs_input_grad) > 1 else None
    if not c.needs_input_grad[0]:  # (self is saved only for its own gradient)
        return (None, gy)
    x = c["self"]
    # (torch: grad * (result / self).masked_fill_(self == 0, 0): a -0.0 where g < 0 at x == 0)
    return (red(c, 0, g * masked_grad(c["result"] / x, x != 0)), gy)


COPYSIGN = binary("copysign", "copysign", _copysign_bw, saves=("self", "result"),
                  save_if={"self": "self"}, dtype_rule=refuse_complex(float_rule, "copysign_cpu"),
                  p=True)
_COPYSIGN1 = overload(COPYSIGN, "CopysignBackward1", scalar_edges=False)
COPYSIGN.select = lambda args, kw: None if is_tensor(arg(args, kw, 1, "other")) else _COPYSIGN1

_LOGADDEXP = uf("logaddexp")


def _logaddexp_fwd(xp, a, b, out=None, dt=None):
    """numpy's logaddexp; complex operands (no numpy loop) as ATen's helper: the larger real
    part ``m``, then ``m + log1p(exp(other - m))`` (equal infinities give themselves)."""
    if dt.category != dtypes.COMPLEX:
        return _LOGADDEXP(xp, a, b, out=out, dt=dt)
    x, y = xp.asarray(a, dtype=dt.np), xp.asarray(b, dtype=dt.np)
    big = xp.where(x.real >= y.real, x, y)
    small = xp.where(x.real >= y.real, y, x)
    with backend.np.errstate(all="ignore"):
        r = big + xp.log1p(xp.exp(small - big))
        r = xp.where(xp.isinf(x.real) & (x == y), x, r)
    return assign(xp, out, r.astype(dt.np, copy=False))


_logaddexp_fwd.ufunc = "logaddexp"
binary("logaddexp", _logaddexp_fwd, lambda c, g: (red(c, 0, g / ((c["other"] - c["self"]).exp() + 1)),
                                               red(c, 1, g / ((c["self"] - c["other"]).exp() + 1))),
       saves=("self", "other"), dtype_rule=not_implemented_for("logaddexp_cpu", ("int", "bool")),
       t=False, out_direct=True)
binary("logaddexp2", "logaddexp2",
       lambda c, g: (red(c, 0, g / ((c["other"] - c["self"]).exp2() + 1)),
                     red(c, 1, g / ((c["self"] - c["other"]).exp2() + 1))),
       saves=("self", "other"), dtype_rule=not_implemented_for("logaddexp2_cpu", ("int", "bool", "complex")),
       t=False)


def _xlogy_fwd(xp, a, b, out=None, dt=None):
    if dt is dtypes.float16:  # ATen's half: log(y) rounded to half, then x * it rounded
        x, y = xp.asarray(a, dtype="float32"), xp.asarray(b, dtype="float32")
        with backend.np.errstate(all="ignore"):
            lg = xp.log(y).astype(dt.np).astype("float32")
            r = xp.where(xp.isnan(y), y, xp.where(x == 0, 0, x * lg))
        return assign(xp, out, r.astype(dt.np))
    r = special_for(xp).xlogy(xp.asarray(a, dtype=dt.np), xp.asarray(b, dtype=dt.np))
    return assign(xp, out, r.astype(dt.np, copy=False))


def _xlogy_bw(c, g):
    x, y = c["self"], c["other"]
    gx = gy = None
    if c.needs_input_grad[0]:
        if is_tensor(y):
            # (ATen: xlogy(grad, other).masked_fill((self == 0) & (other <= 0), 0): NaN y passes)
            gx = red(c, 0, masked_grad(g.xlogy(y), (x == 0).logical_and(y <= 0).logical_not()))
        else:
            gx = red(c, 0, g.xlogy(y) if y > 0 else masked_grad(g.xlogy(y), x != 0))
    if c.needs_input_grad[1]:
        gy = red(c, 1, g * x / y)
    return (gx, gy)


XLOGY = binary("xlogy", _xlogy_fwd, _xlogy_bw, saves=("self", "other"),
               dtype_rule=refuse_complex(float_rule, "xlogy_cpu"))
_XLOGY1 = overload(XLOGY, "XlogyBackward1", scalar_edges=False)  # Scalar overloads: no edge
_XLOGY2 = overload(XLOGY, "XlogyBackward2", scalar_edges=False)
XLOGY.select = lambda args, kw: (_XLOGY1 if args and not is_tensor(args[0]) else
                                 None if is_tensor(arg(args, kw, 1, "other")) else _XLOGY2)


def _heaviside_dtype(spec, ins, params):
    tens = [x._dtype for x in ins if is_tensor(x)]
    if any(t.category == dtypes.COMPLEX for t in tens):
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if len(set(tens)) > 1:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return promote(ins)


def _heaviside_fwd(xp, a, b, out=None, dt=None):
    """0 below zero, 1 above, ``values`` at zero (numpy's ufunc has no integer loop)."""
    return assign(xp, out, xp.where(a == 0, b, a > 0).astype(dt.np, copy=False))


def _no_heaviside_derivative(op):
    def backward(c, *grads):  # (PyTorch's NotImplemented node: it raises when backward runs)
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    return backward


HEAVISIDE = binary("heaviside", _heaviside_fwd, _no_heaviside_derivative("heaviside"),
                   dtype_rule=_heaviside_dtype, p=False, node_name="torch::autograd::NotImplemented")
HEAVISIDE.inplace_spec = overload(HEAVISIDE, HEAVISIDE.node_name,
                                  backward=_no_heaviside_derivative("heaviside_"))
binary("nextafter", "nextafter", None,
       dtype_rule=not_implemented_for("nextafter_cpu", ("int", "bool", "complex")))
binary("gcd", "gcd", None, dtype_rule=not_implemented_for("gcd_cpu", ("float", "bool", "complex")),
       p=True)
binary("lcm", "lcm", None, dtype_rule=not_implemented_for("lcm_cpu", ("float", "bool", "complex")),
       p=True)


def _ldexp_fwd(xp, a, b, out=None, dt=None):
    r = xp.multiply(a, xp.exp2(xp.asarray(b, dtype=dt.np)), out=out, dtype=dt.np, casting="unsafe")
    return r


def _ldexp_cast(ins, dt, target, inplace):
    """ldexp_ and out=: ATen's own words for an integral or bool target (a floating one
    meets the usual cast check of its multiplication)."""
    if dtypes.can_cast(dt, target) or target.category >= dtypes.FLOAT or not under_torch(ins):
        return None
    return f"ldexp can't be cast to the desired output type {target.torch_name}"


def _ldexp_dtype(spec, ins, params):
    """float_rule; a floating self takes ATen's ldexp_cpu_exp kernel, dispatched on the
    exponent's integral dtype, which has no bool loop."""
    x, e = ins[0], ins[1]
    if is_tensor(x) and is_tensor(e) and x._dtype.category == dtypes.FLOAT and \
            e._dtype is dtypes.bool_ and under_torch(ins):
        raise NotImplementedError('"ldexp_cpu_exp" not implemented for \'Bool\'')
    return float_rule(spec, ins, params)


_ldexp_dtype.plain_dtype = float_rule.plain_dtype  # (one dtype: never float with bool)


binary("ldexp", _ldexp_fwd, lambda c, g: (red(c, 0, g * c["other"].exp2()),
                                          red(c, 1, g * c["result"] * LN2)),
       saves=("other", "result"), dtype_rule=_ldexp_dtype, p=True, cast_error=_ldexp_cast)


def _igamma_fwd(name):
    def fwd(xp, a, b, out=None, dt=None):
        from .special_fns import igamma_edges  # (ATen's answers at 0, inf and NaN)

        r = getattr(special_for(xp), name)(xp.asarray(a, dtype=dt.np), xp.asarray(b, dtype=dt.np))
        return assign(xp, out, igamma_edges(xp, a, b, r, upper=name == "gammaincc", dt=dt))

    return fwd


def _igamma_bw(sign):
    def bw(c, g):
        if c.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for 'igamma{'' if sign > 0 else 'c'}: "
                                      "input' is not implemented.")
        a, x = c["self"], c["other"]
        d = ((a - 1) * x.log() - x - a.lgamma()).exp()
        return (None, red(c, 1, g * d * sign))

    return bw


# (self's gradient is not implemented in torch: both are saved only for other's)
_OTHER_ONLY = {"self": "other", "other": "other"}
binary("igamma", _igamma_fwd("gammainc"), _igamma_bw(1), saves=("self", "other"),
       save_if=_OTHER_ONLY, dtype_rule=not_implemented_for("igamma_cpu", ("int", "bool", "complex")), p=True, aliases=("gammainc",))
binary("igammac", _igamma_fwd("gammaincc"), _igamma_bw(-1), saves=("self", "other"),
       save_if=_OTHER_ONLY, dtype_rule=not_implemented_for("igammac_cpu", ("int", "bool", "complex")), p=True,
       aliases=("gammaincc",))

# ---- comparisons and logic (results are bool; in-place forms keep self's dtype) -------------


def _cmp(fname):
    def fwd(xp, a, b, out=None, dt=None):
        return getattr(xp, fname)(a, b, out=out, casting="unsafe")

    return fwd


# (op, ufunc, aliases, torch has op_, paddle has some name_)
for _n, _f, _al in [("eq", "equal", ()), ("ne", "not_equal", ("not_equal",)),
                    ("lt", "less", ("less", "less_than")), ("le", "less_equal", ("less_equal",)),
                    ("gt", "greater", ("greater", "greater_than")),
                    ("ge", "greater_equal", ("greater_equal",))]:
    binary(_n, _cmp(_f), None, p=True, aliases=_al, dtype_rule=bool_rule if _n in ("eq", "ne")
           else refuse_complex(bool_rule, f"{_n}_cpu"))

for _n in ("logical_and", "logical_or", "logical_xor"):
    binary(_n, _cmp(_n), None, dtype_rule=bool_rule, p=True)

for _n, _f, _k in [("bitwise_and", "bitwise_and", "bitwise_and_cpu"),
                   ("bitwise_or", "bitwise_or", "bitwise_or_cpu"),
                   ("bitwise_xor", "bitwise_xor", "bitwise_xor_cpu"),
                   ("bitwise_left_shift", "left_shift", "lshift_cpu"),
                   ("bitwise_right_shift", "right_shift", "rshift_cpu")]:
    binary(_n, _f, None, p=True, dtype_rule=not_implemented_for(
        _k, ("float", "bool", "complex") if "shift" in _n else ("float", "complex")))

register(OpSpec(name="logical_not", dtype_rule=bool_rule, **flags(True, True),
                forward=lambda xp, a, out=None, dt=None: xp.logical_not(a, out=out, casting="unsafe")))
register(OpSpec(name="bitwise_not", dtype_rule=not_implemented_for("bitwise_not_cpu",
                                                                   ("float", "complex")),
                forward=lambda xp, a, out=None, dt=None: xp.invert(a, out=out),
                aliases=("bitwise_invert",), **flags(True, True)))


# ---- several operands: where, lerp, addcmul, addcdiv -------------------------------------------

def _where_fwd(xp, cond, a, b, out=None, dt=None):
    return assign(xp, out, xp.where(cond, a, b).astype(dt.np, copy=False))


register(OpSpec(
    name="where", forward=_where_fwd, args=("condition", "self", "other"),
    backward=lambda c, g: (None, red(c, 1, masked_grad(g, c["condition"])),
                           red(c, 2, masked_grad(g, c["condition"].logical_not()))),
    saves=("condition",), dtype_rule=lambda s, ins, p: promote(ins[1:]), method=False,
    inplace=False, torch_inplace=False, paddle_inplace=True))  # paddle.where_ writes into x: facade


def _lerp_fwd(xp, a, b, w, out=None, dt=None):
    """ATen's two-sided formula: ``a + w * (b - a)`` for ``|w| < 0.5``, else
    ``b - (b - a) * (1 - w)`` (exact at w = 1; ``lerp(inf, 1, 0.5)`` is inf, not nan)."""
    d = xp.subtract(b, a, dtype=dt.np)
    if getattr(w, "ndim", 0) == 0:  # one weight: one side
        if abs(w) < 0.5:
            d = xp.multiply(d, w, out=scratch(d), casting="unsafe")
            return xp.add(a, d, out=out, dtype=dt.np, casting="unsafe")
        d = xp.multiply(d, 1 - w, out=scratch(d), casting="unsafe")
        return xp.subtract(b, d, out=out, dtype=dt.np, casting="unsafe")
    near = xp.add(a, xp.multiply(w, d), dtype=dt.np)
    far = xp.subtract(b, xp.multiply(d, 1 - w), dtype=dt.np)
    return assign(xp, out, xp.where(xp.abs(w) < 0.5, near, far).astype(dt.np, copy=False))


def _lerp_dtype(spec, ins, params):
    """lerp wants one dtype throughout (no promotion), in PyTorch's C++ type names."""
    dt = ins[0]._dtype
    for name, x in zip(("end", "weight"), ins[1:]):
        if is_tensor(x) and x._dtype is not dt:
            raise RuntimeError(f"expected dtype {dtypes.cpp_name(dt)} for `{name}` but "
                               f"got dtype {dtypes.cpp_name(x._dtype)}")
    if dt.category < 2:  # (the kernel is chosen by self's dtype, whatever the weight is)
        kernel = "lerp_kernel_tensor" if is_tensor(ins[2]) else "lerp_kernel_scalar"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.torch_name}\'')
    return dt


LERP = register(OpSpec(
    name="lerp", forward=_lerp_fwd, args=("self", "end", "weight"),
    backward=lambda c, g: (red(c, 0, g * (1 - c["weight"])), red(c, 1, g * c["weight"]), None),
    saves=(), dtype_rule=_lerp_dtype,
    **flags(True, True)))
_LERP1 = overload(LERP, "LerpBackward1", saves=("self", "end", "weight"),
                  save_if={"self": "weight", "end": "weight"},  # (only weight's formula)
                  backward=lambda c, g: (
    red(c, 0, g * (1 - c["weight"])), red(c, 1, g * c["weight"]),
    red(c, 2, g * (c["end"] - c["self"])) if c.needs_input_grad[2] else None))
LERP.select = lambda args, kw: _LERP1 if is_tensor(arg(args, kw, 2, "weight")) else None


def _addc_fwd(op):
    def fwd(xp, a, t1, t2, out=None, dt=None, value=1):
        r = getattr(xp, op)(t1, t2, dtype=dt.np, casting="unsafe")
        if dt.category < 2 and isinstance(value, float):
            value = int(value)  # (ATen reads the scalar as the integer type: 0.5 is 0)
        if value != 1:
            r = xp.multiply(r, value, out=scratch(r), casting="unsafe")
        return xp.add(a, r, out=out, dtype=dt.np, casting="unsafe")

    return fwd


def _addcdiv_dtype(spec, ins, params):
    dt = promote(ins)
    if all(is_tensor(t) and t._dtype.category < 2 for t in ins[1:3]):  # (tensor1 and tensor2)
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    return dt


register(OpSpec(
    name="addcmul", forward=_addc_fwd("multiply"), args=("self", "tensor1", "tensor2"),
    params={"value": 1}, saves=("tensor1", "tensor2"),
    dtype_rule=not_implemented_for("addcmul_cpu_out", ("bool",)),
    save_if={"tensor1": "tensor2", "tensor2": "tensor1"},
    backward=lambda c, g: (red(c, 0, g),
                           red(c, 1, g * c["tensor2"] * c["value"]) if c.needs_input_grad[1] else None,
                           red(c, 2, g * c["tensor1"] * c["value"]) if c.needs_input_grad[2] else None),
    **flags(True, False)))
register(OpSpec(
    name="addcdiv", forward=_addc_fwd("true_divide"), args=("self", "tensor1", "tensor2"),
    params={"value": 1}, saves=("tensor1", "tensor2"), dtype_rule=_addcdiv_dtype,
    save_if={"tensor1": "tensor2"},  # (tensor2 feeds two formulas: PyTorch always saves it)
    backward=lambda c, g: (
        red(c, 0, g),
        red(c, 1, g * c["value"] / c["tensor2"]) if c.needs_input_grad[1] else None,
        red(c, 2, -g * c["value"] * c["tensor1"] / (c["tensor2"] * c["tensor2"]))
        if c.needs_input_grad[2] else None),
    **flags(True, False)))


# ---- clamps and Paddle's scale --------------------------------------------------------------------

def _clamp_fwd(xp, a, lo=None, hi=None, out=None, dt=None):
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(lo, xp.ndarray) or isinstance(hi, xp.ndarray):  # a tensor bound: ATen's
        # maximum/minimum (numpy's picks the bound where it equals x: -0.0 against 0.0)
        if lo is not None and hi is not None:
            return backend.clip(xp, a, lo, hi, out, dt.np)
        if lo is not None:
            return xp.maximum(a, lo, out=out, dtype=dt.np, casting="unsafe")
        return xp.minimum(a, hi, out=out, dtype=dt.np, casting="unsafe")
    # number bounds: ATen's clamp_scalar kernels keep x where it equals a bound (clamp(min=0)
    # of -0.0 is -0.0); numpy's maximum/minimum return their second operand on a tie, and
    # NaN from either, as ATen's
    if lo is not None:
        a = xp.maximum(lo, a, out=out, dtype=dt.np, casting="unsafe")
        if out is None and isinstance(a, xp.ndarray):
            out = a  # (a fresh array: the second bound writes into it, no second temporary;
            #          a 0-dim input gives a scalar)
    if hi is not None:
        a = xp.minimum(hi, a, out=out, dtype=dt.np, casting="unsafe")
    return a


def _clamp_check(spec, ins, params):
    if all(x is None for x in ins[1:]):
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if ins[0]._dtype.category == dtypes.COMPLEX and under_torch(ins):
        raise NotImplementedError("clamp is not supported for complex types")
    return _clamp_bool(spec, ins, promote([x for x in ins if x is not None]))


def _clamp_bool(spec, ins, dt):
    """ATen's clamp kernels on a bool result: the Scalar overloads (clamp_scalar_cpu,
    clamp_min_scalar_cpu, clamp_max_scalar_cpu) and the Tensor one with both bounds
    (clamp_cpu) have no bool loop; one tensor bound is maximum/minimum, which has."""
    tensor_overload = spec.node_name in ("ClampBackward0", "ClampMinBackward1",
                                         "ClampMaxBackward1")
    if dt.category == dtypes.COMPLEX and tensor_overload and spec.name == "clamp" and \
            under_torch(ins):  # (complex bounds of a real self: the kernel's refusal)
        raise NotImplementedError(f'"clamp_cpu" not implemented for \'{dt.torch_name}\'')
    if dt is not dtypes.bool_:
        return dt
    if spec.name == "clamp":
        lo, hi = ins[1] is not None, len(ins) > 2 and ins[2] is not None
        if tensor_overload:
            kernel = "clamp_cpu" if lo and hi else None
        else:
            kernel = "clamp_scalar_cpu" if lo and hi else "clamp_min_scalar_cpu" if lo else \
                "clamp_max_scalar_cpu"
    else:
        kernel = None if tensor_overload else f"{spec.name}_scalar_cpu"
    if kernel is not None:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    return dt


def _clamp_one_dtype(spec, ins, params):
    if ins[0]._dtype.category == dtypes.COMPLEX and under_torch(ins):
        if spec.node_name.endswith("1"):  # (the Tensor overloads: maximum/minimum's kernels)
            kernel = "maximum_cpu" if spec.name == "clamp_min" else "minimum_cpu"
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f'\'{ins[0]._dtype.torch_name}\'')
        raise NotImplementedError("clamp is not supported for complex types")
    return _clamp_bool(spec, ins, promote(ins))


_clamp_one_dtype.plain_dtype = lambda dt: None if dt is dtypes.bool_ or \
    dt.category == dtypes.COMPLEX else dt  # (bool, complex: the rule)


def _clamp_grads(c, g, lo, hi, lo_i, hi_i):
    """Gradient flows to self inside [lo, hi], to a tensor bound where it was the one picked."""
    x = c["self"]
    keep = None
    if lo is not None:
        keep = x >= lo
    if hi is not None:
        k2 = x <= hi
        keep = k2 if keep is None else keep.logical_and(k2)
    out = [red(c, 0, masked_grad(g, keep))] + [None] * (len(c.input_meta) - 1)
    both = lo is not None and hi is not None  # (where lo > hi, every value is hi: max's)
    if is_tensor(lo):
        out[lo_i] = red(c, lo_i, masked_grad(g, (x < lo).logical_and(lo < hi) if both
                                             else x < lo))
    if is_tensor(hi):
        out[hi_i] = red(c, hi_i, masked_grad(g, (x > hi).logical_or(hi < lo) if both
                                             else x > hi))
    return tuple(out)


def _bounds_select(variant, names):
    """The Tensor overload when a bound is a tensor. PyTorch has no overload for a tensor
    bound beside a number bound: only a 0-dim tensor passes there, as a Number (the Scalar
    overload, ClampBackward1)."""
    def select(args, kw):
        bounds = [arg(args, kw, i + 1, n) for i, n in enumerate(names)]
        tensors = [b for b in bounds if is_tensor(b)]
        if not tensors:
            return None
        if len(tensors) < len([b for b in bounds if b is not None]):
            if any(t.ndim for t in tensors):
                raise _clamp_combination(args, kw)
            return None
        return variant
    return select


def _clamp_combination(args, kw):
    def kind(v):
        return "Tensor" if is_tensor(v) else type(v).__name__
    got = ", ".join([kind(a) for a in args] + [f"{k}={kind(v)}" for k, v in reversed(kw.items())])
    return TypeError(
        f"clamp() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
        " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")


CLAMP = register(OpSpec(
    name="clamp", forward=_clamp_fwd, args=("self", "min", "max"), optional_args=("min", "max"),
    backward=lambda c, g: _clamp_grads(c, g, c["min"], c["max"], 1, 2),
    saves=("self", "min", "max"), dtype_rule=_clamp_check, node_name="ClampBackward1",
    aliases=("clip",), cpp_cast_error=True, **flags(True, True)))
CLAMP.select = _bounds_select(overload(CLAMP, "ClampBackward0", scalar_edges=True,
                                       cpp_cast_error=False),
                              ("min", "max"))  # (an absent bound: a (None, 0) edge)
CLAMP_MIN = register(OpSpec(
    name="clamp_min", forward=lambda xp, a, b, out=None, dt=None: _clamp_fwd(xp, a, b, None, out=out, dt=dt),
    backward=lambda c, g: _clamp_grads(c, g, c["min"], None, 1, None),
    args=("self", "min"), saves=("self", "min"), cpp_cast_error=True, dtype_rule=_clamp_one_dtype,
    **flags(True, False)))
CLAMP_MAX = register(OpSpec(
    name="clamp_max", forward=lambda xp, a, b, out=None, dt=None: _clamp_fwd(xp, a, None, b, out=out, dt=dt),
    backward=lambda c, g: _clamp_grads(c, g, None, c["max"], None, 1),
    args=("self", "max"), saves=("self", "max"), cpp_cast_error=True, dtype_rule=_clamp_one_dtype,
    **flags(True, False)))
for _s, _k in ((CLAMP_MIN, "min"), (CLAMP_MAX, "max")):
    _s.select = _bounds_select(overload(_s, _s.node_name[:-1] + "1", cpp_cast_error=False),
                               (_k,))


def _scale_fwd(xp, a, out=None, dt=None, scale=1.0, bias=0.0, bias_after_scale=True):
    if bias_after_scale:
        r = xp.multiply(a, scale, out=out, dtype=dt.np, casting="unsafe")
        return xp.add(r, bias, out=scratch(r), casting="unsafe")
    r = xp.add(a, bias, out=out, dtype=dt.np, casting="unsafe")
    return xp.multiply(r, scale, out=scratch(r), casting="unsafe")


register(OpSpec(name="scale", forward=_scale_fwd, backward=lambda c, g: g * c["scale"],
                params={"scale": 1.0, "bias": 0.0, "bias_after_scale": True}, dtype_rule="self",
                **flags(False, True)))
