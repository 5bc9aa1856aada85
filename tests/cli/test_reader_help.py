"""The many-data-sets and notebook commands read as a new user reads their help and errors."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sklearn.metrics import roc_auc_score

import cvreport
from cvreport.cli import build_parser
from cvreport.cli.inputs import load_datasets_table, names_data_sets
from tests.cli._inputs import fails_and_writes_nothing, predictions


def _help(command: str) -> str:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return " ".join(action.choices[command].format_help().split())


def test_the_datasets_help_shows_a_predictions_formula_that_names_the_data_sets(
    tmp_path: Path,
) -> None:
    """Was: "e.g. -f 'y ~ model | replication + fold' --metric roc_auc" in the help of
    ``cvreport datasets``, a formula without the data set part the command needs."""
    text = _help("datasets")
    (formula,) = re.findall(r"e\.g\. -f '([^']+)' --metric roc_auc --score p", text)
    assert formula == "y ~ model | replication + fold | dataset"
    # the example as the help gives it builds every data set's table, each fold's AUC
    frame = predictions(datasets=["d1", "d2"]).rename(columns={"proba": "p"})
    data = tmp_path / "many.csv"
    frame.to_csv(data, index=False)
    args = build_parser().parse_args(
        ["datasets", str(data), "-f", formula, "--metric", "roc_auc", "--score", "p", "-o", "x.md"]
    )
    table = load_datasets_table(args)
    first = frame[(frame.dataset == "d1") & (frame.model == "A")]
    by_fold = first.groupby(["replication", "fold"]).apply(lambda g: roc_auc_score(g.y, g.p))
    assert table.means().loc["d1", "A"] == pytest.approx(by_fold.mean(), abs=1e-12)
    # the one-data-set commands keep their own formula
    assert "e.g. -f 'y ~ model | replication + fold' --metric" in _help("report")


def test_the_datasets_help_says_what_the_rope_is() -> None:
    """Was: "--rope ROPE  rope of the Bayesian test" and "--pairwise-correction  correction of
    the Wilcoxon tests (auto, ...)" without a word on what auto does."""
    text = _help("datasets")
    rope = text.split("--rope W ")[1].split(" --samples")[0]
    assert "region of practical equivalence" in rope and "metric's units" in rope
    assert "(0.01)" in rope
    correction = text.split("--correction CORRECTION ")[1].split(" --pairwise")[0]
    assert "within a data set" in correction and "holm" in correction
    pairwise = text.split("--pairwise-correction PAIRWISE_CORRECTION ")[1].split(" --rope")[0]
    assert "auto (the default: Bergmann and Hommel's for every pair of at most 9 models" in pairwise


def test_the_notebook_help_says_what_tests_and_correction_take() -> None:
    """Was: "--tests TESTS  tests the notebook runs" and "--correction  multiplicity
    correction", with no word on the values either takes."""
    text = _help("notebook")
    tests = text.split("--tests recommended|all|NAMES ")[1].split(" --alpha")[0]
    assert "'recommended' (default), 'all', or test names" in tests
    correction = text.split("--correction CORRECTION ")[1].split(" --title")[0]
    assert "multipletests" in correction and "none" in correction


def test_a_notebook_of_many_data_sets_is_sent_to_the_datasets_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: "cannot read the formula 'y ~ model | replication + fold | dataset' ... read such a
    formula with DatasetsTable.from_formula": a formula the user did not write, and a Python
    call where the command line has ``cvreport datasets``."""
    data = tmp_path / "many.csv"
    predictions(datasets=["d1", "d2"]).to_csv(data, index=False)
    formula = "roc_auc(y, proba) ~ model | replication + fold | dataset"
    error = fails_and_writes_nothing(
        ["notebook", str(data), "-f", formula, "-o", str(tmp_path / "nb.ipynb")],
        tmp_path,
        capsys,
        f"the formula {formula!r}",
        "a notebook analyses one data set",
        f'cvreport datasets DATA -f "{formula}"',
    )
    assert "DatasetsTable" not in error and "'y ~ model" not in error
    # braces may hold a '|': a two-part formula is still a notebook's
    assert not names_data_sets("{(pred != y) | (y > 1)} ~ model | fold")
    assert not names_data_sets("loss ~ model | fold")
    assert names_data_sets(formula)


def test_an_unknown_baseline_is_refused_with_the_models_listed_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: "the models are ('lr', 'tree', 'nb')", a Python tuple, and no word on what to do."""
    data = tmp_path / "many.csv"
    predictions(datasets=["d1", "d2"]).to_csv(data, index=False)
    error = fails_and_writes_nothing(
        ["datasets", str(data), "-f", "roc_auc(y, proba) ~ model | replication + fold | dataset",
         "--baseline", "nope", "-o", str(tmp_path / "r.md")],
        tmp_path,
        capsys,
        "the baseline 'nope' is not a model; choose one of 'A', 'B', 'C'",
    )  # fmt: skip
    assert "(" not in error and "[" not in error


def test_python_dash_m_cvreport_is_the_command() -> None:
    """Was: "No module named cvreport.__main__; 'cvreport' is a package and cannot be directly
    executed" for ``python -m cvreport datasets --help``."""
    root = Path(cvreport.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", "cvreport", "datasets", "--help"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: cvreport datasets")
    assert " ".join(done.stdout.split()) == _help("datasets")
