"""``.safetensors`` exchange with PyTorch (task 8.6).

The oracle is the reference implementation: files written by minitorch are read with
``safetensors.torch.load_file``/``safetensors.numpy``, and files written by
``safetensors.torch.save_file`` are read by minitorch. Hostile headers are built by hand.
"""

from __future__ import annotations

import io
import json
import math
import struct
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minitorch
from minitorch.serialization import SerializationError
from minitorch.serialization.format import MAX_JSON_CONTAINERS
from minitorch.serialization.json_limits import JsonLimits

pytestmark = pytest.mark.task("8.6")

NAMES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"]
SHAPES = [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 2, 1, 3)]


@pytest.fixture(scope="module")
def st_torch(torch_ref: Any) -> Any:
    """``safetensors.torch``, the reference reader and writer."""
    return pytest.importorskip("safetensors.torch")


def sample(name: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    if name == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if name.startswith(("int", "uint")):
        info = np.iinfo(name)
        return rng.integers(info.min, info.max, n, dtype=name, endpoint=True).reshape(shape)
    values = (rng.standard_normal(n) * 100).astype(name)
    if n >= 3:
        values[:3] = [np.nan, np.inf, -0.0]
    return values.reshape(shape)


def weights() -> dict[str, np.ndarray]:
    return {f"{name}.{i}": sample(name, shape, 7 * i) for name in NAMES for i, shape in enumerate(SHAPES)}


def test_minitorch_file_loads_in_torch(st_torch: Any, torch_ref: Any, tmp_path: Path) -> None:
    arrays = weights()
    tensors = {key: minitorch.from_numpy(value.copy()) for key, value in arrays.items()}
    tensors["view.T"] = minitorch.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3).copy()).T
    arrays["view.T"] = np.arange(6, dtype=np.float32).reshape(2, 3).T
    path = tmp_path / "weights.safetensors"
    minitorch.save_safetensors(tensors, path, metadata={"format": "pt", "note": "from minitorch"})
    loaded = st_torch.load_file(str(path))
    assert set(loaded) == set(arrays)
    for key, expected in arrays.items():
        got = loaded[key].numpy()
        assert got.dtype == expected.dtype and got.shape == expected.shape, key
        assert got.tobytes() == np.ascontiguousarray(expected).tobytes(), key
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        assert f.metadata() == {"format": "pt", "note": "from minitorch"}


def test_torch_file_loads_in_minitorch(st_torch: Any, torch_ref: Any, tmp_path: Path) -> None:
    arrays = weights()
    path = tmp_path / "weights.safetensors"
    st_torch.save_file({key: torch_ref.from_numpy(value.copy()) for key, value in arrays.items()}, str(path))
    for source in (path, str(path), io.BytesIO(path.read_bytes())):
        loaded = minitorch.load_safetensors(source)
        assert set(loaded) == set(arrays)
        for key, expected in arrays.items():
            got = loaded[key]
            assert got.dtype.name == expected.dtype.name and tuple(got.shape) == expected.shape, key
            assert got.numpy().tobytes() == expected.tobytes(), key


def test_bytes_match_the_reference_writer(st_torch: Any, torch_ref: Any) -> None:
    """Same layout rules as the reference: identical files for the same tensors."""
    arrays = weights()
    metadata = {"format": "pt"}  # one key: the reference writes several in a random order
    ours = io.BytesIO()
    minitorch.save_safetensors({k: minitorch.from_numpy(v.copy()) for k, v in arrays.items()}, ours, metadata=metadata)
    theirs = st_torch.save({k: torch_ref.from_numpy(v.copy()) for k, v in arrays.items()}, metadata=metadata)
    assert ours.getvalue() == theirs


def test_pytorch_trained_model_gives_the_same_outputs_in_minitorch(st_torch: Any, torch_ref: Any, tmp_path: Path) -> None:
    torch = torch_ref
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(16, 4)
    y = torch.randn(16, 3)
    for _ in range(5):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    path = tmp_path / "trained.safetensors"
    st_torch.save_file(model.state_dict(), str(path))
    with torch.no_grad():
        expected = model(x).numpy()

    state = minitorch.load_safetensors(path)
    assert list(state) == sorted(model.state_dict())
    for key, value in model.state_dict().items():
        assert state[key].numpy().tobytes() == value.numpy().tobytes()
    ours = _minitorch_model()
    inputs = minitorch.from_numpy(x.numpy().copy())
    if ours is not None:
        ours.load_state_dict(state)
        with minitorch.no_grad():
            got = ours(inputs).numpy()
    else:  # the same network written out with tensor ops
        hidden = (inputs @ state["0.weight"].T + state["0.bias"]).tanh()
        got = (hidden @ state["2.weight"].T + state["2.bias"]).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def _minitorch_model() -> Any:
    try:
        from minitorch import nn

        return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    except (ImportError, AttributeError):
        return None


def test_minitorch_state_dict_round_trips_through_torch(st_torch: Any, torch_ref: Any, tmp_path: Path) -> None:
    nn = pytest.importorskip("minitorch.nn")
    torch = torch_ref
    ours = nn.Linear(3, 2)
    path = tmp_path / "linear.safetensors"
    minitorch.save_safetensors(ours.state_dict(), path)
    theirs = torch.nn.Linear(3, 2)
    theirs.load_state_dict(st_torch.load_file(str(path)))
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x)).numpy()
    with minitorch.no_grad():
        got = ours(minitorch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_save_refuses_what_the_format_cannot_hold() -> None:
    with pytest.raises(SerializationError, match=r"tensors\['b'\].*list"):
        minitorch.save_safetensors({"a": minitorch.ones(1), "b": [1]}, io.BytesIO())
    with pytest.raises(SerializationError, match="names must be str"):
        minitorch.save_safetensors({1: minitorch.ones(1)}, io.BytesIO())
    with pytest.raises(SerializationError, match="__metadata__"):
        minitorch.save_safetensors({"__metadata__": minitorch.ones(1)}, io.BytesIO())
    with pytest.raises(SerializationError, match="metadata must map str to str"):
        minitorch.save_safetensors({"a": minitorch.ones(1)}, io.BytesIO(), metadata={"epoch": 3})


def test_save_is_atomic(tmp_path: Path, monkeypatch: Any) -> None:
    from minitorch.serialization import atomic

    path = tmp_path / "w.safetensors"
    minitorch.save_safetensors({"a": minitorch.ones(2)}, path)
    before = path.read_bytes()

    def boom(*args: Any) -> None:
        raise OSError(5, "I/O error (injected)")

    monkeypatch.setattr(atomic.os, "fsync", boom)
    with pytest.raises(OSError, match="injected"):
        minitorch.save_safetensors({"a": minitorch.zeros(9)}, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["w.safetensors"]


# ---------------------------------------------------------------- hostile files


def handmade(head: Any, data: bytes = b"", length: int | None = None) -> bytes:
    text = head if isinstance(head, bytes) else json.dumps(head).encode()
    return struct.pack("<Q", len(text) if length is None else length) + text + data


ENTRY = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
TWO_FLOATS = np.array([1.0, 2.0], dtype="<f4").tobytes()

HOSTILE = {
    "empty": (b"", "fewer than the 8-byte"),
    "header_claims_a_terabyte": (handmade({"w": ENTRY}, TWO_FLOATS, length=2**40), "exceeds the limit"),
    "header_past_the_end": (handmade({"w": ENTRY}, TWO_FLOATS, length=1000), "runs past the end"),
    "header_not_json": (handmade(b"{nope", b""), "not valid JSON"),
    "header_not_utf8": (handmade(b"\xff\xff", b""), "not valid JSON"),
    "header_a_list": (handmade(b"[]", b""), "must be a JSON object"),
    "metadata_not_strings": (handmade({"__metadata__": {"a": 1}, "w": ENTRY}, TWO_FLOATS), "__metadata__"),
    "unknown_dtype": (handmade({"w": dict(ENTRY, dtype="C64")}, TWO_FLOATS), "unknown dtype 'C64'"),
    "uint16": (
        handmade({"w": dict(ENTRY, dtype="U16", data_offsets=[0, 4])}, TWO_FLOATS[:4]),
        "U16, which minitorch does not support",
    ),
    "terabyte_shape": (handmade({"w": dict(ENTRY, shape=[2**20, 2**20])}, TWO_FLOATS), "needs 4398046511104 bytes"),
    "negative_shape": (handmade({"w": dict(ENTRY, shape=[-2])}, TWO_FLOATS), "bad shape"),
    "offsets_reversed": (handmade({"w": dict(ENTRY, data_offsets=[8, 0])}, TWO_FLOATS), "span -8"),
    "offsets_past_the_end": (handmade({"w": dict(ENTRY, data_offsets=[8, 16])}, TWO_FLOATS), "starts at byte 8, expected 0"),
    "overlap": (handmade({"a": ENTRY, "b": ENTRY}, TWO_FLOATS), "starts at byte 0, expected 8"),
    "partial_overlap": (
        handmade({"a": ENTRY, "b": dict(ENTRY, data_offsets=[4, 12])}, TWO_FLOATS + b"\0" * 4),
        "'b' starts at byte 4, expected 8",
    ),
    "exabyte_shape_and_offsets": (
        handmade({"w": dict(ENTRY, shape=[2**62], data_offsets=[0, 2**64])}, TWO_FLOATS),
        "cover 18446744073709551616 bytes but the data section holds 8",
    ),
    "header_nested_too_deeply": (handmade(b'{"w":{"shape":[[[[2]]]]}}', TWO_FLOATS), "nested at least 6 levels deep"),
    "header_nested_100000_deep": (handmade(b"[" * 100_000 + b"]" * 100_000), "nested at least 100000 levels deep"),
    "trailing_bytes": (handmade({"w": ENTRY}, TWO_FLOATS + b"junk"), "cover 8 bytes but the data section holds 12"),
    "truncated_data": (handmade({"w": ENTRY}, TWO_FLOATS[:5]), "cover 8 bytes but the data section holds 5"),
    "extra_key": (handmade({"w": dict(ENTRY, code="x")}, TWO_FLOATS), "exactly the keys"),
    "bool_bytes": (
        handmade({"w": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}}, b"\x00\x05"),
        "bytes other than 0 and 1",
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_safetensors_files_are_refused(name: str) -> None:
    data, reason = HOSTILE[name]
    with pytest.raises(SerializationError, match=reason):
        minitorch.load_safetensors(io.BytesIO(data))


@pytest.mark.in_process  # it measures the memory the loader allocates in this process
def test_a_header_of_a_million_empty_objects_is_refused_before_parsing() -> None:
    """3 MB of ``{},`` would be 75 MB of Python objects: the text is measured first."""
    text = b"[" + b",".join([b"{}"] * (MAX_JSON_CONTAINERS + 1)) + b"]"
    tracemalloc.start()
    try:
        with pytest.raises(SerializationError, match="holds at least [0-9]+ JSON objects and arrays, more than the limit"):
            minitorch.load_safetensors(io.BytesIO(handmade(text)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(text)


def test_save_refuses_a_header_that_load_would_refuse(monkeypatch: Any) -> None:
    from minitorch.serialization import safetensors

    monkeypatch.setattr(safetensors, "HEADER_LIMITS", JsonLimits(depth=3, containers=30, values=1000))
    tensors = {f"w{i}": minitorch.ones(1) for i in range(10)}  # 3 containers each, and the header
    with pytest.raises(SerializationError, match="can't save: the safetensors header holds at least 31 JSON objects"):
        minitorch.save_safetensors(tensors, io.BytesIO())


def test_the_handmade_file_is_valid(st_torch: Any) -> None:
    data = handmade({"w": ENTRY}, TWO_FLOATS)
    assert minitorch.load_safetensors(io.BytesIO(data))["w"].tolist() == [1.0, 2.0]
    assert st_torch.load(data)["w"].tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "name",
    ["overlap", "partial_overlap", "trailing_bytes", "offsets_past_the_end", "terabyte_shape", "exabyte_shape_and_offsets",
     "header_past_the_end"],
)
def test_minitorch_and_the_reference_agree_on_bad_layouts(st_torch: Any, name: str) -> None:
    """Gaps, overlaps, trailing bytes and impossible sizes are errors for the reference reader too."""
    data = HOSTILE[name][0]
    with pytest.raises(SerializationError):
        minitorch.load_safetensors(io.BytesIO(data))
    with pytest.raises(Exception, match="(?i)metadata|offset|header|buffer|invalid|incomplete"):
        st_torch.load(data)


def test_unicode_names_match_the_reference(st_torch: Any, torch_ref: Any) -> None:
    ours = io.BytesIO()
    minitorch.save_safetensors({"gewicht.ä": minitorch.ones(2), "☃": minitorch.zeros(1)}, ours)
    theirs = st_torch.save({"gewicht.ä": torch_ref.ones(2), "☃": torch_ref.zeros(1)})
    assert ours.getvalue() == theirs
    assert list(minitorch.load_safetensors(io.BytesIO(theirs))) == ["gewicht.ä", "☃"]


def _valid_file() -> bytes:
    buffer = io.BytesIO()
    tensors = {"w": minitorch.tensor([[1.0, 2.0]]), "n": minitorch.tensor([3, 4]), "m": minitorch.tensor([True])}
    minitorch.save_safetensors(tensors, buffer, metadata={"k": "v"})
    return buffer.getvalue()


@given(st.data())
def test_random_byte_mutations_give_a_clean_error_or_a_load(data: st.DataObject) -> None:
    """safetensors has no checksum: a flipped data byte loads (other values); a damaged header is refused."""
    original = _valid_file()
    damaged = bytearray(original)
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(original) - 1), st.integers(1, 255)), min_size=1, max_size=3))
    for position, xor in flips:
        damaged[position] ^= xor
    cut = data.draw(st.integers(0, len(original)))
    try:
        loaded = minitorch.load_safetensors(io.BytesIO(bytes(damaged[:cut])))
    except SerializationError:
        return
    assert all(isinstance(t, minitorch.Tensor) for t in loaded.values())
