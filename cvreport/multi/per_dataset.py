"""On each data set, the test its design calls for: significant wins, ties and losses.

For every data set of a :class:`~cvreport.data.datasets.DatasetsTable` the
recommended test for that data set's design
(:func:`cvreport.methods.recommendation.recommendation`: e.g. the corrected
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

from cvreport.distributions import as_distribution
from cvreport.errors import (
    CVReportError,
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    PartitionWarning,
    describe_keys,
)
from cvreport.methods.pair_kernels import all_pairs
from cvreport.methods.recommendation import recommendation
from cvreport.methods.registry import get_spec
from cvreport.multi.corrections import check_correction
from cvreport.option_values import check_alpha
from cvreport.partitions.audit import audit_overlap

if TYPE_CHECKING:
    from cvreport.data.datasets import DatasetsTable
    from cvreport.data.table import ResultsTable

__all__ = ["PerDatasetTests", "holm_adjusted", "per_dataset_tests"]

COLUMNS = [
    "dataset",
    "a",
    "b",
    "test",
    "method",
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
        One row per (data set, pair): ``dataset, a, b, test, method, statistic,
        pvalue, adjusted, reject, better, design, note`` (``test``: the test's function
        name; ``method``: its name as every report shows it, the spec's ``method``;
        ``better``: the model significantly better, else None; ``note``: why a test did
        not run or what was degenerate).
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
        models = list(self.models)
        frame = self.comparisons
        if frame.empty:
            return pd.DataFrame("", index=models, columns=models)
        index = pd.Index(models)
        first = index.get_indexer(frame["a"])
        second = index.get_indexer(frame["b"])
        better = frame["better"]
        won_a = (better == frame["a"]).to_numpy()
        won_b = (better == frame["b"]).to_numpy()
        k = len(models)
        # counts[i, j]: comparisons of the pair {i, j}; wins[i, j]: those won by i
        counts = np.zeros((k, k), dtype=np.int64)
        wins = np.zeros((k, k), dtype=np.int64)
        np.add.at(counts, (first, second), 1)
        np.add.at(wins, (first, second), won_a)
        np.add.at(wins, (second, first), won_b)
        counts = counts + counts.T
        text = np.full((k, k), "", dtype=object)
        for i, j in zip(*np.nonzero(counts)):
            if i != j:
                ties = counts[i, j] - wins[i, j] - wins[j, i]
                text[i, j] = f"{wins[i, j]}/{ties}/{wins[j, i]}"
        return pd.DataFrame(text, index=models, columns=models)

    def tests_used(self) -> dict[str, list[Any]]:
        """Which test decided on which data sets: the test's method name → data sets."""
        used: dict[str, list[Any]] = {}
        for row in self.comparisons.itertuples():
            if row.method and row.dataset not in used.setdefault(row.method, []):
                used[row.method].append(row.dataset)
        return used


def _partitions(table: ResultsTable) -> str | None:
    """The partition design the overlap audit recognises (m×2 with per-record losses)."""
    design = table.design
    if design.kind != "mx2" or not table.has_records or design.m < 2:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PartitionWarning)
            return getattr(audit_overlap(table), "design", None)
    except CVReportError:
        return None


def _run(name: str, table: ResultsTable, a: Any, b: Any) -> tuple[Any, str]:
    function = get_spec(name, in_report=True).function
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


def holm_adjusted(pvalues: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), as statsmodels' ``multipletests``.

    The i-th smallest of m p-values becomes max_{j ≤ i} (m − j + 1) p_(j), at most 1.
    statsmodels' version runs a full garbage collection on every call, which
    dominates when thousands of data sets are adjusted one by one.

    Parameters
    ----------
    pvalues : numpy.ndarray
        Unadjusted p-values.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the input order.

    Examples
    --------
    >>> holm_adjusted(np.array([0.01, 0.04, 0.03])).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=float)
    order = np.argsort(p)
    steps = np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1))
    adjusted = np.empty(p.size)
    adjusted[order] = np.minimum(steps, 1.0)
    return adjusted


def _score_sign(test: str, table: ResultsTable) -> float:
    """−1 when the test's function reports the statistic negated: a signed one, on a score.

    The kernels run on the internal losses; for a score the function turns its result
    into the score's direction (:meth:`cvreport.results.TestResult._negated`).
    """
    if not table.higher_is_better:
        return 1.0
    fields = getattr(get_spec(test, in_report=True).result, "__dataclass_fields__", {})
    distribution = as_distribution(getattr(fields.get("distribution"), "default", ""))
    return -1.0 if distribution.signed else 1.0


def _kernel_statistics(
    test: str, table: ResultsTable, pairs: list[tuple[Any, Any]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Statistic, p-value and regularity of ``test`` on every pair at once, or None.

    The fold differences are formed as :meth:`SufficientStatistics.differences`
    forms them (the sums subtracted before dividing), so the vectorised kernel
    sees the very numbers the test's function sees pair by pair.
    """
    if not pairs:
        return None
    position = {model: index for index, model in enumerate(table.models)}
    first = np.array([position[a] for a, _ in pairs])
    second = np.array([position[b] for _, b in pairs])
    stats = table.stats
    sums_a, sums_b = stats.sums[:, :, first], stats.sums[:, :, second]
    counts_a, counts_b = stats.counts[:, :, first], stats.counts[:, :, second]
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(
            counts_a == counts_b,
            (sums_a - sums_b) / counts_a,
            sums_a / counts_a - sums_b / counts_b,
        )
    result = all_pairs(get_spec(test, in_report=True), table, pairs)
    if result is None:
        return None
    statistic = np.asarray(result.statistic, dtype=float) * _score_sign(test, table)
    pvalue = np.asarray(result.pvalue, dtype=float)
    degenerate = np.asarray(getattr(result, "degenerate", np.zeros(len(pairs))))
    regular = (np.isfinite(d).all(axis=(0, 1)) & np.isfinite(statistic) & np.isfinite(pvalue)) & (
        degenerate == 0
    )
    return statistic, pvalue, regular


def _one_dataset(
    name: Any,
    table: ResultsTable,
    pairs: list[tuple[Any, Any]],
    means: pd.Series,
    higher: bool,
    alpha: float,
    correction: str | None,
) -> dict[str, list[Any]]:
    advice = recommendation(
        table.design.kind,
        partitions=_partitions(table),
        binary=bool(table.is_binary),
        per_record=bool(table.per_record),
    )
    # a secondary check (the 5×2 BCV McNemar test beside the calibrated F) still stands
    # in for the deciding test on a data set where that one cannot run
    candidates = list(dict.fromkeys((*advice.names, *advice.secondaries, *advice.fallbacks)))
    # the first candidate on every pair at once; pairs it does not settle regularly (a
    # degenerate statistic, a missing fold) go one by one for their fallbacks and words
    batch = _kernel_statistics(candidates[0], table, pairs) if candidates else None
    n_pairs = len(pairs)
    columns: dict[str, list[Any]] = {
        "dataset": [name] * n_pairs,
        "a": [a for a, _ in pairs],
        "b": [b for _, b in pairs],
        "test": [None] * n_pairs,
        "method": [None] * n_pairs,
        "statistic": [None] * n_pairs,
        "pvalue": [None] * n_pairs,
        "adjusted": [None] * n_pairs,
        "reject": [False] * n_pairs,
        "better": [None] * n_pairs,
        "design": [table.design.describe()] * n_pairs,
        "note": [None] * n_pairs,
    }
    regular = np.zeros(n_pairs, dtype=bool) if batch is None else batch[2]
    if regular.any():
        test = candidates[0]
        method = get_spec(test, in_report=True).method
        for index in np.flatnonzero(regular):
            columns["test"][index] = test
            columns["method"][index] = method
            columns["statistic"][index] = float(batch[0][index])  # type: ignore[index]
            columns["pvalue"][index] = float(batch[1][index])  # type: ignore[index]
    for index in np.flatnonzero(~regular):
        a, b = pairs[index]
        reasons = []
        for test in candidates:
            result, said = _run(test, table, a, b)
            if result is None:
                reasons.append(f"{get_spec(test, in_report=True).method} could not run: {said}")
                continue
            columns["test"][index] = test
            columns["method"][index] = get_spec(test, in_report=True).method
            columns["statistic"][index] = float(result.statistic)
            columns["pvalue"][index] = float(result.pvalue)
            columns["note"][index] = " ".join([*reasons, said]).strip() or None
            break
        else:
            columns["note"][index] = " ".join(reasons) or advice.reason
    tested = np.array([p is not None for p in columns["pvalue"]], dtype=bool)
    pvalues = np.array([p for p in columns["pvalue"] if p is not None], dtype=float)
    if tested.sum() > 1 and correction is not None:
        if correction == "holm":
            pvalues = holm_adjusted(pvalues)
        else:
            from statsmodels.stats.multitest import multipletests

            pvalues = multipletests(pvalues, alpha=alpha, method=correction)[1]
    values = means.to_numpy(dtype=float)
    position = {model: i for i, model in enumerate(means.index)}
    gap = np.array([values[position[a]] - values[position[b]] for a, b in pairs], dtype=float)
    for index, adjusted in zip(np.flatnonzero(tested), pvalues):
        reject = bool(adjusted <= alpha)
        columns["adjusted"][index] = float(adjusted)
        columns["reject"][index] = reject
        if reject and gap[index] != 0:
            a, b = pairs[index]
            columns["better"][index] = a if (gap[index] > 0) == higher else b
    return columns


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
    ["Alpaydın's combined 5×2cv F test", 'Corrected repeated K-fold CV t test']
    >>> int(tests.win_tie_loss().to_numpy().sum()) == 4 * 10
    True
    """
    alpha = check_alpha(alpha)
    correction = check_correction(correction)
    if not table.tables:
        raise DesignError(
            "per-dataset tests need each data set's folds or records; this table holds one "
            "score per data set and model"
        )
    models = table.models
    if baseline is not None and baseline not in models:
        raise CVReportError(
            f"the baseline {baseline!r} is not a model; choose one of {describe_keys(models, 10)}"
        )
    pairs = (
        [(m, baseline) for m in models if m != baseline]
        if baseline is not None
        else list(itertools.combinations(models, 2))
    )
    means = table.means()
    higher = table.metric.higher_is_better
    columns: dict[str, list[Any]] = {column: [] for column in COLUMNS}
    for name, dataset_table in table.tables.items():
        part = _one_dataset(name, dataset_table, pairs, means.loc[name], higher, alpha, correction)
        for column in COLUMNS:
            columns[column] += part[column]
    return PerDatasetTests(
        comparisons=pd.DataFrame(columns, columns=COLUMNS),
        baseline=baseline,
        alpha=alpha,
        correction=correction,
        models=models,
    )
