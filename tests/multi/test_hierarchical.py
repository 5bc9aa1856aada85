"""The hierarchical Bayesian test: against baycomp, its own symmetries, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numpyro", reason="the hierarchical test's sampler is an optional extra")

import cvreport
from cvreport.errors import CVReportError
from cvreport.multi.hierarchical import hierarchical_test, hierarchical_test_array

SETTINGS = {"n_samples": 2000, "n_warmup": 700, "seed": 3}


def baycomp_case(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Eight data sets × ten folds of two models' accuracies (baycomp's x and y)."""
    rng = np.random.default_rng(seed)
    q, n = 8, 10
    shift = rng.normal(0.01, 0.01, q)
    base = rng.uniform(0.7, 0.9, q)
    x = base[:, None] + rng.normal(0, 0.02, (q, n))
    y = x + shift[:, None] + rng.normal(0, 0.015, (q, n))
    return x, y


# baycomp.multiple.HierarchicalTest.sample(x, y, rope=0.01, runs=1, chains=4,
# nsamples=5000, random_state=seed) on the cases above (pystan 3.10), the share of
# draws in which left / rope / right is the most probable
BAYCOMP = {1: (0.0033, 0.38845, 0.60825), 2: (0.02445, 0.31425, 0.6613)}


@pytest.mark.parametrize("seed", sorted(BAYCOMP))
def test_against_baycomp(seed: int) -> None:
    x, y = baycomp_case(seed)
    # baycomp's "right" is y − x above the rope: here A = y is better
    result = hierarchical_test_array(
        list(y - x), rho=0.1, rope=0.01, models=("y", "x"), n_samples=4000, n_warmup=1000
    )
    right, rope, left = BAYCOMP[seed][2], BAYCOMP[seed][1], BAYCOMP[seed][0]
    # two samplers (Stan's NUTS, NumPyro's NUTS) of one posterior: within a few Monte Carlo
    # standard errors of autocorrelated draws (runs with other seeds moved by up to 0.02)
    tolerance = 0.04
    assert result.p_a_better == pytest.approx(right, abs=tolerance)
    assert result.p_equivalent == pytest.approx(rope, abs=tolerance)
    assert result.p_b_better == pytest.approx(left, abs=tolerance)
    assert result.divergences <= 0.01 * 4000


def test_clear_advantage_shrinkage_and_swap() -> None:
    rng = np.random.default_rng(5)
    advantages = [0.03 + rng.normal(0, 0.01, 10) for _ in range(7)]
    result = hierarchical_test_array(advantages, rho=0.1, rope=0.005, **SETTINGS)
    assert result.p_a_better > 0.95
    assert result.theta.shape == (2000, 3)
    assert np.allclose(result.theta.sum(axis=1), 1.0)
    # each data set's posterior mean lies between its own mean and the pooled mean
    pooled = np.mean([a.mean() for a in advantages])
    for own, row in zip(advantages, result.per_dataset.itertuples()):
        low, high = sorted((own.mean(), pooled))
        assert low - 2e-3 <= row.mean_advantage <= high + 2e-3
    swapped = hierarchical_test_array([-a for a in advantages], rho=0.1, rope=0.005, **SETTINGS)
    assert swapped.p_b_better == pytest.approx(result.p_a_better, abs=0.03)
    assert swapped.p_a_better == pytest.approx(result.p_b_better, abs=0.03)


def test_on_a_datasets_table_in_the_metric() -> None:
    multi = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    result = hierarchical_test(multi, "logistic_regression", "decision_tree", **SETTINGS)
    # error rates: A's advantage is loss(B) − loss(A), positive where the tree errs more
    expected = [
        float(-t.differences("logistic_regression", "decision_tree").to_numpy().mean())
        for t in multi.tables.values()
    ]
    assert np.corrcoef(expected, result.per_dataset["mean_advantage"])[0, 1] > 0.5
    assert result.p_a_better > 0.9 and result.rho == pytest.approx(0.5)  # 5×2 folds: ρ = 1/2
    assert list(result.per_dataset["dataset"]) == list(multi.datasets)
    assert "logistic_regression" in repr(result)
    assert result.to_frame().loc[0, "draws"] == 2000


def test_bad_input() -> None:
    with pytest.raises(CVReportError, match="two data sets"):
        hierarchical_test_array([np.ones(5)], rho=0.1)
    with pytest.raises(CVReportError, match="fold"):
        hierarchical_test_array([np.ones(5), np.ones(1)], rho=0.1)
    with pytest.raises(CVReportError, match="rho"):
        hierarchical_test_array([np.ones(5), np.zeros(5)], rho=1.0)
    with pytest.raises(CVReportError, match="rope"):
        hierarchical_test_array([np.ones(5), np.zeros(5)], rho=0.1, rope=-1)
    with pytest.raises(CVReportError, match="n_samples"):
        hierarchical_test_array([np.ones(5), np.zeros(5)], rho=0.1, n_samples=3)
    with pytest.raises(CVReportError, match="constant"):
        hierarchical_test_array([np.ones(5), np.zeros(5)], rho=0.1)
    with pytest.raises(CVReportError, match="finite"):
        hierarchical_test_array([np.array([1.0, np.nan]), np.zeros(5)], rho=0.1)
