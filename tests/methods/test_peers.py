"""Agreement with peer implementations on the same inputs (skipped when a peer is missing).

* baycomp's ``CorrelatedTTest`` for :func:`bayesian_correlated_ttest`;
* mlxtend's ``paired_ttest_resampled`` and ``paired_ttest_kfold_cv``, re-running
  their splits with scikit-learn to collect per-record losses, for
  :func:`paired_ttest_resampled`, :func:`corrected_resampled_ttest`,
  :func:`corrected_repeated_kfold_ttest` and :func:`bayesian_correlated_ttest`;
* statsmodels' pooled two-proportion z test for :func:`proportion_test`.

mlxtend reports accuracy differences A − B; cvreport's differences are of 0/1
loss, so its t statistic is the negative of mlxtend's and the p-value the same.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cvreport.data.table import ResultsTable
from cvreport.methods.bayesian import bayesian_correlated_ttest, bayesian_correlated_ttest_array
from cvreport.methods.corrected import corrected_resampled_ttest, paired_ttest_resampled
from cvreport.methods.corrected_kfold import corrected_repeated_kfold_ttest
from cvreport.methods.proportion import proportion_test_array


# -- baycomp -------------------------------------------------------------------------------
@pytest.mark.parametrize(("runs", "folds", "rope"), [(1, 10, 0.0), (5, 2, 0.01), (10, 10, 0.02)])
def test_baycomp_correlated_ttest(runs, folds, rope):
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(runs * 100 + folds)
    loss_a = rng.normal(0.20, 0.03, size=runs * folds)
    loss_b = loss_a - rng.normal(0.005, 0.02, size=runs * folds)
    # baycomp's differences are y − x: pass x = B, y = A so that its "left" is "A better"
    posterior = baycomp.CorrelatedTTest(loss_b, loss_a, rope=rope, runs=runs)
    ours = bayesian_correlated_ttest_array((loss_a - loss_b).reshape(runs, folds), rope=rope)
    assert ours.location == pytest.approx(posterior.mean, rel=1e-12)
    assert ours.scale**2 == pytest.approx(posterior.var, rel=1e-12)
    assert ours.posterior_df == posterior.df
    probs = posterior.probs()
    if rope == 0:
        assert (ours.prob_a_better, ours.prob_b_better) == pytest.approx(probs, rel=1e-9)
    else:
        assert ours.probabilities == pytest.approx(probs, rel=1e-9, abs=1e-12)


def test_baycomp_on_the_documented_vector():
    baycomp = pytest.importorskip("baycomp")
    d = np.array([0.02, -0.01, 0.03, 0.00, 0.01, 0.02, -0.02, 0.01, 0.04, 0.00])
    probs = baycomp.CorrelatedTTest.probs(np.zeros(10), d, rope=0.01, runs=5)
    ours = bayesian_correlated_ttest_array(d.reshape(5, 2), rope=0.01)
    assert ours.probabilities == pytest.approx(probs, rel=1e-10)


# -- mlxtend with scikit-learn ----------------------------------------------------------------
@pytest.fixture(scope="module")
def learners():
    datasets = pytest.importorskip("sklearn.datasets")
    linear = pytest.importorskip("sklearn.linear_model")
    tree = pytest.importorskip("sklearn.tree")
    X, y = datasets.make_classification(
        n_samples=200, n_features=6, n_informative=3, flip_y=0.1, random_state=0
    )
    return (
        X,
        y,
        linear.LogisticRegression(max_iter=500),
        tree.DecisionTreeClassifier(max_depth=3, random_state=0),
    )


def losses_on(model_a, model_b, X, y, train, test):
    model_a.fit(X[train], y[train])
    model_b.fit(X[train], y[train])
    return (
        (model_a.predict(X[test]) != y[test]).astype(float),
        (model_b.predict(X[test]) != y[test]).astype(float),
    )


def long_rows(rep, fold, test, loss_a, loss_b):
    return [("A", rep, fold, int(r), la) for r, la in zip(test, loss_a)] + [
        ("B", rep, fold, int(r), lb) for r, lb in zip(test, loss_b)
    ]


COLUMNS = ["model", "replication", "fold", "record", "loss"]


def test_mlxtend_paired_ttest_resampled(learners):
    evaluate = pytest.importorskip("mlxtend.evaluate")
    selection = pytest.importorskip("sklearn.model_selection")
    X, y, model_a, model_b = learners
    rounds, test_size, seed = 15, 0.3, 1
    t_peer, p_peer = evaluate.paired_ttest_resampled(
        model_a, model_b, X, y, num_rounds=rounds, test_size=test_size, random_seed=seed
    )
    # the same splits: mlxtend draws one random_state per round from RandomState(seed)
    rng = np.random.RandomState(seed)
    rows = []
    for i in range(rounds):
        state = rng.randint(low=0, high=32767)
        train, test = selection.train_test_split(
            np.arange(len(y)), test_size=test_size, random_state=state
        )
        rows += long_rows(i, 1, test, *losses_on(model_a, model_b, X, y, train, test))
    table = ResultsTable(pd.DataFrame(rows, columns=COLUMNS))
    res = paired_ttest_resampled(table, "A", "B")
    assert res.statistic == pytest.approx(-t_peer, rel=1e-9)
    assert res.pvalue == pytest.approx(p_peer, rel=1e-9)
    # Nadeau & Bengio rescale the same statistic by sqrt((1/J) / (1/J + n2/n1))
    ratio = 60 / 140
    corrected = corrected_resampled_ttest(table, "A", "B", test_train_ratio=ratio)
    factor = math.sqrt((1 / rounds) / (1 / rounds + ratio))
    assert corrected.statistic == pytest.approx(-t_peer * factor, rel=1e-9)
    assert corrected.pvalue > p_peer


def test_mlxtend_paired_ttest_kfold_cv(learners):
    evaluate = pytest.importorskip("mlxtend.evaluate")
    selection = pytest.importorskip("sklearn.model_selection")
    X, y, model_a, model_b = learners
    k = 10
    t_peer, _ = evaluate.paired_ttest_kfold_cv(model_a, model_b, X, y, cv=k)
    rows = []
    for fold, (train, test) in enumerate(selection.KFold(n_splits=k).split(X)):
        rows += long_rows(1, fold, test, *losses_on(model_a, model_b, X, y, train, test))
    table = ResultsTable(pd.DataFrame(rows, columns=COLUMNS))
    # Bouckaert & Frank with r = 1: the K-fold t rescaled by sqrt((1/K) / (1/K + 1/(K − 1)))
    res = corrected_repeated_kfold_ttest(table, "A", "B")
    assert res.test_train_ratio == pytest.approx(1 / 9)  # folds of 20, training sets of 180
    factor = math.sqrt((1 / k) / (1 / k + 1 / (k - 1)))
    assert res.statistic == pytest.approx(-t_peer * factor, rel=1e-9)
    # with rope 0 the posterior tail equals the corrected test's p-value
    bayes = bayesian_correlated_ttest(table, "A", "B")
    assert bayes.pvalue == pytest.approx(res.pvalue, rel=1e-9)
    assert bayes.statistic == pytest.approx(res.statistic, rel=1e-12)


# -- statsmodels ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("errors_a", "errors_b", "n", "alternative", "peer_alternative"),
    [
        (15, 10, 100, "two-sided", "two-sided"),
        (30, 41, 250, "less", "smaller"),
        (7, 2, 60, "greater", "larger"),
    ],
)
def test_statsmodels_pooled_proportions(errors_a, errors_b, n, alternative, peer_alternative):
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    z, p = proportion.proportions_ztest([errors_a, errors_b], [n, n], alternative=peer_alternative)
    ours = proportion_test_array(errors_a / n, errors_b / n, n, alternative=alternative)
    assert ours.statistic == pytest.approx(z, rel=1e-10)
    assert ours.pvalue == pytest.approx(p, rel=1e-10)
