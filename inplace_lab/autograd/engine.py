"""The reverse walk. The core is micrograd's: order the nodes, then push gradients back.

    order = topological_order(roots)        # every consumer before its producers
    for node in order:                      # so a node's gradient is complete when reached
        grads_in = node.apply(grads_out)
        send each to its next_functions

Around that core, visibly separate: hooks, version checks (inside ``apply``,
when formulas unpack saved tensors), capture for ``autograd.grad``, freeing of
saved tensors, and accumulation into leaves.
"""
from __future__ import annotations

from . import grad_mode
from .node import AccumulateGrad, edge_of


def topological_order(roots):
    """Nodes reachable from ``roots``, each after every node that feeds it a gradient."""
    order, seen = [], set()
    for root in roots:
        stack = [(root, iter(root.next_functions))]
        if root in seen:
            continue
        seen.add(root)
        while stack:  # iterative DFS post-order (graphs can be deeper than Python's recursion)
            node, children = stack[-1]
            for child, _ in children:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append((child, iter(child.next_functions)))
                    break
            else:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _run_node(node, grads_out):
    for hook in node._pre_hooks:
        new = hook(grads_out)
        if new is not None:
            grads_out = tuple(new)
    for nr, hooks in node._tensor_pre_hooks.items():
        g = grads_out[nr]
        for hook in hooks:
            new = hook(g)
            if new is not None:
                g = new
        grads_out = grads_out[:nr] + (g,) + grads_out[nr + 1:]
    for nr, ref in node._retains.items():
        t = ref()
        if t is not None and grads_out[nr] is not None:
            t._grad = grads_out[nr] if t._grad is None else t._grad + grads_out[nr]
    grads_in = node.apply(grads_out)
    for hook in node._hooks:
        new = hook(grads_in, grads_out)
        if new is not None:
            grads_in = tuple(new)
    return grads_in


def run_backward(roots, root_grads, *, retain_graph=False, create_graph=False, capture=None):
    """Propagate ``root_grads`` from the ``roots`` edges.

    ``capture`` (for ``autograd.grad``) maps edges to slots: gradients reaching those
    edges are returned instead of being accumulated into ``.grad``.
    """
    buffers: dict = {}
    for (node, nr), g in zip(roots, root_grads):
        buf = buffers.setdefault(node, [None] * node.num_outputs)
        buf[nr] = _add(buf[nr], g)
    captured = {}
    with grad_mode.set_grad_enabled(create_graph):
        for node in topological_order([n for n, _ in roots]):
            buf = buffers.pop(node, None)
            if buf is None:
                continue
            if capture is not None:
                for nr, g in enumerate(buf):
                    if (node, nr) in capture:
                        captured[(node, nr)] = _add(captured.get((node, nr)), g)
                if isinstance(node, AccumulateGrad):
                    continue  # autograd.grad() returns gradients instead of touching .grad
            buf = [g if g is not None else _zeros_for(node, i) for i, g in enumerate(buf)]
            grads_in = _run_node(node, tuple(buf))
            if not retain_graph:
                node.release()
            for (nxt, nr), g in zip(node.next_functions, grads_in):
                if nxt is None or g is None:
                    continue
                nbuf = buffers.setdefault(nxt, [None] * nxt.num_outputs)
                nbuf[nr] = _add(nbuf[nr], g)
    return captured


def _zeros_for(node, i):
    meta = getattr(node, "output_meta", None)
    if not meta:
        return None
    from .. import creation

    shape, dt, dev = meta[i]
    return creation.zeros(shape, dtype=dt, device=dev)


def accumulate_into_leaf(leaf, g) -> None:
    """``leaf.grad = g`` the first time, ``leaf.grad += g`` (in place, version bump) after."""
    for hook in leaf._leaf_hooks():
        new = hook(g)
        if new is not None:
            g = new
    if g.shape != leaf.shape:
        g = g.sum_to_size(leaf.shape)
    if leaf._grad is None:
        g = g if grad_mode.state.enabled else g.detach()
        if g._base is not None or g._storage is getattr(leaf, "_storage", None):
            g = g.clone()
        leaf._grad = g
    elif grad_mode.state.enabled:
        leaf._grad = leaf._grad + g  # create_graph: keep the sum differentiable
    else:
        leaf._grad.add_(g)


def check_roots(tensors, grads, who="backward"):
    """Resolve the root edges and default gradients for ``backward``/``grad``."""
    from .. import policy as _policy
    from ..tensor import Tensor

    edges, gs = [], []
    for t, g in zip(tensors, grads):
        if not t._requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if t.numel() != 1:
                if _policy.is_paddle(_policy.policy_of(t)):
                    g = t.new_ones(t.shape)
                else:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
            else:
                g = t.new_ones(t.shape)
        elif not isinstance(g, Tensor):
            g = t.new_tensor(g)
        edges.append(edge_of(t))
        gs.append(g)
    return edges, gs
