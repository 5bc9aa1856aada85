"""Run the cross-validation with scikit-learn and keep every record's loss.

:func:`collect` fits each estimator on every training set of a splitter and
returns a :class:`~cvreport.data.table.ResultsTable` of per-record 0/1 losses, with
the predictions and the truth kept, so that every test and the overlap audit
can run on the result. scikit-learn is an optional dependency (the ``sklearn``
extra) and is imported only when :func:`collect` is called.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.errors import CVReportError, DataError, describe_keys
from cvreport.partitions.splits import _Mx2Splitter, record_labels

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["collect", "split_labels"]

_SKLEARN_MISSING = (
    "collect() fits scikit-learn estimators and needs scikit-learn; install it with "
    "pip install 'cvreport[sklearn]' (or pip install scikit-learn)"
)


def _sklearn() -> tuple[Any, Any]:
    try:
        from sklearn.base import clone
        from sklearn.model_selection import check_cv
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(_SKLEARN_MISSING) from exc
    return clone, check_cv


def _take(data: Any, index: np.ndarray) -> Any:
    """Rows ``index`` (positions) of an array, sparse matrix, DataFrame or Series."""
    if hasattr(data, "iloc"):
        return data.iloc[index]
    if isinstance(data, (list, tuple)):
        data = np.asarray(data)
    return data[index]


def split_labels(cv: Any, splits: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[int, int]]:
    """``(replication, fold)`` (1-based) of every split, in order.

    Our splitters yield replication by replication, two folds each, so split
    ``i`` is replication ``i // 2 + 1``, fold ``i % 2 + 1``. A scikit-learn
    splitter with an ``n_repeats`` attribute (``RepeatedKFold``,
    ``RepeatedStratifiedKFold``) yields ``n_splits / n_repeats`` folds per
    repetition. Any other splitter is one replication whose folds are its
    splits — unless its test sets overlap (``ShuffleSplit`` and friends), in
    which case every split is its own replication with a single validation fold
    (repeated hold-out).

    >>> from cvreport.partitions.splits import BlockRegularizedCV
    >>> cv = BlockRegularizedCV(m=3, random_state=0)
    >>> split_labels(cv, list(cv.split(range(8))))
    [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]
    """
    if isinstance(cv, _Mx2Splitter):
        return [(i // 2 + 1, i % 2 + 1) for i in range(len(splits))]
    n_repeats = getattr(cv, "n_repeats", None)
    if isinstance(n_repeats, (int, np.integer)) and n_repeats >= 1:
        if len(splits) % n_repeats:
            raise CVReportError(
                f"{type(cv).__name__} yielded {len(splits)} splits, which do not divide into "
                f"its n_repeats = {n_repeats} replications"
            )
        per = len(splits) // int(n_repeats)
        return [(i // per + 1, i % per + 1) for i in range(len(splits))]
    tested = np.concatenate([test for _, test in splits]) if splits else np.array([], int)
    if len(np.unique(tested)) < len(tested):
        return [(i + 1, 1) for i in range(len(splits))]
    return [(1, i + 1) for i in range(len(splits))]


def _fit_predict(
    clone: Any, estimator: Any, X: Any, y: Any, train: np.ndarray, test: np.ndarray
) -> np.ndarray:
    fitted = clone(estimator).fit(_take(X, train), _take(y, train))
    return np.asarray(fitted.predict(_take(X, test)))


def collect(
    estimators: Mapping[str, Any],
    X: Any,
    y: Any,
    *,
    cv: Any,
    n_jobs: int | None = None,
    groups: Any = None,
) -> ResultsTable:
    """Cross-validate every estimator on the same splits and keep each record's 0/1 loss.

    Parameters
    ----------
    estimators : dict of str to estimator
        Model name → scikit-learn classifier (pipelines welcome). Each is cloned
        and fitted afresh on every training set.
    X : array_like, sparse matrix or DataFrame
        Features, one row per record.
    y : array_like or Series
        Class labels.
    cv : splitter or int
        Any scikit-learn splitter (``BlockRegularizedCV``, ``RepeatedStratifiedKFold``,
        …) or what :func:`sklearn.model_selection.check_cv` accepts (an int means
        stratified K-fold). Every estimator sees the same splits.
    n_jobs : int, optional
        Fits run in parallel through joblib when given (``-1``: all cores).
    groups : array_like, optional
        Passed to ``cv.split`` for group-aware splitters.

    Returns
    -------
    ResultsTable
        Built by :meth:`ResultsTable.from_predictions`: per-record 0/1 losses
        (prediction ≠ truth), the predictions and the truth; records labelled by
        the row index (``X``'s index when it is a DataFrame with a unique index,
        else positions 0..n−1); replications and folds numbered from 1 as
        :func:`split_labels` describes.

    Raises
    ------
    ImportError
        When scikit-learn is not installed (the ``sklearn`` extra).
    DataError
        Fewer than two estimators, or ``X`` and ``y`` of different lengths.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.dummy import DummyClassifier
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from cvreport.partitions.splits import BlockRegularizedCV
    >>> X, y = load_iris(return_X_y=True)
    >>> table = collect({"nb": GaussianNB(), "majority": DummyClassifier()}, X, y,
    ...                 cv=BlockRegularizedCV(m=3, stratify=True, random_state=0))
    >>> table.design.kind, table.design.m, table.design.K, table.design.n_records
    ('mx2', 3, 2, 150)
    """
    clone, check_cv = _sklearn()
    if not isinstance(estimators, Mapping) or len(estimators) < 2:
        raise DataError(
            "collect() compares models: pass a dict of at least two named estimators, e.g. "
            "{'logistic': LogisticRegression(), 'tree': DecisionTreeClassifier()}"
        )
    names = list(estimators)
    if len({str(name) for name in names}) < len(names):
        raise DataError(f"estimator names must be distinct as text, got {describe_keys(names)}")
    n = len(y) if not hasattr(y, "shape") else int(y.shape[0])
    n_x = X.shape[0] if hasattr(X, "shape") else len(X)
    if n_x != n:
        raise DataError(f"X has {n_x} rows but y has {n} labels; pass one label per row of X")
    splitter = check_cv(cv, y, classifier=True)
    splits = [(np.asarray(train), np.asarray(test)) for train, test in splitter.split(X, y, groups)]
    if not splits:
        raise CVReportError(f"{type(splitter).__name__} yielded no splits")
    labels = split_labels(splitter, splits)

    jobs = [(name, s) for s in range(len(splits)) for name in names]
    if n_jobs is None or n_jobs == 1:
        predictions = [_fit_predict(clone, estimators[name], X, y, *splits[s]) for name, s in jobs]
    else:
        from joblib import Parallel, delayed

        predictions = Parallel(n_jobs=n_jobs)(
            delayed(_fit_predict)(clone, estimators[name], X, y, *splits[s]) for name, s in jobs
        )

    records = record_labels(X)
    truth = np.asarray(y)
    frames = []
    for (name, s), predicted in zip(jobs, predictions):
        test = splits[s][1]
        replication, fold = labels[s]
        frames.append(
            pd.DataFrame(
                {
                    "replication": np.full(len(test), replication, dtype=np.int64),
                    "fold": np.full(len(test), fold, dtype=np.int64),
                    "model": str(name),
                    "record": records[test],
                    "truth": truth[test],
                    "prediction": predicted.reshape(len(test)),
                }
            )
        )
    data = pd.concat(frames, ignore_index=True)

    from cvreport.data.table import ResultsTable

    return ResultsTable.from_predictions(data, truth="truth", prediction="prediction")
