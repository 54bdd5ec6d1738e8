"""``paddle.nn`` loss layers: each calls its ``paddle.nn.functional`` loss."""
from __future__ import annotations

from . import functional
from .layers import Layer

__all__ = ["MSELoss"]


class MSELoss(Layer):
    """``paddle.nn.MSELoss(reduction='mean')``: ``F.mse_loss(input, label)``."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, label):
        return functional.mse_loss(input, label, self.reduction)
