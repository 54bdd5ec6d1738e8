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


@pytest.mark.parametrize("lens", [[5, 4], [4, 1], [5, 2], [3, 3]])
def test_pack_lengths_past_the_padded_length(lens):
    """ATen lists a batch size for every step up to the longest length, but its slices of the
    input stop at the padded length."""
    t, i = both(lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.arange(6.).view(3, 2),
                                                                   lens))
    assert i.data.tolist() == t.data.tolist() and i.batch_sizes.tolist() == t.batch_sizes.tolist()


def test_packed_sequence_construction_and_int_padding():
    def run(lib):
        R = lib.nn.utils.rnn
        a = R.PackedSequence(lib.ones(3), lib.tensor([2, 1]))
        b = R.PackedSequence((lib.ones(3), lib.tensor([2, 1])))
        p = R.pack_sequence([lib.ones(2, dtype=lib.int64), lib.ones(1, dtype=lib.int64)])
        padded = R.pad_packed_sequence(p, batch_first=True, padding_value=-1)
        ip = R.pad_sequence([lib.ones(2, dtype=lib.int32), lib.ones(3, dtype=lib.int32)],
                            padding_value=2.7)
        return repr(a), repr(b), repr(p), repr(padded), repr(ip)
    t, i = both(run)
    assert i == t


@pytest.mark.parametrize("case", range(12))
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
        if case == 8:
            return R.pack_padded_sequence(x, lib.tensor([[3, 1]]), batch_first=True)
        if case == 9:
            return R.pack_padded_sequence(lib.ones(3), [3])
        if case == 10:
            return R.pad_packed_sequence(R.pack_sequence([lib.ones(3), lib.ones(1)]),
                                         total_length=3.5)
        if case == 11:
            return R.pad_sequence([lib.ones(2, 3), lib.ones(2, 4)])
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


# ---------------------------------------------------------------- parametrize
class _Sym:
    """Symmetric(): forward and right_inverse, built on either library's nn.Module."""

    @staticmethod
    def make(lib):
        class Symmetric(lib.nn.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).transpose(-1, -2)

            def right_inverse(self, A):
                return A.triu()
        return Symmetric()


def _split(lib):
    class Split(lib.nn.Module):
        def forward(self, a, b):
            return a + 2 * b

        def right_inverse(self, w):
            return (w * 0.5, w * 0.25)
    return Split()


def _linear(lib, n_in=3, n_out=3, seed=0):
    m = lib.nn.Linear(n_in, n_out)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(arr(seed, n_out, n_in)))
        m.bias.copy_(lib.tensor(arr(seed + 1, n_out)))
    return m


def test_register_parametrization_swaps_class_and_moves_original():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        w0 = m.weight
        P.register_parametrization(m, "weight", _Sym.make(lib))
        y = m(lib.ones(2, 3))
        (y * y).sum().backward()
        return (m, w0, type(m).__name__, P.type_before_parametrizations(m).__name__,
                [n for n, _ in m.named_parameters()], list(m.state_dict()),
                m.parametrizations.weight.original is w0, w0._version,
                P.is_parametrized(m), P.is_parametrized(m, "bias"), y)
    t, i = both(run)
    assert i[2:10] == t[2:10]
    assert i[2] == "ParametrizedLinear" and i[3] == "Linear"
    close(t[0].weight, i[0].weight)
    assert gname(i[0].weight) == gname(t[0].weight)
    close(t[10], i[10])
    close(t[1].grad, i[1].grad)
    assert repr(i[0]) == repr(t[0])


def test_parametrized_assignment_runs_right_inverse_in_place():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, "weight", _Sym.make(lib))
        orig = m.parametrizations.weight.original
        v0 = orig._version
        m.weight = lib.tensor(arr(5, 3, 3))
        with P.cached():
            same = m.weight is m.weight
        return orig, v0, orig._version, same, m.weight is m.weight, m.weight
    t, i = both(run)
    close(t[0], i[0])
    close(t[5], i[5])
    assert i[1:5] == t[1:5]


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_restores_class(leave):
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        w0 = m.weight
        P.register_parametrization(m, "weight", _Sym.make(lib))
        P.register_parametrization(m, "weight", _Sym.make(lib))
        n_chain = len(m.parametrizations.weight)
        P.remove_parametrizations(m, "weight", leave_parametrized=leave)
        return (m.weight, type(m).__name__, m.weight is w0, w0._version, n_chain,
                hasattr(m, "parametrizations"), [n for n, _ in m.named_parameters()])
    t, i = both(run)
    close(t[0], i[0])
    assert i[1:] == t[1:]


def test_parametrization_with_a_sequence_of_originals():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib, 2, 2)
        P.register_parametrization(m, "weight", _split(lib))
        names = [n for n, _ in m.named_parameters()]
        m(lib.ones(1, 2)).sum().backward()
        g0 = m.parametrizations.weight.original0.grad
        g1 = m.parametrizations.weight.original1.grad
        w = m.weight
        with pytest.raises(ValueError) as e:
            P.remove_parametrizations(m, "weight", leave_parametrized=False)
        P.remove_parametrizations(m, "weight")
        return names, g0, g1, w, str(e.value), type(m.weight).__name__, m.weight.requires_grad
    t, i = both(run)
    assert i[0] == t[0] and i[4:] == t[4:]
    for a, b in zip(t[1:4], i[1:4]):
        close(a, b)


@pytest.mark.parametrize("case", range(5))
def test_parametrize_errors_match_torch(case):
    def run(lib):
        P = lib.nn.utils.parametrize
        if case == 0:
            return P.register_parametrization(_linear(lib, 2, 2), "foo", _Sym.make(lib))
        if case == 1:
            return P.register_parametrization(_linear(lib, 2, 3), "weight", _Sym.make(lib))
        if case == 2:
            return P.remove_parametrizations(lib.nn.Linear(2, 2), "weight")
        if case == 3:
            return P.register_parametrization(lib.nn.Linear(2, 2), "bias", lib.nn.Linear(2, 3))
        m = P.register_parametrization(_linear(lib, 2, 2), "weight", _Sym.make(lib))
        import pickle
        return pickle.dumps(m)
    same_error(run)


def test_parametrized_module_in_a_facade_tree_and_state_dict():
    def run(lib):
        P = lib.nn.utils.parametrize
        seq = lib.nn.Sequential(P.register_parametrization(_linear(lib), "weight",
                                                           _Sym.make(lib)), lib.nn.ReLU())
        sd = seq.state_dict()
        seq2 = lib.nn.Sequential(P.register_parametrization(lib.nn.Linear(3, 3), "weight",
                                                            _Sym.make(lib)), lib.nn.ReLU())
        r = seq2.load_state_dict(sd)
        seq2.double()
        return (type(seq[0]).__name__, isinstance(seq[0], lib.nn.Linear), list(sd), repr(seq),
                list(r.missing_keys), str(seq2[0].weight.dtype),
                type(seq2[0].parametrizations.weight.original).__name__), seq2[0].weight
    t, i = both(run)
    assert i[0] == t[0]
    close(t[1], i[1])


def test_parametrizations_reprs_and_state_dict_keys():
    def run(lib):
        out = []
        for f in (lib.nn.utils.parametrizations.weight_norm,
                  lib.nn.utils.parametrizations.spectral_norm,
                  lib.nn.utils.parametrizations.orthogonal):
            m = f(lib.nn.Linear(3, 2))
            out.append((repr(m), list(m.state_dict()), [n for n, _ in m.named_buffers()]))
        return out
    t, i = both(run)
    assert i == t


def test_parametrized_module_deepcopies():
    import copy

    def run(lib):
        m = lib.nn.utils.parametrize.register_parametrization(_linear(lib), "weight",
                                                               _Sym.make(lib))
        c = copy.deepcopy(m)
        return type(c).__name__, c.weight, c.parametrizations.weight.original is \
            m.parametrizations.weight.original
    t, i = both(run)
    assert i[0] == t[0] and i[2] == t[2]
    close(t[1], i[1])


# ---------------------------------------------------------------- parametrizations
@pytest.mark.parametrize("dim", [0, 1, -1, None])
def test_parametrizations_weight_norm(dim):
    def run(lib):
        m = _linear(lib, 3, 2)
        lib.nn.utils.parametrizations.weight_norm(m, dim=dim)
        y = m(lib.tensor(arr(3, 4, 3)))
        (y * y).sum().backward()
        p = m.parametrizations.weight
        return m.weight, y, p.original0, p.original1.grad, p.original0.grad, \
            [n for n, _ in m.named_parameters()]
    t, i = both(run)
    for a, b in zip(t[:5], i[:5]):
        close(a, b)
    assert gname(i[0]) == gname(t[0]) and i[5] == t[5]


@pytest.mark.parametrize("conv", [False, True])
@pytest.mark.parametrize("train", [True, False])
def test_parametrizations_spectral_norm_same_u_v(conv, train):
    def run(lib):
        m = lib.nn.ConvTranspose2d(2, 3, 2) if conv else _linear(lib, 4, 3)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(arr(7, *m.weight.shape)))
        lib.nn.utils.parametrizations.spectral_norm(m)
        sn = m.parametrizations.weight[0]
        with lib.no_grad():
            sn._u.copy_(lib.tensor(arr(8, *sn._u.shape)))
            sn._v.copy_(lib.tensor(arr(9, *sn._v.shape)))
        m.train(train)
        w = m.weight
        (w * lib.tensor(arr(10, *w.shape))).sum().backward()
        return w, sn._u, sn._v, sn._u._version, m.parametrizations.weight.original.grad
    t, i = both(run)
    for a, b in zip(t[:3], i[:3]):
        close(a, b, 1e-4)
    assert i[3] == t[3] and gname(i[0]) == gname(t[0])
    close(t[4], i[4], 1e-4)


@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_parametrizations_orthogonal(omap, shape):
    if omap != "householder" and shape == (4, 2):
        shape = (2, 4)

    def run(lib):
        m = lib.nn.Linear(shape[1], shape[0])
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap,
                                                 use_trivialization=False)
        with lib.no_grad():
            m.parametrizations.weight.original.copy_(lib.tensor(arr(11, *shape) * 0.5))
        w = m.weight
        (w * lib.tensor(arr(12, *shape))).sum().backward()
        return w, m.parametrizations.weight.original.grad, type(m).__name__
    t, i = both(run)
    close(t[0], i[0], 1e-4)
    close(t[1], i[1], 1e-4)
    assert i[2] == t[2]


@pytest.mark.parametrize("omap", [None, "cayley", "householder"])
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_orthogonal_right_inverse_with_trivialization(omap, shape):
    """The weight keeps its value (its orthogonal part), ``original`` becomes -I and the
    orthogonal matrix moves into the ``base`` buffer; gradients reach ``original``."""
    if omap == "cayley" and shape[0] != shape[1]:
        shape = (3, 3)

    def run(lib):
        m = _linear(lib, shape[1], shape[0])
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap)
        q = m.weight
        (q * lib.tensor(arr(13, *shape))).sum().backward()
        base = m.parametrizations.weight[0].base
        n, k = max(shape), min(shape)
        return q, m.parametrizations.weight.original, base[..., :k], \
            m.parametrizations.weight.original.grad, tuple(base.shape), n
    t, i = both(run)
    # (a non-square base is completed by random columns, which the gradient then sees)
    for a, b in zip(t[:4] if shape[0] == shape[1] else t[:3], i):
        close(a, b, 1e-5)
    assert i[4] == t[4]


# ---------------------------------------------------------------- legacy weight_norm / spectral_norm
@pytest.mark.parametrize("dim", [0, 1, None, -1, 2])
def test_legacy_weight_norm_and_removal(dim):
    def run(lib):
        conv = dim in (2, -1)
        m = lib.nn.Conv1d(2, 3, 2) if conv else _linear(lib, 3, 2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(arr(13, *m.weight.shape)))
            m.bias.copy_(lib.tensor(arr(14, *m.bias.shape)))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.utils.weight_norm(m, dim=dim)
        msgs = [(x.category, str(x.message), x.filename.rsplit("/", 1)[-1]) for x in w]
        names = [n for n, _ in m.named_parameters()]
        y = m(lib.tensor(arr(15, 1, 2, 4) if conv else arr(15, 2, 3)))
        (y * y).sum().backward()
        wfn = gname(m.weight)
        lib.nn.utils.remove_weight_norm(m)
        with pytest.raises(ValueError) as e:
            lib.nn.utils.remove_weight_norm(m)
        return (y, None, msgs, names, wfn,
                [n for n, _ in m.named_parameters()], m.weight, str(e.value).split(" found")[0])
    t, i = both(run)
    close(t[0], i[0])
    close(t[6], i[6])
    assert i[2:6] == t[2:6] and i[7] == t[7]


def test_legacy_weight_norm_grads_and_double_registration():
    def run(lib):
        m = _linear(lib, 3, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.nn.utils.weight_norm(m)
            y = m(lib.tensor(arr(16, 2, 3)))
            (y * y).sum().backward()
            with pytest.raises(RuntimeError) as e:
                lib.nn.utils.weight_norm(m)
        return m.weight_g, m.weight_g.grad, m.weight_v.grad, str(e.value)
    t, i = both(run)
    for a, b in zip(t[:3], i[:3]):
        close(a, b)
    assert i[3] == t[3]


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("n_iter", [1, 3])
def test_legacy_spectral_norm_same_u_v(train, n_iter):
    def run(lib):
        m = lib.nn.Conv2d(2, 3, 2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(arr(17, *m.weight.shape)))
            m.bias.copy_(lib.tensor(arr(21, *m.bias.shape)))
        lib.nn.utils.spectral_norm(m, n_power_iterations=n_iter)
        with lib.no_grad():
            m.weight_u.copy_(lib.tensor(arr(18, *m.weight_u.shape)))
            m.weight_v.copy_(lib.tensor(arr(19, *m.weight_v.shape)))
        m.train(train)
        names = ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()])
        y = m(lib.tensor(arr(20, 1, 2, 3, 3)))
        y.sum().backward()
        out = (y, m.weight, m.weight_u, m.weight_v, m.weight_u._version,
               m.weight_orig.grad, names, gname(m.weight))
        lib.nn.utils.remove_spectral_norm(m)
        return out + (m.weight, [n for n, _ in m.named_parameters()])
    t, i = both(run)
    for k in (0, 1, 2, 3, 5, 8):
        close(t[k], i[k], 1e-4)
    assert i[4] == t[4] and i[6] == t[6] and i[7] == t[7] and i[9] == t[9]


# ---------------------------------------------------------------- fusion, skip_init
def _bn(lib, n, seed):
    bn = lib.nn.BatchNorm2d(n) if n > 0 else None
    with lib.no_grad():
        bn.weight.copy_(lib.tensor(arr(seed, n)))
        bn.bias.copy_(lib.tensor(arr(seed + 1, n)))
        bn.running_mean.copy_(lib.tensor(arr(seed + 2, n)))
        bn.running_var.copy_(lib.tensor(np.abs(arr(seed + 3, n)) + 0.5))
    return bn.eval()


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_conv_bn_eval(transpose, bias):
    def run(lib):
        conv = (lib.nn.ConvTranspose2d if transpose else lib.nn.Conv2d)(2, 3, 2, bias=bias)
        with lib.no_grad():
            conv.weight.copy_(lib.tensor(arr(30, *conv.weight.shape)))
            if bias:
                conv.bias.copy_(lib.tensor(arr(31, 3)))
        conv.eval()
        bn = _bn(lib, 3, 32)
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        x = lib.tensor(arr(33, 1, 2, 4, 4))
        return fused(x), bn(conv(x)), fused.weight, fused.bias, type(fused).__name__, \
            fused.weight.requires_grad, fused.bias.requires_grad, fused is conv, \
            type(fused.weight).__name__
    t, i = both(run)
    for k in range(4):
        close(t[k], i[k], 1e-4)
    assert i[4:] == t[4:]
    close(i[0], i[1], 1e-4)


def test_fuse_linear_bn_eval_and_errors():
    def run(lib):
        lin = _linear(lib, 3, 3).eval()
        bn = lib.nn.BatchNorm1d(3)
        with lib.no_grad():
            bn.running_mean.copy_(lib.tensor(arr(40, 3)))
            bn.running_var.copy_(lib.tensor(np.abs(arr(41, 3)) + 0.5))
        bn.eval()
        fused = lib.nn.utils.fuse_linear_bn_eval(lin, bn)
        x = lib.tensor(arr(42, 2, 3))
        errs = []
        for f in (lambda: lib.nn.utils.fuse_linear_bn_eval(lin.train(), bn),
                  lambda: lib.nn.utils.fuse_linear_bn_eval(_linear(lib, 3, 2).eval(), bn)):
            with pytest.raises(AssertionError) as e:
                f()
            errs.append(str(e.value))
        return fused(x), fused.weight, fused.bias, errs
    t, i = both(run)
    for k in range(3):
        close(t[k], i[k], 1e-5)
    assert i[3] == t[3]


def test_skip_init():
    def run(lib):
        m = lib.nn.utils.skip_init(lib.nn.Linear, 3, 2, bias=False)
        errs = []
        for f in (lambda: lib.nn.utils.skip_init(int), lambda: lib.nn.utils.skip_init(
                lib.nn.Module)):
            with pytest.raises(RuntimeError) as e:
                f()
            errs.append(str(e.value))
        return type(m).__name__, tuple(m.weight.shape), m.bias, str(m.weight.dtype), \
            m.weight.requires_grad, errs
    t, i = both(run)
    assert i == t


# ---------------------------------------------------------------- functional_call
def _net(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = _linear(lib, 3, 3, seed=50)
            self.b = _linear(lib, 3, 2, seed=52)
            self.register_buffer("scale", lib.tensor(2.0))

        def forward(self, x, shift=0.0):
            return self.b(self.a(x).relu() * self.scale) + shift
    return Net()


@pytest.mark.parametrize("api", ["func", "stateless"])
def test_functional_call_swaps_for_one_call(api):
    def run(lib):
        net = _net(lib)
        w = lib.tensor(arr(60, 3, 3), requires_grad=True)
        params = {"a.weight": w, "scale": lib.tensor(0.5)}
        x = lib.tensor(arr(61, 4, 3))
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            if api == "func":
                y = lib.func.functional_call(net, params, (x,), {"shift": 1.0})
            else:
                y = lib.nn.utils.stateless.functional_call(net, params, x, {"shift": 1.0})
        y.sum().backward()
        return y, w.grad, net.a.weight.grad, net.a.weight, net.scale, \
            [(c.category.__name__, str(c.message)) for c in ws], net(x)
    t, i = both(run)
    for k in (0, 1, 3, 4, 6):
        close(t[k], i[k])
    assert (i[2] is None) == (t[2] is None)
    assert i[5] == t[5]


def test_functional_call_tie_weights_strict_and_errors():
    def run(lib):
        net = _net(lib)
        net.c = net.a  # the same Linear twice: a.weight and c.weight are tied
        x = lib.tensor(arr(62, 1, 3))
        w = lib.tensor(arr(63, 3, 3))
        tied = lib.func.functional_call(net, {"c.weight": w}, (x,))
        untied = lib.func.functional_call(net, {"c.weight": w}, (x,), tie_weights=False)
        two = lib.func.functional_call(net, ({"a.weight": w}, {"b.bias": lib.zeros(2)}), x)
        errs = []
        for f in (lambda: lib.func.functional_call(net, {"a.weight": w, "c.weight": w * 2}, x),
                  lambda: lib.func.functional_call(net, {"a.weight": w, "zzz": w}, x,
                                                   strict=True),
                  lambda: lib.func.functional_call(net, ({"a.weight": w}, {"a.weight": w}), x),
                  lambda: lib.func.functional_call(net, 3, x),
                  lambda: lib.func.functional_call(net, {"a.weight": 3}, x)):
            with pytest.raises(Exception) as e:
                f()
            errs.append((type(e.value).__name__, str(e.value)))
        return tied, untied, two, errs, net.a.weight
    t, i = both(run)
    for k in (0, 1, 2, 4):
        close(t[k], i[k])
    assert i[3] == t[3]


# ---------------------------------------------------------------- the same on cuda
def test_packing_weight_norm_and_packed_lstm_on_cuda_match_cpu():
    """Forward and backward of the two kernels here (``_pack_padded_sequence``,
    ``_weight_norm_interface``) and a packed LSTM on ``cuda`` (the simulated GPU of
    cupy_like where there is none) against the CPU."""
    from inplace_lab.nn.utils.weight_norm import _weight_norm
    from tests.differential.cupy_like import any_gpu

    def run(dev):
        R = il.nn.utils.rnn
        x = il.tensor(arr(70, 4, 3, 2), device=dev, requires_grad=True)
        p = R.pack_padded_sequence(x, il.tensor([4, 1, 3]), enforce_sorted=False)
        lstm = il.nn.LSTM(2, 3, bidirectional=True)
        with il.no_grad():
            for k, w in enumerate(lstm.parameters()):
                w.copy_(il.tensor(arr(71 + k, *w.shape)))
        lstm.to(dev)
        out, (h, c) = lstm(p)
        padded, lengths = R.pad_packed_sequence(out, batch_first=True)
        v = il.tensor(arr(80, 3, 4), device=dev, requires_grad=True)
        g = il.tensor(arr(81, 3, 1), device=dev, requires_grad=True)
        w = _weight_norm(v, g, 0)
        ((padded ** 2).sum() + h.sum() + (w * w).sum()).backward()
        assert str(padded.device).startswith(dev) and lengths.device.type == "cpu"
        return [t.detach().cpu().numpy() for t in (p.data, padded, h, c, w, x.grad, v.grad,
                                                    g.grad)]
    cpu = run("cpu")
    with any_gpu():
        gpu = run("cuda")
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_convert_conv_weight_memory_format():
    if not hasattr(il, "channels_last"):
        pytest.skip("memory formats are not in this build of the torch facade")

    def run(lib):
        net = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 2), lib.nn.Sequential(
            lib.nn.ConvTranspose2d(3, 2, 2)), lib.nn.Linear(2, 2))
        w = [m.weight for m in (net[0], net[1][0], net[2])]
        lib.nn.utils.convert_conv2d_weight_memory_format(net, lib.channels_last)
        return [(m.weight.stride(), m.weight is o, m.weight._version)
                for m, o in zip((net[0], net[1][0], net[2]), w)]
    t, i = both(run)
    assert i == t


@pytest.mark.parametrize("shape", [(4, 2), (2, 4), (3, 3)])
def test_orthogonal_householder_without_trivialization_keeps_q(shape):
    """Registering runs right_inverse: geqrf's reflectors (R's diagonal signs on the diagonal)
    become ``original``, so the weight is the weight's own orthogonal QR factor."""
    def run(lib):
        m = lib.nn.Linear(shape[1], shape[0]).double()
        w0 = lib.tensor(arr(90, *shape).astype(np.float64))
        with lib.no_grad():
            m.weight.copy_(w0)
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map="householder",
                                                 use_trivialization=False)
        first = (m.weight, m.parametrizations.weight.original)
        m.weight = w0 * 2
        m.weight.sum().backward()
        return first + (m.weight, m.parametrizations.weight.original.grad)
    t, i = both(run)
    for a, b in zip(t, i):
        close(a, b, 1e-9)


def test_geqrf_matches_torch():
    from inplace_lab.nn.utils.parametrizations import _geqrf

    for shape in [(4, 3), (3, 3), (2, 5, 3), (3, 5)]:
        a = arr(91, *shape).astype(np.float64)
        ta, ttau = torch.geqrf(torch.tensor(a))
        ia, itau = _geqrf(il.tensor(a))
        close(ta, ia, 1e-10)
        close(ttau, itau, 1e-10)
    a = np.array([[1., 2.], [0., 3.], [0., 1.]])  # a column already reduced: tau 0
    close(torch.geqrf(torch.tensor(a))[1], _geqrf(il.tensor(a))[1], 1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_packed_rnn_random_configurations(seed):
    """Random kind, depth, direction, layout, lengths and dtype; eval mode (dropout off);
    padded output, every h_n / c_n and every gradient against torch."""
    rng = np.random.default_rng(seed)
    kind = ["RNN", "LSTM", "GRU"][seed % 3]
    layers, bi, bf = int(rng.integers(1, 4)), bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    B, T = int(rng.integers(1, 5)), int(rng.integers(1, 6))
    dt = ["float64", "float32"][seed % 2]
    lens = sorted(rng.integers(1, T + 1, size=B).tolist(), reverse=True)
    lens[0] = T
    es = bool(rng.integers(0, 2))
    if not es:
        rng.shuffle(lens)
    src = f"{kind}(3, 4, num_layers={layers}, bidirectional={bi}, batch_first={bf})"
    tm = eval("torch.nn." + src).to(getattr(torch, dt)).eval()
    im = eval("il.nn." + src).to(getattr(il, dt)).eval()
    im.load_state_dict({k: il.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    xa = rng.standard_normal((B, T, 3) if bf else (T, B, 3))

    def run(lib, m):
        x = lib.tensor(xa, dtype=getattr(lib, dt), requires_grad=True)
        p = lib.nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=bf, enforce_sorted=es)
        o, h = m(p)
        hs = h if isinstance(h, tuple) else (h,)
        pad, _ = lib.nn.utils.rnn.pad_packed_sequence(o, batch_first=bf, total_length=T + 1)
        (pad.sin().sum() + sum((k + 2) * hh.cos().sum() for k, hh in enumerate(hs))).backward()
        return [pad, *hs, x.grad] + [w.grad for w in m.parameters()]
    tol = 1e-9 if dt == "float64" else 2e-5
    for a, b in zip(run(torch, tm), run(il, im)):
        close(a, b, tol)


# ---------------------------------------------------------------- prune
def _prune(lib):
    import importlib

    return importlib.import_module(lib.__name__ + ".nn.utils.prune")


def test_prune_l1_then_ln_structured_container_and_remove():
    def run(lib):
        prune = _prune(lib)
        m = _linear(lib, 4, 3)
        w0 = m.weight
        prune.l1_unstructured(m, "weight", amount=0.5)
        first = ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()],
                 m.weight_orig is w0, gname(m.weight), type(m.weight).__name__)
        y = m(lib.ones(2, 4))
        y.sum().backward()
        prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
        hook = list(m._forward_pre_hooks.values())[0]
        chain = (type(hook).__name__, [type(x).__name__ for x in hook])
        prune.l1_unstructured(m, "bias", amount=1, importance_scores=lib.tensor([3., 1., 2.]))
        pruned = (prune.is_pruned(m), prune.is_pruned(_linear(lib)))
        masks = (m.weight_mask.clone(), m.bias_mask)
        prune.remove(m, "weight")
        after = ([n for n, _ in m.named_parameters()], m.weight is w0, w0._version)
        return first, chain, pruned, after, y, w0.grad, masks, m.weight
    t, i = both(run)
    assert i[:4] == t[:4]
    for a, b in zip(t[4:6] + t[6] + t[7:], i[4:6] + i[6] + i[7:]):
        close(a, b)


def test_prune_global_custom_identity_and_prune_method():
    def run(lib):
        prune = _prune(lib)
        a, b = _linear(lib, 4, 3, seed=1), _linear(lib, 3, 2, seed=2)
        prune.global_unstructured([(a, "weight"), (b, "weight"), (a, "bias")],
                                  pruning_method=prune.L1Unstructured, amount=7)
        c = _linear(lib, 4, 3, seed=3)
        prune.custom_from_mask(c, "weight", mask=lib.tensor([[1, 0, 1, 0]] * 3))
        prune.identity(c, "bias")
        d = _linear(lib, 4, 3, seed=4)
        prune.ln_structured(d, "weight", amount=0.34, n=float("inf"), dim=1)
        prune.l1_unstructured(d, "weight", amount=3)
        return (a.weight_mask, b.weight_mask, a.bias_mask, c.weight, c.bias_mask, d.weight_mask,
                prune.L1Unstructured(amount=2).prune(lib.tensor([3., -1., 2., 0.5])))
    t, i = both(run)
    for x, y in zip(t, i):
        close(x, y)


def test_prune_random_methods_prune_the_right_amount():
    def run(lib):
        prune = _prune(lib)
        m = _linear(lib, 4, 3)
        prune.random_unstructured(m, "weight", amount=5)
        n = _linear(lib, 4, 3)
        prune.random_structured(n, "weight", amount=2, dim=1)
        return int((m.weight_mask == 0).sum()), int((n.weight_mask.sum(0) == 0).sum()), \
            int((n.weight_mask.sum(1) == 0).sum())
    t, i = both(run)
    assert i == t == (5, 2, 0)


@pytest.mark.parametrize("case", range(7))
def test_prune_errors_match_torch(case):
    def run(lib):
        prune = _prune(lib)
        m = _linear(lib, 4, 3)
        args = [("weight", 1.5), ("weight", -1), ("weight", 20), ("weight", "a")]
        if case < 4:
            return prune.l1_unstructured(m, args[case][0], amount=args[case][1])
        if case == 4:
            return prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
        if case == 5:
            return prune.ln_structured(m, "weight", amount=1, n=2, dim=3)
        return prune.remove(m, "weight")
    same_error(run)
