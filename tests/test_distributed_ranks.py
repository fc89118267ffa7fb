"""``minitorch.distributed`` and ``DistributedDataParallel`` on 2 ranks, and the launcher's failure handling.

One ``mpiexec -n 2`` job (through ``python -m minitorch.distributed.run``) runs every check of
``tests/distributed_worker.py`` on both ranks; each check is one test here, passing when both
ranks report ``ok``. Then three short jobs check that a rank that raises, exits with an error
or dies ends the whole job within seconds, with that rank's error.

``make test`` sets ``MINITORCH_REQUIRE_MPI=1`` (the ``distributed`` extra is part of ``dev``):
there a missing mpi4py is an error; elsewhere these tests are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import minitorch
from minitorch.distributed import run as launcher

HERE = Path(__file__).resolve().parent
WORKER = HERE / "distributed_worker.py"
RANKS = 2
#: a whole job (two interpreters, the Numba cache, ~30 checks); a cold cache compiles for a while
JOB_TIMEOUT = 600
#: a failing rank must end the job within this (it takes about a second)
FAILURE_DEADLINE = 30.0


def _require_mpi() -> None:
    if minitorch.distributed.is_available():
        try:
            launcher.find_mpiexec()
            return
        except FileNotFoundError as error:
            reason = str(error)
    else:
        reason = "mpi4py is not installed (pip install 'minitorch[distributed]')"
    if os.environ.get("MINITORCH_REQUIRE_MPI") == "1":
        pytest.fail(f"MINITORCH_REQUIRE_MPI=1 but {reason}")
    pytest.skip(reason)


def _environment() -> dict[str, str]:
    """The child processes import this checkout's minitorch, whatever the working directory."""
    root = str(Path(minitorch.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _launch(script: Path, *args: str, timeout: float = JOB_TIMEOUT) -> subprocess.CompletedProcess:
    line = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", str(RANKS), str(script), *args]
    return subprocess.run(line, capture_output=True, text=True, timeout=timeout, env=_environment())


@pytest.fixture(scope="module")
def rank_results(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, str]]:
    _require_mpi()
    out = tmp_path_factory.mktemp("ranks")
    done = _launch(WORKER, str(out))
    results = []
    for rank in range(RANKS):
        path = out / f"rank{rank}.json"
        assert path.exists(), f"rank {rank} wrote no results\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        results.append(json.loads(path.read_text()))
    assert done.returncode == 0, f"the job failed\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return results


def _check_names() -> list[str]:
    sys.path.insert(0, str(HERE))
    try:
        import distributed_worker
    finally:
        sys.path.remove(str(HERE))
    return list(distributed_worker.CHECKS)


@pytest.mark.parametrize("name", _check_names())
def test_on_two_ranks(rank_results: list[dict[str, str]], name: str) -> None:
    for rank, results in enumerate(rank_results):
        assert name in results, f"rank {rank} did not reach {name} (an earlier check hung or crashed)"
        assert results[name] == "ok", f"rank {rank}:\n{results[name]}"


def test_ring_all_reduce_on_three_ranks(tmp_path: Path) -> None:
    """The ring's chunk arithmetic with an odd ring, sizes not divisible by it, against MPI's all_reduce."""
    _require_mpi()
    script = tmp_path / "ring.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import minitorch as torch
        import minitorch.distributed as dist
        from minitorch.distributed.ring import ring_all_reduce
        dist.init_process_group()
        for numel in (1, 2, 7, 10):
            values = np.random.default_rng(dist.get_rank()).normal(size=numel)
            ring, reference = torch.from_numpy(values.copy()), torch.from_numpy(values.copy())
            ring_all_reduce(ring)
            dist.all_reduce(reference)
            np.testing.assert_allclose(ring.numpy(), reference.numpy(), rtol=1e-12, atol=1e-12)
        open(f"ring-ok-{dist.get_rank()}", "w").close()
    """))
    line = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", "3", str(script)]
    done = subprocess.run(line, capture_output=True, text=True, timeout=JOB_TIMEOUT, env=_environment(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in tmp_path.glob("ring-ok-*")) == [f"ring-ok-{rank}" for rank in range(3)]


FAILING = {
    "raises": "raise ValueError('rank one gave up')",
    "exits": "sys.exit('rank one gave up')",
    "dies": "os.kill(os.getpid(), signal.SIGKILL)",
}


@pytest.mark.parametrize("how", sorted(FAILING))
def test_a_failing_rank_ends_the_job(tmp_path: Path, how: str) -> None:
    """Rank 0 waits in a collective that rank 1 never joins: without the abort it would wait for ever."""
    _require_mpi()
    script = tmp_path / "fail.py"
    script.write_text(textwrap.dedent(f"""
        import os, signal, sys
        from mpi4py import MPI
        if MPI.COMM_WORLD.Get_rank() == 1:
            {FAILING[how]}
        MPI.COMM_WORLD.Barrier()
        print("rank", MPI.COMM_WORLD.Get_rank(), "passed the barrier")
    """))
    started = time.perf_counter()
    done = _launch(script, timeout=FAILURE_DEADLINE * 2)
    elapsed = time.perf_counter() - started
    assert done.returncode != 0
    assert elapsed < FAILURE_DEADLINE, f"the job took {elapsed:.1f} s to end"
    assert "passed the barrier" not in done.stdout
    if how != "dies":
        assert "[rank 1]" in done.stderr and "rank one gave up" in done.stderr, done.stderr


def test_launcher_finds_mpiexec_or_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(launcher.MPIEXEC_VARIABLE, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="is not an executable file"):
        launcher.find_mpiexec()
    monkeypatch.delenv(launcher.MPIEXEC_VARIABLE)
    monkeypatch.setattr(launcher.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(launcher.sysconfig, "get_path", lambda name: str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no mpiexec found beside"):
        launcher.find_mpiexec()
    fake = tmp_path / "mpiexec"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    assert launcher.find_mpiexec() == str(fake)
    line = launcher.command(3, "train.py", ["--epochs", "2"])
    assert line[:3] == [str(fake), "-n", "3"] and line[-3:] == ["train.py", "--epochs", "2"]
