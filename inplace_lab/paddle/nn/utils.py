"""``paddle.nn.utils``: gradient clipping by norm or value (``clip.py``'s), and a model's
parameters as one vector and back.

>>> import inplace_lab.paddle as paddle
>>> lin = paddle.nn.Linear(2, 3)
>>> paddle.nn.utils.parameters_to_vector(lin.parameters()).shape
paddle.Size([9])
"""
from __future__ import annotations

from .clip import clip_grad_norm_, clip_grad_value_  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters"]


def parameters_to_vector(parameters, name=None):
    """The parameters' values flattened and concatenated: a new tensor that requires grad
    (``stop_gradient=False``) but has no history, as Paddle's (its concat runs under no_grad)."""
    from inplace_lab import autograd
    from .. import concat

    parameters = list(parameters)
    with autograd.no_grad():
        out = concat([p.reshape([-1]) for p in parameters], axis=0)
    out.stop_gradient = False
    return out


def vector_to_parameters(vec, parameters, name=None):
    """Each parameter takes its slice of ``vec`` (in order, in its own shape). Paddle makes the
    parameters share ``vec``'s buffer; here each gets a copy of its values (out of band, no
    version bump, as ``set_value``)."""
    parameters = list(parameters)
    sizes = [p.numel() for p in parameters]
    if sum(sizes) > vec.shape[0]:
        raise ValueError("The total_elements of vec should be equal to or larger than the "
                         "number of elements in parameters.")
    flat = vec.numpy().reshape(-1)
    start = 0
    for p, n in zip(parameters, sizes):
        p.set_value(flat[start:start + n].reshape(p.shape))
        start += n
