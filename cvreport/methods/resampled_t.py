"""The statistic every resampled t test shares, and reading its inputs from a table.

Over J split differences ``p_j`` (mean loss of A minus mean loss of B on validation set j)::

    t = mean(p) / sqrt(c · s²),   s² = Σ (p_j − mean(p))² / (J − 1),   t ~ t(J − 1)

with a variance factor ``c`` that the tests of :mod:`cvreport.methods.corrected`
and :mod:`cvreport.methods.corrected_kfold` choose (Nadeau & Bengio 2003;
Bouckaert & Frank 2004). When the split sizes differ, ``n2/n1`` is the ratio of
the summed validation sizes to the summed training sizes, as Weka's corrected
paired t-tester does.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from cvreport.errors import CVReportError, DataError, DesignError, describe_keys
from cvreport.methods._common import (
    kernel_fields,
    t_kernel,
    zero_spread,
)
from cvreport.methods.equivalence import margin_or_base
from cvreport.option_values import real_option
from cvreport.results import TTestResult, check_alternative
from cvreport.summary_data import SummaryRow

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable
    from cvreport.methods.spec import TestSpec

__all__ = [
    "NOTE_ANTI_CONSERVATIVE",
    "REFERENCE_BOUCKAERT_FRANK",
    "REFERENCE_NADEAU_BENGIO",
    "REFERENCE_RESAMPLED",
    "RESAMPLED_T_CAUTION",
    "ResampledTTestKernel",
    "ResampledTTestResult",
    "check_ratio",
    "corrected_resampled_ttest_kernel",
    "prepare_splits",
    "resampled_result",
    "split_moments",
    "table_split_differences",
    "table_test_train_ratio",
]


REFERENCE_RESAMPLED = (
    "Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised "
    "classification learning algorithms. Neural Computation 10(7):1895–1923."
)


REFERENCE_NADEAU_BENGIO = (
    "Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error. "
    "Machine Learning 52(3):239–281."
)


REFERENCE_BOUCKAERT_FRANK = (
    "Bouckaert, R. R. and Frank, E. (2004). Evaluating the replicability of significance "
    "tests for comparing learning algorithms. PAKDD 2004, LNCS 3056:3–12."
)


#: Why the resampled paired t misleads: its spec's caution and, with a full stop, its
#: result's note (a report shows it once).
RESAMPLED_T_CAUTION = (
    "the repeated splits overlap, yet it treats their training and validation sets as "
    "independent, so it rejects a true null hypothesis much too often (anti-conservative, "
    "Dietterich 1998); a labelled baseline only, as the corrected resampled t test allows "
    "for the overlap (Nadeau and Bengio 2003)"
)
NOTE_ANTI_CONSERVATIVE = f"{RESAMPLED_T_CAUTION}."


def table_split_differences(table: ResultsTable, a: object, b: object) -> NDArray[np.float64]:
    """The (m, K) array of per-fold internal-loss differences A − B, with missing folds named."""
    frame = table.loss_differences(a, b)
    values = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    missing = np.argwhere(np.isnan(values))
    if missing.size:
        keys = [(frame.index[i], frame.columns[j]) for i, j in missing]
        raise DataError(
            f"no loss difference for (replication, fold) {describe_keys(keys)} between models "
            f"{a!r} and {b!r}: every split needs losses of both models"
        )
    return values


def check_ratio(test_train_ratio: float) -> float:
    requirement = "a positive number n_validation / n_training"
    ratio = real_option(test_train_ratio, "test_train_ratio", requirement, finite=False)
    if not (math.isfinite(ratio) and ratio > 0):
        raise CVReportError(
            f"test_train_ratio must be a positive number n_validation / n_training, got "
            f"{test_train_ratio!r}"
        )
    return ratio


def table_test_train_ratio(table: ResultsTable, *, k_fold: bool) -> tuple[float, str]:
    """``n2/n1`` from the table: the ratio of summed validation to summed training sizes.

    Returns the ratio and a sentence saying where it came from (for the result's notes).
    """
    design = table.design
    if table.test_train_ratio is not None:
        ratio = check_ratio(table.test_train_ratio)
        how = getattr(table, "test_train_ratio_note", "given")
        where = "as given with the table" if how == "given" else how
        return ratio, f"n2/n1 = {ratio:.6g}, {where}."
    if not table.per_record:
        if k_fold:
            return 1.0 / (design.K - 1), (
                f"n2/n1 = 1/(K − 1) = 1/{design.K - 1}: per-fold scores carry no fold sizes, so "
                "equal folds are assumed; pass test_train_ratio= otherwise."
            )
        raise DesignError(
            "per-fold scores of a repeated hold-out design carry no training or validation "
            "sizes: pass test_train_ratio= (validation size / training size, e.g. 0.5 for "
            "a 2/3 – 1/3 split)"
        )
    sizes = table.train_sizes()
    n_validation = float(sizes["n_test"].sum())
    n_training = float(sizes["n_train"].sum())
    if n_training <= 0:
        raise DesignError(
            "the table holds no training records for its splits, so n2/n1 cannot be "
            "inferred: pass test_train_ratio= (validation size / training size)"
        )
    ratio = n_validation / n_training
    how = (
        f"n2/n1 = {ratio:.6g}: the summed validation sizes ({n_validation:.0f}) over the summed "
        f"training sizes ({n_training:.0f}) as Weka does."
    )
    if not k_fold:
        how += (
            " Training sizes were inferred as the records of the table outside each "
            "validation set; pass test_train_ratio= if the training sets were different."
        )
    return ratio, how


class ResampledTTestKernel(NamedTuple):
    """Elementwise output of the resampled t kernels; arrays have the batch shape ``...``.

    ``degenerate`` holds the codes of docs/methods.md from :mod:`cvreport.methods._common`
    (0 regular, 1 zero variance and zero mean, 2 zero variance and non-zero mean).
    """

    statistic: NDArray[np.float64]
    pvalue: NDArray[np.float64]
    df: float
    estimate: NDArray[np.float64]
    standard_error: NDArray[np.float64]
    std_dev: NDArray[np.float64]
    variance_factor: NDArray[np.float64]
    degenerate: NDArray[np.int8]


def corrected_resampled_ttest_kernel(
    differences: ArrayLike,
    test_train_ratio: ArrayLike,
    alternative: str = "two-sided",
) -> ResampledTTestKernel:
    """Nadeau & Bengio's corrected resampled t on the last axis of ``differences``.

    Parameters
    ----------
    differences : array_like, shape (..., J)
        Per-split differences in mean loss, A − B; J >= 2.
    test_train_ratio : array_like
        ``n2/n1`` (validation over training size), broadcastable to the batch shape;
        0 gives the uncorrected resampled t.
    alternative : {"two-sided", "less", "greater"}

    Returns
    -------
    ResampledTTestKernel
        No warnings are emitted; zero variances follow docs/methods.md elementwise.

    Examples
    --------
    >>> k = corrected_resampled_ttest_kernel([[0.02, -0.01, 0.03, 0.00]], 0.5)
    >>> k.statistic.round(6), k.df
    (array([0.632456]), 3.0)
    """
    mean, variance, factor = split_moments(differences, test_train_ratio, alternative)
    df = float(np.shape(differences)[-1] - 1)
    kernel = t_kernel(mean, np.sqrt(factor * variance), df, alternative)
    return ResampledTTestKernel(
        statistic=np.asarray(kernel.statistic, dtype=np.float64),
        pvalue=np.asarray(kernel.pvalue, dtype=np.float64),
        df=kernel.df,
        estimate=np.asarray(mean, dtype=np.float64),
        standard_error=np.asarray(kernel.standard_error, dtype=np.float64),
        std_dev=np.sqrt(variance),
        variance_factor=factor,
        degenerate=kernel.degenerate,
    )


def split_moments(
    differences: ArrayLike,
    test_train_ratio: ArrayLike,
    alternative: str,
    test: str = "a resampled t test",
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Mean, s² (divisor J − 1; 0 for equal values) and 1/J + n2/n1 of J ≥ 2 splits, last axis."""
    check_alternative(alternative)
    p = np.asarray(differences, dtype=np.float64)
    n_splits = p.shape[-1]
    if n_splits < 2:
        raise DesignError(f"{test} needs at least 2 splits, got {n_splits}")
    mean = p.mean(axis=-1)
    variance = np.where(zero_spread(p), 0.0, p.var(axis=-1, ddof=1))
    ratio = np.asarray(test_train_ratio, dtype=np.float64)
    return mean, variance, np.broadcast_to(1.0 / n_splits + ratio, mean.shape).astype(np.float64)


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class ResampledTTestResult(TTestResult):
    """Result of a (corrected) resampled t test over J splits.

    ``center`` is the mean split difference (= ``estimate``) and ``standard_error``
    is ``sqrt(c · s²)``; :meth:`conf_int` is ``center ± t quantile × standard_error``,
    one-sided for a one-sided ``alternative`` as in scipy.

    Attributes
    ----------
    std_dev : float
        ``s``, the standard deviation of the split differences (divisor J − 1).
    n_splits : int
        J, the number of split differences.
    test_train_ratio : float or None
        ``n2/n1`` of the correction; None for the uncorrected resampled t.
    variance_factor : float
        ``c = 1/J + n2/n1`` (``1/J`` uncorrected).
    """

    std_dev: float = math.nan
    n_splits: int = 0
    test_train_ratio: float | None = None
    variance_factor: float = math.nan

    def _extra_rows(self) -> list[SummaryRow]:
        extra = [
            SummaryRow("splits J", self.n_splits, "value"),
            SummaryRow("std. dev. of split differences", self.std_dev, "number"),
        ]
        if self.test_train_ratio is not None:
            extra.append(
                SummaryRow("n2/n1 (validation / training)", self.test_train_ratio, "number")
            )
        extra.append(SummaryRow("variance factor c", self.variance_factor, "number"))
        return extra


def resampled_result(
    kernel: ResampledTTestKernel,
    spec: TestSpec,
    *,
    ratio: float | None,
    alternative: str,
    what: str,
    notes: tuple[str, ...] = (),
) -> ResampledTTestResult:
    n_splits = round(kernel.df) + 1
    mean, variance = f"the mean of the {what}", f"the variance of the {what}"
    return ResampledTTestResult(
        **kernel_fields(spec, kernel, alternative, numerator=mean, denominator=variance),
        df=kernel.df,
        distribution="t",
        estimate=float(kernel.estimate),
        nobs=n_splits,
        notes=notes,
        center=float(kernel.estimate),
        standard_error=float(kernel.standard_error),
        std_dev=float(kernel.std_dev),
        n_splits=n_splits,
        test_train_ratio=ratio,
        variance_factor=float(kernel.variance_factor),
    )


def corrected_or_margin(
    spec: TestSpec,
    inputs: Callable[[], tuple[NDArray[np.float64], float]],
    alternative: str,
    margin: float | None,
    what: str,
) -> ResampledTTestResult:
    """A corrected t test ``spec`` on ``inputs()``, the differences and n2/n1.

    Under a margin, the two one-sided tests with the same corrected standard error.
    """

    def run(base: str) -> ResampledTTestResult:
        check_alternative(base)
        differences, ratio = inputs()
        kernel = spec.kernel(differences, ratio, base)
        return resampled_result(kernel, spec, ratio=ratio, alternative=base, what=what)

    return margin_or_base(run, alternative, margin, df=lambda result: float(result.df))


def prepare_splits(
    spec: TestSpec,
    table: ResultsTable,
    pair: tuple[Any, Any],
    stats: Any,
    options: dict[str, Any],
    *,
    holdout: bool = False,
    ratio: bool = True,
) -> tuple[tuple[NDArray[np.float64]], dict[str, Any], tuple[str, ...]]:
    """The pair's split differences and n2/n1 for a test ``spec`` of the t family.

    The ``(m, K)`` differences, or with ``holdout`` the J hold-out splits. ``n2/n1``
    (``test_train_ratio``, unless ``ratio`` is false) comes from the table when not
    given (:func:`table_test_train_ratio`), with a note saying how; the notes are
    empty when it was given.
    """
    differences = table_split_differences(table, *pair)
    if holdout:
        differences = differences[:, 0]
    if not ratio or options.get("test_train_ratio") is not None:
        return (differences,), options, ()
    value, how = table_test_train_ratio(table, k_fold=table.design.K >= 2)
    return (differences,), {**options, "test_train_ratio": value}, (how,)
