"""``torch.version``: what this build is (``cuda`` names the CUDA runtime cupy uses, or None)."""
from __future__ import annotations

__version__ = "2.13.0+inplace_lab"
debug = False
hip = None
git_version = "inplace_lab"


def _cuda_version():
    from inplace_lab import backend

    if not backend._CUPY_DEVICES:
        return None
    v = int(backend._cupy.cuda.runtime.runtimeGetVersion())
    return f"{v // 1000}.{v % 1000 // 10}"


cuda = _cuda_version()
