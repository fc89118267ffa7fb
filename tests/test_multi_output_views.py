"""``split``, ``chunk``, ``split_with_sizes`` and ``unbind``: views that are the outputs of one
node, as PyTorch makes them, checked against PyTorch (names, output numbers, gradients, double
backward, and the refusal of in-place changes to such views)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from torch_oracle import import_torch

torch = import_torch()

VALUES = np.arange(24, dtype=np.float32).reshape(4, 6) / 7 - 1

CUTS: dict[str, Callable[[Any], tuple]] = {
    "split": lambda x: x.split(2),
    "split_uneven": lambda x: x.split(4, 1),
    "split_sizes": lambda x: x.split([1, 2, 1]),
    "split_with_sizes": lambda x: x.split_with_sizes([3, 3], 1),
    "chunk": lambda x: x.chunk(3, 1),
    "chunk_negative_dim": lambda x: x.chunk(2, -1),
    "unbind": lambda x: x.unbind(0),
    "unbind_last": lambda x: x.unbind(-1),
}


def both(values: np.ndarray = VALUES, requires_grad: bool = True) -> tuple[Any, Any]:
    return (minitorch.tensor(values, requires_grad=requires_grad), torch.tensor(values, requires_grad=requires_grad))


def message(action: Callable[[], Any]) -> str:
    with pytest.raises(RuntimeError) as caught:
        action()
    return str(caught.value)


@pytest.mark.parametrize("cut", CUTS)
def test_pieces_are_views_of_the_input_with_one_node(cut: str) -> None:
    ours_in, theirs_in = both()
    ours, theirs = CUTS[cut](ours_in), CUTS[cut](theirs_in)
    assert len(ours) == len(theirs)
    for index, (mine, reference) in enumerate(zip(ours, theirs)):
        assert mine.shape == reference.shape and mine.stride() == reference.stride()
        assert mine.storage_offset() == reference.storage_offset()
        np.testing.assert_array_equal(mine.detach().numpy(), reference.detach().numpy())
        assert mine._base is ours_in and reference._base is theirs_in
        assert mine.grad_fn.name() == reference.grad_fn.name()
        assert mine.output_nr == reference.output_nr == index
        assert mine.grad_fn is ours[0].grad_fn  # one node for all the pieces
    assert ours[0].grad_fn.next_functions[0][0] is ours_in.grad_fn or ours_in.is_leaf


@pytest.mark.parametrize("cut", CUTS)
def test_gradient_reaches_only_the_pieces_used(cut: str) -> None:
    ours_in, theirs_in = both()
    for x, library in ((ours_in, minitorch), (theirs_in, torch)):
        pieces = CUTS[cut](x * 2)  # a non-leaf input, as in a model
        used = pieces[1:] if len(pieces) > 1 else pieces  # the first piece gets no gradient
        loss = sum(((i + 1) * p * p).sum() for i, p in enumerate(used))
        loss.backward()
    np.testing.assert_allclose(ours_in.grad.numpy(), theirs_in.grad.numpy(), rtol=1e-6)


def test_second_derivative_through_split_matches_pytorch() -> None:
    ours_in, theirs_in = both()
    grads = []
    for x, library in ((ours_in, minitorch), (theirs_in, torch)):
        a, b, c = x.split([1, 2, 1])
        y = (a.sin() * 3).sum() + (b ** 3).sum()  # c unused: its gradient is zeros
        (g,) = library.autograd.grad(y, x, create_graph=True)
        (gg,) = library.autograd.grad((g * g).sum(), x)
        grads.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-5, atol=1e-6)


def test_second_derivative_through_unbind_matches_pytorch() -> None:
    ours_in, theirs_in = both()
    results = []
    for x, library in ((ours_in, minitorch), (theirs_in, torch)):
        rows = x.unbind(1)
        y = sum((rows[i] ** (i + 1)).sum() for i in (0, 2, 5))
        (g,) = library.autograd.grad(y, x, create_graph=True)
        (gg,) = library.autograd.grad(g.pow(2).sum(), x)
        results.append(gg.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-6)


def test_iteration_unbinds_as_pytorch() -> None:
    ours_in, theirs_in = both()
    ours, theirs = list(ours_in), list(theirs_in)
    assert [r.grad_fn.name() for r in ours] == [r.grad_fn.name() for r in theirs] == ["UnbindBackward0"] * 4
    assert [r.output_nr for r in ours] == [r.output_nr for r in theirs]


# ---- in-place changes: PyTorch refuses them where the one node could not account for them ----

REFUSED: dict[str, Callable[[Any, Any], Any]] = {
    "add_ on a split piece": lambda x, w: x.split([1, 2, 1])[2].add_(1),
    "mul_ on an unbound row": lambda x, w: x.unbind(1)[3].mul_(2),
    "add_ on a slice of a chunk": lambda x, w: x.chunk(2)[1][:, 1:].add_(1),
    "add_ on a view of a chunk": lambda x, w: x.chunk(2)[1].view(-1).add_(1),
    "zero_": lambda x, w: x.split(2)[0].zero_(),
    "fill_": lambda x, w: x.split(2)[0].fill_(2),
    "clamp_": lambda x, w: x.split(2)[0].clamp_(0, 1),
    "relu_": lambda x, w: x.split(2)[1].relu_(),
    "copy_": lambda x, w: x.split(2)[1].copy_(w.expand(2, 6).detach()),
    "augmented assignment": lambda x, w: x.unbind(0)[2].__imul__(3),
}


@pytest.mark.parametrize("action", REFUSED)
def test_inplace_on_a_piece_that_requires_grad_is_refused(action: str) -> None:
    ours_in, theirs_in = both()
    ours = message(lambda: REFUSED[action](ours_in * 1, minitorch.ones(6, requires_grad=True)))
    theirs = message(lambda: REFUSED[action](theirs_in * 1, torch.ones(6, requires_grad=True)))
    assert ours == theirs


def test_inplace_on_a_piece_of_a_leaf_names_the_multi_output_view_first() -> None:
    ours_in, theirs_in = both()
    assert message(lambda: ours_in.split(2)[0].add_(1)) == message(lambda: theirs_in.split(2)[0].add_(1))


@pytest.mark.parametrize("write", ["mul_", "copy_"])
def test_piece_of_a_tensor_without_grad_written_with_one_that_requires_grad(write: str) -> None:
    ours_in, theirs_in = both(requires_grad=False)
    texts = []
    for x, library in ((ours_in, minitorch), (theirs_in, torch)):
        piece = x.split(2)[1]
        weight = library.ones(2, 6, requires_grad=True)
        texts.append(message(lambda: getattr(piece, write)(weight)))
    assert texts[0] == texts[1]


def test_allowed_writes_match_pytorch() -> None:
    for library in (minitorch, torch):
        plain = library.tensor(VALUES)
        piece = plain.split(2)[0]
        piece.add_(1)  # nothing requires grad: a plain write into the storage
        assert float(plain[0, 0]) == pytest.approx(VALUES[0, 0] + 1)
        x = library.tensor(VALUES, requires_grad=True) * 1
        x.chunk(2)[0].detach().add_(1)  # detached: no view any more
        with library.no_grad():
            x.unbind(0)[1].mul_(0)  # grad mode off: not recorded, allowed
        assert float(x[1].detach().abs().sum()) == 0.0


def test_split_of_integers_and_empty_dims() -> None:
    values = np.arange(10, dtype=np.int64).reshape(2, 5)
    ours, theirs = minitorch.tensor(values).split(2, 1), torch.tensor(values).split(2, 1)
    assert [p.tolist() for p in ours] == [p.tolist() for p in theirs]
    assert all(p.grad_fn is None for p in ours)
    empty = np.zeros((3, 0), np.float32)
    assert [tuple(p.shape) for p in minitorch.tensor(empty, requires_grad=True).unbind(1)] == []
    assert [tuple(p.shape) for p in minitorch.tensor(empty).split(2, 0)] == [
        tuple(p.shape) for p in torch.tensor(empty).split(2, 0)]
