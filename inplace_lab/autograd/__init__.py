"""Reverse-mode autograd: ``backward``, ``grad``, grad modes, saved tensors, custom Functions."""
from __future__ import annotations

from .engine import check_roots, run_backward
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .node import edge_of


def _as_list(x):
    if x is None:
        return None
    return list(x) if isinstance(x, (list, tuple)) else [x]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(tensors)/d(leaf) into every leaf's ``.grad``."""
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors) or [None] * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    edges, gs = check_roots(tensors, grads)
    if inputs is not None:
        inputs = _as_list(inputs)
        capture = {edge_of(t): t for t in inputs}
        got = run_backward(edges, gs, retain_graph=retain_graph, create_graph=create_graph,
                           capture=capture)
        from .engine import accumulate_into_leaf

        for e, t in capture.items():
            if e in got:
                accumulate_into_leaf(t, got[e])
        return
    run_backward(edges, gs, retain_graph=retain_graph, create_graph=create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching ``.grad``."""
    outputs = _as_list(outputs)
    inputs_l = _as_list(inputs)
    grads = _as_list(grad_outputs) or [None] * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs_l:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    edges, gs = check_roots(outputs, grads)
    capture = {edge_of(t): i for i, t in enumerate(inputs_l)}
    got = run_backward(edges, gs, retain_graph=retain_graph, create_graph=create_graph,
                       capture=capture)
    result = []
    for t in inputs_l:
        g = got.get(edge_of(t))
        if g is None:
            if materialize_grads:
                g = t.new_zeros(t.shape)
            elif not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
        result.append(g)
    return tuple(result)


__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]
