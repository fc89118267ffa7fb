"""bench/cuda_bench.py runs end to end on the simulator, so a GPU's minutes go to measuring.

The figures mean nothing here (the simulator runs kernels in Python); what is checked is that
every section runs and writes its rows, and that a section that fails is reported while the
others still run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import cuda_bench  # noqa: E402


@pytest.fixture
def tiny_bench(monkeypatch: pytest.MonkeyPatch, small_cuda: None) -> None:
    """The bench at sizes the simulator runs in seconds, as if on a GPU."""
    monkeypatch.setattr(cuda_bench, "gpu_or_reason", lambda: None)
    monkeypatch.setattr(cuda_bench, "QUICK_MATMUL_SIDES", (8,))
    small_blocking = {"use_blocked_matmul": True, "BLOCKED_MATMUL": (4, 4, 2, 2, 2), "BLOCKED_MIN_BLOCKS": 0}
    kernels = {"backend's choice": {}, "tiled": {"use_blocked_matmul": False}, "blocked": small_blocking}
    monkeypatch.setattr(cuda_bench, "MATMUL_KERNELS", kernels)
    monkeypatch.setattr(cuda_bench, "QUICK_ELEMENTWISE_SIZE", 64)
    monkeypatch.setattr(cuda_bench, "QUICK_SWEEP_EXPONENTS", (0, 5))
    monkeypatch.setattr(cuda_bench, "QUICK_REPEATS", 1)
    monkeypatch.setattr(cuda_bench, "WARMUP_CALLS", 1)
    monkeypatch.setattr(cuda_bench, "LAUNCH_CALLS", 2)
    for name, value in {"MLP_HIDDEN": (6,), "MLP_BATCH": 4, "MLP_FEATURES": 3, "MLP_STEPS": 4}.items():
        monkeypatch.setattr(cuda_bench, name, value)


@pytest.mark.usefixtures("tiny_bench")
def test_every_section_writes_its_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cuda.json"
    assert cuda_bench.main(["--quick", "--json", str(out)]) == 0
    results: dict[str, Any] = json.loads(out.read_text())
    assert [(row["n"], row["kernel"]) for row in results["matmul"]] == [(8, "backend's choice"), (8, "tiled"), (8, "blocked")]
    assert [row["op"] for row in results["elementwise"]] == ["a + b", "exp(a)"]
    assert [(row["op"], row["elements"]) for row in results["fixed_cost"]] == [("a + b", 1), ("a + b", 32), ("a.add_(b)", 1)]
    assert all(row["minitorch_us"] > 0 for row in results["fixed_cost"])
    assert [row["hidden"] for row in results["training"]] == [6]
    assert len(results["launch_cost"]) == 7 and all(row["us_per_call"] > 0 for row in results["launch_cost"])
    assert "failed" not in capsys.readouterr().out
    from minitorch.backends import cuda as cuda_backend

    assert cuda_backend.use_blocked_matmul is False  # the kernels' settings are put back


@pytest.mark.usefixtures("tiny_bench")
def test_a_failing_section_is_reported_and_the_others_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: Any) -> None:
        raise KeyError("<ufunc 'fmod'>")

    monkeypatch.setattr(cuda_bench, "bench_matmul", broken)
    out = tmp_path / "cuda.json"
    assert cuda_bench.main(["--quick", "--json", str(out)]) == 1
    results = json.loads(out.read_text())
    assert results["matmul"] == {"error": "KeyError: \"<ufunc 'fmod'>\""}
    assert len(results["elementwise"]) == 2 and len(results["training"]) == 1
    printed = capsys.readouterr().out
    assert "section matmul failed" in printed and "failed sections: matmul" in printed


def test_without_a_gpu_it_says_why_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert cuda_bench.main(["--quick"]) == 0  # the tests run on the simulator
    assert "skipped" in capsys.readouterr().out and "simulator" in cuda_bench.gpu_or_reason()


@pytest.mark.usefixtures("tiny_bench")
def test_only_the_sections_asked_for_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cuda.json"
    assert cuda_bench.main(["--quick", "--only", "launch_cost,elementwise", "--json", str(out)]) == 0
    assert set(json.loads(out.read_text())) == {"gpu", "elementwise", "launch_cost"}
    with pytest.raises(SystemExit):
        cuda_bench.main(["--only", "matmull"])
    assert "unknown sections ['matmull']" in capsys.readouterr().err
