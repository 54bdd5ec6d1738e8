"""The dispatcher's fast lane (dispatch.lane) gives exactly what the full path (dispatch.call) gives.

Every ufunc op of the table is run both ways on the same inputs: floating dtypes (the lane),
integer/bool/complex ones and mixed dtypes (the full path, through the lane's fallback),
Python numbers, broadcasting, 0-dim and transposed operands, facade tensors, grad recording.
Results must agree in values, dtype, shape, strides, class, facade, grad_fn name and version,
and the gradients through a backward pass must agree too.
"""
import numpy as np
import pytest

import inplace_lab as il
import inplace_lab.paddle as paddle
import inplace_lab.torch as itorch
from inplace_lab.ops import dispatch
from inplace_lab.ops.table import OPS

LANE = sorted(n for n, s in OPS.items() if s.ufunc and s.kind == "normal" and not s.outputs)
UNARY = [n for n in LANE if OPS[n].n_args == 1]
BINARY = [n for n in LANE if OPS[n].n_args == 2]


def _same(a, b):
    if isinstance(a, Exception) or isinstance(b, Exception):
        assert type(a) is type(b) and str(a) == str(b)
        return
    assert type(a) is type(b)
    assert a._dtype is b._dtype and a._shape == b._shape and a._strides == b._strides
    assert a._pol == b._pol and a._vc.version == b._vc.version == 0
    assert a._storage is not b._storage and a._base is None and b._base is None
    assert (a.grad_fn and a.grad_fn.name()) == (b.grad_fn and b.grad_fn.name())
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(a._a, b._a)


def _both(spec, args):
    out = []
    for f in (lambda: dispatch.entry(spec)(*args), lambda: dispatch.call(spec, args, {})):
        try:
            with np.errstate(all="ignore"):
                out.append(f())
        except Exception as e:  # the same error both ways
            out.append(e)
    return out


def _x(dt, shape=(3, 4), seed=0, lib=il, rg=False):
    v = np.random.default_rng(seed).uniform(0.1, 0.9, shape)
    make = lib.to_tensor if lib is paddle else lib.tensor
    return make(v.astype(dt), requires_grad=rg) if rg else make(v.astype(dt))


DTYPES = ["float16", "float32", "float64", "int64", "int32", "bool", "complex64"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dt", DTYPES)
def test_unary_lane_matches_full_path(name, dt):
    x = _x(dt)
    _same(*_both(OPS[name], (x,)))
    _same(*_both(OPS[name], (x.t(),)))  # transposed: the result keeps numpy's order
    _same(*_both(OPS[name], (x[0, 0],)))  # 0-dim


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dt", DTYPES)
def test_binary_lane_matches_full_path(name, dt):
    x, y = _x(dt), _x(dt, seed=1)
    spec = OPS[name]
    for args in [(x, y), (x, y[0]), (x[:, :1], y), (x, 2), (x, 0.5), (x, True), (x.t(), y.t()),
                 (x, _x("float32" if dt != "float32" else "float64", seed=2)),
                 (x, _x(dt, (5, 4)))]:  # the last one does not broadcast
        _same(*_both(spec, args))


@pytest.mark.parametrize("lib", [itorch, paddle], ids=["torch-facade", "paddle-facade"])
def test_facade_tensors_keep_their_class_and_policy(lib):
    x, y = _x("float32", lib=lib), _x("float32", seed=1, lib=lib)
    for name, args in [("mul", (x, y)), ("add", (x, 1.0)), ("tanh", (x,))]:
        a, b = _both(OPS[name], args)
        _same(a, b)
        assert type(a) is type(x)


def test_mixing_facades_goes_to_the_full_path_and_its_error():
    a, b = _both(OPS["mul"], (_x("float32", lib=itorch), _x("float32", lib=paddle)))
    assert isinstance(a, il.errors.FacadeMismatchError)
    _same(a, b)


@pytest.mark.parametrize("name", ["mul", "add", "sub", "div", "atan2", "maximum"])
def test_recorded_lane_op_has_the_same_graph_and_gradients(name):
    grads = []
    for f in (lambda s, a: dispatch.entry(s)(*a), lambda s, a: dispatch.call(s, a, {})):
        x = _x("float64", rg=True)
        y = _x("float64", (4,), seed=1, rg=True)
        out = f(OPS[name], (x, y))
        out2 = f(OPS["tanh"], (out,))
        assert sorted(out2.grad_fn._saved_tensors_names() if hasattr(
            out2.grad_fn, "_saved_tensors_names") else []) == []
        out2.sum().backward()
        grads.append((out2, x.grad, y.grad, [n[0].name() for n in out.grad_fn.next_functions]))
    (o1, gx1, gy1, nf1), (o2, gx2, gy2, nf2) = grads
    _same(o1, o2)
    assert nf1 == nf2 == ["torch::autograd::AccumulateGrad"] * 2
    assert o1.grad_fn.name() == "TanhBackward0"
    np.testing.assert_allclose(gx1._a, gx2._a, rtol=0, atol=0)
    np.testing.assert_allclose(gy1._a, gy2._a, rtol=0, atol=0)


def test_lane_saves_what_the_table_says_and_checks_versions():
    x = _x("float32", rg=True)
    y = x * 2.0
    z = y.tanh()  # saves its result
    assert z.grad_fn._saved_result._storage is z._storage
    with il.no_grad():
        z.mul_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_no_grad_and_inference_mode_results():
    x = _x("float32", rg=True)
    with il.no_grad():
        y = x * x
    assert y.grad_fn is None and not y.requires_grad
    with il.inference_mode():
        z = x.exp()
    assert z.is_inference() and z._vc.version == 0


def test_a_listener_sees_lane_ops():
    from inplace_lab import hooks

    seen = []
    h = hooks.subscribe(lambda ev: seen.append(ev.op) if ev.event == "op" else None)
    try:
        _x("float32") * 2.0
        _x("float32").tanh()
    finally:
        hooks.unsubscribe(h)
    assert [op for op in seen if op != "tensor"] == ["mul", "tanh"]  # (tensor: the creations)


# ---- the in-place lane (dispatch.lane_inplace) answers as call_inplace does ---------------------

INPLACE = sorted(n for n in LANE if OPS[n].inplace)


def _both_inplace(spec, make_args):
    """Run ``x.op_(...)`` through the lane and through call_inplace on equal fresh inputs."""
    out = []
    for f in (lambda a: dispatch.inplace_entry(spec)(*a), lambda a: dispatch.call_inplace(spec, a, {})):
        args = make_args()
        before = args[0]._vc.version
        try:
            with np.errstate(all="ignore"):
                r = f(args)
            assert r is args[0]
            out.append((r._a.copy(), r._vc.version - before, r._dtype, r._shape))
        except Exception as e:
            out.append((type(e), str(e), args[0]._a.copy(), args[0]._vc.version - before))
    a, b = out
    assert len(a) == len(b)
    for u, v in zip(a, b):
        if isinstance(u, np.ndarray):
            np.testing.assert_array_equal(u, v)
        else:
            assert u == v
    return a


@pytest.mark.parametrize("name", INPLACE)
@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "int64", "bool"])
def test_inplace_lane_matches_call_inplace(name, dt):
    spec = OPS[name]
    if spec.n_args == 1:
        cases = [lambda: (_x(dt),), lambda: (_x(dt).t(),), lambda: (_x(dt)[0, 0],)]
    else:
        cases = [lambda: (_x(dt), _x(dt, seed=1)), lambda: (_x(dt), 2), lambda: (_x(dt), 0.5),
                 lambda: (_x(dt), _x(dt, seed=1)[0]),  # broadcast source: the full path
                 lambda: (_x(dt)[:1], _x(dt, seed=1)),  # does not fit the target: error
                 lambda: (_x(dt).t(), _x(dt, (4, 3), seed=1)),  # non-contiguous target
                 lambda: (_x(dt), _x("float64" if dt != "float64" else "float32", seed=1))]
    for make in cases:
        _both_inplace(spec, make)


def test_inplace_lane_overlap_and_self_argument():
    base = _x("float32", (8,))
    res = _both_inplace(OPS["add"], lambda: (lambda b: (b[1:], b[:-1]))(_x("float32", (8,))))
    assert res[0] is il.errors.PartialOverlapError or issubclass(res[0], RuntimeError)
    _both_inplace(OPS["mul"], lambda: (lambda t: (t, t))(_x("float32")))
    assert base._vc.version == 0


def test_inplace_lane_leaves_autograd_to_the_full_path():
    leaf = _x("float32", rg=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.mul_(2.0)
    assert leaf._vc.version == 0
    y = leaf * 1.0
    y.mul_(2.0)  # recorded: MulBackward0 over the old history
    assert y.grad_fn.name() == "MulBackward0" and y._vc.version == 1
    y.sum().backward()
    np.testing.assert_array_equal(leaf.grad._a, np.full((3, 4), 2.0, np.float32))
    with il.no_grad():
        leaf.mul_(0.5)
    assert leaf._vc.version == 1


def test_inplace_lane_inference_tensor_outside_the_mode():
    with il.inference_mode():
        t = _x("float32") * 1.0
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        t.add_(1.0)


def test_iadd_is_in_place_for_torch_and_out_of_place_for_paddle():
    x = _x("float32")
    y = x
    y += 1.0
    assert y is x and x._vc.version == 1
    p = paddle.to_tensor(np.ones((2, 2), np.float32))
    q = p
    q += 1.0
    assert q is not p and p._vc.version == 0


def test_listener_sees_lane_inplace_ops():
    from inplace_lab import hooks

    seen = []
    h = hooks.subscribe(lambda ev: seen.append((ev.op, ev.kind)) if ev.event == "op" else None)
    try:
        x = _x("float32")
        x.add_(1.0)
        x *= 2.0
    finally:
        hooks.unsubscribe(h)
    assert [s for s in seen if s[0] != "tensor"] == [("add", "inplace"), ("mul", "inplace")]


def test_inplace_lane_mixing_facades_is_the_full_path_error():
    res = _both_inplace(OPS["add"], lambda: (_x("float32", lib=itorch), _x("float32", lib=paddle)))
    assert res[0] is il.errors.FacadeMismatchError and res[3] == 0
