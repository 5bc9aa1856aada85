"""Resampled t tests over many train/validation splits, plain and variance-corrected.

Three tests share one statistic, a paired t over J split differences
``p_j`` (mean loss of A minus mean loss of B on validation set j)::

    t = mean(p) / sqrt(c · s²),   s² = Σ (p_j − mean(p))² / (J − 1),   t ~ t(J − 1)

and differ only in the variance factor ``c``:

* :func:`paired_ttest_resampled` — ``c = 1/J`` (Dietterich 1998, "resampled
  paired t"): the splits are treated as independent, which they are not, so the
  test is strongly anti-conservative. Kept as a labelled baseline.
* :func:`corrected_resampled_ttest` — ``c = 1/J + n2/n1`` (Nadeau & Bengio 2003)
  over J repeated hold-out splits, n1 training and n2 validation records.
* :func:`corrected_repeated_kfold_ttest` — the same correction over the k·r
  fold differences of r repetitions of k-fold CV, ``c = 1/(k r) + n2/n1``,
  ``n2/n1 = 1/(k − 1)`` for equal folds (Bouckaert & Frank 2004); 10×10 CV is
  the standard case (factor 1/100 + 1/9, df 99).

When the split sizes differ, ``n2/n1`` is the ratio of the summed validation
sizes to the summed training sizes, as Weka's corrected paired t-tester does.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from cvreport.errors import DataError, DesignError
from cvreport.methods._common import as_array
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.resampled_t import (
    NOTE_ANTI_CONSERVATIVE,
    REFERENCE_NADEAU_BENGIO,
    REFERENCE_RESAMPLED,
    RESAMPLED_T_CAUTION,
    ResampledTTestKernel,
    ResampledTTestResult,
    check_ratio,
    corrected_or_margin,
    corrected_resampled_ttest_kernel,
    prepare_splits,
    resampled_result,
)
from cvreport.methods.spec import TestSpec, corrected_split_differences, split_differences

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable


__all__ = [
    "CORRECTED_RESAMPLED_T",
    "PAIRED_T_RESAMPLED",
    "corrected_resampled_ttest",
    "corrected_resampled_ttest_array",
    "paired_ttest_resampled",
    "paired_ttest_resampled_array",
    "paired_ttest_resampled_kernel",
]


# ================================================================ layer 1: kernels
def paired_ttest_resampled_kernel(
    differences: ArrayLike, alternative: str = "two-sided"
) -> ResampledTTestKernel:
    """Dietterich's resampled paired t, ``sqrt(J)·mean/s ~ t(J − 1)``, on the last axis.

    Examples
    --------
    >>> round(float(paired_ttest_resampled_kernel([0.02, -0.01, 0.03, 0.00]).statistic), 6)
    1.095445
    """
    return corrected_resampled_ttest_kernel(differences, 0.0, alternative)


# ================================================================ layer 2: array-level functions
def _split_vector(differences: ArrayLike, test: str) -> NDArray[np.float64]:
    p = as_array(differences, "differences")
    if p.ndim != 1:
        raise DataError(f"{test} takes a 1-D array of J split differences, got shape {p.shape}")
    if p.size < 2:
        raise DesignError(f"{test} needs at least 2 splits to estimate a variance, got {p.size}")
    return p


def _paired_ttest_resampled(
    differences: ArrayLike, alternative: str = "two-sided"
) -> ResampledTTestResult:
    p = _split_vector(differences, "paired_ttest_resampled")
    return resampled_result(
        paired_ttest_resampled_kernel(p, alternative),
        PAIRED_T_RESAMPLED,
        ratio=None,
        alternative=alternative,
        notes=(NOTE_ANTI_CONSERVATIVE,),
        what="split differences",
    )


@fill_doc
def paired_ttest_resampled_array(
    differences: ArrayLike, *, alternative: str = "two-sided"
) -> ResampledTTestResult:
    """Dietterich's resampled paired t test on J hold-out split differences.

    ``t = sqrt(J) · mean(p) / s`` with ``s²`` the sample variance (divisor J − 1),
    referred to ``t(J − 1)``. **Anti-conservative baseline**: the splits share
    training and validation records, so the variance is underestimated.

    Parameters
    ----------
    differences : array_like, shape (J,)
        Mean loss of A minus mean loss of B on each validation set.
    {array_alternative}

    {returns}

    {raises_array}

    References
    ----------
    Dietterich (1998), Neural Computation 10(7), section 3.2.

    Examples
    --------
    >>> res = paired_ttest_resampled_array([0.02, -0.01, 0.03, 0.00])
    >>> round(res.statistic, 6), res.df
    (1.095445, 3.0)
    """
    return PAIRED_T_RESAMPLED.run_arrays(differences, alternative=alternative)


def _corrected_resampled(
    differences: ArrayLike,
    test_train_ratio: float,
    alternative: str = "two-sided",
    margin: float | None = None,
) -> ResampledTTestResult:
    """The test on internal loss differences; under a margin, the two one-sided tests."""
    return corrected_or_margin(
        CORRECTED_RESAMPLED_T,
        lambda: (
            _split_vector(differences, "corrected_resampled_ttest"),
            check_ratio(test_train_ratio),
        ),
        alternative,
        margin,
        what="split differences",
    )


@fill_doc
def corrected_resampled_ttest_array(
    differences: ArrayLike,
    test_train_ratio: float,
    *,
    alternative: str = "two-sided",
    margin: float | None = None,
) -> ResampledTTestResult:
    """Nadeau & Bengio's corrected resampled t test on J hold-out split differences.

    ``t = mean(p) / sqrt((1/J + n2/n1) · s²) ~ t(J − 1)``, n1 and n2 the training
    and validation sizes. Against a margin m, the two one-sided tests use the same
    corrected standard error: ``(mean(p) ± m) / sqrt((1/J + n2/n1) · s²)``.

    Parameters
    ----------
    differences : array_like, shape (J,)
        Mean loss of A minus mean loss of B on each validation set.
    test_train_ratio : float
        ``n2/n1``; with unequal splits, the summed validation sizes over the summed
        training sizes.
    {array_margin_alternative}

    {returns}

    {raises_array}

    {corrected_resampled_references}

    Examples
    --------
    >>> res = corrected_resampled_ttest_array([0.02, -0.01, 0.03, 0.00], 0.5)
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (0.632456, 0.572003)
    >>> res = corrected_resampled_ttest_array([0.02, -0.01, 0.03, 0.00], 0.5,
    ...                                       alternative="non-inferior", margin=0.05)
    >>> round(res.statistic_upper, 6), round(res.pvalue, 6)
    (-2.529822, 0.042719)
    """
    return CORRECTED_RESAMPLED_T.run_arrays(
        differences, test_train_ratio=test_train_ratio, alternative=alternative, margin=margin
    )


# ================================================================ layer 3: table-level functions
@fill_doc
def paired_ttest_resampled(
    table: ResultsTable | str,
    a: object = None,
    b: object = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> ResampledTTestResult:
    """Dietterich's resampled paired t test over J repeated hold-out splits.

    **Anti-conservative baseline**: kept so that a report can show how far the
    uncorrected test strays; use :func:`corrected_resampled_ttest` to decide.

    {parameters_pair_alternative_data}

    {returns}

    Raises
    ------
    DesignError
        Unless the table holds a repeated hold-out design (K = 1 fold per
        replication, m >= 2 replications).

    References
    ----------
    Dietterich (1998), Neural Computation 10(7):1895–1923.

    {examples_holdout_scores}
    >>> res = paired_ttest_resampled(t, "A", "B")
    >>> round(res.estimate, 6), round(res.statistic, 6)
    (0.01, 1.095445)
    """
    return PAIRED_T_RESAMPLED.run(table, a, b, alternative=alternative, data=data)


@fill_doc
def corrected_resampled_ttest(
    table: ResultsTable | str,
    a: object = None,
    b: object = None,
    *,
    test_train_ratio: float | None = None,
    alternative: str = "two-sided",
    margin: float | None = None,
    data: pd.DataFrame | None = None,
) -> ResampledTTestResult:
    """Nadeau & Bengio's corrected resampled t test over J repeated hold-out splits.

    ``t = mean(p) / sqrt((1/J + n2/n1) · s²) ~ t(J − 1)``; against a margin m, the
    two one-sided tests ``(mean(p) ± m) / sqrt((1/J + n2/n1) · s²)``.

    {parameters_pair}
    test_train_ratio : float, optional
        ``n2/n1``. By default taken from the table: the summed validation sizes over
        the summed training sizes (as Weka does), with training sizes from
        ``table.train_sizes()``; per-fold score tables use the ratio given to
        ``from_fold_scores``.
    {margin_alternative}
    {data}

    {returns}

    Raises
    ------
    DesignError
        Unless the design is repeated hold-out (K = 1, m >= 2); for K-fold CV use
        :func:`corrected_repeated_kfold_ttest`, the same correction over folds.
    {margin_raises}

    {corrected_resampled_references}

    {examples_holdout_scores}
    >>> round(corrected_resampled_ttest(t, "A", "B").statistic, 6)
    0.632456
    """
    return CORRECTED_RESAMPLED_T.run(
        table,
        a,
        b,
        alternative=alternative,
        data=data,
        test_train_ratio=test_train_ratio,
        margin=margin,
    )


PAIRED_T_RESAMPLED = TestSpec(
    build=_paired_ttest_resampled,
    prepare=partial(prepare_splits, holdout=True, ratio=False),
    label="Resampled paired t test",
    reference=REFERENCE_RESAMPLED,
    designs=("repeated_holdout",),
    requirement=(
        "repeated hold-out splits (one validation fold per replication, at least 2 "
        "replications); for K-fold CV use paired_ttest_kfold or corrected_repeated_kfold_ttest"
    ),
    function=paired_ttest_resampled,
    result=ResampledTTestResult,
    statistic="mean(p) / sqrt(s² / J)",
    distribution="t(J − 1)",
    array_function=paired_ttest_resampled_array,
    kernel=paired_ttest_resampled_kernel,
    inputs=split_differences,
    caution=RESAMPLED_T_CAUTION,
)
CORRECTED_RESAMPLED_T = TestSpec(
    build=_corrected_resampled,
    prepare=partial(prepare_splits, holdout=True),
    label="Corrected resampled t test",
    reference=REFERENCE_NADEAU_BENGIO,
    designs=("repeated_holdout",),
    requirement=(
        "repeated hold-out splits (one validation fold per replication, at least 2 "
        "replications); for K-fold or repeated K-fold CV use corrected_repeated_kfold_ttest"
    ),
    function=corrected_resampled_ttest,
    result=ResampledTTestResult,
    statistic="mean(p) / sqrt((1/J + n2/n1) s²)",
    distribution="t(J − 1)",
    array_function=corrected_resampled_ttest_array,
    kernel=corrected_resampled_ttest_kernel,
    inputs=corrected_split_differences,
    takes_margin=True,
)
