r"""Function transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``
and ``hessian`` turn a function of tensors into the function that computes its derivative.

They are written on top of reverse-mode autograd (:func:`minitorch.autograd.grad`). Each call
gives the chosen inputs fresh leaves (or views, when the input is already tracked), runs the
function with grad mode on, and differentiates. The results carry a graph only where something
outside the transform is tracked, as PyTorch's do: ``grad(f)(x)`` with a plain ``x`` is a plain
tensor, while ``grad(grad(f))(x)`` works because the inner ``grad`` sees an input the outer one
tracks. Forward-mode products use the double-vjp identity: with :math:`g(u) = J^\top u`,
:math:`J t = \partial (g(u) \cdot t) / \partial u`.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Union

from ..autograd import grad as autograd_grad
from ..autograd.function import AccumulateGrad
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.transform_levels import transform_level
from ..creation import eye, stack, zeros, zeros_like
from ..tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten
from .randomness import checked_mode, random_draws

ArgNums = Union[int, tuple[int, ...]]


def _level(api: str, args: Any) -> Any:
    """The transform level around one call of the function, its positional arguments as inputs
    (all of them, as PyTorch's transforms wrap every one: writing into them is allowed)."""
    return transform_level("grad", api, tree_flatten(args)[0])


def _checked_argnums(argnums: ArgNums, count: int) -> tuple[int, ...]:
    """The chosen positions as non-negative ints, with PyTorch's errors."""
    if isinstance(argnums, bool) or not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    chosen = (argnums,) if isinstance(argnums, int) else argnums
    if not chosen:
        raise RuntimeError("argnums must be non-empty")
    result = []
    for argnum in chosen:
        if isinstance(argnum, bool) or not isinstance(argnum, int):
            raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
        if not -count <= argnum < count:
            raise RuntimeError(f"Got argnum={argnum}, but only {count} positional inputs")
        result.append(argnum % count)
    if len(set(result)) != len(result):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(result)


def _fresh(value: Any) -> Tensor:
    """A tensor to differentiate with respect to: a view of ``value`` when something outside
    tracks it (so the derivative stays connected to it), else a detached leaf."""
    if not isinstance(value, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
    return value.view_as(value) if value.requires_grad else value.detach().requires_grad_(True)


def _differentiable_args(args: tuple, chosen: tuple[int, ...]) -> tuple[tuple, list[Tensor]]:
    """``args`` with each chosen argument (a tensor or a tree of them) replaced by fresh tensors,
    and those tensors in order."""
    replaced, leaves = list(args), []
    for position in chosen:
        values, spec = tree_flatten(args[position])
        fresh = [_fresh(value) for value in values]
        replaced[position] = tree_unflatten(fresh, spec)
        leaves.extend(fresh)
    return tuple(replaced), leaves


def _grads_of(chosen: tuple[int, ...], args: tuple, flat: list[Any], argnums: ArgNums) -> Any:
    """``flat`` (one entry per leaf of the chosen arguments) in the arguments' structure: the
    one argument's tree for an int ``argnums``, a tuple of trees for a tuple."""
    trees, start = [], 0
    for position in chosen:
        spec = tree_flatten(args[position])[1]
        trees.append(tree_unflatten(flat[start:start + spec.num_leaves], spec))
        start += spec.num_leaves
    return trees[0] if isinstance(argnums, int) else tuple(trees)


def _tracked_outside(tensor: Tensor, fresh: set[int]) -> bool:
    """Whether ``tensor``'s graph reaches a leaf other than this transform's fresh ones."""
    if not tensor.requires_grad:
        return False
    if tensor.grad_fn is None:
        return id(tensor) not in fresh
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in fresh:
                return True
            continue
        stack.extend(next_node for next_node, _ in node.next_functions)
    return False


def _released(tree: Any, fresh: list[Tensor], outside: bool) -> Any:
    """``tree`` with each tensor detached unless something outside the transform tracks it."""
    ids = {id(tensor) for tensor in fresh}

    def release(value: Any) -> Any:
        if isinstance(value, Tensor) and not (outside and _tracked_outside(value, ids)):
            return value.detach()
        return value

    values, spec = tree_flatten(tree)
    return tree_unflatten([release(value) for value in values], spec)


def _split_aux(output: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    """``(output, aux)``; ``aux`` is a tree of tensors only, as PyTorch requires."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    for value in tree_flatten(output[1])[0]:
        if not isinstance(value, Tensor):
            raise RuntimeError(f"{api}: Expected tensors in aux, got unsupported type {type(value)}")
    return output


def _gradients(outputs: list[Tensor], inputs: list[Tensor], cotangents: list[Tensor], create_graph: bool) -> list[Tensor]:
    """The vector-Jacobian products, zeros for an input the outputs do not depend on."""
    pairs = [(output, cotangent) for output, cotangent in zip(outputs, cotangents) if output.requires_grad]
    found: Any = (None,) * len(inputs)
    if pairs:
        found = autograd_grad([output for output, _ in pairs], inputs, [cotangent for _, cotangent in pairs],
                              retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [zeros_like(x) if value is None else value for value, x in zip(found, inputs)]


def grad_and_value(func: Callable[..., Any], argnums: ArgNums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """A function returning ``(gradient, value)`` of ``func``, whose result must be a 0-d tensor.

    The gradient is taken with respect to the positional argument ``argnums`` (a tensor or a
    tree of tensors: ``dict(model.named_parameters())``), or to each of a tuple of them. With
    ``has_aux``, ``func`` returns ``(value, aux)`` and the result is ``(gradient, (value, aux))``.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        chosen = _checked_argnums(argnums, len(args))
        outside = is_grad_enabled()
        with enable_grad(), _level("grad", args):
            differentiable, leaves = _differentiable_args(args, chosen)
            output, aux = _split_aux(func(*differentiable, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            flat = _gradients([output], leaves, [None], create_graph=outside)
        gradient = _released(_grads_of(chosen, args, flat, argnums), leaves, outside)
        value = _released(output, leaves, outside)
        return (gradient, (value, _released(aux, leaves, outside))) if has_aux else (gradient, value)

    return wrapper


def grad(func: Callable[..., Any], argnums: ArgNums = 0, has_aux: bool = False) -> Callable[..., Any]:
    r"""The gradient :math:`\nabla f` as a function: ``grad(f)(x)`` is :math:`\partial f(x) / \partial x`.

    As :func:`grad_and_value` without the value; with ``has_aux`` it returns ``(gradient, aux)``.
    Transforms nest: ``grad(grad(f))(x)`` is the second derivative of a scalar function.
    """
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gradient, value = both(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


def _tensor_outputs(output: Any, api: str) -> tuple[list[Tensor], Any]:
    values, spec = tree_flatten(output)
    if not values or (len(values) == 1 and values[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {values})")
    for value in values:
        if not isinstance(value, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(value)}")
    return values, spec


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` is the vector-Jacobian product of each
    primal, a tuple in the primals' structure; it may be called many times.

    ``cotangents`` has the structure and shapes of the output. With ``has_aux``, ``func``
    returns ``(output, aux)`` and ``vjp`` returns ``(output, vjp_fn, aux)``.
    """
    outside = is_grad_enabled()
    with enable_grad(), _level("vjp", primals):
        differentiable, leaves = _differentiable_args(primals, tuple(range(len(primals))))
        output, aux = _split_aux(func(*differentiable), has_aux, "vjp(f, *primals)")
        outputs, output_spec = _tensor_outputs(output, "vjp(f, *primals)")
        for value in outputs:
            if not value.is_floating_point():
                raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {value.dtype}")

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: Any = None) -> tuple[Any, ...]:
        given, given_spec = tree_flatten(cotangents)
        if given_spec != output_spec:
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {given_spec.describe()}, primal output: "
                               f"{output_spec.describe()}")
        for index, (cotangent, value) in enumerate(zip(given, outputs)):
            if not isinstance(cotangent, Tensor) or cotangent.shape != value.shape:
                shape = tuple(cotangent.shape) if isinstance(cotangent, Tensor) else type(cotangent).__name__
                raise RuntimeError(f"vjp_fn: cotangent {index} has shape {shape} but the output it goes with has "
                                   f"shape {tuple(value.shape)}")
        graph = is_grad_enabled() if create_graph is None else create_graph
        with enable_grad():
            flat = _gradients(outputs, leaves, given, create_graph=graph)
        return _released(_grads_of(tuple(range(len(primals))), primals, flat, tuple(range(len(primals)))),
                         leaves, graph)

    result = _released(output, leaves, outside)
    return (result, vjp_fn, _released(aux, leaves, outside)) if has_aux else (result, vjp_fn)


def _transposed_products(outputs: list[Tensor], leaves: list[Tensor]) -> tuple[list[Tensor], tuple]:
    r"""Zero probes :math:`u`, one per output, and :math:`J^\top u` for each leaf, recorded so that
    it can be differentiated with respect to ``u`` (any number of times: :func:`_pushed_forward`)."""
    probes = [zeros_like(value).requires_grad_(True) for value in outputs]
    pairs = [(value, probe) for value, probe in zip(outputs, probes) if value.requires_grad]
    transposed: Any = (None,) * len(leaves)
    if pairs:
        transposed = autograd_grad([value for value, _ in pairs], leaves, [probe for _, probe in pairs],
                                   retain_graph=True, create_graph=True, allow_unused=True)
    return probes, transposed


def _pushed_forward(outputs: list[Tensor], probes: list[Tensor], transposed: tuple, tangents: list[Tensor],
                    create_graph: bool) -> list[Tensor]:
    r""":math:`J t` for each output: :math:`\partial (J^\top u \cdot t) / \partial u`, zeros where no path."""
    linear = [(value, tangent) for value, tangent in zip(transposed, tangents) if value is not None and value.requires_grad]
    found: Any = (None,) * len(probes)
    if linear:
        found = autograd_grad([value for value, _ in linear], probes, [tangent for _, tangent in linear],
                              retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [zeros_like(value) if product is None else product for product, value in zip(found, outputs)]


def _forward_products(outputs: list[Tensor], leaves: list[Tensor], tangents: list[Tensor],
                      create_graph: bool) -> list[Tensor]:
    r""":math:`J t` for each output, by differentiating :math:`J^\top u` with respect to ``u``."""
    probes, transposed = _transposed_products(outputs, leaves)
    return _pushed_forward(outputs, probes, transposed, tangents, create_graph)


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product, in the output's structure.

    ``primals`` is a tuple of tensors (``func(*primals)`` is called) and ``tangents`` a tuple of
    tensors of the same shapes.
    """
    api = "jvp(f, primals, tangents)"
    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise RuntimeError(f"{api}: Expected {name} to be a tuple. E.g. it should be valid to call f(*{name}).")
    if strict:
        raise RuntimeError("jvp(f, primals, tangents, strict=True): strict is not supported")
    flat_primals, primal_spec = tree_flatten(primals)
    flat_tangents, tangent_spec = tree_flatten(tangents)
    if not flat_primals:
        raise RuntimeError(f"{api}: Expected primals to contain at least one Tensor.")
    if primal_spec != tangent_spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For example, "
                           f"if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{primal_spec.describe()} and tangents with structure {tangent_spec.describe()}")
    for primal, tangent in zip(flat_primals, flat_tangents):
        if not isinstance(primal, Tensor) or not isinstance(tangent, Tensor):
            raise RuntimeError(f"{api}: Expected primals and tangents to only contain Tensors")
        if primal.shape != tangent.shape:
            raise RuntimeError(f"{api}: Expected primals and tangents to have the same shape. Got primal of shape "
                               f"{tuple(primal.shape)} and tangent of shape {tuple(tangent.shape)}")
    outside = is_grad_enabled()
    with enable_grad(), _level("jvp", primals):
        differentiable, leaves = _differentiable_args(primals, tuple(range(len(primals))))
        output, aux = _split_aux(func(*differentiable), has_aux, api)
        outputs, output_spec = _tensor_outputs(output, api)
        products = _forward_products(outputs, leaves, flat_tangents, create_graph=outside)
    result = (_released(output, leaves, outside), _released(tree_unflatten(products, output_spec), leaves, outside))
    return (*result, _released(aux, leaves, outside)) if has_aux else result


def _jacobian_of(value: Tensor, leaves: list[Tensor], create_graph: bool) -> list[Tensor]:
    """The Jacobian of one output with respect to each leaf, shaped ``output.shape + leaf.shape``:
    one reverse pass per element of the output, with the standard basis as cotangents."""
    count = value.numel()
    if count == 0 or not value.requires_grad:
        return [zeros(*value.shape, *leaf.shape, dtype=leaf.dtype) for leaf in leaves]
    basis = eye(count, dtype=value.dtype).reshape(count, *value.shape)
    rows = [_gradients([value], leaves, [basis[index]], create_graph) for index in range(count)]
    return [stack([row[position] for row in rows]).reshape(*value.shape, *leaf.shape)
            for position, leaf in enumerate(leaves)]


def _jacobian_by_columns(outputs: list[Tensor], leaves: list[Tensor], create_graph: bool) -> list[list[Tensor]]:
    """Each output's Jacobian with respect to each leaf (outputs outside), shaped ``output.shape +
    leaf.shape``: one forward product per element of each leaf, the standard basis as tangents, as
    PyTorch's forward mode builds it (so its zeros keep the signs PyTorch's have)."""
    probes, transposed = _transposed_products(outputs, leaves)
    per_leaf = []
    for position, leaf in enumerate(leaves):
        count = leaf.numel()
        if count == 0:
            per_leaf.append([zeros(*value.shape, *leaf.shape, dtype=value.dtype) for value in outputs])
            continue
        basis = eye(count, dtype=leaf.dtype).reshape(count, *leaf.shape)
        columns = [_pushed_forward(outputs, probes, [transposed[position]], [basis[index]], create_graph)
                   for index in range(count)]
        per_leaf.append([stack([column[place] for column in columns], dim=-1).reshape(*value.shape, *leaf.shape)
                         for place, value in enumerate(outputs)])
    return [list(row) for row in zip(*per_leaf)]


def _jacobian_transform(func: Callable[..., Any], argnums: ArgNums, has_aux: bool, api: str,
                        forbid_random: bool) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        chosen = _checked_argnums(argnums, len(args))
        outside = is_grad_enabled()
        with enable_grad(), random_draws("error" if forbid_random else "different"), _level(api, args):
            differentiable, leaves = _differentiable_args(args, chosen)
            output, aux = _split_aux(func(*differentiable, **kwargs), has_aux, f"{api}(f, ...)(*args)")
            outputs, output_spec = _tensor_outputs(output, f"{api}(f, ...)(*args)")
            by_output = (_jacobian_by_columns(outputs, leaves, outside) if api == "jacfwd"
                         else [_jacobian_of(value, leaves, outside) for value in outputs])
            per_output = [_grads_of(chosen, args, jacobians, argnums) for jacobians in by_output]
        jacobian = _released(tree_unflatten(per_output, output_spec), leaves, outside)
        return (jacobian, _released(aux, leaves, outside)) if has_aux else jacobian

    return wrapper


def jacrev(func: Callable[..., Any], argnums: ArgNums = 0, *, has_aux: bool = False,
           chunk_size: Any = None) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to argument ``argnums``, by reverse mode.

    For an output of shape ``O`` and an input of shape ``I`` the Jacobian has shape ``O + I``;
    several outputs or inputs give nested tuples (outputs outside, inputs inside).
    ``chunk_size`` is accepted for PyTorch's signature (its memory trade-off does not arise here:
    the rows are computed one at a time).
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian_transform(func, argnums, has_aux, "jacrev", forbid_random=False)


def jacfwd(func: Callable[..., Any], argnums: ArgNums = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """The Jacobian of ``func``, as :func:`jacrev` returns it.

    Column by column, as PyTorch's forward mode computes it: each column is the forward product
    of one basis tangent (the double-vjp identity), so a zero gets the sign PyTorch's gets where
    the ops' derivatives agree (a Hessian's off-diagonal zeros follow their row, not their
    column). As PyTorch's, a random operation inside ``func`` raises unless ``randomness`` is
    ``'different'`` or ``'same'``.
    """
    return _jacobian_transform(func, argnums, has_aux, "jacfwd", forbid_random=checked_mode(randomness) == "error")


def hessian(func: Callable[..., Any], argnums: ArgNums = 0) -> Callable[..., Any]:
    r"""The Hessian :math:`\partial^2 f / \partial x^2` of ``func``: ``jacfwd(jacrev(func))``."""
    return jacfwd(jacrev(func, argnums), argnums)
