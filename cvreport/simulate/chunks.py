"""One chunk of simulated data sets: draw, shuffle, lay the folds over, aggregate.

Loss scenarios draw per-record losses; trained scenarios draw features and
labels and fit both learners on every training set. Either way the chunk ends
as one :class:`~cvreport.data.sufficient.FoldStatistics` per design, the input
of every test's kernel (:mod:`cvreport.simulate.aggregate`).
"""

from __future__ import annotations

import numpy as np

from cvreport.errors import CVReportError, DataError
from cvreport.simulate.aggregate import (
    FoldStatistics,
    code_losses,
    count_errors,
    fold_statistics,
    split_columns,
)
from cvreport.simulate.designs import SimulationDesign
from cvreport.simulate.plan import Plan
from cvreport.simulate.scenarios import (
    LossScenarioBase,
    Scenario,
    TrainedScenarioBase,
)

__all__ = [
    "chunk_statistics",
    "keep_folds",
    "loss_chunk",
    "probe_binary",
    "require_binary",
    "shuffle_positions",
    "trained_chunk",
]


def shuffle_positions(rng: np.random.Generator, reps: int, n: int) -> np.ndarray:
    """``(reps, n)`` independent uniformly random permutations (argsort of uniform keys)."""
    return np.argsort(rng.random((reps, n)), axis=1)


def loss_chunk(
    scenario: LossScenarioBase,
    plan: Plan,
    rng: np.random.Generator,
    reps: int,
    keep: dict[str, dict[str, np.ndarray]] | None = None,
) -> dict[str, FoldStatistics]:
    loss_a, loss_b = scenario.record_losses(rng, reps)
    if plan.binary:
        require_binary(scenario, loss_a, loss_b)
        values: np.ndarray = code_losses(loss_a, loss_b)
    else:
        values = np.asarray(loss_a, dtype=np.float64) - np.asarray(loss_b, dtype=np.float64)
    parts: dict[str, np.ndarray] = {}
    for stream in plan.streams:
        order = shuffle_positions(rng, reps, scenario.n)
        shuffled = np.take_along_axis(values, order, axis=1)
        indicator = stream.indicator
        assert indicator is not None
        if plan.binary:
            columns = count_errors(shuffled, indicator)
        else:
            columns = shuffled @ indicator.astype(np.float64)
        for (design, group), where in zip(stream.members, stream.slices):
            part = columns[..., where]
            buffer = parts.get(design.name)
            if buffer is None:
                shape = (reps, 3, design.m, design.K) if plan.binary else (reps, design.m, design.K)
                buffer = parts[design.name] = np.zeros(shape, dtype=part.dtype)
            block = part.reshape(*part.shape[:-1], len(group), design.K)
            buffer[..., list(group), :] = block
            if keep is not None:
                record = keep.setdefault(design.name, {"loss_a": loss_a, "loss_b": loss_b})
                keep_folds(record, design, group, order, scenario.n)
    stats = {}
    for design in plan.designs:
        buffer = parts[design.name]
        sizes = design.fold_sizes(scenario.n)
        train = design.train_sizes(scenario.n)
        flat = buffer.reshape(*buffer.shape[:-2], design.m * design.K)
        if plan.binary:
            stats[design.name] = split_columns(flat, None, sizes, design.m, design.K, train)
        else:
            stats[design.name] = split_columns(None, flat, sizes, design.m, design.K, train)
    return stats


def keep_folds(
    record: dict[str, np.ndarray],
    design: SimulationDesign,
    group: tuple[int, ...],
    order: np.ndarray,
    n: int,
) -> None:
    """Store the fold of every record (record order) for the replications of ``group``."""
    reps = order.shape[0]
    folds = record.setdefault("folds", np.full((reps, design.m, n), -1, dtype=np.int16))
    template = design.template(n)
    for replication in group:
        row = np.broadcast_to(template[replication], (reps, n))
        np.put_along_axis(folds[:, replication, :], order, row, axis=1)


def require_binary(scenario: Scenario, loss_a: np.ndarray, loss_b: np.ndarray) -> None:
    for label, losses in (("A", loss_a), ("B", loss_b)):
        if losses.dtype != np.int8 and not np.isin(losses, (0, 1)).all():
            raise DataError(
                f"scenario {scenario.name!r} was declared or found to have 0/1 losses, but "
                f"model {label} has other values in a later batch; set binary=False"
            )


def trained_chunk(
    scenario: TrainedScenarioBase,
    plan: Plan,
    rng: np.random.Generator,
    reps: int,
    keep: dict[str, dict[str, np.ndarray]] | None = None,
) -> dict[str, FoldStatistics]:
    x, y = scenario.sample(rng, reps)
    learner_a, learner_b = scenario.learners
    pieces: dict[str, dict[int, FoldStatistics]] = {d.name: {} for d in plan.designs}
    n = scenario.n
    for stream in plan.streams:
        order = shuffle_positions(rng, reps, n)
        xs = np.take_along_axis(x, order[..., None], axis=1)
        ys = np.take_along_axis(y, order, axis=1)
        for design, group in stream.members:
            template = design.template(n)
            for replication in group:
                row = template[replication]
                loss_a = np.zeros((reps, n), dtype=np.int8)
                loss_b = np.zeros((reps, n), dtype=np.int8)
                for fold in range(design.K):
                    train, test = row != fold, row == fold
                    truth = ys[:, test]
                    for learner, losses in ((learner_a, loss_a), (learner_b, loss_b)):
                        predicted = learner.fit_predict(xs[:, train], ys[:, train], xs[:, test])
                        losses[:, test] = np.asarray(predicted) != truth
                pieces[design.name][replication] = fold_statistics(
                    loss_a, loss_b, row[None], design.K, binary=True
                )
                if keep is not None:
                    record = keep.setdefault(
                        design.name,
                        {
                            "loss_a": np.zeros((reps, design.m, n), dtype=np.int8),
                            "loss_b": np.zeros((reps, design.m, n), dtype=np.int8),
                        },
                    )
                    np.put_along_axis(record["loss_a"][:, replication], order, loss_a, axis=1)
                    np.put_along_axis(record["loss_b"][:, replication], order, loss_b, axis=1)
                    keep_folds(record, design, (replication,), order, n)
    stats = {}
    for design in plan.designs:
        ordered = [pieces[design.name][i] for i in range(design.m)]
        stats[design.name] = FoldStatistics(
            np.concatenate([p.differences for p in ordered], axis=1),
            np.concatenate([p.tables for p in ordered], axis=1),
            design.fold_sizes(n),
            design.train_sizes(n),
        )
    return stats


def chunk_statistics(
    scenario: Scenario,
    plan: Plan,
    rng: np.random.Generator,
    reps: int,
    keep: dict[str, dict[str, np.ndarray]] | None = None,
) -> dict[str, FoldStatistics]:
    if isinstance(scenario, TrainedScenarioBase):
        return trained_chunk(scenario, plan, rng, reps, keep)
    if isinstance(scenario, LossScenarioBase):
        return loss_chunk(scenario, plan, rng, reps, keep)
    raise CVReportError(  # pragma: no cover - the two bases cover every scenario
        f"unsupported scenario type {type(scenario).__name__}"
    )


def probe_binary(scenario: Scenario) -> bool:
    if scenario.binary is not None:
        return bool(scenario.binary)
    if not isinstance(scenario, LossScenarioBase):
        return True
    probe_a, probe_b = scenario.record_losses(np.random.default_rng(0), 8)
    return bool(np.isin(probe_a, (0, 1)).all() and np.isin(probe_b, (0, 1)).all())
