"""The ``cvreport datasets`` command: the many-data-sets report from one file.

::

    cvreport datasets DATA -f "loss ~ model | replication + fold | dataset" -o OUT
                      [--baseline MODEL] [--alpha A] [--correction holm]
                      [--pairwise-correction auto] [--rope R] [--samples N] [--seed S]
                      [--per-fold] [--higher-is-better|--lower-is-better] [--record COLUMN]
                      [--overwrite] [--example]

OUT ends in .html, .md or .tex. With ``--example`` the bundled ten-task example
(``load_example("multi")``) is used.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_DATASETS_FORMULA", "add_datasets_command"]

DEFAULT_DATASETS_FORMULA = "loss ~ model | replication + fold | dataset"


def add_datasets_command(commands: Any) -> None:
    """Add the ``datasets`` sub-command to the ``cvreport`` parser."""
    parser = commands.add_parser(
        "datasets",
        help="compare models over many data sets (results table, Friedman, CD diagram)",
        description=(
            "Per data set the test its design calls for; across data sets the Friedman test, "
            "Nemenyi's critical difference, Wilcoxon and Bayesian signed-rank tests."
        ),
    )
    parser.add_argument("data", nargs="?", metavar="DATA", help="CSV or Parquet file")
    parser.add_argument(
        "-f",
        "--formula",
        metavar="FORMULA",
        help=f"columns and their parts, the data set last, e.g. '{DEFAULT_DATASETS_FORMULA}'",
    )
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help=".html, .md or .tex")
    parser.add_argument(
        "--baseline", metavar="MODEL", help="the proposed model (default: all pairs)"
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    parser.add_argument(
        "--correction", default="holm", help="correction within a data set (holm; none)"
    )
    parser.add_argument(
        "--pairwise-correction",
        default="auto",
        help="correction of the Wilcoxon tests (auto, bergmann-hommel, holm, none)",
    )
    parser.add_argument("--rope", type=float, default=0.01, help="rope of the Bayesian test")
    parser.add_argument(
        "--samples",
        type=int,
        default=None,
        help="Bayesian draws per pair (default 50000, fewer for many pairs × data sets)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the Bayesian draws (0)")
    parser.add_argument("--title", help="the report's heading")
    parser.add_argument("--record", default="record", metavar="COLUMN", help="record column")
    parser.add_argument(
        "--per-fold", action="store_true", help="the left side is one score per fold"
    )
    direction = parser.add_mutually_exclusive_group()
    direction.add_argument(
        "--higher-is-better", dest="direction", action="store_const", const="higher"
    )
    direction.add_argument(
        "--lower-is-better", dest="direction", action="store_const", const="lower"
    )
    parser.add_argument(
        "--example", action="store_true", help="use the bundled ten-task example instead of DATA"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    parser.set_defaults(handler=run_datasets)


def run_datasets(args: argparse.Namespace) -> int:
    """Write the many-data-sets report."""
    from cvreport.cli_checks import CommandError
    from cvreport.cli_checks import check_alpha as _check_alpha
    from cvreport.cli_checks import check_output as _check_output
    from cvreport.data.io import read_results as read_data
    from cvreport.reporting.multi_report import DatasetsReport

    output = Path(args.output)
    if output.suffix.lower() not in (".html", ".htm", ".md", ".tex"):
        raise CommandError(f"name the report .html, .md or .tex, got {str(output)!r}")
    _check_output(output, overwrite=args.overwrite)
    if args.example:
        from cvreport.data.examples import load_example

        frame = load_example("multi")
        formula = args.formula or DEFAULT_DATASETS_FORMULA
    else:
        if args.data is None or args.formula is None:
            raise CommandError(
                f"give DATA and -f FORMULA (e.g. -f '{DEFAULT_DATASETS_FORMULA}'), or --example"
            )
        frame = read_data(args.data)
        formula = args.formula
    report = DatasetsReport(
        formula,
        data=frame,
        baseline=args.baseline,
        alpha=_check_alpha(args.alpha),
        correction=None if args.correction == "none" else args.correction,
        pairwise_correction=args.pairwise_correction,
        rope=args.rope,
        n_samples=args.samples,
        seed=args.seed,
        title=args.title,
        per_fold=args.per_fold,
        record=args.record,
        direction=args.direction,
    )
    written = report.save(output, overwrite=args.overwrite)
    result = report.analysis
    print(f"wrote {written} ({len(result.models)} models on {len(result.datasets)} data sets)")
    return 0
