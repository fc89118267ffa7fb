r"""``GradScaler``: loss scaling, so small float16 gradients do not flush to zero.

.. code-block:: python

    scaler = minitorch.amp.GradScaler("cpu")
    for x, y in loader:
        optimizer.zero_grad()
        with minitorch.autocast("cpu", dtype=minitorch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()   # gradients of S * loss
        scaler.step(optimizer)          # unscales by 1/S; skips the step if any gradient is inf/nan
        scaler.update()                 # S shrinks after a skipped step, grows after a clean run

The scale :math:`S` starts at ``init_scale``; after a step with an inf or nan gradient it is
multiplied by ``backoff_factor`` (and the step skipped), after ``growth_interval`` clean steps
in a row by ``growth_factor``. As in PyTorch, a scaler for ``"cuda"`` on a machine without a
GPU warns and passes everything through unchanged.
"""

from __future__ import annotations

import enum
import math
import warnings
from typing import Any, Iterable, Optional, Union

from ..autograd.grad_mode import no_grad
from ..cuda import is_available as cuda_is_available
from ..tensor import Tensor

#: how PyTorch tells a script to call ``scale`` first
_SCALE_FIRST = ("This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration.")


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf": None}


class GradScaler:
    """Scales the loss up before ``backward`` and the gradients back down before the step."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not cuda_is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale: Optional[float] = None  # set by the first scale()
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._per_optimizer_states: dict[int, dict[str, Any]] = {}

    # ---- scaling ----

    def scale(self, outputs: Union[Tensor, Iterable[Any]]) -> Any:
        """``outputs`` (a tensor, or nested lists/tuples of them) multiplied by the scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = float(self._init_scale)
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            scaled = [self.scale(value) for value in outputs]
            return type(outputs)(scaled) if isinstance(outputs, tuple) else scaled
        if isinstance(outputs, Iterable):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state_of(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_optimizer_state())

    def _checked_scale(self, action: str) -> float:
        if self._scale is None:
            raise AssertionError(f"Attempted {action} but _scale is None.  {_SCALE_FIRST}")
        return self._scale

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place, and note any inf or nan among them."""
        if not self._enabled:
            return
        scale = self._checked_scale("unscale_")
        state = self._state_of(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = 1.0 / scale  # in float64, as PyTorch computes the reciprocal
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if param.grad.dtype.name == "float16":
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    param.grad.mul_(inverse)
                    found_inf = found_inf or not bool(param.grad.isfinite().all())
        state["found_inf"] = found_inf
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (unless :meth:`unscale_` did) and take ``optimizer.step()`` unless a gradient is inf or nan."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._checked_scale("step")
        state = self._state_of(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale: Optional[Union[float, Tensor]] = None) -> None:
        """Shrink the scale after a skipped step, grow it after ``growth_interval`` clean ones (or set ``new_scale``)."""
        if not self._enabled:
            return
        scale = self._checked_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.numel() != 1:
                    raise AssertionError("new_scale should be a single-element tensor.")
                if new_scale.requires_grad:
                    raise AssertionError("new_scale should not require grad.")
                new_scale = float(new_scale.item())
            self._scale = float(new_scale)
        else:
            checked = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            if not checked:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(checked):
                self._scale = scale * self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale = scale * self._growth_factor
                    self._growth_tracker = 0
        self._per_optimizer_states = {}

    # ---- the settings ----

    def get_scale(self) -> float:
        """The current scale (``init_scale`` before the first :meth:`scale`; 1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        return self._growth_tracker if self._enabled else 0

    def is_enabled(self) -> bool:
        return self._enabled

    # ---- checkpoints ----

    def state_dict(self) -> dict[str, Any]:
        """The scale and its schedule, as PyTorch's keys (empty when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            raise RuntimeError("Attempted to load_state_dict on a disabled GradScaler.")
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."
            )
        scale = float(state_dict["scale"])
        if not math.isfinite(scale) or scale <= 0:
            raise ValueError(f"GradScaler: the saved scale must be a positive finite number, got {scale}")
        self._init_scale = scale
        self._scale = scale if self._scale is not None else None
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
