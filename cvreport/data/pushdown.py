"""Summarise a results table inside the engine that holds it, through narwhals.

A pandas DataFrame is laid out in memory (:mod:`cvreport.data.layout`). Any
other frame narwhals reads — Polars (eager or lazy), PyArrow, DuckDB, Dask,
PySpark, Ibis — and a path or glob of Parquet or CSV files (scanned lazily, by
DuckDB unless another engine is asked for) is summarised where it lives: the
checks and every sufficient statistic are group-by aggregations the engine
runs, and only a few kilobytes come back.

Two aggregations over the long table (columns renamed ``_r, _f, _m, _i, _y``
for replication, fold, model, record and loss):

1. per (replication, fold, model): rows, sum and sum of squares of the losses,
   finite and 0/1 counts, largest absolute loss, missing records — the cells of
   the design, its labels, and the per-fold sums;
2. per record: rows, and in words of replications the sum of the bits
   ``(i·K + j)·M + k`` of its rows (replication ``i``, fold ``j``, model ``k``)
   and, for 0/1 losses, of its rows with loss 1. Bits that did not carry (as
   many set bits as rows) and replication blocks holding one fold's ``M``
   models check the record; the blocks give every (replication, fold) loss
   pattern (every pair's 2×2 table) and the record's membership pattern (the
   overlap audit's input). A word holds up to 52 bits, so that its sum is exact
   in float64 in every engine; at 200M rows this one pass over a tenth of the
   groups replaced the two below (43 s instead of 72 s, and a third of DuckDB's
   memory). Its one row per record comes back in batches, each counted into
   patterns at once; past :data:`_RECORDS_PER_PASS` records
   it runs in passes over the records (at 1,000M rows and 20M records one pass spilled
   over 40 GB; four took 1.7 GiB).

When a replication's ``K·M`` bits do not fit a word, or more than 8 words
would be needed, two aggregations replace the second:

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

When a check fails, :mod:`cvreport.data.engine_diagnosis` names the problem
from more aggregates, with the in-memory validation's message, so every engine
raises the same error with the same message without bringing the rows out.
The columns (renamed as in :mod:`cvreport.data.engine_query`) come into pandas
only for what the engine cannot compute: a formula beyond
:func:`~cvreport.data.engines.response_expression`, more than 62 models, or a
Dask or Spark frame whose rows must be named. Then :class:`MemoryHandover` is
raised, naming the columns to fetch; the backend
(:mod:`cvreport.data.backends.engine`) fetches them and lets the in-memory
backend build the table or word its error.

Many data sets (:func:`contents_by_dataset`) run the same two aggregations once,
with the data set column among the group-by keys and each row's bit placed by
its own data set's design; the results are split into each data set's contents.
A data set that pass cannot build is built alone, which words its problem.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.build import (
    TableContents,
    prediction_frame,
    record_design,
    truth_and_prediction,
)
from cvreport.data.design import refuse_partitioned_blocks_in_engine
from cvreport.data.direction import comparison_columns, resolve_metric
from cvreport.data.engine_diagnosis import EngineDiagnosis, RowsNeeded
from cvreport.data.engine_query import (
    D,
    F,
    I,
    M,
    R,
    Y,
    as_timedeltas,
    case_codes,
    collect,
    collect_batches,
    first_appearance,
    partitions_before,
    powers,
    spark_first_places,
)
from cvreport.data.engines import (
    EngineSource,
    as_pandas_text,
    in_source_zone,
    narwhals,
    response_expression,
)
from cvreport.data.formula import ParsedFormula
from cvreport.data.labels import CONSTANT_LABEL, sorted_order
from cvreport.data.layout import (
    RecordLayout,
    build_record_layout,
    laid_out,
)
from cvreport.data.metric import Direction, Metric
from cvreport.data.sufficient import (
    FoldBlock,
    MembershipPatterns,
    membership_patterns,
    pattern_statistics,
    sorted_patterns,
    unpack_patterns,
)
from cvreport.data.validation import (
    Names,
    check_design_grid,
)
from cvreport.errors import CVReportError

__all__ = [
    "EngineRoute",
    "MemoryHandover",
    "contents_by_dataset",
    "engine_column",
    "engine_contents",
    "formula_route",
    "losses_route",
    "prediction_route",
]

_FIRST_ROWS = 1 << 12  # rows read first to find the models' order of appearance
_MOST_FIRST_ROWS = 1 << 24
_MAX_BITS = 62  # bits of an int64 a pattern may use
_PACKED_MODELS = 15  # models whose bits and error bits share one sum (below 2**41)
_EXACT_BITS = 52  # bits of a per-record word (sums stay exact in float64)
_MOST_WORDS = 8  # words of replications per record before the per-fold route is used
_DENSE_PATTERNS = 1 << 16  # loss patterns of a fold counted by bincount up to this many
_VARYING_CHARS = 3  # characters of a record id's text that place it in a pass
_CHARS_LOOKED_AT = 24  # last characters of the ids' text looked at for those that vary
_SAMPLED_ROWS = 1 << 16  # first rows whose record ids tell which characters vary
_NUMBER_BINS = 1 << 12  # equal bins of the span of float record ids, counted to cut passes
_HEADS_PER_QUERY = 64  # data sets whose first rows one query reads (a union of their heads)
_FIRST_PAIRS_BATCH = 1 << 16  # rows of those first rows in pandas at once
_HASH_PRIME = (1 << 31) - 1  # integer record ids are hashed modulo this prime ...
_HASH_FACTOR = 1_327_217_885  # ... times this factor (about 0.618 of it, coprime to it)
_RECORDS_PER_PASS = 5_000_000
"""Records whose words one pass aggregates. Past it, the record ids are split into
passes (:func:`_record_passes`): at 1,000M rows DuckDB (2 threads, 3 GB) aggregated 5M records' words
in 80 s and 1.3 GiB without spilling, while 10M records spilled 9 GB in 70 s and
20M records (one pass) over 40 GB: its hash tables flush partial sums per row
once the records outgrow them."""


# --------------------------------------------------------------------------- the aggregations


_IRREGULAR = object()  # an aggregation found keys that do not form the design


class MemoryHandover(Exception):
    """The engine cannot build this table: the in-memory backend must, from these rows.

    Raised where the engine cannot compute a value (a formula beyond its
    translation, more than :data:`_MAX_BITS` models), where the words of a problem
    need the rows (no rows, an engine without row positions, labels pandas
    judges), and where the keys are irregular in a way the engine's diagnosis does
    not name. The backend fetches :meth:`rows` and lets the in-memory validation
    build the contents or word the error.

    Parameters
    ----------
    columns : sequence of str
        The columns the in-memory backend reads.
    reason : str
        Why, for whoever debugs the route taken.
    first_rows : int, optional
        Only the first rows are needed, as text (a loss column whose type pandas
        refuses shows it in its first rows).
    """

    def __init__(self, columns: Sequence[str], reason: str, first_rows: int | None = None) -> None:
        super().__init__(reason)
        self.columns = list(dict.fromkeys(columns))
        self.reason = reason
        self.first_rows = first_rows

    def rows(self, source: EngineSource) -> pd.DataFrame:
        """The rows the in-memory backend reads, as a pandas DataFrame."""
        if self.first_rows is None:
            return source.to_pandas(self.columns)
        with source.errors():
            frame = source.frame.select(self.columns).head(self.first_rows)
            rows = in_source_zone(frame.collect().to_pandas().reset_index(drop=True))
            return as_pandas_text(rows)


def _is_numeric(dtype: Any) -> bool:
    return bool(dtype.is_numeric() or dtype == narwhals().Boolean)


def _label_index(values: pd.Series) -> pd.Index:
    if values.isna().any():
        raise RowsNeeded
    return pd.Index(values.unique().tolist() if values.dtype == object else values.unique())


def _sorted_labels(values: pd.Series) -> pd.Index:
    labels = _label_index(values)
    return labels.take(sorted_order(labels))


def _first_appearance(frame: Any, labels: pd.Index) -> pd.Index:
    """Models in order of their first row among the first :data:`_MOST_FIRST_ROWS` rows
    (read in bounded memory: :func:`~cvreport.data.engine_query.first_appearance`);
    those first seen past them follow in the order given."""
    order = first_appearance(frame, M, labels.tolist(), _MOST_FIRST_ROWS, _FIRST_ROWS)
    rest = [v for v in labels.tolist() if v not in set(order)]
    return pd.Index(order + rest, dtype=labels.dtype) if order else labels


def _cells(frame: Any, by: Sequence[str] = ()) -> tuple[pd.DataFrame, Any]:
    """Per (replication, fold, model) aggregates (per data set too: ``by``)."""
    nw = narwhals()
    lazy = frame.with_columns(nw.col(Y).cast(nw.Float64).alias(Y))
    stats = lazy.with_columns(
        (nw.col(Y) * nw.col(Y)).alias("_y2"),
        nw.col(Y).is_finite().cast(nw.Int64).alias("_ok"),
        ((nw.col(Y) == 0) | (nw.col(Y) == 1)).cast(nw.Int64).alias("_bin"),
        nw.col(Y).abs().alias("_ay"),
        nw.col(I).is_null().cast(nw.Int64).alias("_noid"),
    )
    cells = collect(
        stats.group_by(*by, R, F, M).agg(
            nw.len().alias("n"),
            nw.col(Y).sum().alias("sum"),
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


def _loss_patterns(
    lazy: Any, models: pd.Index, binary: bool, reps: pd.Index, folds: pd.Index
) -> Any:
    """Rows ``(i, j, bits, n)`` (``None`` for real losses); :data:`_IRREGULAR` unless each
    record has every model once."""
    nw = narwhals()
    n_models = len(models)
    full = (1 << n_models) - 1
    bit = case_codes(M, models, powers(n_models))
    per_record = lazy.with_columns(bit.alias("_bit"))
    aggs = [nw.len().alias("_n"), nw.col("_bit").sum().alias("_mask")]
    mask, bits = nw.col("_mask"), nw.col("_bits")
    if binary and n_models <= _PACKED_MODELS:
        # one sum holds both: the models' bits below `shift`, their errors' bits above;
        # with each model once the low part is < 2**shift, so nothing carries across
        scale = 1 << (n_models + n_models.bit_length())
        per_record = per_record.with_columns(
            (nw.col("_bit") * (1 + nw.col(Y).cast(nw.Int64) * scale)).alias("_bit")
        )
        mask, bits = nw.col("_mask") % scale, nw.col("_mask") // scale
    elif binary:
        per_record = per_record.with_columns(
            (nw.col("_bit") * nw.col(Y).cast(nw.Int64)).alias("_wrong")
        )
        aggs.append(nw.col("_wrong").sum().alias("_bits"))
    keys = [R, F, "_valid"] + (["_bits"] if binary else [])
    summed = per_record.group_by(R, F, I).agg(*aggs)
    valid = ((nw.col("_n") == n_models) & (mask == full)).alias("_valid")
    counted = collect(
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
            _codes(counted[R], reps),
            _codes(counted[F], folds),
            counted["_bits"].to_numpy(dtype=np.int64),
            counted["_count"].to_numpy(dtype=np.int64),
        ]
    )


@dataclass(frozen=True)
class _WordDesign:
    """One table's design, as its per-record words read it."""

    models: pd.Index
    binary: bool
    reps: pd.Index
    folds: pd.Index

    @property
    def block(self) -> int:
        """Bits of one replication."""
        return len(self.folds) * len(self.models)

    @property
    def words(self) -> list[list[int]] | None:
        """The replications of each word; ``None`` when the words do not fit."""
        m, per_word = len(self.reps), _EXACT_BITS // self.block
        if per_word == 0 or -(-m // per_word) > _MOST_WORDS:
            return None
        return [list(range(s, min(m, s + per_word))) for s in range(0, m, per_word)]

    def position(self) -> Any:
        """Each row's bit ``(i·K + j)·M + k``."""
        n_models, block = len(self.models), self.block
        return (
            case_codes(R, self.reps, [i * block for i in range(len(self.reps))])
            + case_codes(F, self.folds, [j * n_models for j in range(len(self.folds))])
            + case_codes(M, self.models, range(n_models))
        )

    def bounds(self, w: int) -> tuple[int, int]:
        """The first bit of word ``w`` and the first past it (both 0 past the last word)."""
        words = self.words or []
        if w >= len(words):
            return 0, 0
        return words[w][0] * self.block, (words[w][-1] + 1) * self.block


def _per_dataset(dataset: str | None, labels: list[Any], exprs: list[tuple[Any, Any]]) -> Any:
    """One expression from each data set's own (``exprs``: ``(key, expression)`` per label
    of ``labels``): those with the same key share a branch, so that data sets of one
    design add no branch at all."""
    nw = narwhals()
    groups: dict[Any, tuple[list[Any], Any]] = {}
    for label, (key, expr) in zip(labels, exprs):
        groups.setdefault(key, ([], expr))[0].append(label)
    branches = list(groups.values())
    if dataset is None or len(branches) == 1:
        return branches[0][1]
    chain = nw.when(nw.col(dataset).is_in(branches[0][0])).then(branches[0][1])
    for members, expr in branches[1:-1]:
        chain = chain.when(nw.col(dataset).is_in(members)).then(expr)
    return chain.otherwise(branches[-1][1])


def _design_key(design: _WordDesign) -> tuple[Any, ...]:
    return (
        tuple(design.models.tolist()),
        tuple(design.reps.tolist()),
        tuple(design.folds.tolist()),
    )


def _record_words(
    lazy: Any,
    designs: dict[Any, _WordDesign],
    dataset: str | None = None,
    n_records: int = 0,
) -> dict[Any, tuple[np.ndarray | None, MembershipPatterns] | object]:
    """Loss patterns and membership of each table from one aggregation per record.

    Each row sets bit ``(i·K + j)·M + k`` (replication ``i``, fold ``j``, model ``k``)
    of a word of replications (a float64 power of two: its position is computed
    once per row); per record the engine sums those bits (and, for 0/1 losses, the
    bits of the rows with loss 1). A record is valid when the bits did
    not carry (as many set bits as rows) and each replication's block of ``K·M``
    bits is empty or one fold's ``M`` models. The designs' words must fit
    (:attr:`_WordDesign.words`).

    ``designs`` holds one design per data set, by its label in the column
    ``dataset`` (``None``: one table, under the key ``None``): the records of every
    data set are aggregated at once, grouped by data set and record, each row's
    bit placed by its own data set's design. A data set's value is
    :data:`_IRREGULAR` when its bits do not form its design.

    With more than :data:`_RECORDS_PER_PASS` records (``n_records``: the most in
    one replication, summed over the data sets), the records are aggregated in
    passes (:func:`_record_passes`), so that one pass's hash table fits.
    """
    nw = narwhals()
    labels = list(designs)
    keyed = [(_design_key(d), d) for d in designs.values()]
    n_words = max(len(d.words or []) for d in designs.values())
    binary = any(d.binary for d in designs.values())
    position = _per_dataset(dataset, labels, [(k, d.position()) for k, d in keyed])
    by = [dataset] if dataset is not None else []
    with_bits = lazy.select(*by, I, Y, position.alias("_pos"))
    if dataset is not None:
        with_bits = with_bits.filter(nw.col(dataset).is_in(labels))
    aggs = [nw.len().alias("_n")]
    for w in range(n_words):
        bounds = [d.bounds(w) for d in designs.values()]
        low = _per_dataset(dataset, labels, [(b, nw.lit(b[0])) for b in bounds])
        high = _per_dataset(dataset, labels, [(b, nw.lit(b[1])) for b in bounds])
        in_word = (nw.col("_pos") >= low) & (nw.col("_pos") < high)
        power = nw.lit(2.0) ** (nw.col("_pos") - low)  # exact: a power of two below 2**52
        with_bits = with_bits.with_columns(
            nw.when(in_word).then(power).otherwise(nw.lit(0.0)).alias(f"_p{w}")
        )
        aggs.append(nw.col(f"_p{w}").sum().alias(f"_set{w}"))
        if binary:
            with_bits = with_bits.with_columns((nw.col(f"_p{w}") * nw.col(Y)).alias(f"_e{w}"))
            aggs.append(nw.col(f"_e{w}").sum().alias(f"_wrong{w}"))
    names = ["_n"] + [f"_set{w}" for w in range(n_words)]
    names += [f"_wrong{w}" for w in range(n_words)] if binary else []
    # as float64: exact below 2**52, and no engine's wide integer sum reaches pandas;
    # one row per record comes back in batches, each counted into patterns at once
    tally: dict[Any, list[np.ndarray]] = {label: [] for label in labels}
    counted: dict[Any, list[MembershipPatterns]] = {label: [] for label in labels}
    irregular: set[Any] = set()
    for keep in _record_passes(lazy, n_records):
        rows = with_bits if keep is None else with_bits.filter(keep)
        query = rows.group_by(*by, I).agg(*aggs).select(*by, nw.col(*names).cast(nw.Float64))
        for found in collect_batches(query):
            split = [(None, found)] if dataset is None else found.groupby(dataset, sort=False)
            for label, rows_of in split:
                if label in irregular:
                    continue
                design = designs[label]
                batch = _batch_patterns(rows_of, design, tally[label])
                if batch is _IRREGULAR:
                    irregular.add(label)
                else:
                    counted[label].append(batch)  # type: ignore[arg-type]
    result: dict[Any, tuple[np.ndarray | None, MembershipPatterns] | object] = {}
    for label, design in designs.items():
        if label in irregular:
            result[label] = _IRREGULAR
            continue
        loss_patterns = None
        if design.binary:
            n_models = len(design.models)
            full = (1 << n_models) - 1
            stacked = np.concatenate(tally[label] or [np.zeros((0, 3), dtype=np.int64)])
            keys, where = np.unique(stacked[:, :2], axis=0, return_inverse=True)
            n = np.bincount(where.reshape(-1), weights=stacked[:, 2], minlength=keys.shape[0])
            i, code = keys[:, 0], keys[:, 1]
            loss_patterns = np.column_stack([i, code >> n_models, code & full, n.astype(np.int64)])
        result[label] = (loss_patterns, _merged_patterns(counted[label], len(design.reps)))
    return result


def _record_passes(lazy: Any, n_records: int) -> list[Any]:
    """Which records each pass aggregates: a filter per pass (``[None]``: one pass).

    Past :data:`_RECORDS_PER_PASS` records (``n_records``), every record falls in
    exactly one pass, whatever the engine:

    * integer ids by ranges of a multiplicative hash of the id
      (:func:`_integer_passes`): ids of any stride spread evenly (cut by the id
      modulo the passes, ids 0, 4, 8, ... all fell in one pass of four);
    * float, date and time ids by ranges of their value (:func:`_number_passes`; a
      date or a time as :func:`_time_value`), cut from the rows counted in equal
      bins of their span;
    * any other id (text, a duration) by its text (the engine's own cast),
      through :func:`_text_passes`: ranges of the characters of the ids that vary,
      cut into passes of about as many rows each.

    The numbers never depend on the cut, only the passes' sizes do.
    """
    nw = narwhals()
    n_passes = -(-n_records // _RECORDS_PER_PASS)
    if n_passes <= 1:
        return [None]
    dtype = lazy.collect_schema()[I]
    if dtype.is_integer():
        return _integer_passes(lazy, dtype, n_passes)
    if dtype.is_numeric():
        return _number_passes(lazy, nw.col(I).cast(nw.Float64), n_passes)
    if dtype.is_temporal() and _time_value(dtype) is not None:
        return _number_passes(lazy, _time_value(dtype), n_passes)
    text = nw.col(I) if dtype == nw.String or isinstance(dtype, nw.String) else None
    return _text_passes(lazy, nw.col(I).cast(nw.String) if text is None else text, n_passes)


def _integer_hash(dtype: Any) -> Any:
    """A record's integer id hashed to ``[0, P)`` (``P`` = :data:`_HASH_PRIME`), the same
    number on every engine: ``(id mod P) · A mod P`` (``A`` = :data:`_HASH_FACTOR`).

    The remainder is taken as ``((id % P) + P) % P``, which is ``id mod P`` whether an
    engine's ``%`` takes the sign of the dividend (DuckDB, Spark) or of the divisor
    (pandas, Polars); every product stays below ``2**62``, so no engine's 64-bit
    arithmetic overflows (or raises, as DuckDB's does). Narrower integers are
    widened to 64 bits first; wider or unsigned 64-bit ids keep their type until
    the remainder is taken. Multiplying by ``A`` modulo a prime spreads the ids of
    every stride not a multiple of ``P`` (Knuth, *The Art of Computer Programming*,
    vol. 3, section 6.4, multiplicative hashing).
    """
    nw = narwhals()
    wide = (nw.Int64, nw.UInt64, nw.Int128, nw.UInt128)
    x = nw.col(I) if any(dtype == w for w in wide) else nw.col(I).cast(nw.Int64)
    p = _HASH_PRIME  # a plain number: the id's own type holds it (an unsigned one too)
    remainder = (((x % p) + p) % p).cast(nw.Int64)
    return (remainder * nw.lit(_HASH_FACTOR, dtype=nw.Int64)) % nw.lit(p, dtype=nw.Int64)


def _integer_passes(lazy: Any, dtype: Any, n_passes: int) -> list[Any]:
    """Filters that cut integer record ids into ``n_passes`` passes by ranges of their
    hash (:func:`_integer_hash`).

    The engine counts the rows in each of :data:`_NUMBER_BINS` equal bins of the
    hash's range (one small aggregation: at most one row per bin), and the ranges
    cut the bins into passes of about as many rows each: the hash scatters ids of
    a common stride, or clustered ids with a few far away, over its whole range,
    where equal ranges of the id itself would put the cluster in one pass.
    """
    nw = narwhals()
    width = -(-_HASH_PRIME // _NUMBER_BINS)
    bins = _integer_hash(dtype) // width  # whole numbers in [0, _NUMBER_BINS)
    counts = collect(lazy.select(bins.alias("_s")).group_by("_s").agg(nw.len().alias("_n")))
    counts = counts[counts["_s"].notna()].astype({"_s": np.int64}).sort_values("_s")
    return _ranges(bins, [int(b) for b in _cut(counts, n_passes)])


def _time_value(dtype: Any) -> Any | None:
    """A date's or time's record id as a number that grows with it (seconds from year
    0, in the engine's own calendar fields: every engine reads them from a date or a
    time), or ``None`` for other temporal types (durations are cut by their text)."""
    nw = narwhals()
    dt = nw.col(I).dt
    days = dt.year().cast(nw.Float64) * 366.0 + dt.ordinal_day().cast(nw.Float64)
    if dtype == nw.Date or isinstance(dtype, nw.Date):
        return days
    if not (dtype == nw.Datetime or isinstance(dtype, nw.Datetime)):
        return None
    seconds = (
        dt.hour().cast(nw.Float64) * 3600.0
        + dt.minute().cast(nw.Float64) * 60.0
        + dt.second().cast(nw.Float64)
        + dt.microsecond().cast(nw.Float64) * 1e-6
    )
    return days * 86400.0 + seconds


def _cut(counts: pd.DataFrame, n_passes: int) -> list[Any]:
    """The first keys of passes 2, 3, ...: ``counts`` holds keys ``_s`` (sorted) and their
    rows ``_n``; each bound is the first key past a pass's share of the rows."""
    keys = counts["_s"].tolist()
    shares = np.cumsum(counts["_n"].to_numpy(dtype=np.float64))
    bounds: list[Any] = []
    for part in range(1, n_passes):
        at = int(np.searchsorted(shares, shares[-1] * part / n_passes, side="right"))
        if 0 < at < len(keys) and (not bounds or keys[at] > bounds[-1]):
            bounds.append(keys[at])
    return bounds


def _ranges(value: Any, bounds: list[Any]) -> list[Any]:
    """One filter per range ``[b_p, b_p+1)`` of ``value`` (the first open below, the last
    open above), each written ``not value < b_p and value < b_p+1``: every value is in
    exactly one, under any order an engine compares by (a NaN in the last)."""
    if not bounds:
        return [None]
    below = [value < b for b in bounds] + [None]
    above = [None] + [~(value < b) for b in bounds]
    return [lo if hi is None else hi if lo is None else lo & hi for lo, hi in zip(above, below)]


def _number_passes(lazy: Any, x: Any, n_passes: int) -> list[Any]:
    """Filters that cut the records into ``n_passes`` passes by ranges of a number ``x``
    computed from their ids (a float id itself, a date's or a time's value).

    The engine finds the finite values' span (one aggregation) and counts the rows
    in each of :data:`_NUMBER_BINS` equal bins of it (at most one row per bin); the
    ranges cut the bins into passes of about as many rows each.
    """
    nw = narwhals()
    finite = nw.when(x.is_finite()).then(x)
    span = collect(lazy.select(finite.min().alias("_lo"), finite.max().alias("_hi")))
    low, high = float(span["_lo"].iloc[0]), float(span["_hi"].iloc[0])
    if not (np.isfinite(low) and np.isfinite(high) and high > low):
        return [None]
    width = (high - low) / _NUMBER_BINS
    bins = ((finite - low) / width).floor().clip(0, _NUMBER_BINS - 1)
    counts = collect(lazy.select(bins.alias("_s")).group_by("_s").agg(nw.len().alias("_n")))
    counts = counts[counts["_s"].notna()].sort_values("_s")
    bounds = [low + float(b) * width for b in _cut(counts, n_passes)]
    return _ranges(x, bounds)


def _varying_positions(lazy: Any, text: Any) -> list[int]:
    """The places from the end (1 is the last character) of up to :data:`_VARYING_CHARS`
    characters of the ids' ``text`` that tell the most ids apart.

    Read from the ids of the first :data:`_SAMPLED_ROWS` rows (one bounded query),
    among their last :data:`_CHARS_LOOKED_AT` characters: each place is added in
    turn where it splits the sampled ids into the most keys (the nearest the end on
    a tie), until no place splits them further. A suffix all ids share
    (``r000001_x``), a date's constant century or a time's constant seconds are
    passed over: cut on the last three characters, ids of one suffix all fell in
    one pass.
    """
    sample = collect(lazy.select(text.alias("_t")).head(_SAMPLED_ROWS))["_t"].dropna()
    ids = pd.unique(sample.astype(str))
    width = _CHARS_LOOKED_AT  # the last characters, right-aligned ("\0" before a short id)
    chars = np.array([t[-width:].rjust(width, "\0") for t in ids], dtype=f"<U{width}")
    codes = chars.view(np.uint32).reshape(len(ids), width).astype(np.int64)
    places = {
        k: codes[:, width - k]
        for k in range(1, width + 1)
        if len(ids) and (codes[:, width - k] != codes[0, width - k]).any()  # varies
    }
    chosen: list[int] = []
    key, n_keys = np.zeros(len(ids), dtype=np.int64), 1
    for _ in range(_VARYING_CHARS):
        best, best_keys, best_key = 0, n_keys, key
        for k, place in places.items():
            if k in chosen:
                continue
            combined = np.unique(key * (int(place.max()) + 1) + place, return_inverse=True)
            if combined[0].shape[0] > best_keys:
                best, best_keys, best_key = k, combined[0].shape[0], combined[1].reshape(-1)
        if best == 0:
            break
        chosen.append(best)
        key, n_keys = best_key, best_keys
    return sorted(chosen) or list(range(1, _VARYING_CHARS + 1))


def _text_passes(lazy: Any, text: Any, n_passes: int) -> list[Any]:
    """Filters that cut the records into ``n_passes`` passes by their ids' ``text``.

    The key of an id is its characters at :func:`_varying_positions` (those that
    vary fastest in ids such as ``r000123``, ``r000123_x``, ``2024-03-31`` or a
    UUID). The engine counts the rows of each key (one small aggregation: at most
    one row per key), and the ranges cut the keys, in code point order, into passes
    of about as many rows each. Each range is written ``not key < b_p and key <
    b_p+1`` (the first open below, the last open above), so that every id is in
    exactly one pass under any order an engine compares texts by.
    """
    nw = narwhals()
    places = _varying_positions(lazy, text)
    if places[-1] - places[0] < 2 * _VARYING_CHARS:  # one slice: cheaper than a concatenation
        key = text.str.slice(-places[-1], places[-1] - places[0] + 1)
    else:
        key = nw.concat_str([text.str.slice(-k, 1) for k in places], separator="")
    counts = collect(lazy.select(key.alias("_s")).group_by("_s").agg(nw.len().alias("_n")))
    counts = counts[counts["_s"].notna()].astype({"_s": object})
    counts["_s"] = counts["_s"].map(str)
    order = sorted(range(counts.shape[0]), key=lambda t: counts["_s"].iloc[t])  # code points
    return _ranges(key, _cut(counts.iloc[order], n_passes))


def _batch_patterns(
    found: pd.DataFrame, design: _WordDesign, tally: list[np.ndarray]
) -> MembershipPatterns | object:
    """The membership patterns of a batch of records' words; their loss patterns are
    counted as rows ``(i, fold << n_models | errors, records)`` appended to ``tally``
    (0/1 losses only); :data:`_IRREGULAR` when a record's bits do not form the design."""
    words = design.words or []
    block, n_models, n_folds, m = (
        design.block,
        len(design.models),
        len(design.folds),
        len(design.reps),
    )
    binary = design.binary
    n_rows = found["_n"].to_numpy(dtype=np.int64)
    set_words = [_exact_word(found[f"_set{w}"]) for w in range(len(words))]
    wrong_words = [_exact_word(found[f"_wrong{w}"]) for w in range(len(words))] if binary else []
    if any(word is None for word in [*set_words, *wrong_words]):
        return _IRREGULAR
    ones = sum(_popcount(word) for word in set_words)
    if (ones != n_rows).any():
        return _IRREGULAR  # a (replication, fold, model) twice for a record
    full = (1 << n_models) - 1
    membership = np.full((n_rows.shape[0], m), -1, dtype=np.int32)
    for w, word in enumerate(words):
        for t, i in enumerate(word):
            bits = (set_words[w] >> (t * block)) & ((1 << block) - 1)
            fold_of = membership[:, i]
            for j in range(n_folds):
                fold_of[bits == full << (j * n_models)] = j
            if ((fold_of < 0) & (bits != 0)).any():
                return _IRREGULAR  # models missing, or a record in two folds
            if binary:
                shift = (t * block + np.maximum(fold_of, 0) * n_models).astype(np.int64)
                wrong = (wrong_words[w] >> shift) & full
                here = fold_of >= 0
                code = fold_of[here].astype(np.int64) << n_models | wrong[here]
                if n_folds << n_models <= _DENSE_PATTERNS:
                    dense = np.bincount(code, minlength=n_folds << n_models)
                    used = np.flatnonzero(dense)
                    n = dense[used]
                else:  # too many possible patterns for one counter each
                    used, n = np.unique(code, return_counts=True)
                tally.append(np.column_stack([np.full_like(used, i), used, n]))
    return membership_patterns(membership, n_folds)


def _merged_patterns(counted: list[MembershipPatterns], m: int) -> MembershipPatterns:
    """One set of membership patterns from the patterns of several batches of records."""
    if len(counted) == 1:
        return counted[0]
    if not counted:
        return MembershipPatterns(np.zeros((0, m), dtype=np.int32), np.zeros(0, dtype=np.int64))
    patterns = np.concatenate([c.patterns for c in counted])
    counts = np.concatenate([c.counts for c in counted])
    rows, where = np.unique(patterns, axis=0, return_inverse=True)
    summed = np.bincount(where.reshape(-1), weights=counts, minlength=rows.shape[0])
    return sorted_patterns(rows, summed.astype(np.int64))


def _exact_word(values: pd.Series) -> np.ndarray:
    """int64 of float sums below ``2**_EXACT_BITS`` (exact); ``None`` past them."""
    x = values.to_numpy(dtype=np.float64)
    if not (x < float(1 << _EXACT_BITS)).all():
        return None  # only sums that carried reach so far
    return x.astype(np.int64)


def _popcount(values: np.ndarray) -> np.ndarray:
    """Set bits of each non-negative int64."""
    if hasattr(np, "bitwise_count"):  # numpy 2
        return np.bitwise_count(values).astype(np.int64)
    count = np.zeros(values.shape[0], dtype=np.int64)
    rest = values.copy()
    while rest.any():
        count += rest & 1
        rest >>= 1
    return count


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
    rows = lazy.filter(nw.col(M) == first_model)
    fold_digit = case_codes(F, folds, range(1, base))
    new_columns, aggs = [], [nw.len().alias("_cells")]
    for w, word in enumerate(words):
        in_word = reps.take(word)
        others = [r for r in range(m) if r not in set(word)]
        rep_bit = case_codes(
            R, in_word.append(reps.take(others)), powers(len(word)) + [0] * len(others)
        )
        weight = case_codes(
            R,
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
    counted = collect(
        rows.with_columns(*new_columns)
        .group_by(I)
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
    dataset: str | None = None,
) -> Any:
    nw = narwhals()
    return source.frame.select(
        *([nw.col(dataset).alias(D)] if dataset is not None else []),
        (nw.col(replication) if replication is not None else nw.lit(CONSTANT_LABEL)).alias(R),
        (nw.col(fold) if fold is not None else nw.lit(CONSTANT_LABEL)).alias(F),
        nw.col(model).alias(M),
        nw.col(record).alias(I),
        response.alias(Y),
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
            frame = in_source_zone(canonical.collect().to_pandas())
        values = frame[Y].to_numpy(dtype=np.float64)
        layout = build_record_layout(
            frame,
            to_loss[0] + to_loss[1] * values,
            loss_what=f"loss {loss_name!r}",
            model=M,
            replication=R,
            fold=F,
            record=I,
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
    per_model = cells.groupby(M, sort=False)[["sum", "n"]].sum()
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


def _handover_for_values(
    source: EngineSource, needed: Sequence[str], loss_name: str
) -> MemoryHandover:
    """The hand-over for a value the engine cannot compute.

    A loss column of text, dates or categories is refused by its type, which its
    first rows show; anything else (a formula beyond the engine's translation)
    needs every row.
    """
    nw = narwhals()
    if loss_name in source.columns:
        dtype = source.dtype(loss_name)
        textual = (nw.String, nw.Categorical, nw.Enum, nw.Date, nw.Datetime, nw.Duration)
        if isinstance(dtype, textual) or dtype in textual:  # as pandas shows
            return MemoryHandover(needed, f"loss {loss_name!r} holds {dtype}", first_rows=3)
    return MemoryHandover(needed, "values the engine cannot compute")


def _named_in(column: str, text: str) -> bool:
    """Whether ``text`` (a loss name or formula) names ``column`` as a whole word."""
    return re.search(rf"(?<!\w){re.escape(column)}(?!\w)", text) is not None


@dataclass(frozen=True)
class EngineRoute:
    """How a table's per-record values are read inside the engine.

    The same route reads one table (:func:`engine_contents`) and each data set of
    many in one pass (:func:`contents_by_dataset`).

    Attributes
    ----------
    response : narwhals expression or None
        The value of each row; ``None`` when it cannot be computed in the engine
        (then the in-memory backend reads the rows).
    model, replication, fold, record : str or None
        Column names, as for :class:`~cvreport.data.table.ResultsTable`.
    loss_name : str
        Name of the values.
    describe : callable
        ``describe(n_rows)``: the table's source line.
    needed : tuple of str
        The columns the in-memory backend reads when the engine hands the table
        over.
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
    finish : callable, optional
        ``finish(source, contents)``: what the route adds to the contents (a
        fetcher of the predictions), from the source of the table's rows.
    """

    response: Any
    model: str
    replication: str | None
    fold: str | None
    record: str
    loss_name: str
    describe: Callable[[int], str]
    needed: tuple[str, ...]
    direction: Direction | None = None
    metric: Metric | None = None
    direction_note: str = ""
    all_wrong_suspect: bool = False
    finish: Callable[[EngineSource, TableContents], TableContents] | None = None

    @property
    def keys(self) -> tuple[str, str | None, str | None, str]:
        """The model, replication, fold and record columns."""
        return (self.model, self.replication, self.fold, self.record)

    def canonical(self, source: EngineSource, dataset: str | None = None) -> Any:
        """The rows as the canonical columns (and the data set's, as ``D``)."""
        model, replication, fold, record = self.keys
        return _canonical(source, self.response, model, replication, fold, record, dataset)

    def check_plain(self, source: EngineSource) -> None:
        """Raise :class:`~cvreport.errors.DataError` for a used column of nested values."""
        keys = self.keys
        source.check_plain([c for c in self.needed if c in keys or _named_in(c, self.loss_name)])


@dataclass(frozen=True)
class _Summary:
    """What the per-cell aggregation says of one table, checked."""

    n_rows: int
    binary: bool
    replications: pd.Index
    folds: pd.Index
    models: pd.Index
    metric: Metric
    direction_note: str
    to_loss: tuple[float, float]
    sums: np.ndarray
    sumsq: np.ndarray
    counts: np.ndarray
    diagnosis: EngineDiagnosis

    @property
    def most_records(self) -> int:
        """Records of the replication with the most."""
        return int(self.counts[:, :, 0].sum(axis=1).max())

    def design(self) -> _WordDesign:
        return _WordDesign(self.models, self.binary, self.replications, self.folds)


def _summary(
    source: EngineSource,
    route: EngineRoute,
    cells: pd.DataFrame,
    models_in_order: Callable[[pd.Index], pd.Index],
) -> _Summary:
    """Check one table's cells and turn them into its labels, metric and per-cell sums.

    Raises :class:`MemoryHandover` when the in-memory backend must build the table,
    and :class:`~cvreport.errors.DataError` for a problem the aggregates name.
    """
    needed = list(route.needed)
    n_rows = int(cells["n"].sum())
    if n_rows == 0:  # pandas words it, from no rows
        raise MemoryHandover(needed, "no rows")
    binary = _is_binary(cells)
    names = Names(route.replication, route.fold, route.model, route.record)
    diagnosis = EngineDiagnosis(source, route.response, names, route.loss_name, n_rows)
    try:
        plain_column = route.loss_name in source.columns
        diagnosis.check_values(cells, binary, plain_column=plain_column)
        if route.all_wrong_suspect and float(cells["sum"].sum()) == n_rows:
            raise RowsNeeded
        diagnosis.check_labels(cells)
    except RowsNeeded as needs:
        raise MemoryHandover(needed, "the problem's words need the rows") from needs
    replications = _sorted_labels(cells[R])
    folds = _sorted_labels(cells[F])
    models = models_in_order(_label_index(cells[M]))
    if route.metric is None:
        metric, direction_note = _metric_of(cells, binary, route.loss_name, route.direction)
        offset, sign = _to_loss(metric, binary)
    else:
        metric, direction_note = route.metric, route.direction_note
        offset, sign = 0.0, 1.0
    i, j, k = (
        _codes(cells[R], replications),
        _codes(cells[F], folds),
        _codes(cells[M], models),
    )
    shape = (len(replications), len(folds), len(models))
    present = np.zeros(shape, dtype=bool)
    present[i, j, k] = True
    check_design_grid(present, replications, folds, models, route.model)
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
    if len(models) > _MAX_BITS:  # more models than bits: laid out in memory instead
        raise MemoryHandover(needed, f"{len(models)} models, more than {_MAX_BITS}")
    return _Summary(
        n_rows,
        binary,
        replications,
        folds,
        models,
        metric,
        direction_note,
        (offset, sign),
        sums,
        sumsq,
        counts,
        diagnosis,
    )


def _as_loss(lazy: Any, to_loss: tuple[float, float]) -> Any:
    """The rows with their values as the internal loss ``a + b · value``."""
    if to_loss == (0.0, 1.0):
        return lazy
    nw = narwhals()
    return lazy.with_columns((to_loss[0] + to_loss[1] * nw.col(Y)).alias(Y))


def _built(
    source: EngineSource,
    route: EngineRoute,
    summary: _Summary,
    loss_patterns: np.ndarray | None,
    patterns: MembershipPatterns,
) -> TableContents:
    """The table's contents from its summary and its records' patterns, finished by the route."""
    stats = pattern_statistics(summary.sums, summary.sumsq, summary.counts, loss_patterns, patterns)
    contents = TableContents(
        models=summary.models,
        replications=summary.replications,
        folds=summary.folds,
        stats=stats,
        design=record_design(stats, summary.replications, summary.folds, patterns.n_records),
        is_binary=summary.binary,
        per_record=True,
        loss_name=route.loss_name,
        source=route.describe(summary.n_rows),
        n_rows=summary.n_rows,
        route=f"engine ({source.frame.implementation.name.lower()})",
        metric=summary.metric,
        direction_note=summary.direction_note,
        layout=_materialised_layout(
            source,
            route.response,
            route.keys,
            summary.to_loss,
            summary.models,
            route.loss_name,
        ),
    )
    return contents if route.finish is None else route.finish(source, contents)


def engine_contents(source: EngineSource, route: EngineRoute) -> TableContents:
    """Validate and summarise per-record values inside the engine that holds them.

    Parameters
    ----------
    source : EngineSource
        The frame.
    route : EngineRoute
        Which columns, which values, and how the contents are finished.

    Returns
    -------
    TableContents
        The table's labels, sufficient statistics and design.

    Raises
    ------
    MemoryHandover
        When the in-memory backend must build the contents (or word the error)
        from the rows it names.
    DataError
        A problem the engine's aggregates name, in the in-memory validation's words.
    """
    route.check_plain(source)
    needed = list(route.needed)
    with source.errors():
        if route.response is None:
            raise _handover_for_values(source, needed, route.loss_name)
        cells, lazy = _cells(route.canonical(source))
        summary = _summary(source, route, cells, partial(_first_appearance, lazy))
        lazy = _as_loss(lazy, summary.to_loss)
        models, replications, folds = summary.models, summary.replications, summary.folds
        # one aggregation per record where the design's bits fit a few words, else per fold
        design = summary.design()
        if design.words is not None:
            found = _record_words(lazy, {None: design}, None, summary.most_records)[None]
            loss_patterns, patterns = (_IRREGULAR, None) if found is _IRREGULAR else found
        else:
            loss_patterns = _loss_patterns(lazy, models, summary.binary, replications, folds)
            patterns = (
                None
                if loss_patterns is _IRREGULAR
                else _membership(lazy, models[0], replications, folds)
            )
        if loss_patterns is _IRREGULAR or patterns is None:
            summary.diagnosis.check_keys(lazy, models, replications, folds)
            raise MemoryHandover(needed, "irregular keys")  # not reached: the keys name it
        return _built(source, route, summary, loss_patterns, patterns)  # type: ignore[arg-type]


def contents_by_dataset(
    source: EngineSource, route: EngineRoute, dataset: str, parts: dict[Any, EngineSource]
) -> dict[Any, TableContents]:
    """Each data set's contents from one set of queries over all of them.

    The per-cell aggregation and the per-record words of :func:`engine_contents`
    run once over the whole frame with the data set column ``dataset`` added to
    their keys (each row's bits placed by its own data set's design), and are
    split into each data set's contents afterwards: the same numbers as one
    table per data set, at the cost of one pass instead of one per data set.

    Parameters
    ----------
    source : EngineSource
        The frame of every data set.
    route : EngineRoute
        As for :func:`engine_contents`, for each data set alike.
    dataset : str
        The data set column (every row labelled).
    parts : dict
        Each data set's label and the source of its rows (the frame filtered on
        it): their contents read rows from it, and name it in their errors.

    Returns
    -------
    dict
        The contents of the data sets this pass could build. A data set left out
        (a problem to word, a design whose words do not fit, values the engine
        cannot compute) is built alone, by :func:`engine_contents` on its part,
        which words its error or hands it over.
    """
    if route.response is None:
        return {}
    route.check_plain(source)
    with source.errors():
        cells_all, lazy = _cells(route.canonical(source, dataset), [D])
        cells_of = {
            label: cells.drop(columns=D).reset_index(drop=True)
            for label, cells in cells_all.groupby(D, sort=False)
            if label in parts
        }
        orders = _first_appearances(
            lazy, {k: _label_index(v[M]) for k, v in cells_of.items() if not v[M].isna().any()}
        )
        summaries: dict[Any, _Summary] = {}
        for label, cells in cells_of.items():
            try:
                summary = _summary(parts[label], route, cells, orders[label])
            except (MemoryHandover, RowsNeeded, CVReportError, KeyError):
                continue  # built alone: it words its own problem
            if summary.design().words is not None:
                summaries[label] = summary
        if not summaries:
            return {}
        if any(s.to_loss != (0.0, 1.0) for s in summaries.values()):  # each its own loss
            nw = narwhals()
            losses = [
                (s.to_loss, s.to_loss[0] + s.to_loss[1] * nw.col(Y)) for s in summaries.values()
            ]
            lazy = lazy.with_columns(_per_dataset(D, list(summaries), losses).alias(Y))
        found = _record_words(
            lazy,
            {label: s.design() for label, s in summaries.items()},
            D,
            sum(s.most_records for s in summaries.values()),
        )
        return {
            label: _built(parts[label], route, summaries[label], *words)  # type: ignore[misc]
            for label, words in found.items()
            if words is not _IRREGULAR
        }


def _first_appearances(
    lazy: Any, labels: dict[Any, pd.Index]
) -> dict[Any, Callable[[pd.Index], pd.Index]]:
    """For each data set (``labels``: its models), how to order its models: as
    :func:`_first_appearance` orders one table's, from the data set's first rows.

    Every data set's first rows come in one query (a union of each data set's
    head, :data:`_HEADS_PER_QUERY` at a time); only the data sets whose first rows
    do not show every model are read again, further. Spark, Polars and Ibis read
    them in one query (:func:`_first_appearances_spark`,
    :func:`_first_appearances_polars`, :func:`_first_appearances_ibis`). Only each data set's
    (data set, model) pairs in order of first appearance and its number of rows
    read reach pandas, so memory stays bounded by a batch of rows
    (:func:`_first_pairs`).
    """
    if lazy.implementation.name == "PYSPARK":
        return _first_appearances_spark(lazy, labels)
    if lazy.implementation.name == "POLARS":
        return _first_appearances_polars(lazy, labels)
    if lazy.implementation.name == "IBIS":
        return _first_appearances_ibis(lazy, labels)
    nw = narwhals()
    orders: dict[Any, Callable[[pd.Index], pd.Index]] = {}
    pending = dict(labels)
    n = _FIRST_ROWS
    while pending:
        names = list(pending)
        pairs, read = [], pd.Series(dtype=np.int64)
        for start in range(0, len(names), _HEADS_PER_QUERY):
            heads = [
                lazy.filter(nw.col(D) == label).select(D, M).head(n)
                for label in names[start : start + _HEADS_PER_QUERY]
            ]
            found, counts = _first_pairs(heads)
            pairs.append(found)
            read = read.add(counts, fill_value=0) if read.shape[0] else counts
        head = pd.concat(pairs, ignore_index=True)
        grouped = dict(list(head.groupby(D, sort=False)))
        for label in names:
            models = pending[label]
            rows = grouped.get(label, head.iloc[:0])[M]
            n_read = int(read.get(label, 0))
            wanted = set(models.tolist())
            order = [v for v in pd.unique(rows).tolist() if v in wanted]  # first appearance
            if len(order) == len(wanted) or n_read < n or n >= _MOST_FIRST_ROWS:
                rest = [v for v in models.tolist() if v not in set(order)]
                found = pd.Index(order + rest, dtype=models.dtype) if order else models
                orders[label] = lambda _models, found=found: found
                del pending[label]
        n *= 8
    return orders


def _first_appearances_spark(
    lazy: Any, labels: dict[Any, pd.Index]
) -> dict[Any, Callable[[pd.Index], pd.Index]]:
    """Spark: :func:`_first_appearances` from one aggregation over the partitions
    (:func:`~cvreport.data.engine_query.spark_first_places`) instead of growing heads,
    each of which ran the query again.

    A data set's rows before a partition are known (the partition sizes), its rows
    within it are not: a model is kept when its partition starts within the data
    set's first :data:`_MOST_FIRST_ROWS` rows, which orders it by its first row as
    pandas does.
    """
    found = spark_first_places(lazy, [D, M])
    by_dataset = dict(list(found.groupby(D, sort=False))) if not found.empty else {}
    ordered: dict[Any, pd.Series] = {}
    for label in labels:
        rows = by_dataset.get(label, found.iloc[:0])
        if rows.shape[0]:
            rows = rows[partitions_before(rows) < _MOST_FIRST_ROWS]
        ordered[label] = rows.sort_values(["_part", "_first"], kind="stable")[M]
    return _orders_from_first_rows(ordered, labels)


def _first_appearances_polars(
    lazy: Any, labels: dict[Any, pd.Index]
) -> dict[Any, Callable[[pd.Index], pd.Index]]:
    """Polars: :func:`_first_appearances` from one streaming aggregation, each (data
    set, model) pair's first row number, instead of unions of heads read again,
    further, while a data set's first rows lacked a model (each union a query).

    Only the pairs reach pandas. Every row is numbered, so a model first seen past
    its data set's first :data:`_MOST_FIRST_ROWS` rows still takes its place by its
    first row, as pandas places it.
    """
    import polars as pl

    first = f"{M}_first_row"
    pairs = (
        lazy.select(D, M)
        .to_native()
        .with_row_index(first)
        .group_by(D, M)
        .agg(pl.col(first).min())
        .sort(first)
    )
    found = collect(narwhals().from_native(pairs))
    by_dataset = dict(list(found.groupby(D, sort=False))) if not found.empty else {}
    ordered = {label: by_dataset.get(label, found.iloc[:0])[M] for label in labels}
    return _orders_from_first_rows(ordered, labels)


def _first_appearances_ibis(
    lazy: Any, labels: dict[Any, pd.Index]
) -> dict[Any, Callable[[pd.Index], pd.Index]]:
    """Ibis: :func:`_first_appearances` from one query, instead of unions of heads read
    again, further, while a data set's first rows lacked a model (each union a query).

    The (data set, model) column pairs stream in Arrow batches in the rows' order,
    each batch reduced at once to each data set's models by first row; the stream
    stops once every data set shows all its models or has given its first
    :data:`_MOST_FIRST_ROWS` rows, so memory stays bounded by a batch.
    """
    wanted = {label: set(models.tolist()) for label, models in labels.items()}
    seen: dict[Any, dict[Any, None]] = {label: {} for label in labels}
    read = dict.fromkeys(labels, 0)
    pending = {label for label in labels if wanted[label]}
    if not pending:
        return _orders_from_first_rows({label: pd.Series(dtype=object) for label in labels}, labels)
    table = lazy.select(D, M).to_native()
    reader = table.to_pyarrow_batches(limit=None, chunk_size=_FIRST_PAIRS_BATCH)
    try:
        for batch in reader:
            rows = in_source_zone(as_timedeltas(batch.to_pandas()))
            for label, part in rows.groupby(D, sort=False):
                if label not in pending:
                    continue
                models = part[M].iloc[: _MOST_FIRST_ROWS - read[label]]
                read[label] += part.shape[0]
                for model in pd.unique(models).tolist():
                    if model in wanted[label]:
                        seen[label].setdefault(model, None)
                if len(seen[label]) == len(wanted[label]) or read[label] >= _MOST_FIRST_ROWS:
                    pending.discard(label)
            if not pending:
                break
    finally:
        close = getattr(reader, "close", None)
        if close is not None:
            close()  # the query stops with its stream
    ordered = {label: pd.Series(list(seen[label]), dtype=object) for label in labels}
    return _orders_from_first_rows(ordered, labels)


def _orders_from_first_rows(
    ordered: dict[Any, pd.Series], labels: dict[Any, pd.Index]
) -> dict[Any, Callable[[pd.Index], pd.Index]]:
    """For each data set, its models (``labels``) in the order of ``ordered`` (its
    models by first row); those not in it follow in the order given."""
    orders: dict[Any, Callable[[pd.Index], pd.Index]] = {}
    for label, models in labels.items():
        wanted = set(models.tolist())
        order = [v for v in pd.unique(ordered[label]).tolist() if v in wanted]
        rest = [v for v in models.tolist() if v not in set(order)]
        found = pd.Index(order + rest, dtype=models.dtype) if order else models
        orders[label] = lambda _models, found=found: found
    return orders


def _first_pairs(heads: list[Any]) -> tuple[pd.DataFrame, pd.Series]:
    """The (data set, model) pairs of the union of ``heads`` (each one data set's first
    rows), each data set's in order of first appearance, and the rows read per data set.

    The union comes in batches (streamed by DuckDB), each reduced to its first pairs
    at once (Polars and Spark order the models otherwise:
    :func:`_first_appearances_polars`, :func:`_first_appearances_spark`).
    """
    nw = narwhals()
    pieces, counts = [], []
    for batch in collect_batches(nw.concat(heads, how="vertical"), _FIRST_PAIRS_BATCH):
        counts.append(batch.groupby(D, sort=False).size())
        pieces.append(batch.drop_duplicates([D, M]))
    if not pieces:
        return pd.DataFrame({D: [], M: []}), pd.Series(dtype=np.int64)
    found = pd.concat(pieces, ignore_index=True).drop_duplicates([D, M])
    return found, pd.concat(counts).groupby(level=0, sort=False).sum().astype(np.int64)


# --------------------------------------------------------------------------- constructors' helpers


def engine_column(source: EngineSource, column: str) -> Any:
    """The loss column as an expression, or ``None`` when pandas must judge its type."""
    nw = narwhals()
    dtype = source.dtype(column)
    return nw.col(column) if dtype.is_numeric() or dtype == nw.Boolean else None


def losses_route(
    source: EngineSource,
    *,
    column: str,
    model: str,
    replication: str | None,
    fold: str | None,
    record: str,
    loss_name: str,
    describe: Callable[[int], str],
    needed: Sequence[str],
    direction: Direction | None,
) -> EngineRoute:
    """The route of a loss (or score) column."""
    return EngineRoute(
        response=engine_column(source, column),
        model=model,
        replication=replication,
        fold=fold,
        record=record,
        loss_name=loss_name,
        describe=describe,
        needed=tuple(needed),
        direction=direction,
    )


def formula_route(
    source: EngineSource,
    formula: str,
    parsed: ParsedFormula,
    *,
    record: str,
    direction: Direction | None,
    block_is_replication: bool | None = None,
) -> EngineRoute:
    """The route of a formula's per-record values.

    With one block, whether it is the fold or the replication is read from
    ``source`` (do records repeat across its groups?), unless
    ``block_is_replication`` says it.
    """
    columns = source.columns
    replication: str | None = None
    fold: str | None = None
    if len(parsed.blocks) == 2:
        replication, fold = parsed.blocks
    elif len(parsed.blocks) == 1:
        fold = parsed.blocks[0]
        if block_is_replication is None:  # refused for the folds of several K-fold runs
            with source.errors():
                block_is_replication = refuse_partitioned_blocks_in_engine(
                    source.frame, fold, record, parsed.response, parsed.model
                )
        if block_is_replication:
            replication, fold = fold, None
    if parsed.response_is_column:
        response = engine_column(source, parsed.response)
        inputs = [parsed.response]
    else:
        response = response_expression(parsed.response, columns)
        inputs = [c for c in columns if c in parsed.response]
    keys = [c for c in (parsed.model, *parsed.blocks, record) if c is not None]
    compared = comparison_columns(parsed.response)
    predictions = None
    if compared is not None and compared[0] in columns and compared[2] in columns:
        predictions = truth_and_prediction(compared[0], compared[2])

    def finish(rows: EngineSource, contents: TableContents) -> TableContents:
        if predictions is not None:
            fetch = _prediction_fetcher(rows, parsed.model, replication, fold, record, *predictions)
            contents = replace(contents, fetch_predictions=fetch)
        return replace(contents, formula=formula)

    return EngineRoute(
        response=response,
        model=parsed.model,
        replication=replication,
        fold=fold,
        record=record,
        loss_name=parsed.response,
        describe=lambda n: (
            f"formula {formula!r} on a {n:,}-row {source.kind} (record column {record!r})"
        ),
        needed=(*keys, *inputs),
        direction=direction,
        finish=finish,
    )


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


def prediction_route(
    source: EngineSource,
    roles: dict[str, str | None],
    *,
    metric: Metric,
    direction_note: str,
    loss_name: str,
) -> EngineRoute:
    """The route of 0/1 losses from predictions."""
    nw = narwhals()
    truth, prediction = str(roles["truth"]), str(roles["prediction"])
    model, record = str(roles["model"]), str(roles["record"])
    replication, fold = roles["replication"], roles["fold"]
    numeric = [source.dtype(c).is_numeric() for c in (truth, prediction)]
    response = None
    if numeric[0] == numeric[1]:
        response = (nw.col(prediction) != nw.col(truth)).cast(nw.Float64)

    def finish(rows: EngineSource, contents: TableContents) -> TableContents:
        fetch = _prediction_fetcher(rows, model, replication, fold, record, truth, prediction)
        return replace(contents, fetch_predictions=fetch)

    return EngineRoute(
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
        needed=tuple(c for c in roles.values() if c is not None),
        metric=metric,
        direction_note=direction_note,
        all_wrong_suspect=True,
        finish=finish,
    )
