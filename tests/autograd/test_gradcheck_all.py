"""Every backward formula of the op table against finite differences (issue 3).

For each ``spec`` in ``OPS`` with a backward, ``CASES[name]`` builds float64 inputs in the
op's domain (differentiable ones require grad; index, mask and other non-differentiable
arguments do not, so only the differentiable inputs are checked) and
``inplace_lab.autograd.gradcheck`` compares the backward with central differences on:

* the out-of-place form, called through the dispatcher with *this* spec (so internal
  overloads such as ``_sum_dim`` or ``_max_dim`` are checked, not only public names);
* the in-place form where the op has one, on a non-leaf copy (``x.clone().op_(...)``): this
  checks the in-place backward, the clone-before-overwrite of saved inputs and the rebase of
  the clone's history.

Elementwise ops and the matmul family are also gradgradchecked (issue 3 asks second order
for those). Each check first asserts that the graph really contains a node of the spec under
test (an overload ``select`` must not silently send the call elsewhere). Ops that cannot be
checked are in ``SKIP`` with a reason; ``test_every_differentiable_op_is_checked_or_skipped``
fails when a differentiable op is added to the table without a case here.

The operand domains of the unary ops come from the elementwise differential tests (their
module needs torch, so this file is skipped with them where torch is not installed). The
in-place operand builders of tests/ops/test_inplace_errors.py make float32 constants, not
float64 inputs that require grad, so the cases below are written for gradcheck.
"""
from __future__ import annotations

import importlib
import zlib

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab.autograd import gradcheck, gradgradcheck
from inplace_lab.ops import dispatch, methods
from inplace_lab.ops.table import OPS

from tests.ops.test_elementwise import UNARY as UNARY_DOMAINS  # (lo, hi) per unary op

DIFFERENTIABLE = sorted(n for n, s in OPS.items() if s.backward is not None)
SECOND_ORDER_MODULES = {"elementwise", "unary", "activation"}
MATMUL = {"mm", "bmm", "mv", "dot", "addmm", "baddbmm"}
U = (0.1, 0.9)


class R:
    """Input maker for one case: float64 leaves requiring grad, seeded by the op's name."""

    def __init__(self, name):
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))

    def __call__(self, *shape, lo=0.1, hi=0.9, grad=True):
        data = self.rng.uniform(lo, hi, shape)
        return il.tensor(data, dtype=il.float64, requires_grad=grad)


def idx(*v):
    return il.tensor(list(v), dtype=il.int64)


def C(args, kw=None, fn=None):
    """One case: positional ``args`` (tensors and constants), keyword params ``kw``;
    ``fn`` replaces the dispatcher call when the spec is only reachable through a method."""
    return {"args": tuple(args), "kw": kw or {}, "fn": fn}


def _weighted(outs):
    """Both outputs of one node (std_mean) in one differentiable result."""
    return outs[0] + 2 * outs[1]


def _geo(shape, strides, offset=0):
    return (tuple(shape), tuple(strides), offset)


# name -> builder(r) -> case. Elementwise ops not listed get ``_elementwise_default``.
CASES = {
    # ---- reductions, scans, softmax family
    "sum": lambda r: C([r(2, 3)]),
    "_sum_dim": lambda r: C([r(2, 3, 2)], {"dim": (0, 2), "keepdim": True}),
    "mean": lambda r: C([r(2, 3)]),
    "_mean_dim": lambda r: C([r(2, 3)], {"dim": 1}),
    "prod": lambda r: C([r(2, 3, lo=0.5, hi=1.5)]),
    "_prod_dim": lambda r: C([r(2, 3, lo=0.5, hi=1.5)], {"dim": 1}),
    "max": lambda r: C([r(2, 3)]),
    "_max_dim": lambda r: C([r(2, 3)], {"dim": 1}),
    "amax": lambda r: C([r(2, 3)], {"dim": 1}),
    "min": lambda r: C([r(2, 3)]),
    "_min_dim": lambda r: C([r(2, 3)], {"dim": 0, "keepdim": True}),
    "amin": lambda r: C([r(2, 3)], {"dim": (0, 1)}),
    "var": lambda r: C([r(2, 3)], {"dim": 1}),
    "std": lambda r: C([r(2, 3)], {"dim": 0, "correction": 0}),
    "norm": lambda r: C([r(2, 3)], {"p": 3, "dim": 1}),
    # S of the reduced SVD (its U and Vh are saved, not differentiated): batched, wide
    "_linalg_svd": lambda r: C([r(2, 2, 3)], fn=lambda a: dispatch.call(OPS["_linalg_svd"],
                                                                        (a,), {}).S),
    # U and Vh parts of the SVD (ops/linalg_inverse.py), through sign-free functions of them
    "_linalg_svd_u": lambda r: C([r(2, 4, 3)], fn=lambda a: dispatch.call(
        OPS["_linalg_svd_u"], (a,), {}).U ** 2),
    "_linalg_svd_vh": lambda r: C([r(2, 3, 4)], fn=lambda a: dispatch.call(
        OPS["_linalg_svd_vh"], (a,), {}).Vh ** 2),
    # ---- determinants, inverse, cross, distances (ops/linalg_inverse.py, ops/linalg_extra.py)
    "linalg_det": lambda r: C([r(2, 3, 3)]),
    "linalg_inv": lambda r: C([r(2, 3, 3)], fn=lambda a: dispatch.call(
        OPS["linalg_inv"], (a + 2 * il.eye(3, dtype=il.float64),), {})),
    "_linalg_slogdet": lambda r: C([r(2, 3, 3)], fn=lambda a: dispatch.call(
        OPS["_linalg_slogdet"], (a + 2 * il.eye(3, dtype=il.float64),), {}).logabsdet),
    "linalg_cross": lambda r: C([r(4, 3), r(1, 3)], {"dim": 1}),
    "_cdist_forward": lambda r: C([r(2, 4, 3), r(5, 3)], {"p": 3.0}),
    "_euclidean_dist": lambda r: C([r(2, 4, 3), r(2, 5, 3)]),
    "dist": lambda r: C([r(4, 3), r(3)], {"p": 3}),
    "cumsum": lambda r: C([r(2, 3)], {"dim": 1}),
    "cumprod": lambda r: C([r(2, 3, lo=0.5, hi=1.5)], {"dim": 1}),
    "sum_to_size": lambda r: C([r(2, 3)], {"size": (1, 3)}),
    "softmax": lambda r: C([r(2, 3)], {"dim": 1}),
    "log_softmax": lambda r: C([r(2, 3)], {"dim": 0}),
    "logsumexp": lambda r: C([r(2, 3)], {"dim": 1}),
    # ---- sorting and selection (ops/sorting.py): the gradient scattered back through indices
    "sort": lambda r: C([r(2, 4)], {"dim": 1, "descending": True}),
    "_sort_stable": lambda r: C([r(3, 2)], {"dim": 0, "stable": True}),
    "topk": lambda r: C([r(2, 4)], {"k": 2}),
    "kthvalue": lambda r: C([r(3, 4)], {"k": 2, "dim": 0, "keepdim": True}),
    "median": lambda r: C([r(2, 3)]),
    "_median_dim": lambda r: C([r(2, 3)], {"dim": 1}),
    "nanmedian": lambda r: C([r(2, 3)]),
    "_nanmedian_dim": lambda r: C([r(2, 4)], {"dim": 1, "keepdim": True}),
    "mode": lambda r: C([r(2, 3)], {"dim": 1}),
    "cummax": lambda r: C([r(2, 4)], {"dim": 1}),
    "cummin": lambda r: C([r(3, 2)], {"dim": 0}),
    # ---- copies
    "clone": lambda r: C([r(2, 3)]),
    "_reshape_alias": lambda r: C([r(3, 2)], fn=lambda x: x.t().reshape(2, 3, 1)),
    "_contiguous_copy": lambda r: C([r(3, 2)], fn=lambda x: dispatch.call(
        OPS["_contiguous_copy"], (x.t(),), {})),
    "copy": lambda r: C([r(2, 3), r(3)]),  # src broadcast: its grad is summed over rows
    "fill": lambda r: C([r(2, 3), 0.5]),  # a number value: FillBackward2
    "zero": lambda r: C([r(2, 3)]),
    "_to_copy": lambda r: C([r(2, 3)], {"dtype": il.float64}),
    # ---- binary / ternary elementwise with special operands
    "add": lambda r: C([r(2, 3), r(3)], {"alpha": 2}),
    "sub": lambda r: C([r(2, 3), r(3)], {"alpha": 2}),
    "rsub": lambda r: C([r(2, 3), r(3)], {"alpha": 2}),
    "div": lambda r: C([r(2, 3), r(3, lo=0.5, hi=1.5)]),
    "pow": lambda r: C([r(2, 3, lo=0.5, hi=1.5), 2.5]),  # a number exponent: PowBackward0
    "float_power": lambda r: C([r(2, 3, lo=0.5, hi=1.5), -1.5]),
    "remainder": lambda r: C([r(2, 3, lo=1, hi=3), 0.45]),
    "fmod": lambda r: C([r(2, 3, lo=-3, hi=3), 0.45]),
    "copysign": lambda r: C([r(2, 3, lo=-1, hi=1), r(3, lo=-1, hi=1)]),
    "ldexp": lambda r: C([r(2, 3), idx(1, -1, 2)]),  # an integer exponent gets no grad
    # torch: "the derivative for 'igamma: input' is not implemented": only `other` is checked
    "igamma": lambda r: C([r(2, 3, lo=0.5, hi=2, grad=False), r(3, lo=0.5, hi=2)]),
    "igammac": lambda r: C([r(2, 3, lo=0.5, hi=2, grad=False), r(3, lo=0.5, hi=2)]),
    "where": lambda r: C([il.tensor([[True, False, True], [False, False, True]]), r(2, 3), r(3)]),
    "lerp": lambda r: C([r(2, 3), r(3), 0.3]),
    "addcmul": lambda r: C([r(2, 3), r(3), r(2, 3)], {"value": 2}),
    "addcdiv": lambda r: C([r(2, 3), r(3), r(2, 3, lo=0.5, hi=1.5)], {"value": 2}),
    "clamp": lambda r: C([r(2, 3, lo=0, hi=1), 0.3, 0.7]),  # number bounds: ClampBackward1
    "clamp_min": lambda r: C([r(2, 3, lo=0, hi=1), 0.5]),
    "clamp_max": lambda r: C([r(2, 3, lo=0, hi=1), 0.5]),
    "scale": lambda r: C([r(2, 3)], {"scale": 2.0, "bias": 1.0}),
    # ---- linear algebra
    "mm": lambda r: C([r(2, 3), r(3, 4)]),
    "bmm": lambda r: C([r(2, 2, 3), r(2, 3, 2)]),
    "mv": lambda r: C([r(2, 3), r(3)]),
    "dot": lambda r: C([r(3), r(3)]),
    "addmm": lambda r: C([r(2, 4), r(2, 3), r(3, 4)], {"beta": 0.5, "alpha": 2}),
    "baddbmm": lambda r: C([r(2, 2, 2), r(2, 2, 3), r(2, 3, 2)], {"beta": 0.5, "alpha": 2}),
    # ---- ops/linalg_more.py
    "addmv": lambda r: C([r(2), r(2, 3), r(3)], {"beta": 0.5, "alpha": 2}),
    "addr": lambda r: C([r(2, 3), r(2), r(3)], {"beta": 0.5, "alpha": 2}),
    "addbmm": lambda r: C([r(2, 4), r(3, 2, 3), r(3, 3, 4)], {"beta": 0.5, "alpha": 2}),
    "vdot": lambda r: C([r(4), r(4)]),
    "_aminmax_min": lambda r: C([r(2, 3)], {"dim": 1}, fn=lambda a: dispatch.call(
        OPS["_aminmax_min"], (a,), {"dim": 1}).min),
    "_aminmax_max": lambda r: C([r(2, 3)], fn=lambda a: dispatch.call(
        OPS["_aminmax_max"], (a,), {}).max),
    "logcumsumexp": lambda r: C([r(2, 3)], {"dim": 1}),
    "matrix_exp": lambda r: C([r(2, 3, 3)]),
    "_linalg_pinv": lambda r: C([r(3, 2)], fn=lambda a: dispatch.call(
        OPS["_linalg_pinv"], (a,), {})),
    "_linalg_qr_q": lambda r: C([r(4, 3)], fn=lambda a: dispatch.call(
        OPS["_linalg_qr_q"], (a,), {}).Q),
    "_linalg_qr_r": lambda r: C([r(4, 3)], fn=lambda a: dispatch.call(
        OPS["_linalg_qr_r"], (a,), {}).R),
    "_cholesky": lambda r: C([r(3, 3)], fn=lambda a: dispatch.call(
        OPS["_cholesky"], (a.matmul(a.mT) + 3 * il.eye(3, dtype=il.float64),), {})),
    "cholesky_inverse": lambda r: C([r(3, 3)], fn=lambda a: dispatch.call(
        OPS["cholesky_inverse"], (a.tril() + 2 * il.eye(3, dtype=il.float64),), {})),
    "_clone_contiguous": lambda r: C([r(2, 3)]),
    "trace": lambda r: C([r(3, 3)]),
    "tril": lambda r: C([r(3, 3)], {"diagonal": -1}),
    "triu": lambda r: C([r(3, 3)], {"diagonal": 1}),
    # ---- views (dispatcher's call_view; variadic sizes are positional)
    "view": lambda r: C([r(2, 3), 3, 2]),
    "squeeze": lambda r: C([r(2, 1, 3)]),
    "_squeeze_dim": lambda r: C([r(2, 1, 3)], {"dim": 1}),
    "_squeeze_dims": lambda r: C([r(2, 1, 3, 1)], {"dim": (1, 3)}),
    "unsqueeze": lambda r: C([r(2, 3)], {"dim": 1}),
    "unflatten": lambda r: C([r(2, 6)], {"dim": 1, "sizes": (2, 3)}),
    "_unsafe_view": lambda r: C([r(2, 3)], fn=lambda x: methods.unsafe_view(x * 1, (3, 2))),
    "alias": lambda r: C([r(2, 3)]),
    "permute": lambda r: C([r(2, 3, 2), 2, 0, 1]),
    "transpose": lambda r: C([r(2, 3, 2)], {"dim0": 0, "dim1": 2}),
    "swapaxes": lambda r: C([r(2, 3)], {"axis0": 0, "axis1": 1}),
    "swapdims": lambda r: C([r(2, 3)], {"dim0": 1, "dim1": 0}),
    "t": lambda r: C([r(2, 3)]),
    "movedim": lambda r: C([r(2, 3, 2)], {"source": 0, "destination": 2}),
    "moveaxis": lambda r: C([r(2, 3, 2)], {"source": 2, "destination": 0}),
    "mT": lambda r: C([r(2, 2, 3)]),
    "select": lambda r: C([r(2, 3)], {"dim": 1, "index": 2}),
    "slice": lambda r: C([r(2, 5)], {"dim": 1, "start": 1, "end": 5, "step": 2}),
    "narrow": lambda r: C([r(2, 4)], {"dim": 1, "start": 1, "length": 2}),
    "diagonal": lambda r: C([r(3, 3)], {"offset": 1}),
    "expand": lambda r: C([r(3, 1), 2, 3, 4]),
    "unfold": lambda r: C([r(2, 4)], {"dimension": 1, "size": 2, "step": 1}),
    "as_strided": lambda r: C([r(2, 3)], {"size": (2, 2), "stride": (1, 2), "storage_offset": 1}),
    "split": lambda r: C([r(4, 3)], {"split_size_or_sections": 3}),
    "_split_with_sizes": lambda r: C([r(4, 3)], {"split_size_or_sections": (1, 3)}),
    "chunk": lambda r: C([r(4, 3)], {"chunks": 2, "dim": 1}),
    "unbind": lambda r: C([r(2, 3)], {"dim": 1}),
    # the views' gradient plumbing: a transpose's cells, and an expand's (summed on overlap)
    "gather_from_geometry": lambda r: C([r(2, 3)], {"in_geo": _geo((2, 3), (3, 1)),
                                                     "view_geo": _geo((3, 2), (1, 3))}),
    "scatter_to_geometry": lambda r: C([r(2, 2, 3)], {"in_geo": _geo((2, 3), (3, 1)),
                                                       "view_geo": _geo((2, 2, 3), (0, 3, 1))}),
    # ---- activations (domains straddle the kinks; the chance to land within eps is nil)
    "relu": lambda r: C([r(2, 3, lo=-1, hi=1)]),
    "hardtanh": lambda r: C([r(2, 3, lo=-2, hi=2)]),
    "relu6": lambda r: C([r(2, 3, lo=-2, hi=8)]),
    "threshold": lambda r: C([r(2, 3, lo=0, hi=1)], {"threshold": 0.5, "value": 2.0}),
    "thresholded_relu": lambda r: C([r(2, 3, lo=0, hi=2)]),
    "leaky_relu": lambda r: C([r(2, 3, lo=-1, hi=1)], {"negative_slope": 0.2}),
    "elu": lambda r: C([r(2, 3, lo=-1, hi=1)], {"alpha": 0.7}),
    "selu": lambda r: C([r(2, 3, lo=-1, hi=1)]),
    "celu": lambda r: C([r(2, 3, lo=-1, hi=1)], {"alpha": 0.7}),
    "gelu": lambda r: C([r(2, 3, lo=-2, hi=2)]),
    "silu": lambda r: C([r(2, 3, lo=-2, hi=2)]),
    "softplus": lambda r: C([r(2, 3, lo=-3, hi=3)], {"beta": 2.0, "threshold": 4.0}),
    "hardsigmoid": lambda r: C([r(2, 3, lo=-4, hi=4)]),
    "hardswish": lambda r: C([r(2, 3, lo=-4, hi=4)]),
    "mish": lambda r: C([r(2, 3, lo=-2, hi=2)]),
    "tanhshrink": lambda r: C([r(2, 3, lo=-2, hi=2)]),
    "hardshrink": lambda r: C([r(2, 3, lo=-2, hi=2)], {"lambd": 0.5}),
    "softshrink": lambda r: C([r(2, 3, lo=-2, hi=2)], {"lambd": 0.5}),
    "_rrelu_with_noise": lambda r: C([r(2, 3, lo=-1, hi=1), r(2, 3, grad=False), 0.1, 0.3, True]),
    # ---- indexing (index/mask arguments are constants: they get no gradient)
    "index": lambda r: C([r(3, 4), (idx(1, 0, 1),)]),
    "index_put": lambda r: C([r(3, 4), (idx(2, 0),), r(2, 4)], {"accumulate": False}),
    "gather": lambda r: C([r(3, 4), 1, il.tensor([[0, 1], [2, 3], [1, 1]])]),
    "scatter": lambda r: C([r(3, 4), 0, il.tensor([[0, 1, 2, 0]]), r(1, 4)]),
    "scatter_add": lambda r: C([r(3, 4), 0, il.tensor([[0, 0, 0, 0], [0, 1, 0, 1]]), r(2, 4)]),
    "scatter_reduce": lambda r: C([r(3, 4), 0, il.tensor([[0, 0, 2, 0], [0, 1, 2, 1]]), r(2, 4)],
                                  {"reduce": "prod"}),
    "index_reduce": lambda r: C([r(3, 4), 0, idx(0, 0, 2), r(3, 4)], {"reduce": "prod"}),
    "index_select": lambda r: C([r(3, 4), 0, idx(0, 2, 0)]),
    "index_add": lambda r: C([r(3, 4), 0, idx(0, 0, 1), r(3, 4)], {"alpha": 2}),
    "index_fill": lambda r: C([r(3, 4), 1, idx(0, 3), -1.0]),
    "index_copy": lambda r: C([r(3, 4), 0, idx(2, 0, 1), r(3, 4)]),
    "masked_fill": lambda r: C([r(2, 3), il.tensor([True, False, True]), 0.5]),
    "masked_select": lambda r: C([r(2, 3), il.tensor([True, False, True])]),
    "masked_scatter": lambda r: C([r(2, 3), il.tensor([[True, False, True], [False, True, True]]),
                                   r(2, 3)]),
    "put": lambda r: C([r(3, 4), idx(0, 5, -1), r(3)]),
    "take": lambda r: C([r(3, 4), il.tensor([[0, 11], [0, 3]])]),
    # ---- random fills: the result does not depend on the input, the gradient is zero
    "uniform": lambda r: C([r(2, 3)], {"from_": -1.0, "to": 1.0}),
    "normal": lambda r: C([r(2, 3)]),
    "exponential": lambda r: C([r(2, 3)]),
    "cauchy": lambda r: C([r(2, 3)]),
    "log_normal": lambda r: C([r(2, 3)]),
    "geometric": lambda r: C([r(2, 3)], {"p": 0.3}),
    "bernoulli": lambda r: C([r(2, 3), 0.3]),
    "random": lambda r: C([r(2, 3)]),
    # ---- unary with parameters
    "polygamma": lambda r: C([r(2, 3, lo=0.5, hi=2)], {"n": 1}),
    "mvlgamma": lambda r: C([r(2, 3, lo=1.5, hi=3)], {"p": 3}),
    "round": lambda r: C([r(2, 3, lo=-3, hi=3)]),
    "logit": lambda r: C([r(2, 3, lo=0, hi=1)], {"eps": 0.2}),
    "nan_to_num": lambda r: C([r(2, 3)]),
    # ---- nn kernels
    "_conv2d": lambda r: C([r(1, 2, 4, 4), r(3, 2, 2, 2), r(3)], {"stride": 1, "padding": 1}),
    "_max_pool2d": lambda r: C([r(1, 2, 4, 4)], {"kernel_size": 2}),
    "_batch_norm": lambda r: C([r(4, 3, lo=-1, hi=1), r(3), r(3), None, None],
                               {"training": True}),
    "_embedding": lambda r: C([il.tensor([[0, 2], [2, 4]]), r(5, 3)]),
    "_layer_norm": lambda r: C([r(2, 3, 4), r(3, 4), r(3, 4)], {"normalized_shape": (3, 4)}),
    "_group_norm": lambda r: C([r(2, 4, 3), r(4), r(4)], {"num_groups": 2}),
    "_mse_loss": lambda r: C([r(2, 3), r(2, 3)]),
    "_nll_loss": lambda r: C([r(3, 4, lo=-2, hi=0), idx(1, 0, 3), r(4, grad=False)]),
    "_bce_with_logits": lambda r: C([r(2, 3, lo=-2, hi=2), r(2, 3), None, None]),
    # ---- nn_extra: pooling, conv1d, padding, losses and activations with their own kernels
    "_avg_pool2d": lambda r: C([r(1, 2, 5, 6)], {"kernel_size": 3, "stride": 2, "padding": 1,
                                                 "ceil_mode": True, "count_include_pad": False}),
    "_adaptive_avg_pool2d": lambda r: C([r(1, 2, 5, 7)], {"output_size": (2, 3)}),
    "_adaptive_max_pool2d": lambda r: C([r(1, 2, 5, 7)], {"output_size": (2, 3)}),
    "_conv1d": lambda r: C([r(2, 2, 5), r(3, 2, 3), r(3)], {"stride": 2, "padding": 1}),
    "_constant_pad_nd": lambda r: C([r(2, 3)], {"pad": (1, 2, -1, 1), "value": 0.5}),
    "_reflection_pad1d": lambda r: C([r(2, 5)], {"padding": (2, 1)}),
    "_reflection_pad2d": lambda r: C([r(1, 3, 4)], {"padding": (1, 2, 2, 1)}),
    "_reflection_pad3d": lambda r: C([r(1, 3, 3, 4)], {"padding": (1, 1, 1, 2, 2, 1)}),
    "_replication_pad1d": lambda r: C([r(2, 5)], {"padding": (2, 1)}),
    "_replication_pad2d": lambda r: C([r(1, 3, 4)], {"padding": (1, 2, 2, 1)}),
    "_replication_pad3d": lambda r: C([r(1, 3, 3, 4)], {"padding": (1, 1, 1, 2, 2, 1)}),
    "_binary_cross_entropy": lambda r: C([r(2, 3), r(2, 3), None]),
    "_smooth_l1_loss": lambda r: C([r(2, 3, lo=-2, hi=2), r(2, 3)], {"beta": 0.5}),
    "_huber_loss": lambda r: C([r(2, 3, lo=-2, hi=2), r(2, 3)], {"delta": 0.5}),
    "_paddle_huber_loss": lambda r: C([r(2, 3, lo=-2, hi=2), r(2, 3)], {"delta": 0.5}),
    "_soft_margin_loss": lambda r: C([r(2, 3, lo=-2, hi=2),
                                      il.tensor([[1.0, -1, 1], [-1, 1, 1]], dtype=il.float64)]),
    "_log_sigmoid": lambda r: C([r(2, 3, lo=-3, hi=3)]),
    "_glu": lambda r: C([r(2, 4)], {"dim": 1}),
    "_prelu": lambda r: C([r(2, 3, 4, lo=-1, hi=1), r(3)]),
    "_pixel_shuffle": lambda r: C([r(1, 8, 2, 3)], {"upscale_factor": 2}),
    "_pdist": lambda r: C([r(4, 3)], {"p": 3.0}),
    "_pixel_unshuffle": lambda r: C([r(1, 2, 4, 6)], {"downscale_factor": 2}),
    # ---- scatter_more: the out-of-place *_scatter ops (gradients for self and src)
    "select_scatter": lambda r: C([r(3, 4), r(4)], {"dim": 0, "index": 1}),
    "slice_scatter": lambda r: C([r(4, 5), r(4, 2)], {"dim": 1, "start": 1, "end": 5, "step": 2}),
    "diagonal_scatter": lambda r: C([r(3, 4), r(3)], {"offset": 1}),
    # ---- nn_conv_more / nn_pool_more: N-d and transposed convs, pools with indices, unpooling
    "_convnd": lambda r: C([r(1, 2, 3, 4, 3), r(2, 2, 2, 2, 2), r(2)], {"stride": 1, "padding": 1}),
    "_conv_transpose": lambda r: C([r(1, 2, 3, 3), r(2, 3, 2, 2), r(3)],
                                   {"stride": 2, "padding": 1, "output_padding": 1}),
    "_im2col": lambda r: C([r(1, 2, 4, 4)], {"kernel_size": (2, 2), "stride": (1, 2)}),
    "_col2im": lambda r: C([r(1, 8, 6)], {"output_size": (4, 4), "kernel_size": (2, 2),
                                          "stride": (1, 2)}),
    "_max_pool2d_with_indices": lambda r: C([r(1, 2, 4, 4)], {"kernel_size": 2},
                                            fn=lambda x: dispatch.call(
                                                OPS["_max_pool2d_with_indices"], (x,),
                                                {"kernel_size": 2})[0]),
    "_max_pool3d_with_indices": lambda r: C([r(1, 1, 4, 4, 4)], {"kernel_size": 2},
                                            fn=lambda x: dispatch.call(
                                                OPS["_max_pool3d_with_indices"], (x,),
                                                {"kernel_size": 2})[0]),
    "_adaptive_max_pool3d": lambda r: C([r(1, 1, 3, 4, 5)], fn=lambda x: dispatch.call(
        OPS["_adaptive_max_pool3d"], (x,), {"output_size": (2, 2, 3)})[0]),
    "_adaptive_avg_pool3d": lambda r: C([r(1, 2, 3, 4, 5)], {"output_size": (2, 3, 2)}),
    "_avg_pool3d": lambda r: C([r(1, 1, 4, 5, 4)], {"kernel_size": 2, "stride": 2, "padding": 1,
                                                    "ceil_mode": True}),
    "_max_unpool2d": lambda r: C([r(1, 1, 2, 2), il.tensor([[[[0, 3], [9, 15]]]])],
                                 {"output_size": (4, 4)}),
    "_max_unpool3d": lambda r: C([r(1, 1, 1, 2, 2), il.tensor([[[[[0, 3], [9, 15]]]]])],
                                 {"output_size": (2, 2, 4)}),
    "_channel_shuffle": lambda r: C([r(1, 4, 2, 2)], {"groups": 2}),
    "_multi_margin_loss": lambda r: C([r(3, 4, lo=-1, hi=1), idx(1, 0, 3), r(4, grad=False)],
                                      {"p": 2, "margin": 0.7}),
    "_multilabel_margin_loss": lambda r: C([r(2, 4, lo=-1, hi=1),
                                            il.tensor([[3, 0, -1, 1], [1, 2, 3, -1]])]),
    # ATen's ctc gradient assumes log-probabilities: checked through log_softmax, as torch's
    "_ctc_loss": lambda r: C([r(5, 2, 3, lo=-1, hi=1)], fn=lambda x: dispatch.call(
        OPS["_ctc_loss"], (x.log_softmax(2), il.tensor([1, 2, 2]), il.tensor([5, 4]),
                           il.tensor([2, 1])), {})),
    # ---- torch-level shape/reduction functions (ops/extra_shape.py, ops/extra_numeric.py)
    "rot90": lambda r: C([r(2, 3, 4)], {"k": 3, "dims": (2, 0)}),
    "diag_embed": lambda r: C([r(2, 3)], {"offset": -1, "dim1": 0, "dim2": 2}),
    "_diag_copy": lambda r: C([r(3, 4)], fn=lambda a: il.diag(a, 1)),
    "nansum": lambda r: C([r(2, 3)], {"dim": 1, "keepdim": True}),
    "_std_mean": lambda r: C([r(2, 3)], fn=lambda a: _weighted(il.std_mean(a, 1))),
    "_var_mean": lambda r: C([r(2, 3)], fn=lambda a: _weighted(il.var_mean(a, correction=0))),
    # ---- Paddle ops
    "fill_diagonal": lambda r: C([r(3, 3)], {"fill_value": 0.5, "offset": 1}),
    "fill_diagonal_tensor": lambda r: C([r(3, 3), r(3, grad=False)]),  # src: nondiff
    "put_along_axis": lambda r: C([r(3, 4), il.tensor([[0, 1, 2, 0]]), r(1, 4)], {"dim": 0}),
    "renorm": lambda r: C([r(3, 4, lo=0, hi=1)], {"p": 2.0, "dim": 0, "maxnorm": 1.0}),
}

# Other overloads of table ops (unregistered specs reached through ``select``), checked too:
# id -> (op, node name the call must reach, builder).
VARIANTS = {
    "pow[tensor exponent]": ("pow", "PowBackward1", lambda r: C([r(2, 3, lo=0.5, hi=1.5),
                                                                 r(3, lo=-1, hi=2)])),
    "float_power[tensor]": ("float_power", "PowBackward1",
                            lambda r: C([r(2, 3, lo=0.5, hi=1.5), r(3, lo=-1, hi=2)])),
    "remainder[tensor]": ("remainder", "RemainderBackward1",
                          lambda r: C([r(2, 3, lo=1, hi=3), r(3, lo=0.4, hi=0.6)])),
    "fmod[tensor]": ("fmod", "FmodBackward1",
                     lambda r: C([r(2, 3, lo=-3, hi=3), r(3, lo=0.4, hi=0.6)])),
    "clamp[tensor]": ("clamp", "ClampBackward0", lambda r: C(
        [r(2, 3, lo=0, hi=1), r(3, lo=0.1, hi=0.4), r(3, lo=0.6, hi=0.9)])),
    "clamp_min[tensor]": ("clamp_min", "ClampMinBackward1",
                          lambda r: C([r(2, 3, lo=0, hi=1), r(3, lo=0.3, hi=0.7)])),
    "clamp_max[tensor]": ("clamp_max", "ClampMaxBackward1",
                          lambda r: C([r(2, 3, lo=0, hi=1), r(3, lo=0.3, hi=0.7)])),
    "lerp[tensor weight]": ("lerp", "LerpBackward1", lambda r: C([r(2, 3), r(3), r(2, 3)])),
    "bernoulli[tensor p]": ("bernoulli", "BernoulliBackward1", lambda r: C([r(2, 3), r(2, 3)])),
    "random[from, to]": ("random", "RandomBackward0", lambda r: C([r(2, 3), 0, 5])),
    "fill[tensor value]": ("fill", "FillBackward3",  # value gets grad.sum()
                           lambda r: C([r(2, 3), r()])),
    "scatter[value]": ("scatter", "ScatterBackward1",
                       lambda r: C([r(3, 4), 0, il.tensor([[0, 1, 2, 0]]), 2.0])),
    "scatter_reduce[mean, no self]": ("scatter_reduce", None, lambda r: C(
        [r(3, 4), 1, il.tensor([[0, 0, 3], [2, 2, 2], [1, 3, 1]]), r(3, 3)],
        {"reduce": "mean", "include_self": False})),
    "scatter_reduce[amax]": ("scatter_reduce", None, lambda r: C(
        [r(3, 4), 0, il.tensor([[0, 1, 2, 0], [0, 1, 2, 1]]), r(2, 4, lo=0.5, hi=1.5)],
        {"reduce": "amax"})),
    "index_reduce[amin, no self]": ("index_reduce", None, lambda r: C(
        [r(3, 4), 1, idx(3, 0, 3), r(3, 3)], {"reduce": "amin", "include_self": False})),
    "index_fill[tensor value]": ("index_fill", "IndexFillBackward1",
                                 lambda r: C([r(3, 4), 1, idx(0, 3), r()])),
    "masked_fill[tensor value]": ("masked_fill", "MaskedFillBackward1",
                                  lambda r: C([r(2, 3), il.tensor([True, False, True]), r()])),
}

# Ops that cannot be gradchecked here, each with its reason.
SKIP: dict[str, str] = {
    "as_strided_scatter": "PyTorch 2.13's self gradient passes g through the scattered cells and "
                          "zeroes the rest (torch's own gradcheck fails); copied as torch gives it "
                          "and compared there (tests/facades/test_torch_more_vs_torch.py)",
    "_normal_tensor": "not reparameterised: NormalBackward1/2/3 give zero gradients (as "
                      "PyTorch's), which finite differences of the draws do not",
    "_bernoulli_tensor": "not reparameterised: BernoulliBackward0 gives zero gradients (as "
                         "PyTorch's), which finite differences of the draws do not",
    "poisson": "not reparameterised: PoissonBackward0's zero gradient (as PyTorch's)",
    "binomial": "not reparameterised: BinomialBackward0's zero gradient (as PyTorch's)",
    "_unique2": "no derivative: its backward raises NotImplementedError, as PyTorch's _unique2",
    "heaviside": "no derivative: PyTorch's NotImplemented node, whose backward raises "
                 "(tests/differential/test_sweep_regressions_wide.py)",
    "bincount": "no derivative: weights that require grad give PyTorch's NotImplemented node, "
                "whose backward raises (tests/ops/test_faithfulness_probes.py)",
}

# Cases of later modules, one file each: tests/autograd/cases_<part>.py defines
# ``cases(C, R, idx) -> {name: builder}`` and may define a ``SKIP`` dict of its own.
for _part in ("linalg_solve", "nn_sample", "tensor_misc", "paddle_more", "nn_packing", "upsample",
              "special"):
    _cases_module = importlib.import_module(f"tests.autograd.cases_{_part}")
    CASES.update(_cases_module.cases(C, R, idx))
    SKIP.update(getattr(_cases_module, "SKIP", {}))

# Ops that exist only in place (their kernel refuses to allocate a result: "copy_ is in-place
# only", random fills write their target): only the in-place form is checked.
INPLACE_ONLY = {"copy", "fill", "zero", "uniform", "normal", "exponential", "cauchy", "log_normal",
                "geometric", "bernoulli", "random"}

# In-place forms that refuse backward exactly as PyTorch does (a separate overload with no
# derivative): checked to raise, not gradchecked.
INPLACE_REFUSES = {"acosh": "inplace version of acosh", "asinh": "inplace version of asinh",
                   "atanh": "inplace version of atanh"}

RANDOM = {"uniform", "normal", "exponential", "cauchy", "log_normal", "geometric", "bernoulli",
          "random"}


def _module(spec):
    return spec.forward.__module__.rsplit(".", 1)[-1] if spec.forward else ""


def _elementwise_default(name):
    """Every argument a tensor: self (2, 3), the others (3,) (their grads are broadcast-summed)."""
    spec = OPS[name]
    if _module(spec) not in SECOND_ORDER_MODULES:
        return None
    lo, hi = UNARY_DOMAINS.get(name, U)

    def build(r):
        return C([r(2, 3, lo=lo, hi=hi)] + [r(3, lo=lo, hi=hi) for _ in spec.args[1:]])

    return build


def _builder(name):
    return CASES.get(name) or _elementwise_default(name)


def _entry(spec):
    return dispatch.call_view if spec.kind == "view" else dispatch.call


def _seeded(name, f):
    """Random fills redraw on every call: reseed so finite differences see one draw."""
    if name not in RANDOM:
        return f

    def g(*a):
        il.manual_seed(0)
        return f(*a)

    return g


def _out_of_place(name, case):
    spec = OPS[name]
    if case["fn"] is not None:
        return case["fn"]
    kw = case["kw"]
    return _seeded(name, lambda *a: _entry(spec)(spec, a, kw))


def _in_place(name, case):
    spec = OPS[name]
    kw = case["kw"]
    return _seeded(name, lambda x, *a: dispatch.call_inplace(spec, (x.clone(),) + a, kw))


def _graph_specs(outs):
    """The specs of every op node reachable from ``outs``."""
    seen, stack, specs = set(), [o.grad_fn for o in outs if o.grad_fn is not None], set()
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        if hasattr(f, "spec"):
            specs.add(f.spec)
        stack.extend(g for g, _ in f.next_functions)
    return specs


def _assert_reaches(spec, node, fn, args):
    """The graph of ``fn(*args)`` has a node of ``spec`` (or named ``node``, for an overload)."""
    res = fn(*args)
    outs = [o for o in (res if isinstance(res, tuple) else (res,)) if isinstance(o, il.Tensor)]
    specs = _graph_specs(outs)
    if node is not None:
        ok = node in {s.node_name for s in specs}
    else:
        ok = any(s is spec or s is spec.inplace_spec for s in specs)
    assert ok, f"the case for {spec.name} reaches {sorted(s.node_name for s in specs)}, not " \
               f"{node or spec.node_name}"


def _second_order(name):
    return _module(OPS[name]) in SECOND_ORDER_MODULES or name in MATMUL


CHECKED = sorted(n for n in DIFFERENTIABLE if n not in SKIP and _builder(n) is not None)
# (id, op, node name of an overload or None, builder)
ALL = [(n, n, None, _builder(n)) for n in CHECKED] + \
      [(v, op, node, b) for v, (op, node, b) in VARIANTS.items()]
OUT_OF_PLACE = [c for c in ALL if c[1] not in INPLACE_ONLY]
IN_PLACE = [c for c in ALL if OPS[c[1]].inplace and c[1] not in INPLACE_REFUSES]


def test_every_differentiable_op_is_checked_or_skipped():
    missing = [n for n in DIFFERENTIABLE if n not in SKIP and _builder(n) is None]
    assert not missing, f"differentiable ops without a gradcheck case or a SKIP reason: {missing}"
    assert not set(SKIP) & set(CASES), "an op is both checked and skipped"
    stale = [n for n in list(SKIP) + list(CASES) + [v[0] for v in VARIANTS.values()]
             if n not in OPS or OPS[n].backward is None]
    assert not stale, f"cases or skips for ops that are gone or not differentiable: {stale}"
    assert all(OPS[n].inplace for n in INPLACE_ONLY | set(INPLACE_REFUSES))


def _check(name, node, build, inplace):
    spec = OPS[name]
    case = build(R(name if node is None else node))
    fn = (_in_place if inplace else _out_of_place)(name, case)
    _assert_reaches(spec, node, fn, case["args"])
    assert gradcheck(fn, case["args"])
    if _second_order(name):
        assert gradgradcheck(fn, case["args"])


@pytest.mark.parametrize("name,node,build", [c[1:] for c in OUT_OF_PLACE],
                         ids=[c[0] for c in OUT_OF_PLACE])
def test_out_of_place_backward_matches_finite_differences(name, node, build):
    _check(name, node, build, inplace=False)


@pytest.mark.parametrize("name,node,build", [c[1:] for c in IN_PLACE], ids=[c[0] for c in IN_PLACE])
def test_in_place_backward_on_a_non_leaf_matches_finite_differences(name, node, build):
    _check(name, node, build, inplace=True)


@pytest.mark.parametrize("name", sorted(INPLACE_REFUSES))
def test_in_place_forms_without_a_derivative_refuse_backward(name):
    x = R(name)(2, 3, lo=1.1 if name == "acosh" else 0.1, hi=1.9 if name == "acosh" else 0.9)
    y = getattr(x.clone(), name + "_")()
    with pytest.raises(NotImplementedError, match=INPLACE_REFUSES[name]):
        y.sum().backward()
