"""Differential harness: run one program on a reference framework and on inplace_lab, compare.

A *program* is written once. Torch programs are ``prog(T) -> dict`` against PyTorch's
API, where ``T`` is ``torch`` or ``inplace_lab``. Paddle programs are ``prog(P) -> dict``
against a tiny adapter ``P`` (``P.tensor``, ``P.s``, ``P.version``, ``P.no_grad``; the
tensors themselves are used with Paddle's method names): ``PaddleAdapter`` runs it on
paddle 3.3.1, ``IlPaddleAdapter`` on inplace_lab under ``inplace_policy("paddle")``.

The returned dict holds what the program observed: tensors (compared by shape, dtype and
values), ``grad_fn`` nodes (compared by ``name()``), versions, booleans, nested lists. If
the program raises, the error is the observation: the inplace_lab error must be an
instance of the reference's class, and its first line must equal the reference's (or, with
``prefix=n``, share its first ``n`` characters). Inside a program, ``attempt(fn)`` records
an error and carries on, so a program can also observe that a failed in-place op left
data and version exactly as they were.

>>> def prog(T):
...     x = T.tensor([1., 2.], requires_grad=True)
...     y = x * 1
...     y.add_(1)
...     return {"v": y._version, "fn": y.grad_fn}
>>> compare_torch(prog)  # raises AssertionError on any difference
"""
from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass

import numpy as np


# ---- observations ---------------------------------------------------------------------------

@dataclass
class Raised:
    """An error a program (or ``attempt``) ran into: its class and its first line."""

    cls: type
    message: str

    @classmethod
    def of(cls, exc: BaseException) -> "Raised":
        return cls(type(exc), first_line(str(exc)))


def first_line(msg: str) -> str:
    """Paddle appends '\\n  [Hint: ...] (at file.cc:N)'; both frameworks' first line is the text."""
    return msg.strip().split("\n")[0].strip()


def attempt(fn):
    """Run ``fn()``; return ``Raised`` if it fails, else ``"ok"`` (for use inside programs)."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the error *is* the observation
        return Raised.of(exc)
    return "ok"


def probe(fn):
    """Like ``attempt`` but keeps the value: ``fn()``'s result, or ``Raised``."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001
        return Raised.of(exc)


def _is_tensor(v) -> bool:
    return hasattr(v, "shape") and (hasattr(v, "detach") or hasattr(v, "numpy")) and \
        not isinstance(v, np.ndarray)


def _is_node(v) -> bool:
    return hasattr(v, "next_functions") and callable(getattr(v, "name", None))


def to_numpy(t) -> np.ndarray:
    if hasattr(t, "detach"):
        t = t.detach()
    return np.array(t.numpy() if hasattr(t, "numpy") else t)


def observe(v):
    """Turn what a program returned into plain data that two frameworks can agree on."""
    if v is None or isinstance(v, (bool, int, float, str, Raised)):
        return v
    if _is_node(v):
        return ("node", v.name())
    if _is_tensor(v):
        a = to_numpy(v)
        return ("tensor", tuple(int(n) for n in v.shape), a.dtype.name, a)
    if isinstance(v, dict):
        return {k: observe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [observe(x) for x in v]
    if hasattr(v, "__index__"):
        return int(v)
    raise TypeError(f"program returned an unobservable value {v!r}")


def run(prog, lib):
    """Observations of ``prog(lib)``, or the ``Raised`` error it ended with."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return observe(prog(lib))
        except Exception as exc:  # noqa: BLE001
            return Raised.of(exc)


# ---- comparison -----------------------------------------------------------------------------

def assert_same(ref, got, *, prefix=None, path="result", ref_name="torch", rtol=1e-5):
    """Raise AssertionError naming the first place where ``got`` differs from ``ref``."""
    where = f"{path}: {ref_name}={_show(ref)} inplace_lab={_show(got)}"
    if isinstance(ref, Raised):
        assert isinstance(got, Raised), f"expected an error at {where}"
        assert issubclass(got.cls, ref.cls), f"error class differs at {where}"
        if prefix is None:
            assert got.message == ref.message, f"error text differs at {where}"
        else:
            assert got.message[:prefix] == ref.message[:prefix], f"error prefix differs at {where}"
        return
    assert not isinstance(got, Raised), f"unexpected error at {where}"
    if isinstance(ref, dict):
        assert isinstance(got, dict) and set(got) == set(ref), f"keys differ at {where}"
        for k in ref:
            assert_same(ref[k], got[k], prefix=prefix, path=f"{path}[{k!r}]", ref_name=ref_name,
                        rtol=rtol)
        return
    if isinstance(ref, tuple) and ref and ref[0] == "tensor":
        assert isinstance(got, tuple) and got[0] == "tensor", f"kind differs at {where}"
        assert got[1] == ref[1], f"shape differs at {where}"
        assert got[2] == ref[2], f"dtype differs at {where}"
        assert np.allclose(got[3], ref[3], rtol=rtol, atol=1e-6, equal_nan=True), \
            f"values differ at {where}"
        return
    if isinstance(ref, list):
        assert isinstance(got, list) and len(got) == len(ref), f"lengths differ at {where}"
        for i, (r, g) in enumerate(zip(ref, got)):
            assert_same(r, g, prefix=prefix, path=f"{path}[{i}]", ref_name=ref_name, rtol=rtol)
        return
    assert got == ref, f"value differs at {where}"


def _show(v) -> str:
    if isinstance(v, tuple) and v and v[0] == "tensor":
        return f"tensor{list(v[1])}:{v[2]}={v[3].tolist()}"
    if isinstance(v, Raised):
        return f"{v.cls.__name__}({v.message!r})"
    s = repr(v)
    return s if len(s) < 400 else s[:400] + "..."


def compare_torch(prog, *, prefix=None, rtol=1e-5, facade=False):
    """Run ``prog`` on torch and on inplace_lab (pytorch policy); assert they agree.

    ``facade=True`` runs it on ``inplace_lab.torch``, torch's whole namespace (``T.trace`` is
    the op there; on ``inplace_lab`` it is the trace recorder)."""
    import torch

    import inplace_lab as il

    if facade:
        import inplace_lab.torch as il
    ref = run(prog, torch)
    with il.inplace_policy("pytorch"):
        got = run(prog, il)
    assert_same(ref, got, prefix=prefix, rtol=rtol)
    return ref


# ---- Paddle -----------------------------------------------------------------------------------

class PaddleAdapter:
    """What a Paddle program needs beyond the tensors' own methods, on real paddle."""

    name = "paddle"

    def __init__(self):
        import paddle

        self.lib = paddle

    def tensor(self, data, requires_grad=False, name=None):
        """A float32 leaf; unnamed like an op's output (Paddle prints ``Leaf Var ()``)."""
        t = self.lib.assign(np.asarray(data, dtype=np.float32))
        t.stop_gradient = not requires_grad
        if name is not None:
            t.name = name
        return t

    def s(self, value):
        """A 0-d float32 tensor: Paddle's in-place ops take tensor operands."""
        return self.lib.to_tensor(float(value), dtype="float32")

    def version(self, t) -> int:
        return t._inplace_version()

    def no_grad(self):
        return self.lib.no_grad()

    def context(self):
        return contextlib.nullcontext()


class IlPaddleAdapter(PaddleAdapter):
    """The same surface on inplace_lab, run under the given Paddle policy."""

    def __init__(self, policy="paddle"):
        import inplace_lab

        self.lib = inplace_lab
        self.policy = policy

    def tensor(self, data, requires_grad=False, name=None):
        t = self.lib.tensor(np.asarray(data, dtype=np.float32), requires_grad=requires_grad)
        if name is not None:
            t.name = name
        return t

    def s(self, value):
        return self.lib.tensor(float(value))

    def version(self, t) -> int:
        return t._version

    def context(self):
        return self.lib.inplace_policy(self.policy)


def run_paddle_program(prog, adapter):
    with adapter.context():
        return run(prog, adapter)


def compare_paddle(prog, *, prefix=None):
    """Run ``prog`` on paddle and on inplace_lab under the "paddle" policy; assert they agree."""
    ref = run_paddle_program(prog, PaddleAdapter())
    got = run_paddle_program(prog, IlPaddleAdapter("paddle"))
    assert_same(ref, got, prefix=prefix, ref_name="paddle")
    return ref
