"""``paddle.nn`` conv layers."""
from __future__ import annotations

__all__: list = []
