r"""The strong-Wolfe line search of :class:`~minitorch.optim.LBFGS` (as in PyTorch and minFunc).

Along a descent direction :math:`d` from :math:`x` with loss :math:`f` and slope
:math:`f'(0) = g^\top d < 0`, it looks for a step :math:`t` that lowers the loss enough and
flattens the slope enough (the strong Wolfe conditions, with :math:`0 < c_1 < c_2 < 1`):

.. math:: f(x + t d) \le f(x) + c_1 t\, g^\top d, \qquad |\nabla f(x + t d)^\top d| \le c_2\, |g^\top d|

First it grows :math:`t` until an interval is known to hold such a step (bracketing), then
it shrinks that interval (zooming). Each new trial step is the minimum of the cubic that
matches the losses and slopes at the interval's two ends.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

from ..tensor import Tensor

#: sufficient decrease (c1) and curvature (c2) constants of the Wolfe conditions
SUFFICIENT_DECREASE = 1e-4
CURVATURE = 0.9
#: the bracketing phase grows the step by at least 1% and at most 10 times each trial
MIN_GROWTH, MAX_GROWTH = 0.01, 10.0
#: a zoom trial closer than this fraction of the interval to an end is pushed inwards
ZOOM_MARGIN = 0.1

Evaluate = Callable[[float], tuple[float, Tensor]]


@dataclass
class Trial:
    """One evaluated step: its size, loss, flat gradient and slope along the direction."""

    t: float
    f: float
    g: Tensor
    slope: Optional[float]


def cubic_minimum(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                  bounds: Optional[tuple[float, float]] = None) -> float:
    r"""The minimiser, clamped to ``bounds`` (default: between the points), of the cubic through
    :math:`(x_1, f_1)` and :math:`(x_2, f_2)` with slopes :math:`g_1, g_2`; the middle of the
    bounds when the cubic has no minimum."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(d2_square)
    if x1 <= x2:
        minimum = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        minimum = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(minimum, low), high)


def strong_wolfe(evaluate: Evaluate, t: float, d: Tensor, f: float, g: Tensor, slope: float,
                 c1: float = SUFFICIENT_DECREASE, c2: float = CURVATURE, tolerance_change: float = 1e-9,
                 max_ls: int = 25) -> tuple[float, Tensor, float, int]:
    """Search along ``d`` from step ``t``; ``evaluate(t)`` gives the loss and flat gradient at
    ``x + t d``. Returns the loss, gradient and size of the step found, and the evaluations used."""
    d_norm = float(d.abs().max().item())
    start = Trial(0.0, f, g.clone(), slope)

    def probe(step: float) -> Trial:
        loss, grad = evaluate(step)
        return Trial(step, loss, grad, float(grad.dot(d).item()))

    def too_high(trial: Trial) -> bool:  # not a sufficient decrease
        return trial.f > f + c1 * trial.t * slope

    def flat(trial: Trial) -> bool:
        return abs(trial.slope) <= -c2 * slope

    # bracketing: grow the step until [previous, current] holds a Wolfe step
    previous, current = start, probe(t)
    evals, trials = 1, 0
    bracket: list[Trial] = []
    done = False
    while trials < max_ls:
        if too_high(current) or (trials > 1 and current.f >= previous.f):
            bracket = [previous, current]
            break
        if flat(current):
            bracket, done = [current], True
            break
        if current.slope >= 0:
            bracket = [previous, current]
            break
        grown = cubic_minimum(previous.t, previous.f, previous.slope, current.t, current.f, current.slope,
                              bounds=(current.t + MIN_GROWTH * (current.t - previous.t), current.t * MAX_GROWTH))
        previous, current = current, probe(grown)
        evals += 1
        trials += 1
    if trials == max_ls:  # out of evaluations: the better of the start and the last trial
        bracket = [start, current]

    # zooming: shrink the bracket around a Wolfe step
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    insufficient_progress = False
    while not done and trials < max_ls:
        if abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change:
            break
        step = cubic_minimum(bracket[0].t, bracket[0].f, bracket[0].slope, bracket[1].t, bracket[1].f,
                             bracket[1].slope)
        left, right = min(bracket[0].t, bracket[1].t), max(bracket[0].t, bracket[1].t)
        margin = ZOOM_MARGIN * (right - left)
        if min(right - step, step - left) < margin:
            if insufficient_progress or step >= right or step <= left:
                step = right - margin if abs(step - right) < abs(step - left) else left + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        trial = probe(step)
        evals += 1
        trials += 1
        if too_high(trial) or trial.f >= bracket[low].f:
            bracket[high] = trial
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if flat(trial):
                done = True
            elif trial.slope * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = trial
    best = bracket[low]
    return best.f, best.g, best.t, evals


__all__ = ["cubic_minimum", "strong_wolfe"]
