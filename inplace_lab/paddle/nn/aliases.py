"""``paddle.nn`` names of Paddle 3.3.1 that are other spellings of its layers (``Conv2d`` is
``Conv2D``, ``Module`` is ``Layer``, ``ModuleList`` is ``LayerList``, ``HuberLoss`` is
``SmoothL1Loss``, ``ZeroPad2d`` is ``ZeroPad2D`` ...: the same class objects, as in Paddle),
``Parameter`` (``EagerParamBase``), and ``PairwiseDistance`` and ``CTCLoss``.
"""
from __future__ import annotations

from . import functional as F
from .layers import Layer
from .parameter import EagerParamBase as Parameter

__all__ = ["Parameter", "PairwiseDistance", "CTCLoss", "Module"]

Module = Layer


class PairwiseDistance(Layer):
    """``||x - y + epsilon||_p`` over the last axis (``functional.pairwise_distance``)."""

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim, self.name = p, epsilon, keepdim, name

    def forward(self, x=None, y=None, **alias):
        x, y = alias.pop("x1", x), alias.pop("x2", y)
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim, self.name)

    def extra_repr(self) -> str:
        s = f"p={self.p}"
        if self.epsilon != 1e-6:
            s += f", epsilon={self.epsilon}"
        if self.keepdim is not False:
            s += f", keepdim={self.keepdim}"
        if self.name is not None:
            s += f", name={self.name}"
        return s

    @property
    def eps(self):
        return self.epsilon

    @eps.setter
    def eps(self, value):
        self.epsilon = value


class CTCLoss(Layer):
    """``functional.ctc_loss`` on unscaled [T, N, C] logits (Paddle's warpctc)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times=norm_by_times,
                          zero_infinity=self.zero_infinity)


def install(nn) -> None:
    """Set the lowercase spellings on ``paddle.nn`` (after every layer module is imported)."""
    pairs = {"Conv1d": "Conv1D", "Conv2d": "Conv2D", "Conv3d": "Conv3D", "ModuleList": "LayerList",
             "ModuleDict": "LayerDict", "HuberLoss": "SmoothL1Loss",
             "UpsamplingBilinear2d": "UpsamplingBilinear2D",
             "UpsamplingNearest2d": "UpsamplingNearest2D"}
    for prefix in ("Zero", "Constant", "Reflection", "Replication", "Circular"):
        for d in (1, 2, 3):
            pairs[f"{prefix}Pad{d}d"] = f"{prefix}Pad{d}D"
    for alias, target in pairs.items():
        setattr(nn, alias, getattr(nn, target))
