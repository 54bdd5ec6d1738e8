"""``paddle.nn``: ``Layer`` (parameters, sublayers, ``__call__`` -> ``forward``), ``Linear``,
``ReLU``, ``Sequential``, ``MSELoss``: enough to train a small model the Paddle way.

>>> import inplace_lab.paddle as paddle
>>> net = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU(), paddle.nn.Linear(4, 1))
>>> [n for n, _ in net.named_parameters()]
['0.weight', '0.bias', '2.weight', '2.bias']
"""
from __future__ import annotations

from . import functional  # noqa: F401
from .layers import Layer  # noqa: F401
from .activation import *  # noqa: F401,F403
from .clip import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from . import utils  # noqa: E402,F401  (paddle.nn.utils)
from .aliases import CTCLoss, Module, PairwiseDistance, Parameter  # noqa: E402,F401
from . import aliases as _aliases  # noqa: E402
import sys as _sys  # noqa: E402

_aliases.install(_sys.modules[__name__])  # (Conv2d is Conv2D, ZeroPad2d is ZeroPad2D ...)
from . import init  # noqa: E402,F401  (paddle.nn.init: xavier_uniform_ ...)
