"""Simulated data sets themselves: per-record losses, folds, and per-fold statistics.

:func:`draw` returns what :func:`~cvreport.simulate.calibrate` computes its
rejection rates from — for a few simulated data sets, and with the per-record
losses and the fold of every record kept — so that a study can be inspected,
or one simulated data set run through the ordinary table-level functions and
the report (:meth:`SimulatedData.frame` gives the long table a user would
collect from real cross-validation).

Examples
--------
>>> import cvreport
>>> from cvreport.simulate import draw
>>> data = draw("epsilon", ["5x2 BCV"], reps=3, seed=11)["5x2 BCV"]
>>> data.stats.differences.shape, data.folds.shape
((3, 5, 2), (3, 5, 300))
>>> frame = data.frame(0)
>>> list(frame.columns), len(frame)
(['replication', 'fold', 'model', 'record', 'loss'], 3000)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cvreport.errors import CVReportError, DesignError
from cvreport.option_values import bool_option
from cvreport.simulate.aggregate import FoldStatistics
from cvreport.simulate.chunks import chunk_statistics, probe_binary
from cvreport.simulate.designs import DESIGN_NAMES, SimulationDesign, get_design
from cvreport.simulate.engine import _positive_integer, _root_seed, chunk_seed
from cvreport.simulate.plan import Job, make_plan
from cvreport.simulate.runners import TABLE_V_SPECS, get_runner
from cvreport.simulate.scenarios import Scenario, get_scenario

__all__ = ["SimulatedData", "draw"]


@dataclass(frozen=True)
class SimulatedData:
    """Simulated data sets scored under one design.

    Attributes
    ----------
    design : SimulationDesign
        The design.
    stats : FoldStatistics
        Per-fold differences ``(reps, m, K)`` and 2×2 tables ``(reps, m, K, 4)``.
    loss_a, loss_b : ndarray
        Per-record losses in record order: ``(reps, n)`` for loss scenarios (the
        same in every replication), ``(reps, m, n)`` for trained scenarios.
    folds : ndarray of shape (reps, m, n)
        Validation fold (0-based) of every record in every replication; ``-1``
        where the record is not scored (the training part of a hold-out split).
    """

    design: SimulationDesign
    stats: FoldStatistics
    loss_a: np.ndarray
    loss_b: np.ndarray
    folds: np.ndarray

    @property
    def reps(self) -> int:
        """Number of simulated data sets."""
        return int(self.folds.shape[0])

    def frame(self, index: int = 0, models: tuple[str, str] = ("A", "B")) -> pd.DataFrame:
        """Data set ``index`` as a long table ``replication, fold, model, record, loss``.

        Replications and folds are labelled from 1; only scored records appear.
        ``cvreport.ResultsTable(frame)`` then runs every test on it.
        """
        if not 0 <= index < self.reps:
            raise CVReportError(f"index must lie in 0..{self.reps - 1}, got {index!r}")
        folds = self.folds[index]
        m, n = folds.shape
        replication, record = np.nonzero(folds >= 0)
        pieces = []
        for model, losses in zip(models, (self.loss_a, self.loss_b)):
            per_record = losses[index]
            if per_record.ndim == 1:
                per_record = np.broadcast_to(per_record, (m, n))
            pieces.append(
                pd.DataFrame(
                    {
                        "replication": replication + 1,
                        "fold": folds[replication, record].astype(np.int64) + 1,
                        "model": model,
                        "record": record,
                        "loss": per_record[replication, record],
                    }
                )
            )
        return pd.concat(pieces, ignore_index=True)


def draw(
    scenario: str | Scenario = "epsilon",
    designs: str | SimulationDesign | Sequence[str | SimulationDesign] | None = None,
    *,
    reps: int = 10,
    seed: int | np.random.SeedSequence | None = None,
    common_shuffle: bool = True,
    **params: Any,
) -> dict[str, SimulatedData]:
    """Draw ``reps`` simulated data sets and score them under every design.

    With the same ``scenario``, ``seed`` and ``common_shuffle``, the data sets are
    exactly those of the first chunk of :func:`~cvreport.simulate.calibrate` when
    ``reps`` equals that chunk's size (``calibrate(..., reps=r, chunk_size=r)``).

    Parameters
    ----------
    scenario : str or Scenario
        As for :func:`~cvreport.simulate.calibrate`.
    designs : design name(s) or SimulationDesign(s), optional
        Default: the designs of Yang et al. Table V.
    reps : int
        Number of simulated data sets (all held in memory with their records).
    seed, common_shuffle, **params
        As for :func:`~cvreport.simulate.calibrate`.

    Returns
    -------
    dict
        :class:`SimulatedData` by design name.

    Examples
    --------
    >>> from cvreport import simulate
    >>> drawn = simulate.draw("epsilon", ["10-fold"], reps=4, seed=1)["10-fold"]
    >>> drawn.reps, list(drawn.frame(0).columns)   # each data set as a long table
    (4, ['replication', 'fold', 'model', 'record', 'loss'])
    """
    reps = _positive_integer(reps, "reps")
    common_shuffle = bool_option(common_shuffle, "common_shuffle")
    base = get_scenario(scenario, **params)
    if designs is None:
        chosen = [get_design(name) for name in DESIGN_NAMES if name != "balanced 5x2"]
    elif isinstance(designs, (str, SimulationDesign)):
        chosen = [get_design(designs)]
    else:
        chosen = [get_design(d) for d in designs]
        if not chosen:
            raise DesignError("designs is empty; name a design such as '10-fold' or leave it out")
    binary = probe_binary(base)
    # a placeholder job per design: the plan only needs the designs
    runner = get_runner(TABLE_V_SPECS[0])
    jobs = [Job(runner, design, {}) for design in chosen]
    plan = make_plan(base, jobs, binary, common_shuffle)
    rng = np.random.Generator(np.random.PCG64(chunk_seed(_root_seed(seed), 0)))
    kept: dict[str, dict[str, np.ndarray]] = {}
    stats = chunk_statistics(base, plan, rng, int(reps), kept)
    return {
        design.name: SimulatedData(
            design,
            stats[design.name],
            kept[design.name]["loss_a"],
            kept[design.name]["loss_b"],
            kept[design.name]["folds"],
        )
        for design in plan.designs
    }
