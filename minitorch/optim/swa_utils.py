r"""Weight averaging, as ``torch.optim.swa_utils``: SWA, EMA, their learning rate and BatchNorm statistics.

Stochastic Weight Averaging (Izmailov et al., 2018) keeps, late in training, the running
mean of the weights the optimizer visits,
:math:`\bar W_{n+1} = \bar W_n + (W - \bar W_n) / (n + 1)`, which lands in a wider optimum
than the last iterate. An exponential moving average instead weights recent iterates more,
:math:`\bar W \leftarrow d\,\bar W + (1 - d)\,W`. :class:`AveragedModel` holds the averaged
copy of a model, :class:`SWALR` anneals the learning rate to a constant for the averaging
phase, and :func:`update_bn` recomputes the BatchNorm statistics of the averaged weights
(averaging the weights does not average what their activations look like)::

    swa_model = AveragedModel(model)
    swa_scheduler = SWALR(optimizer, swa_lr=0.05)
    for epoch in range(epochs):
        train_one_epoch(model, optimizer)
        if epoch >= swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
    update_bn(loader, swa_model)

As PyTorch, the default average on the cpu is computed one tensor at a time with
:func:`get_swa_avg_fn`, and on a GPU with :func:`get_swa_multi_avg_fn` (an interpolation,
``lerp``, by :math:`1/(n+1)`): the two round differently, and each matches PyTorch's.
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from .. import dtypes
from ..autograd import no_grad
from ..creation import tensor
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..tensor import Tensor
from .lr_scheduler import LRScheduler, _per_group
from .optimizer import Optimizer

__all__ = ["SWALR", "AveragedModel", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn", "update_bn"]

#: the decay of the exponential moving average unless told otherwise
DEFAULT_EMA_DECAY = 0.999
#: SWALR's defaults: epochs from the current rate to ``swa_lr``, and the curve between
DEFAULT_ANNEAL_EPOCHS = 10
ANNEAL_STRATEGIES = ("cos", "linear")
#: device types where the default average interpolates whole lists at once, as PyTorch's foreach kernels
MULTI_TENSOR_DEVICE_TYPES = ("cuda",)

ParamList = Sequence[Tensor]
AvgFn = Callable[[Tensor, Tensor, Union[Tensor, int]], Tensor]
MultiAvgFn = Callable[[ParamList, ParamList, Union[Tensor, int]], None]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = DEFAULT_EMA_DECAY) -> MultiAvgFn:
    r"""In place on lists: :math:`\bar W \leftarrow d\,\bar W + (1 - d)\,W` (a ``lerp`` by :math:`1 - d`)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list: ParamList, current_param_list: ParamList, _: Union[Tensor, int]) -> None:
        if ema_param_list[0].is_floating_point():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> MultiAvgFn:
    r"""In place on lists: :math:`\bar W \leftarrow \bar W + (W - \bar W)/(n + 1)` (a ``lerp`` by :math:`1/(n+1)`)."""

    @no_grad()
    def swa_update(averaged_param_list: ParamList, current_param_list: ParamList,
                   num_averaged: Union[Tensor, int]) -> None:
        if averaged_param_list[0].is_floating_point():
            weight = 1 / (num_averaged + 1)  # a float32 0-d tensor for a tensor count, as PyTorch's
            for p_averaged, p_model in zip(averaged_param_list, current_param_list):
                p_averaged.lerp_(p_model, weight)
            return
        for p_averaged, p_model in zip(averaged_param_list, current_param_list):
            diff = p_model - p_averaged
            if isinstance(num_averaged, Tensor):
                p_averaged.addcdiv_(diff, num_averaged + 1)
            else:
                p_averaged.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = DEFAULT_EMA_DECAY) -> AvgFn:
    r"""One tensor: :math:`d\,\bar W + (1 - d)\,W`."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Union[Tensor, int]) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> AvgFn:
    r"""One tensor: :math:`\bar W + (W - \bar W)/(n + 1)`, the running mean of :math:`n + 1` models."""

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Union[Tensor, int]) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _by_device_and_dtype(averaged: list[Tensor], current: list[Tensor]) -> dict[tuple[Any, Any], tuple[list, list]]:
    """The pairs grouped by the averaged tensor's device and dtype, in order (PyTorch averages per group)."""
    groups: dict[tuple[Any, Any], tuple[list, list]] = {}
    for p_averaged, p_model in zip(averaged, current):
        group = groups.setdefault((p_averaged.device, p_averaged.dtype), ([], []))
        group[0].append(p_averaged)
        group[1].append(p_model)
    return groups


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with ``use_buffers``, buffers) are averaged over
    :meth:`update_parameters` calls; calling it runs the copy.

    ``avg_fn(averaged, current, n)`` returns one averaged tensor; ``multi_avg_fn(averaged_list,
    current_list, n)`` updates lists in place; neither means the equal-weight running mean.
    The first update copies the model. ``n_averaged`` is a buffer, so the ``state_dict`` has
    PyTorch's keys: ``n_averaged`` and ``module.<name>``. Without ``use_buffers`` the buffers
    are copied from the model at each update (run :func:`update_bn` for BatchNorm).
    """

    n_averaged: Tensor

    def __init__(self, model: Module, device: Any = None, avg_fn: Optional[AvgFn] = None,
                 multi_avg_fn: Optional[MultiAvgFn] = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=dtypes.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The averaged copy's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average (the first call copies them)."""
        averaged_source = (itertools.chain(self.module.parameters(), self.module.buffers()) if self.use_buffers
                           else self.parameters())
        model_source = itertools.chain(model.parameters(), model.buffers()) if self.use_buffers else model.parameters()
        averaged: list[Tensor] = []
        current: list[Tensor] = []
        first = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(averaged_source, model_source):
            p_model_ = p_model.detach().to(p_averaged.device)
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if first:
                p_averaged.detach().copy_(p_model_)
        if not first:
            self._average(averaged, current)
        if not self.use_buffers:  # the buffers follow the model
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1

    def _average(self, averaged: list[Tensor], current: list[Tensor]) -> None:
        if self.avg_fn is not None and self.multi_avg_fn is None:
            for p_averaged, p_model in zip(averaged, current):
                n_averaged = self.n_averaged.to(p_averaged.device)
                p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, n_averaged))
            return
        for (device, _), (averaged_group, current_group) in _by_device_and_dtype(averaged, current).items():
            n_averaged = self.n_averaged.to(device)
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged_group, current_group, n_averaged)
            elif device.type in MULTI_TENSOR_DEVICE_TYPES:
                get_swa_multi_avg_fn()(averaged_group, current_group, n_averaged)
            else:
                avg_fn = get_swa_avg_fn()
                for p_averaged, p_model in zip(averaged_group, current_group):
                    p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))


@no_grad()
def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute every BatchNorm's running statistics over one pass of ``loader``.

    The statistics are reset and ``momentum`` set to None for the pass, so they become the
    plain average over the batches; the model runs in training mode and gets its mode and
    momenta back after. A batch is a tensor or a list/tuple whose first element is the input.
    """
    momenta: dict[_BatchNorm, Optional[float]] = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    r"""Anneal each group's rate from its current value to ``swa_lr`` over ``anneal_epochs`` steps, then hold it.

    With :math:`t = \min(1, \text{step} / \text{anneal\_epochs})` and :math:`\alpha(t)` equal to
    :math:`t` (``'linear'``) or :math:`(1 - \cos \pi t)/2` (``'cos'``), the rate is
    :math:`\alpha\,\text{swa\_lr} + (1 - \alpha)\,\text{lr}_0`; :math:`\text{lr}_0` is recovered
    from the group's current rate, so another scheduler may have moved it before.
    """

    def __init__(self, optimizer: Optimizer, swa_lr: Union[float, Sequence[float]],
                 anneal_epochs: int = DEFAULT_ANNEAL_EPOCHS, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        for value, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ANNEAL_STRATEGIES:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        """The starting rate that the previous step's :math:`\\alpha` mixed into ``lr``."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def _progress(self, step: int) -> float:
        """The share of the annealing done after ``step`` steps, clipped to :math:`[0, 1]`."""
        return max(0, min(1, step / max(1, self.anneal_epochs)))

    def get_lr(self) -> list[float]:
        """Undo the previous step's mix to recover :math:`\\text{lr}_0`, then mix with this step's
        :math:`\\alpha` (with ``anneal_epochs=0`` the first step is already at ``swa_lr``)."""
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(self._progress(step - 1))
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha) for group in groups]
        alpha = self.anneal_func(self._progress(step))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(groups, prev_lrs)]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer and the anneal function (rebuilt from its name on load)."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
