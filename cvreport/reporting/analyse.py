"""An analysis is a value: :func:`analyse` runs everything a report says, once.

``analyse(table, plan)`` audits the partitions, asks the one recommender
(:func:`cvreport.methods.recommendation.recommendation_for`) which tests fit
the design and the metric, runs the tests on every pair, adjusts the p-values
across pairs, reads each result, and computes the descriptive statistics (from
:mod:`cvreport.data`). It returns a frozen :class:`Analysis`; the view model
(:mod:`cvreport.reporting.view`) and the :class:`~cvreport.reporting.report.Report`
render that value and compute nothing themselves.

Examples
--------
>>> import cvreport
>>> table = cvreport.ResultsTable.from_formula(
...     "loss ~ model | replication + fold", cvreport.load_example())
>>> result = analyse(table, Plan(pairs=(("logistic_regression", "decision_tree"),)))
>>> [(o.name, round(o.result.pvalue, 3)) for o in result.outcomes]
[('combined_ftest_5x2cv', 0.027)]
>>> result.recommendation.names, result.direction.words
(('combined_ftest_5x2cv',), "inferred from the metric's name")
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pandas as pd

from cvreport.data.descriptives import (
    confusion_metrics,
    holdout_counts,
    mean_differences,
    metric_of,
    model_summaries,
)
from cvreport.data.design import Design
from cvreport.data.direction import Provenance, Setting
from cvreport.data.metric import Metric
from cvreport.errors import CVReportError, DataError, UnusedOptionsWarning, describe_keys
from cvreport.methods.arguments import option_error
from cvreport.methods.recommendation import (
    Recommendation,
    recommendation_for,
    record_tests_for,
)
from cvreport.methods.registry import get_spec, specs_for
from cvreport.methods.spec import TestSpec
from cvreport.option_values import check_alpha
from cvreport.partitions.audit import audit_overlap
from cvreport.reporting import interpret, overview
from cvreport.reporting.analysis import (
    Comparison,
    SkippedTest,
    TestOutcome,
    compare_pairs,
    options_for,
)
from cvreport.results import TestResult

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["CORRECTIONS", "Analysis", "Plan", "TableFacts", "analyse", "normalise_tests"]

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
"""Multiplicity corrections accepted by :func:`analyse` (statsmodels ``multipletests`` methods)."""


@dataclass(frozen=True)
class Plan:
    """What to analyse: the pairs, the tests, the level, the correction and the tests' options.

    Attributes
    ----------
    pairs : sequence of (str, str) or None
        The pairs of models to compare, as (A, B); None: every pair, in the order the
        models first appear (above :data:`~cvreport.reporting.overview.DETAIL_LIMIT`
        pairs, an overview of all and details for the best model's pairs).
    tests : "recommended", "all" or sequence of str
        ``"recommended"``: the tests that decide, with the secondary checks shown beside
        them; ``"all"`` is always a superset of ``"recommended"`` (fallbacks included)
        and holds every test that runs on the table and tests its metric.
    alpha : float
        Significance level of the decisions.
    correction : str or None
        Multiplicity correction across pairs (:data:`CORRECTIONS`).
    test_options : mapping of str to mapping
        Keyword arguments for individual tests, e.g. ``{"bayesian_correlated_ttest":
        {"rope": 0.02}}``.
    """

    pairs: Sequence[tuple[str, str]] | None = None
    tests: str | Sequence[str] = "recommended"
    alpha: float = 0.05
    correction: str | None = "holm"
    test_options: Mapping[str, Mapping[str, Any]] | None = None


@dataclass(frozen=True)
class TableFacts:
    """What the analysis says about the table itself (the report's "data" section).

    Attributes
    ----------
    models : tuple of str
        Every model of the table, in order.
    loss_name, source : str
        The results column, and where the numbers came from.
    formula : str or None
    per_record, binary, has_records : bool
        Per-record losses, 0/1 losses, and whether the records' folds are known.
    direction : Setting or None
        Which way is better, and where that came from (given, the metric's name, ...);
        None when the table does not say.
    test_train_ratio : Setting or None
        n2/n1 when the table carries one, and where it came from (given, the fold sizes).
    positive_class : Setting or None
        The positive class of a binary metric (F1, precision, recall, AUC).
    clusters : str or None
        When the records come in clusters: how many, and whether each lies in one
        fold of every replication (a sentence); None without clusters.
    clusters_leak : str or None
        The sentence naming the clusters that lie in two or more folds of one
        replication (the data layer's warning); None when no cluster does.
    """

    models: tuple[Any, ...]
    loss_name: str
    source: str
    formula: str | None
    per_record: bool
    binary: bool
    has_records: bool
    direction: Setting | None
    test_train_ratio: Setting | None = None
    positive_class: Setting | None = None
    clusters: str | None = None
    clusters_leak: str | None = None


@dataclass(frozen=True)
class Analysis:
    """Everything a report says, computed once: a frozen value that rendering only reads.

    Attributes
    ----------
    table : ResultsTable
        The table analysed (kept for callers; the view model does not read it).
    facts : TableFacts
    design : Design
    metric : Metric
        Every number is in its units and direction: estimates are metric(A) − metric(B).
    measure : str
        What is compared, in words ("mean per-fold roc_auc", ...).
    pairs : tuple of (str, str)
        The pairs detailed.
    tests : str or tuple of str
        The tests asked for, as given (``"recommended"``, ``"all"`` or names).
    specs : tuple of TestSpec
        The tests run on every pair, in order (fallbacks may join them).
    recommendation : Recommendation
    comparisons : tuple of Comparison
        Per pair: the outcomes (result, raw and adjusted p-value, decision, reading)
        and the tests that could not run.
    audit : OverlapAudit or None
    audit_note : str or None
        Why there is no audit, when that needs saying.
    overview : pandas.DataFrame or None
        Every pair in one table when there are too many to detail.
    model_summaries : tuple of dict
        Mean, SD, min and max of each model's metric over the folds.
    confusion : dict or None
        Accuracy, balanced accuracy and macro precision/recall/F1 per model.
    differences : tuple of (pandas.DataFrame or None)
        Per pair, the per-fold differences metric(A) − metric(B).
    holdout_counts : tuple of (dict or None)
        Per pair, McNemar's counts on a hold-out split of 0/1 losses.
    alpha : float
    correction : str or None
    test_options : mapping
        The options the user gave per test.
    """

    table: Any = field(repr=False)
    facts: TableFacts
    design: Design
    metric: Metric
    measure: str
    pairs: tuple[tuple[str, str], ...]
    tests: str | tuple[str, ...]
    specs: tuple[TestSpec, ...]
    recommendation: Recommendation
    comparisons: tuple[Comparison, ...]
    audit: Any
    audit_note: str | None
    overview: pd.DataFrame | None
    model_summaries: tuple[dict[str, Any], ...]
    confusion: dict[str, Any] | None
    differences: tuple[pd.DataFrame | None, ...]
    holdout_counts: tuple[dict[str, int] | None, ...]
    alpha: float
    correction: str | None
    test_options: Mapping[str, Mapping[str, Any]]

    @property
    def direction(self) -> Setting | None:
        """Which way is better, with its provenance."""
        return self.facts.direction

    @property
    def partitions(self) -> str | None:
        """The m×2 partition design the audit recognised (None without an audit)."""
        return getattr(self.audit, "design", None)

    @property
    def test_names(self) -> list[str]:
        """The names of the tests asked for (for display)."""
        return [spec.name for spec in self.specs]

    @property
    def rope_given(self) -> bool:
        """Whether the user gave the Bayesian test's region of practical equivalence."""
        return any(
            "rope" in options and get_spec(name).bayesian
            for name, options in self.test_options.items()
        )

    @property
    def outcomes(self) -> list[TestOutcome]:
        """Every outcome, pair by pair."""
        return [o for c in self.comparisons for o in c.outcomes]

    @property
    def results(self) -> list[TestResult]:
        """Every result object, pair by pair."""
        return [o.result for o in self.outcomes]

    @property
    def skipped(self) -> list[SkippedTest]:
        """Tests that were asked for but could not run, with the reason."""
        return [s for c in self.comparisons for s in c.skipped]

    def options_for(self, name: str) -> dict[str, Any]:
        """The keyword arguments the test ``name`` ran with (the user's, two-sided, the rope)."""
        return options_for(get_spec(name), self.test_options)


def analyse(table: ResultsTable, plan: Plan | None = None, **options: Any) -> Analysis:
    """Analyse a results table: audit, recommend, test every pair, adjust, read, describe.

    Parameters
    ----------
    table : ResultsTable
    plan : Plan, optional
        What to analyse; or give its fields as keywords (``pairs=``, ``tests=``,
        ``alpha=``, ``correction=``, ``test_options=``).

    Returns
    -------
    Analysis

    Raises
    ------
    CVReportError
        Bad pairs, tests, level, correction or test options (the message says which).
    DataError
        A table with fewer than two models.

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example("bcv"))
    >>> result = analyse(table, pairs=[("logistic_regression", "naive_bayes")])
    >>> result.partitions, result.recommendation.names, result.recommendation.secondaries
    ('block-regularized', ('calibrated_ftest_5x2cv',), ('mcnemar_5x2bcv',))
    """
    if plan is None:
        unknown = sorted(set(options) - set(Plan.__dataclass_fields__))
        if unknown:
            raise CVReportError(
                f"unknown option {describe_keys(unknown)}; analyse takes "
                f"{describe_keys(list(Plan.__dataclass_fields__))}"
            )
        plan = Plan(**options)
    elif options:
        raise CVReportError(f"give the plan or its fields, not both (got {sorted(options)})")
    alpha = check_alpha(plan.alpha)
    correction = _check_correction(plan.correction)
    pairs = _resolve_pairs(table, plan.pairs)
    tests = normalise_tests(plan.tests)
    given_options = plan.test_options or {}
    if not isinstance(given_options, Mapping) or not all(
        isinstance(v, Mapping) for v in given_options.values()
    ):
        raise CVReportError(
            "test_options maps each test's name to its options, e.g. "
            f"{{'paired_ttest_5x2cv': {{'alternative': 'less'}}}}, got {given_options!r}"
        )
    test_options = {
        get_spec(name, in_report=True).name: dict(given)
        for name, given in (plan.test_options or {}).items()
    }
    design = table.design
    metric = metric_of(table)
    audit, audit_note = _run_audit(table)
    advice = recommendation_for(table, partitions=getattr(audit, "design", None))
    specs = _resolve_tests(table, tests, advice)
    _warn_unused_options(test_options, (*specs, *advice.fallback_tests))
    for spec in (*specs, *advice.fallback_tests):  # the options of the tests that run
        _check_option_names(spec, test_options.get(spec.name, {}))
    # many models: every pair in one overview, details for the best model's pairs
    frame = None
    family: dict[Any, dict[frozenset[Any], float]] = {}
    if plan.pairs is None and len(pairs) > overview.DETAIL_LIMIT and advice.tests:
        frame = overview.pair_overview(table, advice.tests[0], alpha=alpha, correction=correction)
        # the detailed pairs are chosen by the data (the best model against the next):
        # their decisions use the adjustment over every pair, as the overview's do
        family[advice.tests[0]] = overview.adjusted_by_pair(frame)
        pairs = overview.detailed_pairs(table)
    measure = interpret.measure_words(
        metric,
        per_record=bool(getattr(table, "per_record", True)),
        n_folds=int(design.m * design.K) if design is not None else 2,
    )
    comparisons = compare_pairs(
        table,
        pairs,
        specs,
        advice,
        fallback=tests in ("recommended", "all"),
        alpha=alpha,
        correction=correction,
        test_options=test_options,
        metric=metric,
        measure=measure,
        family=family,
        family_size=None if frame is None else len(frame),
    )
    holdout = getattr(design, "kind", None) == "holdout"
    return Analysis(
        table=table,
        facts=_table_facts(table),
        design=design,
        metric=metric,
        measure=measure,
        pairs=tuple(pairs),
        tests=tests,
        specs=tuple(specs),
        recommendation=advice,
        comparisons=comparisons,
        audit=audit,
        audit_note=audit_note,
        overview=frame,
        model_summaries=tuple(model_summaries(table)),
        confusion=confusion_metrics(table),
        differences=tuple(None if holdout else mean_differences(table, a, b) for a, b in pairs),
        holdout_counts=tuple(holdout_counts(table, a, b) if holdout else None for a, b in pairs),
        alpha=alpha,
        correction=correction,
        test_options=MappingProxyType(test_options),
    )


# -- the plan, checked ----------------------------------------------------------------
def _check_option_names(spec: TestSpec, given: Mapping[str, Any]) -> None:
    """Refuse an option the test's public function does not take, named as the user calls
    the test (``rope`` of ``bayesian_correlated_ttest``), not as an internal builder."""
    parameters = inspect.signature(spec.function).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return  # the test checks its own options
    # every test runs two-sided when asked, whether or not it takes the keyword
    accepted = [n for n in parameters if n not in ("table", "a", "b", "data")]
    accepted += [] if "alternative" in accepted else ["alternative"]
    for option in given:
        if option not in accepted:
            raise option_error(f"test_options for {spec.name!r}: {spec.name}", option, accepted)


def _warn_unused_options(test_options: Mapping[str, Any], runnable: Sequence[TestSpec]) -> None:
    """Options for a test the report will not run change nothing: say so, once."""
    names = list(dict.fromkeys(spec.name for spec in runnable))
    unused = [name for name in test_options if name not in names]
    if unused:
        warnings.warn(
            f"test_options for {describe_keys(unused)} change nothing: this report does not "
            f"run {'it' if len(unused) == 1 else 'them'} (it runs "
            f"{describe_keys(names) if names else 'no test'}); name the test in tests= to run it",
            UnusedOptionsWarning,
            stacklevel=3,
        )


def _check_correction(correction: str | None) -> str | None:
    if isinstance(correction, str):  # as metric names: case and surrounding spaces aside
        correction = correction.strip().lower()
    if correction is None or correction == "none":
        return None
    if correction not in CORRECTIONS:
        raise CVReportError(
            f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}"
        )
    return correction


def _resolve_pairs(
    table: ResultsTable, pairs: Sequence[tuple[str, str]] | None
) -> list[tuple[str, str]]:
    models = list(table.models)
    if pairs is None:
        if len(models) < 2:
            raise DataError(
                f"a report compares models, but the table holds only {describe_keys(models)}"
            )
        return list(combinations(models, 2))
    if isinstance(pairs, str):
        raise CVReportError(f"pairs must be a list of (A, B) pairs, got the string {pairs!r}")
    try:
        pairs = list(pairs)  # a tuple, a set, an array or a generator of pairs, read once
    except TypeError:
        raise CVReportError(
            f"pairs must be a list of (A, B) pairs, got {pairs!r} ({type(pairs).__name__})"
        ) from None
    if len(pairs) == 2 and all(
        isinstance(p, str) or not hasattr(p, "__len__") for p in pairs
    ):  # one pair given bare, e.g. pairs=("a", "b")
        raise CVReportError(
            f"pairs must be a list of (A, B) pairs, got {pairs!r}; for one pair write "
            f"pairs=[{tuple(pairs)!r}]"
        )
    resolved: list[tuple[str, str]] = []
    for pair in pairs:
        if isinstance(pair, set | frozenset | Mapping):
            raise CVReportError(
                f"each pair must be an ordered (A, B), got {pair!r}: a set or a mapping has no "
                "order, so which model is A (the estimate is A − B) cannot be told; write a tuple"
            )
        if isinstance(pair, str) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise CVReportError(
                f"each pair must be two model names (A, B), got {pair!r}; "
                f"the models are {describe_keys(models)}"
            )
        a, b = table.resolve_pair(pair[0], pair[1])
        if a == b:
            raise CVReportError(f"a pair needs two different models, got {a!r} twice")
        if (b, a) in resolved:
            raise CVReportError(
                f"the pair ({a!r}, {b!r}) repeats ({b!r}, {a!r}) reversed; compare each pair "
                "once (a reversed pair is the same comparison and would be counted twice "
                "in the multiplicity correction)"
            )
        if (a, b) in resolved:
            raise CVReportError(
                f"the pair ({a!r}, {b!r}) is given twice; compare each pair once (a repeated "
                "pair would be counted twice in the multiplicity correction), or check "
                "whether another pair was meant"
            )
        resolved.append((a, b))
    if not resolved:
        raise CVReportError("pairs is empty; pass None to compare every pair of models")
    return resolved


def normalise_tests(tests: str | Sequence[str]) -> str | tuple[str, ...]:
    """``"recommended"``, ``"all"`` or the test names asked for, as metric names are read:
    case and surrounding spaces aside, in a text (comma-separated) or in a list.

    >>> normalise_tests(" All "), normalise_tests("Sign_Test, wilcoxon_kfold")
    ('all', ('sign_test', 'wilcoxon_kfold'))
    """
    if isinstance(tests, str):
        if tests.strip().lower() in ("recommended", "all"):
            return tests.strip().lower()
        return tuple(t.strip().lower() for t in tests.split(",") if t.strip())
    try:
        # a tuple, an array or a generator of names
        listed = [str(t).strip().lower() if isinstance(t, str) else t for t in tests]
    except TypeError:
        listed = [None]
    if not all(isinstance(t, str) for t in listed):
        raise CVReportError(
            f"tests must be 'recommended', 'all' or a list of test names, got {tests!r}"
        )
    return tuple(listed)


def _resolve_tests(
    table: ResultsTable, tests: str | tuple[str, ...], advice: Recommendation
) -> list[TestSpec]:
    if tests == "recommended":  # the deciding tests, then the checks shown beside them
        return list(dict.fromkeys([*advice.tests, *advice.secondary_tests]))
    if tests == "all":
        # every test "recommended" would run (its fallbacks included), then the rest: the
        # design's tests and the tests on the table's records (bootstrap, permutation, ...)
        fitting = specs_for(
            table.design.kind, binary=bool(table.is_binary), per_record=bool(table.per_record)
        )
        return list(
            dict.fromkeys(
                [
                    *advice.tests,
                    *advice.secondary_tests,
                    *advice.fallback_tests,
                    *fitting,
                    *record_tests_for(table),
                ]
            )
        )
    specs: list[TestSpec] = []
    for name in tests:
        try:
            spec = get_spec(name, in_report=True)  # raises with the known names
        except CVReportError as exc:
            raise CVReportError(f"{exc}; or pass tests='recommended' or tests='all'") from exc
        if spec not in specs:
            specs.append(spec)
    if not specs:
        raise CVReportError(
            "no test named; pass tests='recommended', 'all' or a list of test names"
        )
    return specs


def _run_audit(table: ResultsTable) -> tuple[Any, str | None]:
    design = table.design
    if not (design.kind in ("mx2", "repeated_kfold") and design.m >= 2):
        return None, None
    if not table.has_records:
        return None, (
            "The overlap audit needs per-record losses (which record was in which fold); "
            "only per-fold scores were given."
        )
    try:
        return _audit(table), None
    except ImportError as exc:  # pragma: no cover - depends on the installation
        return None, f"The overlap audit is not available in this installation ({exc})."
    except CVReportError as exc:
        if design.kind == "mx2":
            return None, f"The overlap audit could not run: {exc}"
        return None, None


def _audit(table: Any) -> Any:
    """Run the overlap audit (a seam for tests)."""
    return audit_overlap(table)


# -- what the table says about itself ---------------------------------------------------
def _table_facts(table: Any) -> TableFacts:
    metric = metric_of(table)
    ratio = getattr(table, "test_train_ratio", None)
    return TableFacts(
        models=tuple(table.models),
        loss_name=str(table.loss_name),
        source=str(getattr(table, "source", "") or ""),
        formula=getattr(table, "formula", None),
        per_record=bool(table.per_record),
        binary=bool(table.is_binary),
        has_records=bool(getattr(table, "has_records", table.per_record)),
        direction=_setting(metric.direction, getattr(table, "direction_note", None)),
        test_train_ratio=None
        if ratio is None
        else Setting(float(ratio), Provenance.of(getattr(table, "test_train_ratio_note", None))),
        positive_class=_positive_class(table),
        **_clusters(table),
    )


def _clusters(table: Any) -> dict[str, Any]:
    """What the report says of the records' clusters: how many, and whether folds split one."""
    mapping = getattr(table, "_record_clusters", None)
    if mapping is None:
        return {}
    audit = getattr(table, "_cluster_audit", None)
    if audit is None:
        words = (
            f"{int(mapping.nunique())} clusters; the records' folds are not known, so whether "
            "a cluster lies in two folds was not checked"
        )
        return {"clusters": words}
    if audit.ok:
        return {"clusters": audit.message()}
    straddling = int(audit.straddling["cluster"].nunique())
    words = (
        f"{audit.n_clusters} clusters; {straddling} of them lie in two or more folds of one "
        "replication, which leaks information from training to validation (see the caveats)"
    )
    return {"clusters": words, "clusters_leak": audit.message()}


def _setting(value: Any, note: str | None) -> Setting | None:
    """A setting with the provenance the table notes; None when the table notes none."""
    return Setting(value, Provenance.of(note)) if note else None


def _positive_class(table: Any) -> Setting | None:
    """The positive class of a binary metric (F1, precision, recall, AUC) the table was
    computed with; None when the metric does not depend on one."""
    kept = getattr(table, "_record_predictions", None)
    if kept is None or not getattr(kept.spec, "binary_only", False):
        return None
    source = getattr(kept, "positive_source", Provenance.GIVEN)
    return Setting(str(kept.classes[kept.positive]), source)
