"""DatasetsTable: the data set term of the formula, the three routes, and errors naming the data set."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data.datasets import DatasetsTable, split_dataset_term
from cvreport.data.table import ResultsTable
from cvreport.errors import DataError, FormulaError


@pytest.fixture(scope="module")
def example():
    return cvreport.load_example("multi")


def test_split_dataset_term_uses_the_last_bar_outside_braces():
    term = split_dataset_term("{a | b} ~ model | replication + fold | task")
    assert (term.inner, term.dataset) == ("{a | b} ~ model | replication + fold", "task")
    with pytest.raises(FormulaError, match="no data set column"):
        split_dataset_term("loss ~ model")
    with pytest.raises(FormulaError, match="nesting"):
        split_dataset_term("loss ~ model + dataset/(replication + fold)")
    with pytest.raises(FormulaError, match="one data set column"):
        split_dataset_term("loss ~ model | fold | a + b")


def test_example_keeps_each_datasets_design(example):
    multi = DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", example)
    assert multi.level == "record" and multi.metric.name == "error rate"
    assert len(multi.datasets) == 10 and len(multi.models) == 5
    kinds = {name: t.design.kind for name, t in multi.tables.items()}
    assert kinds["breast_cancer"] == "kfold" and kinds["wine_class0"] == "mx2"
    # the means are each data set's mean over folds of the fold error rates
    part = example[(example["dataset"] == "iris_versicolor_virginica")]
    fold_means = part.groupby(["replication", "fold", "model"])["loss"].mean()
    expected = fold_means.groupby("model").mean()
    got = multi.means().loc["iris_versicolor_virginica", expected.index]
    assert got.to_numpy() == pytest.approx(expected.to_numpy(), abs=1e-12)
    sd = fold_means.groupby("model").std(ddof=1)
    assert multi.sds().loc["iris_versicolor_virginica", sd.index].to_numpy() == pytest.approx(
        sd.to_numpy(), abs=1e-12
    )


def test_the_same_tables_built_by_hand(example):
    tables = {
        name: ResultsTable.from_formula("loss ~ model | replication + fold", part)
        for name, part in example.groupby("dataset", sort=False)
    }
    by_hand = DatasetsTable(tables)
    by_formula = DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", example)
    pd.testing.assert_frame_equal(by_hand.means(), by_formula.means())


def test_per_fold_scores_and_direction_from_name():
    rng = np.random.default_rng(0)
    rows = [
        {"task": t, "rep": r, "fold": f, "clf": c, "accuracy": rng.uniform(0.6, 0.9)}
        for t in ("a", "b", "c")
        for r in (1, 2)
        for f in (1, 2, 3)
        for c in ("x", "y")
    ]
    df = pd.DataFrame(rows)
    multi = DatasetsTable.from_formula("accuracy ~ clf | rep + fold | task", df, per_fold=True)
    assert multi.level == "fold" and multi.metric.direction == "higher"
    expected = df.groupby(["task", "clf"])["accuracy"].mean().unstack()
    assert multi.means().to_numpy() == pytest.approx(expected.to_numpy(), abs=1e-12)
    assert multi.tables["a"].design.kind == "repeated_kfold"


def test_one_score_per_dataset_needs_a_direction_when_the_name_is_silent():
    df = pd.DataFrame({"d": ["a", "a", "b", "b"], "m": ["x", "y"] * 2, "value": [1, 2, 3, 4]})
    with pytest.raises(DataError, match="direction="):
        DatasetsTable.from_formula("value ~ m | d", df)
    table = DatasetsTable.from_formula("value ~ m | d", df, direction="lower")
    assert table.level == "dataset" and table.tables == {}
    assert table.sds().isna().all().all()


def test_errors_name_the_dataset(example):
    broken = example.copy()
    where = (broken["dataset"] == "digits_4_vs_9") & (broken.index % 97 == 0)
    broken.loc[where, "loss"] = np.nan
    with pytest.raises(DataError, match="data set 'digits_4_vs_9'"):
        DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", broken)
    missing = example[~((example["dataset"] == "wine_class0") & (example["model"] == "knn"))]
    with pytest.raises(DataError, match="data set 'wine_class0' has no results for model 'knn'"):
        DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", missing)
    one = example[example["dataset"] == "wine_class0"]
    with pytest.raises(DataError, match="at least two data sets"):
        DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", one)
    unnamed = example.assign(dataset=example["dataset"].where(example.index != 5))
    with pytest.raises(DataError, match="missing on 1 row"):
        DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", unnamed)
    with pytest.raises(DataError, match=r"'task' .* is not in the data"):
        DatasetsTable.from_formula("loss ~ model | replication + fold | task", example)
    twice = pd.DataFrame({"d": ["a", "a", "b"], "m": ["x", "x", "x"], "auc": [0.1, 0.2, 0.3]})
    with pytest.raises(DataError, match="more than one"):
        DatasetsTable.from_formula("auc ~ m | d", twice)


# -- predictions of many data sets ------------------------------------------------


def _predictions_of_many_datasets(seed: int = 0) -> pd.DataFrame:
    """Three data sets of different designs: 2×2 CV, 3-fold CV and 3×2 CV, two models."""
    rng = np.random.default_rng(seed)
    frames = []
    for name, n, m, k in (("small", 40, 2, 2), ("kfold", 60, 1, 3), ("big", 80, 3, 2)):
        y = np.arange(n) % 2
        for replication in range(1, m + 1):
            order = np.concatenate([rng.permutation(np.flatnonzero(y == c)) for c in (0, 1)])
            folds = np.empty(n, dtype=int)
            folds[order] = np.arange(n) % k + 1
            for model, signal in (("lr", 0.8), ("tree", 0.4)):
                proba = np.clip(signal * y + rng.uniform(0, 1, n) * (1 - signal / 2), 0, 1)
                frames.append(
                    pd.DataFrame(
                        {
                            "dataset": name,
                            "replication": replication,
                            "fold": folds,
                            "model": model,
                            "record": [f"{name}{i}" for i in range(n)],
                            "y": y,
                            "proba": proba,
                            "pred": (proba >= 0.5).astype(int),
                        }
                    )
                )
    return pd.concat(frames, ignore_index=True)


def test_metric_formula_of_many_datasets_gives_sklearns_auc_per_fold():
    from sklearn.metrics import roc_auc_score

    df = _predictions_of_many_datasets()
    multi = DatasetsTable.from_formula(
        "roc_auc(y, proba) ~ model | replication + fold | dataset", df
    )
    assert multi.level == "fold" and multi.metric.name == "roc_auc"
    assert multi.metric.direction == "higher"
    assert multi.datasets == ("small", "kfold", "big") and multi.models == ("lr", "tree")
    kinds = {name: (t.design.kind, t.design.m, t.design.K) for name, t in multi.tables.items()}
    assert kinds == {"small": ("mx2", 2, 2), "kfold": ("kfold", 1, 3), "big": ("mx2", 3, 2)}
    for (name, replication, fold, model), cell in df.groupby(
        ["dataset", "replication", "fold", "model"]
    ):
        aucs = multi.tables[name].fold_errors().set_index(["replication", "fold", "model"])
        expected = roc_auc_score(cell["y"], cell["proba"])
        assert -aucs.loc[(replication, fold, model), "loss"] == pytest.approx(expected, abs=1e-12)
    by_hand = (
        df.groupby(["dataset", "replication", "fold", "model"])
        .apply(lambda c: roc_auc_score(c["y"], c["proba"]), include_groups=False)
        .groupby(["dataset", "model"])
        .mean()
        .unstack()
        .loc[list(multi.datasets), list(multi.models)]
    )
    np.testing.assert_allclose(multi.means().to_numpy(), by_hand.to_numpy(), atol=1e-12)


@pytest.mark.parametrize(
    "keywords",
    [
        {"score": "proba", "metric": "roc_auc"},
        {"score": "proba", "metric": "log_loss"},
        {"prediction": "pred", "metric": "f1"},
        {"prediction": "pred"},
    ],
)
def test_from_predictions_equals_each_datasets_own_table(keywords):
    df = _predictions_of_many_datasets(seed=1).rename(columns={"dataset": "task"})
    multi = DatasetsTable.from_predictions(df, truth="y", dataset="task", **keywords)
    for name, part in df.groupby("task"):
        alone = ResultsTable.from_predictions(part, truth="y", **keywords)
        built = multi.tables[name]
        assert built.metric == alone.metric and built.per_record == alone.per_record
        np.testing.assert_allclose(built.stats.sums, alone.stats.sums, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(built.stats.counts, alone.stats.counts)
        assert built.design == alone.design
    expected_level = "record" if keywords.get("metric") in (None, "log_loss") else "fold"
    assert multi.level == expected_level


def test_the_formula_and_the_keywords_give_the_same_table():
    df = _predictions_of_many_datasets(seed=2)
    by_formula = DatasetsTable.from_formula(
        "roc_auc(y, proba) ~ model | replication + fold | dataset", df
    )
    by_keywords = DatasetsTable.from_predictions(df, truth="y", score="proba", metric="roc_auc")
    np.testing.assert_allclose(
        by_formula.means().to_numpy(), by_keywords.means().to_numpy(), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(
        by_formula.sds().to_numpy(), by_keywords.sds().to_numpy(), rtol=0, atol=1e-12
    )
    assert by_formula.formula is not None and by_keywords.formula is None


def test_the_many_datasets_report_runs_on_aucs_from_predictions():
    df = _predictions_of_many_datasets(seed=3)
    multi = DatasetsTable.from_predictions(df, truth="y", score="proba", metric="roc_auc")
    report = cvreport.DatasetsReport(multi)
    text = report.to_markdown()
    assert "metric: AUC (higher is better)" in text
    for name, table in multi.tables.items():
        mean = -table.fold_errors().query("model == 'lr'")["loss"].mean()
        assert f"| {name} |" in text and f"{mean:.3f}" in text


def test_predictions_of_many_datasets_refuse_what_does_not_fit():
    df = _predictions_of_many_datasets(seed=4)
    formula = "roc_auc(y, proba) ~ model | replication + fold | dataset"
    with pytest.raises(DataError, match="not one score per fold"):
        DatasetsTable.from_formula(formula, df, per_fold=True)
    with pytest.raises(DataError, match="contradicts the metric 'roc_auc'"):
        DatasetsTable.from_formula(formula, df, direction="lower")
    one_class = df[~((df["dataset"] == "kfold") & (df["fold"] == 2) & (df["y"] == 1))]
    with pytest.raises(DataError, match="data set 'kfold': roc_auc is undefined"):
        DatasetsTable.from_predictions(one_class, truth="y", score="proba", metric="roc_auc")
    with pytest.raises(DataError, match="'task' named by dataset= is not in the data"):
        DatasetsTable.from_predictions(df, truth="y", prediction="pred", dataset="task")


def test_many_datasets_from_a_polars_frame_or_a_parquet_path(tmp_path):
    pl = pytest.importorskip("polars")
    df = _predictions_of_many_datasets(seed=5)
    formula = "roc_auc(y, proba) ~ model | replication + fold | dataset"
    expected = DatasetsTable.from_formula(formula, df).means()
    path = tmp_path / "predictions.parquet"
    df.to_parquet(path)
    for source in (pl.from_pandas(df), pl.from_pandas(df).lazy(), str(path)):
        got = DatasetsTable.from_formula(formula, source).means()
        np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)
        assert list(got.index) == list(expected.index)


def test_the_engine_keyword_reaches_each_datasets_table():
    pytest.importorskip("duckdb")
    df = _predictions_of_many_datasets(seed=6)
    in_memory = DatasetsTable.from_predictions(df, truth="y", prediction="pred")
    in_duckdb = DatasetsTable.from_predictions(df, truth="y", prediction="pred", engine="duckdb")
    np.testing.assert_allclose(
        in_duckdb.means().to_numpy(), in_memory.means().to_numpy(), rtol=0, atol=1e-12
    )
    with pytest.raises(DataError, match="data set 'small': unknown engine 'spreadsheet'"):
        DatasetsTable.from_predictions(df, truth="y", prediction="pred", engine="spreadsheet")


@pytest.mark.parametrize("source", ["parquet", "duckdb", "polars_lazy"])
def test_many_datasets_on_an_engine_are_aggregated_there_not_in_pandas(example, tmp_path, source):
    from cvreport.data import engines

    formula = "loss ~ model | replication + fold | dataset"
    expected = DatasetsTable.from_formula(formula, example)
    path = tmp_path / "multi.parquet"
    example.to_parquet(path)
    if source == "parquet":
        data: object = str(path)
    elif source == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        data = duckdb.connect().read_parquet(str(path))
    else:
        pl = pytest.importorskip("polars")
        data = pl.scan_parquet(path)
    fetched: list[object] = []
    original = engines.EngineSource.to_pandas

    def spy(self: object, columns: object = None) -> pd.DataFrame:
        fetched.append(columns)
        return original(self, columns)  # type: ignore[arg-type]

    engines.EngineSource.to_pandas = spy  # type: ignore[method-assign]
    try:
        got = DatasetsTable.from_formula(formula, data)
    finally:
        engines.EngineSource.to_pandas = original  # type: ignore[method-assign]
    assert fetched == []  # no row of the results came into pandas
    assert got.datasets == expected.datasets and got.models == expected.models
    np.testing.assert_allclose(
        got.means().to_numpy(), expected.means().to_numpy(), rtol=0, atol=1e-12
    )
    for name, table in got.tables.items():
        assert table._route.startswith("engine")
        np.testing.assert_allclose(
            table.stats.sums, expected.tables[name].stats.sums, rtol=0, atol=1e-12
        )
        assert table.design.describe() == expected.tables[name].design.describe()
