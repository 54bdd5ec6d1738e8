"""``paddle.nn.functional`` resampling and channel rearrangement: interpolate / upsample,
pixel_shuffle, pixel_unshuffle, channel_shuffle.

``interpolate`` resamples one spatial dim at a time (as the core's PyTorch version does):
nearest picks source rows with ``index_select``; the linear modes blend two neighbours with
per-row weights. The source coordinate is Paddle's (``interpolate_function.h``):

- ``align_corners=True``: ``src = dst * (in - 1) / (out - 1)``;
- ``align_mode=0`` (default): half-pixel, ``src = max((dst + 0.5) * ratio - 0.5, 0)``;
- ``align_mode=1``: ``src = dst * ratio``;
- nearest: ``floor(dst * ratio)`` (``align_corners`` must stay False);

where ``ratio = 1 / scale_factor`` when a scale is given, else ``in / out``. 'bicubic' is
not implemented; 'area' is adaptive average pooling.
"""
from __future__ import annotations

import numpy as np

__all__ = ["interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]

_NEED = {"LINEAR": (3,), "NEAREST": (4, 5), "BILINEAR": (4,), "BICUBIC": (4,), "TRILINEAR": (5,)}
_NEED_MSG = {"LINEAR": "'linear' only support 3-D tensor.",
             "NEAREST": "'NEAREST' only support 4-D  or 5-D tensor.",
             "BILINEAR": "'bilinear' and 'bicubic' only support 4-D tensor.",
             "BICUBIC": "'bilinear' and 'bicubic' only support 4-D tensor.",
             "TRILINEAR": "'trilinear'only support 5-D tensor."}
_LAYOUTS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _pd():
    from inplace_lab import paddle as pd

    return pd


def _ratio(n_in, n_out, align_corners, scale):
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale else n_in / n_out


def _resample(x, dim, n_out, scale, mode, align_corners, align_mode):
    pd = _pd()
    n_in = x.shape[dim]
    r = np.float32(_ratio(n_in, n_out, align_corners, scale))
    dst = np.arange(n_out, dtype=np.float32)
    if mode == "NEAREST":
        src = np.minimum(np.floor(dst * r).astype(np.int64), n_in - 1)
        return pd.index_select(x, pd.to_tensor(src), axis=dim)
    if align_corners or align_mode == 1:
        src = dst * r
    else:
        src = np.maximum((dst + np.float32(0.5)) * r - np.float32(0.5), np.float32(0))
    i0 = np.minimum(src.astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = (src - i0).astype(np.float32)
    shape = [1] * x.ndim
    shape[dim] = n_out
    dt = str(x.dtype).split(".")[-1]
    w1 = pd.to_tensor(lam.reshape(shape).astype(dt))
    w0 = pd.to_tensor((1 - lam).reshape(shape).astype(dt))
    return (pd.index_select(x, pd.to_tensor(i0), axis=dim) * w0
            + pd.index_select(x, pd.to_tensor(i1), axis=dim) * w1)


def _sizes(x, size, scale_factor, recompute_scale_factor, nd):
    """Output sizes and the per-dim scales the kernel sees (None: derived from the sizes)."""
    if size is not None and scale_factor is not None:
        raise ValueError("Only one of size or scale_factor should be defined.")
    spatial = list(x.shape[2:])
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        if hasattr(size, "tolist"):
            size = size.tolist()
        if not isinstance(size, (list, tuple)):
            raise TypeError("size should be a list or tuple or Variable.")
        size = [int(s.item()) if hasattr(s, "item") else int(s) for s in size]
        assert all(s > 0 for s in size), ("Each dimension size given in out_shape must be "
                                          "greater than 0.")
        return size, [None] * nd
    if hasattr(scale_factor, "tolist"):
        scale_factor = scale_factor.tolist()
    if isinstance(scale_factor, (int, float)):
        scales = [float(scale_factor)] * nd
    elif isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != nd:
            raise ValueError(f"scale_shape length should be {nd} for input {x.ndim}-D tensor.")
        scales = [float(s) for s in scale_factor]
    else:
        raise TypeError("Attr(scale)'s type should be float, int, list, tuple, or Tensor.")
    if not recompute_scale_factor and any(s <= 0 for s in scales):
        raise ValueError("Attr(scale) should be greater than zero.")
    sizes = [int(np.floor(n * s)) for n, s in zip(spatial, scales)]
    return sizes, ([None] * nd if recompute_scale_factor else scales)


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format=None, recompute_scale_factor=None, antialias=False,
                name=None):
    """Resize the spatial dims of a 3-D (linear), 4-D (nearest, bilinear) or 5-D (nearest,
    trilinear) input."""
    if data_format is None:
        if x.ndim not in _LAYOUTS:
            raise ValueError("The dimension of the input tensor should only be 3-D, 4-D or 5-D, "
                             f"but the received dimension is {x.ndim}.")
        data_format = _LAYOUTS[x.ndim][0]
    data_format = data_format.upper()
    resample = mode.upper()
    if resample not in ("LINEAR", "BILINEAR", "TRILINEAR", "NEAREST", "BICUBIC", "AREA"):
        raise ValueError("The 'resample' of image_resize can only be 'area', 'linear', "
                         "'bilinear', 'trilinear',  'bicubic' or 'nearest' currently.")
    if resample in _NEED and x.ndim not in _NEED[resample]:
        raise ValueError(_NEED_MSG[resample])
    if size is None and scale_factor is None:
        raise ValueError("One of size and scale_factor must not be None.")
    if isinstance(size, (tuple, list)) and len(size) != x.ndim - 2:
        raise ValueError("The x and size should satisfy rank(x) - 2 == len(size).")
    if not isinstance(align_corners, bool):
        raise TypeError("Attr align_corners should be a bool value")
    if not isinstance(antialias, bool):
        raise TypeError("Attr antialias should be a bool value")
    if align_mode not in (0, 1):
        raise ValueError("align_mode can only be 0 or 1")
    if align_corners and resample == "NEAREST":
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias and resample not in ("BILINEAR", "BICUBIC"):
        raise ValueError("Anti-alias option is only supported for bilinear and bicubic modes")
    first, last = _LAYOUTS[x.ndim]
    if data_format not in (first, last):
        raise ValueError(f"Got wrong value for param `data_format`: {data_format} received but "
                         f"only `{first}` or `{last}` supported for {x.ndim}-D input.")
    if resample == "BICUBIC" or antialias:
        raise NotImplementedError("interpolate: 'bicubic' and antialias are not implemented in "
                                  "inplace_lab's paddle facade")
    nd = x.ndim - 2
    channel_last = data_format == last
    if channel_last:
        x = x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1)))
    if resample == "AREA":
        from . import functional_pool

        if size is None:
            raise ValueError("output size can not be None in AREA mode")
        pool = getattr(functional_pool, f"adaptive_avg_pool{nd}d")
        out = pool(x, size if nd > 1 or isinstance(size, int) else size[0])
    else:
        sizes, scales = _sizes(x, size, scale_factor, recompute_scale_factor, nd)
        out = x
        for k in range(nd):
            out = _resample(out, 2 + k, sizes[k], scales[k], resample, align_corners,
                            align_mode)
    if channel_last:
        out = out.transpose([0] + list(range(2, out.ndim)) + [1])
    if resample != "AREA" and not out.stop_gradient:  # (Paddle's kernel: NearestInterpGradNode,
        from ..views import _copy  # BilinearInterpGradNode, LinearInterp..., TrilinearInterp...)

        out = _copy(out, f"{resample.lower()}_interp")
    return out


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format=None, name=None):
    """``interpolate`` under its older name."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format,
                       name=name)


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r]."""
    if not isinstance(upscale_factor, int):
        raise TypeError("upscale factor must be int type")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'.But receive "
                         f"Attr(data_format): {data_format} ")
    if x.ndim != 4:
        raise ValueError("(InvalidArgument) Input should be a 4-D tensor of format [N, C, H, W] "
                         f"or [N, H, W, C], but got {x.ndim}.")
    channel_last = data_format == "NHWC"
    r = upscale_factor
    if channel_last:
        x = x.transpose([0, 3, 1, 2])
    n, c, h, w = x.shape
    if c % (r * r):
        raise ValueError("(InvalidArgument) The square of upscale_factor[{}] should divide the "
                         "number of channel[{}]".format(r * r, c))
    y = x.reshape([n, c // (r * r), r, r, h, w]).transpose([0, 1, 4, 2, 5, 3])
    y = y.reshape([n, c // (r * r), h * r, w * r])
    return y.transpose([0, 2, 3, 1]) if channel_last else y


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W], the inverse of pixel_shuffle."""
    if x.ndim != 4:
        raise ValueError(f"Input x should be 4D tensor, but received x with the shape of "
                         f"{x.shape}")
    if not isinstance(downscale_factor, int):
        raise TypeError("Downscale factor must be int type")
    if downscale_factor <= 0:
        raise ValueError("Downscale factor must be positive")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'.But receive "
                         f"Attr(data_format): {data_format} ")
    r = downscale_factor
    channel_last = data_format == "NHWC"
    if channel_last:
        x = x.transpose([0, 3, 1, 2])
    n, c, h, w = x.shape
    y = x.reshape([n, c, h // r, r, w // r, r]).transpose([0, 1, 3, 5, 2, 4])
    y = y.reshape([n, c * r * r, h // r, w // r])
    return y.transpose([0, 2, 3, 1]) if channel_last else y


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Interleave the channels of ``groups`` groups: [N, g*k, H, W] -> channel ``i*g + j``
    reads group j's channel i."""
    if x.ndim != 4:
        raise ValueError(f"Input x should be 4D tensor, but received x with the shape of "
                         f"{x.shape}")
    if not isinstance(groups, int):
        raise TypeError("groups must be int type")
    if groups <= 0:
        raise ValueError("groups must be positive")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'.But receive "
                         f"Attr(data_format): {data_format} ")
    channel_last = data_format == "NHWC"
    if channel_last:
        x = x.transpose([0, 3, 1, 2])
    n, c, h, w = x.shape
    if c % groups:
        raise ValueError("(InvalidArgument) The number of groups to divide channels in "
                         f"[{groups}] should divide the number of channel [{c}]")
    y = x.reshape([n, groups, c // groups, h, w]).transpose([0, 2, 1, 3, 4]).reshape([n, c, h, w])
    return y.transpose([0, 2, 3, 1]) if channel_last else y
