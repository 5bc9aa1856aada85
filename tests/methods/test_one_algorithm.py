"""One model against a target error p0: binomial, normal and t tests (docs/methods.md)."""

from __future__ import annotations

import math
import warnings
from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cvreport import arrays
from cvreport.data.table import ResultsTable
from cvreport.errors import CVReportError, DataError, DegenerateStatisticWarning, DesignError
from cvreport.methods import one_algorithm as one


# ---------------------------------------------------------------- binomial test
def test_hand_binomial():
    # N = 20 validation records, e = 5 errors, p0 = 0.1: P{X ≥ 5} = 1 − Σ_{x<5} C(20,x) p0^x (1−p0)^(20−x)
    below = sum(comb(20, x) * 0.1**x * 0.9 ** (20 - x) for x in range(5))
    res = arrays.binomial_test(5, 20, p0=0.1)
    assert res.pvalue == pytest.approx(1 - below, rel=1e-12)
    assert res.statistic == 5 and res.distribution == "binomial"
    assert res.estimate == 0.25 and res.alternative == "greater"
    less = arrays.binomial_test(5, 20, p0=0.1, alternative="less")
    at_most = sum(comb(20, x) * 0.1**x * 0.9 ** (20 - x) for x in range(6))
    assert less.pvalue == pytest.approx(at_most, rel=1e-12)
    two = arrays.binomial_test(5, 20, p0=0.1, alternative="two-sided")
    assert two.pvalue == pytest.approx(min(1.0, 2 * (1 - below)), rel=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 500),
    frac=st.floats(0, 1),
    p0=st.floats(0.01, 0.99),
    alternative=st.sampled_from(["less", "greater"]),
)
def test_binomial_against_scipy(n, frac, p0, alternative):
    x = round(frac * n)
    ref = stats.binomtest(x, n, p0, alternative=alternative)
    res = arrays.binomial_test(x, n, p0=p0, alternative=alternative)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-300)
    low, high = res.conf_int(0.05)
    ci = ref.proportion_ci(0.95, method="exact")
    assert (low, high) == pytest.approx((ci.low, ci.high), rel=1e-8, abs=1e-12)


def test_binomial_agrees_with_statsmodels():
    from statsmodels.stats.proportion import binom_test

    for x, n, p0 in [(15, 100, 0.1), (5, 100, 0.1), (0, 30, 0.2), (30, 30, 0.9)]:
        assert arrays.binomial_test(x, n, p0=p0).pvalue == pytest.approx(
            binom_test(x, n, p0, alternative="larger"), rel=1e-10
        )
        assert arrays.binomial_test(x, n, p0=p0, alternative="less").pvalue == pytest.approx(
            binom_test(x, n, p0, alternative="smaller"), rel=1e-10
        )


def test_binomial_two_sided_equals_scipy_at_half():
    # for p0 = ½ the doubling rule and scipy's likelihood rule coincide
    for x in range(0, 31):
        ref = stats.binomtest(x, 30, 0.5).pvalue
        assert arrays.binomial_test(x, 30, p0=0.5, alternative="two-sided").pvalue == pytest.approx(
            ref
        )


# ---------------------------------------------------------------- normal test
def test_hand_normal():
    # z = (15/100 − 0.1) / sqrt(0.1·0.9/100) = 0.05 / 0.03
    z = 0.05 / 0.03
    res = arrays.normal_test(15, 100, p0=0.1)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.norm.sf(z), rel=1e-12)
    assert res.distribution == "normal"
    half = stats.norm.ppf(0.975) * math.sqrt(0.15 * 0.85 / 100)
    two = arrays.normal_test(15, 100, p0=0.1, alternative="two-sided")
    assert two.pvalue == pytest.approx(2 * stats.norm.sf(z), rel=1e-12)
    assert two.conf_int() == pytest.approx((0.15 - half, 0.15 + half))


def test_normal_boundary_164():
    # reject if z > z_α = 1.64 at α = 0.05 (one-sided); N = 10000, p0 = 0.5, σ = 0.005
    assert arrays.normal_test(5083, 10000, p0=0.5).statistic == pytest.approx(1.66)
    assert arrays.normal_test(5083, 10000, p0=0.5).reject(0.05)
    assert not arrays.normal_test(5081, 10000, p0=0.5).reject(0.05)  # z = 1.62


def test_normal_small_sample_note():
    res = arrays.normal_test(2, 20, p0=0.1)  # N·p0 = 2 < 5
    assert any("binomial_test" in note for note in res.notes)


# ---------------------------------------------------------------- t test
def test_hand_ttest_error():
    e = [0.12, 0.15, 0.11, 0.14, 0.13]  # mean 0.13
    s = math.sqrt((0.01**2 + 0.02**2 + 0.02**2 + 0.01**2 + 0.0) / 4)  # S² = 0.001/4
    t = math.sqrt(5) * (0.13 - 0.1) / s
    res = arrays.ttest_error(e, p0=0.1)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.t.sf(t, 4), rel=1e-12)
    assert res.df == 4 and res.estimate == pytest.approx(0.13)
    low, high = res.conf_int()
    assert high == math.inf
    assert low == pytest.approx(0.13 - stats.t.ppf(0.95, 4) * s / math.sqrt(5))


def test_ttest_error_critical_value():
    # t_{0.05, 9} = 1.83
    base = np.tile([0.01, -0.01], 5)
    s = np.std(base, ddof=1)
    for t, rejects in [(1.82, False), (1.84, True)]:
        e = 0.2 + base + t * s / math.sqrt(10)
        res = arrays.ttest_error(e, p0=0.2)
        assert res.statistic == pytest.approx(t, rel=1e-9)
        assert res.reject() is rejects


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=2, max_size=30),
    st.floats(0.01, 0.99),
    st.sampled_from(["two-sided", "less", "greater"]),
)
def test_ttest_error_against_scipy(errors, p0, alternative):
    e = np.array(errors)
    if np.all(e == e[0]):
        return
    ref = stats.ttest_1samp(e, p0, alternative=alternative)
    if not np.isfinite(ref.statistic):
        return
    res = arrays.ttest_error(e, p0=p0, alternative=alternative)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-7, abs=1e-9)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-6, abs=1e-12)


def test_ttest_error_degenerate():
    with pytest.warns(DegenerateStatisticWarning, match="never differ"):
        res = arrays.ttest_error([0.2, 0.2, 0.2], p0=0.2)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    with pytest.warns(DegenerateStatisticWarning, match="zero estimated variance"):
        res = arrays.ttest_error([0.3, 0.3, 0.3], p0=0.2)
    assert (res.statistic, res.pvalue) == (math.inf, 0.0)
    with pytest.warns(DegenerateStatisticWarning, match="single fold"):
        res = arrays.ttest_error([0.3], p0=0.2)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)


def test_kernels_vectorise():
    x = np.arange(0, 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = one.binomial_test_kernel(x, 100, 0.3)
        kn = one.normal_test_kernel(x, 100, 0.3, "two-sided")
        kt = one.ttest_error_kernel(np.random.default_rng(0).random((1000, 10)), 0.5)
    assert k.pvalue.shape == (101,)
    assert np.all(np.diff(k.pvalue) <= 0)  # P(X ≥ x) falls with x
    assert k.pvalue[0] == 1.0
    assert kn.pvalue[30] == 1.0
    assert kt.statistic.shape == (1000,)


def test_validation():
    with pytest.raises(CVReportError, match="p0"):
        arrays.binomial_test(3, 10, p0=1.0)
    with pytest.raises(DataError):
        arrays.binomial_test(11, 10, p0=0.5)
    with pytest.raises(DataError):
        arrays.normal_test(2.5, 10, p0=0.5)
    with pytest.raises(CVReportError, match="alternative"):
        arrays.ttest_error([0.1, 0.2], p0=0.5, alternative="up")


# ---------------------------------------------------------------- table level


def frame_for(
    n: int, k: int, m: int, rng: np.random.Generator, binary: bool = True
) -> pd.DataFrame:
    frames = []
    for rep in range(m):
        fold = rng.permutation(np.arange(n) % k)
        for model, rate in (("A", 0.2), ("B", 0.3)):
            loss = (rng.random(n) < rate).astype(float) if binary else rng.random(n)
            frames.append(
                pd.DataFrame(
                    {
                        "replication": rep,
                        "fold": fold,
                        "model": model,
                        "record": np.arange(n),
                        "loss": loss,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def test_table_binomial_and_normal():
    rng = np.random.default_rng(0)
    frame = frame_for(200, 5, 1, rng)
    table = ResultsTable(frame)
    own = frame[frame["model"] == "A"]
    x, n = int(own["loss"].sum()), len(own)
    res = one.binomial_test(table, "A", p0=0.15)
    assert res.pvalue == pytest.approx(stats.binomtest(x, n, 0.15, alternative="greater").pvalue)
    assert res.model == "A" and res.nobs == n
    res = one.normal_test(table, "A", p0=0.15, alternative="two-sided")
    z = (x / n - 0.15) / math.sqrt(0.15 * 0.85 / n)
    assert res.statistic == pytest.approx(z)
    with pytest.raises(DataError, match="model="):
        one.binomial_test(table, p0=0.15)
    with pytest.raises(DataError, match="unknown model"):
        one.binomial_test(table, "C", p0=0.15)


def test_table_ttest_error():
    rng = np.random.default_rng(1)
    frame = frame_for(100, 10, 1, rng, binary=False)
    res = one.ttest_error(ResultsTable(frame), "B", p0=0.45, alternative="two-sided")
    folds = frame[frame["model"] == "B"].groupby("fold")["loss"].mean().sort_index()
    ref = stats.ttest_1samp(folds.to_numpy(), 0.45)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)
    repeated = one.ttest_error(ResultsTable(frame_for(60, 3, 2, rng)), "A", p0=0.2)
    assert repeated.df == 5 and any("replications" in note for note in repeated.notes)


def test_table_binomial_needs_binary_and_records():
    rng = np.random.default_rng(2)
    table = ResultsTable(frame_for(50, 5, 1, rng, binary=False))
    with pytest.raises(DataError):
        one.binomial_test(table, "A", p0=0.2)
    if hasattr(ResultsTable, "from_fold_scores"):
        scores = pd.DataFrame(
            {
                "replication": 0,
                "fold": [0, 1, 0, 1],
                "model": ["A", "A", "B", "B"],
                "score": [0.8, 0.7, 0.9, 0.6],
            }
        )
        table = ResultsTable.from_fold_scores(scores, score="score")
        with pytest.raises(DesignError):
            one.binomial_test(table, "A", p0=0.2)
