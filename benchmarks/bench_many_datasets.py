"""The many-data-sets report at size: 1,000 data sets × 10 models, and 200 models × 12 data sets.

Each case builds a :class:`~cvreport.data.datasets.DatasetsTable` of 10-fold
per-fold scores (``auc ~ model | fold | dataset``), then times
``DatasetsReport(table)`` (per-data-set tests, Friedman, Nemenyi, Wilcoxon and
Bayesian signed-rank tests of every pair) and ``to_html()``. The target: the
report built and rendered as HTML in under 10 s. The machine's load average
(``os.getloadavg()``) and the process's CPU time are printed beside the wall
time, since a loaded machine stretches the wall time.

Usage::

    python benchmarks/bench_many_datasets.py
    python benchmarks/bench_many_datasets.py --datasets 250 --models 10 --only datasets
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd

from cvreport.data.datasets import DatasetsTable
from cvreport.reporting.multi_report import DatasetsReport

TARGET_SECONDS = 10.0


def fold_scores(n_datasets: int, n_models: int, k: int = 10, seed: int = 0) -> pd.DataFrame:
    """Per-fold AUCs (3 decimals, so that ties occur) of ``n_models`` models on each data set."""
    rng = np.random.default_rng(seed)
    level = rng.uniform(0.6, 0.95, n_datasets)[:, None, None]
    skill = np.linspace(0.0, 0.03, n_models)[None, :, None]
    scores = level + skill + rng.normal(0.0, 0.02, (n_datasets, n_models, k))
    dataset, model, fold = np.meshgrid(
        np.arange(n_datasets), np.arange(n_models), np.arange(k), indexing="ij"
    )
    return pd.DataFrame(
        {
            "dataset": np.char.add("data_", dataset.ravel().astype(str)),
            "model": np.char.add("model_", model.ravel().astype(str)),
            "fold": fold.ravel() + 1,
            "auc": np.clip(scores, 0, 1).ravel().round(3),
        }
    )


def measure(label: str, frame: pd.DataFrame) -> float:
    """Print the times of one case; return the report's wall time (report + HTML)."""
    print(f"\n{label}: {frame.shape[0]:,} rows; load average {os.getloadavg()[0]:.2f}")
    start, cpu_start = time.perf_counter(), time.process_time()
    table = DatasetsTable.from_formula("auc ~ model | fold | dataset", frame, per_fold=True)
    built, cpu_built = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = DatasetsReport(table)
    reported, cpu_reported = time.perf_counter(), time.process_time()
    html = report.to_html()
    rendered, cpu_rendered = time.perf_counter(), time.process_time()
    total = rendered - built
    draws = report.analysis.bayesian[0]
    print(f"  table              {built - start:7.2f} s wall {cpu_built - cpu_start:7.2f} s CPU")
    print(
        f"  DatasetsReport()   {reported - built:7.2f} s wall {cpu_reported - cpu_built:7.2f} s CPU"
    )
    print(
        f"  to_html()          {rendered - reported:7.2f} s wall "
        f"{cpu_rendered - cpu_reported:7.2f} s CPU"
    )
    print(
        f"  report + HTML      {total:7.2f} s wall {cpu_rendered - cpu_built:7.2f} s CPU "
        f"(target < {TARGET_SECONDS:g} s)"
    )
    print(
        f"  Bayesian draws per pair {draws.n_samples:,}, Monte Carlo standard error ≤ "
        f"{max(r.mc_standard_error for r in report.analysis.bayesian):.4f}"
    )
    cpu = cpu_rendered - cpu_built
    load = os.getloadavg()[0]
    print(f"  HTML {len(html.encode()) / 1e6:.2f} MB; load average {load:.2f}")
    verdict = "within" if total < TARGET_SECONDS else "OVER"
    print(f"  {verdict} target on wall time; CPU time {cpu:.2f} s", end="")
    cores = os.cpu_count() or 1
    if load > cores:
        print(f" (the {cores} cores are loaded {load / cores:.1f}× over: compare the CPU time)")
    else:
        print()
    return total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=1_000)
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--only", choices=["datasets", "models"], default=None)
    args = parser.parse_args(argv)
    if args.only in (None, "datasets"):
        measure(f"{args.datasets:,} data sets × 10 models", fold_scores(args.datasets, 10))
    if args.only in (None, "models"):
        measure(f"{args.models} models × 12 data sets", fold_scores(12, args.models))


if __name__ == "__main__":
    main()
