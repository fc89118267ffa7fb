"""Quantized tensors and dynamic int8 quantization against PyTorch 2.13.

``int_repr()`` must equal PyTorch's bit for bit (the rounding of its fused multiply-add),
observers must choose the same scales and zero points, and ``quantize_dynamic`` must build
the same modules, state dict keys and integer weights, with outputs equal to PyTorch's
dynamic quantized ``Linear`` up to float32 rounding. The int8 kernel (course task 11.3) has
its own tests in ``test_int8_kernel.py``.
"""

from __future__ import annotations

import io
from collections import OrderedDict
import re
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.ao.nn.quantized.dynamic import Linear as DynamicQuantizedLinear
from minitorch.ao.quantization import (
    MinMaxObserver, PerChannelMinMaxObserver, per_channel_dynamic_qconfig, quantize_dynamic,
)
from minitorch.quantized import QuantizedTensor

from checkpoint_files import rewrite_header

# PyTorch 2.13 warns that its quantized tensors and torch.ao.quantization will move to torchao
pytestmark = [pytest.mark.filterwarnings("ignore:.*quantiz:UserWarning"),
              pytest.mark.filterwarnings("ignore:torch.ao.quantization is deprecated:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Please use quant_min and quant_max:UserWarning")]

RNG = np.random.default_rng(22)
QDTYPES = ["qint8", "quint8", "qint32"]


@pytest.fixture(scope="module")
def torch(torch_ref: ModuleType) -> ModuleType:
    return torch_ref


def values(n: int) -> np.ndarray:
    """float32 values of every magnitude a quantizer meets: typical, clamped, exact halves, zeros."""
    typical = RNG.standard_normal(n).astype(np.float32) * 3
    return np.concatenate([typical, typical * 1e4, np.array([0.0, -0.0, 0.05, -0.05, 0.15, 1e30, -1e30], np.float32)])


def theirs_of(torch: ModuleType, ours: minitorch.Tensor) -> Any:
    return torch.from_numpy(ours.numpy().copy())


@pytest.mark.parametrize("qdtype", QDTYPES)
@pytest.mark.parametrize("scale, zero_point", [(0.1, 3), (0.037, 0), (1 / 3, -2), (1e-5, 1), (2.5, 100)])
def test_quantize_per_tensor_integers_equal_torch(torch: ModuleType, qdtype: str, scale: float, zero_point: int) -> None:
    if qdtype == "quint8":
        zero_point = abs(zero_point)
    x = values(20_000)
    ours = minitorch.quantize_per_tensor(minitorch.from_numpy(x), scale, zero_point, getattr(minitorch, qdtype))
    theirs = torch.quantize_per_tensor(torch.from_numpy(x), scale, zero_point, getattr(torch, qdtype))
    np.testing.assert_array_equal(ours.int_repr().numpy(), theirs.int_repr().numpy())
    # PyTorch subtracts the zero point in int32, which wraps around next to qint32's limits
    # (-2**31 - 3 comes back as +2**31 - 3); minitorch subtracts in int64
    shifted = ours.int_repr().numpy().astype(np.int64) - zero_point
    fits = np.abs(shifted) < 2**31
    np.testing.assert_array_equal(ours.dequantize().numpy()[fits], theirs.dequantize().numpy()[fits])
    assert qdtype == "qint32" or fits.all()
    assert ours.int_repr().dtype.name == str(theirs.int_repr().dtype).removeprefix("torch.")
    assert (ours.q_scale(), ours.q_zero_point()) == (theirs.q_scale(), theirs.q_zero_point())
    assert ours.qscheme() is minitorch.per_tensor_affine and ours.dtype is getattr(minitorch, qdtype)


@pytest.mark.parametrize("qdtype", QDTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_quantize_per_channel_integers_equal_torch(torch: ModuleType, qdtype: str, axis: int) -> None:
    x = (RNG.standard_normal((6, 5, 40)) * 2).astype(np.float32)
    channels = x.shape[axis]
    scales = RNG.uniform(0.005, 0.3, channels)
    low = 0 if qdtype == "quint8" else -20
    zero_points = RNG.integers(low, 20, channels)
    ours = minitorch.quantize_per_channel(minitorch.from_numpy(x), minitorch.from_numpy(scales),
                                          minitorch.from_numpy(zero_points), axis, getattr(minitorch, qdtype))
    theirs = torch.quantize_per_channel(torch.from_numpy(x), torch.from_numpy(scales), torch.from_numpy(zero_points),
                                        axis, getattr(torch, qdtype))
    np.testing.assert_array_equal(ours.int_repr().numpy(), theirs.int_repr().numpy())
    np.testing.assert_array_equal(ours.dequantize().numpy(), theirs.dequantize().numpy())
    np.testing.assert_array_equal(ours.q_per_channel_scales().numpy(), theirs.q_per_channel_scales().numpy())
    np.testing.assert_array_equal(ours.q_per_channel_zero_points().numpy(), theirs.q_per_channel_zero_points().numpy())
    assert ours.q_per_channel_axis() == theirs.q_per_channel_axis() == axis
    assert ours.qscheme() is minitorch.per_channel_affine


def test_a_0d_quantized_tensor_and_an_element_stay_0d_as_torch(torch: ModuleType) -> None:
    shapes = []
    for lib in (minitorch, torch):
        whole = lib.quantize_per_tensor(lib.tensor(1.5), 0.1, 0, lib.quint8)
        element = lib.quantize_per_tensor(lib.tensor([1.5, 2.0]), 0.1, 0, lib.quint8)[1]
        shapes.append([tuple(t.shape) for t in (whole, whole.dequantize(), whole.int_repr(), element, element.dequantize())])
        assert float(element.dequantize()) == 2.0
    assert shapes[0] == shapes[1] == [()] * 5


def test_rounding_is_to_nearest_even_after_the_zero_point_by_hand() -> None:
    # 0.05 / 0.1 is 0.5 in float32 arithmetic: ties go to the even integer, after adding z
    x = minitorch.tensor([0.05, 0.15, 0.25, -0.05, 12.7, 13.0, -12.9, -13.0])
    q = minitorch.quantize_per_tensor(x, 0.1, 1, minitorch.qint8)
    assert q.int_repr().tolist() == [2, 2, 4, 0, 127, 127, -128, -128]
    assert minitorch.quantize_per_tensor(x, 0.1, 0, minitorch.quint8).int_repr().tolist() == [0, 2, 2, 0, 127, 130, 0, 0]


def test_quantized_tensor_reprs_match_torch(torch: ModuleType) -> None:
    x = np.array([[1.0, -1.0, 0.55], [2.0, 0.0, -0.3]], np.float32)
    pairs = [
        (minitorch.quantize_per_tensor(minitorch.from_numpy(x), 0.1, 3, minitorch.qint8),
         torch.quantize_per_tensor(torch.from_numpy(x), 0.1, 3, torch.qint8)),
        (minitorch.quantize_per_channel(minitorch.from_numpy(x), minitorch.tensor([0.1, 0.2], dtype=minitorch.float64),
                                        minitorch.tensor([0, 1]), 0, minitorch.quint8),
         torch.quantize_per_channel(torch.from_numpy(x), torch.tensor([0.1, 0.2], dtype=torch.float64),
                                    torch.tensor([0, 1]), 0, torch.quint8)),
    ]
    pairs.append((pairs[0][0][1], pairs[0][1][1]))
    for ours, theirs in pairs:
        # the same text but for the library's name, which moves the line breaks
        normalise = lambda text: re.sub(r"\s+", " ", text.replace("minitorch.", "torch."))  # noqa: E731
        assert normalise(repr(ours)) == normalise(repr(theirs))


def test_methods_and_errors_of_quantized_tensors() -> None:
    x = minitorch.tensor([[0.5, -0.25], [1.0, 2.0]])
    q = minitorch.quantize_per_tensor(x, 0.25, 0, minitorch.qint8)
    assert q.is_quantized and not x.is_quantized
    assert q.shape == (2, 2) and q.size(1) == 2 and q.dim() == 2 and q.numel() == 4 and len(q) == 2
    assert q.element_size() == 1 and q.nbytes == 4 and q.device.type == "cpu" and not q.requires_grad
    assert minitorch.dequantize(q).tolist() == [[0.5, -0.25], [1.0, 2.0]]
    assert minitorch.dequantize([q, q])[1].tolist() == [[0.5, -0.25], [1.0, 2.0]]
    assert [t.q_scale() for t in minitorch.quantize_per_tensor([x, x], 0.5, 1, minitorch.quint8)] == [0.5, 0.5]
    copy = q.clone()
    assert copy.int_repr().tolist() == q.int_repr().tolist() and copy._integers is not q._integers
    with pytest.raises(NotImplementedError, match="dequantize"):
        q + 1
    with pytest.raises(NotImplementedError, match="dequantize"):
        2 * q
    with pytest.raises(RuntimeError, match="per-channel"):
        q.q_per_channel_scales()
    per_channel = minitorch.quantize_per_channel(x, minitorch.tensor([0.1, 0.2], dtype=minitorch.float64),
                                                 minitorch.tensor([0, 0]), 1, minitorch.qint8)
    with pytest.raises(RuntimeError, match="per-tensor"):
        per_channel.q_scale()
    with pytest.raises(TypeError, match="int_repr"):
        q.numpy()


@pytest.mark.parametrize("make, error, words", [
    (lambda: minitorch.quantize_per_tensor(minitorch.tensor([1.0], dtype=minitorch.float64), 0.1, 0, minitorch.qint8),
     RuntimeError, "float32 tensors, got minitorch.float64"),
    (lambda: minitorch.quantize_per_tensor(minitorch.tensor([1.0]), 0.0, 0, minitorch.qint8),
     RuntimeError, "positive and finite, got 0.0"),
    (lambda: minitorch.quantize_per_tensor(minitorch.tensor([1.0]), -0.5, 0, minitorch.qint8),
     RuntimeError, "positive and finite, got -0.5"),
    (lambda: minitorch.quantize_per_tensor(minitorch.tensor([1.0]), float("inf"), 0, minitorch.qint8),
     RuntimeError, "positive and finite"),
    (lambda: minitorch.quantize_per_tensor(minitorch.tensor([1.0]), 1e-45, 0, minitorch.qint8),
     RuntimeError, "too small"),
    (lambda: minitorch.quantize_per_tensor(minitorch.tensor([1.0]), 0.1, 300, minitorch.qint8),
     RuntimeError, r"zero_point 300 is outside minitorch.qint8's range \[-128, 127\]"),
    (lambda: minitorch.quantize_per_tensor(minitorch.tensor([1.0]), 0.1, -1, minitorch.quint8),
     RuntimeError, r"zero_point -1 is outside minitorch.quint8's range \[0, 255\]"),
    (lambda: minitorch.quantize_per_tensor(minitorch.tensor([1.0]), 0.1, 0, minitorch.int8),
     RuntimeError, "quantized type .* got minitorch.int8"),
    (lambda: minitorch.quantize_per_channel(minitorch.zeros(2, 3), minitorch.tensor([0.1, 0.2, 0.3]),
                                            minitorch.tensor([0, 0, 0]), 0, minitorch.qint8),
     RuntimeError, "scales has 3 entries but the input has 2 channels along axis 0"),
    (lambda: minitorch.quantize_per_channel(minitorch.zeros(2, 3), minitorch.tensor([0.1, 0.2]),
                                            minitorch.tensor([0, 0]), 2, minitorch.qint8),
     IndexError, r"axis 2 is out of range \[0, 2\)"),
    (lambda: minitorch.quantize_per_channel(minitorch.zeros(2, 3), minitorch.tensor([0.1, 0.2, 0.3]),
                                            minitorch.tensor([0, 0, 0]), -1, minitorch.qint8),
     IndexError, r"axis -1 is out of range \[0, 2\)"),
    (lambda: minitorch.zeros(2, dtype=minitorch.qint8), NotImplementedError, "quantize_per_tensor"),
    (lambda: minitorch.ones(2).to(minitorch.quint8), NotImplementedError, "quantized type"),
])
def test_bad_arguments_are_refused_with_the_values(make: Any, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        make()


def test_quantized_dtypes(torch: ModuleType) -> None:
    for name in QDTYPES:
        ours, theirs = getattr(minitorch, name), getattr(torch, name)
        assert ours.itemsize == theirs.itemsize and ours.is_floating_point == theirs.is_floating_point
        assert repr(ours) == repr(theirs).replace("torch", "minitorch")
    assert repr(minitorch.per_channel_symmetric) == "minitorch.per_channel_symmetric"


# ---- observers ----


@pytest.mark.parametrize("qdtype, qscheme, reduce_range", [
    ("qint8", "per_tensor_symmetric", False), ("qint8", "per_tensor_affine", False),
    ("quint8", "per_tensor_affine", True), ("quint8", "per_tensor_symmetric", False),
    ("qint8", "per_tensor_affine", True),
])
def test_min_max_observer_chooses_torchs_qparams(torch: ModuleType, qdtype: str, qscheme: str, reduce_range: bool) -> None:
    ours = MinMaxObserver(dtype=getattr(minitorch, qdtype), qscheme=getattr(minitorch, qscheme), reduce_range=reduce_range)
    theirs = torch.ao.quantization.MinMaxObserver(dtype=getattr(torch, qdtype), qscheme=getattr(torch, qscheme),
                                                  reduce_range=reduce_range)
    for shift in (0.3, -1.7, 0.0):
        batch = (RNG.standard_normal((8, 16)) * 2 + shift).astype(np.float32)
        ours(minitorch.from_numpy(batch))
        theirs(torch.from_numpy(batch))
        (s, z), (ts, tz) = ours.calculate_qparams(), theirs.calculate_qparams()
        np.testing.assert_array_equal(s.numpy(), ts.numpy())
        np.testing.assert_array_equal(z.numpy(), tz.numpy())
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["eps", "min_val", "max_val"]
    np.testing.assert_array_equal(ours.min_val.numpy(), theirs.min_val.numpy())


@pytest.mark.parametrize("qscheme", ["per_channel_symmetric", "per_channel_affine"])
@pytest.mark.parametrize("ch_axis", [0, 1])
def test_per_channel_observer_chooses_torchs_qparams(torch: ModuleType, qscheme: str, ch_axis: int) -> None:
    ours = PerChannelMinMaxObserver(ch_axis=ch_axis, dtype=minitorch.qint8, qscheme=getattr(minitorch, qscheme))
    theirs = torch.ao.quantization.PerChannelMinMaxObserver(ch_axis=ch_axis, dtype=torch.qint8,
                                                            qscheme=getattr(torch, qscheme))
    for _ in range(2):
        batch = (RNG.standard_normal((5, 7)) + RNG.standard_normal(7)).astype(np.float32)
        ours(minitorch.from_numpy(batch))
        theirs(torch.from_numpy(batch))
    (s, z), (ts, tz) = ours.calculate_qparams(), theirs.calculate_qparams()
    np.testing.assert_array_equal(s.numpy(), ts.numpy())
    np.testing.assert_array_equal(z.numpy(), tz.numpy())


# ---- quantize_dynamic ----


def twin_models(torch: ModuleType, sizes: tuple[int, ...] = (16, 32, 8)) -> tuple[nn.Module, Any]:
    """The same float MLP in both libraries."""
    layers: list[Any] = []
    theirs: list[Any] = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
        ours = nn.Linear(fan_in, fan_out)
        twin = torch.nn.Linear(fan_in, fan_out)
        with torch.no_grad():
            twin.weight.copy_(torch.from_numpy(ours.weight.detach().numpy()))
            twin.bias.copy_(torch.from_numpy(ours.bias.detach().numpy()))
        layers.append(ours)
        theirs.append(twin)
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
            theirs.append(torch.nn.ReLU())
    return nn.Sequential(*layers), torch.nn.Sequential(*theirs)


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("inputs", ["mixed", "positive", "zeros", "tiny", "batch of one", "3-d"])
def test_dynamic_linear_matches_torch(torch: ModuleType, per_channel: bool, inputs: str) -> None:
    ours, theirs = twin_models(torch)
    spec_ours = {nn.Linear: per_channel_dynamic_qconfig} if per_channel else {nn.Linear}
    spec_theirs = {torch.nn.Linear: torch.ao.quantization.per_channel_dynamic_qconfig} if per_channel else {torch.nn.Linear}
    q_ours = quantize_dynamic(ours, spec_ours, dtype=minitorch.qint8)
    q_theirs = torch.ao.quantization.quantize_dynamic(theirs, spec_theirs, dtype=torch.qint8)
    shape = {"batch of one": (1, 16), "3-d": (3, 4, 16)}.get(inputs, (9, 16))
    x = RNG.standard_normal(shape).astype(np.float32)
    x = {"positive": np.abs(x), "zeros": np.zeros_like(x), "tiny": x * 1e-6}.get(inputs, x)
    for layer in (0, 2):
        w_ours, w_theirs = q_ours[layer].weight(), q_theirs[layer].weight()
        np.testing.assert_array_equal(w_ours.int_repr().numpy(), w_theirs.int_repr().numpy())
        if per_channel:
            np.testing.assert_array_equal(w_ours.q_per_channel_scales().numpy(), w_theirs.q_per_channel_scales().numpy())
        else:
            assert w_ours.q_scale() == w_theirs.q_scale() and w_ours.q_zero_point() == w_theirs.q_zero_point()
    out = q_ours(minitorch.from_numpy(x))
    expected = q_theirs(torch.from_numpy(x)).numpy()
    assert out.shape == expected.shape and out.grad_fn is None
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-6)
    # and close to the float model: int8 keeps about two decimal digits here
    np.testing.assert_allclose(out.numpy(), ours(minitorch.from_numpy(x)).detach().numpy(), atol=0.05)


def test_quantize_dynamic_builds_torchs_modules_and_state_dict(torch: ModuleType) -> None:
    ours, theirs = twin_models(torch)
    q_ours = quantize_dynamic(ours, {nn.Linear}, dtype=minitorch.qint8)
    q_theirs = torch.ao.quantization.quantize_dynamic(theirs, {torch.nn.Linear}, dtype=torch.qint8)
    assert repr(q_ours) == repr(q_theirs).replace("torch.", "minitorch.")
    assert list(q_ours.state_dict()) == list(q_theirs.state_dict())
    assert [name for name, _ in q_ours.named_modules()] == [name for name, _ in q_theirs.named_modules()]
    assert list(q_ours.parameters()) == [] and not q_ours.training
    assert isinstance(ours[0], nn.Linear) and ours.training  # the original is untouched
    entry = q_ours.state_dict()["0._packed_params._packed_params"]
    assert isinstance(entry, tuple) and isinstance(entry[0], QuantizedTensor) and entry[1].shape == (32,)
    assert q_ours.state_dict()["0._packed_params.dtype"] is minitorch.qint8


def to_torch_state(torch: ModuleType, state: dict) -> dict:
    """Our quantized state dict as PyTorch's objects (through the integers and parameters)."""
    out: Any = OrderedDict()
    out._metadata = state._metadata  # the modules' format versions
    for key, value in state.items():
        if isinstance(value, tuple):
            weight, bias = value
            ints = torch.from_numpy(weight.int_repr().numpy())
            qweight = torch._make_per_tensor_quantized_tensor(ints, weight.q_scale(), weight.q_zero_point())
            value = (qweight, torch.from_numpy(bias.detach().numpy()))
        elif isinstance(value, minitorch.dtype):
            value = getattr(torch, value.name)
        else:
            value = torch.from_numpy(value.numpy())
        out[key] = value
    return out


def from_torch_state(torch: ModuleType, state: dict) -> dict:
    out: Any = OrderedDict()
    out._metadata = state._metadata
    for key, value in state.items():
        if isinstance(value, tuple):
            weight, bias = value
            ints = weight.int_repr().numpy()
            qweight = minitorch.quantize_per_tensor(minitorch.zeros(*ints.shape), weight.q_scale(),
                                                    weight.q_zero_point(), minitorch.qint8)
            qweight._integers[...] = ints
            value = (qweight, minitorch.from_numpy(bias.detach().numpy().copy()))
        elif isinstance(value, torch.dtype):
            value = getattr(minitorch, str(value).removeprefix("torch."))
        else:
            value = minitorch.from_numpy(value.numpy().copy())
        out[key] = value
    return out


def test_quantized_state_dicts_load_both_ways(torch: ModuleType) -> None:
    ours, theirs = twin_models(torch)
    q_ours = quantize_dynamic(ours, {nn.Linear})
    q_theirs = torch.ao.quantization.quantize_dynamic(theirs, {torch.nn.Linear})
    fresh_ours = quantize_dynamic(twin_models(torch)[0], {nn.Linear})
    fresh_theirs = torch.ao.quantization.quantize_dynamic(twin_models(torch)[1], {torch.nn.Linear})
    fresh_ours.load_state_dict(from_torch_state(torch, q_theirs.state_dict()))
    fresh_theirs.load_state_dict(to_torch_state(torch, q_ours.state_dict()))
    x = RNG.standard_normal((5, 16)).astype(np.float32)
    np.testing.assert_allclose(fresh_ours(minitorch.from_numpy(x)).numpy(), q_theirs(torch.from_numpy(x)).numpy(),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fresh_theirs(torch.from_numpy(x)).numpy(), q_ours(minitorch.from_numpy(x)).numpy(),
                               rtol=1e-6, atol=1e-6)


def test_quantized_checkpoints_round_trip_and_shrink() -> None:
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    for spec in ({nn.Linear}, {nn.Linear: per_channel_dynamic_qconfig}):
        quantized = quantize_dynamic(model, spec)
        buffer = io.BytesIO()
        minitorch.save(quantized.state_dict(), buffer)
        buffer.seek(0)
        loaded = minitorch.load(buffer)
        restored = quantize_dynamic(nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)), {nn.Linear})
        restored.load_state_dict(loaded)
        x = minitorch.randn(4, 64)
        assert minitorch.equal(restored(x), quantized(x))
        weight = loaded["0._packed_params._packed_params"][0]
        assert weight.qscheme() is quantized[0].weight().qscheme()
        assert weight.int_repr().tolist() == quantized[0].weight().int_repr().tolist()
    float_bytes = sum(p.numel() * p.element_size() for name, p in model.named_parameters() if "weight" in name)
    int8_bytes = sum(layer.weight().nbytes for layer in quantized.modules() if isinstance(layer, DynamicQuantizedLinear))
    assert float_bytes == 4 * int8_bytes


def test_quantize_dynamic_options() -> None:
    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = nn.Linear(4, 4)
            self.head = nn.Linear(4, 2)

        def forward(self, x: minitorch.Tensor) -> minitorch.Tensor:
            return self.head(self.inner(x))

    class MyLinear(nn.Linear):
        pass

    model = nn.Sequential(Block(), MyLinear(2, 2))
    calls = []
    model[0].head.register_forward_hook(lambda module, args, out: calls.append(out.shape))
    by_name = quantize_dynamic(model, {"0.head"})
    assert isinstance(by_name[0].inner, nn.Linear) and not isinstance(by_name[0].head, nn.Linear)
    assert isinstance(by_name[1], MyLinear)  # types match exactly, as in PyTorch
    by_name(minitorch.randn(3, 4))
    assert calls == [(3, 2)]  # the forward hook moved to the quantized module
    in_place = quantize_dynamic(model, {nn.Linear}, inplace=True)
    assert in_place is model and type(model[0].inner) is DynamicQuantizedLinear and type(model[1]) is MyLinear
    assert not any("qconfig" in vars(m) for m in model.modules())
    with pytest.raises(NotImplementedError, match=r"no dynamic quantized LSTM \(module '1'\)"):
        quantize_dynamic(nn.Sequential(nn.Linear(2, 2), nn.LSTM(2, 2)))
    with pytest.raises(NotImplementedError, match="qint8 only, got minitorch.float16"):
        quantize_dynamic(model, {nn.Linear}, dtype=minitorch.float16)
    quantized = quantize_dynamic(nn.Sequential(nn.Linear(3, 2)), {nn.Linear})
    with pytest.raises(RuntimeError, match="float32 input, got minitorch.float64"):
        quantized(minitorch.zeros(1, 3, dtype=minitorch.float64))
    with pytest.raises(RuntimeError, match=r"input of shape \(1, 4\), weight of shape \(2, 3\)"):
        quantized(minitorch.zeros(1, 4))


def test_digits_mlp_keeps_its_accuracy_at_a_quarter_of_the_bytes() -> None:
    pytest.importorskip("sklearn")
    from minitorch.datasets import digits_split

    train, test = digits_split()
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = minitorch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(30):
        for start in range(0, len(train), 128):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(train.X[start:start + 128]), train.y[start:start + 128])
            loss.backward()
            optimizer.step()
    model.eval()
    quantized = quantize_dynamic(model, {nn.Linear})

    def accuracy(m: nn.Module) -> float:
        with minitorch.no_grad():
            return float((m(test.X).argmax(dim=1) == test.y).float().mean().item()) * 100

    float_accuracy, int8_accuracy = accuracy(model), accuracy(quantized)
    assert float_accuracy > 90
    assert abs(float_accuracy - int8_accuracy) <= 1.0


def saved(obj: Any) -> bytes:
    buffer = io.BytesIO()
    minitorch.save(obj, buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("edit, words", [
    (lambda node: node.update(scale=-0.5), "positive and finite, got -0.5"),
    (lambda node: node.update(scale=True), "numbers, not booleans"),
    (lambda node: node.update(zero_point=1000), "zero_point 1000 is outside"),
    (lambda node: node.update(zero_point=1.5), "zero points must be integers, got float64"),
    (lambda node: node.update(dtype="int8"), "unknown quantized dtype 'int8'"),
    (lambda node: node.update(qscheme="os.system"), "unknown quantization scheme 'os.system'"),
    (lambda node: node.update(qscheme="per_channel_affine", axis=5), "axis 5 is not a dimension"),
    (lambda node: node.update(qscheme="per_channel_affine", axis=0), "needs scales and zero points of shape"),
    (lambda node: node.pop("int_repr"), "needs 'int_repr'"),
    (lambda node: node.update(int_repr=3), "must be int8, got int"),
])
def test_hostile_quantized_tensors_in_a_checkpoint_are_refused(edit: Any, words: str) -> None:
    q = minitorch.quantize_per_tensor(minitorch.tensor([[0.5, -1.0]]), 0.25, 1, minitorch.qint8)
    raw = rewrite_header(saved({"w": q}), lambda header: edit(header["root"]["items"][0][1]))
    with pytest.raises(minitorch.SerializationError, match=words):
        minitorch.load(io.BytesIO(raw))


def test_a_quantized_tensor_with_the_wrong_integers_is_refused() -> None:
    q = minitorch.quantize_per_tensor(minitorch.tensor([0.5, -1.0]), 0.25, 1, minitorch.quint8)
    raw = rewrite_header(saved(q), lambda header: header["root"].update(dtype="qint32"))
    with pytest.raises(minitorch.SerializationError, match="integers of a minitorch.qint32 tensor must be int32, got minitorch.uint8"):
        minitorch.load(io.BytesIO(raw))
    loaded = minitorch.load(io.BytesIO(saved(q)))
    assert loaded.dtype is minitorch.quint8 and loaded.int_repr().tolist() == q.int_repr().tolist()


def test_the_activation_kernel_rounds_as_quantize_per_tensor() -> None:
    from minitorch.backends.cpu_int8 import quantize_u8

    x = np.concatenate([values(50_000), np.arange(-200, 200, dtype=np.float32) * np.float32(0.05),
                        np.array([np.nan, np.inf, -np.inf], np.float32)])
    for scale, zero_point in ((0.05, 3), (0.1, 0), (0.0123456, 128), (1 / 3, 255)):
        expected = minitorch.quantize_per_tensor(minitorch.from_numpy(x[:-3]), scale, zero_point, minitorch.quint8)
        got = quantize_u8(x, scale, zero_point)
        np.testing.assert_array_equal(got[:-3], expected.int_repr().numpy())
        assert got[-3:].tolist() == [0, 255, 0]  # NaN to 0, infinities clamped


def test_the_older_module_name_is_the_same_module() -> None:
    import minitorch.quantization as older
    from minitorch.quantization import quantize_dynamic as older_function

    assert older is minitorch.ao.quantization and older_function is quantize_dynamic
