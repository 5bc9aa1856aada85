"""What a results column measures: its name, its unit and which way is better.

A :class:`Metric` is carried by every :class:`~cvreport.data.table.ResultsTable`.
Tests work internally on losses (lower is better); a score is negated on the
way in and every number a reader sees is turned back into the user's metric
with :meth:`Metric.from_loss_difference`, so negation never reaches a report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from cvreport.errors import DataError

__all__ = ["Direction", "Metric", "direction_from_name"]

Direction = Literal["lower", "higher"]

# Words that, as a whole word of a column or metric name, say which way is better.
_SCORE_WORDS = frozenset(
    {
        "accuracy",
        "acc",
        "auc",
        "roc_auc",
        "auroc",
        "auprc",
        "average_precision",
        "ap",
        "f1",
        "f1_macro",
        "f1_micro",
        "f1_weighted",
        "fscore",
        "precision",
        "recall",
        "sensitivity",
        "specificity",
        "balanced_accuracy",
        "mcc",
        "matthews_corrcoef",
        "kappa",
        "r2",
        "score",
        "correct",
        "hit",
        "hits",
        "bleu",
        "rouge",
        "jaccard",
        "iou",
        "dice",
        "top1",
        "top5",
    }
)
_LOSS_WORDS = frozenset(
    {
        "loss",
        "error",
        "err",
        "error_rate",
        "errors",
        "misclassified",
        "mistake",
        "incorrect",
        "wrong",
        "log_loss",
        "logloss",
        "brier",
        "brier_score_loss",
        "mse",
        "rmse",
        "mae",
        "hinge",
        "zero_one",
        "zero_one_loss",
        "cross_entropy",
        "nll",
        "perplexity",
        "regret",
        "cost",
        "risk",
        "miss",
    }
)


def direction_from_name(name: str) -> Direction | None:
    """Which way is better for a metric, as its name says, or ``None`` if it does not say.

    The whole name is looked up first (``"error_rate"``, ``"roc_auc"``), then each
    of its words split at non-letters and camel case (``"val_accuracy"`` → ``accuracy``).
    A name holding both a score word and a loss word (``"accuracy_loss"``) says nothing.

    Parameters
    ----------
    name : str
        A column or metric name.

    Returns
    -------
    {"lower", "higher"} or None

    Examples
    --------
    >>> direction_from_name("val_accuracy"), direction_from_name("logLoss"), direction_from_name("y")
    ('higher', 'lower', None)
    """
    lowered = str(name).strip().lower()
    if lowered in _SCORE_WORDS:
        return "higher"
    if lowered in _LOSS_WORDS:
        return "lower"
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", str(name)).lower()
    words = {w for w in re.split(r"[^a-z0-9]+", spaced) if w}
    score, loss = bool(words & _SCORE_WORDS), bool(words & _LOSS_WORDS)
    if score and not loss:
        return "higher"
    if loss and not score:
        return "lower"
    return None


@dataclass(frozen=True)
class Metric:
    """A metric: its name, its unit and its direction.

    Parameters
    ----------
    name : str
        What the reader calls it, e.g. ``"error rate"``, ``"accuracy"``, ``"auc"``.
    direction : {"lower", "higher"}
        ``"lower"`` for a loss (lower is better), ``"higher"`` for a score.
    unit : str, optional
        The unit values are in, e.g. ``"proportion"``; empty when there is none.

    Raises
    ------
    DataError
        If ``direction`` is neither ``"lower"`` nor ``"higher"``.

    Examples
    --------
    >>> auc = Metric("auc", "higher")
    >>> auc.higher_is_better, auc.better_word, auc.from_loss_difference(-0.02)
    (True, 'higher', 0.02)
    """

    name: str
    direction: Direction
    unit: str = ""

    def __post_init__(self) -> None:
        if self.direction not in ("lower", "higher"):
            raise DataError(
                f"a metric's direction is 'lower' (a loss) or 'higher' (a score), "
                f"not {self.direction!r}"
            )

    @property
    def higher_is_better(self) -> bool:
        """``True`` for a score, ``False`` for a loss."""
        return self.direction == "higher"

    @property
    def sign(self) -> int:
        """``-1`` for a score (negated into a loss internally), ``+1`` for a loss."""
        return -1 if self.higher_is_better else 1

    @property
    def better_word(self) -> str:
        """``"higher"`` or ``"lower"``: the comparative a sentence uses for the better model."""
        return self.direction

    def from_loss_difference(self, value: float) -> float:
        """Turn a difference of internal losses (A − B) into the metric's A − B."""
        return self.sign * value
