"""The Wilcoxon signed-rank test over the K per-fold differences (docs/methods.md).

A rank-based counterpart of the K-fold paired t test: it asks whether the
per-fold differences p_k (A − B) are symmetric about 0 without assuming them
normal. The statistic and p-value are scipy.stats.wilcoxon's (zero differences
dropped, Wilcoxon 1945's treatment; exact over the sign flips for small K),
computed for a whole batch at once so that the simulator can run it. Like
the K-fold t test it treats the folds as independent although their training
sets overlap (Dietterich 1998), so it is a labelled baseline.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np
from scipy import stats

from cvreport.errors import DataError
from cvreport.methods._common import OK, ZERO_OVER_ZERO
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.kfold import kfold_spec, rank_test_fields
from cvreport.results import TestResult, check_alternative

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable

__all__ = [
    "MAX_ENUMERATED_FOLDS",
    "WILCOXON_KFOLD",
    "WilcoxonKernel",
    "WilcoxonResult",
    "sign_flip_pvalues",
    "wilcoxon_kfold",
    "wilcoxon_kfold_array",
    "wilcoxon_kfold_kernel",
]

REF_WILCOXON = (
    "Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics Bulletin "
    "1(6):80–83; for comparing classifiers over folds or data sets: Demšar, J. (2006). "
    "Journal of Machine Learning Research 7:1–30, section 3.1.3."
)


class WilcoxonKernel(NamedTuple):
    """The signed-rank statistic, its p-value and the number of non-zero differences."""

    statistic: np.ndarray
    pvalue: np.ndarray
    nonzero: np.ndarray
    degenerate: np.ndarray


#: Up to this many folds the kernel enumerates the 2^K sign flips itself.
MAX_ENUMERATED_FOLDS = 16
_ROWS_PER_BLOCK = 64  # bounds the (rows, 2^K) table of null statistics to some 64 MB


def sign_flip_pvalues(
    ranks: np.ndarray, positive: np.ndarray, alternative: str = "two-sided"
) -> tuple[np.ndarray, np.ndarray]:
    """Rank sums W+ and their p-values over every sign flip, for a batch of rows.

    The exact permutation distribution of the signed-rank statistic (Wilcoxon
    1945): under the null hypothesis each of the 2^K sign patterns of a row is
    equally likely, and W+ sums the ranks given a positive sign. A rank of 0
    (a difference that cannot change sign, e.g. a zero) leaves W+ unchanged
    under its flip, so the proportions equal those over the flips of the other
    entries. Without ties this is the exact signed-rank distribution; with
    tied ranks it is the permutation distribution scipy.stats.wilcoxon uses
    for small samples.

    Parameters
    ----------
    ranks : numpy.ndarray, shape (rows, K)
        The ranks that change sign under a flip (0 for those that cannot), K ≤
        :data:`MAX_ENUMERATED_FOLDS`.
    positive : numpy.ndarray of bool, shape (rows, K)
        Which entries are positive.
    alternative : {"two-sided", "less", "greater"}
        "less": the p-value of W+ this small or smaller; "two-sided": twice the
        smaller one-sided p-value, at most 1.

    Returns
    -------
    w_plus, pvalue : numpy.ndarray, shape (rows,)

    Examples
    --------
    >>> w, p = sign_flip_pvalues(np.array([[1.0, 2, 3, 4, 5]]), np.array([[1, 0, 1, 1, 1]], bool))
    >>> float(w[0]), float(p[0])   # as scipy.stats.wilcoxon([1, -2, 3, 4, 5])
    (13.0, 0.1875)
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    k = ranks.shape[-1]
    if k > MAX_ENUMERATED_FOLDS:
        raise DataError(
            f"the sign flips are enumerated for at most {MAX_ENUMERATED_FOLDS} values, got {k}"
        )
    w_plus = (ranks * np.asarray(positive, dtype=bool)).sum(axis=-1)
    flips = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1).astype(np.float64)
    lower = np.empty(w_plus.shape)
    upper = np.empty(w_plus.shape)
    for block in range(0, ranks.shape[0], _ROWS_PER_BLOCK):
        rows = slice(block, block + _ROWS_PER_BLOCK)
        null = ranks[rows] @ flips.T
        # rank sums are multiples of ½, so the tolerance only absorbs rounding
        lower[rows] = (null <= w_plus[rows, None] + 1e-9).mean(axis=-1)
        upper[rows] = (null >= w_plus[rows, None] - 1e-9).mean(axis=-1)
    if alternative == "less":
        return w_plus, lower
    if alternative == "greater":
        return w_plus, upper
    return w_plus, np.minimum(1.0, 2.0 * np.minimum(lower, upper))


def _sign_flip_pvalues(d: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """W+ and its p-value over every sign flip of the non-zero differences, row by row.

    A zero difference gets rank 0 (Wilcoxon's treatment: zeros dropped), so
    flipping it leaves W+ unchanged (:func:`sign_flip_pvalues`); with ties or
    zeros this is the permutation distribution scipy.stats.wilcoxon uses (there
    at some 0.5 s a row).
    """
    magnitude = np.abs(d)
    nonzero = magnitude != 0
    ranks = stats.rankdata(np.where(nonzero, magnitude, np.nan), axis=-1, nan_policy="omit")
    ranks = np.where(nonzero, ranks, 0.0)
    w_plus, pvalue = sign_flip_pvalues(ranks, d > 0, alternative)
    if alternative != "two-sided":
        return w_plus, pvalue
    w_minus = ranks.sum(axis=-1) - w_plus
    return np.minimum(w_plus, w_minus), pvalue


def wilcoxon_kfold_kernel(differences: Any, alternative: str = "two-sided") -> WilcoxonKernel:
    """The signed-rank test over the last axis of ``(..., K)`` per-fold differences.

    The statistic is scipy.stats.wilcoxon's: min(W+, W−) for "two-sided", W+
    otherwise, zero differences dropped. Up to :data:`MAX_ENUMERATED_FOLDS` folds
    the p-value is computed over all 2^K sign flips at once for the whole batch;
    it equals scipy's exact p-value (and, with ties or zeros, its permutation
    p-value). Beyond, each row goes to scipy.stats.wilcoxon. When every
    difference of a row is 0 no rank is left: statistic 0, p = 1, code
    ``ZERO_OVER_ZERO``.

    >>> k = wilcoxon_kfold_kernel([0.02, -0.01, 0.03, 0.015, 0.04])
    >>> float(k.statistic), float(k.pvalue)
    (1.0, 0.125)
    """
    check_alternative(alternative)
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim == 0 or d.shape[-1] < 1:
        raise DataError(f"differences must have shape (..., K) with K ≥ 1, got {d.shape}")
    batch = d.reshape(-1, d.shape[-1])
    nonzero = np.count_nonzero(batch, axis=-1)
    empty = nonzero == 0
    if batch.shape[-1] <= MAX_ENUMERATED_FOLDS:
        statistic, pvalue = _sign_flip_pvalues(batch, alternative)
    else:
        statistic, pvalue = np.zeros(batch.shape[0]), np.ones(batch.shape[0])
        if not np.all(empty):
            rows = ~empty
            with warnings.catch_warnings():
                # one non-zero difference leaves scipy's normal approximation undefined
                warnings.simplefilter("ignore", RuntimeWarning)
                result = stats.wilcoxon(batch[rows], axis=-1, alternative=alternative)
            statistic[rows] = result.statistic
            pvalue[rows] = np.nan_to_num(result.pvalue, nan=1.0)
    statistic = np.where(empty, 0.0, statistic)
    pvalue = np.where(empty, 1.0, pvalue)
    code = np.where(empty, ZERO_OVER_ZERO, OK).astype(np.int8)
    shape = d.shape[:-1]
    return WilcoxonKernel(
        statistic.reshape(shape), pvalue.reshape(shape), nonzero.reshape(shape), code.reshape(shape)
    )


@dataclass(frozen=True, kw_only=True, repr=False)
class WilcoxonResult(TestResult):
    """The Wilcoxon signed-rank test on per-fold differences.

    Attributes
    ----------
    median : float
        Median of the per-fold differences (A − B).
    nonzero : int
        Folds whose difference is not 0 (the ranks the statistic is built from).
    """

    statistic_kind: ClassVar[str] = "count"

    distribution: str = "Wilcoxon signed-rank"
    median: float = 0.0
    nonzero: int = 0

    _signed_fields: ClassVar[tuple[str, ...]] = ("estimate", "median")

    def _negated_changes(self) -> dict[str, Any]:
        changes = super()._negated_changes()
        if self.alternative != "two-sided":  # W+ of −d is W− of d; min(W+, W−) stays
            changes["statistic"] = self.nonzero * (self.nonzero + 1) / 2.0 - self.statistic
        return changes


def _wilcoxon(d: np.ndarray, alternative: str) -> WilcoxonResult:
    k = wilcoxon_kfold_kernel(d, alternative)
    return WilcoxonResult(
        **rank_test_fields(
            WILCOXON_KFOLD, d, k, alternative, "the models never differ, so no rank is left"
        ),
        nonzero=int(k.nonzero),
    )


@fill_doc
def wilcoxon_kfold_array(differences: Any, *, alternative: str = "two-sided") -> WilcoxonResult:
    """The Wilcoxon signed-rank test from the K per-fold differences p_k (A − B).

    Ranks |p_k| over the non-zero differences; W+ and W− are the rank sums of the
    positive and negative ones (Wilcoxon 1945). The p-value is scipy.stats.wilcoxon's.

    Parameters
    ----------
    differences : array_like, shape (K,)
        Per-fold differences in mean loss, A − B.
    alternative : {"two-sided", "less", "greater"}
        "less": H1 the differences are centred below 0 (A has lower loss).

    {returns}

    {raises_fold_differences}

    {wilcoxon_references}

    Examples
    --------
    >>> from cvreport.arrays import wilcoxon_kfold
    >>> res = wilcoxon_kfold([0.02, -0.01, 0.03, 0.015, 0.04])
    >>> res.statistic, res.pvalue, res.nonzero
    (1.0, 0.125, 5)
    """
    return WILCOXON_KFOLD.run_arrays(differences, alternative=alternative)


@fill_doc
def wilcoxon_kfold(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> WilcoxonResult:
    """The Wilcoxon signed-rank test over the K per-fold differences of models ``a`` and ``b``.

    Works on per-record losses and on per-fold scores of one K-fold run.

    {parameters_pair_alternative_data}

    {returns}

    {raises_kfold_design}

    {wilcoxon_references}

    {examples_kfold_scores}
    >>> res = cvreport.wilcoxon_kfold(table, "A", "B", alternative="less")
    >>> res.statistic, res.pvalue
    (0.0, 0.015625)
    """
    return WILCOXON_KFOLD.run(table, a, b, alternative=alternative, data=data)


WILCOXON_KFOLD = kfold_spec(
    label="Wilcoxon signed-rank test",
    method="Wilcoxon signed-rank test over K-fold differences",
    reference=REF_WILCOXON,
    function=wilcoxon_kfold,
    result=WilcoxonResult,
    statistic="rank sum W+ (min(W+, W−) two-sided) of the non-zero p_k",
    distribution="Wilcoxon signed-rank (exact for small K)",
    array_function=wilcoxon_kfold_array,
    kernel=wilcoxon_kfold_kernel,
    build=_wilcoxon,
)
