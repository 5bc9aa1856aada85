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


# ---------------------------------------------------------------------------- options


@pytest.mark.parametrize("value", [0, -5, "many", 2.5, True, None])
@pytest.mark.parametrize("test", ["paired_bootstrap_test", "paired_permutation_test"])
def test_a_bad_number_of_resamples_is_refused_by_name(test, value):
    y, a, b = _labels(30, 10)
    with pytest.raises(CVReportError, match=r"n_resamples must be an integer ≥ \d, got"):
        getattr(arrays, test)(y, a, b, n_resamples=value)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"confidence_level": 1.5}, "confidence_level must be a number in"),
        ({"confidence_level": "high"}, "confidence_level must be a number in"),
        ({"method": "basic"}, "method must be 'BCa' or 'percentile'"),
        ({"method": 3}, "method must be 'BCa' or 'percentile'"),
        ({"alternative": 1}, "alternative must be"),
        ({"batch": 0}, "batch must be an integer ≥ 1"),
        ({"batch": 1.5}, "batch must be an integer ≥ 1"),
        ({"random_state": -1}, "random_state must be None, a non-negative integer"),
        ({"random_state": "seed"}, "random_state must be None, a non-negative integer"),
        ({"progress": "yes"}, "progress must be True, False or None"),
    ],
)
def test_every_bootstrap_option_is_checked_before_drawing(options, message):
    y, a, b = _labels(30, 11)
    with pytest.raises(CVReportError, match=message):
        arrays.paired_bootstrap_test(y, a, b, **options)


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("n_resampels", "n_resamples"),
        ("confidence_levle", "confidence_level"),
        ("alpha", "confidence_level"),
        ("seed", "random_state"),
        ("confidence_method", None),
    ],
)
def test_a_misspelt_option_names_the_accepted_ones(name, suggestion):
    y, a, b = _labels(30, 12)
    with pytest.raises(CVReportError) as caught:
        arrays.paired_bootstrap_test(y, a, b, **{name: 99})
    message = str(caught.value)
    assert f"has no option {name!r}" in message
    assert "n_resamples, confidence_level, method, alternative" in message
    if suggestion is not None:
        assert f"did you mean {suggestion}" in message
    with pytest.raises(
        CVReportError, match=r"cvreport.arrays.paired_permutation_test\(\) has no option"
    ):
        arrays.paired_permutation_test(y, a, b, n_resampels=99)


def test_table_level_options_are_checked_too():
    y, a, b = _scores(40, 13)
    df = pd.DataFrame(
        {
            "model": np.repeat(["A", "B"], 40),
            "record": np.tile(np.arange(40), 2),
            "y": np.tile(y, 2),
            "p": np.concatenate([a, b]),
        }
    )
    table = cvreport.ResultsTable.from_predictions(
        df, truth="y", score="p", metric="roc_auc", replication=None, fold=None
    )
    with pytest.raises(CVReportError, match=r"paired_bootstrap_test\(\) has no option") as caught:
        cvreport.paired_bootstrap_test(table, n_resampels=10)
    assert "did you mean n_resamples" in str(caught.value) and "truth" not in str(caught.value)
    with pytest.raises(CVReportError, match="n_resamples must be an integer"):
        cvreport.paired_permutation_test(table, n_resamples=0)


# ---------------------------------------------------------------------------- BCa on ties


def test_bca_counts_tied_resamples_as_scipy_does_with_an_exact_statistic():
    from fractions import Fraction

    # few records and coarse scores: many resamples reach the observed AUC difference
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1])
    a = np.array([0.1, 0.4, 0.3, 0.6, 0.8, 0.5, 0.9, 0.4, 0.2, 0.7, 0.5, 0.3])
    b = np.array([0.2, 0.3, 0.5, 0.6, 0.7, 0.4, 0.6, 0.5, 0.1, 0.8, 0.6, 0.2])

    def u(yy, s):
        pos, neg = s[yy == 1], s[yy == 0]
        return sum(Fraction(int(p > q) * 2 + int(p == q)) for p in pos for q in neg) / 2

    def exact(yy, aa, bb, axis=-1):  # the difference of AUCs as a rational number, rounded once
        m, n = int((yy == 1).sum()), int((yy == 0).sum())
        if m == 0 or n == 0:
            return np.nan
        return float((u(yy, aa) - u(yy, bb)) / (m * n))

    reference = stats.bootstrap(
        (y, a, b),
        exact,
        paired=True,
        vectorized=False,
        n_resamples=1500,
        method="BCa",
        random_state=np.random.default_rng(21),
    )
    ours = arrays.paired_bootstrap_test(
        y, a, b, metric="roc_auc", n_resamples=1500, random_state=np.random.default_rng(21)
    )
    dist = np.asarray(reference.bootstrap_distribution)
    delta = exact(y, a, b)
    assert np.count_nonzero(dist == delta) > 20  # the case has many tied resamples
    np.testing.assert_array_equal(ours.bootstrap_distribution, dist)
    assert ours.estimate == delta
    np.testing.assert_allclose(ours.conf_int(), reference.confidence_interval, atol=1e-12, rtol=0)


# ---------------------------------------------------------------------------- permutation p-value


def test_two_sided_permutation_pvalue_is_twice_the_smaller_one_sided_by_hand():
    y, a, b = _scores(300, 14)
    res = arrays.paired_permutation_test(y, a, b, metric="roc_auc", n_resamples=999, random_state=3)
    null, delta = res.null_distribution, res.estimate
    gamma = 100 * np.finfo(float).eps * abs(delta)
    less = (1 + np.count_nonzero(null <= delta + gamma)) / 1000
    greater = (1 + np.count_nonzero(null >= delta - gamma)) / 1000
    assert res.pvalue == min(1.0, 2 * min(less, greater))
    for alternative, expected in (("less", less), ("greater", greater)):
        one = arrays.paired_permutation_test(
            y, a, b, metric="roc_auc", n_resamples=999, random_state=3, alternative=alternative
        )
        assert one.pvalue == expected
    reference = stats.permutation_test(
        (a, b),
        lambda a, b: auc(y, a) - auc(y, b),
        permutation_type="samples",
        vectorized=False,
        n_resamples=999,
        random_state=np.random.default_rng(3),
    )
    np.testing.assert_allclose(null, reference.null_distribution, atol=1e-12, rtol=0)
    assert res.pvalue == reference.pvalue


def test_exact_permutation_pvalue_counts_absolute_differences():
    # every one of the 2⁸ swap patterns: twice the smaller tail is #{|δ_perm| ≥ |δ|} / 2⁸
    y, a, b = _labels(8, 15)
    a[:3] = y[:3]
    res = arrays.paired_permutation_test(y, a, b, n_resamples=9999, random_state=0)
    assert res.n_resamples == 256 and res.estimate != 0
    null = res.null_distribution
    assert res.pvalue == pytest.approx(np.count_nonzero(np.abs(null) >= abs(res.estimate)) / 256)


# ---------------------------------------------------------------------------- draws and rows


def _prediction_table(rows: pd.DataFrame, **kwargs):
    return cvreport.ResultsTable.from_predictions(
        rows, truth="y", score="p", metric="roc_auc", **kwargs
    )


def test_shuffled_input_rows_give_identical_results():
    rng = np.random.default_rng(16)
    n = 120
    y = rng.integers(0, 2, n)
    records = rng.permutation(np.arange(1000, 1000 + n)).astype(str)
    frames = []
    for model, strength in (("A", 0.6), ("B", 0.4)):
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "record": records,
                    "cluster": np.arange(n) // 4,
                    "y": y,
                    "p": np.round((strength * y + rng.random(n)) / (1 + strength), 2),
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    shuffled = df.sample(frac=1.0, random_state=5).reset_index(drop=True)
    for kwargs in ({}, {"cluster": "cluster"}):
        one = _prediction_table(df, replication=None, fold=None, **kwargs)
        two = _prediction_table(shuffled, replication=None, fold=None, **kwargs)
        for test in (cvreport.paired_bootstrap_test, cvreport.paired_permutation_test):
            first = test(one, "A", "B", n_resamples=299, random_state=7)
            second = test(two, "A", "B", n_resamples=299, random_state=7)
            assert first.pvalue == second.pvalue
            dist = (
                "bootstrap_distribution"
                if hasattr(first, "bootstrap_distribution")
                else ("null_distribution")
            )
            np.testing.assert_array_equal(getattr(first, dist), getattr(second, dist))


def test_legacy_random_state_draws_as_scipy_does():
    y, a, b, function = _case("f1")
    reference = stats.bootstrap(
        (y, a, b),
        lambda y, a, b: function(y, a) - function(y, b),
        paired=True,
        vectorized=False,
        n_resamples=199,
        method="percentile",
        rng=np.random.RandomState(4),
    )
    ours = arrays.paired_bootstrap_test(
        y,
        a,
        b,
        metric="f1",
        n_resamples=199,
        method="percentile",
        random_state=np.random.RandomState(4),
    )
    np.testing.assert_allclose(
        ours.bootstrap_distribution, reference.bootstrap_distribution, atol=1e-12, rtol=0
    )
    perm_reference = stats.permutation_test(
        (a, b),
        lambda a, b: function(y, a) - function(y, b),
        permutation_type="samples",
        vectorized=False,
        n_resamples=199,
        rng=np.random.RandomState(4),
    )
    perm = arrays.paired_permutation_test(
        y, a, b, metric="f1", n_resamples=199, random_state=np.random.RandomState(4)
    )
    np.testing.assert_allclose(
        perm.null_distribution, perm_reference.null_distribution, atol=1e-12, rtol=0
    )


@pytest.mark.parametrize("name", ["f1", "roc_auc", "accuracy", "average_precision"])
def test_draws_cut_in_small_chunks_still_follow_scipy_with_folds_and_a_batch(name, monkeypatch):
    from cvreport.methods import resampling_draws

    monkeypatch.setattr(resampling_draws, "_CHUNK", 50)  # a few resamples per array
    y, a, b, function = _case(name)
    folds = np.arange(70) % 2
    parts = [np.flatnonzero(folds == f) for f in range(2)]

    def statistic(*picked):
        return np.mean(
            [function(y[p[i]], a[p[i]]) - function(y[p[i]], b[p[i]]) for p, i in zip(parts, picked)]
        )

    reference = stats.bootstrap(
        tuple(np.arange(p.shape[0]) for p in parts),
        statistic,
        vectorized=False,
        n_resamples=99,
        batch=40,
        method="percentile",
        random_state=np.random.default_rng(17),
    )
    ours = arrays.paired_bootstrap_test(
        y,
        a,
        b,
        metric=name,
        folds=folds,
        n_resamples=99,
        batch=40,
        random_state=np.random.default_rng(17),
    )
    np.testing.assert_allclose(
        ours.bootstrap_distribution, reference.bootstrap_distribution, atol=1e-12, rtol=0
    )


@pytest.mark.parametrize("name", ["f1_macro", "roc_auc", "brier_score_loss", "average_precision"])
def test_swaps_of_clusters_within_folds_follow_scipy(name, monkeypatch):
    from cvreport.methods import resampling_draws

    monkeypatch.setattr(resampling_draws, "_CHUNK", 100)
    if name == "f1_macro":
        rng = np.random.default_rng(18)
        y = rng.integers(0, 3, 72)
        a = np.where(rng.random(72) < 0.7, y, rng.integers(0, 3, 72))
        b = np.where(rng.random(72) < 0.6, y, rng.integers(0, 3, 72))

        def function(t, p):
            return skm.f1_score(t, p, average="macro", labels=[0, 1, 2], zero_division=0)
    else:
        y, a, b = _scores(72, 18)
        function = SCORE_METRICS[name]
    folds = np.arange(72) % 2
    clusters = np.arange(72) // 6
    order = np.argsort(folds, kind="stable")  # records of a fold together, as the test lays them
    units = np.empty(72, dtype=np.int64)  # units numbered by first appearance in that order
    units[order] = pd.factorize(pd.Series(list(zip(folds[order], clusters[order]))))[0]

    def statistic(x, _, axis=-1):
        swap = (x >= units.max() + 1)[units]
        per_fold = []
        for f in range(2):
            rows = order[folds[order] == f]
            first = np.where(swap[rows], b[rows], a[rows])
            second = np.where(swap[rows], a[rows], b[rows])
            per_fold.append(function(y[rows], first) - function(y[rows], second))
        return np.mean(per_fold)

    n_units = units.max() + 1
    reference = stats.permutation_test(
        (np.arange(n_units), np.arange(n_units) + n_units),
        statistic,
        permutation_type="samples",
        vectorized=False,
        n_resamples=199,
        random_state=np.random.default_rng(19),
    )
    ours = arrays.paired_permutation_test(
        y,
        a,
        b,
        metric=name,
        folds=folds,
        clusters=clusters,
        n_resamples=199,
        random_state=np.random.default_rng(19),
    )
    np.testing.assert_allclose(ours.null_distribution, reference.null_distribution, atol=1e-12)
    assert ours.pvalue == reference.pvalue


def test_multiclass_bootstrap_counts_patterns_as_scipy_resamples_records():
    rng = np.random.default_rng(22)
    y = rng.integers(0, 3, 60)
    a = np.where(rng.random(60) < 0.7, y, rng.integers(0, 3, 60))
    b = np.where(rng.random(60) < 0.6, y, rng.integers(0, 3, 60))

    def f1_macro(t, p):
        return skm.f1_score(t, p, average="macro", labels=[0, 1, 2], zero_division=0)

    reference = stats.bootstrap(
        (y, a, b),
        lambda y, a, b: f1_macro(y, a) - f1_macro(y, b),
        paired=True,
        vectorized=False,
        n_resamples=99,
        method="percentile",
        random_state=np.random.default_rng(23),
    )
    ours = arrays.paired_bootstrap_test(
        y,
        a,
        b,
        metric="f1_macro",
        n_resamples=99,
        method="percentile",
        random_state=np.random.default_rng(23),
    )
    np.testing.assert_allclose(
        ours.bootstrap_distribution, reference.bootstrap_distribution, atol=1e-12, rtol=0
    )
