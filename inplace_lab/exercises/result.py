"""What a check returns: pass or fail, the words, and the pictures of what differs.

A ``CheckResult`` is truthy when the answer passed, so an nbgrader test cell reads
``result = check(...); assert result, result.message``. In Jupyter it shows as an
HTML panel (a green or red verdict, the message, a table of expected vs given,
then the pictures: the truth first, and under it, on the same columns, what the
student's answer describes); elsewhere its ``repr``
is the one-line summary and ``print(result)`` the full text.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ..viz.page import Panel
from ..viz.svg import esc
from ..viz.theme import MONO, ROLE, TINT


@dataclass
class CheckResult:
    name: str
    passed: bool
    message: str
    pictures: list = field(default_factory=list)  # (caption, Picture or Panel) pairs
    table: list = field(default_factory=list)  # rows (item, expected, yours, ok) for the panel

    def __bool__(self) -> bool:
        return self.passed

    @property
    def summary(self) -> str:
        mark = "PASS" if self.passed else "FAIL"
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        return f"[{mark}] {self.name}: {first}"

    def __repr__(self) -> str:
        return self.summary

    def __str__(self) -> str:
        mark = "PASS" if self.passed else "FAIL"
        return f"[{mark}] {self.name}: {self.message.strip()}"

    def panel(self) -> Panel:
        """The feedback as an HTML panel (``to_html()``/``save()`` work as for ``explain``)."""
        colour, tint = (ROLE["ok"], TINT["ok"]) if self.passed else (ROLE["error"], TINT["error"])
        verdict = "passed" if self.passed else "not yet"
        parts = [f'<div style="border-left:5px solid {colour};background:{tint};padding:8px 12px">'
                 f'<b>{"✔" if self.passed else "✘"} {esc(self.name)}: {verdict}</b>'
                 f'<div style="white-space:pre-wrap;margin-top:4px">{esc(self.message)}</div></div>']
        if self.table:
            parts.append(_table(self.table))
        if self.pictures:
            parts.extend(f'<div style="overflow-x:auto"><h2>{esc(cap)}</h2>{_fragment(pic)}</div>'
                         for cap, pic in self.pictures)
        pics = [p for _, p in self.pictures]
        flat = [q for p in pics for q in (p.pictures if isinstance(p, Panel) else [p])]
        return Panel("".join(parts), f"check {self.name}", flat, result=self)

    def _repr_html_(self) -> str:
        return self.panel()._repr_html_()


def _fragment(pic) -> str:
    return pic.body if isinstance(pic, Panel) else pic.fragment()


def _table(rows) -> str:
    head = ("<tr><th style='text-align:left'>item</th><th style='text-align:left'>expected</th>"
            "<th style='text-align:left'>yours</th><th></th></tr>")
    body = []
    for item, want, got, ok in rows:
        bg = "" if ok else f" style='background:{TINT['error']}'"
        body.append(f"<tr{bg}><td><code>{esc(item)}</code></td>"
                    f"<td style='font-family:{MONO}'>{esc(want)}</td>"
                    f"<td style='font-family:{MONO}'>{esc(got)}</td>"
                    f"<td>{'✔' if ok else '✘'}</td></tr>")
    return (f"<table style='border-collapse:collapse;margin:10px 0;font-size:13px' cellpadding='4'>"
            f"{head}{''.join(body)}</table>")


def show(result: CheckResult) -> None:
    """Display the feedback now: rich in a running IPython kernel, as text elsewhere.

    inplace_lab does not import IPython (only ``widgets`` may); inside a notebook the
    kernel has already loaded it, so it is looked up, never imported.
    """
    display_mod = sys.modules.get("IPython.display")
    ipython = sys.modules.get("IPython")
    if display_mod is not None and ipython is not None and ipython.get_ipython() is not None:
        display_mod.display(display_mod.HTML(result._repr_html_()))
    else:
        print(str(result))
