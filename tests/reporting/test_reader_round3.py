"""The one-data-set report read as a demanding new user: citations, repetitions, grammar.

Each test renders a report as a user would (Markdown, HTML) and reads the sentences
and the bibliography a reader meets.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.methods.registry import get_spec
from cvreport.partitions.audit import audit_overlap
from cvreport.reporting.report import Report
from tests._designs import losses_frame
from tests.reporting.test_reader_points import _predictions

pytest.importorskip("sklearn.datasets")

# a short citation in running text: "Nadeau and Bengio 2003", "Wang, Li & Li 2015", "Yang et al."
_SHORT_CITATION = re.compile(
    r"([A-Z][\w’'ı-]+)(?:,? (?:and|&) [A-Z][\w-]+| et al\.|(?:, [A-Z][\w-]+)+,? (?:and|&) "
    r"[A-Z][\w-]+)?,? \(?((?:19|20)\d\d)\b"
)


def quiet(*args: object, **kwargs: object) -> Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Report(*args, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def kfold_auc_markdown() -> str:
    table = cvreport.ResultsTable.from_predictions(
        _predictions(kfold=True), truth="y", score="p", metric="roc_auc", replication="rep",
        fold="fold",
    )  # fmt: skip
    return quiet(table, tests="all").to_markdown()


@pytest.fixture(scope="module")
def example_all_markdown() -> str:
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("random")
    )
    return quiet(table, tests="all").to_markdown()


@pytest.fixture(scope="module")
def kfold_three_models_markdown() -> str:
    frame = losses_frame("kfold")
    third = frame[frame["model"] == "A"].copy()
    third["model"] = "C"
    third["loss"] = (np.random.default_rng(1).random(len(third)) < 0.25).astype(int)
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", pd.concat([frame, third])
    )
    return quiet(table, tests="all").to_markdown()


def _body_and_references(markdown: str) -> tuple[str, list[str]]:
    body, _, tail = markdown.partition("## References")
    return body, [line for line in tail.splitlines() if re.match(r"\d+\. ", line)]


def _uncited(markdown: str) -> list[str]:
    body, papers = _body_and_references(markdown)
    return [
        match[0]
        for match in _SHORT_CITATION.finditer(body)
        if not any(f"{match[1]}, " in p and f"({match[2]})" in p for p in papers)
    ]


@pytest.mark.parametrize(
    "report", ["kfold_auc_markdown", "example_all_markdown", "kfold_three_models_markdown"]
)
def test_every_paper_a_sentence_cites_is_in_the_references(
    report: str, request: pytest.FixtureRequest
) -> None:
    """Was: the K-fold recommendation cites "Nadeau and Bengio 2003", the list omits it."""
    markdown = request.getfixturevalue(report)
    assert _SHORT_CITATION.search(_body_and_references(markdown)[0])  # the check reads citations
    assert _uncited(markdown) == []


def test_a_kfold_report_lists_no_paper_on_calibrated_5x2_tests(kfold_auc_markdown: str) -> None:
    """Was: a 2×5 AUC report listed Wang 2017 (calibrated F) and Yang 2023 (BCV McNemar)."""
    body, papers = _body_and_references(kfold_auc_markdown)
    assert "Nadeau and Bengio 2003" in body
    assert any(p.endswith("Nadeau, C. and Bengio, Y. (2003). Inference for the generalization "
                          "error. Machine Learning 52(3):239–281.") for p in papers)  # fmt: skip
    assert not [p for p in papers if "(2017). Choosing between" in p or "McNemar" in p]
    assert not [p for p in papers if "Wang, Y., Li, J., Li, Y. (2017)" in p]


def test_a_5x2_report_keeps_the_calibrated_tests_papers(example_all_markdown: str) -> None:
    _, papers = _body_and_references(example_all_markdown)
    assert any("Wang, Y., Li, J., Li, Y. (2017)" in p for p in papers)
    assert any("Yang, J., Wang, R., Song, Y., Li, J. (2023)" in p for p in papers)


def test_a_citation_after_an_equation_pointer_keeps_its_second_paper(
    kfold_three_models_markdown: str,
) -> None:
    """Was: "…, eq. 19.14 (…); Dietterich, T. G. (1998)…" lost Dietterich with the pointer."""
    _, papers = _body_and_references(kfold_three_models_markdown)
    assert any("Dietterich, T. G. (1998)" in p for p in papers)
    assert not [p for p in papers if "eq. 19.14" in p]


def _pair_caveats(markdown: str) -> list[list[str]]:
    blocks = markdown.split("**Caveats for these tests**")[1:]
    return [
        [line[2:] for line in block.split("\n\n", 2)[1].splitlines() if line.startswith("- ")]
        for block in blocks
    ]


@pytest.mark.parametrize("report", ["kfold_auc_markdown", "example_all_markdown"])
def test_a_caveat_several_tests_share_is_said_once_per_pair(
    report: str, request: pytest.FixtureRequest
) -> None:
    """Was: "n2/n1 = 0.25, inferred from the fold sizes." twice, the balance note three times."""
    for caveats in _pair_caveats(request.getfixturevalue(report)):
        words = [c.split(": ", 1)[1] if ": " in c else c for c in caveats]
        assert len(words) == len(set(words)), caveats


def test_a_shared_caveat_names_every_test_it_belongs_to(
    kfold_auc_markdown: str, example_all_markdown: str
) -> None:
    assert (
        "- Corrected repeated K-fold CV t test and Bayesian correlated t test: n2/n1 = 0.25, "
        "inferred from the fold sizes." in kfold_auc_markdown
    )
    first_pair = _pair_caveats(example_all_markdown)[0]
    balance = [c for c in first_pair if "the partitions are not balanced" in c]
    assert len(balance) == 1
    assert balance[0].startswith(
        "Calibrated balanced 5×2cv F test, 5×2 BCV McNemar test and blocked 3×2cv t test: "
    )


def test_the_balance_caveat_does_not_speak_of_degrees_of_freedom_of_mcnemar(
    example_all_markdown: str,
) -> None:
    """Was: "The degrees of freedom assume balanced …" for the BCV McNemar test (df 1, fixed)."""
    first_pair = _pair_caveats(example_all_markdown)[0]
    balance = next(c for c in first_pair if "the partitions are not balanced" in c)
    assert "5×2 BCV McNemar test" in balance
    assert "degrees of freedom" not in balance
    assert "reference distribution assumes balanced or block-regularized partitions" in balance


def test_the_short_verdict_names_the_models_of_its_difference(
    kfold_three_models_markdown: str,
) -> None:
    """Was: "**A vs C**: … A has the lower mean error rate, by 0.0917 (A − B = -0.0917)"."""
    short = kfold_three_models_markdown.split("## In short", 1)[1].split("\n## ", 1)[0]
    lines = {line.split("**")[1]: line for line in short.splitlines() if line.startswith("- **")}
    assert set(lines) == {"A vs B", "A vs C", "B vs C"}
    for pair, line in lines.items():
        a, b = pair.split(" vs ")
        assert re.search(rf"\({a} − {b} = -?\d\.\d{{4}}\)\.$", line), line
    assert "A − B =" not in lines["A vs C"]


def test_the_top_of_the_example_report_writes_the_difference_with_names() -> None:
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("random")
    )
    [first, *_] = quiet(table).context()["bottom_line"]
    data = cvreport.load_example("random")
    fold_means = data.groupby(["model", "replication", "fold"])["loss"].mean()
    means = fold_means.groupby("model").mean()
    expected = means["logistic_regression"] - means["decision_tree"]
    assert first["text"].endswith(f"(logistic_regression − decision_tree = {expected:.4f}).")


def _pvalue_desc(page: str) -> str:
    [desc] = re.findall(r'<desc id="[^"]*-pvalues-desc">([^<]*)</desc>', page)
    return desc


def test_the_pvalue_figure_of_one_test_speaks_of_one_pvalue() -> None:
    """Was: "p-values of 1 test … 1 of them lie at or left of the line"."""
    table = cvreport.ResultsTable.from_formula("f1(y, yhat) ~ model", _predictions(kfold=False))
    report = quiet(table)
    [outcome] = report.outcomes
    assert outcome.result.pvalue < 0.05  # the recommended paired bootstrap rejects
    desc = _pvalue_desc(report.to_html())
    assert desc.startswith("The p-value of 1 test on a logarithmic axis")
    assert desc.endswith("; it lies at or left of the line (reject H0).")
    assert "of them" not in desc


def test_the_pvalue_figure_of_many_tests_counts_them_in_agreement(
    example_all_markdown: str,
) -> None:
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("random")
    )
    report = quiet(table, tests="all")
    shown = [o for o in report.outcomes if o.has_pvalue]
    rejected = sum(bool(o.reject) for o in shown)
    desc = _pvalue_desc(report.to_html())
    verb = "lies" if rejected == 1 else "lie"
    assert f"p-values of {len(shown)} tests" in desc
    assert f"; {rejected} of them {verb} at or left of the line (reject H0)." in desc


def test_metrics_of_one_holdout_set_are_not_said_pooled_over_folds() -> None:
    """Was: on one hold-out split, "pooled over all folds and replications"."""
    table = cvreport.ResultsTable.from_formula("f1(y, yhat) ~ model", _predictions(kfold=False))
    report = quiet(table)
    for text in (report.to_markdown(), report.to_html(), report.to_latex()):
        assert "Metrics from the predictions, all on the one validation set" in text
        assert "pooled over all folds and replications" not in text
        assert "pooled over folds and replications" not in text


def test_metrics_of_kfold_predictions_are_still_said_pooled() -> None:
    table = cvreport.ResultsTable.from_formula(
        "f1(y, yhat) ~ model | rep + fold", _predictions(kfold=True)
    )
    markdown = quiet(table).to_markdown()
    assert "Metrics from the predictions, pooled over all folds and replications" in markdown


@pytest.fixture(scope="module")
def one_sided_f_report() -> Report:
    """The recommended combined F test asked for one-sided: it has no one-sided form."""
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("random")
    )
    return quiet(table, tests="all", test_options={"combined_ftest_5x2cv": {"alternative": "less"}})


def test_no_other_test_is_called_deciding_when_the_recommended_one_did_not_run(
    one_sided_f_report: Report,
) -> None:
    """Was: the overview named the calibrated F test "Deciding test", on random partitions."""
    assert [o for o in one_sided_f_report.outcomes if o.name == "combined_ftest_5x2cv"] == []
    assert any(o.name == "calibrated_ftest_5x2cv" for o in one_sided_f_report.outcomes)
    rows = one_sided_f_report.context()["overview"]
    assert len(rows) == 3
    for row in rows:
        assert row["test"] == "none: Alpaydın's combined 5×2cv F test did not run"
        assert row["pvalue"] is None and row["reject"] is None
    markdown = one_sided_f_report.to_markdown()
    assert "| Calibrated balanced 5×2cv F test | -0.0573 |" not in markdown


def test_the_short_verdict_says_the_recommended_test_did_not_run(
    one_sided_f_report: Report,
) -> None:
    """Was: the In short line listed six other tests' verdicts as if one of them decided."""
    for line in one_sided_f_report.context()["bottom_line"]:
        assert line["text"].startswith(
            "The recommended test (Alpaydın's combined 5×2cv F test) could not run (see below); "
            "no test decides. The other tests: no significant difference at α = 0.05 "
            "(Calibrated balanced 5×2cv F test, adjusted p = "
        ), line["text"]


def test_why_a_test_did_not_run_is_a_sentence_without_its_code_name(
    one_sided_f_report: Report,
) -> None:
    """Was: "Alpaydın's combined 5×2cv F test: combined_ftest_5x2cv has no one-sided form …"."""
    markdown = one_sided_f_report.to_markdown()
    block = markdown.split("**Not run**", 1)[1].split("\n#", 1)[0]
    [bullet] = [line for line in block.splitlines() if line.startswith("- ")]
    assert bullet.startswith("- Alpaydın's combined 5×2cv F test: it has no one-sided form")
    assert bullet.endswith(".")
    assert "combined\\_ftest\\_5x2cv" not in bullet


def test_a_recommended_test_that_runs_still_decides() -> None:
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("random")
    )
    report = quiet(table)
    rows = report.context()["overview"]
    assert {row["test"] for row in rows} == {"Alpaydın's combined 5×2cv F test"}
    assert not any("could not run" in line["text"] for line in report.context()["bottom_line"])


def test_the_source_reads_an_before_a_count_said_with_a_vowel() -> None:
    """Was: "formula 'loss ~ …' on a 8,535-row DataFrame"."""
    data = cvreport.load_example("random")
    assert len(data) == 8535
    table = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", data)
    markdown = quiet(table).to_markdown()
    source = next(line for line in markdown.splitlines() if line.startswith("| Source |"))
    assert "on an 8,535-row DataFrame" in source
    small = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", data[data["replication"] == 1]
    )
    assert len(data[data["replication"] == 1]) == 1707
    small_source = next(
        line for line in quiet(small).to_markdown().splitlines() if line.startswith("| Source |")
    )
    assert "on a 1,707-row DataFrame" in small_source


@pytest.fixture(scope="module")
def holdout_f1_table() -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_formula("f1(y, yhat) ~ model", _predictions(kfold=False))


def test_a_bootstrap_report_made_twice_shows_the_same_numbers(
    holdout_f1_table: cvreport.ResultsTable,
) -> None:
    """Was: p = 0.004 in one rendering, 0.005 in the next ("all" or again), intervals moving."""
    first, second, every = (
        quiet(holdout_f1_table),
        quiet(holdout_f1_table),
        quiet(holdout_f1_table, tests="all"),
    )
    numbers = [
        [(o.name, o.result.pvalue, o.interval) for o in r.outcomes if o.recommended]
        for r in (first, second, every)
    ]
    assert numbers[0] == numbers[1] == numbers[2]
    direct = cvreport.paired_bootstrap_test(holdout_f1_table, "logreg", "nb", random_state=0)
    assert first.outcomes[0].result.pvalue == pytest.approx(direct.pvalue)
    assert first.outcomes[0].interval == pytest.approx(direct.conf_int(0.05))


def test_the_report_says_how_the_bootstrap_drew_and_a_given_seed_is_used(
    holdout_f1_table: cvreport.ResultsTable,
) -> None:
    sentence = (
        "Paired bootstrap test: its p-value and interval come from 9,999 resamples drawn at "
        "random with the seed 0 (random\\_state in test\\_options); another seed moves them a "
        "little."
    )
    assert f"- {sentence}" in quiet(holdout_f1_table).to_markdown()
    seeded = quiet(
        holdout_f1_table,
        test_options={"paired_bootstrap_test": {"random_state": 7, "n_resamples": 1999}},
    )
    direct = cvreport.paired_bootstrap_test(
        holdout_f1_table, "logreg", "nb", random_state=7, n_resamples=1999
    )
    assert seeded.outcomes[0].result.pvalue == pytest.approx(direct.pvalue)
    assert "from 1,999 resamples drawn at random with the seed 7" in seeded.to_markdown()


def test_one_holdout_value_per_model_has_no_spread_over_folds(
    holdout_f1_table: cvreport.ResultsTable,
) -> None:
    """Was: "SD over folds —", Min = Max = the value and "Folds 1" beside one hold-out F1."""
    from sklearn.metrics import f1_score

    predictions = _predictions(kfold=False)
    report = quiet(holdout_f1_table)
    markdown, page, latex = report.to_markdown(), report.to_html(), report.to_latex()
    section = markdown.split("## Per-model F1", 1)[1].split("Higher is better.", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    assert rows[0] == "| Model | F1 |"
    for model in ("logreg", "nb"):
        chosen = predictions[predictions["model"] == model]
        value = f1_score(chosen["y"], chosen["yhat"])
        assert f"| {model} | {value:.4f} |" in rows
    assert "SD over folds" not in section
    models_table = page.split('id="cvr-model-losses"', 1)[1].split("</table>", 1)[0]
    assert "SD over folds" not in models_table and 'data-field="folds"' not in models_table
    assert "Model & Value \\\\" in latex and "SD over folds" not in latex


def test_kfold_values_keep_their_spread_over_folds(kfold_auc_markdown: str) -> None:
    assert "| Model | Mean AUC | SD over folds | Min | Max | Folds |" in kfold_auc_markdown


def test_a_one_sided_interval_shows_its_open_end_as_infinity_not_inf(tmp_path: Path) -> None:
    """Was: "[-inf, -0.0009]" in the table and the sentence of a one-sided t test."""
    from scipy import stats

    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("random")
    )
    report = quiet(
        table,
        pairs=[("logistic_regression", "decision_tree")],
        tests=["paired_ttest_5x2cv"],
        test_options={"paired_ttest_5x2cv": {"alternative": "less"}},
    )
    [outcome] = report.outcomes
    result = outcome.result
    # the upper end recomputed: p₁⁽¹⁾ + t_{0.95, 5} · s, s = √(Σ s²ᵢ / 5) (Dietterich 1998)
    upper = (
        outcome.shown_estimate + stats.t.ppf(0.95, 5) * outcome.shown_estimate / result.statistic
    )
    assert outcome.shown_interval[0] == float("-inf")
    assert outcome.shown_interval[1] == pytest.approx(upper)
    shown = f"(−∞, {upper:.4f}]"
    markdown = report.to_markdown()
    assert f"| {shown} |" in markdown and "-inf" not in markdown
    assert shown.replace("]", "\\]") in markdown  # the sentence says it too
    page = report.to_html()
    assert f'<td data-field="interval">{shown}</td>' in page and "-inf" not in page
    latex = report.to_latex()
    assert "($-\\infty$, " in latex and "-inf" not in latex


def test_one_holdout_score_per_model_is_not_said_per_fold(
    holdout_f1_table: cvreport.ResultsTable,
) -> None:
    """Was: "hold-out validation (one score per fold)", "f1 computed per fold" on one split."""
    markdown = quiet(holdout_f1_table).to_markdown()
    assert "hold-out validation (one score per model) · 2 models" in markdown
    source = next(line for line in markdown.splitlines() if line.startswith("| Source |"))
    assert "F1 (f1) computed on the one validation set from predictions in a 456-row" in source
    assert "per fold" not in markdown.split("## Per-model", 1)[0]
    assert len(_predictions(kfold=False)) == 456


def test_per_fold_scores_of_kfold_are_still_said_per_fold(kfold_auc_markdown: str) -> None:
    assert "2×5 cross-validation (m = 2, K = 5, one score per fold)" in kfold_auc_markdown
    assert "AUC (roc\\_auc) computed per fold from predictions" in kfold_auc_markdown


def test_a_repeated_holdout_figure_speaks_of_splits_not_folds() -> None:
    """Was: "Per-fold differences", "fold difference", "Each dot is one validation fold"."""
    from tests._designs import TABLES

    table = TABLES["repeated_holdout"]
    page = quiet(table).to_html()
    differences = table.differences("A", "B").to_numpy().ravel()
    assert differences.size == 5
    [desc] = re.findall(r'<desc id="[^"]*-diff-1-desc">([^<]*)</desc>', page)
    assert desc.startswith(f"{differences.size} per-split differences in error rate")
    assert f"mean {differences.mean():.4f}" in desc
    assert "Points right of the dashed zero line are splits where A had" in desc
    assert ">split difference</text>" in page and ">fold difference</text>" not in page
    assert "Per-split differences in error rate: A − B" in page
    assert (
        "Each dot is one validation split: the error rate of A minus that of B on that split."
        in (page)
    )
    assert "fold" not in desc


def test_a_kfold_figure_still_speaks_of_folds(kfold_auc_markdown: str) -> None:
    table = cvreport.ResultsTable.from_predictions(
        _predictions(kfold=True), truth="y", score="p", metric="roc_auc", replication="rep",
        fold="fold",
    )  # fmt: skip
    page = quiet(table).to_html()
    assert ">fold difference</text>" in page and "Each dot is one validation fold:" in page


def test_the_difference_of_proportions_caution_reads_like_every_other_caution() -> None:
    """Was: "Difference of proportions test: Not recommended: … use McNemar's test (mcnemar) …"."""
    predictions = _predictions(kfold=False)
    losses = predictions.assign(loss=(predictions["y"] != predictions["yhat"]).astype(int))
    table = cvreport.ResultsTable.from_formula("loss ~ model", losses)
    markdown = quiet(table, tests="all").to_markdown()
    caveats = markdown.split("**Caveats for these tests**", 1)[1].split("\n## ", 1)[0]
    bullets = [line[2:] for line in caveats.splitlines() if line.startswith("- ")]
    # McNemar's note on its few discordant records (b + c < 25) is the only other caveat
    bullets = [b for b in bullets if "discordant records (fewer than 25)" not in b]
    assert bullets == [
        "Difference of proportions test: not recommended as the deciding test — the two error "
        "rates come from the same validation records, but the test treats them as independent "
        "proportions and ignores training-set variation (Dietterich 1998); a labelled baseline "
        "only, as McNemar's test pairs the records of one hold-out split."
    ]
    assert "(mcnemar)" not in markdown and "Not recommended:" not in markdown


def test_dietterichs_interval_sentence_has_one_parenthesis_not_two(
    example_all_markdown: str,
) -> None:
    """Was: "The 95% interval for p₁⁽¹⁾ (A − B) (not adjusted for the multiple comparisons)"."""
    sentences = re.findall(r"The 95% interval for p₁⁽¹⁾[^\]]*\]", example_all_markdown)
    assert len(sentences) == 3  # one per pair
    for sentence in sentences:
        assert sentence.startswith(
            "The 95% interval for p₁⁽¹⁾ (A − B on that fold; not adjusted for the multiple "
            "comparisons) is \\["
        )
        assert ") (" not in sentence


def test_dietterichs_interval_of_one_pair_says_nothing_of_an_adjustment() -> None:
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("random")
    )
    report = quiet(
        table, pairs=[("logistic_regression", "decision_tree")], tests=["paired_ttest_5x2cv"]
    )
    assert "The 95% interval for p₁⁽¹⁾ (A − B on that fold) is [" in (
        report.outcomes[0].interpretation
    )


def test_the_band_of_an_adjusted_decision_is_labelled_unadjusted(
    kfold_three_models_markdown: str,
) -> None:
    """Was: a band excluding 0 under "95% interval of the recommended …", decision "no"."""
    frame = losses_frame("kfold")
    third = frame[frame["model"] == "A"].copy()
    third["model"] = "C"
    third["loss"] = (np.random.default_rng(1).random(len(third)) < 0.25).astype(int)
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", pd.concat([frame, third])
    )
    report = quiet(table)
    first = report.analysis.comparisons[0]
    [outcome] = first.recommended
    assert outcome.reject is False and outcome.adjusted > 0.05  # not significant, adjusted
    low, high = outcome.shown_interval
    assert high < 0  # yet its own interval excludes 0
    page = report.to_html()
    [desc] = re.findall(r'<desc id="[^"]*-diff-1-desc">([^<]*)</desc>', page)
    label = "95% interval of the recommended corrected repeated K-fold CV t test (unadjusted)"
    assert f"{label} from {low:.4f} to {high:.4f}" in desc
    assert f">{label}</text>" in page  # the legend, in full
    assert "(1 rows)" not in desc and "one row per replication" not in desc  # one K-fold run


def test_the_band_of_one_pair_is_not_called_unadjusted() -> None:
    from tests._designs import TABLES

    page = quiet(TABLES["kfold"]).to_html()
    assert "(unadjusted)" not in page
    assert "95% interval of the recommended corrected repeated K-fold CV t test from" in page


def test_the_audit_names_the_tests_as_the_report_names_them() -> None:
    def as_in_a_sentence(name: str) -> str:
        spec = get_spec(name)
        return spec.method[0].lower() + spec.method[1:]

    bcv = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("bcv")
    )
    balanced = audit_overlap(bcv)
    assert balanced.verdict == "balanced"
    assert as_in_a_sentence("calibrated_ftest_5x2cv") in balanced.meaning
    assert get_spec("mcnemar_5x2bcv").method in balanced.meaning
    assert "F-test" not in balanced.meaning


def test_a_tiny_posterior_probability_is_shown_by_its_bound_not_in_e_notation() -> None:
    rng = np.random.default_rng(0)
    rows = []
    for replication in range(10):
        for fold in range(10):
            base = rng.normal(0.8, 0.01)
            better = base + 0.03 + rng.normal(0, 0.005)
            rows += [
                {"replication": replication, "fold": fold, "model": "a", "acc": better},
                {"replication": replication, "fold": fold, "model": "b", "acc": base},
            ]
    table = cvreport.ResultsTable.from_formula(
        "acc ~ model | replication + fold", pd.DataFrame(rows), per_fold=True,
        test_train_ratio=1 / 9,
    )  # fmt: skip
    report = cvreport.Report(table, tests="all")
    (posterior,) = [o.posterior for o in report.outcomes if o.posterior is not None]
    assert 0 < posterior.p_b_better < 5e-5  # rounds to 0.0000 but is not 0
    markdown = report.to_markdown()
    assert "| Bayesian correlated t test | 1.0000 | 0.0000 | <0.0001 | 0.0100 |" in markdown
    assert "that b is practically better below 0.0001." in markdown
    assert not re.search(r"\d\.\d+e-\d+", markdown)
    page = report.to_html()
    assert '<td data-field="p_b_better">&lt;0.0001</td>' in page
    assert "$<$0.0001" in report.to_latex()


def test_a_result_summary_shows_tiny_posterior_probabilities_by_their_bound() -> None:
    differences = np.full(20, 0.05) + np.random.default_rng(0).normal(0, 0.002, 20)
    res = cvreport.arrays.bayesian_correlated_ttest(differences, test_train_ratio=0.25, rope=0.01)
    assert 0 < res.prob_a_better < 5e-5 and 0 < res.prob_equivalent < 5e-5
    rows = [line for line in str(res.summary()).splitlines() if line.startswith("P(")]
    assert [row.split()[-1] for row in rows] == ["<0.0001", "<0.0001", "1.0000"]
    assert not re.search(r"\d\.\d+e-\d+", "\n".join(rows))
