"""Collecting per-record losses from scikit-learn estimators."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from cvreport.data.collect import collect, split_labels
from cvreport.errors import DataError
from cvreport.partitions.audit import audit_overlap
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
        "from cvreport.data.collect import collect\n"
        "try:\n"
        "    collect({'a': 1, 'b': 2}, [[0]], [0], cv=2)\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "cvreport[sklearn]" in out.stdout
