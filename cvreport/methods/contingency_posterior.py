"""The Bayesian reading of a 2×2 contingency table: Beta posteriors of its proportions.

Given an (effective) table n00, n01, n10, n11 and a Beta(λ, λ) prior, the
posteriors of the error rate e, the share r of unique errors made by A, and the
error rates q_a and q_b of the two models (Yang, Wang, Song and Li, Lemma 2).
The 5×2 BCV McNemar test (:mod:`cvreport.methods.mcnemar_bcv`) reports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from scipy import special

from cvreport.errors import CVReportError, DataError
from cvreport.methods._common import as_array
from cvreport.option_values import real_option

__all__ = [
    "BetaPosterior",
    "PosteriorKernel",
    "contingency_posteriors",
    "contingency_posteriors_kernel",
]


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
    out = {}
    for name, (a, b) in params.items():
        low, high = _equal_tailed(a, b, level)
        mode, mean, above = _beta_mode(a, b), a / (a + b), special.betainc(b, a, 0.5)
        out[name] = PosteriorKernel(a, b, mode, mean, low, high, prob_above_half=above)
    return out


def _equal_tailed(a: Any, b: Any, level: float) -> tuple[Any, Any]:
    """The equal-tailed interval of Beta(a, b) at ``level``."""
    if not 0 < level < 1:
        raise CVReportError(f"level must lie strictly between 0 and 1, got {level!r}")
    tail = (1.0 - level) / 2.0
    return special.betaincinv(a, b, tail), special.betaincinv(a, b, 1.0 - tail)


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
        low, high = _equal_tailed(self.alpha, self.beta, level)
        return (float(low), float(high))


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
    what = "prior (λ of the Beta(λ, λ) prior)"
    given_prior = prior
    prior = real_option(prior, "prior", "a positive number (λ of the Beta(λ, λ) prior)")
    if not prior > 0:
        raise CVReportError(f"{what} must be positive, got {given_prior!r}")
    level = real_option(
        level, "level", "a number strictly between 0 and 1 (e.g. 0.95)", finite=False
    )
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
