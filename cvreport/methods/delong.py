"""DeLong's test of two correlated ROC AUCs on the same records.

For records with a binary truth, m positives ``X`` and n negatives ``Y``, the
AUC of a model is the Mann–Whitney statistic
``θ = (1/(m n)) Σ_i Σ_j ψ(X_i, Y_j)``, ``ψ = 1 if X > Y, ½ if equal, 0 otherwise``.
DeLong, DeLong & Clarke-Pearson (1988) give its variance from the *structural
components* ``V10(X_i) = (1/n) Σ_j ψ(X_i, Y_j)`` and
``V01(Y_j) = (1/m) Σ_i ψ(X_i, Y_j)``: with ``S10`` and ``S01`` their sample
covariance matrices across the two models (divisor m − 1 and n − 1),
``S = S10/m + S01/n`` and, for the paired difference ``θ_A − θ_B``,

    z = (θ_A − θ_B) / sqrt(S_AA + S_BB − 2 S_AB)  ~ N(0, 1) under H0: θ_A = θ_B.

Sun & Xu (2014) compute the components from midranks in O(N log N): with
``T_z`` the midranks of all N = m + n scores, ``T_x`` of the positives among
themselves and ``T_y`` of the negatives, ``V10 = (T_z − T_x)/n`` on positives,
``V01 = 1 − (T_z − T_y)/m`` on negatives.

Within a cross-validation design the test applies to each validation fold
(:func:`delong_tests_per_fold`). No method is published for combining the
per-fold DeLong tests of a CV design into one test that accounts for the
dependence between folds (shared training records), so cvreport offers none:
test the per-fold AUCs with the fold-level tests instead
(``ResultsTable.from_predictions(..., metric="roc_auc")`` and, e.g.,
:func:`~cvreport.methods.corrected_kfold.corrected_repeated_kfold_ttest`).

References
----------
DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the
areas under two or more correlated receiver operating characteristic curves: a
nonparametric approach. Biometrics 44(3):837–845.
Sun, X. and Xu, W. (2014). Fast implementation of DeLong's algorithm for
comparing the areas under correlated receiver operating characteristic curves.
IEEE Signal Processing Letters 21(11):1389–1393.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from cvreport.data.auc import grouped_auc
from cvreport.data.predictions import record_pairs, record_predictions
from cvreport.errors import DataError, DesignError
from cvreport.methods._common import normal_pvalue
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.equivalence import margin_or_base
from cvreport.methods.hypothesis_note import alternative_note
from cvreport.methods.spec import TestSpec, record_spec
from cvreport.results import NormalTestResult, check_alternative
from cvreport.summary_data import SummaryRow

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "DeLongResult",
    "delong_components",
    "delong_test",
    "delong_test_array",
    "delong_tests_per_fold",
]

REFERENCE_DELONG = (
    "DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under "
    "two or more correlated receiver operating characteristic curves: a nonparametric approach. "
    "Biometrics 44(3):837–845; fast algorithm: Sun, X. and Xu, W. (2014). IEEE Signal "
    "Processing Letters 21(11):1389–1393."
)


def delong_components(
    positive: ArrayLike, scores: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """AUCs and DeLong's structural components of k models, by Sun & Xu's midrank algorithm.

    The AUCs are :func:`cvreport.data.auc.grouped_auc`'s, as everywhere in cvreport;
    the components, from the midranks, have them as their means.

    Parameters
    ----------
    positive : array_like of bool, shape (N,)
        Whether each record is positive.
    scores : array_like, shape (k, N)
        Each model's scores (higher: more likely positive).

    Returns
    -------
    auc : numpy.ndarray, shape (k,)
    v10 : numpy.ndarray, shape (k, m)
        Components of the m positives.
    v01 : numpy.ndarray, shape (k, n)
        Components of the n negatives.

    Examples
    --------
    >>> auc, v10, v01 = delong_components([1, 1, 0, 0], [[0.9, 0.4, 0.5, 0.1]])
    >>> auc.tolist(), v10.tolist(), v01.tolist()
    ([0.75], [[1.0, 0.5]], [[0.5, 1.0]])
    """
    is_pos = np.asarray(positive, dtype=bool)
    s = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    k, n_records = s.shape
    auc = grouped_auc(
        np.repeat(np.arange(k), n_records), k, np.tile(is_pos, k), s.ravel()
    )  # each model's scores one group
    x, y = s[:, is_pos], s[:, ~is_pos]
    m, n = x.shape[1], y.shape[1]
    ranks_all = stats.rankdata(np.concatenate([x, y], axis=1), axis=1)
    ranks_x = stats.rankdata(x, axis=1)
    ranks_y = stats.rankdata(y, axis=1)
    v10 = (ranks_all[:, :m] - ranks_x) / n
    v01 = 1.0 - (ranks_all[:, m:] - ranks_y) / m
    return auc, v10, v01


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class DeLongResult(NormalTestResult):
    """Result of DeLong's test; ``estimate`` is AUC(A) − AUC(B), higher is better.

    Attributes
    ----------
    auc_a, auc_b : float
        The two AUCs.
    standard_error : float
        DeLong's standard error of AUC(A) − AUC(B).
    correlation : float
        The estimated correlation of the two AUCs.
    n_positive, n_negative : int
    """

    auc_a: float = math.nan
    auc_b: float = math.nan
    correlation: float = math.nan
    n_positive: int = 0
    n_negative: int = 0
    loss_name: str = "roc_auc"

    # one AUC per model on one test set: the estimate is a difference of two values, no mean
    _estimate_words: ClassVar[str] = ""

    def _extra_rows(self) -> list[SummaryRow]:
        extra = [
            SummaryRow("AUC of A", self.auc_a, "number"),
            SummaryRow("AUC of B", self.auc_b, "number"),
            SummaryRow("standard error", self.standard_error, "number"),
            SummaryRow("correlation of the AUCs", self.correlation, "number"),
            SummaryRow("positives / negatives", f"{self.n_positive} / {self.n_negative}", "text"),
        ]
        return extra


def _binary_truth(truth: ArrayLike, pos_label: Any) -> np.ndarray:
    y = np.asarray(truth)
    missing = np.flatnonzero(pd.isna(pd.Series(y.ravel(), dtype=object)).to_numpy())
    if missing.size:  # as the bootstrap and permutation tests say it
        raise DataError(
            f"missing values (NaN or None) in truth: {missing.size}, the first at position "
            f"{int(missing[0])}; every record needs a class label: drop or fill those records"
        )
    try:
        labels = np.unique(y)
    except TypeError:  # labels numpy cannot order, e.g. 1 beside 'a'
        kinds = sorted({type(v).__name__ for v in y.ravel().tolist()})
        raise DataError(
            f"truth mixes label types ({', '.join(kinds)}); give every label one type "
            "(e.g. all int or all str)"
        ) from None
    if labels.shape[0] != 2:
        raise DataError(
            f"DeLong's test needs a binary truth with both classes present, got "
            f"{labels.shape[0]} distinct label(s): {labels[:5].tolist()}"
        )
    positive = labels[-1] if pos_label is None else pos_label
    if positive not in labels:
        raise DataError(f"pos_label {pos_label!r} is not one of the labels {labels.tolist()}")
    return y == positive


def _delong(
    positive: np.ndarray,
    score_a: ArrayLike,
    score_b: ArrayLike,
    alternative: str = "two-sided",
    margin: float | None = None,
) -> DeLongResult:
    """DeLong's z test; under a margin, the two one-sided z tests ``(Δ ± m) / SE``."""
    result = margin_or_base(
        lambda base: _delong_test(positive, score_a, score_b, base),
        alternative,
        margin,
        direction="higher",
    )
    note = alternative_note(alternative, result.loss_name, margin=result.margin)
    return dataclasses.replace(result, notes=(*note, *result.notes))


def _delong_test(
    positive: np.ndarray, score_a: ArrayLike, score_b: ArrayLike, alternative: str
) -> DeLongResult:
    check_alternative(alternative)
    a = np.asarray(score_a, dtype=np.float64)
    b = np.asarray(score_b, dtype=np.float64)
    if a.shape != positive.shape or b.shape != positive.shape:
        raise DataError(
            f"truth, score_a and score_b must have the same length, got {positive.shape[0]}, "
            f"{a.shape}, {b.shape}"
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise DataError("the scores hold NaN or infinite values; every record needs a score")
    m, n = int(positive.sum()), int((~positive).sum())
    if m < 2 or n < 2:
        raise DataError(
            f"DeLong's test needs at least 2 positives and 2 negatives, got {m} and {n}"
        )
    auc, v10, v01 = delong_components(positive, np.vstack([a, b]))
    s = np.cov(v10) / m + np.cov(v01) / n
    variance = float(s[0, 0] + s[1, 1] - 2.0 * s[0, 1])
    difference = float(auc[0] - auc[1])
    warnings: tuple[str, ...] = ()
    if variance <= 1e-300:
        z = 0.0 if difference == 0 else math.copysign(math.inf, difference)
        pvalue = 1.0 if difference == 0 else float(normal_pvalue(z, alternative))
        se = 0.0
        warnings = (
            "the variance of AUC(A) − AUC(B) is 0 (the two models rank the records alike or "
            "perfectly): by convention z = 0 and p = 1 when the AUCs are equal, ±inf and p = 0 "
            "otherwise; the test carries no information about variability here.",
        )
    else:
        se = math.sqrt(variance)
        z = difference / se
        pvalue = float(normal_pvalue(z, alternative))
    denominator = math.sqrt(max(s[0, 0] * s[1, 1], 0.0))
    return DeLongResult(
        statistic=z,
        pvalue=pvalue,
        alternative=alternative,
        estimate=difference,
        nobs=m + n,
        method="DeLong's test of two correlated AUCs",
        test="delong_test",
        reference=REFERENCE_DELONG,
        warnings=warnings,
        direction="higher",
        auc_a=float(auc[0]),
        auc_b=float(auc[1]),
        standard_error=se,
        correlation=float(s[0, 1] / denominator) if denominator > 0 else math.nan,
        n_positive=m,
        n_negative=n,
    )


@fill_doc
def delong_test_array(
    truth: ArrayLike,
    score_a: ArrayLike,
    score_b: ArrayLike,
    *,
    pos_label: Any = None,
    alternative: str = "two-sided",
    margin: float | None = None,
) -> DeLongResult:
    """DeLong's test of AUC(A) = AUC(B) for two models scored on the same records.

    Against a margin m, ``alternative="equivalent"`` tests H1 |AUC(A) − AUC(B)| < m
    by the two one-sided z tests ``(Δ ± m) / SE`` with DeLong's standard error
    (Schuirmann 1987); ``"non-inferior"`` tests H1 AUC(A) − AUC(B) > −m.

    Parameters
    ----------
    truth : array_like, shape (N,)
        Binary true labels.
    score_a, score_b : array_like, shape (N,)
        Each model's score of the positive class.
    pos_label : label, optional
        The positive class; by default the larger label.
    alternative : {"two-sided", "less", "greater", "equivalent", "non-inferior"}
        About AUC(A) − AUC(B): "greater" is H1: AUC(A) > AUC(B); "equivalent" is
        H1: |AUC(A) − AUC(B)| < margin; "non-inferior" is H1: AUC(A) − AUC(B) > −margin.
    margin : float, optional
        With "equivalent" or "non-inferior" only: a positive AUC difference.

    Returns
    -------
    DeLongResult
        ``statistic`` z, ``pvalue``, ``estimate`` AUC(A) − AUC(B), :meth:`conf_int`
        ``estimate ± z_{1−α/2} · SE``.

    Raises
    ------
    DataError
        A truth that is not binary, fewer than 2 records of a class, or non-finite scores.
    {margin_raises}

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44(3):837–845; Sun & Xu (2014);
    against a margin, Schuirmann (1987), J. Pharmacokinet. Biopharm. 15(6):657–680.

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> res = delong_test_array(y, [0.9, 0.8, 0.3, 0.4, 0.2, 0.1], [0.7, 0.4, 0.6, 0.5, 0.3, 0.2])
    >>> round(res.auc_a, 6), round(res.auc_b, 6), round(res.statistic, 6)
    (0.888889, 0.888889, 0.0)
    """
    return DELONG.run_arrays(
        truth, score_a, score_b, pos_label, alternative=alternative, margin=margin
    )


def _auc_pairs(table: ResultsTable, a: Any, b: Any, what: str) -> tuple[Any, Any, list[Any]]:
    kept = record_predictions(table, what)
    if not kept.score_columns or len(kept.classes) != 2:
        raise DesignError(
            f"{what} needs a binary truth and one score column: build the table with "
            "from_predictions(..., score='<column of the positive class>')"
        )
    first, second = table.resolve_pair(a, b)
    return first, second, record_pairs(table, first, second, what)


def _one_test_set(
    spec: TestSpec, table: ResultsTable, pair: Any, stats: Any, options: dict[str, Any]
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], dict[str, Any]]:
    """The positives and both models' scores on the table's one test set."""
    a, b = pair
    _, _, folds = _auc_pairs(table, a, b, "delong_test")
    if len(folds) != 1:
        raise DesignError(
            f"delong_test compares two AUCs on one test set, but the table holds "
            f"{table.design.describe()}; use delong_tests_per_fold for a test per fold, or a "
            "fold-level test (e.g. corrected_repeated_kfold_ttest) on the per-fold AUCs"
        )
    fold = folds[0]
    return (fold.truth == 1, fold.score_a, fold.score_b), options


def _truth_and_scores(
    truth: ArrayLike, score_a: ArrayLike, score_b: ArrayLike, pos_label: Any = None
) -> tuple[np.ndarray, ArrayLike, ArrayLike]:
    return _binary_truth(truth, pos_label), score_a, score_b


@fill_doc
def delong_test(
    table: ResultsTable,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str = "two-sided",
    margin: float | None = None,
) -> DeLongResult:
    """DeLong's test of two models' AUCs on one test set (a hold-out table).

    Parameters
    ----------
    table : ResultsTable
        Built with ``from_predictions(..., score=...)`` on a single hold-out split.
    a, b : model labels, optional
    alternative : {"two-sided", "less", "greater", "equivalent", "non-inferior"}
        About AUC(A) − AUC(B); "equivalent" and "non-inferior" test against ``margin``
        (see :func:`delong_test_array`).
    margin : float, optional
        With "equivalent" or "non-inferior" only: a positive AUC difference.

    {returns}

    Raises
    ------
    DesignError
        A table without scores, or with more than one validation fold (use
        :func:`delong_tests_per_fold`, or the fold-level tests on per-fold AUCs).
    {margin_raises}

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988); Sun & Xu (2014).

    {examples_auc_scores}
    >>> round(delong_test(t).auc_a, 6)
    0.888889
    """
    return DELONG.run(table, a, b, alternative=alternative, margin=margin)


def delong_tests_per_fold(
    table: ResultsTable,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str = "two-sided",
    alpha: float = 0.05,
    margin: float | None = None,
) -> pd.DataFrame:
    """DeLong's test on every validation fold of a cross-validation design.

    Each row is one fold's test (as :meth:`TestResult.to_frame`) with its
    ``replication`` and ``fold``; with ``alternative="equivalent"`` or
    ``"non-inferior"`` and a ``margin``, each fold's test against the margin. The folds' tests are *not* combined: the folds
    share training records, and no published method combines per-fold DeLong
    tests for that dependence; use the fold-level tests on per-fold AUCs to decide.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> rng = np.random.default_rng(0)
    >>> y = np.tile([0, 1], 20)
    >>> df = pd.DataFrame({"model": np.repeat(["A", "B"], 40), "record": np.tile(range(40), 2),
    ...                    "fold": np.tile(np.arange(40) // 2 % 2, 2), "y": np.tile(y, 2),
    ...                    "p": rng.random(80)})
    >>> t = ResultsTable.from_predictions(df, truth="y", score="p", metric="roc_auc",
    ...                                   replication=None)
    >>> delong_tests_per_fold(t)[["fold", "n_positive"]].to_numpy().tolist()
    [[0, 10], [1, 10]]
    """
    first, second, folds = _auc_pairs(table, a, b, "delong_tests_per_fold")
    frames = []
    for fold in folds:
        result = _delong(fold.truth == 1, fold.score_a, fold.score_b, alternative, margin)
        row = result.to_frame(alpha)
        row.insert(0, "fold", [fold.fold])
        row.insert(0, "replication", [fold.replication])
        row["model_a"], row["model_b"] = str(first), str(second)
        row["auc_a"], row["auc_b"] = result.auc_a, result.auc_b
        row["n_positive"], row["n_negative"] = result.n_positive, result.n_negative
        frames.append(row)
    return pd.concat(frames, ignore_index=True)


DELONG = record_spec(
    label="DeLong's test of two AUCs",
    method="DeLong's test of two correlated AUCs",
    reference=REFERENCE_DELONG,
    function=delong_test,
    result=DeLongResult,
    statistic="(AUC_A − AUC_B) / SE from the structural components",
    distribution="N(0, 1)",
    array_function=delong_test_array,
    build=_delong,
    check_inputs=_truth_and_scores,
    prepare=_one_test_set,
    takes_margin=True,
)
