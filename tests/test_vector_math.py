"""The vectorised float32 ``exp``, ``log``, ``tanh``, ``sigmoid`` and ``erf`` of the CPU backend.

The oracle is float64 arithmetic (NumPy and ``math``), about 2^29 times finer than a float32:
each float32 result is compared with the exact value in ulps of float32 at that value. The
samples cover every binade of float32 (the subnormals too, both signs), a dense grid where the
functions bend, the points where a function changes formula, and the special values, which
must be what the C library gives. The float32 kernels run through the tensors, so what is
checked is what a user gets, on both the serial and the threaded kernels.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from empty_cache_child import empty_cache_report
from numba import njit

import minitorch
from minitorch.backends import cpu_kernels, opcodes, vector_math

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from vector_math_accuracy import ORACLES, every_binade, exact, representable, samples, ulps  # noqa: E402

#: the accuracy promised in the docs, in float32 ulps of the exact result
MAX_ULPS = {"exp": 1.0, "log": 1.0, "tanh": 1.5, "sigmoid": 2.0, "erf": 1.5}
#: more elements than this run on the threaded kernel (the backend's threshold)
THREADED = cpu_kernels.PARALLEL_MIN_WORK


def _samples(op: str) -> np.ndarray:
    """Every binade, a dense grid, and both sides of the points where a function changes formula."""
    edges = np.array([vector_math.TANH_SPLIT, vector_math.ERF_SPLIT, vector_math.ERF_ONE, vector_math.EXP_MAX,
                      vector_math.EXP_MIN, 88.72283, -87.33655, -103.27893, np.float32(2.0**-126)], np.float32)
    near_edges = np.concatenate([np.nextafter(edges, np.float32(np.inf)), np.nextafter(edges, -np.float32(np.inf))])
    return np.concatenate([samples(op, 40, 60_000), edges, -edges, near_edges, -near_edges])


def _through_tensors(op: str, x: np.ndarray) -> np.ndarray:
    return getattr(minitorch, op)(minitorch.tensor(x)).numpy()


@pytest.mark.parametrize("op", sorted(ORACLES))
def test_float32_results_are_within_the_promised_ulps(op: str) -> None:
    x = _samples(op)
    assert x.size > THREADED  # the threaded kernel
    result = _through_tensors(op, x)
    assert result.dtype == np.float32
    values = exact(op, x)
    finite = representable(values)
    errors = ulps(result[finite], values[finite])
    worst = int(np.argmax(errors))
    assert errors[worst] <= MAX_ULPS[op], (
        f"{op}({x[finite][worst]!r}) = {result[finite][worst]!r}, exact {values[finite][worst]!r}: "
        f"{errors[worst]:.2f} ulp")
    # results that overflow float32 are inf, as the exact value rounds
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(result[~finite], values[~finite].astype(np.float32))


SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38,
                     88.72283, 88.7229, 89.0, -87.3, -103.97, -104.0, -150.0, 1.0, -1.0, 20.0, -20.0], np.float32)


@pytest.mark.parametrize("op", sorted(ORACLES))
def test_special_values_are_the_c_librarys(op: str) -> None:
    """inf, nan, signed zeros, overflow and underflow as float64's results rounded to float32."""
    result = _through_tensors(op, SPECIALS)
    with np.errstate(over="ignore"):
        expected = exact(op, SPECIALS).astype(np.float32)
    rounded_alike = (result == expected) & (np.signbit(result) == np.signbit(expected))
    both_nan = np.isnan(result) & np.isnan(expected)
    close = ulps(np.where(np.isfinite(result), result, 0), np.where(np.isfinite(expected), expected, 0)) <= 2
    ok = rounded_alike | both_nan | (close & np.isfinite(result) & np.isfinite(expected) & (result != 0))
    assert ok.all(), {float(x): (float(r), float(e)) for x, r, e, good in zip(SPECIALS, result, expected, ok)
                      if not good}


@pytest.mark.parametrize("op", sorted(ORACLES))
def test_serial_and_threaded_kernels_agree_bit_for_bit(op: str) -> None:
    x = _samples(op)
    small = np.concatenate([_through_tensors(op, x[i : i + 1000]) for i in range(0, x.size, 1000)])
    assert x[:1000].size < THREADED
    np.testing.assert_array_equal(small.view(np.int32), _through_tensors(op, x).view(np.int32))


def _body_inputs() -> np.ndarray:
    rng = np.random.default_rng(7)
    return np.concatenate([SPECIALS, every_binade(rng, 1)[::5], rng.uniform(-6, 6, 100).astype(np.float32)])


def _in_python(op: str, x: np.ndarray) -> np.ndarray:
    body = cpu_kernels.VECTOR_FLOAT32[opcodes.UNARY_CODES[op]]
    with np.errstate(all="ignore"):
        return np.array([body.py_func(v) for v in x], dtype=np.float32)


#: in a child process compiling for a CPU without FMA instructions: the compiled results' bits
COMPILED_WITHOUT_FMA = """
import json, sys
import numpy as np
import minitorch
x = np.array(json.loads(sys.argv[1]), dtype=np.int32).view(np.float32)
print(json.dumps({op: getattr(minitorch, op)(minitorch.tensor(x)).numpy().view(np.int32).tolist()
                  for op in json.loads(sys.argv[2])}))
"""


def test_plain_python_bodies_compute_what_the_compiled_ones_do_without_fma(tmp_path: Path) -> None:
    """Each body runs uncompiled too (``select`` and the bit casts have Python twins): bit for
    bit, where the compiled code cannot fuse a multiply-add (Numba's generic CPU has no FMA)."""
    x = _body_inputs()
    ops = sorted(ORACLES)
    compiled = empty_cache_report(COMPILED_WITHOUT_FMA, tmp_path, json.dumps(x.view(np.int32).tolist()),
                                  json.dumps(ops), unset=["NUMBA_CPU_FEATURES"], NUMBA_CPU_NAME="generic")
    for op in ops:
        np.testing.assert_array_equal(_in_python(op, x).view(np.int32), np.array(compiled[op], np.int32), err_msg=op)


@pytest.mark.parametrize("op", sorted(ORACLES))
def test_fused_multiply_adds_move_a_result_by_at_most_an_ulp(op: str) -> None:
    """On this CPU the compiled multiply-adds may be fused (one rounding where Python rounds
    twice): the results are those of the plain-Python bodies, or a neighbouring float32."""
    x = _body_inputs()
    in_python, compiled = _in_python(op, x), _through_tensors(op, x)
    same = (in_python.view(np.int32) == compiled.view(np.int32)) | (np.isnan(in_python) & np.isnan(compiled))
    apart = np.abs(in_python.view(np.int32).astype(np.int64) - compiled.view(np.int32).astype(np.int64))
    assert (same | (np.isfinite(compiled) & (apart <= 1))).all(), x[~same]


def test_float64_keeps_the_c_library() -> None:
    """Only float32 takes the polynomial bodies: float64 results are the C library's, to the bit."""
    x = np.random.default_rng(3).uniform(-30, 30, 1000)
    np.testing.assert_array_equal(minitorch.exp(minitorch.tensor(x)).numpy(), [math.exp(v) for v in x.tolist()])


def test_bit_casts_round_trip() -> None:
    for value in (np.float32(1.0), np.float32(-2.5), np.float32(1e-45), np.float32(np.inf)):
        bits = vector_math.float_bits(value)
        assert bits == np.array(value).view(np.int32)
        assert vector_math.bits_float(bits) == value
    assert vector_math.bits_float(np.int64(127 << 23)) == 1.0


#: in a child process with an empty Numba cache: each op compiled afresh on float32, then, for
#: each op, whether the optimised code of its segment loop has vector types
FRESH_SEGMENT_LOOPS = """
import json, re
import numpy as np
import minitorch
from minitorch.backends import cpu_kernels, opcodes
x = minitorch.tensor(np.linspace(0.5, 2.0, 64, dtype=np.float32))
for op in ("exp", "log", "tanh", "sigmoid", "erf", "neg"):
    getattr(minitorch, op)(x)
vectorised = {}
for signature in cpu_kernels.map_run.signatures:
    code = cpu_kernels.map_run.inspect_llvm(signature)
    vectorised[opcodes.UNARY[signature[0].literal_value]] = bool(re.search(r"<[0-9]+ x float>", code))
print(json.dumps(vectorised))
"""


def test_each_segment_loop_is_vectorised_in_its_own_compiled_code(tmp_path: Path) -> None:
    """The process that compiles a kernel runs its segment loop's *own* compiled code: Numba
    links a copy of a callee into each caller, but at run time the callee's first definition
    wins. A loop vectorised only once inlined into its caller made the first run of every
    program 4-7x slower on these ops than the runs after it, which load the cache."""
    vectorised = empty_cache_report(FRESH_SEGMENT_LOOPS, tmp_path)
    assert vectorised == {op: True for op in ("exp", "log", "tanh", "sigmoid", "erf", "neg")}


@njit(error_model="numpy")
def _scale_each(values: np.ndarray, powers: np.ndarray, by_instruction: bool) -> np.ndarray:
    out = np.empty((values.size, powers.size), np.float32)
    for i in range(values.size):
        for j in range(powers.size):
            if by_instruction:
                out[i, j] = vector_math._ldexp_intrinsic(values[i], powers[j])
            else:
                out[i, j] = vector_math.times_power_of_two(values[i], powers[j])
    return out


def test_the_scaling_instruction_and_the_two_multiplies_round_alike() -> None:
    """``exp`` scales :math:`e^r` and its rest by :math:`2^k` either with LLVM's ``ldexp`` (one
    ``vscalefps`` on AVX-512) or with two multiplies: both must give the correctly rounded product,
    the C library's ``ldexpf`` (NumPy's), for every :math:`k` of the reduction, subnormal results
    and overflow to ``inf`` included."""
    rng = np.random.default_rng(11)
    e_r = rng.uniform(0.70, 1.42, 400).astype(np.float32)  # e^r for |r| <= ln 2 / 2
    rests = (rng.uniform(-1, 1, 100) * 2.0 ** rng.integers(-50, -24, 100)).astype(np.float32)
    values = np.concatenate([e_r, rests, np.float32([0.70710677, 1.4142135, 1.0, 0.0, -0.0])])
    powers = np.arange(-150, 129, dtype=np.int32)
    with np.errstate(over="ignore"):  # 1.42 * 2^128 is inf, as it must be
        expected = np.ldexp(values[:, None], powers[None, :]).astype(np.float32)
    for by_instruction in (True, False):
        scaled = _scale_each(values, powers, by_instruction)
        np.testing.assert_array_equal(scaled.view(np.int32), expected.view(np.int32), err_msg=str(by_instruction))


def test_the_scaling_instruction_is_taken_only_where_it_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """LLVM's ``ldexp`` is ``vscalefps`` with AVX-512 and a C library call elsewhere (AVX2, the generic
    x86-64, ARM without SVE): the choice follows the features Numba compiles for."""
    from minitorch.backends import vector_width

    monkeypatch.setattr(vector_width.config, "CPU_FEATURES", "+avx2,+avx512f,+fma,-prefer-256-bit")
    assert vector_width.scales_by_powers_of_two()
    monkeypatch.setattr(vector_width.config, "CPU_FEATURES", "+avx2,-avx512f,+fma")
    assert not vector_width.scales_by_powers_of_two()
    monkeypatch.setattr(vector_width.config, "CPU_FEATURES", "")  # NUMBA_CPU_NAME=generic
    assert not vector_width.scales_by_powers_of_two()
