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

Each test has three layers: a vectorised kernel (``*_kernel``) on arrays with
arbitrary leading batch dimensions, an array-level function (``*_array``,
exported as :mod:`cvreport.arrays` under the table-level name) and the
table-level function taking a :class:`~cvreport.data.table.ResultsTable`.

When the split sizes differ, ``n2/n1`` is the ratio of the summed validation
sizes to the summed training sizes, as Weka's corrected paired t-tester does.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special

from cvreport.errors import CVReportError, DataError, DesignError, describe_keys
from cvreport.methods._common import (
    TTestResult,
    as_array,
    as_table,
    describe_degenerate,
    emit_warnings,
    finish_result,
    require_design,
    t_kernel,
    zero_spread,
)
from cvreport.results import check_alternative

if TYPE_CHECKING:
    from cvreport.data.table import Design, ResultsTable
    from cvreport.rendering.summary import SummaryRow

__all__ = [
    "ResampledTTestKernel",
    "ResampledTTestResult",
    "corrected_repeated_kfold_ttest",
    "corrected_repeated_kfold_ttest_array",
    "corrected_repeated_kfold_ttest_kernel",
    "corrected_resampled_ttest",
    "corrected_resampled_ttest_array",
    "corrected_resampled_ttest_kernel",
    "paired_ttest_resampled",
    "paired_ttest_resampled_array",
    "paired_ttest_resampled_kernel",
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

NOTE_ANTI_CONSERVATIVE = (
    "Anti-conservative baseline: the resampled paired t treats overlapping training and "
    "validation sets as independent and rejects far too often (Dietterich 1998); prefer "
    "corrected_resampled_ttest."
)


# --------------------------------------------------------------------------------------
# helpers shared by the modules of this family
# --------------------------------------------------------------------------------------
def normal_pvalue(statistic: ArrayLike, alternative: str) -> NDArray[np.float64]:
    """p-value of a standard-normal statistic ("less": lower tail, H1 says A has lower loss)."""
    z = np.asarray(statistic, dtype=np.float64)
    if alternative == "two-sided":
        return np.minimum(1.0, 2.0 * special.ndtr(-np.abs(z)))
    if alternative == "less":
        return np.asarray(special.ndtr(z), dtype=np.float64)
    return np.asarray(special.ndtr(-z), dtype=np.float64)


def table_split_differences(table: ResultsTable, a: object, b: object) -> NDArray[np.float64]:
    """The (m, K) array of per-fold mean-loss differences A − B, with missing folds named."""
    frame = table.differences(a, b)
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
    ratio = float(test_train_ratio)
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
        return ratio, f"n2/n1 = {ratio:.6g}, as given with the table."
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


# --------------------------------------------------------------------------------------
# layer 1: kernels
# --------------------------------------------------------------------------------------
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
    check_alternative(alternative)
    p = np.asarray(differences, dtype=np.float64)
    n_splits = p.shape[-1]
    if n_splits < 2:
        raise DesignError(f"a resampled t test needs at least 2 splits, got {n_splits}")
    ratio = np.asarray(test_train_ratio, dtype=np.float64)
    mean = p.mean(axis=-1)
    variance = np.where(zero_spread(p), 0.0, p.var(axis=-1, ddof=1))
    factor = np.broadcast_to(1.0 / n_splits + ratio, mean.shape).astype(np.float64)
    kernel = t_kernel(mean, np.sqrt(factor * variance), float(n_splits - 1), alternative)
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


# --------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------
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

    def _summary_rows(self) -> list[SummaryRow]:
        from cvreport.rendering.summary import SummaryRow

        rows = super()._summary_rows()
        extra = [
            SummaryRow("splits J", self.n_splits, "value"),
            SummaryRow("std. dev. of split differences", self.std_dev, "number"),
        ]
        if self.test_train_ratio is not None:
            extra.append(
                SummaryRow("n2/n1 (validation / training)", self.test_train_ratio, "number")
            )
        extra.append(SummaryRow("variance factor c", self.variance_factor, "number"))
        return rows[:-2] + extra + rows[-2:]


def _resampled_result(
    kernel: ResampledTTestKernel,
    *,
    ratio: float | None,
    alternative: str,
    method: str,
    test: str,
    reference: str,
    notes: tuple[str, ...],
    what: str,
) -> ResampledTTestResult:
    n_splits = round(kernel.df) + 1
    warnings = describe_degenerate(
        int(kernel.degenerate),
        numerator=f"the mean of the {what}",
        denominator=f"the variance of the {what}",
    )
    return ResampledTTestResult(
        statistic=float(kernel.statistic),
        pvalue=float(kernel.pvalue),
        df=kernel.df,
        distribution="t",
        alternative=alternative,
        estimate=float(kernel.estimate),
        nobs=n_splits,
        method=method,
        test=test,
        reference=reference,
        warnings=warnings,
        notes=notes,
        center=float(kernel.estimate),
        standard_error=float(kernel.standard_error),
        std_dev=float(kernel.std_dev),
        n_splits=n_splits,
        test_train_ratio=ratio,
        variance_factor=float(kernel.variance_factor),
    )


def _split_vector(differences: ArrayLike, test: str) -> NDArray[np.float64]:
    p = as_array(differences, "differences")
    if p.ndim != 1:
        raise DataError(f"{test} takes a 1-D array of J split differences, got shape {p.shape}")
    if p.size < 2:
        raise DesignError(f"{test} needs at least 2 splits to estimate a variance, got {p.size}")
    return p


# --------------------------------------------------------------------------------------
# layer 2: array-level functions
# --------------------------------------------------------------------------------------
def _paired_ttest_resampled(differences: ArrayLike, alternative: str) -> ResampledTTestResult:
    check_alternative(alternative)
    p = _split_vector(differences, "paired_ttest_resampled")
    return _resampled_result(
        paired_ttest_resampled_kernel(p, alternative),
        ratio=None,
        alternative=alternative,
        method="Resampled paired t test",
        test="paired_ttest_resampled",
        reference=REFERENCE_RESAMPLED,
        notes=(NOTE_ANTI_CONSERVATIVE,),
        what="split differences",
    )


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
    alternative : {"two-sided", "less", "greater"}
        "less" means H1: A has lower loss.

    Returns
    -------
    ResampledTTestResult

    References
    ----------
    Dietterich (1998), Neural Computation 10(7), section 3.2.

    Examples
    --------
    >>> res = paired_ttest_resampled_array([0.02, -0.01, 0.03, 0.00])
    >>> round(res.statistic, 6), res.df
    (1.095445, 3.0)
    """
    result = _paired_ttest_resampled(differences, alternative)
    emit_warnings(result.warnings)
    return result


def _corrected_resampled(
    differences: ArrayLike, test_train_ratio: float, alternative: str
) -> ResampledTTestResult:
    check_alternative(alternative)
    p = _split_vector(differences, "corrected_resampled_ttest")
    ratio = check_ratio(test_train_ratio)
    return _resampled_result(
        corrected_resampled_ttest_kernel(p, ratio, alternative),
        ratio=ratio,
        alternative=alternative,
        method="Corrected resampled t test",
        test="corrected_resampled_ttest",
        reference=REFERENCE_NADEAU_BENGIO,
        notes=(),
        what="split differences",
    )


def corrected_resampled_ttest_array(
    differences: ArrayLike, test_train_ratio: float, *, alternative: str = "two-sided"
) -> ResampledTTestResult:
    """Nadeau & Bengio's corrected resampled t test on J hold-out split differences.

    ``t = mean(p) / sqrt((1/J + n2/n1) · s²) ~ t(J − 1)``, n1 and n2 the training
    and validation sizes.

    Parameters
    ----------
    differences : array_like, shape (J,)
        Mean loss of A minus mean loss of B on each validation set.
    test_train_ratio : float
        ``n2/n1``; with unequal splits, the summed validation sizes over the summed
        training sizes.
    alternative : {"two-sided", "less", "greater"}

    References
    ----------
    Nadeau & Bengio (2003), Machine Learning 52(3):239–281.

    Examples
    --------
    >>> res = corrected_resampled_ttest_array([0.02, -0.01, 0.03, 0.00], 0.5)
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (0.632456, 0.572003)
    """
    result = _corrected_resampled(differences, test_train_ratio, alternative)
    emit_warnings(result.warnings)
    return result


def _corrected_repeated_kfold(
    differences: ArrayLike, test_train_ratio: float | None, alternative: str
) -> ResampledTTestResult:
    check_alternative(alternative)
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
            f"corrected_repeated_kfold_ttest needs k >= 2 folds per repetition, got k = {k}; "
            "for repeated hold-out splits use corrected_resampled_ttest"
        )
    ratio = 1.0 / (k - 1) if test_train_ratio is None else check_ratio(test_train_ratio)
    return _resampled_result(
        corrected_repeated_kfold_ttest_kernel(p, ratio, alternative),
        ratio=ratio,
        alternative=alternative,
        method="Corrected repeated k-fold CV t test",
        test="corrected_repeated_kfold_ttest",
        reference=REFERENCE_BOUCKAERT_FRANK,
        notes=(),
        what="fold differences",
    )


def corrected_repeated_kfold_ttest_array(
    differences: ArrayLike,
    test_train_ratio: float | None = None,
    *,
    alternative: str = "two-sided",
) -> ResampledTTestResult:
    """Bouckaert & Frank's corrected repeated k-fold CV t test.

    Over all k·r fold differences, ``t = mean / sqrt((1/(k r) + n2/n1) · s²)``
    referred to ``t(k r − 1)``; 10×10 CV gives the factor 1/100 + 1/9 and df 99.

    Parameters
    ----------
    differences : array_like, shape (r, k) or (k,)
        Fold differences A − B; rows are repetitions. A 1-D array is one k-fold CV.
    test_train_ratio : float, optional
        ``n2/n1``; default ``1/(k − 1)``, exact for equal folds.
    alternative : {"two-sided", "less", "greater"}

    References
    ----------
    Bouckaert & Frank (2004), PAKDD, LNCS 3056:3–12.

    Examples
    --------
    >>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
    >>> res = corrected_repeated_kfold_ttest_array(d)
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df
    (0.522233, 0.614117, 9.0)
    """
    result = _corrected_repeated_kfold(differences, test_train_ratio, alternative)
    emit_warnings(result.warnings)
    return result


# --------------------------------------------------------------------------------------
# layer 3: table-level functions
# --------------------------------------------------------------------------------------
def _repeated_holdout(design: Design) -> bool:
    return design.K == 1 and design.m >= 2


def _kfold_family(design: Design) -> bool:
    return design.K >= 2


def _with_notes(result: ResampledTTestResult, notes: tuple[str, ...]) -> ResampledTTestResult:
    return dataclasses.replace(result, notes=tuple(result.notes) + notes)


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

    Parameters
    ----------
    table : ResultsTable or str
        The results, or a formula such as ``"loss ~ model | replication + fold"`` with ``data``.
    a, b : model labels, optional
        Defaults to the two models when the table holds exactly two.
    alternative : {"two-sided", "less", "greater"}
        "less" means H1: A has lower loss.
    data : DataFrame, optional
        Only with a formula.

    Raises
    ------
    DesignError
        Unless the table holds a repeated hold-out design (K = 1 fold per
        replication, m >= 2 replications).

    References
    ----------
    Dietterich (1998), Neural Computation 10(7):1895–1923.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> df = pd.DataFrame({"model": ["A", "B"] * 4, "replication": [1, 1, 2, 2, 3, 3, 4, 4],
    ...                    "fold": 1, "accuracy": [0.80, 0.78, 0.75, 0.76, 0.82, 0.79, 0.81, 0.81]})
    >>> t = ResultsTable.from_fold_scores(df, score="accuracy", test_train_ratio=0.5)
    >>> res = paired_ttest_resampled(t, "A", "B")
    >>> round(res.estimate, 6), round(res.statistic, 6)
    (-0.01, -1.095445)
    """
    tbl = as_table(table, data)
    a, b = tbl.resolve_pair(a, b)
    require_design(
        tbl,
        "paired_ttest_resampled",
        _repeated_holdout,
        "repeated hold-out splits (one validation fold per replication, at least 2 "
        "replications); for K-fold CV use paired_ttest_kfold or corrected_repeated_kfold_ttest",
    )
    differences = table_split_differences(tbl, a, b)[:, 0]
    result = finish_result(_paired_ttest_resampled(differences, alternative), tbl, (a, b))
    emit_warnings(result.warnings)
    return result


def corrected_resampled_ttest(
    table: ResultsTable | str,
    a: object = None,
    b: object = None,
    test_train_ratio: float | None = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> ResampledTTestResult:
    """Nadeau & Bengio's corrected resampled t test over J repeated hold-out splits.

    ``t = mean(p) / sqrt((1/J + n2/n1) · s²) ~ t(J − 1)``.

    Parameters
    ----------
    table : ResultsTable or str
        The results, or a formula with ``data``.
    a, b : model labels, optional
    test_train_ratio : float, optional
        ``n2/n1``. By default taken from the table: the summed validation sizes over
        the summed training sizes (as Weka does), with training sizes from
        ``table.train_sizes()``; per-fold score tables use the ratio given to
        ``from_fold_scores``.
    alternative : {"two-sided", "less", "greater"}
    data : DataFrame, optional

    Raises
    ------
    DesignError
        Unless the design is repeated hold-out (K = 1, m >= 2); for K-fold CV use
        :func:`corrected_repeated_kfold_ttest`, the same correction over folds.

    References
    ----------
    Nadeau & Bengio (2003), Machine Learning 52(3):239–281.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> df = pd.DataFrame({"model": ["A", "B"] * 4, "replication": [1, 1, 2, 2, 3, 3, 4, 4],
    ...                    "fold": 1, "accuracy": [0.80, 0.78, 0.75, 0.76, 0.82, 0.79, 0.81, 0.81]})
    >>> t = ResultsTable.from_fold_scores(df, score="accuracy", test_train_ratio=0.5)
    >>> round(corrected_resampled_ttest(t, "A", "B").statistic, 6)
    -0.632456
    """
    tbl = as_table(table, data)
    a, b = tbl.resolve_pair(a, b)
    require_design(
        tbl,
        "corrected_resampled_ttest",
        _repeated_holdout,
        "repeated hold-out splits (one validation fold per replication, at least 2 "
        "replications); for K-fold or repeated K-fold CV use corrected_repeated_kfold_ttest",
    )
    differences = table_split_differences(tbl, a, b)[:, 0]
    notes: tuple[str, ...] = ()
    if test_train_ratio is None:
        test_train_ratio, how = table_test_train_ratio(tbl, k_fold=False)
        notes = (how,)
    result = _with_notes(_corrected_resampled(differences, test_train_ratio, alternative), notes)
    result = finish_result(result, tbl, (a, b))
    emit_warnings(result.warnings)
    return result


def corrected_repeated_kfold_ttest(
    table: ResultsTable | str,
    a: object = None,
    b: object = None,
    test_train_ratio: float | None = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> ResampledTTestResult:
    """Bouckaert & Frank's corrected repeated k-fold CV t test (10×10 CV the standard case).

    Over all k·r fold differences, ``t = mean / sqrt((1/(k r) + n2/n1) · s²) ~ t(k r − 1)``.

    Parameters
    ----------
    table : ResultsTable or str
        The results, or a formula with ``data``.
    a, b : model labels, optional
    test_train_ratio : float, optional
        ``n2/n1``. By default the summed validation sizes over the summed training
        sizes of the table (``1/(k − 1)`` for equal folds); per-fold score tables
        use the ratio given to ``from_fold_scores``, else ``1/(k − 1)``.
    alternative : {"two-sided", "less", "greater"}
    data : DataFrame, optional

    Raises
    ------
    DesignError
        Unless the design has K >= 2 folds per replication (K-fold, m×2 or
        repeated K-fold CV); for repeated hold-out use :func:`corrected_resampled_ttest`.

    References
    ----------
    Bouckaert & Frank (2004), PAKDD, LNCS 3056:3–12.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> diffs = [0.02, -0.01, 0.03, 0.00, 0.01, 0.02, -0.02, 0.01, 0.04, 0.00]
    >>> df = pd.DataFrame({"model": ["A"] * 10 + ["B"] * 10,
    ...                    "replication": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] * 2,
    ...                    "fold": [1, 2] * 10, "loss": diffs + [0.0] * 10})
    >>> t = ResultsTable.from_fold_scores(df, score="loss", direction="lower")
    >>> res = corrected_repeated_kfold_ttest(t)
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (0.522233, 0.614117)
    """
    tbl = as_table(table, data)
    a, b = tbl.resolve_pair(a, b)
    require_design(
        tbl,
        "corrected_repeated_kfold_ttest",
        _kfold_family,
        "K-fold, m×2 or repeated K-fold CV (at least 2 folds per replication); for "
        "repeated hold-out splits use corrected_resampled_ttest",
    )
    differences = table_split_differences(tbl, a, b)
    notes: tuple[str, ...] = ()
    if test_train_ratio is None:
        test_train_ratio, how = table_test_train_ratio(tbl, k_fold=True)
        notes = (how,)
    result = _with_notes(
        _corrected_repeated_kfold(differences, test_train_ratio, alternative), notes
    )
    result = finish_result(result, tbl, (a, b))
    emit_warnings(result.warnings)
    return result
