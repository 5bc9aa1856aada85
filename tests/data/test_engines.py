"""The same table from every engine: pandas, Polars, PyArrow, DuckDB, Dask, Spark, Parquet.

Every statistic, every test of the report and the overlap audit must come out
the same (0/1 losses: exactly; real losses: to 1e-12) whichever engine held
the rows, and every validation error must be raised with the same type and
message. The frames are small: the engines' speed is measured in
benchmarks/bench_engines.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data import pushdown
from cvreport.data.datasets import DatasetsTable
from cvreport.data.sufficient import membership_patterns
from cvreport.data.table import ResultsTable
from cvreport.errors import CVReportError, DataError
from tests._engines import need as _need


def _polars(frame: pd.DataFrame) -> Any:
    return _need("polars").from_pandas(frame)


def _duckdb(frame: pd.DataFrame) -> Any:
    duckdb = _need("duckdb")
    import pyarrow as pa

    return duckdb.from_arrow(pa.Table.from_pandas(frame, preserve_index=False))


def _parquet(frame: pd.DataFrame, directory: Path) -> str:
    path = directory / "results.parquet"
    frame.to_parquet(path, row_group_size=max(1, frame.shape[0] // 3))
    return str(path)


ENGINES = [
    "pandas",
    "polars",
    "polars-lazy",
    "pyarrow",
    "duckdb",
    "dask",
    "spark",
    "parquet",
    "parquet-polars",
    "pandas-via-duckdb",
]


@pytest.fixture
def convert(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., Any]:
    """``convert(engine, frame)`` → (data, keyword arguments for the constructor)."""

    def to_engine(engine: str, frame: pd.DataFrame) -> tuple[Any, dict[str, Any]]:
        if engine == "pandas":
            return frame, {}
        if engine == "polars":
            return _polars(frame), {}
        if engine == "polars-lazy":
            return _polars(frame).lazy(), {}
        if engine == "pyarrow":
            import pyarrow as pa

            return pa.Table.from_pandas(frame, preserve_index=False), {}
        if engine == "duckdb":
            return _duckdb(frame), {}
        if engine == "dask":
            request.getfixturevalue("dask_client")
            import dask.dataframe as dd

            return dd.from_pandas(frame, npartitions=3, sort=False), {}
        if engine == "spark":
            return request.getfixturevalue("spark").createDataFrame(frame), {}
        if engine == "parquet":
            _need("duckdb")
            return _parquet(frame, tmp_path), {}
        if engine == "parquet-polars":
            _need("polars")
            return _parquet(frame, tmp_path), {"engine": "polars"}
        if engine == "csv":
            _need("duckdb")
            path = tmp_path / "results.csv"
            frame.to_csv(path, index=False)
            return str(path), {}
        if engine == "pandas-via-duckdb":
            _need("duckdb")
            return frame, {"engine": "duckdb"}
        raise AssertionError(engine)

    return to_engine


def cv_frame(seed: int, *, binary: bool = True, m: int = 5, K: int = 2) -> pd.DataFrame:
    """Shuffled rows of m×K cross-validation of three models, string record ids."""
    rng = np.random.default_rng(seed)
    n, models = 48, ["lr", "tree", "knn"]
    skill = {"lr": 0.25, "tree": 0.3, "knn": 0.35}
    rows = []
    for r in range(m):
        order = rng.permutation(n)
        for f in range(K):
            for model in models:
                for record in order[f::K]:
                    loss = (
                        float(rng.random() < skill[model])
                        if binary
                        else float(rng.gamma(2.0, skill[model]))
                    )
                    rows.append((r + 1, f + 1, model, f"id{record:03d}", loss))
    frame = pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def assert_same_tables(table: ResultsTable, reference: ResultsTable, exact: bool) -> None:
    assert table.models == reference.models
    assert table.replications == reference.replications
    assert table.folds == reference.folds
    assert table.design == reference.design
    assert table.is_binary == reference.is_binary
    assert table.n_rows == reference.n_rows
    ours, theirs = table.stats, reference.stats
    np.testing.assert_array_equal(ours.counts, theirs.counts)
    tolerance = {"rtol": 0.0, "atol": 0.0} if exact else {"rtol": 1e-12, "atol": 1e-12}
    np.testing.assert_allclose(ours.sums, theirs.sums, **tolerance)
    np.testing.assert_allclose(ours.sumsq, theirs.sumsq, **tolerance)
    if theirs.both_wrong is None:
        assert ours.both_wrong is None
    else:
        np.testing.assert_array_equal(ours.both_wrong, theirs.both_wrong)
    assert ours.patterns is not None and theirs.patterns is not None
    np.testing.assert_array_equal(ours.patterns.patterns, theirs.patterns.patterns)
    np.testing.assert_array_equal(ours.patterns.counts, theirs.patterns.counts)


_REFERENCE_RESULTS: dict[int, pd.DataFrame] = {}


def _results(table: ResultsTable) -> pd.DataFrame:
    return cvreport.Report(table, tests="all").to_frame()


def assert_same_results(table: ResultsTable, reference: ResultsTable, exact: bool) -> None:
    ours = _results(table)
    key = reference.n_rows * 1000 + int(reference.stats.sums.sum() * 7) % 1000
    if key not in _REFERENCE_RESULTS:
        _REFERENCE_RESULTS[key] = _results(reference)
    theirs = _REFERENCE_RESULTS[key]
    assert ours.shape[0] >= 3 * 2  # three pairs, several tests each
    numeric = theirs.select_dtypes("number").columns
    pd.testing.assert_frame_equal(
        ours.drop(columns=numeric), theirs.drop(columns=numeric), check_dtype=False
    )
    np.testing.assert_allclose(
        ours[numeric].to_numpy(dtype=float),
        theirs[numeric].to_numpy(dtype=float),
        rtol=0.0 if exact else 1e-12,
        atol=0.0 if exact else 1e-12,
    )
    audit, expected = cvreport.audit_overlap(table), cvreport.audit_overlap(reference)
    assert (audit.statistic, audit.pvalue, audit.verdict, audit.design) == (
        expected.statistic,
        expected.pvalue,
        expected.verdict,
        expected.design,
    )
    assert audit.pair_overlaps == expected.pair_overlaps


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_gives_the_same_results_for_0_1_losses(engine, convert):
    frame = cv_frame(1)
    reference = ResultsTable(frame)
    data, options = convert(engine, frame)
    table = ResultsTable(data, **options)
    if engine not in ("pandas",):
        assert table._route.startswith("engine")
    assert_same_tables(table, reference, exact=True)
    assert_same_results(table, reference, exact=True)
    # per-record views are fetched from the engine on demand
    pd.testing.assert_frame_equal(
        table.record_differences("lr", "knn"),
        reference.record_differences("lr", "knn"),
        check_dtype=False,  # Dask hands back record ids as pandas' NA-backed strings
    )
    records, folds = table.membership()
    expected_records, expected_folds = reference.membership()
    assert records.tolist() == expected_records.tolist()
    np.testing.assert_array_equal(folds, expected_folds)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_gives_the_same_results_for_real_losses(engine, convert):
    frame = cv_frame(2, binary=False, m=3, K=3)
    reference = ResultsTable.from_formula("loss ~ model | replication + fold", frame)
    data, options = convert(engine, frame)
    table = ResultsTable.from_formula("loss ~ model | replication + fold", data, **options)
    assert table.formula == reference.formula
    assert_same_tables(table, reference, exact=False)
    assert_same_results(table, reference, exact=False)


@pytest.mark.parametrize("engine", ENGINES)
def test_formula_expressions_and_predictions_in_every_engine(engine, convert):
    frame = cv_frame(3)
    rng = np.random.default_rng(3)
    frame["truth"] = rng.integers(0, 2, frame.shape[0])
    frame["pred"] = np.where(frame["loss"] == 1, 1 - frame["truth"], frame["truth"])
    formula = "{pred != truth} ~ model | replication + fold"
    data, options = convert(engine, frame)
    by_formula = ResultsTable.from_formula(formula, data, **options)
    assert_same_tables(by_formula, ResultsTable.from_formula(formula, frame), exact=True)
    assert by_formula.loss_name == "pred != truth"
    data, options = convert(engine, frame)
    by_predictions = ResultsTable.from_predictions(
        data, truth="truth", prediction="pred", **options
    )
    reference = ResultsTable.from_predictions(frame, truth="truth", prediction="pred")
    assert_same_tables(by_predictions, reference, exact=True)
    # hits (a score, by the '==' of its name) turned into the internal loss, and a
    # single block read as repeated hold-out
    hits = "{pred == truth} ~ model | replication + fold"
    data, options = convert(engine, frame)
    accuracy = ResultsTable.from_formula(hits, data, **options)
    expected = ResultsTable.from_formula(hits, frame)
    assert accuracy.metric == expected.metric and accuracy.higher_is_better
    assert accuracy.direction_note == expected.direction_note
    assert_same_tables(accuracy, expected, exact=True)
    np.testing.assert_array_equal(accuracy.stats.sums, reference.stats.sums)
    holdout = frame[frame["fold"] == 1].drop(columns="fold")
    data, options = convert(engine, holdout)
    repeated = ResultsTable.from_formula("loss ~ model | replication", data, **options)
    assert repeated.design.kind == "repeated_holdout"
    assert_same_tables(
        repeated, ResultsTable.from_formula("loss ~ model | replication", holdout), exact=True
    )


def _broken_frames() -> dict[str, pd.DataFrame]:
    base = cv_frame(4, m=2)
    frames = {}
    frames["duplicate row"] = pd.concat([base, base.iloc[[5]]], ignore_index=True)
    frames["model missing from a fold"] = base[
        ~((base.model == "knn") & (base.replication == 2) & (base.fold == 1))
    ].reset_index(drop=True)
    frames["models on different records"] = base.drop(index=[3]).reset_index(drop=True)
    twice = base.copy()
    first = twice.index[(twice.record == "id010") & (twice.replication == 1)]
    twice.loc[first[:1], "fold"] = 3 - twice.loc[first[:1], "fold"]
    frames["record in two folds (one model)"] = twice
    split = base.copy()
    rows = (split.record == "id011") & (split.replication == 2)
    extra = split[rows].copy()
    extra["fold"] = 3 - extra["fold"]
    frames["record in two folds"] = pd.concat([split, extra], ignore_index=True)
    nan = base.copy()
    nan.loc[[2, 9], "loss"] = np.nan
    frames["NaN losses"] = nan
    inf = base.copy()
    inf["loss"] = inf["loss"] * 0.5
    inf.loc[4, "loss"] = np.inf
    frames["infinite loss"] = inf
    missing_model = base.copy().astype({"model": object})
    missing_model.loc[6, "model"] = None
    frames["missing model label"] = missing_model
    missing_record = base.copy().astype({"record": object})
    missing_record.loc[8, "record"] = None
    frames["missing record id"] = missing_record
    text = base.copy()
    text["loss"] = text["loss"].map({0.0: "right", 1.0: "wrong"})
    frames["text losses"] = text
    frames["one model"] = base[base.model == "lr"].reset_index(drop=True)
    fewer = base[~((base.replication == 2) & (base.fold == 2))].reset_index(drop=True)
    frames["replications with different folds"] = fewer
    frames["missing column"] = base.drop(columns="record")
    return frames


BROKEN = _broken_frames()


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_raises_the_same_errors(engine, convert):
    for case, frame in BROKEN.items():
        with pytest.raises(CVReportError) as expected:
            ResultsTable(frame)
        data, options = convert(engine, frame)
        with pytest.raises(CVReportError) as raised:
            ResultsTable(data, **options)
        assert type(raised.value) is type(expected.value), case
        assert str(raised.value) == str(expected.value), case


def prediction_frame(seed: int) -> pd.DataFrame:
    """Probabilities and labels of three models on shuffled 5×2 CV rows, string record ids."""
    frame = cv_frame(seed)
    rng = np.random.default_rng(seed)
    truth = {record: int(rng.random() < 0.4) for record in frame["record"].unique()}
    frame["y"] = frame["record"].map(truth).astype(np.int64)
    noise = {"lr": 0.8, "tree": 1.0, "knn": 1.3}
    signal = frame["y"] + rng.normal(0.0, frame["model"].map(noise).to_numpy())
    frame["proba"] = 1.0 / (1.0 + np.exp(-2.0 * (signal - 0.5)))
    frame["pred"] = (frame["proba"] >= 0.5).astype(np.int64)
    return frame.drop(columns="loss")


METRIC_SOURCES = ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "parquet", "csv"]


@pytest.mark.parametrize(
    ("engine", "formula"),
    [
        *(
            (engine, formula)
            for engine in METRIC_SOURCES
            for formula in (
                "roc_auc(y, proba) ~ model | replication + fold",
                "log_loss(y, proba) ~ model | replication + fold",
                "f1(y, pred) ~ model | replication + fold",
            )
        ),
        ("parquet-polars", "roc_auc(y, proba) ~ model | replication + fold"),
        ("dask", "roc_auc(y, proba) ~ model | replication + fold"),
        ("spark", "roc_auc(y, proba) ~ model | replication + fold"),
    ],
)
def test_the_metric_formula_gives_the_pandas_numbers_on_every_source(engine, formula, convert):
    frame = prediction_frame(11)
    reference = ResultsTable.from_formula(formula, frame)
    data, options = convert(engine, frame)
    table = ResultsTable.from_formula(formula, data, **options)
    assert table.formula == formula and table.metric == reference.metric
    assert (table.models, table.replications, table.folds) == (
        reference.models,
        reference.replications,
        reference.folds,
    )
    assert table.design == reference.design and table.per_record == reference.per_record
    np.testing.assert_array_equal(table.stats.counts, reference.stats.counts)
    np.testing.assert_allclose(table.stats.sums, reference.stats.sums, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(table.stats.sumsq, reference.stats.sumsq, rtol=1e-12, atol=1e-12)
    if formula.startswith("roc_auc"):  # recomputed per fold by scikit-learn
        metrics = pytest.importorskip("sklearn.metrics")
        expected = frame.groupby(["replication", "fold", "model"]).apply(
            lambda g: metrics.roc_auc_score(g["y"], g["proba"]), include_groups=False
        )
        got = table.fold_errors().set_index(["replication", "fold", "model"])
        values = table.to_metric(got["loss"].reindex(expected.index).to_numpy(dtype=float))
        np.testing.assert_allclose(values, expected.to_numpy(), rtol=1e-12, atol=1e-12)


def test_the_metric_formula_reads_only_the_columns_it_needs(tmp_path):
    _need("duckdb")
    from cvreport.data import engines

    frame = prediction_frame(12)
    frame["unused"] = np.arange(frame.shape[0], dtype=np.float64)
    frame.to_parquet(tmp_path / "p.parquet")
    fetched: list[Any] = []
    original = engines.EngineSource.to_pandas

    def spy(self: Any, columns: Any = None) -> pd.DataFrame:
        fetched.append(None if columns is None else sorted(columns))
        return original(self, columns)

    engines.EngineSource.to_pandas = spy  # type: ignore[method-assign]
    try:
        ResultsTable.from_formula(
            "roc_auc(y, proba) ~ model | replication + fold", str(tmp_path / "p.parquet")
        )
    finally:
        engines.EngineSource.to_pandas = original  # type: ignore[method-assign]
    assert fetched == [["fold", "model", "proba", "record", "replication", "y"]]


def test_a_path_that_matches_nothing_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="no file matches"):
        ResultsTable(str(tmp_path / "nothing-*.parquet"))


def test_an_unknown_engine_is_named(tmp_path):
    with pytest.raises(DataError, match="unknown engine 'spark'"):
        ResultsTable(cv_frame(5), engine="spark")


def test_a_glob_of_parquet_files_is_one_table(tmp_path):
    _need("duckdb")
    frame = cv_frame(6)
    for r, part in frame.groupby("replication"):
        part.to_parquet(tmp_path / f"replication-{r}.parquet")
    table = ResultsTable(str(tmp_path / "replication-*.parquet"))
    reference = ResultsTable(frame)
    assert table.n_rows == frame.shape[0]
    assert set(table.models) == set(reference.models)
    np.testing.assert_array_equal(table.stats.patterns.counts, reference.stats.patterns.counts)
    assert "Parquet files" in table.source


def test_csv_files_are_scanned(tmp_path):
    _need("duckdb")
    frame = cv_frame(7)
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    table = ResultsTable(str(path))
    assert_same_tables(table, ResultsTable(frame), exact=True)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_the_command_line_scans_a_glob_with_the_named_engine(engine, tmp_path, capsys):
    _need(engine)
    from cvreport.cli import main

    frame = cv_frame(8)
    for r, part in frame.groupby("replication"):
        part.to_parquet(tmp_path / f"part-{r}.parquet")
    out = tmp_path / "report.md"
    argv = [
        "report",
        str(tmp_path / "part-*.parquet"),
        "-f",
        "loss ~ model | replication + fold",
        "-o",
        str(out),
        "--engine",
        engine,
    ]
    assert main(argv) == 0
    expected = tmp_path / "expected.md"
    pd.concat([part for _, part in frame.groupby("replication")]).to_parquet(
        tmp_path / "all.parquet"
    )
    assert main([*argv[:1], str(tmp_path / "all.parquet"), *argv[2:5], str(expected)]) == 0
    ours, theirs = out.read_text(), expected.read_text()
    # the same numbers; only the source line names the files and the engine
    assert [line for line in ours.splitlines() if "Source" not in line] == [
        line for line in theirs.splitlines() if "Source" not in line
    ]


def test_bit_patterns_give_every_pairs_2x2_table():
    # independent recomputation: counts of records per (pattern of 0/1 losses), as
    # an engine returns them, against the pairwise products of the aligned losses
    from cvreport.data.sufficient import (
        FoldBlock,
        membership_patterns,
        pattern_statistics,
        sufficient_statistics,
    )

    rng = np.random.default_rng(9)
    m, K, n_models, n = 3, 2, 6, 40
    membership = np.stack([rng.permutation(n) % K for _ in range(m)], axis=1).astype(np.int32)
    blocks, rows = [], []
    for i in range(m):
        for j in range(K):
            records = np.flatnonzero(membership[:, i] == j).astype(np.int32)
            losses = (rng.random((n_models, records.shape[0])) < 0.4).astype(np.float64)
            blocks.append(FoldBlock(i, j, records, losses))
            bits = (losses.astype(np.int64) << np.arange(n_models)[:, None]).sum(axis=0)
            patterns, counts = np.unique(bits, return_counts=True)
            rows += [(i, j, p, c) for p, c in zip(patterns, counts)]
    expected = sufficient_statistics(blocks, (m, K, n_models), binary=True, membership=membership)
    got = pattern_statistics(
        expected.sums,
        expected.sumsq,
        expected.counts,
        np.array(rows),
        membership_patterns(membership, K),
    )
    np.testing.assert_array_equal(got.both_wrong, expected.both_wrong)
    for a in range(n_models):
        for b in range(n_models):
            if a != b:
                np.testing.assert_array_equal(got.pair_counts(a, b), expected.pair_counts(a, b))
    assert expected.patterns is not None
    assert expected.patterns.n_records == n
    # every record's pattern is one row of the membership
    assert {tuple(r) for r in expected.patterns.patterns} == {tuple(r) for r in membership}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_the_command_line_scores_a_metric_in_the_named_engine(engine, tmp_path):
    _need(engine)
    from cvreport.cli import main

    prediction_frame(13).to_parquet(tmp_path / "predictions.parquet")
    argv = [
        "report",
        str(tmp_path / "predictions.parquet"),
        "-f",
        "y ~ model | replication + fold",
        "--metric",
        "roc_auc",
        "--score",
        "proba",
        "-o",
    ]
    assert main([*argv, str(tmp_path / "engine.md"), "--engine", engine]) == 0
    assert main([*argv, str(tmp_path / "pandas.md")]) == 0
    ours = (tmp_path / "engine.md").read_text().splitlines()
    theirs = (tmp_path / "pandas.md").read_text().splitlines()
    assert any("roc_auc" in line for line in ours)
    assert [line for line in ours if "Source" not in line] == [
        line for line in theirs if "Source" not in line
    ]


@pytest.mark.parametrize("engine", ["duckdb", "polars", "parquet"])
@pytest.mark.parametrize("wide", [False, True])
def test_per_record_words_and_per_fold_aggregations_agree(engine, wide, convert, monkeypatch):
    import cvreport.data.pushdown as pushdown

    calls = []
    per_fold = pushdown._loss_patterns
    monkeypatch.setattr(pushdown, "_loss_patterns", lambda *a: calls.append(a) or per_fold(*a))
    if wide:  # a replication's 2 folds × 3 models need 6 bits: past a 5-bit word
        monkeypatch.setattr(pushdown, "_EXACT_BITS", 5)
    for binary in (True, False):
        frame = cv_frame(5, binary=binary)
        reference = ResultsTable(frame)
        data, options = convert(engine, frame)
        table = ResultsTable(data, **options)
        assert table._route.startswith("engine")
        assert_same_tables(table, reference, exact=binary)
    assert len(calls) == (2 if wide else 0)
    for case in ("duplicate row", "model missing from a fold", "record in two folds"):
        with pytest.raises(CVReportError) as expected:
            ResultsTable(BROKEN[case])
        data, options = convert(engine, BROKEN[case])
        with pytest.raises(CVReportError) as raised:
            ResultsTable(data, **options)
        assert str(raised.value) == str(expected.value), case


@pytest.mark.parametrize("numpy_count", [True, False])
def test_set_bits_of_the_per_record_words(numpy_count, monkeypatch):
    import cvreport.data.pushdown as pushdown

    if not numpy_count:  # numpy 1 has no bitwise_count
        monkeypatch.delattr(np, "bitwise_count", raising=False)
    words = np.random.default_rng(0).integers(0, 2**52, 500)
    words[:3] = [0, 1, 2**52 - 1]
    expected = [bin(int(w)).count("1") for w in words]
    assert pushdown._popcount(words).tolist() == expected


@pytest.mark.parametrize("engine", ["duckdb", "parquet", "polars"])
@pytest.mark.parametrize("passes", [False, True])
def test_per_record_words_counted_batch_by_batch_give_the_whole_tables(
    engine, passes, convert, monkeypatch
):
    import cvreport.data.pushdown as pushdown

    batches, queries = [], []
    whole = pushdown.collect_batches

    def in_sevens(query: Any) -> Any:
        queries.append(query)
        for batch in whole(query, rows=7):
            batches.append(batch.shape[0])
            yield batch

    monkeypatch.setattr(pushdown, "collect_batches", in_sevens)
    if passes:  # 48 integer records (some negative) in passes of at most 10: 5 passes
        monkeypatch.setattr(pushdown, "_RECORDS_PER_PASS", 10)
        monkeypatch.setattr(pushdown, "_DENSE_PATTERNS", 1)  # patterns counted by np.unique
    for binary in (True, False):
        batches.clear()
        queries.clear()
        frame = cv_frame(11, binary=binary)
        if passes:
            frame["record"] = frame["record"].str[2:].astype(np.int64) - 20
        reference = ResultsTable(frame)
        data, options = convert(engine, frame)
        table = ResultsTable(data, **options)
        assert_same_tables(table, reference, exact=binary)
        assert sum(batches) == frame["record"].nunique() == 48  # one row per record
        assert max(batches) <= 7 and len(batches) >= 7  # 48 records in batches of at most 7
        assert len(queries) == (5 if passes else 1)
    for case in ("duplicate row", "record in two folds"):
        broken = BROKEN[case]
        if passes:
            broken = broken.assign(record=broken["record"].str[2:].astype(np.int64) - 20)
        with pytest.raises(CVReportError) as expected:
            ResultsTable(broken)
        data, options = convert(engine, broken)
        with pytest.raises(CVReportError) as raised:
            ResultsTable(data, **options)
        assert str(raised.value) == str(expected.value), case


# ------------------------------------------------------------------ many data sets in one pass


def _many_datasets(seed: int, n_datasets: int = 4) -> pd.DataFrame:
    """Data sets of different designs (5×2 CV; 3×3 CV; one 4-fold CV; 10-fold CV, whose
    6 models' bits do not fit one word per record) and different orders of the models,
    with a 0/1 loss, a 0/1 accuracy and a real-valued loss per record."""
    rng = np.random.default_rng(seed)
    designs = [(5, 2), (3, 3), (1, 4), (1, 10)]
    models = ["m1", "m2", "m3", "m4", "m5", "m6"]
    parts = []
    for d in range(n_datasets):
        m, k = designs[d % len(designs)]
        n_records = 4 * k
        rows = []
        for i in range(m):
            fold_of = rng.permutation(np.arange(n_records) % k)
            for record in range(n_records):
                for model in models:
                    rows.append((f"set{d}", i, int(fold_of[record]), model, record))
        part = pd.DataFrame(rows, columns=["dataset", "replication", "fold", "model", "record"])
        part = part.iloc[rng.permutation(part.shape[0])]  # each its own order of the models
        part["loss"] = (rng.random(part.shape[0]) < 0.3 + 0.05 * d).astype(float)
        part["accuracy"] = 1.0 - part["loss"]
        part["brier"] = rng.random(part.shape[0]) ** 2
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _assert_same_tables(got: Any, expected: Any) -> None:
    assert got.datasets == expected.datasets and got.models == expected.models
    assert got.metric == expected.metric
    for summary in ("means", "sds"):
        np.testing.assert_allclose(
            getattr(got, summary)().to_numpy(), getattr(expected, summary)().to_numpy(), rtol=1e-12
        )
    for name, table in got.tables.items():
        other = expected.tables[name]
        assert table._route.startswith("engine") and not other._route.startswith("engine")
        assert table.models == other.models and table.design.describe() == other.design.describe()
        for field in ("sums", "sumsq", "counts", "both_wrong"):
            mine, theirs = getattr(table.stats, field), getattr(other.stats, field)
            assert (mine is None) == (theirs is None), field
            if mine is not None:
                np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12, err_msg=field)
        mine_p, theirs_p = table.stats.patterns, other.stats.patterns
        if mine_p is None:
            mine_p = membership_patterns(table.stats.membership, len(table.folds))
        if theirs_p is None:
            theirs_p = membership_patterns(other.stats.membership, len(other.folds))
        np.testing.assert_array_equal(mine_p.patterns, theirs_p.patterns)
        np.testing.assert_array_equal(mine_p.counts, theirs_p.counts)


_ONE_PASS_ENGINES = [
    e for e in ENGINES if e not in ("pandas", "pandas-via-duckdb", "parquet-polars")
]


def _counted_queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The queries the engine path runs from now on, one name per query, in order."""
    queries: list[str] = []
    for name in ("collect", "collect_batches"):
        original = getattr(pushdown, name)

        def counted(frame: Any, *args: Any, _original: Any = original, _name: str = name) -> Any:
            queries.append(_name)
            return _original(frame, *args)

        monkeypatch.setattr(pushdown, name, counted)
    return queries


def _assert_one_irregular_data_set_words_as_pandas(
    convert: Any, engine: str, formula: str, frame: pd.DataFrame, dataset: str
) -> None:
    """One data set made irregular (a row twice) gets its own error, worded as pandas words it."""
    broken = pd.concat([frame, frame[frame["dataset"] == dataset].iloc[:1]], ignore_index=True)
    with pytest.raises(DataError) as in_memory:
        DatasetsTable.from_formula(formula, broken)
    data, _ = convert(engine, broken)
    with pytest.raises(DataError) as in_engine:
        DatasetsTable.from_formula(formula, data)
    assert str(in_engine.value) == str(in_memory.value)
    assert f"data set {dataset!r}" in str(in_engine.value)


@pytest.mark.parametrize(
    ("engine", "response"),
    [
        (engine, response)
        for engine in _ONE_PASS_ENGINES
        for response in ("loss", "accuracy", "brier")
        if engine not in ("dask", "spark") or response == "loss"  # one outcome for slow engines
    ],
)
def test_many_datasets_in_one_pass_match_pandas(convert, engine, response):
    frame = _many_datasets(seed=31)
    formula = f"{response} ~ model | replication + fold | dataset"
    expected = DatasetsTable.from_formula(formula, frame)
    data, kwargs = convert(engine, frame)
    assert not kwargs
    got = DatasetsTable.from_formula(formula, data)
    _assert_same_tables(got, expected)
    # one data set irregular (a row twice): its own error, worded as pandas words it
    _assert_one_irregular_data_set_words_as_pandas(convert, engine, formula, frame, "set2")


@pytest.mark.parametrize("engine", ["polars-lazy", "duckdb", "parquet", "pyarrow"])
def test_many_datasets_run_one_set_of_queries_whatever_their_number(convert, engine, monkeypatch):
    queries = _counted_queries(monkeypatch)
    polars_runs: list[int] = []
    if engine == "polars-lazy":
        pl = _need("polars")
        collect = pl.LazyFrame.collect

        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            polars_runs.append(1)
            return collect(self, *args, **kwargs)

        monkeypatch.setattr(pl.LazyFrame, "collect", run)
    counts = {}
    for n_datasets in (2, 3, 6):
        # designs whose words fit: every data set in the shared pass
        frame = _many_datasets(seed=32, n_datasets=n_datasets)
        frame = frame[frame["dataset"] != "set3"]  # the 10-fold design, aggregated alone
        data, _ = convert(engine, frame)
        queries.clear()
        polars_runs.clear()
        table = DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", data)
        assert len(table.datasets) == frame["dataset"].nunique()
        counts[n_datasets] = (len(queries), len(polars_runs))
    # the models' first rows (one union of every data set's head), the per-cell
    # aggregation and the per-record words: once for every data set
    assert counts[2][0] == counts[3][0] == counts[6][0] == 3
    if engine == "polars-lazy":  # and every query Polars runs, labels and first rows too
        assert counts[2][1] == counts[3][1] == counts[6][1]


@pytest.mark.parametrize("engine", ["duckdb", "parquet", "polars", "polars-lazy", "pyarrow"])
@pytest.mark.parametrize("ids", ["text", "integer"])
def test_records_split_into_passes_give_the_numbers_of_one_pass(engine, ids, convert, monkeypatch):
    records_per_pass: list[int] = []
    whole = pushdown.collect_batches

    def counted(query: Any, *args: Any) -> Any:
        records_per_pass.append(0)
        for batch in whole(query, *args):
            records_per_pass[-1] += batch.shape[0]
            yield batch

    monkeypatch.setattr(pushdown, "collect_batches", counted)
    for binary in (True, False):
        frame = cv_frame(12, binary=binary)  # 48 records, id000 … id047
        if ids == "integer":  # some negative
            frame["record"] = frame["record"].str[2:].astype(np.int64) - 20
        data, options = convert(engine, frame)
        records_per_pass.clear()
        one_pass = ResultsTable(data, **options)
        assert records_per_pass == [48]
        monkeypatch.setattr(pushdown, "_RECORDS_PER_PASS", 10)  # 48 records: 5 passes
        records_per_pass.clear()
        in_passes = ResultsTable(data, **options)
        monkeypatch.undo()
        monkeypatch.setattr(pushdown, "collect_batches", counted)
        # every record in exactly one pass, the passes of about 48 / 5 records each
        assert len(records_per_pass) == 5 and sum(records_per_pass) == 48
        assert min(records_per_pass) >= 8 and max(records_per_pass) <= 11, records_per_pass
        # patterns and counts exactly; real sums to 1e-12 (DuckDB's parallel sums vary)
        assert_same_tables(in_passes, one_pass, exact=binary)
        assert_same_tables(in_passes, ResultsTable(frame), exact=binary)
    monkeypatch.setattr(pushdown, "_RECORDS_PER_PASS", 10)
    for case in ("duplicate row", "record in two folds"):
        broken = BROKEN[case]
        if ids == "integer":
            broken = broken.assign(record=broken["record"].str[2:].astype(np.int64) - 20)
        with pytest.raises(CVReportError) as expected:
            ResultsTable(broken)
        data, options = convert(engine, broken)
        with pytest.raises(CVReportError) as raised:
            ResultsTable(data, **options)
        assert str(raised.value) == str(expected.value), case


# ------------------------------------------------------------------ the data sets' order


@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "pyarrow", "duckdb", "dask", "spark"])
def test_first_appearance_reads_the_first_rows_in_the_order_pandas_sees_them(
    engine, convert, monkeypatch
):
    from cvreport.data import engine_query
    from cvreport.data.engines import resolve_source

    rng = np.random.default_rng(5)
    labels = rng.choice(
        ["q", "b", "x", "a", "m", "z"], size=200, p=[0.5, 0.3, 0.1, 0.05, 0.04, 0.01]
    )
    frame = pd.DataFrame({"d": labels, "n": np.arange(200)})
    data, _ = convert(engine, frame)
    source = resolve_source(data)
    monkeypatch.setattr(engine_query, "_ROWS_PER_BATCH", 7)  # many batches
    wanted = {"q", "b", "x", "a", "m", "z", "never"}
    for most in (1, 5, 13, 64, 150, 200, 1000):
        expected = pd.unique(frame["d"].iloc[:most]).tolist()  # pandas' first appearance
        got = engine_query.first_appearance(source.frame, "d", wanted, most, first_rows=3)
        assert got == expected, most
    # reading stops once every label wanted is seen: a label of the first rows only
    assert engine_query.first_appearance(source.frame, "d", {labels[0]}, 200, 3) == [labels[0]]


def _datasets_in_their_order() -> pd.DataFrame:
    """Four data sets, one after the other, whose order of first appearance is not sorted."""
    frame = _many_datasets(seed=41)
    names = {"set0": "zeta", "set1": "alpha", "set2": "mu", "set3": "beta"}
    return frame.assign(dataset=frame["dataset"].map(names))


@pytest.mark.parametrize("engine", _ONE_PASS_ENGINES)
def test_the_data_sets_come_in_pandas_order_of_first_appearance(engine, convert, monkeypatch):
    from cvreport.data import engine_query

    frame = _datasets_in_their_order()
    formula = "loss ~ model | replication + fold | dataset"
    expected = DatasetsTable.from_formula(formula, frame).datasets
    assert expected == ("zeta", "alpha", "mu", "beta")
    monkeypatch.setattr(engine_query, "FIRST_ROWS", 4)  # heads grow from 4 rows
    monkeypatch.setattr(engine_query, "_ROWS_PER_BATCH", 7)  # streamed 7 rows at a time
    data, options = convert(engine, frame)
    assert not options
    assert DatasetsTable.from_formula(formula, data).datasets == expected
    # the documented rule past the rows read: 'mu' (row 456) and 'beta' (row 552) are
    # first seen past the first 300 rows, so they follow, sorted
    assert frame["dataset"].tolist().index("mu") == 456
    monkeypatch.setattr(engine_query, "MOST_FIRST_ROWS", 300)
    got = DatasetsTable.from_formula(formula, data).datasets
    assert got == ("zeta", "alpha", "beta", "mu")


# ------------------------------------------------------------------ one block, many data sets


def _one_block_datasets(seed: int, n_datasets: int = 4) -> pd.DataFrame:
    """``_many_datasets`` with one block column: the fold in the data sets of one
    replication (records in one group each: the block is the fold), the replication in
    the others (every record in each group: the block is the replication)."""
    frame = _many_datasets(seed, n_datasets)
    one_replication = frame.groupby("dataset")["replication"].transform("nunique") == 1
    return frame.assign(block=np.where(one_replication, frame["fold"], frame["replication"]))


@pytest.mark.parametrize(
    "engine", [e for e in _ONE_PASS_ENGINES if e not in ("dask", "spark")] + ["spark"]
)
def test_one_block_on_many_datasets_matches_pandas(convert, engine):
    frame = _one_block_datasets(seed=33)
    for formula in ("loss ~ model | block | dataset", "brier ~ model | block | dataset"):
        expected = DatasetsTable.from_formula(formula, frame)
        data, _ = convert(engine, frame)
        got = DatasetsTable.from_formula(formula, data)
        _assert_same_tables(got, expected)
        designs = {name: table.design.describe() for name, table in got.tables.items()}
        assert designs == {name: t.design.describe() for name, t in expected.tables.items()}
    # one data set irregular (a row twice): its own error, worded as pandas words it
    formula = "loss ~ model | block | dataset"
    _assert_one_irregular_data_set_words_as_pandas(convert, engine, formula, frame, "set1")


@pytest.mark.parametrize("engine", ["polars-lazy", "duckdb", "parquet", "pyarrow"])
def test_one_block_runs_one_set_of_queries_per_kind_of_block(convert, engine, monkeypatch):
    """Polars builds each data set alone (faster there); every other engine shares."""
    queries = _counted_queries(monkeypatch)
    counts = {}
    for n_datasets in (2, 3, 6):
        frame = _one_block_datasets(seed=34, n_datasets=n_datasets)
        frame = frame[frame["dataset"] != "set3"]  # the 10-fold design, aggregated alone
        data, _ = convert(engine, frame)
        queries.clear()
        table = DatasetsTable.from_formula("loss ~ model | block | dataset", data)
        assert len(table.datasets) == frame["dataset"].nunique()
        assert all(t._route.startswith("engine") for t in table.tables.values())
        counts[n_datasets] = len(queries)
    if engine == "polars-lazy":  # two queries a data set (set3 is left out of the six)
        assert counts == {n: 2 * (n - (n > 3)) for n in (2, 3, 6)}
        return
    # the models' first rows, the per-cell aggregation and the per-record words: once
    # for the data sets whose block is the replication (set0, set1, set4, set5) and
    # once for those whose block is the fold (set2), whatever their number
    assert counts == {2: 3, 3: 6, 6: 6}


@pytest.mark.parametrize("engine", ["polars", "polars-lazy", "pyarrow", "duckdb", "parquet"])
def test_which_data_sets_repeat_records_across_the_block_as_each_alone_reads_it(engine, convert):
    import narwhals.stable.v2 as nw

    from cvreport.data.backends.engine import _datasets_whose_records_repeat
    from cvreport.data.engines import EngineSource, resolve_source

    record = [1, 2, 1, 2, 1, 2, 1, 2, 1, 1, 2, 2]
    dataset = ["a"] * 4 + ["b"] * 4 + ["c"] * 2 + ["d"] * 2
    # a: each record in one group; b: record 1 in groups 1 and 2; c: record 1 in group 5
    # and in a missing group; d: record 2 in a missing group only
    for block in (
        pd.array([1, 2, 1, 2, 1, 1, 2, 1, 5, None, None, None], dtype="Int64"),
        ["x", "y", "x", "y", "x", "x", "y", "x", "p", None, None, None],
        [1.0, 2.0, 1.0, 2.0, 1.0, 1.0, 2.0, 1.0, 5.0, None, None, None],
    ):
        frame = pd.DataFrame({"dataset": dataset, "block": block, "record": record})
        data, _ = convert(engine, frame)
        source = resolve_source(data)
        parts = {
            label: EngineSource(source.frame.filter(nw.col("dataset") == label), source.kind)
            for label in "abcd"
        }
        alone = {
            label for label, part in parts.items() if part.records_repeat_across("block", "record")
        }
        assert alone == {"b", "c"}
        assert _datasets_whose_records_repeat(source, "dataset", "block", "record", parts) == alone


@pytest.mark.parametrize(
    "engine", ["polars", "polars-lazy", "pyarrow", "duckdb", "parquet", "dask"]
)
def test_each_data_sets_models_come_in_their_order_of_first_appearance(
    engine, convert, monkeypatch
):
    frame = _many_datasets(seed=35)
    frame = frame[frame["dataset"] != "set3"]  # the 10-fold design, aggregated alone
    formula = "loss ~ model | replication + fold | dataset"
    expected = DatasetsTable.from_formula(formula, frame)
    for name, table in expected.tables.items():  # each its own order, as pandas sees it
        rows = frame[frame["dataset"] == name]
        assert table.models == tuple(pd.unique(rows["model"]).tolist())
    assert len({t.models for t in expected.tables.values()}) == 3
    # heads of 2, 16, 128 rows, read 3 rows at a time
    monkeypatch.setattr(pushdown, "_FIRST_ROWS", 2)
    monkeypatch.setattr(pushdown, "_FIRST_PAIRS_BATCH", 3)
    data, _ = convert(engine, frame)
    _assert_same_tables(DatasetsTable.from_formula(formula, data), expected)
