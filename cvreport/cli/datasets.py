"""The ``cvreport datasets`` command: the many-data-sets report from one file.

::

    cvreport datasets DATA -f "loss ~ model | replication + fold | dataset" -o OUT
                      [--baseline MODEL] [--alpha A] [--correction holm]
                      [--pairwise-correction auto] [--rope R] [--samples N] [--seed S]
                      [INPUT FLAGS] [--overwrite]

The input flags are those of ``cvreport report`` (:mod:`cvreport.cli.inputs`):
``--metric roc_auc --score p`` with ``-f "y ~ model | replication + fold | dataset"``
computes the AUC of every fold of every data set from the predictions. OUT ends
in .html, .md or .tex. With ``--example`` the bundled ten-task example
(``load_example("multi")``) is used.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from cvreport.cli.checks import CommandError, check_alpha, check_outputs
from cvreport.cli.inputs import (
    DEFAULT_DATASETS_FORMULA,
    add_input_arguments,
    input_paths,
    load_datasets_table,
)
from cvreport.multi.pairwise import BERGMANN_HOMMEL_MAX_MODELS
from cvreport.rendering.writer import write_texts
from cvreport.reporting.multi_report import DatasetsReport

__all__ = ["DEFAULT_DATASETS_FORMULA", "add_datasets_command", "run_datasets"]


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
    add_input_arguments(
        parser,
        default_formula=DEFAULT_DATASETS_FORMULA,
        examples="'multi': five models on ten tasks",
        default_example="multi",
    )
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help=".html, .md or .tex")
    parser.add_argument(
        "--baseline", metavar="MODEL", help="the proposed model (default: all pairs)"
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    parser.add_argument(
        "--correction",
        default="holm",
        help="multiplicity correction of the tests within a data set (statsmodels "
        "multipletests method such as holm, or none)",
    )
    parser.add_argument(
        "--pairwise-correction",
        default="auto",
        help="multiplicity correction of the Wilcoxon tests across data sets: auto (the "
        f"default: Bergmann and Hommel's for every pair of at most {BERGMANN_HOMMEL_MAX_MODELS} "
        "models, else Holm's), "
        "bergmann-hommel, holm, or none",
    )
    parser.add_argument(
        "--rope",
        type=float,
        default=0.01,
        metavar="W",
        help="half-width of the region of practical equivalence of the Bayesian signed-rank "
        "test, in the metric's units (0.01)",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=None,
        help="Bayesian draws per pair (default 50000, fewer for many pairs × data sets)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the Bayesian draws (0)")
    parser.add_argument("--title", help="the report's heading")
    parser.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    parser.set_defaults(handler=run_datasets)


def run_datasets(args: argparse.Namespace) -> int:
    """Write the many-data-sets report."""
    output = Path(args.output)
    kinds = {".html": "to_html", ".htm": "to_html", ".md": "to_markdown", ".tex": "to_latex"}
    if output.suffix.lower() not in kinds:
        raise CommandError(f"name the report .html, .md or .tex, got {str(output)!r}")
    check_outputs({"-o": output}, overwrite=args.overwrite, inputs=input_paths(args))
    alpha = check_alpha(args.alpha)
    _check_bayesian_flags(args)
    table = load_datasets_table(args)
    report = DatasetsReport(
        table,
        baseline=args.baseline,
        alpha=alpha,
        correction=None if args.correction == "none" else args.correction,
        pairwise_correction=args.pairwise_correction,
        rope=args.rope,
        n_samples=args.samples,
        seed=args.seed,
        title=args.title,
    )
    text = getattr(report, kinds[output.suffix.lower()])()
    (written,) = write_texts([(output, text)], overwrite=args.overwrite)
    result = report.analysis
    print(f"wrote {written} ({len(result.models)} models on {len(result.datasets)} data sets)")
    return 0


def _check_bayesian_flags(args: argparse.Namespace) -> None:
    """Refuse --rope, --samples and --seed out of range by their flags, before the data is read."""
    if not (math.isfinite(args.rope) and args.rope >= 0):
        raise CommandError(
            f"--rope must be a number ≥ 0 in the metric's units (e.g. 0.01), got {args.rope:g}"
        )
    if args.samples is not None and args.samples < 1:
        raise CommandError(f"--samples must be a positive number of draws, got {args.samples}")
    if args.seed < 0:
        raise CommandError(f"--seed must be an integer ≥ 0, got {args.seed}")
