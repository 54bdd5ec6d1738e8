"""``paddle.Tensor``: inplace_lab's Tensor with Paddle's names, signatures and printing.

A subclass, so PyTorch-style tensors keep PyTorch's methods: every tensor whose
``_policy`` is "paddle" becomes one (``Tensor._policy_classes``), including op
results, views and gradients. It adds ``stop_gradient``, ``_inplace_version()``,
``inplace_version``, Paddle's generated names, ``place``, Paddle's in-place methods
(``add_(y, alpha=)``, ``scale_``, ``reshape_(list)``, ``transpose_(perm)`` ...) and
Paddle's argument names (``axis``, ``x``, ``y``) for the table's ops. In-place
names Paddle does not have (``relu_``, ``exp2_``) read as absent, as in Paddle.
"""
from __future__ import annotations

import itertools
import sys as _sys
import weakref

from inplace_lab import facade, policy
from inplace_lab.autograd import grad_mode
from inplace_lab.ops import dispatch
from inplace_lab.ops.table import OPS
from inplace_lab.tensor import Tensor as _Core

from . import api_names, inplace, views

_tmp_names = itertools.count()
_generated_names = itertools.count()

# Paddle argument name -> inplace_lab's, for out-of-place methods and functions.
_ARG_NAMES = {"axis": "dim", "x": "input", "perm": "dims"}


class Place:
    """``Place(cpu)`` / ``Place(gpu:0)``: where a Paddle tensor lives."""

    def __init__(self, dev):
        self._dev = dev

    def __repr__(self):
        return "Place(cpu)" if self._dev.type == "cpu" else f"Place(gpu:{self._dev.index or 0})"

    __str__ = __repr__

    def is_cpu_place(self) -> bool:
        return self._dev.type == "cpu"

    def is_gpu_place(self) -> bool:
        return self._dev.type == "cuda"

    def __eq__(self, other):
        return isinstance(other, Place) and repr(self) == repr(other)

    def __hash__(self):
        return hash(repr(self))


class Size(tuple):
    """``paddle.Size``: equal to the list of dims (``x.shape == [3]``), with Paddle's repr.

    A tuple (the core adds shapes to tuples), that compares equal to lists as Paddle's does.
    """

    def __eq__(self, other):
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = tuple.__hash__

    def __repr__(self):
        return f"paddle.Size({list(self)!r})"


def translate_kwargs(spec, kwargs: dict) -> dict:
    """Paddle keyword names (x, y, axis, name) -> the table op's."""
    out = {}
    for k, v in kwargs.items():
        if k == "name":
            continue
        if k == "y" and len(spec.args) > 1:
            k = spec.args[1]
        out[_ARG_NAMES.get(k, k)] = v
    return out


def paddle_signature(name: str, spec, order, defaults=None):
    """``name`` with Paddle's parameters (``api_names.FUNCTION_ARGS``): each argument,
    positional or keyword, goes to the op under the op's own name for it."""
    by_name = dict(order)
    if defaults is None:
        defaults = api_names.FUNCTION_DEFAULTS.get(name, {})
    entry = dispatch.call_view if spec.kind == "view" else dispatch.call

    def fn(*args, **kwargs):
        if len(args) == len(order) + 1:  # (Paddle's last parameter, ``name``, given in place)
            args = args[:-1]
        if len(args) > len(order):
            need = sum(1 for _, core in order if core not in defaults)
            raise TypeError(f"{name}() takes from {need} to {len(order) + 1} positional "
                            f"arguments but {len(args)} were given")
        kw = dict(defaults)
        for (_, core), v in zip(order, args):
            if core is not None:
                kw[core] = v
        for k, v in kwargs.items():
            if k == "name":
                continue
            if k in kw and k not in defaults and k not in by_name:
                raise TypeError(f"{name}() got multiple values for argument '{k}'")
            core = by_name.get(k, k)
            if core is not None:
                kw[core] = v
        if kw.get("out", 0) is None:
            del kw["out"]
        return entry(spec, (), kw)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"paddle.{name}({', '.join(p for p, _ in order)}): the {spec.name!r} op."
    return fn


def _paddle_method(spec, name=None):
    order = api_names.FUNCTION_ARGS.get(name or spec.name)
    if order is not None:
        return paddle_signature(name or spec.name, spec, order)
    if spec.kind == "view":
        def m(self, *args, **kwargs):
            return dispatch.call_view(spec, (self,) + args, translate_kwargs(spec, kwargs))
    else:
        def m(self, *args, **kwargs):
            s = spec.select((self,) + args, kwargs) if spec.select is not None else None
            return dispatch.call(s or spec, (self,) + args, translate_kwargs(spec, kwargs))
    m.__name__ = m.__qualname__ = spec.name
    m._positional_as_core = True  # (PyTorch's positional arguments pass through unchanged)
    return m


def _core_or_own(name: str, own):
    """``paddle.Tensor.<name>`` with Paddle's signature, or the core's (PyTorch's) method
    while the core's own code runs (``policy.core_calls``: a composite such as batched
    ``matmul``, or a backward formula such as bmm's ``mat2.transpose(1, 2)``)."""
    core = getattr(_Core, name)
    cc = policy.core_calls

    if isinstance(own, property):
        core_get, own_get = core.__get__, own.fget
        return property(lambda self: core_get(self) if cc[0] else own_get(self), own.fset,
                        own.fdel, own.__doc__)

    def m(self, *args, **kwargs):
        if cc[0]:
            return core(self, *args, **kwargs)
        return own(self, *args, **kwargs)

    m.__name__ = m.__qualname__ = name
    m.__doc__ = own.__doc__
    m.__wrapped__ = own
    return m


def numel_tensor(x):
    """``paddle.numel(x)``: the element count as a 0-D int64 tensor on the CPU."""
    from inplace_lab import creation, dtypes

    from .creation import _own

    return _own(creation.tensor(_Core.numel(x), dtype=dtypes.int64))


def honour_core_calls() -> None:
    """Wrap every method paddle.Tensor defines with Paddle's own signature (hand-written
    ones, in-place adapters, ``size``) in ``_core_or_own``; hidden names read as the core's
    while core code runs (``facade.Hidden``). Called once the facade has set them all."""
    for name, v in list(vars(Tensor).items()):
        if name.startswith("__") and name != "__getitem__":
            continue
        core = getattr(_Core, name, None)
        if core is None or v is core or isinstance(v, facade.Hidden) or \
                getattr(v, "_positional_as_core", False) or hasattr(v, "__wrapped__"):
            continue
        if isinstance(v, property):
            if name == "size":  # (shape, grad, name, is_leaf read the same in core code)
                setattr(Tensor, name, _core_or_own(name, v))
        elif callable(v):
            setattr(Tensor, name, _core_or_own(name, v))


class Tensor(_Core):
    """A Paddle-style tensor (made by ``paddle.to_tensor`` and the other paddle facade functions)."""

    __slots__ = ()

    # ---- Paddle's autograd names -----------------------------------------------------------
    @property
    def stop_gradient(self) -> bool:
        """Paddle's inverse of ``requires_grad``: ``stop_gradient=False`` makes a leaf track grads."""
        return not self._requires_grad

    @stop_gradient.setter
    def stop_gradient(self, value: bool):
        self.requires_grad_(not value)

    def _inplace_version(self) -> int:
        return self._vc.version

    @property
    def inplace_version(self) -> int:
        return self._vc.version

    @property
    def is_leaf(self) -> bool:
        """Paddle: a tensor with a grad node stays a non-leaf after ``stop_gradient = True``."""
        return self._grad_fn is None

    @property
    def grad(self):
        """The accumulated gradient, as Paddle hands it out: a new tensor object on the same
        buffer each time, with ``stop_gradient=False`` and no history (so an in-place op on
        it, with grad enabled, is the leaf error). None before backward; no warning on
        non-leaves."""
        g = self._grad
        if g is None:
            return None
        a = _Core.detach(g)
        a._policy = "paddle"
        a._requires_grad = True
        return a

    @grad.setter
    def grad(self, value):
        _Core.grad.fset(self, value)

    grad_ = grad

    def backward(self, grad_tensor=None, retain_graph=False):
        """Paddle's backward: a non-scalar output gets a gradient of ones; on a tensor that
        stops gradient it does nothing (no error, as Paddle)."""
        if not self._requires_grad:
            return
        _Core.backward(self, grad_tensor, retain_graph=retain_graph)

    def clear_gradient(self, set_to_zero=True):
        """Zero the gradient's values (no version bump, as Paddle's), or drop it."""
        if self._grad is not None and set_to_zero:
            self._grad._a[...] = 0
        else:
            self._grad = None

    clear_grad = clear_gradient

    # ---- names, place, shape ---------------------------------------------------------------
    @property
    def name(self) -> str:
        """Paddle names every tensor: to_tensor's are generated_tensor_N, op results eager_tmp_N."""
        if self._name is None:
            d = self.__dict__
            if "_tmp_name" not in d:
                d["_tmp_name"] = f"eager_tmp_{next(_tmp_names)}"
            return d["_tmp_name"]
        return self._name

    def _cpp_name(self) -> str:
        """The name Paddle's C++ messages print: a to_tensor's, or an op result's only once
        Python has asked for ``.name`` (empty before)."""
        return self._name if self._name is not None else self.__dict__.get("_tmp_name", "")

    @name.setter
    def name(self, value):
        _Core.name.fset(self, value)

    def _give_generated_name(self):
        self._name = f"generated_tensor_{next(_generated_names)}"
        return self

    @property
    def place(self) -> Place:
        return Place(self.device)

    @property
    def shape(self) -> Size:
        return Size(self._shape)

    @property
    def size(self) -> int:
        """Paddle's ``size`` is the number of elements (a property, not a method)."""
        return _Core.numel(self)

    def numel(self, name=None):
        """The number of elements as a 0-D int64 tensor, as Paddle's ``numel``
        (``int(x.numel())`` and ``range(x.numel())`` work on it). The library's own code
        (the core and this facade, written against the core's ``numel``) gets the int."""
        if _sys._getframe(1).f_globals.get("__name__", "").startswith("inplace_lab."):
            return _Core.numel(self)
        return numel_tensor(self)

    numel._positional_as_core = True  # (not wrapped by honour_core_calls: the frame above
    #                                     is the caller's)

    def dim(self) -> int:
        return self.ndim

    def numpy(self):
        """A copy of the data as a numpy array (Paddle copies; no error when it requires grad)."""
        from inplace_lab import backend

        return backend.to_numpy(self._a).copy()

    def set_value(self, value):
        """Overwrite the data with ``value`` (array or tensor of the same shape), as Paddle:
        out of band, the version does not move (``Parameter.set_value`` in lessons)."""
        import numpy as np

        from inplace_lab import backend

        arr = value.numpy() if isinstance(value, _Core) else np.asarray(value)
        if tuple(arr.shape) != tuple(self._shape):
            raise ValueError(f"The shape of the new value must be {list(self._shape)}, but "
                             f"received {list(arr.shape)}")
        self._a[...] = backend.xp_of(self.device).asarray(arr.astype(self._dtype.np))
        return self

    def cast(self, dtype):
        """Paddle's cast: always a new tensor with its own buffer (CastGradNode), even to the
        dtype it has (PyTorch's ``.to`` returns the tensor itself then)."""
        from inplace_lab import dtypes

        return dispatch.call(OPS["_to_copy"], (self,), {"dtype": dtypes.from_any(dtype)})

    def astype(self, dtype):
        """``cast``, except that to the dtype it has the tensor itself comes back (Paddle
        3.3.1's ``astype``: ``if self.dtype == dtype: return self``)."""
        from inplace_lab import dtypes

        if dtypes.from_any(dtype) is self._dtype:
            return self
        return self.cast(dtype)

    def t(self, name=None):
        """Paddle's ``t``: a tensor of at most 2 dims (ValueError, in Paddle's words)."""
        if self.ndim > 2:
            raise ValueError(
                "Input(input) only support N-D (N<=2) tensor, but received length of "
                f"Input(input) is {self.ndim}. Perhaps you can use paddle.tensor.transpose() "
                "instead.")
        return _Core.t(self)

    def __bool__(self):
        """Paddle's truth of a one-element tensor is ``value > 0`` (so -1.0 and NaN are False);
        more elements (or none) is its AssertionError."""
        assert self.numel() == 1, ("When Variable is used as the condition of if/while , "
                                   "Variable can only contain one element.")
        v = self.item()  # (numpy's complex order: by the real part, then the imaginary)
        return bool(v > 0) if not self._dtype.is_complex else (v.real, v.imag) > (0, 0)

    def retain_grads(self):
        """Keep this non-leaf's ``.grad`` after backward: the gradient of the value it has now
        (a later in-place op leaves the hook on this value's node). A no-op on a leaf or a
        tensor that stops gradient, as in Paddle."""
        if self._requires_grad and self._grad_fn is not None:
            _Core.retain_grad(self)

    # Tensors made by ``detach()`` from one another: one DenseTensor in Paddle, so a shape,
    # dtype or buffer change of one (reshape_, t_, cast_, a promoting add_, copy_ of another
    # shape) is every one's. A list of weak references shared by the group; see share_meta.
    _twins = None

    def detach(self):
        """No history, same buffer and version counter; in Paddle also the same shape and
        dtype from then on (``d = x.detach(); x.reshape_([-1])`` reshapes d too)."""
        d = _Core.detach(self)
        d._name = f"eager_in_tmp_{next(_generated_names)}"  # (Paddle names it at once, from
        group = self._twins                                # to_tensor's counter)
        if group is None:
            group = self._twins = [weakref.ref(self)]
        group[:] = [r for r in group if r() is not None] + [weakref.ref(d)]
        d._twins = group
        return d

    def detach_(self):
        """Paddle detaches a view in place too (it keeps sharing its base's buffer and version
        counter); PyTorch refuses a view."""
        self._grad = None  # (Paddle's detach_ drops the gradient too, and the leaf's node:
        self._grad_acc = None  # a graph built before no longer accumulates into it)
        if self._base is None or grad_mode.state.inference:
            return _Core.detach_(self)
        return self._cut_from_graph()

    # ---- Paddle's signatures for methods that differ from PyTorch's ------------------------
    reshape = views.reshape
    view = views.view
    flatten = views.flatten
    split = views.split
    chunk = views.chunk
    unstack = views.unstack
    expand = views.expand
    expand_as = views.expand_as
    broadcast_to = views.broadcast_to
    as_strided = views.as_strided

    def transpose(self, perm, name=None):
        views.check_perm(self.ndim, list(perm))
        return _Core.permute(self, list(perm))

    def __getitem__(self, item):
        """Paddle: an index of whole-dimension slices is the tensor itself; a bad integer
        index or too many indices fail with Paddle's words."""
        if views.is_whole(item, self._shape):
            return self
        views.check_index(item, self._shape)
        return _Core.__getitem__(self, item)

    def __setitem__(self, item, value):
        """Paddle's check of a tensor value's shape against the indexed region's (a value
        that does not broadcast there is its ValueError), then the core's setitem."""
        if self._requires_grad and self._grad_fn is None and grad_mode.state.enabled:
            raise policy.leaf_error(self, policy.policy_of(self), setitem=True, op="index_put")
        #   (Paddle's leaf check comes first: before the index's range and the value's shape)
        views.check_index(item, self._shape)  # (an index out of range: Paddle's OutOfRange)
        if isinstance(value, _Core) and value.ndim:
            target = list(_Core.__getitem__(self, item).shape)
            have = list(value.shape)
            fit = have
            while len(fit) > len(target) and fit[0] == 1:  # (leading 1s squeeze away)
                fit = fit[1:]
            if len(fit) > len(target) or any(
                    v != t and v != 1 for v, t in zip(fit[::-1], target[::-1])):
                raise ValueError("(InvalidArgument) The shape of tensor assigned value must match "
                                 f"the shape of target shape: {have}, but now shape is "
                                 f"{target}.")
        _Core.__setitem__(self, item, value)
        if isinstance(value, _Core) and value._requires_grad and not self._requires_grad and (
                self._dtype.is_floating_point or self._dtype.is_complex):
            self._requires_grad = True  # (under no_grad too: Paddle's C++ setitem makes the
            #                             target trainable, a leaf when nothing was recorded)

    def is_contiguous(self, memory_format=None) -> bool:
        """Paddle's test: the strides are exactly the row-major ones (size-1 dims included)."""
        return views.is_contiguous(self)

    @property
    def strides(self) -> list:
        return self.get_strides()

    def get_strides(self) -> list:
        """Element strides; an empty tensor that is no view shows its shape there, as
        Paddle's (``zeros([2, 0]).get_strides()`` is ``[2, 0]``)."""
        if self._base is None and 0 in self._shape:
            return list(self._shape)
        return list(self._strides)

    @property
    def offset(self) -> int:
        """Byte offset of the first element in the storage (Paddle's ``Tensor.offset``;
        0 for an empty tensor, a view included)."""
        return 0 if 0 in self._shape else self._offset * self._dtype.itemsize

    def _is_shared_buffer_with(self, other) -> bool:
        """Paddle's test of whether two tensors use one allocation (views, detach, x[:])."""
        if not isinstance(other, _Core):
            return False
        a, b = self._storage, other._storage  # (an int tensor turned float32 in place by
        #                                       exp_ reads its allocation through a view)
        return getattr(a, "base_storage", a) is getattr(b, "base_storage", b)

    def unsqueeze(self, axis, name=None):
        t = self
        for a in ([axis] if isinstance(axis, int) else list(axis)):
            t = _Core.unsqueeze(t, a)
        return t

    def squeeze(self, axis=None, name=None):
        if axis is None:
            return _Core.squeeze(self)
        return _Core.squeeze(self, tuple(axis) if isinstance(axis, (list, tuple)) else axis)

    def __repr__(self):
        from .printing import paddle_repr

        return paddle_repr(self)

    __str__ = __repr__


def _install() -> None:
    """Paddle's argument names on every table op method; Paddle's in-place methods; hide the rest."""
    own = set(vars(Tensor))
    for spec in list(OPS.values()):
        if not spec.method:
            continue
        for n in (spec.name,) + tuple(spec.aliases):
            if n not in own and callable(getattr(_Core, n, None)):
                setattr(Tensor, n, _paddle_method(spec, n))
    for n, order in api_names.FUNCTION_ARGS.items():  # (x.where(a, b) is where(x, a, b))
        spec = facade.resolve(n, inplace.RENAMES)
        if n not in api_names.FUNCTION_ONLY and n not in own and spec is not None:
            setattr(Tensor, n, paddle_signature(n, spec, order))
    paddle_names = set(api_names.TENSOR_INPLACE)
    for n in dir(_Core):
        if n.endswith("_") and not n.startswith("_") and n not in paddle_names and n not in own:
            setattr(Tensor, n, facade.Hidden("Tensor", n))
    for n in api_names.TENSOR_INPLACE:
        if n not in own:
            setattr(Tensor, n, inplace.adapter(n))
    for pol in ("paddle", "paddle-legacy"):
        _Core._policy_classes[pol] = Tensor


_install()
