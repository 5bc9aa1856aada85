"""The many-data-sets report: the paper's results table, the CD diagram and the tests across data sets.

:class:`DatasetsReport` runs :func:`cvreport.multi.compare_datasets` (it
computes no statistic itself) and renders, through the packaged Jinja2
templates, as a standalone HTML page, Markdown or LaTeX (booktabs):

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
# new\\_model against 1 models on 6 data sets
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

import pandas as pd

from cvreport._version import __version__
from cvreport.data.datasets import DatasetsTable
from cvreport.errors import CVReportError
from cvreport.multi.analysis import DatasetsAnalysis, compare_datasets
from cvreport.multi.bayesian import posterior_points
from cvreport.rendering import formatting
from cvreport.rendering.cd_diagram import cd_diagram
from cvreport.rendering.cd_tikz import cd_text, cd_tikz
from cvreport.rendering.display import ReportDisplay
from cvreport.rendering.environment import html_environment, latex_environment, text_environment
from cvreport.rendering.simplex import simplex_plot
from cvreport.rendering.writer import OutputExistsError, format_from_suffix, write_text

__all__ = ["DatasetsReport"]

REFERENCES = (
    "Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. "
    "Journal of Machine Learning Research 7:1–30.",
    "García, S., Herrera, F. (2008). An extension on “Statistical comparisons of classifiers "
    "over multiple data sets” for all pairwise comparisons. JMLR 9:2677–2694.",
    "Benavoli, A., Corani, G., Mangili, F. (2016). Should we really use post-hoc tests based "
    "on mean-ranks? JMLR 17(5):1–10.",
    "Benavoli, A., Corani, G., Demšar, J., Zaffalon, M. (2017). Time for a change: a tutorial "
    "for comparing multiple classifiers through Bayesian analysis. JMLR 18(77):1–36.",
    "Iman, R. L., Davenport, J. M. (1980). Approximations of the critical region of the "
    "Friedman statistic. Communications in Statistics 9(6):571–595.",
    "Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian "
    "Journal of Statistics 6(2):65–70.",
    "Hedges, L. V., Olkin, I. (1985). Statistical Methods for Meta-Analysis. Academic Press.",
    "Cliff, N. (1993). Dominance statistics: ordinal analyses to answer ordinal questions. "
    "Psychological Bulletin 114(3):494–509.",
)
BETTER, WORSE = "▲", "▼"
_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".tex": "latex"}
_LATEX_LAYOUTS = ("auto", "models-as-columns", "models-as-rows")
SIMPLEX_FIGURES = 6  # pairs whose posterior is drawn on the simplex
SIMPLEX_POINTS = 1000  # posterior draws drawn in each
_MODELS_AS_COLUMNS = 6  # above this many models, "auto" sets them as rows


def _fixed(value: float | None, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.{digits}f}"


def _correction_name(name: str | None) -> str:
    words = {
        None: "no correction",
        "holm": "Holm's step-down procedure",
        "bergmann-hommel": "Bergmann and Hommel's procedure",
        "bonferroni": "Bonferroni's correction",
        "hommel": "Hommel's procedure",
        "fdr_bh": "Benjamini–Hochberg's false discovery rate",
    }
    return words.get(name, str(name))


class DatasetsReport(ReportDisplay):
    """Compare models over many data sets, and render the comparison.

    Parameters
    ----------
    table : DatasetsTable, str or pandas.DataFrame
        The results; a formula such as ``"loss ~ model | replication + fold | dataset"``
        with ``data``; or a data sets × models frame of summary scores (then
        ``direction`` is required).
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
    """

    def __init__(
        self,
        table: DatasetsTable | str | pd.DataFrame,
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
        if isinstance(table, str):
            if data is None:
                raise CVReportError(f"the formula {table!r} needs data=: the long-format results")
            table = DatasetsTable.from_formula(
                table,
                data,
                per_fold=per_fold,
                record=record,
                direction=direction,  # type: ignore[arg-type]
            )
            direction = None
        self.table = table if isinstance(table, DatasetsTable) else None
        self.analysis: DatasetsAnalysis = compare_datasets(
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
        self.digits = int(digits)
        result = self.analysis
        k, n = len(result.models), len(result.datasets)
        self.title = title or (
            f"{baseline} against {k - 1} models on {n} data sets"
            if baseline is not None
            else f"{k} models on {n} data sets"
        )

    # -- the view model ----------------------------------------------------
    def _marks(self) -> dict[tuple[Any, Any], str]:
        per = self.analysis.per_dataset
        if per is None or per.baseline is None:
            return {}
        marks = {}
        for row in per.comparisons.itertuples():
            if row.better is None or (isinstance(row.better, float) and math.isnan(row.better)):
                continue
            marks[(row.dataset, row.a)] = "better" if row.better == row.a else "worse"
        return marks

    def _legend(self) -> tuple[list[str], list[str]]:
        result = self.analysis
        metric = result.metric
        lines = [
            f"Mean ± standard deviation of the {metric.name} over each data set's folds "
            f"({metric.direction} is better); the best mean of each data set in bold."
        ]
        tex = [formatting.escape_latex(lines[0])]
        per = result.per_dataset
        if per is not None and per.baseline is not None:
            used = per.tests_used()
            tests = "; ".join(
                f"{label} on {', '.join(map(str, sets))}" if len(used) > 1 else label
                for label, sets in used.items()
            )
            correction = (
                f", p-values of a data set adjusted with {_correction_name(per.correction)}"
                if per.correction
                else ""
            )
            text = (
                f"significantly better / worse than {per.baseline} on that data set at "
                f"α = {result.alpha:g} by the test its design calls for ({tests}){correction}."
            )
            lines.append(f"{BETTER} / {WORSE}: {text}")
            tex.append(
                r"$^{\blacktriangle}$ / $^{\blacktriangledown}$: " + formatting.escape_latex(text)
            )
            wtl = (
                "win/tie/loss: data sets on which the model is significantly better than, not "
                f"significantly different from, or significantly worse than {per.baseline}."
            )
            lines.append(wtl)
            tex.append(formatting.escape_latex(wtl))
        ranks = "Average rank: 1 = best on a data set, ties share the average rank (Demšar 2006)."
        lines.append(ranks)
        tex.append(formatting.escape_latex(ranks))
        return lines, tex

    def table_context(self) -> dict[str, Any]:
        """The data sets × models table as plain values for the templates."""
        result = self.analysis
        best = result.best()
        marks = self._marks()
        rows = []
        # datasets and models are the rows and columns of result.means, in order
        means = result.means.to_numpy(dtype=float)
        sds = result.sds.reindex_like(result.means).to_numpy(dtype=float)
        bests = best.reindex_like(result.means).to_numpy(dtype=bool)
        for i, dataset in enumerate(result.datasets):
            cells = []
            for j, model in enumerate(result.models):
                mean = float(means[i, j])
                sd = float(sds[i, j])
                mean_text = _fixed(mean, self.digits)
                sd_text = _fixed(sd, self.digits) if not math.isnan(sd) else ""
                mark = marks.get((dataset, model))
                cells.append(
                    {
                        "mean_text": mean_text,
                        "sd_text": sd_text,
                        "text": f"{mean_text} ± {sd_text}" if sd_text else mean_text,
                        "best": bool(bests[i, j]),
                        "mark": mark,
                        "mark_html": {"better": BETTER, "worse": WORSE}.get(mark or "", ""),
                        "mark_title": (
                            f"significantly {mark} than {result.baseline}" if mark else ""
                        ),
                    }
                )
            rows.append({"dataset": str(dataset), "cells": cells})
        wtl = None
        per = result.per_dataset
        if per is not None and per.baseline is not None:
            counts = per.win_tie_loss()
            wtl = [
                "—" if m == per.baseline else "/".join(str(int(v)) for v in counts.loc[m])
                for m in result.models
            ]
        ranks = result.friedman.average_ranks
        legend, legend_tex = self._legend()
        return {
            "caption": f"{result.metric.name} of {len(result.models)} models on "
            f"{len(result.datasets)} data sets",
            "models": [str(m) for m in result.models],
            "baseline": None if result.baseline is None else str(result.baseline),
            "rows": rows,
            "wtl": wtl,
            "ranks": [f"{ranks[m]:.2f}" for m in result.models],
            "legend": legend,
            "legend_tex": legend_tex,
        }

    def latex_table_context(self, *, layout: str = "auto", span: str = "column") -> dict[str, Any]:
        """The LaTeX layout of the data sets × models table (see :meth:`table_latex`)."""
        if layout not in _LATEX_LAYOUTS:
            raise CVReportError(
                f"layout={layout!r} is not one of {', '.join(map(repr, _LATEX_LAYOUTS))}"
            )
        if span not in ("column", "page"):
            raise CVReportError(f"span={span!r} is not 'column' (table) or 'page' (table*)")
        table = self.table_context()
        models, rows = table["models"], table["rows"]
        if layout == "auto":
            layout = "models-as-rows" if len(models) > _MODELS_AS_COLUMNS else "models-as-columns"
        for row in rows:
            for cell in row["cells"]:
                cell["sd_paren"] = f"({cell['sd_text']})" if cell["sd_text"] else ""
        footer_labels = (["win/tie/loss"] if table["wtl"] else []) + ["average rank"]
        footer_values = ([table["wtl"]] if table["wtl"] else []) + [table["ranks"]]
        if layout == "models-as-columns":
            header = [f"{m} (baseline)" if m == table["baseline"] else m for m in models]
            body = [{"label": r["dataset"], "cells": r["cells"], "extra": []} for r in rows]
            footer = [
                {"label": label, "cells": values}
                for label, values in zip(footer_labels, footer_values)
            ]
        else:
            header = [r["dataset"] for r in rows] + footer_labels
            body = [
                {
                    "label": f"{m} (baseline)" if m == table["baseline"] else m,
                    "cells": [r["cells"][j] for r in rows],
                    "extra": [values[j] for values in footer_values],
                }
                for j, m in enumerate(models)
            ]
            footer = []
        legend = list(table["legend_tex"])
        legend[0] = formatting.escape_latex(
            f"Mean of the {self.analysis.metric.name} over each data set's folds "
            f"({self.analysis.metric.direction} is better), the standard deviation below it "
            "in brackets; the best mean of each data set in bold."
        )
        return {
            "environment": "table*" if span == "page" else "table",
            "layout": layout,
            "corner": "Model" if layout == "models-as-rows" else "Data set",
            "header": header,
            # names longer than a number stand upright over their column
            "rotate": max((len(h) for h in header), default=0) > 6,
            "tabcolsep": "2.5pt",
            # the first column wraps (after underscores too) instead of widening the table
            "label_width": ("2.4cm" if layout == "models-as-rows" else "3.0cm")
            if span == "page"
            else "1.9cm",
            "body": body,
            "footer": footer,
            "show_sd": any(c["sd_text"] for r in rows for c in r["cells"]),
            "legend": legend,
        }

    def context(self) -> dict[str, Any]:
        """Everything the report templates show, as plain values."""
        result = self.analysis
        friedman = result.friedman
        nemenyi = result.nemenyi
        per = result.per_dataset
        tests_by_dataset: dict[Any, set[str]] = {}
        if per is not None:
            labels = per.comparisons[["dataset", "label"]].fillna({"label": "could not run"})
            labels.loc[labels["label"] == "", "label"] = "could not run"
            for dataset, label in labels.drop_duplicates().itertuples(index=False):
                tests_by_dataset.setdefault(dataset, set()).add(label)
        designs = [
            {
                "dataset": str(name),
                "design": design,
                "test": ", ".join(sorted(map(str, tests_by_dataset.get(name, ())))) or "—",
            }
            for name, design in result.designs.items()
        ]
        wilcoxon = [
            {
                "a": str(row.a),
                "b": str(row.b),
                "r_plus": f"{row.r_plus:g}",
                "r_minus": f"{row.r_minus:g}",
                "pvalue": formatting.format_pvalue(row.pvalue),
                "adjusted": formatting.format_pvalue(row.adjusted),
                "reject": bool(row.reject),
                "better": None if not isinstance(row.better, str) else str(row.better),
            }
            for row in result.wilcoxon.itertuples()
        ]
        bayesian = [
            {
                "a": str(r.models[0]),
                "b": str(r.models[1]),
                "p_a": f"{r.p_a_better:.3f}",
                "p_rope": f"{r.p_equivalent:.3f}",
                "p_b": f"{r.p_b_better:.3f}",
            }
            for r in result.bayesian
        ]
        effect_sizes = [
            {
                "a": str(row.a),
                "b": str(row.b),
                "g": _effect_text(row.hedges_g, row.g_low, row.g_high, row.g_magnitude),
                "delta": _effect_text(
                    row.cliff_delta, row.delta_low, row.delta_high, row.delta_magnitude
                ),
                "favours": "—" if row.favours is None else str(row.favours),
            }
            for row in (result.effect_sizes.itertuples() if result.effect_sizes is not None else ())
        ]
        level = f"{100 * (1 - result.alpha):g}%"
        effect_text = (
            f"How large each difference is across the {len(result.datasets)} data sets, on "
            "scales free of the metric's units: Hedges' g (Cohen's d with the small-sample "
            "correction of Hedges 1981, the two models' per-data-set means as two samples, "
            f"{level} interval of Hedges and Olkin 1985) and Cliff's δ = P(A higher) − "
            f"P(B higher) over pairs of data-set means ({level} interval of Cliff 1993); "
            "positive when A's {metric} is higher. Words: negligible, small, medium, large "
            "(Cohen 1988 for g; Romano et al. 2006 for δ), as autorank reports them. An effect "
            "size describes; the tests above decide."
        ).replace("{metric}", result.metric.name)
        order = friedman.average_ranks.sort_values(kind="mergesort")
        k, n = friedman.n_models, friedman.n_datasets
        decision = "rejects" if friedman.reject(result.alpha) else "does not reject"
        friedman_text = (
            f"Friedman's χ² = {friedman.statistic:.3f} (df = {friedman.df}"
            f"{', corrected for ties' if friedman.tie_correction else ''}), "
            f"{_p(friedman.pvalue)}; Iman and Davenport's F = "
            f"{friedman.f_statistic:.3f} (df = {friedman.f_df[0]}, {friedman.f_df[1]}), "
            f"{_p(friedman.f_pvalue)}: the test {decision} equal "
            f"average ranks of the {k} models over the {n} data sets at α = {result.alpha:g}."
        )
        cliques = [", ".join(map(str, c)) for c in nemenyi.cliques]
        wilcoxon_groups = "; ".join(
            "{" + ", ".join(map(str, c)) + "}" for c in result.wilcoxon_cliques
        )
        nemenyi_text = (
            f"Nemenyi's critical difference at α = {result.alpha:g}: CD = {nemenyi.q_alpha:.3f} "
            f"× √(k(k+1)/(6N)) = {nemenyi.cd:.3f}."
        )
        if result.bonferroni_dunn is not None:
            dunn = result.bonferroni_dunn
            separated = [
                str(m) for m in order.index if m != dunn.control and dunn.different(m, dunn.control)
            ]
            nemenyi_text += (
                f" Against {dunn.control}, Bonferroni–Dunn's CD = {dunn.cd:.3f} separates "
                + (", ".join(separated) if separated else "no model")
                + "."
            )
        bayes = result.bayesian[0] if result.bayesian else None
        matrix = None
        if per is not None and per.baseline is None:
            wtl = per.win_tie_loss_matrix()
            matrix = {
                "models": [str(m) for m in wtl.columns],
                "rows": [
                    {"model": str(m), "cells": [text or "—" for text in cells]}
                    for m, cells in zip(wtl.index, wtl.to_numpy())
                ],
            }
        return {
            "title": self.title,
            "intro": (
                f"{k} models on {n} data sets; the metric is the {result.metric.name} "
                f"({result.metric.direction} is better)."
                + (f" The baseline is {result.baseline}." if result.baseline is not None else "")
            ),
            "table": self.table_context(),
            "designs": designs,
            "wtl_matrix": matrix,
            "test_header": (
                "Test against the baseline" if result.baseline is not None else "Test of each pair"
            ),
            "ranks": [{"model": str(m), "rank": f"{v:.3f}"} for m, v in order.items()],
            "friedman_text": friedman_text,
            "nemenyi_text": nemenyi_text,
            "cliques": cliques,
            "wilcoxon": wilcoxon,
            "wilcoxon_text": (
                f"Wilcoxon signed-rank test of each pair over the {n} data sets (R+: sum of "
                "ranks where B is better, R−: where A is better; zero differences split evenly), "
                f"p-values adjusted with {_correction_name(result.wilcoxon_correction)}."
                + (
                    f" Groups of models, consecutive in rank, that no adjusted Wilcoxon test "
                    f"separates: {wilcoxon_groups}."
                    if wilcoxon_groups
                    else ""
                )
            ),
            "bayesian": bayesian,
            "effect_sizes": effect_sizes,
            "effect_text": effect_text,
            "bayesian_text": (
                ""
                if bayes is None
                else f"Bayesian signed-rank test (Benavoli et al. 2017): posterior probability "
                f"that A is better, that the two are practically equivalent (|difference| ≤ "
                f"{bayes.rope:g} in {result.metric.name}), or that B is better; "
                f"{bayes.n_samples:,} Monte Carlo draws per pair, seed {bayes.seed}, prior strength "
                f"{bayes.prior_strength:g} (Monte Carlo standard error ≤ "
                f"{max(r.mc_standard_error for r in result.bayesian):.3f})."
            ),
            "notes": list(result.notes),
            "references": list(REFERENCES),
            "simplex_more": max(0, len(result.bayesian) - SIMPLEX_FIGURES),
            "alpha": result.alpha,
            "version": _version(),
        }

    def simplex_figures(self) -> list[dict[str, str]]:
        """The posterior of the first pairs' Bayesian signed-rank tests on the simplex (SVG)."""
        result = self.analysis
        figures = []
        for index, test in enumerate(result.bayesian[:SIMPLEX_FIGURES]):
            a, b = test.models
            theta = posterior_points(
                result.means[a],
                result.means[b],
                result.metric.direction,
                rope=test.rope,
                prior_strength=test.prior_strength,
                n_points=SIMPLEX_POINTS,
                seed=test.seed,
            )
            figures.append(
                {
                    "a": str(a),
                    "b": str(b),
                    "svg": simplex_plot(
                        theta,
                        labels=(a, b),
                        probabilities=test.probabilities,
                        rope=test.rope,
                        figure_id=f"cvr-simplex-{index}",
                    ),
                }
            )
        return figures

    def cd_svg(self, *, figure_id: str = "cvr-cd") -> str:
        """The critical-difference diagram (Nemenyi cliques) as inline SVG."""
        result = self.analysis
        return cd_diagram(
            result.nemenyi.average_ranks,
            cd=result.nemenyi.cd,
            cliques=result.nemenyi.cliques,
            n_datasets=len(result.datasets),
            test=f"Nemenyi test at α = {result.alpha:g}",
            highlight=result.baseline,
            figure_id=figure_id,
            title=f"Critical-difference diagram: average ranks of {len(result.models)} models",
        )

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
            .render(**self.context(), cd_block=_fenced(self.cd_text()))
        )

    def to_latex(self, *, standalone: bool = True, placement: str = "htbp") -> str:
        """The report in LaTeX with a booktabs table (``standalone=False``: a fragment)."""
        return (
            latex_environment()
            .get_template("multi_report.tex.j2")
            .render(
                **self.context(),
                cd_tikz=self.cd_tikz(),
                cd_caption=self._cd_caption(),
                latex_table=self.latex_table_context(),
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
        return (
            latex_environment()
            .get_template("cd_diagram.tex.j2")
            .render(
                tikz=self.cd_tikz(width_cm=width_cm),
                caption=self._cd_caption(),
                standalone=standalone,
                environment="figure*" if width_cm > 9 else "figure",
            )
        )

    def cd_tikz(self, *, width_cm: float = 8.0) -> str:
        """The critical-difference diagram (Nemenyi cliques) as a bare ``tikzpicture``."""
        result = self.analysis
        return cd_tikz(
            result.nemenyi.average_ranks,
            cd=result.nemenyi.cd,
            cliques=result.nemenyi.cliques,
            n_datasets=len(result.datasets),
            test=f"Nemenyi test at α = {result.alpha:g}",
            highlight=result.baseline,
            width_cm=width_cm,
        )

    def cd_text(self) -> str:
        """The critical-difference diagram in monospaced text (the Markdown report's)."""
        result = self.analysis
        return cd_text(
            result.nemenyi.average_ranks, cd=result.nemenyi.cd, cliques=result.nemenyi.cliques
        )

    def _cd_caption(self) -> str:
        result = self.analysis
        return (
            f"Average ranks of {len(result.models)} models over {len(result.datasets)} data "
            f"sets (1 = best, on the right); a bar joins models that the Nemenyi test at "
            f"α = {result.alpha:g} does not separate; CD = {result.nemenyi.cd:.3f} "
            "(Demšar 2006)."
        )

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
        target = Path(path)
        kind = format_from_suffix(target, {".svg": "svg", ".tex": "latex"})
        if target.exists() and not overwrite:
            raise OutputExistsError(
                f"{str(target)!r} exists; pass overwrite=True to replace it", target
            )
        text = self.cd_svg() if kind == "svg" else self.cd_latex(standalone=True)
        return write_text(target, text, overwrite=overwrite)

    def save(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Write the report; the suffix (.html, .md, .tex) picks the format."""
        target = Path(path)
        kind = format_from_suffix(target, _FORMATS)
        if target.exists() and not overwrite:
            raise OutputExistsError(
                f"{str(target)!r} exists; pass overwrite=True to replace it", target
            )
        text = {"html": self.to_html, "markdown": self.to_markdown, "latex": self.to_latex}[kind]()
        return write_text(target, text, overwrite=overwrite)

    def __repr__(self) -> str:
        friedman = self.analysis.friedman
        return (
            f"<DatasetsReport: {self.title!r}; Friedman {_p(friedman.pvalue)}, "
            f"Iman–Davenport {_p(friedman.f_pvalue)}>"
        )


def _fenced(text: str) -> str:
    """A Markdown code block that no run of backticks in ``text`` can close early."""
    text = formatting.strip_bidi_controls(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _effect_text(value: float, low: float, high: float, words: str) -> str:
    """``0.27 [-0.91, 1.45] small``; an undefined interval is said in words."""
    if not math.isfinite(value):
        return f"undefined ({'both models constant' if math.isnan(value) else 'no spread'})"
    interval = (
        f"[{low:.2f}, {high:.2f}]"
        if math.isfinite(low) and math.isfinite(high)
        else "(no interval: complete separation)"
    )
    return f"{value:.2f} {interval} {words}"


def _p(pvalue: float) -> str:
    """``p = 0.012`` or ``p < 0.001``."""
    text = formatting.format_pvalue(pvalue)
    return f"p < {text[1:]}" if text.startswith("<") else f"p = {text}"


def _version() -> str:
    return __version__
