"""Tensor methods that compose table ops: operators, reshape, to(), metadata in-place ops.

These add no maths: each one picks table ops and calls the dispatcher, so the
inspector sees the same events as for a direct call.
"""
from __future__ import annotations

import gc

from .. import backend, dtypes, hooks, layout, policy
from ..autograd import grad_mode
from ..autograd.node import Node
from ..tensor import Tensor
from . import dispatch
from .table import OPS


def _fn(name, arity=None):
    return dispatch.entry(OPS[name], arity)


def _rev(name):
    spec = OPS[name]
    return lambda self, other: dispatch.call(spec, (other, self), {})


def _rtruediv(self, other):
    """``2 / x`` is ``x.reciprocal() * 2`` in PyTorch (MulBackward0 over ReciprocalBackward0)."""
    return dispatch.call(OPS["mul"], (dispatch.call(OPS["reciprocal"], (self,), {}), other), {})


def _iop(name):
    """``x += y``: in place under PyTorch's rules; Paddle has no __iadd__ (rebinds to a new tensor)."""
    spec = OPS[name]
    out_of_place, in_place = dispatch.entry(spec), dispatch.inplace_entry(spec)

    def iop(self, other):
        if policy.is_paddle(policy.policy_of(self)):
            return out_of_place(self, other)
        return in_place(self, other)

    return iop


# ---- reshape family ---------------------------------------------------------------------------

def reshape(self, *shape):
    """A view when the strides allow one, else a copy (then ``_base`` is None)."""
    shape = layout.infer_size(layout.dims_arg(shape, "reshape"), self.numel())
    if layout.view_strides(self._shape, self._strides, shape) is not None:  # torch: a view;
        name = "view" if self.is_contiguous() else "_reshape_alias"  # ReshapeAliasBackward0
        return dispatch.call_view(OPS[name], (self, shape), {})       # when not contiguous
    # Not viewable: copy, then reinterpret the fresh copy (PyTorch's _unsafe_view: not a view).
    return unsafe_view(_contiguous_copy(self), shape)


def unsafe_view(t, shape):
    """PyTorch's ``_unsafe_view``: give a fresh result a new shape; not a view of anything.

    ``t`` was just made (a contiguous copy, an mm/mv/bmm result) and nobody else holds it,
    so its geometry can be rewritten in place; the graph gets an UnsafeViewBackward0 node,
    as in PyTorch.
    """
    shape = tuple(shape)
    node = None
    if t._grad_fn is not None:
        node = dispatch.make_node(OPS["_unsafe_view"], [t], {}, t._policy)
    t._set_geometry(shape, layout.contiguous_strides(shape))
    if node is not None:
        t._grad_fn = None
        dispatch.set_history(t, node)
    return t


def _contiguous_copy(t):
    return dispatch.call(OPS["_contiguous_copy"], (t,), {})


def contiguous(self, memory_format=None):
    """The same object if already contiguous, else a contiguous copy (CloneBackward0)."""
    if self.is_contiguous():
        return self
    return _contiguous_copy(self)


def flatten(self, start_dim=0, end_dim=-1):
    if self.ndim == 0:
        return reshape(self, 1)
    s, e = layout.wrap_dim(start_dim, self.ndim), layout.wrap_dim(end_dim, self.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    n = 1
    for d in range(s, e + 1):
        n *= self._shape[d]
    return reshape(self, self._shape[:s] + (n,) + self._shape[e + 1:])


def ravel(self):
    """PyTorch's ravel is ``contiguous().view(-1)``: a view of self, or of a fresh copy."""
    return dispatch.call_view(OPS["view"], (contiguous(self), -1), {})


def view_as(self, other):
    return dispatch.call_view(OPS["view"], (self, other.shape), {})


def reshape_as(self, other):
    return reshape(self, other.shape)


def expand_as(self, other):
    return dispatch.call_view(OPS["expand"], (self, other.shape), {})


# ---- conversions ------------------------------------------------------------------------------

def _parse_to(args, kwargs):
    dev = kwargs.get("device")
    dt = kwargs.get("dtype")
    for a in args:
        if isinstance(a, Tensor):
            dev, dt = a.device, a._dtype
        elif isinstance(a, dtypes.dtype):
            dt = a
        elif isinstance(a, (str, backend.device, int)) and a is not None:
            try:
                dev = backend.device(a)
            except (RuntimeError, TypeError):
                dt = dtypes.from_any(a)
    return (backend.concrete(backend.device(dev)) if dev is not None else None,
            dtypes.from_any(dt) if dt is not None else None)


def to(self, *args, **kwargs):
    """Same object if nothing changes; otherwise a copy (ToCopyBackward0)."""
    dev, dt = _parse_to(args, kwargs)
    copy = kwargs.get("copy", False)
    out = self
    if dev is not None and dev != self.device:
        out = to_device(out, dev)
    if dt is not None and (dt is not out._dtype or (copy and out is self)):
        out = dispatch.call(OPS["_to_copy"], (out,), {"dtype": dt})
    elif copy and out is self:
        out = out.clone()
    return out


def to_device(self, dev):
    """Copy across the backend seam, keeping the autograd edge."""
    backend.check_device(dev)
    arr = backend.to_device_array(self._a, dev)
    out = Tensor._wrap(arr if backend.is_real_gpu(dev) or dev.type == "cpu" else arr.copy(), dev,
                       self._policy)
    if arr is self._a:  # numpy -> simulated GPU: must not share the buffer
        out = Tensor._wrap(arr.copy(), dev, self._policy)
    if grad_mode.state.enabled and self._requires_grad:
        node = dispatch.make_node(OPS["_to_copy"], [self], {"dtype": self._dtype}, self._policy)
        node.op_meta["device"] = str(self.device)
        dispatch.set_history(out, node)
    if hooks.active:
        hooks.emit_op(OPS["_to_copy"], "normal", [self], out)
    return out


def type_(self, dtype=None, non_blocking=False, **_):
    if dtype is None:
        return policy.torch_type_name(self)
    return to(self, dtypes.from_any(dtype))


def cpu(self):
    return to(self, "cpu")


def cuda(self, device=None, non_blocking=False):
    return to(self, backend.device("cuda", device if isinstance(device, int) else None)
              if not isinstance(device, (str, backend.device)) else device)


def _caster(dt):
    return lambda self, memory_format=None: to(self, dt)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from .. import creation

    return creation.tensor(data, dtype=dtype or self._dtype, device=device or self.device,
                           requires_grad=requires_grad)


def _new_factory(name):
    def f(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        from .. import creation

        t = getattr(creation, name)(*size, dtype=dtype or self._dtype, device=device or self.device,
                                    requires_grad=requires_grad)
        t._policy = self._policy
        return t

    return f


def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    from .. import creation

    return creation.full(size, fill_value, dtype=dtype or self._dtype, device=device or self.device,
                         requires_grad=requires_grad)


def where(self, condition, other):
    return dispatch.call(OPS["where"], (condition, self, other), {})


# ---- metadata in-place ops (t_, transpose_, squeeze_, unsqueeze_, as_strided_) ----------------

def _inplace_view(name):
    """In-place metadata change: same object, new strides, version bump, a node like the view's
    (named as PyTorch names the in-place overload: ``y.t_()`` is TBackward1)."""
    from dataclasses import replace

    from .shape import INPLACE_NODE_NAMES

    def f(self, *args, **kwargs):
        if dispatch.WRITE_HOOKS:
            dispatch.before_write(self)
        spec = OPS[name]
        if spec.select is not None:
            spec = spec.select((self,) + args, kwargs) or spec
        if spec.name in INPLACE_NODE_NAMES:
            spec = replace(spec, node_name=INPLACE_NODE_NAMES[spec.name])
        ins, params, _ = dispatch.bind(spec, (self,) + args, kwargs) if not spec.variadic else \
            ([self], {"sizes": layout.dims_arg(args)}, None)
        dispatch.check_inplace(spec, self, [self], self._dtype)
        geo = spec.forward(self, *params["sizes"]) if spec.variadic else \
            spec.forward(self, *ins[1:], **params)
        node = None
        if dispatch._needs_grad(spec, [self]):
            node = dispatch.make_node(spec, [self], params, self._pol)  # (the facade's)
            node.op_meta["geometry"] = geo
            node.op_meta["in_geo"] = (self._shape, self._strides, self._offset)
            if spec.perm_of is not None:
                node.op_meta["perm"] = spec.perm_of(self, *params.get("sizes", ()),
                                                     *(v for k, v in params.items() if k != "sizes"))
        self._set_geometry(*geo)
        self._vc.bump()
        if node is not None:
            node.output_meta.clear()
            from ..autograd.views import _set_grad_fn

            _set_grad_fn(self, node, move_retains=False)  # (PyTorch keeps retain_grad's hook
        if hooks.active:                                   # on the old node: .grad's old shape)
            hooks.emit_op(spec, "inplace", [self], self)
        return self

    f.__name__ = name + "_"
    return f


def resize_(self, *sizes, memory_format=None):
    """Change the shape in place; grows the storage itself when needed (views stay valid).

    Bumps the version only when the shape changes, as PyTorch does."""
    if dispatch.WRITE_HOOKS:
        dispatch.before_write(self)
    shape = tuple(int(n) for n in layout.dims_arg(sizes))
    if self._requires_grad and not grad_mode.state.inference:  # (the autograd kernel: no_grad
        # does not skip it, inference_mode does)
        raise RuntimeError("cannot resize variables that require grad")
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    if shape != self._shape:  # (the same sizes: nothing changes, strides included)
        need = self._offset + layout.numel(shape)
        if need > self._storage.size():
            grow_storage(self._storage, need)
        self._set_geometry(shape, layout.contiguous_strides(shape))
        self._vc.bump()
    _reset_grad_accumulator(self)
    if hooks.active:
        hooks.emit_op(_RESIZE, "inplace", [self], self)
    return self


def _reset_grad_accumulator(self) -> None:
    """PyTorch's autograd kernels of set_ and resize_ forget a leaf's AccumulateGrad (its
    metadata may be stale): a graph built before still accumulates into ``.grad``, but
    ``autograd.grad(old_out, leaf)`` no longer finds the leaf in it. Inference mode skips
    those kernels; Paddle keeps its node."""
    if self._grad_acc is not None and not grad_mode.state.inference and \
            not policy.is_paddle(self._pol):
        self._grad_acc = None


_RESIZE = dispatch.Untabled("resize")


def grow_storage(st, n):
    """Give a storage a larger buffer (old contents kept) and refresh every tensor on it."""
    new = backend.empty(n, st.dtype.np, st.device)
    old = st.data
    new[:old.size] = old
    st.replace_data(new)
    for ref in gc.get_referrers(st):
        if isinstance(ref, Tensor):
            ref._arr = None


# ---- set_: the tensor becomes a window on another storage ---------------------------------------

_SET_USAGE = (
    "set_() received an invalid combination of arguments - got ({got}), but expected one of:\n"
    " * ()\n * (torch.Storage source)\n"
    " * (torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n"
    " * (Tensor source)\n"
    " * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n")


class SetNotImplemented(Node):
    """The grad_fn PyTorch gives a tensor that ``set_`` changed while autograd records.

    PyTorch has no derivative for set_: the node is ``torch::autograd::NotImplemented``,
    with an edge to the tensor's old history and one to the source's; backward through it
    raises (as soon as the engine reaches it, not when set_ runs).
    """

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def apply(self, grads):
        raise RuntimeError("derivative for set_ is not implemented")


SetNotImplemented.__name__ = SetNotImplemented.__qualname__ = "NotImplemented"  # (PyTorch's
# Python class name: ``<NotImplemented object at ...>``; the module keeps the builtin's name)


def _set_geometry_args(self, source, storage_offset, size, stride):
    """(storage, shape, strides, offset) that ``self.set_(...)`` asks for, checked, or raise."""
    from ..storage import Storage

    got = ", ".join(type(a).__name__ for a in (source, storage_offset, size, stride)
                    if a is not None)
    if source is None:
        if storage_offset is not None or size is not None or stride is not None:
            raise TypeError(_SET_USAGE.format(got="None, " + got))
        empty = Storage.allocate(0, self._dtype, self._storage.device)
        return empty, (0,), (1,), 0
    if isinstance(source, Tensor):
        if source._dtype is not self._dtype:
            raise RuntimeError(
                f"Could not set tensor of type {dtypes.cpp_name(source._dtype)} to a tensor "
                f"of type {dtypes.cpp_name(self._dtype)}")
        storage, base_offset = source._storage, source._offset
        if storage_offset is None and size is None and stride is None:
            return storage, source._shape, source._strides, source._offset
    elif isinstance(source, Storage):
        if source.dtype is not self._dtype._core:
            raise RuntimeError(
                f"set_(): this storage holds {source.dtype.name} and the tensor is "
                f"{self._dtype.name}. PyTorch's untyped storages let set_ reinterpret the bytes; "
                "inplace_lab's storages are typed, so convert the tensor (or the source) first")
        storage, base_offset = source, 0
        if storage_offset is None and size is None and stride is None:
            return storage, (storage.size(),), (1,), 0
    else:
        raise TypeError(_SET_USAGE.format(got=got))
    if storage_offset is None or size is None or not isinstance(size, (tuple, list)) or \
            (stride is not None and not isinstance(stride, (tuple, list))):
        raise TypeError(_SET_USAGE.format(got=got))
    shape = tuple(int(n) for n in size)
    strides = layout.contiguous_strides(shape) if stride is None else tuple(int(s) for s in stride)
    if len(strides) != len(shape):
        raise RuntimeError(f"unequal size length ({len(shape)}) and stride length ({len(strides)})")
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    offset = base_offset + int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    return storage, shape, tuple(strides), offset


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """``x.set_(y)``: x becomes a window on y's storage (same storage object: writes through
    either are seen by both); ``x.set_(storage, offset, size, stride)`` picks the window;
    ``x.set_()`` gives x an empty storage of its own.

    What PyTorch 2.13 does, and this does too: x stays the same object and keeps its *own*
    version counter (not y's), bumped once; y's counter is untouched. x keeps its ``_base``.
    While autograd records (grad mode on, x or y requires grad) the leaf rules of every
    in-place op apply, then x gets a ``torch::autograd::NotImplemented`` grad_fn whose
    backward raises. A window past the end of the storage grows the storage (PyTorch
    resizes it too). The old storage is freed when nothing else looks at it, which
    ``memory_allocated`` shows. Everything is checked before anything changes.
    """
    if dispatch.WRITE_HOOKS:
        dispatch.before_write(self)
    storage, shape, strides, offset = _set_geometry_args(self, source, storage_offset, size, stride)
    if storage.device is not self._storage.device and storage.device != self._storage.device:
        raise RuntimeError(
            f'Attempted to set the storage of a tensor on device "{self.device}" to a storage on '
            f'different device "{storage.device}".  This is no longer allowed; the devices must match.')
    src = source if isinstance(source, Tensor) else None
    recording = grad_mode.state.enabled and (
        self._requires_grad or (src is not None and src._requires_grad))
    edges = None
    if recording:
        policy.check_autograd_inplace("set_", self, policy.policy_of(self))
        from ..autograd.node import edge_of

        edges = (edge_of(self), edge_of(src))
    need = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if \
        layout.numel(shape) else 0
    if need > storage.size():
        grow_storage(storage, need)
    self._storage = storage
    self._set_geometry(shape, strides, offset)
    self._arr = None
    self._vc.bump()  # (an inference tensor's counter refuses here, after the change: PyTorch's)
    _reset_grad_accumulator(self)
    if edges is not None:
        from ..autograd import views

        views.rebase_history(self, SetNotImplemented(edges))
    if hooks.active:
        hooks.emit_op(_SET, "inplace", [self] + ([src] if src is not None else []), self)
    return self


_SET = dispatch.Untabled("set_")


def pin_memory(self, device=None):
    """A copy in page-locked host memory (cupy's pinned allocator); self if already pinned."""
    from ..storage import Storage

    if self.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    if self.is_pinned():
        return self
    buf = backend.pinned_empty(self.numel(), self._dtype.np)
    buf[...] = self._a.reshape(-1)
    shape = self._shape
    out = Tensor._make(Storage(buf, self._dtype, self.device, pinned=True), shape,
                       layout.contiguous_strides(shape))
    out._policy = self._policy
    return out


def is_pinned(self, device=None) -> bool:
    return bool(self._storage.pinned)


def copy_(self, src, non_blocking=False):
    """``self.copy_(src)``: ``src`` may live on another device; it is moved first (keeping its
    autograd edge), then the one in-place ``copy`` op of the table writes into self."""
    if isinstance(src, Tensor) and src.device != self.device and not (
            src.ndim == 0 and src.device.type == "cpu"):
        src = to_device(src, self.device)
    return dispatch.call_inplace(OPS["copy"], (self, src), {"non_blocking": non_blocking})


def sum_to_size_method(self, *size):
    """ATen's ``sum_to``: ``self`` itself at its own size, a plain sum to a 0-dim size; else a
    keepdim sum over the dims to reduce (SumBackward1), viewed to ``size`` when leading dims go
    (ViewBackward0: the engine's reduced gradient is then a view, which it never accumulates
    into in place)."""
    size = tuple(layout.dims_arg(size))
    shape = self._shape
    lead = len(shape) - len(size)
    if size == shape:
        return self
    if not size and shape:  # (to a 0-dim shape: a plain sum, no view)
        return self.sum()
    if lead < 0 or any(n != 1 and n != m for n, m in zip(size, shape[lead:])):
        return dispatch.call(OPS["sum_to_size"], (self, size), {})  # (its error)
    dims = list(range(lead)) + [lead + i for i, n in enumerate(size)
                                if n == 1 and shape[lead + i] != 1]
    r = self.sum(dims, keepdim=True)
    return r.view(size) if lead else r


def fill_diagonal_(self, fill_value, wrap=False):
    """PyTorch's composite: ``fill_`` through an ``as_strided`` view of the main diagonal
    (one step is the sum of the strides), and with ``wrap`` of a tall matrix a second one
    below it. So a non-leaf gets CopySlices, a leaf that requires grad refuses ("a view of a
    leaf Variable"), and each fill bumps the version. (Paddle's ``fill_diagonal_`` is the
    table's ``fill_diagonal`` op, with its offset.)"""
    from .paddle_ops import _fill_diagonal_check

    shape, strides = self._shape, self._strides
    _fill_diagonal_check(shape)
    height, width = shape[0], shape[1]
    size = min(height, width)
    stride = sum(strides)
    self.as_strided((size,), (stride,), self._offset).fill_(fill_value)
    if wrap and len(shape) == 2 and height > width + 1:
        step = width + 1
        wrap_size = (self.numel() + step - 1) // step - size
        self.as_strided((wrap_size,), (stride,),
                        self._offset + strides[0] * (width + 1)).fill_(fill_value)
    return self


def _T(self):
    return dispatch.call_view(OPS["permute"], (self, tuple(reversed(range(self.ndim)))), {})


def _mT(self):
    return dispatch.call_view(OPS["mT"], (self,), {})


def install(cls) -> None:
    ops = {
        "__add__": _fn("add", 2), "__radd__": _fn("add", 2), "__iadd__": _iop("add"),
        "__sub__": _fn("sub", 2), "__rsub__": _fn("rsub"), "__isub__": _iop("sub"),
        "__mul__": _fn("mul", 2), "__rmul__": _fn("mul", 2), "__imul__": _iop("mul"),
        "__truediv__": _fn("div", 2), "__rtruediv__": _rtruediv, "__itruediv__": _iop("div"),
        "__floordiv__": _fn("floor_divide"), "__rfloordiv__": _rev("floor_divide"),
        "__ifloordiv__": _iop("floor_divide"),
        "__mod__": _fn("remainder"), "__rmod__": _rev("remainder"), "__imod__": _iop("remainder"),
        "__pow__": _fn("pow"), "__rpow__": _rev("pow"), "__ipow__": _iop("pow"),
        "__matmul__": _fn("matmul"), "__rmatmul__": _rev("matmul"),
        "__neg__": _fn("neg", 1), "__abs__": _fn("abs", 1), "__pos__": _fn("positive"),
        "__invert__": _fn("bitwise_not"),
        "__and__": _fn("bitwise_and"), "__rand__": _rev("bitwise_and"), "__iand__": _iop("bitwise_and"),
        "__or__": _fn("bitwise_or"), "__ror__": _rev("bitwise_or"), "__ior__": _iop("bitwise_or"),
        "__xor__": _fn("bitwise_xor"), "__rxor__": _rev("bitwise_xor"), "__ixor__": _iop("bitwise_xor"),
        "__lshift__": _fn("bitwise_left_shift"), "__rshift__": _fn("bitwise_right_shift"),
        "__eq__": _fn("eq"), "__ne__": _fn("ne"), "__lt__": _fn("lt"), "__le__": _fn("le"),
        "__gt__": _fn("gt"), "__ge__": _fn("ge"),
        "reshape": reshape, "flatten": flatten, "ravel": ravel, "contiguous": contiguous,
        "view_as": view_as, "reshape_as": reshape_as, "expand_as": expand_as,
        "to": to, "type": type_, "cpu": cpu, "cuda": cuda,
        "float": _caster(dtypes.float32), "double": _caster(dtypes.float64),
        "half": _caster(dtypes.float16), "long": _caster(dtypes.int64), "int": _caster(dtypes.int32),
        "short": _caster(dtypes.int16), "char": _caster(dtypes.int8), "byte": _caster(dtypes.uint8),
        "bool": _caster(dtypes.bool_),
        "new_tensor": new_tensor, "new_full": new_full,
        "new_zeros": _new_factory("zeros"), "new_ones": _new_factory("ones"),
        "new_empty": _new_factory("empty"),
        "where": where, "resize_": resize_, "sum_to_size": sum_to_size_method,
        "fill_diagonal_": fill_diagonal_,
        "pin_memory": pin_memory, "is_pinned": is_pinned, "copy_": copy_, "set_": set_,
        "T": property(_T), "mT": property(_mT),
    }
    # permute_ is not PyTorch API; the paddle facade's transpose_(perm) is built on it.
    for n in ("t", "transpose", "squeeze", "unsqueeze", "as_strided", "swapaxes", "swapdims",
              "permute"):
        ops[n + "_"] = _inplace_view(n)
    for k, v in ops.items():
        setattr(cls, k, v)
    from . import indexing

    cls.__getitem__ = indexing.getitem
    cls.__setitem__ = indexing.setitem

