"""Per-fold 2×2 tables of two models' 0/1 losses, from error counts however they were counted.

For 0/1 losses every paired test reads, per validation fold, the 2×2 table
``n00, n01, n10, n11`` of a pair of models A and B: ``n00`` records both got
wrong, ``n01`` A wrong and B right, ``n10`` A right and B wrong, ``n11`` both
right (Dietterich 1998; Yang, Wang, Song & Li 2023). Every source of
results counts the same four numbers per fold, so the table is written once,
here, in :func:`pair_tables`, from what every route counts: the records both
models got wrong, each model's errors, and the fold's records.

How each route counts them:

* fold blocks held in memory: one ``X @ X.T`` per fold gives every pair's
  both-wrong count, with each model's errors on its diagonal
  (:func:`cvreport.data.sufficient.sufficient_statistics`);
* rows in any order, and a table held in another engine: the records of each
  fold are counted by *loss pattern* — which models got a record wrong, as the
  bits of an integer — in memory (a ``bincount``, :mod:`cvreport.data.layout`;
  per-record words decoded, :mod:`cvreport.data.pushdown`), both read by
  :func:`pattern_rows`, or by the engine's ``GROUP BY``; the rows
  ``(i, j, bits, n)`` become the same both-wrong matrices in
  :func:`co_errors_from_patterns`;
* simulated data sets: one matrix product of the batch's losses with the fold
  indicator (:mod:`cvreport.simulate.aggregate`).

References
----------
Dietterich, T. G. (1998). Approximate statistical tests for comparing
supervised classification learning algorithms. Neural Computation 10(7).
Yang, J., Wang, R., Song, Y., Li, J. (2023). Block-regularized 5×2 cross-validated
McNemar's test for comparing two classification algorithms. arXiv:2304.03990.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["co_errors_from_patterns", "pair_tables", "pattern_errors", "pattern_rows"]


def pair_tables(
    both_wrong: ArrayLike, wrong_a: ArrayLike, wrong_b: ArrayLike, records: ArrayLike
) -> np.ndarray:
    """The 2×2 tables ``n00, n01, n10, n11`` of a pair of models, on every fold.

    ``n00`` = both wrong, ``n01`` = A wrong and B right = ``wrong_a − n00``,
    ``n10`` = A right and B wrong = ``wrong_b − n00``, ``n11`` = both right =
    ``records − n00 − n01 − n10`` (Dietterich 1998; Yang et al. 2023).

    Parameters
    ----------
    both_wrong : array_like of int, shape (...)
        Records of each fold that both models got wrong.
    wrong_a, wrong_b : array_like of int, shape (...)
        Each model's errors on the fold.
    records : array_like of int, shape (...)
        Records of the fold (each scored by both models).

    Returns
    -------
    numpy.ndarray
        int64 of shape ``(..., 4)``: the table of every fold, last axis
        ``n00, n01, n10, n11``.

    Examples
    --------
    >>> pair_tables(1, 2, 2, 4).tolist()
    [1, 1, 1, 1]
    >>> pair_tables([[3, 0]], [[4, 1]], [[3, 2]], [[10, 10]]).tolist()
    [[[3, 1, 0, 6], [0, 1, 2, 7]]]
    """
    n00 = np.asarray(both_wrong, dtype=np.int64)
    n01 = np.asarray(wrong_a, dtype=np.int64) - n00
    n10 = np.asarray(wrong_b, dtype=np.int64) - n00
    n11 = np.asarray(records, dtype=np.int64) - n00 - n01 - n10
    return np.stack(np.broadcast_arrays(n00, n01, n10, n11), axis=-1)


def pattern_rows(replication: int, tally: np.ndarray, n_models: int) -> np.ndarray:
    """Rows ``(i, j, bits, n)`` of one replication from its tally of loss-pattern codes.

    Parameters
    ----------
    replication : int
        ``i``, the replication's position.
    tally : numpy.ndarray
        ``(K · 2**M,)`` int: how many records have code ``j · 2**M + bits`` — fold
        ``j``, and the models whose bit is set in ``bits`` wrong (a ``bincount`` of
        the codes of the replication's records).
    n_models : int
        ``M``.

    Returns
    -------
    numpy.ndarray
        ``(P, 4)`` int64, one row per code that occurs.

    Examples
    --------
    >>> pattern_rows(1, np.array([0, 2, 0, 1, 3, 0, 0, 0]), 2).tolist()
    [[1, 0, 1, 2], [1, 0, 3, 1], [1, 1, 0, 3]]
    """
    used = np.flatnonzero(tally)
    return np.column_stack(
        [
            np.full_like(used, replication),
            used >> n_models,
            used & ((1 << n_models) - 1),
            np.asarray(tally)[used],
        ]
    ).astype(np.int64)


def pattern_errors(loss_patterns: ArrayLike, n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of loss-pattern counts, and each row's error flag per model.

    Parameters
    ----------
    loss_patterns : array_like of int, shape (P, 4)
        Rows ``(i, j, bits, n)``: ``n`` records of fold ``j`` of replication ``i``
        on which exactly the models whose bit is set in ``bits`` (bit ``k`` for
        model ``k``) are wrong.
    n_models : int

    Returns
    -------
    rows : numpy.ndarray
        ``(P, 4)`` int64, the rows.
    wrong : numpy.ndarray
        ``(P, n_models)`` int64 0/1: whether model ``k`` is wrong in that pattern.

    Examples
    --------
    >>> rows, wrong = pattern_errors([[0, 0, 0b10, 5]], 2)
    >>> wrong.tolist()
    [[0, 1]]
    """
    rows = np.asarray(loss_patterns, dtype=np.int64).reshape(-1, 4)
    wrong = (rows[:, 2:3] >> np.arange(n_models, dtype=np.int64)) & 1
    return rows, wrong


def co_errors_from_patterns(loss_patterns: ArrayLike, shape: tuple[int, int, int]) -> np.ndarray:
    """Every pair's both-wrong count per fold, from counts of the records' loss patterns.

    A pair's both-wrong count on a fold is the sum of ``n`` over the patterns of
    that fold that hold both models' bits; a model's errors (the diagonal), over
    the patterns that hold its bit. One product ``flags.T @ (flags · n)`` per
    fold gives them all.

    Parameters
    ----------
    loss_patterns : array_like of int, shape (P, 4)
        Rows ``(i, j, bits, n)`` as in :func:`pattern_errors`.
    shape : tuple of int
        ``(m, K, M)``: replications, folds, models.

    Returns
    -------
    numpy.ndarray
        ``(m, K, M, M)`` int64: ``[i, j, a, b]`` records of fold ``(i, j)`` that
        ``a`` and ``b`` both got wrong; the diagonal holds each model's errors.

    Examples
    --------
    >>> rows = [[0, 0, 0b11, 1], [0, 0, 0b01, 1], [0, 0, 0b10, 1], [0, 0, 0, 1]]
    >>> co = co_errors_from_patterns(rows, (1, 1, 2))
    >>> co[0, 0].tolist()
    [[2, 1], [1, 2]]
    >>> pair_tables(co[..., 0, 1], co[..., 0, 0], co[..., 1, 1], 4).tolist()
    [[[1, 1, 1, 1]]]
    """
    m, n_folds, n_models = shape
    rows, wrong = pattern_errors(loss_patterns, n_models)
    co_errors = np.zeros((m, n_folds, n_models, n_models), dtype=np.int64)
    weighted = wrong * rows[:, 3:4]
    cell = rows[:, 0] * n_folds + rows[:, 1]
    flat = co_errors.reshape(m * n_folds, n_models, n_models)
    for c in np.unique(cell):
        here = cell == c
        flat[c] = weighted[here].T @ wrong[here]
    return co_errors
