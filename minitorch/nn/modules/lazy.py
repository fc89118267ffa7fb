r"""Lazy modules: layers that learn their input size from the first batch they see.

``nn.LazyLinear(10)`` is a :class:`~minitorch.nn.Linear` whose ``in_features`` is not known yet:
its ``weight`` and ``bias`` are :class:`~minitorch.nn.parameter.UninitializedParameter`
placeholders. The first call runs a forward pre-hook that reads the size off the input,
materialises the placeholders, initialises them exactly as the regular layer's
``reset_parameters`` does, removes the hook and turns the module into its regular class
(``cls_to_become``): after ``m(x)``, ``type(m) is nn.Linear``.

An optimizer may be built before that first call: it holds the placeholder objects, which
become the real parameters in place. Loading a materialised state dict materialises the
placeholders too (the load pre-hook gives them the checkpoint's shapes).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Any, Optional, Union

from ... import creation, dtypes
from ...autograd import no_grad
from ...tensor import Tensor
from ..functional._utils import IntOrTuple
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d
from .linear import Linear
from .normalization import DEFAULT_EPS, DEFAULT_MOMENTUM, BatchNorm1d, BatchNorm2d

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyConv1d", "LazyConv2d", "LazyLinear", "LazyModuleMixin"]


class LazyModuleMixin:
    """Mixed in before a Module class: placeholders are materialised by :meth:`initialize_parameters`
    on the first call, then the module becomes :attr:`cls_to_become`."""

    #: the regular class the module turns into once its parameters are known (None: stays as is)
    cls_to_become: Optional[type] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialise and initialise the placeholders from the first call's arguments."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any of this module's own parameters or buffers is still a placeholder."""
        return any(is_lazy(value) for value in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module: Any, args: tuple, kwargs: Optional[dict] = None) -> None:
        """The forward pre-hook: initialise from the first call, then drop the hooks and change class."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _lazy_load_hook(self, state_dict: Any, prefix: str, local_metadata: dict, strict: bool,
                        missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        """Before loading: a placeholder whose checkpoint entry is a real tensor takes that tensor's shape."""
        for name, current in itertools.chain(self._parameters.items(), self._buffers.items()):
            value = state_dict.get(prefix + name)
            if is_lazy(current) and isinstance(value, Tensor) and not is_lazy(value):
                with no_grad():
                    current.materialize(value.shape)

    def _save_to_state_dict(self, destination: "OrderedDict[str, Any]", prefix: str, keep_vars: bool) -> None:
        """As ``Module``'s, but placeholders are saved themselves (they cannot be detached)."""
        super()._save_to_state_dict(destination, prefix, True)  # type: ignore[misc]
        if keep_vars:
            return
        for name in itertools.chain(self._parameters, self._buffers):
            value = destination.get(prefix + name)
            if isinstance(value, Tensor) and not is_lazy(value):
                destination[prefix + name] = value.detach()


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`~minitorch.nn.Linear` whose ``in_features`` is the last size of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # noqa: A002 - PyTorch's argument name
        """``in_features`` from ``input.shape[-1]``; then Linear's initialisation."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialised by load_state_dict: the weight knows the size
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvNd(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` from the channel dimension of the first input."""

    def __init__(self, out_channels: int, kernel_size: IntOrTuple, stride: IntOrTuple = 1,
                 padding: Union[str, IntOrTuple] = 0, dilation: IntOrTuple = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        # bias False: no tensor is made only to be replaced by a placeholder
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def _get_in_channels(self, input: Tensor) -> int:  # noqa: A002
        unbatched = self._spatial + 1  # type: ignore[attr-defined]
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:  # noqa: A002
        """``in_channels`` from the input; then the convolution's initialisation."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            per_group = (self.in_channels, self.out_channels // self.groups) if self.transposed else (
                self.out_channels, self.in_channels // self.groups)
            with no_grad():
                self.weight.materialize((*per_group, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


class LazyConv1d(_LazyConvNd, Conv1d):
    """A :class:`~minitorch.nn.Conv1d` whose ``in_channels`` is read off its first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    """A :class:`~minitorch.nn.Conv2d` whose ``in_channels`` is read off its first input."""

    cls_to_become = Conv2d


class _LazyBatchNorm(LazyModuleMixin):
    """What the lazy batch norms share: ``num_features`` from ``input.shape[1]``."""

    def __init__(self, eps: float = DEFAULT_EPS, momentum: Optional[float] = DEFAULT_MOMENTUM, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        # affine and running statistics off: nothing is made only to be replaced by a placeholder
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, dtype=dtypes.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor) -> None:  # noqa: A002
        """``num_features`` from ``input.shape[1]``; then BatchNorm's initialisation."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                for placeholder in (self.weight, self.bias, self.running_mean, self.running_var):
                    if placeholder is not None:
                        placeholder.materialize((self.num_features,))
                self.reset_parameters()


class LazyBatchNorm1d(_LazyBatchNorm, BatchNorm1d):
    """A :class:`~minitorch.nn.BatchNorm1d` whose ``num_features`` is read off its first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyBatchNorm, BatchNorm2d):
    """A :class:`~minitorch.nn.BatchNorm2d` whose ``num_features`` is read off its first input."""

    cls_to_become = BatchNorm2d
