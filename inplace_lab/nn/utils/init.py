"""``torch.nn.utils.skip_init``: build a module without running its parameter initialisation.

torch builds it on the ``meta`` device and then ``to_empty``s it, so the parameters hold
whatever memory they were given. There is no meta device here: the module is built on the
requested device, then every parameter and buffer is replaced in place by uninitialised
(``empty``) storage of its shape, which is what a caller of torch's may count on.
"""
from __future__ import annotations

import inspect

from ... import creation
from ...autograd import no_grad
from ..module import Module


def _signature_class(cls):
    """The class whose ``__init__`` declares the arguments (a torch facade class wraps the
    core class's ``__init__`` in ``(*args, **kwargs)``)."""
    for c in cls.__mro__:
        if "__init__" in c.__dict__ and not c.__dict__.get("_facade", False):
            return c
    return cls


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with its parameters left uninitialised."""
    if not isinstance(module_cls, type) or not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(_signature_class(module_cls)).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    module = module_cls(*args, **kwargs)
    with no_grad():
        for t in list(module.parameters()) + list(module.buffers()):
            t.data = creation.empty(tuple(t.shape), dtype=t.dtype, device=t.device)
    return module
