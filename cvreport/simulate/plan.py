"""Which tests run on which designs, and which designs share a shuffle of each data set.

A study's plan pairs every requested test with every design it accepts
(:class:`~cvreport.simulate.runners.TestRunner`) and groups the designs'
replications into *shuffle streams*: replications of one stream see the same
shuffle of a data set (common random numbers; see :mod:`cvreport.simulate.engine`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cvreport.errors import CVReportError, DataError, DesignError, describe_keys
from cvreport.simulate.aggregate import (
    fold_indicator,
)
from cvreport.simulate.designs import TABLE_V_DESIGNS, SimulationDesign, get_design
from cvreport.simulate.runners import TABLE_V_TESTS, TestRunner, get_runner
from cvreport.simulate.scenarios import (
    Scenario,
)


@dataclass(frozen=True)
class Job:
    runner: TestRunner
    design: SimulationDesign
    options: Mapping[str, Any]


#: What a study accepts as designs: names, designs, or a mapping of name to options.
DesignsArg = str | SimulationDesign | Sequence[str | SimulationDesign] | Mapping[str, Any] | None

__all__ = [
    "DEFAULT_DESIGNS",
    "Job",
    "Plan",
    "Stream",
    "as_list",
    "default_design",
    "make_plan",
    "resolve_jobs",
    "stream_order",
]


@dataclass
class Stream:
    """Designs' replications that share one shuffle of each data set."""

    members: list[tuple[SimulationDesign, tuple[int, ...]]] = field(default_factory=list)
    indicator: np.ndarray | None = None
    slices: list[slice] = field(default_factory=list)


@dataclass
class Plan:
    jobs: list[Job]
    designs: list[SimulationDesign]
    streams: list[Stream]
    binary: bool


def as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (str, SimulationDesign)):
        return [value]
    return list(value)


#: The design a test runs on when none is named and it is not one of Yang et al.'s Table V.
DEFAULT_DESIGNS = {
    "kfold": "10-fold",
    "repeated_kfold": "10x10-fold",
    "mx2": "random 5x2",
    "holdout": "hold-out 1/3",
    "repeated_holdout": "15x hold-out 1/3",
}


def default_design(runner: TestRunner) -> SimulationDesign:
    """Table V's design for the test, else the usual design of the first kind it accepts."""
    return get_design(TABLE_V_DESIGNS.get(runner.name) or DEFAULT_DESIGNS[runner.kinds[0]])


def resolve_jobs(
    tests: str | Iterable[str] | None,
    designs: DesignsArg,
    binary: bool,
    options: Mapping[str, Mapping[str, Any]],
) -> list[Job]:
    explicit = tests is not None
    names = list(TABLE_V_TESTS) if tests is None else as_list(tests)
    if not names:
        raise CVReportError("tests= is empty; name at least one test, e.g. tests=['mcnemar']")
    unknown_options = [k for k in options if k not in names]
    if unknown_options:
        raise CVReportError(
            f"test_options names tests that are not run: {describe_keys(unknown_options)}"
        )
    jobs: list[Job] = []
    for name in names:
        runner = get_runner(name)
        if runner.needs_binary and not binary:
            if explicit:
                raise DataError(
                    f"{name} needs 0/1 losses, but the scenario's losses are not all 0 or 1; "
                    "drop it from tests= or make the generator return 0/1 losses"
                )
            continue
        if designs is None:
            chosen = [default_design(runner)]
        elif isinstance(designs, Mapping):
            if name not in designs:
                chosen = [default_design(runner)]
            else:
                chosen = [get_design(d) for d in as_list(designs[name])]
                for design in chosen:
                    runner.check(design)
        else:
            candidates = [get_design(d) for d in as_list(designs)]
            chosen = [d for d in candidates if runner.accepts(d)]
            if not chosen and explicit:
                raise DesignError(
                    f"none of the designs {describe_keys([d.name for d in candidates])} fits "
                    f"{name}; it needs a design of kind {describe_keys(runner.kinds)}"
                )
        for design in chosen:
            jobs.append(Job(runner, design, dict(options.get(name, {}))))
    if isinstance(designs, Mapping):
        stray = [k for k in designs if k not in names]
        if stray:
            raise CVReportError(
                f"designs= names tests that are not run: {describe_keys(stray)}; "
                "add them to tests= or drop them from designs="
            )
    if not jobs:
        raise DesignError(
            "no requested test fits the requested designs"
            + ("" if binary else " with non-0/1 losses")
        )
    return jobs


def make_plan(
    scenario: Scenario,
    jobs: list[Job],
    binary: bool,
    common_shuffle: bool,
) -> Plan:
    designs: list[SimulationDesign] = []
    for job in jobs:
        if job.design not in designs:
            designs.append(job.design)
    keyed: dict[Any, Stream] = {}
    for design in designs:
        design.template(scenario.n)  # fail early on a design that does not fit n
        for index, group in enumerate(design.shuffle_groups):
            key = index if common_shuffle else (design.name, index)
            keyed.setdefault(key, Stream()).members.append((design, group))
    ordered = [keyed[k] for k in sorted(keyed, key=stream_order)]
    for stream in ordered:
        matrices, start = [], 0
        for design, group in stream.members:
            template = design.template(scenario.n)[list(group)]
            matrices.append(fold_indicator(template, design.K))
            width = len(group) * design.K
            stream.slices.append(slice(start, start + width))
            start += width
        stream.indicator = np.concatenate(matrices, axis=1)
    return Plan(jobs, designs, ordered, binary)


def stream_order(key: Any) -> tuple[int, str]:
    if isinstance(key, tuple):
        return (int(key[1]), str(key[0]))
    return (int(key), "")
