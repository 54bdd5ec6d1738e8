"""Conv3d, ConvTranspose1d/2d/3d, Unfold and Fold: PyTorch's arguments, init and repr.

A transposed convolution's weight is ``(in_channels, out_channels // groups, *kernel_size)``
(the shape of the convolution it is the adjoint of), so its fan-in, which bounds both the
``kaiming_uniform_(a=sqrt(5))`` weight and the uniform bias, is ``out_channels // groups *
prod(kernel_size)``, as in PyTorch. ``forward(input, output_size)`` picks the
``output_padding`` that gives that size (PyTorch's ``_output_padding``): a strided transposed
conv can produce ``stride`` different sizes, one for each input size that a strided conv
maps to the same output.
"""
from __future__ import annotations

from .. import creation
from . import functional as F
from .conv import (Conv1d, Conv2d, _ConvNd, _triple, _tuple_of, conv_parameters,
                   reset_conv_parameters)
from .module import Module
from .parameter import Parameter

__all__ = ["Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Unfold", "Fold",
           "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "UninitializedParameter"]


class Conv3d(_ConvNd):
    """``(N, C_in, D, H, W) -> (N, C_out, D_out, H_out, W_out)``."""

    _ntuple = staticmethod(_triple)
    _conv = staticmethod(F.conv3d)


def _size_text(v):
    """How PyTorch prints a size in ``_output_padding``'s message (torch.Size or a list)."""
    from ..tensor import Size

    return f"torch.Size({list(v)})" if isinstance(v, Size) else str(v)


class _ConvTransposeNd(Module):
    """What ConvTranspose1d/2d/3d share, as PyTorch's ``_ConvTransposeNd``: the checks, the
    weight ``(in_channels, out_channels // groups, *kernel_size)`` and bias with PyTorch's init,
    ``output_size`` -> ``output_padding``, the repr. A subclass names its ``nd`` and functional."""

    nd = 2
    _conv = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        tup = _tuple_of(self.nd)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = tup(kernel_size), tup(stride), tup(padding)
        self.dilation, self.output_padding = tup(dilation), tup(output_padding)
        self.transposed, self.groups, self.padding_mode = True, groups, padding_mode
        conv_parameters(self, (in_channels, out_channels // groups, *self.kernel_size),
                        out_channels, bias, device, dtype)

    reset_parameters = reset_conv_parameters

    def _output_padding(self, input, output_size):
        """The ``output_padding`` that makes the output ``output_size`` (PyTorch's checks)."""
        if output_size is None:
            return self.output_padding
        nd = self.nd
        lead = 2 if input.dim() == nd + 2 else 1
        if len(output_size) == lead + nd:
            output_size = output_size[lead:]
        if len(output_size) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.dim()}D input, output_size must have "
                             f"{nd} or {lead + nd} elements (got {len(output_size)})")
        mins = [(input.shape[d + lead] - 1) * self.stride[d] - 2 * self.padding[d] +
                self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(nd)]
        maxs = [m + s - 1 for m, s in zip(mins, self.stride)]
        for size, lo, hi in zip(output_size, mins, maxs):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {_size_text(output_size)}, but valid "
                                 f"sizes range from {mins} to {maxs} (for an input of "
                                 f"torch.Size({list(input.shape[2:])}))")
        return tuple(int(size) - lo for size, lo in zip(output_size, mins))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return type(self)._conv(input, self.weight, self.bias, self.stride, self.padding,
                                output_padding, self.groups, self.dilation)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, " \
            f"stride={self.stride}"
        if any(self.padding):
            s += f", padding={self.padding}"
        if any(d != 1 for d in self.dilation):
            s += f", dilation={self.dilation}"
        if any(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class ConvTranspose1d(_ConvTransposeNd):
    """``(N, C_in, L) -> (N, C_out, L_out)``, the adjoint of Conv1d."""

    nd = 1
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """``(N, C_in, H, W) -> (N, C_out, H_out, W_out)``, the adjoint of Conv2d."""

    nd = 2
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """``(N, C_in, D, H, W) -> (N, C_out, D_out, H_out, W_out)``, the adjoint of Conv3d."""

    nd = 3
    _conv = staticmethod(F.conv_transpose3d)


class Unfold(Module):
    """``F.unfold``: every sliding block of an image as a column (Im2ColBackward0)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = \
            kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, " \
               f"padding={self.padding}, stride={self.stride}"


class Fold(Module):
    """``F.fold``: columns summed back into an image (Col2ImBackward0)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return f"output_size={self.output_size}, kernel_size={self.kernel_size}, " \
               f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


# ---- lazy convolutions: in_channels from the first input ----------------------------------------

class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (a lazy module's, before its first forward)."""

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__


class _LazyConvMixin:
    """PyTorch's ``LazyConvXd``: built with ``in_channels=0`` and uninitialized parameters; the
    first forward reads ``in_channels`` from the input, makes the real weight and bias with
    PyTorch's init, and turns the module into ``cls_to_become`` (``LazyConv2d`` -> ``Conv2d``)."""

    cls_to_become = None
    nd = 2

    def _lazy_setup(self, out_channels, bias, device, dtype):
        self.out_channels, self._factory = out_channels, {"device": device, "dtype": dtype}
        self.weight = UninitializedParameter()
        if bias:
            self.bias = UninitializedParameter()

    def has_uninitialized_params(self) -> bool:
        return any(isinstance(p, UninitializedParameter) for p in self.parameters(recurse=False))

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _in_channels(self, input):
        nd = self.nd
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: "
                               f"torch.Size({list(input.shape)})")
        return input.shape[1] if input.dim() == nd + 2 else input.shape[0]

    def _materialize(self, input):
        import sys

        self.in_channels = self._in_channels(input)
        if self.in_channels % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        first, second = (self.in_channels, self.out_channels) if self.transposed else \
            (self.out_channels, self.in_channels)
        old = self.weight
        fk = self._factory
        self.weight = Parameter(creation.empty(first, second // self.groups, *self.kernel_size,
                                               **fk))
        params = [self.weight]
        if isinstance(self.bias, UninitializedParameter):
            self.bias = Parameter(creation.empty(self.out_channels, **fk))
            params.append(self.bias)
        become = self.cls_to_become
        if type(self).__module__ == "inplace_lab.torch.nn":  # (the facade's own class)
            become = getattr(sys.modules["inplace_lab.torch.nn"], become.__name__)
            for p in params:
                p._policy = old._policy
        del self._factory
        self.__class__ = become
        self.reset_parameters()

    def __call__(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self._materialize(input)
        return Module.__call__(self, input, *args, **kwargs)


def _lazy_conv(name, base, nd):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False,
                      padding_mode, device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)

    return type(name, (_LazyConvMixin, base), {
        "__init__": __init__, "cls_to_become": base, "nd": nd, "__module__": __name__,
        "__doc__": f"``{base.__name__}`` whose ``in_channels`` is read from the first input."})


def _lazy_conv_transpose(name, base, nd):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False,
                      dilation, padding_mode, device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)

    return type(name, (_LazyConvMixin, base), {
        "__init__": __init__, "cls_to_become": base, "nd": nd, "__module__": __name__,
        "__doc__": f"``{base.__name__}`` whose ``in_channels`` is read from the first input."})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, 1)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, 2)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d, 3)
LazyConvTranspose1d = _lazy_conv_transpose("LazyConvTranspose1d", ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv_transpose("LazyConvTranspose2d", ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv_transpose("LazyConvTranspose3d", ConvTranspose3d, 3)
