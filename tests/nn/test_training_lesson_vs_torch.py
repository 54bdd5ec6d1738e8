"""What the training-lesson sweep (program_builder_train) found, pinned against torch 2.13.

Each test runs the same program on torch and on ``inplace_lab.torch`` and compares values,
graphs (node names down the ``next_functions``), layouts, versions and error texts."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import inplace_lab.torch as il

torch = pytest.importorskip("torch")
LIBS = (torch, il)


def _walk(fn, depth=0, out=None):
    out = [] if out is None else out
    if fn is None or depth > 8:
        return out
    out.append((depth, type(fn).__name__))
    for f, _ in fn.next_functions:
        _walk(f, depth + 1, out)
    return out


def _err(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the error is the observation
        return (type(e).__name__, str(e).split("\n")[0])
    return ("ok", tuple(r.shape) if hasattr(r, "shape") else r)


def _same(prog):
    ref, got = (prog(L) for L in LIBS)
    assert got == ref, (ref, got)


def _close(prog):
    """``prog(L)`` returns (exact, values): the first equal, the second close (float32 sums
    and products may round differently in the last bit)."""
    (ref, rv), (got, gv) = (prog(L) for L in LIBS)
    assert got == ref, (ref, got)
    for a, b in zip(rv, gv):
        np.testing.assert_allclose(np.asarray(b, dtype=float), np.asarray(a, dtype=float),
                                   rtol=1e-5, atol=1e-6)


# ---- F.linear: ATen's three paths -----------------------------------------------------------

@pytest.mark.parametrize("shape", [(4,), (2, 4), (3, 2, 4), (1, 4), (2, 1, 3, 4)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("contiguous", [True, False])
def test_linear_graph_layout_and_gradients(shape, bias, contiguous):
    """addmm for 2-D input with a bias; a contiguous input with a bias flattened through addmm
    and viewed back; else matmul (a 1-D input: SqueezeBackward4; N-D: UnsafeViewBackward0,
    not a view) and the bias added in place (AddBackward0)."""
    def prog(L):
        x = L.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        xi = x if contiguous or len(shape) < 2 else x.transpose(0, -2)
        w = (L.arange(12.0).reshape(3, 4) / 10).requires_grad_()
        b = L.tensor([0.5, -1.0, 2.0], requires_grad=True) if bias else None
        y = L.nn.functional.linear(xi, w, b)
        y.sum().backward()
        return ((tuple(y.shape), y.stride(), y._base is not None, _walk(y.grad_fn),
                 x.grad.stride()),
                [y.tolist(), x.grad.tolist(), w.grad.tolist()] + ([] if b is None else
                                                                   [b.grad.tolist()]))
    _close(prog)


def test_linear_dtype_and_shape_errors_in_atens_order():
    """addmm's meta checks the dtypes (self's, then mat1's, against mat2's) before the shapes;
    without a bias matmul's mm checks the shapes first ("expected m1 and m2 ...")."""
    def prog(L):
        F, D, S = L.nn.functional, L.float64, L.float32
        out = []
        for xs in [(2, 4), (4,), (3, 2, 4), (2, 5)]:
            for bias in (True, False):
                for xd, wd, bd in ((D, S, S), (S, D, D), (S, S, D), (S, S, S)):
                    x, w = L.ones(*xs, dtype=xd), L.ones(3, 4, dtype=wd)
                    b = L.ones(3, dtype=bd) if bias else None
                    out.append(_err(lambda: F.linear(x, w, b)))
        for sd, ad, bd in ((S, D, S), (D, S, S), (S, S, D), (D, S, D)):
            out.append(_err(lambda: L.addmm(L.ones(3, dtype=sd), L.ones(2, 4, dtype=ad),
                                            L.ones(5, 3, dtype=bd))))
        out.append(_err(lambda: F.linear(L.ones(2, 4), L.ones(4))))  # (a 1-D weight: mv)
        out += [_err(lambda: F.linear(L.ones(2, 3), L.tensor(2.0))),  # (train seed 8788)
                _err(lambda: F.linear(L.tensor(2.0), L.ones(3, 1), L.ones(3)))]
        return out
    _same(prog)


# ---- losses --------------------------------------------------------------------------------

def test_nll_loss_has_one_edge():
    """derivatives.yaml gives nll_loss a formula for self only: NllLossBackward0 has one edge
    (target and weight get none), and a weight that requires grad is refused."""
    def prog(L):
        F = L.nn.functional
        x = L.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
        t, w = L.tensor([0, 2]), L.tensor([1.0, 2.0, 3.0])
        out = [[(type(f).__name__, i) for f, i in y.grad_fn.next_functions] for y in (
            F.nll_loss(x.log_softmax(1), t), F.nll_loss(x.log_softmax(1), t, weight=w),
            F.cross_entropy(x, t), F.cross_entropy(x[0], t[0]),
            F.nll_loss(x.log_softmax(1), t, reduction="none"))]
        out.append(_err(lambda: F.nll_loss(x, t, weight=w.requires_grad_())))
        return out
    _same(prog)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight", [None, [1.0, 2.0, 3.0]])
@pytest.mark.parametrize("target", [[0, 2], [0, -100], [1, 1]])
def test_cross_entropy_label_smoothing_graph(reduction, weight, target):
    """ATen's cross_entropy_loss_label_smoothing op for op: the smoothing term's
    masked_fill_ (MaskedFillBackward0) and C++ Scalar products (MulBackward1)."""
    def prog(L):
        x = L.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
        y = L.nn.functional.cross_entropy(x, L.tensor(target), label_smoothing=0.2,
                                          weight=None if weight is None else L.tensor(weight),
                                          reduction=reduction)
        (y.sum() if reduction == "none" else y).backward()
        return _walk(y.grad_fn), [y.tolist(), x.grad.tolist()]
    _close(prog)


# ---- activations --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["hardtanh", "relu6"])
@pytest.mark.parametrize("inplace", [False, True])
def test_hardtanh_gradient_passes_nan(name, inplace):
    """hardtanh_backward zeroes the gradient where x <= min or x >= max: a NaN passes it on
    (sweep seed 128283: hardtanh_ of a NaN loss)."""
    def prog(L):
        x = L.tensor([float("nan"), 1.0, -1.0, 0.0, 6.0, 0.5], requires_grad=True)
        getattr(L.nn.functional, name)(x * 1, inplace=inplace).sum().backward()
        return x.grad.tolist()
    _same(prog)


# ---- norms: ATen's mixed-dtype rules (CPU) --------------------------------------------------

def test_norms_refuse_mixed_dtypes_as_aten():
    def prog(L):
        F, D, S, H = L.nn.functional, L.float64, L.float32, L.float16
        out = []
        for xd, pd in ((D, S), (S, D), (H, S), (H, D)):
            for train in (True, False):
                x = (L.arange(6.0).view(2, 3) + 1).to(xd)
                out += [
                    _err(lambda: F.layer_norm(x, (3,), L.ones(3, dtype=pd), L.zeros(3, dtype=pd))),
                    _err(lambda: F.layer_norm(x, (3,), L.ones(3, dtype=pd))),
                    _err(lambda: F.batch_norm(x.float() if xd is H else x, L.zeros(3, dtype=pd),
                                              L.ones(3, dtype=pd), L.ones(3, dtype=pd),
                                              L.zeros(3, dtype=pd), training=train)),
                    _err(lambda: F.group_norm(x.view(2, 3, 1).float() if xd is H else
                                              x.view(2, 3, 1), 1, L.ones(3, dtype=pd))),
                    _err(lambda: L.nn.BatchNorm1d(3).to(pd).train(train)(
                        x.float() if xd is H else x)),
                    _err(lambda: L.nn.LayerNorm(3).to(pd)(x))]
        x = L.ones(2, 3)
        out += [_err(lambda: F.layer_norm(x, (3,), L.ones(3), L.ones(3, dtype=D))),
                _err(lambda: F.batch_norm(x, L.zeros(3), L.ones(3, dtype=D), L.ones(3))),
                _err(lambda: F.layer_norm(L.ones(2, 4, dtype=D), (3,), L.ones(3))),
                _err(lambda: F.group_norm(L.ones(2, 4, dtype=D), 3, L.ones(4)))]
        return out
    _same(prog)


def test_batch_norm_in_eval_needs_running_stats():
    def prog(L):
        F, x = L.nn.functional, L.ones(2, 3)
        return [_err(lambda: F.batch_norm(x, None, L.ones(3), training=False)),
                _err(lambda: F.batch_norm(x, L.zeros(3), None, training=False)),
                _err(lambda: F.batch_norm(x.double(), None, None, L.ones(3), training=False)),
                _err(lambda: F.batch_norm(x, None, None, training=True))]
    _same(prog)


# ---- optimizers and clipping ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_optimizer_signature_and_param_groups(name):
    sig = [(p.name, p.default, p.kind) for p in
           inspect.signature(getattr(torch.optim, name).__init__).parameters.values()]
    assert sig == [(p.name, p.default, p.kind) for p in
                   inspect.signature(getattr(il.optim, name).__init__).parameters.values()]

    def prog(L):
        o = getattr(L.optim, name)([L.nn.Parameter(L.ones(2))], lr=0.1, foreach=False)
        return [(k, v) for k, v in o.param_groups[0].items() if k != "params"]
    _same(prog)


def test_fused_refusals_and_adam_decoupled_weight_decay():
    def prog(L):
        p = L.nn.Parameter(L.tensor([1.0, -2.0, 3.0]))
        out = [_err(lambda: L.optim.Adam([p], fused=True, foreach=True)),
               _err(lambda: L.optim.SGD([p], fused=True, differentiable=True)),
               _err(lambda: L.optim.Adagrad([p], fused=True, foreach=True))]
        values = []
        for opt in (lambda q: L.optim.Adam([q], lr=0.1, weight_decay=0.5,
                                           decoupled_weight_decay=True),
                    lambda q: L.optim.AdamW([q], lr=0.1, weight_decay=0.5)):
            q = L.nn.Parameter(L.tensor([1.0, -2.0, 3.0]))
            o = opt(q)
            for _ in range(3):
                (q * q).sum().backward()
                o.step()
                o.zero_grad()
            values.append(q.tolist())
        assert values[0] == values[1]
        return out + values
    _same(prog)


def test_clip_grad_value_with_no_gradient_is_refused():
    """torch 2.13 groups the gradients by device first, and its grouping refuses an empty list."""
    def prog(L):
        m = L.nn.Linear(2, 2)
        out = [_err(lambda: L.nn.utils.clip_grad_value_(m.parameters(), 0.1)),
               _err(lambda: L.nn.utils.clip_grad_value_(m.parameters(), 0.1, foreach=False)),
               _err(lambda: L.nn.utils.clip_grad_norm_(m.parameters(), 0.1))]
        m.weight.grad = L.ones(2, 2)
        L.nn.utils.clip_grad_value_(m.parameters(), 0.1)
        return out + [m.weight.grad.tolist()]
    _same(prog)


# ---- factories ------------------------------------------------------------------------------

def test_factories_take_size_by_name_and_refuse_none():
    def prog(L):
        out = [tuple(f().shape) for f in (lambda: L.ones(size=(2, 3)), lambda: L.zeros(size=[2]),
                                         lambda: L.empty(size=(1, 2)), lambda: L.rand(size=(2,)),
                                         lambda: L.randn(size=(2, 2)), lambda: L.ones(()))]
        out += [_err(f) for f in (L.ones, L.zeros, L.empty, L.randn, L.rand,
                                  lambda: L.ones((2,), size=(3,)), lambda: L.ones(size=2))]
        return out
    _same(prog)


# ---- layer norm's statistics: ATen's RowwiseMoments ------------------------------------------

@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_layer_norm_moments_and_forward_bit_for_bit(dt):
    """Welford per 8-float / 4-double lane over chunks of 16 vectors, a cascade, the scalar
    tail, fused multiply-adds where ATen's code (and its compiler) fuses: mean, 1/std and the
    normalised values are torch's to the bit (sweep seed 595: a 3-feature LayerNorm)."""
    rng = np.random.default_rng(5)
    for n in list(range(1, 40)) + [127, 128, 129, 513, 1000, 1024]:
        x = (rng.standard_normal((7, n)) * rng.choice([1, 100]) + rng.choice([0, 5])).astype(dt)
        w = rng.standard_normal(n).astype(dt)
        ref = [t.detach().numpy() for t in torch.native_layer_norm(
            torch.from_numpy(x), (n,), torch.from_numpy(w), None, 1e-5)]
        y = il.nn.functional.layer_norm(il.from_numpy(x).requires_grad_(), (n,),
                                        il.from_numpy(w))
        got = [y.detach().numpy(), y.grad_fn._saved_result1.numpy(),
               y.grad_fn._saved_result2.numpy()]
        for a, b in zip(ref, got):
            np.testing.assert_array_equal(b.reshape(a.shape), a, err_msg=f"n={n}")


def test_layer_norm_input_gradient_uses_atens_formula():
    """dx = rstd * dy * gamma + b * x + c (layer_norm_backward_frame). Close to torch, not to
    the bit: ATen's reductions and its compiler's fused multiply-adds there are not replayed,
    and a row of nearly equal values (1/std large) shows it at ~3e-5 relative in float32."""
    def prog(L):
        x = L.tensor([[0.9, -0.3, 0.45], [1.5, -0.2, 0.7]], requires_grad=True)
        w = L.tensor([1.0, -2.0, 0.5], requires_grad=True)
        y = L.nn.functional.layer_norm(x, (3,), w, L.zeros(3))
        (y.relu() ** 2).sum().backward()
        return [], [y.tolist(), x.grad.tolist(), w.grad.tolist()]
    _close(prog)


@pytest.mark.parametrize("shape", [(2, 3), (2, 4, 5), (7, 3)])
def test_batch_norm_output_bit_for_bit(shape):
    """ATen's CPU kernel: alpha = invstd * weight, beta = bias - mean * alpha, y = x * alpha +
    beta (fused), 1/std in double: eval outputs are torch's to the bit, and so are training
    outputs of a two-sample batch (sweep seed 2727; larger batches sum in another order)."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    for train in (False, True):
        out = []
        for L in LIBS:
            bn = L.nn.BatchNorm1d(shape[1]).train(train)
            with L.no_grad():
                bn.weight.copy_(L.tensor(np.linspace(0.5, 1.5, shape[1]), dtype=L.float32))
                bn.bias.fill_(-0.25)
                bn.running_mean.fill_(0.1)
                bn.running_var.fill_(0.7)
            out.append(bn(L.from_numpy(x.copy())).detach().numpy())
        if train and shape[0] * (shape[2] if len(shape) > 2 else 1) > 2:
            np.testing.assert_allclose(out[1], out[0], rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(out[1], out[0])


def test_reduced_losses_keep_the_input_sized_storage():
    """mse_loss, smooth_l1_loss, binary_cross_entropy and soft_margin_loss allocate their
    elementwise output and resize it to 0-dim for "mean"/"sum": the loss holds input-sized
    bytes (what a memory lesson counts); the composite losses hold one element."""
    def prog(L):
        F = L.nn.functional
        x, t = L.ones(5, 3, requires_grad=True), L.zeros(5, 3)
        p = L.full((5, 3), 0.5, requires_grad=True)
        out = []
        for f in (lambda r: F.mse_loss(x, t, reduction=r),
                  lambda r: F.smooth_l1_loss(x, t, reduction=r),
                  lambda r: F.binary_cross_entropy(p, t, reduction=r),
                  lambda r: F.soft_margin_loss(x, t, reduction=r),
                  lambda r: F.l1_loss(x, t, reduction=r), lambda r: F.huber_loss(x, t, reduction=r),
                  lambda r: F.mse_loss(x[0], t, reduction=r)):
            for r in ("mean", "sum"):
                y = f(r)
                out.append((y.untyped_storage().nbytes(), round(y.item(), 5), y.shape, y._version))
        F.mse_loss(x, t).backward()
        return out + [x.grad.tolist()]
    _same(prog)


def test_batch_norm_refuses_running_stats_that_require_grad():
    """Sweep seed 5159: native_batch_norm is not differentiable in its running statistics;
    its autograd kernel refuses them (grad mode on) before any kernel check."""
    def prog(L):
        F, x = L.nn.functional, L.ones(2, 3, requires_grad=True)
        rm, rv = L.zeros(3, requires_grad=True), L.ones(3, requires_grad=True)
        out = [_err(lambda: F.batch_norm(x, rm, L.ones(3), training=True)),
               _err(lambda: F.batch_norm(x, L.zeros(3), rv, training=False)),
               _err(lambda: F.batch_norm(x.double(), rm, L.ones(3), training=True)),
               _err(lambda: F.batch_norm(x, None, rv, training=False))]
        with L.no_grad():
            out.append(_err(lambda: F.batch_norm(x, rm * 1, L.ones(3), training=True)))
        return out
    _same(prog)


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 0}, {"max_norm": 1.0},
                                {"padding_idx": 2, "scale_grad_by_freq": True}])
def test_embedding_edge_and_gradient_version(kw):
    """EmbeddingBackward0 has one edge (the weight's: indices get none), and the padding rows
    are skipped while the gradient is summed, not zeroed after it: the weight's .grad is at
    version 0 (train sweep seeds 28, 350)."""
    def prog(L):
        L.manual_seed(0)
        m = L.nn.Embedding(6, 2, **kw)
        y = m(L.tensor([[1, 2], [0, 2], [2, 5]]))
        (y * y).sum().backward()
        return ([(type(f).__name__ if f else None, i) for f, i in y.grad_fn.next_functions],
                m.weight.grad._version), [m.weight.grad.tolist(), y.tolist()]
    _close(prog)


def test_embedding_weight_must_be_a_matrix():
    """Train sweep seed 6986: a weight unsqueezed in place is refused ("'weight' must be 2-D",
    a RuntimeError) before the indices are looked at."""
    def prog(L):
        F = L.nn.functional
        return [_err(lambda: F.embedding(L.tensor([[4, 2]]), L.ones(1, 6, 2))),
                _err(lambda: F.embedding(L.tensor([[4, 2]]), L.ones(6))),
                _err(lambda: F.embedding(L.tensor([[4.0]]), L.ones(6))),
                _err(lambda: F.embedding(L.tensor([[7]]), L.ones(6, 2)))]
    _same(prog)
