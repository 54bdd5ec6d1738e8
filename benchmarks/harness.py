"""Timing and memory helpers shared by every section.

``interleaved`` runs the cases of one comparison round-robin (case order rotates each
repetition) and returns per-case medians with every sample; ``ratio`` is the median of the
per-repetition ratios, what every section reports. ``Result``/``Section`` are the JSON records the report prints.
"""
from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from dataclasses import asdict, dataclass, field


@dataclass
class Result:
    """One reported figure. ``target`` with ``op`` ('<=' or '==') gives the pass/miss marker;
    ``target=None`` means reported only."""

    name: str
    value: float | None
    unit: str = "x"
    target: float | None = None
    op: str = "<="
    detail: dict = field(default_factory=dict)
    note: str = ""

    @property
    def passed(self):
        if self.target is None or self.value is None:
            return None
        if self.op == "==":
            return self.value == self.target
        return self.value <= self.target

    def to_dict(self) -> dict:
        d = asdict(self)
        d["passed"] = self.passed
        return d


@dataclass
class Section:
    """A numbered section of the suite; ``skipped`` holds the reason when nothing could run."""

    id: int
    key: str
    title: str
    results: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    skipped: str | None = None
    error: str | None = None  # the section crashed: the smoke test fails on this
    seconds: float = 0.0

    def add(self, *a, **kw) -> Result:
        r = Result(*a, **kw)
        self.results.append(r)
        return r

    def to_dict(self) -> dict:
        return {"id": self.id, "key": self.key, "title": self.title, "skipped": self.skipped,
                "error": self.error,
                "notes": list(self.notes), "seconds": round(self.seconds, 3),
                "results": [r.to_dict() for r in self.results]}


class Timings(dict):
    """Median seconds per case, plus every repetition's sample in ``samples``."""

    samples: dict


def interleaved(cases: dict, reps: int, warmup: int = 1, setup=None, teardown=None) -> Timings:
    """Median seconds per case; each repetition runs every case once, in a rotating order.

    ``setup(name)`` / ``teardown(name)`` (optional) run untimed before / after each timed call
    (attach and detach a listener whose construction is not what is being measured).
    A ``gc.collect()`` before each timed call keeps one case's garbage off the next one's clock.
    """
    names = list(cases)
    times = {n: [] for n in names}
    for r in range(warmup + reps):
        k = r % len(names)
        for n in names[k:] + names[:k]:
            if setup is not None:
                setup(n)
            gc.collect()
            t0 = time.perf_counter()
            cases[n]()
            dt = time.perf_counter() - t0
            if teardown is not None:
                teardown(n)
            if r >= warmup:
                times[n].append(dt)
    out = Timings({n: statistics.median(v) for n, v in times.items()})
    out.samples = times
    return out


def ratio(t: dict, a: str, b: str) -> float:
    """Median of the per-repetition ratios a/b (paired: both ran in the same repetition, so a
    load change on a shared machine hits both); the ratio of medians when samples are absent."""
    samples = getattr(t, "samples", None)
    if samples:
        return round(statistics.median(x / y for x, y in zip(samples[a], samples[b])), 4)
    return round(t[a] / t[b], 4)


def peak_extra_bytes(fn) -> int:
    """Peak bytes allocated (tracemalloc) during ``fn()`` above what was live before it."""
    gc.collect()
    started = tracemalloc.is_tracing()
    if not started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        if not started:
            tracemalloc.stop()


def us(seconds: float) -> float:
    return round(seconds * 1e6, 2)
