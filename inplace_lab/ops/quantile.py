"""``quantile`` and ``nanquantile``, composed as PyTorch 2.13 composes them.

PyTorch has no quantile node: it sorts (SortBackward0), views the sorted values as
(..., n), finds each quantile's fractional rank, gathers the values below and above
(GatherBackward0) and interpolates with an in-place ``lerp_`` (LerpBackward1), then
squeezes the quantile axis away in place (SqueezeBackward4). The same calls here give the
same graph and gradients: an element between two ranks gets ``1 - w`` and ``w`` of the
gradient, the others none.

NaN: ``quantile`` of a slice with a NaN is NaN (its rank is moved to the last, NaN, value);
``nanquantile`` ranks among the non-NaN values only (all NaN: NaN).

>>> import inplace_lab as il
>>> il.quantile(il.tensor([1., 2., 3., 4.]), 0.5).item()
2.5
"""
from __future__ import annotations

from .. import creation, dtypes, layout
from ..tensor import Tensor
from .table import OpSpec, register

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _checks(name, input, q, interpolation):
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {format(q, 'g')}")
    if interpolation not in _MODES:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint "
                           f"or nearest, but got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if isinstance(q, Tensor) and q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if input._dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q._dtype is not input._dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if not bool(((q._a >= 0) & (q._a <= 1)).all()):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")


def _out_shape(input, q, dim, keepdim):
    """PyTorch's quantile_output_shape: (len(q),) if q is 1-D, then the reduced shape."""
    if dim is not None and input.ndim > 0:
        shape = list(input.shape)
        d = layout.wrap_dim(dim, input.ndim)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
    else:
        shape = [1] * input.ndim if keepdim else []
    if q.ndim > 0:
        shape.insert(0, q.numel())
    return shape


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    _checks("quantile", input, q, interpolation)  # nanquantile's messages say quantile() too
    if not isinstance(q, Tensor):
        q = creation.tensor(q, dtype=input.dtype, device=input.device)
    if dim is not None:
        layout.wrap_dim(dim, input.ndim)
    out_shape = _out_shape(input, q, dim, keepdim)
    if dim is None:
        s = input.flatten().sort().values
    else:
        d = layout.wrap_dim(dim, input.ndim) if input.ndim else 0
        if input.ndim == 0 or d == input.ndim - 1:
            s = input.sort().values
        else:
            s = input.unsqueeze(-1).transpose(d, -1).sort().values
    if q.ndim == 0:
        out_shape.insert(0, q.numel())
    in_shape = out_shape[1:] + [0]
    in_shape[-1] = s.shape[-1] if s.ndim else 1
    s = s.view(in_shape)
    if ignore_nan:  # rank among the non-NaN values; all NaN: rank 0 (a NaN)
        ranks = q * (s.isnan().logical_not().sum(-1, True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:  # a NaN in the slice: the last rank, which holds a NaN
        last = s.shape[-1] - 1
        r, has_nan = q * last, s.isnan().any(-1, True)
        bshape = layout.broadcast_shapes(r.shape, has_nan.shape)
        ranks = r.expand(bshape).masked_fill(has_nan.expand(bshape), last)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.to(dtypes.int64)
    values = s.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = ranks.new_full(ranks.shape, 0.5) if interpolation == "midpoint" else ranks - below
        values = values.lerp_(s.gather(-1, ranks.ceil().to(dtypes.int64)), weights)
    if q.ndim == 0:
        return values.squeeze_(-1)
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``torch.quantile``: the q-th quantiles (q a number or a 1-D tensor) over ``dim`` (all
    elements if None); a 1-D q puts its axis first."""
    if out is not None:
        raise TypeError("quantile(): out= is not supported here")
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``torch.nanquantile``: quantile ignoring NaNs."""
    if out is not None:
        raise TypeError("nanquantile(): out= is not supported here")
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


for _fn in (quantile, nanquantile):
    register(OpSpec(name=_fn.__name__, forward=_fn, kind="composite", doc=_fn.__doc__))
