r"""``linearize(func, *primals)``: the value of ``func`` at ``primals`` and its linear map there.

``jvp_fn(*tangents)`` is :math:`J t`, the Jacobian of ``func`` at the primals times the tangents,
as :func:`~minitorch.func.jvp` gives it, but the graph is recorded once: the function runs (once
more), :math:`J^\top u` is recorded for zero probes :math:`u`, and each call differentiates that
with respect to :math:`u` (the double-vjp identity), so calling ``jvp_fn`` for many tangents
does not run ``func`` again. As PyTorch's, it holds on to that graph (memory for speed), and a
tangent must have its primal's shape, dtype and device.
"""

from __future__ import annotations

from typing import Any, Callable

from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten
from .transforms import _differentiable_args, _level, _pushed_forward, _released, _tensor_outputs, _transposed_products

__all__ = ["linearize"]

API = "linearize"


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)``, with ``jvp_fn(*tangents)`` the Jacobian-vector product at ``primals``."""
    output = func(*primals)
    flat_primals, primal_spec = tree_flatten(primals)
    metadata = [(p.shape, p.device, p.dtype) for p in flat_primals]
    outside = is_grad_enabled()
    with enable_grad(), _level(API, primals):
        differentiable, leaves = _differentiable_args(primals, tuple(range(len(primals))))
        outputs, output_spec = _tensor_outputs(func(*differentiable), API)
        probes, transposed = _transposed_products(outputs, leaves)

    def jvp_fn(*tangents: Any) -> Any:
        flat_tangents, tangent_spec = tree_flatten(tangents)
        if tangent_spec != primal_spec:
            raise RuntimeError(f"Expected the tangents {tangent_spec.describe()} to have the same argspec as the "
                               f"primals {primal_spec.describe()}")
        for index, (tangent, (shape, device, dtype)) in enumerate(zip(flat_tangents, metadata)):
            if not isinstance(tangent, Tensor):
                raise RuntimeError(f"tangent:{index} is a {type(tangent).__name__}, not a Tensor")
            for name, found, wanted in (("shape", tangent.shape, shape), ("device", tangent.device, device),
                                        ("dtype", tangent.dtype, dtype)):
                if found != wanted:
                    raise RuntimeError(f"tangent:{index} with {name} {found} in flattened pytree doesn't match the "
                                       f"{name} {wanted} of the corresponding primal.")
        graph = is_grad_enabled()
        with enable_grad():
            products = _pushed_forward(outputs, probes, transposed, flat_tangents, create_graph=graph)
        return _released(tree_unflatten(products, output_spec), leaves, outside and graph)

    return output, jvp_fn
