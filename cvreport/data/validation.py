"""Check a long table of cross-validation losses and lay it out as aligned fold blocks.

The input has one row per (replication, fold, model, record). This module
checks it (typed errors whose messages name the offending columns and keys)
and turns it into one :class:`~cvreport.data.sufficient.FoldBlock` per
(replication, fold): an ``(M, n)`` array of losses, one row per model, aligned
by record.

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
  shows up in one vectorised check over the cells.

The blocked route gives up (returns ``None``) at the first irregularity and
leaves the diagnosis to the regrouping route, which raises the precise error
(found, only then, by sorting the keys).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

import numpy as np
import pandas as pd

from cvreport.data.sufficient import FoldBlock
from cvreport.errors import DataError, DesignError, describe_keys

__all__ = [
    "FoldScoreLayout",
    "KeyColumn",
    "RecordLayout",
    "build_fold_score_layout",
    "build_record_layout",
    "check_design_grid",
    "encode_labels",
    "is_binary",
    "loss_values",
    "require_columns",
    "show",
]

_CHUNK = 1 << 16  # rows per chunk of the elementwise checks (keeps temporaries in cache)
_PROBE = 1 << 16  # rows inspected before trusting the blocked layout
_CONSTANT_LABEL = 1  # label of a replication or fold the data does not name
_DENSE_SLACK = 1 << 20  # cells a dense (replication × record) layout may leave empty
_HEAD_ROWS = 1 << 12  # rows whose labels are read first when few labels are expected
_LOOSE_KEY_SPAN = 256  # integer replication/fold labels spanning this many are coded by offset

Order = Literal["sorted", "appearance"]
_KEY_ORDERS: tuple[Order, Order, Order] = ("sorted", "sorted", "appearance")  # rep, fold, model


# --------------------------------------------------------------------------- columns


def show(value: object) -> str:
    """``repr`` of a label as the user wrote it (``1``, not ``np.int64(1)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def require_columns(data: object, roles: Mapping[str, str | None], how_to_fix: str) -> None:
    """Raise :class:`DataError` unless ``data`` is a DataFrame holding every named column.

    ``roles`` maps a role ("loss", "model", ...) to a column name, or ``None`` when
    the role is not taken by a column.
    """
    if not isinstance(data, pd.DataFrame):
        raise DataError(
            f"expected a pandas DataFrame of per-record losses, got {type(data).__name__}; "
            "convert it with pandas.DataFrame(...) first"
        )
    missing = [(role, col) for role, col in roles.items() if col is not None and col not in data]
    if missing:
        named = ", ".join(f"{role} column {col!r}" for role, col in missing)
        raise DataError(
            f"missing {named}; the data has columns {describe_keys(data.columns, 12)}. {how_to_fix}"
        )
    used = [col for col in roles.values() if col is not None]
    repeated = sorted({col for col in used if used.count(col) > 1}, key=str)
    if repeated:
        raise DataError(
            f"column {describe_keys(repeated)} is given for more than one role "
            f"({', '.join(f'{r}={c!r}' for r, c in roles.items() if c in repeated)}); "
            "each role needs its own column"
        )
    ambiguous = [col for col in used if not isinstance(data[col], pd.Series)]
    if ambiguous:
        raise DataError(
            f"the data has several columns named {describe_keys(ambiguous)}; rename them so "
            "that each name is unique"
        )


def loss_values(series: pd.Series, what: str) -> np.ndarray:
    """Return a numeric column as a float64 array (a view when it already is one).

    ``what`` names the column in messages, e.g. ``"loss column 'loss'"``.
    """
    if series.shape[0] == 0:
        raise DataError(
            f"the table has no rows, so {what} is empty; give at least one row per model"
        )
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "O":
        series = _numbers_in_objects(series, what)
        dtype = series.dtype
    numeric = pd.api.types.is_bool_dtype(dtype) or (
        pd.api.types.is_numeric_dtype(dtype) and dtype.kind != "c"
    )
    if not numeric or isinstance(dtype, pd.CategoricalDtype):
        example = series.iloc[:3].tolist()
        raise DataError(
            f"{what} must hold numbers, but its dtype is {dtype} (e.g. {describe_keys(example)}); "
            "give a numeric loss, or compute one in the formula, e.g. "
            "'{pred != truth} ~ model | replication + fold'"
        )
    if dtype == np.float64:
        return series.to_numpy()
    if isinstance(dtype, np.dtype):
        return series.to_numpy(dtype=np.float64)
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def _numbers_in_objects(series: pd.Series, what: str) -> pd.Series:
    """An object column of Python numbers as floats; text or other objects raise DataError.

    Missing values (None) become NaN and are reported with the other non-finite losses.
    """
    values = series.to_numpy()
    is_number = np.fromiter(
        (
            v is None
            or v is pd.NA
            or (isinstance(v, (int, float, np.number)) and not isinstance(v, complex))
            for v in values
        ),
        dtype=bool,
        count=values.shape[0],
    )
    if not is_number.all():
        bad = np.flatnonzero(~is_number)
        shown = ", ".join(f"row {show(series.index[p])}: {values[p]!r}" for p in bad[:3])
        more = f" and {bad.shape[0] - 3} more" if bad.shape[0] > 3 else ""
        raise DataError(
            f"{what} must hold numbers, but {bad.shape[0]} of its {values.shape[0]} values are "
            f"not ({shown}{more}); fix those rows, or convert the column with "
            "pandas.to_numeric(...) if the numbers were read as text"
        )
    return pd.Series(
        np.array(
            [np.nan if v is None or v is pd.NA else float(v) for v in values], dtype=np.float64
        ),
        index=series.index,
        name=series.name,
    )


def is_binary(values: np.ndarray) -> bool:
    """Whether every value is exactly 0 or 1 (chunked, so temporaries stay small)."""
    for start in range(0, values.shape[0], _CHUNK):
        chunk = values[start : start + _CHUNK]
        if not np.all((chunk == 0) | (chunk == 1)):
            return False
    return True


def first_nonfinite(values: np.ndarray) -> int:
    """Position of the first NaN or infinite value, or -1 when all are finite."""
    for start in range(0, values.shape[0], _CHUNK):
        chunk = values[start : start + _CHUNK]
        if not np.isfinite(chunk).all():
            return start + int(np.argmin(np.isfinite(chunk)))
    return -1


def nonfinite_error(
    values: np.ndarray, what: str, describe_rows: Callable[[np.ndarray], list[str]]
) -> DataError:
    """Build the error that says how many losses are NaN or infinite, and where."""
    bad = np.flatnonzero(~np.isfinite(values))
    n_nan = int(np.isnan(values[bad]).sum())
    n_inf = bad.shape[0] - n_nan
    where = "; ".join(describe_rows(bad[:3]))
    more = f" and {bad.shape[0] - 3} more" if bad.shape[0] > 3 else ""
    return DataError(
        f"{what} has {bad.shape[0]} value(s) that are not finite numbers "
        f"({n_nan} NaN, {n_inf} infinite): {where}{more}; drop those rows or fix their losses "
        "(a model that failed on a record should get its worst loss, not NaN)"
    )


def check_magnitude(values: np.ndarray, what: str) -> None:
    """Raise :class:`DataError` when sums of squared values would overflow float64.

    The tests square losses and their differences and sum them over many records;
    losses near 1e154 or beyond would turn those sums into inf and the statistics
    into NaN without a word, so they are refused with a request to rescale.
    """
    if values.shape[0] == 0:
        return
    largest = float(max(abs(float(values.max())), abs(float(values.min()))))
    with np.errstate(over="ignore"):
        total = np.float64(largest) ** 2 * np.float64(4 * values.shape[0])
    if not np.isfinite(total):
        raise DataError(
            f"{what} reaches {largest:.3g} in absolute value, so its sums of squares overflow "
            "(they exceed the largest float); rescale the losses (e.g. divide them by a power "
            "of ten; the t and F tests are unchanged by the scale)"
        )


# --------------------------------------------------------------------------- labels


def _code_dtype(n_labels: int) -> np.dtype:
    for dtype in (np.int8, np.int16, np.int32):
        if n_labels <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _sorted_order(labels: pd.Index) -> np.ndarray:
    """Positions that sort the labels; mixed types sort by type name, then text."""
    try:
        return np.asarray(labels.argsort(), dtype=np.intp)
    except TypeError:
        keys = [(type(v).__name__, str(v)) for v in labels]
        return np.asarray(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


def _first_appearance(codes: np.ndarray, n_labels: int) -> np.ndarray:
    """Label codes in the order of their first row, scanning growing prefixes only."""
    first = np.full(n_labels, -1, dtype=np.int64)
    start, size = 0, 1024
    while start < codes.shape[0] and (first < 0).any():
        chunk = codes[start : start + size]
        seen, where = np.unique(chunk, return_index=True)
        new = first[seen] < 0
        first[seen[new]] = where[new] + start
        start += size
        size *= 4
    return np.argsort(first, kind="stable")


def _relabel_used(codes: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Renumber codes after dropping the labels that are not ``used``."""
    lookup = np.cumsum(used, dtype=codes.dtype) - 1
    return lookup[codes]


def _relabel(codes: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Recode so that old code ``order[t]`` becomes ``t``."""
    if np.array_equal(order, np.arange(order.shape[0])):
        return codes
    lookup = np.empty(order.shape[0], dtype=codes.dtype)
    lookup[order] = np.arange(order.shape[0], dtype=codes.dtype)
    return lookup[codes]


def _missing_error(series: pd.Series, column: str, role: str) -> DataError:
    n_missing = int(series.isna().sum())
    rows = describe_keys(series.index[series.isna().to_numpy()][:5].tolist())
    return DataError(
        f"{role} column {column!r} has {n_missing} missing value(s) (rows {rows}); every row "
        f"needs a {role} label — fill or drop those rows"
    )


def encode_labels(
    series: pd.Series,
    column: str,
    role: str,
    order: Order,
    *,
    code_dtype: type[np.integer] | None = None,
    loose_span: int = 0,
) -> tuple[np.ndarray, pd.Index]:
    """Encode a key column as small integer codes into its distinct labels.

    Labels keep the user's values and dtype. ``order="sorted"`` puts them in sorted
    order (the categories' order for a categorical column); ``"appearance"`` in the
    order of their first row. Integer columns with a small range are encoded by
    offset, without hashing; when that range spans at most ``loose_span`` integers,
    every integer of it is a label, used or not (the caller drops the unused ones),
    which saves a counting pass.

    Examples
    --------
    >>> codes, labels = encode_labels(pd.Series([3, 1, 3, 2]), "fold", "fold", "sorted")
    >>> codes.tolist(), labels.tolist()
    ([2, 0, 2, 1], [1, 2, 3])
    >>> codes, labels = encode_labels(pd.Series(["tree", "lr", "tree"]), "model", "model",
    ...                               "appearance")
    >>> codes.tolist(), labels.tolist()
    ([0, 1, 0], ['tree', 'lr'])
    """
    n = series.shape[0]
    dtype = series.dtype
    codes: np.ndarray
    labels: pd.Index
    hashed = False
    if isinstance(dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy()
        if n and codes.min() < 0:
            raise _missing_error(series, column, role)
        categories = series.cat.categories
        used = np.flatnonzero(np.bincount(codes, minlength=len(categories)))
        labels = categories.take(used)
        if used.shape[0] < len(categories):
            lookup = np.full(len(categories), -1, dtype=np.int64)
            lookup[used] = np.arange(used.shape[0])
            codes = lookup[codes]
    elif isinstance(dtype, np.dtype) and dtype.kind in "iu" and n:
        values = series.to_numpy()
        low, high = values.min(), values.max()
        span = int(high) - int(low) + 1
        if span <= max(2 * n, 1 << 16):
            codes = np.subtract(values, low, out=np.empty(n, _code_dtype(span)), casting="unsafe")
            used = (
                np.arange(span)
                if span <= loose_span
                else np.flatnonzero(np.bincount(codes, minlength=span))
            )
            labels = pd.Index(used.astype(dtype) + low, dtype=dtype)
            if used.shape[0] < span:
                lookup = np.zeros(span, dtype=_code_dtype(used.shape[0]))
                lookup[used] = np.arange(used.shape[0])
                codes = lookup[codes]
        else:
            hashed = True
    else:
        hashed = True
    if hashed:
        chunked = _arrow_array(series)
        if chunked is not None:
            raw, labels = _arrow_factorize(chunked, dtype)
        else:
            _refuse_bools_among_numbers(series, column, role)
            raw, uniques = pd.factorize(series)
            labels = pd.Index(uniques)
        if n and raw.min() < 0:
            raise _missing_error(series, column, role)
        codes = raw
        if order == "sorted":
            permutation = _sorted_order(labels)
            labels = labels.take(permutation)
            codes = _relabel(codes, permutation)
    elif order == "appearance" and len(labels) > 1:
        permutation = _first_appearance(codes, len(labels))
        labels = labels.take(permutation)
        codes = _relabel(codes, permutation)
    target = np.dtype(code_dtype) if code_dtype is not None else _code_dtype(len(labels))
    return codes.astype(target, copy=False), labels


def _refuse_bools_among_numbers(series: pd.Series, column: str, role: str) -> None:
    """True equals 1 in Python: labels 1 and True would silently become one key."""
    if series.dtype != object or series.empty:
        return
    types = set(series.map(type).unique())
    flags = any(issubclass(t, (bool, np.bool_)) for t in types)
    numbers_ = any(
        issubclass(t, (int, float, np.number)) and not issubclass(t, (bool, np.bool_))
        for t in types
    )
    if flags and numbers_:
        raise DataError(
            f"the {role} column {column!r} mixes True/False with numbers; Python counts True "
            "as 1 and False as 0, so labels such as 1 and True would merge into one. Make the "
            f"labels text first, e.g. df[{column!r}] = df[{column!r}].astype(str)"
        )


def _arrow_array(series: pd.Series) -> Any | None:
    """The pyarrow ChunkedArray behind an arrow-backed column (e.g. pandas' ``str``), if any."""
    array = series.array
    if isinstance(array, pd.arrays.ArrowExtensionArray):
        return array.__arrow_array__()
    return None


def _arrow_factorize(chunked: Any, dtype: Any) -> tuple[np.ndarray, pd.Index]:
    """Codes in order of first appearance (-1 for nulls) and labels, by arrow's hashing."""
    import pyarrow.compute as pc

    array = chunked.chunk(0) if chunked.num_chunks == 1 else chunked.combine_chunks()
    encoded = pc.dictionary_encode(array)
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    labels = pd.Index(pd.array(encoded.dictionary.to_pylist(), dtype=dtype))
    return codes, labels


def _change_positions(series: pd.Series) -> np.ndarray | None:
    """Rows whose value differs from the row before, or ``None`` if not cheap to find."""
    n = series.shape[0]
    if n < 2:
        return np.empty(0, dtype=np.int64)
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        values = series.cat.codes.to_numpy()
    elif isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        values = series.to_numpy()
    else:
        chunked = _arrow_array(series)
        if chunked is None:
            return None
        import pyarrow.compute as pc

        differs = pc.fill_null(pc.not_equal(chunked.slice(1), chunked.slice(0, n - 1)), True)
        positions = pc.indices_nonzero(differs).to_numpy()
        return positions.astype(np.int64) + 1
    return np.flatnonzero(values[1:] != values[:-1]) + 1


@dataclass(frozen=True)
class KeyColumn:
    """A replication, fold or model key: a data column, or absent (one constant label)."""

    role: str
    column: str | None
    series: pd.Series | None
    n_rows: int

    @classmethod
    def of(cls, data: pd.DataFrame, role: str, column: str | None) -> KeyColumn:
        """The key ``role`` held in ``column`` of ``data`` (``None``: not in the data)."""
        series = None if column is None else data[column]
        return cls(role, column, series, data.shape[0])

    def change_positions(self, stop: int | None = None) -> np.ndarray | None:
        """Rows (below ``stop``) where the key changes, or ``None`` if not cheap to find."""
        if self.series is None:
            return np.empty(0, dtype=np.int64)
        series = self.series if stop is None else self.series.iloc[:stop]
        return _change_positions(series)

    def values_at(self, positions: np.ndarray) -> pd.Series:
        """The key's values at the given rows."""
        if self.series is None:
            return pd.Series(np.full(positions.shape[0], _CONSTANT_LABEL))
        return self.series.iloc[positions].reset_index(drop=True)

    def encode(self, order: Order, *, loose_span: int = 0) -> tuple[np.ndarray, pd.Index]:
        """Codes of every row and the labels they point to (see :func:`encode_labels`)."""
        if self.series is None or self.column is None:
            return np.zeros(self.n_rows, dtype=np.int8), pd.Index([_CONSTANT_LABEL])
        return encode_labels(self.series, self.column, self.role, order, loose_span=loose_span)


# --------------------------------------------------------------------------- the layout


@dataclass(frozen=True, eq=False)
class RecordLayout:
    """A validated table of per-record losses, as aligned fold blocks.

    Attributes
    ----------
    replications, folds, models, records : pandas.Index
        Labels in the user's values: replications and folds sorted, models in
        order of first appearance.
    blocks : tuple of FoldBlock
        One block per (replication, fold), in (replication, fold) order.
    membership : numpy.ndarray
        ``(n_records, m)`` int32 fold position of each record per replication (-1: absent).
    is_binary : bool
        Whether every loss is 0 or 1.
    route : str
        ``"blocked"`` or ``"regrouped"`` (how the rows were laid out).
    """

    replications: pd.Index
    folds: pd.Index
    models: pd.Index
    records: pd.Index
    blocks: tuple[FoldBlock, ...]
    membership: np.ndarray
    is_binary: bool
    route: str


@dataclass(frozen=True)
class _Names:
    """Column names of the keys, for messages (``None``: the key is not a column)."""

    replication: str | None
    fold: str | None
    model: str
    record: str

    @property
    def columns(self) -> list[str]:
        """The key columns the data names, in (replication, fold, model, record) order."""
        return [c for c in (self.replication, self.fold, self.model, self.record) if c is not None]

    def missing_blocks_hint(self) -> str:
        """A hint for a table that names no replication or no fold column ('' if it names both)."""
        absent = [
            role
            for role, column in (("replication", self.replication), ("fold", self.fold))
            if column is None
        ]
        if not absent:
            return ""
        return (
            f"the table names no {' and no '.join(absent)} column, so rows that differ only "
            f"in the {' or '.join(absent)} look alike: if the data hold several replications "
            "or folds, name those columns (e.g. 'loss ~ model | replication + fold', or "
            "replication=..., fold=...)."
        )


def check_design_grid(
    present: np.ndarray,
    replications: pd.Index,
    folds: pd.Index,
    models: pd.Index,
    model_column: str,
) -> None:
    """Check which (replication, fold, model) cells hold data.

    Raises :class:`DataError` when there are fewer than two models or a model is
    absent from a fold, and :class:`DesignError` when replications differ in their
    number of folds or in how the folds are labelled.
    """
    if len(models) < 2:
        raise DataError(
            f"at least two models are needed to compare, but model column {model_column!r} "
            f"holds only {describe_keys(models.tolist())}; add the results of another model"
        )
    fold_present = np.asarray(present.any(axis=2))
    n_folds = fold_present.sum(axis=1)
    if (n_folds != n_folds[0]).any():
        shown = []
        for count in np.unique(n_folds):
            i = int(np.flatnonzero(n_folds == count)[0])
            shown.append(
                f"replication {show(replications[i])} has {count} "
                f"(folds {describe_keys(folds[fold_present[i]].tolist())})"
            )
        raise DesignError(
            "replications have different numbers of folds: "
            + "; ".join(shown)
            + "; every replication must use the same number of folds K (drop the incomplete "
            "replications, or, for repeated hold-out, give each replication a single fold)"
        )
    differs = np.flatnonzero((fold_present != fold_present[0]).any(axis=1))
    if differs.shape[0]:
        i = int(differs[0])
        raise DesignError(
            f"replication {show(replications[i])} uses folds "
            f"{describe_keys(folds[fold_present[i]].tolist())} but replication "
            f"{show(replications[0])} uses {describe_keys(folds[fold_present[0]].tolist())}; "
            "label the folds the same way in every replication (e.g. 1..K); for repeated "
            "hold-out leave the fold out: 'loss ~ model | replication'"
        )
    absent = fold_present[:, :, None] & ~present
    if absent.any():
        cells = np.argwhere(absent)
        shown = [
            f"model {show(models[k])} in replication {show(replications[i])}, fold {show(folds[j])}"
            for i, j, k in cells[:3]
        ]
        raise DataError(
            f"{cells.shape[0]} (replication, fold, model) combination(s) have no rows: "
            + "; ".join(shown)
            + "; every model must be scored on every fold — drop the incomplete model or "
            "replication, or add its results"
        )


def _diagnose(
    codes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    labels: tuple[pd.Index, pd.Index, pd.Index, pd.Index],
    names: _Names,
    loss: np.ndarray,
) -> NoReturn:
    """Find and raise the precise error of an irregular table (slow; only on failure)."""
    rep, fold, model, record = (c.astype(np.int64) for c in codes)
    replications, folds, models, records = labels
    n_folds, n_models, n_records = len(folds), len(models), len(records)
    key_columns = "[" + ", ".join(repr(c) for c in names.columns) + "]"
    key_roles = ", ".join(names.columns)

    full = ((rep * n_folds + fold) * n_models + model) * n_records + record
    order = np.argsort(full, kind="stable")
    sorted_full = full[order]
    starts = np.flatnonzero(np.r_[True, sorted_full[1:] != sorted_full[:-1]])
    counts = np.diff(np.r_[starts, sorted_full.shape[0]])
    repeated = np.flatnonzero(counts > 1)
    if repeated.shape[0]:
        sorted_loss = loss[order]
        differ = np.minimum.reduceat(sorted_loss, starts) != np.maximum.reduceat(
            sorted_loss, starts
        )
        shown = []
        for t in repeated[:3]:
            rest, r_code = divmod(int(sorted_full[starts[t]]), n_records)
            rest, k = divmod(rest, n_models)
            i, j = divmod(rest, n_folds)
            parts = []
            if names.replication is not None:
                parts.append(f"{names.replication}={show(replications[i])}")
            if names.fold is not None:
                parts.append(f"{names.fold}={show(folds[j])}")
            parts += [f"{names.model}={show(models[k])}", f"{names.record}={show(records[r_code])}"]
            values = np.unique(sorted_loss[starts[t] : starts[t] + counts[t]])
            what = f" with losses {', '.join(f'{v:g}' for v in values[:3])}" if differ[t] else ""
            shown.append(f"{', '.join(parts)} ({counts[t]} rows){what}")
        n_conflicting = int(np.count_nonzero(differ[repeated]))
        if names.missing_blocks_hint():
            advice = names.missing_blocks_hint()
            if not n_conflicting:
                advice += (
                    " If they are plain repeats (same loss), keep one row per key, e.g. "
                    f"data.drop_duplicates({key_columns})."
                )
        elif n_conflicting:
            advice = (
                f"the rows of {n_conflicting} of those keys disagree on the loss, so dropping "
                "duplicates would keep one at random: find out which row is right (e.g. results "
                "appended twice, or a replication or fold column left out) and keep only that one"
            )
        else:
            advice = (
                f"they repeat the same loss; keep one row per key, e.g. "
                f"data.drop_duplicates({key_columns})"
            )
        raise DataError(
            f"{repeated.shape[0]} ({key_roles}) key(s) appear in more than one row: "
            f"{'; '.join(shown)}; {advice}"
        )

    triples = np.unique((rep * n_records + record) * n_folds + fold)
    pairs, first, counts = np.unique(triples // n_folds, return_index=True, return_counts=True)
    split = np.flatnonzero(counts > 1)
    if split.shape[0]:
        shown = []
        for t in split[:3]:
            i, r_code = divmod(int(pairs[t]), n_records)
            in_folds = triples[first[t] : first[t] + counts[t]] % n_folds
            where = (
                f" in replication {show(replications[i])}" if names.replication is not None else ""
            )
            shown.append(
                f"{names.record} {show(records[r_code])}{where} is in "
                f"folds {describe_keys(folds.take(in_folds).tolist())}"
            )
        if names.replication is None:
            advice = (
                f"the table names no replication column, so all of column {names.fold!r} is "
                "read as one replication: if the data hold several replications, name that "
                "column too ('loss ~ model | replication + fold')"
            )
        else:
            advice = (
                f"check the columns {names.replication!r} and {names.fold!r} (in a formula the "
                "replication comes first: 'loss ~ model | replication + fold')"
            )
        raise DataError(
            f"{split.shape[0]} record(s) are scored in more than one fold of the same "
            f"replication: {'; '.join(shown)}; each record belongs to exactly one validation "
            f"fold per replication — {advice}"
        )

    cell_record = (rep * n_folds + fold) * n_records + record
    order = np.argsort(cell_record, kind="stable")
    sorted_keys = cell_record[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    sizes = np.diff(np.r_[starts, sorted_keys.shape[0]])
    short = np.flatnonzero(sizes < n_models)
    if short.shape[0]:
        if (sizes == 1).all():
            raise DataError(
                f"no record is scored by more than one model: each value of the record column "
                f"{names.record!r} occurs for one model only (e.g. "
                f"{describe_keys(records[:3].tolist())}), so the models' losses cannot be "
                "paired; the record column must name the data point (the same id for every "
                "model), not the row of the table"
            )
        shown = []
        for t in short[:3]:
            rows = order[starts[t] : starts[t] + sizes[t]]
            cell, r_code = divmod(int(sorted_keys[starts[t]]), n_records)
            i, j = divmod(cell, n_folds)
            have = set(model[rows].tolist())
            lacking = [models[k] for k in range(n_models) if k not in have]
            shown.append(
                f"replication {show(replications[i])}, fold {show(folds[j])}, {names.record} "
                f"{show(records[r_code])} has no loss for model(s) {describe_keys(lacking)}"
            )
        raise DataError(
            f"the models are scored on different records within a fold ({short.shape[0]} "
            f"record(s) lack some model): {'; '.join(shown)}; every model must be scored on the "
            "same records of each fold — drop the records some model lacks"
        )
    raise DataError(  # pragma: no cover - every irregularity is named above
        "the table could not be laid out as one row per (replication, fold, model, record); "
        f"check the columns {key_columns}"
    )


def _compress_records(
    by_replication: np.ndarray,
    blocks: list[FoldBlock],
    labels_of: Callable[[np.ndarray], pd.Index],
) -> tuple[np.ndarray, list[FoldBlock], pd.Index]:
    """Drop record codes no replication uses, renumbering the rest.

    ``by_replication`` is the ``(m, n_codes)`` fold of each record code per
    replication (-1: absent); the result's membership is ``(n_records, m)`` int32.
    """
    used = (by_replication >= 0).any(axis=0)
    if used.all():
        membership = np.ascontiguousarray(by_replication.T, dtype=np.int32)
        return membership, blocks, labels_of(np.arange(used.shape[0]))
    kept = np.flatnonzero(used)
    lookup = np.full(used.shape[0], -1, dtype=np.int32)
    lookup[kept] = np.arange(kept.shape[0], dtype=np.int32)
    blocks = [FoldBlock(b.replication, b.fold, lookup[b.records], b.losses) for b in blocks]
    membership = np.ascontiguousarray(by_replication[:, kept].T, dtype=np.int32)
    return membership, blocks, labels_of(kept)


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


def _blocked_layout(
    loss: np.ndarray,
    keys: Sequence[KeyColumn],
    record_series: pd.Series,
    names: _Names,
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
    else:
        return None  # text records are hashed once, on the regrouping route
    starts = _blocked_starts(keys, n_rows)
    if starts is None:
        return None
    run_values = [key.values_at(starts) for key in keys]
    if any(values.isna().any() for values in run_values):
        return None  # the regrouping route names the missing keys
    (run_rep, replications), (run_fold, folds), (run_model, models) = (
        encode_labels(values, key.column or key.role, key.role, order)
        for values, key, order in zip(run_values, keys, _KEY_ORDERS)
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
    membership, blocks, records = _compress_records(by_replication, blocks, labels_of)
    return RecordLayout(
        replications, folds, models, records, tuple(blocks), membership, binary, "blocked"
    )


# ----------------------------------------------------- route 2: any order of rows


def _regrouped_layout(
    loss: np.ndarray,
    keys: Sequence[KeyColumn],
    record_series: pd.Series,
    names: _Names,
    binary: bool,
) -> RecordLayout:
    """Lay out rows in any order by scattering each loss to its (model, replication, record)."""
    n_rows = loss.shape[0]
    rep_codes, replications = keys[0].encode("sorted", loose_span=_LOOSE_KEY_SPAN)
    fold_codes, folds = keys[1].encode("sorted", loose_span=_LOOSE_KEY_SPAN)
    model_codes, models = keys[2].encode("appearance")
    record_codes, record_labels = encode_labels(
        record_series, names.record, "record", "sorted", code_dtype=np.int32, loose_span=n_rows
    )
    n_models, n_records = len(models), len(record_labels)

    shape = (len(replications), len(folds), n_models)
    n_cells = int(np.prod(shape))
    cell_counts = np.zeros(n_cells, dtype=np.int64)
    for start in range(0, n_rows, _CHUNK):  # chunked: the cell codes stay in cache
        stop = start + _CHUNK
        cell = rep_codes[start:stop].astype(np.intp)
        cell *= shape[1]
        cell += fold_codes[start:stop]
        cell *= n_models
        cell += model_codes[start:stop]
        cell_counts += np.bincount(cell, minlength=n_cells)
    present = (cell_counts > 0).reshape(shape)
    # drop replication and fold labels of the range that no row uses
    used_reps = np.asarray(present.any(axis=(1, 2)))
    used_folds = np.asarray(present.any(axis=(0, 2)))
    if not used_reps.all():
        rep_codes = _relabel_used(rep_codes, used_reps)
        replications = replications[used_reps]
    if not used_folds.all():
        fold_codes = _relabel_used(fold_codes, used_folds)
        folds = folds[used_folds]
    present = present[used_reps][:, used_folds]
    check_design_grid(present, replications, folds, models, names.model)
    m, n_folds = len(replications), len(folds)

    row_codes = (rep_codes, fold_codes, model_codes, record_codes)
    all_labels = (replications, folds, models, record_labels)

    # one slot per (replication, record): dense when the table fills most of them
    dense = m * n_records * n_models <= 2 * n_rows + _DENSE_SLACK
    slot_rep: np.ndarray | None = None
    slot_record: np.ndarray | None = None
    inverse: np.ndarray | None = None
    if dense:
        n_slots = m * n_records
    else:
        pairs, inverse = np.unique(
            rep_codes.astype(np.int64) * n_records + record_codes, return_inverse=True
        )
        n_slots = pairs.shape[0]
        inverse = inverse.ravel()
        slot_rep, slot_record = np.divmod(pairs, n_records)
        # number only the records that occur, so that no array spans unused ids
        seen_records = np.unique(slot_record)
        slot_record = np.searchsorted(seen_records, slot_record)
        record_labels = record_labels.take(seen_records)
        n_records = seen_records.shape[0]

    # scatter each row to its (model, slot) cell with the fold it was scored in; in a
    # regular table every cell of an occupied slot is written once and the models of
    # a slot agree on its fold (else a duplicate, a missing model or a record in two folds)
    # (chunk by chunk, so that the intp cell indices stay in cache)
    packed = binary and n_folds <= 63
    if packed:  # fold and 0/1 loss share a byte (fold * 2 + loss): one scatter, little traffic
        cube = np.full((n_models, n_slots), -1, dtype=np.int8)
        fold_flat = None
    else:
        fold_cube = np.full(
            (n_models, n_slots), -1, dtype=np.result_type(fold_codes.dtype, np.int8)
        )
        fold_flat = fold_cube.reshape(-1)
        cube = np.empty((n_models, n_slots), dtype=np.int8 if binary else np.float64)
    cube_flat = cube.reshape(-1)
    for start in range(0, n_rows, _CHUNK):
        stop = start + _CHUNK
        if inverse is None:
            slot = rep_codes[start:stop].astype(np.intp)
            slot *= n_records
            slot += record_codes[start:stop]
        else:
            slot = inverse[start:stop].astype(np.intp)
        slot += model_codes[start:stop] * np.intp(n_slots)
        if fold_flat is None:
            value = fold_codes[start:stop].astype(np.int8) * np.int8(2)
            value += loss[start:stop].astype(np.int8)
            cube_flat[slot] = value
        else:
            fold_flat[slot] = fold_codes[start:stop]
            cube_flat[slot] = loss[start:stop]
    del inverse
    if packed:
        fold_cube = cube >> 1
    if np.count_nonzero(fold_cube >= 0) != n_rows or not (fold_cube == fold_cube[0]).all():
        _diagnose(row_codes, all_labels, names, loss)
    fold_of = fold_cube[0]
    del fold_cube

    blocks = []
    for i in range(m):
        if dense:
            low, high = i * n_records, (i + 1) * n_records
        else:
            assert slot_rep is not None
            low, high = np.searchsorted(slot_rep, [i, i + 1])
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
            if dense:
                records = rows.astype(np.int32)
            else:
                assert slot_record is not None
                records = slot_record[low + rows].astype(np.int32)
            x = np.take(cube[:, low:high], rows, axis=1)
            if packed:
                x &= 1
            blocks.append(FoldBlock(i, j, records, x.astype(np.float64)))
    if dense:
        by_replication = fold_of.reshape(m, n_records)
    else:
        assert slot_rep is not None and slot_record is not None
        by_replication = np.full((m, n_records), -1, dtype=fold_of.dtype)
        by_replication[slot_rep, slot_record] = fold_of
    membership, blocks, records_index = _compress_records(
        by_replication, blocks, record_labels.take
    )
    return RecordLayout(
        replications,
        folds,
        models,
        records_index,
        tuple(blocks),
        membership,
        binary,
        "regrouped",
    )


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
    keys = [
        KeyColumn.of(data, "replication", replication),
        KeyColumn.of(data, "fold", fold),
        KeyColumn.of(data, "model", model),
    ]
    names = _Names(replication, fold, model, record)
    record_series = data[record]

    binary = is_binary(loss)
    if not binary and first_nonfinite(loss) >= 0:

        def describe_rows(positions: np.ndarray) -> list[str]:
            return [
                f"row {show(data.index[p])} ("
                + ", ".join(
                    f"{k.column}={show(k.series.iloc[p])}" for k in keys if k.series is not None
                )
                + f", {record}={show(record_series.iloc[p])})"
                for p in positions
            ]

        raise nonfinite_error(loss, loss_what, describe_rows)
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
    keys = [
        KeyColumn.of(data, "replication", replication),
        KeyColumn.of(data, "fold", fold),
        KeyColumn.of(data, "model", model),
    ]
    if first_nonfinite(values) >= 0:

        def describe_rows(positions: np.ndarray) -> list[str]:
            return [
                f"row {show(data.index[p])} ("
                + ", ".join(
                    f"{k.column}={show(k.series.iloc[p])}" for k in keys if k.series is not None
                )
                + ")"
                for p in positions
            ]

        raise nonfinite_error(values, value_what, describe_rows)
    check_magnitude(values, value_what)
    (rep_codes, replications), (fold_codes, folds), (model_codes, models) = (
        key.encode(order) for key, order in zip(keys, _KEY_ORDERS)
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
            "aggregate or drop the extra rows (for per-record losses use ResultsTable(...) or "
            "from_formula without per_fold=True, i.e. without --per-fold on the command line)"
        )
    check_design_grid(counts.reshape(shape) > 0, replications, folds, models, model)
    grid = np.zeros(shape[0] * shape[1] * shape[2])
    grid[cell] = values
    return FoldScoreLayout(replications, folds, models, grid.reshape(shape))
