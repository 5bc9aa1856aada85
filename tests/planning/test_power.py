"""The power formulas against independent computations (statsmodels, scipy, enumeration)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

from cvreport.errors import CVReportError, DataError
from cvreport.methods.mcnemar import mcnemar_kernel
from cvreport.planning.components import VarianceComponents
from cvreport.planning.power import corrected_t_power, ftest_5x2_power, mcnemar_power


@pytest.mark.parametrize(("effect", "sd", "splits"), [(0.1, 0.2, 20), (0.02, 0.05, 8), (1, 3, 50)])
def test_without_correlation_it_is_the_paired_t_power_of_statsmodels(effect, sd, splits):
    vc = VarianceComponents(within=0.0, between=sd**2, common=0.0, K=1, test_train_ratio=0.0)
    expected = TTestPower().power(effect / sd, nobs=splits, alpha=0.05)
    assert corrected_t_power(effect, vc, splits) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("m", "K"), [(1, 10), (10, 10), (5, 2), (3, 5)])
def test_under_nadeau_bengio_it_is_a_noncentral_t_with_the_corrected_variance(m, K):
    within, ratio, effect = 0.0009, 1 / (K - 1), 0.02
    vc = VarianceComponents(within=within, between=0.0, common=within * ratio, K=K)
    J = m * K
    # statsmodels: λ = d √n with df n − 1, so d = Δ / sqrt(within (1/J + r) J)
    d = effect / math.sqrt(within * (1 / J + ratio) * J)
    expected = TTestPower().power(d, nobs=J, alpha=0.05)
    assert corrected_t_power(effect, vc, m) == pytest.approx(expected, abs=1e-9)
    # and by hand with scipy's noncentral t
    lam = effect / math.sqrt(within * (1 / J + ratio))
    q = stats.t.ppf(0.975, J - 1)
    by_hand = stats.nct.sf(q, J - 1, lam) + stats.nct.cdf(-q, J - 1, lam)
    assert corrected_t_power(effect, vc, m) == pytest.approx(by_hand, abs=1e-12)


def test_power_grows_with_replications_up_to_the_ceiling_of_the_common_covariance():
    vc = VarianceComponents(within=0.001, between=0.0, common=0.001 / 9, K=10)
    powers = [corrected_t_power(0.01, vc, m) for m in (1, 2, 5, 10, 100, 10_000)]
    assert powers == sorted(powers)
    # as m → ∞: mean ~ N(Δ, common), statistic's denominator → sqrt(common)
    z = stats.norm.ppf(0.975)
    limit = stats.norm.sf(z - 0.01 / math.sqrt(0.001 / 9)) + stats.norm.cdf(
        -z - 0.01 / math.sqrt(0.001 / 9)
    )
    assert powers[-1] == pytest.approx(limit, abs=2e-3)


def test_combined_f_size_with_independent_folds_matches_its_exact_law():
    # independent N(0, w) folds: f = ½ + ½ F(m, m) exactly (Σ p̄² and Σ s² are w/2 χ²(m), w χ²(m))
    for m in (3, 5, 10):
        vc = VarianceComponents(within=1.0, between=0.0, common=0.0, K=2)
        threshold = 2 * stats.f.isf(0.05, 2 * m, m) - 1
        expected = stats.f.sf(threshold, m, m)
        assert ftest_5x2_power(1e-300, vc, m) == pytest.approx(expected, abs=1e-3)


def test_combined_f_size_in_the_epsilon_structure_matches_the_closed_form():
    # replication means all equal (between = −within/2): f = ½ + F(1, 5)/2 (Yang et al.'s 0.03)
    vc = VarianceComponents(within=2.0, between=-1.0, common=1.0, K=2)
    expected = stats.f.sf(2 * (stats.f.isf(0.05, 10, 5) - 0.5), 1, 5)
    assert expected == pytest.approx(0.0334, abs=1e-4)
    assert ftest_5x2_power(1e-300, vc, 5) == pytest.approx(expected, abs=5e-4)


def test_mcnemar_power_equals_enumeration_of_every_table():
    n, psi, effect = 40, 0.3, 0.1
    p01, p10 = (psi + effect) / 2, (psi - effect) / 2
    total = 0.0
    for b, c in itertools.product(range(n + 1), repeat=2):
        if b + c > n:
            continue
        if mcnemar_kernel(b, c).pvalue <= 0.05:
            total += stats.multinomial.pmf([b, c, n - b - c], n, [p01, p10, 1 - psi])
    assert mcnemar_power(effect, psi, n) == pytest.approx(total, abs=1e-9)


def test_mcnemar_power_agrees_with_connor_for_large_sets():
    n, psi, effect = 5000, 0.12, 0.012
    z = stats.norm.ppf(0.975)
    connor = stats.norm.cdf(
        (math.sqrt(n) * effect - z * math.sqrt(psi)) / math.sqrt(psi - effect**2)
    )
    assert mcnemar_power(effect, psi, n) == pytest.approx(connor, abs=0.02)


@pytest.mark.parametrize("effect", [0, -0.01, math.nan, "0.1"])
def test_effect_must_be_positive(effect):
    vc = VarianceComponents(within=1.0, between=0.0, common=0.1, K=10)
    with pytest.raises(CVReportError, match="effect must be a positive"):
        corrected_t_power(effect, vc, 2)


def test_mcnemar_effect_above_the_discordance_is_a_data_error():
    with pytest.raises(DataError, match="cannot exceed"):
        mcnemar_power(0.2, 0.1, 100)


@pytest.mark.parametrize("alpha", [0, 1, 1.5])
def test_alpha_outside_zero_one(alpha):
    with pytest.raises(CVReportError, match="alpha"):
        mcnemar_power(0.01, 0.1, 100, alpha=alpha)


def test_component_covariance_gives_the_variance_of_the_mean():
    vc = VarianceComponents(within=2.0, between=0.5, common=1.0, K=3)
    cov = vc.covariance(4)
    assert np.ones(12) @ cov @ np.ones(12) / 144 == pytest.approx(vc.variance_of_mean(4))
    assert np.all(np.linalg.eigvalsh(cov) > 0)
