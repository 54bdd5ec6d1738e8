"""``F.interpolate`` (nearest, nearest-exact, linear, bilinear), ``F.pixel_shuffle`` /
``pixel_unshuffle``, as compositions of table ops.

PyTorch has one kernel per mode (``UpsampleBilinear2DBackward0`` ...); here each spatial
dim is resampled on its own: nearest picks source rows with ``index_select``, linear
takes the two neighbours with ``index_select`` and blends them with per-row weights
``x0 * (1 - w) + x1 * w``. The source coordinates are PyTorch's own formulas
(``area_pixel_compute_source_index``), so values and gradients match; the graph shows the
index_select / mul / add nodes a student can follow instead of one opaque node.
"""
from __future__ import annotations

import math

import numpy as np

import inplace_lab as _il
from inplace_lab.ops import dispatch as _dispatch
from inplace_lab.ops.table import OPS as _OPS

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
           "pixel_shuffle", "pixel_unshuffle"]

_MODES = {"nearest": None, "nearest-exact": None, "linear": 1, "bilinear": 2}
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _out_sizes(input, size, scale_factor, dims):
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = list(input.shape[2:])
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dims:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                    "(o1, o2, ...,oK) format.")
            return [int(s) for s in size], None
        return [int(size)] * dims, None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dims:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {spatial} and scale_factor of shape "
                f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                "scale_factor in (s1, s2, ...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dims
    return [int(math.floor(n * s)) for n, s in zip(spatial, scales)], scales


def _index(idx, like):
    return _il.tensor(np.asarray(idx, dtype=np.int64), device=like.device)


def _scale(n_in, n_out, align_corners, scale):
    """PyTorch's ``area_pixel_compute_scale``."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def _nearest(x, dim, n_out, scale, exact):
    n_in = x.shape[dim]
    s = _scale(n_in, n_out, False, scale)
    dst = np.arange(n_out, dtype=np.float32)
    src = np.floor((dst + 0.5) * np.float32(s)) if exact else np.floor(dst * np.float32(s))
    return x.index_select(dim, _index(np.minimum(src.astype(np.int64), n_in - 1), x))


def _linear(x, dim, n_out, scale, align_corners):
    n_in = x.shape[dim]
    acc = np.float64 if x._dtype.name == "float64" else np.float32  # PyTorch's opmath type
    s = acc(_scale(n_in, n_out, align_corners, scale))
    dst = np.arange(n_out, dtype=acc)
    src = dst * s if align_corners else np.maximum((dst + acc(0.5)) * s - acc(0.5), acc(0))
    i0 = np.minimum(src.astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    w = (src - i0).astype(acc)
    shape = [1] * x.ndim
    shape[dim] = n_out
    w1 = _il.tensor(w.reshape(shape), dtype=x._dtype, device=x.device)
    w0 = _il.tensor((1 - w).reshape(shape), dtype=x._dtype, device=x.device)
    return x.index_select(dim, _index(i0, x)) * w0 + x.index_select(dim, _index(i1, x)) * w1


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False):
    """Resize the spatial dims of an (N, C, L) or (N, C, H, W) tensor."""
    nd = input.ndim
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    known = mode in ("nearest", "linear", "bilinear", "bicubic", "trilinear", "lanczos", "area",
                     "nearest-exact")
    need = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}.get(mode)
    if known and nd in (3, 4, 5) and need is not None and need != nd:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {need}D input")
    if not known or nd not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the "
            f"modes: {_ALL_MODES} (got {mode})")
    if mode not in _MODES or nd == 5:
        raise NotImplementedError(f"interpolate: mode {mode!r} on {nd}D input is not "
                                  "implemented in inplace_lab")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not implemented in inplace_lab")
    sizes, scales = _out_sizes(input, size, scale_factor, nd - 2)
    if recompute_scale_factor:
        scales = None
    out = input
    for k, n_out in enumerate(sizes):
        dim, sc = 2 + k, (scales[k] if scales is not None else None)
        if mode in ("nearest", "nearest-exact"):
            out = _nearest(out, dim, n_out, sc, mode == "nearest-exact")
        else:
            out = _linear(out, dim, n_out, sc, bool(align_corners))
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate``."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
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

