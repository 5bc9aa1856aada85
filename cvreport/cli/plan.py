"""The ``cvreport plan`` command: the power of each test on each design, from a pilot file.

::

    cvreport plan DATA -f FORMULA --effect 0.01 [--power 0.8] [--alpha 0.05]
                  [--designs 10x10,5x2,...] [--svg FILE [--overwrite]] [--csv FILE]
                  [INPUT FLAGS] A B

The input flags are those of ``cvreport report`` (:mod:`cvreport.cli.inputs`:
``--sep``, ``--record``, ``--example``, ``--engine``, ``--metric``, ``--score``,
``--prediction``, ``--truth``, ``--cluster``, ``--direction``, ``--per-fold``,
``--test-train-ratio``), read into the table the same way, so that a pilot of
predictions is planned on the metric the report would test.

Prints the plan (:func:`cvreport.plan`): the smallest design per test (marked
when the test does not hold its level there), the power and type I error of every
test on every design, and the limits of the estimate in words.
"""

from __future__ import annotations

import argparse
from typing import Any

from cvreport.cli.checks import CommandError, check_alpha, check_outputs
from cvreport.cli.inputs import (
    CommandParser,
    add_input_arguments,
    input_paths,
    table_from_args,
)
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
    """The parser of ``cvreport plan``'s own arguments.

    The input flags are those of every command (:func:`add_input_arguments`), so
    that the same DATA and flags give the same table to ``plan`` as to ``report``.

    Examples
    --------
    >>> args = build_plan_parser().parse_intermixed_args(
    ...     ["d.csv", "-f", "y ~ model | fold", "--metric", "accuracy", "--prediction", "p",
    ...      "--effect", "0.01", "A", "B"])
    >>> (args.metric, args.prediction, args.a, args.b)
    ('accuracy', 'p', 'A', 'B')
    """
    parser = CommandParser(
        prog="cvreport plan",
        description=(
            "Estimate the variance of the per-fold differences A − B from a pilot, then give "
            "the power of each test that fits the designs to detect a difference of EFFECT, "
            "its type I error under the same model, and the smallest design that reaches the "
            f"wanted power; a design on which the test's type I error exceeds "
            f"{SIZE_TOLERANCE:g} α is marked as not recommended. DATA and the input flags "
            "are read as by 'cvreport report'."
        ),
    )
    add_input_arguments(parser)
    parser.add_argument("a", metavar="A", help="the first model")
    parser.add_argument("b", metavar="B", help="the second model")
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
    return parser


def run_plan(command: argparse.Namespace) -> int:
    """Print the plan; write the curve and the table when asked."""
    args = build_plan_parser().parse_intermixed_args(command.arguments)
    command.debug = args.debug

    outputs = {"--svg": args.svg, "--csv": args.csv}
    check_outputs(outputs, overwrite=args.overwrite, inputs=input_paths(args))
    table = table_from_args(args)
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
