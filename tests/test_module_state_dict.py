"""Task 4.4: state_dict and load_state_dict, compared with PyTorch on the same module tree."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import nn
from test_module_traversal import build_tree


def _copy_from_torch(ours: Any, theirs: Any) -> None:
    """Give ``ours`` the parameter and buffer values of ``theirs`` (same structure)."""
    with minitorch.no_grad():
        for (name, mine), (other_name, reference) in zip(
            [*ours.named_parameters(), *ours.named_buffers()], [*theirs.named_parameters(), *theirs.named_buffers()]
        ):
            assert name == other_name
            mine.copy_(minitorch.tensor(reference.detach().numpy()))


@pytest.mark.task("4.4")
def test_state_dict_keys_and_order_match_torch(torch_ref: Any) -> None:
    ours, theirs = build_tree(minitorch), build_tree(torch_ref)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.state_dict(prefix="net.")) == list(theirs.state_dict(prefix="net."))
    keys = list(ours.state_dict())
    # own parameters, own persistent buffers, then the children
    assert keys[:2] == ["temperature", "steps"]
    assert "blocks.0.scratch" not in keys and "blocks.0.missing" not in keys and "blocks.0.unused" not in keys


@pytest.mark.task("4.4")
def test_state_dict_values_detached_and_sharing_storage() -> None:
    tree = build_tree(minitorch)
    state = tree.state_dict()
    weight = state["stem.first.weight"]
    assert not isinstance(weight, nn.Parameter) and not weight.requires_grad
    with minitorch.no_grad():
        tree.stem.first.weight.fill_(7.0)
    assert float(weight.sum()) == 7.0 * weight.numel()
    kept = tree.state_dict(keep_vars=True)
    assert kept["stem.first.weight"] is tree.stem.first.weight
    assert kept["steps"] is tree.steps


@pytest.mark.task("4.4")
def test_state_dict_metadata_versions(torch_ref: Any) -> None:
    ours, theirs = build_tree(minitorch), build_tree(torch_ref)
    assert dict(ours.state_dict()._metadata) == dict(theirs.state_dict()._metadata)


@pytest.mark.task("4.4")
def test_load_state_dict_round_trip_copies_values(torch_ref: Any) -> None:
    source, theirs = build_tree(minitorch), build_tree(torch_ref)
    _copy_from_torch(source, theirs)
    target = build_tree(minitorch)
    weight = target.stem.first.weight
    result = target.load_state_dict(source.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>" == repr(theirs.load_state_dict(theirs.state_dict()))
    assert target.stem.first.weight is weight  # copied in place, not replaced
    for key, value in theirs.state_dict().items():
        np.testing.assert_array_equal(target.state_dict()[key].numpy(), value.numpy())


@pytest.mark.task("4.4")
def test_strict_error_lists_all_problems_like_torch(torch_ref: Any) -> None:
    def broken(lib: Any, model: Any) -> "OrderedDict[str, Any]":
        state = OrderedDict(model.state_dict())
        del state["temperature"]
        del state["blocks.1.inner.bias"]
        state["blocks.0.extra"] = lib.zeros(1)
        state["ghost.weight"] = lib.zeros(1)
        state["stem.first.weight"] = lib.zeros(5, 5)
        state["heads.a.weight"] = lib.zeros(2)
        return state

    ours, theirs = build_tree(minitorch), build_tree(torch_ref)
    with pytest.raises(RuntimeError) as mine:
        ours.load_state_dict(broken(minitorch, ours))
    if isinstance(mine.value, NotImplementedError):  # a stubbed task is not the error under test
        raise mine.value
    with pytest.raises(RuntimeError) as reference:
        theirs.load_state_dict(broken(torch_ref, theirs))
    expected = str(reference.value).replace("torch.Size", "minitorch.Size")
    assert str(mine.value) == expected
    for key in ["temperature", "blocks.1.inner.bias", "blocks.0.extra", "ghost.weight", "stem.first.weight", "heads.a.weight"]:
        assert key in str(mine.value)


@pytest.mark.task("4.4")
def test_non_strict_returns_keys_and_still_rejects_size_mismatch(torch_ref: Any) -> None:
    ours, theirs = build_tree(minitorch), build_tree(torch_ref)
    for model, lib in [(ours, minitorch), (theirs, torch_ref)]:
        state = OrderedDict(model.state_dict())
        del state["steps"]
        state["surprise"] = lib.zeros(1)
        model._result = model.load_state_dict(state, strict=False)
    assert ours._result.missing_keys == theirs._result.missing_keys == ["steps"]
    assert ours._result.unexpected_keys == theirs._result.unexpected_keys == ["surprise"]
    assert repr(ours._result) == repr(theirs._result)
    bad = OrderedDict(ours.state_dict())
    bad["temperature"] = minitorch.zeros(3)
    with pytest.raises(RuntimeError, match="size mismatch for temperature"):
        ours.load_state_dict(bad, strict=False)


@pytest.mark.task("4.4")
def test_load_rejects_non_mapping_and_non_tensor(torch_ref: Any) -> None:
    with pytest.raises(TypeError) as mine:
        nn.Linear(1, 1).load_state_dict([1])
    with pytest.raises(TypeError) as reference:
        torch_ref.nn.Linear(1, 1).load_state_dict([1])
    assert str(mine.value) == str(reference.value)
    with pytest.raises(RuntimeError) as copying:
        nn.Linear(1, 1).load_state_dict({"weight": 3.0, "bias": minitorch.zeros(1)})
    if isinstance(copying.value, NotImplementedError):
        raise copying.value
    assert 'While copying the parameter named "weight"' in str(copying.value)


@pytest.mark.task("4.4")
def test_load_state_dict_assign_keeps_loaded_tensors() -> None:
    model = nn.Linear(2, 2)
    loaded = {"weight": minitorch.full((2, 2), 3.0), "bias": nn.Parameter(minitorch.zeros(2))}
    model.load_state_dict(loaded, assign=True)
    assert isinstance(model.weight, nn.Parameter) and model.weight.requires_grad
    assert float(model.weight.sum()) == 12.0
    assert model.bias is loaded["bias"]
    assert list(model.parameters())[0] is model.weight


@pytest.mark.task("4.4")
def test_extra_state_round_trip(torch_ref: Any) -> None:
    def make(lib: Any) -> Any:
        class WithExtra(lib.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.w = lib.nn.Parameter(lib.ones(1))
                self.register_buffer("b", lib.zeros(1))
                self.note = "fresh"

            def get_extra_state(self) -> Any:
                return {"note": self.note}

            def set_extra_state(self, state: Any) -> None:
                self.note = state["note"]

        outer = lib.nn.Module()
        outer.inner = WithExtra()
        return outer

    ours, theirs = make(minitorch), make(torch_ref)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["inner.w", "inner.b", "inner._extra_state"]
    ours.inner.note = "trained"
    copy = make(minitorch)
    copy.load_state_dict(ours.state_dict())
    assert copy.inner.note == "trained"
    state = ours.state_dict()
    del state["inner._extra_state"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "inner._extra_state"'):
        copy.load_state_dict(state)
    plain = nn.Linear(1, 1)
    extra = OrderedDict(plain.state_dict())
    extra["_extra_state"] = 1
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "_extra_state"'):
        plain.load_state_dict(extra)


@pytest.mark.task("4.4")
def test_running_mean_buffer_example() -> None:
    class RunningMean(nn.Module):
        def __init__(self, num_features: int, momentum: float = 0.9) -> None:
            super().__init__()
            self.momentum = momentum
            self.register_buffer("mean", minitorch.zeros(num_features))

        def forward(self, x: minitorch.Tensor) -> minitorch.Tensor:
            self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
            return self.mean

    m = RunningMean(4)
    expected = np.zeros(4)
    for _ in range(10):
        x = minitorch.randn(4)
        m(x)
        expected = 0.9 * expected + 0.1 * x.numpy()
    assert list(m.state_dict()) == ["mean"]
    assert list(m._buffers) == ["mean"] and m.mean is m._buffers["mean"]
    np.testing.assert_allclose(m.state_dict()["mean"].numpy(), expected, rtol=1e-5)
    m_loaded = RunningMean(4)
    m_loaded.load_state_dict(m.state_dict())
    assert bool(minitorch.all(m.mean == m_loaded.mean))
