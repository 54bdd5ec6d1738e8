"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

One thread-local flag, read by the dispatcher before it records a graph node
(a new thread starts with grad enabled, as in PyTorch). ``no_grad`` does not
stop version bumps (SEMANTICS.md section 2): it only stops *recording*.

Every mode is a context manager and a decorator, with PyTorch's shapes:

>>> import inplace_lab as il
>>> x = il.ones(2, requires_grad=True)
>>> with il.no_grad():
...     (x * 2).requires_grad
False
>>> _ = il.set_grad_enabled(False)   # also works as a plain call
>>> il.is_grad_enabled()
False
>>> _ = il.set_grad_enabled(True)
"""
from __future__ import annotations

import functools
import inspect
import threading


class _State(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False


state = _State()


def is_grad_enabled() -> bool:
    """Will ops run now be recorded for backward?"""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _Mode:
    """A context manager that is also a decorator (PyTorch's ``_DecoratorContextManager``).

    As a decorator each call of the function runs inside a fresh copy of the
    mode (``clone``), so one decorator object can be used re-entrantly.
    """

    def clone(self):
        return self.__class__()

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen_wrapper(*a, **k):  # each resume of the generator runs inside the mode
                gen = fn(*a, **k)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as exc:
                            with self.clone():
                                response = gen.throw(exc)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as stop:
                    return stop.value

            return gen_wrapper

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with self.clone():
                return fn(*a, **k)

        return wrapper


class _FlagMode(_Mode):
    """Sets ``state.enabled`` to ``_value`` inside the block; ``@mode`` works without parentheses."""

    _value = True

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # bare ``@no_grad``

    def __enter__(self):
        self._prev = state.enabled
        state.enabled = self._value

    def __exit__(self, *exc):
        state.enabled = self._prev
        return False


class no_grad(_FlagMode):
    """Ops inside are not recorded for backward; in-place on leaves is allowed."""

    _value = False


class enable_grad(_FlagMode):
    """Record again inside a ``no_grad`` block (or a no_grad-decorated function)."""

    _value = True


class set_grad_enabled(_Mode):
    """Turn recording on or off: ``set_grad_enabled(False)`` acts at once, even without ``with``.

    As a context manager it restores the previous mode on exit; as a decorator
    it restores the mode at decoration time and applies ``mode`` on each call.
    """

    def __init__(self, mode: bool):
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __call__(self, fn):
        state.enabled = self.prev
        return super().__call__(fn)

    def __enter__(self):
        state.enabled = self.mode

    def __exit__(self, *exc):
        state.enabled = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)

    def __repr__(self) -> str:
        return f"inplace_lab.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


def is_inference(t) -> bool:
    """``torch.is_inference(t)``: was ``t`` made under ``inference_mode()`` (or a view of such)?"""
    return t._vc.inference


class inference_mode(_Mode):
    """No recording, and every tensor made inside is an *inference tensor* (PyTorch's rules).

    - ``t.is_inference()``: made by an op or factory inside the block, or a view/``detach()``
      of such a tensor (they share its counter); ``clone()`` outside gives a normal tensor.
    - An inference tensor has no version counter (``t._version`` raises), no ``_base``
      (its views are not ``_is_view()``), and cannot be saved for backward: an op outside
      the block that would save it raises "Inference tensors cannot be saved for backward".
    - Writing it in place outside the block (``add_``, ``t_``, ``copy_``, setitem, ``out=``,
      even under ``no_grad``) raises "Inplace update to inference tensor outside
      InferenceMode is not allowed" *after* the write, as PyTorch (the version bump raises).
    - ``requires_grad_()`` on it is refused outside the block, allowed inside.
    - Views of *normal* tensors taken inside stay normal (shared counter) and remember
      where they were made: modifying one in place later with grad recorded is refused.
    - ``inference_mode(False)`` turns it off (grad mode on) inside an enclosing block;
      ``@inference_mode`` / ``@inference_mode()`` / ``@inference_mode(False)`` decorate.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # bare ``@inference_mode``

    def __init__(self, mode: bool = True):
        self.mode = mode

    def __enter__(self):
        self._prev = (state.enabled, state.inference)
        state.enabled = not self.mode
        state.inference = self.mode

    def __exit__(self, *exc):
        state.enabled, state.inference = self._prev
        return False

    def clone(self):
        return self.__class__(self.mode)
