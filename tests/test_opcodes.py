"""The one op table every backend shares, and the cache stamp that follows it."""

from __future__ import annotations

import importlib
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from minitorch.backends import kernel_cache, opcodes

TABLES = (
    (opcodes.UNARY, opcodes.UNARY_CODES),
    (opcodes.BINARY, opcodes.BINARY_CODES),
    (opcodes.REDUCE, opcodes.REDUCE_CODES),
    (opcodes.ARG_REDUCE, opcodes.ARG_REDUCE_CODES),
)


@pytest.mark.parametrize("names, codes", TABLES, ids=("unary", "binary", "reduce", "arg_reduce"))
def test_each_name_has_its_position_as_code_and_constant(names: tuple[str, ...], codes: dict[str, int]) -> None:
    assert len(set(names)) == len(names)
    for position, name in enumerate(names):
        assert codes[name] == position
        assert getattr(opcodes, name.upper()) == position, name


def test_names_are_distinct_across_tables() -> None:
    every = [name for names, _ in TABLES for name in names]
    assert len(every) == len(set(every))


def test_code_of_names_the_known_ops() -> None:
    assert opcodes.code_of(opcodes.UNARY_CODES, "exp") == opcodes.EXP
    with pytest.raises(ValueError, match=r"unknown op 'cube'; expected one of \[.*'exp'"):
        opcodes.code_of(opcodes.UNARY_CODES, "cube")


@pytest.mark.parametrize(
    "op, x, expected",
    [
        ("exp", 800.0, math.inf),
        ("exp", -math.inf, 0.0),
        ("log", 0.0, -math.inf),
        ("log", -1.0, math.nan),
        ("sqrt", -4.0, math.nan),
        ("sigmoid", -800.0, 0.0),
        ("relu", math.nan, math.nan),
        ("sin", math.inf, math.nan),
        ("cos", -math.inf, math.nan),
        ("rsqrt", -0.0, -math.inf),
        ("rsqrt", -1.0, math.nan),
        ("rsqrt", math.inf, 0.0),
        ("reciprocal", 0.0, math.inf),
        ("reciprocal", -0.0, -math.inf),
    ],
)
def test_scalar_bodies_give_ieee_results_in_plain_python(op: str, x: float, expected: float) -> None:
    """In Python ``math`` raises outside a function's domain: the guards must give what compiled code gives."""
    out = np.zeros(1)
    opcodes.unary_into(opcodes.UNARY_CODES[op], np.float64(x), out, 0)
    np.testing.assert_equal(out[0], expected)


def test_cache_stamp_follows_the_op_table(tmp_path: Path) -> None:
    """An edit of ``opcodes.py`` changes the stamp of the cached kernels, so they recompile."""
    copy = tmp_path / "opcodes.py"
    shutil.copy(opcodes.__file__, copy)
    before = kernel_cache.source_digest(copy)
    assert before == kernel_cache.OPCODES_DIGEST
    copy.write_text(copy.read_text().replace("out[pos] = x + y", "out[pos] = y + x"))
    after = kernel_cache.source_digest(copy)
    assert after != before
    assert kernel_cache.stamp("own", before) != kernel_cache.stamp("own", after)


def test_cache_stamp_follows_the_shared_kernel_helpers(tmp_path: Path) -> None:
    """An edit of ``cpu_kernels.py`` (a helper that kernels in other files inline) changes the
    stamp of every cached kernel, so the convolution's kernels do not keep the old helper."""
    backends = Path(kernel_cache.__file__).parent
    for name in kernel_cache.SHARED_HELPER_FILES:
        shutil.copy(backends / name, tmp_path / name)
    before = kernel_cache.dependencies_digest(tmp_path, kernel_cache.SCALAR_BODIES_DIGEST)
    assert before == kernel_cache.DEPENDENCIES_DIGEST
    helpers = tmp_path / "cpu_kernels.py"
    helpers.write_text(helpers.read_text().replace("CHUNK = 1 << 14", "CHUNK = 1 << 13"))
    after = kernel_cache.dependencies_digest(tmp_path, kernel_cache.SCALAR_BODIES_DIGEST)
    assert after != before
    assert kernel_cache.stamp("own", before) != kernel_cache.stamp("own", after)


def cached_kernels() -> list[tuple[str, Any]]:
    """Every dispatcher with an on-disk cache in the cpu backend's kernel modules."""
    from numba.core.registry import CPUDispatcher

    found = []
    for path in sorted(Path(kernel_cache.__file__).parent.glob("cpu*.py")):
        module = importlib.import_module(f"minitorch.backends.{path.stem}")
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__ and value._cache._impl is not None:
                found.append((f"{path.stem}.{name}", value))
    return found


def test_every_cached_kernel_is_stamped_with_its_dependencies() -> None:
    kernels = cached_kernels()
    modules = {name.split(".")[0] for name, _ in kernels}
    assert {"cpu_kernels", "cpu_conv", "cpu_pool", "cpu_index_kernels", "cpu_matmul_outer", "cpu_reduce_long"} <= modules
    for name, kernel in kernels:
        assert kernel._cache._impl.locator.get_source_stamp()[1] == kernel_cache.DEPENDENCIES_DIGEST, name
