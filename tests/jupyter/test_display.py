"""Rich display in Jupyter: what IPython's display machinery gets from results, audits and reports.

``IPython.core.formatters.format_display_data`` is what a kernel calls on the
value of a cell. The HTML and Markdown it returns must carry the statistic and
the p-value exactly as cvreport.rendering.formatting prints them; LaTeX is offered only
when the ``display.latex`` option is on (as pandas does); and one display
builds the summary once, not once per format.
"""

from __future__ import annotations

import html

import numpy as np
import pytest
from IPython.core.formatters import format_display_data

import cvreport
from cvreport import options
from cvreport.partitions.splits import RandomMx2CV
from cvreport.rendering.formatting import escape_markdown, format_number, format_pvalue
from cvreport.results import TestResult
from tests._fakes import model_losses


def _table(models: tuple[str, ...] = ("logistic", "tree"), seed: int = 11, n: int = 200):
    rng = np.random.default_rng(seed)
    assignment = RandomMx2CV(m=5, random_state=seed).assignment(n)
    data = model_losses(assignment, dict(zip(models, (0.1, 0.25, 0.2))), rng, n)
    return cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", data)


@pytest.fixture(scope="module")
def table():
    return _table()


def _shows(bundle: dict, statistic: float, pvalue: float) -> None:
    page = bundle["text/html"]
    assert html.escape(format_number(statistic)) in page
    assert html.escape(format_pvalue(pvalue)) in page
    markdown = bundle["text/markdown"]
    assert escape_markdown(format_number(statistic)) in markdown
    assert escape_markdown(format_pvalue(pvalue)) in markdown


@pytest.mark.filterwarnings("ignore::cvreport.errors.PartitionWarning")  # random partitions
@pytest.mark.parametrize("test", ["combined_ftest_5x2cv", "paired_ttest_5x2cv", "mcnemar_5x2bcv"])
def test_a_result_displays_its_statistic_and_pvalue(table, test) -> None:
    result = getattr(cvreport, test)(table, "logistic", "tree")
    bundle, _ = format_display_data(result)
    assert {"text/plain", "text/html", "text/markdown"} <= set(bundle)
    assert "text/latex" not in bundle
    _shows(bundle, result.statistic, result.pvalue)
    assert result.method in html.unescape(bundle["text/html"])
    assert bundle["text/plain"] == repr(result)


def test_a_very_small_pvalue_shows_below_the_display_precision() -> None:
    result = TestResult(statistic=25.0, pvalue=3e-7, df=1, method="McNemar's test")
    bundle, _ = format_display_data(result)
    assert "&lt;0.001" in bundle["text/html"]
    assert "\\<0.001" in bundle["text/markdown"]
    assert "25.0000" in bundle["text/html"]


def test_an_audit_displays_zmax_and_pvalue(table) -> None:
    audit = cvreport.audit_overlap(table)
    bundle, _ = format_display_data(audit)
    assert {"text/html", "text/markdown"} <= set(bundle)
    _shows(bundle, audit.z_max, audit.pvalue)
    assert audit.verdict in bundle["text/html"]
    # every pair's overlap X is listed
    for pair in audit.pair_overlaps:
        assert f"<td>{pair.overlap}</td>" in bundle["text/html"]


def test_a_report_displays_the_recommended_tests(table) -> None:
    report = cvreport.Report(table)
    bundle, _ = format_display_data(report)
    assert {"text/html", "text/markdown"} <= set(bundle)
    assert report.results, "the report ran no test"
    for result in report.results:
        _shows(bundle, result.statistic, result.pvalue)
    assert "<html" not in bundle["text/html"]  # a fragment inside the notebook, not a page


def test_a_summary_displays_itself(table) -> None:
    result = cvreport.combined_ftest_5x2cv(table, "logistic", "tree")
    bundle, _ = format_display_data(result.summary())
    _shows(bundle, result.statistic, result.pvalue)
    assert bundle["text/plain"] == result.summary().as_text().rstrip("\n")


def test_latex_only_behind_the_option(table) -> None:
    result = cvreport.combined_ftest_5x2cv(table, "logistic", "tree")
    audit = cvreport.audit_overlap(table)
    assert result._repr_latex_() is None
    assert result.summary()._repr_latex_() is None
    assert "text/latex" not in format_display_data(audit)[0]
    with options.option_context("display.latex", True):
        for shown, statistic in ((result, result.statistic), (audit, audit.z_max)):
            latex = format_display_data(shown)[0]["text/latex"]
            assert latex == shown.summary().as_latex()
            assert "\\begin{tabular}" in latex
            assert format_number(statistic) in latex
            assert format_pvalue(shown.pvalue, less_than="$<$") in latex
        assert format_display_data(result.summary())[0]["text/latex"] == result.summary().as_latex()
    assert options.get_option("display.latex") is False  # the context restored it

    options.display.latex = True  # attribute style, as in pandas
    try:
        assert "\\toprule" in result._repr_latex_()
    finally:
        options.reset_option("display.latex")
    assert "text/latex" not in format_display_data(result)[0]


def test_one_display_builds_one_summary(table, monkeypatch) -> None:
    result = cvreport.combined_ftest_5x2cv(table, "logistic", "tree")
    kind = type(result)
    calls: list[int] = []
    original = kind.summary

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(kind, "summary", counting)
    with options.option_context("display.latex", True):
        bundle, _ = format_display_data(result)
    assert {"text/html", "text/markdown", "text/latex"} <= set(bundle)
    assert len(calls) == 1


def test_a_subclass_with_its_own_html_keeps_it() -> None:
    class Custom(TestResult):
        def _repr_html_(self) -> str:
            return "<p>custom</p>"

    bundle, _ = format_display_data(Custom(statistic=1.5, pvalue=0.25))
    assert bundle["text/html"] == "<p>custom</p>"
    assert "1.5000" in bundle["text/markdown"]


def test_include_and_exclude_filter_the_bundle(table) -> None:
    result = cvreport.combined_ftest_5x2cv(table, "logistic", "tree")
    only_html, _ = format_display_data(result, include={"text/html"})
    assert set(only_html) == {"text/html"}
    without_html, _ = format_display_data(result, exclude={"text/html"})
    assert "text/html" not in without_html and "text/markdown" in without_html


def test_options_are_validated() -> None:
    with pytest.raises(cvreport.CVReportError, match="True or False"):
        options.set_option("display.latex", "yes")
    with pytest.raises(cvreport.CVReportError, match=r"display\.latex"):
        options.get_option("display.colour")
    with pytest.raises(AttributeError, match=r"display\.colour"):
        options.display.colour = True
    assert options.get_option("latex") is False  # an unambiguous last part is enough
    assert "display.latex = False" in options.describe_options()


def test_a_table_displays_its_design_models_and_fold_sizes(table) -> None:
    bundle, _ = format_display_data(table)
    assert {"text/plain", "text/html", "text/markdown"} <= set(bundle)
    assert "text/latex" not in bundle
    assert bundle["text/plain"] == repr(table)
    page = html.unescape(bundle["text/html"])
    assert table.design.describe() in page
    for model in table.models:
        assert model in page
    assert "Records per validation fold" in page
    sizes = table.design.fold_sizes["n"].tolist()
    assert f"<td>{sizes[0]}</td>" in bundle["text/html"]
    assert escape_markdown(table.design.describe()) in bundle["text/markdown"]
    with options.option_context("display.latex", True):
        latex = format_display_data(table)[0]["text/latex"]
    assert latex == table.summary().as_latex() and "\\toprule" in latex


def test_one_table_display_builds_one_summary(table, monkeypatch) -> None:
    calls: list[int] = []
    original = cvreport.ResultsTable.summary

    def counting(self):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(cvreport.ResultsTable, "summary", counting)
    with options.option_context("display.latex", True):
        bundle, _ = format_display_data(table)
    assert {"text/html", "text/markdown", "text/latex"} <= set(bundle)
    assert len(calls) == 1


def test_one_report_display_builds_one_context(table, monkeypatch) -> None:
    report = cvreport.Report(table)
    calls: list[int] = []
    original = cvreport.Report.context

    def counting(self):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(cvreport.Report, "context", counting)
    bundle, _ = format_display_data(report)
    assert set(bundle) == {"text/plain", "text/html", "text/markdown"}
    assert len(calls) == 1
    assert bundle["text/html"] == report.to_html(standalone=False)
    assert bundle["text/markdown"] == report.to_markdown()

    calls.clear()
    with options.option_context("display.latex", True):
        bundle, _ = format_display_data(report)
    assert bundle["text/latex"] == report.to_latex(standalone=False)
    assert "\\documentclass" not in bundle["text/latex"]  # a fragment, not a document
    assert len(calls) == 1

    calls.clear()
    only_markdown, _ = format_display_data(report, include={"text/markdown"})
    assert set(only_markdown) == {"text/markdown"} and len(calls) == 1
