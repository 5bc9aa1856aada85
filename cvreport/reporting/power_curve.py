"""``cvreport.power_curve``: the planned power against replications, as an inline SVG figure.

The numbers come from :func:`cvreport.planning.curve.power_by_replications`
(statistics), the figure from :func:`cvreport.rendering.power_figure.power_figure`
(drawing); this module joins the two.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from cvreport.data.metrics import reader_name
from cvreport.errors import DesignError
from cvreport.methods.registry import get_spec
from cvreport.option_values import check_alpha
from cvreport.planning.components import (
    VarianceComponents,
    as_pilot_table,
    estimate_components,
)
from cvreport.planning.curve import power_by_replications
from cvreport.planning.power import SIZE_TOLERANCE, check_effect, check_power
from cvreport.rendering.power_figure import power_figure
from cvreport.rendering.writer import write_text

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["PowerCurve", "power_curve"]


@dataclass(frozen=True)
class PowerCurve:
    """The planned power against replications: its numbers and its figure.

    Attributes
    ----------
    svg : str
        The figure, inline ``<svg>`` markup (shown by notebooks).
    components : VarianceComponents
        The variance components the powers come from.
    effect, target, alpha : float
        The difference to detect, the wanted power and the two-sided level.
    """

    svg: str
    components: VarianceComponents
    effect: float
    target: float
    alpha: float
    frame: pd.DataFrame = field(compare=False, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The powers drawn: ``test, label, K, design, m, power, type_i_error, holds_level``."""
        return self.frame.copy()

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        return self.svg

    def save(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Write the figure as a standalone ``.svg`` file (atomically)."""
        return write_text(path, self.svg + "\n", overwrite=overwrite)


def power_curve(
    pilot_table: ResultsTable | VarianceComponents,
    a: Any = None,
    b: Any = None,
    *,
    effect: float,
    power: float = 0.8,
    alpha: float = 0.05,
    folds: Iterable[int] = (2, 5, 10),
    replications: Iterable[int] = range(1, 31),
    tests: Iterable[str] | None = None,
) -> PowerCurve:
    """The power of each planned test against the number of replications, as an SVG figure.

    The powers are those of :func:`cvreport.plan` (Nadeau & Bengio's 2003 variance
    model estimated from the pilot; noncentral t for the corrected t tests,
    numerical integration for the 5×2cv F tests), one line per test and fold count.

    Parameters
    ----------
    pilot_table : ResultsTable or VarianceComponents
        The pilot (or components already estimated, or known).
    a, b : model labels
        The two models (default: the table's only two).
    effect : float
        The difference to detect, in the metric's units (> 0).
    power : float
        The wanted power, drawn as a dashed line.
    alpha : float
        Two-sided significance level.
    folds : iterable of int
        Fold counts K to draw (hold-out splits have K = 1 whatever this says).
    replications : iterable of int
        Replications on the horizontal axis.
    tests : iterable of str, optional
        Tests to draw (default every planned test that applies).

    Returns
    -------
    PowerCurve
        ``.svg`` (also shown in notebooks), ``.to_frame()``, ``.save(path)``.

    Raises
    ------
    CVReportError
        ``effect <= 0``, ``power`` or ``alpha`` outside (0, 1), or no test applies.
    DataError, DesignError
        As :func:`cvreport.plan` for a pilot that cannot estimate a variance, or a fold
        count above the pilot's number of records.

    References
    ----------
    Nadeau & Bengio (2003), Machine Learning 52(3):239–281; Bouckaert & Frank (2004).

    Examples
    --------
    >>> import cvreport
    >>> pilot = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> curve = cvreport.power_curve(pilot, "logistic_regression", "decision_tree",
    ...                              effect=0.05, replications=range(1, 11))
    >>> curve.svg.startswith("<svg"), sorted(curve.to_frame().K.unique().tolist())
    (True, [2, 5, 10])
    """
    effect = check_effect(effect)
    target = check_power(power)
    alpha = check_alpha(alpha)
    measure = None
    folds = tuple(folds)  # read once: checked against the pilot, then drawn
    if isinstance(pilot_table, VarianceComponents):
        components = pilot_table
    else:
        table = as_pilot_table(pilot_table)
        components = estimate_components(table, *table.resolve_pair(a, b))
        measure = reader_name(table.metric.name)
        # as cvreport.plan: the within variance is scaled to folds of n/K records, so a
        # fold needs at least one of the pilot's records
        n_records = table.design.n_records
        too_many = [k for k in folds if isinstance(k, Integral) and n_records and k > n_records]
        if too_many:
            raise DesignError(
                f"{max(too_many)}-fold cross-validation needs at least {max(too_many)} records "
                f"(one per fold), but the pilot's data set holds {n_records}; draw at most "
                f"{n_records} folds"
            )
    frame = power_by_replications(
        components,
        effect=effect,
        alpha=alpha,
        folds=folds,
        replications=replications,
        tests=tests,
    )
    # each test by the name a report gives it
    frame["label"] = [get_spec(name).method for name in frame["test"]]
    svg = power_figure(
        frame, target=target, effect=effect, size_tolerance=SIZE_TOLERANCE, measure=measure
    )
    return PowerCurve(
        svg=svg, components=components, effect=effect, target=target, alpha=alpha, frame=frame
    )
