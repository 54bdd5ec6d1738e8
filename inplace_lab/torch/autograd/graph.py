"""``torch.autograd.graph``: saved-tensor hooks (``saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``), ``Node`` and ``increment_version``."""
from __future__ import annotations

from inplace_lab.autograd.graph import (Node, disable_saved_tensors_hooks,  # noqa: F401
                                        increment_version, save_on_cpu, saved_tensors_hooks)
