"""Coverage of PyTorch's and Paddle's in-place APIs, and the table's in-place flags.

Every in-place Tensor method of torch 2.13 (introspected) and every name on Paddle 3.3.1's
in-place list (SEMANTICS.md section 9) is either implemented here or listed in ``NOT_YET``
with a reason. The test fails both ways: a missing, unlisted name, and a listed name that
has since been implemented (so the list shrinks as work lands). Paddle names whose Paddle
signature differs from the op (``reshape_(shape)``...) belong to the Paddle facade
(``FACADE_OWNED``) and are not counted as missing here.

The table's ``torch_inplace`` / ``paddle_inplace`` flags must say exactly whether the
framework has some ``name_`` (or an alias's) for the op.
"""
import pytest

import inplace_lab as il
from inplace_lab.ops import functions
from inplace_lab.ops.table import OPS

torch = pytest.importorskip("torch")

# Not in-place ops on dense tensors (storage, sparse, quantized, named tensors, autograd flags).
TORCH_EXCLUDED = {
    "share_memory_", "resize_as_sparse_", "sparse_resize_", "sparse_resize_and_clear_",
    "requires_grad_", "rename_", "refine_names_", "align_to_",
}

TORCH_INPLACE = {n for n in dir(torch.Tensor)
                 if n.endswith("_") and not n.startswith("_") and n not in TORCH_EXCLUDED}
TORCH_ANY = TORCH_INPLACE | {n for ns in (torch, torch.nn.functional) for n in dir(ns)
                             if n.endswith("_") and not n.startswith("_")}

# SEMANTICS.md section 9, verbatim.
PADDLE_TENSOR = set("""
abs_ acos_ acosh_ add_ addmm_ apply_ asin_ asinh_ atan_ atanh_ baddbmm_ bernoulli_ bitwise_and_
bitwise_invert_ bitwise_left_shift_ bitwise_not_ bitwise_or_ bitwise_right_shift_ bitwise_xor_
cast_ cauchy_ ceil_ clamp_ clip_ copy_ copysign_ cos_ cosh_ cumprod_ cumsum_ detach_ digamma_
div_ divide_ equal_ erfinv_ exp_ exponential_ fill_ fill_diagonal_ fill_diagonal_tensor_
flatten_ floor_ floor_divide_ floor_mod_ frac_ gammainc_ gammaincc_ gammaln_ gcd_ geometric_
grad_ greater_equal_ greater_than_ hypot_ i0_ index_add_ index_fill_ index_put_ lcm_ ldexp_
lerp_ less_ less_equal_ less_than_ lgamma_ log10_ log1p_ log2_ log_ log_normal_ logical_and_
logical_not_ logical_or_ logical_xor_ logit_ masked_fill_ masked_scatter_ mod_ mul_
multigammaln_ multiply_ nan_to_num_ neg_ normal_ not_equal_ polygamma_ pow_ put_along_axis_
random_ reciprocal_ reconstruct_from_ remainder_ renorm_ requires_grad_ reshape_ resize_
round_ rsqrt_ scale_ scatter_ scatter_add_ set_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_
squeeze_ sub_ subtract_ t_ tan_ tanh_ transpose_ tril_ triu_ trunc_ uniform_ unsqueeze_
where_ zero_
""".split())
PADDLE_FUNCTIONAL = {"elu_", "embedding_renorm_", "hardtanh_", "leaky_relu_", "relu_", "softmax_",
                     "tanh_", "thresholded_relu_"}  # 3.3.1 exports embedding_renorm_ too
PADDLE_MODULE_EXTRA = {"erf_", "expm1_"}
PADDLE_ANY = PADDLE_TENSOR | PADDLE_FUNCTIONAL | PADDLE_MODULE_EXTRA

# Paddle names whose Paddle signature is not the op's: the Paddle facade (issue 4) maps them.
FACADE_OWNED = {
    "reshape_": "paddle reshape_(shape): metadata in place, facade over reshape + set geometry",
    "flatten_": "paddle flatten_(start_axis, stop_axis): facade over flatten",
    "t_": "exists as Tensor.t_; paddle's signature is the facade's",
    "transpose_": "paddle transpose_(perm) is torch's permute_: facade",
    "squeeze_": "paddle squeeze_(axis) takes axis lists: facade",
    "unsqueeze_": "paddle unsqueeze_(axis) takes axis lists: facade",
    "cast_": "paddle cast_(dtype) changes the dtype of the same object: facade",
    "reconstruct_from_": "paddle-internal re-binding of a tensor to another's storage: facade",
    "set_": "paddle set_(source, shape, stride, offset): facade over storage re-binding",
    "grad_": "an attribute of paddle tensors, not a method",
    "where_": "paddle.where_(condition, x, y) writes into x, the second argument: facade",
    "requires_grad_": "not an op: flips a flag, no version bump",
    "detach_": "not an op: drops history, no version bump",
}

# Not implemented yet, each with a reason. Keep it small: implement rather than list.
NOT_YET = {
    "conj_physical_": "complex conjugate in place: complex ops are not in the table yet",
}

# Table flags known to disagree with the frameworks (owners: the op's module). Strict xfails:
# fixing the flag makes the test fail until the entry goes.
FLAG_MISMATCH: dict[str, str] = {}


def implemented(name: str) -> bool:
    return hasattr(il.Tensor, name) or name in functions


def _names(spec):
    return (spec.name,) + tuple(spec.aliases)


def _paddle_names(spec):
    """The names Paddle calls ``spec`` by: its own and its aliases, less those Paddle gives
    to another op (``equal`` is Paddle's ``eq``), plus Paddle's renames to it."""
    from inplace_lab.paddle.inplace import RENAMES

    return tuple(n for n in _names(spec) if n not in RENAMES) + tuple(
        k for k, v in RENAMES.items() if v == spec.name)


def test_not_yet_entries_are_really_missing():
    done = sorted(n for n in NOT_YET if implemented(n))
    assert not done, f"implemented now, remove from NOT_YET: {done}"


def test_every_torch_in_place_method_is_implemented_or_listed():
    missing = sorted(n for n in TORCH_INPLACE if not implemented(n) and n not in NOT_YET)
    assert not missing, f"torch in-place methods neither implemented nor in NOT_YET: {missing}"


def test_every_paddle_in_place_name_is_implemented_facade_owned_or_listed():
    from inplace_lab.paddle import inplace

    def renamed(n):  # (Paddle's name for an op the table calls otherwise: equal_ is eq's)
        spec = inplace.op_of(n)
        return spec is not None and spec.inplace and n[:-1] in inplace.RENAMES

    missing = sorted(n for n in PADDLE_ANY - set(FACADE_OWNED)
                     if not implemented(n) and not renamed(n) and n not in NOT_YET)
    assert not missing, f"Paddle in-place names neither implemented nor listed: {missing}"


def test_facade_owned_names_are_on_paddles_list():
    assert set(FACADE_OWNED) <= PADDLE_ANY


def test_paddle_list_is_paddles_own():
    paddle = pytest.importorskip("paddle")
    live = {n for n in dir(paddle.Tensor) if n.endswith("_") and not n.startswith("_")}
    assert PADDLE_TENSOR <= live | {"grad_"}
    assert {n for n in PADDLE_FUNCTIONAL if hasattr(paddle.nn.functional, n)} == PADDLE_FUNCTIONAL
    assert all(hasattr(paddle, n) for n in PADDLE_MODULE_EXTRA)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=FLAG_MISMATCH[n]))
    if n in FLAG_MISMATCH else n for n in sorted(OPS)])
def test_table_flags_match_the_frameworks(name):
    spec = OPS[name]
    if spec.kind == "view" or name.startswith("_"):
        return
    torch_has = any(n + "_" in TORCH_ANY for n in _names(spec))
    paddle_has = any(n + "_" in PADDLE_ANY for n in _paddle_names(spec))
    assert spec.torch_inplace == torch_has, f"{name}: torch_inplace should be {torch_has}"
    assert spec.paddle_inplace == paddle_has, f"{name}: paddle_inplace should be {paddle_has}"
    own = [n + "_" for n in _names(spec) if n + "_" not in FACADE_OWNED]
    if any(n in TORCH_ANY for n in own) or any(
            n + "_" in PADDLE_ANY and n + "_" not in FACADE_OWNED for n in _paddle_names(spec)):
        assert spec.inplace, f"{name}: a framework has {name}_ but the table has no in-place form"


def test_every_in_place_form_is_installed_under_every_name():
    for spec in OPS.values():
        if spec.inplace:
            for n in _names(spec):
                assert hasattr(il.Tensor, n + "_") and n + "_" in functions
