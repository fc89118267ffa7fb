"""``minitorch.save(model)`` / ``minitorch.load(f, weights_only=False)`` of whole modules, without pickle.

Round trips of minitorch's own modules and of a user-defined one after allowlisting it;
refusals without the allowlist and with ``weights_only=True``; the allowlist API with
PyTorch's names; clear errors for attributes that are not data.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.serialization import (
    SerializationError, add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals,
)
from minitorch.serialization.safe_globals import class_path
from tests.checkpoint_files import rewrite_header


class TwoLayer(nn.Module):
    """A user-defined module: a constructor with arguments, a buffer, plain attributes."""

    def __init__(self, width: int, scale: float) -> None:
        super().__init__()
        self.hidden = nn.Linear(3, width)
        self.out = nn.Linear(width, 2)
        self.register_buffer("offset", minitorch.arange(2, dtype=minitorch.float32))
        self.register_buffer("scratch", minitorch.zeros(1), persistent=False)
        self.scale = scale
        self.names = ("hidden", "out")

    def forward(self, x: minitorch.Tensor) -> minitorch.Tensor:
        return self.out(self.hidden(x).relu()) * self.scale + self.offset


class WithFunction(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.act = lambda t: t.relu()


@pytest.fixture(autouse=True)
def _empty_allowlist():
    clear_safe_globals()
    yield
    clear_safe_globals()


def _round_trip(obj: Any, **load_kwargs: Any) -> Any:
    buffer = io.BytesIO()
    minitorch.save(obj, buffer)
    buffer.seek(0)
    return minitorch.load(buffer, **load_kwargs)


def _same_state(a: nn.Module, b: nn.Module) -> None:
    want, got = a.state_dict(), b.state_dict()
    assert list(got) == list(want)
    for key in want:
        assert got[key].dtype == want[key].dtype
        np.testing.assert_array_equal(got[key].numpy(), want[key].numpy())


def test_sequential_round_trip_outputs_and_state_equal(tmp_path: Path):
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.BatchNorm1d(4), nn.Linear(4, 2))
    model(minitorch.randn(6, 3))  # running statistics move away from their initial values
    model.eval()
    path = tmp_path / "model.pt"
    minitorch.save(model, path)
    loaded = minitorch.load(path, weights_only=False)
    assert type(loaded) is nn.Sequential and [type(m) for m in loaded] == [type(m) for m in model]
    assert loaded.training is False and loaded[2].training is False
    _same_state(model, loaded)
    x = minitorch.randn(5, 3)
    np.testing.assert_array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in loaded.parameters())
    assert loaded[0].in_features == 3 and loaded[0].out_features == 4


def test_loaded_model_trains(torch_ref):
    """A loaded model is a full module: backward and an optimizer step work on it."""
    minitorch.manual_seed(1)
    loaded = _round_trip(nn.Sequential(nn.Linear(3, 1)), weights_only=False)
    optimizer = minitorch.optim.SGD(loaded.parameters(), lr=0.1)
    x, y = minitorch.randn(8, 3), minitorch.randn(8, 1)
    before = nn.functional.mse_loss(loaded(x), y)
    for _ in range(5):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(loaded(x), y)
        loss.backward()
        optimizer.step()
    assert loss.item() < before.item()


def test_user_module_round_trip_after_allowlisting():
    minitorch.manual_seed(2)
    model = TwoLayer(5, 0.5)
    add_safe_globals([TwoLayer])
    loaded = _round_trip(model, weights_only=False)
    assert type(loaded) is TwoLayer
    assert loaded.scale == 0.5 and loaded.names == ("hidden", "out")
    assert "scratch" not in loaded.state_dict() and "scratch" in dict(loaded.named_buffers())
    _same_state(model, loaded)
    x = minitorch.randn(4, 3)
    np.testing.assert_array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())


def test_user_module_refused_without_allowlist_naming_the_class():
    with pytest.raises(SerializationError, match=rf"'{class_path(TwoLayer)}'.*add_safe_globals\(\[TwoLayer\]\)"):
        _round_trip(TwoLayer(3, 1.0), weights_only=False)


@pytest.mark.parametrize("weights_only", [True, None])
def test_weights_only_refuses_a_whole_module_and_says_how_to_allow_it(weights_only):
    model = nn.Sequential(nn.Linear(2, 2))
    with pytest.raises(SerializationError, match=r"Weights only load failed.*Sequential.*weights_only=False"):
        _round_trip(model, weights_only=weights_only)
    with pytest.raises(SerializationError, match="Weights only load failed"):
        _round_trip(model)  # the default, as PyTorch 2.6+


def test_weights_only_loads_allowlisted_classes_only():
    model = nn.Sequential(nn.Linear(2, 2))
    with safe_globals([nn.Sequential]):
        with pytest.raises(SerializationError, match=r"class 'minitorch\.nn\.modules\.linear\.Linear'"):
            _round_trip(model)
    with safe_globals([nn.Sequential, nn.Linear]):
        loaded = _round_trip(model)
    _same_state(model, loaded)
    assert get_safe_globals() == []


def test_allowlist_api_as_pytorch():
    add_safe_globals([TwoLayer])
    add_safe_globals([TwoLayer, (nn.Linear, "old.place.Linear")])
    assert get_safe_globals() == [TwoLayer, (nn.Linear, "old.place.Linear")]
    with safe_globals([WithFunction]):
        assert get_safe_globals() == [TwoLayer, (nn.Linear, "old.place.Linear"), WithFunction]
    assert get_safe_globals() == [TwoLayer, (nn.Linear, "old.place.Linear")]
    clear_safe_globals()
    assert get_safe_globals() == []
    with pytest.raises(TypeError, match="add_safe_globals expects classes"):
        add_safe_globals(["os.system"])
    with pytest.raises(TypeError, match="add_safe_globals expects classes"):
        add_safe_globals([print])
    assert minitorch.serialization.add_safe_globals is add_safe_globals


def test_allowlisted_pair_maps_a_moved_class(monkeypatch: pytest.MonkeyPatch):
    """``(cls, 'old.path')`` rebuilds a class a file names by another path."""
    buffer = io.BytesIO()
    minitorch.save(TwoLayer(2, 3.0), buffer)
    moved = "legacy.models.TwoLayer"

    def move(header: dict) -> None:
        assert header["root"]["class"] == class_path(TwoLayer)
        header["root"]["class"] = moved

    raw = rewrite_header(buffer.getvalue(), move)
    with pytest.raises(SerializationError, match="legacy.models.TwoLayer"):
        minitorch.load(io.BytesIO(raw), weights_only=False)
    add_safe_globals([(TwoLayer, moved)])
    loaded = minitorch.load(io.BytesIO(raw), weights_only=False)
    assert type(loaded) is TwoLayer and loaded.scale == 3.0


def test_shared_submodule_loads_as_one_object():
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, nn.Tanh(), shared)
    loaded = _round_trip(model, weights_only=False)
    assert loaded[0] is loaded[2]
    assert len(list(loaded.parameters())) == 2


def test_module_inside_a_checkpoint_dict():
    model = nn.Linear(2, 3)
    optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1)
    loaded = _round_trip({"model": model, "optimizer": optimizer.state_dict(), "epoch": 3}, weights_only=False)
    assert loaded["epoch"] == 3 and isinstance(loaded["model"], nn.Linear)
    _same_state(model, loaded["model"])


def test_a_lambda_attribute_is_named_when_saving():
    with pytest.raises(SerializationError, match=r"obj\.act: it is a function \(.*<lambda>\), not data"):
        minitorch.save(WithFunction(), io.BytesIO())


def test_an_open_file_and_a_hook_are_named_when_saving(tmp_path: Path):
    model = nn.Linear(2, 2)
    with open(tmp_path / "log.txt", "w") as handle:
        model.log = handle
        with pytest.raises(SerializationError, match=r"obj\.log: it is a open file"):
            minitorch.save(model, io.BytesIO())
    del model.log
    model.register_forward_hook(lambda module, args, out: None)
    with pytest.raises(SerializationError, match=r"obj\._forward_hooks\[\d+\]: it is a function"):
        minitorch.save(model, io.BytesIO())


def test_a_class_defined_in_a_function_is_refused_when_saving():
    class Local(nn.Module):
        pass

    with pytest.raises(SerializationError, match="defined inside a function"):
        minitorch.save(Local(), io.BytesIO())


def test_a_module_containing_itself_is_refused():
    model = nn.Sequential(nn.Linear(1, 1))
    model.add_module("loop", model)
    with pytest.raises(SerializationError, match="reference cycle"):
        minitorch.save(model, io.BytesIO())


def test_saving_the_same_module_twice_gives_the_same_bytes():
    model = TwoLayer(3, 1.0)
    first, second = io.BytesIO(), io.BytesIO()
    minitorch.save(model, first)
    minitorch.save(model, second)
    assert first.getvalue() == second.getvalue()


def test_sets_are_saved_inside_modules_only():
    model = nn.Linear(2, 2)
    model.tags = {"b", "a"}
    assert _round_trip(model, weights_only=False).tags == {"a", "b"}
    with pytest.raises(SerializationError, match=r"obj\['names'\].*builtins\.set"):
        minitorch.save({"names": {"a"}}, io.BytesIO())


def test_torch_names_match_pytorch(torch_ref):
    for name in ("add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"):
        assert hasattr(torch_ref.serialization, name) and hasattr(minitorch.serialization, name)
