"""Paired bootstrap and paired permutation tests of any metric on the same records.

Both compare ``δ = metric(A) − metric(B)`` computed on the same test records,
for any metric of :mod:`cvreport.data.metrics` (AUC, F1, MCC, log loss, ...),
and are built on :func:`scipy.stats.bootstrap` and
:func:`scipy.stats.permutation_test`, so the same ``random_state`` draws the
same resamples as scipy does.

* **Paired bootstrap** (Koehn 2004; Berg-Kirkpatrick, Burkett & Klein 2012):
  resample the records (or whole clusters of records) with replacement, keeping
  both models' predictions of a record together; the interval is the
  percentile or the BCa interval (Efron 1987) of the resampled δ*. The p-value
  centres the bootstrap distribution on H0 (δ = 0):
  ``p = (1 + #{|δ* − δ| ≥ |δ|}) / (B + 1)`` two-sided,
  ``(1 + #{δ* − δ ≥ δ}) / (B + 1)`` for H1: δ > 0 — Berg-Kirkpatrick et al.'s
  "δ(x⁽ⁱ⁾) > 2δ(x)", with the +1 of Davison & Hinkley (1997) that keeps p > 0.
* **Paired permutation test**, approximate randomization (Noreen 1989; Yeh
  2000): under H0 the two models' predictions of a record are exchangeable, so
  each is swapped with probability ½ (per cluster for clustered records);
  ``p = (1 + #{|δ_perm| ≥ |δ|}) / (B + 1)``.

**Within a cross-validation design** both resample *within each validation
fold* (records of a fold are drawn from that fold; swaps are per record) and δ
is the mean over folds of the per-fold differences. This accounts for the
finite validation sets — the variability of scoring these trained models on
other records from the same population — but *not* for the training-set
variability nor for the dependence between folds that share training records,
which the corrected resampled t tests model (Nadeau & Bengio 2003). Read it as
a test of the trained models, not of the learning algorithms; to compare the
algorithms, use the fold-level tests on per-fold metric values.

References
----------
Koehn, P. (2004). Statistical significance tests for machine translation
evaluation. EMNLP 2004:388–395.
Berg-Kirkpatrick, T., Burkett, D. and Klein, D. (2012). An empirical
investigation of statistical significance in NLP. EMNLP-CoNLL 2012:995–1005.
Noreen, E. W. (1989). Computer-Intensive Methods for Testing Hypotheses. Wiley.
Yeh, A. (2000). More accurate tests for the statistical significance of result
differences. COLING 2000:947–953.
Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397):171–185.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from cvreport.data.metrics import resolve_metric
from cvreport.errors import CVReportError, DataError
from cvreport.methods._weighted import (
    Prepared,
    default_batch,
    prepare_pair,
    progress_bar,
    rng_keyword,
    threaded,
)
from cvreport.results import TestResult, check_alternative

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable
    from cvreport.rendering.summary import SummaryRow

__all__ = [
    "BootstrapTestResult",
    "PermutationTestResult",
    "paired_bootstrap_test",
    "paired_bootstrap_test_array",
    "paired_permutation_test",
    "paired_permutation_test_array",
]

REFERENCE_BOOTSTRAP = (
    "Koehn, P. (2004). Statistical significance tests for machine translation evaluation. "
    "EMNLP 2004:388–395; Berg-Kirkpatrick, T., Burkett, D. and Klein, D. (2012). An empirical "
    "investigation of statistical significance in NLP. EMNLP-CoNLL 2012:995–1005; BCa: Efron, B. "
    "(1987). JASA 82(397):171–185."
)
REFERENCE_PERMUTATION = (
    "Noreen, E. W. (1989). Computer-Intensive Methods for Testing Hypotheses: An Introduction. "
    "Wiley; Yeh, A. (2000). More accurate tests for the statistical significance of result "
    "differences. COLING 2000:947–953."
)
NOTE_WITHIN_FOLDS = (
    "Resampled within each validation fold: this accounts for the finite validation sets but "
    "not for training-set variability or the dependence between folds sharing training records "
    "(the corrected resampled t tests model those); it tests the trained models, not the "
    "learning algorithms."
)
NOTE_DIRECTION = (
    "The estimate and interval are metric(A) − metric(B) in the metric's own units; "
    "'greater' is H1: metric(A) > metric(B)."
)


# ---------------------------------------------------------------------------- results


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class BootstrapTestResult(TestResult):
    """Result of the paired bootstrap: ``estimate`` is metric(A) − metric(B).

    Attributes
    ----------
    metric_a, metric_b : float
        The metric of each model (mean over folds within a CV design).
    standard_error : float
        Standard deviation of the bootstrap distribution.
    n_resamples : int
    interval_method : {"BCa", "percentile"}
    units : str
        What was resampled: ``"records"`` or ``"clusters"``.
    n_units : int
    bias_correction, acceleration : float
        BCa's ``z0`` and ``a`` (NaN for the percentile interval).
    bootstrap_distribution : numpy.ndarray
        The resampled differences δ*.
    """

    metric_a: float = math.nan
    metric_b: float = math.nan
    standard_error: float = math.nan
    n_resamples: int = 0
    interval_method: str = "BCa"
    units: str = "records"
    n_units: int = 0
    bias_correction: float = math.nan
    acceleration: float = math.nan
    bootstrap_distribution: np.ndarray = dataclasses.field(
        default_factory=lambda: np.empty(0), compare=False
    )
    distribution: str = "bootstrap"

    def _conf_int(self, alpha: float) -> tuple[float, float] | None:
        dist = self.bootstrap_distribution
        if dist.size == 0:
            return None
        tail = alpha / 2.0 if self.alternative == "two-sided" else alpha
        if self.interval_method == "BCa":
            z0, a = self.bias_correction, self.acceleration
            levels = []
            for z_alpha in (float(special.ndtri(tail)), -float(special.ndtri(tail))):
                num = z0 + z_alpha
                levels.append(float(special.ndtr(z0 + num / (1.0 - a * num))))
        else:
            levels = [tail, 1.0 - tail]
        if any(math.isnan(level) for level in levels):
            return None
        low, high = (float(v) for v in np.quantile(dist, levels))
        if self.alternative == "less":
            low = -math.inf
        elif self.alternative == "greater":
            high = math.inf
        return low, high

    def _extra_rows(self) -> list[SummaryRow]:
        from cvreport.rendering.summary import SummaryRow

        extra = [
            SummaryRow(f"{self.loss_name} of A", self.metric_a, "number"),
            SummaryRow(f"{self.loss_name} of B", self.metric_b, "number"),
            SummaryRow("bootstrap standard error", self.standard_error, "number"),
            SummaryRow("interval", self.interval_method, "text"),
            SummaryRow("resamples", self.n_resamples, "value"),
            SummaryRow(f"{self.units} resampled", self.n_units, "value"),
        ]
        return extra


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class PermutationTestResult(TestResult):
    """Result of the paired permutation test: ``estimate`` is metric(A) − metric(B).

    Attributes
    ----------
    metric_a, metric_b : float
    n_resamples : int
    units : str
        What was swapped between the models: ``"records"`` or ``"clusters"``.
    n_units : int
    null_distribution : numpy.ndarray
        δ under the random swaps.
    """

    metric_a: float = math.nan
    metric_b: float = math.nan
    n_resamples: int = 0
    units: str = "records"
    n_units: int = 0
    null_distribution: np.ndarray = dataclasses.field(
        default_factory=lambda: np.empty(0), compare=False
    )
    distribution: str = "permutation"

    def _extra_rows(self) -> list[SummaryRow]:
        from cvreport.rendering.summary import SummaryRow

        extra = [
            SummaryRow(f"{self.loss_name} of A", self.metric_a, "number"),
            SummaryRow(f"{self.loss_name} of B", self.metric_b, "number"),
            SummaryRow("random swaps", self.n_resamples, "value"),
            SummaryRow(f"{self.units} swapped", self.n_units, "value"),
        ]
        return extra


# ---------------------------------------------------------------------------- bootstrap


def _bootstrap_pvalue(dist: np.ndarray, observed: float, alternative: str) -> float:
    centred = dist - observed
    if alternative == "two-sided":
        count = np.count_nonzero(np.abs(centred) >= abs(observed) * (1 - 1e-12))
    elif alternative == "greater":
        count = np.count_nonzero(centred >= observed * (1 - 1e-12))
    else:
        count = np.count_nonzero(centred <= observed * (1 - 1e-12))
    return float(min(1.0, (1 + count) / (dist.shape[0] + 1)))


def _bca_parameters(
    dist: np.ndarray, observed: float, jackknife: np.ndarray
) -> tuple[float, float]:
    """Efron's z0 and acceleration, as scipy.stats.bootstrap computes them."""
    b = dist.shape[0]
    percentile = (np.count_nonzero(dist < observed) + np.count_nonzero(dist <= observed)) / (2 * b)
    z0 = float(special.ndtri(percentile))
    n = float(jackknife.shape[0])
    u = (n - 1) * (jackknife.mean() - jackknife)
    denominator = (np.sum(u**2) / n**2) ** 1.5
    a_hat = float(np.sum(u**3) / n**3 / denominator / 6.0) if denominator > 0 else 0.0
    return z0, a_hat


def _run_bootstrap(
    prep: Prepared,
    *,
    n_resamples: int,
    confidence_level: float,
    method: str,
    alternative: str,
    random_state: Any,
    batch: int | None,
    progress: bool | None,
) -> BootstrapTestResult:
    check_alternative(alternative)
    if method not in ("BCa", "percentile"):
        raise CVReportError(f"method must be 'BCa' or 'percentile', got {method!r}")
    if not 0 < confidence_level < 1:
        raise CVReportError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")
    paired = prep.paired
    observed = paired.observed()
    metric_a, metric_b = paired.metric_values()
    n = paired.n
    # where each record sits among its fold's units, for turning draws into weights
    bounds = np.searchsorted(paired.fold, np.arange(paired.n_folds + 1))
    local = [
        np.searchsorted(units, prep.units[bounds[f] : bounds[f + 1]])
        for f, units in enumerate(prep.fold_units)
    ]
    batch = batch or default_batch(n, n_resamples)
    bar = progress_bar(n_resamples, progress, float(n_resamples) * n, "paired bootstrap")

    by_record = not prep.clustered

    def weights_of(draws: tuple[np.ndarray, ...]) -> np.ndarray:
        """Integer record weights (B, n): how often each record was drawn in each resample."""
        rows = draws[0].shape[0]
        out = np.empty((rows, n), dtype=np.int32)  # counts ≤ n: half the memory traffic
        for f, drawn in enumerate(draws):
            size = prep.fold_units[f].shape[0]
            for r in range(rows):  # one small bincount per row stays in cache
                counts = np.bincount(drawn[r], minlength=size)
                out[r, bounds[f] : bounds[f + 1]] = counts if by_record else counts[local[f]]
        return out

    def statistic(*draws: np.ndarray, axis: int = -1) -> np.ndarray:
        if draws[0].ndim == 1:  # scipy's call on the original sample
            return np.asarray(observed)
        result = threaded(paired.weighted, weights_of(draws))
        if bar is not None:
            bar.update(result.shape[0])
        return result

    data = tuple(np.arange(units.shape[0]) for units in prep.fold_units)
    try:
        res = stats.bootstrap(
            data,
            statistic,
            n_resamples=n_resamples,
            batch=batch,
            vectorized=True,
            paired=False,
            axis=-1,
            confidence_level=confidence_level,
            method="percentile",
            **{rng_keyword(): random_state},
        )
    finally:
        if bar is not None:
            bar.close()
    dist = np.asarray(res.bootstrap_distribution, dtype=np.float64)
    notes = [NOTE_DIRECTION]
    z0 = a_hat = math.nan
    used = method
    if method == "BCa":
        if paired.n_folds > 1:
            used = "percentile"
            notes.append(
                "BCa needs a jackknife of one sample; within folds the percentile interval is given."
            )
        else:
            z0, a_hat = _bca_parameters(dist, observed, paired.jackknife(prep.units, prep.n_units))
    if paired.n_folds > 1:
        notes.append(NOTE_WITHIN_FOLDS)
    warnings: tuple[str, ...] = ()
    if not np.isfinite(dist).all():
        raise DataError(
            f"{paired.spec.name} is undefined on some bootstrap resamples (e.g. an AUC of a "
            "resample holding one class only): the test set is too small or too unbalanced"
        )
    if np.ptp(dist) == 0:
        warnings = (
            "every bootstrap resample gave the same difference: the models' predictions do not "
            "differ in a way the metric sees; the interval has zero width.",
        )
    return BootstrapTestResult(
        statistic=observed,
        pvalue=_bootstrap_pvalue(dist, observed, alternative),
        alternative=alternative,
        estimate=observed,
        nobs=n,
        method="Paired bootstrap test",
        test="paired_bootstrap_test",
        reference=REFERENCE_BOOTSTRAP,
        warnings=warnings,
        notes=tuple(notes),
        loss_name=paired.spec.name,
        direction=paired.spec.metric.direction,
        metric_a=metric_a,
        metric_b=metric_b,
        standard_error=float(np.std(dist, ddof=1)),
        n_resamples=n_resamples,
        interval_method=used,
        units="clusters" if prep.clustered else "records",
        n_units=prep.n_units,
        bias_correction=z0,
        acceleration=a_hat,
        bootstrap_distribution=dist,
    )


def paired_bootstrap_test_array(
    truth: ArrayLike,
    a: ArrayLike,
    b: ArrayLike,
    *,
    metric: str | Callable[..., float] = "accuracy",
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    method: str = "BCa",
    alternative: str = "two-sided",
    clusters: ArrayLike | None = None,
    folds: ArrayLike | None = None,
    pos_label: Any = None,
    random_state: Any = None,
    batch: int | None = None,
    progress: bool | None = None,
) -> BootstrapTestResult:
    """Paired bootstrap test and interval of metric(A) − metric(B) on the same records.

    Parameters
    ----------
    truth : array_like, shape (n,)
        True labels.
    a, b : array_like
        Each model's predicted labels, or scores (``(n,)`` of the positive class,
        ``(n, C)`` per class) for a score metric.
    metric : str or callable
        A name of :func:`cvreport.data.metrics.metric_names` or a function
        ``(y_true, y) -> float``.
    n_resamples : int
    confidence_level : float
    method : {"BCa", "percentile"}
        The interval. BCa's acceleration comes from a closed-form jackknife for
        record means, confusion-count metrics and the AUC.
    alternative : {"two-sided", "less", "greater"}
        About metric(A) − metric(B).
    clusters : array_like, optional
        Cluster of each record: whole clusters are resampled (Miller 2024).
    folds : array_like, optional
        Validation fold of each record: resampling within folds, δ the mean over folds.
    pos_label : label, optional
        The positive class of a binary metric (default: the larger label).
    random_state : None, int or numpy.random.Generator
        Passed to :func:`scipy.stats.bootstrap`: the same seed draws the same resamples.
    batch : int, optional
        Resamples per vectorised call (default: about 3·10⁶ record weights per call).
    progress : bool, optional
        Show a progress bar (default: when the run is long).

    Returns
    -------
    BootstrapTestResult

    References
    ----------
    Koehn (2004); Berg-Kirkpatrick, Burkett & Klein (2012); Efron (1987).

    Examples
    --------
    >>> y = [0, 1] * 20
    >>> a = [0, 1] * 18 + [1, 0] * 2
    >>> b = [0, 1] * 12 + [1, 0] * 8
    >>> res = paired_bootstrap_test_array(y, a, b, metric="f1", n_resamples=999, random_state=0)
    >>> round(res.estimate, 4), res.pvalue < 0.05
    (0.3, True)
    """
    prep = prepare_pair(truth, a, b, metric, pos_label, folds, clusters)
    return _run_bootstrap(
        prep,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        random_state=random_state,
        batch=batch,
        progress=progress,
    )


# ---------------------------------------------------------------------------- permutation


def _run_permutation(
    prep: Prepared,
    *,
    n_resamples: int,
    alternative: str,
    random_state: Any,
    batch: int | None,
    progress: bool | None,
) -> PermutationTestResult:
    check_alternative(alternative)
    paired = prep.paired
    observed = paired.observed()
    metric_a, metric_b = paired.metric_values()
    n_units = prep.n_units
    batch = batch or default_batch(paired.n, n_resamples)
    bar = progress_bar(n_resamples, progress, float(n_resamples) * paired.n, "paired permutation")

    def statistic(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        if x.ndim == 1:
            return np.asarray(observed)
        swap = (x >= n_units)[:, prep.units]
        result = threaded(paired.swapped, swap)
        if bar is not None:
            bar.update(result.shape[0])
        return result

    units = np.arange(n_units)
    try:
        res = stats.permutation_test(
            (units, units + n_units),
            statistic,
            permutation_type="samples",
            vectorized=True,
            n_resamples=n_resamples,
            batch=batch,
            alternative=alternative,
            axis=-1,
            **{rng_keyword(): random_state},
        )
    finally:
        if bar is not None:
            bar.close()
    notes = [NOTE_DIRECTION]
    if paired.n_folds > 1:
        notes.append(NOTE_WITHIN_FOLDS)
    null = np.asarray(res.null_distribution, dtype=np.float64)
    if not np.isfinite(null).all():
        raise DataError(f"{paired.spec.name} is undefined on some permuted samples")
    return PermutationTestResult(
        statistic=observed,
        pvalue=float(res.pvalue),
        alternative=alternative,
        estimate=observed,
        nobs=paired.n,
        method="Paired permutation test (approximate randomization)",
        test="paired_permutation_test",
        reference=REFERENCE_PERMUTATION,
        notes=tuple(notes),
        loss_name=paired.spec.name,
        direction=paired.spec.metric.direction,
        metric_a=metric_a,
        metric_b=metric_b,
        n_resamples=int(null.shape[0]),
        units="clusters" if prep.clustered else "records",
        n_units=n_units,
        null_distribution=null,
    )


def paired_permutation_test_array(
    truth: ArrayLike,
    a: ArrayLike,
    b: ArrayLike,
    *,
    metric: str | Callable[..., float] = "accuracy",
    n_resamples: int = 9999,
    alternative: str = "two-sided",
    clusters: ArrayLike | None = None,
    folds: ArrayLike | None = None,
    pos_label: Any = None,
    random_state: Any = None,
    batch: int | None = None,
    progress: bool | None = None,
) -> PermutationTestResult:
    """Paired permutation test (approximate randomization) of metric(A) = metric(B).

    Each record's (or cluster's) two predictions are swapped between the models
    with probability ½; the p-value is scipy's ``(1 + #{|δ_perm| ≥ |δ|}) / (B + 1)``
    (exact when ``2ⁿ ≤ n_resamples``).

    Parameters
    ----------
    truth, a, b, metric, clusters, folds, pos_label, random_state, batch, progress
        As :func:`paired_bootstrap_test_array`.
    n_resamples : int
    alternative : {"two-sided", "less", "greater"}
        About metric(A) − metric(B).

    Returns
    -------
    PermutationTestResult

    References
    ----------
    Noreen (1989); Yeh (2000).

    Examples
    --------
    >>> y = [0, 1] * 20
    >>> a = [0, 1] * 18 + [1, 0] * 2
    >>> b = [0, 1] * 12 + [1, 0] * 8
    >>> res = paired_permutation_test_array(y, a, b, n_resamples=999, random_state=0)
    >>> round(res.estimate, 4), res.pvalue < 0.05
    (0.3, True)
    """
    prep = prepare_pair(truth, a, b, metric, pos_label, folds, clusters)
    return _run_permutation(
        prep,
        n_resamples=n_resamples,
        alternative=alternative,
        random_state=random_state,
        batch=batch,
        progress=progress,
    )


# ---------------------------------------------------------------------------- tables


def _table_inputs(
    table: ResultsTable, a: Any, b: Any, metric: Any, use_clusters: bool, what: str
) -> tuple[dict[str, Any], tuple[str, str]]:
    from cvreport.data.predictions import record_pairs, record_predictions

    kept = record_predictions(table, what)
    spec = kept.spec if metric is None else resolve_metric(metric)
    first, second = table.resolve_pair(a, b)
    folds = record_pairs(table, first, second, what)
    labels = np.asarray(kept.classes, dtype=object)
    truth = np.concatenate([labels[f.truth] for f in folds])
    if spec.needs == "prediction":
        xa = np.concatenate([labels[f.prediction_a] for f in folds])
        xb = np.concatenate([labels[f.prediction_b] for f in folds])
    else:
        xa = np.concatenate([f.of("a", spec) for f in folds])
        xb = np.concatenate([f.of("b", spec) for f in folds])
    fold_ids = np.concatenate([np.full(f.truth.shape[0], i) for i, f in enumerate(folds)])
    clusters = None
    if use_clusters and folds[0].clusters is not None:
        clusters = np.concatenate([f.clusters for f in folds])
    inputs = {
        "truth": truth,
        "a": xa,
        "b": xb,
        "metric": spec,
        "folds": fold_ids if len(folds) > 1 else None,
        "clusters": clusters,
        "pos_label": kept.classes[kept.positive],
    }
    return inputs, (str(first), str(second))


def _finish(result: Any, table: ResultsTable, models: tuple[str, str]) -> Any:
    return dataclasses.replace(result, models=models, design=table.design.describe())


def paired_bootstrap_test(
    table: ResultsTable,
    a: Any = None,
    b: Any = None,
    *,
    metric: str | Callable[..., float] | None = None,
    clusters: bool = True,
    **options: Any,
) -> BootstrapTestResult:
    """The paired bootstrap test of two models of a table built from predictions.

    On one test set it resamples its records (its clusters, when the table has a
    cluster column and ``clusters=True``); within a cross-validation design it
    resamples within each fold (see the module's notes for what that accounts for).

    Parameters
    ----------
    table : ResultsTable
        Built with ``ResultsTable.from_predictions(..., metric=...)``.
    a, b : model labels, optional
    metric : str or callable, optional
        Default: the table's metric.
    clusters : bool
        Resample the table's clusters rather than its records.
    **options
        ``n_resamples``, ``confidence_level``, ``method``, ``alternative``,
        ``random_state``, ``batch``, ``progress`` of :func:`paired_bootstrap_test_array`.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> df = pd.DataFrame({"model": ["A"] * 40 + ["B"] * 40, "record": list(range(40)) * 2,
    ...                    "y": [0, 1] * 40,
    ...                    "yhat": [0, 1] * 18 + [1, 0] * 2 + [0, 1] * 12 + [1, 0] * 8})
    >>> t = ResultsTable.from_predictions(df, truth="y", prediction="yhat", metric="f1",
    ...                                   replication=None, fold=None)
    >>> res = paired_bootstrap_test(t, n_resamples=999, random_state=0)
    >>> round(res.estimate, 4), res.models
    (0.3, ('A', 'B'))
    """
    inputs, models = _table_inputs(table, a, b, metric, clusters, "paired_bootstrap_test")
    result = paired_bootstrap_test_array(**inputs, **options)
    return _finish(result, table, models)


def paired_permutation_test(
    table: ResultsTable,
    a: Any = None,
    b: Any = None,
    *,
    metric: str | Callable[..., float] | None = None,
    clusters: bool = True,
    **options: Any,
) -> PermutationTestResult:
    """The paired permutation test of two models of a table built from predictions.

    Swaps are per record (per cluster when the table has clusters and
    ``clusters=True``), within each fold of a cross-validation design.

    Parameters
    ----------
    table : ResultsTable
    a, b : model labels, optional
    metric : str or callable, optional
    clusters : bool
    **options
        ``n_resamples``, ``alternative``, ``random_state``, ``batch``, ``progress``.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> df = pd.DataFrame({"model": ["A"] * 40 + ["B"] * 40, "record": list(range(40)) * 2,
    ...                    "y": [0, 1] * 40,
    ...                    "yhat": [0, 1] * 18 + [1, 0] * 2 + [0, 1] * 12 + [1, 0] * 8})
    >>> t = ResultsTable.from_predictions(df, truth="y", prediction="yhat", metric="accuracy",
    ...                                   replication=None, fold=None)
    >>> round(paired_permutation_test(t, n_resamples=999, random_state=0).estimate, 4)
    0.3
    """
    inputs, models = _table_inputs(table, a, b, metric, clusters, "paired_permutation_test")
    result = paired_permutation_test_array(**inputs, **options)
    return _finish(result, table, models)
