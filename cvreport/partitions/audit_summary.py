"""The overlap audit at a size a reader can take in, whatever the number of replications.

An audit of m replications compares ``C(m, 2)`` pairs: 190 for m = 20, 499,500
for m = 1,000. Reports therefore show the pairs with the largest imbalance
``Z`` and a histogram of all of them; the complete table stays available as
:attr:`~cvreport.partitions.audit.OverlapAudit.pairs` (a DataFrame, e.g. for
``.to_csv()``). The verdict and ``Z_max`` always use every pair.

Examples
--------
>>> import cvreport
>>> table = cvreport.ResultsTable.from_formula(
...     "loss ~ model | replication + fold", cvreport.load_example())
>>> worst = worst_pairs(cvreport.audit_overlap(table), 3)
>>> worst[["replication_a", "replication_b"]].values.tolist(), worst["z"].round(4).tolist()
([[2, 4], [4, 5], [1, 2]], [9.7504, 8.7504, 4.2496])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import pandas as pd

from cvreport.summary_data import SummaryTable

__all__ = ["SHOWN_PAIRS", "histogram", "kfold_pair_legend", "summary_tables", "worst_pairs"]

SHOWN_PAIRS = 10
"""Pairs of replications listed in a report; more are summarised by the histogram."""

_HISTOGRAM_BINS = 10


class OverlapAudit(Protocol):
    """What these views read of an :class:`~cvreport.partitions.audit.OverlapAudit`."""

    @property
    def pairs(self) -> pd.DataFrame: ...

    @property
    def K(self) -> int: ...


def _pairs(audit: OverlapAudit | pd.DataFrame) -> pd.DataFrame:
    return audit if isinstance(audit, pd.DataFrame) else audit.pairs


def worst_pairs(audit: OverlapAudit | pd.DataFrame, count: int = SHOWN_PAIRS) -> pd.DataFrame:
    """The ``count`` pairs with the largest ``Z`` (ties: smaller p-value, then pair order).

    ``audit`` is an :class:`~cvreport.partitions.audit.OverlapAudit` or its ``pairs`` table.
    """
    pairs = _pairs(audit)
    order = np.lexsort((np.arange(len(pairs)), pairs["pvalue"].to_numpy(), -pairs["z"].to_numpy()))
    return pairs.iloc[order[:count]].reset_index(drop=True)


def histogram(audit: OverlapAudit | pd.DataFrame, bins: int = _HISTOGRAM_BINS) -> pd.DataFrame:
    """How many pairs have ``Z`` in each of ``bins`` equal ranges from 0 to ``Z_max``.

    Returns
    -------
    pandas.DataFrame
        Columns ``low, high, pairs, share``; the last range includes ``Z_max``.

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> histogram(cvreport.audit_overlap(table), 2)["pairs"].tolist()
    [8, 2]
    """
    z = _pairs(audit)["z"].to_numpy(dtype=np.float64)
    high = float(z.max()) if len(z) else 0.0
    if high <= 0:
        edges = np.array([0.0, 0.0])
        counts = np.array([len(z)])
    else:
        counts, edges = np.histogram(z, bins=bins, range=(0.0, high))
    total = max(int(counts.sum()), 1)
    return pd.DataFrame(
        {
            "low": edges[:-1],
            "high": edges[1:],
            "pairs": counts.astype(np.int64),
            "share": counts / total,
        }
    )


def kfold_pair_legend(K: int, fold_sizes: Sequence[int] | None, simulations: int) -> str:
    """What ``X``, ``E X``, ``Z`` and ``P(Z ≥ z)`` of a K-fold audit's pair table are.

    Two replications of K-fold cross-validation have ``K²`` pairs of training sets,
    not one: a row of the pair table shows the most deviant of them, so its ``Z`` is a
    largest deviation, and ``E X`` depends on the sizes of the two folds left out.

    Parameters
    ----------
    K : int
        Folds per replication (K > 2).
    fold_sizes : sequence of int or None
        Records per validation fold (None when unknown).
    simulations : int
        Random partitions drawn for the law of a pair's ``Z``.

    Returns
    -------
    str

    Examples
    --------
    >>> text = kfold_pair_legend(10, [57, 57, 56], 20_000)
    >>> "the largest of the 100 deviations" in text, "folds of 56–57 records" in text
    (True, True)
    """
    pairs = K * K
    sizes = sorted({int(v) for v in fold_sizes}) if fold_sizes else []
    if len(sizes) > 1:
        why = (
            f"; it differs between rows because the folds differ in size (folds of "
            f"{sizes[0]}–{sizes[-1]} records)"
        )
    elif sizes:
        why = f"; every fold holds {sizes[0]} records, so it is the same in every row"
    else:
        why = ""
    return (
        f"Two replications of {K}-fold cross-validation have K² = {pairs} pairs of training "
        "sets (all folds but fold i of one replication, all but fold j of the other), not "
        "one. Each row shows the pair furthest from its expectation: X is its overlap and "
        "E X = (n − a)(n − b)/n its expectation under random partitioning, for folds i and "
        f"j of a and b records{why}. Z = |X − E X| is the largest of the {pairs} "
        "deviations, not the deviation of one overlap, so it is larger than one overlap's "
        "spread would suggest; P(Z ≥ z) is the chance of so large a largest deviation under "
        f"random {K}-fold partitioning, simulated ({simulations:,} random partitions)."
    )


def summary_tables(audit: OverlapAudit) -> list[SummaryTable]:
    """The tables of :meth:`OverlapAudit.summary`: the worst pairs, and a histogram when many."""

    total = len(audit.pairs)
    shown = worst_pairs(audit)
    what = "X" if audit.K == 2 else f"X of the most deviant of {audit.K**2} pairs"
    caption = (
        f"Training-set overlap {what} of every pair of replications"
        if total <= SHOWN_PAIRS
        else f"The {len(shown)} pairs of replications with the largest Z, of {total:,} "
        "(every pair: .pairs)"
    )
    tables = [
        SummaryTable(
            caption=caption,
            columns=("replication", "replication", "n", "X", "E X", "Z", "P(Z ≥ z)"),
            rows=tuple(
                (str(a), str(b), int(n), int(x), float(e), float(z), float(p))
                for a, b, n, x, e, z, p in shown.itertuples(index=False, name=None)
            ),
            kinds=("text", "text", "value", "value", "number", "number", "pvalue"),
        )
    ]
    if total > SHOWN_PAIRS:
        bins = histogram(audit)
        tables.append(
            SummaryTable(
                caption=f"Z of all {total:,} pairs of replications",
                columns=("Z from", "Z to", "pairs", "share"),
                rows=tuple(
                    (float(lo), float(hi), int(n), float(s))
                    for lo, hi, n, s in bins.itertuples(index=False, name=None)
                ),
                kinds=("number", "number", "value", "number"),
            )
        )
    return tables
