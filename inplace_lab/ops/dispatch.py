"""The one dispatcher: the path every op call walks.

    call(spec, args, kwargs)            out-of-place (and out=)
    call_inplace(spec, args, kwargs)    x.op_(...)
    call_view(spec, args, kwargs)       views: new metadata on the same storage

    1. resolve: bind arguments, device, result dtype, broadcast shape
    2. check:   policy rules (leaf, view of leaf, no_grad view, multi-output view) and
                in-place rules (broadcast, cast, internal and partial overlap);
                everything raises before a single element is written
    3. save:    clone-before-overwrite when the in-place op's backward needs its input
    4. run:     the kernel, writing into the existing buffer for in-place and out=
    5. record:  version bump; graph node (or CopySlices rebase for a view)
    6. emit:    one event to the hooks bus, only if someone listens
"""
from __future__ import annotations

import numbers

import weakref

from .. import backend, dtypes, errors, hooks, layout, policy
from ..autograd import grad_mode
from ..autograd import views as _views
from ..autograd.node import edge_of, node_class
from ..autograd.saved import SavedTensor
from ..scalars import I64_MIN as _I64_MIN, U64_END as _U64_END, int_overflow
from ..version import InferenceCounter, alias_counter
from .table import OPS, RESIZED_LOSSES
from ..storage import Storage
from ..tensor import Tensor, _c_strides, blank, fresh

_gm = grad_mode.state


# ---- 1. resolve ---------------------------------------------------------------------------

def bind(spec, args, kwargs):
    """Split a call into (inputs per ``spec.args``, params dict, out)."""
    n = spec.n_args
    if not kwargs and len(args) == n:
        return list(args), spec.params, None
    ins = list(args[:n])
    extra = args[n:]
    kwargs = dict(kwargs)
    out = kwargs.pop("out", None)
    while len(ins) < n:
        key = spec.args[len(ins)]
        if key in kwargs:
            ins.append(kwargs.pop(key))
        elif key == "self" and "input" in kwargs:
            ins.append(kwargs.pop("input"))
        elif key == "self" and "x" in kwargs:
            ins.append(kwargs.pop("x"))
        elif key != "self" and "y" in kwargs and len(ins) == 1:
            ins.append(kwargs.pop("y"))
        elif key in spec.optional_args:
            ins.append(None)
        else:
            raise TypeError(f"{spec.name}() missing required argument '{key}'")
    if len(extra) > len(spec.param_names):
        raise TypeError(f"{spec.name}() takes {n + len(spec.param_names)} positional arguments "
                        f"but {len(args)} were given")
    params = dict(spec.params)
    for k, v in zip(spec.param_names, extra):
        params[k] = v
    for k, v in kwargs.items():
        if k not in params:
            if k == "name":  # Paddle's name= argument: accepted and ignored
                continue
            raise TypeError(f"{spec.name}() got an unexpected keyword argument '{k}'")
        params[k] = v
    return ins, params, out


def device_of(spec, ins):
    """The common device of the tensor inputs (0-dim CPU tensors may join a GPU op)."""
    dev = None
    pol = None
    for x in ins:
        if isinstance(x, Tensor):
            d = x._storage.device
            if x._policy is not None:
                if pol is not None and pol != x._policy:
                    raise errors.FacadeMismatchError(
                        f"{spec.name}(): cannot mix a tensor of the '{pol}' facade with one of the "
                        f"'{x._policy}' facade in one op; convert one of them explicitly first",
                        op=spec.name)
                pol = x._policy
            if dev is None:
                dev = d
            elif d is not dev and d != dev:
                if x.ndim == 0 and d.type == "cpu":
                    continue
                raise errors.DeviceMismatchError(
                    f"Expected all tensors to be on the same device, but found at least two "
                    f"devices, {dev} and {d}!", op=spec.name)
    return dev or backend.CPU, pol


def result_dtype(spec, ins, params):
    rule = spec.dtype_rule
    if callable(rule):
        return rule(spec, ins, params)
    if rule == "self":
        return ins[0]._dtype
    dt = _common_dtype(ins)  # the usual case: tensors of one dtype (and plain numbers)
    if dt is not None:
        if rule == "float" and dt.category < dtypes.FLOAT:
            return dtypes.get_default_dtype()
        return dt
    dim, zero, scalars = [], [], []
    for x in ins:
        if isinstance(x, Tensor):
            (dim if x._shape else zero).append(x._dtype)
        elif x is not None:
            scalars.append(x)
    dt = dtypes.result_type_of(dim, zero, scalars)
    if rule == "float" and dt.category < dtypes.FLOAT:
        return dtypes.get_default_dtype()
    return dt


def _common_dtype(ins):
    """The result dtype when promotion has nothing to decide, else None.

    That is: the tensors share one dtype, and the Python numbers cannot lift its
    category (an int next to an integer or float tensor, a float next to a float one),
    which is what ``result_type_of``'s three tiers answer in that case.
    """
    dt = None
    lift = dtypes.BOOL
    for x in ins:
        if isinstance(x, Tensor):
            if dt is not None and x._dtype is not dt:
                return None
            dt = x._dtype
        elif type(x) is int:
            lift = max(lift, dtypes.INT)
        elif type(x) is float:
            lift = dtypes.FLOAT
        else:
            return None
    if dt is None or dt.category < lift:
        return None
    return dt


def arrays(ins, dev):
    """The inputs' backend arrays for a kernel on ``dev``: a 0-dim CPU tensor that joined a
    real-GPU op (``device_of``) crosses to the GPU first (cupy takes no numpy operand)."""
    out = [x._a if isinstance(x, Tensor) else x for x in ins]
    if dev.type != "cpu" and backend._CUPY_DEVICES:
        out = [backend.to_device_array(a, dev) if isinstance(a, backend.np.ndarray) else a
               for a in out]
    return out


def check_int_scalars(spec, ins, params, inplace=False):
    """PyTorch's Scalar conversion of a Python int: int64 or uint64, else OverflowError.

    Checked for the arguments that take a tensor or a number (the differentiable ones) and
    the alpha/beta/value params; Paddle converts any int, so only under PyTorch's rules.
    """
    for i in spec.edge_args:
        if i < len(ins):
            v = ins[i]
            if v.__class__ is int and not _I64_MIN <= v < _U64_END:
                _int_overflow(v, ins)
    for k in _SCALAR_PARAMS:
        v = params.get(k)
        if v.__class__ is int:
            if not _I64_MIN <= v < _U64_END:
                _int_overflow(v, ins)
        elif k in params and v.__class__ is not float and not isinstance(v, (bool, complex)):
            _scalar_param(spec.name + "_" * inplace, ins, params, k, v)


def _scalar_param(name, ins, params, k, v):
    """PyTorch's ``Scalar alpha`` (beta, value): a number, or a 0-dim tensor taken as its
    number; anything else is the parser's TypeError (Paddle's facade: not checked)."""
    t = next((x for x in ins if isinstance(x, Tensor)), None)
    if t is not None and policy.is_paddle(policy.policy_of(t)):
        return
    if isinstance(v, Tensor) and not v._shape:
        params[k] = v.item()
    elif not isinstance(v, numbers.Number) or isinstance(v, Tensor):
        kind = "Tensor" if isinstance(v, Tensor) else type(v).__name__
        raise TypeError(f"{name}(): argument '{k}' must be Number, not {kind}")


def _int_overflow(v, ins):
    t = next((x for x in ins if isinstance(x, Tensor)), None)
    if t is not None and policy.is_paddle(policy.policy_of(t)):
        return
    raise int_overflow(v)


_SCALAR_PARAMS = ("alpha", "beta", "value")


def _resolve_plain(spec, args):
    """``(device, result dtype, arrays)`` for the common call, else None (take the full path).

    The common call: every argument given positionally (no keywords, no ``out=``, no
    params), its tensors plain (no facade policy) of one dtype on one device object, its
    other arguments Python ints/floats that cannot lift that dtype's category. Then
    ``bind`` has nothing to split, ``device_of`` nothing to check and promotion nothing
    to decide, so one pass over the arguments gives the same answers; any other call
    (mixed dtypes or devices, a 0-dim CPU tensor next to a GPU one, facades, lists ...)
    returns None here and walks ``bind``/``device_of``/``result_dtype`` as before.
    """
    if len(args) != spec.n_args:
        return None
    dt = dev = None
    lift = _BOOL
    arrays = []
    for x in args:
        if isinstance(x, Tensor):
            if x._pol is not None:
                return None
            d = x._storage.device
            if dt is None:
                dt, dev = x._dtype, d
            elif x._dtype is not dt or d is not dev:
                return None
            a = x._arr
            arrays.append(a if a is not None else x._a)
        elif type(x) is float:
            lift = _FLOAT
            arrays.append(x)
        elif type(x) is int:
            if lift < _INT:
                lift = _INT
            if not _I64_MIN <= x < _U64_END:  # (the full path says what PyTorch says)
                return None
            arrays.append(x)
        else:
            return None
    if dt is None or dt.category < lift:
        return None
    rule = spec.dtype_rule
    if rule.__class__ is str:
        if rule == "float" and dt.category < _FLOAT:
            dt = dtypes.get_default_dtype()
        # "self": the first argument's dtype, which is dt; "promote": dt
        elif rule == "self" and not isinstance(args[0], Tensor):
            return None
    else:  # a rule function may say what it answers for one dtype (``plain_dtype``)
        plain = getattr(rule, "plain_dtype", None)
        dt = plain(dt) if plain is not None else result_dtype(spec, list(args), spec.params)
        if dt is None:
            return None
    return dev, dt, arrays


_BOOL, _INT, _FLOAT = dtypes.BOOL, dtypes.INT, dtypes.FLOAT


# ---- 2. check -----------------------------------------------------------------------------

def _check_autograd_inplace(spec, target, ins, pol, setitem):
    """PyTorch's check_inplace: only when grad mode is on and some input requires grad."""
    if _gm.enabled and any(isinstance(x, Tensor) and x._requires_grad for x in ins):
        policy.check_autograd_inplace(spec.name, target, pol, setitem=setitem)


def check_inplace(spec, target, ins, dt, *, setitem=False, params=None, autograd_checked=False):
    """Everything that can make an in-place write illegal; raises before any write.

    ``autograd_checked``: the caller made autograd's checks already (before the dtype rule)."""
    pol = policy.policy_of(target)
    if not autograd_checked:
        _check_autograd_inplace(spec, target, ins, pol, setitem)
    _op_cast_error(spec, ins, dt, target, True)  # (the op's own words, before the shapes)
    if spec.cpp_cast_error and not dtypes.can_cast(dt, target._dtype):
        raise _cast_refusal(spec, dt, target, cpp=True)  # (clamp's meta: before the iterator)
    if pol == "paddle-legacy" and policy.legacy_refuses(spec, ins):
        raise policy.legacy_error(spec, target)
    shape = target._shape
    others = [x for x in ins[1:] if isinstance(x, Tensor)]
    ov = spec.overlap_inputs
    checked = others if ov is True or ov and ov(target, ins, params if params is not None else
                                                 spec.params) else []
    # A C-contiguous target shares no cell with itself; with no input on its storage there is
    # no overlap to look for (the common write: both checks below, skipped in one test)
    st = target._storage
    simple = target._strides == _c_strides(shape) and all(x._storage is not st for x in checked)
    # TensorIterator's order: the overlaps it can tell (internal, then with an input), then
    # the shapes, then the dtypes (``t = x[0]; t += x`` is an overlap error, not a shape one)
    if not simple:
        check_overlap(target, checked, internal_ok=spec.internal_overlap_ok, as_torch=True)
    if spec.inplace_check is not None:  # not elementwise (index_put_, scatter_...): own shape rules
        spec.inplace_check(target, ins, params if params is not None else spec.params)
    elif others and any(x._shape != shape for x in others):
        bshape = layout.broadcast_shapes(shape, *(x._shape for x in others))
        if bshape != shape:
            raise errors.InplaceShapeError(
                f"output with shape {list(shape)} doesn't match the broadcast shape {list(bshape)}",
                tensor=target, op=spec.name)
    if not dtypes.can_cast(dt, target._dtype):
        raise _cast_refusal(spec, dt, target, cpp=spec.cpp_cast_error)
    if simple:
        return
    check_overlap(target, checked, internal_ok=spec.internal_overlap_ok)  # (the rest: cells)
    if spec.expanded_warning and not policy.is_paddle(pol) and \
            layout.has_broadcast_overlap(shape, target._strides):
        _warn_expanded(spec, ins, params if params is not None else spec.params)


def _cast_refusal(spec, dt, target, cpp=False):
    """TensorIterator's refusal of a result type the written tensor cannot hold (``cpp``:
    the ops whose message names the C++ type, "long int")."""
    name = target._dtype.torch_name
    return errors.InplaceCastError(
        f"result type {dt.torch_name} can't be cast to the desired output type "
        f"{dtypes.CPP_NAMES.get(name, name) if cpp else name}", tensor=target, op=spec.name)


def _op_cast_error(spec, ins, dt, target, inplace) -> None:
    """An op's own cast refusal (``OpSpec.cast_error``: ldexp_, float_power_, out= of all...)."""
    if spec.cast_error is not None:
        msg = spec.cast_error(ins, dt, target._dtype, inplace)
        if msg:
            raise errors.InplaceCastError(msg, tensor=target, op=spec.name)


def _warn_expanded(spec, ins, params):
    """PyTorch's kernels warn when they write an expanded tensor; index_put_ with one bool mask
    and a single value goes on to masked_fill_, which warns too (``x[mask] = 1.``)."""
    import warnings

    specs = [spec]
    if spec.name == "index_put" and not params.get("accumulate"):
        idx = [i for i in (ins[1] or ()) if i is not None]
        v = ins[2]
        if len(idx) == 1 and isinstance(idx[0], Tensor) and idx[0]._dtype in (
                dtypes.bool_, dtypes.uint8) and (not isinstance(v, Tensor) or v.numel() == 1):
            specs.append(OPS["masked_fill"])
    for s in specs:
        warnings.warn(f"Use of {s.name}_ on expanded tensors is deprecated. Please clone() the "
                      "tensor before performing this operation. This also applies to advanced "
                      f"indexing e.g. {s.expanded_warning}", UserWarning, stacklevel=5)


def check_broadcast(ins):
    """Raise PyTorch's RuntimeError if the tensor arguments' shapes do not broadcast (for two
    Paddle tensors, Paddle's ValueError and words)."""
    tensors = [x for x in ins if isinstance(x, Tensor)]
    if len(tensors) == 2 and tensors[0]._pol is not None and policy.is_paddle(tensors[0]._pol):
        policy.check_paddle_broadcast(tensors[0]._shape, tensors[1]._shape)  # (Paddle's words)
    if len(tensors) > 1:
        layout.broadcast_shapes(*[x._shape for x in tensors])


def check_overlap(target, others, internal_ok=False, *, as_torch=False):
    """Refuse a write whose elements share cells (internal overlap) or whose inputs share some,
    not all, of its cells (partial overlap), before anything is written.

    ``as_torch``: only what PyTorch's ``has_internal_overlap``/``get_overlap_status`` can tell
    (a stride-0 dim; two non-overlapping-and-dense tensors), what it checks before shapes and
    dtypes. Without it the cells themselves are compared: inplace_lab also refuses the
    overlaps PyTorch calls "too hard" and lets through (``x[:] = x[:, :1]``), after PyTorch's
    own checks have had their say.
    """
    if not internal_ok and layout.numel(target._shape) > 1 and (
            layout.has_broadcast_overlap if as_torch else layout.has_internal_overlap)(
                target._shape, target._strides):
        raise errors.InternalOverlapError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.",
            tensor=target)
    geo = (target._shape, target._strides, target._offset)
    for x in others:
        if x._storage is target._storage and x is not target:
            xgeo = (x._shape, x._strides, x._offset)
            kind = (layout.overlap_kind_as_torch if as_torch else layout.overlap_kind)(geo, xgeo)
            if kind == "partial":
                raise errors.PartialOverlapError(
                    "unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation.", tensor=target, other=x)


# ---- 5. record ----------------------------------------------------------------------------

def refuse_inference_saves(spec, ins, inplace=False) -> None:
    """PyTorch's autograd kernel saves the inputs its node needs before the op's kernel runs,
    so an inference tensor among them is refused before any shape error of the op. Called
    where a check of ours fails first; on success the save itself refuses. (An in-place op
    saves a clone of its target, ``original_self``: a normal tensor, never refused.)"""
    if not policy.is_paddle(device_of(spec, ins)[1]) and _needs_grad(spec, ins):
        for _, i, cond in spec.input_saves:
            if inplace and i == 0:
                continue
            x = ins[i] if i < len(ins) else None
            if isinstance(x, Tensor) and x._vc.inference and (
                    cond < 0 or isinstance(ins[cond], Tensor) and ins[cond]._requires_grad):
                from ..autograd.saved import _refuse_inference

                _refuse_inference(x, spec.node_name)


def _needs_grad(spec, ins):
    """Grad mode on, a differentiable op, an input that requires grad, and PyTorch's rule for
    inference tensors: an op whose tensors are all inference tensors is not recorded (they
    skip autograd), unless a number becomes a normal tensor argument (``a * 2``)."""
    if not _gm.enabled or spec.backward is None:
        return False
    rg = normal = False
    for i, x in enumerate(ins):
        if isinstance(x, Tensor):
            if x._requires_grad:
                rg = True
            if not x._vc.inference:
                normal = True
        elif x is not None and spec.scalar_edges and i in spec.edge_args:
            normal = True
    return rg and normal


def make_node(spec, ins, params, pol):
    """A graph node with an edge per differentiable argument, as PyTorch lays them out.

    (``params`` is shared with the node, not copied, unless numbers join it: nothing
    writes a node's params.)
    """
    edge_args = spec.edge_args
    cls = spec.node_cls
    if cls is None:
        cls = spec.node_cls = node_class(spec)
    if len(ins) == 2 and edge_args == _BOTH:  # binary arithmetic, both tensors: one pass
        x, y = ins
        if isinstance(x, Tensor) and isinstance(y, Tensor):
            rx, ry = x._requires_grad, y._requires_grad
            edges = (_edge(x) if rx else _NO_EDGE, _edge(y) if ry else _NO_EDGE)
            mx = (x._shape, x._dtype, x._storage.device)
            my = (y._shape, y._dtype, y._storage.device)
            meta = (_METAS.setdefault(mx, mx), _METAS.setdefault(my, my))
            # (torch's should_compute_output is the edge's validity: a view made under no_grad
            # requires grad but has no edge, so nothing is saved for its gradient)
            return cls(spec, edges, params, _METAS.setdefault(meta, meta),
                       _NEEDS[edges[0][0] is not None, edges[1][0] is not None], edge_args, pol)
    meta, needs, edges, numbers = [], [], [], None
    keep = edge_args if len(ins) == spec.n_args else None  # None: worked out below
    for i, x in enumerate(ins):
        if isinstance(x, Tensor):
            m = (x._shape, x._dtype, x._storage.device)
            meta.append(_METAS.setdefault(m, m))
            rg = x._requires_grad
            if i in edge_args:
                e = _edge(x) if rg else _NO_EDGE
                edges.append(e)
                rg = e[0] is not None  # (see above: the edge's validity)
            needs.append(rg)
        else:  # a number (or None): no metadata, no grad, kept with the params
            meta.append(None)
            needs.append(False)
            if numbers is None:
                numbers = {}
            numbers[spec.args[i]] = x
            if i in edge_args:
                if spec.scalar_edges:
                    edges.append(_NO_EDGE)
                else:
                    keep = None
    if keep is None:  # an argument without an edge: which ones have one
        keep = tuple([i for i in edge_args if i < len(ins) and
                      (meta[i] is not None or spec.scalar_edges)])
    return cls(spec, tuple(edges), {**params, **numbers} if numbers else params, tuple(meta),
               tuple(needs), keep, pol)


_NO_EDGE = (None, 0)
_BOTH = (0, 1)
_NEEDS = {(a, b): (a, b) for a in (False, True) for b in (False, True)}
# Nodes' (shape, dtype, device) triples, and the pairs of them, one object per distinct value:
# a program makes many nodes of few shapes, and each tuple a node keeps alive would be one
# more object for the cyclic GC to count and walk (a recorded op kept ~6 tuples alive, 3 now).
# (``record`` keeps the table small: a program with ever new shapes clears it now and then.)
_METAS: dict = {}


def _edge(x):
    """``edge_of`` for a tensor that requires grad (a plain non-view result: read directly)."""
    gf = x._grad_fn
    if gf is not None and x._view_meta is None:
        return (gf, x._output_nr)
    return edge_of(x)


def save_inputs(node, spec, ins, pol, *, replace=None, inplace=False):
    """Save what the backward needs from the inputs (``replace``: clone for in-place self).

    PyTorch saves an input only when the other input's gradient needs it (``x * c`` keeps c,
    not x, when c needs no grad); Paddle's out-of-place nodes keep them all (MultiplyGradNode
    keeps x and y), so a later in-place write to either breaks a Paddle backward."""
    for name, i, cond in spec.input_saves:  # (results are saved after the run)
        if cond >= 0 and not node.needs_input_grad[cond] and (
                inplace or pol is None or not policy.is_paddle(pol) or
                not isinstance(ins[cond], Tensor)):  # (x * 2 is Paddle's scale: keeps nothing)
            continue
        if (spec.name, name) in policy.PADDLE_UNSAVED and pol is not None and \
                policy.is_paddle(pol):
            continue
        x = ins[i]
        if isinstance(x, Tensor):
            if replace is not None and i == 0:
                x = replace
            elif pol is not None and policy.is_paddle(pol) and policy.paddle_saves_copy(spec, x):
                x = _clone_before_overwrite(x)  # (Paddle: a kernel with no stride support
                #                                  saves the contiguous copy it ran on)
            node.saved[name] = SavedTensor(x, spec.node_name, is_output=False, policy=pol, name=name)
        elif isinstance(x, (tuple, list)):  # a list of tensors (index's indices): each one saved
            for k, e in enumerate(x):
                if isinstance(e, Tensor):
                    node.saved[f"{name}[{k}]"] = SavedTensor(e, spec.node_name, is_output=False,
                                                             policy=pol, name=f"{name}[{k}]")


def save_result(node, spec, result, pol):
    if spec.saves_result:
        node.saved["result"] = SavedTensor(result, spec.node_name, is_output=True, policy=pol,
                                           name="result")


def set_history(t, node, output_nr=0):
    t._grad_fn = node
    t._output_nr = output_nr
    t._requires_grad = True
    node.output_meta.append((t._shape, t._dtype, t._storage.device))


# ---- the three paths ------------------------------------------------------------------------

def call(spec, args, kwargs):
    """An out-of-place op (or one with ``out=``)."""
    if spec.kind == "composite":  # composed of table ops (matmul: reshape + mm/bmm + view)
        cc = policy.core_calls
        x = args[0] if args else None
        if not cc[0] and getattr(x, "_pol", None) is not None and policy.is_paddle(x._pol):
            policy.check_paddle_kernel(spec, x)  # (Paddle's kernel for the whole composite)
        cc[0] += 1  # (its method calls have PyTorch's signatures, whatever the tensors' facade)
        try:
            return spec.forward(*args, **kwargs)
        finally:
            cc[0] -= 1
    if spec.select is not None:  # overloads: x.sum() is SumBackward0, x.sum(0) SumBackward1
        spec = spec.select(args, kwargs) or spec
    plain = None if kwargs else _resolve_plain(spec, args)
    if plain is not None:  # the fast lane: same answers as the four steps below, one pass
        ins, params = list(args), spec.params
        dev, dt, arrs = plain
        pol = None
    else:
        ins, params, out = bind(spec, args, kwargs)
        check_int_scalars(spec, ins, params)
        if out is not None:
            return _call_out(spec, ins, params, out)
        dev, pol = device_of(spec, ins)
        promoted = False  # (the user's call of a Paddle tensor op that promotes its operands)
        if pol is not None and policy.is_paddle(pol) and not policy.core_calls[0]:
            promoted = len(ins) > 1 and spec.name in policy.PADDLE_PROMOTED
            if promoted:
                policy.check_paddle_promotion(ins[0], ins[1], op=spec.name)
            policy.check_paddle_kernel(spec, ins[0], other=ins[1] if len(ins) > 1 else None)
        dt = result_dtype(spec, ins, params)
        if promoted:
            dt, ins = policy.paddle_promote(spec.name, ins, dt)
        arrs = arrays(ins, dev)
    xp = backend.xp_of(dev)
    try:
        res = spec.forward(xp, *arrs, out=None, dt=dt, **params)
    except ValueError:
        refuse_inference_saves(spec, ins)  # (PyTorch saves, and refuses, before the kernel)
        check_broadcast(ins)  # numpy's broadcast error, in PyTorch's words
        raise
    if spec.outputs:
        return _call_multi(spec, ins, params, pol, dev, res)
    if spec.saved_results:
        return _call_saving(spec, ins, params, pol, dev, res)
    result = _result_tensor(spec, xp, res, ins, params, dev, pol)
    if _needs_grad(spec, ins):
        record(spec, ins, params, pol, result)
    if hooks.active:
        hooks.emit_op(spec, "normal", ins, result)
    return result


def _result_tensor(spec, xp, res, ins, params, dev, pol):
    """An op's kernel result as its fresh tensor: never aliasing an input, laid out as
    PyTorch lays this op's result out (``OpSpec.layout``)."""
    if not isinstance(res, xp.ndarray):
        res = xp.asarray(res)
    elif res.base is not None:
        res = _own(res, ins)
    strides = None
    if spec.layout and res.ndim:
        res, strides = result_layout(spec, xp, res, ins, params)
    elif not res.ndim and spec.name in RESIZED_LOSSES and \
            params.get("reduction") in ("mean", "sum") and not policy.is_paddle(pol):
        n = layout.numel(layout.broadcast_shapes(*[x._shape for x in ins
                                                   if isinstance(x, Tensor)]))
        buf = xp.empty(max(n, 1), dtype=res.dtype)  # (torch's output, resized to 0-dim)
        buf[0] = res
        result = Tensor._make(Storage(buf, dtypes.from_numpy_dtype(res.dtype), dev), (), (), 0)
        if pol is not None:
            result._policy = pol
        return result
    result = Tensor._wrap(res, dev, pol)
    if strides is not None:
        _restride(result, strides)
    return result


# ---- result layout: PyTorch's strides where numpy's can differ --------------------------------

def result_layout(spec, xp, res, ins, params):
    """``(res, strides)``: ``res`` laid out in memory as PyTorch lays out this op's result,
    and the exact strides the tensor should show (None: the array's own), per ``OpSpec.layout``.

    Only a result of two or more dims can differ; a call whose tensors are all contiguous
    costs a look at each tensor's strides ("ti"), or at the result's flags. A Python number
    is a (0-dim) operand where PyTorch wraps it in a tensor (``x * 2``, ``2 - x``), not where
    a Scalar overload is a unary kernel ("ti1", "pow": ``x.pow(2)``, ``x.clamp(0, 1)``).
    """
    rule, shape = spec.layout, res.shape
    if rule == "suggest":  # (ATen's suggest_memory_format of self: batch norm's empty_like)
        x = ins[0]
        rule = "channels_last" if len(shape) == 4 and isinstance(x, Tensor) and \
            layout.suggests_channels_last(x._shape, x._strides) else "contiguous"
    if rule == "roll":  # (ATen's roll returns an empty input's clone, empty_like's strides;
        rule = "preserve" if not res.size and params["dims"] else "contiguous"  # flat: a view)
    if rule == "contiguous" or rule == "cat" and not _all_channels_last(ins) or \
            rule == "pow" and not isinstance(ins[0], Tensor) or \
            rule == "rot90" and params["k"] % 4 == 0:  # (rot90 by 0: a contiguous clone)
        return (res if res.flags.c_contiguous else xp.ascontiguousarray(res)), None
    if rule in _ITERATOR_RULES:
        strides = iterator_layout(rule, ins, shape)
        if strides is None:
            return res, None
    elif rule == "preserve":
        strides = _preserve_strides(ins, shape)
        if strides is None:
            return res, None
    elif rule == "rot90":  # flip (empty_like), then a transposed view unless k == 2
        x, k = ins[0], params["k"] % 4
        strides = list(layout.dense_strides_like(x._shape, x._strides))
        if k != 2:
            d0, d1 = (layout.wrap_dim(d, len(x._shape)) for d in params["dims"])
            strides[d0], strides[d1] = strides[d1], strides[d0]
        strides = tuple(strides)
    elif callable(rule):  # an op's own rule (advanced indexing's TensorIterator operands)
        strides = rule(ins, params, shape)
        if strides is None:
            return res, None
    elif rule == "nonzero":  # (n, ndim) written column by column: strides (1, n)
        strides = (1, shape[0])
    else:  # "cat" of channels-last inputs, "suggest" of a channels-last self
        n, c, h, w = shape
        strides = (h * w * c, 1, w * c, c)
    return _strided_like(xp, res, strides), strides


_ITERATOR_RULES = frozenset(("ti", "ti_rev", "ti1", "pow"))


def _preserve_strides(ins, shape):
    """``empty_like(self)``'s strides for a result of ``shape``: self's own where it is dense,
    else dense in the order of self's strides; None where that is row-major already."""
    x = next((x for x in ins if isinstance(x, Tensor)), None)
    if x is None or x._shape != shape or x._strides == _c_strides(shape):
        return None
    return layout.dense_strides_like(shape, x._strides)


def iterator_layout(rule, ins, shape):
    """TensorIterator's strides for a result of ``shape`` from ``ins``, or None when every
    tensor among them is contiguous (then so is the result)."""
    numbers = rule == "ti" or rule == "ti_rev"
    operands = []
    plain = True
    for x in ins:
        if isinstance(x, Tensor):
            if plain and x._strides != _c_strides(x._shape):
                plain = False
            operands.append((x._shape, x._strides))
        elif numbers and x is not None and not isinstance(x, (list, tuple, str)):
            operands.append(((), ()))  # a wrapped Python number: a 0-dim operand
    if plain and 0 not in shape:  # (an empty result: TensorIterator's strides multiply by its
        return None  #              0 size, so a size-1 dim after it in its order gets stride 0)
    if rule == "ti_rev":
        operands[:2] = operands[1::-1]
    return layout.iterator_strides(shape, operands)


def _strided_like(xp, res, strides):
    """``res``'s values in memory laid out with ``strides`` (elements); ``res`` itself when it
    already is (size-1 dims aside, whose strides address nothing)."""
    it = res.itemsize
    if res.size <= 1 or all(n == 1 or s * it == rs for n, s, rs in
                            zip(res.shape, strides, res.strides)):
        return res
    out = backend.as_strided(xp.empty(res.size, res.dtype), res.shape,
                             tuple(s * it for s in strides), 0)
    out[...] = res
    return out


def lane_layout(spec, ins, t) -> None:
    """The lane's result ``t`` (numpy's layout) given PyTorch's when they differ.

    The lane asks only when an input's strides tuple is not the result's: a fresh result, a
    factory's tensor and their C-contiguous views of one shape share one tuple (``_c_strides``),
    so the common call pays one identity test. ``t`` keeps its storage object (same bytes,
    so memory's accounting and the alloc event stand); only its buffer may be laid out anew.
    """
    strides = _preserve_strides(ins, t._shape) if spec.layout == "preserve" else \
        iterator_layout(spec.layout, ins, t._shape)
    if strides is None or strides == t._strides or policy.is_paddle(t._pol):
        return
    arr = t._a
    new = _strided_like(backend.np, arr, strides)
    if new is not arr:
        t._storage.data = new.base if new.base is not None else new
        t._arr = new
    t._strides = tuple(strides)


def _restride(t, strides):
    """Give a fresh result PyTorch's exact strides where they differ from its array's only at
    size-1 dims (which address nothing). Paddle's results stay row-major (Tensor._wrap)."""
    if t._strides != strides and t._storage.data.size == t.numel() and \
            not policy.is_paddle(t._pol) and (t.numel() == 0 or all(
                n == 1 or a == b for n, a, b in zip(t._shape, t._strides, strides))):
        t._strides = tuple(strides)


def _all_channels_last(ins) -> bool:
    """cat's rule: channels-last when every input suggests it (4-dim tensors only here)."""
    ts = [x for x in ins if isinstance(x, Tensor)]
    return bool(ts) and all(len(t._shape) == 4 and layout.is_channels_last(t._shape, t._strides)
                            for t in ts)


# ---- the public entry of an op ---------------------------------------------------------------

def entry(spec, arity=None):
    """The function ``inplace_lab.<name>`` and ``Tensor.<name>`` call: the dispatcher's path
    for ``spec``'s kind, behind the fast lane for ufunc ops (``arity``: see ``lane``)."""
    if spec.ufunc and spec.kind == "normal" and not spec.outputs:
        return lane(spec, arity)  # the same answers as call, faster for the common call
    if spec.kind == "view":
        def fn(*args, **kwargs):
            return call_view(spec, args, kwargs)
    else:
        def fn(*args, **kwargs):
            return call(spec, args, kwargs)
    fn.__name__ = fn.__qualname__ = spec.name
    return fn


# ---- the fast lane: elementwise ufunc ops on floating tensors ----------------------------------

def _lane_dtypes(spec):
    """(cache, lookup): ``lookup(x)`` is the numpy dtype of ``x``'s dtype when that is a
    floating dtype and ``spec``'s own rule answers it for operands all of that dtype (then
    the ufunc's result dtype is the op's), else False; each dtype is asked once."""
    dts: dict = {}
    n, params = spec.n_args, spec.params

    def lookup(x):
        dt = x._dtype
        ok = dt.category == _FLOAT and dt.np.kind == "f"
        if ok:
            try:
                ok = result_dtype(spec, [x] * n, params) is dt
            except Exception:  # the rule refuses this dtype: the full path says so
                ok = False
        dts[dt] = dt.np if ok else False
        return dts[dt]

    return dts, lookup


def lane(spec, arity=None):
    """``spec``'s public function, with a fast lane in front of ``call`` for the common call.

    The common call: ``x.tanh()``, ``x * y``, ``x + 1.0``: positional arguments only, tensors of
    one floating dtype and facade on the CPU, Python numbers (float32/float64 only) for the
    rest; on a GPU, C-contiguous tensors of one shape (``_gpu_lane``). Then the op is its ufunc (``OpSpec.ufunc``) on
    the tensors' arrays, and the result is made in one frame (``tensor.fresh``); recording,
    when a tensor requires grad, and the op event are ``call``'s. The answers are ``call``'s: the
    dtype comes from the op's own rule (asked once per dtype, then cached), the result must
    come back in that dtype, and anything else (0-dim or non C-ordered results included)
    finishes or runs on the full path.

    ``arity``: 1 or 2 gives a function of exactly that many positional arguments (the
    operator methods: ``__mul__(self, other)``), saving the ``*args`` packing.
    """
    ufn = getattr(backend.np, spec.ufunc)
    dts, lane_dtype = _lane_dtypes(spec)
    select, n, params, cpu = spec.select, spec.n_args, spec.params, backend.CPU.type
    classes = Tensor._policy_classes
    differentiable, scalar_edges = spec.backward is not None, spec.scalar_edges

    def slow(x, r, dev, ins):  # a 0-dim or non C-ordered result: adopted as the full path does
        res = Tensor._wrap(backend.np.asarray(r), dev, x._pol)
        if res._shape:
            lane_layout(spec, ins, res)
        if _needs_grad(spec, ins):
            record(spec, list(ins), params, x._pol, res)
        if hooks.active:
            hooks.emit_op(spec, "normal", list(ins), res)
        return res

    if n == 1:
        def op1(x):
            if isinstance(x, Tensor):
                dt = x._dtype
                npd = dts.get(dt)
                if npd is None:
                    npd = lane_dtype(x)
                dev = x._storage.device
                if npd and dev.type is cpu:
                    a = x._arr
                    r = ufn(a if a is not None else x._a)
                    if r.dtype is npd:
                        if r.__class__ is not _ndarray or not r.ndim or not r.flags.c_contiguous:
                            return slow(x, r, dev, (x,))
                        pol = x._pol
                        res = fresh(Tensor if pol is None else classes.get(pol, Tensor), r, dt,
                                    dev, pol)
                        if x._strides is not res._strides:  # (see lane_layout)
                            lane_layout(spec, (x,), res)
                        if x._requires_grad and differentiable and _gm.enabled and \
                                not x._vc.inference:
                            record(spec, [x], params, pol, res)
                        if hooks.active:
                            hooks.emit_op(spec, "normal", [x], res)
                        return res
                elif npd and x._shape and x._strides == _c_strides(x._shape):  # a GPU
                    return _gpu_lane(spec, (x,), (x._a,), dt, dev)
            return call(spec, (x,), {})

        def fn(*args, **kwargs):
            if len(args) == 1 and not kwargs:
                return op1(args[0])
            return call(spec, args, kwargs)
        fast = op1
    else:
        def op2(x, y):
            if isinstance(x, Tensor) and (select is None or select((x, y), _NO_KW) is None):
                dt = x._dtype
                npd = dts.get(dt)
                if npd is None:
                    npd = lane_dtype(x)
                dev = x._storage.device
                if npd and dev.type is cpu:
                    yc = y.__class__
                    if yc is float or yc is int and _I64_MIN <= y < _U64_END:
                        b = y if npd is not _F16 else None
                        yg = False
                    elif isinstance(y, Tensor) and y._dtype is dt and y._pol is x._pol and \
                            y._storage.device is dev:
                        b = y._arr
                        if b is None:
                            b = y._a
                        yg = y._requires_grad
                    else:
                        b = None
                    if b is not None:
                        a = x._arr
                        try:
                            r = ufn(a if a is not None else x._a, b)
                        except ValueError:
                            refuse_inference_saves(spec, (x, y))
                            check_broadcast((x, y))  # numpy's broadcast error, in PyTorch's words
                            raise
                        if r.dtype is npd:
                            if r.__class__ is not _ndarray or not r.ndim or \
                                    not r.flags.c_contiguous:
                                return slow(x, r, dev, (x, y))
                            pol = x._pol
                            res = fresh(Tensor if pol is None else classes.get(pol, Tensor), r,
                                        dt, dev, pol)
                            st = res._strides  # (see lane_layout)
                            if x._strides is not st or b is not y and y._strides is not st:
                                lane_layout(spec, (x, y), res)
                            if (x._requires_grad or yg) and differentiable and \
                                    _gm.enabled and (not x._vc.inference or (
                                        scalar_edges if yc is float or yc is int
                                        else not y._vc.inference)):  # (_needs_grad's rule)
                                record(spec, [x, y], params, pol, res)
                            if hooks.active:
                                hooks.emit_op(spec, "normal", [x, y], res)
                            return res
                elif npd and x._shape and x._strides == _c_strides(x._shape):  # a GPU
                    yc = y.__class__
                    if yc is float or yc is int and _I64_MIN <= y < _U64_END:
                        if npd is not _F16:
                            return _gpu_lane(spec, (x, y), (x._a, y), dt, dev)
                    elif isinstance(y, Tensor) and y._dtype is dt and y._pol is x._pol and \
                            y._storage.device is dev and y._shape == x._shape and \
                            y._strides == x._strides:
                        return _gpu_lane(spec, (x, y), (x._a, y._a), dt, dev)
            return call(spec, (x, y), {})

        def fn(*args, **kwargs):
            if len(args) == 2 and not kwargs:
                return op2(args[0], args[1])
            return call(spec, args, kwargs)
        fast = op2
    if arity is not None:
        if arity != n:
            raise ValueError(f"{spec.name} takes {n} arguments, not {arity}")
        fn = fast
    fn.__name__ = fn.__qualname__ = spec.name
    fn._lane = ("lane", spec, arity)  # (how it was made: benchmarks/compiled_out.py remakes it)
    return fn


_NO_KW: dict = {}


def _gpu_lane(spec, ins, arrs, dt, dev):
    """The lane on a GPU (``lane``'s op1/op2): C-contiguous tensors of one shape (or a tensor
    and a number), so the C-ordered result is TensorIterator's layout and nothing can fail;
    the kernel is ``elementwise.ufunc``'s call of the GPU's ufunc, as the full path's."""
    r = _gpu_ufunc(spec, dev, arrs, None, dt)
    pol = ins[0]._pol
    res = fresh(Tensor if pol is None else Tensor._policy_classes.get(pol, Tensor), r, dt, dev,
                pol)
    if _needs_grad(spec, ins):
        record(spec, list(ins), spec.params, pol, res)
    if hooks.active:
        hooks.emit_op(spec, "normal", list(ins), res)
    return res


_GPU_UFUNCS: dict = {}


def _gpu_ufunc(spec, dev, arrs, out, dt):
    """``spec``'s ufunc of ``dev``'s array module (cupy; numpy or cupy_like on the simulated
    GPU) on ``arrs``, through ``elementwise.ufunc`` (result dtype, vectorised CUDA kernels)."""
    xp = backend.xp_of(dev)
    f = _GPU_UFUNCS.get((xp, spec.ufunc))
    if f is None:
        from .elementwise import ufunc

        f = _GPU_UFUNCS[(xp, spec.ufunc)] = (ufunc, getattr(xp, spec.ufunc))
    return f[0](f[1], arrs, out, dt)


def lane_inplace(spec):
    """``x.op_(...)``, with a fast lane in front of ``call_inplace`` (see ``lane``).

    The common call: a C-contiguous floating tensor (CPU or GPU) written with a tensor of the
    same dtype, facade, device and shape (not another view of its storage) or a Python number,
    nothing recording (no grad needed: the autograd checks and the history rebase are the
    full path's), not under the paddle-legacy rules. Then no check can fail and the
    write is the ufunc into the target's array; the version bump and the op event are
    ``call_inplace``'s. Anything else walks ``call_inplace``.
    """
    ufn = getattr(backend.np, spec.ufunc)
    select, n, params, cpu = spec.select, spec.n_args, spec.params, backend.CPU.type
    usable = spec.inplace_spec is None and spec.inplace_check is None and n in (1, 2)
    dts, lane_dtype = _lane_dtypes(spec)

    def fn_(*args, **kwargs):
        if usable and not kwargs and len(args) == n and not WRITE_HOOKS and (
                select is None or select(args, _NO_KW) is None):
            x = args[0]
            if isinstance(x, Tensor):
                dt = x._dtype
                npd = dts.get(dt)
                if npd is None:
                    npd = lane_dtype(x)
                shape = x._shape
                dev = x._storage.device
                if npd and x._strides == _c_strides(shape) and \
                        (x._pol or policy._current) != "paddle-legacy":
                    a = x._arr
                    if a is None:
                        a = x._a
                    if n == 1:
                        b = yg = False
                    else:
                        y = args[1]
                        yc = y.__class__
                        if yc is float or yc is int and _I64_MIN <= y < _U64_END:
                            b = y if npd is not _F16 else None
                            yg = False
                        elif isinstance(y, Tensor) and y._dtype is dt and y._shape == shape and \
                                y._pol is x._pol and y._storage.device is x._storage.device and \
                                (y._storage is not x._storage or y is x):
                            b = y._arr
                            if b is None:
                                b = y._a
                            yg = y._requires_grad
                        else:
                            b = None
                    if b is not None and not (_gm.enabled and (x._requires_grad or yg)):
                        if dev.type is not cpu:  # a GPU: the full path's ufunc call
                            _gpu_ufunc(spec, dev, (a,) if n == 1 else (a, b), a, dt)
                        elif n == 1:
                            ufn(a, out=a)
                        else:
                            ufn(a, b, out=a)
                        x._vc.bump()  # (an inference tensor's counter refuses here, after)
                        if hooks.active:
                            hooks.emit_op(spec, "inplace", list(args), x)
                        return x
        return call_inplace(spec, args, kwargs)

    fn_.__name__ = fn_.__qualname__ = spec.name + "_"
    fn_._lane = ("lane_inplace", spec, None)
    return fn_


def inplace_entry(spec):
    """The function ``Tensor.<name>_`` and ``inplace_lab.<name>_`` call."""
    if spec.ufunc and spec.kind == "normal" and not spec.outputs:
        return lane_inplace(spec)

    def fn_(*args, **kwargs):
        return call_inplace(spec, args, kwargs)

    fn_.__name__ = fn_.__qualname__ = spec.name + "_"
    return fn_


def record(spec, ins, params, pol, result):
    """Record an op's node: edges, saved inputs, the result's history, the saved result.

    ``result`` is the op's fresh tensor (output 0); set_history and save_result written out.
    """
    if result._dtype.category < dtypes.FLOAT and (pol is None or not policy.is_paddle(pol)):
        if spec.name == "_to_copy":  # a cast to an integer dtype: a plain result, no node
            return  # (else PyTorch's set_history: an integer result cannot join a graph)
        raise RuntimeError(f"Autograd not support dtype: {result._dtype.torch_name}")
    node = make_node(spec, ins, params, pol)
    if spec.input_saves:
        save_inputs(node, spec, ins, pol)
    result._grad_fn = node
    result._requires_grad = True
    m = (result._shape, result._dtype, result._storage.device)
    if len(_METAS) > 4096:
        _METAS.clear()
    node.output_meta.append(_METAS.setdefault(m, m))
    if spec.saves_result:
        node.saved["result"] = SavedTensor(result, spec.node_name, is_output=True, policy=pol,
                                           name="result")
    if pol is not None and spec.name in policy.PADDLE_EXTRA_SAVES and policy.is_paddle(pol):
        _paddle_extra_save(node, spec, ins, result, pol)


def _paddle_extra_save(node, spec, ins, result, pol):
    """Keep what Paddle's node keeps beyond PyTorch's (``policy.PADDLE_EXTRA_SAVES``); a
    division by a number is Paddle's scale and keeps nothing."""
    what = policy.PADDLE_EXTRA_SAVES[spec.name]
    if what == "result":
        if len(ins) > 1 and isinstance(ins[1], Tensor) and "result" not in node.saved:
            node.saved["result"] = SavedTensor(result, spec.node_name, is_output=True,
                                               policy=pol, name="result")
    elif what not in node.saved and isinstance(ins[0], Tensor):
        node.saved[what] = SavedTensor(ins[0], spec.node_name, is_output=False, policy=pol,
                                       name=what)


_ndarray = backend.np.ndarray
_F16 = dtypes.float16.np


def _own(res, ins):
    """``res``, or a copy of it where it is a view into an input's storage (a kernel's numpy
    view, e.g. the diagonal of a 1x1 matrix): an op's result never aliases its inputs
    unrecorded (no shared storage, no shared version counter)."""
    root = res.base
    while getattr(root, "base", None) is not None:
        root = root.base
    for x in ins:
        if isinstance(x, Tensor):
            data = x._storage.data
            if root is data or root is data.base:
                return res.copy()
    return res


def _call_multi(spec, ins, params, pol, dev, res):
    """An op with several results (``max(x, dim)`` -> values, indices).

    Only the first result is differentiable; a later result named in ``spec.saves``
    (max's ``indices``) is saved like an input, as PyTorch does (no grad_fn, so its
    saved-tensor error names no producer).
    """
    xp = backend.xp_of(dev)
    outs = []
    for r in res:
        r, strides = xp.asarray(r), None
        if r.base is not None:
            r = _own(r, ins)
        if spec.layout and r.ndim:
            r, strides = result_layout(spec, xp, r, ins, params)
        outs.append(Tensor._wrap(r, dev, pol))
        if strides is not None:
            _restride(outs[-1], strides)
    if _needs_grad(spec, ins):
        node = make_node(spec, ins, params, pol)
        save_inputs(node, spec, ins, pol)
        set_history(outs[0], node)
        for name, t in zip(spec.outputs[1:], outs[1:]):
            if name in spec.saves:
                node.saved[name] = SavedTensor(t, spec.node_name, is_output=False, policy=pol,
                                               name=name)
        save_result(node, spec, outs[0], pol)
    if hooks.active:
        hooks.emit_op(spec, "normal", ins, outs)
    return spec.return_type(*outs)


def _call_saving(spec, ins, params, pol, dev, res):
    """An op whose kernel also returns what its backward reads (``OpSpec.saved_results``):
    those are tensors of their own (allocated, as PyTorch's are, whether or not a graph keeps
    them), saved by the node after its inputs; the call returns the result alone."""
    xp = backend.xp_of(dev)
    result = _result_tensor(spec, xp, res[0], ins, params, dev, pol)
    kept = [Tensor._wrap(e if e.flags.c_contiguous else e.copy(), dev, pol)
            for e in map(xp.asarray, res[1:])]
    if _needs_grad(spec, ins):
        node = make_node(spec, ins, params, pol)
        save_inputs(node, spec, ins, pol)
        set_history(result, node)
        for name, t in zip(spec.saved_results, kept):
            node.saved[name] = SavedTensor(t, spec.node_name, is_output=False, policy=pol,
                                           name=name)
        save_result(node, spec, result, pol)
    if hooks.active:
        hooks.emit_op(spec, "normal", ins, result)
    return result


def _rule_then_cast(spec, ins, params, target):
    """The dtype rule of an in-place or out= call. TensorIterator checks that the result type
    casts to the output before the kernel refuses a dtype: a rule's "not implemented for"
    waits for that check (``bool_t.gcd_(float_t)`` is the cast error, as in PyTorch)."""
    try:
        return result_dtype(spec, ins, params)
    except NotImplementedError:
        if spec.layout in _ITERATOR_RULES and not policy.is_paddle(policy.policy_of(target)) \
                and getattr(spec.dtype_rule, "__name__", "") != "bool_rule":  # (bool: casts)
            from .elementwise import promote

            dt = promote([x for x in ins if x is not None and (  # ("ti1": numbers are no
                spec.layout != "ti1" or isinstance(x, Tensor))])    # operands: lerp's weight)
            if not dtypes.can_cast(dt, target._dtype):
                raise _cast_refusal(spec, dt, target) from None
        raise


def _call_out(spec, ins, params, out):
    if not spec.out:
        raise TypeError(f"{spec.name}() got an unexpected keyword argument 'out'")
    if WRITE_HOOKS:
        before_write(out)
    if _gm.enabled and any(isinstance(x, Tensor) and x._requires_grad for x in ins + [out]):
        raise errors.OutRequiresGradError(
            f"{spec.name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.", tensor=out, op=spec.name)
    device_of(spec, ins + [out])
    dt = _rule_then_cast(spec, ins, params, out)
    _op_cast_error(spec, ins, dt, out, False)
    tensors = [x for x in ins if isinstance(x, Tensor)]
    if spec.layout in _ITERATOR_RULES and tensors:  # TensorIterator: the overlaps it can tell,
        check_overlap(out, tensors, as_torch=True)  # the shapes, then the types (wide 64014)
        shape = layout.broadcast_shapes(*(x._shape for x in tensors))
        if shape != out._shape and any(x is out for x in tensors):
            raise RuntimeError(  # (it resizes no output that is also an input)
                f"output with shape {list(out._shape)} doesn't match the broadcast shape "
                f"{list(shape)}")
    if not dtypes.can_cast(dt, out._dtype):
        raise _cast_refusal(spec, dt, out)
    dev = out._storage.device
    xp = backend.xp_of(dev)
    # A ufunc kernel writes straight into out (no result-sized temporary) when out has the
    # result dtype; its shape is then the broadcast shape, known before the kernel runs.
    direct = spec.out_direct and out._dtype is dt and bool(tensors)
    if direct:
        shape = layout.broadcast_shapes(*(x._shape for x in tensors))
    else:
        res = xp.asarray(spec.forward(xp, *arrays(ins, dev), out=None, dt=dt, **params))
        shape = tuple(res.shape)
    if shape != out._shape:  # PyTorch judges the overlap on out as given, then resizes it
        check_overlap(out, tensors, as_torch=True)  # (a refused call leaves out as it was)
        resize_out(out, shape, stacklevel=5,  # (the user's line for a direct call)
                   strides=iterator_layout(spec.layout, ins, shape)
                   if spec.layout in _ITERATOR_RULES else None)
    check_overlap(out, tensors)
    if direct:  # check_overlap allows only no overlap or the very same elements: ufunc-safe
        spec.forward(xp, *arrays(ins, dev), out=out._a, dt=dt, **params)
    else:
        out._a[...] = res
    out._vc.bump()  # an inference tensor's counter raises here, after the write (as PyTorch)
    if hooks.active:
        hooks.emit_op(spec, "out", ins, out)
    return out


def resize_out(out, shape, stacklevel, strides=None) -> None:
    """Resize ``out`` as part of one out= write: PyTorch's deprecation warning when it had
    elements, no version bump of its own (the write bumps). ``strides``: the layout an
    elementwise op gives it (TensorIterator restrides a resized output), else contiguous."""
    from .methods import grow_storage

    if out.numel() != 0:
        import warnings

        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(out._shape)}, which does not match the required output shape "
            f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release "
            "outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning, stacklevel=stacklevel)

    need = out._offset + layout.numel(shape)
    if need > out._storage.size():
        grow_storage(out._storage, need)
    out._set_geometry(shape, strides if strides is not None else layout.contiguous_strides(shape))


# Functions called with a tensor an op is about to write (in place, out=, set_, resize_, an
# in-place view), before any check: ``autograd.graph.allow_mutation_on_saved_tensors`` clones
# a saved tensor there, as PyTorch's dispatch mode does before the op runs. Empty: no cost.
WRITE_HOOKS: list = []


def before_write(t) -> None:
    for hook in WRITE_HOOKS:
        hook(t)


def call_inplace(spec, args, kwargs, *, setitem=False):
    """``x.op_(...)``: checks, clone-before-overwrite, kernel into x's buffer, bump, record.

    ``setitem``: the tensor that was indexed (``x`` in ``x[i] = v``) when this op is the
    write of a setitem; Paddle records setitem on that tensor, not on the view.
    """
    owner = setitem if isinstance(setitem, Tensor) else None
    setitem = setitem is not False and setitem is not None
    if spec.select is not None:  # x.pow_(2) is PowBackward0, x.pow_(y) PowBackward1
        spec = spec.select(args, kwargs) or spec
    if spec.inplace_spec is not None:  # F.elu_ saves its result: EluBackward1
        spec = spec.inplace_spec
    ins, params, out = bind(spec, args, kwargs)
    target = ins[0]
    if WRITE_HOOKS:
        before_write(target)
    check_int_scalars(spec, ins, params, inplace=True)
    device_of(spec, ins)
    if target._pol is not None and policy.is_paddle(target._pol) and not policy.core_calls[0]:
        policy.check_paddle_kernel(spec, target, inplace=True)  # (before Paddle's dtype rules)
    pol = policy.policy_of(target)
    torch_order = not policy.is_paddle(pol)
    # PyTorch's copy_ records only into a differentiable target (requires_grad &=
    # isDifferentiableType(self)): an integer tensor is written, never checked nor recorded
    # (masked_fill_, fill_... have no such gate: torch records them even there)
    plain = torch_order and spec.name == "copy" and target._dtype.category < dtypes.FLOAT
    if torch_order and not plain:  # (autograd's checks come before the kernel's dtype checks)
        _check_autograd_inplace(spec, target, ins, pol, setitem)
    dt = _rule_then_cast(spec, ins, params, target)
    try:
        check_inplace(spec, target, ins, dt, setitem=setitem, params=params,
                      autograd_checked=torch_order)
    except RuntimeError:
        if torch_order:
            refuse_inference_saves(spec, ins, inplace=True)
        raise
    record = not plain and _needs_grad(spec, ins)
    node = None
    if record:
        if not torch_order and not target._requires_grad and target._grad_fn is not None:
            target._requires_grad = True  # (Paddle: a non-leaf set stop_gradient=True keeps
            #                                its node, which an in-place op on it links to)
        node = make_node(spec, ins, params, target._pol)  # (the node: the facade's; the saved
        old = None                                       # tensors below: the session's rules)
        cond = spec.save_if.get("self")
        if spec.saves_input_for_inplace and (
                cond is None or node.needs_input_grad[spec.args.index(cond)]):
            old = _clone_before_overwrite(target)
        save_inputs(node, spec, ins, pol, replace=old, inplace=True)
    dev = target._storage.device
    spec.forward(backend.xp_of(dev), *arrays(ins, dev), out=target._a, dt=dt, **params)
    target._vc.bump()
    if record:
        from ..autograd import views

        views.rebase_history(target, node, setitem_owner=owner)
        save_result(node, spec, target, pol)
        if target._grad_fn is not node and spec.saves_result:  # a view, its base rebased:
            gf = target.grad_fn  # PyTorch reads the view's node (rebuilt) when it saves
            if gf is not None:  # the result, and its errors name that node while it lives
                node.saved["result"].view_node = weakref.ref(gf)
    if hooks.active:
        hooks.emit_op(spec, "inplace", ins, target)
    return target


def _clone_before_overwrite(target):
    """A real copy of the value the backward needs, carrying the target's old history."""
    with grad_mode.no_grad():
        old = target.clone()
    old._requires_grad, old._grad_fn, old._output_nr = \
        target._requires_grad, target._grad_fn, target._output_nr
    return old


def call_view(spec, args, kwargs):
    """A view: new shape/strides/offset over the same storage and version counter."""
    if spec.select is not None:  # overloads: x.squeeze() is SqueezeBackward0, x.squeeze(1) ...1
        spec = spec.select(args, kwargs) or spec
    if spec.variadic:
        extra = args[1:] or tuple(v for k, v in kwargs.items() if k in ("size", "shape", "dims"))
        ins, params = [args[0] if args else kwargs["input"]], {
            "sizes": layout.dims_arg(extra, spec.name)}
        geo = spec.forward(ins[0], *params["sizes"])
    else:
        ins, params, _ = bind(spec, args, kwargs)
        geo = spec.forward(ins[0], *ins[1:], **params)
    src = ins[0]
    pol = src._pol
    root = src._base if src._base is not None else src
    if src._vc.inference:  # PyTorch: a view of an inference tensor has no _base (not _is_view())
        root = None
    cls = Tensor if pol is None else Tensor._policy_classes.get(pol, Tensor)  # (as _policy=)
    if spec.multi_output:
        outs = [_view_of(cls, src, root, g, pol) for g in geo]
    else:
        outs = [_view_of(cls, src, root, geo, pol)]
    if _needs_grad(spec, ins):
        node = make_node(spec, ins, params, pol)
        node.op_meta["geometry"] = geo
        node.op_meta["in_geo"] = (src._shape, src._strides, src._offset)
        if 0 in src._strides and spec.name != "as_strided":  # (an expanded input: by index)
            from .shape import logical_geometry

            logical = logical_geometry(spec, src, ins, params)
            if logical is not None:
                node.op_meta["logical"] = logical
        if spec.perm_of is not None:
            node.op_meta["perm"] = spec.perm_of(src, *params.get("sizes", ()), *(
                v for k, v in params.items() if k != "sizes"))
        for i, v in enumerate(outs):
            set_history(v, node, i)
    _views.mark_views(spec, src, outs)
    if hooks.active:
        hooks.emit_op(spec, "view", ins, outs if spec.multi_output else outs[0])
    return tuple(outs) if spec.multi_output else outs[0]


def _view_of(cls, src, root, geo, pol):
    """A view tensor of class ``cls``: ``src``'s storage and counter, the new geometry."""
    shape, strides, offset = geo
    vc = src._vc
    if vc.inference and vc.counted:  # a view of a detached inference alias: no counter
        vc = InferenceCounter()
    return blank(cls, src._storage, tuple(shape), tuple(strides), offset, src._dtype, vc,
                 None, root, pol)


def detach(t):
    d = Tensor._alias(t)
    if t._vc.inference:  # outside inference_mode: a counter of its own (DetachedInferenceCounter)
        d._vc = alias_counter(t._vc)
    if hooks.active:
        hooks.emit_op(_DETACH, "alias", [t], d)
    return d


class Untabled:
    """An op outside the table (detach, resize_) as a hooks event names it: only a ``name``."""

    def __init__(self, name: str):
        self.name = name


_DETACH = Untabled("detach")
