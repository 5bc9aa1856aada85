"""Edges of the engine routes: integer record ids of a common stride split into passes,
the queries Polars runs to read the first rows, and the computes Dask runs to name an
irregular table's problem.

The queries an engine runs are counted, not timed (the engines' speed is measured in
benchmarks/bench_engines.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data import engine_query, pushdown
from cvreport.data.engine_diagnosis import EngineDiagnosis
from cvreport.data.engine_query import D, I, M, collect
from cvreport.data.engines import resolve_source
from cvreport.errors import DataError
from tests.data.test_engines import assert_same_tables, convert, cv_frame

__all__ = ["convert"]  # a fixture of the engines, used below (spark, dask_client: conftest)

LAZY_ENGINES = ["duckdb", "parquet", "polars-lazy", "pyarrow", "dask", "spark"]


# --------------------------------------------------------------------------- integer ids in passes


def _integer_ids(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    """cv_frame's 48 records (id000 … id047) as integer ids of a kind."""
    number = frame["record"].str[2:].astype(np.int64)
    if kind == "stride 4":  # 0, 4, 8, ..., 188: every id a multiple of the 4 passes
        return frame.assign(record=number * 4)
    if kind == "negative stride 6":  # 0, -6, -12, ...: a factor shared with the 4 passes
        return frame.assign(record=-number * 6)
    if kind == "cluster and a far id":  # 0 … 46 and 10**15: equal ranges of the value
        return frame.assign(record=number.where(number < 47, 10**15))
    raise AssertionError(kind)


def _hash(record: int) -> int:
    """The pass key of an integer id, computed in Python: (id mod P) · A mod P."""
    return (record % pushdown._HASH_PRIME) * pushdown._HASH_FACTOR % pushdown._HASH_PRIME


def _counting_passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records of each pass, appended as the record-word aggregations run."""
    records_per_pass: list[int] = []
    whole = pushdown.collect_batches

    def counted(query: Any, *args: Any) -> Iterator[pd.DataFrame]:
        records_per_pass.append(0)
        for batch in whole(query, *args):
            records_per_pass[-1] += batch.shape[0]
            yield batch

    monkeypatch.setattr(pushdown, "collect_batches", counted)
    return records_per_pass


def test_the_integer_hash_spreads_a_stride_that_the_remainder_did_not() -> None:
    """By hand: ids 0, 4, ..., 188 modulo 4 are all 0 (one pass of four held every
    record); their hashes, cut at the quarters of their order, give four passes of 12."""
    ids = np.arange(48) * 4
    assert set((ids % 4).tolist()) == {0}
    hashes = np.array([_hash(int(v)) for v in ids])
    assert np.unique(hashes).shape[0] == 48
    assert ((hashes >= 0) & (hashes < pushdown._HASH_PRIME)).all()
    bins = hashes // -(-pushdown._HASH_PRIME // pushdown._NUMBER_BINS)
    quarters = np.searchsorted(np.sort(bins), np.quantile(np.sort(bins), [0.25, 0.5, 0.75]))
    assert np.diff(np.concatenate([[0], quarters, [48]])).min() >= 11


@pytest.mark.parametrize("engine", LAZY_ENGINES)
@pytest.mark.parametrize("kind", ["stride 4", "negative stride 6", "cluster and a far id"])
def test_integer_record_ids_of_a_common_stride_are_split_into_even_passes(
    kind: str, engine: str, convert: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut by ``abs(id % 4)``, ids 0, 4, 8, ... all fell in the first of four passes
    (passes of 48, 0, 0 and 0 records: that pass's hash table held every record);
    cut by ranges of the id, 47 clustered ids and one far one would too."""
    records_per_pass = _counting_passes(monkeypatch)
    one_pass_size = pushdown._RECORDS_PER_PASS
    for binary in (True, False):
        frame = _integer_ids(cv_frame(13, binary=binary), kind)
        assert frame["record"].nunique() == 48
        reference = cvreport.ResultsTable(frame)
        data, options = convert(engine, frame)
        records_per_pass.clear()
        one_pass = cvreport.ResultsTable(data, **options)
        assert records_per_pass == [48]
        monkeypatch.setattr(pushdown, "_RECORDS_PER_PASS", 12)  # 48 records: 4 passes of 12
        records_per_pass.clear()
        in_passes = cvreport.ResultsTable(data, **options)
        monkeypatch.setattr(pushdown, "_RECORDS_PER_PASS", one_pass_size)
        assert len(records_per_pass) == 4, records_per_pass
        assert sum(records_per_pass) == 48, records_per_pass
        assert 11 <= min(records_per_pass) <= max(records_per_pass) <= 13, records_per_pass
        assert_same_tables(in_passes, one_pass, exact=binary)  # the same numbers as one pass
        assert_same_tables(in_passes, reference, exact=binary)  # and as pandas


def _ids_in_passes(engine: str, convert: Any, ids: pd.Series) -> list[list[int]]:
    """The ids each pass's filter keeps on ``engine``, a frame of one id column."""
    import narwhals.stable.v2 as nw

    data, _ = convert(engine, pd.DataFrame({I: ids}))
    frame = nw.from_native(data)
    lazy = frame.lazy() if isinstance(frame, nw.DataFrame) else frame
    return [
        sorted(collect(lazy if keep is None else lazy.filter(keep))[I].astype(np.int64).tolist())
        for keep in pushdown._record_passes(lazy, ids.shape[0])
    ]


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_every_engine_puts_each_integer_id_in_the_same_pass(
    dtype: str, convert: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Negative ids, ids past 2**62 and ids of a stride: every engine computes the same
    hash (no overflow, the same remainder whatever the sign convention of its ``%``),
    the one Python computes, so the passes hold the same ids everywhere."""
    monkeypatch.setattr(pushdown, "_RECORDS_PER_PASS", 25)  # 100 ids: 4 passes
    info = np.iinfo(dtype)
    ids = np.concatenate([np.arange(-40, 240, 4), [info.min, info.max, info.max - 1, info.min + 3]])
    ids = np.concatenate([ids, 1000 + 7 * np.arange(100 - ids.shape[0])]).astype(dtype)
    assert np.unique(ids).shape[0] == 100
    by_engine = {}
    for engine in ["duckdb", "polars-lazy", "pyarrow", "dask", "spark"]:
        passes = _ids_in_passes(engine, convert, pd.Series(ids))
        assert sorted(v for p in passes for v in p) == sorted(ids.tolist())  # each in one pass
        sizes = [len(p) for p in passes]
        assert len(sizes) == 4 and 23 <= min(sizes) <= max(sizes) <= 27, sizes
        # the passes are ranges of the hash Python computes, in its order
        hashes = [sorted(_hash(v) for v in p) for p in passes]
        assert all(low[-1] < high[0] for low, high in itertools.pairwise(hashes))
        by_engine[engine] = passes
    assert all(passes == by_engine["duckdb"] for passes in by_engine.values())


# --------------------------------------------------------------------------- Polars' first rows


def _counted_polars_queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every query Polars runs from now on (``collect`` or ``collect_batches``), by name."""
    pl = pytest.importorskip("polars")
    queries: list[str] = []
    for name in ("collect", "collect_batches"):
        original = getattr(pl.LazyFrame, name)

        def counted(
            self: Any, *args: Any, _original: Any = original, _name: str = name, **kwargs: Any
        ) -> Any:
            queries.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(pl.LazyFrame, name, counted)
    return queries


@pytest.mark.parametrize("engine", ["polars", "polars-lazy"])
def test_polars_reads_the_first_rows_in_one_query(
    engine: str, convert: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Growing heads (3, 24, 192 rows) ran three Polars queries to find a label first seen
    at row 180; the first rows now stream from one query, stopped once every label is
    seen."""

    labels = np.array(["q", "b"] * 90 + ["late"] + ["q", "b", "x"] * 6 + ["z"])
    frame = pd.DataFrame({"d": labels, "n": np.arange(labels.size)})
    data, _ = convert(engine, frame)
    source = resolve_source(data)
    monkeypatch.setattr(engine_query, "_ROWS_PER_BATCH", 16)  # 13 batches of the 199 rows
    queries = _counted_polars_queries(monkeypatch)
    wanted = {"q", "b", "x", "late", "z", "never"}
    for most, first_rows in ((200, 3), (181, 3), (180, 3), (5, 3), (1, 1)):
        queries.clear()
        got = engine_query.first_appearance(source.frame, "d", wanted, most, first_rows)
        assert got == pd.unique(frame["d"].iloc[:most]).tolist(), most
        assert len(queries) == 1, (most, queries)
    # a label of the first rows only: the stream stops at its first batch
    read: list[int] = []
    add_first_seen = engine_query._add_first_seen

    def counted(order: Any, values: Any, wanted: Any) -> None:
        read.append(len(values))
        add_first_seen(order, values, wanted)

    monkeypatch.setattr(engine_query, "_add_first_seen", counted)
    assert engine_query.first_appearance(source.frame, "d", {"q", "b"}, 200, 3) == ["q", "b"]
    assert read == [16]


def test_polars_orders_every_data_sets_models_in_one_query(
    convert: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data sets' first rows were a union of their heads (4,096 rows each), read again
    8 times further while a data set's first rows lacked a model: two Polars queries
    where 'm4' first appears past set 'b''s 4,096th row; one aggregation of each (data
    set, model) pair's first row orders every data set's models."""
    import narwhals.stable.v2 as nw

    rng = np.random.default_rng(9)
    late = ["m2", "m1", "m3"] * 1500 + ["m4"] + ["m1", "m4", "m3", "m2"] * 10
    parts = [
        pd.DataFrame({D: "a", M: rng.choice(["m3", "m1", "m2", "m4"], size=300)}),
        pd.DataFrame({D: "b", M: late}),
        pd.DataFrame({D: "c", M: ["m2"] * 5}),  # 'm1' never seen: it follows, as given
    ]
    frame = pd.concat(parts, ignore_index=True).iloc[np.r_[0:150, 300:2000, 150:300, 2000:4846]]
    data, _ = convert("polars-lazy", frame.reset_index(drop=True))
    lazy = nw.from_native(data)
    labels = {d: pd.Index(["m1", "m2", "m3", "m4"]) for d in ("a", "b")}
    labels["c"] = pd.Index(["m1", "m2"])
    queries = _counted_polars_queries(monkeypatch)
    orders = pushdown._first_appearances(lazy, labels)
    assert len(queries) == 1, queries
    for d in ("a", "b"):
        expected = pd.unique(frame.loc[frame[D] == d, M]).tolist()
        assert orders[d](labels[d]).tolist() == expected, d
    assert orders["b"](labels["b"]).tolist() == ["m2", "m1", "m3", "m4"]
    assert orders["c"](labels["c"]).tolist() == ["m2", "m1"]


# --------------------------------------------------------------------------- Dask's diagnosis


def _irregular_frames() -> dict[str, tuple[pd.DataFrame, int]]:
    """Irregular tables whose problem the engine's key check names, and the Dask computes
    that check runs: the counts and first keys of its three checks in one, the rows of
    the keys its message shows in one more."""
    base = cv_frame(4, m=2)
    conflicting = base.iloc[[5, 17, 30]].assign(loss=lambda f: 1.0 - f["loss"])
    split = base.copy()
    for record in ("id011", "id020"):
        rows = split[(split.record == record) & (split.replication == 2)].assign(
            fold=lambda f: 3 - f["fold"]
        )
        split = pd.concat([split, rows], ignore_index=True)
    return {
        # old: the count, the first keys (2 computes)
        "a row twice": (pd.concat([base, base.iloc[[5]]], ignore_index=True), 1),
        # old: the count, the first keys, the values of each of 3 keys (5 computes)
        "three keys with two values": (pd.concat([base, conflicting], ignore_index=True), 2),
        # old: 2 counts, the first keys, the folds of each of 2 records (5 computes)
        "records in two folds": (split, 2),
        # old: 3 counts, the first triples, the models of each of 3 triples (7 computes)
        "three rows missing": (base.drop(index=[3, 40, 77]).reset_index(drop=True), 2),
        # old: 3 counts, the first records (4 computes)
        "no record shared": (base.assign(record=base["record"] + base["model"]), 1),
    }


IRREGULAR = _irregular_frames()


@pytest.mark.parametrize("case", list(IRREGULAR))
def test_dask_names_an_irregular_tables_problem_in_at_most_two_computes(
    case: str, convert: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One ``compute`` per query (up to seven for three rows missing, each optimised and
    scheduled alone) made the key check the slowest engine test; the message stays the
    one pandas words."""
    import dask
    import dask.base

    frame, most = IRREGULAR[case]
    with pytest.raises(DataError) as in_memory:
        cvreport.ResultsTable(frame)
    data, options = convert("dask", frame)
    computes: list[str] = []
    in_check: list[int] = []
    original_compute, check_keys = dask.base.compute, EngineDiagnosis.check_keys

    def counted(*args: Any, **kwargs: Any) -> Any:
        computes.append("compute")
        return original_compute(*args, **kwargs)

    def counted_check(self: Any, *args: Any, **kwargs: Any) -> Any:
        before = len(computes)
        try:
            return check_keys(self, *args, **kwargs)
        finally:
            in_check.append(len(computes) - before)

    monkeypatch.setattr(dask.base, "compute", counted)
    monkeypatch.setattr(dask, "compute", counted)
    monkeypatch.setattr(EngineDiagnosis, "check_keys", counted_check)
    with pytest.raises(DataError) as in_dask:
        cvreport.ResultsTable(data, **options)
    assert str(in_dask.value) == str(in_memory.value)
    assert in_check == [most], in_check
