"""paddle.nn loss Layers against real Paddle 3.3.1: constructor checks (reduction text,
margin / epsilon ranges), forward through the stored options, repr, and a classic training
loop (Linear + CrossEntropyLoss + SGD) losing the same amounts step by step."""
from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
from tests.paddle._loss_harness import same  # noqa: E402

RNG = np.random.default_rng(2)
A = RNG.standard_normal((4, 3)).astype("float32")
B = RNG.standard_normal((4, 3)).astype("float32")
C = RNG.standard_normal((4, 3)).astype("float32")
PROB = RNG.uniform(0.05, 0.95, (4, 3)).astype("float32")
T01 = (RNG.random((4, 3)) > 0.5).astype("float32")
SIGN = np.array([1.0, -1.0, -1.0, 1.0], "float32")
SIGN43 = np.where(RNG.random((4, 3)) > 0.5, 1.0, -1.0).astype("float32")
LABEL = np.array([0, 2, 1, 2])
W = np.array([1.0, 0.5, 2.0], "float32")

# (class name, constructor kwargs, forward inputs (numpy), indices of inputs that get grads)
CASES = [
    ("MSELoss", {"reduction": "sum"}, [A, B], [0]),
    ("L1Loss", {}, [A, B], [0]),
    ("SmoothL1Loss", {"delta": 0.5}, [A, B], [0]),
    ("SmoothL1Loss", {"is_huber": False, "reduction": "none"}, [A, B], [0]),
    ("BCELoss", {"reduction": "none"}, [PROB, T01], [0]),
    ("BCEWithLogitsLoss", {"reduction": "sum"}, [A, T01], [0]),
    ("KLDivLoss", {"reduction": "batchmean"}, [A, PROB], [0]),
    ("CrossEntropyLoss", {}, [A, LABEL], [0]),
    ("CrossEntropyLoss", {"reduction": "none", "label_smoothing": 0.1}, [A, LABEL], [0]),
    ("CrossEntropyLoss", {"ignore_index": 2, "reduction": "mean"}, [A, LABEL[:, None]], [0]),
    ("NLLLoss", {"reduction": "sum"}, [A, LABEL], [0]),
    ("MarginRankingLoss", {"margin": 0.2}, [A, B, SIGN43], [0, 1]),
    ("HingeEmbeddingLoss", {"margin": 0.5}, [A, SIGN43], [0]),
    ("SoftMarginLoss", {"reduction": "none"}, [A, SIGN43], [0]),
    ("CosineEmbeddingLoss", {"margin": 0.1}, [A, B, SIGN], [0, 1]),
    ("TripletMarginLoss", {"swap": True, "p": 1.0}, [A, B, C], [0, 1, 2]),
    ("TripletMarginWithDistanceLoss", {"margin": 0.5}, [A, B, C], [0, 1, 2]),
    ("PoissonNLLLoss", {"log_input": False}, [PROB, T01], [0]),
    ("GaussianNLLLoss", {"full": True}, [A, B, PROB], [0, 1]),
    ("MultiLabelSoftMarginLoss", {"reduction": "sum"}, [A, T01], [0]),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5}, [A, LABEL], [0]),
    ("MultiLabelMarginLoss", {}, [A, np.array([[2, -1, 0]] * 4)], [0]),
]


@pytest.mark.parametrize("name,kwargs,inputs,diff", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_loss_layer_forward_and_grads(name, kwargs, inputs, diff):
    def fn(pd):
        ts = [pd.to_tensor(a, stop_gradient=i not in diff) for i, a in enumerate(inputs)]
        layer = getattr(pd.nn, name)(**kwargs)
        out = layer(*ts)
        out.sum().backward()
        return [out] + [ts[i].grad for i in diff]

    same(fn)


def test_weighted_layers_use_their_weight():
    def fn(pd):
        x = pd.to_tensor(A, stop_gradient=False)
        w = pd.to_tensor(W)
        outs = [pd.nn.CrossEntropyLoss(weight=w)(x, pd.to_tensor(LABEL)),
                pd.nn.NLLLoss(weight=w, reduction="none")(x, pd.to_tensor(LABEL)),
                pd.nn.MultiMarginLoss(weight=w)(x, pd.to_tensor(LABEL)),
                pd.nn.BCELoss(weight=w)(pd.to_tensor(PROB), pd.to_tensor(T01))]
        sum(o.sum() for o in outs).backward()
        return outs + [x.grad]

    same(fn)


@pytest.mark.parametrize("name", [
    "MSELoss", "L1Loss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "MarginRankingLoss",
    "SoftMarginLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    "PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
    "MultiLabelMarginLoss"])
def test_constructor_rejects_bad_reduction_with_paddles_words(name):
    same(lambda pd: getattr(pd.nn, name)(reduction="avg"))


@pytest.mark.parametrize("name", ["CrossEntropyLoss", "SmoothL1Loss", "HingeEmbeddingLoss"])
def test_some_layers_check_reduction_only_when_called(name):
    def fn(pd):
        layer = getattr(pd.nn, name)(reduction="avg")
        label = LABEL if name == "CrossEntropyLoss" else SIGN43
        return layer(pd.to_tensor(A), pd.to_tensor(label))

    same(fn)


def test_constructor_range_checks():
    same(lambda pd: pd.nn.CosineEmbeddingLoss(margin=1.5))
    same(lambda pd: pd.nn.PoissonNLLLoss(epsilon=0.0))


def test_loss_layers_print_no_extra_repr():
    for name in ("MSELoss", "CrossEntropyLoss", "KLDivLoss", "TripletMarginLoss"):
        assert repr(getattr(paddle.nn, name)()) == repr(getattr(__import__(
            "inplace_lab.paddle", fromlist=["nn"]).nn, name)()) == f"{name}()"


def test_training_loop_linear_cross_entropy_sgd_matches_paddle():
    """Three SGD steps on the same weights: the same losses, weights and gradients."""
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((5, 3)).astype("float32")
    b0 = rng.standard_normal(3).astype("float32")
    x = rng.standard_normal((8, 5)).astype("float32")
    y = rng.integers(0, 3, (8,))

    def fn(pd):
        model = pd.nn.Linear(5, 3)
        model.weight.set_value(w0)
        model.bias.set_value(b0)
        loss_fn = pd.nn.CrossEntropyLoss()
        opt = pd.optimizer.SGD(learning_rate=0.5, parameters=model.parameters())
        record = []
        for _ in range(3):
            loss = loss_fn(model(pd.to_tensor(x)), pd.to_tensor(y))
            loss.backward()
            record += [loss, model.weight.grad.clone()]
            opt.step()
            opt.clear_grad()
        return record + [model.weight.detach(), model.bias.detach()]

    same(fn)


def _params(fn):
    import inspect

    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


def test_functional_loss_signatures_are_paddles():
    import inplace_lab.paddle as ilp
    from inplace_lab.paddle.nn import functional_loss

    for name in functional_loss.__all__:
        assert _params(getattr(ilp.nn.functional, name)) == \
            _params(getattr(paddle.nn.functional, name)), name


def test_loss_layer_signatures_are_paddles():
    import inplace_lab.paddle as ilp
    from inplace_lab.paddle.nn import loss

    for name in loss.__all__:
        for attr in ("__init__", "forward"):
            assert _params(getattr(getattr(ilp.nn, name), attr)) == \
                _params(getattr(getattr(paddle.nn, name), attr)), (name, attr)
