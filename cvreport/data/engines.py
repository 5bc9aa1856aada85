"""Where a results table's rows live: pandas in memory, or another engine via narwhals.

A pandas DataFrame is laid out in memory (:mod:`cvreport.data.layout`). Any
other frame narwhals reads — Polars (eager or lazy), PyArrow, DuckDB, Dask,
PySpark, Ibis — and a path or glob of Parquet or CSV files (scanned lazily, by
DuckDB unless another engine is asked for) stays where it is, as an
:class:`EngineSource`, and :mod:`cvreport.data.pushdown` summarises it there
with group-by aggregations.

The same call works against a cluster: a PySpark DataFrame read from a
cluster's storage, or a Dask DataFrame on a ``distributed.Client``, is
summarised by Spark or Dask, and only kilobytes come back::

    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", spark.read.parquet("s3://bucket/results/")
    )
"""

from __future__ import annotations

import ast
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cvreport.errors import DataError

__all__ = ["ENGINES", "EngineSource", "narwhals", "resolve_source", "response_expression"]

ENGINES = ("auto", "pandas", "duckdb", "polars")
"""Engines that can be asked for by name (``engine=`` and ``--engine``)."""

DUCKDB_MEMORY_LIMIT = "3GB"
"""Memory DuckDB may use when it scans files for a table; beyond it, it spills to disk."""

PANDAS_VIA_DUCKDB_ROWS = 100_000_000
"""A pandas frame at least this long goes through Arrow into DuckDB (when installed).

Laid out in memory, a frame needs about 30 bytes a row beyond its own columns
(codes, the loss cube, the fold blocks): 1.3 GiB and 4–5 s for 50M shuffled
rows with text model labels and record ids, faster than pandas' own group-by.
From this length on, DuckDB's bounded memory is worth its slower hashing.
"""


def duckdb_config() -> dict[str, str]:
    """Settings of the DuckDB connection that scans files or a large pandas frame.

    Its hash tables spill to a temporary folder past :data:`DUCKDB_MEMORY_LIMIT`.
    The rows' order is kept (``preserve_insertion_order``): the models are
    ordered by their first row.
    """
    import tempfile

    return {
        "memory_limit": DUCKDB_MEMORY_LIMIT,
        "temp_directory": os.path.join(tempfile.gettempdir(), "cvreport-duckdb"),
    }


def narwhals() -> Any:
    """narwhals' stable API (imported when first needed)."""
    import narwhals.stable.v2 as nw

    return nw


@dataclass(frozen=True, eq=False)
class EngineSource:
    """A frame held by another engine, as a narwhals LazyFrame.

    Attributes
    ----------
    frame : narwhals.LazyFrame
        The data, lazily.
    kind : str
        What it is, for the table's source line (e.g. ``"Polars LazyFrame"``).
    """

    frame: Any
    kind: str

    @property
    def columns(self) -> list[str]:
        """The column names."""
        return list(self.frame.collect_schema().names())

    def dtype(self, column: str) -> Any:
        """The narwhals dtype of a column."""
        return self.frame.collect_schema()[column]

    def to_pandas(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """The rows (of some columns) as a pandas DataFrame, in the engine's row order."""
        frame = self.frame if columns is None else self.frame.select(list(dict.fromkeys(columns)))
        result = frame.collect().to_pandas().reset_index(drop=True)
        for column in result.columns:  # text as pandas' default string dtype, whatever the engine
            dtype = result[column].dtype
            if isinstance(dtype, pd.StringDtype) and dtype != pd.StringDtype(na_value=np.nan):
                result[column] = result[column].astype(pd.StringDtype(na_value=np.nan))
        return result

    def records_repeat_across(self, block: str, record: str) -> bool:
        """Whether some record appears in more than one group of ``block``."""
        nw = narwhals()
        pairs = self.frame.select(block, record).unique()
        repeated = pairs.group_by(record).agg(nw.len().alias("n")).filter(nw.col("n") > 1)
        return len(repeated.head(1).collect().rows()) > 0


def _is_path(data: object) -> bool:
    if isinstance(data, (str, os.PathLike)):
        return True
    return (
        isinstance(data, (list, tuple))
        and len(data) > 0
        and all(isinstance(d, (str, os.PathLike)) for d in data)
    )


def _paths(data: Any) -> list[str]:
    return [str(p) for p in (data if isinstance(data, (list, tuple)) else [data])]


def _is_csv(paths: list[str]) -> bool:
    return all(Path(p.rstrip("*")).suffix.lower() in (".csv", ".tsv", ".txt") for p in paths)


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _check_files(paths: list[str]) -> None:
    import glob

    missing = [p for p in paths if not glob.glob(p)]
    if missing:
        raise DataError(
            f"no file matches {missing[0]!r}; give the path (or a glob such as "
            "'results/*.parquet') of Parquet or CSV files"
        )


def _scan_paths(data: Any, engine: str) -> pd.DataFrame | EngineSource:
    paths = _paths(data)
    _check_files(paths)
    csv = _is_csv(paths)
    what = f"table of {'CSV' if csv else 'Parquet'} files {paths[0]!r}" + (
        f" and {len(paths) - 1} more" if len(paths) > 1 else ""
    )
    if engine == "auto":
        engine = "duckdb" if _importable("duckdb") else "polars" if _importable("polars") else ""
    if engine == "duckdb":
        import duckdb

        connection = duckdb.connect(config=duckdb_config())
        relation = connection.read_csv(paths) if csv else connection.read_parquet(paths)
        return EngineSource(narwhals().from_native(relation), f"{what} (DuckDB)")
    if engine == "polars":
        import polars as pl

        frame = pl.scan_csv(paths) if csv else pl.scan_parquet(paths)
        return EngineSource(narwhals().from_native(frame), f"{what} (Polars)")
    readers = [pd.read_csv(p) if csv else pd.read_parquet(p) for p in _expand(paths)]
    return pd.concat(readers, ignore_index=True)


def _expand(paths: list[str]) -> list[str]:
    import glob

    return [f for p in paths for f in sorted(glob.glob(p))]


def _kind(native: Any, frame: Any) -> str:
    module = type(native).__module__.split(".")[0]
    names = {
        "polars": "Polars",
        "pyarrow": "PyArrow",
        "duckdb": "DuckDB",
        "dask": "Dask",
        "pyspark": "PySpark",
        "ibis": "Ibis",
        "pandas": "pandas",
        "modin": "Modin",
        "cudf": "cuDF",
    }
    return f"{names.get(module, module)} {type(native).__name__}"


def resolve_source(data: Any, engine: str | None = None) -> pd.DataFrame | EngineSource:
    """Where the table's rows are: a pandas DataFrame (in memory) or another engine.

    Parameters
    ----------
    data : DataFrame, LazyFrame, relation, str or path
        A pandas, Polars, PyArrow, DuckDB, Dask, PySpark or Ibis frame, or the
        path (a glob, or a list) of Parquet or CSV files.
    engine : {"auto", "pandas", "duckdb", "polars"}, optional
        ``"auto"`` (the default) keeps a frame in its own engine, lays a pandas
        DataFrame out in memory (through Arrow into DuckDB from
        :data:`PANDAS_VIA_DUCKDB_ROWS` rows on) and scans files with DuckDB;
        ``"pandas"`` brings everything into pandas; ``"duckdb"`` and ``"polars"``
        run the aggregations in that engine (Polars: its streaming engine).

    Raises
    ------
    DataError
        Data that is no frame narwhals knows, a path that matches no file, or an
        unknown engine.

    Examples
    --------
    >>> frame = pd.DataFrame({"model": ["a"], "loss": [0.0]})
    >>> resolve_source(frame) is frame
    True
    """
    engine = "auto" if engine is None else str(engine).lower()
    if engine not in ENGINES:
        raise DataError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if _is_path(data):
        return _scan_paths(data, engine)
    if isinstance(data, pd.DataFrame):
        if engine == "duckdb" or (
            engine == "auto" and data.shape[0] >= PANDAS_VIA_DUCKDB_ROWS and _importable("duckdb")
        ):
            return _pandas_into_duckdb(data)
        if engine == "polars":
            import polars as pl

            return EngineSource(narwhals().from_native(pl.from_pandas(data).lazy()), "DataFrame")
        return data
    nw = narwhals()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # narwhals on Dask's future home
            frame = nw.from_native(data)
    except TypeError:
        raise DataError(
            f"expected a DataFrame of per-record losses, got {type(data).__name__}; give a "
            "pandas, Polars, PyArrow, DuckDB, Dask or PySpark frame, or a path to Parquet or "
            "CSV files"
        ) from None
    kind = _kind(data, frame)
    if engine == "pandas":
        source = EngineSource(frame.lazy() if isinstance(frame, nw.DataFrame) else frame, kind)
        return source.to_pandas()
    if engine == "duckdb":
        import duckdb

        arrow = (frame.lazy() if isinstance(frame, nw.DataFrame) else frame).collect().to_arrow()
        return EngineSource(nw.from_native(duckdb.from_arrow(arrow)), kind)
    if engine == "polars":
        import polars as pl

        arrow = (frame.lazy() if isinstance(frame, nw.DataFrame) else frame).collect().to_arrow()
        return EngineSource(nw.from_native(pl.from_arrow(arrow).lazy()), kind)
    if isinstance(frame, nw.DataFrame):
        frame = frame.lazy()
    return EngineSource(frame, kind)


def _pandas_into_duckdb(data: pd.DataFrame) -> EngineSource:
    import duckdb
    import pyarrow as pa

    arrow = pa.Table.from_pandas(data, preserve_index=False)
    connection = duckdb.connect(config=duckdb_config())
    return EngineSource(narwhals().from_native(connection.from_arrow(arrow)), "DataFrame")


# --------------------------------------------------------------------------- formula


_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
}
_COMPARE = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def response_expression(text: str, columns: Sequence[str]) -> Any | None:
    """A narwhals expression for a formula's left side, or ``None`` if not expressible.

    Column names, numbers, ``+ - * / **``, one comparison, ``&``, ``|``, unary
    minus and ``abs()`` are translated; anything else is evaluated in pandas.

    Examples
    --------
    >>> response_expression("pred != truth", ["pred", "truth"]) is not None
    True
    >>> response_expression("log(x)", ["x"]) is None
    True
    """
    nw = narwhals()
    names = set(columns)

    def walk(node: ast.AST) -> Any:
        if isinstance(node, ast.Name) and node.id in names:
            return nw.col(node.id)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return nw.lit(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            left, right = walk(node.left), walk(node.right)
            return left & right if isinstance(node.op, ast.BitAnd) else left | right
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            return _COMPARE[type(node.ops[0])](walk(node.left), walk(node.comparators[0]))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "abs"
            and len(node.args) == 1
            and not node.keywords
        ):
            return walk(node.args[0]).abs()
        raise ValueError(ast.dump(node))

    try:
        return walk(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError):
        return None
