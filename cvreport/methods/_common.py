"""Plumbing shared by the test functions.

Three layers meet here:

* **kernels** work on numpy arrays with arbitrary leading batch dimensions and
  apply the degenerate-data conventions of docs/methods.md elementwise, reporting
  what they did as an integer code per element (never a warning, never NaN);
* **builders** (a spec's ``build``) turn one kernel outcome into a result object and
  explain any degenerate code in words;
* **the run path** (:mod:`cvreport.methods.run`) pulls arrays from a
  :class:`~cvreport.data.table.ResultsTable`, checks the design and fills in models,
  design and loss name with :func:`finish_result`.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

import numpy as np
import pandas as pd
from scipy import special

from cvreport.data.validation import check_magnitude
from cvreport.errors import (
    DataError,
    DegenerateStatisticWarning,
    PartitionWarning,
    describe_keys,
    user_stacklevel,
)
from cvreport.partitions.balance import balance_verdict
from cvreport.results import (
    MARGIN_ALTERNATIVES,
    TestResult,
    TTestResult,
    check_alternative,
    mirrored_alternative,
)

if TYPE_CHECKING:
    from cvreport.data.sufficient import FoldStatistics
    from cvreport.data.table import ResultsTable

__all__ = [
    "NONZERO_OVER_ZERO",
    "NO_DEGREES_OF_FREEDOM",
    "NO_DISCORDANT",
    "OK",
    "ZERO_OVER_ZERO",
    "ZERO_SPREAD_RTOL",
    "TKernel",
    "apply_degenerate_pvalue",
    "as_array",
    "check_counts",
    "chi2_sf",
    "describe_degenerate",
    "emit_partition_warnings",
    "emit_warnings",
    "finish_result",
    "kernel_fields",
    "loss_alternative",
    "normal_pvalue",
    "pair_statistics",
    "partition_balance",
    "refuse_masked",
    "safe_ratio",
    "sorted_contingency",
    "t_kernel",
    "t_pvalue",
    "t_result",
    "zero_spread",
]

# Degenerate-data codes returned elementwise by the kernels (docs/methods.md).
OK = 0
ZERO_OVER_ZERO = 1  #: variance 0 and numerator 0: statistic 0, p = 1
NONZERO_OVER_ZERO = 2  #: variance 0, numerator non-zero: statistic ±inf, p = 0 (or 1 against it)
NO_DEGREES_OF_FREEDOM = 3  #: a single fold: no variance estimate; statistic 0, p = 1
NO_DISCORDANT = 4  #: McNemar with b + c = 0: statistic 0, p = 1

R = TypeVar("R", bound=TestResult)
T = TypeVar("T", bound="TTestResult")


# -- input handling ------------------------------------------------------------
def pair_statistics(
    table: ResultsTable, a: Any = None, b: Any = None
) -> tuple[tuple[Any, Any], FoldStatistics]:
    """Models A and B of ``table`` and their per-fold statistics (what a spec's ``inputs`` reads)."""
    first, second = table.resolve_pair(a, b)
    models = list(table.models)
    return (first, second), table.stats.pair(models.index(first), models.index(second))


def as_array(
    values: Any,
    name: str,
    *,
    ndim: int | None = None,
    last: int | None = None,
    min_size: int = 1,
) -> np.ndarray:
    """A finite float64 array from user input, or a :class:`DataError` that says what is wrong.

    Refused in words: text, True/False (a mask or a 0/1 indicator is no count and
    no difference), complex numbers, a set (it has no order and drops repeats), a
    masked array with masked values (float64 would use the hidden values), ragged
    lists and non-finite values. An iterator is read once, in its order.
    """
    if isinstance(values, set | frozenset | dict):
        kind = "mapping" if isinstance(values, dict) else "set"
        raise DataError(
            f"{name} must be a list or array of numbers, got a {kind} (it has no order and "
            f"a set drops repeated values); pass a list in the order of the folds or records"
        )
    if isinstance(values, Iterator):
        values = list(values)
    refuse_masked(values, name)
    boolean = _first_of(values, (bool, np.bool_), "b")
    if boolean is not None:
        raise DataError(
            f"{name} must be numbers, got True/False (e.g. {boolean!r}); a mask or a 0/1 "
            "indicator is not read as a number here: count it first (e.g. "
            "numpy.count_nonzero(mask)) or convert it on purpose (numpy.asarray(x, dtype=float))"
        )
    try:
        complex_values = np.iscomplexobj(values)
    except (TypeError, ValueError):  # ragged input: float64 conversion says what is wrong
        complex_values = False
    if complex_values:  # float64 would drop the imaginary parts silently
        raise DataError(f"{name} must be real numbers, got complex values")
    text = _first_of(values, (str, bytes), "US")
    if text is not None:  # float64 would read '0.1' as 0.1 here and refuse it elsewhere
        raise DataError(
            f"{name} must be numbers, got the text {text!r}; convert it first (float(...), "
            "numpy.asarray(..., dtype=float) or pandas.to_numeric)"
        )
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        reason = " ".join(str(exc).split(". ")[:1])
        raise DataError(
            f"{name} must be numbers in a flat list or an array of one shape, got "
            f"{_shown(values)} ({reason})"
        ) from None
    if ndim is not None and array.ndim != ndim:
        raise DataError(f"{name} must be a {ndim}-dimensional array, got shape {array.shape}")
    if last is not None and (array.ndim == 0 or array.shape[-1] != last):
        raise DataError(f"{name} must have {last} columns (one per fold), got shape {array.shape}")
    if array.size < min_size:
        raise DataError(f"{name} needs at least {min_size} value(s), got {array.size}")
    if not np.all(np.isfinite(array)):
        bad = np.argwhere(~np.isfinite(array))
        raise DataError(
            f"{name} holds non-finite values at positions "
            f"{describe_keys(tuple(int(i) for i in idx) for idx in bad)}; "
            "drop or fill the missing folds first"
        )
    # as a table's losses: sums of squares stay finite (the kernels give degenerate small
    # values their documented conventions)
    check_magnitude(array.reshape(-1), name)
    return array


def refuse_masked(values: Any, name: str) -> None:
    """Raise :class:`DataError` for a masked array with masked values, which numpy would read
    with the values under the mask (labels, scores, clusters and folds as well as numbers).

    >>> refuse_masked(np.ma.masked_array([1.0, 2.0], mask=[False, False]), "scores")
    >>> refuse_masked(np.ma.masked_array([1.0, 2.0], mask=[False, True]), "scores")
    Traceback (most recent call last):
    ...
    cvreport.errors.DataError: scores is a masked array with 1 masked value(s); ...
    """
    if isinstance(values, np.ma.MaskedArray) and np.ma.is_masked(values):
        raise DataError(
            f"{name} is a masked array with {int(np.ma.count_masked(values))} masked value(s); "
            "numpy would use the values under the mask: drop them first "
            "(values.compressed()) or fill them (values.filled(...))"
        )


def _shown(values: Any) -> str:
    text = repr(values)
    return text if len(text) <= 60 else text[:57] + "..."


def _first_of(values: Any, types: tuple[type, ...], kinds: str) -> Any:
    """The first item of one of ``types`` in ``values`` (a scalar, a sequence or an array)
    as a plain Python value, or None; ``kinds`` are the dtype kinds that hold such items."""
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    if isinstance(values, types):
        found = values
    elif kind is not None and kind in kinds:
        found = np.asarray(values).flat[0] if np.size(values) else None
    elif kind not in (None, "O") or isinstance(values, str | bytes):
        return None  # a numeric array, or text where True/False is looked for
    else:
        try:
            items = np.asarray(values, dtype=object).ravel()
        except (TypeError, ValueError):  # ragged input: float64 conversion says what is wrong
            return None
        found = next((item for item in items if isinstance(item, types)), None)
    return found.item() if isinstance(found, np.generic) else found  # np.str_ shown as str


# -- vectorised arithmetic (kernels) -------------------------------------------
def safe_ratio(numerator: Any, denominator: Any) -> tuple[np.ndarray, np.ndarray]:
    """``numerator / denominator`` with docs/methods.md's conventions for a zero denominator.

    Returns the ratio and an int8 code per element: :data:`OK`,
    :data:`ZERO_OVER_ZERO` (ratio 0) or :data:`NONZERO_OVER_ZERO` (ratio ±inf).
    Never emits a numpy warning.

    >>> ratio, code = safe_ratio([1.0, 0.0, -2.0], [2.0, 0.0, 0.0])
    >>> ratio.tolist(), code.tolist()
    ([0.5, 0.0, -inf], [0, 1, 2])
    """
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    zero = den == 0
    ratio = num / np.where(zero, 1.0, den)
    ratio = np.where(zero, np.where(num == 0, 0.0, np.copysign(np.inf, num)), ratio)
    code = np.where(zero, np.where(num == 0, ZERO_OVER_ZERO, NONZERO_OVER_ZERO), OK)
    return ratio, code.astype(np.int8)


def t_pvalue(statistic: Any, df: Any, alternative: str = "two-sided") -> np.ndarray:
    """p-value of a Student t statistic (``"less"``: lower tail, ``"greater"``: upper tail).

    >>> float(t_pvalue(2.570582, 5).round(4))
    0.05
    """
    t = np.asarray(statistic, dtype=np.float64)
    if alternative == "two-sided":
        p = 2.0 * special.stdtr(df, -np.abs(t))
    elif alternative == "greater":
        p = special.stdtr(df, -t)
    elif alternative == "less":
        p = special.stdtr(df, t)
    else:
        check_alternative(alternative)
        raise AssertionError  # pragma: no cover
    return np.minimum(p, 1.0)


def chi2_sf(statistic: Any, df: float) -> np.ndarray:
    """Upper tail of χ²(df); for df = 1 through erfc(sqrt(x/2)), some 50 times faster than chdtrc.

    >>> float(chi2_sf(3.841459, 1).round(6))
    0.05
    """
    x = np.asarray(statistic, dtype=np.float64)
    if df == 1:
        return special.erfc(np.sqrt(x / 2.0))
    return special.chdtrc(float(df), x)


def normal_pvalue(statistic: Any, alternative: str) -> np.ndarray:
    """p-value of a standard-normal statistic, elementwise ("less": the lower tail).

    >>> normal_pvalue([-1.959964, 0.0], "two-sided").round(6).tolist()
    [0.05, 1.0]
    """
    z = np.asarray(statistic, dtype=np.float64)
    if alternative == "two-sided":
        return np.minimum(1.0, 2.0 * special.ndtr(-np.abs(z)))
    if alternative == "less":
        return np.asarray(special.ndtr(z), dtype=np.float64)
    check_alternative(alternative)
    return np.asarray(special.ndtr(-z), dtype=np.float64)


def apply_degenerate_pvalue(pvalue: np.ndarray, code: np.ndarray) -> np.ndarray:
    """Set p = 1 where the kernel found no information (0/0, no df, no discordant records)."""
    uninformative = (
        (code == ZERO_OVER_ZERO) | (code == NO_DEGREES_OF_FREEDOM) | (code == NO_DISCORDANT)
    )
    return np.where(uninformative, 1.0, pvalue)


class TKernel(NamedTuple):
    """Outcome of a vectorised t kernel; every array has the batch shape.

    ``statistic = center / standard_error`` ~ t(``df``); ``degenerate`` holds the
    codes of docs/methods.md (:data:`OK`, :data:`ZERO_OVER_ZERO`,
    :data:`NONZERO_OVER_ZERO`, :data:`NO_DEGREES_OF_FREEDOM`).
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    df: float
    center: np.ndarray
    standard_error: np.ndarray
    degenerate: np.ndarray


def t_kernel(center: Any, standard_error: Any, df: float, alternative: str) -> TKernel:
    """``center / standard_error`` ~ t(df) with the degenerate conventions applied elementwise."""
    center = np.asarray(center, dtype=np.float64)
    standard_error = np.asarray(standard_error, dtype=np.float64)
    if df <= 0:
        shape = np.broadcast_shapes(center.shape, standard_error.shape)
        code = np.full(shape, NO_DEGREES_OF_FREEDOM, dtype=np.int8)
        return TKernel(np.zeros(shape), np.ones(shape), float(df), center, standard_error, code)
    statistic, code = safe_ratio(center, standard_error)
    pvalue = apply_degenerate_pvalue(t_pvalue(statistic, df, alternative), code)
    return TKernel(statistic, pvalue, float(df), center, standard_error, code)


#: Values whose spread is at most this fraction of their largest magnitude count as identical.
ZERO_SPREAD_RTOL = 1e-12


def zero_spread(values: np.ndarray) -> np.ndarray:
    """Whether all values along the last axis are identical up to rounding (variance then 0).

    Rounding can leave a variance of 1e-35 where every value is equal: per-fold
    scores 0.8 − 0.7 and 0.5 − 0.4 give 0.10000000000000009 and
    0.09999999999999998. Values within :data:`ZERO_SPREAD_RTOL` of each other,
    relative to the largest of them, count as identical, so the kernels apply
    docs/methods.md instead of returning a t of 1e15.

    >>> zero_spread(np.array([[0.8 - 0.7, 0.5 - 0.4], [0.1, 0.1000001]])).tolist()
    [True, False]
    """
    values = np.asarray(values, dtype=np.float64)
    scale = np.max(np.abs(values), axis=-1, keepdims=True)
    return np.all(np.abs(values - values[..., :1]) <= ZERO_SPREAD_RTOL * scale, axis=-1)


# -- words for degenerate codes --------------------------------------------------
def describe_degenerate(code: int, *, numerator: str, denominator: str) -> tuple[str, ...]:
    """The warning text for one kernel code (empty when the statistic is regular)."""
    code = int(code)
    if code == ZERO_OVER_ZERO:
        return (
            f"{denominator} is 0 and {numerator} is 0 too: the models never differ here; "
            "by convention statistic = 0 and p = 1. The test carries no information "
            "about variability.",
        )
    if code == NONZERO_OVER_ZERO:
        return (
            f"{denominator} is 0 but {numerator} is not: a non-zero difference with zero "
            "estimated variance; by convention statistic = ±inf and p = 0 (p = 1 for a "
            "one-sided alternative pointing the other way). The test carries no information "
            "about variability here, so do not read the p-value as strong evidence.",
        )
    if code == NO_DEGREES_OF_FREEDOM:
        return (
            "a single fold leaves no degrees of freedom to estimate the variance; "
            "by convention statistic = 0 and p = 1 (no evidence either way).",
        )
    if code == NO_DISCORDANT:
        return (
            "no discordant records (b + c = 0): the models err on exactly the same records; "
            "by convention statistic = 0 and p = 1.",
        )
    return ()


def emit_warnings(messages: Iterable[str], stacklevel: int | None = None) -> None:
    """Emit each degenerate-statistic message as a :class:`DegenerateStatisticWarning`,
    pointing at the user's call unless ``stacklevel`` says otherwise."""
    level = user_stacklevel() if stacklevel is None else stacklevel
    for message in messages:
        warnings.warn(message, DegenerateStatisticWarning, stacklevel=level)


def emit_partition_warnings(messages: Iterable[str], stacklevel: int | None = None) -> None:
    """Emit each partition message as a :class:`PartitionWarning`, pointing at the user's
    call unless ``stacklevel`` says otherwise."""
    level = user_stacklevel() if stacklevel is None else stacklevel
    for message in messages:
        warnings.warn(message, PartitionWarning, stacklevel=level)


# -- the table level -------------------------------------------------------------
def loss_alternative(table: ResultsTable, alternative: str) -> str:
    """The alternative on the table's internal losses for the user's ``alternative``.

    The user's alternative is about metric(A) − metric(B); a score is tested as a
    negated loss, so its "greater" (A scored higher) is the loss's "less".
    "equivalent" and "non-inferior" keep their words: "A is not worse than B" reads
    the same on the score and on its negated loss (see :mod:`cvreport.methods.equivalence`).
    """
    if alternative in MARGIN_ALTERNATIVES:
        return alternative
    check_alternative(alternative)
    return mirrored_alternative(alternative) if table.higher_is_better else alternative


def metric_name(table: ResultsTable) -> str:
    """The table's metric as its report names it: ``"error rate"`` for ``{yhat != y}`` or a
    0/1 column ``loss``, else the column or metric name (``table.loss_name``)."""
    metric = getattr(table, "metric", None)
    return str(getattr(metric, "name", None) or table.loss_name)


def finish_result(
    result: R,
    table: ResultsTable,
    models: tuple[Any, Any] | None,
    *,
    nobs: int | None = None,
    extra_warnings: tuple[str, ...] = (),
    extra_notes: tuple[str, ...] = (),
) -> R:
    """Fill models, design (its sentence and its kind) and metric into an array-level result.

    The result was computed on the internal losses.

    For a score (``table.higher_is_better``) the result is turned into the score's
    own units and direction (:meth:`~cvreport.results.TestResult._negated`): its
    estimate and interval are score(A) − score(B), its alternative is about
    them. Run the test with :func:`loss_alternative` of the user's alternative.
    A one-model test (``models=None``) keeps its error rate: for 0/1 hits the
    internal loss is the error 1 − hit, not a negated score.
    """
    score = bool(table.higher_is_better)
    if score and models is not None:
        result = result._negated()
    one_model_of_hits = score and models is None
    changes: dict[str, Any] = {
        "design": table.design.describe(),
        "design_kind": table.design.kind,
        "loss_name": "error rate" if one_model_of_hits else metric_name(table),
        "direction": "higher" if score and not one_model_of_hits else "lower",
        "notes": tuple(result.notes) + tuple(extra_notes),
        "warnings": tuple(result.warnings) + tuple(extra_warnings),
    }
    if models is not None:
        changes["models"] = (str(models[0]), str(models[1]))
    if nobs is not None:
        changes["nobs"] = nobs
    return dataclasses.replace(result, **changes)


def partition_balance(table: ResultsTable) -> tuple[bool | None, str]:
    """Whether the m×2 partitions are balanced: the one verdict of :mod:`cvreport.partitions.audit`.

    The calibrated F, the blocked 3×2 t and the BCV McNemar test derive their
    distributions from balanced (block-regularized) partitions (Wang, Li & Li (2017) §2.2,
    Yang et al. §4). Returns ``(True | False | None, explanation)``; ``None`` when the
    table holds per-fold scores and the partitions cannot be seen.
    """
    return balance_verdict(table)


# -- a generic t result ------------------------------------------------------------
class NamedTest(Protocol):
    """What a result reads of its test's spec (a :class:`~cvreport.methods.spec.TestSpec`)."""

    @property
    def name(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def reference(self) -> str: ...


def t_result(
    result: type[T],
    spec: NamedTest,
    kernel: TKernel,
    alternative: str,
    *,
    numerator: str,
    denominator: str,
    **fields: Any,
) -> T:
    """The result of one t kernel outcome, named by its test's spec.

    Statistic, p-value, df, centre and standard error come from ``kernel``;
    method, test name and reference from ``spec``; a degenerate code becomes a
    warning in words about ``numerator`` and ``denominator``. ``fields`` fills
    the rest (estimate, nobs, design, notes, the result class's own fields).
    """
    return result(
        **kernel_fields(spec, kernel, alternative, numerator=numerator, denominator=denominator),
        df=kernel.df,
        center=float(kernel.center),
        standard_error=float(kernel.standard_error),
        **fields,
    )


def check_counts(values: Any, name: str) -> np.ndarray:
    array = as_array(values, name)
    if np.any(array < 0):
        raise DataError(f"{name} must be non-negative counts, got {array.tolist()}")
    if np.any(array != np.round(array)):
        raise DataError(
            f"{name} must be whole counts of records, got {array.tolist()}; count the records "
            "on which the models disagree"
        )
    return array


def sorted_contingency(table: ResultsTable, a: Any, b: Any, test: str) -> pd.DataFrame:
    table.require_per_record(test)
    table.require_binary(test)
    frame = table.contingency(a, b)
    return frame.sort_values(["replication", "fold"], kind="stable").reset_index(drop=True)


def kernel_fields(
    spec: NamedTest,
    kernel: Any,
    alternative: str,
    *,
    numerator: str | None = None,
    denominator: str = "",
) -> dict[str, Any]:
    """The result fields one kernel outcome and its test's spec give, for any result class.

    Statistic and p-value from ``kernel``; method, test name and reference from
    ``spec``; with ``numerator``, a degenerate code in words about ``numerator``
    and ``denominator`` (:func:`describe_degenerate`) as the warnings.
    """
    fields: dict[str, Any] = {
        "statistic": float(kernel.statistic),
        "pvalue": float(kernel.pvalue),
        "alternative": alternative,
        "method": spec.method,
        "test": spec.name,
        "reference": spec.reference,
    }
    if numerator is not None:
        fields["warnings"] = describe_degenerate(
            int(kernel.degenerate), numerator=numerator, denominator=denominator
        )
    return fields
