"""Cross-validation designs for simulation studies, as fold templates over shuffled records.

A simulated data set is scored by a design exactly as a real one would be: its
records are shuffled, then dealt into folds (or blocks) by a fixed pattern.
Because the shuffle is fresh for every simulated data set, the pattern can be
stored once per data-set size ``n`` as a *template*: an ``(m, n)`` integer array
whose entry ``[i, p]`` is the validation fold, in replication ``i``, of the record
that the shuffle put at position ``p`` (``-1``: the record is not scored in that
replication, as the training part of a hold-out split).

Replications that share a shuffle form a *shuffle group*. Block designs
(block-regularized m×2, balanced 5×2, blocked 3×2) shuffle once and deal every
replication from the same blocks; random m×2 draws an independent partition
per replication, so each replication is its own group; K-fold and hold-out have
one replication.

The block-regularized and balanced templates come from the partition
designers of :mod:`cvreport.partitions.splits` (Yang et al. Table III; Wang, Li & Li (2017) Table 1), so
the simulation scores records with the same partitions a user would build.

Examples
--------
>>> design = get_design("10-fold")
>>> design.m, design.K, design.kind
(1, 10, 'kfold')
>>> template = design.template(300)
>>> template.shape, int((template[0] == 0).sum())
((1, 300), 30)
>>> get_design("hold-out 1/3").template(300)[0].tolist().count(0)
100
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from cvreport.errors import DesignError, describe_keys
from cvreport.partitions import splits

__all__ = [
    "DESIGN_NAMES",
    "TABLE_V_DESIGNS",
    "SimulationDesign",
    "balanced_5x2",
    "block_regularized",
    "get_design",
    "holdout",
    "kfold",
    "random_mx2",
    "repeated_holdout",
    "repeated_kfold",
]


@dataclass(frozen=True)
class SimulationDesign:
    """A cross-validation design as used by the simulator.

    Attributes
    ----------
    name : str
        Label used in result tables, e.g. ``"10-fold"``, ``"random 5x2"``,
        ``"5x2 BCV"``, ``"blocked 3x2"``, ``"hold-out 1/3"``.
    kind : str
        The design kind a :class:`~cvreport.data.table.ResultsTable` would report:
        ``"kfold"``, ``"repeated_kfold"``, ``"mx2"``, ``"holdout"`` or
        ``"repeated_holdout"``.
    m, K : int
        Replications and folds per replication (``K = 1`` for hold-out).
    partitions : str
        ``"random"``, ``"block-regularized"`` or ``"balanced"``.
    validation : float or None
        Share of records in the validation set of a hold-out design.
    """

    name: str
    kind: str
    m: int
    K: int
    partitions: str
    validation: float | None = None
    _cache: dict[int, np.ndarray] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    @property
    def shuffle_groups(self) -> tuple[tuple[int, ...], ...]:
        """Replications that share one shuffle of the records."""
        if self.partitions == "random":
            return tuple((i,) for i in range(self.m))
        return (tuple(range(self.m)),)

    def template(self, n: int) -> np.ndarray:
        """The ``(m, n)`` fold of each shuffled position in each replication (``-1``: unscored).

        Cached per ``n``; the returned array is read-only.
        """
        cached = self._cache.get(n)
        if cached is None:
            cached = _build_template(self, n)
            cached.setflags(write=False)
            self._cache[n] = cached
        return cached

    def fold_sizes(self, n: int) -> np.ndarray:
        """``(m, K)`` number of validation records of every fold."""
        template = self.template(n)
        return np.stack([np.bincount(row[row >= 0], minlength=self.K) for row in template])

    def train_sizes(self, n: int) -> np.ndarray:
        """``(m, K)`` number of training records of every fold: the other ``n − n2`` records.

        >>> kfold(4).train_sizes(10).tolist()
        [[7, 7, 8, 8]]
        """
        return n - self.fold_sizes(n)

    def describe(self, n: int | None = None) -> str:
        """A short phrase, e.g. ``"5x2 BCV (block-regularized partitions)"``."""
        words = {
            "random": "random partitions",
            "block-regularized": "block-regularized partitions",
            "balanced": "balanced partitions",
        }
        text = f"{self.name} ({words[self.partitions]})"
        if n is not None:
            sizes = sorted(set(self.fold_sizes(n).ravel().tolist()))
            text += f", validation folds of {'/'.join(str(s) for s in sizes)} records"
        return text


def kfold(K: int = 10) -> SimulationDesign:
    """K-fold cross-validation on shuffled records (fold sizes differ by at most one).

    >>> kfold(5).name
    '5-fold'
    """
    if int(K) != K or K < 2:
        raise DesignError(f"K-fold cross-validation needs an integer K >= 2, got K = {K!r}")
    return SimulationDesign(f"{int(K)}-fold", "kfold", 1, int(K), "random")


def repeated_kfold(r: int = 10, K: int = 10) -> SimulationDesign:
    """r independent K-fold cross-validations (Bouckaert & Frank's 10×10 CV by default).

    >>> repeated_kfold().name, repeated_kfold().kind
    ('10x10-fold', 'repeated_kfold')
    """
    if int(r) != r or r < 2:
        raise DesignError(f"repeated K-fold CV needs an integer r >= 2 repetitions, got r = {r!r}")
    single = kfold(K)
    return SimulationDesign(
        f"{int(r)}x{single.K}-fold", "repeated_kfold", int(r), single.K, "random"
    )


def random_mx2(m: int = 5) -> SimulationDesign:
    """m independent random half/half partitions (Dietterich's 5×2 cv for m = 5).

    >>> random_mx2().name
    'random 5x2'
    """
    _check_m(m)
    return SimulationDesign(f"random {int(m)}x2", "mx2", int(m), 2, "random")


def block_regularized(m: int = 5) -> SimulationDesign:
    """Block-regularized m×2 partitions (Yang et al. Table III; m = 3 is the blocked 3×2).

    >>> block_regularized(3).name
    'blocked 3x2'
    """
    _check_m(m)
    name = "blocked 3x2" if m == 3 else f"{int(m)}x2 BCV"
    return SimulationDesign(name, "mx2", int(m), 2, "block-regularized")


def balanced_5x2() -> SimulationDesign:
    """The balanced 5×2 partitions of Wang, Li & Li (2017) Table 1.

    >>> balanced_5x2().partitions
    'balanced'
    """
    return SimulationDesign("balanced 5x2", "mx2", 5, 2, "balanced")


def holdout(validation: float = 1 / 3) -> SimulationDesign:
    """One hold-out split scoring a share ``validation`` of the records.

    >>> holdout(0.5).name
    'hold-out 1/2'
    """
    if not 0 < validation < 1:
        raise DesignError(
            f"the validation share of a hold-out split must lie in (0, 1), got {validation!r}"
        )
    fraction = Fraction(validation).limit_denominator(20)
    label = str(fraction) if abs(float(fraction) - validation) < 1e-9 else f"{validation:.4g}"
    return SimulationDesign(f"hold-out {label}", "holdout", 1, 1, "random", float(validation))


def repeated_holdout(J: int = 15, validation: float = 1 / 3) -> SimulationDesign:
    """J independent hold-out splits scoring a share ``validation`` each (Nadeau & Bengio 2003).

    >>> repeated_holdout().name, repeated_holdout().kind
    ('15x hold-out 1/3', 'repeated_holdout')
    """
    if int(J) != J or J < 2:
        raise DesignError(f"repeated hold-out needs an integer J >= 2 splits, got J = {J!r}")
    single = holdout(validation)
    return SimulationDesign(
        f"{int(J)}x {single.name}", "repeated_holdout", int(J), 1, "random", single.validation
    )


def _check_m(m: int) -> None:
    if int(m) != m or m < 1:
        raise DesignError(f"an m×2 design needs an integer m >= 1, got m = {m!r}")


#: The design each test uses in Yang et al. Table V (Yang, Wang, Song and Li).
TABLE_V_DESIGNS: dict[str, str] = {
    "paired_ttest_kfold": "10-fold",
    "mcnemar_kfold": "10-fold",
    "mcnemar": "hold-out 1/3",
    "paired_ttest_5x2cv": "random 5x2",
    "combined_ftest_5x2cv": "random 5x2",
    "combined_ttest_5x2cv": "random 5x2",
    "calibrated_ftest_5x2cv": "5x2 BCV",
    "mcnemar_5x2bcv": "5x2 BCV",
    "blocked_ttest_3x2cv": "blocked 3x2",
}

DESIGN_NAMES = ("10-fold", "random 5x2", "5x2 BCV", "balanced 5x2", "blocked 3x2", "hold-out 1/3")

_PATTERNS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"^(\d+)-?fold$"), lambda g: kfold(int(g[0]))),
    (re.compile(r"^(\d+)x(\d+)-?fold$"), lambda g: repeated_kfold(int(g[0]), int(g[1]))),
    (
        re.compile(r"^(\d+)x hold-?out(?: (\d+)/(\d+)| (0?\.\d+))?$"),
        lambda g: repeated_holdout(int(g[0]), _share(g[1:])),
    ),
    (re.compile(r"^random (\d+)x2$"), lambda g: random_mx2(int(g[0]))),
    (re.compile(r"^(\d+)x2 bcv$"), lambda g: block_regularized(int(g[0]))),
    (re.compile(r"^blocked 3x2$"), lambda g: block_regularized(3)),
    (re.compile(r"^balanced 5x2$"), lambda g: balanced_5x2()),
    (re.compile(r"^hold-?out(?: (\d+)/(\d+))?$"), lambda g: _holdout_from(g)),
    (re.compile(r"^hold-?out (0?\.\d+)$"), lambda g: holdout(float(g[0]))),
]


def _share(groups: tuple[str | None, ...]) -> float:
    if groups[2] is not None:
        return float(groups[2])
    if groups[0] is None:
        return 1 / 3
    return int(groups[0]) / int(groups[1] or 1)


def _holdout_from(groups: tuple[str | None, ...]) -> SimulationDesign:
    if groups[0] is None:
        return holdout()
    return holdout(int(groups[0]) / int(groups[1] or 1))


@lru_cache(maxsize=64)
def _design_by_name(key: str) -> SimulationDesign:
    for pattern, make in _PATTERNS:
        match = pattern.match(key)
        if match:
            return make(match.groups())
    raise DesignError(
        f"unknown simulation design {key!r}; use one of {describe_keys(DESIGN_NAMES)}, "
        "'<K>-fold', '<r>x<K>-fold', 'random <m>x2', '<m>x2 BCV', 'hold-out <a>/<b>', "
        "'<J>x hold-out <a>/<b>', or a design from cvreport.simulate.designs (kfold, "
        "repeated_kfold, random_mx2, block_regularized, balanced_5x2, holdout, repeated_holdout)"
    )


def get_design(design: str | SimulationDesign) -> SimulationDesign:
    """A :class:`SimulationDesign` from itself or its name (``×`` and ``x`` both accepted).

    >>> get_design("5×2 BCV").partitions
    'block-regularized'
    """
    if isinstance(design, SimulationDesign):
        return design
    if not isinstance(design, str):
        raise DesignError(
            f"a simulation design is a name such as '10-fold' or a SimulationDesign, "
            f"got {type(design).__name__}"
        )
    key = " ".join(design.strip().lower().replace("×", "x").split())
    return _design_by_name(key)


# -- templates ---------------------------------------------------------------


def _contiguous(n: int, sizes: list[int]) -> np.ndarray:
    return np.repeat(np.arange(len(sizes), dtype=np.int16), sizes)


def _even_sizes(n: int, parts: int) -> list[int]:
    base, extra = divmod(n, parts)
    return [base + (1 if j < extra else 0) for j in range(parts)]


def _build_template(design: SimulationDesign, n: int) -> np.ndarray:
    if n < 2 * design.K or n < 2:
        raise DesignError(f"{design.name} needs more records than n = {n}")
    if design.K == 1:
        n_validation = round(n * (design.validation or 0.0))
        if not 1 <= n_validation < n:
            raise DesignError(
                f"{design.name} on n = {n} records leaves {n_validation} validation records; "
                "use a larger n or another validation share"
            )
        row = np.full(n, -1, dtype=np.int16)
        row[:n_validation] = 0
        return np.repeat(row[None, :], design.m, axis=0)
    if design.partitions == "random":
        row = _contiguous(n, _even_sizes(n, design.K))
        return np.repeat(row[None, :], design.m, axis=0)
    return _designed_template(design, n)


def _designed_template(design: SimulationDesign, n: int) -> np.ndarray:
    """Block-regularized or balanced partitions from :mod:`cvreport.partitions.splits`.

    A fixed ``random_state`` makes the template reproducible; the simulator's own
    shuffle of every data set makes the partition of each data set uniformly random.
    """
    if design.partitions == "balanced":
        splitter: Any = splits.Balanced5x2CV(random_state=0)
    else:
        splitter = splits.BlockRegularizedCV(m=design.m, random_state=0)
    folds = np.asarray(splitter.folds(n))
    if folds.shape != (n, design.m):
        raise DesignError(
            f"{type(splitter).__name__} gave folds of shape {folds.shape} for {design.name} "
            f"on n = {n}; expected ({n}, {design.m})"
        )
    return np.ascontiguousarray(folds.T.astype(np.int16))
