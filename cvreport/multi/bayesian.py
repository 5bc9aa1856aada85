"""The Bayesian signed-rank test of two models over data sets (Benavoli et al. 2017).

The differences z_i (how much better B is than A on data set i, in the
metric's units) and one pseudo-observation z_0 = 0 of weight ``prior_strength``
(s) get a Dirichlet process posterior: weights w ~ Dirichlet(s, 1, …, 1). For
each draw, θ_right = Σ_ij w_i w_j H(z_i + z_j − 2·rope) is the posterior mass
of B being practically better, θ_left the same for A (H(x) = 1 for x > 0, ½ at
0), θ_rope = 1 − θ_left − θ_right. P(A better), P(equivalent) and P(B better)
are the fractions of draws in which that θ is the largest; a draw in which two
regions tie for the largest mass (within 1e-12) counts half for each, so that
two identical models get P(A better) = P(B better) at rope = 0 (docs/methods.md,
"Bayesian signed-rank test: ties"). Their Monte Carlo standard error is at most
√(p(1 − p)/n_samples). baycomp's ``SignedRankTest`` is the reference
implementation (its default s = 0.5, used here too).

Computation: for many pairs at once, in chunks of bounded memory. With few
data sets (N ≤ 48) each θ is one matrix product of the draws' products
w_i w_j (i ≤ j) with the pairs' Heaviside values; with more, sorted by z, the
Walsh sums z_i + z_j above 2·rope of row i are a suffix and those below −2·rope
a prefix, so each θ is Σ_i w_i times a difference of cumulative sums of the
sorted weights: O(N) per draw instead of the O(N²) double sum. All
pairs compared on the same N data sets with the same seed share the same
Dirichlet draws (as separate calls with that seed would), and each pair is
computed in one orientation of its differences, so that swapping A and B
mirrors the probabilities exactly.

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
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from cvreport.data.metric import Direction
from cvreport.errors import CVReportError
from cvreport.multi.pairwise import _advantage, paired_scores
from cvreport.multi.ranks import _check_direction, score_matrix
from cvreport.option_values import integer_option, real_option
from cvreport.results import Result
from cvreport.summary_data import SummaryRow

__all__ = [
    "DEFAULT_SAMPLES",
    "BayesianSignedRankResult",
    "automatic_samples",
    "bayesian_signed_rank",
    "bayesian_signed_rank_pairs",
    "check_seed",
    "posterior_points",
]

DEFAULT_SAMPLES = 50_000
"""Posterior draws of one test (baycomp's default)."""

WORK_BUDGET = 120_000_000
"""Most draws × (N + 1) × pairs :func:`automatic_samples` spends on one comparison."""

MIN_AUTOMATIC_SAMPLES = 2_000
"""Fewest draws :func:`automatic_samples` chooses (Monte Carlo standard error ≤ 0.011)."""

MAX_DRAW_VALUES = 125_000_000
"""Most Dirichlet weights (draws × (N + 1)) held at once: 1 GB of float64."""

TIE_TOLERANCE = 1e-12
"""Posterior masses closer than this are a tie for the largest (the draw's vote is shared)."""

_CHUNK_ELEMENTS = 2_000_000  # draws × pairs × (N + 1) held at once: some 16 MB per array
_DRAW_BLOCK = 2048  # draws at once with many data sets (some 16 MB per array at N = 1,000)

BENAVOLI_REFERENCE = (
    "Benavoli, A., Corani, G., Demšar, J., Zaffalon, M. (2017). Time for a change: a tutorial "
    "for comparing multiple classifiers through Bayesian analysis. JMLR 18(77):1–36."
)


@dataclass(frozen=True, kw_only=True, repr=False)
class BayesianSignedRankResult(Result):
    """Posterior probabilities that A is better, that A and B are equivalent, that B is better.

    A member of the result family (:class:`~cvreport.results.Result`):
    ``summary(alpha)``, ``to_frame(alpha)`` and the notebook display show the three
    probabilities, the rope and the Monte Carlo error. A posterior takes no
    decision at a level, so ``alpha`` is only checked.

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
    method, reference : str
        The test and its paper.
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
    method: str = "Bayesian signed-rank test"
    reference: str = BENAVOLI_REFERENCE

    @property
    def probabilities(self) -> tuple[float, float, float]:
        """(P(A better), P(equivalent), P(B better))."""
        return (self.p_a_better, self.p_equivalent, self.p_b_better)

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        a, b = self.models
        return {
            "method": self.method,
            "model_a": a,
            "model_b": b,
            "p_a_better": self.p_a_better,
            "p_equivalent": self.p_equivalent,
            "p_b_better": self.p_b_better,
            "rope": self.rope,
            "prior_strength": self.prior_strength,
            "n_samples": self.n_samples,
            "seed": self.seed,
            "mc_standard_error": self.mc_standard_error,
            "n_datasets": self.n_datasets,
            "warnings": " | ".join(self.warnings),
        }

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        a, b = self.models
        return [
            SummaryRow("models (A vs B)", f"{a} vs {b}", "text"),
            SummaryRow("data sets (N)", self.n_datasets, "value"),
            SummaryRow(f"P({a} better)", self.p_a_better, "probability"),
            SummaryRow(f"P(equivalent, within ±{self.rope:g})", self.p_equivalent, "probability"),
            SummaryRow(f"P({b} better)", self.p_b_better, "probability"),
            SummaryRow("prior strength s", self.prior_strength, "number"),
            SummaryRow("posterior draws", self.n_samples, "value"),
            SummaryRow("seed", self.seed, "value"),
            SummaryRow("Monte Carlo standard error", self.mc_standard_error, "number"),
        ]

    def __repr__(self) -> str:
        a, b = self.models
        return (
            f"<BayesianSignedRankResult: P({a} better) = {self.p_a_better:.3f}, "
            f"P(equivalent) = {self.p_equivalent:.3f}, P({b} better) = {self.p_b_better:.3f} "
            f"(rope ±{self.rope:g}, {self.n_samples} draws, seed {self.seed})>"
        )


def automatic_samples(n_pairs: int, n_datasets: int) -> int:
    """Draws per pair: :data:`DEFAULT_SAMPLES`, fewer when many pairs or data sets would be slow.

    The work of the test grows as draws × (N + 1) × pairs; above
    :data:`WORK_BUDGET` the draws are reduced to fit it, but never below
    :data:`MIN_AUTOMATIC_SAMPLES`. The Monte Carlo standard error of each
    probability, at most 0.5/√draws, is stated with the results.

    Parameters
    ----------
    n_pairs : int
        Pairs of models compared.
    n_datasets : int
        N, the data sets.

    Returns
    -------
    int

    Examples
    --------
    >>> automatic_samples(45, 30), automatic_samples(19_900, 12), automatic_samples(45, 1000)
    (50000, 2000, 2664)
    """
    work = max(1, int(n_pairs)) * (int(n_datasets) + 1)
    return int(min(DEFAULT_SAMPLES, max(MIN_AUTOMATIC_SAMPLES, WORK_BUDGET // work)))


def check_seed(seed: Any) -> int | None:
    """The seed of the posterior draws: ``None`` or an integer ≥ 0 (numpy's SeedSequence)."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    raise CVReportError(
        f"seed must be an integer ≥ 0 (or None for fresh draws), got {seed!r}; the same "
        "seed gives the same probabilities"
    )


def _check_options(rope: Any, prior_strength: Any, n_samples: Any, seed: Any) -> None:
    check_seed(seed)
    if real_option(rope, "rope", "a number ≥ 0 in the metric's units") < 0:
        raise CVReportError(f"rope must be a number ≥ 0 in the metric's units, got {rope!r}")
    if not real_option(prior_strength, "prior_strength", "a positive number") > 0:
        raise CVReportError(f"prior_strength must be a positive number, got {prior_strength!r}")
    if integer_option(n_samples, "n_samples", "a positive integer") < 1:
        raise CVReportError(f"n_samples must be a positive integer, got {n_samples!r}")


def _draws(n_datasets: int, prior_strength: float, n_samples: int, seed: int | None) -> np.ndarray:
    """(n_samples, N + 1) Dirichlet(s, 1, …, 1) weights; the pseudo-observation first.

    Refused in words (:class:`CVReportError`) beyond :data:`MAX_DRAW_VALUES` weights.
    """
    if int(n_samples) * (n_datasets + 1) > MAX_DRAW_VALUES:
        most = MAX_DRAW_VALUES // (n_datasets + 1)
        raise CVReportError(
            f"n_samples={int(n_samples)} draws of {n_datasets + 1} weights would hold "
            f"{8 * int(n_samples) * (n_datasets + 1) / 1e9:.1f} GB at once; pass at most "
            f"{most} (their Monte Carlo standard error is at most {0.5 / math.sqrt(most):.5f})"
        )
    weights = np.ones(n_datasets + 1)
    weights[0] = float(prior_strength)
    return np.random.default_rng(seed).dirichlet(weights, int(n_samples))


def _triangle_masses(
    z: np.ndarray, products: np.ndarray, pairs_i: np.ndarray, pairs_j: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """θ_left and θ_right, (draws, pairs), as one matrix product over the i ≤ j Walsh sums.

    ``products`` holds w_i w_j (doubled for i < j) of each draw; few data sets.
    """
    walsh = z[:, pairs_i] + z[:, pairs_j]
    doubled = np.where(pairs_i == pairs_j, 1.0, 2.0)
    right = ((walsh > threshold) + 0.5 * (walsh == threshold)) * doubled
    left = ((walsh < -threshold) + 0.5 * (walsh == -threshold)) * doubled
    both = products @ np.concatenate([left, right]).T
    return both[:, : z.shape[0]], both[:, z.shape[0] :]


class _WalshCounts(NamedTuple):
    """Each pair's order of z and, per sorted row, how many Walsh sums lie at or past ±2·rope."""

    order: np.ndarray
    below: np.ndarray
    at_lower: np.ndarray
    above: np.ndarray
    at_upper: np.ndarray


def _walsh_counts(z: np.ndarray, threshold: float) -> _WalshCounts:
    """Sorted by z, row i of the Walsh sums has the entries below −threshold as a prefix
    (then those equal to it) and the entries above threshold as a suffix (after those
    equal to it): fl(z_i + z_j) never decreases in z_j.
    """
    order = np.argsort(z, axis=1, kind="stable")
    ordered = np.take_along_axis(z, order, axis=1)
    n_pairs, n = z.shape
    counts = np.empty((4, n_pairs, n), dtype=np.int64)
    step = max(1, _CHUNK_ELEMENTS // (n_pairs * n))  # rows of Walsh sums at once
    for first in range(0, n, step):
        rows = slice(first, first + step)
        walsh = ordered[:, rows, None] + ordered[:, None, :]
        counts[0, :, rows] = (walsh < -threshold).sum(axis=-1)
        counts[1, :, rows] = (walsh == -threshold).sum(axis=-1)
        counts[2, :, rows] = (walsh > threshold).sum(axis=-1)
        counts[3, :, rows] = (walsh == threshold).sum(axis=-1)
    return _WalshCounts(order, *counts)


def _sorted_masses(counts: _WalshCounts, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """θ_left and θ_right, (draws, pairs), from cumulative sums of the weights sorted by z.

    ``columns`` holds the draws transposed, (N + 1, draws); many data sets. With
    the prefix and suffix of :func:`_walsh_counts`, Σ_j of row i is a difference
    of cumulative sums of the sorted weights.
    """
    n_pairs, n = counts.order.shape
    # (pairs, N + 1, draws): each pair's weights in its z order, a draw along the last axis
    weights = np.take(columns, counts.order.ravel(), axis=0).reshape(n_pairs, n, -1)
    cumulative = np.zeros((n_pairs, n + 1, weights.shape[-1]))
    for index in range(n):  # row by row: several times faster than cumsum along axis 1
        np.add(cumulative[:, index], weights[:, index], out=cumulative[:, index + 1])
    total = cumulative[:, n:, :]
    flat = cumulative.reshape(n_pairs * (n + 1), -1)
    offset = (np.arange(n_pairs) * (n + 1))[:, None]

    def at(index: np.ndarray) -> np.ndarray:
        return np.take(flat, (index + offset).ravel(), axis=0).reshape(weights.shape)

    left = at(counts.below)
    if counts.at_lower.any():  # Walsh sums equal to −threshold count half
        left += at(counts.below + counts.at_lower)
        left *= 0.5
    right = at(n - counts.above)
    if counts.at_upper.any():
        right += at(n - counts.above - counts.at_upper)
        right *= 0.5
    np.subtract(total, right, out=right)
    left *= weights
    right *= weights
    return left.sum(axis=1).T, right.sum(axis=1).T


def _votes(theta_left: np.ndarray, theta_right: np.ndarray) -> np.ndarray:
    """(pairs, 3) summed votes of the draws: 1 to the largest region, shared on a tie."""
    theta_rope = 1.0 - (theta_left + theta_right)
    top = np.maximum(np.maximum(theta_left, theta_rope), theta_right)
    top -= TIE_TOLERANCE
    wins = [theta_left >= top, theta_rope >= top, theta_right >= top]
    votes = np.stack([np.count_nonzero(won, axis=0) for won in wins], axis=-1).astype(float)
    tied = wins[0].astype(np.int8) + wins[1] + wins[2]
    draw, pair = np.nonzero(tied > 1)
    if draw.size:  # a tie: each of the tied regions gets 1/count of the vote, not 1
        keep = 1.0 / tied[draw, pair] - 1.0
        for region, won in enumerate(wins):
            np.add.at(votes[:, region], pair, np.where(won[draw, pair], keep, 0.0))
    return votes


SMALL_N = 48
"""Up to this many data sets the posterior masses are one matrix product (BLAS)."""


def _probabilities(advantages: np.ndarray, draws: np.ndarray, rope: float) -> np.ndarray:
    """(pairs, 3): P(A better), P(equivalent), P(B better) of each row of advantages (pairs, N)."""
    n_pairs, n = advantages.shape
    z = np.zeros((n_pairs, n + 1))
    z[:, 1:] = advantages
    # one orientation per pair (its first non-zero difference positive): swapping A and B
    # then computes the very same numbers, mirrored
    nonzero = advantages != 0
    first = np.take_along_axis(advantages, nonzero.argmax(axis=1)[:, None], axis=1)[:, 0]
    flipped = first < 0
    z[flipped] = -z[flipped]
    threshold = 2.0 * float(rope)
    n_draws = draws.shape[0]
    shares = np.zeros((n_pairs, 3))
    if n <= SMALL_N:
        pairs_i, pairs_j = np.triu_indices(n + 1)
        draw_chunk = max(1, _CHUNK_ELEMENTS // pairs_i.size)
        for first_draw in range(0, n_draws, draw_chunk):
            part = draws[first_draw : first_draw + draw_chunk]
            products = part[:, pairs_i] * part[:, pairs_j]
            chunk = max(1, _CHUNK_ELEMENTS // (2 * part.shape[0]))
            for start in range(0, n_pairs, chunk):
                rows = slice(start, start + chunk)
                masses = _triangle_masses(z[rows], products, pairs_i, pairs_j, threshold)
                shares[rows] += _votes(*masses)
        return _oriented(shares / n_draws, flipped)
    # blocks of draws, each transposed to (N + 1, draws) and contiguous, of bounded size
    size = int(np.clip(_CHUNK_ELEMENTS // (n + 1), 64, _DRAW_BLOCK))
    blocks = [
        np.ascontiguousarray(draws[first_draw : first_draw + size].T)
        for first_draw in range(0, n_draws, size)
    ]
    chunk = max(1, _CHUNK_ELEMENTS // (size * (n + 1)))
    for start in range(0, n_pairs, chunk):
        rows = slice(start, start + chunk)
        counts = _walsh_counts(z[rows], threshold)
        for block in blocks:
            shares[rows] += _votes(*_sorted_masses(counts, block))
    return _oriented(shares / n_draws, flipped)


def _oriented(probabilities: np.ndarray, flipped: np.ndarray) -> np.ndarray:
    """Back to each pair's own orientation: a flipped pair's A and B trade places."""
    probabilities[flipped] = probabilities[flipped][:, ::-1]
    return probabilities


def _notes(advantage: np.ndarray, rope: float, prior_strength: float) -> tuple[str, ...]:
    n = advantage.size
    notes = []
    if n < 5:
        notes.append(
            f"With only {n} data sets the posterior leans on the prior pseudo-observation at 0 "
            f"(strength {prior_strength:g}); read it as weak evidence."
        )
    if not advantage.any():
        notes.append(
            "The two models score the same on every data set: the posterior is symmetric, so "
            "P(A better) = P(B better)"
            + (
                "; with rope = 0 there is no region of equivalence and each side gets ½ "
                "(no evidence either way)."
                if rope == 0
                else "; they are practically equivalent."
            )
        )
    elif rope == 0:
        notes.append(
            "With rope = 0 no difference counts as practically equivalent; P(equivalent) is ~0."
        )
    return tuple(notes)


def _result(
    probabilities: np.ndarray,
    advantage: np.ndarray,
    *,
    rope: float,
    prior_strength: float,
    n_samples: int,
    seed: int | None,
    models: tuple[Any, Any],
) -> BayesianSignedRankResult:
    se = float(max(math.sqrt(max(p * (1 - p), 0.0) / n_samples) for p in probabilities))
    return BayesianSignedRankResult(
        p_a_better=float(probabilities[0]),
        p_equivalent=float(probabilities[1]),
        p_b_better=float(probabilities[2]),
        rope=float(rope),
        prior_strength=float(prior_strength),
        n_samples=int(n_samples),
        seed=seed,
        mc_standard_error=se,
        models=(models[0], models[1]),
        n_datasets=int(advantage.size),
        warnings=_notes(advantage, rope, prior_strength),
    )


def bayesian_signed_rank(
    first: Sequence[float] | np.ndarray,
    second: Sequence[float] | np.ndarray,
    direction: Direction,
    *,
    rope: float = 0.01,
    prior_strength: float = 0.5,
    n_samples: int = DEFAULT_SAMPLES,
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

    Returns
    -------
    BayesianSignedRankResult

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

    Two identical models: the posterior is symmetric, and so are the probabilities.

    >>> same = bayesian_signed_rank(a, a, "higher", rope=0, n_samples=1000)
    >>> same.p_a_better, same.p_equivalent, same.p_b_better
    (0.5, 0.0, 0.5)
    """
    _check_direction(direction)
    _check_options(rope, prior_strength, n_samples, seed)
    a, b = paired_scores(first, second, models)
    advantage = _advantage(a, b, direction)
    n_samples = int(n_samples)
    draws = _draws(advantage.size, prior_strength, n_samples, seed)
    probabilities = _probabilities(advantage[None, :], draws, rope)[0]
    return _result(
        probabilities,
        advantage,
        rope=rope,
        prior_strength=prior_strength,
        n_samples=n_samples,
        seed=seed,
        models=models,
    )


def bayesian_signed_rank_pairs(
    scores: pd.DataFrame,
    pairs: Sequence[tuple[Any, Any]],
    direction: Direction,
    *,
    rope: float = 0.01,
    prior_strength: float = 0.5,
    n_samples: int | None = None,
    seed: int | None = 0,
) -> list[BayesianSignedRankResult]:
    """Bayesian signed-rank tests of many pairs of models at once (Benavoli et al. 2017).

    Each result equals :func:`bayesian_signed_rank` of that pair with the same
    ``n_samples`` and ``seed`` (the same draws; the sums may differ in the last bit).

    Parameters
    ----------
    scores : pandas.DataFrame
        Data sets × models summary scores.
    pairs : sequence of (A, B)
        The pairs, as column names.
    direction : {"lower", "higher"}
        Which way the scores are better.
    rope, prior_strength, seed :
        As in :func:`bayesian_signed_rank`.
    n_samples : int, optional
        Draws per pair; default :func:`automatic_samples` (50,000 unless the
        comparison is large).

    Returns
    -------
    list of BayesianSignedRankResult
        One per pair, in the order given.

    Raises
    ------
    DataError
        Missing or non-finite scores.
    CVReportError
        A pair naming no model, or an invalid option.

    Examples
    --------
    >>> s = pd.DataFrame({"x": [.9, .8, .7, .85, .95, .6], "y": [.8, .7, .6, .8, .9, .5],
    ...                   "z": [.7, .72, .5, .7, .8, .55]})
    >>> out = bayesian_signed_rank_pairs(s, [("x", "y"), ("y", "x")], "higher", n_samples=4000)
    >>> out[0].probabilities == out[1].probabilities[::-1], out[0].p_a_better > 0.9
    (True, True)
    """
    _check_direction(direction)
    values = score_matrix(scores)
    pairs = [tuple(pair) for pair in pairs]
    missing = sorted({str(m) for pair in pairs for m in pair if m not in values.columns})
    if missing:
        raise CVReportError(
            f"pairs name {missing}, which are not models; the models are {list(values.columns)}"
        )
    if n_samples is None:
        n_samples = automatic_samples(len(pairs), len(values))
    _check_options(rope, prior_strength, n_samples, seed)
    n_samples = int(n_samples)
    if not pairs:
        return []
    matrix = values.to_numpy(dtype=np.float64)
    columns = values.columns
    first = matrix[:, columns.get_indexer([a for a, _ in pairs])].T
    second = matrix[:, columns.get_indexer([b for _, b in pairs])].T
    advantages = _advantage(first, second, direction)
    draws = _draws(matrix.shape[0], prior_strength, n_samples, seed)
    probabilities = _probabilities(advantages, draws, rope)
    return [
        _result(
            probabilities[index],
            advantages[index],
            rope=rope,
            prior_strength=prior_strength,
            n_samples=n_samples,
            seed=seed,
            models=pair,
        )
        for index, pair in enumerate(pairs)
    ]


def posterior_points(
    first: Sequence[float] | np.ndarray,
    second: Sequence[float] | np.ndarray,
    direction: Direction,
    *,
    rope: float = 0.01,
    prior_strength: float = 0.5,
    n_points: int = 1000,
    seed: int | None = 0,
) -> np.ndarray:
    """Posterior draws of (P(A better), P(equivalent), P(B better)) of one pair.

    The first ``n_points`` Dirichlet draws of the test with the same ``seed``
    and settings, each turned into the three masses θ of Benavoli et al. (2017,
    §4.2); the share of rows whose largest entry is the first is the test's
    P(A better) over those draws. These are the points of the simplex figure
    (:func:`cvreport.rendering.simplex.simplex_plot`).

    Parameters
    ----------
    first, second : array-like
        Scores of A and of B on each data set.
    direction : {"lower", "higher"}
        Which way the scores are better.
    rope, prior_strength, seed :
        As in :func:`bayesian_signed_rank`.
    n_points : int
        How many draws.

    Returns
    -------
    numpy.ndarray
        (n_points, 3), each row adding to one.

    Examples
    --------
    >>> a, b = [.9, .8, .7, .85, .95, .6], [.8, .7, .6, .8, .9, .5]
    >>> theta = posterior_points(a, b, "higher", n_points=500)
    >>> theta.shape, bool(np.allclose(theta.sum(axis=1), 1))
    ((500, 3), True)
    >>> share = float((theta.argmax(axis=1) == 0).mean())
    >>> share > 0.9  # A is better on every data set
    True
    """
    _check_direction(direction)
    _check_options(rope, prior_strength, n_points, seed)
    a, b = paired_scores(first, second, ("A", "B"))
    advantage = _advantage(a, b, direction)
    draws = _draws(advantage.size, prior_strength, int(n_points), seed)
    z = np.concatenate([[0.0], advantage])[None, :]
    threshold = 2.0 * float(rope)
    if advantage.size <= SMALL_N:
        pairs_i, pairs_j = np.triu_indices(advantage.size + 1)
        products = draws[:, pairs_i] * draws[:, pairs_j]
        left, right = _triangle_masses(z, products, pairs_i, pairs_j, threshold)
    else:  # many data sets: cumulative sums of the sorted weights, as the test computes them
        counts = _walsh_counts(z, threshold)
        left, right = _sorted_masses(counts, np.ascontiguousarray(draws.T))
    left, right = left[:, 0], right[:, 0]
    return np.column_stack([left, np.clip(1.0 - left - right, 0.0, 1.0), right])
