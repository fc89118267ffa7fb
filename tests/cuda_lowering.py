"""Child program of ``test_cuda_lowering.py``: type and lower the cuda kernels for a real GPU.

The tests run the cuda backend on Numba's simulator, which executes the kernels as Python:
a NumPy call that Numba's CUDA target cannot compile (``np.fmod`` was one) passes there and
fails on every GPU. This program turns the simulator off and runs Numba's CUDA front end,
typing and lowering to LLVM IR for compute capability 9.0, on each kernel with the argument
types the backend launches it with. Neither a GPU nor the CUDA toolkit is needed: that
stage stops before NVVM turns the IR into PTX.

Run as ``python tests/cuda_lowering.py NAME...`` (no names: every case); prints one JSON
object per case, ``{"case": NAME, "error": null or "Type: message"}``. The case ``canary``
is a kernel that runs on the simulator but cannot be lowered (it calls ``np.fmod``): it
shows that this check sees what the simulator misses.

``python tests/cuda_lowering.py --ptx NAME...`` goes one step further for the named cases:
it optimises the IR with llvmlite's LLVM and emits PTX through LLVM's own NVPTX back end (a
stand-in for NVVM, which needs the toolkit) and prints ``{"case": NAME, "local_memory":
bool}``: whether the kernel keeps arrays in the GPU's slow per-thread local memory rather
than in registers. The case ``local_canary`` indexes its local array at a run-time
position, which no compiler can keep in registers.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

os.environ["NUMBA_ENABLE_CUDASIM"] = "0"  # before Numba is imported
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numba  # noqa: E402
import numba.cuda.dispatcher  # noqa: E402
import numpy as np  # noqa: E402
from numba import types  # noqa: E402
from numba.cuda.compiler import compile_cuda  # noqa: E402

#: the compute capability lowered for (Hopper); any would do for typing
TARGET_CC = (9, 0)
#: dimensions of every shape and strides tuple (the kernels loop over them at run time)
DIMS = 2


def _pretend_device() -> SimpleNamespace:
    return SimpleNamespace(compute_capability=TARGET_CC)


# Numba asks the current GPU for its compute capability when it compiles a device function
# called from a kernel; there is no GPU here.
numba.cuda.dispatcher.get_current_device = _pretend_device

from minitorch.backends import cuda as backend  # noqa: E402
from minitorch.backends import cuda_kernels as kernels  # noqa: E402
from minitorch.backends import cuda_log_softmax, cuda_matmul_blocked, cuda_mul_add, cuda_optim  # noqa: E402

INT = types.int64
BOOL = types.boolean
LAYOUT = types.UniTuple(types.int64, DIMS)


def array(dtype: str) -> types.Array:
    """The type of a device storage of ``dtype`` (every storage is 1-D and contiguous)."""
    return types.Array(numba.from_dtype(np.dtype(dtype)), 1, "C")


def accumulator(dtype: str) -> Any:
    """What the backend accumulates reductions of ``dtype`` in."""
    return backend._accumulator(np.dtype(dtype))


def map_case(out: str, a: str) -> tuple[Callable, tuple]:
    return kernels.map_kernel.py_func, (INT, INT, BOOL, array(out), INT, LAYOUT, LAYOUT, array(a), INT, LAYOUT)


def zip_case(out: str, a: str, b: str) -> tuple[Callable, tuple]:
    view = (INT, LAYOUT)
    return kernels.zip_kernel.py_func, (
        INT, INT, BOOL, array(out), INT, LAYOUT, LAYOUT, array(a), *view, array(b), *view,
    )


def reduce_case(out: str, a: str) -> tuple[Callable, tuple]:
    acc = accumulator(a)
    kernel = kernels.reduce_kernel(backend.REDUCE_THREADS, acc)
    return kernel.py_func, (INT, INT, array(out), INT, LAYOUT, LAYOUT, array(a), INT, LAYOUT, INT, INT, acc)


def arg_reduce_case(a: str) -> tuple[Callable, tuple]:
    kernel = kernels.arg_reduce_kernel(backend.REDUCE_THREADS, accumulator(a))
    return kernel.py_func, (INT, INT, array("int64"), INT, LAYOUT, LAYOUT, array(a), INT, LAYOUT, INT, INT)


def matmul_case(dtype: str) -> tuple[Callable, tuple]:
    acc = numba.from_dtype(np.dtype(dtype)) if np.dtype(dtype).kind == "f" else types.int64
    kernel = kernels.matmul_kernel(backend.TILE, acc)
    operand = (array(dtype), INT, LAYOUT)
    return kernel.py_func, (INT, array(dtype), INT, LAYOUT, LAYOUT, *operand, *operand, INT)


def blocked_matmul_case(dtype: str) -> tuple[Callable, tuple]:
    """The register-blocked kernel at the backend's sizes (float products only)."""
    kernel = cuda_matmul_blocked.blocked_matmul_kernel(*backend.BLOCKED_MATMUL, numba.from_dtype(np.dtype(dtype)))
    operand = (array(dtype), INT, LAYOUT)
    return kernel.py_func, (INT, array(dtype), INT, LAYOUT, LAYOUT, *operand, *operand, INT)


def log_softmax_case(dtype: str) -> tuple[Callable, tuple]:
    """Rows of float32 or float64, accumulating in float64 as the backend launches it."""
    kernel = cuda_log_softmax.log_softmax_kernel(backend.REDUCE_THREADS, types.float64, numba.from_dtype(np.dtype(dtype)))
    return kernel.py_func, (INT, INT, array(dtype), INT, LAYOUT, array(dtype), INT, LAYOUT)


def adam_case(dtype: str) -> tuple[Callable, tuple]:
    """Adam's step: five buffers, eight numbers of the parameter's dtype, the decay, two flags."""
    number = numba.from_dtype(np.dtype(dtype))
    return cuda_optim.adam_kernel.py_func, (INT, *[array(dtype)] * 5, *[number] * 8, INT, BOOL, BOOL)


def sgd_case(dtype: str) -> tuple[Callable, tuple]:
    number = numba.from_dtype(np.dtype(dtype))
    return cuda_optim.sgd_kernel.py_func, (INT, array(dtype), array(dtype), number, number, BOOL, BOOL)


def sgd_momentum_case(dtype: str) -> tuple[Callable, tuple]:
    number = numba.from_dtype(np.dtype(dtype))
    return cuda_optim.sgd_momentum_kernel.py_func, (INT, *[array(dtype)] * 3, *[number] * 4, *[BOOL] * 5)


def mul_add_case(dtype: str) -> tuple[Callable, tuple]:
    view = (array(dtype), INT, LAYOUT)
    return cuda_mul_add.mul_add_kernel.py_func, (INT, array(dtype), INT, LAYOUT, LAYOUT, *view, *view, *view)


def accumulate_case(dtype: str) -> tuple[Callable, tuple]:
    return kernels.accumulate_kernel.py_func, (INT, array(dtype), INT, LAYOUT, LAYOUT, array(dtype), INT, LAYOUT)


def gather_case(dtype: str) -> tuple[Callable, tuple]:
    where = (array("int64"), INT, LAYOUT)
    return kernels.gather_kernel.py_func, (INT, INT, array(dtype), INT, LAYOUT, LAYOUT, array(dtype), INT, LAYOUT, *where)


def scatter_add_case(dtype: str) -> tuple[Callable, tuple]:
    where = (array("int64"), INT, LAYOUT)
    return kernels.scatter_add_kernel.py_func, (
        INT, INT, array(dtype), INT, LAYOUT, LAYOUT, array(dtype), INT, LAYOUT, *where,
    )


#: what a kernel reads: bool storages arrive as uint8 (``cuda._operand``)
OPERAND_DTYPES = ("uint8", "int8", "int16", "int32", "int64", "float32", "float64")
#: what a kernel may write: any storage dtype but float16, which goes through float32
OUT_DTYPES = ("bool",) + OPERAND_DTYPES
#: dtypes with atomic adds (``cuda._ATOMIC``); the others accumulate in a wider copy
ATOMIC_DTYPES = ("int32", "int64", "float32", "float64")


def cases() -> dict[str, tuple[Callable, tuple]]:
    """Every kernel with every combination of storage dtypes the backend launches it with."""
    found: dict[str, tuple[Callable, tuple]] = {}
    for out in OUT_DTYPES:
        for a in OPERAND_DTYPES:  # ops keep the dtype; casts (``to``) and predicates change it
            found[f"map[{out}<-{a}]"] = map_case(out, a)
    for pair in (("float16", "float32"), ("float32", "float16"), ("float16", "float16")):  # float16 copies
        found[f"map[{pair[0]}<-{pair[1]}]"] = map_case(*pair)
    for dtype in OPERAND_DTYPES:
        found[f"zip[{dtype}]"] = zip_case(dtype, dtype, dtype)
        found[f"zip[bool<-{dtype}]"] = zip_case("bool", dtype, dtype)  # comparisons
        found[f"zip[masked {dtype}]"] = zip_case(dtype, dtype, "uint8")  # ``masked``: a bool mask
        found[f"reduce[{dtype}]"] = reduce_case(dtype, dtype)
        found[f"arg_reduce[{dtype}]"] = arg_reduce_case(dtype)
        found[f"gather[{dtype}]"] = gather_case(dtype)
    for dtype in ("uint8", "int8", "int16", "int32"):
        found[f"reduce[int64<-{dtype}]"] = reduce_case("int64", dtype)  # integer sums widen
    found["reduce[bool<-uint8]"] = reduce_case("bool", "uint8")  # any, all
    for dtype in ("int32", "int64", "float32", "float64"):
        found[f"matmul[{dtype}]"] = matmul_case(dtype)
    for dtype in ("float32", "float64"):
        found[f"blocked_matmul[{dtype}]"] = blocked_matmul_case(dtype)
        found[f"adam[{dtype}]"] = adam_case(dtype)
        found[f"log_softmax[{dtype}]"] = log_softmax_case(dtype)
        found[f"sgd[{dtype}]"] = sgd_case(dtype)
        found[f"sgd_momentum[{dtype}]"] = sgd_momentum_case(dtype)
        found[f"mul_add[{dtype}]"] = mul_add_case(dtype)
    for dtype in ATOMIC_DTYPES:
        found[f"accumulate[{dtype}]"] = accumulate_case(dtype)
        found[f"scatter_add[{dtype}]"] = scatter_add_case(dtype)
    return found


def canary_kernel(out: Any, a: Any) -> None:
    """Runs on the simulator (NumPy executes it); Numba's CUDA target has no ``np.fmod``."""
    out[0] = np.fmod(a[0], a[1])


def local_canary_kernel(out: Any, a: Any) -> None:
    """A local array read at a position known only at run time: it must live in local memory."""
    scratch = numba.cuda.local.array(8, numba.float32)
    for x in range(8):
        scratch[x] = a[x]
    out[0] = scratch[int(a[8])]


def lower(kernel: Callable, signature: tuple) -> Any:
    """Type and lower ``kernel`` for the GPU (raises what Numba raises); its code library."""
    return compile_cuda(kernel, types.void, signature, cc=TARGET_CC).library


def uses_local_memory(kernel: Callable, signature: tuple) -> bool:
    """Whether the PTX of ``kernel``, optimised at -O3, declares per-thread local memory."""
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(lower(kernel, signature).get_llvm_str())
    module.triple = "nvptx64-nvidia-cuda"
    machine = llvm.Target.from_triple(module.triple).create_target_machine(cpu=f"sm_{TARGET_CC[0]}{TARGET_CC[1]}", opt=3)
    passes = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=3))
    passes.getModulePassManager().run(module, passes)
    return ".local" in machine.emit_assembly(module)


def main(names: list[str]) -> int:
    every = cases()
    every["canary"] = (canary_kernel, (array("float32"), array("float32")))
    every["local_canary"] = (local_canary_kernel, (array("float32"), array("float32")))
    if names[:1] == ["--ptx"]:
        for name in names[1:]:
            print(json.dumps({"case": name, "local_memory": uses_local_memory(*every[name])}), flush=True)
        return 0
    for name in names or [name for name in every if not name.endswith("canary")]:
        kernel, signature = every[name]
        try:
            lower(kernel, signature)
            error = None
        except Exception as exc:  # noqa: BLE001 - reported to the parent test, which fails on it
            error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"
        print(json.dumps({"case": name, "error": error}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
