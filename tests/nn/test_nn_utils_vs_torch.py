"""torch.nn.utils (clip_grad_norm_, clip_grad_value_, parameters_to_vector,
vector_to_parameters) against torch 2.13: values, returned norm, gradient versions, errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as il  # noqa: E402


def _pair(seed, scale=3.0, shapes=((3, 4), (5,), (2, 2, 2))):
    rng = np.random.default_rng(seed)
    out = []
    for lib in (torch, il):
        ps = []
        for i, s in enumerate(shapes):
            r = np.random.default_rng(seed + i)
            p = lib.nn.Parameter(lib.tensor(r.standard_normal(s).astype(np.float32)))
            p.grad = lib.tensor((r.standard_normal(s) * scale).astype(np.float32))
            ps.append(p)
        out.append(ps)
    del rng
    return out


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.0, float("inf"), "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
@pytest.mark.parametrize("foreach", [None, False])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, foreach):
    tp, ip = _pair(0)
    tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type=norm_type, foreach=foreach)
    n = il.nn.utils.clip_grad_norm_(ip, max_norm, norm_type=norm_type, foreach=foreach)
    assert n.shape == tn.shape == () and n.grad_fn is None
    np.testing.assert_allclose(n.numpy(), tn.numpy(), rtol=1e-6)
    for a, b in zip(tp, ip):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-6, atol=1e-7)
        assert b.grad._version == a.grad._version
        assert b._version == a._version


def test_clip_grad_norm_single_tensor_skips_missing_grads_and_empty():
    tp, ip = _pair(1)
    tp[1].grad = None
    ip[1].grad = None
    tn = torch.nn.utils.clip_grad_norm_(tp[1], 1.0)
    n = il.nn.utils.clip_grad_norm_(ip[1], 1.0)
    assert float(n) == float(tn) == 0.0
    tn = torch.nn.utils.clip_grad_norm_(iter(tp), 1.0)
    n = il.nn.utils.clip_grad_norm_(iter(ip), 1.0)
    np.testing.assert_allclose(n.numpy(), tn.numpy(), rtol=1e-6)
    with pytest.warns(UserWarning, match="empty generator"):
        il.nn.utils.clip_grad_norm_((p for p in []), 1.0)


def test_clip_grad_norm_nonfinite_error():
    tp, ip = _pair(2)
    tp[0].grad[0, 0] = float("nan")
    ip[0].grad[0, 0] = float("nan")
    with pytest.raises(RuntimeError) as te:
        torch.nn.utils.clip_grad_norm_(tp, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as ie:
        il.nn.utils.clip_grad_norm_(ip, 1.0, error_if_nonfinite=True)
    assert str(ie.value) == str(te.value)
    assert [p.grad._version for p in ip] == [p.grad._version for p in tp]


@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_value_matches_torch(foreach):
    tp, ip = _pair(3)
    torch.nn.utils.clip_grad_value_(tp, 0.7, foreach=foreach)
    il.nn.utils.clip_grad_value_(ip, 0.7, foreach=foreach)
    for a, b in zip(tp, ip):
        np.testing.assert_array_equal(b.grad.numpy(), a.grad.numpy())
        assert b.grad._version == a.grad._version


def test_parameters_to_vector_and_back():
    tp, ip = _pair(4)
    tv = torch.nn.utils.parameters_to_vector(tp)
    v = il.nn.utils.parameters_to_vector(ip)
    np.testing.assert_array_equal(v.detach().numpy(), tv.detach().numpy())
    assert type(v.grad_fn).__name__ == type(tv.grad_fn).__name__
    v.sum().backward()
    assert all(np.all(p.grad.numpy() != 0) for p in ip)
    new = il.arange(v.numel(), dtype=il.float32)
    il.nn.utils.vector_to_parameters(new, ip)
    torch.nn.utils.vector_to_parameters(torch.arange(tv.numel(), dtype=torch.float32), tp)
    for a, b in zip(tp, ip):
        np.testing.assert_array_equal(b.detach().numpy(), a.detach().numpy())
        assert b.shape == a.shape and b.requires_grad
    new[0] = 100.0  # the parameters alias the vector, as in torch
    assert float(ip[0][0, 0]) == 100.0
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        il.nn.utils.vector_to_parameters([1.0], ip)


def test_import_forms():
    import inplace_lab.torch.nn.utils as u
    from inplace_lab.torch.nn.utils import clip_grad_norm_

    assert u is il.nn.utils and clip_grad_norm_ is u.clip_grad_norm_
