"""Smaller Tensor methods PyTorch lessons use: tensor_split, argwhere, type_as, resize_as_,
H/mH, real/imag, apply_/map_, layout and the (deprecated) typed ``storage()``.

Nothing here adds maths: ``tensor_split`` is one ``slice`` view per piece (each piece is a
view of the input with ``SliceBackward0``, exactly as PyTorch's composite), ``argwhere`` is
``nonzero``, ``type_as`` is ``to`` and ``H``/``mH`` are transposes (of a real tensor; the lazy
conjugate PyTorch adds for complex tensors needs a conj view this library does not have).
``apply_``/``map_`` call a Python function per element; like PyTorch they do not bump
``_version`` (they are CPU-only escape hatches that bypass the dispatcher), and refuse a
tensor that requires grad.

``.real``/``.imag`` of a complex tensor are, in PyTorch, float views over the complex
storage; here a storage has one element dtype, so they are not offered for complex tensors
(``.real`` of a real tensor is the tensor itself, as in PyTorch).
"""
from __future__ import annotations

import warnings

from .. import layout as _layout
from ..autograd import grad_mode
from ..tensor import Tensor
from . import dispatch, methods
from .table import OPS, OpSpec, register


def _need_tensor(fname, x, argname, pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, "
                        f"not {type(x).__name__}")


# ---- tensor_split / argwhere (table composites: torch.X and Tensor.X) ----------------------------

def tensor_split(input, indices_or_sections, dim=0):
    """Pieces along ``dim`` as ``slice`` views: ``n`` sections (the first ``size % n`` one
    longer) or cut points ``indices`` (pieces may be empty); a tensor argument is a 0-d
    long (sections) or a 1-d long (indices), as in PyTorch."""
    _need_tensor("tensor_split", input, "input")
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           f"tensor with {input.ndim} dims")
    d = _layout.wrap_dim(dim, input.ndim)
    arg = indices_or_sections
    if isinstance(arg, Tensor):
        if arg._dtype.name != "int64":
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {arg._dtype.torch_name}")
        if arg.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {arg.ndim} dims")
        arg = int(arg.item()) if arg.ndim == 0 else [int(v) for v in arg.tolist()]
    n = input._shape[d]
    if isinstance(arg, (list, tuple)):
        cuts = [int(i) for i in arg]
        bounds = list(zip([0] + cuts, cuts + [n]))
    else:
        k = int(arg)
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(n, k)
        bounds, s = [], 0
        for i in range(k):
            e = s + q + (1 if i < r else 0)
            bounds.append((s, e))
            s = e
    spec = OPS["slice"]
    return tuple(dispatch.call_view(spec, (input,), {"dim": d, "start": s, "end": max(s, e)})
                 for s, e in bounds)


def argwhere(input):
    """``torch.argwhere`` is ``torch.nonzero``: an (N, ndim) int64 tensor of indices."""
    _need_tensor("argwhere", input, "input")
    return dispatch.call(OPS["nonzero"], (input,), {})


for _f in (tensor_split, argwhere):
    register(OpSpec(name=_f.__name__, forward=_f, kind="composite", method=True,
                    args=("self",), doc=_f.__doc__))


# ---- plain methods -------------------------------------------------------------------------------

def type_as(self, other):
    """``self.to(other.dtype)``: self itself when the dtype already matches."""
    _need_tensor("type_as", other, "other")
    return methods.to(self, other._dtype)


def resize_as_(self, the_template, memory_format=None):
    """``resize_(the_template.shape)`` (same leaf rule and version rule as resize_)."""
    _need_tensor("resize_as_", the_template, "the_template")
    return methods.resize_(self, *the_template._shape)


def _no_complex(self, what):
    if self._dtype.is_complex:
        raise NotImplementedError(f"{what} of a complex tensor needs a conjugate/float view over "
                                  "complex storage, which inplace_lab does not model")


def _H(self):
    """The conjugate transpose of a matrix; a 0-d tensor is returned as is."""
    if self.ndim == 0:
        return self
    if self.ndim != 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). "
                           f"Got {self.ndim}-D tensor.")
    _no_complex(self, "H")
    return dispatch.call_view(OPS["transpose"], (self, 0, 1), {})


def _mH(self):
    """The conjugate transpose of the last two dims (``mT`` for a real tensor)."""
    _no_complex(self, "mH")
    return self.mT


def _real(self):
    _no_complex(self, "real")
    return self


def _imag(self):
    _no_complex(self, "imag")
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _check_apply(self, name):
    if self._requires_grad and grad_mode.state.enabled:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. "
                           f"Use var.detach().{name}() instead.")
    if self.device.type != "cpu":
        raise TypeError(f"{name}_ is only implemented on CPU tensors")


def apply_(self, callable):
    """Replace each element by ``callable(element)`` (Python numbers in and out); CPU only,
    no version bump (PyTorch's apply_ writes behind the version counter)."""
    _check_apply(self, "apply_")
    a = self._a
    new = [callable(v) for v in a.reshape(-1).tolist()] if a.size else []
    a[...] = _as_array(a, new)
    return self


def map_(self, tensor, callable):
    """``self[i] = callable(self[i], tensor[i])`` with ``tensor`` broadcast to self; CPU only,
    no version bump (as PyTorch)."""
    _check_apply(self, "map_")
    _need_tensor("map_", tensor, "tensor")
    import numpy as np

    a = self._a
    b = np.broadcast_to(tensor._a, a.shape)
    new = [callable(x, y) for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist())]
    a[...] = _as_array(a, new)
    return self


def _as_array(a, values):
    import numpy as np

    return np.asarray(values, dtype=a.dtype).reshape(a.shape)


# ---- layout and the typed storage ----------------------------------------------------------------

class layout:
    """PyTorch's layout type; dense tensors have the one value ``torch.strided``."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")


class TypedStorage:
    """What PyTorch's deprecated ``Tensor.storage()`` returns: the tensor's whole storage seen
    as ``dtype`` elements. Two calls give two objects (``==`` is identity, as in PyTorch);
    compare storages with ``data_ptr()``, which is the storage's start, not the tensor's."""

    def __init__(self, untyped, dtype):
        self._untyped_storage = untyped
        self.dtype = dtype

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def untyped(self):
        return self._untyped_storage

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def size(self) -> int:
        return self._untyped_storage.size()

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def tolist(self) -> list:
        from .. import backend

        return backend.to_numpy(self._untyped_storage.data).tolist()

    def __getitem__(self, i):
        return self.tolist()[i]

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        head = f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) " \
               f"of size {len(self)}]"
        return f"{body}\n{head}" if body else head


_WARNED = [False]


def storage(self):
    """The typed storage (PyTorch warns once per process that TypedStorage is deprecated)."""
    if not _WARNED[0]:
        _WARNED[0] = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                      "UntypedStorage will be the only storage class. This should only matter "
                      "to you if you are using storages directly.  To access UntypedStorage "
                      "directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=2)
    return TypedStorage(self._storage, self.dtype)


def install(cls) -> None:
    for k, v in {"type_as": type_as, "resize_as_": resize_as_, "H": property(_H),
                 "mH": property(_mH), "real": property(_real), "imag": property(_imag),
                 "apply_": apply_, "map_": map_, "layout": property(lambda self: strided),
                 "storage": storage}.items():
        setattr(cls, k, v)


install(Tensor)
