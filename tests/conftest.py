"""Shared test set-up: the repo root on sys.path, and no global state leaking between tests.

inplace_lab has a few process-wide switches (the in-place policy, the default dtype, grad
mode, the simulated GPU). A test that changes one and fails before restoring it would make
every later test run under the wrong rules, so each test gets them back as they were.
"""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # `tests.<layer>.<helper>` imports under --import-mode=importlib

import inplace_lab as il  # noqa: E402
from inplace_lab import backend  # noqa: E402
from inplace_lab.autograd import grad_mode  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_global_switches():
    policy, dtype = il.get_inplace_policy(), il.get_default_dtype()
    grad, inference = grad_mode.state.enabled, grad_mode.state.inference
    simulated, default_device = backend._simulated, backend._default
    yield
    il.set_inplace_policy(policy)
    il.set_default_dtype(dtype)
    grad_mode.state.enabled, grad_mode.state.inference = grad, inference
    backend._simulated, backend._default = simulated, default_device
    backend._entered.clear()
