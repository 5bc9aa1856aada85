"""Plan the next experiment: power and the smallest design from a pilot.

- :func:`plan` — from a pilot table, the power of every recommended test on
  candidate designs (m × K CV, m × 2 CV, repeated hold-out splits, a hold-out
  set of n records) and the smallest design that reaches the wanted power;
- :func:`plan_from_components` — the same from known variance components;
- :class:`VarianceComponents` and :func:`estimate_components` — the Nadeau &
  Bengio (2003) variance structure of per-fold differences;
- :mod:`cvreport.planning.power` — the power formulas;
- :func:`power_by_replications` — the numbers behind ``cvreport.power_curve``.

Statistics only: the figure is drawn by :mod:`cvreport.rendering.power_figure`.
"""

from __future__ import annotations

from cvreport.planning.components import (
    Discordance,
    VarianceComponents,
    estimate_components,
    estimate_discordance,
)
from cvreport.planning.curve import power_by_replications
from cvreport.planning.designs import CandidateDesign, parse_design
from cvreport.planning.plan import PlanResult, Recommendation, plan, plan_from_components
from cvreport.planning.power import corrected_t_power, ftest_5x2_power, mcnemar_power

__all__ = [
    "CandidateDesign",
    "Discordance",
    "PlanResult",
    "Recommendation",
    "VarianceComponents",
    "corrected_t_power",
    "estimate_components",
    "estimate_discordance",
    "ftest_5x2_power",
    "mcnemar_power",
    "parse_design",
    "plan",
    "plan_from_components",
    "power_by_replications",
]
