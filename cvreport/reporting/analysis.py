"""The analysis behind a report: run the tests, adjust the p-values, read them, describe the models.

Everything here works from result objects and the table's sufficient statistics;
nothing is rendered. Results already speak the user's metric
(:class:`~cvreport.data.metric.Metric`): estimates and intervals of metric(A) −
metric(B); the per-model means are turned from the table's internal losses back
into the metric here.

Decisions are order-invariant: every test that takes an ``alternative`` runs
two-sided unless the user asks for a direction in ``test_options``, so swapping
A and B mirrors every estimate and interval and leaves every p-value and decision
unchanged.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.data.metric import Metric
from cvreport.errors import (
    CVReportError,
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    PartitionWarning,
)
from cvreport.reporting import interpret, selection
from cvreport.results import TestResult

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "DEFAULT_ROPE",
    "Analysis",
    "Comparison",
    "Posterior",
    "SkippedTest",
    "TestOutcome",
    "confusion_metrics",
    "holdout_counts",
    "metric_of",
    "model_summaries",
]

DEFAULT_ROPE = 0.01
"""Half-width of the region of practical equivalence in the metric's units when none is given.

Benavoli, Corani, Demšar and Zaffalon (2017, JMLR 18(77)) use ±0.01 (one point of
accuracy) throughout; the same width is used for every metric, and the report says so.
"""


def metric_of(table: Any) -> Metric:
    """The table's :class:`Metric`; from ``loss_name``/``higher_is_better`` for a stand-in table."""
    metric = getattr(table, "metric", None)
    if isinstance(metric, Metric):
        return metric
    higher = bool(getattr(table, "higher_is_better", False))
    name = str(getattr(table, "loss_name", "loss"))
    if getattr(table, "is_binary", False) and not higher:
        name = "error rate"
    return Metric(name, "higher" if higher else "lower")


def _to_metric(table: Any, losses: np.ndarray) -> np.ndarray:
    convert = getattr(table, "to_metric", None)
    if callable(convert):
        return np.asarray(convert(losses), dtype=float)
    return -losses if metric_of(table).higher_is_better else losses


@dataclass(frozen=True)
class Posterior:
    """The three posterior probabilities of a Bayesian comparison (A better, equivalent, B better)."""

    p_a_better: float
    p_equivalent: float
    p_b_better: float
    rope: float | None = None


@dataclass(frozen=True)
class TestOutcome:
    """One test run on one pair of models, with the report's reading of it.

    Attributes
    ----------
    result : TestResult
        What the test function returned (untouched; in the metric's units).
    adjusted : float or None
        The multiplicity-adjusted p-value (None when only one pair is compared,
        the correction is ``"none"``, or the test reports no p-value).
    reject : bool or None
        The decision at α the report states: on ``adjusted`` when there is one,
        otherwise on the p-value; None for Bayesian results.
    interval : (float, float) or None
        The test's ``1 − α`` interval as the result gives it.
    shown_estimate, shown_interval : float, (float, float) or None
        What the report prints (metric(A) − metric(B)): the quantity the interval is
        centred on, and the interval (None when it would not contain the estimate
        beside it).
    estimate_label : str
        What ``shown_estimate`` is: ``"mean difference"`` or, for Dietterich's t, p₁⁽¹⁾.
    shown_statistic : float or None
        The statistic as printed (never "-0").
    """

    __test__ = False  # not a pytest test class

    name: str
    label: str
    a: str
    b: str
    result: TestResult
    recommended: bool = False
    caution: str | None = None
    adjusted: float | None = None
    reject: bool | None = None
    interval: tuple[float, float] | None = None
    posterior: Posterior | None = None
    interpretation: str = ""
    headline: str = ""
    extra_warnings: tuple[str, ...] = ()
    shown_estimate: float | None = None
    shown_interval: tuple[float, float] | None = None
    estimate_label: str = "mean difference"
    shown_statistic: float | None = None

    @property
    def method(self) -> str:
        return self.result.method or self.label

    @property
    def has_pvalue(self) -> bool:
        return self.posterior is None and _finite(self.result.pvalue)

    @property
    def warned(self) -> bool:
        """Whether the test carries a warning or a caution (its interval is then not drawn)."""
        return bool(self.result.warnings or self.extra_warnings or self.caution)


@dataclass(frozen=True)
class SkippedTest:
    """A test that was asked for but could not run on this table, and why."""

    name: str
    label: str
    a: str
    b: str
    reason: str


@dataclass
class Comparison:
    """Everything the report says about one pair of models."""

    a: str
    b: str
    outcomes: list[TestOutcome] = field(default_factory=list)
    skipped: list[SkippedTest] = field(default_factory=list)
    disagreement: str | None = None
    fallback_note: str | None = None

    @property
    def label(self) -> str:
        return f"{self.a} vs {self.b}"

    @property
    def recommended(self) -> list[TestOutcome]:
        return [o for o in self.outcomes if o.recommended]


class Analysis:
    """Run the tests for every pair, adjust across pairs and read each result.

    Parameters
    ----------
    table : ResultsTable
    pairs : list of (str, str)
    test_names : list of str
    recommendation : selection.Recommendation
    fallback : bool
        Whether a recommended test that cannot run hands over to its fallback.
    alpha : float
    correction : str or None
    test_options : mapping
        Keyword arguments per test; ``alternative`` and ``rope`` given here are kept,
        otherwise tests run two-sided and the Bayesian test with :data:`DEFAULT_ROPE`.
    """

    def __init__(
        self,
        table: ResultsTable,
        pairs: Sequence[tuple[str, str]],
        test_names: Sequence[str],
        recommendation: selection.Recommendation,
        *,
        fallback: bool,
        alpha: float,
        correction: str | None,
        test_options: Mapping[str, Mapping[str, Any]],
    ) -> None:
        self.table = table
        self.metric = metric_of(table)
        design = getattr(table, "design", None)
        #: what the report compares, in words ("mean per-fold roc_auc", "roc_auc", ...)
        self.measure = interpret.measure_words(
            self.metric,
            per_record=bool(getattr(table, "per_record", True)),
            n_folds=int(design.m * design.K) if design is not None else 2,
        )
        self.alpha = alpha
        self.correction = correction
        self.test_names = list(test_names)
        self.recommendation = recommendation
        self.fallback = fallback
        self.test_options = {name: dict(options) for name, options in test_options.items()}
        self.rope_given = "rope" in self.test_options.get("bayesian_correlated_ttest", {})
        self.comparisons = [self._compare(a, b) for a, b in pairs]
        self._adjust_and_interpret()

    # -- running ---------------------------------------------------------
    def options_for(self, name: str, function: Any) -> dict[str, Any]:
        """The keyword arguments a test runs with: the user's, two-sided, the default rope."""
        options = dict(self.test_options.get(name, {}))
        try:
            parameters = inspect.signature(function).parameters
        except (TypeError, ValueError):  # pragma: no cover - builtins
            parameters = {}
        if "alternative" in parameters:
            options.setdefault("alternative", "two-sided")
        if "rope" in parameters:
            options.setdefault("rope", DEFAULT_ROPE)
        return options

    def _run_one(self, name: str, a: str, b: str) -> tuple[TestResult | None, str, tuple[str, ...]]:
        try:
            function = selection.resolve_test(name)
        except CVReportError as exc:
            return None, str(exc), ()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DegenerateStatisticWarning)
            warnings.simplefilter("always", PartitionWarning)
            try:
                result = function(self.table, a, b, **self.options_for(name, function))
            except (DesignError, DataError) as exc:
                return None, str(exc), ()
            except TypeError as exc:
                if name not in self.test_options:
                    raise
                raise CVReportError(
                    f"test_options for {name!r} do not fit the test: {exc}"
                ) from exc
        extra: list[str] = []
        for item in caught:
            if issubclass(item.category, (DegenerateStatisticWarning, PartitionWarning)):
                message = str(item.message)
                if message not in result.warnings and message not in extra:
                    extra.append(message)
            else:  # not ours to swallow
                warnings.warn_explicit(
                    item.message, item.category, item.filename, item.lineno, source=item.source
                )
        return result, "", tuple(extra)

    def _compare(self, a: str, b: str) -> Comparison:
        comparison = Comparison(a, b)
        recommended = set(self.recommendation.names)
        ran: set[str] = set()
        for name in self.test_names:
            self._add(comparison, name, a, b, recommended=name in recommended)
            ran.add(name)
        # a recommended test that could not run hands over to its fallback
        failed = [s for s in comparison.skipped if s.name in recommended]
        if failed and self.fallback:
            for fallback in self.recommendation.fallbacks:
                if not self._stand_in(comparison, fallback, ran):
                    continue
                comparison.fallback_note = (
                    f"{label_of(failed[0].name)} could not run ({failed[0].reason}); "
                    f"{label_of(fallback)} is reported in its place."
                )
                break
        return comparison

    def _stand_in(self, comparison: Comparison, fallback: str, ran: set[str]) -> bool:
        """Run ``fallback`` as a recommended test (or mark it so when it already ran)."""
        if fallback not in ran:
            before = len(comparison.outcomes)
            self._add(comparison, fallback, comparison.a, comparison.b, recommended=True)
            return len(comparison.outcomes) > before
        for index, outcome in enumerate(comparison.outcomes):  # tests="all" ran it already
            if outcome.name == fallback:
                comparison.outcomes[index] = replace(outcome, recommended=True)
                return True
        return False

    def _add(self, comparison: Comparison, name: str, a: str, b: str, *, recommended: bool) -> None:
        spec = selection.get_spec(name)
        result, reason, extra = self._run_one(name, a, b)
        if result is None:
            comparison.skipped.append(SkippedTest(name, spec.method, a, b, reason))
            return
        interval = result.conf_int(self.alpha) if result.has_conf_int else None
        shown, shown_interval, label = self._shown(name, result, interval)
        comparison.outcomes.append(
            TestOutcome(
                name=name,
                label=spec.method,
                a=a,
                b=b,
                result=result,
                recommended=recommended,
                caution=spec.caution,
                interval=interval,
                posterior=_posterior(result) if spec.bayesian else None,
                extra_warnings=extra,
                shown_estimate=shown,
                shown_interval=shown_interval,
                estimate_label=label,
                shown_statistic=self._shown_statistic(result),
            )
        )

    def _shown_statistic(self, result: TestResult) -> float | None:
        statistic = _float_or_none(result.statistic)
        return 0.0 if statistic == 0 else statistic

    def _shown(
        self, name: str, result: TestResult, interval: tuple[float, float] | None
    ) -> tuple[float | None, tuple[float, float] | None, str]:
        """The estimate the interval is centred on, and the interval."""
        # a test whose interval is about another quantity than the estimate says which
        label = result.interval_about or "mean difference"
        centre = _float_or_none(getattr(result, "center", None)) if result.interval_about else None
        shown = centre if centre is not None else _float_or_none(result.estimate)
        shown_interval = None
        if interval is not None and all(_finite(v) for v in interval):
            low, high = float(interval[0]), float(interval[1])
            # an interval is printed only beside the estimate it belongs to
            if shown is None or low - 1e-12 <= shown <= high + 1e-12:
                shown_interval = (low, high)
        if shown is not None and shown == 0:
            shown = 0.0  # no "-0.0000"
        return shown, shown_interval, label

    # -- adjusting and reading --------------------------------------------
    def _adjust_and_interpret(self) -> None:
        adjusted: dict[tuple[int, int], float] = {}
        n_pairs = len(self.comparisons)
        if n_pairs > 1 and self.correction is not None:
            from statsmodels.stats.multitest import multipletests

            for name in self.test_names + list(self.recommendation.fallbacks):
                where = [
                    (i, j)
                    for i, c in enumerate(self.comparisons)
                    for j, o in enumerate(c.outcomes)
                    if o.name == name and o.has_pvalue
                ]
                if len(where) < 2:
                    continue
                pvalues = [float(self.comparisons[i].outcomes[j].result.pvalue) for i, j in where]
                corrected = multipletests(pvalues, alpha=self.alpha, method=self.correction)[1]
                for key, value in zip(where, corrected):
                    adjusted[key] = float(value)
        for i, comparison in enumerate(self.comparisons):
            updated = [
                self._read(outcome, adjusted.get((i, j)), n_pairs)
                for j, outcome in enumerate(comparison.outcomes)
            ]
            comparison.outcomes = updated
            # a test against a margin answers another question than "do they differ?"
            decided = [o for o in updated if o.reject is not None and o.result.margin is None]
            comparison.disagreement = interpret.disagreement_sentence(
                comparison.a,
                comparison.b,
                rejecting=[o.method for o in decided if o.reject],
                not_rejecting=[o.method for o in decided if not o.reject],
                alpha=self.alpha,
                recommended=[o.method for o in decided if o.recommended],
            )
            bayes_note = _bayes_versus_tests(comparison, self.alpha, self.correction, n_pairs)
            if bayes_note:
                comparison.disagreement = " ".join(
                    filter(None, [comparison.disagreement, bayes_note])
                )

    def _read(self, outcome: TestOutcome, adj: float | None, n_pairs: int) -> TestOutcome:
        result = outcome.result
        degenerate = _infinite(result.statistic)
        if outcome.posterior is not None:
            post = outcome.posterior
            reading = interpret.bayesian_sentence(
                method=outcome.method,
                a=outcome.a,
                b=outcome.b,
                p_a_better=post.p_a_better,
                p_equivalent=post.p_equivalent,
                p_b_better=post.p_b_better,
                rope=post.rope,
                metric=self.metric.name,
                degenerate=degenerate,
            )
            short = interpret.posterior_clause(
                method=outcome.method,
                a=outcome.a,
                b=outcome.b,
                p_a_better=post.p_a_better,
                p_equivalent=post.p_equivalent,
                p_b_better=post.p_b_better,
                rope=post.rope,
            )
            return replace(outcome, interpretation=reading, headline=short)
        if not outcome.has_pvalue:
            return replace(outcome, interpretation=f"{outcome.method}: no p-value.")
        reject = (adj if adj is not None else float(result.pvalue)) <= self.alpha
        reading = interpret.decision_sentence(
            method=outcome.method,
            a=outcome.a,
            b=outcome.b,
            pvalue=float(result.pvalue),
            alpha=self.alpha,
            reject=reject,
            estimate=outcome.shown_estimate,
            interval=outcome.shown_interval,
            adjusted=adj,
            correction=self.correction,
            n_comparisons=n_pairs,
            metric=self.metric,
            estimate_label=outcome.estimate_label,
            distribution=result.distribution,
            alternative=result.alternative,
            degenerate=degenerate,
            margin=result.margin,
            measure=self.measure,
        )
        short = interpret.verdict_clause(
            method=outcome.method,
            pvalue=float(result.pvalue),
            alpha=self.alpha,
            reject=reject,
            adjusted=adj,
            degenerate=degenerate,
            alternative=result.alternative,
            margin=result.margin,
        )
        return replace(outcome, adjusted=adj, reject=reject, interpretation=reading, headline=short)

    @property
    def outcomes(self) -> list[TestOutcome]:
        return [o for c in self.comparisons for o in c.outcomes]


def _bayes_versus_tests(
    comparison: Comparison, alpha: float, correction: str | None, n_pairs: int
) -> str | None:
    """A note when the Bayesian test and a recommended test read the pair differently, with
    the cause computed from the numbers (:func:`interpret.posterior_disagreement`)."""
    deciding = [
        o for o in comparison.recommended if o.reject is not None and o.result.margin is None
    ]
    for outcome in comparison.outcomes:
        post = outcome.posterior
        if post is None or _infinite(outcome.result.statistic):
            continue
        for test in deciding:
            note = interpret.posterior_disagreement(
                bayes=outcome.method,
                a=comparison.a,
                b=comparison.b,
                p_a_better=post.p_a_better,
                p_equivalent=post.p_equivalent,
                p_b_better=post.p_b_better,
                rope=post.rope,
                test=test.method,
                reject=bool(test.reject),
                pvalue=float(test.result.pvalue),
                adjusted=test.adjusted,
                alpha=alpha,
                signed=_signed(test.result),
                alternative=test.result.alternative,
                correction=correction,
                n_comparisons=n_pairs,
            )
            if note:
                return note
    return None


def _signed(result: TestResult) -> bool:
    """Whether the test's statistic has a sign (t, z): only then is a one-sided p p/2."""
    return str(result.distribution).split(" ")[0] in ("t", "normal", "z")


# -- descriptive statistics -------------------------------------------------------
def model_summaries(table: ResultsTable) -> list[dict[str, Any]]:
    """Mean, SD, min and max over the folds of each model's metric (a score as given)."""
    errors = table.fold_errors()
    rows = []
    for model in table.models:
        losses = errors.loc[errors["model"] == model, "loss"].to_numpy(dtype=float)
        values = _to_metric(table, losses)
        rows.append(
            {
                "model": str(model),
                "mean": float(values.mean()) if values.size else None,
                "sd": float(values.std(ddof=1)) if values.size > 1 else None,
                "min": float(values.min()) if values.size else None,
                "max": float(values.max()) if values.size else None,
                "folds": int(values.size),
            }
        )
    return rows


def mean_differences(table: ResultsTable, a: str, b: str) -> pd.DataFrame | None:
    """Per-fold differences metric(A) − metric(B), or None when the table cannot give them."""
    try:
        return table.differences(a, b)
    except CVReportError:
        return None


def holdout_counts(table: ResultsTable, a: str, b: str) -> dict[str, int] | None:
    """McNemar's b (A wrong, B right) and c (A right, B wrong) summed over the folds."""
    if not (getattr(table, "per_record", False) and getattr(table, "is_binary", False)):
        return None
    contingency = getattr(table, "contingency", None)
    if not callable(contingency):
        return None
    try:
        counts = contingency(a, b)
    except CVReportError:
        return None
    return {
        "both_wrong": int(counts["n00"].sum()),
        "b": int(counts["n01"].sum()),
        "c": int(counts["n10"].sum()),
        "both_right": int(counts["n11"].sum()),
    }


def confusion_metrics(table: ResultsTable) -> dict[str, Any] | None:
    """Accuracy, balanced accuracy and macro precision/recall/F1 per model, pooled over folds.

    From the kept truth and predictions (tables from
    :meth:`~cvreport.data.table.ResultsTable.from_predictions` or a formula
    ``{prediction != truth} ~ …``), with scikit-learn's definitions: macro averages
    over the classes seen in the truth or the predictions, 0 for a class never
    predicted, balanced accuracy the mean recall over the classes in the truth.
    """
    predictions = getattr(table, "predictions", None)
    frame = predictions() if callable(predictions) else None
    if frame is None or len(frame) == 0:
        return None
    classes = sorted(
        pd.unique(pd.concat([frame["truth"], frame["prediction"]]).astype(object)).tolist(),
        key=str,
    )
    index = pd.Index(classes, dtype=object)
    truth_all = index.get_indexer(frame["truth"].astype(object))
    predicted_all = index.get_indexer(frame["prediction"].astype(object))
    n_classes = len(classes)
    rows = []
    for model in table.models:
        mask = (frame["model"] == model).to_numpy()
        truth, predicted = truth_all[mask], predicted_all[mask]
        if not len(truth):
            continue
        confusion = np.bincount(
            truth * n_classes + predicted, minlength=n_classes * n_classes
        ).reshape(n_classes, n_classes)
        hits = np.diag(confusion).astype(float)
        actual, called = confusion.sum(axis=1), confusion.sum(axis=0)
        seen = (actual + called) > 0
        recall = np.divide(hits, actual, out=np.zeros(n_classes), where=actual > 0)
        precision = np.divide(hits, called, out=np.zeros(n_classes), where=called > 0)
        total = precision + recall
        f1 = np.divide(2 * precision * recall, total, out=np.zeros(n_classes), where=total > 0)
        rows.append(
            {
                "model": str(model),
                "n": int(mask.sum()),
                "accuracy": float(hits.sum() / len(truth)),
                "balanced_accuracy": float(recall[actual > 0].mean()),
                "precision": float(precision[seen].mean()),
                "recall": float(recall[seen].mean()),
                "f1": float(f1[seen].mean()),
            }
        )
    return {"classes": [str(c) for c in classes], "rows": rows}


# -- small helpers -----------------------------------------------------------------
def label_of(name: str) -> str:
    """The name the report gives a test: its method, as its results name it."""
    try:
        return selection.get_spec(name).method
    except CVReportError:
        return name


def _finite(value: Any) -> bool:
    try:
        return value is not None and not math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _infinite(value: Any) -> bool:
    """Whether a statistic is ±inf (the zero-variance convention of docs/methods.md)."""
    try:
        return math.isinf(float(value))
    except (TypeError, ValueError):
        return False


def _float_or_none(value: Any) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _posterior(result: TestResult) -> Posterior | None:
    """Read the three probabilities from a Bayesian result, whatever its attribute names."""
    rope = _float_or_none(getattr(result, "rope", None))
    for names in (
        ("prob_a_better", "prob_equivalent", "prob_b_better"),
        ("p_a_better", "p_equivalent", "p_b_better"),
        ("prob_left", "prob_rope", "prob_right"),
        ("p_left", "p_rope", "p_right"),
    ):
        if all(hasattr(result, n) for n in names):
            left, middle, right = (float(getattr(result, n)) for n in names)
            return Posterior(left, middle, right, rope)
    probabilities = getattr(result, "probabilities", None)
    if probabilities is not None and len(probabilities) == 3:
        left, middle, right = (float(p) for p in probabilities)
        return Posterior(left, middle, right, rope)
    return None
