"""Random Paddle-style programs, run line by line on paddle 3.3.1 and ``inplace_lab.paddle``.

``paddle_program_builder.build(seed)`` writes the program; ``observe`` runs it and, after
every line, takes each named tensor's values, shape, dtype, strides and offset,
``stop_gradient``, ``is_leaf``, ``inplace_version`` and ``.grad``, which tensors share a
buffer (``_is_shared_buffer_with``), and the line's error (type and first line of text).
The comparison and minimising are ``program_sweep``'s. ``python -m
tests.differential.paddle_program_sweep N [START]`` runs N seeds and prints what differs.
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

import re

from .program_sweep import _diff, _holds, kind_of


def _err(exc):
    """(raised, type, first line), Paddle's ``(at file.cc:N)`` source suffix dropped."""
    line = str(exc).strip().split("\n")[0].strip()
    return ("raised", type(exc), re.sub(r"\s*\(at /paddle/[^)]*\)$", "", line))


def _probe(fn):
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the error is the observation
        return _err(exc)


def _is_tensor(v) -> bool:
    cls = type(v)
    return hasattr(cls, "stop_gradient") and hasattr(cls, "inplace_version")


def _fields(t) -> dict:
    return {
        "shape": _probe(lambda: list(t.shape)), "dtype": _probe(lambda: str(t.dtype)),
        "values": _probe(lambda: np.asarray(t.numpy())),
        "strides": _probe(lambda: list(t.get_strides())), "offset": _probe(lambda: t.offset),
        "stop_gradient": _probe(lambda: t.stop_gradient), "is_leaf": _probe(lambda: t.is_leaf),
        "version": _probe(lambda: t.inplace_version),
    }


def snapshot(ns: dict) -> dict:
    named = []
    for name, v in ns.items():
        if isinstance(v, (tuple, list)) and name.startswith("g"):
            named += [(f"{name}[{i}]", x) for i, x in enumerate(v)]
        elif name[:1] in "tg" and name[1:].isdigit():
            named.append((name, v))
    out, group = {}, []
    for name, v in named:
        if not _is_tensor(v):
            out[name] = repr(v) if v is None else type(v).__name__
            continue
        out[name] = _fields(v)
        group.append((name, v))
        g = _probe(lambda v=v: v.grad)
        out[name]["grad"] = g if g is None or isinstance(g, tuple) else _fields(g)
    shared = []
    for i, (a, x) in enumerate(group):
        for b, y in group[i + 1:]:
            if _probe(lambda x=x, y=y: x._is_shared_buffer_with(y)) is True:
                shared.append((a, b))
    out["shared"] = shared
    return out


def observe(lines, P):
    ns = {"P": P, "F": P.nn.functional}
    obs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for line in lines:
            try:
                exec(line, ns)  # noqa: S102 - the program is generated here
                result = "ok"
            except Exception as exc:  # noqa: BLE001
                result = _err(exc)
            obs.append({"line": result, "warnings": [], "state": snapshot(ns)})
    return obs


_GENERATED = re.compile(r"generated_tensor_\d+")


def _leaf_error(v) -> bool:
    return isinstance(v, tuple) and len(v) == 3 and v[0] == "raised" and \
        "that doesn't stop gradient can't use inplace strategy" in v[2]


# Known differences (see tests/differential/test_paddle_program_sweep.py).
KNOWN = {
    # Paddle names an unnamed tensor generated_tensor_<N> from a process-wide counter
    # (the leaf error quotes it); the facade's counter cannot follow Paddle's.
    "generated_name": lambda line, path, a, b: path.endswith("line:error_text") and
    isinstance(a, str) and isinstance(b, str) and _GENERATED.sub("G", a) == _GENERATED.sub("G", b),
}
# After these the two runs' states part (the comparison of that program stops).
STOPS = {
    # Deliberate: Paddle's kernel writes before its leaf check raises (the data changes, the
    # version does not); inplace_lab checks first and leaves the tensor as it was.
    "leaf_write_before_error",
}


def difference(lines, paddle, lab):
    ref, got = observe(lines, paddle), observe(lines, lab)
    for i, (r, g) in enumerate(zip(ref, got)):
        for key in ("line", "state"):
            d = _diff(r[key], g[key], "." + key,
                      lambda path, a, b, line=lines[i]: any(
                          _holds(k, line, path, a, b) for k in KNOWN.values()))
            if d:
                if key == "state" and _leaf_error(r["line"]) and _leaf_error(g["line"]):
                    return None  # leaf_write_before_error: what follows differs as a consequence
                return (i, *d)
    return None


def shrink(lines, paddle, lab):
    d = difference(lines, paddle, lab)
    if d is None:
        return lines, None
    kind = kind_of(d)
    lines = lines[: d[0] + 1]
    changed = True
    while changed:
        changed = False
        for i in range(len(lines) - 1, -1, -1):
            trial = lines[:i] + lines[i + 1:]
            td = difference(trial, paddle, lab)
            if td is not None and kind_of(td) == kind:
                lines, changed = trial[: td[0] + 1], True
                break
    return lines, difference(lines, paddle, lab)


def main(argv):
    import paddle

    import inplace_lab.paddle as lab

    from .paddle_program_builder import build

    n = int(argv[1]) if len(argv) > 1 else 200
    start = int(argv[2]) if len(argv) > 2 else 0
    kinds = {}
    for seed in range(start, start + n):
        lines = build(seed)
        d = difference(lines, paddle, lab)
        if d is None:
            continue
        small, d = shrink(lines, paddle, lab)
        if d is None:
            continue
        key = d[1].split(".")[-1]
        kinds.setdefault(key, []).append(seed)
        print(f"--- seed {seed}: line {d[0]} {d[1]}\n" + "\n".join(small) +
              f"\npaddle: {d[2]!r}\ninplace_lab: {d[3]!r}", flush=True)
    print({k: v[:8] for k, v in kinds.items()})


if __name__ == "__main__":
    main(sys.argv)
