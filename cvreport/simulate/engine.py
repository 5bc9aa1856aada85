"""Run simulation studies: rejection rates of every test on many simulated data sets.

:func:`calibrate` estimates each test's rejection rate at one value of a
scenario's parameter (the type I error when H0 holds); :func:`power_curve`
repeats it over several values. Both return a tidy DataFrame with columns
``test, design, parameter, rate, se, reps``.

How a batch ("chunk") of simulated data sets is processed:

1. the scenario draws the per-record losses of every data set (loss
   scenarios), or features and labels (trained scenarios);
2. the records of every data set are shuffled — independently for every
   *shuffle stream* — and the fold template of each design is laid over the
   shuffled positions (:mod:`cvreport.simulate.designs`); trained scenarios
   fit both learners on every training set of every design;
3. per-fold differences and 2×2 tables follow from one matrix product per
   stream (:mod:`cvreport.simulate.aggregate`);
4. each test's own kernel computes the p-values of the whole batch
   (:mod:`cvreport.simulate.runners`), and rejections (p ≤ α, as
   :meth:`cvreport.TestResult.reject`) are counted.

Common random numbers: by default every design's first shuffle group uses the
same shuffle of a data set (stream 0), random m×2 replications 2..m use streams
1..m−1. Each test's rejection rate is exactly that of independent partitions
(each design, on its own, sees a uniformly random shuffle); sharing only makes
the decisions of different tests on one data set correlated, which sharpens
comparisons between tests and makes a design's results independent of which
other designs run. ``common_shuffle=False`` draws separate shuffles per design.

Reproducibility: chunk ``c`` draws from the ``c``-th child of ``SeedSequence(seed)``
(:func:`chunk_seed`), so results depend only on the seed, ``reps``,
``chunk_size``, the scenario and the designs run — not on ``n_jobs`` or on the
order in which threads finish. Power curves reuse
the same seeds at every parameter value (common random numbers again), which
makes the curves smooth.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd

from cvreport.errors import CVReportError, describe_keys
from cvreport.option_values import bool_option, check_alpha, integer_option, real_option
from cvreport.simulate.chunks import (
    chunk_statistics,
    probe_binary,
)
from cvreport.simulate.plan import DesignsArg, Plan, make_plan, resolve_jobs
from cvreport.simulate.scenarios import (
    Scenario,
    get_scenario,
)

__all__ = ["COLUMNS", "calibrate", "chunk_seed", "power_curve"]

#: Columns of the DataFrame returned by :func:`calibrate` and :func:`power_curve`.
COLUMNS = ("test", "design", "parameter", "rate", "se", "reps")


# -- the plan ----------------------------------------------------------------


# -- one chunk ---------------------------------------------------------------


def _run_chunk(
    scenario: Scenario, plan: Plan, seed: np.random.SeedSequence, reps: int, alpha: float
) -> np.ndarray:
    """Rejections of every job on one chunk of ``reps`` simulated data sets."""
    stats = chunk_statistics(scenario, plan, np.random.Generator(np.random.PCG64(seed)), reps)
    counts = np.zeros(len(plan.jobs), dtype=np.int64)
    for index, job in enumerate(plan.jobs):
        pvalues = job.runner.pvalues(stats[job.design.name], job.options)
        bad = ~np.isfinite(pvalues) | (pvalues < 0) | (pvalues > 1)
        if bad.any():
            raise CVReportError(
                f"{job.runner.name} returned {int(bad.sum())} p-values outside [0, 1] (or NaN) "
                f"on the {job.design.name} design; this is a defect in its kernel"
            )
        counts[index] = int(np.count_nonzero(pvalues <= alpha))
    return counts


# -- public API --------------------------------------------------------------


def _positive_integer(value: Any, name: str) -> int:
    """``value`` as an int ≥ 1 (``20``, ``20.0``, ``np.int64(20)``), else refused in words."""
    number = integer_option(value, name, "a positive integer")
    if number < 1:
        raise CVReportError(f"{name} must be a positive integer, got {value!r}")
    return number


def _check_run_arguments(
    reps: Any, alpha: Any, chunk_size: Any, n_jobs: Any
) -> tuple[int, float, int | None, int | None]:
    """The run's numbers checked: reps, alpha, chunk size and threads (``None``: the default)."""
    return (
        _positive_integer(reps, "reps"),
        check_alpha(alpha),
        None if chunk_size is None else _positive_integer(chunk_size, "chunk_size"),
        None if n_jobs is None else _positive_integer(n_jobs, "n_jobs"),
    )


def _chunk_sizes(reps: int, chunk_size: int) -> list[int]:
    full, rest = divmod(int(reps), int(chunk_size))
    return [int(chunk_size)] * full + ([rest] if rest else [])


def _progress_bar(total: int, enabled: bool | None, chunks: int, description: str) -> Any:
    from tqdm.auto import tqdm

    disable = not enabled if enabled is not None else chunks < 5
    return tqdm(total=total, disable=disable, unit="rep", desc=description, leave=False)


def _simulate_counts(
    scenario: Scenario,
    plan: Plan,
    reps: int,
    alpha: float,
    seed: np.random.SeedSequence,
    chunk_size: int,
    n_jobs: int,
    bar: Any,
) -> np.ndarray:
    sizes = _chunk_sizes(reps, chunk_size)
    seeds = [chunk_seed(seed, index) for index in range(len(sizes))]
    total = np.zeros(len(plan.jobs), dtype=np.int64)
    if n_jobs == 1 or len(sizes) == 1:
        for size, child in zip(sizes, seeds):
            total += _run_chunk(scenario, plan, child, size, alpha)
            bar.update(size)
        return total
    with ThreadPoolExecutor(max_workers=int(n_jobs)) as pool:
        futures = [
            pool.submit(_run_chunk, scenario, plan, child, size, alpha)
            for size, child in zip(sizes, seeds)
        ]
        for size, future in zip(sizes, futures):
            total += future.result()
            bar.update(size)
    return total


def _frame(plan: Plan, counts: np.ndarray, reps: int, value: float) -> pd.DataFrame:
    rate = counts / reps
    se = np.sqrt(rate * (1.0 - rate) / reps)
    return pd.DataFrame(
        {
            "test": [job.runner.name for job in plan.jobs],
            "design": [job.design.name for job in plan.jobs],
            "parameter": np.full(len(plan.jobs), value, dtype=np.float64),
            "rate": rate,
            "se": se,
            "reps": np.full(len(plan.jobs), int(reps), dtype=np.int64),
        }
    )


def _root_seed(seed: int | np.random.SeedSequence | None) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is not None and (
        isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0
    ):
        raise CVReportError(
            f"seed must be an integer ≥ 0, a numpy SeedSequence or None, got {seed!r}"
        )
    return np.random.SeedSequence(seed)


def chunk_seed(root: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """The seed of chunk ``index``: the ``index``-th child of ``root``, without spawning.

    Unlike ``root.spawn``, this does not advance ``root``, so every parameter value
    of a power curve (and every call with the same seed) reuses the same streams.
    """
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, index), pool_size=root.pool_size
    )


def _vary(scenario: Scenario, parameter: str, value: float) -> Scenario:
    if parameter == scenario.parameter:
        return scenario.with_parameter(value)
    params = getattr(scenario, "params", None)
    if isinstance(params, Mapping) and parameter in params:
        return dataclasses.replace(scenario, params={**params, parameter: value})  # type: ignore[type-var]
    names = {f.name for f in dataclasses.fields(scenario)}  # type: ignore[arg-type]
    if parameter not in names:
        raise CVReportError(
            f"the {scenario.name} scenario has no parameter {parameter!r}; "
            f"its parameters are {describe_keys(sorted(names))}"
        )
    if parameter == "n":
        if int(value) != value:
            raise CVReportError(f"n must be a whole number of records, got {value!r}")
        return dataclasses.replace(scenario, n=int(value))  # type: ignore[type-var]
    return dataclasses.replace(scenario, **{parameter: value})  # type: ignore[type-var]


def _study(
    scenario: str | Scenario,
    values: Sequence[float] | None,
    parameter: str | None,
    *,
    tests: str | Iterable[str] | None,
    designs: DesignsArg,
    reps: int,
    alpha: float,
    seed: int | np.random.SeedSequence | None,
    progress: bool | None,
    chunk_size: int | None,
    n_jobs: int | None,
    common_shuffle: bool,
    test_options: Mapping[str, Mapping[str, Any]] | None,
    params: Mapping[str, Any],
) -> pd.DataFrame:
    reps, alpha, chunk_size, n_jobs = _check_run_arguments(reps, alpha, chunk_size, n_jobs)
    common_shuffle = bool_option(common_shuffle, "common_shuffle")
    progress = None if progress is None else bool_option(progress, "progress")
    base = get_scenario(scenario, **params)
    chunk = chunk_size if chunk_size is not None else int(base.default_chunk_size)
    threads = n_jobs if n_jobs is not None else max(1, os.cpu_count() or 1)
    name = parameter or base.parameter
    scenarios = [base] if values is None else [_vary(base, name, v) for v in values]
    if not scenarios:
        raise CVReportError("values= is empty; give the parameter values to sweep")
    binary = probe_binary(base)
    jobs = resolve_jobs(tests, designs, binary, dict(test_options or {}))
    root = _root_seed(seed)
    started = time.perf_counter()
    frames = []
    chunks = len(_chunk_sizes(reps, chunk)) * len(scenarios)
    with _progress_bar(reps * len(scenarios), progress, chunks, f"simulating {base.name}") as bar:
        for current in scenarios:
            plan = make_plan(current, jobs, binary, common_shuffle)
            counts = _simulate_counts(current, plan, reps, alpha, root, chunk, threads, bar)
            value = (
                current.parameter_value
                if name == current.parameter
                else float(current.parameters()[name])
            )
            frames.append(_frame(plan, counts, reps, value))
    result = pd.concat(frames, ignore_index=True)
    result.attrs.update(
        {
            "scenario": base.name,
            "description": base.describe(None if values is None else name),
            "parameter": name,
            "null": base.null if values is None else None,
            "n": base.n,
            "alpha": float(alpha),
            "seed": root.entropy if isinstance(root.entropy, int) else None,
            "common_shuffle": bool(common_shuffle),
            "designs": {
                d.name: d.describe(None if name == "n" and values is not None else base.n)
                for d in plan.designs
            },
            "seconds": time.perf_counter() - started,
        }
    )
    return result


def calibrate(
    scenario: str | Scenario = "epsilon",
    *,
    tests: str | Iterable[str] | None = None,
    designs: DesignsArg = None,
    reps: int = 10_000,
    alpha: float = 0.05,
    seed: int | np.random.SeedSequence | None = None,
    progress: bool | None = None,
    chunk_size: int | None = None,
    n_jobs: int | None = None,
    common_shuffle: bool = True,
    test_options: Mapping[str, Mapping[str, Any]] | None = None,
    **params: Any,
) -> pd.DataFrame:
    """Rejection rate of every test on ``reps`` simulated data sets of a scenario.

    Under H0 (e.g. the ``"epsilon"`` scenario, or ``"simple"`` with ``delta=0``)
    the rate estimates the test's type I error; under an effect, its power.
    By default the nine tests of Yang et al. Table V run each on its design in Yang et al. Table V:
    10-fold CV for the K-fold t and the naive K-fold McNemar, random 5×2 for
    Dietterich's t, Alpaydın's F and Yıldız's t, 5×2 BCV for the calibrated F
    and the BCV McNemar test, blocked 3×2 for the blocked t, and a hold-out
    split validating on 1/3 of the records for McNemar's test.

    Parameters
    ----------
    scenario : str or Scenario
        ``"epsilon"`` (Dietterich's ε model, n = 300, ε = 0.1), ``"simple"``
        (Yang et al., logistic regression vs majority, n = 1000), ``"gaussians"``
        (Wang, Li & Li (2017) §3.1, needs scikit-learn), or a
        :class:`~cvreport.simulate.scenarios.Scenario` such as
        :class:`~cvreport.simulate.scenarios.LossScenario` built on your own
        generator.
    tests : str or list of str, optional
        cvreport test function names: any registered comparison of two models that
        runs on per-fold statistics (``cvreport.simulate.runners.RUNNERS``: the
        corrected resampled and repeated K-fold t tests, the Bayesian correlated t,
        the CV interval, ... as well as Table V's). Default: the nine tests of Yang
        et al. Table V; with non-0/1 losses the McNemar tests are left out.
    designs : str, list or dict, optional
        ``None``: each test on its Table V design, or else on the usual design of
        the first kind it accepts (``"10-fold"``, ``"random 5x2"``, ``"hold-out 1/3"``,
        ``"10x10-fold"``, ``"15x hold-out 1/3"``). A design name or list
        (``"10-fold"``, ``"random 5x2"``, ``"5x2 BCV"``, ``"balanced 5x2"``,
        ``"blocked 3x2"``, ``"hold-out 1/3"``, ``"<K>-fold"``, ``"<r>x<K>-fold"``
        (r repetitions of K-fold CV), ``"random <m>x2"``, ``"<m>x2 BCV"``,
        ``"<J>x hold-out <a>/<b>"`` (J hold-out splits), or
        :mod:`~cvreport.simulate.designs` objects): every test on every listed
        design it applies to. A dict ``{test: design(s)}``: as given (tests not in
        it keep their default design).
    reps : int
        Simulated data sets.
    alpha : float
        Significance level; a test rejects when its p-value is ≤ alpha.
    seed : int or SeedSequence, optional
        Makes the study reproducible (see the module docstring).
    progress : bool, optional
        Show a tqdm progress bar (default: when the run has five chunks or more).
    chunk_size : int, optional
        Data sets per vectorised batch (default 5,000 for loss scenarios, 500
        for trained ones); bounds the memory: about ``chunk_size × n × 40`` bytes
        per thread for loss scenarios (60 MB at n = 300).
    n_jobs : int, optional
        Threads working on chunks in parallel (default: one per CPU core); the
        results do not depend on it.
    common_shuffle : bool
        Share one shuffle of each data set between designs (see the module docstring).
    test_options : dict, optional
        Keyword arguments for a test's kernel, e.g.
        ``{"mcnemar": {"method": "exact"}, "calibrated_ftest_5x2cv": {"df1": 6.7551}}``.
    **params
        Parameters of a named scenario, e.g. ``n=300, epsilon=0.1`` or ``delta=0.5``.

    Returns
    -------
    pandas.DataFrame
        Columns ``test, design, parameter, rate, se, reps``: the rejection rate,
        its Monte Carlo standard error ``sqrt(rate (1 − rate) / reps)``, and the
        value of the scenario's parameter. ``attrs`` records the scenario, α,
        the seed and the run time.

    Examples
    --------
    >>> frame = calibrate("epsilon", tests=["paired_ttest_5x2cv"], reps=2000, seed=1)
    >>> list(frame.columns)
    ['test', 'design', 'parameter', 'rate', 'se', 'reps']
    >>> row = frame.iloc[0]
    >>> row.design, bool(0.0 <= row.rate <= 0.1), int(row.reps)
    ('random 5x2', True, 2000)
    """
    return _study(
        scenario,
        None,
        None,
        tests=tests,
        designs=designs,
        reps=reps,
        alpha=alpha,
        seed=seed,
        progress=progress,
        chunk_size=chunk_size,
        n_jobs=n_jobs,
        common_shuffle=common_shuffle,
        test_options=test_options,
        params=params,
    )


def power_curve(
    scenario: str | Scenario = "epsilon",
    values: Sequence[float] | None = None,
    *,
    parameter: str | None = None,
    tests: str | Iterable[str] | None = None,
    designs: DesignsArg = None,
    reps: int = 2_000,
    alpha: float = 0.05,
    seed: int | np.random.SeedSequence | None = None,
    progress: bool | None = None,
    chunk_size: int | None = None,
    n_jobs: int | None = None,
    common_shuffle: bool = True,
    test_options: Mapping[str, Mapping[str, Any]] | None = None,
    **params: Any,
) -> pd.DataFrame:
    """Rejection rates over values of a scenario parameter: power curves (and the size at H0).

    Runs :func:`calibrate` at every value of ``parameter`` (default: the
    scenario's own, ``delta`` for ``"epsilon"`` and ``"simple"``, ``mean_shift``
    for ``"gaussians"``) with the same seeds, and stacks the results.

    Parameters
    ----------
    values : sequence of float, optional
        Parameter values. Default: the scenario's own sweep — ``delta`` = 0 to
        0.15 for ``"epsilon"`` (how much more often A errs than B, an extension
        of Dietterich's model), Δ = 0 to 1 for ``"simple"`` (as Yang et al.'s power
        curves), ``mean_shift`` = 0.5 to 2 for ``"gaussians"``.
    parameter : str, optional
        The scenario parameter to sweep.
    Other parameters
        As for :func:`calibrate`.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`calibrate`, one block of rows per value.

    Examples
    --------
    >>> curve = power_curve("epsilon", [0.0, 0.2], tests=["combined_ftest_5x2cv"],
    ...                     reps=500, seed=2)
    >>> curve.parameter.tolist(), bool(curve.rate.iloc[1] > 0.9)
    ([0.0, 0.2], True)
    """
    if isinstance(values, (int, float)):
        values = [values]
    if values is None:
        if parameter is not None:
            raise CVReportError(f"give values= for the parameter {parameter!r}")
        values = get_scenario(scenario, **params).default_values
        if not values:
            raise CVReportError("this scenario has no default sweep; give values=")
    return _study(
        scenario,
        [real_option(v, "values", "finite numbers") for v in values],
        parameter,
        tests=tests,
        designs=designs,
        reps=reps,
        alpha=alpha,
        seed=seed,
        progress=progress,
        chunk_size=chunk_size,
        n_jobs=n_jobs,
        common_shuffle=common_shuffle,
        test_options=test_options,
        params=params,
    )
