"""What four more tutorial-style corpus scripts found, each checked against PyTorch at run time.

* ``torch.gradient``: the PINN script (``pinn_heat_inverse.py``) checks its learned solution's
  derivatives by finite differences on a grid, evenly spaced and at given coordinates.
* ``torch.repeat_interleave(repeats)`` (counts only, the positions repeated) and the method's
  ``output_size``: the detection script (``detection_boxes_nms.py``) tags each box with its image.
* ``F.scaled_dot_product_attention(..., enable_gqa=True)``: grouped-query attention, where key and
  value have fewer heads than the query (the keyword was accepted and ignored).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

from both_libraries import Case, compare

torch = pytest.importorskip("torch")


def _samples(lib: ModuleType, shape: tuple[int, ...], dtype: Any = None, requires_grad: bool = False) -> Any:
    """Smooth, tie-free values of ``shape`` (float64 unless ``dtype``)."""
    count = int(np.prod(shape))
    values = np.sin(0.7 * np.arange(count)) + 0.05 * np.arange(count) ** 2
    return lib.tensor(values.reshape(shape), dtype=dtype or lib.float64, requires_grad=requires_grad)


def _backward_of(lib: ModuleType, build: Callable[[Any], Any], x: Any) -> tuple[Any, Any]:
    """``build(x)``, and the gradient of a weighted sum of it with respect to ``x``."""
    out = build(x)
    weights = lib.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
    (out * weights).sum().backward()
    return out, x.grad


# ---- torch.gradient ---------------------------------------------------------------------------

def _coords(lib: ModuleType, *points: float) -> Any:
    return lib.tensor(points, dtype=lib.float64)


GRADIENT_CASES: dict[str, Case] = {
    "1d default": lambda lib: lib.gradient(_samples(lib, (6,))),
    "1d scalar spacing": lambda lib: lib.gradient(_samples(lib, (6,)), spacing=0.25),
    "1d edge_order 2": lambda lib: lib.gradient(_samples(lib, (6,)), spacing=2.0, edge_order=2),
    "1d coordinates": lambda lib: lib.gradient(_samples(lib, (5,)), spacing=(_coords(lib, 0, 1, 1.5, 3.5, 4),)),
    "1d coordinates edge_order 2": lambda lib: lib.gradient(
        _samples(lib, (5,)), spacing=[_coords(lib, 0, 1, 1.5, 3.5, 4)], edge_order=2),
    "2d all dims": lambda lib: lib.gradient(_samples(lib, (3, 4))),
    "2d spacing per dim": lambda lib: lib.gradient(_samples(lib, (3, 4)), spacing=[1.0, 2.0], dim=[0, 1]),
    "2d one dim": lambda lib: lib.gradient(_samples(lib, (3, 4)), dim=1),
    "2d negative dims, one spacing": lambda lib: lib.gradient(_samples(lib, (3, 4)), spacing=2, dim=[0, -1]),
    "3d coordinates per dim": lambda lib: lib.gradient(
        _samples(lib, (3, 4, 2)), spacing=[_coords(lib, 0, 1, 3), _coords(lib, 0, 0.5, 1, 2)], dim=(0, 1),
        edge_order=2),
    "float32": lambda lib: lib.gradient(_samples(lib, (5,), lib.float32), spacing=0.1, edge_order=2),
    "float32 values, float64 coordinates": lambda lib: lib.gradient(
        _samples(lib, (3,), lib.float32), spacing=[_coords(lib, 0, 1, 3)]),
    "integers": lambda lib: lib.gradient(lib.tensor([1, 4, 9, 16])),
    "integers, integer spacing": lambda lib: lib.gradient(lib.tensor([1, 4, 9]), spacing=2),
    "integer coordinates": lambda lib: lib.gradient(lib.tensor([1, 4, 9]), spacing=[lib.tensor([0, 1, 3])]),
    "0-d input: no dims": lambda lib: lib.gradient(lib.tensor(1.0)),
    "autograd": lambda lib: _backward_of(lib, lambda x: lib.gradient(x, edge_order=2)[0],
                                         _samples(lib, (5,), requires_grad=True)),
    "autograd with coordinates": lambda lib: _backward_of(
        lib, lambda x: lib.gradient(x, spacing=[_coords(lib, 0, 1, 3)], dim=1)[0],
        _samples(lib, (2, 3), requires_grad=True)),
    # refusals
    "edge_order 3": lambda lib: lib.gradient(_samples(lib, (5,)), edge_order=3),
    "too few samples for edge_order 2": lambda lib: lib.gradient(_samples(lib, (2,)), edge_order=2),
    "one sample": lambda lib: lib.gradient(_samples(lib, (1,))),
    "spacing list longer than dims": lambda lib: lib.gradient(_samples(lib, (5,)), spacing=[1.0, 2.0]),
    "spacing list and dim of other lengths": lambda lib: lib.gradient(_samples(lib, (3, 4)), spacing=[1.0, 2.0],
                                                                      dim=1),
    "2-d coordinates": lambda lib: lib.gradient(_samples(lib, (3, 4)), spacing=[lib.zeros(1, 3)], dim=0),
    "numbers mixed with coordinates": lambda lib: lib.gradient(_samples(lib, (3, 4)),
                                                               spacing=[1, _coords(lib, 0, 1, 2, 3)]),
    "dim out of range": lambda lib: lib.gradient(_samples(lib, (5,)), dim=2),
    "dim repeated": lambda lib: lib.gradient(_samples(lib, (3, 4)), dim=[0, 0]),
}


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_gradient_matches_torch(name: str) -> None:
    compare(GRADIENT_CASES[name])


# ---- repeat_interleave of counts only ---------------------------------------------------------

REPEAT_CASES: dict[str, Case] = {
    "counts": lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 1, 3])),
    "int32 counts": lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 1], dtype=lib.int32)),
    "empty counts": lambda lib: lib.repeat_interleave(lib.tensor([], dtype=lib.long)),
    "output_size": lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 1]), output_size=3),
    "wrong output_size": lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 1]), output_size=4),
    "method output_size": lambda lib: lib.tensor([1, 2, 3]).repeat_interleave(2, output_size=6),
    "method wrong output_size": lambda lib: lib.tensor([1, 2, 3]).repeat_interleave(2, output_size=5),
    "method tensor counts, wrong output_size": lambda lib: lib.tensor([1, 2]).repeat_interleave(
        lib.tensor([1, 2]), output_size=4),
    "0-d counts": lambda lib: lib.repeat_interleave(lib.tensor(3)),
    "2-d counts": lambda lib: lib.repeat_interleave(lib.tensor([[1, 2]])),
    "float counts": lambda lib: lib.repeat_interleave(lib.tensor([1.0, 2.0])),
    "2-d float counts": lambda lib: lib.repeat_interleave(lib.tensor([[1.0, 2.0]])),
    "bool counts": lambda lib: lib.repeat_interleave(lib.tensor([True, False])),
    "negative counts": lambda lib: lib.repeat_interleave(lib.tensor([1, -1])),
    "a list": lambda lib: lib.repeat_interleave([1, 2]),
}


@pytest.mark.parametrize("name", list(REPEAT_CASES))
def test_repeat_interleave_counts_matches_torch(name: str) -> None:
    compare(REPEAT_CASES[name])


# ---- grouped-query attention ------------------------------------------------------------------

def _attend(lib: ModuleType, q_shape: tuple[int, ...], k_shape: tuple[int, ...], v_shape: tuple[int, ...],
            **options: Any) -> Any:
    q, k, v = (_samples(lib, shape) / 10 for shape in (q_shape, k_shape, v_shape))
    return lib.nn.functional.scaled_dot_product_attention(q, k, v, **options)


def _attend_grads(lib: ModuleType, **options: Any) -> tuple[Any, ...]:
    q = _samples(lib, (2, 4, 3, 5), requires_grad=True)
    k = (_samples(lib, (2, 2, 6, 5)) / 7).requires_grad_()
    v = (_samples(lib, (2, 1, 6, 3)) / 9).requires_grad_()
    out = lib.nn.functional.scaled_dot_product_attention(q / 10, k, v, enable_gqa=True, **options)
    (out * lib.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)).sum().backward()
    # the output's grad_fn is left out: PyTorch names its batched matmul's node UnsafeViewBackward0
    return out.detach(), q.grad, k.grad, v.grad


GQA_CASES: dict[str, Case] = {
    "two query heads per key head": lambda lib: _attend(lib, (2, 4, 3, 8), (2, 2, 5, 8), (2, 2, 5, 3),
                                                       enable_gqa=True),
    "key and value grouped differently": lambda lib: _attend(lib, (2, 4, 3, 8), (2, 2, 5, 8), (2, 1, 5, 3),
                                                            enable_gqa=True),
    "causal": lambda lib: _attend(lib, (1, 6, 4, 8), (1, 3, 4, 8), (1, 3, 4, 8), enable_gqa=True, is_causal=True),
    "boolean mask": lambda lib: _attend(lib, (1, 4, 2, 8), (1, 2, 3, 8), (1, 2, 3, 8), enable_gqa=True,
                                        attn_mask=lib.tensor([[True, False, True], [True, True, False]])),
    "3-d: heads first": lambda lib: _attend(lib, (4, 3, 8), (2, 5, 8), (2, 5, 8), enable_gqa=True),
    "5-d": lambda lib: _attend(lib, (3, 2, 4, 3, 8), (3, 2, 2, 5, 8), (3, 2, 2, 5, 8), enable_gqa=True),
    "same heads": lambda lib: _attend(lib, (2, 2, 3, 8), (2, 2, 5, 8), (2, 2, 5, 3), enable_gqa=True),
    "autograd": lambda lib: _attend_grads(lib),
    "autograd, causal": lambda lib: _attend_grads(lib, is_causal=True),
    "heads that do not divide": lambda lib: _attend(lib, (2, 3, 3, 8), (2, 2, 5, 8), (2, 2, 5, 3),
                                                    enable_gqa=True),
    "value heads that do not divide": lambda lib: _attend(lib, (2, 4, 3, 8), (2, 2, 5, 8), (2, 3, 5, 3),
                                                          enable_gqa=True),
    "2-d input": lambda lib: _attend(lib, (3, 8), (5, 8), (5, 8), enable_gqa=True),
}


@pytest.mark.parametrize("name", list(GQA_CASES))
def test_grouped_query_attention_matches_torch(name: str) -> None:
    compare(GQA_CASES[name])
