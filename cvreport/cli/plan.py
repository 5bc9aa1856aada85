"""The ``cvreport plan`` command: the power of each test on each design, from a pilot file.

::

    cvreport plan DATA -f FORMULA --effect 0.01 [--power 0.8] [--alpha 0.05]
                  [--designs 10x10,5x2,...] [--svg FILE [--overwrite]] [--csv FILE]
                  [--record COLUMN] [--sep CHAR] [--per-fold [--test-train-ratio R]]
                  [--direction lower|higher] [--example] A B

Prints the plan (:func:`cvreport.plan`): the smallest design per test (marked
when the test does not hold its level there), the power and type I error of every
test on every design, and the limits of the estimate in words.
"""

from __future__ import annotations

import argparse
from typing import Any

from cvreport.cli.checks import CommandError, check_alpha, check_outputs
from cvreport.cli.inputs import CommandParser, input_paths, read_data
from cvreport.data.examples import load_example
from cvreport.data.table import ResultsTable
from cvreport.planning.plan import plan
from cvreport.planning.result import SIZE_TOLERANCE
from cvreport.rendering.writer import write_text
from cvreport.reporting.power_curve import power_curve

__all__ = ["add_plan_command", "build_plan_parser", "run_plan"]


def add_plan_command(commands: Any) -> None:
    """Add the ``plan`` sub-command to the ``cvreport`` parser.

    Its arguments are read by :func:`build_plan_parser` with
    ``parse_intermixed_args``, so that the models may follow the options
    (``cvreport plan DATA -f FORMULA --effect 0.01 A B``).
    """
    parser = commands.add_parser(
        "plan",
        help="plan the next experiment: power and the smallest design from a pilot",
        add_help=False,
        prefix_chars="\0",  # every argument goes to build_plan_parser
    )
    parser.add_argument("arguments", nargs=argparse.REMAINDER)
    parser.set_defaults(handler=run_plan, debug=False)


def build_plan_parser() -> argparse.ArgumentParser:
    """The parser of ``cvreport plan``'s own arguments."""
    parser = CommandParser(
        prog="cvreport plan",
        description=(
            "Estimate the variance of the per-fold differences A − B from a pilot, then give "
            "the power of each test that fits the designs to detect a difference of EFFECT, "
            "its type I error under the same model, and the smallest design that reaches the "
            f"wanted power; a design on which the test's type I error exceeds "
            f"{SIZE_TOLERANCE:g} α is marked as not recommended."
        ),
    )
    parser.add_argument("data", nargs="?", metavar="DATA", help="CSV or Parquet file (pilot)")
    parser.add_argument("a", metavar="A", help="the first model")
    parser.add_argument("b", metavar="B", help="the second model")
    parser.add_argument(
        "-f", "--formula", metavar="FORMULA", help="e.g. 'loss ~ model | replication + fold'"
    )
    parser.add_argument(
        "--effect",
        type=float,
        required=True,
        help="the difference to detect, in the metric's units (e.g. 0.01)",
    )
    parser.add_argument("--power", type=float, default=0.8, help="wanted power (0.8)")
    parser.add_argument("--alpha", type=float, default=0.05, help="two-sided level (0.05)")
    parser.add_argument(
        "--designs",
        metavar="LIST",
        help="candidate designs separated by commas: 10x10, 5x2, 10-fold, '30 splits', "
        "'hold-out 2000' (default: a grid and the smallest design found)",
    )
    parser.add_argument("--svg", metavar="FILE", help="also write the power curve as SVG")
    parser.add_argument("--csv", metavar="FILE", help="also write every power as CSV")
    parser.add_argument("--overwrite", action="store_true", help="replace FILEs that exist")
    parser.add_argument("--record", default="record", metavar="COLUMN", help="record column")
    parser.add_argument("--sep", metavar="CHAR", help="field separator of a CSV file")
    parser.add_argument(
        "--per-fold", action="store_true", help="the left side is one score per fold"
    )
    parser.add_argument(
        "--test-train-ratio",
        type=float,
        metavar="R",
        help="validation size / training size, for per-fold scores",
    )
    parser.add_argument(
        "--direction", choices=("lower", "higher"), help="which way is better for the metric"
    )
    parser.add_argument(
        "--example",
        action="store_true",
        help="use the bundled 5×2 CV example as the pilot instead of DATA",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    return parser


def run_plan(command: argparse.Namespace) -> int:
    """Print the plan; write the curve and the table when asked."""
    args = build_plan_parser().parse_intermixed_args(command.arguments)
    command.debug = args.debug

    outputs = {"--svg": args.svg, "--csv": args.csv}
    check_outputs(outputs, overwrite=args.overwrite, inputs=input_paths(args))
    table = _pilot(args, CommandError)
    designs = None
    if args.designs:
        designs = [d.strip() for d in args.designs.split(",") if d.strip()]
        if not designs:
            raise CommandError("--designs is empty; name designs such as 10x10,5x2")
    result = plan(
        table,
        args.a,
        args.b,
        effect=args.effect,
        power=args.power,
        alpha=check_alpha(args.alpha),
        designs=designs,
    )
    if args.svg and result.components is None:  # refused before any file is written
        raise CommandError(
            "--svg: a single hold-out split gives no variance of per-fold differences to "
            "draw a power curve from"
        )
    print(result.summary().as_text(), end="")
    if args.csv:
        csv = result.to_frame().to_csv(index=False)
        print(f"wrote {write_text(args.csv, csv, overwrite=args.overwrite)}")
    if args.svg:
        curve = power_curve(
            result.components, effect=args.effect, power=args.power, alpha=args.alpha
        )
        print(f"wrote {curve.save(args.svg, overwrite=args.overwrite)}")
    return 0


def _pilot(args: argparse.Namespace, error: type[Exception]) -> Any:
    if args.example:
        if args.data:
            raise error("pass either DATA or --example, not both")

        frame = load_example()
        formula = args.formula or "loss ~ model | replication + fold"
    else:
        if not args.data or not args.formula:
            raise error(
                "give DATA and -f FORMULA (e.g. -f 'loss ~ model | replication + fold'), or "
                "--example"
            )

        frame = read_data(args.data, sep=args.sep)
        formula = args.formula
    if args.test_train_ratio is not None and not args.per_fold:
        raise error("--test-train-ratio applies to per-fold scores (--per-fold)")
    return ResultsTable.from_formula(
        formula,
        frame,
        record=args.record,
        per_fold=args.per_fold,
        direction=args.direction,
        test_train_ratio=args.test_train_ratio,
    )
