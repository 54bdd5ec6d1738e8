"""nn.init.orthogonal_ / trunc_normal_ (shapes, statistics, orthogonality, versions, errors)
and nn.ParameterDict (registration, order, state_dict keys, repr, dict methods) vs torch 2.13."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as ilt  # noqa: E402


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (6, 2, 2), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape, dtype):
    w = ilt.nn.Parameter(ilt.empty(*shape, dtype=getattr(ilt, dtype)))
    tw = torch.nn.Parameter(torch.empty(*shape, dtype=getattr(torch, dtype)))
    assert ilt.nn.init.orthogonal_(w, gain=2.0) is w
    torch.nn.init.orthogonal_(tw, gain=2.0)
    assert w._version == tw._version == 2 and w.dtype == getattr(ilt, dtype)
    assert w.requires_grad and w.grad_fn is None
    m = w.detach().numpy().reshape(shape[0], -1) / 2.0
    small = min(m.shape)
    gram = m @ m.T if m.shape[0] == small else m.T @ m
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-5)


def test_orthogonal_is_haar_distributed_in_sign():
    # the diag(R) sign fix makes Q's entries symmetric around zero (no bias to + on the diagonal)
    diag = [ilt.nn.init.orthogonal_(ilt.empty(3, 3)).numpy().diagonal() for _ in range(400)]
    assert abs(np.mean(np.sign(diag))) < 0.15


def test_orthogonal_errors_and_empty():
    for lib in (torch, ilt):
        with pytest.raises(ValueError, match="^Only tensors with 2 or more dimensions are "
                                             "supported$"):
            lib.nn.init.orthogonal_(lib.empty(3))
    e = ilt.empty(0, 3)
    assert ilt.nn.init.orthogonal_(e) is e and e._version == 0


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, -1.0, 2.0),
                                          (0.0, 0.02, -0.04, 0.04), (0.0, 1.0, 0.5, 3.0)])
def test_trunc_normal_draws_and_versions_match_torch(mean, std, a, b):
    # torch 2.13: normal_ and redraws when [a, b] holds > 30% of the mass, else rejection
    # sampling from uniform candidates; the same seed gives the same values
    ilt.manual_seed(4)
    w = ilt.nn.Parameter(ilt.empty(200, 500, dtype=ilt.float64))
    assert ilt.nn.init.trunc_normal_(w, mean, std, a, b) is w
    torch.manual_seed(4)
    tw = torch.nn.Parameter(torch.empty(200, 500, dtype=torch.float64))
    torch.nn.init.trunc_normal_(tw, mean, std, a, b)
    assert w._version == tw._version and w.requires_grad and w.grad_fn is None
    x, tx = w.detach().numpy(), tw.detach().numpy()
    assert a <= x.min() and x.max() <= b
    np.testing.assert_allclose(x, tx, rtol=1e-12, atol=1e-15)  # (libm vs numpy: 1 ulp)


def test_trunc_normal_warns_as_torch_when_mean_is_far_from_the_interval():
    msgs = []
    for lib in (torch, ilt):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.init.trunc_normal_(lib.empty(10), mean=5.0, std=1.0, a=-1.0, b=1.0)
        msgs.append([str(x.message) for x in w])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1


def _pd(lib):
    return lib.nn.ParameterDict({"b": lib.nn.Parameter(lib.ones(2)), "a": lib.zeros(2, 3)})


def test_parameter_dict_registers_sorted_plain_dict_and_converts_tensors():
    t, i = _pd(torch), _pd(ilt)
    assert repr(i) == repr(t)
    assert list(i.keys()) == list(t.keys()) == ["a", "b"]
    assert list(i.state_dict()) == list(t.state_dict())
    assert isinstance(i["a"], ilt.nn.Parameter) and i["a"].requires_grad
    assert [n for n, _ in i.named_parameters()] == [n for n, _ in t.named_parameters()]
    for lib, pd in ((torch, t), (ilt, i)):
        pd["c"] = 3
        pd["d"] = lib.ones(1, dtype=lib.float64)
    assert repr(i) == repr(t) and i.c == 3 and len(i) == len(t) == 4 and "c" in i
    assert [n for n, _ in i.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert i.pop("a").shape == (2, 3) and list(i.keys()) == ["b", "c", "d"]
    assert "a" not in dict(i.named_parameters())
    k, v = i.popitem()
    assert k == "d" and v.dtype == ilt.float64
    assert i.get("zz", 7) == 7 and i.setdefault("e", ilt.ones(1)).shape == (1,)
    assert list(i.copy().keys()) == list(i.keys())
    i.clear()
    assert len(i) == 0 and list(i.parameters()) == [] and repr(i) == repr(torch.nn.ParameterDict())


def test_parameter_dict_keeps_order_of_sequences_and_trains():
    i = ilt.nn.ParameterDict([("z", ilt.ones(2)), ("y", ilt.ones(3))])
    assert list(i.keys()) == ["z", "y"]
    (i["z"].sum() * 2 + i["y"].sum()).backward()
    assert i["z"].grad.tolist() == [2.0, 2.0] and i["y"].grad.tolist() == [1.0] * 3
    with pytest.raises(ValueError, match="^ParameterDict update sequence element #0 has length "
                                         "3; 2 is required$"):
        ilt.nn.ParameterDict([("a", 1, 2)])
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        torch.nn.ParameterDict([("a", 1, 2)])
