"""Top-level names of PyTorch 2.13 composed from what the library already has.

Three groups, none adding maths of its own:

* ``torch.<nn op>``: torch's top-level twins of ``torch.nn.functional`` ops. Their
  signatures are ATen's, not F's: ``torch.batch_norm(input, weight, bias, running_mean,
  running_var, training, momentum, eps, cudnn_enabled)``, ``torch.dropout(input, p, train)``,
  losses take ``reduction`` as an int (0 none, 1 mean, 2 sum), ``torch.embedding(weight,
  indices)``. Each one reorders its arguments and calls the functional op.
* creation and utilities: the window functions, ``range`` (deprecated, inclusive end),
  ``scalar_tensor``, ``asarray``, ``frombuffer``, ``atleast_nd``, ``cartesian_prod``,
  ``combinations``, ``column_stack``, dtype questions, the RNG state, threads.
* (The ``*_scatter`` ops and the split/flag methods are table ops: ``ops/scatter_more.py``.)

>>> import inplace_lab.torch as torch
>>> torch.dropout(torch.ones(2), 0.5, False).tolist()
[1.0, 1.0]
"""
from __future__ import annotations

import builtins as _builtins
import math as _math
import warnings as _warnings

import inplace_lab as _il
from inplace_lab import backend as _backend
from inplace_lab import creation as _creation
from inplace_lab import dtypes as _dtypes
from inplace_lab import facade as _facade
from inplace_lab import layout as _layout
from inplace_lab import rng as _rng
from inplace_lab.tensor import Tensor as _Tensor

from .nn import functional as _F

_POLICY = "pytorch"
# ATen's Reduction enum. The losses' schemas default to 1 (mean), but torch's Python bindings
# call them with 0 (none) when reduction is left out: torch.kl_div(a, b) is unreduced.
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}

__all__ = [
    # nn ops under torch's top-level names
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "adaptive_avg_pool1d",
    "adaptive_max_pool1d", "batch_norm", "layer_norm", "group_norm", "instance_norm",
    "rms_norm", "embedding", "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout_",
    "alpha_dropout_", "feature_alpha_dropout_", "bilinear", "pdist", "pairwise_distance",
    "cosine_similarity", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "prelu",
    "rrelu", "kl_div", "binary_cross_entropy_with_logits", "cosine_embedding_loss",
    "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss",
    "ctc_loss", "constant_pad_nd",
    # creation and utilities
    "hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window",
    "range", "scalar_tensor", "asarray", "frombuffer", "atleast_1d", "atleast_2d", "atleast_3d",
    "broadcast_shapes", "cartesian_prod", "combinations", "column_stack", "row_stack",
    "result_type", "promote_types", "can_cast", "is_complex", "get_rng_state", "set_rng_state",
    "initial_seed", "get_num_threads", "set_num_threads", "typename", "is_storage",
]


# ---- nn ops: the functional op, with ATen's argument order ---------------------------------------

conv1d, conv2d, conv3d = _F.conv1d, _F.conv2d, _F.conv3d
conv_transpose1d, conv_transpose2d = _F.conv_transpose1d, _F.conv_transpose2d
conv_transpose3d = _F.conv_transpose3d
avg_pool1d, adaptive_avg_pool1d = _F.avg_pool1d, _F.adaptive_avg_pool1d
bilinear, pdist, pairwise_distance = _F.bilinear, _F.pdist, _F.pairwise_distance
cosine_similarity, prelu = _F.cosine_similarity, _F.prelu
pixel_shuffle, pixel_unshuffle, channel_shuffle = (_F.pixel_shuffle, _F.pixel_unshuffle,
                                                   _F.channel_shuffle)
rms_norm = _F.rms_norm


def _pool(f):
    def pool(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        stride = None if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
            else stride
        return f(input, kernel_size, stride, padding, dilation, ceil_mode)

    pool.__name__ = pool.__qualname__ = f.__name__
    pool.__doc__ = f"torch.{f.__name__}: F.{f.__name__} without return_indices."
    return pool


max_pool1d, max_pool2d, max_pool3d = _pool(_F.max_pool1d), _pool(_F.max_pool2d), \
    _pool(_F.max_pool3d)


def adaptive_max_pool1d(input, output_size):
    """Always ``(values, indices)``, as ATen's op."""
    return _F.adaptive_max_pool1d(input, output_size, return_indices=True)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                            momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return _F.group_norm(input, num_groups, weight, bias, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """ATen's order (weight first); a negative ``padding_idx`` means none (ATen does not wrap it)."""
    pad = padding_idx if 0 <= padding_idx < weight.shape[0] else None
    return _F.embedding(indices, weight, pad, None, 2.0, scale_grad_by_freq, sparse)


def dropout(input, p, train):
    return _F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    return _F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input, p, train):
    return _F.feature_alpha_dropout(input, p, train)


def dropout_(input, p, train):
    return _F.dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p, train):
    return _F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p, train):
    return _F.feature_alpha_dropout(input, p, train, inplace=True)


def rrelu(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    return _F.rrelu(input, lower, upper, training)


def _reduction(r):
    if isinstance(r, str):  # (ATen's parser refuses a string where it wants an int)
        raise TypeError(f"reduction must be an int (0: none, 1: mean, 2: sum), not str {r!r}")
    return _REDUCTIONS[int(r)]


def kl_div(input, target, reduction=0, *, log_target=False):
    """ATen's kl_div: reduction=1 is the plain mean (F's 'mean' warning is F's own); left
    out, no reduction (see _REDUCTIONS)."""
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        return _F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return _F.binary_cross_entropy_with_logits(input, target, weight,
                                               reduction=_reduction(reduction),
                                               pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F.cosine_embedding_loss(input1, input2, target, margin,
                                    reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F.margin_ranking_loss(input1, input2, target, margin,
                                  reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                               reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False,
                        reduction=0):
    return _F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                  reduction=_reduction(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    return _F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                       _reduction(reduction), zero_infinity)


def constant_pad_nd(input, pad, value=0):
    return _F.pad(input, pad, "constant", value)


# ---- windows ---------------------------------------------------------------------------------

def _window_start(name, window_length, dtype):
    """(n, dtype): ATen's window_function_checks, and the dtype the window is made in."""
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length="
                           f"{window_length}")
    dt = _il.get_default_dtype() if dtype is None else dtype
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: "
                           f"TensorOptions(dtype={_dtypes.cpp_name(dt)}, device=cpu, "
                           "layout=Strided (default), requires_grad=false (default), "
                           "pinned_memory=false, memory_format=(nullopt))")
    return int(window_length), dt


def _finish(w, n, periodic, requires_grad):
    """ATen computes a periodic window of length n as the symmetric one of n + 1, narrowed."""
    if periodic:
        w = w[:n].contiguous()
    w = _facade.adopt(w.detach(), _POLICY)
    return w.requires_grad_(True) if requires_grad else w


def _trivial(n, dt, device, requires_grad):
    t = _creation.empty(0, dtype=dt, device=device) if n == 0 else \
        _creation.ones(1, dtype=dt, device=device)
    t = _facade.adopt(t, _POLICY)
    return t.requires_grad_(True) if requires_grad else t


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """``alpha - beta * cos(2 pi i / (N - 1))`` (N = window_length + 1 when periodic)."""
    n, dt = _window_start("hamming_window", window_length, dtype)
    if n <= 1:
        return _trivial(n, dt, device, requires_grad)
    m = n + 1 if periodic else n
    w = _creation.arange(m, dtype=dt, device=device).mul(_math.pi * 2.0 / (m - 1)).cos()
    return _finish(w.mul(-beta).add(alpha), n, periodic, requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """``0.5 - 0.5 cos(2 pi i / (N - 1))``: hamming with alpha = beta = 0.5."""
    _window_start("hann_window", window_length, dtype)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """``0.42 - 0.5 cos(2 pi i / (N - 1)) + 0.08 cos(4 pi i / (N - 1))``."""
    n, dt = _window_start("blackman_window", window_length, dtype)
    if n <= 1:
        return _trivial(n, dt, device, requires_grad)
    m = n + 1 if periodic else n
    w = _creation.arange(m, dtype=dt, device=device).mul(_math.pi / (m - 1))
    w = w.mul(4).cos().mul(0.08) - w.mul(2).cos().mul(0.5) + 0.42
    return _finish(w, n, periodic, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangle ``1 - |2 i / (N - 1) - 1|``."""
    n, dt = _window_start("bartlett_window", window_length, dtype)
    if n <= 1:
        return _trivial(n, dt, device, requires_grad)
    m = n + 1 if periodic else n
    w = _creation.arange(m, dtype=dt, device=device).mul(2.0 / (m - 1))
    half = ((m - 1) >> 1) + 1
    w = _il.cat([w[:half], w[half:].mul(-1).add(2)])
    return _finish(w, n, periodic, requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """``I0(beta sqrt(1 - ((i - a) / a)^2)) / I0(beta)``, ``a = (N - 1) / 2``."""
    n, dt = _window_start("kaiser_window", window_length, dtype)
    if n <= 1:
        return _trivial(n, dt, device, requires_grad)
    m = n + 1 if periodic else n
    a = (m - 1) / 2.0
    x = _creation.arange(m, dtype=dt, device=device).sub(a).div(a)
    w = x.pow(2).neg().add(1).abs().sqrt().mul(beta).i0()
    i0_beta = _creation.full((), float(beta), dtype=dt, device=device).i0()
    return _finish(w.div(i0_beta), n, periodic, requires_grad)


# ---- creation --------------------------------------------------------------------------------

def range(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False, out=None):
    """Deprecated: ``end`` is included; the default dtype even for integer arguments."""
    _warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior "
        "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
        "values in [start, end).", UserWarning, stacklevel=2)
    if end is None:
        raise TypeError("range() missing required argument 'end' (pos 2)")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(_math.floor((end - start) / step)) + 1
    dt = _il.get_default_dtype() if dtype is None else dtype
    vals = _creation.arange(count, dtype=_il.float64, device=device).mul(step).add(start)
    t = _facade.adopt(vals.to(dt), _POLICY)
    return t.requires_grad_(True) if requires_grad else t


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """A 0-d tensor of the default dtype (whatever Python type ``s`` is)."""
    if isinstance(s, _Tensor):
        s = s.item()
    dt = _il.get_default_dtype() if dtype is None else dtype
    return _facade.adopt(_creation.tensor(s, dtype=dt, device=device,
                                          requires_grad=requires_grad), _POLICY)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``obj`` itself when it is a tensor of that dtype (and copy is not True); a numpy array
    shares its memory likewise; anything else is copied as ``torch.tensor`` would."""
    if isinstance(obj, _Tensor):
        same = (dtype is None or dtype == obj.dtype) and (device is None or
                                                         _backend.device(device) == obj.device)
        if same and not copy:
            t = obj
        else:
            if copy is False:
                raise ValueError("can't alias tensor from array without copying")
            t = obj.to(dtype=dtype or obj.dtype, device=device or obj.device, copy=True)
            t = t.detach()
    elif isinstance(obj, _backend.np.ndarray) and not copy and device is None:
        t = _creation.from_numpy(obj)
        if dtype is not None and dtype != t.dtype:
            t = t.to(dtype)
    else:
        t = _creation.tensor(obj, dtype=dtype, device=device)
    t = _facade.adopt(t, _POLICY)
    return t.requires_grad_(True) if requires_grad else t


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor over a Python buffer's memory (writes go both ways)."""
    mv = memoryview(buffer)
    n = mv.nbytes
    if n == 0 or count == 0:
        raise ValueError(f"both buffer length ({n}) and count ({count}) must not be 0")
    if not 0 <= offset < n:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({n} bytes) minus 1")
    size = dtype.itemsize
    if count < 0 and (n - offset) % size:
        raise ValueError(f"buffer length ({n - offset} bytes) after offset ({offset} bytes) must "
                         f"be a multiple of element size ({size})")
    if count > 0 and count * size > n - offset:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length ({n} "
                         "bytes)")
    arr = _backend.np.frombuffer(buffer, dtype=dtype.np, count=count,
                                 offset=offset)
    t = _facade.adopt(_creation.from_numpy(arr), _POLICY)
    return t.requires_grad_(True) if requires_grad else t


# ---- shapes ------------------------------------------------------------------------------------

def _atleast(name, reshape):
    def fn(*tensors):
        seq = tensors[0] if len(tensors) == 1 else tensors
        if isinstance(seq, _Tensor):
            return reshape(seq)
        return tuple(reshape(t) for t in seq)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _r1(t):
    return t.reshape(1) if t.ndim == 0 else t


def _r2(t):
    return t.reshape(1, 1) if t.ndim == 0 else t.unsqueeze(0) if t.ndim == 1 else t


def _r3(t):
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.ndim == 2 else t


atleast_1d = _atleast("atleast_1d", _r1)
atleast_2d = _atleast("atleast_2d", _r2)
atleast_3d = _atleast("atleast_3d", _r3)
atleast_1d.__doc__ = "A 0-d tensor as a (1,) view; others unchanged (several: a tuple)."
atleast_2d.__doc__ = "0-d as (1, 1), 1-d as (1, n) views; others unchanged."
atleast_3d.__doc__ = "0-d as (1, 1, 1), (n,) as (1, n, 1), (m, n) as (m, n, 1) views."


def broadcast_shapes(*shapes):
    """The shape every argument broadcasts to (no tensors made), scanned as torch does:
    argument by argument, each from its last dim; the first clash names that argument."""
    sizes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    out = [1] * max((len(s) for s in sizes), default=0)
    for idx, s in enumerate(sizes):
        for j in _builtins.range(-1, -1 - len(s), -1):
            n = s[j]
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(s)}")
            if n == 1 or n == out[j]:
                continue
            if out[j] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {n} at {j}! Mismatching "
                    f"argument at index {idx} had {tuple(s)}; but expected shape should be "
                    f"broadcastable to {out}")
            out[j] = n
    return _il.Size(out)


def _need_1d(t):
    if t.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors):
    """Every tuple of elements, one per tensor: meshgrid ('ij'), flattened, stacked as columns."""
    for t in tensors:
        _need_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = _il.meshgrid(*tensors, indexing="ij")
    return _il.stack([g.flatten() for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-d tensor's elements, as rows (itertools' order):
    ATen's way, an r-fold meshgrid masked where the indices increase, stacked as columns."""
    _need_1d(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _facade.adopt(_creation.empty(0, dtype=input.dtype, device=input.device), _POLICY)
    n = input.shape[0]
    idx = [g for g in _il.meshgrid(*[_creation.arange(n, device=input.device)] * r,
                                   indexing="ij")]
    mask = _creation.ones(idx[0].shape, dtype=_il.bool, device=input.device)
    for a, b in zip(idx, idx[1:]):
        mask = mask & (a <= b if with_replacement else a < b)
    grids = _il.meshgrid(*[input] * r, indexing="ij")
    return _il.stack([g.masked_select(mask) for g in grids], 1)


def column_stack(tensors):
    """0-d and 1-d tensors become columns (n, 1); then ``hstack``."""
    return _il.hstack([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors])


def row_stack(tensors):
    """An alias of ``vstack``."""
    return _il.vstack(tensors)


# ---- dtypes ----------------------------------------------------------------------------------

def _torch_dtype(dt):
    return dt._facades[_POLICY] if hasattr(dt, "_facades") else dt


def result_type(tensor1, tensor2):
    """The dtype an op of the two would compute in (Python numbers weigh less than tensors)."""
    return _torch_dtype((tensor1 + tensor2).dtype if isinstance(tensor1, _Tensor) or
                        isinstance(tensor2, _Tensor) else
                        _il.tensor(tensor1).add(tensor2).dtype)


def promote_types(type1, type2):
    return _torch_dtype(_dtypes.promote_types(type1, type2))


def can_cast(from_, to):
    return _dtypes.can_cast(from_, to)


def is_complex(input):
    if not isinstance(input, _Tensor):
        raise TypeError(f"is_complex(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_complex()


# ---- state -----------------------------------------------------------------------------------

def get_rng_state():
    """The CPU generator's state: PyTorch's 5056 bytes (``rng.Generator.get_state``)."""
    data = list(_rng.default_generator.state_bytes())
    return _facade.adopt(_creation.tensor(data, dtype=_il.uint8), _POLICY)


def set_rng_state(new_state):
    if not isinstance(new_state, _Tensor) or new_state.dtype != _il.uint8:
        raise TypeError("expected a torch.ByteTensor, but got "
                        f"{typename(new_state) if isinstance(new_state, _Tensor) else type(new_state).__name__}")
    _rng.default_generator.set_state(new_state)


def initial_seed():
    """The seed the CPU generator started from (``manual_seed``'s, else a random 64-bit one)."""
    return _rng.default_generator.initial_seed()


_threads = [1]


def get_num_threads():
    """How many threads ops may use (numpy decides; this number is only remembered)."""
    return _threads[0]


def set_num_threads(int):  # noqa: A002  (torch's argument name)
    if int <= 0:
        raise RuntimeError("Number of threads must be positive")
    _threads[0] = int


# ---- names -----------------------------------------------------------------------------------

_LEGACY = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
           "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
           "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def typename(obj):
    """``'torch.FloatTensor'`` for a float32 CPU tensor (``torch.cuda.`` on a GPU); else the
    object's class name, qualified by its module unless builtin."""
    if obj is _Tensor:
        return "torch.Tensor"
    if isinstance(obj, _Tensor):
        prefix = "torch.cuda." if obj.device.type == "cuda" else "torch."
        return f"{prefix}{_LEGACY.get(obj._dtype.name, obj._dtype.name)}Tensor"
    module = getattr(obj, "__module__", None) or type(obj).__module__
    qual = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return qual if module in (None, "builtins") else f"{module}.{qual}"


def is_storage(obj):
    """True for what ``tensor.untyped_storage()`` / ``storage()`` return."""
    from inplace_lab.ops import tensor_extras
    from inplace_lab.storage import Storage

    kinds = tuple(v for v in vars(tensor_extras).values()
                  if isinstance(v, type) and "Storage" in v.__name__)
    return isinstance(obj, (Storage,) + kinds)
