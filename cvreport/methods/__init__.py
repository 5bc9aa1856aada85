"""The statistical tests, grouped by family; every public function takes a ResultsTable.

Each table-level function also accepts a formula string with ``data=``; the
array-level versions live in :mod:`cvreport.arrays` and the vectorised kernels
in the family modules (``*_kernel``). Each test's specification
(:class:`~cvreport.methods.spec.TestSpec`) sits beside its function and
:mod:`cvreport.methods.registry` lists them all.
"""

from __future__ import annotations

from cvreport.methods.bayesian import bayesian_correlated_ttest
from cvreport.methods.clustered import clustered_paired_test
from cvreport.methods.corrected import (
    corrected_repeated_kfold_ttest,
    corrected_resampled_ttest,
    paired_ttest_resampled,
)
from cvreport.methods.cv_interval import cv_confidence_interval
from cvreport.methods.delong import delong_test, delong_tests_per_fold
from cvreport.methods.kfold import paired_ttest_kfold
from cvreport.methods.mcnemar import mcnemar, mcnemar_5x2bcv, mcnemar_kfold
from cvreport.methods.mx2 import (
    blocked_ttest_3x2cv,
    calibrated_ftest_5x2cv,
    combined_ftest_5x2cv,
    combined_ttest_5x2cv,
    paired_ttest_5x2cv,
)
from cvreport.methods.one_algorithm import binomial_test, normal_test, ttest_error
from cvreport.methods.proportion import proportion_test
from cvreport.methods.resampling import paired_bootstrap_test, paired_permutation_test
from cvreport.methods.wilcoxon import wilcoxon_kfold

__all__ = [
    "bayesian_correlated_ttest",
    "binomial_test",
    "blocked_ttest_3x2cv",
    "calibrated_ftest_5x2cv",
    "clustered_paired_test",
    "combined_ftest_5x2cv",
    "combined_ttest_5x2cv",
    "corrected_repeated_kfold_ttest",
    "corrected_resampled_ttest",
    "cv_confidence_interval",
    "delong_test",
    "delong_tests_per_fold",
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
