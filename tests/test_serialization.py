"""``minitorch.save``/``minitorch.load``: round trips, refusals, map_location, atomicity (step 8).

Expected values are NumPy arrays made independently of the code under test, or written out
by hand; archives for the cuda paths are built by hand with ``zipfile`` and ``json``.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import Tensor
from minitorch.serialization import SerializationError

DTYPES = {
    "bool": (minitorch.bool, np.bool_),
    "uint8": (minitorch.uint8, np.uint8),
    "int32": (minitorch.int32, np.int32),
    "int64": (minitorch.int64, np.int64),
    "float16": (minitorch.float16, np.float16),
    "float32": (minitorch.float32, np.float32),
    "float64": (minitorch.float64, np.float64),
}
SHAPES = [(), (0,), (3, 0, 2), (5,), (2, 3), (2, 1, 4)]


def sample(np_dtype: Any, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Values that exercise the whole range of ``np_dtype`` (extremes, negatives, nan, inf)."""
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    if np_dtype is np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_).reshape(shape)
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        values = rng.integers(info.min, info.max, n, dtype=np_dtype, endpoint=True)
        special = np.array([info.min, info.max, 0], dtype=np_dtype)
    else:
        values = (rng.standard_normal(n) * 1e3).astype(np_dtype)
        special = np.array([np.nan, np.inf, -np.inf, -0.0, np.finfo(np_dtype).tiny], dtype=np_dtype)
    values[: min(n, special.size)] = special[: min(n, special.size)]
    return values.reshape(shape)


def roundtrip(obj: Any, **load_kwargs: Any) -> Any:
    buffer = io.BytesIO()
    minitorch.save(obj, buffer)
    buffer.seek(0)
    return minitorch.load(buffer, **load_kwargs)


def assert_same_tensor(loaded: Tensor, expected: np.ndarray, dtype: minitorch.dtype) -> None:
    assert isinstance(loaded, Tensor)
    assert loaded.dtype is dtype
    assert tuple(loaded.shape) == expected.shape
    got = loaded.detach().numpy()
    assert got.dtype == expected.dtype
    # bitwise equality: nan payloads, -0.0 and every last bit of a float survive
    assert got.tobytes() == np.ascontiguousarray(expected).tobytes()


# ---------------------------------------------------------------- tensors


@pytest.mark.task("8.2")
@pytest.mark.parametrize("name", list(DTYPES))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_dtype_and_shape_round_trips_bit_exactly(name: str, shape: tuple[int, ...]) -> None:
    dtype, np_dtype = DTYPES[name]
    expected = sample(np_dtype, shape)
    loaded = roundtrip(minitorch.from_numpy(expected.copy()))
    assert_same_tensor(loaded, expected, dtype)


@pytest.mark.task("8.2")
@pytest.mark.parametrize(
    "make_view",
    [
        lambda t: t.T,
        lambda t: t[1:, ::2],
        lambda t: t.permute(2, 0, 1),
        lambda t: t[:, 1],
        lambda t: t[0, 0, 0],
        lambda t: t[:1].expand(4, 3, 4),
        lambda t: t.unsqueeze(1)[..., 1:3],
    ],
    ids=["T", "strided_slice", "permute", "select", "0-d_element", "expand", "unsqueeze_slice"],
)
def test_non_contiguous_views_are_saved_as_their_own_values(backend: str, make_view: Any) -> None:
    base_np = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4) * 1.5 - 7
    base = minitorch.tensor(base_np)
    view = make_view(base)
    assert not view.is_contiguous() or view.dim() == 0
    expected = np.array(view.numpy())  # the view's values before saving
    loaded = roundtrip(view)
    assert loaded.is_contiguous()
    assert_same_tensor(loaded, expected, minitorch.float64)
    # the file holds the view's elements only, not the whole base storage
    buffer = io.BytesIO()
    minitorch.save(view, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        assert archive.getinfo("minitorch/data/0").file_size == view.numel() * 8


@pytest.mark.task("8.2")
def test_views_match_numpy_indexing() -> None:
    base_np = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    base = minitorch.from_numpy(base_np.copy())
    cases = [(base.T, base_np.T), (base[1:, ::2], base_np[1:, ::2]), (base.permute(2, 0, 1), base_np.transpose(2, 0, 1))]
    for view, expected in cases:
        assert_same_tensor(roundtrip(view), expected, minitorch.int32)


@pytest.mark.task("8.2")
def test_requires_grad_and_parameters_survive() -> None:
    leaf = minitorch.tensor([1.0, 2.0], requires_grad=True)
    plain = minitorch.tensor([3.0])
    loaded = roundtrip({"leaf": leaf, "plain": plain, "nonleaf": leaf * 2})
    assert loaded["leaf"].requires_grad and loaded["leaf"].is_leaf
    assert not loaded["plain"].requires_grad
    # a non-leaf loads as a leaf that requires grad, as in PyTorch
    assert loaded["nonleaf"].requires_grad and loaded["nonleaf"].is_leaf
    assert loaded["nonleaf"].tolist() == [2.0, 4.0]


@pytest.mark.task("8.2")
def test_parameter_round_trips_as_parameter() -> None:
    nn = pytest.importorskip("minitorch.nn")
    p = nn.Parameter(minitorch.tensor([[1.0, -2.0]]))
    frozen = nn.Parameter(minitorch.tensor([5.0]), requires_grad=False)
    loaded = roundtrip([p, frozen])
    assert isinstance(loaded[0], nn.Parameter) and loaded[0].requires_grad
    assert isinstance(loaded[1], nn.Parameter) and not loaded[1].requires_grad
    assert loaded[0].tolist() == [[1.0, -2.0]]


@pytest.mark.task("8.2")
def test_loaded_tensors_are_writable_and_independent_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.mt"
    minitorch.save(minitorch.zeros(3), path)
    first = minitorch.load(path)
    first.add_(1)
    assert first.tolist() == [1.0, 1.0, 1.0]
    assert minitorch.load(path).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.task("8.2")
def test_shared_tensor_loads_as_one_object_and_slices_as_copies() -> None:
    w = minitorch.arange(6).float()
    loaded = roundtrip({"a": w, "b": w, "detached": w.detach(), "slice": w[2:4]})
    # the same tensor (or a detached alias of it) is stored once and loads as one tensor
    assert loaded["a"] is loaded["b"] is loaded["detached"]
    # a slice is stored as its own values: changing the loaded base doesn't change it
    loaded["a"].fill_(0)
    assert loaded["slice"].tolist() == [2.0, 3.0]
    buffer = io.BytesIO()
    minitorch.save({"a": w, "b": w, "detached": w.detach(), "slice": w[2:4]}, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        assert sorted(archive.namelist()) == ["minitorch/data/0", "minitorch/data/1", "minitorch/header.json"]


@pytest.mark.task("8.2")
def test_rng_state_round_trips_through_a_checkpoint() -> None:
    minitorch.manual_seed(1234)
    minitorch.rand(5)
    state = roundtrip({"rng_state": minitorch.random.get_rng_state()})["rng_state"]
    expected = minitorch.rand(7).tolist()
    minitorch.manual_seed(99)
    minitorch.random.set_rng_state(state)
    assert minitorch.rand(7).tolist() == expected


# ---------------------------------------------------------------- the object tree


@pytest.mark.task("8.1")
def test_nested_checkpoint_round_trips_with_types_and_key_order() -> None:
    weight_np = np.arange(6, dtype=np.float32).reshape(2, 3)
    checkpoint = {
        "epoch": 7,
        "model_state_dict": OrderedDict(
            [("layer.weight", minitorch.from_numpy(weight_np.copy())), ("layer.bias", minitorch.zeros(2))]
        ),
        "optimizer_state_dict": {
            "state": {0: {"step": 3, "exp_avg": minitorch.ones(2, 3)}, 1: {"step": 3}},
            "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "params": [0, 1], "nesterov": False, "foreach": None}],
        },
        "loss": 0.125,
        "extremes": [float("inf"), float("-inf"), -0.0, 1e-310, 2**70, -(2**63)],
        "text": "ünïcødé \u2603 'quoted' \"double\" \ud800 \x00",
        "misc": {None: 1, True: 2, 2.5: 3, ("a", 1): 4, "": 5},
        "empty": ({}, [], (), OrderedDict()),
        "meta": {"dtype": minitorch.float16, "device": minitorch.device("cpu"), "size": minitorch.Size([2, 3])},
    }
    loaded = roundtrip(checkpoint)
    assert list(loaded) == list(checkpoint)
    assert type(loaded["model_state_dict"]) is OrderedDict
    assert list(loaded["model_state_dict"]) == ["layer.weight", "layer.bias"]
    assert_same_tensor(loaded["model_state_dict"]["layer.weight"], weight_np, minitorch.float32)
    state = loaded["optimizer_state_dict"]["state"]
    assert list(state) == [0, 1] and all(type(k) is int for k in state)
    assert state[0]["step"] == 3 and type(state[0]["step"]) is int
    assert state[0]["exp_avg"].tolist() == [[1.0] * 3] * 2
    group = loaded["optimizer_state_dict"]["param_groups"][0]
    assert group == {"lr": 1e-3, "betas": (0.9, 0.999), "params": [0, 1], "nesterov": False, "foreach": None}
    assert type(group["betas"]) is tuple
    assert loaded["loss"] == 0.125 and type(loaded["loss"]) is float
    ext = loaded["extremes"]
    assert ext[:2] == [math.inf, -math.inf] and math.copysign(1, ext[2]) == -1 and ext[3] == 1e-310
    assert ext[4:] == [2**70, -(2**63)]
    assert loaded["text"] == checkpoint["text"]
    assert list(loaded["misc"].items()) == [(None, 1), (True, 2), (2.5, 3), (("a", 1), 4), ("", 5)]
    assert loaded["empty"] == ({}, [], (), OrderedDict()) and type(loaded["empty"][3]) is OrderedDict
    meta = loaded["meta"]
    assert meta["dtype"] is minitorch.float16 and meta["device"] == minitorch.device("cpu")
    assert type(meta["size"]) is minitorch.Size and meta["size"] == (2, 3)


@pytest.mark.task("8.1")
def test_nan_float_and_numpy_scalars() -> None:
    loaded = roundtrip([float("nan"), np.float64(1.5), np.int64(3), np.bool_(True)])
    assert math.isnan(loaded[0])
    assert loaded[1:] == [1.5, 3, True]
    assert [type(v) for v in loaded[1:]] == [float, int, bool]


@pytest.mark.task("8.1")
def test_same_object_saves_to_the_same_bytes() -> None:
    obj = {"w": minitorch.arange(4).float(), "step": 1}
    first, second = io.BytesIO(), io.BytesIO()
    minitorch.save(obj, first)
    minitorch.save(obj, second)
    assert first.getvalue() == second.getvalue()


class Opaque:
    pass


@pytest.mark.task("8.1")
@pytest.mark.parametrize(
    "obj,path,type_name",
    [
        ({"model": Opaque()}, "obj['model']", "Opaque"),
        ({"optimizer": {"state": {0: {"momentum": {1, 2}}}}}, "obj['optimizer']['state'][0]['momentum']", "set"),
        ([1, (2, lambda x: x)], "obj[1][1]", "function"),
        ({"arr": np.array(["text"])}, "obj['arr']", "ndarray"),  # plain arrays save: test_serialization_numpy_arrays.py
        ({"b": b"bytes"}, "obj['b']", "bytes"),
        (Opaque(), "obj", "Opaque"),
    ],
    ids=["object", "set_in_optimizer_state", "lambda", "ndarray", "bytes", "root"],
)
def test_unsupported_objects_are_refused_with_their_path(obj: Any, path: str, type_name: str) -> None:
    buffer = io.BytesIO()
    with pytest.raises(SerializationError) as info:
        minitorch.save(obj, buffer)
    message = str(info.value)
    assert path in message and type_name in message
    assert buffer.getvalue() == b""  # nothing written before the whole object was checked


@pytest.mark.task("8.1")
def test_an_optimizer_is_refused_with_a_state_dict_hint() -> None:
    """(A whole module saves: tests/test_serialization_whole_module.py.)"""
    nn = pytest.importorskip("minitorch.nn")
    optimizer = minitorch.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
    with pytest.raises(SerializationError, match=r"obj\['optimizer'\].*state_dict\(\)"):
        minitorch.save({"optimizer": optimizer}, io.BytesIO())


@pytest.mark.task("8.1")
@pytest.mark.in_process  # a cycle, and 1000 levels, cannot travel to another process as values
def test_cycles_and_deep_nesting_are_refused() -> None:
    cycle: list = [1]
    cycle.append(cycle)
    with pytest.raises(SerializationError, match=r"obj\[1\].*itself"):
        minitorch.save(cycle, io.BytesIO())
    deep: list = []
    for _ in range(1000):
        deep = [deep]
    with pytest.raises(SerializationError, match="nested deeper"):
        minitorch.save(deep, io.BytesIO())


@pytest.mark.task("8.1")
def test_unhashable_keys_are_refused_and_moderate_nesting_round_trips() -> None:
    with pytest.raises(SerializationError, match="key"):
        minitorch.save({minitorch.ones(1): 1}, io.BytesIO())
    shallow: list = []
    for _ in range(100):
        shallow = [shallow]
    assert roundtrip(shallow) == shallow


@pytest.mark.task("8.1")
def test_a_tuple_key_nests_as_deep_as_its_dict() -> None:
    """Depth counts from the root through keys too, as loading counts it: what save writes, load reads."""
    key: Any = ()
    for _ in range(150):
        key = (key,)
    inner: Any = {key: 1}
    outer = inner
    for level in range(40):
        outer = {level: outer}
    assert roundtrip(outer) == outer  # the key's innermost tuple sits 191 levels down
    for level in range(40, 60):
        outer = {level: outer}
    with pytest.raises(SerializationError, match=r"nested deeper than 200 levels"):  # 211 levels down
        minitorch.save(outer, io.BytesIO())


# ---------------------------------------------------------------- files and paths


@pytest.mark.task("8.4")
@pytest.mark.in_process  # open files, str paths and PathLike objects of the test's own process
def test_paths_pathlike_and_file_objects(tmp_path: Path) -> None:
    t = minitorch.tensor([1.5, -2.0])
    minitorch.save(t, str(tmp_path / "a.mt"))
    minitorch.save(t, tmp_path / "b.mt")
    with open(tmp_path / "c.mt", "wb") as f:
        minitorch.save(t, f)
    for name in ("a.mt", "b.mt", "c.mt"):
        assert minitorch.load(tmp_path / name).tolist() == [1.5, -2.0]
        with open(tmp_path / name, "rb") as f:
            assert minitorch.load(f).tolist() == [1.5, -2.0]
    assert minitorch.load(str(tmp_path / "a.mt")).tolist() == [1.5, -2.0]
    assert sorted(os.listdir(tmp_path)) == ["a.mt", "b.mt", "c.mt"]
    with pytest.raises(FileNotFoundError):
        minitorch.load(tmp_path / "missing.mt")


class Unseekable(io.RawIOBase):
    """A pipe-like stream: it can only be read forwards (or only written)."""

    def __init__(self, data: bytes = b"") -> None:
        self._source = io.BytesIO(data)
        self.written = bytearray()

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._source.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)

    def write(self, data: Any) -> int:
        self.written += bytes(data)
        return len(data)


@pytest.mark.task("8.2")
@pytest.mark.in_process  # the graded code reads into its own buffers through the test's stream
def test_streams_that_cannot_seek() -> None:
    sink = Unseekable()
    minitorch.save({"w": minitorch.tensor([1.0, -1.0]), "step": 4}, sink)
    loaded = minitorch.load(Unseekable(bytes(sink.written)))
    assert loaded["step"] == 4 and loaded["w"].tolist() == [1.0, -1.0]


@pytest.mark.task("8.4")
def test_overwriting_replaces_the_file_and_keeps_umask_permissions(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.mt"
    minitorch.save({"epoch": 1}, path)
    minitorch.save({"epoch": 2}, path)
    assert minitorch.load(path) == {"epoch": 2}
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.task("8.4")
@pytest.mark.in_process  # links are not mirrored into another process
def test_saving_through_a_symlink_replaces_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real.mt"
    link = tmp_path / "latest.mt"
    minitorch.save(1, target)
    link.symlink_to(target)
    minitorch.save(2, link)
    assert link.is_symlink() and minitorch.load(target) == 2


def _old_checkpoint(tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "ckpt.mt"
    minitorch.save({"epoch": 1, "w": minitorch.ones(4)}, path)
    return path, path.read_bytes()


@pytest.mark.task("8.4")
def test_unsupported_object_deep_in_the_tree_leaves_the_old_file(tmp_path: Path) -> None:
    path, before = _old_checkpoint(tmp_path)
    with pytest.raises(SerializationError, match=r"obj\['model'\]\['layers'\]\[2\]"):
        minitorch.save({"epoch": 2, "model": {"layers": [minitorch.ones(2), minitorch.ones(3), Opaque()]}}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.mt"]


@pytest.mark.task("8.4")
@pytest.mark.parametrize("failing", ["tensor_bytes", "fsync", "replace"])
def test_exception_mid_write_leaves_the_old_file_and_no_temp_file(tmp_path: Path, monkeypatch: Any, failing: str) -> None:
    from minitorch.serialization import archive, atomic

    path, before = _old_checkpoint(tmp_path)
    calls = []

    def boom(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise OSError(28, "No space left on device (injected)")

    real_tensor_bytes = archive.tensor_bytes

    def fail_on_second_tensor(t: Tensor) -> np.ndarray:
        calls.append(t)
        if len(calls) == 2:
            raise KeyboardInterrupt  # a crash half-way, after one record was written
        return real_tensor_bytes(t)

    if failing == "tensor_bytes":
        monkeypatch.setattr(archive, "tensor_bytes", fail_on_second_tensor)
        expected: type[BaseException] = KeyboardInterrupt
    else:
        monkeypatch.setattr(atomic.os, failing, boom)
        expected = OSError
    with pytest.raises(expected):
        minitorch.save({"epoch": 2, "a": minitorch.zeros(8), "b": minitorch.zeros(8)}, path)
    monkeypatch.undo()
    assert calls, "the injected failure never ran"
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.mt"]
    assert minitorch.load(path)["epoch"] == 1


# ---------------------------------------------------------------- map_location


def handmade_archive(location: str, values: list[float]) -> bytes:
    """A checkpoint as a GPU machine would write it, built without minitorch.save."""
    header = {
        "format": "minitorch.save",
        "version": 1,
        "tensors": [{"record": "minitorch/data/0", "dtype": "float32", "shape": [len(values)], "location": location,
                     "requires_grad": False, "parameter": False}],
        "root": {"type": "dict", "items": [["w", {"type": "tensor", "index": 0}]]},
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("minitorch/header.json", json.dumps(header))
        archive.writestr("minitorch/data/0", np.asarray(values, dtype="<f4").tobytes())
    return buffer.getvalue()


CPU = minitorch.device("cpu")


@pytest.mark.task("8.5")
@pytest.mark.parametrize(
    "map_location",
    ["cpu", CPU, {"cuda:0": "cpu"}, {"cuda": "cpu"}, {minitorch.device("cuda", 0): CPU}, lambda t, loc: t],
    ids=["str", "device", "dict", "dict_short_name", "dict_of_devices", "callable"],
)
def test_a_cuda_checkpoint_loads_on_the_cpu(map_location: Any) -> None:
    loaded = minitorch.load(io.BytesIO(handmade_archive("cuda:0", [1.0, 2.5])), map_location=map_location)
    assert loaded["w"].device == CPU
    assert loaded["w"].tolist() == [1.0, 2.5]


@pytest.mark.task("8.5")
def test_a_cuda_checkpoint_without_map_location() -> None:
    data = handmade_archive("cuda:0", [1.0, 2.5])
    if minitorch.cuda.is_available():
        loaded = minitorch.load(io.BytesIO(data))
        assert loaded["w"].device == minitorch.device("cuda:0") and loaded["w"].tolist() == [1.0, 2.5]
    else:
        with pytest.raises(SerializationError, match=r"CUDA device but minitorch.cuda.is_available\(\) is False.*map_location"):
            minitorch.load(io.BytesIO(data))
        with pytest.raises(SerializationError, match="is_available"):
            minitorch.load(io.BytesIO(handmade_archive("cpu", [1.0])), map_location="cuda")


@pytest.mark.task("8.5")
def test_a_callable_map_location_sees_each_tensor_and_its_saved_location() -> None:
    seen = []

    def relocate(t: Tensor, location: str) -> Any:
        seen.append((location, t.device, t.tolist()))
        return None if location == "cpu" else t * 10

    loaded = minitorch.load(io.BytesIO(handmade_archive("cuda:0", [1.0, 2.0])), map_location=relocate)
    assert seen == [("cuda:0", CPU, [1.0, 2.0])]
    assert loaded["w"].tolist() == [10.0, 20.0]
    assert roundtrip(minitorch.ones(2), map_location=relocate).tolist() == [1.0, 1.0]
    assert seen[-1][0] == "cpu"


@pytest.mark.task("8.5")
def test_a_dict_map_location_leaves_unnamed_locations_alone() -> None:
    loaded = roundtrip({"w": minitorch.ones(1)}, map_location={"cuda:1": "cuda:0"})
    assert loaded["w"].device == CPU


@pytest.mark.task("8.5")
def test_bad_map_location_values() -> None:
    with pytest.raises(TypeError, match="map_location"):
        roundtrip(minitorch.ones(1), map_location=3)
    with pytest.raises(TypeError, match="map_location must return a Tensor or None, got list"):
        roundtrip(minitorch.ones(1), map_location=lambda t, loc: [t])
    with pytest.raises(RuntimeError, match="device"):
        roundtrip(minitorch.ones(1), map_location="tpu")


@pytest.mark.task("8.5")
def test_weights_only_is_accepted_and_changes_nothing() -> None:
    obj = {"w": minitorch.ones(2), "step": 3}
    for weights_only in (True, False):
        loaded = roundtrip(obj, weights_only=weights_only)
        assert loaded["step"] == 3 and loaded["w"].tolist() == [1.0, 1.0]


@pytest.mark.task("8.5")
def test_cuda_tensors_round_trip_and_map_to_the_cpu() -> None:
    if not minitorch.cuda.is_available():
        pytest.skip("no cuda device, not even Numba's simulator")
    w = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]]).to("cuda")
    buffer = io.BytesIO()
    minitorch.save({"w": w, "wT": w.T}, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        rows = json.loads(archive.read("minitorch/header.json"))["tensors"]
    assert [row["location"] for row in rows] == ["cuda:0", "cuda:0"]
    for map_location, expected in [(None, "cuda:0"), ("cpu", "cpu"), ({"cuda:0": "cpu"}, "cpu"), (CPU, "cpu")]:
        buffer.seek(0)
        loaded = minitorch.load(buffer, map_location=map_location)
        assert all(t.device == minitorch.device(expected) for t in loaded.values())
        assert loaded["w"].tolist() == [[1.0, 2.0], [3.0, 4.0]]
        assert loaded["wT"].tolist() == [[1.0, 3.0], [2.0, 4.0]]
