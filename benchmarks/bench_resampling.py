"""Speed of the paired bootstrap and permutation tests against the cost of drawing alone.

Prints, in one run and with the machine's load average next to each figure:

1. the floor: numpy's ``Generator.integers`` drawing the resample indices of
   ``B`` resamples of ``n`` records in one call (what ``scipy.stats.bootstrap``
   draws);
2. ``B`` paired-bootstrap resamples of AUC(A) − AUC(B) and of F1(A) − F1(B) on
   ``n`` records (BCa interval), and ``B`` random swaps of the paired permutation
   test of the AUC and of F1;
3. each time divided by the floor (the target is ≤ 2), and by the same draws
   made in arrays of about 10⁶ values (a stricter floor: one call of 10⁹
   values also pays for faulting in 8 GB of fresh memory), with CPU seconds
   (all threads) beside the wall-clock ones: on a shared machine the CPU
   ratio depends less on the load.

Run ``python benchmarks/bench_resampling.py`` (10,000 resamples of 100,000
records; ``--records`` and ``--resamples`` change them; ``--permutation-resamples``
runs fewer swaps and scales the time up to ``--resamples``, for slow versions).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from cvreport import arrays


def _load() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return f"{os.cpu_count()} cores"
    return f"load {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"


def _floor(n: int, n_resamples: int) -> tuple[float, float]:
    """Seconds (wall, CPU) for one ``Generator.integers`` call drawing every resample's indices."""
    rng = np.random.default_rng(0)
    start, cpu = time.perf_counter(), time.process_time()
    drawn = rng.integers(0, n, size=(n_resamples, n))
    elapsed = time.perf_counter() - start, time.process_time() - cpu
    del drawn
    return elapsed


def _floor_in_chunks(n: int, n_resamples: int) -> tuple[float, float]:
    """The same indices drawn in arrays of about 10⁶ values (no fresh memory to fault in)."""
    rng = np.random.default_rng(0)
    step = max(1, 1_000_000 // n)
    start, cpu = time.perf_counter(), time.process_time()
    for first in range(0, n_resamples, step):
        rng.integers(0, n, size=(min(step, n_resamples - first), n))
    return time.perf_counter() - start, time.process_time() - cpu


def _data(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, n)
    a = 0.5 * y + rng.random(n)
    b = 0.45 * y + rng.random(n)
    return {
        "y": y,
        "a": a,
        "b": b,
        "label_a": (a > 0.75).astype(int),
        "label_b": (b > 0.72).astype(int),
    }


def _time(function, *args, **kwargs) -> tuple[float, float, object]:
    start, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, time.process_time() - cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--permutation-resamples", type=int, default=None)
    args = parser.parse_args()
    n, n_resamples = args.records, args.resamples
    swaps = args.permutation_resamples or n_resamples
    data = _data(n)
    y = data["y"]
    print(f"{n_resamples:,} resamples of {n:,} records; {_load()}", flush=True)
    floor, floor_cpu = _floor(n, n_resamples)
    print(
        f"  floor: Generator.integers, one call of ({n_resamples:,}, {n:,}) indices: "
        f"{floor:7.2f} s (CPU {floor_cpu:6.2f} s)   [{_load()}]",
        flush=True,
    )
    chunked, chunked_cpu = _floor_in_chunks(n, n_resamples)
    print(
        f"  (the same draws in arrays of ~10⁶ values: {chunked:7.2f} s (CPU {chunked_cpu:6.2f} s), "
        f"one call / chunks {floor / chunked:4.2f})   [{_load()}]",
        flush=True,
    )
    cases = [
        ("bootstrap AUC", arrays.paired_bootstrap_test, "roc_auc", "a", "b", n_resamples),
        ("bootstrap F1", arrays.paired_bootstrap_test, "f1", "label_a", "label_b", n_resamples),
        ("permutation AUC", arrays.paired_permutation_test, "roc_auc", "a", "b", swaps),
        ("permutation F1", arrays.paired_permutation_test, "f1", "label_a", "label_b", swaps),
    ]
    for label, function, metric, a, b, count in cases:
        elapsed, cpu, result = _time(
            function,
            y,
            data[a],
            data[b],
            metric=metric,
            n_resamples=count,
            random_state=0,
            progress=False,
        )
        scaled = elapsed * n_resamples / count
        scaled_cpu = cpu * n_resamples / count
        note = f" (measured on {count:,}, scaled)" if count != n_resamples else ""
        print(
            f"  {label:16s} {scaled:7.2f} s{note}  ratio to floor {scaled / floor:5.2f} "
            f"(to chunks {scaled / chunked:5.2f}; CPU {scaled_cpu:6.2f} s, "
            f"{scaled_cpu / chunked_cpu:5.2f}× the chunks' CPU)  "
            f"(δ = {result.estimate:+.5f}, p = {result.pvalue:.4f})   [{_load()}]",
            flush=True,
        )


if __name__ == "__main__":
    main()
