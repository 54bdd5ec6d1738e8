"""Paddle 3.3.1's solves and factorisations over the core ops of ops/linalg_solve.py and
ops/linalg_lu.py: Paddle's argument names (``triangular_solve(x, y)`` solves x @ out = y,
``cholesky_solve(x, y)`` takes B then the factor, ``lu_solve(b, lu, pivots, trans)``),
plain tuples, ``qr(mode='r')`` giving R alone, int64 ranks; Paddle's grad node names
(registered below with the policy's name table) and Paddle's errors, checked before the
core op runs (whose checks speak PyTorch).
"""
from __future__ import annotations

from inplace_lab import policy
from inplace_lab.ops import dispatch
from inplace_lab.ops.linalg_lu import LU_FACTOR_EX, LU_SOLVE, UNPACK_L, UNPACK_U
from inplace_lab.ops.linalg_solve import (CHOLESKY_EX, EIGH_V, EIGH_W, EIGVALSH, LQR_Q, LQR_R,
                                          PADDLE_CHOLESKY_SOLVE, PADDLE_MATRIX_POWER, SOLVE_EX,
                                          TS_SOL, share_output)
from inplace_lab.ops.table import OpSpec

# the core ops' nodes under Paddle's names (policy.paddle_node_name reads this table)
policy._PADDLE_NODE_FULL.update({
    "linalg_solve_ex": "SolveGradNode", "linalg_cholesky_ex": "CholeskyGradNode",
    "linalg_eigh_w": "EighGradNode", "linalg_eigh_v": "EighGradNode",
    "paddle_eigvalsh": "EigvalshGradNode", "linalg_lu_factor_ex": "LuGradNode",
    "lu_unpack_l": "LuUnpackGradNode", "lu_unpack_u": "LuUnpackGradNode",
    "linalg_lu_solve": "LuSolveGradNode", "linalg_qr_q_colmajor": "QrGradNode",
    "linalg_qr_r_colmajor": "QrGradNode", "paddle_cholesky_solve": "CholeskySolveGradNode",
    "paddle_matrix_power": "MatrixPowerGradNode", "paddle_multi_dot": "MultiDotGradNode"})

_FLOATS = "float64, float32"
_ALL = "float64, complex128, float32, complex64"
_HINT_KERNEL = "  [Hint: Expected {cond}, but received {got}.] (at /paddle/paddle/phi/{where})\n"


def _kernel(x, kernel, listed):
    dt = x._dtype.name
    if dt not in listed.split(", "):
        raise policy.paddle_kernel_error(kernel, dt, listed)


def _invalid(msg, cond, got, where):
    return ValueError(f"(InvalidArgument) {msg}\n" + _HINT_KERNEL.format(cond=cond, got=got,
                                                                         where=where))


def _square_xy(x, where, name="X"):
    if x.ndim >= 2 and x.shape[-2] != x.shape[-1]:
        raise _invalid(f"The inner-most 2 dimensions of Input({name}) all should be square "
                       f"matrices But received {name}'s shape[-2] = {x.shape[-2]} and shape[-1] "
                       f"= {x.shape[-1]}.",
                       "x_dims[x_dims_n - 2] == x_dims[x_dims_n - 1]",
                       f"x_dims[x_dims_n - 2]:{x.shape[-2]} != x_dims[x_dims_n - 1]:"
                       f"{x.shape[-1]}", where)


# ---- solve, cholesky, eigh, eigvalsh ------------------------------------------------------------------

def solve(x, y, left=True, name=None, *, out=None):
    """paddle.linalg.solve(x, y, left=True): out with x @ out = y (out @ x = y if not left)."""
    _kernel(x, "solve", _FLOATS)
    _square_xy(x, "infermeta/binary.cc:4646")
    if left and y.ndim >= 2 and y.shape[-2] != x.shape[-1] and y.ndim == x.ndim:
        raise _invalid(
            f"Matrix X1 with dimension greater than 2 and any matrix Y1,the matrix X1's width "
            f"must be equal with matrix Y1's height. But received X's shape = {list(x.shape)}, "
            f"X1's shape = {list(x.shape)}, X1's width = {x.shape[-1]}; Y's shape = "
            f"{list(y.shape)}, Y1's shape = {list(y.shape)}, Y1's height = {y.shape[-2]}.",
            "x_dim[x_dim_size - 1] == y_dim[y_dim_size - 2]",
            f"x_dim[x_dim_size - 1]:{x.shape[-1]} != y_dim[y_dim_size - 2]:{y.shape[-2]}",
            "kernels/impl/solve_kernel_impl.h:165")
    if not left:  # (Paddle: transposes around the left solve, TransposeGradNode on top)
        return solve(x.transpose([*range(x.ndim - 2), x.ndim - 1, x.ndim - 2]),
                     y.transpose([*range(y.ndim - 2), y.ndim - 1, y.ndim - 2]), out=out
                     ).transpose([*range(y.ndim - 2), y.ndim - 1, y.ndim - 2])
    r = dispatch.call(SOLVE_EX, (x, y), {"left": True, "check_errors": False})
    if bool((r.info != 0).any()):
        raise _invalid("Input is not invertible.", "min_abs_pivot > static_cast<T>(0)",
                       "min_abs_pivot:0 <= static_cast<T>(0):0", "kernels/funcs/matrix_solve.h:124")
    if out is not None:
        out.copy_(r.result.detach())
        return out
    return r.result


def cholesky(x, upper=False, name=None):
    """paddle.linalg.cholesky(x, upper=False) (CholeskyGradNode)."""
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise AssertionError("Shape must have at least 2 dimensions and last two dimensions "
                             "must be equal.")
    _kernel(x, "cholesky", _FLOATS)
    r = dispatch.call(CHOLESKY_EX, (x,), {"upper": upper, "check_errors": False})
    bad = [k for k, v in enumerate(r.info.numpy().reshape(-1).tolist()) if v]
    if bad:
        raise _invalid(f"Cholesky decomposition was not successful. The {bad[0]}-th input "
                       "matrice might not be not be positive definite.",
                       "llt_decomposition.info() == Eigen::Success",
                       "llt_decomposition.info():1 != Eigen::Success:0",
                       "kernels/cpu/cholesky_kernel.cc:71")
    return r.L


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"UPLO must be L or U. But received UPLO is: {UPLO}")


def eigh(x, UPLO="L", name=None):
    """paddle.linalg.eigh: (eigenvalues ascending, eigenvectors), EighGradNode on both."""
    if x.ndim < 2:
        raise ValueError(f"Input(input) only support >=2 tensor, but received length of "
                         f"Input(input) is {x.ndim}.")
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The input matrix must be batches of square matrices. But received "
                         f"x's dimension: {list(x.shape)}")
    _uplo(UPLO)
    _kernel(x, "eigh", _ALL)
    r = dispatch.call(EIGH_W, (x,), {"UPLO": UPLO})
    if not r.eigenvalues.requires_grad:
        return r.eigenvalues, r.eigenvectors
    v = dispatch.call(EIGH_V, (x,), {"UPLO": UPLO}).eigenvectors
    share_output(r.eigenvalues, "eigenvectors", v, 1)
    share_output(v, "eigenvalues", r.eigenvalues, 0)
    return r.eigenvalues, v


def eigvalsh(x, UPLO="L", name=None):
    """paddle.linalg.eigvalsh (EigvalshGradNode)."""
    if x.ndim < 2:
        raise _invalid(f"The Input(X) should have at least 2 dimensions.But received a {x.ndim} "
                       "dimension tensor.", "rank >= 2", f"rank:{x.ndim} < 2:2",
                       "infermeta/unary.cc:1220")
    if x.shape[-1] != x.shape[-2]:
        raise _invalid("Eigvalsh op is designed for square matrix, consequently inner-most 2 "
                       "dimensions of Input(X) should be symmetric. But received X's shape[-2] = "
                       f"{x.shape[-2]} and shape[-1] = {x.shape[-1]}.",
                       "input_dim[rank - 2] == input_dim[rank - 1]",
                       f"input_dim[rank - 2]:{x.shape[-2]} != input_dim[rank - 1]:{x.shape[-1]}",
                       "infermeta/unary.cc:1226")
    _uplo(UPLO)
    _kernel(x, "eigvalsh", _ALL)
    return dispatch.call(EIGVALSH, (x,), {"UPLO": UPLO}).eigenvalues


def eigvals(x, name=None):
    """paddle.linalg.eigvals: the complex eigenvalues (no gradient, as Paddle's)."""
    if x.ndim < 2:
        raise ValueError(f"The dimension of Input(x) should be at least 2, but received x's "
                         f"dimension = {x.ndim}, x's shape = {list(x.shape)}")
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The last two dimensions of Input(x) should be equal, but received "
                         f"x's shape = {list(x.shape)}")
    _kernel(x, "eigvals", _ALL)
    from inplace_lab.ops.linalg_eig import eigvals as _eigvals

    return _eigvals(x.detach())


# ---- LU ------------------------------------------------------------------------------------------

def lu(x, pivot=True, get_infos=False, name=None):
    """paddle.linalg.lu: (LU, pivots) or (LU, pivots, infos); int32 pivots, 1-based."""
    if x.ndim < 2:
        raise _invalid("The rank of input must greater than 2.", "x_rank >= 2",
                       f"x_rank:{x.ndim} < 2:2", "infermeta/unary.cc:2755")
    _kernel(x, "lu", _ALL)
    if not pivot:
        raise _invalid("lu without pivoting is not implemented on the CPU, but got "
                       "pivots=False", "pivot == true", "pivot:0 != true:1",
                       "kernels/cpu/lu_kernel.cc:32")
    r = dispatch.call(LU_FACTOR_EX, (x,), {"pivot": True, "check_errors": False})
    return (r.LU, r.pivots, r.info) if get_infos else (r.LU, r.pivots)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """paddle.linalg.lu_unpack(x, y): (P, L, U) from lu's result (LuUnpackGradNode)."""
    kw = {"unpack_data": unpack_ludata, "unpack_pivots": unpack_pivots}
    r = dispatch.call(UNPACK_L, (x, y), kw)
    if not r.L.requires_grad:
        return r.P, r.L, r.U
    return r.P, r.L, dispatch.call(UNPACK_U, (x, y), kw).U


def lu_solve(b, lu, pivots, trans="N", name=None):
    """paddle.linalg.lu_solve(b, lu, pivots, trans='N'): op(A) X = b ('T'/'C': A^T)."""
    if b.ndim < 2:
        raise ValueError(f"`b` dimension must be gather than 2, but got {b.ndim}")
    if lu.ndim < 2:
        raise ValueError(f"`lu` dimension must be gather than 2, but got {lu.ndim}")
    if lu.shape[-1] != lu.shape[-2]:
        raise ValueError(f"`lu` shape[-1] must be equal to `lu` shape[-2], but got "
                         f"{lu.shape[-1]} and {lu.shape[-2]}")
    _kernel(b, "lu_solve", _ALL)
    return dispatch.call(LU_SOLVE, (lu, pivots, b), {"left": True, "adjoint": trans != "N"})


# ---- triangular_solve, cholesky_solve, qr, matrix_rank, vecdot ---------------------------------------

def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """paddle.linalg.triangular_solve(x, y): out with op(x) @ out = y, x triangular."""
    for t, nm in ((x, "X"), (y, "Y")):
        if t.ndim < 2:
            line = "4344" if nm == "X" else "4353"
            sep = " " if nm == "X" else ""
            raise _invalid(f"The input tensor {nm}'s dimensions of TriangularSolveOp should be "
                           f">={sep}2. But received {nm}'s dimensions = {t.ndim}, {nm}'s shape = "
                           f"{list(t.shape)}", f"{nm.lower()}_dims_n >= 2",
                           f"{nm.lower()}_dims_n:{t.ndim} < 2:2", f"infermeta/binary.cc:{line}")
    _square_xy(x, "infermeta/binary.cc:4362")
    _kernel(x, "triangular_solve", _ALL)
    return dispatch.call(TS_SOL, (y, x), {"upper": upper, "transpose": transpose,
                                           "unitriangular": unitriangular}).solution


def cholesky_solve(x, y, upper=False, name=None):
    """paddle.linalg.cholesky_solve(x, y, upper=False): X with (y y^H) X = x, y the factor."""
    for t, nm, v, line in ((x, "Y", "x_dims_n", 441), (y, "X", "y_dims_n", 445)):
        if t.ndim < 2:
            raise _invalid(f"the rank of input {nm} must greater or equal to 2", f"{v} >= 2",
                           f"{v}:{t.ndim} < 2:2", f"infermeta/binary.cc:{line}")
    if y.shape[-1] != y.shape[-2]:
        raise _invalid(f"input Matrix Y should be square matrix,But Got last shape of "
                       f"{y.shape[-1]} x {y.shape[-2]}", "y_dims[y_dims_n - 1] == "
                       "y_dims[y_dims_n - 2]", f"y_dims[y_dims_n - 1]:{y.shape[-1]} != "
                       f"y_dims[y_dims_n - 2]:{y.shape[-2]}", "infermeta/binary.cc:449")
    _kernel(x, "cholesky_solve", _FLOATS)
    return dispatch.call(PADDLE_CHOLESKY_SOLVE, (x, y), {"upper": upper})


def qr(x, mode="reduced", name=None):
    """paddle.linalg.qr: (Q, R), or R alone for mode='r' (QrGradNode)."""
    if x.ndim < 2:
        raise _invalid("the rank of input must greater than 2", "x_dims.size() >= 2",
                       f"x_dims.size():{x.ndim} < 2:2", "infermeta/unary.cc:4055")
    _kernel(x, "qr", _ALL)
    if mode == "r":
        return dispatch.call(LQR_R, (x,), {"mode": "r"}).R
    r = dispatch.call(LQR_Q, (x,), {"mode": mode})
    if not r.Q.requires_grad:
        return r.Q, r.R
    R = dispatch.call(LQR_R, (x,), {"mode": mode}).R
    share_output(r.Q, "R", R, 1)
    share_output(R, "Q", r.Q, 0)
    return r.Q, R


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """paddle.linalg.matrix_rank: int64 ranks (tol: absolute, as PyTorch's old argument)."""
    if x.ndim < 2:
        raise _invalid("The dims of input must be greater than 2.", "dim_x.size() >= 2",
                       f"dim_x.size():{x.ndim} < 2:2", "infermeta/unary.cc:2793")
    _kernel(x, "matrix_rank", _ALL)
    from inplace_lab.ops.linalg_lstsq import linalg_matrix_rank

    return linalg_matrix_rank(x, tol, hermitian, atol=atol, rtol=rtol)


def vecdot(x, y, axis=-1, name=None):
    """paddle.linalg.vecdot: (x * y).sum(axis), Paddle's promotion (MultiplyGradNode,
    SumGradNode)."""
    return (x * y).sum(axis)



# ---- lstsq ------------------------------------------------------------------------------------------

def lstsq(x, y, rcond=None, driver=None, name=None):
    """paddle.linalg.lstsq: (solution, residuals, rank, singular_values), no gradient (Paddle's
    results stop gradients); rank int32 (gels: an empty int64); rcond 1e-7 (float32) or 1e-15
    (float64) times max(M, N) by default."""
    from inplace_lab import dtypes
    from inplace_lab.ops.linalg_lstsq import LSTSQ

    if driver not in (None, "gels", "gelss", "gelsd", "gelsy"):
        raise ValueError(f"Only support valid driver is 'gels', 'gelss', 'gelsd', 'gelsy' or None "
                         f"for CPU inputs. But got {driver}")
    driver = "gelsy" if driver is None else driver
    if x._dtype is not y._dtype or x._dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError("Only support x and y have the same dtype such as 'float32' and "
                         "'float64'.")
    if x.ndim < 2:
        raise ValueError(f"The shape of x should be (*, M, N), but received ndim is [{x.ndim} < 2]")
    if y.ndim < 2:
        raise ValueError(f"The shape of y should be (*, M, K), but received ndim is [{y.ndim} < 2]")
    if x.shape[-2] != y.shape[-2]:
        raise ValueError(f"x with shape (*, M = {x.shape[-2]}, N) and y with shape (*, M = "
                         f"{y.shape[-2]}, K) should have same M.")
    if x.ndim != y.ndim:
        raise _invalid(f"Expects input tensor x and y to have the same dimension but got x's "
                       f"dimension [{x.ndim}] and y's dimension [{y.ndim}]", "x_rank == y_rank",
                       f"x_rank:{x.ndim} != y_rank:{y.ndim}", "infermeta/binary.cc:4421")
    if rcond is None:
        rcond = (1e-7 if x._dtype is dtypes.float32 else 1e-15) * max(x.shape[-2], x.shape[-1])
    r = dispatch.call(LSTSQ, (x.detach(), y.detach()), {"rcond": rcond, "driver": driver})
    rank = r.rank if driver == "gels" else r.rank.astype("int32")
    return r.solution, r.residuals, rank, r.singular_values


def matrix_power(x, n, name=None):
    """paddle.linalg.matrix_power(x, n): one kernel (MatrixPowerGradNode); n < 0 inverts."""
    if x.ndim < 2:
        raise _invalid(f"The Input(X) should have at least 2 dimensions. But received a {x.ndim} "
                       "dimension tensor.", "n_dim >= 2", f"n_dim:{x.ndim} < 2:2",
                       "infermeta/unary.cc:2719")
    if x.shape[-1] != x.shape[-2]:
        raise _invalid(f"The inner-most 2 dimensions of Input(X) all should be square matrices "
                       f"But received X's shape[-2] = {x.shape[-2]} and shape[-1] = "
                       f"{x.shape[-1]}.", "dims[n_dim - 2] == dims[n_dim - 1]",
                       f"dims[n_dim - 2]:{x.shape[-2]} != dims[n_dim - 1]:{x.shape[-1]}",
                       "infermeta/unary.cc:2731")
    _kernel(x, "matrix_power", _ALL)
    if n < 0:
        import numpy as np

        from inplace_lab.ops.linalg_solve import _getrf_infos

        if x.numel() and any(_getrf_infos(np.ascontiguousarray(x.detach().numpy()))):
            raise _invalid("Input is not invertible.", "min_abs_pivot > static_cast<T>(0)",
                           "min_abs_pivot:0 <= static_cast<T>(0):0",
                           "kernels/funcs/matrix_inverse.h:46")
    return dispatch.call(PADDLE_MATRIX_POWER, (x,), {"n": n})


# ---- pinv ---------------------------------------------------------------------------------------------

def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """paddle.linalg.pinv: Paddle's composite over svd (eigh when ``hermitian``): singular
    values at most ``rcond`` times the largest dropped, then ``(V * 1/s) @ U^T``
    (MatmulGradNode on top)."""
    import inplace_lab.paddle as paddle

    from . import linalg as _linalg

    if not hermitian:
        u, s, vt = _linalg.svd(x, False)
        if s.shape[-1] == 0:
            max_sv = s
        else:
            max_sv = s.max(-1, keepdim=True)
        cutoff = paddle.to_tensor(rcond, dtype=x.dtype) * max_sv
        inf = paddle.to_tensor(float("inf"), dtype=x.dtype)
        singular = paddle.where(s > cutoff, 1 / s, 1 / inf)
        st = singular.unsqueeze(-2)
        dims = list(range(len(vt.shape)))
        v = vt.transpose([*dims[:-2], dims[-1], dims[-2]])
        return paddle.matmul(v * st, u, transpose_y=True)
    if x.size == 0:
        dims = list(range(len(x.shape)))
        return x.transpose([*dims[:-2], dims[-1], dims[-2]])
    s, u = eigh(x, "L")
    s_abs = s.abs()
    cutoff = paddle.to_tensor(rcond, dtype=s.dtype) * s_abs.max(-1, keepdim=True)
    inf = paddle.to_tensor(float("inf"), dtype=s.dtype)
    singular = paddle.where(s_abs > cutoff, 1 / s, 1 / inf)
    st = singular.unsqueeze(-2)
    return paddle.matmul(u * st, u, transpose_y=True)  # (real: u's conjugate is u)


# ---- multi_dot ----------------------------------------------------------------------------------------

def _md_fwd(xp, *arrays, out=None, dt=None):
    ms = list(arrays)
    r = ms[0] if ms[0].ndim == 2 else ms[0][None, :]
    for k, m in enumerate(ms[1:], 1):
        r = xp.matmul(r, m if m.ndim == 2 or k < len(ms) - 1 else m[:, None])
    if ms[0].ndim == 1:
        r = r[0]
    if ms[-1].ndim == 1:
        r = r[..., 0]
    return xp.array(r, dtype=dt.np, order="C")  # (a copy; 0-dim stays 0-dim)


def _md_bw(c, g):
    """Each matrix's gradient: (the product on its left)^T g (the product on its right)^T."""
    ms = [c[a] for a in c.spec.args]
    mats = [m.unsqueeze(0) if k == 0 and m.ndim == 1 else
            m.unsqueeze(-1) if k == len(ms) - 1 and m.ndim == 1 else m for k, m in enumerate(ms)]
    G = g.reshape([mats[0].shape[0], mats[-1].shape[-1]])
    out = []
    for i, m in enumerate(ms):
        if not c.needs_input_grad[i]:
            out.append(None)
            continue
        gi = G
        if i > 0:
            left = mats[0]
            for m2 in mats[1:i]:
                left = left.matmul(m2)
            gi = left.mT.matmul(gi)
        if i < len(ms) - 1:
            right = mats[i + 1]
            for m2 in mats[i + 2:]:
                right = right.matmul(m2)
            gi = gi.matmul(right.mT)
        out.append(gi.reshape(list(m.shape)))
    return tuple(out)


_MULTI_DOT = OpSpec(name="_paddle_multi_dot", forward=_md_fwd, backward=_md_bw,
                    node_name="MultiDotBackward0", saves=(), method=False, function=False,
                    out=False, doc="paddle.linalg.multi_dot: one kernel (MultiDotGradNode).")
_MD_ARITY: dict = {}


def multi_dot(x, name=None):
    """paddle.linalg.multi_dot(x): the product of a list of matrices (the first and last may be
    vectors), one kernel with one node (MultiDotGradNode)."""
    import dataclasses

    ts = list(x)
    if len(ts) <= 1:
        raise _invalid("The number of input tensors in multi_dot op should > 1.",
                       "inputs_num > static_cast<size_t>(1)",
                       f"inputs_num:{len(ts)} <= static_cast<size_t>(1):1",
                       "infermeta/multiary.cc:4334")
    if ts[0].ndim >= 3:
        raise _invalid(f"multi_dot: the first input tensor must be 1D or 2D but got"
                       f"[{ts[0].ndim}]!", "first_dim.size() < static_cast<size_t>(3)",
                       f"first_dim.size():{ts[0].ndim} >= static_cast<size_t>(3):3",
                       "infermeta/multiary.cc:4346")
    width = ts[0].shape[-1]
    for t in ts[1:]:
        if t.shape[0] != width:
            raise _invalid("the input matrix does not meet the multiplication requirements.",
                           "last_dim[0] == width",
                           f"last_dim[0]:{t.shape[0]} != width:{width}",
                           "infermeta/multiary.cc:4393")
        width = t.shape[-1]
    _kernel(ts[0], "multi_dot", _FLOATS)
    n = len(ts)
    spec = _MD_ARITY.get(n)
    if spec is None:
        spec = _MD_ARITY[n] = dataclasses.replace(
            _MULTI_DOT, args=tuple(f"x[{i}]" for i in range(n)),
            saves=tuple(f"x[{i}]" for i in range(n)))
    return dispatch.call(spec, tuple(ts), {})
