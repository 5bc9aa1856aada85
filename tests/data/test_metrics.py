"""Per-fold metrics from per-record predictions equal sklearn.metrics on every fold."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import cvreport
from cvreport.data.metrics import (
    NAMED_METRICS,
    grouped_auc,
    grouped_average_precision,
    resolve_metric,
)
from cvreport.errors import DataError, FormulaError

TOL = 1e-12


def _cv_predictions(n_classes: int, seed: int = 0, n: int = 240) -> pd.DataFrame:
    """3 models × 2 replications × 4 folds; scores rounded to 2 decimals so that ties occur."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_classes, n)
    frames = []
    for replication in (1, 2):
        fold = rng.permutation(np.arange(n) % 4)
        for strength, model in zip((1.5, 1.0, 0.5), ("lr", "tree", "knn")):
            logits = rng.normal(size=(n, n_classes)) + strength * np.eye(n_classes)[truth]
            proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
            proba = np.round(proba, 2)
            proba[:, -1] = 1.0 - proba[:, :-1].sum(axis=1)  # rows still sum to one
            proba = np.clip(proba, 0.0, 1.0)
            frame = pd.DataFrame(
                {
                    "replication": replication,
                    "fold": fold,
                    "model": model,
                    "record": np.arange(n),
                    "y": truth,
                    "yhat": proba.argmax(axis=1),
                }
            )
            for c in range(n_classes):
                frame[f"p{c}"] = proba[:, c]
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _sklearn(name: str, y: np.ndarray, yhat: np.ndarray, proba: np.ndarray, classes) -> float:
    binary = len(classes) == 2
    score = proba[:, 1] if binary else proba
    average = name.rpartition("_")[2]
    calls = {
        "accuracy": lambda: skm.accuracy_score(y, yhat),
        "zero_one_loss": lambda: skm.zero_one_loss(y, yhat),
        "log_loss": lambda: skm.log_loss(y, score, labels=classes),
        "brier_score_loss": lambda: skm.brier_score_loss(
            y, score, labels=classes, **({"pos_label": 1} if binary else {})
        ),
        "balanced_accuracy": lambda: skm.balanced_accuracy_score(y, yhat),
        "matthews_corrcoef": lambda: skm.matthews_corrcoef(y, yhat),
        "kappa": lambda: skm.cohen_kappa_score(y, yhat),
        "f1": lambda: skm.f1_score(y, yhat, pos_label=1),
        "precision": lambda: skm.precision_score(y, yhat, pos_label=1),
        "recall": lambda: skm.recall_score(y, yhat, pos_label=1),
        "roc_auc": lambda: skm.roc_auc_score(y, score),
        "roc_auc_ovr": lambda: skm.roc_auc_score(
            y, proba if not binary else score, multi_class="ovr", labels=classes
        ),
        "average_precision": lambda: skm.average_precision_score(y, score, pos_label=1),
    }
    if name in calls:
        return float(calls[name]())
    word = name.partition("_")[0]
    function = {"f1": skm.f1_score, "precision": skm.precision_score, "recall": skm.recall_score}
    return float(function[word](y, yhat, average=average))


def _check_every_fold(df: pd.DataFrame, name: str, n_classes: int) -> int:
    spec = resolve_metric(name)
    score = "p1" if (n_classes == 2 and spec.needs == "score") else None
    if n_classes > 2 and spec.needs == "score":
        score = [f"p{c}" for c in range(n_classes)]
    table = cvreport.ResultsTable.from_predictions(
        df, truth="y", prediction="yhat", score=score, metric=name
    )
    values = table.fold_errors()
    values["loss"] = table.to_metric(values["loss"].to_numpy())
    checked = 0
    classes = list(range(n_classes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for row in values.itertuples(index=False):
            cell = df[
                (df.replication == row.replication)
                & (df.fold == row.fold)
                & (df.model == row.model)
            ]
            proba = cell[[f"p{c}" for c in classes]].to_numpy()
            expected = _sklearn(name, cell.y.to_numpy(), cell.yhat.to_numpy(), proba, classes)
            assert abs(row.loss - expected) <= TOL, (name, row, expected)
            checked += 1
    return checked


BINARY = sorted(NAMED_METRICS)
MULTICLASS = sorted(name for name, spec in NAMED_METRICS.items() if not spec.binary_only)


@pytest.mark.parametrize("name", BINARY)
def test_every_named_metric_equals_sklearn_on_every_fold_binary(name):
    assert _check_every_fold(_cv_predictions(2, seed=1), name, 2) == 24


@pytest.mark.parametrize("name", MULTICLASS)
def test_every_named_metric_equals_sklearn_on_every_fold_multiclass(name):
    assert _check_every_fold(_cv_predictions(3, seed=2), name, 3) == 24


def test_callable_metric_is_called_per_fold_with_the_labels():
    df = _cv_predictions(2, seed=3)
    df["y"] = df["y"].map({0: "neg", 1: "pos"})
    df["yhat"] = df["yhat"].map({0: "neg", 1: "pos"})

    def hamming_loss(y, yhat):
        return skm.hamming_loss(y, yhat)

    table = cvreport.ResultsTable.from_predictions(
        df, truth="y", prediction="yhat", metric=hamming_loss
    )
    assert table.higher_is_better is False
    first = df[(df.replication == 1) & (df.fold == 0) & (df.model == "lr")]
    expected = skm.hamming_loss(first.y, first.yhat)
    assert table.fold_errors()["loss"].iloc[0] == pytest.approx(expected, abs=TOL)
    assert table.metric.name == "hamming_loss" and table.metric.direction == "lower"


def test_per_fold_metric_table_feeds_the_fold_level_tests():
    df = _cv_predictions(2, seed=4)
    table = cvreport.ResultsTable.from_predictions(df, truth="y", score="p1", metric="roc_auc")
    assert table.design.kind == "repeated_kfold" and not table.per_record
    assert table.test_train_ratio == pytest.approx(1 / 3)
    aucs = table.fold_errors()
    lr = -aucs[aucs.model == "lr"]["loss"].to_numpy()
    tree = -aucs[aucs.model == "tree"]["loss"].to_numpy()
    d = lr - tree  # results are in the metric: AUC(lr) − AUC(tree)
    result = cvreport.corrected_repeated_kfold_ttest(table, "lr", "tree")
    expected = d.mean() / np.sqrt((1 / 8 + 1 / 3) * d.var(ddof=1))
    assert result.statistic == pytest.approx(expected, rel=1e-12)


def test_record_mean_metric_keeps_per_record_values_and_record_tests():
    df = _cv_predictions(2, seed=5)
    table = cvreport.ResultsTable.from_predictions(df, truth="y", score="p1", metric="log_loss")
    assert table.per_record and table.loss_name == "log_loss" and not table.higher_is_better
    d = table.record_differences("lr", "tree")
    cell = d[(d.replication == 1) & (d.fold == 0)]
    rows = df[(df.replication == 1) & (df.fold == 0)]
    lr, tree = rows[rows.model == "lr"], rows[rows.model == "tree"]
    expected = skm.log_loss(lr.y, lr.p1) - skm.log_loss(tree.y, tree.p1)
    assert cell["difference"].mean() == pytest.approx(expected, abs=TOL)
    assert cvreport.cv_confidence_interval(table, "lr", "tree", repeated="average").pvalue < 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, 6)), min_size=1, max_size=60
    ),
    st.sampled_from([-0.5, 0.0]),
)
def test_grouped_auc_and_average_precision_equal_sklearn_with_ties(rows, shift):
    # shift 0: non-negative scores take the packed-key sort; -0.5: mixed signs, the argsort
    groups = np.array([r[0] for r in rows])
    positive = np.array([r[1] for r in rows])
    scores = np.array([r[2] / 4.0 + shift for r in rows])
    auc = grouped_auc(groups, 4, positive, scores)
    ap = grouped_average_precision(groups, 4, positive, scores)
    for g in range(4):
        y = positive[groups == g]
        if y.size and 0 < y.sum() < y.size:
            assert auc[g] == pytest.approx(skm.roc_auc_score(y, scores[groups == g]), abs=TOL)
        else:
            assert np.isnan(auc[g])
        if y.size and y.sum() > 0:
            expected = skm.average_precision_score(y, scores[groups == g])
            assert ap[g] == pytest.approx(expected, abs=TOL)


def test_unequal_fold_sizes_and_unsorted_rows():
    df = _cv_predictions(2, seed=6).sample(frac=1.0, random_state=0)
    df = df[~((df.replication == 1) & (df.record < 7))]  # records missing from one replication
    assert _check_every_fold(df, "roc_auc", 2) == 24


def test_bad_metric_inputs_raise_typed_errors():
    df = _cv_predictions(3, seed=7)
    with pytest.raises(DataError, match="unknown metric"):
        cvreport.ResultsTable.from_predictions(df, truth="y", prediction="yhat", metric="f2")
    with pytest.raises(DataError, match="two classes"):
        cvreport.ResultsTable.from_predictions(df, truth="y", prediction="yhat", metric="f1")
    with pytest.raises(DataError, match="needs scores"):
        cvreport.ResultsTable.from_predictions(
            df, truth="y", prediction="yhat", metric="roc_auc_ovr"
        )
    with pytest.raises(DataError, match="negated sklearn scorer"):
        resolve_metric("neg_log_loss")
    with pytest.raises(DataError, match="direction='higher'"):
        resolve_metric(lambda y, p: 0.0)
    binary = _cv_predictions(2, seed=8)
    binary.loc[(binary.fold == 0) & (binary.replication == 1), "y"] = 1
    with pytest.raises(DataError, match="one class only"):
        cvreport.ResultsTable.from_predictions(binary, truth="y", score="p1", metric="roc_auc")


def test_formula_route_names_metric_truth_and_scores():
    df = _cv_predictions(3, seed=9)
    table = cvreport.ResultsTable.from_formula(
        "roc_auc_ovr(y, p0 + p1 + p2) ~ model | replication + fold", df
    )
    direct = cvreport.ResultsTable.from_predictions(
        df, truth="y", score=["p0", "p1", "p2"], metric="roc_auc_ovr"
    )
    pd.testing.assert_frame_equal(table.fold_errors(), direct.fold_errors())
    assert table.formula == "roc_auc_ovr(y, p0 + p1 + p2) ~ model | replication + fold"
    f1 = cvreport.ResultsTable.from_formula("f1_macro(y, yhat) ~ model | replication + fold", df)
    assert f1.loss_name == "f1_macro" and f1.higher_is_better
    with pytest.raises(FormulaError):
        cvreport.ResultsTable.from_formula("loss ~ model | cluster(a) + cluster(b)", df)


def test_bad_scores_and_labels_are_named():
    df = _cv_predictions(2, seed=10)
    df.loc[df.index[5], "p1"] = np.nan
    with pytest.raises(DataError, match="missing or infinite"):
        cvreport.ResultsTable.from_predictions(df, truth="y", score="p1", metric="roc_auc")
    multi = _cv_predictions(3, seed=11)
    with pytest.raises(DataError, match="2 score columns were given for 3 classes"):
        cvreport.ResultsTable.from_predictions(
            multi, truth="y", score=["p0", "p1"], metric="roc_auc_ovr"
        )
    with pytest.raises(DataError, match="pos_label 'cat'"):
        cvreport.ResultsTable.from_predictions(
            _cv_predictions(2, seed=12), truth="y", score="p1", metric="roc_auc", pos_label="cat"
        )
    with pytest.raises(DataError, match="contradicts"):
        cvreport.ResultsTable.from_predictions(
            _cv_predictions(2, seed=12), truth="y", score="p1", metric="roc_auc", direction="lower"
        )
