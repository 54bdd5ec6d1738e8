"""``torch.nn.utils.convert_conv2d_weight_memory_format`` / ``..._conv3d_...``: relay the
weights of every (transposed) convolution of a module tree out in ``memory_format``
(``channels_last`` ...), in place of their ``.data``; other layers are left as they are."""
from __future__ import annotations

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    import inplace_lab.nn as nn

    if isinstance(module, tuple(getattr(nn, k) for k in kinds)):
        weight_data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = weight_data.resize_(weight_data.size(), memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Every Conv2d / ConvTranspose2d weight of ``module`` laid out in ``memory_format``."""
    return _convert(module, memory_format, ("Conv2d", "ConvTranspose2d"))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Every Conv3d / ConvTranspose3d weight of ``module`` laid out in ``memory_format``."""
    return _convert(module, memory_format, ("Conv3d", "ConvTranspose3d"))
