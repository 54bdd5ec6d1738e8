"""Pooling and padding nodes save what torch 2.13's nodes save.

A pool's or a reflect/replicate pad's backward is linear and reads only the input's shape,
yet PyTorch's nodes save the input (``_saved_self``); the max pools also save their indices,
the op's second result (``_saved_result1``, int64, packed after the input). A saved input is
version-checked: ``y = F.avg_pool2d(h, 2); h.add_(1); y.sum().backward()`` fails in torch,
so it must fail here, with torch's message. ``dir(y.grad_fn)`` lists what a node keeps, and a
pack hook sees each saved tensor in torch's order.
"""
import pytest

from tests.differential.harness import attempt, compare_torch

_CASES = {  # name -> (input shape, F-program on the non-leaf input h)
    "avg_pool1d": ((1, 2, 6), lambda F, h: F.avg_pool1d(h, 2)),
    "avg_pool2d": ((1, 2, 6, 6), lambda F, h: F.avg_pool2d(h, 2)),
    "avg_pool2d ceil_mode divisor_override": (
        (1, 2, 6, 6), lambda F, h: F.avg_pool2d(h, 3, 2, 1, ceil_mode=True, divisor_override=2)),
    "avg_pool3d": ((1, 2, 4, 4, 4), lambda F, h: F.avg_pool3d(h, 2)),
    "adaptive_avg_pool1d": ((1, 2, 6), lambda F, h: F.adaptive_avg_pool1d(h, 3)),
    "adaptive_avg_pool2d": ((1, 2, 6, 6), lambda F, h: F.adaptive_avg_pool2d(h, 3)),
    "adaptive_avg_pool3d": ((1, 2, 4, 4, 4), lambda F, h: F.adaptive_avg_pool3d(h, 2)),
    "interpolate area": ((1, 2, 4, 4), lambda F, h: F.interpolate(h, size=2, mode="area")),
    "max_pool1d": ((1, 2, 6), lambda F, h: F.max_pool1d(h, 2)),
    "max_pool1d return_indices": ((1, 2, 6), lambda F, h: F.max_pool1d(h, 2, return_indices=True)),
    "max_pool2d": ((1, 2, 6, 6), lambda F, h: F.max_pool2d(h, 2)),
    "max_pool2d ceil_mode": ((1, 2, 7, 7), lambda F, h: F.max_pool2d(h, 3, 2, 1, ceil_mode=True)),
    "max_pool2d return_indices": ((1, 2, 6, 6),
                                  lambda F, h: F.max_pool2d(h, 2, return_indices=True)),
    "max_pool3d": ((1, 2, 4, 4, 4), lambda F, h: F.max_pool3d(h, 2)),
    "adaptive_max_pool1d": ((1, 2, 6), lambda F, h: F.adaptive_max_pool1d(h, 3)),
    "adaptive_max_pool2d": ((1, 2, 6, 6), lambda F, h: F.adaptive_max_pool2d(h, 3, True)),
    "adaptive_max_pool3d": ((1, 2, 4, 4, 4), lambda F, h: F.adaptive_max_pool3d(h, 2, True)),
    "fractional_max_pool2d": ((1, 2, 6, 6), lambda F, h: F.fractional_max_pool2d(
        h, 2, output_size=3, return_indices=True, _random_samples=h.new_full((1, 2, 2), 0.3))),
    "fractional_max_pool3d": ((1, 2, 6, 6, 6), lambda F, h: F.fractional_max_pool3d(
        h, 2, output_size=3, return_indices=True, _random_samples=h.new_full((1, 2, 3), 0.3))),
    "lp_pool1d": ((1, 2, 6), lambda F, h: F.lp_pool1d(h, 2, 2)),
    "lp_pool2d": ((1, 2, 6, 6), lambda F, h: F.lp_pool2d(h, 2, 2)),
    "reflect pad 1d": ((1, 2, 6), lambda F, h: F.pad(h, (1, 2), mode="reflect")),
    "reflect pad 2d": ((1, 2, 6, 6), lambda F, h: F.pad(h, (1, 2, 1, 1), mode="reflect")),
    "reflect pad 3d": ((1, 2, 4, 4, 4), lambda F, h: F.pad(h, (1,) * 6, mode="reflect")),
    "replicate pad 1d": ((1, 2, 6), lambda F, h: F.pad(h, (1, 2), mode="replicate")),
    "replicate pad 2d": ((1, 2, 6, 6), lambda F, h: F.pad(h, (1, 2, 1, 1), mode="replicate")),
    "replicate pad 3d": ((1, 2, 4, 4, 4), lambda F, h: F.pad(h, (1,) * 6, mode="replicate")),
    "constant pad": ((1, 2, 6), lambda F, h: F.pad(h, (1, 2), value=0.5)),
    "circular pad": ((1, 2, 6), lambda F, h: F.pad(h, (1, 2), mode="circular")),
    "max_unpool2d": ((1, 2, 4, 4), lambda F, h: F.max_unpool2d(
        *F.max_pool2d(h, 2, return_indices=True), 2)),
    "interpolate bilinear": ((1, 2, 4, 4), lambda F, h: F.interpolate(
        h, scale_factor=2, mode="bilinear")),
    "interpolate nearest": ((1, 2, 4, 4), lambda F, h: F.interpolate(h, size=(5, 7))),
}


def _node(y):
    """The pool's own node (a 1-D pool is the 2-D one between unsqueeze and squeeze)."""
    node = y.grad_fn
    while node.name().startswith("Squeeze"):
        node = node.next_functions[0][0]
    return node


def _program(case):
    shape, f = _CASES[case]

    def prog(T):
        F = T.nn.functional
        x = T.arange(float(_size(shape))).reshape(shape).sin().requires_grad_()
        h = x * 1  # (a non-leaf: written in place below)
        log = []

        def pack(t):
            role = "input" if t is h else "int64" if t.dtype == T.int64 else "other"
            log.append((role, str(t.dtype), tuple(t.shape)))
            return t
        with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = f(F, h)
        y, idx = out if isinstance(out, tuple) else (out, None)
        node = _node(y)
        names = sorted(n for n in dir(node) if n.startswith("_saved_"))
        res = {"node": node.name(), "names": names, "packed": log,
               "tensors": sorted(n for n in names if hasattr(getattr(node, n), "shape"))}
        if "_saved_self" in names:
            res["saved self is the input"] = node._saved_self is h
        if idx is not None and "_saved_result1" in names:
            res["saved result1 equals the indices"] = node._saved_result1.tolist() == idx.tolist()
        h.add_(1)
        res["backward after writing the input"] = attempt(lambda: y.sum().backward())
        return res
    return prog


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@pytest.mark.parametrize("case", sorted(_CASES))
def test_pool_and_pad_nodes_save_what_torchs_save(case):
    """The node's ``_saved_*`` names, the pack-hook log (role, dtype, shape), the saved input's
    identity and the error when the saved input is written before backward, as torch's."""
    compare_torch(_program(case), facade=True)


def test_max_pool_gradient_goes_to_the_last_nan_as_atens_indices():
    """An input that requires grad goes through max_pool2d_with_indices, as in ATen: the
    gradient follows the indices (the last NaN of a window), not a recomputed argmax."""
    def prog(T):
        out = {}
        for name, f in (("2d", lambda F, x: F.max_pool2d(x, (1, 4))),
                        ("1d", lambda F, x: F.max_pool1d(x[0], 4))):
            x = T.tensor([[[[1.0, float("nan"), float("nan"), 2.0]]]], requires_grad=True)
            y = f(T.nn.functional, x)
            y.sum().backward()
            out[name] = (y.detach(), x.grad)
        return out
    compare_torch(prog, facade=True)


def test_max_pool_without_grad_is_the_same_values():
    """Without a graph the kernel without indices gives the values (NaN and -0.0 included)."""
    def prog(T):
        x = T.tensor([[[[-0.0, 0.0, float("nan"), 1.0], [0.0, -0.0, 2.0, -1.0]]]])
        return {"2d": T.nn.functional.max_pool2d(x, 2), "1d": T.nn.functional.max_pool1d(x[0], 2)}
    compare_torch(prog, facade=True)


@pytest.mark.parametrize("case", ["adaptive_avg_pool2d", "adaptive_max_pool2d", "max_unpool2d",
                                  "constant pad"])
def test_extra_scalar_attributes(case):
    """torch's adaptive pools, max_unpool and constant_pad_nd keep no output_size or value
    (OpSpec.node_attrs hides those params from ``dir(y.grad_fn)``)."""
    shape, f = _CASES[case]

    def prog(T):
        F = T.nn.functional
        out = f(F, T.ones(shape, requires_grad=True) * 1)
        y = out[0] if isinstance(out, tuple) else out
        return sorted(n for n in dir(_node(y)) if n.startswith("_saved_"))
    compare_torch(prog, facade=True)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_paddle_pads_do_not_check_their_input(mode):
    """Paddle's Pad3dGradNode keeps x for its shape only: writing the input before backward
    is no error there (the core's reflect/replicate ops save it for torch; Paddle's renamed
    copies save nothing)."""
    import numpy as np
    import paddle

    import inplace_lab.paddle as P

    def prog(M):
        x = M.to_tensor(np.arange(6.0, dtype=np.float32).reshape(1, 1, 6))
        x.stop_gradient = False
        h = x * 1
        y = M.nn.functional.pad(h, [1, 2], mode=mode, data_format="NCL")
        h.add_(M.ones_like(h))
        (y * M.to_tensor(np.arange(9.0, dtype=np.float32).reshape(1, 1, 9))).sum().backward()
        return x.grad.numpy()
    np.testing.assert_array_equal(prog(P), prog(paddle))
