"""The view model of a report: a plain dict of numbers, strings and lists the templates render.

Built once from an :class:`~cvreport.reporting.analyse.Analysis` value and the
render options (the title, the prefix of the figures' ids); nothing here computes
a statistic (the numbers come from the analysis, figures are drawn by
:mod:`cvreport.rendering.figures`).
Every number is in the user's metric and direction.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport import references
from cvreport._version import __version__
from cvreport.data.design import DesignKind, size_range
from cvreport.data.direction import Provenance
from cvreport.data.metrics import reader_name
from cvreport.methods.registry import SPECS, get_spec
from cvreport.partitions import audit_summary
from cvreport.rendering import figures
from cvreport.reporting import interpret, overview
from cvreport.reporting.analysis import Comparison, TestOutcome, float_or_none, options_for
from cvreport.results import level_text

if TYPE_CHECKING:
    from cvreport.reporting.analyse import Analysis

__all__ = ["build_context", "side_mark"]

_AUDIT_COLUMNS = {
    "replication_a": ("replication", "text"),
    "replication_b": ("replication", "text"),
    "n": ("n", "value"),
    "overlap": ("X", "value"),
    "expected": ("E X", "number"),
    "z": ("Z = |X − E X|", "number"),
    "pvalue": ("P(Z ≥ z)", "pvalue"),
}


def build_context(analysis: Analysis, *, title: str, figure_prefix: str) -> dict[str, Any]:
    """The report of an analysis as a plain dict (what the templates render).

    ``title`` is the report's heading and ``figure_prefix`` keeps the ids of its
    figures apart from another report's on the same page.
    """
    outcomes = analysis.outcomes
    audit = _audit_context(analysis)
    context = {
        "title": title,
        "version": __version__,
        "alpha": analysis.alpha,
        "alpha_text": f"{analysis.alpha:g}",
        "level_text": _level_text(analysis),
        "sides": _sides_sentence(analysis),
        "correction": analysis.correction,
        "correction_name": interpret.correction_name(analysis.correction)
        if analysis.correction
        else None,
        "any_adjusted": any(o.adjusted is not None for o in outcomes),
        "data": _data_context(analysis),
        "audit": audit,
        "model_losses": [dict(row) for row in analysis.model_summaries],
        "metrics": analysis.confusion,
        "recommendation": {
            "names": list(analysis.recommendation.names),
            "labels": [_test_name(analysis, n) for n in analysis.recommendation.names],
            "reason": analysis.recommendation.reason,
            "tests_option": analysis.tests
            if isinstance(analysis.tests, str)
            else list(analysis.tests),
        },
        "bottom_line": _bottom_line(analysis),
        "overview": _overview(analysis),
        "all_pairs": overview.context(
            analysis.overview, analysis.correction, _all_pairs_label(analysis)
        ),
        "pairs": [
            _pair_context(analysis, i, c, figure_prefix) for i, c in enumerate(analysis.comparisons)
        ],
        "pvalue_figure": _pvalue_figure(analysis, figure_prefix),
        "caveats": _caveats(analysis, audit),
        "design_kind": analysis.design.kind,
        "unit": _unit(analysis),
    }
    _say_shared_notes_once(context["pairs"], context["caveats"])
    context["references"] = _references(analysis, audit, list(_sentences(context)))
    return context


def _after_colon(text: str) -> str:
    """A test's note as it continues "Test: …": a capital that only started the note's own
    sentence is lower-cased; a name, a symbol or an abbreviation keeps it.

    >>> _after_colon("Every split difference is 0."), _after_colon("McNemar's b is 0.")
    ('every split difference is 0.', "McNemar's b is 0.")
    >>> _after_colon("P(equivalent) = 1."), _after_colon("n2/n1 = 0.25.")
    ('P(equivalent) = 1.', 'n2/n1 = 0.25.')
    """
    first = text.split(" ", 1)[0]
    return interpret.in_sentence(text) if first.isalpha() else text


def _say_shared_notes_once(pairs: list[dict[str, Any]], caveats: list[str]) -> None:
    """A note that every pair's tests share word for word (the n2/n1 of the corrected t
    tests, say) moves from each pair's caveats to the report's, said once."""
    if len(pairs) < 2:
        return
    shared = set.intersection(
        *({c["text"] for c in pair["caveats"] if c["kind"] == "note"} for pair in pairs)
    )
    if not shared:
        return
    in_order = [c["text"] for c in pairs[0]["caveats"] if c["text"] in shared]
    for pair in pairs:
        pair["caveats"] = [c for c in pair["caveats"] if c["text"] not in shared]
    caveats.extend(_for_every_pair(text) for text in in_order)


def _for_every_pair(text: str) -> str:
    """A pair's caveat ("Test: words") as the report's: "Test (every pair): words"."""
    method, colon, rest = text.partition(": ")
    return f"{method} (every pair): {rest}" if colon else f"Every pair: {text}"


def _decided(analysis: Analysis) -> list[TestOutcome]:
    """The outcomes with a p-value and a decision (the Bayesian tests have neither)."""
    return [o for o in analysis.outcomes if o.posterior is None and o.has_pvalue]


def _level_text(analysis: Analysis) -> str:
    """The level of the intervals the tables show: 1 − α, or the 1 − 2α interval a test
    against a margin compares with it (Schuirmann 1987), or both when the tests mix."""
    decided = _decided(analysis)
    margins = [o.result.margin is not None for o in decided]
    if margins and all(margins):
        return level_text(1 - 2 * analysis.alpha)
    if any(margins):
        return (
            f"{level_text(1 - analysis.alpha)} ({level_text(1 - 2 * analysis.alpha)} "
            "against a margin)"
        )
    return level_text(1 - analysis.alpha)


def side_mark(alternative: str) -> str | None:
    """How a test's row is marked when it is not two-sided: ``"non-inferiority"``,
    ``"equivalence"`` or ``"one-sided"``; None for a two-sided test.

    >>> side_mark("non-inferior"), side_mark("less"), side_mark("two-sided")
    ('non-inferiority', 'one-sided', None)
    """
    marks = {"non-inferior": "non-inferiority", "equivalent": "equivalence"}
    if alternative == "two-sided":
        return None
    return marks.get(alternative, "one-sided")


def _sides_sentence(analysis: Analysis) -> str:
    """What the tests' H₁ is and what "significant" means, true of every test the tables show:
    a test against a margin or a one-sided test is marked in its row and said here."""
    adjusted = (
        ", using the adjusted p-value"
        if any(o.adjusted is not None for o in analysis.outcomes)
        else ""
    )
    alpha = f"α = {analysis.alpha:g}"
    marks = {side_mark(o.result.alternative) for o in _decided(analysis)} - {None}
    if not marks:
        return (
            "Every test is two-sided: H₁ is that the two models differ. “Significant” means the "
            f"decision rejects “no difference” at {alpha}{adjusted}."
        )
    meanings = []
    if "one-sided" in marks:
        meanings.append("for a one-sided test, that it rejects “no difference” in favour of its H₁")
    if "non-inferiority" in marks:
        meanings.append(
            "for a non-inferiority test, that A is shown not to be worse than B by the margin "
            "or more"
        )
    if "equivalence" in marks:
        meanings.append(
            "for an equivalence test, that the two are shown to differ by less than the margin"
        )
    return (
        f"A test is two-sided (H₁: the two models differ) unless its row is marked "
        f"{interpret.join_words([f'“{m}”' for m in sorted(marks)])}. “Significant” means, at {alpha}{adjusted}: "
        f"for a two-sided test, that the decision rejects “no difference”; "
        f"{'; '.join(meanings)}."
    )


def _test_name(analysis: Analysis, name: str) -> str:
    """A test as every heading of the report names it: the method its result gives."""
    methods = (o.method for o in analysis.outcomes if o.name == name)
    return next(methods, get_spec(name).method)


def _validated_only(design: Any) -> bool:
    """Repeated hold-out records: the table holds the records some split validated, which
    need not be the data set (10 splits of 10 % validate about 65 % of it)."""
    return design.kind is DesignKind.REPEATED_HOLDOUT and design.per_record and bool(design.sizes)


def _design_line(design: Any) -> str:
    """The design in words; for repeated hold-out, the records as what they are."""
    if not _validated_only(design):
        return design.describe()
    return (
        f"{design.kind.title(m=design.m, K=design.K)} (J = {design.m} splits, "
        f"{design.n_records} records validated, validation sets of {size_range(design.sizes)}; "
        "the data set's size is not in the table)"
    )


def _records_note(design: Any, ratio: Any) -> str | None:
    """What the Records row's number is when it is not the data set's size."""
    if not _validated_only(design):
        return None
    note = "validated by some split; the data set's size is not in the table"
    if ratio is not None and ratio.source is Provenance.GIVEN:
        return f"{note} (n2/n1 = {ratio.value:.6g}, as given)"
    return (
        f"{note}, so the training sizes and n2/n1 are inferred from these records: pass "
        "test_train_ratio= (--test-train-ratio) with the validation size over the training "
        "size if the training sets were larger"
    )


def _data_context(analysis: Analysis) -> dict[str, Any]:
    facts = analysis.facts
    design = analysis.design
    metric = analysis.metric
    sizes = design.fold_sizes
    fold_sizes: dict[str, Any] | None = None
    fold_size_summary = None
    if sizes is not None and len(sizes):
        wide = sizes.pivot(index="replication", columns="fold", values="n")
        if wide.shape[0] <= 12 and wide.shape[1] <= 12:
            fold_sizes = {
                "folds": [str(c) for c in wide.columns],
                "rows": [
                    {
                        "replication": str(index),
                        "sizes": [None if pd.isna(v) else int(v) for v in row],
                    }
                    for index, row in zip(wide.index, wide.to_numpy())
                ],
            }
        n = pd.to_numeric(sizes["n"], errors="coerce").to_numpy(dtype=float)
        n = n[np.isfinite(n)]
        if n.size:
            low, high = int(n.min()), int(n.max())
            fold_size_summary = f"{low}" if low == high else f"{low} to {high}"
        else:
            fold_sizes = None  # per-fold scores: the sizes are unknown
    compared = {m for pair in analysis.pairs for m in pair}
    if analysis.overview is not None:  # every pair is compared in the all-pairs section
        compared |= {*analysis.overview["a"], *analysis.overview["b"]}
    n_table = len(facts.models)
    models_text = (
        f"{n_table} models"
        if len(compared) == n_table
        else f"{len(compared)} of the table's {n_table} models compared"
    )
    return {
        "models": [str(m) for m in facts.models],
        "n_models": len(compared),
        "models_text": models_text,
        "design": _design_line(design),
        "records_note": _records_note(design, facts.test_train_ratio),
        "kind": design.kind,
        "kind_text": _kind_words(design.kind),
        "m": int(design.m),
        "K": int(design.K),
        "n_records": None if design.n_records is None else int(design.n_records),
        "fold_sizes": fold_sizes,
        "fold_size_summary": fold_size_summary,
        "complete": bool(getattr(design, "complete", True)),
        "source": _article_before_count(facts.source),
        "formula": facts.formula,
        "loss_name": facts.loss_name,
        "measure": reader_name(metric.name),
        # the per-model column: a mean over folds, or the one value of one test set
        **_value_words(
            reader_name(metric.name),
            one_value=not analysis.measure.startswith("mean"),
            unit=_unit(analysis),
        ),
        "better_word": metric.better_word,
        "higher_is_better": metric.higher_is_better,
        "direction_note": "" if facts.direction is None else str(facts.direction.source),
        "direction_provenance": None if facts.direction is None else facts.direction.row_words,
        "positive_class": None if facts.positive_class is None else facts.positive_class.value,
        "positive_class_provenance": None
        if facts.positive_class is None
        else facts.positive_class.words,
        "per_record": facts.per_record,
        "clusters": None if facts.clusters is None else _sentence_case(facts.clusters),
        "binary": facts.binary,
        "pairs": [f"{a} vs {b}" for a, b in analysis.pairs],
    }


def _unit(analysis: Analysis) -> str:
    """What one validation of the design is called: a fold, or a split of a repeated hold-out."""
    return "split" if analysis.design.kind == DesignKind.REPEATED_HOLDOUT else "fold"


def _kind_words(kind: str) -> str:
    """The design kind in a phrase ("one run of K-fold cross-validation")."""
    try:
        return DesignKind(kind).words
    except ValueError:
        return str(kind)


def _value_words(name: str, *, one_value: bool, unit: str = "fold") -> dict[str, str]:
    """Headings of the per-model table and of the pairs' differences: a mean over folds, or
    one value per model."""
    if one_value:
        return {
            "value_heading": name,
            "value_column": "Value",
            "value_caption": f"{name} of each model on the one validation set",
            "difference_heading": "A − B",  # one value per model: a difference, not a mean
        }
    return {
        "value_heading": f"Mean {name}",
        "value_column": "Mean",
        "value_caption": f"Mean {name} over validation {unit}s",
        "difference_heading": "Mean A − B",
    }


_COUNTED = re.compile(r"\b([Aa]) (?=(\d{1,3})(?:,\d{3})*-)")


def _article_before_count(text: str | None) -> str | None:
    """``"a 8,535-row"`` as it is read aloud: ``"an 8,535-row"`` (eight, eleven, eighteen).

    >>> _article_before_count("formula on a 8,535-row DataFrame, a 400-row one, a 11-row one")
    'formula on an 8,535-row DataFrame, a 400-row one, an 11-row one'
    """
    if text is None:
        return None

    def article(match: re.Match[str]) -> str:
        lead = match[2]  # the first group of digits: the word the number is read with
        vowel = lead.startswith("8") or lead in ("11", "18")
        return f"{match[1]}{'n' if vowel else ''} "

    return _COUNTED.sub(article, text)


def _audit_context(analysis: Analysis) -> dict[str, Any] | None:
    audit = analysis.audit
    if audit is None:
        return {"available": False, "note": analysis.audit_note} if analysis.audit_note else None
    z_max = float_or_none(getattr(audit, "z_max", None))
    pvalue = float_or_none(getattr(audit, "pvalue", None))
    verdict = getattr(audit, "verdict", None)
    return {
        "available": True,
        "partitions": analysis.partitions,
        "z_max": z_max,
        "pvalue": pvalue,
        "verdict": None if verdict is None else str(verdict),
        "poor": verdict == "poor",
        # one sentence, written by the audit itself
        "reading": str(getattr(audit, "meaning", "") or verdict or ""),
        "pairs": _audit_pairs(audit),
        # what a row's X and Z are when not one overlap (K-fold: the worst of K² pairs)
        "legend": str(getattr(audit, "pair_legend", "") or "") or None,
        "warnings": [str(w) for w in getattr(audit, "warnings", ())],
        "reference": str(getattr(audit, "reference", "") or references.OVERLAP_REFERENCE),
        "note": None,
    }


def _bottom_line(analysis: Analysis) -> list[dict[str, Any]]:
    """Per pair: the verdicts of the recommended tests (or of all tests run), then the direction."""
    lines = []
    for comparison in analysis.comparisons:
        shown = comparison.recommended or comparison.outcomes
        if not shown:
            reason = (
                "; ".join(s.reason for s in comparison.skipped) or analysis.recommendation.reason
            )
            lines.append({"pair": comparison.label, "text": f"No test could be run: {reason}"})
            continue
        clauses = [o.headline for o in shown if o.posterior is None]
        posteriors = [o.headline for o in shown if o.posterior is not None]
        text = interpret.headline(
            clauses,
            a=comparison.a,
            b=comparison.b,
            estimate=_mean_difference(comparison),
            metric=analysis.metric,
            measure=analysis.measure,
        )
        missing = _recommended_not_run(analysis, comparison)
        if missing:  # the verdicts below are not the recommended test's: say so first
            said = "test" if len(missing) == 1 else "tests"
            text = (
                f"The recommended {said} ({interpret.join_methods(missing)}) could not run "
                f"(see below); no test decides. The other tests: {text[:1].lower()}{text[1:]}"
            )
        reversed_scores = (
            [
                "Every model ranks the records backwards: the scores look like the other class's "
                "(see the caveats)."
            ]
            if _reversed_scores(analysis)
            else []
        )
        shown_text = " ".join([text, *posteriors, *_audit_warning(analysis), *reversed_scores])
        lines.append({"pair": comparison.label, "text": shown_text})
    return lines


def _audit_warning(analysis: Analysis) -> list[str]:
    """The overlap audit's bad news, repeated beside each decision it weakens."""
    audit = analysis.audit
    if audit is None or getattr(audit, "verdict", None) != "poor":
        return []
    repeats = str(getattr(audit, "repeated_partitions_text", "") or "")
    if repeats:
        return [
            f"The decision rests on repeated partitions ({repeats}); the test counts every "
            "replication as a fresh one (see the overlap audit)."
        ]
    return [
        "The overlap audit's verdict on the partitions is poor: read the decision with "
        "caution (see the overlap audit)."
    ]


def _recommended_not_run(analysis: Analysis, comparison: Comparison) -> list[str]:
    """The recommended tests asked for on a pair that could not run, when none of them ran."""
    if comparison.recommended:
        return []
    names = set(analysis.recommendation.names)
    return [s.label for s in comparison.skipped if s.name in names]


def _mean_difference(comparison: Comparison) -> float | None:
    for outcome in comparison.outcomes:
        if outcome.estimate_label == "mean difference" and outcome.shown_estimate is not None:
            return outcome.shown_estimate
    return None


def _all_pairs_label(analysis: Analysis) -> str | None:
    """The all-pairs test as the detailed sections name it."""
    if analysis.overview is None or analysis.overview.empty:
        return None
    return _test_name(analysis, str(analysis.overview["test"].iloc[0]))


def _overview(analysis: Analysis) -> list[dict[str, Any]] | None:
    """One row per pair (shown when several pairs are compared): the deciding test's verdict."""
    if len(analysis.comparisons) < 2:
        return None
    rows = []
    for index, comparison in enumerate(analysis.comparisons):
        missing = _recommended_not_run(analysis, comparison)
        deciding = next(
            (o for o in comparison.recommended if o.reject is not None),
            None
            if missing  # another test does not take the place of the one that did not run
            else next((o for o in comparison.outcomes if o.reject is not None), None),
        )
        rows.append(
            {
                "pair": comparison.label,
                "anchor": f"pair-{index + 1}",
                "test": deciding.method
                + (f" ({mark})" if (mark := side_mark(deciding.result.alternative)) else "")
                if deciding
                else (f"none: {interpret.join_methods(missing)} did not run" if missing else None),
                "estimate": _mean_difference(comparison),
                "pvalue": float_or_none(deciding.result.pvalue) if deciding else None,
                "adjusted": deciding.adjusted if deciding else None,
                "reject": deciding.reject if deciding else None,
            }
        )
    return rows


def _pair_context(
    analysis: Analysis, index: int, comparison: Comparison, figure_prefix: str
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    bayes: list[dict[str, Any]] = []
    caveats: list[dict[str, str]] = []
    for outcome in comparison.outcomes:
        result = outcome.result
        notes = list(result.notes)
        cautions = []
        not_recommended = bool(outcome.caution) and not outcome.recommended
        labelled = any("not recommended" in n.lower() for n in notes)
        if not_recommended and not labelled:
            cautions.append(
                f"{outcome.method}: not recommended as the deciding test — {outcome.caution}."
            )
            notes = [n for n in notes if n != f"{outcome.caution}."]  # said once, just above
        warnings_ = [*result.warnings, *outcome.extra_warnings]
        entry: dict[str, Any] = {
            "name": outcome.name,
            "method": outcome.method,
            "recommended": outcome.recommended,
            "statistic": outcome.shown_statistic,
            "df": result.df,
            "distribution": result.distribution,
            "alternative": result.alternative,
            "side": side_mark(result.alternative) if outcome.posterior is None else None,
            "hypothesis": interpret.hypothesis_sentence(
                result.alternative, comparison.a, comparison.b, analysis.metric, result.margin
            ),
            "pvalue": float_or_none(result.pvalue),
            "adjusted": outcome.adjusted,
            "reject": outcome.reject,
            "estimate": outcome.shown_estimate,
            "estimate_label": outcome.estimate_label,
            "estimate_note": None
            if outcome.estimate_label == "mean difference"
            else outcome.estimate_label,
            "interval": outcome.shown_interval,
            "nobs": result.nobs,
            "interpretation": outcome.interpretation,
            "warnings": warnings_,
            "notes": notes,
            "cautions": cautions,
            "not_recommended": not_recommended or (labelled and not outcome.recommended),
            "reference": result.reference,
        }
        if outcome.posterior is not None:
            entry["posterior"] = asdict(outcome.posterior)
            bayes.append(entry)
        else:
            rows.append(entry)
    said: dict[tuple[str, str], list[str]] = {}  # (kind, words) -> the tests that say them
    for entry in rows + bayes:
        caveats.extend({"text": c, "kind": "caution"} for c in entry["cautions"])
        for kind, words in [
            *(("warning", _as_sentence(w, entry["name"])) for w in entry["warnings"]),
            *(("note", n) for n in entry["notes"]),
        ]:
            if (kind, words) not in said:
                said[(kind, words)] = []
                caveats.append({"text": words, "kind": kind})
            said[(kind, words)].append(entry["method"])
    for caveat in caveats:  # a caveat several tests share is said once, naming them all
        methods = said.get((caveat["kind"], caveat["text"]))
        if methods is not None:
            caveat["text"] = (
                f"{interpret.join_methods(methods, starts_sentence=True)}: "
                f"{_after_colon(caveat['text'])}"
            )
    holdout = analysis.design.kind == "holdout"
    return {
        "index": index,
        "anchor": f"pair-{index + 1}",
        "caveats": caveats,
        "a": comparison.a,
        "b": comparison.b,
        "label": comparison.label,
        "tests": rows,
        "bayesian": bayes,
        "skipped": [
            {"name": s.name, "label": s.label, "reason": _skip_reason(s.reason, s.name)}
            for s in comparison.skipped
        ],
        "disagreement": comparison.disagreement,
        "fallback_note": comparison.fallback_note,
        "counts": analysis.holdout_counts[index] if holdout else None,
        "figure": None if holdout else _difference_figure(analysis, index, figure_prefix),
        "any_adjusted": any(r["adjusted"] is not None for r in rows),
    }


def band_outcome(comparison: Comparison) -> TestOutcome | None:
    """The test whose interval shades the per-fold figure: the first recommended test with
    an interval about the mean difference, or None (no other test's interval is drawn)."""
    return next(
        (
            o
            for o in comparison.recommended
            if o.shown_interval is not None
            and o.posterior is None
            and o.estimate_label == "mean difference"
        ),
        None,
    )


def _difference_figure(analysis: Analysis, index: int, figure_prefix: str) -> str | None:
    comparison = analysis.comparisons[index]
    differences = analysis.differences[index]
    if differences is None:
        return None
    mean = _mean_difference(comparison)
    band = band_outcome(comparison)
    interval = band.shown_interval if band else None
    interval_label = (
        f"{level_text(band.result.interval_level(analysis.alpha))} interval of the recommended "
        f"{interpret.in_sentence(band.method)}"
        # the decision uses the adjusted p-value; the band is the test's own interval
        + (" (unadjusted)" if band.adjusted is not None else "")
        if band
        else "interval"
    )
    metric = analysis.metric
    name = reader_name(metric.name)
    xlabel = f"{name} of {comparison.a} − {name} of {comparison.b}"
    return figures.difference_plot(
        differences,
        title=f"Per-{_unit(analysis)} differences in {name}: {comparison.a} − {comparison.b}",
        mean=mean,
        interval=interval,
        interval_label=interval_label,
        xlabel=xlabel,
        figure_id=f"{figure_prefix}-diff-{index + 1}",
        measure=name,
        right_of_zero=f"{comparison.a} had the higher {name} ({metric.better_word} is better)",
    )


def _pvalue_figure(analysis: Analysis, figure_prefix: str) -> str | None:
    points = []
    several = len(analysis.comparisons) > 1
    for comparison in analysis.comparisons:
        for outcome in comparison.outcomes:
            if not outcome.has_pvalue or outcome.reject is None:
                continue
            points.append(
                figures.PValuePoint(
                    label=outcome.method,
                    pvalue=float(outcome.result.pvalue),
                    adjusted=outcome.adjusted,
                    reject=outcome.reject,
                    group=comparison.label if several else None,
                )
            )
    if not points:
        return None
    return figures.pvalue_plot(
        points,
        alpha=analysis.alpha,
        title=f"p-values against α = {analysis.alpha:g}",
        figure_id=f"{figure_prefix}-pvalues",
    )


def _skip_reason(reason: str, function_name: str) -> str:
    """Why a test did not run, read after its label: "it", not its code name, and a full stop."""
    if reason.startswith(f"{function_name} "):
        reason = "it " + reason[len(function_name) + 1 :]
    return _as_sentence(reason, function_name)


def _as_sentence(warning: str, function_name: str) -> str:
    """A test's warning as the reader meets it after the test's label.

    The label already names the test, so a leading ``"<function name>: "`` (the code's name,
    which the warning carries for the log) is dropped, and the sentence gets its full stop.

    >>> _as_sentence("sign_test: few folds", "sign_test")
    'few folds.'
    """
    prefix = f"{function_name}: "
    text = warning[len(prefix) :] if warning.startswith(prefix) else warning
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _caveats(analysis: Analysis, audit: dict[str, Any] | None) -> list[str]:
    facts = analysis.facts
    caveats = interpret.general_caveats(
        n_models=len(facts.models),
        # with an all-pairs overview the decisions are adjusted over every pair
        n_pairs=len(analysis.comparisons) if analysis.overview is None else len(analysis.overview),
        correction=analysis.correction,
        metric=analysis.metric,
        direction=facts.direction,
        per_record=facts.per_record,
        has_records=facts.has_records,
        single_split=analysis.design.kind == "holdout",
        audit_runs=bool(audit and audit.get("available")),
        rope=next((o.posterior.rope for o in analysis.outcomes if o.posterior is not None), None),
        rope_given=analysis.rope_given,
        sides={side_mark(o.result.alternative) for o in _decided(analysis)},
    )
    if audit and audit.get("available") and audit.get("poor"):
        caveats.insert(0, audit["reading"])
    if facts.clusters_leak:  # the data layer's warning, in the report too
        caveats.insert(0, f"{_sentence_case(facts.clusters_leak)}.")
    reversed_scores = _reversed_scores(analysis)
    if reversed_scores:  # the data layer's warning, in the report too
        caveats.insert(0, f"{_sentence_case(reversed_scores)}.")
    if analysis.partitions in ("balanced", "block-regularized") and analysis.design.kind == "mx2":
        caveats.append(
            "The calibrated F test and the BCV McNemar test are built for balanced or "
            "block-regularized partitions; their calibration does not carry over to random "
            "partitions."
        )
    caveats.extend(_random_draws(analysis))
    if not analysis.recommendation.names:
        caveats.append(analysis.recommendation.reason)
    return caveats


def _reversed_scores(analysis: Analysis) -> str | None:
    """Why the scores look like another class's (every model's AUC far below 0.5), or None."""
    kept = getattr(analysis.table, "_record_predictions", None)
    return None if kept is None else kept.reversed_scores("the score")


def _random_draws(analysis: Analysis) -> list[str]:
    """Per test that drew resamples at random: how many, with which seed, what that means."""
    said: dict[str, str] = {}
    for outcome in analysis.outcomes:
        n = getattr(outcome.result, "n_resamples", None)
        if n is None or outcome.spec is None or outcome.method in said:
            continue
        seed = options_for(outcome.spec, analysis.test_options).get("random_state")
        drawn = "without a seed" if seed is None else f"with the seed {seed!r}"
        said[outcome.method] = (
            f"{outcome.method}: its p-value and interval come from {int(n):,} resamples drawn "
            f"at random {drawn} (random_state in test_options); another seed moves them a little."
        )
    return list(said.values())


def _sentences(value: Any) -> Any:
    """Every string a reader sees in a context, its figures and full citations left out."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in ("reference", "references", "svg", "figure"):
                yield from _sentences(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _sentences(item)


def _references(
    analysis: Analysis, audit: dict[str, Any] | None, sentences: list[str]
) -> list[str]:
    """The papers of the tests that ran and of the audit, and every paper a sentence cites."""
    cited = [o.result.reference for o in analysis.outcomes if o.result.reference]
    if audit and audit.get("available"):
        audit_papers = str(audit["reference"]).split("\n")
        # the calibrated tests' papers belong to m×2 designs, where the audit speaks of them
        cited.extend(audit_papers if analysis.design.kind == "mx2" else audit_papers[:1])
    if any(o.adjusted is not None for o in analysis.outcomes) and analysis.correction == "holm":
        cited.append(references.HOLM_REFERENCE)
    bayesian = any(o.posterior is not None for o in analysis.outcomes)
    if bayesian and not any("Benavoli" in c for c in cited):
        cited.append(references.BENAVOLI_REFERENCE)  # the default rope's source
    known = [spec.reference for spec in SPECS] + [
        str((audit or {}).get("reference") or references.OVERLAP_REFERENCE),
        references.HOLM_REFERENCE,
        references.BENAVOLI_REFERENCE,
        references.SCHUIRMANN_REFERENCE,  # cited where a test runs against a margin
    ]
    cited.extend(references.cited_by_name(sentences, known, listed=references.bibliography(cited)))
    return references.bibliography(cited)


def _audit_pairs(audit: Any) -> dict[str, Any] | None:
    """The audit's per-pair table as column labels, kinds and rows of raw values."""
    pairs = getattr(audit, "pairs", None)
    if pairs is None:
        return None
    frame = pairs if isinstance(pairs, pd.DataFrame) else pd.DataFrame(list(pairs))
    if frame.empty:
        return None
    total = len(frame)
    bins = audit_summary.histogram(frame) if total > audit_summary.SHOWN_PAIRS else None
    frame = audit_summary.worst_pairs(frame)
    columns = [str(c) for c in frame.columns]
    labels = [_AUDIT_COLUMNS.get(c, (c, "value"))[0] for c in columns]
    kinds = [_AUDIT_COLUMNS.get(c, (c, "value"))[1] for c in columns]
    rows = [
        [_plain_value(v, kind) for v, kind in zip(row, kinds)]
        for row in frame.itertuples(index=False, name=None)
    ]
    histogram = None if bins is None else [list(row) for row in bins.to_numpy().tolist()]
    return {"columns": labels, "kinds": kinds, "rows": rows, "total": total, "histogram": histogram}


def _plain_value(value: Any, kind: str) -> Any:
    if kind == "text":
        return str(value)
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    return value


def _sentence_case(text: str) -> str:
    """``text`` with its first letter in capitals, as a sentence or a table cell begins."""
    return text[:1].upper() + text[1:]
