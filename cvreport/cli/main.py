"""The ``cvreport`` command: its parser and the one way a command's error ends.

::

    cvreport report DATA -f FORMULA -o OUT [--format html|md|tex]
                    [--tests recommended|all|NAMES] [--alpha A] [--pairs A:B ...]
                    [--correction holm] [--pairs-csv FILE] [--audit-csv FILE]
                    [INPUT FLAGS] [--overwrite]
    cvreport notebook DATA -f FORMULA -o analysis.ipynb [INPUT FLAGS] [--overwrite]
    cvreport datasets DATA -f FORMULA -o OUT [INPUT FLAGS] [--overwrite]

    INPUT FLAGS (the same for every command, :mod:`cvreport.cli.inputs`):
        [--sep CHAR] [--record COLUMN] [--example [NAME]] [--engine pandas|duckdb|polars]
        [--metric NAME (--prediction COLUMN | --score COLUMNS) [--truth COLUMN]]
        [--cluster COLUMN] [--direction lower|higher] [--per-fold] [--test-train-ratio R]

DATA is a CSV or Parquet file in long format: one row per replication, fold,
model and record holding a loss, or a prediction (with ``--metric``), or one
row per replication, fold and model holding a score (with ``--per-fold``). With
``--example`` the bundled example data is used and DATA and ``-f`` may be left
out. Every output path is checked before anything is read or written
(:func:`cvreport.cli.checks.check_outputs`) and the outputs are written all or
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
import sys
import warnings
from collections.abc import Sequence

from cvreport._version import __version__
from cvreport.cli.datasets import add_datasets_command
from cvreport.cli.inputs import PROG, CommandParser
from cvreport.cli.notebook import add_notebook_command
from cvreport.cli.plan import add_plan_command
from cvreport.cli.report import add_report_command
from cvreport.spelling import command_line

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cvreport`` command."""
    parser = CommandParser(
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

    add_report_command(commands)
    add_notebook_command(commands)
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
        with command_line():  # messages name the flags (--per-fold), not the keywords
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


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
