"""gradcheck / gradgradcheck: compare backward formulas with finite differences.

Every backward formula in the op table is hand-written, so each can be wrong. gradcheck
evaluates ``fn`` at ``x + eps`` and ``x - eps`` for every element of every input that
requires grad (central differences, in float64) and compares that numerical Jacobian
with the analytical one, obtained one row at a time from ``inplace_lab.autograd.grad``
with a one-hot ``grad_outputs``. gradgradcheck does the same for the gradient itself
(``create_graph=True``), which checks that backward formulas are differentiable.

Perturbations are written straight into the inputs' buffers (as ``x.numpy()`` writes
would be) and undone afterwards, so the inputs' ``_version`` does not move.

>>> import inplace_lab as il
>>> x = il.tensor([1.0, 2.0], dtype=il.float64, requires_grad=True)
>>> il.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
True
"""
from __future__ import annotations

import warnings

import numpy as np


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree (or have the wrong shape)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_tensor(x):
    from ..tensor import Tensor

    return isinstance(x, Tensor)


def _outputs(fn, inputs):
    return [o for o in _as_tuple(fn(*inputs)) if _is_tensor(o)]


def _host(t):
    from .. import backend

    return np.array(backend.to_numpy(t._a), dtype=np.float64)


def _numerical(fn, inputs, diff_idx, eps):
    """jac[o][i]: array (numel of output o, numel of input i) by central differences.

    Not under no_grad: ``fn`` may itself need grad mode (gradgradcheck's fn calls ``grad``).
    """
    n_out = [o.numel() for o in _outputs(fn, inputs)]
    jac = [[np.zeros((n, inputs[i].numel())) for i in diff_idx] for n in n_out]
    for k, i in enumerate(diff_idx):
        arr = inputs[i]._a  # a view of exactly the input's elements; writes bypass _version
        flat = np.ndindex(*arr.shape) if arr.ndim else [()]
        for j, pos in enumerate(flat):
            orig = arr[pos].item()
            arr[pos] = orig + eps
            plus = [_host(o).reshape(-1) for o in _outputs(fn, inputs)]
            arr[pos] = orig - eps
            minus = [_host(o).reshape(-1) for o in _outputs(fn, inputs)]
            arr[pos] = orig
            for o, (p, m) in enumerate(zip(plus, minus)):
                jac[o][k][:, j] = (p - m) / (2 * eps)
    return jac


def _analytical(fn, inputs, diff_idx):
    """The same Jacobian from backward: one ``grad`` call per output element."""
    from . import grad
    from .. import creation

    outs = _outputs(fn, inputs)
    wrt = [inputs[i] for i in diff_idx]
    jac = []
    for o in outs:
        rows = [np.zeros((o.numel(), t.numel())) for t in wrt]
        if o.requires_grad:
            for r in range(o.numel()):
                onehot = np.zeros(o.numel())
                onehot[r] = 1.0
                go = creation.tensor(onehot.reshape(o.shape), dtype=o._dtype, device=o.device)
                gs = grad([o], wrt, grad_outputs=[go], retain_graph=True, allow_unused=True)
                for k, (g, t) in enumerate(zip(gs, wrt)):
                    if g is None:
                        continue
                    if tuple(g.shape) != tuple(t.shape):
                        raise GradcheckError(
                            f"Gradient has incorrect shape for input {diff_idx[k]}: got "
                            f"{list(g.shape)}, expected {list(t.shape)}")
                    rows[k][r] = _host(g).reshape(-1)
        jac.append(rows)
    return jac


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True) -> bool:
    """True when backward agrees with finite differences for every input that requires grad.

    On a mismatch raises ``GradcheckError`` naming the output, the input and the worst
    element (or returns False with ``raise_exception=False``). Use float64 inputs: float32
    finite differences are too coarse for these tolerances.
    """
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if _is_tensor(t) and t.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in diff_idx:
        if inputs[i]._dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double "
                          "precision floating point.", UserWarning, stacklevel=2)
    try:
        num = _numerical(fn, inputs, diff_idx, eps)
        ana = _analytical(fn, inputs, diff_idx)
        for o, (n_rows, a_rows) in enumerate(zip(num, ana)):
            for k, (n, a) in enumerate(zip(n_rows, a_rows)):
                bad = np.abs(a - n) > atol + rtol * np.abs(n)
                if bad.any():
                    raise GradcheckError(_mismatch(o, diff_idx[k], n, a, inputs[diff_idx[k]].shape))
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _mismatch(o, i, n, a, in_shape) -> str:
    diff = np.abs(a - n)
    r, c = np.unravel_index(int(np.argmax(diff)), diff.shape)
    where = tuple(int(v) for v in np.unravel_index(int(c), tuple(in_shape))) if len(in_shape) else ()
    return (f"Jacobian mismatch for output {o} with respect to input {i},\n"
            f"numerical:{np.array2string(n, precision=4)}\n"
            f"analytical:{np.array2string(a, precision=4)}\n"
            f"worst element: d output {o}[flat {int(r)}] / d input {i}{list(where)}: numerical "
            f"{n[r, c]:.6g}, analytical {a[r, c]:.6g}, difference {diff[r, c]:.3g}. "
            "The backward formula of an op used by this function is wrong.")


def gradgradcheck(fn, inputs, grad_outputs=None, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True) -> bool:
    """gradcheck of the gradient itself: ``grad(fn(x), x, v, create_graph=True)`` w.r.t. x and v."""
    from . import grad
    from .. import creation

    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if _is_tensor(t) and t.requires_grad]
    outs = [o for o in _outputs(fn, inputs) if o.requires_grad]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            creation.tensor(rng.standard_normal(tuple(o.shape)), dtype=o._dtype, device=o.device,
                            requires_grad=True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first_order(*args):
        ins, gos = args[:n], args[n:]
        ys = [o for o in _outputs(fn, ins) if o.requires_grad]
        gs = grad(ys, [ins[i] for i in diff_idx], grad_outputs=list(gos), create_graph=True,
                  allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
