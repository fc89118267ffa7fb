"""``F.interpolate(..., antialias=True)`` (bilinear, bicubic, lanczos) against PyTorch at run time:
values, gradients, node names, layouts and errors."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch
from both_libraries import compare

torch = pytest.importorskip("torch")

MODES = ("bilinear", "bicubic", "lanczos")
#: (input shape, keyword arguments fixing the output size)
RESIZES = {
    "down": ((2, 3, 10, 13), {"size": (4, 6)}),
    "up": ((1, 2, 7, 5), {"size": (15, 11)}),
    "strong down": ((1, 1, 64, 40), {"size": (5, 3)}),
    "scale": ((1, 2, 32, 20), {"scale_factor": 0.3}),
    "scale pair": ((1, 1, 32, 20), {"scale_factor": (0.37, 1.7)}),
    "recomputed": ((1, 1, 32, 21), {"scale_factor": 0.3, "recompute_scale_factor": True}),
    "width only": ((1, 1, 9, 9), {"size": (9, 4)}),
    "height only": ((2, 1, 30, 3), {"size": (7, 3)}),
    "to one pixel": ((1, 1, 6, 5), {"size": 1}),
    "same size": ((1, 2, 6, 5), {"size": (6, 5)}),
    "same size, other scale": ((1, 1, 5, 6), {"scale_factor": 1.1}),
    "empty batch": ((0, 2, 6, 5), {"size": (3, 2)}),
}
#: float32 results may differ from PyTorch's by an ulp or two per term (another summation order)
FLOAT32_RTOL = 2e-6


def _values(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _resized_with_grad(lib: ModuleType, shape: tuple[int, ...], dtype: str, mode: str, align: bool,
                       **kwargs: Any) -> tuple[Any, Any]:
    """The resized input and the gradient of a weighted sum of it."""
    x = lib.tensor(_values(shape), dtype=getattr(lib, dtype), requires_grad=True)
    out = lib.nn.functional.interpolate(x, mode=mode, antialias=True, align_corners=align, **kwargs)
    weights = lib.tensor(_values(tuple(out.shape), seed=1), dtype=out.dtype)
    (out * weights).sum().backward()
    return out, x.grad


def _aligns(mode: str) -> list[bool]:
    return [False] if mode == "lanczos" else [False, True]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("resize", sorted(RESIZES))
def test_float64_values_and_gradients(mode: str, resize: str) -> None:
    shape, kwargs = RESIZES[resize]
    for align in _aligns(mode):
        compare(lambda lib: _resized_with_grad(lib, shape, "float64", mode, align, **kwargs))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("resize", sorted(RESIZES))
def test_float32_values_and_gradients(mode: str, resize: str) -> None:
    shape, kwargs = RESIZES[resize]
    for align in _aligns(mode):
        (out, grad), (ref, ref_grad) = (_resized_with_grad(lib, shape, "float32", mode, align, **kwargs)
                                        for lib in (minitorch, torch))
        assert out.dtype == minitorch.float32 and type(out.grad_fn).__name__ == type(ref.grad_fn).__name__
        for ours, theirs in ((out.detach().numpy(), ref.detach().numpy()), (grad.numpy(), ref_grad.numpy())):
            assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
            scale = max(float(np.abs(theirs).max(initial=0.0)), 1.0)
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=FLOAT32_RTOL * scale)


def test_node_names_and_double_backward() -> None:
    """The node is PyTorch's; a gradient taken with ``create_graph`` is differentiable in the
    incoming gradient, through PyTorch's ``...BackwardBackward0`` node."""
    for mode in MODES:
        def case(lib: ModuleType, mode: str = mode) -> Any:
            x = lib.tensor(_values((1, 2, 9, 8)), requires_grad=True)
            out = lib.nn.functional.interpolate(x, size=(4, 11), mode=mode, antialias=True)
            g = lib.tensor(_values((1, 2, 4, 11), seed=2), requires_grad=True)
            (dx,) = lib.autograd.grad(out, x, g, create_graph=True)
            (dg,) = lib.autograd.grad((dx * dx).sum(), g)
            return out, dx, dg

        compare(case)


def test_infinities_stay_in_their_window() -> None:
    """An infinite input only reaches the outputs whose window holds it (never ``0 * inf``)."""
    values = _values((1, 1, 12, 12))
    values[0, 0, 0, 0] = np.inf
    for mode in MODES:
        compare(lambda lib, mode=mode: lib.nn.functional.interpolate(lib.tensor(values), size=(3, 5), mode=mode,
                                                                     antialias=True))


def test_channels_last_input_gives_channels_last_output() -> None:
    def case(lib: ModuleType) -> Any:
        x = lib.tensor(_values((2, 4, 9, 7))).contiguous(memory_format=lib.channels_last)
        out = lib.nn.functional.interpolate(x, size=(4, 3), mode="bicubic", antialias=True)
        return out, out.is_contiguous(memory_format=lib.channels_last)

    compare(case)


def test_strided_input() -> None:
    compare(lambda lib: lib.nn.functional.interpolate(lib.tensor(_values((1, 2, 12, 16))).transpose(2, 3)[..., ::2],
                                                      size=(5, 3), mode="bilinear", antialias=True))


ERRORS = {
    "float16": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.float16), size=2,
                                                         mode="bilinear", antialias=True),
    "bfloat16": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.bfloat16), size=2,
                                                          mode="bicubic", antialias=True),
    "int32": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.int32), size=2,
                                                       mode="lanczos", antialias=True),
    "bool": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4, dtype=lib.bool), size=2,
                                                      mode="bilinear", antialias=True),
    "no channels": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 0, 4, 4), size=2, mode="bilinear",
                                                             antialias=True),
    "no channels, float16": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 0, 4, 4, dtype=lib.float16),
                                                                      size=2, mode="bilinear", antialias=True),
    "empty height": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 0, 4), size=2, mode="bicubic",
                                                              antialias=True),
    "output size 0": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 4, 4), size=(0, 3), mode="bilinear",
                                                               antialias=True),
    "3-D input": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 5), size=2, mode="bilinear",
                                                           antialias=True),
    "5-D input": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 3, 3, 3), size=2, mode="bicubic",
                                                           antialias=True),
    "nearest": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4), size=2, mode="nearest",
                                                         antialias=True),
    "lanczos without antialias": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4), size=2,
                                                                           mode="lanczos"),
    "lanczos align_corners": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4), size=2, mode="lanczos",
                                                                       align_corners=True, antialias=True),
    "lanczos 3-D": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4), size=2, mode="lanczos"),
    "lanczos 5-D": lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4, 4), size=2, mode="lanczos"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_torch(case: str) -> None:
    compare(ERRORS[case])


def test_uint8_says_it_is_not_implemented() -> None:
    """PyTorch resizes uint8 images with fixed-point weights; minitorch refuses them plainly."""
    with pytest.raises(NotImplementedError, match="uint8"):
        minitorch.nn.functional.interpolate(minitorch.ones(1, 3, 8, 8, dtype=minitorch.uint8), size=4,
                                            mode="bilinear", antialias=True)

