"""The ``cvreport`` command line: reports and analysis notebooks from cross-validation results.

::

    cvreport report DATA -f FORMULA -o OUT [--format html|md|tex]
                    [--tests recommended|all|NAMES] [--alpha A] [--pairs A:B ...]
                    [--correction holm] [--pairs-csv FILE] [--audit-csv FILE]
                    [INPUT FLAGS] [--overwrite]
    cvreport notebook DATA -f FORMULA -o analysis.ipynb [INPUT FLAGS] [--overwrite]
    cvreport datasets DATA -f FORMULA -o OUT [INPUT FLAGS] [--overwrite]

    INPUT FLAGS (the same for every command, :mod:`cvreport.cli_inputs`):
        [--sep CHAR] [--record COLUMN] [--example [NAME]] [--engine pandas|duckdb|polars]
        [--metric NAME (--prediction COLUMN | --score COLUMNS) [--truth COLUMN]]
        [--cluster COLUMN] [--direction lower|higher] [--per-fold [--test-train-ratio R]]

DATA is a CSV or Parquet file in long format: one row per replication, fold,
model and record holding a loss, or a prediction (with ``--metric``), or one
row per replication, fold and model holding a score (with ``--per-fold``). With
``--example`` the bundled example data is used and DATA and ``-f`` may be left
out. Every output path is checked before anything is read or written
(:func:`cvreport.cli_checks.check_outputs`) and the outputs are written all or
nothing. Bad input (a malformed formula, a missing column, an unreadable or
unwritable path) ends with exit status 1 and one line on standard error, never
a traceback (``--debug`` shows it).

Examples
--------
>>> main(["report", "--example", "-o", "report.html"])   # doctest: +SKIP
0
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvreport._version import __version__
from cvreport.cli_checks import CommandError, check_outputs
from cvreport.cli_checks import check_alpha as _check_alpha
from cvreport.cli_datasets import add_datasets_command
from cvreport.cli_inputs import (
    add_input_arguments,
    check_data_path,
    input_formula,
    input_paths,
    is_lazy,
    load_table,
    read_data,
    require_data_and_formula,
    score_options,
)
from cvreport.cli_plan import add_plan_command
from cvreport.data import examples
from cvreport.data.datasets import split_dataset_term
from cvreport.data.examples import EXAMPLES, load_example
from cvreport.data.formula import DEFAULT_FORMULA, with_cluster_term
from cvreport.data.io import data_format
from cvreport.data.table import ResultsTable
from cvreport.errors import DataError, FormulaError, UnusedOptionsWarning
from cvreport.rendering.csv_export import csv_text
from cvreport.rendering.writer import write_texts
from cvreport.reporting.report import FORMATS, Report

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["build_parser", "main", "read_data"]

PROG = "cvreport"
_FORMAT_SUFFIX = {"html": ".html", "md": ".md", "tex": ".tex"}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cvreport`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Compare classifiers from cross-validation results already collected: every "
            "test the literature recommends for the design, an audit of the partitions, "
            "and a report in HTML, Markdown or LaTeX."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    report = commands.add_parser(
        "report",
        help="write a report (HTML, Markdown or LaTeX)",
        description="Run the tests that fit the design and write the report.",
    )
    add_input_arguments(report)
    report.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="report file (.html, .md or .tex)"
    )
    report.add_argument(
        "--format",
        choices=sorted(_FORMAT_SUFFIX),
        help="output format (default: from the suffix of OUT)",
    )
    report.add_argument(
        "--tests",
        action="append",
        metavar="recommended|all|NAMES",
        help="'recommended' (default), 'all', or test names separated by commas",
    )
    report.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    report.add_argument(
        "--pairs",
        nargs="+",
        action="extend",
        metavar="A:B",
        help="pairs of models to compare, as A:B (default: every pair)",
    )
    report.add_argument(
        "--correction",
        default="holm",
        help="multiplicity correction across pairs (statsmodels multipletests method, or none)",
    )
    report.add_argument(
        "--rope",
        type=float,
        metavar="W",
        help="half-width of the region of practical equivalence for the Bayesian test, in the "
        "metric's units (default 0.01, Benavoli et al. 2017's 1%% for accuracy)",
    )
    report.add_argument("--title", help="the report's heading")
    report.add_argument(
        "--pairs-csv",
        metavar="FILE",
        help="also write every pair of models (tests, p-values) as CSV; with many models the "
        "report itself shows an overview",
    )
    report.add_argument(
        "--audit-csv",
        metavar="FILE",
        help="also write the overlap audit of every pair of replications as CSV",
    )
    report.add_argument(
        "--stars", action="store_true", help="LaTeX: mark p-values with stars and add a legend"
    )
    report.add_argument(
        "--overwrite", action="store_true", help="replace OUT (and the CSV files) if they exist"
    )
    report.set_defaults(handler=_run_report)

    notebook = commands.add_parser(
        "notebook",
        help="write a ready-to-run analysis notebook (.ipynb)",
        description="Write a Jupyter notebook that loads DATA, audits, tests and reports.",
    )
    add_input_arguments(notebook, examples="'random' 5×2 CV")
    notebook.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="notebook file (.ipynb)"
    )
    notebook.add_argument(
        "--tests",
        default="recommended",
        metavar="recommended|all|NAMES",
        help="tests the notebook runs: 'recommended' (default), 'all', or test names "
        "separated by commas",
    )
    notebook.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    notebook.add_argument(
        "--correction",
        default="holm",
        help="multiplicity correction across pairs (statsmodels multipletests method, or none)",
    )
    notebook.add_argument("--title", help="the notebook's heading")
    notebook.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    notebook.set_defaults(handler=_run_notebook)

    add_datasets_command(commands)
    add_plan_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 on success, 1 on bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    shown = warnings.formatwarning
    if not args.debug:  # a warning reads as the errors do, without this file's path and line
        warnings.formatwarning = _format_warning
    try:
        status: int = args.handler(args)
        return status
    except KeyboardInterrupt:  # pragma: no cover - interactive
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    finally:
        warnings.formatwarning = shown


def _format_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """``cvreport: warning: ...`` on one line, as the command's errors read."""
    text = " ".join(str(message).split()) or category.__name__
    return f"{PROG}: warning: {text}\n"


# -- report ------------------------------------------------------------------
def _run_report(args: argparse.Namespace) -> int:
    output = Path(args.output)
    fmt = args.format
    if fmt is None and output.suffix.lower() not in FORMATS:
        raise CommandError(
            f"cannot tell the report format from {str(output)!r}: name it .html, .md or .tex, "
            "or pass --format html|md|tex"
        )
    kind = fmt or FORMATS[output.suffix.lower()]
    options: dict[str, Any] = {}
    if args.stars:
        if kind not in ("tex", "latex"):
            raise CommandError("--stars applies to LaTeX output (.tex or --format tex) only")
        options["stars"] = True
    check_outputs(
        {"-o": output, "--pairs-csv": _path(args.pairs_csv), "--audit-csv": _path(args.audit_csv)},
        overwrite=args.overwrite,
        inputs=input_paths(args),
    )
    rope = _check_rope(args.rope)
    alpha = _check_alpha(args.alpha)
    tests = _parse_tests(args.tests)
    table = _load_table(args)
    with warnings.catch_warnings():
        # the note after the report says what --rope did when the Bayesian test does not run
        warnings.simplefilter("ignore", UnusedOptionsWarning)
        report = Report(
            table,
            pairs=_parse_pairs(args.pairs, table.models) if args.pairs else None,
            tests=tests,
            alpha=alpha,
            correction=args.correction,
            title=args.title,
            test_options=(
                {"bayesian_correlated_ttest": {"rope": rope}} if rope is not None else None
            ),
        )
    files = [(output, report.render(kind, **options)), *_tables(report, args)]

    written = write_texts(files, overwrite=args.overwrite)
    pairs = len(report.comparisons)
    n_results = len(report.results)
    summary = (
        f"{n_results} test result{'s' if n_results != 1 else ''} "
        f"on {pairs} pair{'s' if pairs != 1 else ''}"
    )
    print(f"wrote {written[0]} ({summary})")
    for path in written[1:]:
        print(f"wrote {path}")
    if rope is not None and "bayesian_correlated_ttest" not in report.test_names:
        print(
            f"{PROG}: note: --rope applies to the Bayesian correlated t test, which this report "
            "does not run (add --tests all or --tests bayesian_correlated_ttest)",
            file=sys.stderr,
        )
    if report.skipped:
        names = sorted({s.name for s in report.skipped})
        print(
            f"{PROG}: note: {', '.join(names)} could not run on this design; the report says why",
            file=sys.stderr,
        )
    return 0


def _path(value: str | None) -> Path | None:
    return None if value is None else Path(value)


def _tables(report: Any, args: argparse.Namespace) -> list[tuple[Path, str]]:
    """The complete tables behind a report's summaries, as CSV text safe for spreadsheets."""
    tables = []
    if args.pairs_csv:
        frame = report.overview if report.overview is not None else report.to_frame()
        tables.append((Path(args.pairs_csv), csv_text(frame)))
    if args.audit_csv:
        if report.audit is None:
            why = report.audit_note or "it needs per-record losses of an m×2 or K-fold design"
            raise CommandError(
                f"--audit-csv: this report has no overlap audit ({why}); nothing was written"
            )
        tables.append((Path(args.audit_csv), csv_text(report.audit.pairs)))
    return tables


def _run_notebook(args: argparse.Namespace) -> int:
    import importlib

    try:
        # optional: writing notebooks needs nbformat, loaded only for this command
        notebook = importlib.import_module("cvreport.jupyter.notebook")
    except ImportError as exc:
        if exc.name not in ("cvreport.jupyter.notebook", "nbformat"):
            raise
        raise CommandError(
            "writing notebooks needs cvreport.jupyter.notebook and nbformat, which are not available "
            f"in this installation ({exc}); reinstall cvreport"
        ) from exc
    output = Path(args.output)
    check_outputs({"-o": output}, overwrite=args.overwrite, inputs=input_paths(args))
    per_fold, ratio = score_options(args)
    if args.engine not in (None, "pandas"):
        raise CommandError(
            f"--engine {args.engine}: a notebook reads DATA with pandas; leave out --engine "
            "(cvreport report and cvreport datasets scan files with DuckDB or Polars)"
        )
    if args.example:
        _check_example(args)
        if per_fold:
            raise CommandError(
                "the example holds per-record losses, not per-fold scores; leave out --per-fold "
                "or pass your file of scores as DATA"
            )
        if args.example != "random":
            raise CommandError(
                "notebooks use the 'random' example; for another data set pass its file as DATA"
            )
        data: str = "example"
        formula = args.formula or _example_formula()
    else:
        formula = require_data_and_formula(args)
        data = str(args.data)
        if is_lazy(args):
            raise CommandError(
                f"a notebook reads one file, not the glob {data!r}; pass one CSV or Parquet file"
            )
        check_data_path(data)  # a FIFO would block the notebook's reader
    if _names_data_sets(formula):
        raise CommandError(
            f"the formula {formula!r} names data sets after its last '|', and a notebook "
            "analyses one data set; for many data sets write their report with "
            f"'cvreport datasets DATA -f \"{formula}\" -o report.html', or leave out the last "
            "part and pass the rows of one data set"
        )
    formula = with_cluster_term(input_formula(args, formula), args.cluster)
    tests = _parse_tests([args.tests])
    written = notebook.write(
        output,
        data=data,
        formula=formula,
        record=args.record,
        tests=tests,
        alpha=_check_alpha(args.alpha),
        correction=args.correction,
        title=args.title,
        overwrite=args.overwrite,
        per_fold=per_fold,
        higher_is_better=None if args.direction is None else args.direction == "higher",
        test_train_ratio=ratio,
        sep=args.sep,
    )
    print(f"wrote {written}")
    return 0


# -- helpers -----------------------------------------------------------------
def _names_data_sets(formula: str) -> bool:
    """Whether ``formula`` has a third part (``… | replication + fold | dataset``)."""
    try:
        inner = split_dataset_term(formula).inner
    except FormulaError:
        return False
    # a '|' left outside braces splits the rest again: three parts in all
    return "|" in re.sub(r"\{[^}]*\}", "", inner)


def _load_table(args: argparse.Namespace) -> ResultsTable:
    if args.example:
        _check_example(args)
        formula = input_formula(args) if args.formula else None
        return _example_table(args.example, formula, args.record)
    return load_table(args)


def _looks_like_data(name: str) -> bool:
    try:
        data_format(name)
    except DataError:
        return False
    return True


def _check_example(args: argparse.Namespace) -> None:
    if args.data or _looks_like_data(args.example):
        raise CommandError("pass either DATA or --example, not both")
    if args.example not in EXAMPLES:
        raise CommandError(
            f"unknown example {args.example!r}; the examples are {', '.join(EXAMPLES)}"
        )


def _example_formula() -> str:
    return str(getattr(examples, "FORMULA", DEFAULT_FORMULA))


def _example_table(name: str, formula: str | None, record: str) -> ResultsTable:
    """A bundled example; with its predictions when it has them, for per-model metrics."""
    frame = load_example(name)
    if formula:
        return ResultsTable.from_formula(formula, frame, record=record)
    if {"truth", "prediction"} <= set(frame.columns):
        return ResultsTable.from_predictions(
            frame, truth="truth", prediction="prediction", record=record
        )
    return ResultsTable.from_formula(_example_formula(), frame, record=record)


def _check_rope(rope: float | None) -> float | None:
    if rope is not None and not (math.isfinite(rope) and rope >= 0):
        raise CommandError(
            f"--rope must be a non-negative half-width in the metric's units (e.g. 0.01), "
            f"got {rope:g}"
        )
    return rope


def _parse_tests(values: Sequence[str] | None) -> str | list[str]:
    if not values:
        return "recommended"
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    if names in (["recommended"], ["all"]):
        return names[0]
    if "recommended" in names or "all" in names:
        raise CommandError("--tests takes 'recommended', 'all' or test names, not a mix")
    if not names:
        raise CommandError("--tests is empty; pass 'recommended', 'all' or test names")
    return names


def _check_repeated_pair(value: str, pair: tuple[Any, Any], earlier: list[tuple[Any, Any]]) -> None:
    """Refuse ``A:B`` given twice (``B:A`` after ``A:B`` is refused by the report itself)."""
    if pair in earlier:
        raise CommandError(
            f"--pairs {value} is given twice; name each pair once (a repeated pair would be "
            "counted twice in the multiplicity correction), or check whether another pair "
            "was meant"
        )


def _parse_pairs(values: Sequence[str], models: Sequence[Any]) -> list[tuple[str, str]]:
    """Split each ``A:B``; a model name may itself contain ':' if the split is unambiguous."""
    known = [str(m) for m in models]
    by_text = {str(m): m for m in models}
    pairs = []
    for value in values:
        splits = [
            (value[:i], value[i + 1 :])
            for i, ch in enumerate(value)
            if ch == ":" and value[:i] in by_text and value[i + 1 :] in by_text
        ]
        if len(splits) == 1:
            a, b = splits[0]
            _check_repeated_pair(value, (by_text[a], by_text[b]), pairs)
            pairs.append((by_text[a], by_text[b]))
            continue
        if ":" not in value:
            raise CommandError(f"--pairs takes A:B (two model names joined by ':'), got {value!r}")
        if len(splits) > 1:
            raise CommandError(f"--pairs {value!r} can be split into models in several ways")
        a, _, b = value.partition(":")
        unknown = [x for x in (a, b) if x not in by_text]
        shown = ", ".join(repr(k) for k in known[:8])
        raise CommandError(
            f"--pairs {value!r}: unknown model {unknown[0]!r}; the models are {shown}"
        )
    return pairs


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
