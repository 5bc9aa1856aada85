"""The tests on plain numbers and arrays, for users without a results table.

Each function has the same name as its table-level counterpart in
:mod:`cvreport` but takes what the statistic is built from: an ``(m, 2)``
array of split differences for the m×2 tests, the K per-fold differences for
the K-fold t, the discordant counts b and c for McNemar, the 2m fold tables for
the BCV McNemar, and error counts or fold errors for the one-model tests. The
table-level functions call these, so both give the same numbers; each test's
specification names its array-level function (``TestSpec.array_function``), and
tests/methods/test_contract.py checks that this module exports exactly those.

Examples
--------
>>> from cvreport import arrays
>>> arrays.mcnemar(12, 4).pvalue.__round__(6)
0.080118
>>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
>>> round(arrays.combined_ftest_5x2cv(d).statistic, 6)
0.909091
"""

from __future__ import annotations

from cvreport.methods.bayesian import bayesian_correlated_ttest_array as bayesian_correlated_ttest
from cvreport.methods.clustered import clustered_paired_test_array as clustered_paired_test
from cvreport.methods.corrected import (
    corrected_repeated_kfold_ttest_array as corrected_repeated_kfold_ttest,
)
from cvreport.methods.corrected import corrected_resampled_ttest_array as corrected_resampled_ttest
from cvreport.methods.corrected import paired_ttest_resampled_array as paired_ttest_resampled
from cvreport.methods.cv_interval import cv_confidence_interval_array as cv_confidence_interval
from cvreport.methods.delong import delong_test_array as delong_test
from cvreport.methods.kfold import paired_ttest_kfold_array as paired_ttest_kfold
from cvreport.methods.mcnemar import contingency_posteriors
from cvreport.methods.mcnemar import mcnemar_5x2bcv_array as mcnemar_5x2bcv
from cvreport.methods.mcnemar import mcnemar_array as mcnemar
from cvreport.methods.mcnemar import mcnemar_kfold_array as mcnemar_kfold
from cvreport.methods.mx2 import blocked_ttest_3x2cv_array as blocked_ttest_3x2cv
from cvreport.methods.mx2 import calibrated_ftest_5x2cv_array as calibrated_ftest_5x2cv
from cvreport.methods.mx2 import combined_ftest_5x2cv_array as combined_ftest_5x2cv
from cvreport.methods.mx2 import combined_ttest_5x2cv_array as combined_ttest_5x2cv
from cvreport.methods.mx2 import paired_ttest_5x2cv_array as paired_ttest_5x2cv
from cvreport.methods.one_algorithm import binomial_test_array as binomial_test
from cvreport.methods.one_algorithm import normal_test_array as normal_test
from cvreport.methods.one_algorithm import ttest_error_array as ttest_error
from cvreport.methods.proportion import proportion_test_array as proportion_test
from cvreport.methods.resampling import paired_bootstrap_test_array as paired_bootstrap_test
from cvreport.methods.resampling import (
    paired_permutation_test_array as paired_permutation_test,
)
from cvreport.methods.wilcoxon import wilcoxon_kfold_array as wilcoxon_kfold

__all__ = [
    "bayesian_correlated_ttest",
    "binomial_test",
    "blocked_ttest_3x2cv",
    "calibrated_ftest_5x2cv",
    "clustered_paired_test",
    "combined_ftest_5x2cv",
    "combined_ttest_5x2cv",
    "contingency_posteriors",
    "corrected_repeated_kfold_ttest",
    "corrected_resampled_ttest",
    "cv_confidence_interval",
    "delong_test",
    "mcnemar",
    "mcnemar_5x2bcv",
    "mcnemar_kfold",
    "normal_test",
    "paired_bootstrap_test",
    "paired_permutation_test",
    "paired_ttest_5x2cv",
    "paired_ttest_kfold",
    "paired_ttest_resampled",
    "proportion_test",
    "ttest_error",
    "wilcoxon_kfold",
]
