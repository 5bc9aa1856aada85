"""The cross-validation design of a results table: m replications of K folds.

References
----------
Dietterich, T. G. (1998). Approximate statistical tests for comparing
supervised classification learning algorithms. Neural Computation 10(7).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["DESIGN_KINDS", "Design", "design_kind", "size_range"]

DESIGN_KINDS = ("holdout", "repeated_holdout", "kfold", "mx2", "repeated_kfold")


def design_kind(m: int, n_folds: int) -> str:
    if n_folds == 1:
        return "holdout" if m == 1 else "repeated_holdout"
    if n_folds == 2 and m >= 2:
        return "mx2"
    return "kfold" if m == 1 else "repeated_kfold"


def size_range(sizes: tuple[int, ...]) -> str:
    low, high = min(sizes), max(sizes)
    return f"{low}" if low == high else f"{low}–{high}"


@dataclass(frozen=True)
class Design:
    """The cross-validation design of a results table.

    Attributes
    ----------
    kind : str
        ``"holdout"`` (one split), ``"repeated_holdout"`` (J splits of one
        validation set each), ``"kfold"`` (one run of K-fold CV),
        ``"mx2"`` (m ≥ 2 replications of 2-fold CV) or ``"repeated_kfold"``.
    m : int
        Number of replications.
    K : int
        Number of folds per replication.
    n_records : int or None
        Distinct records in the table (``None`` for per-fold scores).
    per_record : bool
        Whether the table holds per-record losses.
    complete : bool
        Whether every replication partitions the same record set (each record in
        exactly one fold of every replication).
    replications, folds : tuple
        The labels, sorted.
    sizes : tuple of int or None
        Records per (replication, fold), row-major (``None`` for per-fold scores).

    Examples
    --------
    >>> d = Design(kind="mx2", m=5, K=2, n_records=1000, per_record=True, complete=True,
    ...            replications=(1, 2, 3, 4, 5), folds=(1, 2), sizes=(500,) * 10)
    >>> d.describe()
    '5×2 cross-validation (m = 5, K = 2, n = 1000 records, folds of 500)'
    >>> d.is_mx2, d.is_kfold
    (True, False)
    """

    kind: str
    m: int
    K: int
    n_records: int | None
    per_record: bool
    complete: bool
    replications: tuple[Any, ...]
    folds: tuple[Any, ...]
    sizes: tuple[int, ...] | None

    @property
    def fold_sizes(self) -> pd.DataFrame:
        """Records per validation fold: columns ``replication, fold, n`` (NA for per-fold scores)."""
        n = (
            pd.array(self.sizes, dtype="int64")
            if self.sizes is not None
            else pd.array([pd.NA] * (self.m * self.K), dtype="Int64")
        )
        return pd.DataFrame(
            {
                "replication": pd.Index(list(self.replications)).repeat(self.K),
                "fold": pd.Index(list(self.folds)).take(np.tile(np.arange(self.K), self.m)),
                "n": n,
            }
        )

    @property
    def is_mx2(self) -> bool:
        """Two folds per replication (any m ≥ 1)."""
        return self.K == 2

    @property
    def is_kfold(self) -> bool:
        """One run of K-fold cross-validation (K ≥ 2)."""
        return self.m == 1 and self.K >= 2

    @property
    def is_repeated_kfold(self) -> bool:
        """Several replications of K-fold cross-validation (m ≥ 2, K ≥ 2)."""
        return self.m >= 2 and self.K >= 2

    @property
    def is_holdout(self) -> bool:
        """One validation set per replication (hold-out or repeated hold-out)."""
        return self.K == 1

    def describe(self) -> str:
        """A short sentence naming the design, e.g. for reports and error messages."""
        name = {
            "holdout": "hold-out validation",
            "repeated_holdout": "repeated hold-out validation",
            "kfold": f"{self.K}-fold cross-validation",
            "mx2": f"{self.m}×2 cross-validation",
            "repeated_kfold": f"{self.m}×{self.K} cross-validation",
        }[self.kind]
        if self.kind == "holdout":
            counts = []
        elif self.kind == "repeated_holdout":
            counts = [f"J = {self.m} splits"]
        elif self.kind == "kfold":
            counts = [f"K = {self.K}"]
        else:
            counts = [f"m = {self.m}", f"K = {self.K}"]
        if self.per_record and self.sizes is not None:
            counts.append(f"n = {self.n_records} records")
            if self.kind != "holdout":
                sets = "validation sets" if self.K == 1 else "folds"
                counts.append(f"{sets} of {size_range(self.sizes)}")
            if self.K >= 2 and not self.complete:
                counts.append("replications cover different records")
        else:
            counts.append("one score per fold")
        return f"{name} ({', '.join(counts)})"

    def __str__(self) -> str:
        return self.describe()
