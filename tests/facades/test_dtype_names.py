"""Dtypes read like the framework a tensor came from (issue 4).

``print(x.dtype)`` says ``torch.float32`` for a tensor of ``inplace_lab.torch``,
``paddle.float32`` for one of ``inplace_lab.paddle`` and ``inplace_lab.float32`` for a
plain one; each facade's dtypes are singletons (``x.dtype is torch.float32``), and the
core underneath keeps one core dtype per type (``x._dtype``). Checked against the real
torch 2.13 and paddle 3.3.1.
"""
import copy
import os
import pickle
import tempfile

import pytest

rtorch = pytest.importorskip("torch")
rpaddle = pytest.importorskip("paddle")

import inplace_lab as il  # noqa: E402
import inplace_lab.paddle as paddle  # noqa: E402
import inplace_lab.torch as torch  # noqa: E402

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
         "complex64", "complex128"]
TORCH_ALIASES = ["float", "double", "half", "long", "int", "short", "cfloat", "cdouble"]


# ---- the dtype objects themselves --------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_torch_dtype_prints_as_torch(name):
    ours, real = getattr(torch, name), getattr(rtorch, name)
    assert (str(ours), repr(ours)) == (str(real), repr(real))


@pytest.mark.parametrize("name", NAMES)
def test_paddle_dtype_prints_as_paddle(name):
    ours, real = getattr(paddle, name), getattr(rpaddle, name)
    assert (str(ours), repr(ours)) == (str(real), repr(real))
    assert (ours.name, ours.value) == (real.name, real.value)


@pytest.mark.parametrize("name", NAMES)
def test_plain_dtype_prints_as_inplace_lab(name):
    assert str(getattr(il, name)) == repr(getattr(il, name)) == f"inplace_lab.{name}"


@pytest.mark.parametrize("alias", TORCH_ALIASES)
def test_torch_aliases_are_the_same_singletons(alias):
    ours, real = getattr(torch, alias), getattr(rtorch, alias)
    assert str(ours) == str(real)
    assert ours is getattr(torch, str(real).split(".")[1])


@pytest.mark.parametrize("name", NAMES)
def test_torch_dtype_attributes_match_torch(name):
    ours, real = getattr(torch, name), getattr(rtorch, name)
    assert (ours.is_floating_point, ours.is_complex, ours.is_signed, ours.itemsize) == \
        (real.is_floating_point, real.is_complex, real.is_signed, real.itemsize)
    assert isinstance(ours, torch.dtype)


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_torch_to_real_and_to_complex_match_torch(name):
    ours, real = getattr(torch, name), getattr(rtorch, name)
    assert str(ours.to_real()) == str(real.to_real())
    assert str(ours.to_complex()) == str(real.to_complex())
    assert ours.to_complex() is getattr(torch, str(real.to_complex()).split(".")[1])


def test_facade_dtype_equals_and_hashes_like_its_core_dtype():
    assert torch.float32 == il.float32 and il.float32 == torch.float32
    assert paddle.float32 == il.float32 and hash(paddle.float32) == hash(il.float32)
    assert {il.float64: "d"}[torch.float64] == "d"
    assert torch.float32 != torch.float64 and not (paddle.int32 == paddle.int64)


def test_dtypes_do_not_equal_their_names_as_in_both_frameworks():
    assert (torch.float32 == "float32") == (rtorch.float32 == "float32")
    assert (paddle.float32 == "float32") == (rpaddle.float32 == "float32")


def test_default_dtype_is_the_facades_object():
    assert torch.get_default_dtype() is torch.float32
    assert paddle.get_default_dtype() == rpaddle.get_default_dtype() == "float32"


@pytest.mark.parametrize("d", [torch.float32, torch.int64, paddle.bool, paddle.complex64,
                               il.float16])
def test_dtype_pickles_to_the_same_singleton(d):
    assert pickle.loads(pickle.dumps(d)) is d
    assert copy.deepcopy(d) is d


def test_real_torch_dtype_pickles_to_itself_too():
    assert pickle.loads(pickle.dumps(rtorch.float32)) is rtorch.float32


# ---- a tensor's dtype --------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_torch_tensor_dtype_reads_as_torch(name):
    x = torch.zeros(2, dtype=getattr(torch, name))
    r = rtorch.zeros(2, dtype=getattr(rtorch, name))
    assert (str(x.dtype), repr(x.dtype)) == (str(r.dtype), repr(r.dtype))
    assert x.dtype is getattr(torch, name) and x._dtype is getattr(il, name)


@pytest.mark.parametrize("name", NAMES)
def test_paddle_tensor_dtype_reads_as_paddle(name):
    x = paddle.zeros([2], dtype=name)
    r = rpaddle.zeros([2], dtype=name)
    assert (str(x.dtype), repr(x.dtype)) == (str(r.dtype), repr(r.dtype))
    assert x.dtype is getattr(paddle, name) and x._dtype is getattr(il, name)


def test_plain_tensor_dtype_is_the_core_dtype():
    x = il.tensor([1.0])
    assert x.dtype is il.float32 and str(x.dtype) == "inplace_lab.float32"


def test_torch_dtype_survives_ops_views_inplace_and_backward():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 2
    outs = [y, y[0], y.t(), y.reshape(4), y.sum(), y.detach(), y.clone(), y > 1, y.argmax()]
    z = x.clone()
    z.add_(1)
    outs.append(z)
    (y.sum() + z.sum()).backward()
    outs.append(x.grad)
    r = rtorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    want = [r, r[0], r.t(), r.reshape(4), r.sum(), r, r, r > 1, r.argmax(), r, r]
    assert [str(o.dtype) for o in outs] == [str(w.dtype) for w in want]
    assert x.grad.dtype is torch.float32 and (y > 1).dtype is torch.bool


def test_paddle_dtype_survives_ops_views_and_backward():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    y = x * 2
    outs = [y, y[0], y.t(), y.reshape([4]), y.sum(), y > 1]
    y.sum().backward()
    outs.append(x.grad)
    r = rpaddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    ry = r * 2
    want = [ry, ry[0], ry.t(), ry.reshape([4]), ry.sum(), ry > 1]
    ry.sum().backward()
    want.append(r.grad)
    assert [str(o.dtype) for o in outs] == [str(w.dtype) for w in want]
    assert x.grad.dtype is paddle.float32


# ---- dtypes as arguments -----------------------------------------------------------------------

def test_torch_dtype_arguments_round_trip():
    x = torch.ones(3)
    assert x.to(torch.float64).dtype is torch.float64
    assert x.to(x.dtype) is x  # no copy when the dtype is already right (as torch)
    assert x.to(torch.float32) is x and x.type(torch.float32).dtype is torch.float32
    assert x.sum(dtype=torch.float64).dtype is torch.float64
    assert torch.softmax(x, 0, dtype=torch.float64).dtype is torch.float64
    assert torch.zeros_like(x, dtype=torch.int64).dtype is torch.int64
    assert x.new_zeros(2).dtype is torch.float32
    assert x.new_zeros(2, dtype=torch.int32).dtype is torch.int32
    assert torch.tensor([1], dtype=il.float64).dtype is torch.float64


def test_facade_dtype_arguments_reach_the_core_as_core_dtypes():
    t = il.zeros(2, dtype=torch.float64)
    assert t.dtype is il.float64 and t._storage.dtype is il.float64
    assert il.ones(2).to(paddle.int32).dtype is il.int32


def test_paddle_dtype_arguments_round_trip():
    x = paddle.to_tensor([1.0, 2.0], dtype=paddle.float64)
    assert x.dtype is paddle.float64
    assert x.astype(paddle.int32).dtype is paddle.int32
    assert x.astype("float32").dtype is paddle.float32
    assert paddle.zeros([2], dtype=paddle.int64).dtype is paddle.int64
    x.cast_(paddle.float32)
    assert x.dtype is paddle.float32


def test_printing_a_facade_tensor_names_its_dtype_as_the_framework():
    x = torch.ones(2, dtype=torch.float64)
    assert repr(x) == repr(rtorch.ones(2, dtype=rtorch.float64))
    p = paddle.ones([2], dtype="float64")
    assert "dtype=float64" in repr(p)


# ---- pickling and save/load keep the facade ----------------------------------------------------

def test_pickled_and_deepcopied_torch_tensor_is_still_a_torch_tensor():
    x = torch.tensor([1.0, 2.0])
    assert pickle.loads(pickle.dumps(x)).dtype is torch.float32
    assert copy.deepcopy(x).dtype is torch.float32
    assert pickle.loads(pickle.dumps(il.tensor([1.0]))).dtype is il.float32


def test_pickled_paddle_tensor_is_still_a_paddle_tensor():
    p = paddle.to_tensor([1.0])
    q = pickle.loads(pickle.dumps(p))
    assert q.dtype is paddle.float32 and isinstance(q, paddle.Tensor)


def test_torch_load_gives_torch_tensors():
    x = torch.arange(4.0)
    path = os.path.join(tempfile.mkdtemp(), "t.pt")
    torch.save({"x": x, "parts": [x[1:3]]}, path)
    d = torch.load(path)
    assert d["x"].dtype is torch.float32 and d["parts"][0].dtype is torch.float32
    assert d["parts"][0]._base is d["x"]


def test_torch_nn_module_parameters_and_buffers_are_torch_tensors():
    m = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    r = rtorch.nn.Sequential(rtorch.nn.Linear(2, 3), rtorch.nn.BatchNorm1d(3))
    assert [str(t.dtype) for t in m.state_dict().values()] == \
        [str(t.dtype) for t in r.state_dict().values()]
    assert isinstance(m[0], torch.nn.Module) and isinstance(m[0], torch.nn.Linear)
    assert copy.deepcopy(m)[0].weight.dtype is torch.float32
    m.double()
    assert m[0].weight.dtype is torch.float64 and m[1].running_mean.dtype is torch.float64
