"""Write a ready-to-run analysis notebook (nbformat v4) for a table of cross-validation losses.

:func:`write` produces a notebook that loads the data, builds the
:class:`~cvreport.table.ResultsTable`, audits the partitions, runs the
recommended tests, renders the report and opens the explorer. Cell ids are
fixed names (``load-data``, ``build-table`` …) rather than random uuids, so
writing the same analysis twice gives the same file and diffs stay readable.
The notebook is checked with :func:`nbformat.validate` before it is written,
and written atomically.

The command line offers the same: ``cvreport notebook DATA -f FORMULA -o analysis.ipynb``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cvreport.errors import CVReportError, DataError

__all__ = ["DEFAULT_FORMULA", "EXAMPLE", "NotebookExistsError", "build", "write"]

EXAMPLE = "example"
"""Pass ``data=EXAMPLE`` to analyse the bundled example (``cvreport.load_example()``)."""

DEFAULT_FORMULA = "loss ~ model | replication + fold"

_READERS = {".csv": "read_csv", ".parquet": "read_parquet", ".pq": "read_parquet"}


class NotebookExistsError(CVReportError, FileExistsError):
    """The notebook's target file exists and ``overwrite`` was not set."""

    def __init__(self, message: str, path: str | os.PathLike[str]) -> None:
        super().__init__(message)
        self.filename = os.fspath(path)

    def __str__(self) -> str:
        return str(self.args[0])


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
) -> Any:
    """Build the analysis notebook in memory (an ``nbformat.NotebookNode``, validated).

    Parameters are those of :func:`write`; ``data_reference`` is the path as the
    notebook's code should spell it (default: ``data`` as given).

    Examples
    --------
    >>> nb = build(data="example")
    >>> [cell.id for cell in nb.cells][:4]
    ['title', 'setup', 'load-data-intro', 'load-data']
    """
    import nbformat

    if not 0 < alpha < 1:
        raise CVReportError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    tests_value: str | list[str] = tests if isinstance(tests, str) else list(tests)
    _check_tests(tests_value)
    _check_correction(correction)
    is_example = str(data) == EXAMPLE
    if is_example:
        load = "df = cvreport.load_example()"
        source_text = "the example data bundled with cvreport (`cvreport.load_example()`)"
    else:
        reader = _reader_for(Path(data))
        spelled = data_reference if data_reference is not None else str(data)
        load = f"DATA = {spelled!r}\ndf = pd.{reader}(DATA)"
        source_text = f"`{spelled}`"

    heading = title or "Comparing classifiers from cross-validation results"
    cells = [
        _markdown(
            "title",
            f"# {heading}\n\n"
            f"Data: {source_text}.  \n"
            f"Formula: `{formula}`.\n\n"
            "Run the cells top to bottom. Each step is one cvreport call; change the "
            "settings in the next cell and run again.",
        ),
        _code(
            "setup",
            "import pandas as pd\n\n"
            "import cvreport\n\n"
            f"FORMULA = {formula!r}\n"
            f"RECORD = {record!r}  # the column identifying a record (row of the data set)\n"
            f"TESTS = {tests_value!r}  # 'recommended', 'all' or a list of test names\n"
            f"ALPHA = {alpha!r}\n"
            f"CORRECTION = {correction!r}  # multiplicity correction across pairs of models",
        ),
        _markdown(
            "load-data-intro",
            "## The data\n\n"
            "Long format: one row per replication, fold, model and record, with the "
            "record's loss (or what the formula's left side computes it from).",
        ),
        _code("load-data", f"{load}\ndf.head()"),
        _markdown(
            "build-table-intro",
            "## The results table\n\n"
            "cvreport validates the table once and recognises the cross-validation "
            "design; below, the mean loss of every model on every validation fold.",
        ),
        _code(
            "build-table",
            "table = cvreport.ResultsTable.from_formula(FORMULA, df, record=RECORD)\n"
            "print(table.design.describe())\n"
            'print("models:", ", ".join(map(str, table.models)))\n'
            'table.fold_errors().pivot_table(index=["replication", "fold"], '
            'columns="model", values="loss")',
        ),
        _markdown(
            "audit-intro",
            "## How well were the partitions drawn?\n\n"
            "The overlap audit compares the training sets of every pair of "
            "replications: random partitions can overlap much more than n/4, which "
            "distorts the tests; balanced and block-regularized designs do not.",
        ),
        _code(
            "audit",
            "try:\n"
            "    audit = cvreport.audit_overlap(table)\n"
            "except cvreport.DesignError as reason:  # e.g. one replication: nothing to compare\n"
            '    print(f"No overlap audit: {reason}")\n'
            "else:\n"
            "    display(audit)",
        ),
        _markdown(
            "tests-intro",
            "## The tests\n\n"
            "The report runs the tests the literature recommends for this design "
            "(or those named in `TESTS`) on every pair of models.",
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
        The column identifying a record.
    tests, alpha, correction
        Passed to :class:`cvreport.report.Report` in the notebook.
    title : str, optional
        The notebook's heading.
    overwrite : bool
        Replace an existing file.
    check : bool
        Load the data and build the table now, so that a bad path, formula or
        column fails here with a clear message rather than in the notebook.

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

    target = Path(path)
    if target.suffix != ".ipynb":
        raise CVReportError(f"a notebook's file name ends in .ipynb, got {str(target)!r}")
    if target.exists() and not overwrite:
        raise NotebookExistsError(
            f"{target} exists; pass overwrite=True (--overwrite on the command line) to replace it",
            target,
        )
    _check_tests(tests if isinstance(tests, str) else list(tests))
    _check_correction(correction)
    reference: str | None = None
    if str(data) != EXAMPLE:
        source = Path(data)
        _reader_for(source)
        if not source.is_file():
            raise DataError(f"data file {str(source)!r} not found; pass a CSV or Parquet file")
        reference = _relative_to_notebook(source, target)
    if check:
        _check(data, formula, record)
    notebook = build(
        data=data,
        formula=formula,
        record=record,
        tests=tests,
        alpha=alpha,
        correction=correction,
        title=title,
        data_reference=reference,
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
    """Write ``text`` beside ``target`` and move it into place; never half a file.

    Without ``overwrite`` the move is a hard link, which fails if ``target``
    appeared in the meantime.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes the file private; use the umask
        if overwrite:
            os.replace(temporary, target)
            return
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise NotebookExistsError(
                f"{target} exists; pass overwrite=True (--overwrite on the command line) "
                "to replace it",
                target,
            ) from None
        except OSError:  # a file system without hard links
            if target.exists():
                raise NotebookExistsError(
                    f"{target} exists; pass overwrite=True to replace it", target
                ) from None
            os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)


def _reader_for(source: Path) -> str:
    reader = _READERS.get(source.suffix.lower())
    if reader is None:
        raise DataError(
            f"cannot read {str(source)!r}: the data must be a .csv or .parquet file "
            f"(or the string {EXAMPLE!r} for the bundled example)"
        )
    return reader


def _relative_to_notebook(source: Path, notebook: Path) -> str:
    if source.is_absolute():
        return str(source)
    return Path(os.path.relpath(source.resolve(), notebook.resolve().parent)).as_posix()


def _check_tests(tests: str | list[str]) -> None:
    """Fail now, not in the notebook, on test names cvreport does not know."""
    from cvreport.selection import get_spec

    names = (
        [t.strip() for t in tests.split(",") if t.strip()]
        if isinstance(tests, str) and tests not in ("recommended", "all")
        else ([] if isinstance(tests, str) else tests)
    )
    if not isinstance(tests, str) and not tests:
        raise CVReportError("tests is empty; pass 'recommended', 'all' or test names")
    for name in names:
        try:
            get_spec(name)
        except CVReportError as exc:
            raise CVReportError(f"{exc}; or pass 'recommended' or 'all'") from exc


def _check_correction(correction: str | None) -> None:
    from cvreport.report import CORRECTIONS

    if correction is not None and correction not in CORRECTIONS:
        raise CVReportError(
            f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}"
        )


def _check(data: str | os.PathLike[str], formula: str, record: str) -> None:
    from cvreport.table import ResultsTable

    if str(data) == EXAMPLE:
        from cvreport.examples import load_example

        frame = load_example()
    else:
        from cvreport.cli import read_data

        frame = read_data(Path(data))
    ResultsTable.from_formula(formula, frame, record=record)
