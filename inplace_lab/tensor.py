"""Tensor: a window (shape, strides, offset) on a Storage, plus autograd state.

The tensor object holds metadata only; the numbers live in ``_storage``. Views
are more Tensor objects on the same storage that also share the version
counter ``_vc``. Every op method is installed from the op table by
``inplace_lab.ops`` (nothing here repeats the table by hand); this file keeps
the properties users read (PyTorch's names) and the autograd surface.
"""
from __future__ import annotations

import weakref

from . import backend, layout, memory
from .autograd import grad_mode
from .dtypes import dtype as _dtype
from .dtypes import from_numpy_dtype
from .storage import _DEVICES, Storage
from .storage import _ids as _storage_ids
from .version import InferenceCounter, VersionCounter, alias_counter


class Tensor:
    """An n-dimensional array that shares storage with its views and records versions."""

    # Slots for what the core sets or reads on every op (a view's base and meta, a recorded
    # result's output number included); the rest are class defaults that a tensor overrides
    # in its __dict__ when it needs to (a leaf's grad and hooks, a name ...), so making an
    # op's result writes thirteen fields, not eighteen.
    __slots__ = ("_storage", "_shape", "_strides", "_offset", "_dtype", "_vc", "_arr", "_base",
                 "_requires_grad", "_grad_fn", "_output_nr", "_view_meta", "_pol", "__weakref__",
                 "__dict__")
    _grad = None
    _grad_acc = None
    _hooks = None
    _name = None
    _is_param = False
    _retain_site = None  # (weakref(node), output_nr) whose retain_grad hook fills this .grad

    __array_priority__ = 1000  # numpy scalars defer to our operators

    # A facade may register a Tensor subclass for its policy (paddle.Tensor carries Paddle's
    # method signatures): setting ``_policy`` gives the tensor that class, so every op result,
    # view and gradient of a facade tensor is an object of that facade's Tensor class.
    _policy_classes: dict = {}

    @property
    def _policy(self):
        return self._pol

    @_policy.setter
    def _policy(self, pol):
        self._pol = pol
        cls = Tensor._policy_classes.get(pol)
        if cls is not None and not isinstance(self, cls):
            self.__class__ = cls

    # ---- construction ----------------------------------------------------------------------
    def __init__(self, *args, **kwargs):
        from . import creation

        t = creation.tensor(args[0] if len(args) == 1 else list(args), **kwargs) if args else \
            creation.empty((0,), **kwargs)
        Tensor._init_from(self, t._storage, t._shape, t._strides, t._offset)

    def _init_from(self, storage, shape, strides, offset, vc=None, base=None):
        self._storage = storage
        self._shape = tuple(shape)
        self._strides = tuple(strides)
        self._offset = offset
        self._dtype = storage.dtype
        self._vc = vc if vc is not None else (
            InferenceCounter() if grad_mode.state.inference else VersionCounter())
        self._base = base
        self._arr = None
        self._requires_grad = False
        self._grad_fn = None
        self._output_nr = 0
        self._view_meta = None
        self._pol = None  # (the _policy setter: only a facade policy changes the class)

    @classmethod
    def _make(cls, storage, shape, strides, offset=0, vc=None, base=None):
        t = object.__new__(cls)
        t._init_from(storage, shape, strides, offset, vc, base)
        return t

    @classmethod
    def _wrap(cls, arr, dev, policy=None):
        """Adopt a fresh backend array (an op's result) as a new tensor with its own storage."""
        dt = from_numpy_dtype(arr.dtype)
        if arr.flags.c_contiguous:  # (a 0-dim array ravels to a 1-element view too)
            dev = _DEVICES.get(dev.key) or Storage._canonical(dev)
            if policy is not None:  # (as the _policy setter: the facade's class, unless cls is one)
                pc = Tensor._policy_classes.get(policy)
                if pc is not None and not issubclass(cls, pc):
                    cls = pc
            return fresh(cls, arr, dt, dev, policy)
        if policy == "paddle" or policy == "paddle-legacy":  # Paddle's kernels write row-major
            return cls._wrap(arr.copy(order="C"), dev, policy)  # results whatever the inputs
        flat, strides, shared = _flat_buffer(arr)
        t = object.__new__(cls)
        t._init_from(Storage(flat, dt, dev), arr.shape, strides, 0)
        if shared:
            t._arr = arr
        if policy is not None:
            t._policy = policy
        return t

    @classmethod
    def _alias(cls, t):
        """Same storage, same version counter, no autograd history (what ``detach()`` returns)."""
        a = blank(cls, t._storage, t._shape, t._strides, t._offset, t._dtype, t._vc, t._arr,
                  None, None)
        if t._pol is not None:
            a._policy = t._pol
        if t._name is not None:
            a._name = t._name
        return a

    def _alias_with_grad(self, node, output_nr):
        a = Tensor._alias(self)
        a._grad_fn = node
        a._output_nr = output_nr
        a._requires_grad = True
        return a

    # ---- the backend array view ------------------------------------------------------------
    @property
    def _a(self):
        """A numpy/cupy view of exactly this tensor's elements (shares the storage)."""
        a = self._arr
        if a is None:
            it = self._dtype.itemsize
            a = backend.as_strided(self._storage.data, self._shape,
                                   tuple(s * it for s in self._strides), self._offset * it)
            self._arr = a
        return a

    def _set_geometry(self, shape, strides, offset=None):
        """Change this tensor's metadata in place (t_, transpose_, squeeze_, resize_ ...)."""
        self._shape = tuple(shape)
        self._strides = tuple(strides)
        if offset is not None:
            self._offset = offset
        self._arr = None

    # ---- PyTorch-named metadata --------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._shape)
        return self._shape[layout.wrap_dim(dim, len(self._shape))]

    def stride(self, dim=None):
        if dim is None:
            return self._strides
        return self._strides[layout.wrap_dim(dim, len(self._shape))]

    def storage_offset(self) -> int:
        return self._offset

    @property
    def dtype(self) -> _dtype:
        """The facade's dtype object (``torch.float32`` on a torch tensor); the core reads ``_dtype``."""
        return self._dtype._facades[self._pol]

    @property
    def device(self):
        return self._storage.device

    @property
    def is_cuda(self) -> bool:
        return self._storage.device.type == "cuda"

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    def numel(self) -> int:
        return layout.numel(self._shape)

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    def is_contiguous(self, memory_format=None) -> bool:
        return layout.is_contiguous(self._shape, self._strides)

    def untyped_storage(self) -> Storage:
        return self._storage

    def data_ptr(self) -> int:
        if 0 in self._shape:  # PyTorch: an empty tensor has no data (nullptr)
            return 0
        return self._storage.data_ptr() + self._offset * self._dtype.itemsize

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    @property
    def _version(self) -> int:
        vc = self._vc
        if not vc.counted:
            from .version import refuse_version

            refuse_version(self)
        return vc.version

    def is_inference(self) -> bool:
        """Made under ``inference_mode()`` (or a view/detach of such a tensor): no version counter."""
        return self._vc.inference

    def _is_view(self) -> bool:
        return self._base is not None

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        self._name = None if value is None else str(value)
        if value is not None:
            self._storage.add_owner(self)

    # ---- autograd surface --------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag, _who="attribute")

    def requires_grad_(self, requires_grad: bool = True, *, _who: str = "method"):
        """Turn gradient tracking on or off for a leaf (no version bump)."""
        requires_grad = bool(requires_grad)
        if not self.is_leaf:
            from .policy import is_paddle, policy_of

            if is_paddle(policy_of(self)):  # Paddle: stop_gradient on a non-leaf keeps it a
                self._requires_grad = requires_grad  # non-leaf, and can be turned back
                return self
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and not (self._dtype.is_floating_point or self._dtype.is_complex):
            raise RuntimeError(_INT_GRAD_TEXT[_who])  # PyTorch words it three ways
        if requires_grad and self._vc.inference and not grad_mode.state.inference:
            from .version import refuse_requires_grad

            refuse_requires_grad(self)
        vm = self._view_meta
        if not requires_grad and vm is not None and self._base is not None and \
                self._base._requires_grad and not _paddle_rules(self):
            # PyTorch: a view's requires_grad is its own flag or its base's, so a view made
            # under no_grad/inference_mode keeps requiring grad while its base does (wide seed
            # 57688), and stops when the base stops (base_requires_grad_now)
            vm.inherited = True
            return self
        self._requires_grad = requires_grad
        if requires_grad and vm is not None and vm.inherited:  # (a view that required grad only
            vm.inherited = False  # through its base, made under no_grad/inference_mode: its own
            # flag now, so its own AccumulateGrad, as PyTorch's requires_grad_ on it)
        if self.__dict__.get("_views"):  # views taken earlier follow the base
            from .autograd.views import base_requires_grad_now

            base_requires_grad_now(self, requires_grad)
        return self

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn this tensor is (``unbind``'s i-th piece: i; leaves: 0)."""
        return self._output_nr

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None or not self._requires_grad

    @property
    def grad_fn(self):
        """The node that produced this tensor (rebuilt lazily for views after an in-place op)."""
        vm = self._view_meta
        if vm is not None and vm.stale(self):
            from .autograd import views

            views.refresh_view_grad_fn(self)
        return self._grad_fn

    @property
    def grad(self):
        if self._grad_fn is not None and self._requires_grad and not self._retains_grad_flag():
            import warnings

            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                "non-leaf Tensor.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError("assigned grad has data of a different size")
            if value._dtype is not self._dtype:
                raise RuntimeError("assigned grad has data of a different type")
        self._grad = value

    def _retains_grad_flag(self) -> bool:
        site = self._retain_site
        if site is None:
            return False
        node = site[0]()
        ref = node._retains.get(site[1]) if node is not None else None
        return ref is not None and ref() is self

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad_flag()

    def retain_grad(self) -> None:
        """Keep ``.grad`` for a non-leaf too (survives later in-place ops on it)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.is_leaf or self._retains_grad_flag():  # (once: the hook stays where it is)
            return
        gf = self.grad_fn
        gf._retains[self._output_nr] = weakref.ref(self)
        self._retain_site = (weakref.ref(gf), self._output_nr)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        from .autograd.node import _Handle

        if self.is_leaf:
            if self._hooks is None:
                self._hooks = []
            self._hooks.append(hook)
            return _Handle(self._hooks, hook)
        hooks = self.grad_fn._tensor_pre_hooks.setdefault(self._output_nr, [])
        hooks.append(hook)
        return _Handle(hooks, hook)

    def _leaf_hooks(self):
        return self._hooks or ()

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd import backward as _backward

        _backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph,
                  inputs=inputs)

    def detach(self):
        """Same storage and version counter, no history (not a view)."""
        from . import ops

        return ops.dispatch.detach(self)

    def detach_(self):
        """Cut this tensor from its graph in place (no version bump). Any view is refused,
        even one that never required grad (torch: ``ones(3)[1:].detach_()`` raises). Under
        inference_mode torch skips its autograd kernel, the one that does the work: a no-op."""
        if grad_mode.state.inference:
            return self
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        return self._cut_from_graph()

    def _cut_from_graph(self):
        """detach_'s work: no node, no grad required, no view replay (the storage stays)."""
        self._grad_fn = None
        self._requires_grad = False
        self._view_meta = None
        return self

    @property
    def data(self):
        """Same storage, *fresh* version counter: writes through it are invisible to autograd."""
        vc = self._vc
        d = Tensor._make(self._storage, self._shape, self._strides, self._offset,
                         alias_counter(vc) if vc.inference else VersionCounter(), None)
        d._policy = self._policy
        return d

    @data.setter
    def data(self, other):
        if not isinstance(other, Tensor):
            raise TypeError("data must be a Tensor")
        if self._grad_acc is not None and (other._dtype is not self._dtype or
                                           other._storage.device != self._storage.device) \
                and not _paddle_rules(self):
            self._grad_acc = None  # (PyTorch's set_data: an AccumulateGrad of another type or
            #                        device is forgotten; graphs built before keep theirs)
        self._storage = other._storage
        self._dtype = other._dtype
        self._set_geometry(other._shape, other._strides, other._offset)

    # ---- Python protocol -------------------------------------------------------------------
    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._dtype.category > 1 or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return backend.to_numpy(self._a).reshape(()).item()

    def tolist(self):
        return backend.to_numpy(self._a).tolist()

    def numpy(self, force=False):
        """A numpy array sharing memory with this tensor (CPU only, like PyTorch)."""
        if self.device.type != "cpu":  # a simulated GPU refuses too: it teaches the real rule
            if not force:
                raise TypeError(
                    f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to "
                    "copy the tensor to host memory first.")
            return backend.to_numpy(self._a).copy()
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return _StorageKeeper(self).array()

    def __array__(self, dtype=None, copy=None):
        a = backend.to_numpy(self._a)
        return a.astype(dtype) if dtype is not None else a

    def __hash__(self):
        return id(self)

    def __repr__(self):
        from .printing import tensor_repr

        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec):
        if self.numel() == 1 and not self._shape:
            return format(self.item(), spec)
        return repr(self)

    def __reduce_ex__(self, proto):
        from .serialization import reduce_tensor

        return reduce_tensor(self)


_INT_GRAD_TEXT = {
    "method": "only Tensors of floating point dtype can require gradients",
    "attribute": "only Tensors of floating point and complex dtype can require gradients",
    "factory": "Only Tensors of floating point and complex dtype can require gradients",
}


class Size(tuple):
    """``torch.Size``: a tuple with PyTorch's repr."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    def numel(self) -> int:
        return layout.numel(self)

    # torch.Size arithmetic and slicing give a Size (torch.distributions prints them)
    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n):
        r = tuple.__mul__(self, n)
        return r if r is NotImplemented else Size(r)

    __rmul__ = __mul__

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r


class _StorageKeeper:
    """Makes ``Tensor.numpy()`` keep the storage alive for as long as the array lives."""

    def __init__(self, t):
        self._t = Tensor._alias(t)
        a = t._a
        self.__array_interface__ = dict(a.__array_interface__)

    def array(self):
        import numpy as np

        return np.asarray(self)


def blank(cls, storage, shape, strides, offset, dt, vc, arr, base, pol):
    """A ``cls`` tensor without history on ``storage``, every slot written in one frame (an
    alias, a view: made as often as op results; ``fresh`` writes the same fields inline)."""
    t = _new(cls)
    t._storage = storage
    t._shape = shape
    t._strides = strides
    t._offset = offset
    t._dtype = dt
    t._vc = vc
    t._arr = arr
    t._base = base
    t._requires_grad = False
    t._grad_fn = None
    t._output_nr = 0
    t._view_meta = None
    t._pol = pol
    return t


def fresh(cls, arr, dt, dev, pol):
    """A new ``cls`` tensor adopting ``arr``, a fresh C-contiguous array of
    core dtype ``dt`` on ``dev`` (the device's one object, as storages hold): its own
    storage and version counter, no history.

    What ``_wrap`` + ``_init_from`` do for an op's result, written out in one frame because
    every op result is made here (``cls`` is already the facade's class for ``pol``).
    """
    t = _new(cls)
    st = t._storage = _new(Storage)  # (Storage.__init__ written out, counting included)
    st.data = arr.ravel()
    st.dtype = dt
    st.device = dev
    st.id = sid = next(_storage_ids)
    k, n = dev.key, arr.nbytes
    cur = _allocated[k] + n
    _allocated[k] = cur
    if cur > _peak[k]:
        _peak[k] = cur
    if _listeners:
        for cb in _listeners:
            cb("alloc", sid, k, n)
    shape = t._shape = arr.shape
    strides = _C_STRIDES.get(shape)
    t._strides = strides if strides is not None else _c_strides(shape)
    t._offset = 0
    t._dtype = dt
    t._vc = VersionCounter() if not _gm_state.inference else InferenceCounter()
    t._arr = arr
    t._base = None
    t._requires_grad = False
    t._grad_fn = None
    t._output_nr = 0
    t._view_meta = None
    t._pol = pol
    return t


_new = object.__new__
_gm_state = grad_mode.state
_allocated, _peak, _listeners = memory._allocated, memory._peak, memory._listeners


def _flat_buffer(arr):
    """(1-D view over a dense array's memory, its strides in elements, whether it is shared).

    Dense arrays in any axis order (numpy keeps the input's order for ufunc results,
    as PyTorch does) are adopted without a copy; anything else is copied once.
    """
    if arr.flags.c_contiguous:  # ravel: a view, cheaper than reshape(-1)
        if arr.ndim == 0:
            return arr.reshape(1), (), True
        return arr.ravel(), _c_strides(arr.shape), True
    it = arr.itemsize
    if _dense_positive(arr):
        flat = arr.ravel(order="K")
        if _shares(flat, arr):
            return flat, tuple(s // it for s in arr.strides), True
    c = arr.copy()  # C order, numpy or cupy
    return c.reshape(-1), layout.contiguous_strides(c.shape), False


_C_STRIDES: dict = {}  # shape -> contiguous strides: a program uses few shapes, each many times


def _c_strides(shape: tuple) -> tuple:
    st = _C_STRIDES.get(shape)
    if st is None:
        if len(_C_STRIDES) > 4096:
            _C_STRIDES.clear()
        st = layout.contiguous_strides(shape)
        if 0 not in shape:  # (an empty shape's tuple is never shared, so the lanes' identity
            _C_STRIDES[shape] = st  # test sends its results to TensorIterator's strides, which
            #                          an empty result's 0 size can make non-contiguous)
    return st


def _dense_positive(arr) -> bool:
    return all(s > 0 for s in arr.strides) and \
        arr.size * arr.itemsize == (sum((n - 1) * s for n, s in zip(arr.shape, arr.strides)) + arr.itemsize)


def _shares(flat, arr) -> bool:
    try:
        return flat.__array_interface__["data"][0] == arr.__array_interface__["data"][0]
    except AttributeError:
        return flat.data.ptr == arr.data.ptr


def _paddle_rules(t) -> bool:
    from .policy import is_paddle, policy_of

    return is_paddle(policy_of(t))
