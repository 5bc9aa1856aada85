"""Build the contents of a results table: validate, lay out, summarise.

Every constructor of :class:`~cvreport.data.table.ResultsTable` ends in one
:class:`TableContents`: the labels, the sufficient statistics, the design and
where the numbers came from. A backend builds it (:mod:`cvreport.data.backends`):
the in-memory one with the functions here and :mod:`cvreport.data.layout`, the
engine one with the engine's aggregations (:mod:`cvreport.data.pushdown`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.design import Design, design_kind
from cvreport.data.direction import name_direction, resolve_metric
from cvreport.data.labels import encode_labels
from cvreport.data.layout import RecordLayout, build_fold_score_layout, build_record_layout
from cvreport.data.metric import Direction, Metric
from cvreport.data.metrics import check_metric_range
from cvreport.data.sufficient import (
    FoldBlock,
    SufficientStatistics,
    counted_statistics,
    fold_score_statistics,
    sufficient_statistics,
)
from cvreport.data.validation import loss_values
from cvreport.errors import DataError, describe_keys
from cvreport.option_values import real_option

__all__ = [
    "ClusterRows",
    "TableContents",
    "as_loss",
    "check_ratio",
    "fold_score_contents",
    "key_or_constant",
    "misclassified",
    "prediction_frame",
    "record_contents",
    "record_metric",
    "records_repeat_across",
    "score_offset",
    "truth_and_prediction",
]


@dataclass(frozen=True, eq=False)
class ClusterRows:
    """The rows that name each record's cluster, read when the table is made.

    Attributes
    ----------
    frame : pandas.DataFrame
        Rows holding the ``record`` and ``cluster`` columns.
    record, cluster : str
        Their names.
    membership : tuple of (numpy.ndarray, numpy.ndarray), optional
        Record labels and their ``(n, m)`` fold positions, when the table's own
        statistics do not hold them (a metric computed per fold).
    """

    frame: pd.DataFrame
    record: str
    cluster: str
    membership: tuple[np.ndarray, np.ndarray] | None = None


def labels_of(index: pd.Index) -> tuple[Any, ...]:
    """The labels of an index as a tuple of Python values."""
    return tuple(index.tolist())


@dataclass(frozen=True, eq=False)
class TableContents:
    """Everything a :class:`~cvreport.data.table.ResultsTable` knows about its data.

    ``records``, ``blocks`` and ``membership`` are the per-record layout. ``blocks``
    is ``None`` when the statistics were found without it (a table held in another
    engine, or losses regrouped from rows in any order: 0/1 losses counted as
    patterns, real-valued losses summed per fold); ``layout`` then fetches or lays out
    the records when a per-record accessor first asks.
    """

    models: pd.Index
    replications: pd.Index
    folds: pd.Index
    stats: SufficientStatistics
    design: Design
    is_binary: bool
    per_record: bool
    loss_name: str
    source: str
    n_rows: int
    route: str
    metric: Metric = field(default_factory=lambda: Metric("loss", "lower"))
    direction_note: str = ""
    records: pd.Index | None = None
    blocks: tuple[FoldBlock, ...] | None = None
    formula: str | None = None
    test_train_ratio: float | None = None
    #: where ``test_train_ratio`` came from: "given", or how it was inferred
    test_train_ratio_note: str = "given"
    prediction_columns: dict[str, pd.Series] | None = None
    # blocks may be views of the loss column: holding the Series makes pandas
    # copy-on-write protect them from later edits of the user's DataFrame
    kept: tuple[pd.Series, ...] = ()
    layout: Callable[[], RecordLayout] | None = field(default=None, repr=False)
    fetch_predictions: Callable[[], pd.DataFrame] | None = field(default=None, repr=False)
    #: each record's truth and prediction or scores, for a metric computed from predictions
    record_predictions: Any = field(default=None, repr=False)
    #: the cluster role's rows, checked and audited once the table is made
    clusters: ClusterRows | None = field(default=None, repr=False)


def record_design(
    stats: SufficientStatistics, replications: pd.Index, folds: pd.Index, n_records: int
) -> Design:
    """The design of a per-record table from its statistics."""
    m, n_folds, _ = stats.shape
    assert stats.patterns is not None
    sizes = stats.counts[:, :, 0]
    return Design(
        kind=design_kind(m, n_folds),
        m=m,
        K=n_folds,
        n_records=n_records,
        per_record=True,
        complete=bool((stats.patterns.patterns >= 0).all()),
        replications=labels_of(replications),
        folds=labels_of(folds),
        sizes=tuple(int(n) for n in sizes.ravel()),
    )


def record_contents(
    data: pd.DataFrame,
    kept: pd.Series | None,
    values: np.ndarray,
    *,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
    loss_name: str,
    source: str,
    metric: Metric,
    direction_note: str,
    binary: bool | None = None,
) -> TableContents:
    """Validate per-record losses of a pandas DataFrame and summarise them.

    ``values`` are the internal losses (:func:`as_loss` of the user's metric);
    ``binary`` says whether they are all 0 or 1, when already known.
    """
    layout = build_record_layout(
        data,
        values,
        binary=binary,
        loss_what=f"loss {loss_name!r}",
        model=model,
        replication=replication,
        fold=fold,
        record=record,
    )
    shape = (len(layout.replications), len(layout.folds), len(layout.models))
    if layout.counted is not None:  # the blocks are laid out on first use
        stats = counted_statistics(*layout.counted, shape)
        blocks = None
    elif layout.summed is not None:  # so here too
        stats = layout.summed
        blocks = None
    else:
        stats = sufficient_statistics(
            layout.blocks, shape, binary=layout.is_binary, membership=layout.membership
        )
        blocks = layout.blocks
    return TableContents(
        models=layout.models,
        replications=layout.replications,
        folds=layout.folds,
        stats=stats,
        design=record_design(stats, layout.replications, layout.folds, len(layout.records)),
        is_binary=layout.is_binary,
        per_record=True,
        loss_name=loss_name,
        source=source,
        n_rows=data.shape[0],
        route=layout.route,
        metric=metric,
        direction_note=direction_note,
        records=layout.records,
        blocks=blocks,
        kept=() if kept is None else (kept,),
        layout=partial(_same, layout),
    )


def _same(layout: RecordLayout) -> RecordLayout:
    return layout


def fold_score_contents(
    data: pd.DataFrame,
    scores: pd.Series,
    *,
    model: str,
    replication: str | None,
    fold: str | None,
    direction: Direction | None,
    test_train_ratio: float | None,
    score_name: str,
    source: str,
    direction_note: str | None = None,
    test_train_ratio_note: str = "given",
) -> TableContents:
    """Validate one score per (replication, fold, model) and summarise it.

    ``direction_note`` and ``test_train_ratio_note`` say where a direction and a
    ratio that the caller inferred came from (default: given by the user).
    """
    values = loss_values(scores, f"score {score_name!r}")
    check_metric_range(values, score_name, f"score {score_name!r}")
    metric, how = resolve_metric(score_name, values, direction=direction, per_record=False)
    direction_note = direction_note or how
    higher_is_better = metric.higher_is_better
    layout = build_fold_score_layout(
        data,
        values,
        value_what=f"score {score_name!r}",
        model=model,
        replication=replication,
        fold=fold,
    )
    losses = -layout.values if higher_is_better else layout.values
    m, n_folds, _ = losses.shape
    return TableContents(
        models=layout.models,
        replications=layout.replications,
        folds=layout.folds,
        stats=fold_score_statistics(losses),
        design=Design(
            kind=design_kind(m, n_folds),
            m=m,
            K=n_folds,
            n_records=None,
            per_record=False,
            complete=False,
            replications=labels_of(layout.replications),
            folds=labels_of(layout.folds),
            sizes=None,
        ),
        is_binary=bool(np.isin(losses, (0.0, 1.0)).all()),
        per_record=False,
        loss_name=score_name,
        source=source,
        n_rows=data.shape[0],
        route="fold scores",
        metric=metric,
        direction_note=direction_note,
        test_train_ratio=check_ratio(test_train_ratio),
        test_train_ratio_note=test_train_ratio_note,
    )


def check_ratio(test_train_ratio: float | None) -> float | None:
    if test_train_ratio is None:
        return None
    requirement = (
        "a positive number (validation size / training size, e.g. 1.0 for 2-fold CV or 1/9 "
        "for 10-fold CV)"
    )
    ratio = real_option(
        test_train_ratio, "test_train_ratio", requirement, finite=False, error=DataError
    )
    if not math.isfinite(ratio) or ratio <= 0:
        raise DataError(
            f"test_train_ratio must be a positive number (validation size / training size, "
            f"e.g. 1.0 for 2-fold CV or 1/9 for 10-fold CV), got {test_train_ratio!r}"
        )
    return ratio


def key_or_constant(data: pd.DataFrame, column: str | None) -> pd.Series:
    if column is None:
        return pd.Series(np.ones(data.shape[0], dtype=np.int64), index=data.index)
    return data[column]


def records_repeat_across(data: pd.DataFrame, block: str, record: str) -> bool:
    """Whether some record appears in more than one group of ``block``."""
    block_codes, groups = encode_labels(data[block], block, "block", "sorted")
    record_codes, _ = encode_labels(data[record], record, "record", "sorted", code_dtype=np.int32)
    pairs = np.unique(record_codes.astype(np.int64) * len(groups) + block_codes)
    return bool(np.unique(pairs // len(groups)).shape[0] < pairs.shape[0])


def misclassified(
    truth: pd.Series, prediction: pd.Series, truth_name: str, prediction_name: str, index: pd.Index
) -> np.ndarray:
    """0/1 loss: 1 where the prediction differs from the truth."""
    for series, name in ((truth, truth_name), (prediction, prediction_name)):
        missing = series.isna().to_numpy()
        if missing.any():
            raise DataError(
                f"column {name!r} has {int(missing.sum())} missing value(s) (rows "
                f"{describe_keys(index[missing][:5].tolist())}); every row needs a truth and a "
                "prediction — drop or fill those rows"
            )
    numeric = [pd.api.types.is_numeric_dtype(s.dtype) for s in (truth, prediction)]
    if numeric[0] != numeric[1]:
        raise DataError(
            f"truth column {truth_name!r} ({truth.dtype}) and prediction column "
            f"{prediction_name!r} ({prediction.dtype}) hold different kinds of labels, so no "
            "prediction could ever match; convert them to the same type"
        )
    if numeric[1] and not pd.api.types.is_bool_dtype(prediction.dtype):
        values = prediction.to_numpy(dtype=np.float64)
        fractional = values != np.round(values)
        if fractional.any():
            labels = set(pd.unique(truth.astype(object)))
            foreign = [v for v in pd.unique(values[fractional]) if v not in labels]
            if foreign:
                raise DataError(
                    f"prediction column {prediction_name!r} holds fractional values such as "
                    f"{describe_keys([float(v) for v in foreign[:3]])}, which are no label of "
                    f"truth column {truth_name!r}: probabilities or scores? A prediction must "
                    "be a class label; threshold them first, e.g. (proba >= 0.5).astype(int)"
                )
    try:
        differs = truth != prediction
    except TypeError:  # e.g. categoricals with different categories
        differs = truth.astype(object) != prediction.astype(object)
    loss = differs.to_numpy(dtype=np.float64)
    if loss.shape[0] and loss.min() == 1.0:
        # every row wrong: fine for a tiny table, but not when no label is shared at all
        shared = set(pd.unique(truth.astype(object))) & set(pd.unique(prediction.astype(object)))
        if not shared:
            raise DataError(
                f"no prediction in column {prediction_name!r} equals any label in truth column "
                f"{truth_name!r} (predictions such as {describe_keys(prediction.iloc[:3].tolist())}"
                f"; truth labels such as {describe_keys(pd.unique(truth.iloc[:1000])[:3].tolist())}"
                "), so every row would count as "
                "an error; give predicted class labels (threshold scores or probabilities first) "
                "in the same coding as the truth"
            )
    return loss


def score_offset(metric: Metric) -> float:
    """0/1 hits become 0/1 errors (1 − hit), so McNemar's tests still apply; 0 otherwise."""
    return 1.0 if metric.higher_is_better and metric.unit == "proportion" else 0.0


def record_metric(
    name: str,
    values: np.ndarray,
    models: pd.Series,
    direction: Direction | None,
    *,
    binary: bool | None = None,
) -> tuple[Metric, str]:
    """The metric of per-record values, with each model's mean for the 0/1 check.

    The means can decide only when neither ``direction`` nor the name does, so
    only then are the models counted (a hashing pass over every row). ``binary``:
    whether every value is 0 or 1, when already known.
    """
    if direction is not None or name_direction(name) is not None:
        return resolve_metric(name, values, direction=direction, per_record=True, binary=binary)
    codes, _ = pd.factorize(models, sort=False)
    valid = codes >= 0
    counts = np.bincount(codes[valid])
    sums = np.bincount(codes[valid], weights=np.asarray(values, dtype=np.float64)[valid])
    means = sums[counts > 0] / counts[counts > 0]
    return resolve_metric(
        name, values, direction=direction, per_record=True, model_means=means, binary=binary
    )


def as_loss(values: np.ndarray, metric: Metric) -> np.ndarray:
    """The internal loss: a loss as is; 0/1 hits as 1 − hit; any other score negated."""
    if not metric.higher_is_better:
        return values
    return 1.0 - values if metric.unit == "proportion" else -values


_TRUTH_WORDS = ("true", "truth", "label", "target", "gold", "actual", "observed")


def truth_and_prediction(left: str, right: str) -> tuple[str, str]:
    """Which of two compared columns is the truth: by its name, else the right one."""

    def says_truth(name: str) -> bool:
        lowered = name.lower()
        return lowered == "y" or any(word in lowered for word in _TRUTH_WORDS)

    if says_truth(left) and not says_truth(right):
        return left, right
    return right, left


def prediction_frame(
    data: pd.DataFrame,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
    truth: str,
    prediction: str,
) -> dict[str, pd.Series]:
    """The keys, truth and prediction of every row, kept for descriptive metrics."""
    return {
        "replication": key_or_constant(data, replication),
        "fold": key_or_constant(data, fold),
        "model": data[model],
        "record": data[record],
        "truth": data[truth],
        "prediction": data[prediction],
    }
