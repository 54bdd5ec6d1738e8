"""The event bus: every event kind, in order, with the data renderers need; free when unused."""
import inplace_lab as il
from inplace_lab import hooks


def _record(fn):
    seen = []
    h = hooks.subscribe(seen.append)
    try:
        fn()
    finally:
        hooks.unsubscribe(h)
    return seen


def test_ops_carry_kind_inputs_and_outputs():
    x = il.zeros(2, 3)
    seen = _record(lambda: (x.t(), x.add_(1), il.exp(x, out=il.empty(2, 3)), x + 1))
    ops = [(e.op, e.kind) for e in seen if e.event == "op"]
    assert ops == [("t", "view"), ("add", "inplace"), ("empty", "create"), ("exp", "out"),
                   ("add", "normal")]
    view = next(e for e in seen if e.op == "t")
    assert view.inputs == [x] or view.inputs[0] is x
    assert view.outputs[0]._base is x


def test_in_place_and_out_ops_are_followed_by_their_bump():
    x = il.zeros(3)
    seen = _record(lambda: (x.add_(1), x[0].mul_(2)))
    bumps = [(e.op, e.data["before"], e.data["after"]) for e in seen if e.event == "bump"]
    assert bumps == [("add", 0, 1), ("mul", 1, 2)]
    assert x._version == 2


def test_resize_bumps_only_on_a_shape_change():
    def prog():
        x = il.zeros(3)  # seen by the bus from its creation
        x.resize_(3)
        x.resize_(4)

    seen = _record(prog)
    bumps = [(e.op, e.data["before"], e.data["after"]) for e in seen if e.event == "bump"]
    assert bumps == [("resize", 0, 1)]


def test_factories_emit_one_create_event_each():
    seen = _record(lambda: (il.zeros(2), il.eye(3), il.zeros_like(il.ones(2))))
    creates = [e.op for e in seen if e.event == "op" and e.kind == "create"]
    assert creates == ["zeros", "eye", "ones", "zeros_like"]


def test_save_node_check_and_accumulate_events_during_backward():
    w = il.ones(3, requires_grad=True)

    def prog():
        y = w.sin()
        y.sum().backward()

    seen = _record(prog)
    kinds = [e.event for e in seen]
    save = next(e for e in seen if e.event == "save")
    assert (save.data["node"], save.data["name"], save.data["version"]) == ("SinBackward0", "self", 0)
    assert save.inputs[0] is w
    nodes = [e.data["node"] for e in seen if e.event == "node"]
    assert nodes == ["SumBackward0", "SinBackward0"]
    check = next(e for e in seen if e.event == "check")
    assert (check.data["expected"], check.data["found"], check.data["passed"]) == (0, 0, True)
    assert check.data["saved"] == save.data["saved"]
    acc = next(e for e in seen if e.event == "accumulate")
    assert acc.inputs[0] is w and acc.inputs[1] is w.grad
    assert kinds.index("save") < kinds.index("node") < kinds.index("check") < kinds.index("accumulate")


def test_failed_check_and_error_events():
    x = il.ones(3, requires_grad=True)

    def prog():
        y = x.exp()
        y.add_(1)
        try:
            y.sum().backward()
        except il.errors.SavedTensorModifiedError:
            pass

    seen = _record(prog)
    check = next(e for e in seen if e.event == "check")
    assert (check.data["expected"], check.data["found"], check.data["passed"]) == (0, 1, False)
    err = next(e for e in seen if e.event == "error")
    assert err.kind == "SavedTensorModifiedError" and isinstance(err.obj, il.errors.InplaceLabError)
    assert seen.index(check) < seen.index(err)


def test_saved_tensor_hooks_skip_the_check_and_say_so():
    x = il.ones(3, requires_grad=True)

    def prog():
        with il.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.exp()
        y.add_(1)
        y.sum().backward()  # PyTorch's hole: no error

    seen = _record(prog)
    check = next(e for e in seen if e.event == "check")
    assert check.data["passed"] is None


def test_allocation_and_free_events_carry_bytes_and_device():
    mem = []

    def on(e):  # keeps no event that holds the tensor (that would keep it alive)
        if e.event in ("alloc", "free"):
            mem.append((e.event, e.data["nbytes"], e.data["device"]))

    h = hooks.subscribe(on)
    t = il.zeros(8)
    del t
    hooks.unsubscribe(h)
    assert mem == [("alloc", 32, "cpu"), ("free", 32, "cpu")]


def test_nobody_listening_means_inactive_and_no_memory_listener():
    h = hooks.subscribe(lambda e: None)
    assert hooks.active
    hooks.unsubscribe(h)
    assert hooks.active is False
    assert hooks._on_memory not in il.memory._listeners
