"""``paddle.nn`` norm layers."""
from __future__ import annotations

__all__: list = []
