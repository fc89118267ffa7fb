"""DistributedDataParallel on 1 and 2 ranks: time per training step, and the share spent communicating.

    python bench/distributed_bench.py [--steps N] [--ranks 1 2]

For each rank count it starts a job with ``python -m minitorch.distributed.run``; each job
trains two MLPs on the same *global* batch (each rank takes its share) with SGD and reports
the median time per step and the time inside the gradient all-reduces (starting, polling and
waiting: ``DistributedDataParallel.communication_seconds``). The machine's cores are split
between the ranks (``NUMBA_NUM_THREADS`` = cores / ranks), so 1 rank uses them all through
Numba's threads and 2 ranks one each. It also times a bare ``all_reduce`` over message sizes
and fits the alpha-beta model t(n) = alpha + n * beta (latency, seconds per byte), the inputs
of the ring all-reduce cost model of the course.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: (name, layer widths, global batch): the demo's MLP and batch, a digits-sized one, and the same with a
#: batch large enough that computing, not Python's per-op overhead, fills the step
MODELS = (("demo MLP 2-16-16-2, batch 26", (2, 16, 16, 2), 26),
          ("MLP 64-256-256-10, batch 256", (64, 256, 256, 10), 256),
          ("MLP 64-256-256-10, batch 4096", (64, 256, 256, 10), 4096))
WARMUP_STEPS = 5
MESSAGE_BYTES = tuple(8 * 4**k for k in range(10))  # 8 B .. 2 MiB
MESSAGE_REPEATS = 30
MS = 1e3


def _worker(out: Path, steps: int) -> None:
    import minitorch
    import minitorch.distributed as dist
    from minitorch import nn
    from minitorch.nn.parallel import DistributedDataParallel

    dist.init_process_group()
    rank, ranks = dist.get_rank(), dist.get_world_size()
    results: dict[str, object] = {"ranks": ranks, "models": {}}
    for name, widths, batch in MODELS:
        minitorch.manual_seed(0)
        layers: list[nn.Module] = []
        for width_in, width_out in zip(widths[:-2], widths[1:-1]):
            layers += [nn.Linear(width_in, width_out), nn.ReLU()]
        model = DistributedDataParallel(nn.Sequential(*layers, nn.Linear(widths[-2], widths[-1])))
        optimizer = minitorch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        share = -(-batch // ranks)
        inputs = minitorch.randn(share, widths[0])
        targets = minitorch.randint(0, widths[-1], (share,))
        loss_fn = nn.CrossEntropyLoss()
        times, comm = [], []
        for step in range(WARMUP_STEPS + steps):
            dist.barrier()
            before_comm = model.communication_seconds()
            start = time.perf_counter()
            optimizer.zero_grad()
            loss_fn(model(inputs), targets).backward()
            optimizer.step()
            if step >= WARMUP_STEPS:
                times.append(time.perf_counter() - start)
                comm.append(model.communication_seconds() - before_comm)
        results["models"][name] = {"step_ms": statistics.median(times) * MS, "comm_ms": statistics.median(comm) * MS}
    results["all_reduce"] = _all_reduce_times(dist, minitorch) if ranks > 1 else {}
    if rank == 0:
        out.write_text(json.dumps(results))
    dist.destroy_process_group()


def _all_reduce_times(dist: object, minitorch: object) -> dict[str, float]:
    """Median seconds of one float64 all_reduce per message size (bytes)."""
    found = {}
    for size in MESSAGE_BYTES:
        tensor = minitorch.zeros(size // 8, dtype=minitorch.float64)
        samples = []
        for _ in range(MESSAGE_REPEATS):
            dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(tensor)
            samples.append(time.perf_counter() - start)
        found[str(size)] = statistics.median(samples)
    return found


def _run_job(ranks: int, steps: int, cores: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "result.json"
        env = dict(os.environ, NUMBA_NUM_THREADS=str(max(1, cores // ranks)), OPENBLAS_NUM_THREADS="1")
        line = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", str(ranks), __file__,
                "--worker", str(out), "--steps", str(steps)]
        subprocess.run(line, check=True, env=env)
        return json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50, help="timed steps per model (after %d warm-up)" % WARMUP_STEPS)
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        _worker(args.worker, args.steps)
        return
    print(f"load average before: {os.getloadavg()[0]:.2f} on {args.cores} cores")
    jobs = {ranks: _run_job(ranks, args.steps, args.cores) for ranks in args.ranks}
    for name, _, _ in MODELS:
        print(f"\n{name}")
        print(f"{'ranks':>5} {'ms/step':>9} {'comm ms':>8} {'comm %':>7} {'speed-up':>9}")
        base = jobs[args.ranks[0]]["models"][name]["step_ms"]
        for ranks, job in jobs.items():
            row = job["models"][name]
            share = row["comm_ms"] / row["step_ms"] if row["step_ms"] else 0.0
            print(f"{ranks:>5} {row['step_ms']:>9.3f} {row['comm_ms']:>8.3f} {share:>7.1%} {base / row['step_ms']:>8.2f}x")
    for ranks, job in jobs.items():
        if job["all_reduce"]:
            sizes = np.array([int(size) for size in job["all_reduce"]], dtype=float)
            seconds = np.array(list(job["all_reduce"].values()))
            beta, alpha = np.polyfit(sizes, seconds, 1)
            print(f"\nall_reduce on {ranks} ranks (float64, median of {MESSAGE_REPEATS}):")
            for size, took in zip(sizes, seconds):
                print(f"{int(size):>10} B {took * 1e6:>10.1f} us")
            print(f"alpha-beta fit: latency alpha = {alpha * 1e6:.1f} us, bandwidth 1/beta = {1 / beta / 1e9:.2f} GB/s")


if __name__ == "__main__":
    main()
