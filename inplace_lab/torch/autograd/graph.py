"""``torch.autograd.graph``: saved-tensor hooks (``saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``), ``Node`` and ``increment_version``."""
from __future__ import annotations

from inplace_lab.autograd.graph import (Node, allow_mutation_on_saved_tensors,  # noqa: F401
                                        disable_saved_tensors_hooks, increment_version,
                                        save_on_cpu, saved_tensors_hooks)
