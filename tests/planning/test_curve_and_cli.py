"""power_curve's figure and numbers, and ``cvreport plan`` on the command line."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pandas as pd
import pytest

import cvreport
from cvreport.cli import main
from cvreport.errors import CVReportError
from cvreport.planning import VarianceComponents, estimate_components
from cvreport.planning.power import corrected_t_power, ftest_5x2_power

PAIR = ("logistic_regression", "decision_tree")


@pytest.fixture(scope="module")
def pilot():
    return cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )


def test_power_curve_draws_the_planned_powers(pilot, tmp_path):
    curve = cvreport.power_curve(pilot, *PAIR, effect=0.05, replications=range(1, 11))
    frame = curve.to_frame()
    vc = estimate_components(pilot, *PAIR)
    row = frame[(frame.test == "corrected_repeated_kfold_ttest") & (frame.K == 5) & (frame.m == 4)]
    assert float(row.power.iloc[0]) == pytest.approx(corrected_t_power(0.05, vc.at(5), 4))
    row = frame[(frame.test == "combined_ftest_5x2cv") & (frame.m == 5)]
    assert float(row.power.iloc[0]) == pytest.approx(ftest_5x2_power(0.05, vc, 5))
    root = ET.fromstring(curve.svg)  # well-formed
    assert root.get("role") == "img"
    assert len(root.findall(".//{http://www.w3.org/2000/svg}polyline")) == 5  # 3 t lines + 2 F
    assert "power 0.8" in curve.svg
    saved = curve.save(tmp_path / "curve.svg")
    assert saved.read_text(encoding="utf-8").startswith("<svg")


def test_power_curve_from_given_components():
    vc = VarianceComponents(within=0.0, between=0.04, common=0.02, K=1, test_train_ratio=0.5)
    frame = cvreport.power_curve(vc, effect=0.1, replications=[5, 10]).to_frame()
    assert frame.test.unique().tolist() == ["corrected_resampled_ttest"]
    assert frame.power.tolist() == pytest.approx([corrected_t_power(0.1, vc, j) for j in (5, 10)])


def test_power_curve_checks_its_options(pilot):
    with pytest.raises(CVReportError, match="power must lie"):
        cvreport.power_curve(pilot, *PAIR, effect=0.05, power=1.2)
    with pytest.raises(CVReportError, match="replications must be positive"):
        cvreport.power_curve(pilot, *PAIR, effect=0.05, replications=[0, 1])


@pytest.fixture(scope="module")
def pilot_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("plan") / "pilot.csv"
    cvreport.load_example().to_csv(path, index=False)
    return path


def test_cli_prints_the_plan_and_writes_its_table(pilot, pilot_file, tmp_path, capsys):
    out = tmp_path / "plan.csv"
    status = main(
        [
            "plan",
            str(pilot_file),
            "-f",
            "loss ~ model | replication + fold",
            "--effect",
            "0.05",
            "--power",
            "0.8",
            *PAIR,
            "--designs",
            "10x10,5x2",
            "--csv",
            str(out),
        ]
    )
    printed = capsys.readouterr().out
    assert status == 0
    assert "Smallest design reaching the power" in printed and "10×10 CV" in printed
    written = pd.read_csv(out)
    expected = cvreport.plan(pilot, *PAIR, effect=0.05, designs=["10x10", "5x2"]).to_frame()
    assert written.power.tolist() == pytest.approx(expected.power.tolist())


def test_cli_example_and_svg(tmp_path, capsys):
    svg = tmp_path / "curve.svg"
    assert main(["plan", "--example", "--effect", "0.05", *PAIR, "--svg", str(svg)]) == 0
    assert svg.read_text(encoding="utf-8").startswith("<svg")


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["--effect", "-0.01", *PAIR], "effect must be a positive"),
        (["--effect", "0.01", "--power", "2", *PAIR], "power must lie"),
        (["--effect", "0.01", "logistic_regression", "nope"], "unknown model 'nope'"),
    ],
)
def test_cli_bad_input_is_one_line_and_status_1(arguments, words, capsys):
    assert main(["plan", "--example", *arguments]) == 1
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
