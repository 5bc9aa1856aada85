"""What a reader meets: each point read from the user's side (the API called, the report rendered).

Every test calls the public API or renders a report as a user would, and checks
the words or numbers a reader sees, recomputed independently (numpy, scipy,
scikit-learn) where they are numbers.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.rendering.formatting import format_number, format_pvalue
from cvreport.reporting.interpret import in_sentence
from cvreport.reporting.report import Report
from tests._designs import TABLES

stats = pytest.importorskip("scipy.stats")
sklearn_datasets = pytest.importorskip("sklearn.datasets")


def quiet(*args: Any, **kwargs: Any) -> Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Report(*args, **kwargs)


def _predictions(kfold: bool) -> pd.DataFrame:
    """Breast-cancer predictions of two scikit-learn models (hold-out, or 2×5-fold)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, train_test_split
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = sklearn_datasets.load_breast_cancer(return_X_y=True)
    if kfold:
        splits = [
            (rep, fold, train, test)
            for rep in range(2)
            for fold, (train, test) in enumerate(
                StratifiedKFold(5, shuffle=True, random_state=rep).split(x, y)
            )
        ]
    else:
        train, test = train_test_split(np.arange(y.size), test_size=0.4, random_state=0)
        splits = [(0, 0, train, test)]
    rows = []
    for rep, fold, train, test in splits:
        for name, model in (
            ("logreg", make_pipeline(StandardScaler(), LogisticRegression())),
            ("nb", GaussianNB()),
        ):
            p = model.fit(x[train], y[train]).predict_proba(x[test])[:, 1]
            rows.append(
                pd.DataFrame(
                    {
                        "model": name,
                        "rep": rep,
                        "fold": fold,
                        "record": test,
                        "y": y[test],
                        "p": p,
                        "yhat": (p > 0.5).astype(int),
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


@pytest.fixture(scope="module")
def holdout_predictions() -> pd.DataFrame:
    return _predictions(kfold=False)


@pytest.fixture(scope="module")
def kfold_predictions() -> pd.DataFrame:
    return _predictions(kfold=True)


@pytest.fixture(scope="module")
def holdout_auc(holdout_predictions: pd.DataFrame) -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_predictions(
        holdout_predictions, truth="y", score="p", metric="roc_auc", replication=None, fold=None
    )


@pytest.fixture(scope="module")
def kfold_auc_report(kfold_predictions: pd.DataFrame) -> Report:
    table = cvreport.ResultsTable.from_predictions(
        kfold_predictions, truth="y", score="p", metric="roc_auc", replication="rep", fold="fold"
    )
    return quiet(table, tests="all")


# -- 1. summary(alpha) honours alpha ------------------------------------------------------------
@pytest.mark.parametrize("alpha", [0.01, 0.1])
def test_summary_at_alpha_prints_that_level_and_that_decision(alpha: float) -> None:
    """Was: res.summary(alpha=0.01) printed a 95% interval and "reject H0 at α = 0.05"."""
    result = cvreport.paired_ttest_kfold(TABLES["kfold"], "A", "B")
    text = result.summary(alpha=alpha).as_text()
    d = TABLES["kfold"].differences("A", "B").to_numpy().ravel()
    half = stats.t.ppf(1 - alpha / 2, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    level = f"{1 - alpha:.0%}"
    shown = re.search(rf"{level} interval +\((\S+), (\S+)\)", text)
    assert shown is not None, text
    assert (float(shown[1]), float(shown[2])) == pytest.approx(
        (d.mean() - half, d.mean() + half), abs=6e-5
    )
    assert f"reject H0 at α = {alpha:g}" in text
    assert "95%" not in text and "0.05" not in text.split("reject H0")[1]
    row = result.to_frame(alpha).iloc[0]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((d.mean() - half, d.mean() + half))


@pytest.mark.parametrize(("alpha", "level"), [(0.01, "99%"), (0.025, "97.5%"), (0.1, "90%")])
def test_the_report_at_alpha_prints_that_level_everywhere(alpha: float, level: str) -> None:
    md = quiet(TABLES["kfold"], alpha=alpha).to_markdown()
    assert set(re.findall(r"\d+(?:\.\d+)?% interval", md)) == {f"{level} interval"}


# -- 2. Dietterich's 5×2cv t: the interval beside its own centre --------------------------------
def test_the_5x2cv_t_interval_stands_beside_p11_not_beside_the_mean() -> None:
    """Was: "estimate 0.0089" beside "95% interval (0.0110, 0.0268)", and the same in to_frame."""
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    a, b = "logistic_regression", "decision_tree"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = cvreport.paired_ttest_5x2cv(table, a, b)
    d = table.differences(a, b).to_numpy()
    variances = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    half = stats.t.ppf(0.975, 5) * math.sqrt(variances.sum() / 5)
    p11 = d[0, 0]
    text = result.summary().as_text()
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("95% interval of p₁⁽¹⁾"))
    assert lines[at - 1].startswith("p₁⁽¹⁾") and format_number(p11) in lines[at - 1]
    assert f"({format_number(p11 - half)}, {format_number(p11 + half)})" in lines[at]
    assert f"estimate (mean {result.loss_name} A − B)" in text
    row = result.to_frame().iloc[0]
    assert row["estimate"] == pytest.approx(d.mean())
    assert math.isnan(row["ci_low"]) and math.isnan(row["ci_high"])  # no interval of the mean
    assert row["first_split_difference"] == pytest.approx(p11)
    assert (row["first_split_ci_low"], row["first_split_ci_high"]) == pytest.approx(
        (p11 - half, p11 + half)
    )


# -- 3. tests="all" is a superset of tests="recommended" ----------------------------------------
def _ran(report: Report) -> set[str]:
    return {o.name for o in report.outcomes}


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_all_runs_every_test_that_recommended_runs_on_every_design(kind: str) -> None:
    recommended = quiet(TABLES[kind], tests="recommended")
    everything = quiet(TABLES[kind], tests="all")
    assert _ran(recommended) and _ran(recommended) <= _ran(everything)
    shown = {o.name for o in everything.outcomes if o.recommended}
    assert shown == {o.name for o in recommended.outcomes if o.recommended}


def test_all_on_a_holdout_auc_runs_delong_like_recommended(
    holdout_auc: cvreport.ResultsTable, holdout_predictions: pd.DataFrame
) -> None:
    """Was: tests="all" ran nothing ("No test could be run") while DeLong's test ran."""
    from sklearn.metrics import roc_auc_score

    everything = quiet(holdout_auc, tests="all")
    assert _ran(quiet(holdout_auc)) == {"delong_test"} <= _ran(everything)
    assert "No test could be run" not in everything.to_markdown()
    delong = next(o for o in everything.outcomes if o.name == "delong_test")
    auc = {m: roc_auc_score(g["y"], g["p"]) for m, g in holdout_predictions.groupby("model")}
    assert delong.recommended and delong.result.estimate == pytest.approx(
        auc["logreg"] - auc["nb"], rel=1e-12
    )


def test_all_stands_the_fallback_in_for_a_recommended_test_that_cannot_run(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cvreport.errors import DesignError
    from tests._fakes import FakeDesign, FakeTable, with_audit

    with_audit(monkeypatch, None)
    fake_tests["corrected_repeated_kfold_ttest"] = DesignError("needs training-set sizes")
    table = FakeTable(design=FakeDesign(kind="kfold", m=1, K=10), per_record=False)
    recommended, everything = Report(table), Report(table, tests="all")
    assert [o.name for o in recommended.outcomes if o.recommended] == ["paired_ttest_kfold"]
    assert [o.name for o in everything.outcomes if o.recommended] == ["paired_ttest_kfold"]
    assert _ran(recommended) <= _ran(everything)
    assert everything.comparisons[0].fallback_note == recommended.comparisons[0].fallback_note


# -- 4. a disagreement names its actual cause ---------------------------------------------------
def _three_models(shift: float) -> cvreport.ResultsTable:
    noise = np.random.default_rng(5).normal(0, 0.02, 10)
    other = np.random.default_rng(6).normal(0, 0.02, 10)
    scores = pd.DataFrame(
        {"k": np.repeat(np.arange(1, 11), 3), "clf": ["svm", "rf", "knn"] * 10,
         "auc": np.ravel(np.column_stack([0.9 + shift + noise, np.full(10, 0.9), 0.9 + other]))}
    )  # fmt: skip
    return cvreport.ResultsTable.from_formula("auc ~ clf | k", scores, per_fold=True)


def test_a_disagreement_caused_by_the_adjustment_says_so() -> None:
    """Was: "a one-sided probability above 0.95 is weaker evidence than a two-sided test" where
    the raw p was significant and only Holm's adjustment made it not."""
    from statsmodels.stats.multitest import multipletests

    tests = ["corrected_repeated_kfold_ttest", "bayesian_correlated_ttest"]
    options = {"bayesian_correlated_ttest": {"rope": 0.0}}
    pairs = [("svm", "rf"), ("svm", "knn"), ("rf", "knn")]  # the report's order
    for shift in np.linspace(0.0, 0.04, 81):  # searched with the test alone: a report is slow
        table = _three_models(shift)
        raw = [cvreport.corrected_repeated_kfold_ttest(table, a, b).pvalue for a, b in pairs]
        if raw[0] <= 0.05 < multipletests(raw, method="holm")[1][0]:
            break
    else:  # pragma: no cover - the search always lands in the window
        pytest.fail("no shift gave a significant raw and a non-significant adjusted p-value")
    report = quiet(table, tests=tests, test_options=options)
    assert [(c.a, c.b) for c in report.comparisons] == pairs
    frequentist, bayesian = report.comparisons[0].outcomes
    raw = [c.outcomes[0].result.pvalue for c in report.comparisons]
    holm = multipletests(raw, method="holm")[1]
    assert frequentist.adjusted == pytest.approx(holm[0])
    assert bayesian.posterior.p_a_better > 0.95 and frequentist.reject is False
    note = report.comparisons[0].disagreement
    assert "only after the multiplicity adjustment" in note
    assert f"p = {format_pvalue(raw[0])} is below α on its own" in note
    assert f"adjusted p = {format_pvalue(holm[0])}" in note
    assert "3 comparisons with Holm's step-down method" in note
    assert "one-sided" not in note and "two-sided" not in note


def test_a_disagreement_caused_by_the_two_sided_test_says_so() -> None:
    noise = np.random.default_rng(5).normal(0, 0.02, 10)
    for shift in np.linspace(0.0, 0.03, 61):
        scores = pd.DataFrame(
            {"k": np.repeat(np.arange(1, 11), 2), "clf": ["svm", "rf"] * 10,
             "auc": np.ravel(np.column_stack([0.9 + shift + noise, np.full(10, 0.9)]))}
        )  # fmt: skip
        report = quiet(
            cvreport.ResultsTable.from_formula("auc ~ clf | k", scores, per_fold=True),
            tests=["corrected_repeated_kfold_ttest", "bayesian_correlated_ttest"],
            test_options={"bayesian_correlated_ttest": {"rope": 0.0}},
        )
        frequentist, _bayesian = report.outcomes
        if 0.05 < frequentist.result.pvalue < 0.1:
            break
    else:  # pragma: no cover
        pytest.fail("no shift gave a borderline p-value")
    note = report.comparisons[0].disagreement
    p = frequentist.result.pvalue
    assert f"(p = {format_pvalue(p)}, two-sided)" in note
    assert f"it would be p = {format_pvalue(p / 2)}, at most α" in note
    assert "adjust" not in note


def test_a_difference_inside_the_rope_is_named_as_the_cause() -> None:
    noise = np.random.default_rng(5).normal(0, 0.001, 10)
    scores = pd.DataFrame(
        {"k": np.repeat(np.arange(1, 11), 2), "clf": ["svm", "rf"] * 10,
         "auc": np.ravel(np.column_stack([0.904 + noise, np.full(10, 0.9)]))}
    )  # fmt: skip
    report = quiet(
        cvreport.ResultsTable.from_formula("auc ~ clf | k", scores, per_fold=True),
        tests=["corrected_repeated_kfold_ttest", "bayesian_correlated_ttest"],
    )
    frequentist, bayesian = report.outcomes
    assert frequentist.reject and bayesian.posterior.p_equivalent > 0.95
    note = report.comparisons[0].disagreement
    assert "the cause is the rope" in note and "±0.0100" in note


# -- 5. the figure draws the recommended test's interval, named -------------------------------
def test_the_figure_draws_the_recommended_interval_and_names_its_test(
    kfold_auc_report: Report,
) -> None:
    comparison = kfold_auc_report.comparisons[0]
    recommended = next(o for o in comparison.outcomes if o.recommended and o.posterior is None)
    others = [o for o in comparison.outcomes if not o.recommended and o.shown_interval]
    figure = kfold_auc_report.context()["pairs"][0]["figure"]
    low, high = recommended.shown_interval
    label = f"95% interval of the recommended {in_sentence(recommended.method)}"
    assert f">{label}</text>" in figure  # the legend, in full
    assert f"{label}: {format_number(low)} to {format_number(high)}" in figure
    for other in others:
        assert other.method not in figure


# -- 6. provenance of inferred settings ---------------------------------------------------------
def test_inferred_settings_say_where_they_came_from(kfold_auc_report: Report) -> None:
    """Was: "higher is better, as given" and "n2/n1 = 0.25, as given with the table"."""
    text = kfold_auc_report.to_markdown()
    assert "as given" not in text
    assert "higher is better, inferred from the metric's name" in text
    table = kfold_auc_report.table  # 2×5 folds of 569 records: Σ n_test / Σ n_train = 1/4
    assert table.test_train_ratio == pytest.approx(569 * 2 / (569 * 4 * 2))
    assert "n2/n1 = 0.25, inferred from the fold sizes." in text
    scores = pd.DataFrame(
        {"fold": np.repeat([1, 2, 3], 2), "model": ["a", "b"] * 3,
         "auc": [0.90, 0.80, 0.92, 0.81, 0.88, 0.79]}
    )  # fmt: skip
    table = cvreport.ResultsTable.from_fold_scores(
        scores, score="auc", replication=None, direction="higher", test_train_ratio=0.5
    )
    text = quiet(table).to_markdown()
    assert "higher is better, as given" in text and "n2/n1 = 0.5, as given with the table" in text


# -- 7. F1: the positive class, and no two quantities under one name ---------------------------
def test_an_f1_report_names_its_positive_class_and_keeps_names_apart(
    kfold_predictions: pd.DataFrame,
) -> None:
    from sklearn.metrics import f1_score

    table = cvreport.ResultsTable.from_predictions(
        kfold_predictions, truth="y", prediction="yhat", metric="f1", replication="rep",
        fold="fold",
    )  # fmt: skip
    report = quiet(table)
    per_fold = kfold_predictions.groupby(["model", "rep", "fold"]).apply(
        lambda g: f1_score(g["y"], g["yhat"])
    )
    means = per_fold.groupby("model").mean()
    pooled_macro = {
        m: f1_score(g["y"], g["yhat"], average="macro")
        for m, g in kfold_predictions.groupby("model")
    }
    md, html, latex = report.to_markdown(), report.to_html(), report.to_latex()
    assert "positive class `1`" in md and 'data-field="positive-class">1<' in html
    assert "positive class \\texttt{1}" in latex
    assert f"| logreg | {format_number(means['logreg'])} |" in md  # the tested binary F1
    assert f"{format_number(pooled_macro['logreg'])} |" in md  # the pooled macro F1 ...
    header = next(line for line in md.splitlines() if line.startswith("| Model | Predictions"))
    cells = [cell.strip() for cell in header.strip("|").split("|")]
    assert "Macro F1" in cells and "F1" not in cells and "f1" not in cells  # ... named apart
    assert '<th scope="col">F1</th>' not in html


# -- 8. the figure's accessible text speaks the user's metric -----------------------------------
def test_the_figure_description_speaks_the_metric_and_its_direction(
    kfold_auc_report: Report,
) -> None:
    """Was: "differences in mean loss" and "model A had the higher loss" for an AUC."""
    figure = kfold_auc_report.context()["pairs"][0]["figure"]
    desc = re.search(r"<desc[^>]*>(.*?)</desc>", figure, re.S)[1]
    assert "per-fold differences in AUC" in desc
    assert "folds where logreg had the higher AUC (higher is better)" in desc
    assert "loss" not in desc


# -- 9. wording ---------------------------------------------------------------------------------
def test_one_value_is_not_called_a_mean_and_a_per_fold_auc_says_so(
    holdout_auc: cvreport.ResultsTable, kfold_auc_report: Report
) -> None:
    """Was: "the higher mean roc_auc" on one hold-out set, "mean roc_auc" for per-fold AUCs."""
    holdout = quiet(holdout_auc).to_markdown()
    assert "has the higher AUC, by" in holdout and "mean AUC" not in holdout
    assert "| Model | AUC |\n" in holdout
    kfold = kfold_auc_report.to_markdown()
    assert "has the higher mean per-fold AUC, by" in kfold


def test_a_test_has_one_name_in_every_heading(kfold_auc_report: Report) -> None:
    """Was: "Corrected repeated K-fold t test" above, "Corrected repeated k-fold CV t test" below."""
    context = kfold_auc_report.context()
    methods = {o.name: o.method for o in kfold_auc_report.outcomes}
    names = kfold_auc_report.recommendation.names
    assert context["recommendation"]["labels"] == [methods[n] for n in names]
    md = kfold_auc_report.to_markdown()
    assert "Corrected repeated K-fold t test" not in md
    assert md.count("Corrected repeated K-fold CV t test") >= 3


def test_better_and_worse_marks_have_different_colours(browser: Any, tmp_path: Path) -> None:
    """Was: ▲ and ▼ in the same colour, so only their shape told better from worse."""
    from cvreport.data.datasets import DatasetsTable
    from cvreport.reporting.multi_report import DatasetsReport
    from tests._fakes import open_page

    rng = np.random.default_rng(4)
    rows = [
        {"task": f"d{d}", "fold": fold, "clf": model, "accuracy": level + rng.normal(0, 0.005)}
        for d in range(5)
        for fold in range(1, 11)
        for model, level in (("base", 0.8), ("good", 0.85 if d % 2 else 0.75))
    ]
    table = DatasetsTable.from_formula(
        "accuracy ~ clf | fold | task", pd.DataFrame(rows), per_fold=True, test_train_ratio=1 / 9
    )
    report = DatasetsReport(table, baseline="base", n_samples=500, seed=1)
    path = tmp_path / "multi.html"
    path.write_text(report.to_html(), encoding="utf-8")
    page, seen = open_page(browser, path)
    try:
        colour = {
            kind: page.locator(f".cvr-mark-{kind}").first.evaluate(
                "node => getComputedStyle(node).color"
            )
            for kind in ("better", "worse")
        }
        assert page.locator(".cvr-mark-better").first.inner_text() == "▲"
        assert page.locator(".cvr-mark-worse").first.inner_text() == "▼"
    finally:
        page.close()
    assert colour["better"] != colour["worse"]
    assert not seen["errors"]
