"""The many-data-sets report: the paper's results table, the CD diagram and the tests across data sets.

:class:`DatasetsReport` renders a :class:`~cvreport.multi.analysis.DatasetsAnalysis`
value (from :func:`cvreport.multi.compare_datasets`, run once when the report is
given a table) through the packaged Jinja2 templates, as a standalone HTML page,
Markdown or LaTeX (booktabs). It computes no statistic itself: the view model is
built from the analysis by :mod:`cvreport.reporting.multi_view`, as the
one-data-set :class:`~cvreport.reporting.report.Report` renders an
:class:`~cvreport.reporting.analyse.Analysis`. The report shows:

1. the data sets × models table: mean ± sd of the metric over each data set's
   folds, the best in bold, ▲/▼ where a model is significantly better/worse
   than the baseline on that data set by the test its design calls for, a
   win/tie/loss row and an average rank row, with a legend naming the tests;
2. each data set's design and test;
3. the Friedman test with the Iman–Davenport F, the Nemenyi critical
   difference and the critical-difference diagram (HTML);
4. Wilcoxon signed-rank tests of pairs (Holm or Bergmann–Hommel) and Bayesian
   signed-rank tests with a rope;
5. where the assumptions fail, in words, and the references.

Examples
--------
>>> import pandas as pd
>>> from cvreport.reporting.multi_report import DatasetsReport
>>> auc = pd.DataFrame({"new_model": [.91, .85, .78, .95, .70, .88],
...                     "svm": [.89, .80, .75, .94, .66, .86]},
...                    index=["iris", "wine", "digits", "cancer", "liver", "vote"])
>>> report = DatasetsReport(auc, direction="higher", baseline="new_model", n_samples=2000)
>>> print(report.to_markdown().splitlines()[0])
# new\\_model against 1 model on 6 data sets
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from cvreport.data.datasets import DatasetsTable
from cvreport.errors import CVReportError
from cvreport.multi.analysis import DatasetsAnalysis, compare_datasets
from cvreport.option_values import integer_option
from cvreport.rendering.display import ReportDisplay
from cvreport.rendering.environment import html_environment, latex_environment, text_environment
from cvreport.rendering.writer import (
    format_from_suffix,
    output_path,
    refuse_existing,
    write_text,
)
from cvreport.reporting import interpret, multi_view

__all__ = ["DatasetsReport"]

_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".tex": "latex"}


class DatasetsReport(ReportDisplay):
    """Compare models over many data sets, and render the comparison.

    Parameters
    ----------
    table : DatasetsTable, DatasetsAnalysis, str or pandas.DataFrame
        The results; a formula such as ``"loss ~ model | replication + fold | dataset"``
        with ``data``; a data sets × models frame of summary scores (then
        ``direction`` is required); or an analysis already run
        (:func:`~cvreport.multi.compare_datasets`; then only ``title`` and
        ``digits`` apply, see :meth:`from_analysis`).
    data : pandas.DataFrame, optional
        The long-format results when ``table`` is a formula.
    baseline : str, optional
        The proposed model, compared with every other one (marks, win/tie/loss,
        Bonferroni–Dunn, Wilcoxon, Bayesian). Default: every pair.
    alpha : float
        Level of every decision.
    correction : str or None
        Multiplicity correction of the per-data-set tests within a data set.
    pairwise_correction : str
        Correction of the Wilcoxon tests across pairs (see :func:`compare_datasets`).
    rope : float
        Region of practical equivalence of the Bayesian test, in the metric's units.
    n_samples : int, optional
        Draws of the Bayesian test per pair (default: 50,000, fewer for large
        comparisons, with the Monte Carlo error stated; see :func:`compare_datasets`).
    seed : int or None
        Seed of the Bayesian test.
    digits : int
        Decimals of the table.
    title : str, optional
        The heading.
    per_fold, record, direction :
        Passed to :meth:`DatasetsTable.from_formula` with a formula.

    Attributes
    ----------
    analysis : DatasetsAnalysis
        The frozen value the report renders.
    title : str
        The heading.
    digits : int
        Decimals of the table.

    Raises
    ------
    CVReportError
        For a formula without ``data``, or options given beside an analysis.
    """

    def __init__(
        self,
        table: DatasetsTable | DatasetsAnalysis | str | pd.DataFrame,
        *,
        data: pd.DataFrame | None = None,
        baseline: Any = None,
        alpha: float = 0.05,
        correction: str | None = "holm",
        pairwise_correction: str = "auto",
        rope: float = 0.01,
        n_samples: int | None = None,
        seed: int | None = 0,
        digits: int = 3,
        title: str | None = None,
        per_fold: bool = False,
        record: str = "record",
        direction: str | None = None,
    ) -> None:
        if isinstance(table, DatasetsAnalysis):
            given = {
                "data": data is not None,
                "baseline": baseline is not None,
                "alpha": alpha != 0.05,
                "correction": correction != "holm",
                "pairwise_correction": pairwise_correction != "auto",
                "rope": rope != 0.01,
                "n_samples": n_samples is not None,
                "seed": seed != 0,
                "per_fold": per_fold,
                "record": record != "record",
                "direction": direction is not None,
            }
            if any(given.values()):
                names = ", ".join(name for name, set_ in given.items() if set_)
                raise CVReportError(
                    f"{names} cannot change an analysis already run; pass them to "
                    "compare_datasets, or give DatasetsReport the table instead"
                )
            analysis = table
        else:
            if isinstance(table, str):
                if data is None:
                    raise CVReportError(
                        f"the formula {table!r} needs data=: the long-format results"
                    )
                table = DatasetsTable.from_formula(
                    table,
                    data,
                    per_fold=per_fold,
                    record=record,
                    direction=direction,  # type: ignore[arg-type]
                )
                direction = None
            analysis = compare_datasets(
                table,
                direction=direction,  # type: ignore[arg-type]
                baseline=baseline,
                alpha=alpha,
                correction=correction,
                pairwise_correction=pairwise_correction,
                rope=rope,
                n_samples=n_samples,
                seed=seed,
            )
        self.analysis: DatasetsAnalysis = analysis
        self.digits = integer_option(digits, "digits", "a whole number of decimals ≥ 0")
        if self.digits < 0:
            raise CVReportError(f"digits must be a whole number of decimals ≥ 0, got {digits!r}")
        self.title = title or multi_view.default_title(analysis)
        self._context_cache: dict[str, Any] | None = None
        self._simplex_cache: list[dict[str, str]] | None = None

    @classmethod
    def from_analysis(
        cls, analysis: DatasetsAnalysis, *, title: str | None = None, digits: int = 3
    ) -> DatasetsReport:
        """The report of a :class:`~cvreport.multi.analysis.DatasetsAnalysis` (nothing is rerun).

        Parameters
        ----------
        analysis : DatasetsAnalysis
            What :func:`~cvreport.multi.compare_datasets` returned.
        title : str, optional
            The heading.
        digits : int
            Decimals of the table.

        Returns
        -------
        DatasetsReport

        Examples
        --------
        >>> import pandas as pd
        >>> from cvreport.multi import compare_datasets
        >>> scores = pd.DataFrame({"new": [.91, .85, .78, .95, .70, .88],
        ...                        "old": [.89, .80, .75, .94, .66, .86]})
        >>> analysis = compare_datasets(scores, direction="higher", baseline="new", n_samples=2000)
        >>> DatasetsReport.from_analysis(analysis).to_markdown() == DatasetsReport(
        ...     scores, direction="higher", baseline="new", n_samples=2000).to_markdown()
        True
        """
        return cls(analysis, title=title, digits=digits)

    @property
    def table(self) -> DatasetsTable | None:
        """The table analysed (None for a frame of summary scores)."""
        return self.analysis.table

    # -- the view model (built from the analysis, once) ----------------------
    def table_context(self) -> dict[str, Any]:
        """The data sets × models table as plain values for the templates."""
        return multi_view.table_context(self.analysis, digits=self.digits)

    def latex_table_context(
        self, *, layout: str = "auto", span: str = "column", fit_labels: bool = False
    ) -> dict[str, Any]:
        """The LaTeX layout of the data sets × models table (see :meth:`table_latex`)."""
        return multi_view.latex_table_context(
            self.analysis, digits=self.digits, layout=layout, span=span, fit_labels=fit_labels
        )

    def context(self) -> dict[str, Any]:
        """Everything the report templates show, as plain values (built once)."""
        if self._context_cache is None:
            self._context_cache = multi_view.build_context(
                self.analysis, title=self.title, digits=self.digits
            )
        return self._context_cache

    def simplex_figures(self) -> list[dict[str, str]]:
        """The posterior of the first pairs' Bayesian signed-rank tests on the simplex (SVG)."""
        if self._simplex_cache is None:
            self._simplex_cache = multi_view.simplex_figures(self.analysis)
        return self._simplex_cache

    def cd_svg(self, *, figure_id: str = "cvr-cd") -> str:
        """The critical-difference diagram (Nemenyi cliques) as inline SVG."""
        return multi_view.cd_svg(self.analysis, figure_id=figure_id)

    # -- rendering ---------------------------------------------------------
    def to_html(self, *, standalone: bool = True) -> str:
        """The report as a standalone HTML page (or a fragment for a notebook)."""
        name = "multi_report.html.j2" if standalone else "multi_report_fragment.html.j2"
        return (
            html_environment()
            .get_template(name)
            .render(**self.context(), cd_svg=self.cd_svg(), simplex=self.simplex_figures())
        )

    def to_markdown(self) -> str:
        """The report in GitHub-flavoured Markdown (the diagram is in the HTML report)."""
        return (
            text_environment()
            .get_template("multi_report.md.j2")
            .render(**self.context(), cd_block=multi_view.fenced(self.cd_text()))
        )

    def to_latex(self, *, standalone: bool = True, placement: str = "htbp") -> str:
        """The report in LaTeX with a booktabs table (``standalone=False``: a fragment)."""
        return (
            latex_environment()
            .get_template("multi_report.tex.j2")
            .render(
                **self.context(),
                cd_tikz=self.cd_tikz(),
                cd_caption=multi_view.cd_caption(self.analysis),
                # a standalone page is wider than a paper's column: names stay whole
                latex_table=self.latex_table_context(fit_labels=standalone),
                standalone=standalone,
                placement=placement,
            )
        )

    def table_latex(
        self, *, placement: str = "htbp", layout: str = "auto", span: str = "column"
    ) -> str:
        r"""Only the data sets × models table, as a booktabs LaTeX float.

        The fragment starts with a comment naming the packages it needs:
        ``\usepackage{booktabs,amssymb,graphicx}`` (rules, the ▲/▼ marks, the
        upright model names). Each mean stands above its standard deviation,
        marks are superscripts and long names are set upright, so five models
        fit one column of a two-column paper.

        Parameters
        ----------
        placement : str
            The float's placement, e.g. ``"htbp"`` or ``"t"``.
        layout : {"auto", "models-as-columns", "models-as-rows"}
            Models as columns (the paper's usual table) or as rows (narrower
            when the models are many); ``"auto"`` puts them in rows above
            six models.
        span : {"column", "page"}
            ``"column"``: a ``table``; ``"page"``: a ``table*`` across both
            columns of a two-column paper.

        Returns
        -------
        str

        Raises
        ------
        CVReportError
            For an unknown ``layout`` or ``span``.
        """
        return (
            latex_environment()
            .get_template("datasets_table.tex.j2")
            .render(
                table=self.table_context(),
                latex=self.latex_table_context(layout=layout, span=span),
                placement=placement,
            )
        )

    def cd_latex(self, *, standalone: bool = False, width_cm: float = 8.0) -> str:
        r"""The critical-difference diagram as TikZ, for a paper.

        Parameters
        ----------
        standalone : bool
            ``False``: a ``figure`` to ``\input`` into a paper with
            ``\usepackage{tikz}`` (a comment at its top says so); ``True``: a
            whole document that pdflatex compiles on its own.
        width_cm : float
            Width of the picture: 8 fits one column of a two-column paper.

        Returns
        -------
        str
        """
        # the picture's first line names the package: the fragment's first line, said once
        package_line, tikz = self.cd_tikz(width_cm=width_cm).split("\n", 1)
        return (
            latex_environment()
            .get_template("cd_diagram.tex.j2")
            .render(
                package_line=package_line,
                tikz=tikz,
                caption=multi_view.cd_caption(self.analysis),
                standalone=standalone,
                environment="figure*" if width_cm > 9 else "figure",
            )
        )

    def cd_tikz(self, *, width_cm: float = 8.0) -> str:
        """The critical-difference diagram (Nemenyi cliques) as a bare ``tikzpicture``."""
        return multi_view.cd_tikz(self.analysis, width_cm=width_cm)

    def cd_text(self) -> str:
        """The critical-difference diagram in monospaced text (the Markdown report's)."""
        return multi_view.cd_text(self.analysis)

    def save_cd(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Write the critical-difference diagram alone: ``.svg``, or ``.tex`` (a whole document).

        Parameters
        ----------
        path : path-like
            The file; its suffix picks the format.
        overwrite : bool
            Replace an existing file.

        Returns
        -------
        pathlib.Path
            The file written.

        Raises
        ------
        OutputExistsError
            If the file exists and ``overwrite`` is false.
        """
        renderers = {"svg": self.cd_svg, "latex": partial(self.cd_latex, standalone=True)}
        return _write(path, {".svg": "svg", ".tex": "latex"}, renderers, overwrite=overwrite)

    def save(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Write the report; the suffix (.html, .md, .tex) picks the format."""
        renderers = {"html": self.to_html, "markdown": self.to_markdown, "latex": self.to_latex}
        return _write(path, _FORMATS, renderers, overwrite=overwrite)

    def __repr__(self) -> str:
        friedman = self.analysis.friedman
        return (
            f"<DatasetsReport: {self.title!r}; Friedman {interpret.p_equals(friedman.pvalue)}, "
            f"Iman–Davenport {interpret.p_equals(friedman.f_pvalue)}>"
        )


def _write(
    path: str | os.PathLike[str],
    formats: Mapping[str, str],
    renderers: Mapping[str, Callable[[], str]],
    *,
    overwrite: bool,
) -> Path:
    """Render in the format of ``path``'s suffix and write it, refusing an existing file first."""
    target = output_path(path)
    kind = format_from_suffix(target, formats)
    refuse_existing(target, overwrite=overwrite)
    return write_text(target, renderers[kind](), overwrite=overwrite)
