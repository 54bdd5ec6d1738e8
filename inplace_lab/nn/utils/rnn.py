"""``torch.nn.utils.rnn``: variable-length batches, packed and padded, as PyTorch 2.13 does.

A ``PackedSequence`` keeps only the valid steps of a batch, time-major: ``data[k]`` walks step
0 of every sequence, then step 1 of those still running, and so on; ``batch_sizes[t]`` says how
many sequences are still running at step ``t`` (a CPU int64 tensor). Sequences are packed
longest first; ``sorted_indices`` remembers the sort, ``unsorted_indices`` undoes it.

The graph is torch's: ``pad_sequence`` fills a tensor then ``copy_``s each sequence into a
slice (CopySlices, one version bump each); ``pack_padded_sequence`` is one table op
(PackPaddedSequenceBackward0), after an ``index_select`` when it sorts; ``pad_packed_sequence``
is again fill-and-copy (then TransposeBackward0 for ``batch_first``, IndexSelectBackward0 to
unsort); ``unpad_sequence`` takes boolean-mask rows (IndexBackward0).

>>> a, b = torch.ones(3, 2), torch.ones(1, 2)
>>> p = pack_sequence([a, b]); p.batch_sizes
tensor([2, 1, 1])
"""
from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import NamedTuple, Optional

from ... import creation
from ...ops import dispatch
from ...ops import nn_packing  # noqa: F401  (registers _pack_padded_sequence)
from ...ops.table import OPS
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


def _int64(values, ref=None, device=None):
    """A CPU (or ``device``) int64 tensor of ``values`` that prints as ``ref``'s facade."""
    import inplace_lab as il

    t = creation.tensor(list(values), dtype=il.int64, device=device)
    if ref is not None:
        t._policy = ref._policy
    return t


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


def bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``; every RNN module takes one.

    Made by :func:`pack_padded_sequence` / :func:`pack_sequence`, not by hand. ``batch_sizes``
    always stays on the CPU; the index tensors follow ``data``'s device.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(
            data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """``data.to(...)``; the index tensors follow its device. ``self`` if nothing changed."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = kwargs.get("non_blocking", False)
        call_to = lambda t: t.to(data.device, non_blocking=non_blocking)  # noqa: E731
        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to),
                          bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        ex = creation.tensor([], dtype=self.data.dtype, device=self.data.device).to(*args,
                                                                                  **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        ex = creation.tensor([], dtype=self.data.dtype, device=self.data.device).to(*args,
                                                                                  **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def _cast(self, name):
        import inplace_lab as il

        return self.to(dtype=getattr(il, name))

    def double(self):
        return self._cast("float64")

    def float(self):
        return self._cast("float32")

    def half(self):
        return self._cast("float16")

    def long(self):
        return self._cast("int64")

    def int(self):
        return self._cast("int32")

    def short(self):
        return self._cast("int16")

    def char(self):
        return self._cast("int8")

    def byte(self):
        return self._cast("uint8")

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None,
                               unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    return PackedSequence(*_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                      unsorted_indices))


def invert_permutation(permutation):
    """The inverse of a 1-D permutation (``empty_like`` then ``scatter_``, as torch)."""
    if permutation is None:
        return None
    import inplace_lab as il

    output = creation.empty_like(permutation)
    output.scatter_(0, permutation, il.arange(0, permutation.numel(), device=permutation.device))
    return output


def _lengths_list(lengths):
    """ATen's checkLongTensor: 'lengths' must be a 1-D CPU int64 tensor."""
    if lengths.dim() != 1 or lengths.device.type != "cpu" or _scalar_type(lengths) != "Long":
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D {lengths.device} {_scalar_type(lengths)} tensor")
    return [int(v) for v in lengths.tolist()]


def _scalar_type(t):
    name = str(t.dtype).split(".")[-1]
    return {"float32": "Float", "float64": "Double", "int32": "Int", "int64": "Long",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
            "float16": "Half"}.get(name, name)


def _batch_sizes(input, lens, batch_first):
    """ATen's checks on ``lengths`` and the batch size of every step."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = (input.transpose(0, 1) if batch_first else input).size(1)  # (torch's IndexError)
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={batch})")
    if lens[batch - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(lens[i + 1] > lens[i] for i in range(batch - 1)):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    # step t keeps the sequences longer than t; ATen lists every step up to the longest
    # length, but its slices of the input stop at the padded length (so may the data)
    return [sum(1 for n in lens if n > t) for t in range(lens[0])]


def pack_padded_sequence(input, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded ``T x B x *`` (``B x T x *`` with ``batch_first``) batch.

    ``lengths``: a list or a CPU tensor, longest first unless ``enforce_sorted=False`` (then
    the batch is sorted here and ``sorted_indices`` remembers how)."""
    import inplace_lab as il

    if not isinstance(lengths, Tensor):
        lengths = creation.tensor(lengths if isinstance(lengths, int) else list(lengths),
                                  dtype=il.int64)  # (torch.as_tensor: a bare int is 0-D)
    else:
        lengths = lengths.to(dtype=il.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = il.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        sorted_indices._policy = input._policy
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    lens = _lengths_list(lengths)
    sizes = _batch_sizes(input, lens, batch_first)
    steps = input.shape[1 if batch_first else 0]
    data = dispatch.call(OPS["_pack_padded_sequence"], (input,),
                         {"batch_sizes": tuple(sizes[:steps]), "batch_first": bool(batch_first)})
    batch_sizes = _int64(sizes, input)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length, ref):
    """ATen's ``_pad_packed_sequence``: a filled ``[T, B, *]`` tensor, one ``copy_`` per run
    of equal batch sizes, then lengths (and the transpose for ``batch_first``)."""
    import inplace_lab as il

    bs = _lengths_list(batch_sizes)
    max_batch, max_real = bs[0], len(bs)
    length = max(max_real, total_length)
    out = il.full((length, max_batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                  device=data.device)
    out._policy = data._policy
    out._vc.bump(1)  # (ATen's at::full is empty + fill_: one write the Python factory hides)
    lengths = [0] * max_batch
    offset, prev_b, prev_i = 0, max_batch, 0
    for i in range(max_real + 1):
        b = bs[i] if i != max_real else 0
        if b != prev_b:
            n = prev_b * (i - prev_i)
            tmp = data.narrow(0, offset, n).view((i - prev_i, prev_b) + tuple(data.shape[1:]))
            out.narrow(0, prev_i, i - prev_i).narrow(1, 0, prev_b).copy_(tmp)
            offset += n
            prev_i = i
        for j in range(b, prev_b):
            lengths[j] = i
        prev_b = b
    if batch_first:
        out = out.transpose(0, 1)
    return out, _int64(lengths, ref)


def pad_packed_sequence(sequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length=None):
    """Undo :func:`pack_padded_sequence`: ``(padded, lengths)`` in the original batch order."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             "sequence in input, but got "
                             f"total_length={total_length} and max sequence length being "
                             f"{max_seq_length}")
        max_seq_length = total_length
        try:
            max_seq_length = operator.index(total_length)
        except TypeError:
            raise TypeError("_pad_packed_sequence(): argument 'total_length' (position 5) must "
                            f"be int, not {type(total_length).__name__}") from None
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first,
                                         padding_value, max_seq_length, sequence.batch_sizes)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (padded_output.index_select(batch_dim, unsorted_indices),
                lengths[unsorted_indices.cpu()])
    return padded_output, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right"):
    """Stack variable-length ``L x *`` tensors into ``T x B x *`` (``B x T x *``), padded."""
    import inplace_lab as il

    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    max_len = max(s.shape[0] for s in sequences)
    n = len(sequences)
    dims = (n, max_len) if batch_first else (max_len, n)
    out = il.full(dims + tuple(first.shape[1:]), padding_value, dtype=first.dtype,
                  device=first.device)
    out._policy = first._policy
    out._vc.bump(1)  # (ATen's at::full is empty + fill_: one write the Python factory hides)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    for i, seq in enumerate(sequences):
        length = seq.shape[0]
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False):
    """The list of unpadded sequences (note: transposes ``padded_sequences`` in place unless
    ``batch_first``, as torch does)."""
    import inplace_lab as il

    out = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = il.arange(max_length, device=lengths.device)
    if len(padded_sequences) != len(lengths):
        raise ValueError("zip() argument 2 is " + ("shorter" if len(lengths) <
                         len(padded_sequences) else "longer") + " than argument 1")
    for seq, length in zip(padded_sequences, lengths):
        mask = idx < length
        out.append(seq[mask])
    return out


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    import inplace_lab as il

    lengths = creation.tensor([v.size(0) for v in sequences], dtype=il.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a :class:`PackedSequence` holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
