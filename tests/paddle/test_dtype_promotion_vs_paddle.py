"""Paddle 3.3.1's checks of operand dtypes, run on real Paddle and on the facade.

Paddle's binary kernels (its type-promotion white list) refuse two tensors of different
dtypes unless both are floating point or one is complex: ``int64 + float32`` is a
TypeError in Paddle, where PyTorch promotes. A 0-D tensor takes part like a Python number
(no check) out of place, but not in place. Composite functions check what Paddle's do
(einsum's CPU kernel dtypes and label sizes, inner's last dims, cross's axis of size 3).
Each case compares the result's dtype and values, or the error's type and exact text.
"""
import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
warnings.filterwarnings("ignore")

import inplace_lab.paddle as lab  # noqa: E402

PAIRS = [("int64", "float32"), ("float32", "int64"), ("int32", "int64"), ("bool", "float32"),
         ("float16", "float32"), ("float32", "float64"), ("int64", "complex64"),
         ("float32", "float32")]
BINARY = {
    "op_add": lambda L, x, y: x + y,
    "op_sub": lambda L, x, y: x - y,
    "op_mul": lambda L, x, y: x * y,
    "op_truediv": lambda L, x, y: x / y,
    "op_pow": lambda L, x, y: x ** y,
    "op_eq": lambda L, x, y: x == y,
    "op_lt": lambda L, x, y: x < y,
    "add": lambda L, x, y: L.add(x, y),
    "subtract": lambda L, x, y: L.subtract(x, y),
    "multiply": lambda L, x, y: L.multiply(x, y),
    "divide": lambda L, x, y: L.divide(x, y),
    "pow": lambda L, x, y: L.pow(x, y),
    "equal": lambda L, x, y: L.equal(x, y),
    "less_than": lambda L, x, y: L.less_than(x, y),
    "greater_equal": lambda L, x, y: L.greater_equal(x, y),
    "fmax": lambda L, x, y: L.fmax(x, y),
    "minimum": lambda L, x, y: L.minimum(x, y),
    "logical_and": lambda L, x, y: L.logical_and(x, y),
    "method_add": lambda L, x, y: x.add(y),
}
# complex operands: Paddle's kernels for these are missing (a different error), not compared
NO_COMPLEX = {"op_lt", "less_than", "greater_equal", "fmax", "minimum", "logical_and", "op_pow",
              "pow"}


def _outcome(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 (the error is the outcome compared)
        return type(e).__name__, str(e)
    return str(out.dtype).split(".")[-1], np.asarray(out.numpy()).tolist()


def _both(fn):
    return [_outcome(lambda: fn(L)) for L in (paddle, lab)]


@pytest.mark.parametrize("pair", PAIRS, ids=["/".join(p) for p in PAIRS])
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_ops_check_dtypes_as_paddle(op, pair):
    a, b = pair
    if "complex64" in pair and op in NO_COMPLEX:
        pytest.skip("Paddle has no kernel for this op on complex numbers")

    def run(L):
        x = L.to_tensor(np.array([1, 2])).astype(a)
        y = L.to_tensor(np.array([1, 1])).astype(b)
        return BINARY[op](L, x, y)

    p, q = _both(run)
    assert q == p


@pytest.mark.parametrize("case", ["int_0d_times_float", "float_times_int_0d", "int_times_float_0d"])
def test_a_0d_tensor_is_not_checked_out_of_place(case):
    def run(L):
        i, f = L.to_tensor([1, 2]), L.to_tensor([1.5, 2.0])
        i0, f0 = L.to_tensor(2), L.to_tensor(1.5)
        return {"int_0d_times_float": lambda: i0 * f, "float_times_int_0d": lambda: f * i0,
                "int_times_float_0d": lambda: L.multiply(i, f0)}[case]()

    p, q = _both(run)
    assert q == p and p[0] == "float32"


@pytest.mark.parametrize("case", ["int64_add_float32", "int64_add_0d_float32", "int32_add_int64",
                                  "bool_add_float32", "float32_multiply_int64",
                                  "float32_add_float64"])
def test_in_place_ops_check_dtypes_as_paddle(case):
    def run(L):
        x = {"int64": L.to_tensor([1, 2]), "int32": L.to_tensor([1, 2], dtype="int32"),
             "bool": L.to_tensor([True, False]), "float32": L.to_tensor([1.0, 2.0])}
        y = {"float32": L.to_tensor([1.0, 1.0]), "0d": L.to_tensor(1.0),
             "int64": L.to_tensor([1, 1]), "float64": L.to_tensor([1.0, 1.0], dtype="float64")}
        a, op, b = case.split("_", 2)
        b = "0d" if b == "0d_float32" else b
        target = x[a]
        before = target.numpy().tolist()
        try:
            return getattr(target, op + "_")(y[b])
        except TypeError:
            assert target.numpy().tolist() == before and target.inplace_version == 0
            raise

    p, q = _both(run)
    assert q == p


ERRORS = {
    "einsum_label_sizes": lambda L: L.einsum("ij,jk->ik", L.ones([3, 4]), L.ones([5, 4])),
    "einsum_int64": lambda L: L.einsum("ij->ji", L.to_tensor([[1, 2]])),
    "einsum_float16": lambda L: L.einsum("ij->ji", L.ones([1, 2], dtype="float16")),
    "einsum_mixed_floats": lambda L: L.einsum("ij,jk->ik", L.ones([1, 2]),
                                              L.ones([2, 2], dtype="float64")),
    "einsum_list_of_operands": lambda L: L.einsum("ij->ji", [L.ones([1, 2])]),
    "inner_last_dims": lambda L: L.inner(L.ones([2, 3]), L.ones([2, 2])),
    "inner_int64": lambda L: L.inner(L.to_tensor([[1, 2]]), L.to_tensor([[1, 2]])),
    "outer_int_float": lambda L: L.outer(L.to_tensor([1, 2]), L.to_tensor([1.5])),
    "outer_empty": lambda L: L.outer(L.zeros([0]), L.ones([3])),
    "cross_no_axis_of_3": lambda L: L.cross(L.ones([2, 2]), L.ones([2, 2])),
    "cross_default_axis": lambda L: L.cross(L.to_tensor(np.arange(12.0).reshape(4, 3)),
                                            L.to_tensor(np.ones((4, 3)))),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_composites_answer_or_refuse_as_paddle(case):
    p, q = _both(ERRORS[case])
    assert q == p


def test_cross_with_the_default_axis_gives_no_pytorch_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lab.cross(lab.ones([4, 3]), lab.ones([4, 3]))


MATMUL_SHAPES = [([2, 3, 4], [5, 6], False, False), ([3, 4], [5, 6], False, False),
                 ([4], [5], False, False), ([2, 3, 4], [3, 4, 5], False, False),
                 ([2, 1, 3, 4], [5, 4, 5], False, False), ([3, 4], [5, 6], True, False),
                 ([3, 4], [5, 6], False, True), ([2, 3, 4], [2, 5], False, True),
                 ([4], [2, 5, 6], False, False), ([4, 2, 3, 4], [3, 1, 4, 5], False, False),
                 ([2, 3, 4], [4], False, False), ([3, 4], [2, 6, 4], False, True)]


@pytest.mark.parametrize("xs,ys,tx,ty", MATMUL_SHAPES)
def test_matmul_shapes_answer_or_refuse_as_paddle(xs, ys, tx, ty):
    p, q = _both(lambda L: L.matmul(L.ones(xs), L.ones(ys), transpose_x=tx, transpose_y=ty))
    assert q == p
