"""Reference distributions as values: the name a result prints and whether its statistic is signed.

A kernel states its reference distribution with one of these values instead of
a bare name, so nothing downstream parses a name to learn whether the
statistic carries the sign of the estimate A − B (Student's t and the standard
normal do; χ², F, the binomial count and rank sums do not). A
:class:`Distribution` is a ``str``: it prints, compares and tabulates as the
name it always had. The interval functions of the two signed distributions
live here too: :func:`t_interval` (Student 1908) and :func:`normal_interval`.

Examples
--------
>>> T.signed, CHI2.signed, str(T), T == "t"
(True, False, 't', True)
>>> as_distribution("normal") is NORMAL, as_distribution("Wilcoxon signed-rank").signed
(True, False)
"""

from __future__ import annotations

import math
from typing import Any

from scipy import special

__all__ = [
    "BINOMIAL",
    "BOOTSTRAP",
    "CHI2",
    "NORMAL",
    "PERMUTATION",
    "T_POSTERIOR",
    "WILCOXON",
    "Distribution",
    "F",
    "T",
    "as_distribution",
    "normal_interval",
    "t_interval",
]


class Distribution(str):
    """A reference distribution: its printed name and whether its statistic is signed.

    Parameters
    ----------
    name : str
        What a summary, a table and a report print (``"t"``, ``"chi2"``, ...).
    signed : bool
        Whether the statistic carries the sign of the estimate A − B, so that
        it changes sign when A and B swap or a score is read as a negated loss.

    Examples
    --------
    >>> d = Distribution("t", signed=True)
    >>> d.name, d.signed, f"{d}", repr(d)
    ('t', True, 't', "'t'")
    """

    signed: bool

    def __new__(cls, name: str, *, signed: bool = False) -> Distribution:
        value = super().__new__(cls, name)
        value.signed = bool(signed)
        return value

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (str(self), self.signed))

    @property
    def name(self) -> str:
        """The printed name."""
        return str(self)


def _rebuild(name: str, signed: bool) -> Distribution:
    return Distribution(name, signed=signed)


#: Student's t: the statistic is the estimate over its standard error.
T = Distribution("t", signed=True)
#: The t posterior of the Bayesian correlated t test (Corani & Benavoli 2015).
T_POSTERIOR = Distribution("t (posterior)", signed=True)
#: The standard normal: a z statistic, signed like the estimate.
NORMAL = Distribution("normal", signed=True)
#: χ²: a squared, unsigned statistic.
CHI2 = Distribution("chi2")
#: Fisher's F: a ratio of squares.
F = Distribution("F")
#: The exact binomial count of McNemar's test.
BINOMIAL = Distribution("binomial")
#: The bootstrap distribution of the estimate (Efron & Tibshirani 1993).
BOOTSTRAP = Distribution("bootstrap")
#: The permutation (sign-flip) distribution of the statistic.
PERMUTATION = Distribution("permutation")
#: Wilcoxon's signed-rank sum (Wilcoxon 1945): a rank sum, unsigned.
WILCOXON = Distribution("Wilcoxon signed-rank")

_KNOWN = {
    str(d): d for d in (T, T_POSTERIOR, NORMAL, CHI2, F, BINOMIAL, BOOTSTRAP, PERMUTATION, WILCOXON)
}


def as_distribution(value: str | Distribution) -> Distribution:
    """The :class:`Distribution` a result holds for ``value``: itself, or the known one of that name.

    A name that is not one of the values above is an unsigned distribution.
    """
    if isinstance(value, Distribution):
        return value
    return _KNOWN.get(str(value)) or Distribution(str(value))


def t_interval(
    center: float, standard_error: float, df: float, alpha: float, alternative: str
) -> tuple[float, float]:
    """``center ± t quantile × standard_error``; one-sided for ``"less"``/``"greater"`` as in scipy.

    >>> [round(x, 4) for x in t_interval(1.0, 0.5, 4.0, 0.05, "two-sided")]
    [-0.3882, 2.3882]
    """
    if alternative == "two-sided":
        q = float(special.stdtrit(df, 1.0 - alpha / 2.0))
        return (center - q * standard_error, center + q * standard_error)
    q = float(special.stdtrit(df, 1.0 - alpha))
    if alternative == "less":
        return (-math.inf, center + q * standard_error)
    return (center - q * standard_error, math.inf)


def normal_interval(
    center: float, standard_error: float, alpha: float, alternative: str
) -> tuple[float, float]:
    """``center ± z quantile × standard_error``; one-sided for ``"less"``/``"greater"`` as in scipy.

    >>> [round(x, 4) for x in normal_interval(0.0, 1.0, 0.05, "two-sided")]
    [-1.96, 1.96]
    """
    if alternative == "two-sided":
        q = float(special.ndtri(1.0 - alpha / 2.0))
        return (center - q * standard_error, center + q * standard_error)
    q = float(special.ndtri(1.0 - alpha))
    if alternative == "less":
        return (-math.inf, center + q * standard_error)
    return (center - q * standard_error, math.inf)
