"""Simulation studies: the type I error and power of every test, vectorised.

Each source paper argues from simulations: a test is only as good as its type I
error and its power. This package runs such a study in one call, on the
papers' scenarios or on your own loss model, with the same test code as real
data (every test is its ``cvreport.methods`` kernel applied to the per-fold
arrays of thousands of simulated data sets at once).

- :func:`calibrate` — rejection rate of each test on its design, with its
  Monte Carlo standard error, as a tidy DataFrame
  (``test, design, parameter, rate, se, reps``);
- :func:`power_curve` — the same over values of a scenario parameter;
- :func:`draw` — a few simulated data sets themselves (per-record losses,
  folds, per-fold statistics, and a long table for ``cvreport.ResultsTable``);
- :func:`calibration_report` — the rates and the power-curve figure as an
  HTML page or Markdown;
- scenarios: ``"epsilon"`` (:class:`EpsilonScenario`, Dietterich's ε loss
  model as in Yang et al. Table V), ``"simple"`` (:class:`SimpleScenario`,
  logistic regression vs majority), ``"gaussians"`` (:class:`GaussiansScenario`,
  Wang, Li & Li (2017) §3.1, needs scikit-learn), or your own :class:`LossScenario` /
  :class:`TrainedScenario`;
- designs: ``"10-fold"``, ``"random 5x2"``, ``"5x2 BCV"``, ``"balanced 5x2"``,
  ``"blocked 3x2"``, ``"hold-out 1/3"``, ``"10x10-fold"``, ``"15x hold-out 1/3"``
  and their generalisations in :mod:`cvreport.simulate.designs`;
- tests: Yang et al.'s Table V by default, or any fold-level test of the
  registry (:data:`cvreport.simulate.runners.RUNNERS`);
- :data:`TABLE_V` and :func:`compare_with_paper` — the published rates.

Examples
--------
>>> from cvreport import simulate
>>> frame = simulate.calibrate("epsilon", reps=4000, seed=7)      # ε = 0.1, n = 300
>>> sorted(frame.test)[:3]
['blocked_ttest_3x2cv', 'calibrated_ftest_5x2cv', 'combined_ftest_5x2cv']
>>> checked = simulate.compare_with_paper(frame)                 # Yang et al. Table V
>>> bool(checked.agrees.all())
True
"""

from __future__ import annotations

from cvreport.simulate.designs import (
    DESIGN_NAMES,
    TABLE_V_DESIGNS,
    SimulationDesign,
    balanced_5x2,
    block_regularized,
    get_design,
    holdout,
    kfold,
    random_mx2,
    repeated_holdout,
    repeated_kfold,
)
from cvreport.simulate.draws import SimulatedData, draw
from cvreport.simulate.engine import COLUMNS, calibrate, power_curve
from cvreport.simulate.learners import (
    BatchLearner,
    LeastSquaresLearner,
    LogisticRegressionLearner,
    MajorityLearner,
    SklearnLearner,
)
from cvreport.simulate.reference import TABLE_V, compare_with_paper
from cvreport.simulate.report import CalibrationReport, calibration_report
from cvreport.simulate.runners import TABLE_V_TESTS
from cvreport.simulate.scenarios import (
    SCENARIOS,
    EpsilonScenario,
    GaussiansScenario,
    LossScenario,
    Scenario,
    SimpleScenario,
    TrainedScenario,
    get_scenario,
)

__all__ = [
    "COLUMNS",
    "DESIGN_NAMES",
    "SCENARIOS",
    "TABLE_V",
    "TABLE_V_DESIGNS",
    "TABLE_V_TESTS",
    "BatchLearner",
    "CalibrationReport",
    "EpsilonScenario",
    "GaussiansScenario",
    "LeastSquaresLearner",
    "LogisticRegressionLearner",
    "LossScenario",
    "MajorityLearner",
    "Scenario",
    "SimpleScenario",
    "SimulatedData",
    "SimulationDesign",
    "SklearnLearner",
    "TrainedScenario",
    "balanced_5x2",
    "block_regularized",
    "calibrate",
    "calibration_report",
    "compare_with_paper",
    "draw",
    "get_design",
    "get_scenario",
    "holdout",
    "kfold",
    "power_curve",
    "random_mx2",
    "repeated_holdout",
    "repeated_kfold",
]
