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


def _named_later():
    y = il.ones(2) * 3  # the result's save (none here) and op see no name yet
    return y


def test_names_found_in_locals_globals_and_namespace_once_each():
    ns = {"_hidden": None}
    with trace(namespace=ns) as tr:
        x = il.ones(2)
        _private = x  # a name starting with "_" is never a label
        z = x.exp()
        out = _named_later()
    ns["_hidden"] = out
    assert tr.ops()[1].inputs[0].label == "x"
    assert tr.ops()[1].outputs[0].label == "z"
    assert tr.ops()[-1].outputs[0].label == "out"  # bound by the caller after the return
