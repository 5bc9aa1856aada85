"""Name an irregular table's problem inside the engine that holds it.

When the aggregations of :mod:`cvreport.data.pushdown` find keys that do not form
a cross-validation design, or values pandas would refuse, this module words the
error exactly as the in-memory validation (:mod:`cvreport.data.validation`) does,
in its order, from more aggregates: only counts and a few offending keys (at most
three, or five rows for a missing label) leave the engine, never the rows. Row
positions are numbered in the engine where it keeps a row order (Polars, DuckDB
and files, PyArrow); elsewhere :class:`RowsNeeded` asks for the rows in pandas.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from cvreport.data.engine_query import (
    F,
    I,
    M,
    R,
    Y,
    as_timedeltas,
    case_codes,
    collect,
    powers,
)
from cvreport.data.engines import EngineSource, as_pandas_text, in_source_zone, narwhals
from cvreport.data.fixed_width import fixed_width_codes
from cvreport.data.labels import _missing_error, sorted_order
from cvreport.data.layout import _key_columns, _row_describer
from cvreport.data.validation import (
    Names,
    check_magnitude,
    lacking_models_error,
    nonfinite_error,
    repeated_keys_error,
    split_records_error,
    unpaired_records_error,
)

__all__ = ["EngineDiagnosis", "RowsNeeded"]


class RowsNeeded(Exception):
    """A problem whose words need the rows in pandas (an engine without row positions)."""


_EXAMPLES = 3  # offending keys shown in a message (as the in-memory diagnosis shows)
_MISSING_EXAMPLES = 5  # rows named for a missing label
_ROW = "_row"


def _positioned(source: EngineSource) -> Any | None:
    """The frame with each row's position (as pandas numbers the fetched rows), if the engine
    keeps a row order: Polars, DuckDB (files too) and PyArrow; ``None`` otherwise."""
    nw = narwhals()
    native = source.frame.to_native()
    name = source.frame.implementation.name
    if name == "POLARS":
        numbered = native.with_row_index(_ROW)
    elif name == "DUCKDB":
        numbered = native.query("rows", f'SELECT row_number() OVER () - 1 AS "{_ROW}", * FROM rows')
    elif name == "PYARROW":
        import pyarrow as pa

        numbered = native.append_column(_ROW, pa.array(np.arange(native.num_rows), pa.int64()))
    else:
        return None
    frame = nw.from_native(numbered)
    return frame.lazy() if isinstance(frame, nw.DataFrame) else frame


def _coded_models(models: pd.Index, n_rows: int) -> pd.Index:
    """The models in the order the in-memory layout codes them (its diagnosis lists them so).

    Integers of a small range are coded by value and text of one width by its
    bytes (both sorted); anything else by first appearance (``models``' order).
    """
    limit = max(2 * n_rows, 1 << 16)
    values = models.to_numpy()
    if values.dtype.kind in "iu" and values.shape[0]:
        if int(values.max()) - int(values.min()) + 1 <= limit:
            return models.take(np.argsort(values, kind="stable"))
        return models
    if values.shape[0] and all(isinstance(v, str) for v in values):
        import pyarrow as pa

        if fixed_width_codes(pa.chunked_array([pa.array(values.tolist())]), limit) is not None:
            return models.take(sorted_order(models))
    return models


class EngineDiagnosis:
    """Name an irregular table's problem from the engine's aggregates, as pandas words it.

    Only counts and a few offending keys (at most :data:`_EXAMPLES` or
    :data:`_MISSING_EXAMPLES`) leave the engine. The messages are those of the
    in-memory validation (:mod:`cvreport.data.validation`), checked in its order.
    Row positions are numbered in the engine where it keeps a row order; a Dask or
    Spark frame with a missing label or loss is brought into pandas to name its rows.
    """

    def __init__(
        self, source: EngineSource, response: Any, names: Names, loss_name: str, n_rows: int
    ) -> None:
        self.source, self.response, self.names = source, response, names
        self.loss_name, self.n_rows = loss_name, n_rows

    def _numbered(self) -> Any:
        frame = _positioned(self.source)
        if frame is None:
            raise RowsNeeded
        nw = narwhals()
        names = self.names
        return frame.select(
            nw.col(_ROW),
            *(nw.col(c) for c in dict.fromkeys(names.columns)),
            self.response.alias(Y),
        )

    def check_values(self, cells: pd.DataFrame, binary: bool, *, plain_column: bool) -> None:
        """Non-finite losses, then losses whose squares overflow."""
        n = cells["n"].to_numpy(dtype=np.int64)
        finite = pd.to_numeric(cells["ok"]).fillna(0).to_numpy()
        if (finite != n).any():
            if not plain_column:  # pandas reads missing inputs of a formula its own way
                raise RowsNeeded
            self._nonfinite(int(n.sum() - finite.sum()))
        if not binary:
            largest = float(pd.to_numeric(cells["largest"]).max())
            check_magnitude(
                np.broadcast_to(np.float64(largest), (self.n_rows,)), f"loss {self.loss_name!r}"
            )

    def _nonfinite(self, n_bad: int) -> NoReturn:
        nw = narwhals()
        y = nw.col(Y).cast(nw.Float64)  # a boolean loss has nulls but no is_finite
        bad = self._numbered().filter(~y.is_finite() | y.is_null())
        n_infinite = int(
            collect(bad.select((y.abs() == math.inf).cast(nw.Int64).sum().alias("_inf")))[
                "_inf"
            ].fillna(0)[0]
        )
        first = as_pandas_text(collect(bad.sort(_ROW).head(_EXAMPLES)))
        first_values = first[Y].to_numpy(dtype=np.float64, na_value=np.nan)
        rest_infinite = n_infinite - int(np.isinf(first_values).sum())
        values = np.concatenate(
            [
                first_values,
                np.full(rest_infinite, np.inf),
                np.full(n_bad - first_values.shape[0] - rest_infinite, np.nan),
            ]
        )
        rows = first.set_index(_ROW).drop(columns=Y)
        rows.index = pd.Index(rows.index.to_numpy(dtype=np.int64))
        names = self.names
        keys = _key_columns(rows, names.model, names.replication, names.fold)
        raise nonfinite_error(
            values, f"loss {self.loss_name!r}", _row_describer(rows, keys, rows[names.record])
        )

    def check_labels(self, cells: pd.DataFrame) -> None:
        """Missing replication, fold, model and record labels, in that order."""
        names = self.names
        for key, column, role in (
            (R, names.replication, "replication"),
            (F, names.fold, "fold"),
            (M, names.model, "model"),
        ):
            missing = cells[key].isna().to_numpy()
            if column is not None and missing.any():
                self._missing(column, role, int(cells["n"].to_numpy()[missing].sum()))
        n_missing = int(pd.to_numeric(cells["noid"]).fillna(0).sum())
        if n_missing:
            self._missing(names.record, "record", n_missing)

    def _missing(self, column: str, role: str, n_missing: int) -> NoReturn:
        nw = narwhals()
        absent = nw.col(column).is_null()
        if self.source.dtype(column).is_float():
            absent = absent | nw.col(column).is_nan()
        rows = collect(
            self._numbered().filter(absent).select(_ROW).sort(_ROW).head(_MISSING_EXAMPLES)
        )[_ROW].tolist()
        filler = range(-1, -1 - (n_missing - len(rows)), -1)  # never shown: five rows are
        series = pd.Series(np.nan, index=pd.Index([int(r) for r in rows] + list(filler)))
        raise _missing_error(series, column, role)

    def check_keys(self, lazy: Any, models: pd.Index, reps: pd.Index, folds: pd.Index) -> None:
        """Repeated keys, then records in two folds, then records some model lacks.

        Only the rows of the irregular (replication, fold, record) triples are
        examined key by key: a repeated key or a missing model makes its triple
        irregular, and a record in two folds of a replication has an irregular
        triple or, when every model moved with it, two folds for the first model.

        Dask computes the counts and first keys of the three checks in one
        ``dask.compute`` (:class:`_Answers`), which runs their shared parts (the
        triples, the suspect rows) once, and the rows of the keys a message shows in
        one more: two computes at most, where one per query took up to seven (each
        optimised and scheduled on its own). Every other engine runs each query when
        its check needs it.
        """
        nw = narwhals()
        names = self.names
        n_models = len(models)
        coded = _coded_models(models, self.n_rows)
        rank = case_codes(M, coded, range(len(coded))).alias("_rank")
        bit = case_codes(M, models, powers(n_models)).alias("_bit")
        triples = (
            lazy.with_columns(bit)
            .group_by(R, F, I)
            .agg(nw.len().alias("_size"), nw.col("_bit").sum().alias("_mask"))
        )
        irregular = triples.filter(
            (nw.col("_size") != n_models) | (nw.col("_mask") != (1 << n_models) - 1)
        ).select(R, F, I)
        suspects = lazy.join(irregular, on=[R, F, I], how="semi")

        per_key = suspects.group_by(R, F, M, I).agg(
            nw.len().alias("_n"), nw.col(Y).min().alias("_lo"), nw.col(Y).max().alias("_hi")
        )
        repeated = per_key.filter(nw.col("_n") > 1)
        moved = (
            lazy.filter(nw.col(M) == models[0])
            .group_by(R, I)
            .agg(nw.len().alias("_cells"))
            .filter(nw.col("_cells") > 1)
            .select(R, I)
        )
        pairs = nw.concat([suspects.select(R, I), moved], how="vertical")  # a semi join
        split = (
            lazy.join(pairs, on=[R, I], how="semi")
            .select(R, I, F)
            .unique()
            .group_by(R, I)
            .agg(nw.len().alias("_folds"))
            .filter(nw.col("_folds") > 1)
        )
        short = triples.filter(nw.col("_size") < n_models)
        answers = _Answers(
            {
                "repeated": repeated.select(
                    nw.len().alias("_keys"),
                    (nw.col("_lo") != nw.col("_hi")).cast(nw.Int64).sum().alias("_conflicting"),
                ),
                "repeated keys": _first(repeated.with_columns(rank), [R, F, "_rank", I]),
                "split": split.select(nw.len().alias("_n")),
                "split keys": _first(split, [R, I]),
                "short": triples.select(
                    (nw.col("_size") < n_models).cast(nw.Int64).sum().alias("_short"),
                    nw.col("_size").max().alias("_largest"),
                ),
                "short keys": _first(short, [R, F, I]),
                "records": _first(lazy.select(I).unique(), [I]),
            },
            together=lazy.implementation.name == "DASK",
        )

        counted = answers["repeated"]
        n_repeated = int(counted["_keys"].fillna(0)[0]) if counted.shape[0] else 0
        if n_repeated:
            first = answers["repeated keys"].to_dict("records")
            keys = [(row[R], row[F], row[M], row[I]) for row in first]
            conflicting = [k for k, row in zip(keys, first) if row["_lo"] != row["_hi"]]
            found = _fetch([lazy.filter(_where(k)).select(Y).unique() for k in conflicting])
            values_of = {
                k: np.unique(v[Y].to_numpy(np.float64))[:_EXAMPLES].tolist()
                for k, v in zip(conflicting, found)
            }
            shown = [(k, int(row["_n"]), values_of.get(k)) for k, row in zip(keys, first)]
            n_conflicting = int(pd.to_numeric(counted["_conflicting"]).fillna(0)[0])
            raise repeated_keys_error(names, n_repeated, n_conflicting, shown)

        n_split = int(answers["split"]["_n"].fillna(0)[0])
        if n_split:
            first = answers["split keys"]
            split_pairs = list(zip(first[R], first[I]))
            in_folds = _fetch(
                [
                    lazy.filter((nw.col(R) == replication) & (nw.col(I) == record))
                    .select(F)
                    .unique()
                    for replication, record in split_pairs
                ]
            )
            split_shown = [
                (replication, record, [f for f in folds.tolist() if f in set(found[F])])
                for (replication, record), found in zip(split_pairs, in_folds)
            ]
            raise split_records_error(names, n_split, split_shown)

        counted = answers["short"]
        n_short = int(pd.to_numeric(counted["_short"]).fillna(0)[0])
        if n_short:
            if int(counted["_largest"][0]) == 1:
                raise unpaired_records_error(names, answers["records"][I].tolist())
            first = answers["short keys"]
            triples_shown = list(zip(first[R], first[F], first[I]))
            have = _fetch(
                [
                    lazy.filter(
                        (nw.col(R) == replication)
                        & (nw.col(F) == fold_label)
                        & (nw.col(I) == record)
                    )
                    .select(M)
                    .unique()
                    for replication, fold_label, record in triples_shown
                ]
            )
            short_shown = []
            for (replication, fold_label, record), found in zip(triples_shown, have):
                present = set(found[M].tolist())
                lacking = [m for m in coded.tolist() if m not in present]
                short_shown.append((replication, fold_label, record, lacking))
            raise lacking_models_error(names, n_short, short_shown)


def _first(frame: Any, by: list[str]) -> Any:
    """The first :data:`_EXAMPLES` rows of ``frame`` sorted by ``by`` (unique keys).

    Dask sorts each partition and keeps its first rows, then does the same once over
    those, in one partition: its ``sort_values`` would shuffle every row and first
    compute the quantiles of ``by`` (a query of its own) to place them.
    """
    if frame.implementation.name != "DASK":
        return frame.sort(*by).head(_EXAMPLES)

    def first_rows(part: pd.DataFrame) -> pd.DataFrame:
        return part.sort_values(by).head(_EXAMPLES)

    native = frame.to_native()
    meta = native._meta
    firsts = native.map_partitions(first_rows, meta=meta).repartition(npartitions=1)
    return narwhals().from_native(firsts.map_partitions(first_rows, meta=meta))


class _Answers:
    """The results of named queries, each run when first asked for; ``together``: every
    query is run at the first question, all at once (:func:`_fetch`)."""

    def __init__(self, queries: dict[str, Any], *, together: bool) -> None:
        self._queries, self._together = queries, together
        self._found: dict[str, pd.DataFrame] = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._found:
            asked = list(self._queries) if self._together else [name]
            self._found.update(zip(asked, _fetch([self._queries[q] for q in asked])))
        return self._found[name]


def _fetch(queries: list[Any]) -> list[pd.DataFrame]:
    """Run lazy queries and bring their (small) results into pandas.

    Dask computes them in one ``dask.compute``: the parts they share run once, and
    the scheduler is asked once instead of once per query (each ask cost a second
    or more with a distributed client). Every other engine runs them one by one
    (:func:`~cvreport.data.engine_query.collect`).
    """
    if len(queries) > 1 and queries[0].implementation.name == "DASK":
        import dask

        computed = dask.compute(*[query.to_native() for query in queries])
        return [in_source_zone(as_timedeltas(frame)) for frame in computed]
    return [collect(query) for query in queries]


def _where(key: tuple[Any, Any, Any, Any]) -> Any:
    nw = narwhals()
    condition = nw.col(R) == key[0]
    for column, value in zip((F, M, I), key[1:]):
        condition = condition & (nw.col(column) == value)
    return condition
