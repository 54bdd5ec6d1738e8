"""``F.scaled_dot_product_attention`` and ``nn.MultiheadAttention`` composed of table ops.

PyTorch's math reference: ``softmax(q @ k^T * scale + mask) @ v``. A bool mask marks the
pairs that *take part* (False -> -inf before the softmax), a float mask is added,
``is_causal`` keeps the lower triangle. A query row whose every key is masked gets zeros
(PyTorch's ``_safe_softmax``), not NaN. Each step is a table op, so the graph shows the
matmul / mul / masked_fill / softmax nodes (PyTorch's CPU kernel records one fused node).
"""
from __future__ import annotations

import math

import inplace_lab as _il

from . import init
from .layers import Linear
from .module import Module
from .parameter import Parameter

__all__ = ["scaled_dot_product_attention"]


def _safe_softmax(scores):
    dead = (scores == -math.inf).all(-1, keepdim=True)
    if not bool(dead.any()):
        return _il.softmax(scores, -1)
    att = _il.softmax(scores.masked_fill(dead, 0.0), -1)  # (no -inf - -inf = NaN on the way)
    return att.masked_fill(dead, 0.0)


def _attention_weights(query, key, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    if key.shape[-1] != query.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query and key must have the same last "
                           f"dimension, got {query.shape[-1]} and {key.shape[-1]}")
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * s
    masked = attn_mask is not None or is_causal
    if is_causal:
        L, S = query.shape[-2], key.shape[-2]
        keep = _il.ones(L, S, dtype=_il.bool, device=query.device).tril()
        scores = scores.masked_fill(keep.logical_not(), -math.inf)
    if attn_mask is not None:
        if attn_mask._dtype.name == "bool":
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
    att = _safe_softmax(scores) if masked else _il.softmax(scores, -1)
    if dropout_p > 0.0:
        from .functional import dropout

        att = dropout(att, dropout_p, True)
    return att


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(q k^T * scale + mask) v`` over the last two dims (batch dims broadcast)."""
    if enable_gqa:
        h, hk = query.shape[-3], key.shape[-3]
        if h != hk:
            key = key.repeat_interleave(h // hk, -3)
            value = value.repeat_interleave(h // value.shape[-3], -3)
    att = _attention_weights(query, key, attn_mask, dropout_p, is_causal, scale)
    return att @ value


class NonDynamicallyQuantizableLinear(Linear):
    """PyTorch's name for MultiheadAttention's output projection (a plain Linear)."""


class MultiheadAttention(Module):
    """PyTorch's ``nn.MultiheadAttention`` for kdim = vdim = embed_dim: packed
    ``in_proj_weight`` (3E, E, xavier_uniform_), ``in_proj_bias`` (zeros), ``out_proj``
    (bias zeros); returns ``(output, weights)`` with weights averaged over heads unless
    ``average_attn_weights=False``, or None when ``need_weights=False``."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim="
                             f"{embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        if (kdim not in (None, embed_dim) or vdim not in (None, embed_dim) or add_bias_kv
                or add_zero_attn):
            raise NotImplementedError("MultiheadAttention: kdim/vdim other than embed_dim, "
                                      "add_bias_kv and add_zero_attn are not implemented in "
                                      "inplace_lab")
        self.embed_dim, self.kdim, self.vdim = embed_dim, embed_dim, embed_dim
        self._qkv_same_embed_dim = True
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == embed_dim, "embed_dim must be divisible by num_heads"
        kw = {"device": device, "dtype": dtype}
        self.in_proj_weight = Parameter(_il.empty(3 * embed_dim, embed_dim, **kw))
        self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        self.in_proj_bias = Parameter(_il.empty(3 * embed_dim, **kw)) if bias else None
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = False
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        from .functional import linear

        batched = query.ndim == 3
        if batched and self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        if not batched:
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        L, N, E = query.shape
        S = key.shape[0]
        H, D = self.num_heads, self.head_dim
        w, b = self.in_proj_weight, self.in_proj_bias
        wq, wk, wv = w.chunk(3)
        bq, bk, bv = b.chunk(3) if b is not None else (None, None, None)
        q = linear(query, wq, bq).reshape(L, N * H, D).transpose(0, 1)
        k = linear(key, wk, bk).reshape(S, N * H, D).transpose(0, 1)
        v = linear(value, wv, bv).reshape(S, N * H, D).transpose(0, 1)
        mask = _merge_masks(attn_mask, key_padding_mask, N, H, L, S, q)
        if is_causal and mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                               "Transformer module method `generate_square_subsequent_mask` to "
                               "create this mask.")
        p = self.dropout if self.training else 0.0
        att = _attention_weights(q, k, mask, p)               # (N*H, L, S)
        out = (att @ v).transpose(0, 1).reshape(L * N, E)
        out = linear(out, self.out_proj.weight, self.out_proj.bias).reshape(L, N, E)
        weights = None
        if need_weights:
            weights = att.reshape(N, H, L, S)
            if average_attn_weights:
                weights = weights.mean(1)
            if not batched:
                weights = weights.squeeze(0)
        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        return out, weights

    def extra_repr(self):
        return ""


def _merge_masks(attn_mask, key_padding_mask, N, H, L, S, like):
    """One float mask of shape (N*H, L, S) or (L, S) (bool masks: True means *ignore* here,
    as in PyTorch's MultiheadAttention, the opposite of scaled_dot_product_attention)."""
    def as_float(m):
        if m._dtype.name == "bool":
            return _il.zeros(m.shape, dtype=like._dtype, device=like.device).masked_fill(
                m, -math.inf)
        return m

    mask = as_float(attn_mask) if attn_mask is not None else None
    if key_padding_mask is not None:
        kp = as_float(key_padding_mask).reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S)
        mask = kp if mask is None else mask + kp
    return mask
