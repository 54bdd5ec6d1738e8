"""Exercises on views and storage: predict layouts, tell views from copies.

Each checker builds the exercise's tensors itself, so the expected answer is what
the library really does, and draws the storage diagram of the truth next to the
one the student's answer describes.
"""
from __future__ import annotations

from .registry import exercise
from .result import CheckResult

LAYOUT_EXPRS = ["x[1]", "x[:, 2]", "x.t()[1]", "x[::2, 1::2]"]
SHARE_EXPRS = ["x.t()", "x[[0, 2]]", "x.reshape(12)", "x.t().reshape(12)", "x[x > 5]",
               "x.detach()", "x.clone()", "x[..., None]", "x.t().contiguous()", "x[1:, :2]"]


def _grid():
    import inplace_lab as il

    return il.tensor([[0., 1., 2., 3.], [4., 5., 6., 7.], [8., 9., 10., 11.]])


def _ints(seq) -> tuple:
    return tuple(int(n) for n in seq)


@exercise("storage-of-views", "02_views_exercises.ipynb",
          "Give {expression: (shape, stride, offset)} for each view of the 3x4 grid x holding 0..11.")
def storage_of_views(answer: dict) -> CheckResult:
    import inplace_lab as il

    x = _grid()
    rows, mine, real, wrong, notes = [], [], [], [], []
    for expr in LAYOUT_EXPRS:
        v = eval(expr, {"il": il}, {"x": x})
        want = (tuple(v.shape), v.stride(), v.storage_offset())
        got = answer.get(expr) if isinstance(answer, dict) else None  # wrong kind: all missing
        try:
            got = (_ints(got[0]), _ints(got[1]), int(got[2]))
        except (TypeError, ValueError, IndexError):
            notes.append(f"{expr}: give a triple (shape, stride, offset), e.g. ((4,), (1,), 4)")
            got = None
        ok = got == want
        rows.append((expr, _fmt(want), _fmt(got) if got else "missing", ok))
        real.append((v, expr))
        if not ok:
            wrong.append(expr)
            if got is not None:
                try:
                    mine.append((x.as_strided(*got), f"your {expr}"))
                except Exception as e:  # outside the storage, negative sizes...
                    notes.append(f"{expr}: your layout cannot exist on x's 12 cells ({e})")
    passed = not wrong
    msg = ("All four layouts are right: a view is just a shape, strides and an offset over "
           "x's 12 storage cells." if passed else
           f"Not right yet: {', '.join(wrong)}. Each stride says how many storage cells one step "
           "along that dimension moves; the offset is the cell of element [0, 0, ...].")
    if notes:
        msg += "\n" + "\n".join(notes)
    pics = [("what really happens", il.viz.storage_diagram(
        x, *[t for t, _ in real if _ in wrong or passed],
        names=["x"] + [n for _, n in real if n in wrong or passed]))]
    if mine:
        pics.append(("what your answer describes", il.viz.storage_diagram(
            x, *[t for t, _ in mine], names=["x"] + [n for _, n in mine])))
    return CheckResult("storage-of-views", passed, msg, pics, rows)


def _fmt(triple) -> str:
    shape, stride, off = triple
    return f"shape {shape}, stride {stride}, offset {off}"


@exercise("which-share-storage", "02_views_exercises.ipynb",
          "Give the set of expressions (from SHARE_EXPRS) whose result shares x's storage.")
def which_share_storage(answer) -> CheckResult:
    import inplace_lab as il

    x = _grid()
    if isinstance(answer, str):
        answer = {answer}
    if not isinstance(answer, (set, frozenset, list, tuple)) or \
            not all(isinstance(a, str) for a in answer):
        return CheckResult("which-share-storage", False,
                           "Give a set of expressions as strings, e.g. {\"x.t()\", \"x[1:, :2]\"}.")
    chosen = set(answer)
    unknown = chosen - set(SHARE_EXPRS)
    results, rows = [], []
    for expr in SHARE_EXPRS:
        r = eval(expr, {"il": il}, {"x": x})
        shares = r.untyped_storage() is x.untyped_storage()
        results.append((r, expr, shares))
        rows.append((expr, "shares" if shares else "copy", "shares" if expr in chosen else "copy",
                     shares == (expr in chosen)))
    missed = [e for _, e, s in results if s and e not in chosen]
    extra = [e for _, e, s in results if not s and e in chosen]
    passed = not missed and not extra and not unknown
    lines = []
    if missed:
        lines.append("These share x's storage (views, or detach()): " + ", ".join(missed))
    if extra:
        lines.append("These copy (new storage): " + ", ".join(extra))
    if unknown:
        lines.append("Not in the list: " + ", ".join(sorted(unknown)))
    msg = ("Right: basic indexing, t(), reshape when the strides allow it and detach() share; "
           "advanced/boolean indexing, clone() and a reshape that must reorder copy."
           if passed else "\n".join(lines))
    shown = [(r, e) for r, e, s in results if passed or e in missed or e in extra]
    pic = il.viz.storage_diagram(x, *[r for r, _ in shown], names=["x"] + [e for _, e in shown])
    return CheckResult("which-share-storage", passed, msg, [("the real storages", pic)], rows)
