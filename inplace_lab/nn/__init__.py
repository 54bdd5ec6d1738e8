"""``inplace_lab.nn``: modules, parameters, losses, ``functional`` and ``init`` in PyTorch's shape.

Built only on the op table and autograd: every layer's forward is table ops (or the
``nn_ops`` kernels), so a trace of a training step shows each in-place write —
``ReLU(inplace=True)``, BatchNorm's running statistics, the optimizer's updates.
"""
from __future__ import annotations

from . import functional, init  # noqa: F401
from .activations import (CELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish,  # noqa: F401
                          LogSigmoid, Mish, PReLU, ReLU6, RReLU, SiLU, Softmin, Softplus,
                          Softshrink, Softsign, Tanhshrink)
from .containers import ModuleDict, ParameterDict, ParameterList  # noqa: F401
from .conv import Conv1d  # noqa: F401
from .layers import (ELU, BatchNorm1d, BatchNorm2d, Conv2d, Dropout, Dropout2d,  # noqa: F401
                     Embedding, Flatten, GroupNorm, Hardtanh, Identity, LayerNorm, LeakyReLU,
                     Linear, LogSoftmax, MaxPool2d, ModuleList, ReLU, Sequential, Sigmoid,
                     Softmax, Tanh, Threshold, Unflatten)
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CosineSimilarity,  # noqa: F401
                   CrossEntropyLoss, HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss,
                   MarginRankingLoss, MSELoss, NLLLoss, PairwiseDistance, PoissonNLLLoss,
                   SmoothL1Loss, SoftMarginLoss, TripletMarginLoss)
from .module import Module  # noqa: F401
from .parameter import Parameter  # noqa: F401
from .upsampling import PixelShuffle, PixelUnshuffle, Upsample  # noqa: F401
from .attention import MultiheadAttention  # noqa: F401
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: F401
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d,  # noqa: F401
                      AvgPool1d, AvgPool2d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
                      MaxPool1d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d,
                      ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d)
from .conv_more import *  # noqa: E402,F401,F403  (Conv3d, ConvTranspose1d/2d/3d, Unfold, Fold)
from .pool_norm import *  # noqa: E402,F401,F403  (3-d and unpooling layers, InstanceNorm, RMSNorm ...)
from .transformer import *  # noqa: E402,F401,F403  (Transformer and its encoder/decoder layers)
from .more import *  # noqa: E402,F401,F403  (more losses, dropouts, Bilinear, EmbeddingBag ...)
from .extra_layers import *  # noqa: E402,F401,F403  (EmbeddingBag, lazy layers, fractional pools ...)
