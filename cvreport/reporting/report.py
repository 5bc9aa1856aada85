"""The report: every applicable test for every pair of models, the audit, and what it all means.

:class:`Report` collects result objects (it computes no statistic itself: the
tests come from :mod:`cvreport.methods`, the audit from :mod:`cvreport.partitions.audit`)
through :mod:`~cvreport.reporting.analysis` (run two-sided, adjust, read) and
:mod:`~cvreport.reporting.view` (the plain context) and renders it through the
packaged Jinja2 templates as a standalone HTML page, GitHub-flavoured Markdown or
LaTeX (booktabs). Every number shown is in the table's metric and direction
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
No significant difference at α = 0.05 (Alpaydın's combined 5×2cv F test, p = 0.027,
adjusted p = 0.082). logistic_regression has the lower mean error rate, by 0.0573
(A − B = -0.0573).

``report.save("report.html")`` writes the standalone page; ``.md`` and ``.tex``
give Markdown and LaTeX.
"""

from __future__ import annotations

import copy
import hashlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from cvreport.data.metric import Metric
from cvreport.errors import (
    CVReportError,
    DataError,
    describe_keys,
)
from cvreport.rendering.display import ReportDisplay
from cvreport.rendering.writer import OutputExistsError, format_from_suffix, write_text
from cvreport.reporting import analysis, overview, selection, view
from cvreport.reporting.analysis import Comparison, Posterior, SkippedTest, TestOutcome
from cvreport.reporting.references import HOLM_REFERENCE, OVERLAP_REFERENCE
from cvreport.results import TestResult, check_alpha

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
]

CORRECTIONS = (
    "holm",
    "bonferroni",
    "holm-sidak",
    "sidak",
    "simes-hochberg",
    "hommel",
    "fdr_bh",
    "fdr_by",
    "none",
)
"""Multiplicity corrections accepted by :class:`Report` (statsmodels ``multipletests`` methods)."""

FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".tex": "latex"}
"""File suffixes :meth:`Report.save` recognises, and the format each one means."""

_FORMAT_ALIASES = {
    "html": "html",
    "htm": "html",
    "md": "markdown",
    "markdown": "markdown",
    "tex": "latex",
    "latex": "latex",
}


class ReportExistsError(OutputExistsError):
    """The report's target file exists and ``overwrite`` was not set."""


class Report(ReportDisplay):
    """Compare models from a table of cross-validation results, and render the comparison.

    Parameters
    ----------
    table : ResultsTable or str
        The results, or a formula such as ``"loss ~ model | replication + fold"``
        together with ``data``.
    pairs : sequence of (str, str), optional
        The pairs of models to compare, as (A, B). Default: every pair, in the
        order the models first appear.
    tests : "recommended", "all" or sequence of str
        ``"recommended"`` runs the tests recommended for the design;
        ``"all"`` those and every registered test that fits the design (always a
        superset of ``"recommended"``, fallbacks included); a list names test
        functions (see :data:`cvreport.reporting.selection.TEST_SPECS`).
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
    comparisons : list of Comparison
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
        table: ResultsTable | str,
        *,
        pairs: Sequence[tuple[str, str]] | None = None,
        tests: str | Sequence[str] = "recommended",
        alpha: float = 0.05,
        correction: str | None = "holm",
        data: pd.DataFrame | None = None,
        title: str | None = None,
        test_options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        if isinstance(table, str) or data is not None:
            from cvreport.methods._common import as_table

            table = as_table(table, data)
        if isinstance(table, pd.DataFrame):
            raise DataError(
                "Report needs a ResultsTable or a formula with data=, got a DataFrame: pass "
                "Report('loss ~ model | replication + fold', data=df) or "
                "Report(ResultsTable.from_formula(...))"
            )
        self.table = table
        self.alpha = check_alpha(alpha)
        self.correction = _check_correction(correction)
        self.pairs = self._resolve_pairs(pairs)
        self.title = title or _default_title(self.pairs)
        design = self.table.design
        self.design = design
        self.audit, self.audit_note = self._run_audit()
        self.partitions: str | None = getattr(self.audit, "design", None)
        from cvreport.reporting.metric_choice import metric_recommendation

        self.recommendation = metric_recommendation(
            self.table, partitions=self.partitions
        ) or selection.recommendation(
            design.kind,
            partitions=self.partitions,
            binary=bool(self.table.is_binary),
            per_record=bool(self.table.per_record),
        )
        if not isinstance(tests, str):
            try:
                # a tuple, an array or a generator of names
                tests = [str(t) if isinstance(t, str) else t for t in tests]
            except TypeError:
                raise CVReportError(
                    f"tests must be 'recommended', 'all' or a list of test names, got {tests!r}"
                ) from None
        self.tests = tests
        self.test_names = self._resolve_tests(tests)
        self.test_options = {
            selection.get_spec(name).name: dict(options)
            for name, options in (test_options or {}).items()
        }
        # many models: every pair in one overview, details for the best model's pairs
        self.overview: pd.DataFrame | None = None
        if pairs is None and len(self.pairs) > overview.DETAIL_LIMIT and self.recommendation.names:
            self.overview = overview.pair_overview(
                self.table,
                self.recommendation.names[0],
                alpha=self.alpha,
                correction=self.correction,
            )
            self.pairs = overview.detailed_pairs(self.table)
        self.analysis = analysis.Analysis(
            self.table,
            self.pairs,
            self.test_names,
            self.recommendation,
            fallback=self.tests in ("recommended", "all"),
            alpha=self.alpha,
            correction=self.correction,
            test_options=self.test_options,
        )
        self.comparisons = self.analysis.comparisons
        self._context_cache: dict[str, Any] | None = None
        self.figure_prefix = (
            "cvr"
            + hashlib.sha1(
                repr((self.title, self.pairs, self.test_names, self.alpha)).encode()
            ).hexdigest()[:6]
        )

    # -- setup -----------------------------------------------------------
    def _resolve_pairs(self, pairs: Sequence[tuple[str, str]] | None) -> list[tuple[str, str]]:
        models = list(self.table.models)
        if pairs is None:
            if len(models) < 2:
                raise DataError(
                    f"a report compares models, but the table holds only {describe_keys(models)}"
                )
            return [
                (models[i], models[j])
                for i in range(len(models))
                for j in range(i + 1, len(models))
            ]
        if isinstance(pairs, str):
            raise CVReportError(f"pairs must be a list of (A, B) pairs, got the string {pairs!r}")
        if len(pairs) == 2 and all(
            isinstance(p, str) or not hasattr(p, "__len__") for p in pairs
        ):  # one pair given bare, e.g. pairs=("a", "b")
            raise CVReportError(
                f"pairs must be a list of (A, B) pairs, got {pairs!r}; for one pair write "
                f"pairs=[{tuple(pairs)!r}]"
            )
        resolved: list[tuple[str, str]] = []
        for pair in pairs:
            if isinstance(pair, str) or not hasattr(pair, "__len__") or len(pair) != 2:
                raise CVReportError(
                    f"each pair must be two model names (A, B), got {pair!r}; "
                    f"the models are {describe_keys(models)}"
                )
            a, b = self.table.resolve_pair(pair[0], pair[1])
            if a == b:
                raise CVReportError(f"a pair needs two different models, got {a!r} twice")
            if (b, a) in resolved:
                raise CVReportError(
                    f"the pair ({a!r}, {b!r}) repeats ({b!r}, {a!r}) reversed; compare each pair "
                    "once (a reversed pair is the same comparison and would be counted twice "
                    "in the multiplicity correction)"
                )
            if (a, b) not in resolved:
                resolved.append((a, b))
        if not resolved:
            raise CVReportError("pairs is empty; pass None to compare every pair of models")
        return resolved

    def _resolve_tests(self, tests: str | Sequence[str]) -> list[str]:
        design = self.table.design
        binary, per_record = bool(self.table.is_binary), bool(self.table.per_record)
        if not isinstance(tests, str) and not all(isinstance(t, str) for t in tests):
            raise CVReportError(
                f"tests must be 'recommended', 'all' or a list of test names, got {tests!r}"
            )
        if isinstance(tests, str):
            if tests == "recommended":
                return list(self.recommendation.names)
            if tests == "all":
                # every test "recommended" would run (its fallbacks included), then the rest
                fitting = [
                    s.name
                    for s in selection.specs_for(design.kind, binary=binary, per_record=per_record)
                ]
                first = [*self.recommendation.names, *self.recommendation.fallbacks]
                return list(dict.fromkeys([*first, *fitting]))
            tests = [t.strip() for t in tests.split(",") if t.strip()]
        names: list[str] = []
        for name in tests:
            try:
                selection.get_spec(name)  # raises with the known names
            except CVReportError as exc:
                raise CVReportError(f"{exc}; or pass tests='recommended' or tests='all'") from exc
            if name not in names:
                names.append(name)
        if not names:
            raise CVReportError(
                "no test named; pass tests='recommended', 'all' or a list of test names"
            )
        return names

    def _run_audit(self) -> tuple[Any, str | None]:
        design = self.table.design
        if not (design.kind in ("mx2", "repeated_kfold") and design.m >= 2):
            return None, None
        if not self.table.has_records:
            return None, (
                "The overlap audit needs per-record losses (which record was in which fold); "
                "only per-fold scores were given."
            )
        try:
            return _audit(self.table), None
        except ImportError as exc:  # pragma: no cover - depends on the installation
            return None, f"The overlap audit is not available in this installation ({exc})."
        except CVReportError as exc:
            if design.kind == "mx2":
                return None, f"The overlap audit could not run: {exc}"
            return None, None

    # -- what the report holds ------------------------------------------
    @property
    def metric(self) -> Metric:
        """The table's metric: every number the report shows is in its units and direction."""
        return self.analysis.metric

    @property
    def measure(self) -> str:
        """What the values measure, in words (the metric's name, "error rate" for 0/1 errors)."""
        return self.metric.name

    @property
    def results(self) -> list[TestResult]:
        """Every result object, pair by pair, in the order shown."""
        return [o.result for c in self.comparisons for o in c.outcomes]

    @property
    def outcomes(self) -> list[TestOutcome]:
        """Every :class:`TestOutcome`, pair by pair."""
        return [o for c in self.comparisons for o in c.outcomes]

    @property
    def skipped(self) -> list[SkippedTest]:
        """Tests that were asked for but could not run, with the reason."""
        return [s for c in self.comparisons for s in c.skipped]

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
            self._context_cache = view.build_context(self)
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
        if kind == "html":
            return self.to_html(**options)
        if kind == "markdown":
            return self.to_markdown(**options)
        return self.to_latex(**options)

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
        target = Path(path)
        if format is None:
            kind = format_from_suffix(
                target, FORMATS, or_else=" or pass format='html', 'md' or 'tex'"
            )
        else:
            kind = _format_kind(format)
        if target.is_dir():
            raise CVReportError(
                f"{target} is a folder; give a file name inside it, e.g. "
                f"{target / _DEFAULT_NAMES[kind]}"
            )
        if target.exists() and not overwrite:
            raise ReportExistsError(
                f"{target} exists; pass overwrite=True (--overwrite on the command line) to "
                "replace it",
                target,
            )
        text = self.render(kind, **options)
        _write_atomically(target, text, overwrite=overwrite)
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
            f"Report({len(self.table.models)} models, {len(self.comparisons)} pairs, "
            f"{len(self.results)} results, design={self.table.design.kind!r}, "
            f"alpha={self.alpha:g}, correction={self.correction!r})"
        )


def report(
    table: ResultsTable | str,
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    tests: str | Sequence[str] = "recommended",
    alpha: float = 0.05,
    correction: str | None = "holm",
    data: pd.DataFrame | None = None,
    title: str | None = None,
    test_options: Mapping[str, Mapping[str, Any]] | None = None,
) -> Report:
    """Shortcut for :class:`Report`: ``cvreport.report(table).save("report.html")``.

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
    return Report(
        table,
        pairs=pairs,
        tests=tests,
        alpha=alpha,
        correction=correction,
        data=data,
        title=title,
        test_options=test_options,
    )


# -- helpers ------------------------------------------------------------------
def _check_correction(correction: str | None) -> str | None:
    if correction is None or correction == "none":
        return None
    if correction not in CORRECTIONS:
        raise CVReportError(
            f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}"
        )
    return correction


def _default_title(pairs: Sequence[tuple[Any, Any]]) -> str:
    if len(pairs) == 1:
        return f"Comparison of {pairs[0][0]} and {pairs[0][1]}"
    models = {m for pair in pairs for m in pair}
    return f"Comparison of {len(models)} models"


def _nan_if_none(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _audit(table: Any) -> Any:
    """Run the overlap audit (a seam for tests)."""
    from cvreport.partitions.audit import audit_overlap

    return audit_overlap(table)


_RENDER_OPTIONS: dict[str, tuple[str, ...]] = {
    "html": ("standalone",),
    "markdown": (),
    "latex": ("standalone", "stars"),
}
_DEFAULT_NAMES = {"html": "report.html", "markdown": "report.md", "latex": "report.tex"}


def _format_kind(format: str) -> str:
    """``"html"``, ``"markdown"`` or ``"latex"`` for a format name or suffix."""
    kind = _FORMAT_ALIASES.get(str(format).lower().lstrip("."))
    if kind is None:
        raise CVReportError(
            f"unknown report format {format!r}; choose html, md (markdown) or tex (latex)"
        )
    return kind


def _render_html(context: Mapping[str, Any], *, standalone: bool) -> str:
    from cvreport.rendering.environment import html_environment

    name = "report.html.j2" if standalone else "report_fragment.html.j2"
    return html_environment().get_template(name).render(context)


def _render_markdown(context: Mapping[str, Any]) -> str:
    from cvreport.rendering.environment import text_environment

    return text_environment().get_template("report.md.j2").render(context)


def _render_latex(context: Mapping[str, Any], *, standalone: bool, stars: bool) -> str:
    from cvreport.rendering.environment import latex_environment

    # a standalone document keeps each table where it belongs (float's [H]);
    # a fragment leaves placement to the paper
    placement = "H" if standalone else "htbp"
    extended = dict(context) | {"standalone": standalone, "stars": stars, "placement": placement}
    return latex_environment().get_template("report.tex.j2").render(extended)


def _write_atomically(target: Path, text: str, *, overwrite: bool) -> None:
    """Write ``text`` to ``target`` atomically (:func:`cvreport.rendering.writer.write_text`)."""
    write_text(target, text, overwrite=overwrite, exists_error=ReportExistsError)
