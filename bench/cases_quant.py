"""Dynamic int8 quantization: the int8 kernel against float32 products, and the quantized
``Linear`` against PyTorch's.

* ``int8 matmul``: minitorch's u8 x s8 -> s32 kernel on ``(M, K) x (N, K)`` against the
  float32 product of the same shape in NumPy (BLAS) and PyTorch, with a row for minitorch's
  own float32 ``a @ b``;
* ``dynamic quantized Linear``: one forward pass of ``quantize_dynamic``'s Linear (activations
  quantized per batch, int8 product, scaled back) against PyTorch's, with a row for the float
  ``nn.Linear`` it replaces, under ``no_grad``.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

import minitorch
from harness import MINITORCH, NUMPY, TORCH, Call, Case, Context, Row

#: (batch, in_features, out_features): the digits MLP's first layer and the MNIST MLP's
SHAPES = ((256, 64, 128), (256, 784, 256))
FLOAT_ROW = "float32"
FLOPS_PER_MULTIPLY_ADD = 2


def _int8_operands(m: int, k: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 128, (m, k)).astype(np.uint8), rng.integers(-127, 128, (n, k)).astype(np.int8)


def _float_operands(m: int, k: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)


def _int8_kernel(m: int, k: int, n: int, seed: int) -> Call:
    from minitorch.backends.cpu_int8 import int8_matmul

    a, b = _int8_operands(m, k, n, seed)
    expected = a.astype(np.int64) @ b.astype(np.int64).T
    if not (int8_matmul(a, b) == expected).all():
        raise AssertionError("the int8 kernel disagrees with NumPy's int64 product")
    return lambda: int8_matmul(a, b)


def _float_matmul(lib: Any, m: int, k: int, n: int, seed: int) -> Call:
    a, b = _float_operands(m, k, n, seed)
    if lib is np:
        return lambda: a @ b
    ta, tb = lib.from_numpy(a), lib.from_numpy(b)
    return lambda: ta @ tb


def _linears(ctx: Context, k: int, n: int, seed: int) -> tuple[Any, Optional[Any], Any]:
    """minitorch's float Linear, its quantized copy, and PyTorch's quantized twin (or None)."""
    minitorch.manual_seed(seed)
    float_linear = minitorch.nn.Linear(k, n)
    quantized = minitorch.ao.quantization.quantize_dynamic(minitorch.nn.Sequential(float_linear), {minitorch.nn.Linear})
    twin = None
    if ctx.torch is not None:
        torch = ctx.torch
        linear = torch.nn.Linear(k, n)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(float_linear.weight.detach().numpy()))
            linear.bias.copy_(torch.from_numpy(float_linear.bias.detach().numpy()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            twin = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(linear), {torch.nn.Linear})
    return float_linear, quantized, twin


def _linear_call(ctx: Context, key: str, m: int, k: int, n: int, seed: int) -> Optional[Call]:
    float_linear, quantized, twin = _linears(ctx, k, n, seed)
    x = np.abs(np.random.default_rng(seed).standard_normal((m, k)).astype(np.float32))  # after a ReLU
    if key == TORCH:
        if twin is None:
            return None
        tx = ctx.torch.from_numpy(x)
        return lambda: twin(tx)
    if key == NUMPY:
        w, b = float_linear.weight.detach().numpy().T.copy(), float_linear.bias.detach().numpy()
        return lambda: x @ w + b
    mx = minitorch.from_numpy(x)
    if key == FLOAT_ROW:
        def forward() -> Any:
            with minitorch.no_grad():
                return float_linear(mx)
        return forward
    return lambda: quantized(mx)


def cases(ctx: Context) -> list[Case]:
    out = []
    for m, k, n in SHAPES:
        shape = f"{m}x{k} @ {k}x{n}"
        out.append(Case(
            f"int8 matmul {shape}", "quantization",
            {MINITORCH: lambda m=m, k=k, n=n: _int8_kernel(m, k, n, ctx.seed),
             NUMPY: lambda m=m, k=k, n=n: _float_matmul(np, m, k, n, ctx.seed),
             TORCH: lambda m=m, k=k, n=n: _float_matmul(ctx.torch, m, k, n, ctx.seed) if ctx.torch else None,
             FLOAT_ROW: lambda m=m, k=k, n=n: _float_matmul(minitorch, m, k, n, ctx.seed)},
            rows=[Row(MINITORCH, "[u8 x s8 -> s32 kernel]"), Row(FLOAT_ROW, "[float32 a @ b]")],
            flops=FLOPS_PER_MULTIPLY_ADD * m * k * n,
            description="int8 kernel against float32 products (NumPy and PyTorch columns are float32)",
        ))
        out.append(Case(
            f"dynamic quantized Linear {k}->{n}, batch {m}", "quantization",
            {key: (lambda key=key, m=m, k=k, n=n: _linear_call(ctx, key, m, k, n, ctx.seed))
             for key in (MINITORCH, NUMPY, TORCH, FLOAT_ROW)},
            rows=[Row(MINITORCH, "[int8]"), Row(FLOAT_ROW, "[float nn.Linear]")],
            description="forward of quantize_dynamic's Linear; torch: its dynamic quantized Linear; "
                        "numpy: x @ W.T + b in float32",
        ))
    return out
