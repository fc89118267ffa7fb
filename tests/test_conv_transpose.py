"""Transposed convolution: ``F.conv_transpose1d/2d`` and ``nn.ConvTranspose1d/2d`` against PyTorch
(values and gradients in float64), against central differences, against its definition as the
gradient of a convolution, and PyTorch's error messages; the fold that carries it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_close, assert_same_error, compare_with_torch, ours, values

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.ops.fold import fold
from minitorch.ops.windows import windows

TOL = {"atol": 1e-12, "rtol": 1e-10}

#: (input shape, weight shape, keyword arguments): every option, alone and together
CT2D_CASES = [
    ((2, 3, 4, 5), (3, 2, 3, 3), {}),
    ((2, 4, 5, 5), (4, 3, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 3, 4), (4, 1, 2, 3), {"stride": (2, 3), "padding": (0, 2), "output_padding": (1, 2), "groups": 2}),
    ((2, 2, 3, 3), (2, 2, 3, 2), {"dilation": (3, 2), "output_padding": (2, 1), "padding": 1}),
    ((1, 6, 3, 3), (6, 1, 2, 2), {"groups": 3, "stride": 3, "dilation": 2, "padding": (1, 0)}),
    ((3, 4, 4), (3, 2, 4, 4), {"stride": 2, "padding": 1}),  # unbatched
]
CT1D_CASES = [
    ((2, 3, 6), (3, 4, 3), {}),
    ((2, 4, 5), (4, 1, 3), {"stride": 3, "padding": 2, "output_padding": 2, "groups": 4}),
    ((2, 2, 4), (2, 3, 2), {"dilation": 3, "output_padding": 2, "padding": 1}),
    ((3, 5), (3, 2, 4), {"stride": 2}),  # unbatched
]


def _ids(cases):
    return [f"{x}-{w}-{kw}" for x, w, kw in cases]


def _inputs(x_shape, w_shape, groups: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(x_shape), rng.standard_normal(w_shape), rng.standard_normal(w_shape[1] * groups)


@pytest.mark.parametrize("x_shape,w_shape,kwargs", CT2D_CASES, ids=_ids(CT2D_CASES))
def test_conv_transpose2d_matches_torch(backend: str, torch_ref: Any, x_shape, w_shape, kwargs) -> None:
    x, w, b = _inputs(x_shape, w_shape, kwargs.get("groups", 1))
    compare_with_torch(torch_ref, lambda x, w, b: F.conv_transpose2d(x, w, b, **kwargs),
                       lambda x, w, b: torch_ref.nn.functional.conv_transpose2d(x, w, b, **kwargs),
                       [x, w, b], grad=[0, 1, 2], **TOL)


@pytest.mark.parametrize("x_shape,w_shape,kwargs", CT1D_CASES, ids=_ids(CT1D_CASES))
def test_conv_transpose1d_matches_torch(torch_ref: Any, x_shape, w_shape, kwargs) -> None:
    x, w, b = _inputs(x_shape, w_shape, kwargs.get("groups", 1))
    compare_with_torch(torch_ref, lambda x, w, b: F.conv_transpose1d(x, w, b, **kwargs),
                       lambda x, w, b: torch_ref.nn.functional.conv_transpose1d(x, w, b, **kwargs),
                       [x, w, b], grad=[0, 1, 2], **TOL)


def test_empty_batch_gives_an_empty_output(torch_ref: Any) -> None:
    out = F.conv_transpose2d(minitorch.ones(0, 4, 3, 3), minitorch.ones(4, 2, 3, 3), stride=2)
    assert tuple(out.shape) == tuple(torch_ref.nn.functional.conv_transpose2d(
        torch_ref.ones(0, 4, 3, 3), torch_ref.ones(4, 2, 3, 3), stride=2).shape) == (0, 2, 7, 7)


def test_conv_transpose2d_positional_arguments_follow_torch(torch_ref: Any) -> None:
    """PyTorch's order: bias, stride, padding, output_padding, groups, dilation."""
    x, w, b = _inputs((1, 4, 3, 3), (4, 1, 3, 3), 2)
    args = (2, 1, 1, 2, 2)
    assert_close(F.conv_transpose2d(ours(x), ours(w), ours(b), *args),
                 torch_ref.nn.functional.conv_transpose2d(torch_ref.tensor(x), torch_ref.tensor(w), torch_ref.tensor(b), *args),
                 **TOL)


def test_conv_transpose2d_gradients_by_central_differences() -> None:
    x, w, b = _inputs((1, 2, 3, 3), (2, 2, 2, 3), 1, seed=5)
    gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=(2, 1), padding=(1, 0), output_padding=(1, 0), dilation=(1, 2)),
              ours(x, True), ours(w, True), ours(b, True))


def test_conv_transpose_is_the_gradient_of_conv_with_respect_to_its_input() -> None:
    """The definition, no PyTorch: conv_transpose2d(g, w) equals d<conv2d(x, w), g>/dx."""
    rng = np.random.default_rng(2)
    kwargs = {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}
    x, w = ours(rng.standard_normal((2, 4, 9, 8)), True), ours(rng.standard_normal((6, 2, 3, 2)))
    out = F.conv2d(x, w, **kwargs)
    g = ours(rng.standard_normal(tuple(out.shape)))
    (out * g).sum().backward()
    # the conv's output covers 9 rows and 8 columns only up to its last window: output_padding adds the rest back
    extra = tuple(size - ((o - 1) * 2 - 2 + 2 * (k - 1) + 1) for size, o, k in zip((9, 8), out.shape[2:], (3, 2)))
    np.testing.assert_allclose(values(F.conv_transpose2d(g, w, output_padding=extra, **kwargs)), values(x.grad),
                               rtol=1e-12, atol=1e-12)


def test_fold_is_the_adjoint_of_the_window_view() -> None:
    r"""\langle windows(a), c \rangle = \langle a, fold(c) \rangle, and the fold's gradient is the window view."""
    rng = np.random.default_rng(3)
    layout = ((1, 2), (3, 2), (2, 1), (1, 3))
    a = ours(rng.standard_normal((2, 9, 7)))
    view = windows(a, *layout)
    c = ours(rng.standard_normal(tuple(view.shape)), True)
    folded = fold(c, a.shape, *layout)
    assert math.isclose(float((view * c).sum().item()), float((a * folded).sum().item()), rel_tol=1e-12)
    (folded * a).sum().backward()
    np.testing.assert_array_equal(values(c.grad), values(view))


def test_fold_rejects_windows_of_the_wrong_shape() -> None:
    with pytest.raises(RuntimeError, match=r"fold: windows of shape \[2, 3, 2\] do not fit a tensor of shape \[2, 5\]"):
        fold(minitorch.zeros(2, 3, 2), (2, 5), (1,), (2,), (1,), (1,))


#: calls whose errors PyTorch words itself (each a function of F-or-torch.nn.functional and the tensor library)
ERROR_CASES = {
    "output_padding too large": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 5, 5), t.ones(4, 3, 3, 3), stride=2, output_padding=2),
    "output_padding 1-D": lambda F, t: F.conv_transpose1d(t.ones(2, 4, 5), t.ones(4, 3, 3), output_padding=1),
    "groups split": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 5, 5), t.ones(4, 3, 3, 3), groups=3),
    "channels": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 5, 5), t.ones(3, 3, 3, 3)),
    "channels unbatched": lambda F, t: F.conv_transpose1d(t.ones(4, 5), t.ones(3, 3, 3)),
    "rank": lambda F, t: F.conv_transpose2d(t.ones(5, 5), t.ones(4, 3, 3, 3)),
    "rank 1-D": lambda F, t: F.conv_transpose1d(t.ones(5), t.ones(4, 3, 3)),
    "weight rank 1-D": lambda F, t: F.conv_transpose1d(t.ones(2, 4, 5), t.ones(4, 3)),
    "bias": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 5, 5), t.ones(4, 3, 3, 3), t.ones(4)),
    "negative padding": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 5, 5), t.ones(4, 3, 3, 3), padding=-1),
    "negative output_padding": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 5, 5), t.ones(4, 3, 3, 3), output_padding=-1),
    "zero stride": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 5, 5), t.ones(4, 3, 3, 3), stride=0),
    "zero groups": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 5, 5), t.ones(4, 3, 3, 3), groups=0),
    "stride length": lambda F, t: F.conv_transpose1d(t.ones(2, 4, 5), t.ones(4, 3, 3), stride=(1, 2)),
    "output too small": lambda F, t: F.conv_transpose2d(t.ones(1, 4, 2, 2), t.ones(4, 2, 3, 3), padding=(0, 3)),
    "empty input": lambda F, t: F.conv_transpose1d(t.ones(2, 4, 0), t.ones(4, 3, 3)),
    "string padding": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 3, 3), t.ones(4, 2, 3, 3), padding="same"),
    "dtypes": lambda F, t: F.conv_transpose2d(t.ones(2, 4, 3, 3), t.ones(4, 2, 3, 3, dtype=t.float64)),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_conv_transpose_errors_match_torch(torch_ref: Any, case: str) -> None:
    call = ERROR_CASES[case]
    assert_same_error(lambda: call(F, minitorch), lambda: call(torch_ref.nn.functional, torch_ref))


def test_conv_transpose_errors_where_torch_has_no_clear_message() -> None:
    """PyTorch fails inside its backend here; ours names the values."""
    with pytest.raises(RuntimeError, match=r"dilation should be greater than zero, but got \[1, 0\]"):
        F.conv_transpose1d(minitorch.ones(2, 4, 5), minitorch.ones(4, 3, 3), dilation=0)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero, but got kernel_height: 1 kernel_width: 0"):
        F.conv_transpose1d(minitorch.ones(2, 4, 5), minitorch.ones(4, 3, 0))


# ---- the modules ----

MODULES = {
    "ConvTranspose2d": (lambda m: m.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2), (2, 4, 3, 4)),
    "ConvTranspose2d_dilated": (lambda m: m.ConvTranspose2d(2, 3, (2, 3), stride=(1, 2), dilation=(2, 1), bias=False), (1, 2, 3, 3)),
    "ConvTranspose1d": (lambda m: m.ConvTranspose1d(3, 2, 4, stride=2, padding=1), (2, 3, 5)),
    "ConvTranspose1d_unbatched": (lambda m: m.ConvTranspose1d(3, 4, 2, stride=3, output_padding=1, groups=1), (3, 5)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_repr_state_dict_and_values_match_torch(torch_ref: Any, name: str) -> None:
    make, shape = MODULES[name]
    torch_ref.manual_seed(0)
    ref = make(torch_ref.nn).double()
    mine = make(nn).double()
    assert repr(mine) == repr(ref)
    assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == [(k, tuple(v.shape)) for k, v in ref.state_dict().items()]
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(1).standard_normal(shape)
    mx, tx = ours(x, True), torch_ref.tensor(x, requires_grad=True)
    out, expected = mine(mx), ref(tx)
    assert_close(out, expected, **TOL)
    weights = np.random.default_rng(2).standard_normal(tuple(expected.shape))
    (out * ours(weights)).sum().backward()
    (expected * torch_ref.tensor(weights)).sum().backward()
    assert_close(mx.grad, tx.grad, what="input gradient", **TOL)
    for (key, p), (_, q) in zip(mine.named_parameters(), ref.named_parameters()):
        assert_close(p.grad, q.grad, what=f"gradient of {key}", **TOL)


@pytest.mark.parametrize("output_size", [(9, 9), (10, 10), (9, 10), [2, 6, 10, 9]])
def test_output_size_picks_the_output_padding_as_torch(torch_ref: Any, output_size) -> None:
    torch_ref.manual_seed(0)
    ref = torch_ref.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1).double()
    mine = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1).double()
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((2, 4, 5, 5))
    assert_close(mine(ours(x), output_size=output_size), ref(torch_ref.tensor(x), output_size=output_size), **TOL)


def test_module_errors_match_torch(torch_ref: Any) -> None:
    for lib_call in (
        lambda m, t: m.ConvTranspose2d(4, 6, 3, stride=2, padding=1)(t.ones(2, 4, 5, 5), output_size=(12, 12)),
        lambda m, t: m.ConvTranspose2d(4, 6, 3, stride=2, padding=1)(t.ones(2, 4, 5, 5), output_size=(5,)),
        lambda m, t: m.ConvTranspose1d(4, 6, 3, stride=3)(t.ones(4, 5), output_size=[4, 6, 20]),
        lambda m, t: m.ConvTranspose1d(4, 6, 3, padding_mode="circular"),
        lambda m, t: m.ConvTranspose2d(4, 6, 3, groups=4),
    ):
        assert_same_error(lambda: lib_call(nn, minitorch), lambda: lib_call(torch_ref.nn, torch_ref))


def test_default_init_uses_the_transposed_fan_in() -> None:
    """PyTorch's fan-in of a (in, out/groups, *k) weight is out/groups * prod(k)."""
    layer = nn.ConvTranspose2d(64, 32, 4, groups=2)
    bound = 1.0 / math.sqrt(16 * 4 * 4)
    w, b = values(layer.weight), values(layer.bias)
    assert w.shape == (64, 16, 4, 4)
    assert np.all(np.abs(w) <= bound) and np.all(np.abs(b) <= bound)
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound


@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="no CUDA device or simulator")
def test_conv_transpose2d_on_cuda_matches_cpu() -> None:
    """The fold runs on the cuda backend's accumulate: same output and gradients as the CPU."""
    x_np, w_np, b_np = _inputs((1, 2, 2, 3), (2, 2, 3, 2), 1, seed=7)
    results = []
    for device in ("cpu", "cuda"):
        x, w, b = (minitorch.tensor(a, dtype=minitorch.float64, device=device, requires_grad=True) for a in (x_np, w_np, b_np))
        out = F.conv_transpose2d(x, w, b, stride=2, padding=(1, 0), output_padding=1)
        assert out.device.type == device
        (out * out).sum().backward()
        results.append([out.cpu(), x.grad.cpu(), w.grad.cpu(), b.grad.cpu()])
    for mine, ref in zip(*reversed(results)):
        assert_close(mine, ref, atol=1e-12, rtol=1e-10)
