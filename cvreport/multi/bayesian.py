"""The Bayesian signed-rank test of two models over data sets (Benavoli et al. 2017).

The differences z_i (how much better B is than A on data set i, in the
metric's units) and one pseudo-observation z_0 = 0 of weight ``prior_strength``
(s) get a Dirichlet process posterior: weights w ~ Dirichlet(s, 1, …, 1). For
each draw, θ_right = Σ_ij w_i w_j H(z_i + z_j − 2·rope) is the posterior mass
of B being practically better, θ_left the same for A (H(x) = 1 for x > 0, ½ at
0), θ_rope = 1 − θ_left − θ_right. P(A better), P(equivalent) and P(B better)
are the fractions of draws in which that θ is the largest; their Monte Carlo
standard error is √(p(1 − p)/n_samples). baycomp's ``SignedRankTest`` is the
reference implementation (its default s = 0.5, used here too).

References
----------
Benavoli, A., Corani, G., Demšar, J., Zaffalon, M. (2017). Time for a change: a
tutorial for comparing multiple classifiers through Bayesian analysis. JMLR
18(77):1–36. Benavoli, A., Corani, G., Mangili, F., Zaffalon, M., Ruggeri, F.
(2014). A Bayesian Wilcoxon signed-rank test based on the Dirichlet process. ICML.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cvreport.data.metric import Direction
from cvreport.errors import CVReportError
from cvreport.multi.pairwise import _advantage, paired_scores
from cvreport.multi.ranks import _check_direction

__all__ = ["BayesianSignedRankResult", "bayesian_signed_rank"]

BENAVOLI_REFERENCE = (
    "Benavoli, A., Corani, G., Demšar, J., Zaffalon, M. (2017). Time for a change: a tutorial "
    "for comparing multiple classifiers through Bayesian analysis. JMLR 18(77):1–36."
)


@dataclass(frozen=True, repr=False)
class BayesianSignedRankResult:
    """Posterior probabilities that A is better, that A and B are equivalent, that B is better.

    Attributes
    ----------
    p_a_better, p_equivalent, p_b_better : float
        Fractions of posterior draws in which that region has the largest mass.
    rope : float
        Half-width of the region of practical equivalence, in the metric's units.
    prior_strength : float
        Weight s of the pseudo-observation at 0.
    n_samples : int
        Monte Carlo draws.
    seed : int or None
        Seed of the draws.
    mc_standard_error : float
        Largest √(p(1 − p)/n_samples) of the three.
    models : tuple
        (A, B).
    n_datasets : int
        N.
    warnings : tuple of str
        What limits the reading, in words.
    """

    p_a_better: float
    p_equivalent: float
    p_b_better: float
    rope: float
    prior_strength: float
    n_samples: int
    seed: int | None
    mc_standard_error: float
    models: tuple[Any, Any]
    n_datasets: int
    warnings: tuple[str, ...] = ()
    method: str = "Bayesian signed-rank test"
    reference: str = BENAVOLI_REFERENCE

    @property
    def probabilities(self) -> tuple[float, float, float]:
        """(P(A better), P(equivalent), P(B better))."""
        return (self.p_a_better, self.p_equivalent, self.p_b_better)

    def __repr__(self) -> str:
        a, b = self.models
        return (
            f"<BayesianSignedRankResult: P({a} better) = {self.p_a_better:.3f}, "
            f"P(equivalent) = {self.p_equivalent:.3f}, P({b} better) = {self.p_b_better:.3f} "
            f"(rope ±{self.rope:g}, {self.n_samples} draws, seed {self.seed})>"
        )


def bayesian_signed_rank(
    first: Sequence[float] | np.ndarray,
    second: Sequence[float] | np.ndarray,
    direction: Direction,
    *,
    rope: float = 0.01,
    prior_strength: float = 0.5,
    n_samples: int = 50_000,
    seed: int | None = 0,
    models: tuple[Any, Any] = ("A", "B"),
) -> BayesianSignedRankResult:
    """Bayesian signed-rank test of model B against model A over N data sets.

    Parameters
    ----------
    first, second : array-like
        Summary scores of A and B on each data set.
    direction : {"lower", "higher"}
        Which way the scores are better.
    rope : float
        Half-width of the region of practical equivalence in the metric's units
        (e.g. 0.01 for one percentage point of accuracy); 0 for none.
    prior_strength : float
        Weight of the pseudo-observation at 0 (baycomp's ``prior``).
    n_samples : int
        Posterior draws.
    seed : int or None
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same probabilities.
    models : tuple
        The names (A, B).

    Raises
    ------
    DataError
        Scores of different lengths or missing values.
    CVReportError
        A negative rope or prior strength, or fewer than one draw.

    Examples
    --------
    >>> a = [0.80, 0.71, 0.90, 0.65, 0.88, 0.77, 0.93, 0.69]
    >>> b = [0.83, 0.74, 0.90, 0.70, 0.91, 0.80, 0.94, 0.72]
    >>> res = bayesian_signed_rank(a, b, "higher", rope=0.01, n_samples=20000, seed=1)
    >>> res.p_b_better > 0.9, round(sum(res.probabilities), 12)
    (True, 1.0)
    """
    _check_direction(direction)
    if not (isinstance(rope, (int, float)) and math.isfinite(rope) and rope >= 0):
        raise CVReportError(f"rope must be a number ≥ 0 in the metric's units, got {rope!r}")
    if not (isinstance(prior_strength, (int, float)) and prior_strength > 0):
        raise CVReportError(f"prior_strength must be positive, got {prior_strength!r}")
    if isinstance(n_samples, bool) or int(n_samples) != n_samples or n_samples < 1:
        raise CVReportError(f"n_samples must be a positive integer, got {n_samples!r}")
    a, b = paired_scores(first, second, models)
    z = np.concatenate([[0.0], _advantage(a, b, direction)])
    walsh = z[:, None] + z[None, :]
    threshold = 2.0 * float(rope)
    right = (walsh > threshold) + 0.5 * (walsh == threshold)
    left = (-walsh > threshold) + 0.5 * (-walsh == threshold)
    weights = np.ones(z.size)
    weights[0] = float(prior_strength)
    draws = np.random.default_rng(seed).dirichlet(weights, int(n_samples))
    theta_right = np.einsum("si,ij,sj->s", draws, right, draws)
    theta_left = np.einsum("si,ij,sj->s", draws, left, draws)
    theta = np.column_stack([theta_left, 1.0 - theta_left - theta_right, theta_right])
    winners = np.bincount(theta.argmax(axis=1), minlength=3) / n_samples
    n = a.size
    notes = []
    if n < 5:
        notes.append(
            f"Only {n} data sets: the posterior leans on the prior pseudo-observation at 0 "
            f"(strength {prior_strength:g}); read it as weak evidence."
        )
    if rope == 0:
        notes.append(
            "With rope = 0 no difference counts as practically equivalent; P(equivalent) is ~0."
        )
    se = float(max(math.sqrt(p * (1 - p) / n_samples) for p in winners))
    return BayesianSignedRankResult(
        p_a_better=float(winners[0]),
        p_equivalent=float(winners[1]),
        p_b_better=float(winners[2]),
        rope=float(rope),
        prior_strength=float(prior_strength),
        n_samples=int(n_samples),
        seed=seed,
        mc_standard_error=se,
        models=tuple(models),
        n_datasets=n,
        warnings=tuple(notes),
    )
