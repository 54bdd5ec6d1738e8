"""The new nn modules vs torch 2.13 through the facade: reprs, parameters, state_dict keys,
default initialisation (shapes, ranges, versions), forward/backward through a model."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as ilt  # noqa: E402

CONSTRUCTORS = [
    "GELU()", "GELU('tanh')", "SiLU()", "SiLU(inplace=True)", "Softplus()", "Softplus(2, 10)",
    "PReLU()", "PReLU(3, 0.1)", "AvgPool2d(2)",
    "AvgPool2d(3, 1, 1, ceil_mode=True, count_include_pad=False, divisor_override=2)",
    "AvgPool1d(2)", "MaxPool1d(2)", "AdaptiveAvgPool2d((1, 1))", "AdaptiveAvgPool2d(1)",
    "AdaptiveAvgPool2d((None, 3))", "AdaptiveMaxPool2d(2)", "AdaptiveAvgPool1d(2)", "Dropout2d()",
    "Dropout2d(0.2, True)", "Conv1d(3, 4, 3)",
    "Conv1d(4, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False)",
    "Conv1d(3, 4, 3, padding='same')", "Conv1d(3, 4, 3, padding=1, padding_mode='reflect')",
    "BCELoss()", "L1Loss()", "SmoothL1Loss(beta=0.5)", "HuberLoss(delta=2.0)",
    "KLDivLoss(reduction='batchmean')", "ModuleDict({'a': nn.ReLU(), 'b': nn.Linear(2, 3)})",
    "ParameterList([nn.Parameter(m.ones(2)), nn.Parameter(m.zeros(2, 3))])",
    "ParameterList([nn.Parameter(m.ones(2))])",
    "Unflatten(1, (2, 5))", "ZeroPad2d(2)", "ZeroPad2d((1, 2, 3, 4))", "ConstantPad1d(2, 3.5)",
    "ConstantPad2d(1, 0.)", "ReflectionPad2d(1)", "ReplicationPad2d((1, 1, 2, 0))",
    "ReflectionPad1d(2)", "ReLU6()", "ReLU6(True)", "Mish()", "Softsign()", "LogSigmoid()",
    "Softmin(1)", "GLU()", "Hardswish()", "Hardsigmoid()", "Tanhshrink()", "SELU()", "CELU()",
    "CosineSimilarity()", "PairwiseDistance()", "MarginRankingLoss()", "HingeEmbeddingLoss()",
    "SoftMarginLoss()", "CosineEmbeddingLoss()", "TripletMarginLoss()", "PoissonNLLLoss()",
    "Softmax(dim=1)", "LogSoftmax(dim=1)", "Softmax()",
]


def build(src, m):
    return eval("nn." + src, {"nn": m.nn, "m": m})


@pytest.mark.parametrize("src", CONSTRUCTORS)
def test_repr_parameters_and_state_dict_keys_match_torch(src):
    t, i = build(src, torch), build(src, ilt)
    assert repr(i) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in i.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    assert [n for n, _ in i.named_parameters()] == [n for n, _ in t.named_parameters()]


def test_prelu_weight_is_a_filled_parameter_that_learns():
    m = ilt.nn.PReLU(3, 0.1)
    assert m.weight.tolist() == pytest.approx([0.1] * 3) and m.weight._version == 1
    x = ilt.tensor(np.random.default_rng(0).normal(size=(2, 3, 4)))
    m.double()
    m(x).sum().backward()
    tm = torch.nn.PReLU(3, 0.1).double()
    tm(torch.tensor(x.numpy())).sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), tm.weight.grad.numpy())
    assert m(x).grad_fn.name() == "PreluKernelBackward0"


def test_conv1d_default_init_is_torchs_distribution():
    m = ilt.nn.Conv1d(4, 8, 5)
    bound = 1 / np.sqrt(4 * 5)  # kaiming_uniform(a=sqrt(5)) and the bias share this bound
    assert np.abs(m.weight.detach().numpy()).max() <= bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound
    assert m.weight.std().item() > bound / 3  # not all zeros, roughly uniform
    assert m.weight._version == m.bias._version == 1
    assert m.weight.dtype is ilt.float32


def test_conv1d_padding_modes_match_torch():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 9))
    for kw in ({"padding": 2, "padding_mode": "reflect"}, {"padding": "same"},
               {"padding": 1, "padding_mode": "replicate", "stride": 2}):
        t = torch.nn.Conv1d(3, 4, 4, **kw).double()
        i = ilt.nn.Conv1d(3, 4, 4, **kw).double()
        i.load_state_dict({k: ilt.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
        with pytest.warns(UserWarning) if kw.get("padding") == "same" else _nothing():
            out = i(ilt.tensor(x))
        np.testing.assert_allclose(out.detach().numpy(),
                                   t(torch.tensor(x)).detach().numpy(), rtol=1e-10)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_module_dict_and_parameter_list_register_their_entries():
    md = ilt.nn.ModuleDict({"lin": ilt.nn.Linear(2, 3)})
    md["act"] = ilt.nn.ReLU()
    assert list(md) == ["lin", "act"] and "act" in md and len(md) == 2
    assert list(md.state_dict()) == ["lin.weight", "lin.bias"]
    pl = ilt.nn.ParameterList([ilt.ones(2)])
    pl.append(ilt.zeros(3))
    assert all(isinstance(p, ilt.nn.Parameter) for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"] and pl[-1].shape == (3,)
    pl[0] = ilt.nn.Parameter(ilt.full((2,), 5.0))
    assert pl[0].tolist() == [5.0, 5.0]


def test_unflatten_is_a_view_and_zeropad_pads_zeros():
    x = ilt.ones(1, 10)
    y = ilt.nn.Unflatten(1, (2, 5))(x)
    assert y._base is x and tuple(y.shape) == (1, 2, 5)
    z = ilt.nn.ZeroPad2d((1, 0, 0, 1))(ilt.ones(1, 2, 2))
    assert z.tolist() == [[[0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]]]


def test_small_cnn_trains_like_torch():
    """Conv1d -> GELU -> AvgPool1d -> flatten -> Linear -> SmoothL1Loss, same weights, same
    loss and gradients as torch."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(4, 2, 12)), rng.normal(size=(4, 1))

    def model(nn):
        return nn.Sequential(nn.Conv1d(2, 3, 3, padding=1), nn.GELU(), nn.AvgPool1d(2),
                             nn.Flatten(), nn.Linear(18, 1)).double()

    t, i = model(torch.nn), model(ilt.nn)
    i.load_state_dict({k: ilt.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    tl = torch.nn.SmoothL1Loss()(t(torch.tensor(x)), torch.tensor(y))
    il_ = ilt.nn.SmoothL1Loss()(i(ilt.tensor(x)), ilt.tensor(y))
    tl.backward()
    il_.backward()
    assert il_.item() == pytest.approx(tl.item(), rel=1e-12)
    for (n, p), (_, q) in zip(i.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, err_msg=n)


def test_conv2d_padding_modes_match_torch():  # (Conv2d and Conv1d share _ConvNd)
    import numpy as np

    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    for kw in ({"padding": 2, "padding_mode": "reflect"}, {"padding": "same"},
               {"padding": (1, 2), "padding_mode": "replicate", "stride": 2},
               {"padding": "same", "padding_mode": "reflect", "dilation": 2}):
        outs = []
        for T in (torch, ilt):
            m = T.nn.Conv2d(2, 3, 3, **kw)
            with T.no_grad():
                m.weight.copy_(T.tensor(np.linspace(-1, 1, m.weight.numel(), dtype=np.float32)
                                        .reshape(tuple(m.weight.shape))))
                m.bias.fill_(0.25)
            xt = T.tensor(x, requires_grad=True)
            y = m(xt)
            y.sum().backward()
            outs.append((repr(m), y.detach().numpy(), xt.grad.numpy(), m.weight.grad.numpy()))
        assert outs[1][0] == outs[0][0]
        for a, b in zip(outs[1][1:], outs[0][1:]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_module_list_repr_folds_repeated_modules_as_torch():
    import inplace_lab.torch as T

    def build(M):
        return M.nn.ModuleList([M.nn.Linear(2, 2) for _ in range(3)] +
                               [M.nn.ReLU(), M.nn.ReLU(),
                                M.nn.Sequential(M.nn.Linear(2, 3), M.nn.ReLU())])
    assert repr(build(T)) == repr(build(torch))
    assert "(0-2): 3 x Linear(in_features=2, out_features=2, bias=True)" in repr(build(T))
    assert repr(T.nn.ModuleList()) == repr(torch.nn.ModuleList()) == "ModuleList()"


def test_layers_built_inside_a_torch_module_are_torch_layers():
    """A Transformer's Linear/LayerNorm and MultiheadAttention's out_proj are made by core
    code: the facade adopts them, so the usual init loop finds as many as in torch and their
    parameters print torch's dtype."""
    import pickle

    import inplace_lab.torch as T

    def census(M):
        model = M.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
        kinds = (M.nn.Linear, M.nn.LayerNorm, M.nn.MultiheadAttention, M.nn.Dropout)
        return [sum(isinstance(m, k) for m in model.modules()) for k in kinds], model

    with pytest.warns(UserWarning):
        want, _ = census(torch)
    with pytest.warns(UserWarning):
        got, model = census(T)
    assert got == want and got[0] > 0
    mha = T.nn.MultiheadAttention(4, 2)
    assert isinstance(mha.out_proj, T.nn.Linear) and str(mha.out_proj.weight.dtype) == "torch.float32"
    for m in model.modules():  # an init loop as courses write it
        if isinstance(m, T.nn.Linear):
            T.nn.init.zeros_(m.weight)
    assert all(float(p.abs().sum()) == 0 for n, p in model.named_parameters()
               if n.endswith("linear1.weight") or n.endswith("out_proj.weight"))
    copy = pickle.loads(pickle.dumps(mha))
    assert type(copy.out_proj) is type(mha.out_proj)
