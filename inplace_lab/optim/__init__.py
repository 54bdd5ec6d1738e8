"""``inplace_lab.optim``: optimizers that update parameters in place under no_grad."""
from __future__ import annotations

from . import lr_scheduler  # noqa: F401
from .algorithms import SGD, Adagrad, Adam, AdamW, RMSprop  # noqa: F401
from .algorithms_more import Adadelta, Adamax, NAdam, RAdam  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .algorithms_extra import *  # noqa: E402,F401,F403  (LBFGS, Rprop, ASGD, Adafactor)
