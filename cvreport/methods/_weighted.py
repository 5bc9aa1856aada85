"""A metric difference of two models under many record weightings at once.

A bootstrap resample is a weighting of the records (how often each was drawn);
a jackknife sample, a weighting with one record or cluster left out; a
permutation swaps the two models' predictions on some records. The
:class:`PairedRecords` below computes ``metric(A) − metric(B)`` averaged over
the folds for a batch of such weightings in a few array passes per metric
family, so that 10,000 resamples of 100,000 records take seconds:

* record means: one matrix product ``W @ (values_A − values_B)``;
* confusion-count metrics: one weighted ``bincount`` into per-row confusion matrices;
* binary ROC AUC: each model's records are sorted once
  (:class:`~cvreport.data.auc.AUCRanking`); a weighting then needs one
  cumulative sum of the negatives' weights in that order
  (U = Σ positive weight × negative weight below, ties counted ½);
* anything else (average precision, one-vs-rest AUC, a user's function): the
  weighted records are expanded row by row and computed as groups.

Bootstrap draws of one fold (:meth:`PairedRecords.drawn`) are computed one
resample at a time, so that the counts and sums of a resample stay in the
processor's cache: a record mean is one gather of the drawn records'
differences; a confusion-count metric one ``bincount`` of the drawn records'
(truth, A, B) patterns; the binary AUC one ``bincount`` of the draws and one
cumulative sum per model.

Swaps of the permutation test are linear for these metrics
(:meth:`PairedRecords.swap_plan`): with σ_u = ±1 whether unit u keeps or
swaps its two predictions, a record mean's difference is Σ σ_u d_u / n, the
AUC difference Σ σ_u c_u / (4mn) with integer c_u (each positive's and each
negative's share of the pairs, see :func:`auc_swap_coefficients`), and each
confusion count of A (of B) its value plus (minus) the swapped units' count
changes; a batch of swaps is then one matrix product.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from cvreport.data.auc import AUCRanking, grouped_auc
from cvreport.data.metrics import (
    MetricSpec,
    check_predictions,
    confusion_counts,
    confusion_metric,
    grouped_metric_values,
    record_values,
    resolve_metric,
    warn_hard_scores,
)
from cvreport.data.predictions import positive_code, refuse_labels_of_two_kinds
from cvreport.errors import DataError
from cvreport.methods._common import refuse_masked
from cvreport.methods.delong import delong_components

__all__ = [
    "PairedRecords",
    "Prepared",
    "SwapPlan",
    "auc_swap_coefficients",
    "default_batch",
    "prepare_pair",
    "progress_bar",
    "rng_keyword",
]


@dataclass(frozen=True)
class SwapPlan:
    """Swaps of the permutation test as one matrix product (see the module's notes).

    ``finish(kept @ delta)`` is the ``(B,)`` difference of the fold under swaps,
    where ``kept`` ``(B, len(columns))`` is 1 where a unit of ``columns`` keeps
    its predictions and 0 where they are swapped.
    """

    columns: np.ndarray  # the units whose swap changes the statistic
    delta: np.ndarray  # (len(columns), q) their coefficients
    finish: Callable[[np.ndarray], np.ndarray]


def _two_sided_ranks(sorted_values: np.ndarray, x: np.ndarray) -> np.ndarray:
    """2 × (#values below x + ½ #values equal to x), an integer, for each x."""
    return np.searchsorted(sorted_values, x, side="left") + np.searchsorted(
        sorted_values, x, side="right"
    )


def auc_swap_coefficients(
    positive: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, int]:
    """Integer ``c`` and denominator ``D`` with AUC(A) − AUC(B) = Σ σ_k c_k / D under swaps.

    With σ_k = +1 where record k keeps its two scores and −1 where A's and B's
    are exchanged, ψ the Mann–Whitney kernel (ties ½), α_ij = ψ(a_i, a_j) −
    ψ(b_i, b_j) and β_ij = ψ(a_i, b_j) − ψ(b_i, a_j) for a positive i and a
    negative j, the pair's contribution is α_ij (σ_i + σ_j)/2 + β_ij (σ_i − σ_j)/2;
    so the difference is linear in σ: c_i = 2 Σ_j (α_ij + β_ij),
    c_j = 2 Σ_i (α_ij − β_ij), D = 4mn. Computed from four sorted arrays.

    Examples
    --------
    >>> positive = np.array([True, True, False, False])
    >>> a, b = np.array([0.9, 0.4, 0.5, 0.1]), np.array([0.8, 0.7, 0.2, 0.3])
    >>> c, d = auc_swap_coefficients(positive, a, b)
    >>> float(c.sum() / d)  # AUC(A) − AUC(B) = 0.75 − 1.0
    -0.25
    """
    a_pos, b_pos = np.sort(a[positive]), np.sort(b[positive])
    a_neg, b_neg = np.sort(a[~positive]), np.sort(b[~positive])
    c = np.empty(a.shape[0], dtype=np.int64)
    xa, xb = a[positive], b[positive]
    c[positive] = (
        _two_sided_ranks(a_neg, xa)
        - _two_sided_ranks(b_neg, xb)
        + _two_sided_ranks(b_neg, xa)
        - _two_sided_ranks(a_neg, xb)
    )
    ya, yb = a[~positive], b[~positive]
    c[~positive] = (
        _two_sided_ranks(b_pos, yb)
        - _two_sided_ranks(a_pos, ya)
        + _two_sided_ranks(a_pos, yb)
        - _two_sided_ranks(b_pos, ya)
    )
    return c, 4 * a_pos.shape[0] * a_neg.shape[0]


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
    _cache: dict[tuple[int, str], Any] = field(default_factory=dict, repr=False)

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
                u2_a, pairs = self._sorted_fold(f, self.x_a).doubled_u(weights, w_pos)
                u2_b, _ = self._sorted_fold(f, self.x_b).doubled_u(weights, w_pos)
                # one rounding of (U_A − U_B) / (m n): differences equal as numbers are equal
                with np.errstate(invalid="ignore", divide="ignore"):
                    diff[:, f] = np.where(pairs > 0, (u2_a - u2_b) / (2.0 * pairs), np.nan)
            return diff.mean(axis=1)
        diff = self._per_fold(weights, self.x_a) - self._per_fold(weights, self.x_b)
        return diff.mean(axis=1)

    def swapped(self, swap: np.ndarray) -> np.ndarray:
        """``(B,)`` differences with A's and B's predictions exchanged where ``swap`` ``(B, n)``."""
        return self.swapped_per_fold(swap).mean(axis=1)

    def swapped_per_fold(self, swap: np.ndarray) -> np.ndarray:
        """``(B, F)`` differences of each fold with predictions exchanged where ``swap``."""
        spec = self.spec
        if spec.kind == "record":
            d = self._record(self.x_a) - self._record(self.x_b)
            signed = np.where(swap, -d, d)
            bounds = self._bounds()
            return np.add.reduceat(signed, bounds[:-1], axis=1) / np.diff(bounds)
        side = swap if self.x_a.ndim == 1 else swap[..., None]
        first = np.where(side, self.x_b, self.x_a)
        second = np.where(side, self.x_a, self.x_b)
        return self._rows(first) - self._rows(second)

    # -- one fold: bootstrap draws and swap plans --------------------------------
    def fold_records(self, f: int) -> PairedRecords:
        """The records of fold ``f`` alone (cached), as a one-fold :class:`PairedRecords`."""
        key = (f, "fold")
        if key not in self._cache:
            lo, hi = self._bounds()[f : f + 2]
            self._cache[key] = PairedRecords(
                spec=self.spec,
                truth=self.truth[lo:hi],
                x_a=self.x_a[lo:hi],
                x_b=self.x_b[lo:hi],
                n_classes=self.n_classes,
                positive=self.positive,
                fold=np.zeros(hi - lo, dtype=np.int64),
                labels=self.labels,
            )
        return self._cache[key]

    def drawn(self, draws: np.ndarray) -> np.ndarray:
        """``(B,)`` differences A − B of a one-fold table under bootstrap draws ``(B, n)``.

        Row ``r`` of ``draws`` holds the positions of the records of resample ``r``
        (drawn with replacement); each row is computed on its own so that its
        counts stay in the processor's cache.
        """
        spec, n = self.spec, self.n
        rows = draws.shape[0]
        if spec.kind == "record":
            d = self._cached("difference", lambda: self._record(self.x_a) - self._record(self.x_b))
            return np.take(d, draws).sum(axis=1) / n
        if spec.kind == "confusion":
            codes, cells_a, cells_b = self._cached("patterns", self._patterns)
            size = cells_a.shape[0]
            counts = np.empty((rows, size))
            for r in range(rows):
                counts[r] = np.bincount(np.take(codes, draws[r]), minlength=size)
            c = self.n_classes
            first = confusion_metric(
                spec.name, (counts @ cells_a).reshape(rows, c, c), self.positive
            )
            second = confusion_metric(
                spec.name, (counts @ cells_b).reshape(rows, c, c), self.positive
            )
            return first - second
        if spec.name == "roc_auc" and self.x_a.ndim == 1:
            sorted_a, sorted_b = self._sorted_fold(0, self.x_a), self._sorted_fold(0, self.x_b)
            out = np.empty(rows)
            for r in range(rows):
                w = np.bincount(draws[r], minlength=n)
                w_pos = np.take(w, sorted_a.positives)  # the same records for both models
                u2_a, pairs = sorted_a.doubled_u(w, w_pos)
                u2_b, _ = sorted_b.doubled_u(w, w_pos)
                # one rounding of (U_A − U_B) / (m n): differences equal as numbers are equal
                out[r] = (u2_a - u2_b) / (2.0 * pairs) if pairs else np.nan
            return out
        weights = np.stack([np.bincount(row, minlength=n) for row in draws])
        return self.weighted(weights)

    def swap_plan(self, units: np.ndarray, n_units: int) -> SwapPlan | None:
        """The swaps of a one-fold table as one matrix product, or None for other metrics.

        ``units`` gives each record's unit (0 … ``n_units`` − 1): a unit's records
        swap together.
        """
        spec = self.spec
        if spec.kind == "record" or (spec.name == "roc_auc" and self.x_a.ndim == 1):
            if spec.kind == "record":
                per_record = self._record(self.x_a) - self._record(self.x_b)
                denominator: float = float(self.n)
            else:
                positive = self.truth == self.positive
                if positive.all() or not positive.any():
                    return None
                integer, d = auc_swap_coefficients(positive, self.x_a, self.x_b)
                per_record, denominator = integer.astype(np.float64), float(d)
            coefficients = np.bincount(units, weights=per_record, minlength=n_units)
            total = float(coefficients.sum())
            columns = np.flatnonzero(coefficients)

            def finish_linear(kept_sums: np.ndarray) -> np.ndarray:
                return (2.0 * kept_sums[:, 0] - total) / denominator

            return SwapPlan(columns, coefficients[columns, None], finish_linear)
        if spec.kind != "confusion":
            return None
        c = self.n_classes
        cell_a = self.truth * c + self.x_a
        cell_b = self.truth * c + self.x_b
        base_a = np.bincount(cell_a, minlength=c * c).astype(np.float64)
        base_b = np.bincount(cell_b, minlength=c * c).astype(np.float64)
        # a unit's swap moves its records from A's cells to B's in A's matrix, and back in B's
        change = np.zeros((n_units, c * c))
        np.add.at(change, (units, cell_b), 1.0)
        np.add.at(change, (units, cell_a), -1.0)
        columns = np.flatnonzero(np.any(change != 0, axis=1))
        cells = np.flatnonzero(np.any(change != 0, axis=0))
        delta = change[np.ix_(columns, cells)]
        total_change = delta.sum(axis=0)
        name, positive = spec.name, self.positive

        def finish_confusion(kept_sums: np.ndarray) -> np.ndarray:
            moved = total_change - kept_sums  # the swapped units' change, (B, cells)
            rows = kept_sums.shape[0]
            first = np.tile(base_a, (rows, 1))
            second = np.tile(base_b, (rows, 1))
            first[:, cells] += moved
            second[:, cells] -= moved
            return confusion_metric(name, first.reshape(rows, c, c), positive) - confusion_metric(
                name, second.reshape(rows, c, c), positive
            )

        return SwapPlan(columns, delta, finish_confusion)

    def _cached(self, name: str, build: Callable[[], Any]) -> Any:
        key = (-1, name)
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def _patterns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each record's (truth, A, B) pattern code and each pattern's cell of A and of B."""
        c = self.n_classes
        triple = (self.truth * c + self.x_a) * c + self.x_b
        patterns, codes = np.unique(triple, return_inverse=True)
        truth, rest = np.divmod(patterns, c * c)
        pred_a, pred_b = np.divmod(rest, c)
        cells_a = np.zeros((patterns.shape[0], c * c))
        cells_b = np.zeros((patterns.shape[0], c * c))
        rows = np.arange(patterns.shape[0])
        cells_a[rows, truth * c + pred_a] = 1.0
        cells_b[rows, truth * c + pred_b] = 1.0
        return codes.astype(np.intp), cells_a, cells_b

    # -- internals -------------------------------------------------------------
    def _record(self, x: np.ndarray) -> np.ndarray:
        if self.spec.needs == "score":
            return record_values(self.spec, self.truth, scores=x, positive=self.positive)
        return record_values(self.spec, self.truth, prediction=x, positive=self.positive)

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
                out[:, f] = self._sorted_fold(f, x).auc(weights, positives)
            return out
        return self._expanded(weights, x)

    def _positive_weights(self, weights: np.ndarray, f: int, bounds: np.ndarray) -> np.ndarray:
        """The weights of fold ``f``'s positives (in record order, the same for both models)."""
        lo, hi = bounds[f], bounds[f + 1]
        return np.take(weights, lo + np.flatnonzero(self.truth[lo:hi] == self.positive), axis=1)

    def _sorted_fold(self, f: int, x: np.ndarray) -> AUCRanking:
        key = (f, "a" if x is self.x_a else "b")
        if key not in self._cache:
            lo, hi = self._bounds()[f : f + 2]
            self._cache[key] = AUCRanking.of(self.truth[lo:hi] == self.positive, x[lo:hi], lo)
        return self._cache[key]

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
        given = [np.asarray(v, dtype=object).ravel() for v in (y, a, b)]
        _, kinds = pd.factorize(pd.Series(np.concatenate(given)))
        kind_of_predictions = f"{np.asarray(a).dtype}, {np.asarray(b).dtype}"
        refuse_labels_of_two_kinds(
            pd.Index(kinds), "truth", y.dtype, "predictions a and b", kind_of_predictions
        )
        stacked = pd.Series(np.concatenate([y, np.asarray(a), np.asarray(b)]))
        codes, classes = pd.factorize(stacked, sort=True)
        n = y.shape[0]
        _require_labels(codes[:n], "truth")
        _require_labels(codes[n:], "predictions a and b")
        return codes[:n], codes[n : 2 * n], codes[2 * n :], pd.Index(classes)
    codes, classes = pd.factorize(pd.Series(y), sort=True)
    _require_labels(codes, "truth")
    xa, xb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    # the dtypes as given: a probability metric refuses True/False scores
    check_predictions(spec, codes, scores=xa, score_dtypes=[np.asarray(a).dtype])
    check_predictions(spec, codes, scores=xb, score_dtypes=[np.asarray(b).dtype])
    warn_hard_scores(spec, xa, "the scores of a")
    warn_hard_scores(spec, xb, "the scores of b")
    if not (np.isfinite(xa).all() and np.isfinite(xb).all()):
        raise DataError("the scores hold NaN or infinite values; every record needs a score")
    return codes, xa, xb, pd.Index(classes)


def _require_labels(codes: np.ndarray, what: str) -> None:
    """Refuse missing labels (pandas codes them -1), which no class can count."""
    missing = np.flatnonzero(codes < 0)
    if missing.size:
        raise DataError(
            f"missing values (NaN or None) in {what}: {missing.size}, the first at position "
            f"{int(missing[0])}; every record needs a class label: drop or fill those records"
        )


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
    given = {"truth": truth, "a": a, "b": b, "folds": folds, "clusters": clusters}
    for name, values in given.items():  # numpy would read the values under a mask
        refuse_masked(values, name)
    t, xa, xb, classes = _encode(truth, a, b, spec, pos_label)
    n = t.shape[0]
    if spec.binary_only and len(classes) > 2:  # as the table route says it
        raise DataError(
            f"{spec.name!r} is defined for two classes, but truth and the predictions hold "
            f"{len(classes)} ({list(classes)[:5]}); use e.g. f1_macro or roc_auc_ovr"
        )
    if spec.needs == "score" and xa.ndim == 1 and len(classes) > 2 and spec.kind != "callable":
        raise DataError(  # one column is the positive class's score, as on the table route
            f"one score per record was given for {len(classes)} classes in truth "
            f"({list(classes)[:5]}); give a and b as (n, C) arrays, one column per class"
        )
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
    if n_units < 2:  # the records are resampled by cluster: one cluster leaves nothing to draw
        raise DataError(
            "a resampling test draws whole clusters, but the records lie in 1 cluster; it "
            "needs at least 2 clusters (or no clusters=, to draw single records)"
        )
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


@contextlib.contextmanager
def progress_bar(total: int, enabled: bool | None, work: float, what: str) -> Iterator[Any]:
    """A tqdm bar of ``total`` resamples while the block runs, or None for short runs."""
    if enabled is False or (enabled is None and work < 5e8):
        yield None
        return
    from tqdm.auto import tqdm

    with tqdm(total=total, desc=what, unit="resample") as bar:
        yield bar


def default_batch(n: int, n_resamples: int) -> int:
    # arrays of (batch, n) stay under glibc's 32 MB mmap threshold, so each batch reuses
    # the memory of the last instead of faulting in fresh pages
    return int(max(1, min(n_resamples, 3_000_000 // max(n, 1))))
