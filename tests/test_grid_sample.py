"""F.affine_grid and F.grid_sample against PyTorch: values and gradients for the image, the
grid and theta, in every mode, padding mode and corner alignment; PyTorch's errors."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import minitorch

RNG = np.random.default_rng(0)
IMAGE = RNG.standard_normal((2, 3, 5, 7))
GRID = RNG.uniform(-1.3, 1.3, (2, 4, 6, 2))  # points outside the image too
THETA = RNG.standard_normal((2, 2, 3)) * 0.6
SQUARE = RNG.standard_normal((2, 3, 12, 12))


def _sample(lib: ModuleType, mode: str, padding_mode: str, align_corners: bool) -> list[np.ndarray]:
    image = lib.tensor(IMAGE, requires_grad=True)
    grid = lib.tensor(GRID, requires_grad=True)
    out = lib.nn.functional.grid_sample(image, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    weights = lib.tensor(np.arange(out.numel()).reshape(out.shape) / 10.0)
    (out * weights).sum().backward()
    grid_grad = grid.grad.numpy() if grid.grad is not None else np.zeros(GRID.shape)
    return [out.detach().numpy(), image.grad.numpy(), grid_grad]


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_as_torch(mode: str, padding_mode: str, align_corners: bool, torch_ref: ModuleType) -> None:
    for ours, theirs in zip(_sample(minitorch, mode, padding_mode, align_corners),
                            _sample(torch_ref, mode, padding_mode, align_corners)):
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_as_torch(align_corners: bool, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        theta = lib.tensor(THETA, requires_grad=True)
        grid = lib.nn.functional.affine_grid(theta, (2, 3, 4, 5), align_corners=align_corners)
        (grid * grid).sum().backward()
        results.append((grid.detach().numpy(), theta.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_the_identity_transform_reads_the_image_back(torch_ref: ModuleType) -> None:
    identity = minitorch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2, dtype=minitorch.float64)
    image = minitorch.tensor(IMAGE)
    grid = minitorch.nn.functional.affine_grid(identity, image.shape, align_corners=False)
    out = minitorch.nn.functional.grid_sample(image, grid, align_corners=False)
    np.testing.assert_allclose(out.numpy(), IMAGE, rtol=1e-12, atol=1e-12)


def test_a_missing_align_corners_warns_as_torch(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2))


@pytest.mark.parametrize(("call", "error"), [
    (lambda F, lib: F.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 2, 2, 2), mode="cubic", align_corners=False), ValueError),
    (lambda F, lib: F.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 2, 2, 2), padding_mode="wrap", align_corners=False), ValueError),
    (lambda F, lib: F.grid_sample(lib.zeros(2, 1, 2, 2), lib.zeros(1, 2, 2, 2), align_corners=False), RuntimeError),
    (lambda F, lib: F.affine_grid(lib.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False), ValueError),
], ids=["mode", "padding_mode", "batch", "theta"])
def test_bad_arguments_raise_as_torch(call, error, torch_ref: ModuleType) -> None:  # type: ignore[no-untyped-def]
    for lib in (minitorch, torch_ref):
        with pytest.raises(error):
            call(lib.nn.functional, lib)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_points_on_pixel_centres_take_pytorchs_side(padding_mode: str, align_corners: bool, dtype: str,
                                                    torch_ref: ModuleType) -> None:
    """An identity grid puts every point on a pixel centre, give or take the last bit: which of the
    two pixel differences its gradient takes follows that bit (PyTorch's kernel rounds
    ``(x + 1) s - 0.5`` once), and border points pass no gradient. This is how a spatial
    transformer starts training."""
    results = []
    for lib in (minitorch, torch_ref):
        kind = getattr(lib, dtype)
        image = lib.tensor(SQUARE, dtype=kind)
        theta = lib.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2, dtype=kind)
        grid = lib.nn.functional.affine_grid(theta, SQUARE.shape, align_corners=align_corners).detach()
        grid.requires_grad_(True)
        out = lib.nn.functional.grid_sample(image, grid, padding_mode=padding_mode, align_corners=align_corners)
        (out * lib.tensor(np.arange(out.numel()).reshape(out.shape) % 7, dtype=kind)).sum().backward()
        results.append((grid.detach().numpy(), grid.grad.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])  # the grids, to the bit
    tolerance = 1e-9 if dtype == "float64" else 1e-4
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=tolerance, atol=tolerance)
