"""The many-data-sets report renders a frozen analysis, and names a test as the one-data-set report does."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data.datasets import DatasetsTable
from cvreport.errors import CVReportError
from cvreport.jupyter.widgets import _available_tests
from cvreport.methods.registry import get_spec
from cvreport.multi import analysis as multi_analysis
from cvreport.multi import compare_datasets
from cvreport.reporting import multi_report, multi_view
from cvreport.reporting.interpret import in_sentence
from cvreport.reporting.multi_report import DatasetsReport
from cvreport.reporting.report import Report

BASELINE = "logistic_regression"


@pytest.fixture(scope="module")
def multi() -> DatasetsTable:
    return DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )


@pytest.fixture(scope="module")
def analysis(multi: DatasetsTable) -> multi_analysis.DatasetsAnalysis:
    return compare_datasets(multi, baseline=BASELINE, n_samples=2000, seed=3)


def _renderings(report: DatasetsReport) -> dict[str, str]:
    return {
        "html": report.to_html(),
        "fragment": report.to_html(standalone=False),
        "markdown": report.to_markdown(),
        "latex": report.to_latex(),
        "table": report.table_latex(layout="models-as-rows", span="page"),
        "cd": report.cd_latex(standalone=True),
        "repr": repr(report),
    }


def test_the_report_of_an_analysis_is_the_report_of_its_table(
    multi: DatasetsTable, analysis: multi_analysis.DatasetsAnalysis
) -> None:
    from_table = DatasetsReport(multi, baseline=BASELINE, n_samples=2000, seed=3)
    given = DatasetsReport(analysis)
    built = DatasetsReport.from_analysis(analysis)
    expected = _renderings(from_table)
    assert _renderings(given) == expected
    assert _renderings(built) == expected
    assert given.analysis is analysis and built.table is multi
    # the view is a function of the analysis alone
    assert multi_view.build_context(analysis, title=given.title, digits=3) == given.context()
    assert given.title == f"{BASELINE} against 4 models on 10 data sets"
    # title and digits are render options: they change the text, not the analysis
    other = DatasetsReport.from_analysis(analysis, title="Mine", digits=2)
    assert other.analysis is analysis
    assert other.to_markdown().startswith("# Mine\n")
    first = analysis.means.iloc[0, 0]
    assert f"| {f'{first:.2f}'}" in other.to_markdown().replace("**", "")


def test_rendering_twice_runs_nothing_again(
    monkeypatch: pytest.MonkeyPatch, analysis: multi_analysis.DatasetsAnalysis
) -> None:
    scores = analysis.means
    calls = {"compare": 0, "posterior": 0}
    compare, posterior = multi_report.compare_datasets, multi_view.posterior_points

    def counted_compare(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["compare"] += 1
        return compare(*args, **kwargs)

    def counted_posterior(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["posterior"] += 1
        return posterior(*args, **kwargs)

    monkeypatch.setattr(multi_report, "compare_datasets", counted_compare)
    monkeypatch.setattr(multi_view, "posterior_points", counted_posterior)
    report = DatasetsReport(scores, direction="lower", baseline=BASELINE, n_samples=1000)
    assert calls == {"compare": 1, "posterior": 0}
    first = report.to_html(), report.to_markdown(), report.to_latex()
    drawn = calls["posterior"]
    assert drawn == len(report.analysis.bayesian) == 4  # one simplex per pair, drawn once
    second = report.to_html(), report.to_markdown(), report.to_latex()
    report._repr_mimebundle_()
    assert first == second
    assert calls == {"compare": 1, "posterior": drawn}
    # a report of an analysis runs nothing at all
    DatasetsReport.from_analysis(report.analysis).to_markdown()
    assert calls["compare"] == 1


def test_the_analysis_is_frozen(analysis: multi_analysis.DatasetsAnalysis) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        analysis.alpha = 0.1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        analysis.notes = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        analysis.designs["breast_cancer"] = "changed"  # type: ignore[index]
    assert isinstance(analysis.bayesian, tuple) and isinstance(analysis.notes, tuple)
    assert all(isinstance(clique, tuple) for clique in analysis.wilcoxon_cliques)
    # a value built by hand is frozen the same way
    copy = dataclasses.replace(
        analysis, designs=dict(analysis.designs), bayesian=list(analysis.bayesian)
    )
    assert isinstance(copy.bayesian, tuple)
    with pytest.raises(TypeError):
        copy.designs["breast_cancer"] = "changed"  # type: ignore[index]


def test_options_beside_an_analysis_are_refused(analysis: multi_analysis.DatasetsAnalysis) -> None:
    with pytest.raises(CVReportError, match=r"alpha, seed cannot change an analysis already run"):
        DatasetsReport(analysis, alpha=0.01, seed=5)
    with pytest.raises(CVReportError, match="baseline"):
        DatasetsReport(analysis, baseline="knn")


def _single_report_names(table: object, pair: tuple[str, str], test: str) -> tuple[str, str]:
    report = Report(table, pairs=[pair], tests=[test])  # type: ignore[arg-type]
    (outcome,) = report.comparisons[0].outcomes
    return outcome.method, report.to_markdown()


def test_one_test_has_one_name_in_both_reports(multi: DatasetsTable) -> None:
    """Was: "Corrected repeated K-fold t test" here, "Corrected repeated k-fold CV t test" there."""
    report = DatasetsReport(multi, baseline=BASELINE, n_samples=1000)
    markdown = report.to_markdown()
    legend = " ".join(report.table_context()["legend"])
    designs = {row["dataset"]: row["test"] for row in report.context()["designs"]}
    rows = report.analysis.per_dataset.comparisons
    seen = set()
    for test in ("corrected_repeated_kfold_ttest", "combined_ftest_5x2cv"):
        spec = get_spec(test)
        assert spec.label != spec.method  # the two names once used
        row = rows[rows["test"] == test].iloc[0]
        name, single = _single_report_names(multi.tables[row.dataset], (row.a, row.b), test)
        # the one-data-set report names the test so (its recommendation, table, readings)
        assert name == spec.method and f"| {name}" in single and spec.label not in single
        # the many-data-sets report: the legend and each data set's row say the same
        assert designs[str(row.dataset)] == name
        assert f"{in_sentence(name)} on " in legend  # inside the sentence
        assert set(rows.loc[rows["test"] == test, "method"]) == {name}
        assert spec.label not in markdown and spec.label not in report.to_latex()
        seen.add(name)
    assert seen == set(report.analysis.per_dataset.tests_used())


def _tied_scores() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    scores = pd.DataFrame(
        rng.uniform(0.6, 0.9, size=(9, 4)).round(2),
        columns=["alpha", "beta", "gamma", "delta"],
        index=[f"set{i}" for i in range(9)],
    )
    scores.iloc[:3, 1] = scores.iloc[:3, 0]  # alpha and beta tie on three data sets
    scores.iloc[:4, 3] = scores.iloc[:4, 2]  # gamma and delta on four
    return scores


def test_tie_bullets_name_the_pair_they_belong_to() -> None:
    """Was: the bullets about ties repeated without naming the pair they belong to."""
    scores = _tied_scores()
    text = DatasetsReport(scores, direction="higher", n_samples=1000).to_markdown()
    section = text.split("## Where the assumptions fail\n\n")[1].split("\n## ")[0]
    bullets = [line[2:] for line in section.splitlines() if line.startswith("- ")]
    assert len(bullets) == len(set(bullets))  # no bullet repeats
    pair_bullets = [b for b in bullets if "equal scores" in b or "equal absolute" in b]
    assert pair_bullets
    for bullet in pair_bullets:
        head = bullet.split(": ")[0]
        assert head == "Every pair" or re.fullmatch(r"\w+ vs \w+(, \w+ vs \w+)*", head), bullet
    # each tied pair is named in the bullet that counts its ties
    for (a, b), count in ((("alpha", "beta"), 3), (("gamma", "delta"), 4)):
        equal = int((scores[a] == scores[b]).sum())
        assert equal >= count
        named = [x for x in bullets if f"{equal} data sets with equal scores" in x]
        assert len(named) == 1 and named[0].startswith(f"{a} vs {b}: "), named


def test_the_explorer_lists_a_test_by_the_name_the_reports_give_it(multi: DatasetsTable) -> None:
    table = multi.tables["breast_cancer"]
    offered = _available_tests(table)
    assert offered["corrected_repeated_kfold_ttest"] == "Corrected repeated K-fold CV t test"
    assert all(name == get_spec(test).method for test, name in offered.items())
