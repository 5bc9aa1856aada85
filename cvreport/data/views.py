"""What a results table shows: its models, summary, per-fold errors, differences, 2×2 tables.

:class:`TableViews` is the part of :class:`~cvreport.data.table.ResultsTable`
that reads the validated contents — the sufficient statistics and, on demand,
the per-record layout — and turns them into pandas frames and a
:class:`~cvreport.rendering.summary.Summary`. It computes no statistic.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.data.build import score_offset
from cvreport.data.design import Design, size_range
from cvreport.data.labels import labels_named
from cvreport.data.metric import Metric
from cvreport.data.sufficient import FoldBlock, SufficientStatistics, training_sizes
from cvreport.data.validation import show
from cvreport.errors import DataError, DesignError, describe_keys
from cvreport.rendering.display import SummaryDisplay
from cvreport.rendering.summary import Summary
from cvreport.summary_data import SummaryRow, SummaryTable

if TYPE_CHECKING:
    from cvreport.data.build import TableContents

__all__ = ["TableViews"]


class TableViews(SummaryDisplay):
    """Summary and accessors of a results table (mixed into ``ResultsTable``)."""

    _models: pd.Index
    _replications: pd.Index
    _folds: pd.Index
    _records: pd.Index | None
    _blocks: tuple[FoldBlock, ...] | None
    _stats: SufficientStatistics
    _design: Design
    _is_binary: bool
    _per_record: bool
    _has_records: bool
    _higher_is_better: bool | None
    _metric: Metric
    _direction_note: str
    _loss_name: str
    _formula: str | None
    _source: str
    _test_train_ratio: float | None
    _test_train_ratio_note: str
    _prediction_columns: dict[str, pd.Series] | None
    _n_rows: int
    _contents: TableContents

    models: tuple[Any, ...]

    def to_metric(self, losses: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _adopt(self, contents: TableContents) -> None:
        self._contents = contents
        self._models = contents.models
        self._replications = contents.replications
        self._folds = contents.folds
        self._records = contents.records
        self._blocks = contents.blocks
        self._stats = _with_training_sizes(contents)
        self._design = contents.design
        self._is_binary = contents.is_binary
        self._per_record = contents.per_record
        self._has_records = contents.per_record or contents.stats.patterns is not None
        self._metric = contents.metric
        self._direction_note = contents.direction_note
        self._score_offset = _score_offset(contents.metric)
        self._higher_is_better = contents.metric.higher_is_better
        self._loss_name = contents.loss_name
        self._formula = contents.formula
        self._source = contents.source
        self._test_train_ratio = contents.test_train_ratio
        self._test_train_ratio_note = contents.test_train_ratio_note
        self._prediction_columns = contents.prediction_columns
        self._kept = contents.kept
        self._n_rows = contents.n_rows
        self._route = contents.route

    def _record_layout(self) -> tuple[pd.Index, tuple[FoldBlock, ...], np.ndarray]:
        """Records, fold blocks and membership (fetched from the engine on first use)."""
        if self._blocks is None:
            assert self._contents.layout is not None
            layout = self._contents.layout()
            self._records, self._blocks = layout.records, layout.blocks
            self._membership = layout.membership
        assert self._records is not None
        membership = self._stats.membership
        if membership is None:
            membership = self._membership
        return self._records, self._blocks, membership

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
        >>> from cvreport.data.table import ResultsTable
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
        matches = labels_named(label, models)
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

    def require_records(self, what: str) -> None:
        """Raise :class:`DesignError` unless the table knows which record was in which fold.

        Per-record losses know it, and so does a per-fold metric computed from
        per-record predictions with record ids.
        """
        if not self._has_records:
            raise DesignError(
                f"{what} needs per-record losses or predictions (which record was in which "
                f"fold), but this table holds one score per fold ({self._source}); build the "
                "table from per-record losses or predictions with a record column "
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
        >>> from cvreport.data.table import ResultsTable
        >>> s = ResultsTable(df, replication=None).summary()
        >>> [row.value for row in s.rows][:2]
        ['2-fold cross-validation (K = 2, n = 4 records, folds of 2)', 'a, b']
        >>> [table.caption for table in s.tables]
        ['Mean loss per model over the folds', 'Records per validation fold']
        """
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
                    f"(all range from {size_range(design.sizes)} records)."
                )
        return Summary(
            title="Results table",
            rows=tuple(rows),
            tables=tuple(tables),
            notes=tuple(notes),
        )

    # ------------------------------------------------------------------ accessors

    def fold_errors(self) -> pd.DataFrame:
        """Mean internal loss of each model on each fold: what the tests work on.

        A loss is as given; 0/1 hits are errors ``1 − hit``; any other score is
        negated. ``table.to_metric(frame["loss"])`` gives the metric back, and
        :meth:`differences` gives the differences in the metric.

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
        """Per-fold differences of the metric, A − B (the ``p_i^(j)`` of Dietterich 1998).

        In the table's metric and direction, as every result: auc(A) − auc(B) for
        an ``auc`` column, loss(A) − loss(B) for a loss.

        Returns
        -------
        pandas.DataFrame
            Index: replications (sorted); columns: folds (sorted). ``.to_numpy()``
            is the ``(m, K)`` array; ``(J, 1)`` for (repeated) hold-out.
        """
        frame = self.loss_differences(a, b)
        return 0.0 - frame if self._metric.higher_is_better else frame

    def loss_differences(self, a: Any = None, b: Any = None) -> pd.DataFrame:
        """Per-fold differences of the internal loss the tests run on (see :meth:`fold_errors`).

        The same frame as :meth:`differences`, negated for a score.
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
        """Per-record differences of the metric, A − B (hit(A) − hit(B) for 0/1 hits).

        Returns
        -------
        pandas.DataFrame
            Columns ``replication, fold, record, difference``, ordered by
            replication and fold.
        """
        frame = self.record_loss_differences(a, b)
        if self._metric.higher_is_better:
            frame["difference"] = 0.0 - frame["difference"]
        return frame

    def record_loss_differences(self, a: Any = None, b: Any = None) -> pd.DataFrame:
        """Per-record differences of the internal loss, A − B (see :meth:`fold_errors`)."""
        self.require_per_record("record_differences")
        self._record_layout()
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
        self.require_records("the fold membership of records")
        records, _, membership = self._record_layout()
        return records.to_numpy(), membership

    def membership_patterns(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct fold-membership patterns of the records, and how many share each.

        What the overlap audit and the balance check read: a few rows however many
        records there are (at most ``K**m``), computed where the data lives.

        Returns
        -------
        patterns : numpy.ndarray
            ``(P, m)`` int32: a pattern's fold position in each replication (``-1``
            where its records are absent), rows in lexicographic order.
        counts : numpy.ndarray
            ``(P,)`` int64: records with each pattern.

        Examples
        --------
        >>> from cvreport.data.table import ResultsTable
        >>> df = pd.DataFrame({"replication": [1] * 8 + [2] * 8,
        ...                    "fold": [1, 1, 2, 2] * 2 + [1, 2, 1, 2] * 2,
        ...                    "model": (["a"] * 4 + ["b"] * 4) * 2,
        ...                    "record": [0, 1, 2, 3] * 4, "loss": [0, 1] * 8})
        >>> patterns, counts = ResultsTable(df).membership_patterns()
        >>> patterns.tolist(), counts.tolist()
        ([[0, 0], [0, 1], [1, 0], [1, 1]], [1, 1, 1, 1])
        """
        self.require_records("the fold membership of records")
        assert self._stats.patterns is not None
        return self._stats.patterns.patterns, self._stats.patterns.counts

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
        train = self._stats.train_sizes
        if train is None:
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
        if self._contents.fetch_predictions is not None:
            return self._contents.fetch_predictions()
        if self._prediction_columns is None:
            return None
        return pd.DataFrame(
            {
                name: series.reset_index(drop=True)
                for name, series in self._prediction_columns.items()
            }
        )


def _with_training_sizes(contents: TableContents) -> SufficientStatistics:
    """The contents' statistics with the training sizes and n2/n1 the table knows."""
    stats = contents.stats
    train = training_sizes(
        stats.counts[:, :, 0],
        per_record=contents.per_record,
        n_records=contents.design.n_records,
    )
    return dataclasses.replace(stats, train_sizes=train, test_train_ratio=contents.test_train_ratio)


def _score_offset(metric: Metric) -> float:
    return score_offset(metric)
