"""Regression tests for defects of the public API found by reading it as a user (round 6)."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from cvreport import arrays
from cvreport.errors import DataError


# -- 1. an error rate is a whole number of errors out of n ---------------------------------------
@pytest.mark.parametrize(
    ("error_a", "error_b", "name", "product"),
    [(0.123, 0.2, "error_a", "12.3"), (0.12, 0.2051, "error_b", "20.51")],
)
def test_proportion_test_refuses_a_rate_that_is_no_count_over_n(error_a, error_b, name, product):
    with pytest.raises(DataError) as caught:
        arrays.proportion_test(error_a, error_b, 100)
    message = str(caught.value)
    assert f"{name} = " in message and "n = 100" in message and product in message
    assert "divided by n" in message


def test_proportion_test_takes_rates_with_floating_rounding():
    # 0.07 · 100 = 7.000000000000001 and 0.29 · 100 = 28.999999999999996 in floating point
    assert 0.07 * 100 != 7 and 0.29 * 100 != 29
    res = arrays.proportion_test(0.07, 0.29, 100)
    pooled = (7 + 29) / 200
    z = (0.07 - 0.29) / math.sqrt(2 * pooled * (1 - pooled) / 100)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)


# -- 5. Cliff's δ compares values exactly, as its peers do ---------------------------------------
def test_cliffs_delta_compares_exactly_like_mann_whitney_and_documents_it():
    from cvreport.multi.effect_sizes import cliffs_delta, pairwise_effect_sizes

    a = [1.0, 0.8, 0.7, 0.9]
    b = [0.9999999999999999, 0.8, 0.6, 0.95]
    u = stats.mannwhitneyu(a, b).statistic  # scipy counts ties as ½ and compares exactly
    assert cliffs_delta(a, b)[0] == pytest.approx(2 * u / 16 - 1, abs=1e-15)
    assert stats.rankdata([1.0, 0.9999999999999999]).tolist() == [2.0, 1.0]
    for function in (cliffs_delta, pairwise_effect_sizes):
        text = " ".join(function.__doc__.split())
        assert "compared exactly" in text or "compares the scores exactly" in text
        assert "round" in text and "near-equal values as ties" in text
