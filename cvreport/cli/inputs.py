"""The input flags every ``cvreport`` command shares, and the one way they become a table.

``cvreport report``, ``cvreport notebook``, ``cvreport datasets`` and
``cvreport plan`` read the same flags, added by :func:`add_input_arguments`:

``DATA``, ``--sep``, ``-f/--formula``, ``--record``, ``--example``, ``--engine``,
``--metric``, ``--score``, ``--prediction``, ``--truth``, ``--cluster``,
``--direction``, ``--per-fold``, ``--test-train-ratio`` and ``--debug``.

:func:`input_formula` turns them into the one formula the data layer reads
(``--metric roc_auc --score p`` with ``-f 'y ~ model | fold'`` becomes
``roc_auc(y, p) ~ model | fold``); :func:`table_from_args` builds the
:class:`~cvreport.data.table.ResultsTable` of ``report`` (from DATA with
:func:`load_table`, or from a bundled example), :func:`load_datasets_table`
the :class:`~cvreport.data.datasets.DatasetsTable` of ``datasets``, and the
notebook writes the same formula into its code. The former spellings
``--higher-is-better`` and ``--lower-is-better`` still work, hidden from
``--help``, with a deprecation note on standard error.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_input_arguments(parser)
>>> args = parser.parse_args(["d.csv", "-f", "y ~ model | fold", "--metric", "roc_auc",
...                           "--score", "p"])
>>> input_formula(args)
'roc_auc(y, p) ~ model | fold'
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvreport.cli.checks import CommandError
from cvreport.data import examples
from cvreport.data.backends import MemoryBackend, formula_label_columns
from cvreport.data.datasets import DatasetsTable, split_dataset_term
from cvreport.data.engines import describe_paths
from cvreport.data.examples import EXAMPLES, load_example
from cvreport.data.formula import DEFAULT_FORMULA
from cvreport.data.io import check_regular_file, data_format, read_results
from cvreport.data.metrics import resolve_metric
from cvreport.data.table import ResultsTable
from cvreport.errors import DataError, FormulaError

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.datasets import DatasetsTable
    from cvreport.data.table import ResultsTable

__all__ = [
    "DEFAULT_DATASETS_FORMULA",
    "PROG",
    "CommandParser",
    "add_input_arguments",
    "check_data_path",
    "check_example",
    "example_formula",
    "example_table",
    "input_formula",
    "input_paths",
    "is_lazy",
    "load_datasets_table",
    "load_table",
    "names_data_sets",
    "parse_tests",
    "read_data",
    "require_data_and_formula",
    "score_options",
    "table_from_args",
]

PROG = "cvreport"
DEFAULT_DATASETS_FORMULA = "loss ~ model | replication + fold | dataset"
_GLOB = "*?["


class _StoreOnce(argparse._StoreAction):
    """A flag that takes one value and refuses a second one instead of keeping the last.

    ``-o a.html -o b.html`` would write b.html only, and ``-f A -f B`` use B: one of
    the two was meant, and the command cannot tell which.
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if option_string is not None and getattr(self, "_namespace", None) is namespace:
            flags = "/".join(self.option_strings)
            parser.error(
                f"{flags} was given twice ({getattr(namespace, self.dest)!r} and {values!r}); "
                "give it once"
            )
        self._namespace = namespace
        super().__call__(parser, namespace, values, option_string)


class CommandParser(argparse.ArgumentParser):
    """The parser of every ``cvreport`` command: a flag that takes one value is given once.

    Its sub-commands' parsers are of the same class (argparse's default), and
    flags that collect several values (``--pairs``, ``--tests``) are unchanged.

    Examples
    --------
    >>> parser = CommandParser(prog="cvreport")
    >>> _ = parser.add_argument("-o")
    >>> parser.parse_args(["-o", "a.html"]).o
    'a.html'
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)


class _Deprecated(argparse.Action):
    """A former flag: sets ``dest`` to ``const`` and says which flag replaces it."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        self.replacement = kwargs.pop("replacement")
        super().__init__(option_strings, dest, nargs=0, help=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(
            f"{PROG}: warning: {option_string} is deprecated; use {self.replacement}",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, self.const)


def add_input_arguments(
    parser: argparse.ArgumentParser,
    *,
    default_formula: str = DEFAULT_FORMULA,
    examples: str = "'random' 5×2 CV, the default, or 'bcv' block-regularized 5×2 CV",
    default_example: str = "random",
) -> None:
    """Add the input flags of every command to ``parser``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The sub-command's parser.
    default_formula : str
        The formula shown as an example in the help.
    examples : str
        The bundled examples the command takes, in words.
    default_example : str
        The example ``--example`` without a name loads.
    """
    parser.add_argument(
        "data",
        nargs="?",
        metavar="DATA",
        help="CSV (also .csv.gz, .csv.bz2, ...) or Parquet file in long format: per-record "
        "losses, per-record predictions (with --metric) or per-fold scores (with --per-fold)",
    )
    parser.add_argument(
        "--sep", metavar="CHAR", help="field separator of a CSV file (',' by default; e.g. ';')"
    )
    parser.add_argument(
        "-f",
        "--formula",
        metavar="FORMULA",
        help=f"which columns play which part, e.g. '{default_formula}'",
    )
    parser.add_argument(
        "--record", default="record", metavar="COLUMN", help="column naming the record ('record')"
    )
    parser.add_argument(
        "--example",
        nargs="?",
        const=default_example,
        metavar="NAME",
        help=f"use a bundled example instead of DATA ({examples}); DATA and -f may then be "
        "left out",
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
        "--metric computes one value per fold from the predictions of its records, e.g. "
        # the command's own formula with the truth on the left (a data set part included)
        f"-f 'y ~ {default_formula.split('~', 1)[1].strip()}' --metric roc_auc --score p "
        "(the truth on the formula's left side, or --truth y)",
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
    metric.add_argument(
        "--truth",
        metavar="COLUMN",
        help="column of true labels (default: the formula's left side)",
    )
    metric.add_argument("--cluster", metavar="COLUMN", help="column of clusters of records")
    _add_score_arguments(parser)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def _add_score_arguments(parser: argparse.ArgumentParser) -> None:
    """--per-fold, --direction (and its former spellings) and --test-train-ratio."""
    scores = parser.add_argument_group(
        "per-fold scores",
        "when DATA holds one score per replication, fold and model (e.g. an AUC) "
        "instead of per-record values",
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
    for flag, value in (("--higher-is-better", "higher"), ("--lower-is-better", "lower")):
        direction.add_argument(
            flag,
            dest="direction",
            action=_Deprecated,
            const=value,
            replacement=f"--direction {value}",
        )
    scores.add_argument(
        "--test-train-ratio",
        type=float,
        metavar="R",
        help=(
            "validation size / training size (e.g. 0.111 for 10-fold CV): needed for per-fold "
            "scores, and for repeated hold-out, whose table does not hold the training sets"
        ),
    )


# -- the formula ----------------------------------------------------------------
def require_data_and_formula(args: argparse.Namespace, example: str = DEFAULT_FORMULA) -> str:
    """The formula given with DATA, or a :class:`CommandError` naming what is missing."""
    if not args.data:
        raise CommandError("no DATA given: pass a CSV or Parquet file, or --example")
    if not args.formula:
        right = example.split("~", 1)[1].strip()
        if getattr(args, "truth", None):  # --truth names the left side: leave it out
            example, what = right, f"with --truth {args.truth} the left side may be left out"
        elif getattr(args, "metric", None):  # the metric's left side is the true label
            example, what = f"y ~ {right}", "y: the column of true labels"
        else:
            what = "column names of your data"
        raise CommandError(f"no formula given: pass -f, e.g. -f '{example}' ({what})")
    return str(args.formula)


def input_formula(args: argparse.Namespace, formula: str | None = None) -> str:
    """The formula the data layer reads: ``-f`` with ``--metric``/``--truth``/``--score`` folded in.

    ``y ~ rest`` with ``--metric NAME --score p`` gives ``NAME(y, p) ~ rest``;
    with ``--truth y`` the left side may be left out (``-f 'model | fold'``).
    An unknown metric name is refused here with the known names.
    """
    formula = str(args.formula if formula is None else formula)
    metric = args.metric
    truth = args.truth
    score, prediction = args.score, args.prediction
    if metric is None:  # --metric '' is refused below as an unknown metric
        given = [f for f, v in (("--score", score), ("--prediction", prediction),
                                ("--truth", truth)) if v]  # fmt: skip
        if given:
            raise CommandError(
                f"{', '.join(given)} name(s) the columns of a metric: add --metric NAME "
                "(e.g. --metric roc_auc)"
            )
        return formula

    resolve_metric(metric)  # an unknown name: a DataError listing the known metrics
    if score and prediction:
        raise CommandError(
            "pass either --score (probabilities or decision values) or --prediction "
            "(predicted labels), not both"
        )
    columns = score or prediction
    if not columns:
        raise CommandError(
            f"--metric {metric} needs the column it scores: --prediction COLUMN (predicted "
            "labels) or --score COLUMN[,COLUMN...] (probabilities)"
        )
    left, tilde, rest = formula.partition("~")
    if not tilde:
        left, rest = "", formula
    left = left.strip()
    if truth and left and left != truth.strip():
        raise CommandError(
            f"--truth {truth} and the formula's left side {left!r} name different truth "
            "columns; give one of them"
        )
    truth_column = (truth or left).strip()
    if not truth_column:
        raise CommandError(
            f"--metric {metric} needs the truth column: on the formula's left side "
            "(-f 'y ~ model | replication + fold') or as --truth COLUMN"
        )
    joined = " + ".join(c.strip() for c in columns.split(",") if c.strip())
    if not joined:
        flag = "--score" if score else "--prediction"
        raise CommandError(f"{flag} names no column; give the column name, e.g. {flag} proba")
    return f"{metric}({truth_column}, {joined}) ~ {rest.strip()}"


def score_options(args: argparse.Namespace) -> tuple[bool, float | None]:
    """``--per-fold`` and ``--test-train-ratio``.

    The ratio is taken for per-record tables too, as the API takes it: a repeated
    hold-out table lists only the records some split validated, so the training sizes
    it would infer from them are too small (the true ones are not in the table).
    """
    return bool(args.per_fold), args.test_train_ratio


# -- the data -------------------------------------------------------------------
def is_lazy(args: argparse.Namespace) -> bool:
    """Whether DATA is scanned where it lies (an engine named, or a glob) rather than read.

    A file that exists is a file even when its name holds ``*``, ``?`` or ``[``
    (``results[1].parquet``).
    """
    data = str(args.data)
    if args.engine in ("duckdb", "polars"):
        return True
    return any(c in data for c in _GLOB) and not os.path.exists(data)


def check_data_path(path: str | os.PathLike[str]) -> None:
    """Refuse, without opening it, a DATA path that exists but is not a regular file.

    A FIFO (named pipe) would block the reader for ever, a device may never end,
    a folder is not a table; the words are the data layer's
    (:func:`cvreport.data.io.check_regular_file`), so every route says the same.
    A path that does not exist is left to the reader (it may be a glob).
    """
    try:
        check_regular_file(path)
    except DataError as error:
        raise CommandError(f"DATA {error}") from error


def input_paths(args: argparse.Namespace) -> list[Path]:
    """The data files a command reads (none for ``--example``; a glob's matches).

    A DATA file that can never be read (a folder, a FIFO, a name that is neither
    CSV nor Parquet) is refused here, before the outputs are checked, so that one
    run names it instead of asking for ``--overwrite`` first.
    """
    if getattr(args, "example", None) or not args.data:
        return []
    data = str(args.data)
    if any(c in data for c in _GLOB) and not os.path.exists(data):
        import glob

        return [Path(p) for p in glob.glob(data, recursive=True)]
    check_data_path(data)
    data_format(data)
    return [Path(data)]


def read_data(
    path: str | Path, sep: str | None = None, labels: Sequence[str] | None = None
) -> pd.DataFrame:
    """Read a CSV or Parquet file (:func:`cvreport.data.io.read_results`), never a FIFO."""
    check_data_path(path)  # a folder is named as one, whatever its name
    data_format(path)
    return read_results(path, sep=sep, labels=labels)


def _source(args: argparse.Namespace, labels: Sequence[str] | None = None) -> Any:
    """DATA as the data layer takes it: a path scanned lazily, or a pandas frame (its
    ``labels`` columns read as text from a CSV, as the engines read them)."""
    path = str(args.data)
    if is_lazy(args):
        check_data_path(path)
        return path
    return read_data(path, sep=args.sep, labels=labels)


def load_table(args: argparse.Namespace, *, example_formula: str = DEFAULT_FORMULA) -> ResultsTable:
    """The :class:`~cvreport.data.table.ResultsTable` the flags describe (not for examples)."""
    formula = input_formula(args, require_data_and_formula(args, example_formula))
    per_fold, ratio = score_options(args)
    source = _source(args, formula_label_columns(formula, cluster=args.cluster))
    if not isinstance(source, str):  # read into pandas, not scanned where it lies
        # the report's source line names the file, as it does for a path given in Python
        source = MemoryBackend(source, kind=f"{describe_paths(str(args.data))} (pandas)")
    return ResultsTable.from_formula(
        formula,
        source,
        record=args.record,
        per_fold=per_fold,
        direction=args.direction,
        test_train_ratio=ratio,
        engine=args.engine if is_lazy(args) else None,
        cluster=args.cluster,
    )


def load_datasets_table(args: argparse.Namespace) -> DatasetsTable:
    """The :class:`~cvreport.data.datasets.DatasetsTable` the flags describe.

    The formula is built as for ``report`` (``--metric``, ``--truth``, ``--score``
    folded into it), its last block naming the data set column.
    """
    if args.example:
        if args.data:
            raise CommandError("pass either DATA or --example, not both")
        if args.example != "multi":
            raise CommandError(
                f"unknown example {args.example!r} for many data sets; the example is 'multi'"
            )
        formula = args.formula or DEFAULT_DATASETS_FORMULA
        source: Any = load_example("multi")
    else:
        formula = require_data_and_formula(args, DEFAULT_DATASETS_FORMULA)
        source = _source(args, _dataset_labels(args, formula))
    full = input_formula(args, formula)
    per_fold, ratio = score_options(args)
    options: dict[str, Any] = {}
    if ratio is not None:
        options["test_train_ratio"] = ratio
    if args.cluster:
        options["cluster"] = args.cluster
    return DatasetsTable.from_formula(
        full,
        source,
        record=args.record,
        per_fold=per_fold,
        direction=args.direction,
        **options,
    )


def _dataset_labels(args: argparse.Namespace, formula: str) -> list[str]:
    """The label columns of a many-data-sets formula (model, cluster, data set); none when
    the formula or the flags cannot be read (building the table words why)."""
    try:
        term = split_dataset_term(input_formula(args, formula))
    except (CommandError, FormulaError, DataError):
        return []
    return [*formula_label_columns(term.inner, cluster=args.cluster), term.dataset]


# -- tables of the report and notebook commands ------------------------------
def names_data_sets(formula: str) -> bool:
    """Whether ``formula`` has a third part (``… | replication + fold | dataset``)."""
    try:
        inner = split_dataset_term(formula).inner
    except FormulaError:
        return False
    # a '|' left outside braces splits the rest again: three parts in all
    return "|" in re.sub(r"\{[^}]*\}", "", inner)


def table_from_args(args: argparse.Namespace) -> ResultsTable:
    """The table of DATA, or of the bundled example named by ``--example``."""
    if args.example:
        check_example(args)
        formula = input_formula(args) if args.formula else None
        return example_table(args.example, formula, args.record)
    return load_table(args)


def _looks_like_data(name: str) -> bool:
    try:
        data_format(name)
    except DataError:
        return False
    return True


def check_example(args: argparse.Namespace) -> None:
    """Refuse ``--example`` beside DATA and an unknown example's name."""
    if args.data or _looks_like_data(args.example):
        raise CommandError("pass either DATA or --example, not both")
    if args.example not in EXAMPLES:
        raise CommandError(
            f"unknown example {args.example!r}; the examples are {', '.join(EXAMPLES)}"
        )
    if args.example == "multi":  # read as one table, its data sets would mix their folds
        raise CommandError(
            "the 'multi' example holds many data sets: compare models over them with "
            "'cvreport datasets --example multi'; this command reads one data set"
        )


def example_formula() -> str:
    """The formula of the bundled examples."""
    return str(getattr(examples, "FORMULA", DEFAULT_FORMULA))


def example_table(name: str, formula: str | None, record: str) -> ResultsTable:
    """A bundled example; with its predictions when it has them, for per-model metrics."""
    frame = load_example(name)
    if formula:
        return ResultsTable.from_formula(formula, frame, record=record)
    if {"truth", "prediction"} <= set(frame.columns):
        return ResultsTable.from_predictions(
            frame, truth="truth", prediction="prediction", record=record
        )
    return ResultsTable.from_formula(example_formula(), frame, record=record)


def parse_tests(values: Sequence[str] | None) -> str | list[str]:
    """``--tests`` as 'recommended', 'all' or a list of test names."""
    if not values:
        return "recommended"
    names = [  # as metric names: case and surrounding spaces aside (as the API reads them)
        name.strip().lower() for value in values for name in value.split(",") if name.strip()
    ]
    if names in (["recommended"], ["all"]):
        return names[0]
    if "recommended" in names or "all" in names:
        raise CommandError("--tests takes 'recommended', 'all' or test names, not a mix")
    if not names:
        raise CommandError("--tests is empty; pass 'recommended', 'all' or test names")
    return names
