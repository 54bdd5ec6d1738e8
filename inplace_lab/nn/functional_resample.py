"""``F.interpolate`` / ``upsample*`` and ``F.pixel_shuffle`` / ``pixel_unshuffle``.

``interpolate`` is torch/nn/functional.py's own Python, check for check and message for
message (size and scale_factor, align_corners, recompute_scale_factor, antialias, the
input's rank against the mode), then one ATen kernel per mode and rank: the table ops of
``ops/nn_upsample.py`` (``upsample_nearest2d`` -> UpsampleNearest2DBackward0,
``upsample_bilinear2d`` -> UpsampleBilinear2DBackward0 ...) after the checks ATen's meta
functions make (``upsample_2d_common_check``), or the adaptive average pools for 'area'.
"""
from __future__ import annotations

import math
import numbers
import warnings

import inplace_lab as _il
from inplace_lab.ops import dispatch as _dispatch
from inplace_lab.ops.table import OPS as _OPS

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
           "pixel_shuffle", "pixel_unshuffle"]

_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_FLOATS = ("Half", "BFloat16", "Float", "Double")
# (mode, spatial dims) -> (ATen op, the name its CPU dtype dispatch reports, Byte accepted)
_KERNELS = {
    ("nearest", 1): ("upsample_nearest1d", "compute_indices_weights_nearest", True),
    ("nearest", 2): ("upsample_nearest2d", "upsample_nearest2d_channels_last", True),
    ("nearest", 3): ("upsample_nearest3d", "compute_indices_weights_nearest", True),
    ("nearest-exact", 1): ("_upsample_nearest_exact1d", "compute_indices_weights_nearest", True),
    ("nearest-exact", 2): ("_upsample_nearest_exact2d", "upsample_nearest2d_channels_last",
                           True),
    ("nearest-exact", 3): ("_upsample_nearest_exact3d", "compute_indices_weights_nearest", True),
    ("linear", 1): ("upsample_linear1d", "compute_indices_weights_linear", False),
    ("bilinear", 2): ("upsample_bilinear2d", "upsample_bilinear2d_channels_last", True),
    ("trilinear", 3): ("upsample_trilinear3d", "compute_indices_weights_linear", False),
    ("bicubic", 2): ("upsample_bicubic2d", "compute_indices_weights_cubic", True),
    ("bilinear-aa", 2): ("_upsample_bilinear2d_aa", "compute_index_ranges_weights", True),
    ("bicubic-aa", 2): ("_upsample_bicubic2d_aa", "compute_index_ranges_weights", True),
    ("lanczos-aa", 2): ("_upsample_lanczos2d_aa", "compute_index_ranges_weights", True),
}
_FLOATS_AA = ("BFloat16", "Float", "Double")
_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h",
                                                                  "scales_w")}


def _is_integer(x) -> bool:
    """torch.nn.functional's ``_is_integer``: an int, or an integer tensor."""
    if isinstance(x, _il.Tensor):
        return not x.is_floating_point()
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) or isinstance(x, bool)


def _upsample_checks(input, output_size, nd):
    """ATen's ``upsample_{1,2,3}d_common_check`` and the meta function's non-empty check."""
    shape = tuple(input.shape)
    sp_in = shape[2:]
    labels = ("W",) if nd == 1 else ("H", "W") if nd == 2 else ("D", "H", "W")
    if any(n <= 0 for n in sp_in) or any(o <= 0 for o in output_size):
        fin = ", ".join(f"{k}: {v}" for k, v in zip(labels, sp_in))
        fout = ", ".join(f"{k}: {v}" for k, v in zip(labels, output_size))
        joiner = " and output" if nd == 1 else " output"
        raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                           f"({fin}){joiner} ({fout})")
    if input.numel() == 0 and math.prod(shape[1:]) == 0:
        raise RuntimeError(f"Non-empty {nd + 2}D data tensor expected but got a tensor with "
                           f"sizes {list(shape)}")


def _kernel(input, mode, nd, output_size, scale_factors, align_corners=None):
    """One ATen upsample kernel: its output size (``compute_output_size``), checks, dtype
    dispatch and table op."""
    op, dispatch_name, byte_ok = _KERNELS[(mode, nd)]
    _check_size_types(op, nd, output_size, align_corners)
    if output_size is not None:
        size = [int(s) for s in output_size]
        scales = [None] * nd
    else:
        scales = [float(s) for s in scale_factors]
        size = [int(n * s) for n, s in zip(input.shape[2:], scales)]
    _upsample_checks(input, size, nd)
    tname = input._dtype.torch_name
    floats = _FLOATS_AA if mode.endswith("-aa") else _FLOATS
    if tname not in floats and not (byte_ok and tname == "Byte"):
        raise NotImplementedError(f'"{dispatch_name}" not implemented for \'{tname}\'')
    if tname == "Byte" and mode == "bicubic":
        raise NotImplementedError("interpolate: bicubic on uint8 input without antialias "
                                  "(ATen's integer kernel) is not implemented in inplace_lab")
    params = {"output_size": tuple(size)}
    if align_corners is not None:
        params["align_corners"] = bool(align_corners)
    params.update(zip(_SCALE_NAMES[nd], scales))
    params["self_sym_sizes"] = tuple(input.shape)
    return _dispatch.call(_OPS[op], (input,), params)


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False):
    """Down/up sample ``input`` to ``size`` or by ``scale_factor`` (torch's own checks)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    else:
        if align_corners is None:
            align_corners = False

    dim = input.dim() - 2  # number of spatial dimensions
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    "format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    # "area" mode always requires an explicit size rather than scale factor
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None

    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")

    nd = input.dim()
    if mode in ("nearest", "nearest-exact") and nd in (3, 4, 5):
        return _kernel(input, mode, nd - 2, output_size, scale_factors)
    if mode == "area" and nd in (3, 4, 5):
        from . import functional as _F

        pool = (_F.adaptive_avg_pool1d, _F.adaptive_avg_pool2d, _F.adaptive_avg_pool3d)[nd - 3]
        return pool(input, output_size)
    if (mode, nd) in (("linear", 3), ("bilinear", 4), ("trilinear", 5), ("bicubic", 4)):
        return _kernel(input, mode + "-aa" if antialias else mode, nd - 2, output_size,
                       scale_factors, align_corners)
    if nd == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return _kernel(input, "lanczos-aa", 2, output_size, scale_factors, align_corners)
    need = {"linear": 3, "bilinear": 4, "trilinear": 5}.get(mode)
    if need is not None and nd in (3, 4, 5):
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {need}D input")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {nd}D) for the modes: {_ALL_MODES} (got {mode})")


def _check_size_types(op, nd, output_size, align_corners):
    """The kernel's ``int[] output_size``: anything else is the argument parser's TypeError,
    rendered as torch renders it for these two overloads."""
    if output_size is None or all(_is_integer(v) for v in output_size):
        return
    align = "" if align_corners is None else ", bool"
    align_decl = "" if align_corners is None else ", bool align_corners"
    items = ", ".join(type(v).__name__ for v in output_size)
    scales = "".join(f"float {n} = None, " for n in _SCALE_NAMES[nd])
    raise TypeError(
        f"{op}() received an invalid combination of arguments - got (Tensor, list{align}, "
        "NoneType), but expected one of:\n"
        f" * (Tensor input, tuple of ints output_size{align_decl}, tuple of floats "
        "scale_factors)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, "
        f"!list of [{items}]!{align}, !NoneType!)\n"
        f" * (Tensor input, tuple of ints output_size{align_decl}, {scales}*, Tensor out = "
        "None)\n")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate`` (torch's UserWarning)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode='nearest')``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode='bilinear', align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input, upscale_factor: int):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): one rearranging copy (PixelShuffleBackward0)."""
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={c} is not "
                           f"divisible by {r * r}")
    return _dispatch.call(_OPS["_pixel_shuffle"], (input,), {"upscale_factor": r})


def pixel_unshuffle(input, downscale_factor: int):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W): the inverse copy (PixelUnshuffleBackward0)."""
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    for name, v, d in (("height", h, -2), ("width", w, -1)):
        if v % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({d})={v} is not divisible by {r}")
    return _dispatch.call(_OPS["_pixel_unshuffle"], (input,), {"downscale_factor": r})

