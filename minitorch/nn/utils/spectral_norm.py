r"""Spectral normalisation by a forward pre-hook (``nn.utils.spectral_norm``), PyTorch's older API.

``spectral_norm(module)`` rescales a weight :math:`W` by its largest singular value,

.. math::
    W_{SN} = \frac{W}{\sigma(W)}, \qquad \sigma(W) = \max_{h \ne 0} \frac{\lVert W h \rVert_2}{\lVert h \rVert_2},

so that the layer is 1-Lipschitz (the GAN discriminators of Miyato et al., 2018). The weight is
read as a matrix, dimension ``dim`` first and the others flattened; :math:`\sigma` is estimated
by power iteration, :math:`v \leftarrow \frac{W^\top u}{\lVert W^\top u \rVert}`,
:math:`u \leftarrow \frac{W v}{\lVert W v \rVert}`, then :math:`\sigma \approx u^\top W v`.

As in PyTorch the parameter becomes ``<name>_orig``, the vectors are the buffers ``<name>_u``
and ``<name>_v`` (refined in place, ``n_power_iterations`` steps before every forward in
training, never in eval) and ``module.<name>`` is a plain attribute recomputed by the hook.
The gradient flows through :math:`W / \sigma` with :math:`u` and :math:`v` held constant. The
state dict carries a version in its metadata; a state dict without ``<name>_v`` (the format
before version 1) is converted on loading, as PyTorch does.
"""

from __future__ import annotations

from typing import Any, Optional, TypeVar

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..functional.distance import normalize
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from ..parameter import Parameter, UninitializedParameter

ModuleT = TypeVar("ModuleT", bound=Module)

#: the key of the state dict metadata that holds each normalised weight's format version
METADATA_KEY = "spectral_norm"
#: the suffixes of the original weight and of the two singular-vector buffers
ORIGINAL, LEFT, RIGHT = "_orig", "_u", "_v"


def output_dim(module: Module) -> int:
    """The dimension of a module's weight that indexes its outputs: 1 for the ``ConvTranspose``
    layers (their weight is ``(in, out, ...)``), else 0. The rows of the spectral norm's matrix."""
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


def weight_as_matrix(weight: Tensor, dim: int) -> Tensor:
    """``weight`` as a matrix: dimension ``dim`` as the rows, all others flattened into the columns."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.reshape(weight.size(0), -1)


class SpectralNorm:
    """The forward pre-hook: sets ``module.<name>`` to ``<name>_orig`` over its estimated spectral norm."""

    #: version 1 stores ``<name>_v`` and no ``<name>``; eval uses :math:`u^\top W v` too
    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """``weight`` as a matrix, dimension ``dim`` as the rows (PyTorch's method name)."""
        return weight_as_matrix(weight, self.dim)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        r""":math:`W / u^\top W v`, after refining ``u`` and ``v`` in place when ``do_power_iteration``.

        The refined vectors are cloned before use, so that a graph built by an earlier forward
        (``D(real) - D(fake)``) still finds the values it saved.
        """
        weight = getattr(module, self.name + ORIGINAL)
        u = getattr(module, self.name + LEFT)
        v = getattr(module, self.name + RIGHT)
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = normalize(matrix.t().mv(u), dim=0, eps=self.eps, out=v)
                    u = normalize(matrix.mv(v), dim=0, eps=self.eps, out=u)
                u, v = u.clone(), v.clone()
        sigma = u.dot(matrix.mv(v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Leave ``module.<name>`` a parameter again, holding the normalised weight."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", LEFT, RIGHT, ORIGINAL):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, matrix: Tensor, u: Tensor, target_sigma: Tensor) -> Tensor:
        r"""A ``v`` with :math:`u = \mathrm{normalize}(W v)` and :math:`u^\top W v = \sigma`, by the
        pseudo-inverse: :math:`v \propto (W^\top W)^{+} W^\top u`."""
        v = matrix.t().mm(matrix).pinverse().mm(matrix.t().mm(u.unsqueeze(1))).squeeze(1)
        return v.mul_(target_sigma / u.dot(matrix.mv(v)))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        """Move ``module.<name>`` to ``<name>_orig``, draw ``u`` and ``v``, and register the hooks."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying spectral normalization")
        with no_grad():
            rows, columns = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(weight.new_empty(rows).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(columns).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + ORIGINAL, weight)
        # ``module.<name>`` must exist before the first forward (e.g. for initialisation code):
        # the weight's values as a plain attribute, which the hook then replaces
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + LEFT, u)
        module.register_buffer(fn.name + RIGHT, v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    r"""Converts a state dict of the format before version 1 (``<name>`` stored, no ``<name>_v``).

    There :math:`u = \mathrm{normalize}(W_{orig} v)` and :math:`W = W_{orig} / \sigma`, so
    :math:`\sigma` is the mean of :math:`W_{orig} / W` and ``v`` is solved for from ``u``.
    """

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict: dict[str, Any], prefix: str, local_metadata: dict[str, Any], strict: bool,
                 missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        fn = self.fn
        version = local_metadata.get(METADATA_KEY, {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (version is None and all(weight_key + suffix in state_dict for suffix in (ORIGINAL, LEFT, RIGHT))
                and weight_key not in state_dict):
            return  # the current format without its metadata (a state dict built by hand)
        absent = [weight_key + suffix for suffix in (ORIGINAL, "", LEFT) if weight_key + suffix not in state_dict]
        if absent:
            if strict:
                missing_keys.extend(absent)
            return
        with no_grad():
            weight_orig = state_dict[weight_key + ORIGINAL]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            matrix = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + LEFT]
            state_dict[weight_key + RIGHT] = fn._solve_v_and_rescale(matrix, u, sigma)


class SpectralNormStateDictHook:
    """Records the format version of the normalised weight in the state dict's metadata."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Module, state_dict: dict[str, Any], prefix: str, local_metadata: dict[str, Any]) -> None:
        versions = local_metadata.setdefault(METADATA_KEY, {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module: ModuleT, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: Optional[int] = None) -> ModuleT:
    """Divide ``module.<name>`` by its spectral norm before every forward (see the module docstring).

    ``dim`` is the output dimension of the weight: 0, except 1 for the ``ConvTranspose`` layers.
    """
    if dim is None:
        dim = output_dim(module)
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def find_hook(hooks: dict[int, Any], kind: type, name: str) -> Optional[int]:
    """The key in ``hooks`` of the first hook of class ``kind`` for the weight ``name``, if any."""
    for key, hook in hooks.items():
        fn = getattr(hook, "fn", hook)  # a state dict hook names its weight through the pre-hook it serves
        if isinstance(hook, kind) and fn.name == name:
            return key
    return None


def remove_spectral_norm(module: ModuleT, name: str = "weight") -> ModuleT:
    """Undo :func:`spectral_norm`: ``module.<name>`` a parameter holding the last normalised weight."""
    key = find_hook(module._forward_pre_hooks, SpectralNorm, name)
    if key is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    module._forward_pre_hooks[key].remove(module)
    del module._forward_pre_hooks[key]
    for hooks, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        key = find_hook(hooks, kind, name)
        if key is not None:
            del hooks[key]
    return module


__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "remove_spectral_norm",
           "spectral_norm"]
