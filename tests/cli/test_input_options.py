"""One set of input flags for ``report``, ``notebook`` and ``datasets``, read one way.

The same flags build the same table in every command: ``--metric roc_auc
--score proba`` computes each fold's AUC from the predictions in the report,
in the notebook's code and for many data sets; an unknown metric is named as
such; a FIFO given as DATA is refused without being opened.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import cvreport
from cvreport.cli import build_parser
from cvreport.cli.inputs import load_datasets_table
from cvreport.errors import PartitionWarning
from tests._fakes import FORMULA
from tests.cli._inputs import (
    PREDICTIONS_FORMULA,
    fails_and_writes_nothing,
    predictions,
    run,
)

COMMANDS = ("report", "notebook", "datasets")
INPUT_FLAGS = (
    "-f", "--formula", "--metric", "--score", "--prediction", "--truth", "--record",
    "--cluster", "--direction", "--engine", "--sep", "--per-fold", "--test-train-ratio",
    "--example", "--debug",
)  # fmt: skip
METRIC_FORMULA = "roc_auc(y, proba) ~ model | replication + fold"
DATASETS = ["d1", "d2", "d3", "d4", "d5", "d6"]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {name: action.choices[name] for name in COMMANDS}


def fold_aucs(frame: pd.DataFrame, by: list[str]) -> pd.Series:
    """Each fold's AUC by scikit-learn, indexed by ``by``."""
    return frame.groupby(by).apply(lambda g: roc_auc_score(g["y"], g["proba"]))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    one = folder / "predictions.csv"
    predictions().to_csv(one, index=False)
    many = folder / "many.csv"
    predictions(datasets=DATASETS).to_csv(many, index=False)
    return {"one": one, "many": many}


# -- one parser ---------------------------------------------------------------------
def test_every_command_takes_the_same_input_flags() -> None:
    parsers = subcommands()
    helps: dict[str, dict[str, Any]] = {}
    for name, parser in parsers.items():
        actions = {s: a for a in parser._actions for s in a.option_strings}
        missing = [flag for flag in INPUT_FLAGS if flag not in actions]
        assert not missing, (name, missing)
        helps[name] = {
            f: actions[f].help for f in INPUT_FLAGS if f not in ("-f", "--formula", "--example")
        }
    assert helps["report"] == helps["notebook"] == helps["datasets"]


def test_help_does_not_call_data_a_file_of_losses() -> None:
    texts = [build_parser().format_help()] + [p.format_help() for p in subcommands().values()]
    for text in texts:
        flat = " ".join(text.split())
        assert "file of losses" not in flat and "of CV losses" not in flat
    for text in texts[1:]:
        flat = " ".join(text.split())
        assert "per-record predictions (with --metric)" in flat
        assert "per-fold scores (with --per-fold)" in flat


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("former", "value"), [("--higher-is-better", "higher"),
                                               ("--lower-is-better", "lower")])  # fmt: skip
def test_former_direction_flags_work_hidden_with_a_deprecation_note(
    command: str, former: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = subcommands()[command]
    assert former not in parser.format_help()
    args = parser.parse_args(["data.csv", "-o", "out.html", former])
    assert args.direction == value
    assert capsys.readouterr().err == (
        f"cvreport: warning: {former} is deprecated; use --direction {value}\n"
    )
    assert parser.parse_args(["data.csv", "-o", "o.html", "--direction", value]).direction == value
    assert capsys.readouterr().err == ""


def test_datasets_former_flag_gives_the_same_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = []
    for flags in (["--lower-is-better"], ["--direction", "lower"]):
        out = tmp_path / f"{len(flags)}.md"
        status, _, stderr = run(
            ["datasets", "--example", "-o", str(out), "--samples", "2000", *flags], capsys
        )
        assert status == 0, stderr
        assert ("deprecated" in stderr) == (flags[0] == "--lower-is-better")
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


# -- messages -------------------------------------------------------------------------
@pytest.mark.parametrize("command", COMMANDS)
def test_unknown_metric_names_the_known_ones(
    command: str, files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    formula = PREDICTIONS_FORMULA + (" | dataset" if command == "datasets" else "")
    data = files["many" if command == "datasets" else "one"]
    suffix = ".ipynb" if command == "notebook" else ".html"
    line = fails_and_writes_nothing(
        [command, str(data), "-f", formula, "--metric", "nonsense", "--score", "proba",
         "-o", str(tmp_path / f"out{suffix}")],
        tmp_path,
        capsys,
        "unknown metric 'nonsense'",
        "'roc_auc'",
        "'f1_macro'",
    )  # fmt: skip
    assert "left side" not in line


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--score", "proba"], "--score name(s) the columns of a metric: add --metric"),
        (["--metric", "roc_auc"], "--metric roc_auc needs the column it scores"),
        (["--metric", "roc_auc", "--score", "proba", "--prediction", "pred"], "not both"),
        (["--metric", "roc_auc", "--score", "proba", "--truth", "pred"], "different truth"),
    ],
)
def test_metric_flags_are_checked_together(
    flags: list[str],
    message: str,
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["report", str(files["one"]), "-f", PREDICTIONS_FORMULA, "-o", str(tmp_path / "r.md")]
    fails_and_writes_nothing([*argv, *flags], tmp_path, capsys, message)


def fifo_command(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the command line in a subprocess: a reader blocked on the FIFO ends in a timeout."""
    return subprocess.run(
        [sys.executable, "-m", "cvreport.cli", *argv],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(Path(cvreport.__file__).parents[1])},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_fifo_is_refused_unopened_not_called_missing(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "results.csv")
    cases = [
        ["report", "results.csv", "-f", FORMULA, "-o", "r.html"],
        ["report", "results.csv", "-f", FORMULA, "-o", "r.html", "--engine", "duckdb"],
        ["notebook", "results.csv", "-f", FORMULA, "-o", "n.ipynb"],
        ["datasets", "results.csv", "-f", FORMULA + " | dataset", "-o", "d.html"],
    ]
    for argv in cases:
        done = fifo_command(argv, tmp_path)
        assert done.returncode == 1, (argv, done.stderr)
        # the data layer's words (cvreport.data.io.check_regular_file), on every route
        assert done.stderr == (
            "cvreport: error: DATA 'results.csv' is a named pipe (FIFO), not a file of results; "
            "reading it would wait for a writer for ever; save the data to a file first\n"
        ), argv
        assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]


# -- metrics from predictions, the same table everywhere ---------------------------------
def test_report_with_a_metric_computes_each_folds_auc(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pd.read_csv(files["one"])
    table = cvreport.ResultsTable.from_formula(METRIC_FORMULA, frame)
    aucs = fold_aucs(frame, ["replication", "fold", "model"]).unstack("model")
    expected = (aucs["A"] - aucs["B"]).unstack("fold")
    np.testing.assert_allclose(table.differences("A", "B").to_numpy(), expected, rtol=0, atol=1e-12)
    api = cvreport.Report(table).to_markdown()
    outs = {}
    for name, flags in {
        "left side": ["-f", PREDICTIONS_FORMULA],
        "--truth": ["-f", "model | replication + fold", "--truth", "y"],
        "both": ["-f", PREDICTIONS_FORMULA, "--truth", "y"],
    }.items():
        out = tmp_path / f"{len(outs)}.md"
        status, stdout, stderr = run(
            ["report", str(files["one"]), *flags, "--metric", "roc_auc", "--score", "proba",
             "-o", str(out)],
            capsys,
        )  # fmt: skip
        assert (status, stderr) == (0, ""), (name, stderr)
        assert stdout.startswith(f"wrote {out}")
        outs[name] = out.read_text(encoding="utf-8")
    assert outs["left side"] == outs["--truth"] == outs["both"] == api


def test_notebook_honours_the_metric_flags_and_builds_the_same_table(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.jupyter.test_notebooks import execute

    out = tmp_path / "analysis.ipynb"
    status, stdout, stderr = run(
        ["notebook", str(files["one"]), "-f", PREDICTIONS_FORMULA, "--metric", "roc_auc",
         "--score", "proba", "-o", str(out)],
        capsys,
    )  # fmt: skip
    assert (status, stderr) == (0, ""), stderr
    assert stdout == f"wrote {out}\n"
    notebook = nbformat.read(out, as_version=4)
    setup = next(c.source for c in notebook.cells if c.id == "setup")
    assert f"FORMULA = {METRIC_FORMULA!r}" in setup
    notebook.cells.append(
        nbformat.v4.new_code_cell(
            "print(table.differences('A', 'B').to_json(orient='values', double_precision=15))",
            id="check",
        )
    )
    nbformat.write(notebook, out)
    ran = execute(out, tmp_path)
    printed = next(c for c in ran.cells if c.id == "check").outputs[0]["text"]
    frame = pd.read_csv(files["one"])
    aucs = fold_aucs(frame, ["replication", "fold", "model"]).unstack("model")
    expected = (aucs["A"] - aucs["B"]).unstack("fold").to_numpy()
    np.testing.assert_allclose(np.array(json.loads(printed)), expected, rtol=0, atol=1e-12)
    report_table = cvreport.ResultsTable.from_formula(METRIC_FORMULA, frame)
    np.testing.assert_allclose(report_table.differences("A", "B").to_numpy(), expected, atol=1e-12)


def test_notebook_refuses_an_engine_it_does_not_use(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fails_and_writes_nothing(
        ["notebook", str(files["one"]), "-f", FORMULA, "--engine", "duckdb",
         "-o", str(tmp_path / "n.ipynb")],
        tmp_path,
        capsys,
        "--engine duckdb: a notebook reads DATA with pandas",
    )  # fmt: skip


def test_datasets_with_a_metric_from_predictions(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Needs the many-data-sets metric route (``DatasetsTable.from_formula`` with a metric)."""
    formula = PREDICTIONS_FORMULA + " | dataset"
    flags = ["-f", formula, "--metric", "roc_auc", "--score", "proba"]
    out = tmp_path / "many.md"
    argv = ["datasets", str(files["many"]), *flags, "-o", str(out), "--samples", "2000"]
    status, stdout, stderr = run(argv, capsys)
    assert (status, stderr) == (0, ""), stderr
    assert stdout == f"wrote {out} (3 models on {len(DATASETS)} data sets)\n"
    args = build_parser().parse_args(argv)
    table = load_datasets_table(args)
    frame = pd.read_csv(files["many"])
    aucs = fold_aucs(frame, ["dataset", "replication", "fold", "model"])
    expected = aucs.groupby(["dataset", "model"]).mean().unstack("model")
    means = table.means()
    np.testing.assert_allclose(
        means.loc[expected.index, expected.columns].to_numpy(), expected, rtol=0, atol=1e-12
    )
    assert table.metric.direction == "higher"


def test_cluster_is_one_role_in_report_and_notebook(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pd.read_csv(files["one"]).assign(doc=lambda d: d["record"] // 4)
    data = tmp_path / "clustered.csv"
    frame.to_csv(data, index=False)
    flags = ["-f", PREDICTIONS_FORMULA, "--metric", "roc_auc", "--score", "proba"]
    flags += ["--cluster", "doc"]
    out = tmp_path / "r.md"
    with pytest.warns(PartitionWarning, match="clusters lie in two or more folds"):
        status, _, stderr = run(["report", str(data), *flags, "-o", str(out)], capsys)
    assert status == 0, stderr
    with pytest.warns(PartitionWarning):
        table = cvreport.ResultsTable.from_formula(METRIC_FORMULA, frame, cluster="doc")
    api = cvreport.Report(table).to_markdown()
    assert out.read_text(encoding="utf-8") == api
    notebook = tmp_path / "n.ipynb"
    with pytest.warns(PartitionWarning):
        status, _, stderr = run(["notebook", str(data), *flags, "-o", str(notebook)], capsys)
    assert status == 0, stderr
    setup = next(c.source for c in nbformat.read(notebook, as_version=4).cells if c.id == "setup")
    assert f"FORMULA = {METRIC_FORMULA + ' + cluster(doc)'!r}" in setup


def test_datasets_takes_clusters_of_records(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pd.read_csv(files["many"])
    frame["doc"] = frame["record"] // 3  # three records a document
    data = tmp_path / "many.csv"
    frame.to_csv(data, index=False)
    formula = "{pred != y} ~ model | replication + fold | dataset"
    argv = ["datasets", str(data), "-f", formula, "--cluster", "doc", "--samples", "2000"]
    status, _, stderr = run([*argv, "-o", str(tmp_path / "d.md")], capsys)
    assert (status, stderr) == (0, ""), stderr
    table = cvreport.DatasetsTable.from_formula(formula, frame, cluster="doc")
    assert all(t.formula.endswith("+ cluster(doc)") for t in table.tables.values())
    api = cvreport.DatasetsReport(table, n_samples=2000).to_markdown()
    assert (tmp_path / "d.md").read_text(encoding="utf-8") == api


def test_a_file_whose_name_looks_like_a_glob_is_read_as_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests._fakes import five_by_two_losses

    frame = five_by_two_losses()
    data = tmp_path / "results[1].csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "r.md"
    status, _, stderr = run(["report", str(data), "-f", FORMULA, "-o", str(out)], capsys)
    assert (status, stderr) == (0, ""), stderr
    # the same file through the API, read by pandas as the command line reads it (the
    # source line names the file on both routes)
    table = cvreport.ResultsTable.from_formula(FORMULA, str(data), engine="pandas")
    assert table.fold_errors().equals(
        cvreport.ResultsTable.from_formula(FORMULA, frame).fold_errors()
    )
    assert out.read_text(encoding="utf-8") == cvreport.Report(table).to_markdown()


def test_several_score_columns_for_a_multiclass_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sklearn.metrics import roc_auc_score as auc

    rng = np.random.default_rng(0)
    n, rows = 90, []
    truth = rng.integers(0, 3, n)
    for replication in (1, 2, 3):
        fold = np.where(np.isin(np.arange(n), rng.permutation(n)[: n // 2]), 1, 2)
        for model, spread in (("A", 0.5), ("B", 1.5)):
            logits = np.eye(3)[truth] * 2 + rng.normal(0, spread, (n, 3))
            p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
            rows.append(pd.DataFrame({"replication": replication, "fold": fold, "model": model,
                                      "record": np.arange(n), "y": truth, "p0": p[:, 0],
                                      "p1": p[:, 1], "p2": p[:, 2]}))  # fmt: skip
    frame = pd.concat(rows, ignore_index=True)
    data = tmp_path / "three.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "r.md"
    status, _, stderr = run(
        ["report", str(data), "-f", PREDICTIONS_FORMULA, "--metric", "roc_auc_ovr",
         "--score", "p0, p1,p2", "-o", str(out)],
        capsys,
    )  # fmt: skip
    assert (status, stderr) == (0, ""), stderr
    formula = "roc_auc_ovr(y, p0 + p1 + p2) ~ model | replication + fold"
    table = cvreport.ResultsTable.from_formula(formula, pd.read_csv(data))
    assert out.read_text(encoding="utf-8") == cvreport.Report(table).to_markdown()
    per_fold = frame.groupby(["replication", "fold", "model"]).apply(
        lambda g: auc(g["y"], g[["p0", "p1", "p2"]].to_numpy(), multi_class="ovr")
    )
    expected = (per_fold.xs("A", level="model") - per_fold.xs("B", level="model")).unstack("fold")
    np.testing.assert_allclose(table.differences("A", "B").to_numpy(), expected, atol=1e-12)
