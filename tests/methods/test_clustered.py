"""The clustered paired test against statsmodels OLS with cluster-robust covariance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import cvreport
from cvreport import arrays
from cvreport.errors import DataError, DesignError


def _clustered_differences(n_clusters: int, size: int, seed: int):
    rng = np.random.default_rng(seed)
    clusters = np.repeat(np.arange(n_clusters), size)
    d = 0.5 * rng.normal(size=n_clusters)[clusters] + rng.normal(size=clusters.size)
    return d, clusters


@pytest.mark.parametrize(("n_clusters", "size", "seed"), [(40, 5, 0), (12, 30, 1), (200, 1, 2)])
def test_cluster_robust_se_equals_statsmodels_ols_cluster(n_clusters, size, seed):
    d, clusters = _clustered_differences(n_clusters, size, seed)
    res = arrays.clustered_paired_test(d, clusters)
    fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    assert res.standard_error == pytest.approx(fit.bse[0], rel=1e-12)
    assert res.statistic == pytest.approx(fit.tvalues[0], rel=1e-12)
    assert res.pvalue == pytest.approx(fit.pvalues[0], rel=1e-10)
    np.testing.assert_allclose(res.conf_int(), fit.conf_int()[0], rtol=1e-12)


def test_without_the_correction_it_is_millers_equation():
    d, clusters = _clustered_differences(10, 4, 3)
    res = arrays.clustered_paired_test(d, clusters, small_sample_correction=False)
    residual = d - d.mean()
    by_hand = sum(residual[clusters == c].sum() ** 2 for c in range(10)) / d.size**2
    assert res.standard_error == pytest.approx(np.sqrt(by_hand), rel=1e-12)
    assert any("only 10 clusters" in note for note in res.notes)


def test_singleton_clusters_reduce_to_the_naive_standard_error_times_the_correction():
    d, clusters = _clustered_differences(50, 1, 4)
    res = arrays.clustered_paired_test(d, clusters, small_sample_correction=False)
    assert res.standard_error == pytest.approx(np.std(d, ddof=0) / np.sqrt(d.size), rel=1e-12)


def test_table_level_test_is_in_the_metrics_direction():
    rng = np.random.default_rng(5)
    n = 120
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.85, y, 1 - y)
    b = np.where(rng.random(n) < 0.75, y, 1 - y)
    df = pd.DataFrame(
        {
            "model": np.repeat(["A", "B"], n),
            "record": np.tile(np.arange(n), 2),
            "doc": np.tile(np.arange(n) // 6, 2),
            "y": np.tile(y, 2),
            "yhat": np.concatenate([a, b]),
        }
    )
    table = cvreport.ResultsTable.from_predictions(
        df,
        truth="y",
        prediction="yhat",
        metric="accuracy",
        cluster="doc",
        replication=None,
        fold=None,
    )
    res = cvreport.clustered_paired_test(table, "A", "B")
    correct = (a == y).astype(float) - (b == y).astype(float)
    direct = arrays.clustered_paired_test(correct, np.arange(n) // 6)
    assert res.estimate == pytest.approx(np.mean(a == y) - np.mean(b == y))
    assert res.standard_error == pytest.approx(direct.standard_error, rel=1e-12)
    assert res.n_clusters == 20
    plain = cvreport.ResultsTable.from_formula("{yhat != y} ~ model | cluster(doc)", df)
    errors = cvreport.clustered_paired_test(plain, "A", "B")
    assert errors.estimate == pytest.approx(-res.estimate)
    assert errors.pvalue == pytest.approx(res.pvalue)


def test_bad_inputs_raise_typed_errors():
    with pytest.raises(DataError, match="at least 2 clusters"):
        arrays.clustered_paired_test([1.0, 0.0, 1.0], ["a", "a", "a"])
    with pytest.raises(DataError, match="lengths"):
        arrays.clustered_paired_test([1.0, 0.0], ["a"])
    table = cvreport.ResultsTable(
        pd.DataFrame({"model": ["a", "b"] * 2, "record": [0, 0, 1, 1], "loss": [0, 1, 1, 0]}),
        replication=None,
        fold=None,
    )
    with pytest.raises(DesignError, match="cluster"):
        cvreport.clustered_paired_test(table)
