"""Exercises on memory: do the same work with fewer live bytes, without breaking anything.

Peaks are read from a trace of the student's function (every allocation and free
is a step), so the number in the message is the one the memory timeline draws,
and the picture puts the student's timeline next to the least-memory one.
"""
from __future__ import annotations

from .registry import exercise
from .result import CheckResult

SLACK = 1024  # bytes of scalars (sums, 0-dim temporaries) a solution may allocate on top


def _traced(fn, *args):
    """Run ``fn(*args)`` inside a trace: (result, error, trace, peak bytes above start)."""
    import inplace_lab as il
    from ..viz.memory import build

    out, err = None, None
    with il.trace() as tr:
        try:
            out = fn(*args)
        except Exception as e:  # reported as feedback, not raised
            err = e
    series = [s for s in build(tr) if s.device == "cpu"]
    return out, err, tr, (series[0].peak_above_start if series else 0)


def _timelines(ref, mine, names):
    """The memory timelines side by side; a trace that allocated nothing is left out (there
    is nothing to draw, and the renderer needs at least one step)."""
    import inplace_lab as il
    from ..viz.memory import build

    keep = [(tr, n) for tr, n in zip((ref, mine), names) if any(s.steps for s in build(tr))]
    if not keep:
        return None
    return il.viz.memory_timeline([tr for tr, _ in keep], names=[n for _, n in keep])


def _error_feedback(name, err, trace) -> CheckResult:
    import inplace_lab as il
    from ..errors import InplaceLabError

    pics = [("why it failed", il.viz.explain(err))] if isinstance(err, InplaceLabError) else []
    return CheckResult(name, False, f"Your code raised {type(err).__name__}: {err}", pics)


# ---- lesson 4: an activation with one buffer -------------------------------------------

def _activate_reference(x):
    y = x * 2
    y.relu_()
    return y.add_(1)


@exercise("activate-one-buffer", "04_memory_exercises.ipynb",
          "Write activate(x) returning relu(2 * x) + 1 as a new tensor, leaving x unchanged, "
          "with at most one x-sized buffer alive at any time besides x.")
def activate_one_buffer(activate, shape=(8, 64, 64)) -> CheckResult:
    import inplace_lab as il

    il.manual_seed(0)
    x = il.randn(tuple(shape))
    before, v0 = x.clone(), x._version
    _, _, ref_tr, ref_peak = _traced(_activate_reference, x)
    out, err, tr, peak = _traced(activate, x)
    if err is not None:
        return _error_feedback("activate-one-buffer", err, tr)
    nb = x.numel() * x.element_size()
    want = ((before * 2).relu() + 1)
    problems = []
    if not isinstance(out, il.Tensor) or tuple(out.shape) != tuple(x.shape):
        problems.append("activate(x) must return a tensor of x's shape.")
    elif not bool((out == want).all()):
        problems.append("The values are not relu(2 * x) + 1.")
    if not bool((x == before).all()) or x._version != v0:
        problems.append(f"x was modified (its version went from {v0} to {x._version}): the "
                        "caller still needs it. Write into a new buffer, not into x.")
    elif out is not None and isinstance(out, il.Tensor) and \
            out.untyped_storage() is x.untyped_storage():
        problems.append("The result shares x's storage.")
    if peak > nb + SLACK:
        problems.append(f"Peak memory {peak:,} bytes above the start: that is "
                        f"{peak / nb:.1f} buffers of {nb:,} bytes. One is enough: make one new "
                        "tensor, then finish the work in place on it.")
    passed = not problems
    msg = (f"Peak {peak:,} bytes above the start: one buffer ({nb:,} bytes), the result itself."
           if passed else "\n".join(problems))
    pic = _timelines(ref_tr, tr, ["one buffer", "yours"])
    return CheckResult("activate-one-buffer", passed, msg, [("memory: least vs yours", pic)] if pic else [],
                       [("peak bytes above start", f"{nb:,}", f"{peak:,}", peak <= nb + SLACK)])


# ---- lesson 6: fix a program that fails at backward, with the least memory ------------

def broken_forward(x):
    """The program of the exercise: fails at backward (add_ overwrites exp's saved result)."""
    y = x.exp()
    y.add_(1)
    y.mul_(2)
    return y.sum()


def _fixed_reference(x):
    y = x.exp()
    y = y + 1  # one new buffer: exp's result stays intact for its backward
    y.mul_(2)  # mul by a number saves nothing: in place is free here
    return y.sum()


@exercise("fix-backward-least-memory", "06_versions_exercises.ipynb",
          "Write forward_fixed(x): the same loss as broken_forward, a working backward with the "
          "right gradient, and at most two x-sized buffers alive during the forward pass.")
def fix_backward(forward_fixed, n=4096, seed=0) -> CheckResult:
    import inplace_lab as il

    il.manual_seed(seed)
    x = il.randn(n, requires_grad=True)
    x_ref = x.detach().clone().requires_grad_()
    _, _, ref_tr, ref_peak = _traced(_fixed_reference, x_ref)
    loss, err, tr, peak = _traced(forward_fixed, x)
    if err is None:
        try:
            with il.trace() as btr:
                loss.backward()
        except Exception as e:
            err, tr = e, btr
    if err is not None:
        return _error_feedback("fix-backward-least-memory", err, tr)
    want_loss = float((2 * (x_ref.detach().exp() + 1)).sum())
    want_grad = 2 * x_ref.detach().exp()
    nb = n * x.element_size()
    problems = []
    if abs(float(loss) - want_loss) > 1e-3 * abs(want_loss):
        problems.append(f"The loss is {float(loss):.4f}; broken_forward computes {want_loss:.4f}.")
    if x.grad is None or not bool(((x.grad - want_grad).abs() <= 1e-4 * want_grad.abs()).all()):
        problems.append("x.grad is not 2 * exp(x): did a detach() or .data cut the graph?")
    if peak > 2 * nb + SLACK:
        problems.append(f"Peak memory {peak:,} bytes above the start ({peak / nb:.1f} buffers of "
                        f"{nb:,} bytes); the least is 2: exp's saved result and one more. Keep "
                        "the in-place ops that do not destroy a saved value.")
    passed = not problems
    msg = (f"Backward works and the forward peaks at {peak:,} bytes above the start "
           f"({peak / nb:.1f} buffers): only the op that overwrote a saved value became "
           "out-of-place." if passed else "\n".join(problems))
    pic = _timelines(ref_tr, tr, ["least memory", "yours"])
    return CheckResult("fix-backward-least-memory", passed, msg, [("forward memory", pic)] if pic else [],
                       [("peak bytes above start", f"<= {2 * nb:,}", f"{peak:,}",
                         peak <= 2 * nb + SLACK)])


# ---- lesson 8: normalise batches in place without corrupting the dataset ---------------

def _dataset():
    import inplace_lab as il

    return (il.arange(16 * 512.) % 97).reshape(16, 512)


@exercise("normalise-batch", "08_pitfalls_exercises.ipynb",
          "Write load_batch(data, i, mean, std) returning rows 4i..4i+3 normalised, without "
          "changing data, with one new batch-sized buffer per call.")
def normalise_batch(load_batch) -> CheckResult:
    import inplace_lab as il
    from ..viz.memory import build

    data = _dataset()
    keep, v0 = data.clone(), data._version
    mean, std = keep.mean(0), keep.std(0)
    nb = 4 * data.shape[1] * data.element_size()
    problems, worst, shared, last_tr, batch = [], 0, None, None, None
    for epoch in range(2):
        for i in range(4):
            batch, err, tr, peak = _traced(load_batch, data, i, mean, std)
            if err is not None:
                return _error_feedback("normalise-batch", err, tr)
            last_tr, worst = tr, max(worst, peak)
            want = (keep[4 * i:4 * i + 4] - mean) / std
            if not isinstance(batch, il.Tensor) or tuple(batch.shape) != (4, data.shape[1]) or \
                    not bool(((batch - want).abs() < 1e-4).all()):
                problems.append(f"epoch {epoch}, batch {i}: the values are not (rows - mean) / std.")
                break
            if batch.untyped_storage() is data.untyped_storage():
                shared = batch
        if problems:
            break
    if not bool((data == keep).all()) or data._version != v0:
        problems.append(f"The dataset changed (version {v0} -> {data._version}): the batch was a "
                        "view of data, so normalising it in place wrote into the dataset.")
    if worst > nb + SLACK:
        problems.append(f"Peak {worst:,} bytes above the start per call, {worst / nb:.1f} batches: "
                        "copy once, then subtract and divide in place on your copy.")
    passed = not problems
    msg = ("The dataset is untouched after two epochs and each call makes exactly one batch "
           "buffer." if passed else "\n".join(problems))
    shown = shared if shared is not None else batch
    pics = [("dataset and the last batch", il.viz.storage_diagram(data, shown, names=["data", "batch"]))
            if isinstance(shown, il.Tensor) else ("the dataset", il.viz.storage_diagram(data, names=["data"]))]
    if last_tr is not None and any(s.steps for s in build(last_tr)):
        pics.append(("memory of one call", il.viz.memory_timeline(last_tr, names=["load_batch"])))
    return CheckResult("normalise-batch", passed, msg, pics)
