"""bfloat16 against PyTorch: casts bit for bit, arithmetic in float32 rounded once, promotion,
reductions, matmul, a Linear layer's forward and backward, printing, finfo, safetensors and autocast."""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from torch_oracle import import_torch

torch = import_torch()

#: float32 values whose bfloat16 rounding is each an edge: ties to even (down and up), just past a tie,
#: NaN, infinities, overflow past the largest bfloat16, the largest itself, subnormals, signed zeros
EDGE_VALUES = [
    1.00390625, 1.01171875, 1.0039063, -1.00390625, math.nan, math.inf, -math.inf, 3.4e38, -3.4e38,
    3.3895313892515355e38, 3.3961e38, 1e-40, 9.2e-41, 1.4e-45, -1e-45, 0.0, -0.0, 65504.0, 1e-3, 3.14159,
]
#: sizes of the random tensors (a few thousand values: the threaded kernels and the small ones)
SIZES = (7, 4099)
#: PyTorch's parallel grain size: reductions over fewer elements run on one thread
TORCH_GRAIN = 32768


def bits_of(t: Any) -> np.ndarray:
    """The bfloat16 bit patterns of a tensor of either library, as uint16."""
    if isinstance(t, minitorch.Tensor):
        return t.detach().numpy().view(np.uint16)
    return t.detach().view(torch.int16).numpy().view(np.uint16)


def assert_same_bits(ours: minitorch.Tensor, theirs: Any) -> None:
    """Equal bfloat16 tensors: the same bits, NaN against NaN (PyTorch's NaN payloads vary by path)."""
    assert ours.dtype is minitorch.bfloat16 and theirs.dtype is torch.bfloat16
    a, b = bits_of(ours).reshape(-1), bits_of(theirs).reshape(-1)
    nan = np.isnan(ours.detach().float().numpy().reshape(-1))
    assert np.array_equal(nan, np.isnan(theirs.detach().float().numpy().reshape(-1)))
    different = np.flatnonzero((a != b) & ~nan)
    assert different.size == 0, f"bits differ at {different[:5]}: {a[different[:5]]} vs {b[different[:5]]}"


def random_pair(size: int, seed: int, scale: float = 1.0) -> tuple[minitorch.Tensor, Any]:
    """The same float32 values in both libraries."""
    values = (np.random.default_rng(seed).standard_normal(size) * scale).astype(np.float32)
    return minitorch.tensor(values), torch.tensor(values)


# ---- the dtype ----


def test_dtype_properties_as_torch() -> None:
    d = minitorch.bfloat16
    assert d.is_floating_point and d.is_signed and d.itemsize == torch.bfloat16.itemsize == 2
    assert repr(d) == "minitorch.bfloat16" and minitorch.dtypes.scalar_type_name(d) == "BFloat16"
    t = minitorch.ones(2, dtype=d)
    assert t.element_size() == 2 and t.is_floating_point() and t.type() == torch.ones(2, dtype=torch.bfloat16).type()
    assert minitorch.ones(2).bfloat16().dtype is d and minitorch.ones(2).to(minitorch.bfloat16).dtype is d
    assert isinstance(t, minitorch.BFloat16Tensor) and minitorch.BFloat16Tensor([1.5, 2]).dtype is d
    assert minitorch.ones(2).type("torch.BFloat16Tensor").dtype is d


def test_finfo_as_torch() -> None:
    ours, theirs = minitorch.finfo(minitorch.bfloat16), torch.finfo(torch.bfloat16)
    for name in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert (ours.eps, ours.resolution, ours.bits) == (0.0078125, 0.01, 16)


def test_default_dtype_may_be_bfloat16_as_torch() -> None:
    try:
        minitorch.set_default_dtype(minitorch.bfloat16)
        torch.set_default_dtype(torch.bfloat16)
        assert str(minitorch.tensor([1.3]).dtype).split(".")[-1] == str(torch.tensor([1.3]).dtype).split(".")[-1]
        assert minitorch.get_default_dtype() is minitorch.bfloat16
    finally:
        minitorch.set_default_dtype(minitorch.float32)
        torch.set_default_dtype(torch.float32)
    with pytest.raises(TypeError, match="only floating-point types"):
        minitorch.set_default_dtype(minitorch.int64)


# ---- casts ----


def test_cast_from_float32_rounds_as_torch_on_the_edges() -> None:
    values = np.array(EDGE_VALUES, np.float32)
    assert_same_bits(minitorch.tensor(values).bfloat16(), torch.tensor(values).bfloat16())


def test_cast_from_every_float32_bit_pattern_sample_as_torch() -> None:
    bits = np.random.default_rng(0).integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32)
    values = bits.view(np.float32)
    assert_same_bits(minitorch.tensor(values).bfloat16(), torch.tensor(values).bfloat16())


@pytest.mark.parametrize("name", ["float64", "float16", "int64", "int32", "int8", "uint8", "bool"])
def test_casts_to_and_from_other_dtypes_as_torch(name: str) -> None:
    """float64 rounds twice (through float32), as PyTorch's conversion does; back through float32 too."""
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.standard_normal(3000) * np.exp(rng.uniform(-30, 30, 3000)), EDGE_VALUES])
    finite = np.clip(np.nan_to_num(values), -100, 100)
    source = values if name in ("float64", "float16") else finite.astype(np.float32).astype(getattr(np, name))
    if name == "float16":
        source = source.astype(np.float16)
    ours = minitorch.tensor(source).bfloat16()
    theirs = torch.tensor(source).bfloat16()
    assert_same_bits(ours, theirs)
    # and back: bfloat16 -> name
    if name in ("int64", "int32", "int8", "uint8"):  # in range, as C++ leaves out-of-range undefined
        ours, theirs = minitorch.tensor(finite).bfloat16(), torch.tensor(finite).bfloat16()
        if name == "uint8":
            ours, theirs = ours.abs(), theirs.abs()
    back_ours, back_theirs = ours.to(getattr(minitorch, name)), theirs.to(getattr(torch, name))
    assert np.array_equal(back_ours.numpy(), back_theirs.numpy(), equal_nan=name.startswith("float"))


def test_tensor_and_full_of_python_floats_round_as_torch() -> None:
    values = [1.0039062500000002, 3.14159, -2.5e-41, 1e39, 0.1]
    assert_same_bits(minitorch.tensor(values, dtype=minitorch.bfloat16), torch.tensor(values, dtype=torch.bfloat16))
    assert_same_bits(minitorch.full((2,), 0.1, dtype=minitorch.bfloat16), torch.full((2,), 0.1, dtype=torch.bfloat16))
    assert minitorch.tensor(2.5, dtype=minitorch.bfloat16).item() == 2.5


# ---- promotion ----


def test_promotion_table_across_all_dtypes_as_torch() -> None:
    names = [d.name for d in minitorch.dtypes.ALL_DTYPES]
    for a in names:
        for b in names:
            ours = minitorch.promote_types(minitorch.dtypes.as_dtype(a), minitorch.dtypes.as_dtype(b))
            theirs = torch.promote_types(getattr(torch, a), getattr(torch, b))
            assert ours.name == str(theirs).split(".")[-1], (a, b)


@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(2, dtype=lib.bfloat16) + lib.ones(2, dtype=lib.float16),
    lambda lib: lib.ones(2, dtype=lib.bfloat16) + lib.ones(2),
    lambda lib: lib.ones(2, dtype=lib.bfloat16) + 2.5,
    lambda lib: lib.ones(2, dtype=lib.bfloat16) * 3,
    lambda lib: lib.ones(2, dtype=lib.int64) + lib.ones(2, dtype=lib.bfloat16),
    lambda lib: lib.ones(2, dtype=lib.bfloat16) + lib.tensor(2.0),
    lambda lib: lib.ones(2, dtype=lib.bfloat16) + lib.tensor(2.0, dtype=lib.float64),
    lambda lib: lib.ones(2, dtype=lib.float16) + lib.tensor(2.0, dtype=lib.bfloat16),
    lambda lib: lib.ones(2, dtype=lib.int32) * 1.5 + lib.ones(2, dtype=lib.bfloat16),
    lambda lib: lib.ones(2, dtype=lib.bfloat16) / lib.ones(2, dtype=lib.int64),
])
def test_mixed_operands_promote_as_torch(make: Callable[[ModuleType], Any]) -> None:
    assert str(make(minitorch).dtype).split(".")[-1] == str(make(torch).dtype).split(".")[-1]


# ---- arithmetic: in float32, rounded once ----

BINARY_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "maximum": lambda a, b: a.maximum(b), "pow": lambda a, b: a.abs() ** b,
}
UNARY_OPS: dict[str, Callable[[Any], Any]] = {
    "neg": lambda a: -a, "exp": lambda a: a.exp(), "log": lambda a: a.abs().log(), "sqrt": lambda a: a.abs().sqrt(),
    "sigmoid": lambda a: a.sigmoid(), "tanh": lambda a: a.tanh(), "relu": lambda a: a.relu(),
    "reciprocal": lambda a: a.reciprocal(), "sin": lambda a: a.sin(),
}
SCALAR_OPS: dict[str, Callable[[Any], Any]] = {
    "add": lambda a: a + 0.00390625 * 1.001, "mul": lambda a: a * 1.0039, "div": lambda a: a / 1.0039,
    "rsub": lambda a: 1.1 - a, "rmul": lambda a: 0.1 * a, "pow": lambda a: a.abs() ** 2,
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op", sorted(BINARY_OPS))
def test_binary_ops_as_torch(op: str, size: int) -> None:
    (a, ta), (b, tb) = random_pair(size, 2), random_pair(size, 3)
    assert_same_bits(BINARY_OPS[op](a.bfloat16(), b.bfloat16()), BINARY_OPS[op](ta.bfloat16(), tb.bfloat16()))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op", sorted(UNARY_OPS))
def test_unary_ops_as_torch(op: str, size: int) -> None:
    """PyTorch computes these in float32 and rounds; float32 results that differ by an ulp may
    round apart only at a bfloat16 tie, so the bits must match nearly everywhere."""
    a, ta = random_pair(size, 4, scale=3.0)
    ours, theirs = UNARY_OPS[op](a.bfloat16()), UNARY_OPS[op](ta.bfloat16())
    assert ours.dtype is minitorch.bfloat16
    mismatched = np.count_nonzero(bits_of(ours) != bits_of(theirs))
    assert mismatched <= size // 1000, f"{op}: {mismatched} of {size} values differ"
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=2**-8)


@pytest.mark.parametrize("op", sorted(SCALAR_OPS))
def test_ops_with_python_numbers_as_torch(op: str) -> None:
    """mul and div meet the number in float32 (PyTorch's opmath), add rounds it to bfloat16 first."""
    a, ta = random_pair(SIZES[1], 5)
    assert_same_bits(SCALAR_OPS[op](a.bfloat16()), SCALAR_OPS[op](ta.bfloat16()))


def test_strided_views_as_torch() -> None:
    a, ta = random_pair(64 * 48, 6)
    ours, theirs = a.bfloat16().view(64, 48), ta.bfloat16().view(64, 48)
    assert_same_bits(ours.T.contiguous(), theirs.T.contiguous())
    assert_same_bits(ours[::2, 1::3] * ours[1::2, ::3], theirs[::2, 1::3] * theirs[1::2, ::3])
    assert_same_bits(ours + ours[0], theirs + theirs[0])


# ---- reductions and matmul ----


@pytest.mark.parametrize("size", [10, 1000, 100_000])
def test_sum_and_mean_accumulate_wide_and_round_once_as_torch(size: int) -> None:
    """A whole-tensor sum larger than PyTorch's grain (32768) stores its threads' partial sums in
    bfloat16, which depends on the thread count: those are compared to the sum rounded once."""
    a, ta = random_pair(size, 7)
    exact = ta.bfloat16().double().sum().bfloat16()
    assert_same_bits(a.bfloat16().sum(), ta.bfloat16().sum() if size < TORCH_GRAIN else exact)
    assert_same_bits(a.bfloat16().mean(), ta.bfloat16().mean())
    assert_same_bits(a.bfloat16().view(10, -1).mean((0, 1)), ta.bfloat16().view(10, -1).mean((0, 1)))
    ours, theirs = a.bfloat16().view(10, -1), ta.bfloat16().view(10, -1)
    assert_same_bits(ours.sum(1), theirs.sum(1))
    assert_same_bits(ours.amax(0), theirs.amax(0))
    assert np.array_equal(ours.argmax(1).numpy(), theirs.argmax(1).numpy())


@pytest.mark.parametrize("shape", [(3, 5, 4), (64, 200, 48)])
def test_matmul_accumulates_in_float32_and_rounds_once_as_torch(shape: tuple[int, int, int]) -> None:
    n, k, m = shape
    (a, ta), (b, tb) = random_pair(n * k, 8), random_pair(k * m, 9)
    ours = a.bfloat16().view(n, k) @ b.bfloat16().view(k, m)
    theirs = ta.bfloat16().view(n, k) @ tb.bfloat16().view(k, m)
    assert ours.dtype is minitorch.bfloat16
    # float32 sums in another order differ in the last float32 bits: a bfloat16 apart only at a tie
    wide = (a.bfloat16().float().view(n, k) @ b.bfloat16().float().view(k, m)).numpy()
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=2**-8, atol=1e-30)
    assert np.array_equal(ours.numpy(), wide.astype(minitorch.bfloat16.numpy))
    assert np.count_nonzero(bits_of(ours) != bits_of(theirs)) <= max(1, n * m // 200)


# ---- a Linear layer in bfloat16 ----


def test_linear_forward_and_backward_with_bfloat16_parameters_as_torch() -> None:
    minitorch.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = minitorch.nn.Linear(6, 3).bfloat16(), torch.nn.Linear(6, 3).bfloat16()
    with torch.no_grad():
        for mine, other in zip(ours.parameters(), theirs.parameters()):
            other.copy_(torch.tensor(mine.detach().float().numpy()))
    x, tx = random_pair(4 * 6, 10)
    out, tout = ours(x.bfloat16().view(4, 6)), theirs(tx.bfloat16().view(4, 6))
    assert_same_bits(out, tout)
    out.square().sum().backward()
    tout.square().sum().backward()
    for mine, other in zip(ours.parameters(), theirs.parameters()):
        assert mine.grad.dtype is minitorch.bfloat16
        np.testing.assert_allclose(mine.grad.float().numpy(), other.grad.float().numpy(), rtol=2**-7)


def test_grads_of_bfloat16_leaves_are_bfloat16_as_torch() -> None:
    x = minitorch.tensor([1.0, 2.0, 3.0], dtype=minitorch.bfloat16, requires_grad=True)
    tx = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16, requires_grad=True)
    (x * x * 1.1).sum().backward()
    (tx * tx * 1.1).sum().backward()
    assert_same_bits(x.grad, tx.grad)


def test_module_bfloat16_casts_floating_state_only() -> None:
    norm = minitorch.nn.BatchNorm1d(3).bfloat16()
    assert norm.weight.dtype is minitorch.bfloat16 and norm.running_mean.dtype is minitorch.bfloat16
    assert norm.num_batches_tracked.dtype is minitorch.int64


# ---- printing ----


@pytest.mark.parametrize("values", [[1.5, 2.25], [1e-3, 3.14159, 1e5], [0.1], [[1.0, -2.0], [3.0, 1e-8]], [1e20, 1.0]])
def test_printing_as_torch(values: list[Any]) -> None:
    ours = str(minitorch.tensor(values, dtype=minitorch.bfloat16)).replace("minitorch.", "torch.")
    assert ours == str(torch.tensor(values, dtype=torch.bfloat16))
    assert repr(minitorch.tensor(2.5, dtype=minitorch.bfloat16)).replace("minitorch.", "torch.") == repr(
        torch.tensor(2.5, dtype=torch.bfloat16))


# ---- serialization ----


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    weights = minitorch.nn.Linear(3, 2).bfloat16().state_dict()
    t = minitorch.tensor(EDGE_VALUES, dtype=minitorch.bfloat16)
    minitorch.save({"t": t, "state": weights}, tmp_path / "bf16.pt")
    loaded = minitorch.load(tmp_path / "bf16.pt")
    assert np.array_equal(bits_of(loaded["t"]), bits_of(t))
    for name, value in weights.items():
        assert loaded["state"][name].dtype is minitorch.bfloat16
        assert np.array_equal(bits_of(loaded["state"][name]), bits_of(value))


def test_safetensors_bf16_both_ways_as_the_reference_writer(tmp_path: Path) -> None:
    safetensors_torch = pytest.importorskip("safetensors.torch")
    values = np.array([v for v in EDGE_VALUES if not math.isnan(v)], np.float32)  # NaN bits vary by path
    ours = {"w": minitorch.tensor(values).bfloat16(), "h": minitorch.tensor([1.5, 2.0]).half()}
    theirs = {"w": torch.tensor(values).bfloat16(), "h": torch.tensor([1.5, 2.0]).half()}
    minitorch.save_safetensors(ours, tmp_path / "ours.safetensors")
    safetensors_torch.save_file(theirs, tmp_path / "theirs.safetensors")
    assert (tmp_path / "ours.safetensors").read_bytes() == (tmp_path / "theirs.safetensors").read_bytes()
    assert_same_bits(minitorch.load_safetensors(tmp_path / "theirs.safetensors")["w"], theirs["w"])
    assert_same_bits(ours["w"], safetensors_torch.load_file(tmp_path / "ours.safetensors")["w"])


# ---- autocast ----


def test_cpu_autocast_defaults_to_bfloat16_as_torch() -> None:
    assert minitorch.get_autocast_dtype("cpu") is minitorch.bfloat16
    assert str(torch.get_autocast_dtype("cpu")) == "torch.bfloat16"


def test_cpu_autocast_runs_a_linear_in_bfloat16_as_torch() -> None:
    minitorch.manual_seed(0)
    ours = minitorch.nn.Linear(5, 3)
    theirs = torch.nn.Linear(5, 3)
    with torch.no_grad():
        for mine, other in zip(ours.parameters(), theirs.parameters()):
            other.copy_(torch.tensor(mine.detach().numpy()))
    x, tx = random_pair(4 * 5, 11)
    with minitorch.autocast("cpu"):
        out = ours(x.view(4, 5))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        tout = theirs(tx.view(4, 5))
    assert_same_bits(out, tout)


def test_cuda_bfloat16_matches_cpu_bit_for_bit() -> None:
    """The cuda backend (Numba's simulator in the suite) widens bfloat16 by its bits and rounds to nearest even."""
    if not minitorch.cuda.is_available():
        pytest.skip("no CUDA GPU, and the simulator is off")
    values = np.concatenate([np.array(EDGE_VALUES, np.float32), np.random.default_rng(12).standard_normal(30)])
    cpu = minitorch.tensor(values.astype(np.float32))
    gpu = cpu.cuda()
    assert np.array_equal(bits_of(gpu.bfloat16().cpu()), bits_of(cpu.bfloat16()))
    a, b = cpu.bfloat16().view(10, 5), gpu.bfloat16().view(10, 5)
    for make in (lambda t: t.T.contiguous() * 1.1 + t.T, lambda t: t.exp().sum(1), lambda t: t @ t.T,
                 lambda t: t.nan_to_num().clamp(-100, 100).long(), lambda t: t.half().bfloat16()):
        expected, got = make(a), make(b).cpu()
        assert np.array_equal(expected.numpy(), got.numpy(), equal_nan=True)
    assert minitorch.cuda.is_bf16_supported()
