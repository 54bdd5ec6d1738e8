"""Random course-style programs, run line by line on torch and on ``inplace_lab.torch``.

A program is a list of Python source lines over a module called ``T`` (``torch`` or
``inplace_lab.torch``), the kind of code an autograd-and-memory lesson writes: leaves and
non-leaves, views of every sort, out-of-place and in-place ops, ``detach``/``.data``,
``no_grad``/``inference_mode`` blocks, ``backward`` (with ``retain_graph``, twice) and
``autograd.grad``. ``build(seed)`` writes one: it runs each line on real torch while it
writes, so the next line can pick shapes and indices that fit (and, now and then, ones that
do not, to check the error). ``observe(lines, T)`` runs the program and, after every line,
takes a snapshot of every tensor in the namespace: values, layout (shape, strides, offset,
contiguity), ``_version``, autograd state (requires_grad, is_leaf, grad_fn and its
next_functions names, is a view), ``.grad``, which tensors share an object, a data pointer
or a storage, and the line's error and warnings. ``first_difference`` says where two runs
part; ``minimise`` drops lines while the same kind of difference remains.

Keeping the program as text means a mismatch prints as a script that can be pasted into a
regression test. ``python -m tests.differential.program_sweep N [START]`` runs N seeds.
"""
from __future__ import annotations

import random
import warnings

import numpy as np

# ---- observing a run -----------------------------------------------------------------------


def _err(exc: BaseException):
    return ("raised", type(exc), _strip_cpp(str(exc)))


def _strip_cpp(msg: str) -> str:
    """The first line, without torch's ``(Triggered internally at file.cpp:N.)`` suffix."""
    line = msg.strip().split("\n")[0].strip()
    cut = line.find(" (Triggered internally at ")
    return line[:cut] if cut >= 0 else line


def _probe(fn):
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the error is the observation
        return _err(exc)


def _is_tensor(v) -> bool:
    cls = type(v)  # (on the class: torch can refuse to read grad_fn of a dead view)
    return hasattr(cls, "data_ptr") and hasattr(cls, "grad_fn") and hasattr(cls, "untyped_storage")


def _node_name(fn):
    return None if fn is None else type(fn).__name__


def _values(t):
    # (tolist, not numpy(): torch's numpy() pins the storage, so a later ``out=`` resize
    # would fail, or worse, where the program alone would not)
    return np.asarray(t.detach().tolist())


def _tensor_fields(t, full: bool) -> dict:
    d = {
        "shape": tuple(t.shape), "dtype": str(t.dtype),
        "stride": _probe(lambda: tuple(t.stride())),
        "offset": _probe(t.storage_offset), "contiguous": _probe(t.is_contiguous),
        "version": _probe(lambda: t._version), "requires_grad": _probe(lambda: t.requires_grad),
        "is_leaf": _probe(lambda: t.is_leaf), "inference": _probe(t.is_inference),
        "is_view": _probe(lambda: t._base is not None), "values": _probe(lambda: _values(t)),
    }
    if full:
        fn = _probe(lambda: t.grad_fn)
        if isinstance(fn, tuple):
            d["grad_fn"] = fn
        else:
            d["grad_fn"] = _node_name(fn)
            d["next"] = None if fn is None else _probe(
                lambda: [(_node_name(f), i) for f, i in fn.next_functions])
    return d


def snapshot(ns: dict, full: bool) -> dict:
    """Every tensor the program named (and every leaf's ``.grad``), plus how they alias."""
    named = []
    for name, v in ns.items():
        if isinstance(v, (tuple, list)) and name.startswith("g"):
            for i, x in enumerate(v):
                named.append((f"{name}[{i}]", x))
        elif name[:1] in "tg" and name[1:].isdigit():
            named.append((name, v))
    out, group = {}, []
    for name, v in named:
        if not _is_tensor(v):
            out[name] = repr(v) if v is None else type(v).__name__
            continue
        out[name] = _tensor_fields(v, full)
        group.append((name, v))
        if _probe(lambda v=v: v.is_leaf or v.retains_grad) is True:
            g = _probe(lambda v=v: v.grad)
            if g is None or isinstance(g, tuple):
                out[name]["grad"] = g
            elif g is None:
                out[name]["grad"] = None
            else:
                out[name]["grad"] = _tensor_fields(g, full)
                group.append((name + ".grad", g))
    for key, how in (("same_object", id), ("same_ptr", lambda t: t.data_ptr()),
                     ("same_storage", lambda t: t.untyped_storage().data_ptr())):
        seen, classes = {}, {}
        for name, t in group:
            k = _probe(lambda t=t: how(t))
            if isinstance(k, tuple) or (key != "same_object" and t.numel() == 0):
                continue
            seen.setdefault(k, []).append(name)
        classes = sorted(tuple(v) for v in seen.values() if len(v) > 1)
        out[key] = classes
    return out


def observe(lines, T, *, full_every=1):
    """Run ``lines`` with ``T`` bound to a framework; one observation per line."""
    ns = {"T": T}
    obs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, line in enumerate(lines):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    exec(line, ns)  # noqa: S102 - the program is generated here
                    result = "ok"
                except Exception as exc:  # noqa: BLE001
                    result = _err(exc)
            said = [(w.category.__name__, _strip_cpp(str(w.message))) for w in caught]
            obs.append({"line": result, "warnings": said,
                        "state": snapshot(ns, full=(i % full_every == 0))})
    return obs


# ---- comparing two runs --------------------------------------------------------------------


def _diff(ref, got, path, ignore=lambda path, ref, got: False):
    """The first place ``got`` differs from ``ref``: (path, ref, got), or None.

    ``ignore(path, ref, got)`` may excuse a difference (a known one): the walk goes on.
    """
    d = _diff1(ref, got, path, ignore)
    return None if d is None or ignore(*d) else d


def _diff1(ref, got, path, ignore):
    if isinstance(ref, tuple) and len(ref) == 3 and ref[0] == "raised":
        if not (isinstance(got, tuple) and len(got) == 3 and got[0] == "raised"):
            return (path + ":error", ref, got)
        if not issubclass(got[1], ref[1]):
            return (path + ":error_type", ref[1].__name__, got[1].__name__)
        if got[2] != ref[2]:
            return (path + ":error_text", ref[2], got[2])
        return None
    if isinstance(got, tuple) and len(got) == 3 and got[0] == "raised":
        return (path + ":unexpected_error", ref, got)
    if isinstance(ref, np.ndarray):
        if not isinstance(got, np.ndarray) or got.shape != ref.shape:
            return (path, ref, got)
        if ref.dtype == bool or got.dtype == bool:
            same = np.array_equal(ref, got)
        else:
            same = np.allclose(got, ref, rtol=1e-5, atol=1e-6, equal_nan=True)
        return None if same else (path, ref, got)
    if isinstance(ref, dict):
        if not isinstance(got, dict) or set(got) != set(ref):
            return (path + ":keys", sorted(ref) if isinstance(ref, dict) else ref,
                    sorted(got) if isinstance(got, dict) else got)
        for k in ref:
            d = _diff(ref[k], got[k], f"{path}.{k}", ignore)
            if d:
                return d
        return None
    return None if ref == got else (path, ref, got)


def first_difference(lines, ref_lib, got_lib, known=None, observe_fn=None, stops=None, **kw):
    """(line index, field path, torch's, inplace_lab's) at the first difference, or None.

    ``known``: {name: predicate(line, path, ref, got)} of differences to step over;
    ``observe_fn``: how a run is observed (default: ``observe``, torch's fields);
    ``stops``: the known differences after which the runs' states part (default ``STOPS``).
    """
    observe_fn = observe_fn or observe
    stops = STOPS if stops is None else stops
    ref, got = observe_fn(lines, ref_lib, **kw), observe_fn(lines, got_lib, **kw)
    for i, (r, g) in enumerate(zip(ref, got)):
        stop = []

        def ignore(path, a, b, line=lines[i]):
            hit = [n for n, k in (known or {}).items() if _holds(k, line, path, a, b)]
            stop.extend(n for n in hit if n in stops)
            return bool(hit)
        for key in ("line", "warnings", "state"):
            d = _diff(r[key], g[key], "." + key, ignore)
            if d:
                return (i, *d)
            if stop:  # the runs took different paths here: what follows differs as a consequence
                return None
    return None


def _holds(pred, *args) -> bool:
    try:
        return bool(pred(*args))
    except Exception:  # noqa: BLE001 - a predicate that does not apply to these values
        return False


def kind_of(diff) -> str:
    """A mismatch's class: the field that differs (tensor names and indices removed)."""
    path = diff[1]
    parts = [p for p in path.split(".") if p and not (p[:1] in "tg" and p[1:2].isdigit())]
    return ".".join(parts)


def minimise(lines, ref_lib, got_lib, kind=None, known=None, **kw):
    """Drop lines (one at a time, repeatedly) while a difference of the same kind remains
    (``kw``: ``first_difference``'s ``observe_fn`` and ``stops``)."""
    d = first_difference(lines, ref_lib, got_lib, known, **kw)
    if d is None:
        return lines, None
    kind = kind or kind_of(d)
    lines = lines[: d[0] + 1]
    changed = True
    while changed:
        changed = False
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].startswith("T.manual_seed("):  # (the training programs' weights)
                continue
            trial = lines[:i] + lines[i + 1:]
            td = first_difference(trial, ref_lib, got_lib, known, **kw)
            if td is not None and kind_of(td) == kind:
                lines, changed = trial[: td[0] + 1], True
                break
    return lines, first_difference(lines, ref_lib, got_lib, known, **kw)


# ---- differences known today -----------------------------------------------------------------
# Each is pinned by a strict xfail in tests/differential/test_program_sweep.py; when a fix lands,
# that test XPASSes (fails), and its entry here goes too.

def _is_error(v, text=None):
    return isinstance(v, tuple) and len(v) == 3 and v[0] == "raised" and \
        (text is None or v[2].startswith(text))


def _grad_field(path, field):
    """A field of a ``.grad`` or of an ``autograd.grad`` result."""
    parts = path.split(".")
    return parts[-1].split(":")[0] == field and (
        ".grad." in path or any(p.startswith("g") and "[" in p for p in parts))


def _assigned(line, name) -> bool:
    """``line`` assigns ``name`` (``t3 = ...``, ``t2, t3 = ...``)."""
    lhs = line.split(" = ", 1)[0] if " = " in line else ""
    return name in [n.strip() for n in lhs.split(",")]


_TIE_OPS = (".sort(", ".topk(", ".kthvalue(", ".median(", ".msort(", ".argsort(")

# Known differences after which the two runs no longer hold the same state.
STOPS = {"too_hard_overlap", "inference_detach_write",
         "permute_no_dims", "freed_or_modified_first", "copy_self", "stale_view_error_first",
         "stale_view_is_leaf", "metadata_inplace_on_view", "out_overlap",
         "result_of_inference_input_version", "torch_internal_assert", "tie_indices",
         "masked_scatter_partial_write", "inference_stack_is_view", "resize_uninitialised"}

KNOWN = {
    # Gradients that torch's view backward formulas return as views (SqueezeBackward's
    # unsqueeze, TBackward's transpose, AsStridedBackward's as_strided): their is_view and
    # strides; inplace_lab's array formulas return fresh tensors there.
    "grad_result_layout": lambda line, path, a, b: any(
        _grad_field(path, f) for f in ("stride", "is_view", "contiguous")),
    # torch's Python is_leaf asks grad_fn (a stale no_grad/multi-output view raises there,
    # a stale view whose base now needs grad becomes a non-leaf); inplace_lab reads the field.
    # Also requires_grad of a no_grad/inference_mode view after its base's detach_() (torch
    # asks the base again; inplace_lab keeps what the view was made with).
    "stale_view_is_leaf": lambda line, path, a, b: path.split(".")[-1].split(":")[0] == "is_leaf"
    or (path.endswith(":keys") and set(a) ^ set(b) == {"grad"})
    or (path.endswith(".requires_grad") and line.endswith(".detach_()")),
    # An op outside inference_mode on an inference tensor: torch's result (sum, mean via out=)
    # is born at version 1 or 2. Only for a tensor this very line made.
    "result_of_inference_input_version": lambda line, path, a, b: path.endswith(".version") and
    isinstance(a, int) and a > 0 and b == 0 and _assigned(line, path.split(".")[-2]),
    # ... and torch's stack of inference tensors (outside inference_mode) calls itself a view.
    "inference_stack_is_view": lambda line, path, a, b: path.endswith(".is_view") and
    a is True and b is False and "T.stack(" in line,
    # A torch bug: an internal assert instead of an error or a result (swapdims_ on a view
    # whose grad is retained, then an in-place op: "out != nullptr INTERNAL ASSERT FAILED").
    "torch_internal_assert": lambda line, path, a, b: path.endswith("line:error") and
    _is_error(a) and "INTERNAL ASSERT FAILED" in a[2],
    # Indices of tied values: torch's sort/topk/kthvalue/median (stable=False) pick among
    # equal elements by their algorithm's order; inplace_lab's numpy sorts stably.
    "tie_indices": lambda line, path, a, b: path.endswith(".values") and
    any(op in line for op in _TIE_OPS) and _assigned(line, path.split(".")[-2]) and
    line.split(" = ", 1)[0].split(",")[0].strip() != path.split(".")[-2],
    # resize_ that grows a storage: the new cells are uninitialised memory in torch.
    "resize_uninitialised": lambda line, path, a, b: ".resize_(" in line and
    path.endswith(".values"),
    # Deliberate: masked_scatter_ with too few source elements raises before writing; torch
    # has written the first ones when it raises.
    "masked_scatter_partial_write": lambda line, path, a, b: "masked_scatter_" in line and
    path.endswith(".values"),
    # out= into a window of its own input: torch checks the overlap, inplace_lab does not.
    "out_overlap": lambda line, path, a, b: "out=" in line and path.endswith("line:error") and
    _is_error(a, "unsupported operation: some elements") and b == "ok",
    # Deliberate: inplace_lab refuses overlapping writes torch calls "too hard" and lets through.
    "too_hard_overlap": lambda line, path, a, b: path.endswith("line:unexpected_error") and _is_error(
        b, "unsupported operation: ") and a == "ok",
    # A saved in-place result on a view names the view's rebuilt node (AsStrided) while that
    # node lives, else the op: the sweep's own reading of grad_fn after every line changes
    # node lifetimes differently in torch (its node wrappers) and here. Direct programs are
    # pinned in tests/ops/test_check_order.py.
    "view_node_lifetime": lambda line, path, a, b: path.endswith("line:error_text") and
    isinstance(a, str) and isinstance(b, str) and "of AsStrided," in a + b and
    a.split(", which is output")[0] == b.split(", which is output")[0],
    # Warnings left: numpy's floating-point RuntimeWarnings (overflow in exp) that torch
    # does not give, and torch's out= resize warning, given twice by some ops.
    "warnings": lambda line, path, a, b: path.endswith(".warnings"),
    # y.unsqueeze_(0) on a view: torch chains UnsqueezeBackward1, inplace_lab rebuilds AsStrided.
    "metadata_inplace_on_view": lambda line, path, a, b: path.split(".")[-1] in ("grad_fn", "next")
    and any(op in line for op in ("squeeze_", "t_()", "transpose_", "swapdims_", "swapaxes_")),
    # A saved tensor both freed (an earlier backward) and modified: which error comes first
    # differs (torch's node order vs inplace_lab's).
    "freed_or_modified_first": lambda line, path, a, b: path.endswith("line:error_text") and
    {a[:20], b[:20]} == {"one of the variables", "Trying to backward t"},
    # x.copy_(x) returns at once in torch (is_same), even for an expanded x.
    "copy_self": lambda line, path, a, b: path.endswith("line:unexpected_error") and
    _is_error(b, "unsupported operation: more than one element") and a == "ok",
    # torch's view op asks a stale no_grad view's grad_fn before it checks its arguments.
    "stale_view_error_first": lambda line, path, a, b: path.endswith("line:error_text") and
    a.startswith("A view was created in"),
}


def first_failure(build, seeds, ref_lib, got_lib):
    """The first of ``seeds`` whose program (``build(seed)``) differs beyond ``KNOWN``, as a
    report with the minimised program; None when all agree (what the sweep tests assert)."""
    for seed in seeds:
        lines = build(seed)
        if first_difference(lines, ref_lib, got_lib, KNOWN) is None:
            continue
        small, d = minimise(lines, ref_lib, got_lib, known=KNOWN)
        return (f"seed {seed}: line {d[0]} {d[1]}\n" + "\n".join(small) +
                f"\ntorch: {d[2]!r}\ninplace_lab: {d[3]!r}")
    return None


def same_on_both(src, names, libs):
    """Run ``src`` (with ``T`` bound) on each of ``libs``; the named expressions' values (lists
    for tensors) or the error, one entry per library, for a test to compare."""
    out = []
    for T in libs:
        ns = {"T": T}
        try:
            exec(src, ns)  # noqa: S102
            out.append([(lambda v: v.tolist() if hasattr(v, "tolist") else v)(eval(n, ns))  # noqa: S307
                        for n in names])
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            out.append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    return out


def main(argv):
    """``python -m tests.differential.program_sweep [--wide|--train] N [START]``: run N seeds
    from START (``--wide``: program_builder_wide's programs, ``--train``:
    program_builder_train's) and print each differing program,
    minimised, then the seeds by kind of difference."""
    import sys

    import torch

    import inplace_lab.torch as lab

    from .program_builder import build
    from .program_builder_wide import build as build_wide

    from .program_builder_train import build as build_train

    if "--wide" in argv:
        argv, build = [a for a in argv if a != "--wide"], build_wide
    if "--train" in argv:
        argv, build = [a for a in argv if a != "--train"], build_train
    n = int(argv[1]) if len(argv) > 1 else 300
    start = int(argv[2]) if len(argv) > 2 else 0
    kinds: dict = {}
    for seed in range(start, start + n):
        lines = build(seed)
        if first_difference(lines, torch, lab, KNOWN) is None:
            continue
        small, d = minimise(lines, torch, lab, known=KNOWN)
        if d is None:  # (gone once minimised: the whole program, as it differed)
            small, d = lines, first_difference(lines, torch, lab, KNOWN)
        kinds.setdefault(d[1].split(".")[-1], []).append(seed)
        print(f"--- seed {seed}: line {d[0]} {d[1]}\n" + "\n".join(small) +
              f"\ntorch: {d[2]!r}\ninplace_lab: {d[3]!r}", flush=True, file=sys.stdout)
    print({k: v[:8] for k, v in kinds.items()})


if __name__ == "__main__":
    import sys

    main(sys.argv)
