r"""L-BFGS: a quasi-Newton method that steps along :math:`-H g`, with :math:`H` an estimate of the
inverse Hessian built from the last ``history_size`` changes of parameters and gradients.

With :math:`s_k = x_{k+1} - x_k`, :math:`y_k = g_{k+1} - g_k` and :math:`\rho_k = 1 / y_k^\top s_k`,
the two-loop recursion computes :math:`d = -H g` without forming :math:`H`:

.. math::
    q \leftarrow -g;\quad \alpha_i = \rho_i s_i^\top q,\; q \leftarrow q - \alpha_i y_i
    \ (\text{newest first});\quad r \leftarrow \gamma q;\quad
    \beta_i = \rho_i y_i^\top r,\; r \leftarrow r + (\alpha_i - \beta_i) s_i \ (\text{oldest first})

where :math:`\gamma = y^\top s / y^\top y` of the newest pair. A pair is kept only when
:math:`y^\top s > 10^{-10}` (positive curvature). Each :meth:`LBFGS.step` runs up to
``max_iter`` iterations, re-evaluating the loss through its ``closure``, with a fixed step
``lr`` or the strong-Wolfe line search.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

from ..autograd.grad_mode import enable_grad, no_grad
from ..creation import cat, zeros
from ..tensor import Tensor
from .line_search import strong_wolfe
from .optimizer import Optimizer, ParamsT

#: a (y, s) pair with less curvature than this is left out of the history
MIN_CURVATURE = 1e-10
#: max_eval defaults to 5/4 of max_iter
EVALS_PER_ITER = (5, 4)


class LBFGS(Optimizer):
    """Limited-memory BFGS over one group of parameters; ``step(closure)`` needs the closure."""

    def __init__(self, params: ParamsT, lr: Union[float, Tensor] = 1, max_iter: int = 20,
                 max_eval: Optional[int] = None, tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn: Optional[str] = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * EVALS_PER_ITER[0] // EVALS_PER_ITER[1]
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]

    # ---- the parameters as one flat vector ----

    def _flat_grad(self) -> Tensor:
        return cat([zeros(p.numel(), dtype=p.dtype, device=p.device) if p.grad is None else p.grad.reshape(-1)
                    for p in self._params], 0)

    def _add(self, step: float, direction: Tensor) -> None:
        """``params += step * direction``, the flat ``direction`` cut into each parameter's shape."""
        offset = 0
        for p in self._params:
            p.add_(direction[offset:offset + p.numel()].view(p.shape), alpha=step)
            offset += p.numel()

    def _evaluate_at(self, closure: Callable[[], Any], origin: list[Tensor], step: float,
                     direction: Tensor) -> tuple[float, Tensor]:
        """Loss and flat gradient at ``origin + step * direction``; the parameters are put back after."""
        self._add(step, direction)
        loss = float(closure())
        grad = self._flat_grad()
        for p, saved in zip(self._params, origin):
            p.copy_(saved)
        return loss, grad

    # ---- the step ----

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Up to ``max_iter`` L-BFGS iterations; returns the loss ``closure()`` gave at the start."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr = group["lr"].item() if isinstance(group["lr"], Tensor) else group["lr"]  # an int lr stays an int, as PyTorch's
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search_fn = group["history_size"], group["line_search_fn"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        def evaluate() -> Any:
            with enable_grad():
                return closure()

        first_loss = evaluate()
        loss = float(first_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if float(flat_grad.abs().max().item()) <= tolerance_grad:
            return first_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")
        iteration = 0
        while iteration < max_iter:
            iteration += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:  # the very first direction: steepest descent
                d = flat_grad.neg()
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)  # 0-d tensors of the parameters' dtype from here on, as PyTorch's state
                if ys > MIN_CURVATURE:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                d = self._two_loop(flat_grad, old_dirs, old_stps, ro, h_diag, state, history_size)
            prev_flat_grad = flat_grad.clone()
            prev_loss = loss
            # the first step is scaled by the gradient's 1-norm (a tensor when that scale is below 1)
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            slope = flat_grad.dot(d)
            if slope > -tolerance_change:  # not a descent direction any more
                break

            used = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                origin = [p.clone() for p in self._params]
                loss, flat_grad, t, used = strong_wolfe(
                    lambda step: self._evaluate_at(evaluate, origin, step, d), float(t) if isinstance(t, Tensor) else t,
                    d, loss, flat_grad,
                    float(slope), max_ls=max_eval - evals)
                self._add(t, d)
                optimal = float(flat_grad.abs().max().item()) <= tolerance_grad
            else:
                self._add(t, d)
                optimal = False
                if iteration != max_iter:  # the last iteration's loss is the next step's first evaluation
                    loss = float(evaluate())
                    flat_grad = self._flat_grad()
                    optimal = float(flat_grad.abs().max().item()) <= tolerance_grad
                    used = 1
            evals += used
            state["func_evals"] += used

            if iteration == max_iter or evals >= max_eval or optimal:
                break
            if float((d * t).abs().max().item()) <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        state.update({"d": d, "t": t, "old_dirs": old_dirs, "old_stps": old_stps, "ro": ro, "H_diag": h_diag,
                      "prev_flat_grad": prev_flat_grad, "prev_loss": prev_loss})
        return first_loss

    @staticmethod
    def _two_loop(flat_grad: Tensor, old_dirs: list[Tensor], old_stps: list[Tensor], ro: list[Tensor],
                  h_diag: Union[int, Tensor], state: dict[str, Any], history_size: int) -> Tensor:
        r""":math:`-H g` by the two-loop recursion over the stored pairs; :math:`\rho_i`, :math:`\alpha_i`
        and :math:`\gamma` are 0-d tensors, so a float32 model's history is computed in float32."""
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-al[i])
        r = q * h_diag
        for i in range(len(old_dirs)):
            beta = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=al[i] - beta)
        return r


__all__ = ["LBFGS"]
