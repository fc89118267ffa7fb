"""``Measurement``: the times one :class:`Timer` run took, their statistics and PyTorch's printed summary."""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from .order_statistics import mean, population_std, quantile
from .task_spec import TaskSpec
from .units import select_unit

#: Compare shows at most this many significant figures, and never a confidence interval below 25 ns
MAX_SIGNIFICANT_FIGURES = 4
MIN_CONFIDENCE_INTERVAL = 25e-9
#: the z value of a two-sided 90% interval, used for every sample size (a rough estimate)
_Z_90 = 1.645
#: IQR / median above these: "system fluctuation", then "significant environmental influence"
IQR_WARN_THRESHOLD = 0.1
IQR_GROSS_WARN_THRESHOLD = 0.25
#: the repr shows the interquartile range from this many replicates on
_MIN_REPLICATES_FOR_IQR = 4
#: the quartiles
_LOWER_QUARTILE, _MEDIAN, _UPPER_QUARTILE = 0.25, 0.5, 0.75


@dataclass(frozen=True)
class _Summary:
    """The statistics of a measurement's per-run times, computed once."""

    sorted_times: tuple[float, ...]
    median: float
    mean: float
    p25: float
    p75: float

    @property
    def iqr(self) -> float:
        return self.p75 - self.p25


@dataclass(repr=False)
class Measurement:
    """``raw_times[i]`` seconds for ``number_per_run`` runs of ``task_spec``'s statement, per replicate.

    Statistics are of the per-run times (:attr:`times`); ``metadata`` is the user's.
    """

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: Optional[dict[Any, Any]] = None
    _summary: Optional[_Summary] = field(default=None, init=False, compare=False)

    # ---- the task spec's fields, read through ----

    @property
    def stmt(self) -> str:
        return self.task_spec.stmt

    @property
    def setup(self) -> str:
        return self.task_spec.setup

    @property
    def global_setup(self) -> str:
        return self.task_spec.global_setup

    @property
    def label(self) -> Optional[str]:
        return self.task_spec.label

    @property
    def sub_label(self) -> Optional[str]:
        return self.task_spec.sub_label

    @property
    def description(self) -> Optional[str]:
        return self.task_spec.description

    @property
    def env(self) -> Optional[str]:
        """The task spec's ``env``, None when unset (what PyTorch's ``Measurement.env`` returns)."""
        return self.task_spec.env

    @property
    def num_threads(self) -> int:
        return self.task_spec.num_threads

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def as_row_name(self) -> str:
        """The name of this measurement's row in :class:`Compare`: the sub-label, else the statement."""
        return self.sub_label or self.stmt or "[Unknown]"

    # ---- statistics ----

    @property
    def times(self) -> list[float]:
        """Seconds per run of the statement, one per replicate."""
        return [t / self.number_per_run for t in self.raw_times]

    def _stats(self) -> _Summary:
        if self._summary is None:
            if not self.raw_times:
                raise ValueError(f"Measurement of {self.title!r} has no raw_times: its statistics need at least one")
            ordered = tuple(sorted(self.times))
            self._summary = _Summary(
                sorted_times=ordered, median=quantile(ordered, _MEDIAN), mean=mean(ordered),
                p25=quantile(ordered, _LOWER_QUARTILE), p75=quantile(ordered, _UPPER_QUARTILE),
            )
        return self._summary

    @property
    def median(self) -> float:
        return self._stats().median

    @property
    def mean(self) -> float:
        return self._stats().mean

    @property
    def iqr(self) -> float:
        """The interquartile range (linear quantiles) of :attr:`times`."""
        return self._stats().iqr

    @property
    def significant_figures(self) -> int:
        """How many figures of the median to trust (1 to 4): the median over a 90% confidence interval
        of the middle half of the times, in decades."""
        times = self._stats().sorted_times
        middle = times[len(times) // 4 : math.ceil(3 * len(times) / 4)]
        interval = max(_Z_90 * population_std(middle) / math.sqrt(len(middle)), MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(math.log10(self.median / interval))
        return min(max(figures, 1), MAX_SIGNIFICANT_FIGURES)

    def meets_confidence(self, threshold: float = IQR_WARN_THRESHOLD) -> bool:
        """Whether IQR / median is below ``threshold``."""
        return self.iqr / self.median < threshold

    def _warning_lines(self) -> tuple[str, ...]:
        """The printed warnings about a wide spread of times (none, or one of two lines of text)."""
        if self.meets_confidence(IQR_WARN_THRESHOLD):
            return ()
        cause = (
            "This suggests significant environmental influence." if not self.meets_confidence(IQR_GROSS_WARN_THRESHOLD)
            else "This could indicate system fluctuation."
        )
        relative_iqr = self.iqr / self.median * 100
        return (f"  WARNING: Interquartile range is {relative_iqr:.1f}% of the median measurement.\n"
                f"           {cause}",)

    @property
    def has_warnings(self) -> bool:
        return bool(self._warning_lines())

    def __repr__(self) -> str:
        """PyTorch's layout: the object, the task spec's summary, the median, the IQR (4+ replicates),
        the counts, the warnings."""
        summary = self._stats()
        replicates = len(summary.sorted_times)
        unit, scale = select_unit(summary.median)
        several = replicates > 1
        lines = [object.__repr__(self), self.task_spec.summarize()]
        lines.append(f"  {'Median: ' if several else ''}{summary.median / scale:.2f} {unit}")
        if replicates >= _MIN_REPLICATES_FOR_IQR:
            lines.append(
                f"  IQR:    {summary.iqr / scale:.2f} {unit} ({summary.p25 / scale:.2f} to {summary.p75 / scale:.2f})"
            )
        threads = self.num_threads
        lines.append(
            f"  {replicates} measurement{'s' if several else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if several else ','} {threads} thread{'s' if threads > 1 else ''}"
        )
        lines.append("\n".join(self._warning_lines()))
        return "\n".join("\n".join(lines).strip().splitlines())

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """One measurement per distinct task spec, of all their per-run times (``number_per_run=1``, no metadata)."""
        times_of: dict[TaskSpec, list[float]] = collections.defaultdict(list)
        for measurement in measurements:
            times_of[measurement.task_spec].extend(measurement.times)
        return [Measurement(number_per_run=1, raw_times=times, task_spec=spec) for spec, times in times_of.items()]
