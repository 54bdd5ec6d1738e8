"""What a batch is, as Paddle 3.3.1 makes it (``paddle.io.dataloader.collate`` there).

* ``default_collate_fn`` stacks numpy arrays with ``np.stack`` and numbers with
  ``np.array`` (ints -> int64, Python floats -> float64, ``np.float32`` stays float32),
  stacks ``paddle.Tensor`` samples with ``paddle.stack``, keeps strings as lists, and
  recurses into dicts and sequences: an ``(image, label)`` sample gives ``[images, labels]``
  with labels of shape ``[batch]`` (not ``[batch, 1]``).
* ``to_tensors`` is what Paddle's blocking queue hands back: every array and tensor of the
  batch as a NEW ``paddle.Tensor`` (``stop_gradient=True``, own storage), tuples as LISTS,
  dicts as dicts, strings and numbers as they were.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np


def _tensor_types():
    from ...tensor import Tensor

    return Tensor


def default_collate_fn(batch):
    """Stack a list of samples field by field (numpy arrays out, tensors stacked)."""
    from ... import stack

    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return np.stack(batch, axis=0)
    if isinstance(sample, _tensor_types()):
        return stack(batch, axis=0)
    if isinstance(sample, numbers.Number):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return batch
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([d[key] for d in batch]) for key in sample}
    if isinstance(sample, Sequence):
        if not all(len(s) == len(sample) for s in batch):
            raise RuntimeError("fields number not same among samples in a batch")
        return [default_collate_fn(fields) for fields in zip(*batch)]
    raise TypeError("batch data con only contains: tensor, numpy.ndarray, "
                    f"dict, list, number, but got {type(sample)}")


def default_convert_fn(batch):
    """``batch_size=None``: one sample, its sequences as lists, nothing stacked."""
    if isinstance(batch, (_tensor_types(), np.ndarray, str, bytes)):
        return batch
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(batch[key]) for key in batch}
    if isinstance(batch, Sequence):
        return [default_convert_fn(d) for d in batch]
    return batch


def to_tensors(batch):
    """What Paddle's blocking queue hands back: fresh tensors, sequences as lists."""
    from ... import to_tensor

    if isinstance(batch, np.ndarray):
        return to_tensor(batch)
    if isinstance(batch, _tensor_types()):
        return to_tensor(batch.numpy())
    if isinstance(batch, (str, bytes, numbers.Number)):
        return batch
    if isinstance(batch, Mapping):
        return {k: to_tensors(v) for k, v in batch.items()}
    if isinstance(batch, Sequence):
        return [to_tensors(v) for v in batch]
    return batch
