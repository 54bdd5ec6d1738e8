"""One colour theme shared by every picture (storage, versions, graph, memory, explain).

Roles, not hues, are what renderers ask for, so the pictures agree: a leaf is
the same blue everywhere, a view the same violet, a saved tensor the same amber,
an error the same red. Fills are light and text is dark, so each picture reads
on a light page; every picture paints its own white background, so it also reads
inside a dark notebook theme.
"""

ROLE = {
    "leaf": "#4C8DD6",  # user-created tensors (PyTorch's leaves)
    "nonleaf": "#5AA469",  # results of ops / the output of a graph
    "view": "#8E6CCF",  # views: share storage with their base
    "saved": "#E3A33B",  # tensors saved for backward
    "modified": "#E8684A",  # cells/tensors changed by the last in-place op
    "error": "#D1344B",  # the thing an error is about
    "ok": "#2E9D5B",  # passed checks
    "muted": "#8A94A6",  # secondary text, elided cells
    "ink": "#1F2937",  # main text on light fill
    "paper": "#FFFFFF",  # background and cell fill
    "grid": "#C5CCD8",  # cell borders, axes
    "accent": "#0F766E",  # version counters
    "node": "#EEF1F6",  # graph nodes
}

# light tints of the roles, for fills behind dark text
TINT = {
    "leaf": "#DCEAF9",
    "nonleaf": "#DFF1E3",
    "view": "#ECE5F8",
    "saved": "#FBEBD0",
    "modified": "#FDE3DC",
    "error": "#FADADF",
    "ok": "#DDF2E5",
    "accent": "#D5EEEB",
}

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"

# distinct hues for several tensors on one storage (or several devices on one chart)
PALETTE = ["#4C8DD6", "#8E6CCF", "#E3A33B", "#5AA469", "#D65C9A", "#3FA7B5", "#B7813F", "#6F7FD6"]


def tensor_colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


CSS = f"""
.inplace-lab-panel {{ font-family: {FONT}; color: {ROLE['ink']}; background: {ROLE['paper']};
  max-width: 1100px; padding: 16px 20px; border: 1px solid {ROLE['grid']}; border-radius: 8px; }}
.inplace-lab-panel h1 {{ font-size: 20px; margin: 0 0 8px; }}
.inplace-lab-panel h2 {{ font-size: 16px; margin: 18px 0 6px; }}
.inplace-lab-panel .il-error {{ border-left: 4px solid {ROLE['error']}; background: {TINT['error']};
  padding: 8px 12px; font-family: {MONO}; font-size: 12.5px; white-space: pre-wrap; }}
.inplace-lab-panel .il-why {{ border-left: 4px solid {ROLE['saved']}; background: {TINT['saved']};
  padding: 8px 12px; }}
.inplace-lab-panel .il-fix {{ border-left: 4px solid {ROLE['ok']}; background: {TINT['ok']};
  padding: 8px 12px; }}
.inplace-lab-panel code {{ font-family: {MONO}; background: #F3F4F6; padding: 0 3px; }}
.inplace-lab-panel table {{ border-collapse: collapse; font-size: 12.5px; }}
.inplace-lab-panel td, .inplace-lab-panel th {{ border-bottom: 1px solid {ROLE['grid']};
  padding: 3px 8px; text-align: left; }}
.inplace-lab-panel .il-figure {{ overflow-x: auto; margin: 6px 0; }}
"""
