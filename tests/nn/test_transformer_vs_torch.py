"""nn.Transformer and its encoder/decoder layers against torch 2.13: the same weights (torch's
state_dict loaded into ours), the same inputs; outputs and gradients of the inputs and of
every parameter, in train mode (dropout=0) and in eval mode (torch's fast path)."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402

RNG = np.random.default_rng(7)
F64 = dict(rtol=1e-9, atol=1e-10)
F32 = dict(rtol=1e-5, atol=1e-5)


def _load(m, n):
    """Copy torch module ``m``'s state into ours (the keys must be torch's)."""
    sd = m.state_dict()
    assert list(sd) == list(n.state_dict())
    n.load_state_dict({k: il.tensor(v.detach().numpy()) for k, v in sd.items()})


def _pair(cls, *args, **kw):
    torch.manual_seed(0)
    dtype = kw.pop("dtype", "float64")
    act = kw.pop("act", None)
    kt, kx = dict(kw), dict(kw)
    if act == "silu":
        kt["activation"], kx["activation"] = torch.nn.functional.silu, il.nn.functional.silu
    elif act == "gelu_module":
        kt["activation"], kx["activation"] = torch.nn.GELU(), il.nn.GELU()
    elif act is not None:
        kt["activation"] = kx["activation"] = act
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = getattr(torch.nn, cls)(*args, dtype=getattr(torch, dtype), **kt)
        n = getattr(il.nn, cls)(*args, dtype=getattr(il, dtype), **kx)
    _load(m, n)
    return m, n


def _inputs(shape, dtype="float64"):
    a = RNG.standard_normal(shape).astype(dtype)
    return torch.tensor(a, requires_grad=True), il.tensor(a, requires_grad=True)


def _same(t, x, tol):
    np.testing.assert_allclose(x.detach().numpy(), t.detach().numpy(), **tol)


def _check_backward(m, n, outs, ins, tol):
    (pt, px) = outs
    g = RNG.standard_normal(tuple(pt.shape))
    pt.backward(torch.tensor(g, dtype=pt.dtype))
    px.backward(il.tensor(g.astype(np.float64 if pt.dtype == torch.float64 else np.float32)))
    for t, x in ins:
        _same(t.grad, x.grad, tol)
    for (name, p), (name2, q) in zip(m.named_parameters(), n.named_parameters()):
        assert name == name2
        _same(p.grad, q.grad, tol)


def _masks(kind, L, S, N, batch_first):
    """(torch kwargs, our kwargs) for a mask kind of an encoder/self-attention call."""
    if kind == "none":
        return {}, {}
    if kind == "bool":
        a = RNG.random((L, S)) > 0.7
        a[:, 0] = False
        return {"src_mask": torch.tensor(a)}, {"src_mask": il.tensor(a)}
    if kind == "float":
        a = RNG.standard_normal((L, S))
        return {"src_mask": torch.tensor(a)}, {"src_mask": il.tensor(a)}
    if kind == "padding":
        a = np.zeros((N, S), bool)
        a[0, -1] = a[1, -2:] = True
        return {"src_key_padding_mask": torch.tensor(a)}, {"src_key_padding_mask": il.tensor(a)}
    if kind == "causal":
        return ({"src_mask": torch.nn.Transformer.generate_square_subsequent_mask(
            L, dtype=torch.float64), "is_causal": True},
            {"src_mask": il.nn.Transformer.generate_square_subsequent_mask(L, dtype=il.float64),
             "is_causal": True})
    raise AssertionError(kind)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("masks", ["none", "bool", "float", "padding", "causal"])
def test_encoder_layer_train_matches_torch(batch_first, norm_first, masks):
    E, H, L, N = 8, 2, 4, 2
    m, n = _pair("TransformerEncoderLayer", E, H, 16, 0.0, batch_first=batch_first,
                 norm_first=norm_first)
    t, x = _inputs((N, L, E) if batch_first else (L, N, E))
    kt, kx = _masks(masks, L, L, N, batch_first)
    pt, px = m(t, **kt), n(x, **kx)
    _same(pt, px, F64)
    assert type(px.grad_fn).__name__ == type(pt.grad_fn).__name__
    _check_backward(m, n, (pt, px), [(t, x)], F64)


@pytest.mark.parametrize("act", ["gelu", "silu", "gelu_module"])
@pytest.mark.parametrize("bias", [True, False])
def test_encoder_layer_activation_and_bias(act, bias):
    m, n = _pair("TransformerEncoderLayer", 6, 3, 10, 0.0, act=act, bias=bias,
                 layer_norm_eps=1e-3)
    t, x = _inputs((3, 2, 6))
    pt, px = m(t), n(x)
    _same(pt, px, F64)
    _check_backward(m, n, (pt, px), [(t, x)], F64)
    assert m.activation_relu_or_gelu == n.activation_relu_or_gelu


def test_encoder_layer_unbatched_float32():
    m, n = _pair("TransformerEncoderLayer", 8, 4, 16, 0.0, dtype="float32")
    t, x = _inputs((5, 8), "float32")
    pt, px = m(t), n(x)
    _same(pt, px, F32)
    _check_backward(m, n, (pt, px), [(t, x)], F32)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("masks", ["none", "bool", "padding"])
def test_encoder_layer_eval_no_grad_matches_fast_path(batch_first, masks):
    m, n = _pair("TransformerEncoderLayer", 8, 2, 16, 0.1, batch_first=batch_first)
    m.eval(), n.eval()
    t, x = _inputs((2, 4, 8) if batch_first else (4, 2, 8))
    kt, kx = _masks(masks, 4, 4, 2, batch_first)
    with torch.no_grad(), il.no_grad():
        _same(m(t, **kt), n(x, **kx), F64)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("masks", ["none", "tgt_causal", "memory_bool", "padding"])
def test_decoder_layer_train_matches_torch(batch_first, norm_first, masks):
    E, H, T, S, N = 8, 2, 3, 5, 2
    m, n = _pair("TransformerDecoderLayer", E, H, 12, 0.0, batch_first=batch_first,
                 norm_first=norm_first)
    (t, x), (tm, xm) = (_inputs((N, T, E) if batch_first else (T, N, E)),
                        _inputs((N, S, E) if batch_first else (S, N, E)))
    kt, kx = {}, {}
    if masks == "tgt_causal":
        kt["tgt_mask"] = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
        kx["tgt_mask"] = il.nn.Transformer.generate_square_subsequent_mask(T, dtype=il.float64)
        kt["tgt_is_causal"] = kx["tgt_is_causal"] = True
    elif masks == "memory_bool":
        a = RNG.random((T, S)) > 0.6
        a[:, 1] = False
        kt["memory_mask"], kx["memory_mask"] = torch.tensor(a), il.tensor(a)
    elif masks == "padding":
        a, b = np.zeros((N, T), bool), np.zeros((N, S), bool)
        a[1, -1] = b[0, -2:] = True
        kt.update(tgt_key_padding_mask=torch.tensor(a), memory_key_padding_mask=torch.tensor(b))
        kx.update(tgt_key_padding_mask=il.tensor(a), memory_key_padding_mask=il.tensor(b))
    pt, px = m(t, tm, **kt), n(x, xm, **kx)
    _same(pt, px, F64)
    assert type(px.grad_fn).__name__ == type(pt.grad_fn).__name__
    _check_backward(m, n, (pt, px), [(t, x), (tm, xm)], F64)


@pytest.mark.parametrize("with_norm", [False, True])
def test_encoder_stack_and_detected_causal_mask(with_norm):
    torch.manual_seed(0)
    lt = torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0, dtype=torch.float64)
    lx = il.nn.TransformerEncoderLayer(8, 2, 16, 0.0, dtype=il.float64)
    nt = torch.nn.LayerNorm(8, dtype=torch.float64) if with_norm else None
    nx = il.nn.LayerNorm(8, dtype=il.float64) if with_norm else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = torch.nn.TransformerEncoder(lt, 3, nt)
        n = il.nn.TransformerEncoder(lx, 3, nx)
    _load(m, n)
    assert n.layers[0].linear1.weight is not n.layers[1].linear1.weight
    t, x = _inputs((4, 2, 8))
    mt = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    mx = il.nn.Transformer.generate_square_subsequent_mask(4, dtype=il.float64)
    pt, px = m(t, mask=mt), n(x, mask=mx)
    _same(pt, px, F64)
    _check_backward(m, n, (pt, px), [(t, x)], F64)


@pytest.mark.parametrize("aligned", [True, False])
@pytest.mark.parametrize("mask_check", [True, False])
@pytest.mark.filterwarnings("ignore")
def test_encoder_eval_nested_path_zeroes_padded_positions(aligned, mask_check):
    """torch's eval path runs on a nested tensor: padded positions come back as zeros (then
    the final norm), only with batch_first, no gradient, a padding mask and no src mask."""
    torch.manual_seed(0)
    lt = torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True, dtype=torch.float64)
    lx = il.nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True, dtype=il.float64)
    m = torch.nn.TransformerEncoder(lt, 2, torch.nn.LayerNorm(8, dtype=torch.float64),
                                    mask_check=mask_check)
    n = il.nn.TransformerEncoder(lx, 2, il.nn.LayerNorm(8, dtype=il.float64),
                                 mask_check=mask_check)
    _load(m, n)
    m.eval(), n.eval()
    a = np.zeros((2, 5), bool)
    a[0, -2:] = True
    if not aligned:
        a[1, 0] = True
    t, x = _inputs((2, 5, 8))
    if not aligned and not mask_check:
        pytest.skip("a non-left-aligned mask without mask_check: torch's nested tensor is wrong")
    with torch.no_grad(), il.no_grad():
        pt = m(t, src_key_padding_mask=torch.tensor(a))
        px = n(x, src_key_padding_mask=il.tensor(a))
    _same(pt, px, F64)
    pt, px = m(t, src_key_padding_mask=torch.tensor(a)), n(x, src_key_padding_mask=il.tensor(a))
    _same(pt, px, F64)  # with grad: the ordinary path


def test_decoder_stack():
    torch.manual_seed(0)
    lt = torch.nn.TransformerDecoderLayer(8, 2, 16, 0.0, dtype=torch.float64)
    lx = il.nn.TransformerDecoderLayer(8, 2, 16, 0.0, dtype=il.float64)
    m = torch.nn.TransformerDecoder(lt, 2, torch.nn.LayerNorm(8, dtype=torch.float64))
    n = il.nn.TransformerDecoder(lx, 2, il.nn.LayerNorm(8, dtype=il.float64))
    _load(m, n)
    (t, x), (tm, xm) = _inputs((3, 2, 8)), _inputs((4, 2, 8))
    mt = torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
    mx = il.nn.Transformer.generate_square_subsequent_mask(3, dtype=il.float64)
    pt, px = m(t, tm, tgt_mask=mt), n(x, xm, tgt_mask=mx)
    _same(pt, px, F64)
    _check_backward(m, n, (pt, px), [(t, x), (tm, xm)], F64)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_matches_torch(batch_first, norm_first):
    m, n = _pair("Transformer", 8, 2, 2, 2, 16, 0.0, batch_first=batch_first,
                 norm_first=norm_first)
    S, T, N = 5, 4, 2
    (ts, xs) = _inputs((N, S, 8) if batch_first else (S, N, 8))
    (tt, xt) = _inputs((N, T, 8) if batch_first else (T, N, 8))
    a = np.zeros((N, S), bool)
    a[1, -2:] = True
    mt = m.generate_square_subsequent_mask(T, dtype=torch.float64)
    mx = n.generate_square_subsequent_mask(T, dtype=il.float64)
    pt = m(ts, tt, tgt_mask=mt, src_key_padding_mask=torch.tensor(a),
           memory_key_padding_mask=torch.tensor(a))
    px = n(xs, xt, tgt_mask=mx, src_key_padding_mask=il.tensor(a),
           memory_key_padding_mask=il.tensor(a))
    _same(pt, px, F64)
    _check_backward(m, n, (pt, px), [(ts, xs), (tt, xt)], F64)


def test_transformer_eval_float32():
    m, n = _pair("Transformer", 8, 2, 1, 1, 16, 0.1, batch_first=True, dtype="float32")
    m.eval(), n.eval()
    (ts, xs), (tt, xt) = _inputs((2, 5, 8), "float32"), _inputs((2, 3, 8), "float32")
    with torch.no_grad(), il.no_grad():
        _same(m(ts, tt), n(xs, xt), F32)


def test_generate_square_subsequent_mask():
    for kw_t, kw_x in (({}, {}), ({"dtype": torch.float64}, {"dtype": il.float64})):
        pt = torch.nn.Transformer.generate_square_subsequent_mask(4, **kw_t)
        px = il.nn.Transformer.generate_square_subsequent_mask(4, **kw_x)
        np.testing.assert_array_equal(px.numpy(), pt.numpy())
        assert str(px.dtype) == str(pt.dtype)


def test_repr_and_state_dict_keys():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = torch.nn.Transformer(8, 2, 1, 2, 16, bias=False)
        n = il.nn.Transformer(8, 2, 1, 2, 16, bias=False)
        m1 = torch.nn.Transformer(8, 2, 1, 1, 16, bias=False)
        n1 = il.nn.Transformer(8, 2, 1, 1, 16, bias=False)
    # (one layer per stack: our ModuleList does not yet fold repeats into "(0-1): 2 x ...")
    assert repr(n1) == repr(m1)
    assert list(n.state_dict()) == list(m.state_dict())
    assert [tuple(v.shape) for v in n.state_dict().values()] == \
        [tuple(v.shape) for v in m.state_dict().values()]


@pytest.mark.filterwarnings("ignore")
def test_transformer_init_is_xavier_uniform():
    n = il.nn.Transformer(8, 2, 1, 1, 16)
    bound = (6 / (8 + 16)) ** 0.5
    w = n.encoder.layers[0].linear1.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > bound / 2


def test_nested_tensor_warning_matches_torch():
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2), 1)
    with warnings.catch_warnings(record=True) as wx:
        warnings.simplefilter("always")
        e = il.nn.TransformerEncoder(il.nn.TransformerEncoderLayer(8, 2), 1)
    assert [str(w.message) for w in wx] == [str(w.message) for w in wt]
    assert e.enable_nested_tensor and not e.use_nested_tensor and e.mask_check
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = il.nn.TransformerEncoder(il.nn.TransformerEncoderLayer(8, 2), 1,
                                     enable_nested_tensor=False, mask_check=False)
    assert not e.use_nested_tensor and not e.mask_check


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    return None


def test_errors_match_torch():
    assert _error(lambda: il.nn.TransformerEncoderLayer(8, 2, activation="tanh")) == \
        _error(lambda: torch.nn.TransformerEncoderLayer(8, 2, activation="tanh"))
    m, n = _pair("Transformer", 8, 2, 1, 1, 16, 0.0)
    (ts, xs), (tt, xt) = _inputs((5, 2, 8)), _inputs((4, 3, 8))
    assert _error(lambda: n(xs, xt)) == _error(lambda: m(ts, tt))
    (tt, xt) = _inputs((4, 2, 6))
    assert _error(lambda: n(xs, xt)) == _error(lambda: m(ts, tt))
    lt, lx = _pair("TransformerEncoderLayer", 8, 2, 16, 0.0)
    (t, x) = _inputs((3, 2, 8))
    bad_t, bad_x = torch.zeros(3, 3, dtype=torch.int64), il.zeros(3, 3, dtype=il.int64)
    assert _error(lambda: lx(x, src_mask=bad_x)) == _error(lambda: lt(t, src_mask=bad_t))
    assert _error(lambda: lx(x, is_causal=True)) == _error(lambda: lt(t, is_causal=True))
