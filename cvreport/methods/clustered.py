"""The paired difference of two models on one test set whose records come in clusters.

For per-record values ``s_A,i`` and ``s_B,i`` of a record-mean metric
(accuracy, log loss, ...) on one test set, the paired difference
``d_i = s_A,i − s_B,i`` has mean ``d̄``. When records come in clusters
(passages, documents, users) the naive standard error ``sd(d)/sqrt(n)``
treats them as independent and is too small. Miller (2024), "Adding error
bars to evals", uses the cluster-robust standard error

    SE² = c · (1/n²) Σ_clusters (Σ_{i in cluster} (d_i − d̄))²,

with ``c = G/(G − 1)`` the small-sample factor of G clusters (statsmodels'
default for ``OLS(d, 1).fit(cov_type="cluster")``; ``c = 1`` is Miller's
equation), and refers ``z = d̄ / SE`` to the standard normal. The paired
bootstrap and permutation tests resample whole clusters
(:mod:`cvreport.methods.resampling`); for a metric that is not a record mean
(AUC, F1) use them.

References
----------
Miller, E. (2024). Adding error bars to evals: a statistical approach to
language model evaluations. arXiv:2411.00640.
Cameron, A. C. and Miller, D. L. (2015). A practitioner's guide to
cluster-robust inference. Journal of Human Resources 50(2):317–372.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from cvreport.data.clusters import record_clusters
from cvreport.errors import DataError, DesignError
from cvreport.methods._common import ZERO_SPREAD_RTOL, as_array, metric_name, normal_pvalue
from cvreport.methods.spec import TestSpec, record_spec
from cvreport.option_values import bool_option
from cvreport.results import NormalTestResult, check_alternative
from cvreport.summary_data import SummaryRow

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["ClusteredTestResult", "clustered_paired_test", "clustered_paired_test_array"]

REFERENCE_MILLER = (
    "Miller, E. (2024). Adding error bars to evals: a statistical approach to language model "
    "evaluations. arXiv:2411.00640; Cameron, A. C. and Miller, D. L. (2015). A practitioner's "
    "guide to cluster-robust inference. Journal of Human Resources 50(2):317–372."
)


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class ClusteredTestResult(NormalTestResult):
    """Result of the clustered paired test; ``estimate`` is the mean difference A − B.

    Attributes
    ----------
    standard_error : float
        The cluster-robust standard error.
    naive_standard_error : float
        ``sd(d)/sqrt(n)``, which ignores the clusters.
    n_clusters : int
    design_effect : float
        ``(SE / naive SE)²``: how many times larger the variance is than if the
        records were independent.
    """

    naive_standard_error: float = math.nan
    n_clusters: int = 0
    design_effect: float = math.nan

    def _extra_rows(self) -> list[SummaryRow]:
        return [
            SummaryRow("cluster-robust standard error", self.standard_error, "number"),
            SummaryRow("naive standard error", self.naive_standard_error, "number"),
            SummaryRow("design effect", self.design_effect, "number"),
            SummaryRow("clusters", self.n_clusters, "value"),
        ]


def _clustered(
    d: ArrayLike,
    clusters: ArrayLike,
    alternative: str = "two-sided",
    small_sample_correction: bool = True,
) -> ClusteredTestResult:
    d = as_array(d, "differences")
    check_alternative(alternative)
    small_sample_correction = bool_option(small_sample_correction, "small_sample_correction")
    n = d.shape[0]
    labels = np.asarray(clusters)
    if labels.shape[0] != n:
        raise DataError(
            f"differences and clusters have different lengths ({n} and {labels.shape[0]})"
        )
    if pd.isna(pd.Series(labels, dtype=object)).any():
        raise DataError("the cluster labels hold missing values; give every record a cluster")
    codes, uniques = pd.factorize(pd.Series(labels, dtype=object))
    g = len(uniques)
    if g < 2:
        raise DataError(
            f"a cluster-robust standard error needs at least 2 clusters, got {g}; with one "
            "cluster the records carry no information about between-cluster variability"
        )
    if not np.isfinite(d).all():
        raise DataError("the differences hold NaN or infinite values")
    mean = float(d.mean())
    residual = d - mean
    cluster_sums = np.bincount(codes, weights=residual, minlength=g)
    # sums of residuals within rounding of 0 are 0: clusters whose means are all 0.1 up to
    # the last bit gave a variance of 1e-35 and z = 1e16 without a word
    cluster_sums[np.abs(cluster_sums) <= ZERO_SPREAD_RTOL * float(np.abs(d).sum())] = 0.0
    factor = g / (g - 1.0) if small_sample_correction else 1.0
    variance = factor * float(np.sum(cluster_sums**2)) / n**2
    naive = float(np.std(d, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    warnings: tuple[str, ...] = ()
    if variance <= 0:
        se = 0.0
        z = 0.0 if mean == 0 else math.copysign(math.inf, mean)
        pvalue = 1.0 if mean == 0 else float(normal_pvalue(z, alternative))
        warnings = (
            "the cluster-robust variance is 0 (every cluster has the same mean difference): by "
            "convention z = 0 and p = 1 when the mean is 0, ±inf and p = 0 otherwise; the test "
            "carries no information about variability here.",
        )
    else:
        se = math.sqrt(variance)
        z = mean / se
        pvalue = float(normal_pvalue(z, alternative))
    correction = ", with the small-sample factor G/(G − 1)," if small_sample_correction else ""
    notes = [
        f"The standard error is cluster-robust: computed from the sums of the {g} clusters "
        f"(Miller 2024){correction} and z is referred to N(0, 1)."
    ]
    if g < 30:
        notes.append(
            f"only {g} clusters: cluster-robust standard errors are biased downwards with few "
            "clusters (Cameron & Miller 2015); prefer the cluster bootstrap or permutation test."
        )
    return ClusteredTestResult(
        statistic=z,
        pvalue=pvalue,
        alternative=alternative,
        estimate=mean,
        nobs=n,
        method="Paired test with cluster-robust standard error",
        test="clustered_paired_test",
        reference=REFERENCE_MILLER,
        warnings=warnings,
        notes=tuple(notes),
        standard_error=se,
        naive_standard_error=naive,
        n_clusters=g,
        design_effect=(se / naive) ** 2 if naive and naive > 0 else math.nan,
    )


def clustered_paired_test_array(
    differences: ArrayLike,
    clusters: ArrayLike,
    *,
    alternative: str = "two-sided",
    small_sample_correction: bool = True,
) -> ClusteredTestResult:
    """Test a mean paired difference with a cluster-robust standard error (Miller 2024).

    Parameters
    ----------
    differences : array_like, shape (n,)
        Per-record ``s_A − s_B`` of a record-mean metric (e.g. 1/0 correct).
    clusters : array_like, shape (n,)
        Cluster label of each record.
    alternative : {"two-sided", "less", "greater"}
        About the mean difference: "greater" is H1: mean(A − B) > 0.
    small_sample_correction : bool
        Multiply the variance by ``G/(G − 1)``, as statsmodels does by default.

    Returns
    -------
    ClusteredTestResult

    Raises
    ------
    DataError
        Differences and clusters of different lengths, a missing cluster label, fewer
        than 2 clusters, or a NaN or infinite difference.

    References
    ----------
    Miller (2024), arXiv:2411.00640, section 2; Cameron & Miller (2015).

    Examples
    --------
    >>> d = [1, 1, 0, 0, -1, 0, 1, 1]
    >>> res = clustered_paired_test_array(d, ["p", "p", "q", "q", "r", "r", "s", "s"])
    >>> round(res.estimate, 4), round(res.standard_error, 6), res.n_clusters
    (0.375, 0.375, 4)
    """
    return CLUSTERED.run_arrays(
        differences,
        clusters,
        alternative=alternative,
        small_sample_correction=small_sample_correction,
    )


def _record_differences(
    spec: TestSpec, table: ResultsTable, pair: Any, stats: Any, options: dict[str, Any]
) -> tuple[tuple[np.ndarray, np.ndarray], dict[str, Any]]:
    """The per-record differences hit(A) − hit(B) in the metric and their clusters."""
    table.require_per_record("clustered_paired_test")
    mapping = record_clusters(table, "clustered_paired_test")
    if table.design.m * table.design.K != 1:
        raise DesignError(
            f"clustered_paired_test needs one test set, but the table holds "
            f"{table.design.describe()}; within cross-validation use the fold-level tests "
            "(and keep each cluster in one fold)"
        )
    frame = table.record_differences(*pair)  # in the metric: hit(A) − hit(B)
    d = frame["difference"].to_numpy(dtype=np.float64)
    return (d, mapping.reindex(frame["record"]).to_numpy()), options


def _finish(result: ClusteredTestResult, table: ResultsTable, pair: Any, *_: Any) -> Any:
    return dataclasses.replace(
        result,
        models=(str(pair[0]), str(pair[1])),
        design=table.design.describe(),
        loss_name=metric_name(table),
        direction="higher" if table.higher_is_better else "lower",
    )


def clustered_paired_test(
    table: ResultsTable,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str = "two-sided",
    small_sample_correction: bool = True,
) -> ClusteredTestResult:
    """The clustered paired test of two models on a hold-out table with clusters.

    The table holds per-record values (a loss, or a record-mean metric from
    :meth:`ResultsTable.from_predictions`) and the cluster of each record
    (``cluster=``). The estimate is in the metric's own units and direction,
    metric(A) − metric(B).

    Parameters
    ----------
    table : ResultsTable
        One hold-out split with per-record values and a cluster column.
    a, b : model labels, optional
        Model A and model B; default to the two models when there are exactly two.
    alternative : {"two-sided", "less", "greater"}
        About metric(A) − metric(B).
    small_sample_correction : bool
        As :func:`clustered_paired_test_array`.

    Returns
    -------
    ClusteredTestResult

    Raises
    ------
    DesignError
        A table of per-fold values, without clusters, or with more than one
        validation set (cross-validation: use the fold-level tests, after checking
        that no cluster straddles two folds).

    References
    ----------
    Miller (2024), arXiv:2411.00640, section 2; Cameron & Miller (2015).

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> df = pd.DataFrame({"model": ["A"] * 8 + ["B"] * 8, "record": list(range(8)) * 2,
    ...                    "passage": list("ppqqrrss") * 2, "y": [1] * 16,
    ...                    "yhat": [1, 1, 1, 1, 0, 1, 1, 1] + [0, 0, 1, 1, 1, 1, 0, 0]})
    >>> t = ResultsTable.from_predictions(df, truth="y", prediction="yhat", metric="accuracy",
    ...                                   cluster="passage", replication=None, fold=None)
    >>> res = clustered_paired_test(t)
    >>> round(res.estimate, 4), res.n_clusters
    (0.375, 4)
    """
    return CLUSTERED.run(
        table, a, b, alternative=alternative, small_sample_correction=small_sample_correction
    )


CLUSTERED = record_spec(
    label="Clustered paired test",
    method="Paired test with cluster-robust standard error",
    reference=REFERENCE_MILLER,
    function=clustered_paired_test,
    result=ClusteredTestResult,
    statistic="mean difference / cluster-robust SE",
    distribution="N(0, 1)",
    array_function=clustered_paired_test_array,
    build=_clustered,
    prepare=_record_differences,
    finish=_finish,
)
