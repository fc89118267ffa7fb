"""Learning-rate schedules: change each param group's ``lr`` as training goes on.

A scheduler wraps an optimizer; creating it records each group's ``initial_lr`` and sets
the first rate, and every ``scheduler.step()`` (after ``optimizer.step()``, once per epoch
or per batch) moves one step along the schedule::

    opt = minitorch.optim.SGD(model.parameters(), lr=0.1)
    sched = minitorch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(100):
        train_one_epoch(model, opt)
        sched.step()

Like PyTorch's, the rules are *chainable*: most compute the new rate from the group's
current one, so two schedulers on one optimizer compose.
"""

from __future__ import annotations

import functools
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from typing import Any, Callable, Iterable, Optional, Sequence, SupportsFloat, Union

from .optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler."
)
#: PyTorch's warnings when a schedule's first step comes before the optimizer's (which skips the
#: schedule's first rate), or when ``optimizer.step`` was replaced after the scheduler was made
STEPPED_FIRST_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
    "them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in "
    "PyTorch skipping the first value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)
STEP_REPLACED_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler initialization. Please, make "
    "sure to call `optimizer.step()` before `lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)
DEFAULT_GAMMA = 0.1
LINEAR_START_FACTOR = 1.0 / 3
LINEAR_TOTAL_ITERS = 5
#: OneCycleLR: share of the steps spent warming up, and the rates as fractions of ``max_lr``
ONE_CYCLE_PCT_START = 0.3
ONE_CYCLE_DIV_FACTOR = 25.0
ONE_CYCLE_FINAL_DIV_FACTOR = 1e4
ONE_CYCLE_BASE_MOMENTUM = 0.85
ONE_CYCLE_MAX_MOMENTUM = 0.95
#: ReduceLROnPlateau defaults
PLATEAU_PATIENCE = 10
PLATEAU_THRESHOLD = 1e-4
PLATEAU_EPS = 1e-8
CYCLIC_STEP_SIZE_UP = 2000
CYCLIC_BASE_MOMENTUM = 0.8
CYCLIC_MAX_MOMENTUM = 0.9
CYCLIC_MODES = ("triangular", "triangular2", "exp_range")
CONSTANT_FACTOR = 1.0 / 3
CONSTANT_TOTAL_ITERS = 5
POLYNOMIAL_TOTAL_ITERS = 5
#: what LambdaLR and MultiplicativeLR take: one function of the epoch, or one per param group
LrLambda = Union[Callable[[int], float], Sequence[Callable[[int], float]]]


class LRScheduler:
    """Base class: subclasses write :meth:`get_lr`, the rates for the new ``last_epoch``."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for index, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{index}] when resuming scheduler "
                        "with last_epoch >= 0"
                    )
        self.base_lrs: list[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _track_step_calls(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Reset the step count and take the step that sets the first rates."""
        self._step_count = 0
        self._is_initial = True
        self.step()
        self._is_initial = False

    def get_lr(self) -> list[float]:
        """The learning rate of each param group at epoch ``last_epoch``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement get_lr")

    def get_last_lr(self) -> list[float]:
        """The rates this scheduler set last (one per param group)."""
        return self._last_lr

    def step(self, epoch: Optional[int] = None) -> None:
        """Advance one epoch (or jump to ``epoch``, deprecated) and set every group's ``lr``."""
        if self._step_count == 1:  # the first step after the one the constructor took
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(STEP_REPLACED_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(STEPPED_FIRST_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
            self.last_epoch = epoch
            values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _current_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer (it has its own ``state_dict``)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)


def _track_step_calls(optimizer: Optimizer) -> None:
    """Make ``optimizer.step`` mark the optimizer (``_opt_called``) when it runs, as PyTorch's schedulers
    do to see whether a schedule's first step came first; once per optimizer."""
    step = optimizer.step
    if hasattr(step, "_wrapped_by_lr_sched"):
        return
    function = getattr(step, "__func__", None)
    owner = weakref.ref(optimizer)

    @functools.wraps(step)
    def tracked(*args: Any, **kwargs: Any) -> Any:
        stepped = owner()
        stepped._opt_called = True  # type: ignore[union-attr]
        return function(stepped, *args, **kwargs) if function is not None else step(*args, **kwargs)

    tracked._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = tracked  # type: ignore[method-assign]


def _lambdas_per_group(optimizer: Optimizer, lr_lambda: LrLambda) -> list[Callable[[int], float]]:
    """One function per param group: a list/tuple of the right length, or one function for all."""
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != len(optimizer.param_groups):
            raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * len(optimizer.param_groups)


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``, one function per group or one for all."""

    def __init__(self, optimizer: Optimizer, lr_lambda: LrLambda,
                 last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        # BEGIN SOLUTION 6.6
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]
        # END SOLUTION

    def state_dict(self) -> dict[str, Any]:
        """Plain functions are not saved (``None``); callable objects save their ``__dict__``."""
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else dict(fn.__dict__) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, saved_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class StepLR(LRScheduler):
    r"""Multiply the rate by ``gamma`` every ``step_size`` epochs: :math:`\gamma^{\lfloor t/s \rfloor}\,\mathrm{lr}_0`."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = DEFAULT_GAMMA, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        # BEGIN SOLUTION 6.6
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]
        # END SOLUTION

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each milestone epoch (twice if it is listed twice)."""

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = DEFAULT_GAMMA,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        # BEGIN SOLUTION 6.6
        if self.last_epoch not in self.milestones:
            return self._current_lrs()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current_lrs()]
        # END SOLUTION

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    r"""Multiply the rate by ``gamma`` every epoch: :math:`\gamma^t\,\mathrm{lr}_0`."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        # BEGIN SOLUTION 6.6
        if self._is_initial:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]
        # END SOLUTION

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Half a cosine from ``lr_0`` down to ``eta_min`` over ``T_max`` epochs (then back up).

    .. math:: \eta_t = \eta_{min} + \tfrac12(\eta_0 - \eta_{min})\left(1 + \cos\frac{\pi t}{T_{max}}\right)

    computed recursively from the current rate, as PyTorch does, so it composes with other
    schedulers.
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:  # noqa: N803
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        # BEGIN SOLUTION 6.6
        epoch, period, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and epoch > 0:
            return [eta_min + (base - eta_min) * (1 + math.cos(epoch * math.pi / period)) / 2 for base in self.base_lrs]
        if (epoch - 1 - period) % (2 * period) == 0:
            return [lr + (base - eta_min) * (1 - math.cos(math.pi / period)) / 2
                    for base, lr in zip(self.base_lrs, self._current_lrs())]
        ratio = (1 + math.cos(math.pi * epoch / period)) / (1 + math.cos(math.pi * (epoch - 1) / period))
        return [ratio * (lr - eta_min) + eta_min for lr in self._current_lrs()]
        # END SOLUTION

    def _get_closed_form_lr(self) -> list[float]:
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate by a factor going linearly from ``start_factor`` to ``end_factor`` in ``total_iters`` epochs."""

    def __init__(self, optimizer: Optimizer, start_factor: float = LINEAR_START_FACTOR, end_factor: float = 1.0,
                 total_iters: int = LINEAR_TOTAL_ITERS, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        # BEGIN SOLUTION 6.6
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current_lrs()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change)
        return [lr * ratio for lr in self._current_lrs()]
        # END SOLUTION

    def _get_closed_form_lr(self) -> list[float]:
        progress = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * progress) for base in self.base_lrs]


def set_momentum(group: dict[str, Any], value: float, use_beta1: bool) -> None:
    """Set a group's momentum: ``betas[0]`` for Adam-like optimizers, else ``momentum``."""
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _per_group(name: str, optimizer: Optimizer, value: Union[float, Sequence[float]]) -> list[float]:
    """One value per param group: a list/tuple of the right length, or a scalar repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has {len(value)} values, "
                f"param_groups has {len(optimizer.param_groups)}."
            )
        return list(value)
    return [value] * len(optimizer.param_groups)


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith and Topor, 2017): warm up to ``max_lr``, then anneal far below the start.

    Called once per *batch*. The rate starts at ``max_lr / div_factor``, rises to ``max_lr``
    over the first ``pct_start`` of ``total_steps`` and falls to
    ``initial_lr / final_div_factor``; with ``cycle_momentum`` the momentum (or Adam's
    ``beta1``) moves the opposite way between ``max_momentum`` and ``base_momentum``.
    ``three_phase`` comes back down to the initial rate before the final fall.
    """

    def __init__(self, optimizer: Optimizer, max_lr: Union[float, Sequence[float]], total_steps: Optional[int] = None,
                 epochs: Optional[int] = None, steps_per_epoch: Optional[int] = None,
                 pct_start: float = ONE_CYCLE_PCT_START, anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: Union[float, Sequence[float]] = ONE_CYCLE_BASE_MOMENTUM,
                 max_momentum: Union[float, Sequence[float]] = ONE_CYCLE_MAX_MOMENTUM,
                 div_factor: float = ONE_CYCLE_DIV_FACTOR, final_div_factor: float = ONE_CYCLE_FINAL_DIV_FACTOR,
                 three_phase: bool = False, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.anneal_strategy = anneal_strategy
        warmup_end = float(pct_start * self.total_steps) - 1
        # each phase: (last step, rate key at its start, at its end, momentum key at start, at end)
        if three_phase:
            self._phases = [
                (warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                (self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._phases = [
                (warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, group_max_lr in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = group_max_lr / div_factor
                group["max_lr"] = group_max_lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            max_momenta = _per_group("max_momentum", optimizer, max_momentum)
            base_momenta = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for group, high, low in zip(optimizer.param_groups, max_momenta, base_momenta):
                    self._set_momentum(group, high)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group: dict[str, Any], value: float) -> None:
        set_momentum(group, value, self.use_beta1)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        """From ``start`` (pct 0) to ``end`` (pct 1): half a cosine or a straight line."""
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            phase_start = 0.0
            for index, (phase_end, lr_from, lr_to, momentum_from, momentum_to) in enumerate(self._phases):
                if step <= phase_end or index == len(self._phases) - 1:
                    pct = (step - phase_start) / (phase_end - phase_start)
                    lrs.append(self._anneal(group[lr_from], group[lr_to], pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(group[momentum_from], group[momentum_to], pct))
                    break
                phase_start = phase_end
        return lrs


class ReduceLROnPlateau(LRScheduler):
    """Divide the rate by ``1/factor`` when a metric has stopped improving for ``patience`` epochs.

    ``step(metric)`` takes the metric (a validation loss with ``mode="min"``, an accuracy
    with ``"max"``). A value counts as better than the best so far by ``threshold``,
    relative (``"rel"``) or absolute (``"abs"``). After a reduction, ``cooldown`` epochs
    pass before bad epochs count again; no rate goes below ``min_lr``, and a change
    smaller than ``eps`` is skipped.
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = DEFAULT_GAMMA,
                 patience: int = PLATEAU_PATIENCE, threshold: float = PLATEAU_THRESHOLD, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: Union[float, Sequence[float]] = 0, eps: float = PLATEAU_EPS) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.optimizer = optimizer
        self.factor = factor
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr: Optional[float] = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = self._current_lrs()
        # (set in PyTorch's order: it is the order of the state_dict's keys)
        self.mode_worse = math.inf if mode == "min" else -math.inf  # the worst value, where ``best`` starts
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def is_better(self, value: float, best: float) -> bool:
        """Whether ``value`` beats ``best`` by more than the threshold."""
        if self.threshold_mode == "rel":
            scale = 1.0 - self.threshold if self.mode == "min" else 1.0 + self.threshold
            return value < best * scale if self.mode == "min" else value > best * scale
        return value < best - self.threshold if self.mode == "min" else value > best + self.threshold

    def step(self, metrics: SupportsFloat, epoch: Optional[int] = None) -> None:  # type: ignore[override]
        """Record this epoch's metric and reduce the rates after too many bad epochs in a row."""
        # BEGIN SOLUTION 6.7
        current = float(metrics)
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current_lrs()
        # END SOLUTION

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new param group "
                    "being added to the optimizer. Please modify the `min_lrs` field to match the length of the "
                    "`optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0




class _LRScheduler(LRScheduler):
    """The base class's older name, kept by PyTorch for existing subclasses."""


class ConstantLR(LRScheduler):
    """``lr = initial_lr * factor`` for the first ``total_iters`` epochs, then ``initial_lr``."""

    def __init__(self, optimizer: Optimizer, factor: float = CONSTANT_FACTOR, total_iters: int = CONSTANT_TOTAL_ITERS,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current_lrs()]
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return [lr * (1.0 / self.factor) for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        after = self.last_epoch >= self.total_iters
        return [base * (self.factor + after * (1 - self.factor)) for base in self.base_lrs]


class MultiplicativeLR(LRScheduler):
    """Each epoch multiplies the current rate by ``lr_lambda(epoch)`` (one function per group or one for all)."""

    def __init__(self, optimizer: Optimizer, lr_lambda: LrLambda,
                 last_epoch: int = -1) -> None:
        self.lr_lambdas = _lambdas_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch > 0:
            return [lr * fn(self.last_epoch) for fn, lr in zip(self.lr_lambdas, self._current_lrs())]
        return self._current_lrs()


class PolynomialLR(LRScheduler):
    r""":math:`\text{lr} = \text{initial\_lr}\,(1 - \min(t, T)/T)^{p}` over ``total_iters`` :math:`T`."""

    def __init__(self, optimizer: Optimizer, total_iters: int = POLYNOMIAL_TOTAL_ITERS, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return self._current_lrs()
        decay = ((1.0 - self.last_epoch / self.total_iters)
                 / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [lr * decay for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        remaining = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * remaining**self.power for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""Cosine annealing restarted every :math:`T_i` epochs (SGDR, Loshchilov and Hutter, 2017):
    :math:`\eta_t = \eta_{\min} + \tfrac12(\eta_0 - \eta_{\min})(1 + \cos(\pi T_{cur}/T_i))`, with
    :math:`T_{i+1} = T_{mult}\, T_i`. ``step(epoch)`` accepts fractional epochs."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base in self.base_lrs]

    def step(self, epoch: Optional[float] = None) -> None:  # type: ignore[override]
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    restarts = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**restarts - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**restarts
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self._step_count += 1
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = self._current_lrs()


def _check_schedulers(kind: str, schedulers: Sequence[LRScheduler], optimizer: Optional[Optimizer],
                      purpose: str = "") -> Optimizer:
    """The optimizer every scheduler of a composite must share."""
    if len(schedulers) < 1:
        raise ValueError(f"{kind} expects at least one scheduler{purpose}, but got no scheduler.")
    optimizer = optimizer or schedulers[0].optimizer
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{kind} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
                f"specified when calling `step`, but got one at index {index} in the given schedulers sequence."
            )
        if scheduler.optimizer is not optimizer:
            raise ValueError(
                f"{kind} expects all schedulers to belong to the same optimizer, but got scheduler "
                f"{type(scheduler).__name__} at index {index} has {scheduler.optimizer}, which is different from "
                f"{type(optimizer).__name__}."
            )
    return optimizer


class _Composite(LRScheduler):
    """Shared by schedulers made of other schedulers: their state dicts nest."""

    _schedulers: list[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [scheduler.state_dict() for scheduler in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        nested = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, nested):
            scheduler.load_state_dict(saved)

    def recursive_undo(self) -> None:
        """Take back the first step each inner scheduler took when it was built."""
        for scheduler in self._schedulers:
            if isinstance(scheduler, _Composite):
                scheduler.recursive_undo()
            else:
                scheduler.last_epoch -= 1


class SequentialLR(_Composite):
    """Run ``schedulers[i]`` from ``milestones[i-1]`` on; each takes over from epoch 0 of its own."""

    def __init__(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler], milestones: Sequence[int],
                 last_epoch: int = -1) -> None:
        _check_schedulers(type(self).__name__, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                f"milestone points, but got number of schedulers {len(schedulers)} and the number of milestones to "
                f"be equal to {len(milestones)}"
            )
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        first = bisect_right(self._milestones, 0)
        self._schedulers[first]._initial_step()
        self._last_lr = self._schedulers[first].get_last_lr()

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Step every scheduler of the chain at once: their (chainable) rules compose."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optional[Optimizer] = None) -> None:
        self.optimizer = _check_schedulers(type(self).__name__, schedulers, optimizer, " to be chained")
        self._schedulers = list(schedulers)
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def step(self) -> None:  # type: ignore[override]
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]


class CyclicLR(LRScheduler):
    r"""Rates cycling between ``base_lr`` and ``max_lr`` (Smith, 2017), one step per batch.

    With cycle :math:`c = \lfloor 1 + t/(u+d) \rfloor` and position :math:`x = 1 + t/(u+d) - c`,
    the height climbs linearly over ``step_size_up`` :math:`u` and falls over ``step_size_down``
    :math:`d`, scaled per cycle (``triangular``: 1, ``triangular2``: :math:`2^{1-c}`) or per
    iteration (``exp_range``: :math:`\gamma^t`), or by a given ``scale_fn``. With
    ``cycle_momentum`` the momentum (or ``betas[0]``) moves the opposite way.
    """

    def __init__(self, optimizer: Optimizer, base_lr: Union[float, Sequence[float]],
                 max_lr: Union[float, Sequence[float]], step_size_up: int = CYCLIC_STEP_SIZE_UP,
                 step_size_down: Optional[int] = None, mode: str = "triangular", gamma: float = 1.0,
                 scale_fn: Optional[Callable[[float], float]] = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float = CYCLIC_BASE_MOMENTUM,
                 max_momentum: float = CYCLIC_MAX_MOMENTUM, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in CYCLIC_MODES and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else ("iterations" if mode == "exp_range" else "cycle")
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(self.max_momentums, self.base_momentums, optimizer.param_groups):
                    set_momentum(group, high, self.use_beta1)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        """The height's scale at cycle or iteration ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> list[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base + (high - base) * scale_factor * scale for base, high in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                set_momentum(group, high - (high - low) * scale_factor * scale, self.use_beta1)
        return lrs


__all__ = [
    "ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CyclicLR", "CosineAnnealingWarmRestarts", "ExponentialLR",
    "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR", "MultiplicativeLR", "OneCycleLR", "PolynomialLR",
    "ReduceLROnPlateau", "SequentialLR", "StepLR",
]
