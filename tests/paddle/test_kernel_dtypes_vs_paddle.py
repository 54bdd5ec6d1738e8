"""Paddle's CPU kernels are registered for some dtypes only: the rest is its RuntimeError.

``F.relu`` of an int64 tensor, ``exp`` of a bool one, ``x.sqrt_()`` of an int32 one: Paddle
finds no kernel (``(NotFound) The kernel with key (CPU, Undefined(AnyLayout), int64) of
kernel `relu` is not registered...``), where PyTorch computes or refuses in its own words.
Out of place, Paddle's Python API first casts an integer tensor to float32 for the float
math (exp, sqrt, tanh...); in place it does not. Each case runs on paddle 3.3.1 and on the
facade and compares the result dtype, or the error's type and text (``policy.PADDLE_KERNELS``).
"""
import warnings

import pytest

paddle = pytest.importorskip("paddle")
warnings.filterwarnings("ignore")

import inplace_lab.paddle as lab  # noqa: E402

OPS = {
    "exp": lambda P, t: t.exp(), "sqrt": lambda P, t: t.sqrt(), "sin": lambda P, t: t.sin(),
    "cos": lambda P, t: t.cos(), "tanh": lambda P, t: t.tanh(), "log": lambda P, t: t.log(),
    "abs": lambda P, t: t.abs(), "square": lambda P, t: t.square(), "pow": lambda P, t: t.pow(2),
    "sum": lambda P, t: t.sum(), "clip": lambda P, t: P.clip(t, -1, 1),
    "cumsum": lambda P, t: P.cumsum(t), "max": lambda P, t: t.max(),
    "floor": lambda P, t: t.floor(), "round": lambda P, t: t.round(),
    "sign": lambda P, t: t.sign(), "reciprocal": lambda P, t: t.reciprocal(),
    "rsqrt": lambda P, t: t.rsqrt(), "log1p": lambda P, t: t.log1p(),
    "expm1": lambda P, t: t.expm1(), "erf": lambda P, t: t.erf(),
    "relu": lambda P, t: P.nn.functional.relu(t), "sigmoid": lambda P, t: P.nn.functional.sigmoid(t),
    "softmax": lambda P, t: P.nn.functional.softmax(t),
    "log_softmax": lambda P, t: P.nn.functional.log_softmax(t),
    "gelu": lambda P, t: P.nn.functional.gelu(t),
    "leaky_relu": lambda P, t: P.nn.functional.leaky_relu(t),
    "logsumexp": lambda P, t: t.logsumexp(), "flip": lambda P, t: P.flip(t, [0]),
    "min": lambda P, t: t.min(), "argmax": lambda P, t: t.argmax(), "sort": lambda P, t: P.sort(t),
    "matmul": lambda P, t: P.matmul(t, t.t()),
    "sqrt_": lambda P, t: t.sqrt_(), "tanh_": lambda P, t: t.tanh_(),
    "relu_": lambda P, t: P.nn.functional.relu_(t), "clip_": lambda P, t: t.clip_(-1, 1),
    "scale_": lambda P, t: t.scale_(2.0), "sigmoid_": lambda P, t: t.sigmoid_(),
    "sin_": lambda P, t: t.sin_(), "abs_": lambda P, t: t.abs_(), "pow_": lambda P, t: t.pow_(2),
}
# Left as they are (see the closing note): integer mean/var/std/prod/cumprod result dtypes,
# exp_ of an integer tensor (Paddle turns it to float32), bool negation and subtraction.
DTYPES = ["int64", "int32", "bool", "float32"]


def _outcome(P, name, dt):
    t = P.to_tensor([[1, 0, 2]]).astype(dt)
    try:
        r = OPS[name](P, t)
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        return type(e).__name__, str(e).split("\n")[0]
    return "ok", str(r.dtype).split(".")[-1]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_kernel_dtypes_match_paddle(name, dt):
    assert _outcome(lab, name, dt) == _outcome(paddle, name, dt)


def test_core_code_is_not_checked():
    """An integer index or mask inside a formula is the core's business, not a user call."""
    x = lab.to_tensor([[1.0, -2.0], [3.0, 4.0]], stop_gradient=False)
    y = lab.nn.functional.relu(x).max(axis=1)
    y.sum().backward()
    assert x.grad.numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
