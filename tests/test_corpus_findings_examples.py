"""What the image-model example scripts of the corpus found (fast style transfer, sub-pixel
super-resolution, siamese and forward-forward networks), each checked against PyTorch.

* ``Tensor.repeat`` returned a view when the tiling could be expressed as strides (a leading
  repetition of a size-1 dimension, or no repetition at all): an in-place op on the result
  (the style script's ``style.repeat(b, 1, 1, 1)`` then ``batch.div_(255)``) divided every
  copy and the original, several times over. PyTorch's ``repeat`` always copies; its node is
  ``RepeatBackward0``.
* ``F.pixel_shuffle`` / ``pixel_unshuffle`` / ``channel_shuffle`` printed their ``grad_fn`` as
  ``ViewBackward0`` (PyTorch: ``PixelShuffleBackward0`` ...) and with a factor of 1 returned a
  view of their input.
* ``torch.load`` refusing a whole model under ``weights_only=True`` raised a plain
  ``SerializationError``; PyTorch raises ``pickle.UnpicklingError``, and programs catch and print
  it by that name.
"""

from __future__ import annotations

import io
import pickle
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest
from torch_oracle import import_torch

import minitorch

torch = import_torch()

Repeat = Callable[[Any], Any]

REPEATS: dict[str, tuple[tuple[int, ...], Repeat]] = {
    "leading_new_dim": ((2, 3), lambda t: t.repeat(2, 1, 1)),
    "size_one_dim": ((1, 3), lambda t: t.repeat(4, 1)),
    "no_repetition": ((2, 3), lambda t: t.repeat(1, 1)),
    "both_dims": ((2, 3), lambda t: t.repeat(2, 3)),
    "transposed_input": ((3, 2), lambda t: t.t().repeat(1, 2)),
    "tile": ((1, 3), lambda t: t.tile((3, 1))),
}


def _source(lib: ModuleType, shape: tuple[int, ...]) -> Any:
    count = int(np.prod(shape))
    return lib.arange(1.0, count + 1, dtype=lib.float64).reshape(shape)


@pytest.mark.parametrize("name", sorted(REPEATS))
def test_repeat_is_a_copy_an_in_place_op_changes_only_the_result(name: str) -> None:
    shape, op = REPEATS[name]

    def run(lib: ModuleType) -> tuple[list, list, tuple]:
        source = _source(lib, shape)
        tiled = op(source)
        tiled.div_(10.0)
        tiled[0].mul_(-1)
        return source.tolist(), tiled.tolist(), tuple(tiled.stride())

    assert run(minitorch) == run(torch)


@pytest.mark.parametrize("name", sorted(REPEATS))
def test_repeat_records_one_node_and_sums_the_gradient_of_each_copy(name: str) -> None:
    shape, op = REPEATS[name]

    def run(lib: ModuleType) -> tuple[str, list]:
        source = _source(lib, shape).requires_grad_()
        tiled = op(source)
        weights = lib.arange(float(tiled.numel()), dtype=lib.float64).reshape(tiled.shape)
        (tiled * weights).sum().backward()
        return type(tiled.grad_fn).__name__, source.grad.tolist()

    assert run(minitorch) == run(torch)


def test_repeat_of_a_normalised_batch_divides_once() -> None:
    """The style script's pattern: a repeated image normalised in place by ``div_``."""

    def run(lib: ModuleType) -> list:
        style = lib.full((1, 3, 2, 2), 255.0, dtype=lib.float64)
        batch = style.repeat(2, 1, 1, 1)
        batch.div_(255.0)
        return [batch.max().item(), style.max().item()]

    assert run(minitorch) == run(torch) == [1.0, 255.0]


SHUFFLES: dict[str, Callable[[ModuleType, Any], Any]] = {
    "pixel_shuffle": lambda lib, x: lib.nn.functional.pixel_shuffle(x, 2),
    "pixel_shuffle_factor_one": lambda lib, x: lib.nn.PixelShuffle(1)(x),
    "pixel_unshuffle": lambda lib, x: lib.nn.functional.pixel_unshuffle(x, 2),
    "channel_shuffle": lambda lib, x: lib.nn.functional.channel_shuffle(x, 2),
    "channel_shuffle_module": lambda lib, x: lib.nn.ChannelShuffle(4)(x),
}


@pytest.mark.parametrize("name", sorted(SHUFFLES))
def test_shuffles_are_one_node_with_torch_names_and_gradients(name: str) -> None:
    op = SHUFFLES[name]

    def run(lib: ModuleType) -> tuple[str, list, list, tuple, list]:
        x = lib.arange(64.0, dtype=lib.float64).reshape(1, 4, 4, 4).requires_grad_()
        out = op(lib, x)
        weights = lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape)
        (out * weights).sum().backward()
        values = out.detach().tolist()
        out.detach().zero_()  # a copy: the input keeps its values
        return type(out.grad_fn).__name__, values, x.grad.tolist(), tuple(out.stride()), x.detach().sum().tolist()

    assert run(minitorch) == run(torch)


class _Tiny(minitorch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = minitorch.nn.Linear(2, 1)


class _TorchTiny(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(2, 1)


def test_weights_only_refusal_is_an_unpickling_error_as_in_torch() -> None:
    def refusal(lib: ModuleType, model: Any) -> BaseException:
        buffer = io.BytesIO()
        lib.save(model, buffer)
        buffer.seek(0)
        with pytest.raises(Exception) as caught:
            lib.load(buffer)
        return caught.value

    ours, theirs = refusal(minitorch, _Tiny()), refusal(torch, _TorchTiny())
    assert type(ours).__name__ == type(theirs).__name__ == "UnpicklingError"
    assert isinstance(ours, pickle.UnpicklingError) and isinstance(theirs, pickle.UnpicklingError)
    assert isinstance(ours, minitorch.serialization.SerializationError) and isinstance(ours, RuntimeError)
    assert "Weights only load failed" in str(ours) and "Weights only load failed" in str(theirs)


def test_weights_only_refusal_lifted_by_the_allowlist() -> None:
    buffer = io.BytesIO()
    minitorch.save(_Tiny(), buffer)
    buffer.seek(0)
    with minitorch.serialization.safe_globals([_Tiny, minitorch.nn.Linear]):
        loaded = minitorch.load(buffer)
    assert type(loaded) is _Tiny and loaded.layer.weight.shape == (1, 2)
