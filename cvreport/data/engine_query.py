"""Small pieces of the engine queries: the canonical column names, running a query,
and integer codes of labels computed inside the engine.

Shared by the aggregations (:mod:`cvreport.data.pushdown`) and the diagnosis of an
irregular table (:mod:`cvreport.data.engine_diagnosis`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pandas as pd

from cvreport.data.engines import narwhals

__all__ = ["D", "F", "I", "M", "R", "Y", "case_codes", "collect", "collect_batches", "powers"]

R, F, M, I, Y = "_r", "_f", "_m", "_i", "_y"  # noqa: E741
"""The canonical columns: replication, fold, model, record and the per-record value."""
D = "_d"
"""The canonical data set column, when many data sets are aggregated at once."""


def collect(frame: Any) -> pd.DataFrame:
    """Run a lazy query and bring its (small) result into pandas.

    Polars runs it on its streaming engine, in batches of bounded memory.
    """
    if frame.implementation.name == "POLARS":
        return frame.collect(engine="streaming").to_pandas()
    return frame.collect().to_pandas()


def collect_batches(frame: Any, rows: int = 1 << 20) -> Iterator[pd.DataFrame]:
    """Run a lazy query and bring its result into pandas ``rows`` rows at a time.

    DuckDB streams its result as Arrow record batches, so a result of one row per
    record (20M rows of a 1,000M-row table) never sits in memory whole; other
    engines collect the result and hand it over in slices.
    """
    if frame.implementation.name == "DUCKDB":
        relation = frame.to_native()
        reader = (
            relation.to_arrow_reader(rows)
            if hasattr(relation, "to_arrow_reader")
            else relation.fetch_arrow_reader(rows)
        )
        for batch in reader:
            yield batch.to_pandas()
        return
    whole = collect(frame)
    for start in range(0, max(1, whole.shape[0]), rows):
        yield whole.iloc[start : start + rows]


def powers(n: int) -> list[int]:
    return [1 << k for k in range(n)]


def case_codes(column: str, labels: pd.Index, values: Sequence[int]) -> Any:
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
