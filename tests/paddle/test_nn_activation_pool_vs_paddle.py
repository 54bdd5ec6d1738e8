"""``paddle.nn`` activation, pooling and vision layers against Paddle 3.3.1: the same input
(and the same parameter values, copied in with ``set_value``) gives the same repr, output,
input gradient, parameter names, shapes and gradients."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")

import inplace_lab.paddle as ip  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)
LIBS = [paddle, ip]
RNG = np.random.default_rng(0)
X4 = RNG.standard_normal([2, 4, 3, 2]).astype("f4")
X1 = RNG.standard_normal([2, 3, 9]).astype("f4")
X2 = RNG.standard_normal([2, 3, 7, 6]).astype("f4")
X3 = RNG.standard_normal([2, 2, 5, 6, 4]).astype("f4")


def _missing(names):
    return [n for n in names if not hasattr(ip.nn.functional, n)]


def run_layer(expr, x, fns=(), train=True):
    """Build ``paddle.nn.<expr>`` in each library (same parameter values), run it on ``x``,
    backpropagate ``sum(out * out)``; one record per library."""
    missing = _missing(fns)
    if missing:
        pytest.skip(f"functional {missing} not in the facade yet")
    recs, weights = [], None
    for lib in LIBS:
        layer = eval("lib.nn." + expr, {"lib": lib})
        if weights is None:
            weights = {k: RNG.standard_normal(list(v.shape)).astype("f4")
                       for k, v in layer.state_dict().items()}
        for k, v in layer.state_dict().items():
            v.set_value(weights[k])
        if not train:
            layer.eval()
        t = lib.to_tensor(x, stop_gradient=False)
        y = layer(t)
        outs = list(y) if isinstance(y, tuple) else [y]
        (outs[0] * outs[0]).sum().backward()
        recs.append({
            "repr": repr(layer), "outs": [o.numpy() for o in outs],
            "dtypes": [str(o.dtype).split(".")[-1] for o in outs],
            "xgrad": t.grad.numpy(),
            "params": [(n, list(p.shape), p.name.split(".")[-1], p.stop_gradient)
                       for n, p in layer.named_parameters()],
            "pgrad": [p.grad.numpy() for _, p in layer.named_parameters()]})
    return recs


def check(expr, x, fns=(), train=True, rtol=1e-5, atol=1e-6):
    want, got = run_layer(expr, x, fns, train)
    assert got["repr"] == want["repr"]
    assert got["params"] == want["params"]
    assert got["dtypes"] == want["dtypes"]
    assert len(got["outs"]) == len(want["outs"])
    for a, b in zip(want["outs"], got["outs"]):
        assert a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)
    np.testing.assert_allclose(got["xgrad"], want["xgrad"], rtol=rtol, atol=atol)
    for a, b in zip(want["pgrad"], got["pgrad"]):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=1e-5)


# ---------------------------------------------------------------- activations
ACTIVATIONS = [
    ("CELU(0.5)", ["celu"]), ("ELU()", ["elu"]), ("ELU(0.3, name='e')", ["elu"]),
    ("GELU()", ["gelu"]), ("GELU('tanh')", ["gelu"]),
    ("GLU()", ["glu"]), ("GLU(dim=1)", ["glu"]), ("Hardshrink(lambd=0.3)", ["hardshrink"]),
    ("Hardsigmoid()", ["hardsigmoid"]), ("Hardswish()", ["hardswish"]),
    ("Hardtanh(-0.5, 0.7)", ["hardtanh"]), ("LeakyReLU(0.2)", ["leaky_relu"]),
    ("LogSigmoid()", ["log_sigmoid"]), ("LogSoftmax(1)", ["log_softmax"]),
    ("Maxout(2)", ["maxout"]), ("Maxout(2, axis=-1)", ["maxout"]), ("Mish()", ["mish"]),
    ("PReLU()", ["prelu"]), ("PReLU(4, 0.1)", ["prelu"]),
    ("PReLU(2, data_format='NHWC')", ["prelu"]), ("ReLU()", ["relu"]),
    ("ReLU6(name='r')", ["relu6"]), ("SELU()", ["selu"]), ("SELU(1.5, 2.0)", ["selu"]),
    ("Sigmoid()", ["sigmoid"]), ("Silu()", ["silu"]), ("SiLU()", ["silu"]),
    ("Softmax()", ["softmax"]), ("Softmax(0)", ["softmax"]), ("Softmax2D()", ["softmax"]),
    ("Softplus(2, 10)", ["softplus"]), ("Softshrink(0.2)", ["softshrink"]),
    ("Softsign()", ["softsign"]), ("Swish()", ["swish"]), ("Tanh()", ["tanh"]),
    ("Tanhshrink()", ["tanhshrink"]), ("ThresholdedReLU(0.5, 0.1)", ["thresholded_relu"]),
]


@pytest.mark.parametrize("expr,fns", ACTIVATIONS, ids=[a for a, _ in ACTIVATIONS])
def test_activation_layer_matches_paddle(expr, fns):
    check(expr, X4, fns)


def test_gelu_approximate_true_matches_paddle():
    """``approximate=True`` is the tanh formula, as ``'tanh'`` is."""
    check("GELU(True)", X4, ["gelu"])


def test_rrelu_eval_uses_the_mean_slope():
    check("RReLU(0.1, 0.3)", X4, ["rrelu"], train=False)


def test_rrelu_training_slopes_lie_between_lower_and_upper():
    if _missing(["rrelu"]):
        pytest.skip("functional rrelu not in the facade yet")
    layer = ip.nn.RReLU(0.1, 0.3)
    x = ip.to_tensor(-np.abs(X4) - 0.1)
    slope = (layer(x) / x).numpy()
    assert (slope >= 0.1 - 1e-6).all() and (slope <= 0.3 + 1e-6).all()
    assert repr(layer) == repr(paddle.nn.RReLU(0.1, 0.3))


@pytest.mark.parametrize("lib", LIBS, ids=["paddle", "facade"])
def test_prelu_weight_is_a_quarter_named_after_the_layer(lib):
    layer = lib.nn.PReLU(3)
    (name, w), = layer.named_parameters()
    assert name == "_weight" and list(w.shape) == [3]
    assert w.name.startswith("p_re_lu_") and w.name.endswith(".w_0")
    np.testing.assert_array_equal(w.numpy(), np.full([3], 0.25, "f4"))
    assert not w.stop_gradient


@pytest.mark.parametrize("expr", ["GLU(dim=2)", "Hardshrink(lambd=0.2)",
                                  "Softshrink(lambd=0.2)", "Hardshrink(0.2, name='h')"])
def test_pytorch_keyword_aliases_and_properties(expr):
    for_lib = [eval("lib.nn." + expr, {"lib": lib}) for lib in LIBS]
    assert repr(for_lib[1]) == repr(for_lib[0])
    attr = "dim" if expr.startswith("GLU") else "lambd"
    assert getattr(for_lib[1], attr) == getattr(for_lib[0], attr)
    setattr(for_lib[1], attr, 1)
    assert getattr(for_lib[1], attr) == 1


@pytest.mark.parametrize("expr,fns", [("Maxout(3, axis=2)", ["maxout"]),
                                      ("Maxout(3)", ["maxout"]), ("GLU(2)", ["glu"]),
                                      ("PReLU(3)", ["prelu"])])
def test_activation_forward_errors_match_paddle(expr, fns):
    """Bad settings for this input: the same error class and first message line."""
    if _missing(fns):
        pytest.skip(f"functional {_missing(fns)} not in the facade yet")
    errs = []
    for lib in LIBS:
        with pytest.raises(Exception) as e:
            eval("lib.nn." + expr, {"lib": lib})(lib.to_tensor(X4))
        builtin = next(c for c in type(e.value).__mro__ if c.__module__ == "builtins")
        errs.append((builtin, str(e.value).split("\n")[0].split(" (at /paddle")[0]))
    assert errs[1] == errs[0]


def test_silu_alias_is_the_same_class():
    assert ip.nn.SiLU is ip.nn.Silu
    assert repr(ip.nn.SiLU(True)) == repr(paddle.nn.SiLU(True)) == "Silu(inplace=True)"


def test_softmax2d_refuses_a_2d_input():
    msgs = []
    for lib in LIBS:
        with pytest.raises(AssertionError) as e:
            lib.nn.Softmax2D()(lib.ones([2, 3]))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] == "Softmax2D requires a 3D or 4D tensor as input. Received: 2D."


def test_every_paddle_activation_layer_is_exported():
    from paddle.nn.layer import activation as real

    names = [n for n in dir(real) if isinstance(getattr(real, n), type)
             and issubclass(getattr(real, n), paddle.nn.Layer) and n != "Layer"]
    assert [n for n in names if not hasattr(ip.nn, n)] == []


# ---------------------------------------------------------------- pooling
POOLS = [
    ("AvgPool1D(3, 2, 1)", X1, ["avg_pool1d"]),
    ("AvgPool1D(3, exclusive=False, padding=1)", X1, ["avg_pool1d"]),
    ("MaxPool1D(2)", X1, ["max_pool1d"]), ("MaxPool1D(3, 2, 1, ceil_mode=True)", X1,
                                           ["max_pool1d"]),
    ("AvgPool2D(3, 2, 1)", X2, ["avg_pool2d"]),
    ("AvgPool2D(2, divisor_override=3)", X2, ["avg_pool2d"]),
    ("MaxPool2D(3, 2, 1)", X2, ["max_pool2d"]),
    ("MaxPool2D(2, data_format='NHWC')", X2, ["max_pool2d"]),
    ("AvgPool3D(2)", X3, ["avg_pool3d"]), ("AvgPool3D(2, 1, 1, exclusive=False)", X3,
                                           ["avg_pool3d"]),
    ("MaxPool3D(2, 1)", X3, ["max_pool3d"]),
    ("AdaptiveAvgPool1D(4)", X1, ["adaptive_avg_pool1d"]),
    ("AdaptiveAvgPool2D([3, 2])", X2, ["adaptive_avg_pool2d"]),
    ("AdaptiveAvgPool2d(3)", X2, ["adaptive_avg_pool2d"]),
    ("AdaptiveAvgPool3D(2)", X3, ["adaptive_avg_pool3d"]),
    ("AdaptiveMaxPool1D(4)", X1, ["adaptive_max_pool1d"]),
    ("AdaptiveMaxPool2D(3)", X2, ["adaptive_max_pool2d"]),
    ("AdaptiveMaxPool3D(2)", X3, ["adaptive_max_pool3d"]),
    ("LPPool1D(2, 3)", X1, ["lp_pool1d"]), ("LPPool2D(3, 2)", X2, ["lp_pool2d"]),
    ("LPPool2d(1, 2, 1)", X2, ["lp_pool2d"]),
    ("LPPool1D(2, 3, data_format='NLC')", X1, ["lp_pool1d"]),
    ("MaxPool3D(2, data_format='NDHWC')", X3, ["max_pool3d"]),
    ("AvgPool3D(2, data_format='NDHWC')", X3, ["avg_pool3d"]),
    ("AdaptiveAvgPool3D(2, data_format='NDHWC')", X3, ["adaptive_avg_pool3d"]),
    ("FractionalMaxPool2D(3, random_u=0.3)", X2, ["fractional_max_pool2d"]),
    ("FractionalMaxPool2D([3, 2], kernel_size=2, random_u=0.7, return_mask=True)", X2,
     ["fractional_max_pool2d"]),
    ("FractionalMaxPool3D(2, random_u=0.4)", X3, ["fractional_max_pool3d"]),
]


@pytest.mark.parametrize("expr,x,fns", POOLS, ids=[p[0] for p in POOLS])
def test_pooling_layer_matches_paddle(expr, x, fns):
    check(expr, np.abs(x) + 0.1 if expr.startswith("LP") else x, fns)


MASKED = [("MaxPool1D(2, return_mask=True)", X1, ["max_pool1d"]),
          ("MaxPool2D(2, return_mask=True)", X2, ["max_pool2d"]),
          ("MaxPool3D(2, return_mask=True)", X3, ["max_pool3d"]),
          ("AdaptiveMaxPool1D(4, return_mask=True)", X1, ["adaptive_max_pool1d"]),
          ("AdaptiveMaxPool2D(3, return_indices=True)", X2, ["adaptive_max_pool2d"])]


@pytest.mark.parametrize("expr,x,fns", MASKED, ids=[p[0] for p in MASKED])
def test_pooling_layer_mask_matches_paddle(expr, x, fns):
    """The mask is the flat index of each maximum in its input plane, int32."""
    check(expr, x, fns)


@pytest.mark.parametrize("dims", [1, 2])
def test_max_unpool_layer_matches_paddle(dims):
    fns = [f"max_pool{dims}d", f"max_unpool{dims}d"]
    if _missing(fns):
        pytest.skip(f"functional {_missing(fns)} not in the facade yet")
    x = X1 if dims == 1 else X2[:, :, :6]
    outs = []
    for lib in LIBS:
        t = lib.to_tensor(x, stop_gradient=False)
        y, mask = getattr(lib.nn, f"MaxPool{dims}D")(2, return_mask=True)(t)
        unpool = getattr(lib.nn, f"MaxUnPool{dims}D")(2)
        z = unpool(y, mask)
        (z * z).sum().backward()
        outs.append((repr(unpool), z.numpy(), t.grad.numpy()))
    assert outs[1][0] == outs[0][0]
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-6)
    np.testing.assert_allclose(outs[1][2], outs[0][2], rtol=1e-6)


@pytest.mark.parametrize("name", ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
                                  "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
                                  "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d",
                                  "LPPool2d"])
def test_lowercase_pool_aliases_are_the_same_classes(name):
    real = getattr(paddle.nn, name)
    assert getattr(ip.nn, name) is getattr(ip.nn, real.__name__)


def test_only_paddles_lowercase_pool_aliases_exist():
    for name in ("MaxPool2d", "AvgPool2d", "MaxPool1d", "FractionalMaxPool2d"):
        assert hasattr(ip.nn, name) == hasattr(paddle.nn, name) == False  # noqa: E712


@pytest.mark.parametrize("expr", ["MaxUnPool2D(2, output_size=[4, 4])", "MaxUnPool1D(3)",
                                  "FractionalMaxPool2D(3)", "FractionalMaxPool3D([2, 2, 2], 2)",
                                  "AdaptiveMaxPool1D(2, return_indices=True)",
                                  "LPPool1D(2, 3, 1, 1, True, 'NLC')", "AvgPool3D([1, 2, 2])",
                                  "MaxPool3D(2, data_format='NDHWC')"])
def test_pool_repr_matches_paddle(expr):
    assert repr(eval("ip.nn." + expr)) == repr(eval("paddle.nn." + expr))


def test_lp_pool_reads_a_positional_bool_as_ceil_mode():
    layers = []
    for lib in LIBS:
        with pytest.warns(Warning, match="interpreted as 'ceil_mode'"):
            layers.append(lib.nn.LPPool2D(2, 3, 2, True))
    assert layers[1].ceil_mode is layers[0].ceil_mode is True
    assert layers[1].padding == layers[0].padding == 0


def test_adaptive_max_pool_return_indices_property():
    for lib in LIBS:
        layer = lib.nn.AdaptiveMaxPool2D(2, return_indices=True)
        assert layer.return_indices is True and layer._return_mask is True
        layer.return_indices = False
        assert repr(layer) == "AdaptiveMaxPool2D(output_size=2, return_mask=False)"


# ---------------------------------------------------------------- vision
VISION = [("PixelShuffle(2)", ["pixel_shuffle"]),
          ("PixelShuffle(2, 'NHWC')", ["pixel_shuffle"]),
          ("PixelUnshuffle(2)", ["pixel_unshuffle"]),
          ("ChannelShuffle(2)", ["channel_shuffle"]),
          ("ChannelShuffle(3, 'NHWC', name='c')", ["channel_shuffle"])]


@pytest.mark.parametrize("expr,fns", VISION, ids=[v for v, _ in VISION])
def test_vision_layer_matches_paddle(expr, fns):
    x = RNG.standard_normal([2, 4, 6, 4] if "NHWC" not in expr else [2, 4, 6, 12])
    check(expr, x.astype("f4"), fns)


@pytest.mark.parametrize("expr", ["PixelShuffle(2.0)", "PixelShuffle(2, 'NCL')",
                                  "PixelUnshuffle(0)", "PixelUnshuffle('2')",
                                  "PixelUnshuffle(2, 'HWC')", "ChannelShuffle(0)",
                                  "ChannelShuffle(1.5)", "ChannelShuffle(2, 'nchw')"])
def test_vision_layer_constructor_errors_match_paddle(expr):
    errs = []
    for lib in LIBS:
        with pytest.raises(Exception) as e:
            eval("lib.nn." + expr, {"lib": lib})
        errs.append((type(e.value), str(e.value)))
    assert errs[1] == errs[0]


@pytest.mark.parametrize("expr", ["PixelShuffle(3)", "PixelShuffle(2, 'NHWC', name='p')",
                                  "PixelUnshuffle(4, name='u')", "ChannelShuffle(2)"])
def test_vision_layer_repr_matches_paddle(expr):
    assert repr(eval("ip.nn." + expr)) == repr(eval("paddle.nn." + expr))


# ---------------------------------------------------------------- signatures
def _layer_classes():
    import inspect

    from paddle.nn.layer import activation, pooling, rnn, transformer, vision

    out = []
    for mod in (activation, pooling, vision, rnn, transformer):
        for name, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ == mod.__name__ and issubclass(cls, paddle.nn.Layer) \
                    and hasattr(paddle.nn, name):
                out.append(name)
    return out


@pytest.mark.parametrize("name", _layer_classes())
def test_layer_signatures_match_paddle(name):
    """Every activation, pooling, vision, recurrent and transformer layer Paddle exports
    exists, with the same constructor and forward parameters (names, kinds, defaults)."""
    import inspect

    def sig(fn):
        return [(p.name, p.kind, repr(p.default))
                for p in inspect.signature(fn).parameters.values()]

    mine = getattr(ip.nn, name)
    real = getattr(paddle.nn, name)
    assert sig(mine.__init__) == sig(real.__init__)
    assert sig(mine.forward) == sig(real.forward)


def test_silu_inplace_writes_its_input():
    res = []
    for lib in LIBS:
        x = lib.to_tensor([-1.0, 0.5, 2.0], stop_gradient=False)
        y = x * 1
        z = lib.nn.Silu(inplace=True)(y)
        z.sum().backward()
        res.append((z is y, y.inplace_version, y.numpy().tolist(), x.grad.numpy()))
    assert res[1][:3] == res[0][:3]
    np.testing.assert_allclose(res[1][3], res[0][3], rtol=1e-6)
