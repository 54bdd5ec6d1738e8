"""``torch.nn.utils``: gradient clipping, parameter vectors, packed sequences, parametrizations,
weight and spectral norm, conv/linear + batch-norm fusion, ``skip_init`` and ``functional_call``.

One submodule per idea, with torch's own module names (``torch.nn.utils.rnn``,
``.parametrize``, ``.parametrizations``, ``.stateless``, ``.fusion`` ...), so an
``import torch.nn.utils.rnn`` in a user's program finds the same file here. As in torch,
``torch.nn.utils.weight_norm`` and ``.spectral_norm`` are the *functions* (their modules
stay reachable through ``sys.modules``).
"""
from __future__ import annotations

from . import fusion, parametrizations, parametrize, prune, rnn, stateless  # noqa: F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                        clip_grads_with_norm_, get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: F401
                     fuse_linear_bn_weights)
from .init import skip_init  # noqa: F401
from .memory_format import (convert_conv2d_weight_memory_format,  # noqa: F401
                            convert_conv3d_weight_memory_format)
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401
