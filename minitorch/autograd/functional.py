r"""Derivatives of whole functions: PyTorch's ``torch.autograd.functional``.

Each function takes a Python function ``func`` of one tensor or a tuple of tensors and
differentiates it with :func:`minitorch.autograd.grad`, the reverse mode the engine runs:

* :func:`vjp` — :math:`v^\top J`, one backward pass;
* :func:`jvp` — :math:`J v` by the double-backward trick: :math:`g(u) = J^\top u` is linear in a
  dummy cotangent :math:`u`, and the vjp of :math:`g` along :math:`v` is :math:`(J^\top)^\top v = J v`;
* :func:`jacobian` — one vjp per output element (a row of :math:`J` each);
* :func:`hessian` — the Jacobian of the gradient; :func:`vhp` and :func:`hvp` the products
  :math:`v^\top H` and :math:`H v` by differentiating the gradient once more.

Inputs are differentiated through fresh leaves (a detached copy that requires grad), so the
caller's tensors and their graphs are left alone; results are detached unless
``create_graph=True``. A part of the output that does not depend on an input gets zeros, as
PyTorch's ``strict=False``; ``strict=True`` raises instead.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

from ..creation import stack, zeros, zeros_like
from ..tensor import Tensor
from . import grad as autograd_grad
from .grad_mode import enable_grad

Tensors = Union[Tensor, tuple[Tensor, ...]]


def _as_tuple(value: Any, what: str, caller: str) -> tuple[bool, tuple[Tensor, ...]]:
    """``(was_tuple, value as a tuple)``, with PyTorch's error for anything but tensors."""
    is_tuple = isinstance(value, tuple)  # as PyTorch: a list is not a tuple of tensors
    items = value if is_tuple else (value,)
    for index, item in enumerate(items):
        if not isinstance(item, Tensor):
            if is_tuple:
                raise TypeError(f"The {what} given to {caller} must be either a Tensor or a tuple of Tensors but "
                                f"the value at index {index} has type {type(item)}.")
            raise TypeError(f"The {what} given to {caller} must be either a Tensor or a tuple of Tensors but "
                            f"the given {what} has type {type(item)}.")
    return is_tuple, items


def _shaped_like(is_tuple: bool, values: Sequence[Any]) -> Any:
    return tuple(values) if is_tuple else values[0]


def _leaves(inputs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    """Tensors to differentiate with respect to: the input itself in the graph when a graph is
    built through it, else a detached copy."""
    if create_graph:
        return tuple(x.view_as(x) if x.requires_grad else x.detach().requires_grad_(True) for x in inputs)
    return tuple(x.detach().requires_grad_(True) for x in inputs)


def _call(func: Callable[..., Any], inputs: tuple[Tensor, ...], caller: str) -> tuple[bool, tuple[Tensor, ...]]:
    return _as_tuple(func(*inputs), "outputs of the user-provided function", caller)


def _grads(outputs: Sequence[Tensor], inputs: tuple[Tensor, ...], cotangents: Sequence[Tensor],
           create_graph: bool, strict: bool) -> list[Tensor]:
    """The vjp of ``outputs`` with ``cotangents`` for each input, zeros where it does not depend."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if pairs:
        found = autograd_grad([o for o, _ in pairs], list(inputs), [c for _, c in pairs], retain_graph=True,
                              create_graph=create_graph, allow_unused=True)
    else:
        found = (None,) * len(inputs)
    results = []
    for index, (value, x) in enumerate(zip(found, inputs)):
        if value is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of input {index}. "
                                   f"This is not allowed in strict mode.")
            value = zeros_like(x)
        results.append(value if create_graph else value.detach())
    return results


def vjp(func: Callable[..., Any], inputs: Tensors, v: Optional[Tensors] = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    r"""``(func(inputs), v^\top J)``: ``v`` has the shape of the output (may be None for one element)."""
    with enable_grad():
        inputs_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
        xs = _leaves(xs, create_graph)
        outputs_tuple, outs = _call(func, xs, "vjp")
        vs = _vectors(v, outs, "vjp", "the user-provided function returns", "the output of the user-provided function")
        grads = _grads(outs, xs, vs, create_graph, strict)
    shown = [o if create_graph else o.detach() for o in outs]
    return _shaped_like(outputs_tuple, shown), _shaped_like(inputs_tuple, grads)


def jvp(func: Callable[..., Any], inputs: Tensors, v: Optional[Tensors] = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    r"""``(func(inputs), J v)``: ``v`` has the shape of the inputs (may be None for one element)."""
    with enable_grad():
        inputs_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
        xs = _leaves(xs, create_graph)
        vs = _vectors(v, xs, "jvp", "the input to the user-provided function is", "the input of the user-provided function")
        outputs_tuple, outs = _call(func, xs, "jvp")
        # J^T u for dummy cotangents u (kept in the graph), then its vjp with respect to u along v
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        transposed = _grads(outs, xs, dummies, True, strict)
        products = _grads(transposed, dummies, vs, create_graph, strict)
    shown = [o if create_graph else o.detach() for o in outs]
    return _shaped_like(outputs_tuple, shown), _shaped_like(outputs_tuple, products)


def _vectors(v: Optional[Tensors], like: tuple[Tensor, ...], caller: str, single: str, against: str) -> tuple[Tensor, ...]:
    """``v`` as a tuple shaped like ``like``; ones when ``v`` is None and ``like`` is one element."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if {single} a single Tensor with a single element.")
        return (zeros_like(like[0]) + 1,)
    _, vs = _as_tuple(v, "v", caller)
    _check_shapes(vs, like, "v", against)
    return vs


def _check_shapes(given: Sequence[Tensor], expected: Sequence[Tensor], name: str, against: str) -> None:
    if len(given) != len(expected):
        raise RuntimeError(f"{name} is a tuple of {len(given)} Tensors where {against} has {len(expected)}")
    for a, b in zip(given, expected):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"Mismatch in shape: {name} has shape {list(a.shape)} where {against} has shape "
                               f"{list(b.shape)}")


def jacobian(func: Callable[..., Any], inputs: Tensors, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    r""":math:`\partial\, \mathrm{out}_i / \partial\, \mathrm{in}_j` of shape ``out_i.shape + in_j.shape``.

    A tuple over outputs of tuples over inputs when both are tuples; one level when one is.
    ``vectorize`` is accepted (each row is one backward pass either way); only
    ``strategy="reverse-mode"`` is supported.
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                         'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                         'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        raise NotImplementedError("jacobian(strategy='forward-mode') is not supported: minitorch differentiates "
                                  "in reverse mode; use the default strategy")
    with enable_grad():
        inputs_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
        xs = _leaves(xs, create_graph)
        outputs_tuple, outs = _call(func, xs, "jacobian")
        blocks = []
        for out in outs:
            rows: list[list[Tensor]] = [[] for _ in xs]
            flat = out.reshape(-1)
            for k in range(flat.numel()):
                seed = zeros(flat.numel(), dtype=out.dtype, device=out.device)
                seed[k] = 1
                for j, g in enumerate(_grads([flat], xs, [seed], create_graph, strict)):
                    rows[j].append(g)
            blocks.append(tuple(_stack_rows(r, out, x) for r, x in zip(rows, xs)))
    if inputs_tuple and outputs_tuple:
        return tuple(blocks)
    if outputs_tuple:
        return tuple(block[0] for block in blocks)
    return blocks[0] if inputs_tuple else blocks[0][0]


def _stack_rows(rows: list[Tensor], out: Tensor, x: Tensor) -> Tensor:
    """The rows of one Jacobian block stacked into ``out.shape + x.shape``."""
    shape = tuple(out.shape) + tuple(x.shape)
    if not rows:
        return zeros(shape, dtype=x.dtype, device=x.device)
    return stack(rows).reshape(shape)


def _scalar_function(func: Callable[..., Any], caller: str) -> Callable[..., Tensor]:
    def checked(*xs: Tensor) -> Tensor:
        is_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", caller)
        if is_tuple and len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {caller} should contain a single element")
        return outs[0].reshape(())

    return checked


def hessian(func: Callable[..., Any], inputs: Tensors, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    r""":math:`\partial^2 f / \partial\, \mathrm{in}_i \partial\, \mathrm{in}_j` of a scalar function
    ``f``, of shape ``in_i.shape + in_j.shape`` (a tuple of tuples for tuple inputs)."""
    scalar = _scalar_function(func, "hessian")
    inputs_tuple, xs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*ys: Tensor) -> tuple[Tensor, ...]:
        with enable_grad():
            out = scalar(*ys)
            return tuple(_grads([out], ys, [zeros_like(out) + 1], True, strict))

    result = jacobian(gradient, xs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return result if inputs_tuple else result[0][0]


def _second_order(func: Callable[..., Any], inputs: Tensors, v: Optional[Tensors], create_graph: bool,
                  strict: bool, caller: str) -> tuple[Tensor, Any]:
    scalar = _scalar_function(func, caller)
    with enable_grad():
        inputs_tuple, xs = _as_tuple(inputs, "inputs", caller)
        xs = _leaves(xs, create_graph)
        vs = _vectors(v, xs, caller, "the input to the user-provided function is", "the input of the user-provided function")
        out = scalar(*xs)
        first = _grads([out], xs, [zeros_like(out) + 1], True, strict)
        second = _grads(first, xs, vs, create_graph, strict)
    return (out if create_graph else out.detach()), _shaped_like(inputs_tuple, second)


def vhp(func: Callable[..., Any], inputs: Tensors, v: Optional[Tensors] = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Tensor, Any]:
    r"""``(f(inputs), v^\top H)`` for a scalar function ``f``."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp")


def hvp(func: Callable[..., Any], inputs: Tensors, v: Optional[Tensors] = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Tensor, Any]:
    r"""``(f(inputs), H v)`` for a scalar function ``f`` (:math:`H` is symmetric: the same
    products as :func:`vhp`, as PyTorch's double-backward computes them to rounding)."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp")


__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]
