"""The results table: cross-validation losses validated once, with their design.

A :class:`ResultsTable` holds, for every record of every validation fold of
every replication, each model's loss — or, for
:meth:`ResultsTable.from_fold_scores`, one score per fold. It is checked once
on construction (typed errors that name the offending columns and keys), its
design is detected (:class:`Design`), and its sufficient statistics
(:mod:`cvreport.data.sufficient`) are computed in the same pass and cached; every
test reads only those. Every constructor is the same three steps: the columns'
roles are resolved once (:mod:`cvreport.data.roles`), the backend of the data is
found (:func:`cvreport.data.backends.backend_for`: in memory for pandas, else
the frame's engine), and the table adopts the contents that backend builds.

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

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from cvreport.data.backends import backend_for
from cvreport.data.build import TableContents, check_ratio, labels_of
from cvreport.data.clusters import attach_clusters
from cvreport.data.design import DESIGN_KINDS, Design
from cvreport.data.direction import Provenance
from cvreport.data.metric import Direction, Metric
from cvreport.data.metrics import reader_name
from cvreport.data.roles import Roles
from cvreport.data.sufficient import SufficientStatistics
from cvreport.data.validation import (
    repeated_keys_error,
    require_distinct_roles,
    separating_column,
)
from cvreport.data.views import TableViews
from cvreport.errors import AssumedDirectionWarning, DataError, describe_keys, user_stacklevel
from cvreport.spelling import option

__all__ = ["DESIGN_KINDS", "Design", "ResultsTable"]


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
        roles = Roles.of_losses(
            loss=loss,
            model=model,
            replication=replication,
            fold=fold,
            record=record,
            direction=direction,
            cluster=cluster,
        )
        self._adopt_contents(contents_of(roles, data, engine))

    @classmethod
    def _from_roles(cls, roles: Roles, data: Any, engine: str | None = None) -> ResultsTable:
        """The table of ``roles`` read from ``data`` (the end of every constructor)."""
        require_distinct_roles(roles.columns_by_role)
        contents = contents_of(roles, data, engine)
        if roles.test_train_ratio is not None:
            # per-record losses infer n2/n1 from the records; a ratio the user gives wins
            contents = replace(
                contents,
                test_train_ratio=check_ratio(roles.test_train_ratio),
                test_train_ratio_note=Provenance.GIVEN,
            )
        return cls._from_contents(contents)

    @classmethod
    def _from_contents(cls, contents: TableContents) -> ResultsTable:
        """The table of already built contents."""
        table = cls.__new__(cls)
        table._adopt_contents(contents)
        return table

    def _adopt_contents(self, contents: TableContents) -> None:
        """Adopt the contents; then the records a metric keeps, and the cluster role."""
        clusters = contents.clusters
        if Provenance.of(contents.direction_note).assumed:
            warn_assumed_direction(contents.loss_name, contents.metric.direction)
        self._adopt(contents)
        if contents.record_predictions is not None:
            self._record_predictions = contents.record_predictions
        if clusters is not None:
            self._contents = replace(contents, clusters=None)  # the rows are not kept
            attach_clusters(
                self,
                clusters.frame,
                clusters.record,
                clusters.cluster,
                clusters.membership,
            )

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
        :meth:`from_fold_scores` with ``fold=None`` for repeated hold-out scores) —
        unless consecutive groups partition the records several times over: those
        are the folds of repeated K-fold numbered across the replications (0..99
        for 10×10 CV), which one block cannot describe, and a :class:`DesignError`
        names the replications they form and asks for the replication column.

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
            Validation size over training size (n2/n1 of the corrected t tests). Per-fold
            scores need it for a repeated hold-out design; for per-record losses it
            replaces the ratio inferred from the records (give it when the models were
            trained on records the table does not hold).
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
            The name or the values of the left side contradict ``direction``; keys
            repeat (the message names a column left out of the formula, such as a
            data set column, that would make them unique).
        DesignError
            One block whose groups are the folds of several K-fold runs.

        Warns
        -----
        AssumedDirectionWarning
            Neither ``direction`` nor the left side's name says which way is better,
            so the values are read as losses (the report's Metric row says
            "assumed").

        Examples
        --------
        >>> df = pd.DataFrame({"split": [1, 1, 1, 1], "clf": ["a", "a", "b", "b"],
        ...                    "id": [7, 8, 7, 8], "pred": [1, 0, 1, 1], "truth": [1, 1, 1, 1]})
        >>> table = ResultsTable.from_formula("{pred != truth} ~ clf | split", df, record="id")
        >>> table.loss_name, table.models, table.design.kind
        ('pred != truth', ('a', 'b'), 'holdout')
        """
        roles = Roles.from_formula(
            formula,
            record=record,
            per_fold=per_fold,
            direction=direction,
            higher_is_better=higher_is_better,
            test_train_ratio=test_train_ratio,
            cluster=cluster,
        )
        return cls._from_roles(roles, data, engine)

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
        roles = Roles.of_predictions(
            truth=truth,
            prediction=prediction,
            model=model,
            replication=replication,
            fold=fold,
            record=record,
            direction=direction,
            metric=metric,
            score=score,
            cluster=cluster,
            pos_label=pos_label,
        )
        return cls._from_roles(roles, data, engine)

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
        show it as given. A column named after a bounded metric (``auc``, ``accuracy``,
        ``f1``, ``mcc``, also after a prefix such as ``test_`` or ``val_``) must hold values
        in that metric's range: percentages are refused with a request to divide by 100
        (:func:`~cvreport.data.metrics.named_metric_range`).

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
        roles = Roles.of_fold_scores(
            score=score,
            model=model,
            replication=replication,
            fold=fold,
            direction=direction,
            higher_is_better=higher_is_better,
            test_train_ratio=test_train_ratio,
        )
        return cls._from_roles(roles, data, engine)

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
            f"{self._metric_words()}, {self._metric.direction} is better>"
        )

    def _metric_words(self) -> str:
        """The metric as a reader names it, and the column or metric name it was read from."""
        words = reader_name(self._metric.name)
        return words if self._loss_name == words else f"{words} ({self._loss_name!r})"


def warn_assumed_direction(column: str, direction: str) -> None:
    """Warn that ``column`` is read in the default direction, which nothing told.

    A table of accuracies under a name that says nothing (``value``, ``proba``)
    would otherwise be tested as losses, and every verdict turned around, with only
    the report's Metric row to say so.

    Warns
    -----
    AssumedDirectionWarning
        Naming the column and the option that says which way is better.
    """
    read, other = _READINGS[direction]
    warnings.warn(
        f"column {column!r} is read as {read}, an assumption: neither its name nor a "
        f"direction said which way is better. If it holds {other}, pass "
        f"{option('direction', _OTHER[direction])}, or the verdicts are turned around; pass "
        f"{option('direction', direction)} to confirm the reading",
        AssumedDirectionWarning,
        stacklevel=user_stacklevel(),
    )


_READINGS = {
    "lower": (
        "a loss (lower is better)",
        "a score (an accuracy, an AUC, a probability of the right class)",
    ),
    "higher": ("a score (higher is better)", "a loss (an error rate, a log loss)"),
}
_OTHER = {"lower": "higher", "higher": "lower"}


def contents_of(roles: Roles, data: Any, engine: str | None) -> TableContents:
    """The contents ``roles`` read from ``data``; repeated keys that a column no role names
    would make unique are refused with that column named (a data set column left out)."""
    backend = backend_for(data, engine)
    try:
        return backend.contents(roles)
    except DataError as error:
        repeated = getattr(error, "repeated_keys", None)
        if repeated is None:
            raise
        names = repeated[0]
        used = {c for c in roles.columns_by_role.values() if c is not None}
        response = roles.parsed.response if roles.parsed is not None else ""
        candidates = [
            c
            for c in backend.columns
            if isinstance(c, str) and c not in used and c not in names.columns
            and not (response and c in response)
        ]
        column = _separating(backend, names.columns, candidates)
        if column is None:
            raise
        raise repeated_keys_error(
            *repeated, separating=column, in_formula=roles.formula is not None
        ) from None


def _separating(backend: Any, keys: list[str], candidates: list[str]) -> str | None:
    """:func:`separating_column` of the backend's rows, in their engine."""
    if not candidates:
        return None
    import narwhals.stable.v2 as nw

    source = getattr(backend, "source", None)
    if source is None:  # in memory
        return separating_column(nw.from_native(backend.frame).lazy(), keys, candidates)
    with source.errors():
        return separating_column(source.frame, keys, candidates)
