"""How good were the partitions? The overlap audit of m×2 (and repeated K-fold) designs.

For every two replications, the training sets of their first splits share
``X`` records; random partitioning makes ``X`` hypergeometric around ``n/4`` and
``Z = |X − n/4|`` measures the imbalance (Wang, Li, Li 2015). The
audit reports ``X`` and ``Z`` for every pair, ``Z_max``, the probability that
random partitioning gives a ``Z_max`` at least this large, which design the
partitions follow (random, balanced, block-regularized) and what that means for
the tests.

Why it matters: the correlation between replications depends on the overlap,
so unbalanced partitions change the variance of the 5×2 statistics. In Wang,
Li & Li's (2015) Example 2 (n = 200) the 5×2cv F-test's type I error was 0.037 with every
overlap at n/4 = 50, 0.055 with a largest overlap of 59 and 0.070 with 90; its
type II error 0.050, 0.061 and 0.086. Wang, Li & Li (2017) §3 shows the same with a largest
overlap of 9n/20, and builds the calibrated F(7, 5) test on balanced partitions.

Examples
--------
>>> import numpy as np, pandas as pd
>>> from cvreport.partitions.splits import BlockRegularizedCV
>>> from cvreport.data.table import ResultsTable
>>> folds = BlockRegularizedCV(m=5, random_state=0).assignment(40)
>>> rows = pd.concat([folds.assign(model=m, loss=0.0) for m in ("A", "B")])
>>> audit = audit_overlap(ResultsTable(rows))
>>> audit.design, audit.z_max, audit.verdict
('block-regularized', 0.0, 'balanced')
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.data.design import DesignKind
from cvreport.data.table_input import as_table
from cvreport.errors import DesignError, RepeatedPartitionWarning, user_stacklevel
from cvreport.option_values import check_alpha
from cvreport.partitions.audit_summary import kfold_pair_legend, summary_tables
from cvreport.partitions.overlap import REFERENCE as OVERLAP_REFERENCE
from cvreport.partitions.overlap import overlap_distribution, overlap_quantile, zmax_sf
from cvreport.partitions.splits import block_regularized_signs
from cvreport.rendering.formatting import format_number, format_pvalue
from cvreport.results import HypothesisTestResult
from cvreport.summary_data import SummaryRow, SummaryTable

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["OverlapAudit", "PairOverlap", "audit_overlap"]

REFERENCE = "\n".join(
    [
        OVERLAP_REFERENCE,
        "Wang, Y., Li, J., Li, Y. (2017). Choosing between two classification learning "
        "algorithms based on calibrated balanced 5×2 cross-validated F-test. Neural "
        "Processing Letters 46:1–13.",
        "Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated "
        "McNemar's test for comparing two classification algorithms.",
    ]
)

# Monte Carlo size and seed for the repeated K-fold extension (fixed: the audit is deterministic)
_KFOLD_SIMULATIONS = 20_000
_KFOLD_SEED = 20150814

# Wang, Li & Li (2017) Table 1 in replication order: replications 1-2-3 and 1-4-5 are the two
# triples whose first-split memberships multiply to ±1 for every record.
_BALANCED_TRIPLES = frozenset({(0, 1, 2), (0, 3, 4)})


@dataclass(frozen=True)
class PairOverlap:
    """Training-set overlap of one pair of replications.

    Attributes
    ----------
    replication_a, replication_b : object
        The two replication labels.
    n : int
        Records validated in both replications.
    overlap : int
        ``X``: records in both training sets (first splits; for K-fold, the pair of
        training sets whose overlap is furthest from its expectation).
    expected : float
        ``E X`` under random partitioning (``n/4`` for halves; ``n((K−1)/K)²`` for K folds).
    z : float
        ``Z = |X − E X|``.
    pvalue : float
        ``P(Z ≥ z)`` for this pair under random partitioning.
    """

    replication_a: Any
    replication_b: Any
    n: int
    overlap: int
    expected: float
    z: float
    pvalue: float


_PAIR_COLUMNS = ("replication_a", "replication_b", "n", "overlap", "expected", "z", "pvalue")


@dataclass(frozen=True, kw_only=True, repr=False)
class OverlapAudit(HypothesisTestResult):
    """The overlap audit of a results table's partitions.

    A member of the result family as a test of the partitions
    (:class:`~cvreport.results.HypothesisTestResult`): it compares no two models,
    so it has no estimate, models or metric. Unpacks as ``z_max, pvalue = audit``.
    ``pvalue`` is ``P(Z_max ≥ observed)``
    under random partitioning, the ``C(m, 2)`` pairs treated as independent
    (the model behind Wang, Li & Li (2015)'s Tables 5–8, docs/methods.md).

    Attributes
    ----------
    design : str
        The partition design recognised: ``"random"``, ``"balanced"`` (Wang, Li & Li (2017)
        Table 1) or ``"block-regularized"`` (Yang et al. Table III and other
        orthogonal-array designs, including the blocked 3×2).
    verdict : str
        ``"balanced"``, ``"typical"`` (a ``Z_max`` random partitioning often
        gives) or ``"poor"`` (``pvalue ≤ alpha``: worse than random partitioning
        usually is).
    meaning : str
        What the verdict means for the tests.
    cv_design : str
        The cross-validation design, e.g. ``"5×2 cross-validation (...)"``.
    cv_design_kind : DesignKind or None
        Its kind as a value (``"mx2"``, ``"repeated_kfold"``, ...).
    n_records, m, K : int
        Records, replications and folds per replication.
    expected_overlap : float
        ``n/4`` (``n((K−1)/K)²`` for K folds).
    expected_zmax : float or None
        ``E Z_max`` under random partitioning, for scale.
    quantiles : tuple or None
        Wang, Li & Li (2015)'s tabulated ``k(P > 0.2)`` and ``k(P > 0.1)`` for this ``n`` and ``m``.
    pair_table : pandas.DataFrame
        One row per pair of replications (:attr:`pairs`); :attr:`pair_overlaps`
        gives the rows as :class:`PairOverlap` objects.
    alpha : float
        Threshold of the "poor" verdict.
    pair_legend : str
        What ``X``, ``E X``, ``Z`` and ``P(Z ≥ z)`` of a row of :attr:`pairs` are when
        that is not one overlap of two training sets (K-fold: the most deviant of ``K²``);
        empty for m×2 designs.

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> z_max, pvalue = cvreport.audit_overlap(table)
    >>> round(z_max, 4), round(pvalue, 3)
    (9.7504, 0.693)
    """

    design: str = ""
    verdict: str = ""
    meaning: str = ""
    cv_design: str = ""
    cv_design_kind: DesignKind | None = None
    n_records: int = 0
    m: int = 0
    K: int = 2
    expected_overlap: float = math.nan
    expected_zmax: float | None = None
    quantiles: tuple[int | float, int | float] | None = None
    pair_table: pd.DataFrame | None = None
    alpha: float = 0.1
    pair_legend: str = ""
    repeated_partitions: tuple[tuple[Any, Any], ...] = ()

    @property
    def repeats_partitions(self) -> bool:
        """Whether some replication repeats the partition of an earlier one."""
        return bool(self.repeated_partitions)

    @property
    def repeated_partitions_text(self) -> str:
        """The repeats in words, e.g. ``"replications 2–10 repeat replication 1's partition"``
        (empty when every replication has its own partition)."""
        return describe_repeats(self.repeated_partitions, self.m)

    @property
    def z_max(self) -> float:
        """``Z_max``: the largest ``|X − E X|`` over pairs of replications."""
        return float(self.statistic)

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per pair of replications: ``X``, its expectation, ``Z`` and ``P(Z ≥ z)``."""
        if self.pair_table is None:
            return pd.DataFrame(columns=list(_PAIR_COLUMNS))
        return self.pair_table.copy()

    @property
    def pair_overlaps(self) -> tuple[PairOverlap, ...]:
        """The rows of :attr:`pairs` as :class:`PairOverlap` objects."""
        return tuple(PairOverlap(*row) for row in self.pairs.itertuples(index=False, name=None))

    def to_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """One tidy row: design, ``Z_max``, p-value and verdict.

        The verdict's own threshold is :attr:`alpha`, fixed when the audit ran;
        the ``alpha`` given here is only checked.
        """
        return super().to_frame(alpha)

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        return {
            "test": self.test,
            "method": self.method,
            "design": self.design,
            "cv_design": self.cv_design,
            "n_records": self.n_records,
            "m": self.m,
            "K": self.K,
            "expected_overlap": self.expected_overlap,
            "z_max": self.z_max,
            "expected_zmax": self.expected_zmax,
            "pvalue": self.pvalue,
            "verdict": self.verdict,
            "warnings": " | ".join(self.warnings),
        }

    def _expected_overlap_row(self) -> SummaryRow:
        """E X as the pairs' Z use it (``a b / n`` from the training sizes; ``n/4`` is only
        its value for halves of an n divisible by 4)."""
        used = sorted(set(np.round(self.pair_table["expected"].to_numpy(dtype=float), 10)))
        if len(used) == 1:
            return SummaryRow("expected overlap E X", float(used[0]), "number")
        if used:
            return SummaryRow("expected overlap E X", f"{used[0]:.4f}–{used[-1]:.4f}", "text")
        return SummaryRow("expected overlap E X", self.expected_overlap, "number")

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        rows = [
            SummaryRow("cross-validation design", self.cv_design, "text"),
            SummaryRow("records (n)", self.n_records, "value"),
            SummaryRow("replications (m)", self.m, "value"),
            SummaryRow("partitions recognised as", self.design, "text"),
            self._expected_overlap_row(),
            SummaryRow("Z_max = max |X − E X|", self.z_max, "number"),
            SummaryRow("P(Z_max ≥ observed), random partitioning", self.pvalue, "pvalue"),
        ]
        if self.expected_zmax is not None:
            rows.append(SummaryRow("E Z_max, random partitioning", self.expected_zmax, "number"))
        if self.quantiles is not None:
            rows.append(
                SummaryRow("Wang, Li & Li (2015) quantile k(P > 0.2)", self.quantiles[0], "value")
            )
            rows.append(
                SummaryRow("Wang, Li & Li (2015) quantile k(P > 0.1)", self.quantiles[1], "value")
            )
        if self.repeated_partitions:
            rows.append(SummaryRow("repeated partitions", self.repeated_partitions_text, "text"))
        rows.append(SummaryRow("verdict", self.verdict, "text"))
        return rows

    def _summary_tables(self, alpha: float = 0.05) -> list[SummaryTable]:
        return summary_tables(self)

    def _interpretation(self) -> str | None:
        return self.meaning

    def __repr__(self) -> str:
        return (
            f"OverlapAudit(design={self.design!r}, z_max={self.z_max:.6g}, "
            f"pvalue={self.pvalue:.6g}, verdict={self.verdict!r})"
        )


# --------------------------------------------------------------------------
# pieces
# --------------------------------------------------------------------------
def _label_runs(labels: list[Any]) -> str:
    """Labels in words, runs of consecutive integers as ranges: ``"2–10"``, ``"2, 4 and 7–9"``."""
    parts: list[str] = []
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in labels):
        values = sorted(int(v) for v in labels)
        start = previous = values[0]
        for value in [*values[1:], None]:
            if value is not None and value == previous + 1:
                previous = value
                continue
            parts.append(f"{start}" if start == previous else f"{start}–{previous}")
            if value is not None:
                start = previous = value
    else:
        parts = [str(v) for v in labels]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def describe_repeats(repeats: tuple[tuple[Any, Any], ...], m: int | None = None) -> str:
    """The repeated partitions in words.

    ``repeats`` pairs each replication with the earlier replication whose partition it
    repeats.

    >>> describe_repeats(tuple((r, 1) for r in range(2, 11)), 10)
    "replications 2–10 repeat replication 1's partition: the table holds 1 distinct partition of the records, not 10"
    >>> describe_repeats((("b", "a"),))
    "replication b repeats replication a's partition"
    """
    if not repeats:
        return ""
    originals: dict[Any, list[Any]] = {}
    for repeat, original in repeats:
        originals.setdefault(original, []).append(repeat)
    clauses = []
    for original, copies in originals.items():
        verb = "repeats" if len(copies) == 1 else "repeat"
        noun = "replication" if len(copies) == 1 else "replications"
        clauses.append(f"{noun} {_label_runs(copies)} {verb} replication {original}'s partition")
    text = "; ".join(clauses)
    if m is not None:
        distinct = m - len(repeats)
        noun = "partition" if distinct == 1 else "partitions"
        text += f": the table holds {distinct} distinct {noun} of the records, not {m}"
    return text


def _repeated_partitions(
    membership: np.ndarray, replications: list[Any]
) -> tuple[tuple[Any, Any], ...]:
    """Each replication whose partition repeats an earlier one's, with that earlier one.

    Two replications repeat one partition when their folds hold the same records,
    whatever the folds are called: the largest overlap two partitions can have. The
    folds are relabelled in the order the records first meet them, so equal partitions
    give equal columns. Only records every replication validates are compared.
    """
    complete = np.all(membership >= 0, axis=1)
    rows = membership[complete]
    if len(rows) < 2:
        return ()
    first_seen: dict[bytes, Any] = {}
    repeats: list[tuple[Any, Any]] = []
    for column, label in enumerate(replications):
        _, first, inverse = np.unique(rows[:, column], return_index=True, return_inverse=True)
        order = np.argsort(np.argsort(first))
        key = order[inverse.ravel()].astype(np.int64).tobytes()
        if key in first_seen:
            repeats.append((label, first_seen[key]))
        else:
            first_seen[key] = label
    return tuple(repeats)


def _pair_table(fi: np.ndarray, fj: np.ndarray, K: int, weights: np.ndarray) -> np.ndarray:
    """``(K, K)`` counts of records by fold in replication i (rows) and j (columns)."""
    table = np.zeros(K * K, dtype=np.int64)
    np.add.at(table, fi * K + fj, weights)
    return table.reshape(K, K)


def _kfold_max_deviation(
    rows: np.ndarray, cols: np.ndarray, n_sim: int, rng: np.random.Generator
) -> np.ndarray:
    """Monte Carlo of ``max_ab |V_ab − r_a c_b / n|`` for a random K×K table with fixed margins."""
    n = int(rows.sum())
    K_r, K_c = len(rows), len(cols)
    remaining_cols = np.tile(cols.astype(np.int64), (n_sim, 1))
    expected = np.outer(rows, cols) / n
    worst = np.zeros(n_sim)
    for a in range(K_r):
        need = np.full(n_sim, int(rows[a]), dtype=np.int64)
        left = remaining_cols.sum(axis=1)
        for b in range(K_c):
            good = remaining_cols[:, b]
            left = left - good
            x = need if b == K_c - 1 else rng.hypergeometric(good, left, need)
            remaining_cols[:, b] = good - x
            need = need - x
            worst = np.maximum(worst, np.abs(x - expected[a, b]))
    return worst


@dataclass(frozen=True, eq=False)
class _PairLaw:
    """Law of one pair's ``Z`` under random partitioning: exact (2 folds) or simulated."""

    n: int
    sizes: tuple[int, int] | None = None  # 2 folds: training-set sizes
    draws: np.ndarray | None = None  # K folds: sorted simulated Z

    def tails(self, z: np.ndarray | float) -> np.ndarray:
        """``P(Z ≥ z)`` elementwise."""
        values = np.asarray(z, dtype=np.float64)
        if self.draws is not None:
            above = len(self.draws) - np.searchsorted(self.draws, values - 1e-9, side="left")
            return np.asarray(above / len(self.draws), dtype=np.float64)
        assert self.sizes is not None
        a, b = self.sizes
        if self.n < 2 or a in (0, self.n) or b in (0, self.n):
            return np.ones_like(values)
        tail = np.asarray(overlap_distribution(self.n, (a, b)).tail(values), dtype=np.float64)
        return np.minimum(tail, 1.0)

    def tail(self, z: float) -> float:
        """``P(Z ≥ z)``."""
        if self.draws is not None:
            above = len(self.draws) - np.searchsorted(self.draws, z - 1e-9, side="left")
            return float(above / len(self.draws))
        assert self.sizes is not None
        a, b = self.sizes
        if self.n < 2 or a in (0, self.n) or b in (0, self.n):
            return 1.0  # an empty fold: nothing can deviate
        return min(float(overlap_distribution(self.n, (a, b)).tail(z)), 1.0)


@dataclass(frozen=True)
class _MeasuredPairs:
    """Every pair ``i < j`` of replications: records, overlap, expectation, ``Z``, and laws."""

    i: np.ndarray
    j: np.ndarray
    n: np.ndarray
    overlap: np.ndarray
    expected: np.ndarray
    z: np.ndarray
    law: np.ndarray  # index into laws, one per pair
    laws: tuple[_PairLaw, ...]

    def tails(self, z: np.ndarray | float) -> np.ndarray:
        """``P(Z ≥ z)`` of every pair, at its own ``z`` (an array) or at one value."""
        out = np.empty(len(self.i))
        for index, law in enumerate(self.laws):
            chosen = self.law == index
            at = z[chosen] if isinstance(z, np.ndarray) else z
            out[chosen] = law.tails(at)
        return out


def _measure_pairs(membership: np.ndarray, K: int, weights: np.ndarray) -> _MeasuredPairs:
    """Overlaps of every pair of replications ``i < j``.

    ``membership`` rows are distinct patterns of records, ``weights`` how many records
    share each. For two folds the counts of all pairs come from three matrix products
    (milliseconds for m = 1,000); K folds loop over pairs.
    """
    w = weights.astype(np.float64)[:, None]
    m = membership.shape[1]
    i, j = np.triu_indices(m, k=1)
    if K == 2:
        validated = (membership >= 0).astype(np.float64)
        second = (membership == 1).astype(np.float64)
        n = np.rint(validated.T @ (validated * w))[i, j].astype(np.int64)
        a = np.rint(second.T @ (validated * w))[i, j].astype(np.int64)
        b = np.rint(validated.T @ (second * w))[i, j].astype(np.int64)
        x = np.rint(second.T @ (second * w))[i, j].astype(np.int64)
        expected = a * b / n
        z = np.abs(x * n - a * b) / n
        base = int(n.max()) + 1  # one integer per (n, a, b): 1-D unique is fast
        unique, law = np.unique((n * base + a) * base + b, return_inverse=True)
        laws = tuple(
            _PairLaw(n=int(k // base // base), sizes=(int(k // base % base), int(k % base)))
            for k in unique
        )
        return _MeasuredPairs(i, j, n, x, expected, z, law.ravel(), laws)
    rng = np.random.default_rng(_KFOLD_SEED)
    simulated: dict[tuple[Any, ...], int] = {}
    law_list: list[_PairLaw] = []
    columns: list[list[float]] = [[], [], [], [], []]
    for first, second_ in zip(i.tolist(), j.tolist()):
        both = (membership[:, first] >= 0) & (membership[:, second_] >= 0)
        n_pair = int(weights[both].sum())
        counts = _pair_table(membership[both, first], membership[both, second_], K, weights[both])
        rows, cols = counts.sum(axis=1), counts.sum(axis=0)
        # training overlap n − r_a − c_b + V_ab deviates from its expectation
        # exactly as the validation overlap V_ab does from r_a c_b / n
        dev = np.abs(counts - np.outer(rows, cols) / n_pair)
        ra, cb = np.unravel_index(int(np.argmax(dev)), dev.shape)
        key = (n_pair, tuple(rows.tolist()), tuple(cols.tolist()))
        if key not in simulated:
            draws = _kfold_max_deviation(rows, cols, _KFOLD_SIMULATIONS, rng)
            simulated[key] = len(law_list)
            law_list.append(_PairLaw(n=n_pair, draws=np.sort(draws)))
        columns[0].append(n_pair)
        columns[1].append(int(n_pair - rows[ra] - cols[cb] + counts[ra, cb]))
        columns[2].append(float((n_pair - rows[ra]) * (n_pair - cols[cb]) / n_pair))
        columns[3].append(float(dev[ra, cb]))
        columns[4].append(simulated[key])
    n_, x_, expected_, z_, law_ = (np.asarray(c) for c in columns)
    return _MeasuredPairs(
        i,
        j,
        n_.astype(np.int64),
        x_.astype(np.int64),
        expected_,
        z_,
        law_.astype(np.int64),
        tuple(law_list),
    )


def _membership_patterns(
    signs: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of the ±1 membership matrix and how many records share each.

    Rows are packed into one integer each first: ``np.unique(axis=0)`` sorts
    whole rows and is about a hundred times slower on a million records.
    """
    m = signs.shape[1]
    if weights is None:
        weights = np.ones(signs.shape[0], dtype=np.int64)
    if m > 62:
        rows, inverse = np.unique(signs, axis=0, return_inverse=True)
        return rows, np.bincount(inverse.ravel(), weights=weights).astype(np.int64)
    codes = (signs > 0).astype(np.int64) @ (np.int64(1) << np.arange(m, dtype=np.int64))
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return signs[first], np.bincount(inverse.ravel(), weights=weights).astype(np.int64)


def _recognise(signs: np.ndarray, z_max: float, K: int, weights: np.ndarray | None = None) -> str:
    """Random, balanced or block-regularized, from the records' membership patterns.

    A block design puts the records into at most ``N`` membership patterns of
    near-equal size whose ±1 columns are balanced and pairwise orthogonal (a
    two-level orthogonal array). Among such designs for five replications, Wang,
    Li & Li's (2017) balanced 5×2 is told from Yang et al.'s by which triples of replications
    are aliased (their memberships multiply to the same sign on every block).
    """
    if K != 2:
        return "balanced" if z_max == 0 else "random"
    m = signs.shape[1]
    patterns, counts = _membership_patterns(signs, weights)
    n_blocks = block_regularized_signs(m).shape[0]
    blocky = len(patterns) <= n_blocks and counts.max() - counts.min() <= 1
    if blocky and len(patterns) % 4 == 0:
        gram = patterns.T @ patterns
        blocky = bool(
            np.all(patterns.sum(axis=0) == 0) and np.all(gram[~np.eye(m, dtype=bool)] == 0)
        )
    else:
        blocky = False
    if not blocky:
        return "block-regularized" if z_max == 0 else "random"
    if m == 5 and len(patterns) == 8:
        triples = {
            t
            for t in ((a, b, c) for a in range(5) for b in range(a + 1, 5) for c in range(b + 1, 5))
            if abs(int(np.prod(patterns[:, list(t)], axis=1).sum())) == 8
        }
        if triples == _BALANCED_TRIPLES:
            return "balanced"
    return "block-regularized"


def _probability_words(p: float) -> str:
    """``0.693``, or ``below 0.001`` where three decimals would print 0 (never ``-0.000``)."""
    text = format_pvalue(p)
    return f"below {text[1:]}" if text.startswith("<") else text


def _expected_zmax(n: int, m: int) -> float:
    """``E Z_max = Σ (v_{i+1} − v_i) P(Z_max > v_i)`` over the support ``v`` of ``Z``."""
    values = overlap_distribution(n).values
    sf = np.asarray(zmax_sf(values[:-1], n, m))
    return float(values[0] + np.sum(np.diff(values) * sf))


def _meaning(
    verdict: str,
    design: str,
    z_max: float,
    pvalue: float,
    K: int,
    *,
    repeats: tuple[tuple[Any, Any], ...] = (),
    m: int | None = None,
) -> str:
    z_text = f"{z_max:g}" if float(z_max).is_integer() else format_number(z_max)
    if repeats:
        said = describe_repeats(repeats, m)
        one = m is not None and m - len(repeats) == 1
        return (
            f"The replications do not draw fresh partitions. {said[:1].upper()}{said[1:]}"
            f"{f' (this is one {K}-fold cross-validation)' if one else ''}. Identical partitions "
            "have the largest overlap two partitions can have (Z_max = "
            f"{z_text}). The tests for repeated cross-validation treat every replication as a "
            "fresh random partition; repeats make them count the same split several times, "
            "which shrinks the variance of the mean difference and the p-values. Test the "
            "distinct partitions only (keep one replication of each), or rerun the experiment "
            "with a new random partition for every replication."
        )
    share = "a quarter of the records" if K == 2 else "their expected n((K−1)/K)² records"
    if verdict == "balanced":
        text = (
            "Every two training sets of different replications share (as near as the number "
            f"of records allows) {share}, so the replications are equally and minimally "
            "correlated. This is what the calibrated balanced 5×2cv F test (F(7, 5), Wang, Li "
            "& Li 2017) and the 5×2 BCV McNemar test (Yang et al.) assume; their calibrated "
            "degrees of freedom and "
            "effective table apply."
        )
        if design == "random":
            text += " The balance arose by chance rather than by design."
        return text
    common = (
        f"Z_max = {z_text}; random partitioning gives a Z_max at least this large with "
        f"probability {_probability_words(pvalue)}"
    )
    if K != 2:
        if verdict == "typical":
            return (
                f"The training sets of different replications overlap about as random K-fold "
                f"partitioning makes them ({common}). The corrected repeated K-fold CV t test "
                "and its relatives were built and studied on such random partitions."
            )
        return (
            f"The training sets of different replications overlap unusually unevenly "
            f"({common}), which changes how strongly the replications are correlated; the "
            "variance corrections of the repeated K-fold tests assume typical overlaps. "
            "Read their results with caution and draw fresh random partitions when the "
            "experiment is rerun."
        )
    if verdict == "typical":
        return (
            f"The overlaps vary as random partitioning usually makes them ({common}). Wang, Li "
            "& Li (2015) show that such imbalance is common and that it moves the 5×2 tests a "
            "little: in their Example 2 (n = 200) the 5×2cv F test's type I error was 0.037 with "
            "every overlap at n/4 and 0.055 with a largest overlap of n/4 + 9. The partitions "
            "are not balanced, so the calibrated tests, which assume balance, are not "
            "recommended here; Alpaydın's combined F test makes no such assumption. Designed "
            "partitions (cvreport.splits.BlockRegularizedCV) remove this source of "
            "variance in the next experiment."
        )
    return (
        f"The training sets overlap unusually unevenly ({common}). Unbalanced partitions "
        "inflate the variance of the cross-validated estimates and the errors of the tests: "
        "in Wang, Li & Li (2015)'s Example 2 (n = 200) a largest overlap of 90 instead of 50 raised the "
        "5×2cv F-test's type I error from 0.037 to 0.070 and its type II error from 0.050 "
        "to 0.086; Wang, Li & Li (2017) §3 reports the same for a largest overlap of 9n/20. Read the "
        "t and F tests on these partitions with caution and prefer balanced or "
        "block-regularized partitions (cvreport.splits) when the experiment is rerun."
    )


# --------------------------------------------------------------------------
# the audit
# --------------------------------------------------------------------------
def audit_overlap(
    table: ResultsTable | str, data: pd.DataFrame | None = None, *, alpha: float = 0.1
) -> OverlapAudit:
    """Audit the training-set overlaps of the partitions behind a results table.

    Parameters
    ----------
    table : ResultsTable or str
        Per-record losses of an m×2 design (``m ≥ 2``) or, as an extension, of
        repeated K-fold cross-validation; or a formula such as
        ``"loss ~ model | replication + fold"`` with ``data``.
    data : DataFrame, optional
        The long-format losses, when ``table`` is a formula.
    alpha : float, default 0.1
        The verdict is ``"poor"`` when ``P(Z_max ≥ observed) ≤ alpha`` under
        random partitioning (Wang, Li & Li (2015) calls events below 0.1 or 0.2 of small
        probability).

    Returns
    -------
    OverlapAudit

    Raises
    ------
    DesignError
        For per-fold-score tables (the audit needs to know which record was in
        which fold), a single replication, or hold-out designs.

    Notes
    -----
    For two replications of 2-fold cross-validation, ``X`` counts the records in
    the training sets of both first splits (the second fold in sorted label
    order), ``E X = a b / n`` for training sets of sizes ``a`` and ``b`` (``n/4``
    for halves) and ``Z = |X − E X|`` does not depend on which fold is called
    training when the halves are equal. Its exact law gives each pair's
    p-value; ``P(Z_max ≥ z) = 1 − Π_pairs P(Z < z)`` treats pairs as
    independent (docs/methods.md). Records that a replication does not
    validate are left out of the pairs they belong to.

    Repeated K-fold (extension, docs/methods.md): every two training sets of
    different replications overlap hypergeometrically around
    ``n((K−1)/K)²``; a pair's ``Z`` is the largest of its ``K²`` deviations and
    its law is simulated (20,000 random partitions, fixed seed).

    References
    ----------
    Wang, Li & Li (2015) (the statistic, its law, Example 2); Wang, Li & Li (2017) Table 1 and §3;
    Yang et al. Table III.

    Examples
    --------
    >>> import cvreport
    >>> random = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> audit = cvreport.audit_overlap(random)
    >>> audit.design, audit.verdict, round(audit.z_max, 4), round(audit.pvalue, 3)
    ('random', 'typical', 9.7504, 0.693)
    >>> designed = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example("bcv"))
    >>> audit = cvreport.audit_overlap(designed)
    >>> audit.design, audit.verdict, round(audit.z_max, 2)   # n = 569: 0.25, not 0
    ('block-regularized', 'balanced', 0.25)
    """
    table = as_table(table, data)
    table.require_records("the overlap audit")
    alpha = check_alpha(alpha)
    design = table.design
    m, K = int(design.m), int(design.K)
    if m < 2:
        raise DesignError(
            "the overlap audit compares training sets of different replications and needs "
            f"at least two; this is {design.describe()}. It applies to m×2 designs (m ≥ 2) "
            "and, as an extension, to repeated K-fold cross-validation"
        )
    if K < 2:
        raise DesignError(
            "the overlap audit needs each replication to partition the records into folds "
            f"(2-fold or K-fold); this is {design.describe()}, whose training sets are not "
            "in the table"
        )
    # the distinct membership patterns and their record counts: a few rows, however
    # many records (computed where the data lives)
    membership, weights = table.membership_patterns()
    membership = np.asarray(membership, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.int64)
    replications = list(table.replications)
    warnings_: list[str] = []
    notes: list[str] = []
    if np.any(membership < 0):
        warnings_.append(
            "Some records are missing from some replications; each pair of replications is "
            "audited on the records both validate."
        )

    validated = (membership >= 0).astype(np.float64)
    if np.any(validated.T @ validated == 0):
        raise DesignError(
            "some pairs of replications validate no record in common, so their training "
            "sets cannot be compared; check the record column"
        )
    measured = _measure_pairs(membership, K, weights)
    z_max = float(measured.z.max())
    labels = np.asarray(replications, dtype=object)
    pair_table = pd.DataFrame(
        {
            "replication_a": labels[measured.i],
            "replication_b": labels[measured.j],
            "n": measured.n,
            "overlap": measured.overlap,
            "expected": measured.expected.astype(np.float64),
            "z": measured.z.astype(np.float64),
            "pvalue": measured.tails(measured.z),
        }
    )
    # P(Z_max >= z_max) = 1 − Π P(Z_pair < z_max), pairs independent
    tails = measured.tails(z_max)
    # max(0, ·): a product of tails that are all 1 within rounding gives -0.0, printed "-0.000"
    pvalue = 1.0 if tails.max() >= 1.0 else max(0.0, float(-np.expm1(np.log1p(-tails).sum())))
    repeats = _repeated_partitions(membership, replications)

    n_records = int(weights.sum())
    complete = np.all(membership >= 0, axis=1)
    signs = np.where(membership[complete] == 1, 1, -1)
    recognised = _recognise(signs, z_max, K, weights[complete]) if len(signs) else "random"
    if recognised in ("balanced", "block-regularized"):
        verdict = "balanced"
    else:
        verdict = "poor" if pvalue <= alpha or repeats else "typical"
    if repeats:
        said = describe_repeats(repeats, m)
        warnings_.append(f"{said[:1].upper()}{said[1:]}.")
        warnings.warn(
            f"{said[:1].upper()}{said[1:]}. The tests for repeated cross-validation treat "
            "every replication as a fresh random partition, so repeats shrink their variance "
            "and their p-values; test the distinct partitions only (keep one replication of "
            "each) or draw a new random partition for every replication.",
            RepeatedPartitionWarning,
            stacklevel=user_stacklevel(),
        )

    quantiles = None
    expected_zmax = None
    pair_legend = ""
    if K == 2:
        expected_overlap = n_records / 4
        if n_records % 4 == 0 and n_records >= 8 and not warnings_:
            quantiles = (overlap_quantile(n_records, m, 0.2), overlap_quantile(n_records, m, 0.1))
            expected_zmax = _expected_zmax(n_records, m)
        method = "Overlap audit of m×2 partitions"
        distribution = "Z_max under random partitioning (pairs independent)"
    else:
        expected_overlap = n_records * ((K - 1) / K) ** 2
        notes.append(
            "Extension: Wang, Li & Li (2015) defines the overlap statistic for m×2 designs; for repeated "
            "K-fold cross-validation each pair's largest deviation is compared with "
            "simulated random partitions."
        )
        pair_legend = kfold_pair_legend(K, design.sizes, _KFOLD_SIMULATIONS)
        notes.append(pair_legend)
        method = "Overlap audit of repeated K-fold partitions (extension)"
        distribution = "Z_max under random partitioning (simulated, pairs independent)"

    return OverlapAudit(
        statistic=z_max,
        pvalue=pvalue,
        distribution=distribution,
        alternative="greater",
        nobs=n_records,
        method=method,
        test="audit_overlap",
        reference=REFERENCE,
        design=recognised,
        warnings=tuple(warnings_),
        notes=tuple(notes),
        verdict=verdict,
        meaning=_meaning(verdict, recognised, z_max, pvalue, K, repeats=repeats, m=m),
        cv_design=design.describe(),
        cv_design_kind=design.kind,
        n_records=n_records,
        m=m,
        K=K,
        expected_overlap=float(expected_overlap),
        expected_zmax=expected_zmax,
        quantiles=quantiles,
        pair_table=pair_table,
        alpha=alpha,
        pair_legend=pair_legend,
        repeated_partitions=repeats,
    )
