"""DeLong's test against a direct O(n²) implementation of the 1988 formula (and pROC if present)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport
from cvreport import arrays
from cvreport.errors import DataError, DesignError


def delong_1988(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float]:
    """DeLong, DeLong & Clarke-Pearson (1988), eqs. (2)–(5), with the ψ matrix spelled out."""
    aucs, v10s, v01s = [], [], []
    for s in (a, b):
        x, z = s[y == 1], s[y == 0]
        psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
        aucs.append(psi.mean())
        v10s.append(psi.mean(axis=1))
        v01s.append(psi.mean(axis=0))
    m, n = len(v10s[0]), len(v01s[0])
    s10 = np.cov(np.vstack(v10s))
    s01 = np.cov(np.vstack(v01s))
    variance = (s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / m + (
        s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]
    ) / n
    z = (aucs[0] - aucs[1]) / np.sqrt(variance)
    return aucs[0], aucs[1], z, 2 * stats.norm.sf(abs(z))


def _data(n: int, seed: int, ties: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = 0.8 * y + rng.normal(size=n)
    b = 0.6 * a + 0.3 * y + rng.normal(size=n)
    if ties:
        a, b = np.round(a, 1), np.round(b, 1)
    return y, a, b


@pytest.mark.parametrize(("n", "seed", "ties"), [(50, 0, False), (400, 1, False), (300, 2, True)])
def test_delong_equals_the_direct_1988_formula(n, seed, ties):
    y, a, b = _data(n, seed, ties)
    res = arrays.delong_test(y, a, b)
    auc_a, auc_b, z, p = delong_1988(y, a, b)
    assert abs(res.auc_a - auc_a) < 1e-12 and abs(res.auc_b - auc_b) < 1e-12
    assert abs(res.statistic - z) < 1e-9
    assert abs(res.pvalue - p) < 1e-9
    low, high = res.conf_int(0.05)
    assert (high - low) / 2 == pytest.approx(1.959963984540054 * res.standard_error, rel=1e-12)


def test_swapping_models_mirrors_the_estimate_and_keeps_the_pvalue():
    y, a, b = _data(200, 3)
    ab, ba = arrays.delong_test(y, a, b), arrays.delong_test(y, b, a)
    assert ab.estimate == pytest.approx(-ba.estimate, abs=1e-15)
    assert ab.pvalue == pytest.approx(ba.pvalue, abs=1e-15)
    assert ab.conf_int()[0] == pytest.approx(-ba.conf_int()[1], abs=1e-15)


def test_one_sided_alternatives_split_the_two_sided_pvalue():
    y, a, b = _data(200, 4)
    two = arrays.delong_test(y, a, b)
    greater = arrays.delong_test(y, a, b, alternative="greater")
    less = arrays.delong_test(y, a, b, alternative="less")
    assert greater.pvalue + less.pvalue == pytest.approx(1.0)
    assert min(greater.pvalue, less.pvalue) * 2 == pytest.approx(two.pvalue)


def test_delong_on_a_holdout_table_and_per_fold_on_cv():
    y, a, b = _data(120, 5)
    df = pd.DataFrame(
        {
            "model": np.repeat(["A", "B"], 120),
            "record": np.tile(np.arange(120), 2),
            "fold": np.tile(np.arange(120) % 3, 2),
            "y": np.tile(y, 2),
            "p": np.concatenate([a, b]),
        }
    )
    holdout = cvreport.ResultsTable.from_predictions(
        df, truth="y", score="p", metric="roc_auc", replication=None, fold=None
    )
    res = cvreport.delong_test(holdout, "A", "B")
    assert res.statistic == pytest.approx(delong_1988(y, a, b)[2], abs=1e-9)
    assert res.models == ("A", "B")
    cv = cvreport.ResultsTable.from_predictions(
        df, truth="y", score="p", metric="roc_auc", replication=None
    )
    with pytest.raises(DesignError, match="delong_tests_per_fold"):
        cvreport.delong_test(cv)
    frame = cvreport.delong_tests_per_fold(cv, "A", "B")
    assert frame["fold"].tolist() == [0, 1, 2]
    for row in frame.itertuples():
        part = np.arange(120) % 3 == row.fold
        assert row.statistic == pytest.approx(delong_1988(y[part], a[part], b[part])[2], abs=1e-9)


def test_bad_inputs_raise_typed_errors():
    with pytest.raises(DataError, match="binary"):
        arrays.delong_test([0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(DataError, match="at least 2 positives"):
        arrays.delong_test([0, 0, 0, 1], [0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(DataError, match="NaN"):
        arrays.delong_test([0, 0, 1, 1], [0.1, np.nan, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4])
    table = cvreport.ResultsTable(
        pd.DataFrame({"model": ["a", "b"] * 2, "record": [0, 0, 1, 1], "loss": [0, 1, 1, 0]}),
        replication=None,
        fold=None,
    )
    with pytest.raises(DesignError, match="from_predictions"):
        cvreport.delong_test(table)


def _proc_available() -> bool:
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(
        ["Rscript", "-e", "library(pROC)"], capture_output=True, text=True, check=False
    )
    return done.returncode == 0


@pytest.mark.skipif(not _proc_available(), reason="R's pROC is not installed")
def test_delong_equals_proc_roc_test(tmp_path):
    y, a, b = _data(500, 6, ties=True)
    path = tmp_path / "d.csv"
    pd.DataFrame({"y": y, "a": a, "b": b}).to_csv(path, index=False, float_format="%.17g")
    script = (
        "suppressMessages(library(pROC)); d <- read.csv('" + str(path) + "'); "
        "r1 <- roc(d$y, d$a, levels=c(0,1), direction='<', quiet=TRUE); "
        "r2 <- roc(d$y, d$b, levels=c(0,1), direction='<', quiet=TRUE); "
        "t <- roc.test(r1, r2, method='delong', paired=TRUE); "
        "cat(sprintf('%.17g', c(t$statistic, t$p.value, t$conf.int)))"
    )
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True)
    z, p, low, high = (float(v) for v in out.stdout.split())
    res = arrays.delong_test(y, a, b)
    assert abs(res.statistic - z) < 1e-9 and abs(res.pvalue - p) < 1e-9
    assert np.allclose(res.conf_int(), (low, high), atol=1e-9, rtol=0)
