"""Execute notebooks with nbclient and record, for every code cell, what its execution reply said.

The reply (not the outputs) is the reliable record of an error: with ``%load_ext inplace_lab``
an inplace_lab error is shown as an explanation panel instead of a traceback, but the kernel
still answers ``status: error`` with the exception's class name.

A notebook run here is a plain dict (picklable), so the session fixture can run many
notebooks in a process pool and the tests read the results.
"""
from __future__ import annotations

import copy
import re
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
CELL_TIMEOUT = 120


def run_notebook(path, *, stub_solutions: bool = False, nb=None) -> dict:
    """Execute a notebook (from ``path``, or the given ``nb`` object run in ``path``'s folder).

    ``stub_solutions``: first replace each ``raise NotImplementedError()`` in solution cells by
    ``pass``, as a student who deleted the stub but wrote nothing would.
    """
    path = Path(path)
    source = nb
    for attempt in range(KERNEL_ATTEMPTS):
        try:
            return _run_once(path, source, stub_solutions)
        except _KERNEL_START_ERRORS as e:  # a kernel that never came up: start another
            if attempt == KERNEL_ATTEMPTS - 1 or not _is_startup_failure(e):
                raise
    raise AssertionError("unreachable")


# The session runs notebooks in a process pool, so kernels start side by side: two of them can
# pick the same free TCP port before either binds it (jupyter_client picks, the kernel binds a
# moment later), and that kernel never comes up. It is started again, twice at most.
KERNEL_ATTEMPTS = 3
_KERNEL_START_ERRORS = (RuntimeError, OSError)


def _is_startup_failure(e) -> bool:
    return "Kernel didn't respond" in str(e) or "Address already in use" in str(e) or \
        "Kernel died before replying to kernel_info" in str(e)


def _run_once(path, nb, stub_solutions):
    from nbclient import NotebookClient

    nb = copy.deepcopy(nb) if nb is not None else nbformat.read(path, as_version=4)
    if stub_solutions:
        for cell in nb.cells:
            if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                cell.source = re.sub(r"raise NotImplementedError\(\)", "pass", cell.source)
    replies: dict[int, dict] = {}

    def on_cell_executed(cell, cell_index, execute_reply):
        c = execute_reply["content"]
        replies[cell_index] = {"status": c["status"], "ename": c.get("ename"),
                               "evalue": (c.get("evalue") or "")[:500]}

    start = time.monotonic()
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", allow_errors=True,
                            on_cell_executed=on_cell_executed,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    cells = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        r = replies.get(i, {"status": "not run", "ename": None, "evalue": ""})
        mimes = [m for o in cell.get("outputs", []) for m in o.get("data", {})]
        text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        html = "".join(str(o.get("data", {}).get("text/html", "")) for o in cell.get("outputs", []))
        cells.append({"index": i, "source": cell.source, **r,
                      "raises": cell.metadata.get("inplace_lab", {}).get("raises"),
                      "tags": list(cell.metadata.get("tags", [])),
                      "nbgrader": dict(cell.metadata.get("nbgrader", {})),
                      "mimes": mimes, "stdout": text[:4000],
                      "has_svg": "image/svg+xml" in mimes or "<svg" in html})
    return {"path": str(path), "seconds": time.monotonic() - start, "cells": cells}


def problems(run: dict) -> list[str]:
    """Every way a run differs from what the notebook declares: an untagged cell that raised,
    a tagged cell that did not raise, or raised another error class than the one it names."""
    out = []
    for c in run["cells"]:
        where = f"cell {c['index']} ({c['source'].splitlines()[0][:60] if c['source'] else ''})"
        want = c["raises"]
        if want is None and c["status"] != "ok":
            out.append(f"{where} raised {c['ename']}: {c['evalue'][:200]}")
        elif want is not None and c["status"] == "ok":
            out.append(f"{where} should raise {want} but ran without error")
        elif want is not None and c["ename"] != want:
            out.append(f"{where} should raise exactly {want}, raised {c['ename']}: {c['evalue'][:200]}")
        if want is not None and "raises-exception" not in c["tags"]:
            out.append(f"{where} names an error but lacks the raises-exception tag")
    return out


def _probe(raises: str, code: str):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(code)
    cell.metadata["tags"] = ["raises-exception"]
    cell.metadata["inplace_lab"] = {"raises": raises}
    nb.cells = [nbformat.v4.new_code_cell("%load_ext inplace_lab\nimport inplace_lab as il"), cell]
    return nb


# Notebooks that must be reported by ``problems``: they check the checker.
PROBES = {
    # tagged with the wrong class (the real one is LeafInplaceError)
    "wrong-class": _probe("ViewOfLeafInplaceError", "w = il.ones(2, requires_grad=True)\nw.add_(1)"),
    # tagged, but does not raise at all
    "no-error": _probe("LeafInplaceError", "w = il.ones(2)\nw.add_(1)"),
}


def job(args):
    """One pool job: (kind, path) -> (kind, path, run)."""
    kind, path = args
    if kind in PROBES:
        return kind, path, run_notebook(NOTEBOOKS / "probe.ipynb", nb=PROBES[kind])
    return kind, path, run_notebook(path, stub_solutions=(kind == "stubbed"))
