"""The cuda backend's fused multiply-add (``backends/cuda_mul_add.py``): ``a * b + c`` rounded once.

Oracle: the cpu backend's ``mul_add``, which ``test_fused_multiply_add.py`` holds to exact
rational arithmetic. One rounding has one answer, so the two agree bit for bit: on Numba's
simulator (exact Python arithmetic) and on a GPU (its FMA instruction) alike.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

import minitorch
from minitorch.dispatch import mul_add_op

pytestmark = pytest.mark.usefixtures("small_cuda")

DTYPES = [minitorch.float32, minitorch.float64]
SHAPE = (6, 5)

#: operand layouts: (a, b, c) from three contiguous tensors of SHAPE
LAYOUTS: dict[str, Callable[[list[minitorch.Tensor]], tuple[minitorch.Tensor, ...]]] = {
    "contiguous": lambda t: (t[0], t[1], t[2]),
    "transposed": lambda t: (t[0].t().contiguous().t(), t[1], t[2].t().contiguous().t()),
    "broadcast row": lambda t: (t[0][0], t[1], t[2]),
    "a number": lambda t: (t[0], t[1][0, 0], t[2]),
}


def _operands(dtype: minitorch.dtype, seed: int = 0) -> list[minitorch.Tensor]:
    rng = np.random.default_rng(seed)
    return [minitorch.tensor(rng.standard_normal(SHAPE)).to(dtype) for _ in range(3)]


def _bits(t: minitorch.Tensor) -> bytes:
    return np.ascontiguousarray(t.cpu().float().numpy() if t.dtype.itemsize == 2 else t.cpu().numpy()).tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_mul_add_on_cuda_equals_the_cpu(dtype: minitorch.dtype, layout: str) -> None:
    on_cpu = LAYOUTS[layout](_operands(dtype))
    on_cuda = tuple(t.cuda() for t in on_cpu)
    assert _bits(mul_add_op(*on_cuda)) == _bits(mul_add_op(*on_cpu))


@pytest.mark.parametrize("dtype", DTYPES)
def test_mul_add_on_cuda_in_place_and_into_overlapping_views(dtype: minitorch.dtype) -> None:
    a, b, c = _operands(dtype, seed=1)
    expected = mul_add_op(a, b, c)
    x = c.cuda()
    mul_add_op(a.cuda(), b.cuda(), x, out=x)  # out is c
    assert _bits(x) == _bits(expected)
    flat = c.reshape(-1).cuda()
    mul_add_op(flat[1:], b.reshape(-1)[1:].cuda(), flat[:-1], out=flat[:-1])  # out overlaps a
    reference = c.reshape(-1).clone()
    mul_add_op(reference[1:], b.reshape(-1)[1:], reference[:-1], out=reference[:-1])
    assert _bits(flat) == _bits(reference)


@pytest.mark.parametrize("dtype", [minitorch.float16, minitorch.bfloat16])
def test_mul_add_on_cuda_of_sixteen_bit_floats(dtype: minitorch.dtype) -> None:
    on_cpu = _operands(dtype, seed=2)
    assert _bits(mul_add_op(*(t.cuda() for t in on_cpu))) == _bits(mul_add_op(*on_cpu))


def test_the_fused_ops_on_cuda_equal_the_cpu() -> None:
    a, b, c = _operands(minitorch.float32, seed=3)
    for call in (lambda x, y, z: minitorch.add(x, y, alpha=0.37), lambda x, y, z: minitorch.lerp(x, y, 0.7),
                 lambda x, y, z: minitorch.addcmul(x, y, z, value=0.3), lambda x, y, z: x.clone().add_(y, alpha=-0.01)):
        assert _bits(call(a.cuda(), b.cuda(), c.cuda())) == _bits(call(a, b, c))
