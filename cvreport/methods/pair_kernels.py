"""The vectorised kernels that test every pair of models at once.

Each entry of :data:`PAIR_KERNELS` takes the ``(pairs, m, K)`` array of fold
differences and the table, slices the inputs its test's kernel needs, and
returns that kernel's result with one statistic and p-value per pair: the same
numbers as calling the test on each pair (see :mod:`cvreport.methods.corrected`,
:mod:`cvreport.methods.kfold`, :mod:`cvreport.methods.mx2` and
:mod:`cvreport.methods.mx2_ftest` for the statistics and their references).
Tests without an entry run pair by pair.

Examples
--------
>>> sorted(PAIR_KERNELS)[:2]
['calibrated_ftest_5x2cv', 'combined_ftest_5x2cv']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from cvreport.methods.corrected import (
    corrected_repeated_kfold_ttest_kernel,
    corrected_resampled_ttest_kernel,
    table_test_train_ratio,
)
from cvreport.methods.kfold import paired_ttest_kfold_kernel
from cvreport.methods.mx2_ftest import (
    _resolve_calibration,
    calibrated_ftest_5x2cv_kernel,
    combined_ftest_5x2cv_kernel,
)

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["PAIR_KERNELS"]


def _corrected_repeated_kfold(d: np.ndarray, table: ResultsTable) -> Any:
    ratio = table_test_train_ratio(table, k_fold=True)[0]
    return corrected_repeated_kfold_ttest_kernel(d, ratio)


def _corrected_resampled(d: np.ndarray, table: ResultsTable) -> Any:
    ratio = table_test_train_ratio(table, k_fold=False)[0]
    return corrected_resampled_ttest_kernel(d[:, :, 0], ratio)


def _paired_kfold(d: np.ndarray, table: ResultsTable) -> Any:
    return paired_ttest_kfold_kernel(d[:, 0, :])


def _combined_f(d: np.ndarray, table: ResultsTable) -> Any:
    return combined_ftest_5x2cv_kernel(d)


def _calibrated_f(d: np.ndarray, table: ResultsTable) -> Any:
    df1, rho1, _, _ = _resolve_calibration(d.shape[1], "paper", None, None)
    return calibrated_ftest_5x2cv_kernel(d, df1, rho1)


PAIR_KERNELS: dict[str, Callable[[np.ndarray, ResultsTable], Any]] = {
    "corrected_repeated_kfold_ttest": _corrected_repeated_kfold,
    "corrected_resampled_ttest": _corrected_resampled,
    "paired_ttest_kfold": _paired_kfold,
    "combined_ftest_5x2cv": _combined_f,
    "calibrated_ftest_5x2cv": _calibrated_f,
}
"""Test name → its all-pairs kernel on the ``(pairs, m, K)`` fold differences."""
