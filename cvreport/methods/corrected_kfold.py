"""Bouckaert and Frank's corrected repeated k-fold CV t test (docs/methods.md).

The corrected resampled t (:mod:`cvreport.methods.resampled_t`) over the k·r fold
differences of r repetitions of k-fold CV, ``c = 1/(k r) + n2/n1``,
``n2/n1 = 1/(k − 1)`` for equal folds (Bouckaert & Frank 2004); 10×10 CV is the
standard case (factor 1/100 + 1/9, df 99).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from cvreport.errors import DataError, DesignError
from cvreport.methods._common import as_array
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.resampled_t import (
    REFERENCE_BOUCKAERT_FRANK,
    ResampledTTestKernel,
    ResampledTTestResult,
    check_ratio,
    corrected_or_margin,
    corrected_resampled_ttest_kernel,
    prepare_splits,
)
from cvreport.methods.spec import TestSpec, corrected_fold_differences, fold_grid_design

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "CORRECTED_REPEATED_KFOLD_T",
    "corrected_repeated_kfold_ttest",
    "corrected_repeated_kfold_ttest_array",
    "corrected_repeated_kfold_ttest_kernel",
]


def corrected_repeated_kfold_ttest_kernel(
    differences: ArrayLike,
    test_train_ratio: ArrayLike | None = None,
    alternative: str = "two-sided",
) -> ResampledTTestKernel:
    """Bouckaert & Frank's corrected repeated k-fold t over the last two axes.

    Parameters
    ----------
    differences : array_like, shape (..., r, k)
        Fold differences A − B of r repetitions of k-fold CV.
    test_train_ratio : array_like, optional
        ``n2/n1``; default ``1/(k − 1)`` (equal folds).
    alternative : {"two-sided", "less", "greater"}

    Examples
    --------
    >>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
    >>> round(float(corrected_repeated_kfold_ttest_kernel(d).statistic), 6)
    0.522233
    """
    p = np.asarray(differences, dtype=np.float64)
    if p.ndim < 2:
        raise DesignError("differences must have shape (..., r, k): repetitions × folds")
    k = p.shape[-1]
    if k < 2:
        raise DesignError(f"repeated k-fold CV needs k >= 2 folds per repetition, got k = {k}")
    ratio = 1.0 / (k - 1) if test_train_ratio is None else test_train_ratio
    flat = p.reshape(*p.shape[:-2], p.shape[-2] * k)
    return corrected_resampled_ttest_kernel(flat, ratio, alternative)


def _corrected_repeated_kfold(
    differences: ArrayLike,
    test_train_ratio: float | None = None,
    alternative: str = "two-sided",
    margin: float | None = None,
) -> ResampledTTestResult:
    """The test on internal loss differences; under a margin, the two one-sided tests."""

    def inputs() -> tuple[np.ndarray, float]:
        p = as_array(differences, "differences")
        if p.ndim == 1:
            p = p[np.newaxis, :]
        if p.ndim != 2:
            raise DataError(
                "corrected_repeated_kfold_ttest takes an (r, k) array of fold differences "
                f"(repetitions × folds), got shape {p.shape}"
            )
        k = p.shape[1]
        if k < 2:
            raise DesignError(
                f"corrected_repeated_kfold_ttest needs k >= 2 folds per repetition, got k = "
                f"{k}; for repeated hold-out splits use corrected_resampled_ttest"
            )
        return p, 1.0 / (k - 1) if test_train_ratio is None else check_ratio(test_train_ratio)

    return corrected_or_margin(
        CORRECTED_REPEATED_KFOLD_T, inputs, alternative, margin, what="fold differences"
    )


@fill_doc
def corrected_repeated_kfold_ttest_array(
    differences: ArrayLike,
    test_train_ratio: float | None = None,
    *,
    alternative: str = "two-sided",
    margin: float | None = None,
) -> ResampledTTestResult:
    """Bouckaert & Frank's corrected repeated k-fold CV t test.

    Over all k·r fold differences, ``t = mean / sqrt((1/(k r) + n2/n1) · s²)``
    referred to ``t(k r − 1)``; 10×10 CV gives the factor 1/100 + 1/9 and df 99.
    Against a margin m, the two one-sided tests ``(mean ± m) / sqrt((1/(k r) + n2/n1) · s²)``.

    Parameters
    ----------
    differences : array_like, shape (r, k) or (k,)
        Fold differences A − B; rows are repetitions. A 1-D array is one k-fold CV.
    test_train_ratio : float, optional
        ``n2/n1``; default ``1/(k − 1)``, exact for equal folds.
    {array_margin_alternative}

    {returns}

    {raises_array}

    {corrected_kfold_references}

    Examples
    --------
    >>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
    >>> res = corrected_repeated_kfold_ttest_array(d)
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df
    (0.522233, 0.614117, 9.0)
    """
    return CORRECTED_REPEATED_KFOLD_T.run_arrays(
        differences, test_train_ratio=test_train_ratio, alternative=alternative, margin=margin
    )


@fill_doc
def corrected_repeated_kfold_ttest(
    table: ResultsTable | str,
    a: object = None,
    b: object = None,
    *,
    test_train_ratio: float | None = None,
    alternative: str = "two-sided",
    margin: float | None = None,
    data: pd.DataFrame | None = None,
) -> ResampledTTestResult:
    """Bouckaert & Frank's corrected repeated k-fold CV t test (10×10 CV the standard case).

    Over all k·r fold differences, ``t = mean / sqrt((1/(k r) + n2/n1) · s²) ~ t(k r − 1)``;
    against a margin m (``alternative="equivalent"`` or ``"non-inferior"``) the two
    one-sided tests ``(mean ± m) / sqrt((1/(k r) + n2/n1) · s²)`` (Schuirmann 1987).

    {parameters_pair}
    test_train_ratio : float, optional
        ``n2/n1``. By default the summed validation sizes over the summed training
        sizes of the table (``1/(k − 1)`` for equal folds); per-fold score tables
        use the ratio given to ``from_fold_scores``, else ``1/(k − 1)``.
    {margin_alternative}
    {data}

    {returns}

    Raises
    ------
    DesignError
        Unless the design has K >= 2 folds per replication (K-fold, m×2 or
        repeated K-fold CV); for repeated hold-out use :func:`corrected_resampled_ttest`.
    {margin_raises}

    {corrected_kfold_references}

    {examples_fold_scores}
    >>> res = corrected_repeated_kfold_ttest(t)
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (0.522233, 0.614117)
    >>> res = corrected_repeated_kfold_ttest(t, alternative="equivalent", margin=0.05)
    >>> res.margin, round(res.pvalue, 4), res.reject(0.05)
    (0.05, 0.0331, True)
    """
    return CORRECTED_REPEATED_KFOLD_T.run(
        table,
        a,
        b,
        alternative=alternative,
        data=data,
        test_train_ratio=test_train_ratio,
        margin=margin,
    )


CORRECTED_REPEATED_KFOLD_T = TestSpec(
    build=_corrected_repeated_kfold,
    prepare=prepare_splits,
    label="Corrected repeated K-fold t test",
    method="Corrected repeated K-fold CV t test",
    reference=REFERENCE_BOUCKAERT_FRANK,
    designs=("kfold", "repeated_kfold", "mx2"),
    requirement=(
        "K-fold, m×2 or repeated K-fold CV (at least 2 folds per replication); for "
        "repeated hold-out splits use corrected_resampled_ttest"
    ),
    function=corrected_repeated_kfold_ttest,
    result=ResampledTTestResult,
    statistic="mean(p) / sqrt((1/(k r) + n2/n1) s²)",
    distribution="t(k r − 1)",
    array_function=corrected_repeated_kfold_ttest_array,
    kernel=corrected_repeated_kfold_ttest_kernel,
    inputs=corrected_fold_differences,
    takes_margin=True,
    array_design=fold_grid_design,
)
