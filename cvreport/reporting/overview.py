"""Every pair of many models in one table, computed by the tests' vectorised kernels.

A report on k models compares ``k(k − 1)/2`` pairs: 19,900 for 200 models. Running
every test with its interpretation and figure for each pair takes minutes and
gives a report nobody can read, so above :data:`DETAIL_LIMIT` pairs a report
shows one overview row per pair (the headline test of the design, its p-value
adjusted over all pairs, the decision) and the full per-pair sections only for
the best model against the next ones (:func:`detailed_pairs`). The overview
is a DataFrame (``Report.overview``; ``.to_csv()`` for the file).

The statistics come from the same vectorised kernels (:mod:`cvreport.methods`)
that the per-pair tests call, applied to the per-fold statistics of every pair at
once (:func:`cvreport.methods.pair_kernels.all_pairs`); tests without such a
kernel run pair by pair through their spec (:meth:`TestSpec.run`).

Examples
--------
>>> import numpy as np, pandas as pd
>>> from cvreport.data.table import ResultsTable
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"model": np.repeat(["a", "b", "c"], 100),
...                    "fold": np.tile(np.arange(100) % 10, 3),
...                    "record": np.tile(np.arange(100), 3),
...                    "loss": (rng.random(300) < np.repeat([0.1, 0.2, 0.4], 100)).astype(float)})
>>> table = ResultsTable.from_formula("loss ~ model | fold", df)
>>> from cvreport.methods.corrected_kfold import CORRECTED_REPEATED_KFOLD_T
>>> frame = pair_overview(table, CORRECTED_REPEATED_KFOLD_T)
>>> frame[["a", "b"]].values.tolist()
[['a', 'b'], ['a', 'c'], ['b', 'c']]
>>> from cvreport.methods.corrected_kfold import corrected_repeated_kfold_ttest
>>> one = corrected_repeated_kfold_ttest(table, "a", "c")   # the same numbers, pair by pair
>>> bool(np.isclose(frame.loc[1, "pvalue"], one.pvalue)), bool(frame.loc[1, "pvalue"] < 0.05)
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.distributions import as_distribution
from cvreport.errors import CVReportError
from cvreport.methods.pair_kernels import all_pairs
from cvreport.methods.registry import get_spec
from cvreport.methods.spec import TestSpec
from cvreport.reporting import analysis, interpret

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "DETAILED_PAIRS",
    "DETAIL_LIMIT",
    "adjusted_by_pair",
    "detailed_pairs",
    "pair_overview",
]

DETAIL_LIMIT = 45
"""Most pairs a report details one by one (all pairs of 10 models); above it, an overview."""

DETAILED_PAIRS = 9
"""Pairs detailed under an overview: the best model against the next best ones."""

COLUMNS = (
    "a",
    "b",
    "mean_a",
    "mean_b",
    "estimate",
    "test",
    "statistic",
    "pvalue",
    "adjusted",
    "significant",
)


def _mean_losses(table: ResultsTable) -> np.ndarray:
    """Each model's mean loss over its folds (the mean of its per-fold mean losses)."""
    errors = table.fold_errors()
    models = pd.Index(table.models)
    replications = pd.Index(table.replications)
    folds = pd.Index(pd.unique(errors["fold"]))
    out = np.full((len(models), len(replications), len(folds)), np.nan)
    out[
        models.get_indexer(errors["model"]),
        replications.get_indexer(errors["replication"]),
        folds.get_indexer(errors["fold"]),
    ] = errors["loss"].to_numpy(dtype=np.float64)
    return np.nanmean(out.reshape(len(models), -1), axis=1)


def _signed_statistic(spec: TestSpec, table: ResultsTable, pair: tuple[Any, Any]) -> bool:
    """Whether the test's statistic has a sign (t, z) that follows A − B, as its result on
    one pair says (an F or χ² statistic has none)."""
    try:
        result = analysis.run_test(spec, table, pair[0], pair[1], {"alternative": None})
    except CVReportError:
        return False
    return as_distribution(result.distribution).signed


def _pair_by_pair(table: ResultsTable, spec: TestSpec, pairs: list[tuple[Any, Any]]) -> tuple:
    statistic = np.full(len(pairs), np.nan)
    pvalue = np.full(len(pairs), np.nan)
    for index, (a, b) in enumerate(pairs):
        try:
            # the test's own default alternative
            result = analysis.run_test(spec, table, a, b, {"alternative": None})
        except CVReportError:
            continue
        statistic[index], pvalue[index] = float(result.statistic), float(result.pvalue)
    return statistic, pvalue


def pair_overview(
    table: ResultsTable,
    test: TestSpec | str,
    *,
    alpha: float = 0.05,
    correction: str | None = "holm",
    pairs: Sequence[tuple[Any, Any]] | None = None,
) -> pd.DataFrame:
    """One row per pair of models: mean losses, the test's statistic and p-values.

    Parameters
    ----------
    table : ResultsTable
    test : TestSpec or str
        The test to run on every pair, e.g. the design's recommended one (its spec, or
        its function's name).
    alpha : float
        Level of the ``significant`` column.
    correction : str or None
        Multiplicity correction over all pairs (statsmodels' ``multipletests``
        methods, e.g. ``"holm"``); ``None`` keeps the raw p-values.
    pairs : sequence of (A, B), optional
        Every pair of models in table order by default.

    Returns
    -------
    pandas.DataFrame
        Columns ``a, b, mean_a, mean_b, estimate`` (``mean_a − mean_b``),
        ``test, statistic, pvalue, adjusted, significant``.

    Notes
    -----
    The statistics are the test's own vectorised kernel on all pairs at once
    (the same numbers as calling the test on each pair); see the module
    documentation.
    """
    spec = test if isinstance(test, TestSpec) else get_spec(test, in_report=True)
    models = list(table.models)
    pairs = list(combinations(models, 2) if pairs is None else pairs)
    position = {model: index for index, model in enumerate(models)}
    first = np.array([position[a] for a, _ in pairs], dtype=np.int64)
    second = np.array([position[b] for _, b in pairs], dtype=np.int64)
    overall = _mean_losses(table)
    if table.higher_is_better:
        overall = -overall  # the table holds the negated score; show the score
    result = all_pairs(spec, table, pairs)
    if result is not None:
        statistic = np.asarray(result.statistic, dtype=np.float64)
        pvalue = np.asarray(result.pvalue, dtype=np.float64)
        if table.higher_is_better and _signed_statistic(spec, table, pairs[0]):
            statistic = -statistic  # the kernel ran on the negated score: in the score again
    else:
        statistic, pvalue = _pair_by_pair(table, spec, pairs)
    adjusted = pvalue.copy()
    finite = np.isfinite(pvalue)
    if correction is not None and finite.sum() > 1:
        from statsmodels.stats.multitest import multipletests

        adjusted[finite] = multipletests(pvalue[finite], alpha=alpha, method=correction)[1]
    return pd.DataFrame(
        {
            "a": [a for a, _ in pairs],
            "b": [b for _, b in pairs],
            "mean_a": overall[first],
            "mean_b": overall[second],
            # means that agree to rounding error differ by exactly zero
            "estimate": np.where(
                np.isclose(overall[first], overall[second], rtol=1e-12, atol=1e-14),
                0.0,
                overall[first] - overall[second],
            ),
            "test": spec.name,
            "statistic": statistic,
            "pvalue": pvalue,
            "adjusted": adjusted,
            "significant": np.where(finite, adjusted <= alpha, False),
        },
        columns=list(COLUMNS),
    )


def adjusted_by_pair(frame: pd.DataFrame) -> dict[frozenset[Any], float]:
    """The overview's adjusted p-value of each pair, keyed by the pair's two models (either
    order), for the detailed sections to decide with the same family."""
    return {
        frozenset((a, b)): float(p)
        for a, b, p in zip(frame["a"], frame["b"], frame["adjusted"])
        if np.isfinite(p)
    }


def detailed_pairs(table: ResultsTable, count: int = DETAILED_PAIRS) -> list[tuple[Any, Any]]:
    """The best model (lowest mean loss) against the ``count`` next best, best first.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> df = pd.DataFrame({"model": list("abc") * 2, "fold": [1] * 3 + [2] * 3,
    ...                    "record": [0, 0, 0, 1, 1, 1], "loss": [1, 0, 1, 0, 0, 1]})
    >>> detailed_pairs(ResultsTable.from_formula("loss ~ model | fold", df), 2)
    [('b', 'a'), ('b', 'c')]
    """
    order = np.argsort(_mean_losses(table), kind="stable")
    models = table.models
    best = models[int(order[0])]
    return [(best, models[int(k)]) for k in order[1 : count + 1]]


TEXT_ROWS = 30
"""Rows of the overview in Markdown and LaTeX (smallest adjusted p-values first); HTML has all."""


def context(
    frame: pd.DataFrame | None, correction: str | None, label: str | None = None
) -> dict[str, Any] | None:
    """What the templates show of an overview: every row for HTML, the first rows for text.

    ``label`` names the test as the detailed sections do (default: its spec's method).
    """
    if frame is None:
        return None

    rows = list(
        zip(
            frame["a"].astype(str),
            frame["b"].astype(str),
            frame["estimate"].to_numpy(dtype=np.float64).tolist(),
            frame["pvalue"].to_numpy(dtype=np.float64).tolist(),
            frame["adjusted"].to_numpy(dtype=np.float64).tolist(),
            frame["significant"].to_numpy(dtype=bool).tolist(),
        )
    )
    order = np.lexsort((np.arange(len(frame)), frame["adjusted"].fillna(np.inf).to_numpy()))
    test = str(frame["test"].iloc[0]) if len(frame) else ""
    models = pd.unique(pd.concat([frame["a"], frame["b"]]))
    method = label or (get_spec(test).method if test else "")
    return {
        "total": len(frame),
        "models": len(models),
        "test": method,
        "test_phrase": _with_article(method),
        "correction_name": interpret.correction_name(correction) if correction else None,
        "significant": int(frame["significant"].sum()),
        "rows": rows,
        "text_rows": [rows[int(i)] for i in order[:TEXT_ROWS]],
        "detailed": DETAILED_PAIRS,
    }


def _with_article(method: str) -> str:
    """A test's name as "each with …" reads it: "the corrected repeated K-fold CV t test",
    "Dietterich's 5×2cv paired t test" (a possessive takes no article)."""
    if not method:
        return method
    named = interpret.in_sentence(method)
    return named if method.split(" ", 1)[0].endswith("'s") else f"the {named}"
