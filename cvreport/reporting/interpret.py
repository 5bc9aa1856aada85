"""Plain-language readings of test decisions, audits and caveats, for readers who are not statisticians.

Every function here turns numbers a report already holds into sentences; none
computes a statistic. Numbers are written with the same formatting functions as
the tables (:mod:`cvreport.rendering.formatting`), so a sentence and its table agree.

Every number a sentence shows is in the user's metric and direction: a
difference is metric(A) − metric(B) (for an AUC, a positive difference means A
scored higher). Sentences never speak of negated scores.

Examples
--------
>>> print(direction_sentence(-0.021, "forest", "tree", metric=Metric("error", "lower")))
forest has the lower mean error, by 0.0210 (A − B = -0.0210).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from cvreport.data.direction import Setting
from cvreport.data.metric import Metric
from cvreport.data.metrics import reader_name
from cvreport.rendering.formatting import (
    format_interval,
    format_number,
    format_probability,
    format_pvalue,
)
from cvreport.results import MARGIN_ALTERNATIVES, level_text

__all__ = [
    "bayesian_sentence",
    "correction_guarantee",
    "correction_name",
    "decision_sentence",
    "direction_sentence",
    "disagreement_cause",
    "disagreement_sentence",
    "general_caveats",
    "headline",
    "hypothesis_sentence",
    "join_words",
    "margin_sentence",
    "measure_words",
    "p_equals",
    "posterior_clause",
    "posterior_disagreement",
    "verdict_clause",
]

DEGENERATE_SENTENCE = (
    " The differences do not vary at all, so the estimated variance is 0 and the statistic "
    "is infinite: this p-value is a convention, not evidence of a difference — read the "
    "per-fold differences instead (more records or more replications give the test "
    "something to work with)."
)
"""Appended to the reading of a test whose statistic is infinite by the zero-variance convention."""

POSTERIOR_THRESHOLD = 0.95
"""A posterior probability above this is read as a decision (Benavoli et al. 2017)."""

_CORRECTION_NAMES = {
    "holm": "Holm's step-down method",
    "bonferroni": "the Bonferroni correction",
    "sidak": "the Šidák correction",
    "holm-sidak": "the Holm–Šidák method",
    "simes-hochberg": "Hochberg's step-up method",
    "hommel": "Hommel's method",
    "fdr_bh": "the Benjamini–Hochberg false discovery rate",
    "fdr_by": "the Benjamini–Yekutieli false discovery rate",
    "fdr_tsbh": "the two-stage Benjamini–Hochberg false discovery rate",
    "fdr_tsbky": "the two-stage Benjamini–Krieger–Yekutieli false discovery rate",
}


def correction_name(method: str) -> str:
    """Readable name of a statsmodels ``multipletests`` method.

    >>> correction_name("holm")
    "Holm's step-down method"
    """
    return _CORRECTION_NAMES.get(method, f"the {method!r} correction")


_FAMILY_WISE = "the chance of any false alarm among the pairs stays at most α"
_FALSE_DISCOVERIES = (
    "on average at most a share α of the differences called significant are false alarms "
    "(the false discovery rate)"
)
_CORRECTION_GUARANTEES = {
    # family-wise error rate (Holm 1979; Bonferroni): any dependence between the tests
    "holm": f"{_FAMILY_WISE}, whatever the dependence between the tests",
    "bonferroni": f"{_FAMILY_WISE}, whatever the dependence between the tests",
    # Šidák (1967), Hochberg (1988), Hommel (1988): independent or positively dependent tests
    "sidak": f"{_FAMILY_WISE} when the tests are independent or positively dependent",
    "holm-sidak": f"{_FAMILY_WISE} when the tests are independent or positively dependent",
    "simes-hochberg": f"{_FAMILY_WISE} when the tests are independent or positively dependent",
    "hommel": f"{_FAMILY_WISE} when the tests are independent or positively dependent",
    # false discovery rate (Benjamini & Hochberg 1995; Benjamini & Yekutieli 2001)
    "fdr_bh": (
        f"{_FALSE_DISCOVERIES} when the tests are independent or positively dependent; "
        "the chance of at least one false alarm can exceed α"
    ),
    "fdr_by": (
        f"{_FALSE_DISCOVERIES} whatever the dependence between the tests; the chance of at "
        "least one false alarm can exceed α"
    ),
    "fdr_tsbh": (
        f"{_FALSE_DISCOVERIES}, estimated in two stages; the chance of at least one false "
        "alarm can exceed α"
    ),
    "fdr_tsbky": (
        f"{_FALSE_DISCOVERIES}, estimated in two stages; the chance of at least one false "
        "alarm can exceed α"
    ),
}


def correction_guarantee(method: str) -> str:
    """What a multiplicity correction controls, as the end of a sentence.

    Holm, Bonferroni, Šidák, Hochberg and Hommel bound the family-wise error rate (the
    chance of any false alarm); Benjamini–Hochberg and Benjamini–Yekutieli bound the
    false discovery rate (Benjamini & Hochberg 1995), the expected share of false alarms
    among the rejections, which lets the chance of some false alarm exceed α.

    >>> correction_guarantee("holm")
    'the chance of any false alarm among the pairs stays at most α, whatever the dependence between the tests'
    >>> correction_guarantee("fdr_bh").split(";")[0]
    'on average at most a share α of the differences called significant are false alarms (the false discovery rate) when the tests are independent or positively dependent'
    """
    return _CORRECTION_GUARANTEES.get(
        method, f"the error rate {correction_name(method)} controls stays at most α"
    )


def p_equals(p: float, name: str = "p") -> str:
    """``p = 0.012``, or ``p < 0.001`` below the display precision.

    >>> p_equals(0.0123), p_equals(1e-6), p_equals(0.2, "adjusted p")
    ('p = 0.012', 'p < 0.001', 'adjusted p = 0.200')
    """
    shown = format_pvalue(p)
    return f"{name} {shown[0]} {shown[1:]}" if shown.startswith("<") else f"{name} = {shown}"


def _adjusted_p(adjusted: float, n_comparisons: int, correction: str | None) -> str:
    """``adjusted p = 0.068 after adjusting for 3 comparisons with Holm's step-down method``."""
    how = f" with {correction_name(correction)}" if correction else ""
    return (
        f"{p_equals(adjusted, 'adjusted p')} after adjusting for {n_comparisons} comparisons{how}"
    )


def direction_sentence(
    estimate: float | None,
    a: str,
    b: str,
    *,
    metric: Metric | None = None,
    estimate_label: str = "mean difference",
    measure: str | None = None,
    named: bool = False,
) -> str:
    """Which model did better on average, and by how much, in the user's metric.

    ``estimate`` is metric(A) − metric(B) in the metric's own units and direction:
    for a score a positive estimate means A scored higher, for a loss that A lost more.
    ``measure`` names what is compared (default "mean" and the metric's name):
    "mean per-fold roc_auc" for an AUC computed per fold, "roc_auc" for the one
    value of each model on one test set (see :func:`measure_words`).
    ``named`` writes the difference with the models' names (``lr − nb``), where the
    roles A and B are not defined (the top of a report); otherwise as ``A − B``.

    >>> print(direction_sentence(0.0, "A", "B"))
    A and B have the same mean loss (A − B = 0.0000).
    >>> print(direction_sentence(-0.0045, "svm", "rf", metric=Metric("auc", "higher")))
    rf has the higher mean AUC, by 0.0045 (A − B = -0.0045).
    >>> print(direction_sentence(-0.021, "forest", "tree", metric=Metric("error", "lower")))
    forest has the lower mean error, by 0.0210 (A − B = -0.0210).
    >>> print(direction_sentence(0.0071, "lr", "nb", metric=Metric("roc_auc", "higher"),
    ...                          measure="roc_auc"))
    lr has the higher roc_auc, by 0.0071 (A − B = 0.0071).
    >>> print(direction_sentence(-0.0917, "A", "C", named=True))
    A has the lower mean loss, by 0.0917 (A − C = -0.0917).
    """
    metric = metric or Metric("loss", "lower")
    difference = f"{a} − {b}" if named else "A − B"
    measure = measure or f"mean {reader_name(metric.name)}"
    if estimate_label != "mean difference":
        return _centre_sentence(estimate, estimate_label)
    if estimate is None or not math.isfinite(estimate):
        return f"The difference in {measure} between {a} and {b} is not defined here."
    if estimate == 0:
        return f"{a} and {b} have the same {measure} ({difference} = {format_number(estimate)})."
    # the model whose value is on the better side of the other's
    a_better = estimate > 0 if metric.higher_is_better else estimate < 0
    better = a if a_better else b
    return (
        f"{better} has the {metric.better_word} {measure}, by "
        f"{format_number(abs(estimate))} ({difference} = {format_number(estimate)})."
    )


def measure_words(metric: Metric, *, per_record: bool, n_folds: int) -> str:
    """What a report compares, in words: a mean over records, over folds, or one value.

    >>> auc = Metric("roc_auc", "higher")
    >>> measure_words(auc, per_record=False, n_folds=10), measure_words(auc, per_record=False,
    ...                                                                  n_folds=1)
    ('mean per-fold AUC', 'AUC')
    >>> measure_words(Metric("error rate", "lower"), per_record=True, n_folds=10)
    'mean error rate'
    """
    name = reader_name(metric.name)
    if per_record:
        return f"mean {name}"
    return name if n_folds <= 1 else f"mean per-fold {name}"


def _centre_sentence(estimate: float | None, label: str) -> str:
    if estimate is None or not math.isfinite(estimate):
        return f"The test's estimate, {label}, is not defined here."
    return (
        f"This test's interval is about {label} (A − B = {format_number(estimate)}), not about "
        "the mean difference."
    )


def hypothesis_sentence(
    alternative: str,
    a: str,
    b: str,
    metric: Metric | None = None,
    margin: float | None = None,
) -> str:
    """The alternative hypothesis in words (tests work on losses: "less" means A is better).

    >>> print(hypothesis_sentence("two-sided", "A", "B"))
    H₁: A and B differ (two-sided).
    >>> print(hypothesis_sentence("less", "A", "B", Metric("auc", "higher")))
    H₁: A is better than B (higher AUC; one-sided, as asked).
    >>> print(hypothesis_sentence("non-inferior", "A", "B", Metric("accuracy", "higher"), 0.005))
    H₁: A is not worse than B by 0.005 accuracy or more (A − B > −0.005).
    """
    metric = metric or Metric("loss", "lower")
    if alternative in MARGIN_ALTERNATIVES:
        return _margin_hypothesis(alternative, a, b, metric, margin)
    if alternative in ("less", "greater"):
        better, worse = (a, b) if alternative == "less" else (b, a)
        return (
            f"H₁: {better} is better than {worse} "
            f"({metric.better_word} {reader_name(metric.name)}; "
            "one-sided, as asked)."
        )
    return f"H₁: {a} and {b} differ (two-sided)."


def _margin_hypothesis(
    alternative: str, a: str, b: str, metric: Metric, margin: float | None
) -> str:
    m = "the margin" if margin is None else f"{margin:g}"
    units = "" if margin is None else f" {reader_name(metric.name)}"
    if alternative == "equivalent":
        return (
            f"H₁: {a} and {b} are equivalent within ±{m}{units} (two one-sided tests: "
            f"−{m} < A − B < {m})."
        )
    side = f"A − B > −{m}" if metric.higher_is_better else f"A − B < {m}"
    return f"H₁: {a} is not worse than {b} by {m}{units} or more ({side})."


def margin_sentence(
    *,
    method: str,
    a: str,
    b: str,
    alternative: str,
    margin: float,
    pvalue: float,
    alpha: float,
    reject: bool,
    interval: tuple[float, float] | None = None,
    adjusted: float | None = None,
    correction: str | None = None,
    n_comparisons: int = 1,
    metric: Metric | None = None,
    degenerate: bool = False,
) -> str:
    """What a test against a margin showed: equivalence, non-inferiority, or that it did not.

    ``interval`` is the two-sided ``1 − 2α`` interval of metric(A) − metric(B)
    that the one-sided tests at level α compare with the margin (Schuirmann 1987);
    ``reject`` is the decision (on the adjusted p-value when one is given). When
    the test does not reject, the sentence says that equivalence (or
    non-inferiority) was NOT shown, never that the models are equal or differ.

    >>> acc = Metric("accuracy", "higher")
    >>> print(margin_sentence(method="Corrected t", a="A", b="B", alternative="non-inferior",
    ...       margin=0.005, pvalue=0.012, alpha=0.05, reject=True, interval=(-0.0031, 0.0102),
    ...       metric=acc))  # doctest: +NORMALIZE_WHITESPACE
    Corrected t: at α = 0.05, A is not worse than B by more than 0.005 accuracy (p = 0.012;
    90% interval for A − B [-0.0031, 0.0102] lies above −0.005).
    >>> print(margin_sentence(method="Corrected t", a="A", b="B", alternative="equivalent",
    ...       margin=0.005, pvalue=0.2, alpha=0.05, reject=False, interval=(-0.0031, 0.0102),
    ...       metric=acc))  # doctest: +NORMALIZE_WHITESPACE
    Corrected t: at α = 0.05, equivalence of A and B within ±0.005 accuracy was NOT shown
    (p = 0.200; 90% interval for A − B [-0.0031, 0.0102] is not within ±0.005). This does
    not mean that they differ by more than the margin: these data cannot tell at this level.
    """
    metric = metric or Metric("loss", "lower")
    m = f"{margin:g}"
    shown_p = p_equals(pvalue)
    if adjusted is not None and correction:
        shown_p += "; " + _adjusted_p(adjusted, n_comparisons, correction)
    level = f"α = {alpha:g}"
    where = ""
    if interval is not None:
        low, high = interval
        if alternative == "equivalent":
            inside = -margin < low and high < margin
            place = f"lies within ±{m}" if inside else f"is not within ±{m}"
        elif metric.higher_is_better:
            place = f"lies above −{m}" if low > -margin else f"does not lie above −{m}"
        else:
            place = f"lies below {m}" if high < margin else f"does not lie below {m}"
        unadjusted = ", not adjusted for the multiple comparisons," if adjusted is not None else ""
        where = (
            f"; {level_text(1 - 2 * alpha)} interval for A − B{unadjusted} {format_interval(interval)} "
            f"{place}"
        )
    if alternative == "equivalent":
        within = f"within ±{m} {reader_name(metric.name)}"
        claim = f"{a} and {b} are equivalent {within}"
        failed = f"equivalence of {a} and {b} {within} was NOT shown"
        doubt = "This does not mean that they differ by more than the margin"
    else:
        claim = f"{a} is not worse than {b} by more than {m} {reader_name(metric.name)}"
        failed = f"non-inferiority was NOT shown: the data do not show that {claim}"
        doubt = f"This is not evidence that {a} is worse"
    tail = "" if reject else f" {doubt}: these data cannot tell at this level."
    caveat = DEGENERATE_SENTENCE if degenerate else ""
    return f"{method}: at {level}, {claim if reject else failed} ({shown_p}{where}).{tail}{caveat}"


def decision_sentence(
    *,
    method: str,
    a: str,
    b: str,
    pvalue: float,
    alpha: float,
    reject: bool,
    estimate: float | None = None,
    interval: tuple[float, float] | None = None,
    adjusted: float | None = None,
    correction: str | None = None,
    n_comparisons: int = 1,
    metric: Metric | None = None,
    estimate_label: str = "mean difference",
    distribution: str = "",
    alternative: str = "two-sided",
    degenerate: bool = False,
    margin: float | None = None,
    measure: str | None = None,
) -> str:
    """What one test's decision means, in words, with numbers in the user's metric.

    ``reject`` is the decision the report states (on the adjusted p-value when
    one is given). F and χ² tests say only whether the models differ; the sign
    of the mean difference tells the direction. ``degenerate`` marks a statistic
    that is infinite by the zero-variance convention: the sentence then says that
    its p-value is a convention, not evidence. A one-sided ``alternative`` is stated.
    A test against a ``margin`` ("equivalent", "non-inferior") is read by
    :func:`margin_sentence`, ``interval`` then being its ``1 − 2α`` interval.

    >>> print(decision_sentence(method="McNemar's test", a="A", b="B", pvalue=0.08, alpha=0.05,
    ...                     reject=False, estimate=0.08))  # doctest: +NORMALIZE_WHITESPACE
    McNemar's test: at α = 0.05 the data do not show a difference between A and B (p = 0.080).
    That is not proof that they perform equally well. B has the lower mean loss, by 0.0800
    (A − B = 0.0800).
    """
    metric = metric or Metric("loss", "lower")
    if alternative in MARGIN_ALTERNATIVES and margin is not None:
        return margin_sentence(
            method=method,
            a=a,
            b=b,
            alternative=alternative,
            margin=margin,
            pvalue=pvalue,
            alpha=alpha,
            reject=reject,
            interval=interval,
            adjusted=adjusted,
            correction=correction,
            n_comparisons=n_comparisons,
            metric=metric,
            degenerate=degenerate,
        )
    shown_p = p_equals(pvalue)
    if adjusted is not None and correction:
        shown_p += "; " + _adjusted_p(adjusted, n_comparisons, correction)
    level = f"α = {alpha:g}"
    direction = direction_sentence(
        estimate, a, b, metric=metric, estimate_label=estimate_label, measure=measure
    )
    hypothesis = (
        " " + hypothesis_sentence(alternative, a, b, metric) if alternative != "two-sided" else ""
    )
    interval_text = ""
    if interval is not None:
        not_adjusted = "not adjusted for the multiple comparisons" if adjusted is not None else ""
        if estimate_label == "mean difference":
            about = f"A − B in {reader_name(metric.name)}"
            unadjusted = f" ({not_adjusted})" if not_adjusted else ""
        else:  # one parenthesis, not two: "p₁⁽¹⁾ (A − B on that fold; not adjusted …)"
            about = f"{estimate_label.split(',')[0]} (A − B on that fold"
            unadjusted = f"; {not_adjusted})" if not_adjusted else ")"
        interval_text = (
            f" The {level_text(1 - alpha)} interval for {about}{unadjusted} is {format_interval(interval)}"
            + (
                "; it excludes 0."
                if interval[0] > 0 or interval[1] < 0
                else "; it is the single point 0 because the two models never differ here, "
                "not a measure of how precisely the difference is known."
                if interval[0] == 0 == interval[1]
                else "; it includes 0, so either model could be the better one, and any "
                "difference inside it cannot be ruled out with these data."
            )
        )
    caveat = DEGENERATE_SENTENCE if degenerate else ""
    if reject:
        text = (
            f"{method}: at {level} the difference between {a} and {b} is statistically "
            f"significant ({shown_p}).{hypothesis} {direction}"
        )
        if distribution in ("F", "chi2") and estimate is not None:
            text += (
                " (This test says only that the models differ; the sign of the mean difference "
                "gives the direction.)"
            )
        return text + interval_text + caveat
    if estimate is not None and math.isfinite(estimate) and estimate != 0:
        # the range that cannot be ruled out is the interval's, said with it (none: nothing)
        tail = f" That is not proof that they perform equally well. {direction}"
    else:
        tail = f" {direction}"
    return (
        f"{method}: at {level} the data do not show a difference between {a} and {b} "
        f"({shown_p}).{hypothesis}{tail}{interval_text}{caveat}"
    )


def verdict_clause(
    *,
    method: str,
    pvalue: float,
    alpha: float,
    reject: bool,
    adjusted: float | None = None,
    degenerate: bool = False,
    alternative: str = "two-sided",
    margin: float | None = None,
    metric: Metric | None = None,
) -> str:
    """The decision of one test in a clause: ``significant difference at α = 0.05 (F test, p = 0.012)``.

    A test against a ``margin`` says whether equivalence or non-inferiority was shown,
    the margin in the ``metric``'s units when it is given.

    >>> verdict_clause(method="F test", pvalue=0.2, alpha=0.05, reject=False, adjusted=0.4)
    'no significant difference at α = 0.05 (F test, adjusted p = 0.400; unadjusted p = 0.200)'
    >>> verdict_clause(method="t test", pvalue=0.0, alpha=0.05, reject=True, degenerate=True)
    'significant difference at α = 0.05 (t test, p < 0.001 by the zero-variance convention, not evidence)'
    >>> verdict_clause(method="t test", pvalue=0.3, alpha=0.05, reject=False,
    ...                alternative="equivalent", margin=0.005)
    'equivalence within ±0.005 NOT shown at α = 0.05 (t test, p = 0.300)'
    >>> verdict_clause(method="t test", pvalue=0.01, alpha=0.05, reject=True,
    ...                alternative="non-inferior", margin=0.01, metric=Metric("roc_auc", "higher"))
    'non-inferiority by the margin 0.01 AUC shown at α = 0.05 (t test, p = 0.010)'
    >>> verdict_clause(method="t test", pvalue=0.006, alpha=0.05, reject=True, alternative="less")
    'significant difference at α = 0.05 (t test, one-sided p = 0.006)'
    """
    shown = p_equals(pvalue)
    if adjusted is not None:  # the p that decides comes first
        shown = f"{p_equals(adjusted, 'adjusted p')}; unadjusted {shown}"
    if degenerate:
        shown += " by the zero-variance convention, not evidence"
    if alternative in ("less", "greater"):  # half a two-sided p: say so where it is given
        shown = f"one-sided {shown}"
    if alternative in MARGIN_ALTERNATIVES and margin is not None:
        units = "" if metric is None else f" {reader_name(metric.name)}"
        claim = (
            f"equivalence within ±{margin:g}{units}"
            if alternative == "equivalent"
            else f"non-inferiority by the margin {margin:g}{units}"
        )
        verdict = f"{claim} shown" if reject else f"{claim} NOT shown"
        return f"{verdict} at α = {alpha:g} ({method}, {shown})"
    verdict = "significant difference" if reject else "no significant difference"
    return f"{verdict} at α = {alpha:g} ({method}, {shown})"


def headline(
    clauses: Sequence[str],
    *,
    a: str,
    b: str,
    estimate: float | None = None,
    metric: Metric | None = None,
    measure: str | None = None,
) -> str:
    """A short summary for the top of a report: each test's verdict, then the direction.

    ``estimate`` is the mean difference metric(A) − metric(B), written with the
    models' names: the top of a report comes before A and B are defined.

    >>> print(headline([verdict_clause(method="Combined 5×2cv F test", pvalue=0.012,
    ...                                alpha=0.05, reject=True)], a="lr", b="nb", estimate=-0.021))
    Significant difference at α = 0.05 (Combined 5×2cv F test, p = 0.012). lr has the lower mean loss, by 0.0210 (lr − nb = -0.0210).
    """
    text = "; ".join(clauses)
    text = text[:1].upper() + text[1:]
    direction = direction_sentence(estimate, a, b, metric=metric, measure=measure, named=True)
    return f"{text}. {direction}" if text else direction


def _probability(p: float) -> str:
    """A probability in prose: ``0.9870``, or ``below 0.0001`` / ``above 0.9999`` at the ends."""
    text = format_probability(p)
    bound = {"<": "below ", ">": "above "}.get(text[0])
    return bound + text[1:] if bound else text


def _is(p: float) -> str:
    """``= 0.9870``, or ``< 0.0001`` / ``> 0.9999`` at the ends, after a ``P(...)``."""
    text = format_probability(p)
    return f"{text[0]} {text[1:]}" if text[0] in "<>" else f"= {text}"


def _of(p: float) -> str:
    """``of 0.9870``, or ``above 0.9999``, after "a posterior probability"."""
    words = _probability(p)
    return words if words.startswith(("below", "above")) else f"of {words}"


def posterior_clause(
    *,
    method: str,
    a: str,
    b: str,
    p_a_better: float,
    p_equivalent: float,
    p_b_better: float,
    rope: float | None,
) -> str:
    """The three posterior probabilities in one line for the bottom line.

    >>> posterior_clause(method="Bayesian t", a="A", b="B", p_a_better=0.1, p_equivalent=0.3,
    ...                  p_b_better=0.6, rope=0.01)
    'Bayesian t (rope ±0.0100): P(A better) = 0.1000, P(equivalent) = 0.3000, P(B better) = 0.6000.'
    """
    band = f" (rope ±{format_number(rope)})" if rope else " (no rope)"
    return (
        f"{method}{band}: P({a} better) {_is(p_a_better)}, "
        f"P(equivalent) {_is(p_equivalent)}, "
        f"P({b} better) {_is(p_b_better)}."
    )


def bayesian_sentence(
    *,
    method: str,
    a: str,
    b: str,
    p_a_better: float,
    p_equivalent: float,
    p_b_better: float,
    rope: float | None = None,
    metric: str = "loss",
    threshold: float = POSTERIOR_THRESHOLD,
    degenerate: bool = False,
) -> str:
    """What a Bayesian comparison's three posterior probabilities mean.

    "Practically" better or equivalent is said only with a region of practical
    equivalence (rope) wider than 0; its width is stated in the metric's units.
    ``degenerate`` marks a posterior that collapsed to a point mass (zero
    estimated variance): its probabilities of 0 or 1 are then not read as a decision.

    >>> print(bayesian_sentence(method="Bayesian correlated t test", a="A", b="B",
    ...       p_a_better=0.161755, p_equivalent=0.338245, p_b_better=0.5, rope=0.01,
    ...       metric="accuracy"))  # doctest: +NORMALIZE_WHITESPACE
    Bayesian correlated t test, with a region of practical equivalence of ±0.0100 in accuracy:
    the probability that A is practically better than B is 0.1618, that the two are
    practically equivalent 0.3382, and that B is practically better 0.5000. None of the three
    exceeds 0.95, so the data do not settle the question.
    """
    if rope:
        text = (
            f"{method}, with a region of practical equivalence of ±{format_number(rope)} in "
            f"{metric}: the probability that {a} is practically better than {b} is "
            f"{_probability(p_a_better)}, that the two are practically equivalent "
            f"{_probability(p_equivalent)}, and that {b} is practically better "
            f"{_probability(p_b_better)}."
        )
        verdicts = (
            (p_a_better, f"{a} is practically better"),
            (p_equivalent, "the two are practically equivalent"),
            (p_b_better, f"{b} is practically better"),
        )
    else:
        text = (
            f"{method}, without a region of practical equivalence (rope = 0): the probability "
            f"that {a} is better than {b} is {_probability(p_a_better)} and that {b} is "
            f"better {_probability(p_b_better)}; with rope = 0 this says no more than a "
            "one-sided p-value, and no difference can be called practically irrelevant."
        )
        verdicts = ((p_a_better, f"{a} is better"), (p_b_better, f"{b} is better"))
    decided = [words for p, words in verdicts if p > threshold]
    if degenerate:
        return text + (
            " The differences do not vary at all, so the estimated variance is 0 and the "
            "posterior is a point mass: these probabilities are a convention, not evidence."
        )
    if decided:
        return text + f" With posterior probability above {threshold:g}, {decided[0]}."
    count = "three" if rope else "two"
    return (
        text
        + f" None of the {count} exceeds {threshold:g}, so the data do not settle the question."
    )


def disagreement_sentence(
    a: str,
    b: str,
    *,
    rejecting: Sequence[str],
    not_rejecting: Sequence[str],
    alpha: float,
    recommended: Sequence[str] = (),
    secondary: Sequence[str] = (),
) -> str | None:
    """A sentence when some tests find a difference and others do not; None when they agree.

    ``recommended`` names the recommended tests among them: when they all fall on
    one side, the sentence points to them, and only tests not recommended for the
    design disagree, which does not make the evidence borderline; when they fall on
    both sides, or none of them gave a decision, it says the evidence is borderline.
    ``secondary`` names the checks shown beside the recommended test that also fit
    the design (the 5×2 BCV McNemar test beside the calibrated F test): when one
    falls on the other side, the recommended test still decides (one deciding test
    keeps the chance of a false difference at α), and the sentence says that the
    evidence is borderline.

    >>> print(disagreement_sentence("A", "B", rejecting=["F test"], not_rejecting=["t test"],
    ...       alpha=0.05, recommended=["F test"]))  # doctest: +NORMALIZE_WHITESPACE
    The tests disagree about A and B at α = 0.05: F test finds a difference, t test does not.
    Tests answer slightly different questions and differ in how often they raise false alarms;
    rely on the recommended test (F test): only tests not recommended for this design
    disagree with it, so the disagreement does not make the evidence borderline.
    >>> print(disagreement_sentence("A", "B", rejecting=["BCV McNemar test"],
    ...       not_rejecting=["F test"], alpha=0.05, recommended=["F test"],
    ...       secondary=["BCV McNemar test"]))  # doctest: +NORMALIZE_WHITESPACE
    The tests disagree about A and B at α = 0.05: BCV McNemar test finds a difference, F test
    does not. Tests answer slightly different questions and differ in how often they raise
    false alarms; the recommended test (F test) decides, and BCV McNemar test is shown beside
    it as a secondary check that also fits this design. Deciding with whichever of two tests
    finds a difference would raise the chance of a false difference above α, so the decision
    stays with the recommended test; but a valid second test on the other side of α marks the
    evidence as borderline: a difference may exist, but these data do not establish it firmly.
    """
    if not rejecting or not not_rejecting:
        return None
    verb_yes = "finds" if len(rejecting) == 1 else "find"
    verb_no = "does not" if len(not_rejecting) == 1 else "do not"
    text = (
        f"The tests disagree about {a} and {b} at α = {alpha:g}: {join_methods(rejecting)} "
        f"{verb_yes} a difference, {join_methods(not_rejecting)} {verb_no}. Tests answer "
        "slightly different "
        "questions and differ in how often they raise false alarms; "
    )
    split = set(recommended) & set(rejecting) and set(recommended) & set(not_rejecting)
    checks = [m for m in secondary if m in {*rejecting, *not_rejecting}]
    sides = {m in rejecting for m in recommended if m in {*rejecting, *not_rejecting}}
    if checks and len(sides) == 1 and any((m in rejecting) not in sides for m in checks):
        one = len(recommended) == 1
        return (
            text + f"the recommended test{'' if one else 's'}"
            f"{_aside(join_methods(recommended))} decide{'s' if one else ''}, and "
            f"{join_methods(checks)} is shown beside {'it' if one else 'them'} as a secondary "
            "check that also fits this design. Deciding with whichever of two tests finds a "
            "difference would raise the chance of a false difference above α, so the decision "
            f"stays with the recommended test{'' if one else 's'}; but a valid second test on "
            "the other side of α marks the evidence as borderline: a difference may exist, but "
            "these data do not establish it firmly."
        )
    if split:
        return (
            text + "the recommended tests themselves disagree, so read the evidence as "
            "borderline: a difference may exist, but these data do not establish it firmly."
        )
    if set(recommended) & {*rejecting, *not_rejecting}:
        one = len(recommended) == 1
        return (
            text + f"rely on the recommended test{'' if one else 's'}"
            f"{_aside(join_methods(recommended))}: only tests not recommended for this design "
            f"disagree with {'it' if one else 'them'}, so the disagreement does not make the "
            "evidence borderline."
        )
    if recommended:  # a recommended test that gave no decision here
        return (
            text + f"rely on the recommended test{_aside(join_methods(recommended))}, and read "
            "the disagreement as a sign that the evidence is borderline."
        )
    return text + "read the disagreement as a sign that the evidence is borderline."


def _aside(words: str) -> str:
    """Words set aside after a noun: in parentheses, or after a comma when they end in a
    parenthesis of their own (no nested parentheses); the sentence supplies the closing comma.

    >>> _aside("F test"), _aside("McNemar's test (continuity-corrected)")
    (' (F test)', ", McNemar's test (continuity-corrected)")
    """
    return f", {words}" if words.endswith(")") else f" ({words})"


def disagreement_cause(
    *, pvalue: float, adjusted: float | None, alpha: float, signed: bool, alternative: str
) -> str:
    """Why a test does not reject where a posterior probability above 0.95 calls one model
    better, from the numbers: ``"adjustment"`` (the raw p-value is at most α, the adjusted
    one is not), ``"two-sided"`` (a two-sided t or z test whose one-sided p-value, half the
    two-sided one, would be at most α) or ``"model"`` (neither: the two rest on different
    models of the variability).

    >>> disagreement_cause(pvalue=0.010, adjusted=0.068, alpha=0.05, signed=True,
    ...                    alternative="two-sided")
    'adjustment'
    >>> disagreement_cause(pvalue=0.08, adjusted=None, alpha=0.05, signed=True,
    ...                    alternative="two-sided")
    'two-sided'
    >>> disagreement_cause(pvalue=0.08, adjusted=None, alpha=0.05, signed=False,
    ...                    alternative="two-sided")
    'model'
    """
    if adjusted is not None and pvalue <= alpha < adjusted:
        return "adjustment"
    deciding = adjusted if adjusted is not None else pvalue
    if signed and alternative == "two-sided" and deciding / 2.0 <= alpha:
        return "two-sided"
    return "model"


def posterior_disagreement(
    *,
    bayes: str,
    a: str,
    b: str,
    p_a_better: float,
    p_equivalent: float,
    p_b_better: float,
    rope: float | None,
    test: str,
    reject: bool,
    pvalue: float,
    adjusted: float | None,
    alpha: float,
    signed: bool,
    alternative: str = "two-sided",
    correction: str | None = None,
    n_comparisons: int = 1,
    threshold: float = POSTERIOR_THRESHOLD,
) -> str | None:
    """A note when a Bayesian reading and a recommended test disagree, naming the cause.

    The cause is computed from the numbers: the multiplicity adjustment (the
    posterior is not adjusted), a two-sided test against a one-directional
    posterior probability, the region of practical equivalence (the test finds
    a difference, the posterior puts it within the rope), or different models of
    the variability. None when they agree.

    >>> print(posterior_disagreement(bayes="Bayesian t", a="A", b="B", p_a_better=0.99,
    ...       p_equivalent=0.01, p_b_better=0.0, rope=0.01, test="Corrected t", reject=False,
    ...       pvalue=0.010, adjusted=0.068, alpha=0.05, signed=True, correction="holm",
    ...       n_comparisons=3))  # doctest: +NORMALIZE_WHITESPACE
    Bayesian t gives A a posterior probability above 0.95 (0.9900) of being better while
    corrected t finds no significant difference at α = 0.05 only after the multiplicity
    adjustment: its p = 0.010 is below α on its own, adjusted p = 0.068 after adjusting for
    3 comparisons with Holm's step-down method. The posterior probability is not adjusted
    for the other comparisons, so the cause of the disagreement is the adjustment.
    """
    better = [(p, m) for p, m in ((p_a_better, a), (p_b_better, b)) if p > threshold]
    if better and not reject:
        p, model = better[0]
        head = (
            f"{bayes} gives {model} a posterior probability above {threshold:g} "
            f"({format_number(p)}) of being better while {in_sentence(test)} finds no significant "
            f"difference at α = {alpha:g}"
        )
        cause = disagreement_cause(
            pvalue=pvalue, adjusted=adjusted, alpha=alpha, signed=signed, alternative=alternative
        )
        if cause == "adjustment":
            assert adjusted is not None
            return (
                f"{head} only after the multiplicity adjustment: its {p_equals(pvalue)} is "
                f"below α on its own, {_adjusted_p(adjusted, n_comparisons, correction)}. The "
                "posterior probability is not adjusted for the other comparisons, so the cause "
                "of the disagreement is the adjustment."
            )
        deciding = adjusted if adjusted is not None else pvalue
        name = "adjusted p" if adjusted is not None else "p"
        if cause == "two-sided":
            return (
                f"{head} ({p_equals(deciding, name)}, two-sided): one-sided, in {model}'s "
                f"favour, it would be {p_equals(deciding / 2.0, name)}, at most α. A posterior "
                f"probability above {threshold:g} for one direction is one-sided evidence, "
                f"weaker than a two-sided test at α = {alpha:g} asks for, so the evidence is "
                "borderline."
            )
        return (
            f"{head} ({p_equals(deciding, name)}), not even one-sided: the two rest on "
            "different models of how the differences vary, so the evidence is borderline."
        )
    if reject and not better:
        named = bayes if bayes.split(" ", 1)[0].endswith("'s") else f"the {in_sentence(bayes)}"
        lead = f"{test} finds a significant difference at α = {alpha:g}, but {named} calls "
        if rope and p_equivalent > 1.0 - threshold:
            side, leader = max((p_a_better, a), (p_b_better, b), key=lambda pair: pair[0])
            return (
                f"{lead}neither model practically better: it puts a posterior probability "
                f"{_of(p_equivalent)} on a difference within the region of practical "
                f"equivalence ±{format_number(rope)} and {_probability(side)} on {leader} being "
                f"better by more, neither above {threshold:g}, so the cause is the rope: the "
                "difference is likely real, but it may be smaller than the rope counts as "
                "relevant."
            )
        return (
            f"{lead}neither model better with probability above {threshold:g}: the two rest on "
            "different models of how the differences vary, so the evidence is borderline."
        )
    return None


# a method name whose first word is one of these keeps its capital inside a sentence
_PROPER_FIRST_WORDS = frozenset({"Bayesian", "Friedman", "Nadeau", "Nemenyi", "Wilcoxon"})


def in_sentence(method: str) -> str:
    """A test's method name as it reads inside a sentence.

    The first letter is lower-cased unless the first word is a person's name
    (``Dietterich's``, ``McNemar's``, ``Wilcoxon``, ``Bayesian``, ...), a symbol
    (``K-fold``, ``F``) or an abbreviation (``5×2 BCV``).

    Examples
    --------
    >>> in_sentence("Corrected repeated K-fold CV t test")
    'corrected repeated K-fold CV t test'
    >>> in_sentence("Dietterich's 5×2cv paired t test"), in_sentence("K-fold cross-validated t")
    ("Dietterich's 5×2cv paired t test", 'K-fold cross-validated t')
    """
    first = method.split(" ", 1)[0]
    proper = (
        first in _PROPER_FIRST_WORDS
        or first.endswith("'s")
        or len(first.split("-", 1)[0]) == 1  # a symbol: "K-fold", "F test"
        or any(c.isupper() or c.isdigit() for c in first[1:])  # "DeLong", "BCV"
    )
    return method if proper or not method[:1].isupper() else method[:1].lower() + method[1:]


def join_methods(methods: Sequence[str], *, starts_sentence: bool = False) -> str:
    """Method names listed inside a sentence (the first keeps its capital when it starts one).

    >>> join_methods(["Corrected resampled t test", "Paired bootstrap test"])
    'corrected resampled t test and paired bootstrap test'
    """
    named = [in_sentence(m) for m in methods]
    if starts_sentence and named:
        named[0] = methods[0]
    return join_words(named)


def _sentence_start(words: str) -> str:
    return words[:1].upper() + words[1:]


def join_words(items: Sequence[str]) -> str:
    """Items as a sentence lists them: ``"a, b and c"``.

    Examples
    --------
    >>> join_words(["McNemar's test", "the sign test", "the t test"])
    "McNemar's test, the sign test and the t test"
    """
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def general_caveats(
    *,
    n_models: int,
    n_pairs: int,
    correction: str | None,
    metric: Metric,
    direction: Setting | None,
    per_record: bool,
    rope: float | None = None,
    rope_given: bool = False,
    has_records: bool | None = None,
    single_split: bool = False,
    audit_runs: bool = True,
    sides: Collection[str | None] = (None,),
) -> list[str]:
    """Caveats that hold for every comparison in a report.

    ``single_split`` says the design is one hold-out split (the metric is then computed once,
    not fold by fold); ``audit_runs`` says the report shows an overlap audit of the partitions;
    ``sides`` holds the marks of the deciding tests (``None`` for two-sided, ``"one-sided"``,
    ``"equivalence"``, ``"non-inferiority"``): a test against a margin reads its p-value the
    other way round, so the caveats name which tests they are about.
    """
    sides = set(sides) or {None}
    difference = bool(sides & {None, "one-sided"})
    scope = "" if sides <= {None, "one-sided"} else "For a test of a difference, a"
    caveats = []
    if difference and single_split:
        # one split: the two fitted models are fixed, training is not repeated (Dietterich 1998)
        caveats.append(
            f"{scope or 'A'} significant difference on one hold-out split says the two trained "
            "models differ on records drawn like this test set. The models were trained once, "
            "so the variation from training (another training set, another seed) is not in the "
            "p-value (Dietterich 1998): retraining either algorithm on other data may change "
            "the result, and the test does not compare the two learning algorithms."
        )
    elif difference:
        caveats.append(
            f"{scope or 'A'} significant difference says the two learning algorithms differ on "
            "data of this size drawn like this data set; it does not promise the same ranking "
            "on other data sets."
        )
    if difference:
        caveats += [
            f"{scope or 'A'} p-value above α is not evidence that the models are equally good; "
            "it means the data cannot tell them apart at this level.",
        ]
    if "equivalence" in sides:
        caveats.append(
            "For an equivalence test, a significant result says the two models differ by less "
            "than the margin on data like these; a p-value above α does not show that they "
            "differ by more than the margin, only that equivalence is not shown at this level."
        )
    if "non-inferiority" in sides:
        caveats.append(
            "For a non-inferiority test, a significant result says A is not worse than B by the "
            "margin or more; a p-value above α does not show that A is worse by the margin."
        )
    if n_pairs > 1:
        if correction:
            caveats.append(
                f"{n_pairs} pairs of models are compared; each test's p-values are adjusted "
                f"across the pairs with {correction_name(correction)}, and the decisions use "
                f"the adjusted p-values, so that {correction_guarantee(correction)}."
            )
        else:
            caveats.append(
                f"{n_pairs} pairs of models are compared without a multiplicity correction: "
                "the chance that at least one comparison raises a false alarm exceeds α."
            )
    if direction is not None and direction.source.inferred:
        caveats.append(
            f"The values are read as {reader_name(metric.name)}, "
            f"where {metric.better_word} is better "
            f"({direction.words})."
        )
    if rope is not None and not rope_given:
        caveats.append(
            f"The Bayesian test's region of practical equivalence is ±{format_number(rope)} "
            f"in {reader_name(metric.name)}, the default: Benavoli et al. (2017) use 1% for "
            "accuracy. Pass "
            "a rope suited to your metric (test_options, --rope) when it means something else."
        )
    if not per_record and has_records and single_split:
        caveats.append(
            f"{_sentence_start(reader_name(metric.name))} is not a mean of per-record values, so "
            "it is computed once on the "
            "hold-out set; tests that need per-record losses (McNemar's tests) do not apply."
        )
    elif not per_record and has_records:
        caveats.append(
            f"{_sentence_start(reader_name(metric.name))} is not a mean of per-record values, so "
            "it is compared fold by "
            "fold; tests that need per-record losses (McNemar's tests, the CV confidence "
            "interval) do not apply."
            + (" The records' folds were given, so the overlap audit runs." if audit_runs else "")
        )
    elif not per_record:
        caveats.append(
            "Only per-fold scores were given, so tests that need per-record losses "
            "(McNemar's tests, the CV confidence interval) and the overlap audit cannot run."
        )
    return caveats
