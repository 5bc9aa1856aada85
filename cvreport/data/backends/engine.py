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
from functools import partial
from typing import Any

import pandas as pd

from cvreport.data.backends.memory import MemoryBackend, label_columns
from cvreport.data.build import ClusterRows, TableContents
from cvreport.data.design import refuse_partitioned_blocks_in_engine
from cvreport.data.engine_query import collect, first_appearance
from cvreport.data.engines import EngineSource, as_pandas_text, in_source_zone, narwhals
from cvreport.data.formula import evaluate_response
from cvreport.data.pushdown import (
    EngineRoute,
    MemoryHandover,
    contents_by_dataset,
    engine_contents,
    formula_route,
    losses_route,
    prediction_route,
)
from cvreport.data.roles import Roles
from cvreport.data.validation import require_named_columns
from cvreport.errors import CVReportError, DataError, describe_keys

__all__ = ["EngineBackend"]


class EngineBackend:
    """A frame held by another engine, as an :class:`~cvreport.data.engines.EngineSource`.

    Parameters
    ----------
    source : EngineSource
        The frame, lazily.
    shared : _DatasetsPass, optional
        For one data set's rows (from :meth:`datasets`): the pass that aggregates
        every data set at once, and this data set's label in it.
    """

    def __init__(
        self, source: EngineSource, shared: tuple[_DatasetsPass, Any] | None = None
    ) -> None:
        self.source = source
        self._shared = shared

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
        """Validate the columns ``roles`` name and summarise them inside the engine.

        The engine hands the table over to the in-memory backend
        (:class:`~cvreport.data.pushdown.MemoryHandover`) where it cannot compute a
        value or where the words of a problem need the rows. The label columns of CSV
        files are read as text (:func:`~cvreport.data.backends.memory.label_columns`).
        """
        labelled = self.source.with_text(label_columns(roles))
        if labelled is not self.source:
            return EngineBackend(labelled, self._shared).contents(roles)
        if roles.outcome == "metric":
            return MemoryBackend(self.columns_for_metric(roles)).contents(roles)
        if roles.outcome == "fold_score":  # one score per fold: small by nature
            require_named_columns(self.columns, roles.named, roles.how_to_name(self.columns))
            return MemoryBackend(self.source.to_pandas()).contents(roles)
        require_named_columns(self.columns, roles.named, roles.how_to_name(self.columns))
        contents = None
        if self._shared is not None:  # one of many data sets, all aggregated at once
            shared, label = self._shared
            contents = shared.contents(roles, label)
        if contents is None:
            try:
                contents = engine_contents(self.source, self._route(roles, self.source))
            except MemoryHandover as handover:
                contents = self._memory_contents(roles, handover)
        if roles.outcome != "predictions" and roles.parsed is not None:
            contents = replace(contents, formula=roles.formula)
        if roles.cluster is None:
            return contents
        # only the record and cluster columns leave the engine
        wanted = [c for c in (roles.record, roles.cluster) if c in self.columns]
        rows = self.source.to_pandas(wanted)
        return replace(contents, clusters=ClusterRows(rows, str(roles.record), roles.cluster))

    def _route(
        self, roles: Roles, source: EngineSource, block_is_replication: bool | None = None
    ) -> EngineRoute:
        """How the engine reads the per-record values ``roles`` name, from ``source`` (a
        formula's one block read as the replication or the fold from ``source``'s rows
        unless ``block_is_replication`` says which)."""
        if roles.outcome == "predictions":
            shown, how, loss_name = roles.prediction_metric()
            return prediction_route(
                source, dict(roles.named), metric=shown, direction_note=how, loss_name=loss_name
            )
        if roles.parsed is not None:
            parsed = roles.parsed
            if parsed.response_is_column and parsed.response not in source.columns:
                evaluate_response(parsed, source.to_pandas(source.columns[:1]).iloc[:0])
            return formula_route(
                source,
                parsed.text,
                parsed,
                record=str(roles.record),
                direction=roles.direction,
                block_is_replication=block_is_replication,
            )
        return losses_route(
            source,
            column=str(roles.response),
            model=roles.model,
            replication=roles.replication,
            fold=roles.fold,
            record=str(roles.record),
            loss_name=roles.response_name,
            describe=lambda n: roles.source_line(n, self.kind),
            needed=[c for c in roles.named.values() if c is not None],
            direction=roles.direction,
        )

    def _memory_contents(self, roles: Roles, handover: MemoryHandover) -> TableContents:
        """The in-memory backend's contents from the rows the engine handed over: its
        validation words a problem found here, or computes what the engine cannot."""
        rows = handover.rows(self.source)
        alone = replace(roles, cluster=None)  # the rows pandas reads carry no clusters
        with self.source.errors():
            return MemoryBackend(rows).contents(alone)

    # ------------------------------------------------------------------ columns and parts

    def columns_for_metric(self, roles: Roles) -> pd.DataFrame:
        """Only the columns a metric from predictions reads, as a pandas DataFrame.

        When one of them is absent, the columns of no row come back, so that the
        in-memory validation names the missing column among those the data has.
        """
        source = self.source.with_text(label_columns(roles))
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
        to name the first rows, when some are missing. CSV files hold their data set
        labels as text from then on (:meth:`~cvreport.data.engines.EngineSource.with_text`).
        """
        self.source = self.source.with_text([dataset])
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
        are the frame filtered on its label. The first data set whose contents
        are asked for has the engine aggregate every data set at once, with the
        data set column among the keys (:func:`~cvreport.data.pushdown.contents_by_dataset`);
        the others adopt their share, and a data set that pass could not build
        (an irregular design) is aggregated alone, which words its problem. A
        formula's one block is read in each data set from its own rows (the
        replication where its records repeat across the block's groups, else the
        fold), and the data sets of each kind share one pass.
        """
        nw = narwhals()
        source = self.source.with_text([dataset])
        with source.errors():
            found = source.frame.select(nw.col(dataset)).unique().collect().to_pandas()
            labels = in_source_zone(found)[dataset]
        parts = {
            name: _part(source, dataset, name, source.text)
            for name in _first_appearance(source, dataset, labels.tolist())
        }
        shared = _DatasetsPass(EngineBackend(source), dataset, parts)
        for name, part in parts.items():
            yield name, EngineBackend(part, (shared, name))


def _part(whole: EngineSource, dataset: str, name: Any, text: frozenset[str]) -> EngineSource:
    """Data set ``name``'s rows of ``whole`` (read with ``text`` as text, for CSV files)."""
    if whole.rescan is not None:
        whole = whole.rescan(text)
    frame = whole.frame.filter(narwhals().col(dataset) == name)
    rescan = None if whole.rescan is None else partial(_part, whole, dataset, name)
    return replace(whole, frame=frame, rescan=rescan)


class _DatasetsPass:
    """The one set of queries that aggregates every data set of a frame, run when the first
    data set's contents are asked for and kept for the others (for the same roles)."""

    def __init__(
        self, backend: EngineBackend, dataset: str, parts: dict[Any, EngineSource]
    ) -> None:
        self.backend, self.dataset, self.parts = backend, dataset, parts
        self._roles: Roles | None = None
        self._found: dict[Any, TableContents] = {}

    def contents(self, roles: Roles, label: Any) -> TableContents | None:
        """The contents of data set ``label`` from the shared pass; ``None`` when it must be
        built alone."""
        key = replace(roles, test_train_ratio=None, cluster=None, dataset=None)
        if key != self._roles:
            self._roles, self._found = key, self._run(replace(roles, cluster=None))
        return self._found.get(label)

    def _run(self, roles: Roles) -> dict[Any, TableContents]:
        parsed = roles.parsed
        text = label_columns(roles)  # CSV files' labels read as text, as each data set reads
        source = self.backend.source.with_text(text)
        parts = {label: part.with_text(text) for label, part in self.parts.items()}
        if roles.outcome != "predictions" and parsed is not None and len(parsed.blocks) == 1:
            return self._run_one_block(roles, parsed.blocks[0], source, parts)
        try:
            route = self.backend._route(roles, source)
            return contents_by_dataset(source, route, self.dataset, parts)
        except (CVReportError, MemoryHandover):
            return {}  # each data set alone words its problem

    def _run_one_block(
        self, roles: Roles, block: str, source: EngineSource, all_parts: dict[Any, EngineSource]
    ) -> dict[Any, TableContents]:
        """A formula's one block, read in each data set from its own rows (``all_parts`` of
        ``source``): the replication where a record of the data set is in several of its
        groups, else the fold (as each data set alone reads it). The data sets of each kind
        share one pass."""
        dataset, record = self.dataset, str(roles.record)
        if len({dataset, block, record}) < 3 or not {block, record} <= set(source.columns):
            return {}  # each data set alone words its problem
        if source.frame.implementation.name == "POLARS":
            # Polars answers each data set's own small queries faster than one group-by
            # over every (data set, record): 20 data sets × 1M rows took 5.0–5.5 processor
            # seconds alone against 8.8–9.2 shared (benchmarks/bench_engines.py datasets)
            return {}
        try:
            repeating = _datasets_whose_records_repeat(source, dataset, block, record, all_parts)
        except (CVReportError, NotImplementedError, ValueError):
            return {}  # each data set alone reads its block, or words its problem
        for label in [label for label in self.parts if label in repeating]:
            try:  # folds of several K-fold runs: that data set alone words it
                with source.errors():
                    refuse_partitioned_blocks_in_engine(self.parts[label].frame, block, record)
            except CVReportError:
                repeating.discard(label)
        kinds = {
            True: [label for label in all_parts if label in repeating],
            False: [label for label in all_parts if label not in repeating],
        }
        found: dict[Any, TableContents] = {}
        for block_is_replication, labels in kinds.items():
            if not labels:
                continue
            rows = source
            if len(labels) < len(all_parts):  # only this kind's rows
                nw = narwhals()
                kept = source.frame.filter(nw.col(dataset).is_in(labels))
                rows = replace(source, frame=kept, rescan=None)
            parts = {label: all_parts[label] for label in labels}
            try:
                route = self.backend._route(roles, rows, block_is_replication)
                found.update(contents_by_dataset(rows, route, dataset, parts))
            except (CVReportError, MemoryHandover):
                continue  # each data set alone words its problem
        return found


_PARTS_PER_QUERY = 64  # data sets one Polars query checks (a union of their own checks)


def _datasets_whose_records_repeat(
    source: EngineSource, dataset: str, block: str, record: str, parts: dict[Any, EngineSource]
) -> set[Any]:
    """The data sets in which some record appears in more than one group of ``block``:
    :meth:`~cvreport.data.engines.EngineSource.records_repeat_across` of each data set's
    rows (``parts``), for every data set in one query.

    For integer and text blocks a group-by per (data set, record) compares the smallest
    and largest block (a missing block is one more group, as ``unique`` counts it);
    other blocks (floats, whose NaN engines order differently) count their distinct
    (block, record) pairs. DuckDB and the others run one group-by over every row;
    Polars, which hashes a key of text and record several times slower than each data
    set's rows apart (and skips the others' row groups), runs the union of each data
    set's own group-by, :data:`_PARTS_PER_QUERY` data sets a query.
    """
    nw = narwhals()
    names = ["_low", "_high", "_missing", "_present", "_groups"]
    names = [n + "_" * (1 + len(dataset) + len(block) + len(record)) for n in names]
    low, high, missing, present, groups = names
    dtype = source.dtype(block)
    ordered = dtype.is_integer() or dtype == nw.String or isinstance(dtype, nw.String)

    def repeated_in(frame: Any) -> Any:
        if ordered:
            per_record = (
                frame.select(dataset, record, block)
                .with_columns(nw.col(block).is_null().cast(nw.Int64).alias(missing))
                .group_by(dataset, record)
                .agg(
                    nw.col(block).min().alias(low),
                    nw.col(block).max().alias(high),
                    nw.col(missing).sum(),
                    nw.col(block).count().alias(present),
                )
            )
            repeats = (nw.col(low) != nw.col(high)) | (
                (nw.col(missing) > 0) & (nw.col(present) > 0)
            )
        else:
            pairs = frame.select(dataset, block, record).unique()
            per_record = pairs.group_by(dataset, record).agg(nw.len().alias(groups))
            repeats = nw.col(groups) > 1
        return per_record.filter(repeats).select(dataset)

    with source.errors():
        if source.frame.implementation.name != "POLARS":
            return set(collect(repeated_in(source.frame).unique())[dataset].tolist())
        labels, found = list(parts), set()
        for start in range(0, len(labels), _PARTS_PER_QUERY):
            branches = [
                repeated_in(parts[label].frame).head(1)
                for label in labels[start : start + _PARTS_PER_QUERY]
            ]
            found |= set(collect(nw.concat(branches, how="vertical"))[dataset].tolist())
        return found


def _first_appearance(source: EngineSource, column: str, labels: list[Any]) -> list[Any]:
    """``labels`` (the data sets) in pandas' order: of their first row, read in the engine.

    The rule: the labels seen in the first :data:`~cvreport.data.engine_query.MOST_FIRST_ROWS`
    rows (16.8M) come in the order of their first row there, as pandas' ``groupby(sort=False)``
    orders them; the labels first seen past those rows (known only from the engine's
    ``unique``) follow, sorted (in the order given when they do not sort). Reading
    stops once every label is seen, and memory stays bounded by the labels and one
    batch of rows (:func:`~cvreport.data.engine_query.first_appearance`).
    """
    with source.errors():
        order = first_appearance(source.frame, column, labels)
    seen = set(order)
    try:
        rest = sorted(v for v in labels if v not in seen)
    except TypeError:
        rest = [v for v in labels if v not in seen]
    return order + rest
