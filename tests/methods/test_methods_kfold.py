"""The K-fold cross-validated paired t test (docs/methods.md; Alpaydın (2014) eq. 19.14)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from cvreport import arrays
from cvreport.data.table import ResultsTable
from cvreport.errors import (
    CVReportError,
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    IntervalUndefinedError,
)
from cvreport.methods import kfold

HAND = [0.03, 0.01, 0.02, 0.06]


def test_hand_example():
    # mean 0.03; deviations 0, −0.02, −0.01, 0.03; Σ = 0.0014; S² = 0.0014 / 3
    s = math.sqrt(0.0014 / 3)
    t = math.sqrt(4) * 0.03 / s  # 2.777460
    res = arrays.paired_ttest_kfold(HAND)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert round(res.statistic, 6) == 2.777460
    assert res.df == 3
    assert res.pvalue == pytest.approx(2 * stats.t.sf(t, 3), rel=1e-12)
    assert res.estimate == pytest.approx(0.03)
    q = stats.t.ppf(0.975, 3)
    assert res.conf_int() == pytest.approx((0.03 - q * s / 2, 0.03 + q * s / 2), rel=1e-12)
    assert res.nobs == 4


def test_one_sided_as_in_seed():
    # H0: μ ≥ 0 vs H1: μ < 0 ("less": A has lower loss)
    d = [-0.03, -0.01, -0.02, -0.06]
    s = math.sqrt(0.0014 / 3)
    less = arrays.paired_ttest_kfold(d, alternative="less")
    assert less.pvalue == pytest.approx(stats.t.cdf(-2 * 0.03 / s, 3), rel=1e-12)
    assert less.conf_int()[0] == -math.inf
    assert arrays.paired_ttest_kfold(d, alternative="greater").pvalue == pytest.approx(
        1 - less.pvalue, rel=1e-12
    )


def test_alpaydin_critical_values():
    # t_{0.025, 9} = 2.26 and t_{0.025, 29} = 2.05 (two-sided at α = 0.05)
    for k, crit in [(10, 2.262), (30, 2.045)]:
        base = np.tile([1.0, -1.0], k // 2)
        s = np.std(base, ddof=1)
        for t, rejects in [(crit - 0.01, False), (crit + 0.01, True)]:
            d = base + t * s / math.sqrt(k)  # shifts the mean, keeps S
            res = arrays.paired_ttest_kfold(d)
            assert res.statistic == pytest.approx(t, rel=1e-9)
            assert res.reject(0.05) is rejects


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(2, 30), elements=st.floats(-1, 1, width=32)),
    st.sampled_from(["two-sided", "less", "greater"]),
)
def test_agrees_with_scipy(d, alternative):
    if np.all(d == d[0]):
        return  # degenerate: scipy returns NaN, covered below
    ref = stats.ttest_1samp(d, 0.0, alternative=alternative)
    if not np.isfinite(ref.statistic):
        return
    res = arrays.paired_ttest_kfold(d, alternative=alternative)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-7, abs=1e-9)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-6, abs=1e-12)
    ci = ref.confidence_interval(0.9)
    assert res.conf_int(0.1) == pytest.approx((ci.low, ci.high), rel=1e-7, abs=1e-12)


def test_degenerate_zero_and_equal():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("error", RuntimeWarning)
        zero = arrays.paired_ttest_kfold(np.zeros(10))
        equal = arrays.paired_ttest_kfold(np.full(10, -0.02))
    assert (zero.statistic, zero.pvalue) == (0.0, 1.0)
    assert equal.statistic == -math.inf and equal.pvalue == 0.0
    assert [w.category for w in caught] == [DegenerateStatisticWarning] * 2
    assert "never differ" in zero.warnings[0]
    assert "zero estimated variance" in equal.warnings[0]


def test_single_fold():
    with pytest.warns(DegenerateStatisticWarning, match="single fold"):
        res = arrays.paired_ttest_kfold([0.05])
    assert (res.statistic, res.pvalue, res.df) == (0.0, 1.0, 0.0)
    with pytest.raises(IntervalUndefinedError):
        res.conf_int()


def test_kernel_vectorises():
    rng = np.random.default_rng(0)
    batch = rng.normal(0.01, 0.02, size=(50_000, 10))
    batch[0] = 0.0
    batch[1] = 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = kfold.paired_ttest_kfold_kernel(batch)
    ref = stats.ttest_1samp(batch[2:], 0.0, axis=-1)
    np.testing.assert_allclose(k.statistic[2:], ref.statistic, rtol=1e-10)
    np.testing.assert_allclose(k.pvalue[2:], ref.pvalue, rtol=1e-8)
    assert (k.statistic[0], k.pvalue[0]) == (0.0, 1.0)
    assert (k.statistic[1], k.pvalue[1]) == (math.inf, 0.0)
    single = kfold.paired_ttest_kfold_kernel(batch[:, :1])
    assert np.all(single.pvalue == 1.0) and np.all(single.degenerate == 3)


def test_bad_input():
    with pytest.raises(DataError):
        arrays.paired_ttest_kfold([[0.1, 0.2]])
    with pytest.raises(DataError):
        arrays.paired_ttest_kfold([0.1, math.inf])
    with pytest.raises(CVReportError):
        arrays.paired_ttest_kfold([0.1, 0.2], alternative="two_sided")


# ---------------------------------------------------------------- table level


def kfold_frame(n: int, k: int, rng: np.random.Generator, m: int = 1) -> pd.DataFrame:
    frames = []
    for rep in range(m):
        fold = rng.permutation(np.arange(n) % k)
        for model, loss in (("A", rng.random(n)), ("B", rng.random(n))):
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


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 10),
    alternative=st.sampled_from(["two-sided", "less", "greater"]),
)
def test_table_equals_arrays(seed, k, alternative):
    rng = np.random.default_rng(seed)
    frame = kfold_frame(4 * k, k, rng)
    # difference of sums over the common count, as the table takes it (docs/methods.md):
    # with two folds a difference of rounded means can move a near-zero S in the last bits
    grouped = frame.groupby(["fold", "model"])["loss"]
    sums, counts = grouped.sum().unstack("model"), grouped.count().unstack("model")
    diffs = ((sums["A"] - sums["B"]) / counts["A"]).sort_index().to_numpy()
    res = kfold.paired_ttest_kfold(ResultsTable(frame), "A", "B", alternative=alternative)
    ref = arrays.paired_ttest_kfold(diffs, alternative=alternative)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.conf_int() == pytest.approx(ref.conf_int(), rel=1e-12)
    assert res.models == ("A", "B")


def test_table_design_errors():
    rng = np.random.default_rng(1)
    repeated = ResultsTable(kfold_frame(40, 5, rng, m=3))
    with pytest.raises(DesignError, match="K-fold"):
        kfold.paired_ttest_kfold(repeated)
    holdout = ResultsTable(kfold_frame(40, 1, rng))
    with pytest.raises(DesignError, match="corrected_repeated_kfold_ttest"):
        kfold.paired_ttest_kfold(holdout)


def test_formula_and_fold_scores():
    rng = np.random.default_rng(2)
    frame = kfold_frame(50, 5, rng)
    by_table = kfold.paired_ttest_kfold(ResultsTable(frame))
    by_formula = kfold.paired_ttest_kfold("loss ~ model | replication + fold", data=frame)
    assert by_formula.statistic == pytest.approx(by_table.statistic)
    if not hasattr(ResultsTable, "from_fold_scores"):
        pytest.skip("per-fold scores not available")
    scores = frame.groupby(["replication", "fold", "model"], as_index=False)["loss"].mean()
    scores["score"] = 1 - scores["loss"]  # accuracy-like, higher is better
    table = ResultsTable.from_fold_scores(scores, score="score", direction="higher")
    res = kfold.paired_ttest_kfold(table, "A", "B")
    # score differences are the negated loss differences: t and the estimate flip, p stays
    assert res.statistic == pytest.approx(-by_table.statistic, rel=1e-9)
    assert res.estimate == pytest.approx(-by_table.estimate, rel=1e-9)
    assert res.pvalue == pytest.approx(by_table.pvalue, rel=1e-9)
    assert res.direction == "higher"
    loss_low, loss_high = by_table.conf_int()
    assert res.conf_int() == pytest.approx((-loss_high, -loss_low), rel=1e-9)
    # H1 "A scores higher" is H1 "A has the lower loss"
    greater = kfold.paired_ttest_kfold(table, "A", "B", alternative="greater")
    less_loss = kfold.paired_ttest_kfold(ResultsTable(frame), alternative="less")
    assert greater.pvalue == pytest.approx(less_loss.pvalue, rel=1e-9)


def test_equal_fold_differences_of_unequal_sums_are_degenerate():
    # fold 1: A errs on 1 of 10 records, B on 3 (p = 1/10 − 3/10 = −1/5);
    # fold 2: A errs on 3 of 10, B on 5 (p = 3/10 − 5/10 = −1/5). The two
    # differences are equal, so S = 0 and the convention of docs/methods.md
    # applies: statistic −inf, p = 0 and a warning. Subtracting rounded means
    # gives −0.19999999999999998 and −0.2 and a silent t of about −1e16.
    errors = {(1, "A"): 1, (1, "B"): 3, (2, "A"): 3, (2, "B"): 5}
    frame = pd.DataFrame(
        [
            (0, fold, model, fold * 10 + r, int(r < errors[fold, model]))
            for fold in (1, 2)
            for model in ("A", "B")
            for r in range(10)
        ],
        columns=["replication", "fold", "model", "record", "loss"],
    )
    table = ResultsTable(frame)
    assert table.differences("A", "B").to_numpy().tolist() == [[-0.2, -0.2]]
    with pytest.warns(DegenerateStatisticWarning, match="zero estimated variance"):
        res = kfold.paired_ttest_kfold(table, "A", "B")
    assert (res.statistic, res.pvalue) == (-math.inf, 0.0)


def test_fold_scores_equal_up_to_rounding_are_degenerate():
    # A scores 0.1 more than B on every fold (0.8/0.7, 0.5/0.4, 0.9/0.8): S = 0, so
    # the accuracy difference +0.1 with zero variance gives +inf and p = 0 with a
    # warning (the floats 0.10000000000000009 and 0.09999999999999998 differ).
    scores = pd.DataFrame(
        {
            "fold": [1, 1, 2, 2, 3, 3],
            "model": ["A", "B"] * 3,
            "accuracy": [0.8, 0.7, 0.5, 0.4, 0.9, 0.8],
        }
    )
    table = ResultsTable.from_fold_scores(scores, score="accuracy", replication=None)
    with pytest.warns(DegenerateStatisticWarning, match="zero estimated variance"):
        res = kfold.paired_ttest_kfold(table, "A", "B")
    assert (res.statistic, res.pvalue) == (math.inf, 0.0)
