"""The reverse walk. The core is micrograd's: order the nodes, then push gradients back.

    order = topological_order(roots)        # every consumer before its producers
    for node in order:                      # so a node's gradient is complete when reached
        grads_in = node.apply(grads_out)
        send each to its next_functions

Around that core, visibly separate (each in its own section below):

- hooks: tensor hooks and ``retain_grad`` first, then node pre-hooks, then the
  node, then node post-hooks (PyTorch's order);
- targets: with ``inputs=`` only the nodes on a path to an input run, and
  ``autograd.grad`` captures gradients instead of accumulating them;
- buffers: gradients meeting at one node are summed, in place when only the
  engine holds the first one (so ``(x*x).sum().backward()`` leaves ``x.grad``
  at version 1, as PyTorch does);
- leaves: ``AccumulateGrad`` steals a gradient nobody else holds, clones
  otherwise, and adds into an existing ``.grad`` in place (version bump);
- freeing: each node drops its saved tensors after it runs (unless
  ``retain_graph``), which is why a second backward fails.

Version checks happen inside ``node.apply``: formulas unpack saved tensors
through ``SavedTensor.unpack``.
"""
from __future__ import annotations

import heapq
import sys
import warnings

from .. import errors, hooks, layout, policy
from ..version import VersionCounter
from . import grad_mode
from .node import AccumulateGrad
from .saved import _tensor_class


# ---- the core walk ---------------------------------------------------------------------------

def topological_order(roots):
    """Nodes reachable from ``roots``, each after every node that feeds it a gradient.

    Among the nodes whose gradients are complete, the most recently created runs first
    and an AccumulateGrad at once: PyTorch's ready queue (ordered by sequence_nr). The
    order decides which stale saved tensor backward reports first.
    """
    roots = list(dict.fromkeys(roots))
    waiting, seen, stack = {}, set(roots), list(roots)
    while stack:  # count, for every node, the edges that will bring it a gradient
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            waiting[child] = waiting.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    ready = [(-_priority(n), i, n) for i, n in enumerate(roots) if not waiting.get(n)]
    heapq.heapify(ready)
    order, tick = [], len(roots)
    push, pop, acc, inf = heapq.heappush, heapq.heappop, AccumulateGrad, float("inf")
    while ready:
        node = pop(ready)[2]
        order.append(node)
        for child, _ in node.next_functions:
            if child is None:
                continue
            w = waiting[child] - 1
            waiting[child] = w
            if w == 0:
                tick += 1  # (the key is -_priority(child), written out)
                push(ready, (-inf if isinstance(child, acc) else -child.seq, tick, child))
    return order


def _priority(node) -> float:
    return float("inf") if isinstance(node, AccumulateGrad) else node.seq


def run_backward(roots, root_grads, *, retain_graph=False, create_graph=False, inputs=None,
                 accumulate=True):
    """Propagate ``root_grads`` from the ``roots`` edges; return the gradients at ``inputs``.

    ``inputs`` (a list of ``(node, output_nr)`` edges) restricts the walk to the
    nodes that lead to them. With ``accumulate`` (``backward``) leaves among them
    still accumulate into ``.grad``; without it (``autograd.grad``) nothing is
    accumulated and the captured gradients are returned, one per input edge.
    """
    order = topological_order([n for n, _ in roots])
    buffers = GradBuffers()
    for i, ((node, nr), g) in enumerate(zip(roots, root_grads)):
        meta = node.output_meta[nr] if g is not None and nr < len(node.output_meta) else None
        shape = tuple(meta[0]) if meta is not None else None
        if shape is not None and g._shape != shape:  # (a root whose shape changed under
            if not _expandable(shape, g._shape):     # no_grad: torch's validate_outputs)
                raise RuntimeError(_invalid_shape(i, g._shape, shape))
            buffers.add(node, nr, g.sum_to_size(shape))
            continue
        buffers.add(node, nr, g, foreign=True)  # the caller still holds a root gradient
    runs = _nodes_to_run(order, inputs, accumulate)
    targets = set(inputs or ())
    captured = {}
    warned = False
    with grad_mode.set_grad_enabled(create_graph):
        for node in order:
            grads = buffers.pop(node)
            if grads is None:
                continue
            leaf = node.__class__ is AccumulateGrad  # (nothing subclasses it)
            if leaf or node._extra is not None:  # else no hooks
                grads = buffers.adopt(grads, call_tensor_pre_hooks(node, grads))
            if targets:
                for nr, g in enumerate(grads):
                    if (node, nr) in targets:
                        captured[(node, nr)] = g
            if runs is not None and node not in runs:
                continue
            if leaf:
                if create_graph and not warned:
                    _warn_create_graph_cycle()
                    warned = True
                node.accumulate(grads[0], steal=buffers.sole_owner(grads[0]))
                if hooks.active:
                    hooks.emit_accumulate(node.variable, grads[0])
                continue
            if node._released and policy.is_paddle(getattr(node, "policy", None)):
                raise policy.paddle_released_error(node)  # (Paddle: whatever it saved)
            if hooks.active:
                hooks.emit_node(node)
            try:
                if node._extra is None and not node.user_code:  # (call_node without hooks)
                    for g in grads:  # (_materialize only when a gradient is missing)
                        if g is None:
                            grads = _materialize(node, tuple(grads))
                            break
                    grads_in = node.apply(tuple(grads))
                else:
                    grads_in = call_node(node, grads, buffers.adopt)
            except errors.InplaceLabError as e:  # carry the graph, so viz.graph(e) can draw it
                e.info.setdefault("grad_fn", node)
                e.info.setdefault("roots", [n for n, _ in roots])
                e.grad_fn, e.roots = e.info["grad_fn"], e.info["roots"]
                raise
            out = []  # PyTorch's order: validate every output, release, then buffer them
            for i, ((nxt, nr), g) in enumerate(zip(node.next_functions, grads_in)):
                if nxt is not None and g is not None:
                    meta = nxt.output_meta
                    meta = meta[nr] if nr < len(meta) else None
                    if meta is not None and (g._shape != meta[0] or g._dtype is not meta[1]):
                        g = validate(node, i, g, nxt, nr)  # (a refusal keeps the graph intact)
                    out.append((nxt, nr, g))
            if not retain_graph:
                node.release()
            for nxt, nr, g in out:
                buffers.add(nxt, nr, g)
    return [captured.get(e) for e in inputs or ()]


# ---- hooks -----------------------------------------------------------------------------------

def call_tensor_pre_hooks(node, grads):
    """``t.register_hook`` functions, then ``retain_grad`` (it sees the hooked gradient)."""
    if not ((node._extra is not None and (node._tensor_pre_hooks or node._retains)) or
            (isinstance(node, AccumulateGrad) and node.variable._hooks)):
        return grads  # the common case: nothing registered, the same gradients go on
    grads = list(grads)
    for nr in range(len(grads)):
        for hook in _tensor_hooks(node, nr):  # (an output with no gradient: called with None,
            new = hook(grads[nr])             # as PyTorch's PyFunctionTensorPreHook does)
            if new is not None and grads[nr] is None:
                raise RuntimeError("can't replace a None gradient with a non-None value")
            if new is not None:
                grads[nr] = new
    for nr, ref in node._retains.items():
        t = ref()
        if t is not None and grads[nr] is not None:
            g = grads[nr].clone()
            if not g.is_contiguous():
                g = g.contiguous()
            t._grad = g if t._grad is None else t._grad + grads[nr]
    return tuple(grads)


def _tensor_hooks(node, nr):
    if isinstance(node, AccumulateGrad):
        return list(node.variable._leaf_hooks())  # a leaf's hooks sit on its AccumulateGrad
    return list(node._tensor_pre_hooks.get(nr, ()))


def call_node(node, grads, adopt=lambda before, after: after):
    """Node pre-hooks, the node's backward formula, node post-hooks."""
    grads = _materialize(node, tuple(grads))
    hooked = node._extra is not None  # else no hook was ever registered (node._lazy)
    for hook in list(node._pre_hooks) if hooked else ():
        new = hook(grads)
        if new is not None:
            grads = tuple(new)
    grads_in = node.apply(grads)
    if node.user_code:  # a custom Function's backward may return tensors it keeps
        grads_in = adopt((), grads_in)
    for hook in list(node._hooks) if hooked else ():
        new = hook(grads_in, grads)
        if new is not None:
            grads_in = adopt(grads_in, tuple(new))
    return grads_in


def _materialize(node, grads):
    """Zeros for the outputs that got no gradient (a Function may ask for None instead)."""
    for g in grads:
        if g is None:
            if node.materialize_grads:
                return tuple(g if g is not None else _zeros_for(node, i)
                             for i, g in enumerate(grads))
            break
    return grads


def _zeros_for(node, i):
    meta = getattr(node, "output_meta", None)
    if not meta or i >= len(meta):
        return None
    from .. import creation

    shape, dt, dev = meta[i]
    return creation.zeros(shape, dtype=dt, device=dev)


def _warn_create_graph_cycle():
    warnings.warn(
        "Using backward() with create_graph=True will create a reference cycle between the "
        "parameter and its gradient which can cause a memory leak. We recommend using "
        "autograd.grad when creating the graph to avoid this. If you have to use this function, "
        "make sure to reset the .grad fields of your parameters to None after use to break the "
        "cycle and avoid the leak.", UserWarning, stacklevel=4)


# ---- targets: which nodes run when inputs= is given ------------------------------------------

def _nodes_to_run(order, inputs, accumulate):
    """``None`` (run everything) or the set of nodes on a path to an input edge."""
    if inputs is None:
        return None
    # an input with no node (a no_grad view that requires grad) is PyTorch's "unreachable
    # input": no edge of the graph leads to it (the (None, 0) edges of numbers do not)
    target_edges = {e for e in inputs if e[0] is not None}
    runs = set()
    if accumulate:  # backward(inputs=[leaf]): the leaf's AccumulateGrad itself runs
        runs.update(n for n, _ in inputs if isinstance(n, AccumulateGrad))
    for node in reversed(order):  # producers before consumers
        if any(e in target_edges or e[0] in runs for e in node.next_functions):
            runs.add(node)
    return runs


# ---- buffers: summing the gradients that meet at one node ------------------------------------

class GradBuffers:
    """Pending gradients per node (PyTorch's InputBuffer), and which ones only the engine holds.

    PyTorch adds a second gradient *into* the first (``old.add_(new)``) when no
    one else holds the first (``use_count() == 1``). Python has no cheap
    use_count, so the engine counts its own references: a gradient passed on to
    two edges (``AddBackward0`` forwards the same tensor), a view, or a tensor
    the caller or a hook handed in (``foreign``) is never written in place.
    """

    def __init__(self):
        self._bufs: dict = {}
        self._refs: dict = {}  # id(g) -> [g, references held by buffers]
        self._foreign: dict = {}  # id(g) -> g

    def add(self, node, nr, g, *, foreign=False):
        if foreign:
            self._foreign[id(g)] = g
        buf = self._bufs.get(node)
        if buf is None:
            n = node.num_outputs
            buf = self._bufs[node] = [None] * (n if n > nr else nr + 1)
        old = buf[nr]
        if old is None:
            buf[nr] = g
            entry = self._refs.get(id(g))  # (_hold, written out: once per edge)
            if entry is None:
                self._refs[id(g)] = [g, 1]
            else:
                entry[1] += 1
        elif not grad_mode.state.enabled and old is not g and self._sole(old, held=1) and \
                _dense(old) and old.shape == g.shape and old._storage is not g._storage:
            old.add_(g)
        else:
            self._drop(old)
            buf[nr] = old + g
            self._hold(buf[nr])

    def adopt(self, before, after):
        """Gradients a hook (or user code) returned: never stolen when someone else holds them.

        A hook's new tensor that nothing but ``after`` refers to (``lambda g: g * 2``) is the
        engine's alone, and PyTorch steals it into a leaf's ``.grad`` (use_count 1: version 0);
        one the hook also keeps (appended to a list) is copied there."""
        if after is before:
            return after
        known = {id(g) for g in before}
        for g in after:
            if g is not None and id(g) not in known and _refs(g) > _ALONE:
                self._foreign[id(g)] = g
        return after

    def pop(self, node):
        """The gradients for ``node`` (``None`` if none arrived); the engine hands them on."""
        buf = self._bufs.pop(node, None)
        if buf is not None:
            refs = self._refs
            for g in buf:
                if g is not None:
                    entry = refs.get(id(g))  # (_drop, written out: once per edge)
                    if entry is not None:
                        if entry[1] == 1:
                            del refs[id(g)]
                        else:
                            entry[1] -= 1
        return buf

    def sole_owner(self, g) -> bool:
        """May ``g`` (just popped) be stolen into a leaf's ``.grad``: nobody else can see it?

        PyTorch's test is the use_count of the gradient's own TensorImpl, so a view a formula
        made (SumBackward0's expand, ViewBackward0's reshape, TBackward0's transpose of
        ``linear``'s column-major weight gradient) is stolen even when its base is held
        elsewhere (the root gradient the caller passed): the leaf's ``.grad`` then shares that
        storage, as in PyTorch. The leaf's layout contract is checked by the caller.
        """
        if g is None:
            return False
        if g._base is None:
            return self._sole(g, held=0)
        return id(g) not in self._refs and id(g) not in self._foreign

    def _sole(self, g, held) -> bool:
        entry = self._refs.get(id(g))
        count = entry[1] if entry is not None else 0
        return count == held and id(g) not in self._foreign and g._base is None

    def _hold(self, g):
        self._refs.setdefault(id(g), [g, 0])[1] += 1

    def _drop(self, g):
        entry = self._refs.get(id(g))
        if entry is not None:
            entry[1] -= 1
            if entry[1] == 0:
                del self._refs[id(g)]  # freed as soon as no buffer holds it, like PyTorch


def validate(node, i, g, nxt, nr):
    """PyTorch's validate_outputs: a gradient must fit the tensor it is the gradient of."""
    meta = nxt.output_meta[nr] if nr < len(nxt.output_meta) else None
    if meta is None:
        return g
    shape, dt, _ = meta
    if g._shape != tuple(shape):
        if not _expandable(tuple(shape), tuple(g.shape)):
            raise RuntimeError(f"Function {node.name()} returned an "
                               + _invalid_shape(i, g.shape, shape))
        g = g.sum_to_size(shape)
    if g._dtype is not dt:
        g = g.to(dt)
    return g


def _invalid_shape(i, got, expected) -> str:
    return (f"invalid gradient at index {i} - got {list(got)} but expected shape compatible "
            f"with {list(expected)}")


def _expandable(small, big) -> bool:
    if len(small) > len(big):
        return False
    for s, b in zip(reversed(small), reversed(big)):
        if s != 1 and s != b:
            return False
    return True


# ---- leaves: AccumulateGrad --------------------------------------------------------------------

def accumulate_into_leaf(leaf, g, steal=False) -> None:
    """``leaf.grad = g`` the first time, ``leaf.grad += g`` (in place, version bump) after.

    The first gradient is *stolen* (no copy) when nobody else holds it and its
    strides match the leaf's (PyTorch's "gradient layout contract"); otherwise
    it is copied with the leaf's strides. Under ``create_graph`` the copy and
    the sum stay differentiable (``CopyBackwards``, ``AddBackward0``).
    """
    if leaf._grad is None:
        if steal and not grad_mode.state.enabled and _obeys_layout_contract(g, leaf):
            leaf._grad = _tensor_class().detach(g)  # (the core's: a facade's names its result)
            if leaf._grad._vc.version and _paddle(leaf):  # (summed in place on the way:
                leaf._grad._vc = VersionCounter()          # Paddle's .grad starts at 0)
        else:
            leaf._grad = clone_obey_contract(g, leaf)
    elif not grad_mode.state.enabled:
        if _paddle(leaf):  # Paddle sums into .grad without moving its inplace_version
            acc, ga = leaf._grad._a, g._a
            if leaf._grad._shape != g._shape:  # (the leaf was reshaped in place since)
                _paddle_accumulation_fits(leaf._grad._shape, g._shape)
                ga = ga.reshape(leaf._grad._shape)
            acc += ga
        else:
            leaf._grad.add_(g)
    else:
        leaf._grad = leaf._grad + g  # create_graph: keep the sum differentiable


def _paddle_accumulation_fits(have, new) -> None:
    """Paddle's checks when a gradient of another shape meets a leaf's ``.grad`` (the leaf
    was reshaped in place between two backwards): the same number of elements, then its
    elementwise kernel's broadcast check (right-aligned, a 1 fits anything)."""
    n_have, n_new = layout.numel(have), layout.numel(new)
    if n_have != n_new:
        raise RuntimeError(
            "(PreconditionNotMet) The number of elements of source tensor and destination tensor "
            f"should be equal, but got the number of elements of source tensor is {n_new} and the "
            f"number of elements of destination tensor is {n_have}.")
    k = min(len(have), len(new))
    for a, b in zip(have[len(have) - k:], new[len(new) - k:]):
        if a != b and a != 1 and b != 1:
            cond = "y_dims[i] == 1 || x_dims[i + axis] == 1"
            raise ValueError(
                "(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast "
                f"together with the shape of X = {list(have)} and the shape of Y = {list(new)}. "
                f"Received [{a}] in X is not equal to [{b}] in Y.\n  [Hint: Expected {cond} == "
                f"true, but received {cond}:0 != true:1.] (at "
                "/paddle/paddle/phi/kernels/funcs/elementwise_utils.h:56)\n")


def _refs(g):
    return sys.getrefcount(g)


def _alone():
    """What ``_refs`` reads, in ``GradBuffers.adopt``'s loop, of an object that nothing else
    holds (measured, not assumed: the interpreter's borrowed references vary by version)."""
    after = [object()]
    for g in after:
        return _refs(g)


_ALONE = _alone()


def clone_obey_contract(g, like):
    """A copy of ``g`` with ``like``'s strides (dense ``like``) or contiguous."""
    from ..storage import Storage
    from ..tensor import Tensor

    if not _dense(like) or g._shape != like._shape and _paddle(like):
        # (Paddle keeps the graph's shape for a leaf reshaped in place after the graph was
        # built: x.t_() under no_grad, then backward gives x.grad of x's old shape)
        c = g.clone()
        return c if c.is_contiguous() else c.contiguous()
    st = Storage.allocate(max(like.numel(), 1) if like.numel() else 0, g.dtype, g.device)
    out = Tensor._make(st, like.shape, like.stride(), 0)
    out._policy = g._policy
    if grad_mode.state.enabled:  # create_graph: the copy stays differentiable (CopyBackwards)
        return out.copy_(g)
    if g._shape != out._shape:  # (the leaf was reshaped in place after the graph was built:
        b = layout.broadcast_shapes(out._shape, g._shape)  # ATen's copy_ into the new grad)
        if b != out._shape:
            raise RuntimeError(f"output with shape {list(out._shape)} doesn't match the "
                               f"broadcast shape {list(b)}")
    out._a[...] = g._a
    if not _paddle(like):  # (ATen's copy_ into the new gradient: version 1, as in torch)
        out._vc.bump()
    return out


def _paddle(t) -> bool:
    return policy.is_paddle(policy.policy_of(t))


def _dense(t) -> bool:
    return layout.is_dense(t._shape, t._strides)


def _obeys_layout_contract(g, leaf) -> bool:
    # (a view reaches here only when sole_owner found it spans a base nothing else holds)
    if _dense(leaf):
        for n, gs, ls in zip(g.shape, g.stride(), leaf.stride()):
            if (n != 1 and gs != ls) or (n == 1 and gs == 0):
                return False
        return True
    return g.is_contiguous()


# ---- roots: the gradients backward() starts from (PyTorch's _make_grads) -------------------------

def make_root_grads(tensors, grads):
    """Check each explicit gradient's shape; make ``ones`` for scalar outputs."""
    from ..tensor import Tensor

    out = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if isinstance(g, Tensor):
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and "
                    f"output[{i}] has a shape of {t.shape!r}.")
            if t.dtype.is_complex != g.dtype.is_complex:
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have the "
                    f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                    f"{g.dtype} and output[{i}] has a dtype of {t.dtype}.")
            out.append(g)
        elif g is None:
            if not t._requires_grad:
                out.append(None)
            elif t.numel() != 1 and not _paddle(t):
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            elif not t.dtype.is_floating_point and t.numel() == 1:
                raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                   f"but got {t.dtype}")
            else:
                out.append(t.new_ones(t.shape))  # Paddle: ones for a non-scalar output too
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    return out


def root_edges(tensors):
    """The edge each output's gradient enters the graph by; outputs must require grad."""
    from .node import edge_of

    edges = []
    for i, t in enumerate(tensors):
        e = edge_of(t) if t._requires_grad else (None, 0)
        if e[0] is None:  # (also a view made under no_grad/inference of a leaf that requires
            raise RuntimeError(  # grad: it requires grad through its base, with no grad_fn)
                f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(e)
    return edges
