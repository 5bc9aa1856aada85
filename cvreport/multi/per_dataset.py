"""On each data set, the test its design calls for: significant wins, ties and losses.

For every data set of a :class:`~cvreport.data.datasets.DatasetsTable` the
recommended test for that data set's design
(:func:`cvreport.reporting.selection.recommendation`: e.g. the corrected
repeated K-fold t test for 10-fold CV, Alpaydın's combined 5×2cv F test for
random 5×2 CV) compares each model with the baseline (or every pair); the
p-values of one data set are adjusted together with the chosen multiplicity
correction. A comparison is a *win* for a model when the adjusted p-value is at
most α and the model's mean is the better one in the metric's direction, a
*loss* when the other model's is, and a *tie* otherwise (including a test that
cannot run). Demšar (2006, §3.1.4) warns that such counts are a description,
not an inference across data sets: the Friedman and Wilcoxon tests are that.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.errors import (
    CVReportError,
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    PartitionWarning,
)

if TYPE_CHECKING:
    from cvreport.data.datasets import DatasetsTable
    from cvreport.data.table import ResultsTable

__all__ = ["PerDatasetTests", "per_dataset_tests"]

COLUMNS = [
    "dataset",
    "a",
    "b",
    "test",
    "label",
    "statistic",
    "pvalue",
    "adjusted",
    "reject",
    "better",
    "design",
    "note",
]


@dataclass(frozen=True)
class PerDatasetTests:
    """Each data set's test of each compared pair, and the wins, ties and losses they give.

    Attributes
    ----------
    comparisons : pandas.DataFrame
        One row per (data set, pair): ``dataset, a, b, test, label, statistic,
        pvalue, adjusted, reject, better, design, note`` (``better``: the model
        significantly better, else None; ``note``: why a test did not run or what was
        degenerate).
    baseline : str or None
        The model every other one is compared with (None: every pair).
    alpha : float
        Level of the decisions.
    correction : str or None
        The multiplicity correction within each data set.
    """

    comparisons: pd.DataFrame
    baseline: Any
    alpha: float
    correction: str | None
    models: tuple[Any, ...] = field(default=())

    def win_tie_loss(self) -> pd.DataFrame:
        """Against the baseline: per model, the data sets it wins, ties and loses.

        Returns
        -------
        pandas.DataFrame
            Index: the models other than the baseline; columns ``win, tie, loss``.
        """
        if self.baseline is None:
            raise CVReportError(
                "win/tie/loss counts against a baseline need baseline=; use "
                "win_tie_loss_matrix() for every pair"
            )
        rows = {}
        for model in self.models:
            if model == self.baseline:
                continue
            mine = self.comparisons[self.comparisons["a"] == model]
            wins = int((mine["better"] == model).sum())
            losses = int((mine["better"] == self.baseline).sum())
            rows[model] = {"win": wins, "tie": len(mine) - wins - losses, "loss": losses}
        return pd.DataFrame.from_dict(rows, orient="index", columns=["win", "tie", "loss"])

    def win_tie_loss_matrix(self) -> pd.DataFrame:
        """Models × models: ``"w/t/l"`` of the row model against the column model."""
        text = pd.DataFrame("", index=list(self.models), columns=list(self.models))
        for a, b in itertools.permutations(self.models, 2):
            pair = self.comparisons[
                ((self.comparisons["a"] == a) & (self.comparisons["b"] == b))
                | ((self.comparisons["a"] == b) & (self.comparisons["b"] == a))
            ]
            if pair.empty:
                continue
            wins = int((pair["better"] == a).sum())
            losses = int((pair["better"] == b).sum())
            text.loc[a, b] = f"{wins}/{len(pair) - wins - losses}/{losses}"
        return text

    def tests_used(self) -> dict[str, list[Any]]:
        """Which test decided on which data sets: label → data sets."""
        used: dict[str, list[Any]] = {}
        for row in self.comparisons.itertuples():
            if row.label and row.dataset not in used.setdefault(row.label, []):
                used[row.label].append(row.dataset)
        return used


def _partitions(table: ResultsTable) -> str | None:
    """The partition design the overlap audit recognises (m×2 with per-record losses)."""
    design = table.design
    if design.kind != "mx2" or not table.has_records or design.m < 2:
        return None
    from cvreport.partitions.audit import audit_overlap

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PartitionWarning)
            return getattr(audit_overlap(table), "design", None)
    except CVReportError:
        return None


def _run(name: str, table: ResultsTable, a: Any, b: Any) -> tuple[Any, str]:
    from cvreport.reporting import selection

    function = selection.resolve_test(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateStatisticWarning)
        warnings.simplefilter("always", PartitionWarning)
        try:
            result = function(table, a, b)
        except (DesignError, DataError) as error:
            return None, str(error)
    said = [str(w.message) for w in caught if issubclass(w.category, DegenerateStatisticWarning)]
    said += [text for text in getattr(result, "warnings", ()) if text not in said]
    return result, " ".join(said)


def _one_dataset(
    name: Any,
    table: ResultsTable,
    pairs: list[tuple[Any, Any]],
    means: pd.Series,
    higher: bool,
    alpha: float,
    correction: str | None,
) -> list[dict[str, Any]]:
    from statsmodels.stats.multitest import multipletests

    from cvreport.reporting import selection

    advice = selection.recommendation(
        table.design.kind,
        partitions=_partitions(table),
        binary=bool(table.is_binary),
        per_record=bool(table.per_record),
    )
    candidates = list(advice.names) + [n for n in advice.fallbacks if n not in advice.names]
    rows = []
    for a, b in pairs:
        row: dict[str, Any] = dict.fromkeys(COLUMNS)
        row.update(dataset=name, a=a, b=b, design=table.design.describe(), reject=False)
        reasons = []
        for test in candidates:
            result, said = _run(test, table, a, b)
            if result is None:
                reasons.append(f"{selection.get_spec(test).label} could not run: {said}")
                continue
            row.update(
                test=test,
                label=selection.get_spec(test).label,
                statistic=float(result.statistic),
                pvalue=float(result.pvalue),
                note=" ".join([*reasons, said]).strip() or None,
            )
            break
        else:
            row["note"] = " ".join(reasons) or advice.reason
        rows.append(row)
    tested = [i for i, row in enumerate(rows) if row["pvalue"] is not None]
    pvalues = np.array([rows[i]["pvalue"] for i in tested], dtype=float)
    if len(tested) > 1 and correction is not None:
        pvalues = multipletests(pvalues, alpha=alpha, method=correction)[1]
    for i, adjusted in zip(tested, pvalues):
        row = rows[i]
        row["adjusted"] = float(adjusted)
        row["reject"] = bool(adjusted <= alpha)
        gap = means[row["a"]] - means[row["b"]]
        if row["reject"] and gap != 0:
            row["better"] = row["a"] if (gap > 0) == higher else row["b"]
    return rows


def per_dataset_tests(
    table: DatasetsTable,
    *,
    baseline: Any = None,
    alpha: float = 0.05,
    correction: str | None = "holm",
) -> PerDatasetTests:
    """Run each data set's recommended test for each model against ``baseline`` (or every pair).

    Parameters
    ----------
    table : DatasetsTable
        Per-record or per-fold results of every data set.
    baseline : str, optional
        The proposed model; every other model is compared with it. Default: every pair.
    alpha : float
        Level of the decisions.
    correction : str or None
        statsmodels ``multipletests`` method applied within each data set over its
        comparisons (``"holm"`` by default; ``None`` or ``"none"`` for none).

    Returns
    -------
    PerDatasetTests

    Raises
    ------
    DesignError
        When the table holds one score per data set (there is nothing to test within one).

    Examples
    --------
    >>> import cvreport
    >>> from cvreport.data.datasets import DatasetsTable
    >>> multi = DatasetsTable.from_formula(
    ...     "loss ~ model | replication + fold | dataset", cvreport.load_example("multi"))
    >>> tests = per_dataset_tests(multi, baseline="logistic_regression")
    >>> sorted(tests.tests_used())
    ['Combined 5×2cv F test', 'Corrected repeated K-fold t test']
    >>> int(tests.win_tie_loss().to_numpy().sum()) == 4 * 10
    True
    """
    from cvreport.multi.friedman import _check_alpha

    alpha = _check_alpha(alpha)
    if correction is not None and str(correction).lower() == "none":
        correction = None
    if not table.tables:
        raise DesignError(
            "per-dataset tests need each data set's folds or records; this table holds one "
            "score per data set and model"
        )
    models = table.models
    if baseline is not None and baseline not in models:
        raise CVReportError(f"the baseline {baseline!r} is not a model; the models are {models}")
    pairs = (
        [(m, baseline) for m in models if m != baseline]
        if baseline is not None
        else list(itertools.combinations(models, 2))
    )
    means = table.means()
    higher = table.metric.higher_is_better
    rows = []
    for name, dataset_table in table.tables.items():
        rows += _one_dataset(name, dataset_table, pairs, means.loc[name], higher, alpha, correction)
    return PerDatasetTests(
        comparisons=pd.DataFrame(rows, columns=COLUMNS),
        baseline=baseline,
        alpha=alpha,
        correction=correction,
        models=models,
    )
