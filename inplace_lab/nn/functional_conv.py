"""``nn.functional`` conv3d, conv_transpose1d/2d/3d, unfold and fold, with PyTorch's signatures.

Each is one op of ``inplace_lab.ops.nn_conv_more``: the convolutions record
``ConvolutionBackward0`` (saving input and weight), ``unfold`` ``Im2ColBackward0`` and
``fold`` ``Col2ImBackward0`` (whose backwards are each other). An unbatched input is
``unsqueeze(0)`` -> op -> ``squeeze(0)`` (SqueezeBackward1 on top), as PyTorch does.

Before any data is touched, every convolution (conv1d/2d/3d here and in ``functional`` /
``functional_layers``, the transposes) runs torch's checks in torch's order: the argument
parser's TypeErrors (``arg_parse``), then ``conv_front`` / ``check_convolution`` (ATen's
``batchify``, ``_convolution_mode``, ``_convolution`` and its backend's checks).

>>> import inplace_lab.torch as torch
>>> x = torch.ones(1, 2, 3, 3)
>>> w = torch.ones(2, 1, 2, 2)
>>> torch.nn.functional.conv_transpose2d(x, w, stride=2).shape
torch.Size([1, 1, 6, 6])
"""
from __future__ import annotations

from ..ops import dispatch as _dispatch
from ..ops.nn_conv_more import CONV_TRANSPOSE, CONVND, IM2COL, COL2IM, check_convolution
from .arg_parse import conv_transpose_params, parsed

__all__ = ["conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold"]


def _spread(v, nd):
    """The argument parser's ``int[nd]``: a number becomes ``nd`` of them; a sequence stays as
    given (``check_convolution`` checks its length against the weight's dimensions, as ATen's
    ``expand_param_if_needed``)."""
    return (v,) * nd if isinstance(v, int) else tuple(v)


def _batchify(fn, input, nd):
    """ATen's ``batchify``: ``(batched input, whether it was batched)``, or its error."""
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fn}, "
                           f"but got input of size: {list(input.shape)}")
    return (input, True) if input.ndim == nd + 2 else (input.unsqueeze(0), False)


def _same(input, weight, stride, dilation, groups):
    """ATen's ``_convolution_same``: its checks, then ``dilation * (k - 1)`` of padding per
    dim; an odd total puts the extra cell on the right by a ``constant_pad_nd`` of the input
    first (ConstantPadNdBackward0 under the convolution), the rest is symmetric padding.
    Returns ``(input, padding)``."""
    import warnings

    k = weight.ndim
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = k - 2
    if input.ndim != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight"
                           f"{list(weight.shape)}, but got {input.ndim}-dimensional input of size "
                           f"{list(input.shape)} instead")
    stride, dilation = _spread(stride, dim), _spread(dilation, dim)
    for name, v in (("stride", stride), ("dilation", dilation)):
        if len(v) not in (1, dim):
            raise RuntimeError(f"{name} cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, right = [], []
    for i in range(dim):
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        total = d * (weight.shape[i + 2] - 1)
        left.append(int(total / 2))  # (C++'s division truncates)
        right.append(total - left[-1])
    if left == right:
        return input, tuple(left)
    warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                  "zero-padded copy of the input be created", UserWarning, stacklevel=5)
    pad_nd = [0] * (2 * dim)
    for i in range(dim):
        delta, at = right[i] - left[i], 2 * (dim - 1 - i)  # (F.pad: last dim first)
        if delta > 0:
            pad_nd[at + 1] = delta
        else:
            pad_nd[at] = delta
            left[i] = right[i]
    from .functional_layers import pad

    return pad(input, tuple(pad_nd)), tuple(left)


def conv_front(fn, nd, input, weight, bias, stride, padding, dilation, groups):
    """ATen's conv1d/conv2d/conv3d front ends and ``_convolution``'s checks, in ATen's order,
    before any data is touched: a bias of another dtype (numeric padding only), ``batchify``,
    then ``_convolution_mode`` for a padding string and ``check_convolution``.

    Returns ``(batched input, stride, padding, dilation, batched)`` for the kernel."""
    if isinstance(padding, str):
        x, batched = _batchify(fn, input, nd)
        if padding == "same":
            x, padding = _same(x, weight, stride, dilation, groups)
        elif padding == "valid":
            padding = 0
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        if bias is not None and bias._dtype is not input._dtype:
            from ..dtypes import cpp_name

            raise RuntimeError(f"Input type ({cpp_name(input._dtype)}) and bias type "
                               f"({cpp_name(bias._dtype)}) should be the same")
        x, batched = _batchify(fn, input, nd)
    stride, padding, dilation = _spread(stride, nd), _spread(padding, nd), _spread(dilation, nd)
    stride, padding, dilation, _ = check_convolution(x, weight, bias, stride, padding, dilation,
                                                     False, (0,), groups)
    return x, stride, padding, dilation, batched


# ---- conv3d -----------------------------------------------------------------------------------

@parsed("conv3d")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """ConvolutionBackward0 (saves input and weight); a 4-D input is one unbatched sample."""
    x, stride, padding, dilation, batched = conv_front("conv3d", 3, input, weight, bias, stride,
                                                       padding, dilation, groups)
    y = _dispatch.call(CONVND, (x, weight, bias), {"stride": stride, "padding": padding,
                                                   "dilation": dilation, "groups": groups})
    return y if batched else y.squeeze(0)


# ---- transposed convolutions --------------------------------------------------------------------

def _conv_transpose(fn, nd, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    x, batched = _batchify(fn, input, nd)
    stride, padding, dilation, output_padding = check_convolution(
        x, weight, bias, _spread(stride, nd), _spread(padding, nd), _spread(dilation, nd), True,
        _spread(output_padding, nd), groups)
    params = {"stride": stride, "padding": padding, "output_padding": output_padding,
              "groups": groups, "dilation": dilation}
    y = _dispatch.call(CONV_TRANSPOSE, (x, weight, bias), params)
    return y if batched else y.squeeze(0)


@parsed("conv_transpose1d", conv_transpose_params())
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The adjoint of conv1d: ``(N, C_in, L) -> (N, C_out, L_out)``, weight ``(C_in, C_out/g, k)``."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


@parsed("conv_transpose2d", conv_transpose_params())
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The adjoint of conv2d: ``H_out = (H - 1) * stride - 2 * padding + dilation * (k - 1)
    + output_padding + 1``; ConvolutionBackward0 (saves input and weight)."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


@parsed("conv_transpose3d", conv_transpose_params())
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
