"""``minitorch.compile``: PyTorch's entry point for graph compilation, with the eager backend.

``torch.compile`` traces a model into graphs and hands them to a backend; its ``"eager"``
backend runs the captured graphs as they are, so results never change, only speed does.
minitorch's kernels are already compiled (Numba), so this is the backend it offers: a
compiled function is the function, and a compiled module is PyTorch's ``OptimizedModule``
wrapper, so that what code sees of it is PyTorch's: ``_orig_mod``, ``state_dict`` keys
prefixed ``_orig_mod.``, attributes read through to the original module.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional

from .nn.modules.module import Module

#: the backends PyTorch names that minitorch accepts; each runs the program eagerly here
BACKENDS = ("inductor", "eager", "aot_eager", "cudagraphs")
#: the values of ``mode`` PyTorch accepts
MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


class OptimizedModule(Module):
    """A compiled module: calls ``_orig_mod``; attributes it does not have are the original's."""

    def __init__(self, mod: Module) -> None:
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            modules = self.__dict__.get("_modules")
            if not modules or "_orig_mod" not in modules:
                raise
            return getattr(modules["_orig_mod"], name)


def compile(model: Optional[Callable] = None, *, fullgraph: bool = False, dynamic: Optional[bool] = None,  # noqa: A001
            backend: Any = "inductor", mode: Optional[str] = None, options: Optional[dict] = None,
            disable: bool = False, **kwargs: Any) -> Any:
    """``model`` compiled with the eager backend (see the module docstring); without a model, a
    decorator (``@minitorch.compile(mode=...)``)."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(MODES)}")
    if isinstance(backend, str) and backend not in BACKENDS:
        raise ValueError(f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` for available backends.")
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)
    if not callable(model):
        raise RuntimeError("compile() expected a callable or a Module")

    def compiled(*args: Any, **inner_kwargs: Any) -> Any:
        return model(*args, **inner_kwargs)

    return functools.update_wrapper(compiled, model)
