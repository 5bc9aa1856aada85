"""The report: every applicable test for every pair of models, the audit, and what it all means.

:class:`Report` renders an :class:`~cvreport.reporting.analyse.Analysis` (it
computes no statistic itself: :func:`~cvreport.reporting.analyse.analyse` runs the
tests of :mod:`cvreport.methods` and the audit of :mod:`cvreport.partitions.audit`
once, and :mod:`~cvreport.reporting.view` turns the value into a plain context)
through the packaged Jinja2 templates as a standalone HTML page, GitHub-flavoured
Markdown or LaTeX (booktabs). Every number shown is in the table's metric and direction
(:attr:`Report.metric`): estimates and intervals are metric(A) − metric(B).
Sections:

1. the data: models, records, design (m, K, fold sizes), where the numbers came from;
2. the overlap audit of m×2 partitions (Wang, Li and Li 2015) with its verdict;
3. per-model metric: mean and spread over folds, and accuracy, balanced
   accuracy, precision, recall and F1 when truth and predictions are known;
4. the recommended test for the design, with the reason;
5. for each pair: every test that ran, with statistic, df, p-value, decision at
   α, multiplicity-adjusted p-value (statsmodels ``multipletests``, Holm by
   default, when more than one pair is compared), estimate and interval, a
   dot plot of the per-fold differences and a plain-language reading;
6. the p-values of all tests against α (a figure);
7. caveats and references.

Examples
--------
>>> import cvreport
>>> table = cvreport.ResultsTable.from_formula(
...     "loss ~ model | replication + fold", cvreport.load_example())
>>> report = cvreport.Report(table)
>>> [(o.a, o.b, o.name) for o in report.outcomes][:1]
[('logistic_regression', 'decision_tree', 'combined_ftest_5x2cv')]
>>> print(report.context()["bottom_line"][0]["text"])  # doctest: +NORMALIZE_WHITESPACE
No significant difference at α = 0.05 (Alpaydın's combined 5×2cv F test, adjusted
p = 0.082; unadjusted p = 0.027). logistic_regression has the lower mean error rate, by 0.0573
(logistic_regression − decision_tree = -0.0573).

``report.save("report.html")`` writes the standalone page; ``.md`` and ``.tex``
give Markdown and LaTeX.
"""

from __future__ import annotations

import copy
import hashlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from cvreport.data.metric import Metric
from cvreport.data.table_input import as_table
from cvreport.errors import CVReportError, DataError
from cvreport.methods.recommendation import Recommendation
from cvreport.references import HOLM_REFERENCE, OVERLAP_REFERENCE
from cvreport.rendering.display import ReportDisplay
from cvreport.rendering.environment import html_environment, latex_environment, text_environment
from cvreport.rendering.writer import (
    OutputExistsError,
    format_from_suffix,
    output_path,
    refuse_existing,
    write_text,
)
from cvreport.reporting import view
from cvreport.reporting.analyse import CORRECTIONS, Analysis, Plan, analyse
from cvreport.reporting.analysis import Comparison, Posterior, SkippedTest, TestOutcome
from cvreport.results import TestResult

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "CORRECTIONS",
    "FORMATS",
    "HOLM_REFERENCE",
    "OVERLAP_REFERENCE",
    "Comparison",
    "Posterior",
    "Report",
    "ReportExistsError",
    "SkippedTest",
    "TestOutcome",
    "report",
    "report_format",
]

FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".tex": "latex"}
"""File suffixes :meth:`Report.save` recognises, and the format each one means."""

_FORMAT_ALIASES = {suffix[1:]: kind for suffix, kind in FORMATS.items()} | {
    kind: kind for kind in FORMATS.values()
}


class ReportExistsError(OutputExistsError):
    """The report's target file exists and ``overwrite`` was not set."""


def _forward(name: str, doc: str) -> Any:
    """A read-only attribute of the report that reads its analysis."""
    return property(lambda report: getattr(report.analysis, name), doc=doc)


class Report(ReportDisplay):
    """Compare models from a table of cross-validation results, and render the comparison.

    Parameters
    ----------
    table : ResultsTable, Analysis or str
        The results, or a formula such as ``"loss ~ model | replication + fold"``
        together with ``data``, or an analysis already run
        (:func:`~cvreport.reporting.analyse.analyse`; the other arguments but
        ``title`` then do not apply, see :meth:`from_analysis`).
    pairs : sequence of (str, str), optional
        The pairs of models to compare, as (A, B). Default: every pair, in the
        order the models first appear.
    tests : "recommended", "all" or sequence of str
        ``"recommended"`` runs the tests recommended for the design;
        ``"all"`` those and every registered test that fits the design (always a
        superset of ``"recommended"``, fallbacks included); a list names test
        functions (the two-model tests of :data:`cvreport.methods.registry.SPECS`).
    alpha : float
        Significance level for the decisions.
    correction : str
        Multiplicity correction across pairs (a statsmodels ``multipletests``
        method, or ``"none"``); applied per test when more than one pair is compared.
    data : pandas.DataFrame, optional
        The long-format losses when ``table`` is a formula.
    title : str, optional
        The report's heading.
    test_options : mapping of str to mapping, optional
        Keyword arguments for individual tests, e.g.
        ``{"bayesian_correlated_ttest": {"rope": 0.01}}`` (a region of practical
        equivalence of ±0.01 in the metric's units, the default). Tests that take an
        ``alternative`` run two-sided unless it is given here.

    Attributes
    ----------
    analysis : Analysis
        The frozen value the report renders; every attribute below reads it.
    comparisons : tuple of Comparison
        Per pair, the outcomes (result plus adjusted p-value, decision, reading)
        and the tests that could not run.
    results : list of TestResult
        Every result object, pair by pair.
    audit : OverlapAudit or None
        The overlap audit (m×2 designs with per-record losses).

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example("bcv"))
    >>> report = cvreport.Report(table, pairs=[("logistic_regression", "naive_bayes")])
    >>> report.title, report.partitions
    ('Comparison of logistic_regression and naive_bayes', 'block-regularized')
    >>> [r.test for r in report.results]
    ['calibrated_ftest_5x2cv', 'mcnemar_5x2bcv']
    >>> print(report.to_markdown().splitlines()[0])
    # Comparison of logistic\\_regression and naive\\_bayes
    """

    def __init__(
        self,
        table: ResultsTable | Analysis | str,
        *,
        pairs: Sequence[tuple[str, str]] | None = None,
        tests: str | Sequence[str] = "recommended",
        alpha: float = 0.05,
        correction: str | None = "holm",
        data: pd.DataFrame | None = None,
        title: str | None = None,
        test_options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        if isinstance(table, Analysis):
            analysis = table
        else:
            if isinstance(table, pd.DataFrame):
                raise DataError(
                    "Report needs a ResultsTable or a formula with data=, got a DataFrame: pass "
                    "Report('loss ~ model | replication + fold', data=df) or "
                    "Report(ResultsTable.from_formula(...))"
                )
            if isinstance(table, str) or data is not None or not hasattr(table, "models"):
                table = as_table(table, data)  # refuses what is neither a table nor a formula
            plan = Plan(pairs, tests, alpha, correction, test_options)
            analysis = analyse(table, plan)
        self.analysis = analysis
        self.title = title or _default_title(analysis.pairs, analysis.overview)
        self._context_cache: dict[str, Any] | None = None
        key = repr((self.title, list(analysis.pairs), analysis.test_names, analysis.alpha))
        self.figure_prefix = "cvr" + hashlib.sha1(key.encode()).hexdigest()[:6]

    @classmethod
    def from_analysis(cls, analysis: Analysis, *, title: str | None = None) -> Report:
        """The report of an :class:`~cvreport.reporting.analyse.Analysis` (nothing is rerun).

        Examples
        --------
        >>> import cvreport
        >>> from cvreport.reporting.analyse import analyse
        >>> table = cvreport.ResultsTable.from_formula(
        ...     "loss ~ model | replication + fold", cvreport.load_example())
        >>> result = analyse(table, pairs=[("logistic_regression", "decision_tree")])
        >>> Report.from_analysis(result).to_markdown() == Report(
        ...     table, pairs=[("logistic_regression", "decision_tree")]).to_markdown()
        True
        """
        return cls(analysis, title=title)

    # -- what the report holds (read from its analysis) ------------------
    table: ResultsTable = _forward("table", "The table analysed.")
    design: Any = _forward("design", "The table's cross-validation design.")
    alpha: float = _forward("alpha", "The significance level of the decisions.")
    correction: str | None = _forward(
        "correction", "The multiplicity correction across pairs (None for none)."
    )
    test_names: list[str] = _forward("test_names", "The names of the tests run on every pair.")
    recommendation: Recommendation = _forward(
        "recommendation", "The tests recommended for the design and the metric, with the reason."
    )
    audit: Any = _forward(
        "audit",
        "The overlap audit (m×2 and repeated K-fold designs with per-record losses) or None.",
    )
    audit_note: str | None = _forward(
        "audit_note", "Why there is no audit, when that needs saying."
    )
    partitions: str | None = _forward(
        "partitions", "The m×2 partition design the audit recognised."
    )
    overview: pd.DataFrame | None = _forward(
        "overview", "Every pair in one table, when there are too many pairs to detail."
    )
    comparisons: tuple[Comparison, ...] = _forward(
        "comparisons", "Per pair, the outcomes and the tests that could not run."
    )
    metric: Metric = _forward(
        "metric", "The table's metric: every number the report shows is in its units and direction."
    )
    results: list[TestResult] = _forward(
        "results", "Every result object, pair by pair, in the order shown."
    )
    outcomes: list[TestOutcome] = _forward("outcomes", "Every :class:`TestOutcome`, pair by pair.")
    skipped: list[SkippedTest] = _forward(
        "skipped", "Tests that were asked for but could not run, with the reason."
    )

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """The pairs detailed, as (A, B)."""
        return list(self.analysis.pairs)

    @property
    def tests(self) -> str | list[str]:
        """The tests asked for, as given."""
        tests = self.analysis.tests
        return tests if isinstance(tests, str) else list(tests)

    @property
    def test_options(self) -> dict[str, dict[str, Any]]:
        """The options given per test."""
        return {name: dict(options) for name, options in self.analysis.test_options.items()}

    @property
    def measure(self) -> str:
        """What the values measure, in words (the metric's name, "error rate" for 0/1 errors)."""
        return self.metric.name

    def to_frame(self) -> pd.DataFrame:
        """One tidy row per test and pair, with the adjusted p-value and the stated decision.

        Every column is in the user's metric (A − B); the ``shown_*`` columns are what
        the report prints beside each other (for Dietterich's t, p₁⁽¹⁾ and its interval).
        """
        frames = []
        for outcome in self.outcomes:
            row = outcome.result.to_frame(self.alpha)
            row["recommended"] = outcome.recommended
            row["pvalue_adjusted"] = outcome.adjusted if outcome.adjusted is not None else math.nan
            row["decision"] = outcome.reject
            low, high = outcome.shown_interval or (math.nan, math.nan)
            row["metric"] = self.metric.name
            row["direction"] = self.metric.direction
            row["shown_statistic"] = _nan_if_none(outcome.shown_statistic)
            row["shown_estimate"] = _nan_if_none(outcome.shown_estimate)
            row["shown_estimate_is"] = outcome.estimate_label
            row["shown_ci_low"], row["shown_ci_high"] = low, high
            frames.append(row)
        if not frames:
            return pd.DataFrame(
                columns=["test", "model_a", "model_b", "statistic", "pvalue", "pvalue_adjusted"]
            )
        return pd.concat(frames, ignore_index=True)

    def context(self) -> dict[str, Any]:
        """The report as a plain dict (numbers, strings, lists, dicts): what the templates render.

        Built once (the report does not change after construction); each call
        returns a fresh copy that the caller may modify.
        """
        return copy.deepcopy(self._context())

    def _context(self) -> dict[str, Any]:
        if self._context_cache is None:
            self._context_cache = view.build_context(
                self.analysis, title=self.title, figure_prefix=self.figure_prefix
            )
        return self._context_cache

    # -- rendering -------------------------------------------------------
    def to_html(self, *, standalone: bool = True) -> str:
        """The report as HTML: a standalone page (inline CSS, no external resources) or a fragment."""
        return _render_html(self._context(), standalone=standalone)

    def to_markdown(self) -> str:
        """The report as GitHub-flavoured Markdown (tables; figures are left to HTML)."""
        return _render_markdown(self._context())

    def to_latex(self, *, standalone: bool = True, stars: bool = False) -> str:
        """The report as LaTeX with booktabs tables.

        Parameters
        ----------
        standalone : bool
            A complete document (compiles with pdflatex as is) or, when False,
            the body alone for ``\\input`` into a paper (needs ``booktabs``).
        stars : bool
            Mark p-values with ``*`` (< 0.05), ``**`` (< 0.01), ``***`` (< 0.001)
            and add the legend under each table.
        """
        return _render_latex(self._context(), standalone=standalone, stars=stars)

    def render(self, format: str, **options: Any) -> str:
        """Render in ``format``: ``"html"``, ``"markdown"``/``"md"`` or ``"latex"``/``"tex"``.

        ``options`` are those of :meth:`to_html` (``standalone``) or :meth:`to_latex`
        (``standalone``, ``stars``); Markdown takes none.
        """
        kind = _format_kind(format)
        unknown = sorted(set(options) - set(_RENDER_OPTIONS[kind]))
        if unknown:
            allowed = ", ".join(_RENDER_OPTIONS[kind]) or "none"
            raise CVReportError(
                f"{', '.join(unknown)} does not apply to {kind} output (its options: {allowed})"
            )
        renderers = {"html": self.to_html, "markdown": self.to_markdown, "latex": self.to_latex}
        return renderers[kind](**options)

    def save(
        self,
        path: str | os.PathLike[str],
        *,
        overwrite: bool = False,
        format: str | None = None,
        **options: Any,
    ) -> Path:
        """Write the report to ``path``, atomically; the format follows the suffix.

        ``.html``/``.htm`` → HTML, ``.md`` → Markdown, ``.tex`` → LaTeX (or pass
        ``format``). The text goes to a temporary file in the same folder that is
        then renamed into place, so a reader never sees a half-written report. An
        existing file is kept unless ``overwrite=True``.

        Returns
        -------
        pathlib.Path
            The path written.

        Raises
        ------
        ReportExistsError
            When ``path`` exists and ``overwrite`` is False (a ``FileExistsError``).
        CVReportError
            When the format cannot be told from the suffix.
        OSError
            When the folder does not exist or is not writable.
        """
        target = output_path(path)
        if target.is_dir():  # said before its suffix-less name is blamed for the format
            raise CVReportError(
                f"{target} is a folder; give a file name inside it, e.g. "
                f"{target / _DEFAULT_NAMES['html' if format is None else _format_kind(format)]}"
            )
        kind = report_format(target, format)
        refuse_existing(target, overwrite=overwrite, exists_error=ReportExistsError)
        _write_atomically(target, self.render(kind, **options), overwrite=overwrite)
        return target

    # -- display ---------------------------------------------------------
    def _display_renderers(self) -> dict[str, Callable[[], str]]:
        """Jupyter's formats, all rendered from one :meth:`context` (an HTML fragment)."""
        context = cache(self.context)
        return {
            "text/html": lambda: _render_html(context(), standalone=False),
            "text/markdown": lambda: _render_markdown(context()),
            "text/latex": lambda: _render_latex(context(), standalone=False, stars=False),
        }

    def __repr__(self) -> str:
        return (
            f"Report({_count(len(self.table.models), 'model')}, "
            f"{_count(len(self.comparisons), 'pair')}, {_count(len(self.results), 'result')}, "
            f"design={self.table.design.kind!r}, "
            f"alpha={self.alpha:g}, correction={self.correction!r})"
        )


def report(table: ResultsTable | str, **options: Any) -> Report:
    """Shortcut for :class:`Report`: ``cvreport.report(table).save("report.html")``.

    ``options`` are those of :class:`Report` (``pairs``, ``tests``, ``alpha``,
    ``correction``, ``data``, ``title``, ``test_options``).

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> rep = cvreport.report(table, pairs=[("logistic_regression", "decision_tree")])
    >>> [(r.test, round(r.statistic, 4), round(r.pvalue, 3)) for r in rep.results]
    [('combined_ftest_5x2cv', 6.3509, 0.027)]
    >>> rep.to_markdown().startswith("# ")
    True
    """
    return Report(table, **options)


# -- helpers ------------------------------------------------------------------
def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _default_title(pairs: Sequence[tuple[Any, Any]], every_pair: Any = None) -> str:
    if len(pairs) == 1:
        return f"Comparison of {pairs[0][0]} and {pairs[0][1]}"
    models = {m for pair in pairs for m in pair}
    if every_pair is not None:  # the all-pairs overview compares every model
        models |= {*every_pair["a"], *every_pair["b"]}
    return f"Comparison of {len(models)} models"


def _nan_if_none(value: float | None) -> float:
    return math.nan if value is None else float(value)


_RENDER_OPTIONS: dict[str, tuple[str, ...]] = {
    "html": ("standalone",),
    "markdown": (),
    "latex": ("standalone", "stars"),
}
_DEFAULT_NAMES = {"html": "report.html", "markdown": "report.md", "latex": "report.tex"}


def report_format(target: Path, format: str | None = None, *, flag: str = "format=") -> str:
    """The format of a report written to ``target``: ``format``, else its suffix's.

    A ``format`` that contradicts a suffix of :data:`FORMATS` is refused: Markdown
    in a file named ``.html`` opens in a browser as one line of text.

    Parameters
    ----------
    target : pathlib.Path
        The file the report goes to.
    format : str, optional
        ``"html"``, ``"md"``/``"markdown"`` or ``"tex"``/``"latex"``.
    flag : str
        How a message names the option (``"--format "`` on the command line).

    Returns
    -------
    str
        ``"html"``, ``"markdown"`` or ``"latex"``.

    Raises
    ------
    CVReportError
        For an unknown format, a suffix no format has (without ``format``), or a
        format and a suffix that name two formats.

    Examples
    --------
    >>> report_format(Path("r.md")), report_format(Path("notes.txt"), "md")
    ('markdown', 'markdown')
    >>> report_format(Path("r.html"), "md")
    Traceback (most recent call last):
    ...
    cvreport.errors.CVReportError: format='md' asks for Markdown, but the file name r.html ...
    """
    if format is None:
        return format_from_suffix(target, FORMATS, or_else=" or pass format='html', 'md' or 'tex'")
    kind = _format_kind(format)
    named = FORMATS.get(target.suffix.lower())
    if named is not None and named != kind:
        given = f"{flag}{format!r}" if flag.endswith("=") else f"{flag}{format}"
        raise CVReportError(
            f"{given} asks for {_FORMAT_NAMES[kind]}, but the file name {target.name} ends in "
            f"{target.suffix} ({_FORMAT_NAMES[named]}); name the file for the format you want "
            f"(e.g. {target.with_suffix(_SUFFIXES[kind]).name}) or leave the format out"
        )
    return kind


#: What a reader calls each format, and the suffix of a file of that format.
_FORMAT_NAMES = {"html": "HTML", "markdown": "Markdown", "latex": "LaTeX"}
_SUFFIXES = {"html": ".html", "markdown": ".md", "latex": ".tex"}


def _format_kind(format: str) -> str:
    """``"html"``, ``"markdown"`` or ``"latex"`` for a format name or suffix."""
    kind = _FORMAT_ALIASES.get(str(format).lower().lstrip("."))
    if kind is None:
        raise CVReportError(
            f"unknown report format {format!r}; choose html, md (markdown) or tex (latex)"
        )
    return kind


def _render_html(context: Mapping[str, Any], *, standalone: bool) -> str:
    name = "report.html.j2" if standalone else "report_fragment.html.j2"
    return html_environment().get_template(name).render(context)


def _render_markdown(context: Mapping[str, Any]) -> str:
    return text_environment().get_template("report.md.j2").render(context)


def _render_latex(context: Mapping[str, Any], *, standalone: bool, stars: bool) -> str:
    # a standalone document keeps each table where it belongs (float's [H]);
    # a fragment leaves placement to the paper
    placement = "H" if standalone else "htbp"
    extended = dict(context) | {"standalone": standalone, "stars": stars, "placement": placement}
    return latex_environment().get_template("report.tex.j2").render(extended)


# ``target, text, *, overwrite``: write atomically, refusing an existing file unless overwrite
_write_atomically = partial(write_text, exists_error=ReportExistsError)
