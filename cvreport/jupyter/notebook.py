"""Write a ready-to-run analysis notebook (nbformat v4) for a table of cross-validation losses.

:func:`write` produces a notebook that loads the data, builds the
:class:`~cvreport.data.table.ResultsTable`, audits the partitions, runs the
recommended tests, renders the report and opens the explorer. Cell ids are
fixed names (``load-data``, ``build-table`` …) rather than random uuids, so
writing the same analysis twice gives the same file and diffs stay readable.
The notebook is checked with :func:`nbformat.validate` before it is written,
and written atomically.

The command line offers the same: ``cvreport notebook DATA -f FORMULA -o analysis.ipynb``
(with ``--per-fold`` for one score per fold, e.g. an AUC, instead of per-record losses).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cvreport.data.design import Design, DesignKind
from cvreport.data.examples import load_example
from cvreport.data.formula import DEFAULT_FORMULA
from cvreport.data.io import data_format, read_results
from cvreport.data.table import ResultsTable
from cvreport.errors import CVReportError, DataError
from cvreport.methods.registry import get_spec
from cvreport.option_values import check_alpha
from cvreport.rendering.writer import (
    OutputExistsError,
    output_path,
    refuse_existing,
    write_text,
)
from cvreport.reporting.report import CORRECTIONS

__all__ = ["DEFAULT_FORMULA", "EXAMPLE", "NotebookExistsError", "build", "write"]

EXAMPLE = "example"
"""Pass ``data=EXAMPLE`` to analyse the bundled example (``cvreport.load_example()``)."""


class NotebookExistsError(OutputExistsError):
    """The notebook's target file exists and ``overwrite`` was not set."""


_KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def build(
    *,
    data: str | os.PathLike[str],
    formula: str = DEFAULT_FORMULA,
    record: str = "record",
    tests: str | Sequence[str] = "recommended",
    alpha: float = 0.05,
    correction: str = "holm",
    title: str | None = None,
    data_reference: str | None = None,
    per_fold: bool = False,
    higher_is_better: bool | None = None,
    test_train_ratio: float | None = None,
    sep: str | None = None,
    design: Design | None = None,
) -> Any:
    """Build the analysis notebook in memory (an ``nbformat.NotebookNode``, validated).

    Parameters are those of :func:`write`; ``data_reference`` is the path as the
    notebook's code should spell it (default: ``data`` as given). ``design`` is the
    design of the data when it is known (:func:`write` reads it when it checks the
    data): the text above the overlap audit then speaks of that design's overlaps;
    without it, of every design the audit reads.

    Examples
    --------
    >>> nb = build(data="example")
    >>> [cell.id for cell in nb.cells][:4]
    ['title', 'setup', 'load-data-intro', 'load-data']
    >>> nb = build(data="auc.csv", formula="auc ~ model | replication + fold", per_fold=True)
    >>> print(nb.cells[1].source.splitlines()[5])
    # the direction: from the score's name (auc, f1, accuracy: higher is better)
    """
    import nbformat

    alpha = check_alpha(alpha)
    tests_value: str | list[str] = tests if isinstance(tests, str) else list(tests)
    _check_tests(tests_value)
    _check_correction(correction)
    _check_score_options(per_fold, higher_is_better, test_train_ratio)
    if design is not None:
        _check_ratio_design(per_fold, test_train_ratio, design)
    direction_given = higher_is_better is not None
    if per_fold and higher_is_better is None:
        higher_is_better = True  # as ResultsTable.from_formula(..., per_fold=True)
    is_example = str(data) == EXAMPLE
    if is_example:
        load = "df = cvreport.load_example()"
        source_text = "the example data bundled with cvreport (`cvreport.load_example()`)"
    else:
        data_format(Path(data))
        spelled = data_reference if data_reference is not None else str(data)
        options = "" if sep is None else f", sep={sep!r}"
        load = (
            "from cvreport.data.io import read_results\n\n"
            f"DATA = {spelled!r}\ndf = read_results(DATA{options})"
        )
        source_text = f"`{spelled}`"

    heading = title or "Comparing classifiers from cross-validation results"
    setup = ["import pandas as pd\n", "import cvreport\n", f"FORMULA = {formula!r}"]
    if per_fold:
        # a direction the user gave is written down; otherwise the table infers it
        # (from the score's name, else higher), and the report says it was inferred
        direction_line = (
            '    direction="higher" if HIGHER_IS_BETTER else "lower",\n' if direction_given else ""
        )
        setup += [
            (
                f"HIGHER_IS_BETTER = {higher_is_better!r}  "
                + (
                    "# a score to maximise (AUC, F1, accuracy)"
                    if higher_is_better
                    else "# a loss to minimise (error rate, log loss)"
                )
            )
            if direction_given
            else "# the direction: from the score's name (auc, f1, accuracy: higher is better)",
            f"TEST_TRAIN_RATIO = {test_train_ratio!r}  # validation / training size (n2/n1); "
            "None: from K where the design allows",
        ]
        build_table = (
            "table = cvreport.ResultsTable.from_formula(\n"
            "    FORMULA,\n"
            "    df,\n"
            "    per_fold=True,  # one score per replication, fold and model: no record column\n"
            + direction_line
            + "    test_train_ratio=TEST_TRAIN_RATIO,\n"
            ")"
        )
    else:
        setup.append(
            f"RECORD = {record!r}  # the column identifying a record (row of the data set)"
        )
        ratio_argument = ""
        if test_train_ratio is not None:  # repeated hold-out splits: the table cannot tell it
            setup.append(
                f"TEST_TRAIN_RATIO = {test_train_ratio!r}  # validation / training size (n2/n1) "
                "of the splits"
            )
            ratio_argument = ", test_train_ratio=TEST_TRAIN_RATIO"
        if higher_is_better is None:
            build_table = (
                "table = cvreport.ResultsTable.from_formula(\n"
                f"    FORMULA, df, record=RECORD{ratio_argument}\n)"
                if ratio_argument
                else "table = cvreport.ResultsTable.from_formula(FORMULA, df, record=RECORD)"
            )
        else:
            setup.append(
                f"HIGHER_IS_BETTER = {higher_is_better!r}  "
                + (
                    "# the left side is a score to maximise"
                    if higher_is_better
                    else "# the left side is a loss to minimise"
                )
            )
            build_table = (
                "table = cvreport.ResultsTable.from_formula(\n"
                "    FORMULA, df, record=RECORD,\n"
                '    direction="higher" if HIGHER_IS_BETTER else "lower",\n'
                + ("    test_train_ratio=TEST_TRAIN_RATIO,\n" if ratio_argument else "")
                + ")"
            )
    setup += [
        f"TESTS = {tests_value!r}  # 'recommended', 'all' or a list of test names",
        f"ALPHA = {alpha!r}",
        f"CORRECTION = {correction!r}  # multiplicity correction across pairs of models",
    ]
    if higher_is_better is not False:  # a score, or a direction the table infers
        fold_table = (
            "folds = table.fold_errors()  # the internal loss the tests run on\n"
            'folds[table.metric.name] = table.to_metric(folds["loss"])  # in the metric as given\n'
            'folds.pivot_table(index=["replication", "fold"], columns="model", '
            "values=table.metric.name)"
        )
    else:
        fold_table = (
            'table.fold_errors().pivot_table(index=["replication", "fold"], '
            'columns="model", values="loss")'
        )
    if per_fold:
        formula_text = f"Formula: `{formula}`, one score per fold"
        data_text = (
            "Long format: one row per replication, fold and model, with the model's score "
            "on that validation fold (an AUC, F1, accuracy …); no record column."
        )
        table_text = (
            "cvreport validates the table once and recognises the cross-validation "
            "design; below, the score of every model on every validation fold"
            + (
                " (as given; every estimate and interval below is in this score, A − B)."
                if higher_is_better
                else "."
            )
        )
        audit_text = (
            " The audit needs to know which record was in which fold, that is per-record "
            "losses; with one score per fold the cell below says so and the analysis goes "
            "on without it."
        )
        audit_reason = "per-fold scores: the audit needs per-record losses"
        tests_text = (
            " With per-fold scores only the tests that need one value per fold run; "
            "McNemar's tests and the CV confidence interval need per-record losses."
        )
    else:
        formula_text = f"Formula: `{formula}`"
        data_text = (
            "Long format: one row per replication, fold, model and record, with the "
            "record's loss (or what the formula's left side computes it from)."
        )
        table_text = (
            "cvreport validates the table once and recognises the cross-validation "
            "design; below, "
            + (
                "the score of every model on every validation fold (as given; every "
                "estimate and interval below is in this score, A − B)."
                if higher_is_better
                else "the mean loss of every model on every validation fold."
                if higher_is_better is False
                else "every model's value of the metric on every validation fold: the mean "
                "of its records' values, or the metric computed from the fold's predictions "
                "(F1, AUC, …), in the metric's own direction (every estimate and interval "
                "below is in it, A − B)."
            )
        )
        audit_text = ""
        audit_reason = "e.g. one replication: nothing to compare"
        tests_text = ""
    cells = [
        _markdown(
            "title",
            f"# {heading}\n\n"
            f"Data: {source_text}.  \n"
            f"{formula_text}.\n\n"
            "Run the cells top to bottom. Each step is one cvreport call; change the "
            "settings in the next cell and run again.",
        ),
        _code("setup", "\n".join(setup)),
        _markdown("load-data-intro", f"## The data\n\n{data_text}"),
        _code("load-data", f"{load}\ndf.head()"),
        _markdown("build-table-intro", f"## The results table\n\n{table_text}"),
        _code(
            "build-table",
            f"{build_table}\n"
            "print(table.design.describe())\n"
            'print("models:", ", ".join(map(str, table.models)))\n'
            f"{fold_table}",
        ),
        _markdown(
            "audit-intro",
            f"## How well were the partitions drawn?\n\n{_audit_intro(design)}{audit_text}",
        ),
        _code(
            "audit",
            "try:\n"
            "    audit = cvreport.audit_overlap(table)\n"
            f"except cvreport.DesignError as reason:  # {audit_reason}\n"
            '    print(f"No overlap audit: {reason}")\n'
            "else:\n"
            "    display(audit)",
        ),
        _markdown(
            "tests-intro",
            "## The tests\n\n"
            "The report runs the tests the literature recommends for this design "
            f"(or those named in `TESTS`) on every pair of models.{tests_text}",
        ),
        _code(
            "run-tests",
            "report = cvreport.Report(table, tests=TESTS, alpha=ALPHA, correction=CORRECTION)\n"
            "report.to_frame()",
        ),
        _markdown(
            "report-intro",
            "## The report\n\n"
            "The same report renders as HTML, Markdown or LaTeX; `report.save(path)` "
            "picks the format from the suffix and never overwrites unless asked.",
        ),
        _code(
            "render-report",
            '# report.save("report.html", overwrite=True)\nreport',
        ),
        _markdown(
            "explore-intro",
            "## Explore\n\n"
            "Pick other models, tests, α or the output format; the report follows. "
            "The explorer needs a front end with ipywidgets (JupyterLab, Notebook 7, VS Code).",
        ),
        _code(
            "explore",
            "cvreport.explore(table, tests=TESTS, alpha=ALPHA, correction=CORRECTION)",
        ),
    ]
    notebook = _notebook(cells)
    nbformat.validate(notebook)
    return notebook


def write(
    path: str | os.PathLike[str],
    *,
    data: str | os.PathLike[str],
    formula: str = DEFAULT_FORMULA,
    record: str = "record",
    tests: str | Sequence[str] = "recommended",
    alpha: float = 0.05,
    correction: str = "holm",
    title: str | None = None,
    overwrite: bool = False,
    check: bool = True,
    per_fold: bool = False,
    higher_is_better: bool | None = None,
    test_train_ratio: float | None = None,
    sep: str | None = None,
) -> Path:
    """Write a ready-to-run analysis notebook to ``path``.

    Parameters
    ----------
    path : path-like
        The ``.ipynb`` file to write. An existing file is kept unless ``overwrite``.
    data : path-like or ``"example"``
        A CSV or Parquet file in long format, or ``"example"`` for the bundled
        example data. A relative path is rewritten relative to the notebook's
        folder, where Jupyter runs the notebook.
    formula : str
        How the columns play their parts, e.g. ``"loss ~ model | replication + fold"``
        or ``"{pred != truth} ~ model | replication + fold"``.
    record : str
        The column identifying a record (not used with ``per_fold``).
    tests, alpha, correction
        Passed to :class:`cvreport.reporting.report.Report` in the notebook.
    title : str, optional
        The notebook's heading.
    overwrite : bool
        Replace an existing file.
    check : bool
        Load the data and build the table now, so that a bad path, formula or
        column fails here with a clear message rather than in the notebook.
    per_fold : bool
        The formula's left side is one score per (replication, fold, model), e.g.
        an AUC, rather than a loss per record (``--per-fold`` on the command line).
        The notebook builds the table with ``ResultsTable.from_formula(...,
        per_fold=True)``; its audit cell says that the overlap audit needs
        per-record losses, and the report runs the tests that need only per-fold values.
    higher_is_better : bool or None
        Whether the left side is a score to maximise. ``None``
        means ``True`` for per-fold scores and ``False`` for per-record losses, as in
        :meth:`cvreport.ResultsTable.from_formula`.
    test_train_ratio : float, optional
        Validation size over training size, for per-fold scores only.
    sep : str, optional
        The field separator of a CSV file (``","`` by default), as
        :func:`cvreport.data.io.read_results`.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    NotebookExistsError
        When ``path`` exists and ``overwrite`` is False (a ``FileExistsError``).
    DataError, FormulaError
        When ``check`` finds the data or the formula unusable.

    Examples
    --------
    >>> import tempfile, pathlib, nbformat
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> out = write(folder / "analysis.ipynb", data="example")
    >>> nb = nbformat.read(out, as_version=4)
    >>> [cell.id for cell in nb.cells if cell.cell_type == "code"]
    ['setup', 'load-data', 'build-table', 'audit', 'run-tests', 'render-report', 'explore']
    """
    import nbformat

    target = output_path(path)
    if target.suffix != ".ipynb":
        raise CVReportError(f"a notebook's file name ends in .ipynb, got {str(target)!r}")
    refuse_existing(target, overwrite=overwrite, exists_error=NotebookExistsError)
    _check_tests(tests if isinstance(tests, str) else list(tests))
    _check_correction(correction)
    _check_score_options(per_fold, higher_is_better, test_train_ratio)
    reference: str | None = None
    design: Design | None = None
    if not isinstance(data, (str, os.PathLike)):
        raise DataError(
            f"data= is the path of the CSV or Parquet file the notebook loads, got a "
            f"{type(data).__name__}; save the results first (e.g. "
            "df.to_parquet('results.parquet')) and pass that path"
        )
    if str(data) != EXAMPLE:
        source = Path(data)
        data_format(source)
        if not source.is_file():
            raise DataError(f"data file {str(source)!r} not found; pass a CSV or Parquet file")
        reference = _relative_to_notebook(source, target)
    records_ratio = test_train_ratio is not None and not per_fold
    if check or records_ratio:  # a ratio for per-record losses needs the design
        try:
            design = _check(
                data,
                formula,
                record,
                per_fold=per_fold,
                higher_is_better=higher_is_better,
                test_train_ratio=test_train_ratio,
                sep=sep,
            )
        except CVReportError as error:
            if records_ratio:
                raise CVReportError(_RATIO_REFUSAL) from error
            raise
    _check_ratio_design(per_fold, test_train_ratio, design)
    notebook = build(
        data=data,
        formula=formula,
        record=record,
        tests=tests,
        alpha=alpha,
        correction=correction,
        title=title,
        data_reference=reference,
        per_fold=per_fold,
        higher_is_better=higher_is_better,
        test_train_ratio=test_train_ratio,
        sep=sep,
        design=design,
    )
    _write_atomically(target, nbformat.writes(notebook) + "\n", overwrite=overwrite)
    return target


# -- helpers shared with the scripts that write the worked notebooks -----------
def _markdown(cell_id: str, text: str) -> Any:
    import nbformat

    return nbformat.v4.new_markdown_cell(text, id=cell_id)


def _code(cell_id: str, source: str) -> Any:
    import nbformat

    return nbformat.v4.new_code_cell(source, id=cell_id)


def _notebook(cells: Iterable[Any]) -> Any:
    """A v4 notebook for a stock Python kernel; cell ids must be unique."""
    import nbformat

    cells = list(cells)
    ids = [cell.id for cell in cells]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise CVReportError(f"duplicate cell ids {duplicates!r}; every cell needs its own id")
    return nbformat.v4.new_notebook(
        cells=cells,
        metadata={
            "kernelspec": dict(_KERNELSPEC),
            "language_info": {"name": "python", "pygments_lexer": "ipython3"},
        },
    )


def _write_atomically(target: Path, text: str, *, overwrite: bool = True) -> None:
    """Write ``text`` to ``target`` atomically (:func:`cvreport.rendering.writer.write_text`)."""
    write_text(target, text, overwrite=overwrite, exists_error=NotebookExistsError)


def _relative_to_notebook(source: Path, notebook: Path) -> str:
    if source.is_absolute():
        return str(source)
    return Path(os.path.relpath(source.resolve(), notebook.resolve().parent)).as_posix()


def _check_tests(tests: str | list[str]) -> None:
    """Fail now, not in the notebook, on test names cvreport does not know."""
    names = (
        [t.strip() for t in tests.split(",") if t.strip()]
        if isinstance(tests, str) and tests not in ("recommended", "all")
        else ([] if isinstance(tests, str) else tests)
    )
    if not isinstance(tests, str) and not tests:
        raise CVReportError("tests is empty; pass 'recommended', 'all' or test names")
    for name in names:
        try:
            get_spec(name, in_report=True)
        except CVReportError as exc:
            raise CVReportError(f"{exc}; or pass 'recommended' or 'all'") from exc


def _check_correction(correction: str | None) -> None:
    if correction is not None and correction not in CORRECTIONS:
        raise CVReportError(
            f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}"
        )


def _check_score_options(
    per_fold: bool, higher_is_better: bool | None, test_train_ratio: float | None
) -> None:
    """Fail now, not in the notebook, on per-fold options that cannot be used as given."""
    if higher_is_better is not None and not isinstance(higher_is_better, bool):
        raise CVReportError(f"higher_is_better is True, False or None, got {higher_is_better!r}")
    if test_train_ratio is None:
        return
    if (
        isinstance(test_train_ratio, bool)
        or not isinstance(test_train_ratio, (int, float))
        or not math.isfinite(test_train_ratio)
        or test_train_ratio <= 0
    ):
        raise CVReportError(
            "test_train_ratio must be a positive number (validation size / training size, "
            f"e.g. 1.0 for 2-fold CV or 1/9 for 10-fold CV), got {test_train_ratio!r}"
        )


#: Where a ratio n2/n1 may be given: the table cannot tell it (per-fold scores carry no
#: sizes; repeated hold-out tables list only the records the splits validated).
_RATIO_REFUSAL = (
    "test_train_ratio (--test-train-ratio) applies to per-fold scores (per_fold=True, "
    "--per-fold) and to per-record losses of repeated hold-out splits, whose table holds only "
    "the records the splits validated; per-record K-fold tables know their fold sizes"
)


def _check_ratio_design(per_fold: bool, test_train_ratio: float | None, design: Any) -> None:
    """Refuse a ratio for per-record losses unless they are repeated hold-out splits."""
    if test_train_ratio is None or per_fold:
        return
    if design is None or design.kind is not DesignKind.REPEATED_HOLDOUT:
        raise CVReportError(_RATIO_REFUSAL)


def _audit_intro(design: Design | None) -> str:
    """What the overlap audit compares, in the words of the data's design when it is known.

    Examples
    --------
    >>> from cvreport.data.design import Design, DesignKind
    >>> kfold = Design(kind="repeated_kfold", m=10, K=10, n_records=569, per_record=True,
    ...                complete=True, replications=tuple(range(10)), folds=tuple(range(10)),
    ...                sizes=((57,) * 9 + (56,)) * 10)
    >>> "n((K − 1)/K)² = 460.89 of the n = 569 records" in _audit_intro(kfold)
    True
    >>> "n/4" in _audit_intro(kfold)
    False
    """
    source = "(Wang, Li & Li 2015)"
    if design is None or not design.per_record or design.n_records is None:
        return (
            "The overlap audit compares the training sets of every pair of replications. "
            "Under random partitioning two training sets share a random number of records "
            "around its expectation: n/4 for the halves of m×2 cross-validation, "
            "n((K − 1)/K)² for two training sets of K-fold cross-validation; balanced and "
            "block-regularized m×2 designs keep every overlap at n/4. The audit says whether "
            "this data's overlaps are typical of random partitioning, and which tests assume "
            f"balance {source}."
        )
    n, K = int(design.n_records), int(design.K)
    if design.m >= 2 and K == 2:
        return (
            "The overlap audit compares the training sets (halves) of every pair of "
            f"replications. Random halves of these n = {n} records share n/4 = {n / 4:g} "
            "records on average, more or fewer by chance; balanced and block-regularized "
            "designs keep every overlap at n/4. The audit says whether this data's overlaps "
            f"are typical of random partitioning, and which tests assume balance {source}."
        )
    if design.m >= 2 and K > 2:
        expected = n * ((K - 1) / K) ** 2
        return (
            f"The overlap audit compares the training sets of every pair of replications. "
            f"Each replication of {K}-fold cross-validation has {K} training sets, so two "
            f"replications have K² = {K * K} pairs of them; under random partitioning two "
            f"share about n((K − 1)/K)² = {expected:.2f} of the n = {n} records (exactly, "
            "(n − a)(n − b)/n for folds of a and b records left out), more or fewer by "
            "chance. For each pair of replications the audit takes the pair of training sets "
            "furthest from its expectation and says whether these largest deviations are "
            "typical of random K-fold partitioning (an extension of the m×2 audit of Wang, "
            "Li & Li 2015). The corrected repeated K-fold t tests assume random partitions."
        )
    return (
        f"The overlap audit compares the training sets of pairs of replications of 2-fold "
        f"or K-fold cross-validation; this data's design ({design.describe()}) has none to "
        f"compare, so the cell below says why the audit does not run {source}."
    )


def _check(
    data: str | os.PathLike[str],
    formula: str,
    record: str,
    *,
    per_fold: bool = False,
    higher_is_better: bool | None = None,
    test_train_ratio: float | None = None,
    sep: str | None = None,
) -> Design:
    """Build the table the notebook will build, so that bad input fails now; its design."""
    if str(data) == EXAMPLE:
        frame = load_example()
    else:
        frame = read_results(Path(data), sep=sep)
    return ResultsTable.from_formula(
        formula,
        frame,
        record=record,
        per_fold=per_fold,
        direction=None if higher_is_better is None else "higher" if higher_is_better else "lower",
        test_train_ratio=test_train_ratio,
    ).design
