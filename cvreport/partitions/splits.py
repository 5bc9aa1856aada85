"""Designed m×2 cross-validation partitions, offered as scikit-learn splitters.

Random m×2 partitions make training sets of different replications overlap by
a random amount around ``n/4``, and a poor draw is not a rare event (Wang, Li & Li (2015)).
The designs here fix every overlap at ``n/4``:

* :class:`RandomMx2CV` — ``m`` independent random half-half partitions
  (Dietterich's 5×2cv), the baseline;
* :class:`Balanced5x2CV` — the balanced 5×2 partitions of Wang, Li & Li (2017), Table 1;
* :class:`BlockRegularizedCV` — block-regularized m×2 partitions: Yang et al.'s
  Table III for ``m = 5``, two-level orthogonal arrays (columns of a Hadamard
  matrix) for other ``m``; ``m = 3`` is the blocked 3×2 cross-validation.

Each splitter yields ``(train, test)`` index arrays in the order replication 1
fold 1, replication 1 fold 2, replication 2 fold 1, …, so it drops into
``cross_val_score`` and friends; scikit-learn itself is never imported.
``fold`` ``k`` of a replication is the validation fold of its ``k``-th split,
the same meaning as the ``fold`` column of a results table.

How the blocks are filled (docs/methods.md): records are shuffled, then dealt
round-robin into the ``N`` blocks (block sizes differ by at most one); with
``stratify=True`` each class is shuffled on its own and the classes are dealt one
after another without restarting the deal. The order in which blocks receive
records is chosen once per design so that any run of consecutive blocks splits
as evenly as possible between the two folds of every replication; for
``N = 4`` and ``N = 8`` blocks with ``m ≤ 5`` this keeps every class's count in
every fold within one record of half the class, and when ``n`` is not a
multiple of ``N`` it keeps the overlaps as close to ``n/4`` as equal blocks
allow. :meth:`max_overlap_deviation` reports what was achieved.

References
----------
Wang, Li & Li (2017): Wang, Li, Li (2017), Neural Processing Letters 46:1–13, Table 1.
Wang, Li & Li (2015): Wang, Li, Li (2015), Pattern Recognition Letters 65:211–217.
Yang et al.: Yang, Wang, Song, Li, *Block-regularized 5×2 cross-validated
McNemar's test*, Table III. Wang, Wang, Li, Yang (2017), Neural Computation
29(2):519–554 (general m). Wang, Wang, Jia, Li (2014), Neural Computation
26(1):208–235 (blocked 3×2).

Examples
--------
>>> cv = BlockRegularizedCV(m=5, random_state=0)
>>> cv.get_n_splits()
10
>>> train, test = next(cv.split(range(16)))
>>> len(train), len(test)
(8, 8)
>>> cv.overlaps(16)[0].tolist()  # training-set overlaps with replication 1
[8, 4, 4, 4, 4]
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from cvreport.errors import CVReportError, DataError

__all__ = [
    "Balanced5x2CV",
    "BlockRegularizedCV",
    "RandomMx2CV",
    "hadamard_matrix",
    "record_labels",
]

RandomState = int | np.random.Generator | np.random.RandomState | np.random.SeedSequence | None


# --------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------
def _n_records(X: Any) -> int:
    if isinstance(X, (int, np.integer)) and not isinstance(X, bool):
        n = int(X)
    elif getattr(X, "shape", None) is not None and len(X.shape) > 0:
        n = int(X.shape[0])
    else:
        try:
            n = len(X)
        except TypeError:
            raise DataError(
                f"cannot tell how many records {type(X).__name__} holds; pass an array, "
                "a DataFrame or the number of records"
            ) from None
    if n < 2:
        raise DataError(f"need at least 2 records to split, got n = {n}")
    return n


def record_labels(X: Any) -> np.ndarray:
    """Record labels of ``X``: its pandas index when unique, else positions ``0..n-1``.

    >>> record_labels(3).tolist()
    [0, 1, 2]
    >>> import pandas as pd
    >>> record_labels(pd.DataFrame({"a": [1, 2]}, index=["r1", "r2"])).tolist()
    ['r1', 'r2']
    """
    index = getattr(X, "index", None)
    if isinstance(index, pd.Index) and index.is_unique:
        return index.to_numpy()
    return np.arange(_n_records(X))


def _rng(random_state: RandomState) -> np.random.Generator:
    if isinstance(random_state, np.random.RandomState):
        # scikit-learn style: draw a seed so that repeated calls differ, as they do there
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    refused = isinstance(random_state, (bool, np.bool_, float, str, bytes))
    if refused or (isinstance(random_state, (int, np.integer)) and random_state < 0):
        raise CVReportError(
            f"random_state must be an int ≥ 0, a numpy Generator or None, got {random_state!r}"
        )
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError):
        raise CVReportError(
            f"random_state must be an int ≥ 0, a numpy Generator or None, got {random_state!r}"
        ) from None


def _class_codes(y: Any, n: int, who: str) -> np.ndarray:
    if y is None:
        raise DataError(f"{who}(stratify=True) needs the class labels: call split(X, y)")
    arr = np.asarray(y)
    if arr.ndim != 1 or len(arr) != n:
        raise DataError(
            f"y must be one label per record (shape ({n},)) for stratification, got shape {arr.shape}"
        )
    missing = pd.isna(arr)
    if missing.any():
        raise DataError(
            f"y has {int(missing.sum())} missing label(s) (first at position "
            f"{int(np.flatnonzero(missing)[0])}); stratification needs every record's class"
        )
    try:
        _, codes = np.unique(arr, return_inverse=True)
    except TypeError:  # labels numpy cannot sort (1 and "a"): in order of appearance
        codes, _ = pd.factorize(pd.Series(arr, dtype=object))
    return np.asarray(codes, dtype=np.int64).reshape(-1)


def _dealing_sequence(n: int, codes: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """Records in the order they are dealt: shuffled, class after class when stratified."""
    if codes is None:
        return rng.permutation(n)
    parts = [rng.permutation(np.flatnonzero(codes == c)) for c in range(int(codes.max()) + 1)]
    return np.concatenate(parts)


# --------------------------------------------------------------------------
# orthogonal arrays
# --------------------------------------------------------------------------
def _is_prime(q: int) -> bool:
    return q > 1 and all(q % p for p in range(2, math.isqrt(q) + 1))


def _jacobsthal(q: int) -> np.ndarray:
    squares = {(x * x) % q for x in range(1, q)}
    chi = np.array([0] + [1 if x in squares else -1 for x in range(1, q)], dtype=np.int64)
    i = np.arange(q)
    return chi[(i[None, :] - i[:, None]) % q]


@functools.lru_cache(maxsize=64)
def _hadamard(order: int) -> np.ndarray | None:
    if order == 1:
        return np.ones((1, 1), dtype=np.int64)
    if order == 2:
        return np.array([[1, 1], [1, -1]], dtype=np.int64)
    if order % 4:
        return None
    half = _hadamard(order // 2)
    if half is not None:  # Sylvester doubling (first, so that orders 4 and 8 are Sylvester's)
        return np.block([[half, half], [half, -half]])
    q = order - 1
    if _is_prime(q) and q % 4 == 3:  # Paley I
        core = np.zeros((order, order), dtype=np.int64)
        core[0, 1:], core[1:, 0], core[1:, 1:] = 1, -1, _jacobsthal(q)
        return core + np.eye(order, dtype=np.int64)
    q = order // 2 - 1
    if _is_prime(q) and q % 4 == 1:  # Paley II
        conf = np.zeros((q + 1, q + 1), dtype=np.int64)
        conf[0, 1:], conf[1:, 0], conf[1:, 1:] = 1, 1, _jacobsthal(q)
        plus = np.array([[1, 1], [1, -1]], dtype=np.int64)
        zero = np.array([[1, -1], [-1, -1]], dtype=np.int64)
        return np.kron(conf, plus) + np.kron(np.eye(q + 1, dtype=np.int64), zero)
    return None


def hadamard_matrix(order: int) -> np.ndarray:
    """A normalised Hadamard matrix (first column all ``+1``) of the given order.

    Built by Sylvester doubling and the two Paley constructions (prime ``q``),
    which cover every multiple of 4 below 52 and most above.

    Raises
    ------
    CVReportError
        When none of these constructions gives that order.

    >>> h = hadamard_matrix(12)
    >>> bool((h @ h.T == 12 * np.eye(12)).all()), bool((h[:, 0] == 1).all())
    (True, True)
    """
    h = _hadamard(int(order))
    if h is None:
        raise CVReportError(f"no Hadamard matrix of order {order} is constructed here")
    return h * h[:, :1]  # rows scaled so that the first column is all +1


# Block-by-replication sign matrices: +1 puts the block in the training set of the
# replication's first split (so it is validated in fold 2), -1 in its fold 1.
# Yang et al. Table III (blocks D1..D8): columns 4, 1, 2, 3, 5 of Sylvester's H8.
_H8_COLUMNS = (4, 1, 2, 3, 5, 6, 7)
# Blocked 3×2 (P1P2|P3P4, P1P3|P2P4, P1P4|P2P3): columns 2, 1, 3 of Sylvester's H4.
_H4_COLUMNS = (2, 1, 3)

# Wang, Li & Li (2017) Table 1, rows = half blocks P1¹, P1², P2¹, P2², P3¹, P3², P4¹, P4²; training
# sets {P1,P2}, {P1,P3}, {P1,P4}, {P2¹,P1²,P4¹,P3²}, {P2¹,P1²,P3¹,P4²}.
_BALANCED_TRAINING = ((0, 1, 2, 3), (0, 1, 4, 5), (0, 1, 6, 7), (2, 1, 6, 5), (2, 1, 4, 7))
BALANCED_SIGNS = np.array(
    [[1 if b in train else -1 for train in _BALANCED_TRAINING] for b in range(8)], dtype=np.int64
)


def block_regularized_signs(m: int) -> np.ndarray:
    """The ``(N, m)`` ±1 block design of block-regularized m×2 cross-validation.

    ``N`` is the smallest multiple of 4 above ``m`` with a Hadamard matrix
    constructed here; the columns are ``m`` non-constant columns of it (a
    two-level orthogonal array of strength 2), so every column splits the
    blocks in half and every two columns share ``N/4`` blocks (Wang, Wang, Li,
    Yang 2017). ``m = 5`` gives Yang et al.'s Table III, ``m = 3`` the blocked 3×2.

    >>> s = block_regularized_signs(5)
    >>> [(np.flatnonzero(s[:, j] > 0) + 1).tolist() for j in range(5)]  # Table III, first fold
    [[1, 2, 3, 4], [1, 3, 5, 7], [1, 2, 5, 6], [1, 4, 5, 8], [1, 3, 6, 8]]
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise CVReportError(f"m must be a positive integer number of replications, got {m!r}")
    m = int(m)
    order = 4 * (m // 4 + 1)
    while _hadamard(order) is None:
        order += 4
    if order == 4:
        return hadamard_matrix(4)[:, list(_H4_COLUMNS[:m])]
    if order == 8:
        return hadamard_matrix(8)[:, list(_H8_COLUMNS[:m])]
    return hadamard_matrix(order)[:, 1 : m + 1]


# --------------------------------------------------------------------------
# the order in which blocks receive records
# --------------------------------------------------------------------------
def _order_scores(signs: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Per candidate order: (worst fold imbalance over cyclic runs of blocks,
    worst overlap deviation over leading runs, worst fold imbalance over leading
    runs, summed overlap deviation over leading runs) — smaller is better."""
    n_blocks, m = signs.shape
    x = signs[orders].astype(np.float64)  # (P, N, m)
    doubled = np.concatenate([x, x], axis=1)
    cum = np.concatenate([np.zeros((len(orders), 1, m)), np.cumsum(doubled, axis=1)], axis=1)
    start = np.arange(n_blocks)[:, None]
    length = np.arange(1, n_blocks)[None, :]
    runs = cum[:, start + length] - cum[:, np.broadcast_to(start, (n_blocks, n_blocks - 1))]
    cyclic = np.abs(runs).max(axis=(1, 2, 3)) / 2
    lead = np.cumsum(x, axis=1)[:, :-1]  # (P, N-1, m)
    lead_fold = np.abs(lead).max(axis=(1, 2)) / 2
    if m < 2:
        zeros = np.zeros(len(orders))
        return np.stack([cyclic, zeros, lead_fold, zeros], axis=1)
    ii, jj = np.triu_indices(m, 1)
    prod = np.cumsum(x[:, :, ii] * x[:, :, jj], axis=1)[:, :-1]
    dev = np.abs(lead[:, :, ii] + lead[:, :, jj] + prod) / 4  # both-in-training minus L/4
    return np.stack([cyclic, dev.max(axis=(1, 2)), lead_fold, dev.sum(axis=(1, 2))], axis=1)


@functools.lru_cache(maxsize=64)
def _dealing_order_cached(signs_bytes: bytes, n_blocks: int, m: int) -> tuple[int, ...]:
    signs = np.frombuffer(signs_bytes, dtype=np.int64).reshape(n_blocks, m)
    if n_blocks <= 8:
        # exhaustive: cyclic runs do not depend on the starting block, so fix it,
        # then try every rotation of the best cyclic orders for the leading runs
        rest = np.array(list(itertools.permutations(range(1, n_blocks))), dtype=np.int64)
        cyclic_orders = np.concatenate([np.zeros((len(rest), 1), dtype=np.int64), rest], axis=1)
        cyclic_best = _order_scores(signs, cyclic_orders)[:, 0]
        keep = cyclic_orders[cyclic_best == cyclic_best.min()]
        shifts = (np.arange(n_blocks)[:, None] + np.arange(n_blocks)[None, :]) % n_blocks
        candidates = keep[:, shifts].reshape(-1, n_blocks)
    else:
        # too many orders to try: a fixed-seed random sample, sized to a work budget
        budget = max(64, 4_000_000 // (n_blocks * n_blocks * max(m, 1)))
        sampler = np.random.default_rng(20150814)
        candidates = np.argsort(sampler.random((budget, n_blocks)), axis=1)
        candidates[0] = np.arange(n_blocks)
    scores = _order_scores(signs, candidates)
    best = np.lexsort(scores.T[::-1])[0]
    return tuple(int(b) for b in candidates[best])


def _dealing_order(signs: np.ndarray) -> np.ndarray:
    signs = np.ascontiguousarray(signs, dtype=np.int64)
    return np.array(_dealing_order_cached(signs.tobytes(), *signs.shape), dtype=np.int64)


# --------------------------------------------------------------------------
# splitters
# --------------------------------------------------------------------------
class _Mx2Splitter:
    """Shared machinery: membership matrix -> splits, assignment table, overlaps."""

    n_folds = 2

    def __init__(self, *, stratify: bool = False, random_state: RandomState = None) -> None:
        self.stratify = bool(stratify)
        self.random_state = random_state

    # -- to implement -----------------------------------------------------
    @property
    def n_replications(self) -> int:
        raise NotImplementedError

    def _folds(self, n: int, codes: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
        """``(n, m)`` int8 array: 0 = validated in the replication's first split, 1 = second."""
        raise NotImplementedError

    # -- scikit-learn protocol ---------------------------------------------
    @property
    def n_repeats(self) -> int:
        """Number of replications (``m``), under scikit-learn's name for it."""
        return self.n_replications

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of (train, test) splits: ``2m``."""
        return 2 * self.n_replications

    def folds(self, X: Any, y: Any = None) -> np.ndarray:
        """Fold index (0 or 1) of every record in every replication, shape ``(n, m)``.

        Index 0 is the validation fold of the replication's first split.
        Deterministic when ``random_state`` is an int.
        """
        n = _n_records(X)
        codes = _class_codes(y, n, type(self).__name__) if self.stratify else None
        return self._folds(n, codes, _rng(self.random_state))

    def split(
        self, X: Any, y: Any = None, groups: Any = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train, test)`` positional index arrays, replication by replication.

        Parameters
        ----------
        X : array_like, DataFrame or int
            The data (only its length is used) or the number of records.
        y : array_like, optional
            Class labels; required when ``stratify=True``.
        groups : ignored
            Accepted for scikit-learn compatibility.
        """
        folds = self.folds(X, y)
        for j in range(folds.shape[1]):
            first = np.flatnonzero(folds[:, j] == 0)
            second = np.flatnonzero(folds[:, j] == 1)
            yield second, first
            yield first, second

    # -- beyond scikit-learn -------------------------------------------------
    def assignment(self, X: Any, y: Any = None) -> pd.DataFrame:
        """The partitions as a long table ``record, replication, fold`` (1-based).

        Store it beside the losses: ``fold`` is the fold in which the record is
        validated, exactly as a results table expects. Records are labelled by
        :func:`record_labels` (the DataFrame index when unique, else positions).
        """
        folds = self.folds(X, y)
        labels = record_labels(X)
        n, m = folds.shape
        rep = np.repeat(np.arange(1, m + 1), n)
        fold = folds.T.reshape(-1).astype(np.int64) + 1
        rec = np.tile(np.arange(n), m)
        order = np.lexsort((rec, fold, rep))
        return pd.DataFrame(
            {
                "record": labels[rec[order]],
                "replication": rep[order],
                "fold": fold[order],
            }
        )

    def overlaps(self, X: Any, y: Any = None) -> np.ndarray:
        """``(m, m)`` matrix of training-set overlaps ``|S_i ∩ S_j|`` of the first splits."""
        train = (self.folds(X, y) == 1).astype(np.int64)
        result: np.ndarray = train.T @ train
        return result

    def max_overlap_deviation(self, X: Any, y: Any = None) -> float:
        """Achieved ``max |X_ij − n/4|`` over pairs of replications: the raw deviation from n/4.

        Not the audit's ``Z_max = max |X − E X|`` (Wang, Li & Li 2015), which equals it
        when the halves of every replication are equal (even ``n``).

        ``0`` for the designed partitions when ``n`` is a multiple of the number of
        blocks; otherwise as close as equal blocks allow (e.g. ``1`` for
        :class:`BlockRegularizedCV` with ``n ≡ 4 (mod 8)``). When the two halves of a
        replication differ in size (odd ``n``), :func:`cvreport.partitions.audit.audit_overlap`
        measures from the exact expectation ``a b / n`` instead of ``n/4``.
        """
        n = _n_records(X)
        ov = self.overlaps(X, y).astype(np.float64)
        m = ov.shape[0]
        if m < 2:
            return 0.0
        ii, jj = np.triu_indices(m, 1)
        return float(np.abs(ov[ii, jj] - n / 4).max())

    def _params(self) -> dict[str, Any]:
        return {"stratify": self.stratify, "random_state": self.random_state}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"


class RandomMx2CV(_Mx2Splitter):
    """``m`` independent random half-half partitions: Dietterich's m×2 cross-validation.

    Parameters
    ----------
    m : int, default 5
        Number of replications of 2-fold cross-validation.
    stratify : bool, default False
        Deal each class alternately into the two folds, so that every fold holds
        half of each class (within half a record).
    random_state : int, Generator or None
        Seed; an int makes every call to :meth:`split` give the same partitions.

    Notes
    -----
    Training-set overlaps between replications vary at random around ``n/4``;
    Wang, Li & Li (2015) shows that badly unbalanced draws are common. Prefer
    :class:`BlockRegularizedCV` for new experiments.

    Examples
    --------
    >>> cv = RandomMx2CV(m=5, random_state=1)
    >>> [len(test) for _, test in cv.split(range(11))][:4]
    [6, 5, 6, 5]
    >>> cv.assignment(4).head(3)
       record  replication  fold
    0       0            1     1
    1       2            1     1
    2       1            1     2
    """

    def __init__(
        self, m: int = 5, *, stratify: bool = False, random_state: RandomState = None
    ) -> None:
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
            raise CVReportError(f"m must be a positive integer number of replications, got {m!r}")
        super().__init__(stratify=stratify, random_state=random_state)
        self.m = int(m)

    @property
    def n_replications(self) -> int:
        return self.m

    def _folds(self, n: int, codes: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
        folds = np.empty((n, self.m), dtype=np.int8)
        alternate = (np.arange(n) % 2).astype(np.int8)
        for j in range(self.m):
            folds[_dealing_sequence(n, codes, rng), j] = alternate
        return folds

    def _params(self) -> dict[str, Any]:
        return {"m": self.m, **super()._params()}


class _BlockDesignCV(_Mx2Splitter):
    """An m×2 design given by a ``(blocks, m)`` ±1 matrix; records are dealt into blocks."""

    @property
    def signs(self) -> np.ndarray:
        """``(N, m)`` ±1 matrix: +1 = block in the training set of the first split."""
        raise NotImplementedError

    @property
    def n_blocks(self) -> int:
        """Number of equal blocks ``N`` the records are dealt into."""
        return int(self.signs.shape[0])

    @property
    def n_replications(self) -> int:
        return int(self.signs.shape[1])

    def blocks(self, X: Any, y: Any = None) -> np.ndarray:
        """Block index (0-based) of every record."""
        n = _n_records(X)
        codes = _class_codes(y, n, type(self).__name__) if self.stratify else None
        return self._blocks(n, codes, _rng(self.random_state))

    def _blocks(self, n: int, codes: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
        order = _dealing_order(self.signs)
        sequence = _dealing_sequence(n, codes, rng)
        block = np.empty(n, dtype=np.int64)
        block[sequence] = order[np.arange(n) % len(order)]
        return block

    def _folds(self, n: int, codes: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
        block = self._blocks(n, codes, rng)
        result: np.ndarray = (self.signs[block] > 0).astype(np.int8)
        return result


class Balanced5x2CV(_BlockDesignCV):
    """Balanced 5×2 cross-validation (Wang, Li & Li (2017), Table 1).

    Four equal blocks ``P1..P4``, each cut into halves ``Pj¹, Pj²``; the first
    splits train on ``{P1,P2}``, ``{P1,P3}``, ``{P1,P4}``, ``{P2¹,P1²,P4¹,P3²}``
    and ``{P2¹,P1²,P3¹,P4²}`` and validate on the complement. Every two training
    sets of different replications share exactly ``n/4`` records when ``n`` is a
    multiple of 8. This is the design the calibrated balanced 5×2 F-test
    (``F(7, 5)``) assumes.

    Parameters
    ----------
    stratify : bool, default False
        Deal each class into the eight half blocks in turn so that every fold
        holds half of each class (within one record).
    random_state : int, Generator or None
        Seed of the shuffle before dealing.

    Examples
    --------
    >>> cv = Balanced5x2CV(random_state=0)
    >>> ov = cv.overlaps(40)
    >>> ov.diagonal().tolist(), sorted(set(ov[np.triu_indices(5, 1)].tolist()))
    ([20, 20, 20, 20, 20], [10])
    """

    def __init__(self, *, stratify: bool = False, random_state: RandomState = None) -> None:
        super().__init__(stratify=stratify, random_state=random_state)

    @property
    def signs(self) -> np.ndarray:
        return BALANCED_SIGNS


class BlockRegularizedCV(_BlockDesignCV):
    """Block-regularized m×2 cross-validation (Yang et al. Table III; Wang et al. 2017).

    Records are dealt into ``N`` equal blocks, ``N`` the smallest multiple of 4
    above ``m`` (8 for ``m = 5``); replication ``j`` trains its first split on the
    blocks where column ``j`` of a two-level orthogonal array is ``+1``. For
    ``m = 5`` the training folds are Yang et al.'s Table III: ``{1,2,3,4}``,
    ``{1,3,5,7}``, ``{1,2,5,6}``, ``{1,4,5,8}``, ``{1,3,6,8}``. ``m = 3`` is the
    blocked 3×2 cross-validation (partitions ``P1P2|P3P4``, ``P1P3|P2P4``,
    ``P1P4|P2P3``). When ``n`` is a multiple of ``N``, every fold has ``n/2``
    records and every two training sets of different replications share
    exactly ``n/4``.

    Parameters
    ----------
    m : int, default 5
        Number of replications.
    stratify : bool, default False
        Deal each class into the blocks in turn so that every fold holds half
        of each class (within one record for ``m ≤ 5``).
    random_state : int, Generator or None
        Seed of the shuffle before dealing.

    Examples
    --------
    >>> cv = BlockRegularizedCV(m=3, random_state=0)
    >>> cv.n_blocks, cv.get_n_splits()
    (4, 6)
    >>> cv.max_overlap_deviation(100), cv.max_overlap_deviation(102)
    (0.0, 0.5)
    >>> BlockRegularizedCV(m=5, random_state=0).max_overlap_deviation(300)  # n ≡ 4 (mod 8)
    1.0
    """

    def __init__(
        self, m: int = 5, *, stratify: bool = False, random_state: RandomState = None
    ) -> None:
        self._signs = block_regularized_signs(m)
        super().__init__(stratify=stratify, random_state=random_state)
        self.m = int(m)

    @property
    def signs(self) -> np.ndarray:
        return self._signs

    def _params(self) -> dict[str, Any]:
        return {"m": self.m, **super()._params()}
