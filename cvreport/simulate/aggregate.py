"""From per-record losses of many simulated data sets to per-fold differences and 2×2 tables.

The tests only need, for every validation fold, the mean loss difference
``p_i^(j)`` (A − B) and, for 0/1 losses, the 2×2 table ``n00, n01, n10, n11``
(docs/methods.md), held in the same :class:`~cvreport.data.sufficient.FoldStatistics`
type as one results table's pair of models. For a batch of simulated data sets whose records were shuffled
into "positions", the fold of every position is a fixed template (see
:mod:`cvreport.simulate.designs`), so every per-fold sum of the whole batch is
one matrix product of the ``(reps, n)`` losses with the ``(n, folds)`` 0/1
indicator of the template — a single BLAS call per batch, whatever the number of
designs stacked into the indicator's columns. For 0/1 losses the product counts
each fold's records both models got wrong and each model's errors, which
:func:`cvreport.data.pair_counts.pair_tables` turns into the 2×2 tables, as it
does for a results table.

Examples
--------
>>> import numpy as np
>>> template = np.array([[0, 0, 1, 1]])           # one replication, two folds of two
>>> a = np.array([[1, 0, 1, 1]])                  # losses of A on positions 0..3
>>> b = np.array([[0, 0, 1, 0]])
>>> stats = fold_statistics(a, b, template, K=2, binary=True)
>>> stats.differences.tolist()
[[[0.5, 0.5]]]
>>> stats.tables.tolist()                          # n00, n01, n10, n11 per fold
[[[[0, 1, 0, 1], [1, 1, 0, 0]]]]
"""

from __future__ import annotations

import numpy as np

from cvreport.data.pair_counts import pair_tables
from cvreport.data.sufficient import FoldStatistics
from cvreport.errors import DataError

__all__ = [
    "FoldStatistics",
    "code_losses",
    "count_errors",
    "fold_indicator",
    "fold_statistics",
    "split_columns",
]


def fold_indicator(template: np.ndarray, K: int) -> np.ndarray:
    """The ``(n, m*K)`` float32 0/1 matrix: position ``p`` is in fold ``k`` of replication ``i``.

    Column ``i*K + k`` belongs to fold ``k`` of replication ``i``; unscored positions
    (``-1``) have no 1 in any column.

    >>> fold_indicator(np.array([[0, 1, -1]]), 2).tolist()
    [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    """
    template = np.atleast_2d(template)
    m, n = template.shape
    columns = np.arange(m)[:, None] * K + template
    matrix = np.zeros((n, m * K), dtype=np.float32)
    scored = template >= 0
    positions = np.broadcast_to(np.arange(n), (m, n))
    matrix[positions[scored], columns[scored]] = 1.0
    return matrix


def code_losses(loss_a: np.ndarray, loss_b: np.ndarray) -> np.ndarray:
    """Cell of the 2×2 table of every record as int8: 0 = n00, 1 = n01, 2 = n10, 3 = n11.

    >>> code_losses(np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0])).tolist()
    [0, 1, 2, 3]
    """
    a = np.asarray(loss_a).astype(np.int8, copy=False)
    b = np.asarray(loss_b).astype(np.int8, copy=False)
    return (2 * (1 - a) + (1 - b)).astype(np.int8, copy=False)


def count_errors(codes: np.ndarray, indicator: np.ndarray) -> np.ndarray:
    """``(reps, 3, C)`` errors of both models, of A and of B per indicator column (float32, exact).

    From the cells of :func:`code_losses`: both wrong is cell 0 (n00), A wrong
    cells 0 and 1, B wrong cells 0 and 2 (the even ones).

    >>> count_errors(np.array([[0, 1, 2, 3]]), np.ones((4, 1), np.float32)).tolist()
    [[[1.0], [2.0], [2.0]]]
    """
    reps, n = codes.shape
    flags = np.empty((reps, 3, n), dtype=np.float32)
    np.equal(codes, 0, out=flags[:, 0, :], casting="unsafe")
    np.less_equal(codes, 1, out=flags[:, 1, :], casting="unsafe")
    np.equal(codes & 1, 0, out=flags[:, 2, :], casting="unsafe")
    return np.matmul(flags, indicator)


def split_columns(
    counts: np.ndarray | None,
    sums: np.ndarray | None,
    sizes: np.ndarray,
    m: int,
    K: int,
    train_sizes: np.ndarray | None = None,
) -> FoldStatistics:
    """Assemble :class:`FoldStatistics` from error counts or loss-difference sums of m*K columns.

    ``counts`` is ``(reps, 3, m*K)`` (records both models got wrong, A's errors, B's
    errors: :func:`count_errors`) for 0/1 losses, else ``None``, and ``sums`` is the
    ``(reps, m*K)`` sum of per-record differences A − B; ``sizes`` and ``train_sizes`` are the
    validation and training records of every fold. The 2×2 tables are those of
    :func:`cvreport.data.pair_counts.pair_tables`, as for a results table.
    """
    sizes = np.asarray(sizes, dtype=np.int64).reshape(m, K)
    if train_sizes is not None:
        train_sizes = np.asarray(train_sizes, dtype=np.int64).reshape(m, K)
    if counts is not None:
        errors = np.rint(counts).astype(np.int64).reshape(counts.shape[0], 3, m, K)
        tables = pair_tables(errors[:, 0], errors[:, 1], errors[:, 2], sizes[None])
        differences = (tables[..., 1] - tables[..., 2]) / sizes
        return FoldStatistics(
            np.ascontiguousarray(differences), np.ascontiguousarray(tables), sizes, train_sizes
        )
    if sums is None:
        raise ValueError("split_columns needs counts or sums")
    differences = np.asarray(sums, dtype=np.float64).reshape(sums.shape[0], m, K) / sizes
    return FoldStatistics(differences, None, sizes, train_sizes)


def fold_statistics(
    loss_a: np.ndarray,
    loss_b: np.ndarray,
    template: np.ndarray,
    K: int,
    *,
    binary: bool,
) -> FoldStatistics:
    """Per-fold differences (and 2×2 tables) of a batch, losses given by shuffled position.

    Parameters
    ----------
    loss_a, loss_b : ndarray of shape (reps, n) or (reps, m, n)
        Loss of every record at its shuffled position; the 3-D form gives each
        replication its own losses (learners trained per fold).
    template : ndarray of shape (m, n)
        Validation fold of every position in every replication (``-1``: unscored).
    K : int
        Folds per replication.
    binary : bool
        Whether the losses are 0/1 (then the 2×2 tables are counted too).

    Returns
    -------
    FoldStatistics
        With training sizes ``n − n2``: every position outside a fold trains its models.
    """
    template = np.atleast_2d(template)
    m, n = template.shape
    a = np.asarray(loss_a)
    b = np.asarray(loss_b)
    if a.shape != b.shape or a.shape[-1] != n or a.ndim not in (2, 3):
        raise DataError(
            f"losses of shape {a.shape} and {b.shape} do not fit a template over n = {n} "
            "records; pass (reps, n) or (reps, m, n) arrays for both models"
        )
    sizes = np.stack([np.bincount(row[row >= 0], minlength=K) for row in template])
    train = n - sizes
    if a.ndim == 2:
        indicator = fold_indicator(template, K)
        if binary:
            counts = count_errors(code_losses(a, b), indicator)
            return split_columns(counts, None, sizes, m, K, train)
        return split_columns(None, (a - b) @ indicator.astype(np.float64), sizes, m, K, train)
    parts = [
        fold_statistics(a[:, i], b[:, i], template[i : i + 1], K, binary=binary) for i in range(m)
    ]
    differences = np.concatenate([p.differences for p in parts], axis=1)
    tables = None if not binary else np.concatenate([p.tables for p in parts], axis=1)
    return FoldStatistics(differences, tables, sizes, train)
