"""Creating tensors: tensor, zeros, ones, full, empty, arange, linspace, eye, random, *_like.

Every function allocates one Storage (so memory accounting sees it) and,
for random tensors, writes the target dtype directly (no float64 temporaries).
"""
from __future__ import annotations

import numbers

import numpy as np

from . import backend, cuda, dtypes, layout, rng
from .scalars import as_value, check_value
from .storage import Storage
from .tensor import Tensor, _c_strides

def manual_seed(seed: int):
    """Seed the generators of every device (the CPU's is PyTorch's: see ``rng``)."""
    rng.default_generator.manual_seed(seed)
    cuda.manual_seed(seed)
    return rng.default_generator


def seed() -> int:
    """Seed every device's generator nondeterministically; return the seed (``torch.seed``)."""
    s = rng.default_generator.seed()
    cuda.manual_seed(s)
    return s


def cpu_generator(gen=None):
    """The ``rng.Generator`` a ``generator=`` argument names (None: the default one)."""
    if gen is None:
        return rng.default_generator
    if not isinstance(gen, (rng.Generator, rng.PaddleGenerator)):
        raise TypeError(f"expected a torch.Generator, but got {type(gen).__name__}")
    return gen


def _shape_arg(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    out = []
    for n in size:
        if isinstance(n, Tensor):
            n = int(n.item())
        if not isinstance(n, (numbers.Integral,)):
            raise TypeError(f"expected a sequence of integers as the size, got {type(n).__name__}")
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
        out.append(int(n))
    return tuple(out)


def _device(device):
    dev = backend.device(device) if device is not None else (backend._default or backend.CPU)
    backend.check_device(dev)
    return dev


def _new(shape, dt, dev, requires_grad=False):
    st = Storage.allocate(layout.numel(shape), dt, dev)
    t = Tensor._make(st, shape, _c_strides(tuple(shape)), 0)
    if requires_grad:
        t.requires_grad_(True, _who="factory")
    return t


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True, _who="factory")
    return t


def _size_forms(*leads) -> str:
    """The signatures PyTorch's parser lists for a random factory (each lead with and
    without a generator), as its "invalid combination of arguments" error shows them."""
    return "".join(
        f" * ({lead}tuple of ints size, *, {gen}Tensor out = None, torch.dtype dtype = None, "
        "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
        "bool requires_grad = False)\n"
        for lead in leads for gen in ("torch.Generator generator, ", ""))


def _sized(name, size, kw):
    """``size`` given as positional ints, one sequence, or ``size=`` (PyTorch's parser; a
    factory called with no size is refused as PyTorch refuses it)."""
    if "size" in kw:
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        size = kw["size"]
        if not isinstance(size, (list, tuple)):
            raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                            f"{type(size).__name__}")
        return (size,)
    if not size:
        if name in ("rand", "randn"):
            raise TypeError(f"{name}() received an invalid combination of arguments - got (), "
                            f"but expected one of:\n{_size_forms('')}")
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    return size


def empty(*size, dtype=None, device=None, requires_grad=False, **kw):
    dt = dtypes.from_any(dtype) if dtype is not None else dtypes.get_default_dtype()
    return _new(_shape_arg(_sized("empty", size, kw)), dt, _device(device), requires_grad)


def empty_strided(size, stride, dtype=None, device=None, requires_grad=False, **_):
    """An uninitialised tensor laid out with ``stride``: its storage holds the cells those
    strides reach (``1 + sum((n - 1) * s)``, none when a size is 0), as PyTorch's."""
    shape, strides = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(shape) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality of "
                           f"strides ({len(strides)})")
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"{list(shape)}")
    if any(s < 0 for s in strides):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(strides)}")
    dt = dtypes.from_any(dtype) if dtype is not None else dtypes.get_default_dtype()
    cells = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    st = Storage.allocate(cells, dt, _device(device))
    return _finish(Tensor._make(st, shape, strides, 0), requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False, **_):
    if dtype is None:
        dt = dtypes.scalar_dtype(fill_value)
    else:
        dt = dtypes.from_any(dtype)
    if isinstance(fill_value, (int, float, complex)):  # PyTorch's checked conversion
        check_value(fill_value, dt.np)
        fill_value = as_value(np, fill_value, dt.np)[()]  # (a numpy scalar: cupy takes it too)
    t = _new(_shape_arg((size,) if isinstance(size, int) else (tuple(size),)), dt, _device(device))
    t._storage.data[...] = fill_value
    return _finish(t, requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, **kw):
    try:
        t = empty(*_sized("zeros", size, kw), dtype=dtype, device=device)
    except RuntimeError as e:
        if "negative dimension" in str(e):  # torch.zeros words it its own way
            raise RuntimeError("zeros: Dimension size must be non-negative.") from None
        raise
    t._storage.data[...] = 0
    return _finish(t, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, **kw):
    t = empty(*_sized("ones", size, kw), dtype=dtype, device=device)
    t._storage.data[...] = 1
    return _finish(t, requires_grad)


def _infer_dtype(data):
    """PyTorch's inference: bool, then int64, then the default float, complex; a numpy array
    or numpy scalar keeps its own dtype."""
    if isinstance(data, np.generic):
        return dtypes.from_numpy_dtype(data.dtype)
    flat = np.asarray(data, dtype=object).ravel() if not isinstance(data, np.ndarray) else None
    if flat is None:
        return dtypes.from_numpy_dtype(data.dtype)
    kinds = set()
    for v in flat:
        if isinstance(v, Tensor):
            kinds.add(v._dtype.category)
        elif isinstance(v, (bool, np.bool_)):
            kinds.add(dtypes.BOOL)
        elif isinstance(v, numbers.Integral):
            kinds.add(dtypes.INT)
        elif isinstance(v, numbers.Real):
            kinds.add(dtypes.FLOAT)
        elif isinstance(v, numbers.Complex):
            kinds.add(dtypes.COMPLEX)
        else:
            raise TypeError(f"Could not infer dtype of {type(v).__name__}")
    top = max(kinds) if kinds else dtypes.FLOAT
    return {dtypes.BOOL: dtypes.bool_, dtypes.INT: dtypes.int64,
            dtypes.FLOAT: dtypes.get_default_dtype(), dtypes.COMPLEX: dtypes.default_complex()}[top]


def _to_host(data):
    if isinstance(data, Tensor):
        return backend.to_numpy(data.detach()._a)
    if isinstance(data, (list, tuple)):
        return [_to_host(d) for d in data]
    return data


def _check_nesting(seq, dim):
    """Ragged nested lists are refused with PyTorch's words (numpy would make an object array)."""
    kinds = {isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim > 0)
             for x in seq}
    if len(kinds) > 1:
        raise TypeError("not a sequence")
    if kinds != {True}:
        return
    n = len(seq[0])
    for x in seq:
        if len(x) != n:
            raise ValueError(f"expected sequence of length {n} at dim {dim + 1} (got {len(x)})")
    for x in seq:
        if isinstance(x, (list, tuple)):
            _check_nesting(x, dim + 1)


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False, **_):
    """A new tensor holding a copy of ``data`` (nested lists, numbers, numpy arrays, tensors)."""
    host = _to_host(data)
    if isinstance(host, (list, tuple)):
        _check_nesting(host, 0)
    dt = dtypes.from_any(dtype) if dtype is not None else (
        data._dtype if isinstance(data, Tensor) else _infer_dtype(host))
    arr = np.array(host, dtype=dt.np)
    if device is None and backend._default is None and isinstance(data, Tensor):
        device = data.device  # (torch.set_default_device sends even a tensor's copy there)
    dev = _device(device)
    t = _new(arr.shape, dt, dev)
    if arr.size:
        t._storage.data[...] = backend.to_device_array(arr.reshape(-1), dev)
    return _finish(t, requires_grad)


as_tensor = tensor


def from_numpy(arr: np.ndarray) -> Tensor:
    """A tensor that *shares memory* with a numpy array (writes show up in both)."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    dt = dtypes.from_numpy_dtype(arr.dtype)
    it = arr.itemsize
    if any(s < 0 for s in arr.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) ")
    if any(s % it for s in arr.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    strides = tuple(s // it for s in arr.strides)
    n = layout.storage_size_needed(arr.shape, strides, 0) if arr.size else 0
    if arr.flags.c_contiguous:
        flat = arr.reshape(-1)
    else:  # positive strides: the lowest address is element 0, the span is n cells
        flat = np.lib.stride_tricks.as_strided(arr, shape=(n,), strides=(it,),
                                               writeable=arr.flags.writeable)
    st = Storage(flat, dt, backend.CPU, counted=False)  # numpy owns this memory, not us
    return Tensor._make(st, arr.shape, strides, 0)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False, **_):
    if end is None:
        start, end = 0, start
    vals = [start, end, step]
    if dtype is None:
        dt = dtypes.int64 if all(isinstance(v, numbers.Integral) for v in vals) else \
            dtypes.get_default_dtype()
    else:
        dt = dtypes.from_any(dtype)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = max(0, int(np.ceil((end - start) / step)))
    t = _new((n,), dt, _device(device))
    xp = backend.xp_of(t.device)
    t._storage.data[...] = xp.arange(n, dtype=np.float64 if dt.category >= 2 else np.int64) * step + start
    return _finish(t, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False, **_):
    dt = dtypes.from_any(dtype) if dtype is not None else dtypes.get_default_dtype()
    t = _new((int(steps),), dt, _device(device))
    xp = backend.xp_of(t.device)
    t._storage.data[...] = xp.linspace(start, end, int(steps))
    return _finish(t, requires_grad)


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False, **_):
    """``base ** linspace(start, end, steps)`` computed as PyTorch's kernel: exponents from the
    start for the first half, from the end for the second, in the result dtype (an integer
    dtype: double exponents, then truncated)."""
    start, end = (float(v.item()) if isinstance(v, Tensor) else v for v in (start, end))
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = dtypes.from_any(dtype) if dtype is not None else dtypes.get_default_dtype()
    t = _new((steps,), dt, _device(device))
    ct = dt.np.type if dt.category >= dtypes.FLOAT else np.float64
    i = np.arange(steps)
    if steps == 1:
        vals = np.power(np.float64(base), np.float64(start)).reshape(1)
    else:
        cast = dt.np.type if dt.category < dtypes.FLOAT else ct  # (integer dtype: the ints)
        b, s0, s1 = (ct(cast(v)) for v in (base, start, end))
        step = (s1 - s0) / ct(max(steps - 1, 1))
        expo = np.where(i < steps // 2, s0 + step * i.astype(ct),
                        s1 - step * (steps - i - 1).astype(ct)).astype(ct)
        vals = np.power(b, expo)
    t._storage.data[...] = backend.to_device_array(vals.astype(dt.np), t.device)
    return _finish(t, requires_grad)


def _tri_indices(which, row, col, offset, dtype, device):
    """(2, N) row and column indices of the lower (``tril``) or upper triangle, row-major."""
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = dtypes.int64 if dtype is None else dtypes.from_any(dtype)
    if dt.category != dtypes.INT:
        raise NotImplementedError(f"\"{which}_indices\" not implemented for '{dt.torch_name}'")
    fn = np.tril_indices if which == "tril" else np.triu_indices
    idx = np.stack(fn(row, offset, col)) if row and col else np.zeros((2, 0), np.int64)
    t = _new(idx.shape, dt, _device(device))
    t._storage.data[...] = backend.to_device_array(idx.astype(dt.np).reshape(-1), t.device)
    return t


def tril_indices(row, col, offset=0, dtype=None, device=None, **_):
    """Indices of the lower triangle of a ``row x col`` matrix (diagonal ``offset``)."""
    return _tri_indices("tril", row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, dtype=None, device=None, **_):
    """Indices of the upper triangle of a ``row x col`` matrix (diagonal ``offset``)."""
    return _tri_indices("triu", row, col, offset, dtype, device)


def eye(n, m=None, dtype=None, device=None, requires_grad=False, **_):
    m = n if m is None else m
    t = zeros(n, m, dtype=dtype, device=device)
    xp = backend.xp_of(t.device)
    t._storage.data[...] = xp.eye(n, m, dtype=t._dtype.np).reshape(-1)
    return _finish(t, requires_grad)


_CHUNK = 1 << 16  # elements per temporary when a generator cannot write the target dtype


def _chunked(flat, draw):
    """Fill ``flat`` from ``draw(n)`` in bounded pieces: temporaries never exceed one chunk."""
    for i in range(0, flat.size, _CHUNK):
        part = flat[i:i + _CHUNK]
        part[...] = draw(part.size)


def _random_fill(t, kind, gen=None, **kw):
    """Fill ``t``'s storage in its own dtype, in bounded chunks (never a full-size float64
    temporary): on the CPU PyTorch's draws from ``gen`` (``rng``), on a GPU cupy's."""
    flat = t._storage.data
    if backend.is_real_gpu(t.device):
        cp = backend._cupy
        if kind == "uniform":
            if flat.dtype in (np.float32, np.float64):
                flat[...] = cp.random.random(flat.size, dtype=flat.dtype)
            else:
                _chunked(flat, lambda n: cp.random.random(n))
        elif kind == "normal":
            if flat.dtype in (np.float32, np.float64):
                flat[...] = cp.random.standard_normal(flat.size, dtype=flat.dtype)
            else:
                _chunked(flat, lambda n: cp.random.standard_normal(n))
        else:
            _chunked(flat, lambda n: cp.random.randint(kw["low"], kw["high"], n))
        if kind == "uniform" and (kw.get("low", 0.0), kw.get("high", 1.0)) != (0.0, 1.0):
            flat *= (kw["high"] - kw["low"])
            flat += kw["low"]
        if kind == "normal":
            if kw.get("std", 1.0) != 1.0:
                flat *= kw["std"]
            if kw.get("mean", 0.0) != 0.0:
                flat += kw["mean"]
        return t
    g = cpu_generator(gen)  # PyTorch's kernels on PyTorch's stream (rng)
    if kind == "uniform":
        rng.fill(flat, lambda n: g.uniform(n, flat.dtype, kw.get("low", 0.0),
                                             kw.get("high", 1.0)))
    elif kind == "normal":
        g.normal_into(flat, kw.get("mean", 0.0), kw.get("std", 1.0))
    else:  # (randint is random_(low, high): its range rules and checks)
        from .ops.random import _torch_range

        lo, span = _torch_range(flat.dtype, kw["low"], kw["high"])
        rng.fill(flat, lambda n: g.random_from_to(n, flat.dtype, lo, span))
    return t


def _float_only(dtype, kernel):
    """rand/randn fill floating dtypes only; PyTorch names the kernel that refuses the rest."""
    if dtype is not None and not dtypes.from_any(dtype).is_floating_point:
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{dtypes.from_any(dtype).torch_name}\'')


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None, **kw):
    size = _sized("rand", size, kw)
    _float_only(dtype, "check_uniform_bounds")
    return _finish(_random_fill(empty(*size, dtype=dtype, device=device), "uniform", generator),
                   requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None, **kw):
    size = _sized("randn", size, kw)
    _float_only(dtype, "normal_kernel_cpu")
    return _finish(_random_fill(empty(*size, dtype=dtype, device=device), "normal", generator),
                   requires_grad)


_RANDINT_FORMS = _size_forms("int high, ", "int low, int high, ")


def randint(*args, low=None, high=None, size=None, dtype=None, device=None,
            requires_grad=False, generator=None, **_):
    """``randint([low=0,] high, size)``: torch's ``random_(low, high)`` on a new tensor."""
    given = [a for a in (low, high, size) if a is not None]
    args = [a for a in args if a is not None] + given
    if len(args) == 2 and isinstance(args[1], (list, tuple)):
        args = [0] + args
    if len(args) != 3 or not isinstance(args[2], (list, tuple, numbers.Integral)):
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"randint() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n{_RANDINT_FORMS}")
    low, high, size = int(args[0]), int(args[1]), args[2]
    for v in (low, high):
        if not -(1 << 63) <= v < 1 << 63:
            raise ValueError("Overflow when unpacking long long")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    t = empty(tuple(size) if isinstance(size, (list, tuple)) else (size,),
              dtype=dtype or dtypes.int64, device=device)
    return _finish(_random_fill(t, "integers", generator, low=low, high=high), requires_grad)


def randperm(n, dtype=None, device=None, requires_grad=False, generator=None, **_):
    if dtype is not None and dtypes.from_any(dtype) is dtypes.bool_:
        raise NotImplementedError('"randperm" not implemented for \'Bool\'')
    t = empty(n, dtype=dtype or dtypes.int64, device=device)
    if backend.is_real_gpu(t.device):
        perm = backend._cupy.random.permutation(n)
    else:
        perm = cpu_generator(generator).randperm(n)
    t._storage.data[...] = backend.to_device_array(perm, t.device)
    return _finish(t, requires_grad)


def _like(t, dtype, device):
    return (t.shape, dtype if dtype is not None else t._dtype, device if device is not None else t.device)


def _same_facade(src, out):
    """``*_like(t)`` answers in ``t``'s facade (a torch tensor's zeros_like is a torch tensor)
    and, as PyTorch's preserve_format, in ``t``'s layout: its strides when ``t`` is dense (a
    transposed tensor's ones_like is transposed too), else dense ones in ``t``'s dim order."""
    if src._policy is not None:
        out._policy = src._policy
    if src._shape == out._shape and src._strides != out._strides:
        strides = layout.dense_strides_like(src._shape, src._strides)
        if strides != out._strides:
            out._set_geometry(src._shape, strides, 0)
    return out


def empty_like(t, dtype=None, device=None, requires_grad=False, **_):
    shape, dt, dev = _like(t, dtype, device)
    return _same_facade(t, empty(shape, dtype=dt, device=dev, requires_grad=requires_grad))


def zeros_like(t, dtype=None, device=None, requires_grad=False, **_):
    shape, dt, dev = _like(t, dtype, device)
    return _same_facade(t, zeros(shape, dtype=dt, device=dev, requires_grad=requires_grad))


def ones_like(t, dtype=None, device=None, requires_grad=False, **_):
    shape, dt, dev = _like(t, dtype, device)
    return _same_facade(t, ones(shape, dtype=dt, device=dev, requires_grad=requires_grad))


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False, **_):
    shape, dt, dev = _like(t, dtype, device)
    return _same_facade(t, full(shape, fill_value, dtype=dt, device=dev, requires_grad=requires_grad))


def rand_like(t, dtype=None, device=None, requires_grad=False, **_):
    shape, dt, dev = _like(t, dtype, device)
    return _same_facade(t, rand(shape, dtype=dt, device=dev, requires_grad=requires_grad))


def randn_like(t, dtype=None, device=None, requires_grad=False, **_):
    shape, dt, dev = _like(t, dtype, device)
    return _same_facade(t, randn(shape, dtype=dt, device=dev, requires_grad=requires_grad))


def randint_like(t, low, high=None, dtype=None, device=None, **_):
    shape, dt, dev = _like(t, dtype, device)
    return _same_facade(t, randint(low, high, shape, dtype=dt, device=dev))


# ---- observation: one ``create`` event per factory call (nested calls stay silent) ------------

_nesting = [0]


def _observed(fn):
    """Wrap a factory so the hooks bus sees ``op`` events of kind ``create`` when someone listens."""
    import functools

    from . import hooks

    @functools.wraps(fn)
    def factory(*args, **kwargs):
        if not hooks.active:
            return fn(*args, **kwargs)
        _nesting[0] += 1
        try:
            t = fn(*args, **kwargs)
        finally:
            _nesting[0] -= 1
        if _nesting[0] == 0 and isinstance(t, Tensor):
            hooks.emit_create(fn.__name__, t)
        return t

    return factory


for _name in ("empty", "empty_strided", "full", "zeros", "ones", "tensor", "from_numpy", "arange", "linspace", "eye",
              "rand", "randn", "randint", "randperm", "empty_like", "zeros_like", "ones_like",
              "full_like", "rand_like", "randn_like", "randint_like"):
    globals()[_name] = _observed(globals()[_name])


def as_tensor(data, dtype=None, device=None):
    """``torch.as_tensor``: a tensor comes back as itself, or through a differentiable ``.to``
    where the dtype or device differs (torch.distributions' ``log_prob`` relies on both);
    other data is copied as ``tensor`` copies it."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device)
    return tensor(data, dtype=dtype, device=device)
