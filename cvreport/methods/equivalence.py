"""Equivalence and non-inferiority against a margin, for the tests that estimate A − B.

"The new model is not worse than the old by more than 0.005 accuracy" is a claim
that a non-significant difference does not make. With a ``margin`` m > 0 in the
metric's units, the tests of cvreport that give an estimate of D = metric(A) −
metric(B) with a standard error (or a bootstrap distribution) test

* ``alternative="equivalent"``: H0: D ≤ −m or D ≥ m against H1: −m < D < m, by two
  one-sided tests (TOST; Schuirmann 1987)::

      t_lower = (D̂ + m) / SE,  p_lower = P(T ≥ t_lower)     (H0: D ≤ −m)
      t_upper = (D̂ − m) / SE,  p_upper = P(T ≤ t_upper)     (H0: D ≥ m)
      p = max(p_lower, p_upper)

  with T the test's reference distribution (t with its df, or N(0, 1));
* ``alternative="non-inferior"``: H1: A is not worse than B by m or more, in the
  metric's direction: D > −m for a score (``p = p_lower``), D < m for a loss
  (``p = p_upper``).

The test at level α rejects exactly when the two-sided ``1 − 2α`` interval of D
lies within (−m, m) for equivalence, or on the better side of the margin for
non-inferiority; :meth:`~cvreport.results.TestResult.conf_int` of such a result
is that interval.

The standard error is the test's own: the corrected variance
``(1/J + n2/n1) σ̂²`` of Nadeau & Bengio (2003) and Bouckaert & Frank (2004), the
CV variance of Bayle et al. (2020), DeLong et al.'s (1988) variance of the AUC
difference. For the paired bootstrap the interval is the bootstrap's own
(percentile or BCa) at ``1 − 2α``, and each one-sided p-value is the smallest α
at which that interval's end clears the margin (see
:func:`bootstrap_with_margin`; the functions that run the bootstrap against a
margin are in :mod:`cvreport.methods.bootstrap_margin`).

References
----------
Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and
the power approach for assessing the equivalence of average bioavailability.
Journal of Pharmacokinetics and Biopharmaceutics 15(6):657–680.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from scipy import special

from cvreport.errors import CVReportError
from cvreport.methods._common import (
    NO_DEGREES_OF_FREEDOM,
    NONZERO_OVER_ZERO,
    ZERO_OVER_ZERO,
    apply_degenerate_pvalue,
    emit_warnings,
    normal_pvalue,
    safe_ratio,
    t_pvalue,
)
from cvreport.option_values import real_option
from cvreport.results import ALTERNATIVES, MARGIN_ALTERNATIVES, TestResult

__all__ = [
    "NOTE_NON_INFERIORITY",
    "NOTE_TOST",
    "REFERENCE_SCHUIRMANN",
    "base_alternative",
    "bootstrap_with_margin",
    "check_margin",
    "margin_or_base",
    "with_margin",
]

R = TypeVar("R", bound=TestResult)

REFERENCE_SCHUIRMANN = (
    "Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the "
    "power approach for assessing the equivalence of average bioavailability. Journal of "
    "Pharmacokinetics and Biopharmaceutics 15(6):657–680."
)
NOTE_TOST = (
    "tested against a margin by two one-sided tests (Schuirmann 1987); the interval is the "
    "two-sided 1 − 2α interval that the one-sided tests at level α compare with the margin."
)
NOTE_NON_INFERIORITY = (
    "tested against a margin by one one-sided test, the non-inferiority half of Schuirmann's "
    "(1987) two; the interval is the two-sided 1 − 2α interval whose bound that test at "
    "level α compares with the margin."
)


def check_margin(alternative: str, margin: Any) -> float | None:
    """The margin as a positive float for a margin alternative, None for the others.

    Raises :class:`~cvreport.errors.CVReportError` saying what to do when the
    alternative is unknown, when "equivalent" or "non-inferior" comes without a
    positive finite margin, or when a margin comes with another alternative.

    >>> check_margin("equivalent", 0.005), check_margin("two-sided", None)
    (0.005, None)
    """
    if alternative not in ALTERNATIVES + MARGIN_ALTERNATIVES:
        raise CVReportError(
            f"alternative must be one of {ALTERNATIVES + MARGIN_ALTERNATIVES}, got "
            f"{alternative!r}; 'less' means H1: model A has the lower value of the metric, "
            "'greater' the higher; 'equivalent' and 'non-inferior' test against margin="
        )
    if alternative not in MARGIN_ALTERNATIVES:
        if margin is not None:
            raise CVReportError(
                f"margin= is used only with alternative='equivalent' or 'non-inferior', but "
                f"alternative={alternative!r}; drop margin= or pass one of those alternatives"
            )
        return None
    if margin is None:
        raise CVReportError(
            f"alternative={alternative!r} needs margin=, the largest difference in the "
            "metric's units that does not matter (e.g. margin=0.005 for half a point of "
            "accuracy)"
        )
    # numpy scalars, 0-d arrays, fractions and decimals are numbers, as for every option
    value = real_option(margin, "margin", "a positive number in the metric's units", finite=False)
    if not (math.isfinite(value) and value > 0):
        raise CVReportError(
            f"margin must be a positive finite number in the metric's units, got {margin!r}; "
            "pass the largest difference that does not matter, e.g. margin=0.005"
        )
    return value


def base_alternative(alternative: str) -> str:
    """The alternative the underlying test runs with: "two-sided" under a margin.

    >>> base_alternative("equivalent"), base_alternative("less")
    ('two-sided', 'less')
    """
    return "two-sided" if alternative in MARGIN_ALTERNATIVES else alternative


def _tost_statistics(
    estimate: float, margin: float, standard_error: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(D̂ + m)/SE`` and ``(D̂ − m)/SE`` with docs/methods.md's zero-variance codes."""
    ratio, code = safe_ratio([estimate + margin, estimate - margin], standard_error)
    return ratio[0], ratio[1], code


def _two_one_sided(
    result: R,
    alternative: str,
    margin: float,
    direction: str,
    lower: tuple[float, float],
    upper: tuple[float, float],
    *,
    statistic: bool = True,
) -> R:
    """``result`` with the two one-sided ``(statistic, pvalue)`` against ``margin``.

    Its own p-value (and, with ``statistic``, its statistic) is the binding test's,
    or for "non-inferior" the one in the user's direction.
    """
    if alternative == "non-inferior":
        chosen = lower if direction == "higher" else upper
    else:
        chosen = lower if lower[1] >= upper[1] else upper
    return dataclasses.replace(
        result,
        alternative=alternative,
        margin=margin,
        pvalue=chosen[1],
        statistic_lower=lower[0],
        pvalue_lower=lower[1],
        statistic_upper=upper[0],
        pvalue_upper=upper[1],
        notes=(
            *result.notes,
            NOTE_NON_INFERIORITY if alternative == "non-inferior" else NOTE_TOST,
        ),
        **({"statistic": chosen[0]} if statistic else {}),
    )


def with_margin(
    result: R,
    alternative: str,
    margin: float,
    *,
    estimate: float,
    standard_error: float,
    df: float | None,
    direction: str,
) -> R:
    """``result`` (of the two-sided test) turned into the test against ``margin``.

    Parameters
    ----------
    result : TestResult
        The two-sided result whose estimate and standard error are given.
    alternative : {"equivalent", "non-inferior"}
    margin : float
        Positive, in the units of ``estimate`` (see :func:`check_margin`).
    estimate, standard_error : float
        D̂ and its standard error, in the result's units.
    df : float or None
        Degrees of freedom of the t reference; None for N(0, 1). ``df <= 0`` gives
        p = 1 (no variance estimate).
    direction : {"lower", "higher"}
        Whether lower or higher values are better in the result's units: fixes the
        side of "non-inferior" (for a loss H1: D < m, for a score D > −m).

    Returns
    -------
    TestResult
        ``statistic`` and ``pvalue`` of the deciding one-sided test (the larger p
        of the two for "equivalent"), both one-sided statistics and p-values, the
        margin, and a note.

    Examples
    --------
    >>> from cvreport.results import TTestResult
    >>> two_sided = TTestResult(statistic=0.5, pvalue=0.6, df=9.0, estimate=0.001,
    ...                         center=0.001, standard_error=0.002)
    >>> res = with_margin(two_sided, "equivalent", 0.005, estimate=0.001,
    ...                   standard_error=0.002, df=9.0, direction="lower")
    >>> res.statistic_lower, res.statistic_upper, round(res.pvalue, 6)
    (3.0, -2.0, 0.038276)
    """
    low_stat, high_stat, code = _tost_statistics(estimate, margin, standard_error)
    if df is None:
        p_low = normal_pvalue(low_stat, "greater")
        p_high = normal_pvalue(high_stat, "less")
    elif df <= 0:
        code = np.full(2, NO_DEGREES_OF_FREEDOM, dtype=np.int8)
        low_stat = high_stat = np.float64(0.0)
        p_low = p_high = np.float64(1.0)
    else:
        p_low = t_pvalue(low_stat, df, "greater")
        p_high = t_pvalue(high_stat, df, "less")
    p_low = float(apply_degenerate_pvalue(np.asarray(p_low), code[0]))
    p_high = float(apply_degenerate_pvalue(np.asarray(p_high), code[1]))
    lower = (float(low_stat), p_low)
    upper = (float(high_stat), p_high)
    tested = _two_one_sided(result, alternative, margin, direction, lower, upper)
    if not np.any((code == ZERO_OVER_ZERO) | (code == NONZERO_OVER_ZERO)):
        return tested
    # the base result's warning describes the test of no difference (p = 1 when the
    # estimate is 0); against the margin the same zero standard error decides otherwise
    message = _zero_se_margin_warning(margin, tested.pvalue)
    emit_warnings([message])
    return dataclasses.replace(tested, warnings=(*tested.warnings, message))


def _zero_se_margin_warning(margin: float, pvalue: float) -> str:
    """Words for a test against a margin whose standard error is 0."""
    return (
        f"against the margin ±{margin:g} the standard error is 0 too: each one-sided "
        "statistic (D̂ ± m)/SE is ±inf, so by convention its p-value is 0 when the estimate "
        "lies strictly on the side of the margin its alternative names and 1 otherwise "
        f"(1 also when the estimate lies on the margin itself), which gives p = {pvalue:g}. "
        "The test carries no information about variability here, so do not read this "
        "p-value as evidence (the warning on the test of no difference, p = 1 when the "
        "estimate is 0, does not apply to the test against the margin)."
    )


# -- the paired bootstrap ------------------------------------------------------------------
def _bootstrap_tail(dist: np.ndarray, beyond: int, z0: float, acceleration: float) -> float:
    """Smallest tail α at which the bootstrap interval's end clears the margin.

    ``beyond`` resamples of ``dist`` fall on the wrong side of the margin; the
    percentile end at tail α is the α-quantile, so α = (1 + beyond) / (B + 1)
    (the +1 of Davison & Hinkley 1997 keeps p > 0). For BCa (Efron 1987) the end
    at tail α is the quantile at Φ(z0 + w/(1 − a w)), w = z0 + z_α: solving for
    the quantile level gives w = u / (1 + a u), u = Φ⁻¹(level) − z0, α = Φ(w − z0).
    """
    level = (1 + beyond) / (dist.shape[0] + 1)
    if math.isnan(z0):
        return float(min(1.0, level))
    u = float(special.ndtri(level)) - z0
    denominator = 1.0 + acceleration * u
    if not denominator > 0:  # beyond BCa's range: no finite α reaches the margin
        return 1.0
    tail = float(special.ndtr(u / denominator - z0))
    return min(1.0, tail) if math.isfinite(tail) else 1.0


def bootstrap_with_margin(result: R, alternative: str, margin: float) -> R:
    """A paired bootstrap result tested against ``margin`` through its own interval.

    The one-sided test of H0: D ≤ −m at level α rejects when the lower end of the
    bootstrap's two-sided ``1 − 2α`` interval (percentile or BCa, as the result
    computed it) lies above −m; its p-value is the smallest such α, and the same
    for H0: D ≥ m with the upper end. The one-sided statistics are the observed
    distances D̂ + m and D̂ − m.

    Parameters
    ----------
    result : BootstrapTestResult
        A two-sided paired bootstrap result in the metric's own direction (read
        for its ``bootstrap_distribution``, ``interval_method``, ``bias_correction``
        and ``acceleration``).
    alternative : {"equivalent", "non-inferior"}
    margin : float

    Returns
    -------
    BootstrapTestResult

    Examples
    --------
    >>> import numpy as np
    >>> from cvreport.methods.resampling_results import BootstrapTestResult
    >>> dist = np.linspace(-0.004, 0.006, 99)
    >>> boot = BootstrapTestResult(statistic=0.001, pvalue=0.8, estimate=0.001,
    ...                            interval_method="percentile", bootstrap_distribution=dist)
    >>> res = bootstrap_with_margin(boot, "equivalent", 0.005)
    >>> round(res.pvalue_lower, 2), round(res.pvalue_upper, 2)
    (0.01, 0.11)
    """
    dist = np.asarray(result.bootstrap_distribution, dtype=np.float64)
    observed = float(result.estimate if result.estimate is not None else result.statistic)
    z0 = float(result.bias_correction)
    acceleration = float(result.acceleration)
    if result.interval_method != "BCa":
        z0 = acceleration = math.nan
    below = int(np.count_nonzero(dist <= -margin))
    above = int(np.count_nonzero(dist >= margin))
    p_low = _bootstrap_tail(dist, below, z0, acceleration)
    # the upper end: the same inversion on the mirrored distribution (z0 and a change sign)
    p_high = _bootstrap_tail(-dist, above, -z0, -acceleration)
    lower = (observed + margin, p_low)
    upper = (observed - margin, p_high)
    return _two_one_sided(
        result, alternative, margin, result.direction, lower, upper, statistic=False
    )


def margin_or_base(
    run: Callable[[str], R],
    alternative: str,
    margin: Any,
    *,
    direction: str = "lower",
    standard_error: Callable[[R], float] = lambda result: result.standard_error,
    df: Callable[[R], float | None] = lambda result: None,
) -> R:
    """Run a test with the base alternative and, under a margin, turn it into the TOST result.

    ``run(base_alternative)`` returns the two-sided result on the scale where
    ``direction`` holds (losses by default); ``standard_error`` and ``df`` read them
    from it (by default its ``standard_error`` and a normal reference, ``df`` None).
    """
    value = check_margin(alternative, margin)
    result = run(base_alternative(alternative))
    if value is None:
        return result
    estimate = result.estimate
    if estimate is None:  # pragma: no cover - every test here has an estimate
        raise CVReportError(f"{result.test} gives no estimate to compare with a margin")
    return with_margin(
        result,
        alternative,
        value,
        estimate=float(estimate),
        standard_error=standard_error(result),
        df=df(result),
        direction=direction,
    )
