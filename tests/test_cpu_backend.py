"""What only the Numba CPU backend has: parallel paths for large inputs.

The backend contract (every op, dtype and layout, against NumPy and the simple backend) is
tested on every backend in ``test_backend_contract.py``; here are the inputs large enough
to take the CPU kernels' threaded paths (:data:`~minitorch.backends.cpu_kernels.PARALLEL_MIN_WORK`)
and the matmul's several blocks, which would be too slow on the simple backend and the CUDA
simulator. The blocking of the matmul kernel itself is tested in ``test_cpu_matmul.py``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from backend_views import (
    BOOL, F32, F64, I64, LAYOUTS, MATMUL_TOLERANCE, assert_close, host_kit, log_softmax_oracle, sample,
)
import minitorch
from minitorch.backends.base import REDUCE_OPS
from minitorch.backends.cpu import CpuBackend, numba_matmul
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK

CPU = CpuBackend()
#: the cpu backend with its two matmul paths: the course's Numba kernel and the default
KIT = host_kit("cpu", CPU, matmuls=(numba_matmul, CPU.matmul))


def reduced_shape(shape: tuple[int, ...], dim: int) -> tuple[int, ...]:
    return shape[:dim] + (1,) + shape[dim + 1 :]


def reduce_numpy(op: str, x: np.ndarray, dim: int) -> np.ndarray:
    """NumPy's reduction, accumulating in float64 like the backend."""
    fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[op]
    return fn(x.astype(F64), axis=dim, keepdims=True)


@pytest.mark.task("3.1")
@pytest.mark.parametrize("out_layout", LAYOUTS)
def test_large_operands_take_the_parallel_path(out_layout: str) -> None:
    rng = np.random.default_rng(2)
    shape = (300, 257)
    assert np.prod(shape) >= PARALLEL_MIN_WORK
    x = sample(rng, shape, F32)
    y = sample(rng, shape, F32)
    row = sample(rng, (257,), F32)
    column = sample(rng, (300, 1), F32)
    three = KIT.view(np.array(3.0, F32))
    with np.errstate(all="ignore"):
        for a, b, expected in (
            (KIT.view(x), KIT.view(y), x / y),  # one contiguous segment
            (KIT.view(x), three, x / 3),  # a number on the right
            (three, KIT.view(y), 3 / y),  # a number on the left
            (three, KIT.view(y, "sliced"), 3 / y),  # ... and a strided operand
            (KIT.view(x, "permuted"), KIT.view(row), x / row),  # a broadcast row, transposed
            (KIT.view(x), KIT.view(column), x / column),  # a broadcast column
        ):
            out = KIT.out(shape, F32, out_layout)
            CPU.zip("div", a, b, out)
            assert_close(KIT.values(out), expected.astype(F32))
        out = KIT.out(shape, F32, out_layout)
        CPU.map("exp", KIT.view(x, "permuted"), out)
        assert_close(KIT.values(out), np.exp(x))
        out = KIT.out(shape, BOOL, out_layout)
        CPU.zip("lt", KIT.view(x), KIT.view(y, "sliced"), out)
        np.testing.assert_array_equal(KIT.values(out), x < y)
        KIT.assert_gaps_untouched(out)


@pytest.mark.task("3.2")
@pytest.mark.parametrize("layout", LAYOUTS + ("expanded",))
@pytest.mark.parametrize("dim", (0, 1, 2))
def test_reduce_large_each_dim(layout: str, dim: int) -> None:
    """Both loop orders (reduced dim innermost or not), threaded, on each kind of view."""
    rng = np.random.default_rng(dim)
    shape = (40, 33, 70)
    if layout == "expanded":
        small = sample(rng, (40, 1, 70), F32, specials=False)
        x, a = np.broadcast_to(small, shape), KIT.expanded(small, shape)
    else:
        x = sample(rng, shape, F32, specials=False)
        x[3, 4, 5] = np.nan  # max/min propagate it, in either loop order
        a = KIT.view(x, layout)
    for op in REDUCE_OPS:
        out = KIT.out(reduced_shape(shape, dim), F32, "sliced")
        CPU.reduce(op, a, dim, out)
        expected = reduce_numpy(op, x, dim).astype(F32)
        with np.errstate(all="ignore"):
            assert_close(KIT.values(out), expected)
        KIT.assert_gaps_untouched(out)


@pytest.mark.task("3.2")
def test_long_sum_accumulates_in_float64(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minitorch.backends.cpu, "use_long_run_kernel", False)  # the reduce kernel of task 3.2
    x = np.full(10**6 + 1, 0.1, F32)
    x[0] = 1e4
    out = KIT.out((1,), F32)
    CPU.reduce("sum", KIT.view(x), 0, out)
    assert KIT.values(out)[0] == np.float32(np.sum(x.astype(F64)))


@pytest.mark.task("3.2")
@pytest.mark.parametrize("dim", (0, 1))
def test_arg_reduce_large(dim: int) -> None:
    big = np.random.default_rng(3).standard_normal((300, 301)).astype(F32)
    out = KIT.out(reduced_shape(big.shape, dim), I64)
    CPU.arg_reduce("argmax", KIT.view(big, "permuted"), dim, out)
    np.testing.assert_array_equal(KIT.values(out), np.argmax(big, axis=dim, keepdims=True))


def check_matmul(a: np.ndarray, b: np.ndarray, layouts: tuple[str, str, str] = ("contiguous",) * 3) -> None:
    """The Numba kernel of task 3.3 (``numba_matmul``), then the backend's default path."""
    expected = np.matmul(a.astype(F64), b.astype(F64)).astype(a.dtype)
    for matmul in KIT.matmuls:
        out = KIT.out(expected.shape, a.dtype, layouts[2])
        matmul(KIT.view(a, layouts[0]), KIT.view(b, layouts[1]), out)
        assert_close(KIT.values(out), expected, MATMUL_TOLERANCE)
        KIT.assert_gaps_untouched(out)


@pytest.mark.task("3.3")
@pytest.mark.parametrize("dtype", (F32, F64), ids=str)
def test_matmul_spans_several_tiles(dtype: np.dtype) -> None:
    """(33, 129) @ (129, 513): the last tile in each direction is ragged."""
    rng = np.random.default_rng(33 * 129 + 513)
    check_matmul(sample(rng, (33, 129), dtype, False), sample(rng, (129, 513), dtype, False))


@pytest.mark.task("3.3")
def test_matmul_large_batch_broadcast() -> None:
    """Three batches of (40, 70) @ (70, 50), the second operand's one batch broadcast."""
    rng = np.random.default_rng(40)
    a, b = sample(rng, (3, 40, 70), F32, False), sample(rng, (1, 70, 50), F32, False)
    check_matmul(a, b, ("sliced", "permuted", "sliced"))


@pytest.mark.parametrize("size", [(7, 9), (300, 257)], ids=["serial", "threaded"])
def test_a_map_of_one_value_along_each_run(size: tuple[int, int]) -> None:
    """Runs that read one value (a fill, ``expand(...).contiguous()``, an op of a broadcast
    column): every element of ``out`` gets ``op`` of its run's value, in each dtype."""
    rows, cols = size
    column = np.linspace(-3, 3, rows, dtype=F32).reshape(rows, 1)
    expanded = minitorch.tensor(column).expand(rows, cols)
    np.testing.assert_array_equal(expanded.contiguous().numpy(), np.broadcast_to(column, size))
    assert_close(expanded.exp().numpy(), np.exp(np.broadcast_to(column, size)))
    np.testing.assert_array_equal((-expanded).numpy(), -np.broadcast_to(column, size))
    for dtype, value in ((minitorch.float32, -2.5), (minitorch.float64, 1e300), (minitorch.int64, -7),
                         (minitorch.bool, True)):
        filled = minitorch.zeros(rows, 2 * cols, dtype=dtype)[:, ::2]  # strided: the gaps stay 0
        filled.fill_(value)
        np.testing.assert_array_equal(filled.numpy(), np.full(size, value, dtype.numpy))
        np.testing.assert_array_equal(filled._base.numpy()[:, 1::2], np.zeros(size, dtype.numpy))
        whole = minitorch.empty(rows, cols, dtype=dtype).fill_(value)
        np.testing.assert_array_equal(whole.numpy(), np.full(size, value, dtype.numpy))


@pytest.mark.parametrize("out_layout", LAYOUTS)
def test_log_softmax_of_large_rows_takes_the_parallel_path(out_layout: str) -> None:
    """Rows past ``PARALLEL_MIN_WORK`` elements in all, read transposed, one row far above exp's range."""
    rng = np.random.default_rng(5)
    shape = (300, 257)
    assert np.prod(shape) >= PARALLEL_MIN_WORK
    x = (rng.standard_normal(shape) * 30).astype(F32)
    x[7] += 1000
    out = KIT.out(shape, F32, out_layout)
    CPU.log_softmax(KIT.view(x, "permuted"), out)
    assert_close(KIT.values(out), log_softmax_oracle(x))
    KIT.assert_gaps_untouched(out)


#: the functions compiled without a Python entry point (``kernel_only``), by module
KERNEL_ONLY_MODULES = ("cpu_kernels", "cpu_matmul", "cpu_matmul_outer", "cpu_index_kernels")
#: calls each kernel-only function from Python; Numba's own call would jump into code that was never compiled
CALL_EACH_KERNEL_ONLY = """
import importlib
import numpy as np
from numba.core.dispatcher import Dispatcher
from minitorch.backends.cpu_kernels import KernelOnlyDispatcher
for module_name in {modules!r}:
    module = importlib.import_module("minitorch.backends." + module_name)
    for name, value in sorted(vars(module).items()):
        if isinstance(value, Dispatcher) and value.targetoptions.get("no_cpython_wrapper"):
            assert isinstance(value, KernelOnlyDispatcher), name
            try:
                value(np.zeros(3, np.int64))
            except TypeError as error:
                print(name, "refused:", error)
"""


def test_kernel_only_functions_refuse_a_call_from_python() -> None:
    """Each function compiled without a Python entry point raises TypeError when Python calls it.

    In a child process: were one left unguarded, the call would kill the interpreter.
    """
    script = CALL_EACH_KERNEL_ONLY.format(modules=KERNEL_ONLY_MODULES)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    refused = {line.split()[0] for line in done.stdout.splitlines()}
    assert {"map_run", "zip_run", "reduce_run", "reduce_rows", "count", "matmul_task", "outer_task", "pack_columns",
            "gather_rows", "accumulate_rows"} <= refused
    assert "only inside other kernels" in done.stdout
