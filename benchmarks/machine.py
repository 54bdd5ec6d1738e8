"""What the numbers were measured on: CPU, cores, library versions, BLAS core, OpenBLAS vars.

On some processors OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set on these machines (older
OpenBLAS builds misbehave there); they slow a current numpy. ``run.py`` drops both from its
own process only (re-exec) unless ``--keep-openblas-env``, and records what was set here.
"""
from __future__ import annotations

import ctypes
import datetime
import glob
import os
import platform

OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
WAS_ENV = "INPLACE_LAB_BENCH_OPENBLAS_WAS"  # what run.py found before it unset the vars


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def openblas_core() -> str:
    """The kernel numpy's bundled OpenBLAS picked at load time ('' when it cannot be asked)."""
    import numpy as np

    libdir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in glob.glob(os.path.join(libdir, "*openblas*.so*")):
        lib = ctypes.CDLL(path)
        for sym in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                    "openblas_get_corename"):
            fn = getattr(lib, sym, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return ""


def _loadavg():
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return None


def describe(command: str) -> dict:
    import numpy as np

    d = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": command,
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "openblas_core": openblas_core(),
        "openblas_env_in_run": {k: os.environ.get(k) for k in OPENBLAS_VARS},
        "openblas_env_before_run": os.environ.get(WAS_ENV, "none set"),
        "loadavg_at_start": _loadavg(),
    }
    try:
        import torch

        d["torch"] = torch.__version__
        d["torch_threads"] = torch.get_num_threads()
    except ImportError:
        d["torch"] = None
    try:
        import cupy

        d["cupy"] = cupy.__version__
        try:
            name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
            d["gpu"] = name.decode() if isinstance(name, bytes) else str(name)
        except Exception:  # (cupy without a usable device)
            d["gpu"] = None
    except ImportError:
        d["cupy"] = None
    try:
        import inplace_lab

        d["inplace_lab"] = inplace_lab.__version__
    except ImportError:  # pragma: no cover
        d["inplace_lab"] = None
    return d
