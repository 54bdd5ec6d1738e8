"""tensor_split, argwhere, type_as, resize_as_, H/mH, real/imag, apply_/map_, layout,
storage(): the same program on torch 2.13 and inplace_lab."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402


def _pair(shape=(2, 5), rg=True):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    return (torch.tensor(a, requires_grad=rg), il.tensor(a, requires_grad=rg))


@pytest.mark.parametrize("arg,dim", [(3, 1), (2, 0), ([1, 4], 1), ((3, 1), 1), ([0, 7], -1),
                                     ("t0", 1), ("t1", 1), (7, 1)])
def test_tensor_split(arg, dim):
    t, x = _pair()
    ta, xa = arg, arg
    if arg == "t0":
        ta, xa = torch.tensor(2), il.tensor(2)
    elif arg == "t1":
        ta, xa = torch.tensor([1, 3]), il.tensor([1, 3])
    tp, xp = t.tensor_split(ta, dim), il.tensor_split(x, xa, dim=dim)
    assert len(tp) == len(xp)
    for p, q in zip(tp, xp):
        assert tuple(p.shape) == tuple(q.shape) and p.stride() == q.stride()
        assert p.storage_offset() == q.storage_offset() and q._base is x
        assert type(q.grad_fn).__name__ == type(p.grad_fn).__name__ == "SliceBackward0"
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    w = [float(i + 1) for i in range(len(tp))]
    sum((p * k).sum() for p, k in zip(tp, w)).backward()
    sum((q * k).sum() for q, k in zip(xp, w)).backward()
    np.testing.assert_array_equal(t.grad.numpy(), x.grad.numpy())


@pytest.mark.parametrize("case", range(5))
def test_tensor_split_errors(case):
    def run(m):
        x = m.arange(10.).reshape(2, 5)
        return [lambda: x.tensor_split(0), lambda: m.tensor(1.).tensor_split(2),
                lambda: x.tensor_split(2, dim=3), lambda: x.tensor_split(m.tensor([1., 2.])),
                lambda: x.tensor_split(m.tensor([[1]]))][case]()

    with pytest.raises(Exception) as te:
        run(torch)
    with pytest.raises(type(te.value)) as xe:
        run(il)
    assert str(xe.value) == str(te.value)


def test_argwhere():
    a = np.array([[0., 1., 0.], [2., 0., 3.]], dtype=np.float32)
    for f in (lambda m, x: m.argwhere(x), lambda m, x: x.argwhere()):
        p, q = f(torch, torch.tensor(a)), f(il, il.tensor(a))
        assert str(q.dtype) == str(p.dtype)
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    assert tuple(il.tensor(3.).argwhere().shape) == tuple(torch.tensor(3.).argwhere().shape)


def test_type_as_and_resize_as_():
    t, x = _pair()
    assert x.type_as(x) is x and t.type_as(t) is t
    p, q = t.type_as(torch.ones(1, dtype=torch.float64)), x.type_as(il.ones(1, dtype=il.float64))
    assert str(p.dtype) == str(q.dtype) and type(q.grad_fn).__name__ == "ToCopyBackward0"
    with pytest.raises(TypeError, match=r"type_as\(\): argument 'other' \(position 1\) must be"):
        x.type_as(3)
    z, w = torch.zeros(3), il.zeros(3)
    z.resize_as_(t), w.resize_as_(x)
    assert tuple(w.shape) == tuple(z.shape) and w._version == z._version == 1
    z.resize_as_(t), w.resize_as_(x)
    assert w._version == z._version == 1
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        x.resize_as_(w)


def test_H_mH_real_imag_layout():
    t, x = _pair((2, 3))
    for n in ("H", "mH", "mT"):
        p, q = getattr(t, n), getattr(x, n)
        assert tuple(q.shape) == tuple(p.shape) and q.stride() == p.stride() and q._base is x
        assert type(q.grad_fn).__name__ == type(p.grad_fn).__name__
    assert il.tensor(2.).H is not None
    with pytest.raises(RuntimeError, match=r"tensor.H is only supported on matrices \(2-D "
                                           r"tensors\). Got 1-D tensor."):
        il.arange(3.).H
    assert x.real is x and t.real is t
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex"):
        x.imag
    assert x.layout is il.strided and repr(il.strided) == repr(torch.strided) == "torch.strided"


def test_apply_map_no_version_bump():
    for m in (torch, il):
        t = m.tensor([1., 2., 3.])
        assert t.apply_(lambda v: v * 2) is t and t._version == 0
        t.map_(m.tensor([1.]), lambda a, b: a + b)
        assert t.tolist() == [3., 5., 7.] and t._version == 0
    for m in (torch, il):
        with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires "
                                               r"grad. Use var.detach\(\).apply_\(\) instead."):
            m.ones(2, requires_grad=True).apply_(lambda v: v)


def test_typed_storage():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in (torch, il):
            x = m.arange(6.).reshape(2, 3)
            s = x.storage()
            assert s.data_ptr() == x[1, 1:].storage().data_ptr() == x.data_ptr()
            assert s.data_ptr() != m.arange(6.).storage().data_ptr()
            assert s.size() == len(s) == 6 and s.tolist() == [0., 1., 2., 3., 4., 5.]
            assert s.nbytes() == 24 and s.element_size() == 4 and str(s.dtype) == "torch.float32"
            assert s != x.storage() and s[2] == 2.
        assert repr(il.arange(2.).storage()) == repr(torch.arange(2.).storage())
