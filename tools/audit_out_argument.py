"""Which of minitorch's functions lack PyTorch's ``out=`` keyword.

For every public function present in both ``torch`` and ``minitorch`` (the top level and the
``special``, ``linalg`` and ``fft`` namespaces), PyTorch is asked whether it takes ``out=``,
and minitorch's signature whether it does. The names where PyTorch does and minitorch does
not are printed, one a line, then their count::

    python tools/audit_out_argument.py

PyTorch's answer comes from its own records, not from its documentation (which omits some):
for the top-level functions bound in C++ the type stubs of ``torch._C._VariableFunctions``
(generated from the same table as the argument parser); for the other C++ functions a call
with ``out=`` of the wrong type, whose error names ``out`` when the function has one; for
functions written in Python, their signature.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Optional

#: the namespaces audited: the top level, then the submodules PyTorch binds ``out=`` in
NAMESPACES = ("", "special", "linalg", "fft")
#: the most positional arguments a probing call passes before it gives up on a function
MOST_PROBE_ARGUMENTS = 4
#: what PyTorch's argument parser says of an ``out=`` the function does not have
NO_OUT = "unexpected keyword argument 'out'"
#: what it says of an ``out=`` of the wrong type (or lists, when no overload matched)
HAS_OUT = ("argument 'out'", "Tensor out", "Tensors out")


def _stub_functions_with_out(torch: ModuleType) -> set[str]:
    """The top-level C++ functions one of whose overloads in the type stubs has ``out``."""
    stub = Path(torch.__file__).parent / "_C" / "_VariableFunctions.pyi"
    found: set[str] = set()
    for node in ast.walk(ast.parse(stub.read_text())):
        if isinstance(node, ast.FunctionDef):
            arguments = node.args.args + node.args.kwonlyargs + node.args.posonlyargs
            if any(argument.arg == "out" for argument in arguments):
                found.add(node.name)
    return found


def _probe(torch: ModuleType, function: Callable[..., Any]) -> Optional[bool]:
    """Whether a C++-bound ``function`` takes ``out=``, from the parser's answer to a call with
    ``out=1`` and 0..n tensors; ``None`` when no call got as far as ``out``."""
    sample = torch.ones(2, 2)
    for count in range(MOST_PROBE_ARGUMENTS + 1):
        try:
            function(*[sample] * count, out=1)
        except Exception as error:  # noqa: BLE001 - any refusal is an answer to read
            message = str(error)
            if NO_OUT in message:
                return False
            if any(text in message for text in HAS_OUT):
                return True
            continue
        return False  # ``out=1`` was taken: not a tensor out
    return None


def torch_takes_out(torch: ModuleType, namespace: str, name: str, stubbed: set[str]) -> bool:
    """Whether PyTorch's ``namespace.name`` takes ``out=``."""
    function = getattr(getattr(torch, namespace) if namespace else torch, name)
    if inspect.isfunction(function):
        return "out" in inspect.signature(function).parameters
    if not namespace:
        return name in stubbed
    return bool(_probe(torch, function))


def minitorch_takes_out(function: Callable[..., Any]) -> bool:
    """Whether minitorch's ``function`` declares ``out`` (a ``**kwargs`` catch-all does not count)."""
    try:
        return "out" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _public_functions(module: ModuleType) -> dict[str, Callable[..., Any]]:
    return {
        name: value for name, value in vars(module).items()
        if not name.startswith("_") and callable(value) and not isinstance(value, type)
    }


def missing_out(torch: ModuleType, minitorch: ModuleType) -> list[str]:
    """The qualified names PyTorch gives ``out=`` and minitorch does not, sorted."""
    stubbed = _stub_functions_with_out(torch)
    missing: list[str] = []
    for namespace in NAMESPACES:
        theirs = getattr(torch, namespace) if namespace else torch
        ours = getattr(minitorch, namespace, None) if namespace else minitorch
        if ours is None:
            continue
        mine = _public_functions(ours)
        for name in sorted(set(dir(theirs)) & set(mine)):
            if name.startswith("_") or isinstance(getattr(theirs, name), type) or not callable(getattr(theirs, name)):
                continue
            if torch_takes_out(torch, namespace, name, stubbed) and not minitorch_takes_out(mine[name]):
                missing.append(f"{namespace}.{name}" if namespace else name)
    return missing


def main() -> int:
    import minitorch
    import torch

    missing = missing_out(torch, minitorch)
    for name in missing:
        print(name)
    print(f"{len(missing)} functions lack out=")
    return 0


if __name__ == "__main__":
    sys.exit(main())
