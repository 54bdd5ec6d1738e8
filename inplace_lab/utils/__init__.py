"""``inplace_lab.utils``: ``utils.data`` (datasets, loaders, in-place augmentation)."""
from __future__ import annotations

from . import data  # noqa: F401
