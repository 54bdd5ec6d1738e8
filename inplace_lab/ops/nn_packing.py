"""``_pack_padded_sequence`` (PackPaddedSequenceBackward0): a padded ``[T, B, *]`` batch, its
valid steps only, time-major, in one ``[sum(lengths), *]`` tensor.

The batch sizes per step are worked out by the caller (``nn.utils.rnn``, where ATen's checks
on ``lengths`` live) and handed in as a tuple: step ``t`` keeps the first ``batch_sizes[t]``
sequences (they are sorted longest first). The backward is ATen's: a zeroed gradient of the
input's shape, one ``copy_`` of each step's rows into it, so it arrives with ``_version``
``1 + T`` (zeros is one write, as ATen's ``at::zeros``), transposed back for ``batch_first``.

>>> x = torch.arange(6.).view(3, 2)                       # T=3, B=2
>>> torch.nn.utils.rnn.pack_padded_sequence(x, [3, 1]).data
tensor([0., 1., 2., 4.])
"""
from __future__ import annotations

from .table import OpSpec, register


def _pack_rule(spec, ins, params):
    return ins[0]._dtype


def _pack_fwd(xp, x, out=None, dt=None, batch_sizes=(), batch_first=False):
    if batch_first:
        x = x.swapaxes(0, 1)
    steps = [x[t, :b] for t, b in enumerate(batch_sizes)]
    return xp.ascontiguousarray(xp.concatenate(steps, 0)).astype(dt.np, copy=False)


def _pack_bw(c, g):
    from .. import creation
    from ..autograd import grad_mode

    shape, dtype, device = c.input_meta[0]
    bs, first = c["batch_sizes"], c["batch_first"]
    size = list(shape)
    if first:
        size[0], size[1] = size[1], size[0]
    gi = creation.zeros(tuple(size), dtype=g.dtype, device=g.device)
    gi._policy = g._policy
    off = 0
    for t, b in enumerate(bs):
        gi[t].narrow(0, 0, b).copy_(g.narrow(0, off, b))
        off += b
    if not grad_mode.state.enabled:
        gi._vc.bump(1)  # (ATen's at::zeros writes once: the gradient arrives at version 1 + T)
    return (gi.transpose(0, 1) if first else gi,)


register(OpSpec(name="_pack_padded_sequence", forward=_pack_fwd, backward=_pack_bw,
                params={"batch_sizes": (), "batch_first": False}, dtype_rule=_pack_rule,
                method=False, function=False, out=False, node_name="PackPaddedSequenceBackward0",
                doc="_pack_padded_sequence(input, batch_sizes, batch_first): the valid steps "
                    "of a sorted padded batch, time-major; saves nothing."))
