"""Where a results table's rows live: pandas in memory, or another engine via narwhals.

A pandas DataFrame is laid out in memory (:mod:`cvreport.data.layout`). Any
other frame narwhals reads — Polars (eager or lazy), PyArrow, DuckDB, Dask,
PySpark, Ibis — and a path or glob of Parquet or CSV files (scanned lazily, by
DuckDB unless another engine is asked for) stays where it is, as an
:class:`EngineSource`, and :mod:`cvreport.data.pushdown` summarises it there
with group-by aggregations.

The same call works against a cluster: a PySpark DataFrame read from a
cluster's storage, or a Dask DataFrame on a ``distributed.Client``, is
summarised by Spark or Dask, and only kilobytes come back::

    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", spark.read.parquet("s3://bucket/results/")
    )
"""

from __future__ import annotations

import ast
import os
import re
import warnings
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.formula import check_expression
from cvreport.data.io import (
    PLAIN_INTEGER,
    check_regular_file,
    data_format,
    no_rows_error,
    plain_integers_as_numbers,
    repeated_names_error,
)
from cvreport.errors import DataError, FormulaError

__all__ = [
    "ENGINES",
    "EngineSource",
    "as_pandas_text",
    "check_engine",
    "engine_error",
    "in_source_zone",
    "names_csv_files",
    "narwhals",
    "nested_columns_error",
    "resolve_source",
    "response_expression",
]

ENGINES = ("auto", "pandas", "duckdb", "polars")
"""Engines that can be asked for by name (``engine=`` and ``--engine``)."""

DUCKDB_MEMORY_LIMIT = "3GB"
"""Memory DuckDB may use when it scans files for a table; beyond it, it spills to disk."""

PANDAS_VIA_DUCKDB_ROWS = 100_000_000
"""A pandas frame at least this long goes through Arrow into DuckDB (when installed).

Laid out in memory, a frame needs about 30 bytes a row beyond its own columns
(codes, the loss cube, the fold blocks): 1.3 GiB and 4–5 s for 50M shuffled
rows with text model labels and record ids, faster than pandas' own group-by.
From this length on, DuckDB's bounded memory is worth its slower hashing.
"""


def duckdb_config() -> dict[str, str]:
    """Settings of the DuckDB connection that scans files or a large pandas frame.

    Its hash tables spill to a temporary folder past :data:`DUCKDB_MEMORY_LIMIT`.
    The rows' order is kept (``preserve_insertion_order``): the models are
    ordered by their first row.
    """
    import tempfile

    return {
        "memory_limit": DUCKDB_MEMORY_LIMIT,
        "temp_directory": os.path.join(tempfile.gettempdir(), "cvreport-duckdb"),
    }


def narwhals() -> Any:
    """narwhals' stable API (imported when first needed)."""
    import narwhals.stable.v2 as nw

    return nw


_SOURCE_ZONE: ContextVar[str | None] = ContextVar("cvreport_source_zone", default=None)
"""The time zone of the zone-aware times of the source being read (see :func:`in_source_zone`)."""


@dataclass(frozen=True, eq=False)
class EngineSource:
    """A frame held by another engine, as a narwhals LazyFrame.

    Attributes
    ----------
    frame : narwhals.LazyFrame
        The data, lazily.
    kind : str
        What it is, for the table's source line (e.g. ``"Polars LazyFrame"``).
    files : tuple of str
        The files it scans, when it was given as paths (named in messages).
    zone : str, optional
        The time zone of its zone-aware times where the engine holds them in
        another: DuckDB keeps an instant and shows it in UTC (in its connection's
        ``TimeZone`` with the ICU extension), so a Europe/Paris column of a pandas
        frame, an Arrow table or a Parquet file handed to DuckDB would come back
        as UTC labels. Results read while :meth:`errors` is open are shown in it
        again (:func:`in_source_zone`).
    text : frozenset of str
        The columns of its CSV files read as text whatever they hold (:meth:`with_text`).
    rescan : callable, optional
        For CSV files: the files scanned again with the columns it is given read as
        text (``None`` for any other source, whose types are its own).
    """

    frame: Any
    kind: str
    files: tuple[str, ...] = ()
    zone: str | None = None
    text: frozenset[str] = frozenset()
    rescan: Callable[[frozenset[str]], EngineSource] | None = None

    def with_text(self, columns: Collection[str]) -> EngineSource:
        """The source with ``columns`` read as text, as written, from its CSV files.

        A CSV file holds no types: an engine guesses them from the values, so a model
        labelled ``007`` or ``1e3`` would be the number 7 or 1000.0 to one engine and
        the text to another. Label columns (models, data sets, clusters) are read as
        the text they are written as, on every engine; a column whose every value is an
        integer written plainly (``1``, ``-2``: read as numbers, they keep their labels)
        stays integers, as in a DataFrame. Any other source, and a column the engine
        already reads as text, is returned as it is.
        """
        if self.rescan is None:
            return self
        nw = narwhals()
        schema = dict(self._schema())
        wanted = {
            c for c in columns if c in schema and c not in self.text and schema[c] != nw.String
        }
        if not wanted:
            return self
        labelled = self.rescan(self.text | wanted)
        return self if labelled.text == self.text else labelled

    def _schema(self) -> Any:
        with self.errors():
            return self.frame.collect_schema()

    @contextmanager
    def errors(self) -> Iterator[None]:
        """Run engine work, turning the engine's own errors into :class:`DataError`; the
        results read meanwhile show zone-aware times in :attr:`zone`."""
        token = _SOURCE_ZONE.set(self.zone)
        try:
            with _translated(self.kind, self.files):
                yield
        finally:
            _SOURCE_ZONE.reset(token)

    @property
    def columns(self) -> list[str]:
        """The column names."""
        with self.errors():
            return list(self.frame.collect_schema().names())

    def dtype(self, column: str) -> Any:
        """The narwhals dtype of a column."""
        with self.errors():
            return self.frame.collect_schema()[column]

    def check_plain(self, columns: Sequence[str]) -> None:
        """Raise :class:`DataError` if a used column holds structs, lists or other nested values."""
        error = nested_columns_error(self, columns)
        if error is not None:
            raise error

    def to_pandas(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """The rows (of some columns) as a pandas DataFrame, in the engine's row order."""
        frame = self.frame if columns is None else self.frame.select(list(dict.fromkeys(columns)))
        with self.errors():
            result = in_source_zone(frame.collect().to_pandas().reset_index(drop=True))
        return as_pandas_text(result)

    def records_repeat_across(self, block: str, record: str) -> bool:
        """Whether some record appears in more than one group of ``block``."""
        nw = narwhals()
        pairs = self.frame.select(block, record).unique()
        repeated = pairs.group_by(record).agg(nw.len().alias("n")).filter(nw.col("n") > 1)
        with self.errors():
            return len(repeated.head(1).collect().rows()) > 0


def in_source_zone(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its zone-aware times in the zone of the source being read.

    The zone is the :attr:`EngineSource.zone` of the source whose
    :meth:`~EngineSource.errors` is open: the zone its times had before an engine
    that keeps instants (DuckDB) showed them in UTC. The instants are unchanged;
    only the zone they print in is the one the data was given in, as pandas,
    Polars, PyArrow and Dask keep it. Without an open source, or a zone, the frame
    is returned as it is.

    Examples
    --------
    >>> utc = pd.DataFrame({"t": pd.to_datetime(["2024-07-01 10:00"]).tz_localize("UTC")})
    >>> source = EngineSource(frame=None, kind="example", zone="Europe/Paris")
    >>> with source.errors():
    ...     print(in_source_zone(utc)["t"].iloc[0])
    2024-07-01 12:00:00+02:00
    """
    zone = _SOURCE_ZONE.get()
    if zone is None:
        return frame
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.DatetimeTZDtype) and str(column.dtype.tz) != zone:
            frame[name] = column.dt.tz_convert(zone)
    return frame


def as_pandas_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns as pandas' default string dtype, whatever engine produced them."""
    for column in frame.columns:
        dtype = frame[column].dtype
        if isinstance(dtype, pd.StringDtype) and dtype != pd.StringDtype(na_value=np.nan):
            frame[column] = frame[column].astype(pd.StringDtype(na_value=np.nan))
    return frame


def _is_path(data: object) -> bool:
    if isinstance(data, (str, os.PathLike)):
        return True
    return (
        isinstance(data, (list, tuple))
        and len(data) > 0
        and all(isinstance(d, (str, os.PathLike)) for d in data)
    )


def _paths(data: Any) -> list[str]:
    return [os.fspath(p) for p in (data if isinstance(data, (list, tuple)) else [data])]


def _is_csv(paths: list[str]) -> bool:
    """Whether the files are CSV (also compressed, ``.csv.gz``); other names are Parquet."""

    def kind(path: str) -> str:
        try:
            return data_format(path)
        except DataError:
            return "parquet"

    return all(kind(p) == "csv" for p in paths)


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _files(paths: list[str]) -> list[str]:
    """The files the paths name: an existing path is a file (never a pattern), else a glob.

    Every file is checked to be a regular file before anything opens it (a FIFO
    would block the reader for ever; a folder or a device is no table).
    """
    import glob

    files: list[str] = []
    for path in paths:
        if os.path.lexists(path):
            check_regular_file(path)
            files.append(path)
            continue
        matches = sorted(glob.glob(path, recursive=True))
        if not matches:
            raise DataError(
                f"no file matches {path!r}; give the path (or a glob such as "
                "'results/*.parquet') of Parquet or CSV files"
            )
        for match in matches:
            check_regular_file(match)
        files += matches
    return list(dict.fromkeys(files))


def _type_kind(arrow_type: Any) -> str:
    """What a column holds, coarsely: widths of one kind of number are interchangeable."""
    import pyarrow.types as pt

    for test, kind in (
        (pt.is_boolean, "booleans"),
        (pt.is_integer, "numbers"),
        (pt.is_floating, "numbers"),
        (pt.is_decimal, "numbers"),
        (pt.is_string, "text"),
        (pt.is_large_string, "text"),
        (pt.is_dictionary, "text"),
        (pt.is_temporal, "dates or times"),
        (pt.is_null, "nothing (null)"),
    ):
        if test(arrow_type):
            return kind
    return str(arrow_type)


def _repeated_name(names: Sequence[str]) -> str | None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def _duplicate_error(name: str, where: str) -> DataError:
    return repeated_names_error(name, where)


def _check_parquet_files(files: list[str]) -> Any:
    """Read every file's footer: corrupt or empty files and disagreeing schemas are named.

    Returns the first file's Arrow schema (every file's agrees with it)."""
    import pyarrow.parquet as pq

    first: tuple[str, dict[str, Any]] | None = None
    first_schema = None
    n_rows = 0
    for file in files:
        try:
            metadata = pq.read_metadata(file)
            schema = metadata.schema.to_arrow_schema()
        except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
            reason = " ".join(str(error).split())
            raise DataError(
                f"{file!r} is not a readable Parquet file ({reason}); it may be truncated or "
                "corrupt (e.g. copied while it was being written): write it again, or leave it "
                "out of the paths"
            ) from error
        repeated = _repeated_name(schema.names)
        if repeated is not None:
            raise _duplicate_error(repeated, f"the Parquet file {file!r}")
        n_rows += metadata.num_rows
        columns = {field.name: field.type for field in schema}
        if first is None:
            first, first_schema = (file, columns), schema
            continue
        _compare_schemas(first, (file, columns))
    if n_rows == 0:
        where = (
            f"the Parquet file {files[0]!r}"
            if len(files) == 1
            else (f"the {len(files)} Parquet files {files[0]!r}, ... {files[-1]!r}")
        )
        raise no_rows_error(where)
    return first_schema


def _compare_schemas(first: tuple[str, dict[str, Any]], other: tuple[str, dict[str, Any]]) -> None:
    (name_a, a), (name_b, b) = first, other
    for column in list(a) + [c for c in b if c not in a]:
        if column not in a or column not in b:
            has, lacks = (name_a, name_b) if column in a else (name_b, name_a)
            raise DataError(
                f"the files do not share one set of columns: column {column!r} is in {has!r} "
                f"but not in {lacks!r}; give files of one layout (one path or glob per layout, "
                "or rename the column where it differs)"
            )
        if a[column] is None or b[column] is None:  # a CSV header: names only
            continue
        kind_a, kind_b = _type_kind(a[column]), _type_kind(b[column])
        if kind_a != kind_b:
            raise DataError(
                f"column {column!r} holds {kind_a} ({a[column]}) in {name_a!r} but {kind_b} "
                f"({b[column]}) in {name_b!r}; write every file with the same column types"
            )
        zone_a, zone_b = getattr(a[column], "tz", None), getattr(b[column], "tz", None)
        if zone_a != zone_b:
            raise DataError(
                f"column {column!r} holds times of zone {zone_a or 'none'} in {name_a!r} but "
                f"of zone {zone_b or 'none'} in {name_b!r}; write every file's times in one "
                "zone (e.g. in pandas data[column].dt.tz_convert(zone)) so that its labels "
                "print alike"
            )


def _csv_header(file: str) -> list[str]:
    """The names of a CSV file's header, as written (repeats kept; compressed files too)."""
    try:
        first = pd.read_csv(file, nrows=1, header=None, sep=None, engine="python", dtype=str)
    except (ValueError, OSError, pd.errors.ParserError, EOFError) as error:
        reason = " ".join(str(error).split()) or type(error).__name__
        raise DataError(f"cannot read the header of the CSV file {file!r}: {reason}") from error
    return [str(name) for name in first.iloc[0].tolist()] if first.shape[0] else []


def _check_csv_files(files: list[str]) -> list[str] | None:
    """Read every file's header: repeated and disagreeing column names are named.

    Returns the first file's column order when another file lists the same columns
    in another order (then the files are read by name, not by position), else ``None``.
    """
    first: tuple[str, dict[str, Any]] | None = None
    reordered = False
    for file in files:
        header = _csv_header(file)
        repeated = _repeated_name(header)
        if repeated is not None:
            raise _duplicate_error(repeated, f"the CSV file {file!r}")
        columns: dict[str, Any] = dict.fromkeys(header)
        if first is None:
            first = (file, columns)
            continue
        _compare_schemas(first, (file, columns))
        reordered = reordered or list(columns) != list(first[1])
    return list(first[1]) if reordered and first is not None else None


def _zone_duckdb_loses(schema: Any, what: str) -> str | None:
    """The time zone of the zone-aware times of an Arrow ``schema`` handed to DuckDB.

    DuckDB holds them as instants (TIMESTAMPTZ) and shows them in UTC, so the zone
    is kept beside the frame (:attr:`EngineSource.zone`). One zone is kept for all
    the columns: times of two zones are refused rather than shown in one.

    Raises
    ------
    DataError
        Columns of times in different zones.
    """
    import pyarrow.types as pt

    zones = {
        field.name: str(field.type.tz)
        for field in schema
        if pt.is_timestamp(field.type) and field.type.tz is not None
    }
    if len(set(zones.values())) > 1:
        first_of_zone = {zone: name for name, zone in reversed(zones.items())}
        (zone_a, a), (zone_b, b) = sorted(
            first_of_zone.items(), key=lambda z: list(zones).index(z[1])
        )[:2]
        raise DataError(
            f"columns {a!r} ({zone_a}) and {b!r} ({zone_b}) of the {what} hold times of "
            "different time zones, which DuckDB holds as instants shown in one zone, so "
            f"their labels would not print as given: convert them to one zone first (e.g. "
            f"data[{b!r}] = data[{b!r}].dt.tz_convert({zone_a!r})), or use engine='polars', "
            "which keeps each column's zone"
        )
    return next(iter(zones.values()), None)


def _zoned_times_in_microseconds(relation: Any, what: str) -> Any:
    """A DuckDB relation whose zone-aware times of nanoseconds are microseconds.

    DuckDB reads Arrow's and Parquet's zone-aware nanoseconds as TIMESTAMPTZ_NS, a
    type its relational API does not expose (narwhals sees an unknown type).
    They are cast to TIMESTAMPTZ (microseconds) when no value has a part below a
    microsecond, so no two labels merge.

    Raises
    ------
    DataError
        A column holding a time finer than a microsecond.
    """
    casts = []
    for name, dtype in zip(relation.columns, relation.types):
        if str(dtype) != "TIMESTAMPTZ_NS":
            continue
        quoted = '"' + name.replace('"', '""') + '"'
        finer = relation.aggregate(
            f"count(*) FILTER (WHERE epoch_ns({quoted}) % 1000 != 0)"
        ).fetchall()[0][0]
        if finer:
            raise DataError(
                f"column {name!r} of the {what} holds {finer} times with nanoseconds, "
                "which DuckDB's zone-aware times cannot hold (it keeps microseconds, so "
                "labels could merge): round them first (e.g. data[column].dt.floor('us')) "
                "or use engine='polars', which keeps nanoseconds"
            )
        casts.append(f"CAST({quoted} AS TIMESTAMPTZ) AS {quoted}")
    if not casts:
        return relation
    return relation.project(f"* REPLACE ({', '.join(casts)})")


#: The types DuckDB may infer for a CSV column. Times and dates are left as text, as
#: pandas and Polars read them, so a label prints as written: DuckDB would read
#: ``2024-01-01T00:00:00+02:00`` as an instant and print it in UTC.
CSV_TYPES = ("BOOLEAN", "BIGINT", "DOUBLE", "VARCHAR")


def _glob_escaped(path: str) -> str:
    """A file name as a glob that matches only itself (``[`` ``*`` ``?`` in brackets)."""
    return re.sub(r"([\[*?])", r"[\1]", path)


def names_csv_files(data: Any) -> bool:
    """Whether ``data`` is the path (a glob, or a list) of CSV files, whose columns hold
    no types (:meth:`EngineSource.with_text`).

    Examples
    --------
    >>> names_csv_files("results-*.csv.gz"), names_csv_files("results.parquet")
    (True, False)
    """
    return _is_path(data) and _is_csv(_paths(data))


def _files_text(files: Sequence[str], csv: bool) -> str:
    """The files a table was read from, in words: ``"table of CSV files 'a.csv' and 2 more"``."""
    return f"table of {'CSV' if csv else 'Parquet'} files {files[0]!r}" + (
        f" and {len(files) - 1} more" if len(files) > 1 else ""
    )


def describe_paths(data: Any) -> str | None:
    """The files a path or glob ``data`` names, in words, as a table's source line says
    them; ``None`` when ``data`` is no path.

    >>> describe_paths("results.csv")
    "table of CSV files 'results.csv'"
    """
    if not _is_path(data):
        return None
    paths = _paths(data)
    try:
        files = _files(paths)
    except DataError:
        files = paths
    return _files_text(files, _is_csv(list(files)))


def _scan_paths(
    data: Any, engine: str, text: frozenset[str] = frozenset()
) -> pd.DataFrame | EngineSource:
    files = _files(_paths(data))
    csv = _is_csv(files)
    schema = None
    order = None  # the first CSV file's columns, when another file orders them otherwise
    if csv:
        order = _check_csv_files(files)
    else:
        schema = _check_parquet_files(files)
    what = _files_text(files, csv)
    if engine == "auto":
        engine = "duckdb" if _importable("duckdb") else "polars" if _importable("polars") else ""
    if engine not in ("duckdb", "polars"):
        with _translated(what, files):
            readers = [
                pd.read_csv(f, dtype=dict.fromkeys(text, str)) if csv else pd.read_parquet(f)
                for f in files
            ]
        return plain_integers_as_numbers(pd.concat(readers, ignore_index=True), text)
    if not csv:
        return _scan_files(files, engine, what, schema)
    scans: dict[frozenset[str], EngineSource] = {}
    plain: dict[str, bool] = {}  # a label column: are all its values plainly written integers?

    def scan(columns: frozenset[str]) -> EngineSource:
        """The CSV files read with ``columns`` as text (each set of columns scanned once)."""
        if columns not in scans:
            scans[columns] = replace(
                _scan_files(files, engine, what, None, order, columns),
                text=columns,
                rescan=rescan,
            )
        return scans[columns]

    def rescan(columns: frozenset[str]) -> EngineSource:
        """The CSV files read with the label ``columns`` as text, but those whose every
        value is an integer written plainly, which stay integers."""
        unknown = [c for c in sorted(columns) if c not in plain]
        if unknown:
            plain.update(_plain_integer_columns(scan, unknown))
        return scan(frozenset(c for c in columns if not plain[c]))

    return rescan(text)


def _plain_integer_columns(
    scan: Callable[[frozenset[str]], EngineSource], columns: list[str]
) -> dict[str, bool]:
    """Which of ``columns`` hold only integers written plainly (:data:`PLAIN_INTEGER`): read
    as integers, they keep their labels as written. One query counts the other values of
    the columns the engine guessed to be integers, read as text."""
    nw = narwhals()
    guessed = scan(frozenset())
    schema = dict(guessed._schema())
    integers = [c for c in columns if c in schema and schema[c].is_integer()]
    found = dict.fromkeys(columns, False)
    if not integers:
        return found
    as_text = scan(frozenset(integers))
    pattern = f"^({PLAIN_INTEGER})$"
    counts = as_text.frame.select(
        *[
            (~nw.col(c).str.contains(pattern)).cast(nw.Int64).sum().alias(f"_{i}")
            for i, c in enumerate(integers)
        ]
    )
    with as_text.errors():
        others = counts.collect().to_pandas().iloc[0].tolist()
    found.update({c: int(n) == 0 for c, n in zip(integers, others)})
    return found


def _scan_files(
    files: list[str],
    engine: str,
    what: str,
    schema: Any,
    order: list[str] | None = None,
    text: frozenset[str] | None = None,
) -> EngineSource:
    """The files scanned by DuckDB or Polars: Parquet files (``text`` is ``None``), or CSV
    files with the columns of ``text`` read as text (the others' types guessed)."""
    csv = text is not None
    text_of = {c: "VARCHAR" for c in sorted(text or ())}
    if engine == "duckdb":
        import duckdb

        connection = duckdb.connect(config=duckdb_config())
        with _translated(what, files):
            literal = [_glob_escaped(f) for f in files]  # DuckDB reads each path as a glob
            relation = (
                connection.read_csv(
                    literal,
                    auto_type_candidates=list(CSV_TYPES),
                    union_by_name=order is not None,
                    **({"dtype": text_of} if text_of else {}),
                )
                if csv
                else connection.read_parquet(literal)
            )
            relation = _zoned_times_in_microseconds(relation, what)
        zone = None if schema is None else _zone_duckdb_loses(schema, what)
        return EngineSource(
            narwhals().from_native(relation), f"{what} (DuckDB)", tuple(files), zone
        )
    import polars as pl

    overrides = {c: pl.String for c in text_of}
    with _translated(what, files):
        if order is not None:  # Polars stacks CSV files by position: put the names in line
            frame = pl.concat(
                [
                    pl.scan_csv(f, glob=False, schema_overrides=overrides).select(order)
                    for f in files
                ]
            )
        else:
            frame = (
                pl.scan_csv(files, glob=False, schema_overrides=overrides)
                if csv
                else pl.scan_parquet(files, glob=False)
            )
    return EngineSource(narwhals().from_native(frame), f"{what} (Polars)", tuple(files))


# --------------------------------------------------------------------------- engine errors


_ENGINE_MODULES = ("duckdb", "_duckdb", "polars", "narwhals", "pyarrow", "py4j", "pyspark")
_CONVERSION = (
    re.compile(
        r'CSV Error on Line: (?P<line>\d+).*?converting column "(?P<column>[^"]+)"\. '
        r'Could not convert string "(?P<value>[^"]*)" to \'(?P<type>\w+)\'',
        re.S,
    ),
    re.compile(
        r"could not parse `(?P<value>[^`]*)` as dtype `(?P<type>\w+)` at column "
        r"'(?P<column>[^']+)'",
        re.S,
    ),
)
_FILE_IN_MESSAGE = re.compile(r"file = (?P<file>\S+)|[Ff]ile[^'\"]*['\"](?P<quoted>[^'\"]+)['\"]")
_COLUMN_IN_MESSAGE = re.compile(r"column ['\"]?(?P<column>[^'\",:\s]+)")


def _is_engine_error(error: BaseException) -> bool:
    if isinstance(error, (DataError, KeyboardInterrupt, MemoryError)):
        return False
    if isinstance(error, OSError):
        return True
    return any(cls.__module__.split(".")[0] in _ENGINE_MODULES for cls in type(error).__mro__)


def engine_error(what: str, files: Sequence[str], error: BaseException) -> DataError:
    """A :class:`DataError` for an engine's own error: the file, the column, what to do."""
    reason = " ".join(str(error).split())
    text = str(error)
    if "closed" in reason.lower() and "connection" in reason.lower():
        return DataError(
            f"the DuckDB connection of the {what} was closed before the table was read "
            f"({reason[:200]}); build the table while the connection is open (inside its "
            "'with duckdb.connect() as con:' block), or pass the rows, e.g. relation.arrow()"
        )
    found = _FILE_IN_MESSAGE.search(text)
    file = (found.group("file") or found.group("quoted")) if found else None
    if file is None or (files and file not in files):
        file = files[0] if len(files) == 1 else None
    where = f"{file!r}" if file else f"the {what}"
    for pattern in _CONVERSION:
        match = pattern.search(text)
        if match:
            line = match.groupdict().get("line")
            at = f" on line {line}" if line else ""
            return DataError(
                f"column {match['column']!r} of {where} holds {match['value']!r}{at}, but its "
                f"earlier rows read as {match['type']} (an engine guesses a CSV column's type "
                "from its first rows): fix that value so the column has one type, or convert "
                "the file to Parquet with the types you mean"
            )
    column = _COLUMN_IN_MESSAGE.search(text)
    named = f" (column {column['column']!r})" if column else ""
    return DataError(
        f"the engine could not read {where}{named}: {reason[:400]}; check that every file is "
        "complete and that all have the same columns and types, or read them with "
        "engine='pandas' to see the rows"
    )


@contextmanager
def _translated(what: str, files: Sequence[str]) -> Iterator[None]:
    try:
        yield
    except Exception as error:
        if not _is_engine_error(error):
            raise
        raise engine_error(what, files, error) from error


def nested_columns_error(source: EngineSource, columns: Sequence[str]) -> DataError | None:
    """The error for a used column of structs, lists or other nested values, if any."""
    nw = narwhals()
    nested = (nw.Struct, nw.List, nw.Array, nw.Object, nw.Unknown)
    for column in dict.fromkeys(columns):
        if column not in source.columns:
            continue
        dtype = source.dtype(column)
        if isinstance(dtype, nested) or dtype in nested:
            return DataError(
                f"column {column!r} of the {source.kind} holds {dtype} values; cvreport needs one "
                "number or label per row: take the field you mean first (e.g. in SQL "
                f"SELECT {column}.field AS {column}; in Polars pl.col({column!r}).struct.field(...))"
            )
    return None


def _kind(native: Any, frame: Any) -> str:
    module = type(native).__module__.split(".")[0]
    names = {
        "polars": "Polars",
        "pyarrow": "PyArrow",
        "duckdb": "DuckDB",
        "dask": "Dask",
        "pyspark": "PySpark",
        "ibis": "Ibis",
        "pandas": "pandas",
        "modin": "Modin",
        "cudf": "cuDF",
    }
    return f"{names.get(module, module)} {type(native).__name__}"


def check_engine(engine: str | None) -> str:
    """The engine asked for, by its lower-case name (``"auto"`` for ``None``).

    Raises
    ------
    DataError
        A name that is not one of :data:`ENGINES`.

    Examples
    --------
    >>> check_engine(None), check_engine("DuckDB")
    ('auto', 'duckdb')
    """
    engine = "auto" if engine is None else str(engine).lower()
    if engine not in ENGINES:
        raise DataError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    return engine


def resolve_source(
    data: Any, engine: str | None = None, *, text: Collection[str] = ()
) -> pd.DataFrame | EngineSource:
    """Where the table's rows are: a pandas DataFrame (in memory) or another engine.

    Parameters
    ----------
    data : DataFrame, LazyFrame, relation, str or path
        A pandas, Polars, PyArrow, DuckDB, Dask, PySpark or Ibis frame, or the
        path (a glob, or a list) of Parquet or CSV files.
    engine : {"auto", "pandas", "duckdb", "polars"}, optional
        ``"auto"`` (the default) keeps a frame in its own engine, lays a pandas
        DataFrame out in memory (through Arrow into DuckDB from
        :data:`PANDAS_VIA_DUCKDB_ROWS` rows on) and scans files with DuckDB;
        ``"pandas"`` brings everything into pandas; ``"duckdb"`` and ``"polars"``
        run the aggregations in that engine (Polars: its streaming engine).
    text : collection of str, optional
        Columns of CSV files read as text, as written, whatever they hold: the label
        columns (a model ``007`` stays ``007`` on every engine). A source scanned from
        CSV files reads more columns as text later (:meth:`EngineSource.with_text`).
        Other sources keep their types.

    Raises
    ------
    DataError
        Data that is no frame narwhals knows, an unknown engine, two columns of one
        name; for paths: a path that matches no file, one that is no regular file
        (a folder, FIFO or device: checked before it is opened), a corrupt, empty
        or truncated Parquet file, or files whose columns disagree (two of them and
        the column are named). An existing path is that file, never a pattern.

    Examples
    --------
    >>> frame = pd.DataFrame({"model": ["a"], "loss": [0.0]})
    >>> resolve_source(frame) is frame
    True
    """
    engine = check_engine(engine)
    if _is_path(data):
        return _scan_paths(data, engine, frozenset(text))
    if isinstance(data, pd.DataFrame):
        if engine == "duckdb" or (
            engine == "auto" and data.shape[0] >= PANDAS_VIA_DUCKDB_ROWS and _importable("duckdb")
        ):
            return _pandas_into_duckdb(data)
        if engine == "polars":
            import polars as pl

            lazy = pl.from_arrow(_pandas_to_arrow(data, "Polars")).lazy()
            return EngineSource(narwhals().from_native(lazy), "DataFrame")
        return data
    with _translated(f"{type(data).__name__}", ()):
        repeated = _repeated_name(_native_columns(data))
    if repeated is not None:
        raise _duplicate_error(repeated, f"the {type(data).__name__}")
    if type(data).__name__ == "DuckDBPyRelation":
        with _translated(type(data).__name__, ()):
            data = _zoned_times_in_microseconds(data, f"DuckDB {type(data).__name__}")
    if type(data).__module__.split(".")[0] == "dask":
        data = _dask_decimals_as_numbers(data)
    nw = narwhals()
    try:
        with warnings.catch_warnings(), _translated(type(data).__name__, ()):
            warnings.simplefilter("ignore", FutureWarning)  # narwhals on Dask's future home
            frame = nw.from_native(data)
    except TypeError:
        raise DataError(
            f"expected a DataFrame of per-record losses, got {type(data).__name__}; give a "
            "pandas, Polars, PyArrow, DuckDB, Dask or PySpark frame, or a path to Parquet or "
            "CSV files"
        ) from None
    kind = _kind(data, frame)
    if engine == "pandas":
        source = EngineSource(frame.lazy() if isinstance(frame, nw.DataFrame) else frame, kind)
        return source.to_pandas()
    if engine == "duckdb":
        import duckdb

        with _translated(kind, ()):
            arrow = (frame.lazy() if isinstance(frame, nw.DataFrame) else frame).collect()
            arrow = arrow.to_arrow()
        zone = _zone_duckdb_loses(arrow.schema, kind)
        with _translated(kind, ()):
            relation = _zoned_times_in_microseconds(duckdb.from_arrow(arrow), kind)
            return EngineSource(nw.from_native(relation), kind, zone=zone)
    if engine == "polars":
        import polars as pl

        with _translated(kind, ()):
            arrow = (frame.lazy() if isinstance(frame, nw.DataFrame) else frame).collect()
            return EngineSource(nw.from_native(pl.from_arrow(arrow.to_arrow()).lazy()), kind)
    if isinstance(frame, nw.DataFrame):
        frame = frame.lazy()
    return EngineSource(frame, kind)


def _dask_decimals_as_numbers(data: Any) -> Any:
    """A Dask frame whose columns of :class:`decimal.Decimal` numbers are float64 again.

    ``dask.dataframe.from_pandas`` turns every object column of the pandas frame it
    is given into text (Dask's ``dataframe.convert-string``), so a loss column of
    Decimals, a number to pandas, Polars, PyArrow and DuckDB, reached Dask as
    ``'0.462341'`` and was refused as text. The columns that hold Decimals in the
    pandas frames the Dask frame was made from, and text (or objects) in the Dask
    frame, are cast to float64: the text of a Decimal reads as the float it converts to, so the
    numbers are pandas'. A Dask without that structure is left as it is.
    """
    try:
        from dask.dataframe.dask_expr.io.io import FromPandas

        originals = [leaf.frame._data for leaf in data.expr.find_operations(FromPandas)]
        meta = data._meta
    except (ImportError, AttributeError):
        return data
    if not isinstance(meta, pd.DataFrame):
        return data
    decimals: set[Any] = set()
    for original in originals:
        if not isinstance(original, pd.DataFrame):
            continue
        for name in original.columns:
            column = original[name]
            if (
                isinstance(column, pd.Series)
                and column.dtype == object
                and pd.api.types.infer_dtype(column) == "decimal"
            ):
                decimals.add(name)
    texts = [  # text (or objects, when Dask leaves them so)
        name
        for name in meta.columns
        if name in decimals
        and isinstance(name, str)
        and (isinstance(meta[name].dtype, pd.StringDtype) or meta[name].dtype == object)
    ]
    if not texts:
        return data
    return data.assign(**{str(name): data[name].astype("float64") for name in texts})


def _native_columns(data: Any) -> list[str]:
    """Column names of a native frame, repeats kept (narwhals refuses some of them raw)."""
    if type(data).__module__.split(".")[0] == "polars":  # unique by construction
        return []
    for attribute in ("column_names", "columns"):  # PyArrow; DuckDB, Spark, Dask, Polars
        names = getattr(data, attribute, None)
        if isinstance(names, (list, tuple)) or type(names).__name__ == "Index":
            try:
                return [str(n) for n in names]
            except TypeError:
                return []
    return []


def _pandas_to_arrow(data: pd.DataFrame, engine: str) -> Any:
    """The frame as an Arrow table; a column Arrow cannot type is named in a :class:`DataError`.

    pandas keeps ``1`` and ``"1"`` side by side in an object column; an Arrow
    column (DuckDB's, Polars') holds one type, so pyarrow refuses such a column.
    """
    import pyarrow as pa

    try:
        return pa.Table.from_pandas(data, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as error:
        for column in data.columns:
            values = data[column]
            if not isinstance(values, pd.Series) or values.dtype != object:
                continue
            try:
                pa.array(values, from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
                present = values.dropna()
                kinds = present.map(type)
                examples = [repr(present[kinds == kind].iloc[0]) for kind in kinds.unique()[:3]]
                raise DataError(
                    f"column {column!r} mixes kinds of values ({', '.join(examples)}), which "
                    f"{engine} cannot hold in one column; convert it to one type (e.g. "
                    f"data[{column!r}].astype(str)) or leave engine= out to compute in pandas"
                ) from None
        raise DataError(
            f"the DataFrame cannot be handed to {engine} through Arrow ({error}); convert its "
            "columns to plain numbers and strings or leave engine= out to compute in pandas"
        ) from None


def _pandas_into_duckdb(data: pd.DataFrame) -> EngineSource:
    import duckdb

    arrow = _pandas_to_arrow(data, "DuckDB")
    zone = _zone_duckdb_loses(arrow.schema, "DataFrame")
    connection = duckdb.connect(config=duckdb_config())
    with _translated("DataFrame", ()):
        relation = _zoned_times_in_microseconds(connection.from_arrow(arrow), "DataFrame")
    return EngineSource(narwhals().from_native(relation), "DataFrame", zone=zone)


# --------------------------------------------------------------------------- formula


_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
}
_COMPARE = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def response_expression(text: str, columns: Sequence[str]) -> Any | None:
    """A narwhals expression for a formula's left side, or ``None`` if not expressible.

    Column names, numbers, ``+ - * / **``, one comparison, ``&``, ``|``, unary
    minus and ``abs()`` are translated; anything else is evaluated in pandas.
    Arithmetic runs in float64 whatever the columns' types, so every engine gives
    the same number (``uint8`` labels would wrap around, or overflow in DuckDB);
    comparisons compare the values as they are (text too).

    Examples
    --------
    >>> response_expression("pred != truth", ["pred", "truth"]) is not None
    True
    >>> response_expression("log(x)", ["x"]) is None
    True
    """
    nw = narwhals()
    names = set(columns)
    try:
        # names exactly as written (Python's own parser folds look-alike letters)
        checked = check_expression(text)
    except FormulaError:
        return None
    quoted = checked.quoted

    def number(node: ast.AST) -> Any:
        return walk(node).cast(nw.Float64)

    def walk(node: ast.AST) -> Any:
        if isinstance(node, ast.Name) and quoted.get(node.id, node.id) in names:
            return nw.col(quoted.get(node.id, node.id))
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)
        ):
            return nw.lit(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](number(node.left), number(node.right))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            left, right = walk(node.left), walk(node.right)
            return left & right if isinstance(node.op, ast.BitAnd) else left | right
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            return _COMPARE[type(node.ops[0])](walk(node.left), walk(node.comparators[0]))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -number(node.operand)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "abs"
            and len(node.args) == 1
            and not node.keywords
        ):
            return number(node.args[0]).abs()
        raise ValueError(ast.dump(node))

    try:
        return walk(checked.tree)
    except (ValueError, RecursionError):
        return None
