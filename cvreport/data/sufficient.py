"""Sufficient statistics of a results table, computed in one pass over its folds.

Every test in cvreport needs only a few small arrays, never the raw rows again:

* per (replication i, fold j, model k): the sum of the losses, the sum of their
  squares and the number of records — the split estimates ``p_i^(j)`` of
  Dietterich (1998) and the fold variances follow from them;
* for 0/1 losses, per (replication, fold) the ``M × M`` matrix of records that
  two models both misclassify (wrong counts on the diagonal), from which the
  2×2 table ``n00, n01, n10, n11`` of every model pair follows
  (:func:`cvreport.data.pair_counts.pair_tables`; McNemar's test, Dietterich
  1998; the 5×2 BCV McNemar test of Yang, Wang, Song & Li);
* per record, the fold it was validated in, in each replication, and the
  distinct such membership patterns with how many records share each (the
  overlap audit of Wang, Wang, Li & Yang needs only the patterns and counts).

The same arrays come from a table held in another engine
(:mod:`cvreport.data.engines`) as group-by aggregations: per (replication,
fold, record) an integer whose bits are the models' 0/1 losses, counted per
fold, gives every pair's 2×2 table (:func:`pattern_statistics`), and an integer
coding a record's fold in each replication, counted, gives the patterns.

The losses of one fold are held as an ``(M, n)`` array with one row per model,
aligned by record, so that one matrix product ``X @ X.T`` (a single BLAS call
per fold, no loop over model pairs) yields the sums of squares and, for 0/1
losses, the both-wrong counts of all pairs at once.

References
----------
Dietterich, T. G. (1998). Approximate statistical tests for comparing
supervised classification learning algorithms. Neural Computation 10(7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cvreport.data.pair_counts import co_errors_from_patterns, pair_tables, pattern_errors
from cvreport.errors import DesignError

__all__ = [
    "FoldBlock",
    "FoldStatistics",
    "MembershipPatterns",
    "SufficientStatistics",
    "counted_statistics",
    "fold_score_statistics",
    "membership_patterns",
    "pattern_statistics",
    "sorted_patterns",
    "sufficient_statistics",
    "training_sizes",
    "unpack_patterns",
]


@dataclass(frozen=True, eq=False)
class FoldBlock:
    """The losses of every model on one validation fold, aligned by record.

    Attributes
    ----------
    replication : int
        Position of the replication in the table's sorted replication labels.
    fold : int
        Position of the fold in the table's sorted fold labels.
    records : numpy.ndarray
        ``int32`` codes of the fold's records (positions in the table's record labels).
    losses : numpy.ndarray
        ``float64`` array of shape ``(M, n)``: row ``k`` holds model ``k``'s loss on
        each record, in the order of ``records``.
    """

    replication: int
    fold: int
    records: np.ndarray
    losses: np.ndarray

    @property
    def size(self) -> int:
        """Number of records in the fold."""
        return int(self.records.shape[0])


@dataclass(frozen=True)
class FoldStatistics:
    """Per-fold statistics of one pair of models A and B: what every pairwise test reads.

    The same type holds one results table's pair (arrays of shape ``(m, K)``) and a
    batch of simulated data sets (a leading ``reps`` axis), so a test's inputs are
    one function of it for both (:attr:`cvreport.methods.spec.TestSpec.inputs`).

    Attributes
    ----------
    differences : ndarray of shape (..., m, K)
        Mean loss of A minus mean loss of B on every validation fold.
    tables : ndarray of shape (..., m, K, 4) or None
        ``n00, n01, n10, n11`` of every fold (0/1 losses only): ``n00`` both wrong,
        ``n01`` A wrong and B right, ``n10`` A right and B wrong, ``n11`` both right.
    sizes : ndarray of shape (m, K), or broadcastable to (..., m, K)
        Validation records of every fold (n2).
    train_sizes : ndarray of shape (m, K), or broadcastable to (..., m, K), or None
        Training records of every fold (n1): the rest of the replication for K-fold
        designs, the rest of the data set for hold-out splits, ``K − 1`` folds' worth
        for per-fold scores of K-fold CV (equal folds assumed). None when the design
        does not tell (per-fold scores of hold-out splits without a ratio, or a
        hold-out table that holds only its validation records).
    test_train_ratio : float or None
        ``n2/n1`` when it is known as one number rather than counted (given with the
        table, or inferred by the predictions route); it then takes precedence over
        the sizes in :meth:`validation_training_ratio`.

    Examples
    --------
    >>> stats = FoldStatistics(np.array([[0.5, -0.5]]), None, np.array([[2, 2]]),
    ...                        train_sizes=np.array([[2, 2]]))
    >>> stats.reps, stats.swapped().differences.tolist()
    (1, [[-0.5, 0.5]])
    >>> float(stats.validation_training_ratio())
    1.0
    """

    differences: np.ndarray
    tables: np.ndarray | None
    sizes: np.ndarray
    train_sizes: np.ndarray | None = None
    test_train_ratio: float | None = None

    @property
    def reps(self) -> int:
        """Number of data sets: the batch size of a simulation, 1 for one table."""
        return int(self.differences.shape[0]) if self.differences.ndim == 3 else 1

    def binary_tables(self) -> np.ndarray:
        """The 2×2 tables; a :class:`ValueError` when the losses were not 0/1."""
        if self.tables is None:
            raise ValueError("2×2 counts exist only for 0/1 losses")
        return self.tables

    def validation_training_ratio(self) -> np.ndarray:
        """``n2/n1`` of every data set: the summed validation sizes over the summed training sizes.

        Weka's corrected paired t-tester uses this ratio when the split sizes differ
        (Nadeau & Bengio 2003; Bouckaert & Frank 2004). A ratio known as one number
        (:attr:`test_train_ratio`) is returned as it is.

        Returns
        -------
        numpy.ndarray
            Of the batch shape (0-d for one table).

        Raises
        ------
        DesignError
            When neither the training sizes nor the ratio are known.
        """
        if self.test_train_ratio is not None:
            return np.asarray(self.test_train_ratio, dtype=np.float64)
        if self.train_sizes is None:
            raise DesignError(
                "the training-set sizes of these splits are unknown, so n2/n1 cannot be "
                "inferred: pass test_train_ratio= (validation size / training size, e.g. 0.5 "
                "for a 2/3 – 1/3 split)"
            )
        shape = self.differences.shape
        validation = np.broadcast_to(self.sizes, shape).sum(axis=(-2, -1), dtype=np.float64)
        training = np.broadcast_to(self.train_sizes, shape).sum(axis=(-2, -1), dtype=np.float64)
        if np.any(training <= 0):
            raise DesignError(
                "the splits hold no training records, so n2/n1 cannot be inferred: pass "
                "test_train_ratio= (validation size / training size)"
            )
        return validation / training

    def swapped(self) -> FoldStatistics:
        """The statistics of the pair B, A: differences negated, n01 and n10 exchanged."""
        tables = None if self.tables is None else self.tables[..., [0, 2, 1, 3]]
        return FoldStatistics(
            -self.differences, tables, self.sizes, self.train_sizes, self.test_train_ratio
        )


def training_sizes(
    sizes: np.ndarray, *, per_record: bool, n_records: int | None
) -> np.ndarray | None:
    """Training records of every fold of a table, from its ``(m, K)`` validation sizes.

    K-fold designs (K ≥ 2) train on the rest of the replication; per-fold scores
    carry no sizes, so K − 1 folds' worth is assumed (equal folds, n2/n1 = 1/(K − 1)).
    A hold-out split trains on the table's other records; None when that is
    unknown (per-fold scores) or empty (the table holds only validation records).

    Examples
    --------
    >>> training_sizes(np.array([[3, 3, 4]]), per_record=True, n_records=10).tolist()
    [[7, 7, 6]]
    >>> training_sizes(np.array([[1, 1, 1]]), per_record=False, n_records=None).tolist()
    [[2, 2, 2]]
    >>> training_sizes(np.array([[40], [40]]), per_record=True, n_records=120).tolist()
    [[80], [80]]
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    n_folds = sizes.shape[-1]
    if n_folds >= 2:
        if not per_record:
            return (n_folds - 1) * sizes
        return sizes.sum(axis=-1, keepdims=True) - sizes
    if not per_record or n_records is None:
        return None
    train = n_records - sizes
    return None if (train <= 0).any() else train


@dataclass(frozen=True, eq=False)
class MembershipPatterns:
    """The distinct fold-membership patterns of the records, and how many share each.

    Attributes
    ----------
    patterns : numpy.ndarray
        ``(P, m)`` int32: the fold position of the records of pattern ``p`` in
        each replication, ``-1`` where they are absent; rows sorted.
    counts : numpy.ndarray
        ``(P,)`` int64: records with that pattern.

    Examples
    --------
    >>> import numpy as np
    >>> mp = membership_patterns(np.array([[0, 1], [1, 0], [0, 1]], dtype=np.int32), 2)
    >>> mp.patterns.tolist(), mp.counts.tolist(), mp.n_records
    ([[0, 1], [1, 0]], [2, 1], 3)
    """

    patterns: np.ndarray
    counts: np.ndarray

    def __post_init__(self) -> None:
        self.patterns.setflags(write=False)
        self.counts.setflags(write=False)

    @property
    def n_records(self) -> int:
        """Number of records."""
        return int(self.counts.sum())


def membership_patterns(membership: np.ndarray, K: int) -> MembershipPatterns:
    """Count the distinct rows of an ``(n_records, m)`` fold-membership array.

    Each row is packed into one integer (base ``K + 1``, ``-1`` → digit 0) and the
    integers are counted, by ``np.bincount`` when the code space is small (m×2
    designs up to m = 14 and similar), else by ``np.unique``.
    """
    n, m = membership.shape
    base = K + 1
    if m == 0 or n == 0:
        return MembershipPatterns(np.zeros((0, m), dtype=np.int32), np.zeros(0, dtype=np.int64))
    if m * np.log2(base) < 62:
        codes = np.zeros(n, dtype=np.int64)
        for i in range(m - 1, -1, -1):  # replication 0 is the most significant digit
            codes *= base
            codes += membership[:, i]
            codes += 1
        space = base**m
        if space <= max(1 << 22, 4 * n):
            tally = np.bincount(codes, minlength=space)
            used = np.flatnonzero(tally)
            counts = tally[used]
        else:
            used, counts = np.unique(codes, return_counts=True)
        return sorted_patterns(unpack_patterns(used, m, base), counts)
    rows, counts = np.unique(membership, axis=0, return_counts=True)
    return MembershipPatterns(rows.astype(np.int32), counts.astype(np.int64))


def unpack_patterns(codes: np.ndarray, m: int, base: int) -> np.ndarray:
    """Rows of fold positions from codes ``Σ_i (fold_i + 1) · base**i`` (``-1``: absent).

    The inverse of the packing in :func:`membership_patterns`.

    Examples
    --------
    >>> unpack_patterns(np.array([1 + 2 * 3, 0]), 2, 3).tolist()
    [[0, 1], [-1, -1]]
    """
    out = np.empty((codes.shape[0], m), dtype=np.int32)
    rest = codes.astype(np.int64)
    for i in range(m):
        rest, digit = np.divmod(rest, base)
        out[:, i] = digit - 1
    return out


def sorted_patterns(patterns: np.ndarray, counts: np.ndarray) -> MembershipPatterns:
    """Membership patterns with their rows (and counts) in lexicographic order."""
    order = np.lexsort(patterns.T[::-1])
    return MembershipPatterns(
        np.ascontiguousarray(patterns[order], dtype=np.int32),
        np.asarray(counts, dtype=np.int64)[order],
    )


@dataclass(frozen=True, eq=False)
class SufficientStatistics:
    """Per-fold sums from which every cvreport statistic is computed.

    Arrays are indexed ``[replication i, fold j, model k]`` in the order of the
    table's ``replications``, ``folds`` and ``models``; they are read-only.

    Attributes
    ----------
    sums : numpy.ndarray
        ``(m, K, M)`` float64, sum of the losses on the fold.
    sumsq : numpy.ndarray
        ``(m, K, M)`` float64, sum of the squared losses.
    counts : numpy.ndarray
        ``(m, K, M)`` int64, number of records (1 for a table of per-fold scores).
    both_wrong : numpy.ndarray or None
        ``(m, K, M, M)`` int64 for 0/1 losses: ``both_wrong[i, j, a, b]`` records
        misclassified by both ``a`` and ``b`` (``n00`` of the pair); the diagonal
        holds each model's number of errors. ``None`` for other losses.
    membership : numpy.ndarray or None
        ``(n_records, m)`` int32: the fold position of each record in each
        replication, ``-1`` where the record is absent. ``None`` for per-fold
        scores, and where the patterns were counted without it (a table held in
        another engine, losses in rows of any order): the table then lays
        the records out on first use.
    patterns : MembershipPatterns or None
        The distinct rows of the membership and their counts. ``None`` for
        per-fold scores.
    train_sizes : numpy.ndarray or None
        ``(m, K)`` training records of every fold (:func:`training_sizes`), set by
        the results table that knows its design; None when unknown.
    test_train_ratio : float or None
        ``n2/n1`` given with the table (or inferred by the predictions route).
        Both are passed on to every pair's :class:`FoldStatistics`.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])        # two hold-out splits, two models
    >>> stats = SufficientStatistics(sums=x, sumsq=x, counts=np.ones((2, 1, 2), dtype=np.int64))
    >>> stats.differences(0, 1)[:, 0].tolist()
    [1.0, -1.0]
    """

    sums: np.ndarray
    sumsq: np.ndarray
    counts: np.ndarray
    both_wrong: np.ndarray | None = None
    membership: np.ndarray | None = None
    patterns: MembershipPatterns | None = None
    train_sizes: np.ndarray | None = None
    test_train_ratio: float | None = None

    def __post_init__(self) -> None:
        for array in (self.sums, self.sumsq, self.counts, self.both_wrong, self.membership):
            if array is not None:
                array.setflags(write=False)

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(m, K, M)``: replications, folds per replication, models."""
        m, k, n_models = self.sums.shape
        return int(m), int(k), int(n_models)

    @property
    def means(self) -> np.ndarray:
        """``(m, K, M)`` mean loss of each model on each fold (the split estimates)."""
        return self.sums / self.counts

    def differences(self, a: int, b: int) -> np.ndarray:
        """``(m, K)`` per-fold difference of mean losses, model ``a`` minus model ``b``.

        These are the ``p_i^(j)`` of Dietterich (1998), positive when ``a`` is worse.
        Both models are scored on the same records of a fold, so the difference is
        taken of the sums before dividing by the count: for integer (e.g. 0/1)
        losses the sums are exact and equal differences (1/10 − 3/10 and
        3/10 − 5/10) give equal floats, as the degenerate-data conventions need
        (subtracting the rounded means gives −0.19999999999999998 and −0.2).
        """
        counts_a = self.counts[:, :, a]
        counts_b = self.counts[:, :, b]
        sums_a = self.sums[:, :, a]
        sums_b = self.sums[:, :, b]
        same = counts_a == counts_b
        return np.where(same, (sums_a - sums_b) / counts_a, sums_a / counts_a - sums_b / counts_b)

    def pair_counts(self, a: int, b: int) -> np.ndarray:
        """``(m, K, 4)`` int64 2×2 tables ``n00, n01, n10, n11`` of models ``a`` and ``b``.

        ``n00`` both wrong, ``n01`` ``a`` wrong and ``b`` right, ``n10`` ``a`` right
        and ``b`` wrong, ``n11`` both right (Dietterich 1998, Table I of Wang et al.).

        Raises
        ------
        ValueError
            If the losses are not 0/1 (``both_wrong`` is ``None``).
        """
        if self.both_wrong is None:
            raise ValueError("2×2 counts exist only for 0/1 losses")
        return pair_tables(
            self.both_wrong[:, :, a, b],
            self.both_wrong[:, :, a, a],
            self.both_wrong[:, :, b, b],
            self.counts[:, :, a],
        )

    def pair(self, a: int, b: int) -> FoldStatistics:
        """The :class:`FoldStatistics` of models ``a`` and ``b`` (positions in the model order).

        >>> x = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])
        >>> stats = SufficientStatistics(sums=x, sumsq=x, counts=np.ones((2, 1, 2), dtype=np.int64))
        >>> stats.pair(0, 1).differences[:, 0].tolist()
        [1.0, -1.0]
        """
        tables = None if self.both_wrong is None else self.pair_counts(a, b)
        return FoldStatistics(
            self.differences(a, b),
            tables,
            self.counts[:, :, a],
            self.train_sizes,
            self.test_train_ratio,
        )


def sufficient_statistics(
    blocks: Sequence[FoldBlock],
    shape: tuple[int, int, int],
    *,
    binary: bool,
    membership: np.ndarray | None = None,
) -> SufficientStatistics:
    """Compute the sufficient statistics of aligned fold blocks.

    One ``X @ X.T`` per fold gives the sums of squares on its diagonal and, for
    0/1 losses, the both-wrong counts of all model pairs; for 0/1 losses the sums
    are that diagonal too, otherwise one more reduction over the fold gives them.

    Parameters
    ----------
    blocks : sequence of FoldBlock
        One block per (replication, fold) cell of the design.
    shape : tuple of int
        ``(m, K, M)``.
    binary : bool
        Whether every loss is 0 or 1 (then the both-wrong counts are computed).
    membership : numpy.ndarray, optional
        ``(n_records, m)`` fold positions, stored as given (and counted into
        :class:`MembershipPatterns`).

    Examples
    --------
    >>> import numpy as np
    >>> block = FoldBlock(0, 0, np.arange(4, dtype=np.int32),
    ...                   np.array([[1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0]]))
    >>> stats = sufficient_statistics([block], (1, 1, 2), binary=True)
    >>> stats.pair_counts(0, 1)[0, 0].tolist()      # n00, n01, n10, n11
    [1, 1, 1, 1]
    """
    m, n_folds, n_models = shape
    sums = np.zeros(shape)
    sumsq = np.zeros(shape)
    counts = np.zeros(shape, dtype=np.int64)
    both_wrong = np.zeros((m, n_folds, n_models, n_models), dtype=np.int64) if binary else None
    for block in blocks:
        x = block.losses
        gram = x @ x.T  # one BLAS call per fold
        i, j = block.replication, block.fold
        diagonal = np.diagonal(gram)
        sumsq[i, j] = diagonal
        counts[i, j] = block.size
        if both_wrong is not None:
            # exact: 0/1 products summed in float64 are integers far below 2**53
            both_wrong[i, j] = np.rint(gram).astype(np.int64)
            sums[i, j] = diagonal
        else:
            sums[i, j] = x.sum(axis=1)
    return SufficientStatistics(
        sums=sums,
        sumsq=sumsq,
        counts=counts,
        both_wrong=both_wrong,
        membership=membership,
        patterns=None if membership is None else membership_patterns(membership, n_folds),
    )


def pattern_statistics(
    sums: np.ndarray,
    sumsq: np.ndarray,
    counts: np.ndarray,
    loss_patterns: np.ndarray | None,
    patterns: MembershipPatterns,
) -> SufficientStatistics:
    """Sufficient statistics from aggregates computed where the data lives.

    Parameters
    ----------
    sums, sumsq, counts : numpy.ndarray
        ``(m, K, M)`` per-fold sums, sums of squares and record counts.
    loss_patterns : numpy.ndarray or None
        For 0/1 losses, rows ``(i, j, bits, n)``: ``n`` records of fold ``(i, j)``
        on which exactly the models whose bit is set in ``bits`` (bit ``k`` for
        model ``k``) are wrong. Every pair's both-wrong count is the sum of ``n``
        over the bit patterns that hold both bits. ``None`` for other losses.
    patterns : MembershipPatterns
        The records' fold-membership patterns.

    Examples
    --------
    >>> import numpy as np
    >>> ones = np.ones((1, 1, 2))
    >>> rows = np.array([[0, 0, 0b11, 1], [0, 0, 0b01, 1], [0, 0, 0b10, 1], [0, 0, 0, 1]])
    >>> mp = MembershipPatterns(np.zeros((1, 1), dtype=np.int32), np.array([4]))
    >>> stats = pattern_statistics(2 * ones, 2 * ones, 4 * ones.astype(int), rows, mp)
    >>> stats.pair_counts(0, 1)[0, 0].tolist()
    [1, 1, 1, 1]
    """
    both_wrong = None
    if loss_patterns is not None:
        both_wrong = co_errors_from_patterns(loss_patterns, sums.shape)
    return SufficientStatistics(
        sums=np.asarray(sums, dtype=np.float64),
        sumsq=np.asarray(sumsq, dtype=np.float64),
        counts=np.asarray(counts, dtype=np.int64),
        both_wrong=both_wrong,
        membership=None,
        patterns=patterns,
    )


def counted_statistics(
    loss_patterns: np.ndarray, patterns: MembershipPatterns, shape: tuple[int, int, int]
) -> SufficientStatistics:
    """Sufficient statistics of 0/1 losses from the counts of their loss patterns alone.

    ``loss_patterns`` holds rows ``(i, j, bits, n)`` as in :func:`pattern_statistics`:
    a model's errors on a fold are the ``n`` of the patterns that hold its bit, its
    sum of squares is the same number (the losses are 0 or 1), and every model of a
    fold is scored on all of the fold's records. The result equals
    :func:`sufficient_statistics` of the same losses laid out as fold blocks.

    Examples
    --------
    >>> import numpy as np
    >>> rows = np.array([[0, 0, 0b11, 1], [0, 0, 0b01, 1], [0, 0, 0b10, 1], [0, 0, 0, 1]])
    >>> mp = MembershipPatterns(np.zeros((1, 1), dtype=np.int32), np.array([4]))
    >>> stats = counted_statistics(rows, mp, (1, 1, 2))
    >>> stats.sums[0, 0].tolist(), stats.counts[0, 0].tolist(), stats.pair_counts(0, 1)[0, 0].tolist()
    ([2.0, 2.0], [4, 4], [1, 1, 1, 1])
    """
    m, n_folds, n_models = shape
    rows, wrong = pattern_errors(loss_patterns, n_models)
    cell = rows[:, 0] * n_folds + rows[:, 1]
    errors = np.zeros((m * n_folds, n_models), dtype=np.int64)
    np.add.at(errors, cell, wrong * rows[:, 3:4])
    sizes = np.zeros(m * n_folds, dtype=np.int64)
    np.add.at(sizes, cell, rows[:, 3])
    sums = errors.reshape(shape).astype(np.float64)
    counts = np.repeat(sizes, n_models).reshape(shape)
    return pattern_statistics(sums, sums.copy(), counts, rows, patterns)


def fold_score_statistics(values: np.ndarray) -> SufficientStatistics:
    """Sufficient statistics of a table holding one loss per (replication, fold, model).

    Each fold contributes a single value, so ``sums`` is the value itself,
    ``counts`` is 1, and there are neither 2×2 counts nor record memberships.

    Examples
    --------
    >>> import numpy as np
    >>> stats = fold_score_statistics(np.array([[[0.2, 0.3]]]))
    >>> stats.means[0, 0].tolist(), stats.counts[0, 0].tolist()
    ([0.2, 0.3], [1, 1])
    """
    values = np.asarray(values, dtype=np.float64)
    return SufficientStatistics(
        sums=values.copy(),
        sumsq=values * values,
        counts=np.ones(values.shape, dtype=np.int64),
    )
