"""The worked examples of Demšar (2006, JMLR 7:1–30), to the digits printed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from cvreport.multi import critical_difference, friedman_test, rank_scores, wilcoxon_signed_rank
from tests.multi.demsar import RANKS6, TABLE2_RANKS, TABLE6, TABLE6_RANKED


def test_wilcoxon_example_table2_rank_sums_and_decision():
    # §3.1.3: R+ = 93, R− = 12, T = 12 ≤ 21 (the exact critical value for N = 14) → reject.
    res = wilcoxon_signed_rank(TABLE6["C4.5"], TABLE6["C4.5+m"], "higher", models=("C4.5", "m"))
    assert (res.r_plus, res.r_minus, res.statistic) == (93.0, 12.0, 12.0)
    assert res.statistic <= 21 and res.reject(0.05)
    assert (res.wins_b, res.wins_a, res.ties) == (10, 2, 2)
    difference = np.round(TABLE6["C4.5+m"] - TABLE6["C4.5"], 12)
    assert stats.rankdata(np.abs(difference)).tolist() == TABLE2_RANKS
    assert any("split evenly" in w for w in res.warnings)


def test_wilcoxon_is_symmetric_and_respects_the_direction():
    forward = wilcoxon_signed_rank(TABLE6["C4.5"], TABLE6["C4.5+m"], "higher")
    backward = wilcoxon_signed_rank(TABLE6["C4.5+m"], TABLE6["C4.5"], "higher")
    as_loss = wilcoxon_signed_rank(1 - TABLE6["C4.5"], 1 - TABLE6["C4.5+m"], "lower")
    assert (backward.r_plus, backward.r_minus) == (forward.r_minus, forward.r_plus)
    assert (as_loss.r_plus, as_loss.r_minus) == (forward.r_plus, forward.r_minus)
    assert backward.pvalue == pytest.approx(forward.pvalue, abs=1e-12)
    assert as_loss.pvalue == pytest.approx(forward.pvalue, abs=1e-12)


def test_friedman_example_table6_ranks_chi2_and_ff():
    ranks = rank_scores(TABLE6_RANKED, "higher")
    pd.testing.assert_frame_equal(ranks, RANKS6.astype(float))
    res = friedman_test(TABLE6_RANKED, "higher", tie_correction=False)
    assert res.average_ranks.round(3).tolist() == [3.143, 2.000, 2.893, 1.964]
    assert round(res.statistic, 2) == 9.28
    assert round(res.f_statistic, 2) == 3.69
    assert res.f_df == (3, 39)
    # the critical value of F(3, 39) at α = 0.05 is 2.85, so the null hypothesis is rejected
    assert round(stats.f.ppf(0.95, 3, 39), 2) == 2.85 and res.reject(0.05)
    # the printed ranks themselves, entered as a loss, give the same statistics
    from_ranks = friedman_test(RANKS6, "lower", tie_correction=False)
    assert from_ranks.statistic == pytest.approx(res.statistic, abs=1e-12)


def test_friedman_example_critical_differences():
    res = friedman_test(TABLE6_RANKED, "higher", tie_correction=False)
    nemenyi = critical_difference(res.average_ranks, 14, alpha=0.05)
    assert round(nemenyi.q_alpha, 3) == 2.569 and round(nemenyi.cd, 2) == 1.25
    # "even the difference between the best and the worst … is already smaller than that"
    assert nemenyi.cliques == (tuple(res.average_ranks.sort_values().index),)
    at_10 = critical_difference(res.average_ranks, 14, alpha=0.10)
    assert round(at_10.q_alpha, 3) == 2.291 and round(at_10.cd, 2) == 1.12
    # at p = 0.10 C4.5 is worse than C4.5+m and C4.5+m+cf; C4.5+cf belongs to neither group
    assert at_10.different("C4.5", "C4.5+m") and at_10.different("C4.5", "C4.5+m+cf")
    assert not at_10.different("C4.5", "C4.5+cf") and not at_10.different("C4.5+cf", "C4.5+m")
    assert at_10.cliques == (("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5"))
    dunn = critical_difference(
        res.average_ranks, 14, alpha=0.05, method="bonferroni-dunn", control="C4.5"
    )
    # Table 5(b): 2.394; CD = 2.394 · 0.488 = 1.168, printed truncated as 1.16
    assert round(dunn.q_alpha, 3) == 2.394 and int(dunn.cd * 100) / 100 == 1.16
    assert dunn.different("C4.5", "C4.5+m+cf")  # 1.179 > 1.16
    assert not dunn.different("C4.5", "C4.5+cf")  # 0.250 < 1.16
    assert not dunn.different("C4.5", "C4.5+m")  # 1.143 just below
    # the z and p of the Holm table: SE = 0.488, z = 2.416, 2.342, 0.512; p = 0.016, 0.019, 0.607
    se = np.sqrt(4 * 5 / (6 * 14))
    assert round(se, 3) == 0.488
    ranks = res.average_ranks.round(3)
    z = [(ranks["C4.5"] - ranks[m]) / round(se, 3) for m in ("C4.5+m+cf", "C4.5+m", "C4.5+cf")]
    assert np.round(z, 3).tolist() == [2.416, 2.342, 0.512]
    # the printed p-values are within one unit of the third decimal (0.6085 is printed 0.607)
    assert np.allclose(2 * stats.norm.sf(z), [0.016, 0.019, 0.607], atol=0.002)


@pytest.mark.parametrize(
    "k, nemenyi, dunn",
    [
        (2, 1.960, 1.960),
        (3, 2.343, 2.241),
        (4, 2.569, 2.394),
        (5, 2.728, 2.498),
        (6, 2.850, 2.576),
        (7, 2.949, 2.638),
        (8, 3.031, 2.690),
        (9, 3.102, 2.724),
        (10, 3.164, 2.773),
    ],
)
def test_table5_critical_values(k, nemenyi, dunn):
    ranks = pd.Series(np.arange(1.0, k + 1), index=[f"m{i}" for i in range(k)])
    # Table 5(a) was taken from older printed tables: within 0.001 of scipy's quantile
    assert abs(critical_difference(ranks, 10).q_alpha - nemenyi) <= 0.0011
    got = critical_difference(ranks, 10, method="bonferroni-dunn", control="m0").q_alpha
    # Demšar's Table 5(b) prints 2.724 for k = 9 where the normal quantile is 2.734
    assert abs(got - dunn) < (0.011 if k == 9 else 0.0005)
