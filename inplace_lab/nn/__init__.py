"""``inplace_lab.nn``: modules, parameters, losses, ``functional`` and ``init`` in PyTorch's shape.

Built only on the op table and autograd: every layer's forward is table ops (or the
``nn_ops`` kernels), so a trace of a training step shows each in-place write —
``ReLU(inplace=True)``, BatchNorm's running statistics, the optimizer's updates.
"""
from __future__ import annotations

from . import functional, init  # noqa: F401
from .layers import (ELU, BatchNorm1d, BatchNorm2d, Conv2d, Dropout, Embedding,  # noqa: F401
                     Flatten, GroupNorm, Hardtanh, Identity, LayerNorm, LeakyReLU, Linear,
                     LogSoftmax, MaxPool2d, ModuleList, ReLU, Sequential, Sigmoid, Softmax, Tanh,
                     Threshold)
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss  # noqa: F401
from .module import Module  # noqa: F401
from .parameter import Parameter  # noqa: F401
