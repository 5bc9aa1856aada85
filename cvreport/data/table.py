"""The results table: cross-validation losses validated once, with their design.

A :class:`ResultsTable` holds, for every record of every validation fold of
every replication, each model's loss — or, for
:meth:`ResultsTable.from_fold_scores`, one score per fold. It is checked once
on construction (typed errors that name the offending columns and keys), its
design is detected (:class:`Design`), and its sufficient statistics
(:mod:`cvreport.data.sufficient`) are computed in the same pass and cached; every
test reads only those.

Labels keep the user's values (0-based, 1-based or strings). Replications and
folds are ordered by their sorted labels — the *first* replication is the one
with the smallest label, which matters for Dietterich's 5×2cv t test — and
models by first appearance in the data.

References
----------
Dietterich, T. G. (1998). Approximate statistical tests for comparing
supervised classification learning algorithms. Neural Computation 10(7).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.data.direction import check_direction, comparison_columns, resolve_metric
from cvreport.data.formula import evaluate_response, parse_formula, split_cluster_term
from cvreport.data.metric import Direction, Metric
from cvreport.data.sufficient import (
    FoldBlock,
    SufficientStatistics,
    fold_score_statistics,
    sufficient_statistics,
)
from cvreport.data.validation import (
    build_fold_score_layout,
    build_record_layout,
    encode_labels,
    loss_values,
    require_columns,
    show,
)
from cvreport.errors import DataError, DesignError, describe_keys
from cvreport.rendering.display import SummaryDisplay

if TYPE_CHECKING:
    from cvreport.rendering.summary import Summary

__all__ = ["DESIGN_KINDS", "Design", "ResultsTable"]

DESIGN_KINDS = ("holdout", "repeated_holdout", "kfold", "mx2", "repeated_kfold")

_HOW_TO_NAME = (
    "Name the columns with the keywords (loss=, model=, replication=, fold=, record=) or a "
    "formula such as 'loss ~ model | replication + fold'."
)


def _design_kind(m: int, n_folds: int) -> str:
    if n_folds == 1:
        return "holdout" if m == 1 else "repeated_holdout"
    if n_folds == 2 and m >= 2:
        return "mx2"
    return "kfold" if m == 1 else "repeated_kfold"


def _size_range(sizes: tuple[int, ...]) -> str:
    low, high = min(sizes), max(sizes)
    return f"{low}" if low == high else f"{low}–{high}"


@dataclass(frozen=True)
class Design:
    """The cross-validation design of a results table.

    Attributes
    ----------
    kind : str
        ``"holdout"`` (one split), ``"repeated_holdout"`` (J splits of one
        validation set each), ``"kfold"`` (one run of K-fold CV),
        ``"mx2"`` (m ≥ 2 replications of 2-fold CV) or ``"repeated_kfold"``.
    m : int
        Number of replications.
    K : int
        Number of folds per replication.
    n_records : int or None
        Distinct records in the table (``None`` for per-fold scores).
    per_record : bool
        Whether the table holds per-record losses.
    complete : bool
        Whether every replication partitions the same record set (each record in
        exactly one fold of every replication).
    replications, folds : tuple
        The labels, sorted.
    sizes : tuple of int or None
        Records per (replication, fold), row-major (``None`` for per-fold scores).

    Examples
    --------
    >>> d = Design(kind="mx2", m=5, K=2, n_records=1000, per_record=True, complete=True,
    ...            replications=(1, 2, 3, 4, 5), folds=(1, 2), sizes=(500,) * 10)
    >>> d.describe()
    '5×2 cross-validation (m = 5, K = 2, n = 1000 records, folds of 500)'
    >>> d.is_mx2, d.is_kfold
    (True, False)
    """

    kind: str
    m: int
    K: int
    n_records: int | None
    per_record: bool
    complete: bool
    replications: tuple[Any, ...]
    folds: tuple[Any, ...]
    sizes: tuple[int, ...] | None

    @property
    def fold_sizes(self) -> pd.DataFrame:
        """Records per validation fold: columns ``replication, fold, n`` (NA for per-fold scores)."""
        n = (
            pd.array(self.sizes, dtype="int64")
            if self.sizes is not None
            else pd.array([pd.NA] * (self.m * self.K), dtype="Int64")
        )
        return pd.DataFrame(
            {
                "replication": pd.Index(list(self.replications)).repeat(self.K),
                "fold": pd.Index(list(self.folds)).take(np.tile(np.arange(self.K), self.m)),
                "n": n,
            }
        )

    @property
    def is_mx2(self) -> bool:
        """Two folds per replication (any m ≥ 1)."""
        return self.K == 2

    @property
    def is_kfold(self) -> bool:
        """One run of K-fold cross-validation (K ≥ 2)."""
        return self.m == 1 and self.K >= 2

    @property
    def is_repeated_kfold(self) -> bool:
        """Several replications of K-fold cross-validation (m ≥ 2, K ≥ 2)."""
        return self.m >= 2 and self.K >= 2

    @property
    def is_holdout(self) -> bool:
        """One validation set per replication (hold-out or repeated hold-out)."""
        return self.K == 1

    def describe(self) -> str:
        """A short sentence naming the design, e.g. for reports and error messages."""
        name = {
            "holdout": "hold-out validation",
            "repeated_holdout": "repeated hold-out validation",
            "kfold": f"{self.K}-fold cross-validation",
            "mx2": f"{self.m}×2 cross-validation",
            "repeated_kfold": f"{self.m}×{self.K} cross-validation",
        }[self.kind]
        if self.kind == "holdout":
            counts = []
        elif self.kind == "repeated_holdout":
            counts = [f"J = {self.m} splits"]
        elif self.kind == "kfold":
            counts = [f"K = {self.K}"]
        else:
            counts = [f"m = {self.m}", f"K = {self.K}"]
        if self.per_record and self.sizes is not None:
            counts.append(f"n = {self.n_records} records")
            if self.kind != "holdout":
                sets = "validation sets" if self.K == 1 else "folds"
                counts.append(f"{sets} of {_size_range(self.sizes)}")
            if self.K >= 2 and not self.complete:
                counts.append("replications cover different records")
        else:
            counts.append("one score per fold")
        return f"{name} ({', '.join(counts)})"

    def __str__(self) -> str:
        return self.describe()


def _labels(index: pd.Index) -> tuple[Any, ...]:
    return tuple(index.tolist())


def _check_ratio(test_train_ratio: float | None) -> float | None:
    if test_train_ratio is None:
        return None
    try:
        ratio = math.nan if isinstance(test_train_ratio, bool) else float(test_train_ratio)
    except (TypeError, ValueError):
        ratio = math.nan
    if not math.isfinite(ratio) or ratio <= 0:
        raise DataError(
            f"test_train_ratio must be a positive number (validation size / training size, "
            f"e.g. 1.0 for 2-fold CV or 1/9 for 10-fold CV), got {test_train_ratio!r}"
        )
    return ratio


class ResultsTable(SummaryDisplay):
    """Cross-validation results: each model's loss per record, fold and replication.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format, one row per (replication, fold, model, record).
    loss : str
        Column of per-record losses (any real loss; 0/1 for misclassification).
    model : str
        Column naming the model (algorithm).
    replication : str or None
        Column of the replication (repetition of the CV scheme); ``None`` for a
        single replication.
    fold : str or None
        Column of the validation fold in which the record was scored; ``None``
        for one validation set per replication (hold-out, repeated hold-out).
    record : str
        Column identifying the data point, used to pair the models' losses.
    direction : {"lower", "higher"} or None
        Which way is better for ``loss``, as in :meth:`from_formula`.

    Raises
    ------
    DataError
        Missing columns; non-numeric, NaN or infinite losses; duplicate
        (replication, fold, model, record) rows; a model absent from a fold;
        models scored on different records within a fold; a record scored in
        two folds of one replication; fewer than two models.
    DesignError
        Replications with different numbers (or labels) of folds.

    Examples
    --------
    >>> df = pd.DataFrame({
    ...     "replication": [1] * 8, "fold": [1, 1, 2, 2] * 2,
    ...     "model": ["a"] * 4 + ["b"] * 4, "record": [0, 1, 2, 3] * 2,
    ...     "loss": [1, 0, 0, 0, 1, 1, 0, 1]})
    >>> table = ResultsTable(df)
    >>> table.design.describe()
    '2-fold cross-validation (K = 2, n = 4 records, folds of 2)'
    >>> table.differences("a", "b").to_numpy().tolist()
    [[-0.5, -0.5]]
    >>> table.contingency("a", "b")[["n00", "n01", "n10", "n11"]].to_numpy().tolist()
    [[1, 0, 1, 0], [0, 0, 1, 1]]
    """

    _models: pd.Index
    _replications: pd.Index
    _folds: pd.Index
    _records: pd.Index | None
    _blocks: tuple[FoldBlock, ...] | None
    _stats: SufficientStatistics
    _design: Design
    _is_binary: bool
    _per_record: bool
    _higher_is_better: bool | None
    _metric: Metric
    _direction_note: str
    _score_offset: float
    _loss_name: str
    _formula: str | None
    _source: str
    _test_train_ratio: float | None
    _prediction_columns: dict[str, pd.Series] | None
    _kept: tuple[pd.Series, ...]
    _n_rows: int
    _route: str

    def __init__(
        self,
        data: pd.DataFrame,
        *,
        loss: str = "loss",
        model: str = "model",
        replication: str | None = "replication",
        fold: str | None = "fold",
        record: str = "record",
        direction: Direction | None = None,
        cluster: str | None = None,
    ) -> None:
        roles = {
            "loss": loss,
            "model": model,
            "replication": replication,
            "fold": fold,
            "record": record,
        }
        require_columns(data, roles, _HOW_TO_NAME)
        series = data[loss]
        values = loss_values(series, f"loss column {loss!r}")
        metric, how = _record_metric(str(loss), values, data[model], check_direction(direction))
        self._setup_records(
            data,
            series,
            _as_loss(values, metric),
            metric=metric,
            direction_note=how,
            model=model,
            replication=replication,
            fold=fold,
            record=record,
            loss_name=str(loss),
            source=(
                f"columns of a {data.shape[0]:,}-row DataFrame: loss {loss!r}, model {model!r}, "
                f"replication {replication!r}, fold {fold!r}, record {record!r}"
            ),
        )
        if cluster is not None:
            from cvreport.partitions.clusters import attach_clusters

            attach_clusters(self, data, record, cluster)

    # ------------------------------------------------------------------ constructors

    @classmethod
    def from_formula(
        cls,
        formula: str,
        data: pd.DataFrame,
        *,
        record: str = "record",
        per_fold: bool = False,
        direction: Direction | None = None,
        test_train_ratio: float | None = None,
        higher_is_better: bool | None = None,
        cluster: str | None = None,
    ) -> ResultsTable:
        """Build a table from an R-style formula naming the columns.

        ``"loss ~ model | replication + fold"``: the left side is the loss (a
        column, or an expression in braces evaluated on the data, e.g.
        ``"{pred != truth}"``), the model column follows ``~`` and the blocks
        follow ``|``. ``"loss ~ model"`` is one hold-out split. With a single block,
        ``"loss ~ model | fold"``, the block is read as the fold of one K-fold run;
        if a record is scored in several of its groups it can only be a replication
        of repeated hold-out and is read so (per-fold scores: always the fold — use
        :meth:`from_fold_scores` with ``fold=None`` for repeated hold-out scores).

        Parameters
        ----------
        formula : str
            The formula.
        data : pandas.DataFrame
            The long-format results.
        record : str
            Column identifying the record (ignored for per-fold scores).
        per_fold : bool
            The left side is one score per (replication, fold, model), e.g. an AUC,
            as in :meth:`from_fold_scores`.
        direction : {"lower", "higher"} or None
            ``"lower"`` when the left side is a loss, ``"higher"`` when it is a score
            (accuracy, AUC, …). ``None`` lets the name decide and otherwise reads it as
            a loss (:mod:`cvreport.data.direction`). The same for per-record and per-fold
            values; reports show every number in this metric and direction.
        test_train_ratio : float, optional
            Validation size over training size, for per-fold scores.
        higher_is_better : bool or None
            Deprecated spelling of ``direction`` (``True`` is ``"higher"``).

        Raises
        ------
        FormulaError
            The formula does not have the shape ``loss ~ model | replication + fold``.
        DataError
            The name or the values of the left side contradict ``direction``.

        Examples
        --------
        >>> df = pd.DataFrame({"split": [1, 1, 1, 1], "clf": ["a", "a", "b", "b"],
        ...                    "id": [7, 8, 7, 8], "pred": [1, 0, 1, 1], "truth": [1, 1, 1, 1]})
        >>> table = ResultsTable.from_formula("{pred != truth} ~ clf | split", df, record="id")
        >>> table.loss_name, table.models, table.design.kind
        ('pred != truth', ('a', 'b'), 'holdout')
        """
        given = formula
        formula, named_cluster = split_cluster_term(formula)
        cluster = named_cluster or cluster
        from cvreport.data.predictions import metric_formula

        from_metric = metric_formula(cls, formula, data, record=record, cluster=cluster)
        if from_metric is not None:
            from_metric._formula = given
            return from_metric
        parsed = parse_formula(formula)
        wanted = check_direction(direction, higher_is_better)
        roles: dict[str, str | None] = {"model": parsed.model}
        roles.update(zip(("replication", "fold"), parsed.blocks))
        how_to_fix = f"The formula {formula!r} names them."
        if not per_fold:
            roles["record"] = record
            if isinstance(data, pd.DataFrame) and record not in data:
                how_to_fix += (
                    " If the left side is one score per fold (e.g. an AUC), pass per_fold=True "
                    "(--per-fold on the command line); otherwise name the record column with "
                    "record=... (--record)."
                )
        require_columns(data, roles, how_to_fix)
        response = evaluate_response(parsed, data)
        replication: str | None = None
        fold: str | None = None
        if len(parsed.blocks) == 2:
            replication, fold = parsed.blocks
        elif len(parsed.blocks) == 1:
            fold = parsed.blocks[0]
            if not per_fold and _records_repeat_across(data, fold, record):
                replication, fold = fold, None
        n_rows = data.shape[0]
        table = cls.__new__(cls)
        if per_fold:
            table._setup_fold_scores(
                data,
                response,
                model=parsed.model,
                replication=replication,
                fold=fold,
                direction=wanted,
                test_train_ratio=test_train_ratio,
                score_name=parsed.response,
                source=f"formula {formula!r} on a {n_rows:,}-row DataFrame of per-fold scores",
            )
        else:
            values = loss_values(response, f"loss {parsed.response!r}")
            metric, how = _record_metric(parsed.response, values, data[parsed.model], wanted)
            table._setup_records(
                data,
                response,
                _as_loss(values, metric),
                metric=metric,
                direction_note=how,
                model=parsed.model,
                replication=replication,
                fold=fold,
                record=record,
                loss_name=parsed.response,
                source=(
                    f"formula {formula!r} on a {n_rows:,}-row DataFrame (record column {record!r})"
                ),
            )
            compared = comparison_columns(parsed.response)
            if compared is not None and compared[0] in data and compared[2] in data:
                truth, prediction = _truth_and_prediction(compared[0], compared[2])
                table._prediction_columns = _prediction_frame(
                    data, parsed.model, replication, fold, record, truth, prediction
                )
        table._formula = given
        if cluster is not None and not per_fold:
            from cvreport.partitions.clusters import attach_clusters

            attach_clusters(table, data, record, cluster)
        return table

    @classmethod
    def from_predictions(
        cls,
        data: pd.DataFrame,
        *,
        truth: str,
        prediction: str | None = None,
        model: str = "model",
        replication: str | None = "replication",
        fold: str | None = "fold",
        record: str = "record",
        direction: Direction | None = None,
        metric: str | Callable[..., float] | None = None,
        score: str | Sequence[str] | Mapping[Any, str] | None = None,
        cluster: str | None = None,
        pos_label: Any = None,
    ) -> ResultsTable:
        """Build a table of 0/1 losses (misclassifications) from predictions and the truth.

        The truth and predictions are kept (:meth:`predictions`) for per-model
        descriptive metrics. The metric is the error rate (``direction="lower"``, the
        default) or, with ``direction="higher"``, the accuracy; tests are the same.

        With ``metric=`` (a sklearn name such as ``"roc_auc"``, ``"f1_macro"``,
        ``"matthews_corrcoef"``, ``"log_loss"``, or a function ``(y_true, y) -> float``)
        the table holds that metric instead, in its direction: per-record values
        for a mean of per-record values (accuracy, log loss, Brier score), else one
        value per (replication, fold, model) computed from the predictions or from
        the scores named by ``score=`` (one column: the positive class, by default
        the larger label or ``pos_label``; several: one per class in sorted order, or
        ``{label: column}``). ``cluster=`` names a column of clusters of records.
        See :mod:`cvreport.data.metrics`.

        Examples
        --------
        >>> df = pd.DataFrame({"model": ["a", "a", "b", "b"], "record": [0, 1, 0, 1],
        ...                    "y": ["cat", "dog", "cat", "dog"], "yhat": ["cat", "cat", "dog", "dog"]})
        >>> table = ResultsTable.from_predictions(df, truth="y", prediction="yhat",
        ...                                       replication=None, fold=None)
        >>> table.fold_errors()["loss"].tolist()
        [0.5, 0.5]
        """
        roles = {
            "truth": truth,
            "prediction": prediction,
            "model": model,
            "replication": replication,
            "fold": fold,
            "record": record,
        }
        if metric is not None or score is not None or cluster is not None:
            from cvreport.data.predictions import build_metric_table

            return build_metric_table(
                cls,
                data,
                metric=metric or ("accuracy" if direction == "higher" else "zero_one_loss"),
                truth=truth,
                prediction=prediction,
                score=score,
                model=model,
                replication=replication,
                fold=fold,
                record=record,
                cluster=cluster,
                pos_label=pos_label,
                direction=check_direction(direction),
            )
        if prediction is None:
            raise DataError("name the column of predicted labels with prediction=")
        require_columns(data, roles, _HOW_TO_NAME)
        loss = _misclassified(data[truth], data[prediction], truth, prediction, data.index)
        wanted = check_direction(direction)
        shown = Metric("accuracy" if wanted == "higher" else "error rate", wanted or "lower",
                       "proportion")
        how = "given" if wanted else "predictions give 0/1 errors"
        table = cls.__new__(cls)
        table._setup_records(
            data,
            None,
            loss,
            metric=shown,
            direction_note=how,
            model=model,
            replication=replication,
            fold=fold,
            record=record,
            loss_name=f"{prediction} {'==' if shown.higher_is_better else '!='} {truth}",
            source=(
                f"predictions {prediction!r} and truth {truth!r} of a {data.shape[0]:,}-row "
                "DataFrame: "
                f"model {model!r}, replication {replication!r}, fold {fold!r}, record {record!r}"
            ),
        )
        table._prediction_columns = _prediction_frame(
            data, model, replication, fold, record, truth, prediction
        )
        return table

    @classmethod
    def from_fold_scores(
        cls,
        data: pd.DataFrame,
        *,
        score: str = "score",
        model: str = "model",
        replication: str | None = "replication",
        fold: str | None = "fold",
        direction: Direction | None = None,
        test_train_ratio: float | None = None,
        higher_is_better: bool | None = None,
    ) -> ResultsTable:
        """Build a table from one score per (replication, fold, model), e.g. AUC or F1.

        Tests that need only per-fold values (t and F tests, corrected t tests,
        the Bayesian correlated t test) run on it; McNemar's tests, the CV
        confidence interval and the overlap audit need per-record losses and raise
        :class:`DesignError`. ``direction`` works as in :meth:`from_formula`: given,
        or read from the column's name (``auc``, ``f1``, ``accuracy`` are scores), or
        else the column is a loss. Internally a score is negated into a loss; reports
        show it as given.

        Parameters
        ----------
        direction : {"lower", "higher"} or None
            Which way is better (see :meth:`from_formula`).
        higher_is_better : bool or None
            Deprecated spelling of ``direction``.
        test_train_ratio : float, optional
            Validation size over training size (n2/n1 of Nadeau & Bengio), which a
            per-fold table cannot infer.

        Examples
        --------
        >>> df = pd.DataFrame({"fold": [1, 1, 2, 2], "model": ["a", "b"] * 2,
        ...                    "auc": [0.90, 0.85, 0.80, 0.84]})
        >>> table = ResultsTable.from_fold_scores(df, score="auc", replication=None)
        >>> table.differences("a", "b").round(2).to_numpy().tolist()
        [[-0.05, 0.04]]
        """
        roles = {"score": score, "model": model, "replication": replication, "fold": fold}
        require_columns(data, roles, _HOW_TO_NAME)
        table = cls.__new__(cls)
        table._setup_fold_scores(
            data,
            data[score],
            model=model,
            replication=replication,
            fold=fold,
            direction=check_direction(direction, higher_is_better),
            test_train_ratio=test_train_ratio,
            score_name=str(score),
            source=(
                f"per-fold scores in column {score!r} of a {data.shape[0]:,}-row DataFrame: "
                f"model {model!r}, replication {replication!r}, fold {fold!r}"
            ),
        )
        return table

    # ------------------------------------------------------------------ set-up

    def _setup_common(self) -> None:
        self._formula = None
        self._prediction_columns = None
        self._test_train_ratio = None
        self._metric = Metric("loss", "lower")
        self._direction_note = ""
        self._score_offset = 0.0

    def _setup_records(
        self,
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
    ) -> None:
        self._setup_common()
        self._metric = metric
        self._direction_note = direction_note
        # 0/1 hits become 0/1 errors (1 − hit), so McNemar's tests still apply
        self._score_offset = 1.0 if metric.higher_is_better and metric.unit == "proportion" else 0.0
        layout = build_record_layout(
            data,
            values,
            loss_what=f"loss {loss_name!r}",
            model=model,
            replication=replication,
            fold=fold,
            record=record,
        )
        self._models = layout.models
        self._replications = layout.replications
        self._folds = layout.folds
        self._records = layout.records
        self._blocks = layout.blocks
        self._is_binary = layout.is_binary
        self._per_record = True
        self._higher_is_better = metric.higher_is_better
        self._loss_name = loss_name
        self._source = source
        # blocks may be views of the loss column: holding the Series makes pandas
        # copy-on-write protect them from later edits of the user's DataFrame
        self._kept = () if kept is None else (kept,)
        self._n_rows = data.shape[0]
        self._route = layout.route
        shape = (len(layout.replications), len(layout.folds), len(layout.models))
        self._stats = sufficient_statistics(
            layout.blocks, shape, binary=layout.is_binary, membership=layout.membership
        )
        sizes = self._stats.counts[:, :, 0]
        self._design = Design(
            kind=_design_kind(shape[0], shape[1]),
            m=shape[0],
            K=shape[1],
            n_records=len(layout.records),
            per_record=True,
            complete=bool((layout.membership >= 0).all()),
            replications=_labels(layout.replications),
            folds=_labels(layout.folds),
            sizes=tuple(int(n) for n in sizes.ravel()),
        )

    def _setup_fold_scores(
        self,
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
    ) -> None:
        self._setup_common()
        values = loss_values(scores, f"score {score_name!r}")
        self._metric, self._direction_note = resolve_metric(
            score_name, values, direction=direction, per_record=False
        )
        higher_is_better = self._metric.higher_is_better
        layout = build_fold_score_layout(
            data,
            values,
            value_what=f"score {score_name!r}",
            model=model,
            replication=replication,
            fold=fold,
        )
        losses = -layout.values if higher_is_better else layout.values
        self._models = layout.models
        self._replications = layout.replications
        self._folds = layout.folds
        self._records = None
        self._blocks = None
        self._is_binary = bool(np.isin(losses, (0.0, 1.0)).all())
        self._per_record = False
        self._higher_is_better = higher_is_better
        self._loss_name = score_name
        self._source = source
        self._kept = ()
        self._n_rows = data.shape[0]
        self._route = "fold scores"
        self._test_train_ratio = _check_ratio(test_train_ratio)
        self._stats = fold_score_statistics(losses)
        m, n_folds, _ = losses.shape
        self._design = Design(
            kind=_design_kind(m, n_folds),
            m=m,
            K=n_folds,
            n_records=None,
            per_record=False,
            complete=False,
            replications=_labels(layout.replications),
            folds=_labels(layout.folds),
            sizes=None,
        )

    # ------------------------------------------------------------------ descriptors

    @property
    def models(self) -> tuple[Any, ...]:
        """Model labels, in order of first appearance in the data."""
        cached = self.__dict__.get("_model_labels")
        if cached is None or cached[0] is not self._models:  # asked for every pair of a report
            cached = (self._models, _labels(self._models))
            self.__dict__["_model_labels"] = cached
        return cached[1]

    @property
    def replications(self) -> tuple[Any, ...]:
        """Replication labels, sorted (the first is the smallest)."""
        return _labels(self._replications)

    @property
    def folds(self) -> tuple[Any, ...]:
        """Fold labels, sorted (the same in every replication)."""
        return _labels(self._folds)

    @property
    def design(self) -> Design:
        """The detected cross-validation design."""
        return self._design

    @property
    def stats(self) -> SufficientStatistics:
        """The sufficient statistics, computed once on construction."""
        return self._stats

    @property
    def is_binary(self) -> bool:
        """Whether every loss is 0 or 1."""
        return self._is_binary

    @property
    def per_record(self) -> bool:
        """Whether the table holds per-record losses (``False`` for per-fold scores)."""
        return self._per_record

    @property
    def metric(self) -> Metric:
        """What the values measure: name, unit and direction (``"lower"`` or ``"higher"``)."""
        return self._metric

    @property
    def direction_note(self) -> str:
        """How the direction was decided: ``"given"``, from the name, or the default."""
        return self._direction_note

    @property
    def higher_is_better(self) -> bool:
        """``True`` for a score (negated into a loss internally); prefer :attr:`metric`."""
        return self._metric.higher_is_better

    def to_metric(self, losses: Any) -> Any:
        """Internal mean losses back in the user's metric (a score as given, a loss as is)."""
        if not self._metric.higher_is_better:
            return losses
        return self._score_offset - losses

    @property
    def loss_name(self) -> str:
        """Name of the loss: its column, the formula's left side, or the score column."""
        return self._loss_name

    @property
    def formula(self) -> str | None:
        """The formula the table was built from, if any."""
        return self._formula

    @property
    def source(self) -> str:
        """Where the numbers came from (formula or columns, and the number of rows)."""
        return self._source

    @property
    def test_train_ratio(self) -> float | None:
        """Validation size over training size, as given for a per-fold table."""
        return self._test_train_ratio

    @property
    def n_rows(self) -> int:
        """Number of rows of the input data."""
        return self._n_rows

    def __repr__(self) -> str:
        return (
            f"<ResultsTable: {self._design.describe()}; models {describe_keys(self.models)}; "
            f"{self._metric.name} {self._loss_name!r}, {self._metric.direction} is better>"
        )

    # ------------------------------------------------------------------ display

    SUMMARY_ROWS = 20
    """Replications listed in the fold-size table of :meth:`summary` (the rest are counted)."""

    def summary(self) -> Summary:
        """A :class:`~cvreport.rendering.summary.Summary` of the design, the models and the fold sizes.

        It renders as text, Markdown, HTML and LaTeX, and is what Jupyter shows for
        the table.

        Examples
        --------
        >>> df = pd.DataFrame({"fold": [1, 1, 2, 2] * 2, "model": ["a"] * 4 + ["b"] * 4,
        ...                    "record": [0, 1, 2, 3] * 2, "loss": [1, 0, 0, 0, 1, 1, 0, 1]})
        >>> s = ResultsTable(df, replication=None).summary()
        >>> [row.value for row in s.rows][:2]
        ['2-fold cross-validation (K = 2, n = 4 records, folds of 2)', 'a, b']
        >>> [table.caption for table in s.tables]
        ['Mean loss per model over the folds', 'Records per validation fold']
        """
        from cvreport.rendering.summary import Summary, SummaryRow, SummaryTable

        design = self._design
        if self._per_record:
            marks = "a hit" if self._metric.higher_is_better else "an error"
            loss_text = self._loss_name + (f" (0/1: 1 marks {marks})" if self._is_binary else "")
        else:
            loss_text = f"{self._loss_name} (one score per fold)"
        loss_text += f" ({self._metric.direction} is better, {self._direction_note})"
        rows = [
            SummaryRow("design", design.describe(), "text"),
            SummaryRow("models", ", ".join(str(m) for m in self.models), "text"),
            SummaryRow("replications (m)", design.m, "value"),
            SummaryRow("folds per replication (K)", design.K, "value"),
            SummaryRow(
                "records",
                design.n_records if design.n_records is not None else "per-fold scores only",
                "value",
            ),
            SummaryRow("loss", loss_text, "text"),
            SummaryRow("rows of the input", self._n_rows, "value"),
        ]
        if self._formula is not None:
            rows.append(SummaryRow("formula", self._formula, "text"))

        errors = self._stats.means.reshape(-1, self._stats.shape[2])
        caption = "Mean loss per model over the folds"
        if self._higher_is_better:  # show the score as the user gave it
            errors = self.to_metric(errors)
            caption = f"Mean {self._metric.name} per model over the folds (higher is better)"
        model_table = SummaryTable(
            caption=caption,
            columns=("model", "mean", "min", "max", "folds"),
            rows=tuple(
                (str(model), float(column.mean()), float(column.min()), float(column.max()), n)
                for model, column, n in zip(
                    self.models, errors.T, [errors.shape[0]] * errors.shape[1]
                )
            ),
            kinds=("text", "number", "number", "number", "value"),
        )
        tables = [model_table]
        notes = [f"Source: {self._source}."]
        if design.sizes is not None:
            sizes = np.asarray(design.sizes).reshape(design.m, design.K)
            shown = min(design.m, self.SUMMARY_ROWS)
            tables.append(
                SummaryTable(
                    caption="Records per validation fold",
                    columns=("replication", *(f"fold {f}" for f in design.folds)),
                    rows=tuple(
                        (str(design.replications[i]), *(int(n) for n in sizes[i]))
                        for i in range(shown)
                    ),
                    kinds=("text",) + ("value",) * design.K,
                )
            )
            if shown < design.m:
                notes.append(
                    f"Fold sizes of the first {shown} of {design.m} replications are listed "
                    f"(all range from {_size_range(design.sizes)} records)."
                )
        return Summary(
            title="Results table",
            rows=tuple(rows),
            tables=tuple(tables),
            notes=tuple(notes),
        )

    # ------------------------------------------------------------------ checks

    def resolve_pair(self, a: Any = None, b: Any = None) -> tuple[Any, Any]:
        """The two models to compare, A and B (defaults to the only two models).

        A label that is not found is also matched by its text (``"1"`` finds the
        model ``1``), which helps on the command line.

        Raises
        ------
        DataError
            An unknown model, the same model twice, or no choice given while the
            table holds more than two models.

        Examples
        --------
        >>> df = pd.DataFrame({"model": ["x", "y"], "record": [0, 0], "loss": [0, 1]})
        >>> ResultsTable(df, replication=None, fold=None).resolve_pair()
        ('x', 'y')
        """
        models = self.models
        if a is None and b is None:
            if len(models) == 2:
                return models
            raise DataError(
                f"the table holds {len(models)} models ({describe_keys(models, 10)}); say which "
                "two to compare, e.g. a=..., b=..."
            )
        if a is None or b is None:
            given = self._model_label(a if a is not None else b)
            others = [m for m in models if m != given]
            if len(others) != 1:
                raise DataError(
                    f"only one model ({show(given)}) was named but the table holds {len(models)} "
                    f"({describe_keys(models, 10)}); name both a= and b="
                )
            return (given, others[0]) if a is not None else (others[0], given)
        first, second = self._model_label(a), self._model_label(b)
        if first == second:
            raise DataError(f"a and b are both {show(first)}; compare two different models")
        return first, second

    def _model_label(self, label: Any) -> Any:
        models = self.models
        if label in models:
            return models[models.index(label)]
        matches = [m for m in models if str(m) == str(label)]
        if len(matches) == 1:
            return matches[0]
        raise DataError(
            f"unknown model {show(label)}; the table's models are {describe_keys(models, 10)}"
        )

    def _model_position(self, label: Any) -> int:
        return self.models.index(self._model_label(label))

    def require_per_record(self, what: str) -> None:
        """Raise :class:`DesignError` unless the table holds per-record losses."""
        if not self._per_record:
            raise DesignError(
                f"{what} needs per-record losses, but this table holds one score per fold "
                f"({self._source}); build the table from per-record losses "
                "(ResultsTable(...), from_formula or from_predictions) to use it"
            )

    def require_binary(self, what: str) -> None:
        """Raise unless every loss is 0 or 1 (:class:`DataError`; per-fold tables: DesignError)."""
        self.require_per_record(what)
        if not self._is_binary:
            raise DataError(
                f"{what} needs 0/1 losses (1 = misclassified), but the loss {self._loss_name!r} "
                "takes other values; build the table with from_predictions(...) or a formula "
                "such as '{pred != truth} ~ model | replication + fold'"
            )

    # ------------------------------------------------------------------ accessors

    def fold_errors(self) -> pd.DataFrame:
        """Mean loss of each model on each fold.

        Returns
        -------
        pandas.DataFrame
            Columns ``replication, fold, model, loss, n`` (``n``: records in the fold;
            NA for per-fold scores).
        """
        m, n_folds, n_models = self._stats.shape
        i, j, k = np.indices((m, n_folds, n_models)).reshape(3, -1)
        counts = self._stats.counts.ravel()
        return pd.DataFrame(
            {
                "replication": self._replications.take(i),
                "fold": self._folds.take(j),
                "model": self._models.take(k),
                "loss": self._stats.means.ravel(),
                "n": (
                    pd.array(counts, dtype="int64")
                    if self._per_record
                    else pd.array([pd.NA] * counts.shape[0], dtype="Int64")
                ),
            }
        )

    def differences(self, a: Any = None, b: Any = None) -> pd.DataFrame:
        """Per-fold differences of mean loss, A − B (the ``p_i^(j)`` of Dietterich 1998).

        Returns
        -------
        pandas.DataFrame
            Index: replications (sorted); columns: folds (sorted). ``.to_numpy()``
            is the ``(m, K)`` array; ``(J, 1)`` for (repeated) hold-out.
        """
        first, second = self.resolve_pair(a, b)
        values = self._stats.differences(self._model_position(first), self._model_position(second))
        return pd.DataFrame(
            values,
            index=self._replications.rename("replication"),
            columns=self._folds.rename("fold"),
        )

    def contingency(self, a: Any = None, b: Any = None) -> pd.DataFrame:
        """The 2×2 table of models A and B on each fold.

        Returns
        -------
        pandas.DataFrame
            Columns ``replication, fold, n00, n01, n10, n11`` (int64): ``n00`` both
            wrong, ``n01`` A wrong and B right, ``n10`` A right and B wrong, ``n11``
            both right.

        Raises
        ------
        DataError
            If the losses are not 0/1.
        """
        self.require_binary("the 2×2 contingency table")
        first, second = self.resolve_pair(a, b)
        counts = self._stats.pair_counts(
            self._model_position(first), self._model_position(second)
        ).reshape(-1, 4)
        m, n_folds, _ = self._stats.shape
        i, j = np.indices((m, n_folds)).reshape(2, -1)
        frame = pd.DataFrame(
            {"replication": self._replications.take(i), "fold": self._folds.take(j)}
        )
        for column, values in zip(("n00", "n01", "n10", "n11"), counts.T):
            frame[column] = values.astype(np.int64)
        return frame

    def record_differences(self, a: Any = None, b: Any = None) -> pd.DataFrame:
        """Per-record loss differences, A − B.

        Returns
        -------
        pandas.DataFrame
            Columns ``replication, fold, record, difference``, ordered by
            replication and fold.
        """
        self.require_per_record("record_differences")
        assert self._blocks is not None and self._records is not None
        first, second = self.resolve_pair(a, b)
        ia, ib = self._model_position(first), self._model_position(second)
        sizes = [block.size for block in self._blocks]
        return pd.DataFrame(
            {
                "replication": self._replications.take(
                    np.repeat([block.replication for block in self._blocks], sizes)
                ),
                "fold": self._folds.take(np.repeat([block.fold for block in self._blocks], sizes)),
                "record": self._records.take(
                    np.concatenate([block.records for block in self._blocks])
                ),
                "difference": np.concatenate(
                    [block.losses[ia] - block.losses[ib] for block in self._blocks]
                ),
            }
        )

    def membership(self) -> tuple[np.ndarray, np.ndarray]:
        """Which fold each record was validated in, in each replication.

        Returns
        -------
        records : numpy.ndarray
            The record labels.
        folds : numpy.ndarray
            ``(n_records, m)`` int32: position in :attr:`folds` of the record's fold in
            each replication, ``-1`` where the record is absent from that replication.
        """
        self.require_per_record("the fold membership of records")
        assert self._records is not None and self._stats.membership is not None
        return self._records.to_numpy(), self._stats.membership

    def train_sizes(self) -> pd.DataFrame:
        """Validation and training-set sizes of every fold.

        For K-fold designs the training set of a fold is the rest of its
        replication. For (repeated) hold-out the table does not show the training
        set; it is taken as every other record seen in the table (the data set,
        when the replications together cover it). For per-fold scores the sizes are
        relative, from ``test_train_ratio`` (``n_test = 1``, ``n_train = 1 / ratio``).

        Returns
        -------
        pandas.DataFrame
            Columns ``replication, fold, n_test, n_train``.

        Raises
        ------
        DesignError
            When the training-set size cannot be known: a single hold-out split, or
            per-fold scores without ``test_train_ratio``.
        """
        cached = self.__dict__.get("_train_sizes")
        if cached is not None:  # asked once per pair of models in a report
            return cached.copy()
        frame = self._compute_train_sizes()
        self.__dict__["_train_sizes"] = frame
        return frame.copy()

    def _compute_train_sizes(self) -> pd.DataFrame:
        m, n_folds, _ = self._stats.shape
        i, j = np.indices((m, n_folds)).reshape(2, -1)
        frame = pd.DataFrame(
            {"replication": self._replications.take(i), "fold": self._folds.take(j)}
        )
        if not self._per_record:
            if self._test_train_ratio is None:
                raise DesignError(
                    "the training-set sizes of a per-fold table are unknown; pass "
                    "test_train_ratio= (validation size / training size, 1/(K−1) for K-fold "
                    "CV) to from_fold_scores or to the test"
                )
            frame["n_test"] = 1.0
            frame["n_train"] = 1.0 / self._test_train_ratio
            return frame
        sizes = self._stats.counts[:, :, 0].astype(np.int64)
        if n_folds >= 2:
            train = sizes.sum(axis=1, keepdims=True) - sizes
        else:
            assert self._records is not None
            train = len(self._records) - sizes
            if (train <= 0).any():
                raise DesignError(
                    "the training-set size of a hold-out split is not in the table (every "
                    "record seen is in the validation set); pass test_train_ratio= "
                    "(validation size / training size) to the test"
                )
        frame["n_test"] = sizes.ravel()
        frame["n_train"] = train.ravel()
        return frame

    def predictions(self) -> pd.DataFrame | None:
        """Truth and prediction per (replication, fold, model, record), if the table has them.

        Returns
        -------
        pandas.DataFrame or None
            Columns ``replication, fold, model, record, truth, prediction`` for tables
            built with :meth:`from_predictions`; ``None`` otherwise.
        """
        if self._prediction_columns is None:
            return None
        return pd.DataFrame(
            {
                name: series.reset_index(drop=True)
                for name, series in self._prediction_columns.items()
            }
        )


# ---------------------------------------------------------------------- helpers


def _record_metric(
    name: str, values: np.ndarray, models: pd.Series, direction: Direction | None
) -> tuple[Metric, str]:
    """The metric of per-record values, with each model's mean for the 0/1 check."""
    codes, _ = pd.factorize(models, sort=False)
    valid = codes >= 0
    counts = np.bincount(codes[valid])
    sums = np.bincount(codes[valid], weights=np.asarray(values, dtype=np.float64)[valid])
    means = sums[counts > 0] / counts[counts > 0]
    return resolve_metric(
        name, values, direction=direction, per_record=True, model_means=means
    )


def _as_loss(values: np.ndarray, metric: Metric) -> np.ndarray:
    """The internal loss: a loss as is; 0/1 hits as 1 − hit; any other score negated."""
    if not metric.higher_is_better:
        return values
    return 1.0 - values if metric.unit == "proportion" else -values


_TRUTH_WORDS = ("true", "truth", "label", "target", "gold", "actual", "observed")


def _truth_and_prediction(left: str, right: str) -> tuple[str, str]:
    """Which of two compared columns is the truth: by its name, else the right one."""
    def says_truth(name: str) -> bool:
        lowered = name.lower()
        return lowered == "y" or any(word in lowered for word in _TRUTH_WORDS)

    if says_truth(left) and not says_truth(right):
        return left, right
    return right, left


def _prediction_frame(
    data: pd.DataFrame,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
    truth: str,
    prediction: str,
) -> dict[str, pd.Series]:
    return {
        "replication": _key_or_constant(data, replication),
        "fold": _key_or_constant(data, fold),
        "model": data[model],
        "record": data[record],
        "truth": data[truth],
        "prediction": data[prediction],
    }


def _key_or_constant(data: pd.DataFrame, column: str | None) -> pd.Series:
    if column is None:
        return pd.Series(np.ones(data.shape[0], dtype=np.int64), index=data.index)
    return data[column]


def _records_repeat_across(data: pd.DataFrame, block: str, record: str) -> bool:
    """Whether some record appears in more than one group of ``block``."""
    block_codes, groups = encode_labels(data[block], block, "block", "sorted")
    record_codes, _ = encode_labels(data[record], record, "record", "sorted", code_dtype=np.int32)
    pairs = np.unique(record_codes.astype(np.int64) * len(groups) + block_codes)
    return bool(np.unique(pairs // len(groups)).shape[0] < pairs.shape[0])


def _misclassified(
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
                    f"{describe_keys([float(v) for v in foreign[:3]])}, which are no label of truth column "
                    f"{truth_name!r}: probabilities or scores? A prediction must be a class "
                    "label; threshold them first, e.g. (proba >= 0.5).astype(int)"
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
