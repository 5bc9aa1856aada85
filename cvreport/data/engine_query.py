"""Small pieces of the engine queries: the canonical column names, running a query,
and integer codes of labels computed inside the engine.

Shared by the aggregations (:mod:`cvreport.data.pushdown`) and the diagnosis of an
irregular table (:mod:`cvreport.data.engine_diagnosis`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.engines import in_source_zone, narwhals

__all__ = [
    "D",
    "F",
    "I",
    "M",
    "R",
    "Y",
    "case_codes",
    "collect",
    "collect_batches",
    "first_appearance",
    "partitions_before",
    "powers",
    "spark_first_places",
]

FIRST_ROWS = 1 << 12
"""Rows first read to find labels' order of first appearance (then 8 times more)."""
MOST_FIRST_ROWS = 1 << 24
"""Rows read at most to find labels' order of first appearance."""
_ROWS_PER_BATCH = 1 << 16  # rows of a label column in pandas or Arrow at once

R, F, M, I, Y = "_r", "_f", "_m", "_i", "_y"  # noqa: E741
"""The canonical columns: replication, fold, model, record and the per-record value."""
D = "_d"
"""The canonical data set column, when many data sets are aggregated at once."""


def collect(frame: Any) -> pd.DataFrame:
    """Run a lazy query and bring its (small) result into pandas.

    Polars runs it on its streaming engine, in batches of bounded memory. Times
    come in the zone the source gave them in (:func:`~cvreport.data.engines.in_source_zone`).
    """
    if frame.implementation.name == "POLARS":
        return frame.collect(engine="streaming").to_pandas()
    return in_source_zone(as_timedeltas(frame.collect().to_pandas()))


def as_timedeltas(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with DuckDB's intervals as the Timedeltas pandas and Polars give.

    A duration column (pandas' ``timedelta64``) is an INTERVAL in DuckDB, which
    reaches pandas as ``DateOffset`` objects (Arrow's month-day-nano interval): as
    labels they would print otherwise than on every other engine and could not be
    compared with the column again. An interval of calendar months stays as it is.
    """
    for name in frame.columns:
        column = frame[name]
        if column.dtype != object:
            continue
        first = column.first_valid_index()
        if first is not None and isinstance(column[first], pd.DateOffset):
            frame[name] = column.map(_timedelta)
    return frame


def _timedelta(offset: Any) -> Any:
    if not isinstance(offset, pd.DateOffset) or offset.kwds.get("months", 0):
        return offset
    return pd.Timedelta(
        days=offset.kwds.get("days", 0), nanoseconds=offset.kwds.get("nanoseconds", 0)
    )


def collect_batches(frame: Any, rows: int = 1 << 20) -> Iterator[pd.DataFrame]:
    """Run a lazy query and bring its result into pandas ``rows`` rows at a time.

    DuckDB streams its result as Arrow record batches, so a result of one row per
    record (20M rows of a 1,000M-row table) never sits in memory whole; other
    engines collect the result and hand it over in slices.
    """
    if frame.implementation.name == "DUCKDB":
        relation = frame.to_native()
        reader = (
            relation.to_arrow_reader(rows)
            if hasattr(relation, "to_arrow_reader")
            else relation.fetch_arrow_reader(rows)
        )
        for batch in reader:
            yield in_source_zone(as_timedeltas(batch.to_pandas()))
        return
    whole = collect(frame)
    for start in range(0, max(1, whole.shape[0]), rows):
        yield whole.iloc[start : start + rows]


def powers(n: int) -> list[int]:
    return [1 << k for k in range(n)]


def case_codes(column: str, labels: pd.Index, values: Sequence[int]) -> Any:
    """The integer ``values[t]`` where ``column`` equals ``labels[t]``, else 0.

    A chain of ``when``: engines run it as one CASE expression, several times
    faster than a lookup in a map built for every row.
    """
    nw = narwhals()
    pairs = [(label, int(v)) for label, v in zip(labels.tolist(), values) if v != 0]
    if not pairs:
        return nw.lit(0, dtype=nw.Int64)
    chain = nw.when(nw.col(column) == pairs[0][0]).then(nw.lit(pairs[0][1], dtype=nw.Int64))
    for label, value in pairs[1:]:
        chain = chain.when(nw.col(column) == label).then(nw.lit(value, dtype=nw.Int64))
    return chain.otherwise(nw.lit(0, dtype=nw.Int64))


def first_appearance(
    frame: Any,
    column: str,
    wanted: Collection[Any],
    most_rows: int | None = None,
    first_rows: int | None = None,
) -> list[Any]:
    """The labels of ``wanted`` that ``column`` holds in its first ``most_rows`` rows, in
    the order of their first row there (pandas' order of first appearance).

    Reading stops once every label of ``wanted`` has been seen. Memory stays bounded
    whatever ``most_rows``: no more than the labels and one batch of rows at once.

    * DuckDB streams the column in Arrow batches of 65,536 rows (the rows' order is
      kept: :func:`~cvreport.data.engines.duckdb_config`), each reduced to its
      labels in order of first appearance;
    * Polars streams its first ``most_rows`` rows in batches of 65,536 rows from one
      query, dropped (which stops it) once every label is seen
      (:func:`_first_rows_polars`). Growing heads (``head(n)``, ``head(8n)``, ...)
      ran the query again each time;
    * a PyArrow table is read in zero-copy slices of 65,536 rows, and a Dask frame
      one partition at a time (its rows' order);
    * Spark runs one aggregation: per partition and label, the label's first row in
      the partition and its rows (:func:`_first_rows_spark`), at most one row per
      partition and label, from which the first rows are placed in the whole frame's
      order. Growing heads (``head(n)``, ``head(8n)``, ...) ran the query again each
      time, the last bringing ``most_rows`` rows into the driver;
    * Ibis runs one query of its first ``most_rows`` rows, streamed in Arrow batches
      and stopped once every label is seen;
    * any other engine returns its first ``n`` rows (``n`` growing 8 times from
      ``first_rows``) as an Arrow column, reduced in slices.

    Parameters
    ----------
    frame : narwhals.LazyFrame
        The rows, in the engine's order.
    column : str
        The column of labels.
    wanted : collection
        The labels to order (as pandas shows them).
    most_rows : int, optional
        How many first rows may be read (default :data:`MOST_FIRST_ROWS`).
    first_rows : int, optional
        How many rows the engines that read growing heads read first (default
        :data:`FIRST_ROWS`).

    Returns
    -------
    list
        The labels of ``wanted`` seen in the first ``most_rows`` rows, by first row.

    Examples
    --------
    >>> import narwhals.stable.v2 as nw
    >>> import polars as pl
    >>> rows = nw.from_native(pl.LazyFrame({"d": ["b", "b", "a", "c", "a"]}))
    >>> first_appearance(rows, "d", {"a", "b", "c"})
    ['b', 'a', 'c']
    >>> first_appearance(rows, "d", {"a", "b", "c"}, most_rows=3)
    ['b', 'a']
    """
    wanted = set(wanted)
    most_rows = MOST_FIRST_ROWS if most_rows is None else most_rows
    first_rows = FIRST_ROWS if first_rows is None else first_rows
    order: dict[Any, None] = {}
    name = frame.implementation.name
    if name == "POLARS":
        return _first_rows_polars(frame.select(column).to_native(), column, wanted, most_rows)
    if name == "DUCKDB":
        relation = frame.select(column).head(most_rows).to_native()
        reader = (
            relation.to_arrow_reader(_ROWS_PER_BATCH)
            if hasattr(relation, "to_arrow_reader")
            else relation.fetch_arrow_reader(_ROWS_PER_BATCH)
        )
        batches: Iterator[Any] = (batch.column(0) for batch in reader)
    elif name == "PYARROW":
        table = frame.to_native().select([column]).slice(0, most_rows)
        batches = (b.column(0) for b in table.to_batches(max_chunksize=_ROWS_PER_BATCH))
    elif name == "DASK":
        batches = _dask_partitions(frame.to_native()[column], most_rows)
    elif name == "PYSPARK":
        return _first_rows_spark(frame, column, wanted, most_rows)
    elif name == "IBIS":
        table = frame.to_native().select(column)
        reader = table.to_pyarrow_batches(limit=most_rows, chunk_size=_ROWS_PER_BATCH)
        batches = (batch.column(0) for batch in reader)
    else:
        return _first_rows_by_heads(frame.select(column), column, wanted, most_rows, first_rows)
    for values in batches:
        _add_first_seen(order, values, wanted)
        if len(order) == len(wanted):
            break
    return list(order)


def _add_first_seen(order: dict[Any, None], values: Any, wanted: set[Any]) -> None:
    """Add to ``order`` the labels of ``wanted`` in ``values`` (Arrow or pandas), by first row."""
    if not isinstance(values, pd.Series):
        import pyarrow.compute as pc

        values = pc.unique(values).to_pandas()  # Arrow keeps the order
    seen = pd.unique(in_source_zone(values.to_frame()).iloc[:, 0]).tolist()
    for value in map(_timedelta, seen):  # DuckDB's intervals as the labels' Timedeltas
        if value in wanted and value not in order:
            order[value] = None


def _dask_partitions(series: Any, most_rows: int) -> Iterator[pd.Series]:
    """The first ``most_rows`` values of a Dask series, one partition at a time."""
    read = 0
    for part in range(series.npartitions):
        values = series.partitions[part].compute()
        yield values.iloc[: most_rows - read]
        read += values.shape[0]
        if read >= most_rows:
            return


def _first_rows_polars(lazy: Any, column: str, wanted: set[Any], most_rows: int) -> list[Any]:
    """Polars: the labels of the first ``most_rows`` rows by first row, from one query.

    The rows stream in batches of :data:`_ROWS_PER_BATCH` (``collect_batches``, in
    the rows' order) and the stream is dropped, which stops the query, once every
    label of ``wanted`` is seen. A Polars without ``collect_batches`` runs one
    aggregation of the first ``most_rows`` rows instead: each label's first row
    number, one row per label.
    """
    import polars as pl

    head = lazy.head(most_rows)
    if not hasattr(head, "collect_batches"):
        position = f"{column}_first_row"
        found = (
            head.with_row_index(position)
            .group_by(column)
            .agg(pl.col(position).min())
            .sort(position)
            .collect(engine="streaming")
            .to_pandas()
        )
        return [v for v in found[column].tolist() if v in wanted]
    order: dict[Any, None] = {}
    batches = head.collect_batches(chunk_size=_ROWS_PER_BATCH)
    try:
        for batch in batches:
            _add_first_seen(order, batch.to_pandas()[column], wanted)
            if len(order) == len(wanted):
                break
    finally:
        del batches  # the query stops with its stream
    return list(order)


_SPARK_ROW_BITS = 33
"""Bits of a row's place in its partition in Spark's ``monotonically_increasing_id``
(the partition's index is in the bits above)."""


def spark_first_places(frame: Any, columns: Sequence[str]) -> pd.DataFrame:
    """Spark: per partition and value of ``columns``, the value's first row in the
    partition (``_first``) and its rows (``_rows``), from one aggregation.

    Each row's ``monotonically_increasing_id`` holds its partition (``_part``) and its
    place in the partition; the partitions' sizes (the sums of ``_rows``) place every
    first row in the frame's order (the order ``head`` and ``collect`` read). The
    result has at most one row per partition and value, wherever the values first
    appear.
    """
    from pyspark.sql import functions as sf

    nw = narwhals()
    row = sf.monotonically_increasing_id()
    placed = frame.to_native().select(
        sf.shiftright(row, _SPARK_ROW_BITS).alias("_part"),
        row.bitwiseAND(sf.lit((1 << _SPARK_ROW_BITS) - 1)).alias("_place"),
        *[sf.col(f"`{c.replace('`', '``')}`").alias(c) for c in columns],
    )
    firsts = placed.groupBy("_part", *columns).agg(
        sf.min("_place").alias("_first"), sf.count(sf.lit(1)).alias("_rows")
    )
    return collect(nw.from_native(firsts))


def partitions_before(found: pd.DataFrame) -> np.ndarray:
    """For each row of :func:`spark_first_places`' result (or a part of it), the rows of
    the partitions before its own."""
    sizes = found.groupby("_part")["_rows"].sum().sort_index()
    return (sizes.cumsum() - sizes).reindex(found["_part"]).to_numpy()


def _first_rows_spark(frame: Any, column: str, wanted: set[Any], most_rows: int) -> list[Any]:
    """Spark: the labels of the first ``most_rows`` rows by first row, from one
    aggregation (:func:`spark_first_places`)."""
    found = spark_first_places(frame, [column])
    if found.empty:
        return []
    at = partitions_before(found) + found["_first"].to_numpy()
    kept = found.assign(_at=at)
    kept = kept[kept["_at"] < most_rows].sort_values("_at", kind="stable")
    order: dict[Any, None] = {}
    _add_first_seen(order, kept[column], wanted)
    return list(order)


def _first_rows_by_heads(
    frame: Any, column: str, wanted: set[Any], most_rows: int, first_rows: int
) -> list[Any]:
    """Any engine: its first ``n`` rows (``n`` growing) as an Arrow column, in slices."""
    n = min(first_rows, most_rows)
    while True:
        head = frame.head(n).collect().to_arrow().column(column)
        order: dict[Any, None] = {}
        for start in range(0, len(head), _ROWS_PER_BATCH):
            _add_first_seen(order, head.slice(start, _ROWS_PER_BATCH), wanted)
            if len(order) == len(wanted):
                return list(order)
        if len(head) < n or n >= most_rows:
            return list(order)
        n = min(n * 8, most_rows)
