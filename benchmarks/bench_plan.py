"""Benchmark the planned powers against simulation (issue 24 §1): the ±0.03 table.

For every test and design on a grid, the power :func:`cvreport.plan` predicts
beside the rejection rate of the test's own kernel on simulated data sets, their
difference and the simulated rate's Monte Carlo standard error:

1. **model** — per-fold differences drawn from the variance-component model
   (a multivariate normal with Nadeau & Bengio's covariance; the simulator draws
   no repeated K-fold or repeated hold-out designs, and its per-fold statistics
   carry no training sizes): the equicorrelated model, and a model with a
   between-replication variance (the Satterthwaite df), at true differences of
   0 (the type I error), 1.5 and 3 standard errors of the mean; 0/1 records from
   the multinomial model for McNemar;
2. **epsilon** — the simulator's ε scenario (Dietterich's loss model, n = 300,
   ε = 0.1) on 10-fold CV, random 5×2 CV, 5×2 BCV and a hold-out third, with its
   exact variance components (:func:`cvreport.planning.validation.epsilon_components`).

Prints both tables, the largest |difference| and how many rows are within
±0.03, and the time taken; the acceptance is every row within ±0.03.

Usage::

    python benchmarks/bench_plan.py [--reps 4000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from cvreport.planning import VarianceComponents
from cvreport.planning.validation import ModelCase, check_epsilon, check_model

TOLERANCE = 0.03

KFOLD_DESIGNS = [
    ("corrected_repeated_kfold_ttest", "10-fold"),
    ("corrected_repeated_kfold_ttest", "10x10"),
    ("corrected_repeated_kfold_ttest", "3x5"),
    ("corrected_repeated_kfold_ttest", "5x2"),
    ("corrected_repeated_kfold_ttest", "30x2"),
    ("combined_ftest_5x2cv", "5x2"),
    ("combined_ftest_5x2cv", "10x2"),
    ("calibrated_ftest_5x2cv", "5x2"),
    ("calibrated_ftest_5x2cv", "3x2"),
]
EFFECTS = (0.0, 1.5, 3.0)


def _print(title: str, frame: pd.DataFrame) -> None:
    print(f"\n{title}")
    print(
        f"{'scenario':<24} {'test':<31} {'design':<28} {'effect':>7} {'predicted':>9} "
        f"{'simulated':>9} {'diff':>7} {'MC se':>6}"
    )
    for row in frame.to_dict("records"):
        flag = "" if abs(row["difference"]) <= TOLERANCE else "  <-- outside ±0.03"
        print(
            f"{row['scenario']:<24} {row['test']:<31} {row['design']:<28} "
            f"{row['effect']:7.4f} {row['predicted']:9.4f} {row['simulated']:9.4f} "
            f"{row['difference']:+7.4f} {row['mc_se']:6.4f}{flag}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=4000, help="simulated data sets per row")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()

    cases = [ModelCase(test, design, e) for test, design in KFOLD_DESIGNS for e in EFFECTS]
    models = {
        "equicorrelated": VarianceComponents(within=1.0, between=0.0, common=1 / 9, K=10),
        "between 0.3": VarianceComponents(within=1.0, between=0.3, common=1.3 / 9, K=10),
    }
    frames = [
        check_model(vc, cases, scenario=name, reps=args.reps, seed=args.seed + i)
        for i, (name, vc) in enumerate(models.items())
    ]
    splits = VarianceComponents(within=0.0, between=1.0, common=0.5, K=1, test_train_ratio=0.5)
    split_cases = [
        ModelCase("corrected_resampled_ttest", design, e)
        for design in ("10 splits", "30 splits")
        for e in EFFECTS
    ]
    split_cases += [
        ModelCase("mcnemar", design, e)
        for design in ("hold-out 200", "hold-out 1000")
        for e in (0.0, 0.03, 0.06)
    ]
    frames.append(
        check_model(
            splits,
            split_cases,
            scenario="hold-out splits",
            discordance=0.2,
            reps=args.reps,
            seed=args.seed + 7,
        )
    )
    model = pd.concat(frames, ignore_index=True)
    epsilon = check_epsilon((0.0, 0.04, 0.08, 0.12), reps=args.reps, seed=args.seed + 11)
    elapsed = time.perf_counter() - started

    _print("Per-fold differences from the variance-component model (multivariate normal)", model)
    _print("The simulator's ε scenario (n = 300, ε = 0.1), exact components", epsilon)
    every = pd.concat([model, epsilon], ignore_index=True)
    inside = int((every.difference.abs() <= TOLERANCE).sum())
    print(
        f"\n{inside} of {len(every)} rows within ±{TOLERANCE}; largest |difference| "
        f"{every.difference.abs().max():.4f}; largest MC se {every.mc_se.max():.4f}; "
        f"{args.reps} simulated data sets per row; {elapsed:.1f} s"
    )


if __name__ == "__main__":
    main()
