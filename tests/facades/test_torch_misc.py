"""torch/misc.py and ops/tensor_misc.py against torch 2.13: constants, legacy tensor types,
memory formats, unsafe_split and the *_copy ops, small functions, print options and flags.

Each case runs the same program on real torch and on ``inplace_lab.torch`` and compares
values, dtype, shape, strides, view-ness, ``_version``, grad_fn names, gradients, warnings and
errors (type and full message).
"""
from __future__ import annotations

import math
import warnings

import pytest

T = pytest.importorskip("torch")

import inplace_lab.torch as L  # noqa: E402


def describe(r):
    if isinstance(r, (tuple, list)):
        return [describe(p) for p in r]
    if not hasattr(r, "grad_fn"):
        return r if isinstance(r, (int, float, str, type(None))) else str(r)
    vals = r.detach().tolist()
    return {"values": vals, "dtype": str(r.dtype), "shape": tuple(r.shape),
            "stride": r.stride(), "view": r._base is not None, "version": r._version,
            "grad_fn": r.grad_fn.name() if r.grad_fn is not None else None,
            "requires_grad": r.requires_grad}


def run(mod, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = describe(fn(mod))
        except Exception as e:  # noqa: BLE001 - compared
            kind = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
            out = (kind.__name__, str(e))
    return out, [(w.category.__name__, str(w.message)) for w in caught
                 if "TypedStorage" not in str(w.message)]


def _close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-5,
                                                                            abs_tol=1e-6)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


def same(fn):
    want, got = run(T, fn), run(L, fn)
    assert _close(got, want), f"\ntorch: {want}\nlab:   {got}"


def _x(t, *shape, rg=True):
    n = math.prod(shape)
    return (t.arange(n, dtype=t.float32) * 0.37 - 1.1).reshape(shape).requires_grad_(rg)


# ---- 1. constants -----------------------------------------------------------------------

def test_constants():
    for name in ("e", "pi", "inf"):
        assert getattr(L, name) == getattr(T, name)
    assert math.isnan(L.nan) and L.newaxis is None is T.newaxis
    same(lambda t: t.ones(2, 3)[:, t.newaxis].shape)


# ---- 2. legacy tensor types -----------------------------------------------------------------

TYPES = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
         "CharTensor", "ByteTensor", "BoolTensor"]


@pytest.mark.parametrize("name", TYPES)
def test_legacy_constructors(name):
    same(lambda t: getattr(t, name)().shape)
    same(lambda t: (getattr(t, name)(2, 3).shape, getattr(t, name)(2, 3).dtype))
    same(lambda t: getattr(t, name)([1, 0, 3]))
    same(lambda t: getattr(t, name)([[1, 2], [3, 4]]))
    same(lambda t: getattr(t, name)(t.Size([2, 1])).shape)
    same(lambda t: getattr(t, name)(t.ones(2, dtype=t.complex64)))
    same(lambda t: str(getattr(t, name)))
    same(lambda t: (getattr(t, name).dtype, getattr(t, name).is_cuda, getattr(t, name).__name__))
    same(lambda t: [isinstance(t.ones(2, dtype=d), getattr(t, name)) for d in
                    (t.float32, t.float64, t.float16, t.int64, t.int32, t.int16, t.int8,
                     t.uint8, t.bool)])
    same(lambda t: t.ones(2).type(getattr(t, name)))
    same(lambda t: t.ones(2).type(f"torch.{name}").type())


def test_legacy_constructor_forms():
    same(lambda t: t.LongTensor([1.7, -2.2]))
    same(lambda t: t.FloatTensor((1, 2)))
    same(lambda t: t.FloatTensor(data=[1, 2]))
    same(lambda t: t.FloatTensor(size=(2,)).shape)
    same(lambda t: t.FloatTensor([1], device="cpu"))
    # a tensor of the same type: an alias (AliasBackward0 view when it requires grad)
    same(lambda t: t.FloatTensor(_x(t, 2, 2)))
    same(lambda t: (lambda a: t.FloatTensor(a).data_ptr() == a.data_ptr())(t.ones(2)))
    same(lambda t: (lambda a: (t.FloatTensor(a).add_(1), a._version))(t.ones(2)))
    same(lambda t: t.FloatTensor(t.tensor(3)))
    for bad in ("2.5", "True", "None", "'a'", "-1", "2, [1]", "2, 3.0", "[1], dtype=t.float64",
                "2, dtype=t.float32", "t.ones(2), 2", "[1], requires_grad=True", "foo=1",
                "t.ones(2), device='cpu'", "2, device='cuda'", "[[1], [2, 3]]"):
        same(eval(f"lambda t: t.FloatTensor({bad})"))  # noqa: S307 - test table
    same(lambda t: t.ByteTensor([300]))
    same(lambda t: t.ones(2).type("bad"))
    same(lambda t: t.ones(2).type(t.int32))
    same(lambda t: (lambda a: a.type(t.FloatTensor) is a)(t.ones(2)))
    same(lambda t: isinstance(t.nn.Parameter(t.ones(2)), t.FloatTensor))
    same(lambda t: isinstance(t.ones(4)[::2], t.FloatTensor))


def test_set_default_tensor_type():
    try:
        same(lambda t: (t.set_default_tensor_type(t.DoubleTensor), t.get_default_dtype(),
                        t.tensor([1.5]).dtype, t.set_default_tensor_type("torch.FloatTensor"),
                        t.get_default_dtype()))
    finally:
        T.set_default_dtype(T.float32)
        L.set_default_dtype(L.float32)
    same(lambda t: t.set_default_tensor_type(t.LongTensor))
    same(lambda t: t.set_default_tensor_type(t.float64))
    same(lambda t: t.set_default_tensor_type("torch.cuda.FloatTensor"))


# ---- 3. memory formats ---------------------------------------------------------------------------

def _cl(t, *shape):
    return _x(t, *shape).contiguous(memory_format=t.channels_last)


def test_memory_format_objects():
    same(lambda t: [repr(m) for m in (t.contiguous_format, t.preserve_format, t.channels_last,
                                      t.channels_last_3d)])
    same(lambda t: type(t.channels_last).__name__)
    assert isinstance(L.channels_last, L.memory_format)


MF_PROGRAMS = [
    lambda t: _cl(t, 2, 3, 4, 5),
    lambda t: (lambda y: y.contiguous(memory_format=t.channels_last) is y)(_cl(t, 2, 3, 4, 5)),
    lambda t: _cl(t, 2, 3, 4, 5).contiguous(),
    lambda t: [_cl(t, 2, 3, 4, 5).is_contiguous(memory_format=m) for m in
               (t.contiguous_format, t.channels_last, t.channels_last_3d)],
    lambda t: _x(t, 2, 3, 4).contiguous(memory_format=t.channels_last),
    lambda t: _x(t, 2, 3, 4).is_contiguous(memory_format=t.channels_last),
    lambda t: _x(t, 2, 3, 4, 5).contiguous(memory_format=t.channels_last_3d),
    lambda t: _x(t, 2, 3, 4, 5, 2).contiguous(memory_format=t.channels_last_3d),
    lambda t: _x(t, 2, 3, 4, 5).contiguous(memory_format=t.preserve_format),
    lambda t: _x(t, 2, 3, 4, 5).contiguous(memory_format=t.float32),
    lambda t: t.ones(2, 1, 4, 1).contiguous(memory_format=t.channels_last),
    lambda t: t.ones(2, 1, 4, 1).is_contiguous(memory_format=t.channels_last),
    lambda t: t.ones(2, 1, 4, 1).permute(0, 2, 3, 1).contiguous(memory_format=t.channels_last),
    lambda t: t.empty(0, 3, 4, 5).is_contiguous(memory_format=t.channels_last),
    lambda t: t.empty(2, 3, 4, 5, memory_format=t.channels_last).stride(),
    lambda t: t.empty(2, 3, 4, memory_format=t.channels_last),
    lambda t: t.empty(2, 3, memory_format=t.preserve_format),
    lambda t: t.empty(2, 0, 4, 5, memory_format=t.channels_last).stride(),
    lambda t: t.empty_like(_cl(t, 2, 3, 4, 5)).stride(),
    lambda t: t.zeros_like(_cl(t, 2, 3, 4, 5), memory_format=t.contiguous_format),
    lambda t: t.ones_like(_x(t, 2, 3, 4, 5), memory_format=t.channels_last),
    lambda t: t.ones_like(_x(t, 2, 3, 4), memory_format=t.channels_last),
    lambda t: t.full_like(_x(t, 2, 3, 4, 5), 2.0, memory_format=t.channels_last),
    lambda t: t.rand_like(_x(t, 2, 3, 4, 5), memory_format=t.channels_last).stride(),
    lambda t: _cl(t, 2, 3, 4, 5) + 1,
    lambda t: _cl(t, 2, 3, 4, 5) * _x(t, 2, 3, 4, 5),
    lambda t: _x(t, 2, 3, 4, 5) * _cl(t, 2, 3, 4, 5),
    lambda t: _cl(t, 2, 3, 4, 5).exp(),
    lambda t: _cl(t, 2, 3, 4, 5).relu(),
    lambda t: _cl(t, 2, 3, 4, 5).clone(),
    lambda t: _x(t, 2, 3, 4, 5).clone(memory_format=t.channels_last),
    lambda t: t.clone(_x(t, 2, 3, 4, 5), memory_format=t.channels_last),
    lambda t: _cl(t, 2, 3, 4, 5).clone(memory_format=t.contiguous_format),
    lambda t: _x(t, 2, 3, 4).clone(memory_format=t.channels_last),
    lambda t: _x(t, 2, 3, 4, 5).to(memory_format=t.channels_last),
    lambda t: (lambda y: y.to(memory_format=t.channels_last) is y)(_cl(t, 2, 3, 4, 5)),
    lambda t: _x(t, 2, 3, 4, 5).to(t.float64, memory_format=t.channels_last),
    lambda t: _cl(t, 2, 3, 4, 5).to(t.float64),
    lambda t: _x(t, 2, 3, 4, 5).double(memory_format=t.channels_last),
    lambda t: _cl(t, 2, 3, 4, 5).dim_order(),
    lambda t: _x(t, 2, 3, 4, 5).dim_order(),
    lambda t: _x(t, 2, 3, 4, 5).transpose(1, 2).dim_order(),
    lambda t: t.ones(2, 1, 1, 1).dim_order(),
    lambda t: t.ones(2, 3).t().dim_order(),
    lambda t: t.ones(1, 2, 3, 4).dim_order(ambiguity_check=True),
    lambda t: t.ones(1, 2, 3, 4).dim_order(ambiguity_check=[t.contiguous_format,
                                                            t.channels_last]),
    lambda t: t.ones(1, 2, 3, 4).dim_order(ambiguity_check="x"),
    lambda t: t.empty_permuted((2, 3, 4, 5), (0, 2, 3, 1)).stride(),
    lambda t: t.empty_permuted((2, 3, 4, 5), (0, 2, 3)),
    lambda t: t.empty_permuted((2, 3), (1, 0), dtype=t.float64).dtype,
]


@pytest.mark.parametrize("i", range(len(MF_PROGRAMS)))
def test_memory_formats(i):
    same(MF_PROGRAMS[i])


def test_memory_format_grads():
    def prog(t):
        x = _x(t, 2, 3, 2, 2)
        y = x.contiguous(memory_format=t.channels_last)
        z = (y * y).sum() + x.to(memory_format=t.channels_last).sum()
        z.backward()
        return x.grad
    same(prog)


# ---- 4. unsafe splits and *_copy -------------------------------------------------------------

SPLIT_PROGRAMS = [
    lambda t: t.unsafe_split(_x(t, 2, 3, 4) * 1, 2, 2),
    lambda t: _x(t, 2, 3, 4).unsafe_split(2, 2),
    lambda t: t.unsafe_chunk(_x(t, 2, 3, 4) * 1, 2, 2),
    lambda t: _x(t, 2, 3, 4).unsafe_chunk(3, 1),
    lambda t: t.unsafe_split_with_sizes(_x(t, 2, 3, 4) * 1, [1, 3], 2),
    lambda t: _x(t, 2, 3, 4).unsafe_split_with_sizes([1, 3], 2),
    lambda t: t.unsafe_split(_x(t, 2, 3, 4), [1, 3], 2),
    lambda t: t.unsafe_split(_x(t, 2, 3, 4), 0, 2),
    lambda t: t.unsafe_split_with_sizes(_x(t, 2, 3, 4), [1, 2], 2),
    # an output may be modified in place (split's may not); the input's version stays
    lambda t: (lambda y: (t.unsafe_split(y, 2, 2)[0].mul_(2), y._version))(_x(t, 2, 3, 4) * 1),
    lambda t: (lambda y: (t.split(y, 2, 2)[0].mul_(2), y._version))(_x(t, 2, 3, 4) * 1),
    lambda t: (lambda p: p[0].data_ptr() == p[0]._base)(t.unsafe_split(_x(t, 2, 3), 1)),
]


@pytest.mark.parametrize("i", range(len(SPLIT_PROGRAMS)))
def test_unsafe_split(i):
    same(SPLIT_PROGRAMS[i])


def test_unsafe_split_grad():
    def prog(t):
        x = _x(t, 2, 3, 4)
        a, b = t.unsafe_split(x * 2, 2, 2)
        (a * 3 + b.exp()).sum().backward()
        return x.grad
    same(prog)


COPY_PROGRAMS = [
    lambda t: t.view_copy(_x(t, 2, 3, 4), (6, 4)),
    lambda t: t.view_copy(_x(t, 2, 3, 4), [-1]),
    lambda t: t.permute_copy(_x(t, 2, 3, 4), (2, 0, 1)),
    lambda t: t.transpose_copy(_x(t, 2, 3, 4), 0, 1),
    lambda t: t.t_copy(_x(t, 3, 4)),
    lambda t: t.expand_copy(_x(t, 2, 1, 4), (2, 5, 4)),
    lambda t: t.diagonal_copy(_x(t, 2, 3, 4)),
    lambda t: t.diagonal_copy(_x(t, 3, 4), 1),
    lambda t: t.select_copy(_x(t, 2, 3, 4), 1, 2),
    lambda t: t.slice_copy(_x(t, 2, 3, 4), 1, 0, 2),
    lambda t: t.squeeze_copy(_x(t, 1, 3, 1)),
    lambda t: t.squeeze_copy(_x(t, 1, 3, 1), 0),
    lambda t: t.unsqueeze_copy(_x(t, 2, 3), 1),
    lambda t: t.unbind_copy(_x(t, 2, 3), 1),
    lambda t: t.unfold_copy(_x(t, 2, 3, 4), 2, 2, 1),
    lambda t: t.split_copy(_x(t, 2, 3, 4), 2, 2),
    lambda t: t.split_with_sizes_copy(_x(t, 2, 3, 4), [1, 3], 2),
    lambda t: t.detach_copy(_x(t, 2, 3)),
    lambda t: t.alias_copy(_x(t, 2, 3)),
    lambda t: t.as_strided_copy(_x(t, 2, 3), (2, 2), (1, 2)),
    lambda t: t.narrow_copy(_x(t, 2, 3, 4), 2, 1, 2),
    lambda t: _x(t, 2, 3, 4).narrow_copy(2, 1, 2),
    lambda t: t.permute_copy(_x(t, 2, 3, rg=False), (1, 0)),
    lambda t: (lambda x: t.t_copy(x).data_ptr() != x.data_ptr())(_x(t, 2, 3)),
    lambda t: t.permute_copy(_x(t, 2, 3), (1,)),
    lambda t: t.select_copy(_x(t, 2, 3), 1, 5),
]


@pytest.mark.parametrize("i", range(len(COPY_PROGRAMS)))
def test_copy_ops(i):
    same(COPY_PROGRAMS[i])


@pytest.mark.parametrize("i", [0, 2, 3, 5, 6, 8, 9, 12, 14, 16, 19, 20])
def test_copy_ops_grad(i):
    def prog(t):
        x = _x(t, 2, 3, 4) if i not in (5, 19) else (_x(t, 2, 1, 4) if i == 5 else _x(t, 2, 3))
        out = COPY_PROGRAMS[i].__call__  # noqa: F841
        r = {0: lambda: t.view_copy(x, (6, 4)), 2: lambda: t.permute_copy(x, (2, 0, 1)),
             3: lambda: t.transpose_copy(x, 0, 1), 5: lambda: t.expand_copy(x, (2, 5, 4)),
             6: lambda: t.diagonal_copy(x), 8: lambda: t.select_copy(x, 1, 2),
             9: lambda: t.slice_copy(x, 1, 0, 2), 12: lambda: t.unsqueeze_copy(x, 1),
             14: lambda: t.unfold_copy(x, 2, 2, 1),
             16: lambda: t.cat(t.split_with_sizes_copy(x, [1, 3], 2), 2),
             19: lambda: t.as_strided_copy(x, (2, 2), (1, 2)),
             20: lambda: t.narrow_copy(x, 2, 1, 2)}[i]()
        (r * r).sum().backward()
        return x.grad
    same(prog)


# ---- 5. small functions and Tensor properties ----------------------------------------------------

SMALL_PROGRAMS = [
    lambda t: t.detach(_x(t, 2, 3)),
    lambda t: t.fill(_x(t, 2, 3), 2.5),
    lambda t: t.fill(t.ones(2, 3, dtype=t.int64), 7),
    lambda t: t.fill(_x(t, 2, 3), t.tensor(4.0)),
    lambda t: t.fill(_x(t, 2, 3), t.ones(2)),
    lambda t: (lambda x: (t.fill(x, 3.0).sum().backward(), x.grad)[1])(_x(t, 2)),
    lambda t: (lambda v: (t.fill(t.ones(3), v).sum().backward(), v.grad)[1])(
        t.tensor(2.0, requires_grad=True)),
    lambda t: t.get_device(t.ones(2)),
    lambda t: str(t.ones(2).storage_type()),
    lambda t: str(t.ones(2, dtype=t.long).storage_type()),
    lambda t: t.isreal(t.tensor([1.0, math.nan])),
    lambda t: t.ones(2, dtype=t.int32).isreal(),
    lambda t: t.nonzero_static(t.tensor([0, 1, 0, 2]), size=3),
    lambda t: t.nonzero_static(t.tensor([[0, 1], [2, 0]]), size=1, fill_value=7),
    lambda t: t.tensor([[0, 1], [2, 3]]).nonzero_static(size=5),
    lambda t: t.nonzero_static(t.tensor([0, 1]), size=-1),
    lambda t: t.ones(2, 3).new_empty_strided((2, 3), (1, 2)).stride(),
    lambda t: t.ones(2, 3, dtype=t.int64).new_empty_strided((2,), (1,)).dtype,
    lambda t: [getattr(t.ones(2), f"is_{n}") for n in (
        "meta", "sparse", "sparse_csr", "quantized", "mkldnn", "nested", "xpu", "mps", "ipu",
        "vulkan", "xla", "mtia", "maia")],
    lambda t: (lambda x: x.const_data_ptr() == x.data_ptr())(t.ones(3)[1:]),
    lambda t: (lambda p: (type(p).__name__, p.requires_grad, p._base is None))(
        _x(t, 2).as_subclass(t.nn.Parameter)),
    lambda t: t.histogramdd(t.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [0.5, 1.5]]),
                            bins=[2, 3]),
    lambda t: t.histogramdd(t.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), bins=2,
                            range=[0.0, 4.0, 0.0, 4.0], density=True),
]


@pytest.mark.parametrize("i", range(len(SMALL_PROGRAMS)))
def test_small(i):
    same(SMALL_PROGRAMS[i])


# ---- 6. print options and flags ------------------------------------------------------------------

PRINT_CASES = [dict(precision=2), dict(precision=6), dict(threshold=5),
               dict(edgeitems=1, threshold=5),
               dict(linewidth=30), dict(profile="short"), dict(profile="full"),
               dict(sci_mode=True), dict(sci_mode=False), dict(profile="short", precision=7)]


@pytest.mark.parametrize("opts", PRINT_CASES)
def test_set_printoptions(opts):
    def prog(t):
        t.set_printoptions(**opts)
        try:
            vals = [t.arange(12.0).reshape(3, 4) / 7, t.tensor([1e-5, 3.0, 2e9]),
                    t.arange(2000.0), t.tensor([1.0, 2.0]), t.arange(30) * 1000]
            return [repr(v) for v in vals]
        finally:
            t.set_printoptions(profile="default")
    same(prog)


def test_flags():
    def prog(t):
        out = [t.are_deterministic_algorithms_enabled(),
               t.is_deterministic_algorithms_warn_only_enabled(),
               t.get_deterministic_debug_mode(), t.get_float32_matmul_precision(),
               t.is_warn_always_enabled(), t.set_flush_denormal(False)]
        try:
            for mode in ("warn", 2, "default", 1, 0):
                t.set_deterministic_debug_mode(mode)
                out.append((t.get_deterministic_debug_mode(),
                            t.are_deterministic_algorithms_enabled(),
                            t.is_deterministic_algorithms_warn_only_enabled()))
            t.use_deterministic_algorithms(True, warn_only=True)
            out.append(t.get_deterministic_debug_mode())
            t.set_float32_matmul_precision("medium")
            out.append(t.get_float32_matmul_precision())
            t.set_warn_always(True)
            out.append(t.is_warn_always_enabled())
        finally:
            t.use_deterministic_algorithms(False)
            t.set_float32_matmul_precision("highest")
            t.set_warn_always(False)
        return out
    same(prog)
    for bad in ("t.set_deterministic_debug_mode('bad')", "t.set_deterministic_debug_mode(3)",
                "t.set_deterministic_debug_mode(1.0)", "t.use_deterministic_algorithms(1)",
                "t.set_warn_always(1)", "t.set_float32_matmul_precision('bad')"):
        same(eval(f"lambda t: {bad}"))  # noqa: S307 - test table


@pytest.mark.parametrize("dt", ["uint8", "int8", "int16", "int32", "bool", "float16"])
def test_tensor_small_int_overflow(dt):
    for v in ("[300]", "[-1]", "[-129]", "[1e6]", "[70000]", "[2.5]", "[-2.7]", "[[1, 2], [3, -4]]",
              "5", "[]", "[float('nan')]", "[float('inf')]", "[-0.5]"):
        same(eval(f"lambda t: t.tensor({v}, dtype=t.{dt})"))  # noqa: S307 - test table


@pytest.mark.parametrize("call", ["x.to(t.int32)", "x.t().to(t.int64)", "x.int()",
                                  "x.t().long()",
                                  "x.type(t.LongTensor)", "x.type(t.int16)", "x.bool()",
                                  "x.double()", "x.to(t.float16)", "x.to(t.int32).float()"])
def test_cast_to_integer_is_not_differentiable(call):
    same(eval(f"lambda t: (lambda x: {call})(_x(t, 2, 3))"))  # noqa: S307 - test table


def test_legacy_types_and_torch_tensor_ctor():
    # torch.Tensor is the legacy constructor of the default dtype
    for args in ("2, 3", "t.Size([2])"):  # (uninitialised: the shape and dtype)
        same(eval(f"lambda t: (t.Tensor({args}).shape, t.Tensor({args}).dtype)"))  # noqa: S307
    for args in ("[1, 2]", "", "t.ones(2)", "t.ones(2, dtype=t.long)",
                 "2.5", "-1", "[1], dtype=t.float64", "_x(t, 2)"):
        same(eval(f"lambda t: t.Tensor({args})"))  # noqa: S307 - test table
    same(lambda t: isinstance(t.Tensor(2), t.Tensor))
    same(lambda t: (lambda a: (t.Tensor(a).add_(1), a._version, a))(t.ones(2)))
    try:
        T.set_default_dtype(T.float64)
        L.set_default_dtype(L.float64)
        same(lambda t: (t.Tensor(2).dtype, t.Tensor([1]).dtype))
    finally:
        T.set_default_dtype(T.float32)
        L.set_default_dtype(L.float32)


def _pts(t):
    return t.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [0.3, 1.7], [0.1, 0.2]])


HIST_PROGRAMS = [
    lambda t: t.histogramdd(_pts(t), bins=[2, 3]),
    lambda t: t.histogramdd(_pts(t), bins=4),
    lambda t: t.histogramdd(_pts(t), bins=17),
    lambda t: t.histogramdd(_pts(t), bins=2, weight=t.arange(5.0)),
    lambda t: t.histogramdd(_pts(t), bins=[2, 2], density=True),
    lambda t: t.histogramdd(_pts(t), bins=[3, 5], weight=t.arange(5.0) / 3, density=True),
    lambda t: t.histogramdd(_pts(t), bins=2, range=[0.0, 1.0, 0.0, 1.0]),
    lambda t: t.histogramdd(_pts(t), bins=[t.tensor([0.0, 1.0, 3.0]), t.tensor([0.0, 0.5, 2.0])]),
    lambda t: t.histogramdd(_pts(t).double() * 7.9 - 1.3, bins=[3, 11]),
    lambda t: t.histogramdd(_pts(t).reshape(5, 1, 2), bins=2),
    lambda t: t.histogramdd(t.tensor([[0.1], [0.2], [0.3], [0.4], [0.7]]), bins=3),
    lambda t: t.histogramdd(t.tensor([[1.0, 1.0], [1.0, 1.0]]), bins=2),
    lambda t: t.histogramdd(t.empty(0, 2), bins=2),
    lambda t: t.histogramdd(t.tensor([[1.5, 1.0]]), bins=2, range=[0.0, 1.0, 0.0, 1.0]),
    lambda t: t.histogramdd(t.tensor([1.0, 2.0, 3.0]), bins=2),
    lambda t: t.histogramdd(t.tensor([[1, 2]]), bins=2),
    lambda t: t.histogramdd(_pts(t), bins=[2]),
    lambda t: t.histogramdd(_pts(t), bins=0),
    lambda t: t.histogramdd(_pts(t), bins=[2.5, 2]),
    lambda t: t.histogramdd(_pts(t), bins=[t.tensor([0.0, 1.0]), 2]),
    lambda t: t.histogramdd(_pts(t), bins=2, weight=t.ones(4)),
    lambda t: t.histogramdd(_pts(t), bins=2, weight=t.ones(5, dtype=t.float64)),
    lambda t: t.histogramdd(_pts(t), bins=2, range=[1.0, 0.0, 0.0, 1.0]),
    lambda t: t.histogramdd(_pts(t), bins=2, range=[0.0, 1.0]),
    lambda t: t.histogramdd(t.tensor([[math.nan, 1.0]]), bins=2),
    lambda t: t.histogramdd(t.tensor([[0.0, math.inf]]), bins=2),
    lambda t: type(t.histogramdd(_pts(t), bins=2)).__name__,
]


@pytest.mark.parametrize("i", range(len(HIST_PROGRAMS)))
def test_histogramdd(i):
    same(HIST_PROGRAMS[i])


MORE_PROGRAMS = [
    lambda t: t.nonzero_static(t.tensor(3), size=2),
    lambda t: t.nonzero_static(t.tensor(0), size=2),
    lambda t: t.nonzero_static(t.tensor([0.0, 2.0]), size=2, fill_value=9),
    lambda t: t.nonzero_static(t.tensor([True, False, True]), size=1),
    lambda t: t.nonzero_static(t.tensor([1]), size=2.0),
    lambda t: t.ones(2, 3).dim_order(ambiguity_check=[1]),
    lambda t: t.ones(2, 3, 4, 5).dim_order(ambiguity_check=[t.channels_last]),
    lambda t: t.ones(2, 1).expand(2, 3).dim_order(),
    lambda t: t.tensor(1.0).dim_order(),
    lambda t: t.ones(1, 3, 1, 1).dim_order(ambiguity_check=[t.contiguous_format,
                                                            t.channels_last]),
    lambda t: t.legacy_contiguous_format is t.contiguous_format,
    lambda t: (t.ones(2).storage_type().__name__, t.ones(2).storage_type().__module__,
               t.ones(2).storage_type() is t.ones(3).storage_type()),
    lambda t: t.fill(t.ones(2, dtype=t.long), 2.7),
    lambda t: t.fill(t.ones(2), True),
    lambda t: t.fill(t.ones(2), t.tensor(3)),
    lambda t: t.unsafe_chunk(t.ones(4), 0),
    lambda t: t.unsafe_split(t.ones(4), -1),
    lambda t: t.unsafe_split_with_sizes(t.ones(4), [1, 2]),
    lambda t: t.empty_permuted((2, 3), (0, 0)),
    lambda t: t.empty_permuted((2, 3), (0, 5)),
    lambda t: t.empty_permuted((2, 3), (-1, 0)),
    lambda t: t.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad,
    lambda t: t.ones(2, 3).new_empty_strided((2, 3), (1, 2), dtype=t.float64).stride(),
]


@pytest.mark.parametrize("i", range(len(MORE_PROGRAMS)))
def test_more(i):
    same(MORE_PROGRAMS[i])


SIGNATURE_PROGRAMS = [
    lambda t: t.ones(2, 3, 4, 5).is_contiguous(t.channels_last),
    lambda t: t.ones(2, 3, 4, 5).contiguous(t.channels_last),
    lambda t: t.ones(2, 3, 4, 5).clone(t.channels_last),
    lambda t: t.ones(2, 3, 4, 5).double(t.channels_last),
    lambda t: t.ones(2, 3, 4, 5).contiguous(memory_format=None),
    lambda t: t.ones(2, 3, 4, 5).is_contiguous(memory_format=None),
    lambda t: t.ones(2, 3, 4, 5).clone(memory_format=None).stride(),
    lambda t: t.ones(2, 3, 4, 5).to(memory_format=None).stride(),
    # Module.to(memory_format=) lays out the 4/5-dim parameters only
    lambda t: [p.stride() for p in t.nn.Conv2d(3, 4, 3).to(memory_format=t.channels_last)
               .parameters()],
    lambda t: t.nn.Parameter(t.Tensor(3, 4)).shape,
    lambda t: (lambda y: y.to(memory_format=t.contiguous_format).stride())(
        t.ones(2, 3, 4, 5).contiguous(memory_format=t.channels_last)),
    lambda t: t.ones(2, 3, 4, 5, 6).to(memory_format=t.channels_last_3d).stride(),
    lambda t: t.ones_like(t.ones(2, 3, 4, 5, 6), memory_format=t.channels_last_3d).stride(),
    lambda t: t.randint_like(t.ones(2, 3, 4, 5), 5, memory_format=t.channels_last).stride(),
    lambda t: t.ones(2, 3, 4, 10)[..., ::2].clone().stride(),
    lambda t: t.ones(2, 3, 1, 1).expand(2, 3, 4, 5).clone().stride(),
    lambda t: t.ones(2, 3, 4, 10).contiguous(memory_format=t.channels_last)[..., ::2]
    .clone().stride(),
]


@pytest.mark.parametrize("i", range(len(SIGNATURE_PROGRAMS)))
def test_signatures_and_layouts(i):
    same(SIGNATURE_PROGRAMS[i])


def test_interop_threads_once_per_process():
    import subprocess
    import sys

    prog = ("import {m} as t\nout = [t.get_num_interop_threads()]\n"
            "for v in (0, -1, 2.0, 3, 4):\n"
            "    try:\n        out.append(t.set_num_interop_threads(v))\n"
            "    except Exception as e:\n        out.append((type(e).__name__, str(e)))\n"
            "out.append(t.get_num_interop_threads())\nprint(out)\n")
    root = str(__import__("pathlib").Path(__file__).resolve().parents[2])
    runs = [subprocess.run([sys.executable, "-c", prog.format(m=m)], capture_output=True,
                           text=True, check=True, cwd=root).stdout
            for m in ("torch", "inplace_lab.torch")]
    assert runs[0] == runs[1]


LEFTOVER_PROGRAMS = [
    lambda t: (t.is_vulkan_available(), t.compiled_with_cxx11_abi(), t.has_lapack, t.has_mkl,
               t.has_openmp, t.has_spectral, t.init_num_threads(), t.is_distributed(t.ones(2)),
               t.ones(2).is_distributed()),
    lambda t: (lambda x: (x.is_set_to(x), x.is_set_to(x.view(2, 3)), x.is_set_to(x.t()),
                          x.is_set_to(x[0]), x.is_set_to(x.clone())))(t.ones(2, 3)),
    lambda t: t.ones(2).volatile,
    lambda t: setattr(t.ones(2), "volatile", True),
    lambda t: t.ones(2).reinforce(1),
    lambda t: (lambda y: (y.map2_(t.ones(2), t.full((2,), 2.0), lambda a, b, c: a + b * c),
                          y._version))(t.zeros(2)),
    lambda t: t.zeros(2, requires_grad=True).map2_(t.ones(2), t.ones(2), lambda a, b, c: a),
    lambda t: (lambda p: (p.module_load(t.ones(2)), p))(t.zeros(2)),
    lambda t: t.zeros(2).module_load(t.ones(2), assign=True),
]


@pytest.mark.parametrize("i", range(len(LEFTOVER_PROGRAMS)))
def test_leftovers(i):
    same(LEFTOVER_PROGRAMS[i])


NN_LAYOUT_PROGRAMS = {
    "conv": lambda t, y: t.nn.functional.conv2d(y, t.ones(4, 3, 3, 3) / 10, padding=1),
    "conv_stride": lambda t, y: t.nn.functional.conv2d(y, t.ones(4, 3, 3, 3) / 10, stride=2),
    "conv_cl_weight": lambda t, y: t.nn.functional.conv2d(
        y.contiguous(), (t.ones(2, 3, 3, 3) / 10).contiguous(memory_format=t.channels_last)),
    "maxpool": lambda t, y: t.nn.functional.max_pool2d(y, 2),
    "maxpool_idx": lambda t, y: t.nn.functional.max_pool2d(y, 2, return_indices=True),
    "avgpool": lambda t, y: t.nn.functional.avg_pool2d(y, 2),
    "pad": lambda t, y: t.nn.functional.pad(y, (1, 1, 1, 1)),
    "adaptive_max": lambda t, y: t.nn.functional.adaptive_max_pool2d(y, 2),
    "adaptive_avg": lambda t, y: t.nn.functional.adaptive_avg_pool2d(y, 2),
    "batch_norm": lambda t, y: t.nn.functional.batch_norm(y, None, None, training=True),
    "relu": lambda t, y: t.nn.functional.relu(y),
    "contiguous_input_conv": lambda t, y: t.nn.functional.conv2d(y.contiguous(),
                                                                 t.ones(4, 3, 3, 3) / 10),
}


@pytest.mark.parametrize("name", sorted(NN_LAYOUT_PROGRAMS))
def test_channels_last_through_nn_kernels(name):
    """A channels-last batch stays channels-last through conv/pool/pad (ATen's suggested
    memory format), forward strides and the gradient's layout and values as torch's."""
    def prog(t):
        x = (t.arange(2 * 3 * 6 * 6.0) / 50).reshape(2, 3, 6, 6)
        x = x.contiguous(memory_format=t.channels_last).requires_grad_()
        out = NN_LAYOUT_PROGRAMS[name](t, x * 1)
        first = out[0] if isinstance(out, tuple) else out
        (first * first).sum().backward()
        return out, x.grad
    same(prog)


COPY_ARG_PROGRAMS = [
    lambda t, x: t.split_copy(x, [1, 3], 2),
    lambda t, x: t.split_copy(x, split_size=2, dim=2),
    lambda t, x: t.t_copy(x),
    lambda t, x: t.expand_copy(x[:, :1], (2, 3, 4), implicit=True),
    lambda t, x: t.view_copy(x, (5, 5)),
    lambda t, x: t.select_copy(x, -1, -1),
    lambda t, x: t.slice_copy(x, 2, 0, 4, 2),
    lambda t, x: t.slice_copy(x),
    lambda t, x: t.diagonal_copy(x, offset=1, dim1=1, dim2=2),
    lambda t, x: t.squeeze_copy(x[:1], (0, 1)),
    lambda t, x: t.unbind_copy(x),
    lambda t, x: t.as_strided_copy(x, (2, 2), (1, 2), 3),
    lambda t, x: t.permute_copy(x, dims=(2, 1, 0)),
    lambda t, x: t.transpose_copy(x, dim0=0, dim1=2),
    lambda t, x: t.narrow_copy(x, 2, 3, 2),
    lambda t, x: t.unfold_copy(x, dimension=2, size=2, step=2),
    lambda t, x: t.alias_copy(x.detach()),
    lambda t, x: t.unsafe_split(x, split_size=2, dim=2),
    lambda t, x: x.unsafe_split_with_sizes(split_sizes=[1, 3], dim=2),
    lambda t, x: x.unsafe_chunk(chunks=2, dim=1),
]


@pytest.mark.parametrize("i", range(len(COPY_ARG_PROGRAMS)))
def test_copy_op_arguments(i):
    same(lambda t: COPY_ARG_PROGRAMS[i](t, (t.arange(24.0) / 7).reshape(2, 3, 4)
                                        .requires_grad_()))


def test_copy_ops_under_no_grad():
    def prog(t):
        x = _x(t, 2, 3)
        with t.no_grad():
            return t.permute_copy(x, (1, 0)), t.unsafe_split(x, 1), t.narrow_copy(x, 1, 0, 2)
    same(prog)


@pytest.mark.parametrize("data", [
    "[t.ones(2), t.ones(2)]", "[2**63]", "[-2**63 - 1]", "2**64", "[[t.ones(2)]]",
    "[t.ones(1, 1), t.ones(1)]", "[t.tensor(1), t.tensor(2)]", "[t.tensor(1.0), 2]",
    "[[t.tensor(True)]]", "[2**63 - 1]"])
def test_tensor_data_checks(data):
    same(eval(f"lambda t: t.tensor({data})"))  # noqa: S307 - test table


@pytest.mark.parametrize("data", ["np.array([1.5, -2.5])", "np.float32(2.0)", "np.int64(3)",
                                  "range(3)", "[True, False]", "[[]]", "(t.ones(2), t.ones(2))",
                                  "np.array([-1])"])
def test_legacy_constructor_data(data):
    import numpy as np  # noqa: F401  (the table's names)

    for name in ("FloatTensor", "LongTensor", "ByteTensor"):
        same(eval(f"lambda t: t.{name}({data})" if "int64(3)" not in data else
                  f"lambda t: t.{name}({data}).shape"))  # noqa: S307 - test table


@pytest.mark.parametrize("dt", ["t.long", "t.bool", "t.float16", "t.int8", "None", "t.float64"])
def test_tensor_elements_by_target_dtype(dt):
    for data in ("[t.ones(2)]", "[t.tensor(2.7)]", "[t.tensor(2)]", "[t.tensor(True), 1]"):
        same(eval(f"lambda t: t.tensor({data}, dtype={dt})"))  # noqa: S307 - test table
    for name in ("LongTensor", "BoolTensor", "FloatTensor"):
        same(eval(f"lambda t: t.{name}([t.tensor(2.7)])"))  # noqa: S307 - test table


RESIZE_PROGRAMS = [
    lambda t: t.empty(0).resize_(2, 3, 4, 5, memory_format=t.channels_last).stride(),
    lambda t: t.empty(0).resize_(2, 3, 4, memory_format=t.channels_last),
    lambda t: (lambda y: (y.resize_(2, 3, 4, 5, memory_format=t.channels_last).stride(),
                          y._version, y.resize_(2, 3, 4, 5,
                                                memory_format=t.contiguous_format).stride(),
                          y._version))(t.empty(2, 3, 4, 5)),
    lambda t: t.empty(2, 3, 4, 5).resize_(2, 3, 4, 5, memory_format=t.preserve_format),
    lambda t: t.empty(0).resize_(2, 3, 4, 5, 6, memory_format=t.channels_last_3d).stride(),
    lambda t: t.ones(2, 3, 4, 5).new_empty((2, 3, 4, 5), memory_format=t.channels_last),
    lambda t: [p.stride() for p in t.nn.utils.convert_conv2d_weight_memory_format(
        t.nn.Conv2d(3, 4, 3), t.channels_last).parameters()],
]


@pytest.mark.parametrize("i", range(len(RESIZE_PROGRAMS)))
def test_resize_memory_format(i):
    same(RESIZE_PROGRAMS[i])


@pytest.mark.parametrize("stride", [1, 2])
def test_channels_last_conv_transpose_forward(stride):
    """conv_transpose2d of a channels-last batch is channels-last (the forward; its input
    gradient's layout is right but arrives with version 1 where torch's is stolen, version 0)."""
    def prog(t):
        x = (t.arange(2 * 3 * 6 * 6.0) / 50).reshape(2, 3, 6, 6)
        x = x.contiguous(memory_format=t.channels_last).requires_grad_()
        out = t.nn.functional.conv_transpose2d(x * 1, t.ones(3, 2, 3, 3) / 10, stride=stride)
        (out * out).sum().backward()
        return out, x.grad.stride(), x.grad.sum().item()
    same(prog)
