"""The many-data-sets results in a paper: the table and the CD diagram in a two-column article.

The fragments are compiled as a paper would input them, with only the packages
their first line declares; pdflatex's log must show no box running past the
column (or, for ``span="page"``, past the text width of a ``table*``).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import cvreport
from cvreport.rendering.cd_tikz import cd_layout, cd_text, cd_tikz
from cvreport.rendering.writer import OutputExistsError
from cvreport.reporting.multi_report import DatasetsReport
from tests._fakes import (
    compile_latex,
    declared_packages,
    overfull_boxes,
    pdflatex_or_skip,
)

# Demšar (2006), Table 6: average ranks of the four C4.5 variants on 14 data sets
DEMSAR_RANKS = {"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964}


@pytest.fixture(scope="module")
def example_report() -> DatasetsReport:
    multi = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    return DatasetsReport(multi, baseline="logistic_regression", n_samples=2000)


def paper(*fragments: str, twocolumn: bool = True) -> str:
    packages = sorted({name for f in fragments for name in declared_packages(f)})
    body = "\n".join(fragments)
    filler = "The right test for the design decides. " * 60
    return (
        "\\documentclass{article}" if not twocolumn else "\\documentclass[twocolumn]{article}"
    ) + (
        "\n\\usepackage[T1]{fontenc}\\usepackage{lmodern}"
        + "".join(f"\\usepackage{{{p}}}" for p in packages)
        + f"\n\\begin{{document}}\n{filler}\n{body}\n{filler}\n\\end{{document}}\n"
    )


def test_table_and_diagram_fit_a_two_column_paper(
    example_report: DatasetsReport, tmp_path: Path
) -> None:
    exe = pdflatex_or_skip()
    table = example_report.table_latex()
    wide = example_report.table_latex(span="page")
    rows = example_report.table_latex(layout="models-as-rows", span="page")
    figure = example_report.cd_latex()
    assert table.startswith("% ") and "\\begin{table}[htbp]" in table
    assert "\\begin{table*}" in wide and "\\begin{table*}" in rows
    assert declared_packages(table) == ["booktabs", "amssymb", "graphicx"]
    assert declared_packages(figure) == ["tikz"]
    pdf = compile_latex(exe, paper(table, figure, wide, rows), tmp_path)
    log = (tmp_path / "report.log").read_text(encoding="latin-1")
    assert overfull_boxes(log) == [], log[-3000:]
    assert pdf.stat().st_size > 10_000
    # the standalone diagram is a whole document
    compile_latex(exe, example_report.cd_latex(standalone=True), tmp_path / "alone")


def test_table_layouts_carry_the_same_numbers(example_report: DatasetsReport) -> None:
    result = example_report.analysis
    for layout in ("models-as-columns", "models-as-rows"):
        text = example_report.table_latex(layout=layout)
        for dataset in result.datasets:
            for model in result.models:
                mean = f"{result.means.loc[dataset, model]:.3f}"
                sd = f"({result.sds.loc[dataset, model]:.3f})"
                assert mean in text and sd in text
        ranks = result.friedman.average_ranks
        assert all(f"{ranks[m]:.2f}" in text for m in result.models)
    with pytest.raises(cvreport.CVReportError, match="layout"):
        example_report.table_latex(layout="sideways")
    with pytest.raises(cvreport.CVReportError, match="span"):
        example_report.table_latex(span="both")


def test_diagram_places_ranks_on_an_axis_best_on_the_right() -> None:
    tikz = cd_tikz(DEMSAR_RANKS, cd=1.25, cliques=[tuple(DEMSAR_RANKS)], width_cm=8)
    ticks = {
        int(label): float(x)
        for x, label in re.findall(
            r"\\draw\[gray\] \(([\d.]+),0.0\) -- \([\d.]+,0.12\) "
            r"node\[above, text=black\] \{(\d)\}",
            tikz,
        )
    }
    assert sorted(ticks) == [1, 2, 3, 4] and ticks[1] > ticks[2] > ticks[3] > ticks[4]
    step = ticks[1] - ticks[2]
    for name, rank in DEMSAR_RANKS.items():
        x = ticks[1] - (rank - 1) * step
        assert re.search(rf"\\draw \({x:.3f},0.0\) -- \({x:.3f},", tikz), name
    # the CD bar spans 1.25 ranks from rank 1
    start, end = map(float, re.search(r"\|-\|\] \(([\d.]+),[\d.]+\) -- \(([\d.]+),", tikz).groups())
    assert math.isclose(end - start, 1.25 * step, abs_tol=2e-3)
    assert tikz.count("line width=2.2pt") == 1
    # the axis lies in the middle of the 8 cm, the names' room equal on both sides
    assert 0 < min(ticks.values()) and max(ticks.values()) < 8
    assert math.isclose(min(ticks.values()) + max(ticks.values()), 8.0, abs_tol=2e-3)


def test_hostile_names_stay_in_their_comment_and_are_escaped(tmp_path: Path) -> None:
    names = {"a\nb\\end{document}": 1.5, "x_%$&#{}~^": 2.5, "ok": 2.0}
    tikz = cd_tikz(names)
    comments = [line for line in tikz.splitlines() if line.startswith("%")]
    assert all("\n" not in c and "\r" not in c for c in comments)
    body = [line for line in tikz.splitlines() if not line.startswith("%")]
    assert not any("\\end{document}" in line for line in body)
    assert any("x\\_\\%\\$\\&\\#\\{\\}" in line for line in body)
    exe = pdflatex_or_skip()
    compile_latex(exe, paper(tikz, twocolumn=False), tmp_path)


def test_text_diagram_for_markdown(example_report: DatasetsReport) -> None:
    text = cd_text(DEMSAR_RANKS, cd=1.25, cliques=[tuple(DEMSAR_RANKS)], width=40)
    rows = {line.split()[0]: line for line in text.splitlines() if "*" in line}
    # the best model's star sits furthest right, the worst furthest left
    assert rows["C4.5+m+cf"].index("*") >= rows["C4.5+m"].index("*") > rows["C4.5"].index("*")
    assert "Not separated: C4.5+m+cf, C4.5+m, C4.5+cf, C4.5" in text
    markdown = example_report.to_markdown()
    assert "```text\nAverage rank (1 = best, on the right)" in markdown
    assert "in the HTML report" not in markdown
    layout = cd_layout(DEMSAR_RANKS, [("C4.5", "nobody")])
    assert layout.cliques == () and layout.right == ("C4.5+m+cf", "C4.5+m")


def test_diagram_saved_alone_as_svg_and_tex(example_report: DatasetsReport, tmp_path: Path) -> None:
    svg = example_report.save_cd(tmp_path / "cd.svg")
    ET.fromstring(svg.read_text(encoding="utf-8"))
    tex = example_report.save_cd(tmp_path / "cd.tex")
    assert tex.read_text(encoding="utf-8").startswith("\\documentclass")
    before = tex.read_bytes()
    with pytest.raises(OutputExistsError):
        example_report.save_cd(tex)
    assert tex.read_bytes() == before
    with pytest.raises(cvreport.CVReportError):
        example_report.save_cd(tmp_path / "cd.png")
