"""``inplace_lab.utils``: ``utils.data`` (datasets, loaders, in-place augmentation) and
``utils.checkpoint`` (recompute activations in backward), ``utils.hooks`` (RemovableHandle)."""
from __future__ import annotations

from . import data  # noqa: F401
from . import checkpoint  # noqa: F401,E402
from . import hooks  # noqa: F401,E402
