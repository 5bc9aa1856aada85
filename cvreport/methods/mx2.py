"""Tests on m×2 designs: m replications of 2-fold cross-validation (docs/methods.md).

* Dietterich's 5×2cv paired t, with all 2m alternative numerators (Alpaydın's Table 1);
* the blocked 3×2cv t of Wang, Wang, Jia and Li ~ t(5) (t(2m − 1) on m×2 BCV);
* Yıldız's combined 5×2cv t ~ t(m).

The F tests are in :mod:`cvreport.methods.mx2_ftest`. The kernels take arrays of
shape ``(..., m, 2)`` of split differences (:mod:`cvreport.methods.mx2_differences`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from cvreport.methods._common import (
    TKernel,
    apply_degenerate_pvalue,
    safe_ratio,
    t_kernel,
    t_pvalue,
    t_result,
    zero_spread,
)
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.mx2_differences import (
    Mx2TTestResult,
    PairedTTest5x2cvResult,
    as_tuples,
    balance_warning,
    check_kernel_shape,
    extension_note,
    mx2_fields,
    mx2_spec,
    split_variances,
)

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable

__all__ = [
    "BLOCKED_T_3X2CV",
    "COMBINED_T_5X2CV",
    "PAIRED_T_5X2CV",
    "PairedT5x2Kernel",
    "blocked_ttest_3x2cv",
    "blocked_ttest_3x2cv_array",
    "blocked_ttest_3x2cv_kernel",
    "combined_ttest_5x2cv",
    "combined_ttest_5x2cv_array",
    "combined_ttest_5x2cv_kernel",
    "paired_ttest_5x2cv",
    "paired_ttest_5x2cv_array",
    "paired_ttest_5x2cv_kernel",
]

REF_DIETTERICH = (
    "Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised "
    "classification learning algorithms. Neural Computation 10(7):1895–1923; the 2m "
    "alternative numerators: Alpaydın, E. (1999). Neural Computation 11(8):1885–1892, Table 1."
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


# ================================================================ kernels
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
    d = check_kernel_shape(differences)
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


def blocked_ttest_3x2cv_kernel(differences: Any, alternative: str = "two-sided") -> TKernel:
    """Blocked 3×2cv t = μ̂ / sqrt(σ̂²) ~ t(2m − 1) over arrays ``(..., m, 2)``.

    μ̂ is the mean of the 2m hold-out differences and σ̂² = (1/2m) Σ (μ_ij − μ̂)²,
    **not** divided by 2m again (the authors' deliberately conservative estimate).
    For m = 3 this is t(5).

    >>> k = blocked_ttest_3x2cv_kernel([[0.03, 0.01], [0.02, 0.00], [0.04, 0.02]])
    >>> round(float(k.statistic), 6), round(float(k.pvalue), 6), k.df
    (1.549193, 0.182021, 5.0)
    """
    d = check_kernel_shape(differences)
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
    d = check_kernel_shape(differences)
    m = d.shape[-2]
    flat = d.reshape(*d.shape[:-2], 2 * m)
    mean = np.where(zero_spread(flat), flat[..., 0], flat.mean(axis=-1))
    se = np.sqrt(split_variances(d).sum(axis=-1) / m) / math.sqrt(2.0 * m)
    return t_kernel(mean, se, float(m), alternative)


# ================================================================ array level
def _paired_ttest_5x2cv(
    d: np.ndarray, alternative: str, replications: Any = None, folds: Any = None
) -> PairedTTest5x2cvResult:
    k = paired_ttest_5x2cv_kernel(d, alternative, alternatives=True)
    assert k.pvalues is not None
    return t_result(
        PairedTTest5x2cvResult,
        PAIRED_T_5X2CV,
        k,
        alternative,
        numerator="the first split difference p_1^(1)",
        denominator="the pooled variance Σ s_i²/m",
        notes=extension_note(d.shape[0], "Dietterich's test", "t(m)"),
        alternative_statistics=as_tuples(k.statistics),
        alternative_pvalues=as_tuples(k.pvalues),
        rejections=int(np.sum(k.pvalues <= 0.05)),
        **mx2_fields(d, replications, folds),
    )


@fill_doc
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
    {array_alternative}

    {returns}

    {raises_array}

    Examples
    --------
    >>> from cvreport.arrays import paired_ttest_5x2cv
    >>> res = paired_ttest_5x2cv([[0.02, -0.01], [0.03, 0.00], [0.01, 0.02],
    ...                           [-0.02, 0.01], [0.04, 0.00]])
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df, res.rejections
    (0.953463, 0.384142, 5.0, 0)
    """
    return PAIRED_T_5X2CV.run_arrays(differences, alternative=alternative)


def _blocked_ttest_3x2cv(
    d: np.ndarray, alternative: str, replications: Any = None, folds: Any = None
) -> Mx2TTestResult:
    m = d.shape[0]
    notes: tuple[str, ...] = ()
    if m != 3:
        notes = (
            f"extension to m×2 block-regularized CV (m = {m}): divisor 2m, t(2m − 1) = "
            f"t({2 * m - 1}).",
        )
    return t_result(
        Mx2TTestResult,
        BLOCKED_T_3X2CV,
        blocked_ttest_3x2cv_kernel(d, alternative),
        alternative,
        numerator="the mean split difference",
        denominator="the variance σ̂² of the split differences",
        notes=notes,
        **mx2_fields(d, replications, folds),
    )


@fill_doc
def blocked_ttest_3x2cv_array(differences: Any, alternative: str = "two-sided") -> Mx2TTestResult:
    """The blocked 3×2cv t test from an (m, 2) array of hold-out differences.

    μ̂ = mean of the 2m differences, σ̂² = (1/2m) Σ (μ_ij − μ̂)² (not divided by
    2m again), t = μ̂ / sqrt(σ̂²) ~ t(2m − 1); t(5) on blocked 3×2 partitions
    {P1P2|P3P4}, {P1P3|P2P4}, {P1P4|P2P3}. :meth:`conf_int` is μ̂ ± t quantile × σ̂.

    {parameters_mx2_differences}
    {alternative}

    {returns}

    {raises_array}

    {blocked_3x2_references}

    Examples
    --------
    >>> from cvreport.arrays import blocked_ttest_3x2cv
    >>> res = blocked_ttest_3x2cv([[0.03, 0.01], [0.02, 0.00], [0.04, 0.02]])
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df
    (1.549193, 0.182021, 5.0)
    """
    return BLOCKED_T_3X2CV.run_arrays(differences, alternative=alternative)


def _combined_ttest_5x2cv(
    d: np.ndarray, alternative: str, replications: Any = None, folds: Any = None
) -> Mx2TTestResult:
    notes = (
        "not recommended for decisions: strongly anti-conservative in Yang et al. Table V "
        "(type I error 0.291 at nominal 0.05 on the ε scenario).",
        *extension_note(d.shape[0], "the combined t", "t(m)"),
    )
    return t_result(
        Mx2TTestResult,
        COMBINED_T_5X2CV,
        combined_ttest_5x2cv_kernel(d, alternative),
        alternative,
        numerator="the mean split difference",
        denominator="the pooled variance Σ s_i²/m",
        notes=notes,
        **mx2_fields(d, replications, folds),
    )


@fill_doc
def combined_ttest_5x2cv_array(differences: Any, alternative: str = "two-sided") -> Mx2TTestResult:
    """Yıldız's combined 5×2cv t from an (m, 2) array of split differences.

    t = sqrt(2m) · mean(p) / sqrt(Σ_i s_i² / m) ~ t(m). :meth:`conf_int` is
    mean(p) ± t_m quantile × sqrt(Σ s_i² / m) / sqrt(2m).

    {parameters_mx2_differences}
    {alternative}

    {returns}

    {raises_array}

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
    return COMBINED_T_5X2CV.run_arrays(differences, alternative=alternative)


# ================================================================ table level
@fill_doc
def paired_ttest_5x2cv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> PairedTTest5x2cvResult:
    """Dietterich's 5×2cv paired t test comparing models ``a`` and ``b``.

    t = p_1^(1) / sqrt(Σ_i s_i² / m) ~ t(m) (Alpaydın (1999) eq. 2.1), where p_1^(1) is
    the difference on the first fold (smallest label) of the first replication.
    The result also holds all 2m statistics t_i^(j) and how many reject: the
    choice of numerator can change the decision (Alpaydın (1999) Table 1), which is why
    :func:`combined_ftest_5x2cv` is usually preferred.

    {parameters_pair_alternative_data}

    {returns}

    {raises_mx2_design}

    {examples_mx2}
    >>> res = cvreport.paired_ttest_5x2cv("loss ~ model | replication + fold", data=df)
    >>> res.models, res.df, len(res.alternative_statistics) * 2
    (('A', 'B'), 5.0, 10)
    """
    return PAIRED_T_5X2CV.run(table, a, b, alternative=alternative, data=data)


@fill_doc
def blocked_ttest_3x2cv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> Mx2TTestResult:
    """The blocked 3×2cv t test comparing models ``a`` and ``b``.

    t = μ̂ / sqrt(σ̂²) ~ t(5) over the six hold-out differences of blocked 3×2
    CV, σ̂² with divisor 6 and not divided by 6 again (a deliberately
    conservative estimate). On m×2 block-regularized CV the same authors'
    extension uses divisor 2m and t(2m − 1) (labelled). Warns
    (:class:`~cvreport.errors.PartitionWarning`) when the partitions are not balanced.

    {parameters_pair_alternative_data}

    {returns}

    {raises_mx2_design}

    {blocked_3x2_references}

    {examples_3x2bcv}
    >>> res = cvreport.blocked_ttest_3x2cv("loss ~ model | replication + fold", data=df)
    >>> res.df, res.nobs
    (5.0, 6)
    """
    return BLOCKED_T_3X2CV.run(table, a, b, alternative=alternative, data=data)


@fill_doc
def combined_ttest_5x2cv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> Mx2TTestResult:
    """Yıldız's combined 5×2cv t test comparing models ``a`` and ``b``.

    t = sqrt(2m) · mean(p) / sqrt(Σ_i s_i² / m) ~ t(m). Yang et al. Table V finds
    it strongly anti-conservative (type I error 0.291 at nominal 0.05); use it
    as a labelled comparison, not for decisions.

    {parameters_pair_alternative_data}

    {returns}

    {raises_mx2_design}

    References
    ----------
    Yıldız, O. T. (2013). Omnivariate rule induction using a novel pairwise statistical
    test. IEEE Transactions on Knowledge and Data Engineering 25(9):2105–2118.

    {examples_mx2}
    >>> res = cvreport.combined_ttest_5x2cv("loss ~ model | replication + fold", data=df)
    >>> res.df, res.conf_int()[0] < res.estimate < res.conf_int()[1]
    (5.0, True)
    """
    return COMBINED_T_5X2CV.run(table, a, b, alternative=alternative, data=data)


PAIRED_T_5X2CV = mx2_spec(
    label="5×2cv paired t test",
    method="Dietterich's 5×2cv paired t test",
    reference=REF_DIETTERICH,
    function=paired_ttest_5x2cv,
    result=PairedTTest5x2cvResult,
    statistic="p_1^(1) / sqrt(Σ s_i² / m)",
    distribution="t(m)",
    array_function=paired_ttest_5x2cv_array,
    kernel=paired_ttest_5x2cv_kernel,
    build=_paired_ttest_5x2cv,
    caution=(
        "its numerator uses only the first fold of the first replication, so reordering "
        "the replications can change the decision (Alpaydın 1999)"
    ),
)
BLOCKED_T_3X2CV = mx2_spec(
    label="Blocked 3×2cv t test",
    reference=REF_BLOCKED,
    function=blocked_ttest_3x2cv,
    result=Mx2TTestResult,
    statistic="μ̂ / σ̂",
    distribution="t(5) (t(2m − 1))",
    array_function=blocked_ttest_3x2cv_array,
    kernel=blocked_ttest_3x2cv_kernel,
    build=_blocked_ttest_3x2cv,
    partition_check=balance_warning,
)
COMBINED_T_5X2CV = mx2_spec(
    label="Combined 5×2cv t test",
    method="Yıldız's combined 5×2cv t test",
    reference=REF_YILDIZ,
    function=combined_ttest_5x2cv,
    result=Mx2TTestResult,
    statistic="√(2m) · mean(p) / sqrt(Σ s_i² / m)",
    distribution="t(m)",
    array_function=combined_ttest_5x2cv_array,
    kernel=combined_ttest_5x2cv_kernel,
    build=_combined_ttest_5x2cv,
    caution=(
        "it rejects a true null hypothesis far more often than α in simulations "
        "(type I error 0.291 at α = 0.05, Yang et al., Table V)"
    ),
)
