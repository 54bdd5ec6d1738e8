"""``paddle.nn.functional``: table ops under Paddle's functional names and signatures.

Out-of-place and in-place forms (``relu``/``relu_``, ``hardtanh(x, min, max)``,
``softmax(x, axis)`` ...) exist where Paddle 3.3.1 has them and the op table has the op.
"""
from __future__ import annotations

from inplace_lab import facade as _facade
from inplace_lab.ops import dispatch as _dispatch

from .. import api_names as _api
from .. import inplace as _inplace


def _functional(name, spec):
    order = _api.FUNCTIONAL_ARGS.get(name)
    if order is not None:  # (Paddle's parameters differ from the op's)
        from ..tensor import paddle_signature

        fn = paddle_signature(name, spec, order, _api.FUNCTIONAL_DEFAULTS.get(name, {}))
        fn.__doc__ = f"paddle.nn.functional.{name}: the {spec.name!r} op."
        return fn
    sig_name = name + "_"

    def fn(x, *args, **kwargs):
        if sig_name in _api.SIGNATURES:
            return _dispatch.call(spec, (x,), _inplace.translate(spec, sig_name, args, kwargs))
        return _dispatch.call(spec, (x,) + args, {k: v for k, v in kwargs.items() if k != "name"})

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"paddle.nn.functional.{name}: the {spec.name!r} op."
    return fn


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` (Paddle's weight is [in_features, out_features])."""
    y = x.matmul(weight)
    return y + bias if bias is not None else y


def mse_loss(input, label, reduction="mean", name=None):
    """``paddle.nn.functional.mse_loss(input, label, reduction)``: the core's mse_loss."""
    from inplace_lab.nn import functional as core

    if reduction not in ("mean", "sum", "none"):
        raise ValueError("'reduction' in 'mse_loss' should be 'sum', 'mean' or 'none', but "
                         f"received {reduction}.")
    return core.mse_loss(input, label, reduction=reduction)


# ---- losses and pools under Paddle's argument names (the core's are PyTorch's) ------------------

def _core():
    from inplace_lab.nn import functional as core

    return core


def _reduction(fname, reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"The value of 'reduction' in {fname} should be 'sum', 'mean' or "
                         f"'none', but received {reduction}, which is not allowed.")
    return reduction


def l1_loss(input, label, reduction="mean", name=None):
    return _core().l1_loss(input, label, reduction=_reduction("L1Loss", reduction))


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Paddle: ``is_huber=True`` (the default) is the Huber loss with ``delta``; False is
    PyTorch's smooth L1 with ``beta=delta``."""
    _reduction("SmoothL1Loss", reduction)
    if is_huber:
        return _core().huber_loss(input, label, reduction=reduction, delta=delta)
    return _core().smooth_l1_loss(input, label, reduction=reduction, beta=delta)


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """``reduction='mean'`` averages over every element; 'batchmean' divides by the batch."""
    if reduction not in ("mean", "sum", "none", "batchmean"):
        _reduction("kl_div", reduction)
    import warnings

    with warnings.catch_warnings():  # PyTorch's 'mean' deprecation warning; Paddle has none
        warnings.simplefilter("ignore", UserWarning)
        return _core().kl_div(input, label, reduction=reduction, log_target=log_target)


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    return _core().binary_cross_entropy(input, label, weight=weight,
                                        reduction=_reduction("bce_loss", reduction))


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    return _core().binary_cross_entropy_with_logits(
        logit, label, weight=weight, reduction=_reduction("bce_with_logits_loss", reduction),
        pos_weight=pos_weight)


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


def _export():
    g = globals()
    for name in _api.FUNCTIONAL_FUNCTIONS:
        if name in g:
            continue
        spec = _facade.resolve(name, _inplace.RENAMES)
        if spec is not None and spec.kind != "view":
            g[name] = _functional(name, spec)
    for name in _api.FUNCTIONAL_INPLACE:
        g.setdefault(name, _inplace.adapter(name))


_export()
