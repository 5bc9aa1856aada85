"""The (m, 2) split differences every m×2 test reads (docs/methods.md).

Row i is replication i, column j fold j, value ``p_i^(j)`` = loss of A − loss of B;
"first" replication and fold are the smallest labels in sorted order. This module
checks and extracts them, computes the split variances s_i² shared by the m×2
statistics, and holds the result classes of the m×2 t tests with their table of
differences.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
import pandas as pd

from cvreport.errors import DataError, describe_keys
from cvreport.methods._common import (
    as_array,
    finish_result,
    partition_balance,
    zero_spread,
)
from cvreport.methods.spec import TestSpec, fold_grid_design, mx2_differences
from cvreport.option_values import check_alpha
from cvreport.results import TestResult, TTestResult, level_text
from cvreport.summary_data import SummaryRow, SummaryTable

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

R = TypeVar("R", bound=TestResult)

__all__ = [
    "MX2_REQUIREMENT",
    "Mx2TTestResult",
    "PairedTTest5x2cvResult",
    "SplitDifferences",
    "as_tuples",
    "balance_warning",
    "check_differences",
    "check_kernel_shape",
    "extension_note",
    "finish_balanced",
    "labels_or_positions",
    "mx2_fields",
    "mx2_prepare",
    "mx2_spec",
    "split_variances",
]


MX2_REQUIREMENT = "an m×2 design (m replications of 2-fold cross-validation, e.g. 5×2)"


def split_variances(differences: Any) -> np.ndarray:
    """Per-replication variances s_i² = Σ_j (p_i^(j) − p̄_i)² = (p_i^(1) − p_i^(2))² / 2.

    ``differences`` has shape ``(..., m, 2)``; the result ``(..., m)``. Exactly 0
    when the two folds of a replication agree, up to rounding (:func:`zero_spread`).

    >>> split_variances([[0.02, -0.01], [0.03, 0.0]]).round(6).tolist()
    [0.00045, 0.00045]
    >>> split_variances([[0.8 - 0.7, 0.5 - 0.4]]).tolist()
    [0.0]
    """
    d = check_kernel_shape(differences)
    return np.where(zero_spread(d), 0.0, (d[..., 0] - d[..., 1]) ** 2 / 2.0)


def check_kernel_shape(differences: Any) -> np.ndarray:
    """The differences as a float array of shape ``(..., m, 2)``, or a :class:`DataError`."""
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim < 2 or d.shape[-1] != 2 or d.shape[-2] < 1:
        raise DataError(
            f"m×2 differences must have shape (..., m, 2) (rows = replications, columns = "
            f"the two folds), got {d.shape}"
        )
    return d


def labels_or_positions(values: Any, count: int) -> tuple[str, ...]:
    if values is None:
        return tuple(str(i + 1) for i in range(count))
    return tuple(str(v) for v in values)


def check_differences(differences: Any) -> np.ndarray:
    d = as_array(differences, "differences")
    if d.ndim == 1 and d.size % 2 == 0 and d.size >= 2:
        d = d.reshape(-1, 2)
    if d.ndim != 2 or d.shape[1] != 2:
        raise DataError(
            "differences must be an (m, 2) array (rows = replications, columns = the two "
            f"folds; a flat vector of 2m values is read row by row), got shape {d.shape}"
        )
    return d


def as_tuples(array: np.ndarray) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(x) for x in row) for row in array)


def mx2_fields(d: np.ndarray, replications: Any, folds: Any) -> dict[str, Any]:
    m = d.shape[0]
    return {
        "estimate": float(d.mean()),
        "nobs": 2 * m,
        "design": f"{m}×2 cross-validation (differences given directly)",
        "differences": as_tuples(d),
        "replication_labels": labels_or_positions(replications, m),
        "fold_labels": labels_or_positions(folds, 2),
    }


def extension_note(m: int, test: str, distribution: str) -> tuple[str, ...]:
    """The note of a test defined for 5×2 run on m×2 with m ≠ 5 (none when m = 5)."""
    if m == 5:
        return ()
    return (f"extension: {test} is defined for 5×2; with m = {m}, {distribution}.",)


def mx2_spec(**facts: Any) -> TestSpec:
    """The spec of an m×2 test: run on m×2 designs, accepted on any two-fold design.

    By default it reads the (m, 2) split differences with their labels
    (:func:`mx2_prepare`, :func:`check_differences` for arrays) and states
    :data:`MX2_REQUIREMENT`; ``facts`` give the rest and may replace those.
    """
    defaults: dict[str, Any] = {
        "requirement": MX2_REQUIREMENT,
        "inputs": mx2_differences,
        "prepare": mx2_prepare,
        "check_inputs": check_differences,
        "array_design": fold_grid_design,
    }
    return TestSpec(designs=("mx2",), accepts=lambda design: design.is_mx2, **(defaults | facts))


def mx2_prepare(
    spec: TestSpec, table: ResultsTable, pair: Any, stats: Any, options: dict[str, Any]
) -> tuple[tuple[np.ndarray], dict[str, Any]]:
    """The (m, 2) differences of the pair with the table's replication and fold labels.

    The differences are those the simulator reads (:func:`~cvreport.methods.spec.mx2_differences`
    of the pair's per-fold statistics); a missing one is a :class:`DataError` naming it.
    """
    (d,) = mx2_differences(stats)
    replications, folds = tuple(table.replications), tuple(table.folds)
    if not np.all(np.isfinite(d)):
        missing = [
            (replications[i], folds[j]) for i, j in zip(*np.nonzero(~np.isfinite(d)), strict=True)
        ]
        raise DataError(
            f"{spec.name} needs a loss difference on both folds of every replication; missing "
            f"(replication, fold): {describe_keys(missing)}"
        )
    return (np.asarray(d, dtype=np.float64),), {
        **options,
        "replications": replications,
        "folds": folds,
    }


#: What Dietterich's 5×2cv t inverts its interval about (Dietterich 1998).
FIRST_SPLIT = "p₁⁽¹⁾, the difference on the first fold of the first replication"


def balance_warning(table: ResultsTable, test: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(warnings, notes) about partition balance for tests derived for balanced partitions."""
    balanced, message = partition_balance(table)
    if balanced is False:
        return (f"{test}: {message}",), ()
    if balanced is None:
        return (), (message,)
    return (), ()


def finish_balanced(
    result: R,
    table: ResultsTable,
    pair: tuple[Any, Any],
    partition_warnings: tuple[str, ...],
    partition_notes: tuple[str, ...],
    *,
    nobs: int | None = None,
) -> R:
    """The table's result saying whether its partitions were found balanced (None: unseen)."""
    result = finish_result(
        result,
        table,
        pair,
        nobs=nobs,
        extra_warnings=partition_warnings,
        extra_notes=partition_notes,
    )
    balanced = None if partition_notes else not partition_warnings
    return dataclasses.replace(result, balanced=balanced)


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class SplitDifferences:
    """The fields and summary table every m×2 result shares (mixed into its result class).

    Attributes
    ----------
    differences : tuple of tuple of float
        The (m, 2) split differences, rows = replications in sorted order.
    replication_labels, fold_labels : tuple of str
        Labels of the rows and columns of ``differences``.
    """

    differences: tuple[tuple[float, ...], ...] = ()
    replication_labels: tuple[str, ...] = ()
    fold_labels: tuple[str, ...] = ()
    if TYPE_CHECKING:  # from the result class it is mixed into
        loss_name: str

    def _summary_tables(self, alpha: float = 0.05) -> list[SummaryTable]:
        if not self.differences:
            return []
        rows = tuple(
            (rep, fold, float(value))
            for rep, row in zip(self.replication_labels, self.differences)
            for fold, value in zip(self.fold_labels, row)
        )
        return [
            SummaryTable(
                caption=f"Split differences p_i^(j) (mean {self.loss_name} A − B per fold)",
                columns=("replication", "fold", "difference"),
                rows=rows,
                kinds=("text", "text", "number"),
            )
        ]


@dataclass(frozen=True, kw_only=True, repr=False)
class Mx2TTestResult(SplitDifferences, TTestResult):
    """A t test on an m×2 design (blocked 3×2cv t, Yıldız's combined t)."""

    _signed_fields: ClassVar[tuple[str, ...]] = ("estimate", "center", "differences")


@dataclass(frozen=True, kw_only=True, repr=False)
class PairedTTest5x2cvResult(Mx2TTestResult):
    """Dietterich's 5×2cv paired t and the 2m statistics with every possible numerator.

    ``statistic`` uses the first fold of the first replication (smallest labels).
    :meth:`conf_int` is p_1^(1) ± t_m quantile × sqrt(Σ s_i² / m) — the interval
    the test inverts, centred on the first split difference ``center``, not on
    ``estimate`` (the mean of the 2m differences). The summary therefore shows
    the interval beside p_1^(1), and :meth:`to_frame` leaves ``ci_low``/``ci_high``
    (the interval of ``estimate``) empty and gives p_1^(1) and its interval in
    ``first_split_difference``, ``first_split_ci_low`` and ``first_split_ci_high``
    (Dietterich 1998).

    Attributes
    ----------
    alternative_statistics : tuple of tuple of float
        t_i^(j) = p_i^(j) / sqrt(Σ s_i² / m), shape (m, 2) (Alpaydın (1999) eq. 2.2).
    alternative_pvalues : tuple of tuple of float
        Their p-values under ``alternative``.
    rejections : int
        How many of the 2m statistics reject at α = 0.05 (:meth:`count_rejections` for others).

    Examples
    --------
    >>> from cvreport import arrays
    >>> res = arrays.paired_ttest_5x2cv([[0.02, 0.01], [0.03, 0.0], [0.01, 0.02],
    ...                                  [0.02, 0.03], [0.0, 0.01]])
    >>> row = res.to_frame().iloc[0]
    >>> round(float(row["estimate"]), 4), round(float(row["first_split_difference"]), 4)
    (0.015, 0.02)
    >>> bool(row["first_split_ci_low"] < 0.02 < row["first_split_ci_high"])
    True
    """

    alternative_statistics: tuple[tuple[float, ...], ...] = ()
    alternative_pvalues: tuple[tuple[float, ...], ...] = ()
    rejections: int = 0

    interval_about: ClassVar[str | None] = FIRST_SPLIT
    _signed_fields: ClassVar[tuple[str, ...]] = (
        "estimate",
        "center",
        "differences",
        "alternative_statistics",
    )

    def count_rejections(self, alpha: float = 0.05) -> int:
        """How many of the 2m alternative statistics reject H0 at level ``alpha``."""
        return int(np.sum(np.asarray(self.alternative_pvalues) <= check_alpha(alpha)))

    def _interval_rows(self, alpha: float) -> list[SummaryRow]:
        """p_1^(1), then its interval: the interval the test inverts is about p_1^(1)."""
        level = level_text(self.interval_level(alpha))
        return [
            SummaryRow("p₁⁽¹⁾ (A − B on the first split)", self.center, "number"),
            SummaryRow(f"{level} interval of p₁⁽¹⁾", self.conf_int(alpha), "value"),
        ]

    def to_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """The shared row (no interval of the mean), then p_1^(1) with its interval."""
        frame = super().to_frame(alpha)
        low, high = self.conf_int(alpha) if self.has_conf_int else (math.nan, math.nan)
        frame["first_split_difference"] = self.center
        frame["first_split_ci_low"] = low
        frame["first_split_ci_high"] = high
        return frame

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        rows = super()._summary_rows(alpha)
        total = len(self.alternative_statistics) * 2
        rows.append(
            SummaryRow(
                f"alternative numerators rejecting at α = {alpha:g}",
                f"{self.count_rejections(alpha)} of {total}",
                "text",
            )
        )
        return rows

    def _summary_tables(self, alpha: float = 0.05) -> list[SummaryTable]:
        rows = tuple(
            (rep, fold, float(d), float(t), float(p), bool(p <= alpha))
            for rep, d_row, t_row, p_row in zip(
                self.replication_labels,
                self.differences,
                self.alternative_statistics,
                self.alternative_pvalues,
            )
            for fold, d, t, p in zip(self.fold_labels, d_row, t_row, p_row)
        )
        return [
            SummaryTable(
                caption="All 2m statistics t_i^(j) = p_i^(j) / sqrt(Σ s_i² / m)",
                columns=(
                    "replication",
                    "fold",
                    "difference",
                    "t",
                    "p-value",
                    f"reject at α = {alpha:g}",
                ),
                rows=rows,
                kinds=("text", "text", "number", "number", "pvalue", "value"),
            )
        ]
