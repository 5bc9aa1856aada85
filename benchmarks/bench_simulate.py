"""Benchmark the simulator: time per 10,000 replications, and Yang et al. Table V reproduced.

Runs every test of Yang et al. Table V on its design (10-fold, random 5×2, 5×2 BCV,
blocked 3×2, hold-out with validation 1/3) on Dietterich's ε scenario
(n = 300, ε = 0.1):

1. the time per 10,000 replications, on one thread and on all cores;
2. a 20,000-replication run and a 100,000-replication run (target: under
   15 s on a 2-core machine), each compared with Table V's epsilon column:
   a rate agrees when |rate − paper| ≤ 2·sqrt(se_paper² + se²), se_paper the
   standard error of a 1,000-replication estimate (at the simulated rate;
   the rule at the printed rate is shown too);
3. the "simple" scenario (logistic regression vs majority, n = 1000, Δ = 0)
   against Table V's simple column, with fewer replications (learners are
   trained on every fold).

Usage::

    python benchmarks/bench_simulate.py [--reps 100000] [--simple-reps 2000] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import time

import pandas as pd

from cvreport import simulate


def _table(frame: pd.DataFrame) -> str:
    checked = simulate.compare_with_paper(frame, frame.attrs.get("scenario", "epsilon"))
    lines = [
        f"{'test':<24} {'design':<13} {'rejected':>8} {'rate':>7} {'se':>7} {'paper':>6} "
        f"{'tol':>7} {'agrees':>6} {'(printed)':>9}"
    ]
    for row in checked.to_dict("records"):
        rate, se, reps = float(row["rate"]), float(row["se"]), int(row["reps"])
        lines.append(
            f"{row['test']:<24} {row['design']:<13} {round(rate * reps):8d} {rate:7.4f} "
            f"{se:7.4f} {float(row['paper']):6.3f} {float(row['tolerance']):7.4f} "
            f"{'yes' if row['agrees'] else 'NO':>6} {'yes' if row['agrees_printed'] else 'no':>9}"
        )
    return "\n".join(lines)


def _run(scenario: str, reps: int, seed: int, n_jobs: int | None) -> tuple[pd.DataFrame, float]:
    started = time.perf_counter()
    frame = simulate.calibrate(scenario, reps=reps, seed=seed, n_jobs=n_jobs, progress=False)
    return frame, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=100_000, help="replications of the long run")
    parser.add_argument("--simple-reps", type=int, default=2_000, help="0 skips the simple run")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cores = os.cpu_count() or 1

    simulate.calibrate("epsilon", reps=1_000, seed=0, progress=False)  # warm up imports, caches
    _, one_thread = _run("epsilon", 10_000, args.seed, 1)
    _, all_cores = _run("epsilon", 10_000, args.seed, None)
    print("ε scenario (n = 300, ε = 0.1), the 9 tests of Yang et al. Table V on their designs")
    print(f"  time per 10,000 replications: {one_thread:.2f} s on 1 thread, "
          f"{all_cores:.2f} s on {cores} threads")  # fmt: skip

    frame, seconds = _run("epsilon", 20_000, args.seed, None)
    print(f"\n20,000 replications: {seconds:.2f} s")
    print(_table(frame))

    frame, seconds = _run("epsilon", args.reps, args.seed + 1, None)
    verdict = "under" if seconds < 15 else "OVER"
    print(f"\n{args.reps:,} replications: {seconds:.2f} s ({verdict} the 15 s target)")
    print(_table(frame))

    if args.simple_reps:
        frame, seconds = _run("simple", args.simple_reps, args.seed, None)
        print(
            f"\nsimple scenario (n = 1000, Δ = 0, logistic regression vs majority), "
            f"{args.simple_reps:,} replications: {seconds:.2f} s"
        )
        print(_table(frame))


if __name__ == "__main__":
    main()
