"""nn.Module, Parameter, init and layers: registration, state dicts, hooks, versions (vs torch)."""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
import inplace_lab.nn as nn

torch = pytest.importorskip("torch")


def test_parameter_is_a_leaf_sharing_storage_and_version_with_its_data():
    t = il.ones(3)
    p = nn.Parameter(t)
    assert p.is_leaf and p.requires_grad and p.untyped_storage() is t.untyped_storage()
    with il.no_grad():
        p.add_(1)
    assert p._version == t._version == 1 and t.tolist() == [2.0, 2.0, 2.0]
    assert repr(p) == repr(torch.nn.Parameter(torch.full((3,), 2.0)))
    assert str(p).startswith("Parameter containing:\n")


def test_in_place_on_a_parameter_with_grad_mode_on_is_the_leaf_error():
    p = nn.Parameter(il.zeros(2))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        p.add_(1)


@pytest.mark.parametrize("fn,args", [("uniform_", (-1, 1)), ("normal_", ()), ("constant_", (0.3,)),
                                     ("zeros_", ()), ("ones_", ()), ("xavier_uniform_", ()),
                                     ("xavier_normal_", ()), ("kaiming_uniform_", ()),
                                     ("kaiming_normal_", ())])
def test_init_writes_in_place_under_no_grad_and_bumps_version_once_like_torch(fn, args):
    p = nn.Parameter(il.empty(4, 5))
    tp = torch.nn.Parameter(torch.empty(4, 5))
    st = p.untyped_storage()
    assert getattr(nn.init, fn)(p, *args) is p
    getattr(torch.nn.init, fn)(tp, *args)
    assert p._version == tp._version == 1 and p.untyped_storage() is st and p.grad_fn is None


def test_kaiming_uniform_bound_matches_torch_formula():
    il.manual_seed(0)
    p = nn.init.kaiming_uniform_(il.empty(200, 50), a=5 ** 0.5)
    bound = 1 / np.sqrt(50)
    assert np.abs(p.numpy()).max() <= bound and np.abs(p.numpy()).max() > 0.9 * bound
    assert nn.init.calculate_gain("relu") == torch.nn.init.calculate_gain("relu")
    assert nn.init.calculate_gain("leaky_relu", 0.2) == torch.nn.init.calculate_gain("leaky_relu", 0.2)


def _pair_models():
    t = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.ReLU(True),
                            torch.nn.Flatten(), torch.nn.Linear(8, 3))
    i = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(True), nn.Flatten(),
                      nn.Linear(8, 3))
    return t, i


def test_names_reprs_and_versions_after_construction_match_torch():
    t, i = _pair_models()
    assert [n for n, _ in i.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in i.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert list(i.state_dict()) == list(t.state_dict())
    assert repr(i) == repr(t)
    assert {k: v._version for k, v in i.state_dict().items()} == \
        {k: v._version for k, v in t.state_dict().items()}


def test_load_state_dict_copies_into_the_same_parameter_objects():
    t, i = _pair_models()
    before = {n: (p, p._version) for n, p in i.named_parameters()}
    res = i.load_state_dict({k: il.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert repr(res) == str(res) == repr(t.load_state_dict(t.state_dict())) == \
        "<All keys matched successfully>"
    for n, p in i.named_parameters():
        assert p is before[n][0] and p._version == before[n][1] + 1
    x = np.random.default_rng(0).normal(size=(2, 1, 4, 4)).astype(np.float32)
    t.eval(), i.eval()
    np.testing.assert_allclose(i(il.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_load_state_dict_errors_are_torchs():
    lin = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match=r'Error\(s\) in loading state_dict for Linear:\n\t'
                                           r'Missing key\(s\) in state_dict: "bias". '):
        lin.load_state_dict({"weight": il.zeros(2, 3)})
    with pytest.raises(RuntimeError, match=r"size mismatch for weight: copying a param with shape "
                                           r"torch.Size\(\[3, 3\]\) from checkpoint, the shape in "
                                           r"current model is torch.Size\(\[2, 3\]\)."):
        lin.load_state_dict({"weight": il.zeros(3, 3), "bias": il.zeros(2)})
    res = lin.load_state_dict({"weight": il.zeros(2, 3)}, strict=False)
    assert res.missing_keys == ["bias"]
    ref = torch.nn.Linear(3, 2).load_state_dict({"weight": torch.zeros(2, 3)}, strict=False)
    assert repr(res) == repr(ref) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])"


def test_state_dict_tensors_alias_the_parameters():
    lin = nn.Linear(2, 2)
    sd = lin.state_dict()
    assert sd["weight"].untyped_storage() is lin.weight.untyped_storage()
    assert not sd["weight"].requires_grad
    sd["weight"].zero_()  # in place through the alias: the model changes, its version too
    assert lin.weight.abs().sum().item() == 0 and lin.weight._version == sd["weight"]._version


def test_zero_grad_sets_none_by_default_or_zeroes_in_place():
    lin = nn.Linear(2, 1)
    lin(il.ones(1, 2)).sum().backward()
    g = lin.weight.grad
    v = g._version
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is g and g._version == v + 1 and g.abs().sum().item() == 0
    lin.zero_grad()
    assert lin.weight.grad is None


def test_train_eval_and_forward_hooks():
    m = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    assert m.training and m[1].training
    m.eval()
    assert not m[1].training
    seen = []
    h = m[0].register_forward_hook(lambda mod, args, out: seen.append(out.shape) or out * 0)
    pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    out = m(il.ones(3, 2))
    assert seen == [il.Size([3, 2])] and out.abs().sum().item() == 0
    h.remove(), pre.remove()
    assert m(il.ones(3, 2)).abs().sum().item() > 0


def test_module_to_double_keeps_parameter_objects_and_int_buffers():
    bn = nn.BatchNorm1d(3)
    w = bn.weight
    bn.double()
    assert bn.weight is w and w.dtype == il.float64 and bn.num_batches_tracked.dtype == il.int64


def test_batchnorm_module_tracks_batches_like_torch():
    t, i = torch.nn.BatchNorm1d(3, momentum=None), nn.BatchNorm1d(3, momentum=None)
    x = np.random.default_rng(0).normal(size=(3, 8, 3))
    for k in range(3):
        t(torch.tensor(x[k], dtype=torch.float32)), i(il.tensor(x[k], dtype=il.float32))
    np.testing.assert_allclose(i.running_mean.numpy(), t.running_mean.numpy(), rtol=1e-5)
    np.testing.assert_allclose(i.running_var.numpy(), t.running_var.numpy(), rtol=1e-5)
    assert i.num_batches_tracked.item() == 3
    assert i.num_batches_tracked._version == t.num_batches_tracked._version
    assert i.running_mean._version == t.running_mean._version
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        i(il.zeros(2, 3, 1, 1))


def test_relu_inplace_module_overwrites_its_input():
    x = il.tensor([-1.0, 1.0])
    assert nn.ReLU(inplace=True)(x) is x and x._version == 1 and x.tolist() == [0.0, 1.0]
    y = il.tensor([-1.0, 1.0])
    assert nn.ReLU()(y) is not y and y._version == 0


def test_embedding_padding_row_gets_no_gradient():
    e = nn.Embedding(4, 2, padding_idx=0)
    assert e.weight[0].abs().sum().item() == 0
    e(il.tensor([0, 1, 1])).sum().backward()
    assert e.weight.grad[0].tolist() == [0.0, 0.0] and e.weight.grad[1].tolist() == [2.0, 2.0]
