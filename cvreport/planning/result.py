"""The result of :func:`cvreport.plan`: powers, the smallest designs and the limits, frozen."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from cvreport.data.metrics import reader_name
from cvreport.methods.resampled_t import REFERENCE_NADEAU_BENGIO, REFERENCE_RESAMPLED
from cvreport.planning.components import (
    REFERENCE_BENGIO_GRANDVALET,
    Discordance,
    VarianceComponents,
)
from cvreport.planning.designs import (
    ALGORITHMS,
    PLANNED_TESTS,
    TRAINED_MODELS,
    CandidateDesign,
)
from cvreport.planning.power import SIZE_TOLERANCE, holds_level
from cvreport.references import bibliography
from cvreport.rendering.display import SummaryDisplay
from cvreport.rendering.summary import Summary
from cvreport.summary_data import SummaryRow, SummaryTable

__all__ = [
    "COLUMNS",
    "DATA_SET_HOLDS",
    "HOLDOUT_WITHIN",
    "SIZE_TOLERANCE",
    "SPLITS_VALIDATED",
    "PlanResult",
    "Recommendation",
    "holds_level",
]

#: What the summary says of the within-fold variance of a hold-out pilot (K = 1).
HOLDOUT_WITHIN = "not estimable from one fold per split"

#: What the pilot's record count is, in "more records than ..." ...
DATA_SET_HOLDS = "the pilot's data set holds"
#: ... and for repeated hold-out pilots, whose table lists only the validated records.
SPLITS_VALIDATED = "the pilot's splits validated"

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
    "holds_level",
    "power_method",
)


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
        The test's type I error on that design under the same model; where no design
        reaches the power, on the design of the best power found (NaN when there is none).
    holds_level : bool
        False when that type I error exceeds ``SIZE_TOLERANCE`` × α: the design reaches
        the power (or its best power) only by rejecting too often, so it is shown but not
        recommended.
    compares : str
        The question the power answers: ``"algorithms"`` (training sets and test records
        vary: does algorithm A beat B when trained again) or ``"trained models"`` (McNemar's
        test on one hold-out set: do the two models, trained once, differ on that test set).
    """

    test: str
    label: str
    design: CandidateDesign | None
    power: float
    note: str
    type_i_error: float = math.nan
    holds_level: bool = True
    compares: str = ALGORITHMS


def _holds_words(level: bool) -> str:
    """The "holds level" cell of the smallest-design table."""
    return "yes" if level else "no: not recommended"


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
    n_records : int or None
        Records in the pilot's data set (None when not known): the headline says when a
        design needs more.
    records_word : str
        What ``n_records`` counts (:data:`DATA_SET_HOLDS`, or :data:`SPLITS_VALIDATED`
        for repeated hold-out pilots).

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
    n_records: int | None = None
    records_word: str = DATA_SET_HOLDS

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
        reached = [r for r in self.recommendations if r.design is not None and r.holds_level]
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
            SummaryRow(f"effect to detect ({reader_name(self.metric)})", self.effect, "number"),
            SummaryRow("wanted power", self.target, "number"),
            SummaryRow("alpha (two-sided)", self.alpha, "number"),
        ]
        if self.components is not None:
            vc = self.components
            if vc.K == 1:  # one fold per split: its spread is all between splits
                rows += [
                    SummaryRow("within variance (K = 1)", HOLDOUT_WITHIN, "text"),
                    SummaryRow("variance between splits", f"{vc.between:.4g}", "text"),
                ]
            else:
                rows += [
                    SummaryRow(f"within variance (K = {vc.K})", f"{vc.within:.4g}", "text"),
                    SummaryRow("between variance", _between_value(vc.between), "text"),
                ]
            rows.append(SummaryRow("common covariance", f"{vc.common:.4g}", "text"))
        if self.discordance is not None:
            rows.append(
                SummaryRow("discordant records ψ", self.discordance.rate, "number"),
            )
        rows += self._questions()
        best = self.best
        recommended = SummaryTable(
            "Smallest design reaching the power, per test",
            ("test", "design", "trainings", "power", "type I error", "holds level"),
            tuple(
                (
                    r.label,
                    # no design reaches the power: the power beside it is the best found
                    r.design.label if r.design else "none (best found)",
                    r.design.trainings if r.design else "",
                    r.power,
                    "" if math.isnan(r.type_i_error) else r.type_i_error,
                    "" if math.isnan(r.type_i_error) else _holds_words(r.holds_level),
                )
                for r in self.recommendations
            ),
            ("text", "text", "value", "number", "number", "text"),
        )
        frame = self.table
        every = SummaryTable(
            "Power of every test on every design (and its type I error under the model)",
            ("test", "design", "power", "type I error", "holds level"),
            tuple(
                zip(
                    frame["label"],
                    frame["design"],
                    frame["power"],
                    frame["type_i_error"],
                    ["yes" if level else "no" for level in frame["holds_level"]],
                )
            ),
            ("text", "text", "number", "number", "text"),
        )
        notes = [f"Pilot: {self.pilot}."]
        if self.components is not None:
            notes.append(f"Variance components: {self.components.describe()}.")
        notes += [r.note for r in self.recommendations]
        if not self.table["holds_level"].all():
            notes.append(
                "In the tables, 'no' under 'holds level' marks a design on "
                f"which the test's type I error under the model exceeds {SIZE_TOLERANCE:g} α "
                f"({SIZE_TOLERANCE * self.alpha:g}): it rejects a true null too often there, "
                "so its power is not a fair comparison and the design is not recommended."
            )
        interpretation = self._interpretation(best)
        return Summary(
            "Plan of the next experiment",
            rows=tuple(rows),
            tables=(recommended, every),
            notes=(*notes, self.limits),
            reference=" ".join(self.references()),
            interpretation=interpretation,
        )

    def references(self) -> tuple[str, ...]:
        """The papers behind this plan: the variance model when there is one, then each
        planned test's power, in the order of the tests (none of a test not planned).

        Returns
        -------
        tuple of str
            Full references, each paper once and without the equations a test points to.

        Examples
        --------
        >>> from cvreport.planning import VarianceComponents, plan_from_components
        >>> vc = VarianceComponents(within=0.0009, between=0.0, common=0.0001, K=10)
        >>> res = plan_from_components(vc, None, effect=0.03, power=0.8, designs=["10x10"])
        >>> for reference in res.references():
        ...     print(reference.split(" (")[0])
        Nadeau, C. and Bengio, Y.
        Bengio, Y. and Grandvalet, Y.
        Bouckaert, R. R. and Frank, E.
        """
        planned = {test.name: test.reference for test in PLANNED_TESTS}
        model = (
            (REFERENCE_NADEAU_BENGIO, REFERENCE_BENGIO_GRANDVALET)
            if self.components is not None
            else ()
        )
        tests = [planned[r.test] for r in self.recommendations if r.test in planned]
        if any(r.compares == TRAINED_MODELS for r in self.recommendations):
            tests.append(REFERENCE_RESAMPLED)  # Dietterich: what McNemar's test ignores
        return tuple(bibliography((*model, *tests)))  # a paper once, without its equations

    def _questions(self) -> list[SummaryRow]:
        """What each kind of row compares, when a test on one hold-out set is planned."""
        trained = [r for r in self.recommendations if r.compares == TRAINED_MODELS]
        if not trained:
            return []
        rows = []
        if any(r.compares == ALGORITHMS for r in self.recommendations):
            rows.append(
                SummaryRow("the CV tests compare", "the algorithms (training sets vary)", "text")
            )
        for r in trained:
            name = r.label.split(" (")[0]  # "McNemar's test (continuity-corrected)"
            rows.append(
                SummaryRow(f"{name} compares", "2 models trained once, on 1 test set", "text")
            )
        return rows

    def _interpretation(self, best: Recommendation | None) -> str:
        """Which design is chosen, and why the tests that train fewer models are not."""
        if best is None or best.design is None:
            too_often = [r for r in self.recommendations if r.design and not r.holds_level]
            if not too_often:
                return "No candidate design reaches the wanted power; see the notes."
            return (
                "No candidate design reaches the wanted power with a test that holds its level: "
                + " and ".join(f"{r.label} on {r.design.label}" for r in too_often)  # type: ignore[union-attr]
                + f" {'reaches' if len(too_often) == 1 else 'reach'} it only by rejecting a "
                f"true null more often than {SIZE_TOLERANCE:g} α; see the notes."
            )
        if best.compares == TRAINED_MODELS:
            return self._trained_models_only(best)
        sentences = [f"{best.label} on {best.design.label} reaches the power."]
        cheaper = [
            r
            for r in self.recommendations
            if r is not best and r.design is not None and r.design.trainings < best.design.trainings
        ]
        too_often = [r for r in cheaper if not r.holds_level]
        if too_often:
            sentences.append(
                " and ".join(f"{r.label} on {r.design.label}" for r in too_often)  # type: ignore[union-attr]
                + f" {'trains' if len(too_often) == 1 else 'train'} fewer models but "
                f"{'rejects' if len(too_often) == 1 else 'reject'} a true null more often "
                f"than {SIZE_TOLERANCE:g} α there, so "
                f"{'it is' if len(too_often) == 1 else 'they are'} not recommended."
            )
        holdout = [r for r in cheaper if r.holds_level and r.compares == TRAINED_MODELS]
        for r in holdout:
            sentences.append(
                f"{r.label} reaches it with one model trained per algorithm, on a new "
                f"{r.design.label} set aside from training, but it answers another "  # type: ignore[union-attr]
                "question: whether those two trained models differ on that test set, its "
                "records the only randomness, not whether the algorithms differ."
                + self._larger_than_data(r)
            )
        return " ".join(sentences)

    def _trained_models_only(self, best: Recommendation) -> str:
        """The headline when only a test on one new hold-out set reaches the power."""
        assert best.design is not None
        sentences = []
        if any(r.compares == ALGORITHMS for r in self.recommendations):
            sentences.append(
                "No cross-validated design reaches the wanted power for comparing the "
                "algorithms; see the notes."
            )
        sentences.append(
            f"{best.label} on a new {best.design.label} reaches it, but answers another "
            "question: whether the two models, trained once, differ on that test set, its "
            "records the only randomness; not whether algorithm A beats B when trained again "
            f"(Dietterich 1998); its type I error of {best.type_i_error:.3f} holds under that "
            "model only." + self._larger_than_data(best)
        )
        return " ".join(sentences)

    def _larger_than_data(self, rec: Recommendation) -> str:
        """The sentence saying that a hold-out set needs more records than the data set has."""
        size = rec.design.n_validation if rec.design is not None else None
        if size is None or self.n_records is None or size <= self.n_records:
            return ""
        return f" It needs {size} new records, more than {self.records_word} ({self.n_records})."

    def __str__(self) -> str:
        return str(self.summary())

    def __repr__(self) -> str:
        best = self.best
        chosen = f"{best.label} on {best.design.label}" if best and best.design else "none"
        return (
            f"PlanResult(effect={self.effect:g}, power={self.target:g}, alpha={self.alpha:g}, "
            f"best={chosen!r})"
        )


def _between_value(between: float) -> str:
    """The between-replication variance as printed; a negative estimate says what it means."""
    if between < 0:
        return f"{between:.4g} (below 0: none detectable; see notes)"
    return f"{between:.4g}"
