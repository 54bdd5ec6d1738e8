"""``paddle.optimizer``: Paddle's optimizers (one file per family) and ``paddle.optimizer.lr``.

Every optimizer updates parameters out of band, as Paddle's kernels do: a step leaves
``inplace_version`` where it was. See ``optimizer.py`` for the shared step.
"""
from __future__ import annotations

from . import lr  # noqa: F401
from .adam import Adam, Adamax, AdamW  # noqa: F401
from .adam_variants import NAdam, RAdam  # noqa: F401
from .adaptive import Adadelta, Adagrad, RMSProp  # noqa: F401
from .averaged import ASGD, Rprop  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .lamb import Lamb  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD, Momentum  # noqa: F401
