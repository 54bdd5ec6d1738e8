"""The ten lessons run top to bottom, show pictures, and their error cells raise exactly the
error they name (``raises-exception`` tag + ``{"inplace_lab": {"raises": "<class>"}}``)."""
from __future__ import annotations

import builtins
import json

import pytest

import inplace_lab as il
from tests.notebooks.conftest import LESSONS
from tests.notebooks.runner import problems

COURSE = ["01_tour", "02_views_inplace_normal", "03_inplace_api", "04_memory", "05_leaf_inplace",
          "06_version_counters", "07_views_autograd", "08_pitfalls", "09_paddle_policies",
          "10_extending"]


def _run(runs, path):
    return runs[("lesson", str(path))]


def test_the_course_is_ten_lessons_in_order():
    assert [p.stem for p in LESSONS] == COURSE


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_runs_top_to_bottom_and_error_cells_raise_exactly_their_error(notebook_runs, path):
    run = _run(notebook_runs, path)
    assert problems(run) == []
    assert all(c["status"] != "not run" for c in run["cells"])


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_runs_in_under_a_minute(notebook_runs, path):
    assert _run(notebook_runs, path)["seconds"] < 60


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_shows_pictures(notebook_runs, path):
    run = _run(notebook_runs, path)
    assert sum(c["has_svg"] for c in run["cells"]) >= 2


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_error_tags_name_real_error_classes(path):
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        name = cell["metadata"].get("inplace_lab", {}).get("raises")
        if name is not None:
            cls = getattr(il.errors, name, None) or getattr(builtins, name, None)
            assert isinstance(cls, type) and issubclass(cls, BaseException), name


def test_checker_reports_an_error_cell_that_raises_another_class(notebook_runs):
    (msg,) = problems(notebook_runs[("wrong-class", "wrong-class")])
    assert "should raise exactly ViewOfLeafInplaceError, raised LeafInplaceError" in msg


def test_checker_reports_an_error_cell_that_does_not_raise(notebook_runs):
    (msg,) = problems(notebook_runs[("no-error", "no-error")])
    assert "should raise LeafInplaceError but ran without error" in msg


def _stdout(runs, stem):
    return "".join(c["stdout"] for c in _run(runs, next(p for p in LESSONS if p.stem == stem))["cells"])


def test_lesson_4_shows_the_relu_peaks(notebook_runs):
    out = _stdout(notebook_runs, "04_memory")
    assert "134,217,728" in out and "67,108,864" in out


def test_lesson_8_replicas_share_memory_across_real_processes(notebook_runs):
    out = _stdout(notebook_runs, "08_pitfalls")
    assert "private replicas -> parent sees [1.0, 1.0, 1.0, 1.0]" in out
    assert "shared storage   -> parent sees [0.82, 0.82, 0.82, 0.82]" in out


def test_lesson_10_runs_the_gpu_part_on_the_simulated_gpu(notebook_runs):
    out = _stdout(notebook_runs, "10_extending")
    assert "relu : peak 134,217,728 bytes" in out and "relu_: peak 67,108,864 bytes" in out


def test_lessons_3_and_9_use_both_facades():
    for stem in ("03_inplace_api", "09_paddle_policies", "05_leaf_inplace", "07_views_autograd"):
        text = (LESSONS[0].parent / f"{stem}.ipynb").read_text()
        assert "import inplace_lab.torch as torch" in text and "import inplace_lab.paddle as paddle" in text


def test_lessons_are_committed_without_outputs():
    for path in LESSONS:
        nb = json.loads(path.read_text())
        assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code"), path.name
