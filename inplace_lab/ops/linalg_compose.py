"""PyTorch's linalg composites, built of table ops so the graph shows PyTorch's nodes:
``multi_dot`` (mm in the cheapest order, then a view: ViewBackward0) and ``chain_matmul``,
``cond`` (svdvals, narrow, div, squeeze; or the norms of A and of its inverse),
``vecdot`` (mul, sum), ``linalg.vander`` (cumprod, cat), ``tensorinv``, ``tensorsolve``.

Also the top-level deprecated names and their once-per-process warnings (PyTorch's
TORCH_WARN_ONCE: the first call warns, function or Tensor method alike).

>>> import inplace_lab as il
>>> from inplace_lab.torch import linalg
>>> linalg.vecdot(il.tensor([1., 2.]), il.tensor([3., 4.])).item()
11.0
"""
from __future__ import annotations

import math

from .. import creation, dtypes
from . import dispatch
from .join import cat
from .linalg_solve import INV_EX, SOLVE_EX, _no_out, warn_once

# caffe2's TypeMeta names, which multi_dot's dtype error prints
_TYPEMETA = {"float64": "double", "float32": "float", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
             "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


# ---- multi_dot, chain_matmul --------------------------------------------------------------------------

def _chain_order(ms):
    """ATen's matrix_chain_order: s[i][j], the split of i..j of least cost (first on ties)."""
    n = len(ms)
    p = [m.shape[0] for m in ms] + [ms[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], s[i][j] = q, k
    return s


def _chain(ms, s, i, j):
    if i == j:
        return ms[i]
    return _chain(ms, s, i, s[i][j]).mm(_chain(ms, s, s[i][j] + 1, j))


def multi_dot(tensors, *, out=None):
    """``torch.linalg.multi_dot``: the product of a chain of matrices (the first and last may be
    vectors), multiplied in the order of least cost as ATen's."""
    _no_out(out, "multi_dot")
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    out_shape = []
    first, last = ts[0], ts[-1]
    if first.ndim == 1:
        first = first.unsqueeze(0)
    elif first.ndim == 2:
        out_shape.append(first.shape[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim == 1:
        last = last.unsqueeze(-1)
    elif last.ndim == 2:
        out_shape.append(last.shape[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i in range(1, n - 1):
        if ts[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {ts[i].ndim}D")
    ms = [first] + ts[1:-1] + [last]
    dt = ms[0].dtype
    for i in range(1, n):
        if ms[i].dtype != dt:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 "
                               f"is {_TYPEMETA.get(dt.name, dt.name)} and tensor {i} "
                               f"{_TYPEMETA.get(ms[i].dtype.name, ms[i].dtype.name)}")
        if ms[i - 1].shape[-1] != ms[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                               f"{list(ts[i - 1].shape)} and {list(ts[i].shape)} cannot be "
                               "multiplied")
    if n == 2:
        r = ms[0].mm(ms[1])
    elif n == 3:
        a, b, c, d = ms[0].shape[0], ms[1].shape[0], ms[2].shape[0], ms[2].shape[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            r = ms[0].mm(ms[1].mm(ms[2]))
        else:
            r = ms[0].mm(ms[1]).mm(ms[2])
    else:
        r = _chain(ms, _chain_order(ms), 0, n - 1)
    return r.view(out_shape)


def chain_matmul(*matrices, out=None):
    """``torch.chain_matmul`` (deprecated): ``multi_dot`` of two or more matrices."""
    _no_out(out, "chain_matmul")
    warn_once("chain_matmul", "torch.chain_matmul is deprecated and will be removed in a future "
              "PyTorch release. Use torch.linalg.multi_dot instead, which accepts a list of two "
              "or more tensors rather than multiple parameters.")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


# ---- cond -------------------------------------------------------------------------------------------

_COND_ORDS = (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc")


def cond(A, p=None, *, out=None):
    """``torch.linalg.cond``: ratio of extreme singular values (p None, 2, -2), else
    ``norm(A, p) * norm(A^{-1}, p)`` (inf for a singular matrix)."""
    from .linalg_norm import matrix_norm, svdvals

    _no_out(out, "cond")
    if p not in _COND_ORDS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p is None or p in (2, -2):
        s = svdvals(A)
        smax, smin = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
        r = smin.div(smax) if p == -2 else smax.div(smin)
        return r.squeeze(-1)
    name = p if isinstance(p, str) else (f"{p:g}" if not math.isinf(p) else
                                         ("inf" if p > 0 else "-inf"))
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={name}): A must be batches of square matrices, but "
                           f"they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"linalg.cond: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype.torch_name}")
    r = dispatch.call(INV_EX, (A,), {"check_errors": False})
    inv, info = r.inverse, r.info
    if p != "nuc":
        inv.masked_fill_(info.unsqueeze(-1).unsqueeze(-1) > 0, math.inf)  # (in place, as ATen:
    #                                 its backward then fails, as PyTorch's does)
    res = matrix_norm(A, p) * matrix_norm(inv, p)
    return res if p == "nuc" else res.nan_to_num(math.inf)  # (ATen's: 'nuc' keeps its NaN)


# ---- vecdot, vander ----------------------------------------------------------------------------------

def vecdot(x, y, *, dim=-1, out=None):
    """``torch.linalg.vecdot``: sum(x.conj() * y, dim) (MulBackward0, SumBackward1)."""
    _no_out(out, "vecdot")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype.torch_name}")
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x "
                           f"of type {x.dtype.torch_name} and y of type {y.dtype.torch_name} "
                           "instead")
    return (x * y).sum(dim)


def vander(x, *, N=None):
    """``torch.linalg.vander``: increasing powers x^0 ... x^(N-1) along a new last dim
    (ATen's cumprod of the expanded input after a column of ones: CatBackward0)."""
    if x.dtype is dtypes.bool_:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, "
                           "but got Bool")
    x_ = x.unsqueeze(-1) if x.ndim == 0 else x
    n = x_.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    shape = tuple(x_.shape) + (n - 1,)
    r = x_.unsqueeze(-1).expand(*shape).cumprod(-1)
    ones = creation.ones(tuple(x_.shape) + (1,), dtype=r.dtype, device=r.device)
    return cat([ones, r], -1)


# ---- tensorinv, tensorsolve -----------------------------------------------------------------------------

def tensorinv(A, ind=2, *, out=None):
    """``torch.linalg.tensorinv``: the inverse of A seen as a prod(shape[:ind]) square matrix."""
    _no_out(out, "tensorinv")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    end, start = list(A.shape[ind:]), list(A.shape[:ind])
    p_end, p_start = math.prod(end), math.prod(start)
    if p_end != p_start:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {p_end} != {p_start}")
    r = dispatch.call(INV_EX, (A.reshape(p_end, p_end),), {"check_errors": "linalg.inv"})
    return r.inverse.reshape(end + start)


def tensorsolve(A, B, dims=None, *, out=None):
    """``torch.linalg.tensorsolve``: X with tensordot(A, X, X.ndim) = B."""
    _no_out(out, "tensorsolve")
    nd = A.ndim
    if dims is not None:
        dims = list(dims)
        A = A.movedim(dims, list(range(nd - len(dims), nd)))
    res_shape = list(A.shape[B.ndim:])
    rp, op = math.prod(res_shape), math.prod(B.shape)
    if rp != op:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {rp} != {op}")
    A = A.reshape(rp, rp)
    x = dispatch.call(SOLVE_EX, (A, B.flatten()), {"left": True, "check_errors": True}).result
    return x.reshape(res_shape)
