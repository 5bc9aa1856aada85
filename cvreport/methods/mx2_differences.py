"""The (m, 2) split differences every m×2 test reads (docs/methods.md).

Row i is replication i, column j fold j, value ``p_i^(j)`` = loss of A − loss of B;
"first" replication and fold are the smallest labels in sorted order. This module
checks and extracts them, computes the split variances s_i² shared by the m×2
statistics, and renders them as the result's table of differences.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cvreport.errors import DataError, describe_keys
from cvreport.methods._common import (
    as_array,
    pair_statistics,
    partition_balance,
    zero_spread,
)

if TYPE_CHECKING:
    from cvreport.data.table import Design, ResultsTable
    from cvreport.methods.spec import TestSpec
    from cvreport.rendering.summary import SummaryTable

__all__ = [
    "MX2_REQUIREMENT",
    "as_tuples",
    "balance_warning",
    "check_differences",
    "check_kernel_shape",
    "difference_tables",
    "labels_or_positions",
    "mx2_fields",
    "split_variances",
    "table_mx2_differences",
    "two_folds",
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
    d = np.asarray(differences, dtype=np.float64)
    check_kernel_shape(d)
    return np.where(zero_spread(d), 0.0, (d[..., 0] - d[..., 1]) ** 2 / 2.0)


def check_kernel_shape(d: np.ndarray) -> None:
    if d.ndim < 2 or d.shape[-1] != 2 or d.shape[-2] < 1:
        raise DataError(
            f"m×2 differences must have shape (..., m, 2) (rows = replications, columns = "
            f"the two folds), got {d.shape}"
        )


def labels_or_positions(values: Any, count: int) -> tuple[str, ...]:
    if values is None:
        return tuple(str(i + 1) for i in range(count))
    return tuple(str(v) for v in values)


def difference_tables(self: Any) -> list[SummaryTable]:
    from cvreport.rendering.summary import SummaryTable

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


def two_folds(design: Design) -> bool:
    """Whether a design has two folds per replication: what every m×2 test accepts."""
    return design.is_mx2


def table_mx2_differences(
    table: ResultsTable, a: Any, b: Any, spec: TestSpec
) -> tuple[np.ndarray, tuple[Any, Any], tuple[Any, ...], tuple[Any, ...]]:
    """The (m, 2) differences of models ``a`` and ``b`` with their labels, once the design fits.

    The differences are the spec's ``inputs`` of the pair's per-fold statistics, as
    the simulator reads them.
    """
    spec.check_design(table)
    pair, statistics = pair_statistics(table, a, b)
    assert spec.inputs is not None
    (d,) = spec.inputs(statistics)
    replications, folds = tuple(table.replications), tuple(table.folds)
    if not np.all(np.isfinite(d)):
        missing = [
            (replications[i], folds[j]) for i, j in zip(*np.nonzero(~np.isfinite(d)), strict=True)
        ]
        raise DataError(
            f"{spec.name} needs a loss difference on both folds of every replication; missing "
            f"(replication, fold): {describe_keys(missing)}"
        )
    return np.asarray(d, dtype=np.float64), pair, replications, folds


def balance_warning(table: ResultsTable, test: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(warnings, notes) about partition balance for tests derived for balanced partitions."""
    balanced, message = partition_balance(table)
    if balanced is False:
        return (f"{test}: {message}",), ()
    if balanced is None:
        return (), (message,)
    return (), ()
