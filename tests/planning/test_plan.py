"""plan(): the components it estimates, the designs it recommends, its errors and its words."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

import cvreport
from cvreport.errors import CVReportError, DataError, DesignError
from cvreport.planning import VarianceComponents, estimate_components, plan_from_components
from cvreport.planning.power import corrected_t_power

PAIR = ("logistic_regression", "decision_tree")


@pytest.fixture(scope="module")
def pilot():
    return cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )


def fold_scores(values: np.ndarray) -> cvreport.ResultsTable:
    """A per-fold score table whose differences A − B are ``values`` (m × K) and B scores 0."""
    m, k = values.shape
    rows = [
        {"replication": i, "fold": j, "model": model, "error": value}
        for i in range(m)
        for j in range(k)
        for model, value in (("A", values[i, j]), ("B", 0.0))
    ]
    return cvreport.ResultsTable.from_fold_scores(pd.DataFrame(rows), score="error")


def test_components_are_the_one_way_anova_mean_squares():
    rng = np.random.default_rng(3)
    d = rng.normal(0.01, 0.02, size=(6, 5))
    vc = estimate_components(fold_scores(d), "A", "B")
    groups = list(d)
    ms_within = sum(((g - g.mean()) ** 2).sum() for g in groups) / (6 * 4)
    f = stats.f_oneway(*groups).statistic  # MS_between / MS_within
    assert vc.within == pytest.approx(ms_within)
    assert vc.between == pytest.approx((f * ms_within - ms_within) / 5)
    assert vc.common == pytest.approx((vc.within + vc.between) / 4)  # n2/n1 = 1/(K − 1)
    assert (vc.source, vc.df_within, vc.df_between) == ("replications", 24.0, 5.0)


def test_one_kfold_run_takes_the_equicorrelated_model():
    d = np.array([[0.02, -0.01, 0.03, 0.0, 0.01]])
    vc = estimate_components(fold_scores(d), "A", "B")
    assert vc.within == pytest.approx(np.var(d, ddof=1))
    assert (vc.between, vc.source) == (0.0, "heuristic")
    assert vc.common == pytest.approx(vc.within / 4)


def test_pilot_components_use_the_tables_fold_sizes(pilot):
    vc = estimate_components(pilot, *PAIR)
    d = pilot.loss_differences(*PAIR).to_numpy()
    sizes = pilot.train_sizes()
    ratio = sizes["n_test"].sum() / sizes["n_train"].sum()
    assert vc.test_train_ratio == pytest.approx(ratio)
    assert vc.within == pytest.approx(((d - d.mean(axis=1, keepdims=True)) ** 2).sum() / 5)


def test_the_smallest_design_reaches_the_power_and_one_replication_less_does_not(pilot):
    res = cvreport.plan(pilot, *PAIR, effect=0.05, power=0.8)
    assert res.best.test == "corrected_repeated_kfold_ttest"
    design = res.best.design
    vc = estimate_components(pilot, *PAIR).at(design.K)
    assert corrected_t_power(0.05, vc, design.m) >= 0.8 > corrected_t_power(0.05, vc, design.m - 1)
    assert res.best.power == pytest.approx(corrected_t_power(0.05, vc, design.m))
    frame = res.to_frame()
    assert list(frame.columns) == [
        "test",
        "label",
        "design",
        "m",
        "K",
        "n_validation",
        "trainings",
        "power",
        "reaches",
        "type_i_error",
        "holds_level",
        "power_method",
    ]
    assert (frame.reaches == (frame.power >= 0.8)).all()


def test_given_designs_are_the_only_rows(pilot):
    res = cvreport.plan(pilot, *PAIR, effect=0.05, designs=["10x10", "5x2", "hold-out 500"])
    frame = res.to_frame()
    assert sorted(set(frame.design)) == ["10×10 CV", "5×2 CV", "hold-out set of 500 records"]
    row = frame[(frame.test == "corrected_repeated_kfold_ttest") & (frame.design == "10×10 CV")]
    vc = estimate_components(pilot, *PAIR).at(10)
    assert float(row.power.iloc[0]) == pytest.approx(corrected_t_power(0.05, vc, 10))


def test_an_anti_conservative_test_is_flagged_and_never_best(pilot):
    res = cvreport.plan(pilot, *PAIR, effect=0.05)
    f_test = next(r for r in res.recommendations if r.test == "combined_ftest_5x2cv")
    assert f_test.type_i_error > 0.075 and "rejects too often" in f_test.note
    assert res.best.test != "combined_ftest_5x2cv"


def test_an_effect_below_the_ceiling_says_more_replications_cannot_help():
    vc = VarianceComponents(within=0.001, between=0.0, common=0.001 / 9, K=10)
    res = plan_from_components(vc, None, effect=0.01)
    rec = res.recommendations[0]
    assert rec.design is None and res.best is None
    assert "More replications cannot help" in rec.note
    # within grows with K, common = within/(K − 1) is smallest at K = 10 (0.001/9, against
    # 0.0002 at K = 2 and 0.000125 at K = 5), so the best limit is that of 10-fold designs
    z = stats.norm.ppf(0.975)
    lam = 0.01 / math.sqrt(0.001 / 9)
    limit = stats.norm.sf(z - lam) + stats.norm.cdf(-z - lam)
    assert f"cannot exceed {limit:.3f}" in rec.note


def test_limits_speak_of_pilot_size_normality_and_the_heuristic(pilot):
    res = cvreport.plan(pilot, *PAIR, effect=0.05)
    low, high = (5 / stats.chi2.ppf(q, 5) for q in (0.975, 0.025))
    assert f"between {low:.2f} and {high:.2f} times" in res.limits
    for words in ("5 degrees of freedom", "normal", "ρ = n2/(n1 + n2)", "Bengio & Grandvalet"):
        assert words in res.limits
    text = str(res.summary())
    assert "Smallest design reaching the power" in text and res.limits[:40] in " ".join(
        text.split()
    )


def test_the_result_is_frozen(pilot):
    res = cvreport.plan(pilot, *PAIR, effect=0.05)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.effect = 0.1  # type: ignore[misc]


def test_mcnemar_hold_out_sizes_from_the_discordance(pilot):
    res = cvreport.plan(pilot, *PAIR, effect=0.03, designs=["hold-out 1000"])
    counts = pilot.contingency(*PAIR)
    psi = (counts.n01.sum() + counts.n10.sum()) / counts[
        ["n00", "n01", "n10", "n11"]
    ].to_numpy().sum()
    assert res.discordance.rate == pytest.approx(psi)
    assert "more records than the pilot's data set holds (569)" in res.recommendations[0].note


@pytest.mark.parametrize(
    ("options", "error", "words"),
    [
        ({"effect": 0}, CVReportError, "effect must be a positive"),
        ({"effect": -0.01}, CVReportError, "effect must be a positive"),
        ({"effect": 0.01, "power": 1.0}, CVReportError, "power must lie strictly"),
        ({"effect": 0.01, "power": 0}, CVReportError, "power must lie strictly"),
        ({"effect": 0.01, "alpha": 0}, CVReportError, "alpha must lie"),
        ({"effect": 0.01, "designs": ["ten by ten"]}, DesignError, "cannot read"),
        ({"effect": 0.01, "designs": ["30 splits"]}, DesignError, "none of the given designs"),
    ],
)
def test_bad_options_are_typed_errors(pilot, options, error, words):
    with pytest.raises(error, match=words):
        cvreport.plan(pilot, *PAIR, **options)


def test_models_must_be_in_the_table(pilot):
    with pytest.raises(DataError, match="unknown model"):
        cvreport.plan(pilot, "logistic_regression", "forest", effect=0.01)
    with pytest.raises(DataError, match="holds 3 models"):
        cvreport.plan(pilot, effect=0.01)


def test_the_pilot_must_be_a_table():
    with pytest.raises(DataError, match=r"must be a cvreport\.ResultsTable"):
        cvreport.plan(pd.DataFrame({"x": [1]}), "a", "b", effect=0.01)


def test_a_pilot_too_small_to_estimate_a_variance():
    holdout = pd.DataFrame(
        {"model": ["a", "b"] * 3, "record": [0, 0, 1, 1, 2, 2], "loss": [0.2, 0.1] * 3}
    )
    table = cvreport.ResultsTable(holdout, replication=None, fold=None)
    with pytest.raises(DesignError, match="single split"):
        cvreport.plan(table, "a", "b", effect=0.01)


def test_differences_that_never_vary_cannot_plan():
    with pytest.raises(DataError, match="variance is 0"):
        cvreport.plan(fold_scores(np.full((2, 5), 0.01)), "A", "B", effect=0.01)


def test_a_repeated_hold_out_pilot_plans_more_splits_of_the_same_size():
    rng = np.random.default_rng(5)
    rows = []
    for j in range(15):
        rows += [
            {"replication": j, "model": "A", "auc": 0.80 + rng.normal(0, 0.02)},
            {"replication": j, "model": "B", "auc": 0.79 + rng.normal(0, 0.02)},
        ]
    table = cvreport.ResultsTable.from_fold_scores(
        pd.DataFrame(rows), score="auc", fold=None, test_train_ratio=0.5
    )
    res = cvreport.plan(table, "A", "B", effect=0.06)
    d = table.differences("A", "B").to_numpy().ravel()
    splits = res.best.design.m
    assert res.best.test == "corrected_resampled_ttest" and res.best.design.K == 1
    # TTestPower: λ = es √J, so es = Δ / sqrt(s² (1/J + n2/n1) J)
    es = 0.06 / math.sqrt(np.var(d, ddof=1) * (1 / splits + 0.5) * splits)
    assert res.best.power == pytest.approx(TTestPower().power(es, nobs=splits, alpha=0.05))
    assert (
        TTestPower().power(
            0.06 / math.sqrt(np.var(d, ddof=1) * (1 / (splits - 1) + 0.5) * (splits - 1)),
            nobs=splits - 1,
            alpha=0.05,
        )
        < 0.8
        <= res.best.power
    )
    assert "varies their number" in res.limits


def test_a_repeated_hold_out_of_scores_needs_the_split_sizes():
    frame = pd.DataFrame(
        {
            "replication": [0, 0, 1, 1, 2, 2],
            "model": ["A", "B"] * 3,
            "auc": [0.8, 0.7, 0.9, 0.8, 0.7, 0.7],
        }
    )
    table = cvreport.ResultsTable.from_fold_scores(frame, score="auc", fold=None)
    with pytest.raises(DesignError, match="test_train_ratio"):
        cvreport.plan(table, "A", "B", effect=0.01)
