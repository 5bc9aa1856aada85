"""Time building a ResultsTable against a hand-written groupby and a bare numpy floor.

Builds a synthetic 5×2 cross-validation table (default 1,000,000 records × 5
replications × 2 models = 10 million rows, laid out as a CV loop writes it:
replication, fold, model, then the fold's records) and times, in the same run:

(i)   ``ResultsTable.from_formula("loss ~ model | replication + fold", df)``
      including validation and every sufficient statistic;
(ii)  ``df.groupby(["replication", "fold", "model"]).loss.agg(["sum", "count"])``,
      which a user would write by hand and which validates nothing;
(iii) one ``np.bincount`` of the loss column by a precomputed group code.

It prints both ratios and the peak extra memory of (i) relative to the input
DataFrame (traced numpy/pandas allocations, and the resident-set high-water
mark where the kernel lets it be reset). Targets: (i) faster than (ii) and
within 5× of (iii), peak extra memory at most 2× the input.

Usage::

    python benchmarks/bench_table.py                       # 10 million rows
    python benchmarks/bench_table.py --records 4000000     # 40 million rows
    python benchmarks/bench_table.py --shuffle             # rows in random order
    python benchmarks/bench_table.py --model-dtype category
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.table import ResultsTable

FORMULA = "loss ~ model | replication + fold"


def synthetic_5x2(
    n_records: int,
    replications: int = 5,
    n_models: int = 2,
    *,
    model_dtype: str = "str",
    shuffle: bool = False,
    seed: int = 0,
) -> pd.DataFrame:
    """A 5×2 CV table of 0/1 losses, one row per (replication, fold, model, record)."""
    rng = np.random.default_rng(seed)
    half = n_records // 2
    rep_parts, fold_parts, model_parts, record_parts = [], [], [], []
    for replication in range(1, replications + 1):
        permutation = rng.permutation(n_records)
        for fold, records in ((1, permutation[:half]), (2, permutation[half:])):
            records = np.sort(records)
            for model in range(n_models):
                size = records.shape[0]
                rep_parts.append(np.full(size, replication, dtype=np.int64))
                fold_parts.append(np.full(size, fold, dtype=np.int64))
                model_parts.append(np.full(size, model, dtype=np.int8))
                record_parts.append(records)
    model_codes = np.concatenate(model_parts)
    n_rows = model_codes.shape[0]
    difficulty = rng.random(n_records)
    record = np.concatenate(record_parts).astype(np.int64)
    loss = (rng.random(n_rows) < 0.1 + 0.3 * difficulty[record]).astype(np.float64)
    names = np.array([f"model_{chr(ord('a') + k)}" for k in range(n_models)])
    if model_dtype == "category":
        model: Any = pd.Categorical.from_codes(model_codes, categories=names)
    elif model_dtype == "int":
        model = model_codes.astype(np.int64)
    else:
        model = pd.array(names[model_codes], dtype="str")
    frame = pd.DataFrame(
        {
            "replication": np.concatenate(rep_parts),
            "fold": np.concatenate(fold_parts),
            "model": model,
            "record": record,
            "loss": loss,
        }
    )
    if shuffle:
        frame = frame.iloc[rng.permutation(n_rows)].reset_index(drop=True)
    return frame


def best_time(function: Callable[[], object], repeat: int) -> float:
    """Fastest of ``repeat`` runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def _rss_high_water_reset() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _status_kib(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def build_table(frame: pd.DataFrame) -> ResultsTable:
    """Measurement (i): formula, validation and all sufficient statistics."""
    table = ResultsTable.from_formula(FORMULA, frame, record="record")
    _ = table.stats.both_wrong, table.stats.membership, table.design
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="records per replication")
    parser.add_argument("--replications", type=int, default=5)
    parser.add_argument("--models", type=int, default=2)
    parser.add_argument("--model-dtype", choices=("str", "category", "int"), default="str")
    parser.add_argument("--shuffle", action="store_true", help="put the rows in random order")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best is kept)")
    args = parser.parse_args(argv)

    frame = synthetic_5x2(
        args.records,
        args.replications,
        args.models,
        model_dtype=args.model_dtype,
        shuffle=args.shuffle,
    )
    input_bytes = int(frame.memory_usage(deep=True).sum())
    print(
        f"input: {frame.shape[0]:,} rows ({args.records:,} records × {args.replications} "
        f"replications × 2 folds/2 × {args.models} models), model dtype {frame['model'].dtype}, "
        f"{'shuffled' if args.shuffle else 'CV-loop order'}, {input_bytes / 2**20:,.0f} MiB"
    )

    # memory first, while no earlier run has left freed pages in the process
    gc.collect()
    rss_reset = _rss_high_water_reset()
    rss_before = _status_kib("VmRSS")
    tracemalloc.start()
    table = build_table(frame)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_peak = _status_kib("VmHWM")
    del table

    codes = (
        ((frame["replication"].to_numpy() - 1) * 2 + (frame["fold"].to_numpy() - 1)) * args.models
        + pd.factorize(frame["model"])[0]
    ).astype(np.intp)
    loss = frame["loss"].to_numpy()

    t_table = best_time(lambda: build_table(frame), args.repeat)
    t_groupby = best_time(
        lambda: frame.groupby(["replication", "fold", "model"]).loss.agg(["sum", "count"]),
        args.repeat,
    )
    t_floor = best_time(lambda: np.bincount(codes, weights=loss), args.repeat)
    table = build_table(frame)

    print(f"route taken by the table: {table._route}; design: {table.design.describe()}")
    print(f"(i)   from_formula + validation + sufficient statistics: {t_table:8.3f} s")
    print(f"(ii)  groupby(...).loss.agg(['sum', 'count']):            {t_groupby:8.3f} s")
    print(f"(iii) np.bincount floor:                                  {t_floor:8.3f} s")
    print(f"(i) / (ii)  = {t_table / t_groupby:5.2f}   (target < 1)")
    print(f"(i) / (iii) = {t_table / t_floor:5.2f}   (target <= 5)")
    print(
        f"peak extra memory (tracemalloc): {traced_peak / 2**20:,.0f} MiB = "
        f"{traced_peak / input_bytes:.2f}× the input   (target <= 2)"
    )
    if rss_reset and rss_before is not None and rss_peak is not None:
        extra = (rss_peak - rss_before) * 1024
        print(
            f"peak extra memory (resident set):  {extra / 2**20:,.0f} MiB = "
            f"{extra / input_bytes:.2f}× the input"
        )


if __name__ == "__main__":
    main()
