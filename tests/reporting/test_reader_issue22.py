"""Reader points of issue 22 for the reports, each checked as a reader meets it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport
from cvreport.data.datasets import DatasetsTable
from cvreport.rendering.writer import OutputExistsError
from cvreport.reporting import interpret
from cvreport.reporting.multi_report import DatasetsReport

_NOTE = "the smallest two-sided p-value the Wilcoxon signed-rank test can give"


def _scores(n_datasets: int) -> pd.DataFrame:
    """Data sets × models scores where "new" beats "old" on every data set."""
    rng = np.random.default_rng(7)
    old = 0.6 + 0.3 * rng.random(n_datasets)
    return pd.DataFrame({"new": old + 0.01 + 0.02 * rng.random(n_datasets), "old": old})


def _note_lines(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if _NOTE in line]


@pytest.mark.parametrize(
    ("n_datasets", "alpha"), [(5, 0.01), (5, 0.05), (5, 0.10), (7, 0.01), (7, 0.05)]
)
def test_few_data_sets_note_follows_the_chosen_alpha(n_datasets: int, alpha: float) -> None:
    scores = _scores(n_datasets)
    # the exact null of scipy: one model better on every data set gives the smallest p
    smallest = stats.wilcoxon(scores["new"], scores["old"], method="exact").pvalue
    assert smallest == pytest.approx(2 / 2**n_datasets)
    text = DatasetsReport(
        scores, direction="higher", baseline="new", alpha=alpha, n_samples=2000
    ).to_markdown()
    notes = _note_lines(text)
    if smallest > alpha:
        assert len(notes) == 1
        assert f"is {smallest:.4g}: it cannot reject at α = {alpha:g}." in notes[0]
    else:
        assert notes == []


def test_five_data_sets_reject_at_ten_percent_but_not_at_five() -> None:
    scores = _scores(5)
    kept = {
        alpha: DatasetsReport(
            scores, direction="higher", baseline="new", alpha=alpha, n_samples=2000
        ).analysis.wilcoxon
        for alpha in (0.05, 0.10)
    }
    assert not kept[0.05]["reject"].any()
    assert kept[0.10]["reject"].all()


@pytest.mark.parametrize("standalone", [False, True])
def test_cd_latex_says_once_that_it_needs_tikz(standalone: bool) -> None:
    report = DatasetsReport(_scores(6), direction="higher", baseline="new", n_samples=2000)
    text = report.cd_latex(standalone=standalone)
    assert text.count("{tikz}") == 1  # the preamble, or the first comment line
    first = text.lstrip().splitlines()[0]
    if standalone:
        assert first.startswith("\\documentclass") and "needs" not in text
    else:
        assert first == r"% Critical-difference diagram (Demšar 2006); needs \usepackage{tikz}."
        assert "\\begin{tikzpicture}" in text and text.count("needs") == 1


def _five_fold_auc_table() -> cvreport.ResultsTable:
    rng = np.random.default_rng(0)
    n = 120
    y = rng.integers(0, 2, n)
    frames = []
    for model, strength in (("A", 0.5), ("B", 0.3)):
        p = (strength * y + rng.random(n)) / 1.5
        frames.append(
            pd.DataFrame(
                {"model": model, "record": np.arange(n), "fold": np.arange(n) % 5, "y": y, "p": p}
            )
        )
    return cvreport.ResultsTable.from_predictions(
        pd.concat(frames, ignore_index=True),
        truth="y",
        score="p",
        metric="roc_auc",
        replication=None,
        fold="fold",
    )


def test_method_names_inside_sentences_read_as_words() -> None:
    report = cvreport.Report(_five_fold_auc_table())
    html = report.to_html()
    # the per-fold figure's legend and accessible text name the test mid-sentence
    assert "interval of the recommended corrected repeated K-fold CV t test" in html
    assert "recommended Corrected" not in html


def test_disagreement_lists_tests_as_a_sentence_does() -> None:
    text = interpret.disagreement_sentence(
        "A",
        "B",
        rejecting=["Dietterich's 5×2cv paired t test", "5×2 BCV McNemar test"],
        not_rejecting=["Calibrated balanced 5×2cv F test", "Wilcoxon signed-rank test"],
        alpha=0.05,
        recommended=["Corrected repeated k-fold CV t test"],
    )
    assert text is not None
    assert (
        "Dietterich's 5×2cv paired t test and 5×2 BCV McNemar test find a difference, "
        "calibrated balanced 5×2cv F test and Wilcoxon signed-rank test do not." in text
    )
    assert "rely on the recommended test (corrected repeated k-fold CV t test)" in text


@pytest.mark.parametrize(
    ("method", "words"),
    [
        ("Corrected resampled t test", "corrected resampled t test"),
        ("Paired bootstrap test", "paired bootstrap test"),
        ("Sign test over K-fold differences", "sign test over K-fold differences"),
        ("Cross-validation confidence interval and test", "cross-validation confidence"),
        ("K-fold cross-validated paired t test", "K-fold cross-validated"),
        ("McNemar's test (continuity-corrected)", "McNemar's test"),
        ("DeLong's test of two correlated AUCs", "DeLong's test"),
        ("Bayesian correlated t test", "Bayesian correlated"),
        ("Wilcoxon signed-rank test over K-fold differences", "Wilcoxon signed-rank"),
        ("5×2 BCV McNemar test", "5×2 BCV"),
        ("t test of the mean fold error against p0", "t test of"),
    ],
)
def test_a_method_name_keeps_its_capital_only_for_a_name_or_symbol(method: str, words: str) -> None:
    assert interpret.in_sentence(method).startswith(words)


def _predictions(n_datasets: int = 1, folds: int = 5, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 120
    frames = []
    for dataset in range(n_datasets):
        y = rng.integers(0, 2, n)
        for model, strength in (("A", 0.5), ("B", 0.3)):
            p = (strength * y + rng.random(n)) / 1.5
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": f"d{dataset}",
                        "model": model,
                        "record": np.arange(n),
                        "fold": np.arange(n) % folds,
                        "y": y,
                        "p": p,
                        "yhat": (p > 0.4).astype(int),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def _report(metric: str, folds: int) -> cvreport.Report:
    kwargs = {"score": "p"} if metric in ("roc_auc", "log_loss") else {"prediction": "yhat"}
    table = cvreport.ResultsTable.from_predictions(
        _predictions(folds=folds),
        truth="y",
        metric=metric,
        replication=None,
        fold=None if folds == 1 else "fold",
        **kwargs,
    )
    return cvreport.Report(table)


def _prose(markdown: str) -> str:
    """The report's sentences: without code spans and the source line (the call as typed)."""
    kept = [line for line in markdown.splitlines() if not line.startswith("| Source |")]
    return re.sub(r"`[^`]*`", "", "\n".join(kept)).replace("\\_", "_")


@pytest.mark.parametrize(
    ("metric", "folds", "phrase"),
    [
        ("roc_auc", 5, "has the higher mean per-fold AUC, by"),
        ("roc_auc", 1, "has the higher AUC, by"),
        ("f1", 1, "has the higher F1, by"),
        ("log_loss", 5, "has the lower mean log loss, by"),
    ],
)
def test_sentences_name_the_metric_as_a_reader_does(metric: str, folds: int, phrase: str) -> None:
    report = _report(metric, folds)
    for text in (report.to_markdown(), report.to_latex()):
        assert phrase in text
    markdown = report.to_markdown()
    # the metric row keeps the name the user types, with the reader's name beside it
    assert f"| Metric | `{metric}` (" in markdown
    # (the recommendation's reason is written by methods/recommendation.py: not checked here)
    reason = report.analysis.recommendation.reason
    assert metric not in _prose(markdown).replace(reason, "")
    assert f"<code>{metric}</code>" in report.to_html()


def test_many_data_sets_intro_names_the_metric_as_a_reader_does() -> None:
    table = DatasetsTable.from_predictions(
        _predictions(n_datasets=6), truth="y", score="p", metric="roc_auc", replication=None
    )
    text = DatasetsReport(table, baseline="A", n_samples=2000).to_markdown()
    assert "2 models on 6 data sets; metric: AUC (higher is better)." in text
    assert "roc_auc" not in _prose(text)


def test_many_data_sets_files_are_refused_and_written_as_the_report_s(tmp_path: Path) -> None:
    report = DatasetsReport(_scores(6), direction="higher", baseline="new", n_samples=2000)
    for path, save, start in (
        (tmp_path / "cd.svg", report.save_cd, "<svg"),
        (tmp_path / "cd.tex", report.save_cd, "\\documentclass"),
        (tmp_path / "report.md", report.save, "# "),
    ):
        assert save(path) == path and path.read_text(encoding="utf-8").startswith(start)
        with pytest.raises(OutputExistsError, match="exists; pass overwrite=True"):
            save(path)
        assert save(path, overwrite=True) == path


def test_many_data_sets_posteriors_print_their_bound_not_a_rounded_certainty() -> None:
    """A posterior that rounds to 1 but is not 1 shows '>0.999', as the one-data-set report does."""
    rng = np.random.default_rng(7)
    old = 0.6 + 0.3 * rng.random(6)
    scores = pd.DataFrame({"new": old + 0.02 + 0.02 * rng.random(6), "old": old})
    report = DatasetsReport(scores, direction="higher", baseline="new", n_samples=50_000)
    (posterior,) = report.analysis.bayesian
    # 50,000 draws: a few fall in the rope, so neither probability is 0 or 1.
    assert 0.9995 < posterior.p_a_better < 1.0 and 0.0 < posterior.p_equivalent < 0.0005
    text = report.to_markdown()
    assert "| new | old | \\>0.999 | \\<0.001 | 0.000 |" in text
    assert "1.000" not in text.split("Bayesian signed-rank test")[1].split("###")[0]
    # LaTeX writes the bound in math mode, never as a bare '<' (¡ in OT1 fonts).
    latex = report.to_latex()
    assert "& >0.999" not in latex and "& <0.001" not in latex
    assert "0.999" in latex
    # The simplex figure labels its corners with the same bounds, escaped for SVG.
    html = report.to_html()
    assert "better: P &gt; 0.999" in html and "equivalent: P &lt; 0.001" in html
    assert "P(new better) &gt; 0.999" in html


def test_a_result_summary_names_the_metric_as_the_report_does() -> None:
    """Was: 'estimate (mean roc_auc A − B)' and 'better: higher roc_auc' in summary()."""
    rng = np.random.default_rng(3)
    rows = []
    for fold in range(1, 6):
        truth = rng.integers(0, 2, 40)
        for model, noise in (("A", 0.6), ("B", 1.2)):
            score = truth + noise * rng.standard_normal(40)
            for record, (y, s) in enumerate(zip(truth, score, strict=True)):
                rows.append((fold, model, f"{fold}-{record}", y, s))
    data = pd.DataFrame(rows, columns=["fold", "model", "record", "y", "p"])
    table = cvreport.ResultsTable.from_predictions(
        data, truth="y", score="p", metric="roc_auc", replication=None
    )
    text = cvreport.paired_ttest_kfold(table, "A", "B").summary().as_text()
    assert "estimate (mean AUC A − B)" in text
    assert re.search(r"^better\s+higher AUC$", text, re.M)
    assert "roc_auc" not in text
