"""torch.nn.utils beyond clipping, against torch 2.13: packed sequences (rnn), RNN modules on
a PackedSequence, parametrize / parametrizations, legacy weight_norm and spectral_norm,
conv/linear + batch-norm fusion, skip_init and functional_call. Each test runs one program
on both libraries and compares values, gradients, grad_fn names, versions and errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as il  # noqa: E402


def arr(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def both(fn):
    """fn(lib) on torch and on inplace_lab."""
    return fn(torch), fn(il)


def close(a, b, tol=1e-5):
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)


def gname(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def same_error(fn):
    with pytest.raises(Exception) as te:
        fn(torch)
    with pytest.raises(Exception) as ie:
        fn(il)
    assert type(ie.value).__name__ == type(te.value).__name__
    assert str(ie.value) == str(te.value)


# ---------------------------------------------------------------- torch.nn.utils.rnn
def _seqs(lib, lens=(3, 2, 4), feat=(2,)):
    return [lib.tensor(arr(10 + i, n, *feat), requires_grad=True) for i, n in enumerate(lens)]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("feat", [(2,), (), (2, 3)])
def test_pad_sequence_values_graph_and_grads(batch_first, side, feat):
    def run(lib):
        s = _seqs(lib, feat=feat)
        p = lib.nn.utils.rnn.pad_sequence(s, batch_first=batch_first, padding_value=-1.5,
                                          padding_side=side)
        (p * lib.arange(p.numel(), dtype=p.dtype).view(p.shape)).sum().backward()
        return p, s
    (tp, ts), (ip, is_) = both(run)
    close(tp, ip)
    assert gname(ip) == gname(tp) == "CopySlices" and ip._version == tp._version
    for a, b in zip(ts, is_):
        close(a.grad, b.grad)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("lengths_kind", ["list", "tensor"])
def test_pack_padded_sequence_matches_torch(batch_first, enforce_sorted, lengths_kind):
    lens = [4, 3, 1] if enforce_sorted else [3, 4, 1]

    def run(lib):
        shape = (3, 4, 2) if batch_first else (4, 3, 2)
        x = lib.tensor(arr(1, *shape), requires_grad=True)
        ln = lens if lengths_kind == "list" else lib.tensor(lens)
        p = lib.nn.utils.rnn.pack_padded_sequence(x, ln, batch_first=batch_first,
                                                  enforce_sorted=enforce_sorted)
        (p.data * lib.arange(p.data.numel(), dtype=p.data.dtype).view(p.data.shape)).sum()\
            .backward()
        return x, p
    (tx, tp), (ix, ip) = both(run)
    assert type(ip).__name__ == "PackedSequence" and ip._fields == tp._fields
    close(tp.data, ip.data)
    assert gname(ip.data) == gname(tp.data) == "PackPaddedSequenceBackward0"
    assert ip.data.grad_fn.next_functions[0][0].name() == tp.data.grad_fn.next_functions[0][0]\
        .name()
    for k in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        a, b = getattr(tp, k), getattr(ip, k)
        assert (a is None) == (b is None)
        if a is not None:
            assert b.tolist() == a.tolist() and str(b.dtype) == str(a.dtype)
    close(tx.grad, ix.grad)
    assert ix.grad._version == tx.grad._version
    assert ix.grad.stride() == tx.grad.stride()
    assert repr(ip).replace("inplace_lab.", "") == repr(tp)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("total_length", [None, 6])
def test_pad_packed_sequence_round_trip(batch_first, enforce_sorted, total_length):
    def run(lib):
        s = _seqs(lib, lens=(4, 3, 1) if enforce_sorted else (3, 4, 1))
        p = lib.nn.utils.rnn.pack_sequence(s, enforce_sorted=enforce_sorted)
        out, lengths = lib.nn.utils.rnn.pad_packed_sequence(
            p, batch_first=batch_first, padding_value=7.0, total_length=total_length)
        (out * lib.arange(out.numel(), dtype=out.dtype).view(out.shape)).sum().backward()
        return out, lengths, s
    (to, tl, ts), (io, il_, is_) = both(run)
    close(to, io)
    assert io.stride() == to.stride() and gname(io) == gname(to) and io._version == to._version
    assert il_.tolist() == tl.tolist() and str(il_.dtype) == str(tl.dtype)
    for a, b in zip(ts, is_):
        close(a.grad, b.grad)


def test_unpack_and_unpad_sequence():
    def run(lib):
        s = _seqs(lib, lens=(2, 5, 3))
        p = lib.nn.utils.rnn.pack_sequence(s, enforce_sorted=False)
        back = lib.nn.utils.rnn.unpack_sequence(p)
        padded = lib.nn.utils.rnn.pad_sequence(s)
        un = lib.nn.utils.rnn.unpad_sequence(padded, lib.tensor([2, 5, 3]))
        sum(b.sum() * (k + 1) for k, b in enumerate(back + un)).backward()
        return back, un, padded, s
    (tb, tu, tp, ts), (ib, iu, ip, is_) = both(run)
    for a, b in zip(tb + tu, ib + iu):
        close(a, b)
        assert gname(b) == gname(a)
    assert ip.shape == tp.shape and ip.stride() == tp.stride() and ip._version == tp._version
    for a, b in zip(ts, is_):
        close(a.grad, b.grad)


def test_packed_sequence_methods():
    def run(lib):
        p = lib.nn.utils.rnn.pack_sequence(_seqs(lib, lens=(1, 3)), enforce_sorted=False)
        d = p.double()
        return p, d, p.to(p.data.dtype) is p, p.is_cuda, p.long(), p.cpu() is p
    t, i = both(run)
    assert str(i[1].data.dtype) == str(t[1].data.dtype) == "torch.float64"
    assert i[1].sorted_indices.tolist() == t[1].sorted_indices.tolist()
    assert i[2:4] == t[2:4] and i[5] == t[5]
    assert str(i[4].data.dtype) == "torch.int64" and gname(i[1].data) == gname(t[1].data)
    assert isinstance(i[0], tuple) and isinstance(i[0], il.nn.utils.rnn.PackedSequence)


def test_invert_permutation():
    t, i = both(lambda lib: lib.nn.utils.rnn.invert_permutation(lib.tensor([2, 0, 3, 1])))
    assert i.tolist() == t.tolist()
    assert il.nn.utils.rnn.invert_permutation(None) is None


@pytest.mark.parametrize("case", range(8))
def test_packing_errors_match_torch(case):
    def run(lib):
        R = lib.nn.utils.rnn
        x = lib.tensor(arr(0, 2, 3, 2))
        if case == 0:
            return R.pack_padded_sequence(x, [1, 3], batch_first=True)
        if case == 1:
            return R.pack_padded_sequence(x, [3, 0], batch_first=True)
        if case == 2:
            return R.pack_padded_sequence(x, [3], batch_first=True)
        if case == 3:
            return R.pack_padded_sequence(lib.zeros(0, 2), [1, 1])
        if case == 4:
            return R.pad_sequence([])
        if case == 5:
            return R.pad_sequence([x], padding_side="middle")
        if case == 6:
            return R.pad_sequence(3)
        p = R.pack_padded_sequence(x, [3, 1], batch_first=True)
        return R.pad_packed_sequence(p, total_length=2)
    same_error(run)


# ---------------------------------------------------------------- RNN modules on packed input
def _rnn_pair(src):
    t = eval("nn." + src, {"nn": torch.nn})
    i = eval("nn." + src, {"nn": il.nn})
    i.load_state_dict({k: il.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, i


@pytest.mark.parametrize("src", ["RNN(3, 4)", "RNN(3, 4, nonlinearity='relu', num_layers=2)",
                                 "GRU(3, 4, bidirectional=True)",
                                 "LSTM(3, 4, num_layers=2, bidirectional=True)",
                                 "LSTM(3, 4, batch_first=True, bias=False)"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("with_hx", [False, True])
def test_rnn_modules_on_packed_sequences(src, enforce_sorted, with_hx):
    tm, im = _rnn_pair(src)
    lens = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    bf = tm.batch_first
    lstm = "LSTM" in src
    ndir = 2 if tm.bidirectional else 1

    def run(lib, m):
        x = lib.tensor(arr(2, *((4, 5, 3) if bf else (5, 4, 3))), requires_grad=True)
        p = lib.nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=bf,
                                                  enforce_sorted=enforce_sorted)
        hx = None
        if with_hx:
            h0 = lib.tensor(arr(3, m.num_layers * ndir, 4, 4), requires_grad=True)
            hx = (h0, lib.tensor(arr(4, m.num_layers * ndir, 4, 4), requires_grad=True)) \
                if lstm else h0
        out, h = m(p, hx)
        hn = h if not lstm else h[0]
        padded, _ = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=bf)
        loss = (padded ** 2).sum() + (hn * 3).sum() + (h[1].sum() if lstm else 0)
        loss.backward()
        return out, h, padded, x, hx
    t, i = run(torch, tm), run(il, im)
    assert type(i[0]).__name__ == "PackedSequence"
    close(t[0].data, i[0].data)
    assert gname(i[0].data) == gname(t[0].data)
    for a, b in zip(t[0][1:], i[0][1:]):
        assert (a is None) == (b is None) and (a is None or a.tolist() == b.tolist())
    th, ih = (t[1], i[1]) if lstm else ((t[1],), (i[1],))
    for a, b in zip(th, ih):
        close(a, b)
        assert gname(b) == gname(a)
    close(t[2], i[2])
    close(t[3].grad, i[3].grad, 1e-4)
    if with_hx:
        for a, b in zip(t[4] if lstm else (t[4],), i[4] if lstm else (i[4],)):
            close(a.grad, b.grad, 1e-4)
    for (n, a), (_, b) in zip(tm.named_parameters(), im.named_parameters()):
        close(a.grad, b.grad, 1e-4)


def test_rnn_packed_input_errors():
    def run(lib, case):
        m = lib.nn.GRU(3, 4)
        R = lib.nn.utils.rnn
        if case == 0:
            return m(R.pack_padded_sequence(lib.zeros(5, 3, 2), [5, 3, 2]))
        if case == 1:
            return m(R.pack_padded_sequence(lib.zeros(5, 3, 3), [5, 3, 2]), lib.zeros(1, 2, 4))
        return m(R.PackedSequence(lib.zeros(4, 3, 3), lib.tensor([2, 2])))
    for case in range(3):
        same_error(lambda lib: run(lib, case))
