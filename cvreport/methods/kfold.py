"""The K-fold cross-validated paired t test (docs/methods.md; Alpaydın (2014) eq. 19.14)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cvreport.errors import DataError
from cvreport.methods._common import (
    ZERO_OVER_ZERO,
    TKernel,
    as_array,
    kernel_fields,
    t_kernel,
    t_result,
    zero_spread,
)
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.spec import KFOLD_REQUIREMENT, TestSpec, kfold_differences
from cvreport.results import TTestResult

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable

__all__ = [
    "KFOLD_RANK_CAUTION",
    "KFOLD_T_CAUTION",
    "PAIRED_T_KFOLD",
    "SMALLEST_PVALUE_WORDS",
    "check_fold_differences",
    "paired_ttest_kfold",
    "paired_ttest_kfold_array",
    "paired_ttest_kfold_kernel",
    "rank_test_fields",
    "sample_standard_error",
]

REF_KFOLD_T = (
    "Alpaydın, E. Introduction to Machine Learning, ch. 'Design and analysis of machine "
    "learning experiments', eq. 19.14 (K-fold cross-validated paired t test); Dietterich, "
    "T. G. (1998). Neural Computation 10(7):1895–1923."
)


#: What the corrected t test does about the overlap, named as a report names it.
_CORRECTED_INSTEAD = (
    "the corrected repeated K-fold CV t test widens the variance to allow for the overlap "
    "(Nadeau and Bengio 2003)"
)
#: Why the K-fold t test misleads: its spec's caution and, with a full stop, its result's
#: note; a report that shows the caution leaves out the note that repeats it.
KFOLD_T_CAUTION = (
    "the K training sets overlap, so the fold differences are correlated, their variance is "
    "underestimated and the test rejects a true null hypothesis too often (Dietterich 1998); "
    + _CORRECTED_INSTEAD
)
#: The same for the rank tests over K-fold differences (Wilcoxon signed-rank, sign test).
KFOLD_RANK_CAUTION = (
    "like the K-fold cross-validated paired t test it treats the folds as independent "
    "although their training sets overlap, so it rejects a true null hypothesis too often "
    "(Dietterich 1998); " + _CORRECTED_INSTEAD
)


def sample_standard_error(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error S/√K (S² with divisor K − 1) along the last axis.

    Exact 0 when all values are equal; NaN-free for K = 1 (standard error 0).

    >>> mean, se = sample_standard_error([0.01, 0.03, 0.02])
    >>> round(float(mean), 6), round(float(se), 6)
    (0.02, 0.005774)
    """
    x = np.asarray(values, dtype=np.float64)
    k = x.shape[-1]
    equal = zero_spread(x)
    mean = np.where(equal, x[..., 0], x.mean(axis=-1))
    if k < 2:
        return mean, np.zeros_like(mean)
    variance = ((x - mean[..., None]) ** 2).sum(axis=-1) / (k - 1)
    variance = np.where(equal, 0.0, variance)
    return mean, np.sqrt(variance / k)


def paired_ttest_kfold_kernel(differences: Any, alternative: str = "two-sided") -> TKernel:
    """t = √K · mean(p) / S ~ t(K − 1) over arrays ``(..., K)`` of per-fold differences.

    K = 1 gives code ``NO_DEGREES_OF_FREEDOM`` (statistic 0, p = 1).

    >>> k = paired_ttest_kfold_kernel([0.02, -0.01, 0.03, 0.00, 0.01])
    >>> round(float(k.statistic), 6), round(float(k.pvalue), 6), k.df
    (1.414214, 0.2302, 4.0)
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim == 0 or d.shape[-1] < 1:
        raise DataError(f"differences must have shape (..., K) with K ≥ 1, got {d.shape}")
    mean, se = sample_standard_error(d)
    return t_kernel(mean, se, float(d.shape[-1] - 1), alternative)


def _paired_ttest_kfold(d: np.ndarray, alternative: str, folds: Any = None) -> TTestResult:
    k = paired_ttest_kfold_kernel(d, alternative)
    return t_result(
        TTestResult,
        PAIRED_T_KFOLD,
        k,
        alternative,
        numerator="the mean fold difference",
        denominator="the standard error S/√K",
        estimate=float(k.center),
        nobs=int(d.size),
        design=f"{d.size}-fold cross-validation (differences given directly)",
        notes=(f"{KFOLD_T_CAUTION}.",),
    )


def rank_test_fields(
    spec: TestSpec, d: np.ndarray, kernel: Any, alternative: str, no_statistic: str
) -> dict[str, Any]:
    """The result fields the rank and sign tests over K per-fold differences ``d`` share.

    Those of :func:`~cvreport.methods._common.kernel_fields`, the mean and median
    difference, the design, the caution of :data:`KFOLD_RANK_CAUTION` and, when every
    difference is 0, a warning that says why no statistic is left (``no_statistic``).
    """
    warnings_: tuple[str, ...] = ()
    if int(kernel.degenerate) == ZERO_OVER_ZERO:
        warnings_ = (
            f"every fold difference is 0: {no_statistic}; by convention statistic = 0 and p = 1.",
        )
    notes = (f"{KFOLD_RANK_CAUTION}.", *_smallest_pvalue_note(d, alternative))
    return {
        **kernel_fields(spec, kernel, alternative),
        "estimate": float(d.mean()),
        "median": float(np.median(d)),
        "nobs": int(d.size),
        "design": f"{d.size}-fold cross-validation (differences given directly)",
        "warnings": warnings_,
        "notes": notes,
    }


#: The words of the note on a rank test's smallest attainable p-value, by which a report
#: that says the same against its own α leaves the result's note out.
SMALLEST_PVALUE_WORDS = "the smallest p-value this test can give"


def _smallest_pvalue_note(d: np.ndarray, alternative: str) -> tuple[str, ...]:
    """Words for a sign or signed-rank test that cannot reach p ≤ 0.05 with so few folds.

    Both drop zero differences; of the 2^n equally likely sign patterns of the n others,
    only "all of one sign" is as extreme as itself (Wilcoxon 1945), so the smallest p is
    2^−n one-sided and 2^(1−n) two-sided: 0.0625 for five folds.
    """
    n = int(np.count_nonzero(d))
    if n == 0:
        return ()
    sides = "two-sided" if alternative == "two-sided" else "one-sided"
    smallest = min(1.0, 2.0 ** (1 - n) if sides == "two-sided" else 2.0**-n)
    if smallest <= 0.05:
        return ()
    return (
        f"with {n} non-zero fold difference{'s' if n != 1 else ''} {SMALLEST_PVALUE_WORDS} "
        f"({sides}) is {smallest:.4g}, when every difference has the same "
        f"sign: it rejects at no level below {smallest:.4g}.",
    )


def check_fold_differences(differences: Any) -> np.ndarray:
    """The K per-fold differences as a 1-D float array (the K-fold tests' array input).

    Raises
    ------
    DataError
        When they are not numeric, hold a missing or infinite value, or are not 1-D.
    """
    d = as_array(differences, "differences")
    if d.ndim != 1:
        raise DataError(f"differences must be a 1-D array of K per-fold values, got {d.shape}")
    return d


@fill_doc
def paired_ttest_kfold_array(differences: Any, *, alternative: str = "two-sided") -> TTestResult:
    """The K-fold CV paired t test from the K per-fold differences p_k (A − B).

    m = mean(p), S² = Σ (p_k − m)² / (K − 1), t = √K·m / S ~ t(K − 1) (Alpaydın (2014)
    eq. 19.14). :meth:`conf_int` is m ± t_{K−1} quantile × S/√K. A single fold
    leaves no degrees of freedom: statistic 0, p = 1 with a warning.

    Parameters
    ----------
    {kfold_differences}
    {alternative}

    {returns}

    {raises_array}

    Examples
    --------
    >>> from cvreport.arrays import paired_ttest_kfold
    >>> res = paired_ttest_kfold([0.02, -0.01, 0.03, 0.00, 0.01])
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df
    (1.414214, 0.2302, 4.0)
    """
    return PAIRED_T_KFOLD.run_arrays(differences, alternative=alternative)


@fill_doc
def paired_ttest_kfold(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> TTestResult:
    """The K-fold cross-validated paired t test comparing models ``a`` and ``b``.

    t = √K · mean(p) / S ~ t(K − 1) over the K per-fold differences in mean
    loss (Alpaydın (2014) eq. 19.14). Works on per-fold scores too.

    {parameters_pair}
    alternative : {"two-sided", "less", "greater"}
        "less": H1 A − B < 0 in the metric (A has the lower loss, or score): the
        one-tailed test of Alpaydın (2014) for a loss.
    {data}

    {returns}

    Raises
    ------
    DesignError
        Unless the table is a K-fold design (one replication, K ≥ 2 folds); for
        repeated K-fold use ``corrected_repeated_kfold_ttest``.

    {examples_kfold}
    >>> res = cvreport.paired_ttest_kfold("loss ~ model | replication + fold", data=df, alternative="less")
    >>> res.df, res.alternative
    (4.0, 'less')
    """
    return PAIRED_T_KFOLD.run(table, a, b, alternative=alternative, data=data)


def kfold_spec(**facts: Any) -> TestSpec:
    """The spec of a test over the K per-fold differences of one K-fold run."""
    defaults = {
        "designs": ("kfold",),
        "requirement": KFOLD_REQUIREMENT,
        "inputs": kfold_differences,
        "check_inputs": check_fold_differences,
        "caution": KFOLD_RANK_CAUTION,
    }
    return TestSpec(**(defaults | facts))


PAIRED_T_KFOLD = kfold_spec(
    label="K-fold paired t test",
    method="K-fold cross-validated paired t test",
    reference=REF_KFOLD_T,
    requirement=f"{KFOLD_REQUIREMENT}; for repeated K-fold use corrected_repeated_kfold_ttest",
    function=paired_ttest_kfold,
    result=TTestResult,
    statistic="√K · mean(p) / S",
    distribution="t(K − 1)",
    array_function=paired_ttest_kfold_array,
    kernel=paired_ttest_kfold_kernel,
    build=_paired_ttest_kfold,
    caution=KFOLD_T_CAUTION,
)
