"""Results of the same models on many data sets, each data set with its own design.

A :class:`DatasetsTable` holds one :class:`~cvreport.data.table.ResultsTable`
per data set — they may differ in design (5×2 CV on one, 10-fold CV on
another) — or, on the plain route, one summary score per data set and model.
The data set is the last part of the formula, after a final ``|``::

    loss ~ model | replication + fold | dataset     # per-record losses, m×K CV
    {pred != truth} ~ model | fold | dataset        # per-record, one K-fold run
    auc ~ model | replication + fold | dataset      # per-fold scores (per_fold=True)
    auc ~ model | dataset                           # one score per data set and model
    roc_auc(truth, proba) ~ model | replication + fold | dataset   # a metric from predictions

It reads like R's blocked formula (``friedman.test(y ~ treatment | block)``):
the data set is the outermost block, and the formula before it is the formula
of each data set's own table. R's nesting ``dataset/(replication + fold)`` is
not used: it says the same thing, but ``/`` would expand to interaction terms
in formulaic. Problems found while building a data set's table name that data
set.

References
----------
Demšar, J. (2006). Statistical comparisons of classifiers over multiple data
sets. Journal of Machine Learning Research 7:1–30.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.backends import Backend, backend_for
from cvreport.data.formula import evaluate_response, parse_formula, split_cluster_term
from cvreport.data.metric import Direction, Metric, direction_from_name
from cvreport.data.roles import Roles, metric_call
from cvreport.data.table import ResultsTable
from cvreport.data.validation import require_distinct_roles, require_named_columns
from cvreport.errors import CVReportError, DataError, FormulaError, describe_keys
from cvreport.spelling import option

__all__ = ["DatasetsTable", "split_dataset_term"]

_SHAPES = (
    "'loss ~ model | replication + fold | dataset' (per-record losses or, with per_fold=True, "
    "per-fold scores), 'loss ~ model | fold | dataset', 'roc_auc(truth, proba) ~ model | "
    "replication + fold | dataset' (a metric from predictions), or 'score ~ model | dataset' "
    "(one score per data set and model)"
)


@dataclass(frozen=True)
class DatasetTerm:
    """A formula split at its last ``|``: each data set's formula and the data set column."""

    inner: str
    dataset: str


def split_dataset_term(formula: str) -> DatasetTerm:
    """Split ``"… | dataset"`` into each data set's formula and the data set column.

    formulaic's tokenizer finds the last ``|`` outside parentheses; the part
    after it must be one column name. The part before it is read by
    :func:`cvreport.data.formula.parse_formula` when each table is built.

    Raises
    ------
    FormulaError
        No ``|``, or more than one column after the last one.

    Examples
    --------
    >>> split_dataset_term("loss ~ model | replication + fold | dataset")
    DatasetTerm(inner='loss ~ model | replication + fold', dataset='dataset')
    >>> split_dataset_term("auc ~ model | task").inner
    'auc ~ model'
    """
    if not isinstance(formula, str):
        raise FormulaError(f"the formula must be a string, got {type(formula).__name__}")
    from formulaic.parser import DefaultFormulaParser

    try:
        tokens = list(DefaultFormulaParser(include_intercept=False).get_tokens(formula))
    except Exception as error:  # formulaic raises several exception types
        raise FormulaError(
            f"cannot read the formula {formula!r} ({error}); expected {_SHAPES}"
        ) from error
    depth = 0
    last = None
    for index, token in enumerate(tokens):
        text = str(token)
        if token.kind.value == "operator":
            if text == "(":
                depth += 1
            elif text == ")":
                depth -= 1
            elif text == "|" and depth == 0:
                last = index
    if last is None:
        hint = ""
        if any(t.kind.value == "operator" and str(t) == "/" for t in tokens):
            hint = "; write the data set after a last '|' instead of R's nesting with '/'"
        raise FormulaError(
            f"the formula {formula!r} names no data set column after a last '|'{hint}; "
            f"expected {_SHAPES}"
        )
    after = tokens[last + 1 :]
    if len(after) != 1 or after[0].kind.value != "name":
        raise FormulaError(
            f"after the last '|' of {formula!r} name the one data set column, got "
            f"{formula[tokens[last].source_start + 1 :].strip()!r}; expected {_SHAPES}"
        )
    return DatasetTerm(formula[: tokens[last].source_start].strip(), str(after[0]))


def _named(dataset: Any, error: CVReportError) -> CVReportError:
    """The same kind of error, saying which data set it is about."""
    renamed = type(error)(f"data set {dataset!r}: {error}")
    return renamed


def _direction(
    direction: Direction | None, name: str, default: Direction | None, how: str
) -> Direction:
    if direction is not None:
        if direction not in ("lower", "higher"):
            raise DataError(
                f"direction must be 'lower' (a loss) or 'higher' (a score), got {direction!r}"
            )
        return direction
    found = direction_from_name(name)
    if found is not None:
        return found
    if default is None:
        raise DataError(
            f"the name {name!r} does not say whether higher or lower is better; pass "
            f"direction='higher' (a score) or direction='lower' (a loss) {how}"
        )
    return default


def _agree(direction: Direction | None, metric: Metric) -> None:
    if direction is not None and direction != metric.direction:
        raise DataError(
            f"direction={direction!r} contradicts the metric {metric.name!r}, for which "
            f"{metric.direction} is better; leave direction out"
        )


class DatasetsTable:
    """The same models evaluated on many data sets, each data set with its own design.

    Parameters
    ----------
    tables : mapping of str to ResultsTable
        One table per data set, in the order to show them.
    metric : Metric, optional
        What the tables measure; default the first table's metric.

    Raises
    ------
    DataError
        Fewer than two data sets, or data sets that do not hold the same models
        (the message names them).

    Examples
    --------
    >>> import cvreport
    >>> multi = DatasetsTable.from_formula(
    ...     "loss ~ model | replication + fold | dataset", cvreport.load_example("multi"))
    >>> len(multi.datasets), multi.models[:2], multi.metric.direction
    (10, ('logistic_regression', 'decision_tree'), 'lower')
    >>> multi.designs()["wine_class0"]
    '5×2 cross-validation (m = 5, K = 2, n = 178 records, folds of 89)'
    """

    def __init__(self, tables: Mapping[Any, ResultsTable], *, metric: Metric | None = None) -> None:
        if not isinstance(tables, Mapping):
            raise DataError(
                f"tables must map each data set's name to its ResultsTable, got "
                f"{type(tables).__name__}"
            )
        for name, table in tables.items():
            if not isinstance(table, ResultsTable):
                raise DataError(
                    f"data set {name!r}: expected a ResultsTable, got {type(table).__name__}"
                )
        if metric is None and tables:
            metric = next(iter(tables.values())).metric
        self._tables = dict(tables)
        summaries = []
        for name, table in self._tables.items():
            frame = table.fold_errors()
            values = table.to_metric(frame["loss"])  # the metric as given: 1 − error for accuracy
            summaries.append(
                pd.DataFrame({"dataset": name, "model": frame["model"], "value": values.to_numpy()})
            )
        long = pd.concat(summaries, ignore_index=True) if summaries else pd.DataFrame()
        self._setup(long, metric, level="record" if self._tables else "dataset")
        self._level = (
            "fold"
            if self._tables and not all(t.per_record for t in self._tables.values())
            else self._level
        )

    def _setup(self, long: pd.DataFrame, metric: Metric | None, *, level: str) -> None:
        if metric is None:
            raise DataError("a DatasetsTable needs at least two data sets; got none")
        self._metric = metric
        self._level = level
        datasets = pd.unique(long["dataset"]) if len(long) else []
        if any(isinstance(name, str) and name == "" for name in datasets):
            raise DataError(  # as an empty model label (validation.refuse_empty_labels)
                "a data set is labelled by the empty text (''): a report could not name that "
                "data set, and a CSV file reads an empty field as a missing value; give every "
                "data set a name"
            )
        if len(datasets) < 2:
            raise DataError(
                f"comparing models across data sets needs at least two data sets; got "
                f"{len(datasets)} ({describe_keys(list(datasets))})"
            )
        models_by_dataset = {
            name: list(pd.unique(group["model"]))
            for name, group in long.groupby("dataset", sort=False)
        }
        all_models = list(pd.unique(long["model"]))
        for name, models in models_by_dataset.items():
            missing = [m for m in all_models if m not in models]
            if missing:
                raise DataError(
                    f"data set {name!r} has no results for model {describe_keys(missing)}; every "
                    "model must be evaluated on every data set"
                )
        if len(all_models) < 2:
            raise DataError(
                f"comparing models needs at least two models; got {describe_keys(all_models)}"
            )
        grouped = long.groupby(["dataset", "model"], sort=False)["value"]
        order = pd.MultiIndex.from_product([list(datasets), all_models])
        self._datasets = tuple(datasets)
        self._models = tuple(all_models)
        self._means = grouped.mean().reindex(order).unstack()[all_models].loc[list(datasets)]
        counts = grouped.count().reindex(order).unstack()[all_models].loc[list(datasets)]
        sd = grouped.std(ddof=1).reindex(order).unstack()[all_models].loc[list(datasets)]
        self._sds = sd.where(counts > 1)
        self._means.index.name = self._sds.index.name = "dataset"
        self._means.columns.name = self._sds.columns.name = "model"

    # ------------------------------------------------------------------ constructors

    @classmethod
    def from_formula(
        cls,
        formula: str,
        data: Any,
        *,
        record: str = "record",
        per_fold: bool = False,
        direction: Direction | None = None,
        test_train_ratio: Mapping[Any, float] | float | None = None,
        cluster: str | None = None,
    ) -> DatasetsTable:
        """Build the table from a formula whose last part names the data set column.

        Parameters
        ----------
        formula : str
            E.g. ``"loss ~ model | replication + fold | dataset"``, or a metric
            computed from predictions, ``"roc_auc(truth, proba) ~ model | replication
            + fold | dataset"`` (each data set's table is then
            :meth:`ResultsTable.from_formula
            <cvreport.data.table.ResultsTable.from_formula>` of its rows, as
            :meth:`from_predictions` builds it); see the module.
        data : DataFrame or path
            Long format, all data sets stacked: a pandas frame, or any frame or
            path :func:`~cvreport.data.engines.resolve_source` reads. Outside
            pandas each data set's rows are filtered and aggregated in the
            frame's engine (:mod:`cvreport.data.backends.engine`).
        record : str
            The record column, for per-record losses.
        per_fold : bool
            The left side is one score per (replication, fold, model) of each data set.
        direction : {"lower", "higher"}, optional
            Which way the left side is better; default from its name
            (:func:`~cvreport.data.metric.direction_from_name`), else ``"lower"``
            for per-record losses and ``"higher"`` for per-fold scores, as
            :class:`~cvreport.data.table.ResultsTable` does. One score per data
            set needs it when the name does not say. A metric formula has the
            metric's own direction; a different one is refused.
        test_train_ratio : float or mapping, optional
            Validation over training size for per-fold scores (one value, or one per
            data set); a metric formula finds it from the records.
        cluster : str, optional
            A column of clusters of records (passages, users), as for one table;
            also written as a ``+ cluster(column)`` term of the blocks.

        Raises
        ------
        FormulaError
            No data set term after a last ``|``.
        DataError
            A missing data set column or label; any problem of one data set's
            table, with that data set named.

        Examples
        --------
        >>> df = pd.DataFrame({"task": ["a", "a", "b", "b"], "clf": ["x", "y", "x", "y"],
        ...                    "accuracy": [0.90, 0.85, 0.70, 0.72]})
        >>> t = DatasetsTable.from_formula("accuracy ~ clf | task", df)
        >>> t.level, t.metric.direction, t.means().to_numpy().tolist()
        ('dataset', 'higher', [[0.9, 0.85], [0.7, 0.72]])

        A metric from predictions, one AUC per fold of each data set:

        >>> preds = pd.DataFrame({
        ...     "task": np.repeat(["a", "b"], 16), "fold": np.tile(np.repeat([1, 2], 8), 2),
        ...     "clf": np.tile(np.repeat(["x", "y"], 4), 4),
        ...     "id": np.tile(np.r_[0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7], 2),
        ...     "y": np.tile([0, 1, 0, 1], 8),
        ...     "p": np.tile([0.2, 0.9, 0.4, 0.3, 0.5, 0.6, 0.1, 0.7], 4)})
        >>> auc = DatasetsTable.from_formula("roc_auc(y, p) ~ clf | fold | task", preds, record="id")
        >>> auc.level, auc.metric.name, auc.means().to_numpy().tolist()
        ('fold', 'roc_auc', [[0.75, 1.0], [0.75, 1.0]])
        """
        term = split_dataset_term(formula)
        # a cluster term belongs to each data set's own formula, as for one table
        inner, named_cluster = split_cluster_term(term.inner)
        cluster = named_cluster or cluster
        term = replace(term, inner=inner)
        backend = backend_for(data)
        backend.check_dataset_column(term.dataset, f"of the formula {formula!r}")
        call = metric_call(term.inner)
        if call is not None:
            if per_fold:
                raise DataError(
                    f"the left side of {formula!r} computes {call.spec.name} from per-record "
                    f"predictions, so it is not one score per fold; leave out "
                    f"{option('per_fold', True)} (or give the per-fold scores as a column: "
                    "'auc ~ model | replication + fold | dataset' with "
                    f"{option('per_fold', True)})"
                )
            _agree(direction, call.spec.metric)
            roles = Roles.from_formula(term.inner, record=record, cluster=cluster)
            table = cls._from_parts(backend, replace(roles, dataset=term.dataset))
            table._formula = formula
            return table
        parsed = parse_formula(term.inner)
        one_per_dataset = not parsed.blocks and not per_fold and record not in backend.columns
        if one_per_dataset:
            # one score per data set and model: small by nature
            return cls._from_dataset_scores(backend.to_memory(), parsed, term.dataset, direction)
        chosen = _direction(
            direction, parsed.response, "higher" if per_fold else "lower", "to from_formula"
        )
        roles = Roles.from_formula(
            term.inner, record=record, per_fold=per_fold, direction=chosen, cluster=cluster
        )
        table = cls._from_parts(
            backend, replace(roles, dataset=term.dataset), ratios=test_train_ratio
        )
        table._formula = formula
        return table

    @classmethod
    def from_predictions(
        cls,
        data: Any,
        *,
        truth: str,
        prediction: str | None = None,
        score: str | Sequence[str] | Mapping[Any, str] | None = None,
        metric: str | Callable[..., float] | None = None,
        dataset: str = "dataset",
        model: str = "model",
        replication: str | None = "replication",
        fold: str | None = "fold",
        record: str = "record",
        direction: Direction | None = None,
        cluster: str | None = None,
        pos_label: Any = None,
        engine: str | None = None,
    ) -> DatasetsTable:
        """Build the table from per-record predictions of every data set, stacked.

        Each data set's table is
        :meth:`ResultsTable.from_predictions <cvreport.data.table.ResultsTable.from_predictions>`
        of that data set's rows with the same keywords: 0/1 losses from
        ``prediction=`` alone, or the metric ``metric=`` from predicted labels or
        from the scores ``score=``. A mean of per-record values (accuracy, log
        loss, Brier score) gives per-record tables; any other metric (AUC, F1,
        MCC, ...) is computed once per fold of each data set (Demšar 2006 then
        compares the models on the per-data-set means).

        Parameters
        ----------
        data : DataFrame or path
            Long format, one row per (dataset, replication, fold, model, record):
            a pandas frame, or any frame or path
            :func:`~cvreport.data.engines.resolve_source` reads (each data set's
            rows filtered in the frame's engine; only the columns a metric reads
            come into pandas).
        truth, prediction, score, metric, model, replication, fold, record, direction, cluster, pos_label, engine
            As in :meth:`ResultsTable.from_predictions
            <cvreport.data.table.ResultsTable.from_predictions>`.
        dataset : str
            The data set column.

        Returns
        -------
        DatasetsTable
            Level ``"record"`` for a mean of per-record values, ``"fold"`` otherwise.

        Raises
        ------
        DataError
            A missing data set column or label; any problem of one data set's
            table, with that data set named.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> rows = 2 * 2 * 2 * 20  # data sets × folds × models × records per fold
        >>> df = pd.DataFrame({
        ...     "dataset": np.repeat(["a", "b"], rows // 2),
        ...     "fold": np.tile(np.repeat([1, 2], 40), 2),
        ...     "model": np.tile(np.repeat(["lr", "tree"], 20), 4),
        ...     "record": np.tile(np.r_[np.tile(np.arange(20), 2), np.tile(np.arange(20, 40), 2)], 2),
        ...     "y": np.tile(np.arange(40) % 2, 4)})
        >>> df["proba"] = np.clip(0.3 * df["y"] + rng.uniform(0, 0.7, rows), 0, 1)
        >>> multi = DatasetsTable.from_predictions(df, truth="y", score="proba",
        ...                                        metric="roc_auc", replication=None)
        >>> multi.level, multi.metric.name, multi.metric.direction, multi.means().shape
        ('fold', 'roc_auc', 'higher', (2, 2))
        """
        backend = backend_for(data)
        backend.check_dataset_column(dataset, "named by dataset=")
        roles = Roles.of_predictions(
            truth=truth,
            prediction=prediction,
            model=model,
            replication=replication,
            fold=fold,
            record=record,
            direction=direction,
            metric=metric,
            score=score,
            cluster=cluster,
            pos_label=pos_label,
        )
        return cls._from_parts(backend, replace(roles, dataset=dataset), engine=engine)

    @classmethod
    def _from_parts(
        cls,
        backend: Backend,
        roles: Roles,
        *,
        ratios: Mapping[Any, float] | float | None = None,
        engine: str | None = None,
    ) -> DatasetsTable:
        """One table per data set: the rows of each, with ``roles`` (whose ``dataset`` is the block).

        ``ratios`` is the validation over training size of every data set, or of each by name.
        """
        require_distinct_roles(roles.columns_by_role)
        # a column missing from the whole data is not one data set's problem
        require_named_columns(backend.columns, roles.named, roles.how_to_name(backend.columns))
        tables: dict[Any, ResultsTable] = {}
        for name, part in backend.datasets(str(roles.dataset)):
            ratio = ratios.get(name) if isinstance(ratios, Mapping) else ratios
            try:
                part_roles = roles if ratio is None else replace(roles, test_train_ratio=ratio)
                tables[name] = ResultsTable._from_roles(part_roles, part, engine)
            except CVReportError as error:
                raise _named(name, error) from error
        if not tables:
            raise DataError("the data have no rows; give the results of at least two data sets")
        unknown = (
            [name for name in ratios if name not in tables] if isinstance(ratios, Mapping) else []
        )
        if unknown:
            raise DataError(
                f"test_train_ratio names {describe_keys(unknown)}, which are not data sets of "
                f"the data ({describe_keys(tables, 10)}); key each ratio by a data set's label"
            )
        return cls(tables, metric=next(iter(tables.values())).metric)

    @classmethod
    def _from_dataset_scores(
        cls, data: pd.DataFrame, parsed: Any, dataset: str, direction: Direction | None
    ) -> DatasetsTable:
        values = pd.to_numeric(evaluate_response(parsed, data), errors="coerce")
        if parsed.model not in data:
            raise DataError(f"the model column {parsed.model!r} is not in the data")
        bad = ~np.isfinite(values.to_numpy(dtype=float))
        if bad.any():
            where = data.loc[bad, [dataset, parsed.model]].iloc[0].tolist()
            raise DataError(
                f"score {parsed.response!r} is missing, non-numeric or infinite on "
                f"{int(bad.sum())} row(s), the first for data set {where[0]!r}, model "
                f"{where[1]!r}"
            )
        long = pd.DataFrame(
            {"dataset": data[dataset].to_numpy(), "model": data[parsed.model].to_numpy()}
        )
        long["value"] = values.to_numpy(dtype=float)
        repeated = long.duplicated(["dataset", "model"])
        if repeated.any():
            first = long.loc[repeated].iloc[0]
            raise DataError(
                f"data set {first['dataset']!r} has more than one {parsed.response!r} for model "
                f"{first['model']!r}; 'score ~ model | dataset' takes one score per data set "
                "and model (name the folds, 'score ~ model | fold | dataset', with "
                f"{option('per_fold', True)}, for per-fold scores)"
            )
        chosen = _direction(direction, parsed.response, None, "to from_formula")
        table = cls.__new__(cls)
        table._tables = {}
        table._setup(long, Metric(parsed.response, chosen), level="dataset")
        table._formula = None
        return table

    _formula: str | None = None
    _level: str

    # ------------------------------------------------------------------ descriptors

    @property
    def datasets(self) -> tuple[Any, ...]:
        """Data set names, in order of first appearance."""
        return self._datasets

    @property
    def models(self) -> tuple[Any, ...]:
        """Model names, in order of first appearance."""
        return self._models

    @property
    def metric(self) -> Metric:
        """What the numbers measure and which way is better."""
        return self._metric

    @property
    def level(self) -> str:
        """``"record"`` (per-record losses), ``"fold"`` (per-fold scores) or ``"dataset"``."""
        return self._level

    @property
    def tables(self) -> dict[Any, ResultsTable]:
        """Each data set's :class:`ResultsTable` (empty for one score per data set)."""
        return dict(self._tables)

    @property
    def formula(self) -> str | None:
        """The formula the table was built from, if any."""
        return self._formula

    def designs(self) -> dict[Any, str]:
        """Each data set's design in words."""
        if not self._tables:
            return {name: "one score per model" for name in self._datasets}
        return {name: table.design.describe() for name, table in self._tables.items()}

    def means(self) -> pd.DataFrame:
        """Data sets × models: the metric averaged over each data set's folds."""
        return self._means.copy()

    def sds(self) -> pd.DataFrame:
        """Data sets × models: the standard deviation over folds (NaN with one value)."""
        return self._sds.copy()

    def __repr__(self) -> str:
        return (
            f"<DatasetsTable: {len(self._datasets)} data sets × {len(self._models)} models "
            f"({describe_keys(self._models)}); {self._metric.name!r}, "
            f"{self._metric.direction} is better; {self._level} level>"
        )
