"""Tables of a metric computed from per-record predictions, and the records behind them.

:meth:`ResultsTable.from_predictions` with ``metric=`` comes here. A metric that
is a mean of per-record values (accuracy, log loss, Brier score) becomes a table
of per-record values, so every record-level test applies; any other metric
(AUC, F1, MCC, ...) is computed once per (replication, fold, model) by
:func:`cvreport.data.metrics.grouped_metric_values` and the table holds those
per-fold values, which every fold-level test reads. Either way the truth,
predictions, scores and clusters are kept for the tests that need the records
(DeLong, paired bootstrap and permutation, clustered standard errors);
:func:`record_pairs` hands them out model pair by model pair, fold by fold.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from cvreport.data.build import (
    ClusterRows,
    TableContents,
    fold_score_contents,
    key_or_constant,
    record_contents,
)
from cvreport.data.direction import Provenance
from cvreport.data.labels import encode_labels
from cvreport.data.layout import RecordLayout, build_record_layout
from cvreport.data.metric import Metric
from cvreport.data.metrics import (
    MetricSpec,
    check_predictions,
    grouped_metric_values,
    reader_name,
    record_values,
    resolve_metric,
    warn_hard_scores,
)
from cvreport.data.roles import MetricCall, Roles, metric_call
from cvreport.data.sufficient import membership_patterns
from cvreport.data.validation import require_columns
from cvreport.errors import (
    DataError,
    DesignError,
    ReversedScoreWarning,
    describe_keys,
    user_stacklevel,
)

ResultsTable = TypeVar("ResultsTable")
"""The table class of :mod:`cvreport.data.table`, which passes itself in as ``cls``."""

__all__ = [
    "FoldRecords",
    "MetricCall",
    "RecordPredictions",
    "metric_call",
    "metric_contents",
    "record_pairs",
    "refuse_labels_of_two_kinds",
]


REVERSED_AUC = 0.3
"""Every model's AUC below this (0.5 is chance) reads as a score of the other class."""


@dataclass(frozen=True)
class RecordPredictions:
    """What a table built from predictions keeps of its records, as arrays.

    Attributes
    ----------
    spec : MetricSpec
        The table's metric.
    classes : pandas.Index
        The class labels, sorted; codes index them.
    positive : int
        Code of the positive class.
    positive_source : Provenance
        Whether the positive class was given (``pos_label``) or is the larger label.
    frame : pandas.DataFrame
        One row per input row: ``replication, fold, model, record`` labels,
        ``truth`` and ``prediction`` codes (−1 where there is none), ``cluster``
        labels when given, and the score columns ``score_0 … score_{C−1}`` (or a
        single ``score`` column for the positive class).
    """

    spec: MetricSpec
    classes: pd.Index
    positive: int
    frame: pd.DataFrame
    positive_source: Provenance = Provenance.GIVEN

    @property
    def score_columns(self) -> list[str]:
        """The score columns of :attr:`frame` (empty when there are none)."""
        return [c for c in self.frame.columns if c == "score" or c.startswith("score_")]

    def reversed_scores(self, holder: str = "the score") -> str | None:
        """Why the scores look like another class's, or None.

        When every model's AUC, pooled over its records, is below
        :data:`REVERSED_AUC` (0.5 is chance), the one score column almost surely holds
        the probability of the other class (``predict_proba(X)[:, 0]``): its AUC and
        average precision, and the ranking of the models, are reversed. The AUC is the
        Mann–Whitney statistic (Hanley & McNeil 1982). Only a ranking metric on a
        single score column of two classes is checked.
        """
        if self.spec.kind != "rank" or len(self.classes) != 2 or "score" not in self.frame:
            return None
        aucs = {}
        for model, rows in self.frame.groupby("model", sort=False):
            positive = rows["truth"].to_numpy() == self.positive
            n1, n0 = int(positive.sum()), int((~positive).sum())
            if n1 == 0 or n0 == 0:
                return None
            ranks = rankdata(rows["score"].to_numpy(dtype=np.float64))
            aucs[model] = (ranks[positive].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)
        if not aucs or max(aucs.values()) >= REVERSED_AUC:
            return None
        shown = ", ".join(f"{model} {auc:.4f}" for model, auc in aucs.items())
        labels = [v.item() if isinstance(v, np.generic) else v for v in self.classes]
        positive_label, other = labels[self.positive], labels[1 - self.positive]
        how = (
            "given as pos_label"
            if self.positive_source is Provenance.GIVEN
            else "inferred: the larger of the two sorted labels"
        )
        return (
            f"every model's AUC is far below 0.5 ({shown}, pooled over the records): "
            f"{holder} looks like the probability of class {other!r}, not of the positive "
            f"class {positive_label!r} ({how}), which reverses the AUC, the average "
            "precision and the ranking of the models. Give the positive class's probability "
            f"as the score (predict_proba(X)[:, {self.positive}] for class {positive_label!r}, "
            "the classes in sorted order), or pass "
            f"pos_label={other!r} if the scores are for class {other!r}"
        )


def refuse_labels_of_two_kinds(
    classes: pd.Index, truth: str, truth_kind: object, prediction: str, prediction_kind: object
) -> None:
    """Truth "1" and prediction 1 are two classes to Python: no prediction would ever match.

    ``classes`` are the distinct labels of the truth and the predictions together;
    the kinds (dtypes) are shown in the message, in the words of the 0/1 loss of
    labels (``build.misclassified``).
    """
    if classes.dtype != object or classes.shape[0] < 2:
        return
    text = pd.Series(classes.map(str))
    alike = text.duplicated(keep=False).to_numpy()
    if not alike.any():
        return
    first = text[alike].iloc[0]
    shown = describe_keys(list(classes[(text == first).to_numpy()]))
    raise DataError(
        f"{truth} ({truth_kind}) and {prediction} ({prediction_kind}) hold "
        f"different kinds of labels that read the same ({shown}), so no prediction could "
        "ever match; convert them to the same type (e.g. both to int, or both to str)"
    )


def _class_codes(
    data: pd.DataFrame, truth: str, prediction: str | None
) -> tuple[np.ndarray, np.ndarray | None, pd.Index]:
    columns = [truth] + ([prediction] if prediction is not None else [])
    for column in columns:
        if data[column].isna().any():
            raise DataError(
                f"column {column!r} has missing values; every row needs a truth and a "
                "prediction — drop or fill those rows"
            )
    stacked = pd.concat([data[c] for c in columns], ignore_index=True)
    codes, classes = pd.factorize(stacked, sort=True)
    n = data.shape[0]
    if prediction is not None:
        refuse_labels_of_two_kinds(
            pd.Index(classes),
            f"truth column {truth!r}",
            data[truth].dtype,
            f"prediction column {prediction!r}",
            data[prediction].dtype,
        )
    return codes[:n], (codes[n:] if prediction is not None else None), pd.Index(classes)


def metric_contents(data: pd.DataFrame, roles: Roles) -> TableContents:
    """The contents of a metric from per-record predictions (see :meth:`ResultsTable.from_predictions
    <cvreport.data.table.ResultsTable.from_predictions>`).

    ``roles.direction`` is needed only for a function whose name does not tell it;
    for a named metric it must agree with the metric's own.
    """
    truth, prediction, score = str(roles.truth), roles.prediction, roles.score
    model, replication, fold = roles.model, roles.replication, roles.fold
    record, cluster, direction = str(roles.record), roles.cluster, roles.direction
    spec = resolve_metric(
        roles.metric,
        direction=direction,
        needs="score" if score is not None else None,
    )
    if direction is not None and direction != spec.metric.direction:
        raise DataError(
            f"direction={direction!r} contradicts the metric {spec.name!r}, for which "
            f"{spec.metric.direction} is better; leave direction out"
        )
    named: dict[str, str | None] = {
        "truth": truth,
        "model": model,
        "replication": replication,
        "fold": fold,
        "record": record,
        "cluster": cluster,
        "prediction": prediction,
    }
    require_columns(data, named, roles.how_to_name(data.columns))
    if spec.needs == "prediction" and prediction is None:
        raise DataError(f"metric {spec.name!r} needs predicted labels: name them with prediction=")
    if spec.needs == "score" and score is None:
        raise DataError(
            f"metric {spec.name!r} needs scores (probabilities or decision values): name the "
            "column of the positive class with score=, or one column per class"
        )
    truth_codes, prediction_codes, classes = _class_codes(data, truth, prediction)
    positive = positive_code(classes, roles.pos_label)
    scores = score_matrix(data, score, classes) if score is not None else None
    check_predictions(
        spec,
        truth_codes,
        prediction=prediction_codes,
        scores=scores,
        labels=list(classes),
        score_names=_score_names(score),
        truth_name=truth,
        prediction_name=str(prediction),
        row_names=data.index,
        score_dtypes=_score_dtypes(data, score),
    )
    if isinstance(score, str):  # one score column: the positive class's
        warn_hard_scores(spec, scores, f"column {score!r}")
    if spec.binary_only and len(classes) != 2:
        raise DataError(
            f"{spec.name!r} is defined for two classes, but the data hold {len(classes)} "
            f"({list(classes)[:5]}); use e.g. f1_macro or roc_auc_ovr"
        )
    if scores is not None and scores.ndim == 1 and len(classes) > 2 and spec.kind != "callable":
        raise DataError(
            f"one score column was given for {len(classes)} classes; give one column per class"
        )

    layout = build_record_layout(
        data,
        np.zeros(data.shape[0]),
        loss_what="predictions",
        model=model,
        replication=replication,
        fold=fold,
        record=record,
    )
    n_rows = data.shape[0]
    where = ", ".join(
        f"{role} {column!r}"
        for role, column in (
            ("model", model),
            ("replication", replication),
            ("fold", fold),
            ("record", record),
        )
        if column is not None
    )
    if spec.decomposable:
        values = record_values(
            spec, truth_codes, prediction=prediction_codes, scores=scores, positive=positive
        )
        proportion = spec.name in ("accuracy", "zero_one_loss")
        shown = Metric(spec.name, spec.metric.direction, "proportion" if proportion else "")
        # the internal loss: 0/1 hits become 0/1 errors (McNemar's tests apply), a loss stays
        losses = 1.0 - values if spec.metric.higher_is_better else values
        contents = record_contents(
            data,
            None,
            losses,
            model=model,
            replication=replication,
            fold=fold,
            record=record,
            loss_name=spec.name,
            source=f"per-record {spec.name} from predictions in a {n_rows:,}-row DataFrame: {where}",
            metric=shown,
            direction_note=Provenance.METRIC,
        )
    else:
        rep_codes, reps = _codes(data, replication, "replication", "sorted")
        fold_codes, folds = _codes(data, fold, "fold", "sorted")
        model_codes, models = _codes(data, model, "model", "appearance")
        shape = (len(reps), len(folds), len(models))
        groups = (rep_codes * shape[1] + fold_codes) * shape[2] + model_codes
        n_groups = shape[0] * shape[1] * shape[2]
        values = grouped_metric_values(
            spec,
            groups,
            n_groups,
            truth_codes,
            len(classes),
            prediction=prediction_codes,
            scores=scores,
            positive=positive,
            labels=list(classes),
            describe_group=lambda g: "replication {!r}, fold {!r}, model {!r}".format(
                *(
                    index.tolist()[c]
                    for index, c in zip((reps, folds, models), np.unravel_index(g, shape))
                )
            ),
        )
        i, j, k = np.unravel_index(np.arange(n_groups), shape)
        frame = pd.DataFrame(
            {
                "model": models.take(k),
                "replication": reps.take(i),
                "fold": folds.take(j),
                "value": values,
            }
        ).sort_values("model", key=lambda s: pd.Series(k, index=s.index), kind="stable")
        undefined = np.isnan(frame["value"].to_numpy())
        if undefined.any():
            keys = list(
                frame.loc[undefined, ["replication", "fold", "model"]].itertuples(index=False)
            )
            raise undefined_groups_error(spec, [tuple(key) for key in keys])
        contents = replace(
            with_records(
                layout,
                fold_score_contents(
                    frame,
                    frame["value"],
                    model="model",
                    replication="replication",
                    fold="fold",
                    direction=spec.metric.direction,
                    test_train_ratio=_test_train_ratio(layout.blocks, shape, len(layout.records)),
                    score_name=spec.name,
                    direction_note=Provenance.METRIC,
                    test_train_ratio_note=Provenance.FOLD_SIZES,
                    source=(
                        f"{_named(spec.name)} computed "
                        f"{'per fold' if shape[0] * shape[1] > 1 else 'on the one validation set'}"
                        f" from predictions in a {n_rows:,}-row "
                        f"DataFrame: {where}"
                    ),
                ),
            ),
            n_rows=n_rows,
        )
    clusters = None
    if cluster is not None:
        membership = (layout.records.to_numpy(), layout.membership)
        clusters = ClusterRows(data, record, cluster, membership)
    kept = RecordPredictions(
        spec=spec,
        classes=classes,
        positive=positive,
        frame=_record_frame(
            data, model, replication, fold, record, truth_codes, prediction_codes, scores, cluster
        ),
        positive_source=Provenance.LARGER_LABEL if roles.pos_label is None else Provenance.GIVEN,
    )
    reversed_note = kept.reversed_scores(f"column {score!r}") if isinstance(score, str) else None
    if reversed_note:
        warnings.warn(
            reversed_note[:1].upper() + reversed_note[1:],
            ReversedScoreWarning,
            stacklevel=user_stacklevel(),
        )
    return replace(
        contents,
        formula=roles.formula,
        clusters=clusters,
        # the report's confusion table reads these; a table of scores only has no predicted labels
        prediction_columns=(
            None
            if prediction is None
            else _kept_columns(data, model, replication, fold, record, truth, prediction, cluster)
        ),
        record_predictions=kept,
    )


def with_records(layout: RecordLayout, contents: TableContents) -> TableContents:
    """Per-fold metric contents that also know which record was in which fold.

    A metric that is not a mean of per-record values is tested on its per-fold
    values (``per_record`` stays ``False``), but the records' fold membership
    is known: the overlap audit, the balance verdict and the report's record
    counts read it (:attr:`ResultsTable.has_records
    <cvreport.data.table.ResultsTable.has_records>`), as for the table of 0/1
    losses of the same rows.
    """
    patterns = (
        layout.counted[1]
        if layout.counted is not None
        else membership_patterns(layout.membership, len(layout.folds))
    )
    m, n_folds = len(layout.replications), len(layout.folds)
    sizes = np.zeros((m, n_folds), dtype=np.int64)
    for i in range(m):
        present = patterns.patterns[:, i] >= 0
        sizes[i] = np.bincount(
            patterns.patterns[present, i], weights=patterns.counts[present], minlength=n_folds
        ).astype(np.int64)
    design = replace(
        contents.design,
        n_records=len(layout.records),
        complete=bool((patterns.patterns >= 0).all()),
        sizes=tuple(int(size) for size in sizes.ravel()),
    )
    return replace(
        contents,
        stats=replace(contents.stats, patterns=patterns),
        design=design,
        records=layout.records,
        layout=lambda: layout,
    )


def _score_dtypes(
    data: pd.DataFrame, score: str | Sequence[str] | Mapping[Any, str] | None
) -> list[Any]:
    """The dtypes of the score columns as the data hold them (before they become numbers)."""
    if score is None:
        return []
    columns = (
        [score]
        if isinstance(score, str)
        else list(score.values() if isinstance(score, Mapping) else score)
    )
    return [_held_dtype(data[column]) for column in columns if column in data]


def _held_dtype(column: pd.Series) -> Any:
    """A column's dtype; Python's True/False in an object column count as booleans."""
    if column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) == "boolean":
        return np.dtype(bool)
    return column.dtype


def _score_names(score: str | Sequence[str] | Mapping[Any, str] | None) -> list[str] | None:
    if score is None:
        return None
    if isinstance(score, str):
        return [score]
    return [str(c) for c in (score.values() if isinstance(score, Mapping) else score)]


def _codes(
    data: pd.DataFrame, column: str | None, role: str, order: str
) -> tuple[np.ndarray, pd.Index]:
    if column is None:
        return np.zeros(data.shape[0], dtype=np.int64), pd.Index([1])
    codes, labels = encode_labels(data[column], column, role, order)  # type: ignore[arg-type]
    return codes.astype(np.int64), labels


def _test_train_ratio(blocks: Sequence[Any], shape: tuple[int, int, int], n: int) -> float | None:
    sizes = np.zeros(shape[:2])
    for block in blocks:
        sizes[block.replication, block.fold] = block.size
    train = sizes.sum(axis=1, keepdims=True) - sizes if shape[1] >= 2 else n - sizes
    if train.sum() <= 0:
        return None
    return float(sizes.sum() / train.sum())


def _kept_columns(
    data: pd.DataFrame,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
    truth: str,
    prediction: str | None,
    cluster: str | None,
) -> dict[str, pd.Series]:
    kept = {
        "replication": key_or_constant(data, replication),
        "fold": key_or_constant(data, fold),
        "model": data[model],
        "record": data[record],
        "truth": data[truth],
    }
    if prediction is not None:
        kept["prediction"] = data[prediction]
    if cluster is not None:
        kept["cluster"] = data[cluster]
    return kept


def _record_frame(
    data: pd.DataFrame,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
    truth: np.ndarray,
    prediction: np.ndarray | None,
    scores: np.ndarray | None,
    cluster: str | None,
) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "replication": key_or_constant(data, replication).to_numpy(),
            "fold": key_or_constant(data, fold).to_numpy(),
            "model": data[model].to_numpy(),
            "record": data[record].to_numpy(),
            "truth": truth,
            "prediction": prediction if prediction is not None else -1,
        }
    )
    if cluster is not None:
        frame["cluster"] = data[cluster].to_numpy()
    if scores is not None:
        if scores.ndim == 1:
            frame["score"] = scores
        else:
            for c in range(scores.shape[1]):
                frame[f"score_{c}"] = scores[:, c]
    return frame


@dataclass(frozen=True)
class FoldRecords:
    """Two models' predictions on the records of one validation fold, aligned by record.

    Attributes
    ----------
    replication, fold : label
    truth : numpy.ndarray
        Class codes.
    prediction_a, prediction_b : numpy.ndarray
        Predicted class codes (−1 when the table has no predicted labels).
    score_a, score_b : numpy.ndarray or None
        ``(n,)`` or ``(n, C)`` scores.
    clusters : numpy.ndarray or None
        Cluster labels of the records.
    """

    replication: Any
    fold: Any
    truth: np.ndarray
    prediction_a: np.ndarray
    prediction_b: np.ndarray
    score_a: np.ndarray | None
    score_b: np.ndarray | None
    clusters: np.ndarray | None

    def of(self, which: str, spec: MetricSpec) -> np.ndarray:
        """What ``spec`` reads of model ``"a"`` or ``"b"``: its scores or its labels."""
        if spec.needs == "score":
            value = self.score_a if which == "a" else self.score_b
            if value is None:
                raise DataError(f"{spec.name} needs scores; build the table with score=")
            return value
        return self.prediction_a if which == "a" else self.prediction_b


def record_predictions(table: ResultsTable, what: str) -> RecordPredictions:
    """The records a table keeps, or a :class:`DesignError` saying how to build one."""
    kept = getattr(table, "_record_predictions", None)
    if kept is None:
        raise DesignError(
            f"{what} needs each record's truth and prediction or score: build the table with "
            "ResultsTable.from_predictions(data, truth=..., prediction=... or score=..., metric=...)"
        )
    return kept


def record_pairs(table: ResultsTable, a: Any, b: Any, what: str) -> list[FoldRecords]:
    """Models ``a`` and ``b`` on every (replication, fold), aligned by record, sorted by record.

    Sorted by record label (not by row order), so that resampling tests draw the
    same records whatever the order of the input rows.
    """
    kept = record_predictions(table, what)
    frame = kept.frame
    scores = kept.score_columns
    out = []
    for (replication, fold), cell in frame.groupby(["replication", "fold"], sort=True):
        left = cell[cell["model"] == a].set_index("record")
        try:
            left = left.sort_index(kind="stable")
        except TypeError:  # labels of mixed types: by type, then by text
            left = left.sort_index(key=lambda ids: ids.map(lambda v: f"{type(v).__name__}:{v!r}"))
        right = cell[cell["model"] == b].set_index("record").reindex(left.index)
        out.append(
            FoldRecords(
                replication=replication,
                fold=fold,
                truth=left["truth"].to_numpy(),
                prediction_a=left["prediction"].to_numpy(),
                prediction_b=right["prediction"].to_numpy(),
                score_a=_scores(left, scores),
                score_b=_scores(right, scores),
                clusters=left["cluster"].to_numpy() if "cluster" in left else None,
            )
        )
    return out


def _scores(frame: pd.DataFrame, columns: list[str]) -> np.ndarray | None:
    if not columns:
        return None
    values = frame[columns].to_numpy(dtype=np.float64)
    return values[:, 0] if values.shape[1] == 1 else values


# ----------------------------------------------------------------------------- inputs


def undefined_groups_error(spec: MetricSpec, keys: Sequence[Any]) -> DataError:
    """The error for groups where the metric is undefined (one class only)."""
    return DataError(
        f"{spec.name} is undefined on (replication, fold, model) {describe_keys(keys)}: "
        "the fold holds records of one class only (an AUC or average precision needs both). "
        "Use folds stratified by the class, or a metric defined on every fold"
    )


def positive_code(classes: pd.Index, pos_label: Any = None) -> int:
    """Code of the positive class: ``pos_label``, or the larger of two sorted labels."""
    if pos_label is None:
        return len(classes) - 1
    matches = [i for i, c in enumerate(classes) if c == pos_label or str(c) == str(pos_label)]
    if not matches:
        raise DataError(
            f"pos_label {pos_label!r} is not one of the class labels {describe_keys(list(classes))}"
        )
    return matches[0]


def score_matrix(
    data: pd.DataFrame, score: str | Sequence[str] | Mapping[Any, str], classes: pd.Index
) -> np.ndarray:
    """Scores as ``(n,)`` (one column: the positive class) or ``(n, C)`` in class order."""
    if isinstance(score, str):
        columns: list[str] = [score]
    elif isinstance(score, Mapping):
        missing = [c for c in classes if c not in score and str(c) not in map(str, score)]
        if missing:
            raise DataError(
                f"score= names no column for class(es) {describe_keys(missing)}; give one "
                "column per class label"
            )
        by_text = {str(k): v for k, v in score.items()}
        columns = [score[c] if c in score else by_text[str(c)] for c in classes]
    else:
        columns = list(score)
    absent = [c for c in columns if c not in data]
    if absent:
        raise DataError(f"score column(s) {describe_keys(absent)} are not in the data")
    values = data[columns].to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        rows = data.index[bad.any(axis=1)][:5].tolist()
        raise DataError(
            f"score column(s) {describe_keys(columns)} hold missing or infinite values (rows "
            f"{describe_keys(rows)}); every record needs a finite score"
        )
    if len(columns) == 1:
        return values[:, 0]
    if len(columns) != len(classes):
        raise DataError(
            f"{len(columns)} score columns were given for {len(classes)} classes "
            f"({describe_keys(list(classes))}); give one per class, in the sorted class order "
            "or as a mapping {label: column}"
        )
    return values


def _named(name: str) -> str:
    """A metric as the source line names it: the reader's name, then the name as given when
    they differ (``"AUC (roc_auc)"``, ``"accuracy"``)."""
    reader = reader_name(name)
    return name if reader == name else f"{reader} ({name})"
