"""Square matmul in float32 and float64: minitorch's ``a @ b`` and the course's own Numba kernel.

Two minitorch rows per size: ``a @ b`` (whatever the cpu backend does by default, BLAS
included where it uses it) and the students' kernel (``matmul_kernel`` of course step 3.3)
called directly, so the kernel's own speed shows even when ``a @ b`` does not use it.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

import minitorch
from cases_ops import to_minitorch
from harness import MINITORCH, NUMPY, TORCH, Call, Case, Context, Factory, Row, Target

SIDES = (64, 128, 256, 512, 1024, 2048)
DTYPES = ("float32", "float64")
FLOPS_PER_MULTIPLY_ADD = 2
KERNEL = "kernel"
#: the issue's goal for the students' kernel, at this size
KERNEL_TARGET_SIDE = 1024
KERNEL_TARGET = Target("blas_fraction", 0.5)
#: idle seconds before each timed batch (OpenBLAS's spinning threads must let go of the cores)
SETTLE_S = 0.1
#: a ragged product (no side a multiple of a tile) to check an entry point before timing it
CHECK_SHAPES = ((37, 19), (19, 23))

MatmulFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: the name of the function the course kernel rows called (set once one has been checked)
entry_used: Optional[str] = None


def _kernels_module() -> Any:
    """The module holding ``matmul_kernel``: ``cpu_matmul``, or ``cpu_kernels`` in checkouts before the split."""
    try:
        from minitorch.backends import cpu_matmul

        return cpu_matmul
    except ImportError:
        from minitorch.backends import cpu_kernels

        return cpu_kernels


#: functions of :mod:`minitorch.backends.cpu` that run the students' kernel on ``(a, b, out)``
#: views whatever the backend's default ``a @ b`` does (the first one present is used)
ENTRY_POINTS = ("numba_matmul",)


def _named_entry_point() -> Optional[tuple[MatmulFn, str]]:
    """The cpu backend's own entry point to the course kernel, over ``TensorData`` views, if it has one."""
    from minitorch.backends import cpu
    from minitorch.tensor_data import TensorData

    for name in ENTRY_POINTS:
        entry = getattr(cpu, name, None)
        if callable(entry):
            def matmul(a: np.ndarray, b: np.ndarray, entry: Callable[..., None] = entry) -> np.ndarray:
                out = np.empty((a.shape[0], b.shape[1]), a.dtype)
                entry(TensorData(a.reshape(-1), a.shape), TensorData(b.reshape(-1), b.shape),
                      TensorData(out.reshape(-1), out.shape))
                return out

            return matmul, f"minitorch.backends.cpu.{name}"
    return None


def _kernel_adapter() -> tuple[MatmulFn, str]:
    """``matmul_kernel(out, shape, out_strides, a, a_strides, b, b_strides, k)`` on 2-D C-contiguous arrays.

    For checkouts whose backend names no entry point for the kernel.
    """
    kernel = _kernels_module().matmul_kernel

    def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        (n, k), m = a.shape, b.shape[1]
        out = np.empty((n, m), a.dtype)
        kernel(out.reshape(-1), np.array([n, m], np.int64), np.array([m, 1], np.int64),
               a.reshape(-1), np.array([k, 1], np.int64), b.reshape(-1), np.array([m, 1], np.int64), k)
        return out

    return matmul, f"{_kernels_module().__name__}.matmul_kernel"


def course_kernel() -> tuple[MatmulFn, str]:
    """The students' matmul kernel as ``f(a, b) -> a @ b`` on NumPy arrays, and its name.

    Raises (so the row reads n/a, with the reason in the notes) when this minitorch has no
    such kernel or it does not compute a correct product.
    """
    global entry_used
    fn, name = _named_entry_point() or _kernel_adapter()
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape) for shape in CHECK_SHAPES)
    if not np.allclose(fn(a, b), a @ b):
        raise RuntimeError(f"{name} does not compute a @ b on a {CHECK_SHAPES} check")
    entry_used = name
    return fn, name


def _factories(ctx: Context, a: np.ndarray, b: np.ndarray) -> dict[str, Factory]:
    def mt() -> Call:
        ta, tb = to_minitorch(a), to_minitorch(b)
        return lambda: ta @ tb

    def kernel() -> Call:
        fn, _ = course_kernel()
        return lambda: fn(a, b)

    def th() -> Optional[Call]:
        if ctx.torch is None:
            return None
        ta, tb = ctx.torch.from_numpy(a), ctx.torch.from_numpy(b)
        return lambda: ta @ tb

    return {MINITORCH: mt, KERNEL: kernel, NUMPY: lambda: (lambda: a @ b), TORCH: th}


def cases(ctx: Context) -> list[Case]:
    rng = np.random.default_rng(ctx.seed + 3)
    out = []
    for dtype in DTYPES:
        for side in SIDES:
            a = rng.standard_normal((side, side)).astype(dtype)
            b = rng.standard_normal((side, side)).astype(dtype)
            target = KERNEL_TARGET if side == KERNEL_TARGET_SIDE else None
            out.append(Case(
                f"matmul {side} {dtype}", "matmul", _factories(ctx, a, b),
                rows=[Row(MINITORCH, "a @ b"), Row(KERNEL, "course kernel", target)],
                flops=float(FLOPS_PER_MULTIPLY_ADD * side**3), budget_s=2.0, settle_s=SETTLE_S,
                description=f"square {dtype} a @ b; GFLOP/s count 2 n^3 operations; the course kernel "
                            "row calls the students' Numba matmul kernel directly",
            ))
    return out
