"""``cvreport report``: run the tests that fit the design and write the report.

The report (HTML, Markdown or LaTeX) and, on request, its complete tables as CSV
(``--pairs-csv``, ``--audit-csv``); every output is checked before anything is
read and written all or nothing.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cvreport.cli.checks import CommandError, check_alpha, check_outputs
from cvreport.cli.inputs import PROG, add_input_arguments, input_paths, parse_tests, table_from_args
from cvreport.errors import CVReportError, UnusedOptionsWarning
from cvreport.rendering.csv_export import csv_text
from cvreport.rendering.writer import write_texts
from cvreport.reporting.report import FORMATS, Report, report_format

__all__ = ["add_report_command", "run_report"]

_FORMAT_SUFFIX = {"html": ".html", "md": ".md", "tex": ".tex"}


def add_report_command(commands: Any) -> None:
    """Register ``cvreport report`` with its options on the ``commands`` subparsers."""
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
    report.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    """Write the report of ``args`` and print what was written; returns the exit status."""
    output = Path(args.output)
    fmt = args.format
    if fmt is None and output.suffix.lower() not in FORMATS:
        raise CommandError(
            f"cannot tell the report format from {str(output)!r}: name it .html, .md or .tex, "
            "or pass --format html|md|tex"
        )
    try:
        kind = report_format(output, fmt, flag="--format ")
    except CVReportError as error:
        raise CommandError(str(error)) from None
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
    alpha = check_alpha(args.alpha)
    tests = parse_tests(args.tests)
    table = table_from_args(args)
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
            why = why.rstrip(". ")
            raise CommandError(
                f"--audit-csv: this report has no overlap audit: {why[:1].lower()}{why[1:]}; "
                "nothing was written (leave out --audit-csv)"
            )
        tables.append((Path(args.audit_csv), csv_text(report.audit.pairs)))
    return tables


def _check_rope(rope: float | None) -> float | None:
    if rope is not None and not (math.isfinite(rope) and rope >= 0):
        raise CommandError(
            f"--rope must be a non-negative half-width in the metric's units (e.g. 0.01), "
            f"got {rope:g}"
        )
    return rope


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
