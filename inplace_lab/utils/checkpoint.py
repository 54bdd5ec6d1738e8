"""``torch.utils.checkpoint.checkpoint``: trade compute for memory by recomputing in backward.

The memory lesson: a checkpointed segment keeps only its inputs; the activations its
ops would save for backward are dropped and recomputed when backward first needs one.

- ``use_reentrant=False`` (recommended): the segment runs with grad on, under
  ``saved_tensors_hooks`` whose pack hook stores a ticket instead of the tensor. The
  first unpack reruns the segment on detached inputs and collects, in the same
  order, the tensors its ops save; each ticket then answers its tensor. The graph
  is the one the segment makes without checkpointing (same grad_fn names).
- ``use_reentrant=True`` (PyTorch's default when the argument is omitted, with its
  warning): a custom Function, ``CheckpointFunctionBackward``, runs the segment
  under ``no_grad`` and in backward reruns it with grad and calls ``backward`` on it.

Random ops are not replayed with the same random state (``preserve_rng_state`` is
accepted and ignored): keep randomness out of a checkpointed segment.
"""
from __future__ import annotations

import warnings

from .. import autograd
from ..autograd import grad_mode
from ..autograd.saved import saved_tensors_hooks
from ..tensor import Tensor


def _detached(args):
    out = []
    for a in args:
        if isinstance(a, Tensor):
            d = a.detach()
            d.requires_grad_(a.requires_grad)
            out.append(d)
        else:
            out.append(a)
    return out


class CheckpointFunction(autograd.Function):
    """The reentrant variant: forward without a graph, backward reruns and differentiates."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = _detached(inputs)
        with grad_mode.enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(d.grad if isinstance(d, Tensor) else None
                                    for d in detached)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, preserve_rng_state=True, **kwargs):
    """Run ``function(*args, **kwargs)`` keeping only its inputs; recompute it in backward."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, args, kwargs)


class _Ticket:
    """What a saved slot holds instead of its tensor. When backward frees the slot the
    ticket dies and takes its recomputed tensor along, used or not (a node may save
    more than its formula reads), so nothing recomputed outlives its segment's backward."""

    __slots__ = ("held", "live", "nr")

    def __init__(self, nr, held, live):
        self.nr, self.held, self.live = nr, held, live
        live.add(nr)

    def __del__(self):
        self.held.pop(self.nr, None)
        self.live.discard(self.nr)


def _checkpoint_without_reentrant(function, args, kwargs):
    recomputed: dict = {}  # ticket number -> the tensor the rerun saved there, while held
    live: set = set()  # numbers of the tickets some saved slot still holds
    tickets = [0]

    def pack(t):  # keep a ticket, not the tensor: this is where the memory is saved
        tickets[0] += 1
        return _Ticket(tickets[0] - 1, recomputed, live)

    def unpack(ticket):
        if ticket.nr not in recomputed:  # first use (or again after retain_graph): rerun
            got: list = []
            with grad_mode.enable_grad(), saved_tensors_hooks(_keep(got), _never):
                function(*_detached(args), **kwargs)
            recomputed.update((nr, t) for nr, t in enumerate(got) if nr in live)
        return recomputed.pop(ticket.nr)  # backward holds it only while it needs it

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def _keep(into: list):
    """The rerun's pack hook: collect each saved tensor, leave nothing in the rerun's own
    nodes (a saved output kept there would be a tensor -> node -> tensor cycle)."""
    def pack(t):
        into.append(t)

    return pack


def _never(_):
    raise RuntimeError("a checkpoint rerun's own graph is not for backward")


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (an ``nn.Sequential`` or a list) in ``segments`` chunks, every chunk
    but the last checkpointed: only the chunk boundaries stay in memory until backward."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is "
            "not passed. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1  # (the last chunk is not checkpointed)
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
