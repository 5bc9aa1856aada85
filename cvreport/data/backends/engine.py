"""The engine backend: a frame held by another engine, summarised where it lives.

A Polars, PyArrow, DuckDB, Dask, PySpark or Ibis frame, or Parquet and CSV
files scanned by DuckDB (:mod:`cvreport.data.engines`), offers the operations
of :mod:`cvreport.data.backends.memory` under the same names. The checks and
the sufficient statistics are group-by aggregations the engine runs
(:mod:`cvreport.data.pushdown`); only kilobytes come back. Rows come into
pandas only where they are small by nature (one score per fold, the columns a
metric from predictions reads) or where the engine cannot compute a value, and
then they are laid out by the in-memory backend, which words every error the
same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from cvreport.data.backends.memory import MemoryBackend
from cvreport.data.build import ClusterRows, TableContents
from cvreport.data.engines import EngineSource, as_pandas_text, narwhals
from cvreport.data.formula import evaluate_response
from cvreport.data.pushdown import (
    engine_column,
    engine_contents,
    formula_contents,
    prediction_contents,
)
from cvreport.data.roles import Roles
from cvreport.data.validation import require_named_columns
from cvreport.errors import DataError, describe_keys

__all__ = ["EngineBackend"]

_FIRST_ROWS = 1 << 12  # rows read first to find the data sets' order of appearance
_MOST_FIRST_ROWS = 1 << 24


class EngineBackend:
    """A frame held by another engine, as an :class:`~cvreport.data.engines.EngineSource`.

    Parameters
    ----------
    source : EngineSource
        The frame, lazily.
    """

    def __init__(self, source: EngineSource) -> None:
        self.source = source

    @property
    def kind(self) -> str:
        """What the frame is, for the table's source line."""
        return self.source.kind

    @property
    def columns(self) -> list[str]:
        """The column names."""
        return self.source.columns

    # ------------------------------------------------------------------ the table's contents

    def contents(self, roles: Roles) -> TableContents:
        """Validate the columns ``roles`` name and summarise them inside the engine."""
        if roles.outcome == "metric":
            return MemoryBackend(self.columns_for_metric(roles)).contents(roles)
        if roles.outcome == "fold_score":  # one score per fold: small by nature
            require_named_columns(self.columns, roles.named, roles.how_to_name(self.columns))
            return MemoryBackend(self.source.to_pandas()).contents(roles)
        require_named_columns(self.columns, roles.named, roles.how_to_name(self.columns))
        alone = replace(roles, cluster=None)  # the rows pandas explains carry no clusters

        def explain(frame: pd.DataFrame) -> TableContents:
            """The in-memory backend's contents: its validation words a problem found here."""
            return MemoryBackend(frame).contents(alone)

        if roles.outcome == "predictions":
            shown, how, loss_name = roles.prediction_metric()
            contents = prediction_contents(
                self.source,
                dict(roles.named),
                explain,
                metric=shown,
                direction_note=how,
                loss_name=loss_name,
            )
        elif roles.parsed is not None:
            contents = self._formula_losses(roles, explain)
        else:
            contents = engine_contents(
                self.source,
                response=engine_column(self.source, str(roles.response)),
                model=roles.model,
                replication=roles.replication,
                fold=roles.fold,
                record=str(roles.record),
                loss_name=roles.response_name,
                describe=lambda n: roles.source_line(n, self.kind),
                explain=explain,
                needed=[c for c in roles.named.values() if c is not None],
                direction=roles.direction,
            )
        if roles.cluster is None:
            return contents
        # only the record and cluster columns leave the engine
        wanted = [c for c in (roles.record, roles.cluster) if c in self.columns]
        rows = self.source.to_pandas(wanted)
        return replace(contents, clusters=ClusterRows(rows, str(roles.record), roles.cluster))

    def _formula_losses(self, roles: Roles, explain: Any) -> TableContents:
        parsed = roles.parsed
        assert parsed is not None
        columns = self.columns
        if parsed.response_is_column and parsed.response not in columns:
            evaluate_response(parsed, self.source.to_pandas(columns[:1]).iloc[:0])
        contents = formula_contents(
            self.source,
            parsed.text,
            parsed,
            record=str(roles.record),
            direction=roles.direction,
            explain=explain,
        )
        return replace(contents, formula=roles.formula)

    # ------------------------------------------------------------------ columns and parts

    def columns_for_metric(self, roles: Roles) -> pd.DataFrame:
        """Only the columns a metric from predictions reads, as a pandas DataFrame.

        When one of them is absent, the columns of no row come back, so that the
        in-memory validation names the missing column among those the data has.
        """
        source = self.source
        wanted = roles.metric_columns
        present = set(source.columns)
        if all(c in present for c in wanted):
            source.check_plain(wanted)
            return source.to_pandas(wanted)
        with source.errors():
            return as_pandas_text(source.frame.head(0).collect().to_pandas())

    def to_memory(self, columns: Sequence[Any] | None = None) -> pd.DataFrame:
        """The rows (of some columns) as a pandas DataFrame."""
        return self.source.to_pandas(columns)

    def check_dataset_column(self, dataset: str, named_by: str) -> None:
        """Raise :class:`DataError` unless ``dataset`` is a column naming every row's data set.

        The engine counts the missing labels; only the data set column comes out,
        to name the first rows, when some are missing.
        """
        columns = self.columns
        if dataset not in columns:
            raise DataError(
                f"the data set column {dataset!r} {named_by} is not in the data (columns "
                f"{describe_keys(columns, 12)})"
            )
        nw = narwhals()
        self.source.check_plain([dataset])
        with self.source.errors():
            missing = nw.col(dataset).is_null().cast(nw.Int64).sum().alias("n")
            counted = self.source.frame.select(missing)
            n_missing = int(counted.collect().to_pandas()["n"].iloc[0])
        if n_missing:
            MemoryBackend(self.source.to_pandas([dataset])).check_dataset_column(dataset, named_by)

    def datasets(self, dataset: str) -> Iterator[tuple[Any, EngineBackend]]:
        """Each data set's label and its rows, still in the engine, in order of first appearance.

        Only the labels come back (one row per data set); each data set's rows
        are the frame filtered on its label, aggregated by the engine in turn.
        """
        nw = narwhals()
        source = self.source
        with source.errors():
            labels = source.frame.select(nw.col(dataset)).unique().collect().to_pandas()[dataset]
        for name in _first_appearance(source, dataset, labels.tolist()):
            part = source.frame.filter(nw.col(dataset) == name)
            yield name, EngineBackend(EngineSource(part, source.kind, source.files))


def _first_appearance(source: EngineSource, column: str, labels: list[Any]) -> list[Any]:
    """``labels`` in order of their first row (read from the first rows only; rest sorted)."""
    wanted = set(labels)
    n = _FIRST_ROWS
    order: list[Any] = []
    while True:
        with source.errors():
            head = source.frame.select(column).head(n).collect().to_pandas()[column]
        order = list(dict.fromkeys(v for v in head.tolist() if v in wanted))
        if len(order) == len(wanted) or head.shape[0] < n or n >= _MOST_FIRST_ROWS:
            break
        n *= 8
    seen = set(order)
    try:
        rest = sorted(v for v in labels if v not in seen)
    except TypeError:
        rest = [v for v in labels if v not in seen]
    return order + rest
