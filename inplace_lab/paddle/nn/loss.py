"""``paddle.nn`` loss layers: each stores its options and calls its functional loss.

Most constructors check ``reduction`` at once with their own wording (the class name, or
the functional's: ``BCELoss`` says 'bce_loss', ``NLLLoss`` says 'nll_loss'); a few
(CrossEntropyLoss, KLDivLoss, SmoothL1Loss, HingeEmbeddingLoss) accept anything and leave
the check to the call. None of Paddle's loss layers prints an ``extra_repr``.
"""
from __future__ import annotations

from . import functional as F
from .layers import Layer

__all__ = ["MSELoss", "CrossEntropyLoss", "NLLLoss", "L1Loss", "SmoothL1Loss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
           "SoftMarginLoss", "CosineEmbeddingLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "GaussianNLLLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss"]


def _allowed(reduction, where, short=False):
    """Paddle's two wordings: '... in X should be ... which is not allowed.' or the short
    "'reduction' in 'X' should be ..., but received r." (``where=None``: no 'in X')."""
    if reduction in ("sum", "mean", "none"):
        return
    if short:
        raise ValueError(f"'reduction' in '{where}' should be 'sum', 'mean' or 'none', but "
                         f"received {reduction}.")
    place = "" if where is None else f" in {where}"
    raise ValueError(f"The value of 'reduction'{place} should be 'sum', 'mean' or 'none', "
                     f"but received {reduction}, which is not allowed.")


class MSELoss(Layer):
    """``F.mse_loss(input, label, reduction)``."""

    def __init__(self, reduction="mean"):
        super().__init__()
        _allowed(reduction, "MSELoss", short=True)
        self.reduction = reduction

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class CrossEntropyLoss(Layer):
    """``F.cross_entropy`` with the stored options (reduction checked at call time)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        self.weight, self.reduction, self.ignore_index = weight, reduction, ignore_index
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing, self.name = label_smoothing, name

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label,
                               axis=self.axis, use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing, name=self.name)


class NLLLoss(Layer):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__()
        _allowed(reduction, "nll_loss")
        self._weight, self._ignore_index, self._reduction, self._name = \
            weight, ignore_index, reduction, name

    def forward(self, input, label):
        return F.nll_loss(input, label, weight=self._weight, ignore_index=self._ignore_index,
                          reduction=self._reduction, name=self._name)


class L1Loss(Layer):
    def __init__(self, reduction="mean", name=None):
        super().__init__()
        _allowed(reduction, "L1Loss")
        self.reduction, self.name = reduction, name

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction, name=self.name)


class SmoothL1Loss(Layer):
    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__()
        self.reduction, self.delta, self.is_huber, self.name = reduction, delta, is_huber, name

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, reduction=self.reduction, delta=self.delta,
                                is_huber=self.is_huber, name=self.name)


class BCELoss(Layer):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        _allowed(reduction, "bce_loss")
        self.weight, self.reduction, self.name = weight, reduction, name

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction, self.name)


class BCEWithLogitsLoss(Layer):
    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__()
        _allowed(reduction, "BCEWithLogitsLoss")
        self.weight, self.reduction, self.pos_weight, self.name = \
            weight, reduction, pos_weight, name

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight, self.name)


class KLDivLoss(Layer):
    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction, self.log_target)


class MarginRankingLoss(Layer):
    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__()
        _allowed(reduction, "MarginRankingLoss")
        self.margin, self.reduction, self.name = margin, reduction, name

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction, self.name)


class HingeEmbeddingLoss(Layer):
    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__()
        self.margin, self.reduction, self.name = margin, reduction, name

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, reduction=self.reduction,
                                      margin=self.margin, name=self.name)


class SoftMarginLoss(Layer):
    def __init__(self, reduction="mean", name=None):
        super().__init__()
        _allowed(reduction, "SoftMarginLoss")
        self.reduction, self.name = reduction, name

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction, self.name)


class CosineEmbeddingLoss(Layer):
    def __init__(self, margin=0, reduction="mean", name=None):
        super().__init__()
        if margin > 1 or margin < -1:
            raise ValueError("The value of 'margin' should be in the interval of [-1, 1], but "
                             f"received {margin:f}, which is not allowed.")
        _allowed(reduction, None)
        self.margin, self.reduction, self.name = margin, reduction, name

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, margin=self.margin,
                                       reduction=self.reduction, name=self.name)


class TripletMarginLoss(Layer):
    def __init__(self, margin=1.0, p=2.0, epsilon=1e-06, swap=False, reduction="mean",
                 name=None):
        super().__init__()
        _allowed(reduction, "TripletMarginLoss")
        self.margin, self.p, self.epsilon, self.swap = margin, p, epsilon, swap
        self.reduction, self.name = reduction, name

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, margin=self.margin, p=self.p,
                                     epsilon=self.epsilon, swap=self.swap,
                                     reduction=self.reduction, name=self.name)


class TripletMarginWithDistanceLoss(Layer):
    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean",
                 name=None):
        super().__init__()
        _allowed(reduction, "TripletMarginWithDistanceLoss")
        self.distance_function, self.margin, self.swap = distance_function, margin, swap
        self.reduction, self.name = reduction, name

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(
            input, positive, negative, margin=self.margin, swap=self.swap,
            reduction=self.reduction, distance_function=self.distance_function, name=self.name)


class PoissonNLLLoss(Layer):
    def __init__(self, log_input=True, full=False, epsilon=1e-08, reduction="mean", name=None):
        super().__init__()
        if epsilon <= 0:
            raise ValueError(f"The value of `epsilon` in PoissonNLLLoss should be positive, but "
                             f"received {epsilon:f}, which is not allowed")
        _allowed(reduction, "PoissonNLLLoss")
        self._log_input, self._full, self._epsilon = log_input, full, epsilon
        self._reduction, self._name = reduction, name

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, log_input=self._log_input, full=self._full,
                                  epsilon=self._epsilon, reduction=self._reduction,
                                  name=self._name)


class GaussianNLLLoss(Layer):
    def __init__(self, full=False, epsilon=1e-06, reduction="mean", name=None):
        super().__init__()
        _allowed(reduction, "GaussianNLLLoss")
        self.full, self.epsilon, self.reduction, self.name = full, epsilon, reduction, name

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                   self.reduction, self.name)


class MultiLabelSoftMarginLoss(Layer):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        _allowed(reduction, "MultiLabelSoftMarginloss", short=True)  # Paddle's lower-case l
        self.weight, self.reduction, self.name = weight, reduction, name

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, weight=self.weight,
                                              reduction=self.reduction, name=self.name)


class MultiMarginLoss(Layer):
    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__()
        _allowed(reduction, "MultiMarginLoss", short=True)
        self.p, self.margin, self.weight, self.reduction, self.name = \
            p, margin, weight, reduction, name

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction, name=self.name)


class MultiLabelMarginLoss(Layer):
    def __init__(self, reduction="mean", name=None):
        super().__init__()
        _allowed(reduction, "MultiLabelMarginLoss", short=True)
        self.reduction, self.name = reduction, name

    def forward(self, input, label):
        return F.multi_label_margin_loss(input, label, reduction=self.reduction, name=self.name)
