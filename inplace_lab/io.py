"""Safe ``save(obj, path)`` / ``load(path)``: numpy ``.npz`` plus a JSON manifest, no pickle.

The file is a zip (``numpy.savez``) holding one array per *storage* (``storage_0``...)
and ``manifest``: UTF-8 JSON describing the object tree (dicts, lists, tuples, numbers,
strings, None) and every tensor as a window on a storage (shape, strides, offset,
dtype, requires_grad, Parameter or not, the name of a named tensor). Loading uses
``allow_pickle=False`` and rebuilds only these types, so a file cannot run code; every
field is checked (types, dtypes, bounds of each window inside its storage) and a crafted
or corrupted file is rejected with ``LoadError`` before any tensor is made.

Sharing is preserved inside one saved object: two views of one storage load as two
windows on one new storage (same strides and offsets); tensors that shared a version
counter share one again; a view whose ``_base`` was saved too gets that base back.

>>> import inplace_lab as il, tempfile, os
>>> x = il.arange(6.); v = x[2:4]
>>> p = os.path.join(tempfile.mkdtemp(), "t.il")
>>> il.save({"x": x, "v": v}, p); d = il.load(p)
>>> d["v"]._base is d["x"], d["v"].untyped_storage() is d["x"].untyped_storage()
(True, True)
"""
from __future__ import annotations

import io as _io
import json
import zipfile
from collections import OrderedDict

from . import backend, layout
from .dtypes import from_numpy_dtype
from .storage import Storage
from .tensor import Tensor
from .version import VersionCounter

FORMAT = "inplace_lab.save/1"
np = backend.np
_DTYPES = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
           "complex64", "complex128"}


class LoadError(RuntimeError):
    """The file is not a valid inplace_lab save (crafted, truncated or from something else)."""


# ---- save -------------------------------------------------------------------------------------

def save(obj, f) -> None:
    """Write ``obj`` (tensors, state dicts, nested dicts/lists/tuples of them) to ``f``."""
    storages: dict = {}  # id(storage) -> (index, storage)
    tensors: dict = {}  # id(tensor) -> index in the manifest's tensor table
    table: list = []
    vcs: dict = {}

    def tensor_entry(t):
        if id(t) in tensors:
            return tensors[id(t)]
        sid = storages.setdefault(id(t._storage), (len(storages), t._storage))[0]
        base = None
        if t._base is not None and id(t._base) in pending:
            base = tensor_entry(t._base)
        idx = len(table)
        tensors[id(t)] = idx
        table.append({"storage": sid, "shape": list(t._shape), "strides": list(t._strides),
                      "offset": t._offset, "dtype": t._dtype.name,
                      "requires_grad": bool(t._requires_grad),
                      "parameter": bool(getattr(t, "_is_param", False)),
                      "vc": vcs.setdefault(id(t._vc), len(vcs)), "base": base,
                      "device": str(t._storage.device)})
        if t._name is not None:  # optional: a named tensor (paddle's names) keeps its name
            table[-1]["name"] = t._name
        return idx

    pending: set = set()

    def collect(o):
        if isinstance(o, Tensor):
            pending.add(id(o))
        elif isinstance(o, dict):
            for v in o.values():
                collect(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                collect(v)

    def enc(o):
        if isinstance(o, Tensor):
            return {"t": "tensor", "i": tensor_entry(o)}
        if o is None or isinstance(o, (bool, str)):
            return o
        if isinstance(o, int):
            return {"t": "int", "v": str(int(o))}
        if isinstance(o, float):
            return {"t": "float", "v": repr(float(o))}
        if isinstance(o, dict):
            kind = "odict" if isinstance(o, OrderedDict) else "dict"
            return {"t": kind, "items": [[enc(k), enc(v)] for k, v in o.items()]}
        if isinstance(o, tuple):
            return {"t": "tuple", "items": [enc(v) for v in o]}
        if isinstance(o, list):
            return {"t": "list", "items": [enc(v) for v in o]}
        raise TypeError(f"save: cannot store an object of type {type(o).__name__} (only tensors, "
                        "dicts, lists, tuples, numbers, strings and None; no pickling)")

    collect(obj)
    root = enc(obj)
    arrays = {f"storage_{i}": backend.to_numpy(st.data) for i, st in storages.values()}
    manifest = {"format": FORMAT, "root": root, "tensors": table, "storages": len(storages)}
    arrays["manifest"] = np.frombuffer(json.dumps(manifest).encode("utf-8"), dtype=np.uint8)
    if hasattr(f, "write"):
        np.savez(f, **arrays)
    else:
        with open(f, "wb") as fh:
            np.savez(fh, **arrays)


# ---- load -------------------------------------------------------------------------------------

def _fail(msg):
    raise LoadError(f"load: {msg}")


def _int(v, what, lo=0):
    if not isinstance(v, int) or isinstance(v, bool) or v < lo:
        _fail(f"{what} must be an integer >= {lo}, got {v!r}")
    return v


def _read(f):
    try:
        data = f.read() if hasattr(f, "read") else open(f, "rb").read()
    except OSError:
        raise
    try:
        npz = np.load(_io.BytesIO(data), allow_pickle=False)
        if not isinstance(npz, np.lib.npyio.NpzFile):
            _fail("not an inplace_lab save file (expected a .npz archive)")
        with npz:
            names = set(npz.files)
            if "manifest" not in names:
                _fail("not an inplace_lab save file (no manifest)")
            manifest = json.loads(bytes(npz["manifest"]).decode("utf-8"))
            arrays = {n: npz[n] for n in names if n != "manifest"}
    except LoadError:
        raise
    except (ValueError, OSError, zipfile.BadZipFile, UnicodeDecodeError, KeyError, EOFError) as e:
        _fail(f"corrupted or unsafe file ({type(e).__name__}: {e})")
    return manifest, arrays


def _check_manifest(manifest, arrays):
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        _fail(f"unknown format {manifest.get('format') if isinstance(manifest, dict) else None!r}")
    n = _int(manifest.get("storages"), "storage count")
    if set(arrays) != {f"storage_{i}" for i in range(n)}:
        _fail("the archive's arrays do not match the manifest's storages")
    for a in arrays.values():
        if a.ndim != 1 or a.dtype.name not in _DTYPES:
            _fail(f"storage arrays must be 1-D of a tensor dtype, got {a.dtype} with {a.ndim} dims")
    table = manifest.get("tensors")
    if not isinstance(table, list):
        _fail("tensor table missing")
    for k, e in enumerate(table):
        if not isinstance(e, dict):
            _fail(f"tensor {k}: entry is not an object")
        sid = _int(e.get("storage"), f"tensor {k}: storage", 0)
        if sid >= n:
            _fail(f"tensor {k}: storage {sid} does not exist")
        arr = arrays[f"storage_{sid}"]
        if e.get("dtype") != arr.dtype.name:
            _fail(f"tensor {k}: dtype {e.get('dtype')!r} does not match its storage ({arr.dtype})")
        shape, strides = e.get("shape"), e.get("strides")
        if not isinstance(shape, list) or not isinstance(strides, list) or len(shape) != len(strides):
            _fail(f"tensor {k}: shape and strides must be lists of equal length")
        for s in shape:
            _int(s, f"tensor {k}: size")
        for s in strides:
            _int(s, f"tensor {k}: stride")
        off = _int(e.get("offset"), f"tensor {k}: offset")
        if layout.numel(shape) and off + sum((a - 1) * s for a, s in zip(shape, strides)) >= arr.size:
            _fail(f"tensor {k}: its window (shape {shape}, strides {strides}, offset {off}) reaches "
                  f"past the end of storage {sid} ({arr.size} elements)")
        base = e.get("base")
        if base is not None and (_int(base, f"tensor {k}: base") >= k or
                                 table[base].get("storage") != sid):
            _fail(f"tensor {k}: base {base} must be an earlier tensor on the same storage")
        _int(e.get("vc"), f"tensor {k}: version counter")
        if not isinstance(e.get("requires_grad"), bool) or not isinstance(e.get("parameter"), bool):
            _fail(f"tensor {k}: requires_grad and parameter must be booleans")
        if not isinstance(e.get("device"), str):
            _fail(f"tensor {k}: device must be a string")
        if e.get("name") is not None and not isinstance(e.get("name"), str):
            _fail(f"tensor {k}: name must be a string")


def load(f, map_location=None, weights_only=True):
    """Read what ``save`` wrote. ``map_location``: a device for every tensor (e.g. "cpu")."""
    manifest, arrays = _read(f)
    _check_manifest(manifest, arrays)
    storages, vcs, made = {}, {}, []
    for e in manifest["tensors"]:
        dev = backend.device(map_location if map_location is not None else e["device"])
        if dev.type == "cuda" and backend.gpu_count() == 0:
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use torch.load with "
                "map_location=torch.device('cpu') to map your storages to the CPU.")
        key = (e["storage"], str(dev))
        st = storages.get(key)
        if st is None:
            a = arrays[f"storage_{e['storage']}"]
            st = Storage(backend.to_device_array(a.copy(), dev), from_numpy_dtype(a.dtype), dev)
            storages[key] = st
        vc = vcs.setdefault(e["vc"], VersionCounter())
        base = made[e["base"]] if e["base"] is not None else None
        if base is not None and base._storage is not st:
            base = None
        if e["parameter"]:
            from .nn.parameter import Parameter

            t = Parameter(Tensor._make(st, e["shape"], e["strides"], e["offset"], vc, None),
                          e["requires_grad"])
        else:
            t = Tensor._make(st, e["shape"], e["strides"], e["offset"], vc, base)
            t._requires_grad = e["requires_grad"]
        if e.get("name") is not None:
            Tensor.name.fset(t, e["name"])
        made.append(t)
    return _decode(manifest["root"], made)


def _decode(o, made):
    if o is None or isinstance(o, (bool, str)):
        return o
    if not isinstance(o, dict) or "t" not in o:
        _fail(f"unexpected value in the object tree: {type(o).__name__}")
    kind = o["t"]
    try:
        if kind == "tensor":
            return made[_int(o["i"], "tensor reference")]
        if kind == "int":
            return int(o["v"])
        if kind == "float":
            return float(o["v"])
        if kind in ("dict", "odict"):
            d = OrderedDict() if kind == "odict" else {}
            for k, v in o["items"]:
                d[_key(_decode(k, made))] = _decode(v, made)
            return d
        if kind == "list":
            return [_decode(v, made) for v in o["items"]]
        if kind == "tuple":
            return tuple(_decode(v, made) for v in o["items"])
    except (KeyError, TypeError, ValueError, IndexError) as e:
        _fail(f"malformed {kind!r} node ({type(e).__name__}: {e})")
    _fail(f"unknown node type {kind!r}")


def _key(k):
    if isinstance(k, list):
        _fail("dict keys must be hashable")
    return k
