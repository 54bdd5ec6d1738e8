"""Small ids the trace hands out stay unique although CPython reuses dead objects' ids."""
import inplace_lab as il
from inplace_lab.trace import trace


def test_counter_ids_are_unique_when_dead_counters_ids_are_reused():
    x = il.ones(4)
    with trace() as tr:
        for _ in range(50):
            y = x + 1  # a new tensor and counter each time; the previous one dies
            del y
    results = [s.outputs[0] for s in tr.ops()]
    assert len(results) == 50
    assert len({r.counter for r in results}) == 50  # each result its own counter
    assert len({r.tid for r in results}) == 50


def test_saved_ids_are_unique_when_dead_saved_tensors_ids_are_reused():
    w = il.ones(3, requires_grad=True)
    with trace() as tr:
        for _ in range(20):
            (w * w).sum().backward()  # two saves per round; the graph dies after backward
    saves = tr.of("save")
    assert len(saves) == 40
    assert len({s.data["saved"] for s in saves}) == 40
    checks = tr.of("check")
    assert {c.data["saved"] for c in checks} == {s.data["saved"] for s in saves}
