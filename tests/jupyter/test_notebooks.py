"""Every notebook runs top to bottom: the worked ones in notebooks/ and those cvreport writes.

The notebooks execute with nbclient on the ``python3`` kernel of ipykernel.
No ``python -m ipykernel install`` is needed: jupyter_client falls back to
ipykernel's own kernel spec, launched with the running interpreter
(``test_the_kernel_is_this_interpreter`` checks it). A cell that raises fails
the test with the cell's id and traceback.
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pandas as pd
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

import cvreport
from cvreport.jupyter import notebook
from cvreport.partitions.splits import BlockRegularizedCV
from cvreport.rendering.formatting import format_number, format_probability, format_pvalue
from tests._fakes import model_losses

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
WORKED = sorted(NOTEBOOKS.glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def execute(path: Path, cwd: Path) -> nbformat.NotebookNode:
    """Run the notebook at ``path`` in ``cwd``; fail naming the cell that raised."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=120,
        resources={"metadata": {"path": str(cwd)}},
    )
    try:
        client.execute()
    except CellExecutionError as error:
        failed = next(
            (c.id for c in nb.cells if any(o.output_type == "error" for o in c.get("outputs", []))),
            "?",
        )
        pytest.fail(f"{path.name}: cell {failed!r} raised\n{error}")
    return nb


def outputs(nb: nbformat.NotebookNode, cell_id: str) -> dict[str, str]:
    """The rich outputs of one cell, by mimetype (streams under ``stream``)."""
    cell = next(c for c in nb.cells if c.id == cell_id)
    found: dict[str, str] = {}
    for output in cell.outputs:
        if output.output_type == "stream":
            found["stream"] = found.get("stream", "") + output.text
        for mime, value in output.get("data", {}).items():
            found[mime] = value if isinstance(value, str) else json.dumps(value)
    return found


def five_by_two_losses(n: int = 160, seed: int = 4) -> pd.DataFrame:
    """0/1 losses of three models on block-regularized 5×2 partitions of n records."""
    rng = np.random.default_rng(seed)
    assignment = BlockRegularizedCV(m=5, random_state=seed).assignment(n)
    rates = {"logistic": 0.1, "tree": 0.3, "knn": 0.2}
    return model_losses(assignment.rename(columns={"record": "id"}), rates, rng, n, record="id")


def repeated_kfold_auc(m: int = 10, k: int = 10, seed: int = 11) -> pd.DataFrame:
    """One AUC per replication, fold and model: m×K cross-validation of two models."""
    rng = np.random.default_rng(seed)
    rows = []
    for replication in range(1, m + 1):
        for fold in range(1, k + 1):
            shared = rng.normal(0, 0.02)  # a hard fold is hard for both models
            for model, mean in (("forest", 0.86), ("logistic", 0.84)):
                auc = mean + shared + rng.normal(0, 0.01)
                rows.append((replication, fold, model, round(auc, 6)))
    return pd.DataFrame(rows, columns=["replication", "fold", "model", "auc"])


# -- the kernel -------------------------------------------------------------------
def test_the_kernel_is_this_interpreter() -> None:
    # with no kernel spec installed anywhere, jupyter_client still offers python3 …
    bare = KernelSpecManager(kernel_dirs=[])
    assert "python3" in bare.find_kernel_specs()
    assert bare.get_kernel_spec("python3").argv[0] == sys.executable
    # … and an installed spec that says "python" is launched as this interpreter
    argv = KernelSpecManager().get_kernel_spec("python3").argv
    assert argv[0] in ("python", "python3", sys.executable)


# -- the worked notebooks ------------------------------------------------------------
def test_the_worked_notebooks_are_there() -> None:
    assert [p.name for p in WORKED] == [
        "01_quickstart.ipynb",
        "02_designing_partitions.ipynb",
        "03_calibration_study.ipynb",
        "04_many_datasets.ipynb",
        "05_beyond_the_test.ipynb",
    ]


@pytest.mark.parametrize("path", WORKED, ids=[p.stem for p in WORKED])
def test_worked_notebook_is_stored_clean_and_valid(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4 and nb.metadata.kernelspec.name == "python3"
    ids = [cell.id for cell in nb.cells]
    assert len(set(ids)) == len(ids)
    # readable names, not random uuids
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids), ids
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.id


@pytest.mark.parametrize("path", WORKED, ids=[p.stem for p in WORKED])
def test_worked_notebook_runs(path: Path, tmp_path: Path) -> None:
    nb = execute(path, tmp_path)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code_cells)


# -- notebooks written by cvreport.jupyter.notebook.write -----------------------------------
def test_written_notebook_runs_on_a_csv(tmp_path: Path) -> None:
    data = five_by_two_losses()
    folder = tmp_path / "analysis"
    folder.mkdir()  # writers never create folders
    (tmp_path / "data").mkdir()
    csv = tmp_path / "data" / "losses.csv"
    data.to_csv(csv, index=False)
    formula = "loss ~ model | replication + fold"

    target = notebook.write(
        folder / "analysis.ipynb",
        data=csv,
        formula=formula,
        record="id",
        tests="all",
        correction="bonferroni",
    )
    nb = execute(target, folder)

    table = cvreport.ResultsTable.from_formula(formula, data, record="id")
    shown = outputs(nb, "build-table")["stream"]
    assert table.design.describe() in shown
    audit = cvreport.audit_overlap(table)
    assert audit.design == "block-regularized"
    audit_html = html.unescape(outputs(nb, "audit")["text/html"])
    assert format_number(audit.z_max) in audit_html and "block-regularized" in audit_html

    # the report in the notebook shows the numbers computed here
    report_html = html.unescape(outputs(nb, "render-report")["text/html"])
    expected = cvreport.Report(table, tests="all", correction="bonferroni")
    assert expected.results
    for outcome in expected.outcomes:
        assert f"{outcome.a} vs {outcome.b}" in report_html
        if outcome.posterior is not None:  # a Bayesian test shows its probabilities
            assert format_probability(outcome.posterior.p_b_better) in report_html
            continue
        assert format_number(outcome.shown_statistic) in report_html  # in the user's metric
        assert format_pvalue(outcome.result.pvalue) in report_html
    assert "Bonferroni" in report_html or "bonferroni" in report_html
    assert WIDGET_VIEW in outputs(nb, "explore")


def test_written_notebook_runs_on_the_example(tmp_path: Path) -> None:
    target = notebook.write(tmp_path / "example.ipynb", data="example")
    nb = execute(target, tmp_path)
    table = cvreport.ResultsTable.from_formula(notebook.DEFAULT_FORMULA, cvreport.load_example())
    report_html = html.unescape(outputs(nb, "render-report")["text/html"])
    for outcome in cvreport.Report(table).outcomes:
        assert format_number(outcome.shown_statistic) in report_html
        assert format_pvalue(outcome.result.pvalue) in report_html
    assert WIDGET_VIEW in outputs(nb, "explore")


def test_written_notebook_runs_on_per_fold_scores(tmp_path: Path) -> None:
    scores = repeated_kfold_auc()
    csv = tmp_path / "auc.csv"
    scores.to_csv(csv, index=False)
    formula = "auc ~ model | replication + fold"
    ratio = 1 / 9

    target = notebook.write(
        tmp_path / "auc.ipynb",
        data=csv,
        formula=formula,
        per_fold=True,
        test_train_ratio=ratio,
        tests="all",
    )
    source = {c.id: c.source for c in nbformat.read(target, as_version=4).cells}
    assert "per_fold=True" in source["build-table"] and "RECORD" not in source["setup"]
    assert f"TEST_TRAIN_RATIO = {ratio!r}" in source["setup"]
    # no direction was given: the table infers it, and the report says so (not "as given")
    assert "HIGHER_IS_BETTER" not in source["setup"]
    assert "from the score's name" in source["setup"]
    nb = execute(target, tmp_path)

    table = cvreport.ResultsTable.from_formula(
        formula, pd.read_csv(csv), per_fold=True, test_train_ratio=ratio
    )
    assert (table.design.kind, table.design.m, table.design.K) == ("repeated_kfold", 10, 10)
    built = outputs(nb, "build-table")
    assert table.design.describe() in built["stream"]
    first = scores.iloc[0]  # the score as given, not negated into a loss
    assert f"{first.auc:.6f}" in built["text/html"]
    assert f"-{first.auc:.6f}" not in built["text/html"]

    # the audit needs per-record losses: the cell says so instead of failing
    audit = outputs(nb, "audit")
    assert "text/html" not in audit
    assert audit["stream"].startswith("No overlap audit:")
    assert "needs per-record losses" in audit["stream"]
    assert "one score per fold" in audit["stream"]

    # the report in the notebook shows the numbers computed here
    report_html = html.unescape(outputs(nb, "render-report")["text/html"])
    expected = cvreport.Report(table, tests="all")
    names = {outcome.name for outcome in expected.outcomes}
    assert "corrected_repeated_kfold_ttest" in names and len(names) >= 2
    for outcome in expected.outcomes:
        assert f"{outcome.a} vs {outcome.b}" in report_html
        if outcome.posterior is not None:  # a Bayesian test shows its probabilities
            assert format_probability(outcome.posterior.p_b_better) in report_html
            continue
        assert format_number(outcome.shown_statistic) in report_html  # in the user's metric
        assert format_pvalue(outcome.result.pvalue) in report_html
    assert "negated" not in report_html and "higher is better" in report_html
    assert WIDGET_VIEW in outputs(nb, "explore")


# -- the writer itself (fast, no kernel) ------------------------------------------------
def test_writing_twice_gives_the_same_file(tmp_path: Path) -> None:
    data = five_by_two_losses()
    data.to_parquet(tmp_path / "losses.parquet")
    first = notebook.write(
        tmp_path / "a.ipynb", data=tmp_path / "losses.parquet", record="id", alpha=0.1
    )
    second = notebook.write(
        tmp_path / "b.ipynb", data=tmp_path / "losses.parquet", record="id", alpha=0.1
    )
    assert first.read_bytes() == second.read_bytes()
    umask = os.umask(0)
    os.umask(umask)
    assert first.stat().st_mode & 0o777 == 0o666 & ~umask  # not the temporary file's 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.ipynb", "b.ipynb", "losses.parquet"]
    nb = nbformat.read(first, as_version=4)
    nbformat.validate(nb)
    assert [c.id for c in nb.cells if c.cell_type == "code"] == [
        "setup",
        "load-data",
        "build-table",
        "audit",
        "run-tests",
        "render-report",
        "explore",
    ]
    assert all(c.outputs == [] for c in nb.cells if c.cell_type == "code")
    source = {c.id: c.source for c in nb.cells}
    assert "df = read_results(DATA)" in source["load-data"]
    assert f"DATA = {str(tmp_path / 'losses.parquet')!r}" in source["load-data"]
    assert "ALPHA = 0.1" in source["setup"] and "RECORD = 'id'" in source["setup"]
    assert nb.metadata.kernelspec == {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }


def test_a_relative_data_path_is_rewritten_for_the_notebook_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    five_by_two_losses().to_csv("losses.csv", index=False)
    Path("out").mkdir()  # writers never create folders
    target = notebook.write(Path("out") / "nb.ipynb", data="losses.csv", record="id")
    source = next(
        c.source for c in nbformat.read(target, as_version=4).cells if c.id == "load-data"
    )
    assert "DATA = '../losses.csv'" in source
    assert (target.parent / "../losses.csv").resolve() == (tmp_path / "losses.csv").resolve()


def test_write_refuses_to_overwrite_and_checks_its_inputs(tmp_path: Path) -> None:
    csv = tmp_path / "losses.csv"
    five_by_two_losses().to_csv(csv, index=False)
    target = notebook.write(tmp_path / "nb.ipynb", data=csv, record="id")
    before = target.read_bytes()
    with pytest.raises(FileExistsError, match="overwrite=True"):
        notebook.write(target, data=csv, record="id", title="Another")
    assert target.read_bytes() == before
    notebook.write(target, data=csv, record="id", title="Another", overwrite=True)
    assert "# Another" in target.read_text(encoding="utf-8")

    with pytest.raises(cvreport.DataError, match="not found"):
        notebook.write(tmp_path / "x.ipynb", data=tmp_path / "missing.csv")
    with pytest.raises(cvreport.DataError, match=r"\.csv or \.parquet"):
        notebook.write(tmp_path / "x.ipynb", data=tmp_path / "losses.xlsx")
    with pytest.raises(cvreport.CVReportError, match=r"\.ipynb"):
        notebook.write(tmp_path / "x.txt", data=csv)
    with pytest.raises(cvreport.CVReportError, match="no_such_column"):
        notebook.write(
            tmp_path / "x.ipynb", data=csv, formula="no_such_column ~ model | replication + fold"
        )
    assert not (tmp_path / "x.ipynb").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["losses.csv", "nb.ipynb"]


def test_the_command_line_writes_the_same_notebook(tmp_path: Path) -> None:
    from cvreport.cli import main

    csv = tmp_path / "losses.csv"
    five_by_two_losses().to_csv(csv, index=False)
    formula = "loss ~ model | replication + fold"
    out = tmp_path / "cli.ipynb"
    status = main(
        ["notebook", str(csv), "-f", formula, "--record", "id", "-o", str(out), "--alpha", "0.01"]
    )
    assert status == 0
    direct = notebook.write(
        tmp_path / "direct.ipynb", data=csv, formula=formula, record="id", alpha=0.01
    )
    assert out.read_bytes() == direct.read_bytes()
    assert main(["notebook", str(csv), "-f", formula, "--record", "id", "-o", str(out)]) != 0


def test_the_command_line_writes_the_same_per_fold_notebook(tmp_path: Path) -> None:
    from cvreport.cli import main

    csv = tmp_path / "auc.csv"
    repeated_kfold_auc(m=3, k=5).to_csv(csv, index=False)
    formula = "auc ~ model | replication + fold"
    cases: list[tuple[list[str], dict[str, Any]]] = [
        (["--per-fold"], {}),
        (["--per-fold", "--test-train-ratio", "0.25"], {"test_train_ratio": 0.25}),
        (["--per-fold", "--direction", "higher"], {"higher_is_better": True}),
        (["--per-fold", "--higher-is-better"], {"higher_is_better": True}),
    ]
    for flags, options in cases:
        out = tmp_path / "cli.ipynb"
        assert main(["notebook", str(csv), "-f", formula, "-o", str(out), *flags]) == 0
        direct = notebook.write(
            tmp_path / "direct.ipynb", data=csv, formula=formula, per_fold=True, **options
        )
        assert out.read_bytes() == direct.read_bytes(), flags
        setup = nbformat.read(out, as_version=4).cells[1].source
        ratio = options.get("test_train_ratio")
        assert f"TEST_TRAIN_RATIO = {ratio!r}" in setup
        if "higher_is_better" in options:
            assert f"HIGHER_IS_BETTER = {options['higher_is_better']!r}" in setup
        else:  # inferred by the table, not written down as if given
            assert "HIGHER_IS_BETTER" not in setup
        out.unlink()
        direct.unlink()


def test_per_fold_options_are_checked_before_writing(tmp_path: Path) -> None:
    csv = tmp_path / "auc.csv"
    repeated_kfold_auc(m=2, k=5).to_csv(csv, index=False)
    formula = "auc ~ model | replication + fold"
    target = tmp_path / "nb.ipynb"
    with pytest.raises(cvreport.CVReportError, match="per_fold=True"):  # the record column
        notebook.write(target, data=csv, formula=formula)
    with pytest.raises(cvreport.CVReportError, match="applies to per-fold scores"):
        notebook.write(target, data=csv, formula=formula, test_train_ratio=0.25)
    with pytest.raises(cvreport.CVReportError, match="positive number"):
        notebook.write(target, data=csv, formula=formula, per_fold=True, test_train_ratio=-1)
    assert not target.exists()
    # a per-record notebook is the same file as before the per-fold options existed
    losses = tmp_path / "losses.csv"
    five_by_two_losses().to_csv(losses, index=False)
    plain = notebook.build(data=losses, record="id")
    assert plain == notebook.build(data=losses, record="id", per_fold=False)
    setup = plain.cells[1].source
    assert "HIGHER_IS_BETTER" not in setup and "TEST_TRAIN_RATIO" not in setup
