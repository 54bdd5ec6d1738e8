"""``paddle.nn.functional`` pooling under Paddle's names (``exclusive``, ``return_mask``,
``data_format``); the kernels are the core's.
"""
from __future__ import annotations

__all__ = ["avg_pool1d", "avg_pool2d", "max_pool1d", "max_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool2d"]


def _core():
    from inplace_lab.nn import functional as core

    return core


def _padding(padding):
    if isinstance(padding, str):
        raise NotImplementedError(f"padding={padding!r}: Paddle's 'SAME'/'VALID' pooling "
                                  "padding is not implemented in inplace_lab's paddle facade")
    return padding


def _channels_first(x, data_format, nd):
    if data_format in ("NCHW", "NCL"):
        return x, None
    if data_format in ("NHWC", "NLC"):
        back = [0] + list(range(2, nd)) + [1]
        return x.permute([0, nd - 1] + list(range(1, nd - 1))), back
    raise ValueError(f"Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
                     f"Attr(data_format): {data_format}.")


def _pool(fn, x, data_format, *args, **kwargs):
    x, back = _channels_first(x, data_format, x.ndim)
    r = fn(x, *args, **kwargs)
    if back is None:
        return r
    if isinstance(r, tuple):
        return tuple(t.permute(back) for t in r)
    return r.permute(back)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """Paddle's ``exclusive=True`` (default) leaves padding out of the divisor."""
    return _core().avg_pool1d(x, kernel_size, stride, _padding(padding), ceil_mode,
                              not exclusive)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    return _pool(_core().avg_pool2d, x, data_format, kernel_size, stride, _padding(padding),
                 ceil_mode, not exclusive, divisor_override)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    return _core().max_pool1d(x, kernel_size, stride, _padding(padding), 1, ceil_mode,
                              return_mask)


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    return _pool(_core().max_pool2d, x, data_format, kernel_size, stride, _padding(padding), 1,
                 ceil_mode, return_mask)


def adaptive_avg_pool1d(x, output_size, name=None):
    return _core().adaptive_avg_pool1d(x, output_size)


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    return _pool(_core().adaptive_avg_pool2d, x, data_format, output_size)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    return _core().adaptive_max_pool2d(x, output_size, return_mask)
