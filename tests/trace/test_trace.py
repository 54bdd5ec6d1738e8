"""Trace recording: steps, labels from variable names, errors as the last step, JSON."""
import gc

import pytest

import inplace_lab as il
from inplace_lab import hooks
from inplace_lab.trace import Trace, trace


def test_trace_records_ops_in_order_with_kinds_and_source_lines():
    with trace() as tr:
        x = il.ones(2, 3)
        v = x.t()
        v.mul_(2)
    ops = tr.ops()
    assert [(s.op, s.kind) for s in ops] == [("ones", "create"), ("t", "view"), ("mul", "inplace")]
    assert ops[0].line == "x = il.ones(2, 3)"
    assert ops[1].line == "v = x.t()"
    assert ops[2].line == "v.mul_(2)"


def test_trace_labels_tensors_with_their_variable_names():
    with trace() as tr:
        x = il.ones(2, 3)
        v = x.t()
        v.mul_(2)
    view_step = tr.ops()[1]
    assert view_step.inputs[0].label == "x"
    assert view_step.outputs[0].label == "v"  # bound after the step returned
    assert view_step.outputs[0].base == view_step.inputs[0].tid


def test_trace_snapshots_versions_at_each_step():
    with trace() as tr:
        x = il.zeros(3)
        x.add_(1)
        x.add_(1)
    versions = [s.outputs[0].version for s in tr.ops()]
    assert versions == [0, 1, 2]


def test_error_inside_trace_is_last_step_and_reraised():
    w = il.ones(3, requires_grad=True)
    with pytest.raises(il.errors.LeafInplaceError):
        with trace() as tr:
            w.add_(1)
    last = tr.steps[-1]
    assert last.event == "error"
    assert last.kind == "LeafInplaceError"
    assert last.inputs[0].label == "w"
    assert "leaf Variable" in last.data["message"]
    assert w._version == 0


def test_trace_records_allocations_with_live_bytes():
    gc.collect()  # an earlier test's garbage (an error's traceback cycle) freed mid-block would shift the bytes
    with trace() as tr:
        x = il.zeros(4)  # 16 bytes
        y = x + 1
    allocs = [s for s in tr.steps if s.event == "alloc"]
    assert [s.data["nbytes"] for s in allocs] == [16, 16]
    assert allocs[1].memory["cpu"] - allocs[0].memory["cpu"] == 16
    del y


def test_trace_json_round_trip_keeps_steps():
    with trace() as tr:
        x = il.ones(2, 2)
        x.t_()
    back = Trace.from_json(tr.to_json())
    assert [(s.event, s.op, s.kind) for s in back.steps] == [(s.event, s.op, s.kind) for s in tr.steps]
    assert back.ops()[1].outputs[0].strides == (1, 2)


def test_no_listener_after_trace_exits():
    with trace():
        pass
    assert hooks.active is False


def test_snapshots_identify_the_shared_version_counter():
    with trace() as tr:
        x = il.zeros(2, 3)
        v = x[0]
        c = x.clone()
        v.add_(1)
    create, view, clone, add = tr.ops()
    assert view.outputs[0].counter == view.inputs[0].counter  # a view shares its base's
    assert clone.outputs[0].counter != clone.inputs[0].counter  # clone gets a fresh one
    [bump] = tr.of("bump")
    assert bump.data["counter"] == create.outputs[0].counter
    assert tr.labels_by_counter()[bump.data["counter"]] == ["x", "v"]
    assert add.context[0].label == "x"  # the base of the written view comes along
    del c


def test_backward_steps_are_flagged_and_the_error_carries_its_trace():
    w = il.ones(3, requires_grad=True)
    with pytest.raises(il.errors.SavedTensorModifiedError) as info:
        with trace() as tr:
            y = w.exp()
            y.add_(1)
            y.sum().backward()
    assert info.value.trace is tr and tr.error is info.value
    assert [s.event for s in tr.steps if s.backward][:1] == ["node"]
    assert not any(s.backward for s in tr.steps if s.event == "save")
    assert tr.steps[-1].event == "error" and tr.steps[-1].line == "y.sum().backward()"
    assert len(tr.of("error")) == 1
    [check] = tr.of("check")
    assert check.data["passed"] is False and check.inputs[0].counter == tr.of("save")[0].inputs[0].counter


def test_notebook_namespace_names_tensors():
    import linecache

    ns = {"il": il, "trace": trace}
    src = "with trace() as tr:\n    weights = il.ones(2)\n    weights.mul_(3)\n"
    fname = "<ipython-input-1-abc>"
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    exec(compile(src, fname, "exec"), ns)
    tr = ns["tr"]
    assert tr.namespace is ns
    mul = tr.ops()[-1]
    assert mul.outputs[0].label == "weights"
    assert mul.line == "weights.mul_(3)" and mul.filename == fname


def test_results_are_named_once_their_line_has_run():
    with trace() as tr:
        a = il.zeros(2)
        b = a + 1
        b.mul_(2)
    add = tr.ops()[1]
    assert add.outputs[0].label == "b"


def test_round_trip_keeps_counters_context_and_start_memory():
    with trace() as tr:
        x = il.zeros(4)
        x[1:].add_(1)
    back = Trace.from_json(tr.to_json())
    assert back.start_memory == tr.start_memory
    assert back.ops()[-1].context[0].label == "x"
    assert [s.data for s in back.of("bump")] == [s.data for s in tr.of("bump")]
