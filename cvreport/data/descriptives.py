"""Descriptive statistics of a results table: what a report shows beside the tests.

Each model's metric over the folds, the per-fold differences of a pair, McNemar's
counts on a hold-out split and the confusion-matrix metrics pooled over the folds,
computed from the table (:mod:`cvreport.data.metrics` for the confusion matrices)
so that :func:`cvreport.reporting.analyse.analyse` only collects them.

Examples
--------
>>> import cvreport
>>> table = cvreport.ResultsTable.from_formula(
...     "loss ~ model | replication + fold", cvreport.load_example())
>>> row = model_summaries(table)[0]
>>> row["model"], row["folds"]
('logistic_regression', 10)
>>> sum(holdout_counts(table, "logistic_regression", "naive_bayes").values())  # 569 × 5
2845
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.data.metric import Metric
from cvreport.data.metrics import confusion_counts, confusion_metric
from cvreport.errors import CVReportError

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "confusion_metrics",
    "holdout_counts",
    "mean_differences",
    "metric_of",
    "model_summaries",
]


def metric_of(table: Any) -> Metric:
    """The table's :class:`Metric`; from ``loss_name``/``higher_is_better`` for a stand-in table."""
    metric = getattr(table, "metric", None)
    if isinstance(metric, Metric):
        return metric
    higher = bool(getattr(table, "higher_is_better", False))
    name = str(getattr(table, "loss_name", "loss"))
    if getattr(table, "is_binary", False) and not higher:
        name = "error rate"
    return Metric(name, "higher" if higher else "lower")


def _to_metric(table: Any, losses: np.ndarray) -> np.ndarray:
    convert = getattr(table, "to_metric", None)
    if callable(convert):
        return np.asarray(convert(losses), dtype=float)
    return -losses if metric_of(table).higher_is_better else losses


def model_summaries(table: ResultsTable) -> list[dict[str, Any]]:
    """Mean, SD, min and max over the folds of each model's metric (a score as given)."""
    errors = table.fold_errors()
    rows = []
    for model in table.models:
        losses = errors.loc[errors["model"] == model, "loss"].to_numpy(dtype=float)
        values = _to_metric(table, losses)
        rows.append(
            {
                "model": str(model),
                "mean": float(values.mean()) if values.size else None,
                "sd": float(values.std(ddof=1)) if values.size > 1 else None,
                "min": float(values.min()) if values.size else None,
                "max": float(values.max()) if values.size else None,
                "folds": int(values.size),
            }
        )
    return rows


def mean_differences(table: ResultsTable, a: str, b: str) -> pd.DataFrame | None:
    """Per-fold differences metric(A) − metric(B), or None when the table cannot give them."""
    try:
        return table.differences(a, b)
    except CVReportError:
        return None


def holdout_counts(table: ResultsTable, a: str, b: str) -> dict[str, int] | None:
    """McNemar's b (A wrong, B right) and c (A right, B wrong) summed over the folds."""
    if not (getattr(table, "per_record", False) and getattr(table, "is_binary", False)):
        return None
    contingency = getattr(table, "contingency", None)
    if not callable(contingency):
        return None
    try:
        counts = contingency(a, b)
    except CVReportError:
        return None
    return {
        "both_wrong": int(counts["n00"].sum()),
        "b": int(counts["n01"].sum()),
        "c": int(counts["n10"].sum()),
        "both_right": int(counts["n11"].sum()),
    }


_CONFUSION_COLUMNS = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced_accuracy",
    "precision": "precision_macro",
    "recall": "recall_macro",
    "f1": "f1_macro",
}


def confusion_metrics(table: ResultsTable) -> dict[str, Any] | None:
    """Accuracy, balanced accuracy and macro precision/recall/F1 per model, pooled over folds.

    From the kept truth and predictions (tables from
    :meth:`~cvreport.data.table.ResultsTable.from_predictions` or a formula
    ``{prediction != truth} ~ …``), computed by :mod:`cvreport.data.metrics` from each
    model's confusion matrix with scikit-learn's definitions: macro averages over the
    classes seen in the truth or the predictions, 0 for a class never predicted,
    balanced accuracy the mean recall over the classes in the truth.
    """
    predictions = getattr(table, "predictions", None)
    frame = predictions() if callable(predictions) else None
    if frame is None or len(frame) == 0:
        return None
    classes = sorted(
        pd.unique(pd.concat([frame["truth"], frame["prediction"]]).astype(object)).tolist(),
        key=str,
    )
    index = pd.Index(classes, dtype=object)
    models = pd.Index(list(table.models), dtype=object)
    groups = models.get_indexer(frame["model"].astype(object))
    kept = groups >= 0
    counts = confusion_counts(
        groups[kept],
        len(models),
        index.get_indexer(frame["truth"].astype(object))[kept],
        index.get_indexer(frame["prediction"].astype(object))[kept],
        len(classes),
    )
    values = {key: confusion_metric(name, counts) for key, name in _CONFUSION_COLUMNS.items()}
    rows = []
    for position, model in enumerate(models):
        n = int(counts[position].sum())
        if not n:
            continue
        rows.append(
            {"model": str(model), "n": n}
            | {key: float(column[position]) for key, column in values.items()}
        )
    return {"classes": [str(c) for c in classes], "rows": rows}
