"""F.unfold/F.fold (and nn.Unfold/nn.Fold), F.rms_norm and nn.RMSNorm against PyTorch."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch

IMAGES = np.random.default_rng(11).standard_normal((2, 3, 7, 8))

#: kernel_size, dilation, padding, stride
GEOMETRIES = [
    (2, 1, 0, 1), ((2, 3), 1, 1, 2), (3, (2, 1), (1, 2), (1, 2)), (1, 1, 0, 1), ((3, 3), 1, 1, 3), ((1, 2), 2, 0, 1),
]


def _run(lib: ModuleType, geometry: tuple, batched: bool) -> list:
    kernel, dilation, padding, stride = geometry
    x = lib.tensor(IMAGES if batched else IMAGES[0], requires_grad=True)
    cols = lib.nn.functional.unfold(x, kernel, dilation, padding, stride)
    back = lib.nn.functional.fold(cols * 1.5, x.shape[-2:], kernel, dilation, padding, stride)
    weights = lib.arange(back.numel(), dtype=lib.float64).reshape(back.shape) / 10
    ((back * weights).sum() + (cols * cols).sum()).backward()
    return [cols.detach().numpy(), back.detach().numpy(), x.grad.numpy(), cols.is_contiguous(), back.is_contiguous(),
            cols._is_view(), back._is_view()]


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("geometry", GEOMETRIES, ids=repr)
def test_unfold_and_fold_as_torch(geometry: tuple, batched: bool, torch_ref: ModuleType) -> None:
    ours, theirs = _run(minitorch, geometry, batched), _run(torch_ref, geometry, batched)
    for a, b in zip(ours[:3], theirs[:3]):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert ours[3:] == theirs[3:]


def test_the_layers_and_their_reprs_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        unfold, fold = lib.nn.Unfold((2, 3), padding=1, stride=2), lib.nn.Fold((7, 8), (2, 3), padding=1, stride=2)
        x = lib.tensor(IMAGES)
        results.append((repr(unfold), repr(fold), fold(unfold(x)).numpy().round(10).tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize(("shape", "call", "message"), [
    ((3, 5), lambda F, x: F.unfold(x, 2), "3D or 4D"),
    ((2, 12, 20), lambda F, x: F.fold(x, (5, 7), 2), "number of sliding blocks"),
    ((2, 5, 20), lambda F, x: F.fold(x, (5, 6), 2), "divisible by the product of kernel_size"),
])
def test_unfold_and_fold_refuse_what_torch_refuses(shape: tuple, call: Any, message: str, torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises((RuntimeError, IndexError)) as caught:
            call(lib.nn.functional, lib.zeros(shape))
        if lib is minitorch:
            assert message in str(caught.value)


@pytest.mark.parametrize(("normalized_shape", "eps", "affine"), [(8, None, True), ((7, 8), 1e-6, True), ([8], 0.1, False)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rms_norm_as_torch(normalized_shape: Any, eps: Any, affine: bool, dtype: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(IMAGES * 1e-3 if eps is None else IMAGES, dtype=getattr(lib, dtype), requires_grad=True)
        layer = lib.nn.RMSNorm(normalized_shape, eps=eps, elementwise_affine=affine).to(getattr(lib, dtype))
        if affine:
            with lib.no_grad():
                layer.weight.copy_(lib.linspace(0.5, 1.5, layer.weight.numel()).reshape(layer.weight.shape))
        out = layer(x)
        direct = lib.nn.functional.rms_norm(x, layer.normalized_shape, layer.weight, eps)
        (out * out.detach().sign()).sum().backward()
        params = [name for name, _ in layer.named_parameters()]
        results.append((repr(layer), params, out.detach().numpy(), direct.detach().numpy(), x.grad.numpy(),
                        None if not affine else layer.weight.grad.numpy()))
    ours, theirs = results
    assert ours[:2] == theirs[:2]
    tolerance = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(ours[2:], theirs[2:]):
        if b is None:
            assert a is None
        else:  # relative to the largest value: a gradient element may be a small difference of large terms
            np.testing.assert_allclose(a, b, rtol=tolerance, atol=tolerance * np.abs(b).max())
