"""The variance components of per-fold differences, and their estimate from a pilot.

A random-effects reading of the Nadeau & Bengio (2003) model. The difference
A − B on fold k of replication i is::

    d_ik = Δ + C + V_i + W_ik

with three independent parts:

- ``C``, variance ``common``: what every fold of one data set shares (the
  correlation that shared training and validation records induce across all
  splits);
- ``V_i``, variance ``between``: what the folds of one replication share beyond
  that (how much re-partitioning the records moves a replication's mean);
- ``W_ik``, variance ``within``: the spread of the folds about their
  replication's mean.

So ``Var(d_ik) = within + between + common``, folds of one replication have
covariance ``between + common`` and folds of different replications ``common``;
the mean of the ``m × K`` differences has variance
``common + between/m + within/(m K)``.

Nadeau & Bengio's ρ is the correlation between the differences of two splits
drawn independently, here two folds of different replications:
``ρ = common / (within + between + common)``; their heuristic
``ρ = n2/(n1 + n2)``, which the corrected t tests assume, gives
``common = (within + between) · n2/n1``. One data set cannot show ``common``
(it is the same in every fold of the pilot: Bengio & Grandvalet 2004 prove
that no unbiased estimator of the variance of K-fold CV exists), so it always
comes from this heuristic; ``between`` is estimated from the spread of the
replication means when the pilot has several replications, and taken as 0
otherwise (then every two folds have correlation ρ, Nadeau & Bengio's
equicorrelated model). With ``between = 0`` the mean of ``J`` differences has
variance ``within · (1/J + ρ/(1 − ρ))``, the corrected t's variance.

Examples
--------
>>> vc = VarianceComponents(within=0.0009, between=0.0, common=0.0001, K=10)
>>> round(vc.variance_of_mean(10, 10), 8)
0.000109
>>> round(vc.at(5).within, 6), round(vc.at(5).common, 8)
(0.00045, 0.0001125)
>>> vc.at(5).common == vc.at(5).within / 4   # (within + between) · n2/n1, n2/n1 = 1/(K − 1)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from cvreport.data.table import ResultsTable
from cvreport.errors import DataError, DesignError
from cvreport.methods.resampled_t import table_split_differences, table_test_train_ratio

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "REFERENCE_BENGIO_GRANDVALET",
    "SOURCE_HEURISTIC",
    "SOURCE_REPLICATIONS",
    "Discordance",
    "VarianceComponents",
    "as_pilot_table",
    "estimate_components",
    "estimate_discordance",
    "variance_interval",
]

REFERENCE_BENGIO_GRANDVALET = (
    "Bengio, Y. and Grandvalet, Y. (2004). No unbiased estimator of the variance of K-fold "
    "cross-validation. Journal of Machine Learning Research 5:1089–1105."
)

#: ``between`` taken as 0: Nadeau & Bengio's equicorrelated model with ρ = n2/(n1 + n2).
SOURCE_HEURISTIC = "heuristic"
#: ``between`` estimated from the replication means of the pilot.
SOURCE_REPLICATIONS = "replications"


@dataclass(frozen=True)
class VarianceComponents:
    """Variance components of per-fold differences at ``K`` folds (see the module docstring).

    Attributes
    ----------
    within : float
        Variance of a fold's difference about its replication's mean (0 for
        hold-out splits, K = 1, whose spread is all ``between``).
    between : float
        Variance of a replication's effect beyond ``within`` (may be negative down to
        ``-within/K``: replication means that vary less than their folds predict).
    common : float
        Covariance shared by every two folds of one data set.
    K : int
        Folds per replication the components describe (1: hold-out splits).
    test_train_ratio : float
        ``n2/n1`` (validation over training size) at ``K`` folds.
    source : str
        ``"heuristic"`` or ``"replications"`` (how ``between`` was obtained) or
        ``"given"``.
    df_within, df_between : float
        Degrees of freedom of the pilot's estimates (``inf`` when given).
    """

    within: float
    between: float
    common: float
    K: int
    test_train_ratio: float = math.nan
    source: str = "given"
    df_within: float = math.inf
    df_between: float = math.inf

    def __post_init__(self) -> None:
        if self.K < 1:
            raise DesignError(f"K must be at least 1 fold, got {self.K}")
        if math.isnan(self.test_train_ratio):
            if self.K == 1:
                raise DataError(
                    "components of hold-out splits (K = 1) need test_train_ratio= (validation "
                    "size / training size, e.g. 0.5 for a 2/3 – 1/3 split)"
                )
            object.__setattr__(self, "test_train_ratio", 1.0 / (self.K - 1))
        if not (math.isfinite(self.test_train_ratio) and self.test_train_ratio >= 0):
            raise DataError(
                f"test_train_ratio must be a number >= 0, got {self.test_train_ratio!r}"
            )
        values = (self.within, self.between, self.common)
        if not all(math.isfinite(v) for v in values):
            raise DataError(f"variance components must be finite numbers, got {values}")
        if self.within < 0 or self.common < 0:
            raise DataError(
                f"the within and common variances cannot be negative, got within = "
                f"{self.within:g}, common = {self.common:g}"
            )
        if self.within + self.K * self.between < -1e-15 * max(self.within, 1.0):
            raise DataError(
                f"between = {self.between:g} is below −within/K = {-self.within / self.K:g}: "
                "the covariance of the fold differences would not be a variance"
            )
        if self.within + self.between <= 0:
            raise DataError(
                "the per-fold differences have no spread (within + between = 0); a power "
                "cannot be computed from a variance of 0"
            )

    # -- what the tests read -------------------------------------------------------
    def variance_of_mean(self, m: int, K: int | None = None) -> float:
        """``Var`` of the mean of ``m × K`` differences: ``common + between/m + within/(m K)``."""
        K = self.K if K is None else K
        return self.common + self.between / m + self.within / (m * K)

    def eigenvalues(self, m: int) -> tuple[float, float]:
        """``λ1 = within`` (m(K − 1) within-replication contrasts) and ``λ2 = within + K between``.

        ``(J − 1) s²`` of the ``J = m K`` differences is ``λ1 χ²(m(K − 1)) + λ2 χ²(m − 1)``.
        """
        return self.within, self.within + self.K * self.between

    def covariance(self, m: int) -> np.ndarray:
        """The ``(m K, m K)`` covariance matrix of the differences, replication-major.

        >>> VarianceComponents(within=2.0, between=0.5, common=1.0, K=2).covariance(2)
        array([[3.5, 1.5, 1. , 1. ],
               [1.5, 3.5, 1. , 1. ],
               [1. , 1. , 3.5, 1.5],
               [1. , 1. , 1.5, 3.5]])
        """
        J = m * self.K
        same = np.kron(np.eye(m), np.ones((self.K, self.K)))
        return self.within * np.eye(J) + self.between * same + self.common * np.ones((J, J))

    def scaled(self, factor: float) -> VarianceComponents:
        """Every component times ``factor`` (for the pilot's uncertainty)."""
        return replace(
            self,
            within=self.within * factor,
            between=self.between * factor,
            common=self.common * factor,
        )

    def at(self, K: int) -> VarianceComponents:
        """The components at ``K`` folds, from the pilot's ``self.K``.

        A fold's difference is a mean over its ``n/K`` validation records, so
        ``within`` grows in proportion to ``K``; ``between`` is kept; ``common``
        follows the heuristic ``(within + between) · n2/n1`` with ``n2/n1 = 1/(K − 1)``.
        Hold-out splits (``K = 1``) are not rescaled.
        """
        if K == self.K:
            return self
        if self.K < 2 or K < 2:
            raise DesignError(
                f"components of {self.K}-fold splits cannot be carried to {K} folds; plan "
                "hold-out splits from a hold-out pilot and K-fold designs from a K-fold pilot"
            )
        within = self.within * K / self.K
        common = (within + self.between) / (K - 1)
        return replace(self, within=within, common=common, K=K, test_train_ratio=1 / (K - 1))

    def describe(self) -> str:
        """One sentence on where the components come from.

        >>> print(VarianceComponents(within=0.0, between=0.002, common=0.001, K=1,
        ...       test_train_ratio=0.5, source="heuristic").describe())
        ... # doctest: +NORMALIZE_WHITESPACE
        variance between hold-out splits 0.002 (one fold per split, so no within-fold
        variance can be estimated: the splits' whole spread is between splits), common 0.001
        (common = between × n2/n1 with n2/n1 = 0.5, the heuristic ρ = n2/(n1 + n2))
        """
        if self.K == 1:
            return (
                f"variance between hold-out splits {self.between:.4g} (one fold per split, so "
                "no within-fold variance can be estimated: the splits' whole spread is between "
                f"splits), common {self.common:.4g} (common = between × n2/n1 with n2/n1 = "
                f"{self.test_train_ratio:.4g}, the heuristic ρ = n2/(n1 + n2))"
            )
        how = {
            SOURCE_HEURISTIC: (
                "between-replication variance taken as 0: Nadeau & Bengio's equicorrelated model"
            ),
            SOURCE_REPLICATIONS: (
                "between-replication variance estimated from the replication means"
            ),
            "given": "components given",
        }.get(self.source, self.source)
        below = " (estimated below 0, kept as is)" if self.between < 0 else ""
        return (
            f"within {self.within:.4g}, between {self.between:.4g}{below}, common "
            f"{self.common:.4g} at "
            f"K = {self.K} ({how}; common = (within + between) × n2/n1 with n2/n1 = "
            f"{self.test_train_ratio:.4g}, the heuristic ρ = n2/(n1 + n2))"
        )


@dataclass(frozen=True)
class Discordance:
    """How often A and B disagree on a record (for McNemar's test on 0/1 losses).

    Attributes
    ----------
    rate : float
        ψ = P(exactly one model errs) = (n01 + n10)/n over the pilot's scored records.
    records : int
        Scored records behind the estimate.
    """

    rate: float
    records: int


def as_pilot_table(table: Any) -> ResultsTable:
    """``table`` itself when it is a ResultsTable, else a :class:`DataError` saying how to build one."""
    if not isinstance(table, ResultsTable):
        raise DataError(
            f"the pilot must be a cvreport.ResultsTable, got {type(table).__name__}; build it "
            "with cvreport.ResultsTable.from_formula(formula, frame)"
        )
    return table


def estimate_components(table: ResultsTable, a: Any, b: Any) -> VarianceComponents:
    """Estimate the variance components of ``A − B`` from a pilot table.

    Parameters
    ----------
    table : ResultsTable
        The pilot: K-fold, repeated K-fold, m×2 or repeated hold-out results.
    a, b : model labels
        The two models.

    Returns
    -------
    VarianceComponents
        With ``K`` the pilot's folds. ``within`` is the within-replication mean
        square (``m(K − 1)`` df); with ``m >= 2`` replications of ``K >= 2`` folds
        ``between = (MS_between − MS_within)/K`` (one-way ANOVA, ``m − 1`` df,
        kept above ``−within/K``) and ``source = "replications"``; otherwise
        ``between = 0`` and ``source = "heuristic"``.
        ``common = (within + between) · n2/n1`` with ``n2/n1`` from the table's
        fold sizes. Repeated hold-out pilots have ``within = 0`` and ``between``
        the variance of the split differences.

    Raises
    ------
    DataError
        When the pilot is not a ResultsTable, names unknown models, or its
        differences do not vary.
    DesignError
        When the pilot has a single split (nothing to estimate a variance from).

    References
    ----------
    Nadeau & Bengio (2003), Machine Learning 52(3):239–281; Bengio & Grandvalet
    (2004), JMLR 5:1089–1105.

    Examples
    --------
    >>> import cvreport
    >>> t = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> vc = estimate_components(t, "logistic_regression", "decision_tree")
    >>> vc.K, vc.source, vc.df_within, vc.df_between
    (2, 'replications', 5.0, 4.0)
    """
    table = as_pilot_table(table)
    pair = table.resolve_pair(a, b)
    d = table_split_differences(table, *pair)
    m, K = d.shape
    if m * K < 2:
        raise DesignError(
            "the pilot holds a single split, so the variance of the per-fold differences "
            "cannot be estimated; run at least 2 folds (e.g. one 5-fold CV) or, for 0/1 "
            "losses on a hold-out set, plan McNemar's test only"
        )
    ratio, _ = table_test_train_ratio(table, k_fold=K >= 2)
    if K == 1:
        spread = float(np.var(d[:, 0], ddof=1))
        _check_spread(spread, "split")
        return VarianceComponents(
            within=0.0,
            between=spread,
            common=spread * ratio,
            K=1,
            test_train_ratio=ratio,
            source=SOURCE_HEURISTIC,
            df_within=math.inf,
            df_between=float(m - 1),
        )
    replication_means = d.mean(axis=1)
    within = float(((d - replication_means[:, None]) ** 2).sum() / (m * (K - 1)))
    _check_spread(within, "fold")
    if m >= 2:
        ms_between = K * float(np.var(replication_means, ddof=1))
        between = max((ms_between - within) / K, -within / K)
        source, df_between = SOURCE_REPLICATIONS, float(m - 1)
    else:
        between, source, df_between = 0.0, SOURCE_HEURISTIC, math.inf
    return VarianceComponents(
        within=within,
        between=between,
        common=(within + between) * ratio,
        K=K,
        test_train_ratio=ratio,
        source=source,
        df_within=float(m * (K - 1)),
        df_between=df_between,
    )


def _check_spread(value: float, what: str) -> None:
    if not value > 0:
        raise DataError(
            f"the pilot's per-{what} differences between the two models are all equal, so "
            "their variance is 0 and no power can be computed from it; check that the models "
            "differ, or run a larger pilot"
        )


def estimate_discordance(table: ResultsTable, a: Any, b: Any) -> Discordance | None:
    """ψ, the share of records on which exactly one model errs; None unless 0/1 per-record losses.

    Examples
    --------
    >>> import cvreport
    >>> t = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> d = estimate_discordance(t, "logistic_regression", "decision_tree")
    >>> 0 < d.rate < 1, d.records
    (True, 2845)
    """
    table = as_pilot_table(table)
    if not table.per_record or not table.is_binary:
        return None
    counts = table.contingency(a, b)
    discordant = int(counts["n01"].sum() + counts["n10"].sum())
    total = int(counts[["n00", "n01", "n10", "n11"]].to_numpy().sum())
    return Discordance(rate=discordant / total, records=total)


def variance_interval(components: VarianceComponents, level: float = 0.95) -> tuple[float, float]:
    """Factors by which the pilot's variance may be off: χ² interval of ``within`` (or ``between``).

    With ν degrees of freedom, the true variance lies in
    ``[ν/χ²(1 − α/2, ν), ν/χ²(α/2, ν)] ×`` the estimate with probability ``level``
    under normality.

    >>> vc = VarianceComponents(within=1.0, between=0.0, common=0.1, K=10, df_within=9.0)
    >>> [round(x, 3) for x in variance_interval(vc)]
    [0.473, 3.333]
    """
    df = components.df_within if components.K >= 2 else components.df_between
    if not math.isfinite(df):
        return (1.0, 1.0)
    tail = (1.0 - level) / 2.0
    return (df / float(stats.chi2.ppf(1 - tail, df)), df / float(stats.chi2.ppf(tail, df)))
