"""The Friedman test, the Iman–Davenport F, and the Nemenyi and Bonferroni–Dunn critical differences.

With k models ranked on each of N data sets (:mod:`cvreport.multi.ranks`) and
``R_j`` the average rank of model j (Demšar 2006, §3.2.2):

- Friedman: χ²_F = 12N/(k(k+1)) · (Σ_j R_j² − k(k+1)²/4), χ²(k − 1). With
  ``tie_correction=True`` (the default) it is divided by
  1 − Σ(t³ − t)/(N k (k² − 1)) over the tie groups, as
  :func:`scipy.stats.friedmanchisquare` does; Demšar's worked example uses the
  uncorrected form (``tie_correction=False``).
- Iman–Davenport: F_F = (N − 1) χ²_F / (N(k − 1) − χ²_F), F(k − 1, (k − 1)(N − 1)),
  less conservative than χ²_F.
- Nemenyi (every pair): two models differ when |R_a − R_b| ≥ CD =
  q_α √(k(k+1)/(6N)), q_α the studentized range quantile for k groups and
  infinite df divided by √2 (Demšar Table 5a).
- Bonferroni–Dunn (each model against a control): the same CD with q_α the
  normal quantile at α/(2(k − 1)) (Demšar Table 5b).

References
----------
Demšar, J. (2006). Statistical comparisons of classifiers over multiple data
sets. JMLR 7:1–30. Iman, R. L., Davenport, J. M. (1980). Approximations of the
critical region of the Friedman statistic. Communications in Statistics 9:571–595.
Nemenyi, P. (1963). Distribution-free multiple comparisons. PhD thesis, Princeton.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.metric import Direction
from cvreport.distributions import CHI2, Distribution
from cvreport.errors import CVReportError
from cvreport.multi.ranks import rank_scores, score_matrix
from cvreport.option_values import check_alpha
from cvreport.results import HypothesisTestResult
from cvreport.summary_data import SummaryRow, SummaryTable

__all__ = [
    "CriticalDifference",
    "FriedmanResult",
    "critical_difference",
    "friedman_test",
    "nemenyi_cliques",
]

DEMSAR_REFERENCE = (
    "Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. "
    "Journal of Machine Learning Research 7:1–30."
)
IMAN_DAVENPORT_REFERENCE = (
    "Iman, R. L., Davenport, J. M. (1980). Approximations of the critical region of the "
    "Friedman statistic. Communications in Statistics – Theory and Methods 9(6):571–595."
)


def small_sample_warnings(n_datasets: int, what: str) -> list[str]:
    """Words on what a small number of data sets does to ``what``."""
    if n_datasets < 5:
        return [
            f"Only {n_datasets} data sets: {what} has little power with fewer than 5 data "
            "sets, and its large-sample approximation is not to be trusted, whether it rejects "
            "or not; read the ranks and the table, not the p-value."
        ]
    return []


NAMED_DATASETS = 5
"""Most data sets a note names before it counts the rest."""


def _named(names: list[str]) -> str:
    """``a, b, c`` or ``a, b, c, d, e and 3 more``."""
    rest = len(names) - NAMED_DATASETS
    return ", ".join(names[:NAMED_DATASETS]) + (f" and {rest:,} more" if rest > 0 else "")


@dataclass(frozen=True, kw_only=True, repr=False)
class FriedmanResult(HypothesisTestResult):
    """The Friedman test with Iman and Davenport's F (unpacks as ``statistic, pvalue``).

    A member of the result family (:class:`~cvreport.results.HypothesisTestResult`):
    ``summary(alpha)``, ``to_frame(alpha)`` and the notebook display show both
    statistics, the decision of the F at ``alpha`` and the average ranks.

    Attributes
    ----------
    statistic, pvalue : float
        χ²_F and its p-value from χ²(k − 1).
    df : int
        k − 1.
    f_statistic, f_pvalue : float
        Iman–Davenport F_F and its p-value.
    f_df : tuple of int
        (k − 1, (k − 1)(N − 1)).
    statistic_uncorrected : float
        χ²_F without the tie correction (Demšar's formula).
    tie_correction : bool
        Whether ``statistic`` is divided by the tie factor.
    average_ranks : pandas.Series
        ``R_j`` by model, 1 = best.
    ranks : pandas.DataFrame
        Data sets × models ranks.
    n_datasets, n_models : int
        N and k.
    direction : {"lower", "higher"}
        Which way the scores are better.
    warnings : tuple of str
        Where the test's assumptions fail, in words.
    """

    df: int
    distribution: Distribution | str = CHI2
    test: str = "friedman_test"
    f_statistic: float
    f_pvalue: float
    f_df: tuple[int, int]
    statistic_uncorrected: float
    tie_correction: bool
    average_ranks: pd.Series
    ranks: pd.DataFrame
    n_datasets: int
    n_models: int
    direction: str
    method: str = "Friedman test with Iman–Davenport F"
    reference: str = DEMSAR_REFERENCE + " " + IMAN_DAVENPORT_REFERENCE

    def reject(self, alpha: float = 0.05) -> bool:
        """Whether the Iman–Davenport F rejects equal average ranks at ``alpha``."""
        return bool(self.f_pvalue <= check_alpha(alpha))

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        return {
            "test": self.test,
            "method": self.method,
            "statistic": self.statistic,
            "df": self.df,
            "distribution": self.distribution,
            "pvalue": self.pvalue,
            "f_statistic": self.f_statistic,
            "f_df": self.f_df[0],
            "f_df2": self.f_df[1],
            "f_pvalue": self.f_pvalue,
            "reject": self.reject(alpha),
            "alpha": alpha,
            "n_datasets": self.n_datasets,
            "n_models": self.n_models,
            "direction": self.direction,
            "tie_correction": self.tie_correction,
            "warnings": " | ".join(self.warnings),
        }

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        corrected = " (tie-corrected)" if self.tie_correction else ""
        return [
            SummaryRow("models (k)", self.n_models, "value"),
            SummaryRow("data sets (N)", self.n_datasets, "value"),
            SummaryRow("direction", f"{self.direction} is better", "text"),
            SummaryRow(f"χ²_F{corrected}", self.statistic, "number"),
            SummaryRow("df", self.df, "df"),
            SummaryRow("p-value (χ²)", self.pvalue, "pvalue"),
            SummaryRow("Iman–Davenport F_F", self.f_statistic, "number"),
            SummaryRow("df of F_F", self.f_df, "df"),
            SummaryRow("p-value (F)", self.f_pvalue, "pvalue"),
            SummaryRow(f"reject H0 at α = {alpha:g} (F)", self.reject(alpha), "value"),
        ]

    def _summary_tables(self, alpha: float = 0.05) -> list[SummaryTable]:
        return [
            SummaryTable(
                "Average ranks (1 = best)",
                ("model", "average rank"),
                tuple((str(model), float(rank)) for model, rank in self.average_ranks.items()),
                ("text", "number"),
            )
        ]

    def __repr__(self) -> str:
        return (
            f"<FriedmanResult: χ²_F = {self.statistic:.4g} (df {self.df}), p = {self.pvalue:.4g}; "
            f"F_F = {self.f_statistic:.4g} (df {self.f_df[0]}, {self.f_df[1]}), "
            f"p = {self.f_pvalue:.4g}; N = {self.n_datasets}, k = {self.n_models}>"
        )


def friedman_test(
    scores: Any, direction: Direction, *, tie_correction: bool = True
) -> FriedmanResult:
    """Friedman's test of equal average ranks, with the Iman–Davenport F.

    Parameters
    ----------
    scores : pandas.DataFrame or array-like
        One row per data set, one column per model: each model's summary score
        (e.g. mean error over the folds).
    direction : {"lower", "higher"}
        ``"lower"`` for a loss, ``"higher"`` for a score; rank 1 is the best.
    tie_correction : bool
        Divide χ²_F by the tie factor (as :func:`scipy.stats.friedmanchisquare`).

    Returns
    -------
    FriedmanResult

    Raises
    ------
    DataError
        Fewer than two models or data sets, or a missing score.

    Examples
    --------
    Demšar's Table 6 gives χ²_F = 9.28 and F_F = 3.69 (uncorrected for ties; the
    paper prints 0.975 twice on "voting" but ranks the two 2 and 3, so the
    unrounded values differ and are entered so here):

    >>> import pandas as pd
    >>> auc = pd.DataFrame([[.763, .768, .771, .798], [.599, .591, .590, .569],
    ...     [.954, .971, .968, .967], [.628, .661, .654, .657], [.882, .888, .886, .898],
    ...     [.936, .931, .916, .931], [.661, .668, .609, .685], [.583, .583, .563, .625],
    ...     [.775, .838, .866, .875], [1, 1, 1, 1], [.940, .962, .965, .962],
    ...     [.619, .666, .614, .669], [.972, .981, .9751, .9749], [.957, .978, .946, .970]],
    ...     columns=["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"])
    >>> res = friedman_test(auc, "higher", tie_correction=False)
    >>> round(res.statistic, 2), round(res.f_statistic, 2), res.f_df
    (9.28, 3.69, (3, 39))
    """
    from scipy import stats

    values = score_matrix(scores)
    ranks = rank_scores(values, direction)
    n, k = ranks.shape
    mean_ranks = ranks.mean(axis=0).rename("average rank")
    uncorrected = float(
        12.0 * n / (k * (k + 1)) * (np.sum(mean_ranks.to_numpy() ** 2) - k * (k + 1) ** 2 / 4.0)
    )
    uncorrected = max(uncorrected, 0.0)
    ties = 0.0
    tied_names = []
    for name, row in zip(ranks.index, ranks.to_numpy()):
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
        if (counts > 1).any():
            tied_names.append(str(name))
    tied_sets = len(tied_names)
    factor = 1.0 - ties / (n * k * (k * k - 1))
    notes = small_sample_warnings(n, "the Friedman test")
    if factor <= 0:
        chi2 = 0.0
        notes.append(
            "Every data set ties all models: the ranks carry no evidence of a difference "
            "(χ² = 0, p = 1)."
        )
    else:
        chi2 = uncorrected / factor if tie_correction else uncorrected
    if tied_sets:
        notes.append(
            f"{tied_sets} of {n} data sets "
            + (f"({_named(tied_names)}) " if tied_sets < n else "")
            + f"{'has' if tied_sets == 1 else 'have'} tied scores; tied models share the "
            "average of their ranks"
            + (
                " and the statistic is divided by the tie factor (as scipy.stats.friedmanchisquare)."
                if tie_correction
                else "; the statistic is not corrected for ties (Demšar's formula)."
            )
        )
    if n <= 10 or k <= 5:
        notes.append(
            f"With N = {n} data sets and k = {k} models the χ² approximation of the Friedman statistic is rough "
            "(Demšar's rule of thumb asks for N > 10 and k > 5)"
            # with fewer than 5 data sets no p-value is a guide (small_sample_warnings)
            + ("." if n < 5 else "; the Iman–Davenport F is the better guide.")
        )
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denominator = n * (k - 1) - chi2
    if denominator <= 1e-12:
        f_stat, f_p = math.inf, 0.0
        notes.append(
            "Every data set ranks the models in the same order: the Iman–Davenport F is "
            "infinite (p = 0)."
        )
    else:
        f_stat = (n - 1) * chi2 / denominator
        f_p = float(stats.f.sf(f_stat, df1, df2))
    return FriedmanResult(
        statistic=float(chi2),
        pvalue=float(stats.chi2.sf(chi2, df1)),
        df=df1,
        f_statistic=float(f_stat),
        f_pvalue=f_p,
        f_df=(df1, df2),
        statistic_uncorrected=uncorrected,
        tie_correction=bool(tie_correction),
        average_ranks=mean_ranks,
        ranks=ranks,
        n_datasets=n,
        n_models=k,
        direction=direction,
        warnings=tuple(notes),
    )


@dataclass(frozen=True, repr=False)
class CriticalDifference:
    """A critical difference of average ranks and the decisions it gives.

    Attributes
    ----------
    method : {"nemenyi", "bonferroni-dunn"}
        Every pair (Nemenyi) or each model against ``control`` (Bonferroni–Dunn).
    cd : float
        The critical difference q_α √(k(k+1)/(6N)).
    q_alpha : float
        The critical value (Demšar Table 5).
    alpha : float
        The family-wise level.
    average_ranks : pandas.Series
        ``R_j``, sorted best first.
    pvalues : pandas.DataFrame
        Models × models p-values of the rank differences (studentized range for
        Nemenyi; Bonferroni-adjusted normal for Bonferroni–Dunn, against the
        control only, NaN elsewhere).
    control : str or None
        The control model of Bonferroni–Dunn.
    cliques : tuple of tuple of str
        Maximal groups of models, consecutive in rank, that the test does not
        separate (only groups of two or more).
    """

    method: str
    cd: float
    q_alpha: float
    alpha: float
    n_datasets: int
    average_ranks: pd.Series
    pvalues: pd.DataFrame
    control: Any = None
    cliques: tuple[tuple[Any, ...], ...] = ()
    reference: str = DEMSAR_REFERENCE

    def different(self, a: Any, b: Any) -> bool:
        """Whether the average ranks of ``a`` and ``b`` differ by at least the CD."""
        return bool(abs(self.average_ranks[a] - self.average_ranks[b]) >= self.cd)

    def __repr__(self) -> str:
        return (
            f"<CriticalDifference {self.method}: CD = {self.cd:.4g} at α = {self.alpha:g} "
            f"(q = {self.q_alpha:.4g}, k = {len(self.average_ranks)}, N = {self.n_datasets})>"
        )


def _standard_error(k: int, n: int) -> float:
    return math.sqrt(k * (k + 1) / (6.0 * n))


def nemenyi_cliques(
    average_ranks: pd.Series, different: pd.DataFrame
) -> tuple[tuple[Any, ...], ...]:
    """Maximal runs of models, consecutive in average rank, with no pair found different.

    Parameters
    ----------
    average_ranks : pandas.Series
        Average rank by model.
    different : pandas.DataFrame
        Models × models booleans: whether a post-hoc test separates the pair.

    Returns
    -------
    tuple of tuple
        Groups of two or more models, best first; no group lies inside another.

    Examples
    --------
    >>> r = pd.Series({"a": 1.0, "b": 1.5, "c": 3.0})
    >>> d = pd.DataFrame(False, index=list("abc"), columns=list("abc"))
    >>> d.loc["a", "c"] = d.loc["c", "a"] = True
    >>> nemenyi_cliques(r, d)
    (('a', 'b'), ('b', 'c'))
    """
    order = list(average_ranks.sort_values(kind="mergesort").index)
    separated = different.loc[order, order].to_numpy(dtype=bool)
    k = len(order)
    # last[j]: the last model ranked before j that a test separates from j (−1 if none); a
    # run from `start` takes in j while last[j] < start
    above = np.triu(separated, 1)
    last = np.where(above.any(axis=0), k - 1 - np.argmax(above[::-1], axis=0), -1)
    runs: list[tuple[int, int]] = []
    longest = -1
    for start in range(k):
        stops = np.flatnonzero(last[start + 1 :] >= start)
        end = start + int(stops[0]) if stops.size else k - 1
        if end > start and end > longest:  # else inside an earlier run
            runs.append((start, end))
            longest = end
    return tuple(tuple(order[s : e + 1]) for s, e in runs)


def critical_difference(
    average_ranks: pd.Series,
    n_datasets: int,
    *,
    alpha: float = 0.05,
    method: str = "nemenyi",
    control: Any = None,
) -> CriticalDifference:
    """The Nemenyi or Bonferroni–Dunn critical difference of average ranks.

    Parameters
    ----------
    average_ranks : pandas.Series
        Average rank by model (e.g. ``friedman_test(...).average_ranks``).
    n_datasets : int
        N, the number of data sets the ranks average over.
    alpha : float
        Family-wise significance level.
    method : {"nemenyi", "bonferroni-dunn"}
        All pairs, or every model against ``control``.
    control : str, optional
        The control model (required for Bonferroni–Dunn).

    Raises
    ------
    CVReportError
        Unknown method, or Bonferroni–Dunn without a known control.

    Examples
    --------
    Demšar (2006) §3.2.2: k = 4 models, N = 14 data sets.

    >>> ranks = pd.Series({"C4.5": 3.143, "C4.5+m": 2.0, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})
    >>> round(critical_difference(ranks, 14).cd, 2)
    1.25
    >>> round(critical_difference(ranks, 14, alpha=0.10).cd, 2)
    1.12
    >>> bd = critical_difference(ranks, 14, method="bonferroni-dunn", control="C4.5")
    >>> round(bd.q_alpha, 3), round(bd.cd, 3)  # the paper truncates 1.168 to 1.16
    (2.394, 1.168)
    """
    from scipy import stats

    alpha = check_alpha(alpha)
    ranks = pd.Series(average_ranks, dtype=float).sort_values(kind="mergesort")
    k = len(ranks)
    if k < 2:
        raise CVReportError("a critical difference needs at least two models")
    if isinstance(n_datasets, bool) or int(n_datasets) != n_datasets or n_datasets < 2:
        raise CVReportError(f"n_datasets must be an integer of at least 2, got {n_datasets!r}")
    n = int(n_datasets)
    se = _standard_error(k, n)
    gaps = np.abs(ranks.to_numpy()[:, None] - ranks.to_numpy()[None, :])
    if method == "nemenyi":
        q_alpha = float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))
        # each distinct gap once: the distribution is a numerical integral per value
        distinct, where = np.unique(gaps, return_inverse=True)
        pvalues = stats.studentized_range.sf(distinct / se * math.sqrt(2), k, np.inf)
        pvalues = pvalues[where.reshape(gaps.shape)]
        np.fill_diagonal(pvalues, 1.0)
        control = None
    elif method == "bonferroni-dunn":
        if control not in ranks.index:
            raise CVReportError(
                f"the Bonferroni–Dunn test compares every model with a control; name one of "
                f"{list(ranks.index)} as control=, got {control!r}"
            )
        q_alpha = float(stats.norm.ppf(1 - alpha / (2 * (k - 1))))
        pvalues = np.full((k, k), np.nan)
        where = list(ranks.index).index(control)
        column = np.minimum(1.0, (k - 1) * 2 * stats.norm.sf(gaps[:, where] / se))
        pvalues[:, where] = pvalues[where, :] = column
        pvalues[where, where] = 1.0
    else:
        raise CVReportError(
            f"method must be 'nemenyi' (every pair) or 'bonferroni-dunn' (against a control), "
            f"got {method!r}"
        )
    cd = q_alpha * se
    frame = pd.DataFrame(pvalues, index=ranks.index, columns=ranks.index)
    cliques: tuple[tuple[Any, ...], ...] = ()
    if method == "nemenyi":
        cliques = nemenyi_cliques(ranks, pd.DataFrame(gaps >= cd, ranks.index, ranks.index))
    return CriticalDifference(
        method=method,
        cd=float(cd),
        q_alpha=q_alpha,
        alpha=alpha,
        n_datasets=n,
        average_ranks=ranks,
        pvalues=frame,
        control=control,
        cliques=cliques,
    )
