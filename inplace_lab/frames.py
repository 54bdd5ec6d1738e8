"""Where the user's code is: frames, source lines and variable names, for the trace recorder.

The recorder must say which line of the student's program caused each event and what the
student called each tensor, cheaply (it runs once per op while tracing). Frames inside the
package are skipped; answers that depend only on a code object (is it ours? where will
the value a call returns be stored?) are cached per code object.
"""
from __future__ import annotations

import dis
import inspect
import linecache
import os
import sys

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_CO_OPTIMIZED = inspect.CO_OPTIMIZED


def _user_frame(report_backward: bool = False):
    """The innermost frame outside the package (the user's line); optionally whether an
    autograd backward walk is on the way there."""
    f = sys._getframe(1)
    in_backward = False
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        if f.f_code.co_name == "run_backward":
            in_backward = True
        f = f.f_back
    return (f, in_backward) if report_backward else f


_CODE_KIND: dict = {}  # id(code) -> (code, 0 user | 1 package | 2 the backward walk)


def _code_kind(code) -> int:
    hit = _CODE_KIND.get(id(code))
    if hit is not None and hit[0] is code:
        return hit[1]
    kind = 0
    if code.co_filename.startswith(_PKG_DIR):
        kind = 2 if code.co_name == "run_backward" else 1
    _CODE_KIND[id(code)] = (code, kind)
    return kind


def _caller(f):
    """``_user_frame(report_backward=True)`` from frame ``f``, with the per-code answer cached."""
    in_backward = False
    kinds = _CODE_KIND
    while f is not None:
        code = f.f_code
        hit = kinds.get(id(code))
        kind = hit[1] if hit is not None and hit[0] is code else _code_kind(code)
        if kind == 0:
            return f, in_backward
        if kind == 2:
            in_backward = True
        f = f.f_back
    return None, in_backward


_LINES: dict = {}  # id(code) -> (code, {f_lasti: line number})


def _line_of(code, lasti: int):
    """The line ``frame.f_lineno`` shows for a frame of ``code`` stopped at ``lasti``.

    The recorder keeps ``(code, frame.f_lasti)`` per event (an attribute read) and asks
    this when the steps are built: ``f_lineno`` works the line out of the code's line
    table at each read, and most events share a handful of offsets."""
    hit = _LINES.get(id(code))
    if hit is None or hit[0] is not code:
        hit = _LINES[id(code)] = (code, {})
    lines = hit[1]
    line = lines.get(lasti, _LINES)
    if line is _LINES:
        line = code.co_firstlineno if lasti < 0 else None
        if lasti >= 0:
            for start, end, ln in code.co_lines():  # (what PyCode_Addr2Line reads)
                if start <= lasti < end:
                    line = ln
                    break
        lines[lasti] = line
    return line


_SCAN = object()  # naming plan: scan the calling frames (see Trace._name_pending)
_PLANS: dict = {}  # id(code) -> (code, {offset of the call: plan})
# what may follow the call that made a value, if the value is bound to no name by it
_NO_STORE = frozenset((
    "LOAD_ATTR", "LOAD_METHOD", "LOAD_CONST", "LOAD_FAST", "LOAD_NAME", "LOAD_GLOBAL",
    "LOAD_DEREF", "PRECALL", "CALL", "KW_NAMES", "BINARY_OP", "BINARY_SUBSCR", "POP_TOP",
    "COMPARE_OP", "CONTAINS_OP", "IS_OP", "STORE_ATTR", "STORE_SUBSCR", "LIST_APPEND",
    "FORMAT_VALUE", "GET_ITER", "UNARY_NEGATIVE", "UNARY_INVERT", "UNARY_NOT"))


def _plan(frame):
    """Where the value the running call of ``frame`` returns will be bound: a variable name
    (``y = x * w``), None (no name: ``(x * w).sum()``, ``f(x * w)``'s argument is seen from
    the callee's frame, which is another frame), or _SCAN."""
    code = frame.f_code
    hit = _PLANS.get(id(code))
    if hit is None or hit[0] is not code:
        plans = {}
        ins = [i for i in dis.get_instructions(code)]
        for i, nxt in zip(ins, ins[1:]):
            op = nxt.opname
            if op in ("STORE_FAST", "STORE_NAME"):
                plan = None if nxt.argval.startswith("_") else nxt.argval
            elif op in _NO_STORE:
                plan = None
            else:
                continue
            for off in range(i.offset, nxt.offset, 2):  # f_lasti may point into the inline caches
                plans[off] = plan
        hit = _PLANS[id(code)] = (code, plans)
    return hit[1].get(frame.f_lasti, _SCAN)


def frame_locals(frame) -> dict:
    """A copy of a frame's local variables that does not keep them alive.

    In a function, ``frame.f_locals`` is a dict cached on the frame that keeps every
    local alive until the next read; a deleted tensor would not be freed and the
    memory numbers would lie. So read it, copy it, and empty the cache (at module level
    ``f_locals`` is the globals dict itself and is left alone).
    """
    scope = frame.f_locals
    if frame.f_code.co_flags & inspect.CO_OPTIMIZED:
        copy = dict(scope)
        scope.clear()
        return copy
    return scope


def _where(frame=None, tb_frame=None):
    if tb_frame is not None:
        tb = tb_frame
        frame = None
        while tb is not None:  # the innermost traceback entry outside the package
            if not tb.tb_frame.f_code.co_filename.startswith(_PKG_DIR):
                frame = tb.tb_frame
                lineno = tb.tb_lineno
            tb = tb.tb_next
        if frame is None:
            return {}
        fn = frame.f_code.co_filename
        return {"filename": fn, "lineno": lineno, "line": linecache.getline(fn, lineno).strip()}
    if frame is None:
        return {}
    fn = frame.f_code.co_filename
    return {"filename": fn, "lineno": frame.f_lineno,
            "line": linecache.getline(fn, frame.f_lineno).strip()}


def _name_in_frames(t, frame, namespace):
    """The first name bound to ``t`` (not starting with ``_``) in the locals of ``frame`` and
    three frames above it, then in ``namespace``.

    The recorder asks this for every tensor it has no name for yet (a result saved for
    backward before its op returns, a tensor made before the trace), so it is written to be
    cheap when nothing matches, the common answer: each scope is searched by ``id`` in C
    first, a scope already searched (a module's globals are often also the namespace) is
    skipped, and a function's locals are read without the copy ``frame_locals`` makes.
    """
    f = frame
    depth = 0
    want = id(t)
    done = None
    while f is not None and depth < 4:
        scope = f.f_locals
        if f.f_code.co_flags & _CO_OPTIMIZED:  # (frame_locals without the copy)
            hit = want in map(id, scope.values()) and _key_of(scope, t)
            scope.clear()  # see frame_locals: the cached dict would keep locals alive
        else:  # module level: the globals themselves
            if done is None:
                done = []
            done.append(scope)
            hit = want in map(id, scope.values()) and _key_of(scope, t)
        if hit:
            return hit
        f = f.f_back
        depth += 1
    if namespace is not None and not (done and any(d is namespace for d in done)):
        return (want in map(id, namespace.values()) and _key_of(namespace, t)) or None
    return None


def _key_of(scope: dict, t):
    for k, v in list(scope.items()):
        if v is t and not k.startswith("_"):
            return k
    return None
