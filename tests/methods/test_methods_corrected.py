"""Resampled, corrected resampled and corrected repeated k-fold t tests (docs/methods.md)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from cvreport.data.table import ResultsTable
from cvreport.errors import DataError, DegenerateStatisticWarning, DesignError
from cvreport.methods.corrected import (
    corrected_resampled_ttest,
    corrected_resampled_ttest_array,
    paired_ttest_resampled,
    paired_ttest_resampled_array,
    paired_ttest_resampled_kernel,
)
from cvreport.methods.corrected_kfold import (
    corrected_repeated_kfold_ttest,
    corrected_repeated_kfold_ttest_array,
    corrected_repeated_kfold_ttest_kernel,
)
from cvreport.methods.resampled_t import ResampledTTestResult, corrected_resampled_ttest_kernel
from tests._printed import FOUR, SECTION_1, as_printed, t3_cdf


# -- docs/methods.md vector -----------------------------------------------------------
def test_repeated_kfold_vector():
    res = corrected_repeated_kfold_ttest_array(np.reshape(SECTION_1, (5, 2)))
    assert as_printed(res.statistic, "0.522233")
    assert as_printed(res.pvalue, "0.614117")
    assert res.df == 9
    assert res.test_train_ratio == 1.0
    assert res.variance_factor == pytest.approx(1 / 10 + 1)
    assert res.nobs == 10
    assert res.warnings == ()


def test_ten_by_ten_factor_and_df():
    rng = np.random.default_rng(3)
    d = rng.normal(0.01, 0.02, size=(10, 10))
    res = corrected_repeated_kfold_ttest_array(d)
    assert res.df == 99
    assert res.variance_factor == pytest.approx(1 / 100 + 1 / 9, rel=1e-15)
    # the statistic written out with plain Python sums
    values = [float(v) for v in d.ravel()]
    mean = sum(values) / 100
    s2 = sum((v - mean) ** 2 for v in values) / 99
    expected = mean / math.sqrt((1 / 100 + 1 / 9) * s2)
    assert res.statistic == pytest.approx(expected, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(expected), 99), rel=1e-10)


# -- hand-worked examples ----------------------------------------------------------------
def test_resampled_t_by_hand():
    # p = [0.02, -0.01, 0.03, 0.00]: mean 0.01, deviations 0.01, -0.02, 0.02, -0.01,
    # SS = 0.001, s² = 0.001/3, t = 0.01 / sqrt(s²/4) = 0.01 · sqrt(12000) = sqrt(1.2)
    res = paired_ttest_resampled_array(FOUR)
    assert res.statistic == pytest.approx(math.sqrt(1.2), rel=1e-12)
    assert res.df == 3
    assert res.pvalue == pytest.approx(2 * (1 - t3_cdf(math.sqrt(1.2))), rel=1e-10)
    assert res.estimate == pytest.approx(0.01)
    assert res.std_dev == pytest.approx(math.sqrt(0.001 / 3))
    assert res.test_train_ratio is None
    assert any("anti-conservative" in n.lower() for n in res.notes)


def test_corrected_resampled_t_by_hand():
    # n2/n1 = 1/2: c = 1/4 + 1/2 = 3/4, c·s² = 0.75 · 0.001/3 = 0.00025,
    # t = 0.01 / sqrt(0.00025), t² = 1e-4 / 2.5e-4 = 0.4
    res = corrected_resampled_ttest_array(FOUR, 0.5)
    assert res.statistic == pytest.approx(math.sqrt(0.4), rel=1e-12)
    assert res.pvalue == pytest.approx(2 * (1 - t3_cdf(math.sqrt(0.4))), rel=1e-10)
    assert res.variance_factor == pytest.approx(0.75)
    assert res.standard_error == pytest.approx(math.sqrt(0.00025))
    one_sided = corrected_resampled_ttest_array(FOUR, 0.5, alternative="greater")
    assert one_sided.pvalue == pytest.approx(1 - t3_cdf(math.sqrt(0.4)), rel=1e-10)
    less = corrected_resampled_ttest_array(FOUR, 0.5, alternative="less")
    assert less.pvalue == pytest.approx(t3_cdf(math.sqrt(0.4)), rel=1e-10)


def test_corrected_kfold_single_cv_by_hand():
    # one 4-fold CV: n2/n1 = 1/3, c = 1/4 + 1/3 = 7/12, t² = 1e-4 / (7/12 · 0.001/3) = 36/70
    res = corrected_repeated_kfold_ttest_array(FOUR)
    assert res.statistic == pytest.approx(math.sqrt(36 / 70), rel=1e-12)
    assert res.df == 3
    assert res.pvalue == pytest.approx(2 * (1 - t3_cdf(math.sqrt(36 / 70))), rel=1e-10)


def test_correction_is_more_conservative_than_resampled():
    plain = paired_ttest_resampled_array(SECTION_1)
    corrected = corrected_resampled_ttest_array(SECTION_1, 0.5)
    assert abs(corrected.statistic) < abs(plain.statistic)
    assert corrected.pvalue > plain.pvalue
    # t scales by sqrt((1/J) / (1/J + n2/n1))
    assert corrected.statistic == pytest.approx(plain.statistic * math.sqrt(0.1 / 0.6))


def test_conf_int_two_sided_and_one_sided():
    res = corrected_resampled_ttest_array(FOUR, 0.5)
    q = stats.t.ppf(0.975, 3)
    low, high = res.conf_int()
    assert low == pytest.approx(0.01 - q * math.sqrt(0.00025))
    assert high == pytest.approx(0.01 + q * math.sqrt(0.00025))
    less = corrected_resampled_ttest_array(FOUR, 0.5, alternative="less")
    low, high = less.conf_int()
    assert low == -math.inf
    assert high == pytest.approx(0.01 + stats.t.ppf(0.95, 3) * math.sqrt(0.00025))


# -- kernels -------------------------------------------------------------------------------
def test_kernel_batches_match_scalar_calls():
    rng = np.random.default_rng(0)
    d = rng.normal(0.0, 0.03, size=(4, 3, 6))
    ratio = np.array([0.25, 0.5, 1.0])
    kernel = corrected_resampled_ttest_kernel(d, ratio[:, np.newaxis].T, "less")
    assert kernel.statistic.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            one = corrected_resampled_ttest_array(d[i, j], float(ratio[j]), alternative="less")
            assert kernel.statistic[i, j] == pytest.approx(one.statistic, rel=1e-12)
            assert kernel.pvalue[i, j] == pytest.approx(one.pvalue, rel=1e-12)
    plain = paired_ttest_resampled_kernel(d)
    assert np.allclose(plain.variance_factor, 1 / 6)


def test_repeated_kfold_kernel_flattens_repetitions():
    rng = np.random.default_rng(1)
    d = rng.normal(size=(7, 5, 2))
    kernel = corrected_repeated_kfold_ttest_kernel(d)
    flat = corrected_resampled_ttest_kernel(d.reshape(7, 10), 1.0)
    np.testing.assert_allclose(kernel.statistic, flat.statistic)
    assert kernel.df == 9


def test_kernel_degenerate_codes_without_numpy_warnings():
    d = np.array([[0.1, 0.1, 0.1], [0.0, 0.0, 0.0], [-0.2, -0.2, -0.2], [0.1, 0.2, 0.3]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = corrected_resampled_ttest_kernel(d, 0.5, "two-sided")
    assert k.statistic[:3].tolist() == [math.inf, 0.0, -math.inf]
    assert k.pvalue[:3].tolist() == [0.0, 1.0, 0.0]
    assert k.degenerate.tolist() == [2, 1, 2, 0]
    less = corrected_resampled_ttest_kernel(d, 0.5, "less")
    assert less.pvalue[:3].tolist() == [1.0, 1.0, 0.0]


# -- degenerate results ----------------------------------------------------------------------
def test_identical_nonzero_differences_warn_and_give_inf():
    with pytest.warns(DegenerateStatisticWarning, match="variance"):
        res = corrected_resampled_ttest_array([0.02, 0.02, 0.02], 0.25)
    assert res.statistic == math.inf
    assert res.pvalue == 0.0
    assert res.degenerate
    assert "no information about variability" in res.warnings[0]
    assert "no information about variability" in res.summary().as_text().replace("\n    ", " ")


def test_models_never_differ():
    with pytest.warns(DegenerateStatisticWarning, match="never differ"):
        res = paired_ttest_resampled_array([0.0, 0.0, 0.0, 0.0])
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    assert res.conf_int() == (0.0, 0.0)


def test_bad_inputs():
    with pytest.raises(DesignError, match="at least 2 splits"):
        corrected_resampled_ttest_array([0.01], 0.5)
    with pytest.raises(DataError, match="non-finite"):
        paired_ttest_resampled_array([0.01, float("nan"), 0.02])
    with pytest.raises(ValueError, match="test_train_ratio"):
        corrected_resampled_ttest_array(FOUR, -1.0)
    with pytest.raises(ValueError, match="alternative"):
        paired_ttest_resampled_array(FOUR, alternative="smaller")
    with pytest.raises(DesignError, match="k >= 2"):
        corrected_repeated_kfold_ttest_array([[0.1], [0.2]])


def test_result_protocol():
    res = corrected_repeated_kfold_ttest_array(np.reshape(SECTION_1, (5, 2)))
    assert isinstance(res, ResampledTTestResult)
    statistic, pvalue = res
    assert (statistic, pvalue) == (res.statistic, res.pvalue)
    frame = res.to_frame()
    assert frame.loc[0, "test"] == "corrected_repeated_kfold_ttest"
    assert frame.loc[0, "df"] == 9
    html = res._repr_html_()
    assert "Bouckaert" in html
    text = res.summary().as_text()
    assert "variance factor" in text
    assert "1.1000" in text


# -- tables -------------------------------------------------------------------------------------
def kfold_frame(losses_a: np.ndarray, losses_b: np.ndarray, folds: np.ndarray) -> pd.DataFrame:
    """Per-record rows for r repetitions: losses (r, n) and fold codes (r, n)."""
    r, n = losses_a.shape
    frames = []
    for model, losses in (("A", losses_a), ("B", losses_b)):
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "replication": np.repeat(np.arange(1, r + 1), n),
                    "fold": folds.ravel() + 1,
                    "record": np.tile(np.arange(n), r),
                    "loss": losses.ravel(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def repeated_kfold_table() -> tuple[ResultsTable, np.ndarray]:
    rng = np.random.default_rng(7)
    r, k, n = 3, 4, 40
    folds = np.stack([rng.permutation(np.repeat(np.arange(k), n // k)) for _ in range(r)])
    losses_a = (rng.random((r, n)) < 0.3).astype(float)
    losses_b = (rng.random((r, n)) < 0.2).astype(float)
    fold_diffs = np.array(
        [
            [
                losses_a[i, folds[i] == j].mean() - losses_b[i, folds[i] == j].mean()
                for j in range(k)
            ]
            for i in range(r)
        ]
    )
    return ResultsTable(kfold_frame(losses_a, losses_b, folds)), fold_diffs


def test_table_repeated_kfold_matches_arrays(repeated_kfold_table):
    table, fold_diffs = repeated_kfold_table
    res = corrected_repeated_kfold_ttest(table, "A", "B")
    expected = corrected_repeated_kfold_ttest_array(fold_diffs)
    assert res.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert res.test_train_ratio == pytest.approx(1 / 3)  # 10 validation vs 30 training records
    assert res.df == 11
    assert res.models == ("A", "B")
    assert res.design == table.design.describe()
    assert any("Weka" in n for n in res.notes)
    swapped = corrected_repeated_kfold_ttest(table, "B", "A")
    assert swapped.statistic == pytest.approx(-res.statistic)
    given = corrected_repeated_kfold_ttest(table, "A", "B", test_train_ratio=0.5)
    assert given.variance_factor == pytest.approx(1 / 12 + 0.5)


def test_table_design_errors(repeated_kfold_table):
    table, _ = repeated_kfold_table
    with pytest.raises(DesignError, match="corrected_repeated_kfold_ttest"):
        corrected_resampled_ttest(table, "A", "B")
    with pytest.raises(DesignError, match="repeated hold-out"):
        paired_ttest_resampled(table, "A", "B")


def holdout_scores() -> pd.DataFrame:
    accuracy = {1: (0.80, 0.78), 2: (0.75, 0.76), 3: (0.82, 0.79), 4: (0.81, 0.81)}
    rows = [
        {"model": m, "replication": rep, "fold": 1, "accuracy": acc[i]}
        for rep, acc in accuracy.items()
        for i, m in enumerate(("A", "B"))
    ]
    return pd.DataFrame(rows)


def test_fold_scores_are_reported_in_the_score():
    table = ResultsTable.from_fold_scores(holdout_scores(), score="accuracy", test_train_ratio=0.5)
    # accuracy differences A − B: 0.02, -0.01, 0.03, 0.00: mean 0.01, S² = 1/3 · 10⁻³,
    # t = 0.01 / sqrt(S²/4) = √1.2 (uncorrected), 0.01 / sqrt((1/4 + 1/2) S²) = √0.4
    plain = paired_ttest_resampled(table, "A", "B")
    assert plain.statistic == pytest.approx(math.sqrt(1.2), rel=1e-9)
    assert plain.estimate == pytest.approx(0.01)
    assert (plain.loss_name, plain.direction) == ("accuracy", "higher")
    low, high = plain.conf_int()
    assert low < 0.01 < high and (low + high) / 2 == pytest.approx(0.01)
    corrected = corrected_resampled_ttest(table, "A", "B")
    assert corrected.statistic == pytest.approx(math.sqrt(0.4), rel=1e-9)
    assert corrected.test_train_ratio == 0.5
    # "greater" is about accuracy(A) − accuracy(B): the upper tail of t(3) at √0.4
    greater = corrected_resampled_ttest(table, "A", "B", alternative="greater")
    assert greater.pvalue == pytest.approx(stats.t.sf(math.sqrt(0.4), 3), rel=1e-12)
    assert greater.conf_int()[1] == math.inf


def test_fold_scores_without_ratio_need_one():
    table = ResultsTable.from_fold_scores(holdout_scores(), score="accuracy")
    with pytest.raises(DesignError, match="test_train_ratio"):
        corrected_resampled_ttest(table, "A", "B")
    res = corrected_resampled_ttest(table, "A", "B", test_train_ratio=0.5)
    assert res.statistic == pytest.approx(math.sqrt(0.4), rel=1e-9)


def test_fold_scores_kfold_default_ratio():
    frame = pd.DataFrame(
        {
            "model": ["A"] * 10 + ["B"] * 10,
            "replication": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] * 2,
            "fold": [1, 2] * 10,
            "loss": SECTION_1 + [0.0] * 10,
        }
    )
    table = ResultsTable.from_fold_scores(frame, score="loss", direction="lower")
    res = corrected_repeated_kfold_ttest(table)
    assert as_printed(res.statistic, "0.522233")
    assert as_printed(res.pvalue, "0.614117")
    assert not any("negated" in n for n in res.notes)
    assert any("equal folds" in n for n in res.notes)


def test_repeated_holdout_per_record_ratio_from_sizes():
    # 3 hold-out splits over 12 records, each validating on 4 of them
    rng = np.random.default_rng(11)
    rows = []
    diffs = []
    for rep in (1, 2, 3):
        test = rng.choice(12, size=4, replace=False)
        la = rng.integers(0, 2, size=4).astype(float)
        lb = rng.integers(0, 2, size=4).astype(float)
        diffs.append(la.mean() - lb.mean())
        for rec, a, b in zip(test, la, lb):
            rows += [("A", rep, 1, int(rec), a), ("B", rep, 1, int(rec), b)]
    frame = pd.DataFrame(rows, columns=["model", "replication", "fold", "record", "loss"])
    table = ResultsTable(frame)
    sizes = table.train_sizes().merge(table.design.fold_sizes, on=["replication", "fold"])
    ratio = sizes["n"].sum() / sizes["n_train"].sum()
    res = corrected_resampled_ttest(table, "A", "B")
    assert res.test_train_ratio == pytest.approx(ratio)
    expected = corrected_resampled_ttest_array(diffs, ratio)
    assert res.statistic == pytest.approx(expected.statistic)
    assert res.pvalue == pytest.approx(expected.pvalue)
    plain = paired_ttest_resampled(table, "A", "B")
    assert plain.statistic == pytest.approx(paired_ttest_resampled_array(diffs).statistic)
