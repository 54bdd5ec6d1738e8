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
    """What a renderer returns: SVG text plus the structure tests and widgets read."""

    def __init__(self, svg: str, kind: str, model=None):
        self.svg = svg
        self.kind = kind
        self.model = model  # the data drawn (renderer-specific), for tests and widgets

    def to_svg(self) -> str:
        return self.svg

    def to_html(self) -> str:
        return (f'<!doctype html><html><head><meta charset="utf-8"><title>inplace_lab '
                f'{esc(self.kind)}</title></head><body>{self.svg}</body></html>')

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        return f'<div class="inplace-lab-picture">{self.svg}</div>'

    def save(self, path) -> Path:
        """Write .svg, .html or .png (PNG needs cairosvg)."""
        p = Path(path)
        if p.suffix == ".svg":
            p.write_text(self.svg, encoding="utf-8")
        elif p.suffix in (".html", ".htm"):
            p.write_text(self.to_html(), encoding="utf-8")
        elif p.suffix == ".png":
            import cairosvg  # optional, for test artifacts and scripts

            cairosvg.svg2png(bytestring=self.svg.encode(), write_to=str(p), scale=2)
        else:
            raise ValueError(f"save(): unsupported extension {p.suffix!r}; use .svg, .html or .png")
        return p
