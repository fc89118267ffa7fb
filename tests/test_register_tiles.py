"""The outer-product matmul's two tile loops: sums in registers (AVX-512) and sums in memory.

Oracles: NumPy's product in float64, and each loop for the other: both add every output's terms
in the order of ``p``, one multiply-add each, so they must give the same bits on any CPU (the
register loop only runs slower where the tile does not fit the registers). The width Numba
compiles for is read in child processes under the environment variables that choose it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from minitorch.backends import cpu_matmul_outer as outer
from minitorch.backends import register_tiles, vector_width


# compiled as the kernel is (its multiply-adds fused): both loops are inlined into this function
@njit(cache=False, fastmath=outer.OUTER_OPTIONS["fastmath"])
def _both_loops(packed, k, a, a_base, a_row, a_col, n, out_memory, out_registers, width):  # noqa: ANN001, ANN202
    acc = np.empty(outer.TILE_ROWS * outer.TILE_COLS, out_memory.dtype)
    outer.tile_rows_in_memory(packed, 0, k, a, a_base, a_row, a_col, 0, n, out_memory, 0, width, 1, width, acc)
    outer.tile_rows_in_registers(packed, 0, k, a, a_base, a_row, a_col, 0, n, out_registers, 0, width, 1, width, acc)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n, k, width, transposed", [(4, 64, 64, False), (7, 33, 64, False), (13, 5, 17, True),
                                                     (1, 1, 1, False), (9, 200, 63, True)])
def test_register_and_memory_tiles_give_the_same_bits(dtype: type, n: int, k: int, width: int, transposed: bool) -> None:
    rng = np.random.default_rng(n * 1000 + k)
    b = rng.standard_normal((k, width)).astype(dtype)
    packed = np.zeros((k, outer.TILE_COLS), dtype)
    packed[:, :width] = b
    # a row-major a, or the transpose of a row-major array (its rows are strided, its columns not)
    a_matrix = rng.standard_normal((k, n)).astype(dtype).T if transposed else rng.standard_normal((n, k)).astype(dtype)
    storage = np.ascontiguousarray(a_matrix.T if transposed else a_matrix).reshape(-1)
    a_row, a_col = (1, n) if transposed else (k, 1)
    out_memory, out_registers = np.full(n * width, np.nan, dtype), np.full(n * width, np.nan, dtype)
    _both_loops(packed.reshape(-1), k, storage, 0, a_row, a_col, n, out_memory, out_registers, width)
    np.testing.assert_array_equal(out_registers, out_memory)
    expected = a_matrix.astype(np.float64) @ b.astype(np.float64)
    tolerance = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out_registers.reshape(n, width), expected, rtol=tolerance, atol=tolerance * np.sqrt(k))


def test_the_loop_in_use_follows_the_registers_numba_compiles_for() -> None:
    assert outer.IN_REGISTERS == (vector_width.compiled_vector_bytes() == 64)
    assert outer.tile_rows is (outer.tile_rows_in_registers if outer.IN_REGISTERS else outer.tile_rows_in_memory)


def test_fits_in_registers_needs_half_of_avx512s_registers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(register_tiles, "compiled_vector_bytes", lambda: 64)
    assert register_tiles.fits_in_registers(256) and not register_tiles.fits_in_registers(257)  # 16 of 32 registers
    for narrower in (32, 16):
        monkeypatch.setattr(register_tiles, "compiled_vector_bytes", lambda narrower=narrower: narrower)
        assert not register_tiles.fits_in_registers(1)


def _vector_bytes_in_a_child(environment: dict[str, str]) -> dict:
    code = ("import json, minitorch\n"
            "from minitorch.backends import vector_width, cpu_matmul_outer\n"
            "from numba.core import codegen\n"
            "print(json.dumps({'bytes': vector_width.compiled_vector_bytes(), 'registers': cpu_matmul_outer.IN_REGISTERS,"
            " 'avx512': '+avx512f' in codegen.get_host_cpu_features().split(',')}))")
    env = {key: value for key, value in os.environ.items() if key not in vector_width.USER_CHOICES}
    env.update(environment)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_generic_cpu_compiles_16_byte_vectors_and_keeps_the_sums_in_memory() -> None:
    found = _vector_bytes_in_a_child({"NUMBA_CPU_NAME": "generic"})
    assert found["bytes"] == vector_width.BASELINE_REGISTER_BYTES and not found["registers"]


def test_the_host_compiles_its_widest_vectors() -> None:
    found = _vector_bytes_in_a_child({})
    assert found["registers"] == found["avx512"]
    assert found["bytes"] == (64 if found["avx512"] else found["bytes"])
    assert found["bytes"] in (16, 32, 64)


def test_avx2_features_compile_32_byte_vectors() -> None:
    found = _vector_bytes_in_a_child({"NUMBA_CPU_FEATURES": "+sse2,+avx,+avx2,+fma"})
    assert found["bytes"] == 32 and not found["registers"]


def test_avx512_with_its_256_bit_preference_compiles_32_byte_vectors() -> None:
    """A user's own NUMBA_CPU_FEATURES with AVX-512 keeps LLVM's preference for 256-bit vectors."""
    found = _vector_bytes_in_a_child({"NUMBA_CPU_FEATURES": "+sse2,+avx,+avx2,+fma,+avx512f"})
    assert found["bytes"] == 32 and not found["registers"]


def test_stack_tile_is_an_array_of_the_size_asked_in_python_and_in_compiled_code() -> None:
    like = np.zeros(3, np.float64)
    assert register_tiles.stack_tile(like, 8).shape == (8,)

    @njit(cache=False)
    def filled(like):  # noqa: ANN001, ANN202
        tile = register_tiles.stack_tile(like, 12)
        for i in range(tile.size):
            tile[i] = i
        return tile.sum(), tile.size

    assert filled(like) == (66.0, 12)
