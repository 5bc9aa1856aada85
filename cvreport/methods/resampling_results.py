"""The result types of the paired bootstrap and permutation tests.

:mod:`cvreport.methods.resampling` computes them; they hold the resampled
distribution, so an interval at any level (BCa or percentile, Efron 1987) is
read from it without resampling again.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from scipy import special

from cvreport.data.design import DesignKind
from cvreport.data.metrics import reader_name
from cvreport.results import TestResult
from cvreport.summary_data import SummaryRow

__all__ = ["BootstrapTestResult", "PermutationTestResult"]


class _OneOrManyTestSets:
    """The estimate's words: a mean over folds or splits, or one value on one test set."""

    design_kind: DesignKind | None

    @property
    def _estimate_words(self) -> str:
        # one hold-out set (or arrays of one set of records) gives one value, not a mean
        one_set = self.design_kind is None or self.design_kind == DesignKind.HOLDOUT
        return "" if one_set else "mean "


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class BootstrapTestResult(_OneOrManyTestSets, TestResult):
    """Result of the paired bootstrap: ``estimate`` is metric(A) − metric(B).

    Attributes
    ----------
    metric_a, metric_b : float
        The metric of each model (mean over folds within a CV design).
    standard_error : float
        Standard deviation of the bootstrap distribution.
    n_resamples : int
    seed : str
        Which random draws were made, in words: ``"seed 0"``, or ``"unseeded: ..."``
        when no ``random_state`` was given (another run then gives another p-value).
    interval_method : {"BCa", "percentile"}
    units : str
        What was resampled: ``"records"`` or ``"clusters"``.
    n_units : int
    bias_correction, acceleration : float
        BCa's ``z0`` and ``a`` (NaN for the percentile interval).
    bootstrap_distribution : numpy.ndarray
        The resampled differences δ*.
    """

    metric_a: float = math.nan
    metric_b: float = math.nan
    standard_error: float = math.nan
    n_resamples: int = 0
    seed: str = ""
    interval_method: str = "BCa"
    units: str = "records"
    n_units: int = 0
    bias_correction: float = math.nan
    acceleration: float = math.nan
    bootstrap_distribution: np.ndarray = dataclasses.field(
        default_factory=lambda: np.empty(0), compare=False
    )
    distribution: str = "bootstrap"

    def _conf_int(self, alpha: float) -> tuple[float, float] | None:
        dist = self.bootstrap_distribution
        if dist.size == 0:
            return None
        tail = alpha / 2.0 if self.alternative == "two-sided" else alpha
        if self.interval_method == "BCa":
            z0, a = self.bias_correction, self.acceleration
            levels = []
            for z_alpha in (float(special.ndtri(tail)), -float(special.ndtri(tail))):
                num = z0 + z_alpha
                levels.append(float(special.ndtr(z0 + num / (1.0 - a * num))))
        else:
            levels = [tail, 1.0 - tail]
        if any(math.isnan(level) for level in levels):
            return None
        low, high = (float(v) for v in np.quantile(dist, levels))
        if self.alternative == "less":
            low = -math.inf
        elif self.alternative == "greater":
            high = math.inf
        return low, high

    def _extra_rows(self) -> list[SummaryRow]:
        extra = [
            SummaryRow(f"{reader_name(self.loss_name)} of A", self.metric_a, "number"),
            SummaryRow(f"{reader_name(self.loss_name)} of B", self.metric_b, "number"),
            SummaryRow("bootstrap standard error", self.standard_error, "number"),
            SummaryRow("interval", self.interval_method, "text"),
            SummaryRow("resamples", self.n_resamples, "value"),
            SummaryRow("random draws", self.seed or None, "text"),
            SummaryRow(f"{self.units} resampled", self.n_units, "value"),
        ]
        return [row for row in extra if row.value is not None]

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        return super()._frame_row(alpha) | {"n_resamples": self.n_resamples, "seed": self.seed}


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class PermutationTestResult(_OneOrManyTestSets, TestResult):
    """Result of the paired permutation test: ``estimate`` is metric(A) − metric(B).

    Attributes
    ----------
    metric_a, metric_b : float
    n_resamples : int
    seed : str
        Which random swaps were drawn, in words (see :class:`BootstrapTestResult`), or
        that every swap pattern was enumerated.
    units : str
        What was swapped between the models: ``"records"`` or ``"clusters"``.
    n_units : int
    null_distribution : numpy.ndarray
        δ under the random swaps.
    """

    metric_a: float = math.nan
    metric_b: float = math.nan
    n_resamples: int = 0
    seed: str = ""
    units: str = "records"
    n_units: int = 0
    null_distribution: np.ndarray = dataclasses.field(
        default_factory=lambda: np.empty(0), compare=False
    )
    distribution: str = "permutation"

    def _extra_rows(self) -> list[SummaryRow]:
        extra = [
            SummaryRow(f"{reader_name(self.loss_name)} of A", self.metric_a, "number"),
            SummaryRow(f"{reader_name(self.loss_name)} of B", self.metric_b, "number"),
            SummaryRow("random swaps", self.n_resamples, "value"),
            SummaryRow("random draws", self.seed or None, "text"),
            SummaryRow(f"{self.units} swapped", self.n_units, "value"),
        ]
        return [row for row in extra if row.value is not None]

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        return super()._frame_row(alpha) | {"n_resamples": self.n_resamples, "seed": self.seed}
