"""The limits of a plan, in words: pilot size, normality, the correlation heuristic."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from cvreport.planning.components import (
    SOURCE_REPLICATIONS,
    Discordance,
    VarianceComponents,
    variance_interval,
)
from cvreport.planning.designs import PLANNED_TESTS
from cvreport.planning.power import corrected_t_power
from cvreport.planning.result import Recommendation
from cvreport.planning.search import inputs_at

__all__ = ["describe_limits", "limit_power", "negative_between", "power_swing"]


def limit_power(components: VarianceComponents, K: int, effect: float, alpha: float) -> float:
    """The corrected t's power with unlimited replications of K folds (the ceiling)."""
    at_k = components.at(K) if components.K >= 2 else components
    return corrected_t_power(effect, at_k, 1_000_000, alpha=alpha)


def describe_limits(
    components: VarianceComponents | None,
    discordance: Discordance | None,
    recommendations: Sequence[Recommendation],
    effect: float,
    alpha: float,
    n_records: int | None = None,
) -> str:
    """The limits of the plan, in words: pilot size, normality, the correlation heuristic.

    ``n_records`` is the number of distinct records in the pilot's data set: when ψ
    is counted over more scored predictions than that (every replication scores each
    record again), its standard error is given both ways.
    """
    parts: list[str] = []
    if components is not None:
        low, high = variance_interval(components)
        df = components.df_within if components.K >= 2 else components.df_between
        parts.append(
            f"The pilot estimates the variance of the per-fold differences on {df:g} degrees of "
            f"freedom: under normality the true variance lies between {low:.2f} and {high:.2f} "
            "times the estimate (95%), and every power moves with it."
        )
        swing = power_swing(components, recommendations, effect, alpha, low, high)
        if swing:
            parts.append(swing)
        parts.append(
            "The powers assume normal per-fold differences whose covariance is Nadeau & "
            "Bengio's: the part every fold shares cannot be seen in one data set (Bengio & "
            "Grandvalet 2004), so it is taken from the heuristic ρ = n2/(n1 + n2) that the "
            "corrected t tests assume (common = (within + between) × n2/n1)."
        )
        if components.K == 1:
            parts.append(
                "The pilot's hold-out splits give the variance of a split's difference; the "
                "plan keeps their size (n2/n1 = "
                f"{components.test_train_ratio:.4g}) and varies their number."
            )
        elif components.source == SOURCE_REPLICATIONS and components.between < 0:
            parts.append(negative_between(components, recommendations, effect, alpha))
        elif components.source == SOURCE_REPLICATIONS:
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
        spread = discordance.rate * (1 - discordance.rate)
        se = math.sqrt(spread / discordance.records)
        if n_records is not None and 0 < n_records < discordance.records:
            counted = (
                f"standard error between {se:.4f}, if its {discordance.records} scored "
                f"predictions were independent, and {math.sqrt(spread / n_records):.4f}, "
                f"counting each of the {n_records} distinct records once: every "
                f"{'split' if components is not None and components.K == 1 else 'replication'} "
                "scores records that others score again"
            )
        else:
            counted = f"standard error {se:.4f} from {discordance.records} records"
        parts.append(
            f"McNemar's power assumes independent records and the pilot's share of discordant "
            f"records, ψ = {discordance.rate:.4f} ({counted}), unchanged under the difference."
        )
    return " ".join(parts)


def power_swing(
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
            test.power(effect, inputs_at(test, components.scaled(f), rec.design), rec.design, alpha)
            for f in (high, low)
        ]
        return (
            f"Over that range the power of the {_in_sentence(rec.label)} on "
            f"{rec.design.label} runs "
            f"from {powers[0]:.2f} to {powers[1]:.2f}."
        )
    return ""


def negative_between(
    components: VarianceComponents,
    recommendations: Sequence[Recommendation],
    effect: float,
    alpha: float,
) -> str:
    """What a between-replication variance estimated below 0 means, and what the plan does.

    The method-of-moments estimate ``(MS_between − MS_within)/K`` (one-way ANOVA)
    falls below 0 whenever the replication means vary less than the folds within a
    replication predict; the plan keeps it (bounded below by ``−within/K``), and
    the sentence gives the power the corrected t test would have with it read as 0.
    """
    text = (
        "The between-replication variance, (MS_between − MS_within)/K from the spread of the "
        f"pilot's replication means ({components.df_between:g} df), is estimated below 0 "
        f"({components.between:.4g}): the replication means vary less than the folds within "
        "a replication predict, so the pilot shows no detectable variation between "
        "replications (a method-of-moments estimate falls below 0 by chance when the true "
        "value is 0 or small). The plan keeps the negative value as it is (it is bounded "
        f"below by −within/K = {-components.within / components.K:.4g}), including in the "
        "common covariance, rather than reading it as 0."
    )
    for rec in recommendations:
        if rec.design is None or not rec.test.startswith("corrected"):
            continue
        test = next(t for t in PLANNED_TESTS if t.name == rec.test)
        as_zero = replace(
            components, between=0.0, common=components.within * components.test_train_ratio
        )
        value = test.power(effect, inputs_at(test, as_zero, rec.design), rec.design, alpha)
        text += (
            f" Read as 0, the power of the {_in_sentence(rec.label)} on {rec.design.label} "
            f"would be {value:.3f} instead of {rec.power:.3f}."
        )
        break
    return text


def _in_sentence(label: str) -> str:
    """A test's name inside a sentence: lower-case first letter unless it starts with a name."""
    first = label.split()[0]
    return label if "'" in first or first.isupper() else label[0].lower() + label[1:]
