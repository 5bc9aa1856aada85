"""Reader points of issue 22 for the reports, each checked as a reader meets it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

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
