"""The sign test over the K per-fold differences (docs/methods.md).

The simplest test of whether model A beats model B fold by fold: count the
folds where A's loss is higher (p_k > 0) and those where it is lower
(p_k < 0), drop the folds where they tie (p_k = 0, Dixon & Mood 1946), and
refer the count of positive differences to Binomial(n, 1/2) over the n folds
that do not tie. It uses only the signs, so it assumes neither normality nor
symmetry, and gives the exact p-value of scipy.stats.binomtest for a whole
batch at once. Like the K-fold t and Wilcoxon tests it treats the folds as
independent although their training sets overlap (Dietterich 1998), so it is
a labelled baseline.
"""

from __future__ import annotations

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

__all__ = ["SIGN_TEST", "SignKernel", "SignTestResult", "sign_test", "sign_test_array"]

REF_SIGN = (
    "Dixon, W. J., Mood, A. M. (1946). The statistical sign test. Journal of the American "
    "Statistical Association 41(236):557–566; for comparing classifiers: Demšar, J. (2006). "
    "Journal of Machine Learning Research 7:1–30, section 3.1.4 (counts of wins, losses "
    "and ties)."
)


class SignKernel(NamedTuple):
    """The count of positive differences, its p-value and the folds that do not tie."""

    statistic: np.ndarray
    pvalue: np.ndarray
    nonzero: np.ndarray
    degenerate: np.ndarray


def sign_test_kernel(differences: Any, alternative: str = "two-sided") -> SignKernel:
    """The sign test over the last axis of ``(..., K)`` per-fold differences.

    With X the number of positive differences among the n non-zero ones, the
    p-value is the exact binomial one under Binomial(n, 1/2), as
    scipy.stats.binomtest's: "less" P(X ≤ x), "greater" P(X ≥ x), "two-sided"
    twice the smaller tail, at most 1. The statistic is x for a one-sided
    alternative and min(x, n − x) for "two-sided" (so that it does not depend
    on which model is A). When every difference is 0 no sign is left:
    statistic 0, p = 1, code ``ZERO_OVER_ZERO``.

    >>> k = sign_test_kernel([0.02, -0.01, 0.03, 0.015, 0.04, 0.0])
    >>> float(k.statistic), float(k.pvalue), int(k.nonzero)
    (1.0, 0.375, 5)
    """
    check_alternative(alternative)
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim == 0 or d.shape[-1] < 1:
        raise DataError(f"differences must have shape (..., K) with K ≥ 1, got {d.shape}")
    positive = np.count_nonzero(d > 0, axis=-1)
    nonzero = positive + np.count_nonzero(d < 0, axis=-1)
    lower = stats.binom.cdf(positive, nonzero, 0.5)
    upper = stats.binom.sf(positive - 1, nonzero, 0.5)
    statistic = positive
    if alternative == "less":
        pvalue = lower
    elif alternative == "greater":
        pvalue = upper
    else:
        pvalue = np.minimum(1.0, 2.0 * np.minimum(lower, upper))
        statistic = np.minimum(positive, nonzero - positive)
    empty = nonzero == 0
    return SignKernel(
        statistic=np.asarray(statistic, dtype=np.float64),
        pvalue=np.where(empty, 1.0, pvalue),
        nonzero=np.asarray(nonzero),
        degenerate=np.where(empty, ZERO_OVER_ZERO, OK).astype(np.int8),
    )


@dataclass(frozen=True, kw_only=True, repr=False)
class SignTestResult(TestResult):
    """The sign test on per-fold differences.

    Attributes
    ----------
    positive, negative : int
        Folds where A − B is above 0 and below 0 (A's loss higher, lower).
    ties : int
        Folds where A and B tie (dropped, Dixon & Mood 1946).
    median : float
        Median of the per-fold differences (A − B).
    """

    statistic_kind: ClassVar[str] = "count"

    distribution: str = "binomial(n, 1/2)"
    positive: int = 0
    negative: int = 0
    ties: int = 0
    median: float = 0.0

    _signed_fields: ClassVar[tuple[str, ...]] = ("estimate", "median")

    def _negated_changes(self) -> dict[str, Any]:
        changes = super()._negated_changes()
        changes.update(positive=self.negative, negative=self.positive)
        if self.alternative != "two-sided":  # the count of positive differences of −d
            changes["statistic"] = float(self.negative)
        return changes


def _sign_test(d: np.ndarray, alternative: str) -> SignTestResult:
    k = sign_test_kernel(d, alternative)
    positive = int(np.count_nonzero(d > 0))
    return SignTestResult(
        **rank_test_fields(
            SIGN_TEST, d, k, alternative, "the models tie on every fold, so no sign is left"
        ),
        positive=positive,
        negative=int(k.nonzero) - positive,
        ties=int(d.size - k.nonzero),
    )


@fill_doc
def sign_test_array(differences: Any, *, alternative: str = "two-sided") -> SignTestResult:
    """The sign test from the K per-fold differences p_k (A − B).

    Counts the positive and negative p_k, drops the zeros and refers the number
    of positive ones to Binomial(n, 1/2) over the n non-zero folds (Dixon & Mood
    1946); the p-value is scipy.stats.binomtest's. The statistic is that number
    for a one-sided alternative, the smaller of the two counts for "two-sided".

    Parameters
    ----------
    differences : array_like, shape (K,)
        Per-fold differences in mean loss, A − B.
    alternative : {"two-sided", "less", "greater"}
        "less": H1 the differences are more often below 0 (A has the lower loss).

    {returns}

    {raises_fold_differences}

    {sign_references}

    Examples
    --------
    >>> from cvreport.arrays import sign_test
    >>> res = sign_test([0.02, -0.01, 0.03, 0.015, 0.04, 0.0])
    >>> res.statistic, res.pvalue, res.positive, res.negative, res.ties
    (1.0, 0.375, 4, 1, 1)
    """
    return SIGN_TEST.run_arrays(differences, alternative=alternative)


@fill_doc
def sign_test(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> SignTestResult:
    """The sign test over the K per-fold differences of models ``a`` and ``b``.

    Works on per-record losses and on per-fold scores of one K-fold run.

    {parameters_pair_alternative_data}

    {returns}

    {raises_kfold_design}

    {sign_references}

    {examples_kfold_scores}
    >>> res = cvreport.sign_test(table, "A", "B", alternative="less")
    >>> res.statistic, res.pvalue
    (0.0, 0.015625)
    """
    return SIGN_TEST.run(table, a, b, alternative=alternative, data=data)


SIGN_TEST = kfold_spec(
    label="Sign test",
    method="Sign test over K-fold differences",
    reference=REF_SIGN,
    function=sign_test,
    result=SignTestResult,
    statistic="number of positive p_k among the n non-zero ones (the smaller count two-sided)",
    distribution="Binomial(n, 1/2) (exact)",
    array_function=sign_test_array,
    kernel=sign_test_kernel,
    build=_sign_test,
)
