"""Tests on m×2 designs: m replications of 2-fold cross-validation (docs/methods.md).

* Dietterich's 5×2cv paired t, with all 2m alternative numerators (Alpaydın's Table 1);
* Alpaydın's combined 5×2cv F ~ F(2m, m);
* the calibrated balanced 5×2cv F of Wang, Li and Li ~ F(f, 5);
* the blocked 3×2cv t of Wang, Wang, Jia and Li ~ t(5) (t(2m − 1) on m×2 BCV);
* Yıldız's combined 5×2cv t ~ t(m).

Every test comes in three layers: a vectorised ``*_kernel`` over arrays of
shape ``(..., m, 2)`` (row i = replication i, column j = fold j, values
``p_i^(j)`` = loss of A − loss of B), an array-level function (re-exported by
:mod:`cvreport.arrays` under the table-level name) and the table-level function.
"First" replication and fold are the smallest labels in sorted order.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from scipy import special

from cvreport.errors import CVReportError, DataError
from cvreport.methods._common import (
    TKernel,
    TTestResult,
    apply_degenerate_pvalue,
    as_array,
    as_table,
    describe_degenerate,
    emit_partition_warnings,
    emit_warnings,
    finish_result,
    partition_balance,
    require_design,
    safe_ratio,
    t_kernel,
    t_pvalue,
    zero_spread,
)
from cvreport.results import TestResult, check_alternative

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable
    from cvreport.rendering.summary import SummaryRow, SummaryTable

__all__ = [
    "CALIBRATED_DF1_PAPER",
    "CalibratedFTest5x2cvResult",
    "FKernel",
    "FTest5x2cvResult",
    "Mx2TTestResult",
    "PairedT5x2Kernel",
    "PairedTTest5x2cvResult",
    "blocked_ttest_3x2cv",
    "blocked_ttest_3x2cv_array",
    "blocked_ttest_3x2cv_kernel",
    "calibrated_df1",
    "calibrated_df1_mean",
    "calibrated_ftest_5x2cv",
    "calibrated_ftest_5x2cv_array",
    "calibrated_ftest_5x2cv_kernel",
    "combined_ftest_5x2cv",
    "combined_ftest_5x2cv_array",
    "combined_ftest_5x2cv_kernel",
    "combined_ttest_5x2cv",
    "combined_ttest_5x2cv_array",
    "combined_ttest_5x2cv_kernel",
    "paired_ttest_5x2cv",
    "paired_ttest_5x2cv_array",
    "paired_ttest_5x2cv_kernel",
    "split_variances",
]

REF_DIETTERICH = (
    "Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised "
    "classification learning algorithms. Neural Computation 10(7):1895–1923; the 2m "
    "alternative numerators: Alpaydın, E. (1999). Neural Computation 11(8):1885–1892, Table 1."
)
REF_ALPAYDIN = (
    "Alpaydın, E. (1999). Combined 5×2 cv F test for comparing supervised classification "
    "learning algorithms. Neural Computation 11(8):1885–1892, eq. 3.1."
)
REF_CALIBRATED = (
    "Wang, Y., Li, J., Li, Y. (2017). Choosing between two classification learning algorithms "
    "based on calibrated balanced 5×2 cross-validated F-test. Neural Processing Letters "
    "46:1–13, eqs. 4–7."
)
REF_BLOCKED = (
    "Wang, Y., Wang, R., Jia, H., Li, J. (2014). Blocked 3×2 cross-validated t-test for "
    "comparing supervised classification learning algorithms. Neural Computation "
    "26(1):208–235."
)
REF_YILDIZ = (
    "Yıldız, O. T. (2013). Omnivariate rule induction using a novel pairwise statistical test. "
    "IEEE Transactions on Knowledge and Data Engineering 25(9):2105–2118."
)

#: The numerator degrees of freedom the calibrated test uses in the paper (6.7551 rounded).
CALIBRATED_DF1_PAPER = 7.0

_MX2_DESIGNS = "an m×2 design (m replications of 2-fold cross-validation, e.g. 5×2)"


# ================================================================ kernels
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
    _check_kernel_shape(d)
    return np.where(zero_spread(d), 0.0, (d[..., 0] - d[..., 1]) ** 2 / 2.0)


def _check_kernel_shape(d: np.ndarray) -> None:
    if d.ndim < 2 or d.shape[-1] != 2 or d.shape[-2] < 1:
        raise DataError(
            f"m×2 differences must have shape (..., m, 2) (rows = replications, columns = "
            f"the two folds), got {d.shape}"
        )


class PairedT5x2Kernel(NamedTuple):
    """Dietterich's t and its 2m alternatives, vectorised over the batch shape.

    ``statistics`` has shape ``(..., m, 2)``: the statistic with numerator
    p_i^(j); ``statistic``/``pvalue`` are element ``[..., 0, 0]``. ``pvalues``
    (same shape as ``statistics``) is computed only when asked for, since it
    costs 2m t-distribution evaluations per element.
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    df: float
    center: np.ndarray
    standard_error: np.ndarray
    degenerate: np.ndarray
    statistics: np.ndarray
    pvalues: np.ndarray | None


def paired_ttest_5x2cv_kernel(
    differences: Any, alternative: str = "two-sided", *, alternatives: bool = False
) -> PairedT5x2Kernel:
    """Dietterich's t = p_1^(1) / sqrt(Σ_i s_i² / m) ~ t(m) over arrays ``(..., m, 2)``.

    ``alternatives=True`` also computes the p-values of the 2m statistics
    t_i^(j) (``statistics`` is always there).

    >>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
    >>> k = paired_ttest_5x2cv_kernel(d)
    >>> round(float(k.statistic), 6), round(float(k.pvalue), 6)
    (0.953463, 0.384142)
    """
    d = np.asarray(differences, dtype=np.float64)
    _check_kernel_shape(d)
    m = d.shape[-2]
    se = np.sqrt(split_variances(d).sum(axis=-1) / m)
    statistics, codes = safe_ratio(d, se[..., None, None])
    first_code = codes[..., 0, 0]
    pvalue = apply_degenerate_pvalue(t_pvalue(statistics[..., 0, 0], m, alternative), first_code)
    pvalues = None
    if alternatives:
        pvalues = apply_degenerate_pvalue(t_pvalue(statistics, m, alternative), codes)
    return PairedT5x2Kernel(
        statistic=statistics[..., 0, 0],
        pvalue=pvalue,
        df=float(m),
        center=d[..., 0, 0],
        standard_error=se,
        degenerate=first_code,
        statistics=statistics,
        pvalues=pvalues,
    )


class FKernel(NamedTuple):
    """An F statistic, its upper-tail p-value, the degrees of freedom and the degenerate code."""

    statistic: np.ndarray
    pvalue: np.ndarray
    df1: float
    df2: float
    degenerate: np.ndarray


def combined_ftest_5x2cv_kernel(differences: Any) -> FKernel:
    """Alpaydın's f = Σ_i Σ_j (p_i^(j))² / (2 Σ_i s_i²) ~ F(2m, m), upper tail.

    >>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
    >>> k = combined_ftest_5x2cv_kernel(d)
    >>> round(float(k.statistic), 6), round(float(k.pvalue), 6), (k.df1, k.df2)
    (0.909091, 0.581985, (10.0, 5.0))
    """
    d = np.asarray(differences, dtype=np.float64)
    _check_kernel_shape(d)
    m = d.shape[-2]
    numerator = (d**2).sum(axis=(-2, -1))
    denominator = 2.0 * split_variances(d).sum(axis=-1)
    f, code = safe_ratio(numerator, denominator)
    pvalue = apply_degenerate_pvalue(special.fdtrc(2.0 * m, float(m), f), code)
    return FKernel(f, pvalue, 2.0 * m, float(m), code)


def calibrated_df1(rho1: float, rho2: float, m: int = 5) -> float:
    """Numerator df f = 2m / (1 + ρ1² + 2(m − 1) ρ2²); for m = 5, 10 / (1 + ρ1² + 8 ρ2²).

    Wang, Li & Li (2017) eq. 5 (Satterthwaite's approximation of a weighted χ²); the m×2
    form is an extension from the eigenvalues of the equicorrelated covariance.

    >>> round(calibrated_df1(0.0, 0.3), 3), round(calibrated_df1(0.2, 0.5), 3)
    (5.814, 3.289)
    """
    return 2.0 * m / (1.0 + rho1**2 + 2.0 * (m - 1) * rho2**2)


def calibrated_df1_mean(m: int = 5, rho1: float = 0.0) -> float:
    """Mean of :func:`calibrated_df1` over ρ2 ∈ (0, ½): 5√2·arctan√2 = 6.7551 for m = 5, ρ1 = 0.

    In general (c = 1 + ρ1², k = 2(m − 1)):
    ``(1/½) ∫_0^½ 2m / (c + k ρ²) dρ = 4m · arctan(½ √(k/c)) / √(c k)``,
    which at ρ1 = 0 is 4m·arctan(a/2)/a with a = √(2(m − 1)) (Wang, Li & Li (2017) eq. 7).

    >>> round(calibrated_df1_mean(), 4)
    6.7551
    """
    c = 1.0 + rho1**2
    k = 2.0 * (m - 1)
    if k == 0:
        return 2.0 * m / c
    return 4.0 * m * math.atan(0.5 * math.sqrt(k / c)) / math.sqrt(c * k)


def calibrated_ftest_5x2cv_kernel(
    differences: Any, df1: float = CALIBRATED_DF1_PAPER, rho1: float = 0.0
) -> FKernel:
    """Calibrated F = (1 − ρ1)/2 · Σ_i Σ_k (p_i^(k))² / Σ_i s_i² ~ F(df1, m), upper tail.

    At ρ1 = 0 the statistic equals Alpaydın's f; only the numerator df differs
    (7 in the paper).

    >>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
    >>> k = calibrated_ftest_5x2cv_kernel(d)
    >>> round(float(k.statistic), 6), (k.df1, k.df2)
    (0.909091, (7.0, 5.0))
    """
    d = np.asarray(differences, dtype=np.float64)
    _check_kernel_shape(d)
    m = d.shape[-2]
    numerator = (1.0 - rho1) * (d**2).sum(axis=(-2, -1))
    denominator = 2.0 * split_variances(d).sum(axis=-1)
    f, code = safe_ratio(numerator, denominator)
    pvalue = apply_degenerate_pvalue(special.fdtrc(float(df1), float(m), f), code)
    return FKernel(f, pvalue, float(df1), float(m), code)


def blocked_ttest_3x2cv_kernel(differences: Any, alternative: str = "two-sided") -> TKernel:
    """Blocked 3×2cv t = μ̂ / sqrt(σ̂²) ~ t(2m − 1) over arrays ``(..., m, 2)``.

    μ̂ is the mean of the 2m hold-out differences and σ̂² = (1/2m) Σ (μ_ij − μ̂)²,
    **not** divided by 2m again (the authors' deliberately conservative estimate).
    For m = 3 this is t(5).

    >>> k = blocked_ttest_3x2cv_kernel([[0.03, 0.01], [0.02, 0.00], [0.04, 0.02]])
    >>> round(float(k.statistic), 6), round(float(k.pvalue), 6), k.df
    (1.549193, 0.182021, 5.0)
    """
    d = np.asarray(differences, dtype=np.float64)
    _check_kernel_shape(d)
    m = d.shape[-2]
    flat = d.reshape(*d.shape[:-2], 2 * m)
    equal = zero_spread(flat)
    mean = np.where(equal, flat[..., 0], flat.mean(axis=-1))
    variance = np.where(equal, 0.0, ((flat - mean[..., None]) ** 2).mean(axis=-1))
    return t_kernel(mean, np.sqrt(variance), 2.0 * m - 1.0, alternative)


def combined_ttest_5x2cv_kernel(differences: Any, alternative: str = "two-sided") -> TKernel:
    """Yıldız's t = sqrt(2m) · mean(p) / sqrt(Σ_i s_i² / m) ~ t(m) over arrays ``(..., m, 2)``.

    >>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
    >>> k = combined_ttest_5x2cv_kernel(d)
    >>> round(float(k.statistic), 6), round(float(k.pvalue), 6)
    (1.507557, 0.192031)
    """
    d = np.asarray(differences, dtype=np.float64)
    _check_kernel_shape(d)
    m = d.shape[-2]
    flat = d.reshape(*d.shape[:-2], 2 * m)
    mean = np.where(zero_spread(flat), flat[..., 0], flat.mean(axis=-1))
    se = np.sqrt(split_variances(d).sum(axis=-1) / m) / math.sqrt(2.0 * m)
    return t_kernel(mean, se, float(m), alternative)


# ================================================================ results
def _labels(values: Any, count: int) -> tuple[str, ...]:
    if values is None:
        return tuple(str(i + 1) for i in range(count))
    return tuple(str(v) for v in values)


def _difference_rows(self: Any) -> list[SummaryTable]:
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


@dataclass(frozen=True, kw_only=True, repr=False)
class Mx2TTestResult(TTestResult):
    """A t test on an m×2 design (blocked 3×2cv t, Yıldız's combined t).

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

    def _summary_tables(self) -> list[SummaryTable]:
        return _difference_rows(self)


@dataclass(frozen=True, kw_only=True, repr=False)
class PairedTTest5x2cvResult(Mx2TTestResult):
    """Dietterich's 5×2cv paired t and the 2m statistics with every possible numerator.

    ``statistic`` uses the first fold of the first replication (smallest labels).
    :meth:`conf_int` is p_1^(1) ± t_m quantile × sqrt(Σ s_i² / m) — the interval
    the test inverts, centred on the first split difference, not on ``estimate``.

    Attributes
    ----------
    alternative_statistics : tuple of tuple of float
        t_i^(j) = p_i^(j) / sqrt(Σ s_i² / m), shape (m, 2) (Alpaydın (1999) eq. 2.2).
    alternative_pvalues : tuple of tuple of float
        Their p-values under ``alternative``.
    rejections : int
        How many of the 2m statistics reject at α = 0.05 (:meth:`count_rejections` for others).
    """

    alternative_statistics: tuple[tuple[float, ...], ...] = ()
    alternative_pvalues: tuple[tuple[float, ...], ...] = ()
    rejections: int = 0

    def count_rejections(self, alpha: float = 0.05) -> int:
        """How many of the 2m alternative statistics reject H0 at level ``alpha``."""
        if not 0 < alpha < 1:
            raise CVReportError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
        return int(np.sum(np.asarray(self.alternative_pvalues) <= alpha))

    def _summary_rows(self) -> list[SummaryRow]:
        from cvreport.rendering.summary import SummaryRow

        rows = super()._summary_rows()
        total = len(self.alternative_statistics) * 2
        rows.append(
            SummaryRow(
                "alternative numerators rejecting at α = 0.05",
                f"{self.rejections} of {total}",
                "text",
            )
        )
        return rows

    def _summary_tables(self) -> list[SummaryTable]:
        from cvreport.rendering.summary import SummaryTable

        rows = tuple(
            (rep, fold, float(d), float(t), float(p), bool(p <= 0.05))
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
                columns=("replication", "fold", "difference", "t", "p-value", "reject"),
                rows=rows,
                kinds=("text", "text", "number", "number", "pvalue", "value"),
            )
        ]


@dataclass(frozen=True, kw_only=True, repr=False)
class FTest5x2cvResult(TestResult):
    """An F test on an m×2 design; no confidence interval is defined (the statistic is squared)."""

    distribution: str = "F"
    differences: tuple[tuple[float, ...], ...] = ()
    replication_labels: tuple[str, ...] = ()
    fold_labels: tuple[str, ...] = ()

    def _summary_tables(self) -> list[SummaryTable]:
        return _difference_rows(self)


@dataclass(frozen=True, kw_only=True, repr=False)
class CalibratedFTest5x2cvResult(FTest5x2cvResult):
    """The calibrated balanced 5×2cv F test.

    Attributes
    ----------
    rho1, rho2 : float or None
        Within- and between-replication correlations used (``rho2`` None when the
        numerator df is the mean over ρ2 ∈ (0, ½)).
    df1_rule : str
        How the numerator df was chosen ("paper", "exact", "rho2" or "given").
    balanced : bool or None
        Whether the table's partitions are balanced (None when not checked).
    """

    rho1: float = 0.0
    rho2: float | None = None
    df1_rule: str = "paper"
    balanced: bool | None = None

    def _summary_rows(self) -> list[SummaryRow]:
        from cvreport.rendering.summary import SummaryRow

        rows = super()._summary_rows()
        rows.append(SummaryRow("ρ1 (within replication)", self.rho1, "number"))
        if self.rho2 is not None:
            rows.append(SummaryRow("ρ2 (between replications)", self.rho2, "number"))
        rows.append(SummaryRow("numerator df rule", self.df1_rule, "text"))
        if self.balanced is not None:
            rows.append(SummaryRow("balanced partitions", self.balanced, "value"))
        return rows


# ================================================================ array level
def _check_differences(differences: Any) -> np.ndarray:
    d = as_array(differences, "differences")
    if d.ndim == 1 and d.size % 2 == 0 and d.size >= 2:
        d = d.reshape(-1, 2)
    if d.ndim != 2 or d.shape[1] != 2:
        raise DataError(
            "differences must be an (m, 2) array (rows = replications, columns = the two "
            f"folds; a flat vector of 2m values is read row by row), got shape {d.shape}"
        )
    return d


def _as_tuples(array: np.ndarray) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(x) for x in row) for row in array)


def _common_fields(d: np.ndarray, replications: Any, folds: Any) -> dict[str, Any]:
    m = d.shape[0]
    return {
        "estimate": float(d.mean()),
        "nobs": 2 * m,
        "design": f"{m}×2 cross-validation (differences given directly)",
        "differences": _as_tuples(d),
        "replication_labels": _labels(replications, m),
        "fold_labels": _labels(folds, 2),
    }


def _paired_ttest_5x2cv(
    d: np.ndarray, alternative: str, replications: Any = None, folds: Any = None
) -> PairedTTest5x2cvResult:
    m = d.shape[0]
    k = paired_ttest_5x2cv_kernel(d, alternative, alternatives=True)
    assert k.pvalues is not None
    notes: tuple[str, ...] = ()
    if m != 5:
        notes = (f"extension: Dietterich's test is defined for 5×2; with m = {m}, t(m).",)
    return PairedTTest5x2cvResult(
        statistic=float(k.statistic),
        pvalue=float(k.pvalue),
        df=k.df,
        alternative=alternative,
        center=float(k.center),
        standard_error=float(k.standard_error),
        method="Dietterich's 5×2cv paired t test",
        test="paired_ttest_5x2cv",
        reference=REF_DIETTERICH,
        warnings=describe_degenerate(
            int(k.degenerate),
            numerator="the first split difference p_1^(1)",
            denominator="the pooled variance Σ s_i²/m",
        ),
        notes=notes,
        alternative_statistics=_as_tuples(k.statistics),
        alternative_pvalues=_as_tuples(k.pvalues),
        rejections=int(np.sum(k.pvalues <= 0.05)),
        **_common_fields(d, replications, folds),
    )


def paired_ttest_5x2cv_array(
    differences: Any, alternative: str = "two-sided"
) -> PairedTTest5x2cvResult:
    """Dietterich's 5×2cv paired t from an (m, 2) array of split differences.

    t = p_1^(1) / sqrt(Σ_i s_i² / m) ~ t(m), s_i² = Σ_j (p_i^(j) − p̄_i)²
    (Alpaydın (1999) eq. 2.1; Alpaydın (2014) eq. 19.15). The result also carries the 2m
    statistics with every other numerator and how many of them reject.

    Parameters
    ----------
    differences : array_like, shape (m, 2)
        p_i^(j) = loss of A − loss of B on fold j of replication i (row 0 is the
        first replication, column 0 its first fold).
    alternative : {"two-sided", "less", "greater"}
        "less": H1 A has lower loss than B.

    Examples
    --------
    >>> from cvreport.arrays import paired_ttest_5x2cv
    >>> res = paired_ttest_5x2cv([[0.02, -0.01], [0.03, 0.00], [0.01, 0.02],
    ...                           [-0.02, 0.01], [0.04, 0.00]])
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df, res.rejections
    (0.953463, 0.384142, 5.0, 0)
    """
    check_alternative(alternative)
    result = _paired_ttest_5x2cv(_check_differences(differences), alternative)
    emit_warnings(result.warnings)
    return result


def _combined_ftest_5x2cv(
    d: np.ndarray, replications: Any = None, folds: Any = None
) -> FTest5x2cvResult:
    m = d.shape[0]
    k = combined_ftest_5x2cv_kernel(d)
    notes: tuple[str, ...] = ()
    if m != 5:
        notes = (f"extension: the combined F is defined for 5×2; with m = {m}, F(2m, m).",)
    return FTest5x2cvResult(
        statistic=float(k.statistic),
        pvalue=float(k.pvalue),
        df=(k.df1, k.df2),
        alternative="two-sided",
        method="Alpaydın's combined 5×2cv F test",
        test="combined_ftest_5x2cv",
        reference=REF_ALPAYDIN,
        warnings=describe_degenerate(
            int(k.degenerate),
            numerator="the sum of squared split differences",
            denominator="the variance sum 2 Σ s_i²",
        ),
        notes=notes,
        **_common_fields(d, replications, folds),
    )


def combined_ftest_5x2cv_array(differences: Any) -> FTest5x2cvResult:
    """Alpaydın's combined 5×2cv F from an (m, 2) array of split differences.

    f = Σ_i Σ_j (p_i^(j))² / (2 Σ_i s_i²) ~ F(2m, m), upper tail (Alpaydın (1999)
    eq. 3.1); F(10, 5) for 5×2, rejecting at α = 0.05 above 4.74. Defines no
    confidence interval.

    Examples
    --------
    >>> from cvreport.arrays import combined_ftest_5x2cv
    >>> res = combined_ftest_5x2cv([[0.02, -0.01], [0.03, 0.00], [0.01, 0.02],
    ...                             [-0.02, 0.01], [0.04, 0.00]])
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df
    (0.909091, 0.581985, (10.0, 5.0))
    """
    result = _combined_ftest_5x2cv(_check_differences(differences))
    emit_warnings(result.warnings)
    return result


def _resolve_calibration(
    m: int, df1: str | float, rho1: float | None, rho2: float | None
) -> tuple[float, float, str, tuple[str, ...]]:
    """(numerator df, ρ1, rule, notes) from the user's choice (see calibrated_ftest_5x2cv)."""
    r1 = 0.0 if rho1 is None else float(rho1)
    if not -1.0 < r1 < 1.0:
        raise CVReportError(f"rho1 must lie in (−1, 1), got {rho1!r}")
    notes: list[str] = []
    if rho2 is not None:
        r2 = float(rho2)
        if not 0.0 <= r2 <= 0.5:
            raise CVReportError(f"rho2 must lie in [0, 0.5], got {rho2!r}")
        if not (isinstance(df1, str) and df1 == "paper"):
            raise CVReportError(
                "give either df1 or rho2, not both: with rho2 the numerator df is "
                "2m / (1 + ρ1² + 2(m − 1) ρ2²)"
            )
        if r1 > r2:
            notes.append("the paper assumes 0 ≤ ρ1 ≤ ρ2 < ½; here ρ1 > ρ2.")
        return calibrated_df1(r1, r2, m), r1, "rho2", tuple(notes)
    if isinstance(df1, str):
        exact = calibrated_df1_mean(m, r1)
        if df1 == "paper":
            return (
                float(round(exact)),
                r1,
                "paper",
                (
                    f"numerator df {round(exact)} = the mean of f over ρ2 ∈ (0, ½) "
                    f"({exact:.4f}) rounded, as in the paper.",
                ),
            )
        if df1 == "exact":
            return (
                exact,
                r1,
                "exact",
                (f"numerator df = the mean of f over ρ2 ∈ (0, ½) = {exact:.4f}.",),
            )
        raise CVReportError(f"df1 must be 'paper', 'exact' or a positive number, got {df1!r}")
    value = float(df1)
    if not value > 0 or not math.isfinite(value):
        raise CVReportError(f"df1 must be a positive number, got {df1!r}")
    return value, r1, "given", ()


def _calibrated_ftest_5x2cv(
    d: np.ndarray,
    df1: str | float,
    rho1: float | None,
    rho2: float | None,
    replications: Any = None,
    folds: Any = None,
) -> CalibratedFTest5x2cvResult:
    m = d.shape[0]
    f, r1, rule, notes = _resolve_calibration(m, df1, rho1, rho2)
    k = calibrated_ftest_5x2cv_kernel(d, f, r1)
    if m != 5:
        notes = (
            f"extension to m×2 (m = {m}): f = 2m/(1 + ρ1² + 2(m − 1)ρ2²), denominator df m.",
            *notes,
        )
    return CalibratedFTest5x2cvResult(
        statistic=float(k.statistic),
        pvalue=float(k.pvalue),
        df=(k.df1, k.df2),
        alternative="two-sided",
        method="Calibrated balanced 5×2cv F test",
        test="calibrated_ftest_5x2cv",
        reference=REF_CALIBRATED,
        warnings=describe_degenerate(
            int(k.degenerate),
            numerator="the sum of squared split differences",
            denominator="the variance sum Σ s_i²",
        ),
        notes=notes,
        rho1=r1,
        rho2=None if rho2 is None else float(rho2),
        df1_rule=rule,
        **_common_fields(d, replications, folds),
    )


def calibrated_ftest_5x2cv_array(
    differences: Any,
    df1: str | float = "paper",
    rho1: float | None = None,
    rho2: float | None = None,
) -> CalibratedFTest5x2cvResult:
    """The calibrated balanced 5×2cv F test from an (m, 2) array of split differences.

    F = (1 − ρ1)/2 · Σ_i Σ_k (p_i^(k))² / Σ_i s_i² ~ F(f, m) (Wang, Li & Li (2017) eqs. 5–7),
    f = 2m / (1 + ρ1² + 2(m − 1) ρ2²) (10 / (1 + ρ1² + 8 ρ2²) for m = 5).
    Assumes balanced or block-regularized partitions; defines no interval.

    Parameters
    ----------
    df1 : "paper", "exact" or float
        Numerator df when ``rho2`` is not given: "paper" (default) rounds the mean
        of f over ρ2 ∈ (0, ½) — 7 for 5×2, as the paper does; "exact" keeps it
        (5√2·arctan√2 = 6.7551 for 5×2); a number is used as given.
    rho1 : float, optional
        Within-replication correlation (default 0, as the calibrated test takes);
        scales the statistic by (1 − ρ1).
    rho2 : float, optional
        Between-replication correlation in [0, ½]; when given, f is computed from it.

    Examples
    --------
    >>> from cvreport.arrays import calibrated_ftest_5x2cv
    >>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
    >>> res = calibrated_ftest_5x2cv(d)
    >>> round(res.statistic, 6), res.df
    (0.909091, (7.0, 5.0))
    >>> round(calibrated_ftest_5x2cv(d, df1="exact").df[0], 4)
    6.7551
    """
    result = _calibrated_ftest_5x2cv(_check_differences(differences), df1, rho1, rho2)
    emit_warnings(result.warnings)
    return result


def _blocked_ttest_3x2cv(
    d: np.ndarray, alternative: str, replications: Any = None, folds: Any = None
) -> Mx2TTestResult:
    m = d.shape[0]
    k = blocked_ttest_3x2cv_kernel(d, alternative)
    notes: tuple[str, ...] = ()
    if m != 3:
        notes = (
            f"extension to m×2 block-regularized CV (m = {m}): divisor 2m, t(2m − 1) = "
            f"t({2 * m - 1}).",
        )
    return Mx2TTestResult(
        statistic=float(k.statistic),
        pvalue=float(k.pvalue),
        df=k.df,
        alternative=alternative,
        center=float(k.center),
        standard_error=float(k.standard_error),
        method="Blocked 3×2cv t test",
        test="blocked_ttest_3x2cv",
        reference=REF_BLOCKED,
        warnings=describe_degenerate(
            int(k.degenerate),
            numerator="the mean split difference",
            denominator="the variance σ̂² of the split differences",
        ),
        notes=notes,
        **_common_fields(d, replications, folds),
    )


def blocked_ttest_3x2cv_array(differences: Any, alternative: str = "two-sided") -> Mx2TTestResult:
    """The blocked 3×2cv t test from an (m, 2) array of hold-out differences.

    μ̂ = mean of the 2m differences, σ̂² = (1/2m) Σ (μ_ij − μ̂)² (not divided by
    2m again), t = μ̂ / sqrt(σ̂²) ~ t(2m − 1); t(5) on blocked 3×2 partitions
    {P1P2|P3P4}, {P1P3|P2P4}, {P1P4|P2P3}. :meth:`conf_int` is μ̂ ± t quantile × σ̂.

    References
    ----------
    Wang, Y., Wang, R., Jia, H., Li, J. (2014). Blocked 3×2 cross-validated t-test for
    comparing supervised classification learning algorithms. Neural Computation
    26(1):208–235.

    Examples
    --------
    >>> from cvreport.arrays import blocked_ttest_3x2cv
    >>> res = blocked_ttest_3x2cv([[0.03, 0.01], [0.02, 0.00], [0.04, 0.02]])
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df
    (1.549193, 0.182021, 5.0)
    """
    check_alternative(alternative)
    result = _blocked_ttest_3x2cv(_check_differences(differences), alternative)
    emit_warnings(result.warnings)
    return result


def _combined_ttest_5x2cv(
    d: np.ndarray, alternative: str, replications: Any = None, folds: Any = None
) -> Mx2TTestResult:
    m = d.shape[0]
    k = combined_ttest_5x2cv_kernel(d, alternative)
    notes: tuple[str, ...] = (
        "not recommended for decisions: strongly anti-conservative in Yang et al. Table V "
        "(type I error 0.291 at nominal 0.05 on the ε scenario).",
    )
    if m != 5:
        notes += (f"extension: the combined t is defined for 5×2; with m = {m}, t(m).",)
    return Mx2TTestResult(
        statistic=float(k.statistic),
        pvalue=float(k.pvalue),
        df=k.df,
        alternative=alternative,
        center=float(k.center),
        standard_error=float(k.standard_error),
        method="Yıldız's combined 5×2cv t test",
        test="combined_ttest_5x2cv",
        reference=REF_YILDIZ,
        warnings=describe_degenerate(
            int(k.degenerate),
            numerator="the mean split difference",
            denominator="the pooled variance Σ s_i²/m",
        ),
        notes=notes,
        **_common_fields(d, replications, folds),
    )


def combined_ttest_5x2cv_array(differences: Any, alternative: str = "two-sided") -> Mx2TTestResult:
    """Yıldız's combined 5×2cv t from an (m, 2) array of split differences.

    t = sqrt(2m) · mean(p) / sqrt(Σ_i s_i² / m) ~ t(m). :meth:`conf_int` is
    mean(p) ± t_m quantile × sqrt(Σ s_i² / m) / sqrt(2m).

    References
    ----------
    Yıldız, O. T. (2013). Omnivariate rule induction using a novel pairwise statistical
    test. IEEE Transactions on Knowledge and Data Engineering 25(9):2105–2118.

    Examples
    --------
    >>> from cvreport.arrays import combined_ttest_5x2cv
    >>> res = combined_ttest_5x2cv([[0.02, -0.01], [0.03, 0.00], [0.01, 0.02],
    ...                             [-0.02, 0.01], [0.04, 0.00]])
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (1.507557, 0.192031)
    """
    check_alternative(alternative)
    result = _combined_ttest_5x2cv(_check_differences(differences), alternative)
    emit_warnings(result.warnings)
    return result


# ================================================================ table level
def _mx2_differences(
    table: ResultsTable, a: Any, b: Any, test: str
) -> tuple[np.ndarray, tuple[Any, Any], tuple[Any, ...], tuple[Any, ...]]:
    require_design(table, test, lambda design: design.is_mx2, _MX2_DESIGNS)
    a, b = table.resolve_pair(a, b)
    frame: pd.DataFrame = table.differences(a, b)
    d = frame.to_numpy(dtype=np.float64)
    if d.ndim != 2 or d.shape[1] != 2 or not np.all(np.isfinite(d)):
        missing = [
            (rep, fold)
            for rep in frame.index
            for fold in frame.columns
            if not np.isfinite(frame.loc[rep, fold])
        ]
        from cvreport.errors import describe_keys

        raise DataError(
            f"{test} needs a loss difference on both folds of every replication; missing "
            f"(replication, fold): {describe_keys(missing)}"
        )
    return d, (a, b), tuple(frame.index), tuple(frame.columns)


def _balance_warning(table: ResultsTable, test: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(warnings, notes) about partition balance for tests derived for balanced partitions."""
    balanced, message = partition_balance(table)
    if balanced is False:
        return (f"{test}: {message}",), ()
    if balanced is None:
        return (), (message,)
    return (), ()


def paired_ttest_5x2cv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    alternative: str = "two-sided",
    *,
    data: pd.DataFrame | None = None,
) -> PairedTTest5x2cvResult:
    """Dietterich's 5×2cv paired t test comparing models ``a`` and ``b``.

    t = p_1^(1) / sqrt(Σ_i s_i² / m) ~ t(m) (Alpaydın (1999) eq. 2.1), where p_1^(1) is
    the difference on the first fold (smallest label) of the first replication.
    The result also holds all 2m statistics t_i^(j) and how many reject: the
    choice of numerator can change the decision (Alpaydın (1999) Table 1), which is why
    :func:`combined_ftest_5x2cv` is usually preferred.

    Parameters
    ----------
    table : ResultsTable or str
        The results, or a formula such as ``"loss ~ model | replication + fold"`` with ``data=``.
    a, b : model labels, optional
        Model A and model B; default to the two models when there are exactly two.
    alternative : {"two-sided", "less", "greater"}
        "less": H1 A has lower loss than B.
    data : DataFrame, optional
        The long-format data when ``table`` is a formula.

    Raises
    ------
    DesignError
        Unless the table is an m×2 design.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cvreport
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(
    ...     [(i, k, model, r, int(rng.random() < p))
    ...      for i in range(5) for r, k in enumerate(rng.permutation(40) % 2)
    ...      for model, p in (("A", 0.2), ("B", 0.35))],
    ...     columns=["replication", "fold", "model", "record", "loss"])
    >>> res = cvreport.paired_ttest_5x2cv("loss ~ model | replication + fold", data=df)
    >>> res.models, res.df, len(res.alternative_statistics) * 2
    (('A', 'B'), 5.0, 10)
    """
    check_alternative(alternative)
    table = as_table(table, data)
    d, pair, reps, folds = _mx2_differences(table, a, b, "paired_ttest_5x2cv")
    result = finish_result(_paired_ttest_5x2cv(d, alternative, reps, folds), table, pair)
    emit_warnings(result.warnings)
    return result


def combined_ftest_5x2cv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    data: pd.DataFrame | None = None,
) -> FTest5x2cvResult:
    """Alpaydın's combined 5×2cv F test comparing models ``a`` and ``b``.

    f = Σ_i Σ_j (p_i^(j))² / (2 Σ_i s_i²) ~ F(2m, m), upper tail (Alpaydın (1999)
    eq. 3.1). Uses all 2m differences, so it does not depend on fold order. The
    recommended test on random m×2 partitions; no confidence interval.

    Raises
    ------
    DesignError
        Unless the table is an m×2 design.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cvreport
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(
    ...     [(i, k, model, r, int(rng.random() < p))
    ...      for i in range(5) for r, k in enumerate(rng.permutation(40) % 2)
    ...      for model, p in (("A", 0.2), ("B", 0.35))],
    ...     columns=["replication", "fold", "model", "record", "loss"])
    >>> res = cvreport.combined_ftest_5x2cv("loss ~ model | replication + fold", data=df)
    >>> res.models, res.df
    (('A', 'B'), (10.0, 5.0))
    """
    table = as_table(table, data)
    d, pair, reps, folds = _mx2_differences(table, a, b, "combined_ftest_5x2cv")
    result = finish_result(_combined_ftest_5x2cv(d, reps, folds), table, pair)
    emit_warnings(result.warnings)
    return result


def calibrated_ftest_5x2cv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    df1: str | float = "paper",
    rho1: float | None = None,
    rho2: float | None = None,
    *,
    data: pd.DataFrame | None = None,
) -> CalibratedFTest5x2cvResult:
    """The calibrated balanced 5×2cv F test comparing models ``a`` and ``b``.

    F = (1 − ρ1)/2 · Σ Σ (p_i^(k))² / Σ s_i² ~ F(f, 5), f = 10/(1 + ρ1² + 8ρ2²)
    (Wang, Li & Li (2017) eqs. 5–7). The calibrated test takes ρ1 = 0 and the mean of f over
    ρ2 ∈ (0, ½), 5√2·arctan√2 = 6.7551, rounded to 7 (``df1="paper"``);
    ``df1="exact"`` keeps 6.7551; ``rho1``/``rho2`` set the correlations directly.
    With m ≠ 5 the m×2 extension f = 2m/(1 + ρ1² + 2(m − 1)ρ2²), F(f, m) is used
    and labelled.

    The degrees of freedom assume balanced (Wang, Li & Li (2017) Table 1) or
    block-regularized partitions: when the table's training-set overlaps are
    not all n/4, the result warns (:class:`~cvreport.errors.PartitionWarning`).

    Raises
    ------
    DesignError
        Unless the table is an m×2 design.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cvreport
    >>> rng = np.random.default_rng(0)
    >>> training_blocks = [{1, 2, 3, 4}, {1, 3, 5, 7}, {1, 2, 5, 6}, {1, 4, 5, 8}, {1, 3, 6, 8}]
    >>> df = pd.DataFrame(
    ...     [(i, int(r % 8 + 1 not in blocks), model, r, int(rng.random() < p))
    ...      for i, blocks in enumerate(training_blocks) for r in range(80)
    ...      for model, p in (("A", 0.2), ("B", 0.35))],
    ...     columns=["replication", "fold", "model", "record", "loss"])
    >>> res = cvreport.calibrated_ftest_5x2cv("loss ~ model | replication + fold", data=df)
    >>> res.df, res.balanced
    ((7.0, 5.0), True)
    """
    table = as_table(table, data)
    d, pair, reps, folds = _mx2_differences(table, a, b, "calibrated_ftest_5x2cv")
    partition_warnings, partition_notes = _balance_warning(table, "calibrated_ftest_5x2cv")
    result = _calibrated_ftest_5x2cv(d, df1, rho1, rho2, reps, folds)
    emit_warnings(result.warnings)
    emit_partition_warnings(partition_warnings)
    balanced = None if partition_notes else not partition_warnings
    result = finish_result(
        result, table, pair, extra_warnings=partition_warnings, extra_notes=partition_notes
    )
    return dataclasses.replace(result, balanced=balanced)


def blocked_ttest_3x2cv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    alternative: str = "two-sided",
    *,
    data: pd.DataFrame | None = None,
) -> Mx2TTestResult:
    """The blocked 3×2cv t test comparing models ``a`` and ``b``.

    t = μ̂ / sqrt(σ̂²) ~ t(5) over the six hold-out differences of blocked 3×2
    CV, σ̂² with divisor 6 and not divided by 6 again (a deliberately
    conservative estimate). On m×2 block-regularized CV the same authors'
    extension uses divisor 2m and t(2m − 1) (labelled). Warns
    (:class:`~cvreport.errors.PartitionWarning`) when the partitions are not balanced.

    Raises
    ------
    DesignError
        Unless the table is an m×2 design.

    References
    ----------
    Wang, Y., Wang, R., Jia, H., Li, J. (2014). Blocked 3×2 cross-validated t-test for
    comparing supervised classification learning algorithms. Neural Computation
    26(1):208–235.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cvreport
    >>> rng = np.random.default_rng(0)
    >>> training_blocks = [{1, 2, 3, 4}, {1, 3, 5, 7}, {1, 2, 5, 6}, {1, 4, 5, 8}, {1, 3, 6, 8}][:3]
    >>> df = pd.DataFrame(
    ...     [(i, int(r % 8 + 1 not in blocks), model, r, int(rng.random() < p))
    ...      for i, blocks in enumerate(training_blocks) for r in range(80)
    ...      for model, p in (("A", 0.2), ("B", 0.35))],
    ...     columns=["replication", "fold", "model", "record", "loss"])
    >>> res = cvreport.blocked_ttest_3x2cv("loss ~ model | replication + fold", data=df)
    >>> res.df, res.nobs
    (5.0, 6)
    """
    check_alternative(alternative)
    table = as_table(table, data)
    d, pair, reps, folds = _mx2_differences(table, a, b, "blocked_ttest_3x2cv")
    partition_warnings, partition_notes = _balance_warning(table, "blocked_ttest_3x2cv")
    result = _blocked_ttest_3x2cv(d, alternative, reps, folds)
    emit_warnings(result.warnings)
    emit_partition_warnings(partition_warnings)
    return finish_result(
        result, table, pair, extra_warnings=partition_warnings, extra_notes=partition_notes
    )


def combined_ttest_5x2cv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    alternative: str = "two-sided",
    *,
    data: pd.DataFrame | None = None,
) -> Mx2TTestResult:
    """Yıldız's combined 5×2cv t test comparing models ``a`` and ``b``.

    t = sqrt(2m) · mean(p) / sqrt(Σ_i s_i² / m) ~ t(m). Yang et al. Table V finds
    it strongly anti-conservative (type I error 0.291 at nominal 0.05); use it
    as a labelled comparison, not for decisions.

    Raises
    ------
    DesignError
        Unless the table is an m×2 design.

    References
    ----------
    Yıldız, O. T. (2013). Omnivariate rule induction using a novel pairwise statistical
    test. IEEE Transactions on Knowledge and Data Engineering 25(9):2105–2118.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cvreport
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(
    ...     [(i, k, model, r, int(rng.random() < p))
    ...      for i in range(5) for r, k in enumerate(rng.permutation(40) % 2)
    ...      for model, p in (("A", 0.2), ("B", 0.35))],
    ...     columns=["replication", "fold", "model", "record", "loss"])
    >>> res = cvreport.combined_ttest_5x2cv("loss ~ model | replication + fold", data=df)
    >>> res.df, res.conf_int()[0] < res.estimate < res.conf_int()[1]
    (5.0, True)
    """
    check_alternative(alternative)
    table = as_table(table, data)
    d, pair, reps, folds = _mx2_differences(table, a, b, "combined_ttest_5x2cv")
    result = finish_result(_combined_ttest_5x2cv(d, alternative, reps, folds), table, pair)
    emit_warnings(result.warnings)
    return result
