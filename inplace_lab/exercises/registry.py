"""The exercises, by name: each is a checker function plus where it lives and what it asks."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass
class Exercise:
    name: str
    notebook: str  # the exercise notebook (under notebooks/exercises/)
    task: str  # one sentence: what the answer must be
    run: Callable  # (*answer, **options) -> CheckResult


EXERCISES: dict[str, Exercise] = {}


def exercise(name: str, notebook: str, task: str):
    """Register ``fn(*answer) -> CheckResult`` as the checker of exercise ``name``."""
    def wrap(fn):
        EXERCISES[name] = Exercise(name, notebook, task, fn)
        return fn
    return wrap


def names() -> dict:
    """{exercise name: notebook}."""
    return {n: e.notebook for n, e in EXERCISES.items()}
