"""``finfo`` and ``iinfo`` against PyTorch: every attribute and the repr, for each dtype."""

from __future__ import annotations

from types import ModuleType

import pytest

import minitorch

FLOATS = ["float16", "float32", "float64"]
INTS = ["uint8", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS + [None])
def test_finfo_matches_torch(torch_ref: ModuleType, name: str) -> None:
    ours = minitorch.finfo(getattr(minitorch, name)) if name else minitorch.finfo()
    theirs = torch_ref.finfo(getattr(torch_ref, name)) if name else torch_ref.finfo()
    for attribute in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_torch(torch_ref: ModuleType, name: str) -> None:
    ours, theirs = minitorch.iinfo(getattr(minitorch, name)), torch_ref.iinfo(getattr(torch_ref, name))
    assert (ours.bits, ours.max, ours.min, ours.dtype) == (theirs.bits, theirs.max, theirs.min, theirs.dtype)
    assert repr(ours) == repr(theirs)


def test_wrong_kind_raises_torch_message(torch_ref: ModuleType) -> None:
    for ours, theirs in ((lambda: minitorch.finfo(minitorch.int64), lambda: torch_ref.finfo(torch_ref.int64)),
                         (lambda: minitorch.iinfo(minitorch.float32), lambda: torch_ref.iinfo(torch_ref.float32))):
        with pytest.raises(TypeError) as mine:
            ours()
        with pytest.raises(TypeError) as ref:
            theirs()
        assert str(mine.value) == str(ref.value)
