"""Self-contained HTML: the theme's stylesheet and, when a graph must be laid out in the
browser, the bundled WASM Graphviz (``static/viz-standalone.js``, @viz-js/viz 3.31.0,
MIT; Graphviz itself is EPL) inlined into the page. Nothing is ever fetched from a CDN.
"""
from __future__ import annotations

import functools
from pathlib import Path

from .svg import esc
from .theme import CSS

STATIC = Path(__file__).parent / "static"

# Lays out every placeholder ``<div class="il-graph" data-dot=...>`` on the page.
LAYOUT_JS = """
(function () {
  function run() {
    if (typeof Viz === "undefined") { return; }
    var boxes = document.querySelectorAll(".il-graph[data-dot]");
    if (!boxes.length) { return; }
    Viz.instance().then(function (viz) {
      boxes.forEach(function (box) {
        if (box.getAttribute("data-done")) { return; }
        box.setAttribute("data-done", "1");
        box.textContent = "";
        box.appendChild(viz.renderSVGElement(box.getAttribute("data-dot")));
      });
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", run); }
  else { run(); }
})();
"""


@functools.lru_cache(maxsize=1)
def viz_js() -> str:
    """The bundled WASM Graphviz (about 1.3 MB, wasm inlined)."""
    return (STATIC / "viz-standalone.js").read_text(encoding="utf-8")


def scripts(needs_layout: bool) -> str:
    if not needs_layout:
        return ""
    return f"<script>{viz_js()}</script><script>{LAYOUT_JS}</script>"


def page(title: str, body: str, *, needs_layout: bool = False) -> str:
    """A complete HTML document: no external resources."""
    return ("<!doctype html><html><head><meta charset=\"utf-8\">"
            f"<title>inplace_lab · {esc(title)}</title><style>{CSS}</style></head><body>"
            f'<div class="inplace-lab-panel">{body}</div>{scripts(needs_layout)}</body></html>')


def page_fragment(body: str, *, needs_layout: bool = False) -> str:
    """The same content for a notebook output cell."""
    return f'<style>{CSS}</style><div class="inplace-lab-panel">{body}</div>{scripts(needs_layout)}'


class Panel:
    """An HTML panel made of several pictures and words (``explain``, ``report``).

    Shows itself in Jupyter (``_repr_html_``); ``to_html()`` is a complete page;
    ``save(path)`` writes it (``.html``). ``pictures`` are the parts, for tests.
    """

    def __init__(self, body: str, title: str, pictures=(), **model):
        self.body = body
        self.title = title
        self.pictures = list(pictures)
        self.model = model

    @property
    def needs_layout(self) -> bool:
        return any(p.needs_layout for p in self.pictures)

    def to_html(self) -> str:
        return page(self.title, self.body, needs_layout=self.needs_layout)

    def _repr_html_(self) -> str:
        return page_fragment(self.body, needs_layout=self.needs_layout)

    def save(self, path) -> Path:
        p = Path(path)
        if p.suffix not in (".html", ".htm"):
            raise ValueError(f"save(): a panel is HTML; use a .html path, not {p.suffix!r} "
                             "(save its .pictures one by one for .svg or .png)")
        p.write_text(self.to_html(), encoding="utf-8")
        return p
