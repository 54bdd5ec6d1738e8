"""Result layouts against torch 2.13: the strides of a fresh result, op by op.

A course on memory asks ``y.is_contiguous()`` and ``y.stride()`` after ops on transposed,
permuted and sliced tensors, so each result's strides are PyTorch's, not numpy's:
elementwise ops of several tensors follow TensorIterator (the first input with an opinion
decides), ``cat``/``softmax``/``cumsum``/indexing allocate contiguous results, ``flip``/``sort``
keep their input's layout (``empty_like``), ``nonzero`` writes column by column
(``OpSpec.layout``, ``dispatch.result_layout``). Each case runs on both and compares shape,
strides, contiguity and values.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ilt = pytest.importorskip("inplace_lab.torch")

SETUP = """
xt = T.arange(1., 7.).reshape(2, 3).t() / 7                  # (3, 2) strides (1, 3)
xc = T.arange(1., 7.).reshape(3, 2) / 9                      # (3, 2) contiguous
xs = T.arange(1., 13.).reshape(3, 4)[:, ::2] / 13            # (3, 2) strides (4, 2): not dense
xp = T.arange(1., 25.).reshape(2, 3, 4).permute(2, 0, 1) / 25  # (4, 2, 3) strides (1, 12, 4)
x1 = T.arange(1., 4.).reshape(1, 3); x1.t_()                 # (3, 1) strides (1, 3)
x4 = T.arange(24.).reshape(1, 3, 4, 2).permute(0, 3, 1, 2)   # channels-last (1, 2, 3, 4)
"""

CASES = [
    # TensorIterator: two tensors of one shape, mixed layouts
    "xt * xc", "xc * xt", "xt + xc", "xc - xt", "xt / xc", "xt > xc", "T.maximum(xt, xc)",
    "T.atan2(xt, xc)", "T.where(xt > 0.3, xt, xc)", "T.where(xc > 0.3, xc, xt)",
    "T.lerp(xt, xc, 0.5)", "T.addcmul(xt, xc, xc)", "T.clamp(xt, xc, xc + 1)",
    "T.pow(xt, xc)", "T.rsub(xc, xt)", "T.rsub(xt, xc)", "xs * xc", "xs + xt", "xt * xs",
    "xt.contiguous().t() * xt.t()", "xp * xp.contiguous()", "xp.contiguous() * xp",
    # broadcasting: a broadcast dim has no say
    "T.ones(1, 2) + xt", "xt + T.ones(3, 1)", "T.ones(3, 1).expand(3, 2) * xt",
    "xp + T.ones(2, 3)", "T.ones(4, 1, 1) * xp",
    # one tensor and numbers
    "xt * 2", "2 * xt", "2 - xt", "xt / 2", "x1 / 2", "x1 * 3.0", "xs * 2", "xp + 1",
    "T.pow(2, xt)", "2 ** xt", "T.pow(xt, 2)", "T.float_power(2, xt)", "T.where(xt > 0.3, xt, 0.)",
    # one tensor: its own layout kept
    "xt.exp()", "xs.exp()", "xp.sigmoid()", "xt.clamp(0.2, 0.5)", "xt.relu()", "xt.double()",
    "xs.double()", "xt.clone()", "xs.clone()", "T.zeros_like(xt)", "xt.nan_to_num()",
    # contiguous results
    "T.cat([xt, xt])", "T.cat([xt, xt], 1)", "T.cat([xp, xp], 1)", "T.stack([xt, xt])",
    "xt.masked_fill(xt > 0.3, 0.)", "xt[:, [0, 1]]", "xt[[0, 2]]", "xt[xt > 0.3]",
    "xt.index_select(0, T.tensor([0, 1]))", "xt.gather(0, T.zeros(3, 2, dtype=T.long))",
    "xt.cumsum(0)", "xp.cumsum(1)", "xt.cumprod(1)", "xt.cummax(0).values", "xt.cummin(0).indices",
    "xt.softmax(0)", "xp.softmax(1)", "xt.log_softmax(1)",
    "xs.t().softmax(1)", "xt.roll(1, 0)", "xt.roll(1)", "xp.tril()", "xp.triu(1)", "xt.tril()",
    "T.linalg.cross(T.ones(2, 3).t(), T.ones(3, 2), dim=0)", "xt.repeat(2, 1)", "xt.tile(2)",
    # empty_like: the input's layout
    "xt.flip(0)", "xp.flip(1)", "xs.flip(0)", "xs.t().flip(0)", "xt.sort(0).values",
    "xt.sort(0).indices", "xp.sort(1).values", "xt.argsort(0)", "xt.msort()",
    # rot90: flip, then a transposed view
    "T.rot90(xt)", "T.rot90(xt, 2)", "T.rot90(xt, 3)", "T.rot90(xt, 0)", "T.rot90(xp, 1, [1, 2])",
    "T.rot90(xp, -1, [2, 0])", "T.rot90(xs)",
    # nonzero writes column by column
    "T.nonzero(xt)", "T.nonzero(T.zeros(2, 3))", "T.argwhere(xp > 0.5)",
    # cat keeps channels-last when every input is
    "T.cat([x4, x4])", "T.cat([x4, x4.contiguous()])", "T.cat([x4.contiguous(), x4])",
    # put clones its input (preserve); renorm and the samplers allocate contiguous results
    "xt.put(T.tensor([0]), T.tensor([5.]))", "xp.put(T.tensor([1, 2]), T.tensor([5., 6.]))",
    "xt.renorm(2, 0, 1.0)", "T.bernoulli(xt * 0)", "T.poisson(xt * 0)", "T.binomial(xt * 0, xt)",
    # the pointwise losses (reduction='none') run TensorIterator over input and target
    "T.nn.functional.mse_loss(xt, xc, reduction='none')",
    "T.nn.functional.binary_cross_entropy(xt, xc, reduction='none')",
    "T.nn.functional.smooth_l1_loss(xt, xc, reduction='none')",
    "T.nn.functional.huber_loss(xc, xt, reduction='none')",
    # batch norm: channels-last in, channels-last out; any other layout: contiguous
    "T.nn.functional.batch_norm(x4, None, None, training=True)",
    "T.nn.functional.batch_norm(xp.unsqueeze(0), None, None, training=True)",
    "T.nn.functional.batch_norm(xp.unsqueeze(0), T.zeros(4), T.ones(4))",
    "T.nn.functional.layer_norm(x4, (4,))", "T.nn.functional.layer_norm(xp, (3,))",
]


def _run(T, expr):
    ns = {"T": T}
    exec(SETUP, ns)  # noqa: S102
    r = eval(expr, ns)  # noqa: S307
    return (tuple(r.shape), r.stride(), r.is_contiguous()), r.double().numpy()


@pytest.mark.parametrize("expr", CASES)
def test_result_strides_match_torch(expr):
    import numpy as np

    (got, gv), (want, wv) = _run(ilt, expr), _run(torch, expr)
    assert got == want
    np.testing.assert_allclose(gv, wv, rtol=1e-6)  # (libm's last bit may differ: not the point)


@pytest.mark.parametrize("expr", ["xt * xc", "T.cat([xt, xt])", "xt.flip(0)", "T.rot90(xp, 1, [1, 2])"])
def test_relaid_result_is_its_own_storage_with_autograd(expr):
    """A result laid out anew is still a fresh tensor: own storage, version 0, and gradients
    flow through it as torch's do."""
    grads = []
    for T in (torch, ilt):
        ns = {"T": T}
        exec(SETUP, ns)  # noqa: S102
        for k in ("xt", "xc", "xp"):
            ns[k] = ns[k].detach().requires_grad_()
        r = eval(expr, ns)  # noqa: S307
        assert r._version == 0 and r._base is None
        assert r.untyped_storage().data_ptr() not in {
            ns[k].untyped_storage().data_ptr() for k in ("xt", "xc", "xp")}
        (r * T.arange(float(r.numel())).reshape(r.shape)).sum().backward()
        grads.append([None if ns[k].grad is None else ns[k].grad.tolist() for k in ("xt", "xc", "xp")])
    assert grads[0] == grads[1]


@pytest.mark.parametrize("expr", ["x.permute()", "T.permute(x)", "x.expand()", "x.reshape()",
                                  "x.view()", "x.repeat()"])
def test_size_arguments_missing_is_torchs_type_error(expr):
    errs = []
    for T in (torch, ilt):
        with pytest.raises(TypeError) as e:
            eval(expr, {"T": T, "x": T.ones(2, 2)})  # noqa: S307
        errs.append(str(e.value))
    assert errs[0] == errs[1]


def test_empty_dims_tuple_is_still_an_argument():
    for T in (torch, ilt):
        assert T.ones(()).permute(()).shape == () and T.ones(()).view(()).shape == ()


def test_lane_takes_the_full_path_only_for_a_layout_of_its_own():
    """The fast lane stays fast for contiguous operands (the same strides tuple) and hands a
    mixed-layout call to ``call``, which lays the result out (no numpy C-order result)."""
    a, b = ilt.ones(3, 2), ilt.ones(3, 2)
    assert a._strides is b._strides  # (factories and results take the strides' one tuple)
    assert (a * b)._strides is a._strides
    for expr, want in (("a.t() * b.t()", (1, 2)), ("a.t().contiguous() * b.t()", (3, 1)),
                       ("b.t() * a.t().contiguous()", (1, 2))):
        assert eval(expr).stride() == want  # noqa: S307
        ta, tb = torch.ones(3, 2), torch.ones(3, 2)
        assert eval(expr, {"a": ta, "b": tb}).stride() == want  # noqa: S307


OUT_PROGRAMS = [
    "o = T.ones(2, 3); x = T.zeros(4, 2).transpose(-1, 0); T.add(x, 1, out=o)",
    "o = T.ones(2, 3, 2, dtype=T.float64); x = T.zeros(2, 3).t(); T.mul(x, 2, out=o)",
    "o = T.empty(0); x = T.ones(2, 3).t(); T.neg(x, out=o)",
    "o = T.empty(0); x = T.ones(2, 3).t(); T.cat([x, x], out=o)",
    "o = T.empty(0); x = T.ones(2, 3).t(); T.matmul(x, x.t(), out=o)",
    "o = T.empty(0); x = T.ones(2, 3).t(); T.add(x.contiguous(), x, out=o)",
    "o = T.empty(0); x = T.ones(2, 3).t(); T.clamp(x, 0, 1, out=o)",
    "o = T.empty(0); x = T.ones(2, 3).t(); T.sum(x, 0, out=o)",
]


@pytest.mark.parametrize("src", OUT_PROGRAMS)
def test_resized_out_takes_torchs_layout(src):
    """An elementwise op restrides the ``out=`` it resizes as TensorIterator lays out its
    result; other ops resize it contiguous."""
    import warnings

    got = []
    for T in (torch, ilt):
        ns = {"T": T}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(src, ns)  # noqa: S102
        got.append((ns["o"].stride(), ns["o"].tolist()))
    assert got[0] == got[1]


@pytest.mark.parametrize("expr", ["-1.0 - x", "x.clamp(0, 3)", "x.pow(2)", "x * 2", "x > 1",
                                  "T.lerp(x, x, 0.5)", "T.where(x > 1, x, 0.)", "x % 2",
                                  "x.clone()", "x.exp()", "x + x"])
def test_size_one_dims_keep_torchs_strides(expr):
    """A [1, 2] with strides (1, 1) (a transposed [2, 1]): TensorIterator treats a wrapped
    number as an operand (x * 2: its own order) but not a unary kernel's Scalar (x.pow(2),
    clamp: contiguous); clone keeps a dense input's strides exactly."""
    got = []
    for T in (torch, ilt):
        x = T.tensor([[1.97], [1.79]]).transpose(1, 0)
        got.append(eval(expr, {"T": T, "x": x}).stride())  # noqa: S307
    assert got[0] == got[1]


@pytest.mark.parametrize("src", ["xp", "xt", "xs", "xp.transpose(0, 2)"])
def test_reductions_of_any_layout_come_back_contiguous(src):
    """ATen allocates a reduction's result contiguous, whatever the input's layout (numpy's
    keeps the input's order): sum, mean, amax, max/median values and indices, var, argmax,
    logsumexp, norm, prod, over each dim, with and without keepdim."""
    got = []
    for T in (torch, ilt):
        ns = {"T": T}
        exec(SETUP, ns)  # noqa: S102
        t = eval(src, ns)  # noqa: S307
        r = []
        for d in range(t.dim()):
            for kd in (False, True):
                r += [t.sum(d, keepdim=kd).stride(), t.mean(d, keepdim=kd).stride(),
                      t.amax(d, keepdim=kd).stride(), t.max(d, keepdim=kd).values.stride(),
                      t.max(d, keepdim=kd).indices.stride(), t.var(d, keepdim=kd).stride(),
                      t.argmax(d, keepdim=kd).stride(), t.logsumexp(d, keepdim=kd).stride(),
                      t.norm(dim=d, keepdim=kd).stride(), t.prod(d, keepdim=kd).stride(),
                      t.median(d, keepdim=kd).values.stride()]
        got.append(r)
    assert got[0] == got[1]


GRAD_CASES = [  # (expr of x, a (4, 3) transposed view of a contiguous leaf)
    # ATen's *_backward kernels: TensorIterator over (grad, input): the gradient's layout wins
    "F.elu(x)", "F.celu(x)", "F.selu(x)", "F.hardshrink(x, 0.3)", "F.softshrink(x, 0.3)",
    "F.hardsigmoid(x)", "F.hardswish(x)", "F.hardtanh(x)", "F.relu6(x)", "x.logit()",
    "F.logsigmoid(x)", "F.elu(x.clone(), inplace=True)",
    # formulas ``f(x) * grad``: the input's layout wins
    "x.erf()", "x.erfc()", "x.erfinv()", "x.sinc()", "F.prelu(x, T.tensor([0.25]))",
    # the legacy loss backwards write into a contiguous zeros_like
    "F.mse_loss(x, T.zeros(4, 3), reduction='none')", "F.smooth_l1_loss(x, T.zeros(4, 3))",
    "F.huber_loss(x, T.zeros(4, 3), reduction='sum')", "F.soft_margin_loss(x, T.ones(4, 3))",
    # binary_cross_entropy_with_logits_backward works in place (version 2, +weight, +mean)
    "F.binary_cross_entropy_with_logits(x, T.zeros(4, 3), reduction='none')",
    "F.binary_cross_entropy_with_logits(x, T.zeros(4, 3), weight=T.ones(3))",
    "F.binary_cross_entropy_with_logits(x, T.zeros(4, 3), pos_weight=T.ones(3) * 2)",
    # already right before: the array lane and TensorIterator formulas
    "x.tanh()", "x.sigmoid()", "x.relu()", "x * T.ones(4, 3)", "x.exp()", "F.gelu(x)",
]


@pytest.mark.parametrize("expr", GRAD_CASES)
def test_input_gradient_layout_and_version_match_torch(expr):
    """The layout a backward kernel gives its input gradient decides whether the leaf behind a
    transposed view steals it (version 0) or copies it (version 1): strides, versions and
    values of the leaf's gradient, and of the gradient the op's node hands on, as torch's."""
    got = []
    for T in (torch, ilt):
        leaf = (T.arange(12.).reshape(3, 4) / 12 * 0.8 + 0.1).requires_grad_()
        r = eval(expr, {"T": T, "F": T.nn.functional, "x": leaf.t()})  # noqa: S307
        seen = []
        r.grad_fn.register_hook(lambda gi, go: seen.append((gi[0].stride(), gi[0]._version)))
        (r * T.arange(float(r.numel())).reshape(r.shape)).sum().backward()
        got.append((leaf.grad.stride(), leaf.grad._version, seen, leaf.grad.detach().numpy()))
    import numpy as np

    assert got[0][:3] == got[1][:3]
    np.testing.assert_allclose(got[1][3], got[0][3], rtol=1e-5)  # (libm's last bits)


def test_batch_norm_output_follows_suggest_memory_format_on_every_permutation():
    """batch_norm's output is ``empty_like(input, input.suggest_memory_format())``: every
    permutation of every (N, C, H, W) in {1, 2, 3}^4, strides as torch's (size-1 dims make
    a tensor both contiguous and channels-last: contiguous wins)."""
    import itertools

    bad = []
    for shape in itertools.product([1, 2, 3], repeat=4):
        for perm in itertools.permutations(range(4)):
            src = tuple(shape[p] for p in perm)
            back = [perm.index(i) for i in range(4)]
            got = []
            for T in (torch, ilt):
                x = T.arange(float(src[0] * src[1] * src[2] * src[3])).reshape(src).permute(*back)
                got.append(T.nn.functional.batch_norm(x, T.zeros(shape[1]), T.ones(shape[1])).stride())
            if got[0] != got[1]:
                bad.append((shape, perm, got))
    assert not bad, bad[:5]


@pytest.mark.parametrize("src", [
    "T.empty(0, 3) * 2", "T.ones(0, 1) * T.ones(1, 3)", "T.ones(2, 0, 1) + 1",
    "T.ones(1, 0) + T.ones(3, 1)", "T.ones(0, 1, 3)[:, :, :] * 2", "T.ones(3, 1, 0) * 2",
    "T.ones(0, 1, 1, 2) * 3", "T.ones(0, 3).t() * 2", "T.ones(2, 0, 1).exp()",
    "T.ones(0, 1, 3) + T.ones(0, 1, 3)", "T.ones(0, 1, 3).add(T.ones(3))",
    "T.ones(4, 1, 0).mul(T.ones(1, 2, 1))", "T.ones(2, 3)[1:-1, None, ...] * -0.25",
])
def test_an_empty_results_strides_multiply_by_its_zero_size(src):
    """TensorIterator lays an empty result out like any other, and its strides multiply by
    the 0 size: a size-1 dim after it in the iterator's order gets stride 0 (wide seed
    83829), while an op of same-shape inputs keeps their (contiguous) strides."""
    got, ref = eval(src, {"T": ilt}), eval(src, {"T": torch})
    assert (tuple(got.shape), got.stride(), got.is_contiguous()) == \
        (tuple(ref.shape), ref.stride(), ref.is_contiguous())
