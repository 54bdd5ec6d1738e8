"""One case per Paddle 3.3.1 in-place API: an input in the op's domain and its arguments.

``T(...)`` marks a tensor argument, built by whichever library runs the case
(real paddle or inplace_lab.paddle), so one table drives both.
"""
from __future__ import annotations

import numpy as np


class T:
    """A tensor argument: data, dtype, and stop_gradient."""

    def __init__(self, data, dtype="float32", stop_gradient=True):
        self.data, self.dtype, self.stop_gradient = np.array(data), dtype, stop_gradient

    def make(self, lib):
        return lib.to_tensor(self.data.astype(self.dtype), dtype=self.dtype,
                             stop_gradient=self.stop_gradient)


def f(*v):
    return T(list(v))


def i(*v):
    return T(list(v), "int64")


def b(*v):
    return T(list(v), "bool")


U = f(0.2, 0.5, 0.7)  # inside (0, 1): every unary op's domain
M = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])

# name -> (target, args, kwargs, kind); kind "random" compares shape/dtype/version only
CASES = {
    "abs_": (f(-1.5, 2.0, -3.0), (), {}, ""),
    "acos_": (U, (), {}, ""),
    "acosh_": (f(1.5, 2.0, 3.0), (), {}, ""),
    "add_": (f(1, 2, 3), (f(1, 1, 1),), {"alpha": 2}, ""),
    "addmm_": (T(np.ones((2, 2))), (T([[1.0, 2.0], [3.0, 4.0]]), T(np.eye(2))),
               {"beta": 0.5, "alpha": 2.0}, ""),
    "apply_": (f(1, 2, 3), (lambda t: t * 2,), {}, ""),
    "asin_": (U, (), {}, ""),
    "asinh_": (U, (), {}, ""),
    "atan_": (U, (), {}, ""),
    "atanh_": (U, (), {}, ""),
    "baddbmm_": (T(np.ones((1, 2, 2))), (T(np.ones((1, 2, 3))), T(np.ones((1, 3, 2)))), {}, ""),
    "bernoulli_": (U, (0.5,), {}, "random"),
    "bitwise_and_": (i(12, 10, 7), (i(10, 6, 3),), {}, ""),
    "bitwise_invert_": (i(12, 10, 7), (), {}, ""),
    "bitwise_left_shift_": (i(1, 2, 3), (i(1, 2, 3),), {}, ""),
    "bitwise_not_": (i(12, 10, 7), (), {}, ""),
    "bitwise_or_": (i(12, 10, 7), (i(10, 6, 3),), {}, ""),
    "bitwise_right_shift_": (i(16, 32, 64), (i(1, 2, 3),), {}, ""),
    "bitwise_xor_": (i(12, 10, 7), (i(10, 6, 3),), {}, ""),
    "cast_": (f(1.5, 2.0, 3.0), ("float64",), {}, ""),
    "cauchy_": (U, (), {}, "random"),
    "ceil_": (f(1.5, -2.2, 3.0), (), {}, ""),
    "clamp_": (f(-1, 0.5, 3), (), {"min": 0.0, "max": 1.0}, ""),
    "clip_": (f(-1, 0.5, 3), (0.0, 1.0), {}, ""),
    "copy_": (f(1, 2, 3), (f(4, 5, 6),), {}, ""),
    "copysign_": (f(1, 2, 3), (f(-1, 1, -1),), {}, ""),
    "cos_": (U, (), {}, ""),
    "cosh_": (U, (), {}, ""),
    "cumprod_": (f(1, 2, 3), (0,), {}, ""),
    "cumsum_": (f(1, 2, 3), (0,), {}, ""),
    "detach_": (f(1, 2, 3), (), {}, ""),
    "digamma_": (f(1.5, 2.0, 3.0), (), {}, ""),
    "div_": (f(1, 2, 3), (f(2, 4, 8),), {}, ""),
    "divide_": (f(1, 2, 3), (f(2, 4, 8),), {}, ""),
    "equal_": (f(1, 2, 3), (f(1, 0, 3),), {}, ""),
    "erfinv_": (U, (), {}, ""),
    "exp_": (U, (), {}, ""),
    "exponential_": (U, (), {}, "random"),
    "fill_": (f(1, 2, 3), (7.0,), {}, ""),
    "fill_diagonal_": (M, (0.0,), {}, ""),
    "fill_diagonal_tensor_": (M, (f(0, 0, 0),), {}, ""),
    "flatten_": (T([[1.0, 2.0], [3.0, 4.0]]), (), {}, ""),
    "floor_": (f(1.5, -2.2, 3.0), (), {}, ""),
    "floor_divide_": (i(7, 9, -5), (i(2, 4, 2),), {}, ""),
    "floor_mod_": (f(7, 9, -5), (f(2, 4, 2),), {}, ""),
    "frac_": (f(1.5, -2.25, 3.0), (), {}, ""),
    "gammainc_": (f(1, 2, 3), (f(0.5, 1, 2),), {}, ""),
    "gammaincc_": (f(1, 2, 3), (f(0.5, 1, 2),), {}, ""),
    "gammaln_": (f(1.5, 2.0, 3.0), (), {}, ""),
    "gcd_": (i(12, 18, 7), (i(8, 12, 5),), {}, ""),
    "geometric_": (U, (0.5,), {}, "random"),
    "greater_equal_": (f(1, 2, 3), (f(2, 2, 2),), {}, ""),
    "greater_than_": (f(1, 2, 3), (f(2, 2, 2),), {}, ""),
    "hypot_": (f(3, 5, 8), (f(4, 12, 15),), {}, ""),
    "i0_": (U, (), {}, ""),
    "index_add_": (T(np.ones((3, 2))), (i(0, 2), 0, T([[1.0, 2.0], [3.0, 4.0]])), {}, ""),
    "index_fill_": (T(np.ones((3, 2))), (i(0, 2), 0, -1.0), {}, ""),
    "index_put_": (f(1, 2, 3), ((i(0, 2),), f(9, 8)), {}, ""),
    "lcm_": (i(4, 6, 7), (i(6, 8, 3),), {}, ""),
    "ldexp_": (f(1, 2, 3), (i(1, 2, 3),), {}, ""),
    "lerp_": (f(1, 2, 3), (f(3, 4, 5), 0.25), {}, ""),
    "less_": (f(1, 2, 3), (f(2, 2, 2),), {}, ""),
    "less_equal_": (f(1, 2, 3), (f(2, 2, 2),), {}, ""),
    "less_than_": (f(1, 2, 3), (f(2, 2, 2),), {}, ""),
    "lgamma_": (f(1.5, 2.0, 3.0), (), {}, ""),
    "log10_": (f(1, 10, 100), (), {}, ""),
    "log1p_": (U, (), {}, ""),
    "log2_": (f(1, 2, 8), (), {}, ""),
    "log_": (f(1, 2, 3), (), {}, ""),
    "log_normal_": (U, (), {}, "random"),
    "logical_and_": (b(True, False, True), (b(True, True, False),), {}, ""),
    "logical_not_": (b(True, False, True), (), {}, ""),
    "logical_or_": (b(True, False, False), (b(True, True, False),), {}, ""),
    "logical_xor_": (b(True, False, True), (b(True, True, False),), {}, ""),
    "logit_": (U, (), {}, ""),
    "masked_fill_": (f(1, 2, 3), (b(True, False, True), 0.0), {}, ""),
    "masked_scatter_": (f(1, 2, 3), (b(True, False, True), f(7, 8, 9)), {}, ""),
    "mod_": (f(7, 9, -5), (f(2, 4, 2),), {}, ""),
    "mul_": (f(1, 2, 3), (f(2, 3, 4),), {}, ""),
    "multigammaln_": (f(2.5, 3.0, 4.0), (2,), {}, ""),
    "multiply_": (f(1, 2, 3), (f(2, 3, 4),), {}, ""),
    "nan_to_num_": (f(np.nan, np.inf, -np.inf), (), {"nan": 1.0, "posinf": 2.0, "neginf": -2.0},
                    ""),
    "neg_": (f(1, -2, 3), (), {}, ""),
    "normal_": (U, (), {}, "random"),
    "not_equal_": (f(1, 2, 3), (f(1, 0, 3),), {}, ""),
    "polygamma_": (f(1.5, 2.0, 3.0), (1,), {}, ""),
    "pow_": (f(1, 2, 3), (2.0,), {}, ""),
    "put_along_axis_": (f(1, 2, 3), (i(0, 2), f(9, 8), 0), {}, ""),
    "random_": (f(1, 2, 3), (0, 10), {}, "random"),
    "reciprocal_": (f(1, 2, 4), (), {}, ""),
    "reconstruct_from_": (f(1, 2, 3), (f(4, 5, 6),), {}, ""),
    "remainder_": (f(7, 9, -5), (f(2, 4, 2),), {}, ""),
    "renorm_": (T([[1.0, 2.0], [3.0, 4.0]]), (2.0, 0, 1.0), {}, ""),
    "requires_grad_": (f(1, 2, 3), (), {}, ""),
    "reshape_": (f(1, 2, 3, 4), ([2, 2],), {}, ""),
    "resize_": (f(1, 2, 3, 4), ([2, 2],), {}, ""),
    "round_": (f(1.4, -2.6, 3.5), (), {}, ""),
    "rsqrt_": (f(1, 4, 16), (), {}, ""),
    "scale_": (f(1, 2, 3), (2.0,), {"bias": 1.0}, ""),
    "scatter_": (T(np.ones((3, 2))), (i(2, 0), T([[1.0, 2.0], [3.0, 4.0]])), {}, ""),
    "scatter_add_": (T(np.ones((2, 2))), (0, T([[0, 1], [1, 0]], "int64"),
                                          T([[1.0, 2.0], [3.0, 4.0]])), {}, ""),
    "set_": (f(1, 2, 3), (f(4, 5, 6, 7),), {}, ""),
    "sigmoid_": (U, (), {}, ""),
    "sin_": (U, (), {}, ""),
    "sinc_": (U, (), {}, ""),
    "sinh_": (U, (), {}, ""),
    "sqrt_": (f(1, 4, 9), (), {}, ""),
    "square_": (f(1, -2, 3), (), {}, ""),
    "squeeze_": (T([[1.0, 2.0, 3.0]]), (0,), {}, ""),
    "sub_": (f(1, 2, 3), (f(1, 1, 1),), {"alpha": 2}, ""),
    "subtract_": (f(1, 2, 3), (f(1, 1, 1),), {"alpha": 2}, ""),
    "t_": (T([[1.0, 2.0], [3.0, 4.0]]), (), {}, ""),
    "tan_": (U, (), {}, ""),
    "tanh_": (U, (), {}, ""),
    "transpose_": (T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), ([1, 0],), {}, ""),
    "tril_": (M, (), {}, ""),
    "triu_": (M, (1,), {}, ""),
    "trunc_": (f(1.5, -2.7, 3.0), (), {}, ""),
    "uniform_": (U, (), {"min": -1.0, "max": 1.0}, "random"),
    "unsqueeze_": (f(1, 2, 3), (0,), {}, ""),
    "where_": (b(True, False, True), (f(1, 2, 3), f(7, 8, 9)), {}, "where"),
    "zero_": (f(1, 2, 3), (), {}, ""),
    # module level only
    "erf_": (U, (), {}, ""),
    "expm1_": (U, (), {}, ""),
    # paddle.nn.functional
    "elu_": (f(-1, 0.5, 2), (), {"alpha": 0.5}, ""),
    "embedding_renorm_": (i(0, 1), (T([[3.0, 4.0], [0.3, 0.4]]), 1.0), {}, "weight"),
    "hardtanh_": (f(-2, 0.5, 2), (), {"min": -0.5, "max": 1.0}, ""),
    "leaky_relu_": (f(-2, 0.5, 2), (0.1,), {}, ""),
    "relu_": (f(-2, 0.5, 2), (), {}, ""),
    "softmax_": (f(1, 2, 3), (), {}, ""),
    "thresholded_relu_": (f(-2, 0.5, 2), (0.4,), {}, ""),
}
