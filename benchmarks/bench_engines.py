"""Speed and memory of the table build in every engine, against the engines' own group-bys.

Three studies, each case in its own process (peak memory is that process's
resident set, sampled every 10 ms, minus what it held before the timed call):

* ``memory``: 10M rows in pandas (5×2 CV, 2 models, 1M records): integer and
  text record ids in CV-loop order (``integer``, ``string``), shuffled rows
  with text model labels (``shuffled``, the issue's case) and with text record
  ids too (``shuffled-text``), shuffled rows of real-valued losses
  (``shuffled-real``), against one bare ``np.bincount`` over the rows'
  cell codes (the floor); the overlap audit.
* ``pandas50``: 50M shuffled rows in pandas with string model labels and record
  ids (5×2, 5 models, 2M records): cvreport against pandas' own
  ``groupby().agg`` on the same frame (per (replication, fold, model) and per
  (replication, fold, record)).
* ``parquet``: 200M rows (``--scale 5``: 1,000M) written as Parquet files (5
  models × 10 replications × 4M records of 2-fold CV, 0/1 losses, row groups in
  shuffled order; written one row group at a time), then: cvreport's full
  analysis (validation, sufficient statistics, the recommended tests for all
  pairs, the audit, the HTML report) through DuckDB on ``DIR/*.parquet``,
  DuckDB's own bare ``GROUP BY replication, fold, record`` (with cvreport's
  DuckDB settings, its result read in Arrow batches; ``--bare-defaults``: DuckDB's
  defaults, the result as one Arrow table), and the same analysis through
  Polars' streaming engine (``--no-polars`` leaves it out), each with its whole
  process's peak resident memory (``ru_maxrss``). With ``--data DIR`` the files
  are written once to ``DIR/parquet-N`` and reused; otherwise they are deleted
  afterwards.

* ``datasets`` (not run by default): 20 data sets × 1M rows (5×2 CV, 5 models, 40k
  records each; ``--scale`` shrinks the records) in one Parquet file, one data set
  after another (the last three start past the 16.8M rows read for the data sets'
  order), built as a ``DatasetsTable`` through DuckDB (the path) and Polars
  (``scan_parquet``): the data sets are aggregated in one set of queries. Also timed:
  the data sets' order of first appearance alone, and the formula with one block
  (``loss ~ model | replication | dataset``); each case prints its number of
  aggregation queries. Run the script with another
  checkout's ``cvreport`` first on ``PYTHONPATH`` (a copy of the script outside the
  checkout) to compare.

* ``passes`` (not run by default): 4M records (2×2 CV, 2 models: 16M rows;
  ``--scale`` shrinks them) in one Parquet file for each kind of record id (integers
  ``0, 1, 2, ...`` and ``0, 4, 8, ...``, text ``r00000000``, text with a suffix
  ``r00000000_x``, floats, dates), built through
  DuckDB in one pass over the records and in four (``_RECORDS_PER_PASS`` set to a
  quarter of them): the seconds, the memory, the queries, and how many passes ran
  with the fewest and most records in one (an id kind that is not split runs one
  pass whatever the setting).

* ``duplicate`` (not run by default): the ``parquet`` layout at 10M rows (``--scale 20``:
  200M, the files of ``parquet --data DIR`` when given the same ``--data``), clean
  (``--no-clean`` leaves it out) and with one row written twice; each read in a
  fresh process, which prints the error's first line, the seconds and its whole
  peak resident set (``ru_maxrss``). The duplicated row must be named from the
  engine's aggregates.

Run ``python benchmarks/bench_engines.py [memory|pandas50|parquet|duplicate|CASE ...]
[--scale 0.1] [--repeat 3] [--data DIR]``: a CASE is one 10M case (``string`` also runs
``integer``, the ratio's base); ``--scale`` shrinks every size (for a quick
look); times are medians of ``--repeat`` calls in one process, peak memory the
largest of them. The machine's load average is printed with every table.
"""

from __future__ import annotations

import argparse
import gc
import math
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FORMULA = "loss ~ model | replication + fold"


# --------------------------------------------------------------------------- measuring


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure(call: Callable[[], Any]) -> tuple[float, float, Any]:
    """Seconds and peak extra resident memory (GiB) of one call."""
    gc.collect()
    before = _rss()
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss())
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    peak[0] = max(peak[0], _rss())
    return seconds, (peak[0] - before) / 2**30, result


def _in_child(target: Callable[..., Any], *args: Any) -> Any:
    """Run ``target(queue, *args)`` in a fresh process; return what it puts."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    process = ctx.Process(target=target, args=(queue, *args))
    process.start()
    while True:
        try:
            return queue.get(timeout=5)
        except Exception:  # queue.Empty: is the child still alive?
            if not process.is_alive():
                raise RuntimeError(f"{target.__name__}{args} failed") from None


def measure_median(call: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Median seconds and largest peak extra memory (GiB) of ``repeat`` calls."""
    runs = [measure(call) for _ in range(max(1, repeat))]
    seconds = float(np.median([r[0] for r in runs]))
    return seconds, max(r[1] for r in runs), runs[-1][2]


def _load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def _report(rows: list[tuple[str, float, float]], title: str) -> None:
    print(f"\n{title} ({_load()} at the end)")
    print(f"{'case':<66} {'seconds':>9} {'extra GiB':>10}")
    for name, seconds, gib in rows:
        print(f"{name:<66} {seconds:>9.3f} {gib:>10.2f}")


# --------------------------------------------------------------------------- data


def cv_rows(
    n_records: int, m: int, n_models: int, *, rng: np.random.Generator, string_ids: bool
) -> pd.DataFrame:
    """m×2 CV of n_models models, rows in CV-loop order (replication, fold, model)."""
    pieces = []
    models = [f"model_{k}" for k in range(n_models)]
    for r in range(m):
        order = rng.permutation(n_records).astype(np.int64)
        for f, records in enumerate((order[: n_records // 2], order[n_records // 2 :])):
            for k in range(n_models):
                pieces.append(
                    pd.DataFrame(
                        {
                            "replication": np.int64(r + 1),
                            "fold": np.int64(f + 1),
                            "model": models[k],
                            "record": records,
                            "loss": (rng.random(records.shape[0]) < 0.2 + 0.02 * k).astype(np.int8),
                        }
                    )
                )
    frame = pd.concat(pieces, ignore_index=True)
    if string_ids:
        ids = pd.Series([f"r{i:08d}" for i in range(n_records)], dtype="str")
        frame["record"] = ids.take(frame["record"].to_numpy()).reset_index(drop=True)
    frame["model"] = frame["model"].astype("category")
    return frame


def _small(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a few records: a valid table for warming up imports and caches."""
    kept = frame["record"].drop_duplicates().sample(200, random_state=0)
    return frame[frame["record"].isin(kept)].reset_index(drop=True)


# --------------------------------------------------------------------------- 10M in memory


MEMORY_CASES = ("floor", "integer", "string", "shuffled", "shuffled-text", "shuffled-real")


def _with_cpu(call: Callable[[], Any], cpu: list[float]) -> Callable[[], Any]:
    """``call``, noting the processor seconds of each run in ``cpu``.

    On a loaded machine the wall time of a case that runs longer than a time
    slice grows with the load more than that of a short one (the floor): the
    processor seconds compare the work itself.
    """

    def timed() -> Any:
        start = time.process_time()
        result = call()
        cpu.append(time.process_time() - start)
        return result

    return timed


def _memory_case(queue: Any, case: str, scale: float, repeat: int) -> None:
    import cvreport
    from cvreport.data.table import ResultsTable

    rng = np.random.default_rng(0)
    n_records = int(1_000_000 * scale)
    frame = cv_rows(n_records, 5, 2, rng=rng, string_ids=case == "string")
    if case.startswith("shuffled"):  # string model labels, rows in random order
        frame["model"] = frame["model"].astype(str)
        if case == "shuffled-text":  # and text record ids
            frame["record"] = frame["record"].map(lambda i: f"r{i:08d}").astype("str")
        if case == "shuffled-real":  # real-valued losses (a log loss of each record)
            frame["loss"] = -np.log1p(-0.98 * np.random.default_rng(2).random(len(frame)))
        frame = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    cpu: list[float] = []
    if case == "floor":
        rep, fold = frame["replication"].to_numpy(), frame["fold"].to_numpy()
        model = frame["model"].cat.codes.to_numpy()
        seconds, gib, _ = measure_median(
            _with_cpu(
                lambda: np.bincount(((rep - 1) * 2 + fold - 1) * 2 + model, minlength=20), cpu
            ),
            repeat,
        )
        queue.put([(f"np.bincount floor ({len(frame):,} rows)", seconds, gib, np.median(cpu))])
        return
    ResultsTable(_small(frame))  # imports and first-call costs out of the timing
    seconds, gib, table = measure_median(_with_cpu(lambda: ResultsTable(frame), cpu), repeat)
    what = {
        "integer": "integer ids, CV-loop order",
        "string": "text ids, CV-loop order",
        "shuffled": "shuffled, text model labels",
        "shuffled-text": "shuffled, text labels and ids",
        "shuffled-real": "shuffled, text labels, real losses",
    }[case]
    rows = [(f"table build, {what} (route {table._route})", seconds, gib, np.median(cpu))]
    if case == "integer":
        cpu = []
        seconds, gib, _ = measure_median(
            _with_cpu(lambda: cvreport.audit_overlap(table), cpu), repeat
        )
        rows.append(
            (f"overlap audit ({table.design.n_records:,} records)", seconds, gib, np.median(cpu))
        )
    queue.put(rows)


def study_memory(scale: float, repeat: int, cases: tuple[str, ...] = MEMORY_CASES) -> None:
    print(f"\n10M in memory: {_load()} at the start; medians of {repeat}")
    found: dict[str, list[tuple[str, float, float, float]]] = {}
    for case in dict.fromkeys(("floor", *cases)):
        found[case] = _in_child(_memory_case, case, scale, repeat)
    rows = [row for case_rows in found.values() for row in case_rows]
    _report(
        [(name, seconds, gib) for name, seconds, gib, _ in rows],
        f"In-memory pandas, {int(10_000_000 * scale):,} rows (5×2 CV, 2 models)",
    )
    print("processor seconds: " + ", ".join(f"{case} {found[case][0][3]:.3f}" for case in found))
    floor = found["floor"][0][1]
    floor_cpu = found["floor"][0][3]
    if "integer" in found:
        integer = found["integer"][0][1]
        print(f"audit / table build = {found['integer'][1][1] / integer:.3f} (target ≤ 1)")
        if "string" in found:
            ratio = found["string"][0][1] / integer
            print(f"text ids / integer ids = {ratio:.2f} (target ≤ 3)")
    for case in ("shuffled", "shuffled-text", "shuffled-real"):
        if case in found:
            ratio = found[case][0][1] / floor
            cpu_ratio = found[case][0][3] / floor_cpu
            print(
                f"{case} / bincount floor = {ratio:.1f}, in processor seconds {cpu_ratio:.1f} "
                "(target ≤ 5 for 'shuffled', 'shuffled-real')"
            )


# --------------------------------------------------------------------------- 50M in pandas


def _pandas50_case(queue: Any, case: str, scale: float, repeat: int) -> None:
    from cvreport.data.table import ResultsTable

    rng = np.random.default_rng(1)
    n_records = int(2_000_000 * scale)
    frame = cv_rows(n_records, 5, 5, rng=rng, string_ids=True)
    frame["model"] = frame["model"].astype("str")
    frame = frame.sample(frac=1.0, random_state=2).reset_index(drop=True)
    gc.collect()
    if case == "cvreport":
        ResultsTable(_small(frame))
        seconds, gib, table = measure_median(lambda: ResultsTable(frame), repeat)
        queue.put((f"cvreport ({len(frame):,} rows, route {table._route})", seconds, gib))
    elif case == "pandas-model":
        seconds, gib, _ = measure_median(
            lambda: frame.groupby(["replication", "fold", "model"])["loss"].agg(["sum", "count"]),
            repeat,
        )
        queue.put(("pandas groupby(replication, fold, model).agg", seconds, gib))
    else:
        seconds, gib, _ = measure_median(
            lambda: frame.groupby(["replication", "fold", "record"])["loss"].agg(["sum", "count"]),
            repeat,
        )
        queue.put(("pandas groupby(replication, fold, record).agg", seconds, gib))


def study_pandas50(scale: float, repeat: int) -> None:
    print(f"\n50M in pandas: {_load()} at the start; medians of {repeat}")
    rows = [
        _in_child(_pandas50_case, c, scale, repeat)
        for c in ("cvreport", "pandas-model", "pandas-record")
    ]
    _report(rows, "50M shuffled rows in pandas, string model labels and record ids")
    print(
        f"cvreport / pandas groupby(model) = {rows[0][1] / rows[1][1]:.2f}, "
        f"/ groupby(record) = {rows[0][1] / rows[2][1]:.2f} (target < 2); "
        f"extra memory {rows[0][2]:.2f} GiB (target < 3)"
    )


# --------------------------------------------------------------------------- 200M from Parquet


def _coprime_stride(n: int, rng: np.random.Generator) -> int:
    """A step ``a`` with ``gcd(a, n) = 1``: ``x ↦ (a·x + b) mod n`` permutes ``range(n)``."""
    while True:
        a = int(rng.integers(n // 3, n))
        if math.gcd(a, n) == 1:
            return a


def write_parquet(
    folder: Path,
    n_records: int,
    m: int,
    n_models: int,
    rows_per_group: int = 1 << 20,
    groups_per_file: int = 48,
) -> int:
    """Write m×2 CV of n_models models as ``folder/part-NNNNN.parquet``; return the rows.

    Row groups of ``rows_per_group`` rows are written in shuffled order (over all
    replications). The rows of replication ``r`` are the (model, record) pairs ``x``
    in the order of ``(a_r·x + b_r) mod (n_models·n_records)``, cut into row
    groups, each then shuffled: in shuffled order, yet computed one row group at a
    time (the writer holds one row group and the folds, whatever the size). Files
    are written whole (to a temporary name first); files already there are kept,
    so an interrupted run resumes, and a finished folder (``_complete``) is reused.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    done = folder / "_complete"
    if done.exists():
        return int(done.read_text().split()[0])
    schema = pa.schema(
        [
            ("replication", pa.int16()),
            ("fold", pa.int8()),
            ("model", pa.dictionary(pa.int8(), pa.string())),
            ("record", pa.int32()),
            ("loss", pa.int8()),
        ]
    )
    models = pa.array([f"model_{k}" for k in range(n_models)])
    per_rep = n_records * n_models
    fold_of = np.zeros((m, n_records), dtype=np.int8)  # each replication's 2-fold split
    strides = []
    for r in range(m):
        fold_of[r, np.random.default_rng(100 + r).permutation(n_records)[n_records // 2 :]] = 1
        rng = np.random.default_rng(200 + r)
        strides.append((_coprime_stride(per_rep, rng), int(rng.integers(per_rep))))
    groups = [
        (r, start, min(per_rep, start + rows_per_group))
        for r in range(m)
        for start in range(0, per_rep, rows_per_group)
    ]
    order = np.random.default_rng(2).permutation(len(groups))
    total = 0
    for f, first in enumerate(range(0, len(order), groups_per_file)):
        path = folder / f"part-{f:05d}.parquet"
        chosen = order[first : first + groups_per_file]
        total += sum(groups[g][2] - groups[g][1] for g in chosen)
        if path.exists():
            continue
        partial = folder / f".part-{f:05d}.parquet.tmp"
        with pq.ParquetWriter(partial, schema, compression="snappy") as writer:
            for g in chosen:
                r, start, stop = groups[g]
                a, b = strides[r]
                local = np.random.default_rng(300 + g)
                picked = (a * np.arange(start, stop, dtype=np.int64) + b) % per_rep
                picked = picked[local.permutation(picked.shape[0])]
                model_code, record = np.divmod(picked, n_records)
                loss = (local.random(picked.shape[0]) < 0.2 + 0.02 * model_code).astype(np.int8)
                batch = pa.table(
                    {
                        "replication": pa.array(np.full(picked.shape[0], r + 1, dtype=np.int16)),
                        "fold": pa.array(fold_of[r, record] + 1),
                        "model": pa.DictionaryArray.from_arrays(
                            pa.array(model_code.astype(np.int8)), models
                        ),
                        "record": pa.array(record.astype(np.int32)),
                        "loss": pa.array(loss),
                    },
                    schema=schema,
                )
                writer.write_table(batch, row_group_size=rows_per_group)
        partial.rename(path)
    done.write_text(f"{total} rows\n")
    return total


def _parquet_case(queue: Any, case: str, path: str) -> None:
    if case.startswith("duckdb-bare"):
        import duckdb

        sql = (
            "SELECT replication, fold, record, count(*) AS n FROM read_parquet(?) "
            "GROUP BY replication, fold, record"
        )
        if case == "duckdb-bare-defaults":  # DuckDB's own settings, the result whole in Arrow
            con = duckdb.connect()
            seconds, gib, _ = measure(lambda: con.sql(sql, params=[path]).to_arrow_table().num_rows)
            what = "DuckDB's defaults, result as one Arrow table"
        else:  # cvreport's connection settings (memory limit, spill folder), result streamed
            from cvreport.data.engines import duckdb_config

            con = duckdb.connect(config=duckdb_config())

            def streamed() -> int:
                reader = con.sql(sql, params=[path]).to_arrow_reader(1 << 20)
                return sum(batch.num_rows for batch in reader)

            seconds, gib, _ = measure(streamed)
            what = "cvreport's DuckDB settings, result in Arrow batches"
        label = f"DuckDB bare GROUP BY replication, fold, record ({what}){_peak()}"
        queue.put((label, seconds, gib))
        return
    import warnings

    import cvreport
    from cvreport.data.table import ResultsTable

    engine = "duckdb" if case == "cvreport-duckdb" else "polars"
    small = cv_rows(400, 10, 5, rng=np.random.default_rng(3), string_ids=False)
    with warnings.catch_warnings():  # imports and first calls out of the timing
        warnings.simplefilter("ignore")
        cvreport.Report(ResultsTable.from_formula(FORMULA, small)).to_frame()

    def analysis() -> Any:
        table = ResultsTable.from_formula(FORMULA, path, engine=engine)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = cvreport.Report(table)  # every pair, the recommended tests, the audit
            report.to_html()
        return table, report.to_frame()

    seconds, gib, (table, frame) = measure(analysis)
    queue.put(
        (
            f"cvreport via {engine} ({table.n_rows:,} rows, {len(frame)} results){_peak()}",
            seconds,
            gib,
        )
    )


def _peak() -> str:
    """The whole process's peak resident memory, every buffer counted (ru_maxrss)."""
    import resource

    return f"; process peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB"


def _data_folder(data: str | None, name: str) -> tuple[Path, bool]:
    """The folder of the Parquet files and whether to keep it: ``data/name`` (kept, reused)
    or a new temporary folder (deleted afterwards)."""
    if data is not None:
        return Path(data) / name, True
    return Path(tempfile.mkdtemp(prefix="cvreport-bench-", dir=os.environ.get("BENCH_DIR"))), False


def _written(folder: Path, n_records: int) -> tuple[str, int]:
    """Write (or reuse) the layout of ``n_records`` records in ``folder``; its glob and rows."""
    free = shutil.disk_usage(folder.parent if folder.parent.exists() else "/").free / 2**30
    reused = (folder / "_complete").exists()
    print(f"\n{'reusing' if reused else 'writing'} Parquet in {folder} ({free:.0f} GiB free)")
    start = time.perf_counter()
    n_rows = write_parquet(folder, n_records, 10, 5)
    size = sum(p.stat().st_size for p in folder.glob("*.parquet")) / 2**30
    what = "found" if reused else f"wrote in {time.perf_counter() - start:.0f} s:"
    print(f"{what} {n_rows:,} rows ({size:.2f} GiB)")
    return str(folder / "*.parquet"), n_rows


def study_parquet(
    scale: float,
    data: str | None,
    existing: str | None = None,
    polars: bool = True,
    bare: str = "duckdb-bare",
) -> None:
    n_records = int(4_000_000 * scale)
    folder, keep = _data_folder(data, f"parquet-{n_records}")
    if existing is not None:  # files written by an earlier run
        folder, path, keep = Path(existing).parent, existing, True
        import duckdb

        n_rows = int(
            duckdb.sql("SELECT count(*) FROM read_parquet(?)", params=[existing]).fetchone()[0]
        )
        print(f"\nreading {n_rows:,} rows of {path}")
    try:
        if existing is None:
            path, n_rows = _written(folder, n_records)
        print(f"{_load()} before the timed cases")
        rows = [
            _in_child(_parquet_case, case, path)
            for case in (bare, "cvreport-duckdb", "cvreport-polars")[: 3 if polars else 2]
        ]
        _report(rows, f"{n_rows:,} rows from Parquet (5 models × 10 replications × 2 folds)")
        print(
            f"cvreport via DuckDB / DuckDB bare group-by = {rows[1][1] / rows[0][1]:.2f} "
            f"(target ≤ 2 at 200M rows, ≤ 2.5 at 1,000M); "
            f"peak extra memory {rows[1][2]:.2f} GiB (process peak: target ≤ 4)"
        )
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- many data sets


def _counting_queries() -> list[int]:
    """Count the engine queries cvreport's aggregations run (the per-cell and per-record
    aggregations, the models' first rows, and the reading of a single block)."""
    from cvreport.data import engines, pushdown

    counted = [0]
    for name in ("collect", "collect_batches"):
        original = getattr(pushdown, name)

        def counting(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            counted[0] += 1
            return _original(*args, **kwargs)

        setattr(pushdown, name, counting)
    repeat = engines.EngineSource.records_repeat_across

    def repeat_counted(self: Any, *args: Any) -> Any:
        counted[0] += 1
        return repeat(self, *args)

    engines.EngineSource.records_repeat_across = repeat_counted  # type: ignore[method-assign]
    return counted


def _datasets_case(queue: Any, case: str, path: str, repeat: int) -> None:
    import cvreport
    from cvreport.data.datasets import DatasetsTable

    engine, _, what = case.partition(" ")
    formula = (
        "loss ~ model | replication | dataset"
        if what == "one block"
        else "loss ~ model | replication + fold | dataset"
    )
    counted = _counting_queries()
    if engine == "polars":
        import polars as pl

        def data() -> Any:
            return pl.scan_parquet(path)

    else:

        def data() -> Any:
            return path

    if what == "order":  # the data sets' order of first appearance, alone
        from cvreport.data.backends.engine import _first_appearance
        from cvreport.data.engines import resolve_source

        source = resolve_source(data())
        labels = source.frame.select("dataset").unique().collect().to_pandas()["dataset"]

        def build() -> Any:  # the labels are known: only the order is timed
            return _first_appearance(source, "dataset", labels.tolist())

    else:

        def build() -> Any:
            return DatasetsTable.from_formula(formula, data())

    cpu: list[float] = []
    seconds, gib, table = measure_median(_with_cpu(build, cpu), repeat)
    queries = counted[0] // max(1, repeat)
    where = Path(cvreport.__file__).resolve().parents[1].name
    n = len(table) if what == "order" else len(table.datasets)
    shown = f"order of {n} data sets" if what == "order" else f"{n} data sets"
    how = ", one block" if what == "one block" else ""
    label = (
        f"{shown} via {engine}{how}, {queries} queries, {np.median(cpu):.1f} cpu s "
        f"({where}){_peak()}"
    )
    queue.put((label, seconds, gib))


def study_datasets(scale: float, data: str | None, repeat: int) -> None:
    """Many data sets on one Parquet file: 20 data sets × 1M rows (5×2 CV, 5 models,
    40k records each), in data set order, built through DuckDB and Polars."""
    n_datasets, n_records = 20, int(40_000 * scale)
    folder, keep = _data_folder(data, f"datasets-{n_datasets}-{n_records}")
    path = folder / "datasets.parquet"
    try:
        if not path.exists():
            import pyarrow as pa
            import pyarrow.parquet as pq

            folder.mkdir(parents=True, exist_ok=True)
            rng = np.random.default_rng(7)
            writer = None
            start = time.perf_counter()
            for d in range(n_datasets):
                frame = cv_rows(n_records, 5, 5, rng=rng, string_ids=False)
                frame.insert(0, "dataset", f"set{d:02d}")
                frame["model"] = frame["model"].astype(str)
                table = pa.Table.from_pandas(frame, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(str(path), table.schema)
                writer.write_table(table)
            assert writer is not None
            writer.close()
            print(f"\nwrote {path} in {time.perf_counter() - start:.0f} s")
        import duckdb

        n_rows = int(
            duckdb.sql("SELECT count(*) FROM read_parquet(?)", params=[str(path)]).fetchall()[0][0]
        )
        print(f"{_load()} before the timed cases")
        cases = [
            f"{engine}{what}"
            for what in (" order", "", " one block")
            for engine in ("duckdb", "polars")
        ]
        rows = [_in_child(_datasets_case, case, str(path), repeat) for case in cases]
        _report(rows, f"{n_rows:,} rows of {n_datasets} data sets from Parquet")
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- records in passes


ID_KINDS = ("integer", "stride4", "text", "text_x", "float", "date")
"""The kinds of record id of the ``passes`` study."""


def _passes_case(queue: Any, path: str, kind: str, records_per_pass: int, repeat: int) -> None:
    from cvreport.data import pushdown
    from cvreport.data.table import ResultsTable

    counted = _counting_queries()
    passes: list[int] = []  # records of each pass of the last build
    batches = pushdown.collect_batches

    def per_pass(query: Any, *args: Any, **kwargs: Any) -> Any:
        passes.append(0)
        for batch in batches(query, *args, **kwargs):
            passes[-1] += batch.shape[0]
            yield batch

    pushdown.collect_batches = per_pass
    pushdown._RECORDS_PER_PASS = records_per_pass

    def build() -> Any:
        passes.clear()
        return ResultsTable.from_formula(FORMULA, path)

    cpu: list[float] = []
    seconds, gib, table = measure_median(_with_cpu(build, cpu), repeat)
    n_records = int(table.stats.counts[0, :, 0].sum())
    label = (
        f"{kind} ids, {n_records:,} records, at most {records_per_pass:,} a pass: "
        f"{len(passes)} passes of {min(passes):,}–{max(passes):,} records, "
        f"{counted[0] // max(1, repeat)} queries, {np.median(cpu):.1f} cpu s{_peak()}"
    )
    queue.put((label, seconds, gib))


def _with_ids(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    """``frame`` (integer record ids) with record ids of ``kind`` (:data:`ID_KINDS`)."""
    number = frame["record"].to_numpy()
    if kind == "integer":
        return frame
    if kind == "stride4":  # 0, 4, 8, ...: every id a multiple of the 4 passes
        return frame.assign(record=number * 4)
    if kind in ("text", "text_x"):
        suffix = "_x" if kind == "text_x" else ""
        ids = pd.Series([f"r{i:08d}{suffix}" for i in range(int(number.max()) + 1)], dtype="str")
        return frame.assign(record=ids.take(number).reset_index(drop=True))
    if kind == "float":
        return frame.assign(record=number.astype(np.float64))
    if kind == "date":  # days from 1970 (date32 in Parquet)
        return frame.assign(record=(np.datetime64("1970-01-01") + number).astype("datetime64[D]"))
    raise ValueError(kind)


def study_passes(scale: float, data: str | None, repeat: int) -> None:
    """Record ids of each kind (:data:`ID_KINDS`) in passes: 4M records (2×2 CV, 2
    models: 16M rows; ``--scale`` shrinks them) in one Parquet file per kind, built
    through DuckDB in one pass and in 4 passes (``_RECORDS_PER_PASS`` set to a quarter
    of the records)."""
    n_records = int(4_000_000 * scale)
    folder, keep = _data_folder(data, f"passes-{n_records}")
    try:
        rows = []
        for kind in ID_KINDS:
            path = folder / f"{kind}-ids.parquet"
            if not path.exists():
                folder.mkdir(parents=True, exist_ok=True)
                start = time.perf_counter()
                frame = cv_rows(n_records, 2, 2, rng=np.random.default_rng(3), string_ids=False)
                frame = _with_ids(frame, kind)
                frame["model"] = frame["model"].astype(str)
                frame.to_parquet(path, row_group_size=1 << 20)
                del frame
                print(f"\nwrote {path} in {time.perf_counter() - start:.0f} s")
            if not rows:
                print(f"{_load()} before the timed cases")
            rows += [
                _in_child(_passes_case, str(path), kind, per_pass, repeat)
                for per_pass in (10**12, -(-n_records // 4))
            ]
        _report(rows, f"{4 * n_records:,} rows of each kind of record id from Parquet via DuckDB")
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- a duplicated row


def _duplicate_case(queue: Any, path: str, label: str) -> None:
    import resource

    from cvreport.data.table import ResultsTable
    from cvreport.errors import DataError

    start = time.perf_counter()
    try:
        table = ResultsTable.from_formula(FORMULA, path)
        outcome = f"table of {table.n_rows:,} rows"
    except DataError as error:
        outcome = f"DataError: {str(error).splitlines()[0]}"
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
    queue.put((label, outcome, seconds, peak))


def _with_duplicate(clean: Path, folder: Path) -> str:
    """``folder``: the files of ``clean`` (hard links) but the first, written again with its
    first row twice; return its glob."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    parts = sorted(clean.glob("*.parquet"))
    for part in parts[1:]:
        if not (folder / part.name).exists():
            os.link(part, folder / part.name)
    first = folder / parts[0].name
    if not first.exists():
        partial = folder / f".{parts[0].name}.tmp"
        source = pq.ParquetFile(parts[0])
        with pq.ParquetWriter(partial, source.schema_arrow, compression="snappy") as writer:
            for g in range(source.num_row_groups):
                group = source.read_row_group(g)
                writer.write_table(group if g else pa.concat_tables([group, group.slice(0, 1)]))
        partial.rename(first)
    return str(folder / "*.parquet")


def study_duplicate(scale: float, data: str | None, clean_too: bool = True) -> None:
    """The Parquet layout of ``parquet`` (10M rows at scale 1, 200M at 20), clean and with one
    row written twice: the error must come from the engine's aggregates, not from the rows.
    Peak memory is the process's whole peak resident set (``ru_maxrss``), in a fresh process."""
    n_records = int(200_000 * scale)
    base, keep = _data_folder(data, "")
    clean = base / f"parquet-{n_records}"
    try:
        clean_glob, n_rows = _written(clean, n_records)
        twice = _with_duplicate(clean, base / f"duplicate-{n_records}")
        print(f"{_load()} before the timed cases")
        cases = [(clean_glob, "clean")] if clean_too else []
        rows = [
            _in_child(_duplicate_case, path, label)
            for path, label in (*cases, (twice, "one row twice"))
        ]
        print(f"\n{n_rows:,} rows from Parquet, DuckDB ({_load()} at the end)")
        print(f"{'case':<14} {'seconds':>9} {'peak GiB':>9}  outcome")
        for label, outcome, seconds, gib in rows:
            print(f"{label:<14} {seconds:>9.1f} {gib:>9.2f}  {outcome}")
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "studies",
        nargs="*",
        default=["memory", "pandas50", "parquet"],
        help=(
            "memory, pandas50, parquet, duplicate, datasets, passes, or one 10M case: "
            f"{', '.join(MEMORY_CASES[1:])}"
        ),
    )
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per case (median)")
    parser.add_argument(
        "--data",
        help=(
            "folder for the Parquet files of 'parquet' and 'duplicate': written once "
            "(resuming an interrupted write), reused afterwards, never deleted"
        ),
    )
    parser.add_argument("--parquet", help="time these files (a path or glob) instead of writing")
    parser.add_argument(
        "--bare-defaults",
        action="store_true",
        help=(
            "'parquet': the bare GROUP BY with DuckDB's default settings (memory limit 80%% of "
            "RAM) and its result as one Arrow table (out of memory at 1,000M rows on 23 GiB)"
        ),
    )
    parser.add_argument("--no-polars", action="store_true", help="'parquet': DuckDB cases only")
    parser.add_argument(
        "--no-clean", action="store_true", help="'duplicate': only the file with the duplicate"
    )
    args = parser.parse_args()
    for study in args.studies:
        if study == "memory":
            study_memory(args.scale, args.repeat)
        elif study in MEMORY_CASES[1:]:
            cases = ("integer", study) if study == "string" else (study,)
            study_memory(args.scale, args.repeat, cases)
        elif study == "pandas50":
            study_pandas50(args.scale, args.repeat)
        elif study == "parquet":
            study_parquet(
                args.scale,
                args.data,
                args.parquet,
                not args.no_polars,
                "duckdb-bare-defaults" if args.bare_defaults else "duckdb-bare",
            )
        elif study == "duplicate":
            study_duplicate(args.scale, args.data, not args.no_clean)
        elif study == "datasets":
            study_datasets(args.scale, args.data, args.repeat)
        elif study == "passes":
            study_passes(args.scale, args.data, args.repeat)
        else:
            raise SystemExit(f"unknown study {study!r}")


if __name__ == "__main__":
    main()
