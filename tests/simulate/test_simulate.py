"""Simulation studies: fold aggregation, designs, scenarios, rates against Yang et al. Table V."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport.methods as methods
from cvreport import simulate
from cvreport.data.table import ResultsTable
from cvreport.errors import CVReportError, DataError, DesignError
from cvreport.simulate.aggregate import code_losses, fold_indicator, fold_statistics
from cvreport.simulate.learners import (
    LeastSquaresLearner,
    LogisticRegressionLearner,
    MajorityLearner,
)
from cvreport.simulate.runners import get_runner

# ---------------------------------------------------------------- aggregation


def _naive_fold_statistics(a, b, template, K):
    """Per-fold differences and 2×2 tables by explicit loops over folds (no matrix products)."""
    reps = a.shape[0]
    m, _ = template.shape
    differences = np.zeros((reps, m, K))
    tables = np.zeros((reps, m, K, 4), dtype=np.int64)
    for r in range(reps):
        for i in range(m):
            la = a[r, i] if a.ndim == 3 else a[r]
            lb = b[r, i] if b.ndim == 3 else b[r]
            for k in range(K):
                mask = template[i] == k
                differences[r, i, k] = la[mask].mean() - lb[mask].mean()
                tables[r, i, k] = [
                    np.sum((la[mask] == 1) & (lb[mask] == 1)),
                    np.sum((la[mask] == 1) & (lb[mask] == 0)),
                    np.sum((la[mask] == 0) & (lb[mask] == 1)),
                    np.sum((la[mask] == 0) & (lb[mask] == 0)),
                ]
    return differences, tables


@pytest.mark.parametrize("per_replication", [False, True])
def test_fold_statistics_equal_a_loop_over_folds(per_replication):
    rng = np.random.default_rng(5)
    reps, m, n, K = 7, 3, 41, 4
    template = rng.integers(-1, K, size=(m, n)).astype(np.int16)
    template[:, :K] = np.arange(K)  # every fold non-empty
    shape = (reps, m, n) if per_replication else (reps, n)
    a = (rng.random(shape) < 0.3).astype(np.int8)
    b = (rng.random(shape) < 0.4).astype(np.int8)
    stats = fold_statistics(a, b, template, K, binary=True)
    differences, tables = _naive_fold_statistics(a, b, template, K)
    np.testing.assert_array_equal(stats.tables, tables)
    np.testing.assert_allclose(stats.differences, differences, rtol=0, atol=1e-15)
    assert stats.sizes.tolist() == [[int((row == k).sum()) for k in range(K)] for row in template]


def test_fold_statistics_of_real_valued_losses():
    rng = np.random.default_rng(6)
    template = np.array([[0, 1, 0, 1, 1, -1], [1, 1, 0, 0, -1, 0]])
    a, b = rng.normal(size=(5, 6)), rng.normal(size=(5, 6))
    stats = fold_statistics(a, b, template, 2, binary=False)
    assert stats.tables is None
    d = a - b
    expected = [
        [[d[:, [0, 2]].mean(1), d[:, [1, 3, 4]].mean(1)]],
        [[d[:, [2, 3, 5]].mean(1), d[:, [0, 1]].mean(1)]],
    ]
    np.testing.assert_allclose(stats.differences[:, 0, 0], expected[0][0][0])
    np.testing.assert_allclose(stats.differences[:, 0, 1], expected[0][0][1])
    np.testing.assert_allclose(stats.differences[:, 1, 0], expected[1][0][0])
    np.testing.assert_allclose(stats.differences[:, 1, 1], expected[1][0][1])


def test_cell_codes_and_indicator_by_hand():
    # n00 both wrong, n01 A wrong B right, n10 A right B wrong, n11 both right
    assert code_losses(np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0])).tolist() == [0, 1, 2, 3]
    indicator = fold_indicator(np.array([[1, 0, -1], [0, 0, 1]]), 2)
    assert indicator.tolist() == [[0, 1, 1, 0], [1, 0, 1, 0], [0, 0, 0, 1]]


def test_fold_statistics_rejects_mismatched_shapes():
    with pytest.raises(DataError, match="do not fit a template"):
        fold_statistics(np.zeros((2, 5)), np.zeros((2, 4)), np.zeros((1, 5), int), 1, binary=True)


# ---------------------------------------------------------------- designs


def _training_overlaps(template):
    train = (template == 1).astype(int)  # training set of each replication's first split
    return train @ train.T


@pytest.mark.parametrize("n", [296, 300])
def test_table_v_designs_partition_the_records(n):
    tenfold = simulate.get_design("10-fold").template(n)
    assert sorted(np.bincount(tenfold[0]).tolist()) == sorted(
        [n // 10 + (j < n % 10) for j in range(10)]
    )
    holdout = simulate.get_design("hold-out 1/3").template(n)
    assert (holdout == 0).sum() == round(n / 3) and set(np.unique(holdout)) == {-1, 0}
    random = simulate.get_design("random 5x2").template(n)
    assert random.shape == (5, n) and (np.bincount(random.ravel()) == [5 * n // 2] * 2).all()
    for name, m in (("5x2 BCV", 5), ("blocked 3x2", 3), ("balanced 5x2", 5)):
        template = simulate.get_design(name).template(n)
        assert template.shape == (m, n)
        assert ((template == 0).sum(axis=1) == n // 2).all()
        overlaps = _training_overlaps(template)[np.triu_indices(m, 1)]
        # equal-block designs: exactly n/4 when n is a multiple of 8, else n/4 ± 1 (docs/methods.md)
        assert np.abs(overlaps - n / 4).max() <= (0 if n % 8 == 0 else 1)


def test_design_names_and_errors():
    assert simulate.get_design("5×2 BCV") is simulate.get_design("5x2 bcv")
    assert simulate.get_design("7-fold").K == 7
    assert simulate.get_design("random 3x2").m == 3
    assert simulate.get_design("hold-out 1/2").validation == 0.5
    with pytest.raises(DesignError, match="unknown simulation design"):
        simulate.get_design("leave-one-out")
    with pytest.raises(DesignError, match="integer K >= 2"):
        simulate.kfold(1)


# ---------------------------------------------------------------- scenarios


def test_epsilon_scenario_follows_dietterich_model():
    scenario = simulate.EpsilonScenario()
    a, b = scenario.record_losses(np.random.default_rng(0), 20_000)
    half = scenario.n // 2
    # first half: A ~ Bernoulli(ε/2), B ~ Bernoulli(3ε/2); second half the reverse
    means = [a[:, :half].mean(), b[:, :half].mean(), a[:, half:].mean(), b[:, half:].mean()]
    np.testing.assert_allclose(means, [0.05, 0.15, 0.15, 0.05], atol=0.002)
    # within each half, the losses of A and B are drawn independently
    for part in (slice(0, half), slice(half, None)):
        assert abs(np.corrcoef(a[:, part].ravel(), b[:, part].ravel())[0, 1]) < 0.005
    assert scenario.null and not scenario.with_parameter(0.05).null
    with pytest.raises(CVReportError, match="outside"):
        simulate.EpsilonScenario(delta=0.9)


def test_simple_scenario_draws_the_two_classes():
    x, y = simulate.SimpleScenario(delta=2.0, n=50_000).sample(np.random.default_rng(1), 2)
    assert x.shape == (2, 50_000, 1)
    assert abs(y.mean() - 0.5) < 0.01
    assert abs(x[y == 1].mean() - 2.0) < 0.02 and abs(x[y == 0].mean()) < 0.02


def test_logistic_regression_learner_is_the_maximum_likelihood_fit():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(2)
    x = rng.normal(size=(3, 400, 2))
    y = (rng.random((3, 400)) < 1 / (1 + np.exp(-(0.3 + x @ np.array([1.0, -0.5]))))).astype(
        np.int8
    )
    x_test = rng.normal(size=(3, 50, 2))
    ours = LogisticRegressionLearner().fit_predict(x, y, x_test)
    for i in range(3):
        model = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(x[i], y[i])
        np.testing.assert_array_equal(ours[i], model.predict(x_test[i]))


def test_least_squares_and_majority_learners_by_hand():
    x = np.array([[[0.0], [1.0], [2.0], [3.0]]])
    y = np.array([[0, 0, 1, 1]])
    # OLS of y on (1, x): β = (-0.1, 0.4); 0.4·x − 0.1 > 0.5 ⇔ x > 1.5
    predicted = LeastSquaresLearner().fit_predict(x, y, np.array([[[1.4], [1.6]]]))
    assert predicted.tolist() == [[0, 1]]
    labels = MajorityLearner().fit_predict(
        np.zeros((2, 3, 1)), np.array([[1, 1, 0], [0, 0, 1]]), np.zeros((2, 2, 1))
    )
    assert labels.tolist() == [[1, 1], [0, 0]]


# ---------------------------------------------------------------- same code path as real data


def test_simulated_data_sets_give_the_table_level_p_values():
    data = simulate.draw("epsilon", reps=3, seed=3)
    for test, design in simulate.TABLE_V_DESIGNS.items():
        drawn = data[design]
        kernel_p = get_runner(test).pvalues(drawn.stats)
        for index in range(drawn.reps):
            table = ResultsTable(drawn.frame(index))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = getattr(methods, test)(table)
            assert result.pvalue == pytest.approx(kernel_p[index], rel=1e-12, abs=1e-15), test


def test_calibrate_counts_what_draw_shows():
    reps, seed = 400, 12
    frame = simulate.calibrate("epsilon", reps=reps, seed=seed, chunk_size=reps, progress=False)
    data = simulate.draw("epsilon", reps=reps, seed=seed)
    for test, design, rate in zip(frame.test, frame.design, frame.rate):
        pvalues = get_runner(str(test)).pvalues(data[str(design)].stats)
        assert rate == np.count_nonzero(pvalues <= 0.05) / reps


def test_drawn_bcv_partitions_pass_the_overlap_audit():
    from cvreport.partitions.audit import audit_overlap

    data = simulate.draw("epsilon", ["5x2 BCV", "random 5x2"], reps=1, seed=1, n=296)
    assert audit_overlap(ResultsTable(data["5x2 BCV"].frame(0))).z_max == 0
    assert audit_overlap(ResultsTable(data["random 5x2"].frame(0))).z_max > 0


def test_records_are_shuffled_afresh_for_every_data_set():
    data = simulate.draw("epsilon", ["5x2 BCV", "random 5x2"], reps=50, seed=4)
    for drawn in data.values():
        first_half_in_fold_0 = (drawn.folds[:, 0, :150] == 0).sum(axis=1)
        assert len(np.unique(drawn.folds[:, 0], axis=0)) == 50  # 50 different partitions
        assert 60 < first_half_in_fold_0.mean() < 90  # not aligned with the ε halves


# ---------------------------------------------------------------- Yang et al. Table V


def test_epsilon_rates_agree_with_yang_et_al_table_v():
    frame = simulate.calibrate("epsilon", reps=20_000, seed=20240611, progress=False)
    checked = simulate.compare_with_paper(frame)
    assert checked.test.tolist() == list(simulate.TABLE_V_TESTS)
    assert checked.design.tolist() == [simulate.TABLE_V_DESIGNS[t] for t in simulate.TABLE_V_TESTS]
    table_v = {
        "paired_ttest_kfold": 0.043, "paired_ttest_5x2cv": 0.034, "combined_ftest_5x2cv": 0.028,
        "calibrated_ftest_5x2cv": 0.035, "mcnemar": 0.031, "mcnemar_kfold": 0.000,
        "mcnemar_5x2bcv": 0.025, "combined_ttest_5x2cv": 0.291, "blocked_ttest_3x2cv": 0.087,
    }  # fmt: skip
    for test, rate, se in zip(checked.test, checked.rate.astype(float), checked.se.astype(float)):
        paper = table_v[str(test)]
        se_paper = math.sqrt(rate * (1 - rate) / 1000)
        assert abs(rate - paper) <= 2 * math.sqrt(se_paper**2 + se**2), test
        if paper > 0:  # the same rule with the standard error at the printed rate
            se_printed = math.sqrt(paper * (1 - paper) / 1000)
            assert abs(rate - paper) <= 2 * math.sqrt(se_printed**2 + se**2), test
    assert checked.agrees.all()
    # the shape of the table, beyond agreement: Yıldız's t is far too liberal, the naive
    # K-fold McNemar test almost never rejects, the blocked 3×2 t sits above α
    rates = dict(zip(checked.test, checked.rate))
    assert rates["combined_ttest_5x2cv"] > 0.25
    assert rates["mcnemar_kfold"] < 0.001
    assert rates["blocked_ttest_3x2cv"] > 0.06


# ---------------------------------------------------------------- any scenario: valid rates, power


def _valid_rates(frame):
    assert frame[["rate", "se"]].notna().all().all()
    assert ((frame.rate >= 0) & (frame.rate <= 1)).all()
    assert np.isfinite(frame.se).all()


def _coins(rng, reps, n, spread=1.0):
    # real-valued losses with equal means: H0 holds, the McNemar tests do not apply
    return rng.normal(0, spread, (reps, n)), rng.normal(0, spread, (reps, n))


def test_rates_under_h0_are_valid_in_every_scenario():
    frames = {
        "epsilon": simulate.calibrate("epsilon", reps=3000, seed=1, progress=False),
        "simple": simulate.calibrate("simple", n=200, reps=150, seed=1, progress=False),
        "custom": simulate.calibrate(
            simulate.LossScenario(_coins, n=120, params={"spread": 1.0}), reps=2000, seed=1,
            progress=False,
        ),
    }  # fmt: skip
    for name, frame in frames.items():
        _valid_rates(frame)
        assert list(frame.columns) == list(simulate.COLUMNS), name
    # degenerate data sets (every fold difference 0) are part of these runs: never NaN
    tied = simulate.LossScenario(
        lambda rng, reps, n: (np.zeros((reps, n)), np.zeros((reps, n))), n=60, binary=True
    )
    frame = simulate.calibrate(tied, reps=50, seed=1, progress=False)
    _valid_rates(frame)
    assert (frame.rate == 0).all()
    custom = frames["custom"]
    assert not custom.test.str.startswith("mcnemar").any()
    assert (custom.rate < 0.35).all()


def test_gaussians_scenario_runs_with_trees():
    pytest.importorskip("sklearn")
    frame = simulate.calibrate(
        "gaussians", n=80, tests=["combined_ftest_5x2cv", "mcnemar"], reps=8, seed=1,
        progress=False,
    )  # fmt: skip
    _valid_rates(frame)
    assert frame.parameter.tolist() == [1.0, 1.0]


def test_power_approaches_one_under_a_strong_effect():
    strong = simulate.calibrate("epsilon", delta=0.3, reps=2000, seed=2, progress=False)
    assert (strong.rate >= 0.99).all(), strong
    simple = simulate.calibrate("simple", delta=1.5, n=400, reps=60, seed=2, progress=False)
    assert (simple.rate >= 0.95).all(), simple


def test_power_curve_reuses_the_seed_at_every_value():
    curve = simulate.power_curve(
        "epsilon", [0.0, 0.05, 0.1], tests=["combined_ftest_5x2cv", "mcnemar_5x2bcv"],
        reps=3000, seed=9, progress=False,
    )  # fmt: skip
    assert curve.parameter.tolist() == [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
    at_null = simulate.calibrate(
        "epsilon", tests=["combined_ftest_5x2cv", "mcnemar_5x2bcv"], reps=3000, seed=9,
        progress=False,
    )  # fmt: skip
    np.testing.assert_array_equal(curve.rate.to_numpy()[:2], at_null.rate.to_numpy())
    for _, rates in curve.groupby("test").rate:
        assert rates.is_monotonic_increasing  # common random numbers: A only gets worse


def test_reproducible_from_the_seed_whatever_the_threads():
    kwargs: dict[str, Any] = {"tests": ["paired_ttest_kfold", "blocked_ttest_3x2cv"], "reps": 3000,
              "chunk_size": 1000, "progress": False}  # fmt: skip
    one = simulate.calibrate("epsilon", seed=5, n_jobs=1, **kwargs)
    two = simulate.calibrate("epsilon", seed=5, n_jobs=2, **kwargs)
    other = simulate.calibrate("epsilon", seed=6, n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(one, two)
    assert not one.rate.equals(other.rate)
    # with the common shuffle, a design's rates do not depend on which other designs run
    alone = simulate.calibrate("epsilon", seed=5, **{**kwargs, "tests": ["paired_ttest_kfold"]})
    assert alone.rate.iloc[0] == one.rate.iloc[0]
    seq = np.random.SeedSequence(5)
    assert simulate.calibrate("epsilon", seed=seq, **kwargs).rate.equals(one.rate)
    assert simulate.calibrate("epsilon", seed=seq, **kwargs).rate.equals(one.rate)


def test_designs_argument_forms():
    listed = simulate.calibrate(
        "epsilon", tests=["combined_ftest_5x2cv", "paired_ttest_kfold"],
        designs=["random 5x2", "5x2 BCV", "5-fold"], reps=200, seed=1, progress=False,
    )  # fmt: skip
    assert list(zip(listed.test, listed.design)) == [
        ("combined_ftest_5x2cv", "random 5x2"),
        ("combined_ftest_5x2cv", "5x2 BCV"),
        ("paired_ttest_kfold", "5-fold"),
    ]
    mapped = simulate.calibrate(
        "epsilon", tests=["mcnemar"], designs={"mcnemar": "hold-out 1/2"}, reps=200, seed=1,
        progress=False, test_options={"mcnemar": {"method": "exact"}},
    )  # fmt: skip
    assert mapped.design.tolist() == ["hold-out 1/2"]
    with pytest.raises(DesignError, match="does not apply"):
        simulate.calibrate("epsilon", tests=["mcnemar"], designs={"mcnemar": "10-fold"}, reps=10)
    with pytest.raises(DesignError, match="none of the designs"):
        simulate.calibrate("epsilon", tests=["mcnemar"], designs=["10-fold"], reps=10)


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(CVReportError, match="alpha"):
        simulate.calibrate("epsilon", alpha=1.5, reps=10)
    with pytest.raises(CVReportError, match="reps"):
        simulate.calibrate("epsilon", reps=0)
    with pytest.raises(CVReportError, match="cannot run 'no_such_test'"):
        simulate.calibrate("epsilon", tests=["no_such_test"], reps=10)
    with pytest.raises(CVReportError, match="no parameter 'eps'"):
        simulate.calibrate("epsilon", eps=0.2, reps=10)
    with pytest.raises(CVReportError, match="unknown scenario"):
        simulate.calibrate("exp6", reps=10)
    with pytest.raises(DataError, match="needs 0/1 losses"):
        simulate.calibrate(simulate.LossScenario(_coins, n=40), tests=["mcnemar"], reps=10)
    bad_shape = simulate.LossScenario(lambda rng, reps, n: (np.zeros((reps, n)), np.zeros(n)), n=40)
    with pytest.raises(DataError, match="shape"):
        simulate.calibrate(bad_shape, reps=10, progress=False)


def test_trained_scenario_with_user_sampler_and_learners():
    def sampler(rng, reps, n, shift=0.0):
        y = (rng.random((reps, n)) < 0.5).astype(np.int8)
        return rng.normal(size=(reps, n)) + shift * y, y

    scenario = simulate.TrainedScenario(
        sampler, LogisticRegressionLearner(), MajorityLearner(), n=120, params={"shift": 3.0}
    )
    frame = simulate.calibrate(
        scenario, tests=["combined_ftest_5x2cv"], reps=30, seed=1, progress=False
    )
    _valid_rates(frame)
    assert frame.rate.iloc[0] > 0.9 and frame.parameter.iloc[0] == 3.0


# ---------------------------------------------------------------- the report


def _numbers_in(text, pattern):
    return [float(x) for x in re.findall(pattern, text)]


def test_calibration_report_shows_the_rates(tmp_path):
    frame = simulate.calibrate("epsilon", reps=2000, seed=4, progress=False)
    report = simulate.calibration_report(frame)
    html = report.to_html()
    shown = re.findall(r'data-field="rate">([0-9.]+)<', html)
    assert shown == [f"{r:.3f}" if r == 0 or r >= 0.001 else f"{r:.5f}" for r in frame.rate]
    papers = _numbers_in(html, r'data-field="paper">([0-9.]+)<')
    assert papers == [simulate.TABLE_V["epsilon"][t] for t in frame.test]
    markdown = report.to_markdown()
    rows = [line for line in markdown.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == len(frame)
    for line, cell in zip(rows, shown):
        assert f"| {cell} |" in line
    target = report.save(tmp_path / "calibration.html")
    assert target.read_text(encoding="utf-8") == html
    with pytest.raises(FileExistsError):
        report.save(tmp_path / "calibration.html")
    report.save(tmp_path / "calibration.md")
    assert (tmp_path / "calibration.md").read_text(encoding="utf-8") == markdown


def test_power_curve_report_has_one_line_per_test():
    curve = simulate.power_curve(
        "epsilon", [0.0, 0.1, 0.2], tests=["combined_ftest_5x2cv", "mcnemar_5x2bcv"], reps=300,
        seed=1, progress=False,
    )  # fmt: skip
    html = simulate.calibration_report(curve).to_html(standalone=False)
    assert html.count("<polyline") == 2
    assert "<svg" in html and "α = 0.05" in html and "<details>" in html
    assert html.startswith('<div class="cvreport')
    markdown = simulate.calibration_report(curve).to_markdown()
    assert "rejection rate by delta" in markdown


def test_power_curve_over_other_parameters():
    by_n = simulate.power_curve(
        "epsilon", [100, 300], parameter="n", tests=["mcnemar"], reps=500, seed=1, progress=False
    )
    assert by_n.parameter.tolist() == [100.0, 300.0]
    assert "n varied" in by_n.attrs["description"]
    with pytest.raises(CVReportError, match="whole number"):
        simulate.power_curve("epsilon", [100.5], parameter="n", reps=10)

    def shifted(rng, reps, n, shift=0.0):
        return rng.normal(shift, 1, (reps, n)), rng.normal(0, 1, (reps, n))

    scenario = simulate.LossScenario(shifted, n=100, params={"shift": 0.0}, null_value=0.0)
    curve = simulate.power_curve(
        scenario, [0.0, 1.0], tests=["paired_ttest_kfold"], reps=400, seed=1, progress=False
    )
    low, high = curve.rate.tolist()
    assert low < 0.15 and high > 0.95
