"""The view model of the many-data-sets report: plain values the templates render.

Built from a :class:`~cvreport.multi.analysis.DatasetsAnalysis` value and the
render options (the title, the decimals of the table); nothing here runs a test
(every number comes from the analysis; the simplex figures draw their points
from the posterior the analysis describes, with its seed). It mirrors
:mod:`cvreport.reporting.view`, the view of the one-data-set report, and names
every test as that report does: by its method (``TestSpec.method``).

Examples
--------
>>> import pandas as pd
>>> from cvreport.multi.analysis import compare_datasets
>>> scores = pd.DataFrame({"new": [.91, .85, .78, .95, .70, .88],
...                        "old": [.89, .80, .75, .94, .66, .86]})
>>> analysis = compare_datasets(scores, direction="higher", baseline="new", n_samples=2000)
>>> default_title(analysis)
'new against 1 model on 6 data sets'
>>> table_context(analysis, digits=2)["rows"][0]["cells"][0]["text"]
'0.91'
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from cvreport._version import __version__
from cvreport.data.metrics import reader_name
from cvreport.errors import CVReportError
from cvreport.methods.registry import get_spec
from cvreport.multi.analysis import DatasetsAnalysis
from cvreport.multi.bayesian import posterior_points
from cvreport.references import bibliography
from cvreport.rendering import formatting
from cvreport.rendering.cd_diagram import cd_diagram
from cvreport.rendering.cd_tikz import cd_text as draw_cd_text
from cvreport.rendering.cd_tikz import cd_tikz as draw_cd_tikz
from cvreport.rendering.simplex import simplex_plot
from cvreport.reporting.interpret import in_sentence, p_equals
from cvreport.results import level_text

__all__ = [
    "BETTER",
    "REFERENCES",
    "SIMPLEX_FIGURES",
    "WORSE",
    "build_context",
    "cd_caption",
    "cd_svg",
    "cd_text",
    "cd_tikz",
    "correction_name",
    "default_title",
    "fenced",
    "latex_table_context",
    "simplex_figures",
    "table_context",
]

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
EFFECT_SIZE_REFERENCES = (
    "Hedges, L. V. (1981). Distribution theory for Glass's estimator of effect size and "
    "related estimators. Journal of Educational Statistics 6(2):107–128.",
    "Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed. "
    "Lawrence Erlbaum.",
    "Romano, J., Kromrey, J. D., Coraggio, J., Skowronek, J. (2006). Appropriate statistics "
    "for ordinal level data. Annual meeting of the Florida Association of Institutional "
    "Research.",
    "Lakens, D. (2013). Calculating and reporting effect sizes to facilitate cumulative "
    "science: a practical primer for t-tests and ANOVAs. Frontiers in Psychology 4:863.",
    "Cumming, G., Finch, S. (2001). A primer on the understanding, use, and calculation of "
    "confidence intervals that are based on central and noncentral distributions. "
    "Educational and Psychological Measurement 61(4):532–574.",
)
BERGMANN_HOMMEL_REFERENCE = (
    "Bergmann, B., Hommel, G. (1988). Improvements of general multiple test procedures for "
    "redundant systems of hypotheses. In Multiple Hypotheses Testing, 100–115. Springer."
)
BETTER, WORSE = "▲", "▼"
LATEX_LAYOUTS = ("auto", "models-as-columns", "models-as-rows")
SIMPLEX_FIGURES = 6  # pairs whose posterior is drawn on the simplex
SIMPLEX_POINTS = 1000  # posterior draws drawn in each
_MODELS_AS_COLUMNS = 6  # above this many models, "auto" sets them as rows


def default_title(analysis: DatasetsAnalysis) -> str:
    """The heading: the baseline against the other models, or the k models, on N data sets."""
    k, n = len(analysis.models), len(analysis.datasets)
    if analysis.baseline is not None:
        others = "1 model" if k == 2 else f"{k - 1} models"
        return f"{analysis.baseline} against {others} on {n} data sets"
    return f"{k} models on {n} data sets"


def _fixed(value: float | None, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.{digits}f}"


def correction_name(name: str | None) -> str:
    """A multiplicity correction in words, e.g. ``"holm"`` → ``"Holm's step-down procedure"``."""
    words = {
        None: "no correction",
        "holm": "Holm's step-down procedure",
        "bergmann-hommel": "Bergmann and Hommel's procedure",
        "bonferroni": "Bonferroni's correction",
        "hommel": "Hommel's procedure",
        "fdr_bh": "Benjamini–Hochberg's false discovery rate",
    }
    return words.get(name, str(name))


def _marks(analysis: DatasetsAnalysis) -> dict[tuple[Any, Any], str]:
    per = analysis.per_dataset
    if per is None or per.baseline is None:
        return {}
    marks = {}
    for row in per.comparisons.itertuples():
        if row.better is None or (isinstance(row.better, float) and math.isnan(row.better)):
            continue
        marks[(row.dataset, row.a)] = "better" if row.better == row.a else "worse"
    return marks


def _legend(analysis: DatasetsAnalysis) -> tuple[list[str], list[str]]:
    metric = analysis.metric
    lines = [
        f"Mean ± standard deviation of the {reader_name(metric.name)} over each data set's folds "
        f"({metric.direction} is better); the best mean of each data set in bold."
        if _has_folds(analysis)
        else f"The {reader_name(metric.name)} of each model on each data set, one value each "
        f"({metric.direction} is better); the best of each data set in bold."
    ]
    tex = [formatting.escape_latex(lines[0])]
    per = analysis.per_dataset
    if per is not None and per.baseline is not None:
        used = per.tests_used()
        tests = "; ".join(
            f"{in_sentence(method)} on {', '.join(map(str, sets))}"
            if len(used) > 1
            else in_sentence(method)
            for method, sets in used.items()
        )
        others = len(analysis.models) - 1
        correction = (
            # the family is the baseline's comparisons, not every pair: say its size, since
            # a win/tie/loss over every pair adjusts over more p-values and can differ
            f", p-values of a data set adjusted with {correction_name(per.correction)} over "
            f"its {others} comparison{'s' if others != 1 else ''} with {per.baseline}"
            if per.correction and others > 1  # one comparison: nothing to adjust
            else ""
        )
        text = (
            f"significantly better / worse than {per.baseline} on that data set at "
            f"α = {analysis.alpha:g} by the test its design calls for ({tests}){correction}."
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


def _has_folds(analysis: DatasetsAnalysis) -> bool:
    """Whether a data set has a spread over folds (not one score per data set and model)."""
    return bool(analysis.sds.notna().to_numpy().any())


def table_context(analysis: DatasetsAnalysis, *, digits: int = 3) -> dict[str, Any]:
    """The data sets × models table as plain values for the templates."""
    best = analysis.best()
    marks = _marks(analysis)
    rows = []
    # datasets and models are the rows and columns of analysis.means, in order
    means = analysis.means.to_numpy(dtype=float)
    sds = analysis.sds.reindex_like(analysis.means).to_numpy(dtype=float)
    bests = best.reindex_like(analysis.means).to_numpy(dtype=bool)
    for i, dataset in enumerate(analysis.datasets):
        cells = []
        for j, model in enumerate(analysis.models):
            mean = float(means[i, j])
            sd = float(sds[i, j])
            mean_text = _fixed(mean, digits)
            sd_text = _fixed(sd, digits) if not math.isnan(sd) else ""
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
                        f"significantly {mark} than {analysis.baseline}" if mark else ""
                    ),
                }
            )
        rows.append({"dataset": str(dataset), "cells": cells})
    wtl = None
    per = analysis.per_dataset
    if per is not None and per.baseline is not None:
        counts = per.win_tie_loss()
        wtl = [
            "—" if m == per.baseline else "/".join(str(int(v)) for v in counts.loc[m])
            for m in analysis.models
        ]
    ranks = analysis.friedman.average_ranks
    legend, legend_tex = _legend(analysis)
    return {
        "caption": _capitalised(
            f"{reader_name(analysis.metric.name)} of {len(analysis.models)} models on "
            f"{len(analysis.datasets)} data sets"
        ),
        "models": [str(m) for m in analysis.models],
        "baseline": None if analysis.baseline is None else str(analysis.baseline),
        "rows": rows,
        "wtl": wtl,
        "ranks": [f"{ranks[m]:.2f}" for m in analysis.models],
        "legend": legend,
        "legend_tex": legend_tex,
    }


def _missing(value: object) -> bool:
    """None or NaN: what a DataFrame holds where a pair's effect favours neither model."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def _capitalised(text: str) -> str:
    """A caption starts with a capital ("Error of 4 models", "AUC of 4 models")."""
    return text[:1].upper() + text[1:]


def latex_table_context(
    analysis: DatasetsAnalysis,
    *,
    digits: int = 3,
    layout: str = "auto",
    span: str = "column",
    fit_labels: bool = False,
) -> dict[str, Any]:
    """The LaTeX layout of the data sets × models table (see ``DatasetsReport.table_latex``).

    ``fit_labels=True`` (a standalone document, whose page is wider than a paper's
    column) widens the first column to its longest name, up to ``LABEL_WIDTH_MAX_CM``,
    so that names are not broken after every underscore.

    Raises
    ------
    CVReportError
        For an unknown ``layout`` or ``span``.
    """
    if layout not in LATEX_LAYOUTS:
        raise CVReportError(
            f"layout={layout!r} is not one of {', '.join(map(repr, LATEX_LAYOUTS))}"
        )
    if span not in ("column", "page"):
        raise CVReportError(f"span={span!r} is not 'column' (table) or 'page' (table*)")
    table = table_context(analysis, digits=digits)
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
            {"label": label, "cells": values} for label, values in zip(footer_labels, footer_values)
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
    if _has_folds(analysis):
        legend[0] = formatting.escape_latex(
            f"Mean of the {reader_name(analysis.metric.name)} over each data set's folds "
            f"({analysis.metric.direction} is better), the standard deviation below it "
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
        "label_width": _label_width(
            ("2.4cm" if layout == "models-as-rows" else "3.0cm") if span == "page" else "1.9cm",
            [str(row["label"]) for row in body] if fit_labels else [],
        ),
        "body": body,
        "footer": footer,
        "show_sd": any(c["sd_text"] for r in rows for c in r["cells"]),
        "legend": legend,
    }


#: The widest first column of a standalone document's table, and the width of one
#: character of its \footnotesize names (with room to spare), in centimetres.
LABEL_WIDTH_MAX_CM = 6.0
_FOOTNOTESIZE_CHAR_CM = 0.16


def _label_width(default: str, labels: Sequence[str]) -> str:
    """``default`` (e.g. ``"1.9cm"``), or wide enough for the longest of ``labels``.

    >>> _label_width("1.9cm", []), _label_width("1.9cm", ["iris_versicolor_virginica"])
    ('1.9cm', '4.2cm')
    """
    needed = max((len(label) for label in labels), default=0) * _FOOTNOTESIZE_CHAR_CM + 0.2
    wide = min(needed, LABEL_WIDTH_MAX_CM)
    base = float(default.removesuffix("cm"))
    return default if wide <= base else f"{wide:.1f}cm"


def build_context(analysis: DatasetsAnalysis, *, title: str, digits: int = 3) -> dict[str, Any]:
    """Everything the report templates show, as plain values.

    Parameters
    ----------
    analysis : DatasetsAnalysis
        What :func:`~cvreport.multi.compare_datasets` returned.
    title : str
        The report's heading.
    digits : int
        Decimals of the data sets × models table.

    Returns
    -------
    dict
        Strings, numbers and lists only; each test named by its method.
    """
    friedman = analysis.friedman
    metric_words = reader_name(analysis.metric.name)  # the reader's name (AUC for roc_auc)
    nemenyi = analysis.nemenyi
    per = analysis.per_dataset
    tests_by_dataset: dict[Any, set[str]] = {}
    if per is not None:
        methods = per.comparisons[["dataset", "method"]].fillna({"method": "could not run"})
        methods.loc[methods["method"] == "", "method"] = "could not run"
        for dataset, method in methods.drop_duplicates().itertuples(index=False):
            tests_by_dataset.setdefault(dataset, set()).add(method)
    designs = [
        {
            "dataset": str(name),
            "design": design,
            "test": ", ".join(sorted(map(str, tests_by_dataset.get(name, ())))) or "—",
        }
        for name, design in analysis.designs.items()
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
        for row in analysis.wilcoxon.itertuples()
    ]
    bayesian = [
        {
            "a": str(r.models[0]),
            "b": str(r.models[1]),
            "p_a": formatting.format_probability(r.p_a_better, 3),
            "p_rope": formatting.format_probability(r.p_equivalent, 3),
            "p_b": formatting.format_probability(r.p_b_better, 3),
        }
        for r in analysis.bayesian
    ]
    effect_sizes = [
        {
            "a": str(row.a),
            "b": str(row.b),
            "g": _effect_text(row.hedges_g, row.g_low, row.g_high, row.g_magnitude),
            "delta": _effect_text(
                row.cliff_delta, row.delta_low, row.delta_high, row.delta_magnitude
            ),
            "dz": _paired_text(row.d_z, row.dz_low, row.dz_high, row.dz_magnitude),
            # no effect (g = 0) favours neither model; pandas may hold it as None or NaN
            "favours": _favours_text(row),
        }
        for row in (analysis.effect_sizes.itertuples() if analysis.effect_sizes is not None else ())
    ]
    level = level_text(1 - analysis.alpha)
    effect_text = (
        f"How large each difference is across the {len(analysis.datasets)} data sets, on "
        "scales free of the metric's units: Hedges' g (Cohen's d with the small-sample "
        "correction of Hedges 1981, the two models' per-data-set means as two samples, "
        f"{level} interval of Hedges and Olkin 1985) and Cliff's δ = P(A higher) − "
        f"P(B higher) over pairs of data-set means ({level} interval of Cliff 1993); "
        "positive when A's {metric} is higher. Words: negligible, small, medium, large "
        "(Cohen 1988 for g; Romano et al. 2006 for δ), as autorank reports them. Both treat "
        "the two columns of data-set means as independent samples: they ignore that both "
        "models ran on the same data sets, so the spread of difficulty between data sets "
        "hides a difference every data set shows (a model better on every data set can get "
        "a small g whose interval contains 0). The paired d_z keeps the pairing, as the "
        "Wilcoxon test does: the mean of the per-data-set differences A − B over their "
        f"standard deviation (Cohen 1988; Lakens 2013), {level} interval from the "
        "noncentral t (Cumming and Finch 2001), words on Cohen's scale. An effect size "
        "describes; the tests above decide."
    ).replace("{metric}", metric_words)
    order = friedman.average_ranks.sort_values(kind="mergesort")
    k, n = friedman.n_models, friedman.n_datasets
    decision = "rejects" if friedman.reject(analysis.alpha) else "does not reject"
    friedman_text = (
        f"Friedman's χ² = {friedman.statistic:.3f} (df = {friedman.df}"
        # the words only where a tie changed the statistic (the factor is 1 without ties)
        f"{', corrected for ties' if friedman.statistic != friedman.statistic_uncorrected else ''}"
        "), "
        f"{p_equals(friedman.pvalue)}; Iman and Davenport's F = "
        f"{friedman.f_statistic:.3f} (df = {friedman.f_df[0]}, {friedman.f_df[1]}), "
        f"{p_equals(friedman.f_pvalue)}: the test {decision} equal "
        f"average ranks of the {k} models over the {n} data sets at α = {analysis.alpha:g}."
    )
    cliques = [", ".join(map(str, c)) for c in nemenyi.cliques]
    wilcoxon_groups = "; ".join(
        "{" + ", ".join(map(str, c)) + "}" for c in analysis.wilcoxon_cliques
    )
    nemenyi_text = (
        f"Nemenyi's critical difference at α = {analysis.alpha:g}: CD = {nemenyi.q_alpha:.3f} "
        f"× √(k(k+1)/(6N)) = {nemenyi.cd:.3f}."
    )
    if analysis.bonferroni_dunn is not None:
        dunn = analysis.bonferroni_dunn
        separated = [
            str(m) for m in order.index if m != dunn.control and dunn.different(m, dunn.control)
        ]
        nemenyi_text += (
            f" Against {dunn.control}, Bonferroni–Dunn's CD = {dunn.cd:.3f} separates "
            + (", ".join(separated) if separated else "no model")
            + "."
        )
    bayes = analysis.bayesian[0] if analysis.bayesian else None
    matrix = None
    if per is not None and per.baseline is None:
        wtl = per.win_tie_loss_matrix()
        n_pairs = len(analysis.models) * (len(analysis.models) - 1) // 2
        adjusted = (
            f", its p-values adjusted over the {n_pairs} pairs of that data set with "
            f"{correction_name(per.correction)}"
            if per.correction and n_pairs > 1
            else ""
        )
        matrix = {
            "caption": "win/tie/loss of the row model against the column model at "
            f"α = {analysis.alpha:g}, by each data set's test{adjusted}",
            "models": [str(m) for m in wtl.columns],
            "rows": [
                {"model": str(m), "cells": [text or "—" for text in cells]}
                for m, cells in zip(wtl.index, wtl.to_numpy())
            ],
        }
    return {
        "title": title,
        "intro": (
            f"{k} models on {n} data sets; metric: {metric_words} "
            f"({analysis.metric.direction} is better)."
            + (f" The baseline is {analysis.baseline}." if analysis.baseline is not None else "")
        ),
        "table": table_context(analysis, digits=digits),
        "designs": designs,
        # one score per data set and model: one sentence, not a table of dashes
        "designs_note": None
        if per is not None
        else f"Each of the {n} data sets holds one {metric_words} per model: no test "
        "runs within a data set, and the comparison rests on the tests across data sets "
        "below.",
        "wtl_matrix": matrix,
        "test_header": (
            "Test against the baseline" if analysis.baseline is not None else "Test of each pair"
        ),
        "ranks": [{"model": str(m), "rank": f"{v:.3f}"} for m, v in order.items()],
        "friedman_text": friedman_text,
        "nemenyi_text": nemenyi_text,
        "cliques": cliques,
        "wilcoxon": wilcoxon,
        # one heading in every format: the section holds the Bayesian tests when they ran
        "pairs_heading": "Pairs: Wilcoxon and Bayesian signed-rank tests"
        if bayesian
        else "Pairs: Wilcoxon signed-rank tests",
        "wilcoxon_text": (
            f"Wilcoxon signed-rank test of each pair over the {n} data sets (R+: sum of "
            "ranks where B is better, R−: where A is better; zero differences split evenly), "
            + (
                f"p-values adjusted with {correction_name(analysis.wilcoxon_correction)}."
                if len(analysis.wilcoxon) > 1
                else "one pair, so its p-value has nothing to be adjusted against."
            )
            + (
                f" Groups of models, consecutive in rank, that no adjusted Wilcoxon test "
                f"separates (Benavoli, Corani and Mangili 2016 prefer such pairwise tests to "
                f"mean-rank cliques): {wilcoxon_groups}."
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
            f"{bayes.rope:g} in {metric_words}), or that B is better; "
            f"{bayes.n_samples:,} Monte Carlo draws per pair, seed {bayes.seed}, prior strength "
            f"{bayes.prior_strength:g} (Monte Carlo standard error "
            f"{_at_most(max(r.mc_standard_error for r in analysis.bayesian))})."
        ),
        "notes": list(analysis.notes),
        "references": _references(analysis),
        "simplex_more": max(0, len(analysis.bayesian) - SIMPLEX_FIGURES),
        "alpha": analysis.alpha,
        "version": __version__,
    }


def _references(analysis: DatasetsAnalysis) -> list[str]:
    """Every paper the report cites: the methods across data sets, the effect sizes, the
    Wilcoxon tests' correction and the test each data set's design called for."""
    cited = list(REFERENCES)
    per = analysis.per_dataset
    # a data set's family is k − 1 comparisons with a baseline, k(k − 1)/2 pairs without
    holm = (analysis.wilcoxon_correction == "holm" and len(analysis.wilcoxon) > 1) or (
        per is not None and per.correction == "holm" and len(analysis.models) > 2
    )
    if not holm:  # one p-value, or another correction: Holm is cited nowhere
        cited = [c for c in cited if not c.startswith("Holm, S.")]
    if not analysis.wilcoxon_cliques:  # the groups' sentence is the one that cites it
        cited = [c for c in cited if not c.startswith("Benavoli, A., Corani, G., Mangili")]
    if analysis.effect_sizes is not None:
        cited += EFFECT_SIZE_REFERENCES
    if analysis.wilcoxon_correction == "bergmann-hommel":
        cited.append(BERGMANN_HOMMEL_REFERENCE)
    if per is not None:
        for test in per.comparisons["test"].dropna().unique():
            if test:
                reference = get_spec(str(test), in_report=True).reference
                if reference not in cited:
                    cited.append(reference)
    return bibliography(cited)  # a paper once, without the equation a test points to


def simplex_figures(analysis: DatasetsAnalysis) -> list[dict[str, str]]:
    """The posterior of the first pairs' Bayesian signed-rank tests on the simplex (SVG).

    Each figure draws :data:`SIMPLEX_POINTS` points of the posterior the analysis's
    test describes (its rope, prior strength and seed), as Benavoli et al. (2017, §4.2)
    plot it; the same analysis always gives the same figures.
    """
    figures = []
    for index, test in enumerate(analysis.bayesian[:SIMPLEX_FIGURES]):
        a, b = test.models
        theta = posterior_points(
            analysis.means[a],
            analysis.means[b],
            analysis.metric.direction,
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


def _cd_arguments(analysis: DatasetsAnalysis) -> dict[str, Any]:
    """What the SVG and the TikZ diagram draw: the ranks, the CD and Nemenyi's cliques."""
    return {
        "average_ranks": analysis.nemenyi.average_ranks,
        "cd": analysis.nemenyi.cd,
        "cliques": analysis.nemenyi.cliques,
        "n_datasets": len(analysis.datasets),
        "test": f"Nemenyi test at α = {analysis.alpha:g}",
        "highlight": analysis.baseline,
    }


def cd_svg(analysis: DatasetsAnalysis, *, figure_id: str = "cvr-cd") -> str:
    """The critical-difference diagram (Nemenyi cliques) as inline SVG."""
    return cd_diagram(
        **_cd_arguments(analysis),
        figure_id=figure_id,
        title=f"Critical-difference diagram: average ranks of {len(analysis.models)} models",
    )


def cd_tikz(analysis: DatasetsAnalysis, *, width_cm: float = 8.0) -> str:
    """The critical-difference diagram (Nemenyi cliques) as a bare ``tikzpicture``."""
    return draw_cd_tikz(**_cd_arguments(analysis), width_cm=width_cm)


def cd_text(analysis: DatasetsAnalysis) -> str:
    """The critical-difference diagram in monospaced text (the Markdown report's)."""
    return draw_cd_text(
        analysis.nemenyi.average_ranks, cd=analysis.nemenyi.cd, cliques=analysis.nemenyi.cliques
    )


def cd_caption(analysis: DatasetsAnalysis) -> str:
    """The caption of the critical-difference diagram in LaTeX."""
    return (
        f"Average ranks of {len(analysis.models)} models over {len(analysis.datasets)} data "
        f"sets (1 = best, on the right); a bar joins models that the Nemenyi test at "
        f"α = {analysis.alpha:g} does not separate; CD = {analysis.nemenyi.cd:.3f} "
        "(Demšar 2006)"
        + ("" if analysis.baseline is None else f"; the baseline, {analysis.baseline}, in bold")
        + "."
    )


def fenced(text: str) -> str:
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


def _favours_text(row: Any) -> str:
    """The model the means favour; where Cliff's δ points the other way, that too.

    g and d_z share the sign of the difference of the means; δ counts which model is
    higher over pairs of data sets, and one data set far off can pull the means the
    other way.
    """
    if _missing(row.favours):
        return "neither"
    favoured = str(row.favours)
    if math.isfinite(row.cliff_delta) and row.cliff_delta * row.hedges_g < 0:
        other = str(row.b) if favoured == str(row.a) else str(row.a)
        return f"{favoured} by the means (g, d_z); {other} by Cliff's δ"
    return favoured


def _paired_text(value: float, low: float, high: float, words: str) -> str:
    """``-1.96 [-3.02, -0.87] large``; a d_z without spread is said in words."""
    if math.isnan(value):
        return "undefined (no difference on any data set)"
    if not math.isfinite(value):
        return "undefined (the same difference on every data set)"
    return f"{value:.2f} [{low:.2f}, {high:.2f}] {words}"


def _at_most(error: float) -> str:
    """``≤ 0.002``; an error that rounds to 0.000 is ``< 0.001``, not ``≤ 0.000``."""
    return f"≤ {error:.3f}" if error >= 0.0005 else "< 0.001"
