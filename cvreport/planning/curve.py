"""Power against the number of replications: the numbers behind ``cvreport.power_curve``.

Examples
--------
>>> from cvreport.planning.components import VarianceComponents
>>> vc = VarianceComponents(within=0.0009, between=0.0, common=0.0001, K=10)
>>> frame = power_by_replications(vc, effect=0.03, folds=(10,), replications=(1, 10))
>>> frame[["design", "m", "power"]].round(3).values.tolist()
[['10-fold CV', 1, 0.493], ['10×10 CV', 10, 0.812]]
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from cvreport.errors import CVReportError, describe_keys
from cvreport.option_values import integer_option
from cvreport.planning.components import VarianceComponents
from cvreport.planning.designs import NULL_EFFECT, PLANNED_TESTS, CandidateDesign
from cvreport.planning.power import holds_level

__all__ = ["CURVE_COLUMNS", "power_by_replications"]

#: Columns of :func:`power_by_replications`.
CURVE_COLUMNS = ("test", "label", "K", "design", "m", "power", "type_i_error", "holds_level")


def power_by_replications(
    components: VarianceComponents,
    *,
    effect: float,
    alpha: float = 0.05,
    folds: Iterable[int] = (2, 5, 10),
    replications: Iterable[int] = range(1, 31),
    tests: Iterable[str] | None = None,
) -> pd.DataFrame:
    """The power of every planned test for each number of replications and folds.

    Parameters
    ----------
    components : VarianceComponents
        From :func:`~cvreport.planning.components.estimate_components` (carried to
        each fold count by :meth:`VarianceComponents.at`).
    effect, alpha : float
        The difference to detect and the two-sided level.
    folds : iterable of int
        Fold counts K (ignored for hold-out splits, whose K is 1).
    replications : iterable of int
        Replications m (splits J for hold-out splits).
    tests : iterable of str, optional
        Test names to draw (default: every test that applies).

    Returns
    -------
    pandas.DataFrame
        Columns ``test, label, K, design, m, power, type_i_error, holds_level``: the
        type I error is the test's rejection rate under the same model with no
        difference, and ``holds_level`` is False where it exceeds 1.5 α
        (:func:`~cvreport.planning.power.holds_level`).
    """
    ms = sorted({integer_option(m, "replications", "positive integers") for m in replications})
    if not ms or ms[0] < 1:
        raise CVReportError(f"replications must be positive integers, got {ms!r}")
    if components.K == 1:
        ks = [1]
    else:
        ks = sorted({integer_option(k, "folds", "integers of at least 2") for k in folds})
    if components.K >= 2 and (not ks or ks[0] < 2):
        raise CVReportError(f"folds must be integers of at least 2, got {ks!r}")
    wanted = None if tests is None else {tests} if isinstance(tests, str) else set(tests)
    drawn = [test.name for test in PLANNED_TESTS if test.name != "mcnemar"]
    unknown = sorted(set(wanted or ()) - set(drawn), key=str)
    if unknown:
        raise CVReportError(
            f"tests names {describe_keys(unknown)}, which the power curve does not draw; "
            f"choose among {describe_keys(drawn, 10)}"
        )
    rows = []
    for test in PLANNED_TESTS:
        if test.name == "mcnemar" or (wanted is not None and test.name not in wanted):
            continue
        for k in ks:
            at_k = components.at(k) if components.K >= 2 else components
            for m in ms:
                design = CandidateDesign(m, k)
                if not test.applies(design):
                    continue
                size = test.power(NULL_EFFECT, at_k, design, alpha)
                rows.append(
                    (
                        test.name,
                        test.label,
                        k,
                        design.label,
                        m,
                        test.power(effect, at_k, design, alpha),
                        size,
                        holds_level(size, alpha),
                    )
                )
    if not rows:
        raise CVReportError(
            "no planned test applies to these folds and replications; the corrected t tests "
            "need at least 2 splits, the 5×2cv F tests K = 2"
        )
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))
