"""Student-side checks for the course's exercises, with or without nbgrader.

    from inplace_lab.exercises import check
    check("storage-of-views", {"x[1]": ((4,), (1,), 4), ...})

``check(name, *answer)`` runs the exercise's reference program itself, compares
it with the answer, shows the feedback (a verdict, what differs in words, and a
picture of it: e.g. the real storage diagram next to the one the answer
describes) and returns a ``CheckResult`` that is truthy when the answer passed.
It never raises for a wrong answer (nor for one of the wrong form); a missing answer (``None``, ``...``, or the
released ``raise NotImplementedError()`` left in place) is a plain failure.

``names()`` lists the exercises and the notebook each one lives in.
"""
from __future__ import annotations

from .registry import EXERCISES, names  # noqa: F401
from .result import CheckResult, show  # noqa: F401
from . import layout_checks, memory_checks, autograd_checks  # noqa: F401,E402  (register)


def check(name: str, *answer, display: bool = True, **options) -> CheckResult:
    """Check ``answer`` for exercise ``name``; show the feedback and return it.

    ``display=False`` skips showing it (for scripts that only want the result).
    """
    if name not in EXERCISES:
        known = ", ".join(sorted(EXERCISES))
        raise KeyError(f"no exercise named {name!r}; the exercises are: {known}")
    ex = EXERCISES[name]
    if not answer or any(a is None or a is Ellipsis for a in answer):
        result = CheckResult(name, False, f"No answer yet. {ex.task}")
    else:
        try:
            result = ex.run(*answer, **options)
        except (TypeError, ValueError, AttributeError, IndexError, KeyError) as e:
            # an answer of the wrong shape (a number where a dict was asked...): feedback, not a crash
            result = CheckResult(name, False, f"Your answer has the wrong form ({type(e).__name__}: "
                                              f"{e}). {ex.task}")
    if display:
        show(result)
    return result
