"""Plan the next experiment from a pilot: the power of each test on each design.

:func:`plan` estimates the variance components of the per-fold differences
A − B from a pilot table (:mod:`cvreport.planning.components`), computes the
power of every recommended test on every candidate design to detect a given
difference (:mod:`cvreport.planning.power`), finds the smallest design that
reaches the wanted power (:mod:`cvreport.planning.search`), and says in words
how far the estimate can be trusted (:mod:`cvreport.planning.limits`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from cvreport.data.design import DesignKind
from cvreport.errors import DesignError
from cvreport.option_values import check_alpha
from cvreport.planning.components import (
    SOURCE_REPLICATIONS,
    Discordance,
    VarianceComponents,
    as_pilot_table,
    estimate_components,
    estimate_discordance,
)
from cvreport.planning.designs import (
    NULL_EFFECT,
    PLANNED_TESTS,
    TRAINED_MODELS,
    CandidateDesign,
    PlannedTest,
    parse_designs,
)
from cvreport.planning.limits import describe_limits, limit_power
from cvreport.planning.power import check_effect, check_power
from cvreport.planning.result import (
    COLUMNS,
    DATA_SET_HOLDS,
    SPLITS_VALIDATED,
    PlanResult,
    Recommendation,
    holds_level,
)
from cvreport.planning.search import DEFAULT_FOLDS, default_designs, inputs_at, search_designs

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["PlanResult", "Recommendation", "plan", "plan_from_components"]

#: What the power of a test on one hold-out set answers, said in its note (Dietterich 1998).
_ANOTHER_QUESTION = (
    " Its power and type I error take the records of one test set as the only randomness "
    "(one model trained per algorithm, once): it answers whether those two trained models "
    "differ on that test set, not whether algorithm A beats B when trained again, which the "
    "variation of the training sets also decides (Dietterich 1998)."
)


def _planned_tests(
    components: VarianceComponents | None, discordance: Discordance | None
) -> list[tuple[PlannedTest, Any]]:
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


def _method(test: PlannedTest, inputs: Any) -> str:
    if test.name.startswith("corrected") and isinstance(inputs, VarianceComponents):
        if inputs.source == SOURCE_REPLICATIONS and inputs.between != 0:
            return "noncentral t, Satterthwaite df"
    return test.power_method


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
    records_word: str = DATA_SET_HOLDS,
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
    records_word : str
        What ``n_records`` counts, in the sentence that flags a larger hold-out set:
        :data:`~cvreport.planning.result.DATA_SET_HOLDS`, or
        :data:`~cvreport.planning.result.SPLITS_VALIDATED` for repeated hold-out
        pilots, whose table lists only the records some split validated.

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
    alpha = check_alpha(alpha)
    planned = _planned_tests(components, discordance)
    if not planned:
        raise DesignError(
            "nothing to plan: the pilot gives neither a variance of per-fold differences nor "
            "0/1 per-record losses for McNemar's test"
        )
    given = None if designs is None else parse_designs(designs)
    too_many = [d for d in given or () if n_records is not None and d.K > n_records]
    if too_many:  # the within variance is scaled to folds of n/K records: at least 1 each
        raise DesignError(
            f"{too_many[0].label} needs at least {too_many[0].K} records (one per fold), but "
            f"the pilot's data set holds {n_records}; plan at most {n_records} folds"
        )
    rows: list[dict[str, Any]] = []
    recommendations: list[Recommendation] = []
    for test, inputs in planned:
        candidates = (
            default_designs(test, inputs)
            if given is None
            else [d for d in given if test.applies(d)]
        )
        reached: list[tuple[CandidateDesign, float]] = []
        # the best power seen and its design: where no design reaches the power, the plan
        # gives that power with the design's type I error, so that a reader can judge it
        ceiling: tuple[float, CandidateDesign | None] = (0.0, None)
        if given is None:
            reached, ceiling = search_designs(test, inputs, effect, alpha, target)
            candidates = sorted(set(candidates) | {d for d, _ in reached})
        for design in candidates:
            value = test.power(effect, inputs_at(test, inputs, design), design, alpha)
            type_i_error = test.power(NULL_EFFECT, inputs_at(test, inputs, design), design, alpha)
            if value > ceiling[0]:
                ceiling = (value, design)
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
                    "type_i_error": type_i_error,
                    "holds_level": holds_level(type_i_error, alpha),
                    "power_method": _method(test, inputs),
                }
            )
        if not candidates:
            continue
        own = [row for row in rows if row["test"] == test.name]
        fair = [(row["power"], row["design"]) for row in own if row["holds_level"]]
        # where some design of the table lets the test reject too often, its best power
        # alone would flatter it: the best on designs that hold the level is said beside
        fair_best = max(fair) if fair and len(fair) < len(own) else None
        recommendation = _recommend(
            test, inputs, reached, ceiling, effect, target, alpha, given is None, fair_best
        )
        size = recommendation.design.n_validation if recommendation.design else None
        if size is not None and n_records is not None and size > n_records:
            recommendation = replace(
                recommendation,
                note=recommendation.note
                + f" That is more records than {records_word} ({n_records}).",
            )
        if test.compares == TRAINED_MODELS:
            recommendation = replace(recommendation, note=recommendation.note + _ANOTHER_QUESTION)
        recommendations.append(recommendation)
    names = ", ".join(test.label for test, _ in planned)
    which_designs = (
        "K-fold and m×2 pilots plan 'MxK' designs, repeated hold-out pilots 'J splits', 0/1 "
        "per-record pilots also 'hold-out N'"
    )
    if not rows:
        raise DesignError(
            f"none of the given designs fits the tests this pilot plans ({names}): {which_designs}"
        )
    # a given design no planned test applies to is said, never dropped without a word
    unfit = [d.label for d in given or () if not any(test.applies(d) for test, _ in planned)]
    table = pd.DataFrame(rows, columns=list(COLUMNS)).astype({"n_validation": "Int64"})
    limits = describe_limits(
        components, discordance, recommendations, effect, alpha, n_records=n_records
    )
    if unfit:
        limits += (
            f" The given design{'s' if len(unfit) > 1 else ''} "
            f"{', '.join(repr(label) for label in unfit)} fit{'' if len(unfit) > 1 else 's'} "
            f"none of the tests this pilot plans ({names}) and {'are' if len(unfit) > 1 else 'is'} "
            f"left out: {which_designs}."
        )
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
        n_records=n_records,
        records_word=records_word,
    )


def _recommend(
    test: PlannedTest,
    inputs: Any,
    reached: Sequence[tuple[CandidateDesign, float]],
    ceiling: tuple[float, CandidateDesign | None],
    effect: float,
    target: float,
    alpha: float,
    searched: bool,
    fair_best: tuple[float, str] | None = None,
) -> Recommendation:
    if reached:
        design, value = min(reached, key=lambda pair: (pair[0].trainings, pair[0].K))
        size = test.power(NULL_EFFECT, inputs_at(test, inputs, design), design, alpha)
        note = (
            f"{test.label}: {design.label} ({_trainings(design)}) reaches power {value:.3f} "
            f"against a difference of {effect:g}."
        )
        level = holds_level(size, alpha)
        if not level:
            note += (
                f" But under the same model its type I error is {size:.3f}, not α = {alpha:g}: "
                "it ignores part of the correlation between folds and rejects too often, so "
                "this power is not a fair comparison and the design is not recommended."
            )
        return Recommendation(
            test.name, test.label, design, value, note, size, level, test.compares
        )
    where = "any design searched" if searched else "any of the given designs"
    best, best_design = ceiling
    note = f"{test.label}: no design reaches power {target:g}; the best on {where} is {best:.3f}"
    size, level = math.nan, True
    if best_design is not None:
        size = test.power(NULL_EFFECT, inputs_at(test, inputs, best_design), best_design, alpha)
        level = holds_level(size, alpha)
        note += f" ({best_design.label}"
        note += ")." if level else f", where its type I error is {size:.3f}, not α = {alpha:g})."
    else:
        note += "."
    if fair_best is not None:
        note += (
            f" On the designs of the table where it holds its level, the best is "
            f"{fair_best[0]:.3f} ({fair_best[1]})."
        )
    if test.name.startswith("corrected") and isinstance(inputs, VarianceComponents):
        folds = [inputs.K] if inputs.K == 1 else sorted({*DEFAULT_FOLDS, inputs.K})
        if best_design is not None and inputs.K >= 2:  # a given design may have other folds
            folds = sorted({*folds, best_design.K})
        limit = max(limit_power(inputs, k, effect, alpha) for k in folds)
        more, every = ("splits", "split") if inputs.K == 1 else ("replications", "fold")
        note += (
            f" More {more} cannot help: the variance of the mean difference falls only to "
            f"the covariance every {every} shares (the common component), so even "
            f"with unlimited {more} the power cannot exceed {limit:.3f}. Detect a larger "
            "difference, or use a larger data set."
        )
    return Recommendation(test.name, test.label, None, best, note, size, level, test.compares)


def _trainings(design: CandidateDesign) -> str:
    count = design.trainings
    return f"{count} model{'s' if count != 1 else ''} trained per algorithm"


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
        a design cannot be read, or a design has more folds than the pilot's data
        set has records.

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
    alpha = check_alpha(alpha)
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
    # repeated hold-out splits list only the records some split validated, not the data set
    validated_only = design.kind is DesignKind.REPEATED_HOLDOUT and design.per_record
    result = plan_from_components(
        components,
        discordance,
        effect=effect,
        power=power,
        alpha=alpha,
        designs=designs,
        models=pair,
        pilot=design.describe()
        + (
            "; n counts the records some split validated: the data set's size is not in the table"
            if validated_only
            else ""
        ),
        n_records=design.n_records,
        metric=table.metric.name,
        records_word=SPLITS_VALIDATED if validated_only else DATA_SET_HOLDS,
    )
    if validated_only and table.test_train_ratio is None and components is not None:
        result = replace(
            result,
            limits=result.limits
            + f" The splits' n2/n1 = {components.test_train_ratio:.4g} was inferred from the "
            f"{design.n_records} records they validated, as if no other record had trained "
            "the models; pass test_train_ratio= to the table (--test-train-ratio) when the "
            "training sets were larger.",
        )
    return result
