"""Ranks of models across data sets (Demšar 2006, §3.2.2).

On every data set the models are ranked by their summary score, 1 = best in the
metric's direction, ties sharing the average of the ranks they span. The
average rank of a model over the N data sets is what the Friedman test, the
Nemenyi critical difference and the CD diagram use.

Scores equal to twelve decimal places are ties (of their unit: see
:func:`tie_rounded`): a mean of fold scores computed in two orders can differ in
the last bit, and such noise must not break a tie.

References
----------
Demšar, J. (2006). Statistical comparisons of classifiers over multiple data
sets. Journal of Machine Learning Research 7:1–30.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.metric import Direction
from cvreport.data.validation import check_magnitude
from cvreport.errors import DataError, describe_keys

__all__ = ["TIE_DECIMALS", "average_ranks", "rank_scores", "score_matrix", "tie_rounded"]

TIE_DECIMALS = 12
"""Scores (and differences of scores) equal to this many decimals count as ties."""


def tie_rounded(values: Any, scale: float | None = None) -> np.ndarray:
    """``values`` rounded to :data:`TIE_DECIMALS` decimals of the scores' unit, for ties.

    The unit is 1 for scores whose largest magnitude (``scale``, by default that of
    ``values``) lies in [0.001, 1000), so accuracies and AUCs round to twelve
    decimals; beyond, it is the power of ten of the largest magnitude, so that
    losses of 1e-20 keep their differences instead of all rounding to a tie at 0
    and scores of 1e300 do not overflow to NaN.

    Examples
    --------
    >>> tie_rounded([0.1 + 0.2, 0.3]).tolist()
    [0.3, 0.3]
    >>> tie_rounded([1e-20, 2e-20, 2e-20 + 1e-36]).tolist()
    [1e-20, 2e-20, 2e-20]
    """
    x = np.asarray(values, dtype=np.float64)
    largest = (float(np.max(np.abs(x))) if x.size else 0.0) if scale is None else scale
    if not (0 < largest < math.inf) or 1e-3 <= largest < 1e3:
        return np.round(x, TIE_DECIMALS)
    unit = 10.0 ** math.floor(math.log10(largest))
    return np.round(x / unit, TIE_DECIMALS) * unit


def _check_direction(direction: Any) -> Direction:
    if direction not in ("lower", "higher"):
        raise DataError(
            f"direction must be 'lower' (a loss: lower is better) or 'higher' (a score), "
            f"got {direction!r}"
        )
    return direction


def score_matrix(scores: Any, *, what: str = "scores") -> pd.DataFrame:
    """Check a data sets × models table of summary scores and return it as floats.

    Parameters
    ----------
    scores : pandas.DataFrame or array-like
        One row per data set, one column per model.
    what : str
        How the error messages name the table.

    Raises
    ------
    DataError
        Fewer than two models or two data sets, a missing, infinite or
        non-numeric score (the message names the data set and the model), or
        scores whose squares overflow or underflow float64.

    Examples
    --------
    >>> score_matrix([[0.9, 0.8], [0.7, 0.75]]).shape
    (2, 2)
    """
    frame = scores.copy() if isinstance(scores, pd.DataFrame) else pd.DataFrame(scores)
    if frame.ndim != 2 or frame.shape[1] < 2:
        raise DataError(
            f"the {what} must have one column per model and at least two models, "
            f"got {frame.shape[1] if frame.ndim == 2 else 0} column(s)"
        )
    if frame.shape[0] < 2:
        raise DataError(
            f"the {what} must have one row per data set and at least two data sets, "
            f"got {frame.shape[0]}"
        )
    if frame.columns.has_duplicates:
        repeated = frame.columns[frame.columns.duplicated()].unique()
        raise DataError(f"the {what} name model {describe_keys(list(repeated))} more than once")
    _refuse_unreadable_labels(frame, what)
    text = [
        column
        for column, dtype in frame.dtypes.items()
        if pd.api.types.is_string_dtype(dtype)
        and frame[column].map(lambda value: isinstance(value, (str, bytes))).any()
    ]
    if text:
        example = next(v for v in frame[text[0]] if isinstance(v, (str, bytes)))
        raise DataError(
            f"the {what} must be numbers, but the scores of {describe_keys(text)} are text "
            f"(e.g. {example!r}); convert it first, e.g. scores = scores.apply(pd.to_numeric)"
        )
    try:
        numeric = all(pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes)
        values = (frame if numeric else frame.apply(pd.to_numeric)).astype(float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"the {what} must be numbers ({exc})") from None
    bad = ~np.isfinite(values.to_numpy())
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise DataError(
            f"the {what} hold {bad.sum()} missing or infinite value(s), the first on data set "
            f"{values.index[row]!r} for model {values.columns[col]!r}; every model needs a "
            "score on every data set"
        )
    # scores whose squares leave float64 would give Hedges' g of 0 or NaN without a word
    check_magnitude(values.to_numpy().ravel(), f"the table of {what}", tiny=True)
    return values


def _refuse_unreadable_labels(frame: pd.DataFrame, what: str) -> None:
    """Data sets named twice, a model named by the empty text, models whose names read alike.

    The long-format tables refuse the same labels (:mod:`cvreport.data.labels`).
    """
    if frame.index.has_duplicates:
        repeated = frame.index[frame.index.duplicated()].unique()
        raise DataError(
            f"the {what} name data set {describe_keys(list(repeated))} on more than one row; "
            "give every data set one row with its own name (scores.reset_index(drop=True) "
            "numbers the rows afresh when they have no names)"
        )
    if any(isinstance(c, str) and c == "" for c in frame.columns):
        raise DataError(
            f"the {what} name a model by the empty text (''): a report could not name that "
            "model; give every model a name"
        )
    shown = pd.Series([str(c) for c in frame.columns])
    alike = shown.duplicated(keep=False).to_numpy()
    if alike.any():
        first = shown[alike].iloc[0]
        models = [c for c, text in zip(frame.columns, shown, strict=True) if text == first]
        raise DataError(
            f"the {what} name models of different types that read the same "
            f"({describe_keys(models)}): a report would show them, and a file would read them "
            "back, as one model; give the column names one type, e.g. "
            "scores.columns = scores.columns.map(str)"
        )


def rank_scores(scores: Any, direction: Direction) -> pd.DataFrame:
    """Rank the models on every data set: 1 = best, ties get the average rank.

    Parameters
    ----------
    scores : pandas.DataFrame or array-like
        Data sets × models summary scores.
    direction : {"lower", "higher"}
        ``"lower"`` when lower is better (a loss), ``"higher"`` for a score.

    Returns
    -------
    pandas.DataFrame
        The ranks, shaped like ``scores``.

    Examples
    --------
    >>> rank_scores([[0.9, 0.8, 0.8], [0.6, 0.7, 0.5]], "higher").to_numpy().tolist()
    [[1.0, 2.5, 2.5], [2.0, 1.0, 3.0]]
    """
    from scipy.stats import rankdata

    _check_direction(direction)
    values = score_matrix(scores)
    rounded = tie_rounded(values.to_numpy())
    keyed = -rounded if direction == "higher" else rounded
    ranks = rankdata(keyed, method="average", axis=1)
    return pd.DataFrame(ranks, index=values.index, columns=values.columns)


def average_ranks(scores: Any, direction: Direction) -> pd.Series:
    """Average rank of every model over the data sets (Demšar's ``R_j``).

    Examples
    --------
    >>> average_ranks([[0.9, 0.8, 0.8], [0.6, 0.7, 0.5]], "higher").tolist()
    [1.5, 1.75, 2.75]
    """
    return rank_scores(scores, direction).mean(axis=0).rename("average rank")
