"""Exercises on version counters and autograd: predict versions and gradients, write
optimizer updates and custom Functions that respect the in-place rules.
"""
from __future__ import annotations

from .registry import exercise
from .result import CheckResult

VERSION_PROGRAM = [
    "x = il.zeros(4)",
    "v = x[1:3]",
    "v.add_(1)",
    "x[0] = 5",
    "y = x * 2",
    "x.unsqueeze_(0)",
    "x[0, 1] += 1",
    "x.data.zero_()",
    "d = x.detach()",
    "d.add_(1)",
]


@exercise("versions-after-sequence", "06_versions_exercises.ipynb",
          "Give a list with x._version after each line of VERSION_PROGRAM (10 numbers).")
def versions_after_sequence(predicted) -> CheckResult:
    import inplace_lab as il

    ns = {"il": il}
    actual = []
    with il.trace(namespace=ns) as tr:
        for line in VERSION_PROGRAM:
            exec(line, ns)
            actual.append(ns["x"]._version)
    try:
        predicted = [int(p) for p in predicted]
    except (TypeError, ValueError):
        return CheckResult("versions-after-sequence", False,
                           "Give a list of 10 integers, one per line of the program.")
    rows = [(line, a, p if i < len(predicted) else "missing", i < len(predicted) and p == a)
            for i, (line, a, p) in enumerate(zip(VERSION_PROGRAM, actual,
                                                 predicted + [None] * len(VERSION_PROGRAM)))]
    wrong = [r[0] for r in rows if not r[3]]
    passed = not wrong and len(predicted) == len(VERSION_PROGRAM)
    hints = {
        "x[0, 1] += 1": "x[0, 1] += 1 is an in-place add on the view x[0, 1] and then a setitem "
                        "that copies it back: two bumps.",
        "x.data.zero_()": "x.data shares the storage but has its own, fresh counter: x's "
                          "version does not move (that is the trap).",
        "d.add_(1)": "detach() shares the counter with x, so a write through d bumps x.",
        "x.unsqueeze_(0)": "Metadata-only in-place ops (unsqueeze_, t_, squeeze_) bump too.",
        "y = x * 2": "A normal op reads x; reading never bumps.",
    }
    msg = ("Every bump right: in-place ops and setitem bump the shared counter by one, "
           "`+=` on an element bumps twice, .data escapes the counter, detach() shares it."
           if passed else "Lines to look at again:\n" + "\n".join(
               f"  {w}: {hints.get(w, 'count the in-place writes to x or any view of it')}"
               for w in wrong))
    pic = il.viz.version_timeline(tr, title="x's version counter, line by line")
    return CheckResult("versions-after-sequence", passed, msg, [("the real counter", pic)], rows)


COPYSLICES_PROGRAM = [
    "x = il.tensor([1., 2., 3., 4.], requires_grad=True)",
    "y = x * 2",
    "y[::2].add_(5)",
    "y[1:].mul_(3)",
    "y.sum().backward()",
]


@exercise("copyslices-grad", "07_views_autograd_exercises.ipynb",
          "Give (x.grad as a list, the name of y.grad_fn) after COPYSLICES_PROGRAM.")
def copyslices_grad(grad, node_name) -> CheckResult:
    import inplace_lab as il

    ns = {"il": il}
    for line in COPYSLICES_PROGRAM:
        exec(line, ns)
    want_grad = ns["x"].grad.tolist()
    want_node = type(ns["y"].grad_fn).__name__
    try:
        got = [float(g) for g in grad]
    except (TypeError, ValueError):
        got = None
    grad_ok = got == want_grad
    node_ok = str(node_name).split("::")[-1] == want_node
    rows = [("x.grad", want_grad, got if got is not None else grad, grad_ok),
            ("y.grad_fn", want_node, node_name, node_ok)]
    passed = grad_ok and node_ok
    lines = []
    if not grad_ok:
        lines.append("x.grad: y = 2x everywhere; add_(5) on the even cells adds a constant "
                     "(gradient unchanged); mul_(3) on cells 1..3 multiplies their gradient by 3.")
    if not node_ok:
        lines.append("y.grad_fn: an in-place op on a view rewrites the base's history; "
                     "y's node is the one that copies the view's slice back into y.")
    msg = ("Right: CopySlices passes y's gradient through and applies each view's backward "
           "to its slice." if passed else "\n".join(lines))
    return CheckResult("copyslices-grad", passed, msg,
                       [("y's backward graph", il.viz.graph(ns["y"], names={ns["x"]: "x", ns["y"]: "y"}))], rows)


@exercise("sgd-step", "05_leaf_exercises.ipynb",
          "Write sgd_step(params, lr): p -= lr * p.grad for every parameter, in place, "
          "without an error and without replacing the parameter objects.")
def sgd_step(step, lr=0.1) -> CheckResult:
    import inplace_lab as il

    il.manual_seed(1)
    w = il.randn(3, 2, requires_grad=True)
    b = il.zeros(2, requires_grad=True)
    x = il.randn(5, 3)
    ((x @ w + b) ** 2).mean().backward()
    params = [w, b]
    before = [(p.detach().clone(), p.grad.clone(), p.untyped_storage(), p._version) for p in params]
    try:
        with il.trace() as tr:
            step(params, lr)
    except Exception as e:
        from .memory_checks import _error_feedback

        return _error_feedback("sgd-step", e, tr)
    problems = []
    for name, p, (val, g, st, v0) in zip(["w", "b"], params, before):
        if p.untyped_storage() is not st:
            problems.append(f"{name} got a new storage: the optimizer must update the "
                            "parameter's own memory (the model holds that object).")
        if p.grad_fn is not None or not p.requires_grad:
            problems.append(f"{name} is no longer a leaf that requires grad "
                            f"(grad_fn={p.grad_fn}): run the update under il.no_grad().")
        if not bool(((p.detach() - (val - lr * g)).abs() < 1e-6).all()):
            problems.append(f"{name} is not {name} - lr * {name}.grad.")
        if p._version == v0:
            problems.append(f"{name}'s version did not move: the update was not in place.")
    if not problems:
        try:
            ((x @ w + b) ** 2).mean().backward()
        except Exception as e:
            problems.append(f"The next forward/backward fails: {type(e).__name__}: {e}")
    passed = not problems
    msg = ("The parameters were updated in place under no_grad: same objects, same storage, "
           "still leaves, versions bumped." if passed else "\n".join(dict.fromkeys(problems)))
    pics = [("the parameters after your step", il.viz.storage_diagram(w, b, names=["w", "b"]))]
    return CheckResult("sgd-step", passed, msg, pics)


@exercise("inplace-safe-function", "10_extending_exercises.ipynb",
          "Write InplaceExp, an autograd.Function that overwrites its input with exp(input), "
          "marks it dirty, saves what backward needs with save_for_backward, and returns it.")
def inplace_safe_function(fn_class) -> CheckResult:
    import inplace_lab as il
    from ..errors import SavedTensorModifiedError

    w = il.tensor([0., 0.5, 1., -1.], dtype=il.float64, requires_grad=True)
    a = w * 1
    v0, st = a._version, a.untyped_storage()
    problems, pics = [], []
    try:
        with il.trace() as tr:
            out = fn_class.apply(a)
    except Exception as e:
        from .memory_checks import _error_feedback

        return _error_feedback("inplace-safe-function", e, tr)
    from ..viz.memory import build

    peak = max((s.peak_above_start for s in build(tr)), default=0)
    if out is not a:
        problems.append("apply(a) must return a itself (the input, overwritten in place).")
    if a.untyped_storage() is not st or a._version == v0:
        problems.append("a was not overwritten in place (its version did not move).")
    if peak >= a.numel() * a.element_size():
        problems.append(f"The forward allocated {peak:,} bytes: an in-place Function needs no "
                        "copy of its input when backward can use the output.")
    if not problems:
        pics.append(("the graph of the output", il.viz.graph(out, names={w: "w", out: "a"})))
        out.sum().backward()
        if w.grad is None or not bool(((w.grad - w.detach().exp()).abs() < 1e-12).all()):
            problems.append(f"w.grad is {w.grad}, expected exp(w).")
        b = fn_class.apply(w * 1)
        b.add_(1)
        try:
            b.sum().backward()
            problems.append("Modifying the output after apply() did not make backward fail: "
                            "save the output with ctx.save_for_backward, not as a ctx attribute "
                            "or a clone, so its version is checked.")
        except SavedTensorModifiedError:
            pass
        except Exception as e:
            problems.append(f"Backward after modifying the output raised {type(e).__name__}: {e}")
    passed = not problems
    msg = ("In place, no copy, the right gradient, and the saved output is protected by its "
           "version counter." if passed else "\n".join(problems))
    return CheckResult("inplace-safe-function", passed, msg, pics)
