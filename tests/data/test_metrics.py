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


# ------------------------------------------------------------ hostile predictions (issue 23)
def _binary_cv(seed: int = 7) -> pd.DataFrame:
    df = _cv_predictions(2, seed=seed, n=60)
    return df.rename(columns={"p1": "p"}).drop(columns=["p0"])


def _refusal(df: pd.DataFrame, **options) -> str:
    with pytest.raises(DataError) as error:
        cvreport.ResultsTable.from_predictions(df, truth="y", **options)
    return str(error.value)


@pytest.mark.parametrize(
    ("metric", "value", "sklearn_refuses"),
    [("log_loss", 1.7, False), ("brier_score_loss", -0.2, True)],
)
def test_probabilities_outside_0_1_are_refused_naming_column_rows_and_fix(
    metric, value, sklearn_refuses
):
    df = _binary_cv()
    df.loc[[3, 17], "p"] = value
    message = _refusal(df, score="p", metric=metric)
    for words in (
        f"{metric} reads probabilities",
        "column 'p'",
        "outside [0, 1]",
        "on 2 rows (e.g. row 3)",
        f"{value}",
        "predict_proba",
    ):
        assert words in message
    if sklearn_refuses:  # the reference refuses it too
        cell = df.iloc[:60]
        with pytest.raises(ValueError):
            getattr(skm, metric)(cell.y, cell.p)


def test_class_probabilities_that_do_not_sum_to_one_are_refused_as_sklearn_does():
    df = _cv_predictions(3, seed=8, n=60)
    columns = ["p0", "p1", "p2"]
    df[columns] = df[columns] / 3.0  # in [0, 1], each row sums to 1/3 ...
    df.loc[5, columns] = [1.0, 1.0, 1.0]  # ... and one row to 3
    message = _refusal(df, prediction="yhat", score=columns, metric="roc_auc_ovr")
    for words in (
        "roc_auc_ovr reads one probability per class",
        "columns 'p0', 'p1', 'p2'",
        f"do not sum to 1 on {len(df):,} rows (e.g. row 0)",
        "divide each row by its sum",
    ):
        assert words in message
    cell = df.iloc[:60]
    with pytest.raises(ValueError, match="sum up to 1"):
        skm.roc_auc_score(cell.y, cell[columns], multi_class="ovr")
    # log loss of multiclass rows that do not sum to one is refused alike
    assert "do not sum to 1" in _refusal(df, score=columns, metric="log_loss")


def test_class_probabilities_summing_to_one_within_the_tolerance_are_read():
    from cvreport.data.metrics import PROBABILITY_SUM_TOLERANCE

    df = _cv_predictions(3, seed=2)
    df["p0"] = df["p0"] + PROBABILITY_SUM_TOLERANCE / 10  # rounding of exported probabilities
    table = cvreport.ResultsTable.from_predictions(
        df, truth="y", score=["p0", "p1", "p2"], metric="roc_auc_ovr"
    )
    first = df[(df.replication == 1) & (df.fold == 0) & (df.model == "lr")]
    expected = skm.roc_auc_score(first.y, first[["p0", "p1", "p2"]], multi_class="ovr")
    assert table.to_metric(table.fold_errors()["loss"].to_numpy())[0] == pytest.approx(expected)


def test_scores_given_as_predicted_labels_are_refused():
    df = _binary_cv()
    df["yhat"] = df["p"]  # probabilities where labels are expected
    message = _refusal(df, prediction="yhat", metric="f1_macro")
    assert (
        "f1_macro needs predicted labels, but column 'yhat' holds numbers that are not labels"
        in message
    )
    assert "score=" in message and "(e.g. row 0)" in message
    df = _binary_cv()
    df["y"] = df["p"] * 10  # a measurement given as the truth
    message = _refusal(df, score="p", metric="roc_auc")
    assert "roc_auc needs true labels, but column 'y' holds numbers that are not labels" in message


def test_the_array_route_checks_probabilities_too():
    from cvreport.methods.resampling import paired_bootstrap_test_array

    y = np.array([0, 1, 0, 1, 1, 0])
    with pytest.raises(DataError, match="log_loss reads probabilities, but the scores hold"):
        paired_bootstrap_test_array(
            y, np.array([0.1, 0.9, 0.2, 1.7, 0.8, 0.3]), np.full(6, 0.5), metric="log_loss"
        )


def _fold_values(table) -> np.ndarray:
    return table.to_metric(table.fold_errors()["loss"].to_numpy())


def test_a_scikit_learn_function_is_a_metric_and_equals_its_named_twin():
    df = _binary_cv(seed=10)
    by_function = cvreport.ResultsTable.from_predictions(
        df, truth="y", score="p", metric=skm.roc_auc_score
    )
    by_name = cvreport.ResultsTable.from_predictions(df, truth="y", score="p", metric="roc_auc")
    folds = by_function.fold_errors()
    expected = [
        skm.roc_auc_score(cell.y, cell.p)
        for row in folds.itertuples(index=False)
        for cell in [
            df[
                (df.replication == row.replication)
                & (df.fold == row.fold)
                & (df.model == row.model)
            ]
        ]
    ]
    np.testing.assert_allclose(_fold_values(by_function), expected, atol=TOL)
    np.testing.assert_allclose(_fold_values(by_function), _fold_values(by_name), atol=TOL)
    assert by_function.metric.direction == "higher"
    # labels as text reach a label function as a text array
    df["y"] = df["y"].map({0: "neg", 1: "pos"})
    df["yhat"] = df["yhat"].map({0: "neg", 1: "pos"})
    table = cvreport.ResultsTable.from_predictions(
        df, truth="y", prediction="yhat", metric=skm.balanced_accuracy_score
    )
    first = df[(df.replication == 1) & (df.fold == 0) & (df.model == "lr")]
    assert _fold_values(table)[0] == pytest.approx(
        skm.balanced_accuracy_score(first.y, first.yhat), abs=TOL
    )


def _raises(y_true, y_score):
    raise RuntimeError("the fold is cursed")


def _returns_text(y_true, y_score):
    return "0.5"


def _returns_array(y_true, y_score):
    return np.asarray(y_score)[:3]


def _returns_none(y_true, y_score):
    return None


def _returns_nan(y_true, y_score):
    return float("nan")


def _returns_bool(y_true, y_score):
    return True


@pytest.mark.parametrize(
    ("function", "words"),
    [
        (_raises, "raised RuntimeError on replication 1, fold 0, model 'lr' (the fold is cursed)"),
        (_returns_text, "returned str '0.5' on replication 1, fold 0, model 'lr'"),
        (_returns_array, "returned an array of shape (3,) on replication 1, fold 0"),
        (_returns_none, "returned NoneType None on replication 1, fold 0"),
        (
            _returns_nan,
            "returned nan on replication 1, fold 0, model 'lr'; it must return a finite",
        ),
        (_returns_bool, "returned bool True"),
    ],
)
def test_a_failing_metric_function_is_named_with_its_fold_and_result(function, words):
    message = _refusal(_binary_cv(), score="p", metric=function, direction="higher")
    assert f"the metric function {function.__qualname__!r} {words}" in message


def test_a_metric_function_of_the_wrong_shape_is_refused_up_front():
    def one_argument(y_true):
        return 0.0

    with pytest.raises(DataError, match=r"cannot be called as .*one_argument\(y_true, y_pred"):
        resolve_metric(one_argument, direction="higher")


def test_an_unknown_metric_is_named_with_the_known_ones():
    df = _binary_cv()
    with pytest.raises(DataError) as direct:
        resolve_metric("nonsense")
    for message in (_refusal(df, score="p", metric="nonsense"), str(direct.value)):
        assert "unknown metric 'nonsense'" in message
        assert "'roc_auc'" in message and "'f1_macro'" in message and "'log_loss'" in message
    df["record"] = df["record"].astype(int)
    for formula in ("nonsense(y, p) ~ model | replication + fold", "{nonsense(y, p)} ~ model"):
        with pytest.raises(DataError) as error:
            cvreport.ResultsTable.from_formula(formula, df)
        assert "unknown metric 'nonsense'" in str(error.value)
        assert "left side" not in str(error.value)


def test_a_failing_metric_function_is_named_on_the_array_route_too():
    from cvreport.methods.resampling import paired_bootstrap_test_array

    def text_accuracy(y_true, y_pred):  # the name says higher is better
        return "0.5"

    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    with pytest.raises(DataError) as error:
        paired_bootstrap_test_array(
            y, y, 1 - y, metric=text_accuracy, n_resamples=20, random_state=0
        )
    message = str(error.value)
    assert (
        "the metric function 'test_a_failing_metric_function_is_named_on_the_array_route_too"
        in message
    )
    assert ".<locals>.text_accuracy' returned str '0.5'" in message
    assert "group 0 of the records" in message


def test_a_metric_formula_with_runs_of_spaces_is_read_as_written():
    from cvreport.data.roles import _METRIC_CALL

    spaced = "roc_auc_ovr(  y ,  p_a +  p_b   ) ~ model | fold"
    assert _METRIC_CALL.match(spaced).groups() == (
        "roc_auc_ovr",
        "y",
        "p_a +  p_b",
        " model | fold",
    )
    # no match, and no backtracking over the spaces (the former pattern was quadratic)
    assert _METRIC_CALL.match("f(a" + " " * 20_000 + "x") is None
    assert _METRIC_CALL.match("f(a, b)" + " " * 20_000 + "x") is None
