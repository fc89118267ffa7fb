"""minitorch's cuda backend on a real GPU: matmul TFLOP/s, elementwise bandwidth, MLP training.

Run on a machine with an NVIDIA GPU (``pip install -e ".[cuda,bench]"``)::

    python bench/cuda_bench.py                 # everything
    python bench/cuda_bench.py --quick         # smaller sizes, fewer repeats
    python bench/cuda_bench.py --only launch_cost,fixed_cost   # some sections only

Without a GPU, or on Numba's CUDA simulator (which measures Python, not a GPU), it prints
why and exits with status 0. What it reports:

* **matmul**: square float32 matrices of side 1024 to 8192, in TFLOP/s (``2 n^3``
  operations), by each kernel (the one the backend chooses, the students' tiled
  shared-memory kernel, the register-blocked kernel at two blockings), and the ratio to
  PyTorch's CUDA matmul (cuBLAS) on the same GPU, or to CuPy's when PyTorch has no CUDA
  build here; "n/a" without either.
* **elementwise**: ``a + b`` and ``exp(a)`` on 2^26 float32 elements, as GB/s moved
  (bytes read plus written) and as a fraction of the GPU's peak memory bandwidth
  (computed from the memory clock and bus width the driver reports).
* **fixed cost per op**: ``a + b`` from 1 to 2^26 elements and ``a.add_(b)`` (no new
  storage) on 1 element, in microseconds per op beside PyTorch's: the small sizes show what
  each op costs before any data moves (the launch from Python, the new storage), the large
  ones how close the kernel comes to the memory bandwidth.
* **launch cost**: a one-element ``a + b`` taken apart, host microseconds per call of each
  layer: a device allocation, an empty kernel's launch, the zip kernel's launch with its
  arguments ready (by Numba, and by the backend's launch plan), the backend's ``zip``, ``add(..., out=)``, and the whole ``a + b``;
  each row minus the one above is what that layer adds.
* **MLP training**: steps per second of SGD on a 2-layer MLP (hidden 100 and 1000) on
  cuda against the cpu backend, and the speed-up.

A section that fails prints its error and the others still run (exit status 1 at the end).

Each timing synchronizes the GPU before and after; the median of the repeats is reported.
The figures also go to ``bench/results/cuda_latest.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

import minitorch  # noqa: E402

MATMUL_SIDES = (1024, 2048, 4096, 8192)
QUICK_MATMUL_SIDES = (1024, 2048)
ELEMENTWISE_SIZE = 1 << 26
QUICK_ELEMENTWISE_SIZE = 1 << 22
#: sizes of the fixed-cost sweep (powers of two)
SWEEP_EXPONENTS = (0, 10, 14, 18, 22, 26)
QUICK_SWEEP_EXPONENTS = (0, 10, 18, 22)
MICRO = 1e6
#: calls in a row per timing of the launch-cost layers
LAUNCH_CALLS = 200
#: the matmul kernels compared, as settings of the cuda backend's module: what it chooses by
#: itself, the students' tiled kernel, and the register-blocked kernel at two blockings (for sm_90,
#: NVVM and ptxas give 64x64 / 4x4 128 registers per thread and 128x64 / 8x4 224, neither
#: spilling; 128x128 / 8x8 needs more than the 255 a thread may have, and spills)
MATMUL_KERNELS: dict[str, dict[str, Any]] = {
    "backend's choice": {},
    "tiled 16x16 (task 3.7)": {"use_blocked_matmul": False},
    "blocked 64x64, 4x4 per thread": {"use_blocked_matmul": True, "BLOCKED_MATMUL": (64, 64, 8, 4, 4), "BLOCKED_MIN_BLOCKS": 0},
    "blocked 128x64, 8x4 per thread": {"use_blocked_matmul": True, "BLOCKED_MATMUL": (128, 64, 8, 8, 4), "BLOCKED_MIN_BLOCKS": 0},
}
MLP_HIDDEN = (100, 1000)
MLP_BATCH = 256
MLP_FEATURES = 64
MLP_CLASSES = 10
MLP_STEPS = 20
LEARNING_RATE = 0.05
REPEATS = 7
QUICK_REPEATS = 3
WARMUP_CALLS = 2
FLOPS_PER_MULTIPLY_ADD = 2
TERA = 1e12
GIGA = 1e9
FLOAT32_BYTES = 4
#: DDR: two transfers per memory clock cycle
TRANSFERS_PER_CLOCK = 2
BITS_PER_BYTE = 8
KHZ = 1e3
DEFAULT_JSON = REPO_ROOT / "bench" / "results" / "cuda_latest.json"
#: the sections, in the order they run
SECTIONS = ("matmul", "elementwise", "launch_cost", "fixed_cost", "training")


def gpu_or_reason() -> Optional[str]:
    """None when a real GPU can be measured, else why not."""
    if not minitorch.cuda.is_available():
        return "no CUDA GPU is available (minitorch.cuda.is_available() is False)"
    if minitorch.cuda.is_simulator():
        return "NUMBA_ENABLE_CUDASIM is on: the simulator runs kernels in Python, there is no GPU to measure"
    return None


def timed(fn: Callable[[], Any], repeats: int) -> float:
    """Median seconds of ``fn()`` with the GPU synchronized around each call."""
    for _ in range(WARMUP_CALLS):
        fn()
    minitorch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        minitorch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def torch_cuda() -> Any:
    """PyTorch when it has a CUDA build that sees the GPU, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def reference_matmul() -> tuple[str, Optional[Callable[[np.ndarray, np.ndarray], Callable[[], Any]]]]:
    """PyTorch's CUDA matmul, or CuPy's, as a callable factory; ``(name, None)`` if neither."""
    torch = torch_cuda()
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = False  # float32 against float32

        def torch_case(a: np.ndarray, b: np.ndarray) -> Callable[[], Any]:
            ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()

            def run() -> Any:
                out = ta @ tb
                torch.cuda.synchronize()
                return out

            return run

        return "torch (cuBLAS)", torch_case
    try:
        import cupy

        def cupy_case(a: np.ndarray, b: np.ndarray) -> Callable[[], Any]:
            ca, cb = cupy.asarray(a), cupy.asarray(b)

            def run() -> Any:
                out = ca @ cb
                cupy.cuda.Device().synchronize()
                return out

            return run

        return "cupy (cuBLAS)", cupy_case
    except ImportError:
        return "n/a", None


@contextlib.contextmanager
def backend_settings(settings: dict[str, Any]) -> Iterator[None]:
    """The cuda backend's module settings (kernel choice, blocking sizes) set for a while."""
    from minitorch.backends import cuda as cuda_backend

    saved = {name: getattr(cuda_backend, name) for name in settings}
    for name, value in settings.items():
        setattr(cuda_backend, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(cuda_backend, name, value)


def bench_matmul(sides: tuple[int, ...], repeats: int) -> list[dict[str, Any]]:
    """One row per side and kernel of :data:`MATMUL_KERNELS`, each beside the reference."""
    name, reference = reference_matmul()
    rng = np.random.default_rng(0)
    rows = []
    for n in sides:
        a_np = rng.standard_normal((n, n), dtype=np.float32)
        b_np = rng.standard_normal((n, n), dtype=np.float32)
        a, b = minitorch.tensor(a_np, device="cuda"), minitorch.tensor(b_np, device="cuda")
        flops = FLOPS_PER_MULTIPLY_ADD * n**3
        ref_seconds = timed(reference(a_np, b_np), repeats) if reference is not None else None
        for kernel, settings in MATMUL_KERNELS.items():
            with backend_settings(settings):
                seconds = timed(lambda: a @ b, repeats)
            row: dict[str, Any] = {"n": n, "kernel": kernel, "minitorch_tflops": flops / seconds / TERA, "reference": name}
            if ref_seconds is not None:
                row["reference_tflops"] = flops / ref_seconds / TERA
                row["ratio"] = ref_seconds / seconds
            rows.append(row)
            print(f"matmul {n:5d} {kernel:34s} {row['minitorch_tflops']:7.2f} TFLOP/s"
                  + (f"   {name} {row['reference_tflops']:7.2f} TFLOP/s   ratio {row['ratio']:.3f}" if "ratio" in row else ""))
    return rows


def peak_bandwidth() -> Optional[float]:
    """Peak memory bandwidth in bytes/s from the driver's memory clock and bus width."""
    try:
        from numba import cuda

        attributes = cuda.get_current_device()
        clock_khz = attributes.MEMORY_CLOCK_RATE
        bus_bits = attributes.GLOBAL_MEMORY_BUS_WIDTH
        return clock_khz * KHZ * TRANSFERS_PER_CLOCK * bus_bits / BITS_PER_BYTE
    except Exception:
        return None


def bench_elementwise(size: int, repeats: int) -> list[dict[str, Any]]:
    peak = peak_bandwidth()
    a = minitorch.rand(size, device="cuda")
    b = minitorch.rand(size, device="cuda")
    rows = []
    for name, fn, tensors_moved in (("a + b", lambda: a + b, 3), ("exp(a)", lambda: a.exp(), 2)):
        seconds = timed(fn, repeats)
        bandwidth = tensors_moved * size * FLOAT32_BYTES / seconds
        row = {"op": name, "elements": size, "gb_per_s": bandwidth / GIGA,
               "fraction_of_peak": bandwidth / peak if peak else None}
        rows.append(row)
        fraction = f"{row['fraction_of_peak']:.2f} of peak {peak / GIGA:.0f} GB/s" if peak else "peak unknown"
        print(f"{name:7s} {size} float32: {row['gb_per_s']:8.1f} GB/s  ({fraction})")
    return rows


def bench_fixed_cost(exponents: tuple[int, ...], repeats: int) -> list[dict[str, Any]]:
    """Microseconds per ``a + b`` at sizes ``2**e`` (and per in-place add of one element), ours and PyTorch's."""
    torch = torch_cuda()
    rows = []

    def add(x: Any, y: Any) -> Any:
        return x + y

    def add_in_place(x: Any, y: Any) -> Any:
        return x.add_(y)

    cases = [("a + b", 1 << e, add) for e in exponents] + [("a.add_(b)", 1, add_in_place)]
    for name, size, op in cases:  # each op the same call on either library's tensors
        a, b = minitorch.rand(size, device="cuda"), minitorch.rand(size, device="cuda")
        ours = timed(lambda: op(a, b), repeats)
        row: dict[str, Any] = {"op": name, "elements": size, "minitorch_us": ours * MICRO,
                               "gb_per_s": 3 * size * FLOAT32_BYTES / ours / GIGA}
        if torch is not None:
            ta, tb = torch.rand(size, device="cuda"), torch.rand(size, device="cuda")

            def reference() -> Any:
                out = op(ta, tb)
                torch.cuda.synchronize()
                return out

            row["torch_us"] = timed(reference, repeats) * MICRO
        rows.append(row)
        versus = f"   torch {row['torch_us']:9.1f} us" if "torch_us" in row else ""
        print(f"{name:9s} {size:9d} float32: {row['minitorch_us']:9.1f} us  {row['gb_per_s']:8.1f} GB/s{versus}")
    return rows


def per_call_us(fn: Callable[[], Any], calls: int, repeats: int) -> float:
    """Microseconds of host time per call of ``fn``: :func:`timed` on ``calls`` calls in a row, one
    synchronize at the end (kernels run asynchronously: what is timed is what the host spends per call)."""

    def in_a_row() -> None:
        for _ in range(calls):
            fn()

    return timed(in_a_row, repeats) / calls * MICRO


def launch_layers() -> list[tuple[str, Callable[[], Any]]]:
    """One-element ``a + b`` taken apart, layer by layer from the bottom: what each adds."""
    from numba import cuda

    from minitorch.backends import cuda as cuda_backend
    from minitorch.backends import cuda_kernels, cuda_launch, opcodes

    @cuda.jit
    def noop(x: Any) -> None:
        pass

    a, b = minitorch.rand(1, device="cuda"), minitorch.rand(1, device="cuda")
    out = minitorch.empty(1, device="cuda")
    backend = cuda_backend.CudaBackend()
    add = opcodes.BINARY_CODES["add"]
    storages = (out._data.storage, a._data.storage, b._data.storage)
    shape, strides = (1,), (1,)

    zip_arguments = (add, 1, True, storages[0], 0, shape, strides, storages[1], 0, strides, storages[2], 0, strides)
    zip_kernel, threads = cuda_kernels.zip_kernel, cuda_backend.THREADS_PER_BLOCK
    return [
        ("device_array(1)", lambda: cuda.device_array(1, np.float32)),
        ("empty kernel, 1 array argument", lambda: noop[1, 1](storages[0])),
        ("zip kernel launch by Numba", lambda: zip_kernel[1, threads](*zip_arguments)),
        ("zip kernel launch by its plan", lambda: cuda_launch.launch(zip_kernel, 1, threads, *zip_arguments)),
        ("backend.zip into an existing out", lambda: backend.zip("add", a._data, b._data, out._data)),
        ("add(a, b, out=out)", lambda: minitorch.add(a, b, out=out)),
        ("a + b", lambda: a + b),
    ]


def bench_launch_cost(repeats: int) -> list[dict[str, Any]]:
    """Host microseconds per call of each layer of a one-element ``a + b`` (:func:`launch_layers`)."""
    rows = []
    for name, fn in launch_layers():
        row = {"layer": name, "us_per_call": per_call_us(fn, LAUNCH_CALLS, repeats)}
        rows.append(row)
        print(f"{name:40s} {row['us_per_call']:8.1f} us per call")
    return rows


def train_steps_per_second(device: str, hidden: int, steps: int) -> float:
    """SGD steps per second of a 2-layer MLP on ``device``."""
    minitorch.manual_seed(0)
    x = minitorch.randn(MLP_BATCH, MLP_FEATURES, device=device)
    y = minitorch.randint(0, MLP_CLASSES, (MLP_BATCH,), device=device)
    w1 = (minitorch.randn(MLP_FEATURES, hidden, device=device) * MLP_FEATURES**-0.5).requires_grad_()
    w2 = (minitorch.randn(hidden, MLP_CLASSES, device=device) * hidden**-0.5).requires_grad_()
    one_hot = (minitorch.arange(MLP_CLASSES, device=device) == y.view(-1, 1)).float()

    def step() -> None:
        logits = (x @ w1).relu() @ w2
        log_probs = logits - logits.exp().sum(1, keepdim=True).log()
        loss = -(log_probs * one_hot).sum() / MLP_BATCH
        loss.backward()
        with minitorch.no_grad():
            for w in (w1, w2):
                w.sub_(w.grad * LEARNING_RATE)
                w.grad = None

    for _ in range(WARMUP_CALLS):
        step()
    if device == "cuda":
        minitorch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    if device == "cuda":
        minitorch.cuda.synchronize()
    return steps / (time.perf_counter() - start)


def bench_training(steps: int) -> list[dict[str, Any]]:
    rows = []
    for hidden in MLP_HIDDEN:
        gpu = train_steps_per_second("cuda", hidden, steps)
        cpu = train_steps_per_second("cpu", hidden, steps)
        rows.append({"hidden": hidden, "cuda_steps_per_s": gpu, "cpu_steps_per_s": cpu, "speedup": gpu / cpu})
        print(f"MLP hidden {hidden:5d}: cuda {gpu:8.1f} steps/s   cpu {cpu:8.1f} steps/s   speed-up {gpu / cpu:.2f}x")
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write the figures")
    parser.add_argument("--only", default="", help="comma-separated sections to run (default: all): " + ", ".join(SECTIONS))
    args = parser.parse_args(argv)
    only = [name for name in args.only.split(",") if name]
    unknown = sorted(set(only) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown sections {unknown}; the sections are {list(SECTIONS)}")
    reason = gpu_or_reason()
    if reason is not None:
        print(f"cuda benchmark skipped: {reason}")
        return 0
    repeats = QUICK_REPEATS if args.quick else REPEATS
    print(f"GPU: {minitorch.cuda.get_device_name()}")
    sections: dict[str, Callable[[], Any]] = {
        "matmul": lambda: bench_matmul(QUICK_MATMUL_SIDES if args.quick else MATMUL_SIDES, repeats),
        "elementwise": lambda: bench_elementwise(QUICK_ELEMENTWISE_SIZE if args.quick else ELEMENTWISE_SIZE, repeats),
        "launch_cost": lambda: bench_launch_cost(repeats),
        "fixed_cost": lambda: bench_fixed_cost(QUICK_SWEEP_EXPONENTS if args.quick else SWEEP_EXPONENTS, repeats),
        "training": lambda: bench_training(MLP_STEPS // 4 if args.quick else MLP_STEPS),
    }
    assert list(sections) == list(SECTIONS)
    results: dict[str, Any] = {"gpu": minitorch.cuda.get_device_name()}
    failed = []
    for name, section in sections.items():
        if only and name not in only:
            continue
        try:
            results[name] = section()
        except Exception as error:  # one broken section must not hide the others' figures
            failed.append(name)
            results[name] = {"error": f"{type(error).__name__}: {error}"}
            print(f"section {name} failed:\n{traceback.format_exc(limit=-6)}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2))
    if failed:
        print(f"failed sections: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
