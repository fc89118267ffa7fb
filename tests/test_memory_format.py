"""Memory formats (``contiguous_format``, ``channels_last``, ``channels_last_3d``,
``preserve_format``) against PyTorch: strides, both ``is_contiguous`` answers, values,
gradients, errors and ``Module.to(memory_format=...)``.

Every layout is built the same way in both libraries from the same values (the ``LAYOUTS``
recipes take the library as an argument), so PyTorch answers each question for exactly the
tensor minitorch answers it for.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any, Callable, Optional

import numpy as np
import pytest

import minitorch

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]
COPY_FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]

VALUES_4D = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5) / 7
VALUES_5D = np.arange(2 * 3 * 2 * 4 * 5, dtype=np.float64).reshape(2, 3, 2, 4, 5) / 11


def _t(lib: Any, values: np.ndarray) -> Any:
    return lib.tensor(values)


#: the same layout in either library: ``recipe(lib)`` builds it from fixed values
LAYOUTS: dict[str, Callable[[Any], Any]] = {
    "row-major 4-D": lambda lib: _t(lib, VALUES_4D),
    "NHWC permuted back": lambda lib: _t(lib, VALUES_4D).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
    "contiguous(channels_last)": lambda lib: _t(lib, VALUES_4D).contiguous(memory_format=lib.channels_last),
    "one channel": lambda lib: _t(lib, VALUES_4D)[:, :1],
    "one channel, channels-last copy": lambda lib: _t(lib, VALUES_4D)[:, :1].clone(memory_format=lib.channels_last),
    "batch of one, channels last": lambda lib: _t(lib, VALUES_4D)[:1].contiguous(memory_format=lib.channels_last),
    "1x1 pixels, sliced": lambda lib: _t(lib, VALUES_4D)[:, :, :1, :1],
    "1x1 pixels, compact": lambda lib: _t(lib, VALUES_4D)[:, :, :1, :1].contiguous(),
    "1x1 pixels, channels-last copy": lambda lib: _t(lib, VALUES_4D)[:, :, :1, :1].clone(memory_format=lib.channels_last),
    "channels last, every other row": lambda lib: _t(lib, VALUES_4D).contiguous(memory_format=lib.channels_last)[:, :, ::2],
    "row-major, every other row": lambda lib: _t(lib, VALUES_4D)[:, :, ::2],
    "channels broadcast": lambda lib: _t(lib, VALUES_4D)[:, :1].expand(2, 3, 4, 5),
    "H and W swapped": lambda lib: _t(lib, VALUES_4D).transpose(2, 3),
    "NWHC permuted back": lambda lib: _t(lib, VALUES_4D).permute(0, 3, 2, 1).contiguous().permute(0, 3, 2, 1),
    "batch innermost": lambda lib: _t(lib, VALUES_4D).permute(1, 2, 3, 0).contiguous().permute(3, 0, 1, 2),
    "3-D": lambda lib: _t(lib, VALUES_4D)[0],
    "3-D transposed": lambda lib: _t(lib, VALUES_4D)[0].transpose(0, 2),
    "row-major 5-D": lambda lib: _t(lib, VALUES_5D),
    "contiguous(channels_last_3d)": lambda lib: _t(lib, VALUES_5D).contiguous(memory_format=lib.channels_last_3d),
    "NDHWC permuted back": lambda lib: _t(lib, VALUES_5D).permute(0, 2, 3, 4, 1).contiguous().permute(0, 4, 1, 2, 3),
    "5-D one channel, channels-last copy": lambda lib: _t(lib, VALUES_5D)[:, :1].clone(memory_format=lib.channels_last_3d),
    "5-D channels last, every other row": lambda lib: (
        _t(lib, VALUES_5D).contiguous(memory_format=lib.channels_last_3d)[:, :, :, ::2]),
    "empty channels, channels last": lambda lib: lib.zeros(2, 0, 4, 5).contiguous(memory_format=lib.channels_last),
    "empty batch, channels last": lambda lib: lib.zeros(0, 3, 4, 5).contiguous(memory_format=lib.channels_last),
}

def _fmt(lib: Any, name: Optional[str]) -> Any:
    return None if name is None else getattr(lib, name)


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", value)`` or ``(exception type name, message)``, to compare the two libraries."""
    try:
        return "ok", call()
    except (RuntimeError, TypeError, ValueError) as error:
        return type(error).__name__, str(error)


def _same_outcome(ours: Callable[[], Any], theirs: Callable[[], Any], describe: Callable[[Any], Any]) -> None:
    kind_ours, ours_value = _outcome(ours)
    kind_theirs, theirs_value = _outcome(theirs)
    assert kind_ours == kind_theirs, (ours_value, theirs_value)
    if kind_ours == "ok":
        assert describe(ours_value) == describe(theirs_value)
    else:
        assert ours_value == theirs_value.replace("torch.", "minitorch.")


def _layout(t: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(t.shape), tuple(t.stride())


# ---- the constants ----


@pytest.mark.parametrize("name", FORMATS)
def test_constants_print_and_copy_as_torch(name: str, torch_ref: Any) -> None:
    fmt = getattr(minitorch, name)
    assert repr(fmt) == repr(getattr(torch_ref, name)).replace("torch.", "minitorch.")
    assert str(fmt) == str(getattr(torch_ref, name)).replace("torch.", "minitorch.")
    assert isinstance(fmt, minitorch.memory_format)
    assert copy.copy(fmt) is fmt and copy.deepcopy(fmt) is fmt
    assert pickle.loads(pickle.dumps(fmt)) is fmt


def test_constants_are_distinct() -> None:
    assert len({id(getattr(minitorch, name)) for name in FORMATS}) == len(FORMATS)


# ---- layouts: strides and is_contiguous ----


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_layout_recipes_agree(layout: str, torch_ref: Any) -> None:
    ours, theirs = LAYOUTS[layout](minitorch), LAYOUTS[layout](torch_ref)
    assert _layout(ours) == _layout(theirs)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_is_contiguous_answers_as_torch(layout: str, fmt: str, torch_ref: Any) -> None:
    ours, theirs = LAYOUTS[layout](minitorch), LAYOUTS[layout](torch_ref)
    assert ours.is_contiguous(memory_format=_fmt(minitorch, fmt)) == theirs.is_contiguous(memory_format=_fmt(torch_ref, fmt))


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_is_contiguous_default_is_row_major(layout: str, torch_ref: Any) -> None:
    ours, theirs = LAYOUTS[layout](minitorch), LAYOUTS[layout](torch_ref)
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert ours.is_contiguous() == ours.is_contiguous(memory_format=minitorch.contiguous_format)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_contiguous_in_each_format(layout: str, fmt: str, torch_ref: Any) -> None:
    """Strides, values and whether the tensor itself comes back, or the same error."""
    ours, theirs = LAYOUTS[layout](minitorch), LAYOUTS[layout](torch_ref)

    def describe(pair: tuple[Any, Any]) -> tuple:
        source, result = pair
        return _layout(result), result is source, result.detach().numpy().tolist()

    _same_outcome(lambda: (ours, ours.contiguous(memory_format=_fmt(minitorch, fmt))),
                  lambda: (theirs, theirs.contiguous(memory_format=_fmt(torch_ref, fmt))), describe)


@pytest.mark.parametrize("fmt", COPY_FORMATS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_clone_in_each_format(layout: str, fmt: str, torch_ref: Any) -> None:
    ours, theirs = LAYOUTS[layout](minitorch), LAYOUTS[layout](torch_ref)

    def describe(result: Any) -> tuple:
        return _layout(result), result.numpy().tolist()

    _same_outcome(lambda: ours.clone(memory_format=_fmt(minitorch, fmt)),
                  lambda: theirs.clone(memory_format=_fmt(torch_ref, fmt)), describe)
    _same_outcome(lambda: minitorch.clone(ours, memory_format=_fmt(minitorch, fmt)),
                  lambda: torch_ref.clone(theirs, memory_format=_fmt(torch_ref, fmt)), describe)


def test_clone_without_memory_format_stays_row_major() -> None:
    """minitorch's plain ``clone()`` (and ``to(dtype)``) copy row-major, as before memory formats:
    PyTorch's default keeps the layout (``preserve_format``); the values are the same."""
    x = LAYOUTS["contiguous(channels_last)"](minitorch)
    assert x.clone().is_contiguous() and x.clone(memory_format=None).is_contiguous()
    assert x.to(minitorch.float32).is_contiguous()
    np.testing.assert_array_equal(x.clone().numpy(), x.numpy())


# ---- to(memory_format=...) in each of PyTorch's call forms ----

TO_CALLS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "to(memory_format=)": lambda lib, t, fmt: t.to(memory_format=fmt),
    "to(dtype, memory_format=)": lambda lib, t, fmt: t.to(lib.float32, memory_format=fmt),
    "to(same dtype, memory_format=)": lambda lib, t, fmt: t.to(lib.float64, memory_format=fmt),
    "to(device, memory_format=)": lambda lib, t, fmt: t.to("cpu", memory_format=fmt),
    "to(device, dtype, memory_format=)": lambda lib, t, fmt: t.to("cpu", lib.float32, memory_format=fmt),
    "to(device=, dtype=, memory_format=)": lambda lib, t, fmt: t.to(device=lib.device("cpu"), dtype=lib.float64,
                                                                    memory_format=fmt),
    "to(tensor, memory_format=)": lambda lib, t, fmt: t.to(lib.zeros(1, dtype=lib.float32), memory_format=fmt),
    "to(dtype, non_blocking, copy, memory_format=)": lambda lib, t, fmt: t.to(lib.float64, False, True, memory_format=fmt),
    "to(device, dtype, non_blocking, copy, memory_format=)": lambda lib, t, fmt: t.to("cpu", lib.float64, False, False,
                                                                                      memory_format=fmt),
    "to(copy=True, memory_format=)": lambda lib, t, fmt: t.to(copy=True, memory_format=fmt),
    "to(memory_format=None)": lambda lib, t, fmt: t.to(memory_format=None),
}


@pytest.mark.parametrize("fmt", COPY_FORMATS)
@pytest.mark.parametrize("call", list(TO_CALLS))
@pytest.mark.parametrize("layout", ["row-major 4-D", "contiguous(channels_last)", "channels last, every other row",
                                    "H and W swapped", "one channel", "3-D transposed", "row-major 5-D",
                                    "contiguous(channels_last_3d)"])
def test_to_with_memory_format(layout: str, call: str, fmt: str, torch_ref: Any) -> None:
    ours, theirs = LAYOUTS[layout](minitorch), LAYOUTS[layout](torch_ref)

    def describe(pair: tuple[Any, Any]) -> tuple:
        source, result = pair
        return _layout(result), result is source, str(result.dtype).split(".")[-1], result.numpy().tolist()

    _same_outcome(lambda: (ours, TO_CALLS[call](minitorch, ours, _fmt(minitorch, fmt))),
                  lambda: (theirs, TO_CALLS[call](torch_ref, theirs, _fmt(torch_ref, fmt))), describe)


# ---- factories ----

LIKE_CALLS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "empty_like": lambda lib, t, fmt: lib.empty_like(t, memory_format=fmt),
    "zeros_like": lambda lib, t, fmt: lib.zeros_like(t, memory_format=fmt),
    "ones_like": lambda lib, t, fmt: lib.ones_like(t, memory_format=fmt),
    "full_like": lambda lib, t, fmt: lib.full_like(t, 2.5, memory_format=fmt),
    "rand_like": lambda lib, t, fmt: lib.rand_like(t, memory_format=fmt),
    "randn_like": lambda lib, t, fmt: lib.randn_like(t, memory_format=fmt),
    "randint_like": lambda lib, t, fmt: lib.randint_like(t, 3, 9, memory_format=fmt),
}


@pytest.mark.parametrize("fmt", COPY_FORMATS)
@pytest.mark.parametrize("maker", list(LIKE_CALLS))
@pytest.mark.parametrize("layout", ["row-major 4-D", "contiguous(channels_last)", "channels last, every other row",
                                    "H and W swapped", "channels broadcast", "3-D transposed",
                                    "contiguous(channels_last_3d)"])
def test_like_factories_with_memory_format(layout: str, maker: str, fmt: str, torch_ref: Any) -> None:
    ours, theirs = LAYOUTS[layout](minitorch), LAYOUTS[layout](torch_ref)

    def describe(result: Any) -> tuple:
        values = result.numpy()
        if maker in ("zeros_like", "ones_like", "full_like"):
            shown: Any = values.tolist()
        elif maker == "randint_like":
            shown = bool(((values >= 3) & (values < 9)).all())
        else:
            shown = values.shape
        return _layout(result), str(result.dtype).split(".")[-1], shown

    _same_outcome(lambda: LIKE_CALLS[maker](minitorch, ours, _fmt(minitorch, fmt)),
                  lambda: LIKE_CALLS[maker](torch_ref, theirs, _fmt(torch_ref, fmt)), describe)


def test_like_factory_keeps_requires_grad_and_dtype(torch_ref: Any) -> None:
    x = LAYOUTS["row-major 4-D"](minitorch)
    made = minitorch.zeros_like(x, dtype=minitorch.float32, requires_grad=True, memory_format=minitorch.channels_last)
    reference = torch_ref.zeros_like(LAYOUTS["row-major 4-D"](torch_ref), dtype=torch_ref.float32, requires_grad=True,
                                     memory_format=torch_ref.channels_last)
    assert made.requires_grad and made.is_leaf and made.dtype == minitorch.float32
    assert made.stride() == reference.stride()


@pytest.mark.parametrize("fmt", [None, *COPY_FORMATS])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 0, 4, 5), (1, 3, 1, 1), (3, 4, 5), (2, 3, 2, 4, 5)])
def test_empty_with_memory_format(shape: tuple[int, ...], fmt: Optional[str], torch_ref: Any) -> None:
    _same_outcome(lambda: minitorch.empty(*shape, memory_format=_fmt(minitorch, fmt)),
                  lambda: torch_ref.empty(*shape, memory_format=_fmt(torch_ref, fmt)), _layout)


# ---- gradients ----

GRAD_CALLS: dict[str, tuple[Callable[[Any, Any], Any], str]] = {
    "contiguous(channels_last)": (lambda lib, t: t.contiguous(memory_format=lib.channels_last), "CloneBackward0"),
    "clone(channels_last)": (lambda lib, t: t.clone(memory_format=lib.channels_last), "CloneBackward0"),
    "clone(preserve_format)": (lambda lib, t: t.clone(memory_format=lib.preserve_format), "CloneBackward0"),
    "to(channels_last)": (lambda lib, t: t.to(memory_format=lib.channels_last), "ToCopyBackward0"),
    "to(float32, channels_last)": (lambda lib, t: t.to(lib.float32, memory_format=lib.channels_last),
                                   "ToCopyBackward0"),
    "to(copy, contiguous_format)": (lambda lib, t: t.to(copy=True, memory_format=lib.contiguous_format),
                                    "ToCopyBackward0"),
}


@pytest.mark.parametrize("call", list(GRAD_CALLS))
@pytest.mark.parametrize("layout", ["row-major 4-D", "H and W swapped"])
def test_gradients_flow_through_layout_copies(layout: str, call: str, torch_ref: Any) -> None:
    weights = np.cos(np.arange(VALUES_4D.size)).reshape(VALUES_4D.shape)
    operation, node = GRAD_CALLS[call]
    grads = []
    for lib in (minitorch, torch_ref):
        leaf = lib.tensor(VALUES_4D, requires_grad=True)
        source = leaf.transpose(2, 3).transpose(2, 3) if layout == "H and W swapped" else leaf
        out = operation(lib, source)
        assert type(out.grad_fn).__name__ == node
        ((out * lib.tensor(weights, dtype=out.dtype)) ** 2).sum().backward()
        assert leaf.grad.dtype == leaf.dtype
        grads.append(leaf.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


# ---- errors ----

ERROR_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "contiguous(channels_last) of 3-D": lambda lib, t: t[0].contiguous(memory_format=lib.channels_last),
    "contiguous(channels_last_3d) of 4-D": lambda lib, t: t.contiguous(memory_format=lib.channels_last_3d),
    "contiguous(preserve_format) of a strided": lambda lib, t: t.transpose(2, 3).contiguous(
        memory_format=lib.preserve_format),
    "contiguous(None)": lambda lib, t: t.contiguous(memory_format=None),
    "contiguous('channels_last')": lambda lib, t: t.contiguous(memory_format="channels_last"),
    "is_contiguous(None)": lambda lib, t: t.is_contiguous(memory_format=None),
    "clone(channels_last) of 3-D": lambda lib, t: t[0].clone(memory_format=lib.channels_last),
    "clone(channels_last) of 5-D": lambda lib, t: t.unsqueeze(0).clone(memory_format=lib.channels_last),
    "clone(3)": lambda lib, t: t.clone(memory_format=3),
    "to(channels_last) of 3-D": lambda lib, t: t[0].to(memory_format=lib.channels_last),
    "to(float32, channels_last_3d) of 4-D": lambda lib, t: t.to(lib.float32, memory_format=lib.channels_last_3d),
    "empty(preserve_format)": lambda lib, t: lib.empty(2, 3, 4, 5, memory_format=lib.preserve_format),
    "empty(channels_last) of 3-D": lambda lib, t: lib.empty(3, 4, 5, memory_format=lib.channels_last),
    "empty('x')": lambda lib, t: lib.empty(3, 4, 5, memory_format="x"),
    "zeros_like(channels_last) of 3-D": lambda lib, t: lib.zeros_like(t[0], memory_format=lib.channels_last),
    "ones_like(channels_last_3d) of 4-D": lambda lib, t: lib.ones_like(t, memory_format=lib.channels_last_3d),
    "full_like('x')": lambda lib, t: lib.full_like(t, 1.0, memory_format="x"),
    "randn_like(channels_last) of 3-D": lambda lib, t: lib.randn_like(t[0], memory_format=lib.channels_last),
}


@pytest.mark.parametrize("call", list(ERROR_CALLS))
def test_errors_as_torch(call: str, torch_ref: Any) -> None:
    kind_ours, message_ours = _outcome(lambda: ERROR_CALLS[call](minitorch, _t(minitorch, VALUES_4D)))
    kind_theirs, message_theirs = _outcome(lambda: ERROR_CALLS[call](torch_ref, _t(torch_ref, VALUES_4D)))
    assert kind_theirs != "ok"
    assert kind_ours == kind_theirs
    assert message_ours == message_theirs.replace("torch.", "minitorch.")


@pytest.mark.parametrize("call", ["to(memory_format='x')", "to(dtype, memory_format='x')",
                                  "to(dtype, non_blocking, copy, format)"])
def test_to_rejects_a_memory_format_of_another_type(call: str, torch_ref: Any) -> None:
    """PyTorch names its overloads; minitorch names the argument: both raise TypeError."""
    calls = {
        "to(memory_format='x')": lambda lib, t: t.to(memory_format="x"),
        "to(dtype, memory_format='x')": lambda lib, t: t.to(lib.float32, memory_format="x"),
        "to(dtype, non_blocking, copy, format)": lambda lib, t: t.to(lib.float32, False, False, lib.channels_last),
    }
    for lib in (minitorch, torch_ref):
        with pytest.raises(TypeError):
            calls[call](lib, _t(lib, VALUES_4D))


# ---- op results keep a channels-last layout ----

def _bias(lib: Any, x: Any) -> Any:
    """One value per channel, shaped to broadcast over ``x``'s other dimensions."""
    return lib.arange(1.0, 1.0 + x.shape[1], dtype=x.dtype).reshape(1, -1, *(1,) * (x.dim() - 2))


OP_CALLS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "x + y": lambda lib, x, y: x + y,
    "x * 2": lambda lib, x, y: x * 2,
    "2 * x": lambda lib, x, y: 2 * x,
    "x - bias": lambda lib, x, y: x - _bias(lib, x),
    "bias + x": lambda lib, x, y: _bias(lib, x) + x,
    "x + row-major": lambda lib, x, y: x + y.contiguous(),
    "row-major + x": lambda lib, x, y: y.contiguous() + x,
    "x > y": lambda lib, x, y: x > y,
    "exp": lambda lib, x, y: x.exp(),
    "neg": lambda lib, x, y: -x,
    "relu": lambda lib, x, y: lib.relu(x - 1),
    "sigmoid": lambda lib, x, y: lib.sigmoid(x),
    "x.clone()": lambda lib, x, y: x.clone(memory_format=lib.preserve_format) * 1,
}


@pytest.mark.parametrize("op", list(OP_CALLS))
@pytest.mark.parametrize("layout", ["contiguous(channels_last)", "NHWC permuted back", "batch of one, channels last",
                                    "one channel, channels-last copy", "1x1 pixels, channels-last copy",
                                    "contiguous(channels_last_3d)", "row-major 4-D"])
def test_elementwise_results_keep_channels_last(layout: str, op: str, backend: str, torch_ref: Any) -> None:
    """The result is channels-last contiguous exactly where PyTorch's is, with the same values."""
    results = []
    for lib in (minitorch, torch_ref):
        x = LAYOUTS[layout](lib)
        y = (x * 0.5 + 1).clone(memory_format=lib.preserve_format)
        results.append(OP_CALLS[op](lib, x, y))
    ours, theirs = results
    for fmt in ("contiguous_format", "channels_last", "channels_last_3d"):
        expected = theirs.is_contiguous(memory_format=_fmt(torch_ref, fmt))
        assert ours.is_contiguous(memory_format=_fmt(minitorch, fmt)) == expected, fmt
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


# ---- a channels-last model against PyTorch ----

MODEL_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "conv2d": lambda lib, x: lib.nn.functional.conv2d(x, lib.tensor(np.sin(np.arange(54.0)).reshape(2, 3, 3, 3)), padding=1),
    "batch_norm": lambda lib, x: lib.nn.functional.batch_norm(x, None, None, training=True),
    "max_pool2d": lambda lib, x: lib.nn.functional.max_pool2d(x, 2),
    "avg_pool2d": lambda lib, x: lib.nn.functional.avg_pool2d(x, 2, stride=1),
    "adaptive_avg_pool2d": lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 1),
    "interpolate": lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
    "pad": lambda lib, x: lib.nn.functional.pad(x, (1, 2, 0, 1)),
    "softmax over channels": lambda lib, x: lib.softmax(x, dim=1),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, (3, 4, 5)),
    "flatten": lambda lib, x: x.flatten(1),
    "sum over pixels": lambda lib, x: x.sum((2, 3)),
    "mean over channels": lambda lib, x: x.mean(1, keepdim=True),
    "reshape": lambda lib, x: x.reshape(2, 3, 20),
    "permute to NHWC": lambda lib, x: x.permute(0, 2, 3, 1).reshape(-1, 3),
    "matmul": lambda lib, x: x @ lib.tensor(np.ones((5, 2))),
}


@pytest.mark.parametrize("op", list(MODEL_OPS))
def test_ops_on_channels_last_inputs_as_torch(op: str, torch_ref: Any) -> None:
    """Values and input gradients of common layers on a channels-last input."""
    outputs, grads = [], []
    for lib in (minitorch, torch_ref):
        leaf = lib.tensor(VALUES_4D, requires_grad=True)
        x = (leaf.contiguous(memory_format=lib.channels_last) * 1.5).sin()
        out = MODEL_OPS[op](lib, x)
        (out * out).sum().backward()
        outputs.append(out.detach().numpy())
        grads.append(leaf.grad.numpy())
    np.testing.assert_allclose(outputs[0], outputs[1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-12)


def _small_net(lib: Any) -> Any:
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Conv2d(4, 2, 1),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2, 3))


def _twin_nets(torch_ref: Any) -> tuple[Any, Any]:
    theirs = _small_net(torch_ref).double()
    ours = _small_net(minitorch).double()
    ours.load_state_dict({name: minitorch.tensor(value.detach().numpy()) for name, value in theirs.state_dict().items()})
    return ours, theirs


def _tensors(model: Any) -> dict[str, Any]:
    return {**dict(model.named_parameters()), **dict(model.named_buffers())}


@pytest.mark.parametrize("call", ["to(memory_format=channels_last)", "to(float32, memory_format=channels_last)",
                                  "to(cpu, memory_format=contiguous_format)", "to(memory_format=preserve_format)"])
def test_module_to_lays_out_4d_parameters(call: str, torch_ref: Any) -> None:
    calls = {
        "to(memory_format=channels_last)": lambda lib, m: m.to(memory_format=lib.channels_last),
        "to(float32, memory_format=channels_last)": lambda lib, m: m.to(lib.float32, memory_format=lib.channels_last),
        "to(cpu, memory_format=contiguous_format)": lambda lib, m: m.to("cpu", memory_format=lib.contiguous_format),
        "to(memory_format=preserve_format)": lambda lib, m: m.to(memory_format=lib.preserve_format),
    }
    ours, theirs = _twin_nets(torch_ref)
    weight_ours, weight_theirs = ours[0].weight, theirs[0].weight
    assert calls[call](minitorch, ours) is ours
    calls[call](torch_ref, theirs)
    assert ours[0].weight is weight_ours and theirs[0].weight is weight_theirs  # parameters keep their identity
    mine, reference = _tensors(ours), _tensors(theirs)
    assert list(mine) == list(reference)
    for name in reference:
        assert mine[name].stride() == reference[name].stride(), name
        assert str(mine[name].dtype).split(".")[-1] == str(reference[name].dtype).split(".")[-1], name
        np.testing.assert_array_equal(mine[name].detach().numpy(), reference[name].detach().numpy())


def test_channels_last_model_trains_as_torch(torch_ref: Any) -> None:
    """Forward, backward and SGD steps of a channels-last model on a channels-last input."""
    ours, theirs = _twin_nets(torch_ref)
    target = np.arange(6.0).reshape(2, 3) / 5
    losses = []
    for lib, model in ((minitorch, ours), (torch_ref, theirs)):
        model.to(memory_format=lib.channels_last)
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = lib.tensor(VALUES_4D).contiguous(memory_format=lib.channels_last)
        run = []
        for _ in range(3):
            optimizer.zero_grad()
            loss = lib.nn.functional.mse_loss(model(x), lib.tensor(target))
            loss.backward()
            optimizer.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-9)
    mine, reference = _tensors(ours), _tensors(theirs)
    for name in reference:
        np.testing.assert_allclose(mine[name].detach().numpy(), reference[name].detach().numpy(), rtol=1e-9, err_msg=name)


def test_module_to_errors_as_torch(torch_ref: Any) -> None:
    kinds = []
    for lib in (minitorch, torch_ref):
        kinds.append(_outcome(lambda: lib.nn.Conv3d(2, 2, 1).to(memory_format=lib.channels_last)))
        kinds.append(_outcome(lambda: lib.nn.Conv2d(2, 2, 1).to(memory_format=lib.channels_last_3d)))
        assert lib.nn.Conv3d(2, 2, 1).to(memory_format=lib.channels_last_3d).weight.is_contiguous(
            memory_format=lib.channels_last_3d)
        with pytest.raises(TypeError):
            lib.nn.Conv2d(2, 2, 1).to(memory_format="channels_last")
    assert kinds[:2] == kinds[2:]
    assert all(kind == "RuntimeError" for kind, _ in kinds)
