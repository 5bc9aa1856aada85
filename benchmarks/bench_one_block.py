"""Cost of reading a formula's one block: hold-out splits, K-fold, or folds of several runs.

``loss ~ model | fold`` is read as one K-fold run when no record is in two groups
of the block, else as repeated hold-out — unless the groups are the folds of
several K-fold runs numbered across the replications, which is refused
(:func:`cvreport.data.design.refuse_partitioned_blocks`). The check counts each
record's groups once; only when every record is in the same number of groups
(never for random splits of any size) are the groups' sizes and each record's
runs counted. Prints, per engine, the best of three times to build the table of random
repeated hold-out splits (the check's one extra pass) and the time to refuse
10×10 CV numbered 0..99.

Run ``python benchmarks/bench_one_block.py [n_records]`` (default 20,000 records:
2 models × 100 splits of 20 % = 800,000 rows; 10×10 CV = 4,000,000 rows is
built at a tenth of the records).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import cvreport
from cvreport.errors import DesignError


def holdout(n_records: int, n_splits: int = 100, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = n_records // 5
    split = np.repeat(np.arange(n_splits), size)
    record = np.concatenate([rng.choice(n_records, size, replace=False) for _ in range(n_splits)])
    return pd.DataFrame(
        {
            "fold": np.tile(split, 2),
            "model": np.repeat(["a", "b"], split.size),
            "record": np.tile(record, 2),
            "loss": rng.random(2 * split.size),
        }
    )


def numbered_across(n_records: int, m: int = 10, k: int = 10, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    folds, records = [], []
    for replication in range(m):
        order = rng.permutation(n_records)
        folds.append(replication * k + np.arange(n_records) % k)
        records.append(order)
    fold, record = np.concatenate(folds), np.concatenate(records)
    return pd.DataFrame(
        {
            "fold": np.tile(fold, 2),
            "model": np.repeat(["a", "b"], fold.size),
            "record": np.tile(record, 2),
            "loss": rng.random(2 * fold.size),
        }
    )


def _timed(what: str, data: object, repeats: int = 3) -> None:
    """The best of ``repeats`` builds (the machine may be shared) and what they gave."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            design = cvreport.ResultsTable.from_formula("loss ~ model | fold", data).design
            outcome = f"{design.kind} (m = {design.m}, K = {design.K})"
        except DesignError as error:
            outcome = f"DesignError ({str(error)[:50]}...)"
        best = min(best, time.perf_counter() - start)
    print(f"{what:<48} {best:8.3f} s  {outcome}")


def main() -> None:
    n_records = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    with tempfile.TemporaryDirectory() as folder:
        for name, frame in (
            ("repeated hold-out", holdout(n_records)),
            ("10×10 CV numbered 0..99", numbered_across(n_records // 10)),
        ):
            path = Path(folder) / f"{name[:6]}.parquet"
            frame.to_parquet(path)
            rows = f"{frame.shape[0]:,} rows"
            _timed(f"{name}, pandas, {rows}", frame)
            try:
                import polars as pl

                _timed(f"{name}, Polars, {rows}", pl.from_pandas(frame))
            except ImportError:
                pass
            _timed(f"{name}, Parquet (DuckDB), {rows}", str(path))


if __name__ == "__main__":
    main()
