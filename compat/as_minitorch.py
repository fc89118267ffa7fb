"""Run a Python script with every ``torch`` import resolved to minitorch.

``python compat/as_minitorch.py script.py [args...]`` installs an import hook first, so
``import torch``, ``import torch.nn as nn``, ``import torch.nn.functional as F`` and
``from torch.utils.data import DataLoader`` give minitorch's modules. A ``torch.*`` module that
minitorch does not have raises ``ModuleNotFoundError``; PyTorch itself is never imported.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import runpy
import sys
import types
from pathlib import Path
from typing import Optional, Sequence

ALIAS = "torch"
TARGET = "minitorch"


class TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finder and loader that hand out ``minitorch.X`` whenever ``torch.X`` is imported."""

    def find_spec(
        self, fullname: str, path: Optional[Sequence[str]] = None, target: Optional[types.ModuleType] = None
    ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        target_name = TARGET + fullname[len(ALIAS):]
        try:
            found = importlib.util.find_spec(target_name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            # never fall through to the real PyTorch
            raise ModuleNotFoundError(f"No module named '{fullname}'", name=fullname)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=found.submodule_search_locations is not None)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(TARGET + spec.name[len(ALIAS):])
        # the import system overwrites __spec__ after this; exec_module puts minitorch's back
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = module.__spec__.loader_state


def install() -> None:
    """Put the alias first on the import path (idempotent)."""
    if not any(isinstance(finder, TorchAlias) for finder in sys.meta_path):
        sys.meta_path.insert(0, TorchAlias())


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit("usage: as_minitorch.py SCRIPT [ARGS...]")
    install()
    script = argv[0]
    sys.argv = list(argv)
    sys.path[0] = str(Path(script).resolve().parent)
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
