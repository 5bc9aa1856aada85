"""Which way is better for a results column: given, read from its name, or the documented default.

Every constructor of :class:`~cvreport.data.table.ResultsTable` takes one argument,
``direction="lower"`` (a loss: lower is better) or ``direction="higher"`` (a score:
higher is better), and the command line one flag, ``--direction lower|higher``.
:func:`resolve_metric` turns it, the column's name and its values into the
table's :class:`~cvreport.data.metric.Metric`:

1. a direction that contradicts the name (``direction="lower"`` for a column
   named ``accuracy``) is a :class:`~cvreport.errors.DataError` naming the column
   and the flag;
2. without a direction the name decides (:func:`~cvreport.data.metric.direction_from_name`;
   ``{a != b}`` is an error indicator, ``{a == b}`` a hit);
3. when the name says nothing either, the column is read as a loss
   (:data:`DEFAULT_DIRECTION`), and the report says so;
4. per-record 0/1 values whose every model's mean is above one half look like hits
   (accuracy): when neither a direction nor the name says which way is better, that
   is a ``DataError`` asking for the direction rather than a silent default. A
   direction given explicitly, or by the name, is trusted over the values (a
   ten-class problem may well have error rates above one half).

``higher_is_better`` is the former spelling, kept as a deprecated alias.

Examples
--------
>>> import numpy as np
>>> metric, how = resolve_metric("auc", np.array([0.9, 0.8]), per_record=False)
>>> metric, how
(Metric(name='auc', direction='higher', unit=''), 'by its name')
>>> how.words
"inferred from the metric's name"
>>> resolve_metric("auc", np.array([0.9]), direction="lower", per_record=False)
Traceback (most recent call last):
...
cvreport.errors.DataError: column 'auc' is named like a score (higher is better) but was declared a loss with direction='lower'; pass direction='higher' (--direction higher on the command line), or leave it out to let the name decide
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from cvreport.data.metric import Direction, Metric, direction_from_name
from cvreport.data.validation import is_binary
from cvreport.errors import DataError
from cvreport.option_values import bool_option
from cvreport.spelling import option

__all__ = [
    "DEFAULT_DIRECTION",
    "Provenance",
    "Setting",
    "check_direction",
    "name_direction",
    "resolve_metric",
]


class Provenance(StrEnum):
    """Where a setting of a table came from: given by the user, or inferred, and from what.

    A ``str`` whose value is the table's note (``table.direction_note``,
    ``table.test_train_ratio_note``), so notes written as plain text compare equal
    (and ``repr`` shows that note); :attr:`words` is what a report prints after the
    setting.

    Examples
    --------
    >>> Provenance.of("given").words, Provenance.NAME.words
    ('as given', "inferred from the metric's name")
    >>> Provenance.ERROR_MARK.words
    "inferred: '!=' marks a wrong prediction, an error"
    >>> Provenance.of("").inferred, Provenance.FOLD_SIZES.inferred
    (False, True)
    >>> Provenance.of("read from the file's header").words
    "inferred: read from the file's header"
    """

    GIVEN = "given"
    NAME = "by its name"
    METRIC = "the metric's own"
    ERROR_MARK = "'!=' marks a wrong prediction, an error"
    HIT_MARK = "'==' marks a right prediction, a hit"
    DEFAULT = (
        "the default: neither its name nor a direction said which way is better, so it "
        "is read as a loss; pass direction='higher' (--direction higher) if it is a score"
    )
    FOLD_SIZES = "inferred from the fold sizes"
    PREDICTIONS = "predictions give 0/1 errors"
    LARGER_LABEL = "the larger of the sorted class labels"

    def __repr__(self) -> str:
        return repr(self.value)

    @classmethod
    def _missing_(cls, value: object) -> Provenance | None:
        """Any other note is an inference explained by the note itself."""
        if not isinstance(value, str) or not value:
            return None
        member = str.__new__(cls, value)
        member._name_ = "INFERRED"
        member._value_ = value
        return member

    @classmethod
    def of(cls, note: str | None) -> Provenance:
        """The provenance a table's note names (no note: given)."""
        return cls.GIVEN if not note else cls(note)

    @property
    def inferred(self) -> bool:
        """Whether the setting was inferred rather than given."""
        return self is not Provenance.GIVEN

    @property
    def words(self) -> str:
        """What a report prints after the setting: "as given" or how it was inferred."""
        if self is Provenance.GIVEN:
            return "as given"
        if self in (Provenance.NAME, Provenance.METRIC):
            return "inferred from the metric's name"
        if self in (Provenance.DEFAULT, Provenance.FOLD_SIZES):
            return self.value
        return f"inferred: {self.value}"

    @property
    def assumed(self) -> bool:
        """Whether the setting was neither given nor inferred from anything: a default."""
        return self is Provenance.DEFAULT

    @property
    def row_words(self) -> str:
        """What a report's settings row prints after the setting; an assumption says so.

        >>> Provenance.DEFAULT.row_words[:50]
        'assumed, not given: neither its name nor a directi'
        >>> Provenance.NAME.row_words
        "inferred from the metric's name"
        """
        if self.assumed:
            return "assumed, not given: " + self.value.removeprefix("the default: ")
        return self.words


@dataclass(frozen=True)
class Setting:
    """One setting of an analysis (the direction, n2/n1, the positive class) and its provenance.

    >>> Setting("higher", Provenance.NAME).words
    "inferred from the metric's name"
    """

    value: Any
    source: Provenance = Provenance.GIVEN

    @property
    def words(self) -> str:
        """Where the value came from, in words."""
        return self.source.words

    @property
    def row_words(self) -> str:
        """Where the value came from, as a report's settings row says it ("assumed, ...")."""
        return self.source.row_words


DEFAULT_DIRECTION: Direction = "lower"
"""The direction of a column whose name says nothing and for which none was given: a loss."""

_COMPARISON = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9.]*)\s*(!=|==)\s*([A-Za-z_][A-Za-z_0-9.]*)\s*$")
_WORDS = {"lower": "a loss (lower is better)", "higher": "a score (higher is better)"}
_SHORT = {"lower": "a loss", "higher": "a score"}
_PLURAL = {"lower": "losses", "higher": "scores"}


def check_direction(direction: Any = None, higher_is_better: Any = None) -> Direction | None:
    """The direction asked for, from ``direction`` or the deprecated ``higher_is_better``.

    Raises
    ------
    DataError
        A direction other than ``"lower"``/``"higher"``, or the two arguments disagreeing.

    Examples
    --------
    >>> check_direction("higher"), check_direction(None)
    ('higher', None)
    """
    if direction is not None and direction not in ("lower", "higher"):
        raise DataError(
            f"direction is 'lower' (a loss: lower is better) or 'higher' (a score: higher is "
            f"better), got {direction!r}"
        )
    if higher_is_better is None:
        return direction
    warnings.warn(
        "higher_is_better is deprecated; pass direction='higher' or direction='lower'",
        DeprecationWarning,
        stacklevel=3,
    )
    alias: Direction = "higher" if bool_option(higher_is_better, "higher_is_better") else "lower"
    if direction is not None and direction != alias:
        raise DataError(
            f"direction={direction!r} and higher_is_better={higher_is_better!r} disagree; "
            "pass only direction"
        )
    return alias


def comparison_columns(expression: str) -> tuple[str, str, str] | None:
    """``(left, operator, right)`` when an expression compares two columns, e.g. ``y_pred != y``.

    >>> comparison_columns("y_pred != y_true"), comparison_columns("loss")
    (('y_pred', '!=', 'y_true'), None)
    """
    found = _COMPARISON.match(str(expression))
    return None if found is None else (found.group(1), found.group(2), found.group(3))


def name_direction(name: str) -> Direction | None:
    """The direction a column's name (or a formula's comparison) gives, if any."""
    compared = comparison_columns(name)
    if compared is not None:
        return "lower" if compared[1] == "!=" else "higher"
    return direction_from_name(name)


def _values_direction(model_means: np.ndarray | None, binary: bool) -> Direction | None:
    """What 0/1 per-record values say: every model right more often than not → hits."""
    if model_means is None or not binary or model_means.size == 0:
        return None
    if np.all(model_means > 0.5):
        return "higher"
    if np.all(model_means < 0.5):
        return "lower"
    return None


def resolve_metric(
    name: str,
    values: np.ndarray,
    *,
    direction: Direction | None = None,
    per_record: bool,
    model_means: np.ndarray | None = None,
    flag: str = "direction",
    binary: bool | None = None,
) -> tuple[Metric, Provenance]:
    """The metric of a results column and, in words, how its direction was decided.

    Parameters
    ----------
    name : str
        The column (or the formula's left side).
    values : numpy.ndarray
        Its values, as given (before any negation).
    direction : {"lower", "higher"} or None
        The direction the user gave (already checked by :func:`check_direction`).
    per_record : bool
        Per-record values (a 0/1 column is then an error or hit indicator).
    model_means : numpy.ndarray, optional
        Each model's mean value, for the check of 0/1 per-record values.
    flag : str
        The argument's name in error messages.
    binary : bool, optional
        Whether every value is 0 or 1, when the caller already knows (else it is checked).

    Returns
    -------
    metric : Metric
    how : Provenance
        Why this direction: given, by its name, what ``!=``/``==`` marks, or the default
        (a ``str`` whose value explains it).

    Raises
    ------
    DataError
        When the name or the values contradict the direction (see the module notes).
    """
    values = np.asarray(values, dtype=np.float64)
    if binary is None:
        binary = bool(values.size and is_binary(values))
    binary = per_record and binary
    by_name = name_direction(name)
    by_values = _values_direction(model_means, binary)
    if direction is not None:
        if by_name is not None and by_name != direction:
            raise DataError(
                f"column {name!r} is named like {_WORDS[by_name]} but was declared "
                f"{_SHORT[direction]} with {option(flag, direction)}; pass "
                f"{option(flag, by_name, aside=True)}, or leave it out to let the name decide"
            )
        chosen: Direction = direction
        how = Provenance.GIVEN
    elif by_name is not None:
        chosen, how = by_name, Provenance.NAME
        if comparison_columns(name) is not None:
            how = Provenance.ERROR_MARK if by_name == "lower" else Provenance.HIT_MARK
    else:
        chosen, how = DEFAULT_DIRECTION, Provenance.DEFAULT
        if by_values is not None and by_values != chosen:
            raise DataError(_values_message(name, chosen, by_values, flag))
    metric_name = str(name)
    unit = "proportion" if binary else ""
    compared = comparison_columns(name)
    generic = metric_name.lower() in ("loss", "error", "err", "errors", "misclassified")
    if binary and chosen == "lower" and (compared is not None or by_name is None or generic):
        metric_name = "error rate"
    elif binary and chosen == "higher" and compared is not None:
        metric_name = "accuracy"
    return Metric(metric_name, chosen, unit), how


def _values_message(name: str, told: str, seen: str, flag: str) -> str:
    why = "by default it is read as"
    evidence = (
        "every model's mean is above one half, as for hits (1 = correct)"
        if seen == "higher"
        else "every model's mean is below one half, as for errors (1 = wrong)"
    )
    return (
        f"column {name!r} holds 0/1 values that look like {_SHORT[seen]}: {evidence}, but "
        f"{why} {_SHORT[told]}; pass {option(flag, seen, aside=True)} if they are "
        f"{_PLURAL[seen]}, or "
        f"{option(flag, told)} if they really are {_PLURAL[told]}"
    )
