"""Typed errors and warnings raised by cvreport.

Every error is a :class:`CVReportError`, itself a :class:`ValueError`, so code
that already catches ``ValueError`` keeps working. Messages name the offending
columns or keys (the first few) and say how to fix the input.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

__all__ = [
    "ArgumentError",
    "AssumedDirectionWarning",
    "CVReportError",
    "DataError",
    "DegenerateStatisticWarning",
    "DesignError",
    "FormulaError",
    "IntervalUndefinedError",
    "PartitionWarning",
    "RepeatedPartitionWarning",
    "ReversedScoreWarning",
    "describe_keys",
    "user_stacklevel",
]


class CVReportError(ValueError):
    """Base class of every error cvreport raises on bad input."""


class FormulaError(CVReportError):
    """The formula does not have the shape ``loss ~ model | replication + fold``."""


class DataError(CVReportError):
    """The data cannot be read as a table of per-record losses."""


class DesignError(CVReportError):
    """The cross-validation design does not fit what was asked of it."""


class IntervalUndefinedError(CVReportError):
    """The method defines no confidence interval."""


class ArgumentError(CVReportError, TypeError):
    """A public function was called with a keyword it does not take, or too many arguments.

    Also a :class:`TypeError`, as Python's own error for such a call, so code that
    catches ``TypeError`` keeps working.
    """


class DegenerateStatisticWarning(UserWarning):
    """A statistic was degenerate (e.g. zero variance) and a convention was applied."""


class PartitionWarning(UserWarning):
    """The partitions do not satisfy an assumption of the method (e.g. balance)."""


class AssumedDirectionWarning(UserWarning):
    """Which way is better was neither given nor told by the metric's name, so it was assumed."""
class RepeatedPartitionWarning(PartitionWarning):
    """Some replications repeat another replication's partition instead of drawing a new one."""


class ReversedScoreWarning(UserWarning):
    """The scores look like another class's: every model ranks the records backwards."""


class UnusedOptionsWarning(UserWarning):
    """Options were given for a test that the report does not run, so they change nothing."""


def describe_keys(keys: Iterable[object], limit: int = 5) -> str:
    """Render the first ``limit`` keys of an iterable for an error message."""
    items = list(keys)
    shown = ", ".join(repr(k) for k in items[:limit])
    if len(items) > limit:
        shown += f", ... ({len(items)} in all)"
    return shown


def user_stacklevel() -> int:
    """The ``stacklevel`` at which a warning raised by the caller points at the user's code.

    Call it as ``warnings.warn(message, category, stacklevel=user_stacklevel())``: the
    warning then names the first frame outside the package, however deep the package's
    own calls run.
    """
    frame = sys._getframe(1)  # the function that calls warnings.warn: level 1
    level = 1
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith("cvreport."):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
