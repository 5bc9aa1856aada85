"""Lay a validated long table of losses out as aligned fold blocks.

The input has one row per (replication, fold, model, record); the result is
one :class:`~cvreport.data.sufficient.FoldBlock` per (replication, fold): an
``(M, n)`` array of losses, one row per model, aligned by record.

Two routes lead to the same blocks:

* the *blocked* route, for data laid out as a cross-validation loop writes it
  (each (replication, fold, model) a contiguous run of rows, the models of a
  fold listing the same records in the same order): run boundaries are found
  by comparing neighbouring rows, the losses stay where they are and only the
  first model's records of each fold are encoded;
* the *regrouping* route, for rows in any order: every key is encoded to a
  small integer code and each loss is scattered, with the fold it was scored
  in, to its (model, replication, record) cell; a cell written twice, an
  occupied record missing a model, or models disagreeing on a record's fold
  shows up in one vectorised check over the cells. Each record's fold is then
  all the design check needs; the rows' (replication, fold, model) cells are
  counted only for an irregular table, or when integer labels leave gaps in
  their range. For 0/1 losses the cells are counted by pattern (which models
  got each record wrong, and which fold each record was in), which is all the
  sufficient statistics need; real-valued losses are not scattered but summed,
  with their squares, per (replication, fold, model) in the same pass over the
  rows (in record order from a cube of the losses only where two models' sums
  may be equal). Either way the fold blocks are laid out from the cells only
  when a per-record accessor asks for them.

The blocked route gives up (returns ``None``) at the first irregularity and
leaves the diagnosis to the regrouping route, which raises the precise error
(found, only then, by sorting the keys, in :func:`cvreport.data.validation.diagnose`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np
import pandas as pd

from cvreport.data.labels import (
    KEY_ORDERS,
    KeyColumn,
    encode_labels,
    first_appearance,
    relabel_used,
    text_codes,
)
from cvreport.data.pair_counts import pattern_rows
from cvreport.data.sufficient import (
    FoldBlock,
    MembershipPatterns,
    SufficientStatistics,
    membership_patterns,
    pattern_statistics,
)
from cvreport.data.validation import (
    Names,
    check_design_grid,
    check_magnitude,
    diagnose,
    first_nonfinite,
    is_binary,
    nonfinite_error,
    show,
)
from cvreport.errors import DataError
from cvreport.spelling import option

__all__ = [
    "FoldScoreLayout",
    "RecordLayout",
    "build_fold_score_layout",
    "build_record_layout",
    "laid_out",
]

_CHUNK = 1 << 16  # rows per chunk of the scatter (keeps the cell indices in cache)
_PROBE = 1 << 16  # rows inspected before trusting the blocked layout
_DENSE_SLACK = 1 << 20  # cells a dense (replication × record) layout may leave empty
_LOOSE_KEY_SPAN = 256  # integer replication/fold labels spanning this many are coded by offset
_COUNTED_MODELS = 12  # 0/1 losses of up to this many models are counted as patterns (2**12 a fold)
_MASKED_FOLDS = 3  # real-valued losses of up to this many folds are summed fold by fold


@dataclass(frozen=True, eq=False)
class RecordLayout:
    """A validated table of per-record losses, as aligned fold blocks.

    Attributes
    ----------
    replications, folds, models, records : pandas.Index
        Labels in the user's values: replications and folds sorted, models in
        order of first appearance.
    is_binary : bool
        Whether every loss is 0 or 1.
    route : str
        ``"blocked"`` or ``"regrouped"`` (how the rows were laid out).
    lay_out : callable
        Returns ``(blocks, membership)``; called once, when either is first read.
    counted : tuple or None
        For 0/1 losses regrouped from rows in any order: ``(loss_patterns,
        membership_patterns)``, counted from the scattered losses, from which
        :func:`~cvreport.data.sufficient.counted_statistics` gives the sufficient
        statistics without laying out the blocks. ``None`` otherwise.
    summed : SufficientStatistics or None
        For real-valued losses regrouped from rows in any order: the sufficient
        statistics, summed per (replication, fold, model) as the rows' folds are
        scattered, without laying out the blocks. ``None`` otherwise.
    blocks : tuple of FoldBlock
        One block per (replication, fold), in (replication, fold) order.
    membership : numpy.ndarray
        ``(n_records, m)`` int32 fold position of each record per replication (-1: absent).
    """

    replications: pd.Index
    folds: pd.Index
    models: pd.Index
    records: pd.Index
    is_binary: bool
    route: str
    lay_out: Callable[[], tuple[tuple[FoldBlock, ...], np.ndarray]] = field(repr=False)
    counted: tuple[np.ndarray, MembershipPatterns] | None = None
    summed: SufficientStatistics | None = None

    @cached_property
    def _laid_out(self) -> tuple[tuple[FoldBlock, ...], np.ndarray]:
        blocks, membership = self.lay_out()
        return tuple(blocks), membership

    @property
    def blocks(self) -> tuple[FoldBlock, ...]:
        return self._laid_out[0]

    @property
    def membership(self) -> np.ndarray:
        return self._laid_out[1]


def laid_out(
    blocks: Sequence[FoldBlock], membership: np.ndarray
) -> tuple[tuple[FoldBlock, ...], np.ndarray]:
    """Blocks and membership already at hand (``partial(laid_out, ...)`` is a picklable ``lay_out``)."""
    return tuple(blocks), membership


def _used_records(by_replication: np.ndarray) -> np.ndarray | None:
    """Codes of the records some replication holds, or ``None`` when every code is held.

    ``by_replication`` is the ``(m, n_codes)`` fold of each record code per
    replication (-1: absent).
    """
    used = (by_replication >= 0).any(axis=0)
    return None if used.all() else np.flatnonzero(used)


def _compress_records(
    by_replication: np.ndarray, blocks: list[FoldBlock], kept: np.ndarray | None
) -> tuple[np.ndarray, list[FoldBlock]]:
    """Drop the record codes not ``kept`` (``None``: keep all), renumbering the rest.

    Returns the ``(n_records, m)`` int32 membership and the blocks in the new codes.
    """
    if kept is None:
        return np.ascontiguousarray(by_replication.T, dtype=np.int32), blocks
    lookup = np.full(by_replication.shape[1], -1, dtype=np.int32)
    lookup[kept] = np.arange(kept.shape[0], dtype=np.int32)
    blocks = [FoldBlock(b.replication, b.fold, lookup[b.records], b.losses) for b in blocks]
    return np.ascontiguousarray(by_replication[:, kept].T, dtype=np.int32), blocks


# ----------------------------------------------------- route 1: rows already in fold blocks


def _blocked_starts(keys: Sequence[KeyColumn], n_rows: int) -> np.ndarray | None:
    """First row of each run of equal (replication, fold, model), or None if not blocked."""
    probe = min(n_rows, _PROBE)
    for key in keys:
        found = key.change_positions(probe)
        if found is None or found.shape[0] > max(64, probe // 32):
            return None
    limit = max(64, n_rows // 32)
    changes = []
    for key in keys:
        found = key.change_positions()
        if found is None or found.shape[0] > limit:
            return None
        changes.append(found)
    starts = np.union1d(np.zeros(1, dtype=np.int64), np.concatenate(changes))
    return starts if starts.shape[0] <= limit else None


def _record_codes(
    pieces: Sequence[np.ndarray],
    series: pd.Series,
    column: str,
    categories: pd.Index | None,
    n_replications: int,
) -> tuple[list[np.ndarray], int, Callable[[np.ndarray], pd.Index]]:
    """int32 codes of the record keys of some runs of rows.

    ``pieces`` hold raw integer records, or category codes when ``categories`` is
    given. Integers whose range is small enough for an ``(n_replications, range)``
    membership array are coded by offset, others are hashed.
    Returns the codes of each piece, the size of the code space and a function
    giving the labels of a set of codes.
    """
    if categories is not None:
        return [piece.astype(np.int32) for piece in pieces], len(categories), categories.take
    total = sum(piece.shape[0] for piece in pieces)
    dtype = series.dtype
    low = min(piece.min() for piece in pieces)
    high = max(piece.max() for piece in pieces)
    span = int(high) - int(low) + 1
    if n_replications * span <= 4 * total + _DENSE_SLACK and span < np.iinfo(np.int32).max:
        codes = [
            np.subtract(piece, low, out=np.empty(piece.shape[0], np.int32), casting="unsafe")
            for piece in pieces
        ]
        return codes, span, lambda used: pd.Index(used.astype(dtype) + low, dtype=dtype)
    joined = pd.Series(np.concatenate(pieces))
    raw, labels = encode_labels(joined, column, "record", "sorted", code_dtype=np.int32)
    bounds = np.cumsum([0] + [piece.shape[0] for piece in pieces])
    return [raw[a:b] for a, b in itertools.pairwise(bounds)], len(labels), labels.take


def _arrow_backed(series: pd.Series) -> bool:
    return isinstance(series.array, pd.arrays.ArrowExtensionArray)


def _blocked_layout(
    loss: np.ndarray,
    keys: Sequence[KeyColumn],
    record_series: pd.Series,
    names: Names,
    binary: bool,
) -> RecordLayout | None:
    """Lay out rows written fold by fold and model by model; None at any irregularity."""
    n_rows = loss.shape[0]
    categories: pd.Index | None = None
    if isinstance(record_series.dtype, pd.CategoricalDtype):
        record_values = record_series.cat.codes.to_numpy()
        if n_rows and record_values.min() < 0:
            return None  # the regrouping route names the missing records
        categories = record_series.cat.categories
    elif isinstance(record_series.dtype, np.dtype) and record_series.dtype.kind in "iu":
        record_values = record_series.to_numpy()
    elif _arrow_backed(record_series):
        record_values = None  # coded once the rows are known to be blocked
    else:
        return None  # text records are hashed once, on the regrouping route
    starts = _blocked_starts(keys, n_rows)
    if starts is None:
        return None
    if record_values is None:
        coded = text_codes(record_series)  # text of one width is coded without hashing
        if coded is None:
            return None  # other text records are hashed once, on the regrouping route
        record_values, categories = coded
    run_values = [key.values_at(starts) for key in keys]
    if any(values.isna().any() for values in run_values):
        return None  # the regrouping route names the missing keys
    (run_rep, replications), (run_fold, folds), (run_model, models) = (
        encode_labels(values, key.column or key.role, key.role, order)
        for values, key, order in zip(run_values, keys, KEY_ORDERS)
    )
    lengths = np.diff(np.r_[starts, n_rows])
    shape = (len(replications), len(folds), len(models))
    m, n_folds, n_models = shape
    cell = (run_rep.astype(np.int64) * n_folds + run_fold) * n_models + run_model
    run_at = np.full(m * n_folds * n_models, -1, dtype=np.int64)
    run_at[cell] = np.arange(cell.shape[0])
    if np.count_nonzero(run_at >= 0) != cell.shape[0]:
        return None  # a (replication, fold, model) in several runs
    run_at = run_at.reshape(shape)
    check_design_grid(run_at >= 0, replications, folds, models, names.model)

    cells = np.argwhere(run_at[:, :, 0] >= 0)
    references = []
    for i, j in cells:
        runs = run_at[i, j]
        first, n = starts[runs[0]], lengths[runs[0]]
        if (lengths[runs] != n).any():
            return None
        reference = record_values[first : first + n]
        for run in runs[1:]:
            if not np.array_equal(record_values[starts[run] : starts[run] + n], reference):
                return None
        references.append(reference)

    codes, space, labels_of = _record_codes(references, record_series, names.record, categories, m)
    by_replication = np.full((m, space), -1, dtype=np.int32)
    expected = np.zeros(m, dtype=np.int64)
    for (i, j), code in zip(cells, codes):
        by_replication[i, code] = j
        expected[i] += code.shape[0]
    if any(np.count_nonzero(by_replication[i] >= 0) != expected[i] for i in range(m)):
        return None  # a record twice in a replication

    blocks = []
    for (i, j), code in zip(cells, codes):
        runs = run_at[i, j]
        first, n = int(starts[runs[0]]), int(lengths[runs[0]])
        if np.array_equal(starts[runs], first + n * np.arange(n_models)):
            x = loss[first : first + n * n_models].reshape(n_models, n)  # a view
        else:
            x = np.stack([loss[starts[run] : starts[run] + n] for run in runs])
        blocks.append(FoldBlock(int(i), int(j), code, x))
    kept = _used_records(by_replication)
    membership, blocks = _compress_records(by_replication, blocks, kept)
    records = labels_of(np.arange(space) if kept is None else kept)
    return RecordLayout(
        replications,
        folds,
        models,
        records,
        binary,
        "blocked",
        partial(laid_out, blocks, membership),
    )


# ----------------------------------------------------- route 2: any order of rows


def _regrouped_layout(
    loss: np.ndarray,
    keys: Sequence[KeyColumn],
    record_series: pd.Series,
    names: Names,
    binary: bool,
) -> RecordLayout:
    """Lay out rows in any order by scattering each loss to its (model, replication, record)."""
    n_rows = loss.shape[0]
    rep_codes, replications = keys[0].encode("sorted", loose_span=_LOOSE_KEY_SPAN)
    fold_codes, folds = keys[1].encode("sorted", loose_span=_LOOSE_KEY_SPAN)
    # models come out in the order of their first row; their codes stay in the order the
    # encoding gives (no pass over the rows to renumber them): the cube's rows are reordered
    model_codes, coded_models = keys[2].encode("any")
    model_order = first_appearance(model_codes, len(coded_models))
    models = coded_models.take(model_order)
    record_codes, record_labels = encode_labels(
        record_series, names.record, "record", "sorted", code_dtype=np.int32, loose_span=n_rows
    )
    n_models = len(models)
    row_codes = (rep_codes, fold_codes, model_codes, record_codes)
    grid = (len(replications), len(folds), n_models, len(record_labels))

    # scattered first: when the cells turn out regular, each record's fold is all the
    # design check needs, and the rows' (replication, fold, model) cells are never counted;
    # real-valued losses are summed per cell on the way (when the cells are few)
    sum_cells = not binary and _summable(grid)
    scattered = _scatter(loss, row_codes, grid, binary, sum_cells=sum_cells)
    sizes = None if scattered is None else _fold_sizes(scattered, len(folds))
    if sizes is not None and sizes.any(axis=1).all() and sizes.any(axis=0).all():
        present = np.broadcast_to((sizes > 0)[:, :, None], (*sizes.shape, n_models))
        check_design_grid(present, replications, folds, models, names.model)
    else:  # irregular cells, or labels of the range that no row uses
        present = _cell_counts(row_codes, grid[:3]) > 0
        used_reps = np.asarray(present.any(axis=(1, 2)))
        used_folds = np.asarray(present.any(axis=(0, 2)))
        if not (used_reps.all() and used_folds.all()):  # drop them, then scatter again
            rep_codes = relabel_used(rep_codes, used_reps)
            replications = replications[used_reps]
            fold_codes = relabel_used(fold_codes, used_folds)
            folds = folds[used_folds]
            row_codes = (rep_codes, fold_codes, model_codes, record_codes)
            present = present[used_reps][:, used_folds]
            check_design_grid(present[:, :, model_order], replications, folds, models, names.model)
            grid = (len(replications), len(folds), n_models, len(record_labels))
            sum_cells = not binary and _summable(grid)
            scattered = _scatter(loss, row_codes, grid, binary, sum_cells=sum_cells)
        else:
            check_design_grid(present[:, :, model_order], replications, folds, models, names.model)
        if scattered is None:
            labels = (replications, folds, coded_models, record_labels)
            diagnose(row_codes, labels, names, loss)
    assert scattered is not None
    n_folds = len(folds)
    cube, fold_of, slots, packed = (
        scattered.cube,
        scattered.fold_of,
        scattered.slots,
        scattered.packed,
    )
    if slots.record is not None:  # only the records that occur were numbered
        record_labels = record_labels.take(slots.seen_records)
    n_records = slots.n_records
    reordered = not np.array_equal(model_order, np.arange(n_models))

    by_replication = slots.by_replication(fold_of)
    kept = _used_records(by_replication)
    records = record_labels.take(np.arange(n_records) if kept is None else kept)
    in_use = by_replication if kept is None else by_replication[:, kept]
    if not binary:
        # real-valued losses: every fold's sums and sums of squares, summed per cell in the
        # order of the rows; where two models' sums on a fold are close enough that their
        # exact sums may be equal, summed again from the cube in record order (two models
        # with the same loss on every record get the same sums). Models in code order,
        # reordered in the small result; the blocks are laid out, models reordered, only
        # if a per-record accessor asks for them
        order = model_order if reordered else None
        sizes = _fold_sizes(scattered, n_folds)
        counts = np.repeat(sizes, n_models).reshape((*sizes.shape, n_models))
        if cube is None and not _may_be_equal(
            scattered.sums, scattered.sumsq, counts, scattered.depth
        ):
            sums, sumsq = scattered.sums, scattered.sumsq
            sparse = slots.rep is not None
            lay_out = partial(_scattered_blocks, loss, row_codes, grid, kept, order, sparse)
        else:
            if cube is None:
                rescattered = _scatter(loss, row_codes, grid, binary, sparse=slots.rep is not None)
                assert rescattered is not None and rescattered.cube is not None
                cube = rescattered.cube
            sums, sumsq = _cube_sums(cube, fold_of, slots, n_folds)
            lay_out = partial(_cube_blocks, cube, fold_of, slots, n_folds, packed, kept, order)
        assert sums is not None and sumsq is not None
        summed = pattern_statistics(
            sums[:, :, model_order],
            sumsq[:, :, model_order],
            counts,
            None,
            membership_patterns(in_use.T, n_folds),
        )
        return RecordLayout(
            replications, folds, models, records, binary, "regrouped", lay_out, summed=summed
        )
    assert cube is not None
    if reordered:
        cube = cube[model_order]
    lay_out = partial(_cube_blocks, cube, fold_of, slots, n_folds, packed, kept)
    if not (packed and n_models <= _COUNTED_MODELS):
        return RecordLayout(
            replications, folds, models, records, binary, "regrouped", partial(laid_out, *lay_out())
        )
    # 0/1 losses: the sufficient statistics follow from counted patterns; the blocks
    # are laid out only if a per-record accessor asks for them
    counted = (_loss_patterns(cube, slots, n_folds), membership_patterns(in_use.T, n_folds))
    return RecordLayout(replications, folds, models, records, binary, "regrouped", lay_out, counted)


def _cell_counts(row_codes: Sequence[np.ndarray], shape: tuple[int, int, int]) -> np.ndarray:
    """Rows of each (replication, fold, model) cell, counted chunk by chunk (codes in cache)."""
    rep_codes, fold_codes, model_codes, _ = row_codes
    n_cells = int(np.prod(shape))
    counts = np.zeros(n_cells, dtype=np.int64)
    for start in range(0, rep_codes.shape[0], _CHUNK):
        stop = start + _CHUNK
        cell = rep_codes[start:stop].astype(np.intp)
        cell *= shape[1]
        cell += fold_codes[start:stop]
        cell *= shape[2]
        cell += model_codes[start:stop]
        counts += np.bincount(cell, minlength=n_cells)
    return counts.reshape(shape)


@dataclass(frozen=True, eq=False)
class _Scattered:
    """What :func:`_scatter` found: the regrouping cube, each slot's fold, the slots.

    ``cube`` holds the ``(M, n_slots)`` losses (models in code order; ``fold * 2 + loss``
    in one byte when ``packed``), ``None`` when the losses were summed per
    (replication, fold, model) cell instead (``sums``, ``sumsq``: ``(m, K, M)``, in the
    order of the rows, each chunk's sums added in turn; ``depth``: the most additions
    any loss went through, which bounds their rounding error).
    """

    cube: np.ndarray | None
    fold_of: np.ndarray
    slots: _Slots
    packed: bool
    sums: np.ndarray | None = None
    sumsq: np.ndarray | None = None
    depth: int = 0


def _summable(grid: tuple[int, int, int, int]) -> bool:
    """Whether real-valued losses are summed per (replication, fold, model) cell while scattered.

    Each chunk of rows is summed into every cell at once; with many cells (many
    replications, folds and models) the per-chunk sums would outweigh the chunk.
    """
    m, n_folds, n_models, _ = grid
    return m * n_folds * n_models <= min(_CHUNK // 8, np.iinfo(np.int16).max)


def _may_be_equal(sums: np.ndarray, sumsq: np.ndarray, counts: np.ndarray, depth: int) -> bool:
    """Whether two models on some fold may have equal exact sums and sums of squares.

    ``sums`` and ``sumsq`` (``(m, K, M)``) were summed in the order of the rows, each
    loss going through at most ``depth`` additions, so each is within
    ``γ = depth·u / (1 − depth·u)`` times the sum of the absolute values of its exact
    value (Higham 2002, *Accuracy and Stability of Numerical Algorithms*, §4.2). The sum
    of absolute losses is bounded by ``sqrt(n · Σ x²)`` (Cauchy–Schwarz), where a square
    below the smallest normal number may have been rounded to zero. Two models whose
    losses on a fold are the same numbers, in any order, have equal exact sums, so
    their computed ones differ by at most the sum of their two bounds: they are
    reported here (with a safety factor of four), never missed.
    """
    u = 2.0**-53
    gamma = depth * u / (1.0 - depth * u)
    squares = sumsq / (1.0 - gamma) * (1.0 + 8 * u)  # at least Σ fl(x²)
    exact_squares = squares / (1.0 - u) + counts * 2.0**-1022  # at least Σ x²
    absolute = np.sqrt(counts * exact_squares) * (1.0 + 8 * u)  # at least Σ |x|

    def apart(a: np.ndarray) -> np.ndarray:
        """``(m, K, M, M)``: the value of model ``a`` minus that of model ``b``."""
        return a[:, :, :, None] - a[:, :, None, :]

    def together(a: np.ndarray) -> np.ndarray:
        return a[:, :, :, None] + a[:, :, None, :]

    close = np.abs(apart(sums)) <= 4.0 * gamma * together(absolute)
    close &= np.abs(apart(sumsq)) <= 4.0 * gamma * together(squares)
    close &= (counts > 0)[:, :, :, None]
    n_models = sums.shape[2]
    close[:, :, np.arange(n_models), np.arange(n_models)] = False
    return bool(close.any())


def _scattered_blocks(
    loss: np.ndarray,
    row_codes: Sequence[np.ndarray],
    grid: tuple[int, int, int, int],
    kept: np.ndarray | None,
    model_order: np.ndarray | None,
    sparse: bool,
) -> tuple[tuple[FoldBlock, ...], np.ndarray]:
    """Fold blocks and membership of real-valued losses summed without a cube: scattered now.

    ``sparse``: the slots as they were numbered when the rows were first scattered.
    """
    scattered = _scatter(loss, row_codes, grid, False, sparse=sparse)
    assert scattered is not None and scattered.cube is not None  # these rows passed before
    return _cube_blocks(
        scattered.cube,
        scattered.fold_of,
        scattered.slots,
        grid[1],
        scattered.packed,
        kept,
        model_order,
    )


def _scatter(
    loss: np.ndarray,
    row_codes: Sequence[np.ndarray],
    grid: tuple[int, int, int, int],
    binary: bool,
    *,
    sum_cells: bool = False,
    sparse: bool | None = None,
) -> _Scattered | None:
    """Scatter each row's fold, and its loss, to its (model, replication, record) cell.

    ``grid`` is the number of replication, fold, model and record codes. With
    ``sum_cells`` (real-valued losses) the losses are not scattered: they and their
    squares are summed per (replication, fold, model) cell in the same pass over the
    rows, and only the folds are scattered. ``None`` unless every cell of an occupied
    slot was written once and the models of each slot agree on its fold (else a
    duplicate, a missing model or a record in two folds). ``sparse``: whether the slots
    number only the occupied (replication, record) cells (``None``: when they are few).
    """
    rep_codes, fold_codes, model_codes, record_codes = row_codes
    m, n_folds, n_models, n_records = grid
    n_rows = loss.shape[0]
    # one slot per (replication, record): dense when the table fills most of them
    slots = _Slots(m, n_records)
    inverse: np.ndarray | None = None
    if sparse is None:
        sparse = m * n_records * n_models > 2 * n_rows + _DENSE_SLACK
    if sparse:
        pairs, inverse = np.unique(
            rep_codes.astype(np.int64) * n_records + record_codes, return_inverse=True
        )
        inverse = inverse.ravel()
        slot_rep, slot_record = np.divmod(pairs, n_records)
        # number only the records that occur, so that no array spans unused ids
        seen_records = np.unique(slot_record)
        slot_record = np.searchsorted(seen_records, slot_record)
        slots = _Slots(m, seen_records.shape[0], slot_rep, slot_record, seen_records)
    n_slots = slots.n_slots

    # chunk by chunk, so that the intp cell indices stay in cache
    packed = binary and n_folds <= 63
    summing = sum_cells and not binary
    n_cells = m * n_folds * n_models
    sums = np.zeros(n_cells) if summing else None
    sumsq = np.zeros(n_cells) if summing else None
    cube: np.ndarray | None = None
    fold_flat = cube_flat = None
    if packed:  # fold and 0/1 loss share a byte (fold * 2 + loss): one scatter, little traffic
        cube = np.full((n_models, n_slots), -1, dtype=np.int8)
    else:
        fold_cube = np.full(
            (n_models, n_slots), -1, dtype=np.result_type(fold_codes.dtype, np.int8)
        )
        fold_flat = fold_cube.reshape(-1)
        if not summing:  # zeros (not empty): the sums of the real-valued cube read every slot
            cube = np.zeros((n_models, n_slots), dtype=np.int8 if binary else np.float64)
    if cube is not None:
        cube_flat = cube.reshape(-1)
    for start in range(0, n_rows, _CHUNK):
        stop = start + _CHUNK
        if inverse is None:
            slot = rep_codes[start:stop].astype(np.intp)
            slot *= slots.n_records
            slot += record_codes[start:stop]
        else:
            slot = inverse[start:stop].astype(np.intp)
        slot += model_codes[start:stop] * np.intp(n_slots)
        if fold_flat is None:
            value = fold_codes[start:stop].astype(np.int8) * np.int8(2)
            value += loss[start:stop].astype(np.int8)
            cube_flat[slot] = value
            continue
        fold_flat[slot] = fold_codes[start:stop]
        if cube_flat is not None:
            cube_flat[slot] = loss[start:stop]
            continue
        assert sums is not None and sumsq is not None
        # the (replication, fold, model) cell of each row, in int16 (few cells: _summable)
        cell16 = rep_codes[start:stop].astype(np.int16)
        cell16 *= np.int16(n_folds * n_models)
        cell16 += fold_codes[start:stop].astype(np.int16) * np.int16(n_models)
        cell16 += model_codes[start:stop]
        cell = cell16.astype(np.intp)
        x = loss[start:stop]
        sums += np.bincount(cell, weights=x, minlength=n_cells)
        sumsq += np.bincount(cell, weights=x * x, minlength=n_cells)
    del inverse
    if packed:
        assert cube is not None
        fold_cube = cube >> 1
    if np.count_nonzero(fold_cube >= 0) != n_rows or not (fold_cube == fold_cube[0]).all():
        return None
    if sums is None or sumsq is None:
        return _Scattered(cube, fold_cube[0], slots, packed)
    shape = (m, n_folds, n_models)
    # a loss goes through at most one addition per row of its chunk, then one per chunk
    depth = min(n_rows, _CHUNK) + -(-n_rows // _CHUNK)
    return _Scattered(
        None, fold_cube[0], slots, False, sums.reshape(shape), sumsq.reshape(shape), depth
    )


def _fold_sizes(scattered: _Scattered, n_folds: int) -> np.ndarray:
    """``(m, K)`` records of each fold, from the fold of every slot."""
    fold_of, slots = scattered.fold_of, scattered.slots
    sizes = np.zeros((slots.m, n_folds), dtype=np.int64)
    for i in range(slots.m):
        low, high = slots.span(i)
        here = fold_of[low:high]
        if n_folds <= 8:  # a comparison per fold is cheaper than widening every code to count it
            sizes[i] = [np.count_nonzero(here == j) for j in range(n_folds)]
        else:
            sizes[i] = np.bincount(here[here >= 0].astype(np.intp), minlength=n_folds)
    return sizes


@dataclass(frozen=True, eq=False)
class _Slots:
    """Where each (replication, record) cell of the regrouping cube sits.

    Dense: slot ``i * n_records + r`` for replication ``i`` and record code ``r``
    (``rep`` and ``record`` are ``None``). Otherwise one slot per occupied cell,
    sorted by replication, with its replication and record number in ``rep`` and
    ``record``; only records that occur are numbered (``seen_records``: their codes).
    """

    m: int
    n_records: int
    rep: np.ndarray | None = None
    record: np.ndarray | None = None
    seen_records: np.ndarray | None = None  # record codes of the sparse numbering

    @property
    def n_slots(self) -> int:
        return self.m * self.n_records if self.rep is None else int(self.rep.shape[0])

    def span(self, i: int) -> tuple[int, int]:
        """The slots of replication ``i``: ``[low, high)``."""
        if self.rep is None:
            return i * self.n_records, (i + 1) * self.n_records
        low, high = np.searchsorted(self.rep, [i, i + 1])
        return int(low), int(high)

    def records_at(self, low: int, positions: np.ndarray) -> np.ndarray:
        """int32 record codes of the slots ``low + positions``."""
        if self.record is None:
            return positions.astype(np.int32)
        return self.record[low + positions].astype(np.int32)

    def by_replication(self, fold_of: np.ndarray) -> np.ndarray:
        """``(m, n_records)`` fold of each record per replication (-1: absent)."""
        if self.rep is None:
            return fold_of.reshape(self.m, self.n_records)
        assert self.record is not None
        out = np.full((self.m, self.n_records), -1, dtype=fold_of.dtype)
        out[self.rep, self.record] = fold_of
        return out


def _cube_sums(
    cube: np.ndarray, fold_of: np.ndarray, slots: _Slots, n_folds: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(m, K, M)`` sums and sums of squares of every fold's losses, from the regrouping cube.

    ``cube`` holds the ``(M, n_slots)`` float64 losses (0 in empty slots), ``fold_of``
    each slot's fold (-1: empty). Chunk by chunk of slots, in slot (record) order, so
    that models with the same loss on every record get the same sums whatever the
    order of the rows: up to :data:`_MASKED_FOLDS` folds, the losses times each fold's
    mask are summed (numpy's pairwise sums); beyond, one weighted ``bincount`` for all
    models sums them over the slots' folds.
    """
    n_models = cube.shape[0]
    sums = np.zeros((slots.m, n_folds, n_models))
    sumsq = np.zeros((slots.m, n_folds, n_models))
    width = n_folds + 1  # bins of one model: empty slots (-1) in bin 0, which is left out
    first_bin = (np.arange(n_models, dtype=np.intp) * width + 1)[:, None]
    chunk = max(1, _CHUNK // n_models)  # the chunk's losses, squares and bins stay in cache
    for i in range(slots.m):
        low, high = slots.span(i)
        for start in range(low, high, chunk):
            stop = min(start + chunk, high)
            x = cube[:, start:stop]
            if n_folds <= _MASKED_FOLDS:
                squares = x * x
                for j in range(n_folds):
                    in_fold = fold_of[start:stop] == j
                    sums[i, j] += (x * in_fold).sum(axis=1)
                    sumsq[i, j] += (squares * in_fold).sum(axis=1)
                continue
            bins = (fold_of[start:stop] + first_bin).ravel()  # model k's bins after k * width
            x = x.ravel()
            found = np.bincount(bins, weights=x, minlength=n_models * width)
            sums[i] += found.reshape(n_models, width)[:, 1:].T
            found = np.bincount(bins, weights=x * x, minlength=n_models * width)
            sumsq[i] += found.reshape(n_models, width)[:, 1:].T
    return sums, sumsq


def _cube_blocks(
    cube: np.ndarray,
    fold_of: np.ndarray,
    slots: _Slots,
    n_folds: int,
    packed: bool,
    kept: np.ndarray | None,
    model_order: np.ndarray | None = None,
) -> tuple[tuple[FoldBlock, ...], np.ndarray]:
    """Fold blocks and membership of the regrouping cube (``(M, n_slots)``, fold in slots).

    ``model_order``: the cube's rows in the order of the table's models (``None``: as they are).
    """
    blocks = []
    for i in range(slots.m):
        low, high = slots.span(i)
        folds_here = fold_of[low:high]
        if n_folds <= 8:
            fold_rows = [np.flatnonzero(folds_here == j) for j in range(n_folds)]
        else:
            order = np.argsort(folds_here, kind="stable")  # radix sort of small codes
            bounds = np.searchsorted(folds_here[order], np.arange(n_folds + 1) - 0.5)
            fold_rows = [order[bounds[j] : bounds[j + 1]] for j in range(n_folds)]
        for j, rows in enumerate(fold_rows):
            if rows.shape[0] == 0:
                continue
            x = np.take(cube[:, low:high], rows, axis=1)
            if model_order is not None:
                x = x[model_order]
            if packed:
                x &= 1
            x = x.astype(np.float64, copy=False)
            blocks.append(FoldBlock(i, j, slots.records_at(low, rows), x))
    membership, blocks = _compress_records(slots.by_replication(fold_of), blocks, kept)
    return tuple(blocks), membership


def _loss_patterns(cube: np.ndarray, slots: _Slots, n_folds: int) -> np.ndarray:
    """Rows ``(i, j, bits, n)``: how many records of fold ``(i, j)`` each set of models got wrong.

    ``cube`` holds ``fold * 2 + loss`` of every model (row) and slot, -1 where the
    slot is empty. Per replication, one integer per slot joins model 0's value
    (shifted by one, so that an empty slot is 0) with the other models' losses,
    and one ``bincount`` counts them; :func:`~cvreport.data.pair_counts.pattern_rows`
    reads the counts in its code order.
    """
    n_models = cube.shape[0]
    shift = n_models - 1
    # where each code j · 2**M + bits of pattern_rows sits among this tally's keys
    codes = np.arange(n_folds << n_models, dtype=np.int64)
    fold, bits = codes >> n_models, codes & ((1 << n_models) - 1)
    at_key = ((2 * fold + (bits & 1) + 1) << shift) | (bits >> 1)
    rows = []
    for i in range(slots.m):
        low, high = slots.span(i)
        key = cube[0, low:high].astype(np.int32)
        key += 1
        key <<= shift
        for k in range(1, n_models):
            loss_k = np.bitwise_and(cube[k, low:high], 1, dtype=np.int32)
            loss_k <<= k - 1
            key |= loss_k
        tally = np.bincount(key, minlength=(2 * n_folds + 1) << shift)
        # empty slots (keys below 2**shift) are left out: no code sits there
        rows.append(pattern_rows(i, tally[at_key], n_models))
    return np.concatenate(rows)


def _key_columns(
    data: pd.DataFrame, model: str, replication: str | None, fold: str | None
) -> list[KeyColumn]:
    """The replication, fold and model key columns, in :data:`KEY_ORDERS`' order."""
    return [
        KeyColumn.of(data, "replication", replication),
        KeyColumn.of(data, "fold", fold),
        KeyColumn.of(data, "model", model),
    ]


def _row_describer(
    data: pd.DataFrame, keys: list[KeyColumn], record: pd.Series | None = None
) -> Callable[[np.ndarray], list[str]]:
    """Name rows by their index and keys (and record), for the error about bad values."""

    def describe_rows(positions: np.ndarray) -> list[str]:
        described = []
        for p in positions:
            parts = [f"{k.column}={show(k.series.iloc[p])}" for k in keys if k.series is not None]
            if record is not None:
                parts.append(f"{record.name}={show(record.iloc[p])}")
            described.append(f"row {show(data.index[p])} ({', '.join(parts)})")
        return described

    return describe_rows


def build_record_layout(
    data: pd.DataFrame,
    loss: np.ndarray,
    *,
    loss_what: str,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
    allow_blocked: bool = True,
    binary: bool | None = None,
) -> RecordLayout:
    """Validate a long table of per-record losses and lay it out as aligned fold blocks.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per (replication, fold, model, record).
    loss : numpy.ndarray
        The float64 loss of each row (a column of ``data`` or an evaluated formula).
    loss_what : str
        How to name the loss in messages, e.g. ``"loss 'loss'"``.
    model, replication, fold, record : str or None
        Column names; ``replication=None`` means a single replication and
        ``fold=None`` a single validation fold per replication.
    allow_blocked : bool
        Try the blocked route first (the regrouping route gives the same layout).
    binary : bool, optional
        Whether every loss is 0 or 1, when the caller already knows (else it is checked).

    Raises
    ------
    DataError, DesignError
        When the table is not a valid set of cross-validation results.

    Examples
    --------
    >>> df = pd.DataFrame({"model": ["a", "a", "b", "b"], "record": [1, 2, 1, 2],
    ...                    "loss": [0.0, 1.0, 1.0, 1.0]})
    >>> layout = build_record_layout(df, df["loss"].to_numpy(), loss_what="loss",
    ...                              model="model", replication=None, fold=None, record="record")
    >>> layout.blocks[0].losses.tolist()
    [[0.0, 1.0], [1.0, 1.0]]
    """
    n_rows = data.shape[0]
    if n_rows == 0:
        raise DataError("the table has no rows; give at least one loss per model and record")
    keys = _key_columns(data, model, replication, fold)
    names = Names(replication, fold, model, record)
    record_series = data[record]

    if binary is None:
        binary = is_binary(loss)
    if not binary and first_nonfinite(loss) >= 0:
        raise nonfinite_error(loss, loss_what, _row_describer(data, keys, record_series))
    if not binary:
        check_magnitude(loss, loss_what)

    if allow_blocked:
        layout = _blocked_layout(loss, keys, record_series, names, binary)
        if layout is not None:
            return layout
    return _regrouped_layout(loss, keys, record_series, names, binary)


# --------------------------------------------------------------------------- per-fold scores


@dataclass(frozen=True, eq=False)
class FoldScoreLayout:
    """A validated table of one score per (replication, fold, model)."""

    replications: pd.Index
    folds: pd.Index
    models: pd.Index
    values: np.ndarray  # (m, K, M) float64


def build_fold_score_layout(
    data: pd.DataFrame,
    values: np.ndarray,
    *,
    value_what: str,
    model: str,
    replication: str | None,
    fold: str | None,
) -> FoldScoreLayout:
    """Validate a table with one score per (replication, fold, model) and arrange it.

    Examples
    --------
    >>> df = pd.DataFrame({"fold": [1, 1, 2, 2], "model": ["a", "b", "a", "b"],
    ...                    "auc": [0.9, 0.8, 0.85, 0.8]})
    >>> layout = build_fold_score_layout(df, df["auc"].to_numpy(), value_what="auc",
    ...                                  model="model", replication=None, fold="fold")
    >>> layout.values.shape
    (1, 2, 2)
    """
    n_rows = data.shape[0]
    if n_rows == 0:
        raise DataError("the table has no rows; give one score per (replication, fold, model)")
    keys = _key_columns(data, model, replication, fold)
    if first_nonfinite(values) >= 0:
        raise nonfinite_error(values, value_what, _row_describer(data, keys))
    check_magnitude(values, value_what)
    (rep_codes, replications), (fold_codes, folds), (model_codes, models) = (
        key.encode(order) for key, order in zip(keys, KEY_ORDERS)
    )
    shape = (len(replications), len(folds), len(models))
    cell = (rep_codes.astype(np.int64) * shape[1] + fold_codes) * shape[2] + model_codes
    counts = np.bincount(cell, minlength=shape[0] * shape[1] * shape[2])
    repeated = np.flatnonzero(counts > 1)
    if repeated.shape[0]:
        shown = []
        for c in repeated[:3]:
            i, rest = divmod(int(c), shape[1] * shape[2])
            j, k = divmod(rest, shape[2])
            shown.append(
                f"{keys[0].column or 'replication'}={show(replications[i])}, "
                f"{keys[1].column or 'fold'}={show(folds[j])}, {model}={show(models[k])} "
                f"({counts[c]} rows)"
            )
        raise DataError(
            f"{repeated.shape[0]} (replication, fold, model) key(s) have more than one score: "
            f"{'; '.join(shown)}; a per-fold table holds one score per fold and model — "
            "aggregate or drop the extra rows (for per-record losses leave out "
            f"{option('per_fold', True)})"
        )
    check_design_grid(counts.reshape(shape) > 0, replications, folds, models, model)
    grid = np.zeros(shape[0] * shape[1] * shape[2])
    grid[cell] = values
    return FoldScoreLayout(replications, folds, models, grid.reshape(shape))
