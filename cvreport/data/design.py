"""The cross-validation design of a results table: m replications of K folds.

References
----------
Dietterich, T. G. (1998). Approximate statistical tests for comparing
supervised classification learning algorithms. Neural Computation 10(7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.labels import encode_labels
from cvreport.errors import DesignError

__all__ = [
    "DESIGN_KINDS",
    "Design",
    "DesignKind",
    "design_kind",
    "partition_groups",
    "partitioned_blocks_error",
    "refuse_partitioned_blocks",
    "refuse_partitioned_blocks_in_engine",
    "size_range",
]


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


# --------------------------------------------------------------------------- one block read as


def partition_groups(block_sizes: Sequence[int], n_records: int) -> list[int] | None:
    """Each block's group when consecutive blocks add up to the records exactly, else ``None``.

    ``block_sizes`` are the records of each group of a formula's one block, in the
    blocks' sorted order. Replications of K-fold cross-validation whose folds are
    numbered across the replications (0..99 for 10×10 CV) show as consecutive runs of
    blocks whose sizes add up to the ``n_records`` records, each run of at least two
    blocks; this finds those runs from the sizes alone (whether the blocks of a run
    are disjoint is checked on the records, :func:`refuse_partitioned_blocks`).

    Examples
    --------
    >>> partition_groups([5, 5, 5, 5, 5, 5], 10)
    [0, 0, 1, 1, 2, 2]
    >>> partition_groups([5, 5, 4, 6], 10), partition_groups([7, 7, 6], 10)
    ([0, 0, 1, 1], None)
    >>> print(partition_groups([10, 10], 10))  # one block per run: hold-out splits
    None
    """
    groups: list[int] = []
    group, filled, blocks_in_group = 0, 0, 0
    for size in block_sizes:
        groups.append(group)
        filled += int(size)
        blocks_in_group += 1
        if filled > n_records:
            return None
        if filled == n_records:
            if blocks_in_group < 2:
                return None
            group, filled, blocks_in_group = group + 1, 0, 0
    if filled or group < 2:
        return None
    return groups


def partitioned_blocks_error(
    block: str,
    labels: Sequence[Any],
    groups: Sequence[int],
    n_records: int,
    response: str = "loss",
    model: str = "model",
) -> DesignError:
    """The error for a formula's one block whose groups partition the records several times.

    ``labels`` are the block's labels in sorted order and ``groups`` their runs
    (:func:`partition_groups`); ``response`` and ``model`` are the formula's left side
    and model column.

    Examples
    --------
    >>> error = partitioned_blocks_error("fold", list(range(6)), [0, 0, 0, 1, 1, 1], 30)
    >>> print(str(error)[:65])
    the 6 groups of column 'fold' form 2 partitions of the 30 records
    >>> print(str(error)[66:131])
    (each record is in exactly one of 'fold' 0–2, and in one of 3–5),
    """
    m = groups[-1] + 1
    runs = [[label for label, g in zip(labels, groups) if g == i] for i in range(m)]
    sizes = sorted({len(run) for run in runs})
    k_words = " or ".join(str(k) for k in sizes)
    shown = [f"{_label_text(run[0])}–{_label_text(run[-1])}" for run in runs[:3]]
    where = (
        f"each record is in exactly one of {block!r} {shown[0]}, and in one of {shown[1]}"
        if m == 2
        else f"each record is in exactly one of {block!r} {shown[0]}, one of {shown[1]}, "
        f"one of {shown[2]}{', …' if m > 3 else ''}"
    )
    numbered = "1..K" if len(sizes) > 1 else f"1..{sizes[0]}"
    made = "make one that names the partition of each row"
    start = labels[0]
    if len(sizes) == 1 and all(
        isinstance(label, (int, np.integer)) and not isinstance(label, bool) for label in labels
    ):
        if [int(label) for label in labels] == list(range(int(start), int(start) + len(labels))):
            shifted = block if int(start) == 0 else f"({block} - {int(start)})"
            made += (
                f", e.g. replication = {shifted} // {sizes[0]} and {block} = "
                f"{shifted} % {sizes[0]}"
            )
    return DesignError(
        f"the {len(labels)} groups of column {block!r} form {m} partitions of the "
        f"{n_records} records ({where}), so they are {m} replications of {k_words}-fold "
        f"cross-validation, not {len(labels)} repeated hold-out splits, and would be tested "
        "and audited as the wrong design; add the replication column to the formula "
        f"('{response} ~ {model} | replication + {block}', with {block!r} numbered the same "
        f"way in every replication, e.g. {numbered}), or, if the table has no replication "
        f"column, {made}"
    )


def _label_text(value: object) -> str:
    """A label as the user wrote it (``1``, not ``np.int64(1)``)."""
    return str(value.item() if isinstance(value, np.generic) else value)


def refuse_partitioned_blocks(
    data: pd.DataFrame, block: str, record: str, response: str = "loss", model: str = "model"
) -> bool:
    """Whether a record is in several groups of a formula's one block, which is then the
    replication of repeated hold-out — unless those groups are the folds of several K-fold
    runs, which is refused.

    When a record is in several groups of the block: if consecutive groups, in sorted order,
    hold disjoint records that together cover every record once, and every record
    is so covered in each run, the groups are the folds of repeated K-fold numbered
    across the replications, and the design cannot be read from one block. Random
    hold-out splits overlap and stay repeated hold-out.

    Returns
    -------
    bool
        ``True`` when some record is in several groups (repeated hold-out), ``False``
        when none is (the folds of one K-fold run).

    Raises
    ------
    DesignError
        The groups form several partitions of the records (the message names them).

    Examples
    --------
    >>> refuse_partitioned_blocks(pd.DataFrame({"fold": [0, 1], "record": [0, 1]}), "fold",
    ...                           "record")
    False
    >>> data = pd.DataFrame({"fold": [0, 1, 2, 3] * 2, "record": [0, 1, 1, 0] * 2,
    ...                      "model": ["a"] * 4 + ["b"] * 4})
    >>> try:
    ...     refuse_partitioned_blocks(data, "fold", "record")
    ... except DesignError as error:
    ...     print(str(error)[:60])
    the 4 groups of column 'fold' form 2 partitions of the 2 rec
    """
    block_codes, blocks = encode_labels(data[block], block, "block", "sorted")
    record_codes, records = encode_labels(
        data[record], record, "record", "sorted", code_dtype=np.int32
    )
    n_blocks, n_records = len(blocks), len(records)
    pairs = np.unique(record_codes.astype(np.int64) * n_blocks + block_codes)
    pair_records, pair_blocks = np.divmod(pairs, n_blocks)
    per_record = np.bincount(pair_records, minlength=n_records)
    if per_record.shape[0] == 0 or per_record.max() < 2:
        return False
    if per_record.min() != per_record.max():
        return True
    groups = partition_groups(np.bincount(pair_blocks, minlength=n_blocks).tolist(), n_records)
    if groups is None or groups[-1] + 1 != per_record[0]:
        return True
    group_of = np.asarray(groups, dtype=np.int64)[pair_blocks]
    runs = np.unique(pair_records * (groups[-1] + 1) + group_of)
    if runs.shape[0] == pairs.shape[0]:  # every record in one block of every run
        raise partitioned_blocks_error(
            block, blocks.tolist(), groups, n_records, response, model
        )
    return True


def refuse_partitioned_blocks_in_engine(
    frame: Any, block: str, record: str, response: str = "loss", model: str = "model"
) -> bool:
    """:func:`refuse_partitioned_blocks` for a narwhals LazyFrame, inside its engine.

    One query counts each record's groups: none in two groups is one K-fold run;
    records in different numbers of groups cannot be partitions (random hold-out
    splits end here, at the cost of the one query that told hold-out from K-fold
    before). Only when every record is in the same number m ≥ 2 of groups are the
    groups' sizes counted and each record's runs checked.
    """
    import narwhals.stable.v2 as nw

    pairs = frame.select(block, record).unique()
    per_record = pairs.group_by(record).agg(nw.len().alias("_blocks"))
    counted = (
        per_record.select(
            nw.col("_blocks").min().alias("_low"),
            nw.col("_blocks").max().alias("_high"),
            nw.len().alias("_records"),
        )
        .collect()
        .to_pandas()
    )
    if counted.shape[0] == 0 or counted["_records"].iloc[0] == 0:
        return False
    low, high = int(counted["_low"].iloc[0]), int(counted["_high"].iloc[0])
    n_records = int(counted["_records"].iloc[0])
    if high < 2:
        return False
    if low != high:
        return True
    sizes = pairs.group_by(block).agg(nw.len().alias("_size")).collect().to_pandas()
    if sizes[block].isna().any():
        return True
    try:
        sizes = sizes.sort_values(block, kind="stable")
    except TypeError:
        return True
    labels = sizes[block].tolist()
    groups = partition_groups(sizes["_size"].tolist(), n_records)
    if groups is None or groups[-1] + 1 != low:
        return True
    run = sum(
        nw.col(block).is_in([label for label, g in zip(labels, groups) if g >= i]).cast(nw.Int64)
        for i in range(1, low)
    )
    runs = (
        pairs.with_columns(run.alias("_run"))
        .group_by(record)
        .agg(nw.col("_run").n_unique().alias("_runs"))
        .filter(nw.col("_runs") != low)
    )
    if len(runs.head(1).collect().rows()) == 0:
        raise partitioned_blocks_error(block, labels, groups, n_records, response, model)
    return True
