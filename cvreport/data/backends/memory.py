"""The in-memory backend: a pandas DataFrame, laid out with numpy.

Validates the columns the roles name and lays the rows out in memory
(:mod:`cvreport.data.layout`); :mod:`cvreport.data.backends.engine` offers the
same operations for a frame held by another engine.

Examples
--------
>>> import pandas as pd
>>> from cvreport.data.roles import Roles
>>> frame = pd.DataFrame({"model": ["a", "b"] * 2, "fold": [1, 1, 2, 2],
...                       "record": [0, 0, 1, 1], "loss": [1, 0, 0, 0]})
>>> roles = Roles.from_formula("loss ~ model | fold")
>>> MemoryBackend(frame).contents(roles).stats.shape
(1, 2, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import pandas as pd

from cvreport.data.build import (
    ClusterRows,
    TableContents,
    as_loss,
    fold_score_contents,
    misclassified,
    prediction_frame,
    record_contents,
    record_metric,
    truth_and_prediction,
)
from cvreport.data.design import refuse_partitioned_blocks
from cvreport.data.direction import comparison_columns
from cvreport.data.formula import evaluate_response
from cvreport.data.labels import refuse_labels_that_print_alike
from cvreport.data.predictions import metric_contents
from cvreport.data.roles import Roles
from cvreport.data.validation import column_is_binary, loss_values, require_columns
from cvreport.errors import DataError, describe_keys

__all__ = ["MemoryBackend", "label_columns"]

Reread = Callable[[frozenset[str]], pd.DataFrame]
"""Read the rows again with some columns as text (for rows read from CSV files)."""


def label_columns(roles: Roles) -> list[str]:
    """The columns ``roles`` read as labels: the model, the data set and the cluster.

    Read from CSV files, whose columns hold no types, they are read as the text
    they are written as (:meth:`MemoryBackend.with_text`,
    :meth:`~cvreport.data.engines.EngineSource.with_text`): a model ``007`` or
    ``1e3`` keeps its name on every engine. Replications and folds keep the types
    the values give (integer ids sort as numbers), and losses stay numbers.

    Examples
    --------
    >>> label_columns(Roles.from_formula("loss ~ clf | fold", cluster="patient"))
    ['clf', 'patient']
    """
    wanted = (roles.model, roles.dataset, roles.cluster)
    return [c for c in dict.fromkeys(wanted) if c is not None]


class MemoryBackend:
    """A pandas DataFrame's rows, validated and laid out in memory.

    Parameters
    ----------
    frame : pandas.DataFrame
        The long-format results.
    reread : callable, optional
        For rows read from CSV files: read them again with the columns it is
        given as text (:meth:`with_text`).
    text : frozenset of str
        The columns read as text by ``reread`` already.
    kind : str
        What the rows are, for the table's source line: ``"DataFrame"``, or the file
        they were read from (``"table of CSV file 'losses.csv' (pandas)"``).
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        reread: Reread | None = None,
        text: frozenset[str] = frozenset(),
        *,
        kind: str = "DataFrame",
    ) -> None:
        self.frame = frame
        self.kind = kind
        self._reread = reread
        self._text = text
        self._with_text: dict[frozenset[str], MemoryBackend] = {}
        self._parts: dict[str, dict[Any, pd.DataFrame]] = {}

    def with_text(self, columns: Collection[str]) -> MemoryBackend:
        """The rows with ``columns`` read as text, as written, when they were read from CSV
        files (a number-like label ``007`` stays ``007``, as every engine reads it);
        otherwise, or when the columns hold text already, this backend."""
        if self._reread is None:
            return self
        data = self.frame
        wanted = {
            c
            for c in columns
            if c in data
            and c not in self._text
            and not (data[c].dtype == object or isinstance(data[c].dtype, pd.StringDtype))
        }
        if not wanted:
            return self
        text = self._text | wanted
        if text not in self._with_text:
            self._with_text[text] = MemoryBackend(
                self._reread(text), self._reread, text, kind=self.kind
            )
        return self._with_text[text]

    @property
    def columns(self) -> list[Any]:
        """The column names."""
        return list(self.frame.columns)

    # ------------------------------------------------------------------ the table's contents

    def contents(self, roles: Roles) -> TableContents:
        """Validate the columns ``roles`` name and summarise them into a table's contents."""
        labelled = self.with_text(label_columns(roles))
        if labelled is not self:
            return labelled.contents(roles)
        if roles.outcome == "metric":
            return metric_contents(self.columns_for_metric(roles), roles)
        if roles.outcome == "fold_score":
            return self._fold_scores(roles)
        contents = (
            self._predictions(roles) if roles.outcome == "predictions" else self._losses(roles)
        )
        if roles.cluster is None:
            return contents
        return replace(contents, clusters=ClusterRows(self.frame, str(roles.record), roles.cluster))

    def _losses(self, roles: Roles) -> TableContents:
        data = self.frame
        require_columns(data, roles.named, roles.how_to_name(self.columns))
        if roles.parsed is None:
            response = data[roles.response]
        else:
            response = evaluate_response(roles.parsed, data)
        roles = self._settled(roles)
        values = loss_values(response, roles.response_what)
        binary = column_is_binary(response, values)  # checked once: 0/1 values stay 0/1
        metric, how = record_metric(
            roles.response_name, values, data[roles.model], roles.direction, binary=binary
        )
        contents = record_contents(
            data,
            response,
            as_loss(values, metric),
            binary=binary,
            metric=metric,
            direction_note=how,
            model=roles.model,
            replication=roles.replication,
            fold=roles.fold,
            record=str(roles.record),
            loss_name=roles.response_name,
            source=roles.source_line(data.shape[0], self.kind),
        )
        if roles.parsed is None:
            return contents
        compared = comparison_columns(roles.response_name)
        if compared is not None and compared[0] in data and compared[2] in data:
            truth, prediction = truth_and_prediction(compared[0], compared[2])
            contents = replace(
                contents,
                prediction_columns=prediction_frame(
                    data,
                    roles.model,
                    roles.replication,
                    roles.fold,
                    str(roles.record),
                    truth,
                    prediction,
                ),
            )
        return replace(contents, formula=roles.formula)

    def _settled(self, roles: Roles) -> Roles:
        """A single block read as the replication when a record is scored in several groups
        (refused when those groups are the folds of several K-fold runs)."""
        if roles.one_block and refuse_partitioned_blocks(
            self.frame, str(roles.fold), str(roles.record), roles.response_name, roles.model
        ):
            return roles.settled(roles.fold, None)
        return roles

    def _fold_scores(self, roles: Roles) -> TableContents:
        data = self.frame
        require_columns(data, roles.named, roles.how_to_name(self.columns))
        scores = (
            data[roles.response] if roles.parsed is None else evaluate_response(roles.parsed, data)
        )
        contents = fold_score_contents(
            data,
            scores,
            model=roles.model,
            replication=roles.replication,
            fold=roles.fold,
            direction=roles.direction,
            test_train_ratio=roles.test_train_ratio,
            score_name=roles.response_name,
            source=roles.source_line(data.shape[0], self.kind),
        )
        return replace(contents, formula=roles.formula)

    def _predictions(self, roles: Roles) -> TableContents:
        data = self.frame
        require_columns(data, roles.named, roles.how_to_name(self.columns))
        truth, prediction, record = str(roles.truth), str(roles.prediction), str(roles.record)
        shown, how, loss_name = roles.prediction_metric()
        loss = misclassified(data[truth], data[prediction], truth, prediction, data.index)
        contents = record_contents(
            data,
            None,
            loss,
            metric=shown,
            direction_note=how,
            model=roles.model,
            replication=roles.replication,
            fold=roles.fold,
            record=record,
            loss_name=loss_name,
            source=roles.source_line(data.shape[0], self.kind),
        )
        kept = prediction_frame(
            data, roles.model, roles.replication, roles.fold, record, truth, prediction
        )
        return replace(contents, prediction_columns=kept)

    # ------------------------------------------------------------------ columns and parts

    def columns_for_metric(self, roles: Roles) -> pd.DataFrame:
        """The rows a metric from predictions reads: here, the frame as it is (its labels
        as text when read from CSV files)."""
        return self.with_text(label_columns(roles)).frame

    def to_memory(self, columns: Sequence[Any] | None = None) -> pd.DataFrame:
        """The rows as a pandas DataFrame (already one)."""
        return self.frame

    def check_dataset_column(self, dataset: str, named_by: str) -> None:
        """Raise :class:`DataError` unless ``dataset`` is a column naming every row's data set.

        Rows read from CSV files hold their data set labels as text from then on.
        """
        labelled = self.with_text([dataset])
        self.frame, self._text = labelled.frame, labelled._text
        data = self.frame
        if dataset not in data:
            raise DataError(
                f"the data set column {dataset!r} {named_by} is not in the data (columns "
                f"{describe_keys(data.columns, 12)})"
            )
        labels = data[dataset]
        if labels.isna().any():
            rows = list(data.index[labels.isna()][:5])
            raise DataError(
                f"the data set column {dataset!r} is missing on {int(labels.isna().sum())} "
                f"row(s) (first rows {rows}); every row must name its data set"
            )
        if labels.dtype == object:
            refuse_labels_that_print_alike(pd.Index(labels.unique()), dataset, "data set")

    def datasets(self, dataset: str) -> Iterator[tuple[Any, MemoryBackend]]:
        """Each data set's label and rows, in order of first appearance (rows read from CSV
        files read their labels as text, as :meth:`with_text`)."""
        whole = self.with_text([dataset])
        if whole._reread is None:
            for name, part in self.frame.groupby(dataset, sort=False):
                yield name, MemoryBackend(part)
            return
        for name, part in whole._groups(dataset).items():
            reread = partial(_rows_of_dataset, whole, dataset, name)
            yield name, MemoryBackend(part, reread, whole._text)

    def _groups(self, dataset: str) -> dict[Any, pd.DataFrame]:
        """Each data set's rows, grouped once for the rows read again (:meth:`with_text`)."""
        if dataset not in self._parts:
            self._parts[dataset] = dict(list(self.frame.groupby(dataset, sort=False)))
        return self._parts[dataset]


def _rows_of_dataset(
    whole: MemoryBackend, dataset: str, name: Any, text: frozenset[str]
) -> pd.DataFrame:
    """Data set ``name``'s rows of ``whole`` read again with ``text`` as text."""
    return whole.with_text(text)._groups(dataset)[name]
