"""Wilcoxon signed-rank tests of pairs of models over data sets, with Holm or Bergmann–Hommel.

For two models the Wilcoxon signed-rank test ranks the per-data-set
differences by absolute value; ``R+`` sums the ranks of the data sets on which
the second model (B) is better, ``R−`` those on which the first (A) is, and a
zero difference has its rank split evenly between the two sums (Demšar 2006,
§3.1.3; ``zero_method="zsplit"`` of :func:`scipy.stats.wilcoxon`, which gives
the p-value). Differences equal to twelve decimals are ties.

Many pairs: each pair is tested on its own two columns, so its result does not
depend on which other models are in the study (Benavoli, Corani and Mangili
2016), and the p-values are adjusted for multiplicity: Holm's step-down
procedure (any statsmodels ``multipletests`` method can be named), or, when
every pair of k ≤ 9 models is compared, Bergmann and Hommel's procedure, whose
adjusted p-value for hypothesis i is min(1, max |I| · min_{j∈I} p_j) over the
exhaustive sets I containing i — the sets of pairs that can be true together,
one for each partition of the models into groups of equal performance
(García and Herrera 2008, §4).

References
----------
Demšar, J. (2006). Statistical comparisons of classifiers over multiple data
sets. JMLR 7:1–30. Wilcoxon, F. (1945). Individual comparisons by ranking
methods. Biometrics 1:80–83. García, S., Herrera, F. (2008). An extension on
"Statistical comparisons of classifiers over multiple data sets" for all
pairwise comparisons. JMLR 9:2677–2694. Bergmann, B., Hommel, G. (1988).
Improvements of general multiple test procedures for redundant systems of
hypotheses. In Multiple Hypotheses Testing, 100–115. Benavoli, A., Corani, G.,
Mangili, F. (2016). Should we really use post-hoc tests based on mean-ranks?
JMLR 17(5):1–10.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.metric import Direction
from cvreport.distributions import WILCOXON, Distribution
from cvreport.errors import CVReportError, DataError, describe_keys
from cvreport.methods.wilcoxon import sign_flip_pvalues
from cvreport.multi.ranks import _check_direction, score_matrix, tie_rounded
from cvreport.results import HypothesisTestResult
from cvreport.summary_data import SummaryRow

__all__ = [
    "BERGMANN_HOMMEL_MAX_MODELS",
    "WilcoxonResult",
    "bergmann_hommel",
    "pairwise_wilcoxon",
    "wilcoxon_signed_rank",
]

BERGMANN_HOMMEL_MAX_MODELS = 9
"""Largest number of models for which the exhaustive sets are enumerated (Bell(9) = 21147)."""

WILCOXON_REFERENCE = (
    "Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics 1(6):80–83; "
    "as recommended by Demšar, J. (2006). JMLR 7:1–30."
)


@dataclass(frozen=True, kw_only=True, repr=False)
class WilcoxonResult(HypothesisTestResult):
    """A Wilcoxon signed-rank test of B against A over data sets (unpacks as statistic, pvalue).

    A member of the result family (:class:`~cvreport.results.HypothesisTestResult`):
    ``summary(alpha)``, ``to_frame(alpha)`` and the notebook display show the rank
    sums, the wins and the decision at ``alpha``.

    Attributes
    ----------
    statistic : float
        T = min(R+, R−).
    pvalue : float
        Two-sided p-value (:func:`scipy.stats.wilcoxon`, ``zero_method="zsplit"``).
    r_plus : float
        Sum of the ranks of the data sets on which B is better (plus half the zero ranks).
    r_minus : float
        Sum of the ranks of the data sets on which A is better (plus half the zero ranks).
    n_datasets : int
        N.
    models : tuple
        (A, B).
    wins_a, wins_b, ties : int
        Data sets on which A is better, B is better, or the scores are equal.
    warnings : tuple of str
        Where the test's assumptions fail, in words.
    """

    distribution: Distribution | str = WILCOXON
    test: str = "wilcoxon_signed_rank"
    r_plus: float
    r_minus: float
    n_datasets: int
    models: tuple[Any, Any]
    wins_a: int
    wins_b: int
    ties: int
    method: str = "Wilcoxon signed-rank test"
    reference: str = WILCOXON_REFERENCE

    def reject(self, alpha: float = 0.05) -> bool:
        """Whether the two-sided test rejects equal performance at ``alpha``."""
        return super().reject(alpha)

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        a, b = self.models
        return {
            "test": self.test,
            "method": self.method,
            "model_a": a,
            "model_b": b,
            "statistic": self.statistic,
            "r_plus": self.r_plus,
            "r_minus": self.r_minus,
            "distribution": self.distribution,
            "alternative": self.alternative,
            "pvalue": self.pvalue,
            "reject": self.reject(alpha),
            "alpha": alpha,
            "n_datasets": self.n_datasets,
            "wins_a": self.wins_a,
            "wins_b": self.wins_b,
            "ties": self.ties,
            "warnings": " | ".join(self.warnings),
        }

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        a, b = self.models
        return [
            SummaryRow("models (A vs B)", f"{a} vs {b}", "text"),
            SummaryRow("data sets (N)", self.n_datasets, "value"),
            SummaryRow(f"R+ (ranks where {b} is better)", self.r_plus, "number"),
            SummaryRow(f"R− (ranks where {a} is better)", self.r_minus, "number"),
            SummaryRow("T = min(R+, R−)", self.statistic, "number"),
            SummaryRow("alternative", self.alternative, "text"),
            SummaryRow("p-value", self.pvalue, "pvalue"),
            SummaryRow(
                f"wins of {a} / ties / wins of {b}",
                f"{self.wins_a} / {self.ties} / {self.wins_b}",
                "text",
            ),
            SummaryRow(f"reject H0 at α = {alpha:g}", self.reject(alpha), "value"),
        ]

    def __repr__(self) -> str:
        a, b = self.models
        return (
            f"<WilcoxonResult {a} vs {b}: R+ = {self.r_plus:g} ({b} better), "
            f"R− = {self.r_minus:g} ({a} better), T = {self.statistic:g}, "
            f"p = {self.pvalue:.4g}, N = {self.n_datasets}>"
        )


def paired_scores(first: Any, second: Any, models: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Two models' scores over the data sets, checked: equally long, finite numbers."""
    a = np.asarray(first, dtype=float)
    b = np.asarray(second, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise DataError(
            f"the two models' scores must be two equally long lists, one score per data set; "
            f"got shapes {a.shape} and {b.shape}"
        )
    score_matrix(np.column_stack([a, b]), what=f"scores of {models[0]!r} and {models[1]!r}")
    return a, b


def _advantage(first: np.ndarray, second: np.ndarray, direction: Direction) -> np.ndarray:
    """How much better the second model is on each data set, in the metric's units."""
    difference = second - first if direction == "higher" else first - second
    scale = float(max(np.max(np.abs(first), initial=0.0), np.max(np.abs(second), initial=0.0)))
    return tie_rounded(difference, scale)  # rounded in the unit of the scores, not of A − B


PERMUTATION_MAX_DATASETS = 13
"""Up to this N, ties or zeros give the exact p-value over all 2^N sign flips (as scipy)."""

EXACT_MAX_DATASETS = 50
"""Up to this N, without ties or zeros, the exact signed-rank distribution (as scipy)."""


@dataclass(frozen=True)
class _SignedRanks:
    """Batch of signed-rank tests, one per row of advantages (pairs, N)."""

    r_plus: np.ndarray
    r_minus: np.ndarray
    pvalue: np.ndarray
    zeros: np.ndarray
    tied: np.ndarray
    wins_a: np.ndarray
    wins_b: np.ndarray


def _signed_ranks(advantages: np.ndarray) -> _SignedRanks:
    """R+, R− and scipy.stats.wilcoxon's two-sided ``zero_method="zsplit"`` p-value, row by row.

    scipy chooses the method by the row: the exact distribution without ties or
    zeros (N ≤ 50), the exact permutation distribution over all 2^N sign flips
    with ties or zeros (N ≤ 13), else the normal approximation with the tie
    correction. Rows are grouped by that choice and each group computed at once.
    """
    from scipy import stats

    n_rows, n = advantages.shape
    magnitude = np.abs(advantages)
    ranks = stats.rankdata(magnitude, axis=1)
    zero = advantages == 0
    positive = advantages > 0
    negative = advantages < 0
    half_zero = np.where(zero, ranks, 0.0).sum(axis=1) / 2
    r_plus = np.where(positive, ranks, 0.0).sum(axis=1) + half_zero
    r_minus = np.where(negative, ranks, 0.0).sum(axis=1) + half_zero
    zeros = zero.sum(axis=1)
    ordered = np.sort(magnitude, axis=1)
    nonzero_ordered = np.where(ordered == 0, np.nan, ordered)
    tied = (np.diff(nonzero_ordered, axis=1) == 0).any(axis=1)
    pvalue = np.ones(n_rows)
    testable = zeros < n
    irregular = (zeros > 0) | (np.diff(ordered, axis=1) == 0).any(axis=1)
    exact = testable & ~irregular & (n <= EXACT_MAX_DATASETS)
    flips = testable & irregular & (n <= PERMUTATION_MAX_DATASETS)
    normal = testable & ~exact & ~flips
    with np.errstate(divide="ignore", invalid="ignore"):
        if exact.any():
            pvalue[exact] = stats.wilcoxon(advantages[exact], method="exact", axis=-1).pvalue
        if flips.any():
            # a zero keeps its sign under a flip: its half ranks add the same to every R+
            movable = np.where(zero[flips], 0.0, ranks[flips])
            pvalue[flips] = sign_flip_pvalues(movable, positive[flips])[1]
        if normal.any():
            pvalue[normal] = stats.wilcoxon(
                advantages[normal], zero_method="zsplit", method="asymptotic", axis=-1
            ).pvalue
    return _SignedRanks(
        r_plus=r_plus,
        r_minus=r_minus,
        pvalue=pvalue,
        zeros=zeros,
        tied=tied,
        wins_a=negative.sum(axis=1),
        wins_b=positive.sum(axis=1),
    )


def _signed_rank_warnings(n: int, zeros: int, tied: bool, alpha: float = 0.05) -> tuple[str, ...]:
    """Where the signed-rank test's assumptions fail for one pair at ``alpha``, in words."""
    notes: list[str] = []
    if 2.0 / 2**n > alpha:  # the smallest two-sided p-value of the exact null: all signs alike
        notes.append(
            f"With {n} data sets the smallest two-sided p-value the Wilcoxon signed-rank test "
            f"can give is {2.0 / 2**n:.4g}: it cannot reject at α = {alpha:g}."
        )
    if zeros == n:
        notes.append(
            "The two models score the same on every data set: there is no difference to "
            "test (p = 1)."
        )
        return tuple(notes)
    if zeros:
        notes.append(
            f"{zeros} data set{'' if zeros == 1 else 's'} with equal scores "
            f"{'has its rank' if zeros == 1 else 'have their ranks'} split evenly between "
            "R+ and R− (Demšar 2006)."
        )
    if tied:
        notes.append("Equal absolute differences share their average rank.")
    if zeros or tied:  # one sentence, so that a report says it once for all its pairs
        if n <= PERMUTATION_MAX_DATASETS:
            notes.append(
                f"With zero or tied differences the p-value is exact over all 2^{n} sign "
                "flips of the differences (the permutation distribution, which allows for "
                "ties and zeros), as scipy.stats.wilcoxon computes it for N ≤ 13."
            )
        else:
            notes.append(
                "With zero or tied differences the p-value uses the normal approximation "
                "with the tie correction (no continuity correction), since the exact null "
                "distribution assumes no ties and N > 13 is too many sign flips to enumerate."
            )
    return tuple(notes)


def _results(
    advantages: np.ndarray, pairs: Sequence[tuple[Any, Any]], alpha: float = 0.05
) -> list[WilcoxonResult]:
    batch = _signed_ranks(advantages)
    n = advantages.shape[1]
    results = []
    for index, pair in enumerate(pairs):
        r_plus, r_minus = float(batch.r_plus[index]), float(batch.r_minus[index])
        zeros = int(batch.zeros[index])
        results.append(
            WilcoxonResult(
                statistic=r_plus if zeros == n else min(r_plus, r_minus),
                pvalue=float(batch.pvalue[index]),
                r_plus=r_plus,
                r_minus=r_minus,
                n_datasets=n,
                models=(pair[0], pair[1]),
                wins_a=int(batch.wins_a[index]),
                wins_b=int(batch.wins_b[index]),
                ties=zeros,
                warnings=_signed_rank_warnings(n, zeros, bool(batch.tied[index]), alpha),
            )
        )
    return results


def wilcoxon_signed_rank(
    first: Sequence[float] | np.ndarray | pd.Series,
    second: Sequence[float] | np.ndarray | pd.Series,
    direction: Direction,
    *,
    models: tuple[Any, Any] = ("A", "B"),
) -> WilcoxonResult:
    """The Wilcoxon signed-rank test of two models' scores over N data sets.

    The p-value is scipy.stats.wilcoxon's (``zero_method="zsplit"``): exact
    without ties or zeros for N ≤ 50, exact over all 2^N sign flips with ties
    or zeros for N ≤ 13, otherwise the normal approximation with the tie
    correction; a warning says which when ties or zeros occur.

    Parameters
    ----------
    first, second : array-like
        The summary score of model A and of model B on each data set, in the same order.
    direction : {"lower", "higher"}
        Which way the scores are better.
    models : tuple
        The names (A, B), for messages and the result.

    Returns
    -------
    WilcoxonResult

    Raises
    ------
    DataError
        Scores of different lengths, fewer than two data sets, or missing values.

    Examples
    --------
    Demšar (2006) Table 2: C4.5+m is better than C4.5 with R+ = 93 against R− = 12.

    >>> c45 = [.763, .599, .954, .628, .882, .936, .661, .583, .775, 1, .940, .619, .972, .957]
    >>> c45m = [.768, .591, .971, .661, .888, .931, .668, .583, .838, 1, .962, .666, .981, .978]
    >>> res = wilcoxon_signed_rank(c45, c45m, "higher", models=("C4.5", "C4.5+m"))
    >>> res.r_plus, res.r_minus, res.statistic, res.reject(0.05)
    (93.0, 12.0, 12.0, True)
    """
    _check_direction(direction)
    a, b = paired_scores(first, second, models)
    return _results(_advantage(a, b, direction)[None, :], [tuple(models)])[0]


def _set_partitions(k: int) -> np.ndarray:
    """Every partition of k items as a row of block labels (restricted growth strings)."""
    rows: list[list[int]] = [[0]]
    for _ in range(1, k):
        rows = [[*row, label] for row in rows for label in range(max(row) + 2)]
    return np.array(rows, dtype=np.int64)


def bergmann_hommel(pvalues: pd.DataFrame | np.ndarray) -> np.ndarray:
    """Bergmann–Hommel adjusted p-values of all pairwise hypotheses among k models.

    Parameters
    ----------
    pvalues : (k, k) array-like
        Symmetric matrix of unadjusted p-values (the diagonal is ignored).

    Returns
    -------
    numpy.ndarray
        The adjusted (k, k) matrix, ones on the diagonal.

    Raises
    ------
    CVReportError
        More than :data:`BERGMANN_HOMMEL_MAX_MODELS` models (use Holm).

    Examples
    --------
    With three models the exhaustive sets are all three pairs together, or one pair alone:

    >>> p = np.array([[1, .01, .04], [.01, 1, .03], [.04, .03, 1]])
    >>> bergmann_hommel(p)[np.triu_indices(3, 1)].round(3).tolist()
    [0.03, 0.04, 0.03]
    """
    matrix = np.asarray(pvalues, dtype=float)
    k = matrix.shape[0]
    if matrix.shape != (k, k):
        raise CVReportError(f"pvalues must be a square matrix, got shape {matrix.shape}")
    if k > BERGMANN_HOMMEL_MAX_MODELS:
        raise CVReportError(
            f"Bergmann–Hommel's procedure enumerates every partition of the models, which is "
            f"too many for {k} models (at most {BERGMANN_HOMMEL_MAX_MODELS}); use Holm's"
        )
    first, second = np.triu_indices(k, 1)
    p = matrix[first, second]
    labels = _set_partitions(k)
    together = labels[:, first] == labels[:, second]  # partitions × pairs: the pair is equal
    size = together.sum(axis=1)
    smallest = np.where(together, p[None, :], 1.0).min(axis=1)
    value = np.where(size > 0, size * smallest, 0.0)
    adjusted_pairs = np.minimum(1.0, np.where(together, value[:, None], 0.0).max(axis=0))
    adjusted = np.ones((k, k))
    adjusted[first, second] = adjusted[second, first] = adjusted_pairs
    return adjusted


def pairwise_wilcoxon(
    scores: Any,
    direction: Direction,
    *,
    baseline: Any = None,
    correction: str = "holm",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Wilcoxon signed-rank tests of every pair of models (or each against a baseline).

    Parameters
    ----------
    scores : pandas.DataFrame
        Data sets × models summary scores.
    direction : {"lower", "higher"}
        Which way the scores are better.
    baseline : str, optional
        Compare every other model with this one (k − 1 tests); default every pair.
    correction : str
        ``"bergmann-hommel"`` (every pair, k ≤ 9), ``"holm"`` or any other
        statsmodels ``multipletests`` method, or ``"none"``.
    alpha : float
        Family-wise level of the decisions.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``a, b, r_plus, r_minus, statistic, pvalue, adjusted,
        reject, better`` (the better model by the sign of R+ − R−, when rejected).

    Examples
    --------
    >>> s = pd.DataFrame({"x": [.9, .8, .7, .85, .95, .6], "y": [.8, .7, .6, .8, .9, .5],
    ...                   "z": [.7, .72, .5, .7, .8, .55]})
    >>> out = pairwise_wilcoxon(s, "higher")
    >>> out[["a", "b", "r_minus"]].values.tolist()
    [['x', 'y', 21.0], ['x', 'z', 21.0], ['y', 'z', 18.0]]
    """
    from statsmodels.stats.multitest import multipletests

    values = score_matrix(scores)
    models = list(values.columns)
    if baseline is not None and baseline not in models:
        raise CVReportError(
            f"the baseline {baseline!r} is not a model; choose one of {describe_keys(models, 10)}"
        )
    if baseline is None:
        pairs = list(itertools.combinations(models, 2))
    else:
        pairs = [(baseline, m) for m in models if m != baseline]
    _check_direction(direction)
    matrix = values.to_numpy(dtype=np.float64)
    columns = values.columns
    first = matrix[:, columns.get_indexer([a for a, _ in pairs])].T
    second = matrix[:, columns.get_indexer([b for _, b in pairs])].T
    results = _results(_advantage(first, second, direction), pairs, alpha) if pairs else []
    pvalues = np.array([r.pvalue for r in results])
    method = str(correction).lower()
    if method == "none" or len(pairs) == 1:
        adjusted = pvalues
    elif method == "bergmann-hommel":
        if baseline is not None:
            raise CVReportError(
                "Bergmann–Hommel's procedure is for all pairwise comparisons; against a baseline "
                "use correction='holm'"
            )
        matrix = pd.DataFrame(1.0, index=models, columns=models)
        for (a, b), p in zip(pairs, pvalues):
            matrix.loc[a, b] = matrix.loc[b, a] = p
        full = pd.DataFrame(bergmann_hommel(matrix), index=models, columns=models)
        adjusted = np.array([full.loc[a, b] for a, b in pairs])
    else:
        try:
            adjusted = multipletests(pvalues, alpha=alpha, method=method)[1]
        except ValueError:
            raise CVReportError(
                f"unknown correction {correction!r}; use 'holm', 'bergmann-hommel', 'none' or a "
                "statsmodels multipletests method"
            ) from None
    rows = []
    for (a, b), result, adj in zip(pairs, results, adjusted):
        reject = bool(adj <= alpha)
        better = None
        if reject and result.r_plus != result.r_minus:
            better = b if result.r_plus > result.r_minus else a
        rows.append(
            {
                "a": a,
                "b": b,
                "r_plus": result.r_plus,
                "r_minus": result.r_minus,
                "statistic": result.statistic,
                "pvalue": result.pvalue,
                "adjusted": float(adj),
                "reject": reject,
                "better": better,
                "result": result,
            }
        )
    return pd.DataFrame(rows)
