r"""``nn.utils.rnn``: batches of sequences of different lengths, padded or packed.

A batch of ``B`` sequences of lengths :math:`L_1 \ge L_2 \ge \dots` is *padded* into one
``(T, B, *)`` tensor (``T`` the longest length), or *packed* time step by time step: the
rows of step ``t`` are those of the ``batch_sizes[t]`` sequences still running, longest
first. Packing keeps only real elements, so a recurrent layer spends no work on padding.

Every conversion here is one ``index_select`` of rows (an index computed on the host from
the lengths), so gradients flow back to exactly the elements that were read.
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple, Optional, Sequence, Union

import numpy as np

from ... import creation, dtypes
from ...tensor import Tensor
from ..functional import index_select

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence",
    "pad_sequence", "unpack_sequence", "unpad_sequence",
]

PADDING_SIDES = ("left", "right")


class _PackedSequenceFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


class PackedSequence(_PackedSequenceFields):
    """The rows of a batch of sequences, time step by time step (what ``pack_padded_sequence`` returns).

    ``data`` holds ``sum(lengths)`` rows; ``batch_sizes[t]`` (int64, on the CPU) says how
    many sequences are still running at step ``t``; ``sorted_indices[j]`` is the batch
    position of the ``j``-th longest sequence and ``unsorted_indices`` its inverse (both
    ``None`` when the batch came sorted). Build one with :func:`pack_padded_sequence`, not
    by hand.
    """

    def __new__(cls, data: Any, batch_sizes: Optional[Tensor] = None, sorted_indices: Optional[Tensor] = None,
                unsorted_indices: Optional[Tensor] = None) -> "PackedSequence":
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PyTorch also accepts one (data, batch_sizes) pair
            data, batch_sizes = data
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence and pack_padded_sequences in "
                "nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """``data.to(...)``; the permutations follow the data's device, ``batch_sizes`` stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices, unsorted_indices = (
            None if index is None else index.to(data.device) for index in (self.sorted_indices, self.unsorted_indices)
        )
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self) -> "PackedSequence":
        return self.to("cpu")

    def cuda(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        return self.to(self.data.cuda(*args, **kwargs).device)

    def double(self) -> "PackedSequence":
        return self.to(dtypes.float64)

    def float(self) -> "PackedSequence":  # noqa: A003 - PyTorch's method name
        return self.to(dtypes.float32)

    def half(self) -> "PackedSequence":
        return self.to(dtypes.float16)

    def long(self) -> "PackedSequence":
        return self.to(dtypes.int64)

    def int(self) -> "PackedSequence":  # noqa: A003 - PyTorch's method name
        return self.to(dtypes.int32)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def invert_permutation(permutation: Optional[Tensor]) -> Optional[Tensor]:
    """The permutation that undoes ``permutation`` (``out[permutation[i]] = i``); ``None`` stays ``None``."""
    if permutation is None:
        return None
    order = np.asarray(permutation.tolist(), dtype=np.int64)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size, dtype=np.int64)
    return creation.tensor(inverse, dtype=dtypes.int64, device=permutation.device)


def _index(rows: np.ndarray, device: Any) -> Tensor:
    return creation.tensor(rows.reshape(-1), dtype=dtypes.int64, device=device)


def _rows_with_fill(rows: Sequence[Tensor], fill: Any) -> Tensor:
    """All ``rows`` stacked, then one extra row of ``fill`` (the row that padding positions read)."""
    first = rows[0]
    filler = creation.full((1, *first.shape[1:]), fill, dtype=first.dtype, device=first.device)
    return creation.cat([row.to(first.dtype) for row in rows] + [filler])


def _check_trailing_shapes(sequences: Sequence[Tensor]) -> None:
    """Every sequence must have the first one's trailing shape (PyTorch words it as a failed copy)."""
    expected = tuple(sequences[0].shape[1:])
    for seq in sequences[1:]:
        found = tuple(seq.shape[1:])
        if found == expected:
            continue
        if len(found) != len(expected):
            raise RuntimeError(
                f"pad_sequence: every sequence needs the trailing shape {list(expected)} of the first, "
                f"but one has trailing shape {list(found)}"
            )
        dim = next(d for d in range(len(expected)) if found[d] != expected[d])
        raise RuntimeError(
            f"The size of tensor a ({expected[dim]}) must match the size of tensor b ({found[dim]}) "
            f"at non-singleton dimension {dim + 1}"
        )


def pad_sequence(sequences: Union[Tensor, Iterable[Tensor]], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of shape ``(L_i, *)`` into ``(T, B, *)`` (or ``(B, T, *)``), filling with ``padding_value``.

    ``padding_side="left"`` puts the padding before each sequence instead of after it.
    """
    if padding_side not in PADDING_SIDES:
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if any(seq.dim() == 0 for seq in sequences):
        raise RuntimeError("pad_sequence: every sequence needs at least one dimension (its length), got a 0-d tensor")
    _check_trailing_shapes(sequences)
    lengths = np.array([seq.shape[0] for seq in sequences], dtype=np.int64)
    steps, batch = int(lengths.max()), len(sequences)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    fill_row = int(lengths.sum())
    # rows[t, b]: which row of the concatenated sequences lands at step t of sequence b
    step = np.arange(steps)[:, None]
    offset = step - (steps - lengths[None, :]) if padding_side == "left" else np.broadcast_to(step, (steps, batch))
    rows = np.where((offset >= 0) & (offset < lengths[None, :]), starts[None, :] + offset, fill_row)
    if batch_first:
        rows = rows.T
    source = _rows_with_fill(sequences, padding_value)
    out = index_select(source, 0, _index(rows, source.device))
    return out.view(*rows.shape, *sequences[0].shape[1:])


def unpad_sequence(padded_sequences: Tensor, lengths: Union[Tensor, Sequence[int]], batch_first: bool = False) -> list[Tensor]:
    """The inverse of :func:`pad_sequence` (right padding): the list of sequences, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[b, : int(length)] for b, length in enumerate(_as_list(lengths))]


def _as_list(lengths: Union[Tensor, Sequence[int]]) -> list[int]:
    return [int(n) for n in (lengths.tolist() if isinstance(lengths, Tensor) else lengths)]


def _lengths_array(lengths: Union[Tensor, Sequence[int]]) -> np.ndarray:
    """``lengths`` as int64 on the host; a tensor must be 1-D (PyTorch's rule and wording)."""
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1 or lengths.device.type != "cpu":
            raise RuntimeError(
                f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                f"{lengths.device.type} Long tensor"
            )
        return np.asarray(lengths.tolist()).astype(np.int64)
    array = np.asarray(lengths)
    if array.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {array.ndim}D cpu Long tensor")
    return array.astype(np.int64)


def _batch_sizes(sorted_lengths: np.ndarray) -> np.ndarray:
    """``batch_sizes[t]``: how many of the (descending) lengths exceed ``t``."""
    return (sorted_lengths[None, :] > np.arange(int(sorted_lengths[0]))[:, None]).sum(axis=1)


def pack_padded_sequence(input: Tensor, lengths: Union[Tensor, Sequence[int]], batch_first: bool = False,  # noqa: A002
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded ``(T, B, *)`` batch (``(B, T, *)`` with ``batch_first``) of sequences of ``lengths``.

    With ``enforce_sorted`` the lengths must come in decreasing order; otherwise the batch is
    sorted here (a stable sort) and ``sorted_indices`` remembers the order.
    """
    lengths = _lengths_array(lengths)
    if input.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{input.dim()}, {input.dim() - 1}], but got 1)")
    steps, batch = (input.shape[1], input.shape[0]) if batch_first else (input.shape[0], input.shape[1])
    if lengths.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.size} (batch_size={batch})")
    if enforce_sorted:
        if np.any(np.diff(lengths) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability."
            )
        order = np.arange(batch)
    else:
        order = np.argsort(-lengths, kind="stable")
    sorted_lengths = lengths[order]
    if sorted_lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    if sorted_lengths[0] > steps:
        raise RuntimeError(
            f"pack_padded_sequence: a sequence of length {sorted_lengths[0]} does not fit in the padded input's "
            f"{steps} time steps"
        )
    batch_sizes = _batch_sizes(sorted_lengths)
    # the j-th running sequence at step t is batch position order[j]; its row in the flattened input
    rows = np.concatenate([
        order[:size] * steps + t if batch_first else t * batch + order[:size] for t, size in enumerate(batch_sizes)
    ])
    flat = input.reshape(batch * steps, *input.shape[2:])
    data = index_select(flat, 0, _index(rows, input.device))
    sorted_indices = None if enforce_sorted else _index(order, input.device)
    return PackedSequence(data, _index(batch_sizes, "cpu"), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> tuple[Tensor, Tensor]:
    """Unpack into a padded ``(T, B, *)`` tensor (``(B, T, *)`` with ``batch_first``) in the original batch order.

    Returns the padded tensor and the lengths (int64, on the CPU). ``total_length`` pads to
    that many steps (at least the longest sequence), e.g. to undo a padding to a fixed size.
    """
    batch_sizes = np.asarray(sequence.batch_sizes.tolist(), dtype=np.int64)
    steps, batch = batch_sizes.size, int(batch_sizes[0])
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {steps}"
            )
        steps = total_length
    sorted_lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(axis=1)
    unsorted = np.arange(batch) if sequence.unsorted_indices is None else np.asarray(sequence.unsorted_indices.tolist())
    offsets = np.concatenate(([0], np.cumsum(batch_sizes)))
    data = sequence.data
    # rows[t, b]: the packed row of step t of (original) sequence b, or the fill row
    rank = unsorted[None, :]
    step = np.arange(steps)[:, None]
    running = step < sorted_lengths[rank]
    rows = np.where(running, offsets[np.minimum(step, batch_sizes.size - 1)] + rank, data.shape[0])
    if batch_first:
        rows = rows.T
    source = _rows_with_fill([data], padding_value)
    padded = index_select(source, 0, _index(rows, data.device)).view(*rows.shape, *data.shape[1:])
    return padded, _index(sorted_lengths[unsorted], "cpu")


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences of shape ``(L_i, *)``: :func:`pad_sequence`, then :func:`pack_padded_sequence`."""
    lengths = [seq.shape[0] for seq in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The inverse of :func:`pack_sequence`: the list of sequences, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
