"""The result of :func:`cvreport.plan`: powers, the smallest designs and the limits, frozen."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from cvreport.planning.components import Discordance, VarianceComponents
from cvreport.planning.designs import CandidateDesign
from cvreport.rendering.display import SummaryDisplay
from cvreport.rendering.summary import Summary
from cvreport.summary_data import SummaryRow, SummaryTable

__all__ = ["COLUMNS", "SIZE_TOLERANCE", "PlanResult", "Recommendation"]

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
#: A type I error above this multiple of α disqualifies a test from :attr:`PlanResult.best`.
SIZE_TOLERANCE = 1.5


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

    Examples
    --------
    >>> from cvreport.planning import VarianceComponents, plan_from_components
    >>> vc = VarianceComponents(within=0.0009, between=0.0, common=0.0001, K=10)
    >>> res = plan_from_components(vc, None, effect=0.03, power=0.8)
    >>> res.best.design.label, round(res.best.power, 3)
    ('8×10 CV', 0.802)
    >>> "normal per-fold differences" in res.limits
    True
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
