"""The sign test over per-fold differences, against scipy.stats.binomtest (Dixon & Mood 1946)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import cvreport
from cvreport import arrays
from cvreport.errors import DataError, DegenerateStatisticWarning, DesignError
from cvreport.methods.sign_test import sign_test_kernel
from tests._designs import TABLES

CASES = [
    [0.02, -0.01, 0.03, 0.015, 0.04],
    [0.02, -0.01, 0.03, 0.015, 0.04, 0.0],  # a tie is dropped
    [-0.1, -0.2, -0.05, -0.3, -0.01, -0.02, -0.4, -0.5, 0.0, 0.0],
    [0.1, -0.1, 0.2, -0.2, 0.3, -0.3],  # n/2 positive: p = 1
    [0.01] * 12 + [-0.01] * 3,
    list(np.random.default_rng(7).normal(0.01, 0.03, 25)),
]


def binomtest(d, alternative):
    d = np.asarray(d)
    positive, n = int(np.sum(d > 0)), int(np.sum(d != 0))
    return stats.binomtest(positive, n, 0.5, alternative=alternative).pvalue


@pytest.mark.parametrize("d", CASES)
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_the_p_value_is_scipy_s_exact_binomial_one(d, alternative):
    res = arrays.sign_test(d, alternative=alternative)
    assert res.pvalue == pytest.approx(binomtest(d, alternative), rel=1e-10)
    d = np.asarray(d)
    assert (res.positive, res.negative, res.ties) == (
        int(np.sum(d > 0)),
        int(np.sum(d < 0)),
        int(np.sum(d == 0)),
    )
    expected = res.positive if alternative != "two-sided" else min(res.positive, res.negative)
    assert res.statistic == expected


def test_the_hand_computed_vector_of_the_docs():
    # x = 4 positive of n = 5 non-zero: P(X ≥ 4) = (5 + 1)/32, two-sided 12/32
    res = arrays.sign_test([0.02, -0.01, 0.03, 0.015, 0.04, 0.0])
    assert res.pvalue == pytest.approx(12 / 32, rel=1e-14)
    assert res.median == pytest.approx(0.0175)
    assert res.estimate == pytest.approx(0.095 / 6)


def test_a_batch_gives_each_row_s_p_value():
    batch = np.array([c for c in CASES if len(c) == 6])
    k = sign_test_kernel(batch, "greater")
    assert k.pvalue.shape == (len(batch),)
    for row, p in zip(batch, k.pvalue, strict=True):
        assert p == pytest.approx(binomtest(row, "greater"), rel=1e-10)


def test_the_table_route_reads_the_fold_differences():
    table = TABLES["kfold"]
    d = table.differences("A", "B").to_numpy().ravel()
    for alternative in ("two-sided", "less", "greater"):
        res = cvreport.sign_test(table, "A", "B", alternative=alternative)
        assert res.pvalue == pytest.approx(binomtest(d, alternative), rel=1e-10)
        assert res.models == ("A", "B")
    swapped = cvreport.sign_test(table, "B", "A")
    assert (swapped.positive, swapped.negative) == (res.negative, res.positive)
    with pytest.raises(DesignError, match="sign_test"):
        cvreport.sign_test(TABLES["mx2"], "A", "B")


def test_no_sign_left_is_said_in_words():
    with pytest.warns(DegenerateStatisticWarning, match="no sign is left"):
        res = arrays.sign_test([0.0, 0.0, 0.0])
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    with pytest.raises(DataError, match="non-finite"):
        arrays.sign_test([0.1, np.nan])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        arrays.sign_test([0.1, 0.2])
