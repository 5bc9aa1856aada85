"""Plan the next experiment from a pilot: the power of each test on each design.

:func:`plan` estimates the variance components of the per-fold differences
A − B from a pilot table (:mod:`cvreport.planning.components`), computes the
power of every recommended test on every candidate design to detect a given
difference (:mod:`cvreport.planning.power`), finds the smallest design that
reaches the wanted power, and says in words how far the estimate can be
trusted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from cvreport.errors import DesignError
from cvreport.planning.components import (
    SOURCE_REPLICATIONS,
    Discordance,
    VarianceComponents,
    as_pilot_table,
    estimate_components,
    estimate_discordance,
    variance_interval,
)
from cvreport.planning.designs import PLANNED_TESTS, CandidateDesign, PlannedTest, parse_design
from cvreport.planning.power import check_effect, check_level, check_power
from cvreport.rendering.display import SummaryDisplay

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable
    from cvreport.rendering.summary import Summary

__all__ = ["COLUMNS", "PlanResult", "Recommendation", "plan", "plan_from_components"]

#: Columns of :meth:`PlanResult.to_frame`.
COLUMNS = (
    "test",
    "label",
    "design",
    "m",
    "K",
    "n_validation",
    "trainings",
    "power",
    "reaches",
    "type_i_error",
    "method",
)
#: The difference at which the power is the test's type I error under the model.
NULL_EFFECT = 1e-300
#: A type I error above this multiple of α disqualifies a test from :attr:`PlanResult.best`.
SIZE_TOLERANCE = 1.5

#: Fold counts and replications shown when no designs are given.
DEFAULT_FOLDS = (2, 5, 10)
DEFAULT_REPLICATIONS = (1, 2, 3, 5, 10, 20, 50)
DEFAULT_SPLITS = (2, 5, 10, 20, 30, 50, 100)
DEFAULT_HOLDOUT_SIZES = (100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)
#: The largest design searched for the smallest one that reaches the power.
MAX_REPLICATIONS = 1000
MAX_HOLDOUT = 10_000_000


@dataclass(frozen=True)
class Recommendation:
    """The smallest design on which one test reaches the wanted power, or why none does.

    Attributes
    ----------
    test, label : str
        The test's function name and label.
    design : CandidateDesign or None
        The smallest design (fewest models trained; then fewer folds) that reaches the
        power; None when none does.
    power : float
        Its power (or the best power found when none reaches).
    note : str
        One sentence: the design, or why no design reaches the power.
    type_i_error : float
        The test's type I error on that design under the same model (NaN without a design).
    """

    test: str
    label: str
    design: CandidateDesign | None
    power: float
    note: str
    type_i_error: float = math.nan


@dataclass(frozen=True, repr=False)
class PlanResult(SummaryDisplay):
    """What :func:`plan` found: powers, the smallest designs and the limits of the estimate.

    Attributes
    ----------
    models : tuple
        A and B.
    effect, target, alpha : float
        The difference to detect (in the metric's units), the wanted power and the level.
    components : VarianceComponents or None
        The variance components estimated from the pilot (None for a single split).
    discordance : Discordance or None
        ψ for McNemar's test (0/1 per-record pilots only).
    recommendations : tuple of Recommendation
        Per test, the smallest design reaching ``target``.
    limits : str
        The limits of the estimate, in words.
    pilot : str
        The pilot's design, in words.
    metric : str
        The metric's name.
    """

    models: tuple[Any, Any]
    effect: float
    target: float
    alpha: float
    components: VarianceComponents | None
    discordance: Discordance | None
    recommendations: tuple[Recommendation, ...]
    limits: str
    pilot: str
    metric: str
    table: pd.DataFrame = field(compare=False)

    def to_frame(self) -> pd.DataFrame:
        """Every test on every design: the columns of :data:`COLUMNS`, one row each."""
        return self.table.copy()

    @property
    def best(self) -> Recommendation | None:
        """The recommendation that trains the fewest models, over the tests that reach the power.

        McNemar's test on a new hold-out set is chosen only when no cross-validated
        design reaches the power (it needs records the pilot's data set may not have);
        a test whose type I error under the model exceeds 1.5 α is never chosen.
        """
        reached = [
            r
            for r in self.recommendations
            if r.design is not None and not r.type_i_error > SIZE_TOLERANCE * self.alpha
        ]
        if any(r.test != "mcnemar" for r in reached):  # a hold-out set needs new records
            reached = [r for r in reached if r.test != "mcnemar"]
        if not reached:
            return None
        return min(reached, key=lambda r: (r.design.trainings, r.design.K))  # type: ignore[union-attr]

    def summary(self) -> Summary:
        """Printable summary: the smallest designs, every power, the assumptions and limits."""
        from cvreport.rendering.summary import Summary, SummaryRow, SummaryTable

        a, b = self.models
        rows = [
            SummaryRow("models", f"{a} vs {b}", "text"),
            SummaryRow(f"effect to detect ({self.metric})", self.effect, "number"),
            SummaryRow("wanted power", self.target, "number"),
            SummaryRow("alpha (two-sided)", self.alpha, "number"),
        ]
        if self.components is not None:
            vc = self.components
            rows += [
                SummaryRow(f"within variance (K = {vc.K})", f"{vc.within:.4g}", "text"),
                SummaryRow("between variance", f"{vc.between:.4g}", "text"),
                SummaryRow("common covariance", f"{vc.common:.4g}", "text"),
            ]
        if self.discordance is not None:
            rows.append(
                SummaryRow("discordant records ψ", self.discordance.rate, "number"),
            )
        best = self.best
        recommended = SummaryTable(
            "Smallest design reaching the power, per test",
            ("test", "design", "trainings", "power"),
            tuple(
                (
                    r.label,
                    r.design.label if r.design else "none",
                    r.design.trainings if r.design else "",
                    r.power,
                )
                for r in self.recommendations
            ),
            ("text", "text", "value", "number"),
        )
        frame = self.table
        every = SummaryTable(
            "Power of every test on every design (and its type I error under the model)",
            ("test", "design", "power", "type I error"),
            tuple(zip(frame["label"], frame["design"], frame["power"], frame["type_i_error"])),
            ("text", "text", "number", "number"),
        )
        notes = [f"Pilot: {self.pilot}."]
        if self.components is not None:
            notes.append(f"Variance components: {self.components.describe()}.")
        notes += [r.note for r in self.recommendations]
        interpretation = (
            f"{best.label} on {best.design.label} reaches the power with the fewest models "  # type: ignore[union-attr]
            "trained."
            if best is not None
            else "No candidate design reaches the wanted power; see the notes."
        )
        return Summary(
            "Plan of the next experiment",
            rows=tuple(rows),
            tables=(recommended, every),
            notes=(*notes, self.limits),
            reference=(
                "Nadeau & Bengio (2003), Machine Learning 52(3):239–281; Bouckaert & Frank "
                "(2004), PAKDD; Alpaydın (1999); Wang, Li & Li (2017); Connor (1987)."
            ),
            interpretation=interpretation,
        )

    def __str__(self) -> str:
        return str(self.summary())

    def __repr__(self) -> str:
        best = self.best
        chosen = f"{best.label} on {best.design.label}" if best and best.design else "none"
        return (
            f"PlanResult(effect={self.effect:g}, power={self.target:g}, alpha={self.alpha:g}, "
            f"best={chosen!r})"
        )


def _planned_tests(components: VarianceComponents | None, discordance: Discordance | None):
    """The tests the pilot's design lets us plan, and what each reads."""
    chosen: list[tuple[PlannedTest, Any]] = []
    for test in PLANNED_TESTS:
        if test.name == "mcnemar":
            if discordance is not None:
                chosen.append((test, discordance.rate))
        elif components is not None and (test.name == "corrected_resampled_ttest") == (
            components.K == 1
        ):
            chosen.append((test, components))
    return chosen


def _inputs_at(test: PlannedTest, inputs: Any, design: CandidateDesign) -> Any:
    if isinstance(inputs, VarianceComponents) and inputs.K >= 2:
        return inputs.at(design.K)
    return inputs


def _method(test: PlannedTest, inputs: Any) -> str:
    if test.name.startswith("corrected") and isinstance(inputs, VarianceComponents):
        if inputs.source == SOURCE_REPLICATIONS and inputs.between != 0:
            return "noncentral t, Satterthwaite df"
    return test.power_method


def _default_designs(test: PlannedTest, inputs: Any) -> list[CandidateDesign]:
    if test.name == "mcnemar":
        return [CandidateDesign(1, 1, n) for n in DEFAULT_HOLDOUT_SIZES]
    if test.name == "corrected_resampled_ttest":
        return [CandidateDesign(j, 1) for j in DEFAULT_SPLITS]
    folds = sorted({*DEFAULT_FOLDS, inputs.K}) if test.name.startswith("corrected") else [2]
    return [
        CandidateDesign(m, k)
        for k in folds
        for m in DEFAULT_REPLICATIONS
        if test.applies(CandidateDesign(m, k))
    ]


def _smallest(
    test: PlannedTest,
    inputs: Any,
    make: Any,
    low: int,
    high: int,
    effect: float,
    alpha: float,
    target: float,
) -> tuple[CandidateDesign | None, float]:
    """The smallest size in [low, high] whose design reaches ``target`` (power rises with size)."""

    def power_of(size: int) -> float:
        design = make(size)
        return test.power(effect, _inputs_at(test, inputs, design), design, alpha)

    size, best = low, power_of(low)
    if best >= target:
        return make(low), best
    step = max(low, 1)
    while True:  # double until reaching (or passing the largest size)
        upper = min(size + step, high)
        value = power_of(upper)
        if value >= target:
            break
        if upper >= high:
            return None, value
        size, step = upper, step * 2
    lower = size  # power(lower) < target <= power(upper)
    while upper - lower > 1:
        middle = (lower + upper) // 2
        if power_of(middle) >= target:
            upper = middle
        else:
            lower = middle
    return make(upper), power_of(upper)


def _search(
    test: PlannedTest, inputs: Any, effect: float, alpha: float, target: float
) -> tuple[list[tuple[CandidateDesign, float]], float]:
    """Per fold count, the smallest design reaching ``target``; and the best power seen."""
    found: list[tuple[CandidateDesign, float]] = []
    ceiling = 0.0
    if test.name == "mcnemar":
        design, value = _smallest(
            test,
            inputs,
            lambda n: CandidateDesign(1, 1, n),
            10,
            MAX_HOLDOUT,
            effect,
            alpha,
            target,
        )
        return ([(design, value)] if design else []), value
    if test.name == "corrected_resampled_ttest":
        folds = [1]
    elif test.name.startswith("corrected"):
        folds = sorted({*DEFAULT_FOLDS, inputs.K})
    else:
        folds = [2]
    for k in folds:
        low = 2 if k == 1 or not test.name.startswith("corrected") else 1
        design, value = _smallest(
            test,
            inputs,
            lambda m, k=k: CandidateDesign(m, k),
            low,
            MAX_REPLICATIONS,
            effect,
            alpha,
            target,
        )
        ceiling = max(ceiling, value)
        if design is not None:
            found.append((design, value))
    return found, ceiling


def plan_from_components(
    components: VarianceComponents | None,
    discordance: Discordance | None,
    *,
    effect: float,
    power: float = 0.8,
    alpha: float = 0.05,
    designs: Iterable[Any] | None = None,
    models: tuple[Any, Any] = ("A", "B"),
    pilot: str = "given variance components",
    metric: str = "loss",
    n_records: int | None = None,
) -> PlanResult:
    """:func:`plan` from known variance components (and/or a discordance rate ψ).

    Parameters
    ----------
    components : VarianceComponents or None
        The components of the per-fold differences (None: McNemar only).
    discordance : Discordance or None
        ψ for McNemar's test on a hold-out set (None: no McNemar).
    effect, power, alpha, designs
        As in :func:`plan`.
    models, pilot, metric
        Labels for the summary.
    n_records : int, optional
        Records in the pilot's data set (a hold-out set larger than it is flagged).

    Returns
    -------
    PlanResult

    Examples
    --------
    >>> vc = VarianceComponents(within=0.0009, between=0.0, common=0.0001, K=10)
    >>> res = plan_from_components(vc, None, effect=0.03, designs=["1x10", "10x10"])
    >>> res.to_frame()[["design", "power"]].round(3).values.tolist()
    [['10-fold CV', 0.493], ['10×10 CV', 0.812]]
    """
    effect = check_effect(effect)
    target = check_power(power)
    alpha = check_level(alpha)
    planned = _planned_tests(components, discordance)
    if not planned:
        raise DesignError(
            "nothing to plan: the pilot gives neither a variance of per-fold differences nor "
            "0/1 per-record losses for McNemar's test"
        )
    given = None if designs is None else [parse_design(d) for d in designs]
    rows: list[dict[str, Any]] = []
    recommendations: list[Recommendation] = []
    for test, inputs in planned:
        candidates = (
            _default_designs(test, inputs)
            if given is None
            else [d for d in given if test.applies(d)]
        )
        reached: list[tuple[CandidateDesign, float]] = []
        ceiling = 0.0
        if given is None:
            reached, ceiling = _search(test, inputs, effect, alpha, target)
            candidates = sorted(set(candidates) | {d for d, _ in reached})
        for design in candidates:
            value = test.power(effect, _inputs_at(test, inputs, design), design, alpha)
            ceiling = max(ceiling, value)
            if given is not None and value >= target:
                reached.append((design, value))
            rows.append(
                {
                    "test": test.name,
                    "label": test.label,
                    "design": design.label,
                    "m": design.m,
                    "K": design.K,
                    "n_validation": design.n_validation,
                    "trainings": design.trainings,
                    "power": value,
                    "reaches": value >= target,
                    "type_i_error": test.power(
                        NULL_EFFECT, _inputs_at(test, inputs, design), design, alpha
                    ),
                    "method": _method(test, inputs),
                }
            )
        if not candidates:
            continue
        recommendation = _recommend(
            test, inputs, reached, ceiling, effect, target, alpha, given is None
        )
        size = recommendation.design.n_validation if recommendation.design else None
        if size is not None and n_records is not None and size > n_records:
            recommendation = replace(
                recommendation,
                note=recommendation.note
                + f" That is more records than the pilot's data set holds ({n_records}).",
            )
        recommendations.append(recommendation)
    table = pd.DataFrame(rows, columns=list(COLUMNS)).astype({"n_validation": "Int64"})
    limits = describe_limits(components, discordance, recommendations, effect, alpha)
    return PlanResult(
        models=models,
        effect=effect,
        target=target,
        alpha=alpha,
        components=components,
        discordance=discordance,
        recommendations=tuple(recommendations),
        limits=limits,
        pilot=pilot,
        metric=metric,
        table=table,
    )


def _recommend(
    test: PlannedTest,
    inputs: Any,
    reached: Sequence[tuple[CandidateDesign, float]],
    ceiling: float,
    effect: float,
    target: float,
    alpha: float,
    searched: bool,
) -> Recommendation:
    if reached:
        design, value = min(reached, key=lambda pair: (pair[0].trainings, pair[0].K))
        size = test.power(NULL_EFFECT, _inputs_at(test, inputs, design), design, alpha)
        note = (
            f"{test.label}: {design.label} ({_trainings(design)}) reaches power {value:.3f} "
            f"against a difference of {effect:g}."
        )
        if size > SIZE_TOLERANCE * alpha:
            note += (
                f" But under the same model its type I error is {size:.3f}, not α = {alpha:g}: "
                "it ignores part of the correlation between folds and rejects too often, so "
                "this power is not a fair comparison."
            )
        return Recommendation(test.name, test.label, design, value, note, size)
    where = "any design searched" if searched else "any of the given designs"
    note = (
        f"{test.label}: no design reaches power {target:g}; the best on {where} is {ceiling:.3f}."
    )
    if test.name.startswith("corrected") and isinstance(inputs, VarianceComponents):
        folds = [inputs.K] if inputs.K == 1 else sorted({*DEFAULT_FOLDS, inputs.K})
        limit = max(_limit_power(inputs, k, effect, alpha) for k in folds)
        note += (
            " More replications cannot help: the variance of the mean difference falls only to "
            "the covariance every fold shares (the common component), so even "
            f"with unlimited replications the power stays at {limit:.3f}. Detect a larger "
            "difference, or use a larger data set."
        )
    return Recommendation(test.name, test.label, None, ceiling, note)


def _trainings(design: CandidateDesign) -> str:
    count = design.trainings
    return f"{count} model{'s' if count != 1 else ''} trained per algorithm"


def _limit_power(components: VarianceComponents, K: int, effect: float, alpha: float) -> float:
    from cvreport.planning.power import corrected_t_power

    at_k = components.at(K) if components.K >= 2 else components
    return corrected_t_power(effect, at_k, 1_000_000, alpha=alpha)


def describe_limits(
    components: VarianceComponents | None,
    discordance: Discordance | None,
    recommendations: Sequence[Recommendation],
    effect: float,
    alpha: float,
) -> str:
    """The limits of the plan, in words: pilot size, normality, the correlation heuristic."""
    parts: list[str] = []
    if components is not None:
        low, high = variance_interval(components)
        df = components.df_within if components.K >= 2 else components.df_between
        parts.append(
            f"The pilot estimates the variance of the per-fold differences on {df:g} degrees of "
            f"freedom: under normality the true variance lies between {low:.2f} and {high:.2f} "
            "times the estimate (95%), and every power moves with it."
        )
        swing = _power_swing(components, recommendations, effect, alpha, low, high)
        if swing:
            parts.append(swing)
        parts.append(
            "The powers assume normal per-fold differences whose covariance is Nadeau & "
            "Bengio's: the part every fold shares cannot be seen in one data set (Bengio & "
            "Grandvalet 2004), so it is taken from the heuristic ρ = n2/(n1 + n2) that the "
            "corrected t tests assume (common = (within + between) × n2/n1)."
        )
        if components.source == SOURCE_REPLICATIONS:
            parts.append(
                "The between-replication variance was estimated directly from the spread of "
                f"the pilot's replication means ({components.df_between:g} df)."
            )
        else:
            parts.append(
                "The pilot has one replication, so the between-replication variance is taken "
                "as 0 (the equicorrelated model)."
            )
        if components.K >= 2:
            parts.append(
                f"For other fold counts than the pilot's K = {components.K}, the within "
                "variance is scaled in proportion to K (a fold's difference is a mean over n/K "
                "records) and the difference itself is taken as the same for every training "
                "size."
            )
    if discordance is not None:
        se = math.sqrt(discordance.rate * (1 - discordance.rate) / discordance.records)
        parts.append(
            f"McNemar's power assumes independent records and the pilot's share of discordant "
            f"records, ψ = {discordance.rate:.4f} (standard error {se:.4f} from "
            f"{discordance.records} records), unchanged under the difference."
        )
    return " ".join(parts)


def _power_swing(
    components: VarianceComponents,
    recommendations: Sequence[Recommendation],
    effect: float,
    alpha: float,
    low: float,
    high: float,
) -> str:
    for rec in recommendations:
        if rec.design is None or not rec.test.startswith("corrected"):
            continue
        test = next(t for t in PLANNED_TESTS if t.name == rec.test)
        powers = [
            test.power(
                effect, _inputs_at(test, components.scaled(f), rec.design), rec.design, alpha
            )
            for f in (high, low)
        ]
        return (
            f"Over that range the power of the {rec.label[0].lower() + rec.label[1:]} on "
            f"{rec.design.label} runs "
            f"from {powers[0]:.2f} to {powers[1]:.2f}."
        )
    return ""


def plan(
    pilot_table: ResultsTable,
    a: Any = None,
    b: Any = None,
    *,
    effect: float,
    power: float = 0.8,
    alpha: float = 0.05,
    designs: Iterable[Any] | None = None,
) -> PlanResult:
    """Plan the next experiment: the power of each test on each design, from a pilot.

    From the pilot's per-fold differences A − B the variance components of
    Nadeau & Bengio's (2003) model are estimated
    (:func:`~cvreport.planning.components.estimate_components`): the
    within-replication variance, the between-replication variance (estimated
    from the replication means when the pilot has several replications, else
    0), and the covariance every fold shares, which one data set cannot show and
    which comes from the heuristic ρ = n2/(n1 + n2) that the corrected t tests
    assume. Then, for every test recommended for the design and every candidate
    design, the power to detect a true difference of ``effect`` at two-sided
    level ``alpha``:

    - corrected repeated K-fold t (Bouckaert & Frank 2004) on ``m × K`` CV and
      corrected resampled t (Nadeau & Bengio 2003) on ``J`` hold-out splits:
      noncentral t, ``λ = Δ / √(common + between/m + within/(m K))``, df ``m K − 1``
      (Satterthwaite's df when the between variance is not 0);
    - combined (Alpaydın 1999) and calibrated (Wang, Li & Li 2017) 5×2cv F on
      ``m × 2`` CV: the statistic's distribution under the same model, integrated
      numerically;
    - McNemar's test on one hold-out set of ``n`` records (0/1 per-record pilots):
      exact binomial power from the share of discordant records ψ (Connor 1987's
      normal approximation is its large-n form).

    and, per test, the smallest design (fewest models trained) that reaches
    ``power``. When none does, the result says so and why, rather than
    recommending thousands of replications.

    Parameters
    ----------
    pilot_table : ResultsTable
        The pilot: K-fold, repeated K-fold, m×2 or repeated hold-out results (a
        single hold-out split plans McNemar's test only, for 0/1 losses).
    a, b : model labels
        The two models (default: the table's only two).
    effect : float
        The difference to detect, in the metric's units (> 0; e.g. 0.01 AUC).
    power : float
        The wanted power, in (0, 1).
    alpha : float
        Two-sided significance level, in (0, 1).
    designs : iterable, optional
        Candidate designs: ``"10x10"``, ``"5x2"``, ``(m, K)``, ``"10-fold"``,
        ``"30 splits"``, ``"hold-out 2000"``. Default: 1–50 replications of 2-,
        5-, 10-fold (and the pilot's K) CV, hold-out sets of 100 to 50,000
        records, plus the smallest design found by search.

    Returns
    -------
    PlanResult
        Frozen: ``summary()``, ``to_frame()``, ``recommendations``, ``best`` and
        ``limits`` (the limits of the estimate in words).

    Raises
    ------
    CVReportError
        ``effect <= 0`` or ``power``/``alpha`` outside (0, 1).
    DataError
        The pilot is not a ResultsTable, names no such models, or its differences
        do not vary.
    DesignError
        The pilot cannot estimate a variance (a single split without 0/1 losses),
        or a design cannot be read.

    References
    ----------
    Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error.
    Machine Learning 52(3):239–281. Bouckaert, R. R. and Frank, E. (2004), PAKDD,
    LNCS 3056:3–12. Bengio, Y. and Grandvalet, Y. (2004), JMLR 5:1089–1105.
    Connor, R. J. (1987), Biometrics 43(1):207–211.

    Examples
    --------
    >>> import cvreport
    >>> pilot = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> res = cvreport.plan(pilot, "logistic_regression", "decision_tree", effect=0.05)
    >>> res.best.test, res.best.design.label
    ('corrected_repeated_kfold_ttest', '19×10 CV')
    >>> sorted(res.to_frame().test.unique())[:2]
    ['calibrated_ftest_5x2cv', 'combined_ftest_5x2cv']
    """
    table = as_pilot_table(pilot_table)
    effect = check_effect(effect)
    check_power(power)
    check_level(alpha)
    pair = table.resolve_pair(a, b)
    discordance = estimate_discordance(table, *pair)
    design = table.design
    if design.m * design.K < 2:
        if discordance is None:
            raise DesignError(
                "the pilot holds a single split, so the variance of the per-fold differences "
                "cannot be estimated; run at least 2 folds (e.g. one 5-fold CV), or record 0/1 "
                "per-record losses to plan McNemar's test"
            )
        components = None
    else:
        components = estimate_components(table, *pair)
    return plan_from_components(
        components,
        discordance,
        effect=effect,
        power=power,
        alpha=alpha,
        designs=designs,
        models=pair,
        pilot=design.describe(),
        n_records=design.n_records,
        metric=table.metric.name,
    )
