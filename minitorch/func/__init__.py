"""``minitorch.func``, as ``torch.func``: function transforms (``grad``, ``vjp``, ``jvp``,
``linearize``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap``) and the tools that make a module a
function of its parameters (``functional_call``, ``stack_module_state``)."""

from .functional_call import functional_call, replace_all_batch_norm_modules_, stack_module_state
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from .vmap import vmap
from .linearize import linearize

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]
