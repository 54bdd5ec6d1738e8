"""``torch.special``: PyTorch's special functions, with its names, dtypes and grad_fn nodes."""
from __future__ import annotations
