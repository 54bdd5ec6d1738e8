"""One colour theme shared by every picture (storage, versions, graph, memory).

Roles, not hues, are what renderers ask for, so the four pictures agree: a leaf is
the same blue everywhere, a view the same violet, a saved tensor the same amber.
Colours are chosen to read on both light and dark notebook backgrounds.
"""

ROLE = {
    "leaf": "#4C8DD6",  # user-created tensors (PyTorch's leaves)
    "nonleaf": "#5AA469",  # results of ops
    "view": "#8E6CCF",  # views: share storage with their base
    "saved": "#E3A33B",  # tensors saved for backward
    "modified": "#E8684A",  # cells/tensors changed by the last in-place op
    "error": "#D1344B",  # the thing an error is about
    "ok": "#2E9D5B",  # passed checks
    "muted": "#8A94A6",  # secondary text, elided cells
    "ink": "#1F2937",  # main text on light fill
    "paper": "#FFFFFF",  # cell fill
    "grid": "#C5CCD8",  # cell borders
    "accent": "#0F766E",  # version counters
}

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"

# distinct hues for several tensors on one storage (views get violet shades, others cycle)
PALETTE = ["#4C8DD6", "#8E6CCF", "#E3A33B", "#5AA469", "#D65C9A", "#3FA7B5", "#B7813F", "#6F7FD6"]


def tensor_colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]
