"""The cross-validation design of a results table: m replications of K folds.

References
----------
Dietterich, T. G. (1998). Approximate statistical tests for comparing
supervised classification learning algorithms. Neural Computation 10(7).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd

from cvreport.errors import DesignError

__all__ = ["DESIGN_KINDS", "Design", "DesignKind", "design_kind", "size_range"]


class DesignKind(StrEnum):
    """The kind of a cross-validation design, with its names and the tests that give intervals.

    A ``str`` (``DesignKind.KFOLD == "kfold"``), so a kind compares, hashes, prints and
    formats as its plain name; ``repr`` shows that name too, so reprs of designs and
    reports read as before. A test's result carries the kind of its design as this
    value (``result.design_kind``), beside the design's sentence it prints.

    Examples
    --------
    >>> kind = design_kind(5, 2)
    >>> kind == "mx2", kind.short, kind.words
    (True, 'm×2', 'm×2 cross-validation')
    >>> kind.title(m=5, K=2)
    '5×2 cross-validation'
    >>> DesignKind.MX2.interval_hint
    'for an interval on the difference on this design use blocked_ttest_3x2cv or corrected_repeated_kfold_ttest'
    """

    HOLDOUT = "holdout"
    REPEATED_HOLDOUT = "repeated_holdout"
    KFOLD = "kfold"
    REPEATED_KFOLD = "repeated_kfold"
    MX2 = "mx2"

    def __repr__(self) -> str:
        return repr(self.value)

    @classmethod
    def named(cls, name: DesignKind | str) -> DesignKind:
        """The kind of a plain name (``"kfold"``); the value itself stays as it is.

        Raises
        ------
        DesignError
            For a name that is no design kind; the message lists the kinds.

        Examples
        --------
        >>> DesignKind.named("mx2") is DesignKind.MX2
        True
        >>> DesignKind.named("5x2")
        Traceback (most recent call last):
        ...
        cvreport.errors.DesignError: unknown design kind '5x2'; choose one of 'holdout', \
'repeated_holdout', 'kfold', 'repeated_kfold', 'mx2'
        """
        if isinstance(name, cls):
            return name
        try:
            return cls(name)
        except ValueError:
            kinds = ", ".join(repr(kind.value) for kind in cls)
            raise DesignError(f"unknown design kind {name!r}; choose one of {kinds}") from None

    @property
    def short(self) -> str:
        """The kind in two words, as the docs table of tests names it (``"K-fold"``)."""
        return _SHORT[self]

    @property
    def words(self) -> str:
        """The kind in a phrase, as a report's text names it (``"a single hold-out split"``)."""
        return _WORDS[self]

    def title(self, *, m: int, K: int) -> str:
        """The design's name with its sizes, e.g. ``"10-fold cross-validation"``."""
        return _TITLES[self].format(m=m, K=K)

    @property
    def interval_tests(self) -> tuple[str, ...]:
        """The tests that give an interval on the difference A − B on this kind of design."""
        return _INTERVAL_TESTS[self]

    @property
    def interval_hint(self) -> str:
        """Where to find an interval on the difference for a result that has none.

        On one hold-out split only the records give one: the paired bootstrap
        resamples them (a table built with ``ResultsTable.from_predictions``).
        """
        names = " or ".join(self.interval_tests)
        if self is DesignKind.HOLDOUT:
            return (
                f"for an interval on the difference on a single hold-out split use {names}, "
                "on a table of each record's truth and prediction (ResultsTable.from_predictions)"
            )
        return f"for an interval on the difference on this design use {names}"


_SHORT = {
    DesignKind.HOLDOUT: "hold-out",
    DesignKind.REPEATED_HOLDOUT: "repeated hold-out",
    DesignKind.KFOLD: "K-fold",
    DesignKind.REPEATED_KFOLD: "repeated K-fold",
    DesignKind.MX2: "m×2",
}
_WORDS = {
    DesignKind.HOLDOUT: "a single hold-out split",
    DesignKind.REPEATED_HOLDOUT: "repeated hold-out splits",
    DesignKind.KFOLD: "one run of K-fold cross-validation",
    DesignKind.REPEATED_KFOLD: "repeated K-fold cross-validation",
    DesignKind.MX2: "m×2 cross-validation",
}
_TITLES = {
    DesignKind.HOLDOUT: "hold-out validation",
    DesignKind.REPEATED_HOLDOUT: "repeated hold-out validation",
    DesignKind.KFOLD: "{K}-fold cross-validation",
    DesignKind.MX2: "{m}×2 cross-validation",
    DesignKind.REPEATED_KFOLD: "{m}×{K} cross-validation",
}
_INTERVAL_TESTS: dict[DesignKind, tuple[str, ...]] = {
    DesignKind.HOLDOUT: ("paired_bootstrap_test",),
    DesignKind.REPEATED_HOLDOUT: ("corrected_resampled_ttest",),
    DesignKind.KFOLD: ("corrected_repeated_kfold_ttest", "cv_confidence_interval"),
    DesignKind.REPEATED_KFOLD: ("corrected_repeated_kfold_ttest",),
    DesignKind.MX2: ("blocked_ttest_3x2cv", "corrected_repeated_kfold_ttest"),
}

#: Every design kind, in the order of the tests' table: hold-out, repeated hold-out,
#: K-fold, repeated K-fold, m×2.
DESIGN_KINDS: tuple[DesignKind, ...] = tuple(DesignKind)


def design_kind(m: int, n_folds: int) -> DesignKind:
    """The kind of a design of ``m`` replications of ``n_folds`` validation folds."""
    if n_folds == 1:
        return DesignKind.HOLDOUT if m == 1 else DesignKind.REPEATED_HOLDOUT
    if n_folds == 2 and m >= 2:
        return DesignKind.MX2
    return DesignKind.KFOLD if m == 1 else DesignKind.REPEATED_KFOLD


def size_range(sizes: tuple[int, ...]) -> str:
    low, high = min(sizes), max(sizes)
    return f"{low}" if low == high else f"{low}–{high}"


@dataclass(frozen=True)
class Design:
    """The cross-validation design of a results table.

    Attributes
    ----------
    kind : DesignKind
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

    kind: DesignKind
    m: int
    K: int
    n_records: int | None
    per_record: bool
    complete: bool
    replications: tuple[Any, ...]
    folds: tuple[Any, ...]
    sizes: tuple[int, ...] | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", DesignKind.named(self.kind))  # a name becomes the value

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
        name = self.kind.title(m=self.m, K=self.K)
        if self.kind is DesignKind.HOLDOUT:
            counts = []
        elif self.kind is DesignKind.REPEATED_HOLDOUT:
            counts = [f"J = {self.m} splits"]
        elif self.kind is DesignKind.KFOLD:
            counts = [f"K = {self.K}"]
        else:
            counts = [f"m = {self.m}", f"K = {self.K}"]
        if self.per_record and self.sizes is not None:
            counts.append(f"n = {self.n_records} records")
            if self.kind is not DesignKind.HOLDOUT:
                sets = "validation sets" if self.K == 1 else "folds"
                counts.append(f"{sets} of {size_range(self.sizes)}")
            if self.K >= 2 and not self.complete:
                counts.append("replications cover different records")
        elif self.K >= 2:
            counts.append("one score per fold")
        else:  # hold-out: a score per validation set, not per fold
            counts.append("one score per split" if self.m > 1 else "one score per model")
        return f"{name} ({', '.join(counts)})"

    def __str__(self) -> str:
        return self.describe()
