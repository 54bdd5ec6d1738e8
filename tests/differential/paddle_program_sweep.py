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
        return _err(exc)  # (program_sweep's _probe, with Paddle's first-line rule)


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


_GENERATED = re.compile(r"(generated_tensor|eager_in_tmp)_\d+|[a-z_]+_\d+\.[wb]_\d+")


def _leaf_error(v) -> bool:
    return isinstance(v, tuple) and len(v) == 3 and v[0] == "raised" and \
        "that doesn't stop gradient can't use inplace strategy" in v[2]


def _raised(v, text=""):
    return isinstance(v, tuple) and len(v) == 3 and v[0] == "raised" and text in v[2]


def _field(path):
    return path.split(".")[-1].split(":")[0]


# Known differences (see tests/differential/test_paddle_program_sweep.py); each says why.
KNOWN = {
    # Paddle names an unnamed tensor generated_tensor_<N> (a layer's parameter linear_<N>.w_0)
    # from a process-wide counter (the leaf error quotes it); the facade's cannot follow it.
    "generated_name": lambda line, path, a, b: path.endswith("line:error_text") and
    isinstance(a, str) and isinstance(b, str) and _GENERATED.sub("G", a) == _GENERATED.sub("G", b),
    # The strides Paddle shows for size-1 dims and for empty tensors (never used to address
    # an element), and for gradients (Paddle's may be non-contiguous views; the facade's are
    # contiguous).
    "layout_display": lambda line, path, a, b: _field(path) == "strides" and (
        "None" in line or ".grad" in path or "g" in path.split(".")[1][:1] or "backward" in line
        or "P.grad(" in line or 0 in a or 0 in b),
    # Paddle lets an integer tensor drop stop_gradient and turns an integer tensor into a
    # float one in place (x.exp_()); the facade keeps PyTorch's refusals there.
    "integer_autograd_and_float_inplace": lambda line, path, a, b: a == "ok" and (
        _raised(b, "only Tensors of floating point dtype can require gradients") or
        _raised(b, "result type Float can't be cast to the desired output type")),
    # A transpose perm shorter than the rank: Paddle half-applies it; the facade refuses.
    "short_perm": lambda line, path, a, b: ".transpose(" in line and a == "ok" and
    _raised(b, "number of dimensions in the tensor input does not match"),
    # Deliberate (as in the PyTorch sweep's too_hard_overlap): an in-place op whose operand
    # shares some of its cells is refused.
    "partial_overlap": lambda line, path, a, b: a == "ok" and _raised(b, "unsupported operation:"),
    # Paddle's grad nodes that the facade's graph builds from other ops (flatten is a reshape
    # here, split(x, n) a split with sizes): the released-node error names them differently.
    "node_kind_name": lambda line, path, a, b: path.endswith("line:error_text") and
    isinstance(a, str) and a.startswith("(Fatal) The TensorWrappers of") and
    isinstance(b, str) and b.startswith("(Fatal) The TensorWrappers of"),
    # cast/astype to the same dtype of a view: Paddle returns a tensor sharing the buffer
    # (of a non-view: a copy, as the facade always does).
    "cast_of_view": lambda line, path, a, b: ("astype(" in line or "cast(" in line) and
    _field(path) in ("shared", "version", "is_leaf"),
    # A view made before its base's detach_() keeps needing grad in Paddle; a tensor made
    # under no_grad and then written in place with a gradient-needing operand gets a .grad.
    "stop_gradient_quirks": lambda line, path, a, b: (
        (line.endswith(".detach_()") and _field(path) in ("stop_gradient", "is_leaf")) or
        ("backward(" in line and path.endswith("grad:keys"))),
    # Paddle's assign of a tensor of another dtype into out writes its bytes into out's
    # buffer (float bits read as int by a view of out: a Paddle bug); the facade gives out
    # the converted values in a buffer of its own.
    "assign_other_dtype_bytes": lambda line, path, a, b: "P.assign(" in line and
    _field(path) in ("values", "shared"),
    # Paddle's metadata in-place ops bump versions a little differently (reshape_ to the same
    # shape does not; flatten_ of a saved tensor does): a later backward breaks in Paddle where
    # the facade's runs. (What Paddle's nodes keep beyond PyTorch's, CumsumGradNode's x and
    # DivideGradNode's output, is kept: policy.PADDLE_EXTRA_SAVES.)
    "paddle_saves_more": lambda line, path, a, b: ":error" in path and (
        _raised(a, "used in gradient computation has been modified by an inplace operation") or
        isinstance(a, str) and "used in gradient computation has been modified" in a),
    # assign(x, out) or out.copy_(x) of another shape into an out with history: Paddle keeps
    # out's old node and backward hands it a gradient of the new shape unchecked (its kernels
    # then read memory they never wrote: garbage values); the facade's engine refuses. When
    # P.grad also has an unused input, Paddle's ValueError for it comes after that backward.
    "assign_reshaped_history": lambda line, path, a, b: a == "ok" and
    _raised(b, "returned an invalid gradient") or path.endswith("line:error_type") and
    (a, b) == ("ValueError", "RuntimeError") and "P.grad(" in line,
}
# After these the two runs' states part (the comparison of that program stops).
STOPS = {
    # Deliberate: Paddle's kernel writes before its leaf check raises (the data changes, the
    # version does not); inplace_lab checks first and leaves the tensor as it was.
    "leaf_write_before_error", "integer_autograd_and_float_inplace", "short_perm",
    "partial_overlap", "cast_of_view", "layout_display", "stop_gradient_quirks",
    "paddle_saves_more", "assign_reshaped_history", "assign_other_dtype_bytes",
}


def difference(lines, paddle, lab, known=None, stops=None, observe_fn=observe):
    """(line, path, ref's, got's) at the first difference beyond ``known`` (default KNOWN,
    stopping after ``stops``), or None; ``observe_fn(lines, P)`` runs one side."""
    known = KNOWN if known is None else known
    stops = STOPS if stops is None else stops
    ref, got = observe_fn(lines, paddle), observe_fn(lines, lab)
    for i, (r, g) in enumerate(zip(ref, got)):
        stop = []

        def ignore(path, a, b, line=lines[i]):
            hit = [n for n, k in known.items() if _holds(k, line, path, a, b)]
            stop.extend(n for n in hit if n in stops)
            return bool(hit)
        for key in ("line", "state"):
            d = _diff(r[key], g[key], "." + key, ignore)
            if d:
                if key == "state" and _leaf_error(r["line"]) and _leaf_error(g["line"]):
                    return None  # leaf_write_before_error: what follows differs as a consequence
                return (i, *d)
            if stop:  # the runs took different paths here: what follows differs as a consequence
                return None
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
            if lines[i].startswith("P.seed("):  # (the training programs' weights)
                continue
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
    from .paddle_program_builder_train import build as build_train

    if "--train" in argv:
        argv, build = [a for a in argv if a != "--train"], build_train
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
