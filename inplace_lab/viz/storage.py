"""Storage diagram: each storage as a strip of cells, each tensor drawn over the cells it covers.

Every tensor gets a row under its storage's strip: a marker under each cell it
reads, numbered in the tensor's element order and joined by a line in that
order, so a transpose zig-zags, a step slice skips cells and an expand stacks
several numbers on one cell. Views name their base; tensors sharing a version
counter carry the same counter badge; cells changed by the last in-place op are
highlighted.

>>> import inplace_lab as il
>>> x = il.arange(6.).reshape(2, 3)
>>> pic = il.viz.storage_diagram(x, x.t(), x[:, 1], names=["x", "x.t()", "x[:, 1]"])
>>> len(pic.model), len(pic.model[0].tensors)
(1, 3)
"""
from __future__ import annotations

from .model import StorageModel, caller_names, from_step, from_tensors
from .svg import SVG, Picture
from .theme import MONO, ROLE, TINT, tensor_colour

CW, CH = 46, 30  # cell size
LABEL_W = 270
ROW = 46
MAX_CELLS = 40  # wider storages are elided around the cells that matter


def storage_diagram(*items, names=None, changed=None, title: str = "") -> Picture:
    """Draw tensors (or one trace ``Step``) over their storages.

    ``names``: labels for the tensors, in order (defaults: variable names are not
    visible here, so ``tensor.name`` or t0, t1...). ``changed``: a tensor whose cells
    to highlight as just written.
    """
    if len(items) == 1 and hasattr(items[0], "storages") and hasattr(items[0], "inputs"):
        storages = from_step(items[0])
    else:
        nm = caller_names()
        if names is not None:
            nm.update({id(t): n for t, n in zip(items, names)})
        storages = from_tensors(items, nm, changed)
    return Picture(render(storages, title), "storage", storages)


def visible_positions(sm: StorageModel) -> list:
    """Storage positions to draw; ``None`` marks an elided run."""
    if sm.size <= MAX_CELLS:
        return list(range(sm.size))
    want = set(range(4)) | set(range(sm.size - 2, sm.size))
    for t in sm.tensors:
        want.update(t.positions[:6])
        want.update(t.positions[-2:])
    want.update(list(sorted(sm.changed))[:4])
    want = sorted(p for p in want if 0 <= p < sm.size)[:MAX_CELLS]
    out, prev = [], -1
    for p in want:
        if p != prev + 1:
            out.append(None)
        out.append(p)
        prev = p
    if prev != sm.size - 1:
        out.append(None)
    return out


def render(storages, title: str = "") -> str:
    blocks = []
    total_h = 16
    width = 0
    for sm in storages:
        cols = visible_positions(sm)
        h = 84 + len(sm.tensors) * ROW + 16 * len({t.counter for t in sm.tensors}) + 12
        blocks.append((sm, cols, total_h))
        total_h += h
        width = max(width, LABEL_W + len(cols) * CW + 190)
    if title:
        total_h += 24
    svg = SVG(max(width, 420), total_h + 8, title or "storage diagram")
    svg.rect(0, 0, svg.width, svg.height, fill=ROLE["paper"])
    yshift = 24 if title else 0
    if title:
        svg.text(16, 20, title, 15, font_weight="bold", fill=ROLE["ink"])
    for sm, cols, y0 in blocks:
        _block(svg, sm, cols, y0 + yshift)
    return str(svg)


def _block(svg: SVG, sm: StorageModel, cols, y0) -> None:
    x0 = LABEL_W
    col_of = {p: i for i, p in enumerate(cols) if p is not None}
    svg.text(16, y0 + 14, f"storage #{sm.sid}", 13, font_weight="bold", fill=ROLE["ink"])
    svg.text(16, y0 + 30, f"{sm.size} × {sm.dtype} · {sm.nbytes:,} bytes", 11,
             fill=ROLE["muted"])
    sy = y0 + 8
    for i, p in enumerate(cols):
        x = x0 + i * CW
        if p is None:
            svg.rect(x, sy, CW, CH, fill="none", stroke=ROLE["grid"], stroke_dasharray="3 3",
                     **{"class": "cell elided"})
            svg.text(x + CW / 2, sy + CH / 2 + 4, "⋯", 14, text_anchor="middle", fill=ROLE["muted"])
            continue
        changed = p in sm.changed
        svg.rect(x, sy, CW, CH, fill="#FDE3DC" if changed else ROLE["paper"],
                 stroke=ROLE["modified"] if changed else ROLE["grid"],
                 stroke_width=2 if changed else 1, rx=2,
                 **{"class": "cell changed" if changed else "cell", "data-pos": p})
        if p in sm.values:
            svg.text(x + CW / 2, sy + CH / 2 + 4, _fmt(sm.values[p]), 11, text_anchor="middle",
                     font_family=MONO, fill=ROLE["ink"])
        svg.text(x + CW / 2, sy + CH + 12, str(p), 9, text_anchor="middle", fill=ROLE["muted"])
    counters = {}
    row_y = {}
    for r, t in enumerate(sm.tensors):
        y = sy + CH + 26 + r * ROW
        row_y[t.label] = y
        colour = tensor_colour(r)
        counters.setdefault(t.counter, []).append(t)
        _tensor_row(svg, t, col_of, x0, y, colour)
    # view-of arrows: from each view's label to its base's label, on the left margin
    for t in sm.tensors:
        if t.base is not None and t.base in row_y:
            ya, yb = row_y[t.label] + 6, row_y[t.base] + 6
            svg.path(f"M 10 {ya:.1f} C 2 {ya:.1f}, 2 {yb:.1f}, 10 {yb:.1f}", fill="none",
                     stroke=ROLE["view"], stroke_width=1.5, marker_end=None,
                     **{"class": "view-of", "data-view": t.label, "data-base": t.base})
            svg.path(f"M 10 {yb:.1f} l -5 -3 l 0 6 z", fill=ROLE["view"])
    # the version counters: one line per counter, naming every tensor that shares it
    y = sy + CH + 26 + len(sm.tensors) * ROW + 4
    for k, ts in enumerate(counters.values()):
        names = ", ".join(t.label for t in ts)
        txt = f"version counter = {ts[0].version}" + (
            f"  shared by {names}" if len(ts) > 1 else f"  ({names})")
        svg.text(16, y + k * 16, txt, 11, fill=ROLE["accent"],
                 **{"class": "version-counter", "data-version": ts[0].version})


def _tensor_row(svg: SVG, t, col_of, x0, y, colour) -> None:
    label = _clip(t.label, 22) + (f"  view of {_clip(t.base, 12)}" if t.base is not None else "")
    svg.text(16, y + 4, label, 12, font_weight="bold", fill=colour,
             **{"class": "tensor-label", "data-tensor": t.label})
    svg.text(16, y + 18, t.describe(), 9.5, font_family=MONO, fill=ROLE["muted"])
    svg.text(16, y + 30, _flags(t), 9.5, fill=ROLE["muted"])
    badge = "OVERLAPPING · stride 0" if t.overlapping else "NON-CONTIGUOUS" if not t.contiguous \
        else ""
    if badge:  # unmistakable: a red badge at the end of the row and dashed element pills
        bx = x0 + max(col_of.values(), default=0) * CW + CW + 10
        svg.rect(bx, y - 8, 12 + 6.9 * len(badge), 18, rx=9, fill=TINT["modified"],
                 stroke=ROLE["modified"], **{"class": "badge", "data-tensor": t.label})
        svg.text(bx + 5, y + 5, badge, 9.5, font_weight="bold", fill=ROLE["modified"])
    by_col: dict[int, list] = {}
    for k, p in enumerate(t.positions):
        order = k if not t.sampled or k < 8 else t.numel - (len(t.positions) - k)
        if p in col_of:
            by_col.setdefault(col_of[p], []).append(order)
    pts = [x0 + col_of[p] * CW + CW / 2 for p in t.positions if p in col_of]
    if len(pts) > 1:  # element order: forward steps arch over, backward jumps dip under
        d = f"M {pts[0]:.1f} {y + 2:.1f}"
        for a, b in zip(pts, pts[1:]):
            bulge = -14 if b > a else 22
            if abs(b - a) <= CW + 1 and b > a:
                bulge = 0
            d += f" Q {(a + b) / 2:.1f} {y + 2 + bulge:.1f} {b:.1f} {y + 2:.1f}"
        svg.path(d, fill="none", stroke=colour, stroke_width=1.3, stroke_opacity=0.6,
                 **{"class": "traversal"})
    dashed = not t.contiguous
    pos_at = {i: p for p, i in col_of.items()}
    for c, orders in by_col.items():
        x = x0 + c * CW
        txt = ",".join(str(o) for o in orders[:3]) + ("…" if len(orders) > 3 else "")
        svg.rect(x + 4, y - 8, CW - 8, 20, rx=6, fill=colour,
                 stroke="#FFFFFF" if dashed else "none", stroke_dasharray="3 2" if dashed else None,
                 **{"class": "cover", "data-tensor": t.label, "data-cell": pos_at[c],
                    "data-order": ",".join(str(o) for o in orders)})
        size = 10 if len(txt) <= 4 else 8 if len(txt) <= 6 else 6.5
        svg.text(x + CW / 2, y + 2 + size / 2, txt, size, text_anchor="middle",
                 fill="#FFFFFF", font_weight="bold")


def _clip(s, n) -> str:
    s = str(s)
    return s if len(s) <= n else s[: n - 1] + "…"


def _flags(t) -> str:
    bits = [f"v{t.version}"]
    if not t.contiguous:
        bits.append("non-contiguous")
    if t.overlapping:
        bits.append("overlapping (expand)")
    if t.requires_grad:
        bits.append("requires_grad")
    if t.grad_fn:
        bits.append(t.grad_fn)
    return " · ".join(bits)


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "T" if v else "F"
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e6:
            return f"{v:.0f}."
        return f"{v:.3g}"
    if isinstance(v, complex):
        return f"{v.real:.2g}{v.imag:+.2g}j"
    return str(v)
