"""``paddle.regularizer``: weight decay an optimizer (or a ``ParamAttr``) applies to each
gradient before its update: ``L2Decay(coeff)`` adds ``coeff * p``, ``L1Decay(coeff)`` adds
``coeff * sign(p)`` (``paddle.optimizer``'s step reads ``_coeff`` and the class)."""
from __future__ import annotations

__all__ = ["WeightDecayRegularizer", "L1Decay", "L2Decay"]


class WeightDecayRegularizer:
    """Base class of the decays."""

    _coeff = 0.0

    def __str__(self):
        return f"{type(self).__name__}, coeff={float(self._coeff):f}"


class L1Decay(WeightDecayRegularizer):
    def __init__(self, coeff: float = 0.0) -> None:
        assert coeff is not None
        super().__init__()
        self._coeff = coeff


class L2Decay(WeightDecayRegularizer):
    def __init__(self, coeff: float = 0.0) -> None:
        assert coeff is not None
        super().__init__()
        self._coeff = coeff
