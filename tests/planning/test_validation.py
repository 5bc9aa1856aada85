"""The planned powers agree with simulation within ±0.03 on a small grid (issue 24 §1).

The corrected t tests' per-fold differences for repeated K-fold and repeated
hold-out designs are drawn from the variance-component model (the simulator
draws no such designs); 10-fold, m×2 and hold-out designs also come from the
simulator's ε scenario, whose variance components are exact
(cvreport.planning.validation). benchmarks/bench_plan.py prints a larger grid.
"""

from __future__ import annotations

import pytest

from cvreport.planning import VarianceComponents
from cvreport.planning.validation import ModelCase, check_epsilon, check_model

REPS = 2000  # Monte Carlo SE ≤ 0.0112, well under 0.03


def assert_agrees(frame):
    assert len(frame) > 0
    worst = frame.loc[frame.difference.abs().idxmax()]
    assert frame.difference.abs().max() <= 0.03, worst.to_dict()
    assert (frame.mc_se < 0.012).all()


def test_model_equicorrelated_and_with_between_replication_variance():
    cases = [
        ModelCase(test, design, effect)
        for test, design in [
            ("corrected_repeated_kfold_ttest", "10x10"),
            ("corrected_repeated_kfold_ttest", "3x5"),
            ("combined_ftest_5x2cv", "5x2"),
            ("calibrated_ftest_5x2cv", "5x2"),
        ]
        for effect in (0.0, 2.5)
    ]
    equicorrelated = VarianceComponents(within=1.0, between=0.0, common=1 / 9, K=10)
    between = VarianceComponents(within=1.0, between=0.3, common=1.3 / 9, K=10)
    assert_agrees(check_model(equicorrelated, cases, reps=REPS, seed=1))
    assert_agrees(check_model(between, cases, reps=REPS, seed=2))


def test_model_hold_out_splits_and_mcnemar():
    splits = VarianceComponents(within=0.0, between=1.0, common=0.5, K=1, test_train_ratio=0.5)
    cases = [ModelCase("corrected_resampled_ttest", "20 splits", e) for e in (0.0, 2.5)]
    cases += [ModelCase("mcnemar", "hold-out 500", e) for e in (0.0, 0.05)]
    assert_agrees(check_model(splits, cases, discordance=0.2, reps=REPS, seed=3))


def test_the_simulators_epsilon_scenario():
    frame = check_epsilon((0.0, 0.08), reps=REPS, seed=4)
    assert set(frame.test) == {
        "corrected_repeated_kfold_ttest",
        "combined_ftest_5x2cv",
        "calibrated_ftest_5x2cv",
        "mcnemar",
    }
    assert_agrees(frame)
    # under H0 the predicted type I errors are the known ones: 0.03 for the 5×2 F tests
    null = frame[(frame.effect == 0) & (frame.test == "combined_ftest_5x2cv")]
    assert float(null.predicted.iloc[0]) == pytest.approx(0.030, abs=0.002)
