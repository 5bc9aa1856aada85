"""Run the cross-validation with scikit-learn and keep every record's outcome.

:func:`collect` fits each estimator on every training set of a splitter and
returns a :class:`~cvreport.data.table.ResultsTable` of per-record 0/1 losses, or
of any metric from the predictions and probabilities (``metric="roc_auc"``,
``"log_loss"``, …), with the truth, predictions and scores kept, so that every
test and the overlap audit can run on the result. Given a mapping of data sets
it returns a :class:`~cvreport.data.datasets.DatasetsTable`. scikit-learn is an
optional dependency (the ``sklearn`` extra) and is imported only when
:func:`collect` is called.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.data.datasets import DatasetsTable
from cvreport.data.design import DesignKind
from cvreport.data.metrics import resolve_metric
from cvreport.data.predictions import positive_code
from cvreport.data.table import ResultsTable
from cvreport.errors import CVReportError, DataError, describe_keys
from cvreport.partitions.splits import _Mx2Splitter, record_labels

if TYPE_CHECKING:
    from cvreport.data.datasets import DatasetsTable
    from cvreport.data.metrics import MetricSpec
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


@dataclass(frozen=True)
class _Fitted:
    """One estimator's output on one validation set."""

    prediction: np.ndarray
    scores: np.ndarray | None  # (n, C) in the order of the data set's classes


def _fit_predict(
    clone: Any,
    estimator: Any,
    X: Any,
    y: Any,
    train: np.ndarray,
    test: np.ndarray,
    classes: np.ndarray,
) -> _Fitted:
    fitted = clone(estimator).fit(_take(X, train), _take(y, train))
    X_test = _take(X, test)
    prediction = np.asarray(fitted.predict(X_test)).reshape(len(test))
    method = _score_method(fitted)
    if method is None:
        return _Fitted(prediction, None)
    values = np.asarray(getattr(fitted, method)(X_test), dtype=np.float64)
    return _Fitted(prediction, _by_class(values, fitted, classes))


def _by_class(values: np.ndarray, fitted: Any, classes: np.ndarray) -> np.ndarray:
    """Scores as ``(n, C)`` in the order of ``classes``, whatever classes the fit saw."""
    seen = np.asarray(getattr(fitted, "classes_", classes))
    if values.ndim == 1:  # a binary decision function: the score of seen[1]
        values = np.column_stack([-values, values])
    out = np.zeros((values.shape[0], len(classes)))
    # a class absent from a training set gets probability 0 (and decision value 0)
    out[:, np.searchsorted(classes, seen)] = values[:, : len(seen)]
    return out


def _score_method(estimator: Any) -> str | None:
    """Where an estimator's scores come from: probabilities first, else decision values."""
    for method in ("predict_proba", "decision_function"):
        if hasattr(estimator, method):
            return method
    return None


def _check_scores(estimators: Mapping[str, Any], metric: Any) -> MetricSpec | None:
    """The metric's spec, checking (before any fit) that every estimator gives what it reads."""
    if metric is None:
        return None
    spec = resolve_metric(metric)
    if spec.needs != "score":
        return spec
    methods = {name: _score_method(estimator) for name, estimator in estimators.items()}
    missing = sorted({name for name, method in methods.items() if method is None})
    if missing:
        raise DataError(
            f"metric {spec.name!r} reads scores, but estimator(s) {describe_keys(missing)} have "
            "neither predict_proba nor decision_function; choose a metric of predicted labels "
            "(e.g. 'f1', 'balanced_accuracy') or estimators that give scores"
        )
    if spec.name in _PROBABILITY_METRICS:
        decision = sorted({n for n, m in methods.items() if m != "predict_proba"})
        if decision:
            raise DataError(
                f"metric {spec.name!r} reads probabilities, but estimator(s) "
                f"{describe_keys(decision)} have no predict_proba (only decision values); "
                "wrap them in sklearn.calibration.CalibratedClassifierCV or choose a rank "
                "metric such as 'roc_auc'"
            )
    return spec


_PROBABILITY_METRICS = ("log_loss", "brier_score_loss")


def _score_columns(classes: np.ndarray) -> list[str]:
    """The kept score columns: one per class, in sorted class order."""
    return [f"score_{label}" for label in classes]


def _score_argument(spec: MetricSpec, columns: list[str], positive: int) -> str | list[str] | None:
    """What ``score=`` names for a metric: nothing, the positive class, or every class.

    Log loss reads the probability of each record's own class, so it gets every
    column (``1 − p`` of the positive class would round away a tiny probability);
    the other metrics of two classes read the positive class.
    """
    if spec.needs != "score":
        return None
    if len(columns) == 2 and spec.name != "log_loss":
        return columns[positive]
    return columns


def collect(
    estimators: Mapping[str, Any],
    X: Any,
    y: Any = None,
    *,
    cv: Any,
    metric: str | Callable[..., float] | None = None,
    pos_label: Any = None,
    n_jobs: int | None = None,
    groups: Any = None,
) -> ResultsTable | DatasetsTable:
    """Cross-validate every estimator on the same splits and keep each record's outcome.

    Parameters
    ----------
    estimators : dict of str to estimator
        Model name → scikit-learn classifier (pipelines welcome). Each is cloned
        and fitted afresh on every training set.
    X : array_like, sparse matrix, DataFrame, or mapping
        Features, one row per record; or, for many data sets, a mapping of data
        set name → ``(X, y)`` (then leave ``y`` out).
    y : array_like or Series
        Class labels (one data set).
    cv : splitter or int
        Any scikit-learn splitter (``BlockRegularizedCV``, ``RepeatedStratifiedKFold``,
        …) or what :func:`sklearn.model_selection.check_cv` accepts (an int means
        stratified K-fold). Every estimator sees the same splits; with many data
        sets each is split by it in turn.
    metric : str or callable, optional
        The metric of the table, as in :meth:`ResultsTable.from_predictions
        <cvreport.data.table.ResultsTable.from_predictions>` (``"roc_auc"``,
        ``"log_loss"``, ``"brier_score_loss"``, ``"f1"``, …). By default the
        table holds 0/1 losses (misclassifications), as before.
    pos_label : label, optional
        The positive class of a binary problem (default: the larger label).
    n_jobs : int, optional
        Fits run in parallel through joblib when given (``-1``: all cores).
    groups : array_like or mapping, optional
        Passed to ``cv.split`` for group-aware splitters (a mapping of data set
        name → groups for many data sets).

    Returns
    -------
    ResultsTable or DatasetsTable
        Built by :meth:`ResultsTable.from_predictions` from one row per
        (replication, fold, model, record): the truth, the prediction and, for
        estimators with ``predict_proba`` (else ``decision_function``), the
        scores of every record, one column ``score_<label>`` per class (NaN for
        an estimator with neither). :meth:`predictions` returns them, so any
        other metric can be computed later. Records are
        labelled by the row index (``X``'s index when it is a DataFrame with a
        unique index, else positions 0..n−1); replications and folds numbered
        from 1 as :func:`split_labels` describes. Given a mapping of data sets, a
        :class:`~cvreport.data.datasets.DatasetsTable` of one such table per data
        set.

    Raises
    ------
    ImportError
        When scikit-learn is not installed (the ``sklearn`` extra).
    DataError
        Fewer than two estimators, ``X`` and ``y`` of different lengths, a
        metric that reads scores (probabilities) an estimator does not give, or
        a mapping of data sets together with ``y``. A data set's error names it.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer, load_iris, load_wine
    >>> from sklearn.dummy import DummyClassifier
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from cvreport.partitions.splits import BlockRegularizedCV
    >>> models = {"nb": GaussianNB(), "majority": DummyClassifier()}
    >>> cv = BlockRegularizedCV(m=3, stratify=True, random_state=0)
    >>> X, y = load_iris(return_X_y=True)
    >>> table = collect(models, X, y, cv=cv)
    >>> table.design.kind, table.design.m, table.design.K, table.design.n_records
    ('mx2', 3, 2, 150)
    >>> list(table.predictions().columns)
    ['replication', 'fold', 'model', 'record', 'truth', 'prediction', 'score_0', 'score_1', 'score_2']

    The probabilities give any metric, here one AUC per fold:

    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> auc = collect(models, X, y, cv=cv, metric="roc_auc")
    >>> auc.metric.name, auc.per_record, auc.has_records
    ('roc_auc', False, True)
    >>> round(float(auc.to_metric(auc.fold_errors().query("model == 'majority'")["loss"]).max()), 2)
    0.5

    Many data sets give a :class:`~cvreport.data.datasets.DatasetsTable`:

    >>> multi = collect(models, {"iris": load_iris(return_X_y=True),
    ...                          "wine": load_wine(return_X_y=True)}, cv=cv, metric="log_loss")
    >>> multi.datasets, multi.level, multi.metric.direction
    (('iris', 'wine'), 'record', 'lower')
    """
    _sklearn()  # without scikit-learn, say which extra to install before anything else
    if not isinstance(estimators, Mapping) or len(estimators) < 2:
        raise DataError(
            "collect() compares models: pass a dict of at least two named estimators, e.g. "
            "{'logistic': LogisticRegression(), 'tree': DecisionTreeClassifier()}"
        )
    names = list(estimators)
    if len({str(name) for name in names}) < len(names):
        raise DataError(f"estimator names must be distinct as text, got {describe_keys(names)}")
    if isinstance(X, Mapping):
        return _collect_datasets(
            estimators,
            X,
            y,
            cv=cv,
            metric=metric,
            pos_label=pos_label,
            n_jobs=n_jobs,
            groups=groups,
        )
    if y is None:
        raise DataError(
            "collect() needs the class labels y (or, for many data sets, a mapping of data set "
            "name → (X, y) in place of X)"
        )
    return _collect_one(
        estimators, X, y, cv=cv, metric=metric, pos_label=pos_label, n_jobs=n_jobs, groups=groups
    )


def _collect_one(
    estimators: Mapping[str, Any],
    X: Any,
    y: Any,
    *,
    cv: Any,
    metric: Any,
    pos_label: Any,
    n_jobs: int | None,
    groups: Any,
) -> ResultsTable:
    """The table of one data set."""
    clone, check_cv = _sklearn()
    spec = _check_scores(estimators, metric)
    data, columns, positive, fitted = _collect_frame(
        clone,
        check_cv,
        estimators,
        X,
        y,
        cv=cv,
        pos_label=pos_label,
        n_jobs=n_jobs,
        groups=groups,
    )
    return _table(data, columns, positive, spec, metric, pos_label, fitted)


@dataclass(frozen=True)
class _FittedSizes:
    """What collect knows and a table of validation records cannot: the data set's size
    and the size of every training set it fitted."""

    n: int
    train: np.ndarray
    test: np.ndarray


def _with_fitted_sizes(table: ResultsTable, fitted: _FittedSizes) -> ResultsTable:
    """A hold-out table with the data set's size and n2/n1 from the fitted training sets.

    A repeated hold-out table lists only the records some split validated (ten splits of
    10 % leave about a third out), so the data set's size and the training sizes it would
    infer from them are too small (Nadeau & Bengio 2003's n2/n1 then too large). K-fold
    and m×2 tables validate every record once per replication and infer both exactly.
    """
    design = table.design
    if design.kind not in (DesignKind.HOLDOUT, DesignKind.REPEATED_HOLDOUT):
        return table
    train = int(fitted.train.sum())
    ratio = float(fitted.test.sum()) / train
    low, high = int(fitted.train.min()), int(fitted.train.max())
    sizes = f"{low}" if low == high else f"{low} to {high}"
    contents = replace(
        table._contents,
        design=replace(design, n_records=fitted.n),
        test_train_ratio=ratio,
        test_train_ratio_note=(
            f"from the training sets collect fitted ({int(fitted.test.sum())} validation "
            f"over {train} training records; {sizes} of the {fitted.n} records each)"
        ),
    )
    table._adopt_contents(contents)
    table.__dict__.pop("_train_sizes", None)
    return table


def _checked_cv(cv: Any) -> Any:
    """``cv`` for sklearn's ``check_cv``; a number of folds must be an int ≥ 2."""
    if isinstance(cv, str | bool | np.bool_ | float) or (
        isinstance(cv, numbers.Integral) and cv < 2
    ):
        raise CVReportError(
            f"cv must be a splitter (e.g. BlockRegularizedCV(m=5) or sklearn's StratifiedKFold) "
            f"or an int number of folds ≥ 2, got {cv!r}"
        )
    return int(cv) if isinstance(cv, numbers.Integral) else cv


def _collect_frame(
    clone: Any,
    check_cv: Any,
    estimators: Mapping[str, Any],
    X: Any,
    y: Any,
    *,
    cv: Any,
    pos_label: Any,
    n_jobs: int | None,
    groups: Any,
) -> tuple[pd.DataFrame, list[str], int, _FittedSizes]:
    """One row per (replication, fold, model, record): truth, prediction and scores.

    Also the score columns (one per class), the position of the positive class and the
    sizes of the data set and of every training and validation set.
    """
    names = list(estimators)
    n = len(y) if not hasattr(y, "shape") else int(y.shape[0])
    n_x = X.shape[0] if hasattr(X, "shape") else len(X)
    if n_x != n:
        raise DataError(f"X has {n_x} rows but y has {n} labels; pass one label per row of X")
    truth = np.asarray(y)
    if pd.isna(truth).any():
        raise DataError("y has missing labels; drop those records or fill their labels")
    classes = np.unique(truth)
    positive = positive_code(pd.Index(classes), pos_label)
    splitter = check_cv(_checked_cv(cv), y, classifier=True)
    n_groups = None if groups is None else np.asarray(groups, dtype=object).reshape(-1).shape[0]
    if n_groups is not None and n_groups != n:
        raise DataError(
            f"groups has {n_groups} labels but X has {n} rows; pass one group per row of X"
        )
    splits = [(np.asarray(train), np.asarray(test)) for train, test in splitter.split(X, y, groups)]
    if not splits:
        raise CVReportError(f"{type(splitter).__name__} yielded no splits")
    labels = split_labels(splitter, splits)

    jobs = [(name, s) for s in range(len(splits)) for name in names]
    if n_jobs is None or n_jobs == 1:
        fits = [
            _fit_predict(clone, estimators[name], X, y, *splits[s], classes) for name, s in jobs
        ]
    else:
        from joblib import Parallel, delayed

        fits = Parallel(n_jobs=n_jobs)(
            delayed(_fit_predict)(clone, estimators[name], X, y, *splits[s], classes)
            for name, s in jobs
        )

    records = record_labels(X)
    score_names = _score_columns(classes)
    frames = []
    for (name, s), fit in zip(jobs, fits):
        test = splits[s][1]
        replication, fold = labels[s]
        frame = pd.DataFrame(
            {
                "replication": np.full(len(test), replication, dtype=np.int64),
                "fold": np.full(len(test), fold, dtype=np.int64),
                "model": str(name),
                "record": records[test],
                "truth": truth[test],
                "prediction": fit.prediction,
            }
        )
        scores = (
            fit.scores if fit.scores is not None else np.full((len(test), len(classes)), np.nan)
        )
        for column, values in zip(score_names, scores.T):
            frame[column] = values
        frames.append(frame)
    data = pd.concat(frames, ignore_index=True)
    fitted = _FittedSizes(
        n=n,
        train=np.array([len(train) for train, _ in splits], dtype=np.int64),
        test=np.array([len(test) for _, test in splits], dtype=np.int64),
    )
    return data, score_names, positive, fitted


def _table(
    data: pd.DataFrame,
    columns: list[str],
    positive: int,
    spec: MetricSpec | None,
    metric: Any,
    pos_label: Any,
    fitted: _FittedSizes,
) -> ResultsTable:
    if spec is None:
        table = ResultsTable.from_predictions(data, truth="truth", prediction="prediction")
    else:
        table = ResultsTable.from_predictions(
            data,
            truth="truth",
            prediction="prediction",
            score=_score_argument(spec, columns, positive),
            metric=metric,
            pos_label=pos_label,
        )
    table = _with_fitted_sizes(table, fitted)
    # keep every record's scores beside the truth and the prediction, for any later metric
    kept = dict(table._prediction_columns or {})
    for column in columns:
        kept[column] = data[column]
    table._prediction_columns = kept
    return table


def _collect_datasets(
    estimators: Mapping[str, Any],
    datasets: Mapping[Any, Any],
    y: Any,
    *,
    cv: Any,
    metric: Any,
    pos_label: Any,
    n_jobs: int | None,
    groups: Any,
) -> DatasetsTable:
    if y is not None:
        raise DataError(
            "X is a mapping of data sets, each with its own labels: give data set name → "
            "(X, y) and leave y out"
        )
    if groups is not None and not isinstance(groups, Mapping):
        raise DataError("with many data sets give groups as a mapping of data set name → groups")
    tables: dict[Any, ResultsTable] = {}
    for name, pair in datasets.items():
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise DataError(
                f"data set {name!r}: expected a pair (X, y), got {type(pair).__name__}; "
                "sklearn's load_*(return_X_y=True) gives one"
            )
        try:
            tables[name] = _collect_one(
                estimators,
                pair[0],
                pair[1],
                cv=cv,
                metric=metric,
                pos_label=pos_label,
                n_jobs=n_jobs,
                groups=None if groups is None else groups.get(name),
            )
        except CVReportError as error:
            raise type(error)(f"data set {name!r}: {error}") from error
    return DatasetsTable(tables)
