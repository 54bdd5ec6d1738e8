"""``nn.Parameter``: a leaf tensor that requires grad and that a Module registers.

``Parameter(t)`` shares ``t``'s storage *and* version counter (as PyTorch does): an
in-place init under ``no_grad`` bumps both. It is a leaf, so an in-place op on it with
grad mode on raises PyTorch's leaf error; optimizers and ``nn.init`` write under no_grad.

>>> import inplace_lab as il
>>> p = il.nn.Parameter(il.ones(2))
>>> p.requires_grad, p.is_leaf
(True, True)
"""
from __future__ import annotations

from ..tensor import Tensor


class Parameter(Tensor):
    """A Tensor subclass marking module parameters (``repr``: ``Parameter containing:``)."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .. import creation

            data = creation.empty(0)
        p = cls._make(data._storage, data._shape, data._strides, data._offset, data._vc, None)
        p._arr = data._arr
        p._pol = data._pol
        p._is_param = True
        p._requires_grad = bool(requires_grad)
        return p

    def __init__(self, data=None, requires_grad=True):  # all done in __new__
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        from ..autograd import no_grad

        with no_grad():
            r = Parameter(self.clone(), self._requires_grad)
        memo[id(self)] = r
        return r

    def __reduce_ex__(self, proto):
        from ..serialization import reduce_tensor

        return reduce_tensor(self)

