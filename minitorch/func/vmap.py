"""``vmap``: a function written for one example, applied to each slice of a batch.

``vmap(f)(xs)`` is ``stack([f(x) for x in xs])``, with ``in_dims`` saying which dimension of
each input is the batch (``None``: the input is passed whole to every call) and ``out_dims``
where the batch goes in each output. Here it is exactly that loop: the semantics of PyTorch's
``vmap`` (shapes, nesting with ``grad``, randomness, errors), not its speed, which comes from
batching each op instead of calling the function once per slice.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional

import numpy as np

from ..autograd.transform_levels import transform_level
from ..creation import stack
from ..tensor import Tensor
from ._pytree import broadcast_prefix, tree_flatten, tree_unflatten
from .randomness import checked_mode, random_draws, rewinding

Dims = Any  # an int, None, or a tuple (in_dims) / tree (out_dims) of them, nested like the inputs or outputs


def _name(func: Callable[..., Any]) -> str:
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


def _check_out_dims(out_dims: Dims, func: Callable[..., Any]) -> None:
    """``out_dims`` is an int, None, or a tree (tuple, list, dict) of them; PyTorch checks it when called."""
    leaves = [out_dims] if isinstance(out_dims, int) else tree_flatten(out_dims)[0]
    for leaf in leaves:
        if not (leaf is None or isinstance(leaf, int)):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             f"python collection of ints representing where in the outputs the vmapped dimension "
                             f"should appear.")


def _check_in_dims(in_dims: Dims, func: Callable[..., Any]) -> None:
    """``in_dims`` itself is an int or a tuple (one entry per positional argument), as PyTorch requires."""
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")


def _batch_size(func: Callable[..., Any], in_dims: Dims, leaves: list[Any], dims: list[Optional[int]]) -> int:
    """The common size of the mapped dimensions, after checking each against its input."""
    where = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    sizes = []
    for value, dim in zip(leaves, dims):
        if dim is None:
            continue
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but in_dim must be either an integer dimension "
                             f"or None.")
        if not isinstance(value, Tensor):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but the input is of type {type(value)}. We cannot "
                             f"vmap over non-Tensor arguments, please use None as the respective in_dim")
        rank = value.dim()
        if not -rank <= dim < rank:
            raise ValueError(f"{where}: Got in_dim={dim} for some input, but that input is a Tensor of dimensionality "
                             f"{rank} so expected in_dim to satisfy -{rank} <= in_dim < {rank}.")
        sizes.append(value.shape[dim])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    if sizes[0] == 0:
        raise ValueError(f"{where}: the mapped dimension has size 0, so there is no slice to call "
                         f"{_name(func)} on and no output to take the shapes from")
    return sizes[0]


def _slice(leaves: list[Any], dims: list[Optional[int]], index: int) -> list[Any]:
    return [value if dim is None else value.select(dim, index) for value, dim in zip(leaves, dims)]


def _check_unmapped_unchanged(func: Callable[..., Any], unmapped: list[tuple[Tensor, int]]) -> None:
    """Refuse an in-place write into an input passed whole (``in_dims`` None).

    PyTorch refuses to write a batched value into an unbatched tensor and runs an unbatched write
    once; here the function runs once per slice, so the write would repeat for every slice. Either
    way the loop cannot give PyTorch's result, so it stops after the first slice that wrote (whose
    write stays: seeing it needs the version counter to move, which is the write itself).
    """
    for value, version in unmapped:
        if value._version != version:
            raise RuntimeError(f"vmap({_name(func)}, ...): `{_name(func)}` wrote in place into an input that is not "
                               f"mapped (in_dim None, shape {tuple(value.shape)}); vmap cannot repeat that write once "
                               f"per slice (the first slice's write has been made). Map that input too, or return the new value "
                               f"instead of writing it.")


def _same_tensor(value: Any, first: Tensor) -> bool:
    """Whether an output of one slice is ``first``, the output of slice 0, or a tensor equal to it.

    PyTorch allows ``out_dims=None`` for an output that does not depend on the batch (it is not a
    BatchedTensor), such as a constant made inside the function; here each call makes it anew, so
    equal values (NaN equal to NaN) in the same shape, dtype and device stand for "not batched".
    """
    if value is first:
        return True
    if not isinstance(value, Tensor) or (value.shape, value.dtype, value.device) != (first.shape, first.dtype,
                                                                                     first.device):
        return False
    ours, theirs = value.detach()._host_numpy(), first.detach()._host_numpy()
    return bool(np.array_equal(ours, theirs, equal_nan=ours.dtype.kind in "fc"))


def _stacked_outputs(func: Callable[..., Any], out_dims: Dims, results: list[Any]) -> Any:
    """The outputs of every call joined along their ``out_dims``, in the first output's structure."""
    name = _name(func)
    first, spec = tree_flatten(results[0])
    flat_results = [first]
    for result in results[1:]:
        leaves, other = tree_flatten(result)
        if other != spec:
            raise ValueError(f"vmap({name}, ...): `{name}` returned outputs of structure {spec.describe()} for one "
                             f"slice and {other.describe()} for another")
        flat_results.append(leaves)
    if isinstance(results[0], Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        dims = list(out_dims)  # PyTorch reads out_dims=(d,) for a single tensor output as d
    else:
        dims = broadcast_prefix(out_dims, results[0])
    if dims is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1].describe()} "
                         f"but outputs has structure {spec.describe()}.")
    joined = []
    for position, dim in enumerate(dims):
        values = [leaves[position] for leaves in flat_results]
        if dim is None:
            if isinstance(values[0], Tensor) and not all(_same_tensor(value, values[0]) for value in values[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            joined.append(values[0])
            continue
        if not isinstance(values[0], Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(values[0])}. "
                             f"Did you mean to set out_dims= to None for output?")
        rank = values[0].dim() + 1
        if not -rank <= dim < rank:
            raise IndexError(f"vmap({name}, ..., out_dims={out_dims}): out_dim={dim} is out of range for an output "
                             f"of {rank - 1} dimensions (expected -{rank} <= out_dim < {rank})")
        joined.append(stack(values, dim=dim))
    return tree_unflatten(joined, spec)


def vmap(func: Callable[..., Any], in_dims: Dims = 0, out_dims: Dims = 0, randomness: str = "error", *,
         chunk_size: Optional[int] = None) -> Callable[..., Any]:
    """``func`` mapped over a batch dimension of its inputs: ``vmap(f)(xs)`` is ``stack([f(x) for x in xs])``.

    ``in_dims``: the batch dimension of every input (an int), or a tuple with one entry per
    positional argument, each an int, ``None`` (not mapped) or a nested structure matching a
    dict or tuple argument. Keyword arguments are passed whole. ``out_dims``: where the batch
    dimension goes in each output (an int, or a tuple, list or dict of them matching the outputs);
    ``None`` for an output that does not depend on the batch, which every slice must then return
    alike (the same tensor, or equal values). ``randomness``: ``'error'`` (random ops raise),
    ``'different'`` (each slice draws its own numbers) or ``'same'`` (every slice draws the same).
    ``chunk_size`` is accepted for PyTorch's signature; the slices are always taken one at a time.
    """
    checked_mode(randomness)
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def mapped(*args: Any, **kwargs: Any) -> Any:
        # as PyTorch, the dims are checked when the mapped function is called, not when it is made
        _check_out_dims(out_dims, func)
        _check_in_dims(in_dims, func)
        if not args:
            raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                             f"trying to vmap over a function with no inputs. The latter is unsupported.")
        leaves, spec = tree_flatten(args)
        dims = broadcast_prefix(in_dims, args)
        if dims is None:
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                             f"the structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1].describe()} "
                             f"but inputs has structure {spec.describe()}.")
        size = _batch_size(func, in_dims, leaves, dims)
        unmapped = [(value, value._version) for value, dim in zip(leaves, dims)
                    if dim is None and isinstance(value, Tensor)]
        results = []
        with rewinding(randomness) as rewind, transform_level("vmap", f"vmap({_name(func)}, ...)", leaves):
            for index in range(size):
                rewind()
                with random_draws(randomness):
                    results.append(func(*tree_unflatten(_slice(leaves, dims, index), spec), **kwargs))
                _check_unmapped_unchanged(func, unmapped)
        return _stacked_outputs(func, out_dims, results)

    return mapped
