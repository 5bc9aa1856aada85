"""Key columns encoded as small integer codes into their distinct labels.

Labels keep the user's values and dtype: replications and folds are sorted,
models kept in order of first appearance. Integer keys of a small range are
coded by offset, categoricals by their codes, anything else hashed (by Arrow
for Arrow-backed columns such as pandas' ``str``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from cvreport.data.fixed_width import fixed_width_codes
from cvreport.errors import DataError, describe_keys

__all__ = [
    "KEY_ORDERS",
    "KeyColumn",
    "Order",
    "encode_labels",
    "first_appearance",
    "labels_named",
    "refuse_labels_that_print_alike",
    "relabel_used",
    "sorted_order",
    "text_codes",
]

CONSTANT_LABEL = 1  # label of a replication or fold the data does not name

Order = Literal["sorted", "appearance", "any"]
KEY_ORDERS: tuple[Order, Order, Order] = ("sorted", "sorted", "appearance")  # rep, fold, model


def _code_dtype(n_labels: int) -> np.dtype:
    for dtype in (np.int8, np.int16, np.int32):
        if n_labels <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def sorted_order(labels: pd.Index) -> np.ndarray:
    """Positions that sort the labels; mixed types sort by type name, then text."""
    try:
        return np.asarray(labels.argsort(), dtype=np.intp)
    except TypeError:
        keys = [(type(v).__name__, str(v)) for v in labels]
        return np.asarray(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


def first_appearance(codes: np.ndarray, n_labels: int) -> np.ndarray:
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


def relabel_used(codes: np.ndarray, used: np.ndarray) -> np.ndarray:
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
    order of their first row; ``"any"`` in whichever order is cheapest (the caller
    orders them later, e.g. with :func:`first_appearance`). Integer columns with a small range are encoded by
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
    fixed = text_codes(series) if hashed else None
    if fixed is not None:  # text of one width: codes from its bytes, labels sorted
        codes, labels = fixed
        hashed = False
    if hashed:
        chunked = _arrow_array(series)
        if chunked is not None:
            raw, labels = _arrow_factorize(chunked, dtype)
        else:
            _refuse_bools_among_numbers(series, column, role)
            raw, uniques = pd.factorize(series)
            labels = pd.Index(uniques)
            refuse_labels_that_print_alike(labels, column, role)
        if n and raw.min() < 0:
            raise _missing_error(series, column, role)
        codes = raw
        if order == "sorted":  # "appearance" and "any": these codes are already in order
            permutation = sorted_order(labels)
            labels = labels.take(permutation)
            codes = _relabel(codes, permutation)
    elif order == "appearance" and len(labels) > 1:
        permutation = first_appearance(codes, len(labels))
        labels = labels.take(permutation)
        codes = _relabel(codes, permutation)
    target = np.dtype(code_dtype) if code_dtype is not None else _code_dtype(len(labels))
    return codes.astype(target, copy=False), labels


def labels_named(label: Any, labels: list[Any]) -> list[Any]:
    """The labels that ``label`` names: the one equal to it, else those that print as it.

    A user names a model by its text (``"1"`` on the command line finds the model
    ``1``); True names no model labelled 1, though Python counts ``True == 1``.
    More than one match (``1`` and ``"1"``) is for the caller to refuse.

    >>> labels_named("1", [1, 2]), labels_named(True, [1, 2]), labels_named(2, [1, 2])
    ([1], [], [2])
    """
    flags = bool | np.bool_
    for candidate in labels:
        if candidate == label and isinstance(candidate, flags) == isinstance(label, flags):
            return [candidate]
    return [candidate for candidate in labels if str(candidate) == str(label)]


def refuse_labels_that_print_alike(labels: pd.Index, column: str, role: str) -> None:
    """1 and "1" are two labels to Python but one to a reader (and to Arrow, DuckDB, a CSV)."""
    if labels.dtype != object or labels.shape[0] < 2:
        return
    text = pd.Series(labels.map(str))
    alike = text.duplicated(keep=False).to_numpy()
    if alike.any():
        first = text[alike].iloc[0]
        shown = describe_keys(list(labels[(text == first).to_numpy()]))
        groups = int(text[alike].nunique())
        more = f", and {groups - 1:,} more such group(s)" if groups > 1 else ""
        raise DataError(
            f"the {role} column {column!r} holds labels of different types that read the same "
            f"({shown}{more}): they would be shown, and read back from a file, as one label but "
            f"counted as two. Give the column one type, e.g. df[{column!r}] = "
            f"df[{column!r}].astype(str)"
        )


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


def text_codes(series: pd.Series) -> tuple[np.ndarray, pd.Index] | None:
    """Codes and sorted labels of an Arrow-backed text column of one width, or ``None``.

    Read from the bytes, without hashing (:mod:`cvreport.data.fixed_width`);
    ``None`` when that does not apply (the column then needs hashing).
    """
    chunked = _arrow_array(series)
    if chunked is None:
        return None
    fixed = fixed_width_codes(chunked, max(2 * series.shape[0], 1 << 16))
    if fixed is None:
        return None
    return fixed[0], pd.Index(pd.array(fixed[1], dtype=series.dtype))


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
            return pd.Series(np.full(positions.shape[0], CONSTANT_LABEL))
        return self.series.iloc[positions].reset_index(drop=True)

    def encode(self, order: Order, *, loose_span: int = 0) -> tuple[np.ndarray, pd.Index]:
        """Codes of every row and the labels they point to (see :func:`encode_labels`)."""
        if self.series is None or self.column is None:
            return np.zeros(self.n_rows, dtype=np.int8), pd.Index([CONSTANT_LABEL])
        return encode_labels(self.series, self.column, self.role, order, loose_span=loose_span)
