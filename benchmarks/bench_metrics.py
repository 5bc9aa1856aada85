"""Speed and size of the metric tests: per-fold AUC at scale, the paired bootstrap, type I errors.

Prints, for the record:

1. the time to compute the AUC (and F1) of every (replication, fold, model) of
   10 models × 10×10 CV × 1M records (10⁸ rows) in one vectorised pass;
2. the time of 10,000 paired-bootstrap replicates of the AUC difference on
   100,000 records (percentile and BCa intervals);
3. the type I error at α = 0.05 of the paired bootstrap and permutation tests
   on a null model (two exchangeable models), with its Monte Carlo error;
4. Miller's (2024) clustered setting: the type I error of the clustered test
   next to the naive one that treats clustered records as independent.

Run ``python benchmarks/bench_metrics.py`` (``--quick`` for a smaller run).
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from cvreport import arrays
from cvreport.data.metrics import grouped_metric_values, resolve_metric


def _load() -> str:
    try:
        return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except OSError:
        return f"{os.cpu_count()} cores"


def per_fold_auc(n_records: int, n_models: int, m: int, k: int) -> None:
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, n_records).astype(np.int64)
    n_groups = m * k * n_models
    # rows laid out replication × model × record, each replication's folds a permutation
    folds = np.concatenate([rng.permutation(np.arange(n_records) % k) for _ in range(m)])
    rep = np.repeat(np.arange(m), n_records)
    rows = m * n_models * n_records
    print(f"  building {rows:,} rows ...", flush=True)
    groups = np.empty(rows, dtype=np.int32)
    scores = np.empty(rows)
    labels = np.empty(rows, dtype=np.int8)
    predictions = np.empty(rows, dtype=np.int8)
    block = 0
    for i in range(m):
        sl = slice(i * n_records, (i + 1) * n_records)
        for model in range(n_models):
            out = slice(block * n_records, (block + 1) * n_records)
            groups[out] = (rep[sl] * k + folds[sl]) * n_models + model
            scores[out] = 0.3 * truth + rng.random(n_records)
            labels[out] = truth
            predictions[out] = scores[out] > 0.65
            block += 1
    for layout in ("rows shuffled within replications", "rows in CV-loop order"):
        if layout == "rows in CV-loop order":  # replication, fold, model: as a CV loop writes them
            order = np.argsort(groups, kind="stable")
            groups, scores = groups[order], scores[order]
            labels, predictions = labels[order], predictions[order]
        print(f"  {layout}:")
        for name, kwargs in (
            ("roc_auc", {"scores": scores}),
            ("f1", {"prediction": predictions}),
        ):
            spec = resolve_metric(name)
            times = []
            for _ in range(2):  # the first run also pays for the first touch of fresh memory
                start = time.perf_counter()
                values = grouped_metric_values(spec, groups, n_groups, labels, 2, **kwargs)
                times.append(time.perf_counter() - start)
            print(
                f"    {name:8s} of {n_groups} (replication, fold, model) groups, {rows:,} rows: "
                f"{times[1]:6.2f} s (first run, memory cold: {times[0]:.2f} s; "
                f"mean {np.nanmean(values):.4f})",
                flush=True,
            )


def scipy_resampling_alone(n: int, n_resamples: int) -> float:
    """Seconds scipy.stats.bootstrap spends drawing resamples (a statistic that does nothing)."""
    from scipy import stats

    from cvreport.methods._weighted import default_batch

    start = time.perf_counter()
    stats.bootstrap(
        (np.arange(n),),
        lambda sample, axis=-1: np.zeros(sample.shape[:-1]),
        n_resamples=n_resamples,
        batch=default_batch(n, n_resamples),
        vectorized=True,
        method="percentile",
        random_state=0,
    )
    return time.perf_counter() - start


def bootstrap_speed(n: int, n_resamples: int) -> None:
    print(
        f"  scipy.stats.bootstrap's own resampling of {n:,} records, {n_resamples:,} times "
        f"(a statistic that does nothing): {scipy_resampling_alone(n, n_resamples):6.2f} s"
    )
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, n)
    a = 0.5 * y + rng.random(n)
    b = 0.45 * y + rng.random(n)
    for method in ("percentile", "BCa"):
        start = time.perf_counter()
        res = arrays.paired_bootstrap_test(
            y,
            a,
            b,
            metric="roc_auc",
            n_resamples=n_resamples,
            method=method,
            random_state=0,
            progress=False,
        )
        elapsed = time.perf_counter() - start
        low, high = res.conf_int()
        print(
            f"  {n_resamples:,} paired-bootstrap replicates of AUC(A) − AUC(B) on {n:,} records, "
            f"{method}: {elapsed:6.2f} s  (δ = {res.estimate:.4f}, 95% CI {low:.4f} … {high:.4f})"
        )


def _rate(rejections: int, sims: int) -> str:
    rate = rejections / sims
    return f"{rate:.4f} ± {math.sqrt(0.05 * 0.95 / sims):.4f} (MC s.e. at 0.05)"


def null_type_one(sims: int, n: int, n_resamples: int) -> None:
    rng = np.random.default_rng(2)
    counts = {
        key: 0 for key in ("bootstrap f1", "permutation f1", "bootstrap auc", "permutation auc")
    }
    for s in range(sims):
        y = rng.integers(0, 2, n)
        # two exchangeable models: same distribution of scores given the truth
        a = 0.6 * y + rng.normal(size=n)
        b = 0.6 * y + rng.normal(size=n)
        seed = 1000 + s
        ya, yb = (a > 0.3).astype(int), (b > 0.3).astype(int)
        boot = arrays.paired_bootstrap_test(
            y, ya, yb, metric="f1", n_resamples=n_resamples, method="percentile", random_state=seed
        )
        perm = arrays.paired_permutation_test(
            y, ya, yb, metric="f1", n_resamples=n_resamples, random_state=seed
        )
        boot_auc = arrays.paired_bootstrap_test(
            y,
            a,
            b,
            metric="roc_auc",
            n_resamples=n_resamples,
            method="percentile",
            random_state=seed,
        )
        perm_auc = arrays.paired_permutation_test(
            y, a, b, metric="roc_auc", n_resamples=n_resamples, random_state=seed
        )
        counts["bootstrap f1"] += boot.pvalue <= 0.05
        counts["permutation f1"] += perm.pvalue <= 0.05
        counts["bootstrap auc"] += boot_auc.pvalue <= 0.05
        counts["permutation auc"] += perm_auc.pvalue <= 0.05
        if (s + 1) % max(1, sims // 10) == 0:
            shown = ", ".join(f"{k} {v / (s + 1):.3f}" for k, v in counts.items())
            print(f"    {s + 1} of {sims} simulations: {shown}", flush=True)
    for key, value in counts.items():
        print(f"  {key:16s} type I error at α = 0.05: {_rate(value, sims)}")


def clustered_type_one(sims: int, n_clusters: int, size: int) -> None:
    """Miller (2024): questions in clusters (passages); cluster effects in the paired difference."""
    rng = np.random.default_rng(3)
    clusters = np.repeat(np.arange(n_clusters), size)
    clustered = naive = boot = 0
    boot_sims = min(sims, 400)
    for s in range(sims):
        # per-question correctness of A and B: a passage's difficulty moves both, and each
        # model also has a passage-specific advantage that averages to zero (H0 holds)
        difficulty = rng.normal(size=n_clusters)[clusters]
        advantage = 0.8 * rng.normal(size=n_clusters)[clusters]
        p_a = 1 / (1 + np.exp(-(difficulty + advantage / 2)))
        p_b = 1 / (1 + np.exp(-(difficulty - advantage / 2)))
        correct_a = (rng.random(clusters.size) < p_a).astype(float)
        correct_b = (rng.random(clusters.size) < p_b).astype(float)
        d = correct_a - correct_b
        res = arrays.clustered_paired_test(d, clusters)
        clustered += res.pvalue <= 0.05
        z = d.mean() / res.naive_standard_error if res.naive_standard_error > 0 else 0.0
        naive += 2 * (1 - 0.5 * (1 + math.erf(abs(z) / math.sqrt(2)))) <= 0.05
        if s < boot_sims:
            truth = np.ones(clusters.size, dtype=int)
            cb = arrays.paired_bootstrap_test(
                truth,
                correct_a.astype(int),
                correct_b.astype(int),
                metric="accuracy",
                clusters=clusters,
                n_resamples=499,
                method="percentile",
                random_state=s,
            )
            boot += cb.pvalue <= 0.05
    print(f"  {n_clusters} clusters of {size} records, {sims} simulations under H0:")
    print(f"  clustered test (cluster-robust SE)   type I error: {_rate(clustered, sims)}")
    print(f"  naive test (records independent)     type I error: {_rate(naive, sims)}")
    print(f"  cluster bootstrap ({boot_sims} simulations)  type I error: {_rate(boot, boot_sims)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run")
    parser.add_argument("--only", choices=("auc", "bootstrap", "null", "clustered"))
    args = parser.parse_args()
    print(f"cvreport metric benchmarks ({_load()})")
    if args.only in (None, "auc"):
        print("1. per-fold AUC and F1, 10 models × 10×10 CV")
        per_fold_auc(100_000 if args.quick else 1_000_000, 10, 10, 10)
    if args.only in (None, "bootstrap"):
        print("2. paired bootstrap speed")
        bootstrap_speed(100_000, 1_000 if args.quick else 10_000)
    if args.only in (None, "null"):
        print("3. type I error on a null model (n = 200 records, 999 resamples)")
        null_type_one(200 if args.quick else 1000, 200, 999)
    if args.only in (None, "clustered"):
        print("4. clustered records (Miller 2024)")
        clustered_type_one(500 if args.quick else 4000, 50, 20)
    print(f"done ({_load()})")


if __name__ == "__main__":
    main()
