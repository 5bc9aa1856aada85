"""Time the whole report on a large table: table, every test, the audit and the three renderings.

Builds the synthetic 5×2 cross-validation table of ``bench_table.py`` (default
1,000,000 records × 5 replications × 2 models = 10 million rows) and times, once
each (a report is built once per analysis):

(i)   ``ResultsTable.from_formula("loss ~ model | replication + fold", df)``;
(ii)  ``Report(table, tests="all")``: every test that fits the design plus the
      overlap audit, all from the sufficient statistics and the fold membership;
(iii) ``to_html()``, ``to_markdown()`` and ``to_latex()``.

It prints the time of each step, the slowest functions of (ii) (cProfile, so
that a step that scans the records again shows up by name), and the peak extra
memory over the input DataFrame (traced numpy/pandas allocations, and the
resident-set high-water mark where the kernel lets it be reset).

Usage::

    python benchmarks/bench_report.py                    # 10 million rows
    python benchmarks/bench_report.py --records 200000   # 2 million rows
    python benchmarks/bench_report.py --models 3 --shuffle
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import itertools
import pstats
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_table import _rss_high_water_reset, _status_kib, synthetic_5x2

from cvreport.data.table import ResultsTable
from cvreport.reporting.report import Report

FORMULA = "loss ~ model | replication + fold"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="records per replication")
    parser.add_argument("--replications", type=int, default=5)
    parser.add_argument("--models", type=int, default=2)
    parser.add_argument("--shuffle", action="store_true", help="put the rows in random order")
    parser.add_argument("--profile", type=int, default=8, help="functions of (ii) to list")
    args = parser.parse_args(argv)

    frame = synthetic_5x2(args.records, args.replications, args.models, shuffle=args.shuffle)
    input_bytes = int(frame.memory_usage(deep=True).sum())
    print(
        f"input: {frame.shape[0]:,} rows, {args.models} models, "
        f"{'shuffled' if args.shuffle else 'CV-loop order'}, {input_bytes / 2**20:,.0f} MiB"
    )

    def run() -> tuple[ResultsTable, Report, list[float], int]:
        times = [time.perf_counter()]
        table = ResultsTable.from_formula(FORMULA, frame)
        times.append(time.perf_counter())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # random partitions warn; the report says so
            report = Report(table, tests="all")
        times.append(time.perf_counter())
        chars = len(report.to_html()) + len(report.to_markdown()) + len(report.to_latex())
        times.append(time.perf_counter())
        return table, report, [b - a for a, b in itertools.pairwise(times)], chars

    # memory first (tracemalloc slows allocation-heavy code, so time a second run)
    gc.collect()
    rss_reset = _rss_high_water_reset()
    rss_before = _status_kib("VmRSS")
    tracemalloc.start()
    run()
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_peak = _status_kib("VmHWM")
    gc.collect()
    table, report, (t_table, t_report, t_render), chars = run()

    print(f"design: {table.design.describe()}")
    print(f"results: {len(report.results)}; skipped: {sorted({s.name for s in report.skipped})}")
    print(f"(i)   table (validation + sufficient statistics): {t_table:8.3f} s")
    print(f"(ii)  Report(table, tests='all') incl. audit:     {t_report:8.3f} s")
    print(f"(iii) HTML + Markdown + LaTeX ({chars:,} chars):  {t_render:8.3f} s")
    print(
        f"total:                                            {t_table + t_report + t_render:8.3f} s"
    )
    print(
        f"peak extra memory (tracemalloc): {traced_peak / 2**20:,.0f} MiB = "
        f"{traced_peak / input_bytes:.2f}× the input"
    )
    if rss_reset and rss_before is not None and rss_peak is not None:
        extra = (rss_peak - rss_before) * 1024
        print(
            f"peak extra memory (resident set):  {extra / 2**20:,.0f} MiB = "
            f"{extra / input_bytes:.2f}× the input"
        )

    if args.profile > 0:
        profile = cProfile.Profile()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            profile.runcall(Report, table, tests="all")
        stream = io.StringIO()
        pstats.Stats(profile, stream=stream).sort_stats("tottime").print_stats(args.profile)
        print(f"slowest functions of (ii), by own time:\n{stream.getvalue()}")


if __name__ == "__main__":
    main()
