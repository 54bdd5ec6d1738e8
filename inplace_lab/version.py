"""VersionCounter: one integer shared by a tensor, all its views and ``detach()``.

Every in-place write bumps it; autograd records it when it saves a tensor and
compares at backward. It is an object (not an int on the tensor) because views
must *share* it: bumping through one view is seen by the base and siblings.

Tensors made under ``inference_mode()`` get an ``InferenceCounter`` instead
(PyTorch's inference tensors have no version counter): reading ``_version``
fails, and a bump outside inference mode raises PyTorch's error. As in
PyTorch the error comes from the bump, i.e. *after* the kernel has written:
``a.add_(1)`` on an inference tensor outside the mode changes ``a`` and then
raises. Views share the counter, so they are inference tensors too;
``is_inference()`` is ``t._vc.inference``. ``detach()`` outside the mode is
PyTorch's exception: ``DetachedInferenceCounter``.
"""


class VersionCounter:
    __slots__ = ("version", "__weakref__")

    inference = False  # see InferenceCounter
    counted = True  # ``_version`` is readable (not an InferenceCounter's)

    def __init__(self, version: int = 0):
        self.version = version

    def bump(self, by: int = 1) -> int:
        self.version += by
        return self.version

    def __repr__(self) -> str:
        return f"VersionCounter({self.version})"


INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
    "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 "
    "for more details.")
INFERENCE_VERSION = "Inference tensors do not track version counter."


class InferenceCounter(VersionCounter):
    """The counter of an inference tensor: stays at 0, refuses bumps outside inference mode.

    ``version`` stays readable (0) for the library's own bookkeeping (viz, hooks);
    the public ``Tensor._version`` refuses, with PyTorch's text.
    """

    __slots__ = ()

    inference = True
    counted = False

    def bump(self, by: int = 1) -> int:
        from .autograd.grad_mode import state

        if not state.inference and by > 0:
            from .errors import InferenceTensorError

            raise InferenceTensorError(INFERENCE_INPLACE, kind="inplace")
        return 0

    def __repr__(self) -> str:
        return "InferenceCounter()"


class DetachedInferenceCounter(VersionCounter):
    """``detach()`` or ``.data`` of an inference tensor outside ``inference_mode()``: PyTorch
    gives that alias a version counter of its own (readable, bumped by the in-place writes it
    then allows, which the inference tensor sees in its memory), and it stays an inference
    tensor (``is_inference()``, no ``requires_grad``; its views have no counter)."""

    __slots__ = ()

    inference = True

    def bump(self, by: int = 1) -> int:
        from .autograd.grad_mode import state

        if state.inference:  # inside the mode an inference tensor's writes bump nothing
            return self.version
        self.version += by
        return self.version

    def __repr__(self) -> str:
        return f"DetachedInferenceCounter({self.version})"


def alias_counter(vc) -> VersionCounter:
    """The counter of a ``detach()``/``.data`` alias of a tensor whose counter is ``vc``."""
    from .autograd.grad_mode import state

    if not vc.inference:
        return vc
    return InferenceCounter() if state.inference else DetachedInferenceCounter()


def new_counter() -> VersionCounter:
    """The counter for a brand-new tensor: an inference one inside ``inference_mode()``."""
    from .autograd.grad_mode import state

    return InferenceCounter() if state.inference else VersionCounter()


def refuse_version(t) -> None:
    from .errors import InferenceTensorError

    raise InferenceTensorError(INFERENCE_VERSION, kind="version", tensor=t)


def refuse_requires_grad(t) -> None:
    from .errors import InferenceTensorError

    raise InferenceTensorError(
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
        kind="requires_grad", tensor=t)
