"""Error classes: each one a teaching moment that carries what a renderer needs.

Every class is catchable as the built-in type the frameworks raise
(``RuntimeError``; the leaf errors are also ``ValueError`` because Paddle raises
that). Each keeps the objects involved (``tensor``, ``node``, versions, ...) in
attributes so ``inplace_lab.viz.explain`` can draw *why* it happened, and has a
``why`` and a ``fix`` sentence for the explanation panel.
"""
from __future__ import annotations


class InplaceLabError(Exception):
    """Base class of inplace_lab's errors.

    Every instance has the attributes a renderer reads, ``None`` when they do not
    apply: ``tensor`` (the tensor written to, or the saved one), ``node`` (the grad_fn
    involved), ``op`` (the op's name), ``policy`` (whose rules raised it),
    ``expected``/``found`` (versions, for saved-tensor errors); subclasses add more
    (``leaf``, ``other``, ``saved``, ``creation``...). ``info`` holds all of them.
    """

    why = ""
    fix = ""
    tensor = None
    node = None
    op = ""
    policy = None
    expected = None
    found = None

    def __init__(self, message: str, **info):
        super().__init__(message)
        self.info = info
        for k, v in info.items():
            setattr(self, k, v)
        from . import hooks  # the bus: observers see every error as it is raised

        if hooks.active:
            hooks.emit_error(self)


class InplaceAutogradError(InplaceLabError, RuntimeError):
    """An in-place op that autograd cannot allow (or could not survive, at backward)."""


class LeafInplaceError(InplaceAutogradError, ValueError):
    """An in-place op (or setitem) on a leaf tensor that requires grad."""

    why = ("The leaf's gradient is accumulated into it by its AccumulateGrad node, and every node "
           "that saved the leaf needs its original value; overwriting it would destroy that value "
           "with no earlier node to send the gradient to.")
    fix = ("Use the out-of-place op (y = x.add(1)), clone first (y = x.clone(); y.add_(1)), or "
           "wrap the update in 'with no_grad():' if it is a parameter update.")


class ViewOfLeafInplaceError(LeafInplaceError):
    """An in-place op on a view of a leaf that requires grad (PyTorch)."""


class SavedTensorModifiedError(InplaceAutogradError):
    """A tensor saved for backward was modified in place before backward read it."""

    why = ("A node saved this tensor for its backward formula and recorded its version; an "
           "in-place op changed the tensor afterwards, so backward would read the wrong values.")
    fix = ("Use the out-of-place form of the op that modified it, or clone the tensor before "
           "modifying it (y = y.clone(); y.add_(1)).")


class ViewRebaseError(InplaceAutogradError):
    """An in-place op would have to rewrite the history of a view that cannot be rewritten.

    ``indirect``: the view itself was not written; its base or a sibling view was, and
    the error surfaced when the view's grad_fn was asked for.
    """

    indirect = False
    creation = ""


class NoGradViewInplaceError(ViewRebaseError):
    """A view made under no_grad is modified in place with grad enabled."""

    why = "The view was created without autograd, so autograd cannot tell how to rewrite its base."
    fix = "Create the view and do the in-place op both inside or both outside the no_grad block."


class MultiOutputViewInplaceError(ViewRebaseError):
    """An output of unbind/split/chunk is modified in place while grad is tracked."""

    why = ("Functions returning several views share one backward node; rewriting the history of "
           "one output is not supported.")
    fix = "Use the out-of-place op, or clone the output before modifying it."


class CustomFunctionViewInplaceError(ViewRebaseError):
    """An input a custom Function returned as-is (a view of it) is modified in place."""

    why = ("The output is a view made by a custom Function; rewriting its history for the "
           "in-place op would bypass the Function's own backward and give wrong gradients.")
    fix = "Clone the output of the custom Function before modifying it in place."


class InferenceTensorError(InplaceLabError, RuntimeError):
    """A tensor made under inference_mode used where it cannot be: written in place outside
    the mode (``kind="inplace"``), saved for backward (``"save"``), asked for its version
    (``"version"``) or set to require grad outside the mode (``"requires_grad"``)."""

    kind = ""
    why = ("Tensors created in inference mode keep no version counter and no autograd "
           "history, so autograd cannot check or record anything done to them.")
    fix = ("Clone the tensor (outside inference mode) to get a normal tensor, or use no_grad() "
           "instead of inference_mode().")


class InplaceShapeError(InplaceLabError, RuntimeError):
    """Broadcasting would have to resize the in-place target."""

    why = "An in-place op writes into the existing buffer, which cannot grow to the broadcast shape."
    fix = "Use the out-of-place op, whose result can take the broadcast shape."


class InplaceCastError(InplaceLabError, RuntimeError):
    """The op's result type cannot be stored in the in-place target's dtype."""

    why = "Writing a wider type into the target would silently lose information."
    fix = "Use the out-of-place op, or convert the target first (x = x.float())."


class InternalOverlapError(InplaceLabError, RuntimeError):
    """The written-to tensor has several elements on one memory cell (e.g. expand)."""

    why = "Several elements of the target share one storage cell, so the write is ambiguous."
    fix = "clone() the tensor before performing the operation."


class PartialOverlapError(InplaceLabError, RuntimeError):
    """An input partially overlaps the written-to tensor."""

    why = "The op would read cells that it has already overwritten."
    fix = "clone() the input before performing the operation."


class OutRequiresGradError(InplaceLabError, RuntimeError):
    """``out=`` used while an argument requires grad."""

    why = "Writes into out= are not recorded by autograd."
    fix = "Drop out= and use the returned tensor."


class BackwardTwiceError(InplaceLabError, RuntimeError):
    """Backward through a graph whose saved tensors were already freed."""

    why = "Saved tensors are freed after backward to save memory."
    fix = "Pass retain_graph=True to the first backward call."


class PaddleBackwardTwiceError(BackwardTwiceError, SystemError):
    """Paddle's form: a node released by an earlier backward is reached again (a SystemError,
    whatever the node saved)."""


class DeviceMismatchError(InplaceLabError, RuntimeError):
    """Tensors on different devices in one op."""

    why = "An op reads and writes one device's memory; it cannot mix devices."
    fix = "Move the tensors to one device first with .to(device)."


class FacadeMismatchError(InplaceLabError, RuntimeError):
    """Tensors from the torch and paddle facades mixed in one op."""

    why = "The two facades follow different in-place rules; an op cannot follow both."
    fix = "Convert one tensor explicitly, e.g. via .numpy() and the other facade's tensor()."


class LegacyInplaceUnsupportedError(InplaceAutogradError):
    """paddle-legacy: an in-place op whose backward needs the input it overwrites."""

    why = ("Before Paddle 2.6 in-place ops did not copy their input, so an op whose backward "
           "needs that input had no in-place form.")
    fix = "Use the out-of-place op."
