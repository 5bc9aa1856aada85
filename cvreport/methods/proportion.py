"""Dietterich's difference-of-proportions test on one hold-out split (not recommended).

With error rates ``pA`` and ``pB`` of the two models on the same ``n``
validation records and the pooled rate ``p = (pA + pB)/2``::

    z = (pA − pB) / sqrt(2 p (1 − p) / n)   ~ N(0, 1)

The test treats the two error rates as independent binomial proportions, but
they are measured on the same records, so it ignores the pairing (and any
training-set randomness): Dietterich (1998) found its type I error too high
and does not recommend it. McNemar's test is the paired alternative. It is
kept so that a report can show how the decision depends on the method.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from cvreport.errors import CVReportError, DataError
from cvreport.methods._common import kernel_fields, normal_pvalue, safe_ratio
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.spec import TestSpec, holdout_error_rates
from cvreport.option_values import integer_option, real_option
from cvreport.results import TestResult, check_alternative
from cvreport.summary_data import SummaryRow

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "PROPORTION",
    "ProportionKernel",
    "ProportionTestResult",
    "proportion_test",
    "proportion_test_array",
    "proportion_test_kernel",
]

REFERENCE = (
    "Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised "
    "classification learning algorithms. Neural Computation 10(7):1895–1923, section 3.1."
)
#: Why the difference of proportions misleads: its spec's caution and, after "not recommended
#: as the deciding test —", its result's note (a report shows the note once).
PROPORTION_CAUTION = (
    "the two error rates come from the same validation records, but the test treats them as "
    "independent proportions and ignores training-set variation (Dietterich 1998); a "
    "labelled baseline only, as McNemar's test pairs the records of one hold-out split"
)
NOT_RECOMMENDED = f"not recommended as the deciding test — {PROPORTION_CAUTION}."


class ProportionKernel(NamedTuple):
    """Elementwise output of :func:`proportion_test_kernel` (batch shape ``...``)."""

    statistic: NDArray[np.float64]
    pvalue: NDArray[np.float64]
    estimate: NDArray[np.float64]
    pooled_error: NDArray[np.float64]
    degenerate: NDArray[np.int8]


def proportion_test_kernel(
    error_a: ArrayLike, error_b: ArrayLike, n: ArrayLike, alternative: str = "two-sided"
) -> ProportionKernel:
    """Difference-of-proportions z statistic, elementwise over broadcast inputs.

    Parameters
    ----------
    error_a, error_b : array_like
        Error rates of A and B on the same validation set.
    n : array_like
        Validation-set size.
    alternative : {"two-sided", "less", "greater"}
        "less" means H1: A has the lower error rate.

    Examples
    --------
    >>> k = proportion_test_kernel(0.15, 0.10, 100)
    >>> round(float(k.statistic), 6), round(float(k.pvalue), 6)
    (1.069045, 0.285049)
    """
    check_alternative(alternative)
    pa = np.asarray(error_a, dtype=np.float64)
    pb = np.asarray(error_b, dtype=np.float64)
    size = np.asarray(n, dtype=np.float64)
    pooled = (pa + pb) / 2.0
    # p(1 − p) is exactly 0 at p ∈ {0, 1}; clip rounding below 0
    spread = np.sqrt(np.maximum(2.0 * pooled * (1.0 - pooled), 0.0) / size)
    statistic, code = safe_ratio(pa - pb, spread)
    pvalue = np.where(code == 1, 1.0, normal_pvalue(statistic, alternative))
    return ProportionKernel(
        statistic=np.asarray(statistic, dtype=np.float64),
        pvalue=np.asarray(pvalue, dtype=np.float64),
        estimate=np.asarray(pa - pb, dtype=np.float64),
        pooled_error=np.asarray(pooled, dtype=np.float64),
        degenerate=np.asarray(code, dtype=np.int8),
    )


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class ProportionTestResult(TestResult):
    """Result of the difference-of-proportions test.

    Attributes
    ----------
    error_a, error_b : float
        Error rates of A and B on the validation set.
    pooled_error : float
        ``(error_a + error_b) / 2``.

    The method defines no confidence interval (:meth:`conf_int` raises
    :class:`~cvreport.errors.IntervalUndefinedError`).
    """

    error_a: float = math.nan
    error_b: float = math.nan
    pooled_error: float = math.nan

    def _extra_rows(self) -> list[SummaryRow]:
        return [
            SummaryRow("error rate A", self.error_a, "number"),
            SummaryRow("error rate B", self.error_b, "number"),
            SummaryRow("pooled error rate", self.pooled_error, "number"),
        ]


def _check_whole_errors(name: str, rate: float, n: int) -> None:
    """Refuse an error rate that is not a whole number of errors out of ``n`` records.

    ``rate · n`` is compared with the nearest whole number up to floating rounding
    (``0.07 · 100`` is 7.000000000000001), so only rates no count over ``n`` gives
    are refused.
    """
    errors = rate * n
    whole = round(errors)
    if not math.isclose(errors, whole, rel_tol=1e-9, abs_tol=1e-9):
        low, high = math.floor(errors), math.ceil(errors)
        raise DataError(
            f"{name} = {rate!r} is not a whole number of errors out of n = {n} records "
            f"({name} · n = {errors:.6g}); an error rate on one validation set is errors / n: "
            f"pass the count of errors divided by n (e.g. {low}/{n} = {low / n:.6g} or "
            f"{high}/{n} = {high / n:.6g}), or the n the rate was computed on"
        )


def _proportion(error_a: float, error_b: float, n: int, alternative: str) -> ProportionTestResult:
    rate = "an error rate in [0, 1]"
    pa = real_option(error_a, "error_a", rate, finite=False, error=DataError)
    pb = real_option(error_b, "error_b", rate, finite=False, error=DataError)
    for name, value in (("error_a", pa), ("error_b", pb)):
        if not (0.0 <= value <= 1.0):
            raise DataError(f"{name} must be an error rate in [0, 1], got {value!r}")
    requirement = "a positive whole number of validation records"
    if integer_option(n, "n", requirement) < 1:
        raise CVReportError(f"n must be {requirement}, got {n!r}")
    for name, value in (("error_a", pa), ("error_b", pb)):
        _check_whole_errors(name, value, int(n))
    kernel = proportion_test_kernel(pa, pb, n, alternative)
    return ProportionTestResult(
        **kernel_fields(
            PROPORTION,
            kernel,
            alternative,
            numerator="the difference of error rates",
            denominator="the pooled variance 2p(1 − p)/n (both models err on none or on all records)",
        ),
        distribution="normal",
        estimate=pa - pb,
        nobs=int(n),
        notes=(NOT_RECOMMENDED,),
        error_a=pa,
        error_b=pb,
        pooled_error=float(kernel.pooled_error),
    )


@fill_doc
def proportion_test_array(
    error_a: float, error_b: float, n: int, *, alternative: str = "two-sided"
) -> ProportionTestResult:
    """Dietterich's difference-of-proportions test for one validation set (not recommended).

    ``z = (pA − pB) / sqrt(2p(1 − p)/n)``, ``p = (pA + pB)/2``, referred to N(0, 1).

    Parameters
    ----------
    error_a, error_b : float
        Error rates of A and B on the same ``n`` validation records: each a whole
        number of errors divided by ``n`` (``0.123`` with ``n = 100`` is refused).
    n : int
        Number of validation records.
    alternative : {"two-sided", "less", "greater"}
        "less" means H1: A has the lower error rate.

    {returns}

    {raises_array}

    References
    ----------
    Dietterich (1998), Neural Computation 10(7), section 3.1.

    Examples
    --------
    >>> res = proportion_test_array(0.15, 0.10, 100)
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (1.069045, 0.285049)
    """
    return PROPORTION.run_arrays(error_a, error_b, n, alternative=alternative)


def _error_rates(
    spec: TestSpec, table: ResultsTable, pair: Any, stats: Any, options: dict[str, Any]
) -> tuple[tuple[float, float, int], dict[str, Any]]:
    """The error rates of A and B on the one validation set and its size."""
    table.require_per_record(spec.name)
    table.require_binary(spec.name)
    a, b = pair
    sums, counts = table.stats.sums, table.stats.counts  # [replication, fold, model]
    ia, ib = table.models.index(a), table.models.index(b)
    n_a, n_b = int(counts[0, 0, ia]), int(counts[0, 0, ib])
    if n_a != n_b:
        raise DataError(
            f"models {a!r} and {b!r} were scored on different numbers of records ({n_a} and "
            f"{n_b}); the test needs both on the same validation set"
        )
    return (float(sums[0, 0, ia]) / n_a, float(sums[0, 0, ib]) / n_b, n_a), options


@fill_doc
def proportion_test(
    table: ResultsTable | str,
    a: object = None,
    b: object = None,
    *,
    alternative: str = "two-sided",
    data: pd.DataFrame | None = None,
) -> ProportionTestResult:
    """Dietterich's difference-of-proportions test on one hold-out split (not recommended).

    {parameters_pair}
    alternative : {"two-sided", "less", "greater"}
    {data}

    {returns}

    Raises
    ------
    DesignError
        Unless the table holds one hold-out split (one replication, one fold) of
        per-record losses.
    DataError
        If the losses are not 0/1.

    References
    ----------
    Dietterich (1998), Neural Computation 10(7), section 3.1.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> errors = {"A": [1] * 15 + [0] * 85, "B": [1] * 10 + [0] * 90}
    >>> df = pd.DataFrame([{"model": m, "replication": 1, "fold": 1, "record": i, "loss": e}
    ...                    for m, losses in errors.items() for i, e in enumerate(losses)])
    >>> res = proportion_test(ResultsTable(df))
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (1.069045, 0.285049)
    """
    return PROPORTION.run(table, a, b, alternative=alternative, data=data)


PROPORTION = TestSpec(
    label="Difference of proportions test",
    reference=REFERENCE,
    designs=("holdout",),
    requirement=(
        "one hold-out split (one replication with one validation fold); for K-fold or "
        "repeated designs use paired_ttest_kfold or corrected_resampled_ttest"
    ),
    function=proportion_test,
    result=ProportionTestResult,
    build=_proportion,
    prepare=_error_rates,
    statistic="(p_A − p_B) / sqrt(2 p (1 − p) / n)",
    distribution="N(0, 1)",
    array_function=proportion_test_array,
    kernel=proportion_test_kernel,
    inputs=holdout_error_rates,
    needs_binary=True,
    caution=PROPORTION_CAUTION,
)
