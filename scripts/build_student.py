"""Build the student notebooks (notebooks/student/) from the source exercises (notebooks/exercises/).

What nbgrader's ``generate_assignment`` does to the cells we use, without needing nbgrader:

- in a solution cell, each ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region becomes
  ``# YOUR CODE HERE`` / ``raise NotImplementedError()`` at the region's indentation
  (``YOUR ANSWER HERE`` in a markdown cell);
- in a grade cell, each ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` region is removed;
- outputs and execution counts are cleared; all nbgrader metadata is kept, so a teacher can
  still import the source notebooks into nbgrader.

    python scripts/build_student.py           # (re)write notebooks/student/
    python scripts/build_student.py --check   # exit 1 if notebooks/student/ is stale

The built notebooks are committed; tests/notebooks checks they are up to date.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "notebooks" / "exercises"
STUDENT = ROOT / "notebooks" / "student"

_SOLUTION = re.compile(r"^([ \t]*)### BEGIN SOLUTION[ \t]*\n.*?^[ \t]*### END SOLUTION[ \t]*(\n|$)",
                       re.S | re.M)
_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS[ \t]*\n.*?^[ \t]*### END HIDDEN TESTS[ \t]*(\n|$)",
                     re.S | re.M)


def strip_solutions(source: str, cell_type: str = "code") -> str:
    """Replace every solution region with the nbgrader stub."""
    def stub(m):
        indent = m.group(1)
        if cell_type == "markdown":
            return f"{indent}YOUR ANSWER HERE{m.group(2)}"
        return f"{indent}# YOUR CODE HERE\n{indent}raise NotImplementedError(){m.group(2)}"

    return _SOLUTION.sub(stub, source)


def strip_hidden_tests(source: str) -> str:
    return _HIDDEN.sub("", source).rstrip("\n")


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def student_version(nb: dict) -> dict:
    """The student notebook for a source notebook (a new dict; the input is not modified)."""
    out = json.loads(json.dumps(nb))
    for cell in out["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        src = _source(cell)
        if meta.get("solution"):
            src = strip_solutions(src, cell["cell_type"])
        if meta.get("grade"):
            src = strip_hidden_tests(src)
        if "### BEGIN" in src or "### END" in src:
            raise ValueError(f"cell {meta.get('grade_id') or cell.get('id')}: solution or hidden-test "
                             "markers outside a solution/grade cell would leak into the student copy")
        cell["source"] = src
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return out


def render(nb: dict) -> str:
    """The exact text written to disk (nbformat's layout: indent 1, sorted keys, final newline)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def build(source_dir: Path = SOURCE, student_dir: Path = STUDENT) -> dict:
    """{student path: text} for every source exercise notebook."""
    return {student_dir / p.name: render(student_version(json.loads(p.read_text(encoding="utf-8"))))
            for p in sorted(source_dir.glob("*.ipynb"))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report stale student notebooks, write nothing")
    args = ap.parse_args(argv)
    built = build()
    stale = [p for p, text in built.items()
             if not p.exists() or p.read_text(encoding="utf-8") != text]
    extra = [p for p in STUDENT.glob("*.ipynb") if p not in built]
    if args.check:
        for p in stale:
            print(f"stale: {p.relative_to(ROOT)}")
        for p in extra:
            print(f"no source for: {p.relative_to(ROOT)}")
        if stale or extra:
            print("run: python scripts/build_student.py", file=sys.stderr)
            return 1
        return 0
    STUDENT.mkdir(parents=True, exist_ok=True)
    for p in extra:
        p.unlink()
    for p, text in built.items():
        p.write_text(text, encoding="utf-8")
    print(f"wrote {len(built)} student notebooks to {STUDENT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
