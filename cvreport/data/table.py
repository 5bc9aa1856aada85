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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from cvreport.data.build import (
    TableContents,
    as_loss,
    fold_score_contents,
    labels_of,
    misclassified,
    prediction_frame,
    record_contents,
    record_metric,
    records_repeat_across,
    truth_and_prediction,
)
from cvreport.data.clusters import attach_clusters
from cvreport.data.design import DESIGN_KINDS, Design
from cvreport.data.direction import check_direction, comparison_columns
from cvreport.data.engines import EngineSource, resolve_source
from cvreport.data.formula import (
    evaluate_response,
    parse_formula,
    split_cluster_term,
    with_cluster_term,
)
from cvreport.data.metric import Direction, Metric
from cvreport.data.predictions import (
    build_metric_table,
    metric_call,
    metric_formula,
    per_fold_metric_error,
)
from cvreport.data.pushdown import (
    engine_column,
    engine_contents,
    formula_contents,
    metric_frame,
    prediction_contents,
)
from cvreport.data.sufficient import SufficientStatistics
from cvreport.data.validation import (
    column_is_binary,
    loss_values,
    require_columns,
    require_named_columns,
)
from cvreport.data.views import TableViews
from cvreport.errors import DataError, describe_keys

__all__ = ["DESIGN_KINDS", "Design", "ResultsTable"]

_HOW_TO_NAME = (
    "Name the columns with the keywords (loss=, model=, replication=, fold=, record=) or a "
    "formula such as 'loss ~ model | replication + fold'."
)


class ResultsTable(TableViews):
    """Cross-validation results: each model's loss per record, fold and replication.

    Parameters
    ----------
    data : DataFrame, LazyFrame, relation or path
        Long format, one row per (replication, fold, model, record): a pandas,
        Polars (eager or lazy), PyArrow, DuckDB, Dask, PySpark or Ibis frame, or
        the path (a glob, or a list) of Parquet or CSV files. Outside pandas the
        checks and statistics run in the frame's engine
        (:mod:`cvreport.data.pushdown`); results and errors are the same.
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
    engine : {"auto", "pandas", "duckdb", "polars"}, optional
        Where the aggregations run (:func:`cvreport.data.engines.resolve_source`):
        by default the frame's own engine, DuckDB for files and for pandas frames
        of 100 million rows or more.
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

    # the other attributes are declared where they are read, in TableViews
    _score_offset: float
    _kept: tuple[pd.Series, ...]
    _route: str
    _contents: TableContents

    def __init__(
        self,
        data: Any,
        *,
        loss: str = "loss",
        model: str = "model",
        replication: str | None = "replication",
        fold: str | None = "fold",
        record: str = "record",
        direction: Direction | None = None,
        engine: str | None = None,
        cluster: str | None = None,
    ) -> None:
        wanted = check_direction(direction)
        roles = {
            "loss": loss,
            "model": model,
            "replication": replication,
            "fold": fold,
            "record": record,
        }
        source = resolve_source(data, engine)
        if isinstance(source, EngineSource):
            require_named_columns(source.columns, roles, _HOW_TO_NAME)
            columns = [c for c in roles.values() if c is not None]
            self._adopt(
                engine_contents(
                    source,
                    response=engine_column(source, loss),
                    model=model,
                    replication=replication,
                    fold=fold,
                    record=record,
                    loss_name=str(loss),
                    describe=lambda n: (
                        f"columns of a {n:,}-row {source.kind}: loss {loss!r}, model {model!r}, "
                        f"replication {replication!r}, fold {fold!r}, record {record!r}"
                    ),
                    explain=lambda frame: (
                        ResultsTable(
                            frame,
                            direction=wanted,
                            **roles,  # type: ignore[arg-type]
                        )._contents
                    ),
                    needed=columns,
                    direction=wanted,
                )
            )
            return
        data = source
        require_columns(data, roles, _HOW_TO_NAME)
        series = data[loss]
        values = loss_values(series, f"loss column {loss!r}")
        binary = column_is_binary(series, values)  # checked once: 0/1 values stay 0/1 as losses
        metric, how = record_metric(str(loss), values, data[model], wanted, binary=binary)
        self._adopt(
            record_contents(
                data,
                series,
                as_loss(values, metric),
                binary=binary,
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
        )
        if cluster is not None:
            attach_clusters(self, data, record, cluster)

    @classmethod
    def _from_contents(cls, contents: TableContents) -> ResultsTable:
        """The table of already built contents (the end of every constructor)."""
        table = cls.__new__(cls)
        table._adopt(contents)
        return table

    # ------------------------------------------------------------------ constructors

    @classmethod
    def from_formula(
        cls,
        formula: str,
        data: Any,
        *,
        record: str = "record",
        per_fold: bool = False,
        direction: Direction | None = None,
        test_train_ratio: float | None = None,
        higher_is_better: bool | None = None,
        engine: str | None = None,
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
        data : DataFrame, LazyFrame, relation or path
            The long-format results: a pandas, Polars, PyArrow, DuckDB, Dask,
            PySpark or Ibis frame, or the path (or glob) of Parquet or CSV files.
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
        engine : {"auto", "pandas", "duckdb", "polars"}, optional
            Where the aggregations run (:func:`cvreport.data.engines.resolve_source`):
            by default a frame's own engine, DuckDB for files.

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
        if cluster is not None and named_cluster is None:
            given = with_cluster_term(given, cluster)  # the table's formula names every role
        if cluster is not None and per_fold:
            raise DataError(
                f"cluster {cluster!r} groups records, but per_fold=True gives one score per "
                "fold and no records to group; give the per-record results to use clusters, "
                "or leave the cluster out"
            )
        if per_fold and metric_call(formula) is not None:
            raise per_fold_metric_error(given, metric_call(formula))

        from_metric = metric_formula(
            cls, formula, data, record=record, cluster=cluster, engine=engine
        )
        if from_metric is not None:
            from_metric._formula = given
            return from_metric
        parsed = parse_formula(formula)
        wanted = check_direction(direction, higher_is_better)
        roles: dict[str, str | None] = {"model": parsed.model}
        roles.update(zip(("replication", "fold"), parsed.blocks))
        how_to_fix = f"The formula {formula!r} names them."
        source = resolve_source(data, engine)
        if isinstance(source, EngineSource) and per_fold:
            source = source.to_pandas()  # one score per fold: small by nature
        columns = source.columns if isinstance(source, EngineSource) else list(source.columns)
        if not per_fold:
            roles["record"] = record
            if record not in columns:
                how_to_fix += (
                    " If the left side is one score per fold (e.g. an AUC), pass per_fold=True "
                    "(--per-fold on the command line); otherwise name the record column with "
                    "record=... (--record)."
                )
        if isinstance(source, EngineSource):
            require_named_columns(columns, roles, how_to_fix)
            if parsed.response_is_column and parsed.response not in columns:
                evaluate_response(parsed, source.to_pandas(columns[:1]).iloc[:0])
            table = cls._from_contents(
                replace(
                    formula_contents(
                        source,
                        formula,
                        parsed,
                        record=record,
                        direction=wanted,
                        explain=lambda frame: (
                            cls.from_formula(
                                formula, frame, record=record, direction=wanted
                            )._contents
                        ),
                    ),
                    formula=given,
                )
            )
            if cluster is not None:  # only the record and cluster columns leave the engine
                wanted_columns = [c for c in (record, cluster) if c in columns]
                attach_clusters(table, source.to_pandas(wanted_columns), record, cluster)
            return table
        data = source
        require_columns(data, roles, how_to_fix)
        response = evaluate_response(parsed, data)
        replication, fold = parsed.replication_and_fold
        if len(parsed.blocks) == 1 and not per_fold and records_repeat_across(data, fold, record):
            replication, fold = fold, None
        n_rows = data.shape[0]
        if per_fold:
            contents = fold_score_contents(
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
            binary = column_is_binary(response, values)
            metric, how = record_metric(
                parsed.response, values, data[parsed.model], wanted, binary=binary
            )
            contents = record_contents(
                data,
                response,
                as_loss(values, metric),
                binary=binary,
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
                truth, prediction = truth_and_prediction(compared[0], compared[2])
                contents = replace(
                    contents,
                    prediction_columns=prediction_frame(
                        data, parsed.model, replication, fold, record, truth, prediction
                    ),
                )
        table = cls._from_contents(replace(contents, formula=given))
        if cluster is not None and not per_fold:
            attach_clusters(table, data, record, cluster)
        return table

    @classmethod
    def from_predictions(
        cls,
        data: Any,
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
        engine: str | None = None,
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
            scores = (
                [score]
                if isinstance(score, str)
                else list(score.values() if isinstance(score, Mapping) else score or [])
            )
            frame = metric_frame(data, engine, [*roles.values(), *scores, cluster])
            return build_metric_table(
                cls,
                frame,
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
        wanted = check_direction(direction)
        shown = Metric(
            "accuracy" if wanted == "higher" else "error rate", wanted or "lower", "proportion"
        )
        how = "given" if wanted else "predictions give 0/1 errors"
        loss_name = f"{prediction} {'==' if shown.higher_is_better else '!='} {truth}"
        source = resolve_source(data, engine)
        if isinstance(source, EngineSource):
            require_named_columns(source.columns, roles, _HOW_TO_NAME)
            return cls._from_contents(
                prediction_contents(
                    source,
                    roles,
                    lambda frame: (
                        cls.from_predictions(
                            frame,
                            direction=wanted,
                            **roles,  # type: ignore[arg-type]
                        )._contents
                    ),
                    metric=shown,
                    direction_note=how,
                    loss_name=loss_name,
                )
            )
        data = source
        require_columns(data, roles, _HOW_TO_NAME)
        loss = misclassified(data[truth], data[prediction], truth, prediction, data.index)
        contents = record_contents(
            data,
            None,
            loss,
            metric=shown,
            direction_note=how,
            model=model,
            replication=replication,
            fold=fold,
            record=record,
            loss_name=loss_name,
            source=(
                f"predictions {prediction!r} and truth {truth!r} of a {data.shape[0]:,}-row "
                "DataFrame: "
                f"model {model!r}, replication {replication!r}, fold {fold!r}, record {record!r}"
            ),
        )
        prediction_columns = prediction_frame(
            data, model, replication, fold, record, truth, prediction
        )
        return cls._from_contents(replace(contents, prediction_columns=prediction_columns))

    @classmethod
    def from_fold_scores(
        cls,
        data: Any,
        *,
        score: str = "score",
        model: str = "model",
        replication: str | None = "replication",
        fold: str | None = "fold",
        direction: Direction | None = None,
        test_train_ratio: float | None = None,
        higher_is_better: bool | None = None,
        engine: str | None = None,
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
        >>> table.differences("a", "b").round(2).to_numpy().tolist()  # auc(a) − auc(b)
        [[0.05, -0.04]]
        """
        roles = {"score": score, "model": model, "replication": replication, "fold": fold}
        source = resolve_source(data, engine)
        if isinstance(source, EngineSource):
            require_named_columns(source.columns, roles, _HOW_TO_NAME)
            source = source.to_pandas()  # one score per fold: small by nature
        data = source
        require_columns(data, roles, _HOW_TO_NAME)
        contents = fold_score_contents(
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
        return cls._from_contents(contents)

    # ------------------------------------------------------------------ descriptors

    @property
    def models(self) -> tuple[Any, ...]:
        """Model labels, in order of first appearance in the data."""
        cached = self.__dict__.get("_model_labels")
        if cached is None or cached[0] is not self._models:  # asked for every pair of a report
            cached = (self._models, labels_of(self._models))
            self.__dict__["_model_labels"] = cached
        return cached[1]

    @property
    def replications(self) -> tuple[Any, ...]:
        """Replication labels, sorted (the first is the smallest)."""
        return labels_of(self._replications)

    @property
    def folds(self) -> tuple[Any, ...]:
        """Fold labels, sorted (the same in every replication)."""
        return labels_of(self._folds)

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
    def has_records(self) -> bool:
        """Whether the table knows which record was in which fold of each replication.

        ``True`` for per-record losses and for a per-fold metric (AUC, F1, ...)
        computed from per-record predictions with a record column: the overlap
        audit and :meth:`membership` read it. Which tests apply still follows
        :attr:`per_record` (a per-fold metric is tested on its folds).
        """
        return self._has_records

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
        """``True`` for a score; prefer :attr:`metric`."""
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
    def test_train_ratio_note(self) -> str:
        """Where :attr:`test_train_ratio` came from: ``"given"`` or how it was inferred."""
        return self._test_train_ratio_note

    @property
    def n_rows(self) -> int:
        """Number of rows of the input data."""
        return self._n_rows

    def __repr__(self) -> str:
        return (
            f"<ResultsTable: {self._design.describe()}; models {describe_keys(self.models)}; "
            f"{self._metric.name} {self._loss_name!r}, {self._metric.direction} is better>"
        )
