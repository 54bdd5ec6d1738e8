"""The one seam between inplace_lab and array libraries: numpy (CPU) or cupy (GPU).

Nothing above this module imports numpy or cupy for array work; it asks
``xp_of(device)`` for the array module instead (DeZero's ``get_array_module``).

A classroom without a GPU can switch on a *simulated* GPU
(``inplace_lab.set_simulated_gpu(True)`` or ``INPLACE_LAB_SIMULATED_GPU=1``):
``cuda`` tensors then live in numpy buffers but are accounted on their own
device, so GPU memory lessons still run. It is always labelled as simulated.
"""
from __future__ import annotations

import os

import numpy as np

try:  # cupy is optional
    import cupy as _cupy  # type: ignore

    try:
        _CUPY_DEVICES = _cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no driver / no device
        _CUPY_DEVICES = 0
    if _CUPY_DEVICES:
        from . import cuda_kernels

        cuda_kernels.enable(_cupy)
except Exception:  # pragma: no cover - cupy missing
    _cupy = None
    _CUPY_DEVICES = 0

_simulated = os.environ.get("INPLACE_LAB_SIMULATED_GPU", "") not in ("", "0", "false", "False")


def set_simulated_gpu(on: bool = True) -> None:
    """Let ``cuda``/``gpu`` tensors run on numpy with separate accounting (teaching without a GPU)."""
    global _simulated
    _simulated = bool(on)


def simulated_gpu() -> bool:
    return _simulated and _CUPY_DEVICES == 0


def gpu_count() -> int:
    if _CUPY_DEVICES:
        return _CUPY_DEVICES
    return 1 if _simulated else 0


class device:
    """A device: ``cpu`` or ``cuda:N`` (``gpu`` is an alias, as in Paddle).

    One object per device (``device("cuda:0") is device("gpu", 0)``), so a device hashes by
    identity in C: every recorded op keys a (shape, dtype, device) triple (dispatch.make_node)
    and a Python ``__hash__`` there cost 7-10% of a recorded 8x8 op.
    """

    __slots__ = ("type", "index", "key")  # key: str(self), read on every allocation and free

    def __new__(cls, spec="cpu", index=None):
        if spec.__class__ is device:
            return spec
        if isinstance(spec, int):
            spec, index = "cuda", spec
        if not isinstance(spec, str):
            raise TypeError(f"device must be a string like 'cpu' or 'cuda:0', got {type(spec).__name__}")
        s = spec.strip().lower()
        if ":" in s:
            s, idx = s.split(":", 1)
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{spec}'")
            index = int(idx)
        if s in ("gpu", "cuda"):  # "cuda" keeps index None, as torch.device("cuda")
            typ, index = "cuda", (None if index is None else int(index))
        elif s == "cpu":
            typ, index = "cpu", None
        else:
            raise RuntimeError(
                f"Expected one of cpu, cuda, gpu device type at start of device string: {spec}")
        key = typ if index is None else f"{typ}:{index}"
        d = _DEVICES.get(key)
        if d is None:
            d = _DEVICES[key] = object.__new__(cls)
            d.type, d.index, d.key = typ, index, key
        return d

    __hash__ = object.__hash__  # (equal devices are one object)

    def __reduce__(self):  # (pickle and copy: the one object, never a second one)
        return (device, (self.key,))

    def __eq__(self, other):
        if other.__class__ is device:
            return self is other  # (one object per device)
        try:
            other = device(other)
        except Exception:
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __str__(self):
        return self.key

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __enter__(self):
        """``with torch.device('cuda'):`` factory functions default to this device inside."""
        _entered.append(_default)
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        set_default_device(_entered.pop())
        return False


_DEVICES: dict = {}  # key -> the device
CPU = device("cpu")
# torch.set_default_device: None until set (a factory given a tensor keeps its device then);
# once set, factory functions called without device= make their tensors there.
_default = None
_entered: list = []  # the defaults that `with device:` blocks replaced


def set_default_device(dev) -> None:
    """``torch.set_default_device``: where factory functions put tensors (``None``: the CPU).

    As in torch, a device this machine lacks is refused by the first factory call, not here."""
    global _default
    _default = None if dev is None else device(dev)


def get_default_device() -> device:
    """``torch.get_default_device``: ``cpu``, or the GPU with its index (``cuda:0``)."""
    return CPU if _default is None else concrete(_default)


def concrete(dev: device) -> device:
    """``cuda`` (no index) -> ``cuda:<current device>``: where a tensor actually lives.

    As in PyTorch, ``device("cuda").index is None``, but a tensor made on it reports
    ``cuda:0`` (the current device); storages and memory statistics use the concrete one.
    """
    if dev.index is None and dev.type == "cuda":
        from . import cuda

        return device("cuda", cuda.current_device())
    return dev


def check_device(dev: device) -> None:
    """Raise a clear error if ``dev`` cannot be used on this machine."""
    if dev.type == "cpu":
        return
    dev = concrete(dev)
    if _CUPY_DEVICES:
        if dev.index >= _CUPY_DEVICES:
            raise RuntimeError(
                f"CUDA error: invalid device ordinal: {dev} requested but only {_CUPY_DEVICES} GPU(s) found")
        return
    if _simulated:
        if dev.index != 0:
            raise RuntimeError(f"the simulated GPU has one device, cuda:0; got {dev}")
        return
    reason = "cupy is not installed" if _cupy is None else "cupy found no CUDA device"
    raise RuntimeError(
        f"no GPU available for device '{dev}': {reason}. Install the 'gpu' extra on a machine "
        "with an NVIDIA GPU, or turn on the simulated GPU for teaching with "
        "inplace_lab.set_simulated_gpu(True) (or INPLACE_LAB_SIMULATED_GPU=1)")


# The simulated GPU's array module: numpy, or in tests a numpy that refuses what cupy lacks
# (tests/differential/cupy_like.py), so the GPU code paths are checked on any machine.
_simulated_xp = np


def xp_of(dev: device):
    """The array module that backs ``dev``: numpy, or cupy for a real GPU."""
    if dev.type == "cpu":
        return np
    return _cupy if _CUPY_DEVICES else _simulated_xp


def is_real_gpu(dev: device) -> bool:
    return dev.type == "cuda" and _CUPY_DEVICES > 0


def is_simulated(dev: device) -> bool:
    """A ``cuda`` device backed by numpy (the teaching switch, no real GPU present)."""
    return dev.type == "cuda" and _CUPY_DEVICES == 0


def device_label(dev: device) -> str:
    """``cuda:0``, or ``cuda:0 (simulated on numpy)``: never pass a simulated GPU off as real."""
    return f"{dev} (simulated on numpy)" if is_simulated(dev) else str(dev)


def pinned_empty(n: int, np_dtype):
    """A host buffer in page-locked memory (cupy's pinned allocator), for fast GPU copies.

    PyTorch's error when there is no accelerator to pin for, raised before anything is allocated.
    """
    if not _CUPY_DEVICES:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    import cupyx  # type: ignore

    return cupyx.empty_pinned(n, dtype=np_dtype)


def empty(n: int, np_dtype, dev: device):
    """A fresh flat buffer of ``n`` elements on ``dev``."""
    if is_real_gpu(dev):
        with _cupy.cuda.Device(concrete(dev).index):
            return _cupy.empty(n, dtype=np_dtype)
    return np.empty(n, dtype=np_dtype)


def to_numpy(a):
    """Host copy of a backend array (no copy for numpy arrays)."""
    if _cupy is not None and isinstance(a, _cupy.ndarray):
        return _cupy.asnumpy(a)
    return a


def to_device_array(a, dev: device):
    """Move a backend array to ``dev``'s array module (a copy across the seam)."""
    if is_real_gpu(dev):
        with _cupy.cuda.Device(concrete(dev).index):
            return _cupy.asarray(a)
    return to_numpy(a)


def cupy_ufunc_class():
    """cupy's ufunc type where a real GPU is present, else None."""
    return type(_cupy.add) if _cupy is not None and _CUPY_DEVICES else None


def array_module(a):
    """cupy for a cupy array, else numpy."""
    return _cupy if _cupy is not None and isinstance(a, _cupy.ndarray) else np


def is_backend_array(a) -> bool:
    return isinstance(a, np.ndarray) or (_cupy is not None and isinstance(a, _cupy.ndarray))


def as_strided(flat, shape, strides_bytes, offset_bytes=0):
    """A strided view over a flat buffer (numpy or cupy); the view shares the buffer.

    An empty window may sit past the end of its storage (PyTorch only checks bounds when
    there are elements), so it becomes an empty array at the start of the buffer."""
    if 0 in tuple(shape):
        return flat[:0].reshape(shape)
    if isinstance(flat, np.ndarray):
        return np.ndarray(shape, flat.dtype, buffer=flat, offset=offset_bytes, strides=strides_bytes)
    return _cupy.ndarray(shape, flat.dtype, memptr=flat.data + offset_bytes, strides=strides_bytes)


# The dtypes cupy's add.at (and scatter_add) accumulates ("cupy.add.at only supports ...").
_GPU_ADD_AT = frozenset(("int32", "int64", "float16", "float32", "float64", "uint32", "uint64"))


def add_at(xp, target, ix, vals) -> None:
    """``target[ix] += vals`` with repeated indices accumulating (``np.add.at`` / cupyx's
    ``scatter_add``): plain ``target[ix] += vals`` would keep only one write per cell."""
    if xp is np:
        np.add.at(target, ix, vals)
    elif target.dtype.name not in _GPU_ADD_AT:  # bool, int8/16, uint8/16, complex: the host
        host = to_numpy(target)
        np.add.at(host, tuple(map(to_numpy, ix)) if isinstance(ix, tuple) else to_numpy(ix),
                  to_numpy(vals))
        target[...] = xp.asarray(host)
    elif hasattr(xp.add, "at"):  # (cupy >= 13 has ufunc.at)
        xp.add.at(target, ix, vals)
    else:
        import cupyx  # type: ignore

        cupyx.scatter_add(target, ix, vals)


def clip(xp, a, lo, hi, out, np_dtype):
    """``clip`` into ``np_dtype`` with unsafe casting (cupy's clip takes no dtype/casting)."""
    if xp is np:
        return np.clip(a, lo, hi, out=out, dtype=np_dtype, casting="unsafe")
    r = xp.maximum(a, lo, dtype=np_dtype, casting="unsafe")
    return xp.minimum(r, hi, out=out, dtype=np_dtype, casting="unsafe")


def accumulate(xp, name, a, axis):
    """``xp.<name>.accumulate(a, axis)``; cupy has no maximum/minimum accumulate, so a GPU
    array goes through the host for those (a copy each way, correct first)."""
    if xp is np:
        return getattr(np, name).accumulate(a, axis=axis)
    try:
        return getattr(xp, name).accumulate(a, axis=axis)
    except NotImplementedError:
        return xp.asarray(getattr(np, name).accumulate(to_numpy(a), axis=axis))


def special():
    """scipy.special (cupyx.scipy.special on a real GPU is chosen by the caller via xp)."""
    import scipy.special as sp

    return sp


def special_for(xp):
    """scipy.special for numpy, cupyx.scipy.special for cupy (another array module standing
    in for cupy, as the tests' cupy_like, names its own as ``xp.special``)."""
    if xp is np:
        import scipy.special as sp

        return sp
    if xp is not _cupy:
        return xp.special
    import cupyx.scipy.special as csp  # type: ignore

    return csp
