"""Run every notebook once per session, two at a time (one kernel per core), and share the runs.

Jobs: each lesson, each source exercise notebook, each student notebook as released, and each
student notebook with the ``raise NotImplementedError()`` stubs deleted, plus two tiny
notebooks that check the checker itself.
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from tests.notebooks.runner import NOTEBOOKS, PROBES, job

LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
SOURCE_EXERCISES = sorted((NOTEBOOKS / "exercises").glob("*.ipynb"))
STUDENT_EXERCISES = sorted((NOTEBOOKS / "student").glob("*.ipynb"))


@pytest.fixture(scope="session")
def notebook_runs():
    """{(kind, path): run}; kinds: lesson, source, released, stubbed, and the probe names."""
    jobs = ([("lesson", str(p)) for p in LESSONS] + [("source", str(p)) for p in SOURCE_EXERCISES]
            + [("released", str(p)) for p in STUDENT_EXERCISES]
            + [("stubbed", str(p)) for p in STUDENT_EXERCISES]
            + [(k, k) for k in PROBES])
    workers = max(1, min(2, os.cpu_count() or 1))
    # spawn, not fork: the test process may hold threads (torch, paddle) a fork would copy mid-lock
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return {(k, p): run for k, p, run in pool.map(job, jobs)}
