"""Resampling against PyTorch: ``F.interpolate`` in every mode and option (float64 values and
gradients; float32 source picks identical), ``nn.Upsample`` and its two fixed-mode forms,
pixel (un)shuffle, and PyTorch's error messages."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_close, assert_same_error, compare_with_torch, ours, values

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F

TOL = {"atol": 1e-12, "rtol": 1e-10}

#: (mode, input shape, keyword arguments)
INTERPOLATE_CASES = [
    ("nearest", (2, 3, 5), {"size": 8}),
    ("nearest", (2, 3, 7), {"scale_factor": 0.6}),
    ("nearest", (1, 2, 5, 6), {"scale_factor": (1.7, 2)}),
    ("nearest", (1, 2, 5, 6), {"scale_factor": (1.7, 0.6), "recompute_scale_factor": True}),
    ("nearest", (1, 1, 3, 4, 3), {"size": (5, 2, 6)}),
    ("nearest-exact", (2, 3, 5), {"scale_factor": 1.5}),
    ("nearest-exact", (1, 2, 5, 6), {"size": (3, 11)}),
    ("linear", (2, 3, 5), {"size": 8}),
    ("linear", (2, 3, 5), {"size": 8, "align_corners": True}),
    ("linear", (2, 3, 7), {"scale_factor": 0.45}),
    ("linear", (2, 3, 5), {"scale_factor": 2.5, "recompute_scale_factor": True}),
    ("linear", (2, 3, 5), {"size": 1, "align_corners": True}),
    ("bilinear", (2, 3, 5, 6), {"size": (7, 4)}),
    ("bilinear", (2, 3, 5, 6), {"scale_factor": (1.7, 0.6), "align_corners": True}),
    ("bilinear", (1, 2, 4, 4), {"scale_factor": 2}),
    ("bilinear", (1, 2, 4, 4), {"size": 4}),
    ("trilinear", (1, 2, 3, 4, 3), {"scale_factor": (1.5, 0.5, 2.0)}),
    ("trilinear", (1, 1, 3, 4, 3), {"size": (5, 5, 5), "align_corners": True}),
    ("area", (2, 3, 7), {"size": 3}),
    ("area", (1, 2, 5, 6), {"scale_factor": (0.5, 1.5)}),
    ("bicubic", (2, 3, 5, 7), {"scale_factor": 2}),
    ("bicubic", (2, 3, 5, 7), {"size": (4, 3)}),
    ("bicubic", (1, 2, 5, 7), {"size": (9, 11), "align_corners": True}),
    ("bicubic", (1, 2, 5, 7), {"scale_factor": (1.7, 0.5)}),
    ("bicubic", (1, 2, 5, 7), {"size": (5, 9)}),
    ("bicubic", (1, 2, 5, 7), {"size": (5, 7)}),
]


def _ids(cases):
    return [f"{mode}-{shape}-{kw}" for mode, shape, kw in cases]


@pytest.mark.parametrize("mode,shape,kwargs", INTERPOLATE_CASES, ids=_ids(INTERPOLATE_CASES))
def test_interpolate_matches_torch(torch_ref: Any, mode: str, shape, kwargs) -> None:
    x = np.random.default_rng(0).standard_normal(shape)
    compare_with_torch(torch_ref, lambda x: F.interpolate(x, mode=mode, **kwargs),
                       lambda x: torch_ref.nn.functional.interpolate(x, mode=mode, **kwargs), [x], grad=[0], **TOL)


#: (length, size or scale_factor) where a position lands within rounding of an integer, or the
#: output is exactly 1x or 2x the input although a scale was given (no shortcut then)
TRICKY_PICKS = [(37, 0.3), (37, 0.7), (37, 1.3), (37, 1.9), (37, 2.1), (37, 2.9), (37, 3.7), (39, 3.325), (13, 2.043),
                (3, 1.2), (3, 2.083), (21, 77), (30, 86), (58, 2.49), (8, 47), (34, 3.7)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("length,resize", TRICKY_PICKS)
def test_nearest_picks_are_torch_s(torch_ref: Any, dtype: str, mode: str, length: int, resize) -> None:
    """Positions computed in the precision PyTorch computes them in: the very same picks."""
    x = np.arange(length, dtype=dtype).reshape(1, 1, length)
    kwargs = {"size": resize} if isinstance(resize, int) else {"scale_factor": resize}
    out = F.interpolate(minitorch.tensor(x), mode=mode, **kwargs)
    expected = torch_ref.nn.functional.interpolate(torch_ref.tensor(x), mode=mode, **kwargs)
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_bilinear_gradients_by_central_differences() -> None:
    x = ours(np.random.default_rng(1).standard_normal((1, 2, 3, 4)), True)
    gradcheck(lambda x: F.interpolate(x, size=(5, 3), mode="bilinear"), x)


def test_upsample_modules_match_torch(torch_ref: Any) -> None:
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 5))
    for make in (
        lambda m: m.Upsample(scale_factor=2, mode="bilinear"),
        lambda m: m.Upsample(size=3),
        lambda m: m.Upsample(scale_factor=(1.5, 2.5), mode="nearest-exact"),
        lambda m: m.Upsample(size=(6, 7), mode="bilinear", align_corners=True),
        lambda m: m.UpsamplingNearest2d(scale_factor=2),
        lambda m: m.UpsamplingBilinear2d(size=(2, 3)),
        lambda m: m.UpsamplingBilinear2d(scale_factor=1.5),
    ):
        mine, ref = make(nn), make(torch_ref.nn)
        assert repr(mine) == repr(ref)
        assert list(mine.state_dict()) == list(ref.state_dict()) == []
        assert_close(mine(ours(x)), ref(torch_ref.tensor(x)), **TOL)


INTERPOLATE_ERRORS = {
    "bicubic on 3-D": lambda F, t: F.interpolate(t.ones(2, 3, 5), scale_factor=2, mode="bicubic"),
    "no size": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6)),
    "both": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), size=3, scale_factor=2),
    "align_corners with nearest": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), size=3, align_corners=True),
    "linear on 4D": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), size=3, mode="linear"),
    "bilinear on 3D": lambda F, t: F.interpolate(t.ones(2, 3, 5), size=3, mode="bilinear"),
    "trilinear on 4D": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), size=3, mode="trilinear"),
    "unknown mode": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), size=3, mode="foo"),
    "2D input": lambda F, t: F.interpolate(t.ones(5, 6), scale_factor=2),
    "size length": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), size=(3, 4, 5)),
    "scale length": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), scale_factor=(3, 4, 5)),
    "float size": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), size=(3.5, 2)),
    "recompute with size": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), size=3, recompute_scale_factor=True),
    "zero size": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), size=0),
    "negative scale": lambda F, t: F.interpolate(t.ones(2, 3, 5, 6), scale_factor=-1.0),
    "small scale 1-D": lambda F, t: F.interpolate(t.ones(2, 3, 5), scale_factor=0.1, mode="linear"),
    "antialias": lambda F, t: F.interpolate(t.ones(2, 3, 5), scale_factor=2, antialias=True),
    "integer nearest 1-D": lambda F, t: F.interpolate(t.ones(1, 2, 3, dtype=t.int64), scale_factor=2),
    "integer nearest": lambda F, t: F.interpolate(t.ones(1, 2, 3, 3, dtype=t.int64), scale_factor=2),
    "bool nearest": lambda F, t: F.interpolate(t.ones(1, 2, 3, 3, dtype=t.bool), scale_factor=2),
    "integer linear": lambda F, t: F.interpolate(t.ones(1, 2, 3, dtype=t.int64), scale_factor=2, mode="linear"),
    "integer bilinear": lambda F, t: F.interpolate(t.ones(1, 2, 3, 3, dtype=t.int64), size=5, mode="bilinear"),
    "integer area": lambda F, t: F.interpolate(t.ones(1, 2, 3, 3, dtype=t.int64), size=2, mode="area"),
    "zero size 3-D": lambda F, t: F.interpolate(t.ones(1, 1, 2, 3, 4), size=(0, 1, 1), mode="trilinear"),
}


def _raised(call: Any) -> BaseException:
    """The exception ``call`` raises, NotImplementedError included (PyTorch raises it for bad modes)."""
    with pytest.raises(Exception) as info:
        call()
    return info.value


@pytest.mark.parametrize("case", sorted(INTERPOLATE_ERRORS))
def test_interpolate_errors_match_torch(torch_ref: Any, case: str) -> None:
    call = INTERPOLATE_ERRORS[case]
    mine, ref = _raised(lambda: call(F, minitorch)), _raised(lambda: call(torch_ref.nn.functional, torch_ref))
    assert (type(mine), str(mine)) == (type(ref), str(ref))


def test_modes_left_out_say_so() -> None:
    with pytest.raises(NotImplementedError, match="antialias=True on uint8 input is not implemented in minitorch"):
        F.interpolate(minitorch.ones(1, 1, 4, 4, dtype=minitorch.uint8), scale_factor=2, mode="bilinear", antialias=True)


# ---- pixel shuffle ----

@pytest.mark.parametrize("shape,factor", [((2, 8, 3, 4), 2), ((18, 2, 3), 3), ((2, 1, 4, 2, 2), 2)])
def test_pixel_shuffle_and_unshuffle_match_torch(torch_ref: Any, shape, factor: int) -> None:
    x = np.random.default_rng(3).standard_normal(shape)
    compare_with_torch(torch_ref, lambda x: F.pixel_shuffle(x, factor),
                       lambda x: torch_ref.nn.functional.pixel_shuffle(x, factor), [x], grad=[0], **TOL)
    shuffled = values(F.pixel_shuffle(ours(x), factor))
    compare_with_torch(torch_ref, lambda y: F.pixel_unshuffle(y, factor),
                       lambda y: torch_ref.nn.functional.pixel_unshuffle(y, factor), [shuffled], grad=[0], **TOL)
    np.testing.assert_array_equal(values(F.pixel_unshuffle(ours(shuffled), factor)), x)


def test_pixel_shuffle_by_hand() -> None:
    """Channel c*r^2 + i*r + j of pixel (h, w) lands at (c, h*r + i, w*r + j)."""
    x = minitorch.arange(8).view(1, 4, 1, 2)
    np.testing.assert_array_equal(F.pixel_shuffle(x, 2).numpy(), [[[[0, 2, 1, 3], [4, 6, 5, 7]]]])


def test_pixel_shuffle_modules_match_torch(torch_ref: Any) -> None:
    x = np.random.default_rng(4).standard_normal((2, 9, 3, 3))
    for make in (lambda m: m.PixelShuffle(3), lambda m: m.PixelUnshuffle(3)):
        mine, ref = make(nn), make(torch_ref.nn)
        assert repr(mine) == repr(ref)
        assert_close(mine(ours(x)), ref(torch_ref.tensor(x)), **TOL)


SHUFFLE_ERRORS = {
    "channels": lambda F, t: F.pixel_shuffle(t.ones(2, 6, 3, 3), 2),
    "rank": lambda F, t: F.pixel_shuffle(t.ones(6, 3), 2),
    "zero factor": lambda F, t: F.pixel_shuffle(t.ones(6, 3, 3), 0),
    "negative factor": lambda F, t: F.pixel_shuffle(t.ones(6, 3, 3), -2),
    "height": lambda F, t: F.pixel_unshuffle(t.ones(2, 8, 3, 4), 2),
    "width": lambda F, t: F.pixel_unshuffle(t.ones(2, 8, 4, 3), 2),
    "unshuffle rank": lambda F, t: F.pixel_unshuffle(t.ones(4, 3), 2),
    "unshuffle zero factor": lambda F, t: F.pixel_unshuffle(t.ones(4, 4, 4), 0),
}


@pytest.mark.parametrize("case", sorted(SHUFFLE_ERRORS))
def test_pixel_shuffle_errors_match_torch(torch_ref: Any, case: str) -> None:
    call = SHUFFLE_ERRORS[case]
    assert_same_error(lambda: call(F, minitorch), lambda: call(torch_ref.nn.functional, torch_ref))


def test_upsample_is_the_deprecated_name_of_interpolate(torch_ref: Any) -> None:
    x = np.random.default_rng(5).standard_normal((1, 2, 3, 3))
    message = "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead."
    with pytest.warns(UserWarning, match=message):
        out = F.upsample(ours(x), scale_factor=2, mode="bilinear", align_corners=True)
    with pytest.warns(UserWarning, match=message):
        expected = torch_ref.nn.functional.upsample(torch_ref.tensor(x), scale_factor=2, mode="bilinear", align_corners=True)
    assert_close(out, expected, **TOL)


@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="no CUDA device or simulator")
def test_interpolate_and_pixel_shuffle_on_cuda_match_cpu() -> None:
    x_np = np.random.default_rng(6).standard_normal((1, 4, 2, 3))
    results = []
    for device in ("cpu", "cuda"):
        x = minitorch.tensor(x_np, dtype=minitorch.float64, device=device, requires_grad=True)
        out = F.pixel_shuffle(F.interpolate(x, scale_factor=1.5, mode="bilinear"), 2)
        assert out.device.type == device
        (out * out).sum().backward()
        results.append([out.cpu(), x.grad.cpu()])
    for mine, ref in zip(*reversed(results)):
        assert_close(mine, ref, **TOL)
