"""McNemar's test for hold-out, K-fold and block-regularized 5×2 CV (docs/methods.md).

On a validation fold, the 2×2 table of the two models' 0/1 losses has n00 (both
wrong), n01 (A wrong, B right), n10 (A right, B wrong) and n11 (both right);
b = n01 and c = n10 are the discordant counts (Yang et al. Table I).

* :func:`mcnemar` — the hold-out test, with the continuity-corrected
  (Edwards), uncorrected, exact binomial and mid-p variants;
* :func:`mcnemar_kfold` — the naive sum over K folds, χ²(K) (not recommended);
* :func:`mcnemar_5x2bcv` — the block-regularized 5×2 CV test on the effective
  table, with the Bayesian reading of that table (Yang et al. §2.2, §4.4–4.5).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from scipy import special

from cvreport.errors import CVReportError, DataError
from cvreport.methods._common import (
    NO_DISCORDANT,
    OK,
    as_array,
    as_table,
    chi2_sf,
    describe_degenerate,
    emit_partition_warnings,
    emit_warnings,
    finish_result,
    partition_balance,
    require_design,
)
from cvreport.results import TestResult

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable
    from cvreport.rendering.summary import SummaryRow, SummaryTable

__all__ = [
    "MCNEMAR_METHODS",
    "BCVMcNemarKernel",
    "BCVMcNemarResult",
    "BetaPosterior",
    "McNemarKFoldKernel",
    "McNemarKFoldResult",
    "McNemarKernel",
    "McNemarResult",
    "PosteriorKernel",
    "bcv_factor",
    "contingency_posteriors",
    "contingency_posteriors_kernel",
    "mcnemar",
    "mcnemar_5x2bcv",
    "mcnemar_5x2bcv_array",
    "mcnemar_5x2bcv_kernel",
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
REF_BCV = (
    "Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated McNemar's "
    "test for comparing two classification algorithms, eqs. 6–15 and Lemma 2."
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


def bcv_factor(rho1: float = 0.5, rho2: float = 0.5, m: int = 5) -> float:
    """The BCV compression factor t = 2m / (1 + ρ1 + 2(m − 1) ρ2); 20/11 at the defaults.

    For m = 5, t = 10 / (1 + ρ1 + 8 ρ2) (Yang et al. eq. 11); other m is an extension.

    >>> round(bcv_factor(), 6)
    1.818182
    """
    return 2.0 * m / (1.0 + rho1 + 2.0 * (m - 1) * rho2)


class BCVMcNemarKernel(NamedTuple):
    """The 5×2 BCV McNemar statistic, its p-value, the mean and effective tables."""

    statistic: np.ndarray
    pvalue: np.ndarray
    factor: float
    mean_table: np.ndarray
    effective_table: np.ndarray
    n_effective: np.ndarray
    degenerate: np.ndarray


def mcnemar_5x2bcv_kernel(tables: Any, rho1: float = 0.5, rho2: float = 0.5) -> BCVMcNemarKernel:
    """M = t (max(|n̄01 − n̄10| − 1/t, 0))² / (n̄01 + n̄10) ~ χ²(1) over ``(..., m, 2, 4)``.

    ``tables[..., i, j, :]`` = (n00, n01, n10, n11) of fold j of replication i;
    n̄ is the mean over the 2m tables (Yang et al. eq. 6), t = :func:`bcv_factor`,
    the effective table C_e = t·n̄ (eq. 11), n_e = its total (eq. 12) and the
    statistic eq. 14 (eq. 15 at ρ1 = ρ2 = ½). n̄01 + n̄10 = 0 gives statistic 0, p = 1.

    >>> tables = [[[10, 12, 4, 74], [8, 9, 6, 77]]] * 5
    >>> k = mcnemar_5x2bcv_kernel(tables)
    >>> round(float(k.statistic), 6), k.mean_table.tolist()
    (2.874194, [9.0, 10.5, 5.0, 75.5])
    """
    t = np.asarray(tables, dtype=np.float64)
    if t.ndim < 3 or t.shape[-1] != 4 or t.shape[-2] != 2:
        raise DataError(
            "BCV tables must have shape (..., m, 2, 4): replication, fold, "
            f"(n00, n01, n10, n11); got {t.shape}"
        )
    m = t.shape[-3]
    factor = bcv_factor(rho1, rho2, m)
    mean = t.mean(axis=(-3, -2))
    n01 = mean[..., 1]
    n10 = mean[..., 2]
    discordant = n01 + n10
    empty = discordant == 0
    diff = np.maximum(np.abs(n01 - n10) - 1.0 / factor, 0.0)
    statistic = np.where(empty, 0.0, factor * diff**2 / np.where(empty, 1.0, discordant))
    pvalue = np.where(empty, 1.0, chi2_sf(statistic, 1))
    effective = factor * mean
    code = np.where(empty, NO_DISCORDANT, OK).astype(np.int8)
    return BCVMcNemarKernel(
        statistic, pvalue, factor, mean, effective, effective.sum(axis=-1), code
    )


class PosteriorKernel(NamedTuple):
    """Beta(alpha, beta) posterior summaries, each an array of the batch shape."""

    alpha: np.ndarray
    beta: np.ndarray
    mode: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    prob_above_half: np.ndarray


_POSTERIOR_TEXT = {
    "e": "disagreement probability P(A and B disagree)",
    "r": "share of the disagreements where A is the one wrong (r > ½: A makes more unique errors)",
    "q_a": "error rate of A where B is right",
    "q_b": "error rate of A where B is wrong",
}


def _beta_mode(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mode of Beta(a, b); 0 or 1 at a monotone density; the mean where there is no unique mode."""
    both = (a > 1) & (b > 1)
    interior = (a - 1.0) / np.where(both, a + b - 2.0, 1.0)
    mean = a / (a + b)
    return np.where(
        both, interior, np.where((a <= 1) & (b > 1), 0.0, np.where((a > 1) & (b <= 1), 1.0, mean))
    )


def contingency_posteriors_kernel(
    table: Any, prior: float = 1.0, level: float = 0.95
) -> dict[str, PosteriorKernel]:
    """Beta posteriors of e, r, q_a and q_b given a 2×2 table ``(..., 4)`` (Yang et al. Lemma 2).

    With a Beta(λ, λ) prior: e | C ~ Be(n01 + n10 + λ, n00 + n11 + λ),
    r | C ~ Be(n01 + λ, n10 + λ), q_a | C ~ Be(n01 + λ, n11 + λ),
    q_b | C ~ Be(n00 + λ, n10 + λ). Returns mode, mean, the equal-tailed
    credible interval at ``level`` and P(· > ½) for each.

    >>> post = contingency_posteriors_kernel([10, 12, 4, 74])
    >>> float(post["r"].mode), round(float(post["r"].prob_above_half), 6)
    (0.75, 0.975479)
    """
    c = np.asarray(table, dtype=np.float64)
    if c.ndim == 0 or c.shape[-1] != 4:
        raise DataError(f"a 2×2 table must end in (n00, n01, n10, n11), got shape {c.shape}")
    n00, n01, n10, n11 = (c[..., i] for i in range(4))
    lam = float(prior)
    params = {
        "e": (n01 + n10 + lam, n00 + n11 + lam),
        "r": (n01 + lam, n10 + lam),
        "q_a": (n01 + lam, n11 + lam),
        "q_b": (n00 + lam, n10 + lam),
    }
    tail = (1.0 - level) / 2.0
    out = {}
    for name, (a, b) in params.items():
        out[name] = PosteriorKernel(
            alpha=a,
            beta=b,
            mode=_beta_mode(a, b),
            mean=a / (a + b),
            low=special.betaincinv(a, b, tail),
            high=special.betaincinv(a, b, 1.0 - tail),
            prob_above_half=special.betainc(b, a, 0.5),
        )
    return out


# ================================================================ results
@dataclass(frozen=True)
class BetaPosterior:
    """A Beta posterior of one quantity of the 2×2 table (Yang et al. Lemma 2).

    Attributes
    ----------
    name : str
        ``"e"``, ``"r"``, ``"q_a"`` or ``"q_b"``.
    description : str
        What the quantity means.
    alpha, beta : float
        The posterior's parameters.
    mode, mean : float
        Posterior mode (the plain estimator under the Beta(1, 1) prior) and mean.
    interval : tuple of float
        Equal-tailed credible interval at ``level``.
    prob_above_half : float
        Posterior probability that the quantity exceeds ½.
    """

    name: str
    description: str
    alpha: float
    beta: float
    mode: float
    mean: float
    interval: tuple[float, float]
    level: float
    prob_above_half: float

    def credible_interval(self, level: float = 0.95) -> tuple[float, float]:
        """Equal-tailed credible interval at ``level``."""
        if not 0 < level < 1:
            raise CVReportError(f"level must lie strictly between 0 and 1, got {level!r}")
        tail = (1.0 - level) / 2.0
        return (
            float(special.betaincinv(self.alpha, self.beta, tail)),
            float(special.betaincinv(self.alpha, self.beta, 1.0 - tail)),
        )


def contingency_posteriors(
    n00: float,
    n01: float,
    n10: float,
    n11: float,
    *,
    prior: float = 1.0,
    level: float = 0.95,
) -> tuple[BetaPosterior, ...]:
    """The Bayesian reading of one 2×2 table: posteriors of e, r, q_a and q_b.

    Under the Beta(1, 1) prior the posterior modes equal the plain estimators
    (Yang et al. Corollary 1): mode(e) = (n01 + n10)/n, mode(r) = n01/(n01 + n10), …

    Examples
    --------
    >>> from cvreport.arrays import contingency_posteriors
    >>> e, r, q_a, q_b = contingency_posteriors(10, 12, 4, 74)
    >>> e.mode, r.mode, round(r.prob_above_half, 6)
    (0.16, 0.75, 0.975479)
    """
    if not prior > 0:
        raise CVReportError(f"prior (λ of the Beta(λ, λ) prior) must be positive, got {prior!r}")
    if not 0 < level < 1:
        raise CVReportError(f"level must lie strictly between 0 and 1, got {level!r}")
    counts = as_array([n00, n01, n10, n11], "the 2×2 table")
    if np.any(counts < 0):
        raise DataError(f"2×2 counts must be non-negative, got {counts.tolist()}")
    kernels = contingency_posteriors_kernel(counts, prior, level)
    return tuple(
        BetaPosterior(
            name=name,
            description=_POSTERIOR_TEXT[name],
            alpha=float(k.alpha),
            beta=float(k.beta),
            mode=float(k.mode),
            mean=float(k.mean),
            interval=(float(k.low), float(k.high)),
            level=level,
            prob_above_half=float(k.prob_above_half),
        )
        for name, k in kernels.items()
    )


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

    def _summary_rows(self) -> list[SummaryRow]:
        from cvreport.rendering.summary import SummaryRow

        rows = super()._summary_rows()
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

    def _summary_tables(self) -> list[SummaryTable]:
        from cvreport.rendering.summary import SummaryTable

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


@dataclass(frozen=True, kw_only=True, repr=False)
class BCVMcNemarResult(TestResult):
    """The 5×2 BCV McNemar test with its effective table and Bayesian reading.

    Attributes
    ----------
    rho1, rho2 : float
        Correlations used in the compression factor (½ and ½ by default, the
        conservative choice of Yang et al.).
    factor : float
        t = 2m / (1 + ρ1 + 2(m − 1)ρ2) (20/11 for 5×2 at the defaults).
    mean_table : tuple of float
        n̄00, n̄01, n̄10, n̄11: the mean of the 2m fold tables.
    effective_table : tuple of float
        t·n̄ (Yang et al. eq. 11).
    n_effective : float
        The effective validation size n_e, the total of the effective table (eq. 12).
    prior : float
        λ of the Beta(λ, λ) prior.
    posteriors : tuple of BetaPosterior
        Posteriors of e, r, q_a and q_b given the effective table (Lemma 2).
    """

    distribution: str = "chi2"
    rho1: float = 0.5
    rho2: float = 0.5
    factor: float = 20.0 / 11.0
    mean_table: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    effective_table: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    n_effective: float = 0.0
    prior: float = 1.0
    posteriors: tuple[BetaPosterior, ...] = ()
    balanced: bool | None = None

    def posterior(self, name: str) -> BetaPosterior:
        """The posterior of ``"e"``, ``"r"``, ``"q_a"`` or ``"q_b"``."""
        for post in self.posteriors:
            if post.name == name:
                return post
        raise CVReportError(
            f"no posterior named {name!r}; choose from {[p.name for p in self.posteriors]}"
        )

    @property
    def prob_a_more_unique_errors(self) -> float:
        """P(r > ½ | C_e): the posterior probability that A makes more of the unique errors."""
        return self.posterior("r").prob_above_half

    def _summary_rows(self) -> list[SummaryRow]:
        from cvreport.rendering.summary import SummaryRow

        rows = super()._summary_rows()
        rows.append(SummaryRow("ρ1, ρ2", (self.rho1, self.rho2), "value"))
        rows.append(SummaryRow("compression factor t", self.factor, "number"))
        rows.append(SummaryRow("effective validation size n_e", self.n_effective, "number"))
        rows.append(
            SummaryRow(
                "P(r > ½): A makes more unique errors", self.prob_a_more_unique_errors, "number"
            )
        )
        return rows

    def _summary_tables(self) -> list[SummaryTable]:
        from cvreport.rendering.summary import SummaryTable

        tables = [
            SummaryTable(
                caption="Mean and effective 2×2 tables (n00 both wrong, n01 only A wrong, "
                "n10 only B wrong, n11 both right)",
                columns=("table", "n00", "n01", "n10", "n11"),
                rows=(("mean n̄", *self.mean_table), ("effective t·n̄", *self.effective_table)),
                kinds=("text", "number", "number", "number", "number"),
            )
        ]
        if self.posteriors:
            level = self.posteriors[0].level
            tables.append(
                SummaryTable(
                    caption=f"Beta posteriors given the effective table (Beta({self.prior:g}, "
                    f"{self.prior:g}) prior; {level:.0%} equal-tailed intervals)",
                    columns=("quantity", "mode", "low", "high", "P(> ½)"),
                    rows=tuple(
                        (p.name, p.mode, p.interval[0], p.interval[1], p.prob_above_half)
                        for p in self.posteriors
                    ),
                    kinds=("text", "number", "number", "number", "number"),
                )
            )
        return tables


# ================================================================ array level
def _check_counts(values: Any, name: str) -> np.ndarray:
    array = as_array(values, name)
    if np.any(array < 0):
        raise DataError(f"{name} must be non-negative counts, got {array.tolist()}")
    if np.any(array != np.round(array)):
        raise DataError(
            f"{name} must be whole counts of records, got {array.tolist()}; count the records "
            "on which the models disagree"
        )
    return array


def _count(value: float) -> float:
    """A count as an int when it is whole (so that summaries print 29, not 29.0000)."""
    number = float(value)
    return int(number) if number.is_integer() else number


def _mcnemar(b: float, c: float, method: str, n: float | None) -> McNemarResult:
    k = mcnemar_kernel(b, c, method)
    chi2 = method in ("corrected", "uncorrected")
    return McNemarResult(
        statistic=float(k.statistic),
        pvalue=float(k.pvalue),
        df=1.0 if chi2 else None,
        distribution="chi2" if chi2 else "binomial",
        alternative="two-sided",
        estimate=None if not n else (b - c) / n,
        nobs=None if n is None else int(n),
        method=_METHOD_NAMES[method],
        test="mcnemar",
        reference=REF_MCNEMAR,
        design="hold-out (one validation fold)",
        warnings=describe_degenerate(int(k.degenerate), numerator="", denominator=""),
        b=_count(b),
        c=_count(c),
        variant=method,
    )


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

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2):153–157. Edwards, A. L. (1948).
    Psychometrika 13(3):185–187. Dietterich, T. G. (1998). Approximate statistical tests
    for comparing supervised classification learning algorithms. Neural Computation
    10(7):1895–1923.

    Examples
    --------
    >>> from cvreport.arrays import mcnemar
    >>> res = mcnemar(12, 4)
    >>> res.statistic, round(res.pvalue, 6)
    (3.0625, 0.080118)
    >>> round(mcnemar(12, 4, method="midp").pvalue, 6)
    0.049042
    """
    if method not in MCNEMAR_METHODS:
        raise CVReportError(f"method must be one of {MCNEMAR_METHODS}, got {method!r}")
    counts = _check_counts([b, c], "b and c")
    total = None
    if n is not None:
        total = float(_check_counts(n, "n"))
        if total < counts.sum():
            raise DataError(f"n = {n} is smaller than b + c = {counts.sum():g}")
    result = _mcnemar(float(counts[0]), float(counts[1]), method, total)
    emit_warnings(result.warnings)
    return result


def _mcnemar_kfold(
    b: np.ndarray, c: np.ndarray, folds: Any = None, n: float | None = None
) -> McNemarKFoldResult:
    k = mcnemar_kfold_kernel(b, c)
    labels = (
        tuple(str(f) for f in folds)
        if folds is not None
        else tuple(str(i + 1) for i in range(b.size))
    )
    warnings = describe_degenerate(int(k.degenerate), numerator="", denominator="")
    empty = [labels[i] for i in np.flatnonzero(b + c == 0)]
    if empty and not warnings:
        warnings = (
            f"folds {', '.join(empty)} have no discordant records (b + c = 0); each "
            "contributes statistic 0 by convention.",
        )
    return McNemarKFoldResult(
        statistic=float(k.statistic),
        pvalue=float(k.pvalue),
        df=k.df,
        alternative="two-sided",
        estimate=None if not n else float((b.sum() - c.sum()) / n),
        nobs=None if n is None else int(n),
        method="Naive K-fold CV McNemar test",
        test="mcnemar_kfold",
        reference=REF_KFOLD,
        design=f"{b.size}-fold cross-validation (counts given directly)",
        warnings=warnings,
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


def mcnemar_kfold_array(b: Any, c: Any) -> McNemarKFoldResult:
    """The naive K-fold CV McNemar test from per-fold discordant counts.

    Σ_k (max(|b_k − c_k| − 1, 0))² / (b_k + c_k) ~ χ²(K) (Yang et al. eq. 5); folds
    with b_k + c_k = 0 contribute 0. Not recommended: the folds are correlated.

    References
    ----------
    Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated McNemar's
    test for comparing two classification algorithms, eq. 5.

    Examples
    --------
    >>> from cvreport.arrays import mcnemar_kfold
    >>> res = mcnemar_kfold([12, 5], [4, 5])
    >>> res.statistic, res.df, round(res.pvalue, 6)
    (3.0625, 2.0, 0.216265)
    """
    b_arr = _check_counts(b, "b")
    c_arr = _check_counts(c, "c")
    if b_arr.ndim != 1 or b_arr.shape != c_arr.shape:
        raise DataError(
            f"b and c must be 1-D arrays of equal length (one count per fold), got "
            f"shapes {b_arr.shape} and {c_arr.shape}"
        )
    result = _mcnemar_kfold(b_arr, c_arr)
    emit_warnings(result.warnings)
    return result


def _four(values: np.ndarray) -> tuple[float, float, float, float]:
    n00, n01, n10, n11 = (float(x) for x in values)
    return (n00, n01, n10, n11)


def _mcnemar_5x2bcv(
    tables: np.ndarray, rho1: float, rho2: float, prior: float, level: float
) -> BCVMcNemarResult:
    if not 0.0 <= rho1 <= 1.0 or not 0.0 <= rho2 <= 1.0:
        raise CVReportError(f"rho1 and rho2 must lie in [0, 1], got {rho1!r} and {rho2!r}")
    if not prior > 0:
        raise CVReportError(f"prior (λ of the Beta(λ, λ) prior) must be positive, got {prior!r}")
    m = tables.shape[0]
    k = mcnemar_5x2bcv_kernel(tables, rho1, rho2)
    mean = _four(k.mean_table)
    effective = _four(k.effective_table)
    total = sum(mean)
    posteriors = contingency_posteriors(*effective, prior=prior, level=level)
    warnings: tuple[str, ...] = ()
    if int(k.degenerate) == NO_DISCORDANT:
        warnings = (
            "no discordant records on average (n̄01 + n̄10 = 0): the models err on exactly "
            "the same records in every fold; by convention statistic = 0 and p = 1.",
        )
    notes: tuple[str, ...] = ()
    if m != 5:
        notes = (f"extension to m×2 BCV (m = {m}): t = 2m / (1 + ρ1 + 2(m − 1)ρ2).",)
    if (rho1, rho2) != (0.5, 0.5):
        notes += (
            "ρ1, ρ2 differ from the conservative ½, ½ of Yang et al.; smaller values make the "
            "test more liberal.",
        )
    return BCVMcNemarResult(
        statistic=float(k.statistic),
        pvalue=float(k.pvalue),
        df=1.0,
        alternative="two-sided",
        estimate=None if total == 0 else (mean[1] - mean[2]) / total,
        nobs=round(2.0 * total),
        method=f"{m}×2 BCV McNemar test",
        test="mcnemar_5x2bcv",
        reference=REF_BCV,
        design=f"{m}×2 block-regularized cross-validation (tables given directly)",
        warnings=warnings,
        notes=notes,
        rho1=float(rho1),
        rho2=float(rho2),
        factor=k.factor,
        mean_table=mean,
        effective_table=effective,
        n_effective=float(k.n_effective),
        prior=float(prior),
        posteriors=posteriors,
    )


def mcnemar_5x2bcv_array(
    tables: Any,
    rho1: float = 0.5,
    rho2: float = 0.5,
    *,
    prior: float = 1.0,
    level: float = 0.95,
) -> BCVMcNemarResult:
    """The 5×2 BCV McNemar test from the 2m fold tables of an m×2 BCV.

    n̄ = mean of the 2m tables (Yang et al. eq. 6), t = 10 / (1 + ρ1 + 8ρ2)
    (2m / (1 + ρ1 + 2(m − 1)ρ2) for m×2, an extension), C_e = t·n̄ (eq. 11),
    n_e = total of C_e (eq. 12), M = t (max(|n̄01 − n̄10| − 1/t, 0))² / (n̄01 + n̄10)
    ~ χ²(1) (eq. 14; eq. 15 at ρ1 = ρ2 = ½). The result carries the Beta
    posteriors of e, r, q_a and q_b given C_e (Lemma 2).

    Parameters
    ----------
    tables : array_like, shape (m, 2, 4) or (2m, 4)
        (n00, n01, n10, n11) per fold; rows of a (2m, 4) array are read as
        replication 1 fold 1, replication 1 fold 2, …
    rho1, rho2 : float
        Correlations; ½ and ½ (the paper's conservative choice) by default.
    prior : float
        λ of the Beta(λ, λ) prior (1: uniform).
    level : float
        Level of the credible intervals.

    References
    ----------
    Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated McNemar's
    test for comparing two classification algorithms, eqs. 6–15 and Lemma 2.

    Examples
    --------
    >>> from cvreport.arrays import mcnemar_5x2bcv
    >>> res = mcnemar_5x2bcv([[[10, 12, 4, 74], [8, 9, 6, 77]]] * 5)
    >>> round(res.statistic, 6), res.mean_table, round(res.n_effective, 4)
    (2.874194, (9.0, 10.5, 5.0, 75.5), 181.8182)
    """
    t = _check_counts(tables, "tables")
    if t.ndim == 2 and t.shape[1] == 4 and t.shape[0] % 2 == 0:
        t = t.reshape(-1, 2, 4)
    if t.ndim != 3 or t.shape[1:] != (2, 4):
        raise DataError(
            "tables must have shape (m, 2, 4) or (2m, 4) with columns (n00, n01, n10, n11), "
            f"got {t.shape}"
        )
    result = _mcnemar_5x2bcv(t, float(rho1), float(rho2), float(prior), float(level))
    emit_warnings(result.warnings)
    return result


# ================================================================ table level
def _contingency(table: ResultsTable, a: Any, b: Any, test: str) -> pd.DataFrame:
    table.require_per_record(test)
    table.require_binary(test)
    frame = table.contingency(a, b)
    return frame.sort_values(["replication", "fold"], kind="stable").reset_index(drop=True)


def mcnemar(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    method: str = "corrected",
    *,
    data: pd.DataFrame | None = None,
) -> McNemarResult:
    """McNemar's test on the single validation fold of a hold-out design.

    b = n01 (A wrong, B right), c = n10 (A right, B wrong). ``method``:
    ``"corrected"`` (default; Edwards' continuity correction, clamped at 0),
    ``"uncorrected"``, ``"exact"`` (binomial) or ``"midp"``. Needs per-record
    0/1 losses. When b + c = 0 the result is statistic 0, p = 1 with a warning
    (statsmodels and mlxtend return p = 0 for the corrected statistic there).

    Raises
    ------
    DesignError
        Unless the table is a hold-out design (one replication, one validation fold)
        with per-record losses.
    DataError
        When the losses are not 0/1.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2):153–157. Edwards, A. L. (1948).
    Psychometrika 13(3):185–187. Dietterich, T. G. (1998). Approximate statistical tests
    for comparing supervised classification learning algorithms. Neural Computation
    10(7):1895–1923.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cvreport
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"model": ["A"] * 60 + ["B"] * 60, "record": list(range(60)) * 2,
    ...                    "loss": (rng.random(120) < 0.3).astype(int)})
    >>> res = cvreport.mcnemar("loss ~ model", data=df, method="exact")
    >>> res.distribution, res.models
    ('binomial', ('A', 'B'))
    """
    if method not in MCNEMAR_METHODS:
        raise CVReportError(f"method must be one of {MCNEMAR_METHODS}, got {method!r}")
    table = as_table(table, data)
    require_design(
        table,
        "mcnemar",
        lambda d: d.is_holdout and d.m == 1,
        "a hold-out design (one replication with one validation fold); use mcnemar_kfold "
        "for K-fold or mcnemar_5x2bcv for m×2 designs",
    )
    pair = table.resolve_pair(a, b)
    frame = _contingency(table, *pair, "mcnemar")
    counts = frame[["n00", "n01", "n10", "n11"]].to_numpy(dtype=np.float64).sum(axis=0)
    result = _mcnemar(float(counts[1]), float(counts[2]), method, float(counts.sum()))
    result = finish_result(result, table, pair)
    emit_warnings(result.warnings)
    return result


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

    Raises
    ------
    DesignError
        Unless the table is a K-fold design (one replication, K ≥ 2 folds) with
        per-record losses.

    References
    ----------
    Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated McNemar's
    test for comparing two classification algorithms, eq. 5.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cvreport
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(
    ...     [(0, r % 5, model, r, int(rng.random() < p))
    ...      for r in range(100) for model, p in (("A", 0.2), ("B", 0.35))],
    ...     columns=["replication", "fold", "model", "record", "loss"])
    >>> res = cvreport.mcnemar_kfold("loss ~ model | replication + fold", data=df)
    >>> res.df, len(res.fold_statistics)
    (5.0, 5)
    """
    table = as_table(table, data)
    require_design(
        table,
        "mcnemar_kfold",
        lambda d: d.is_kfold,
        "a K-fold design (one replication, K ≥ 2 folds)",
    )
    pair = table.resolve_pair(a, b)
    frame = _contingency(table, *pair, "mcnemar_kfold")
    b_counts = frame["n01"].to_numpy(dtype=np.float64)
    c_counts = frame["n10"].to_numpy(dtype=np.float64)
    n = float(frame[["n00", "n01", "n10", "n11"]].to_numpy().sum())
    result = _mcnemar_kfold(b_counts, c_counts, frame["fold"].tolist(), n)
    result = finish_result(result, table, pair)
    emit_warnings(result.warnings)
    return result


def mcnemar_5x2bcv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    rho1: float = 0.5,
    rho2: float = 0.5,
    *,
    prior: float = 1.0,
    level: float = 0.95,
    data: pd.DataFrame | None = None,
) -> BCVMcNemarResult:
    """The 5×2 BCV McNemar test on the effective contingency table (Yang et al. §4.4–4.5).

    M = 20 (max(|n̄01 − n̄10| − 11/20, 0))² / (11 (n̄01 + n̄10)) ~ χ²(1) at the
    default ρ1 = ρ2 = ½; in general t (max(|n̄01 − n̄10| − 1/t, 0))² / (n̄01 + n̄10)
    with t = 10 / (1 + ρ1 + 8ρ2). The result carries the mean and effective
    tables, n_e and the Beta posteriors of e, r, q_a, q_b (mode, equal-tailed
    credible interval, P(· > ½)). Other m×2 designs use the labelled extension
    t = 2m / (1 + ρ1 + 2(m − 1)ρ2). Warns
    (:class:`~cvreport.errors.PartitionWarning`) when the partitions are not
    block-regularized (training-set overlaps not all n/4).

    Raises
    ------
    DesignError
        Unless the table is an m×2 design with per-record losses.
    DataError
        When the losses are not 0/1.

    References
    ----------
    Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated McNemar's
    test for comparing two classification algorithms, eqs. 6–15 and Lemma 2.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cvreport
    >>> rng = np.random.default_rng(0)
    >>> training_blocks = [{1, 2, 3, 4}, {1, 3, 5, 7}, {1, 2, 5, 6}, {1, 4, 5, 8}, {1, 3, 6, 8}]
    >>> df = pd.DataFrame(
    ...     [(i, int(r % 8 + 1 not in blocks), model, r, int(rng.random() < p))
    ...      for i, blocks in enumerate(training_blocks) for r in range(80)
    ...      for model, p in (("A", 0.2), ("B", 0.35))],
    ...     columns=["replication", "fold", "model", "record", "loss"])
    >>> res = cvreport.mcnemar_5x2bcv("loss ~ model | replication + fold", data=df)
    >>> round(res.factor, 6), round(res.n_effective, 4), res.balanced
    (1.818182, 72.7273, True)
    >>> [p.name for p in res.posteriors]
    ['e', 'r', 'q_a', 'q_b']
    """
    table = as_table(table, data)
    require_design(
        table,
        "mcnemar_5x2bcv",
        lambda d: d.is_mx2,
        "an m×2 design (m replications of 2-fold cross-validation, ideally 5×2 block-regularized)",
    )
    pair = table.resolve_pair(a, b)
    frame = _contingency(table, *pair, "mcnemar_5x2bcv")
    m, n_folds = table.design.m, 2
    if len(frame) != m * n_folds:
        raise DataError(
            f"mcnemar_5x2bcv needs a 2×2 table on both folds of all {m} replications, "
            f"got {len(frame)} tables"
        )
    tables = frame[["n00", "n01", "n10", "n11"]].to_numpy(dtype=np.float64).reshape(m, 2, 4)
    balanced, message = partition_balance(table)
    partition_warnings = (f"mcnemar_5x2bcv: {message}",) if balanced is False else ()
    partition_notes = (message,) if balanced is None else ()
    result = _mcnemar_5x2bcv(tables, float(rho1), float(rho2), float(prior), float(level))
    emit_warnings(result.warnings)
    emit_partition_warnings(partition_warnings)
    result = finish_result(
        result,
        table,
        pair,
        nobs=table.design.n_records,
        extra_warnings=partition_warnings,
        extra_notes=partition_notes,
    )
    return dataclasses.replace(result, balanced=balanced)
