"""``nn.functional`` conv3d, conv_transpose1d/2d/3d, unfold and fold, with PyTorch's signatures.

Each is one op of ``inplace_lab.ops.nn_conv_more``: the convolutions record
``ConvolutionBackward0`` (saving input and weight), ``unfold`` ``Im2ColBackward0`` and
``fold`` ``Col2ImBackward0`` (whose backwards are each other). An unbatched input is
``unsqueeze(0)`` -> op -> ``squeeze(0)`` (SqueezeBackward1 on top), as PyTorch does.

>>> import inplace_lab.torch as torch
>>> x = torch.ones(1, 2, 3, 3)
>>> w = torch.ones(2, 1, 2, 2)
>>> torch.nn.functional.conv_transpose2d(x, w, stride=2).shape
torch.Size([1, 1, 6, 6])
"""
from __future__ import annotations

from ..ops import dispatch as _dispatch
from ..ops.nn_conv_more import CONV_TRANSPOSE, CONVND, IM2COL, COL2IM

__all__ = ["conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold"]


def _spread(v, nd):
    """The functional's own ``_ntuple``: a number becomes ``nd`` of them; a sequence stays as
    given (the op checks its length against the weight's dimensions, as ATen does)."""
    return (v,) * nd if isinstance(v, int) else tuple(v)


def _batched(fn, input, nd, call):
    """Run ``call`` on a batched input: an unbatched one gains and then loses a batch dim."""
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fn}, "
                           f"but got input of size: {list(input.shape)}")
    if input.ndim == nd + 1:
        return call(input.unsqueeze(0)).squeeze(0)
    return call(input)


# ---- conv3d -----------------------------------------------------------------------------------

def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """ConvolutionBackward0 (saves input and weight); a 4-D input is one unbatched sample."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: {padding!r}")
        if padding == "valid":
            padding = 0
        else:
            if any(s != 1 for s in _spread(stride, 3)):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            if weight.ndim == 5 and input.ndim in (4, 5):
                from .functional import _same_padding

                input, padding = _same_padding(input, weight, dilation, 3)
    params = {"stride": _spread(stride, 3), "padding": _spread(padding, 3),
              "dilation": _spread(dilation, 3), "groups": groups}
    return _batched("conv3d", input, 3,
                    lambda x: _dispatch.call(CONVND, (x, weight, bias), params))


# ---- transposed convolutions --------------------------------------------------------------------

def _conv_transpose(fn, nd, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    for name, v in (("stride", stride), ("padding", padding), ("output_padding", output_padding),
                    ("dilation", dilation)):
        if isinstance(v, str):
            raise TypeError(f"{fn}(): argument '{name}' must be tuple of ints, not str")
    params = {"stride": _spread(stride, nd), "padding": _spread(padding, nd),
              "output_padding": _spread(output_padding, nd), "groups": groups,
              "dilation": _spread(dilation, nd)}
    return _batched(fn, input, nd,
                    lambda x: _dispatch.call(CONV_TRANSPOSE, (x, weight, bias), params))


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The adjoint of conv1d: ``(N, C_in, L) -> (N, C_out, L_out)``, weight ``(C_in, C_out/g, k)``."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The adjoint of conv2d: ``H_out = (H - 1) * stride - 2 * padding + dilation * (k - 1)
    + output_padding + 1``; ConvolutionBackward0 (saves input and weight)."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The adjoint of conv3d, weight ``(C_in, C_out/g, kd, kh, kw)``."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


# ---- unfold / fold ------------------------------------------------------------------------------

def _pairs(what, **values):
    out = {}
    for name, v in values.items():
        v = (v, v) if isinstance(v, int) else tuple(v)
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        out[name] = v
    return out


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: ``(N, C, H, W) -> (N, C * kh * kw, L)``, every sliding block as a column
    (Im2ColBackward0; its backward is fold). A 3-D input is one unbatched image."""
    p = _pairs("unfold", kernel_size=kernel_size, dilation=dilation, padding=padding,
               stride=stride)
    if input.ndim < 3:  # (PyTorch reads input.size(2) first)
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(input.ndim, 1)}, {max(input.ndim, 1) - 1}], but got 2)")
    return _dispatch.call(IM2COL, (input,), p)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: ``(N, C * kh * kw, L) -> (N, C, *output_size)``, overlapping blocks summed
    (Col2ImBackward0; its backward is unfold). A 2-D input is one unbatched sample."""
    p = _pairs("fold", output_size=output_size, kernel_size=kernel_size, dilation=dilation,
               padding=padding, stride=stride)
    return _dispatch.call(COL2IM, (input,), p)
