"""Summarise a results table inside the engine that holds it, through narwhals.

A pandas DataFrame is laid out in memory (:mod:`cvreport.data.layout`). Any
other frame narwhals reads — Polars (eager or lazy), PyArrow, DuckDB, Dask,
PySpark, Ibis — and a path or glob of Parquet or CSV files (scanned lazily, by
DuckDB unless another engine is asked for) is summarised where it lives: the
checks and every sufficient statistic are group-by aggregations the engine
runs, and only a few kilobytes come back.

Three aggregations over the long table (columns renamed ``_r, _f, _m, _i, _y``
for replication, fold, model, record and loss):

1. per (replication, fold, model): rows, sum and sum of squares of the losses,
   finite and 0/1 counts, largest absolute loss, missing records — the cells of
   the design, its labels, and the per-fold sums;
2. per (replication, fold, record): rows, the sum of ``2**k`` over the models
   ``k`` present (each model exactly once ⇔ ``M`` rows whose bits sum to
   ``2**M − 1``, since powers of two that repeat sum with fewer terms) and, for
   0/1 losses, the sum of ``loss · 2**k``: an integer whose bits are the models'
   errors on that record; counted per (replication, fold, pattern) it gives
   every pair's 2×2 table at once. Up to 15 models both sums are one
   (``2**k · (1 + loss · 2**s)``, ``s`` past the largest valid model sum), which
   shrinks the engine's per-record state by a third (at 200M rows under
   DuckDB's 3 GB limit this pass took 44 s instead of 81 s: less spilling);
3. per record, over the rows of the first model: the cells it is in, the sum of
   ``2**i`` over its replications ``i`` (one fold per replication ⇔ as many
   cells as bits) and ``Σ_i (fold_i + 1)(K + 1)**i``, its membership pattern;
   counted per pattern it gives the overlap audit's input.

When a check fails, the rows are brought into pandas and the in-memory
validation names the problem, so every engine raises the same error with the
same message.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from cvreport.data.build import (
    TableContents,
    prediction_frame,
    record_design,
    truth_and_prediction,
)
from cvreport.data.direction import comparison_columns, resolve_metric
from cvreport.data.engines import (
    EngineSource,
    as_pandas_text,
    narwhals,
    resolve_source,
    response_expression,
)
from cvreport.data.formula import ParsedFormula
from cvreport.data.labels import CONSTANT_LABEL, _missing_error, sorted_order
from cvreport.data.layout import (
    RecordLayout,
    _key_columns,
    _row_describer,
    build_record_layout,
    laid_out,
)
from cvreport.data.metric import Direction, Metric
from cvreport.data.sufficient import (
    FoldBlock,
    MembershipPatterns,
    pattern_statistics,
    sorted_patterns,
    unpack_patterns,
)
from cvreport.data.validation import (
    Names,
    check_design_grid,
    check_magnitude,
    lacking_models_error,
    nonfinite_error,
    repeated_keys_error,
    split_records_error,
    unpaired_records_error,
)

__all__ = [
    "engine_column",
    "engine_contents",
    "formula_contents",
    "metric_frame",
    "prediction_contents",
]

_FIRST_ROWS = 1 << 12  # rows read first to find the models' order of appearance
_MOST_FIRST_ROWS = 1 << 24
_MAX_BITS = 62  # bits of an int64 a pattern may use
_PACKED_MODELS = 15  # models whose bits and error bits share one sum (below 2**41)

_R, _F, _M, _I, _Y = "_r", "_f", "_m", "_i", "_y"


# --------------------------------------------------------------------------- the aggregations


def _collect(frame: Any) -> pd.DataFrame:
    """Run a lazy query and bring its (small) result into pandas.

    Polars runs it on its streaming engine, in batches of bounded memory.
    """
    if frame.implementation.name == "POLARS":
        return frame.collect(engine="streaming").to_pandas()
    return frame.collect().to_pandas()


class _Irregular(Exception):
    """A problem whose words need the rows in pandas (an engine without row positions)."""


_IRREGULAR = object()  # an aggregation found keys that do not form the design


def _is_numeric(dtype: Any) -> bool:
    return bool(dtype.is_numeric() or dtype == narwhals().Boolean)


def _powers(n: int) -> list[int]:
    return [1 << k for k in range(n)]


def _label_index(values: pd.Series) -> pd.Index:
    if values.isna().any():
        raise _Irregular
    return pd.Index(values.unique().tolist() if values.dtype == object else values.unique())


def _sorted_labels(values: pd.Series) -> pd.Index:
    labels = _label_index(values)
    return labels.take(sorted_order(labels))


def _first_appearance(frame: Any, labels: pd.Index) -> pd.Index:
    """Models in order of their first row (read from the first rows only; rest sorted)."""
    wanted = set(labels.tolist())
    n = _FIRST_ROWS
    order: list[Any] = []
    while True:
        head = frame.select(_M).head(n).collect().to_pandas()[_M]
        order = list(dict.fromkeys(v for v in head.tolist() if v in wanted))
        if len(order) == len(wanted) or head.shape[0] < n or n >= _MOST_FIRST_ROWS:
            break
        n *= 8
    rest = [v for v in labels.tolist() if v not in set(order)]
    return pd.Index(order + rest, dtype=labels.dtype) if order else labels


def _cells(frame: Any) -> tuple[pd.DataFrame, Any]:
    nw = narwhals()
    lazy = frame.with_columns(nw.col(_Y).cast(nw.Float64).alias(_Y))
    stats = lazy.with_columns(
        (nw.col(_Y) * nw.col(_Y)).alias("_y2"),
        nw.col(_Y).is_finite().cast(nw.Int64).alias("_ok"),
        ((nw.col(_Y) == 0) | (nw.col(_Y) == 1)).cast(nw.Int64).alias("_bin"),
        nw.col(_Y).abs().alias("_ay"),
        nw.col(_I).is_null().cast(nw.Int64).alias("_noid"),
    )
    cells = _collect(
        stats.group_by(_R, _F, _M).agg(
            nw.len().alias("n"),
            nw.col(_Y).sum().alias("sum"),
            nw.col("_y2").sum().alias("sumsq"),
            nw.col("_ok").sum().alias("ok"),
            nw.col("_bin").sum().alias("bin"),
            nw.col("_ay").max().alias("largest"),
            nw.col("_noid").sum().alias("noid"),
        )
    )
    return cells, lazy


def _is_binary(cells: pd.DataFrame) -> bool:
    n = cells["n"].to_numpy(dtype=np.int64)
    return bool((pd.to_numeric(cells["bin"]).fillna(0).to_numpy() == n).all())


def _codes(series: pd.Series, labels: pd.Index) -> np.ndarray:
    return np.asarray(labels.get_indexer(pd.Index(series.tolist())), dtype=np.int64)


def _replace(column: str, labels: pd.Index, values: Sequence[int]) -> Any:
    """The integer ``values[t]`` where ``column`` equals ``labels[t]``, else 0.

    A chain of ``when``: engines run it as one CASE expression, several times
    faster than a lookup in a map built for every row.
    """
    nw = narwhals()
    pairs = [(label, int(v)) for label, v in zip(labels.tolist(), values) if v != 0]
    if not pairs:
        return nw.lit(0, dtype=nw.Int64)
    chain = nw.when(nw.col(column) == pairs[0][0]).then(nw.lit(pairs[0][1], dtype=nw.Int64))
    for label, value in pairs[1:]:
        chain = chain.when(nw.col(column) == label).then(nw.lit(value, dtype=nw.Int64))
    return chain.otherwise(nw.lit(0, dtype=nw.Int64))


def _loss_patterns(
    lazy: Any, models: pd.Index, binary: bool, reps: pd.Index, folds: pd.Index
) -> Any:
    """Rows ``(i, j, bits, n)`` (``None`` for real losses); :data:`_IRREGULAR` unless each
    record has every model once."""
    nw = narwhals()
    n_models = len(models)
    full = (1 << n_models) - 1
    bit = _replace(_M, models, _powers(n_models))
    per_record = lazy.with_columns(bit.alias("_bit"))
    aggs = [nw.len().alias("_n"), nw.col("_bit").sum().alias("_mask")]
    mask, bits = nw.col("_mask"), nw.col("_bits")
    if binary and n_models <= _PACKED_MODELS:
        # one sum holds both: the models' bits below `shift`, their errors' bits above;
        # with each model once the low part is < 2**shift, so nothing carries across
        scale = 1 << (n_models + n_models.bit_length())
        per_record = per_record.with_columns(
            (nw.col("_bit") * (1 + nw.col(_Y).cast(nw.Int64) * scale)).alias("_bit")
        )
        mask, bits = nw.col("_mask") % scale, nw.col("_mask") // scale
    elif binary:
        per_record = per_record.with_columns(
            (nw.col("_bit") * nw.col(_Y).cast(nw.Int64)).alias("_wrong")
        )
        aggs.append(nw.col("_wrong").sum().alias("_bits"))
    keys = [_R, _F, "_valid"] + (["_bits"] if binary else [])
    summed = per_record.group_by(_R, _F, _I).agg(*aggs)
    valid = ((nw.col("_n") == n_models) & (mask == full)).alias("_valid")
    counted = _collect(
        summed.with_columns(valid, *([bits.alias("_bits")] if binary else []))
        .group_by(*keys)
        .agg(nw.len().alias("_count"))
    )
    if not counted["_valid"].astype(bool).all():
        return _IRREGULAR
    if not binary:
        return None
    return np.column_stack(
        [
            _codes(counted[_R], reps),
            _codes(counted[_F], folds),
            counted["_bits"].to_numpy(dtype=np.int64),
            counted["_count"].to_numpy(dtype=np.int64),
        ]
    )


def _membership(
    lazy: Any, first_model: Any, reps: pd.Index, folds: pd.Index
) -> MembershipPatterns | None:
    """Count the records' fold-membership patterns (words of replications fit in int64).

    ``None`` when a record is in two folds of one replication.
    """
    nw = narwhals()
    m, base = len(reps), len(folds) + 1
    per_word = max(1, min(_MAX_BITS, int(_MAX_BITS / math.log2(base))))
    words = [list(range(s, min(m, s + per_word))) for s in range(0, m, per_word)]
    rows = lazy.filter(nw.col(_M) == first_model)
    fold_digit = _replace(_F, folds, range(1, base))
    new_columns, aggs = [], [nw.len().alias("_cells")]
    for w, word in enumerate(words):
        in_word = reps.take(word)
        others = [r for r in range(m) if r not in set(word)]
        rep_bit = _replace(
            _R, in_word.append(reps.take(others)), _powers(len(word)) + [0] * len(others)
        )
        weight = _replace(
            _R,
            in_word.append(reps.take(others)),
            [base**k for k in range(len(word))] + [0] * len(others),
        )
        new_columns += [rep_bit.alias(f"_rb{w}"), (weight * fold_digit).alias(f"_fd{w}")]
        aggs += [
            nw.col(f"_rb{w}").sum().alias(f"_reps{w}"),
            nw.col(f"_fd{w}").sum().alias(f"_code{w}"),
        ]
    keys = (
        ["_cells"]
        + [f"_reps{w}" for w in range(len(words))]
        + [f"_code{w}" for w in range(len(words))]
    )
    counted = _collect(
        rows.with_columns(*new_columns)
        .group_by(_I)
        .agg(*aggs)
        .group_by(*keys)
        .agg(nw.len().alias("_count"))
    )
    bits = sum(
        np.array([bin(int(v)).count("1") for v in counted[f"_reps{w}"]], dtype=np.int64)
        for w in range(len(words))
    )
    if (bits != counted["_cells"].to_numpy(dtype=np.int64)).any():
        return None  # a record in two folds of one replication
    patterns = np.concatenate(
        [
            unpack_patterns(counted[f"_code{w}"].to_numpy(dtype=np.int64), len(word), base)
            for w, word in enumerate(words)
        ],
        axis=1,
    )
    return sorted_patterns(patterns, counted["_count"].to_numpy(dtype=np.int64))


def _canonical(
    source: EngineSource,
    response: Any,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
) -> Any:
    nw = narwhals()
    return source.frame.select(
        (nw.col(replication) if replication is not None else nw.lit(CONSTANT_LABEL)).alias(_R),
        (nw.col(fold) if fold is not None else nw.lit(CONSTANT_LABEL)).alias(_F),
        nw.col(model).alias(_M),
        nw.col(record).alias(_I),
        response.alias(_Y),
    )


def _materialised_layout(
    source: EngineSource,
    response: Any,
    names: tuple[str, str | None, str | None, str],
    to_loss: tuple[float, float],
    contents_models: pd.Index,
    loss_name: str,
) -> Callable[[], RecordLayout]:
    """A function that fetches the rows and lays them out (for per-record accessors)."""

    def fetch() -> RecordLayout:
        model, replication, fold, record = names
        with source.errors():
            canonical = _canonical(source, response, model, replication, fold, record)
            frame = canonical.collect().to_pandas()
        values = frame[_Y].to_numpy(dtype=np.float64)
        layout = build_record_layout(
            frame,
            to_loss[0] + to_loss[1] * values,
            loss_what=f"loss {loss_name!r}",
            model=_M,
            replication=_R,
            fold=_F,
            record=_I,
        )
        position = layout.models.get_indexer(contents_models)
        blocks = tuple(
            FoldBlock(b.replication, b.fold, b.records, b.losses[position]) for b in layout.blocks
        )
        return RecordLayout(
            layout.replications,
            layout.folds,
            contents_models,
            layout.records,
            layout.is_binary,
            "fetched",
            partial(laid_out, blocks, layout.membership),
        )

    return fetch


def _metric_of(
    cells: pd.DataFrame, binary: bool, loss_name: str, direction: Direction | None
) -> tuple[Metric, str]:
    """The metric, decided as in pandas: from the direction, the name, or each model's mean."""
    per_model = cells.groupby(_M, sort=False)[["sum", "n"]].sum()
    means = per_model["sum"].to_numpy(dtype=np.float64) / per_model["n"].to_numpy(dtype=np.float64)
    # resolve_metric reads the values only to see whether they are all 0 or 1
    sample = np.array([0.0, 1.0]) if binary else np.array([0.5])
    return resolve_metric(
        loss_name, sample, direction=direction, per_record=True, model_means=means
    )


def _to_loss(metric: Metric, binary: bool) -> tuple[float, float]:
    """``(a, b)`` of the internal loss ``a + b · value`` (as :func:`~cvreport.data.build.as_loss`)."""
    if not metric.higher_is_better:
        return 0.0, 1.0
    return (1.0, -1.0) if metric.unit == "proportion" else (0.0, -1.0)


_EXAMPLES = 3  # offending keys shown in a message (as the in-memory diagnosis shows)
_MISSING_EXAMPLES = 5  # rows named for a missing label
_ROW = "_row"


def _rows_to_explain(source: EngineSource, needed: Sequence[str], loss_name: str) -> pd.DataFrame:
    """The rows pandas needs to word a value the engine cannot compute.

    A loss column of text, dates or categories is refused by its type, which its
    first rows show; anything else (a formula beyond the engine's translation)
    needs every row.
    """
    nw = narwhals()
    if loss_name in source.columns:
        dtype = source.dtype(loss_name)
        textual = (nw.String, nw.Categorical, nw.Enum, nw.Date, nw.Datetime, nw.Duration)
        if isinstance(dtype, textual) or dtype in textual:
            frame = source.frame.select(list(dict.fromkeys(needed))).head(_EXAMPLES)
            return as_pandas_text(frame.collect().to_pandas().reset_index(drop=True))
    return source.to_pandas(needed)


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
    from cvreport.data.fixed_width import fixed_width_codes

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


class _Diagnosis:
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
            raise _Irregular
        nw = narwhals()
        names = self.names
        return frame.select(
            nw.col(_ROW),
            *(nw.col(c) for c in dict.fromkeys(names.columns)),
            self.response.alias(_Y),
        )

    def check_values(self, cells: pd.DataFrame, binary: bool, *, plain_column: bool) -> None:
        """Non-finite losses, then losses whose squares overflow."""
        n = cells["n"].to_numpy(dtype=np.int64)
        finite = pd.to_numeric(cells["ok"]).fillna(0).to_numpy()
        if (finite != n).any():
            if not plain_column:  # pandas reads missing inputs of a formula its own way
                raise _Irregular
            self._nonfinite(int(n.sum() - finite.sum()))
        if not binary:
            largest = float(pd.to_numeric(cells["largest"]).max())
            check_magnitude(
                np.broadcast_to(np.float64(largest), (self.n_rows,)), f"loss {self.loss_name!r}"
            )

    def _nonfinite(self, n_bad: int) -> NoReturn:
        nw = narwhals()
        y = nw.col(_Y)
        bad = self._numbered().filter(~y.is_finite() | y.is_null())
        n_infinite = int(
            _collect(bad.select((y.abs() == math.inf).cast(nw.Int64).sum().alias("_inf")))[
                "_inf"
            ].fillna(0)[0]
        )
        first = as_pandas_text(_collect(bad.sort(_ROW).head(_EXAMPLES)))
        first_values = first[_Y].to_numpy(dtype=np.float64, na_value=np.nan)
        rest_infinite = n_infinite - int(np.isinf(first_values).sum())
        values = np.concatenate(
            [
                first_values,
                np.full(rest_infinite, np.inf),
                np.full(n_bad - first_values.shape[0] - rest_infinite, np.nan),
            ]
        )
        rows = first.set_index(_ROW).drop(columns=_Y)
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
            (_R, names.replication, "replication"),
            (_F, names.fold, "fold"),
            (_M, names.model, "model"),
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
        rows = _collect(
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
        """
        nw = narwhals()
        names = self.names
        n_models = len(models)
        coded = _coded_models(models, self.n_rows)
        rank = _replace(_M, coded, range(len(coded))).alias("_rank")
        bit = _replace(_M, models, _powers(n_models)).alias("_bit")
        triples = (
            lazy.with_columns(bit)
            .group_by(_R, _F, _I)
            .agg(nw.len().alias("_size"), nw.col("_bit").sum().alias("_mask"))
        )
        irregular = triples.filter(
            (nw.col("_size") != n_models) | (nw.col("_mask") != (1 << n_models) - 1)
        ).select(_R, _F, _I)
        suspects = lazy.join(irregular, on=[_R, _F, _I], how="semi")

        per_key = suspects.group_by(_R, _F, _M, _I).agg(
            nw.len().alias("_n"), nw.col(_Y).min().alias("_lo"), nw.col(_Y).max().alias("_hi")
        )
        repeated = per_key.filter(nw.col("_n") > 1)
        counted = _collect(
            repeated.select(
                nw.len().alias("_keys"),
                (nw.col("_lo") != nw.col("_hi")).cast(nw.Int64).sum().alias("_conflicting"),
            )
        )
        n_repeated = int(counted["_keys"].fillna(0)[0]) if counted.shape[0] else 0
        if n_repeated:
            first = _collect(repeated.with_columns(rank).sort(_R, _F, "_rank", _I).head(_EXAMPLES))
            shown = []
            for row in first.to_dict("records"):
                key = (row[_R], row[_F], row[_M], row[_I])
                values = None
                if row["_lo"] != row["_hi"]:
                    found = _collect(lazy.filter(_where(key)).select(_Y).unique())
                    values = np.unique(found[_Y].to_numpy(np.float64))[:_EXAMPLES].tolist()
                shown.append((key, int(row["_n"]), values))
            n_conflicting = int(pd.to_numeric(counted["_conflicting"]).fillna(0)[0])
            raise repeated_keys_error(names, n_repeated, n_conflicting, shown)

        moved = (
            lazy.filter(nw.col(_M) == models[0])
            .group_by(_R, _I)
            .agg(nw.len().alias("_cells"))
            .filter(nw.col("_cells") > 1)
            .select(_R, _I)
        )
        pairs = nw.concat([suspects.select(_R, _I), moved], how="vertical")  # a semi join
        split = (
            lazy.join(pairs, on=[_R, _I], how="semi")
            .select(_R, _I, _F)
            .unique()
            .group_by(_R, _I)
            .agg(nw.len().alias("_folds"))
            .filter(nw.col("_folds") > 1)
        )
        n_split = int(_collect(split.select(nw.len().alias("_n")))["_n"].fillna(0)[0])
        if n_split:
            first = _collect(split.sort(_R, _I).head(_EXAMPLES))
            split_shown = []
            for replication, record in zip(first[_R], first[_I]):
                in_folds = _collect(
                    lazy.filter((nw.col(_R) == replication) & (nw.col(_I) == record))
                    .select(_F)
                    .unique()
                )[_F]
                split_shown.append(
                    (replication, record, [f for f in folds.tolist() if f in set(in_folds)])
                )
            raise split_records_error(names, n_split, split_shown)

        short = triples.filter(nw.col("_size") < n_models)
        counted = _collect(
            triples.select(
                (nw.col("_size") < n_models).cast(nw.Int64).sum().alias("_short"),
                nw.col("_size").max().alias("_largest"),
            )
        )
        n_short = int(pd.to_numeric(counted["_short"]).fillna(0)[0])
        if n_short:
            if int(counted["_largest"][0]) == 1:
                records = _collect(lazy.select(_I).unique().sort(_I).head(_EXAMPLES))[_I]
                raise unpaired_records_error(names, records.tolist())
            first = _collect(short.sort(_R, _F, _I).head(_EXAMPLES))
            short_shown = []
            for replication, fold_label, record in zip(first[_R], first[_F], first[_I]):
                have = set(
                    _collect(
                        lazy.filter(
                            (nw.col(_R) == replication)
                            & (nw.col(_F) == fold_label)
                            & (nw.col(_I) == record)
                        )
                        .select(_M)
                        .unique()
                    )[_M].tolist()
                )
                lacking = [m for m in coded.tolist() if m not in have]
                short_shown.append((replication, fold_label, record, lacking))
            raise lacking_models_error(names, n_short, short_shown)


def _named_in(column: str, text: str) -> bool:
    """Whether ``text`` (a loss name or formula) names ``column`` as a whole word."""
    return re.search(rf"(?<!\w){re.escape(column)}(?!\w)", text) is not None


def _where(key: tuple[Any, Any, Any, Any]) -> Any:
    nw = narwhals()
    condition = nw.col(_R) == key[0]
    for column, value in zip((_F, _M, _I), key[1:]):
        condition = condition & (nw.col(column) == value)
    return condition


def engine_contents(
    source: EngineSource,
    *,
    response: Any,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
    loss_name: str,
    describe: Callable[[int], str],
    explain: Callable[[pd.DataFrame], TableContents],
    needed: Sequence[str],
    direction: Direction | None = None,
    metric: Metric | None = None,
    direction_note: str = "",
    all_wrong_suspect: bool = False,
) -> TableContents:
    """Validate and summarise per-record values inside the engine that holds them.

    Parameters
    ----------
    source : EngineSource
        The frame.
    response : narwhals expression or None
        The value of each row; ``None`` when it cannot be computed in the engine
        (then the rows are brought into pandas).
    model, replication, fold, record : str or None
        Column names, as for :class:`~cvreport.data.table.ResultsTable`.
    loss_name : str
        Name of the values.
    describe : callable
        ``describe(n_rows)``: the table's source line.
    explain : callable
        Builds the contents from the rows in pandas: used when the engine finds
        a problem (it raises the in-memory validation's precise error) or cannot
        compute the values.
    needed : sequence of str
        The columns ``explain`` reads.
    direction : {"lower", "higher"} or None
        Which way is better, as given; decided as in pandas
        (:func:`~cvreport.data.direction.resolve_metric`) from the name and the
        models' means. A score is turned into the internal loss in the engine.
    metric : Metric, optional
        The metric when the values are already 0/1 errors (from predictions).
    direction_note : str
        How ``metric``'s direction was decided.
    all_wrong_suspect : bool
        For 0/1 losses from predictions: let pandas look at a table whose every
        row is wrong (it checks that the labels share a coding).
    """
    keys = (model, replication, fold, record)
    source.check_plain([c for c in needed if c in keys or _named_in(c, loss_name)])
    with source.errors():
        if response is None:
            return explain(_rows_to_explain(source, needed, loss_name))
        names = Names(replication, fold, model, record)
        frame = _canonical(source, response, model, replication, fold, record)
        cells, lazy = _cells(frame)
        n_rows = int(cells["n"].sum())
        if n_rows == 0:  # pandas words it, from no rows
            return explain(source.to_pandas(needed))
        binary = _is_binary(cells)
        diagnosis = _Diagnosis(source, response, names, loss_name, n_rows)
        try:
            diagnosis.check_values(cells, binary, plain_column=loss_name in source.columns)
            if all_wrong_suspect and float(cells["sum"].sum()) == n_rows:
                raise _Irregular
            diagnosis.check_labels(cells)
        except _Irregular:
            return explain(source.to_pandas(needed))
        replications = _sorted_labels(cells[_R])
        folds = _sorted_labels(cells[_F])
        models = _first_appearance(lazy, _label_index(cells[_M]))
        if metric is None:
            metric, direction_note = _metric_of(cells, binary, loss_name, direction)
            offset, sign = _to_loss(metric, binary)
        else:
            offset, sign = 0.0, 1.0
        i, j, k = (
            _codes(cells[_R], replications),
            _codes(cells[_F], folds),
            _codes(cells[_M], models),
        )
        shape = (len(replications), len(folds), len(models))
        present = np.zeros(shape, dtype=bool)
        present[i, j, k] = True
        check_design_grid(present, replications, folds, models, model)
        sums, sumsq = np.zeros(shape), np.zeros(shape)
        counts = np.zeros(shape, dtype=np.int64)
        raw_sums = cells["sum"].to_numpy(dtype=np.float64)
        n = cells["n"].to_numpy(dtype=np.int64)
        # the internal loss a + b·y: Σ = a·n + b·Σy, Σ² = a²·n + 2ab·Σy + Σy² (b² = 1)
        sums[i, j, k] = offset * n + sign * raw_sums
        sumsq[i, j, k] = (
            offset * offset * n + 2 * offset * sign * raw_sums + cells["sumsq"].to_numpy(np.float64)
        )
        counts[i, j, k] = n
        if (offset, sign) != (0.0, 1.0):
            nw = narwhals()
            lazy = lazy.with_columns((offset + sign * nw.col(_Y)).alias(_Y))
        if len(models) > _MAX_BITS:  # more models than bits: laid out in memory instead
            return explain(source.to_pandas(needed))
        loss_patterns = _loss_patterns(lazy, models, binary, replications, folds)
        patterns = (
            None
            if loss_patterns is _IRREGULAR
            else _membership(lazy, models[0], replications, folds)
        )
        if loss_patterns is _IRREGULAR or patterns is None:
            diagnosis.check_keys(lazy, models, replications, folds)
            return explain(source.to_pandas(needed))  # not reached: the keys name the problem
        stats = pattern_statistics(sums, sumsq, counts, loss_patterns, patterns)
        return TableContents(
            models=models,
            replications=replications,
            folds=folds,
            stats=stats,
            design=record_design(stats, replications, folds, patterns.n_records),
            is_binary=binary,
            per_record=True,
            loss_name=loss_name,
            source=describe(n_rows),
            n_rows=n_rows,
            route=f"engine ({source.frame.implementation.name.lower()})",
            metric=metric,
            direction_note=direction_note,
            layout=_materialised_layout(
                source,
                response,
                (model, replication, fold, record),
                (offset, sign),
                models,
                loss_name,
            ),
        )


# --------------------------------------------------------------------------- constructors' helpers


def engine_column(source: EngineSource, column: str) -> Any:
    """The loss column as an expression, or ``None`` when pandas must judge its type."""
    nw = narwhals()
    dtype = source.dtype(column)
    return nw.col(column) if dtype.is_numeric() or dtype == nw.Boolean else None


def formula_contents(
    source: EngineSource,
    formula: str,
    parsed: ParsedFormula,
    *,
    record: str,
    direction: Direction | None,
    explain: Callable[[pd.DataFrame], TableContents],
) -> TableContents:
    """Contents of a formula's per-record values, aggregated inside the engine."""
    columns = source.columns
    replication: str | None = None
    fold: str | None = None
    if len(parsed.blocks) == 2:
        replication, fold = parsed.blocks
    elif len(parsed.blocks) == 1:
        fold = parsed.blocks[0]
        if source.records_repeat_across(fold, record):
            replication, fold = fold, None
    if parsed.response_is_column:
        response = engine_column(source, parsed.response)
        inputs = [parsed.response]
    else:
        response = response_expression(parsed.response, columns)
        inputs = [c for c in columns if c in parsed.response]
    keys = [c for c in (parsed.model, *parsed.blocks, record) if c is not None]
    contents = engine_contents(
        source,
        response=response,
        model=parsed.model,
        replication=replication,
        fold=fold,
        record=record,
        loss_name=parsed.response,
        describe=lambda n: (
            f"formula {formula!r} on a {n:,}-row {source.kind} (record column {record!r})"
        ),
        explain=explain,
        needed=[*keys, *inputs],
        direction=direction,
    )
    if contents.formula is not None:  # built in pandas, from the formula
        return contents
    compared = comparison_columns(parsed.response)
    if compared is not None and compared[0] in columns and compared[2] in columns:
        truth, prediction = truth_and_prediction(compared[0], compared[2])
        fetch = _prediction_fetcher(
            source, parsed.model, replication, fold, record, truth, prediction
        )
        contents = replace(contents, fetch_predictions=fetch)
    return replace(contents, formula=formula)


def _prediction_fetcher(
    source: EngineSource,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
    truth: str,
    prediction: str,
) -> Callable[[], pd.DataFrame]:
    """A function that fetches the keys, truth and prediction of every row, on demand."""
    needed = [c for c in (replication, fold, model, record, truth, prediction) if c is not None]

    def fetch() -> pd.DataFrame:
        frame = source.to_pandas(needed)
        return pd.DataFrame(
            prediction_frame(frame, model, replication, fold, record, truth, prediction)
        )

    return fetch


def prediction_contents(
    source: EngineSource,
    roles: dict[str, str | None],
    explain: Callable[[pd.DataFrame], TableContents],
    *,
    metric: Metric,
    direction_note: str,
    loss_name: str,
) -> TableContents:
    """Contents of 0/1 losses from predictions, aggregated inside the engine."""
    nw = narwhals()
    truth, prediction = str(roles["truth"]), str(roles["prediction"])
    model, record = str(roles["model"]), str(roles["record"])
    replication, fold = roles["replication"], roles["fold"]
    numeric = [source.dtype(c).is_numeric() for c in (truth, prediction)]
    response = None
    if numeric[0] == numeric[1]:
        response = (nw.col(prediction) != nw.col(truth)).cast(nw.Float64)
    needed = [c for c in roles.values() if c is not None]

    contents = engine_contents(
        source,
        response=response,
        model=model,
        replication=replication,
        fold=fold,
        record=record,
        loss_name=loss_name,
        describe=lambda n: (
            f"predictions {prediction!r} and truth {truth!r} of a {n:,}-row {source.kind}: "
            f"model {model!r}, replication {replication!r}, fold {fold!r}, record {record!r}"
        ),
        explain=explain,
        needed=needed,
        metric=metric,
        direction_note=direction_note,
        all_wrong_suspect=True,
    )
    if contents.prediction_columns is not None:  # built in pandas
        return contents
    fetch = _prediction_fetcher(source, model, replication, fold, record, truth, prediction)
    return replace(contents, fetch_predictions=fetch)


def metric_frame(data: Any, engine: str | None, columns: Sequence[str | None]) -> Any:
    """The columns a metric computed from predictions reads, as a pandas DataFrame.

    A pandas frame is returned as it is; any other source brings only ``columns``
    (the truth, predictions or scores and the keys) out of its engine. When one of
    them is absent, the columns of no row come back, so that the in-memory
    validation names the missing column among those the data has.

    Examples
    --------
    >>> frame = pd.DataFrame({"model": ["a"], "y": [1], "p": [0.5], "other": [0]})
    >>> metric_frame(frame, None, ["y", "p", "model"]) is frame
    True
    """
    source = resolve_source(data, engine)
    if not isinstance(source, EngineSource):
        return source
    wanted = [c for c in dict.fromkeys(columns) if c is not None]
    present = set(source.columns)
    if all(c in present for c in wanted):
        source.check_plain(wanted)
        return source.to_pandas(wanted)
    with source.errors():
        return as_pandas_text(source.frame.head(0).collect().to_pandas())
