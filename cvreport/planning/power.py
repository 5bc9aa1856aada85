"""The power of each recommended test to detect a difference, from the variance components.

Every function takes the true difference ``effect`` (in the metric's units,
two-sided: its sign does not matter), the significance level and the design,
and returns the probability that the test rejects H0: no difference.

- :func:`corrected_t_power` — the corrected resampled t (Nadeau & Bengio 2003)
  and the corrected repeated K-fold t (Bouckaert & Frank 2004): a noncentral t;
- :func:`ftest_5x2_power` — Alpaydın's combined 5×2cv F (1999) and the calibrated
  5×2cv F (Wang, Li & Li 2017): the distribution of the statistic integrated
  numerically;
- :func:`mcnemar_power` — McNemar's test on a hold-out set of 0/1 losses, exact
  under the multinomial model of the records (Connor 1987 gives its normal
  approximation).

Each assumes the per-fold differences are normal with the covariance of
:class:`~cvreport.planning.components.VarianceComponents`; McNemar assumes
independent records.

Examples
--------
>>> from cvreport.planning.components import VarianceComponents
>>> vc = VarianceComponents(within=0.0009, between=0.0, common=0.0001, K=10)
>>> round(corrected_t_power(0.03, vc, m=10), 4)
0.8121
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from cvreport.errors import CVReportError, DataError
from cvreport.option_values import check_alpha, real_option
from cvreport.planning.components import VarianceComponents

__all__ = [
    "REFERENCE_CONNOR",
    "SIZE_TOLERANCE",
    "check_effect",
    "check_power",
    "corrected_t_power",
    "ftest_5x2_power",
    "holds_level",
    "mcnemar_power",
]

REFERENCE_CONNOR = (
    "Connor, R. J. (1987). Sample size for testing differences in proportions for the "
    "paired-sample design. Biometrics 43(1):207–211."
)

_NODES = 256  # quadrature nodes per dimension of ftest_5x2_power


#: A type I error above this multiple of α disqualifies a test from :attr:`PlanResult.best`.
SIZE_TOLERANCE = 1.5


def holds_level(type_i_error: float, alpha: float) -> bool:
    """Whether a test's type I error under the model stays within ``SIZE_TOLERANCE`` × α.

    A design on which the test rejects a true null more often than that is never
    recommended: its power is bought with false rejections.

    Examples
    --------
    >>> holds_level(0.071, 0.05), holds_level(0.146, 0.05)
    (True, False)
    """
    return not type_i_error > SIZE_TOLERANCE * alpha


def check_power(power: float) -> float:
    """``power`` itself, or a :class:`CVReportError` unless 0 < power < 1."""
    requirement = "a number strictly between 0 and 1 (e.g. 0.8)"
    if not 0 < real_option(power, "power", requirement, finite=False) < 1:
        raise CVReportError(f"power must lie strictly between 0 and 1 (e.g. 0.8), got {power!r}")
    return float(power)


def check_effect(effect: float) -> float:
    """``effect`` itself, or a :class:`CVReportError` unless it is a finite number > 0."""
    requirement = "a positive difference in the metric's units (e.g. 0.01)"
    if not (real_option(effect, "effect", requirement, finite=False) > 0 and math.isfinite(effect)):
        raise CVReportError(
            f"effect must be a positive difference in the metric's units (e.g. 0.01 for one "
            f"point of accuracy), got {effect!r}"
        )
    return float(effect)


def corrected_t_power(
    effect: float,
    components: VarianceComponents,
    m: int,
    *,
    alpha: float = 0.05,
    test_train_ratio: float | None = None,
) -> float:
    """Power of the corrected resampled / repeated K-fold t test on ``m × K`` splits.

    The test (Nadeau & Bengio 2003; Bouckaert & Frank 2004) is
    ``T = mean(d) / sqrt((1/J + r) s²)`` on ``t(J − 1)``, ``J = m K`` split
    differences, ``r = n2/n1``. With the differences normal with the components'
    covariance, ``mean(d) ~ N(Δ, V)``, ``V = common + between/m + within/(m K)``,
    independent of ``(J − 1) s² ~ λ1 χ²(m(K − 1)) + λ2 χ²(m − 1)``
    (``λ1 = within``, ``λ2 = within + K between``). Taking ``s²`` as
    ``E(s²) χ²(ν)/ν`` with Satterthwaite's ν::

        T ≈ k · t'(ν, λ),   λ = Δ / √V,   k = √(V / ((1/J + r) E s²))
        power = P(t'(ν, λ) > q/k) + P(t'(ν, λ) < −q/k),   q = t quantile 1 − α/2 at J − 1 df

    Under Nadeau & Bengio's equicorrelated model with ``ρ = n2/(n1 + n2)``
    (``between = 0``, ``common = within · r``) ``k = 1`` and ``ν = J − 1``, and the
    power is exactly that of the noncentral t: ``V = within (1/J + ρ/(1 − ρ))``.

    Parameters
    ----------
    effect : float
        The true difference Δ (> 0; two-sided, so its sign does not matter).
    components : VarianceComponents
        At the design's ``K`` (``K = 1``: J hold-out splits, ``m = J``).
    m : int
        Replications (``J`` splits for ``K = 1``).
    alpha : float
        Two-sided significance level.
    test_train_ratio : float, optional
        The test's ``n2/n1``; default the components'.

    Returns
    -------
    float

    References
    ----------
    Nadeau & Bengio (2003), Machine Learning 52(3):239–281; Bouckaert & Frank (2004),
    PAKDD, LNCS 3056:3–12.

    Examples
    --------
    With no correlation (``common = 0``, ``r = 0``) it is the paired t test's power,
    as statsmodels' ``TTestPower`` computes it:

    >>> from statsmodels.stats.power import TTestPower
    >>> vc = VarianceComponents(within=0.0, between=0.04, common=0.0, K=1,
    ...                         test_train_ratio=0.0)
    >>> round(corrected_t_power(0.1, vc, m=20, test_train_ratio=0.0), 6)
    0.564504
    >>> round(float(TTestPower().power(0.1 / 0.2, nobs=20, alpha=0.05)), 6)
    0.564504
    """
    effect = check_effect(effect)
    alpha = check_alpha(alpha)
    K = components.K
    J = m * K
    if m < 1 or J < 2:
        raise CVReportError(f"a corrected t test needs at least 2 splits, got m = {m}, K = {K}")
    ratio = components.test_train_ratio if test_train_ratio is None else test_train_ratio
    lam1, lam2 = components.eigenvalues(m)
    a1, a2 = m * (K - 1), m - 1
    total = a1 * lam1 + a2 * lam2
    squares = a1 * lam1**2 + a2 * lam2**2
    mean_s2 = total / (J - 1)
    nu = total**2 / squares if squares > 0 else math.inf
    variance = components.variance_of_mean(m, K)
    k = math.sqrt(variance / ((1.0 / J + ratio) * mean_s2))
    q = float(special.stdtrit(J - 1, 1.0 - alpha / 2.0))
    noncentrality = effect / math.sqrt(variance)
    if math.isinf(nu):
        upper = stats.norm.sf(q / k - noncentrality)
        lower = stats.norm.cdf(-q / k - noncentrality)
    else:
        upper = stats.nct.sf(q / k, nu, noncentrality)
        lower = stats.nct.cdf(-q / k, nu, noncentrality)
    return float(min(max(upper + lower, 0.0), 1.0))


def ftest_5x2_power(
    effect: float,
    components: VarianceComponents,
    m: int,
    *,
    alpha: float = 0.05,
    df1: float | None = None,
) -> float:
    """Power of the combined (Alpaydın) or calibrated (Wang, Li & Li) F test on m×2 CV.

    Both statistics are ``f = Σ_i Σ_j p_ij² / (2 Σ_i s_i²)``, ``s_i² = (p_i1 − p_i2)²/2``,
    on ``F(df1, m)``: ``df1 = 2m`` for Alpaydın's test, 7 (the paper's calibrated
    value for m = 5) for the calibrated one. Writing ``p̄_i`` for a replication's
    mean, ``f = ½ + Σ_i p̄_i² / Σ_i s_i²``, and under the components' normal model

    - ``Σ s_i² ~ within · χ²(m)``,
    - ``Σ (p̄_i − p̄)² ~ (within/2 + between) · χ²(m − 1)``,
    - ``p̄ ~ N(Δ, V)``, ``V = common + (within/2 + between)/m``,

    all independent. So the power ``P(f > F quantile)`` is
    ``P(m p̄² > (F_q − ½) within X₃ − (within/2 + between) X₂)``, a normal tail
    integrated numerically over the two χ² variables (256 nodes each, on their
    quantiles; error well under 0.001).

    Parameters
    ----------
    effect : float
        The true difference Δ (> 0).
    components : VarianceComponents
        At ``K = 2``.
    m : int
        Replications of 2-fold CV.
    alpha : float
        Significance level (the F tests use the upper tail).
    df1 : float, optional
        Numerator degrees of freedom; default ``2m`` (Alpaydın).

    Returns
    -------
    float

    References
    ----------
    Alpaydın (1999), Neural Computation 11(8):1885–1892; Wang, Li & Li (2017), Neural
    Computation 29(2); Nadeau & Bengio (2003) for the covariance model.

    Examples
    --------
    >>> vc = VarianceComponents(within=0.0004, between=0.0, common=0.0004, K=2)
    >>> round(ftest_5x2_power(0.04, vc, m=5), 3)
    0.556
    """
    effect = check_effect(effect)
    alpha = check_alpha(alpha)
    if components.K != 2:
        raise CVReportError(f"the 5×2cv F tests need components at K = 2, got K = {components.K}")
    if m < 1:
        raise CVReportError(f"m must be at least 1 replication, got {m}")
    df1 = 2.0 * m if df1 is None else float(df1)
    f_quantile = float(special.fdtri(df1, float(m), 1.0 - alpha))
    within = components.within
    spread = within / 2.0 + components.between
    variance = components.variance_of_mean(m, 2)
    u = (np.arange(_NODES) + 0.5) / _NODES
    x3 = stats.chi2.ppf(u, m)[:, None]
    x2 = stats.chi2.ppf(u, m - 1)[None, :] if m >= 2 else np.zeros((1, 1))
    threshold = (f_quantile - 0.5) * within * x3 - spread * x2
    root = np.sqrt(np.maximum(threshold, 0.0) / m)
    sd = math.sqrt(variance)
    tails = stats.norm.sf((root - effect) / sd) + stats.norm.cdf((-root - effect) / sd)
    return float(min(max(tails.mean(), 0.0), 1.0))


def mcnemar_power(effect: float, discordance: float, n: int, *, alpha: float = 0.05) -> float:
    """Power of McNemar's test (with continuity correction) on a hold-out set of ``n`` records.

    Records are independent; each is discordant (exactly one model errs) with
    probability ψ = ``discordance``, and a discordant record is one where A errs
    with probability ``(ψ + Δ)/(2ψ)``, Δ the difference in error rate. The number
    of discordant records is ``N ~ Bin(n, ψ)`` and A's share ``b | N ~ Bin(N, π)``;
    the test rejects when ``(|b − c| − 1)² / N`` exceeds the χ²(1) quantile, i.e.
    when ``|2b − N| > 1 + √(N χ²)``. The power sums those binomial tails over
    ``N`` (exact under the model; Connor 1987 gives the normal approximation
    ``Φ((√n Δ − z √ψ) / √(ψ − Δ²))``).

    Parameters
    ----------
    effect : float
        Δ, the difference in error rate (or accuracy) between A and B (> 0).
    discordance : float
        ψ, the share of records on which exactly one model errs (ψ ≥ Δ).
    n : int
        Records in the hold-out (validation) set.
    alpha : float
        Significance level.

    Returns
    -------
    float

    References
    ----------
    McNemar (1947), Psychometrika 12(2):153–157; Dietterich (1998); Connor (1987),
    Biometrics 43(1):207–211.

    Examples
    --------
    >>> round(mcnemar_power(0.02, 0.1, 2000), 4)
    0.7904
    """
    effect = check_effect(effect)
    alpha = check_alpha(alpha)
    if not 0 < discordance <= 1:
        raise DataError(f"the discordance rate must lie in (0, 1], got {discordance!r}")
    if effect > discordance:
        raise DataError(
            f"an effect of {effect:g} is larger than the share of records on which the models "
            f"disagree ({discordance:.4g}); a difference in error rate cannot exceed it"
        )
    if n < 1:
        raise CVReportError(f"the hold-out set needs at least 1 record, got n = {n}")
    crit = float(stats.chi2.isf(alpha, 1))
    low = int(stats.binom.ppf(1e-12, n, discordance))
    high = int(stats.binom.isf(1e-12, n, discordance))
    counts = np.arange(max(low, 1), min(max(high, 1), n) + 1)
    weights = stats.binom.pmf(counts, n, discordance)
    share = (discordance + effect) / (2.0 * discordance)
    reach = 1.0 + np.sqrt(counts * crit)
    upper = np.floor((counts + reach) / 2.0)  # reject when b > (N + reach)/2
    lower = np.ceil((counts - reach) / 2.0)  # reject when b < (N − reach)/2
    tails = stats.binom.sf(upper, counts, share) + stats.binom.cdf(lower - 1, counts, share)
    return float(min(max((weights * tails).sum(), 0.0), 1.0))
