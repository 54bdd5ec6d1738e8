"""``paddle.nn.functional`` distances, label helpers, unfold/fold, bilinear and attention,
composed from facade ops as Paddle composes them (so values and gradients agree):

- ``cosine_similarity``: ``sum(x1*x2) / sqrt(clip(sum(x1^2) * sum(x2^2), eps^2))``;
- ``pairwise_distance``: ``p_norm(x - y + epsilon)`` over the last dim;
- ``unfold`` (im2col) is a grouped conv with one-hot kernels, ``fold`` (col2im) the
  matching transposed conv: both reuse ``functional_conv`` and get its gradients;
- ``scaled_dot_product_attention`` is Paddle's math backend on ``[batch, seq, heads, dim]``
  (note: its causal mask adds ``-1e4`` above the diagonal, not ``-inf``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["cosine_similarity", "pairwise_distance", "pdist", "label_smooth", "sequence_mask",
           "bilinear", "unfold", "fold", "scaled_dot_product_attention", "ctc_loss", "rms_norm"]


def _pd():
    from inplace_lab import paddle as pd

    return pd


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    pd = _pd()
    if x1.shape[axis] == 0 or x2.shape[axis] == 0:
        return (x1 * x2).sum(axis=axis)
    n = max(x1.shape[axis], x2.shape[axis])
    w12 = (x1 * x2).sum(axis=axis)
    w1 = (x1 * x1).sum(axis=axis)
    w2 = (x2 * x2).sum(axis=axis)
    if n != x1.shape[axis]:  # a broadcast length-1 axis counts n times
        w1 = w1 * (n / x1.shape[axis])
    if n != x2.shape[axis]:
        w2 = w2 * (n / x2.shape[axis])
    return w12 / pd.sqrt(pd.clip(w1 * w2, min=eps * eps))


def pairwise_distance(x, y, p=2.0, epsilon=1e-06, keepdim=False, name=None):
    """``||x - y + epsilon||_p`` over the last dim."""
    pd = _pd()
    sub = x - y
    if epsilon != 0.0:
        sub = sub + pd.to_tensor([epsilon], dtype=sub.dtype)
    return pd.norm(sub, p=float(p), axis=-1, keepdim=keepdim)


def pdist(x, p=2.0, name=None):
    """The upper triangle (row-major) of the [N, N] p-norm distance matrix of x's rows."""
    pd = _pd()
    assert x.ndim == 2, "The x must be 2-dimensional"
    d = pd.norm(x.unsqueeze(-2) - x.unsqueeze(-3), p=float(p), axis=-1)
    mask = ~pd.tril(pd.ones(d.shape, dtype="bool"))
    return pd.masked_select(d, mask)


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """``(1 - epsilon) * label + epsilon * prior`` (uniform prior ``1 / num_classes``)."""
    if epsilon > 1.0 or epsilon < 0.0:
        raise ValueError("The value of epsilon must be between 0 and 1.")
    if prior_dist is None:
        return label * (1 - epsilon) + epsilon / label.shape[-1]
    return label * (1 - epsilon) + prior_dist.detach() * epsilon  # (no gradient, as Paddle)


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """``mask[..., j] = j < x[...]`` for ``j < maxlen`` (default: ``max(x)``)."""
    pd = _pd()
    if maxlen is None or maxlen < 0:
        maxlen = int(x.max()) if x.numel() else 0
    if hasattr(maxlen, "item"):
        maxlen = int(maxlen.item())
    steps = pd.arange(int(maxlen), dtype=x.dtype)
    return (steps < x.unsqueeze(-1)).astype(dtype)


def bilinear(x1, x2, weight, bias=None, name=None):
    """``out[b, o] = x1[b] @ weight[o] @ x2[b] + bias[o]``; weight is [out, in1, in2]."""
    o, i1, i2 = weight.shape
    if x1.shape[-1] != i1 or x2.shape[-1] != i2:
        raise ValueError("(InvalidArgument) The second dimension of input(X) must be equal to "
                         f"the second dimension of the input(Weight). But received X's shape: "
                         f"{list(x1.shape)}, Weight's shape: {list(weight.shape)}.")
    pd = _pd()
    left = pd.matmul(x1, weight.transpose([1, 0, 2]).reshape([i1, o * i2]))
    out = (left.reshape([x1.shape[0], o, i2]) * x2.unsqueeze(1)).sum(axis=-1)
    return out + bias if bias is not None else out


def _pair(value, name, error=TypeError):
    """Paddle's unfold raises a TypeError (NotSupportedTensorArgumentError), fold asserts."""
    if isinstance(value, int):
        return [value, value]
    if not (isinstance(value, (list, tuple)) and len(value) == 2):
        raise error(f"{name} should either be an integer or a list/tuple of two integers")
    return list(value)


def _paddings(paddings, what):
    if isinstance(paddings, int):
        return [paddings] * 4
    if isinstance(paddings, (list, tuple)) and len(paddings) in (2, 4):
        return list(paddings) * (2 if len(paddings) == 2 else 1)
    raise ValueError(f"paddings should either be an integer or a list{what} of 2 or 4 integers")


def _one_hot_kernels(channels, kh, kw, dtype):
    """[channels * kh * kw, 1, kh, kw]: channel ``c * kh * kw + t`` picks kernel tap t."""
    eye = np.eye(kh * kw, dtype=dtype).reshape(kh * kw, 1, kh, kw)
    return _pd().to_tensor(np.tile(eye, (channels, 1, 1, 1)))


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """im2col: [N, C, H, W] -> [N, C*kh*kw, L]; ``paddings`` is an int, [h, w] or
    [top, left, bottom, right]."""
    from .functional_conv import conv2d

    assert x.ndim == 4, "input should be the format of [N, C, H, W]"
    k = _pair(kernel_sizes, "kernel_sizes")
    s, d = _pair(strides, "strides"), _pair(dilations, "dilations")
    t, left, b, r = _paddings(paddings, "/tuple")
    n, c = x.shape[:2]
    w = _one_hot_kernels(c, k[0], k[1], str(x.dtype).split(".")[-1])
    y = conv2d(x, w, stride=s, padding=[t, b, left, r], dilation=d, groups=c)
    return y.reshape([n, c * k[0] * k[1], -1])


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """col2im, the adjoint of unfold: overlapping patches are summed. (Paddle 3.3.1's fold
    fails on asymmetric four-value ``paddings``: its shape check and its kernel read them in
    different orders. This follows the documented [top, left, bottom, right], as unfold.)"""
    from .functional_conv import conv2d_transpose

    assert x.ndim == 3, "input should be the format of [N, C, L]"
    out = _pair(output_sizes, "output_sizes", AssertionError)
    k = _pair(kernel_sizes, "kernel_sizes", AssertionError)
    s, d = _pair(strides, "strides", AssertionError), _pair(dilations, "dilations", AssertionError)
    t, left, b, r = _paddings(paddings, "")
    n, ckk, length = x.shape
    blocks = [(o + p0 + p1 - (dd * (kk - 1) + 1)) // ss + 1
              for o, p0, p1, dd, kk, ss in zip(out, (t, left), (b, r), d, k, s)]
    if ckk % (k[0] * k[1]) or blocks[0] * blocks[1] != length:
        raise ValueError(f"(InvalidArgument) Given input output_size ({out[0]}, {out[1]}), "
                         f"kernel_sizes ({k[0]}, {k[1]}), strides ({s[0]}, {s[1]}), dilations "
                         f"({d[0]}, {d[1]}), which should be expected size of input's dimension "
                         "2 to match the calculated number of "
                         f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got {length}")
    c = ckk // (k[0] * k[1])
    w = _one_hot_kernels(c, k[0], k[1], str(x.dtype).split(".")[-1])
    return conv2d_transpose(x.reshape([n, ckk, blocks[0], blocks[1]]), w, stride=s,
                            padding=[t, b, left, r], dilation=d, groups=c, output_size=out)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, training=True, backend=None, scale=None,
                                 enable_gqa=True, name=None):
    """``softmax(q k^T * scale + mask) v`` on [batch, seq, heads, dim] (or unbatched
    [seq, heads, dim]); a bool mask keeps True; fewer key/value heads are repeated (GQA)."""
    from inplace_lab.nn import functional as core

    from .functional_common import dropout

    pd = _pd()
    batched = query.ndim == 4
    if not batched:
        query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
    qh, kh, vh = query.shape[2], key.shape[2], value.shape[2]
    if enable_gqa:
        assert kh == 0 or qh % kh == 0, (
            f"The number of groups in query({qh}) must be divisible by the number of groups in "
            f"key({kh}) if GQA enabled.")
        assert kh == vh, (f"The number of groups in key({kh}) must be equal to the number of "
                          f"groups in value({vh}) if GQA enabled.")
    else:
        assert qh == kh == vh, (
            f"The number of groups in query({qh}) must be equal to the number of groups in "
            f"key({kh}) and the number of groups in value({vh}) if GQA disabled.")
    if attn_mask is not None and str(attn_mask.dtype).endswith("bool"):
        attn_mask = pd.where(attn_mask, pd.to_tensor(0.0, dtype=query.dtype),
                             pd.to_tensor(-float("inf"), dtype=query.dtype))
    repeats = qh // kh if kh else 1
    if repeats > 1:
        key = key.unsqueeze(3).expand([-1, -1, -1, repeats, -1]).flatten(2, 3)
        value = value.unsqueeze(3).expand([-1, -1, -1, repeats, -1]).flatten(2, 3)
    q, k, v = (t.transpose([0, 2, 1, 3]) for t in (query, key, value))
    head_dim = q.shape[-1]
    scale = scale or (head_dim ** -0.5 if head_dim else 1.0)
    product = pd.matmul(q * scale, k, transpose_y=True)
    if is_causal:
        product = product + pd.triu(pd.full_like(product, -1e4), diagonal=1)
    elif attn_mask is not None:
        product = product + attn_mask
    weights = core.softmax(product, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=training, mode="upscale_in_train")
    out = pd.matmul(weights, v).transpose([0, 2, 1, 3])
    return out if batched else out.squeeze(0)


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean",
             norm_by_times=False, zero_infinity=False):
    """``paddle.nn.functional.ctc_loss``: Paddle's warpctc takes *unscaled* [T, N, C] logits
    (it applies the log-softmax itself) and padded [N, S] labels; each loss is then squeezed
    from [N, 1], infinities zeroed on request, and 'mean' divides by the label lengths
    (unclamped) before the mean. The CTC recursion is the op table's ``_ctc_loss``."""
    from inplace_lab.ops.dispatch import call
    from inplace_lab.ops.table import OPS

    pd = _pd()
    if log_probs._dtype.name not in ("float32", "float64"):
        raise TypeError("The data type of 'Logits' in warpctc must be ['float32', 'float64'], "
                        f"but received {log_probs._dtype.name}. ")
    lp = pd.nn.functional.log_softmax(log_probs, axis=-1)
    il = input_lengths.astype("int64").reshape([-1])
    ll = label_lengths.astype("int64").reshape([-1])
    loss = call(OPS["_ctc_loss"], (lp, labels.astype("int64"), il, ll),
                {"blank": blank, "zero_infinity": False})
    loss = loss if isinstance(loss, pd.Tensor.__mro__[1]) else loss[0]
    if norm_by_times:  # (warpctc scales each sample's gradient by 1 / its input length only)
        scaled = loss / il.astype(loss.dtype)
        loss = scaled + (loss - scaled).detach()
    loss = pd.squeeze(pd.unsqueeze(loss, -1), [-1])
    if zero_infinity:
        loss = pd.where(pd.isinf(loss), pd.zeros_like(loss), loss)
    if reduction not in ("mean", "sum", "none"):
        raise AssertionError()
    if reduction == "mean":
        return pd.mean(loss / label_lengths.astype(loss.dtype))
    if reduction == "sum":
        return pd.sum(loss)
    return loss


def rms_norm(input, normalized_shape, weight=None, eps=1e-05, name=None):
    """``paddle.nn.functional.rms_norm``: Paddle 3.3.1 registers its ``rms_norm`` kernel for
    GPUs only; on the CPU it is this RuntimeError."""
    raise RuntimeError(
        "(NotFound) The kernel `rms_norm` is not registered.\n  [Hint: Expected iter != "
        "kernels_.end(), but received iter == kernels_.end().] (at "
        "/paddle/paddle/phi/core/kernel_factory.cc:273)\n")
