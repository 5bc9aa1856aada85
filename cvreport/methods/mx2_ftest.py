"""F tests on m×2 designs (docs/methods.md).

* Alpaydın's combined 5×2cv F ~ F(2m, m);
* the calibrated balanced 5×2cv F of Wang, Li and Li ~ F(f, 5).

The kernels take arrays of shape ``(..., m, 2)`` of split differences.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypeVar

import numpy as np
from scipy import special

from cvreport.errors import CVReportError
from cvreport.methods._common import apply_degenerate_pvalue, kernel_fields, safe_ratio
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.mx2_differences import (
    SplitDifferences,
    balance_warning,
    check_kernel_shape,
    extension_note,
    finish_balanced,
    mx2_fields,
    mx2_spec,
    split_variances,
)
from cvreport.methods.spec import TestSpec
from cvreport.option_values import real_option
from cvreport.results import TestResult
from cvreport.summary_data import SummaryRow

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.sufficient import FoldStatistics
    from cvreport.data.table import ResultsTable

__all__ = [
    "CALIBRATED_DF1_PAPER",
    "CALIBRATED_F_5X2CV",
    "COMBINED_F_5X2CV",
    "CalibratedFTest5x2cvResult",
    "FKernel",
    "FTest5x2cvResult",
    "calibrated_df1",
    "calibrated_df1_mean",
    "calibrated_ftest_5x2cv",
    "calibrated_ftest_5x2cv_array",
    "calibrated_ftest_5x2cv_kernel",
    "combined_ftest_5x2cv",
    "combined_ftest_5x2cv_array",
    "combined_ftest_5x2cv_kernel",
]


F = TypeVar("F", bound="FTest5x2cvResult")

REF_ALPAYDIN = (
    "Alpaydın, E. (1999). Combined 5×2 cv F test for comparing supervised classification "
    "learning algorithms. Neural Computation 11(8):1885–1892, eq. 3.1."
)


REF_CALIBRATED = (
    "Wang, Y., Li, J., Li, Y. (2017). Choosing between two classification learning algorithms "
    "based on calibrated balanced 5×2 cross-validated F-test. Neural Processing Letters "
    "46:1–13, eqs. 4–7."
)


#: The numerator degrees of freedom the calibrated test uses in the paper (6.7551 rounded).
CALIBRATED_DF1_PAPER = 7.0


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
    return _f_kernel(differences, 1.0, None)


def _f_kernel(differences: Any, scale: float, df1: float | None) -> FKernel:
    """scale · Σ_i Σ_j (p_i^(j))² / (2 Σ_i s_i²) ~ F(df1, m) (df1 None: 2m), upper tail."""
    d = check_kernel_shape(differences)
    m = d.shape[-2]
    df1 = 2.0 * m if df1 is None else float(df1)
    numerator = scale * (d**2).sum(axis=(-2, -1))
    f, code = safe_ratio(numerator, 2.0 * split_variances(d).sum(axis=-1))
    pvalue = apply_degenerate_pvalue(special.fdtrc(df1, float(m), f), code)
    return FKernel(f, pvalue, df1, float(m), code)


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
    return _f_kernel(differences, 1.0 - rho1, df1)


@dataclass(frozen=True, kw_only=True, repr=False)
class FTest5x2cvResult(SplitDifferences, TestResult):
    """An F test on an m×2 design; no confidence interval is defined (the statistic is squared)."""

    distribution: str = "F"

    _signed_fields: ClassVar[tuple[str, ...]] = ("estimate", "differences")


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

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        rows = super()._summary_rows(alpha)
        rows.append(SummaryRow("ρ1 (within replication)", self.rho1, "number"))
        if self.rho2 is not None:
            rows.append(SummaryRow("ρ2 (between replications)", self.rho2, "number"))
        rows.append(SummaryRow("numerator df rule", self.df1_rule, "text"))
        if self.balanced is not None:
            rows.append(SummaryRow("balanced partitions", self.balanced, "value"))
        return rows


def _f_result(
    result: type[F], spec: TestSpec, kernel: FKernel, denominator: str, **fields: Any
) -> F:
    """The result of one F kernel outcome, named by its test's spec (upper tail, no interval)."""
    numerator = "the sum of squared split differences"
    return result(
        **kernel_fields(spec, kernel, "two-sided", numerator=numerator, denominator=denominator),
        df=(kernel.df1, kernel.df2),
        **fields,
    )


def _combined_ftest_5x2cv(
    d: np.ndarray, replications: Any = None, folds: Any = None
) -> FTest5x2cvResult:
    return _f_result(
        FTest5x2cvResult,
        COMBINED_F_5X2CV,
        combined_ftest_5x2cv_kernel(d),
        denominator="the variance sum 2 Σ s_i²",
        notes=extension_note(d.shape[0], "the combined F", "F(2m, m)"),
        **mx2_fields(d, replications, folds),
    )


@fill_doc
def combined_ftest_5x2cv_array(differences: Any) -> FTest5x2cvResult:
    """Alpaydın's combined 5×2cv F from an (m, 2) array of split differences.

    f = Σ_i Σ_j (p_i^(j))² / (2 Σ_i s_i²) ~ F(2m, m), upper tail (Alpaydın (1999)
    eq. 3.1); F(10, 5) for 5×2, rejecting at α = 0.05 above 4.74. Defines no
    confidence interval.

    {parameters_mx2_differences}

    {returns}

    {raises_array}

    Examples
    --------
    >>> from cvreport.arrays import combined_ftest_5x2cv
    >>> res = combined_ftest_5x2cv([[0.02, -0.01], [0.03, 0.00], [0.01, 0.02],
    ...                             [-0.02, 0.01], [0.04, 0.00]])
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df
    (0.909091, 0.581985, (10.0, 5.0))
    """
    return COMBINED_F_5X2CV.run_arrays(differences)


def _resolve_calibration(
    m: int, df1: str | float, rho1: float | None, rho2: float | None
) -> tuple[float, float, str, tuple[str, ...]]:
    """(numerator df, ρ1, rule, notes) from the user's choice (see calibrated_ftest_5x2cv)."""
    r1 = 0.0 if rho1 is None else real_option(rho1, "rho1", "a number in (−1, 1)", finite=False)
    if not -1.0 < r1 < 1.0:
        raise CVReportError(f"rho1 must lie in (−1, 1), got {rho1!r}")
    notes: list[str] = []
    if rho2 is not None:
        r2 = real_option(rho2, "rho2", "a number in [0, 0.5]", finite=False)
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
        mean = "the mean of f over ρ2 ∈ (0, ½)"
        if df1 == "paper":
            note = f"numerator df {round(exact)} = {mean} ({exact:.4f}) rounded, as in the paper."
            return float(round(exact)), r1, "paper", (note,)
        if df1 == "exact":
            return exact, r1, "exact", (f"numerator df = {mean} = {exact:.4f}.",)
        raise CVReportError(f"df1 must be 'paper', 'exact' or a positive number, got {df1!r}")
    value = real_option(df1, "df1", "'paper', 'exact' or a positive number", finite=False)
    if not value > 0 or not math.isfinite(value):
        raise CVReportError(f"df1 must be a positive number, got {df1!r}")
    return value, r1, "given", ()


def _calibrated_ftest_5x2cv(
    d: np.ndarray,
    df1: str | float = "paper",
    rho1: float | None = None,
    rho2: float | None = None,
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
    return _f_result(
        CalibratedFTest5x2cvResult,
        CALIBRATED_F_5X2CV,
        k,
        denominator="the variance sum Σ s_i²",
        notes=notes,
        rho1=r1,
        rho2=None if rho2 is None else float(rho2),
        df1_rule=rule,
        **mx2_fields(d, replications, folds),
    )


def paper_calibration(stats: FoldStatistics) -> tuple[Any, float, float]:
    """The split differences with the paper's numerator df for their m and ρ1 = 0.

    The kernel's arguments for the calibrated F at the table function's defaults
    (``df1="paper"``): 7 for 5×2, the rounded mean of f for other m.
    """
    d = stats.differences
    df1, rho1, _, _ = _resolve_calibration(d.shape[-2], "paper", None, None)
    return d, df1, rho1


@fill_doc
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

    {parameters_mx2_differences}
    df1 : "paper", "exact" or float
        Numerator df when ``rho2`` is not given: "paper" (default) rounds the mean
        of f over ρ2 ∈ (0, ½) — 7 for 5×2, as the paper does; "exact" keeps it
        (5√2·arctan√2 = 6.7551 for 5×2); a number is used as given.
    rho1 : float, optional
        Within-replication correlation (default 0, as the calibrated test takes);
        scales the statistic by (1 − ρ1).
    rho2 : float, optional
        Between-replication correlation in [0, ½]; when given, f is computed from it.

    {returns}

    {raises_array}

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
    return CALIBRATED_F_5X2CV.run_arrays(differences, df1=df1, rho1=rho1, rho2=rho2)


@fill_doc
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

    {parameters_pair_data}

    {returns}

    {raises_mx2_design}

    {examples_mx2}
    >>> res = cvreport.combined_ftest_5x2cv("loss ~ model | replication + fold", data=df)
    >>> res.models, res.df
    (('A', 'B'), (10.0, 5.0))
    """
    return COMBINED_F_5X2CV.run(table, a, b, data=data)


@fill_doc
def calibrated_ftest_5x2cv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    df1: str | float = "paper",
    rho1: float | None = None,
    rho2: float | None = None,
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

    {parameters_pair}
    df1 : {"paper", "exact"} or float
        The numerator degrees of freedom: 7 as in the paper, its exact mean 6.7551, or a value.
    rho1, rho2 : float, optional
        Set the correlations directly instead (f = 10/(1 + ρ1² + 8ρ2²)).
    {data}

    {returns}

    {raises_mx2_design}

    {examples_5x2bcv}
    >>> res = cvreport.calibrated_ftest_5x2cv("loss ~ model | replication + fold", data=df)
    >>> res.df, res.balanced
    ((7.0, 5.0), True)
    """
    return CALIBRATED_F_5X2CV.run(table, a, b, data=data, df1=df1, rho1=rho1, rho2=rho2)


COMBINED_F_5X2CV = mx2_spec(
    label="Combined 5×2cv F test",
    method="Alpaydın's combined 5×2cv F test",
    reference=REF_ALPAYDIN,
    function=combined_ftest_5x2cv,
    result=FTest5x2cvResult,
    statistic="Σ Σ (p_i^(j))² / (2 Σ s_i²)",
    distribution="F(2m, m)",
    array_function=combined_ftest_5x2cv_array,
    kernel=combined_ftest_5x2cv_kernel,
    build=_combined_ftest_5x2cv,
    takes_alternative=False,
)
CALIBRATED_F_5X2CV = mx2_spec(
    label="Calibrated 5×2cv F test",
    method="Calibrated balanced 5×2cv F test",
    reference=REF_CALIBRATED,
    function=calibrated_ftest_5x2cv,
    result=CalibratedFTest5x2cvResult,
    statistic="(1 − ρ1)/2 · Σ Σ (p_i^(j))² / Σ s_i²",
    distribution="F(f, 5), f = 7 (balanced partitions)",
    array_function=calibrated_ftest_5x2cv_array,
    kernel=calibrated_ftest_5x2cv_kernel,
    inputs=paper_calibration,
    build=_calibrated_ftest_5x2cv,
    partition_check=balance_warning,
    finish=finish_balanced,
    takes_alternative=False,
)
