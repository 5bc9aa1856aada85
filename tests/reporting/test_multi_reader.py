"""The many-data-sets report read as a new reader reads it: every sentence true, said once."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport
from cvreport.data.datasets import DatasetsTable
from cvreport.methods.registry import get_spec
from cvreport.reporting.multi_report import DatasetsReport

BASELINE = "logistic_regression"


def _bullets(markdown: str) -> list[str]:
    section = markdown.split("## Where the assumptions fail\n\n")[1].split("\n## ")[0]
    return [line[2:] for line in section.splitlines() if line.startswith("- ")]


def _scores(n_datasets: int, seed: int = 0) -> pd.DataFrame:
    """Data sets × models AUCs (higher is better): nb > knn > rf > svm on every data set."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.6, 0.7, size=(n_datasets, 1))
    steps = np.array([0.0, 0.05, 0.10, 0.15]) + rng.uniform(0, 0.01, size=(n_datasets, 4))
    return pd.DataFrame(
        base + steps,
        columns=["svm", "rf", "knn", "nb"],
        index=[f"ds{i}" for i in range(n_datasets)],
    )


def _tied_scores() -> pd.DataFrame:
    scores = _scores(9, seed=2).round(2)
    scores.iloc[:1, 1] = scores.iloc[:1, 0]  # svm and rf equal on one data set
    scores.iloc[2:4, 3] = scores.iloc[2:4, 2]  # knn and nb on two
    return scores


@pytest.fixture(scope="module")
def few() -> DatasetsReport:
    return DatasetsReport(_scores(3), direction="higher", n_samples=2000)


def test_a_note_after_the_pairs_names_reads_on_in_lower_case(few: DatasetsReport) -> None:
    """Was: "Every pair: Only 3 data sets: the Wilcoxon ... with fewer than 5 data sets"."""
    bullets = _bullets(few.to_markdown())
    pair_bullets = [b for b in bullets if b.startswith("Every pair: ")]
    assert len(pair_bullets) == 2, bullets
    for bullet in pair_bullets:
        rest = bullet[len("Every pair: ") :]
        assert rest[0].islower(), bullet
        assert ": Only" not in bullet and rest.count(":") <= 1, bullet


def test_the_wilcoxon_note_gives_the_smallest_p_value_three_data_sets_allow(
    few: DatasetsReport,
) -> None:
    """Was: "cannot be significant ... with fewer than 5 data sets" (with 5 it cannot either)."""
    smallest = stats.wilcoxon([0.1, 0.2, 0.3]).pvalue  # every difference one way: 2 / 2**3
    assert smallest == pytest.approx(0.25)
    (note,) = [b for b in _bullets(few.to_markdown()) if "Wilcoxon" in b]
    assert f"can give is {smallest:g}: it cannot reject at α = 0.05" in note
    assert "fewer than 5" not in note
    # five data sets: 2 / 2**5 = 0.0625 > 0.05, and the report says so
    five = DatasetsReport(_scores(5), direction="higher", n_samples=2000)
    (note,) = [b for b in _bullets(five.to_markdown()) if "Wilcoxon" in b]
    assert f"can give is {stats.wilcoxon([1, 2, 3, 4, 5]).pvalue:g}" in note


def test_with_few_data_sets_no_p_value_is_called_the_better_guide(few: DatasetsReport) -> None:
    """Was: "read the ranks and the table, not the p-value" beside "the Iman–Davenport F is the
    better guide"."""
    bullets = _bullets(few.to_markdown())
    assert any("not the p-value" in b for b in bullets)
    assert not any("better guide" in b for b in bullets), bullets
    many = DatasetsReport(_scores(8), direction="higher", n_samples=2000)
    assert any(
        "the Iman–Davenport F is the better guide" in b for b in _bullets(many.to_markdown())
    )


def test_the_post_hoc_note_does_not_point_below_from_the_last_section() -> None:
    """Was: "the post-hoc comparisons below are shown for description" in the last section."""
    mixed = pd.DataFrame(  # the ranks differ from data set to data set
        [[0.71, 0.72, 0.73, 0.74], [0.74, 0.73, 0.72, 0.71], [0.72, 0.71, 0.74, 0.73]],
        columns=["svm", "rf", "knn", "nb"],
    )
    report = DatasetsReport(mixed, direction="higher", n_samples=2000)
    text = report.to_markdown()
    assert not report.analysis.friedman.reject(0.05)
    (note,) = [b for b in _bullets(text) if "does not reject" in b]
    assert "below" not in note
    assert text.index("## Pairs: Wilcoxon") < text.index("## Where the assumptions fail")


def test_tie_notes_say_each_sentence_once_in_good_grammar() -> None:
    """Was: the sign-flip sentence repeated in two bullets, "1 data set(s) ... have", and
    "1 of 10 data sets have tied scores" without naming the data set."""
    scores = _tied_scores()
    bullets = _bullets(DatasetsReport(scores, direction="higher", n_samples=1000).to_markdown())
    assert len([b for b in bullets if "sign flips" in b]) == 1, bullets
    assert not any("(s)" in b for b in bullets), bullets
    tied = [name for name, row in scores.iterrows() if row.duplicated().any()]
    (friedman,) = [b for b in bullets if "tied scores" in b]
    verb = "has" if len(tied) == 1 else "have"
    assert friedman.startswith(f"{len(tied)} of 9 data sets ({', '.join(tied)}) {verb} tied")
    equal = int((scores["svm"] == scores["rf"]).sum())
    assert equal == 1
    (zeros,) = [b for b in bullets if b.startswith("svm vs rf: ") and "equal scores" in b]
    assert "1 data set with equal scores has its rank split" in zeros


def test_one_score_per_data_set_is_not_called_a_mean_over_folds() -> None:
    """Was: "Mean ± standard deviation of the auc over each data set's folds" under a table of
    one AUC per data set and model, without a ± in it."""
    report = DatasetsReport(_scores(8), direction="higher", n_samples=2000)
    legend = report.table_context()["legend"][0]
    assert "folds" not in legend and "±" not in legend and "Mean" not in legend
    assert "one value each (higher is better)" in legend
    latex = report.table_latex()
    assert "folds" not in latex and "standard deviation" not in latex
    # with folds the legend still says mean ± standard deviation
    multi = DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    folds = DatasetsReport(multi, baseline=BASELINE, n_samples=2000)
    assert folds.table_context()["legend"][0].startswith("Mean ± standard deviation")


def test_a_monte_carlo_error_is_never_printed_as_zero() -> None:
    """Was: "(Monte Carlo standard error ≤ 0.000)" when every posterior is 0 or 1."""
    report = DatasetsReport(_scores(8), direction="higher", n_samples=2000)
    errors = [r.mc_standard_error for r in report.analysis.bayesian]
    assert max(errors) < 0.0005
    text = report.to_markdown()
    assert "≤ 0.000" not in text and "Monte Carlo standard error \\< 0.001" in text


def test_every_paper_the_report_cites_is_in_its_references() -> None:
    """Was: Hedges 1981, Cohen 1988, Romano et al. 2006, Bergmann and Hommel's procedure and
    the per-data-set tests cited in the text but missing from the references."""
    multi = DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    report = DatasetsReport(multi, n_samples=2000)  # every pair: Bergmann and Hommel
    text = report.to_markdown()
    references = text.split("## References\n\n")[1]
    body = text.split("## References\n\n")[0]
    assert "Bergmann and Hommel's procedure" in body
    for author, year in (
        ("Hedges", "1981"),
        ("Cohen", "1988"),
        ("Romano", "2006"),
        ("Bergmann", "1988"),
        ("Cliff", "1993"),
        ("Holm", "1979"),
    ):
        assert re.search(rf"{author}\b.*\({year}\)", references), (author, year)
    for test in set(report.analysis.per_dataset.comparisons["test"].dropna()):
        reference = get_spec(test, in_report=True).reference
        assert reference.split(" (")[0] in references, test


def test_the_pairs_section_has_one_heading_in_every_format() -> None:
    """Was: "Pairs: Wilcoxon and Bayesian signed-rank tests" in HTML and Markdown but
    "Pairs: Wilcoxon signed-rank tests" in LaTeX over the same Bayesian table."""
    report = DatasetsReport(_scores(6), direction="higher", n_samples=2000)
    heading = "Pairs: Wilcoxon and Bayesian signed-rank tests"
    assert report.analysis.bayesian
    assert f"## {heading}" in report.to_markdown()
    assert f">{heading}</h2>" in report.to_html()
    latex = report.to_latex()
    assert f"\\subsection*{{{heading}}}" in latex and "P(equivalent)" in latex


def test_every_header_stands_over_its_column_in_chromium(browser: Any, tmp_path: Path) -> None:
    """Was: "A", "B", "Data set", "Design", "significant" and "favours" right-aligned over
    left-aligned names and words."""
    multi = DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    path = DatasetsReport(multi, baseline=BASELINE, n_samples=2000).save(tmp_path / "m.html")
    page = browser.new_page()
    try:
        page.goto(path.as_uri())
        found = page.evaluate(
            """() => [...document.querySelectorAll("table.cvr-table")].map(t => {
                const heads = [...t.querySelectorAll("thead th")];
                const first = [...t.querySelectorAll("tbody tr:first-child > *")];
                return heads.map((h, i) => [h.textContent.trim(),
                    getComputedStyle(h).textAlign, getComputedStyle(first[i]).textAlign,
                    getComputedStyle(h).fontWeight]);
            })"""
        )
    finally:
        page.close()
    assert len(found) >= 5  # results, designs, Wilcoxon, Bayesian, effect sizes
    columns = [column for table in found for column in table]
    assert {"A", "B", "Data set", "Design", "significant", "favours"} <= {c[0] for c in columns}
    for header, head_align, cell_align, weight in columns:
        assert head_align == cell_align, (header, head_align, cell_align)
        assert int(weight) >= 600, header  # every header as bold as the others


def test_a_long_model_name_keeps_better_beside_its_corner_probability() -> None:
    """Was: "logistic_regression…" over "P = 1.000" at the simplex's corner, the word "better"
    cut off with the end of the name."""
    from cvreport.rendering.simplex import simplex_plot

    theta = np.array([[0.9, 0.05, 0.05], [0.1, 0.1, 0.8]])
    svg = simplex_plot(
        theta, labels=("logistic_regression", "knn"), probabilities=(0.6, 0.1, 0.3), rope=0.01
    )
    corners = [t for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")][:2]
    words = ["".join(t.itertext()) for t in corners]
    assert words == ["logistic_regressionbetter: P = 0.600", "knnbetter: P = 0.300"]


def test_one_score_per_data_set_says_so_once_instead_of_a_table_of_dashes() -> None:
    """Was: a row "ds0 | one score per model | —" for every data set under "Test against the
    baseline", with no word on why no test ran."""
    scores = _scores(8)
    frame = scores.rename_axis("dataset").reset_index().melt("dataset", var_name="model")
    frame = frame.rename(columns={"value": "auc"})
    table = DatasetsTable.from_formula("auc ~ model | dataset", frame)
    report = DatasetsReport(table, baseline="svm", n_samples=2000)
    sentence = (
        "Each of the 8 data sets holds one AUC per model: no test runs within a data set, and "
        "the comparison rests on the tests across data sets below."
    )
    markdown = report.to_markdown()
    section = markdown.split("## Each data set's design and test\n\n")[1].split("\n## ")[0]
    assert section.strip() == sentence
    html = report.to_html()
    assert f"<p>{sentence}</p>" in html and "one score per model" not in html
    assert sentence in report.to_latex() and "Test against the baseline" not in report.to_latex()
    assert markdown.index("## Each data set's design") < markdown.index("## Across data sets")


def test_the_friedman_sentence_says_corrected_for_ties_only_where_there_are_ties() -> None:
    """Was: "Friedman's χ² = 22.950 (df = 3, corrected for ties)" on data sets without a tie."""
    scores = _scores(8)
    untied = DatasetsReport(scores, direction="higher", n_samples=2000)
    ranks = scores.rank(axis=1)
    assert not ranks.apply(lambda row: row.duplicated().any(), axis=1).any()
    chi2 = stats.friedmanchisquare(*scores.to_numpy().T).statistic
    assert f"Friedman's χ² = {chi2:.3f} (df = 3), " in untied.context()["friedman_text"]
    tied = _tied_scores()
    report = DatasetsReport(tied, direction="higher", n_samples=2000)
    chi2 = stats.friedmanchisquare(*tied.to_numpy().T).statistic  # scipy corrects for ties
    assert (
        f"Friedman's χ² = {chi2:.3f} (df = 3, corrected for ties), "
        in report.context()["friedman_text"]
    )


def test_the_friedman_summary_of_a_loss_does_not_call_it_a_score() -> None:
    """Was: "better   lower score" in the Friedman summary of error rates."""
    multi = DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    friedman = DatasetsReport(multi, n_samples=2000).analysis.friedman
    text = str(friedman.summary(alpha=0.05))
    assert "lower score" not in text
    assert re.search(r"direction\s+lower is better", text)


def test_the_cd_caption_says_why_the_baseline_is_bold(browser: Any, tmp_path: Path) -> None:
    """Was: the baseline set in bold in the critical-difference diagram, and no caption saying
    why."""
    report = DatasetsReport(_scores(6), direction="higher", baseline="rf", n_samples=2000)
    path = report.save(tmp_path / "cd.html")
    page = browser.new_page()
    try:
        page.goto(path.as_uri())
        bold = page.evaluate(
            """() => [...document.querySelectorAll("svg#cvr-cd text")]
                .filter(t => Number(getComputedStyle(t).fontWeight) >= 600)
                .map(t => t.textContent.trim())"""
        )
        caption = page.locator("#cvr-ranks figcaption").inner_text()
    finally:
        page.close()
    assert bold and all(text.startswith("rf") for text in bold), bold
    assert caption.endswith("; the baseline, rf, in bold.")
    assert "the baseline, rf, in bold." in report.cd_latex()
    assert "the baseline, rf, in bold." in report.to_latex()
    unmarked = DatasetsReport(_scores(6), direction="higher", n_samples=2000)
    assert "in bold" not in unmarked.cd_latex()


def test_the_small_sample_note_stays_true_when_the_friedman_test_rejects(
    few: DatasetsReport,
) -> None:
    """Was: "the Friedman test can hardly reject anything with fewer than 5 data sets" beside
    "the test rejects equal average ranks" (p = 0.029 on 3 data sets that agree)."""
    p = stats.friedmanchisquare(*_scores(3).to_numpy().T).pvalue
    assert p < 0.05 and few.analysis.friedman.pvalue == pytest.approx(p, abs=1e-12)
    assert "the test rejects equal average ranks" in few.context()["friedman_text"]
    (note,) = [b for b in _bullets(few.to_markdown()) if b.startswith("Only 3 data sets")]
    assert "hardly reject" not in note
    assert "has little power with fewer than 5 data sets" in note
    assert "whether it rejects or not; read the ranks and the table, not the p-value." in note


def test_a_baseline_against_one_other_model_is_titled_in_the_singular() -> None:
    scores = pd.DataFrame(
        {"new": [0.91, 0.85, 0.78, 0.95], "svm": [0.89, 0.80, 0.75, 0.94]},
        index=["iris", "wine", "digits", "cancer"],
    )
    report = DatasetsReport(scores, direction="higher", baseline="new", n_samples=200)
    assert report.title == "new against 1 model on 4 data sets"
    assert report.to_markdown().startswith("# new against 1 model on 4 data sets\n")


def test_the_intro_names_the_metric_without_an_article_before_a_code_name() -> None:
    scores = pd.DataFrame(
        {"new": [0.91, 0.85, 0.78, 0.95], "svm": [0.89, 0.80, 0.75, 0.94]},
        index=["iris", "wine", "digits", "cancer"],
    )
    report = DatasetsReport(scores, direction="higher", baseline="new", n_samples=200)
    intro = report.context()["intro"]
    assert intro.startswith("2 models on 4 data sets; metric: ")
    assert "(higher is better)" in intro and "the metric is the" not in intro
