"""``paddle.save(obj, path)`` / ``paddle.load(path)`` over inplace_lab's one file format.

The file is what ``inplace_lab.save`` writes (``inplace_lab/io.py``: a ``.npz`` of storages
plus a JSON manifest, no pickle), so it is safe to load and round-trips within inplace_lab.
It is *not* Paddle's own format: real Paddle cannot read these files and this cannot read
Paddle's (``paddle.load`` says it cannot parse such a file, as Paddle does for a foreign one).

What comes back is what Paddle 3.3.1 gives back (checked against paddle 3.3.1):

- every tensor is a ``paddle.Tensor`` (a Parameter comes back a plain Tensor) with the same
  dtype, shape, values and name, ``stop_gradient=True`` whatever it was when saved (Paddle
  saves values, not the autograd state), version 0;
- a *state dict* (Paddle's test: a dict whose values are tensors, or dicts holding no
  tensor) comes back a plain ``dict``, even from an OrderedDict (``keep_name_table=True``
  adds Paddle's ``StructuredToParameterName@@`` table); any other object keeps the types of
  its containers (dict, OrderedDict, list, tuple) and its numbers, strings and None;
- a numpy array inside the object comes back an array, or a Tensor when the object holds no
  tensor at all (Paddle's rule for old files); ``return_numpy=True`` gives arrays throughout;
- nothing is shared: each tensor is saved as its own contiguous copy (``[x, x]`` loads as two
  tensors, a view loads as a tensor of its own), as Paddle saves each one's values.

>>> import inplace_lab.paddle as paddle, tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "w.pdparams")
>>> paddle.save({"w": paddle.to_tensor([1.0, 2.0])}, p)
>>> type(paddle.load(p)["w"]).__name__
'Tensor'
"""
from __future__ import annotations

import os
from collections import OrderedDict

from inplace_lab import backend
from inplace_lab import io as _io
from inplace_lab.tensor import Tensor as _Core

POLICY = "paddle"
_LOAD_CONFIGS = ("return_numpy", "keep_name_table")


def _unsupported(key, who):
    return ValueError(f"The additional config ({key}) of `paddle.{who}` is not supported.")


def _check_path(path) -> None:
    if hasattr(path, "write") or hasattr(path, "read"):
        return
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"The input path MUST be a string or a file-like object, but received "
                         f"{type(path).__name__}.")
    if os.path.basename(os.fspath(path)) == "":
        raise ValueError("The input path MUST be format of dirname/filename [dirname\\filename in "
                         "Windows system], but received filename is empty string.")


def _own_copy(t):
    """A contiguous copy of ``t``'s values on a storage of its own, named as ``t`` is.

    The name also marks what was saved: a tensor (Paddle's tensors all have a name) loads
    as a Tensor, a numpy array (saved unnamed) loads as an array or a Tensor by Paddle's rule.
    """
    xp = backend.xp_of(t._storage.device)
    c = _Core._wrap(xp.array(t._a, copy=True, order="C"), t._storage.device)
    name = getattr(t, "name", None)  # paddle.Tensor's name (generated_tensor_N ...)
    c._name = str(name) if name is not None else "generated_tensor"
    return c


def _to_saveable(o):
    """The object tree with every tensor (or numpy array) replaced by an independent copy."""
    if isinstance(o, _Core):
        return _own_copy(o)
    if isinstance(o, backend.np.ndarray):
        return _Core._wrap(backend.np.array(o, copy=True, order="C"), backend.CPU)
    if isinstance(o, dict):
        return o.__class__((k, _to_saveable(v)) for k, v in o.items()) if \
            isinstance(o, OrderedDict) else {k: _to_saveable(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_to_saveable(v) for v in o]
    if isinstance(o, tuple):
        return tuple(_to_saveable(v) for v in o)
    return o


def _contains(o, pred) -> bool:
    if pred(o):
        return True
    if isinstance(o, dict):
        return any(_contains(v, pred) for v in o.values())
    if isinstance(o, (list, tuple)):
        return any(_contains(v, pred) for v in o)
    return False


def _is_state_dict(obj, is_tensor) -> bool:
    """Paddle's test: a dict whose values are tensors, or dicts holding no tensor at all.

    Paddle saves such a dict its own way (values as arrays plus a name table) and loads it
    as a plain ``dict``; any other object is pickled and keeps its containers' types.
    """
    if not isinstance(obj, dict):
        return False
    for v in obj.values():
        if isinstance(v, dict):
            if any(_contains(x, is_tensor) for x in v.values()):
                return False
        elif not is_tensor(v):
            return False
    return True


def save(obj, path, protocol=4, **configs) -> None:
    """Write ``obj`` (a tensor, a state_dict, nested dicts/lists/tuples of them) to ``path``.

    ``path`` may be a file name (its folders are made, as Paddle does) or a binary file
    object. ``protocol`` is checked as Paddle checks it and otherwise unused (no pickle).
    """
    for key in configs:
        raise _unsupported(key, "save")
    if not isinstance(protocol, int) or not 1 < protocol < 5:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")
    _check_path(path)
    if not hasattr(path, "write"):
        folder = os.path.dirname(os.fspath(path))
        if folder:
            os.makedirs(folder, exist_ok=True)
    if _is_state_dict(obj, lambda v: isinstance(v, _Core)):
        if not obj:
            import warnings

            warnings.warn("The input state dict is empty, no need to save.")
        obj = dict(obj)  # a state_dict (an OrderedDict) loads as a plain dict
    _io.save(_to_saveable(obj), path)


def _named(v) -> bool:
    return isinstance(v, _Core) and v._name is not None


def _from_loaded(o, return_numpy, arrays_to_tensors):
    """Paddle's load result: named tensors become paddle Tensors (stop_gradient=True); the
    unnamed ones were numpy arrays, which become Tensors only in an object without tensors."""
    if isinstance(o, _Core):
        if return_numpy:
            return backend.to_numpy(o._a).copy()
        if o._name is None and not arrays_to_tensors:
            return backend.to_numpy(o._a).copy()
        o._requires_grad = False  # Paddle: every loaded tensor has stop_gradient=True
        o._policy = POLICY
        if o._name is None:
            o._give_generated_name()  # paddle.to_tensor's name
        return o
    if isinstance(o, dict):
        return o.__class__((k, _from_loaded(v, return_numpy, arrays_to_tensors))
                           for k, v in o.items())
    if isinstance(o, list):
        return [_from_loaded(v, return_numpy, arrays_to_tensors) for v in o]
    if isinstance(o, tuple):
        return tuple(_from_loaded(v, return_numpy, arrays_to_tensors) for v in o)
    return o


def load(path, **configs):
    """Read what ``paddle.save`` (or ``inplace_lab.save``) wrote; tensors come back as
    ``paddle.Tensor`` with ``stop_gradient=True`` (numpy arrays with ``return_numpy=True``)."""
    for key in configs:
        if key not in _LOAD_CONFIGS:
            raise _unsupported(key, "load")
    return_numpy = bool(configs.get("return_numpy", False))
    _check_path(path)
    if not hasattr(path, "read") and not os.path.exists(os.fspath(path)):
        raise ValueError(f"The ``path`` ({os.fspath(path)}) to load model not exists.")
    if not hasattr(path, "read") and os.path.isdir(os.fspath(path)):
        raise ValueError(f"`paddle.load` can not parse the file:{os.fspath(path)}.")
    try:
        obj = _io.load(path)
    except _io.LoadError as e:
        where = os.fspath(path) if not hasattr(path, "read") else type(path).__name__
        raise ValueError(f"`paddle.load` can not parse the file:{where}.") from e
    result = _from_loaded(obj, return_numpy, not _contains(obj, _named))
    if configs.get("keep_name_table") and _is_state_dict(obj, _named):
        result["StructuredToParameterName@@"] = {k: v._name for k, v in obj.items() if _named(v)}
    return result
