"""A metric difference of two models under many record weightings at once.

A bootstrap resample is a weighting of the records (how often each was drawn);
a jackknife sample, a weighting with one record or cluster left out; a
permutation swaps the two models' predictions on some records. The
:class:`PairedRecords` below computes ``metric(A) − metric(B)`` averaged over
the folds for a batch of such weightings in a few array passes per metric
family, so that 10,000 resamples of 100,000 records take seconds:

* record means: one matrix product ``W @ (values_A − values_B)``;
* confusion-count metrics: one weighted ``bincount`` into per-row confusion matrices;
* binary ROC AUC: each model's records are sorted once; a weighting then needs one
  cumulative sum of the negatives' weights in that order
  (U = Σ positive weight × negative weight below, ties counted ½);
* anything else (average precision, one-vs-rest AUC, a user's function): the
  weighted records are expanded row by row and computed as groups.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from cvreport.data.metrics import (
    MetricSpec,
    confusion_counts,
    confusion_metric,
    grouped_auc,
    grouped_metric_values,
    order_keys,
    record_values,
    resolve_metric,
)
from cvreport.data.predictions import positive_code
from cvreport.errors import DataError

__all__ = [
    "PairedRecords",
    "Prepared",
    "default_batch",
    "prepare_pair",
    "progress_bar",
    "rng_keyword",
    "threaded",
]


@dataclass(frozen=True)
class _SortedFold:
    negatives: np.ndarray  # positions of the fold's negatives, by increasing score
    positives: np.ndarray  # positions of its positives
    below: np.ndarray  # for each positive: negatives with a lower score
    not_above: np.ndarray  # for each positive: negatives with a lower or equal score
    ties: bool  # whether a positive ties with a negative


@dataclass
class PairedRecords:
    """Two models' predictions on the same records, grouped in folds.

    Parameters
    ----------
    spec : MetricSpec
    truth : numpy.ndarray
        Class codes, ``(n,)``.
    x_a, x_b : numpy.ndarray
        What the metric reads of each model: class codes, or scores ``(n,)``/``(n, C)``.
    n_classes, positive : int
    fold : numpy.ndarray
        Fold code of each record (``0 … F − 1``); records of a fold are contiguous.
    labels : list, optional
        Class labels (for a user's function).
    """

    spec: MetricSpec
    truth: np.ndarray
    x_a: np.ndarray
    x_b: np.ndarray
    n_classes: int
    positive: int
    fold: np.ndarray
    labels: list[Any] | None = None
    _sorted: dict[tuple[int, str], _SortedFold] = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.truth.shape[0])

    @property
    def n_folds(self) -> int:
        """Number of folds."""
        return int(self.fold.max()) + 1 if self.n else 0

    def _bounds(self) -> np.ndarray:
        return np.searchsorted(self.fold, np.arange(self.n_folds + 1))

    # -- the statistic -------------------------------------------------------
    def observed(self) -> float:
        """``metric(A) − metric(B)`` on the data, averaged over folds."""
        return float(self.weighted(np.ones((1, self.n)))[0])

    def metric_values(self) -> tuple[float, float]:
        """The metric of A and of B (averaged over folds)."""
        ones = np.ones((1, self.n))
        a = self._per_fold(ones, self.x_a).mean()
        b = self._per_fold(ones, self.x_b).mean()
        return float(a), float(b)

    def weighted(self, weights: np.ndarray) -> np.ndarray:
        """``(B,)`` differences A − B (mean over folds) under each row of ``weights`` ``(B, n)``."""
        if self.spec.name == "roc_auc" and self.x_a.ndim == 1:
            bounds = self._bounds()
            diff = np.empty((weights.shape[0], self.n_folds))
            for f in range(self.n_folds):
                w_pos = self._positive_weights(weights, f, bounds)  # shared by both models
                diff[:, f] = self._weighted_auc(
                    weights, w_pos, self.x_a, f, bounds
                ) - self._weighted_auc(weights, w_pos, self.x_b, f, bounds)
            return diff.mean(axis=1)
        diff = self._per_fold(weights, self.x_a) - self._per_fold(weights, self.x_b)
        return diff.mean(axis=1)

    def swapped(self, swap: np.ndarray) -> np.ndarray:
        """``(B,)`` differences with A's and B's predictions exchanged where ``swap`` ``(B, n)``."""
        spec = self.spec
        if spec.kind == "record":
            d = self._record(self.x_a) - self._record(self.x_b)
            signed = np.where(swap, -d, d)
            return self._fold_means(signed)
        side = swap if self.x_a.ndim == 1 else swap[..., None]
        first = np.where(side, self.x_b, self.x_a)
        second = np.where(side, self.x_a, self.x_b)
        return (self._rows(first) - self._rows(second)).mean(axis=1)

    # -- internals -------------------------------------------------------------
    def _record(self, x: np.ndarray) -> np.ndarray:
        if self.spec.needs == "score":
            return record_values(self.spec, self.truth, scores=x, positive=self.positive)
        return record_values(self.spec, self.truth, prediction=x, positive=self.positive)

    def _fold_means(self, values: np.ndarray) -> np.ndarray:
        bounds = self._bounds()
        sums = np.add.reduceat(values, bounds[:-1], axis=1)
        return (sums / np.diff(bounds)).mean(axis=1)

    def _per_fold(self, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``(B, F)`` metric of the model reading ``x`` under each weighting."""
        spec = self.spec
        b = weights.shape[0]
        n_folds = self.n_folds
        bounds = self._bounds()
        if spec.kind == "record":
            values = self._record(x)
            total = np.add.reduceat(weights * values, bounds[:-1], axis=1)
            return total / np.add.reduceat(weights, bounds[:-1], axis=1)
        if spec.kind == "confusion":
            c = self.n_classes
            cells = self.truth * c + x
            groups = np.arange(b)[:, None] * n_folds + self.fold
            flat = (groups * (c * c) + cells).ravel()
            counts = np.bincount(flat, weights=weights.ravel(), minlength=b * n_folds * c * c)
            counts = counts.reshape(b, n_folds, c, c)
            return confusion_metric(spec.name, counts, self.positive)
        if spec.name == "roc_auc" and x.ndim == 1:
            out = np.empty((b, n_folds))
            for f in range(n_folds):
                positives = self._positive_weights(weights, f, bounds)
                out[:, f] = self._weighted_auc(weights, positives, x, f, bounds)
            return out
        return self._expanded(weights, x)

    def _positive_weights(self, weights: np.ndarray, f: int, bounds: np.ndarray) -> np.ndarray:
        """The weights of fold ``f``'s positives (in record order, the same for both models)."""
        lo, hi = bounds[f], bounds[f + 1]
        return np.take(weights, lo + np.flatnonzero(self.truth[lo:hi] == self.positive), axis=1)

    def _weighted_auc(
        self,
        weights: np.ndarray,
        w_pos: np.ndarray,
        x: np.ndarray,
        f: int,
        bounds: np.ndarray,
    ) -> np.ndarray:
        """Weighted Mann–Whitney AUC: each positive's weight times the weight of negatives below.

        The negatives are sorted once; a weighting then needs one cumulative sum of
        their weights, read at each positive's place among them (ties count ½).
        """
        key = (f, "a" if x is self.x_a else "b")
        if key not in self._sorted:
            lo, hi = bounds[f], bounds[f + 1]
            keys = order_keys(x[lo:hi])
            is_pos = self.truth[lo:hi] == self.positive
            negatives = np.flatnonzero(~is_pos)
            negatives = negatives[np.argsort(keys[negatives], kind="stable")]
            negative_keys = keys[negatives]
            positives = np.flatnonzero(is_pos)
            below = np.searchsorted(negative_keys, keys[positives], side="left")
            not_above = np.searchsorted(negative_keys, keys[positives], side="right")
            self._sorted[key] = _SortedFold(
                negatives=negatives + lo,
                positives=positives + lo,
                below=below,
                not_above=not_above,
                ties=bool(np.any(below != not_above)),
            )
        fold = self._sorted[key]
        w_neg = np.take(weights, fold.negatives, axis=1)
        cumulative = np.zeros((weights.shape[0], w_neg.shape[1] + 1), dtype=w_neg.dtype)
        np.cumsum(w_neg, axis=1, out=cumulative[:, 1:])
        credit = np.take(cumulative, fold.below, axis=1)
        if fold.ties:
            credit += np.take(cumulative, fold.not_above, axis=1)
        # integer weights sum exactly in int64; real weights in float64
        total = np.int64 if w_pos.dtype.kind in "iu" else np.float64
        u = np.einsum("ij,ij->i", w_pos, credit, dtype=total).astype(np.float64)
        if fold.ties:
            u /= 2.0
        n_pos = w_pos.sum(axis=1).astype(np.float64)
        n_neg = cumulative[:, -1].astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where((n_pos > 0) & (n_neg > 0), u / (n_pos * n_neg), np.nan)

    def _expanded(self, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
        counts = np.rint(weights).astype(np.int64)
        if not np.array_equal(counts, weights):
            raise DataError(f"{self.spec.name} takes integer record weights only")
        b, n_folds = weights.shape[0], self.n_folds
        rows = np.repeat(np.arange(b), counts.sum(axis=1))
        records = np.repeat(np.tile(np.arange(self.n), b), counts.ravel())
        groups = rows * n_folds + self.fold[records]
        values = grouped_metric_values(
            self.spec,
            groups,
            b * n_folds,
            self.truth[records],
            self.n_classes,
            prediction=x[records] if self.spec.needs == "prediction" else None,
            scores=x[records] if self.spec.needs == "score" else None,
            positive=self.positive,
            labels=self.labels,
        )
        return values.reshape(b, n_folds)

    def _rows(self, x_rows: np.ndarray) -> np.ndarray:
        """``(B, F)`` metric of per-row predictions ``x_rows`` ``(B, n[, C])`` (permutations)."""
        b, n_folds = x_rows.shape[0], self.n_folds
        spec = self.spec
        groups = (np.arange(b)[:, None] * n_folds + self.fold).ravel()
        truth = np.broadcast_to(self.truth, (b, self.n)).ravel()
        flat = x_rows.reshape(b * self.n, *x_rows.shape[2:])
        if spec.kind == "confusion":
            counts = confusion_counts(groups, b * n_folds, truth, flat, self.n_classes)
            return confusion_metric(spec.name, counts, self.positive).reshape(b, n_folds)
        if spec.name == "roc_auc" and flat.ndim == 1:
            return grouped_auc(groups, b * n_folds, truth == self.positive, flat).reshape(
                b, n_folds
            )
        values = grouped_metric_values(
            spec,
            groups,
            b * n_folds,
            truth,
            self.n_classes,
            prediction=flat if spec.needs == "prediction" else None,
            scores=flat if spec.needs == "score" else None,
            positive=self.positive,
            labels=self.labels,
        )
        return values.reshape(b, n_folds)

    # -- leave-one-unit-out (jackknife) ------------------------------------------
    def jackknife(self, units: np.ndarray, n_units: int) -> np.ndarray:
        """``(n_units,)`` differences with each unit (record or cluster) left out; one fold only.

        Closed forms: record means and confusion counts subtract the unit's share;
        the AUC subtracts the unit's pairs through DeLong's structural components.
        Other metrics recompute every leave-one-out sample (n² work).
        """
        spec = self.spec
        if spec.kind == "record":
            d = self._record(self.x_a) - self._record(self.x_b)
            sums = np.bincount(units, weights=d, minlength=n_units)
            sizes = np.bincount(units, minlength=n_units)
            return (d.sum() - sums) / (self.n - sizes)
        if spec.kind == "confusion":
            c = self.n_classes
            left_out = []
            for x in (self.x_a, self.x_b):
                per_unit = confusion_counts(units, n_units, self.truth, x, c)
                left_out.append(
                    confusion_metric(spec.name, per_unit.sum(axis=0) - per_unit, self.positive)
                )
            return left_out[0] - left_out[1]
        if spec.name == "roc_auc" and self.x_a.ndim == 1:
            return self._auc_jackknife(self.x_a, units, n_units) - self._auc_jackknife(
                self.x_b, units, n_units
            )
        if n_units > 3000:
            raise DataError(
                f"a BCa interval of {spec.name} needs {n_units} leave-one-out recomputations of "
                "the whole sample; use method='percentile' for this metric and sample size"
            )
        out = np.empty(n_units)
        for start in range(0, n_units, 64):
            stop = min(n_units, start + 64)
            w = np.ones((stop - start, self.n))
            w[units[None, :] == np.arange(start, stop)[:, None]] = 0.0
            out[start:stop] = self.weighted(w)
        return out

    def _auc_jackknife(self, x: np.ndarray, units: np.ndarray, n_units: int) -> np.ndarray:
        from cvreport.methods.delong import delong_components

        positive = self.truth == self.positive
        auc, v10, v01 = delong_components(positive, x[None, :])
        m, n = int(positive.sum()), int((~positive).sum())
        u_total = auc[0] * m * n
        credit = np.empty(self.n)
        credit[positive] = v10[0] * n
        credit[~positive] = v01[0] * m
        removed = np.bincount(units, weights=credit, minlength=n_units)
        pos_u = np.bincount(units, weights=positive, minlength=n_units)
        neg_u = np.bincount(units, weights=~positive, minlength=n_units)
        within = grouped_auc(units, n_units, positive, x)
        within = np.where(np.isnan(within), 0.0, within) * pos_u * neg_u
        with np.errstate(invalid="ignore", divide="ignore"):
            return (u_total - removed + within) / ((m - pos_u) * (n - neg_u))


# ---------------------------------------------------------------------------- inputs of the tests


@dataclasses.dataclass(frozen=True)
class Prepared:
    paired: PairedRecords
    units: np.ndarray  # unit code of each record (record or cluster), global
    fold_units: list[np.ndarray]  # per fold: the global unit codes of that fold, sorted
    n_units: int
    clustered: bool


def _encode(truth: ArrayLike, a: ArrayLike, b: ArrayLike, spec: MetricSpec, pos_label: Any):
    y = np.asarray(truth)
    if spec.needs == "prediction":
        stacked = pd.Series(np.concatenate([y, np.asarray(a), np.asarray(b)]))
        codes, classes = pd.factorize(stacked, sort=True)
        n = y.shape[0]
        return codes[:n], codes[n : 2 * n], codes[2 * n :], pd.Index(classes)
    codes, classes = pd.factorize(pd.Series(y), sort=True)
    xa, xb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if not (np.isfinite(xa).all() and np.isfinite(xb).all()):
        raise DataError("the scores hold NaN or infinite values; every record needs a score")
    return codes, xa, xb, pd.Index(classes)


def prepare_pair(
    truth: ArrayLike,
    a: ArrayLike,
    b: ArrayLike,
    metric: Any,
    pos_label: Any,
    folds: ArrayLike | None,
    clusters: ArrayLike | None,
) -> Prepared:
    spec = resolve_metric(metric)
    t, xa, xb, classes = _encode(truth, a, b, spec, pos_label)
    n = t.shape[0]
    if xa.shape[0] != n or xb.shape[0] != n:
        raise DataError(
            f"truth, a and b must describe the same records: lengths {n}, {xa.shape[0]}, "
            f"{xb.shape[0]}"
        )
    if n < 2:
        raise DataError(f"a resampling test needs at least 2 records, got {n}")
    fold_codes = (
        np.zeros(n, dtype=np.int64)
        if folds is None
        else pd.factorize(pd.Series(np.asarray(folds)), sort=True)[0]
    )
    order = np.argsort(fold_codes, kind="stable")
    t, xa, xb, fold_codes = t[order], xa[order], xb[order], fold_codes[order]
    if clusters is None:
        units = np.arange(n)
    else:
        keyed = pd.Series(np.asarray(clusters)[order])
        if keyed.isna().any():
            raise DataError("the cluster labels hold missing values; give every record a cluster")
        units = pd.factorize(pd.Series(list(zip(fold_codes, keyed))), sort=False)[0]
    n_units = int(units.max()) + 1
    paired = PairedRecords(
        spec=spec,
        truth=t,
        x_a=xa,
        x_b=xb,
        n_classes=len(classes),
        positive=positive_code(classes, pos_label),
        fold=fold_codes,
        labels=list(classes),
    )
    bounds = np.searchsorted(fold_codes, np.arange(paired.n_folds + 1))
    fold_units = [np.unique(units[bounds[f] : bounds[f + 1]]) for f in range(paired.n_folds)]
    return Prepared(paired, units, fold_units, n_units, clusters is not None)


def rng_keyword() -> str:
    return "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"


def progress_bar(total: int, enabled: bool | None, work: float, what: str) -> Any:
    if enabled is False or (enabled is None and work < 5e8):
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=what, unit="resample")


def threaded(function: Callable[[np.ndarray], np.ndarray], rows: np.ndarray) -> np.ndarray:
    """Apply a row-wise numpy function on two threads when the batch is large."""
    if rows.shape[0] < 4 or rows.size < 1_000_000:
        return function(rows)
    halves = np.array_split(np.arange(rows.shape[0]), 2)
    with ThreadPoolExecutor(2) as pool:
        parts = list(pool.map(lambda index: function(rows[index]), halves))
    return np.concatenate(parts)


def default_batch(n: int, n_resamples: int) -> int:
    # arrays of (batch, n) stay under glibc's 32 MB mmap threshold, so each batch reuses
    # the memory of the last instead of faulting in fresh pages
    return int(max(1, min(n_resamples, 3_000_000 // max(n, 1))))
