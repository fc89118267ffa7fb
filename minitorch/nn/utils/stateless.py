"""Running a module with other tensors in place of its parameters and buffers, and putting it
back afterwards: the machinery under ``minitorch.func.functional_call`` (and this module's own,
older ``functional_call``, which PyTorch deprecated in its favour)."""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import Any, Iterator, Optional

from ...tensor import Tensor
from ..modules.module import Module

#: stands for "the module had no attribute of this name" among the values swapped out
_ABSENT = object()


def _with_tied_names(module: Module, given: dict[str, Tensor]) -> dict[str, Tensor]:
    """``given`` with each value also under the other names of a tensor the module holds twice
    (a language model's tied embedding and output weights)."""
    names_of: dict[int, set[str]] = {}
    for name, tensor in [*module.named_parameters(remove_duplicate=False),
                         *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    result = dict(given)
    for name in given:
        if name not in tied:
            continue
        values = {id(given[other]) for other in tied[name] if other in given}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied[name])}, which are tied. "
                             f"Consider using tie_weights=False")
        for other in tied[name]:
            result[other] = given[name]
    return result


def _check_keys(module: Module, given: dict[str, Tensor]) -> None:
    known = {name for name, _ in module.named_parameters(remove_duplicate=False)}
    known |= {name for name, _ in module.named_buffers(remove_duplicate=False)}
    unexpected = sorted(set(given) - known)
    missing = sorted(known - set(given))
    messages = []
    if unexpected:
        messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if messages:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(messages))


def _owner(module: Module, path: str) -> tuple[Module, str]:
    """The submodule that holds ``path``'s last part, and that part (``"l1.weight"``: ``l1``, ``"weight"``)."""
    prefix, _, name = path.rpartition(".")
    owner = module
    for part in prefix.split(".") if prefix else ():
        if not hasattr(owner, part):
            raise AttributeError(f"{owner._get_name()} has no submodule `{part}` (looking up {path!r})")
        child = getattr(owner, part)
        if not isinstance(child, Module):  # as PyTorch: a path through a tensor is a TypeError
            raise TypeError(f"`{part}` of {owner._get_name()} is a {type(child).__name__}, not a Module "
                            f"(looking up {path!r})")
        owner = child
    return owner, name


def _swap(owner: Module, name: str, value: Any) -> Any:
    """Put ``value`` (or nothing, for :data:`_ABSENT`) where ``owner.<name>`` is; return what was there.

    A parameter's slot takes any tensor (the value need not be a Parameter), so the module's
    dicts are written directly instead of through ``setattr``'s checks.
    """
    if value is not _ABSENT and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"functional_call: the value for {name!r} is a {type(value).__name__}, not a Tensor")
    for slots in (owner._parameters, owner._buffers):
        if name in slots:
            previous = slots[name]
            if value is _ABSENT:
                del slots[name]
            else:
                slots[name] = value
            return previous
    previous = getattr(owner, name, _ABSENT)
    if previous is not _ABSENT and previous is not None and not isinstance(previous, Tensor):
        raise TypeError(f"functional_call: attribute `{name}` of {owner._get_name()} is a "
                        f"{type(previous).__name__}, not a Tensor")
    if value is _ABSENT:
        if previous is not _ABSENT:
            delattr(owner, name)
    else:
        setattr(owner, name, value)
    return previous


@contextmanager
def reparametrized(module: Module, values: dict[str, Tensor], tie_weights: bool = True,
                   strict: bool = False) -> Iterator[None]:
    """Within the block, ``module``'s tensors named in ``values`` are those values.

    Afterwards the originals are back, and ``values`` (the caller's dict itself, not the copy
    that tying extends) holds for each of its own keys what the module's slot held at the end:
    a tensor the call reassigned, as ``self.foo = self.foo + 1``, comes back to the caller.
    """
    swapped = _with_tied_names(module, values) if tie_weights else values
    if strict:
        _check_keys(module, swapped)
    originals: dict[str, Any] = {}
    after: dict[str, Any] = {}
    try:
        for path, value in swapped.items():
            owner, name = _owner(module, path)
            originals[path] = _swap(owner, name, value)
        yield
    finally:
        # last in, first out: two paths to one slot (a submodule held twice) end on the original
        for path in reversed(list(originals)):
            owner, name = _owner(module, path)
            after[path] = _swap(owner, name, originals[path])
        values.update({path: value for path, value in after.items() if path in values and value is not _ABSENT})


def call_reparametrized(module: Module, values: dict[str, Tensor], args: Any, kwargs: Optional[dict[str, Any]],
                        tie_weights: bool, strict: bool) -> Any:
    """``module(*args, **kwargs)`` within :func:`reparametrized`; ``args`` that is not a tuple
    is the one positional argument."""
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with reparametrized(module, values, tie_weights=tie_weights, strict=strict):
        return module(*args, **(kwargs or {}))


def functional_call(module: Module, parameters_and_buffers: dict[str, Tensor], args: Any = None,
                    kwargs: Optional[dict[str, Any]] = None, *, tie_weights: bool = True, strict: bool = False) -> Any:
    """The older name of :func:`minitorch.func.functional_call` (one dict only); warns, as PyTorch's."""
    warnings.warn("`nn.utils.stateless.functional_call` is deprecated (as in PyTorch 2.0); use `func.functional_call`, "
                  "which takes the same arguments.", FutureWarning, stacklevel=2)
    return call_reparametrized(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
