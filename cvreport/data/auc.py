"""The ROC AUC as the Mann–Whitney statistic, ties counted one half: its one implementation.

For a group of records with m positives and n negatives,

    AUC = U / (m n),   U = Σ_{positive i} Σ_{negative j} ψ(s_i, s_j),
    ψ(x, y) = 1 if x > y, ½ if x = y, 0 otherwise,

the area under the ROC curve (Hanley & McNeil 1982) and
``sklearn.metrics.roc_auc_score``. With record weights ``w`` (how often a
bootstrap resample drew each record; a jackknife sample's records left out)
every pair counts ``w_i w_j`` and m, n are the weighted class sizes.

:func:`grouped_auc` is the function every AUC in cvreport comes from: the
per-fold AUCs of a table (:mod:`cvreport.data.metrics`), DeLong's estimate
(:mod:`cvreport.methods.delong`), the resampled and permuted AUCs of the paired
bootstrap and permutation tests (:mod:`cvreport.methods._weighted`). It sorts
in one of two ways, by what the caller needs:

* without weights, every group in one row-wise sort of a padded
  ``(groups, records)`` array of order-preserving integer keys, spread over the
  machine's cores (10⁸ rows in seconds); U is read from the sorted rows;
* with weights, each group's negatives are sorted once
  (:class:`AUCRanking`, which a caller keeps to reuse for many weightings); a
  weighting then needs one cumulative sum of the negatives' weights, read at
  each positive's place among them.

Both end in the same division (:func:`auc_from_u`); an integer weighting of
the records gives the AUC of the data those records expand to, bit for bit.

References
----------
Mann, H. B. and Whitney, D. R. (1947). On a test of whether one of two random
variables is stochastically larger than the other. Annals of Mathematical
Statistics 18(1):50–60.
Hanley, J. A. and McNeil, B. J. (1982). The meaning and use of the area under a
receiver operating characteristic (ROC) curve. Radiology 143(1):29–36.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

__all__ = [
    "AUCRanking",
    "auc_from_u",
    "grouped_auc",
    "order_keys",
    "sorted_groups",
]

_MAX_KEY = np.iinfo(np.uint64).max
_LITTLE = np.little_endian


def order_keys(scores: np.ndarray) -> np.ndarray:
    """uint64 keys that sort like the float64 ``scores`` (−0.0 and 0.0 equal; no NaN).

    Integer sorts are faster than float sorts and the keys let padding sort last.

    Examples
    --------
    >>> keys = order_keys(np.array([0.5, -1.0, 0.0, -0.0, 2.0]))
    >>> np.argsort(keys, kind="stable").tolist(), bool(keys[2] == keys[3])
    ([1, 2, 3, 0, 4], True)
    """
    keys = np.array(scores, dtype=np.float64)  # a copy, turned into keys in place
    keys += 0.0  # −0.0 + 0.0 is +0.0
    mask = (keys.view(np.int64) >> 63).view(np.uint64)  # all ones for negatives, else 0
    mask |= np.uint64(1 << 63)
    bits = keys.view(np.uint64)
    bits ^= mask  # negatives: every bit flipped; others: the sign bit set
    return bits


def _argsort_rows(keys: np.ndarray) -> np.ndarray:
    """Row-wise argsort, split over the machine's cores for large arrays (numpy frees the GIL)."""
    workers = min(os.cpu_count() or 1, 8)
    if keys.size < 2_000_000 or workers == 1 or keys.shape[0] < 2:
        return np.argsort(keys, axis=1)
    chunks = np.array_split(np.arange(keys.shape[0]), min(keys.shape[0], workers * 4))
    out = np.empty(keys.shape, dtype=np.intp)

    def work(rows: np.ndarray) -> None:
        out[rows[0] : rows[-1] + 1] = np.argsort(keys[rows[0] : rows[-1] + 1], axis=1)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(work, [c for c in chunks if c.size]))
    return out


def _sort_rows(rows: np.ndarray) -> None:
    """Sort each row in place, split over the machine's cores for large arrays."""
    workers = min(os.cpu_count() or 1, 8)
    if rows.size < 2_000_000 or workers == 1 or rows.shape[0] < 2:
        rows.sort(axis=1)
        return
    chunks = np.array_split(np.arange(rows.shape[0]), min(rows.shape[0], workers * 4))

    def work(index: np.ndarray) -> None:
        rows[index[0] : index[-1] + 1].sort(axis=1)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(work, [c for c in chunks if c.size]))


def sorted_groups(
    groups: np.ndarray, n_groups: int, labels: np.ndarray, scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Keys and labels of every group in a padded ``(n_groups, L)`` array, each row sorted.

    Padding has the largest key and label −1. One row-wise sort does every group.
    When every score has the same sign (probabilities), the keys' top bit is the
    same everywhere, so the label takes its place in the lowest bit and a plain
    sort of the packed keys orders both at once (no index array, no gathers);
    otherwise the rows are argsorted.

    Examples
    --------
    >>> keys, labels = sorted_groups(np.array([1, 0, 1, 0, 0]), 2, np.array([1, 0, 0, 1, 1]),
    ...                              np.array([0.9, 0.7, 0.1, 0.2, 0.8]))
    >>> labels.tolist()  # group 0 by increasing score; group 1 padded with −1
    [[1, 0, 1], [0, 1, -1]]
    """
    groups = np.asarray(groups)
    labels = np.asarray(labels, dtype=np.int8)
    keys = order_keys(scores)
    scores = np.asarray(scores)
    packed = scores.size > 0 and (scores.min() >= 0 or scores.max() < 0)
    if packed:
        keys <<= np.uint64(1)
        keys |= labels.view(np.uint8)
    sizes = np.bincount(groups, minlength=n_groups)
    width = int(sizes.max()) if sizes.size else 0
    if np.all(groups[1:] >= groups[:-1]):  # already laid out group by group
        order = None
        row_groups = groups
    else:
        # a stable sort of 16-bit keys is a radix sort: linear in the number of rows
        small = groups.astype(np.uint16) if n_groups <= 1 << 16 else groups
        order = np.argsort(small, kind="stable")
        row_groups = None  # taken only when the rows need padding
    equal = bool(np.all(sizes == width))
    if not equal and row_groups is None:
        row_groups = groups[order]
    if equal:
        row_keys = (keys if order is None else keys[order]).reshape(n_groups, width)
    else:
        starts = np.cumsum(sizes) - sizes
        column = np.arange(groups.shape[0]) - starts[row_groups]
        row_keys = np.full((n_groups, width), _MAX_KEY, dtype=np.uint64)
        row_keys[row_groups, column] = keys if order is None else keys[order]
    if packed:
        _sort_rows(row_keys)
        # the lowest byte of each little-endian key holds the label bit
        lowest = row_keys.view(np.uint8)[:, ::8] if _LITTLE else row_keys.view(np.uint8)[:, 7::8]
        row_labels = (lowest & 1).view(np.int8)
        row_keys >>= np.uint64(1)
        if not equal:
            row_labels[np.arange(width) >= sizes[:, None]] = -1
        return row_keys, row_labels
    if equal:
        row_labels = (labels if order is None else labels[order]).reshape(n_groups, width)
    else:
        row_labels = np.full((n_groups, width), -1, dtype=np.int8)
        row_labels[row_groups, column] = labels if order is None else labels[order]
    index = _argsort_rows(row_keys)
    return np.take_along_axis(row_keys, index, axis=1), np.take_along_axis(
        row_labels, index, axis=1
    )


def _run_starts(sorted_keys: np.ndarray) -> np.ndarray:
    starts = np.ones(sorted_keys.shape, dtype=bool)
    np.not_equal(sorted_keys[:, 1:], sorted_keys[:, :-1], out=starts[:, 1:])
    return starts


def auc_from_u(u: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``U / pairs``, NaN where a group has no (weighted) pair of a positive and a negative.

    ``pairs`` is ``m · n`` (weighted: the product of the classes' total weights).

    >>> auc_from_u(np.array([3.0, 0.0]), np.array([4.0, 0.0])).tolist()
    [0.75, nan]
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, u / pairs, np.nan)


def grouped_auc(
    groups: np.ndarray,
    n_groups: int,
    positive: np.ndarray,
    scores: np.ndarray,
    *,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """ROC AUC of every group: the Mann–Whitney statistic with ties counted one half.

    Every AUC cvreport reports or tests comes from here (see the module's notes).
    ``AUC = (Σ over positives of #negatives below + ½ #negatives tied) / (n₊ n₋)``,
    which equals the area under the ROC curve (Hanley & McNeil 1982) and
    ``sklearn.metrics.roc_auc_score``. A group with one class only has no AUC.

    Parameters
    ----------
    groups : numpy.ndarray
        Integer group code of each record, ``0 <= code < n_groups``.
    n_groups : int
    positive : numpy.ndarray
        Boolean: whether each record is of the positive class.
    scores : numpy.ndarray
        The score of the positive class (higher: more likely positive).
    weights : numpy.ndarray, optional
        ``(n,)`` or ``(B, n)``: non-negative weights of the records, one row per
        weighting (e.g. how often each bootstrap resample drew each record).

    Returns
    -------
    numpy.ndarray
        ``(n_groups,)`` float64, or ``(B, n_groups)`` with ``(B, n)`` weights; NaN
        where a group lacks a class (callers say so).

    Examples
    --------
    >>> grouped_auc(np.array([0, 0, 0, 1, 1, 1]), 2, np.array([1, 0, 1, 0, 1, 1], bool),
    ...             np.array([0.9, 0.2, 0.1, 0.3, 0.3, 0.8])).tolist()
    [0.5, 0.75]

    Weights count records as often as they say (here the first record twice):

    >>> grouped_auc(np.zeros(4, int), 1, np.array([1, 1, 0, 0], bool),
    ...             np.array([0.9, 0.4, 0.5, 0.1]), weights=np.array([[2, 1, 1, 1]])).tolist()
    [[0.8333333333333334]]
    """
    if weights is not None:
        return _weighted_grouped_auc(groups, n_groups, positive, scores, weights)
    keys, labels = sorted_groups(groups, n_groups, np.asarray(positive, dtype=np.int8), scores)
    negative = labels == 0
    is_positive = labels == 1
    n_pos = is_positive.sum(axis=1).astype(np.float64)
    starts = _run_starts(keys)
    if (starts | (labels < 0)).all():  # padding may tie with padding
        # no ties and padding last: a positive in column j has j − (positives before it)
        # negatives below it, so U = Σ_positives j − n₊(n₊ − 1)/2 (one pass, no cumsum)
        columns = np.arange(keys.shape[1], dtype=np.float64)
        u = np.einsum("ij,j->i", is_positive, columns) - n_pos * (n_pos - 1) / 2.0
    else:
        below = np.cumsum(negative, axis=1, dtype=np.int64)
        below -= negative  # negatives strictly before each position
        flat_starts = starts.ravel()
        run = np.cumsum(flat_starts) - 1
        first = np.flatnonzero(flat_starts)
        flat_below = below.ravel()
        flat_negative = negative.ravel()
        before = flat_below[first]
        inclusive = flat_below + flat_negative
        last = np.append(first[1:] - 1, flat_starts.shape[0] - 1)
        tied = inclusive[last] - before
        credit = before[run] + 0.5 * tied[run]
        u = np.where(is_positive.ravel(), credit, 0.0).reshape(keys.shape).sum(axis=1)
    n_neg = negative.sum(axis=1).astype(np.float64)
    return auc_from_u(u, n_pos * n_neg)


def _weighted_grouped_auc(
    groups: np.ndarray,
    n_groups: int,
    positive: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray,
) -> np.ndarray:
    """:func:`grouped_auc` under each row of ``weights``, one :class:`AUCRanking` per group."""
    groups = np.asarray(groups)
    positive = np.asarray(positive, dtype=bool)
    scores = np.asarray(scores, dtype=np.float64)
    rows = np.atleast_2d(np.asarray(weights))
    out = np.full((rows.shape[0], n_groups), np.nan)
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], np.arange(n_groups + 1))
    for g in range(n_groups):
        members = order[bounds[g] : bounds[g + 1]]
        ranking = AUCRanking.of(positive[members], scores[members])
        out[:, g] = ranking.auc(rows[:, members])
    return out if np.ndim(weights) == 2 else out[0]


@dataclass(frozen=True)
class AUCRanking:
    """One group's scores sorted once, for its AUC under many record weightings.

    Attributes
    ----------
    negatives : numpy.ndarray
        Positions of the negatives, by increasing score.
    positives : numpy.ndarray
        Positions of the positives, in record order.
    below : numpy.ndarray
        For each positive: the negatives with a lower score.
    not_above : numpy.ndarray
        For each positive: the negatives with a lower or equal score.
    ties : bool
        Whether a positive ties with a negative.

    Examples
    --------
    >>> ranking = AUCRanking.of(np.array([1, 1, 0, 0], bool), np.array([0.9, 0.4, 0.5, 0.1]))
    >>> ranking.auc(np.ones((1, 4))).tolist(), ranking.auc(np.array([[2, 1, 1, 1]])).tolist()
    ([0.75], [0.8333333333333334])
    """

    negatives: np.ndarray
    positives: np.ndarray
    below: np.ndarray
    not_above: np.ndarray
    ties: bool

    @classmethod
    def of(cls, positive: np.ndarray, scores: np.ndarray, offset: int = 0) -> AUCRanking:
        """Sort a group's records; positions are counted from ``offset``.

        ``offset`` places the group in a longer array of records (a fold's first
        record), so that its positions index that array's weights.
        """
        keys = order_keys(scores)
        is_positive = np.asarray(positive, dtype=bool)
        negatives = np.flatnonzero(~is_positive)
        negatives = negatives[np.argsort(keys[negatives], kind="stable")]
        negative_keys = keys[negatives]
        positives = np.flatnonzero(is_positive)
        below = np.searchsorted(negative_keys, keys[positives], side="left")
        not_above = np.searchsorted(negative_keys, keys[positives], side="right")
        return cls(
            negatives=negatives + offset,
            positives=positives + offset,
            below=below,
            not_above=not_above,
            ties=bool(np.any(below != not_above)),
        )

    def doubled_u(
        self, weights: np.ndarray, positive_weights: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Weighted ``2U`` and the weighted pair count ``m·n`` under each weighting.

        U = Σ positive weight × weight of the negatives below (ties ½): one
        cumulative sum of the negatives' weights, read at each positive's place
        among them. Integer weights sum exactly in int64, so ``2U`` is an exact
        integer (in float64) and equal numbers of pairs give equal AUCs.

        Parameters
        ----------
        weights : numpy.ndarray
            ``(B, N)`` weights of the records (positions as in :meth:`of`), one
            row per weighting, or ``(N,)`` for one weighting (e.g. how often one
            bootstrap resample drew each record: its counts stay in the
            processor's cache).
        positive_weights : numpy.ndarray, optional
            ``weights`` at :attr:`positives`, when the caller has them already
            (two models scored on the same records share them).

        Returns
        -------
        tuple of numpy.ndarray
            float64 ``2U`` and ``m·n``: ``(B,)`` each, or scalars for ``(N,)`` weights.
        """
        w_pos = (
            np.take(weights, self.positives, axis=-1)
            if positive_weights is None
            else positive_weights
        )
        w_neg = np.take(weights, self.negatives, axis=-1)
        # integer weights sum exactly in int64; real weights in float64
        total = np.int64 if w_neg.dtype.kind in "iub" else np.float64
        cumulative = np.zeros((*w_neg.shape[:-1], w_neg.shape[-1] + 1), dtype=total)
        np.cumsum(w_neg, axis=-1, out=cumulative[..., 1:])
        credit = np.take(cumulative, self.below, axis=-1)
        if self.ties:
            credit += np.take(cumulative, self.not_above, axis=-1)
        u2 = np.einsum("...i,...i->...", w_pos, credit, dtype=total).astype(np.float64)
        if not self.ties:
            u2 *= 2.0
        n_pos = w_pos.sum(axis=-1).astype(np.float64)
        n_neg = cumulative[..., -1].astype(np.float64)
        return u2, n_pos * n_neg

    def auc(self, weights: np.ndarray, positive_weights: np.ndarray | None = None) -> np.ndarray:
        """``(B,)`` AUC under each row of ``weights`` ``(B, N)``; NaN without both classes."""
        u2, pairs = self.doubled_u(weights, positive_weights)
        return auc_from_u(u2 / 2.0, pairs)
