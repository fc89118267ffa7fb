"""The per-op compilation of the CPU kernels: one branch of the op table, one kernel per op.

:func:`minitorch.backends.op_branches.branch` cuts one op's branch out of an ``if``/``elif``
chain of :mod:`~minitorch.backends.opcodes`. The oracle is the chain itself, run as plain
Python: for every op code and a grid of values (specials included), the branch must store
(or return) what the whole chain does. The compiled kernels are compared with NumPy by the
backend contract tests; here, that each op really is compiled alone and cached apart.
"""

from __future__ import annotations

import inspect
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from empty_cache_child import empty_cache_report

from minitorch.backends import cpu_index_kernels, cpu_kernels, cpu_matmul, op_branches, opcodes

FLOATS = (-3.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.5, 710.0, -math.inf, math.inf, math.nan)
INTEGERS = (-7, -1, 0, 1, 3, 64)


def _same(a: object, b: object) -> bool:
    return (a != a and b != b) or (a == b and math.copysign(1, a) == math.copysign(1, b)
                                   if isinstance(a, float) and isinstance(b, float) else a == b)


def _stored(function, *args) -> object:
    out = [None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's float64 overflow, as the chain's
        function(*args, out, 0)
    return out[0]


@pytest.mark.parametrize("code", range(len(opcodes.UNARY)), ids=opcodes.UNARY)
def test_unary_branch_stores_what_the_chain_stores(code: int) -> None:
    branch = op_branches.branch(opcodes.unary_into, code)
    values = INTEGERS if opcodes.UNARY[code] == "bitwise_not" else FLOATS
    for x in values:
        expected, got = _stored(opcodes.unary_into, code, x), _stored(branch, code, x)
        assert _same(expected, got), (opcodes.UNARY[code], x, expected, got)


@pytest.mark.parametrize("code", range(len(opcodes.BINARY)), ids=opcodes.BINARY)
def test_binary_branch_stores_what_the_chain_stores(code: int) -> None:
    branch = op_branches.branch(opcodes.binary_into, code)
    name = opcodes.BINARY[code]
    integer = name.startswith(("int_", "bitwise", "left", "right"))
    values = INTEGERS if integer else FLOATS
    for x in values:
        for y in values:
            if integer and name.startswith("int_") and y == 0:
                continue  # the tensor layer refuses a zero integer divisor before the kernel
            expected = _stored(opcodes.binary_into, code, np.float64(x) if not integer else x, y)
            got = _stored(branch, code, np.float64(x) if not integer else x, y)
            assert _same(expected, got), (name, x, y, expected, got)


@pytest.mark.parametrize("code", range(len(opcodes.REDUCE)), ids=opcodes.REDUCE)
def test_reduce_branch_returns_what_the_chain_returns(code: int) -> None:
    branch = op_branches.branch(opcodes.reduce_step, code)
    for acc in FLOATS:
        for x in FLOATS:
            assert _same(opcodes.reduce_step(code, acc, x), branch(code, acc, x))


@pytest.mark.parametrize("code", range(len(opcodes.ARG_REDUCE)), ids=opcodes.ARG_REDUCE)
def test_arg_reduce_branch_returns_what_the_chain_returns(code: int) -> None:
    branch = op_branches.branch(opcodes.is_better, code)
    for x in FLOATS:
        for best in FLOATS:
            assert opcodes.is_better(code, x, best) == branch(code, x, best)


def test_a_branch_holds_only_its_own_statements() -> None:
    """``exp``'s branch names only what ``exp`` needs; ``masked``, the final ``else``, keeps its
    inner ``if`` (an ``if`` inside ``else:`` must not be read as one more ``elif``)."""
    exp = op_branches.branch(opcodes.unary_into, opcodes.EXP)
    assert set(exp.__code__.co_names) == {"math", "inf", "EXP_OVERFLOW", "exp"}
    assert len(opcodes.unary_into.__code__.co_names) > 30
    masked = op_branches.branch(opcodes.binary_into, opcodes.MASKED)
    assert set(masked.__code__.co_names) == set()
    assert _stored(masked, opcodes.MASKED, 2.5, 0.0) == 0
    assert _stored(masked, opcodes.MASKED, 2.5, 1.0) == 2.5


def test_a_branch_keeps_the_chains_module_and_lines() -> None:
    """A traceback from a branch points into opcodes.py, at the line of the chain."""
    branch = op_branches.branch(opcodes.unary_into, opcodes.EXP)
    assert branch.__globals__ is opcodes.__dict__
    assert branch.__code__.co_filename == opcodes.__file__
    lines, first = inspect.getsourcelines(opcodes.unary_into)
    exp_line = first + next(i for i, line in enumerate(lines) if "op == EXP" in line) + 1
    assert branch.__code__.co_firstlineno == first
    assert exp_line in {line for _, _, line in branch.__code__.co_lines() if line is not None}


def test_a_chain_that_is_not_one_if_elif_is_refused() -> None:
    def two_statements(op: int, x: float) -> float:
        y = x
        return y

    with pytest.raises(ValueError, match="two_statements is not a single if/elif chain on 'op'"):
        op_branches.branch(two_statements, 0)


def test_each_op_compiles_a_kernel_of_its_own() -> None:
    """The entry points are one compiled function per op (and per serial/threaded), each
    calling the kernel with its op code as a compile-time constant, and each cached apart."""
    add, mul = cpu_kernels.zip_entry(opcodes.ADD, False), cpu_kernels.zip_entry(opcodes.MUL, False)
    assert add is cpu_kernels.zip_entry(opcodes.ADD, False)
    assert add is not mul and add is not cpu_kernels.zip_entry(opcodes.ADD, True)
    a, b = np.arange(6, dtype=np.float32), np.full(6, 2.0, np.float32)
    shape, strides = np.array([6]), np.array([1])
    for entry, expected in ((add, a + b), (mul, a * b)):
        out = np.empty(6, np.float32)
        entry(out, shape, strides, a, strides, b, strides)
        np.testing.assert_array_equal(out, expected)
    # the op code is the closure's one value (Numba compiles it in as a constant, and keys the
    # cache entry on it); the names name the cache files
    assert [cell.cell_contents for cell in add.py_func.__closure__] == [opcodes.ADD]
    assert (add.py_func.__name__, cpu_kernels.zip_entry(opcodes.ADD, True).py_func.__name__) == ("zip_add", "zip_add_threaded")


def test_serial_twins_are_cached_apart_from_their_kernels() -> None:
    """Numba keys a cache entry on name, signature and bytecode: a twin under its kernel's name
    would load the threaded machine code (or the kernel the serial one)."""
    pairs = [
        (cpu_kernels.map_kernel, cpu_kernels.map_kernel_serial),
        (cpu_kernels.zip_kernel, cpu_kernels.zip_kernel_serial),
        (cpu_kernels.reduce_kernel, cpu_kernels.reduce_kernel_serial),
        (cpu_kernels.arg_reduce_kernel, cpu_kernels.arg_reduce_kernel_serial),
        (cpu_matmul.matmul_kernel, cpu_matmul.matmul_kernel_serial),
        (cpu_index_kernels.gather_kernel, cpu_index_kernels.gather_kernel_serial),
        (cpu_index_kernels.accumulate_kernel, cpu_index_kernels.accumulate_kernel_serial),
    ]
    for kernel, twin in pairs:
        assert twin.py_func.__code__ is kernel.py_func.__code__
        # (Numba empties the dict of parallel options once it has compiled; the key stays)
        assert "parallel" in kernel.targetoptions and "parallel" not in twin.targetoptions
        assert twin._cache._cache_file._index_name != kernel._cache._cache_file._index_name
        assert twin._cache._impl.locator.get_source_stamp() == kernel._cache._impl.locator.get_source_stamp()


#: a child process that compiles one small ``zip`` into an empty cache and prints which
#: functions Numba compiled
COMPILE_ONE_ZIP = """
import json
from numba.core import event
import numpy as np
from minitorch.backends import cpu_kernels, opcodes
compiled = []
class Listener(event.Listener):
    def on_start(self, e):
        pass
    def on_end(self, e):
        compiled.append(e.data["dispatcher"].py_func.__name__)
event.register("numba:compile", Listener())
a, b = np.arange(1, 7, dtype=np.int16), np.full(6, 2, np.int16)
out = np.empty(6, np.int16)
shape, strides = np.array([2, 3]), np.array([3, 1])
cpu_kernels.zip_entry(opcodes.BINARY_CODES["sub"], False)(out, shape, strides, a, strides, b, strides)
print(json.dumps({"out": out.tolist(), "compiled": compiled}))
"""


def test_a_small_ops_first_call_compiles_the_entry_point_and_its_loops_only(tmp_path: Path) -> None:
    """Compile time: the task and the serial kernel are inlined into the entry point (each
    function compiled on its own is optimised again by every caller); the segment loops and
    the op's branch stay functions of their own. Counted by Numba's compile events."""
    report = empty_cache_report(COMPILE_ONE_ZIP, tmp_path)
    assert report["out"] == [-1, 0, 1, 2, 3, 4]
    compiled = set(report["compiled"])
    assert {"zip_sub", "zip_run"} <= compiled
    assert not compiled & {"zip_task", "zip_kernel_serial", "zip_kernel"}, compiled
