"""Bad files and frames on the engine routes: each is a DataError naming the file, the column
and what to do, raised before a file that is no table is opened.

Written from the user's side, as the README calls it:
``cvreport.ResultsTable.from_formula(FORMULA, path_or_frame)``.
"""

from __future__ import annotations

import decimal
import os
import re
import shutil
import signal
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.errors import DataError
from tests.data.test_engines import BROKEN, _need, cv_frame

FORMULA = "loss ~ model | replication + fold"


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail instead of hanging for ever (a FIFO opened for reading waits for a writer)."""

    def expire(signum: int, frame: Any) -> None:
        raise AssertionError("the call blocked: the path was opened")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _split_by_replication(frame: pd.DataFrame, folder: Path) -> list[Path]:
    paths = []
    for r, part in frame.groupby("replication"):
        path = folder / f"part-{r}.parquet"
        part.to_parquet(path, index=False)
        paths.append(path)
    return paths


# --------------------------------------------------------------------------- paths


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_glob_of_files_with_different_columns_names_two_files_and_the_column(
    tmp_path: Path, engine: str
) -> None:
    _need(engine)
    frame = cv_frame(20)
    first, second, *_ = _split_by_replication(frame, tmp_path)
    pd.read_parquet(second).rename(columns={"loss": "error"}).to_parquet(second, index=False)
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, str(tmp_path / "part-*.parquet"), engine=engine)
    message = str(raised.value)
    assert "column 'loss'" in message
    assert repr(str(first)) in message and repr(str(second)) in message
    assert "one layout" in message


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_glob_of_csv_files_with_different_headers_names_two_files_and_the_column(
    tmp_path: Path, engine: str
) -> None:
    _need(engine)
    frame = cv_frame(32)
    first, second = tmp_path / "part-1.csv", tmp_path / "part-2.csv"
    frame[frame["replication"] <= 2].to_csv(first, index=False)
    frame[frame["replication"] > 2].rename(columns={"record": "id"}).to_csv(second, index=False)
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, str(tmp_path / "part-*.csv"), engine=engine)
    message = str(raised.value)
    assert "column 'record' is in" in message
    assert repr(str(first)) in message and repr(str(second)) in message


@pytest.mark.parametrize("engine", ["duckdb", "polars", None])
def test_times_and_dates_in_a_csv_are_labels_as_written_on_every_engine(
    tmp_path: Path, engine: str | None
) -> None:
    # DuckDB read '2024-01-01T00:00:00+02:00' as an instant and printed it in UTC,
    # where pandas and Polars keep the text of the file
    if engine is not None:
        _need(engine)
    frame = cv_frame(31)
    frame["replication"] = frame["replication"].map(lambda r: f"2024-01-0{r + 1}T00:00:00+02:00")
    frame["fold"] = frame["fold"].map(lambda k: f"2024-03-0{k + 1}")
    frame.to_csv(tmp_path / "times.csv", index=False)
    table = cvreport.ResultsTable.from_formula(FORMULA, str(tmp_path / "times.csv"), engine=engine)
    read = pd.read_csv(tmp_path / "times.csv")
    reference = cvreport.ResultsTable.from_formula(FORMULA, read)
    assert [str(r) for r in table.replications] == sorted(set(read["replication"]))
    assert [str(k) for k in table.folds] == [str(k) for k in reference.folds]
    np.testing.assert_array_equal(table.stats.sums, reference.stats.sums)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_compressed_csv_is_scanned_as_csv(tmp_path: Path, engine: str) -> None:
    _need(engine)
    frame = cv_frame(33)
    frame.to_csv(tmp_path / "results.csv.gz", index=False)
    table = cvreport.ResultsTable.from_formula(
        FORMULA, str(tmp_path / "results.csv.gz"), engine=engine
    )
    reference = cvreport.ResultsTable.from_formula(FORMULA, frame)
    np.testing.assert_array_equal(table.stats.sums, reference.stats.sums)
    assert "CSV files" in table.source


def test_a_glob_of_files_with_different_column_types_names_both(tmp_path: Path) -> None:
    _need("duckdb")
    first, second, *_ = _split_by_replication(cv_frame(21), tmp_path)
    pd.read_parquet(second).astype({"loss": str}).to_parquet(second, index=False)
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, str(tmp_path / "part-*.parquet"))
    message = str(raised.value)
    assert "column 'loss' holds numbers" in message and "but text" in message
    assert repr(str(first)) in message and repr(str(second)) in message
    assert "same column types" in message


@pytest.mark.parametrize(("engine", "rows"), [("duckdb", 40_000), ("polars", 400)])
def test_a_csv_column_that_changes_type_after_the_guessing_sample(
    tmp_path: Path, engine: str, rows: int
) -> None:
    _need(engine)
    record = np.arange(rows) // 2
    frame = pd.DataFrame(
        {
            "replication": 1,
            "fold": record % 2 + 1,
            "model": np.where(np.arange(rows) % 2 == 0, "a", "b"),
            "record": record,
            "loss": (np.arange(rows) % 3 == 0).astype(float).astype(object),
        }
    )
    frame.loc[rows - 1, "loss"] = "n/a"
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, str(path), engine=engine)
    message = str(raised.value)
    assert "column 'loss'" in message and repr(str(path)) in message and "'n/a'" in message
    assert "fix that value" in message
    if engine == "duckdb":
        assert f"on line {rows + 1}" in message


@pytest.mark.parametrize("damage", ["truncated", "garbage", "zero bytes"])
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_corrupt_or_truncated_parquet_file_is_named(
    tmp_path: Path, damage: str, engine: str
) -> None:
    _need(engine)
    good, bad = tmp_path / "good.parquet", tmp_path / "bad.parquet"
    cv_frame(22).to_parquet(good)
    content = good.read_bytes()
    bad.write_bytes(
        {
            "truncated": content[: len(content) // 2],
            "garbage": b"not parquet" * 9,
            "zero bytes": b"",
        }[damage]
    )
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, [str(good), str(bad)], engine=engine)
    message = str(raised.value)
    assert repr(str(bad)) in message and "not a readable Parquet file" in message
    assert "write it again, or leave it out" in message


def test_an_empty_parquet_file_says_it_has_no_rows(tmp_path: Path) -> None:
    _need("duckdb")
    path = tmp_path / "empty.parquet"
    cv_frame(23).iloc[:0].to_parquet(path)
    with pytest.raises(DataError, match=re.escape(f"the Parquet file {str(path)!r} has no rows")):
        cvreport.ResultsTable.from_formula(FORMULA, str(path))


def test_an_existing_file_whose_name_looks_like_a_glob_is_that_file(tmp_path: Path) -> None:
    _need("duckdb")
    frame = cv_frame(24)
    path = tmp_path / "results[1].parquet"
    frame.to_parquet(path)
    cv_frame(25).to_parquet(tmp_path / "results1.parquet")  # what the pattern would match
    table = cvreport.ResultsTable.from_formula(FORMULA, str(path))
    reference = cvreport.ResultsTable.from_formula(FORMULA, frame)
    np.testing.assert_array_equal(table.stats.sums, reference.stats.sums)
    assert "results[1].parquet" in table.source


def test_a_folder_given_as_a_file_is_refused_with_a_glob_to_use(tmp_path: Path) -> None:
    folder = tmp_path / "results.parquet"
    folder.mkdir()
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, str(folder))
    assert "is a folder" in str(raised.value)
    assert repr(f"{folder}/*.parquet") in str(raised.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_is_refused_before_it_is_opened(tmp_path: Path, deadline: None) -> None:
    fifo = tmp_path / "results.parquet"
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    for data in (str(fifo), str(tmp_path / "*.parquet")):
        with pytest.raises(DataError, match=r"named pipe \(FIFO\).*save the data to a file first"):
            cvreport.ResultsTable.from_formula(FORMULA, data)


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_device_is_refused() -> None:
    with pytest.raises(DataError, match="'/dev/null' is a character device"):
        cvreport.ResultsTable.from_formula(FORMULA, "/dev/null")


# --------------------------------------------------------------------------- columns


def _arrow(frame: pd.DataFrame) -> Any:
    pa = _need("pyarrow")
    return pa.Table.from_pandas(frame, preserve_index=False)


@pytest.mark.parametrize("column", ["loss", "model"])
@pytest.mark.parametrize("how", ["pyarrow", "parquet"])
def test_a_struct_column_is_named_with_the_fix(tmp_path: Path, column: str, how: str) -> None:
    pa = _need("pyarrow")
    table = _arrow(cv_frame(26))
    position = table.column_names.index(column)
    nested = pa.StructArray.from_arrays([table[column].combine_chunks()], ["value"])
    table = table.set_column(position, column, nested)
    data: Any = table
    if how == "parquet":
        _need("duckdb")
        import pyarrow.parquet as pq

        pq.write_table(table, tmp_path / "nested.parquet")
        data = str(tmp_path / "nested.parquet")
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, data)
    message = str(raised.value)
    assert f"column {column!r}" in message and "Struct" in message
    assert f"{column}.field" in message
    if how == "parquet":
        assert "nested.parquet" in message


def _with_repeated_loss(frame: pd.DataFrame) -> Any:
    pa = _need("pyarrow")
    table = _arrow(frame)
    return pa.Table.from_arrays(
        [*table.columns, table["loss"]], names=[*table.column_names, "loss"]
    )


@pytest.mark.parametrize("how", ["pyarrow", "duckdb", "parquet", "parquet-polars", "csv"])
def test_two_columns_of_one_name_are_refused(tmp_path: Path, how: str) -> None:
    frame = cv_frame(27)
    options: dict[str, Any] = {}
    if how == "pyarrow":
        data: Any = _with_repeated_loss(frame)
    elif how == "duckdb":
        duckdb = _need("duckdb")
        data = duckdb.sql("SELECT *, loss AS loss FROM frame")
    elif how.startswith("parquet"):
        _need("duckdb")
        import pyarrow.parquet as pq

        pq.write_table(_with_repeated_loss(frame), tmp_path / "twice.parquet")
        data = str(tmp_path / "twice.parquet")
        if how == "parquet-polars":
            _need("polars")
            options["engine"] = "polars"
    else:
        _need("duckdb")
        text = frame.assign(again=frame["loss"]).to_csv(index=False)
        (tmp_path / "twice.csv").write_text(text.replace(",again", ",loss", 1))
        data = str(tmp_path / "twice.csv")
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, data, **options)
    message = str(raised.value)
    assert "several columns named 'loss'" in message and "rename them" in message
    if how not in ("pyarrow", "duckdb"):
        assert "twice." in message


def test_a_closed_duckdb_connection_is_named(tmp_path: Path) -> None:
    duckdb = _need("duckdb")
    frame = cv_frame(28)
    connection = duckdb.connect()
    relation = connection.from_arrow(_arrow(frame))
    connection.close()
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, relation)
    assert "connection" in str(raised.value) and "was closed" in str(raised.value)
    assert "while the connection is open" in str(raised.value)


@pytest.mark.parametrize("source", ["pandas", "pyarrow", "polars", "duckdb", "parquet"])
def test_decimal_losses_are_read_as_float64_on_every_engine(tmp_path: Path, source: str) -> None:
    frame = cv_frame(29, binary=False)
    frame["loss"] = frame["loss"].round(6)
    decimals = frame.assign(loss=[decimal.Decimal(f"{v:.6f}") for v in frame["loss"]])
    reference = cvreport.ResultsTable.from_formula(FORMULA, frame)
    data: Any = decimals
    if source != "pandas":
        data = _arrow(decimals)
        assert str(data.schema.field("loss").type).startswith("decimal")
    if source == "polars":
        data = _need("polars").from_arrow(data)
    elif source == "duckdb":
        data = _need("duckdb").from_arrow(data)
    elif source == "parquet":
        _need("duckdb")
        import pyarrow.parquet as pq

        pq.write_table(data, tmp_path / "decimal.parquet")
        data = str(tmp_path / "decimal.parquet")
    table = cvreport.ResultsTable.from_formula(FORMULA, data)
    np.testing.assert_allclose(table.stats.sums, reference.stats.sums, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(table.stats.sumsq, reference.stats.sumsq, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- arithmetic


@pytest.mark.parametrize("source", ["pandas", "polars", "pyarrow", "duckdb", "parquet"])
def test_formula_arithmetic_on_small_integers_is_float64_on_every_engine(
    tmp_path: Path, source: str
) -> None:
    frame = cv_frame(30)
    frame["truth"] = np.uint8(1)
    frame["pred"] = np.where(frame["loss"] == 1, 0, 1).astype(np.uint8)
    data: Any = frame if source == "pandas" else _arrow(frame)
    if source == "polars":
        data = _need("polars").from_arrow(data)
    elif source == "duckdb":
        data = _need("duckdb").from_arrow(data)
    elif source == "parquet":
        _need("duckdb")
        frame.to_parquet(tmp_path / "labels.parquet")
        data = str(tmp_path / "labels.parquet")
    misses = frame.groupby(["replication", "fold", "model"], sort=False)["loss"].sum()
    table = cvreport.ResultsTable.from_formula(
        "{abs(pred - truth)} ~ model | replication + fold", data
    )
    # a miss is |0 - 1| = 1, not 255 (uint8 wrapping around) nor an overflow error
    assert table.is_binary
    assert table.stats.sums.sum() == misses.sum() == frame["loss"].sum()
    below = cvreport.ResultsTable.from_formula(
        "{pred - truth} ~ model | replication + fold", data, direction="lower"
    )  # a miss is 0 - 1 = -1, not 255
    np.testing.assert_array_equal(below.stats.sums, -table.stats.sums)


# --------------------------------------------------------------------------- irregular tables


def _pulls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record every time an engine frame is brought into pandas whole (or by columns)."""
    from cvreport.data import engines

    pulled: list[Any] = []
    original = engines.EngineSource.to_pandas

    def spy(self: Any, columns: Any = None) -> pd.DataFrame:
        result = original(self, columns)
        pulled.append(result.shape)
        return result

    monkeypatch.setattr(engines.EngineSource, "to_pandas", spy)
    return pulled


def _irregular_frames() -> dict[str, pd.DataFrame]:
    base = cv_frame(31)
    frames = {}
    many = pd.concat([base, base.iloc[::7]], ignore_index=True)
    many.loc[base.shape[0] :: 2, "loss"] = 1 - many.loc[base.shape[0] :: 2, "loss"]
    frames["many repeated keys, some disagreeing"] = many
    shifted = base.copy()
    rows = shifted.index[shifted["record"].isin(["id003", "id017", "id030", "id041"])]
    shifted.loc[rows[::3], "fold"] = 3 - shifted.loc[rows[::3], "fold"]
    frames["records in two folds"] = shifted
    frames["records some model lacks"] = base.drop(index=base.index[::40]).reset_index(drop=True)
    same_width = base.assign(model=base["model"].map({"lr": "m_c", "tree": "m_a", "knn": "m_b"}))
    lacking = (same_width["model"] != "m_c") & same_width["record"].isin(["id005", "id006"])
    frames["records two models lack, names of one width"] = same_width[~lacking].reset_index(
        drop=True
    )
    alone = base.copy()
    alone["record"] = [f"row{i:04d}" for i in range(alone.shape[0])]
    frames["record ids that name rows"] = alone
    nan = base.copy()
    nan["loss"] = nan["loss"] * 0.5
    nan.loc[[3, 50, 51, 400, 401, 402], "loss"] = [np.nan, np.inf, -np.inf, np.nan, np.nan, 1.0]
    frames["several non-finite losses"] = nan
    labels = base.astype({"model": object, "fold": float})
    labels.loc[[9, 90, 91, 92, 93, 94, 95], "model"] = None
    frames["missing model labels"] = labels
    folds = base.astype({"fold": float})
    folds.loc[[12, 13], "fold"] = np.nan
    frames["missing fold labels"] = folds
    return frames


IRREGULAR = _irregular_frames()


@pytest.mark.parametrize("case", sorted(IRREGULAR))
@pytest.mark.parametrize("engine", ["duckdb", "polars", "parquet"])
def test_an_irregular_table_is_named_in_the_engine_as_pandas_names_it(
    case: str, engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = IRREGULAR[case]
    with pytest.raises(cvreport.CVReportError) as expected:
        cvreport.ResultsTable.from_formula(FORMULA, frame)
    if engine == "polars":
        data: Any = _need("polars").from_pandas(frame)
    elif engine == "duckdb":
        data = _need("duckdb").from_arrow(_arrow(frame))
    else:
        _need("duckdb")
        frame.to_parquet(tmp_path / "irregular.parquet", row_group_size=300)
        data = str(tmp_path / "irregular.parquet")
    pulled = _pulls(monkeypatch)
    with pytest.raises(cvreport.CVReportError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, data)
    assert type(raised.value) is type(expected.value)
    assert str(raised.value) == str(expected.value)
    assert pulled == []  # named from aggregates and a few keys, never from the rows


def test_one_duplicated_row_in_a_parquet_file_is_named_without_reading_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _need("duckdb")
    frame = BROKEN["duplicate row"]
    frame.to_parquet(tmp_path / "results.parquet")
    with pytest.raises(DataError) as expected:
        cvreport.ResultsTable(frame)
    pulled = _pulls(monkeypatch)
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable.from_formula(FORMULA, str(tmp_path / "results.parquet"))
    assert str(raised.value) == str(expected.value)
    assert "appear in more than one row" in str(raised.value)
    assert pulled == []


def test_a_text_loss_column_is_refused_from_its_first_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    duckdb = _need("duckdb")
    frame = BROKEN["text losses"]
    with pytest.raises(DataError) as expected:
        cvreport.ResultsTable(frame)
    pulled = _pulls(monkeypatch)
    with pytest.raises(DataError) as raised:
        cvreport.ResultsTable(duckdb.from_arrow(_arrow(frame)))
    assert str(raised.value) == str(expected.value) and pulled == []


def test_the_command_line_says_a_fifo_is_a_named_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture, deadline: None
) -> None:
    if not hasattr(os, "mkfifo") or shutil.which("true") is None:
        pytest.skip("no named pipes here")
    from cvreport.cli import main

    fifo = tmp_path / "results.csv"
    os.mkfifo(fifo)
    argv = ["report", str(fifo), "-f", FORMULA, "-o", str(tmp_path / "r.md")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "named pipe (FIFO)" in err and "not found" not in err


@pytest.mark.parametrize("source", ["polars", "duckdb", "parquet"])
def test_look_alike_names_are_read_as_written_on_every_engine(tmp_path: Path, source: str) -> None:
    # Python folds 'ｌｏｓｓ' (fullwidth letters) to 'loss'; the engines must not
    frame = cv_frame(30)
    lookalike = "\uff4c\uff4f\uff53\uff53"
    frame[lookalike] = 1 - frame["loss"]
    formula = "{" + lookalike + " * 1} ~ model | replication + fold"
    reference = cvreport.ResultsTable.from_formula(formula, frame, direction="lower")
    data: Any = _arrow(frame)
    if source == "polars":
        data = _need("polars").from_arrow(data)
    elif source == "duckdb":
        data = _need("duckdb").from_arrow(data)
    else:
        _need("duckdb")
        frame.to_parquet(tmp_path / "lookalike.parquet")
        data = str(tmp_path / "lookalike.parquet")
    table = cvreport.ResultsTable.from_formula(formula, data, direction="lower")
    assert table.stats.sums.sum() == reference.stats.sums.sum() == frame[lookalike].sum()
    assert frame[lookalike].sum() != frame["loss"].sum()


def test_durations_as_labels_are_the_same_labels_and_numbers_on_duckdb() -> None:
    """DuckDB hands an INTERVAL back as a DateOffset; as a fold label it raised DuckDB's
    TypeError ("ConstantExpression takes a value, not DateOffset")."""
    duckdb = _need("duckdb")
    frame = cv_frame(4)
    frame["fold"] = pd.to_timedelta(frame["fold"] * 1.5, unit="D")
    frame["model"] = pd.to_timedelta(frame["model"].map({"lr": 1, "tree": 2, "knn": 3}), unit="h")
    reference = cvreport.ResultsTable.from_formula(FORMULA, frame)
    a, b = reference.models[:2]
    expected = cvreport.corrected_repeated_kfold_ttest(reference, a, b)
    for source in (duckdb.from_df(frame), frame):
        table = cvreport.ResultsTable.from_formula(FORMULA, source, engine="duckdb")
        assert table.models == reference.models
        assert all(isinstance(m, pd.Timedelta) for m in table.models)
        result = cvreport.corrected_repeated_kfold_ttest(table, a, b)
        assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
        assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)


def test_durations_are_found_in_their_order_of_first_appearance_on_duckdb() -> None:
    """The models' order read from DuckDB's first rows missed every interval label (a
    DateOffset is not the Timedelta asked for), so the order fell back to a group-by's."""
    duckdb = _need("duckdb")
    import narwhals.stable.v2 as nw

    from cvreport.data.engine_query import first_appearance

    labels = pd.to_timedelta([3, 1, 3, 2, 1], unit="h")
    rows = nw.from_native(duckdb.from_df(pd.DataFrame({"m": labels})))
    assert first_appearance(rows, "m", set(labels)) == list(pd.unique(labels))
