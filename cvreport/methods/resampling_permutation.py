"""The paired permutation test's null distribution and p-value.

Each record's (or cluster's) two predictions are swapped with probability ½
within its validation fold, with the swaps :func:`scipy.stats.permutation_test`
draws for the same generator (Noreen 1989; Yeh 2000); when every swap pattern
fits in the resamples asked for, scipy enumerates them.
:mod:`cvreport.methods.resampling` turns them into the public test.

References
----------
Noreen, E. W. (1989). Computer-Intensive Methods for Testing Hypotheses. Wiley.
Yeh, A. (2000). More accurate tests for the statistical significance of result
differences. COLING 2000:947–953.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from cvreport.methods._weighted import rng_keyword
from cvreport.methods.resampling_draws import kept_units, prefetched

if TYPE_CHECKING:
    from cvreport.methods._weighted import Prepared

__all__ = ["enumerated_permutation", "permutation_distribution", "permutation_pvalue"]


def permutation_pvalue(null: np.ndarray, observed: float, alternative: str, exact: bool) -> float:
    """scipy.stats.permutation_test's p-value, with its tolerance for rounding.

    One-sided: ``(#{δ_perm ≥ δ − γ} + 1) / (B + 1)`` (``≤ δ + γ`` for "less"; no
    +1 when every swap pattern was enumerated), γ = 100·ε·|δ|; two-sided: twice
    the smaller one-sided p-value, at most 1.
    """
    adjustment = 0 if exact else 1
    gamma = abs(100 * np.finfo(np.float64).eps * observed)
    size = null.shape[0] + adjustment

    def less() -> float:
        return (np.count_nonzero(null <= observed + gamma) + adjustment) / size

    def greater() -> float:
        return (np.count_nonzero(null >= observed - gamma) + adjustment) / size

    if alternative == "less":
        p = less()
    elif alternative == "greater":
        p = greater()
    else:
        p = 2 * min(less(), greater())
    return float(min(max(p, 0.0), 1.0))


def permutation_distribution(
    prep: Prepared, rng: np.random.Generator, n_resamples: int, bar: Any
) -> np.ndarray:
    """The B differences δ_perm under random swaps of A and B within records (or clusters).

    δ_perm is the mean over folds of the per-fold differences; ``bar`` (or None)
    is advanced by the resamples done.
    """
    paired = prep.paired
    bounds = np.searchsorted(paired.fold, np.arange(paired.n_folds + 1))
    plans = []
    for f, fold_units in enumerate(prep.fold_units):
        units = prep.units[bounds[f] : bounds[f + 1]]
        plan = paired.fold_records(f).swap_plan(
            np.searchsorted(fold_units, units), fold_units.shape[0]
        )
        if plan is None:
            plans.append(None)
            continue
        columns: np.ndarray | slice = fold_units[plan.columns]
        if columns.shape[0] and columns[-1] - columns[0] + 1 == columns.shape[0]:
            columns = slice(int(columns[0]), int(columns[-1]) + 1)  # a range: no gather
        plans.append((columns, plan))
    per_fold = np.empty((n_resamples, paired.n_folds))
    for first, kept in prefetched(kept_units(rng, prep.n_units, n_resamples)):
        rows = slice(first, first + kept.shape[0])
        if any(plan is None for plan in plans):
            swap = kept[:, prep.units] == 0
            per_fold[rows] = paired.swapped_per_fold(swap)
        else:
            for f, (columns, plan) in enumerate(plans):
                # einsum, not BLAS: exact sums of integers, no thread pool beside the draws
                sums = np.einsum("ij,jq->iq", kept[:, columns], plan.delta)
                per_fold[rows, f] = plan.finish(sums)
        if bar is not None:
            bar.update(kept.shape[0])
    return per_fold.mean(axis=1)


def enumerated_permutation(
    prep: Prepared, rng: Any, n_resamples: int, alternative: str
) -> tuple[np.ndarray, float]:
    """Every swap pattern, enumerated by scipy.stats.permutation_test (2ⁿ ≤ n_resamples)."""
    n_units = prep.n_units

    def statistic(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        if x.ndim == 1:
            return np.asarray(prep.paired.observed())
        return prep.paired.swapped((x >= n_units)[:, prep.units])

    units = np.arange(n_units)
    res = stats.permutation_test(
        (units, units + n_units),
        statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        alternative=alternative,
        axis=-1,
        **{rng_keyword(): rng},
    )
    return np.asarray(res.null_distribution, dtype=np.float64), float(res.pvalue)
