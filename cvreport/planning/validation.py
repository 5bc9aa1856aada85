"""Check the planned powers by simulation: predicted against simulated rejection rates.

Two kinds of check, each returning one row per (scenario, test, design, effect)
with the predicted power, the simulated rejection rate, their difference and
the Monte Carlo standard error of the simulated rate:

- :func:`check_model` — per-fold differences drawn from the variance-component
  model itself (a multivariate normal with the covariance of
  :class:`~cvreport.planning.components.VarianceComponents`), 0/1 records drawn
  from the multinomial model for McNemar, and the tests' own kernels applied to
  them. This covers the designs the simulator does not draw (repeated K-fold
  m × K, repeated hold-out splits) and covariances with a between-replication
  component.
- :func:`check_epsilon` — the simulator's ε scenario (Dietterich's loss model,
  :class:`cvreport.simulate.EpsilonScenario`), whose variance components are
  known in closed form (:func:`epsilon_components`): 10-fold CV, random and
  block-regularized m×2 CV and a hold-out third, scored by the simulator and
  tested with the tests' kernels. The simulator's per-fold statistics carry no
  training sizes, so ``n2/n1 = 1/(K − 1)`` of its equal folds is passed to the
  corrected t.

``benchmarks/bench_plan.py`` prints both tables; ``tests/planning`` checks a
small grid.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cvreport.methods.corrected_kfold import corrected_repeated_kfold_ttest_kernel
from cvreport.methods.mcnemar import mcnemar_kernel
from cvreport.methods.mx2_ftest import (
    calibrated_df1_mean,
    calibrated_ftest_5x2cv_kernel,
    combined_ftest_5x2cv_kernel,
)
from cvreport.methods.resampled_t import corrected_resampled_ttest_kernel
from cvreport.planning.components import VarianceComponents
from cvreport.planning.designs import NULL_EFFECT, PLANNED_TESTS, CandidateDesign, parse_design
from cvreport.simulate import EpsilonScenario, draw, get_design

__all__ = [
    "CHECK_COLUMNS",
    "ModelCase",
    "check_epsilon",
    "check_model",
    "epsilon_components",
    "epsilon_discordance",
]

#: Columns of the check tables.
CHECK_COLUMNS = (
    "scenario",
    "test",
    "design",
    "effect",
    "predicted",
    "simulated",
    "difference",
    "mc_se",
    "reps",
)

_TESTS = {test.name: test for test in PLANNED_TESTS}


def _rejections(test: str, differences: np.ndarray, design: CandidateDesign, alpha: float):
    """Rejections of ``test`` on ``(reps, m, K)`` per-fold differences, with its own kernel."""
    if test == "corrected_repeated_kfold_ttest":
        pvalue = corrected_repeated_kfold_ttest_kernel(differences, 1.0 / (design.K - 1)).pvalue
    elif test == "combined_ftest_5x2cv":
        pvalue = combined_ftest_5x2cv_kernel(differences).pvalue
    elif test == "calibrated_ftest_5x2cv":
        df1 = float(round(calibrated_df1_mean(design.m)))
        pvalue = calibrated_ftest_5x2cv_kernel(differences, df1).pvalue
    else:
        raise AssertionError(test)  # pragma: no cover
    return np.asarray(pvalue) <= alpha


def _row(scenario, test, design, effect, predicted, rejected) -> dict:
    rate = float(np.mean(rejected))
    reps = int(np.size(rejected))
    return {
        "scenario": scenario,
        "test": test,
        "design": design.label,
        "effect": effect,
        "predicted": predicted,
        "simulated": rate,
        "difference": predicted - rate,
        "mc_se": math.sqrt(max(rate * (1 - rate), 1e-12) / reps),
        "reps": reps,
    }


@dataclass(frozen=True)
class ModelCase:
    """One check of :func:`check_model`: a test on a design at a true difference.

    ``effect_sd`` is the difference in units of ``sqrt(Var(mean))`` of the design
    (0: the type I error); for McNemar it is the difference in error rate itself.
    """

    test: str
    design: str
    effect_sd: float


def check_model(
    components: VarianceComponents,
    cases: Sequence[ModelCase],
    *,
    scenario: str = "model",
    discordance: float | None = None,
    reps: int = 2000,
    alpha: float = 0.05,
    seed: int = 0,
) -> pd.DataFrame:
    """Predicted against simulated power, per-fold differences drawn from the model itself.

    Parameters
    ----------
    components : VarianceComponents
        The true components (carried to each design's K by :meth:`~VarianceComponents.at`;
        hold-out splits need components with ``K = 1``).
    cases : sequence of ModelCase
        Test, design (``"10x10"``, ``"30 splits"``, ``"hold-out 500"``…) and difference.
    scenario : str
        Label of the rows.
    discordance : float, optional
        ψ for McNemar cases (the records are drawn as a multinomial).
    reps, alpha, seed
        Simulated data sets per case, level, seed.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CHECK_COLUMNS`.

    Examples
    --------
    >>> vc = VarianceComponents(within=1.0, between=0.0, common=1 / 9, K=10)
    >>> frame = check_model(vc, [ModelCase("corrected_repeated_kfold_ttest", "10x10", 2.5)],
    ...                     reps=4000, seed=1)
    >>> bool(abs(frame.difference.iloc[0]) < 4 * frame.mc_se.iloc[0])
    True
    """
    rng = np.random.default_rng(seed)
    rows = []
    for case in cases:
        design = parse_design(case.design)
        test = _TESTS[case.test]
        if case.test == "mcnemar":
            if discordance is None:
                raise ValueError("McNemar cases need discordance=")
            effect = case.effect_sd
            assert design.n_validation is not None
            predicted = test.power(effect or NULL_EFFECT, discordance, design, alpha)
            p01, p10 = (discordance + effect) / 2, (discordance - effect) / 2
            counts = rng.multinomial(design.n_validation, [p01, p10, 1 - p01 - p10], size=reps)
            rejected = mcnemar_kernel(counts[:, 0], counts[:, 1]).pvalue <= alpha
            rows.append(_row(scenario, case.test, design, effect, predicted, rejected))
            continue
        at_k = components.at(design.K) if components.K >= 2 else components
        effect = case.effect_sd * math.sqrt(at_k.variance_of_mean(design.m, design.K))
        predicted = test.power(effect or NULL_EFFECT, at_k, design, alpha)
        chol = np.linalg.cholesky(at_k.covariance(design.m) + 1e-15 * np.eye(design.trainings))
        draws = rng.standard_normal((reps, design.trainings)) @ chol.T + effect
        if case.test == "corrected_resampled_ttest":
            pvalue = corrected_resampled_ttest_kernel(draws, at_k.test_train_ratio).pvalue
            rejected = pvalue <= alpha
        else:
            differences = draws.reshape(reps, design.m, design.K)
            rejected = _rejections(case.test, differences, design, alpha)
        rows.append(_row(scenario, case.test, design, effect, predicted, rejected))
    return pd.DataFrame(rows, columns=list(CHECK_COLUMNS))


# -- the simulator's ε scenario -------------------------------------------------------------
def epsilon_components(scenario, K: int) -> VarianceComponents:
    """The exact variance components of an ε scenario's per-fold differences at K folds.

    Record i's difference ``d_i = loss_A − loss_B`` has mean ``μ_i = pA_i − pB_i`` and
    variance ``σ_i² = pA_i(1 − pA_i) + pB_i(1 − pB_i)``; the shuffle makes the
    records exchangeable with variance ``τ² = mean σ² + S²`` (``S²`` the variance
    of the μ_i) and covariance ``κ = −S²/(n − 1)``. A fold of ``n/K`` records
    then has ``within = (τ² − κ) K/n``, ``between = −(τ² − κ)/n`` (every
    replication's mean is the data set's mean) and ``common = mean σ²/n``.

    Examples
    --------
    >>> from cvreport.simulate import EpsilonScenario
    >>> vc = epsilon_components(EpsilonScenario(), 10)
    >>> round(vc.within * 300 / 10, 4), round(-vc.between * vc.K / vc.within, 6)
    (0.185, 1.0)
    """
    p_a, p_b = scenario.probabilities()
    n = p_a.size
    means = p_a - p_b
    variances = p_a * (1 - p_a) + p_b * (1 - p_b)
    spread = float(np.var(means))
    tau2 = float(variances.mean()) + spread
    kappa = -spread / (n - 1)
    return VarianceComponents(
        within=(tau2 - kappa) * K / n,
        between=-(tau2 - kappa) / n,
        common=float(variances.mean()) / n,
        K=K,
    )


def epsilon_discordance(scenario) -> float:
    """ψ of an ε scenario: the mean over records of P(exactly one model errs)."""
    p_a, p_b = scenario.probabilities()
    return float((p_a * (1 - p_b) + (1 - p_a) * p_b).mean())


#: The simulator's designs checked by :func:`check_epsilon`, with the tests run on each.
EPSILON_DESIGNS = {
    "10-fold": ("corrected_repeated_kfold_ttest",),
    "random 5x2": ("corrected_repeated_kfold_ttest", "combined_ftest_5x2cv"),
    "5x2 BCV": ("calibrated_ftest_5x2cv",),
    "hold-out 1/3": ("mcnemar",),
}


def check_epsilon(
    deltas: Iterable[float] = (0.0, 0.04, 0.08),
    *,
    designs: Iterable[str] = tuple(EPSILON_DESIGNS),
    reps: int = 2000,
    alpha: float = 0.05,
    seed: int = 0,
    n: int = 300,
    epsilon: float = 0.1,
) -> pd.DataFrame:
    """Predicted against simulated power on the simulator's ε scenario.

    Parameters
    ----------
    deltas : iterable of float
        A's extra error probability (the true difference; 0 is H0).
    designs : iterable of str
        Simulator designs among ``"10-fold"``, ``"random 5x2"``, ``"5x2 BCV"``,
        ``"hold-out 1/3"``.
    reps, alpha, seed
        Simulated data sets per delta, level, seed.
    n, epsilon
        The scenario's records and error rate.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CHECK_COLUMNS`.
    """
    names = list(designs)
    rows = []
    for index, delta in enumerate(deltas):
        scenario = EpsilonScenario(n=n, epsilon=epsilon, delta=delta)
        drawn = draw(scenario, names, reps=reps, seed=seed + index)
        for name in names:
            simulated = get_design(name)
            stats = drawn[simulated.name].stats
            for test in EPSILON_DESIGNS[name]:
                if test == "mcnemar":
                    size = int(stats.sizes.reshape(-1)[0])
                    design = CandidateDesign(1, 1, size)
                    psi = epsilon_discordance(scenario)
                    predicted = _TESTS[test].power(delta or NULL_EFFECT, psi, design, alpha)
                    tables = stats.binary_tables().reshape(reps, 4)
                    rejected = mcnemar_kernel(tables[:, 1], tables[:, 2]).pvalue <= alpha
                else:
                    design = CandidateDesign(simulated.m, simulated.K)
                    vc = epsilon_components(scenario, simulated.K)
                    predicted = _TESTS[test].power(delta or NULL_EFFECT, vc, design, alpha)
                    rejected = _rejections(test, stats.differences, design, alpha)
                row = _row(f"epsilon ({name})", test, design, delta, predicted, rejected)
                rows.append(row)
    return pd.DataFrame(rows, columns=list(CHECK_COLUMNS))
