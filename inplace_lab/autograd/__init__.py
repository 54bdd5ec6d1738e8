"""Reverse-mode autograd: ``backward``, ``grad``, grad modes, saved tensors, custom Functions.

The argument handling here follows ``torch.autograd.backward``/``grad`` line by
line (their checks and error texts); the walk itself is ``engine.run_backward``.
"""
from __future__ import annotations

from collections.abc import Mapping

from . import anomaly, graph  # noqa: F401
from .anomaly import detect_anomaly, set_detect_anomaly  # noqa: F401
from .engine import make_root_grads, root_edges, run_backward
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401  (the gradcheck helper's line)
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference,  # noqa: F401
                        is_inference_mode_enabled, no_grad, set_grad_enabled)
from .node import edge_of


def _is_tensor(x) -> bool:
    from ..tensor import Tensor

    return isinstance(x, Tensor)


def _as_tuple(x) -> tuple:
    return (x,) if _is_tensor(x) else tuple(x)


def _grads_tuple(grads, n) -> tuple:
    if grads is None:
        return (None,) * n
    return _as_tuple(grads)


def _inputs_tuple(inputs, who: str) -> tuple:
    if _is_tensor(inputs):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{who}()` must be a dict, not "
                        f"{type(inputs).__name__}. Other Mapping types are not supported.")
    return tuple(inputs)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate d(tensors)/d(leaf) into every leaf's ``.grad`` (or only into ``inputs``).

    A non-leaf tensor listed in ``inputs`` gets ``retain_grad()`` and receives
    its gradient in ``.grad``; only the nodes on a path to an input run.
    """
    if grad_variables is not None:
        grad_tensors = grad_variables if grad_tensors is None else grad_tensors
    inputs_t = () if inputs is None else _inputs_tuple(inputs, "backward")
    if inputs is not None and len(inputs_t) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _as_tuple(tensors)
    grads = make_root_grads(tensors, _grads_tuple(grad_tensors, len(tensors)))
    if retain_graph is None:
        retain_graph = create_graph
    edges = root_edges(tensors)
    input_edges = None
    if inputs is not None:
        input_edges = []
        for t in inputs_t:
            t.retain_grad()  # PyTorch: a non-leaf input's gradient lands in its .grad
            input_edges.append(edge_of(t))
    try:
        run_backward(edges, grads, retain_graph=retain_graph, create_graph=create_graph,
                     inputs=input_edges, accumulate=True)
    except Exception:
        if anomaly.state.enabled:
            anomaly.report_failure()
        raise


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching any ``.grad``."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True (vmap) is not supported by inplace_lab")
    outputs = _as_tuple(outputs)
    inputs_t = _inputs_tuple(inputs, "grad")
    if len(inputs_t) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = make_root_grads(outputs, _grads_tuple(grad_outputs, len(outputs)))
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs_t:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    got = grad_of_edges(outputs, grads, [edge_of(t) for t in inputs_t], retain_graph,
                        create_graph)
    result = []
    for i, (t, g) in enumerate(zip(inputs_t, got)):
        if g is None:
            if materialize_grads:
                from .. import creation

                g = creation.zeros_like(t, requires_grad=create_graph)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior.")
        result.append(g)
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return tuple(result)


def grad_of_edges(outputs, root_grads, input_edges, retain_graph, create_graph) -> list:
    """The gradients flowing into ``input_edges`` (``(node, nr)`` pairs) from ``outputs``
    seeded with ``root_grads``; None where nothing arrives. ``grad``'s engine call, shared
    with the Paddle facade (which finds its inputs' edges its own way)."""
    try:
        return run_backward(root_edges(outputs), root_grads, retain_graph=retain_graph,
                            create_graph=create_graph, inputs=input_edges, accumulate=False)
    except Exception:
        if anomaly.state.enabled:
            anomaly.report_failure()
        raise


__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "Function", "FunctionCtx",
           "once_differentiable", "graph", "gradcheck", "gradgradcheck"]
