"""The paired bootstrap and permutation tests reproduce scipy.stats with the same seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn import metrics as skm

import cvreport
from cvreport import arrays
from cvreport.errors import CVReportError, DataError


def _labels(n: int, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.7, y, 1 - y)
    return y, a, b


def _scores(n: int, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return (
        y,
        np.round((0.5 * y + rng.random(n)) / 1.5, 2),
        np.round((0.3 * y + rng.random(n)) / 1.3, 2),
    )


# Plain formulas, written out independently of cvreport (sklearn is slow in scipy's loops;
# tests/data/test_metrics.py checks cvreport against sklearn itself).
def _counts(y, p):
    y, p = np.asarray(y) == 1, np.asarray(p) == 1
    return (y & p).sum(), (~y & p).sum(), (y & ~p).sum(), (~y & ~p).sum()


def f1(y, p):
    tp, fp, fn, _ = _counts(y, p)
    return 2 * tp / (2 * tp + fp + fn)


def mcc(y, p):
    tp, fp, fn, tn = (float(v) for v in _counts(y, p))
    return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def balanced_accuracy(y, p):
    tp, fp, fn, tn = _counts(y, p)
    return 0.5 * (tp / (tp + fn) + tn / (tn + fp))


def auc(y, s):
    y = np.asarray(y) == 1
    ranks = stats.rankdata(s)
    m = y.sum()
    return (ranks[y].sum() - m * (m + 1) / 2) / (m * (y.size - m))


LABEL_METRICS = {
    "f1": f1,
    "matthews_corrcoef": mcc,
    "balanced_accuracy": balanced_accuracy,
    "accuracy": lambda y, p: np.mean(np.asarray(y) == np.asarray(p)),
}
SCORE_METRICS = {
    "roc_auc": auc,
    "average_precision": skm.average_precision_score,
    "brier_score_loss": lambda y, p: np.mean((np.asarray(y) - np.asarray(p)) ** 2),
}


def _case(name):
    if name in LABEL_METRICS:
        return (*_labels(70, 1), LABEL_METRICS[name])
    return (*_scores(70, 2), SCORE_METRICS[name])


@pytest.mark.parametrize("name", [*LABEL_METRICS, *SCORE_METRICS])
@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_bootstrap_reproduces_scipy_with_the_same_seed(name, method):
    y, a, b, function = _case(name)
    reference = stats.bootstrap(
        (y, a, b),
        lambda y, a, b: function(y, a) - function(y, b),
        paired=True,
        vectorized=False,
        n_resamples=199,
        method=method,
        random_state=np.random.default_rng(11),
    )
    ours = arrays.paired_bootstrap_test(
        y, a, b, metric=name, n_resamples=199, method=method, random_state=np.random.default_rng(11)
    )
    np.testing.assert_allclose(
        ours.bootstrap_distribution, reference.bootstrap_distribution, atol=1e-12, rtol=0
    )
    np.testing.assert_allclose(ours.conf_int(), reference.confidence_interval, atol=1e-12, rtol=0)
    assert ours.standard_error == pytest.approx(reference.standard_error, abs=1e-12)
    assert ours.estimate == pytest.approx(function(y, a) - function(y, b), abs=1e-12)


@pytest.mark.parametrize("name", ["f1", "accuracy", "roc_auc"])
def test_permutation_reproduces_scipy_with_the_same_seed(name):
    y, a, b, function = _case(name)
    reference = stats.permutation_test(
        (a, b),
        lambda a, b: function(y, a) - function(y, b),
        permutation_type="samples",
        vectorized=False,
        n_resamples=499,
        random_state=np.random.default_rng(5),
    )
    ours = arrays.paired_permutation_test(
        y, a, b, metric=name, n_resamples=499, random_state=np.random.default_rng(5)
    )
    np.testing.assert_allclose(
        ours.null_distribution, reference.null_distribution, atol=1e-12, rtol=0
    )
    assert ours.pvalue == reference.pvalue


def test_cluster_bootstrap_reproduces_scipy_on_cluster_indices():
    y, a, b = _labels(90, 3)
    clusters = np.arange(90) // 6  # 15 clusters of 6
    members = [np.flatnonzero(clusters == c) for c in range(15)]

    def statistic(picked):
        rows = np.concatenate([members[c] for c in picked])
        return f1(y[rows], a[rows]) - f1(y[rows], b[rows])

    reference = stats.bootstrap(
        (np.arange(15),),
        statistic,
        vectorized=False,
        n_resamples=299,
        method="percentile",
        random_state=np.random.default_rng(2),
    )
    ours = arrays.paired_bootstrap_test(
        y,
        a,
        b,
        metric="f1",
        clusters=clusters,
        n_resamples=299,
        method="percentile",
        random_state=np.random.default_rng(2),
    )
    np.testing.assert_allclose(
        ours.bootstrap_distribution, reference.bootstrap_distribution, atol=1e-12, rtol=0
    )
    assert ours.units == "clusters" and ours.n_units == 15


def test_cluster_bca_jackknife_leaves_whole_clusters_out():
    y, a, b = _scores(60, 4)
    clusters = np.arange(60) // 4
    members = [np.flatnonzero(clusters == c) for c in range(15)]

    def statistic(picked, axis=-1):
        rows = np.concatenate([members[c] for c in picked])
        return auc(y[rows], a[rows]) - auc(y[rows], b[rows])

    reference = stats.bootstrap(
        (np.arange(15),),
        statistic,
        vectorized=False,
        n_resamples=199,
        method="BCa",
        random_state=np.random.default_rng(8),
    )
    ours = arrays.paired_bootstrap_test(
        y,
        a,
        b,
        metric="roc_auc",
        clusters=clusters,
        n_resamples=199,
        random_state=np.random.default_rng(8),
    )
    np.testing.assert_allclose(ours.conf_int(), reference.confidence_interval, atol=1e-12, rtol=0)


def test_within_fold_bootstrap_resamples_each_fold_as_scipy_does_with_one_sample_per_fold():
    y, a, b = _labels(60, 5)
    folds = np.arange(60) % 3
    parts = [np.flatnonzero(folds == f) for f in range(3)]

    def statistic(*picked):
        per_fold = []
        for rows, index in zip(parts, picked):
            r = rows[index]
            per_fold.append(f1(y[r], a[r]) - f1(y[r], b[r]))
        return np.mean(per_fold)

    reference = stats.bootstrap(
        tuple(np.arange(p.shape[0]) for p in parts),
        statistic,
        vectorized=False,
        n_resamples=199,
        method="percentile",
        random_state=np.random.default_rng(3),
    )
    ours = arrays.paired_bootstrap_test(
        y,
        a,
        b,
        metric="f1",
        folds=folds,
        n_resamples=199,
        method="BCa",
        random_state=np.random.default_rng(3),
    )
    np.testing.assert_allclose(
        ours.bootstrap_distribution, reference.bootstrap_distribution, atol=1e-12, rtol=0
    )
    assert ours.interval_method == "percentile"
    assert any("within each validation fold" in note for note in ours.notes)


def test_bootstrap_pvalue_is_the_centred_count_of_berg_kirkpatrick():
    y, a, b = _labels(80, 6)
    res = arrays.paired_bootstrap_test(y, a, b, metric="f1", n_resamples=999, random_state=0)
    dist, delta = res.bootstrap_distribution, res.estimate
    expected = (1 + np.count_nonzero(np.abs(dist - delta) >= abs(delta) * (1 - 1e-12))) / 1000
    assert res.pvalue == pytest.approx(expected)
    greater = arrays.paired_bootstrap_test(
        y, a, b, metric="f1", n_resamples=999, random_state=0, alternative="greater"
    )
    # Berg-Kirkpatrick et al.: count δ* > 2δ, i.e. δ* − δ > δ
    expected = (1 + np.count_nonzero(dist - delta >= delta * (1 - 1e-12))) / 1000
    assert greater.pvalue == pytest.approx(expected)


def test_table_level_tests_read_the_tables_predictions():
    y, a, b = _scores(100, 7)
    df = pd.DataFrame(
        {
            "model": np.repeat(["A", "B"], 100),
            "record": np.tile(np.arange(100), 2),
            "y": np.tile(y, 2),
            "p": np.concatenate([a, b]),
        }
    )
    table = cvreport.ResultsTable.from_predictions(
        df, truth="y", score="p", metric="roc_auc", replication=None, fold=None
    )
    boot = cvreport.paired_bootstrap_test(table, n_resamples=199, random_state=1)
    direct = arrays.paired_bootstrap_test(
        y, a, b, metric="roc_auc", n_resamples=199, random_state=1
    )
    assert boot.conf_int() == direct.conf_int() and boot.models == ("A", "B")
    perm = cvreport.paired_permutation_test(table, "B", "A", n_resamples=199, random_state=1)
    assert perm.estimate == pytest.approx(skm.roc_auc_score(y, b) - skm.roc_auc_score(y, a))


def test_bad_inputs_raise_typed_errors():
    y, a, b = _labels(20, 8)
    with pytest.raises(DataError, match="same records"):
        arrays.paired_bootstrap_test(y, a[:-1], b)
    with pytest.raises(CVReportError, match="method"):
        arrays.paired_bootstrap_test(y, a, b, method="basic")
    with pytest.raises(CVReportError, match="alternative"):
        arrays.paired_permutation_test(y, a, b, alternative="bigger")


def test_cv_table_resamples_within_each_replication_and_fold():
    rng = np.random.default_rng(9)
    n = 60
    y = rng.integers(0, 2, n)
    frames = []
    for replication in (1, 2):
        fold = rng.permutation(np.arange(n) % 2)
        for model, accuracy in (("A", 0.8), ("B", 0.7)):
            yhat = np.where(rng.random(n) < accuracy, y, 1 - y)
            frames.append(
                pd.DataFrame(
                    {
                        "replication": replication,
                        "fold": fold,
                        "model": model,
                        "record": np.arange(n),
                        "y": y,
                        "yhat": yhat,
                    }
                )
            )
    df = pd.concat(frames, ignore_index=True)
    table = cvreport.ResultsTable.from_predictions(df, truth="y", prediction="yhat", metric="f1")
    res = cvreport.paired_bootstrap_test(table, n_resamples=99, random_state=0)
    per_fold = table.differences("A", "B").to_numpy()  # f1(A) − f1(B) per fold
    assert res.estimate == pytest.approx(per_fold.mean(), abs=1e-12)
    assert res.interval_method == "percentile" and res.nobs == 2 * n
    perm = cvreport.paired_permutation_test(table, n_resamples=99, random_state=0)
    assert perm.estimate == pytest.approx(res.estimate)
