"""A tiny SVG builder and the picture object every renderer returns.

Text is always escaped (a tensor named ``<script>`` renders as text). A
``Picture`` shows itself in Jupyter (``_repr_svg_``/``_repr_html_``), and has
``to_svg()``, ``to_html()`` (self-contained, no network) and ``save(path)``.
"""
from __future__ import annotations

import html
from pathlib import Path

from .theme import FONT


def esc(s) -> str:
    return html.escape(str(s), quote=True)


def _attrs(kw: dict) -> str:
    out = []
    for k, v in kw.items():
        if v is None:
            continue
        k = k.rstrip("_").replace("_", "-")
        out.append(f'{k}="{esc(v)}"')
    return " ".join(out)


class SVG:
    """Collects elements; ``str(svg)`` is the document."""

    def __init__(self, width: float, height: float, title: str = ""):
        self.width, self.height = width, height
        self.parts: list[str] = []
        self.title = title

    def add(self, raw: str) -> None:
        self.parts.append(raw)

    def rect(self, x, y, w, h, **kw):
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" {_attrs(kw)}/>')

    def line(self, x1, y1, x2, y2, **kw):
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" {_attrs(kw)}/>')

    def path(self, d, **kw):
        self.parts.append(f'<path d="{esc(d)}" {_attrs(kw)}/>')

    def circle(self, cx, cy, r, **kw):
        self.parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" {_attrs(kw)}/>')

    def text(self, x, y, s, size=12, **kw):
        kw.setdefault("font_family", FONT)
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" {_attrs(kw)}>{esc(s)}</text>')

    def group(self, inner: "SVG | str", **kw):
        body = "".join(inner.parts) if isinstance(inner, SVG) else inner
        self.parts.append(f"<g {_attrs(kw)}>{body}</g>")

    def __str__(self) -> str:
        title = f"<title>{esc(self.title)}</title>" if self.title else ""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}" '
                f'height="{self.height:.0f}" viewBox="0 0 {self.width:.0f} {self.height:.0f}" '
                f'class="inplace-lab">{title}{"".join(self.parts)}</svg>')


class Picture:
    """What a renderer returns: SVG text plus the structure tests and widgets read.

    ``svg`` is ``None`` for a graph when the ``dot`` executable is missing; then
    ``dot`` holds the Graphviz source and the HTML output lays it out in the
    browser with the WASM Graphviz bundled in the package (no network).
    """

    def __init__(self, svg: str | None, kind: str, model=None, dot: str | None = None,
                 title: str = ""):
        self.svg = svg
        self.kind = kind
        self.model = model  # the data drawn (renderer-specific), for tests and widgets
        self.dot = dot
        self.title = title or kind

    @property
    def needs_layout(self) -> bool:
        """True when only the browser can draw it (a graph without the dot executable)."""
        return self.svg is None and self.dot is not None

    def to_svg(self) -> str:
        if self.svg is None:
            raise RuntimeError(
                "this graph has no server-side SVG: the Graphviz 'dot' executable was not found. "
                "Use to_html() (laid out in the browser by the bundled WASM Graphviz) or "
                "install graphviz (apt-get install graphviz).")
        return self.svg

    def fragment(self) -> str:
        """The picture as an HTML fragment (a graph without SVG: a placeholder the page's
        script lays out)."""
        if self.svg is not None:
            return f'<div class="il-figure">{self.svg}</div>'
        return (f'<div class="il-figure il-graph" data-dot="{esc(self.dot)}">'
                '<em>laying out the graph in the browser…</em></div>')

    def to_html(self) -> str:
        from .page import page

        return page(self.title, self.fragment(), needs_layout=self.needs_layout)

    def _repr_svg_(self):
        return self.svg

    def _repr_html_(self) -> str:
        from .page import page_fragment

        return page_fragment(self.fragment(), needs_layout=self.needs_layout)

    def save(self, path) -> Path:
        """Write .svg, .html or .png (PNG needs cairosvg: the ``dev`` extra)."""
        p = Path(path)
        if p.suffix == ".svg":
            p.write_text(self.to_svg(), encoding="utf-8")
        elif p.suffix in (".html", ".htm"):
            p.write_text(self.to_html(), encoding="utf-8")
        elif p.suffix == ".png":
            import cairosvg  # optional, for test artifacts and scripts

            cairosvg.svg2png(bytestring=self.to_svg().encode(), write_to=str(p), scale=2)
        else:
            raise ValueError(f"save(): unsupported extension {p.suffix!r}; use .svg, .html or .png")
        return p
