"""int8 and int16 against torch 2.13: arithmetic that wraps as C does, promotion with the other
dtypes, reductions, conversions, their names, and checkpoints that keep them."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import minitorch

SMALL = ["int8", "int16"]
BINARY = ["add", "sub", "mul", "floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
          "eq", "lt", "ge", "maximum", "minimum"]
MIXED = ["add", "mul", "lt"]


def data(name: str, seed: int) -> np.ndarray:
    info = np.iinfo(name)
    values = np.random.default_rng(seed).integers(info.min, info.max, size=(3, 4), endpoint=True)
    values[values == 0] = 1  # divisors
    return values.astype(name)


def pair(torch: ModuleType, array: np.ndarray) -> tuple[minitorch.Tensor, "object"]:
    return minitorch.tensor(array), torch.tensor(array)


def same(ours: minitorch.Tensor, theirs: "object") -> None:
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", BINARY)
def test_binary_ops_wrap_and_promote_as_torch(torch_ref: ModuleType, name: str, op: str) -> None:
    (a, ta), (b, tb) = pair(torch_ref, data(name, 1)), pair(torch_ref, data(name, 2))
    same(getattr(minitorch, op)(a, b), getattr(torch_ref, op)(ta, tb))
    if op not in MIXED:
        return
    for other in ("uint8", "int32", "float32"):  # mixed dtypes: the promotion, on a few ops (each compiles)
        (c, tc) = pair(torch_ref, data(other, 3) if other != "float32" else np.linspace(-3, 3, 12).reshape(3, 4).astype(other))
        same(getattr(minitorch, op)(a, c), getattr(torch_ref, op)(ta, tc))


@pytest.mark.parametrize("name", SMALL)
def test_unary_reductions_and_conversions(torch_ref: ModuleType, name: str) -> None:
    a, ta = pair(torch_ref, data(name, 4))
    for ours, theirs in [
        (-a, -ta), (a.abs(), ta.abs()), (~a, ~ta), (a << 1, ta << 1), (a >> 2, ta >> 2),
        (a.sum(), ta.sum()), (a.sum(1), ta.sum(1)), (a.prod(0), ta.prod(0)), (a.cumsum(1), ta.cumsum(1)),
        (a.max(), ta.max()), (a.argmin(1), ta.argmin(1)), (a.sort(1).values, ta.sort(1).values),
        (a.float(), ta.float()), (a.double().char(), ta.double().char()), (a.short(), ta.short()),
        (a * 2.5, ta * 2.5), (a + 1, ta + 1), (a // 3, ta // 3),
    ]:
        same(ours, theirs)
    assert repr(a).endswith(f"dtype=minitorch.{name})")
    assert minitorch.iinfo(a.dtype).max == torch_ref.iinfo(ta.dtype).max


def test_names_and_legacy_types(torch_ref: ModuleType) -> None:
    assert minitorch.short is minitorch.int16 and torch_ref.short is torch_ref.int16
    assert minitorch.CharTensor([1, 2]).dtype is minitorch.int8
    assert minitorch.ShortTensor([1, 2]).dtype is minitorch.int16
    assert minitorch.zeros(2, dtype=minitorch.int8).type() == torch_ref.zeros(2, dtype=torch_ref.int8).type()


@pytest.mark.parametrize("name", SMALL)
def test_checkpoints_keep_the_dtype(torch_ref: ModuleType, name: str, tmp_path: Path) -> None:
    a = minitorch.tensor(data(name, 5))
    minitorch.save({"a": a}, tmp_path / "a.pt")
    loaded = minitorch.load(tmp_path / "a.pt")["a"]
    assert loaded.dtype is a.dtype and minitorch.equal(loaded, a)
    minitorch.save_safetensors({"a": a}, tmp_path / "a.safetensors")
    again = minitorch.load_safetensors(tmp_path / "a.safetensors")["a"]
    assert again.dtype is a.dtype and minitorch.equal(again, a)
