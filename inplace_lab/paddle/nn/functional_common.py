"""``paddle.nn.functional`` dropout family, embedding and one_hot.

Dropout is composed the way Paddle composes its ``axis`` form: a uniform draw, a keep mask
``rand >= p`` cast to the input's dtype, and a multiply, so the gradient is the mask (times
``1 / (1 - p)`` under ``'upscale_in_train'``). Paddle's draws cannot be matched bit for bit;
everything else (scaling, modes, ``p`` of 0 and 1, errors) follows Paddle 3.3.1.
(``pad`` lives in ``functional_pad``.)
"""
from __future__ import annotations

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout", "embedding", "one_hot"]


def _pd():
    from inplace_lab import paddle as pd

    return pd


def _core():
    from inplace_lab.nn import functional as core

    return core


# ---- dropout ----------------------------------------------------------------------------------

def _keep_mask(shape, p, dtype):
    pd = _pd()
    return (pd.rand(shape, dtype="float32") >= p).astype(dtype)


_DROPOUT_SPECS: dict = {}


def _dropout_node(op, *args):
    """The op recorded under Paddle's dropout kernel (DropoutGradNode): ``x * mask`` while
    training, a copy at inference."""
    import dataclasses

    from inplace_lab.ops import dispatch
    from inplace_lab.ops.table import OPS

    if op not in _DROPOUT_SPECS:
        _DROPOUT_SPECS[op] = dataclasses.replace(OPS[op], name="dropout", select=None,
                                                 ufunc="")
    return dispatch.call(_DROPOUT_SPECS[op], args, {})


def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode="upscale_in_train",
            name=None):
    """Zero elements (or, with ``axis``, whole slices along those axes) with probability p.

    ``'upscale_in_train'`` scales the kept values by ``1 / (1 - p)`` while training and is
    the identity otherwise; ``'downscale_in_infer'`` keeps values unscaled while training and
    multiplies by ``1 - p`` at inference. ``p == 0`` returns ``x`` itself, as Paddle does."""
    if not isinstance(p, (float, int)):
        raise TypeError("p argument should be a number or Variable")
    if p == 0:
        return x
    if p < 0 or p > 1:
        raise ValueError("p argument should between 0 and 1")
    if mode not in ("downscale_in_infer", "upscale_in_train"):
        raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")
    if axis and not isinstance(axis, (int, list, tuple)):
        raise TypeError("datatype of axis argument should be int or list")
    upscale = mode == "upscale_in_train"
    if axis is None:
        if not training:
            out = _dropout_node("clone", x) if upscale else x * (1 - p)
        else:
            mask = _keep_mask(x.shape, p, x.dtype)
            if upscale and p != 1:
                mask = mask * (1.0 / (1 - p))
            if inplace:
                return x.multiply_(mask)
            out = _dropout_node("mul", x, mask)
        return out
    if inplace:
        raise NotImplementedError("inplace not supported for dropout_nd yet")
    if not training:
        return x if upscale else x.scale(1 - p)
    if p == 1:
        return x.scale(0.0)
    scaled = x.scale(1 / (1 - p)) if upscale else x
    axes = [axis] if isinstance(axis, int) else list(axis)
    if min(axes) < 0 or max(axes) > x.ndim - 1:
        raise ValueError("axis value should be greater than or equal to 0 and less than "
                         f"dimensions of x:{x.ndim}, but get axis value:{max(axes)} ")
    if len(axes) > x.ndim:
        raise ValueError("length of axis should not be greater than dimensions of "
                         f"x:{x.ndim}, but get length of axis: {len(axes)}")
    shape = [1] * x.ndim
    for i in axes:
        shape[i] = x.shape[i]
    return scaled * _keep_mask(shape, p, x.dtype)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Whole channels of a [C, L] or [N, C, L] input (``inplace`` is ignored, with a
    warning, as in Paddle)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d expects 2D or 3D input, got {input.ndim}D")
    if inplace:
        import warnings

        warnings.warn("inplace=True is currently not supported in dropout1d and will be "
                      "ignored. This parameter is reserved for future implementation.")
    if input.ndim == 2:
        return dropout(input.unsqueeze(0), p=p, axis=1, training=training).squeeze(0)
    return dropout(input, p=p, axis=1, training=training)


def _dropout_nd(x, p, training, data_format, nd, name):
    first, last = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}[nd]
    if x.ndim != nd + 2:
        raise ValueError(f"dimensions of x should be {nd + 2}, but received {x.ndim} != {nd + 2}")
    if data_format not in (first, last):
        raise ValueError(f"Attr(data_format) should be '{first}' or '{last}'. Received "
                         f"Attr(data_format): {data_format}.")
    axis = [0, 1] if data_format == first else [0, nd + 1]
    return dropout(x, p=p, axis=axis, training=training, mode="upscale_in_train", name=name)


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    """Whole feature maps of a 4-D input: the mask has the shape [N, C, 1, 1]."""
    return _dropout_nd(x, p, training, data_format, 2, name)


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    """Whole feature volumes of a 5-D input: the mask has the shape [N, C, 1, 1, 1]."""
    return _dropout_nd(x, p, training, data_format, 3, name)


def _alpha_dropout(x, feature, p, training):
    """SELU-preserving dropout: dropped units become ``-alpha * scale``, then an affine map
    ``a * y + b`` restores zero mean and unit variance."""
    if not isinstance(p, (float, int)):
        raise TypeError("p argument should be a float or int")
    if p < 0 or p > 1:
        raise ValueError("p argument should between 0 and 1")
    if not training:
        return x
    if p == 1:
        return x.scale(0.0)
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    shape = list(x.shape)
    if feature:
        if x.ndim < 2:
            raise ValueError("Feature alpha dropout needs at least 2D input.")
        shape = shape[:2] + [1] * (x.ndim - 2)
    keep = _keep_mask(shape, p, x.dtype)
    y = x * keep + (1 - keep) * alpha_p
    return y * a + b


def alpha_dropout(x, p=0.5, training=True, name=None):
    return _alpha_dropout(x, False, p, training)


def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    """Alpha dropout of whole channels (the mask is [N, C, 1, ...])."""
    return _alpha_dropout(x, True, p, training)


# ---- embedding and one_hot --------------------------------------------------------------------

def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """Rows of ``weight``; positions holding ``padding_idx`` read zeros (not the row, unlike
    PyTorch) and that row gets no gradient. ``max_norm`` first
    rescales (in place, under no_grad: ``weight.inplace_version`` moves) the looked-up rows
    whose ``norm_type``-norm exceeds it. ``sparse`` only changes the gradient's storage in
    Paddle and is ignored here."""
    rows = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx < 0:
        padding_idx = rows + padding_idx
    if rows != 0 and (padding_idx >= rows or padding_idx < -rows):
        raise ValueError(f"padding_idx must be within [-{rows}, {rows})")
    if str(x.dtype).split(".")[-1] not in ("int32", "int64"):
        raise NotImplementedError("(Unimplemented) embedding input only support int32 and "
                                  f"int64, but get {str(x.dtype).split('.')[-1]}")
    if x.numel():
        lo, hi = int(x.min()), int(x.max())
        if lo < 0 or hi >= rows:
            raise ValueError("(InvalidArgument) Variable value (input) of OP(embedding) "
                             f"expected >= 0 and < {rows}, but got {hi if hi >= rows else lo}. "
                             "Please check input value.")
    if scale_grad_by_freq and sparse:
        raise AttributeError("scale_grad_by_freq = True is not supported with sparse update.")
    out = _core().embedding(x, weight, None if padding_idx < 0 else padding_idx,
                            max_norm=max_norm if max_norm and weight.numel() else None,
                            norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq)
    if padding_idx < 0:
        return out
    # Unlike PyTorch, Paddle's kernel also writes zeros for the padding_idx positions.
    return out * (x != padding_idx).unsqueeze(-1).astype(out.dtype)


def one_hot(x, num_classes=-1, name=None):
    """float32 one-hot rows on a new last dim; ``num_classes=-1`` takes ``max(x) + 1``."""
    dt = str(x.dtype).split(".")[-1]
    if dt not in ("int32", "int64"):
        raise RuntimeError(f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {dt}) "
                           f"of kernel `one_hot` is not registered. Selected wrong DataType "
                           f"`{dt}`. Paddle support following DataTypes: int64, int32.")
    if num_classes == -1:
        num_classes = int(x.max()) + 1
    num_classes = int(num_classes)
    if x.numel() and int(x.max()) >= num_classes:
        raise ValueError("(InvalidArgument) Illegal index value, Input(input) value should be "
                         "less than Input(depth), but received input "
                         f"({int(x.max())}) not less than depth ({num_classes})")
    classes = _pd().arange(num_classes, dtype=x.dtype)
    return (x.unsqueeze(-1) == classes).astype("float32")
