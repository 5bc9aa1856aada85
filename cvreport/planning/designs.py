"""Candidate designs of the next experiment, and the tests planned for each.

A candidate is ``m × K`` cross-validation (``m`` replications of ``K``-fold CV;
``m × 2`` for the 5×2cv tests), ``J`` repeated hold-out splits, or one hold-out
set of ``n`` records.

Examples
--------
>>> parse_design("10x10").label, parse_design("5×2").trainings
('10×10 CV', 10)
>>> parse_design("hold-out 2000").label, parse_design("30 splits").label
('hold-out set of 2000 records', '30 hold-out splits')
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cvreport.errors import DesignError
from cvreport.methods.mx2_ftest import REF_ALPAYDIN, REF_CALIBRATED, calibrated_df1_mean
from cvreport.methods.registry import get_spec
from cvreport.methods.resampled_t import REFERENCE_BOUCKAERT_FRANK, REFERENCE_NADEAU_BENGIO
from cvreport.planning.components import VarianceComponents
from cvreport.planning.power import (
    REFERENCE_CONNOR,
    corrected_t_power,
    ftest_5x2_power,
    mcnemar_power,
)

__all__ = [
    "ALGORITHMS",
    "NULL_EFFECT",
    "PLANNED_TESTS",
    "TRAINED_MODELS",
    "CandidateDesign",
    "PlannedTest",
    "parse_design",
    "parse_designs",
]

#: The difference at which a test's power is its type I error under the model.
NULL_EFFECT = 1e-300

#: What a planned test compares: the algorithms (training sets and test records vary) ...
ALGORITHMS = "algorithms"
#: ... or the two models trained once, on one test set (its records the only randomness).
TRAINED_MODELS = "trained models"


@dataclass(frozen=True, order=True)
class CandidateDesign:
    """One design of the next experiment.

    Attributes
    ----------
    m : int
        Replications (``J`` splits when ``K = 1``; 1 for one hold-out set).
    K : int
        Folds per replication (1: hold-out splits or one hold-out set).
    n_validation : int or None
        Records of a single hold-out set (McNemar's test); None otherwise.
    """

    m: int
    K: int
    n_validation: int | None = None

    def __post_init__(self) -> None:
        if self.m < 1 or self.K < 1:
            raise DesignError(f"a design needs m >= 1 and K >= 1, got m = {self.m}, K = {self.K}")
        if self.n_validation is not None and self.n_validation < 1:
            raise DesignError(f"a hold-out set needs at least 1 record, got {self.n_validation}")

    @property
    def holdout_set(self) -> bool:
        """One hold-out set of ``n_validation`` records."""
        return self.n_validation is not None

    @property
    def label(self) -> str:
        """``"10×10 CV"``, ``"10-fold CV"``, ``"30 hold-out splits"``, ``"hold-out set of …"``."""
        if self.n_validation is not None:
            return f"hold-out set of {self.n_validation} records"
        if self.K == 1:
            return f"{self.m} hold-out splits"
        if self.m == 1:
            return f"{self.K}-fold CV"
        return f"{self.m}×{self.K} CV"

    @property
    def trainings(self) -> int:
        """Models trained per algorithm: ``m K`` (``J`` splits; 1 for a hold-out set)."""
        return 1 if self.n_validation is not None else self.m * self.K


def parse_design(value: Any) -> CandidateDesign:
    """A :class:`CandidateDesign` from ``"10x10"``, ``"5×2"``, ``(m, K)``, ``"hold-out 2000"``
    or ``"30 splits"``.

    Raises
    ------
    DesignError
        When the value names no design.
    """
    if isinstance(value, CandidateDesign):
        return value
    if isinstance(value, tuple) and len(value) == 2:
        try:
            m, k = (int(operator.index(v)) for v in value)
        except TypeError:
            raise DesignError(
                f"a design (m, K) is two integers, the replications and the folds, got {value!r}"
            ) from None
        return CandidateDesign(m, k)
    text = str(value).strip().lower()
    if match := re.fullmatch(r"(\d+)\s*[x×]\s*(\d+)(\s*cv)?", text):
        return CandidateDesign(int(match[1]), int(match[2]))
    if match := re.fullmatch(r"(\d+)[- ]?fold( cv)?", text):
        return CandidateDesign(1, int(match[1]))
    if match := re.fullmatch(r"hold-?out( set)?( of)?\s*(\d+)( records)?", text):
        return CandidateDesign(1, 1, int(match[3]))
    if match := re.fullmatch(r"(\d+)( hold-?out)? splits", text):
        return CandidateDesign(int(match[1]), 1)
    raise DesignError(
        f"cannot read {value!r} as a design; write 'MxK' (e.g. '10x10', '5x2'), 'K-fold', "
        "'J splits' (repeated hold-out) or 'hold-out N' (one hold-out set of N records)"
    )


def parse_designs(values: Any) -> list[CandidateDesign]:
    """The candidate designs of ``values``: an iterable of designs, or one text of designs
    separated by commas (``"10x10, 5x2"``, as on the command line).

    Raises
    ------
    DesignError
        When no design is named, or one names no design (:func:`parse_design`).

    Examples
    --------
    >>> [d.label for d in parse_designs("10x10, 5x2")] == [d.label for d in parse_designs(
    ...     ["10x10", (5, 2)])]
    True
    """
    if isinstance(values, str):
        values = [part for part in values.split(",") if part.strip()]
    elif isinstance(values, CandidateDesign) or (
        isinstance(values, tuple) and len(values) == 2 and all(isinstance(v, int) for v in values)
    ):
        values = [values]  # one design, (m, K)
    try:
        designs = [parse_design(value) for value in values]
    except TypeError:
        raise DesignError(
            f"designs must be a list of designs such as ['10x10', '5x2'], got {values!r}"
        ) from None
    if not designs:
        raise DesignError("designs is empty; name designs such as ['10x10', '5x2'] or leave it out")
    return designs


@dataclass(frozen=True)
class PlannedTest:
    """A test the plan computes the power of: its name, method of power and reference.

    Its :attr:`label` is the name the reports give it (the registry's ``method``),
    so that a test has one name everywhere. :attr:`compares` says which question
    its power answers: :data:`ALGORITHMS` when training sets and test records both
    vary (does algorithm A beat B when trained again on data of this kind), or
    :data:`TRAINED_MODELS` when one model per algorithm is trained once and the
    records of one test set are the only randomness (Dietterich 1998: McNemar's
    test ignores the variation of the training set).
    """

    name: str
    power_method: str
    reference: str
    applies: Callable[[CandidateDesign], bool]
    power: Callable[[float, VarianceComponents | float, CandidateDesign, float], float]
    compares: str = ALGORITHMS

    @property
    def label(self) -> str:
        """The test's name as the reports print it, e.g. "Alpaydın's combined 5×2cv F test"."""
        return get_spec(self.name).method


def _t_power(effect: float, vc: Any, design: CandidateDesign, alpha: float) -> float:
    return corrected_t_power(effect, vc, design.m, alpha=alpha)


def _combined_power(effect: float, vc: Any, design: CandidateDesign, alpha: float) -> float:
    return ftest_5x2_power(effect, vc, design.m, alpha=alpha)


def _calibrated_power(effect: float, vc: Any, design: CandidateDesign, alpha: float) -> float:
    df1 = float(round(calibrated_df1_mean(design.m)))
    return ftest_5x2_power(effect, vc, design.m, alpha=alpha, df1=df1)


def _mcnemar_power(effect: float, psi: Any, design: CandidateDesign, alpha: float) -> float:
    assert design.n_validation is not None
    return mcnemar_power(effect, float(psi), design.n_validation, alpha=alpha)


#: The tests planned, in the order the plan shows them.
PLANNED_TESTS: tuple[PlannedTest, ...] = (
    PlannedTest(
        "corrected_repeated_kfold_ttest",
        "noncentral t",
        REFERENCE_BOUCKAERT_FRANK,
        lambda d: not d.holdout_set and d.K >= 2 and d.m * d.K >= 2,
        _t_power,
    ),
    PlannedTest(
        "combined_ftest_5x2cv",
        "numerical integration",
        REF_ALPAYDIN,
        lambda d: not d.holdout_set and d.K == 2,
        _combined_power,
    ),
    PlannedTest(
        "calibrated_ftest_5x2cv",
        "numerical integration",
        REF_CALIBRATED,
        lambda d: not d.holdout_set and d.K == 2,
        _calibrated_power,
    ),
    PlannedTest(
        "corrected_resampled_ttest",
        "noncentral t",
        REFERENCE_NADEAU_BENGIO,
        lambda d: not d.holdout_set and d.K == 1 and d.m >= 2,
        _t_power,
    ),
    PlannedTest(
        "mcnemar",
        "exact binomial sums",
        REFERENCE_CONNOR,
        lambda d: d.holdout_set,
        _mcnemar_power,
        TRAINED_MODELS,
    ),
)
