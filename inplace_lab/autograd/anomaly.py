"""Anomaly detection: ``torch.autograd.set_detect_anomaly`` / ``detect_anomaly``.

While it is on, every node an op creates remembers the user's forward traceback,
and when backward fails inside a node PyTorch's ``UserWarning`` names the node
and shows where it was made ("Error detected in SinBackward0. Traceback of
forward call that caused the error: ..."). With ``check_nan`` a node that
returns NaN raises "Function 'SqrtBackward0' returned nan values in its 0th output.".

It costs nothing while off: the mode is a recorder attached to the event bus
(``hooks.attach``), so the core only notices it when it is switched on. The
traceback is a list of the user's frames (package frames left out), kept in a
weak dictionary keyed by node (nodes have slots and no ``__dict__``).

A custom ``Function``'s node emits no op event: ``Function.apply`` calls ``note`` itself.
"""
from __future__ import annotations

import sys
import traceback
import warnings
import weakref

from .. import hooks
from ..frames import _PKG_DIR


class _State:
    enabled = False
    check_nan = True


state = _State()
_traces: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _user_stack() -> list:
    """The forward call's frames outside the package, outermost first."""
    frames = []
    f = sys._getframe(1)
    while f is not None:
        if not f.f_code.co_filename.startswith(_PKG_DIR):
            frames.append((f, f.f_lineno))
        f = f.f_back
    frames.reverse()
    return traceback.StackSummary.extract(frames, lookup_lines=True, capture_locals=False)


def _check_nan_hook(node):
    def hook(grads_in, grads_out):
        if not state.check_nan:
            return
        for i, g in enumerate(grads_in):
            if g is not None and g._dtype.is_floating_point and bool(g.isnan().any()):
                _Recorder.current = node
                raise RuntimeError(
                    f"Function '{node.name()}' returned nan values in its {i}th output.")
        return

    return hook


class _Recorder:
    """The event-bus recorder: remembers tracebacks at ``op``, the running node at ``node``."""

    current = None

    def on_op(self, name, kind, inputs, outputs, before, after):
        for t in outputs:
            node = getattr(t, "_grad_fn", None)
            if node is not None and node not in _traces:
                note(node)

    def on_memory(self, what, storage_id, device, nbytes):
        pass

    def on_save(self, saved, tensor):
        pass

    def on_event(self, event, op, kind, inputs, outputs, data, obj):
        if event == "node":
            _Recorder.current = obj


_recorder = _Recorder()


def note(node) -> None:
    """Remember where ``node`` was made and check its outputs for NaN (anomaly mode only;
    ops reach here through the event bus, a custom Function's apply calls it directly)."""
    _traces[node] = _user_stack()
    node.register_hook(_check_nan_hook(node))


def set_anomaly_enabled(mode: bool, check_nan: bool = True) -> None:
    """``torch.set_anomaly_enabled``: switch the mode (and its NaN check) on or off."""
    state.enabled, state.check_nan = bool(mode), bool(check_nan)
    if state.enabled:
        hooks.attach(_recorder)
    else:
        hooks.detach(_recorder)
        _Recorder.current = None


def is_anomaly_enabled() -> bool:
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return state.check_nan


class detect_anomaly:
    """Context manager: anomaly detection on inside the block (warns that it is slow)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = state.enabled, state.check_nan
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Switch anomaly detection on or off now; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = state.enabled, state.check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


def report_failure() -> None:
    """Backward raised: warn as PyTorch does with the failing node's forward traceback."""
    node, _Recorder.current = _Recorder.current, None
    if node is None:
        return
    stack = _traces.get(node)
    if stack is None:
        body = "No forward pass information available. Enable detect anomaly during forward " \
               "pass for more information."
        warnings.warn(f"Error detected in {node.name()}. {body}", UserWarning, stacklevel=3)
        return
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                  "error:\n" + "".join(stack.format()), UserWarning, stacklevel=3)
