"""``cvreport notebook``: write a ready-to-run analysis notebook of one data set.

Writing notebooks needs nbformat, loaded only when this command runs.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any

from cvreport.cli.checks import CommandError, check_alpha, check_outputs
from cvreport.cli.inputs import (
    add_input_arguments,
    check_data_path,
    check_example,
    example_formula,
    input_formula,
    input_paths,
    is_lazy,
    names_data_sets,
    parse_tests,
    require_data_and_formula,
    score_options,
)
from cvreport.data.formula import with_cluster_term

__all__ = ["add_notebook_command", "run_notebook"]


def add_notebook_command(commands: Any) -> None:
    """Register ``cvreport notebook`` with its options on the ``commands`` subparsers."""
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
    notebook.set_defaults(handler=run_notebook)


def run_notebook(args: argparse.Namespace) -> int:
    """Write the notebook of ``args`` and print its path; returns the exit status."""
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
    # a ratio for per-record losses: notebook.write keeps it for repeated hold-out splits
    per_fold, ratio = score_options(args)
    if args.engine not in (None, "pandas"):
        raise CommandError(
            f"--engine {args.engine}: a notebook reads DATA with pandas; leave out --engine "
            "(cvreport report and cvreport datasets scan files with DuckDB or Polars)"
        )
    if args.example:
        check_example(args)
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
        formula = args.formula or example_formula()
    else:
        formula = require_data_and_formula(args)
        data = str(args.data)
        if is_lazy(args):
            raise CommandError(
                f"a notebook reads one file, not the glob {data!r}; pass one CSV or Parquet file"
            )
        check_data_path(data)  # a FIFO would block the notebook's reader
    if names_data_sets(formula):
        raise CommandError(
            f"the formula {formula!r} names data sets after its last '|', and a notebook "
            "analyses one data set; for many data sets write their report with "
            f"'cvreport datasets DATA -f \"{formula}\" -o report.html', or leave out the last "
            "part and pass the rows of one data set"
        )
    formula = with_cluster_term(input_formula(args, formula), args.cluster)
    tests = parse_tests([args.tests])
    written = notebook.write(
        output,
        data=data,
        formula=formula,
        record=args.record,
        tests=tests,
        alpha=check_alpha(args.alpha),
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
