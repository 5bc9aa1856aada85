"""The many-data-sets report: table contents, LaTeX through pdflatex, SVG and HTML in Chromium."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

from cvreport.cli import main
from cvreport.data.datasets import DatasetsTable
from cvreport.rendering.cd_diagram import cd_diagram
from cvreport.reporting.multi_report import DatasetsReport
from tests._fakes import SCRIPT, compile_latex, declared_packages, pdflatex_or_skip

MODELS = ["a_b & c%", SCRIPT, "x^2 {y} #1 $\\", "naïve ~ bayes"]
DATASETS = ['data_1 & "quoted"', "<b>bold</b>", "50% #2", "tab\\le_3", "five", "six", "seven"]


def hostile_scores(seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d, dataset in enumerate(DATASETS):
        level = 0.55 + 0.05 * d  # every accuracy in [0, 1]
        for fold in range(1, 11):
            noise = 0.02 * rng.standard_normal()
            for j, model in enumerate(MODELS):
                accuracy = level + 0.03 * j + noise + 0.01 * rng.standard_normal()
                rows.append({"task": dataset, "fold": fold, "clf": model, "accuracy": accuracy})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def hostile_report() -> DatasetsReport:
    table = DatasetsTable.from_formula(
        "accuracy ~ clf | fold | task", hostile_scores(), per_fold=True, test_train_ratio=1 / 9
    )
    return DatasetsReport(table, baseline=SCRIPT, n_samples=3000, seed=1)


def test_table_view_follows_the_statistics(hostile_report: DatasetsReport) -> None:
    result = hostile_report.analysis
    view = hostile_report.table_context()
    assert view["models"] == MODELS and [r["dataset"] for r in view["rows"]] == DATASETS
    for row in view["rows"]:
        means = result.means.loc[row["dataset"]]
        bold = [cell["best"] for cell in row["cells"]]
        assert bold == list(means == means.max())  # accuracy: higher is better
    # the marks are the per-dataset decisions against the baseline
    decided = result.per_dataset.comparisons
    for row in view["rows"]:
        for model, cell in zip(MODELS, row["cells"]):
            line = decided[(decided["dataset"] == row["dataset"]) & (decided["a"] == model)]
            if model == SCRIPT:
                assert cell["mark"] is None
                continue
            better = line["better"].iloc[0]
            expected = (
                None if not isinstance(better, str) else ("better" if better == model else "worse")
            )
            assert cell["mark"] == expected
    counts = result.per_dataset.win_tie_loss()
    assert view["wtl"][MODELS.index("naïve ~ bayes")] == "/".join(
        str(v) for v in counts.loc["naïve ~ bayes"]
    )
    assert view["ranks"] == [f"{result.friedman.average_ranks[m]:.2f}" for m in MODELS]
    legend = " ".join(view["legend"])
    assert "corrected repeated K-fold CV t test" in legend and "Holm" in legend


def test_markdown_escapes_names_and_has_the_rows(hostile_report: DatasetsReport) -> None:
    text = hostile_report.to_markdown()
    assert "a\\_b \\& c%" in text and "\\<script\\>" in text
    # raw names appear only inside the fenced text diagram, which Markdown shows as text
    outside = re.sub(r"```text\n.*?\n```", "", text, flags=re.S)
    assert "<script>" not in outside
    assert "<script>" not in MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    assert "*win/tie/loss vs" in text and "*average rank*" in text
    assert "Friedman's χ²" in text and "Bergmann" not in text  # against a baseline: Holm


def test_latex_report_and_table_compile(hostile_report: DatasetsReport, tmp_path: Path) -> None:
    exe = pdflatex_or_skip()
    compile_latex(exe, hostile_report.to_latex(), tmp_path / "standalone")
    table, body = hostile_report.table_latex(), hostile_report.to_latex(standalone=False)
    # each fragment's first line names the packages it needs: exactly those are loaded
    packages = sorted(set(declared_packages(table)) | set(declared_packages(body)))
    fragment = (
        "\\documentclass{article}\\usepackage[T1]{fontenc}"
        + "".join(f"\\usepackage{{{name}}}" for name in packages)
        + "\\begin{document}\n"
        + table
        + "\n"
        + body
        + "\\end{document}\n"
    )
    pdf = compile_latex(exe, fragment, tmp_path / "fragment")
    assert pdf.is_file()


@pytest.mark.parametrize("k", [2, 3, 5, 10, 20])
def test_cd_diagram_is_valid_svg_and_describes_itself(k: int) -> None:
    names = [f"m{i} <&> {'long_name_' * (i % 4)}" for i in range(k)]
    ranks = pd.Series(np.linspace(1.1, k - 0.1, k), index=names)
    cliques = [tuple(names[i : i + 3]) for i in range(0, k - 1, 2)]
    svg = cd_diagram(ranks, cd=1.5, cliques=cliques, n_datasets=12, test="Nemenyi test")
    root = ET.fromstring(svg)
    assert root.get("role") == "img"
    desc = root.find("{http://www.w3.org/2000/svg}desc").text
    assert f"Average ranks of {k} models over 12 data sets" in desc
    assert names[0] in desc and "CD = 1.5" in desc
    bars = root.findall(".//{http://www.w3.org/2000/svg}line[@class='cvr-clique']")
    assert len(bars) == len([c for c in cliques if len(c) >= 2])


def _boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const b = e.getBBox(); return {x: b.x, y: b.y, "
        "w: b.width, h: b.height}; })",
    )


@pytest.mark.parametrize("k", [2, 4, 12, 20])
def test_cd_diagram_is_legible_in_chromium(browser: Any, tmp_path: Path, k: int) -> None:
    names = [f"{SCRIPT if i == 0 else 'model'}_{i} & co {'x' * (i % 5 * 6)}" for i in range(k)]
    ranks = pd.Series(np.sort(np.random.default_rng(k).uniform(1, k, k)), index=names)
    svg = cd_diagram(ranks, cd=2.0, cliques=[tuple(names[: max(2, k // 2)])], n_datasets=20)
    page_file = tmp_path / "cd.html"
    page_file.write_text(f"<!DOCTYPE html><html><body>{svg}</body></html>", encoding="utf-8")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: errors.append("dialog") or dialog.dismiss())
    page.goto(page_file.as_uri())
    try:
        assert not errors
        assert page.locator("svg.cvr-figure").is_visible()
        width, height = page.eval_on_selector(
            "svg", "s => [s.viewBox.baseVal.width, s.viewBox.baseVal.height]"
        )
        texts = _boxes(page, "svg text")
        assert len(texts) >= k
        for box in texts:  # every label inside the figure
            assert box["x"] >= -0.5 and box["x"] + box["w"] <= width + 0.5
            assert box["y"] >= -0.5 and box["y"] + box["h"] <= height + 0.5
        names_boxes = _boxes(page, "g.cvr-model text")
        for first, second in itertools.combinations(names_boxes, 2):  # no two names overlap
            apart_x = (
                first["x"] + first["w"] <= second["x"] or second["x"] + second["w"] <= first["x"]
            )
            apart_y = (
                first["y"] + first["h"] <= second["y"] + 0.5
                or second["y"] + second["h"] <= first["y"] + 0.5
            )
            assert apart_x or apart_y
        assert page.locator("g.cvr-model", has_text=SCRIPT).count() == 1
    finally:
        page.close()


def test_html_report_in_chromium(
    browser: Any, tmp_path: Path, hostile_report: DatasetsReport
) -> None:
    path = hostile_report.save(tmp_path / "multi.html")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("dialog", lambda dialog: errors.append("dialog") or dialog.dismiss())
    page.goto(path.as_uri())
    try:
        assert not errors
        table = page.locator("table.cvr-datasets")
        assert table.is_visible()
        assert table.locator("tbody tr").count() == len(DATASETS)
        assert table.locator("thead th", has_text=SCRIPT).count() == 1
        assert page.locator("svg#cvr-cd").is_visible()
        # the Bayesian posteriors on the simplex, one figure per pair against the baseline
        assert page.locator("svg.cvr-figure[id^=cvr-simplex]").count() == len(MODELS) - 1
        assert page.locator("td strong").count() >= len(DATASETS)
    finally:
        page.close()


def test_example_report_and_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "multi.html"
    status = main(
        [
            "datasets",
            "--example",
            "--baseline",
            "logistic_regression",
            "-o",
            str(out),
            "--samples",
            "2000",
        ]
    )
    assert status == 0 and "5 models on 10 data sets" in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert "Critical-difference diagram" in text and "win/tie/loss" in text
    assert main(["datasets", "--example", "-o", str(out)]) == 1  # exists, no --overwrite
    assert "exists" in capsys.readouterr().err


def test_every_pair_uses_bergmann_hommel(tmp_path: Path) -> None:
    table = DatasetsTable.from_formula(
        "accuracy ~ clf | fold | task", hostile_scores(), per_fold=True, test_train_ratio=1 / 9
    )
    every_pair = DatasetsReport(table, n_samples=1000)
    assert every_pair.analysis.wilcoxon_correction == "bergmann-hommel"
    text = every_pair.to_markdown()
    assert "Bergmann and Hommel" in text
    # the win/tie/loss matrix of every pair: the best model wins on all 7 data sets
    matrix = every_pair.analysis.per_dataset.win_tie_loss_matrix()
    assert matrix.loc["naïve ~ bayes", "a_b & c%"] == "7/0/0"
    assert "| naïve \\~ bayes | 7/0/0 |" in text
    exe = pdflatex_or_skip()
    compile_latex(exe, every_pair.to_latex(), tmp_path)
