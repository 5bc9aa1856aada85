"""Every registered fold-level test runs in the simulator, with the same numbers as on a table.

The simulator reads its tests from the registry: a comparison of two models whose
spec has a kernel and ``inputs`` runs on a batch of simulated data sets. Here each
one is run on a small batch and checked against the public table-level function
run on each simulated data set's long table, one by one; the training and
validation sizes that the corrected t family needs are checked on both sides.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from cvreport import simulate
from cvreport.data.sufficient import FoldStatistics, training_sizes
from cvreport.data.table import ResultsTable
from cvreport.errors import CVReportError, DataError, DesignError
from cvreport.methods.registry import SPECS, get_spec
from cvreport.methods.resampled_t import table_test_train_ratio
from cvreport.simulate.plan import DEFAULT_DESIGNS
from cvreport.simulate.runners import RUNNERS, TABLE_V_TESTS, get_runner

#: Design kinds the simulator draws, and a design of each for the checks below. The
#: repeated hold-out design validates on 2/3 so that 15 splits of 300 records cover
#: every record: the table then counts the same training sets as the simulator.
CHECKED_DESIGNS = {
    "kfold": "10-fold",
    "repeated_kfold": "3x4-fold",
    "mx2": "random 5x2",
    "holdout": "hold-out 1/3",
    "repeated_holdout": "15x hold-out 2/3",
}
#: The fold-level comparisons of two models in the registry, found without the simulator.
FOLD_LEVEL = [
    spec
    for spec in SPECS
    if spec.models == 2 and spec.designs and spec.kernel is not None and spec.inputs is not None
]
CASES = [(spec, kind) for spec in FOLD_LEVEL for kind in spec.designs]


def _table(data: simulate.SimulatedData, index: int) -> ResultsTable:
    return ResultsTable.from_formula("loss ~ model | replication + fold", data.frame(index))


def test_the_simulator_runs_every_fold_level_test_of_the_registry():
    assert {spec.name for spec in FOLD_LEVEL} == set(RUNNERS)
    assert {
        "corrected_resampled_ttest",
        "corrected_repeated_kfold_ttest",
        "bayesian_correlated_ttest",
        "cv_confidence_interval",
        "paired_ttest_resampled",
        "proportion_test",
    } <= set(RUNNERS)
    for spec in FOLD_LEVEL:
        assert get_runner(spec.name).spec is spec
        for kind in spec.designs:
            assert kind in DEFAULT_DESIGNS
    # the record-level and one-model tests need more than per-fold statistics
    for name in ("delong_test", "paired_bootstrap_test", "binomial_test"):
        with pytest.raises(CVReportError, match="the simulator cannot run"):
            get_runner(name)
    # the default selection is still Yang et al.'s Table V
    frame = simulate.calibrate("epsilon", reps=20, seed=0, progress=False)
    assert list(frame.test) == list(TABLE_V_TESTS)


@pytest.mark.parametrize(
    ("spec", "kind"), CASES, ids=[f"{spec.name}-{kind}" for spec, kind in CASES]
)
def test_a_simulated_batch_equals_the_public_function_on_each_table(spec, kind):
    design = CHECKED_DESIGNS[kind]
    data = simulate.draw("epsilon", [design], reps=3, seed=17)[design]
    runner = get_runner(spec.name)
    batched = runner.pvalues(data.stats)
    assert batched.shape == (3,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one_by_one = [spec.function(_table(data, r), "A", "B").pvalue for r in range(3)]
    np.testing.assert_allclose(batched, one_by_one, rtol=1e-12, atol=1e-12)
    assert len(set(np.round(one_by_one, 12))) > 1  # three different data sets


@pytest.mark.parametrize(
    "name",
    [
        "corrected_resampled_ttest",
        "corrected_repeated_kfold_ttest",
        "bayesian_correlated_ttest",
        "paired_ttest_resampled",
    ],
)
def test_real_valued_losses_give_the_same_numbers_as_the_table(name):
    def gaussian(rng, reps, n, shift=0.0):
        return rng.normal(shift, 1.0, (reps, n)), rng.normal(0.0, 1.0, (reps, n))

    scenario = simulate.LossScenario(gaussian, n=60, params={"shift": 0.2})
    spec = get_spec(name)
    design = CHECKED_DESIGNS[spec.designs[-1]]
    data = simulate.draw(scenario, [design], reps=3, seed=4)[design]
    assert data.stats.tables is None
    batched = get_runner(name).pvalues(data.stats)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one_by_one = [spec.function(_table(data, r), "A", "B").pvalue for r in range(3)]
    np.testing.assert_allclose(batched, one_by_one, rtol=1e-12, atol=1e-12)


def test_simulated_designs_carry_their_training_sizes():
    data = simulate.draw("epsilon", ["10-fold", "15x hold-out 1/3", "3x4-fold"], reps=2, seed=1)
    kfold = data["10-fold"].stats
    assert kfold.sizes.tolist() == [[30] * 10] and kfold.train_sizes.tolist() == [[270] * 10]
    assert kfold.validation_training_ratio().tolist() == [30 / 270] * 2  # one per data set
    holdout = data["15x hold-out 1/3"].stats
    assert holdout.sizes.shape == holdout.train_sizes.shape == (15, 1)
    assert set(holdout.train_sizes.ravel().tolist()) == {200}
    assert holdout.validation_training_ratio().tolist() == [0.5, 0.5]
    repeated = data["3x4-fold"].stats
    assert repeated.differences.shape == (2, 3, 4)
    assert repeated.validation_training_ratio().tolist() == [75 / 225] * 2


def _fold_errors(replications: int, folds: int) -> pd.DataFrame:
    rows = [
        (replication, fold, model, 0.01 * (replication + 2 * fold) + (0.02 if model == "A" else 0))
        for replication in range(1, replications + 1)
        for fold in range(1, folds + 1)
        for model in "AB"
    ]
    return pd.DataFrame(rows, columns=["replication", "fold", "model", "error"])


def test_a_table_carries_the_n2_n1_its_corrected_tests_use():
    frame = simulate.draw("epsilon", ["15x hold-out 1/3"], reps=1, seed=2)["15x hold-out 1/3"]
    inferred = _table(frame, 0)
    given = ResultsTable.from_fold_scores(
        _fold_errors(6, 1), score="error", direction="lower", test_train_ratio=0.3
    )
    kfold = _table(simulate.draw("epsilon", ["10-fold"], reps=1, seed=2)["10-fold"], 0)
    for table, k_fold in ((inferred, False), (given, False), (kfold, True)):
        pair = table.stats.pair(0, 1)
        expected, _ = table_test_train_ratio(table, k_fold=k_fold)
        assert float(pair.validation_training_ratio()) == expected  # the same float
    assert float(given.stats.pair(0, 1).validation_training_ratio()) == 0.3
    n = inferred.design.n_records
    assert inferred.stats.train_sizes.ravel().tolist() == [n - 100] * 15


def test_per_fold_scores_assume_equal_folds_and_need_a_ratio_for_hold_out():
    table = ResultsTable.from_fold_scores(_fold_errors(1, 7), score="error", direction="lower")
    pair = table.stats.pair(0, 1)
    assert pair.train_sizes.tolist() == [[6] * 7]
    assert float(pair.validation_training_ratio()) == 1 / 6  # the same float as 1/(K − 1)
    holdout = ResultsTable.from_fold_scores(_fold_errors(7, 1), score="error", direction="lower")
    assert holdout.stats.pair(0, 1).train_sizes is None
    with pytest.raises(DesignError, match="test_train_ratio="):
        holdout.stats.pair(0, 1).validation_training_ratio()


def test_training_sizes_and_swapping_by_hand():
    sizes = np.array([[3, 3, 4], [5, 5, 0]])
    assert training_sizes(sizes, per_record=True, n_records=10).tolist() == [[7, 7, 6], [5, 5, 10]]
    assert training_sizes(np.array([[4], [6]]), per_record=True, n_records=10).tolist() == [
        [6],
        [4],
    ]
    assert training_sizes(np.array([[10]]), per_record=True, n_records=10) is None
    stats = FoldStatistics(
        np.array([[[0.1, -0.2]], [[0.3, 0.0]]]),
        None,
        np.array([[2, 3]]),
        train_sizes=np.array([[3, 2]]),
    )
    swapped = stats.swapped()
    assert swapped.train_sizes is stats.train_sizes and swapped.test_train_ratio is None
    np.testing.assert_array_equal(swapped.differences, -stats.differences)
    assert swapped.validation_training_ratio().tolist() == [1.0, 1.0]  # (2 + 3) / (3 + 2)
    given = FoldStatistics(stats.differences, None, stats.sizes, None, test_train_ratio=0.25)
    assert float(given.swapped().validation_training_ratio()) == 0.25


def test_the_corrected_resampled_t_by_hand_on_a_simulated_batch():
    data = simulate.draw("epsilon", ["15x hold-out 1/3"], reps=4, seed=9)["15x hold-out 1/3"]
    p = data.stats.differences[..., 0]  # (4, 15)
    t = p.mean(axis=1) / np.sqrt((1 / 15 + 100 / 200) * p.var(axis=1, ddof=1))
    expected = 2 * scipy_stats.t.sf(np.abs(t), df=14)
    np.testing.assert_allclose(
        get_runner("corrected_resampled_ttest").pvalues(data.stats), expected, rtol=1e-10
    )


def test_type_one_error_of_the_corrected_resampled_t_under_the_null():
    frame = simulate.calibrate(
        "epsilon",
        tests=["corrected_resampled_ttest", "paired_ttest_resampled"],
        designs=["15x hold-out 1/3"],
        reps=3000,
        seed=2024,
        progress=False,
    )
    rates = dict(zip(frame.test, frame.rate))
    # Nadeau & Bengio's correction keeps the size near 5 %; the plain resampled t does not
    assert 0.02 <= rates["corrected_resampled_ttest"] <= 0.08
    assert rates["paired_ttest_resampled"] > 0.2


def test_options_reach_the_new_kernels_and_designs_are_checked():
    frame = simulate.calibrate(
        "epsilon",
        tests=["bayesian_correlated_ttest", "cv_confidence_interval"],
        designs={"bayesian_correlated_ttest": "10x10-fold"},
        test_options={
            "bayesian_correlated_ttest": {"rope": 0.5},
            "cv_confidence_interval": {"alternative": "two-sided"},
        },
        reps=200,
        seed=3,
        progress=False,
    )
    rates = dict(zip(frame.test, frame.rate))
    assert rates["bayesian_correlated_ttest"] == 0.0  # a rope of 0.5 swallows every error rate
    assert list(frame.design) == ["10x10-fold", "10-fold"]
    with pytest.raises(DesignError, match="repeated hold-out"):
        simulate.calibrate(
            "epsilon", tests=["corrected_resampled_ttest"], designs={
                "corrected_resampled_ttest": "10-fold"}, reps=10, progress=False
        )  # fmt: skip


def test_the_cv_interval_needs_0_1_losses_in_the_simulator():
    def gaussian(rng, reps, n):
        return rng.normal(0.0, 1.0, (reps, n)), rng.normal(0.0, 1.0, (reps, n))

    scenario = simulate.LossScenario(gaussian, n=60)
    with pytest.raises(DataError, match="0/1 losses"):
        simulate.calibrate(scenario, tests=["cv_confidence_interval"], reps=10, progress=False)
    data = simulate.draw(scenario, ["10-fold"], reps=2, seed=1)["10-fold"]
    with pytest.raises(DataError, match="per-record"):
        get_spec("cv_confidence_interval").inputs(data.stats)


@pytest.mark.parametrize(
    ("name", "kind", "m", "K", "share"),
    [
        ("10x10-fold", "repeated_kfold", 10, 10, None),
        ("3x4fold", "repeated_kfold", 3, 4, None),
        ("15x hold-out 1/3", "repeated_holdout", 15, 1, 1 / 3),
        ("5x holdout", "repeated_holdout", 5, 1, 1 / 3),
        ("4x hold-out 0.25", "repeated_holdout", 4, 1, 0.25),
    ],
)
def test_repeated_design_names(name, kind, m, K, share):
    design = simulate.get_design(name)
    assert (design.kind, design.m, design.K, design.validation) == (kind, m, K, share)
    template = design.template(60)
    assert template.shape == (m, 60)
    assert len(design.shuffle_groups) == m  # every repetition its own shuffle
