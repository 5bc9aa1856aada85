"""Bayesian correlated t test: a posterior for the mean difference A − B over CV splits.

Corani & Benavoli (2015) model the J split differences ``p_j`` (A − B) as
correlated normals with correlation ρ between any two splits; with Nadeau &
Bengio's heuristic ρ = n2/n (validation size over data size, 1/k for k-fold CV)
and a non-informative prior, the posterior of the mean difference δ is a
Student t::

    δ | p ~ t(ν = J − 1, location = mean(p), scale² = (1/J + ρ/(1 − ρ)) · s²)

with ``s²`` the sample variance of the differences (divisor J − 1). Because
``ρ/(1 − ρ) = n2/n1``, the posterior's standardised location equals the
corrected resampled / repeated k-fold t statistic. A region of practical
equivalence (rope) ``[−w, w]`` splits the posterior into three probabilities:
P(A better) = P(δ < −w) (A has lower loss), P(equivalent) = P(|δ| ≤ w) and
P(B better) = P(δ > w). For a score (``direction="higher"``) δ is score(A) −
score(B) and A is better when δ > w: the test runs on the negated score and the
result is turned back (:meth:`~cvreport.results.TestResult._negated`).

The result is reported in probabilities. For the shared result protocol its
``statistic`` is ``location / scale`` and its ``pvalue`` is the posterior
probability that the alternative is false: ``1 − P(A better)`` for
``alternative="less"``, ``1 − P(B better)`` for ``"greater"`` (for a loss; the
other way round for a score) and
``min(1, 2·min(1 − P(A better), 1 − P(B better)))`` for ``"two-sided"``.
With ``rope=0`` this equals the p-value of the corrected t test (the flat-prior
posterior tail is the frequentist tail), so ``reject(alpha)`` reads "the
posterior probability of the alternative is at least 1 − alpha" (1 − alpha/2
on the likelier side for two-sided); a positive rope makes it stricter.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special

from cvreport.errors import CVReportError, DataError, DesignError
from cvreport.methods._common import (
    NONZERO_OVER_ZERO,
    ZERO_OVER_ZERO,
    as_array,
    kernel_fields,
    safe_ratio,
)
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.resampled_t import check_ratio, prepare_splits, split_moments
from cvreport.methods.spec import TestSpec, flat_split_differences, split_design
from cvreport.option_values import real_option
from cvreport.results import TestResult, level_text
from cvreport.summary_data import SummaryRow

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable
    from cvreport.rendering.summary import Summary

__all__ = [
    "BAYESIAN_CORRELATED_T",
    "BayesianCorrelatedTTestResult",
    "BayesianKernel",
    "bayesian_correlated_ttest",
    "bayesian_correlated_ttest_array",
    "bayesian_correlated_ttest_kernel",
]

REFERENCE = (
    "Corani, G. and Benavoli, A. (2015). A Bayesian approach for comparing cross-validated "
    "algorithms on multiple data sets. Machine Learning 100(2–3):285–304; Benavoli, A., "
    "Corani, G., Demšar, J. and Zaffalon, M. (2017). Time for a change: a tutorial for "
    "comparing multiple classifiers through Bayesian analysis. JMLR 18(77):1–36."
)


# ================================================================ layer 1: the kernel
class BayesianKernel(NamedTuple):
    """Elementwise posterior summaries; arrays have the batch shape ``...``.

    ``degenerate`` holds the codes of docs/methods.md (1: zero variance and zero
    mean, 2: zero variance and non-zero mean); there the posterior is a point mass
    at ``location`` and the probabilities are 0 or 1.
    """

    statistic: NDArray[np.float64]
    pvalue: NDArray[np.float64]
    df: float
    location: NDArray[np.float64]
    scale: NDArray[np.float64]
    prob_a_better: NDArray[np.float64]
    prob_equivalent: NDArray[np.float64]
    prob_b_better: NDArray[np.float64]
    degenerate: NDArray[np.int8]


def bayesian_correlated_ttest_kernel(
    differences: ArrayLike,
    test_train_ratio: ArrayLike,
    rope: ArrayLike = 0.0,
    alternative: str = "two-sided",
) -> BayesianKernel:
    """The correlated-t posterior of the mean difference, on the last axis of ``differences``.

    Parameters
    ----------
    differences : array_like, shape (..., J)
        Split differences A − B, J >= 2.
    test_train_ratio : array_like
        ``n2/n1`` = ρ/(1 − ρ), broadcastable to the batch shape (``1/(k − 1)`` for k-fold CV).
    rope : array_like
        Half-width w >= 0 of the region of practical equivalence.
    alternative : {"two-sided", "less", "greater"}
        Used only for ``pvalue`` (see the module docstring).

    Examples
    --------
    >>> d = [0.02, -0.01, 0.03, 0.00, 0.01, 0.02, -0.02, 0.01, 0.04, 0.00]
    >>> k = bayesian_correlated_ttest_kernel(d, 1.0, rope=0.01)
    >>> [round(float(x), 6) for x in (k.prob_a_better, k.prob_equivalent, k.prob_b_better)]
    [0.161755, 0.338245, 0.5]
    """
    test = "the correlated t posterior"
    location, variance, factor = split_moments(differences, test_train_ratio, alternative, test)
    df = float(np.shape(differences)[-1] - 1)
    w = np.asarray(rope, dtype=np.float64)
    scale = np.sqrt(factor * variance)
    statistic, code = safe_ratio(location, scale)

    point = scale == 0
    safe_scale = np.where(point, 1.0, scale)
    low = (-w - location) / safe_scale  # standardised −w
    high = (w - location) / safe_scale  # standardised +w
    # regular posterior: Student t tails; point mass: 0/1 indicators
    below = np.where(point, (location < -w).astype(np.float64), special.stdtr(df, low))
    above = np.where(point, (location > w).astype(np.float64), special.stdtr(df, -high))
    inside = np.where(
        point,
        (np.abs(location) <= w).astype(np.float64),
        np.where(w > 0, special.stdtr(df, high) - special.stdtr(df, low), 0.0),
    )
    inside = np.clip(inside, 0.0, 1.0)
    # posterior probability that the alternative is false, computed from the tail
    # itself (not 1 − P) so that small values keep their precision
    not_a_better = np.where(point, (location >= -w).astype(np.float64), special.stdtr(df, -low))
    not_b_better = np.where(point, (location <= w).astype(np.float64), special.stdtr(df, high))
    if alternative == "less":
        pvalue = not_a_better
    elif alternative == "greater":
        pvalue = not_b_better
    else:
        pvalue = np.minimum(1.0, 2.0 * np.minimum(not_a_better, not_b_better))
    shape = np.shape(location)
    return BayesianKernel(
        statistic=np.asarray(statistic, dtype=np.float64),
        pvalue=np.asarray(pvalue, dtype=np.float64),
        df=df,
        location=np.asarray(location, dtype=np.float64),
        scale=np.asarray(scale, dtype=np.float64),
        prob_a_better=np.broadcast_to(below, shape).astype(np.float64),
        prob_equivalent=np.broadcast_to(inside, shape).astype(np.float64),
        prob_b_better=np.broadcast_to(above, shape).astype(np.float64),
        degenerate=np.asarray(code, dtype=np.int8),
    )


# ================================================================ the result
@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class BayesianCorrelatedTTestResult(TestResult):
    """Posterior of the mean difference δ = A − B of the metric under the correlated t model.

    Attributes
    ----------
    prob_a_better, prob_equivalent, prob_b_better : float
        P(A better by more than rope), P(|δ| <= rope), P(B better by more than rope),
        "better" in the metric's direction: for a loss P(δ < −rope) is A's, for a
        score P(δ > rope).
    rope : float
        Half-width of the region of practical equivalence (in the metric's units).
    posterior_df, location, scale : float
        The posterior Student t: ν = J − 1, mean difference, and
        ``sqrt((1/J + n2/n1) · s²)``.
    test_train_ratio : float
        ``n2/n1`` used for the correlation.
    correlation : float
        ρ = n2/n = ratio / (1 + ratio).
    n_splits : int
        J.

    Notes
    -----
    ``statistic`` is ``location / scale``; ``pvalue`` is the posterior probability
    that the alternative is false (see :mod:`cvreport.methods.bayesian`).
    :meth:`conf_int` and :meth:`credible_interval` return the equal-tailed
    ``1 − alpha`` credible interval, whatever the ``alternative``.
    """

    prob_a_better: float = math.nan
    prob_equivalent: float = math.nan
    prob_b_better: float = math.nan
    rope: float = 0.0
    posterior_df: float = math.nan
    location: float = math.nan
    scale: float = math.nan
    test_train_ratio: float = math.nan
    correlation: float = math.nan
    n_splits: int = 0

    # P(A better) and P(B better) mean "better" in the metric's direction: they stay
    _signed_fields: ClassVar[tuple[str, ...]] = ("estimate", "location")

    def _negated_changes(self) -> dict[str, Any]:
        changes = super()._negated_changes()
        said, meant = f"equals {self.location:.6g}:", f"equals {changes['location']:.6g}:"
        changes["warnings"] = tuple(w.replace(said, meant) for w in self.warnings)
        return changes

    @property
    def probabilities(self) -> tuple[float, float, float]:
        """``(P(A better), P(equivalent), P(B better))``."""
        return (self.prob_a_better, self.prob_equivalent, self.prob_b_better)

    def credible_interval(self, alpha: float = 0.05) -> tuple[float, float]:
        """Equal-tailed ``1 − alpha`` posterior interval of the mean difference A − B."""
        return self.conf_int(alpha)

    def _conf_int(self, alpha: float) -> tuple[float, float] | None:
        half = float(special.stdtrit(self.posterior_df, 1.0 - alpha / 2.0)) * self.scale
        return (self.location - half, self.location + half)

    def decision(self, level: float = 0.95) -> str:
        """A sentence: which of the three regions holds at least ``level`` posterior probability."""
        a, b = self.models if self.models else ("A", "B")
        better = f"{self.direction} {self.loss_name}"
        # 0.0 + : a probability of −0.0 (a difference of equal tails) prints as 0.000
        p_a, p_eq, p_b = (
            0.0 + max(p, 0.0)
            for p in (self.prob_a_better, self.prob_equivalent, self.prob_b_better)
        )
        if self.prob_a_better >= level:
            return f"{a} has {better} than {b} with posterior probability {p_a:.3f}."
        if self.prob_b_better >= level:
            return f"{b} has {better} than {a} with posterior probability {p_b:.3f}."
        if self.prob_equivalent >= level:
            return (
                f"{a} and {b} are practically equivalent (|δ| ≤ {self.rope:g}) with posterior "
                f"probability {p_eq:.3f}."
            )
        return (
            f"No region reaches posterior probability {level:g}: P({a} better) = "
            f"{p_a:.3f}, P(equivalent) = {p_eq:.3f}, "
            f"P({b} better) = {p_b:.3f}."
        )

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        a, b = self.models if self.models else ("A", "B")
        low, high = self.credible_interval(alpha)
        below, above = "δ < −rope", "δ > rope"
        a_better, b_better = (above, below) if self.direction == "higher" else (below, above)
        rows = [
            SummaryRow("models (A vs B)", f"{a} vs {b}" if self.models else None, "text"),
            SummaryRow("design", self.design, "text"),
            SummaryRow(f"posterior of δ (mean {self.loss_name} A − B)", "Student t", "text"),
            SummaryRow("posterior df", self.posterior_df, "df"),
            SummaryRow("posterior location (estimate)", self.location, "number"),
            SummaryRow(f"{level_text(1 - alpha)} credible interval", (low, high), "value"),
            SummaryRow("posterior scale", self.scale, "number"),
            SummaryRow("location / scale", self.statistic, "number"),
            SummaryRow("correlation ρ = n2/n", self.correlation, "number"),
            SummaryRow("rope (practical equivalence)", f"±{self.rope:g}", "text"),
            SummaryRow(f"P({a} better: {a_better})", self.prob_a_better, "probability"),
            SummaryRow("P(equivalent: |δ| ≤ rope)", self.prob_equivalent, "probability"),
            SummaryRow(f"P({b} better: {b_better})", self.prob_b_better, "probability"),
            SummaryRow("splits J", self.n_splits, "value"),
        ]
        return [r for r in rows if r.value is not None]

    def summary(self, alpha: float = 0.05) -> Summary:
        """Posterior probabilities (not p-values) in text, Markdown, HTML and LaTeX views."""
        return dataclasses.replace(super().summary(alpha), interpretation=self.decision(1 - alpha))

    def to_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """One tidy row: the shared columns plus the three posterior probabilities."""
        frame = super().to_frame(alpha)
        frame["prob_a_better"] = self.prob_a_better
        frame["prob_equivalent"] = self.prob_equivalent
        frame["prob_b_better"] = self.prob_b_better
        frame["rope"] = self.rope
        frame["location"] = self.location
        frame["scale"] = self.scale
        return frame


# ================================================================ layer 2: the array-level function
def _check_rope(rope: float) -> float:
    requirement = "a non-negative half-width in the metric's units (e.g. 0.01)"
    w = real_option(rope, "rope", requirement, finite=False)
    if not (math.isfinite(w) and w >= 0):
        raise CVReportError(
            f"rope must be a non-negative half-width in the metric's units (e.g. 0.01), got {rope!r}"
        )
    return w


def _degenerate_message(code: int, location: float) -> tuple[str, ...]:
    if code == ZERO_OVER_ZERO:
        return (
            "Every split difference is 0: the models never differ, the estimated variance is 0 "
            "and the posterior collapses to a point mass at 0 (P(equivalent) = 1, statistic 0, "
            "p = 1). The test carries no information about variability.",
        )
    if code == NONZERO_OVER_ZERO:
        return (
            f"Every split difference equals {location:.6g}: the estimated variance is 0 and the "
            "posterior collapses to a point mass there, so the probabilities are 0 or 1 "
            "(statistic ±inf). The test carries no information about variability; do not read "
            "the certainty as evidence.",
        )
    return ()


def _bayesian(
    differences: ArrayLike,
    test_train_ratio: float | None = None,
    rope: float = 0.0,
    alternative: str = "two-sided",
) -> BayesianCorrelatedTTestResult:
    w = _check_rope(rope)
    p = as_array(differences, "differences")
    if p.ndim not in (1, 2):
        raise DataError(
            "bayesian_correlated_ttest takes split differences as a 1-D array (J,) or an (r, k) "
            f"array of repetitions × folds, got shape {p.shape}"
        )
    if test_train_ratio is None:
        k = p.shape[-1]
        if k < 2:
            raise DesignError(
                "one fold per repetition: pass test_train_ratio= (validation / training size) "
                "for repeated hold-out splits"
            )
        ratio = 1.0 / (k - 1)
    else:
        ratio = check_ratio(test_train_ratio)
    flat = p.ravel()
    if flat.size < 2:
        raise DesignError(f"bayesian_correlated_ttest needs at least 2 splits, got {flat.size}")
    kernel = bayesian_correlated_ttest_kernel(flat, ratio, w, alternative)
    location = float(kernel.location)
    return BayesianCorrelatedTTestResult(
        **kernel_fields(BAYESIAN_CORRELATED_T, kernel, alternative),
        df=kernel.df,
        distribution="t (posterior)",
        estimate=location,
        nobs=flat.size,
        warnings=_degenerate_message(int(kernel.degenerate), location),
        prob_a_better=float(kernel.prob_a_better),
        prob_equivalent=float(kernel.prob_equivalent),
        prob_b_better=float(kernel.prob_b_better),
        rope=w,
        posterior_df=kernel.df,
        location=location,
        scale=float(kernel.scale),
        test_train_ratio=ratio,
        correlation=ratio / (1.0 + ratio),
        n_splits=flat.size,
    )


@fill_doc
def bayesian_correlated_ttest_array(
    differences: ArrayLike,
    test_train_ratio: float | None = None,
    *,
    rope: float = 0.0,
    alternative: str = "two-sided",
) -> BayesianCorrelatedTTestResult:
    """Bayesian correlated t test on split differences A − B.

    Parameters
    ----------
    differences : array_like, shape (J,) or (r, k)
        Split differences (mean loss A − mean loss B). A 2-D array holds r
        repetitions of k-fold CV; a 1-D array without ``test_train_ratio`` is read
        as one k-fold CV with k = J.
    test_train_ratio : float, optional
        ``n2/n1`` = ρ/(1 − ρ); default ``1/(k − 1)`` (ρ = 1/k). Required for
        repeated hold-out splits.
    rope : float
        Half-width of the region of practical equivalence, in the units of the differences.
    alternative : {"two-sided", "less", "greater"}
        Only for the ``pvalue`` field (posterior probability that H1 is false).

    Returns
    -------
    BayesianCorrelatedTTestResult
        With ``prob_a_better``, ``prob_equivalent``, ``prob_b_better``,
        ``posterior_df``, ``location``, ``scale`` and ``credible_interval()``.

    {raises_array}

    References
    ----------
    Corani & Benavoli (2015), Machine Learning 100:285–304; Benavoli et al. (2017), JMLR 18(77).

    Examples
    --------
    >>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
    >>> res = bayesian_correlated_ttest_array(d, rope=0.01)
    >>> res.posterior_df, round(res.location, 6), round(res.scale**2, 10)
    (9.0, 0.01, 0.0003666667)
    >>> [round(x, 6) for x in res.probabilities]
    [0.161755, 0.338245, 0.5]
    """
    return BAYESIAN_CORRELATED_T.run_arrays(
        differences, test_train_ratio=test_train_ratio, rope=rope, alternative=alternative
    )


# ================================================================ layer 3: the table-level function
@fill_doc
def bayesian_correlated_ttest(
    table: ResultsTable | str,
    a: object = None,
    b: object = None,
    *,
    rope: float = 0.0,
    test_train_ratio: float | None = None,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> BayesianCorrelatedTTestResult:
    """Bayesian correlated t test: P(A better), P(equivalent), P(B better) from CV splits.

    The posterior of the mean difference δ = A − B of the metric is Student t
    with ν = J − 1, location ``mean(p)`` and scale² ``(1/J + n2/n1) · s²``
    (ρ = n2/n, 1/k for k-fold CV). "A better" means δ < −rope for a loss and
    δ > rope for a score.

    {parameters_pair}
    rope : float
        Half-width of the region of practical equivalence, in the metric's units
        (e.g. 0.01 for one point of error rate or accuracy).
    test_train_ratio : float, optional
        ``n2/n1``; by default the summed validation sizes over the summed training
        sizes of the table (``1/(k − 1)`` for equal k-fold CV), or the ratio given
        to ``from_fold_scores``.
    alternative : {"two-sided", "less", "greater"}
        Only for the ``pvalue`` field (posterior probability that H1 is false).
    {data}

    {returns}

    Raises
    ------
    DesignError
        For a single hold-out split (nothing to estimate a variance from). Accepted:
        repeated hold-out, K-fold, m×2 and repeated K-fold CV.

    References
    ----------
    Corani & Benavoli (2015), Machine Learning 100:285–304; Benavoli et al. (2017), JMLR 18(77).

    {examples_fold_scores}
    >>> res = bayesian_correlated_ttest(t, rope=0.01)
    >>> [round(x, 6) for x in res.probabilities]
    [0.161755, 0.338245, 0.5]
    """
    return BAYESIAN_CORRELATED_T.run(
        table,
        a,
        b,
        alternative=alternative,
        data=data,
        rope=rope,
        test_train_ratio=test_train_ratio,
    )


BAYESIAN_CORRELATED_T = TestSpec(
    build=_bayesian,
    prepare=prepare_splits,
    label="Bayesian correlated t test",
    reference=REFERENCE,
    designs=("kfold", "repeated_kfold", "mx2", "repeated_holdout"),
    requirement="at least 2 splits: repeated hold-out, K-fold, m×2 or repeated K-fold CV",
    function=bayesian_correlated_ttest,
    result=BayesianCorrelatedTTestResult,
    statistic="posterior of δ: location mean(p), scale² (1/J + n2/n1) s²",
    distribution="t(J − 1) posterior",
    array_function=bayesian_correlated_ttest_array,
    kernel=bayesian_correlated_ttest_kernel,
    inputs=flat_split_differences,
    bayesian=True,
    takes_rope=True,
    array_design=split_design,
)
