"""The roles of a results table's columns, resolved once from a formula or from keywords.

Every constructor of :class:`~cvreport.data.table.ResultsTable` and
:class:`~cvreport.data.datasets.DatasetsTable` starts here: the formula or the
keywords become one :class:`Roles` value — the outcome (a loss column or
expression, one score per fold, 0/1 errors of predicted labels, or a metric
computed from predictions), the model, the replication and fold blocks, the
record, the cluster and the direction — whatever holds the rows. A backend
(:mod:`cvreport.data.backends`) then reads the columns the roles name.

Examples
--------
>>> roles = Roles.from_formula("{pred != y} ~ clf | split + fold", record="id")
>>> roles.outcome, roles.response, roles.model, roles.replication, roles.fold
('loss', 'pred != y', 'clf', 'split', 'fold')
>>> Roles.from_formula("roc_auc(y, proba) ~ clf | fold").outcome
'metric'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from cvreport.data.direction import check_direction
from cvreport.data.formula import (
    ParsedFormula,
    parse_formula,
    split_cluster_term,
    with_cluster_term,
)
from cvreport.data.metric import Direction, Metric
from cvreport.data.metrics import MetricSpec, resolve_metric
from cvreport.errors import DataError
from cvreport.option_values import bool_option
from cvreport.spelling import option

__all__ = ["HOW_TO_NAME", "MetricCall", "Outcome", "Roles", "metric_call", "per_fold_metric_error"]

Outcome = Literal["loss", "fold_score", "predictions", "metric"]
"""What a table's values are: per-record losses (a column or a formula's expression),
one score per fold, 0/1 errors of predicted labels, or a metric from predictions."""

HOW_TO_NAME = (
    "Name the columns with the keywords (loss=, model=, replication=, fold=, record=) or a "
    "formula such as 'loss ~ model | replication + fold'."
)
_PREDICTED = ("predictions", "metric")  # outcomes read from predictions and the truth
_HOW_TO_NAME_PREDICTIONS = (
    "Name the columns with truth=, prediction= (labels) or score= (probabilities), model=, "
    "replication=, fold= and record=."
)
# predictions of one test set have no replication or fold column to name
_ONE_HOLD_OUT_SET = "; for one hold-out set pass replication=None, fold=None."


def _require_record(record: Any) -> None:
    """Refuse ``record=None``: per-record values are paired across models by their record."""
    if record is None:
        raise DataError(
            "record=None, but per-record values need the column of record ids (the same id "
            "for a record in every model's rows, so that the models are compared record by "
            "record); name it with record=..., or, for one score per fold, use per_fold=True "
            "or ResultsTable.from_fold_scores"
        )


def _require_names(**columns: Any) -> None:
    """Refuse ``None`` for a role every table needs (a model, a truth, a per-fold score).

    ``model=None`` would otherwise be looked up as a column named None and reported
    as "model column None holds only 1" or as keys "None=1".
    """
    for role, column in columns.items():
        if column is None:
            raise DataError(
                f"{role}=None, but every table needs its {role} column; name it with "
                f"{role}='...' (a column of the data)"
            )


def _score_names(score: Any) -> str | Sequence[str] | Mapping[Any, str] | None:
    """``score=`` as a column, a tuple of columns in the class order, or a mapping.

    A set has no order, so its columns would meet the classes in an arbitrary
    order (an AUC of the wrong class); an iterator is read once, here.
    """
    if isinstance(score, set | frozenset):
        raise DataError(
            f"score={sorted(map(str, score))} is a set, which has no order, so its columns "
            "cannot be matched to the classes; give a list in the sorted class order or a "
            "mapping {label: column}"
        )
    if score is None or isinstance(score, str | Mapping):
        return score
    try:
        return tuple(score)
    except TypeError:
        return score  # the column check names it


@dataclass(frozen=True)
class Roles:
    """Which column plays which part, and what the values are.

    Attributes
    ----------
    outcome : {"loss", "fold_score", "predictions", "metric"}
        What the values are (see :data:`Outcome`).
    model, replication, fold, record : str or None
        The key columns; ``record`` is ``None`` for per-fold scores.
    response : str or None
        The loss or score column, or a formula's left side (an expression).
    parsed : ParsedFormula or None
        The formula's parts, when the table is built from a formula.
    one_block : bool
        A formula with a single block: the fold of one run, or the replication of
        repeated hold-out when a record is scored in several of its groups (the
        backend looks).
    truth, prediction, score, metric, pos_label
        The predictions' columns and the metric (as given), for predictions.
    cluster : str or None
        A column of clusters of records.
    dataset : str or None
        The data set column, for many data sets.
    direction : {"lower", "higher"} or None
        Which way is better, as given.
    test_train_ratio : float or None
        Validation size over training size, for per-fold scores.
    formula : str or None
        The formula as the table shows it (with its cluster term).
    """

    outcome: Outcome
    model: str
    replication: str | None
    fold: str | None
    record: str | None
    response: str | None = None
    parsed: ParsedFormula | None = None
    one_block: bool = False
    truth: str | None = None
    prediction: str | None = None
    score: str | Sequence[str] | Mapping[Any, str] | None = None
    metric: str | Callable[..., float] | MetricSpec | None = None
    pos_label: Any = None
    cluster: str | None = None
    dataset: str | None = None
    direction: Direction | None = None
    test_train_ratio: float | None = None
    formula: str | None = None
    named: Mapping[str, str | None] = field(default_factory=dict)

    # ------------------------------------------------------------------ resolution

    @classmethod
    def of_losses(
        cls,
        *,
        loss: str,
        model: str,
        replication: str | None,
        fold: str | None,
        record: str,
        direction: Direction | None = None,
        cluster: str | None = None,
    ) -> Roles:
        """Per-record losses named by keywords (:class:`~cvreport.data.table.ResultsTable`)."""
        _require_record(record)
        named = {
            "loss": loss,
            "model": model,
            "replication": replication,
            "fold": fold,
            "record": record,
            "cluster": cluster,
        }
        return cls(
            "loss",
            model,
            replication,
            fold,
            record,
            response=loss,
            direction=check_direction(direction),
            cluster=cluster,
            named=named,
        )

    @classmethod
    def from_formula(
        cls,
        formula: str,
        *,
        record: str = "record",
        per_fold: bool = False,
        direction: Direction | None = None,
        higher_is_better: bool | None = None,
        test_train_ratio: float | None = None,
        cluster: str | None = None,
    ) -> Roles:
        """The roles a formula names (see :meth:`ResultsTable.from_formula
        <cvreport.data.table.ResultsTable.from_formula>`).

        Raises
        ------
        FormulaError
            The formula does not have the shape ``loss ~ model | replication + fold``.
        DataError
            A cluster with per-fold scores; a metric of predictions read as per-fold scores.
        """
        per_fold = bool_option(per_fold, "per_fold")
        given = formula
        formula, named_cluster = split_cluster_term(formula)
        cluster = named_cluster or cluster
        if cluster is not None and named_cluster is None:
            given = with_cluster_term(given, cluster)  # the table's formula names every role
        if cluster is not None and per_fold:
            raise DataError(
                f"cluster {cluster!r} groups records, but {option('per_fold', True)} gives one "
                "score per fold and no records to group; give the per-record results to use "
                "clusters, or leave the cluster out"
            )
        call = metric_call(formula)
        if per_fold and call is not None:
            raise per_fold_metric_error(given, call)
        if call is not None:
            parsed = parse_formula(f"{call.truth} ~{call.rest}")
            replication, fold = parsed.replication_and_fold
            return cls.of_predictions(
                truth=call.truth,
                prediction=call.prediction,
                score=call.score,
                metric=call.spec,
                model=parsed.model,
                replication=replication,
                fold=fold,
                record=record,
                cluster=cluster,
                formula=given,
            )
        parsed = parse_formula(formula)
        wanted = check_direction(direction, higher_is_better)
        named: dict[str, str | None] = {"model": parsed.model}
        named.update(zip(("replication", "fold"), parsed.blocks))
        if not per_fold:
            _require_record(record)
            named["record"] = record
            named["cluster"] = cluster
        replication, fold = parsed.replication_and_fold
        return cls(
            "fold_score" if per_fold else "loss",
            parsed.model,
            replication,
            fold,
            None if per_fold else record,
            response=parsed.response,
            parsed=parsed,
            one_block=len(parsed.blocks) == 1 and not per_fold,
            direction=wanted,
            test_train_ratio=test_train_ratio,
            cluster=cluster,
            formula=given,
            named=named,
        )

    @classmethod
    def of_predictions(
        cls,
        *,
        truth: str,
        prediction: str | None,
        model: str,
        replication: str | None,
        fold: str | None,
        record: str,
        direction: Direction | None = None,
        metric: str | Callable[..., float] | MetricSpec | None = None,
        score: str | Sequence[str] | Mapping[Any, str] | None = None,
        cluster: str | None = None,
        pos_label: Any = None,
        formula: str | None = None,
    ) -> Roles:
        """Predictions and the truth, with or without a metric (see :meth:`ResultsTable.from_predictions
        <cvreport.data.table.ResultsTable.from_predictions>`)."""
        _require_record(record)
        _require_names(truth=truth, model=model)
        named = {
            "truth": truth,
            "prediction": prediction,
            "model": model,
            "replication": replication,
            "fold": fold,
            "record": record,
        }
        keys = {"model": model, "replication": replication, "fold": fold, "record": record}
        score = _score_names(score)
        if metric is not None or score is not None or cluster is not None:
            default = "accuracy" if direction == "higher" else "zero_one_loss"
            return cls(
                "metric",
                truth=truth,
                prediction=prediction,
                score=score,
                metric=default if metric is None else metric,
                pos_label=pos_label,
                cluster=cluster,
                direction=check_direction(direction) if formula is None else None,
                formula=formula,
                named=named,
                **keys,
            )
        if prediction is None:
            raise DataError("name the column of predicted labels with prediction=")
        return cls(
            "predictions",
            truth=truth,
            prediction=prediction,
            direction=check_direction(direction),
            named=named,
            **keys,
        )

    @classmethod
    def of_fold_scores(
        cls,
        *,
        score: str,
        model: str,
        replication: str | None,
        fold: str | None,
        direction: Direction | None = None,
        higher_is_better: bool | None = None,
        test_train_ratio: float | None = None,
    ) -> Roles:
        """One score per (replication, fold, model), named by keywords."""
        _require_names(score=score, model=model)
        named = {"score": score, "model": model, "replication": replication, "fold": fold}
        return cls(
            "fold_score",
            model,
            replication,
            fold,
            None,
            response=score,
            direction=check_direction(direction, higher_is_better),
            test_train_ratio=test_train_ratio,
            named=named,
        )

    # ------------------------------------------------------------------ reading

    @property
    def response_name(self) -> str:
        """The name of the values: the column, or the formula's left side."""
        return str(self.response)

    @property
    def response_what(self) -> str:
        """The values as error messages name them."""
        if self.outcome == "fold_score":
            return f"score {self.response_name!r}"
        if self.parsed is None:
            return f"loss column {self.response!r}"
        return f"loss {self.response_name!r}"

    @property
    def score_columns(self) -> list[str]:
        """The score columns of a metric from predictions (none when it reads labels)."""
        score = self.score
        if score is None:
            return []
        if isinstance(score, str):
            return [score]
        return list(score.values() if isinstance(score, Mapping) else score)

    @property
    def metric_columns(self) -> list[str]:
        """Every column a metric from predictions reads, keys included, once each."""
        wanted = [
            self.truth,
            self.prediction,
            self.model,
            self.replication,
            self.fold,
            self.record,
            *self.score_columns,
            self.cluster,
        ]
        return [c for c in dict.fromkeys(wanted) if c is not None]

    @property
    def columns_by_role(self) -> dict[str, str | None]:
        """Every role's column: the named ones, the scores, the cluster and the data set."""
        response = self.response
        if self.parsed is not None and not self.parsed.response_is_column:
            response = None  # an expression, not a column
        roles: dict[str, str | None] = {
            "loss" if self.outcome == "loss" else "score": response,
            "truth": self.truth,
            "prediction": self.prediction,
            **self.named,
            "cluster": self.cluster,
            "dataset": self.dataset,
        }
        scores = self.score_columns
        if len(scores) == 1:
            roles["score"] = scores[0]
        else:
            roles.update({f"score[{i}]": column for i, column in enumerate(scores)})
        return roles

    def how_to_name(self, columns: Sequence[Any]) -> str:
        """What to do when a named column is missing (the end of the error message): each
        sentence about a column that is missing, the formula's own only when one of its
        columns is."""
        formula = self.parsed.text if self.parsed is not None else self.formula
        if formula is None:
            if self.outcome not in _PREDICTED:
                return HOW_TO_NAME
            blocks = (self.replication, self.fold)
            if any(c is not None and c not in set(columns) for c in blocks):
                return _HOW_TO_NAME_PREDICTIONS.removesuffix(".") + _ONE_HOLD_OUT_SET
            return _HOW_TO_NAME_PREDICTIONS
        if self.dataset is not None:  # the data set's term, split off before the roles
            formula = f"{formula} | {self.dataset}"
        present = set(columns)
        beside = ("record", "cluster")  # named beside the formula, not in it
        in_formula = [c for r, c in self.named.items() if c is not None and r not in beside]
        if self.parsed is not None and self.parsed.response_is_column:
            in_formula.append(self.parsed.response)
        hints = []
        if any(column not in present for column in in_formula):
            hints.append(f"The formula {formula!r} names them.")
        if self.cluster is not None and self.cluster not in present:
            hints.append(
                f"The cluster {self.cluster!r} is not among them: name the column that groups "
                "the records, or leave the cluster out."
            )
        if self.record is not None and self.record not in present:
            hints.append(
                "If the left side is one score per fold (e.g. an AUC), pass "
                f"{option('per_fold', True, aside=True)}; otherwise name the record column "
                f"with {option('record', aside=True)}."
                if self.outcome not in _PREDICTED
                else "The formula does not name the record column: name it with "
                f"{option('record', aside=True)}."
            )
        return " ".join(hints) or f"The formula {formula!r} names them."

    def settled(self, replication: str | None, fold: str | None) -> Roles:
        """The roles with the single block read as ``replication`` or ``fold``."""
        return replace(self, replication=replication, fold=fold, one_block=False)

    def prediction_metric(self) -> tuple[Metric, str, str]:
        """0/1 errors of predicted labels: the metric shown, how its direction was
        decided, and the values' name."""
        wanted = self.direction
        shown = Metric(
            "accuracy" if wanted == "higher" else "error rate", wanted or "lower", "proportion"
        )
        how = "given" if wanted else "predictions give 0/1 errors"
        sign = "==" if shown.higher_is_better else "!="
        return shown, how, f"{self.prediction} {sign} {self.truth}"

    def source_line(self, n_rows: int, kind: str) -> str:
        """Where the numbers came from: the roles and ``n_rows`` rows of a ``kind``."""
        model, replication, fold, record = self.model, self.replication, self.fold, self.record
        if self.parsed is not None:
            text = self.parsed.text
            if self.outcome == "fold_score":
                return f"formula {text!r} on a {n_rows:,}-row {kind} of per-fold scores"
            return f"formula {text!r} on a {n_rows:,}-row {kind} (record column {record!r})"
        if self.outcome == "fold_score":
            return (
                f"per-fold scores in column {self.response!r} of a {n_rows:,}-row {kind}: "
                f"model {model!r}, replication {replication!r}, fold {fold!r}"
            )
        if self.outcome == "predictions":
            return (
                f"predictions {self.prediction!r} and truth {self.truth!r} of a {n_rows:,}-row "
                f"{kind}: model {model!r}, replication {replication!r}, fold {fold!r}, "
                f"record {record!r}"
            )
        return (
            f"columns of a {n_rows:,}-row {kind}: loss {self.response!r}, model {model!r}, "
            f"replication {replication!r}, fold {fold!r}, record {record!r}"
        )


# ----------------------------------------------------------------------------- metric formulas


_METRIC_CALL = re.compile(
    r"^\s*(\w+)\s*\(\s*([^,()\s](?:[^,()]*[^,()\s])?)\s*,\s*([^()\s](?:[^()]*[^()\s])?)\s*\)\s*~(.*)$",
    re.S,
)  # each argument starts and ends with a non-space: no backtracking over runs of spaces


@dataclass(frozen=True)
class MetricCall:
    """The left side ``metric(truth, columns)`` of a metric formula, and what follows ``~``.

    Attributes
    ----------
    spec : MetricSpec
        The named metric.
    truth : str
        The truth column.
    columns : list of str
        The predicted labels, or the score columns (one, or one per class joined by ``+``).
    rest : str
        The formula after ``~`` (model and blocks).
    """

    spec: MetricSpec
    truth: str
    columns: list[str]
    rest: str

    @property
    def prediction(self) -> str | None:
        """The column of predicted labels, for a metric that reads labels."""
        return self.columns[0] if self.spec.needs == "prediction" else None

    @property
    def score(self) -> str | list[str] | None:
        """The score column(s), for a metric that reads scores."""
        if self.spec.needs != "score":
            return None
        return self.columns[0] if len(self.columns) == 1 else self.columns


def metric_call(formula: Any) -> MetricCall | None:
    """The metric call of ``"metric(truth, prediction or scores) ~ ..."``, else ``None``.

    ``None`` when the left side is not a call of a metric name, so the formula
    is read as a loss formula. Several score columns (one per class) are joined
    with ``+``: ``"roc_auc_ovr(y, p_a + p_b + p_c) ~ model | fold"``.

    Examples
    --------
    >>> call = metric_call("roc_auc(y, proba) ~ model | replication + fold")
    >>> call.spec.name, call.truth, call.score, call.rest
    ('roc_auc', 'y', 'proba', ' model | replication + fold')
    >>> metric_call("{pred != y} ~ model | fold") is None
    True
    """
    match = _METRIC_CALL.match(formula) if isinstance(formula, str) else None
    if match is None:
        return None
    name, truth, argument, rest = match.groups()
    try:
        spec = resolve_metric(name)
    except DataError:
        return None
    return MetricCall(spec, truth, [c.strip() for c in argument.split("+")], rest)


def per_fold_metric_error(formula: str, call: MetricCall) -> DataError:
    """The refusal of ``per_fold=True`` for a metric computed from per-record predictions."""
    return DataError(
        f"the left side of {formula!r} computes {call.spec.name} from per-record "
        f"predictions, so it is not one score per fold; leave out {option('per_fold', True)} "
        "(or give the per-fold scores as a column: 'auc ~ model | replication + fold' with "
        f"{option('per_fold', True)})"
    )
