"""Where a results table's rows are read: one protocol, one module per backend.

:class:`Backend` is the protocol every backend follows, under the same names:
:class:`~cvreport.data.backends.memory.MemoryBackend` lays a pandas DataFrame
out in memory; :class:`~cvreport.data.backends.engine.EngineBackend` has the
engine that holds any other frame (Polars, PyArrow, DuckDB, Dask, PySpark, Ibis,
or Parquet and CSV files scanned by DuckDB) aggregate it. A table's
constructors resolve the :class:`~cvreport.data.roles.Roles` once, ask
:func:`backend_for` for the backend of their data, and adopt its
:meth:`Backend.contents`.

Examples
--------
>>> import pandas as pd
>>> backend_for(pd.DataFrame({"model": ["a"], "loss": [0.0]})).kind
'DataFrame'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import pandas as pd

from cvreport.data.backends.engine import EngineBackend
from cvreport.data.backends.memory import MemoryBackend, label_columns
from cvreport.data.build import TableContents
from cvreport.data.engines import (
    EngineSource,
    check_engine,
    describe_paths,
    names_csv_files,
    resolve_source,
)
from cvreport.data.roles import Roles
from cvreport.errors import CVReportError

__all__ = [
    "Backend",
    "EngineBackend",
    "MemoryBackend",
    "backend_for",
    "formula_label_columns",
    "label_columns",
]


class Backend(Protocol):
    """What a table reads of the rows, wherever they are."""

    @property
    def kind(self) -> str:
        """What holds the rows, for the table's source line."""
        ...

    @property
    def columns(self) -> list[Any]:
        """The column names."""
        ...

    def contents(self, roles: Roles) -> TableContents:
        """Validate the columns ``roles`` names and summarise them into a table's contents:
        labels, sufficient statistics, design, and a lazy per-record accessor."""
        ...

    def columns_for_metric(self, roles: Roles) -> pd.DataFrame:
        """The rows of the columns a metric from predictions reads, in memory."""
        ...

    def to_memory(self, columns: Sequence[Any] | None = None) -> pd.DataFrame:
        """The rows (of some columns) as a pandas DataFrame: for inputs small by nature."""
        ...

    def check_dataset_column(self, dataset: str, named_by: str) -> None:
        """Raise :class:`~cvreport.errors.DataError` unless ``dataset`` names every row's
        data set."""
        ...

    def datasets(self, dataset: str) -> Iterator[tuple[Any, Backend]]:
        """Each data set's label and its rows as a backend of the same kind."""
        ...


def backend_for(data: Any, engine: str | None = None) -> Backend:
    """The backend of ``data``: in memory for a pandas DataFrame, else its engine.

    Parameters
    ----------
    data : DataFrame, LazyFrame, relation, path or Backend
        Any source :func:`~cvreport.data.engines.resolve_source` reads; a backend
        is returned as it is (a pandas one is read again when ``engine`` asks for
        another engine).
    engine : {"auto", "pandas", "duckdb", "polars"}, optional
        Where the aggregations run (:func:`~cvreport.data.engines.resolve_source`).

    Raises
    ------
    DataError
        As :func:`~cvreport.data.engines.resolve_source`.
    """
    if isinstance(data, MemoryBackend):
        if resolve_source(data.frame, engine) is data.frame:  # it stays in pandas
            return data
        data = data.frame
    elif isinstance(data, EngineBackend):
        check_engine(engine)  # the rows stay in their engine; the name is checked all the same
        return data
    source = resolve_source(data, engine)
    if isinstance(source, EngineSource):
        return EngineBackend(source)
    files = describe_paths(data)
    if files is None:
        return MemoryBackend(source)
    read_from = f"{files} (pandas)"  # files read whole into pandas
    if not names_csv_files(data):
        return MemoryBackend(source, kind=read_from)
    cached: dict[frozenset[str], pd.DataFrame] = {}

    def reread(text: frozenset[str]) -> pd.DataFrame:
        """The CSV files read again into pandas with the columns of ``text`` as text."""
        if text not in cached:
            frame = resolve_source(data, engine, text=text)
            assert isinstance(frame, pd.DataFrame)  # the engine that read them first
            cached[text] = frame
        return cached[text]

    return MemoryBackend(source, reread, kind=read_from)


def formula_label_columns(formula: str, *, cluster: str | None = None) -> list[str]:
    """The label columns (:func:`label_columns`) a table's formula names: the model and the
    cluster; none when the formula cannot be read (building the table words why).

    For a reader of CSV files that reads before the table is built (the command line).

    Examples
    --------
    >>> formula_label_columns("loss ~ clf | replication + fold + cluster(patient)")
    ['clf', 'patient']
    """
    try:
        roles = Roles.from_formula(formula, cluster=cluster)
    except CVReportError:
        return []
    return label_columns(roles)
