"""The overlap statistic of m×2 cross-validation and its exact distribution.

Two replications of 2-fold cross-validation on ``n`` records train on halves
``S`` and ``S′``; their overlap ``X = |S ∩ S′|`` is hypergeometric under random
partitioning with mean ``n/4``, and ``Z = |X − n/4|`` measures how far a pair of
partitions is from balance (Wang, Li, Li 2015, *Measure for data
partitioning in m×2 cross-validation*, Pattern Recognition Letters 65:211–217).
For ``m`` replications ``Z_max`` is the largest ``Z`` over the ``C(m, 2)`` pairs.

Everything here is exact: the hypergeometric law is built by the ratio
recursion ``P(X = k+1)/P(X = k)`` in log space from its mode outwards and
normalised once, so it is accurate for ``n = 10⁷`` as for ``n = 40``. Terms
more than ``e^−800`` below the mode are dropped (they are below the smallest
double anyway).

``P(Z_max > k)`` uses the model that reproduces Wang, Li & Li (2015)'s Tables 5–8: the
``C(m, 2)`` pairs are treated as independent, ``P(Z_max ≤ k) = F_Z(k)^C(m,2)``
(docs/methods.md). ``method="simulate"`` draws real random partitions as a
check; the two agree to about 1e-3.

Examples
--------
>>> d = overlap_distribution(40)
>>> round(d.pmf(0), 6), round(d.mean, 6), round(d.var, 6)
(0.247629, 1.238144, 1.031101)
>>> overlap_quantile(200, 3, 0.2), overlap_quantile(200, 3, 0.1)
(5, 6)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from cvreport.errors import CVReportError
from cvreport.option_values import check_alpha, integer_option

__all__ = [
    "REFERENCE",
    "OverlapDistribution",
    "overlap_distribution",
    "overlap_mean",
    "overlap_quantile",
    "overlap_var",
    "simulate_zmax",
    "zmax_sf",
    "zmax_tail",
]

REFERENCE = (
    "Wang, Y., Li, J., Li, Y. (2015). Measure for data partitioning in m×2 "
    "cross-validation. Pattern Recognition Letters 65:211–217."
)

# log-probabilities this far below the mode are dropped: e^-800 underflows a double
_LOG_CUTOFF = 800.0

SimulationSeed = int | np.random.Generator | np.random.SeedSequence | None


@dataclass(frozen=True, eq=False)
class OverlapDistribution:
    """Exact law of ``Z = |X − E X|`` for one pair of 2-fold partitions.

    ``X`` is the number of records two training sets of sizes ``sizes = (a, b)``
    drawn at random from ``n`` records share: ``X ~ Hypergeometric(n, a, b)`` with
    ``E X = a b / n``, which is ``n/4`` for halves (Wang, Li & Li (2015), eqs 2–4). Build it
    with :func:`overlap_distribution`.

    Attributes
    ----------
    n : int
        Number of records.
    sizes : tuple of int
        Training-set sizes of the two replications (``n // 2`` each by default).
    values : ndarray
        Support of ``Z`` in ascending order (integers when ``n`` is a multiple
        of 4, half-integers when ``n ≡ 2 (mod 4)``).
    log_pmf : ndarray
        ``log P(Z = values[i])``.

    Examples
    --------
    >>> d = overlap_distribution(8)
    >>> d.values.tolist()
    [0.0, 1.0, 2.0]
    >>> [round(float(p), 6) for p in d.pmf(d.values)]  # 36/70, 32/70, 2/70
    [0.514286, 0.457143, 0.028571]
    >>> round(d.sf(0), 6), round(d.tail(1), 6)
    (0.485714, 0.485714)
    """

    n: int
    sizes: tuple[int, int]
    values: np.ndarray
    log_pmf: np.ndarray
    _keys: np.ndarray  # n·Z as exact integers, the grouping key of the support
    _log_tail: np.ndarray  # log P(Z >= values[i])

    @property
    def expected_overlap(self) -> float:
        """``E X = a b / n`` (``n/4`` for halves)."""
        a, b = self.sizes
        return a * b / self.n

    @property
    def mean(self) -> float:
        """``E Z`` by exact summation; equals ``(n/8)·P(Z = 0)`` for ``n = 4n′``."""
        return float(np.sum(self.values * np.exp(self.log_pmf)))

    @property
    def var(self) -> float:
        """``D Z = E Z² − (E Z)²``; ``E Z² = n²/(16(n − 1))`` for ``n = 4n′`` (Wang, Li & Li (2015), eq 6)."""
        p = np.exp(self.log_pmf)
        mean = float(np.sum(self.values * p))
        return float(np.sum((self.values - mean) ** 2 * p))

    @property
    def std(self) -> float:
        """Standard deviation of ``Z``."""
        return math.sqrt(self.var)

    # -- point and tail probabilities --------------------------------------
    def _key(self, z: ArrayLike) -> np.ndarray:
        # values are exact multiples of 1/n; map z to the nearest multiple
        return np.rint(np.asarray(z, dtype=float) * self.n).astype(np.int64)

    def logpmf(self, z: ArrayLike) -> np.ndarray | float:
        """``log P(Z = z)``; ``-inf`` off the support."""
        key = self._key(z)
        pos = np.searchsorted(self._keys, key)
        pos_c = np.clip(pos, 0, len(self._keys) - 1)
        on = (pos < len(self._keys)) & (self._keys[pos_c] == key)
        exact = np.isclose(np.asarray(z, dtype=float) * self.n, key, rtol=0, atol=1e-6)
        out = np.where(on & exact, self.log_pmf[pos_c], -np.inf)
        return _scalar(out)

    def pmf(self, z: ArrayLike) -> np.ndarray | float:
        """``P(Z = z)``."""
        return _scalar(np.exp(np.asarray(self.logpmf(z))))

    def logtail(self, z: ArrayLike) -> np.ndarray | float:
        """``log P(Z ≥ z)``."""
        zz = np.asarray(z, dtype=float) * self.n
        # first support point with key >= z (tolerance for float input)
        pos = np.searchsorted(self._keys, np.ceil(zz - 1e-6), side="left")
        padded = np.append(self._log_tail, -np.inf)
        return _scalar(padded[pos])

    def tail(self, z: ArrayLike) -> np.ndarray | float:
        """``P(Z ≥ z)``: the p-value of an observed ``z`` for one pair."""
        return _scalar(np.exp(np.asarray(self.logtail(z))))

    def logsf(self, z: ArrayLike) -> np.ndarray | float:
        """``log P(Z > z)``."""
        zz = np.asarray(z, dtype=float) * self.n
        pos = np.searchsorted(self._keys, np.floor(zz + 1e-6), side="right")
        padded = np.append(self._log_tail, -np.inf)
        return _scalar(padded[pos])

    def sf(self, z: ArrayLike) -> np.ndarray | float:
        """``P(Z > z)``."""
        return _scalar(np.exp(np.asarray(self.logsf(z))))

    def cdf(self, z: ArrayLike) -> np.ndarray | float:
        """``P(Z ≤ z)``."""
        return _scalar(-np.expm1(np.asarray(self.logsf(z))))

    def __repr__(self) -> str:
        return (
            f"OverlapDistribution(n={self.n}, sizes={self.sizes}, "
            f"EZ={self.mean:.6g}, DZ={self.var:.6g})"
        )


def _scalar(x: np.ndarray) -> np.ndarray | float:
    return float(x) if np.ndim(x) == 0 else x


def _check_n(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise CVReportError(f"n must be an integer number of records, got {n!r}")
    if int(n) < 2:
        raise CVReportError(f"n must be at least 2 records, got {n!r}")
    return int(n)


def _hypergeom_logpmf(n: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Support and normalised log-pmf of Hypergeometric(population n, a marked, b drawn).

    Built from the mode by ``log P(k+1) − log P(k) = log((a−k)(b−k)) −
    log((k+1)(n−a−b+k+1))``; the terms are summed outwards (cumulative sums)
    and the result normalised by its log-sum-exp, so no large binomial
    coefficient is ever formed.
    """
    lo, hi = max(0, a + b - n), min(a, b)
    mode = min(max((a + 1) * (b + 1) // (n + 2), lo), hi)
    # a generous window: the law is near-normal with sd ≤ sqrt(n)/4 + 1
    sd = math.sqrt(a * b * (n - a) * (n - b) / (n * n * max(n - 1, 1))) + 1.0
    reach = math.ceil(45.0 * sd) + 2
    k_lo, k_hi = max(lo, mode - reach), min(hi, mode + reach)
    k = np.arange(k_lo, k_hi + 1, dtype=np.float64)
    up = k[:-1]  # ratio P(k+1)/P(k) for k in [k_lo, k_hi)
    log_ratio = np.log((a - up) * (b - up)) - np.log((up + 1) * (n - a - b + up + 1))
    steps = np.concatenate([[0.0], np.cumsum(log_ratio)])
    logp = steps - steps[mode - k_lo]
    keep = logp > -_LOG_CUTOFF
    k, logp = k[keep], logp[keep]
    shift = logp.max()
    logp = logp - (shift + math.log(np.sum(np.exp(logp - shift))))
    return k.astype(np.int64), logp


@functools.lru_cache(maxsize=256)
def _distribution(n: int, a: int, b: int) -> OverlapDistribution:
    k, logp = _hypergeom_logpmf(n, a, b)
    keys = np.abs(k * n - a * b)  # n·|X − ab/n|, exact integers
    order = np.argsort(keys, kind="stable")
    keys, logp = keys[order], logp[order]
    starts = np.flatnonzero(np.r_[True, np.diff(keys) != 0])
    ukeys = keys[starts]
    # log-sum-exp of each group of equal |X − EX|
    group_max = np.maximum.reduceat(logp, starts)
    counts = np.diff(np.r_[starts, len(keys)])
    rel = np.exp(logp - np.repeat(group_max, counts))
    log_pmf = group_max + np.log(np.add.reduceat(rel, starts))
    # log P(Z >= z): accumulate from the far tail so small tails keep their digits
    log_tail = np.logaddexp.accumulate(log_pmf[::-1])[::-1]
    log_tail = np.minimum(log_tail, 0.0)
    return OverlapDistribution(
        n=n,
        sizes=(a, b),
        values=ukeys / n,
        log_pmf=log_pmf,
        _keys=ukeys,
        _log_tail=log_tail,
    )


def overlap_distribution(n: int, sizes: Sequence[int] | None = None) -> OverlapDistribution:
    """The exact distribution of the overlap statistic ``Z`` for ``n`` records.

    Parameters
    ----------
    n : int
        Number of records (any ``n ≥ 2``; Wang, Li & Li (2015) takes ``n = 4n′``).
    sizes : (int, int), optional
        Training-set sizes of the two replications; ``(n // 2, n // 2)`` by
        default. ``Z = |X − a b / n|``, which is ``|X − n/4|`` for halves.

    Returns
    -------
    OverlapDistribution

    References
    ----------
    Wang, Li & Li (2015), §2.1, eqs (2)–(4): ``P(Z = 0) = C(2n′, n′)²/C(n, 2n′)``,
    ``P(Z = z) = 2 C(2n′, n′ − z)²/C(n, 2n′)``.

    Examples
    --------
    >>> from math import comb
    >>> d = overlap_distribution(12)
    >>> abs(d.pmf(1) - 2 * comb(6, 2) ** 2 / comb(12, 6)) < 1e-15
    True
    >>> float(f"{overlap_distribution(10_000_000).tail(4000):.3e}")  # five standard deviations out
    4.214e-07
    """
    n = _check_n(n)
    if sizes is None:
        a = b = n // 2
    else:
        a, b = (int(s) for s in sizes)
        if not (0 < a < n and 0 < b < n):
            raise CVReportError(
                f"training-set sizes must lie strictly between 0 and n = {n}, got {tuple(sizes)}"
            )
    return _distribution(n, a, b)


def overlap_mean(n: int) -> float:
    """``E Z`` for two random half-half partitions of ``n`` records (Wang, Li & Li (2015), Proposition 1).

    Computed by exact summation; Wang, Li & Li (2015)'s printed closed form (eq 5) is
    garbled, a verified one is ``EZ = (n/8)·P(Z = 0)`` (docs/methods.md).

    >>> round(overlap_mean(1024), 6)
    6.378403
    """
    return overlap_distribution(n).mean


def overlap_var(n: int) -> float:
    """``D Z`` for two random half-half partitions of ``n`` records (Wang, Li & Li (2015), eq 6).

    >>> round(overlap_var(1024), 6)
    23.378535
    """
    return overlap_distribution(n).var


def _n_pairs(m: int) -> int:
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 2:
        raise CVReportError(f"m must be an integer number of replications ≥ 2, got {m!r}")
    return int(m) * (int(m) - 1) // 2


def zmax_sf(
    k: ArrayLike,
    n: int,
    m: int,
    *,
    method: Literal["independent", "simulate"] = "independent",
    n_sim: int = 20_000,
    random_state: SimulationSeed = None,
) -> np.ndarray | float:
    """``P(Z_max > k)`` for ``m`` random half-half partitions of ``n`` records.

    Parameters
    ----------
    k : float or array_like
        Threshold(s).
    n : int
        Number of records.
    m : int
        Number of replications (``m ≥ 2``); ``Z_max`` is over ``C(m, 2)`` pairs.
    method : {"independent", "simulate"}
        ``"independent"`` (default): the model behind Wang, Li & Li (2015)'s Tables 5–8,
        ``P(Z_max ≤ k) = F_Z(k)^C(m,2)`` (docs/methods.md). ``"simulate"``:
        Monte Carlo over ``n_sim`` sets of real random partitions
        (:func:`simulate_zmax`), as a check of the model.
    n_sim : int
        Monte Carlo size for ``method="simulate"``.
    random_state : int, Generator or None
        Seed for ``method="simulate"``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(zmax_sf(4, 44, 7), 4), round(zmax_sf(4, 48, 7), 4)
    (0.1188, 0.1672)
    """
    pairs = _n_pairs(m)
    if method == "independent":
        dist = overlap_distribution(n)
        log_sf = np.asarray(dist.logsf(k), dtype=float)
        # 1 − (1 − sf)^pairs, in a form that keeps small tails accurate
        with np.errstate(divide="ignore"):
            log_cdf = np.log1p(-np.minimum(np.exp(log_sf), 1.0))
        return _scalar(-np.expm1(pairs * log_cdf))
    if method == "simulate":
        zmax = simulate_zmax(n, m, n_sim=n_sim, random_state=random_state)
        kk = np.asarray(k, dtype=float)
        return _scalar(np.mean(zmax[:, None] > kk.reshape(-1) + 1e-9, axis=0).reshape(kk.shape))
    raise CVReportError(f"method must be 'independent' or 'simulate', got {method!r}")


def zmax_tail(
    z: ArrayLike,
    n: int,
    m: int,
    *,
    method: Literal["independent", "simulate"] = "independent",
    n_sim: int = 20_000,
    random_state: SimulationSeed = None,
) -> np.ndarray | float:
    """``P(Z_max ≥ z)``: the p-value of an observed ``Z_max`` under random partitioning.

    Same model and options as :func:`zmax_sf`.

    >>> zmax_tail(0, 200, 5)
    1.0
    >>> round(zmax_tail(9, 200, 5), 4)
    0.1489
    """
    dist = overlap_distribution(n)
    zz = np.asarray(z, dtype=float)
    # P(Z_max >= z) = P(Z_max > largest support value below z)
    keys = np.ceil(zz * dist.n - 1e-6)
    pos = np.searchsorted(dist._keys, keys, side="left")
    below = np.where(pos > 0, dist.values[np.maximum(pos - 1, 0)], -1.0)
    return zmax_sf(below, n, m, method=method, n_sim=n_sim, random_state=random_state)


def simulate_zmax(
    n: int,
    m: int,
    *,
    n_sim: int = 20_000,
    random_state: SimulationSeed = None,
) -> np.ndarray:
    """Monte Carlo draws of ``Z_max`` for ``m`` random half-half partitions of ``n`` records.

    Each replication's training set is a uniformly random half. Two exact
    schemes are used, whichever is cheaper: shuffling ``n`` membership flags per
    replication (cost ``m·n``), or, without materialising records, tracking the
    ``2^r`` cells records fall into after ``r`` replications and drawing the next
    half's share of every cell as successive hypergeometrics (cost ``2^m``,
    independent of ``n``).

    Returns
    -------
    ndarray of shape (n_sim,)

    Examples
    --------
    >>> z = simulate_zmax(200, 5, n_sim=2000, random_state=0)
    >>> z.shape, bool(abs((z > 6).mean() - zmax_sf(6, 200, 5)) < 0.03)
    ((2000,), True)
    """
    n = _check_n(n)
    _n_pairs(m)
    if integer_option(n_sim, "n_sim", "a positive whole number of simulations") < 1:
        raise CVReportError(f"n_sim must be positive, got {n_sim!r}")
    rng = np.random.default_rng(random_state)
    half = n // 2
    # pick the cheaper exact scheme (costs measured in ns per simulation)
    if m * n * 30 < (2**m) * 300:
        overlaps = _overlaps_by_permutation(n, m, n_sim, rng)
    else:
        overlaps = _overlaps_by_cells(n, m, n_sim, rng)
    zmax: np.ndarray = np.abs(overlaps - half * half / n).max(axis=1)
    return zmax


def _overlaps_by_permutation(n: int, m: int, n_sim: int, rng: np.random.Generator) -> np.ndarray:
    ii, jj = np.triu_indices(m, 1)
    batch = max(1, 4_000_000 // (m * n))
    base = np.zeros((batch * m, n), dtype=np.int8)
    base[:, : n // 2] = 1
    out = np.empty((n_sim, len(ii)), dtype=np.int64)
    for start in range(0, n_sim, batch):
        size = min(batch, n_sim - start)
        flags = rng.permuted(base[: size * m], axis=1).reshape(size, m, n).astype(np.float32)
        gram = flags @ flags.transpose(0, 2, 1)  # exact: counts < 2^24
        out[start : start + size] = gram[:, ii, jj].astype(np.int64)
    return out


def _overlaps_by_cells(n: int, m: int, n_sim: int, rng: np.random.Generator) -> np.ndarray:
    half = n // 2
    cells = np.empty((n_sim, 2), dtype=np.int64)
    cells[:, 0], cells[:, 1] = n - half, half  # bit 0 set: in the first training set
    for _ in range(1, m):
        remaining = np.full(n_sim, n, dtype=np.int64)
        need = np.full(n_sim, half, dtype=np.int64)
        taken = np.empty_like(cells)
        last = cells.shape[1] - 1
        for c in range(cells.shape[1]):
            good = cells[:, c]
            remaining -= good
            x = need if c == last else rng.hypergeometric(good, remaining, need)
            taken[:, c] = x
            need = need - x
        cells = np.concatenate([cells - taken, taken], axis=1)  # new bit: in this training set
    bits = (np.arange(cells.shape[1])[:, None] >> np.arange(m)[None, :]) & 1  # (cells, m)
    ii, jj = np.triu_indices(m, 1)
    both = (bits[:, ii] & bits[:, jj]).astype(np.int64)  # (cells, pairs)
    overlaps: np.ndarray = cells @ both
    return overlaps


def overlap_quantile(
    n: int,
    m: int,
    alpha: float,
    *,
    method: Literal["independent", "simulate"] = "independent",
    n_sim: int = 20_000,
    random_state: SimulationSeed = None,
) -> int | float:
    """The tabulated quantile of ``Z_max``: the largest ``k`` with ``P(Z_max > k) > α``.

    This is the reading that reproduces Wang, Li & Li (2015)'s Tables 5–8 (``m = 2, 3, 7,
    11``; ``α = 0.2`` and ``0.1``) row for row — one less than the usual
    quantile ``min{k : P(Z_max > k) ≤ α}`` (docs/methods.md). Two printed
    entries of Table 7 (``n = 44, 48``, ``k(0.1) = 3``) are misprints; this
    function returns the correct 4.

    Parameters
    ----------
    n : int
        Number of records.
    m : int
        Number of replications (``m = 2`` is a single pair, Wang, Li & Li (2015) Table 5).
    alpha : float
        Tail probability, ``0 < α < 1``.
    method, n_sim, random_state
        As in :func:`zmax_sf`.

    Returns
    -------
    int or float
        An ``int`` when ``Z`` takes integer values (``n`` a multiple of 4);
        ``-1`` when even ``P(Z_max > 0) ≤ α``.

    Examples
    --------
    >>> [overlap_quantile(n, 7, 0.1) for n in (40, 44, 48, 52)]
    [3, 4, 4, 4]
    >>> overlap_quantile(1024, 11, 0.2), overlap_quantile(1024, 11, 0.1)
    (22, 24)
    """
    alpha = check_alpha(alpha)
    dist = overlap_distribution(n)
    sf = np.asarray(
        zmax_sf(dist.values, n, m, method=method, n_sim=n_sim, random_state=random_state)
    )
    above = np.flatnonzero(sf > alpha)
    if above.size == 0:
        return -1
    value = float(dist.values[above[-1]])
    return int(value) if value.is_integer() else value
