"""The one-data-set report read again as a new user: margins, ties, one value per model.

Each test renders a report as a user would (Markdown, HTML, LaTeX) and checks a
sentence or heading against the numbers beside it.
"""

from __future__ import annotations

import html
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.reporting.report import Report
from cvreport.results import level_text
from tests._fakes import overfull_boxes, pdflatex_or_skip, run_pdflatex


def quiet(*args: object, **kwargs: object) -> Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Report(*args, **kwargs)  # type: ignore[arg-type]


def _kfold_errors(models: dict[str, float], seed: int = 7) -> pd.DataFrame:
    """0/1 errors of each model on every record of a 3×10-fold CV of 300 records."""
    rng = np.random.default_rng(seed)
    rows = []
    for replication in range(1, 4):
        order = rng.permutation(300)
        for fold in range(10):
            for model, error in models.items():
                for record in order[fold::10]:
                    rows.append((replication, fold + 1, model, record, int(rng.random() < error)))
    return pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "error"])


@pytest.fixture(scope="module")
def five_models() -> cvreport.ResultsTable:
    frame = _kfold_errors({"m1": 0.10, "m2": 0.12, "m3": 0.15, "m4": 0.2, "m5": 0.11}, seed=8)
    return cvreport.ResultsTable.from_formula("error ~ model | replication + fold", frame)


@pytest.fixture(scope="module")
def holdout_auc() -> cvreport.ResultsTable:
    """Scores of three models on one test set of 400 records."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 400)
    frames = []
    for model, separation in (("forest", 1.6), ("svm", 1.3), ("logreg", 1.2)):
        z = separation * (2 * y - 1) + rng.normal(0, 1, y.size)
        scores = {"id": np.arange(y.size), "model": model, "y": y, "p": 1 / (1 + np.exp(-z))}
        frames.append(pd.DataFrame(scores))
    return cvreport.ResultsTable.from_formula(
        "roc_auc(y, p) ~ model", pd.concat(frames), record="id"
    )


def _comparisons(markdown: str) -> str:
    return markdown.split("## Comparisons", 1)[1].split("\n### ", 1)[0]


# -- a test against a margin is marked, and "significant" is said of it truly -----
@pytest.fixture(scope="module")
def non_inferiority(five_models: cvreport.ResultsTable) -> Report:
    return quiet(
        five_models,
        pairs=[("m1", "m5"), ("m1", "m4")],
        tests=["corrected_repeated_kfold_ttest"],
        test_options={
            "corrected_repeated_kfold_ttest": {"alternative": "non-inferior", "margin": 0.05}
        },
    )


def test_a_non_inferiority_row_is_marked_and_significant_is_defined_for_it(
    non_inferiority: Report,
) -> None:
    """Was: "Every test is two-sided unless marked" above rows marked nowhere, and
    "Significant means the decision rejects 'no difference'" beside "yes" for a
    non-inferiority test (which rejects "A is worse by the margin or more")."""
    markdown = non_inferiority.to_markdown()
    intro = _comparisons(markdown)
    assert "Every test is two-sided" not in intro
    assert "unless its row is marked “non-inferiority”" in intro
    assert "for a non-inferiority test, that A is shown not to be worse than B" in intro
    rows = [line for line in markdown.splitlines() if line.startswith("| Corrected")]
    assert rows and all("(recommended; non-inferiority)" in row for row in rows)
    at_a_glance = [line for line in intro.splitlines() if line.startswith("| m1 vs")]
    assert len(at_a_glance) == 2
    assert all("t test (non-inferiority) |" in row for row in at_a_glance)
    page = non_inferiority.to_html()
    assert '<span class="cvr-badge">non-inferiority</span>' in page
    assert "Every test is two-sided" not in page


def test_only_margin_tests_show_only_their_interval_level(non_inferiority: Report) -> None:
    """Was: "95% (90% against a margin) interval" heading a column of 90% intervals only."""
    alpha = non_inferiority.analysis.alpha
    shown = level_text(1 - 2 * alpha)
    markdown = non_inferiority.to_markdown()
    assert f"| {shown} interval |" in markdown
    assert "against a margin) interval" not in markdown
    assert f"{shown}\\% interval" in non_inferiority.to_latex() or (
        f"{shown.replace('%', '')}\\% interval" in non_inferiority.to_latex()
    )


def test_two_sided_tests_are_not_said_to_be_marked(five_models: cvreport.ResultsTable) -> None:
    """Nothing is marked when every test is two-sided, so "unless marked" promised a mark."""
    report = quiet(five_models, pairs=[("m1", "m4")])
    intro = _comparisons(report.to_markdown())
    assert "Every test is two-sided: H₁ is that the two models differ." in intro
    assert "unless" not in intro


def test_an_equivalence_headline_gives_the_margin_in_the_metric(
    five_models: cvreport.ResultsTable,
) -> None:
    """Was: "Equivalence within ±0.05 NOT shown": 0.05 of what?"""
    report = quiet(
        five_models,
        pairs=[("m1", "m5")],
        tests=["corrected_repeated_kfold_ttest"],
        test_options={
            "corrected_repeated_kfold_ttest": {"alternative": "equivalent", "margin": 0.05}
        },
    )
    measure = five_models.metric.name
    short = report.to_markdown().split("## In short", 1)[1].split("\n## ", 1)[0]
    assert f"within ±0.05 {measure} " in short


def test_a_latex_margin_row_fits_the_page(non_inferiority: Report, tmp_path: Path) -> None:
    """The marked row and its interval column stay inside the text width."""
    exe = pdflatex_or_skip()
    run = run_pdflatex(exe, non_inferiority.to_latex(), tmp_path)
    assert run.returncode == 0
    log = (tmp_path / "report.log").read_text("latin-1")
    assert overfull_boxes(log) == []
    assert "\\textsuperscript{R,NI}" in non_inferiority.to_latex()


# -- models that never differ ----------------------------------------------------------
def test_identical_models_are_not_said_to_be_either_one_better() -> None:
    """Was: "[0.0000, 0.0000]; it includes 0, so either model could be the better one"
    for two models with the same loss on every record."""
    frame = _kfold_errors({"m1": 0.1})
    twin = frame.assign(model="twin")
    table = cvreport.ResultsTable.from_formula(
        "error ~ model | replication + fold", pd.concat([frame, twin])
    )
    report = quiet(table, tests=["corrected_repeated_kfold_ttest"])
    (result,) = report.results
    low, high = result.conf_int()
    assert low == high == 0.0
    markdown = report.to_markdown()
    assert "either model could be the better one" not in markdown
    assert "\\[0.0000, 0.0000\\]; it is the single point 0 because the two models never differ" in (
        markdown
    )


# -- one value per model on one test set --------------------------------------------
def test_one_auc_per_model_is_not_called_a_mean(holdout_auc: cvreport.ResultsTable) -> None:
    """Was: "Mean A − B" heading the difference of two AUCs, each one value on one test set."""
    report = quiet(holdout_auc)
    markdown = report.to_markdown()
    header = next(line for line in markdown.splitlines() if line.startswith("| Pair (A vs B)"))
    assert "| A − B |" in header and "Mean" not in header
    assert "Mean A − B" not in report.to_html()
    assert "Mean A $-$ B" not in report.to_latex()
    aucs = {row["model"]: row for row in report.analysis.model_summaries}
    assert len(aucs) == 3


def test_per_record_losses_keep_their_mean(five_models: cvreport.ResultsTable) -> None:
    """A mean over folds is still called a mean."""
    markdown = quiet(five_models, pairs=[("m1", "m4"), ("m1", "m5")]).to_markdown()
    header = next(line for line in markdown.splitlines() if line.startswith("| Pair (A vs B)"))
    assert "| Mean A − B |" in header


def test_the_source_names_the_metric_as_a_reader_does(holdout_auc: cvreport.ResultsTable) -> None:
    """Was: "roc_auc computed on the one validation set" in the data's Source line."""
    markdown = quiet(holdout_auc).to_markdown()
    source = next(line for line in markdown.splitlines() if line.startswith("| Source |"))
    assert "AUC (roc\\_auc) computed on the one validation set" in source


def test_one_test_set_metrics_are_not_called_pooled(holdout_auc: cvreport.ResultsTable) -> None:
    """Was: "Pooled accuracy" on one validation set, where nothing is pooled."""
    pytest.importorskip("sklearn")
    frame = pd.DataFrame(
        {
            "id": np.tile(np.arange(40), 2),
            "model": np.repeat(["a", "b"], 40),
            "y": np.tile(np.arange(40) % 2, 2),
            "pred": np.r_[np.arange(40) % 2, (np.arange(40) // 3) % 2],
        }
    )
    table = cvreport.ResultsTable.from_formula("f1(y, pred) ~ model", frame, record="id")
    report = quiet(table)
    markdown = report.to_markdown()
    assert "| Accuracy | Balanced accuracy |" in markdown and "Pooled" not in markdown
    assert "Pooled" not in report.to_html() and "Pooled" not in report.to_latex()


# -- the disagreement note -----------------------------------------------------------
def test_a_test_named_inside_the_disagreement_sentence_is_not_capitalised(
    five_models: cvreport.ResultsTable,
) -> None:
    """Was: "... of being better while Corrected repeated k-fold CV t test finds ..."."""
    report = quiet(five_models, tests="all")
    notes = [c.disagreement for c in report.comparisons if c.disagreement]
    assert notes, "the 10 pairs give at least one disagreement"
    for note in notes:
        inside = re.findall(r"while (\S+)", note)
        assert inside and all(word[0].islower() or word.endswith("'s") for word in inside)


def test_the_example_latex_tables_fit_the_page(tmp_path: Path) -> None:
    """Was: the pooled-metrics table of the example ran 8.8pt into the margin."""
    exe = pdflatex_or_skip()
    table = cvreport.ResultsTable.from_predictions(
        cvreport.load_example(), truth="truth", prediction="prediction"
    )  # as `cvreport report --example` builds it: with the pooled metrics table
    run = run_pdflatex(exe, quiet(table).to_latex(), tmp_path)
    assert run.returncode == 0
    assert overfull_boxes((tmp_path / "report.log").read_text("latin-1")) == []


# -- many data sets --------------------------------------------------------------------
def test_the_win_tie_loss_matrix_says_its_p_values_are_adjusted() -> None:
    """Was: "by each data set's test" with Holm in the references and nowhere in the text,
    though each data set's p-values are Holm-adjusted before a win is counted."""
    rng = np.random.default_rng(5)
    models = {"ours": 0.10, "svm": 0.12, "knn": 0.15, "tree": 0.16}
    rows = [
        (f"set{d}", r, f, m, e + 0.02 * d + rng.normal(0, 0.02))
        for d in range(9)
        for r in range(1, 6)
        for f in (1, 2)
        for m, e in models.items()
    ]
    frame = pd.DataFrame(rows, columns=["dataset", "replication", "fold", "model", "error"])
    multi = cvreport.DatasetsTable.from_formula(
        "error ~ model | replication + fold | dataset", frame, per_fold=True
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = cvreport.DatasetsReport(multi)
    assert report.analysis.per_dataset.correction == "holm"
    n_pairs = len(models) * (len(models) - 1) // 2
    said = f"adjusted over the {n_pairs} pairs of that data set with Holm's step-down procedure"
    markdown = report.to_markdown()
    caption = next(line for line in markdown.splitlines() if line.startswith("win/tie/loss"))
    assert said in caption and "α = 0.05" in caption
    assert said.replace("'", "&#39;") in report.to_html()
    assert said in report.to_latex()
    caption = f"Error of {len(models)} models on 9 data sets"  # was "error of 4 models …"
    assert f"<caption>{caption}</caption>" in report.to_html()
    assert f"\\caption{{{caption}}}" in report.to_latex()


def test_a_note_every_pair_shares_is_said_once(five_models: cvreport.ResultsTable) -> None:
    """Was: the same n2/n1 sentence under every one of the pairs (ten times for five models)."""
    pairs = [("m1", "m2"), ("m1", "m3"), ("m2", "m3")]
    report = quiet(five_models, pairs=pairs)
    ratio = f"n2/n1 = {30 / 270:g}"  # 10 folds of 300 records: 30 validation, 270 training
    markdown = report.to_markdown()
    assert markdown.count(ratio) == 1
    caveats = markdown.split("\n## Caveats", 1)[1].split("\n## ", 1)[0]
    assert f"- Corrected repeated K-fold CV t test (every pair): {ratio}" in caveats
    assert report.to_html().count(ratio) == 1
    single = quiet(five_models, pairs=pairs[:1]).to_markdown()  # one pair: said in its section
    assert single.count(ratio) == 1 and "(every pair)" not in single


# -- the power curve -------------------------------------------------------------------
def test_the_power_curve_names_the_metric_and_counts_replications_in_whole_numbers() -> None:
    """Was: "Power to detect a difference of 0.05" (of what?) and "for 1.0000 to 30.0000
    replications" in the figure's description."""
    pilot = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    replications = range(2, 13)
    curve = cvreport.power_curve(
        pilot, "logistic_regression", "decision_tree", effect=0.05, replications=replications
    )
    measure = pilot.metric.name
    assert measure == "error rate"
    title = re.search(r"<title[^>]*>([^<]*)</title>", curve.svg)
    assert (
        title is not None and title.group(1) == f"Power to detect a difference of 0.05 in {measure}"
    )
    desc = re.search(r"<desc[^>]*>([^<]*)</desc>", curve.svg)
    assert desc is not None
    assert f"in {measure}, for {min(replications)} to {max(replications)} replications" in (
        desc.group(1)
    )


def test_a_note_after_its_test_name_continues_the_sentence() -> None:
    """Was: "Bayesian correlated t test: Every split difference is 0: …" (a capital mid-sentence)."""
    frame = _kfold_errors({"m1": 0.1})
    table = cvreport.ResultsTable.from_formula(
        "error ~ model | replication + fold", pd.concat([frame, frame.assign(model="twin")])
    )
    markdown = quiet(table, tests="all").to_markdown()
    notes = [line for line in markdown.splitlines() if line.startswith("- Bayesian correlated t")]
    assert any(": every split difference is 0" in line for line in notes), notes
    assert not re.search(r"t test: [A-Z][a-z]+ ", markdown)


def _fourteen_models_aucs() -> cvreport.ResultsTable:
    """10×10 CV AUCs of 14 models 0.004 apart: 91 pairs, past the detailed-pairs limit."""
    rng = np.random.default_rng(3)
    rows = []
    for replication in range(1, 11):
        for fold in range(1, 11):
            shift = rng.normal(0, 0.01)
            for i in range(14):
                auc = 0.80 + 0.004 * i + shift + rng.normal(0, 0.01)
                rows.append((replication, fold, f"model_{i:02d}", auc))
    frame = pd.DataFrame(rows, columns=["replication", "fold", "model", "auc"])
    table = cvreport.ResultsTable.from_fold_scores(frame, score="auc")
    return table


def test_the_all_pairs_overview_names_its_test_inside_the_sentence() -> None:
    """Was: "91 pairs of 14 models, each with the Corrected repeated k-fold CV t test"."""
    table = _fourteen_models_aucs()
    report = quiet(table)
    n_pairs = 14 * 13 // 2
    method = "corrected repeated K-fold CV t test"
    said = f"{n_pairs} pairs of 14 models, each with the {method}"
    assert said in report.to_markdown().replace("\\_", "_")
    assert said in report.to_html()
    assert f"Every pair of models: A − B in mean AUC, the {method}</caption>" in report.to_html()


# -- repeated hold-out: splits, not folds ----------------------------------------------
def test_a_repeated_holdout_report_counts_splits_not_folds() -> None:
    """Was: "Folds per replication (K) 1", "Fold sizes" and "SD over folds … Folds 15" beside
    a design line that says "J = 15 splits"."""
    rng = np.random.default_rng(11)
    rows = []
    n_splits, validation = 15, 100
    for split in range(1, n_splits + 1):
        for record in rng.permutation(300)[:validation]:
            for model, error in (("a", 0.15), ("b", 0.2)):
                rows.append((split, model, record, int(rng.random() < error)))
    frame = pd.DataFrame(rows, columns=["split", "model", "record", "err"])
    table = cvreport.ResultsTable.from_formula("err ~ model | split", frame)
    report = quiet(table)
    markdown = report.to_markdown()
    assert f"J = {n_splits} splits" in markdown
    assert f"| Splits (J) | {n_splits} |" in markdown
    assert f"| Validation set sizes | {validation} records |" in markdown
    assert "| SD over splits | Min | Max | Splits |" in markdown
    assert "Folds per replication" not in markdown and "fold" not in markdown.lower().split(
        "## recommended test"
    )[0].replace("k-fold", "")
    page = report.to_html()
    assert "<dt>Splits (J)</dt>" in page and "Folds per replication" not in page
    latex = report.to_latex()
    assert "Splits ($J$)" in latex and "SD over splits" in latex


def test_the_latex_data_table_says_what_was_inferred_and_where_the_data_came_from(
    holdout_auc: cvreport.ResultsTable,
) -> None:
    """Was: the LaTeX "Metric" row said only "higher is better" (Markdown and HTML say it was
    inferred from the name) and the LaTeX report had no "Source" row."""
    report = quiet(holdout_auc)
    provenance = report.analysis.facts.direction.words
    assert provenance == "inferred from the metric's name"
    markdown, latex = report.to_markdown(), report.to_latex()
    assert f"higher is better, {provenance}" in markdown
    metric_row = next(line for line in latex.splitlines() if line.startswith("Metric &"))
    assert f"higher is better, {provenance}" in metric_row
    source_row = next(line for line in latex.splitlines() if line.startswith("Source &"))
    assert "AUC (roc\\_auc) computed on the one validation set" in source_row


def test_an_effect_of_zero_favours_neither_model_in_words() -> None:
    """Was: "favours: nan" for two models with the same score on every data set."""
    rng = np.random.default_rng(5)
    rows = [
        (f"set{d}", r, f, m, e + 0.02 * d + rng.normal(0, 0.02))
        for d in range(9)
        for r in range(1, 6)
        for f in (1, 2)
        for m, e in {"ours": 0.10, "svm": 0.12, "knn": 0.15}.items()
    ]
    frame = pd.DataFrame(rows, columns=["dataset", "replication", "fold", "model", "error"])
    twin = frame[frame["model"] == "svm"].assign(model="svm2")
    multi = cvreport.DatasetsTable.from_formula(
        "error ~ model | replication + fold | dataset", pd.concat([frame, twin]), per_fold=True
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = cvreport.DatasetsReport(multi)
    effects = report.analysis.effect_sizes
    tied = effects[(effects["a"] == "svm") & (effects["b"] == "svm2")]
    assert float(tied["hedges_g"].iloc[0]) == 0.0
    markdown = report.to_markdown()
    row = next(line for line in markdown.splitlines() if line.startswith("| svm | svm2 | 0.00 ["))
    assert row.endswith("| neither |")
    assert "nan" not in markdown.lower().split("## references")[0]
    assert ">nan<" not in report.to_html()


def test_a_one_sided_p_value_is_called_one_sided_in_the_headline(
    five_models: cvreport.ResultsTable,
) -> None:
    """Was: "Significant difference at α = 0.05 (…, p = 0.006)" for a one-sided test, half
    the two-sided p a reader assumes, with nothing said about sides at the top."""
    options = {"corrected_repeated_kfold_ttest": {"alternative": "less"}}
    report = quiet(
        five_models, pairs=[("m1", "m4")], tests=["corrected_repeated_kfold_ttest"],
        test_options=options,
    )  # fmt: skip
    (result,) = report.results
    two_sided = cvreport.corrected_repeated_kfold_ttest(five_models, "m1", "m4")
    assert result.pvalue == pytest.approx(two_sided.pvalue / 2)
    short = report.to_markdown().split("## In short", 1)[1].split("\n## ", 1)[0]
    assert f"one-sided p = {result.pvalue:.3f})" in short
    assert (
        "| Corrected repeated K-fold CV t test (recommended; one-sided) |" in report.to_markdown()
    )


def test_every_pair_s_statistic_has_the_sign_of_its_estimate_for_a_score() -> None:
    """Was: the all-pairs overview (Report.overview, --pairs-csv) of an AUC gave
    estimate −0.0041 beside t = +0.81, the t of the negated score, while the same test
    run alone gives t = −0.81."""
    table = _fourteen_models_aucs()
    overview = quiet(table).overview
    assert len(overview) == 14 * 13 // 2
    for row in overview.head(5).itertuples():
        alone = cvreport.corrected_repeated_kfold_ttest(table, row.a, row.b)
        assert row.statistic == pytest.approx(alone.statistic)
        assert row.estimate == pytest.approx(alone.estimate)
        # t is the mean difference over its standard error: the same sign
        assert np.sign(row.statistic) == np.sign(row.estimate)


def test_the_power_curve_names_each_test_as_the_report_does() -> None:
    """Was: "Corrected repeated K-fold t test", "Combined 5×2cv F test" in the legend where
    every report says "Corrected repeated k-fold CV t test", "Alpaydın's combined …"."""
    from cvreport.methods.registry import get_spec

    pilot = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    curve = cvreport.power_curve(
        pilot, "logistic_regression", "decision_tree", effect=0.05, replications=range(1, 6)
    )
    frame = curve.to_frame()
    for test, label in frame[["test", "label"]].drop_duplicates().itertuples(index=False):
        assert label == get_spec(test).method
        assert f"{html.escape(label)}, K = " in curve.svg
    assert "Corrected repeated K-fold t test" not in curve.svg


def test_the_p_value_legend_describes_the_decision_the_dots_show() -> None:
    """Was: "○ p > α" in the legend beside a hollow dot at p = 0.027 (its Holm-adjusted
    p = 0.082 decides), and a caption saying the dots left of the line are significant."""
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    report = quiet(table)
    lifted = [
        o for o in report.outcomes
        if o.result.pvalue <= 0.05 < o.adjusted  # below α alone, above it adjusted
    ]  # fmt: skip
    assert lifted, "the example has a pair whose adjustment reverses the decision"
    page = report.to_html()
    figure = page.split('id="cvr-pvalues"', 1)[1].split("</figure>", 1)[0]
    assert "p &gt; α" not in figure and "p ≤ α (reject)" not in figure
    assert ">rejects at α<" in figure and ">does not reject<" in figure
    assert "a hollow dot left of the line is a p-value below α that the adjustment lifted" in (
        figure
    )


def test_a_method_name_in_parentheses_gets_no_second_pair() -> None:
    """Was: "McNemar's test (continuity-corrected) (recommended)" and "rely on the recommended
    test (McNemar's test (continuity-corrected))"."""
    rng = np.random.default_rng(4)
    truth_rows = []
    for record in range(300):
        for model, error in (("a", 0.08), ("b", 0.14)):
            truth_rows.append((record, model, int(rng.random() < error)))
    frame = pd.DataFrame(truth_rows, columns=["record", "model", "err"])
    table = cvreport.ResultsTable.from_formula("err ~ model", frame)
    report = quiet(table, tests="all")
    recommended = next(o for o in report.outcomes if o.recommended)
    assert recommended.method == "McNemar's test (continuity-corrected)"
    markdown = report.to_markdown()
    assert "| McNemar's test (continuity-corrected; recommended) |" in markdown
    assert ") (recommended)" not in markdown and ") (not recommended)" not in markdown
    assert "test (McNemar's test (continuity-corrected))" not in markdown
