"""``torch.compile``, run eagerly: the answer torch's ``backend="eager"`` gives.

inplace_lab exists to show what each op does to memory, so nothing is fused or traced: a
compiled function is the function (its name kept), a compiled module is torch's
``OptimizedModule`` wrapper around it (``_orig_mod``, state_dict keys ``_orig_mod.*``, the
same parameters, attribute look-ups passed through), so code written for ``torch.compile``
runs and prints as in torch, with the same values.
"""
from __future__ import annotations

import functools

from inplace_lab.nn.module import Module


class OptimizedModule(Module):
    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    if model is None:
        def fn(model):
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, disable=disable)
        return fn
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)
    if not callable(model):
        raise RuntimeError("torch.compile: model must be callable")

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)

    return compiled
