"""RNN / LSTM / GRU and their cells vs torch 2.13: same weights (copied through state_dict),
same outputs, hidden states and parameter/input grads; reprs, state_dict keys, init range,
error texts for the common shape mistakes."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as ilt  # noqa: E402


def pair(src, dtype):
    t = eval("nn." + src, {"nn": torch.nn}).to(dtype)
    i = eval("nn." + src, {"nn": ilt.nn})
    i.to(getattr(ilt, str(dtype).split(".")[1]))
    sd = {k: ilt.tensor(v.detach().numpy()) for k, v in t.state_dict().items()}
    i.load_state_dict(sd)
    return t, i


def leaf(arr, lib):
    return lib.tensor(arr, requires_grad=True)


def check(t_out, i_out, tol):
    t_flat = [t_out] if isinstance(t_out, torch.Tensor) else list(t_out)
    i_flat = [i_out] if not isinstance(i_out, tuple) else list(i_out)
    assert len(t_flat) == len(i_flat)
    for a, b in zip(t_flat, i_flat):
        if isinstance(a, tuple):
            check(a, b, tol)
            continue
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **tol)


def flat(out):
    if isinstance(out, tuple):
        return [y for x in out for y in flat(x)]
    return [out]


TOL = {"float64": {"rtol": 1e-10, "atol": 1e-12}, "float32": {"rtol": 1e-4, "atol": 1e-5}}

MODELS = [
    ("RNN(4, 5)", (3, 2, 4), None),
    ("RNN(4, 5, nonlinearity='relu', num_layers=2, bias=False)", (3, 2, 4), None),
    ("LSTM(4, 5)", (3, 2, 4), None),
    ("LSTM(4, 5, num_layers=2, batch_first=True)", (2, 3, 4), None),
    ("LSTM(4, 5, num_layers=2, bidirectional=True)", (3, 2, 4), "h0"),
    ("LSTM(4, 5)", (3, 4), "h0"),
    ("GRU(4, 5)", (3, 2, 4), "h0"),
    ("GRU(4, 5, num_layers=3, bidirectional=True, batch_first=True)", (2, 3, 4), None),
    ("GRU(4, 5, bias=False)", (3, 4), None),
    ("RNN(4, 5, bidirectional=True)", (3, 4), "h0"),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("src,shape,h0", MODELS)
def test_forward_and_all_grads_match_torch(src, shape, h0, dtype):
    tdt = getattr(torch, dtype)
    t, i = pair(src, tdt)
    assert repr(i) == repr(t)
    rng = np.random.default_rng(0)
    x = rng.normal(size=shape).astype(dtype)
    tx, ix = leaf(x, torch), leaf(x, ilt)
    targs, iargs = [tx], [ix]
    if h0:
        ndir = 2 if t.bidirectional else 1
        hshape = (t.num_layers * ndir,) + ((shape[0 if t.batch_first else 1],)
                                           if len(shape) == 3 else ()) + (t.hidden_size,)
        hs = [rng.normal(size=hshape).astype(dtype) for _ in range(2 if "LSTM" in src else 1)]
        th, ih = [leaf(h, torch) for h in hs], [leaf(h, ilt) for h in hs]
        targs.append(tuple(th) if len(hs) == 2 else th[0])
        iargs.append(tuple(ih) if len(hs) == 2 else ih[0])
    to, io = t(*targs), i(*iargs)
    check(to, io, TOL[dtype])
    w = [rng.normal(size=tuple(o.shape)).astype(dtype) for o in flat(to)]
    sum((o * torch.tensor(c)).sum() for o, c in zip(flat(to), w)).backward()
    sum((o * ilt.tensor(c)).sum() for o, c in zip(flat(io), w)).backward()
    tp, ip = dict(t.named_parameters()), dict(i.named_parameters())
    assert list(tp) == list(ip)
    for k in tp:
        np.testing.assert_allclose(ip[k].grad.numpy(), tp[k].grad.numpy(), **TOL[dtype],
                                   err_msg=k)
    np.testing.assert_allclose(ix.grad.numpy(), tx.grad.numpy(), **TOL[dtype])
    if h0:
        for a, b in zip(th, ih):
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), **TOL[dtype])


CELLS = [("RNNCell(4, 5)", 1), ("RNNCell(4, 5, bias=False, nonlinearity='relu')", 1),
         ("LSTMCell(4, 5)", 2), ("GRUCell(4, 5)", 1), ("GRUCell(4, 5, bias=False)", 1)]


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_h", [True, False])
@pytest.mark.parametrize("src,nh", CELLS)
def test_cells_match_torch(src, nh, with_h, batched):
    t, i = pair(src, torch.float64)
    assert repr(i) == repr(t)
    rng = np.random.default_rng(1)
    lead = (3,) if batched else ()
    x = rng.normal(size=lead + (4,))
    tx, ix = leaf(x, torch), leaf(x, ilt)
    targs, iargs = [tx], [ix]
    if with_h:
        hs = [rng.normal(size=lead + (5,)) for _ in range(nh)]
        th, ih = [leaf(h, torch) for h in hs], [leaf(h, ilt) for h in hs]
        targs.append(tuple(th) if nh == 2 else th[0])
        iargs.append(tuple(ih) if nh == 2 else ih[0])
    to, io = t(*targs), i(*iargs)
    check(to, io, TOL["float64"])
    sum((o * o).sum() for o in flat(to)).backward()
    sum((o * o).sum() for o in flat(io)).backward()
    for (k, a), (k2, b) in zip(t.named_parameters(), i.named_parameters()):
        assert k == k2
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ix.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


REPRS = ["LSTM(10, 20, num_layers=2, batch_first=True)",
         "RNN(10, 20, nonlinearity='relu', num_layers=2, bias=False, batch_first=True, "
         "dropout=0.5, bidirectional=True)", "GRU(3, 4)", "RNNCell(3, 4, nonlinearity='relu')",
         "LSTMCell(3, 4, bias=False)", "GRUCell(3, 4)"]


@pytest.mark.parametrize("src", REPRS)
def test_repr_state_dict_and_init_range(src):
    t, i = eval("nn." + src, {"nn": torch.nn}), eval("nn." + src, {"nn": ilt.nn})
    assert repr(i) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in i.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    bound = 1 / np.sqrt(t.hidden_size)
    for p in i.parameters():
        assert p.dtype == ilt.float32 and p.requires_grad and p._version == 1
        assert np.abs(p.detach().numpy()).max() <= bound


ERRORS = [
    ("RNN(3, 4, nonlinearity='x')", None, None),
    ("LSTM(3, 0)", None, None),
    ("LSTM(3, 4, num_layers=0)", None, None),
    ("LSTM(3, 4, dropout=2)", None, None),
    ("LSTM(3, 4)", "x4", None),
    ("LSTM(3, 4)", "x5", None),
    ("LSTM(3, 4)", "x", "(m.zeros(1, 3, 5), m.zeros(1, 3, 4))"),
    ("LSTM(3, 4)", "x", "(m.zeros(1, 3, 4), m.zeros(1, 2, 4))"),
    ("LSTM(3, 4)", "x", "(m.zeros(1, 3), m.zeros(1, 3))"),
    ("GRU(3, 4)", "x", "m.zeros(1, 3)"),
    ("GRU(3, 4)", "x2", "m.zeros(1, 3, 4)"),
    ("GRU(3, 4)", "x", "m.zeros(2, 3, 4)"),
    ("GRUCell(3, 4)", "x", None),
    ("GRUCell(3, 4)", "c5", None),
    ("GRUCell(3, 4)", "c", "m.zeros(3, 4)"),
    ("GRUCell(3, 4)", "c", "m.zeros(2, 5)"),
    ("LSTMCell(3, 4)", "c", "(m.zeros(2, 4),)"),
    ("RNNCell(3, 4, nonlinearity='x')", "c", None),
]
INPUTS = {"x4": (2, 3, 4, 5), "x5": (2, 3, 5), "x": (2, 3, 3), "x2": (2, 3), "c5": (2, 5),
          "c": (2, 3)}


@pytest.mark.parametrize("src,inp,hx", ERRORS)
def test_errors_match_torch(src, inp, hx):
    def run(m):
        mod = eval("nn." + src, {"nn": m.nn})
        if inp is None:
            return
        args = [m.zeros(*INPUTS[inp])] + ([eval(hx, {"m": m})] if hx else [])
        mod(*args)

    with pytest.raises(Exception) as te:
        run(torch)
    with pytest.raises(type(te.value)) as ie:
        run(ilt)
    assert str(ie.value) == str(te.value)


def test_dropout_warning_for_one_layer_and_dropout_between_layers():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.nn.LSTM(3, 4, dropout=0.5)
        ilt.nn.LSTM(3, 4, dropout=0.5)
    assert len(w) == 2 and str(w[0].message) == str(w[1].message)
    m = ilt.nn.GRU(3, 4, num_layers=2, dropout=1.0)
    x = ilt.ones(2, 1, 3)
    out_train = m(x)[0]
    m.eval()
    out_eval = m(x)[0]
    # with every first-layer output dropped the second layer sees zeros: h depends on biases only
    m2 = ilt.nn.GRU(4, 4, num_layers=1)
    m2.load_state_dict({k[:-1] + "0": v for k, v in m.state_dict().items() if k.endswith("l1")})
    np.testing.assert_allclose(out_train.detach().numpy(), m2(ilt.zeros(2, 1, 4))[0].detach().numpy(),
                               rtol=1e-6)
    assert not np.allclose(out_eval.detach().numpy(), out_train.detach().numpy())
