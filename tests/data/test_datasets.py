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
