"""F.scaled_dot_product_attention and nn.MultiheadAttention against torch 2.13: outputs,
attention weights and gradients of inputs and parameters."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402

RNG = np.random.default_rng(1)


def _pair(shape, dtype="float64"):
    a = RNG.standard_normal(shape).astype(dtype)
    return torch.tensor(a, requires_grad=True), il.tensor(a, requires_grad=True)


MASK = np.array([[True, False, True, True], [True, True, False, False], [False, False, False, False]])


@pytest.mark.parametrize("kind", ["none", "bool", "float", "causal", "scale", "broadcast"])
def test_sdpa(kind):
    (tq, xq), (tk, xk), (tv, xv) = _pair((2, 2, 3, 5)), _pair((2, 2, 4, 5)), _pair((2, 2, 4, 6))
    kw_t, kw_x = {}, {}
    if kind == "bool":
        kw_t["attn_mask"], kw_x["attn_mask"] = torch.tensor(MASK), il.tensor(MASK)
    elif kind == "float":
        f = RNG.standard_normal((3, 4))
        kw_t["attn_mask"], kw_x["attn_mask"] = torch.tensor(f), il.tensor(f)
    elif kind == "causal":
        kw_t["is_causal"] = kw_x["is_causal"] = True
    elif kind == "scale":
        kw_t["scale"] = kw_x["scale"] = 0.3
    elif kind == "broadcast":
        m = RNG.random((2, 1, 3, 4)) > 0.3
        kw_t["attn_mask"], kw_x["attn_mask"] = torch.tensor(m), il.tensor(m)
    p = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, **kw_t)
    q = il.nn.functional.scaled_dot_product_attention(xq, xk, xv, **kw_x)
    np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = RNG.standard_normal(tuple(p.shape))
    p.backward(torch.tensor(g))
    q.backward(il.tensor(g))
    for t, x in ((tq, xq), (tk, xk), (tv, xv)):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


def _mha_pair(E, H, **kw):
    torch.manual_seed(0)
    m = torch.nn.MultiheadAttention(E, H, dtype=torch.float64, **kw)
    n = il.nn.MultiheadAttention(E, H, dtype=il.float64, **kw)
    with torch.no_grad(), il.no_grad():
        for (name, p), (name2, q) in zip(m.named_parameters(), n.named_parameters()):
            assert name == name2 and tuple(p.shape) == tuple(q.shape)
            a = RNG.standard_normal(tuple(p.shape))
            q.copy_(il.tensor(a))
            p.copy_(torch.tensor(a))
    return m, n


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("avg", [True, False])
@pytest.mark.parametrize("masks", ["none", "attn_bool", "attn_float", "padding"])
def test_multihead_attention(batch_first, avg, masks):
    E, H, L, S, N = 8, 2, 3, 4, 2
    m, n = _mha_pair(E, H, batch_first=batch_first)
    qs = (N, L, E) if batch_first else (L, N, E)
    ks = (N, S, E) if batch_first else (S, N, E)
    (tq, xq), (tk, xk), (tv, xv) = _pair(qs), _pair(ks), _pair(ks)
    kt, kx = {}, {}
    if masks == "attn_bool":
        a = ~MASK
        a[2, 0] = False
        kt["attn_mask"], kx["attn_mask"] = torch.tensor(a), il.tensor(a)
    elif masks == "attn_float":
        a = RNG.standard_normal((L, S))
        kt["attn_mask"], kx["attn_mask"] = torch.tensor(a), il.tensor(a)
    elif masks == "padding":
        a = np.array([[False, False, True, False], [False, True, True, False]])
        kt["key_padding_mask"], kx["key_padding_mask"] = torch.tensor(a), il.tensor(a)
    po, pw = m(tq, tk, tv, average_attn_weights=avg, **kt)
    qo, qw = n(xq, xk, xv, average_attn_weights=avg, **kx)
    np.testing.assert_allclose(qo.detach().numpy(), po.detach().numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(qw.detach().numpy(), pw.detach().numpy(), rtol=1e-9, atol=1e-12)
    (po.sum() + (pw * 3).sum()).backward()
    (qo.sum() + (qw * 3).sum()).backward()
    for t, x in ((tq, xq), (tk, xk), (tv, xv)):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-11)
    for p, q in zip(m.parameters(), n.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-8, atol=1e-11)


def test_mha_unbatched_no_weights_and_init():
    m, n = _mha_pair(4, 2)
    (tq, xq) = _pair((3, 4))
    po, pw = m(tq, tq, tq, need_weights=False)
    qo, qw = n(xq, xq, xq, need_weights=False)
    assert pw is None and qw is None
    np.testing.assert_allclose(qo.detach().numpy(), po.detach().numpy(), rtol=1e-9, atol=1e-12)
    fresh = il.nn.MultiheadAttention(6, 3)
    assert repr(fresh) == repr(torch.nn.MultiheadAttention(6, 3))
    assert [k for k, _ in fresh.named_parameters()] == \
        ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    assert fresh.in_proj_bias.abs().sum().item() == 0 and fresh.out_proj.bias.abs().sum().item() == 0
    bound = (6 / (18 + 6)) ** 0.5
    assert fresh.in_proj_weight.abs().max().item() <= bound
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        il.nn.MultiheadAttention(5, 2)
