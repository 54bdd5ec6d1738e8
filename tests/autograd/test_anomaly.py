"""Anomaly mode against torch 2.13: the warning naming the failing node and its forward line,
the changed in-place hint, the NaN check, and the mode switches."""
import warnings

import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il


def _inplace_failure(T):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with T.autograd.detect_anomaly():
            x = T.ones(3, requires_grad=True)
            y = x * 2
            z = y.sin()  # the node that fails
            y.add_(1)
            with pytest.raises(RuntimeError) as e:
                z.sum().backward()
    return [str(m.message) for m in w], str(e.value)


def test_error_warns_with_forward_traceback_and_hint():
    wt, et = _inplace_failure(torch)
    wi, ei = _inplace_failure(il)
    assert ei == et
    assert wi[0] == wt[0]  # "Anomaly Detection has been enabled. ..."
    head = "Error detected in SinBackward0. Traceback of forward call that caused the error:\n"
    assert wt[1].startswith(head) and wi[1].startswith(head)
    assert "z = y.sin()  # the node that fails" in wi[1]
    assert __file__ in wi[1] and "inplace_lab" not in wi[1].split("\n", 1)[1]


def _nan(T, check_nan=True):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with T.autograd.set_detect_anomaly(True, check_nan=check_nan):
            a = T.tensor([-1., 1.], requires_grad=True)
            b = a.sqrt()
            if not check_nan:
                (b * 0).sum().backward()
                return a.grad, w
            with pytest.raises(RuntimeError) as e:
                (b * 0).sum().backward()
    return str(e.value), [str(m.message) for m in w if m.category is UserWarning]


def test_nan_check():
    et, wt = _nan(torch)
    ei, wi = _nan(il)
    assert ei == et == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert [m.split("\n")[0] for m in wi] == [m.split("\n")[0] for m in wt]
    gt, _ = _nan(torch, check_nan=False)
    gi, _ = _nan(il, check_nan=False)
    assert str(gi.tolist()) == str(gt.tolist())


def test_mode_switches():
    for T in (torch, il):
        assert not T.is_anomaly_enabled() and T.is_anomaly_check_nan_enabled()
        T.autograd.set_detect_anomaly(True)
        assert T.is_anomaly_enabled()
        T.autograd.set_detect_anomaly(False)
        assert not T.is_anomaly_enabled()
        with T.autograd.set_detect_anomaly(True, check_nan=False):
            assert T.is_anomaly_enabled() and not T.is_anomaly_check_nan_enabled()
        assert not T.is_anomaly_enabled() and T.is_anomaly_check_nan_enabled()
        T.set_anomaly_enabled(True)
        assert T.is_anomaly_enabled()
        T.set_anomaly_enabled(False)


def test_off_hint_and_no_recording():
    x = il.ones(3, requires_grad=True)
    y = x * 2
    assert y.grad_fn not in il.autograd.anomaly._traces
    z = y.sin()
    y.add_(1)
    with pytest.raises(RuntimeError, match="Hint: enable anomaly detection"):
        z.sum().backward()


def _custom_failure(T):
    class Boom(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("Some error in backward")

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with T.autograd.set_detect_anomaly(True):
            x = T.ones(2, requires_grad=True)
            y = Boom.apply(x)  # the custom node
            with pytest.raises(RuntimeError, match="Some error in backward"):
                y.sum().backward()
    return [str(m.message) for m in w if m.category is UserWarning]


def test_custom_function_error_warns_with_its_forward_line():
    wt, wi = _custom_failure(torch), _custom_failure(il)
    head = "Error detected in BoomBackward. Traceback of forward call that caused the error:\n"
    assert len(wi) == len(wt) == 1
    assert wt[0].startswith(head) and wi[0].startswith(head)
    assert "y = Boom.apply(x)  # the custom node" in wi[0]
