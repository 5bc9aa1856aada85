"""Check a long table of cross-validation losses: columns, losses, the design grid.

The input has one row per (replication, fold, model, record). This module
holds the checks every route shares — the named columns exist, the losses are
finite numbers of a sane magnitude, every (replication, fold, model) cell is
present — and the diagnosis of an irregular table (duplicates, a record in two
folds, models scored on different records), which names the offending keys.
:mod:`cvreport.data.layout` lays a valid table out as fold blocks, and
:mod:`cvreport.data.engines` runs the same checks as aggregations inside
another engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from cvreport.errors import DataError, DesignError, describe_keys
from cvreport.spelling import on_command_line

__all__ = [
    "Names",
    "check_design_grid",
    "check_magnitude",
    "column_is_binary",
    "diagnose",
    "first_nonfinite",
    "is_binary",
    "lacking_models_error",
    "loss_values",
    "nonfinite_error",
    "refuse_empty_labels",
    "repeated_keys_error",
    "require_columns",
    "require_distinct_roles",
    "require_named_columns",
    "separating_column",
    "show",
    "split_records_error",
    "unpaired_records_error",
]

_CHUNK = 1 << 16  # rows per chunk of the elementwise checks (keeps temporaries in cache)

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
            f"expected a DataFrame of per-record losses, got {type(data).__name__}; give a "
            "pandas, Polars, PyArrow, DuckDB, Dask or PySpark frame, or a path to Parquet or "
            "CSV files"
        )
    require_named_columns(list(data.columns), roles, how_to_fix)
    used = [col for col in roles.values() if col is not None]
    ambiguous = [col for col in used if not isinstance(data[col], pd.Series)]
    if ambiguous:
        raise DataError(
            f"the data has several columns named {describe_keys(ambiguous)}; rename them so "
            "that each name is unique"
        )


def require_named_columns(
    columns: Sequence[object], roles: Mapping[str, str | None], how_to_fix: str
) -> None:
    """Raise :class:`DataError` unless every column named in ``roles`` is in ``columns``."""
    unnamed = {
        role: col for role, col in roles.items() if col is not None and not isinstance(col, str)
    }
    if unnamed:
        given = ", ".join(f"{role}={col!r}" for role, col in unnamed.items())
        raise DataError(
            f"columns are named by text, not by "
            f"{type(next(iter(unnamed.values()))).__name__}: {given}; "
            "give the columns text names (e.g. df.columns = df.columns.astype(str)) and name "
            "them so"
        )
    present = set(columns)
    missing = [(role, col) for role, col in roles.items() if col is not None and col not in present]
    if missing:
        named = ", ".join(f"{role} column {col!r}" for role, col in missing)
        raise DataError(
            f"missing {named}; the data has columns {describe_keys(columns, 12)}. {how_to_fix}"
        )
    require_distinct_roles(roles)


def require_distinct_roles(roles: Mapping[str, str | None]) -> None:
    """Raise :class:`DataError` when one column is named for two roles of ``roles``."""
    used = [col for col in roles.values() if col is not None]
    repeated = sorted({col for col in used if used.count(col) > 1}, key=str)
    if repeated:
        raise DataError(
            f"column {describe_keys(repeated)} is given for more than one role "
            f"({', '.join(f'{r}={c!r}' for r, c in roles.items() if c in repeated)}); "
            "each role needs its own column"
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
            + (
                "give numeric scores, e.g. convert the column with pandas.to_numeric(...)"
                if what.startswith("score")
                else "give a numeric loss, or compute one in the formula, e.g. "
                "'{pred != truth} ~ model | replication + fold'"
            )
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
            or (isinstance(v, (int, float, np.number, Decimal)) and not isinstance(v, complex))
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


def column_is_binary(series: pd.Series, values: np.ndarray) -> bool:
    """Whether every value of a column is 0 or 1 (``values``: the column as float64).

    A column of integers or booleans is checked in its own dtype: a fraction of
    the bytes of its float64 copy.
    """
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biu":
        return is_binary(series.to_numpy())
    return is_binary(values)


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
        f"({n_nan} NaN, {n_inf} infinite): {where}{more}; "
        + (
            "drop those rows or fix their scores (a model that failed on a fold should get its "
            "worst score, not NaN)"
            if what.startswith("score")
            else "drop those rows or fix their losses (a model that failed on a record should "
            "get its worst loss, not NaN)"
        )
    )


#: Values whose largest magnitude is below this (and above 0) are refused: squares of
#: values under 1.5e-154 fall below float64's smallest normal number (2.2e-308), and the
#: squared spread of values a little larger loses its digits; a variance would read 0.
SMALLEST_MAGNITUDE = 1e-100


def check_magnitude(values: np.ndarray, what: str, *, tiny: bool = False) -> None:
    """Raise :class:`DataError` when sums of squared values would overflow or underflow float64.

    The tests square losses and their differences and sum them over many records;
    losses near 1e154 or beyond would turn those sums into inf and the statistics
    into NaN without a word, so they are refused with a request to rescale. With
    ``tiny``, values all below :data:`SMALLEST_MAGNITUDE`, whose squares fall to 0,
    are refused too (the summary scores of many data sets, whose effect sizes divide
    by their spread).
    """
    if values.shape[0] == 0:
        return
    largest = float(max(abs(float(values.max())), abs(float(values.min()))))
    if tiny and 0 < largest < SMALLEST_MAGNITUDE:
        raise DataError(
            f"{what} reaches at most {largest:.3g} in absolute value, so its squares fall "
            "below the smallest float and a variance would read 0; rescale the values (e.g. "
            "multiply them by a power of ten; the tests are unchanged by the scale)"
        )
    with np.errstate(over="ignore"):
        total = np.float64(largest) ** 2 * np.float64(4 * values.shape[0])
    if not np.isfinite(total):
        raise DataError(
            f"{what} reaches {largest:.3g} in absolute value, so its sums of squares overflow "
            "(they exceed the largest float); rescale the losses (e.g. divide them by a power "
            "of ten; the t and F tests are unchanged by the scale)"
        )


# --------------------------------------------------------------------------- the design


@dataclass(frozen=True)
class Names:
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
        if self.fold is None and self.replication is not None:
            # one block of a formula ('| fold' too) is read as the replication: name the
            # column the user wrote, not the role it was read in
            return (
                f"the table names one block column, {self.replication!r}, so rows that differ "
                "only in another block (the replication, or the fold within it) look alike: "
                "if the data hold several replications of several folds, name both columns "
                "(e.g. 'loss ~ model | replication + fold', or replication=..., fold=...)."
            )
        return (
            f"the table names no {' and no '.join(absent)} column, so rows that differ only "
            f"in the {' or '.join(absent)} look alike: if the data hold several replications "
            "or folds, name those columns (e.g. 'loss ~ model | replication + fold', or "
            "replication=..., fold=...)."
        )


def refuse_empty_labels(labels: Any, where: str) -> None:
    """Refuse an empty model label, ``""``.

    A report could not name such a model, and a CSV file reads an empty field as
    missing, so the same table would be read one way from a frame and another
    way from its file. (A label of spaces is kept: a CSV keeps it too.)

    Raises
    ------
    DataError
        A label is the empty text.

    Examples
    --------
    >>> refuse_empty_labels(pd.Index(["lr", "tree"]), "model column 'model'")
    >>> try:
    ...     refuse_empty_labels(pd.Index(["lr", ""]), "model column 'model'")
    ... except DataError as error:
    ...     print(str(error)[:41])
    model column 'model' holds an empty label
    """
    if any(isinstance(label, str) and label == "" for label in labels):
        raise DataError(
            f"{where} holds an empty label (''): a report could not name that model, and a "
            "CSV file reads an empty field as a missing value; give every model a name"
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
    refuse_empty_labels(models, f"model column {model_column!r}")
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
    if differs.shape[0] and (fold_present.sum(axis=0) == 1).all():
        shown = [
            f"replication {show(replications[i])} uses folds "
            f"{describe_keys(folds[fold_present[i]].tolist(), 3)}"
            for i in range(min(2, len(replications)))
        ]
        raise DesignError(
            f"the folds are numbered across the replications ({'; '.join(shown)}), so no "
            "fold of one replication matches a fold of another; label the folds the same "
            f"way in every replication (1..{int(n_folds[0])}), e.g. by their order within "
            "each replication"
        )
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


def repeated_keys_error(
    names: Names,
    n_repeated: int,
    n_conflicting: int,
    shown: Sequence[tuple[tuple[object, object, object, object], int, Sequence[float] | None]],
    separating: str | None = None,
    in_formula: bool = True,
) -> DataError:
    """The error for keys in more than one row (every route words it so).

    ``shown``: up to three ``((replication, fold, model, record), rows, losses)``;
    ``losses`` (sorted, up to three) when that key's rows disagree, else ``None``.
    ``separating``: a column no role names whose values make the keys unique
    (:func:`separating_column`), which the advice then names; ``in_formula`` says
    whether the roles came from a formula. The error keeps its arguments
    (``error.repeated_keys``), so that a caller that can look at the other columns
    words it again with ``separating``.
    """
    key_columns = "[" + ", ".join(repr(c) for c in names.columns) + "]"
    described = []
    for (replication, fold, model, record), n_rows, values in shown:
        parts = []
        if names.replication is not None:
            parts.append(f"{names.replication}={show(replication)}")
        if names.fold is not None:
            parts.append(f"{names.fold}={show(fold)}")
        parts += [f"{names.model}={show(model)}", f"{names.record}={show(record)}"]
        what = f" with losses {', '.join(f'{v:g}' for v in values[:3])}" if values else ""
        described.append(f"{', '.join(parts)} ({n_rows} rows){what}")
    if separating is not None and not names.missing_blocks_hint():
        advice = _separating_advice(separating, in_formula)
    elif names.missing_blocks_hint():
        advice = names.missing_blocks_hint()
        if separating is not None:
            where = "is not in the formula" if in_formula else "is named for no role"
            advice = f"the column {separating!r} {where} and makes the rows unique; {advice}"
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
    error = DataError(
        f"{n_repeated} ({', '.join(names.columns)}) key(s) appear in more than one row: "
        f"{'; '.join(described)}; {advice}"
    )
    error.repeated_keys = (names, n_repeated, n_conflicting, tuple(shown))  # type: ignore[attr-defined]
    return error


def _separating_advice(column: str, in_formula: bool) -> str:
    """What to do when ``column``, which no role names, makes the keys unique."""
    where = "is not in the formula" if in_formula else "is named for no role"
    said = f"the column {column!r} {where} and makes the rows unique"
    if not in_formula:
        return (
            f"{said}: if it names data sets, compare them with DatasetsTable.from_formula "
            f"(the formula's third part '| {column}') or filter one data set"
        )
    how = "cvreport datasets" if on_command_line() else "DatasetsTable.from_formula"
    return f"{said}: add '| {column}' (with {how}) or filter one data set"


def separating_column(frame: Any, keys: Sequence[str], candidates: Sequence[str]) -> str | None:
    """A column among ``candidates`` that makes the ``keys`` unique, grouping rows, not naming them.

    ``frame`` is a narwhals LazyFrame. Candidates are tried in the order of their
    number of distinct values (fewest first); a column with at least as many
    distinct values as the keys (a row number, a time stamp) is not named, nor one
    of real numbers (a score that merely differs between the repeated rows).
    Runs only when keys repeat, so its queries cost nothing to a valid table.

    Examples
    --------
    >>> import narwhals.stable.v2 as nw
    >>> rows = pd.DataFrame({"model": ["a", "b"] * 4, "record": [0, 0, 1, 1] * 2,
    ...                      "dataset": ["x"] * 4 + ["y"] * 4, "row": range(8)})
    >>> separating_column(nw.from_native(rows).lazy(), ["model", "record"], ["dataset", "row"])
    'dataset'
    >>> print(separating_column(nw.from_native(rows).lazy(), ["model", "record"], ["row"]))
    None
    """
    import narwhals.stable.v2 as nw

    schema = frame.collect_schema()
    kept = [c for c in candidates if c in schema and not schema[c].is_float()]
    if not kept:
        return None
    distinct = frame.select(*(nw.col(c).n_unique().alias(f"_n{i}") for i, c in enumerate(kept)))
    counts = [int(n) for n in distinct.collect().rows()[0]]
    n_keys = int(frame.select(*keys).unique().select(nw.len()).collect().rows()[0][0])
    for i in sorted(range(len(kept)), key=counts.__getitem__):
        if counts[i] >= n_keys:
            break
        column = kept[i]
        repeated = (
            frame.group_by(*keys, column)
            .agg(nw.len().alias("_n"))
            .filter(nw.col("_n") > 1)
            .head(1)
            .collect()
        )
        if len(repeated.rows()) == 0:
            return column
    return None


def split_records_error(
    names: Names, n_split: int, shown: Sequence[tuple[object, object, Sequence[object]]]
) -> DataError:
    """The error for records in several folds of one replication.

    ``shown``: up to three ``(replication, record, folds)``.
    """
    described = []
    for replication, record, in_folds in shown:
        where = f" in replication {show(replication)}" if names.replication is not None else ""
        described.append(
            f"{names.record} {show(record)}{where} is in folds {describe_keys(list(in_folds))}"
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
    return DataError(
        f"{n_split} record(s) are scored in more than one fold of the same "
        f"replication: {'; '.join(described)}; each record belongs to exactly one validation "
        f"fold per replication — {advice}"
    )


def unpaired_records_error(names: Names, first_records: Sequence[object]) -> DataError:
    """The error for a record column that names rows, not data points (first three records)."""
    return DataError(
        f"no record is scored by more than one model: each value of the record column "
        f"{names.record!r} occurs for one model only (e.g. "
        f"{describe_keys(list(first_records))}), so the models' losses cannot be "
        "paired; the record column must name the data point (the same id for every "
        "model), not the row of the table"
    )


def lacking_models_error(
    names: Names, n_short: int, shown: Sequence[tuple[object, object, object, Sequence[object]]]
) -> DataError:
    """The error for records some model lacks: up to three ``(replication, fold, record, lacking)``."""
    described = [
        f"replication {show(replication)}, fold {show(fold)}, {names.record} "
        f"{show(record)} has no loss for model(s) {describe_keys(list(lacking))}"
        for replication, fold, record, lacking in shown
    ]
    return DataError(
        f"the models are scored on different records within a fold ({n_short} "
        f"record(s) lack some model): {'; '.join(described)}; every model must be scored on the "
        "same records of each fold — drop the records some model lacks"
    )


def diagnose(
    codes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    labels: tuple[pd.Index, pd.Index, pd.Index, pd.Index],
    names: Names,
    loss: np.ndarray,
) -> NoReturn:
    """Find and raise the precise error of an irregular table (slow; only on failure)."""
    rep, fold, model, record = (c.astype(np.int64) for c in codes)
    replications, folds, models, records = labels
    n_folds, n_models, n_records = len(folds), len(models), len(records)
    key_columns = "[" + ", ".join(repr(c) for c in names.columns) + "]"

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
            values = np.unique(sorted_loss[starts[t] : starts[t] + counts[t]])
            key = (replications[i], folds[j], models[k], records[r_code])
            shown.append((key, int(counts[t]), values[:3].tolist() if differ[t] else None))
        n_conflicting = int(np.count_nonzero(differ[repeated]))
        raise repeated_keys_error(names, repeated.shape[0], n_conflicting, shown)

    triples = np.unique((rep * n_records + record) * n_folds + fold)
    pairs, first, counts = np.unique(triples // n_folds, return_index=True, return_counts=True)
    split = np.flatnonzero(counts > 1)
    if split.shape[0]:
        split_shown = []
        for t in split[:3]:
            i, r_code = divmod(int(pairs[t]), n_records)
            in_folds = triples[first[t] : first[t] + counts[t]] % n_folds
            split_shown.append((replications[i], records[r_code], folds.take(in_folds).tolist()))
        raise split_records_error(names, split.shape[0], split_shown)

    cell_record = (rep * n_folds + fold) * n_records + record
    order = np.argsort(cell_record, kind="stable")
    sorted_keys = cell_record[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    sizes = np.diff(np.r_[starts, sorted_keys.shape[0]])
    short = np.flatnonzero(sizes < n_models)
    if short.shape[0]:
        if (sizes == 1).all():
            raise unpaired_records_error(names, records[:3].tolist())
        short_shown = []
        for t in short[:3]:
            rows = order[starts[t] : starts[t] + sizes[t]]
            cell, r_code = divmod(int(sorted_keys[starts[t]]), n_records)
            i, j = divmod(cell, n_folds)
            have = set(model[rows].tolist())
            lacking = [models[k] for k in range(n_models) if k not in have]
            short_shown.append((replications[i], folds[j], records[r_code], lacking))
        raise lacking_models_error(names, short.shape[0], short_shown)
    raise DataError(  # pragma: no cover - every irregularity is named above
        "the table could not be laid out as one row per (replication, fold, model, record); "
        f"check the columns {key_columns}"
    )
