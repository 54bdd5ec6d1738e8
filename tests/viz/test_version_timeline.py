"""Version timelines: one lane per counter, bumps labelled, saves with versions, checks marked."""
import pytest

import inplace_lab as il
from inplace_lab import viz

from .conftest import EVIL


def _saved_tensor_failure():
    x = il.ones(3, requires_grad=True)
    with pytest.raises(il.errors.SavedTensorModifiedError):
        with il.trace() as tr:
            y = x.exp()
            v = y[1:]
            v.mul_(2)
            y.sum().backward()
    return tr


def test_failed_check_is_marked_in_model_and_svg(artifact):
    tr = _saved_tensor_failure()
    pic = artifact(viz.version_timeline(tr), "timeline_failed_check")
    [failed] = pic.model.failed
    assert (failed.expected, failed.found) == (0, 1)
    svg = pic.to_svg()
    assert svg.count('class="check failed"') == 1
    assert 'data-expected="0" data-found="1"' in svg
    assert "expected v0 · found v1" in svg


def test_base_and_view_share_one_lane_with_bump_and_save_marks():
    tr = _saved_tensor_failure()
    model = viz.version_timeline(tr).model
    lane = next(la for la in model.lanes if "y" in la.labels)
    assert "v" in lane.labels  # the view is on its base's lane
    kinds = [(m.kind, m.title) for m in lane.marks]
    assert ("save", "Exp saves") in kinds
    assert ("bump", "mul_") in kinds
    save = next(m for m in lane.marks if m.kind == "save")
    bump = next(m for m in lane.marks if m.kind == "bump")
    assert save.version == 0 and bump.detail == "v0 → v1"
    assert save.col < bump.col  # saved first, then modified


def test_passing_checks_are_green_and_backward_is_shaded(artifact):
    x = il.ones(3, requires_grad=True)
    with il.trace() as tr:
        y = x.exp()
        y.sum().backward()
    pic = artifact(viz.version_timeline(tr), "timeline_passed")
    assert pic.model.failed == []
    svg = pic.to_svg()
    assert 'class="check passed"' in svg and 'class="backward-band"' in svg


def test_timeline_from_a_json_round_trip_is_the_same_picture():
    tr = _saved_tensor_failure()
    back = il.Trace.from_json(tr.to_json())
    assert viz.version_timeline(back).to_svg() == viz.version_timeline(tr).to_svg()


def test_labels_are_escaped_in_the_timeline():
    held = [il.zeros(2)]  # not bound to a variable: the label is the tensor's name
    held[0].name = EVIL
    with il.trace() as tr:
        held[0].add_(1)
    assert tr.ops()[0].outputs[0].label == EVIL
    svg = viz.version_timeline(tr).to_svg()
    assert EVIL not in svg and "&lt;script&gt;" in svg
