"""Collecting per-record losses from scikit-learn estimators."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from cvreport.errors import DataError
from cvreport.partitions.audit import audit_overlap
from cvreport.partitions.collect import collect, split_labels
from cvreport.partitions.splits import BlockRegularizedCV, RandomMx2CV

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_iris, load_wine  # noqa: E402
from sklearn.metrics import accuracy_score  # noqa: E402
from sklearn.model_selection import KFold, RepeatedStratifiedKFold, ShuffleSplit  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402


def _models() -> dict[str, object]:
    return {"tree": DecisionTreeClassifier(max_depth=3, random_state=0), "nb": GaussianNB()}


def test_fold_errors_equal_one_minus_accuracy_of_the_same_fits() -> None:
    X, y = load_wine(return_X_y=True)
    cv = BlockRegularizedCV(m=5, stratify=True, random_state=0)
    table = collect(_models(), X, y, cv=cv)
    errors = table.fold_errors().set_index(["replication", "fold", "model"])["loss"]
    assert len(errors) == 2 * 10
    for i, (train, test) in enumerate(cv.split(X, y)):
        for name, estimator in _models().items():
            fitted = clone(estimator).fit(X[train], y[train])
            expected = 1 - accuracy_score(y[test], fitted.predict(X[test]))
            assert errors[(i // 2 + 1, i % 2 + 1, name)] == pytest.approx(expected, abs=1e-15)
    # and the table is a designed 5×2 table the audit recognises
    assert table.design.kind == "mx2" and table.design.n_records == len(y)
    audit = audit_overlap(table)
    assert audit.design == "block-regularized"


def test_predictions_and_truth_are_kept_and_records_are_row_labels() -> None:
    X, y = load_iris(return_X_y=True, as_frame=True)
    X.index = [f"flower{i}" for i in range(len(X))]
    y.index = X.index
    table = collect(_models(), X, y, cv=RandomMx2CV(m=2, random_state=1))
    frame = table.predictions()
    assert frame is not None
    assert set(frame.columns) >= {"replication", "fold", "model", "record", "truth", "prediction"}
    assert frame["record"].str.startswith("flower").all()
    truth = y.loc[frame["record"]].to_numpy()
    assert np.array_equal(frame["truth"].to_numpy(), truth)
    assert table.is_binary
    assert table.models == ("tree", "nb")


def test_repeated_stratified_kfold_uses_n_repeats() -> None:
    X, y = load_iris(return_X_y=True)
    table = collect(
        _models(), X, y, cv=RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    )
    assert (table.design.kind, table.design.m, table.design.K) == ("repeated_kfold", 2, 3)
    assert table.replications == (1, 2)
    assert table.folds == (1, 2, 3)


def test_split_labels_for_generic_splitters() -> None:
    X = np.zeros((20, 1))
    kfold = KFold(4)
    assert split_labels(kfold, list(kfold.split(X))) == [(1, 1), (1, 2), (1, 3), (1, 4)]
    shuffle = ShuffleSplit(n_splits=3, test_size=0.5, random_state=0)
    # test sets overlap: each split is its own replication (repeated hold-out)
    assert split_labels(shuffle, list(shuffle.split(X))) == [(1, 1), (2, 1), (3, 1)]
    ours = RandomMx2CV(m=2, random_state=0)
    assert split_labels(ours, list(ours.split(X))) == [(1, 1), (1, 2), (2, 1), (2, 2)]


def test_integer_cv_means_stratified_kfold() -> None:
    X, y = load_iris(return_X_y=True)
    table = collect(_models(), X, y, cv=5)
    assert (table.design.kind, table.design.K) == ("kfold", 5)


def test_parallel_fits_give_the_same_table() -> None:
    X, y = load_iris(return_X_y=True)
    cv = BlockRegularizedCV(m=3, random_state=2)
    serial = collect(_models(), X, y, cv=cv).fold_errors()
    import joblib

    with joblib.parallel_config(backend="threading"):  # no process start-up in the test
        parallel = collect(_models(), X, y, cv=cv, n_jobs=2).fold_errors()
    pd.testing.assert_frame_equal(serial, parallel)


def test_bad_input() -> None:
    X, y = load_iris(return_X_y=True)
    with pytest.raises(DataError, match="at least two"):
        collect({"nb": GaussianNB()}, X, y, cv=3)
    with pytest.raises(DataError, match="rows"):
        collect(_models(), X[:10], y, cv=3)


def test_missing_sklearn_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "from cvreport.partitions.collect import collect\n"
        "try:\n"
        "    collect({'a': 1, 'b': 2}, [[0]], [0], cv=2)\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "cvreport[sklearn]" in out.stdout


# -- predictions, probabilities and many data sets -----------------------------------

from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.linear_model import LogisticRegression, RidgeClassifier  # noqa: E402
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402


class _LabelsOnly(ClassifierMixin, BaseEstimator):
    """A classifier that predicts labels and gives no scores."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.nb_ = GaussianNB().fit(X, y)
        return self

    def predict(self, X):
        return self.nb_.predict(X)


def _scored_models() -> dict[str, object]:
    return {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
        "nb": GaussianNB(),
        "ridge": RidgeClassifier(),  # decision values only
    }


def _by_hand(models, X, y, cv, score) -> dict[tuple[int, int, str], float]:
    """The cross-validation loop a user writes: one value per (replication, fold, model)."""
    out = {}
    for i, (train, test) in enumerate(cv.split(X, y)):
        for name, estimator in models.items():
            fitted = clone(estimator).fit(X[train], y[train])
            out[(i // 2 + 1, i % 2 + 1, name)] = score(fitted, X[test], y[test])
    return out


def _positive_score(fitted, X):
    if hasattr(fitted, "predict_proba"):
        return fitted.predict_proba(X)[:, 1]
    return fitted.decision_function(X)


def test_aucs_equal_sklearns_on_the_same_fits() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    cv = BlockRegularizedCV(m=3, stratify=True, random_state=0)
    table = collect(_scored_models(), X, y, cv=cv, metric="roc_auc")
    assert table.metric.name == "roc_auc" and not table.per_record and table.has_records
    aucs = table.fold_errors().set_index(["replication", "fold", "model"])["loss"]
    expected = _by_hand(
        _scored_models(), X, y, cv, lambda f, X_, y_: roc_auc_score(y_, _positive_score(f, X_))
    )
    assert len(aucs) == len(expected) == 18
    for key, value in expected.items():
        assert -aucs[key] == pytest.approx(value, abs=1e-12)
    # the records are kept: the audit of the AUC table is the audit of the 0/1 table
    errors = collect(_scored_models(), X, y, cv=cv)
    got, same = audit_overlap(table), audit_overlap(errors)
    assert (got.design, got.z_max, got.verdict) == (same.design, same.z_max, same.verdict)
    assert got.design == "block-regularized"


@pytest.mark.parametrize(
    ("metric", "function"),
    [
        ("log_loss", lambda f, X, y: log_loss(y, f.predict_proba(X), labels=[0, 1])),
        ("brier_score_loss", lambda f, X, y: brier_score_loss(y, f.predict_proba(X)[:, 1])),
    ],
)
def test_probability_metrics_are_per_record_means_of_sklearns(metric, function) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    models = {k: v for k, v in _scored_models().items() if k != "ridge"}
    cv = RandomMx2CV(m=2, random_state=4)
    table = collect(models, X, y, cv=cv, metric=metric)
    assert table.per_record and table.metric.name == metric and table.metric.direction == "lower"
    losses = table.fold_errors().set_index(["replication", "fold", "model"])["loss"]
    for key, value in _by_hand(models, X, y, cv, function).items():
        assert losses[key] == pytest.approx(value, rel=1e-12, abs=1e-12)


def test_multiclass_probabilities_per_class() -> None:
    X, y = load_wine(return_X_y=True)
    models = {"logistic": _scored_models()["logistic"], "nb": GaussianNB()}
    cv = BlockRegularizedCV(m=2, stratify=True, random_state=3)
    table = collect(models, X, y, cv=cv, metric="roc_auc_ovr")
    aucs = table.fold_errors().set_index(["replication", "fold", "model"])["loss"]
    expected = _by_hand(
        models,
        X,
        y,
        cv,
        lambda f, X_, y_: roc_auc_score(y_, f.predict_proba(X_), multi_class="ovr"),
    )
    for key, value in expected.items():
        assert -aucs[key] == pytest.approx(value, abs=1e-12)
    kept = table.predictions()
    assert [c for c in kept.columns if c.startswith("score")] == ["score_0", "score_1", "score_2"]
    np.testing.assert_allclose(kept[["score_0", "score_1", "score_2"]].sum(axis=1), 1.0)


def test_the_default_table_keeps_each_records_score_for_any_later_metric() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    cv = RandomMx2CV(m=2, random_state=1)
    table = collect(_scored_models(), X, y, cv=cv)
    assert table.is_binary and table.metric.name == "error rate"  # 0/1 losses, as before
    kept = table.predictions()
    for i, (train, test) in enumerate(cv.split(X, y)):
        for name, estimator in _scored_models().items():
            fitted = clone(estimator).fit(X[train], y[train])
            rows = kept[(kept.replication == i // 2 + 1) & (kept.fold == i % 2 + 1)]
            rows = rows[rows.model == name]
            np.testing.assert_array_equal(rows["record"].to_numpy(), test)
            np.testing.assert_allclose(
                rows["score_1"], _positive_score(fitted, X[test]), rtol=1e-12
            )
            if hasattr(fitted, "predict_proba"):  # both classes' probabilities are kept
                np.testing.assert_allclose(
                    rows["score_0"], fitted.predict_proba(X[test])[:, 0], rtol=1e-12
                )
    from cvreport.data.table import ResultsTable

    later = ResultsTable.from_predictions(kept, truth="truth", score="score_1", metric="roc_auc")
    direct = collect(_scored_models(), X, y, cv=cv, metric="roc_auc")
    np.testing.assert_allclose(later.stats.sums, direct.stats.sums, rtol=0, atol=1e-12)


def test_pos_label_chooses_the_positive_class() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    models = {"nb": GaussianNB(), "ridge": RidgeClassifier()}
    cv = BlockRegularizedCV(m=2, random_state=0)
    table = collect(models, X, y, cv=cv, metric="average_precision", pos_label=0)
    from sklearn.metrics import average_precision_score

    aps = table.fold_errors().set_index(["replication", "fold", "model"])["loss"]
    expected = _by_hand(
        models,
        X,
        y,
        cv,
        lambda f, X_, y_: (
            average_precision_score(y_ == 0, -_positive_score(f, X_))
            if not hasattr(f, "predict_proba")
            else average_precision_score(y_ == 0, f.predict_proba(X_)[:, 0])
        ),
    )
    for key, value in expected.items():
        assert -aps[key] == pytest.approx(value, abs=1e-12)


def test_many_datasets_give_a_datasets_table_of_each_datasets_own_table() -> None:
    from cvreport.data.datasets import DatasetsTable
    from cvreport.reporting.multi_report import DatasetsReport

    binary = load_breast_cancer(return_X_y=True)
    data = {
        "cancer": binary,
        "cancer_half": (binary[0][::2], binary[1][::2]),
        "cancer_third": (binary[0][::3], binary[1][::3]),
    }
    models = {k: v for k, v in _scored_models().items() if k != "ridge"}
    cv = BlockRegularizedCV(m=2, stratify=True, random_state=0)
    multi = collect(models, data, cv=cv, metric="roc_auc")
    assert isinstance(multi, DatasetsTable)
    assert multi.datasets == ("cancer", "cancer_half", "cancer_third") and multi.level == "fold"
    for name, (X, y) in data.items():
        expected = _by_hand(
            models, X, y, cv, lambda f, X_, y_: roc_auc_score(y_, f.predict_proba(X_)[:, 1])
        )
        for model in models:
            mean = np.mean([v for k, v in expected.items() if k[2] == model])
            assert multi.means().loc[name, model] == pytest.approx(mean, abs=1e-12)
        assert multi.tables[name].design.n_records == len(y)
    assert "metric: AUC (higher is better)" in DatasetsReport(multi).to_markdown()
    zero_one = collect(models, data, cv=cv)
    assert zero_one.level == "record" and zero_one.metric.name == "error rate"


def test_scores_and_data_sets_refuse_what_does_not_fit() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(DataError, match=r"'ridge'.* no predict_proba"):
        collect(_scored_models(), X, y, cv=2, metric="log_loss")
    labels_only = {"centroid": _LabelsOnly(), "nb": GaussianNB()}
    with pytest.raises(DataError, match=r"'centroid'.* neither predict_proba"):
        collect(labels_only, X, y, cv=2, metric="roc_auc")
    assert collect(labels_only, X, y, cv=2, metric="f1").metric.name == "f1"
    with pytest.raises(DataError, match="leave y out"):
        collect(_models(), {"a": (X, y), "b": (X, y)}, y, cv=2)
    with pytest.raises(DataError, match="data set 'b': X has 10 rows"):
        collect(_models(), {"a": (X, y), "b": (X[:10], y)}, cv=2)
    with pytest.raises(DataError, match="needs the class labels y"):
        collect(_models(), X, cv=2)


def test_groups_of_each_data_set_reach_its_splitter() -> None:
    from sklearn.model_selection import GroupKFold

    X, y = load_breast_cancer(return_X_y=True)
    data = {"first": (X[:300], y[:300]), "second": (X[300:], y[300:])}
    groups = {name: np.arange(len(part[1])) // 10 for name, part in data.items()}
    multi = collect(_models(), data, cv=GroupKFold(n_splits=3), groups=groups)
    for name, table in multi.tables.items():
        records, folds = table.membership()
        fold_of_group = pd.Series(folds[:, 0]).groupby(groups[name][records]).nunique()
        assert (fold_of_group == 1).all() and table.design.K == 3
    with pytest.raises(DataError, match="groups as a mapping"):
        collect(_models(), data, cv=GroupKFold(n_splits=3), groups=np.zeros(len(y)))
