"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

One flag, read by the dispatcher before it records a graph node. ``no_grad``
does not stop version bumps (SEMANTICS.md section 2).
"""
from __future__ import annotations

import functools
import threading


class _State(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False


state = _State()


def is_grad_enabled() -> bool:
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _Mode:
    """Base: a context manager and decorator that sets the grad flag."""

    _value = True

    def __enter__(self):
        self._prev = state.enabled
        state.enabled = self._value
        return self

    def __exit__(self, *exc):
        state.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*a, **k):
            with self.__class__():
                return fn(*a, **k)

        return wrapper


class no_grad(_Mode):
    """Ops inside are not recorded for backward; in-place on leaves is allowed."""

    _value = False


class enable_grad(_Mode):
    _value = True


class set_grad_enabled(_Mode):
    def __init__(self, mode: bool):
        self._value = bool(mode)
        self._prev = state.enabled
        state.enabled = self._value  # works as a function call too, like PyTorch

    def __enter__(self):
        return self

    def __call__(self, fn):  # pragma: no cover - rare form
        raise TypeError("set_grad_enabled(mode) is not usable as a bare decorator")


class inference_mode(_Mode):
    """Like no_grad (tensors made inside are plain data); kept for PyTorch-shaped code."""

    def __init__(self, mode: bool = True):
        self._value = not mode

    def __enter__(self):
        self._prev_inf = state.inference
        state.inference = not self._value
        return super().__enter__()

    def __exit__(self, *exc):
        state.inference = self._prev_inf
        return super().__exit__(*exc)

    def __call__(self, fn):
        mode = not self._value

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with inference_mode(mode):
                return fn(*a, **k)

        return wrapper
