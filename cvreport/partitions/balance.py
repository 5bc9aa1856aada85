"""Whether m×2 partitions are balanced: one verdict for the tests, the audit and the report.

The calibrated F, the blocked 3×2 t and the BCV McNemar test derive their
distributions from balanced (block-regularized) partitions; their warnings, the
overlap audit and the report's recommendation all read :func:`balance_verdict`,
which takes the audit's verdict, so they never disagree.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from cvreport.errors import DesignError
from cvreport.partitions.audit import audit_overlap
from cvreport.rendering.formatting import format_number

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["balance_verdict"]


_VERDICT_CACHE: weakref.WeakKeyDictionary[Any, tuple[bool | None, str]]
_VERDICT_CACHE = weakref.WeakKeyDictionary()


def balance_verdict(table: ResultsTable) -> tuple[bool | None, str]:
    """Whether the partitions are balanced: the one verdict the tests, the audit and the report use.

    Balanced means :func:`audit_overlap`'s ``verdict == "balanced"`` (balanced or
    block-regularized partitions). The explanation quotes ``Z_max``, the largest
    ``Z = |X − E X|`` over pairs of replications (Wang, Li & Li 2015), as the audit's
    table does. Returns ``(True | False | None, explanation)``, ``None`` for per-fold
    scores whose partitions cannot be seen; computed once per table.

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example("bcv"))
    >>> balance_verdict(table)[0]
    True
    """
    try:
        return _VERDICT_CACHE[table]
    except (KeyError, TypeError):
        pass
    verdict = _balance_verdict(table)
    try:
        _VERDICT_CACHE[table] = verdict
    except TypeError:  # a table type that cannot be weakly referenced
        pass
    return verdict


def _balance_verdict(table: ResultsTable) -> tuple[bool | None, str]:
    if not table.has_records:
        return None, (
            "the partitions cannot be checked from per-fold scores; the test's reference "
            "distribution assumes balanced (block-regularized) partitions"
        )
    if table.design.m < 2:
        return True, "a single replication: nothing to balance"
    try:
        audit = audit_overlap(table)
    except DesignError as exc:
        return False, f"the partitions cannot be audited ({exc}), so they cannot be called balanced"
    z_text = f"{audit.z_max:g}" if float(audit.z_max).is_integer() else format_number(audit.z_max)
    if audit.verdict == "balanced":
        return True, (
            f"balanced partitions ({audit.design}): Z_max = {z_text}, the largest |X − E X| "
            "over pairs of replications"
        )
    return False, (
        f"the partitions are not balanced ({audit.design}): two replications' training sets "
        f"share up to Z_max = {z_text} records more or fewer than expected (Z = |X − E X|, "
        "Wang, Li & Li 2015). The test's reference distribution assumes balanced or "
        "block-regularized partitions (cvreport.splits); with random partitions prefer "
        "Alpaydın's combined 5×2cv F test"
    )
