"""Backward formulas on raw backend arrays, for the hottest ops (``OpSpec.backward_array``).

Why: a tensor-level formula such as tanh's ``g * (1 - y*y)`` dispatches three ops, each
making a Tensor, a Storage with its accounting and a version counter, only to throw the
two intermediates away. When the backward is not itself recorded (``create_graph=False``:
grad mode is off while the engine runs), nobody can see those intermediates, so the same
kernels can run on the arrays and only the final gradient becomes a Tensor.

The tensor formula stays the reference: it is what ``create_graph=True``, ``gradcheck``,
hooked nodes and a listening trace run. An array formula here calls the
very same table kernels (``_k("mul")`` is ``OPS["mul"].forward``) in the same order with
the same dtype, so both give bit-identical gradients; ``tests/autograd/test_backward_arrays.py``
checks that per op, with broadcasting and several dtypes.

The lane is taken only when it cannot differ: every gradient and every tensor input share
one real floating dtype and one device object, the gradients one facade (its results are
that facade's tensors, as the tensor formula's would be), no hook (``node._extra`` is None),
no listener. Anything else returns None and the tensor formula runs. Saved
tensors are unpacked through ``node[name]`` as before (version check, saved-tensor hooks).
"""
from __future__ import annotations

from .. import backend, dtypes, hooks
from ..autograd import grad_mode
from ..policy import is_paddle
from ..tensor import Tensor, fresh
from . import reduction
from .elementwise import _POW_PADDLE, gpu_out, ufunc
from .table import OPS

_gm = grad_mode.state
_FLOAT = dtypes.FLOAT
_ndarray = backend.np.ndarray
_np, _CPU = backend.np, backend.CPU.type
_CLASSES = Tensor._policy_classes  # facade policy -> its Tensor class


class _Fallback(Exception):
    """Raised by a formula before it unpacks anything: use the tensor formula instead."""


def _k(name, spec=None):
    spec = OPS[name] if spec is None else spec
    fwd = spec.forward
    if spec.ufunc:  # (OpSpec.ufunc: the forward with its default params is this ufunc call)
        fname, npf = spec.ufunc, getattr(backend.np, spec.ufunc)

        def kernel(xp, dt, *a):
            if xp is backend.np:
                o = _iterator_out(a, dt)
                if o is not None:
                    return npf(*a, out=o, dtype=dt.np, casting="unsafe")
                return ufunc(npf, a, None, dt)
            return ufunc(getattr(xp, fname), a, None, dt)  # (laid out by gpu_out there)
    else:
        elementwise = spec.layout in ("ti", "ti1", "pow")  # (TensorIterator's kernels)

        def kernel(xp, dt, *a):
            if elementwise:  # (a result laid out as TensorIterator's, on any device)
                o = gpu_out(a, dt.np) if xp is not backend.np else _iterator_out(a, dt)
                if o is not None:
                    return fwd(xp, *a, out=o, dt=dt)
            return fwd(xp, *a, out=None, dt=dt)

    return kernel


def _iterator_out(a, dt):
    """On the CPU, where an operand is not C-ordered: the result buffer TensorIterator's
    layout needs (numpy's own choice differs when operands disagree: a gradient through a
    transposed view times a contiguous saved result), else None. Contiguous operands, the
    hot case, cost one flag each."""
    for x in a:
        if x.__class__ is _ndarray and not x.flags.c_contiguous and x.ndim > 1:
            return gpu_out(a, dt.np)
    return None


def _number(v):
    if type(v) is not int and type(v) is not float:
        raise _Fallback
    return v


def _red(node, i, xp, dt, a):
    """The array form of ``elementwise.red``: reduce a broadcast gradient to input ``i``."""
    meta = node.input_meta[i]
    if meta is None or not node.needs_input_grad[i]:
        return None
    shape = meta[0]
    if tuple(a.shape) != shape:
        lead = a.ndim - len(shape)
        if lead and shape:  # (ATen's sum_to: a keepdim sum, viewed to the shape; see _Viewed)
            k = _SUM_TO(xp, dt, a, (1,) * lead + tuple(shape))
            return _Viewed(k if k is not a else k.copy(), shape)
        a = _SUM_TO(xp, dt, a, shape)
    return a


class _Viewed:
    """A reduced gradient that PyTorch's ``sum_to`` returns as a view of its keepdim sum: the
    runner makes it one, so the engine never adds into it in place (GradBuffers._sole)."""

    __slots__ = ("keep", "shape")

    def __init__(self, keep, shape):
        self.keep, self.shape = keep, shape


class _Transposed:
    """A matrix gradient PyTorch computes transposed for a column-major operand,
    ``mat2.mm(g.t()).t()``: a view of the product, as the tensor formula's, so the engine
    never adds into it in place (its base holds the storage: GradBuffers._sole)."""

    __slots__ = ("keep",)

    def __init__(self, keep):
        self.keep = keep


def _plain(a):
    """The array a marker stands for (``maybe_multiply(x.t(), alpha)`` multiplies the view)."""
    return a.keep.T if a.__class__ is _Transposed else a


def _saved(node, name):
    """A saved tensor's array (version-checked) or a saved number: ``OpNode.__getitem__``."""
    v = node[name]
    if isinstance(v, Tensor):
        a = v._arr
        return a if a is not None else v._a
    return v


def runner(formula, index_args=()):
    """Wrap ``formula(node, xp, dt, *grad_arrays) -> arrays`` as ``(node, grads) -> grads|None``.

    ``index_args``: positions of integer index arguments (nll_loss's target), exempt from
    the one-dtype rule (they get no gradient; they must be on the same device).
    """

    def run(node, grads):
        if _gm.enabled or hooks.active:
            return None
        if len(grads) == 1:  # (one output: the loop below for one gradient)
            g = grads[0]
            if g is None:
                return None
            pol, dt, dev, a = g._pol, g._dtype, g._storage.device, g._arr
            arrays = [a if a is not None else g._a]
        else:
            dt = dev = None
            arrays = []
            pol = grads[0]._pol if grads and grads[0] is not None else None
            for g in grads:
                if g is None or g._pol is not pol:
                    return None
                if dt is None:
                    dt, dev = g._dtype, g._storage.device
                elif g._dtype is not dt or g._storage.device is not dev:
                    return None
                a = g._arr
                arrays.append(a if a is not None else g._a)
        if dt is None or dt.category != _FLOAT:
            return None
        _PADDLE[0] = pol is not None and is_paddle(pol)
        for i, meta in enumerate(node.input_meta):  # (devices: one object each, see Storage)
            if meta is not None and (meta[1] is not dt and i not in index_args
                                     or meta[2] is not dev):
                return None
        xp = _np if dev.type is _CPU else backend.xp_of(dev)
        try:
            res = formula(node, xp, dt, *arrays)
        except _Fallback:
            return None
        out = []
        npd, a0, n_in = dt.np, arrays[0], len(arrays)
        for r in res:
            if r is None:
                out.append(None)
            elif r.__class__ is _ndarray and r.dtype is npd and r.flags.c_contiguous and \
                    r is not a0 and (n_in == 1 or all(r is not a for a in arrays)):  # fresh
                out.append(fresh(Tensor if pol is None else _CLASSES.get(pol, Tensor), r,
                                 dt, dev, pol))
            elif r.__class__ is _Viewed:
                out.append(fresh(Tensor if pol is None else _CLASSES.get(pol, Tensor), r.keep,
                                 dt, dev, pol).view(r.shape))
            elif r.__class__ is _Transposed:
                out.append(fresh(Tensor if pol is None else _CLASSES.get(pol, Tensor), r.keep,
                                 dt, dev, pol).t())
            else:
                for a, g in zip(arrays, grads):
                    if r is a:  # the incoming gradient passed on unchanged (add): the same tensor
                        out.append(g)
                        break
                else:
                    if not isinstance(r, xp.ndarray):
                        r = xp.asarray(r)
                    out.append(Tensor._wrap(r, dev, pol))
        return tuple(out)

    run.formula = formula
    return run


_SUM_TO = None  # set below, once the table is complete
# whether the gradients being run are a Paddle tensor's: sums then add in Paddle's order, as
# the tensor formulas' (the sum ops' select picks Paddle's kernel for a Paddle tensor)
_PADDLE = [False]
_MUL = _k("mul")


def _alpha_g(node, xp, dt, g, sign):
    a = _number(node.params["alpha"]) * sign
    return g if a == 1 else _MUL(xp, dt, g, a)


def _add(node, xp, dt, g):
    return (_red(node, 0, xp, dt, g), _red(node, 1, xp, dt, _alpha_g(node, xp, dt, g, 1))
            if node.needs_input_grad[1] else None)


def _sub(node, xp, dt, g):
    return (_red(node, 0, xp, dt, g), _red(node, 1, xp, dt, _alpha_g(node, xp, dt, g, -1))
            if node.needs_input_grad[1] else None)


def _mul(node, xp, dt, g):
    n = node.needs_input_grad
    return (_red(node, 0, xp, dt, _MUL(xp, dt, g, _saved(node, "other"))) if n[0] else None,
            _red(node, 1, xp, dt, _MUL(xp, dt, g, _saved(node, "self"))) if n[1] else None)


def _div(node, xp, dt, g):
    if node.params["rounding_mode"] is not None:
        raise _Fallback
    div = _DIV
    gx = _red(node, 0, xp, dt, div(xp, dt, g, _saved(node, "other")))
    gy = None
    if node.needs_input_grad[1]:
        o = _saved(node, "other")
        num = div(xp, dt, _MUL(xp, dt, _NEG(xp, dt, g), _saved(node, "self")),
                  _MUL(xp, dt, o, o))
        gy = _red(node, 1, xp, dt, num)
    return (gx, gy)


def _unary(fn):
    def formula(node, xp, dt, g):
        return (fn(node, xp, dt, g),)

    return formula


def _pow_scalar(node, xp, dt, g):  # x ** e: g * e * x.pow(e - 1)
    e = _number(node.params["exponent"])
    if e == 0:  # torch's zeros_like (a NaN in g stays out)
        return (_red(node, 0, xp, dt, xp.zeros(g.shape, dtype=dt.np)), None)
    t = _MUL(xp, dt, _POW(xp, dt, _saved(node, "self"), e - 1), e)  # torch's grouping (and
    return (_red(node, 0, xp, dt, _MUL(xp, dt, g, t)), None)          # the saved input's layout)


def _mat1_grad(xp, dt, g, mat2, cm):  # linalg._mat1_grad on arrays
    return _Transposed(_MM(xp, dt, mat2, g.T)) if cm else _MM(xp, dt, g, mat2.T)


def _mat2_grad(xp, dt, g, mat1, cm):  # linalg._mat2_grad on arrays
    return _Transposed(_MM(xp, dt, g.T, mat1)) if cm else _MM(xp, dt, mat1.T, g)


def _mm(node, xp, dt, g):
    n = node.needs_input_grad
    cm1, cm2 = node.spec.col_major
    return (_mat1_grad(xp, dt, g, _saved(node, "mat2"), cm1) if n[0] else None,
            _mat2_grad(xp, dt, g, _saved(node, "self"), cm2) if n[1] else None)


def _addmm(node, xp, dt, g):
    beta, alpha = _number(node.params["beta"]), _number(node.params["alpha"])
    n = node.needs_input_grad
    cm1, cm2 = node.spec.col_major
    gs = _red(node, 0, xp, dt, g if beta == 1 else _MUL(xp, dt, g, beta))
    ga = gb = None
    if n[1]:
        ga = _mat1_grad(xp, dt, g, _saved(node, "mat2"), cm1)
        ga = ga if alpha == 1 else _MUL(xp, dt, _plain(ga), alpha)
    if n[2]:
        gb = _mat2_grad(xp, dt, g, _saved(node, "mat1"), cm2)
        gb = gb if alpha == 1 else _MUL(xp, dt, _plain(gb), alpha)
    return (gs, ga, gb)


def _log_softmax(node, xp, dt, g):  # g - exp(y) * g.sum(dim, keepdim=True)
    if not node.input_meta[0][0]:
        raise _Fallback  # 0-dim: the tensor formula's g * 0
    y = _saved(node, "result")
    s = _SUM(xp, dt, g, dim=node.params["dim"], keepdim=True)
    return (_SUB(xp, dt, g, _MUL(xp, dt, _EXP(xp, dt, y), s)),)


_SAME_WIDTH_INT = {2: "int16", 4: "int32", 8: "int64"}


def _select(xp, mask, g, invert=False):
    """``where(mask, g, 0)`` (``invert``: ``where(mask, 0, g)``; +0.0 and no NaN where 0 is
    picked, as torch's threshold_backward) at the speed of a multiply: numpy's where is ~10x
    slower than a ufunc on this, so the float bits are ANDed with the mask widened to
    all-ones/all-zeros integers (the same bits)."""
    it = _SAME_WIDTH_INT.get(g.dtype.itemsize)
    if xp is not _np or it is None:
        return xp.where(mask, 0, g) if invert else xp.where(mask, g, 0)
    m = _np.asarray(mask).astype(it)  # (a 0-dim mask comes as a numpy bool scalar)
    if invert:
        _np.subtract(m, 1, out=m)  # 1 -> none, 0 -> all bits set
    else:
        _np.negative(m, out=m)  # 1 -> all bits set, 0 -> none
    _np.bitwise_and(m, g.view(it), out=m)
    return m.view(g.dtype)


def _nll_loss(node, xp, dt, g):
    """nn_ops._nll_bw on arrays: the weights of the kept targets, scaled, scattered into zeros."""
    shape = node.input_meta[0][0]
    if len(shape) not in (1, 2):
        raise _Fallback
    reduction, ignore = node.params["reduction"], node.params["ignore_index"]
    x, t = _saved(node, "self"), _saved(node, "target")
    w = _saved(node, "weight") if "weight" in node.saved else None
    if x.ndim == 1:
        x, t = x[None], t.reshape(1)
    keep = t != ignore
    tt = xp.where(keep, t, 0)
    wt = _MUL(xp, dt, w[tt] if w is not None else xp.ones(tt.shape, dtype=dt.np), keep)
    scale = _NEG(xp, dt, wt)
    if reduction == "mean":
        scale = _DIV(xp, dt, scale, _SUM(xp, dt, wt))
    gw = _MUL(xp, dt, g.reshape(scale.shape) if reduction == "none" else g, scale)
    gx = xp.zeros(x.shape, dtype=dt.np)
    gx[xp.arange(len(tt)), tt] = gw  # (one cell per row: plain fancy indexing, no index arrays)
    return (gx.reshape(shape), None, None)


def _install():
    global _SUM_TO, _DIV, _NEG, _POW, _MM, _SUB, _EXP, _SUM
    _SUM_TO = (lambda f: lambda xp, dt, a, shape: f(xp, a, out=None, dt=dt, size=shape,
                                                    paddle=_PADDLE[0]))(OPS["sum_to_size"].forward)
    _DIV, _NEG, _MM = _k("div"), _k("neg"), _k("mm")
    _POW = (lambda f, pf: lambda xp, dt, *a: (pf if _PADDLE[0] else f)(xp, dt, *a))(
        _k("pow"), _k("pow", _POW_PADDLE))  # (Paddle's pow is pow: no sqrt, x*x*x)
    _SUB, _EXP = _k("sub"), _k("exp")
    _SUM = (lambda f, pf: lambda xp, dt, a, **p: (pf if _PADDLE[0] else f)(
        xp, a, out=None, dt=dt, **p))(OPS["sum"].forward, reduction._paddle_sum_fwd)
    mul, sub, le = _MUL, _SUB, _k("le")  # (1 - y: sub(1, y), the ufunc call rsub(y, 1) makes)
    sin, cos = _k("sin"), _k("cos")
    r = _saved
    formulas = {
        "add": _add, "sub": _sub, "mul": _mul, "div": _div, "pow": _pow_scalar, "mm": _mm,
        "neg": _unary(lambda c, xp, dt, g: _NEG(xp, dt, g)),
        "exp": _unary(lambda c, xp, dt, g: mul(xp, dt, g, r(c, "result"))),
        "log": _unary(lambda c, xp, dt, g: _DIV(xp, dt, g, r(c, "self"))),
        "sin": _unary(lambda c, xp, dt, g: mul(xp, dt, g, cos(xp, dt, r(c, "self")))),
        "cos": _unary(lambda c, xp, dt, g: mul(xp, dt, _NEG(xp, dt, g), sin(xp, dt, r(c, "self")))),
        "tanh": _unary(lambda c, xp, dt, g: (lambda y: mul(xp, dt, g, sub(
            xp, dt, 1, mul(xp, dt, y, y))))(r(c, "result"))),  # (the result unpacked once)
        "sigmoid": _unary(lambda c, xp, dt, g: (lambda y: mul(xp, dt, mul(xp, dt, g, y), sub(
            xp, dt, 1, y)))(r(c, "result"))),
        # threshold_backward selects (a NaN or -0.0 of g where the result is 0 stays out)
        "relu": _unary(lambda c, xp, dt, g: _select(xp, le(xp, dtypes.bool_, r(c, "result"), 0), g,
                                                    invert=True)),
    }
    formulas["addmm"] = _addmm
    formulas["log_softmax"] = _log_softmax
    for name, f in formulas.items():
        OPS[name].backward_array = runner(f)  # mm/addmm's column-major variants call it too
    OPS["_nll_loss"].backward_array = runner(_nll_loss, index_args=(1,))


_DIV = _NEG = _POW = _MM = _SUB = _EXP = _SUM = None
_install()
