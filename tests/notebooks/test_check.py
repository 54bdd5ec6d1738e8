"""inplace_lab.exercises.check: verdicts, words and pictures, without Jupyter or nbgrader."""
from __future__ import annotations

import pytest

import inplace_lab as il
from inplace_lab.exercises import check, names
from inplace_lab.exercises.memory_checks import _activate_reference, broken_forward

RIGHT_LAYOUTS = {"x[1]": ((4,), (1,), 4), "x[:, 2]": ((3,), (4,), 2),
                 "x.t()[1]": ((3,), (4,), 1), "x[::2, 1::2]": ((2, 2), (8, 2), 1)}


def test_right_layouts_pass_and_say_so(capsys):
    r = check("storage-of-views", RIGHT_LAYOUTS)
    assert r and r.passed
    assert capsys.readouterr().out.startswith("[PASS] storage-of-views")


def test_a_wrong_layout_draws_the_truth_and_the_answer_over_the_same_storage():
    wrong = dict(RIGHT_LAYOUTS, **{"x.t()[1]": ((3,), (1,), 4)})
    r = check("storage-of-views", wrong, display=False)
    assert not r and "x.t()[1]" in r.message
    (truth_cap, truth), (mine_cap, mine) = r.pictures
    assert truth.kind == mine.kind == "storage"
    assert [t.positions for t in truth.model[0].tensors] == [list(range(12)), [1, 5, 9]]
    assert [t.positions for t in mine.model[0].tensors] == [list(range(12)), [4, 5, 6]]
    assert [row[3] for row in r.table] == [True, True, False, True]


def test_a_layout_outside_the_storage_is_explained_not_raised():
    r = check("storage-of-views", dict(RIGHT_LAYOUTS, **{"x[1]": ((4,), (1,), 10)}), display=False)
    assert not r and "cannot exist" in r.message


def test_no_answer_is_a_plain_failure():
    assert not check("sgd-step", None, display=False)
    with pytest.raises(KeyError, match="no exercise named"):
        check("no-such-exercise", 1)


def test_memory_feedback_compares_peaks_on_one_timeline():
    assert check("activate-one-buffer", _activate_reference, display=False)
    r = check("activate-one-buffer", lambda x: (x * 2).relu() + 1, display=False)
    assert not r and "2.0 buffers" in r.message
    (_, pic), = r.pictures
    assert [s.name for s in pic.model] == ["one buffer", "yours"]


def test_a_program_that_fails_at_backward_gets_the_explanation():
    r = check("fix-backward-least-memory", broken_forward, display=False)
    assert not r and "SavedTensorModifiedError" in r.message
    assert r.pictures and r.pictures[0][0] == "why it failed"


def test_an_optimizer_step_outside_no_grad_is_the_leaf_error():
    def step(params, lr):
        for p in params:
            p.sub_(lr * p.grad)

    r = check("sgd-step", step, display=False)
    assert not r and "LeafInplaceError" in r.message


def test_a_function_that_hides_its_saved_output_from_the_version_check_fails():
    class Sneaky(il.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.out = x.exp_()
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * ctx.out

    r = check("inplace-safe-function", Sneaky, display=False)
    assert not r and "save_for_backward" in r.message


def test_feedback_panel_escapes_the_answer_and_is_self_contained():
    r = check("copyslices-grad", [2, 6, 6, 6], "<script>alert(1)</script>", display=False)
    html = r.panel().to_html()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert "http://" not in html.replace("http://www.w3.org", "")


def test_every_exercise_names_its_notebook():
    assert all(nb.endswith("_exercises.ipynb") for nb in names().values())
    assert len(names()) >= 8


@pytest.mark.parametrize("name", sorted(names()))
def test_an_answer_of_the_wrong_kind_fails_with_feedback_instead_of_crashing(name):
    """What a student who deleted the stub and wrote nothing hands in: a function returning
    None, or a value of the wrong type."""
    for answer in (lambda *a, **k: None, 42, "x"):
        args = (answer, answer) if name == "copyslices-grad" else (answer,)
        r = check(name, *args, display=False)
        assert not r and r.message
