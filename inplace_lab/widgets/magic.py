"""``%load_ext inplace_lab``: the ``%%inplace_trace`` cell magic and explained errors.

    %%inplace_trace
    x = il.ones(3, requires_grad=True)
    x.add_(1)                 # LeafInplaceError

shows the explanation panel (``inplace_lab.viz.explain``: what happened, why it is
forbidden, how to fix it, with pictures) and, one click away, the traceback; under
it the Inspector of everything the cell did. Without the magic, an inplace_lab
error raised by any cell still shows its explanation rather than a bare traceback
(IPython's ``set_custom_exc``). The cell still counts as failed, as it should.
"""
from __future__ import annotations

import ast
import os
import traceback

from ..errors import InplaceLabError
from ..viz.svg import esc
from ..viz.theme import MONO, ROLE, TINT

_previous_custom_exc: dict = {}
_HERE = os.path.dirname(os.path.abspath(__file__))


def load_ipython_extension(ip) -> None:
    ip.register_magic_function(inplace_trace, magic_kind="cell", magic_name="inplace_trace")
    if id(ip) not in _previous_custom_exc:
        _previous_custom_exc[id(ip)] = (ip.custom_exceptions, getattr(ip, "CustomTB", None))
    ip.set_custom_exc((InplaceLabError,), _show_error)


def unload_ipython_extension(ip) -> None:
    ip.magics_manager.magics["cell"].pop("inplace_trace", None)
    exc, handler = _previous_custom_exc.pop(id(ip), ((), None))
    if exc:
        ip.custom_exceptions, ip.CustomTB = exc, handler
    else:
        ip.set_custom_exc((), None)


def inplace_trace(line: str, cell: str):
    """Run the cell inside ``inplace_lab.trace(namespace=<the notebook's>)`` and show
    the Inspector under it (the explanation first when the cell raised an inplace_lab error).

    ``%%inplace_trace --step 0`` starts the Inspector at the first step instead of the last.
    """
    from IPython import get_ipython
    from IPython.display import display

    from ..trace import Trace
    from .inspector import Inspector

    ip = get_ipython()
    start = _start_step(line)
    tr = Trace(namespace=ip.user_ns)
    result, error = None, None
    try:
        with tr:
            result = _run(ip, cell)
    except InplaceLabError as e:
        error = e
    if error is not None:
        display_explanation(error)
        error._inplace_lab_explained = True  # the custom handler will not show it twice
    if result is not None:
        display(result)
    display(Inspector(tr, step=start, title="%%inplace_trace"))
    if error is not None:
        raise error  # the cell failed: stop "run all" like any other error


def _run(ip, cell: str):
    """Execute ``cell`` in the user namespace; the value of a last bare expression is returned.

    The cell is registered with IPython's compiler cache so tracebacks and the trace's
    source lines show the cell's own text.
    """
    filename = ip.compile.cache(cell, ip.execution_count)
    tree = ast.parse(cell, filename=filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), ip.user_ns)
    if last is not None:
        return eval(compile(last, filename, "eval"), ip.user_ns)
    return None


def _start_step(line: str):
    parts = line.split()
    if "--step" in parts:
        return int(parts[parts.index("--step") + 1])
    return None


def _show_error(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler: the explanation instead of a bare traceback."""
    if not getattr(value, "_inplace_lab_explained", False):
        display_explanation(value, tb)
    return []


def display_explanation(err, tb=None) -> None:
    from IPython.display import HTML, display

    display(HTML(explanation_html(err, tb)))


def explanation_html(err, tb=None) -> str:
    """The explanation panel of ``err`` with its traceback folded away in a <details>."""
    tb = tb if tb is not None else err.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_HERE):
        tb = tb.tb_next  # start at the student's cell, not inside this magic
    text = "".join(traceback.format_exception(type(err), err, tb))
    try:
        from ..viz import explain

        panel = explain(err)._repr_html_()  # self-contained: lays a graph out offline if needed
    except Exception as e:  # never hide the student's error behind a renderer failure
        panel = _plain_panel(err, e)
    return (f'<div class="il-explained" data-error="{esc(type(err).__name__)}">{panel}'
            f'<details class="il-traceback" style="margin:6px 0 0;font-size:12.5px">'
            f'<summary style="cursor:pointer;color:{ROLE["muted"]}">Traceback</summary>'
            f'<pre style="font-family:{MONO};font-size:12px;white-space:pre-wrap">{esc(text)}</pre>'
            f"</details></div>")


def _plain_panel(err, why_not) -> str:
    return (f'<div style="border-left:4px solid {ROLE["error"]};background:{TINT["error"]};'
            f'color:{ROLE["ink"]};padding:8px 12px"><b>{esc(type(err).__name__)}</b>: {esc(err)}'
            f"<p>{esc(err.why)}</p><p><b>Fix:</b> {esc(err.fix)}</p>"
            f'<p style="color:{ROLE["muted"]}">(the pictures could not be drawn: {esc(why_not)})</p></div>')
