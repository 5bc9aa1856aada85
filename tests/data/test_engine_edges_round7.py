"""Edges of the engine routes, round seven: labels of CSV files that read as numbers,
Decimal losses on Dask, the queries Ibis runs to order many data sets' models, and
Python booleans held as objects where a probability metric reads scores.

A CSV file holds no types, so each engine guessed them: a model ``007`` or ``1e3``
was text to DuckDB but 7 and 1000.0 to pandas (the command line) and Polars. The
label columns (model, data set, cluster) are now read as the text they are written
as on every route; replications and folds keep their numbers, and losses stay
numbers. The queries an engine runs are counted, not timed.
"""

from __future__ import annotations

import decimal
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.cli import main
from cvreport.data import engines, pushdown
from cvreport.data.backends import backend_for, formula_label_columns
from cvreport.data.clusters import record_clusters
from cvreport.data.datasets import DatasetsTable
from cvreport.data.engine_query import D, M
from cvreport.data.io import read_results
from cvreport.errors import DataError
from tests._engines import need
from tests.data.test_engines import assert_same_tables, cv_frame

FORMULA = "loss ~ clf | replication + fold"
AS_WRITTEN = {"lr": "007", "tree": "1e3", "knn": "10"}  # numbers to a type-guessing reader
PATH_ENGINES = [None, "duckdb", "polars", "pandas"]
SAMPLES = 200  # posterior samples of compare_datasets (the ranks do not depend on them)


def _written(frame: pd.DataFrame, labels: dict[str, str] = AS_WRITTEN) -> pd.DataFrame:
    """cv_frame with its models renamed to ``labels`` in a column 'clf', 12 folds (so that
    the folds 2 and 10 sort as numbers, not as text)."""
    return frame.assign(clf=frame["model"].map(labels)).drop(columns="model")


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return _written(cv_frame(40, m=2, K=12))


@pytest.fixture(scope="module")
def reference(frame: pd.DataFrame) -> cvreport.ResultsTable:
    """The table of the rows in memory: its models are the text the file holds."""
    return cvreport.ResultsTable.from_formula(FORMULA, frame)


def _numbers(report: pd.DataFrame) -> pd.DataFrame:
    return report.select_dtypes("number")


# --------------------------------------------------------------------------- labels of CSV files


def test_the_reference_holds_the_labels_as_text(
    frame: pd.DataFrame, reference: cvreport.ResultsTable
) -> None:
    assert reference.models == tuple(pd.unique(frame["clf"]))  # in order of first row
    assert set(reference.models) == set(AS_WRITTEN.values())
    assert reference.folds == tuple(range(1, 13))


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_number_like_model_labels_of_a_csv_are_read_as_written(
    engine: str | None, frame: pd.DataFrame, reference: cvreport.ResultsTable, tmp_path: Path
) -> None:
    """DuckDB read '007' and '1e3' as text, pandas and Polars as 7 and 1000.0 (and '10'
    as 10): the model column is read as text on every engine; the folds stay numbers."""
    if engine is not None:
        need(engine)
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    table = cvreport.ResultsTable.from_formula(FORMULA, str(path), engine=engine)
    assert table.models == reference.models
    assert all(isinstance(fold, (int, np.integer)) for fold in table.folds)
    assert_same_tables(table, reference, exact=True)
    pd.testing.assert_frame_equal(
        cvreport.Report(table).to_frame(), cvreport.Report(reference).to_frame()
    )


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_a_glob_of_csv_files_reads_the_labels_as_written(
    engine: str | None, frame: pd.DataFrame, reference: cvreport.ResultsTable, tmp_path: Path
) -> None:
    """Two files, the second with its columns in another order (read by name)."""
    if engine is not None:
        need(engine)
    first = frame[frame["replication"] == 1]
    second = frame[frame["replication"] == 2]
    first.to_csv(tmp_path / "r1.csv", index=False)
    second[list(reversed(frame.columns))].to_csv(tmp_path / "r2.csv", index=False)
    table = cvreport.ResultsTable.from_formula(FORMULA, str(tmp_path / "r*.csv"), engine=engine)
    assert_same_tables(table, reference, exact=True)


def test_read_results_reads_the_named_label_columns_as_text(
    frame: pd.DataFrame, tmp_path: Path
) -> None:
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    named = read_results(path, labels=["clf"])
    assert named["clf"].tolist() == frame["clf"].tolist()
    assert named["fold"].dtype == np.int64 and named["loss"].dtype == np.float64
    # without names: the columns the tables name by default ('model', 'dataset')
    frame.rename(columns={"clf": "model"}).to_csv(path, index=False)
    assert read_results(path)["model"].tolist() == frame["clf"].tolist()
    assert read_results(path, labels=[])["model"].tolist() != frame["clf"].tolist()
    # integers written plainly stay integers
    assert read_results(path, labels=["fold"])["fold"].tolist() == frame["fold"].tolist()


def test_the_label_columns_of_a_formula() -> None:
    assert formula_label_columns(FORMULA) == ["clf"]
    assert formula_label_columns("roc_auc(y, p) ~ clf | fold + cluster(doc)") == ["clf", "doc"]
    assert formula_label_columns("loss ~ clf | fold", cluster="doc") == ["clf", "doc"]
    assert formula_label_columns("loss ~ ") == []  # the table words the problem


@pytest.mark.parametrize("engine", [None, "duckdb", "polars"])
def test_the_command_line_names_the_models_as_the_file_does(
    engine: str | None,
    frame: pd.DataFrame,
    reference: cvreport.ResultsTable,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The command line read DATA with pandas: models 7.0, 1000.0 and 10.0 where the API
    reading the same path with DuckDB named them '007', '1e3' and '10'."""
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    pairs = tmp_path / "pairs.csv"
    argv = ["report", str(path), "-f", FORMULA, "-o", str(tmp_path / "r.md")]
    argv += ["--pairs-csv", str(pairs)] + (["--engine", engine] if engine else [])
    assert main(argv) == 0, capsys.readouterr().err
    written = pd.read_csv(pairs, dtype={"model_a": str, "model_b": str})
    expected = cvreport.Report(reference).to_frame()
    assert written["model_a"].tolist() == list(expected["model_a"])
    assert written["model_b"].tolist() == list(expected["model_b"])
    np.testing.assert_allclose(written["pvalue"], expected["pvalue"], rtol=1e-12)
    text = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "007" in text and "1e3" in text and "1000" not in text


def test_integer_model_labels_give_the_same_report_on_every_route(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Models 1 and 2, written plainly, read as the integers they are written as: the
    table, the numbers and the report's words are those of the frame in memory."""
    frame = cv_frame(41).query("model != 'knn'")
    frame = frame.assign(model=frame["model"].map({"lr": 1, "tree": 2}))
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    formula = "loss ~ model | replication + fold"
    expected = cvreport.Report(cvreport.ResultsTable.from_formula(formula, frame))
    for engine in PATH_ENGINES:
        table = cvreport.ResultsTable.from_formula(formula, str(path), engine=engine)
        assert table.models == expected.table.models, engine
        assert all(isinstance(model, (int, np.integer)) for model in table.models)
        assert_same_tables(table, expected.table, exact=True)
        report = cvreport.Report(table)
        pd.testing.assert_frame_equal(report.to_frame(), expected.to_frame())
        assert _unsourced(report.to_markdown()) == _unsourced(expected.to_markdown()), engine
    out = tmp_path / "r.md"
    assert main(["report", str(path), "-f", formula, "-o", str(out)]) == 0
    assert _unsourced(out.read_text(encoding="utf-8")) == _unsourced(expected.to_markdown())


def _unsourced(markdown: str) -> str:
    """A report without its source line (the frame or the files the rows came from)."""
    return "\n".join(line for line in markdown.splitlines() if not line.startswith("| Source |"))


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_one_label_not_written_plainly_makes_the_column_text(
    engine: str | None, tmp_path: Path
) -> None:
    """Models '1', '2' and, past the rows an engine guesses types from, '007': the column
    is text on every engine ('1', '2', '007'), not 1, 2 and 7."""
    if engine is not None:
        need(engine)
    frame = _written(cv_frame(47), {"lr": "1", "tree": "2", "knn": "007"})
    frame = frame.sort_values("clf", kind="stable", ascending=False, ignore_index=True)
    assert frame["clf"].iloc[:200].isin(["1", "2"]).all()  # '007' first seen late
    path = tmp_path / "late.csv"
    frame.to_csv(path, index=False)
    reference = cvreport.ResultsTable.from_formula(FORMULA, frame)
    table = cvreport.ResultsTable.from_formula(FORMULA, str(path), engine=engine)
    assert table.models == reference.models == ("2", "1", "007")
    assert_same_tables(table, reference, exact=True)


@pytest.mark.parametrize("engine", PATH_ENGINES)
def test_number_like_cluster_labels_stay_apart(engine: str | None, tmp_path: Path) -> None:
    """Clusters '1', '01' and '001' are three clusters as written; read as numbers they
    were one."""
    if engine is not None:
        need(engine)
    frame = _written(cv_frame(42))
    number = frame["record"].str[2:].astype(int)
    frame["doc"] = np.array(["1", "01", "001", "1e0"])[number % 4]
    path = tmp_path / "clusters.csv"
    frame.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # clusters straddle folds: warned, as in memory
        table = cvreport.ResultsTable.from_formula(FORMULA, str(path), engine=engine, cluster="doc")
        memory = cvreport.ResultsTable.from_formula(FORMULA, frame, cluster="doc")
    ours, theirs = record_clusters(table, "test"), record_clusters(memory, "test")
    assert sorted(ours.unique()) == ["001", "01", "1", "1e0"]
    pd.testing.assert_series_equal(ours.sort_index(), theirs.sort_index(), check_dtype=False)


def _datasets_frame() -> pd.DataFrame:
    parts = [
        _written(cv_frame(43 + i)).assign(task=label) for i, label in enumerate(["01", "2e1", "3"])
    ]
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("route", ["duckdb", "pandas", "command line"])
def test_number_like_data_set_labels_read_as_written(
    route: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """Data sets '01', '2e1' and '3' were 1, 20.0 and 3 to pandas and Polars."""
    frame = _datasets_frame()
    path = tmp_path / "many.csv"
    frame.to_csv(path, index=False)
    formula = f"{FORMULA} | task"
    memory = DatasetsTable.from_formula(formula, frame)
    expected = cvreport.compare_datasets(memory, n_samples=SAMPLES)
    ranks = expected.friedman.average_ranks
    assert set(ranks.index) == set(AS_WRITTEN.values())
    if route == "command line":
        out = tmp_path / "many.md"
        assert main(["datasets", str(path), "-f", formula, "-o", str(out)]) == 0
        text = out.read_text(encoding="utf-8")
        assert "2e1" in text and "007" in text and "| 20 " not in text
        for rank in ranks:
            assert f"{rank:.2f}" in text
        return
    if route == "pandas":  # no engine installed: the files are read by pandas
        monkeypatch.setattr(engines, "_importable", lambda name: False)
        assert type(backend_for(str(path))).__name__ == "MemoryBackend"
    table = DatasetsTable.from_formula(formula, str(path))
    assert list(table.tables) == ["01", "2e1", "3"]
    assert {k: t.models for k, t in table.tables.items()} == {
        k: t.models for k, t in memory.tables.items()
    }
    ours = cvreport.compare_datasets(table, n_samples=SAMPLES)
    pd.testing.assert_series_equal(ours.friedman.average_ranks, ranks)
    assert ours.friedman.pvalue == expected.friedman.pvalue


def test_parquet_files_keep_their_types(tmp_path: Path) -> None:
    """Parquet holds types: integer model labels stay integers."""
    need("pyarrow")
    frame = cv_frame(44).query("model != 'knn'")
    frame = frame.assign(model=frame["model"].map({"lr": 1, "tree": 2}))
    frame.to_parquet(tmp_path / "r.parquet")
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", str(tmp_path / "r.parquet")
    )
    assert table.models == tuple(pd.unique(frame["model"]))
    assert all(isinstance(model, (int, np.integer)) for model in table.models)


# --------------------------------------------------------------------------- Decimal losses on Dask


def _decimal_losses() -> tuple[pd.DataFrame, pd.DataFrame]:
    frame = cv_frame(45, binary=False)
    frame["loss"] = frame["loss"].round(6)
    decimals = frame.assign(loss=[decimal.Decimal(f"{v:.6f}") for v in frame["loss"]])
    return frame, decimals


@pytest.mark.parametrize("convert_string", [True, False])
def test_decimal_losses_are_numbers_on_dask_as_on_pandas(
    convert_string: bool, dask_client: Any
) -> None:
    """dask.dataframe.from_pandas turns object columns into text: a Decimal loss column,
    read as float64 by pandas, Polars, PyArrow and DuckDB, was refused on Dask as text."""
    dask = need("dask")
    dd = need("dask.dataframe")
    frame, decimals = _decimal_losses()
    formula = "loss ~ model | replication + fold"
    expected = cvreport.ResultsTable.from_formula(formula, decimals)
    floats = cvreport.ResultsTable.from_formula(formula, frame)
    with dask.config.set({"dataframe.convert-string": convert_string}):
        data = dd.from_pandas(decimals, npartitions=3, sort=False)
    table = cvreport.ResultsTable.from_formula(formula, data)
    assert table.models == expected.models
    np.testing.assert_allclose(table.stats.sums, expected.stats.sums, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(table.stats.sumsq, expected.stats.sumsq, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(table.stats.sums, floats.stats.sums, rtol=1e-12, atol=1e-12)


def test_text_losses_are_refused_alike_on_dask_and_pandas(dask_client: Any) -> None:
    """Only the Decimals Dask turned into text are numbers again: text stays refused."""
    dd = need("dask.dataframe")
    frame, _ = _decimal_losses()
    text = frame.assign(loss=frame["loss"].map("{:.6f}".format).astype(str))
    formula = "loss ~ model | replication + fold"
    with pytest.raises(DataError) as in_pandas:
        cvreport.ResultsTable.from_formula(formula, text)
    with pytest.raises(DataError) as in_dask:
        cvreport.ResultsTable.from_formula(formula, dd.from_pandas(text, npartitions=3))
    for raised in (in_pandas, in_dask):
        assert "must hold numbers" in str(raised.value), str(raised.value)


# --------------------------------------------------------------------------- Ibis: many data sets


class _IbisTable:
    """A stand-in for an Ibis table expression: its rows, and the queries it runs."""

    def __init__(self, rows: pd.DataFrame, queries: list[dict[str, Any]]) -> None:
        self.rows, self.queries = rows, queries

    def to_pyarrow_batches(self, *, limit: int | None, chunk_size: int) -> Any:
        import pyarrow as pa

        self.queries.append({"limit": limit, "read": 0})
        end = self.rows.shape[0] if limit is None else min(limit, self.rows.shape[0])
        for start in range(0, end, chunk_size):
            chunk = self.rows.iloc[start : min(start + chunk_size, end)]
            self.queries[-1]["read"] += chunk.shape[0]
            table = pa.Table.from_pandas(chunk, preserve_index=False).combine_chunks()
            yield from table.to_batches()


class _IbisFrame:
    """A narwhals LazyFrame of Ibis, as :func:`pushdown._first_appearances` reads it."""

    class implementation:
        name = "IBIS"

    def __init__(self, rows: pd.DataFrame, queries: list[dict[str, Any]]) -> None:
        self.rows, self.queries = rows, queries

    def select(self, *columns: str) -> _IbisFrame:
        return _IbisFrame(self.rows[list(columns)], self.queries)

    def to_native(self) -> _IbisTable:
        return _IbisTable(self.rows, self.queries)


def test_ibis_orders_every_data_sets_models_in_one_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Unions of every data set's head, read again 8 times further while a data set's
    first rows lacked a model: two Ibis queries where 'm4' first appears past set b's
    4,096th row. The rows now stream from one query, stopped once every data set shows
    every model."""
    monkeypatch.setattr(pushdown, "_FIRST_PAIRS_BATCH", 500)
    rng = np.random.default_rng(9)
    late = ["m2", "m1", "m3"] * 1500 + ["m4"] + ["m1", "m4", "m3", "m2"] * 10
    parts = [
        pd.DataFrame({D: "a", M: rng.choice(["m3", "m1", "m2", "m4"], size=300)}),
        pd.DataFrame({D: "b", M: late}),
        pd.DataFrame({D: "c", M: ["m1", "m2"] * 3000}),  # m3, m4 never: read to the end
    ]
    frame = pd.concat([*parts[:2], parts[0]], ignore_index=True)  # set a again, at the end
    frame = frame.iloc[np.r_[0:150, 300:2000, 150:300, 2000:5141]].reset_index(drop=True)
    queries: list[dict[str, Any]] = []
    labels = {d: pd.Index(["m1", "m2", "m3", "m4"]) for d in ("a", "b")}
    orders = pushdown._first_appearances(_IbisFrame(frame, queries), labels)
    assert len(queries) == 1 and queries[0]["limit"] is None
    # 'm4' of set b is row 4,800: the batch of rows 4,500 to 4,999 shows it, then it stops
    assert queries[0]["read"] == 5000 < frame.shape[0]
    for d in ("a", "b"):
        expected = pd.unique(frame.loc[frame[D] == d, M]).tolist()
        assert orders[d](labels[d]).tolist() == expected, d
    assert orders["b"](labels["b"]).tolist() == ["m2", "m1", "m3", "m4"]
    # a data set that never shows a model: read to the end, still one query
    queries.clear()
    whole = pd.concat([frame, parts[2]], ignore_index=True)
    labels["c"] = pd.Index(["m1", "m2", "m3", "m4"])
    orders = pushdown._first_appearances(_IbisFrame(whole, queries), labels)
    assert len(queries) == 1 and queries[0]["read"] == whole.shape[0]
    assert orders["c"](labels["c"]).tolist() == ["m1", "m2", "m3", "m4"]


def test_ibis_reads_at_most_the_first_rows_of_each_data_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model first seen past its data set's first rows (here 50) follows in the order
    given, as on every engine (pandas reads the same first rows)."""
    monkeypatch.setattr(pushdown, "_FIRST_PAIRS_BATCH", 16)
    monkeypatch.setattr(pushdown, "_MOST_FIRST_ROWS", 50)
    rows = pd.DataFrame({D: ["a", "b"] * 60, M: ["m2"] * 110 + ["m1"] * 10})
    queries: list[dict[str, Any]] = []
    labels = {d: pd.Index(["m1", "m2"]) for d in ("a", "b")}
    orders = pushdown._first_appearances(_IbisFrame(rows, queries), labels)
    assert len(queries) == 1 and queries[0]["read"] == 112  # each set's 50 rows, then stop
    assert orders["a"](labels["a"]).tolist() == ["m2", "m1"]


def test_spark_orders_late_models_without_reading_heads(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spark: a model first seen past the first 4,096 rows of a table, and of each data
    set, is placed by one aggregation over the partitions; no head (``limit``) is read,
    let alone heads of growing length, each of which ran the query again."""
    pyspark_sql = need("pyspark.sql")
    rows = [
        (1, 1 + record % 2, model, record, float((record * 7 + ord(model)) % 3 == 0))
        for model in ("b", "a", "c")  # model c's first row is row 6,000
        for record in range(3000)
    ]
    frame = pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])
    many = pd.concat([frame.assign(task="x"), frame.assign(task="y")], ignore_index=True)
    limits: list[int] = []
    limit = pyspark_sql.DataFrame.limit

    def counted(self: Any, n: int) -> Any:
        limits.append(n)
        return limit(self, n)

    monkeypatch.setattr(pyspark_sql.DataFrame, "limit", counted)
    formula = "loss ~ model | fold"
    table = cvreport.ResultsTable.from_formula(formula, spark.createDataFrame(frame))
    assert table.models == ("b", "a", "c")
    assert_same_tables(table, cvreport.ResultsTable.from_formula(formula, frame), exact=True)
    datasets = DatasetsTable.from_formula(f"{formula} | task", spark.createDataFrame(many))
    assert [t.models for t in datasets.tables.values()] == [("b", "a", "c")] * 2
    assert limits == []


# --------------------------------------------------------------------------- booleans as objects


@pytest.mark.parametrize("metric", ["log_loss", "brier_score_loss"])
@pytest.mark.parametrize("source", ["pandas", "polars", "duckdb"])
def test_python_booleans_held_as_objects_are_refused_as_probabilities(
    metric: str, source: str
) -> None:
    """True/False in an object column read as probabilities 0 and 1 would give a log
    loss of 0 or infinity: refused as a bool column is, with the same words."""
    frame = cv_frame(46).rename(columns={"loss": "y"})
    frame["y"] = frame["y"].astype(int)
    frame["p"] = pd.Series(frame["y"].to_numpy() == 0, dtype=object)
    assert frame["p"].dtype == object
    data: Any = frame
    if source == "polars":
        data = need("polars").from_pandas(frame)
    elif source == "duckdb":
        data = need("duckdb").from_df(frame)
    messages = []
    for given in (data, frame.assign(p=frame["p"].astype(bool))):
        with pytest.raises(DataError) as raised:
            cvreport.ResultsTable.from_predictions(given, truth="y", score="p", metric=metric)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    assert "holds True/False values" in messages[0] and metric in messages[0]
