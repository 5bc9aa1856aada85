"""Reports that stay readable at any size: time and size of two large reports.

(i)  an m×2 table with ``--replications`` replications (default m = 1,000: the
     overlap audit compares 499,500 pairs of replications) of two models;
(ii) a 10-fold cross-validation table of ``--models`` models (default 200:
     19,900 pairs of models).

For each it times ``ResultsTable`` construction, ``Report(table)``, and the
HTML, Markdown and LaTeX renderings, and prints each output's size. The
targets: each report built and rendered as HTML in under 10 s, the HTML under
5 MB.

Usage::

    python benchmarks/bench_large_reports.py
    python benchmarks/bench_large_reports.py --replications 400 --models 50
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from cvreport.data.table import ResultsTable
from cvreport.reporting.report import Report

TARGET_SECONDS = 10.0
TARGET_BYTES = 5_000_000


def many_replications(m: int, n_records: int = 200, seed: int = 0) -> pd.DataFrame:
    """m random 2-fold partitions of ``n_records`` records, two models' 0/1 losses."""
    rng = np.random.default_rng(seed)
    fold = np.empty((m, n_records), dtype=np.int64)
    for replication in range(m):
        fold[replication, rng.permutation(n_records)[: n_records // 2]] = 1
        fold[replication, fold[replication] != 1] = 2
    parts = []
    for model, rate in (("A", 0.15), ("B", 0.2)):
        parts.append(
            pd.DataFrame(
                {
                    "replication": np.repeat(np.arange(1, m + 1), n_records),
                    "fold": fold.ravel(),
                    "model": model,
                    "record": np.tile(np.arange(n_records), m),
                    "loss": (rng.random(m * n_records) < rate).astype(np.float64),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def many_models(n_models: int, n_records: int = 300, k: int = 10, seed: int = 1) -> pd.DataFrame:
    """One run of k-fold CV of ``n_models`` models with error rates from 0.10 to 0.30."""
    rng = np.random.default_rng(seed)
    fold = rng.permutation(np.arange(n_records) % k) + 1
    rates = np.linspace(0.1, 0.3, n_models)
    return pd.DataFrame(
        {
            "fold": np.tile(fold, n_models),
            "model": np.repeat([f"model_{i:03d}" for i in range(n_models)], n_records),
            "record": np.tile(np.arange(n_records), n_models),
            "loss": (rng.random((n_models, n_records)) < rates[:, None]).ravel().astype(float),
        }
    )


def measure(label: str, formula: str, frame: pd.DataFrame) -> None:
    print(f"\n{label}: {frame.shape[0]:,} rows")
    start = time.perf_counter()
    table = ResultsTable.from_formula(formula, frame)
    built = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = Report(table)
    reported = time.perf_counter()
    html = report.to_html()
    rendered = time.perf_counter()
    markdown = report.to_markdown()
    latex = report.to_latex()
    total = rendered - start
    print(f"  table      {built - start:7.2f} s")
    print(f"  Report()   {reported - built:7.2f} s")
    print(f"  to_html()  {rendered - reported:7.2f} s")
    print(f"  total      {total:7.2f} s  (target < {TARGET_SECONDS:g} s)")
    print(f"  HTML       {len(html.encode()) / 1e6:7.2f} MB (target < {TARGET_BYTES / 1e6:g} MB)")
    print(f"  Markdown   {len(markdown.encode()) / 1e6:7.2f} MB")
    print(f"  LaTeX      {len(latex.encode()) / 1e6:7.2f} MB")
    ok = total < TARGET_SECONDS and len(html.encode()) < TARGET_BYTES
    print(f"  {'within' if ok else 'OVER'} target")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=1_000)
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--records", type=int, default=200)
    args = parser.parse_args(argv)
    measure(
        f"m×2 CV, m = {args.replications:,} replications",
        "loss ~ model | replication + fold",
        many_replications(args.replications, args.records),
    )
    measure(
        f"10-fold CV, {args.models} models",
        "loss ~ model | fold",
        many_models(args.models, args.records),
    )


if __name__ == "__main__":
    main()
