"""The paired bootstrap's resampled differences, their p-value and BCa's parameters.

The resamples are :func:`scipy.stats.bootstrap`'s for the same generator (see
:mod:`cvreport.methods.resampling_draws`), records drawn within each validation
fold and δ* the mean over folds of the per-fold differences. The p-value centres
the bootstrap distribution on H0 (Berg-Kirkpatrick, Burkett & Klein 2012, with
the +1 of Davison & Hinkley 1997); BCa's bias correction and acceleration are
Efron's (1987), computed as scipy computes them.
:mod:`cvreport.methods.resampling` turns them into the public test.

References
----------
Berg-Kirkpatrick, T., Burkett, D. and Klein, D. (2012). An empirical
investigation of statistical significance in NLP. EMNLP-CoNLL 2012:995–1005.
Davison, A. C. and Hinkley, D. V. (1997). Bootstrap Methods and their
Application. Cambridge University Press.
Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397):171–185.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special

from cvreport.methods.resampling_draws import bootstrap_draws, prefetched

if TYPE_CHECKING:
    from cvreport.methods._weighted import Prepared

__all__ = ["bca_parameters", "bootstrap_distribution", "bootstrap_pvalue"]


def bootstrap_pvalue(dist: np.ndarray, observed: float, alternative: str) -> float:
    """The p-value of the bootstrap distribution ``dist`` centred on H0 (δ = 0).

    ``(1 + #{|δ* − δ| ≥ |δ|}) / (B + 1)`` two-sided, ``(1 + #{δ* − δ ≥ δ}) / (B + 1)``
    for "greater" (≤ for "less"), at most 1 (Berg-Kirkpatrick et al. 2012; the +1
    of Davison & Hinkley 1997 keeps p > 0).

    >>> bootstrap_pvalue(np.array([0.1, 0.3, 0.2, 0.5]), 0.2, "two-sided")
    0.4
    """
    centred = dist - observed
    if alternative == "two-sided":
        count = np.count_nonzero(np.abs(centred) >= abs(observed) * (1 - 1e-12))
    elif alternative == "greater":
        count = np.count_nonzero(centred >= observed * (1 - 1e-12))
    else:
        count = np.count_nonzero(centred <= observed * (1 - 1e-12))
    return float(min(1.0, (1 + count) / (dist.shape[0] + 1)))


def bca_parameters(dist: np.ndarray, observed: float, jackknife: np.ndarray) -> tuple[float, float]:
    """Efron's z0 and acceleration, as scipy.stats.bootstrap computes them.

    z0 = Φ⁻¹((#{δ* < δ} + #{δ* ≤ δ}) / 2B): resamples equal to δ count ½. The
    differences are computed so that resamples whose δ* equals δ as a number
    equal it as a float too (the AUC difference is one rounding of
    (U_A − U_B)/(mn)), so ties are ties here as in scipy's exact statistic.
    """
    b = dist.shape[0]
    below = np.count_nonzero(dist < observed)
    not_above = np.count_nonzero(dist <= observed)
    z0 = float(special.ndtri((below + not_above) / (2 * b)))
    n = float(jackknife.shape[0])
    u = (n - 1) * (jackknife.mean() - jackknife)
    denominator = (np.sum(u**2) / n**2) ** 1.5
    a_hat = float(np.sum(u**3) / n**3 / denominator / 6.0) if denominator > 0 else 0.0
    return z0, a_hat


def bootstrap_distribution(
    prep: Prepared,
    rng: np.random.Generator,
    n_resamples: int,
    batch: int | None,
    bar: Any,
) -> np.ndarray:
    """The B resampled differences δ*: records (or clusters) drawn within each fold.

    δ* is the mean over folds of the per-fold differences; ``bar`` (or None) is
    advanced by the resamples done.
    """
    paired = prep.paired
    bounds = np.searchsorted(paired.fold, np.arange(paired.n_folds + 1))
    per_fold = np.empty((n_resamples, paired.n_folds))
    sizes = [units.shape[0] for units in prep.fold_units]
    for first, f, draws in prefetched(bootstrap_draws(rng, sizes, n_resamples, batch)):
        records = paired.fold_records(f)
        if prep.clustered:
            local = np.searchsorted(prep.fold_units[f], prep.units[bounds[f] : bounds[f + 1]])
            counts = np.stack([np.bincount(row, minlength=sizes[f]) for row in draws])
            values = records.weighted(counts[:, local])
        else:
            values = records.drawn(draws)
        per_fold[first : first + draws.shape[0], f] = values
        if bar is not None and f == paired.n_folds - 1:
            bar.update(draws.shape[0])
    return per_fold.mean(axis=1)
