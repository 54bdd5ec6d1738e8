"""``paddle.nn`` pooling layers."""
from __future__ import annotations

__all__: list = []
