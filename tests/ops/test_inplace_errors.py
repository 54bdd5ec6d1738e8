"""Every in-place op of the table, against PyTorch: what it refuses, and what a refusal leaves.

For each ``spec`` in ``OPS`` with ``spec.inplace`` the same small programs run on torch and
on inplace_lab: a valid call (same object back, same ``data_ptr``, version + 1), a leaf that
requires grad, an expanded (internally overlapping) target, and for elementwise ops a
broadcast that would resize the target, a narrowing cast into an integer target, and a
partial overlap ``a[1:].op_(a[:-1])``. Wherever torch raises, inplace_lab raises the same
type with the same message; wherever torch succeeds, so does inplace_lab. A refused call
must leave the target's data, shape, strides and ``_version`` exactly as they were.
Paddle-only in-place ops (``scale_``, ``thresholded_relu_``) are checked against the texts
PyTorch uses for the same situations (inplace_lab's default policy).
"""
import numpy as np
import pytest

import inplace_lab as il
from inplace_lab.ops.table import OPS

torch = pytest.importorskip("torch")
F = torch.nn.functional

ELEMENTWISE = {"elementwise", "unary", "activation", "random"}


def _is_elementwise(spec):
    return spec.forward.__module__.rsplit(".", 1)[-1] in ELEMENTWISE


# Ops that need more than "tensors like the target for every argument".
# name: (target shape, build(m, like) -> extra positional args, kwargs)
SPECIAL = {
    "polygamma": lambda m, t: ((1,), {}),
    "mvlgamma": lambda m, t: ((1,), {}),
    "geometric": lambda m, t: ((0.5,), {}),
    "fill": lambda m, t: ((0.5,), {}),
    "scale": lambda m, t: ((2.0, 1.0), {}),
    "random": lambda m, t: ((0, 5), {}),
    "threshold": lambda m, t: ((0.5, 2.0), {}),
    "cumsum": lambda m, t: ((0,), {}), "cumprod": lambda m, t: ((0,), {}),
    "tril": lambda m, t: ((), {}), "triu": lambda m, t: ((), {}),
    "addmm": lambda m, t: ((m.ones(t.shape[0], 4), m.ones(4, t.shape[-1])), {}),
    "baddbmm": lambda m, t: ((m.ones(2, t.shape[0], 4), m.ones(2, 4, t.shape[-1])), {}),
    "addmv": lambda m, t: ((m.ones(t.shape[0], 4), m.ones(4)), {}),
    "addr": lambda m, t: ((m.ones(t.shape[0]), m.ones(t.shape[-1])), {}),
    "addbmm": lambda m, t: ((m.ones(2, t.shape[0], 4), m.ones(2, 4, t.shape[-1])), {}),
    "index_add": lambda m, t: ((0, m.tensor([1, 0]), m.ones(2, t.shape[-1])), {}),
    "index_copy": lambda m, t: ((0, m.tensor([1, 0]), m.ones(2, t.shape[-1])), {}),
    "index_fill": lambda m, t: ((0, m.tensor([1]), 0.5), {}),
    "index_put": lambda m, t: (((m.tensor([1, 0]),), m.ones(2, t.shape[-1])), {}),
    "masked_fill": lambda m, t: ((m.ones(t.shape, dtype=m.bool), 0.5), {}),
    "masked_scatter": lambda m, t: ((m.ones(t.shape, dtype=m.bool), m.ones(t.shape)), {}),
    "put": lambda m, t: ((m.tensor([0, 2]), m.ones(2)), {}),
    "scatter": lambda m, t: ((0, m.zeros(t.shape, dtype=m.int64), m.ones(t.shape)), {}),
    "scatter_add": lambda m, t: ((0, m.zeros(t.shape, dtype=m.int64), m.ones(t.shape)), {}),
    "scatter_reduce": lambda m, t: ((0, m.zeros(t.shape, dtype=m.int64), m.ones(t.shape), "prod"),
                                    {}),
    "index_reduce": lambda m, t: ((0, m.tensor([1, 0]), m.ones(2, t.shape[-1]), "amax"), {}),
    "renorm": lambda m, t: ((2.0, 0, 1.0), {}),
    "fill_diagonal": lambda m, t: ((0.5,), {}),
    "embedding_renorm": lambda m, t: ((m.tensor([0, 1]), 1.0, 2.0), {}),
}
BATCHED = {"baddbmm"}  # the target is 3-d
INT_ONLY = {"gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
            "bitwise_left_shift", "bitwise_right_shift"}
DOMAIN = {"acosh": (1.1, 2.0)}
TORCH_NAME = {"scale": None, "thresholded_relu": None}  # Paddle-only: no torch counterpart

INPLACE = sorted(n for n, s in OPS.items() if s.inplace)

# Known differences from PyTorch, each with its reason; strict, so a fix makes the test fail
# until the entry is removed.
KNOWN = {
    ("leaf", n): "torch's leaf check runs before the kernel's dtype check; the dispatcher "
                 "computes the result dtype (and its NotImplementedError) first"
    for n in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
              "bitwise_right_shift", "gcd", "lcm")
}
KNOWN.update({
    ("leaf", n): "torch does not apply the leaf check to ops without a derivative (logical_*_); "
                 "the dispatcher applies it to every in-place op"
    for n in ("logical_and", "logical_or", "logical_xor", "logical_not")})
KNOWN.update({
    ("overlap", "ldexp"): "torch's ldexp_ is composite (mul_ by a fresh 2**other): no overlap",
    ("leaf", "fill_diagonal"): "torch's fill_diagonal_ fills as_strided views of the target, so "
                               "it words the leaf error 'a view of a leaf Variable'; here it is "
                               "one table op (Paddle's kernel) on the leaf itself",
    ("expand", "addmv"): "torch's addmv_ lets BLAS's gemv write an expanded target element "
                           "after element (each write reads the last: values depend on the loop "
                           "order); inplace_lab refuses the internal overlap",
})


def _params(kind, names):
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN[(kind, n)]))
            if (kind, n) in KNOWN else n for n in names]


def _torch_fn(name):
    """torch's in-place callable for op ``name``, or None for Paddle-only ops."""
    if name in TORCH_NAME:
        return None
    for ns in (torch.Tensor, torch, F):
        f = getattr(ns, name + "_", None)
        if f is not None:
            return f
    for alias in OPS[name].aliases:
        for ns in (torch.Tensor, torch, F):
            f = getattr(ns, alias + "_", None)
            if f is not None:
                return f
    return None


def _il_fn(name):
    return getattr(il, name + "_", None) or getattr(il.Tensor, name + "_")


DOUBLE = {"float_power"}  # float_power_ needs a float64 target


def _values(name, shape, dtype, seed=0):
    lo, hi = DOMAIN.get(name, (0.1, 0.9))
    a = np.random.default_rng(seed).uniform(lo, hi, shape)
    if name in INT_ONLY or dtype == "int64":
        return (a * 10).astype(np.int64)
    return a.astype(np.float64 if name in DOUBLE else np.float32)


def _operands(m, name, target, shape=None):
    """The arguments after self: a recipe, or tensors shaped like the target (or ``shape``)."""
    if name in SPECIAL:
        return SPECIAL[name](m, target)
    spec = OPS[name]
    n = len(spec.args) - 1
    shape = shape or tuple(target.shape)
    ops = [m.tensor(_values(name, shape, None, seed=i + 1)) for i in range(n)]
    return tuple(ops), {}


def _target_shape(name):
    if name == "addmv":  # (a vector: mat @ vec)
        return (2,)
    return (2, 2, 3) if name in BATCHED else (2, 3)


def _call(lib, name, target, args, kwargs):
    fn = _torch_fn(name) if lib is torch else _il_fn(name)
    return fn(target, *args, **kwargs)


def _state(t):
    return (t.detach().clone().numpy().tolist() if hasattr(t, "detach") else None,
            tuple(t.shape), tuple(t.stride()), t._version)


def _same_refusal(build):
    """Run ``build(m) -> (target, thunk)`` on both; they must agree on raising, and on the text."""
    t_target, t_thunk = build(torch)
    i_target, i_thunk = build(il)
    before = _state(i_target)
    try:
        t_thunk()
    except Exception as e:  # torch refuses: so must we, with the same type and text
        with pytest.raises(type(e)) as ie:
            i_thunk()
        assert str(ie.value)[:70] == str(e)[:70]
        assert _state(i_target) == before
        return True
    i_thunk()
    return False


def _torch_ops():
    return [n for n in INPLACE if _torch_fn(n) is not None]


def test_every_in_place_op_is_reachable():
    for name in INPLACE:
        assert _il_fn(name) is not None
        spec = OPS[name]
        if spec.torch_inplace and name not in TORCH_NAME:
            assert _torch_fn(name) is not None, f"{name}_: the table says torch has it"


@pytest.mark.parametrize("name", _torch_ops())
def test_valid_call_returns_target_keeps_pointer_bumps_version_once(name):
    shape = _target_shape(name)
    versions = []
    for m in (torch, il):
        t = m.tensor(_values(name, shape, None))
        args, kw = _operands(m, name, t)
        ptr, v0 = t.data_ptr(), t._version
        out = _call(m, name, t, args, kw)
        assert out is t and t.data_ptr() == ptr and tuple(t.shape) == shape
        versions.append(t._version - v0)
    assert versions[1] == versions[0] == 1


@pytest.mark.parametrize("name", ["scale", "thresholded_relu"])
def test_paddle_only_ops_follow_the_same_rules(name):
    t = il.tensor([0.5, 1.5])
    ptr = t.data_ptr()
    assert _il_fn(name)(t) is t and t._version == 1 and t.data_ptr() == ptr
    leaf = il.tensor([0.5, 1.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        _il_fn(name)(leaf)
    assert leaf._version == 0
    e = il.zeros(1, 3).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        _il_fn(name)(e)


@pytest.mark.parametrize("name", _params("leaf", _torch_ops()))
def test_leaf_requiring_grad_is_refused_like_torch(name):
    shape = _target_shape(name)

    def build(m):
        t = m.tensor(_values(name, shape, "float32"), requires_grad=True)
        args, kw = _operands(m, name, t.detach())
        return t, lambda: _call(m, name, t, args, kw)

    assert _same_refusal(build)


@pytest.mark.parametrize("name", _params("expand", _torch_ops()))
def test_expanded_target_is_refused_like_torch(name):
    shape = _target_shape(name)

    def build(m):
        row = m.tensor(_values(name, (1,) + shape[1:], None))
        t = row.expand(*shape)
        args, kw = _operands(m, name, t)
        return t, lambda: _call(m, name, t, args, kw)

    _same_refusal(build)


ELEMENTWISE_WITH_OPERAND = [n for n in _torch_ops() if _is_elementwise(OPS[n]) and n not in SPECIAL
                            and len(OPS[n].args) > 1]


@pytest.mark.parametrize("name", ELEMENTWISE_WITH_OPERAND)
def test_broadcast_that_would_resize_the_target_is_refused_like_torch(name):
    def build(m):
        t = m.tensor(_values(name, (3,), None))
        args, kw = _operands(m, name, t, shape=(2, 3))
        return t, lambda: _call(m, name, t, args, kw)

    assert _same_refusal(build)


@pytest.mark.parametrize("name", _params("overlap", ELEMENTWISE_WITH_OPERAND))
def test_partial_overlap_of_input_and_target_is_refused_like_torch(name):
    def build(m):
        a = m.tensor(_values(name, (5,), None))
        args, kw = _operands(m, name, a[1:])
        args = (a[:-1],) + tuple(args[1:])
        return a[1:], lambda: _call(m, name, a[1:], args, kw)

    assert _same_refusal(build)


@pytest.mark.parametrize("name", _params("cast", [n for n in _torch_ops()
                                                 if _is_elementwise(OPS[n]) and n not in INT_ONLY]))
def test_integer_target_narrowing_cast_matches_torch(name):
    """Float results into a Long target: torch's cast error, its kernel error, or success."""
    shape = _target_shape(name)

    def build(m):
        t = m.tensor(_values(name, shape, "int64"))
        args, kw = _operands(m, name, t.float())
        return t, lambda: _call(m, name, t, args, kw)

    _same_refusal(build)


def test_narrowing_messages_quote_torch():
    t = il.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired "
                                           "output type Long$"):
        t.add_(1.5)
    with pytest.raises(RuntimeError, match="^result type Long can't be cast to the desired "
                                           "output type Bool$"):
        il.tensor([True]).add_(1)
    f = il.tensor([1.0], dtype=il.float32)
    f.add_(il.tensor([2.0], dtype=il.float64))
    assert f.dtype is il.float32 and f.tolist() == [3.0]
    assert t._version == 0


def test_failed_in_place_leaves_a_view_base_untouched():
    base = il.arange(6.0)
    before = _state(base)
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):
        base[1:].mul_(base[:-1])
    assert _state(base) == before
