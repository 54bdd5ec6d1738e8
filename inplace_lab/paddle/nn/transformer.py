"""``paddle.nn`` attention: ``MultiHeadAttention``, ``TransformerEncoderLayer``,
``TransformerEncoder``, as Paddle 3.3.1 composes them (no fused kernel in Paddle either);
the decoder layers and ``Transformer`` are in ``transformer_decoder.py``.

Paddle's, not PyTorch's: inputs are ``[batch, seq, embed]``; four ``Linear`` layers
``q_proj k_proj v_proj out_proj`` with ``[in, out]`` weights; the scale is applied to q
before ``q @ k^T``; a bool or int mask is *added* as ``(mask - 1) * 1e9`` (True keeps a
pair), a float mask is added as is; ``need_weights`` appends the attention weights and a
cache appends the new cache; one output alone is returned bare.

>>> import inplace_lab.paddle as paddle
>>> mha = paddle.nn.MultiHeadAttention(8, 2)
>>> mha(paddle.rand([2, 3, 8])).shape
paddle.Size([2, 3, 8])
"""
from __future__ import annotations

import collections
import copy

from . import functional
from .common import Linear
from .common_resample import Dropout
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm
from .parameter import ParamAttr

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _convert_param_attr_to_list(param_attr, n):
    """One attr per sublayer: a list/tuple as given (True -> default, False -> none), else
    ``n`` copies (a named attr gets ``_0``, ``_1`` ... suffixes)."""
    if isinstance(param_attr, (list, tuple)):
        assert len(param_attr) == n, f"length of param_attr should be {n} when it is a list/tuple"
        return [(ParamAttr._to_attr(None) if a else False) if isinstance(a, bool)
                else ParamAttr._to_attr(a) for a in param_attr]
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(None) for _ in range(n)] if param_attr else [False] * n
    attr = ParamAttr._to_attr(param_attr)
    out = []
    for i in range(n):
        a = copy.deepcopy(attr)
        if attr.name:
            a.name = a.name + "_" + str(i)
        out.append(a)
    return out


def _convert_attention_mask(attn_mask, dtype):
    """A bool/int mask becomes additive: 0 where True (1), -1e9 where False (0)."""
    if attn_mask is not None and attn_mask.dtype != dtype:
        from .. import cast

        name = str(attn_mask.dtype).replace("paddle.", "")
        if name == "bool" or "int" in name:
            attn_mask = (cast(attn_mask, dtype) - 1.0) * 1000000000.0
        else:
            attn_mask = cast(attn_mask, dtype)
    return attn_mask


class MultiHeadAttention(Layer):
    """``softmax(q k^T / sqrt(head_dim) + mask) v`` per head, heads joined by ``out_proj``."""

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        assert embed_dim > 0, \
            f"Expected embed_dim to be greater than 0, but received {embed_dim}"
        assert num_heads > 0, \
            f"Expected num_heads to be greater than 0, but received {num_heads}"
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.num_heads, self.dropout, self.need_weights = num_heads, dropout, need_weights
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, \
            "embed_dim must be divisible by num_heads"
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, t):
        """[B, L, E] -> [B, heads, L, head_dim]."""
        return t.reshape([t.shape[0], t.shape[1], self.num_heads, self.head_dim]) \
            .transpose([0, 2, 1, 3])

    def _prepare_qkv(self, query, key, value, cache=None):
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            from .. import concat

            k, v = concat([cache.k, k], axis=2), concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        return (q, k, v) if cache is None else (q, k, v, cache)

    def compute_kv(self, key, value):
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002 (Paddle's name)
        """A StaticCache of projected key/value, or an empty (``value`` None) or given
        incremental Cache."""
        if type == MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is None:
            from .. import full

            shape = [key.shape[0], self.num_heads, 0, self.head_dim]
            return self.Cache(full(shape, 0, key.dtype), full(shape, 0, key.dtype))
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        from .. import matmul

        key = query if key is None else key
        value = query if value is None else value
        if cache is None:
            q, k, v = self._prepare_qkv(query, key, value, cache)
        else:
            q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        product = matmul(x=q * self.head_dim ** (-0.5), y=k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = functional.softmax(product)
        if self.dropout:
            weights = functional.dropout(weights, self.dropout, training=self.training,
                                         mode="upscale_in_train")
        out = matmul(weights, v).transpose([0, 2, 1, 3])
        out = self.out_proj(out.reshape([out.shape[0], out.shape[1],
                                         out.shape[2] * out.shape[3]]))
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


def _check_sizes(d_model, nhead, dim_feedforward) -> None:
    """The asserts every Transformer layer's constructor begins with, in Paddle's words."""
    assert d_model > 0, f"Expected d_model to be greater than 0, but received {d_model}"
    assert nhead > 0, f"Expected nhead to be greater than 0, but received {nhead}"
    assert dim_feedforward > 0, ("Expected dim_feedforward to be greater than 0, but "
                                 f"received {dim_feedforward}")


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward block, each with a residual and a LayerNorm
    (after the block, or before it with ``normalize_before``)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-05):
        self._config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        _check_sizes(d_model, nhead, dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 2)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attr=bias_attrs[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attr=bias_attrs[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = getattr(functional, activation)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, incremental_cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, incremental_cache)

    def gen_cache(self, src):
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers (the first is the one given, the others fresh copies
    of its configuration), then an optional final norm."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else
                                 type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        output, new_caches = src, []
        for i, mod in enumerate(self.layers):
            if cache is None:
                output = mod(output, src_mask=src_mask)
            else:
                output, new_cache = mod(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


from .transformer_decoder import (Transformer, TransformerDecoder,  # noqa: E402
                                  TransformerDecoderLayer)
