"""Paddle's cross-entropy family: ``cross_entropy``, ``softmax_with_cross_entropy``,
``nll_loss``, ``log_loss``, ``square_error_cost``.

Paddle's kernel ``cross_entropy_with_softmax`` keeps the class axis with size 1 (the loss of
logits [N, C] is [N, 1]); ``cross_entropy`` squeezes it back only for ``reduction='none'``
with a label that had no class axis. The maths is composed from core ops (``log_softmax``,
``gather``, ``where``) so autograd gives Paddle's gradients (softmax - label) without a
hand-written backward. Paddle's 'mean' is not always "divide by the kept samples":

* no weight, ``ignore_index < 0`` (the default -100): ``mean`` of every sample, ignored
  ones included (their loss is 0, but they count in the denominator);
* ``ignore_index >= 0``: the sum over the count (or weight sum) of the kept samples;
* a weight: ``sum(w[y] * loss) / sum(w[y])``; a zero denominator becomes 1 (result 0).
"""
from __future__ import annotations

import numpy as np

import inplace_lab as _il


def mean_all(t):
    """Paddle's ``_C_ops.mean_all`` (MeanAllGradNode): the losses' 'mean' reduction."""
    import dataclasses

    from inplace_lab.ops import dispatch
    from inplace_lab.ops.table import OPS

    global _MEAN_ALL
    if _MEAN_ALL is None:
        _MEAN_ALL = dataclasses.replace(OPS["mean"], name="mean_all", select=None)
    return dispatch.call(_MEAN_ALL, (t,), {})


_MEAN_ALL = None

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "log_loss",
           "square_error_cost"]

_TOLERABLE = 1e20  # Paddle's TolerableValue: -log(0) = inf is reported as 1e20


def _dims_error(input_dims, label_dims):
    # Paddle's message is an f-string continued with a backslash: the next line's indent
    # (13 spaces) is part of the text.
    return ValueError("Expected input_dims - 1 = label_dims or input_dims == label_dims"
                      f"             (got input_dims{input_dims}, label_dims{label_dims})")


def _check_hard_label(input, label, axis, ignore_index):
    """The kernel's shape and range checks for class-index labels, before any maths."""
    if label.shape[axis] != 1:
        raise ValueError("(InvalidArgument) If Attr(soft_label) == false, the axis dimension "
                         "of Input(Label) should be 1.")
    _check_other_dims(input, label, axis)
    c = input.shape[axis]
    values = label.numpy().astype(np.int64).ravel()
    bad = values[(values != ignore_index) & ((values < 0) | (values >= c))]
    if bad.size:  # the kernel reports the first bad label it meets
        v = int(bad[0])
        if v < 0:
            raise IndexError(f"(OutOfRange) label value should >= 0 when label value({v}) not "
                             f"equal to ignore_index({ignore_index})")
        raise IndexError(
            "(OutOfRange) label value should less than the shape of axis dimension when "
            f"label value({v}) not equal to ignore_index({ignore_index}), But received "
            f"label value as {v} and shape of axis dimension is {c}")


def _check_other_dims(input, label, axis):
    for i, (a, b) in enumerate(zip(input.shape, label.shape)):
        if i != axis and a != b:
            raise ValueError("(InvalidArgument) Input(Logits) and Input(Label) should in same "
                             "shape in dimensions except axis.")


def _with_softmax(input, label, soft_label, use_softmax, ignore_index, axis):
    """Paddle's ``cross_entropy_with_softmax`` kernel: the loss, keeping ``axis`` (size 1)."""
    if input.ndim != label.ndim:
        raise _dims_error(input.ndim, label.ndim)
    axis = axis % input.ndim
    if soft_label:
        _check_other_dims(input, label, axis)
        if label.shape[axis] != input.shape[axis]:
            raise ValueError("(InvalidArgument) If Attr(soft_label) == true,  the axis "
                             "dimension of Input(X) and Input(Label) should be equal.")
    else:
        _check_hard_label(input, label, axis, ignore_index)
    logp = _il.log_softmax(input, axis) if use_softmax else input.log()
    if soft_label:  # the kernel gives the label no gradient
        loss = -_il.sum(label.detach() * logp, axis, keepdim=True)
    else:
        keep = label != ignore_index
        index = _il.where(keep, label, _il.zeros_like(label)).astype("int64")
        picked = -_il.gather(logp, axis, index)
        loss = _il.where(keep, picked, _il.zeros_like(picked))
    if not use_softmax:
        loss = loss.clip(max=_TOLERABLE)
    return loss


def _reduction_error(fname, reduction):
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"The value of 'reduction' in {fname} should be 'sum', 'mean' or "
                         f"'none', but received {reduction}, which is not allowed.")


def _label_smooth(label, epsilon, classes):
    return label * (1.0 - epsilon) + epsilon / classes


def _safe_div(total, count):
    """``total / (count + (count == 0))``: Paddle's guard against an all-ignored batch."""
    return total / (count + (count == 0.0).astype(count.dtype))


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
    """``paddle.nn.functional.cross_entropy``: Paddle's Python composition, step for step."""
    if reduction not in ("sum", "mean", "none"):  # Paddle's text lacks a space here
        raise ValueError("The value of 'reduction' in softmax_cross_entropyshould be 'sum', "
                         f"'mean' or 'none', but received {reduction}, which is not allowed.")
    if ignore_index > 0 and soft_label:
        raise ValueError("When soft_label == True, the value of 'ignore_index' in "
                         "softmax_cross_entropyshould be '-100', but received "
                         f"{ignore_index}, which is not allowed.")
    input_dims = input.ndim
    if input_dims == 0:
        raise ValueError("The dimension of input should be larger than zero!")
    label_dims = label.ndim
    squeeze_back = input_dims - 1 == label_dims
    if squeeze_back:
        label = label.unsqueeze(axis)
    if not squeeze_back and input_dims != label_dims:
        raise _dims_error(input_dims, label_dims)
    if label_smoothing > 0.0:
        soft_label = True
        if squeeze_back:  # [N] -> one-hot [N, C] (C from the LAST axis, as Paddle)
            label = _one_hot(label.squeeze(axis), input.shape[-1])
        label = _label_smooth(label, label_smoothing, label.shape[-1]).astype(input.dtype)
        squeeze_back = False
    out = _with_softmax(input, label, soft_label, use_softmax, ignore_index, axis)
    axis = axis % input_dims
    per_sample_weight = None
    if weight is not None:
        if soft_label:  # each sample's weight: its label distribution . weight
            per_sample_weight = _il.matmul(label.astype(weight.dtype), weight).reshape(out.shape)
        else:
            if input.shape[axis] != weight.shape[-1]:
                raise ValueError(f"input's class_dimension({input.shape[axis]}) must equal to "
                                 f"weight's class_dimension({weight.shape[-1]}) when weight is "
                                 "provided")
            keep = label != ignore_index
            index = _il.where(keep, label, _il.zeros_like(label)).astype("int64").reshape([-1])
            gathered = _il.index_select(weight, 0, index).reshape(out.shape)
            per_sample_weight = gathered * keep.astype(out.dtype)  # (promotes, as Paddle)
        out = out.astype(per_sample_weight.dtype) * per_sample_weight
    if reduction == "sum":
        return out.sum()
    if reduction == "mean":
        if 0 in input.shape:
            return mean_all(out + float("nan"))
        if ignore_index >= 0:
            keep = (label != ignore_index)
            if per_sample_weight is None:
                return _safe_div(out.sum(), keep.astype(out.dtype).sum())
            return _safe_div(out.sum(), (keep.astype(out.dtype) * per_sample_weight).sum())
        if per_sample_weight is not None:
            return _safe_div(out.sum(), per_sample_weight.sum())
        return mean_all(out)
    return out.squeeze(axis) if squeeze_back else out


def _one_hot(label, classes):
    """``F.one_hot``: a label carries no gradient, so numpy builds the rows."""
    from .. import to_tensor

    values = label.numpy().astype(np.int64)
    if values.size and values.max() >= classes:
        raise ValueError("(InvalidArgument) Illegal index value, Input(input) value should be "
                         f"less than Input(depth), but received input ({values.max()}) not less "
                         f"than depth ({classes})")
    return to_tensor(np.eye(classes, dtype=np.float32)[values])


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """The old API: the kernel's loss (class axis kept), and the softmax if asked.

    A label without the class axis is reshaped to ``[N, logits.shape[1]]`` as Paddle does,
    which only fits when there is one class (Paddle's reshape error otherwise)."""
    input_dims = logits.ndim
    if input_dims == 0:
        raise ValueError("The dimension of input should be larger than zero!")
    label_dims = label.ndim
    if input_dims - 1 != label_dims and input_dims != label_dims:
        raise _dims_error(input_dims, label_dims)
    if input_dims - 1 == label_dims:
        from .. import reshape

        label = reshape(label, [label.shape[0], logits.shape[1]])
    loss = _with_softmax(logits, label, soft_label, True, ignore_index, axis)
    return (loss, _il.softmax(logits, axis)) if return_softmax else loss


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """``-w[y] * input[n, y]`` over class axis 1; 'mean' divides by the kept weights' sum
    (0 when every label is ignored, where PyTorch gives nan)."""
    _reduction_error("nll_loss", reduction)
    input_dims, label_dims = input.ndim, label.ndim
    if input_dims - 1 != label_dims and input_dims != label_dims:
        raise _dims_error(input_dims, label_dims)
    if input_dims < 2:
        raise ValueError(f"Expected 2 or more dimensions (got {input_dims})")
    if input.shape[1] < 1:
        raise ValueError(f"Expected 1 or more classes (got num classes{input.shape[1]})")
    c = input.shape[1]
    if weight is not None and weight.size != c:
        raise ValueError("(InvalidArgument) Expected input tensor Weight's size should equal to "
                         "the first dimension of the input tensor X. But received Weight's size "
                         f"is {weight.size}, the first dimension of input X is {c}")
    if input_dims == label_dims:  # the kernel reads the label's numbers in order
        label = label.reshape([input.shape[0]] + list(input.shape[2:]))
    values = label.numpy().astype(np.int64)
    if ((values != ignore_index) & ((values < 0) | (values >= c))).any():
        raise ValueError("(InvalidArgument) label should not be out of bounds.")
    keep = label != ignore_index
    index = _il.where(keep, label, _il.zeros_like(label)).astype("int64").unsqueeze(1)
    picked = -_il.gather(input, 1, index).squeeze(1)
    if weight is None:
        w = keep.astype(input.dtype)
    else:
        # Paddle's nll_loss kernel has no gradient for weight: it stays a constant here
        w = _il.index_select(weight.detach(), 0, index.reshape([-1])).reshape(keep.shape) \
            * keep.astype(weight.dtype)
    out = picked * w
    if reduction == "none":
        return _nll_node(out)
    if reduction == "sum":
        return _nll_node(out.sum())
    return _nll_node(_safe_div(out.sum(), w.sum()))


def _nll_node(out):
    """The result recorded as Paddle's nll_loss kernel (NllLossGradNode)."""
    if out.stop_gradient:
        return out
    from ..views import _copy

    return _copy(out, "nll_loss")


def log_loss(input, label, epsilon=0.0001, name=None):
    """``-label log(input + eps) - (1 - label) log(1 - input + eps)`` on [N, 1]."""
    if input.ndim != 2:
        raise ValueError("(InvalidArgument) The dimensions of Input(Predicted) must be 2,But "
                         f"received dimensions of Input(Predicted)is [{input.ndim}]")
    if input.shape[1] != 1:
        raise ValueError("(InvalidArgument) Each row of Input(Predicted) contains a real value, "
                         "so the 2nd dimension of Input(X) must be 1,But got "
                         f"[{input.shape[1]}]")
    label = label.detach()  # the log_loss kernel differentiates the prediction only
    return -label * (input + epsilon).log() - (1.0 - label) * (1.0 - input + epsilon).log()


def square_error_cost(input, label):
    """``(input - label) ** 2``, element by element, no reduction."""
    return (input - label).square()
