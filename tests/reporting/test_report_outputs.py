"""The rendered report shows exactly the numbers of the result objects, in HTML, Markdown and LaTeX.

No golden files: each output is parsed (``html.parser`` for HTML, the pipe
tables for Markdown, the tabular rows for LaTeX) and every shown number is
compared with the result object's value passed through the same formatting
function. Model names with HTML and LaTeX specials must come out escaped, and
the LaTeX report must compile with pdflatex where it is installed
(``CVREPORT_REQUIRE_PDFLATEX=1`` turns a missing pdflatex into a failure).
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cvreport.rendering.formatting import (
    escape_latex,
    format_df,
    format_interval,
    format_number,
    format_pvalue,
    latex_number_text,
)
from cvreport.results import TestResult
from tests._fakes import (
    FakeTable,
    IntervalResult,
    PosteriorResult,
    compile_latex,
    declared_packages,
    make_result,
    pdflatex_or_skip,
    route_tests,
    with_audit,
)

report_module = importlib.import_module("cvreport.reporting.report")
Report = report_module.Report

SCRIPT = "<script>alert(1)</script>"
SPECIALS = "a_b & c%$#"


# -- parsing helpers -----------------------------------------------------------------
class Page(HTMLParser):
    """Collects every table (rows of cells with their data-* attributes), tags seen and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[dict[str, Any]]] = {}
        self.start_tags: list[str] = []
        self.text: list[str] = []
        self.facts: dict[str, str] = {}
        self._table: list[dict[str, Any]] | None = None
        self._row: dict[str, Any] | None = None
        self._cell: tuple[str, list[str]] | None = None
        self._field_stack: list[tuple[str, list[str]]] = []
        self._anonymous = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.start_tags.append(tag)
        a = dict(attrs)
        if tag == "table":
            key = a.get("id") or f"table-{self._anonymous}"
            self._anonymous += 1
            self._table = self.tables.setdefault(key, [])
        elif tag == "tr" and self._table is not None:
            self._row = {"_attrs": a, "_cells": []}
        elif tag in ("td", "th") and self._row is not None:
            self._cell = (a.get("data-field") or "", [])
        if a.get("data-field") and tag not in ("td", "th"):
            self._field_stack.append((a["data-field"] or "", []))
        elif a.get("data-field") and tag in ("td", "th") and self._table is None:
            self._field_stack.append((a["data-field"] or "", []))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            field, parts = self._cell
            text = " ".join("".join(parts).split())
            self._row["_cells"].append(text)
            if field:
                self._row[field] = text
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self._table.append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        if tag in ("dd", "span") and self._field_stack:
            field, parts = self._field_stack.pop()
            text = " ".join("".join(parts).split())
            if self._row is not None and tag == "span":
                self._row[field] = text
            else:
                self.facts[field] = text

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell[1].append(data)
        for _, parts in self._field_stack:
            parts.append(data)


def parse_html(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Every GitHub pipe table as rows of unescaped cells (header and separator dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] | None = None
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            cells = [re.sub(r"\\(.)", r"\1", c) for c in cells]
            if current is None:
                current = []
                tables.append(current)
                current.append(cells)  # header
            elif all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue
            else:
                current.append(cells)
        else:
            current = None
    return tables


def latex_rows(text: str, caption_start: str) -> list[list[str]]:
    """Body rows of the tabular whose caption starts with ``caption_start``."""
    start = text.index("\\caption{" + caption_start)
    body = text[
        text.index("\\midrule", start) + len("\\midrule") : text.index("\\bottomrule", start)
    ]
    rows = []
    for line in body.strip().splitlines():
        line = line.strip()
        if line.endswith("\\\\"):
            line = line[:-2]
        rows.append([c.strip() for c in re.split(r"(?<!\\)&", line)])
    return rows


# -- expectations -------------------------------------------------------------------
def expected_cells(outcome: Any, *, latex: bool = False) -> dict[str, str]:
    result: TestResult = outcome.result
    lt = "$<$" if latex else "<"
    # LaTeX sets a negative sign as a minus, as it sets "<" as $<$
    signed = latex_number_text if latex else str
    return {
        "statistic": signed(format_number(outcome.shown_statistic)),
        "df": format_df(result.df),
        "pvalue": format_pvalue(result.pvalue, less_than=lt),
        "adjusted": format_pvalue(outcome.adjusted, less_than=lt)
        if outcome.adjusted is not None
        else ("---" if latex else "—"),
        "decision": "yes" if outcome.reject else "no",
        # the estimate the interval is centred on, in the user's metric (Dietterich's t: p₁⁽¹⁾)
        "estimate": signed(format_number(outcome.shown_estimate))
        + (
            ("$^{\\dagger}$" if latex else " (p₁⁽¹⁾)")
            if outcome.estimate_label != "mean difference"
            else ""
        ),
        "interval": signed(format_interval(outcome.shown_interval))
        if outcome.shown_interval
        else ("---" if latex else "—"),
    }


def check_html(report: Any) -> Page:
    page = parse_html(report.to_html())
    for index, comparison in enumerate(report.comparisons):
        rows = page.tables.get(f"pair-{index + 1}-tests", [])[1:]  # drop the header row
        frequentist = [o for o in comparison.outcomes if o.posterior is None]
        assert [r["_attrs"]["data-test"] for r in rows] == [o.name for o in frequentist]
        for row, outcome in zip(rows, frequentist):
            expected = expected_cells(outcome)
            if not any(o.adjusted is not None for o in frequentist):
                expected.pop("adjusted")
                assert "adjusted" not in row
            for field, value in expected.items():
                assert row[field] == value, (outcome.name, field)
            assert row["method"] == outcome.result.method
            badges = row["test"][len(outcome.result.method) :].split()
            assert ("recommended" in badges and "not" not in badges) == outcome.recommended
            labelled = outcome.caution is not None or any(
                "not recommended" in n.lower() for n in outcome.result.notes
            )
            assert ("not" in badges) == (labelled and not outcome.recommended)
            # the interval is the result's own interval at the report's alpha, in the metric
            sign = report.metric.sign
            if outcome.result.has_conf_int:
                low, high = outcome.result.conf_int(report.alpha)
                assert row["interval"] == format_interval(sorted((sign * low, sign * high)))
            centre = getattr(outcome.result, "center", None)
            if outcome.name == "paired_ttest_5x2cv" and centre is not None:
                assert outcome.shown_estimate == pytest.approx(sign * centre)
            else:
                assert outcome.shown_estimate == pytest.approx(sign * outcome.result.estimate)
        bayes = [o for o in comparison.outcomes if o.posterior is not None]
        rows = page.tables.get(f"pair-{index + 1}-bayes", [])[1:]
        assert len(rows) == len(bayes)
        for row, outcome in zip(rows, bayes):
            assert row["p_a_better"] == format_number(outcome.result.prob_a_better)
            assert row["p_equivalent"] == format_number(outcome.result.prob_equivalent)
            assert row["p_b_better"] == format_number(outcome.result.prob_b_better)
    return page


def check_markdown(report: Any) -> None:
    text = report.to_markdown()
    tables = markdown_tables(text)
    test_tables = [t for t in tables if t[0][:2] == ["Test", "Statistic"]]
    pairs_with_tests = [
        c for c in report.comparisons if any(o.posterior is None for o in c.outcomes)
    ]
    assert len(test_tables) == len(pairs_with_tests)
    for table, comparison in zip(test_tables, pairs_with_tests):
        header = table[0]
        frequentist = [o for o in comparison.outcomes if o.posterior is None]
        assert len(table) - 1 == len(frequentist)
        for cells, outcome in zip(table[1:], frequentist):
            row = dict(zip(header, cells))
            expected = expected_cells(outcome)
            assert row["Test"].startswith(outcome.result.method)
            assert row["Statistic"] == expected["statistic"]
            assert row["df"] == expected["df"]
            assert row["p-value"] == expected["pvalue"]
            if "Adjusted p" in row:
                assert row["Adjusted p"] == expected["adjusted"]
            assert row["Significant"] == expected["decision"]
            assert row["Estimate A − B"] == expected["estimate"]
            assert row[header[-1]] == expected["interval"]
    losses = next(t for t in tables if t[0][0] == "Model" and t[0][1].startswith("Mean"))
    for cells, row in zip(losses[1:], report.context()["model_losses"]):
        assert cells[0] == row["model"]
        assert cells[1:5] == [format_number(row[k]) for k in ("mean", "sd", "min", "max")]


def check_latex(report: Any, *, stars: bool = False) -> str:
    text = report.to_latex(stars=stars)
    for comparison in report.comparisons:
        frequentist = [o for o in comparison.outcomes if o.posterior is None]
        if not frequentist:
            continue
        caption = f"Tests: {escape_latex(comparison.a)} vs {escape_latex(comparison.b)}"
        rows = latex_rows(text, caption)
        assert len(rows) == len(frequentist)
        adjusted_column = any(o.adjusted is not None for o in frequentist)
        for cells, outcome in zip(rows, frequentist):
            expected = expected_cells(outcome, latex=True)
            if not adjusted_column:
                expected.pop("adjusted")
            name = escape_latex(outcome.result.method)
            not_recommended = not outcome.recommended and bool(
                outcome.caution or any("not recommended" in n.lower() for n in outcome.result.notes)
            )
            warned = bool([*outcome.result.warnings, *outcome.extra_warnings])
            marks = ["R"] * outcome.recommended + ["N"] * not_recommended + ["W"] * warned
            assert cells[0] == name + (f"\\textsuperscript{{{','.join(marks)}}}" if marks else "")
            shown = cells[1:]
            if stars:
                shown = [re.sub(r"\$\^\{\*+\}\$$", "", c) for c in shown]
            assert shown == list(expected.values())
    return text


# -- a report with every kind of row --------------------------------------------------------
@pytest.fixture(scope="module")
def rich_report() -> Any:
    """Three models (two with hostile names), all mx2 tests, tiny and borderline p-values."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _rich_report(monkeypatch)


def _rich_report(monkeypatch: pytest.MonkeyPatch) -> Any:
    with_audit(monkeypatch, "balanced")
    pvalues = {
        "calibrated_ftest_5x2cv": 0.00004,
        "mcnemar_5x2bcv": 0.0312,
        "combined_ftest_5x2cv": 0.2,
        "paired_ttest_5x2cv": 0.0009,
        "combined_ttest_5x2cv": 0.051,
        "blocked_ttest_3x2cv": 0.7,
        "corrected_repeated_kfold_ttest": 0.01,
    }

    def resolve(name: str) -> Any:
        def run(table: Any, a: str, b: str) -> TestResult:
            if name == "bayesian_correlated_ttest":
                return PosteriorResult(
                    statistic=0.4, pvalue=0.6, method="Bayesian correlated t test", models=(a, b)
                )
            if name == "corrected_repeated_kfold_ttest":
                return IntervalResult(
                    statistic=-2.9,
                    pvalue=pvalues[name],
                    df=9,
                    estimate=-0.0234,
                    method="Corrected repeated k-fold t test",
                    models=(a, b),
                    reference="Bouckaert & Frank (2004).",
                    notes=("an extension to m×2",),
                )
            return make_result(name, a, b, pvalues[name])

        return run

    route_tests(monkeypatch, resolve)
    return Report(FakeTable((SCRIPT, SPECIALS, "plain")), tests="all")


def test_html_numbers_equal_result_objects(rich_report: Any) -> None:
    page = check_html(rich_report)
    # model-loss table, recomputed from the stand-in's fold errors
    rows = page.tables["cvr-model-losses"][1:]
    for row, model in zip(rows, rich_report.table.models):
        errors = rich_report.table.errors[model]
        assert row["_cells"][0] == model
        assert row["mean"] == format_number(float(errors.mean()))
        assert row["sd"] == format_number(float(errors.std(ddof=1)))
    assert page.facts["z_max"] == format_number(3.0)
    assert page.facts["pvalue"] == format_pvalue(0.4)
    assert page.facts["m"] == "5" and page.facts["K"] == "2"


def test_markdown_numbers_equal_result_objects(rich_report: Any) -> None:
    check_markdown(rich_report)


def test_latex_numbers_equal_result_objects(rich_report: Any) -> None:
    text = check_latex(rich_report)
    assert "$<$0.001" in text  # 0.00004 below display precision
    starred = check_latex(rich_report, stars=True)
    assert "0.001$^{**}$" in starred or "$<$0.001$^{***}$" in starred
    assert "$^{*}\\,p<0.05$" in starred


def test_hostile_model_names_are_escaped_in_html(rich_report: Any) -> None:
    for html in (rich_report.to_html(), rich_report._repr_html_()):
        page = parse_html(html)
        assert "script" not in page.start_tags  # never markup, anywhere (SVG titles included)
        text = "".join(page.text)
        assert SCRIPT in text and SPECIALS in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "a_b &amp; c%$#" in html


def test_hostile_model_names_are_escaped_in_latex_and_markdown(rich_report: Any) -> None:
    tex = rich_report.to_latex()
    assert (
        escape_latex(SCRIPT)
        == r"\textless{}script\textgreater{}alert(1)\textless{}/script\textgreater{}"
    )
    assert escape_latex(SCRIPT) in tex and escape_latex(SPECIALS) in tex
    assert SPECIALS not in tex and SCRIPT not in tex
    md = rich_report.to_markdown()
    assert SCRIPT not in md and r"\<script\>alert(1)\</script\>" in md


def test_html_is_one_self_contained_page(rich_report: Any) -> None:
    html = rich_report.to_html()
    page = parse_html(html)
    assert page.start_tags.count("svg") == len(rich_report.comparisons) + 1  # per pair + p-values
    assert not {"script", "link", "img", "iframe", "object"} & set(page.start_tags)
    external = re.findall(r"""(?:src|href)\s*=\s*["']?(?!#)([^"'\s>]+)""", html)
    assert external == []
    assert re.findall(r"https?://[^\s\"'<>]+", html) == ["http://www.w3.org/2000/svg"] * (
        len(rich_report.comparisons) + 1
    )
    assert "@media (prefers-color-scheme: dark)" in html and "@media print" in html
    assert "Content-Security-Policy" in html


def test_sections_and_references(rich_report: Any) -> None:
    md = rich_report.to_markdown()
    for heading in (
        "## In short",
        "## The data",
        "## Overlap audit of the partitions",
        "## Per-model error rate",
        "## Recommended test",
        "## Comparisons",
        "## Caveats",
        "## References",
    ):
        assert heading in md
    references = rich_report.context()["references"]
    assert "Bouckaert & Frank (2004)." in references
    assert report_module.HOLM_REFERENCE in references  # p-values were Holm-adjusted
    page_text = " ".join("".join(parse_html(rich_report.to_html()).text).split())
    for outcome in rich_report.outcomes:
        assert outcome.interpretation in page_text
    for line in rich_report.context()["bottom_line"]:
        assert line["text"] in page_text


def test_latex_report_compiles_with_pdflatex(rich_report: Any, tmp_path: Path) -> None:
    exe = pdflatex_or_skip()
    compile_latex(exe, rich_report.to_latex(stars=True), tmp_path)


def test_latex_fragment_compiles_inside_a_paper(rich_report: Any, tmp_path: Path) -> None:
    exe = pdflatex_or_skip()
    fragment = rich_report.to_latex(standalone=False)
    assert "\\documentclass" not in fragment
    assert declared_packages(fragment) == ["booktabs"]  # its first line says what it needs
    paper = (
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        "\\appendix\n" + fragment + "\n\\end{document}\n"
    )
    compile_latex(exe, paper, tmp_path)


# -- the real example ------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_report() -> Any:
    from cvreport.data import examples
    from cvreport.data import table as table_module

    frame = examples.load_example()
    table = table_module.ResultsTable.from_formula(
        "loss ~ model | replication + fold", frame, record="record"
    )
    return Report(table, tests="all")


def test_real_example_outputs_show_result_numbers(real_report: Any, tmp_path: Path) -> None:
    assert real_report.results
    check_html(real_report)
    check_markdown(real_report)
    check_latex(real_report)
    page = parse_html(real_report.to_html())
    audit = real_report.audit
    assert page.facts["z_max"] == format_number(float(audit.z_max))
    assert page.facts["pvalue"] == format_pvalue(float(audit.pvalue))
    if shutil.which("pdflatex") or os.environ.get("CVREPORT_REQUIRE_PDFLATEX") == "1":
        compile_latex(pdflatex_or_skip(), real_report.to_latex(stars=True), tmp_path)


# -- the figures on their own -----------------------------------------------------------
def svg_elements(svg: str) -> Page:
    page = parse_html(svg)
    return page


def test_difference_plot_places_every_fold_on_a_shared_axis() -> None:
    from cvreport.rendering.figures import difference_plot

    diffs = [[0.02, -0.01], [0.03, 0.0], [0.01, 0.02]]
    svg = difference_plot(diffs, title=f"{SCRIPT} − B", mean=0.0117, interval=(-0.01, 0.04))
    values = [float(v) for v in re.findall(r'data-value="([^"]+)"', svg)]
    assert sorted(values) == sorted(v for row in diffs for v in row)
    cx = {float(v): float(x) for v, x in re.findall(r'data-value="([^"]+)" cx="([^"]+)"', svg)}
    # the axis is linear: equal steps in value are equal steps in position
    assert cx[0.02] - cx[0.01] == pytest.approx(cx[0.03] - cx[0.02], abs=0.15)
    assert cx[0.0] < cx[0.01] < cx[0.02] < cx[0.03] and cx[-0.01] < cx[0.0]
    page = svg_elements(svg)
    assert "script" not in page.start_tags and SCRIPT in "".join(page.text)
    assert 'role="img"' in svg and "<desc" in svg and "6 per-fold differences" in svg


def test_difference_plot_strip_for_many_replications_and_degenerate_data() -> None:
    from cvreport.rendering.figures import difference_plot

    many = np.linspace(-0.05, 0.05, 30)[:, None]  # 30 hold-out splits: one strip
    svg = difference_plot(many, title="strip")
    assert svg.count("data-value=") == 30 and ">all folds<" in svg and ">rep 1<" not in svg
    flat = difference_plot(np.zeros((5, 2)), title="all zero", mean=0.0)
    assert flat.count("data-value=") == 10 and "nan" not in flat
    with_nan = difference_plot([[0.1, float("nan")]], title="gap")
    assert with_nan.count("data-value=") == 1


def test_pvalue_plot_orders_by_log_p_and_marks_decisions() -> None:
    from cvreport.rendering.figures import PValuePoint, pvalue_plot

    points = [
        PValuePoint("small", 1e-9, reject=True, group="A vs B"),
        PValuePoint("mid", 0.01, adjusted=0.03, reject=True, group="A vs B"),
        PValuePoint("big", 0.5, group="A vs C"),
    ]
    svg = pvalue_plot(points, alpha=0.05)
    assert svg.count('class="cvr-dot-reject"') == 2 + 1  # two decisions + the legend
    assert svg.count('class="cvr-dot-keep"') == 1 + 1
    assert ">A vs B<" in svg and ">A vs C<" in svg
    xs = [
        float(x)
        for x in re.findall(r'<circle class="cvr-dot-(?:reject|keep)" cx="([^"]+)" cy', svg)
    ]
    legend_free = xs[2:]  # the first two circles are the legend's
    assert legend_free[0] < legend_free[1] < legend_free[2]
    # 0.01 sits one decade left of 0.1: positions are log-linear
    found = re.search(r'class="cvr-alpha" x1="([^"]+)"', svg)
    assert found is not None
    alpha_x = float(found.group(1))
    assert legend_free[1] < alpha_x < legend_free[2]
    assert "&lt;</text>" in svg  # 1e-9 is drawn at the floor with a '<' mark
    with pytest.raises(ValueError, match="alpha"):
        pvalue_plot(points, alpha=1.5)


def test_nice_ticks() -> None:
    from cvreport.rendering.figures import nice_ticks

    assert nice_ticks(-0.03, 0.05) == [-0.04, -0.02, 0.0, 0.02, 0.04, 0.06]
    assert nice_ticks(0, 1) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    ticks = nice_ticks(-0.1234, 0.0567)
    assert ticks[0] <= -0.1234 and ticks[-1] >= 0.0567
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0])
