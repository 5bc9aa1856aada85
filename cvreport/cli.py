"""The ``cvreport`` command line: reports and analysis notebooks from a file of CV losses.

::

    cvreport report DATA -f FORMULA -o OUT [--format html|md|tex]
                    [--tests recommended|all|NAMES] [--alpha A] [--pairs A:B ...]
                    [--correction holm] [--record COLUMN] [--overwrite] [--example]
                    [--per-fold [--test-train-ratio R]] [--direction lower|higher]
                    [--metric NAME (--prediction COLUMN | --score COLUMNS)] [--cluster COLUMN]
    cvreport notebook DATA -f FORMULA -o analysis.ipynb [--overwrite] [--example]
                    [--per-fold [--test-train-ratio R]] [--direction lower|higher]

DATA is a CSV or Parquet file in long format (one row per replication, fold,
model and record). With ``--example`` the bundled example data is used and
DATA and ``-f`` may be left out. Bad input (a malformed formula, a missing
column, an unreadable or unwritable path) ends with exit status 1 and one line
on standard error, never a traceback (``--debug`` shows it).

Examples
--------
>>> main(["report", "--example", "-o", "report.html"])   # doctest: +SKIP
0
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvreport.cli_checks import CommandError
from cvreport.cli_checks import check_alpha as _check_alpha
from cvreport.cli_checks import check_output as _check_output
from cvreport.data.formula import DEFAULT_FORMULA
from cvreport.errors import DataError

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable

__all__ = ["build_parser", "main"]

PROG = "cvreport"
_READERS = {".csv": "read_csv", ".parquet": "read_parquet", ".pq": "read_parquet"}
_FORMAT_SUFFIX = {"html": ".html", "md": ".md", "tex": ".tex"}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cvreport`` command."""
    from cvreport import __version__

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
    _add_data_arguments(report)
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
    _add_score_arguments(report)
    report.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    report.set_defaults(handler=_run_report)

    notebook = commands.add_parser(
        "notebook",
        help="write a ready-to-run analysis notebook (.ipynb)",
        description="Write a Jupyter notebook that loads DATA, audits, tests and reports.",
    )
    _add_data_arguments(notebook)
    notebook.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="notebook file (.ipynb)"
    )
    notebook.add_argument("--tests", default="recommended", help="tests the notebook runs")
    notebook.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    notebook.add_argument("--correction", default="holm", help="multiplicity correction")
    notebook.add_argument("--title", help="the notebook's heading")
    _add_score_arguments(notebook)
    notebook.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    notebook.set_defaults(handler=_run_notebook)
    from cvreport.cli_datasets import add_datasets_command
    from cvreport.cli_plan import add_plan_command

    add_datasets_command(commands)
    add_plan_command(commands)
    return parser


def _add_score_arguments(parser: argparse.ArgumentParser) -> None:
    """--per-fold, --direction and --test-train-ratio."""
    scores = parser.add_argument_group(
        "per-fold scores",
        "when DATA holds one score per replication, fold and model (e.g. an AUC) "
        "instead of per-record losses",
    )
    scores.add_argument(
        "--per-fold",
        action="store_true",
        help="the formula's left side is one score per fold (no record column needed)",
    )
    direction = parser.add_mutually_exclusive_group()
    direction.add_argument(
        "--direction",
        choices=("lower", "higher"),
        help="which way is better for the formula's left side: 'lower' for a loss (error "
        "rate, log loss), 'higher' for a score (accuracy, AUC). Default: read from the "
        "column's name (accuracy, auc, f1, … are scores; error, loss, … losses), else a loss; "
        "the same for per-record and per-fold values",
    )
    # the former flags, kept working
    direction.add_argument(
        "--higher-is-better",
        dest="direction",
        action="store_const",
        const="higher",
        help=argparse.SUPPRESS,
    )
    direction.add_argument(
        "--lower-is-better",
        dest="direction",
        action="store_const",
        const="lower",
        help=argparse.SUPPRESS,
    )
    scores.add_argument(
        "--test-train-ratio",
        type=float,
        metavar="R",
        help="validation size / training size, for per-fold scores (e.g. 0.111 for 10-fold CV)",
    )


def _add_data_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "data",
        nargs="?",
        metavar="DATA",
        help="CSV (also .csv.gz, .csv.bz2, ...) or Parquet file of losses",
    )
    parser.add_argument(
        "--sep",
        metavar="CHAR",
        help="field separator of a CSV file (',' by default; e.g. ';')",
    )
    parser.add_argument(
        "-f",
        "--formula",
        metavar="FORMULA",
        help=f"which columns play which part, e.g. '{DEFAULT_FORMULA}'",
    )
    parser.add_argument(
        "--record", default="record", metavar="COLUMN", help="column naming the record ('record')"
    )
    parser.add_argument(
        "--example",
        nargs="?",
        const="random",
        metavar="NAME",
        help="use a bundled example instead of DATA ('random' 5×2 CV, default, or 'bcv' "
        "block-regularized 5×2 CV); DATA and -f may then be left out",
    )
    parser.add_argument(
        "--engine",
        choices=("pandas", "duckdb", "polars"),
        default=None,
        help="where the statistics are computed: 'pandas' reads DATA into memory (the "
        "default for one file); 'duckdb' or 'polars' scan the file(s) lazily with bounded "
        "memory (DATA may then be a glob such as 'results/*.parquet', scanned by DuckDB "
        "unless 'polars' is named)",
    )
    metric = parser.add_argument_group(
        "metrics from predictions",
        "with --metric the formula's left side names the truth column, e.g. "
        "-f 'y ~ model | replication + fold' --metric roc_auc --score p",
    )
    metric.add_argument(
        "--metric",
        metavar="NAME",
        help="a sklearn metric computed from predictions (roc_auc, f1_macro, "
        "matthews_corrcoef, log_loss, ...)",
    )
    metric.add_argument("--prediction", metavar="COLUMN", help="column of predicted labels")
    metric.add_argument(
        "--score", metavar="COLUMNS", help="score column(s) of the metric, comma-separated"
    )
    metric.add_argument("--cluster", metavar="COLUMN", help="column of clusters of records")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def _metric_formula(formula: str, args: argparse.Namespace) -> str:
    """``y ~ rest`` with --metric NAME --score p → ``NAME(y, p) ~ rest``."""
    metric = getattr(args, "metric", None)
    if not metric:
        return formula
    columns = getattr(args, "score", None) or getattr(args, "prediction", None)
    if not columns or "~" not in formula:
        raise CommandError(
            "--metric needs the truth on the formula's left side (-f 'y ~ model | fold') and "
            "--prediction COLUMN or --score COLUMN[,COLUMN...]"
        )
    truth, rest = formula.split("~", 1)
    joined = " + ".join(c.strip() for c in columns.split(","))
    return f"{metric}({truth.strip()}, {joined}) ~{rest}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 on success, 1 on bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
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


# -- report ------------------------------------------------------------------
def _run_report(args: argparse.Namespace) -> int:
    from cvreport.reporting.report import FORMATS, Report

    output = Path(args.output)
    fmt = args.format
    if fmt is None and output.suffix.lower() not in FORMATS:
        raise CommandError(
            f"cannot tell the report format from {str(output)!r}: name it .html, .md or .tex, "
            "or pass --format html|md|tex"
        )
    _check_output(output, overwrite=args.overwrite)
    rope = _check_rope(args.rope)
    table = _load_table(args)
    report = Report(
        table,
        pairs=_parse_pairs(args.pairs, table.models) if args.pairs else None,
        tests=_parse_tests(args.tests),
        alpha=_check_alpha(args.alpha),
        correction=args.correction,
        title=args.title,
        test_options=({"bayesian_correlated_ttest": {"rope": rope}} if rope is not None else None),
    )
    options: dict[str, Any] = {}
    if args.stars:
        if (fmt or output.suffix.lower().lstrip(".")) not in ("tex", "latex"):
            raise CommandError("--stars applies to LaTeX output (.tex or --format tex) only")
        options["stars"] = True
    written = report.save(output, overwrite=args.overwrite, format=fmt, **options)
    pairs = len(report.comparisons)
    summary = f"{len(report.results)} test results on {pairs} pair{'s' if pairs != 1 else ''}"
    print(f"wrote {written} ({summary})")
    for path in _write_tables(report, args):
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


def _write_tables(report: Any, args: argparse.Namespace) -> list[Path]:
    """The complete tables behind a report's summaries, as CSV files."""
    from cvreport.rendering.writer import write_text

    written = []
    if args.pairs_csv:
        frame = report.overview if report.overview is not None else report.to_frame()
        written.append(
            write_text(args.pairs_csv, frame.to_csv(index=False), overwrite=args.overwrite)
        )
    if args.audit_csv:
        if report.audit is None:
            why = report.audit_note or "it needs per-record losses of an m×2 or K-fold design"
            raise CommandError(f"--audit-csv: this report has no overlap audit ({why})")
        written.append(
            write_text(
                args.audit_csv, report.audit.pairs.to_csv(index=False), overwrite=args.overwrite
            )
        )
    return written


def _run_notebook(args: argparse.Namespace) -> int:
    import importlib

    try:
        notebook = importlib.import_module("cvreport.jupyter.notebook")
    except ImportError as exc:
        if exc.name not in ("cvreport.jupyter.notebook", "nbformat"):
            raise
        raise CommandError(
            "writing notebooks needs cvreport.jupyter.notebook and nbformat, which are not available "
            f"in this installation ({exc}); reinstall cvreport"
        ) from exc
    output = Path(args.output)
    _check_output(output, overwrite=args.overwrite)
    per_fold, ratio = _score_options(args)
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
        data, formula = _require_data_and_formula(args)
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
def _require_data_and_formula(args: argparse.Namespace) -> tuple[str, str]:
    if not args.data:
        raise CommandError("no DATA given: pass a CSV or Parquet file, or --example")
    if not args.formula:
        raise CommandError(
            f"no formula given: pass -f, e.g. -f '{DEFAULT_FORMULA}' (column names of your data)"
        )
    return str(args.data), str(args.formula)


def _load_table(args: argparse.Namespace) -> ResultsTable:
    from cvreport.data.table import ResultsTable

    if args.example:
        _check_example(args)
        return _example_table(args.example, args.formula, args.record)
    path, formula = _require_data_and_formula(args)
    engine = getattr(args, "engine", None)
    lazily = engine in ("duckdb", "polars") or any(c in path for c in "*?[")
    frame = path if lazily else read_data(path, sep=args.sep)  # a path is scanned where it lies
    per_fold, ratio = _score_options(args)
    return ResultsTable.from_formula(
        _metric_formula(formula, args),
        frame,
        record=args.record,
        per_fold=per_fold,
        direction=getattr(args, "direction", None),
        test_train_ratio=ratio,
        engine=engine if lazily else None,
        cluster=getattr(args, "cluster", None),
    )


def _score_options(args: argparse.Namespace) -> tuple[bool, float | None]:
    """``--per-fold`` and ``--test-train-ratio``, checked together."""
    per_fold = bool(getattr(args, "per_fold", False))
    ratio = getattr(args, "test_train_ratio", None)
    if ratio is not None and not per_fold:
        raise CommandError(
            "--test-train-ratio applies to per-fold scores (--per-fold); per-record tables "
            "know their fold sizes"
        )
    return per_fold, ratio


def _looks_like_data(name: str) -> bool:
    from cvreport.data.io import data_format

    try:
        data_format(name)
    except DataError:
        return False
    return True


def _check_example(args: argparse.Namespace) -> None:
    from cvreport.data.examples import EXAMPLES

    if args.data or _looks_like_data(args.example):
        raise CommandError("pass either DATA or --example, not both")
    if args.example not in EXAMPLES:
        raise CommandError(
            f"unknown example {args.example!r}; the examples are {', '.join(EXAMPLES)}"
        )


def _example_formula() -> str:
    from cvreport.data import examples

    return str(getattr(examples, "FORMULA", DEFAULT_FORMULA))


def _example_table(name: str, formula: str | None, record: str) -> ResultsTable:
    """A bundled example; with its predictions when it has them, for per-model metrics."""
    from cvreport.data.examples import load_example
    from cvreport.data.table import ResultsTable

    frame = load_example(name)
    if formula:
        return ResultsTable.from_formula(formula, frame, record=record)
    if {"truth", "prediction"} <= set(frame.columns):
        return ResultsTable.from_predictions(
            frame, truth="truth", prediction="prediction", record=record
        )
    return ResultsTable.from_formula(_example_formula(), frame, record=record)


def read_data(path: str | Path, sep: str | None = None) -> pd.DataFrame:
    """Read a CSV or Parquet file of losses (:func:`cvreport.data.io.read_results`)."""
    from cvreport.data.io import read_results

    return read_results(path, sep=sep)


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
