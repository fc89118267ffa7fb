"""The vector width of the CPU kernels: the host's full width, unless the user chose a target."""

from __future__ import annotations

from pathlib import Path

from empty_cache_child import empty_cache_report
from numba.core import codegen

from minitorch.backends import vector_width

#: Numba's own reading of the host's features, which minitorch starts from
NUMBA_FEATURES = codegen.get_host_cpu_features()
HOST_HAS_AVX512 = "+avx512f" in NUMBA_FEATURES.split(",")

#: in a child process: the features of Numba's target machine after ``import minitorch``, and
#: the widest float32 vector in the code of a freshly compiled ``exp`` loop
REPORT_TARGET = """
import json, re
import numpy as np
import minitorch
from numba.core.registry import cpu_target
from minitorch.backends import cpu_kernels
minitorch.exp(minitorch.tensor(np.linspace(-1.0, 1.0, 64, dtype=np.float32)))
lanes = [int(n) for signature in cpu_kernels.map_run.signatures
         for n in re.findall(r"<([0-9]+) x float>", cpu_kernels.map_run.inspect_llvm(signature))]
print(json.dumps({"features": cpu_target.target_context.codegen()._tm_features, "lanes": max(lanes, default=0)}))
"""


def _child_target(tmp_path: Path, **environment: str) -> dict:
    return empty_cache_report(REPORT_TARGET, tmp_path, unset=vector_width.USER_CHOICES, **environment)


def test_a_cpu_with_512_bit_vectors_loses_only_the_256_bit_preference() -> None:
    features = vector_width.full_width_features("+avx2,+avx512f,-sse4a")
    assert features == "+avx2,+avx512f,-sse4a,-prefer-256-bit"


def test_a_cpu_without_512_bit_vectors_keeps_numbas_default() -> None:
    assert vector_width.full_width_features("+avx2,-avx512f,+fma") is None
    assert vector_width.full_width_features("+neon") is None
    assert vector_width.full_width_features("") is None  # LLVM could not read the CPU


def test_the_kernels_use_the_hosts_full_vector_width(tmp_path: Path) -> None:
    report = _child_target(tmp_path)
    assert report["features"].endswith(",-prefer-256-bit") == HOST_HAS_AVX512
    if HOST_HAS_AVX512:
        assert report["features"] == f"{NUMBA_FEATURES},-prefer-256-bit"
        assert report["lanes"] == 16  # float32 lanes of a 512-bit vector
    else:  # Numba's own choice of features, untouched
        assert report["features"] == NUMBA_FEATURES


def test_a_target_the_user_chose_is_left_alone(tmp_path: Path) -> None:
    generic = _child_target(tmp_path / "generic", NUMBA_CPU_NAME="generic")
    assert generic["features"] == ""  # Numba's features for its generic CPU
    assert 0 < generic["lanes"] <= 4  # SSE2's 128-bit vectors
    chosen = NUMBA_FEATURES
    assert _child_target(tmp_path / "chosen", NUMBA_CPU_FEATURES=chosen)["features"] == chosen
    without_avx = _child_target(tmp_path / "without_avx", NUMBA_ENABLE_AVX="0")["features"]
    assert "+avx512f" not in without_avx.split(",") and not without_avx.endswith(",-prefer-256-bit")
