r"""Effect sizes of pairs of models across data sets: Cohen's d, Hedges' g and Cliff's δ.

A p-value across data sets says whether two models differ; an effect size says
by how much, on a scale that does not depend on the metric's units. For each
pair (A, B), with A's and B's scores on the N data sets as two samples (the
convention of autorank, Herbold 2020, so the values agree with it):

* **Cohen's d** = (mean(A) − mean(B)) / s_pooled, with
  s_pooled² = ((N_A − 1) s_A² + (N_B − 1) s_B²) / (N_A + N_B − 2)
  (Cohen 1988, §2.2);
* **Hedges' g** = J · d with J = 1 − 3 / (4 (N_A + N_B) − 9), the small-sample
  correction of Hedges (1981); its interval is g ± z_{1−α/2} · SE with
  SE² = (N_A + N_B) / (N_A N_B) + g² / (2 (N_A + N_B)) (Hedges and Olkin 1985,
  eq. 5.15);
* **Cliff's δ** = P(A > B) − P(A < B) over all pairs of one score of A and one
  of B (Cliff 1993), with Cliff's asymmetric interval
  (δ − δ³ ± t s_δ √((1 − δ²)² + t² s_δ²)) / (1 − δ² + t² s_δ²), s_δ² Cliff's
  (1993) unbiased variance estimate (bounded below by (1 − δ²)/(N_A N_B − 1))
  and t the Student quantile with N_A + N_B − 2 degrees of freedom, as R's
  effsize computes it by default. Scores are compared exactly, as R's effsize and
  scipy.stats' rank tests (``rankdata``, ``mannwhitneyu``) compare them: 1.0
  against 0.9999999999999999 is a win, not a tie; round the scores first to treat
  near-equal values as ties. (The ranks of :mod:`cvreport.multi.ranks` round to
  ``TIE_DECIMALS`` decimals before ranking.)

* **the paired d_z** = mean(A − B) / SD(A − B) of the per-data-set differences
  (Cohen 1988, §2.3; Lakens 2013 calls it d_z), with the exact interval under
  normality from inverting the noncentral t of t = d_z √N on N − 1 degrees of
  freedom (Steiger and Fouladi 1997; Cumming and Finch 2001). Unlike g and δ it
  keeps the pairing of the two models' scores by data set, as the Wilcoxon
  signed-rank test does: g and δ treat the two columns as independent samples,
  so the spread of difficulty between data sets hides a difference that every
  data set shows (a model better on 10 of 10 data sets can get a "small" g whose
  interval contains 0).

All are signed in the metric's units as given: positive when A's scores are
higher. Whether that is better follows the metric's direction, and the words
of the magnitude follow Cohen (1988) for d and g (negligible < 0.2 ≤ small
< 0.5 ≤ medium < 0.8 ≤ large) and Romano et al. (2006) for δ (0.147, 0.33,
0.474), as autorank uses them.

References
----------
Cliff, N. (1993). Dominance statistics: ordinal analyses to answer ordinal
questions. Psychological Bulletin 114(3):494–509.
Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.
Cumming, G., Finch, S. (2001). A primer on the understanding, use, and calculation
of confidence intervals that are based on central and noncentral distributions.
Educational and Psychological Measurement 61(4):532–574.
Hedges, L. V. (1981). Distribution theory for Glass's estimator of effect size
and related estimators. Journal of Educational Statistics 6(2):107–128.
Hedges, L. V., Olkin, I. (1985). Statistical Methods for Meta-Analysis.
Herbold, S. (2020). Autorank: a Python package for automated ranking of
classifiers. Journal of Open Source Software 5(48):2173.
Lakens, D. (2013). Calculating and reporting effect sizes to facilitate cumulative
science: a practical primer for t-tests and ANOVAs. Frontiers in Psychology 4:863.
Romano, J., Kromrey, J. D., Coraggio, J., Skowronek, J. (2006). Appropriate
statistics for ordinal level data. Annual meeting of the Florida Association of
Institutional Research.
Steiger, J. H., Fouladi, R. T. (1997). Noncentrality interval estimation and the
evaluation of statistical models. In What If There Were No Significance Tests?,
221–257. Lawrence Erlbaum.

Examples
--------
>>> import pandas as pd
>>> scores = pd.DataFrame({"new": [.91, .85, .78, .95, .70, .88],
...                        "svm": [.89, .80, .75, .94, .66, .86]})
>>> sizes = pairwise_effect_sizes(scores, [("new", "svm")])
>>> row = sizes.iloc[0]
>>> [round(float(row[c]), 4) for c in ("cohen_d", "hedges_g", "cliff_delta")], row.g_magnitude
([0.293, 0.2705, 0.1667], 'small')
>>> round(float(row.d_z), 4), row.dz_magnitude  # new beats svm on all 6 data sets
(1.9249, 'large')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from cvreport.errors import CVReportError
from cvreport.methods._common import ZERO_SPREAD_RTOL

__all__ = [
    "cliffs_delta",
    "cohens_d",
    "hedges_g",
    "magnitude",
    "paired_d",
    "pairwise_effect_sizes",
]

_COHEN_LEVELS = (0.2, 0.5, 0.8)
_CLIFF_LEVELS = (0.147, 0.33, 0.474)
_WORDS = ("negligible", "small", "medium", "large")
_DOMINANCE_CELLS = 4_000_000  # the largest dominance array held at once (32 MB)


def magnitude(value: float, measure: str) -> str:
    """The words for an effect size: negligible, small, medium or large.

    Parameters
    ----------
    value : float
        The effect size (its sign is ignored).
    measure : {"cohen_d", "hedges_g", "cliff_delta"}
        Which scale: Cohen's (1988) for d and g, Romano et al.'s (2006) for δ.

    Returns
    -------
    str

    Examples
    --------
    >>> magnitude(-0.55, "hedges_g"), magnitude(0.2, "cliff_delta")
    ('medium', 'small')
    """
    if measure not in ("cohen_d", "hedges_g", "cliff_delta"):
        raise CVReportError(f"measure={measure!r} is not 'cohen_d', 'hedges_g' or 'cliff_delta'")
    if not math.isfinite(value):
        return "undefined"
    levels = _CLIFF_LEVELS if measure == "cliff_delta" else _COHEN_LEVELS
    return _WORDS[int(np.searchsorted(levels, abs(value), side="right"))]


def _samples(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=float).ravel()
    y = np.asarray(b, dtype=float).ravel()
    if x.size < 2 or y.size < 2:
        raise CVReportError(
            "an effect size needs at least two scores of each model (one per data set)"
        )
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise CVReportError("the scores hold NaN or infinite values; drop or fix those data sets")
    return x, y


def _rounding(values: np.ndarray) -> float:
    """The size below which a mean difference or a spread of ``values`` is rounding error.

    Means of equal scores such as 0.1 + 0.2 and 0.3 differ by 1e-17 and their pooled
    standard deviation is 1e-17: without this bound Cohen's d of two equal samples is
    1.4, "large", where the ranks see a tie.
    """
    return ZERO_SPREAD_RTOL * float(np.abs(values).max())


def cohens_d(a: Any, b: Any) -> float:
    """Cohen's d of two samples with the pooled standard deviation (Cohen 1988).

    Parameters
    ----------
    a, b : array-like
        Scores of A and of B (one per data set).

    Returns
    -------
    float
        (mean(a) − mean(b)) / s_pooled; NaN when both samples are constant
        and equal, ±inf when they are constant and differ.

    Examples
    --------
    >>> round(cohens_d([1.0, 2.0, 3.0], [2.0, 3.0, 4.0]), 6)
    -1.0
    """
    x, y = _samples(a, b)
    pooled = math.sqrt(
        ((x.size - 1) * x.var(ddof=1) + (y.size - 1) * y.var(ddof=1)) / (x.size + y.size - 2)
    )
    difference = float(x.mean() - y.mean())
    noise = _rounding(np.concatenate([x, y]))
    difference = 0.0 if abs(difference) <= noise else difference
    if pooled <= noise:
        return math.nan if difference == 0 else math.copysign(math.inf, difference)
    return difference / pooled


def hedges_g(a: Any, b: Any, *, alpha: float = 0.05) -> tuple[float, float, float]:
    """Hedges' g with its normal interval (Hedges 1981; Hedges and Olkin 1985).

    Parameters
    ----------
    a, b : array-like
        Scores of A and of B (one per data set).
    alpha : float
        1 − the interval's level.

    Returns
    -------
    tuple of float
        g, and the interval's lower and upper end.

    Examples
    --------
    >>> [round(v, 4) for v in hedges_g([1.0, 2.0, 3.0], [2.0, 3.0, 4.0])]
    [-0.8, -2.4631, 0.8631]
    """
    x, y = _samples(a, b)
    n = x.size + y.size
    g = (1 - 3 / (4 * n - 9)) * cohens_d(x, y)
    if not math.isfinite(g):
        return g, math.nan, math.nan
    se = math.sqrt(n / (x.size * y.size) + g * g / (2 * n))
    z = float(stats.norm.ppf(1 - alpha / 2))
    return g, g - z * se, g + z * se


def _dominance(x: np.ndarray, y_sorted: np.ndarray) -> tuple[np.ndarray, int]:
    """Each x's mean sign(x − y) over y, and the number of ties, from a sorted y."""
    below = np.searchsorted(y_sorted, x, side="left")
    not_above = np.searchsorted(y_sorted, x, side="right")
    above = y_sorted.size - not_above
    return (below - above) / y_sorted.size, int((not_above - below).sum())


def _cliff(
    x: np.ndarray, y: np.ndarray, x_sorted: np.ndarray, y_sorted: np.ndarray, t: float
) -> tuple[float, float, float]:
    n1, n2 = x.size, y.size
    rows, ties = _dominance(x, y_sorted)  # d_i. of Cliff (1993)
    columns = -_dominance(y, x_sorted)[0]  # d_.j
    delta = float(rows.mean())
    # Σ_ij (d_ij − δ)² with d_ij² = 1 except for ties, without the n1 × n2 matrix
    spread = (n1 * n2 - ties) - n1 * n2 * delta * delta
    variance = (
        n2 * n2 * ((rows - delta) ** 2).sum() + n1 * n1 * ((columns - delta) ** 2).sum() - spread
    ) / (n1 * n2 * (n1 - 1) * (n2 - 1))
    low, high = _cliff_interval(np.array([delta]), np.array([variance]), n1, n2, t)
    return delta, float(low[0]), float(high[0])


def _cliff_interval(
    delta: np.ndarray, variance: np.ndarray, n1: int, n2: int, t: float
) -> tuple[np.ndarray, np.ndarray]:
    """Cliff's (1993) asymmetric interval of each δ; NaN where |δ| = 1 leaves it undefined."""
    # the estimate can fall below zero in small samples; Cliff bounds it by the smallest
    # variance a δ of this size can have
    variance = np.maximum(variance, (1 - delta * delta) / (n1 * n2 - 1))
    root = t * np.sqrt(variance) * np.sqrt((1 - delta * delta) ** 2 + t * t * variance)
    denominator = 1 - delta * delta + t * t * variance
    defined = denominator > 0  # complete dominance (|δ| = 1) leaves the interval undefined
    safe = np.where(defined, denominator, 1.0)
    low = np.where(defined, np.maximum(-1.0, (delta - delta**3 - root) / safe), np.nan)
    high = np.where(defined, np.minimum(1.0, (delta - delta**3 + root) / safe), np.nan)
    return low, high


def cliffs_delta(a: Any, b: Any, *, alpha: float = 0.05) -> tuple[float, float, float]:
    """Cliff's δ with Cliff's (1993) asymmetric interval.

    Parameters
    ----------
    a, b : array-like
        Scores of A and of B (one per data set).
    alpha : float
        1 − the interval's level.

    Returns
    -------
    tuple of float
        δ = P(A > B) − P(A < B), and the interval's lower and upper end (NaN
        when one model's scores all lie above the other's, |δ| = 1: Cliff's
        variance estimate is then 0 and the interval undefined).

    Notes
    -----
    Values are compared exactly, as R's effsize and scipy.stats' rank tests
    compare them (δ = 2U/(N_A N_B) − 1 with U of ``scipy.stats.mannwhitneyu``):
    1.0 against 0.9999999999999999 counts as a win, not a tie. Round the scores
    first (``np.round(scores, 12)``) to treat near-equal values as ties.

    Examples
    --------
    >>> [round(v, 4) for v in cliffs_delta([1, 2, 3, 4], [1.5, 2.5, 3.5, 4.5])]
    [-0.25, -0.8328, 0.5957]
    >>> cliffs_delta([1.0, 2.0], [0.9999999999999999, 2.0])[0]  # compared exactly
    0.25
    """
    x, y = _samples(a, b)
    t = float(stats.t.ppf(1 - alpha / 2, x.size + y.size - 2))
    return _cliff(x, y, np.sort(x), np.sort(y), t)


def _noncentrality_bounds(t: np.ndarray, df: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The noncentrality λ at which the observed t is each tail's α/2 quantile (vectorised).

    λ_low solves P(T ≤ t | λ) = 1 − α/2 and λ_high solves P(T ≤ t | λ) = α/2, T
    noncentral t on ``df`` degrees of freedom (Steiger and Fouladi 1997): the cdf
    falls as λ rises, so each root is bracketed and found by bisection.
    """
    spread = 10.0 + 2.0 * np.abs(t)  # |λ − t| stays far below this at any usual level
    bounds = []
    for target in (1 - alpha / 2, alpha / 2):
        low, high = t - spread, t + spread
        for _ in range(64):
            middle = (low + high) / 2
            cdf = stats.nct.cdf(t, df, middle)
            # far in its tails scipy's noncentral t gives NaN where the cdf is 1 or 0
            cdf = np.where(np.isnan(cdf), (middle < t).astype(float), cdf)
            above = cdf > target  # λ still too small
            low, high = np.where(above, middle, low), np.where(above, high, middle)
        bounds.append((low + high) / 2)
    return bounds[0], bounds[1]


def _paired(
    differences: np.ndarray, noise: float, alpha: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d_z and its interval for each column of N per-data-set differences."""
    n = differences.shape[0]
    mean = differences.mean(axis=0)
    sd = differences.std(axis=0, ddof=1)
    mean = np.where(np.abs(mean) <= noise, 0.0, mean)
    sd = np.where(sd <= noise, 0.0, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_z = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.nan)
    d_z = np.where((sd == 0) & (mean != 0), np.copysign(np.inf, mean), d_z)
    finite = np.isfinite(d_z)
    low = np.full(d_z.shape, np.nan)
    high = np.full(d_z.shape, np.nan)
    if finite.any():
        root = math.sqrt(n)
        lam_low, lam_high = _noncentrality_bounds(d_z[finite] * root, n - 1, alpha)
        low[finite], high[finite] = lam_low / root, lam_high / root
    return d_z, low, high


def paired_d(a: Any, b: Any, *, alpha: float = 0.05) -> tuple[float, float, float]:
    """The paired effect size d_z of A − B over data sets, with its exact interval.

    d_z = mean(A − B) / SD(A − B) of the per-data-set differences (Cohen 1988, §2.3;
    Lakens 2013): the effect size of the paired t test, which keeps the pairing by
    data set that :func:`hedges_g` and :func:`cliffs_delta` ignore. Its interval
    inverts the noncentral t of t = d_z √N on N − 1 degrees of freedom (Steiger and
    Fouladi 1997; Cumming and Finch 2001): exact when the differences are normal.

    Parameters
    ----------
    a, b : array-like
        Scores of A and of B, one per data set, in the same order (paired).
    alpha : float
        1 − the interval's level.

    Returns
    -------
    tuple of float
        d_z, and the interval's lower and upper end. d_z is NaN when every difference
        is 0 and ±inf when every difference is the same non-zero value (no spread);
        the interval is then NaN.

    Raises
    ------
    CVReportError
        Fewer than two data sets, unequal lengths, or values that are not finite.

    Examples
    --------
    >>> [round(v, 4) for v in paired_d([0.80, 0.85, 0.90, 0.70], [0.78, 0.81, 0.89, 0.66])]
    [1.8333, 0.1035, 3.5022]
    """
    x, y = _samples(a, b)
    if x.size != y.size:
        raise CVReportError(
            f"a paired effect size needs one score of each model per data set; got {x.size} "
            f"scores of A and {y.size} of B"
        )
    noise = _rounding(np.concatenate([x, y]))
    d_z, low, high = _paired((x - y)[:, None], noise, alpha)
    return float(d_z[0]), float(low[0]), float(high[0])


def pairwise_effect_sizes(
    scores: pd.DataFrame, pairs: Sequence[tuple[Any, Any]], *, alpha: float = 0.05
) -> pd.DataFrame:
    """Cohen's d, Hedges' g and Cliff's δ of each pair over the data sets.

    Parameters
    ----------
    scores : pandas.DataFrame
        Data sets × models, one summary score per cell (in the metric as given).
    pairs : sequence of (A, B)
        The pairs; each effect is A − B.
    alpha : float
        1 − the level of the intervals.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``a``, ``b``, ``cohen_d``, ``hedges_g``, ``g_low``,
        ``g_high``, ``g_magnitude``, ``cliff_delta``, ``delta_low``,
        ``delta_high``, ``delta_magnitude``, and the paired ``d_z``, ``dz_low``,
        ``dz_high``, ``dz_magnitude`` (:func:`paired_d`). Cliff's δ compares the scores exactly
        (see :func:`cliffs_delta`); round them first to treat near-equal values as ties.

    Raises
    ------
    CVReportError
        If a model is not a column, or fewer than two data sets are given.
    """
    names = list(scores.columns)
    for model in {m for pair in pairs for m in pair}:
        if model not in names:
            raise CVReportError(
                f"no scores for model {model!r}; the models are " + ", ".join(map(repr, names))
            )
    values = _samples(scores.to_numpy(dtype=float), scores.to_numpy(dtype=float))[0]
    values = values.reshape(len(scores), len(names))
    n = values.shape[0]
    first = np.array([names.index(a) for a, _ in pairs], dtype=np.intp)
    second = np.array([names.index(b) for _, b in pairs], dtype=np.intp)
    x, y = values[:, first], values[:, second]
    # Cohen's d and Hedges' g of every pair at once (equal sizes: n scores each)
    pooled = np.sqrt((x.var(axis=0, ddof=1) + y.var(axis=0, ddof=1)) / 2)
    difference = x.mean(axis=0) - y.mean(axis=0)
    noise = _rounding(values)
    pooled = np.where(pooled <= noise, 0.0, pooled)
    difference = np.where(np.abs(difference) <= noise, 0.0, difference)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(pooled > 0, difference / np.where(pooled > 0, pooled, 1), np.nan)
    d = np.where((pooled == 0) & (difference != 0), np.copysign(np.inf, difference), d)
    g = (1 - 3 / (8 * n - 9)) * d
    z = float(stats.norm.ppf(1 - alpha / 2))
    se = np.sqrt(2 / n + g * g / (4 * n))
    g_low, g_high = (
        np.where(np.isfinite(g), g - z * se, np.nan),
        np.where(np.isfinite(g), g + z * se, np.nan),
    )
    # Cliff's δ in chunks of pairs, each an n × n × chunk dominance array of bounded size
    t = float(stats.t.ppf(1 - alpha / 2, 2 * n - 2))
    delta = np.empty(len(pairs))
    variance = np.empty(len(pairs))
    chunk = max(1, _DOMINANCE_CELLS // (n * n))
    for start in range(0, len(pairs), chunk):
        part = slice(start, start + chunk)
        dominance = np.sign(x[:, None, part] - y[None, :, part])
        rows, columns = dominance.mean(axis=1), dominance.mean(axis=0)
        centre = rows.mean(axis=0)
        spread = ((dominance - centre) ** 2).sum(axis=(0, 1))
        delta[part] = centre
        variance[part] = (
            n * n * ((rows - centre) ** 2).sum(axis=0)
            + n * n * ((columns - centre) ** 2).sum(axis=0)
            - spread
        ) / (n * n * (n - 1) * (n - 1))
    delta_low, delta_high = _cliff_interval(delta, variance, n, n, t)
    d_z, dz_low, dz_high = _paired(x - y, noise, alpha)
    frame = pd.DataFrame(
        {
            "a": [a for a, _ in pairs],
            "b": [b for _, b in pairs],
            "cohen_d": d,
            "hedges_g": g,
            "g_low": g_low,
            "g_high": g_high,
            "g_magnitude": [magnitude(v, "hedges_g") for v in g],
            "cliff_delta": delta,
            "delta_low": delta_low,
            "delta_high": delta_high,
            "delta_magnitude": [magnitude(v, "cliff_delta") for v in delta],
            "d_z": d_z,
            "dz_low": dz_low,
            "dz_high": dz_high,
            "dz_magnitude": [magnitude(v, "cohen_d") for v in d_z],
        }
    )
    return frame
