"""More activation modules: GELU, SiLU, Softplus, PReLU, ReLU6, Mish, Hardswish, Hardsigmoid,
SELU, CELU, Softsign, LogSigmoid, Softmin, GLU, Tanhshrink.

Each forwards to one table op (or PyTorch's composition, in ``functional``), with
PyTorch's constructor arguments and ``repr``. ``inplace=True`` overwrites the input with
the table's in-place form (``silu_`` ...): one version bump, and because these
backwards read the input, the dispatcher clones it first (in-place saves no memory here).
``PReLU`` is the one with a parameter: ``weight`` of ``num_parameters`` entries, all
``init`` (0.25), filled in place under no_grad as PyTorch's ``reset_parameters``.
"""
from __future__ import annotations

import inplace_lab as _il

from .. import creation
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class _Pointwise(Module):
    """``forward`` is the table op ``_op`` (its in-place form when ``self.inplace``)."""

    _op = ""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return getattr(_il, self._op + ("_" if self.inplace else ""))(input)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class SiLU(_Pointwise):
    _op = "silu"


class Mish(_Pointwise):
    _op = "mish"


class SELU(_Pointwise):
    _op = "selu"


class Hardswish(_Pointwise):
    _op = "hardswish"

    def extra_repr(self):  # PyTorch prints no inplace flag for these two
        return ""


class Hardsigmoid(Hardswish):
    _op = "hardsigmoid"


class ReLU6(Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu6(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class CELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return (_il.celu_ if self.inplace else _il.celu)(input, self.alpha)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """``approximate='none'`` (the erf form) or ``'tanh'``."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return _il.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """Leaky ReLU whose negative slope is learned: one, or one per channel (dim 1)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    def forward(self, input):
        return F.softsign(input)


class LogSigmoid(Module):
    def forward(self, input):
        return F.logsigmoid(input)


class Tanhshrink(Module):
    def forward(self, input):
        return _il.tanhshrink(input)


class Softmin(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class GLU(Module):
    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Hardshrink(Module):
    """``x`` outside ``[-lambd, lambd]``, 0 inside (the ``hardshrink`` op)."""

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x - lambd`` above, ``x + lambd`` below the band, 0 inside (the ``softshrink`` op)."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class RReLU(Module):
    """Randomized leaky ReLU: random slopes in ``[lower, upper]`` in training, their mean in
    eval (``F.rrelu`` with ``training=self.training``)."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                            else "")
