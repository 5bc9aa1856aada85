"""The Wilcoxon signed-rank test over K-fold differences against scipy.stats.wilcoxon."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cvreport import arrays
from cvreport.errors import DataError, DegenerateStatisticWarning
from cvreport.methods.wilcoxon import wilcoxon_kfold_kernel


def test_hand_computed_exact_case():
    # ranks of |d|: 0.01→1, 0.015→2, 0.02→3, 0.03→4, 0.04→5; W− = 1, W+ = 14
    res = arrays.wilcoxon_kfold([0.02, -0.01, 0.03, 0.015, 0.04])
    assert res.statistic == 1.0
    assert res.pvalue == pytest.approx(2 * 2 / 32)  # P(W ≤ 1) = 2/32 under H0, two-sided
    greater = arrays.wilcoxon_kfold([0.02, -0.01, 0.03, 0.015, 0.04], alternative="greater")
    assert greater.statistic == 14.0 and greater.pvalue == pytest.approx(2 / 32)


@settings(max_examples=20, deadline=None)
@given(
    values=st.lists(st.integers(-6, 6).map(lambda x: x / 100), min_size=3, max_size=10).filter(
        lambda v: any(v)
    ),
    alternative=st.sampled_from(["two-sided", "less", "greater"]),
)
def test_matches_scipy_with_ties_and_zeros(values, alternative):
    d = np.asarray(values)
    ours = wilcoxon_kfold_kernel(d, alternative)
    theirs = stats.wilcoxon(d, alternative=alternative)
    assert float(ours.statistic) == pytest.approx(float(theirs.statistic), rel=1e-12)
    if np.isfinite(theirs.pvalue):
        assert float(ours.pvalue) == pytest.approx(float(theirs.pvalue), rel=1e-12)
    assert int(ours.nonzero) == np.count_nonzero(d)


def test_batch_rows_are_independent_tests():
    batch = np.array(
        [[0.02, -0.01, 0.03, 0.015, 0.04], [0.0] * 5, [-0.02, 0.01, -0.03, -0.015, -0.04]]
    )
    k = wilcoxon_kfold_kernel(batch)
    assert k.pvalue.tolist() == pytest.approx([0.125, 1.0, 0.125])
    assert k.degenerate.tolist() == [0, 1, 0]


def test_identical_models_explain_the_convention():
    with pytest.warns(DegenerateStatisticWarning, match="every fold difference is 0"):
        res = arrays.wilcoxon_kfold([0.0, 0.0, 0.0, 0.0])
    assert (res.statistic, res.pvalue) == (0.0, 1.0)


def test_bad_input_says_what_to_fix():
    with pytest.raises(DataError, match="1-D array"):
        arrays.wilcoxon_kfold([[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(DataError, match="non-finite"):
        arrays.wilcoxon_kfold([0.1, np.nan, 0.2])


def test_many_folds_go_to_scipy_row_by_row():
    d = np.random.default_rng(4).normal(0.01, 0.02, size=(2, 20))
    k = wilcoxon_kfold_kernel(d, "less")
    for row, statistic, pvalue in zip(d, k.statistic, k.pvalue, strict=True):
        theirs = stats.wilcoxon(row, alternative="less")
        assert (statistic, pvalue) == pytest.approx((theirs.statistic, theirs.pvalue), rel=1e-12)


def test_a_batch_with_ties_is_one_computation():
    # scipy takes a permutation test per tied row; the kernel enumerates sign flips once
    d = np.random.default_rng(5).integers(-3, 4, size=(500, 10)) / 50
    k = wilcoxon_kfold_kernel(d)
    some = [0, 17, 499]
    expected = [stats.wilcoxon(d[i]).pvalue if d[i].any() else 1.0 for i in some]
    assert k.pvalue[some].tolist() == pytest.approx(expected, rel=1e-12)
