"""``paddle.nn`` recurrent and attention layers against Paddle 3.3.1: with the same weights
(copied in with ``set_value``) the outputs, final states, input gradients and parameter
gradients agree; parameter names, shapes, ``state_dict`` keys and reprs are Paddle's."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")

import inplace_lab.paddle as ip  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)
LIBS = [paddle, ip]
RNG = np.random.default_rng(0)
X = RNG.standard_normal([2, 4, 3]).astype("f4")


def _flat(tree):
    if isinstance(tree, (list, tuple)):
        return [t for part in tree for t in _flat(part)]
    return [tree] if hasattr(tree, "shape") else []


def run(expr, inputs, kwargs=None, train=True, backward=True):
    """Build ``paddle.nn.<expr>`` in each library with the same weights, call it on
    ``inputs`` (numpy; floats get gradients), backpropagate a fixed weighted sum of every
    tensor it returns; one record per library."""
    recs, weights = [], None
    for lib in LIBS:
        layer = eval("lib.nn." + expr, {"lib": lib})
        sd = layer.state_dict()
        if weights is None:
            weights = {k: (RNG.standard_normal(list(v.shape)) * 0.5).astype("f4")
                       for k, v in sd.items()}
        for k, v in sd.items():
            v.set_value(weights[k])
        if not train:
            layer.eval()
        xs = [lib.to_tensor(a, stop_gradient=a.dtype.kind != "f") for a in inputs]
        kw = {k: lib.to_tensor(v) for k, v in (kwargs or {}).items()}
        outs = _flat(layer(*xs, **kw))
        loss = sum((t * lib.to_tensor(np.linspace(-1, 1, int(np.prod(t.shape)), dtype="f4")
                                      .reshape(list(t.shape)))).sum() for t in outs)
        if backward:
            loss.backward()
        recs.append({
            "repr": repr(layer), "keys": list(sd.keys()),
            "params": [(n, list(p.shape), p.stop_gradient) for n, p in layer.named_parameters()],
            "outs": [t.numpy() for t in outs], "xgrad": [x.grad.numpy() for x in xs
                                                        if x.grad is not None],
            "pgrad": [None if p.grad is None else p.grad.numpy()
                      for _, p in layer.named_parameters()]})
    return recs


def check(expr, inputs, kwargs=None, train=True, rtol=1e-4, atol=1e-5, backward=True):
    want, got = run(expr, inputs, kwargs, train, backward)
    for k in ("repr", "keys", "params"):
        assert got[k] == want[k], k
    for name in ("outs", "xgrad", "pgrad"):
        assert len(got[name]) == len(want[name]), name
        for a, b in zip(want[name], got[name]):
            if a is None or b is None:  # (no gradient on one side)
                assert a is b, name
                continue
            assert a.shape == b.shape, name
            np.testing.assert_allclose(b, a, rtol=rtol, atol=atol, err_msg=name)


# ---------------------------------------------------------------- cells
H = RNG.standard_normal([2, 4]).astype("f4")


@pytest.mark.parametrize("expr", ["SimpleRNNCell(3, 4)", "SimpleRNNCell(3, 4, 'relu')",
                                  "GRUCell(3, 4)"])
def test_cell_with_given_state_matches_paddle(expr):
    check(expr, [X[:, 0], H])


def test_lstm_cell_with_given_states_matches_paddle():
    """``(h, (h, c))`` out; gradients reach x, h, c and the weights."""
    want, got = [], []
    for lib, rec in zip(LIBS, (want, got)):
        cell = lib.nn.LSTMCell(3, 4)
        for v in cell.state_dict().values():
            v.set_value(np.linspace(-0.5, 0.5, int(np.prod(v.shape)), dtype="f4")
                        .reshape(list(v.shape)))
        x = lib.to_tensor(X[:, 0], stop_gradient=False)
        h, c = (lib.to_tensor(a, stop_gradient=False) for a in (H, H * 0.5))
        out, (h1, c1) = cell(x, (h, c))
        assert out is h1
        (out * 2 + c1 * c1).sum().backward()
        rec += [out.numpy(), c1.numpy(), x.grad.numpy(), h.grad.numpy(), c.grad.numpy(),
                cell.weight_hh.grad.numpy(), cell.bias_ih.grad.numpy()]
    for a, b in zip(want, got):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("expr", ["SimpleRNNCell(3, 4)", "LSTMCell(3, 4)", "GRUCell(3, 4)"])
def test_cell_without_state_starts_from_zeros(expr):
    check(expr, [X[:, 0]])


def test_projected_lstm_cell_starts_from_zeros_of_the_right_sizes():
    """Paddle's ``LSTMCell(proj_size>0).state_shape`` swaps h [proj] and c [hidden], so its
    call without states raises a matmul shape error (a Paddle bug, not copied): the facade
    starts from zeros h [B, proj], c [B, hidden], as Paddle does when they are given."""
    want, got = [], []
    for lib, rec in zip(LIBS, (want, got)):
        cell = lib.nn.LSTMCell(3, 5, proj_size=2)
        for v in cell.state_dict().values():
            v.set_value(np.linspace(-0.5, 0.5, int(np.prod(v.shape)), dtype="f4")
                        .reshape(list(v.shape)))
        x = lib.to_tensor(X[:, 0])
        states = None if lib is ip else (lib.zeros([2, 2]), lib.zeros([2, 5]))
        out, (h, c) = cell(x, states)
        rec += [out.numpy(), c.numpy()]
    assert got[0].shape == (2, 2) and got[1].shape == (2, 5)
    for a, b in zip(want, got):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lib", LIBS, ids=["paddle", "facade"])
def test_cell_parameters_are_named_after_the_cell(lib):
    cell = lib.nn.GRUCell(3, 5)
    names = [(n, list(p.shape), p.name.split(".")[1]) for n, p in cell.named_parameters()]
    assert names == [("weight_ih", [15, 3], "w_0"), ("weight_hh", [15, 5], "w_1"),
                     ("bias_ih", [15], "b_0"), ("bias_hh", [15], "b_1")]
    assert cell.weight_ih.name.startswith("gru_cell_")
    bound = 1 / np.sqrt(5)
    assert all(np.abs(p.numpy()).max() <= bound for p in cell.parameters())


@pytest.mark.parametrize("lib", LIBS, ids=["paddle", "facade"])
def test_false_attr_gives_a_frozen_constant_not_none(lib):
    cell = lib.nn.SimpleRNNCell(2, 3, weight_hh_attr=False, bias_ih_attr=False)
    assert cell.weight_hh.stop_gradient and cell.bias_ih.stop_gradient
    np.testing.assert_array_equal(cell.weight_hh.numpy(), np.ones([3, 3], "f4"))
    np.testing.assert_array_equal(cell.bias_ih.numpy(), np.zeros([3], "f4"))


@pytest.mark.parametrize("expr,msg", [
    ("SimpleRNNCell(3, 0)", "hidden_size of SimpleRNNCell must be greater than 0, but now "
                            "equals to 0"),
    ("SimpleRNNCell(3, 4, 'sigmoid')", "activation for SimpleRNNCell should be tanh or relu, "
                                       "but get sigmoid"),
    ("LSTMCell(3, 4, proj_size=4)", "proj_size must be smaller than hidden_size"),
    ("SimpleRNN(3, 4, activation='gelu')", "Unknown activation 'gelu'"),
    ("GRU(3, 4, direction='backward')", "direction should be forward or bidirect (or "
                                        "bidirectional), received direction = backward")])
def test_constructor_errors_match_paddle(expr, msg):
    for lib in LIBS:
        with pytest.raises(ValueError) as e:
            eval("lib.nn." + expr, {"lib": lib})
        assert str(e.value) == msg


# ---------------------------------------------------------------- stacked layers
STACKS = ["SimpleRNN(3, 4)", "SimpleRNN(3, 4, 2, activation='relu')", "LSTM(3, 4)",
          "LSTM(3, 4, 2, direction='bidirect')", "GRU(3, 4, direction='bidirectional')",
          "GRU(3, 4, 2, time_major=True)", "LSTM(3, 5, proj_size=2)"]


@pytest.mark.parametrize("expr", STACKS)
def test_stacked_layer_matches_paddle(expr):
    """Outputs, final states and every gradient."""
    check(expr, [X])


def test_stacked_layer_with_dropout_in_eval_matches_paddle():
    """In eval mode the dropout between layers is the identity. (Paddle's backward through
    its fused kernel then fails, 'Tensor holds no memory': only the forward is compared.)"""
    check("SimpleRNN(3, 4, 3, direction='bidirect', dropout=0.5)", [X], train=False,
          backward=False)


@pytest.mark.parametrize("expr", ["GRU(3, 4, 2, direction='bidirect')",
                                  "LSTM(3, 4, 2, direction='bidirect')", "SimpleRNN(3, 4)"])
def test_sequence_length_matches_paddles_fused_kernel(expr):
    """Padded steps: zero outputs, frozen states; the reverse pass starts at the last real
    step of each sequence."""
    check(expr, [X], {"sequence_length": np.array([2, 4], "int64")})


def test_sequence_length_with_time_major_input_matches_paddle():
    check("LSTM(3, 4, direction='bidirect', time_major=True)", [X],
          {"sequence_length": np.array([1, 2, 2, 1], "int64")})


def test_given_initial_states_match_paddle():
    h0 = RNG.standard_normal([2, 2, 4]).astype("f4")
    check("GRU(3, 4, direction='bidirect')", [X, h0])
    want, got = [], []
    for lib, rec in zip(LIBS, (want, got)):
        layer = lib.nn.LSTM(3, 4, 2)
        for k, v in layer.state_dict().items():
            v.set_value(np.linspace(-0.4, 0.4, int(np.prod(v.shape)), dtype="f4")
                        .reshape(list(v.shape)))
        h = lib.to_tensor(h0, stop_gradient=False)
        c = lib.to_tensor(h0 * 0.3, stop_gradient=False)
        y, (hn, cn) = layer(lib.to_tensor(X), (h, c))
        (y.sum() + (hn * cn).sum()).backward()
        rec += [y.numpy(), hn.numpy(), cn.numpy(), h.grad.numpy(), c.grad.numpy()]
    for a, b in zip(want, got):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call", [
    "lib.nn.LSTM(3, 4)(lib.ones([2, 4, 5]))",
    "lib.nn.GRU(3, 4)(lib.ones([2, 4, 3]), lib.ones([1, 3, 4]))",
    "lib.nn.GRU(3, 4)(lib.ones([4, 3]))",
    "lib.nn.GRU(3, 4)(lib.ones([2, 4, 3, 1]))",
    "lib.nn.GRU(3, 4, time_major=True)(lib.ones([4, 3]))",
    "lib.nn.GRU(3, 4)(lib.ones([2, 4, 3]), lib.ones([2, 2, 4]))",
    "lib.nn.GRU(3, 4, 2, direction='bidirect')(lib.ones([2, 4, 3]), lib.ones([2, 2, 4]))",
    "lib.nn.GRU(3, 4)(lib.ones([2, 4, 3]), lib.ones([1, 2, 5]))",
    "lib.nn.GRU(3, 4)(lib.ones([2, 4, 3]), lib.ones([1, 2]))",
    "lib.nn.LSTM(3, 4)(lib.ones([2, 4, 3]), (lib.ones([1, 2, 4]), lib.ones([1, 2, 5])))",
    "lib.nn.LSTM(3, 4)(lib.ones([2, 4, 3]), lib.ones([1, 2, 4]))",
    "lib.nn.GRUCell(3, 4)(lib.ones([2, 5]))",
    "lib.nn.LSTMCell(3, 4)(lib.ones([2, 3]), (lib.ones([2, 5]), lib.ones([2, 4])))",
    "lib.nn.MultiHeadAttention(8, 3)",
    "lib.nn.MultiHeadAttention(8, 2)(lib.ones([2, 3, 6]))",
])
def test_bad_inputs_raise_paddles_errors(call):
    """Stacked layers: the fused ``rnn`` kernel's checks; cells: matmul's shape error."""
    errs = []
    for lib in LIBS:
        with pytest.raises(Exception) as e:
            eval(call, {"lib": lib})
        builtin = next(c for c in type(e.value).__mro__ if c.__module__ == "builtins")
        errs.append((builtin, str(e.value).split("\n")[0].split(" (at /paddle")[0]))
    assert errs[1] == errs[0]


@pytest.mark.parametrize("lib", LIBS, ids=["paddle", "facade"])
def test_stacked_layer_parameters_are_the_cells(lib):
    layer = lib.nn.LSTM(3, 4, 2, direction="bidirect")
    assert layer.weight_hh_l1_reverse is layer[1].cell_bw.weight_hh
    assert len(layer.parameters()) == 16
    assert len(layer.state_dict()) == 32
    assert layer.weight_ih_l1.name == layer[1].cell_fw.weight_ih.name
    assert layer.weight_ih_l1.name.endswith(".w_0")


@pytest.mark.parametrize("lib", LIBS, ids=["paddle", "facade"])
def test_rnn_wrapper_keeps_state_through_padding(lib):
    """The single-cell ``RNN`` wrapper (Paddle's composed path) does not zero padded
    outputs; only the state is held."""
    cell = lib.nn.GRUCell(3, 4)
    for v in cell.parameters():
        v.set_value(np.full(v.shape, 0.1, "f4"))
    y, h = lib.nn.RNN(cell)(lib.to_tensor(X), sequence_length=lib.to_tensor([2, 4]))
    np.testing.assert_allclose(h.numpy()[0], y.numpy()[0, 1], rtol=1e-6)
    assert np.abs(y.numpy()[0, 3]).sum() > 0


def test_rnn_and_birnn_wrappers_match_paddle():
    for make in ("RNN(lib.nn.LSTMCell(3, 4), is_reverse=True)",
                 "BiRNN(lib.nn.GRUCell(3, 4), lib.nn.GRUCell(3, 4))"):
        check(make, [X])


# ---------------------------------------------------------------- attention
Q = RNG.standard_normal([2, 3, 8]).astype("f4")
K = RNG.standard_normal([2, 5, 6]).astype("f4")
V = RNG.standard_normal([2, 5, 4]).astype("f4")


@pytest.mark.parametrize("expr,inputs", [
    ("MultiHeadAttention(8, 2)", [Q]),
    ("MultiHeadAttention(8, 2, need_weights=True)", [Q]),
    ("MultiHeadAttention(8, 4, kdim=6, vdim=4, need_weights=True)", [Q, K, V]),
    ("MultiHeadAttention(8, 4, kdim=6, vdim=4)", [Q, K, V, RNG.random([2, 1, 3, 5]) > 0.3]),
    ("MultiHeadAttention(8, 4, kdim=6, vdim=4)",
     [Q, K, V, (RNG.random([3, 5]) > 0.3).astype("int64")]),
    ("MultiHeadAttention(8, 4, kdim=6, vdim=4)", [Q, K, V, RNG.standard_normal([3, 5])
                                                   .astype("f4")]),
    ("MultiHeadAttention(8, 2, bias_attr=False)", [Q]),
    ("MultiHeadAttention(8, 2, dropout=0.5)", [Q]),
])
def test_multi_head_attention_matches_paddle(expr, inputs):
    check(expr, inputs, train="dropout" not in expr)


@pytest.mark.parametrize("lib", LIBS, ids=["paddle", "facade"])
def test_multi_head_attention_projections_are_in_out_linears(lib):
    mha = lib.nn.MultiHeadAttention(8, 2, kdim=6, vdim=4)
    shapes = [(n, list(p.shape)) for n, p in mha.named_parameters()]
    assert shapes == [("q_proj.weight", [8, 8]), ("q_proj.bias", [8]),
                      ("k_proj.weight", [6, 8]), ("k_proj.bias", [8]),
                      ("v_proj.weight", [4, 8]), ("v_proj.bias", [8]),
                      ("out_proj.weight", [8, 8]), ("out_proj.bias", [8])]
    assert mha.head_dim == 4


def test_multi_head_attention_caches_match_paddle():
    """An incremental Cache grows by the new keys; a StaticCache is reused as is."""
    res = []
    for lib in LIBS:
        mha = lib.nn.MultiHeadAttention(8, 2)
        for k, v in mha.state_dict().items():
            v.set_value(np.linspace(-0.3, 0.3, int(np.prod(v.shape)), dtype="f4")
                        .reshape(list(v.shape)))
        q = lib.to_tensor(Q)
        cache = mha.gen_cache(q)
        out1, cache = mha(q, q, q, None, cache)
        out2, cache = mha(q, q, q, None, cache)
        static = mha.gen_cache(q, q, type=mha.StaticCache)
        out3, _ = mha(q, None, None, None, static)
        res.append([out1.numpy(), out2.numpy(), cache.k.numpy(), out3.numpy()])
    assert res[1][2].shape == res[0][2].shape == (2, 2, 6, 4)
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def _has_dropout():
    return hasattr(ip.nn.functional, "dropout")


@pytest.mark.skipif(not _has_dropout(), reason="facade F.dropout (helper A) missing")
@pytest.mark.parametrize("expr,inputs", [
    ("TransformerEncoderLayer(8, 2, 16, dropout=0.0)", [Q]),
    ("TransformerEncoderLayer(8, 2, 16)", [Q]),
    ("TransformerEncoderLayer(8, 2, 16, activation='gelu', normalize_before=True)",
     [Q, RNG.random([2, 2, 3, 3]) > 0.2]),
    ("TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2, "
     "lib.nn.LayerNorm(8))", [Q]),
])
def test_transformer_encoder_matches_paddle(expr, inputs):
    check(expr, inputs, train="dropout=0.0" in expr)


MEM = RNG.standard_normal([2, 5, 8]).astype("f4")


@pytest.mark.skipif(not _has_dropout(), reason="facade F.dropout (helper A) missing")
@pytest.mark.parametrize("expr,inputs", [
    ("TransformerDecoderLayer(8, 2, 16, dropout=0.0)", [Q, MEM]),
    ("TransformerDecoderLayer(8, 2, 16, normalize_before=True)",
     [Q, MEM, np.triu(np.full([3, 3], -1e9, "f4"), 1), RNG.random([2, 1, 3, 5]) > 0.3]),
    ("TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2, "
     "lib.nn.LayerNorm(8))", [Q, MEM]),
    ("Transformer(8, 2, 1, 2, 16, dropout=0.0)", [MEM, Q]),
    ("Transformer(8, 2, 2, 1, 16, weight_attr=[None, None, None], bias_attr=[None, False])",
     [MEM, Q]),
])
def test_transformer_decoder_matches_paddle(expr, inputs):
    check(expr, inputs, train="dropout=0.0" in expr)


@pytest.mark.parametrize("lib", LIBS, ids=["paddle", "facade"])
def test_transformer_parameter_names_and_square_mask(lib):
    model = lib.nn.Transformer(8, 2, 1, 1, 16, bias_attr=[None, False])
    names = [n for n, _ in model.named_parameters()]
    assert names[:3] == ["encoder.layers.0.self_attn.q_proj.weight",
                         "encoder.layers.0.self_attn.q_proj.bias",
                         "encoder.layers.0.self_attn.k_proj.weight"]
    assert "decoder.layers.0.linear1.bias" not in names
    assert "decoder.layers.0.cross_attn.out_proj.bias" in names
    assert len(names) == 42
    mask = model.generate_square_subsequent_mask(3).numpy()
    np.testing.assert_array_equal(mask, np.triu(np.full([3, 3], -np.inf, "f4"), 1))


def test_decoder_caches_match_paddle():
    """Step-by-step decoding: the incremental cache grows, the static one is reused."""
    res = []
    for lib in LIBS:
        dec = lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2)
        for v in dec.state_dict().values():
            v.set_value(np.linspace(-0.3, 0.3, int(np.prod(v.shape)), dtype="f4")
                        .reshape(list(v.shape)))
        mem = lib.to_tensor(MEM)
        cache = dec.gen_cache(mem)
        outs = []
        for t in range(2):
            out, cache = dec(lib.to_tensor(Q[:, t:t + 1]), mem, cache=cache)
            outs.append(out.numpy())
        res.append(outs + [cache[1][0].k.numpy()])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not _has_dropout(), reason="facade F.dropout (helper A) missing")
def test_attention_dropout_one_leaves_only_the_output_bias():
    """p=1 in training drops every attention weight: the output is out_proj's bias."""
    mha = ip.nn.MultiHeadAttention(8, 2, dropout=1.0)
    out = mha(ip.to_tensor(Q))
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(mha.out_proj.bias.numpy(),
                                                            [2, 3, 8]), atol=1e-6)
    mha.eval()
    assert np.abs(out.numpy() - mha(ip.to_tensor(Q)).numpy()).max() > 1e-3


@pytest.mark.skipif(not _has_dropout(), reason="facade F.dropout (helper A) missing")
def test_rnn_dropout_one_feeds_zeros_to_the_next_layer():
    """Between layers only: with p=1 layer 2 sees zeros, so it equals layer 2 on zeros."""
    net = ip.nn.SimpleRNN(3, 4, 2, dropout=1.0)
    y, h = net(ip.to_tensor(X))
    y2, _ = net[1](ip.zeros([2, 4, 4]))
    np.testing.assert_allclose(y.numpy(), y2.numpy(), atol=1e-6)


@pytest.mark.parametrize("call", [
    "lib.nn.LSTMCell(3, 4).get_initial_states(lib.ones([5, 3]), init_value=0.5)",
    "lib.nn.GRUCell(3, 4).get_initial_states(lib.ones([2, 5, 3]), shape=[7], "
    "dtype='float64', batch_dim_idx=1)",
    "lib.nn.SimpleRNNCell(3, 4).get_initial_states(lib.ones([6, 3]), shape=[-1, 2])",
])
def test_get_initial_states_matches_paddle(call):
    got = []
    for lib in LIBS:
        states = _flat(eval(call, {"lib": lib}))
        got.append([(list(s.shape), str(s.dtype).split(".")[-1], s.stop_gradient,
                     s.numpy().tolist()) for s in states])
    assert got[1] == got[0]


def test_encoder_layer_incremental_cache_matches_paddle():
    res = []
    for lib in LIBS:
        enc = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
        for v in enc.state_dict().values():
            v.set_value(np.linspace(-0.3, 0.3, int(np.prod(v.shape)), dtype="f4")
                        .reshape(list(v.shape)))
        cache = enc.gen_cache(lib.to_tensor(Q))
        outs = []
        for t in range(3):
            out, cache = enc(lib.to_tensor(Q[:, t:t + 1]), None, cache)
            outs.append(out.numpy())
        res.append(outs + [cache.k.numpy(), cache.v.numpy()])
    for a, b in zip(*res):
        assert a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
