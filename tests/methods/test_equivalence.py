"""Equivalence and non-inferiority against a margin: two one-sided tests (Schuirmann 1987).

Checked against statsmodels' ``ttost_paired`` where the variance is the paired t's,
against a hand computation with the corrected variance ``(1/J + n2/n1) s²``, with
DeLong's z and standard error, with Bayle et al.'s σ̂/√n, and with the paired
bootstrap's own distribution; in the user's direction for a loss and for a score,
under swapping A and B, and in the report's sentences.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.weightstats import ttost_paired

import cvreport
from cvreport import arrays
from cvreport.data.metric import Metric
from cvreport.errors import CVReportError
from cvreport.methods import bootstrap_margin
from cvreport.methods.equivalence import bootstrap_with_margin, check_margin
from cvreport.methods.registry import SPECS
from cvreport.reporting import interpret
from tests._designs import PAIRED, TABLES, losses_frame, run

MARGIN_TESTS = (
    "corrected_resampled_ttest",
    "corrected_repeated_kfold_ttest",
    "cv_confidence_interval",
)
SPECS_BY_NAME = {spec.name: spec for spec in SPECS}


def score_table(kind: str) -> cvreport.ResultsTable:
    frame = losses_frame(kind).assign(hit=lambda f: 1 - f["loss"]).drop(columns="loss")
    return cvreport.ResultsTable.from_formula(
        "hit ~ model | replication + fold",
        frame,
        direction="higher",
        **({"test_train_ratio": 0.5} if kind == "repeated_holdout" else {}),
    )


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def hand_tost(mean, se, margin, df=None):
    """(t_lower, p_lower, t_upper, p_upper) written out with scipy.stats."""
    dist = stats.norm if df is None else stats.t(df)
    t_low, t_high = (mean + margin) / se, (mean - margin) / se
    return t_low, dist.sf(t_low), t_high, dist.cdf(t_high)


DIFFERENCES = np.array([0.012, -0.004, 0.021, 0.003, 0.009, -0.011, 0.015, 0.006, 0.0, 0.018])


# -- the corrected t tests ------------------------------------------------------------------
@pytest.mark.parametrize("margin", [0.005, 0.01, 0.03])
def test_without_the_correction_the_tost_is_statsmodels_ttost_paired(margin):
    """n2/n1 → 0 leaves the paired t's variance s²/J: statsmodels' TOST on the same differences."""
    ours = arrays.corrected_resampled_ttest(
        DIFFERENCES, 1e-15, alternative="equivalent", margin=margin
    )
    pvalue, (t_low, p_low, df_low), (t_high, p_high, _) = ttost_paired(
        DIFFERENCES, np.zeros_like(DIFFERENCES), -margin, margin
    )
    assert ours.df == df_low == DIFFERENCES.size - 1
    assert ours.statistic_lower == pytest.approx(t_low, rel=1e-9)
    assert ours.statistic_upper == pytest.approx(t_high, rel=1e-9)
    assert ours.pvalue_lower == pytest.approx(p_low, rel=1e-9)
    assert ours.pvalue_upper == pytest.approx(p_high, rel=1e-9)
    assert ours.pvalue == pytest.approx(pvalue, rel=1e-9)


def test_the_kfold_test_without_correction_is_statsmodels_ttost_paired_too():
    d = DIFFERENCES.reshape(2, 5)
    ours = arrays.corrected_repeated_kfold_ttest(d, 1e-15, alternative="equivalent", margin=0.01)
    pvalue, *_ = ttost_paired(DIFFERENCES, np.zeros(10), -0.01, 0.01)
    assert ours.pvalue == pytest.approx(pvalue, rel=1e-9)


@pytest.mark.parametrize("alternative", ["equivalent", "non-inferior"])
@pytest.mark.parametrize("ratio", [0.5, 1 / 9])
def test_the_corrected_tost_uses_the_corrected_variance(alternative, ratio):
    """(mean ± m) / sqrt((1/J + n2/n1) s²) ~ t(J − 1), by hand."""
    margin = 0.02
    se = math.sqrt((1 / DIFFERENCES.size + ratio) * DIFFERENCES.var(ddof=1))
    t_low, p_low, t_high, p_high = hand_tost(DIFFERENCES.mean(), se, margin, DIFFERENCES.size - 1)
    for ours in (
        arrays.corrected_resampled_ttest(
            DIFFERENCES, ratio, alternative=alternative, margin=margin
        ),
        arrays.corrected_repeated_kfold_ttest(
            DIFFERENCES.reshape(2, 5), ratio, alternative=alternative, margin=margin
        ),
    ):
        assert ours.standard_error == pytest.approx(se, rel=1e-12)
        assert (ours.statistic_lower, ours.statistic_upper) == pytest.approx((t_low, t_high))
        assert (ours.pvalue_lower, ours.pvalue_upper) == pytest.approx((p_low, p_high))
        # the differences are losses: non-inferior is H1 mean < margin, the upper test
        expected = max(p_low, p_high) if alternative == "equivalent" else p_high
        assert ours.pvalue == pytest.approx(expected, rel=1e-12)
        assert ours.margin == margin and ours.alternative == alternative


def test_the_tost_rejects_exactly_when_the_1_minus_2_alpha_interval_lies_within_the_margin():
    two_sided = arrays.corrected_resampled_ttest(DIFFERENCES, 0.2)
    for margin in np.linspace(0.005, 0.04, 36):
        res = arrays.corrected_resampled_ttest(
            DIFFERENCES, 0.2, alternative="equivalent", margin=margin
        )
        for alpha in (0.01, 0.05, 0.1):
            low, high = res.conf_int(alpha)
            assert (low, high) == pytest.approx(two_sided.conf_int(2 * alpha), rel=1e-12)
            if not math.isclose(max(abs(low), abs(high)), margin, rel_tol=1e-9):
                assert res.reject(alpha) == (-margin < low and high < margin)


# -- the CV interval and DeLong ------------------------------------------------------------
def test_the_cv_interval_tost_uses_bayle_et_al_standard_error():
    rng = np.random.default_rng(4)
    h = rng.choice([-1.0, 0.0, 0.0, 1.0], size=300) + 0.0
    folds = np.arange(300) % 5
    two_sided = arrays.cv_confidence_interval(h, folds, alternative="two-sided")
    res = arrays.cv_confidence_interval(h, folds, alternative="equivalent", margin=0.1)
    se = two_sided.std_dev / math.sqrt(300)
    t_low, p_low, t_high, p_high = hand_tost(h.mean(), se, 0.1)
    assert (res.statistic_lower, res.statistic_upper) == pytest.approx((t_low, t_high))
    assert (res.pvalue_lower, res.pvalue_upper) == pytest.approx((p_low, p_high))
    assert res.pvalue == pytest.approx(max(p_low, p_high))
    assert res.conf_int(0.05) == pytest.approx(two_sided.conf_int(0.1), rel=1e-12)


def _auc_data(seed=2, n=120):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, y * 0.6 + rng.random(n), y * 0.55 + rng.random(n)


@pytest.mark.parametrize("alternative", ["equivalent", "non-inferior"])
def test_delong_tost_from_its_z_and_standard_error(alternative):
    y, a, b = _auc_data()
    two_sided = arrays.delong_test(y, a, b)
    res = arrays.delong_test(y, a, b, alternative=alternative, margin=0.05)
    assert two_sided.statistic == pytest.approx(two_sided.estimate / two_sided.standard_error)
    t_low, p_low, t_high, p_high = hand_tost(two_sided.estimate, two_sided.standard_error, 0.05)
    assert (res.statistic_lower, res.statistic_upper) == pytest.approx((t_low, t_high))
    assert (res.pvalue_lower, res.pvalue_upper) == pytest.approx((p_low, p_high))
    # AUC is a score: non-inferior is H1 AUC(A) − AUC(B) > −margin, the lower test
    expected = max(p_low, p_high) if alternative == "equivalent" else p_low
    assert res.pvalue == pytest.approx(expected, rel=1e-12)
    assert res.conf_int(0.05) == pytest.approx(two_sided.conf_int(0.1), rel=1e-12)


def test_delong_on_a_table_swaps_like_the_array_test():
    y, a, b = _auc_data()
    n = y.size
    frame = pd.DataFrame(
        {
            "model": ["A"] * n + ["B"] * n,
            "record": list(range(n)) * 2,
            "y": np.concatenate([y, y]),
            "p": np.concatenate([a, b]),
        }
    )
    table = cvreport.ResultsTable.from_predictions(
        frame, truth="y", score="p", metric="roc_auc", replication=None, fold=None
    )
    forward = cvreport.delong_test(table, "A", "B", alternative="equivalent", margin=0.05)
    backward = cvreport.delong_test(table, "B", "A", alternative="equivalent", margin=0.05)
    assert forward.pvalue == pytest.approx(
        arrays.delong_test(y, a, b, alternative="equivalent", margin=0.05).pvalue, rel=1e-12
    )
    assert_swapped(forward, backward)


# -- the paired bootstrap --------------------------------------------------------------------
def _prediction_table(seed=5, n=400):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.82, y, 1 - y)
    b = np.where(rng.random(n) < 0.80, y, 1 - y)
    frame = pd.DataFrame(
        {
            "model": ["A"] * n + ["B"] * n,
            "record": list(range(n)) * 2,
            "y": np.concatenate([y, y]),
            "yhat": np.concatenate([a, b]),
        }
    )
    return y, a, b, frame


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_the_bootstrap_tests_its_own_1_minus_2_alpha_interval_against_the_margin(method):
    y, a, b, _ = _prediction_table()
    options = {"metric": "accuracy", "n_resamples": 1999, "random_state": 1, "method": method}
    base = quiet(arrays.paired_bootstrap_test, y, a, b, **options)
    res = quiet(
        bootstrap_margin.paired_bootstrap_equivalence_test_array,
        y,
        a,
        b,
        margin=0.06,
        **options,
    )
    assert res.conf_int(0.05) == pytest.approx(base.conf_int(0.1), rel=1e-12)
    dist = base.bootstrap_distribution
    if method == "percentile":  # (1 + #resamples beyond the margin) / (B + 1)
        assert res.pvalue_lower == pytest.approx((1 + np.sum(dist <= -0.06)) / 2000)
        assert res.pvalue_upper == pytest.approx((1 + np.sum(dist >= 0.06)) / 2000)
    assert res.pvalue == max(res.pvalue_lower, res.pvalue_upper)
    assert (res.statistic_lower, res.statistic_upper) == pytest.approx(
        (base.estimate + 0.06, base.estimate - 0.06)
    )
    # the p-value is the level at which the interval's end meets the margin
    for alpha in (0.6 * res.pvalue, min(0.49, 1.6 * res.pvalue)):
        low, high = res.conf_int(alpha)
        assert res.reject(alpha) == (-0.06 < low and high < 0.06)


def test_the_bootstrap_wrapper_on_a_table_keeps_the_p_value_when_a_and_b_swap():
    _, _, _, frame = _prediction_table()
    table = cvreport.ResultsTable.from_predictions(
        frame, truth="y", prediction="yhat", metric="accuracy", replication=None, fold=None
    )
    run_it = bootstrap_margin.paired_bootstrap_equivalence_test
    forward = quiet(
        run_it, table, "A", "B", margin=0.06, n_resamples=999, random_state=3, method="percentile"
    )
    backward = quiet(
        run_it, table, "B", "A", margin=0.06, n_resamples=999, random_state=3, method="percentile"
    )
    assert forward.models == ("A", "B") and forward.direction == "higher"
    assert_swapped(forward, backward)
    worse = quiet(
        run_it,
        table,
        "A",
        "B",
        margin=0.06,
        alternative="non-inferior",
        n_resamples=999,
        random_state=3,
        method="percentile",
    )
    assert worse.pvalue == forward.pvalue_lower  # accuracy: A − B > −margin


def test_the_bootstrap_p_value_for_the_loss_side_uses_the_upper_end():
    boot = cvreport.methods.resampling_results.BootstrapTestResult(
        statistic=0.01,
        pvalue=0.5,
        estimate=0.01,
        interval_method="percentile",
        direction="lower",
        bootstrap_distribution=np.linspace(-0.02, 0.04, 199),
    )
    res = bootstrap_with_margin(boot, "non-inferior", 0.03)
    assert (
        res.pvalue
        == res.pvalue_upper
        == pytest.approx((1 + np.sum(np.linspace(-0.02, 0.04, 199) >= 0.03)) / 200)
    )


# -- direction and swapping -------------------------------------------------------------------
def assert_swapped(forward, backward):
    assert backward.pvalue == pytest.approx(forward.pvalue, rel=1e-9, abs=1e-12)
    assert backward.estimate == pytest.approx(-forward.estimate, rel=1e-9, abs=1e-12)
    assert backward.statistic_lower == pytest.approx(-forward.statistic_upper, rel=1e-9)
    assert backward.statistic_upper == pytest.approx(-forward.statistic_lower, rel=1e-9)
    assert backward.pvalue_lower == pytest.approx(forward.pvalue_upper, rel=1e-9, abs=1e-12)
    assert backward.pvalue_upper == pytest.approx(forward.pvalue_lower, rel=1e-9, abs=1e-12)
    low, high = forward.conf_int(0.05)
    assert backward.conf_int(0.05) == pytest.approx((-high, -low), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", MARGIN_TESTS)
@pytest.mark.parametrize("alternative", ["equivalent", "non-inferior"])
def test_a_score_table_gives_the_loss_result_mirrored(name, alternative):
    """hit = 1 − error: "A is not worse" is one claim, so p-values agree, all else mirrors."""
    spec = SPECS_BY_NAME[name]
    kind = spec.designs[0]
    loss = run(spec, TABLES[kind], "A", "B", alternative=alternative, margin=0.08)
    score = run(spec, score_table(kind), "A", "B", alternative=alternative, margin=0.08)
    assert (loss.direction, score.direction) == ("lower", "higher")
    assert score.alternative == loss.alternative == alternative
    assert score.pvalue == pytest.approx(loss.pvalue, rel=1e-12)
    assert score.statistic == pytest.approx(-loss.statistic, rel=1e-12)
    assert_swapped(loss, score)  # mirrored exactly as a swap of A and B would


@pytest.mark.parametrize("name", MARGIN_TESTS)
def test_swapping_a_and_b_keeps_the_equivalence_p_value(name):
    spec = SPECS_BY_NAME[name]
    table = TABLES[spec.designs[0]]
    forward = run(spec, table, "A", "B", alternative="equivalent", margin=0.2)
    backward = run(spec, table, "B", "A", alternative="equivalent", margin=0.2)
    assert_swapped(forward, backward)
    assert forward.reject(0.05) == backward.reject(0.05)
    # non-inferiority is not symmetric: "B is not worse than A" is the other one-sided test
    ni = run(spec, table, "B", "A", alternative="non-inferior", margin=0.2)
    assert ni.pvalue == pytest.approx(forward.pvalue_lower, rel=1e-9)


@pytest.mark.parametrize("name", MARGIN_TESTS)
def test_non_inferiority_is_in_the_users_direction(name):
    """A has error 0.2 and B 0.35: A is not worse than B; B is not shown not worse than A."""
    spec = SPECS_BY_NAME[name]
    kind = spec.designs[0]
    margin = 0.3 if kind == "repeated_holdout" else 0.1  # 5 splits of 40 records: noisy
    for table in (TABLES[kind], score_table(kind)):
        good = run(spec, table, "A", "B", alternative="non-inferior", margin=margin)
        bad = run(spec, table, "B", "A", alternative="non-inferior", margin=margin)
        assert good.pvalue < 0.05 < bad.pvalue
        low, high = good.conf_int(0.05)
        assert (low > -margin) if table.higher_is_better else (high < margin)


# -- errors ---------------------------------------------------------------------------------
BAD_MARGINS = [
    ({"alternative": "equivalent"}, "needs margin="),
    ({"alternative": "non-inferior", "margin": 0.0}, "positive"),
    ({"alternative": "equivalent", "margin": -0.01}, "positive"),
    ({"alternative": "equivalent", "margin": float("nan")}, "positive"),
    ({"alternative": "equivalent", "margin": True}, "positive number"),
    ({"alternative": "two-sided", "margin": 0.01}, "drop margin="),
    ({"alternative": "equal", "margin": 0.01}, "'equivalent'"),
]


@pytest.mark.parametrize("name", MARGIN_TESTS)
@pytest.mark.parametrize(("options", "words"), BAD_MARGINS)
def test_a_bad_margin_is_a_typed_error_naming_the_fix(name, options, words):
    spec = SPECS_BY_NAME[name]
    with pytest.raises(CVReportError, match=words):
        run(spec, TABLES[spec.designs[0]], "A", "B", **options)


@pytest.mark.parametrize(("options", "words"), BAD_MARGINS[:-1])
def test_a_bad_margin_is_refused_by_the_array_functions_too(options, words):
    y, a, b = _auc_data()
    calls = [
        lambda: arrays.corrected_resampled_ttest(DIFFERENCES, 0.5, **options),
        lambda: arrays.corrected_repeated_kfold_ttest(DIFFERENCES, **options),
        lambda: arrays.cv_confidence_interval(DIFFERENCES, np.arange(10) % 2, **options),
        lambda: arrays.delong_test(y, a, b, **options),
    ]
    for call in calls:
        with pytest.raises(CVReportError, match=words):
            call()


def test_the_cv_interval_refuses_a_margin_with_its_default_alternative():
    with pytest.raises(CVReportError, match="margin="):
        run(SPECS_BY_NAME["cv_confidence_interval"], TABLES["kfold"], "A", "B", margin=0.1)


def test_the_bootstrap_wrapper_refuses_what_it_sets_itself():
    y, a, b, _ = _prediction_table()
    wrapper = bootstrap_margin.paired_bootstrap_equivalence_test_array
    with pytest.raises(CVReportError, match="alpha="):
        wrapper(y, a, b, margin=0.05, confidence_level=0.9)
    with pytest.raises(CVReportError, match="paired_bootstrap_test"):
        wrapper(y, a, b, margin=0.05, alternative="two-sided")
    with pytest.raises(CVReportError, match="needs margin="):
        wrapper(y, a, b, margin=None)


@pytest.mark.parametrize(
    "spec",
    [
        s
        for s in PAIRED
        if s.name not in MARGIN_TESTS and "alternative" in inspect.signature(s.function).parameters
    ],
    ids=lambda spec: spec.name,
)
def test_the_other_tests_refuse_equivalence(spec):
    with pytest.raises(CVReportError):
        run(spec, TABLES[spec.designs[0]], "A", "B", alternative="equivalent")


def test_check_margin_returns_a_float():
    assert check_margin("non-inferior", np.float32(0.5)) == 0.5
    assert check_margin("less", None) is None


# -- what the result shows --------------------------------------------------------------------
def test_summary_and_frame_show_the_margin_and_the_90_percent_interval():
    res = run(
        SPECS_BY_NAME["corrected_repeated_kfold_ttest"],
        score_table("kfold"),
        "A",
        "B",
        alternative="non-inferior",
        margin=0.02,
    )
    text = res.summary().as_text()
    assert "H1: A − B > −0.02 (A not worse)" in text
    assert "90% interval" in text and "above −0.02" in text and "95% interval" not in text
    assert "H0: A − B ≤ −0.02: p-value" in text and "H0: A − B ≤ −0.02: statistic" in text
    # the half that does not decide non-inferiority is in to_frame(), not in the summary
    assert "H0: A − B ≥ 0.02" not in text
    assert "by one one-sided test, the non-inferiority half" in " ".join(text.split())
    row = res.to_frame().iloc[0]
    assert (row["margin"], row["ci_level"]) == (0.02, pytest.approx(0.9))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(res.conf_int(0.05))
    assert row["pvalue_lower"] == res.pvalue == row["pvalue"]
    assert row["statistic_upper"] == res.statistic_upper
    with pytest.raises(CVReportError, match=r"below 0\.5"):
        res.conf_int(0.5)


# -- the sentences ----------------------------------------------------------------------------
def _reading(table, a, b, alternative, margin):
    rep = cvreport.report(
        table,
        pairs=[(a, b)],
        tests=["corrected_repeated_kfold_ttest"],
        test_options={
            "corrected_repeated_kfold_ttest": {"alternative": alternative, "margin": margin}
        },
    )
    outcome = rep.comparisons[0].outcomes[0]
    return outcome.result, outcome.interpretation, outcome.headline, rep.metric.name


@pytest.mark.parametrize("score", [False, True])
def test_the_report_says_what_was_shown_for_a_loss_and_a_score(score):
    table = score_table("kfold") if score else TABLES["kfold"]
    res, text, short, name = _reading(table, "A", "B", "non-inferior", 0.02)
    assert name == ("hit" if score else "error rate")
    low, high = res.conf_int(0.05)
    bound = "lies above −0.02" if score else "lies below 0.02"
    assert text.startswith(
        f"Corrected repeated K-fold CV t test: at α = 0.05, A is not worse than B by more "
        f"than 0.02 {name} ({interpret.p_equals(res.pvalue)}; 90% interval for A − B "
        f"[{low:.4f}, {high:.4f}] {bound})."
    )
    assert short.startswith(f"non-inferiority by the margin 0.02 {name} shown")
    res, text, short, _ = _reading(table, "B", "A", "non-inferior", 0.02)
    assert "non-inferiority was NOT shown" in text and "not evidence that B is worse" in text
    assert "NOT shown" in short
    res, text, _, _ = _reading(table, "B", "A", "equivalent", 0.02)
    assert f"equivalence of B and A within ±0.02 {name} was NOT shown" in text
    assert "are equivalent" not in text and "equal" not in text.replace("equivalen", "")
    res, text, _, _ = _reading(table, "A", "B", "equivalent", 0.5)
    assert f"A and B are equivalent within ±0.5 {name}" in text and "lies within ±0.5" in text


def test_the_hypothesis_sentence_states_the_margin():
    loss = Metric("error", "lower")
    assert interpret.hypothesis_sentence("non-inferior", "A", "B", loss, 0.01) == (
        "H₁: A is not worse than B by 0.01 error or more (A − B < 0.01)."
    )
    assert interpret.hypothesis_sentence("equivalent", "A", "B", loss, 0.01) == (
        "H₁: A and B are equivalent within ±0.01 error (two one-sided tests: −0.01 < A − B < 0.01)."
    )


def test_the_documented_example_gives_the_documented_numbers():
    """README and docs/methods.md print this example's p-value, interval and sentence."""
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    res = quiet(
        cvreport.corrected_repeated_kfold_ttest,
        table,
        "logistic_regression",
        "naive_bayes",
        alternative="non-inferior",
        margin=0.005,
    )
    low, high = res.conf_int()
    printed = f"{res.pvalue:.3f}", f"({low:.4f}, {high:.4f})"
    assert printed == ("0.024", "(-0.0749, -0.0038)")
    assert res.conf_int() == pytest.approx(res.conf_int(0.05)) and high < 0.005
    for path in ("README.md", "docs/methods.md"):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        assert "0.024" in text and "-0.0749, -0.0038" in text  # printed as a doctest
    _, sentence, _, _ = _reading(table, "logistic_regression", "naive_bayes", "non-inferior", 0.005)
    assert sentence.endswith(
        "logistic_regression is not worse than naive_bayes by more than 0.005 error rate "
        "(p = 0.024; 90% interval for A − B [-0.0749, -0.0038] lies below 0.005)."
    )


def test_delong_per_fold_tests_each_fold_against_the_margin():
    y, a, b = _auc_data(n=160)
    n = y.size
    frame = pd.DataFrame(
        {
            "model": ["A"] * n + ["B"] * n,
            "record": list(range(n)) * 2,
            "fold": list(np.arange(n) % 2) * 2,
            "y": np.concatenate([y, y]),
            "p": np.concatenate([a, b]),
        }
    )
    table = cvreport.ResultsTable.from_predictions(
        frame, truth="y", score="p", metric="roc_auc", replication=None
    )
    rows = cvreport.methods.delong.delong_tests_per_fold(
        table, alternative="equivalent", margin=0.1
    )
    for fold, row in rows.iterrows():
        keep = np.arange(n) % 2 == fold
        alone = arrays.delong_test(y[keep], a[keep], b[keep], alternative="equivalent", margin=0.1)
        assert row["pvalue"] == pytest.approx(alone.pvalue, rel=1e-12)
        assert row["margin"] == 0.1


@pytest.mark.parametrize(("value", "pvalue"), [(0.125, 0.0), (0.25, 1.0)])
def test_zero_variance_follows_the_documented_convention(value, pvalue):
    """Equal differences: ±inf statistics and p = 0 inside the margin, 0/0 and p = 1 on it."""
    with pytest.warns(cvreport.DegenerateStatisticWarning):
        res = arrays.corrected_resampled_ttest(
            np.full(6, value), 0.2, alternative="equivalent", margin=0.25
        )
    assert res.pvalue == pvalue and res.warnings
    assert res.statistic_lower == math.inf
