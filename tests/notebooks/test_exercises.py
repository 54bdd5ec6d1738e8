"""Exercises: nbgrader metadata, solutions that pass, student copies whose tests fail, and
student copies that are up to date with their sources."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from inplace_lab.exercises import EXERCISES
from tests.notebooks.conftest import SOURCE_EXERCISES, STUDENT_EXERCISES
from tests.notebooks.runner import ROOT, problems

sys.path.insert(0, str(ROOT / "scripts"))
import build_student  # noqa: E402

NBGRADER_KEYS = {"grade", "grade_id", "locked", "schema_version", "solution", "task"}


def _cells(path):
    return json.loads(path.read_text())["cells"]


def _graded(path):
    return [c for c in _cells(path) if c["metadata"].get("nbgrader", {}).get("grade")]


def test_at_least_eight_graded_exercises_across_the_lessons():
    graded = [c for p in SOURCE_EXERCISES for c in _graded(p)]
    assert len(graded) >= 8
    assert len(SOURCE_EXERCISES) >= 6  # spread over the lessons, not one notebook


@pytest.mark.parametrize("path", SOURCE_EXERCISES, ids=[p.stem for p in SOURCE_EXERCISES])
def test_nbgrader_metadata_is_complete_and_consistent(path):
    ids = []
    for cell in _cells(path):
        meta = cell["metadata"].get("nbgrader")
        if meta is None:
            continue
        assert NBGRADER_KEYS <= set(meta) and meta["schema_version"] == 3, meta
        ids.append(meta["grade_id"])
        src = "".join(cell["source"])
        if meta["solution"]:
            assert not meta["locked"] and cell["cell_type"] == "code"
            assert src.count("### BEGIN SOLUTION") == src.count("### END SOLUTION") == 1
        if meta["grade"]:
            assert meta["locked"] and isinstance(meta["points"], int) and meta["points"] > 0
            assert src.count("### BEGIN HIDDEN TESTS") == src.count("### END HIDDEN TESTS") == 1
            assert "assert" in src.split("### BEGIN HIDDEN TESTS")[0]  # visible tests too
        if not meta["solution"] and not meta["grade"]:
            assert meta["locked"]  # instructions and set-up are read-only
    assert len(ids) == len(set(ids)), "grade_id must be unique within a notebook"
    sol = sum(c["metadata"].get("nbgrader", {}).get("solution", False) for c in _cells(path))
    assert sol == len(_graded(path)), "one solution cell per graded test cell"


def test_every_registered_check_is_used_by_a_graded_cell_of_its_notebook():
    used = {}
    for p in SOURCE_EXERCISES:
        for c in _graded(p):
            for name in re.findall(r'check\("([\w-]+)"', "".join(c["source"])):
                used[name] = p.name
    assert set(used) == set(EXERCISES)
    assert all(EXERCISES[n].notebook == nb for n, nb in used.items())


@pytest.mark.parametrize("path", SOURCE_EXERCISES, ids=[p.stem for p in SOURCE_EXERCISES])
def test_source_version_passes_its_own_tests(notebook_runs, path):
    run = notebook_runs[("source", str(path))]
    assert problems(run) == []
    assert run["seconds"] < 60


def _grade_cells(run):
    return [c for c in run["cells"] if c["nbgrader"].get("grade")]


@pytest.mark.parametrize("path", STUDENT_EXERCISES, ids=[p.stem for p in STUDENT_EXERCISES])
def test_student_version_as_released_fails_every_test(notebook_runs, path):
    run = notebook_runs[("released", str(path))]
    graded = _grade_cells(run)
    assert graded and all(c["status"] == "error" for c in graded), \
        [(c["nbgrader"]["grade_id"], c["status"]) for c in graded]
    solutions = [c for c in run["cells"] if c["nbgrader"].get("solution")]
    # a value answer raises at once; a function or class answer raises when the test calls it
    assert all(c["ename"] in (None, "NotImplementedError") for c in solutions)
    assert any("NotImplementedError" in (c["ename"] or "") + c["evalue"] for c in solutions + graded)


@pytest.mark.parametrize("path", STUDENT_EXERCISES, ids=[p.stem for p in STUDENT_EXERCISES])
def test_student_version_with_the_stub_deleted_fails_on_an_assertion(notebook_runs, path):
    """A student who deletes ``raise NotImplementedError()`` and writes nothing must still fail,
    and on the test's assertion (not a NameError): the test really checks the answer."""
    run = notebook_runs[("stubbed", str(path))]
    graded = _grade_cells(run)
    assert graded and all(c["ename"] == "AssertionError" for c in graded), \
        [(c["nbgrader"]["grade_id"], c["ename"], c["evalue"][:120]) for c in graded]
    assert all(c["status"] == "ok" for c in run["cells"] if not c["nbgrader"].get("grade"))


def test_student_notebooks_are_built_from_the_current_sources():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_student.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert [p.name for p in STUDENT_EXERCISES] == [p.name for p in SOURCE_EXERCISES]


@pytest.mark.parametrize("path", STUDENT_EXERCISES, ids=[p.stem for p in STUDENT_EXERCISES])
def test_student_version_has_no_solutions_or_hidden_tests(path):
    text = path.read_text()
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS"):
        assert marker not in text
    source = json.loads((path.parent.parent / "exercises" / path.name).read_text())
    for src_cell, cell in zip(source["cells"], _cells(path)):
        if src_cell["metadata"].get("nbgrader", {}).get("solution"):
            assert "# YOUR CODE HERE" in cell["source"] and "raise NotImplementedError()" in cell["source"]
        assert cell["metadata"] == src_cell["metadata"]


def test_build_keeps_the_indentation_of_a_solution_inside_a_function():
    src = "def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n"
    assert build_student.strip_solutions(src) == \
        "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"


def test_build_removes_only_the_hidden_tests():
    src = "assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(2) == 3\n### END HIDDEN TESTS"
    assert build_student.strip_hidden_tests(src) == "assert f(1) == 2"


def test_build_refuses_markers_outside_solution_and_grade_cells():
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": "### BEGIN SOLUTION\nx = 1\n### END SOLUTION"}]}
    with pytest.raises(ValueError, match="leak"):
        build_student.student_version(nb)
