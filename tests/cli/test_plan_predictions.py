"""``cvreport plan`` reads DATA and the input flags as ``cvreport report`` does.

A pilot of predictions is planned on the metric the report would test
(``--metric accuracy --prediction pred``), giving the plan of the equivalent
per-record loss table, and a bad input flag is refused in the same words by both
commands.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.cli import build_parser
from cvreport.cli.plan import build_plan_parser
from tests.cli._inputs import PREDICTIONS_FORMULA, predictions, run
from tests.cli.test_input_options import INPUT_FLAGS

DESIGNS = "10x10,5x2,10-fold"
EFFECT = "0.05"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("plan_inputs")
    frame = predictions()
    paths = {"csv": folder / "predictions.csv", "parquet": folder / "predictions.parquet"}
    frame.to_csv(paths["csv"], index=False)
    frame.to_parquet(paths["parquet"])
    return paths


def loss_table() -> cvreport.ResultsTable:
    """The per-record 0/1 loss of the same predictions, built by hand."""
    frame = predictions()
    frame["loss"] = (frame["pred"] != frame["y"]).astype(int)
    return cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold",
        frame[["replication", "fold", "model", "record", "loss"]],
    )


def test_plan_takes_every_input_flag_report_takes_with_the_same_help() -> None:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    report = {s: a for a in action.choices["report"]._actions for s in a.option_strings}
    plan = {s: a for a in build_plan_parser()._actions for s in a.option_strings}
    assert [f for f in INPUT_FLAGS if f not in plan] == []
    for flag in INPUT_FLAGS:
        assert plan[flag].help == report[flag].help, flag
        assert plan[flag].choices == report[flag].choices, flag


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_plan_from_predictions_is_the_plan_of_the_equivalent_loss_table(
    kind: str, files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plan.csv"
    status, printed, err = run(
        ["plan", str(files[kind]), "-f", PREDICTIONS_FORMULA, "--metric", "accuracy",
         "--prediction", "pred", "A", "B", "--effect", EFFECT, "--designs", DESIGNS,
         "--csv", str(out)],
        capsys,
    )  # fmt: skip
    assert status == 0, err
    assert "effect to detect (accuracy)" in printed  # the metric given, not the loss behind it
    written = pd.read_csv(out)
    expected = cvreport.plan(
        loss_table(), "A", "B", effect=float(EFFECT), designs=DESIGNS.split(",")
    ).to_frame()
    assert written["design"].tolist() == expected["design"].tolist()
    assert written["power"].to_numpy() == pytest.approx(expected["power"].to_numpy(), abs=1e-12)
    assert written["type_i_error"].to_numpy() == pytest.approx(
        expected["type_i_error"].to_numpy(), abs=1e-12
    )


def test_the_plans_within_variance_is_that_of_the_fold_accuracies_by_numpy(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The printed within variance, recomputed from each fold's accuracy by hand."""
    status, printed, err = run(
        ["plan", str(files["csv"]), "-f", PREDICTIONS_FORMULA, "--metric", "accuracy",
         "--prediction", "pred", "A", "B", "--effect", EFFECT, "--designs", "5x2"],
        capsys,
    )  # fmt: skip
    assert status == 0, err
    frame = predictions()
    frame["hit"] = frame["pred"] == frame["y"]
    acc = frame.groupby(["replication", "fold", "model"])["hit"].mean().unstack("model")
    diff = (acc["A"] - acc["B"]).unstack("fold").to_numpy()  # replications × folds
    within = float(np.mean(diff.var(axis=1, ddof=1)))
    line = next(x for x in printed.splitlines() if x.startswith("within variance (K = 2)"))
    assert float(line.split()[-1]) == pytest.approx(within, rel=1e-3)


@pytest.mark.parametrize(
    "flags",
    [
        ["--metric", "nonsense", "--score", "proba"],
        ["--score", "proba"],
        ["--metric", "roc_auc"],
        ["--metric", "roc_auc", "--score", "proba", "--prediction", "pred"],
        ["--metric", "roc_auc", "--score", "proba", "--truth", "pred"],
        ["--test-train-ratio", "-1"],  # a ratio is taken (repeated hold-out needs it), not < 0
        ["--metric", "accuracy", "--prediction", "no_such_column"],
        ["--example", "nope"],
    ],
)
def test_a_bad_input_flag_gives_the_same_line_in_plan_and_report(
    flags: list[str], files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = [] if "--example" in flags else [str(files["csv"]), "-f", PREDICTIONS_FORMULA]
    report = run(["report", *data, *flags, "-o", str(tmp_path / "r.md")], capsys)
    plan = run(["plan", *data, *flags, "--effect", EFFECT, "A", "B"], capsys)
    assert report[0] == plan[0] == 1
    assert report[2] == plan[2]
    assert report[2].startswith("cvreport: error: ") and report[2].count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_plan_without_a_formula_asks_for_one_as_report_does(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [str(files["csv"]), "--metric", "accuracy", "--prediction", "pred"]
    report = run(["report", *flags, "-o", "never.md"], capsys)
    plan = run(["plan", *flags, "--effect", EFFECT, "A", "B"], capsys)
    assert report[2] == plan[2]
    assert "no formula given: pass -f, e.g. -f 'y ~ model | replication + fold'" in plan[2]
