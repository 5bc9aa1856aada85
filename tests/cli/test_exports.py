"""CSV exports a spreadsheet cannot run, and SVG/HTML that XML parsers accept (hostile names).

OWASP's guidance on CSV injection: a text cell starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return is prefixed with ``'``; numbers stay numbers.
XML 1.0 forbids most control characters: a model named ``"a\\x01b\\x1b[31m"``
must not make a figure unreadable.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data.examples import load_example
from cvreport.rendering.cd_diagram import cd_diagram
from cvreport.rendering.csv_export import csv_text
from cvreport.rendering.figures import difference_plot
from tests._fakes import FORMULA, five_by_two_losses
from tests.cli._inputs import run

HOSTILE = {"A": "=1+2", "B": "@SUM(A1)", "C": "-x"}
CONTROL = "a\x01b\x1b[31m"
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_csv_text_neutralises_text_cells_only() -> None:
    frame = pd.DataFrame(
        {
            "name": ["=cmd", "+1", "-x", "@f", "\tt", "\rr", "plain", "a=b", None],
            "value": [-0.013, 1.5, -2.0, 0.0, -1e-300, 3.0, -7.25, 2.0, np.nan],
            "count": [-1, 2, 3, 4, 5, 6, 7, 8, 9],
        }
    )
    rows = cells(csv_text(frame))
    assert rows[0] == ["name", "value", "count"]
    assert [r[0] for r in rows[1:]] == [
        "'=cmd", "'+1", "'-x", "'@f", "'\tt", "'\rr", "plain", "a=b", "",
    ]  # fmt: skip
    assert [r[1] for r in rows[1:4]] == ["-0.013", "1.5", "-2.0"]
    assert rows[1][2] == "-1"
    back = pd.read_csv(io.StringIO(csv_text(frame)))
    np.testing.assert_array_equal(back["value"].to_numpy(), frame["value"].to_numpy())
    assert back["count"].tolist() == frame["count"].tolist()
    # a categorical column and a hostile column name
    other = pd.DataFrame({"=sum": pd.Categorical(["-a", "b"]), "x": [1, 2]})
    assert cells(csv_text(other)) == [["'=sum", "x"], ["'-a", "1"], ["b", "2"]]


def test_pairs_and_audit_csv_neutralise_names_and_keep_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = five_by_two_losses()
    frame["model"] = frame["model"].map(HOSTILE)
    frame["replication"] = frame["replication"].map(lambda r: f"+r{r}")
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    pairs, audit = tmp_path / "p.csv", tmp_path / "a.csv"
    argv = ["report", str(data), "-f", FORMULA, "-o", str(tmp_path / "r.html")]
    status, _, stderr = run([*argv, "--pairs-csv", str(pairs), "--audit-csv", str(audit)], capsys)
    assert status == 0, stderr
    report = cvreport.Report(cvreport.ResultsTable.from_formula(FORMULA, pd.read_csv(data)))
    expected = report.to_frame()

    rows = cells(pairs.read_text(encoding="utf-8"))
    header = rows[0]
    models = {r[header.index("model_a")] for r in rows[1:]} | {
        r[header.index("model_b")] for r in rows[1:]
    }
    assert models == {"'=1+2", "'@SUM(A1)", "'-x"}
    estimates = [r[header.index("estimate")] for r in rows[1:]]
    assert any(e.startswith("-0.") for e in estimates)  # negative numbers are not quoted
    read = pd.read_csv(pairs)
    assert read["estimate"].dtype == np.float64 and read["pvalue"].dtype == np.float64
    np.testing.assert_array_equal(read["estimate"], expected["estimate"])
    np.testing.assert_array_equal(read["pvalue"], expected["pvalue"])

    rows = cells(audit.read_text(encoding="utf-8"))
    assert rows[0][:2] == ["replication_a", "replication_b"]
    assert {r[0] for r in rows[1:]} <= {f"'+r{i}" for i in range(1, 6)} and len(rows) == 11
    read = pd.read_csv(audit)
    np.testing.assert_array_equal(read["z"], report.audit.pairs["z"])
    np.testing.assert_array_equal(read["pvalue"], report.audit.pairs["pvalue"])


def test_cd_diagram_with_control_characters_parses_as_xml() -> None:
    svg = cd_diagram(
        {CONTROL: 1.4, "plain": 2.1, "c\x0cd": 2.5},
        cd=1.0,
        cliques=[(CONTROL, "plain")],
        n_datasets=8,
        test="Nemenyi test\x07",
        highlight=CONTROL,
        title="ranks \x00",
    )
    root = ET.fromstring(svg)  # raises on a character XML forbids
    texts = [" ".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any(t.startswith("ab[31m") for t in texts) and any(t.startswith("cd") for t in texts)
    assert not FORBIDDEN.search(svg)
    assert "ab[31m 1.40" in root.find("{http://www.w3.org/2000/svg}desc").text  # type: ignore[union-attr]


def test_difference_plot_with_control_characters_parses_as_xml() -> None:
    svg = difference_plot(
        [[0.02, -0.01], [0.03, 0.0]], title=f"{CONTROL} vs B", row_labels=[CONTROL, "r\x022"]
    )
    ET.fromstring(svg)
    assert "ab[31m vs B" in svg and not FORBIDDEN.search(svg)


def svgs(html: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", html, flags=re.S)


def test_reports_drop_characters_xml_forbids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    multi = load_example("multi")
    first = multi["model"].iloc[0]
    multi["model"] = multi["model"].replace({first: CONTROL})
    data = tmp_path / "multi.csv"
    multi.to_csv(data, index=False)
    out = tmp_path / "multi.html"
    status, _, stderr = run(
        ["datasets", str(data), "-f", "loss ~ model | replication + fold | dataset", "-o",
         str(out), "--samples", "2000"],
        capsys,
    )  # fmt: skip
    assert status == 0, stderr
    html = out.read_text(encoding="utf-8")
    assert not FORBIDDEN.search(html)
    figures = svgs(html)
    assert figures and "ab[31m" in html
    for figure in figures:
        ET.fromstring(figure)

    frame = five_by_two_losses()
    frame["model"] = frame["model"].map({"A": CONTROL, "B": "B", "C": "C"})
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "r.html"
    status, _, stderr = run(["report", str(data), "-f", FORMULA, "-o", str(out)], capsys)
    assert status == 0, stderr
    html = out.read_text(encoding="utf-8")
    assert not FORBIDDEN.search(html) and len(svgs(html)) >= 2
    for figure in svgs(html):
        ET.fromstring(figure)
