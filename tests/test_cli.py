"""The ``cvreport`` command line: reports from CSV/Parquet and the example, clear one-line errors."""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cvreport.cli import main
from cvreport.rendering.formatting import format_pvalue
from tests._fakes import FORMULA, five_by_two_losses

report_module = importlib.import_module("cvreport.reporting.report")
writer_module = importlib.import_module("cvreport.rendering.writer")


@pytest.fixture(scope="module")
def data_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("data")
    frame = five_by_two_losses()
    csv = folder / "losses.csv"
    frame.to_csv(csv, index=False)
    files = {"csv": csv}
    try:
        parquet = folder / "losses.parquet"
        frame.to_parquet(parquet)
        files["parquet"] = parquet
    except ImportError:  # pragma: no cover - pyarrow is a test dependency
        pass
    return files


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


class Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str]] = []
        self._field: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        field = dict(attrs).get("data-field")
        if tag == "td" and field:
            self._field = field

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._field = None

    def handle_data(self, data: str) -> None:
        if self._field:
            self.cells.append((self._field, data.strip()))


def test_report_from_csv_shows_the_same_numbers_as_the_api(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    status, stdout, stderr = run(
        ["report", str(data_files["csv"]), "-f", FORMULA, "-o", str(out), "--tests", "all"], capsys
    )
    assert status == 0 and "error" not in stderr
    assert stdout.startswith(f"wrote {out} (")
    from cvreport.data.table import ResultsTable

    table = ResultsTable.from_formula(FORMULA, pd.read_csv(data_files["csv"]))
    expected = report_module.Report(table, tests="all")
    parser = Cells()
    parser.feed(out.read_text(encoding="utf-8"))
    shown = [value for field, value in parser.cells if field == "pvalue"]
    assert shown == [
        format_pvalue(o.result.pvalue) for o in expected.outcomes if o.posterior is None
    ]
    assert len(shown) >= 3 * 3  # three pairs, at least three m×2 tests each


def test_report_formats_from_suffix_or_flag(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = data_files.get("parquet", data_files["csv"])
    for name, flag, start in [
        ("r.md", [], "# Comparison of 3 models"),
        ("r.tex", ["--stars"], "\\documentclass"),
        ("r.txt", ["--format", "md"], "# Comparison"),
        ("r.out", ["--format", "html"], "<!DOCTYPE html>"),
    ]:
        out = tmp_path / name
        status, _, stderr = run(
            ["report", str(source), "-f", FORMULA, "-o", str(out), *flag], capsys
        )
        assert (status, stderr) == (0, ""), name
        assert out.read_text(encoding="utf-8").startswith(start)


def test_pairs_tests_and_alpha_options(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.md"
    status, _, stderr = run(
        [
            "report",
            str(data_files["csv"]),
            "-f",
            FORMULA,
            "-o",
            str(out),
            "--pairs",
            "C:A",
            "--tests",
            "combined_ftest_5x2cv,paired_ttest_5x2cv",
            "--alpha",
            "0.1",
        ],
        capsys,
    )
    assert (status, stderr) == (0, "")
    text = out.read_text(encoding="utf-8")
    assert "### C (A) vs A (B)" in text and "### A (A) vs B (B)" not in text
    assert "α = 0.1" in text
    rows = [
        line
        for line in text.splitlines()
        if line.startswith("| Alpayd") or line.startswith("| Dietterich")
    ]
    assert len(rows) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-f", "loss ~ "], "formula"),
        (["-f", "loss ~ model | replication + fold + nonsense"], "nonsense"),
        (["-f", "accuracy ~ model | replication + fold"], "accuracy"),
        (["-f", FORMULA, "--pairs", "A:Z"], "unknown model 'Z'"),
        (["-f", FORMULA, "--tests", "anova"], "unknown test 'anova'"),
        (["-f", FORMULA, "--alpha", "2"], "--alpha must lie strictly between 0 and 1"),
        (["-f", FORMULA, "--correction", "tukey"], "unknown correction 'tukey'"),
        ([], "no formula given"),
        (
            ["--metric", "roc_auc", "--score", "p"],
            "-f 'y ~ model | replication + fold' (y: the column of true labels)",
        ),
        (
            ["--metric", "roc_auc", "--score", "p", "--truth", "label"],
            "-f 'model | replication + fold' (with --truth label the left side may be left out)",
        ),
        (["-f", FORMULA, "--rope", "-1"], "--rope must be a non-negative half-width"),
        (["-f", FORMULA, "--pairs", "A:B", "B:A"], "repeats ('A', 'B') reversed"),
        (["-f", "loss ~ model | replication + replication"], "named more than once"),
        (["-f", "loss ~ model"], "the table names no replication and no fold column"),
    ],
)
def test_bad_input_exits_nonzero_with_one_line(
    data_files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    out = tmp_path / "r.html"
    status, stdout, stderr = run(["report", str(data_files["csv"]), "-o", str(out), *args], capsys)
    assert status == 1
    assert stdout == ""
    assert stderr.count("\n") == 1 and stderr.startswith("cvreport: error: ")
    assert message in stderr
    assert "Traceback" not in stderr
    assert not out.exists()


def test_path_errors_exit_nonzero_with_one_line(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        (
            [
                "report",
                str(tmp_path / "missing.csv"),
                "-f",
                FORMULA,
                "-o",
                str(tmp_path / "a.html"),
            ],
            "not found",
        ),
        (
            ["report", str(tmp_path), "-f", FORMULA, "-o", str(tmp_path / "a.html")],
            ".csv or .parquet",
        ),
        (
            [
                "report",
                str(data_files["csv"]),
                "-f",
                FORMULA,
                "-o",
                str(tmp_path / "no" / "a.html"),
            ],
            "does not exist",
        ),
        (
            ["report", str(data_files["csv"]), "-f", FORMULA, "-o", str(tmp_path / "a.pdf")],
            "cannot tell the report format",
        ),
        (["report", "-f", FORMULA, "-o", str(tmp_path / "a.html")], "no DATA given"),
    ]
    broken = tmp_path / "broken.csv"
    broken.write_bytes(b"\xff\xfe\x00garbage")
    cases.append(
        (["report", str(broken), "-f", FORMULA, "-o", str(tmp_path / "b.html")], "broken.csv")
    )
    for argv, message in cases:
        status, _, stderr = run(argv, capsys)
        assert status == 1, argv
        assert stderr.count("\n") == 1 and message in stderr, (argv, stderr)


@pytest.mark.skipif(
    os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root can write anywhere"
)
def test_unwritable_folder(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # pragma: no cover - CI runs as root
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    status, _, stderr = run(
        ["report", str(data_files["csv"]), "-f", FORMULA, "-o", str(locked / "r.html")], capsys
    )
    assert status == 1 and "Permission denied" in stderr and stderr.count("\n") == 1


def test_unwritable_target_exits_with_one_line(
    data_files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever the OS refuses while writing (here simulated) ends in one line naming the file."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / ".r.html.123.tmp"))

    monkeypatch.setattr(writer_module, "_write_all", refuse)
    status, _, stderr = run(
        ["report", str(data_files["csv"]), "-f", FORMULA, "-o", str(tmp_path / "r.html")], capsys
    )
    assert status == 1
    assert stderr == (
        f"cvreport: error: {tmp_path / 'r.html'}: Permission denied; the folder is not writable\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no temporary file left


def test_path_the_system_refuses(
    data_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """/sys refuses new files even to root: a real unwritable path, reported in one line."""
    if not Path("/sys").is_dir():  # pragma: no cover - not Linux
        pytest.skip("no /sys")
    argv = ["report", str(data_files["csv"]), "-f", FORMULA, "-o", "/sys/cvreport-report.html"]
    status, _, stderr = run(argv, capsys)
    assert status == 1
    assert stderr.startswith("cvreport: error: /sys/cvreport-report.html: ")
    assert stderr.count("\n") == 1 and ".tmp" not in stderr


def test_existing_output_needs_overwrite(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.md"
    out.write_text("mine", encoding="utf-8")
    argv = ["report", str(data_files["csv"]), "-f", FORMULA, "-o", str(out)]
    status, _, stderr = run(argv, capsys)
    assert status == 1 and "exists; pass --overwrite" in stderr
    assert out.read_text(encoding="utf-8") == "mine"
    status, _, stderr = run([*argv, "--overwrite"], capsys)
    assert (status, stderr) == (0, "")
    assert out.read_text(encoding="utf-8").startswith("# Comparison")


def test_debug_flag_shows_the_traceback(data_files: dict[str, Path], tmp_path: Path) -> None:
    from cvreport.errors import CVReportError

    with pytest.raises(CVReportError):
        main(
            [
                "report",
                str(data_files["csv"]),
                "-f",
                FORMULA,
                "-o",
                str(tmp_path / "r.html"),
                "--alpha",
                "3",
                "--debug",
            ]
        )


def test_example_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """README command (a): ``cvreport report --example -o report.html`` writes the full report."""
    out = tmp_path / "report.html"
    status, stdout, stderr = run(["report", "--example", "-o", str(out)], capsys)
    assert (status, stderr) == (0, ""), stderr
    assert stdout.startswith(f"wrote {out}")
    html = out.read_text(encoding="utf-8")
    for section in (
        "cvr-summary",
        "cvr-data",
        "cvr-audit",
        "cvr-models",
        "cvr-recommended",
        "cvr-comparisons",
        "cvr-pvalues",
        "cvr-caveats",
        "cvr-references",
    ):
        assert f'id="{section}"' in html, section
    assert html.count("<svg") >= 2
    assert re.search(r'data-test="[a-z0-9_]+"', html)
    status, _, stderr = run(
        ["report", "--example", "data.csv", "-o", str(tmp_path / "x.html")], capsys
    )
    assert status == 1 and "either DATA or --example" in stderr


def test_console_script_runs_in_a_subprocess(tmp_path: Path) -> None:
    exe = shutil.which("cvreport")
    command = [exe] if exe else [sys.executable, "-m", "cvreport.cli"]
    out = tmp_path / "report.md"
    done = subprocess.run(
        [*command, "report", "--example", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").startswith("# ")
    bad = subprocess.run(
        [*command, "report", "--example", "-f", "loss ~", "-o", str(tmp_path / "r.html")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert bad.returncode == 1
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_notebook_subcommand(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nbformat = pytest.importorskip("nbformat")
    out = tmp_path / "analysis.ipynb"
    status, _, stderr = run(
        ["notebook", str(data_files["csv"]), "-f", FORMULA, "-o", str(out)], capsys
    )
    assert (status, stderr) == (0, ""), stderr
    notebook = nbformat.read(out, as_version=4)
    nbformat.validate(notebook)
    assert any(FORMULA in cell.source for cell in notebook.cells)
    status, _, stderr = run(
        ["notebook", str(data_files["csv"]), "-f", FORMULA, "-o", str(out)], capsys
    )
    assert status == 1 and "exists" in stderr


def test_notebook_subcommand_without_the_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "cvreport.jupyter.notebook", None)  # makes the import fail
    status, _, stderr = run(
        ["notebook", "x.csv", "-f", FORMULA, "-o", str(tmp_path / "a.ipynb")], capsys
    )
    assert status == 1
    assert "writing notebooks needs cvreport.jupyter.notebook" in stderr and stderr.count("\n") == 1


def test_usage_errors_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["report"])
    assert info.value.code == 2
    assert "-o/--output" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("cvreport ")


def test_headers_only_csv_says_the_table_has_no_rows(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.csv"
    pd.read_csv(data_files["csv"]).iloc[:0].to_csv(empty, index=False)
    out = tmp_path / "r.html"
    status, _, stderr = run(["report", str(empty), "-f", FORMULA, "-o", str(out)], capsys)
    assert status == 1 and stderr.count("\n") == 1
    assert "the table has no rows" in stderr and not out.exists()


def test_rope_without_the_bayesian_test_is_noted(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.md"
    status, _, stderr = run(
        ["report", str(data_files["csv"]), "-f", FORMULA, "-o", str(out), "--rope", "0.01"], capsys
    )
    assert status == 0
    assert "--rope applies to the Bayesian correlated t test" in stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tests", "anova"], "unknown test 'anova'"),
        (["--correction", "tukey"], "unknown correction 'tukey'"),
    ],
)
def test_notebook_with_unknown_tests_or_correction_writes_nothing(
    data_files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    out = tmp_path / "analysis.ipynb"
    status, _, stderr = run(
        ["notebook", str(data_files["csv"]), "-f", FORMULA, "-o", str(out), *args], capsys
    )
    assert status == 1 and stderr.count("\n") == 1 and message in stderr
    assert not out.exists()  # a notebook that would fail when run is not written


def test_notebook_write_reports_an_unreadable_file_as_a_data_error(tmp_path: Path) -> None:
    from cvreport.errors import DataError
    from cvreport.jupyter import notebook

    broken = tmp_path / "broken.csv"
    broken.write_text('a,b\n"unterminated', encoding="utf-8")
    with pytest.raises(DataError, match="cannot read"):
        notebook.write(tmp_path / "a.ipynb", data=broken, formula=FORMULA)
    assert not (tmp_path / "a.ipynb").exists()


def test_per_fold_scores_through_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cvreport.data.table import ResultsTable
    from cvreport.methods import corrected_repeated_kfold_ttest

    rng = np.random.default_rng(0)
    scores = pd.DataFrame(
        [
            (i, j, model, mean + rng.normal(0, 0.02))
            for i in range(1, 4)
            for j in range(1, 6)
            for model, mean in (("A", 0.90), ("B", 0.85))
        ],
        columns=["replication", "fold", "model", "auc"],
    )
    data = tmp_path / "auc.csv"
    scores.to_csv(data, index=False)
    formula = "auc ~ model | replication + fold"
    out = tmp_path / "r.md"
    # without --per-fold the missing record column comes with the hint
    status, _, stderr = run(["report", str(data), "-f", formula, "-o", str(out)], capsys)
    assert status == 1 and "--per-fold" in stderr and stderr.count("\n") == 1
    status, _, stderr = run(
        ["report", str(data), "-f", formula, "-o", str(out), "--per-fold",
         "--test-train-ratio", "0.25"],
        capsys,
    )  # fmt: skip
    assert status == 0, stderr
    table = ResultsTable.from_fold_scores(pd.read_csv(data), score="auc", test_train_ratio=0.25)
    expected = corrected_repeated_kfold_ttest(table, "A", "B")
    text = out.read_text(encoding="utf-8")
    assert format_pvalue(expected.pvalue) in text
    assert "| A | 0." in text and "Mean AUC" in text  # the score as given, not negated
    status, _, stderr = run(
        ["report", str(data), "-f", FORMULA, "-o", str(tmp_path / "x.md"),
         "--test-train-ratio", "0.5"],
        capsys,
    )  # fmt: skip
    # the ratio is taken for per-record tables too (repeated hold-out needs it): the data
    # are refused for the missing per-record columns, not for the ratio
    assert status == 1 and "--test-train-ratio" not in stderr


def test_notebook_takes_the_per_fold_options(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nbformat = pytest.importorskip("nbformat")
    scores = pd.DataFrame(
        [
            (i, j, model, auc)
            for i in (1, 2)
            for j in (1, 2, 3)
            for model, auc in (("A", 0.9), ("B", 0.8 + 0.01 * j))
        ],
        columns=["replication", "fold", "model", "auc"],
    )
    data = tmp_path / "auc.csv"
    scores.to_csv(data, index=False)
    formula = "auc ~ model | replication + fold"
    out = tmp_path / "analysis.ipynb"
    status, stdout, stderr = run(
        ["notebook", str(data), "-f", formula, "-o", str(out), "--per-fold",
         "--direction", "higher", "--test-train-ratio", "0.5"],
        capsys,
    )  # fmt: skip
    assert (status, stderr) == (0, ""), stderr
    assert stdout == f"wrote {out}\n"
    cells = {cell.id: cell.source for cell in nbformat.read(out, as_version=4).cells}
    assert "per_fold=True" in cells["build-table"]
    assert "HIGHER_IS_BETTER = True" in cells["setup"]
    assert "TEST_TRAIN_RATIO = 0.5" in cells["setup"]

    for args, message in [
        ([str(data), "-f", formula], "--per-fold"),  # the record column is missing
        ([str(data), "-f", formula, "--test-train-ratio", "0.5"], "applies to per-fold scores"),
        ([str(data_files["csv"]), "-f", FORMULA, "--test-train-ratio", "0.5"], "--per-fold"),
        (["--example", "--per-fold"], "the example holds per-record losses"),
    ]:
        target = tmp_path / "other.ipynb"
        status, _, stderr = run(["notebook", *args, "-o", str(target)], capsys)
        assert status == 1 and stderr.count("\n") == 1 and message in stderr, (args, stderr)
        assert not target.exists()


def test_complete_tables_as_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The tables a large report summarises are written in full next to it."""
    argv = ["report", "--example", "-o", str(tmp_path / "r.html")]
    argv += ["--pairs-csv", str(tmp_path / "p.csv"), "--audit-csv", str(tmp_path / "a.csv")]
    status, stdout, _ = run(argv, capsys)
    assert status == 0 and stdout.splitlines()[1:] == [
        f"wrote {tmp_path / 'p.csv'}",
        f"wrote {tmp_path / 'a.csv'}",
    ]
    audit = pd.read_csv(tmp_path / "a.csv")
    assert len(audit) == 10 and audit["z"].max() == pytest.approx(9.7504, abs=1e-4)
    pairs = pd.read_csv(tmp_path / "p.csv")
    assert sorted(zip(pairs["model_a"], pairs["model_b"])) == sorted(
        [
            ("logistic_regression", "decision_tree"),
            ("logistic_regression", "naive_bayes"),
            ("decision_tree", "naive_bayes"),
        ]
    )


def test_the_summary_line_counts_one_result_and_one_pair_in_the_singular(
    data_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.md"
    table = pd.read_csv(data_files["csv"])
    first, second = sorted(table["model"].unique())[:2]
    status, stdout, _ = run(
        [
            "report",
            str(data_files["csv"]),
            "-f",
            FORMULA,
            "-o",
            str(out),
            "--tests",
            "corrected_repeated_kfold_ttest",
            "--pairs",
            f"{first}:{second}",
        ],
        capsys,
    )
    assert status == 0
    assert stdout.splitlines()[0] == f"wrote {out} (1 test result on 1 pair)"
