"""McNemar's test for hold-out, K-fold and block-regularized 5×2 CV (docs/methods.md).

On a validation fold, the 2×2 table of the two models' 0/1 losses has n00 (both
wrong), n01 (A wrong, B right), n10 (A right, B wrong) and n11 (both right);
b = n01 and c = n10 are the discordant counts (Yang et al. Table I).

* :func:`mcnemar` — the hold-out test, with the continuity-corrected
  (Edwards), uncorrected, exact binomial and mid-p variants;
* :func:`mcnemar_kfold` — the naive sum over K folds, χ²(K) (not recommended);
* :func:`mcnemar_5x2bcv` — the block-regularized 5×2 CV test on the effective
  table, with the Bayesian reading of that table (Yang et al. §2.2, §4.4–4.5),
  is in :mod:`cvreport.methods.mcnemar_bcv`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from scipy import special

from cvreport.errors import CVReportError, DataError
from cvreport.methods._common import (
    NO_DISCORDANT,
    OK,
    check_counts,
    chi2_sf,
    kernel_fields,
    sorted_contingency,
)
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.spec import (
    KFOLD_REQUIREMENT,
    TestSpec,
    holdout_discordant,
    kfold_discordant,
)
from cvreport.results import TestResult
from cvreport.summary_data import SummaryRow, SummaryTable

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable

__all__ = [
    "MCNEMAR",
    "MCNEMAR_KFOLD",
    "MCNEMAR_METHODS",
    "McNemarKFoldKernel",
    "McNemarKFoldResult",
    "McNemarKernel",
    "McNemarResult",
    "mcnemar",
    "mcnemar_array",
    "mcnemar_kernel",
    "mcnemar_kfold",
    "mcnemar_kfold_array",
    "mcnemar_kfold_kernel",
]

MCNEMAR_METHODS = ("corrected", "uncorrected", "exact", "midp")

REF_MCNEMAR = (
    "McNemar, Q. (1947). Note on the sampling error of the difference between correlated "
    "proportions or percentages. Psychometrika 12(2):153–157; continuity correction: "
    "Edwards, A. L. (1948). Psychometrika 13(3):185–187; for comparing classifiers: "
    "Dietterich, T. G. (1998). Neural Computation 10(7):1895–1923."
)
REF_KFOLD = (
    "Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated McNemar's "
    "test for comparing two classification algorithms, eq. 5 (the naive K-fold CV McNemar)."
)

_METHOD_NAMES = {
    "corrected": "McNemar's test (continuity-corrected)",
    "uncorrected": "McNemar's test (uncorrected)",
    "exact": "McNemar's exact binomial test",
    "midp": "McNemar's mid-p test",
}


# ================================================================ kernels
class McNemarKernel(NamedTuple):
    """Statistic, p-value and degenerate code (:data:`NO_DISCORDANT` when b + c = 0)."""

    statistic: np.ndarray
    pvalue: np.ndarray
    degenerate: np.ndarray


def _binomial_half_cdf(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """P(X ≤ k) for X ~ Bin(n, ½), k < n (regularized incomplete beta; counts may be floats)."""
    return special.betainc(np.maximum(n - k, 1e-300), k + 1.0, 0.5)


def _binomial_half_pmf(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """P(X = k) for X ~ Bin(n, ½), in log space."""
    log_pmf = (
        special.gammaln(n + 1.0)
        - special.gammaln(k + 1.0)
        - special.gammaln(n - k + 1.0)
        - n * math.log(2.0)
    )
    return np.exp(log_pmf)


def _chi2_statistic(b: np.ndarray, c: np.ndarray, corrected: bool) -> np.ndarray:
    """(max(|b − c| − 1, 0))² / (b + c) (or uncorrected); 0 where b + c = 0."""
    n = b + c
    diff = np.abs(b - c)
    if corrected:
        diff = np.maximum(diff - 1.0, 0.0)
    return np.where(n == 0, 0.0, diff**2 / np.where(n == 0, 1.0, n))


def mcnemar_kernel(b: Any, c: Any, method: str = "corrected") -> McNemarKernel:
    """McNemar's test on discordant counts ``b`` (A wrong, B right) and ``c``, any shape.

    * ``"corrected"``: (max(|b − c| − 1, 0))² / (b + c) ~ χ²(1)
    * ``"uncorrected"``: (b − c)² / (b + c) ~ χ²(1)
    * ``"exact"``: statistic min(b, c), p = min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, ½)
    * ``"midp"``: exact p − P(X = min(b, c)); 1 − ½·P(X = b) when b = c

    b + c = 0 gives statistic 0 and p = 1 with code :data:`NO_DISCORDANT`.

    >>> k = mcnemar_kernel([12, 0], [4, 0])
    >>> k.statistic.tolist(), k.pvalue.round(6).tolist(), k.degenerate.tolist()
    ([3.0625, 0.0], [0.080118, 1.0], [0, 4])
    """
    if method not in MCNEMAR_METHODS:
        raise CVReportError(f"method must be one of {MCNEMAR_METHODS}, got {method!r}")
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    n = b + c
    empty = n == 0
    safe_n = np.where(empty, 1.0, n)
    if method in ("corrected", "uncorrected"):
        statistic = _chi2_statistic(b, c, method == "corrected")
        pvalue = chi2_sf(statistic, 1)
    else:
        k = np.minimum(b, c)
        statistic = k
        equal = b == c
        cdf = _binomial_half_cdf(k, safe_n)
        exact = np.where(equal, 1.0, np.minimum(1.0, 2.0 * cdf))
        if method == "exact":
            pvalue = exact
        else:
            pmf = _binomial_half_pmf(k, safe_n)
            pvalue = np.where(equal, 1.0 - 0.5 * pmf, exact - pmf)
    statistic = np.where(empty, 0.0, statistic)
    pvalue = np.clip(np.where(empty, 1.0, pvalue), 0.0, 1.0)
    code = np.where(empty, NO_DISCORDANT, OK).astype(np.int8)
    return McNemarKernel(statistic, pvalue, code)


class McNemarKFoldKernel(NamedTuple):
    """The naive K-fold McNemar: sum of per-fold corrected statistics ~ χ²(K)."""

    statistic: np.ndarray
    pvalue: np.ndarray
    df: float
    fold_statistics: np.ndarray
    empty_folds: np.ndarray
    degenerate: np.ndarray


def mcnemar_kfold_kernel(b: Any, c: Any) -> McNemarKFoldKernel:
    """Σ_k M_k (corrected per fold) ~ χ²(K) over arrays ``(..., K)`` (Yang et al. eq. 5).

    A fold without discordant records contributes 0; when every fold is empty
    the code is :data:`NO_DISCORDANT` (statistic 0, p = 1).

    >>> k = mcnemar_kfold_kernel([12, 5], [4, 5])
    >>> float(k.statistic), round(float(k.pvalue), 6), k.df
    (3.0625, 0.216265, 2.0)
    """
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    if b.ndim == 0 or b.shape != c.shape:
        raise DataError(
            f"b and c must be arrays of the same shape (..., K), got {b.shape} and {c.shape}"
        )
    fold_statistics = _chi2_statistic(b, c, corrected=True)
    statistic = fold_statistics.sum(axis=-1)
    k = b.shape[-1]
    empty = (b + c == 0).sum(axis=-1)
    pvalue = chi2_sf(statistic, k)
    code = np.where(empty == k, NO_DISCORDANT, OK).astype(np.int8)
    pvalue = np.where(code == NO_DISCORDANT, 1.0, pvalue)
    return McNemarKFoldKernel(statistic, pvalue, float(k), fold_statistics, empty, code)


# ================================================================ results
@dataclass(frozen=True, kw_only=True, repr=False)
class McNemarResult(TestResult):
    """Hold-out McNemar test; defines no confidence interval.

    Attributes
    ----------
    b, c : int
        Discordant counts: b = n01 (A wrong, B right), c = n10 (A right, B wrong).
    variant : str
        "corrected", "uncorrected", "exact" or "midp".
    """

    b: float = 0
    c: float = 0
    variant: str = "corrected"

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        rows = super()._summary_rows(alpha)
        rows.insert(2, SummaryRow("b = n01 (A wrong, B right)", self.b, "value"))
        rows.insert(3, SummaryRow("c = n10 (A right, B wrong)", self.c, "value"))
        return rows


@dataclass(frozen=True, kw_only=True, repr=False)
class McNemarKFoldResult(TestResult):
    """The naive K-fold McNemar test; defines no confidence interval.

    Attributes
    ----------
    fold_statistics : tuple of float
        The corrected McNemar statistic of each fold.
    b, c : tuple of float
        Discordant counts per fold.
    fold_labels : tuple of str
        Fold labels in sorted order.
    """

    distribution: str = "chi2"
    fold_statistics: tuple[float, ...] = ()
    b: tuple[float, ...] = ()
    c: tuple[float, ...] = ()
    fold_labels: tuple[str, ...] = ()

    def _summary_tables(self, alpha: float = 0.05) -> list[SummaryTable]:
        rows = tuple(
            (fold, float(b), float(c), float(s))
            for fold, b, c, s in zip(self.fold_labels, self.b, self.c, self.fold_statistics)
        )
        return [
            SummaryTable(
                caption="Per-fold McNemar statistics (continuity-corrected)",
                columns=("fold", "b", "c", "statistic"),
                rows=rows,
                kinds=("text", "value", "value", "number"),
            )
        ]


# ================================================================ array level
def _count(value: float) -> float:
    """A count as an int when it is whole (so that summaries print 29, not 29.0000)."""
    number = float(value)
    return int(number) if number.is_integer() else number


def _check_method(method: str) -> None:
    if method not in MCNEMAR_METHODS:
        raise CVReportError(f"method must be one of {MCNEMAR_METHODS}, got {method!r}")


#: Below this many discordant records the χ² approximation of McNemar's statistic is
#: rough and the summary gives the exact and mid-p p-values beside it (docs/methods.md).
FEW_DISCORDANT = 25


def small_count_note(b: float, c: float) -> str | None:
    """For the χ² variants: a note naming b + c and the exact and mid-p p-values when b + c
    is below :data:`FEW_DISCORDANT` (and not 0, which warns on its own); None otherwise.

    >>> print(small_count_note(3, 6))  # doctest: +NORMALIZE_WHITESPACE
    the χ² approximation rests on b + c = 9 discordant records (fewer than 25): the exact
    binomial test gives p = 0.5078 (method='exact') and its mid-p variant p = 0.3438
    (method='midp'); prefer one of them with so few
    """
    discordant = b + c
    if not 0 < discordant < FEW_DISCORDANT:
        return None
    exact = float(mcnemar_kernel(b, c, "exact").pvalue)
    midp = float(mcnemar_kernel(b, c, "midp").pvalue)
    return (
        f"the χ² approximation rests on b + c = {discordant:g} discordant records (fewer than "
        f"{FEW_DISCORDANT}): the exact binomial test gives p = {exact:.4g} (method='exact') and "
        f"its mid-p variant p = {midp:.4g} (method='midp'); prefer one of them with so few"
    )


def _mcnemar(
    b: float, c: float, n: float | None = None, *, method: str = "corrected"
) -> McNemarResult:
    k = mcnemar_kernel(b, c, method)  # refuses an unknown method
    chi2 = method in ("corrected", "uncorrected")
    fields = kernel_fields(MCNEMAR, k, "two-sided", numerator="")
    note = small_count_note(b, c) if chi2 else None
    if note is not None:
        fields["notes"] = (*fields.get("notes", ()), note)
    return McNemarResult(
        **(fields | {"method": _METHOD_NAMES[method]}),
        df=1.0 if chi2 else None,
        distribution="chi2" if chi2 else "binomial",
        estimate=None if not n else (b - c) / n,
        nobs=None if n is None else int(n),
        design="hold-out (one validation fold)",
        b=_count(b),
        c=_count(c),
        variant=method,
    )


def _check_holdout_counts(
    b: float, c: float, n: float | None = None
) -> tuple[float, float, float | None]:
    """b, c and n (None) as counts, n no smaller than b + c."""
    counts = check_counts([b, c], "b and c")
    total = None
    if n is not None:
        total = float(check_counts(n, "n"))
        if total < counts.sum():
            raise DataError(f"n = {n} is smaller than b + c = {counts.sum():g}")
    return float(counts[0]), float(counts[1]), total


def _holdout_counts(
    spec: TestSpec, table: ResultsTable, pair: Any, stats: Any, options: dict[str, Any]
) -> tuple[tuple[float, float, float], dict[str, Any]]:
    """b, c and n of the one validation fold, from the per-record 2×2 counts."""
    frame = sorted_contingency(table, *pair, spec.name)
    counts = frame[["n00", "n01", "n10", "n11"]].to_numpy(dtype=np.float64).sum(axis=0)
    return (float(counts[1]), float(counts[2]), float(counts.sum())), options


@fill_doc
def mcnemar_array(
    b: float, c: float, method: str = "corrected", *, n: float | None = None
) -> McNemarResult:
    """McNemar's test from the discordant counts of one validation fold.

    ``"corrected"`` (default): (max(|b − c| − 1, 0))² / (b + c) ~ χ²(1), the
    Edwards continuity correction clamped at 0; ``"uncorrected"``:
    (b − c)² / (b + c); ``"exact"``: p = min(1, 2·BinomCDF(min(b, c); b + c, ½));
    ``"midp"``: exact p − BinomPMF(min(b, c); b + c, ½) (1 − ½·BinomPMF(b; 2b, ½)
    when b = c). b + c = 0 gives statistic 0 and p = 1 with a warning.

    Parameters
    ----------
    b, c : int
        b = n01 (A wrong, B right), c = n10 (A right, B wrong).
    method : {"corrected", "uncorrected", "exact", "midp"}
    n : int, optional
        Validation-set size; when given, ``estimate`` = (b − c)/n, the error of A − B.

    {returns}

    {raises_array}

    {mcnemar_references}

    Examples
    --------
    >>> from cvreport.arrays import mcnemar
    >>> res = mcnemar(12, 4)
    >>> res.statistic, round(res.pvalue, 6)
    (3.0625, 0.080118)
    >>> round(mcnemar(12, 4, method="midp").pvalue, 6)
    0.049042
    """
    return MCNEMAR.run_arrays(b, c, n, method=method)


def _mcnemar_kfold(
    b: np.ndarray, c: np.ndarray, folds: Any = None, n: float | None = None
) -> McNemarKFoldResult:
    k = mcnemar_kfold_kernel(b, c)
    labels = (
        tuple(str(f) for f in folds)
        if folds is not None
        else tuple(str(i + 1) for i in range(b.size))
    )
    fields = kernel_fields(MCNEMAR_KFOLD, k, "two-sided", numerator="")
    empty = [labels[i] for i in np.flatnonzero(b + c == 0)]
    if empty and not fields["warnings"]:
        fields["warnings"] = (
            f"folds {', '.join(empty)} have no discordant records (b + c = 0); each "
            "contributes statistic 0 by convention.",
        )
    return McNemarKFoldResult(
        **fields,
        df=k.df,
        estimate=None if not n else float((b.sum() - c.sum()) / n),
        nobs=None if n is None else int(n),
        design=f"{b.size}-fold cross-validation (counts given directly)",
        notes=(
            "not recommended: the fold statistics are correlated (overlapping training "
            "sets), so the χ²(K) reference distribution does not hold; Yang et al. Table V "
            "finds it never rejects under H0 (type I error 0.000).",
        ),
        fold_statistics=tuple(float(s) for s in k.fold_statistics),
        b=tuple(_count(x) for x in b),
        c=tuple(_count(x) for x in c),
        fold_labels=labels,
    )


def _check_fold_counts(b: Any, c: Any) -> tuple[np.ndarray, np.ndarray]:
    """The per-fold b and c as counts of one length."""
    b_arr = check_counts(b, "b")
    c_arr = check_counts(c, "c")
    if b_arr.ndim != 1 or b_arr.shape != c_arr.shape:
        raise DataError(
            f"b and c must be 1-D arrays of equal length (one count per fold), got "
            f"shapes {b_arr.shape} and {c_arr.shape}"
        )
    return b_arr, c_arr


def _fold_counts(
    spec: TestSpec, table: ResultsTable, pair: Any, stats: Any, options: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """b and c of every fold with the fold labels and n, from the per-record 2×2 counts."""
    frame = sorted_contingency(table, *pair, spec.name)
    b_counts = frame["n01"].to_numpy(dtype=np.float64)
    c_counts = frame["n10"].to_numpy(dtype=np.float64)
    n = float(frame[["n00", "n01", "n10", "n11"]].to_numpy().sum())
    return (b_counts, c_counts, frame["fold"].tolist(), n), options


@fill_doc
def mcnemar_kfold_array(b: Any, c: Any) -> McNemarKFoldResult:
    """The naive K-fold CV McNemar test from per-fold discordant counts.

    Σ_k (max(|b_k − c_k| − 1, 0))² / (b_k + c_k) ~ χ²(K) (Yang et al. eq. 5); folds
    with b_k + c_k = 0 contribute 0. Not recommended: the folds are correlated.

    Parameters
    ----------
    b, c : array_like
        Discordant counts per fold: b = n01 (A wrong, B right), c = n10 (A right, B wrong).

    {returns}

    {raises_array}

    {kfold_mcnemar_references}

    Examples
    --------
    >>> from cvreport.arrays import mcnemar_kfold
    >>> res = mcnemar_kfold([12, 5], [4, 5])
    >>> res.statistic, res.df, round(res.pvalue, 6)
    (3.0625, 2.0, 0.216265)
    """
    return MCNEMAR_KFOLD.run_arrays(b, c)


# ================================================================ table level
@fill_doc
def mcnemar(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    method: str = "corrected",
    data: pd.DataFrame | None = None,
) -> McNemarResult:
    """McNemar's test on the single validation fold of a hold-out design.

    b = n01 (A wrong, B right), c = n10 (A right, B wrong). ``method``:
    ``"corrected"`` (default; Edwards' continuity correction, clamped at 0),
    ``"uncorrected"``, ``"exact"`` (binomial) or ``"midp"``. Needs per-record
    0/1 losses. When b + c = 0 the result is statistic 0, p = 1 with a warning
    (statsmodels and mlxtend return p = 0 for the corrected statistic there).

    {parameters_pair}
    method : {"corrected", "uncorrected", "exact", "midp"}
        Edwards' continuity-corrected χ² (default), the plain χ², the exact binomial
        test or its mid-p variant.
    {data}

    {returns}

    Raises
    ------
    DesignError
        Unless the table is a hold-out design (one replication, one validation fold)
        with per-record losses.
    DataError
        When the losses are not 0/1.

    {mcnemar_references}

    {examples_holdout}
    >>> res = cvreport.mcnemar("loss ~ model", data=df, method="exact")
    >>> res.distribution, res.models
    ('binomial', ('A', 'B'))
    """
    _check_method(method)
    return MCNEMAR.run(table, a, b, data=data, method=method)


@fill_doc
def mcnemar_kfold(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    data: pd.DataFrame | None = None,
) -> McNemarKFoldResult:
    """The naive K-fold CV McNemar test: Σ_k M_k^HO ~ χ²(K) (Yang et al. eq. 5).

    Reported for comparison only: the folds share training data, the statistics
    are correlated, and the test is far from its nominal level (Yang et al. Table V).

    {parameters_pair_data}

    {returns}

    Raises
    ------
    DesignError
        Unless the table is a K-fold design (one replication, K ≥ 2 folds) with
        per-record losses.

    {kfold_mcnemar_references}

    {examples_kfold}
    >>> res = cvreport.mcnemar_kfold("loss ~ model | replication + fold", data=df)
    >>> res.df, len(res.fold_statistics)
    (5.0, 5)
    """
    return MCNEMAR_KFOLD.run(table, a, b, data=data)


MCNEMAR = TestSpec(
    label="McNemar test",
    method="McNemar's test (continuity-corrected)",
    reference=REF_MCNEMAR,
    designs=("holdout",),
    requirement=(
        "a hold-out design (one replication with one validation fold); use mcnemar_kfold "
        "for K-fold or mcnemar_5x2bcv for m×2 designs"
    ),
    function=mcnemar,
    result=McNemarResult,
    statistic="(max(\\|b − c\\| − 1, 0))² / (b + c)",
    distribution="χ²(1) (or exact binomial)",
    array_function=mcnemar_array,
    kernel=mcnemar_kernel,
    inputs=holdout_discordant,
    build=_mcnemar,
    check_inputs=_check_holdout_counts,
    prepare=_holdout_counts,
    needs_binary=True,
    needs_per_record=True,
    takes_alternative=False,
)
MCNEMAR_KFOLD = TestSpec(
    label="Naive K-fold McNemar test",
    method="Naive K-fold CV McNemar test",
    reference=REF_KFOLD,
    designs=("kfold",),
    requirement=KFOLD_REQUIREMENT,
    function=mcnemar_kfold,
    result=McNemarKFoldResult,
    statistic="Σ_k M_k",
    distribution="χ²(K)",
    array_function=mcnemar_kfold_array,
    kernel=mcnemar_kfold_kernel,
    inputs=kfold_discordant,
    build=_mcnemar_kfold,
    check_inputs=_check_fold_counts,
    prepare=_fold_counts,
    needs_binary=True,
    needs_per_record=True,
    caution=(
        "it adds up McNemar statistics of folds as if they were independent, which they "
        "are not; a labelled baseline only"
    ),
    takes_alternative=False,
)
