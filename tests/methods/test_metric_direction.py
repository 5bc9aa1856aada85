"""Results speak the user's metric: a score table gives the loss table's result, mirrored.

The same records scored as 0/1 hits (``direction="higher"``) and as 0/1 errors
(``1 − hit``, a loss) are one experiment. Every test of the registry must give the
same p-values and decisions on both, with the estimate, the interval and every
signed statistic of the score table those of the loss table with their sign
flipped (hit(A) − hit(B) = −(error(A) − error(B))), and an ``alternative`` about
the score: "greater" (A scores higher) is the loss's "less".
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

import cvreport
from cvreport.data.table import ResultsTable
from cvreport.methods.registry import SPECS
from tests._designs import PAIRED, TABLES, losses_frame, run, two_sided

SIGNED = ("t", "normal", "z")


def score_table(kind: str) -> ResultsTable:
    frame = losses_frame(kind).assign(hit=lambda f: 1 - f["loss"]).drop(columns="loss")
    return cvreport.ResultsTable.from_formula(
        "hit ~ model | replication + fold",
        frame,
        direction="higher",
        **({"test_train_ratio": 0.5} if kind == "repeated_holdout" else {}),
    )


SCORE_TABLES = {kind: score_table(kind) for kind in TABLES}
SPECS_BY_NAME = {spec.name: spec for spec in SPECS}


def takes_alternative(spec) -> bool:
    return "alternative" in inspect.signature(spec.function).parameters


def assert_mirrored(score, loss) -> None:
    assert (score.direction, loss.direction) == ("higher", "lower")
    assert score.loss_name == "hit" and "negated" not in score.summary().as_text()
    assert score.pvalue == pytest.approx(loss.pvalue, rel=1e-12, abs=1e-15)
    assert score.reject(0.05) == loss.reject(0.05)
    if loss.estimate is not None:
        assert score.estimate == pytest.approx(-loss.estimate, rel=1e-12, abs=1e-15)
    if loss.distribution.split(" ")[0] in SIGNED:
        assert score.statistic == pytest.approx(-loss.statistic, rel=1e-12, abs=1e-15)
    elif loss.alternative == "two-sided":
        assert score.statistic == pytest.approx(loss.statistic, rel=1e-12, abs=1e-15)
    assert score.has_conf_int == loss.has_conf_int
    if loss.has_conf_int:
        low, high = loss.conf_int(0.1)
        assert score.conf_int(0.1) == pytest.approx((-high, -low), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("spec", PAIRED, ids=lambda spec: spec.name)
def test_a_score_table_gives_the_loss_result_mirrored(spec):
    kind = spec.designs[0]
    loss = run(spec, TABLES[kind], "A", "B", **two_sided(spec))
    score = run(spec, SCORE_TABLES[kind], "A", "B", **two_sided(spec))
    assert_mirrored(score, loss)
    for name in ("prob_a_better", "prob_equivalent", "prob_b_better", "b", "c"):
        if hasattr(loss, name):  # "A better" and McNemar's counts of errors do not flip
            assert getattr(score, name) == pytest.approx(getattr(loss, name), rel=1e-12)


@pytest.mark.parametrize(
    "spec", [s for s in PAIRED if takes_alternative(s)], ids=lambda spec: spec.name
)
@pytest.mark.parametrize(("score_side", "loss_side"), [("greater", "less"), ("less", "greater")])
def test_a_one_sided_alternative_is_about_the_score(spec, score_side, loss_side):
    kind = spec.designs[0]
    loss = run(spec, TABLES[kind], "A", "B", alternative=loss_side)
    score = run(spec, SCORE_TABLES[kind], "A", "B", alternative=score_side)
    assert score.alternative == score_side
    assert_mirrored(score, loss)


def test_the_default_of_the_cv_interval_test_is_a_is_better_for_both():
    """Bayle et al.'s one-sided test asks whether A is better: "less" for a loss, "greater"
    for a score, so the default gives the same p-value whichever way the table is told."""
    loss = run(SPECS_BY_NAME["cv_confidence_interval"], TABLES["kfold"], "A", "B")
    score = run(SPECS_BY_NAME["cv_confidence_interval"], SCORE_TABLES["kfold"], "A", "B")
    assert (loss.alternative, score.alternative) == ("less", "greater")
    assert score.pvalue == pytest.approx(loss.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_the_one_sided_wilcoxon_statistic_is_the_scores_rank_sum(alternative):
    """W+ of the score differences (scipy's statistic for a one-sided test), not the loss's."""
    score = run(
        SPECS_BY_NAME["wilcoxon_kfold"], SCORE_TABLES["kfold"], "A", "B", alternative=alternative
    )
    d = -TABLES["kfold"].differences("A", "B").to_numpy()[0]  # hit(A) − hit(B) per fold
    reference = stats.wilcoxon(d, alternative=alternative)
    assert score.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert score.pvalue == pytest.approx(reference.pvalue, rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(
    scores=st.lists(st.floats(0.5, 0.99, allow_nan=False), min_size=6, max_size=6),
    shift=st.floats(-0.05, 0.05, allow_nan=False),
    alternative=st.sampled_from(["two-sided", "less", "greater"]),
)
def test_per_fold_auc_gives_auc_differences(scores, shift, alternative):
    """Per-fold AUCs of B = A's minus a shift and noise: the K-fold t's estimate is
    mean(auc A − auc B), its interval is around it, and "greater" means A's AUC is higher."""
    a = np.array(scores)
    b = np.clip(a - shift + np.linspace(-0.01, 0.01, a.size), 0.0, 1.0)
    frame = pd.DataFrame(
        {"fold": list(range(6)) * 2, "model": ["A"] * 6 + ["B"] * 6, "auc": [*a, *b]}
    )
    table = ResultsTable.from_fold_scores(frame, score="auc", replication=None)
    res = cvreport.paired_ttest_kfold(table, "A", "B", alternative=alternative)
    d = a - b
    assert res.estimate == pytest.approx(d.mean(), abs=1e-12)
    reference = cvreport.arrays.paired_ttest_kfold(d, alternative=alternative)
    assert res.pvalue == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-12)
    if math.isfinite(reference.statistic):
        assert res.statistic == pytest.approx(reference.statistic, rel=1e-9, abs=1e-12)
        assert res.conf_int() == pytest.approx(reference.conf_int(), rel=1e-9, abs=1e-12)


def test_tests_on_records_say_the_direction_of_their_metric():
    """The record-level tests report metric(A) − metric(B) and say which way is better."""
    y = [0, 1] * 20
    a = [0, 1] * 18 + [1, 0] * 2  # 36 of 40 right
    b = [0, 1] * 12 + [1, 0] * 8  # 24 of 40 right
    accuracy = cvreport.arrays.paired_permutation_test(y, a, b, n_resamples=99, random_state=0)
    assert accuracy.direction == "higher"
    assert accuracy.estimate == pytest.approx(36 / 40 - 24 / 40)
    error = cvreport.arrays.paired_permutation_test(
        y, a, b, metric="zero_one_loss", n_resamples=99, random_state=0
    )
    assert error.direction == "lower"
    assert error.estimate == pytest.approx(4 / 40 - 16 / 40)
    auc = cvreport.arrays.delong_test(y, a, b)
    assert auc.direction == "higher"
    assert auc.estimate == pytest.approx(roc_auc_score(y, a) - roc_auc_score(y, b), abs=1e-12)


AUC_FOLDS = pd.DataFrame(
    {
        "fold": [1, 1, 2, 2, 3, 3],
        "model": ["A", "B"] * 3,
        "auc": [0.90, 0.80, 0.85, 0.80, 0.95, 0.80],
    }
)


def test_the_tables_differences_are_in_the_metric():
    table = ResultsTable.from_fold_scores(AUC_FOLDS, score="auc", replication=None)
    np.testing.assert_allclose(table.differences("A", "B").to_numpy(), [[0.10, 0.05, 0.15]])
    np.testing.assert_allclose(table.loss_differences("A", "B").to_numpy(), [[-0.10, -0.05, -0.15]])
    hits = SCORE_TABLES["kfold"]
    per_record = hits.record_differences("A", "B")
    errors = TABLES["kfold"].record_differences("A", "B")
    np.testing.assert_array_equal(per_record["difference"], -errors["difference"])


def test_the_bayesian_summary_says_which_side_is_better_for_a_score():
    table = ResultsTable.from_fold_scores(AUC_FOLDS, score="auc", replication=None)
    res = cvreport.bayesian_correlated_ttest(table, "A", "B", rope=0.01)
    assert res.location == pytest.approx(0.10)
    text = res.summary().as_text()
    assert "P(A better: δ > rope)" in text and "P(B better: δ < −rope)" in text
    # the posterior mass above +rope is A's: most of it, with a mean difference of +0.10
    assert res.prob_a_better > 0.9 > res.prob_b_better


def test_a_zero_variance_warning_quotes_the_difference_in_the_metric():
    frame = pd.DataFrame(
        {
            "fold": [1, 1, 2, 2, 3, 3],
            "model": ["A", "B"] * 3,
            "auc": [0.82, 0.80, 0.77, 0.75, 0.92, 0.90],
        }
    )
    table = ResultsTable.from_fold_scores(frame, score="auc", replication=None)
    with pytest.warns(cvreport.DegenerateStatisticWarning):
        res = cvreport.bayesian_correlated_ttest(table, "A", "B")
    assert res.estimate == pytest.approx(0.02)
    assert "equals 0.02:" in res.warnings[0] and "-0.02" not in res.warnings[0]


def test_one_model_tests_refuse_a_score_that_is_not_hits():
    table = ResultsTable.from_fold_scores(AUC_FOLDS, score="auc", replication=None)
    with pytest.raises(cvreport.DataError, match="'auc' is a score"):
        cvreport.ttest_error(table, "A", p0=0.2)
    hits = cvreport.ttest_error(SCORE_TABLES["kfold"], "A", p0=0.2)
    errors = cvreport.ttest_error(TABLES["kfold"], "A", p0=0.2)
    assert (hits.loss_name, hits.direction) == ("error rate", "lower")
    assert hits.estimate == pytest.approx(errors.estimate) and hits.pvalue == pytest.approx(
        errors.pvalue
    )


def test_the_notebook_shows_hits_as_hits():
    from cvreport.jupyter import notebook

    built = notebook.build(
        data="hits.csv", formula="hit ~ model | replication + fold", higher_is_better=True
    )
    source = next(c.source for c in built.cells if "fold_errors" in c.source)
    cell = source[source.index("folds = ") :]
    namespace = {"table": SCORE_TABLES["kfold"]}
    exec(cell.replace("folds.pivot_table", "shown = folds.pivot_table"), namespace)
    frame = losses_frame("kfold").assign(hit=lambda f: 1 - f["loss"])
    expected = frame.groupby(["replication", "fold", "model"])["hit"].mean().unstack("model")
    np.testing.assert_allclose(namespace["shown"].to_numpy(), expected.to_numpy())
