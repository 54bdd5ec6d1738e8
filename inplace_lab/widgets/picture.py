"""``PictureView``: one renderer's picture in the notebook, clickable tensor by tensor.

A plain ``ipywidgets.HTML`` cannot run code, so clicks and the in-browser graph
layout need a small front end: ``static/picture.js`` (anywidget, shipped with the
package, nothing fetched at run time). Python sets ``html``; the browser sets
``selected`` when a tensor is clicked; the Inspector passes ``selected`` on to the
other pictures.
"""
from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

STATIC = Path(__file__).parent / "static"


class PictureView(anywidget.AnyWidget):
    """Shows ``html`` (an SVG or an HTML fragment from ``inplace_lab.viz``)."""

    _esm = STATIC / "picture.js"
    _css = STATIC / "picture.css"

    kind = traitlets.Unicode("").tag(sync=True)  # storage | versions | graph | memory | ...
    html = traitlets.Unicode("").tag(sync=True)
    step = traitlets.Int(-1).tag(sync=True)  # the trace step the picture shows (-1: none yet)
    selected = traitlets.Unicode("").tag(sync=True)  # label of the highlighted tensor
    viz_js = traitlets.Unicode("").tag(sync=True)  # WASM Graphviz, sent once when needed
    tensor_ids = traitlets.Dict({}).tag(sync=True)  # element id -> tensor label (graph boxes)

    def show(self, picture, step: int) -> None:
        """Display a ``Picture`` or ``Panel`` from ``inplace_lab.viz`` (or an HTML string)."""
        from ..viz.page import page_fragment
        from .pictures import tensor_ids

        ids = {}
        if isinstance(picture, str):
            html = picture
        else:
            # a page's <script> tags would not run inside the widget: the layout script is
            # this widget's own front end, and the WASM Graphviz travels once, in viz_js
            if hasattr(picture, "fragment"):  # one picture: drawn on its own paper
                html = picture.fragment()
            else:  # a Panel (explain): words and pictures, with the theme's stylesheet
                html = page_fragment(picture.body, needs_layout=False)
            ids = tensor_ids(picture)
            if getattr(picture, "needs_layout", False) and not self.viz_js:
                from ..viz.page import viz_js

                self.viz_js = viz_js()
        with self.hold_sync():
            self.step = step
            self.tensor_ids = ids
            self.html = html

    def show_message(self, text: str, step: int, css: str = "il-empty") -> None:
        from ..viz.svg import esc

        self.show(f'<div class="{css}">{esc(text)}</div>', step)
