"""Red-team files for whole-module loading: each is refused with SerializationError and no side effect.

The files are written by hand (``zipfile`` and ``json``): object records naming ``os.system``,
``builtins.eval``, ``subprocess.Popen``, classes that exist but are not allowlisted, modules
not yet imported (which must stay unimported), module states that are not a module's,
references forward and out of range, deep nesting and huge counts. Loading looks class paths
up in the allowlist and minitorch's own classes only, so none of them can reach code.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import minitorch
from minitorch import nn
from minitorch.serialization import SerializationError, add_safe_globals, clear_safe_globals, safe_globals
from minitorch.serialization import objects
from minitorch.serialization.format import MAX_NESTING
from minitorch.serialization.safe_globals import class_path
from tests.checkpoint_files import archive, header_of, rewrite_header

SEQUENTIAL = class_path(nn.Sequential)
RELU = class_path(nn.ReLU)
#: module paths of the standard library that nothing in the test run imports
NEVER_IMPORTED = ("antigravity.Fly", "this.Zen", "turtledemo.clock.Clock", "xdrlib.Packer")


@pytest.fixture(autouse=True)
def _empty_allowlist():
    clear_safe_globals()
    yield
    clear_safe_globals()


class Recorder:
    """Stands in for a dangerous callable: records any call (there must be none)."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def __call__(self, *args: Any, **kwargs: Any) -> int:
        self.calls.append((args, kwargs))
        return 0


@pytest.fixture
def traps(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder()
    monkeypatch.setattr(os, "system", recorder)
    monkeypatch.setattr(subprocess, "Popen", recorder)
    return recorder


def _valid_module_state(cls: type = nn.ReLU) -> list:
    """The state pairs of a real module of ``cls``, as ``minitorch.save`` writes them."""
    buffer = io.BytesIO()
    minitorch.save(cls(), buffer)
    captured: dict = {}
    rewrite_header(buffer.getvalue(), lambda header: captured.update(header))
    return captured["root"]["state"]


def _obj(name: str, state: list | None = None) -> dict:
    return {"type": "object", "class": name, "state": state if state is not None else []}


def _load(root: Any, weights_only: bool = False, tensors: list | None = None) -> Any:
    return minitorch.load(io.BytesIO(archive(header_of(root, tensors))), weights_only=weights_only)


def _refused(root: Any, match: str, weights_only: bool = False) -> None:
    _load(_obj(RELU, _valid_module_state()))  # whatever a first load imports lazily is imported now
    modules_before = set(sys.modules)
    with pytest.raises(SerializationError, match=match):
        _load(root, weights_only)
    assert set(sys.modules) == modules_before


@pytest.mark.parametrize("name", ["os.system", "posix.system", "builtins.eval", "builtins.exec", "subprocess.Popen",
                                  "builtins.__import__", "minitorch.serialization.archive.load", "shutil.rmtree"])
@pytest.mark.parametrize("weights_only", [False, True])
def test_code_named_as_a_class_is_refused(traps: Recorder, tmp_path: Path, name: str, weights_only: bool):
    marker = tmp_path / "pwned"
    state = [["args", {"type": "list", "items": [f"touch {marker}"]}], ["training", True]]
    _refused(_obj(name, state), match=name.replace(".", r"\."), weights_only=weights_only)
    assert not marker.exists() and traps.calls == []


def test_code_inside_a_nested_module_is_refused_before_its_state_is_read(traps: Recorder):
    inner = _obj("subprocess.Popen", [["args", "echo pwned"]])
    outer = _obj(SEQUENTIAL, [["_modules", {"type": "odict", "items": [["0", inner]]}]])
    _refused(outer, match="subprocess.Popen")
    assert traps.calls == []


@pytest.mark.parametrize("name", ["collections.OrderedDict", "json.decoder.JSONDecoder", "io.BytesIO",
                                  "tests.test_serialization_whole_module_hostile.Recorder", "minitorch.tensor.Tensor"])
def test_an_importable_class_that_is_not_allowlisted_is_refused(name: str):
    _refused(_obj(name, _valid_module_state()), match=f"'{name}'.*allowlist")


def test_an_allowlisted_class_that_is_not_a_module_is_refused():
    with safe_globals([io.BytesIO, Recorder]):
        for cls in (io.BytesIO, Recorder):
            _refused(_obj(class_path(cls), _valid_module_state()), match="not a minitorch.nn.Module")


@pytest.mark.parametrize("name", NEVER_IMPORTED)
def test_a_module_not_yet_imported_stays_unimported(name: str):
    module = name.rsplit(".", 1)[0]
    assert module not in sys.modules
    for weights_only in (False, True):
        _refused(_obj(name, _valid_module_state()), match=name.replace(".", r"\."), weights_only=weights_only)
    assert module not in sys.modules and module.split(".")[0] not in sys.modules


def test_weights_only_refuses_minitorch_classes_unless_allowlisted():
    state = _valid_module_state()
    _refused(_obj(RELU, state), match=r"Weights only load failed.*ReLU.*add_safe_globals", weights_only=True)
    assert type(_load(_obj(RELU, state))) is nn.ReLU
    add_safe_globals([nn.ReLU])
    assert type(_load(_obj(RELU, state), weights_only=True)) is nn.ReLU


class Probe(nn.Module):
    """Records every call of its constructor and ``__setattr__``: loading must make none."""

    events: list[str] = []

    def __init__(self) -> None:
        Probe.events.append("__init__")
        super().__init__()

    def __setattr__(self, name: str, value: Any) -> None:
        Probe.events.append(f"__setattr__ {name}")
        super().__setattr__(name, value)


def test_loading_calls_neither_init_nor_setattr():
    buffer = io.BytesIO()
    minitorch.save(Probe(), buffer)
    Probe.events.clear()
    with safe_globals([Probe]):
        buffer.seek(0)
        loaded = minitorch.load(buffer, weights_only=True)
    assert type(loaded) is Probe and Probe.events == []


@pytest.mark.parametrize("bad_name", ["__class__", "__dict__", "__init__", "not an identifier", "class", "", 7])
def test_hostile_attribute_names_are_refused(bad_name: Any):
    _refused(_obj(RELU, _valid_module_state() + [[bad_name, 1]]), match="attribute name|name")


def test_a_repeated_attribute_is_refused():
    state = _valid_module_state()
    _refused(_obj(RELU, state + [state[0]]), match="repeated")


@pytest.mark.parametrize("name, value, match", [
    ("_forward_hooks", {"type": "odict", "items": [[0, "os.system"]]}, "_forward_hooks"),
    ("_parameters", {"type": "odict", "items": [["w", 1.5]]}, "_parameters"),
    ("_modules", {"type": "odict", "items": [["m", "not a module"]]}, "_modules"),
    ("_buffers", {"type": "list", "items": []}, "_buffers"),
    ("training", "yes", "training"),
    ("_non_persistent_buffers_set", {"type": "list", "items": []}, "_non_persistent_buffers_set"),
])
def test_a_state_that_is_not_a_modules_is_refused(name: str, value: Any, match: str):
    state = [pair if pair[0] != name else [name, value] for pair in _valid_module_state()]
    _refused(_obj(RELU, state), match=match)


def test_a_missing_registry_is_refused():
    state = [pair for pair in _valid_module_state() if pair[0] != "_forward_pre_hooks"]
    _refused(_obj(RELU, state), match="_forward_pre_hooks")


@pytest.mark.parametrize("node", [
    {"type": "object", "class": None, "state": []},
    {"type": "object", "class": "x" * (objects.MAX_CLASS_PATH + 1), "state": []},
    {"type": "object", "class": RELU, "state": {"type": "dict", "items": []}},
    {"type": "object", "class": RELU, "state": [["a"]]},
    {"type": "object_ref", "index": 0},
    {"type": "object_ref", "index": -1},
    {"type": "object_ref", "index": "0"},
    {"type": "set", "items": [{"type": "list", "items": []}]},
    {"type": "set", "items": {"a": 1}},
])
def test_malformed_object_records_are_refused(node: dict):
    _refused(node, match="malformed checkpoint|class path")


def test_a_reference_to_a_module_still_being_built_is_refused():
    """A module can't contain itself: a reference may only name modules already complete."""
    state = [pair if pair[0] != "_modules" else
             ["_modules", {"type": "odict", "items": [["me", {"type": "object_ref", "index": 0}]]}]
             for pair in _valid_module_state(nn.Sequential)]
    _refused(_obj(SEQUENTIAL, state), match="not among the 0 modules")


def test_deep_nesting_of_modules_is_refused():
    state = _valid_module_state(nn.Sequential)
    node: dict = _obj(RELU, _valid_module_state())
    for _ in range(MAX_NESTING // 2 + 5):  # each module level is two levels of the tree
        node = _obj(SEQUENTIAL, [pair if pair[0] != "_modules" else ["_modules", {"type": "odict", "items": [["0", node]]}]
                                 for pair in state])
    _refused(node, match="nested|deep")


def test_more_modules_than_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(objects, "MAX_OBJECTS", 5)
    relu = _obj(RELU, _valid_module_state())
    assert len(_load({"type": "list", "items": [relu] * 5})) == 5
    _refused({"type": "list", "items": [relu] * 6}, match="more than 5 modules")


def test_a_huge_count_of_references_shares_one_module():
    """Many references cost list slots, not modules."""
    relu = _obj(RELU, _valid_module_state())
    count = 300_000
    refs = [{"type": "object_ref", "index": 0}] * count
    loaded = _load({"type": "list", "items": [relu] + refs})
    assert len(loaded) == count + 1 and all(item is loaded[0] for item in loaded[::1000])


def test_a_header_of_a_huge_count_of_objects_is_refused_before_parsing():
    item = json.dumps(_obj(RELU, [])).encode()
    count = 5_000_000 // len(item) * 20
    raw_root = b'{"type":"list","items":[' + b",".join([item] * count) + b"]}"
    header = b'{"format":"minitorch.save","version":1,"tensors":[],"root":' + raw_root + b"}"
    buffer = io.BytesIO()
    import zipfile

    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("minitorch/header.json", header)
    with pytest.raises(SerializationError, match="malformed checkpoint"):
        minitorch.load(io.BytesIO(buffer.getvalue()), weights_only=False)
