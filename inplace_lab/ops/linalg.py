"""Linear algebra: mm, bmm, mv, dot, addmm, baddbmm, trace, tril/triu, and matmul/outer.

mm, bmm, mv, dot, addmm and baddbmm save their matrix operands, each only when the
*other* one requires grad (like mul): ``y = x.mm(w)`` with only ``x`` requiring grad
keeps ``w`` alive, not ``x``, so overwriting ``x`` afterwards is harmless.

``matmul`` and ``outer`` are *composites*, as in PyTorch: they add no maths of their
own but call table ops (dot, mv, mm, bmm, reshape, expand, ``_unsafe_view``), so the
graph shows exactly the nodes PyTorch shows (``x @ w`` on a batch is
UnsafeViewBackward0 over MmBackward0 or BmmBackward0, not a "MatmulBackward").
"""
from __future__ import annotations

import math

from .. import dtypes, layout
from ..tensor import Tensor
from . import dispatch
from .elementwise import arg, assign, overload
from .methods import unsafe_view
from .table import OpSpec, register


def _x(shape):
    return "x".join(str(n) for n in shape)


def _red(c, i, g):
    """Sum a broadcast gradient back to argument ``i``'s shape (addmm's ``self``)."""
    meta = c.input_meta[i]
    if meta is None or not c.needs_input_grad[i]:
        return None
    return g.sum_to_size(meta[0]) if g.shape != meta[0] else g


# ---- shape and dtype checks (run before any kernel: a failed call changes nothing) ------------

def _check_mm(a, b, first="self"):
    if a.ndim != 2:
        raise RuntimeError(f"{first} must be a matrix" + (f", got {a.ndim}-D tensor" if first == "mat1" else ""))
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix" + (f", got {b.ndim}-D tensor" if first == "mat1" else ""))
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_x(a.shape)} and {_x(b.shape)})")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{dtypes.cpp_name(a._dtype)} != {dtypes.cpp_name(b._dtype)}")
    return (a.shape[0], b.shape[1])


def _check_bmm(a, b):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if (b.shape[0], b.shape[1]) != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected scalar type {a._dtype.torch_name} but found {b._dtype.torch_name}")
    return (a.shape[0], a.shape[1], b.shape[2])


def _check_expand(s, shape, dt):
    """addmm/baddbmm's ``self`` must broadcast to the product's shape (PyTorch's expand texts)."""
    s, shape = tuple(s), tuple(shape)
    if len(s) > len(shape):
        raise RuntimeError(f"expand(torch.{dt.torch_name}Tensor{{{list(s)}}}, size={list(shape)}): "
                           f"the number of sizes provided ({len(shape)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({len(s)})")
    for k in range(1, len(s) + 1):
        if s[-k] != 1 and s[-k] != shape[-k]:
            raise RuntimeError(
                f"The expanded size of the tensor ({shape[-k]}) must match the existing size "
                f"({s[-k]}) at non-singleton dimension {len(shape) - k}.  Target sizes: "
                f"{list(shape)}.  Tensor sizes: {list(s)}")


def _check_added(self, shape, mat_dtype):
    _check_expand(self.shape, shape, self._dtype)
    if self._dtype is not mat_dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{self._dtype.torch_name} and {mat_dtype.torch_name}")


def _no_bool(dt, kernel):
    """PyTorch's CPU matrix kernels have no bool instantiation."""
    if dt.category == 0:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    return dt


def _mm_rule(spec, ins, params):
    _check_mm(ins[0], ins[1])
    return _no_bool(ins[0]._dtype, "addmm_impl_cpu_")


def _bmm_rule(spec, ins, params):
    _check_bmm(ins[0], ins[1])
    return _no_bool(ins[0]._dtype, "bmm")


def _mv_rule(spec, ins, params):
    m, v = ins
    if m.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {m.ndim}, {v.ndim}")
    if m.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({m.shape[0]}), mat ({_x(m.shape)}), "
                           f"vec ({v.shape[0]})")
    if m._dtype is not v._dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{v._dtype.torch_name}, {m._dtype.torch_name}, and {v._dtype.torch_name}")
    return _no_bool(m._dtype, "addmv_impl_cpu")


def _dot_rule(spec, ins, params):
    a, b = ins
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
            "respectively")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{a._dtype.torch_name} and {b._dtype.torch_name}")
    return _no_bool(a._dtype, "dot")


def _addmm_shape(ins):
    return _check_mm(ins[1], ins[2], first="mat1")


def _same_shape(shape_of, expand_first=False):
    """addmm_/baddbmm_: the product's shape must be the target's (no broadcasting into it).

    PyTorch checks this before the broadcast of ``self`` for addmm_, after it for baddbmm_.
    """

    def check(target, ins, params):
        res = tuple(shape_of(ins))
        if expand_first:
            _check_expand(target.shape, res, target._dtype)
        if res != tuple(target.shape):
            from .. import errors

            raise errors.InplaceShapeError(
                f"Bad in-place call: input tensor size {list(target.shape)} and output tensor size "
                f"{list(res)} should match", tensor=target, op="addmm")

    return check


def _addmm_rule(spec, ins, params):
    """ATen's ADDMM_META order: the dtypes (self's, then mat1's, against mat2's), then the
    matrices' dims and shapes."""
    for name, t in (("self", ins[0]), ("mat1", ins[1])):
        if t._dtype is not ins[2]._dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{t._dtype.torch_name} and {ins[2]._dtype.torch_name}")
    _addmm_shape(ins)
    return _no_bool(ins[0]._dtype, "addmm_impl_cpu_")


def _baddbmm_shape(ins):
    return _check_bmm(ins[1], ins[2])


def _baddbmm_rule(spec, ins, params):
    _check_added(ins[0], _baddbmm_shape(ins), ins[2]._dtype)
    return _no_bool(ins[0]._dtype, "baddbmm")


# ---- products -------------------------------------------------------------------------------

def _matmul_kernel(xp, a, b, out=None, dt=None):
    return assign(xp, out, xp.matmul(a, b).astype(dt.np, copy=False))


def col_major(t) -> bool:
    """PyTorch's test in ``mm_mat1_backward``/``mm_mat2_backward``: strides ``(1, rows)``.

    A column-major operand (``w.t()`` of a contiguous weight, as in ``linear``) gets its
    gradient computed transposed, ``(a @ b).t()``, so it comes out column-major too: the
    gradient of ``w.t()`` is then a contiguous ``w``-shaped block (AccumulateGrad copies
    it without a transposing copy), and the product is the very GEMM PyTorch runs.
    """
    st = t._strides
    return len(st) == 2 and st[0] == 1 and st[1] == t._shape[0]


def _mat1_grad(g, mat2, cm):
    """``g @ mat2.T``; for a column-major ``mat1``: ``(mat2 @ g.T).T`` (PyTorch's order)."""
    return mat2.mm(g.t()).t() if cm else g.mm(mat2.t())


def _mat2_grad(g, mat1, cm):
    """``mat1.T @ g``; for a column-major ``mat2``: ``(g.T @ mat1).T`` (PyTorch's order)."""
    return g.t().mm(mat1).t() if cm else mat1.t().mm(g)


def _layout_overloads(spec, make_backward, i1, i2, names):
    """The (mat1, mat2) column-major variants of mm/addmm: same op and node name, each with
    the backward for its forward-time layout (PyTorch reads the saved strides, which a
    node here does not keep: the variant is chosen when the op runs)."""
    variants = {}
    for cm in ((False, True), (True, False), (True, True)):
        v = overload(spec, spec.node_name, backward=make_backward(*cm),
                     backward_array=lambda node, grads: (spec.backward_array(node, grads)
                                                         if spec.backward_array else None))
        v.col_major = cm  # the array formula (the base entry's) reads it from node.spec
        variants[cm] = v
    spec.col_major = (False, False)
    spec.layout_variants = variants

    def select(args, kwargs):
        a, b = arg(args, kwargs, i1, names[0]), arg(args, kwargs, i2, names[1])
        if not (getattr(a, "_strides", None) and getattr(b, "_strides", None)):
            return None
        cm = (col_major(a), col_major(b))
        return variants.get(cm)

    spec.select = select
    return spec


def _mm_bw(cm1, cm2):
    def bw(c, g):
        return (_mat1_grad(g, c["mat2"], cm1) if c.needs_input_grad[0] else None,
                _mat2_grad(g, c["self"], cm2) if c.needs_input_grad[1] else None)

    return bw


_layout_overloads(register(OpSpec(
    name="mm", forward=_matmul_kernel, args=("self", "mat2"), dtype_rule=_mm_rule,
    saves=("self", "mat2"), save_if={"self": "mat2", "mat2": "self"},
    backward=_mm_bw(False, False))), _mm_bw, 0, 1, ("self", "mat2"))
register(OpSpec(
    name="bmm", forward=_matmul_kernel, args=("self", "mat2"), dtype_rule=_bmm_rule,
    saves=("self", "mat2"), save_if={"self": "mat2", "mat2": "self"},
    backward=lambda c, g: (g.bmm(c["mat2"].transpose(1, 2)) if c.needs_input_grad[0] else None,
                           c["self"].transpose(1, 2).bmm(g) if c.needs_input_grad[1] else None)))
register(OpSpec(
    name="mv", forward=_matmul_kernel, args=("self", "vec"), dtype_rule=_mv_rule,
    saves=("self", "vec"), save_if={"self": "vec", "vec": "self"},
    backward=lambda c, g: (g.outer(c["vec"]) if c.needs_input_grad[0] else None,
                           c["self"].t().mv(g) if c.needs_input_grad[1] else None)))
register(OpSpec(
    name="dot",
    forward=lambda xp, a, b, out=None, dt=None: assign(xp, out, xp.asarray(xp.dot(a, b), dtype=dt.np)),
    args=("self", "tensor"), dtype_rule=_dot_rule,
    saves=("self", "tensor"), save_if={"self": "tensor", "tensor": "self"},
    backward=lambda c, g: (g * c["tensor"] if c.needs_input_grad[0] else None,
                           g * c["self"] if c.needs_input_grad[1] else None)))


def _scaled_sum(xp, s, prod, dt, beta, alpha):
    """beta * self + alpha * prod; with beta == 0 ``self`` is ignored (NaN included), as PyTorch."""
    if not (dt.is_floating_point or dt.is_complex):
        beta, alpha = int(beta), int(alpha)
    r = prod if alpha == 1 else prod * alpha
    if beta != 0:
        r = r + (s if beta == 1 else s * beta)
    r = xp.asarray(r)
    if r.shape != prod.shape:  # a broadcast view is read-only: the result must own its memory
        r = xp.broadcast_to(r, prod.shape).copy()
    return r.astype(dt.np, copy=False)


def _addmm_fwd(xp, s, a, b, out=None, dt=None, beta=1, alpha=1):
    prod = xp.matmul(a, b)
    if out is None:  # out-of-place: self broadcasts (in place, inplace_check ran already)
        _check_expand(s.shape, prod.shape, dt)
        if beta == 1 and alpha == 1 and prod.dtype == dt.np and s.dtype == dt.np:
            return xp.add(prod, s, out=prod)  # prod + self, into the fresh product (no temporary)
    elif out is s and _expanded(out):
        return _accumulate(xp, out, prod, dt, beta, alpha)
    return assign(xp, out, _scaled_sum(xp, s, prod, dt, beta, alpha))


def _expanded(a) -> bool:
    """Several elements on one memory cell (a stride-0 dimension): PyTorch's internal overlap."""
    return any(st == 0 and n > 1 for n, st in zip(a.shape, a.strides))


def _accumulate(xp, out, prod, dt, beta, alpha):
    """``baddbmm_`` on an expanded target, element by element as PyTorch's CPU kernel does.

    PyTorch allows it (no internal-overlap check) and its loop reads and writes each result
    element in order (``r = r * beta + alpha * acc``), so elements sharing a cell accumulate:
    ``ones(1, 1, 2).expand(2, 2, 2).baddbmm_(b1, b2)`` adds all four products into each cell.
    The same loop here (Python, so only for the small expanded targets such lessons use);
    for large products PyTorch calls BLAS, whose order on aliased memory is unspecified.
    """
    if not (dt.is_floating_point or dt.is_complex):
        beta, alpha = int(beta), int(alpha)
    import itertools

    for idx in itertools.product(*(range(n) for n in out.shape)):
        acc = prod[idx] * alpha
        out[idx] = acc if beta == 0 else out[idx] * beta + acc
    return out


def _addmm_bw(mul, tr, cm1=False, cm2=False):
    def bw(c, g):
        gs = _red(c, 0, g if c["beta"] == 1 else g * c["beta"])
        ga = gb = None
        if c.needs_input_grad[1]:
            if mul == "mm":
                ga = _mat1_grad(g, c["mat2"], cm1)
            else:
                ga = getattr(g, mul)(tr(c["batch2"]))
            ga = ga if c["alpha"] == 1 else ga * c["alpha"]
        if c.needs_input_grad[2]:
            if mul == "mm":
                gb = _mat2_grad(g, c["mat1"], cm2)
            else:
                gb = getattr(tr(c["batch1"]), mul)(g)
            gb = gb if c["alpha"] == 1 else gb * c["alpha"]
        return gs, ga, gb

    return bw


_layout_overloads(register(OpSpec(
    name="addmm", forward=_addmm_fwd, backward=_addmm_bw("mm", None),
    args=("self", "mat1", "mat2"), params={"beta": 1, "alpha": 1}, dtype_rule=_addmm_rule,
    saves=("mat1", "mat2"), save_if={"mat1": "mat2", "mat2": "mat1"}, inplace_check=_same_shape(_addmm_shape),
    inplace=True, paddle_inplace=True)), lambda cm1, cm2: _addmm_bw("mm", None, cm1, cm2),
    1, 2, ("mat1", "mat2"))
register(OpSpec(
    name="baddbmm", forward=_addmm_fwd, backward=_addmm_bw("bmm", lambda t: t.transpose(1, 2)),
    args=("self", "batch1", "batch2"), params={"beta": 1, "alpha": 1}, dtype_rule=_baddbmm_rule,
    saves=("batch1", "batch2"), save_if={"batch1": "batch2", "batch2": "batch1"},
    inplace_check=_same_shape(_baddbmm_shape, expand_first=True), inplace=True, paddle_inplace=True,
    internal_overlap_ok=True))


# ---- trace, tril, triu -------------------------------------------------------------------------

def _trace_rule(spec, ins, params):
    dt = ins[0]._dtype
    if dt is dtypes.bool_:  # (ATen's trace kernel has no bool loop: dispatched before its check)
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if ins[0].ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {ins[0].ndim}")
    return dtypes.int64 if dt.category <= dtypes.INT else dt


def _trace_bw(c, g):
    from .. import creation

    shape, dt, dev = c.input_meta[0]
    return creation.eye(shape[0], shape[1], dtype=dt, device=dev) * g


register(OpSpec(name="trace", forward=lambda xp, a, out=None, dt=None: xp.asarray(xp.trace(a, dtype=dt.np)),
                backward=_trace_bw, dtype_rule=_trace_rule, out=False,  # (torch: no out=)
                grad_writes=2))  # (ATen's trace_backward: zeros, then index_fill_ the diagonal)


def _tri(fname):
    def rule(spec, ins, params):
        if ins[0].ndim < 2:
            raise RuntimeError(f"{fname}: input tensor must have at least 2 dimensions")
        return ins[0]._dtype

    def fwd(xp, a, out=None, dt=None, diagonal=0):
        if out is not None and out is a:  # in place: zero the cut triangle only, as PyTorch's
            n, m = a.shape[-2:]           # kernel (so an expanded target gives torch's values)
            cut = xp.tri(n, m, diagonal - 1, dtype=bool) if fname == "triu" else \
                ~xp.tri(n, m, diagonal, dtype=bool)
            xp.copyto(out, False if out.dtype == bool else 0, where=cut)  # (numpy: no int->bool)
            return out
        return assign(xp, out, getattr(xp, fname)(a, diagonal))

    register(OpSpec(name=fname, forward=fwd, dtype_rule=rule, params={"diagonal": 0},
                    internal_overlap_ok=True,
                    backward=lambda c, g: getattr(g, fname)(c["diagonal"]),
                    inplace=True, paddle_inplace=True))


_tri("tril")
_tri("triu")


# ---- composites: matmul and outer -------------------------------------------------------------

def _should_fold(t1, t2):
    """PyTorch's rule for computing ``batch @ matrix`` as one mm on a folded batch."""
    larger = t1.ndim >= t2.ndim
    if larger:
        shape, strides, small = t1.shape, t1.stride(), t2
    else:  # t2.mT
        shape = t2.shape[:-2] + (t2.shape[-1], t2.shape[-2])
        st = t2.stride()
        strides = st[:-2] + (st[-1], st[-2])
        small = t1
    if not (len(shape) >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if t1.ndim == 2:
        return False
    if math.prod(shape) == 0:
        return True
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _matmul_impl(t1, t2):
    d1, d2 = t1.ndim, t2.ndim
    if d1 == 1 and d2 == 1:
        return t1.dot(t2)
    if d1 == 2 and d2 == 1:
        return t1.mv(t2)
    if d1 == 1 and d2 == 2:
        return t1.unsqueeze(0).mm(t2).squeeze_(0)
    if d1 == 2 and d2 == 2:
        return t1.mm(t2)
    if _should_fold(t1, t2):
        transpose = d2 > d1
        a = t2.mT if transpose else t1
        b = (t1.t() if d1 == 2 else t1) if transpose else t2
        out_shape = tuple(a.shape[:-1])
        folded = a.reshape(math.prod(out_shape), a.shape[-1])
        if b.ndim == 2:
            out = unsafe_view(folded.mm(b), out_shape + (b.shape[1],))
            return out.mT.contiguous() if transpose else out
        return unsafe_view(folded.mv(b), out_shape)
    n = t1.shape[-2] if d1 > 1 else 1
    m1 = t1.shape[-1]
    m2 = t2.shape[-2] if d2 > 1 else t2.shape[0]
    p = t2.shape[-1] if d2 > 1 else 1
    batch1, batch2 = tuple(t1.shape[:max(d1 - 2, 0)]), tuple(t2.shape[:max(d2 - 2, 0)])
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and t1.requires_grad:
            return _matmul_impl(t1.squeeze(0), t2)
        if batch2[0] == 1 and t2.requires_grad:
            return _matmul_impl(t1, t2.squeeze(0))
    batch = layout.broadcast_shapes(batch1, batch2)
    nb = math.prod(batch)
    e1 = t1.expand(batch + (n, m1)).reshape(nb, n, m1)
    if d2 == 1:
        e2 = t2.expand(batch + (m2,)).reshape(nb, m2).unsqueeze(2)
    else:
        e2 = t2.expand(batch + (m2, p)).reshape(nb, m2, p)
    out_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    r = e1.bmm(e2)
    return unsafe_view(r.squeeze(-1) if d2 == 1 else r, out_shape)


def _matmul_out_rule(spec, ins, params):
    a, b = ins
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{dtypes.cpp_name(a._dtype)} != {dtypes.cpp_name(b._dtype)}")
    return a._dtype


# matmul(out=...) writes the plain product into ``out`` through the dispatcher's out= path.
_MATMUL_OUT = OpSpec(name="matmul", forward=_matmul_kernel, args=("self", "other"),
                     dtype_rule=_matmul_out_rule)


def matmul(input, other, *, out=None):
    """``input @ other`` with torch.matmul's 1-D/2-D/batched broadcasting rules."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other if isinstance(input, Tensor) else input).__name__}")
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{input.ndim}D and {other.ndim}D")
    if out is not None:
        with_grad = dispatch._gm.enabled and (input.requires_grad or other.requires_grad)
        if not with_grad:  # shape errors first, with the same texts as without out=
            from ..autograd import no_grad

            with no_grad():
                _matmul_impl(input, other)
        return dispatch.call(_MATMUL_OUT, (input, other), {"out": out})
    return _matmul_impl(input, other)


def outer(input, vec2):
    """Outer product, as PyTorch composes it: ``input.reshape(-1, 1) * vec2``."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return input.reshape(-1, 1) * vec2


register(OpSpec(name="matmul", forward=matmul, kind="composite", args=("self", "other"),
                doc=matmul.__doc__))
register(OpSpec(name="outer", forward=outer, kind="composite", args=("self", "vec2"),
                aliases=("ger",), doc=outer.__doc__))

from . import linalg_norm  # noqa: E402,F401  (matrix norms, svdvals, the public norm front)
