"""Bayesian correlated t test (docs/methods.md)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cvreport.data.table import ResultsTable
from cvreport.errors import DegenerateStatisticWarning, DesignError
from cvreport.methods.bayesian import (
    BayesianCorrelatedTTestResult,
    bayesian_correlated_ttest,
    bayesian_correlated_ttest_array,
    bayesian_correlated_ttest_kernel,
)
from cvreport.methods.corrected import corrected_resampled_ttest_array
from cvreport.methods.corrected_kfold import corrected_repeated_kfold_ttest_array
from tests._printed import FOUR, SECTION_1, as_printed, t3_cdf


def test_bayesian_vector():
    res = bayesian_correlated_ttest_array(np.reshape(SECTION_1, (5, 2)), rope=0.01)
    assert as_printed(res.location, "0.01")
    assert as_printed(res.scale**2, "3.666667e-4")
    assert res.posterior_df == 9
    assert all(
        as_printed(p, printed)
        for p, printed in zip(res.probabilities, ("0.161755", "0.338245", "0.5"))
    )
    assert res.correlation == pytest.approx(0.5)  # ρ = 1/k for 2-fold CV
    assert res.warnings == ()


def test_hand_worked_four_fold():
    # one 4-fold CV: ρ = 1/4, ρ/(1 − ρ) = 1/3; s² = 0.001/3 (see test_methods_corrected);
    # scale² = (1/4 + 1/3) · 0.001/3 = 7/36000; location 0.01; ν = 3
    res = bayesian_correlated_ttest_array(FOUR, rope=0.005)
    scale = math.sqrt(7 / 36000)
    assert res.scale == pytest.approx(scale, rel=1e-12)
    assert res.location == pytest.approx(0.01)
    assert res.posterior_df == 3
    p_a = t3_cdf((-0.005 - 0.01) / scale)
    p_b = 1 - t3_cdf((0.005 - 0.01) / scale)
    assert res.prob_a_better == pytest.approx(p_a, rel=1e-10)
    assert res.prob_b_better == pytest.approx(p_b, rel=1e-10)
    assert res.prob_equivalent == pytest.approx(1 - p_a - p_b, rel=1e-10)
    assert res.statistic == pytest.approx(0.01 / scale)
    # pvalue (two-sided) = 2 · min(1 − P(A better), 1 − P(B better))
    assert res.pvalue == pytest.approx(min(1.0, 2 * min(1 - p_a, 1 - p_b)))
    low, high = res.credible_interval(0.1)
    q = stats.t.ppf(0.95, 3)
    assert (low, high) == pytest.approx((0.01 - q * scale, 0.01 + q * scale))


def test_rope_zero_posterior_equals_corrected_t():
    d = np.reshape(SECTION_1, (5, 2))
    frequentist = corrected_repeated_kfold_ttest_array(d)
    for alternative in ("two-sided", "less", "greater"):
        res = bayesian_correlated_ttest_array(d, alternative=alternative)
        freq = corrected_repeated_kfold_ttest_array(d, alternative=alternative)
        assert res.statistic == pytest.approx(frequentist.statistic)
        assert res.pvalue == pytest.approx(freq.pvalue, rel=1e-10)
    res = bayesian_correlated_ttest_array(d)
    assert res.prob_equivalent == 0.0
    assert res.prob_a_better + res.prob_b_better == pytest.approx(1.0)
    # repeated hold-out with an explicit ratio: same identity with Nadeau & Bengio
    hold = bayesian_correlated_ttest_array(SECTION_1, 0.5, alternative="less")
    assert hold.pvalue == pytest.approx(
        corrected_resampled_ttest_array(SECTION_1, 0.5, alternative="less").pvalue
    )
    assert hold.pvalue == pytest.approx(1 - hold.prob_a_better)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-0.5, 0.5, allow_nan=False), min_size=2, max_size=12),
    st.floats(0.0, 0.2),
    st.sampled_from(["two-sided", "less", "greater"]),
)
def test_posterior_properties(values, rope, alternative):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateStatisticWarning)
        res = bayesian_correlated_ttest_array(values, 0.25, rope=rope, alternative=alternative)
        swapped = bayesian_correlated_ttest_array(
            [-v for v in values], 0.25, rope=rope, alternative=alternative
        )
    probs = res.probabilities
    assert all(0.0 <= p <= 1.0 for p in probs)
    assert sum(probs) == pytest.approx(1.0, abs=1e-9)
    assert 0.0 <= res.pvalue <= 1.0
    assert not math.isnan(res.statistic)
    # swapping A and B mirrors the posterior
    assert swapped.prob_a_better == pytest.approx(res.prob_b_better, abs=1e-12)
    assert swapped.prob_equivalent == pytest.approx(res.prob_equivalent, abs=1e-9)
    # rope 0: the pvalue field is the corrected t test's p-value
    if rope == 0.0 and not res.degenerate:
        freq = corrected_resampled_ttest_array(values, 0.25, alternative=alternative)
        assert res.pvalue == pytest.approx(freq.pvalue, rel=1e-9, abs=1e-300)


def test_rope_grows_equivalence():
    d = np.reshape(SECTION_1, (5, 2))
    previous = -1.0
    for w in (0.0, 0.005, 0.01, 0.02, 0.05):
        res = bayesian_correlated_ttest_array(d, rope=w)
        assert sum(res.probabilities) == pytest.approx(1.0)
        assert res.prob_equivalent > previous
        previous = res.prob_equivalent


def test_kernel_batches():
    rng = np.random.default_rng(5)
    d = rng.normal(0.0, 0.02, size=(6, 10))
    ropes = np.array([0.0, 0.01, 0.02, 0.0, 0.01, 0.02])
    k = bayesian_correlated_ttest_kernel(d, 1 / 9, ropes, "greater")
    for i in range(6):
        one = bayesian_correlated_ttest_array(d[i], rope=float(ropes[i]), alternative="greater")
        assert k.prob_a_better[i] == pytest.approx(one.prob_a_better, rel=1e-12)
        assert k.prob_b_better[i] == pytest.approx(one.prob_b_better, rel=1e-12)
        assert k.pvalue[i] == pytest.approx(one.pvalue, rel=1e-12)


def test_point_mass_conventions():
    d = np.array([[0.0] * 4, [0.02] * 4, [-0.02] * 4, [0.005] * 4])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = bayesian_correlated_ttest_kernel(d, 1 / 3, 0.01)
    assert k.prob_a_better.tolist() == [0.0, 0.0, 1.0, 0.0]
    assert k.prob_equivalent.tolist() == [1.0, 0.0, 0.0, 1.0]
    assert k.prob_b_better.tolist() == [0.0, 1.0, 0.0, 0.0]
    assert k.statistic.tolist() == [0.0, math.inf, -math.inf, math.inf]
    assert k.pvalue.tolist() == [1.0, 0.0, 0.0, 1.0]
    with pytest.warns(DegenerateStatisticWarning, match="never differ"):
        res = bayesian_correlated_ttest_array([0.0, 0.0, 0.0])
    assert res.probabilities == (0.0, 1.0, 0.0)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    with pytest.warns(DegenerateStatisticWarning, match="point mass"):
        res = bayesian_correlated_ttest_array([-0.01, -0.01, -0.01])
    assert res.prob_a_better == 1.0
    assert res.credible_interval() == (-0.01, -0.01)


def test_bad_inputs():
    with pytest.raises(ValueError, match="rope"):
        bayesian_correlated_ttest_array(FOUR, rope=-0.1)
    with pytest.raises(DesignError, match="test_train_ratio"):
        bayesian_correlated_ttest_array([[0.1], [0.2], [0.0]])
    assert bayesian_correlated_ttest_array([[0.1], [0.2], [0.0]], 0.5).n_splits == 3


def test_summary_speaks_of_probabilities():
    res = bayesian_correlated_ttest_array(np.reshape(SECTION_1, (5, 2)), rope=0.01)
    assert isinstance(res, BayesianCorrelatedTTestResult)
    text = res.summary().as_text()
    assert "p-value" not in text
    assert "P(A better" in text
    assert "0.1618" in text and "0.3382" in text and "0.5000" in text
    assert "credible interval" in text
    assert "No region reaches posterior probability 0.95" in text.replace("\n", " ")
    html = res._repr_html_()
    assert "P(equivalent" in html
    frame = res.to_frame()
    assert frame.loc[0, "prob_a_better"] == pytest.approx(0.161755, abs=1e-6)
    assert {"prob_equivalent", "prob_b_better", "rope", "location", "scale"} <= set(frame)
    decided = bayesian_correlated_ttest_array([-0.03, -0.02, -0.04, -0.03, -0.025])
    assert decided.decision().startswith("A has lower loss than B")


# -- tables ------------------------------------------------------------------------------
def test_table_fold_scores_kfold():
    frame = pd.DataFrame(
        {
            "model": ["A"] * 10 + ["B"] * 10,
            "replication": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] * 2,
            "fold": [1, 2] * 10,
            # an AUC lies in [0, 1]: both models around 0.5, A − B the section's differences
            "auc": [0.5 - x for x in SECTION_1] + [0.5] * 10,
        }
    )
    table = ResultsTable.from_fold_scores(frame, score="auc")  # higher is better
    res = bayesian_correlated_ttest(table, "A", "B", rope=0.01)
    # "A better" means a higher auc: the same probabilities as the loss table of section 1
    assert all(
        as_printed(p, printed)
        for p, printed in zip(res.probabilities, ("0.161755", "0.338245", "0.5"))
    )
    assert res.models == ("A", "B")
    # the posterior is of auc(A) − auc(B), in the score's own units
    assert res.direction == "higher" and res.loss_name == "auc"
    assert res.location == pytest.approx(-np.mean(SECTION_1), abs=1e-15)
    low, high = res.credible_interval(0.05)
    assert low < res.location < high
    assert res.decision(0.16).startswith("A has higher auc than B")
    flipped = bayesian_correlated_ttest(table, "B", "A", rope=0.01)
    assert flipped.prob_a_better == pytest.approx(res.prob_b_better)


def test_table_per_record_matches_array():
    rng = np.random.default_rng(2)
    r, k, n = 2, 5, 50
    rows = []
    fold_diffs = np.zeros((r, k))
    for rep in range(r):
        folds = rng.permutation(np.repeat(np.arange(k), n // k))
        la = (rng.random(n) < 0.25).astype(float)
        lb = (rng.random(n) < 0.2).astype(float)
        for j in range(k):
            fold_diffs[rep, j] = la[folds == j].mean() - lb[folds == j].mean()
        for rec in range(n):
            rows.append(("A", rep, int(folds[rec]), rec, la[rec]))
            rows.append(("B", rep, int(folds[rec]), rec, lb[rec]))
    table = ResultsTable(
        pd.DataFrame(rows, columns=["model", "replication", "fold", "record", "loss"])
    )
    res = bayesian_correlated_ttest(table, "A", "B", rope=0.01)
    expected = bayesian_correlated_ttest_array(fold_diffs, rope=0.01)
    assert res.probabilities == pytest.approx(expected.probabilities, rel=1e-12)
    assert res.test_train_ratio == pytest.approx(0.25)  # 10 of 50 records validate
    assert res.design == table.design.describe()


def test_table_single_holdout_is_rejected():
    frame = pd.DataFrame(
        {"model": ["A", "B"], "replication": [1, 1], "fold": [1, 1], "score": [0.8, 0.7]}
    )
    table = ResultsTable.from_fold_scores(frame, score="score", test_train_ratio=0.5)
    with pytest.raises(DesignError, match="at least 2 splits"):
        bayesian_correlated_ttest(table)


@pytest.mark.parametrize("rope", ["x", None, -0.01, float("nan"), float("inf")])
def test_a_rope_that_is_not_a_non_negative_number_is_a_clear_error(rope: object) -> None:
    from cvreport.errors import CVReportError
    from cvreport.methods.bayesian import bayesian_correlated_ttest_array

    with pytest.raises(CVReportError, match="rope must be a non-negative half-width"):
        bayesian_correlated_ttest_array([0.01, 0.02, -0.01, 0.03], rope=rope)  # type: ignore[arg-type]
