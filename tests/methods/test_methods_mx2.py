"""Tests on m×2 designs: Dietterich's t, Alpaydın's F, calibrated F, blocked 3×2 t, Yıldız's t.

Numbers come from docs/methods.md, Wang, Li & Li (2017) Table 2, Alpaydın (1999) and hand computation
written out below; the table-level functions are checked against differences
computed here from the raw long-format data.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from cvreport import arrays, splits
from cvreport.data.table import ResultsTable
from cvreport.errors import (
    CVReportError,
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    IntervalUndefinedError,
    PartitionWarning,
)
from cvreport.methods import mx2, mx2_ftest
from tests._printed import SECTION_1, assert_printed

# docs/methods.md test vector: rep 1 fold 1, rep 1 fold 2, rep 2 fold 1, ...
VECTOR = np.reshape(SECTION_1, (5, 2))
BLOCKED_VECTOR = np.array([0.03, 0.01, 0.02, 0.00, 0.04, 0.02]).reshape(3, 2)


# ---------------------------------------------------------------- docs/methods.md vectors
def test_dietterich_vector():
    res = arrays.paired_ttest_5x2cv(VECTOR)
    assert_printed(res.statistic, "0.953463")
    assert_printed(res.pvalue, "0.384142")
    assert res.df == 5
    assert res.distribution == "t"


def test_alpaydin_vector():
    res = arrays.combined_ftest_5x2cv(VECTOR)
    assert_printed(res.statistic, "0.909091")
    assert_printed(res.pvalue, "0.581985")
    assert res.df == (10.0, 5.0)


def test_yildiz_vector():
    res = arrays.combined_ttest_5x2cv(VECTOR)
    assert_printed(res.statistic, "1.507557")
    assert_printed(res.pvalue, "0.192031")
    assert res.df == 5


def test_blocked_vector():
    res = arrays.blocked_ttest_3x2cv(BLOCKED_VECTOR)
    assert_printed(res.standard_error**2, "1.666667e-4")
    assert_printed(res.statistic, "1.549193")
    assert_printed(res.pvalue, "0.182021")
    assert res.df == 5


def test_flat_vector_is_read_row_by_row():
    flat = VECTOR.reshape(-1)
    assert arrays.paired_ttest_5x2cv(flat).statistic == arrays.paired_ttest_5x2cv(VECTOR).statistic


def test_calibrated_statistic_equals_alpaydin_at_rho1_zero():
    f = arrays.combined_ftest_5x2cv(VECTOR).statistic
    cal = arrays.calibrated_ftest_5x2cv(VECTOR)
    assert cal.statistic == pytest.approx(f, rel=1e-15)
    assert cal.df == (7.0, 5.0)
    assert cal.pvalue == pytest.approx(stats.f.sf(f, 7, 5), rel=1e-12)
    # ρ1 scales the statistic by (1 − ρ1)
    assert arrays.calibrated_ftest_5x2cv(VECTOR, rho1=0.2).statistic == pytest.approx(0.8 * f)


# ---------------------------------------------------------------- Wang, Li & Li (2017) Table 2
# Wang, Li & Li (2017) Table 2 "Change in DOF of f with changes in ρ1 and ρ2", copied from the paper
# ("-" and "_" mark ρ1 > ρ2). Rows ρ1 = 0.00..0.50, columns ρ2 = 0.00..0.50.
WANG_LI_LI_2017_TABLE2 = """
0.00 10.000 9.804 9.259 8.475 7.576 6.667 5.814 5.051 4.386 3.817 3.333
0.05 - 9.780 9.238 8.457 7.561 6.656 5.806 5.044 4.381 3.813 3.331
0.10 _ _ 9.174 8.403 7.519 6.623 5.780 5.025 4.367 3.802 3.322
0.15 - _ _ 8.316 7.449 6.568 5.739 4.994 4.343 3.784 3.309
0.20 - _ _ _ 7.353 6.494 5.682 4.950 4.310 3.759 3.289
0.25 - _ _ _ _ 6.400 5.610 4.896 4.269 3.728 3.265
0.30 _ _ _ _ _ _ 5.525 4.831 4.219 3.690 3.236
0.35 _ _ _ _ _ _ _ 4.756 4.162 3.646 3.203
0.40 _ _ _ _ _ _ _ _ 4.098 3.597 3.165
0.45 _ _ _ _ _ _ _ _ _ 3.543 3.123
0.50 - - - - - - - - - - 3.077
"""


def _table2_cells():
    cells = []
    for line in WANG_LI_LI_2017_TABLE2.strip().splitlines():
        first, *values = line.split()
        for j, value in enumerate(values):
            if value not in ("-", "_"):
                cells.append((float(first), round(0.05 * j, 2), float(value)))
    return cells


def test_table2_has_every_cell_with_rho1_le_rho2():
    cells = _table2_cells()
    assert len(cells) == 66
    assert all(r1 <= r2 for r1, r2, _ in cells)


@pytest.mark.parametrize(("rho1", "rho2", "printed"), _table2_cells())
def test_wang_li_li_2017_table2(rho1, rho2, printed):
    assert round(mx2_ftest.calibrated_df1(rho1, rho2), 3) == pytest.approx(printed, abs=1e-9)
    res = arrays.calibrated_ftest_5x2cv(VECTOR, rho1=rho1, rho2=rho2)
    assert round(res.df[0], 3) == pytest.approx(printed, abs=1e-9)
    assert res.df[1] == 5.0


def test_wang_li_li_2017_named_cells():
    assert round(mx2_ftest.calibrated_df1(0, 0), 3) == 10.000
    assert round(mx2_ftest.calibrated_df1(0, 0.3), 3) == 5.814
    assert round(mx2_ftest.calibrated_df1(0.2, 0.5), 3) == 3.289
    assert round(mx2_ftest.calibrated_df1(0.5, 0.5), 3) == 3.077


def test_mean_df_is_5_sqrt2_arctan_sqrt2():
    closed = 5 * math.sqrt(2) * math.atan(math.sqrt(2))
    assert round(closed, 4) == 6.7551
    assert mx2_ftest.calibrated_df1_mean() == pytest.approx(closed, rel=1e-14)
    # the mean of 10 / (1 + 8ρ²) over ρ ∈ (0, ½), by quadrature
    integral, _ = integrate.quad(lambda r: 10 / (1 + 8 * r * r), 0, 0.5)
    assert integral / 0.5 == pytest.approx(closed, rel=1e-10)
    res = arrays.calibrated_ftest_5x2cv(VECTOR, df1="exact")
    assert round(res.df[0], 4) == 6.7551
    assert arrays.calibrated_ftest_5x2cv(VECTOR).df[0] == 7.0  # the paper rounds


@pytest.mark.parametrize("m", [2, 3, 5, 7, 10])
def test_mx2_extension_mean_df(m):
    a = math.sqrt(2 * (m - 1))
    closed = 4 * m * math.atan(a / 2) / a
    integral, _ = integrate.quad(lambda r: 2 * m / (1 + 2 * (m - 1) * r * r), 0, 0.5)
    assert mx2_ftest.calibrated_df1_mean(m) == pytest.approx(closed, rel=1e-12)
    assert mx2_ftest.calibrated_df1_mean(m) == pytest.approx(integral / 0.5, rel=1e-10)
    # with ρ1 ≠ 0, compare to quadrature too
    integral, _ = integrate.quad(lambda r: 2 * m / (1 + 0.09 + 2 * (m - 1) * r * r), 0, 0.5)
    assert mx2_ftest.calibrated_df1_mean(m, rho1=0.3) == pytest.approx(integral / 0.5, rel=1e-10)


def test_calibrated_df1_rules():
    d = np.tile([[0.02, -0.01]], (4, 1))
    res = arrays.calibrated_ftest_5x2cv(d)  # m = 4: extension, "paper" rounds the mean
    assert res.df == (float(round(mx2_ftest.calibrated_df1_mean(4))), 4.0)
    assert any("extension" in n for n in res.notes)
    assert arrays.calibrated_ftest_5x2cv(VECTOR, df1=8.5).df == (8.5, 5.0)
    with pytest.raises(CVReportError, match="df1"):
        arrays.calibrated_ftest_5x2cv(VECTOR, df1="bogus")
    with pytest.raises(CVReportError, match="either df1 or rho2"):
        arrays.calibrated_ftest_5x2cv(VECTOR, df1="exact", rho2=0.2)
    with pytest.raises(CVReportError, match="rho2"):
        arrays.calibrated_ftest_5x2cv(VECTOR, rho2=0.7)
    with pytest.raises(IntervalUndefinedError):
        arrays.calibrated_ftest_5x2cv(VECTOR).conf_int()


# ---------------------------------------------------------------- rejection boundaries
def _dietterich_with_t(t: float) -> np.ndarray:
    # replications 2..5 are (a, −a): s_i² = 2a²; replication 1 is (x, x): s_1² = 0.
    # Σ s² / 5 = 8a²/5, so t = x / (a √(8/5)).
    a = 0.01
    x = t * a * math.sqrt(8 / 5)
    return np.array([[x, x]] + [[a, -a]] * 4)


def test_t5_boundary_2571():
    # 2.571 is t(5)'s 97.5% quantile 2.5706 rounded to 3 decimals
    assert arrays.paired_ttest_5x2cv(_dietterich_with_t(2.571)).pvalue == pytest.approx(
        0.05, abs=5e-5
    )
    assert not arrays.paired_ttest_5x2cv(_dietterich_with_t(2.565)).reject(0.05)
    assert arrays.paired_ttest_5x2cv(_dietterich_with_t(2.577)).reject(0.05)


def _f_with_value(f: float) -> np.ndarray:
    # every replication (v + u, v − u): s_i² = 2u², Σ_j p² = 2(u² + v²) so
    # f = 5·2(u² + v²) / (2·5·2u²) = (u² + v²) / (2u²), i.e. v² = u²(2f − 1).
    u = 0.01
    v = u * math.sqrt(2 * f - 1)
    return np.array([[v + u, v - u]] * 5)


def test_f10_5_boundary_474():
    assert arrays.combined_ftest_5x2cv(_f_with_value(4.74)).statistic == pytest.approx(4.74)
    assert arrays.combined_ftest_5x2cv(_f_with_value(4.735)).pvalue > 0.05
    assert arrays.combined_ftest_5x2cv(_f_with_value(4.745)).pvalue < 0.05
    assert arrays.combined_ftest_5x2cv(_f_with_value(4.74)).pvalue == pytest.approx(0.05, abs=2e-4)


def test_f7_5_boundary_4876():
    assert arrays.calibrated_ftest_5x2cv(_f_with_value(4.876)).pvalue == pytest.approx(
        0.05, abs=2e-5
    )
    assert not arrays.calibrated_ftest_5x2cv(_f_with_value(4.87)).reject()
    assert arrays.calibrated_ftest_5x2cv(_f_with_value(4.882)).reject()


# ---------------------------------------------------------------- hand-worked examples
HAND = np.array([[0.10, 0.06], [0.08, 0.08], [0.04, 0.10], [0.07, 0.05], [0.09, 0.07]])
# s_i² = (p_i1 − p_i2)² / 2 for each replication, written out:
HAND_S2 = [0.04**2 / 2, 0.0, 0.06**2 / 2, 0.02**2 / 2, 0.02**2 / 2]  # Σ = 0.0030


def test_hand_dietterich():
    assert sum(HAND_S2) == pytest.approx(0.0030)
    se = math.sqrt(0.0030 / 5)  # 0.0244949
    t = 0.10 / se  # 4.082483
    p = 2 * stats.t.sf(t, 5)
    res = arrays.paired_ttest_5x2cv(HAND)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    # all ten numerators, e.g. p_3^(1) = 0.04 gives 0.04 / se
    assert res.alternative_statistics[2][0] == pytest.approx(0.04 / se)
    expected_rejections = sum(2 * stats.t.sf(abs(x / se), 5) <= 0.05 for x in HAND.ravel())
    assert res.rejections == expected_rejections == 7  # |p| ≥ 0.063 rejects
    assert res.count_rejections(0.001) == sum(
        2 * stats.t.sf(abs(x / se), 5) <= 0.001 for x in HAND.ravel()
    )
    low, high = res.conf_int(0.05)
    q = stats.t.ppf(0.975, 5)
    assert (low, high) == pytest.approx((0.10 - q * se, 0.10 + q * se), rel=1e-12)
    assert res.estimate == pytest.approx(HAND.mean())


def test_hand_dietterich_one_sided():
    se = math.sqrt(0.0030 / 5)
    greater = arrays.paired_ttest_5x2cv(HAND, alternative="greater")
    less = arrays.paired_ttest_5x2cv(HAND, alternative="less")
    assert greater.pvalue == pytest.approx(stats.t.sf(0.10 / se, 5), rel=1e-12)
    assert less.pvalue == pytest.approx(stats.t.cdf(0.10 / se, 5), rel=1e-12)
    assert less.conf_int()[0] == -math.inf
    assert less.conf_int()[1] == pytest.approx(0.10 + stats.t.ppf(0.95, 5) * se)


def test_hand_alpaydin():
    sum_p2 = 0.10**2 + 0.06**2 + 0.08**2 + 0.08**2 + 0.04**2 + 0.10**2 + 0.07**2 + 0.05**2
    sum_p2 += 0.09**2 + 0.07**2  # = 0.0584
    f = sum_p2 / (2 * 0.0030)  # 9.733333
    res = arrays.combined_ftest_5x2cv(HAND)
    assert sum_p2 == pytest.approx(0.0584)
    assert res.statistic == pytest.approx(f, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.f.sf(f, 10, 5), rel=1e-12)
    with pytest.raises(IntervalUndefinedError):
        res.conf_int()


def test_hand_calibrated_with_rhos():
    # ρ1 = 0.1, ρ2 = 0.3: F = 0.9/2 · 0.0584 / 0.0030, f = 10 / (1 + 0.01 + 0.72)
    res = arrays.calibrated_ftest_5x2cv(HAND, rho1=0.1, rho2=0.3)
    statistic = 0.45 * 0.0584 / 0.0030
    df1 = 10 / 1.73
    assert res.statistic == pytest.approx(statistic, rel=1e-12)
    assert res.df == pytest.approx((df1, 5.0))
    assert res.pvalue == pytest.approx(stats.f.sf(statistic, df1, 5), rel=1e-10)
    assert res.rho1 == 0.1 and res.rho2 == 0.3 and res.df1_rule == "rho2"


def test_hand_blocked_3x2():
    mu = [0.05, 0.01, 0.03, 0.03, 0.02, 0.04]  # mean 0.03
    deviations = [0.02, -0.02, 0.0, 0.0, -0.01, 0.01]
    var = sum(x * x for x in deviations) / 6  # 0.0010 / 6
    t = 0.03 / math.sqrt(var)
    res = arrays.blocked_ttest_3x2cv(np.array(mu).reshape(3, 2))
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(t, 5), rel=1e-12)
    q = stats.t.ppf(0.975, 5)
    assert res.conf_int() == pytest.approx((0.03 - q * math.sqrt(var), 0.03 + q * math.sqrt(var)))


def test_hand_blocked_mx2_extension():
    # 5×2 BCV: divisor 10, t(9)
    mean = HAND.mean()  # 0.074
    var = ((HAND - mean) ** 2).sum() / 10
    res = arrays.blocked_ttest_3x2cv(HAND)
    assert mean == pytest.approx(0.074)
    assert res.df == 9
    assert res.statistic == pytest.approx(mean / math.sqrt(var), rel=1e-12)
    assert any("extension" in n for n in res.notes)


def test_hand_yildiz():
    mean = 0.74 / 10
    t = math.sqrt(10) * mean / math.sqrt(0.0030 / 5)
    res = arrays.combined_ttest_5x2cv(HAND)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(t, 5), rel=1e-12)
    se = math.sqrt(0.0030 / 5) / math.sqrt(10)
    q = stats.t.ppf(0.975, 5)
    assert res.conf_int() == pytest.approx((mean - q * se, mean + q * se))


# ---------------------------------------------------------------- degenerate data
FUNCTIONS = [
    arrays.paired_ttest_5x2cv,
    arrays.combined_ftest_5x2cv,
    arrays.calibrated_ftest_5x2cv,
    arrays.blocked_ttest_3x2cv,
    arrays.combined_ttest_5x2cv,
]


@pytest.mark.parametrize("func", FUNCTIONS)
def test_all_zero_differences(func):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("error", RuntimeWarning)
        res = func(np.zeros((5, 2)))
    assert res.statistic == 0.0
    assert res.pvalue == 1.0
    assert res.warnings and "never differ" in res.warnings[0]
    assert [w.category for w in caught] == [DegenerateStatisticWarning]
    assert not res.reject()


@pytest.mark.parametrize("func", FUNCTIONS)
def test_all_equal_nonzero_differences(func):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("error", RuntimeWarning)
        res = func(np.full((5, 2), 0.1))
    assert math.isinf(res.statistic) and res.statistic > 0
    assert res.pvalue == 0.0
    assert "zero estimated variance" in res.warnings[0]
    assert [w.category for w in caught] == [DegenerateStatisticWarning]


def test_degenerate_one_sided_against_direction():
    with pytest.warns(DegenerateStatisticWarning):
        res = arrays.paired_ttest_5x2cv(np.full((5, 2), 0.1), alternative="less")
    assert res.statistic == math.inf
    assert res.pvalue == 1.0


def test_rounding_does_not_hide_zero_variance():
    # 0.1 + 0.2 style rounding: every value identical but not representable exactly
    value = 0.1 + 0.2
    with pytest.warns(DegenerateStatisticWarning):
        res = arrays.blocked_ttest_3x2cv(np.full((3, 2), value))
    assert res.statistic == math.inf


@pytest.mark.parametrize("func", FUNCTIONS)
def test_differences_equal_up_to_rounding_are_degenerate(func):
    # per-fold scores 0.8 − 0.7 and 0.5 − 0.4 are both 0.1 but differ in the last
    # bit (0.10000000000000009, 0.09999999999999998): s_i² = 0 for every
    # replication, so statistic +inf and p = 0 with a warning, not t ≈ 1e15.
    d = np.array([[0.8 - 0.7, 0.5 - 0.4]] * 5)
    assert d[0, 0] != d[0, 1]
    with pytest.warns(DegenerateStatisticWarning, match="zero estimated variance"):
        res = func(d)
    assert res.statistic == math.inf
    assert res.pvalue == 0.0


def test_numerator_zero_only_for_dietterich():
    d = VECTOR.copy()
    d[0, 0] = 0.0  # numerator 0, variance non-zero: a regular statistic of 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = arrays.paired_ttest_5x2cv(d)
    assert res.statistic == 0.0 and res.pvalue == pytest.approx(1.0)
    assert res.warnings == ()


def test_bad_input_raises_data_error():
    with pytest.raises(DataError, match="m, 2"):
        arrays.paired_ttest_5x2cv(np.zeros((5, 3)))
    with pytest.raises(DataError, match="non-finite"):
        arrays.combined_ftest_5x2cv([[0.1, np.nan], [0.0, 0.1]])
    with pytest.raises(CVReportError, match="alternative"):
        arrays.paired_ttest_5x2cv(VECTOR, alternative="bigger")


# ---------------------------------------------------------------- kernels
def test_kernels_vectorise_over_batch():
    rng = np.random.default_rng(0)
    batch = rng.normal(0, 0.02, size=(3, 4, 5, 2))
    batch[0, 0] = 0.0  # a degenerate element inside the batch
    kernels = {
        "t": mx2.paired_ttest_5x2cv_kernel(batch),
        "f": mx2_ftest.combined_ftest_5x2cv_kernel(batch),
        "cal": mx2_ftest.calibrated_ftest_5x2cv_kernel(batch, df1=mx2_ftest.calibrated_df1_mean()),
        "blocked": mx2.blocked_ttest_3x2cv_kernel(batch),
        "yildiz": mx2.combined_ttest_5x2cv_kernel(batch),
    }
    for k in kernels.values():
        assert k.statistic.shape == (3, 4)
        assert k.pvalue.shape == (3, 4)
    assert kernels["t"].statistics.shape == (3, 4, 5, 2)
    assert kernels["t"].degenerate[0, 0] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateStatisticWarning)
        for i in range(3):
            for j in range(4):
                d = batch[i, j]
                assert kernels["t"].statistic[i, j] == arrays.paired_ttest_5x2cv(d).statistic
                assert kernels["f"].pvalue[i, j] == arrays.combined_ftest_5x2cv(d).pvalue
                assert (
                    kernels["cal"].pvalue[i, j]
                    == arrays.calibrated_ftest_5x2cv(d, df1="exact").pvalue
                )
                assert kernels["blocked"].pvalue[i, j] == arrays.blocked_ttest_3x2cv(d).pvalue
                assert kernels["yildiz"].pvalue[i, j] == arrays.combined_ttest_5x2cv(d).pvalue


def test_kernels_emit_no_warnings_on_large_batches():
    rng = np.random.default_rng(1)
    batch = np.round(rng.normal(0, 0.02, size=(100_000, 5, 2)), 2)
    batch[:100] = 0.0
    batch[100:200] = 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kernel in (
            mx2.paired_ttest_5x2cv_kernel,
            mx2_ftest.combined_ftest_5x2cv_kernel,
            mx2_ftest.calibrated_ftest_5x2cv_kernel,
            mx2.blocked_ttest_3x2cv_kernel,
            mx2.combined_ttest_5x2cv_kernel,
        ):
            k = kernel(batch)
            assert np.all(np.isfinite(k.pvalue))
            assert not np.any(np.isnan(k.statistic))
            assert np.all(k.pvalue[:100] == 1.0)
            assert np.all(k.pvalue[100:200] == 0.0)


# ---------------------------------------------------------------- table level

BCV_TRAINING_BLOCKS = [{1, 2, 3, 4}, {1, 3, 5, 7}, {1, 2, 5, 6}, {1, 4, 5, 8}, {1, 3, 6, 8}]


def long_frame(folds: np.ndarray, losses: dict[str, np.ndarray], labels=None) -> pd.DataFrame:
    """Long data from fold membership (n, m) and per-model losses (n, m)."""
    n, m = folds.shape
    fold_labels = labels or ("a", "b")
    rows = []
    for model, loss in losses.items():
        for i in range(m):
            for r in range(n):
                rows.append((f"rep{i}", fold_labels[folds[r, i]], model, r, loss[r, i]))
    return pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])


def bcv_folds(n: int, rng: np.random.Generator) -> np.ndarray:
    order = rng.permutation(n)
    block = np.empty(n, dtype=int)
    block[order] = np.arange(n) % 8 + 1  # deal shuffled records into blocks D1..D8
    return np.stack([np.where(np.isin(block, list(s)), 0, 1) for s in BCV_TRAINING_BLOCKS], 1)


def random_folds(n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    return np.stack([rng.permutation(np.arange(n) % 2) for _ in range(m)], axis=1)


def independent_differences(frame: pd.DataFrame, a: str, b: str) -> np.ndarray:
    # difference of sums over the common count, as docs/methods.md prescribes: equal 0/1
    # differences then give equal floats (a difference of rounded means may not)
    grouped = frame.groupby(["replication", "fold", "model"])["loss"]
    sums = grouped.sum().unstack("model")
    counts = grouped.count().unstack("model")
    diff = ((sums[a] - sums[b]) / counts[a]).unstack("fold")
    return diff.sort_index().to_numpy()


TABLE_FUNCTIONS = [
    ("paired_ttest_5x2cv", mx2.paired_ttest_5x2cv, arrays.paired_ttest_5x2cv),
    ("combined_ftest_5x2cv", mx2_ftest.combined_ftest_5x2cv, arrays.combined_ftest_5x2cv),
    ("calibrated_ftest_5x2cv", mx2_ftest.calibrated_ftest_5x2cv, arrays.calibrated_ftest_5x2cv),
    ("blocked_ttest_3x2cv", mx2.blocked_ttest_3x2cv, arrays.blocked_ttest_3x2cv),
    ("combined_ttest_5x2cv", mx2.combined_ttest_5x2cv, arrays.combined_ttest_5x2cv),
]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(2, 6),
    n=st.integers(6, 40),
    binary=st.booleans(),
)
def test_table_equals_array_of_differences(seed, m, n, binary):
    rng = np.random.default_rng(seed)
    folds = random_folds(n, m, rng)
    if binary:
        losses = {k: rng.integers(0, 2, size=(n, m)).astype(float) for k in ("A", "B")}
    else:
        losses = {k: rng.gamma(2.0, 0.3, size=(n, m)) for k in ("A", "B")}
    frame = long_frame(folds, losses)
    table = ResultsTable(frame)
    diffs = independent_differences(frame, "A", "B")
    for name, table_level, array_level in TABLE_FUNCTIONS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateStatisticWarning)
            warnings.simplefilter("ignore", PartitionWarning)
            from_table = table_level(table, "A", "B")
            from_array = array_level(diffs)
        assert from_table.test == from_array.test == name
        assert from_table.statistic == pytest.approx(from_array.statistic, rel=1e-12, abs=1e-14)
        assert from_table.pvalue == pytest.approx(from_array.pvalue, rel=1e-12, abs=1e-14)
        assert from_table.df == from_array.df
        assert from_table.models == ("A", "B")


def test_table_level_fills_context():
    rng = np.random.default_rng(3)
    folds = bcv_folds(80, rng)
    losses = {"tree": rng.integers(0, 2, (80, 5)), "logit": rng.integers(0, 2, (80, 5))}
    frame = long_frame(folds, losses)
    table = ResultsTable(frame)
    res = mx2.paired_ttest_5x2cv(table)  # a, b default to the two models
    assert res.models == ("tree", "logit")
    assert res.design == table.design.describe()
    assert res.replication_labels == tuple(f"rep{i}" for i in range(5))
    assert res.fold_labels == ("a", "b")
    diffs = independent_differences(frame, "tree", "logit")
    assert res.statistic == pytest.approx(
        diffs[0, 0] / math.sqrt(((diffs[:, 0] - diffs[:, 1]) ** 2 / 2).sum() / 5)
    )
    # formula string with data=
    again = mx2.paired_ttest_5x2cv("loss ~ model | replication + fold", data=frame)
    assert again.statistic == pytest.approx(res.statistic)
    swapped = mx2.paired_ttest_5x2cv(table, "logit", "tree")
    assert swapped.statistic == pytest.approx(-res.statistic)


def test_calibrated_balanced_partitions_do_not_warn():
    rng = np.random.default_rng(4)
    folds = bcv_folds(80, rng)
    losses = {"A": rng.integers(0, 2, (80, 5)), "B": rng.integers(0, 2, (80, 5))}
    table = ResultsTable(long_frame(folds, losses))
    with warnings.catch_warnings():
        warnings.simplefilter("error", PartitionWarning)
        res = mx2_ftest.calibrated_ftest_5x2cv(table)
        mx2.blocked_ttest_3x2cv(table)
    assert res.balanced is True
    assert not any("balanced" in w for w in res.warnings)


def test_calibrated_unbalanced_partitions_warn():
    rng = np.random.default_rng(5)
    same = np.tile(rng.permutation(np.arange(80) % 2)[:, None], (1, 5))  # overlap n/2
    losses = {"A": rng.integers(0, 2, (80, 5)), "B": rng.integers(0, 2, (80, 5))}
    table = ResultsTable(long_frame(same, losses))
    with pytest.warns(PartitionWarning, match="not balanced"):
        res = mx2_ftest.calibrated_ftest_5x2cv(table)
    assert res.balanced is False
    assert any("not balanced" in w for w in res.warnings)


def test_design_mismatch_names_accepted_designs():
    rng = np.random.default_rng(6)
    folds = (np.arange(30) % 10)[:, None]
    losses = {"A": rng.random((30, 1)), "B": rng.random((30, 1))}
    table = ResultsTable(long_frame(folds, losses, labels=tuple(range(10))))
    for _, table_level, _ in TABLE_FUNCTIONS:
        with pytest.raises(DesignError, match="m×2"):
            table_level(table, "A", "B")


def test_degenerate_table_warns_once():
    n = 16
    folds = random_folds(n, 5, np.random.default_rng(7))
    same = np.zeros((n, 5))
    table = ResultsTable(long_frame(folds, {"A": same, "B": same}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mx2_ftest.combined_ftest_5x2cv(table)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    assert sum(w.category is DegenerateStatisticWarning for w in caught) == 1


def test_dietterich_kernel_alternative_pvalues_on_request():
    k = mx2.paired_ttest_5x2cv_kernel(VECTOR)
    assert k.pvalues is None  # the 2m p-values cost time in simulations
    k = mx2.paired_ttest_5x2cv_kernel(VECTOR, alternatives=True)
    assert k.pvalues is not None and k.pvalues.shape == (5, 2)
    se = math.sqrt(((VECTOR[:, 0] - VECTOR[:, 1]) ** 2 / 2).sum() / 5)
    np.testing.assert_allclose(k.pvalues, 2 * stats.t.sf(np.abs(VECTOR / se), 5), rtol=1e-12)


@pytest.mark.parametrize("n", [80, 150, 301])
def test_designed_partitions_pass_the_balance_check(n):
    rng = np.random.default_rng(n)
    designs = [
        (splits.BlockRegularizedCV(m=5, random_state=0), True),
        (splits.Balanced5x2CV(random_state=0), True),
        (splits.RandomMx2CV(m=5, random_state=0), False),
    ]
    for cv, balanced in designs:
        folds = np.empty((n, 5), dtype=int)
        for s, (_, test) in enumerate(cv.split(np.zeros((n, 1)))):
            folds[test, s // 2] = s % 2
        losses = {"A": rng.integers(0, 2, (n, 5)), "B": rng.integers(0, 2, (n, 5))}
        table = ResultsTable(long_frame(folds, losses))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = mx2_ftest.calibrated_ftest_5x2cv(table)
        assert res.balanced is balanced, type(cv).__name__
        assert any(w.category is PartitionWarning for w in caught) is not balanced
