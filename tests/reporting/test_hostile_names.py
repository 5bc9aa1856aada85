"""Hostile and unusual names through every output: HTML in Chromium, LaTeX through pdflatex,
Markdown through a GFM table parser, SVG through an XML parser, notebooks through nbformat
and a kernel.

The names are those that broke or could break an output: brackets opening a LaTeX row,
scripts, TeX commands, blank lines, 3,000 characters without a space, non-Latin scripts
and emoji (set by pdflatex as ``[U+XXXX]``), ligature pairs, Markdown table pipes.
"""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cvreport.data.table import ResultsTable
from cvreport.reporting.report import Report
from tests._fakes import compile_latex, model_losses, open_page, pdflatex_or_skip

LONG = "x" * 3000
HOSTILE = (
    "[ours] tree",
    "Модель 模型 😀",
    "a`b--c''d,,e \"q\"",
    "<script>window.pwned=1</script>",
    "x\n\ny  z",
    r"\input{/etc/passwd}\write18{id}",
    "$x$ & 100% #1 _a ^b ~c {d}",
    "|pipe| *star* [link](http://x)",
    "مرحبا\u200bé\u0301",
    "evil\u202eA\u2066",
    LONG,
)


def losses(models: tuple[str, ...], n: int = 24, seed: int = 0, m: int = 5) -> pd.DataFrame:
    """m random 2-fold partitions of n records and 0/1 losses of the given models."""
    rng = np.random.default_rng(seed)
    folds = []
    for replication in range(1, m + 1):
        fold = np.where(rng.permutation(n) < n // 2, 1, 2)
        folds.append(pd.DataFrame({"replication": replication, "fold": fold, "record": range(n)}))
    design = pd.concat(folds, ignore_index=True)
    rates = {model: 0.1 + 0.3 * index / max(len(models), 1) for index, model in enumerate(models)}
    return model_losses(design, rates, rng, n)


@pytest.fixture(scope="module")
def hostile_report() -> Report:
    return Report(ResultsTable(losses(HOSTILE)))


def visible(name: str) -> str:
    """A name as a reader sees it: whitespace runs as one space, no direction controls."""
    return " ".join(re.sub("[\u202a-\u202e\u2066-\u2069]", "", name).split())


# -- HTML ------------------------------------------------------------------------------------
def test_html_in_chromium_shows_every_name_and_runs_nothing(
    browser: Any,
    hostile_report: Report,
    tmp_path: Path,
) -> None:
    path = hostile_report.save(tmp_path / "hostile.html")
    page, seen = open_page(browser, path)
    try:
        assert page.evaluate("window.pwned") is None
        assert "\u202e" not in page.content()  # a name cannot reverse the text after it
        assert page.evaluate("document.scripts.length") == 0
        assert seen["dialogs"] == [] and seen["errors"] == []
        assert all(url.startswith("file:") or url.startswith("data:") for url in seen["requests"])
        cells = page.eval_on_selector_all(
            "#cvr-model-losses tbody th", "cells => cells.map(c => c.textContent)"
        )
        assert [visible(c) for c in cells] == [visible(n) for n in HOSTILE]
        # a 3,000-character name wraps instead of widening the page
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 1100 + 400
        page.screenshot(path=str(tmp_path / "hostile.png"), full_page=False)
    finally:
        page.close()


def test_svg_figures_are_well_formed_xml(hostile_report: Report) -> None:
    html = hostile_report.to_html()
    figures = re.findall(r"<svg\b.*?</svg>", html, flags=re.S)
    assert figures
    for svg in figures:
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        assert "<script" not in svg


# -- LaTeX -----------------------------------------------------------------------------------
def test_latex_report_and_fragment_compile(hostile_report: Report, tmp_path: Path) -> None:
    exe = pdflatex_or_skip()
    source = hostile_report.to_latex(stars=True)
    for raw in ("\\input{/etc", "\\write18{", "\n\n y"):
        assert raw not in source
    assert "{[}ours{]} tree" in source
    assert "\\textasciigrave{}" in source and "-{}-" in source
    compile_latex(exe, source, tmp_path)
    fragment = hostile_report.to_latex(standalone=False)
    paper = (
        # the default OT1 encoding: no glyph may need T1
        "\\documentclass[twocolumn]{article}\n\\usepackage{booktabs}\n"
        "\\begin{document}\n" + fragment + "\n\\end{document}\n"
    )
    compile_latex(exe, paper, tmp_path / "fragment")


@settings(
    max_examples=2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    names=st.lists(
        st.text(min_size=1, max_size=40), min_size=12, max_size=12, unique_by=lambda s: s
    )
)
def test_random_unicode_names_compile_with_pdflatex(names: list[str]) -> None:
    """Twelve random Unicode names per document (66 pairs: the overview and its details)."""
    exe = pdflatex_or_skip()
    report = Report(ResultsTable(losses(tuple(names), n=8, m=3)))
    folder = Path(__import__("tempfile").mkdtemp())
    try:
        compile_latex(exe, report.to_latex(), folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- Markdown --------------------------------------------------------------------------------
def gfm_tables(text: str) -> list[list[list[str]]]:
    """Every table of a Markdown text as rows of cell texts, parsed as GitHub does."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    tables: list[list[list[str]]] = []
    row: list[str] | None = None
    cell: list[str] | None = None
    for token in tokens:
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type in ("td_open", "th_open"):
            cell = []
        elif token.type == "inline" and cell is not None:
            cell.append("".join(child.content for child in token.children or ()))
        elif token.type in ("td_close", "th_close"):
            assert row is not None and cell is not None
            row.append("".join(cell))
            cell = None
        elif token.type == "tr_close":
            assert row is not None
            tables[-1].append(row)
    return tables


def test_markdown_tables_keep_their_shape_and_names(hostile_report: Report) -> None:
    pytest.importorskip("markdown_it")
    tables = gfm_tables(hostile_report.to_markdown())
    models = next(t for t in tables if t[0][0] == "Model")
    assert all(len(row) == len(models[0]) for row in models)
    assert [visible(row[0]) for row in models[1:]] == [visible(n) for n in HOSTILE]
    for table in tables:
        assert len({len(row) for row in table}) == 1


@pytest.mark.parametrize("loss_name", ["err|rate", "err\nrate", "a`|`b"])
def test_markdown_loss_name_with_pipes_and_newlines_stays_one_cell(loss_name: str) -> None:
    pytest.importorskip("markdown_it")
    frame = losses(("a", "b")).rename(columns={"loss": loss_name})
    report = Report(ResultsTable(frame, loss=loss_name))
    data = next(t for t in gfm_tables(report.to_markdown()) if any(r[0] == "Metric" for r in t))
    assert all(len(row) == 2 for row in data)
    loss_row = next(row for row in data if row[0] == "Metric")
    assert visible(loss_name) in loss_row[1]


# -- notebooks -------------------------------------------------------------------------------
def test_notebook_with_hostile_names_runs(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    from cvreport.jupyter import notebook

    names = ("[ours] tree", "<script>x</script>", "Модель", "a'\"b")
    data = tmp_path / "losses.csv"
    losses(names).to_csv(data, index=False)
    path = notebook.write(
        tmp_path / "hostile.ipynb", data=data, formula="loss ~ model | replication + fold"
    )
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=180, resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = "".join(
        str(output.get("data", {}).get("text/html", ""))
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    )
    assert "&lt;script&gt;x&lt;/script&gt;" in outputs
    assert "<script>x</script>" not in outputs
