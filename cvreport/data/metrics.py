"""Named classification metrics computed per fold from per-record predictions.

A metric is either a **mean of per-record values** (accuracy, 0/1 loss, log
loss, Brier score), whose record-level tests apply unchanged, or **not
decomposable** (F1, MCC, balanced accuracy, AUC, average precision), which is
computed once per (replication, fold, model) and tested on the folds, or on
one test set with DeLong's test or a paired resampling test.

Every value equals ``sklearn.metrics`` on the same fold; only the way it is
computed differs, so that a table of 10⁸ rows takes seconds:

* **confusion-count metrics** (accuracy, precision, recall, F1, balanced
  accuracy, MCC, Cohen's κ) are functions of the ``C × C`` confusion matrix,
  and the matrices of every (replication, fold, model) group come from one
  ``bincount`` over all rows;
* **rank metrics** (ROC AUC as the Mann–Whitney statistic with midranks,
  average precision as sklearn's step-wise sum) sort each group's scores once,
  all groups in one row-wise sort of a padded ``(groups, records)`` array of
  order-preserving integer keys, spread over the machine's cores
  (:mod:`cvreport.data.auc`, which holds cvreport's one AUC);
* **record means** are one weighted ``bincount``.

The positive class of a binary metric is ``pos_label``, by default the larger
of the two labels (1 of {0, 1}, True of {False, True}), as sklearn's
``roc_auc_score`` takes it and as its ``pos_label=1`` default does for 0/1 labels.

References
----------
Hanley, J. A. and McNeil, B. J. (1982). The meaning and use of the area under a
receiver operating characteristic (ROC) curve. Radiology 143(1):29–36.
Pedregosa, F. et al. (2011). Scikit-learn: machine learning in Python. JMLR 12:2825–2830.
"""

from __future__ import annotations

import inspect
import numbers
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from cvreport.data.auc import grouped_auc, order_keys, sorted_groups
from cvreport.data.metric import Metric, direction_from_name
from cvreport.errors import DataError, DegenerateStatisticWarning, describe_keys, user_stacklevel
from cvreport.spelling import on_command_line, option

__all__ = [
    "METRIC_RANGES",
    "NAMED_METRICS",
    "PROBABILITY_METRICS",
    "PROBABILITY_SUM_TOLERANCE",
    "MetricSpec",
    "check_metric_range",
    "check_predictions",
    "confusion_counts",
    "grouped_auc",
    "grouped_average_precision",
    "grouped_metric_values",
    "metric_names",
    "named_metric_range",
    "order_keys",
    "reader_name",
    "resolve_metric",
    "warn_hard_scores",
]

Kind = Literal["confusion", "rank", "record", "callable"]


@dataclass(frozen=True)
class MetricSpec:
    """A metric computed from per-record predictions.

    Attributes
    ----------
    metric : Metric
        Its name and direction (``"higher"`` for a score, ``"lower"`` for a loss).
    kind : {"confusion", "rank", "record", "callable"}
        How it is computed: from confusion counts, from sorted scores, as a mean
        of per-record values, or by a user function called once per fold.
    needs : {"prediction", "score"}
        Whether it reads predicted labels or scores (probabilities, decision values).
    binary_only : bool
        Whether it is defined for two classes only (``f1``, ``roc_auc``, ...).
    sklearn : str
        The ``sklearn.metrics`` call it equals.
    function : callable or None
        For ``kind="callable"``: ``function(y_true, y_pred_or_score) -> float``.
    """

    metric: Metric
    kind: Kind
    needs: Literal["prediction", "score"]
    binary_only: bool = False
    sklearn: str = ""
    function: Callable[..., float] | None = field(default=None, compare=False)

    @property
    def name(self) -> str:
        """The metric's name."""
        return self.metric.name

    @property
    def decomposable(self) -> bool:
        """Whether the metric is a mean of per-record values (record-level tests apply)."""
        return self.kind == "record"


def _spec(name: str, kind: Kind, needs: str, sklearn: str, binary: bool = False) -> MetricSpec:
    direction = direction_from_name(name)
    assert direction is not None, name
    return MetricSpec(Metric(name, direction), kind, needs, binary, sklearn)  # type: ignore[arg-type]


NAMED_METRICS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        _spec("accuracy", "record", "prediction", "accuracy_score"),
        _spec("zero_one_loss", "record", "prediction", "zero_one_loss"),
        _spec("log_loss", "record", "score", "log_loss"),
        _spec("brier_score_loss", "record", "score", "brier_score_loss"),
        _spec("balanced_accuracy", "confusion", "prediction", "balanced_accuracy_score"),
        _spec("matthews_corrcoef", "confusion", "prediction", "matthews_corrcoef"),
        _spec("kappa", "confusion", "prediction", "cohen_kappa_score"),
        _spec("f1", "confusion", "prediction", "f1_score(pos_label=...)", True),
        _spec("f1_macro", "confusion", "prediction", "f1_score(average='macro')"),
        _spec("f1_micro", "confusion", "prediction", "f1_score(average='micro')"),
        _spec("f1_weighted", "confusion", "prediction", "f1_score(average='weighted')"),
        _spec("precision", "confusion", "prediction", "precision_score(pos_label=...)", True),
        _spec("recall", "confusion", "prediction", "recall_score(pos_label=...)", True),
        _spec("roc_auc", "rank", "score", "roc_auc_score", True),
        _spec("roc_auc_ovr", "rank", "score", "roc_auc_score(multi_class='ovr')"),
        _spec("average_precision", "rank", "score", "average_precision_score", True),
    )
}
_ALIASES = {"cohen_kappa": "kappa", "mcc": "matthews_corrcoef", "auc": "roc_auc"}
for _word in ("precision", "recall"):
    for _avg in ("macro", "micro", "weighted"):
        _name = f"{_word}_{_avg}"
        NAMED_METRICS[_name] = MetricSpec(
            Metric(_name, "higher"),
            "confusion",
            "prediction",
            False,
            f"{_word}_score(average='{_avg}')",
        )


# how a sentence names each metric; the code name stays where the user types it
_READER_NAMES = {
    "accuracy": "accuracy",
    "zero_one_loss": "0/1 loss",
    "log_loss": "log loss",
    "brier_score_loss": "Brier score",
    "balanced_accuracy": "balanced accuracy",
    "matthews_corrcoef": "Matthews correlation coefficient",
    "kappa": "Cohen's kappa",
    "f1": "F1",
    "roc_auc": "AUC",
    "roc_auc_ovr": "one-vs-rest AUC",
    "average_precision": "average precision",
    **{
        f"{word}_{average}": f"{average} {'F1' if word == 'f1' else word}"
        for word in ("f1", "precision", "recall")
        for average in ("macro", "micro", "weighted")
    },
}


def reader_name(name: str) -> str:
    """How a sentence names a metric: ``"roc_auc"`` → ``"AUC"``; any other name as it is.

    Examples
    --------
    >>> reader_name("roc_auc"), reader_name("log_loss"), reader_name("f1_macro")
    ('AUC', 'log loss', 'macro F1')
    >>> reader_name("auc"), reader_name("val_error")
    ('AUC', 'val_error')
    """
    return _READER_NAMES.get(_ALIASES.get(name, name), name)


def metric_names() -> tuple[str, ...]:
    """The names :func:`resolve_metric` accepts, sorted.

    Examples
    --------
    >>> "roc_auc" in metric_names() and "f1_macro" in metric_names()
    True
    """
    return tuple(sorted(NAMED_METRICS))


# the values each named metric can take; a per-fold column of that name must lie in them
_CORRELATIONS = ("matthews_corrcoef", "kappa")
METRIC_RANGES: dict[str, tuple[float, float]] = {
    name: (-1.0, 1.0) if name in _CORRELATIONS else (0.0, np.inf if name == "log_loss" else 1.0)
    for name in NAMED_METRICS
}
# spellings of a column a per-fold score is found under: what cross-validation tools write
_COLUMN_SPELLINGS = {
    **_ALIASES,
    "auroc": "roc_auc",
    "acc": "accuracy",
    "error_rate": "zero_one_loss",
}
_COLUMN_PREFIXES = ("mean_test_", "test_", "val_", "valid_", "validation_", "eval_")
_RANGE_SLACK = 1e-9  # rounding of a mean of per-record values (an accuracy of 1 + 2e-16)


def named_metric_range(column: str) -> tuple[str, tuple[float, float]] | None:
    """The named metric a column of per-fold scores is called after, and its range.

    The column's name is read as a metric of :func:`metric_names` or one of its
    aliases, bare or after a prefix that cross-validation tools put before it
    (``test_roc_auc`` of scikit-learn's ``cross_validate``, ``val_accuracy``);
    any other name has no range (``None``).

    Examples
    --------
    >>> named_metric_range("test_roc_auc"), named_metric_range("MCC")
    (('roc_auc', (0.0, 1.0)), ('matthews_corrcoef', (-1.0, 1.0)))
    >>> named_metric_range("margin") is None
    True
    """
    lowered = str(column).strip().lower()
    candidates = [lowered] + [lowered[len(p) :] for p in _COLUMN_PREFIXES if lowered.startswith(p)]
    for candidate in candidates:
        name = _COLUMN_SPELLINGS.get(candidate, candidate)
        if name in METRIC_RANGES:
            return name, METRIC_RANGES[name]
    return None


def check_metric_range(values: np.ndarray, column: str, what: str) -> None:
    """Refuse per-fold scores outside the range of the metric their column is named after.

    An AUC of 85.3 is a percentage: read as a proportion it would make every
    difference 100 times too large and every Bayesian ROPE meaningless. The
    message says to divide by 100 when the values look like percentages, and
    how to keep values that are not that metric (a column of another name).

    Raises
    ------
    DataError
        When a value lies outside the metric's range.

    Examples
    --------
    >>> check_metric_range(np.array([0.81, 0.79]), "auc", "score 'auc'")
    >>> check_metric_range(np.array([81.0, 79.5]), "auc", "score 'auc'")
    Traceback (most recent call last):
    ...
    cvreport.errors.DataError: score 'auc' holds 2 of 2 values outside [0, 1], ...
    """
    known = named_metric_range(column)
    if known is None or values.size == 0:
        return
    name, (low, high) = known
    slack = _RANGE_SLACK * max(1.0, abs(low), abs(high) if np.isfinite(high) else 1.0)
    outside = (values < low - slack) | (values > high + slack)
    n_outside = int(np.count_nonzero(outside))
    if not n_outside:
        return
    shown = f"[{low:g}, {high:g}]" if np.isfinite(high) else f"[{low:g}, ∞)"
    extreme = values[outside][np.argmax(np.abs(values[outside]))]
    width = max(abs(low), abs(high))
    percentages = np.isfinite(high) and bool(
        np.all((values >= 100 * low - slack) & (values <= 100 * high + slack))
        and np.max(np.abs(values)) > 2 * width  # 1.02 is a wrong value, not a percentage
    )
    advice = (
        "they look like percentages: divide the column by 100"
        if percentages
        else "fix those values"
    )
    raise DataError(
        f"{what} holds {n_outside} of {values.size} values outside {shown}, the range of "
        f"{reader_name(name)} (e.g. {float(extreme):g}); {advice}. If the column holds "
        f"another quantity than {reader_name(name)}, give it a name that is not a metric's "
        f"(e.g. '{column}_points') and say which way is better with direction="
    )


def resolve_metric(
    metric: str | Callable[..., float] | MetricSpec,
    *,
    direction: str | None = None,
    needs: Literal["prediction", "score"] | None = None,
) -> MetricSpec:
    """The :class:`MetricSpec` of a sklearn metric name or of a callable.

    Parameters
    ----------
    metric : str, callable or MetricSpec
        A name of :func:`metric_names` (``"roc_auc"``, ``"f1_macro"``, ...; ``"auc"``,
        ``"mcc"`` and ``"cohen_kappa"`` are aliases), or a function
        ``(y_true, y_pred_or_score) -> float`` called once per fold.
    direction : {"lower", "higher"}, optional
        The direction of a callable; by default read from its name
        (:func:`~cvreport.data.metric.direction_from_name`).
    needs : {"prediction", "score"}, optional
        What a callable reads; by default scores when the table names them.

    Raises
    ------
    DataError
        An unknown name (the message lists the known ones), a callable that cannot
        be called with two arguments, or one whose direction its name does not tell.

    Examples
    --------
    >>> spec = resolve_metric("roc_auc")
    >>> spec.metric.direction, spec.kind, spec.decomposable
    ('higher', 'rank', False)
    >>> def top_k_regret(y, s): return 0.0
    >>> resolve_metric(top_k_regret).metric
    Metric(name='top_k_regret', direction='lower', unit='')
    """
    if isinstance(metric, MetricSpec):
        return metric
    if isinstance(metric, str):
        key = _ALIASES.get(metric.strip().lower(), metric.strip().lower())
        if key.startswith("neg_"):
            raise DataError(
                f"metric {metric!r} is a negated sklearn scorer; name the metric itself "
                f"({key[4:]!r}): cvreport knows each metric's direction"
            )
        if key not in NAMED_METRICS:
            or_function = (
                "" if on_command_line() else " or a function (y_true, y_pred_or_score) -> float"
            )
            raise DataError(
                f"unknown metric {metric!r}; use one of {describe_keys(metric_names(), 30)}"
                f"{or_function}"
            )
        return NAMED_METRICS[key]
    if callable(metric):
        name = getattr(metric, "__name__", type(metric).__name__)
        _check_signature(metric)
        chosen = direction or direction_from_name(name)
        if chosen is None:
            raise DataError(
                f"the name of metric function {name!r} does not say whether higher is "
                "better; pass direction='higher' (a score) or direction='lower' (a loss)"
            )
        return MetricSpec(
            Metric(name, chosen),  # type: ignore[arg-type]
            "callable",
            needs or "prediction",
            sklearn=f"{name}(y_true, y) per fold",
            function=metric,
        )
    raise DataError(
        f"metric must be a metric name or a function (y_true, y) -> float, got "
        f"{type(metric).__name__}"
    )


def function_name(function: Callable[..., Any]) -> str:
    """How a message names a metric function: its qualified name, else its type.

    Examples
    --------
    >>> from sklearn.metrics import roc_auc_score
    >>> function_name(roc_auc_score)
    'roc_auc_score'
    """
    return str(
        getattr(function, "__qualname__", None)
        or getattr(function, "__name__", None)
        or type(function).__name__
    )


def _check_signature(function: Callable[..., Any]) -> None:
    """Refuse a metric function that cannot be called as ``function(y_true, y)``."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # builtins without a signature: called and checked later
        return
    try:
        signature.bind(None, None)
    except TypeError:
        raise DataError(
            f"the metric function {function_name(function)!r} cannot be called as "
            f"{function_name(function)}(y_true, y_pred_or_score) (its signature is "
            f"{signature}); give a function of two arguments returning one number"
        ) from None


# ----------------------------------------------------------------------------- inputs checked

PROBABILITY_METRICS = frozenset({"log_loss", "brier_score_loss"})
"""Metrics that read probabilities: scores in [0, 1] (and rows summing to 1)."""

PROBABILITY_SUM_TOLERANCE = 1e-5
"""How far a row of class probabilities may sum from 1 (scikit-learn's ``np.allclose``)."""


def _label_text(labels: Sequence[Any] | None, code: int) -> str:
    return repr(labels[code]) if labels is not None and 0 <= code < len(labels) else str(code)


def _rows_message(positions: np.ndarray, row_names: Sequence[Any] | None) -> str:
    first = int(positions[0])
    where = row_names[first] if row_names is not None else first
    return f"{positions.size:,} row{'s' if positions.size != 1 else ''} (e.g. row {where!r})"


def _is_continuous(label: Any) -> bool:
    return (
        isinstance(label, (float, np.floating))
        and bool(np.isfinite(label))
        and not float(label).is_integer()
    )


def check_predictions(
    spec: MetricSpec,
    truth: np.ndarray,
    *,
    prediction: np.ndarray | None = None,
    scores: np.ndarray | None = None,
    labels: Sequence[Any] | None = None,
    score_names: Sequence[str] | None = None,
    truth_name: str = "truth",
    prediction_name: str = "prediction",
    row_names: Sequence[Any] | None = None,
    score_dtypes: Sequence[Any] = (),
) -> None:
    """Refuse predictions the metric cannot read, naming the column, the rows and the fix.

    * a metric of probabilities (:data:`PROBABILITY_METRICS`) refuses boolean scores
      (True/False): read as probabilities 0 and 1 they are hard predictions, and log
      loss turns each wrong one into −log(ε) ≈ 36; ranking metrics (AUC) take them;
    * a metric of probabilities (:data:`PROBABILITY_METRICS`, and ``roc_auc_ovr``
      on one column per class) needs scores in ``[0, 1]``;
    * one column per class must sum to 1 on every row, within
      :data:`PROBABILITY_SUM_TOLERANCE` (as ``sklearn.metrics`` requires of
      ``log_loss`` and of the multiclass ``roc_auc_score``);
    * class labels (``labels``, the values the codes stand for) must be labels:
      a non-integral number among them (``0.37``) is a score given where a label
      is expected.

    A function metric (``kind="callable"``) is checked by what it returns instead.

    Parameters
    ----------
    spec : MetricSpec
    truth : numpy.ndarray
        Class codes of the true labels.
    prediction, scores : numpy.ndarray, optional
        Predicted class codes; ``(n,)`` or ``(n, C)`` scores.
    labels : sequence, optional
        The class labels the codes index.
    score_names : sequence of str, optional
        The score columns, for the message (default "the scores").
    truth_name, prediction_name : str
        The truth and prediction columns, for the message.
    row_names : sequence, optional
        A name (index label) of each row, for the message.
    score_dtypes : sequence, optional
        The dtypes of the score columns as the data held them, when ``scores`` were
        converted to numbers before (a boolean column is refused by a probability metric).

    Raises
    ------
    DataError
        Naming the column, how many rows, an example row and the fix.

    Examples
    --------
    >>> check_predictions(NAMED_METRICS["log_loss"], np.array([0, 1]),
    ...                   scores=np.array([0.2, 1.7]), score_names=["p"])
    Traceback (most recent call last):
    ...
    cvreport.errors.DataError: log_loss reads probabilities, but column 'p' holds values ...
    >>> check_predictions(NAMED_METRICS["brier_score_loss"], np.array([0, 1]),
    ...                   scores=np.array([False, True]), score_names=["p"])
    Traceback (most recent call last):
    ...
    cvreport.errors.DataError: brier_score_loss reads probabilities, but column 'p' holds ...
    """
    if spec.kind == "callable":
        return
    if labels is not None:
        _check_labels(spec, truth, prediction, labels, truth_name, prediction_name, row_names)
    if scores is None or spec.needs != "score":
        return
    columns = list(score_names) if score_names is not None else []
    shown, holds = (
        (f"column {columns[0]!r}", "holds")
        if len(columns) == 1
        else (f"columns {describe_keys(columns)}", "hold")
        if columns
        else ("the scores", "hold")
    )
    if spec.name in PROBABILITY_METRICS and _boolean(scores, score_dtypes):
        raise DataError(
            f"{spec.name} reads probabilities, but {shown} {holds} True/False values, which "
            "would be read as probabilities 0 and 1: a probability metric needs "
            f"probabilities. Give the scores as probabilities (a column of predict_proba, "
            f"named with {option('score')}), or, for hard predictions, give them as predicted "
            f"labels (named with {option('prediction')}) with the metric 'accuracy' or "
            "'zero_one_loss' (the error)"
        )
    values = np.asarray(scores, dtype=np.float64)
    probabilities = spec.name in PROBABILITY_METRICS or (values.ndim == 2 and spec.kind == "rank")
    if not (probabilities and values.size):
        return
    # min and max first: no temporary arrays unless something is wrong
    if values.min() < 0.0 or values.max() > 1.0:
        outside = (values < 0.0) | (values > 1.0)
        if values.ndim == 2:
            outside = outside.any(axis=1)
        rows = np.flatnonzero(outside)
        raise DataError(
            f"{spec.name} reads probabilities, but {shown} {holds} values outside [0, 1] on "
            f"{_rows_message(rows, row_names)}: {np.round(values[rows[0]], 6).tolist()!r}. Give "
            "probabilities (e.g. predict_proba, or a sigmoid/softmax of decision values); "
            "decision values suit roc_auc or average_precision of two classes"
        )
    if values.ndim == 2:
        deviation = values.sum(axis=1)
        deviation -= 1.0
        np.abs(deviation, out=deviation)
        # as np.isclose(sums, 1, rtol=PROBABILITY_SUM_TOLERANCE, atol=1e-8)
        off = deviation > PROBABILITY_SUM_TOLERANCE + 1e-8
        if off.any():
            rows = np.flatnonzero(off)
            sums = values[rows[:1]].sum(axis=1)
            raise DataError(
                f"{spec.name} reads one probability per class, but the rows of {shown} do not "
                f"sum to 1 on {_rows_message(rows, row_names)}: "
                f"{np.round(values[rows[0]], 6).tolist()!r} sums to {sums[0]:.6g}. Give "
                "each class's probability (e.g. predict_proba), or divide each row by its sum"
            )


def warn_hard_scores(spec: MetricSpec, scores: Any, holder: str = "the scores") -> None:
    """Warn when a ranking metric (AUC, average precision) reads scores of two values only.

    Two values are hard predictions: their AUC is that of one threshold, the balanced
    accuracy (TPR + TNR) / 2, not a measure of how the model ranks the records. The
    number is right for what was given, so this is a warning, not an error. Called once
    where predictions enter (not per fold or per chunk); ``holder`` names what holds the
    scores ("column 'p'", "the scores of b").

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_hard_scores(NAMED_METRICS["roc_auc"], np.array([0, 1, 1, 0]), "column 'pred'")
    >>> " ".join(str(caught[0].message).split()[:13])
    "AUC ranks records by their scores, but column 'pred' holds only two values"
    """
    if scores is None or spec.kind != "rank":
        return
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 1 or values.size < 3:
        return
    low, high = values.min(), values.max()
    if np.count_nonzero((values != low) & (values != high)):
        return
    name = reader_name(spec.name)
    which = " (for AUC: the balanced accuracy, (TPR + TNR) / 2)" if spec.name == "roc_auc" else ""
    warnings.warn(
        f"{name} ranks records by their scores, but {holder} holds only two values ({low:g} and "
        f"{high:g}): hard predictions, whose {name} measures one threshold{which}, not how "
        "the model ranks the records. Give the predicted probabilities or decision values "
        "as the score (e.g. predict_proba), or compare hard predictions with "
        "the metric 'balanced_accuracy' or 'accuracy'",
        DegenerateStatisticWarning,
        stacklevel=user_stacklevel(),
    )


def _boolean(scores: Any, dtypes: Sequence[Any]) -> bool:
    """Whether scores are booleans: a boolean array, or columns whose dtype was boolean
    (numpy's ``bool``, pandas' ``boolean``) before they were converted to numbers."""
    if getattr(scores, "dtype", None) is not None and np.asarray(scores).dtype.kind == "b":
        return True
    return any(getattr(dtype, "kind", None) == "b" for dtype in dtypes)


def _check_labels(
    spec: MetricSpec,
    truth: np.ndarray,
    prediction: np.ndarray | None,
    labels: Sequence[Any],
    truth_name: str,
    prediction_name: str,
    row_names: Sequence[Any] | None,
) -> None:
    continuous = np.array([_is_continuous(label) for label in labels], dtype=bool)
    if not continuous.any():
        return
    for name, codes, role in (
        (truth_name, truth, "true labels"),
        (prediction_name, prediction, "predicted labels"),
    ):
        if codes is None or (spec.needs == "score" and role == "predicted labels"):
            continue
        codes = np.asarray(codes)
        rows = np.flatnonzero(continuous[np.clip(codes, 0, len(labels) - 1)] & (codes >= 0))
        if rows.size:
            fix = (
                f"name the probabilities with {option('score')} (e.g. for roc_auc, log_loss) "
                "or threshold them into labels"
                if role == "predicted labels"
                else "give the class of each record"
            )
            raise DataError(
                f"{spec.name} needs {role}, but column {name!r} holds numbers that are not "
                f"labels on {_rows_message(rows, row_names)}: "
                f"{_label_text(labels, int(codes[rows[0]]))} (a score or a measurement?); {fix}"
            )


def _metric_value(
    function: Callable[..., Any], y_true: np.ndarray, y: np.ndarray, group: Callable[[], str]
) -> float:
    """``function(y_true, y)`` as a finite float, or a DataError naming the function and fold."""
    name = function_name(function)
    try:
        value = function(y_true, y)
    except Exception as error:  # a user's function: any failure is reported, with its cause
        raise DataError(
            f"the metric function {name!r} raised {type(error).__name__} on {group()} "
            f"({' '.join(str(error).split())[:300]}); it is called with y_true (the labels) "
            "and the predictions or scores of the fold's records, as numpy arrays"
        ) from error
    scalar = value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        scalar = value.item()
    if isinstance(scalar, (bool, np.bool_)) or not isinstance(scalar, numbers.Real):
        got = (
            f"an array of shape {value.shape}"
            if isinstance(value, np.ndarray)
            else f"{type(value).__name__} {value!r}"[:200]
        )
        raise DataError(
            f"the metric function {name!r} returned {got} on {group()}; it must return one "
            "number (a float) per fold"
        )
    result = float(scalar)
    if not np.isfinite(result):
        raise DataError(
            f"the metric function {name!r} returned {result} on {group()}; it must return a "
            "finite number. Check the fold holds what the metric needs (e.g. both classes)"
        )
    return result


def _clean_labels(labels: Sequence[Any]) -> np.ndarray:
    """The labels as a plain numpy array (numbers as numbers, text as text) for a function."""
    items = list(labels)
    array = np.asarray(items) if items else np.asarray(items, dtype=np.int64)
    if array.dtype.kind in "biufU" and (
        array.dtype.kind != "U" or all(isinstance(item, str) for item in items)
    ):
        return array
    return np.asarray(items, dtype=object)


# ----------------------------------------------------------------------------- confusion counts


def confusion_counts(
    groups: np.ndarray, n_groups: int, truth: np.ndarray, prediction: np.ndarray, n_classes: int
) -> np.ndarray:
    """``(n_groups, C, C)`` int64 confusion matrices (rows truth, columns prediction) in one pass.

    Examples
    --------
    >>> confusion_counts(np.array([0, 0, 1]), 2, np.array([1, 0, 1]), np.array([1, 1, 0]), 2)[0]
    array([[0, 1],
           [0, 1]])
    """
    cells = (groups.astype(np.int64) * n_classes + truth) * n_classes + prediction
    counts = np.bincount(cells, minlength=n_groups * n_classes * n_classes)
    return counts.reshape(n_groups, n_classes, n_classes)


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with 0 where the denominator is 0 (sklearn's zero_division)."""
    out = np.zeros(np.broadcast_shapes(numerator.shape, denominator.shape))
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _average(values: np.ndarray, mask: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    if weights is None:
        return _divide((values * mask).sum(axis=-1), mask.sum(axis=-1).astype(np.float64))
    return _divide((values * weights).sum(axis=-1), weights.sum(axis=-1))


def _denominators(true_count: np.ndarray, pred_count: np.ndarray) -> dict[str, np.ndarray]:
    """Each class's denominator of precision, recall and F1 (F1's numerator is 2·TP)."""
    return {"precision": pred_count, "recall": true_count, "f1": true_count + pred_count}


def confusion_metric(name: str, counts: np.ndarray, positive: int = 1) -> np.ndarray:
    """A confusion-count metric of every matrix in ``counts`` (shape ``(..., C, C)``).

    Classes absent from a fold's truth and predictions are left out of macro
    averages, as sklearn does; a zero denominator counts 0 (sklearn's
    ``zero_division="warn"`` value), except MCC, which is 0 by definition then.

    Examples
    --------
    >>> counts = np.array([[5, 1], [2, 4]])              # rows: truth 0, 1
    >>> round(float(confusion_metric("f1", counts)), 6)    # 2·4 / (2·4 + 1 + 2)
    0.727273
    """
    c = np.asarray(counts, dtype=np.float64)
    tp = np.diagonal(c, axis1=-2, axis2=-1)
    true_count = c.sum(axis=-1)
    pred_count = c.sum(axis=-2)
    total = true_count.sum(axis=-1)
    present = (true_count + pred_count) > 0
    if name == "accuracy":
        return _divide(tp.sum(axis=-1), total)
    if name == "zero_one_loss":
        return 1.0 - _divide(tp.sum(axis=-1), total)
    if name == "balanced_accuracy":
        return _average(_divide(tp, true_count), true_count > 0, None)
    if name == "matthews_corrcoef":
        cov_tp = tp.sum(axis=-1) * total - (true_count * pred_count).sum(axis=-1)
        cov_pp = total**2 - (pred_count * pred_count).sum(axis=-1)
        cov_tt = total**2 - (true_count * true_count).sum(axis=-1)
        return _divide(cov_tp, np.sqrt(cov_tt * cov_pp))
    if name == "kappa":
        expected = pred_count[..., :, None] * true_count[..., None, :]
        expected = expected / total[..., None, None]
        off = 1.0 - np.eye(c.shape[-1])
        return 1.0 - (off * c).sum(axis=(-2, -1)) / (off * expected).sum(axis=(-2, -1))
    word, _, average = name.partition("_")
    denominators = _denominators(true_count, pred_count)
    if word not in denominators:
        raise DataError(f"{name!r} is not a confusion-count metric")
    numerator = 2.0 * tp if word == "f1" else tp
    if average == "micro":
        num = numerator.sum(axis=-1)
        return _divide(num, denominators[word].sum(axis=-1))
    per_class = _divide(numerator, denominators[word])
    if average == "":
        return per_class[..., positive]
    if average == "macro":
        return _average(per_class, present, None)
    return _average(per_class, present, true_count)


def undefined_confusion_groups(name: str, counts: np.ndarray, positive: int = 1) -> np.ndarray:
    """Which matrices of ``counts`` give ``name`` a zero denominator, so 0 by convention.

    Precision without a predicted positive, recall without a true positive, F1 with
    neither, a macro or weighted average over a class present in the fold but with
    such a zero, and MCC when the truth or the predictions hold one class only;
    empty matrices are left out (they have no value at all).

    >>> counts = np.array([[[3, 0], [0, 0]], [[2, 1], [1, 2]]])   # fold 1: no positive
    >>> undefined_confusion_groups("f1", counts).tolist()
    [True, False]
    """
    c = np.asarray(counts, dtype=np.float64)
    true_count, pred_count = c.sum(axis=-1), c.sum(axis=-2)
    total = true_count.sum(axis=-1)
    if name == "matthews_corrcoef":
        one_class = (true_count == total[..., None]).any(axis=-1)
        return (total > 0) & (one_class | (pred_count == total[..., None]).any(axis=-1))
    word, _, average = name.partition("_")
    denominators = _denominators(true_count, pred_count)
    if word not in denominators:
        return np.zeros(c.shape[:-2], dtype=bool)
    zero = denominators[word] == 0
    if average == "":
        return (total > 0) & zero[..., positive]
    if average == "micro":
        return np.zeros(c.shape[:-2], dtype=bool)  # every record counts: never 0/0 once non-empty
    present = (true_count + pred_count) > 0
    return (total > 0) & (zero & present).any(axis=-1)


_UNDEFINED_WHY = {
    "precision": "no record was predicted as the positive class {label}",
    "recall": "no record of the positive class {label} is in the truth",
    "f1": "no record of the positive class {label} is in the truth or the predictions",
}


def _warn_undefined(
    name: str,
    counts: np.ndarray,
    positive: int,
    describe_group: Callable[[int], str],
    labels: Sequence[Any] | None,
) -> None:
    """Warn, naming the folds, where a confusion metric is 0 by convention, not by the data."""
    undefined = np.flatnonzero(undefined_confusion_groups(name, counts, positive))
    if undefined.size == 0:
        return
    non_empty = int((np.asarray(counts).sum(axis=(-2, -1)) > 0).sum())
    shown = "; ".join(describe_group(int(g)) for g in undefined[:3])
    more = f"; and {undefined.size - 3} more" if undefined.size > 3 else ""
    word, _, average = name.partition("_")
    label = repr(list(labels)[positive]) if labels is not None else str(positive)
    if name == "matthews_corrcoef":
        why = "the truth or the predictions hold one class only"
    elif average:
        why = f"a class present in the fold has no {'predicted' if word == 'precision' else 'true'} record"
    else:
        why = _UNDEFINED_WHY[word].format(label=label)
    worst = "" if name == "matthews_corrcoef" else "the worst value it can take, "
    warnings.warn(
        f"{reader_name(name)} is undefined in {undefined.size} of the {non_empty} per-fold values "
        f"({shown}{more}): {why}. It counts as 0 there, as in scikit-learn: "
        f"{worst}not a missing value; check that the positive class and the folds "
        "are right, or choose a metric defined on every fold (accuracy, balanced accuracy).",
        DegenerateStatisticWarning,
        stacklevel=4,
    )


# ----------------------------------------------------------------------------- rank metrics


def grouped_average_precision(
    groups: np.ndarray, n_groups: int, positive: np.ndarray, scores: np.ndarray
) -> np.ndarray:
    """Average precision of every group, ``Σ (R_t − R_{t−1}) P_t`` over distinct thresholds.

    As ``sklearn.metrics.average_precision_score``: thresholds at the distinct
    scores, highest first; NaN for a group without positives.

    Examples
    --------
    >>> grouped_average_precision(np.zeros(4, int), 1, np.array([0, 0, 1, 1], bool),
    ...                           np.array([0.1, 0.4, 0.35, 0.8])).round(6).tolist()
    [0.833333]
    """
    keys, labels = sorted_groups(groups, n_groups, np.asarray(positive, dtype=np.int8), scores)
    keys, labels = keys[:, ::-1], labels[:, ::-1]  # highest score first, padding first
    true_pos = np.cumsum(labels == 1, axis=1, dtype=np.int64)
    false_pos = np.cumsum(labels == 0, axis=1, dtype=np.int64)
    ends = np.ones(keys.shape, dtype=bool)
    np.not_equal(keys[:, 1:], keys[:, :-1], out=ends[:, :-1])
    flat_ends = np.flatnonzero(ends.ravel())
    width = keys.shape[1]
    rows = flat_ends // width
    tps = true_pos.ravel()[flat_ends].astype(np.float64)
    fps = false_pos.ravel()[flat_ends].astype(np.float64)
    previous = np.empty_like(tps)
    previous[0:1] = 0.0
    previous[1:] = np.where(rows[1:] == rows[:-1], tps[:-1], 0.0)
    n_pos = true_pos[:, -1].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        step = (tps - previous) / n_pos[rows]
        precision = np.where(tps + fps > 0, tps / np.where(tps + fps > 0, tps + fps, 1), 0.0)
        total = np.bincount(
            rows, weights=np.where(step > 0, step * precision, 0.0), minlength=n_groups
        )
    return np.where(n_pos > 0, total, np.nan)


# ----------------------------------------------------------------------------- per-record values


def record_values(
    spec: MetricSpec,
    truth: np.ndarray,
    *,
    prediction: np.ndarray | None = None,
    scores: np.ndarray | None = None,
    positive: int = 1,
) -> np.ndarray:
    """Each record's contribution to a record-mean metric (its mean is the metric).

    ``truth`` and ``prediction`` are class codes; ``scores`` is ``(n,)`` for the
    positive class of a binary problem or ``(n, C)`` per class. Log loss clips
    probabilities to ``[ε, 1 − ε]`` (float64 ε) as sklearn does; the Brier score of
    ``C ≥ 3`` classes sums the squared errors over classes (sklearn's multiclass
    Brier score), of two classes it is ``(y − p)²``.

    Examples
    --------
    >>> record_values(NAMED_METRICS["brier_score_loss"], np.array([1, 0]),
    ...               scores=np.array([0.75, 0.5])).tolist()
    [0.0625, 0.25]
    """
    name = spec.name
    check_predictions(spec, truth, prediction=prediction, scores=scores)
    if name in ("accuracy", "zero_one_loss"):
        assert prediction is not None
        correct = (np.asarray(prediction) == np.asarray(truth)).astype(np.float64)
        return correct if name == "accuracy" else 1.0 - correct
    assert scores is not None
    p = np.asarray(scores, dtype=np.float64)
    if p.ndim == 1:
        hit = np.asarray(truth) == positive
        if name == "brier_score_loss":
            return (hit - p) ** 2
        p = np.column_stack([1.0 - p, p]) if positive == 1 else np.column_stack([p, 1.0 - p])
    onehot = np.zeros(p.shape)
    onehot[np.arange(p.shape[0]), np.asarray(truth)] = 1.0
    if name == "brier_score_loss":
        squared = ((onehot - p) ** 2).sum(axis=1)
        return squared / 2.0 if p.shape[1] < 3 else squared
    eps = np.finfo(np.float64).eps
    return -np.log(np.clip(p[np.arange(p.shape[0]), np.asarray(truth)], eps, 1.0 - eps))


# ----------------------------------------------------------------------------- every group at once


def grouped_metric_values(
    spec: MetricSpec,
    groups: np.ndarray,
    n_groups: int,
    truth: np.ndarray,
    n_classes: int,
    *,
    prediction: np.ndarray | None = None,
    scores: np.ndarray | None = None,
    positive: int = 1,
    labels: Sequence[Any] | None = None,
    describe_group: Callable[[int], str] | None = None,
) -> np.ndarray:
    """The metric of every group (e.g. every (replication, fold, model)) in one vectorised pass.

    Parameters
    ----------
    spec : MetricSpec
        From :func:`resolve_metric`.
    groups : numpy.ndarray
        Group code of each record.
    n_groups : int
    truth : numpy.ndarray
        Class code (0 … C − 1) of each record's true label.
    n_classes : int
        C.
    prediction : numpy.ndarray, optional
        Class code of each predicted label (for ``needs="prediction"``).
    scores : numpy.ndarray, optional
        ``(n,)`` score of the positive class, or ``(n, C)`` per class (``needs="score"``).
    positive : int
        Code of the positive class of a binary metric.
    labels : sequence, optional
        The class labels, handed to a callable metric in place of the codes (as a
        numeric or text numpy array, as scikit-learn's metrics expect).
    describe_group : callable, optional
        ``describe_group(g)`` names group ``g`` in a message (e.g. its fold).

    Returns
    -------
    numpy.ndarray
        ``(n_groups,)`` float64.

    Raises
    ------
    DataError
        Predictions the metric cannot read (:func:`check_predictions`), or a metric
        function that raises or returns other than one finite number (naming it
        and the group).

    Examples
    --------
    >>> g = np.array([0, 0, 0, 0, 1, 1, 1, 1]); y = np.array([0, 1, 1, 0, 1, 1, 0, 0])
    >>> yhat = np.array([0, 1, 0, 0, 1, 1, 1, 0])
    >>> grouped_metric_values(resolve_metric("f1"), g, 2, y, 2, prediction=yhat).round(6).tolist()
    [0.666667, 0.8]
    """
    groups = np.asarray(groups)
    truth = np.asarray(truth)
    check_predictions(spec, truth, prediction=prediction, scores=scores, labels=labels)
    if groups.dtype.kind not in "iu" or truth.dtype.kind not in "iu":
        groups, truth = groups.astype(np.int64), truth.astype(np.int64)
    if spec.kind == "confusion":
        assert prediction is not None
        counts = confusion_counts(groups, n_groups, truth, np.asarray(prediction), n_classes)
        if describe_group is not None:  # a table is being built: say where 0 is a convention
            _warn_undefined(spec.name, counts, positive, describe_group, labels)
        return confusion_metric(spec.name, counts, positive)
    if spec.kind == "record":
        values = record_values(spec, truth, prediction=prediction, scores=scores, positive=positive)
        sums = np.bincount(groups, weights=values, minlength=n_groups)
        return sums / np.bincount(groups, minlength=n_groups)
    if spec.kind == "rank":
        assert scores is not None
        s = np.asarray(scores, dtype=np.float64)
        compute = grouped_auc if spec.name.startswith("roc_auc") else grouped_average_precision
        if s.ndim == 1:
            values = compute(groups, n_groups, truth == positive, s)
        else:  # one-vs-rest: every (group, class) is a group of its own
            n = s.shape[0]
            classes = np.arange(n_classes)
            expanded = (groups.astype(np.int64)[:, None] * n_classes + classes).ravel()
            per_class = compute(
                expanded, n_groups * n_classes, (truth[:, None] == classes).ravel(), s.ravel()
            ).reshape(n_groups, n_classes)
            if np.isnan(per_class).any():
                return (
                    np.full(n_groups, np.nan)
                    if n == 0
                    else np.where(np.isnan(per_class).any(axis=1), np.nan, 0.0)
                )
            values = per_class.mean(axis=1)
            if spec.name.endswith("weighted"):
                support = np.bincount(
                    groups.astype(np.int64) * n_classes + truth, minlength=n_groups * n_classes
                )
                weights = support.reshape(n_groups, n_classes).astype(np.float64)
                values = (per_class * weights).sum(axis=1) / weights.sum(axis=1)
        return values
    assert spec.function is not None
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], np.arange(n_groups + 1))
    label_array = _clean_labels(labels) if labels is not None else None
    y_all = truth if label_array is None else label_array[truth]
    if spec.needs == "score":
        x_all = np.asarray(scores, dtype=np.float64)
    else:
        assert prediction is not None
        x_all = prediction if label_array is None else label_array[np.asarray(prediction)]
    out = np.empty(n_groups)
    for g in range(n_groups):
        rows = order[bounds[g] : bounds[g + 1]]
        out[g] = _metric_value(
            spec.function,
            y_all[rows],
            x_all[rows],
            lambda g=g: (
                describe_group(g)
                if describe_group is not None
                else f"group {g} of the records (a fold, or a fold of one resample)"
            ),
        )
    return out
