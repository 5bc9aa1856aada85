"""The candidate designs of a plan, and the search for the smallest that reaches the power."""

from __future__ import annotations

from typing import Any

from cvreport.planning.components import VarianceComponents
from cvreport.planning.designs import CandidateDesign, PlannedTest

__all__ = [
    "DEFAULT_FOLDS",
    "DEFAULT_HOLDOUT_SIZES",
    "DEFAULT_REPLICATIONS",
    "DEFAULT_SPLITS",
    "MAX_HOLDOUT",
    "MAX_REPLICATIONS",
    "default_designs",
    "inputs_at",
    "search_designs",
    "smallest_design",
]

#: Fold counts and replications shown when no designs are given.
DEFAULT_FOLDS = (2, 5, 10)
DEFAULT_REPLICATIONS = (1, 2, 3, 5, 10, 20, 50)
DEFAULT_SPLITS = (2, 5, 10, 20, 30, 50, 100)
DEFAULT_HOLDOUT_SIZES = (100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)
#: The largest design searched for the smallest one that reaches the power.
MAX_REPLICATIONS = 1000
MAX_HOLDOUT = 10_000_000


def inputs_at(test: PlannedTest, inputs: Any, design: CandidateDesign) -> Any:
    """What the test's power reads at ``design``: the components carried to its K, or ψ."""
    if isinstance(inputs, VarianceComponents) and inputs.K >= 2:
        return inputs.at(design.K)
    return inputs


def default_designs(test: PlannedTest, inputs: Any) -> list[CandidateDesign]:
    """The designs a plan shows when none are given."""
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


def smallest_design(
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
        return test.power(effect, inputs_at(test, inputs, design), design, alpha)

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


def search_designs(
    test: PlannedTest, inputs: Any, effect: float, alpha: float, target: float
) -> tuple[list[tuple[CandidateDesign, float]], tuple[float, CandidateDesign | None]]:
    """Per fold count, the smallest design reaching ``target``; and the best power seen,
    with the design it was seen on (the largest searched, where none reaches)."""
    found: list[tuple[CandidateDesign, float]] = []
    ceiling: tuple[float, CandidateDesign | None] = (0.0, None)
    if test.name == "mcnemar":
        design, value = smallest_design(
            test,
            inputs,
            lambda n: CandidateDesign(1, 1, n),
            10,
            MAX_HOLDOUT,
            effect,
            alpha,
            target,
        )
        seen = design or CandidateDesign(1, 1, MAX_HOLDOUT)
        return ([(design, value)] if design else []), (value, seen)
    if test.name == "corrected_resampled_ttest":
        folds = [1]
    elif test.name.startswith("corrected"):
        folds = sorted({*DEFAULT_FOLDS, inputs.K})
    else:
        folds = [2]
    for k in folds:
        low = 2 if k == 1 or not test.name.startswith("corrected") else 1
        design, value = smallest_design(
            test,
            inputs,
            lambda m, k=k: CandidateDesign(m, k),
            low,
            MAX_REPLICATIONS,
            effect,
            alpha,
            target,
        )
        seen = design or CandidateDesign(MAX_REPLICATIONS, k)
        if value > ceiling[0]:
            ceiling = (value, seen)
        if design is not None:
            found.append((design, value))
    return found, ceiling
