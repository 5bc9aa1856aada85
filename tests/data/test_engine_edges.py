"""Edges of the engine routes: labels that are zone-aware times, how the first rows are
read on lazy engines, and how record ids are split into passes.

Every engine must give the labels pandas gives (same zone, same printed text) and the
same numbers; the queries an engine runs are counted, not timed (the engines' speed is
measured in benchmarks/bench_engines.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data import engine_query, pushdown
from cvreport.data.datasets import DatasetsTable
from cvreport.errors import DataError
from tests.data.test_engines import _need, assert_same_tables, convert, cv_frame

__all__ = ["convert"]  # a fixture of the engines, used below (spark, dask_client: conftest)

FORMULA = "loss ~ model | replication + fold"
PARIS = "Europe/Paris"


# --------------------------------------------------------------------------- zone-aware labels


def _zoned_frame(unit: str = "us") -> pd.DataFrame:
    """cv_frame with folds and models as Europe/Paris times, across both changes of the
    clocks (+01:00 and +02:00), so that their UTC text differs from their own."""
    frame = cv_frame(4)
    start = pd.Timestamp("2024-03-30 22:00", tz=PARIS)
    frame["fold"] = (start + pd.to_timedelta(frame["fold"] * 30, unit="h")).astype(
        f"datetime64[{unit}, {PARIS}]"
    )
    times = {
        "lr": pd.Timestamp("2024-01-01 00:30", tz=PARIS),
        "tree": pd.Timestamp("2024-07-01 12:00", tz=PARIS),
        "knn": pd.Timestamp("2024-10-27 03:30", tz=PARIS),
    }
    frame["model"] = frame["model"].map(times).astype(f"datetime64[{unit}, {PARIS}]")
    return frame


def _printed(labels: Any) -> list[str]:
    return [str(label) for label in labels]


def _assert_same_zoned_table(table: Any, reference: Any) -> None:
    assert table.models == reference.models and table.folds == reference.folds
    assert _printed(table.models) == _printed(reference.models)  # same zone, same text
    assert _printed(table.folds) == _printed(reference.folds)
    assert all(str(m.tz) == PARIS for m in [*table.models, *table.folds])
    assert_same_tables(table, reference, exact=True)
    a, b = reference.models[:2]
    ours = cvreport.corrected_repeated_kfold_ttest(table, a, b)
    theirs = cvreport.corrected_repeated_kfold_ttest(reference, a, b)
    assert (ours.statistic, ours.pvalue) == (theirs.statistic, theirs.pvalue)


ZONED_ENGINES = [
    "pandas-via-duckdb",
    "parquet",
    "parquet-polars",
    "polars",
    "polars-lazy",
    "pyarrow",
    "dask",
    "arrow-into-duckdb",
]


@pytest.mark.parametrize("unit", ["us", "ns"])
@pytest.mark.parametrize("engine", ZONED_ENGINES)
def test_zone_aware_labels_keep_their_zone_on_every_engine(
    engine: str, unit: str, convert: Any
) -> None:
    """DuckDB holds instants and showed them in UTC ('2023-12-31 23:30:00+00:00' for the
    model given as '2024-01-01 00:30:00+01:00'); nanosecond zone-aware times were an
    unknown type to it ("holds Unknown values")."""
    frame = _zoned_frame(unit)
    reference = cvreport.ResultsTable.from_formula(FORMULA, frame)
    if engine == "arrow-into-duckdb":
        import pyarrow as pa

        data: Any = pa.Table.from_pandas(frame, preserve_index=False)
        options: dict[str, Any] = {"engine": "duckdb"}
    else:
        data, options = convert(engine, frame)
    table = cvreport.ResultsTable.from_formula(FORMULA, data, **options)
    assert table._route.startswith("engine")
    _assert_same_zoned_table(table, reference)
    # the per-record views come back in the zone too
    pd.testing.assert_frame_equal(
        table.record_differences(*reference.models[:2]),
        reference.record_differences(*reference.models[:2]),
        check_dtype=False,
    )


def test_zone_aware_data_set_labels_keep_their_zone_in_duckdb(tmp_path: Path) -> None:
    _need("duckdb")
    frame = cv_frame(5)
    halves = [
        frame.assign(dataset=pd.Timestamp(day, tz=PARIS)) for day in ("2024-07-02", "2024-01-02")
    ]
    both = pd.concat(halves, ignore_index=True)
    both.to_parquet(tmp_path / "sets.parquet")
    formula = FORMULA + " | dataset"
    reference = DatasetsTable.from_formula(formula, both)
    table = DatasetsTable.from_formula(formula, str(tmp_path / "sets.parquet"))
    assert table.datasets == reference.datasets
    assert _printed(table.datasets) == _printed(reference.datasets)
    assert _printed(table.datasets) == ["2024-07-02 00:00:00+02:00", "2024-01-02 00:00:00+01:00"]
    np.testing.assert_array_equal(table.means().to_numpy(), reference.means().to_numpy())


def test_a_duckdb_relation_shows_the_instants_of_its_own_type(convert: Any) -> None:
    """A DuckDB relation holds instants without a zone (TIMESTAMPTZ): the labels are the
    same instants, in the zone DuckDB itself shows them in, with the same numbers."""
    frame = _zoned_frame()
    reference = cvreport.ResultsTable.from_formula(FORMULA, frame)
    data, _ = convert("duckdb", frame)
    shown = str(data.df()["model"].dt.tz)
    table = cvreport.ResultsTable.from_formula(FORMULA, data)
    assert table.models == reference.models and table.folds == reference.folds
    assert {str(m.tz) for m in table.models} == {shown}
    assert_same_tables(table, reference, exact=True)


def test_a_spark_frame_shows_the_instants_in_its_session_zone(convert: Any, spark: Any) -> None:
    """Spark's timestamps are instants shown in the session's time zone: the labels are
    the same instants in that zone (never naive wall-clock times that could merge)."""
    frame = _zoned_frame()
    reference = cvreport.ResultsTable.from_formula(FORMULA, frame)
    data, _ = convert("spark", frame)
    table = cvreport.ResultsTable.from_formula(FORMULA, data)
    assert table.models == reference.models and table.folds == reference.folds
    assert all(label.tz is not None for label in [*table.models, *table.folds])
    assert_same_tables(table, reference, exact=True)


def test_times_of_two_zones_in_duckdb_are_refused_with_what_to_do() -> None:
    _need("duckdb")
    frame = _zoned_frame()
    frame["fold"] = frame["fold"].dt.tz_convert("America/New_York")
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, frame, engine="duckdb")
    message = str(raised.value)
    assert "'model' (Europe/Paris)" in message and "'fold' (America/New_York)" in message
    assert "data['model'] = data['model'].dt.tz_convert('America/New_York')" in message
    assert "engine='polars'" in message
    # Polars keeps each column's zone: the same labels as pandas
    table = cvreport.ResultsTable.from_formula(FORMULA, frame, engine="polars")
    reference = cvreport.ResultsTable.from_formula(FORMULA, frame)
    assert _printed(table.folds) == _printed(reference.folds)


def test_zone_aware_nanoseconds_duckdb_cannot_hold_are_refused(tmp_path: Path) -> None:
    _need("duckdb")
    frame = _zoned_frame("ns")
    frame["fold"] = frame["fold"] + pd.to_timedelta(frame["replication"], unit="ns")
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, frame, engine="duckdb")
    assert "column 'fold'" in str(raised.value) and "nanoseconds" in str(raised.value)
    assert "dt.floor('us')" in str(raised.value)
    frame.to_parquet(tmp_path / "ns.parquet")
    with pytest.raises(DataError, match="nanoseconds"):
        cvreport.ResultsTable.from_formula(FORMULA, str(tmp_path / "ns.parquet"))


# --------------------------------------------------------------------------- the first rows


def _counted_collects(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every query narwhals runs from now on (each ``LazyFrame.collect``), one entry each."""
    import narwhals.stable.v2 as nw

    runs: list[int] = []
    original = nw.LazyFrame.collect

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        runs.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(nw.LazyFrame, "collect", counted)
    return runs


def test_spark_reads_the_first_rows_in_one_query(
    convert: Any, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Growing heads (3, 24, 192 rows) ran three Spark queries to find a label first seen
    at row 180; one aggregation over the partitions finds every label's first row."""
    from cvreport.data.engines import resolve_source

    labels = np.array(["q", "b"] * 90 + ["late"] + ["q", "b", "x"] * 6 + ["z"])
    frame = pd.DataFrame({"d": labels, "n": np.arange(labels.size)})
    data, _ = convert("spark", frame)
    source = resolve_source(data)
    runs = _counted_collects(monkeypatch)
    wanted = {"q", "b", "x", "late", "z", "never"}
    for most, first_rows in ((200, 3), (181, 3), (180, 3), (5, 3), (1, 1)):
        runs.clear()
        got = engine_query.first_appearance(source.frame, "d", wanted, most, first_rows)
        assert got == pd.unique(frame["d"].iloc[:most]).tolist(), most
        assert len(runs) == 1, (most, len(runs))


def test_spark_places_the_first_rows_of_every_partition_in_order(convert: Any, spark: Any) -> None:
    from cvreport.data.engines import resolve_source

    rng = np.random.default_rng(8)
    labels = rng.choice(["a", "b", "c", "d", "e"], size=300, p=[0.6, 0.3, 0.08, 0.015, 0.005])
    frame = pd.DataFrame({"d": labels})
    data = spark.createDataFrame(frame).repartition(1)
    parts = spark.createDataFrame(frame.iloc[:100]).union(spark.createDataFrame(frame.iloc[100:]))
    assert parts.rdd.getNumPartitions() >= 2
    for native in (data, parts):
        source = resolve_source(native)
        for most in (1, 50, 100, 101, 150, 300):
            got = engine_query.first_appearance(source.frame, "d", set("abcde"), most)
            assert got == pd.unique(frame["d"].iloc[:most]).tolist(), most


class _IbisTable:
    """A stand-in for an Ibis table expression: its rows, and the queries it is asked for."""

    def __init__(self, rows: pd.DataFrame, queries: list[dict[str, Any]]) -> None:
        self.rows, self.queries = rows, queries

    def select(self, column: str) -> _IbisTable:
        return _IbisTable(self.rows[[column]], self.queries)

    def to_pyarrow_batches(self, *, limit: int, chunk_size: int) -> Any:
        import pyarrow as pa

        self.queries.append({"limit": limit, "read": 0})
        for start in range(0, min(limit, self.rows.shape[0]), chunk_size):
            chunk = self.rows.iloc[start : min(start + chunk_size, limit)]
            self.queries[-1]["read"] += chunk.shape[0]
            yield pa.RecordBatch.from_pandas(chunk, preserve_index=False)


class _IbisFrame:
    """A narwhals LazyFrame of Ibis, as :func:`first_appearance` reads it."""

    class implementation:
        name = "IBIS"

    def __init__(self, table: _IbisTable) -> None:
        self.table = table

    def to_native(self) -> _IbisTable:
        return self.table


def test_ibis_reads_the_first_rows_in_one_streamed_query(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_query, "_ROWS_PER_BATCH", 10)
    labels = ["q", "b"] * 40 + ["late"] + ["q"] * 100
    queries: list[dict[str, Any]] = []
    frame = _IbisFrame(_IbisTable(pd.DataFrame({"d": labels}), queries))
    for most in (500, 81, 80):
        queries.clear()
        got = engine_query.first_appearance(frame, "d", {"q", "b", "late"}, most, first_rows=3)
        assert got == pd.unique(pd.Series(labels[:most])).tolist()
        assert [q["limit"] for q in queries] == [most]  # one query, bounded by most_rows
        assert queries[0]["read"] == min(90, most)  # stopped at the batch showing 'late'


# --------------------------------------------------------------------------- records in passes


def _ids_of_kind(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    """cv_frame's 48 records (id000 … id047) as ids of another kind."""
    number = frame["record"].str[2:].astype(np.int64)
    if kind == "text with a suffix":
        return frame.assign(record=frame["record"] + "_x")
    if kind == "float":  # integers held as floats, as a column with a missing value becomes
        return frame.assign(record=number.astype(np.float64) + 1.0)
    if kind == "fractional float":
        return frame.assign(record=number / 8.0 - 2.0)
    if kind == "date":
        return frame.assign(
            record=(pd.Timestamp("2024-02-20") + pd.to_timedelta(number, "D")).dt.date
        )
    if kind == "zone-aware time":
        start = pd.Timestamp("2024-03-31 00:00", tz=PARIS)
        return frame.assign(record=start + pd.to_timedelta(number * 5, "min"))
    raise AssertionError(kind)


ID_KINDS = ["text with a suffix", "float", "fractional float", "date", "zone-aware time"]


@pytest.mark.parametrize("engine", ["duckdb", "parquet", "polars-lazy", "pyarrow", "dask"])
@pytest.mark.parametrize("kind", ID_KINDS)
def test_every_kind_of_record_id_is_split_into_even_passes(
    kind: str, engine: str, convert: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ids 'id000_x' … were cut on their last three characters ('0_x' … '9_x': ten keys,
    so four passes of 10, 10, 15 and 13 records); float, date and time ids took one
    pass whatever their number (no bound on memory)."""
    records_per_pass: list[int] = []
    whole = pushdown.collect_batches

    def counted(query: Any, *args: Any) -> Any:
        records_per_pass.append(0)
        for batch in whole(query, *args):
            records_per_pass[-1] += batch.shape[0]
            yield batch

    monkeypatch.setattr(pushdown, "collect_batches", counted)
    for binary in (True, False):
        frame = cv_frame(12, binary=binary)
        frame = _ids_of_kind(frame, kind)
        assert frame["record"].nunique() == 48
        reference = cvreport.ResultsTable(frame)
        data, options = convert(engine, frame)
        # 48 records: 5 passes (of 9.6 records), 4 passes (of 12) for the suffixed text
        cuts = [(10, 5, 8, 11)] + ([(12, 4, 11, 13)] if kind == "text with a suffix" else [])
        for per_pass, n_passes, least, most in cuts:
            monkeypatch.setattr(pushdown, "_RECORDS_PER_PASS", per_pass)
            records_per_pass.clear()
            in_passes = cvreport.ResultsTable(data, **options)
            # every record in exactly one pass, the passes of about as many records each
            assert len(records_per_pass) == n_passes, records_per_pass
            assert sum(records_per_pass) == 48, records_per_pass
            assert least <= min(records_per_pass) <= max(records_per_pass) <= most
            assert_same_tables(in_passes, reference, exact=binary)


def test_spark_reads_every_data_sets_first_rows_in_one_query(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data sets' first rows were a union of their heads, read again 8 times further
    while a data set's first rows lacked a model: two Spark queries where 'm4' first
    appears past set 'b''s 4,096th row; one aggregation orders every data set's models."""
    import narwhals.stable.v2 as nw

    from cvreport.data.engine_query import D, M

    rng = np.random.default_rng(9)
    late = ["m2", "m1", "m3"] * 1500 + ["m4"] + ["m1", "m4", "m3", "m2"] * 10
    parts = [
        pd.DataFrame({D: "a", M: rng.choice(["m3", "m1", "m2", "m4"], size=300)}),
        pd.DataFrame({D: "b", M: late}),
    ]
    frame = pd.concat(parts, ignore_index=True).iloc[np.r_[0:150, 300:2000, 150:300, 2000:4841]]
    lazy = nw.from_native(spark.createDataFrame(frame.reset_index(drop=True)))
    labels = {d: pd.Index(["m1", "m2", "m3", "m4"]) for d in ("a", "b")}
    runs = _counted_collects(monkeypatch)
    orders = pushdown._first_appearances(lazy, labels)
    assert len(runs) == 1
    for d in ("a", "b"):
        expected = pd.unique(frame.loc[frame[D] == d, M]).tolist()
        assert orders[d](labels[d]).tolist() == expected, d
    assert orders["b"](labels["b"]).tolist() == ["m2", "m1", "m3", "m4"]
