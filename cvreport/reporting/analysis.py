"""Run the tests on every pair of models, adjust the p-values across pairs and read them.

:func:`compare_pairs` is what :func:`cvreport.reporting.analyse.analyse` uses to
fill an :class:`~cvreport.reporting.analyse.Analysis`; every test is called in one
place, :func:`run_test`. Nothing here is rendered. Results already speak the user's
metric (:class:`~cvreport.data.metric.Metric`): estimates and intervals of
metric(A) − metric(B).

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
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from cvreport.data.metric import Metric
from cvreport.data.metrics import reader_name
from cvreport.distributions import as_distribution
from cvreport.errors import (
    CVReportError,
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    PartitionWarning,
)
from cvreport.methods.cv_interval import CV_INTERVAL
from cvreport.methods.delong import DELONG
from cvreport.methods.kfold import SMALLEST_PVALUE_WORDS
from cvreport.methods.mcnemar import MCNEMAR, MCNEMAR_KFOLD
from cvreport.methods.mcnemar_bcv import MCNEMAR_5X2BCV
from cvreport.methods.proportion import PROPORTION
from cvreport.methods.sign_test import SignTestResult, sign_test_array
from cvreport.methods.wilcoxon import WilcoxonResult, wilcoxon_kfold_array
from cvreport.reporting import interpret
from cvreport.results import TestResult

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable
    from cvreport.methods.recommendation import Recommendation
    from cvreport.methods.spec import TestSpec

__all__ = [
    "DEFAULT_ROPE",
    "RECORDS_AS_INDEPENDENT",
    "REPORT_SEED",
    "Comparison",
    "Posterior",
    "SkippedTest",
    "TestOutcome",
    "compare_pairs",
    "draws_at_random",
    "independent_records_note",
    "options_for",
    "run_test",
    "smallest_pvalue_note",
]

DEFAULT_ROPE = 0.01
"""Half-width of the region of practical equivalence in the metric's units when none is given.

Benavoli, Corani, Demšar and Zaffalon (2017, JMLR 18(77)) use ±0.01 (one point of
accuracy) throughout; the same width is used for every metric, and the report says so.
"""


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
    secondary : bool
        A check run beside the recommended test that fits the design but does not decide
        (:attr:`~cvreport.methods.recommendation.Recommendation.secondary_tests`).
    """

    __test__ = False  # not a pytest test class

    name: str
    label: str
    a: str
    b: str
    result: TestResult
    recommended: bool = False
    secondary: bool = False
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
    spec: TestSpec | None = field(default=None, repr=False, compare=False)

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
    spec: TestSpec | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Comparison:
    """Everything the report says about one pair of models."""

    a: str
    b: str
    outcomes: tuple[TestOutcome, ...] = ()
    skipped: tuple[SkippedTest, ...] = ()
    disagreement: str | None = None
    fallback_note: str | None = None

    @property
    def label(self) -> str:
        return f"{self.a} vs {self.b}"

    @property
    def recommended(self) -> list[TestOutcome]:
        return [o for o in self.outcomes if o.recommended]


REPORT_SEED = 0
"""The seed of a test that draws at random (bootstrap, permutation) when none is given:
the same report, made again, shows the same p-values and intervals."""


def draws_at_random(spec: TestSpec) -> bool:
    """Whether a test draws resamples at random (its array function takes ``random_state``)."""
    function = spec.array_function
    return function is not None and "random_state" in inspect.signature(function).parameters


def options_for(spec: TestSpec, test_options: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The keyword arguments a test runs with: the user's, two-sided, the default rope.

    Decided from the spec: a test that takes an ``alternative`` runs two-sided unless the
    user asks otherwise, a Bayesian test with :data:`DEFAULT_ROPE` unless given one, a
    test that draws at random with the seed :data:`REPORT_SEED` unless given one.
    """
    options = dict(test_options.get(spec.name, {}))
    if "alternative" in spec.keywords:
        options.setdefault("alternative", "two-sided")
    if spec.bayesian:
        options.setdefault("rope", DEFAULT_ROPE)
    if draws_at_random(spec):
        options.setdefault("random_state", REPORT_SEED)
    return options


def run_test(
    spec: TestSpec, table: ResultsTable, a: str, b: str, options: Mapping[str, Any]
) -> TestResult:
    """Run one test on one pair: the one place the report calls a test."""
    return spec.run(table, a, b, **options)


def compare_pairs(
    table: ResultsTable,
    pairs: Sequence[tuple[str, str]],
    specs: Sequence[TestSpec],
    recommendation: Recommendation,
    *,
    fallback: bool,
    alpha: float,
    correction: str | None,
    test_options: Mapping[str, Mapping[str, Any]],
    metric: Metric,
    measure: str,
    family: Mapping[TestSpec, Mapping[frozenset[Any], float]] | None = None,
    family_size: int | None = None,
) -> tuple[Comparison, ...]:
    """Run the tests for every pair, adjust across pairs and read each result.

    Parameters
    ----------
    table : ResultsTable
    pairs : list of (str, str)
    specs : list of TestSpec
        The tests asked for, in order.
    recommendation : Recommendation
    fallback : bool
        Whether a recommended test that cannot run hands over to its fallback.
    alpha : float
    correction : str or None
    test_options : mapping
        Keyword arguments per test name (:func:`options_for`).
    metric : Metric
    measure : str
        What the report compares, in words.
    family, family_size : optional
        Adjusted p-values of a test over a larger family of pairs (every pair of many
        models, keyed by the pair's two models) and that family's size: those tests take
        their adjusted p-values from it, so a pair has one adjusted p per report.
    """
    runner = _Runner(table, specs, recommendation, fallback, alpha, test_options)
    built = [runner.compare(a, b) for a, b in pairs]
    return _adjust_and_interpret(
        built,
        [*specs, *recommendation.fallback_tests],
        alpha,
        correction,
        metric,
        measure,
        family or {},
        family_size,
    )


@dataclass(frozen=True)
class _Runner:
    """Runs the asked-for tests on one pair at a time (outcomes built in lists, then frozen)."""

    table: ResultsTable
    specs: Sequence[TestSpec]
    recommendation: Recommendation
    fallback: bool
    alpha: float
    test_options: Mapping[str, Mapping[str, Any]]

    def _run_one(
        self, spec: TestSpec, a: str, b: str
    ) -> tuple[TestResult | None, str, tuple[str, ...]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DegenerateStatisticWarning)
            warnings.simplefilter("always", PartitionWarning)
            try:
                result = run_test(spec, self.table, a, b, options_for(spec, self.test_options))
            except (DesignError, DataError) as exc:
                return None, str(exc), ()
            except TypeError as exc:
                if spec.name not in self.test_options:
                    raise
                raise CVReportError(
                    f"test_options for {spec.name!r} do not fit the test: {exc}"
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
        if spec in RECORDS_AS_INDEPENDENT:
            clusters = getattr(self.table, "_record_clusters", None)
            if clusters is not None:
                extra.append(independent_records_note(int(clusters.nunique())))
        floor = smallest_pvalue_note(result, self.alpha)
        if floor is not None:  # said once, against the report's α, not again in the result's words
            kept = tuple(note for note in result.notes if SMALLEST_PVALUE_WORDS not in note)
            result = replace(result, notes=kept)
            extra.append(floor)
        return result, "", tuple(extra)

    def compare(self, a: str, b: str) -> Comparison:
        outcomes: list[TestOutcome] = []
        skipped: list[SkippedTest] = []
        recommended = set(self.recommendation.tests)
        for spec in self.specs:
            self._add(outcomes, skipped, spec, a, b, recommended=spec in recommended)
        ran = set(self.specs)
        # a recommended test that could not run hands over to its fallback
        failed = [s for s in skipped if s.spec in recommended]
        note = None
        if failed and self.fallback:
            for fallback in self.recommendation.fallback_tests:
                if not self._stand_in(outcomes, skipped, fallback, ran, a, b):
                    continue
                note = (
                    f"{failed[0].spec.method} could not run ({failed[0].reason}); "
                    f"{interpret.in_sentence(fallback.method)} is reported in its place."
                )
                break
        return Comparison(a, b, tuple(outcomes), tuple(skipped), fallback_note=note)

    def _stand_in(
        self,
        outcomes: list[TestOutcome],
        skipped: list[SkippedTest],
        fallback: TestSpec,
        ran: set[TestSpec],
        a: str,
        b: str,
    ) -> bool:
        """Run ``fallback`` as a recommended test (or mark it so when it already ran)."""
        if fallback not in ran:
            before = len(outcomes)
            self._add(outcomes, skipped, fallback, a, b, recommended=True)
            return len(outcomes) > before
        for index, outcome in enumerate(outcomes):  # tests="all" ran it already
            if outcome.spec == fallback:
                outcomes[index] = replace(outcome, recommended=True)
                return True
        return False

    def _add(
        self,
        outcomes: list[TestOutcome],
        skipped: list[SkippedTest],
        spec: TestSpec,
        a: str,
        b: str,
        *,
        recommended: bool,
    ) -> None:
        result, reason, extra = self._run_one(spec, a, b)
        if result is None:
            skipped.append(SkippedTest(spec.name, spec.method, a, b, reason, spec=spec))
            return
        interval = result.conf_int(self.alpha) if result.has_conf_int else None
        shown, shown_interval, label = _shown(result, interval)
        outcomes.append(
            TestOutcome(
                name=spec.name,
                label=spec.method,
                a=a,
                b=b,
                result=result,
                recommended=recommended,
                secondary=not recommended and spec in self.recommendation.secondary_tests,
                caution=spec.caution,
                interval=interval,
                posterior=_posterior(result) if spec.bayesian else None,
                extra_warnings=extra,
                shown_estimate=shown,
                shown_interval=shown_interval,
                estimate_label=label,
                shown_statistic=_shown_statistic(result),
                spec=spec,
            )
        )


#: Record-level tests that treat every record as independent (no cluster-robust form):
#: with clustered records their p-values are too small. The CV interval's variance is
#: that of independent records (Bayle et al. 2020), the BCV McNemar test counts records.
RECORDS_AS_INDEPENDENT = frozenset(
    {MCNEMAR, MCNEMAR_KFOLD, MCNEMAR_5X2BCV, PROPORTION, DELONG, CV_INTERVAL}
)


def independent_records_note(n_clusters: int) -> str:
    """The warning beside a test that treats clustered records as independent.

    Parameters
    ----------
    n_clusters : int
        How many clusters the records come in.

    Returns
    -------
    str
        The warning, without a final full stop (the report adds it).

    References
    ----------
    Miller, E. (2024). Adding error bars to evals: a statistical approach to language
    model evaluations. arXiv:2411.00640.

    Examples
    --------
    >>> print(independent_records_note(60))  # doctest: +NORMALIZE_WHITESPACE
    the records come in 60 clusters, but the test treats every record as independent,
    so its p-value is too small when the records of a cluster succeed or fail together
    (Miller 2024)
    """
    return (
        f"the records come in {n_clusters} clusters, but the test treats every record as "
        "independent, so its p-value is too small when the records of a cluster succeed or "
        "fail together (Miller 2024)"
    )


def smallest_pvalue_note(result: TestResult, alpha: float) -> str | None:
    """A warning when a rank test over folds cannot reach α with this many folds, else None.

    The sign test and the Wilcoxon signed-rank test over n non-zero fold differences
    are exact and discrete: their smallest p-value, that of n differences all on one
    side, is the test's own p-value for such folds (2 · 0.5ⁿ two-sided for both).
    With 5-fold CV it is 0.0625, above α = 0.05, so the test cannot reject whatever
    the folds show (Demšar 2006, sections 3.1.3 and 3.1.4).

    Parameters
    ----------
    result : TestResult
        A test's result; only a sign test's or a Wilcoxon test's over folds is looked at.
    alpha : float
        The report's level.

    Returns
    -------
    str or None
        The warning (without a final full stop), or None when the test can reach α or
        every fold ties.

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
    Journal of Machine Learning Research 7:1–30.

    Examples
    --------
    >>> from cvreport.methods.sign_test import sign_test_array
    >>> print(smallest_pvalue_note(sign_test_array([0.02, -0.01, 0.03, 0.01, 0.02]), 0.05))
    ... # doctest: +NORMALIZE_WHITESPACE
    with 5 fold differences other than 0 the smallest p-value the test can give is 0.0625
    (every difference on one side), above α = 0.05: it cannot find a difference here,
    whatever the folds show
    >>> smallest_pvalue_note(sign_test_array(np.arange(1.0, 11.0)), 0.05) is None
    True
    """
    if isinstance(result, SignTestResult):
        n, array_test = result.positive + result.negative, sign_test_array
    elif isinstance(result, WilcoxonResult):
        n, array_test = result.nonzero, wilcoxon_kfold_array
    else:
        return None
    if n == 0:  # every fold ties: the result explains itself
        return None
    extreme = np.arange(1.0, n + 1.0)
    floor = min(
        float(array_test(side, alternative=result.alternative).pvalue)
        for side in (extreme, -extreme)
    )
    if floor <= alpha:
        return None
    folds = f"{n} fold difference{'s' if n != 1 else ''}"
    return (
        f"with {folds} other than 0 the smallest p-value the test can give is {floor:.4g} "
        f"(every difference on one side), above α = {alpha:g}: it cannot find a difference "
        "here, whatever the folds show"
    )


def _shown_statistic(result: TestResult) -> float | None:
    statistic = float_or_none(result.statistic)
    if statistic is not None and result.statistic_kind == "count" and statistic.is_integer():
        return int(statistic)  # a count or rank sum prints as the whole number it is
    return 0.0 if statistic == 0 else statistic


def _shown(
    result: TestResult, interval: tuple[float, float] | None
) -> tuple[float | None, tuple[float, float] | None, str]:
    """The estimate the interval is centred on, and the interval."""
    # a test whose interval is about another quantity than the estimate says which
    label = result.interval_about or "mean difference"
    centre = float_or_none(getattr(result, "center", None)) if result.interval_about else None
    shown = centre if centre is not None else float_or_none(result.estimate)
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
def _adjust_and_interpret(
    comparisons: list[Comparison],
    specs: Sequence[TestSpec],
    alpha: float,
    correction: str | None,
    metric: Metric,
    measure: str,
    family: Mapping[TestSpec, Mapping[frozenset[Any], float]],
    family_size: int | None,
) -> tuple[Comparison, ...]:
    adjusted: dict[tuple[int, int], float] = {}
    n_pairs = len(comparisons)
    in_family: set[tuple[int, int]] = set()
    if correction is not None:
        for i, c in enumerate(comparisons):
            for j, o in enumerate(c.outcomes):
                value = family.get(o.spec, {}).get(frozenset((c.a, c.b)))
                if value is not None and o.has_pvalue:
                    adjusted[(i, j)] = float(value)
                    in_family.add((i, j))
    if n_pairs > 1 and correction is not None:
        from statsmodels.stats.multitest import multipletests

        for spec in dict.fromkeys(specs):
            if spec in family:
                continue
            where = [
                (i, j)
                for i, c in enumerate(comparisons)
                for j, o in enumerate(c.outcomes)
                if o.spec == spec and o.has_pvalue
            ]
            if len(where) < 2:
                continue
            pvalues = [float(comparisons[i].outcomes[j].result.pvalue) for i, j in where]
            corrected = multipletests(pvalues, alpha=alpha, method=correction)[1]
            for key, value in zip(where, corrected):
                adjusted[key] = float(value)
    read: list[Comparison] = []
    for i, comparison in enumerate(comparisons):
        updated = tuple(
            _read(
                outcome,
                adjusted.get((i, j)),
                family_size if (i, j) in in_family and family_size else n_pairs,
                alpha,
                correction,
                metric,
                measure,
            )
            for j, outcome in enumerate(comparison.outcomes)
        )
        comparison = replace(comparison, outcomes=updated)
        # a test against a margin answers another question than "do they differ?"
        decided = [o for o in updated if o.reject is not None and o.result.margin is None]
        disagreement = interpret.disagreement_sentence(
            comparison.a,
            comparison.b,
            rejecting=[o.method for o in decided if o.reject],
            not_rejecting=[o.method for o in decided if not o.reject],
            alpha=alpha,
            recommended=[o.method for o in decided if o.recommended],
            secondary=[o.method for o in decided if o.secondary],
        )
        bayes_note = _bayes_versus_tests(comparison, alpha, correction, n_pairs)
        if bayes_note:
            disagreement = " ".join(filter(None, [disagreement, bayes_note]))
        read.append(replace(comparison, disagreement=disagreement))
    return tuple(read)


def _read(
    outcome: TestOutcome,
    adj: float | None,
    n_pairs: int,
    alpha: float,
    correction: str | None,
    metric: Metric,
    measure: str,
) -> TestOutcome:
    result = outcome.result
    degenerate = _infinite(result.statistic)
    if outcome.posterior is not None:
        who = {"method": outcome.method, "a": outcome.a, "b": outcome.b}
        probabilities = asdict(outcome.posterior)
        reading = interpret.bayesian_sentence(
            **who, **probabilities, metric=reader_name(metric.name), degenerate=degenerate
        )
        short = interpret.posterior_clause(**who, **probabilities)
        return replace(outcome, interpretation=reading, headline=short)
    if not outcome.has_pvalue:
        return replace(outcome, interpretation=f"{outcome.method}: no p-value.")
    reject = (adj if adj is not None else float(result.pvalue)) <= alpha
    # what the full reading and the bottom line's clause both say
    decision = {
        "method": outcome.method,
        "pvalue": float(result.pvalue),
        "alpha": alpha,
        "reject": reject,
        "adjusted": adj,
        "degenerate": degenerate,
        "alternative": result.alternative,
        "margin": result.margin,
    }
    reading = interpret.decision_sentence(
        **decision,
        a=outcome.a,
        b=outcome.b,
        estimate=outcome.shown_estimate,
        interval=outcome.shown_interval,
        correction=correction,
        n_comparisons=n_pairs,
        metric=metric,
        estimate_label=outcome.estimate_label,
        distribution=result.distribution,
        measure=measure,
    )
    short = interpret.verdict_clause(**decision, metric=metric)
    return replace(outcome, adjusted=adj, reject=reject, interpretation=reading, headline=short)


def _bayes_versus_tests(
    comparison: Comparison, alpha: float, correction: str | None, n_pairs: int
) -> str | None:
    """A note when the Bayesian test and a recommended test read the pair differently, with
    the cause computed from the numbers (:func:`interpret.posterior_disagreement`)."""
    deciding = [
        o for o in comparison.recommended if o.reject is not None and o.result.margin is None
    ]
    for outcome in comparison.outcomes:
        if outcome.posterior is None or _infinite(outcome.result.statistic):
            continue
        for test in deciding:
            note = interpret.posterior_disagreement(
                bayes=outcome.method,
                a=comparison.a,
                b=comparison.b,
                **asdict(outcome.posterior),
                test=test.method,
                reject=bool(test.reject),
                pvalue=float(test.result.pvalue),
                adjusted=test.adjusted,
                alpha=alpha,
                # only a signed statistic (t, z) has a one-sided p of p/2
                signed=as_distribution(test.result.distribution).signed,
                alternative=test.result.alternative,
                correction=correction,
                n_comparisons=n_pairs,
            )
            if note:
                return note
    return None


# -- small helpers -----------------------------------------------------------------
def _finite(value: Any) -> bool:
    """Whether a value is a number and not NaN."""
    number = float_or_none(value)
    return number is not None and not math.isnan(number)


def _infinite(value: Any) -> bool:
    """Whether a statistic is ±inf (the zero-variance convention of docs/methods.md)."""
    number = float_or_none(value)
    return number is not None and math.isinf(number)


def float_or_none(value: Any) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _posterior(result: Any) -> Posterior | None:
    """The three probabilities of a Bayesian result (:mod:`cvreport.methods.bayesian`), or
    None for a result that holds none."""
    names = ("prob_a_better", "prob_equivalent", "prob_b_better")
    if not all(hasattr(result, name) for name in names):
        return None
    rope = float_or_none(getattr(result, "rope", None))
    return Posterior(*(float(getattr(result, name)) for name in names), rope=rope)
