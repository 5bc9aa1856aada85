"""Paired bootstrap and paired permutation tests of any metric on the same records.

Both compare ``δ = metric(A) − metric(B)`` computed on the same test records,
for any metric of :mod:`cvreport.data.metrics` (AUC, F1, MCC, log loss, ...),
and draw the resamples :func:`scipy.stats.bootstrap` and
:func:`scipy.stats.permutation_test` draw for the same ``random_state`` (the
same indices and swaps, taken from the generator in the same order), computed
near the cost of drawing them (see :mod:`cvreport.methods._weighted`).

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
  scipy's p-value: one-sided ``(1 + #{δ_perm ≥ δ}) / (B + 1)`` (or ≤), two-sided
  twice the smaller one-sided p-value, at most 1 (docs/methods.md says why).

**Within a cross-validation design** both resample *within each validation
fold* (records of a fold are drawn from that fold; swaps are per record) and δ
is the mean over folds of the per-fold differences. This accounts for the
finite validation sets — the variability of scoring these trained models on
other records from the same population — but *not* for the training-set
variability nor for the dependence between folds that share training records,
which the corrected resampled t tests model (Nadeau & Bengio 2003). Read it as
a test of the trained models, not of the learning algorithms; to compare the
algorithms, use the fold-level tests on per-fold metric values.

This module holds the public tests (arrays and tables) and their specs; the
resampled distributions and their p-values are computed in
:mod:`cvreport.methods.resampling_bootstrap` and
:mod:`cvreport.methods.resampling_permutation`, from the draws of
:mod:`cvreport.methods.resampling_draws`.

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

import inspect
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from cvreport.data.metrics import resolve_metric
from cvreport.data.predictions import record_pairs, record_predictions
from cvreport.errors import DataError
from cvreport.methods._weighted import Prepared, prepare_pair, progress_bar
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.hypothesis_note import alternative_note
from cvreport.methods.resampling_bootstrap import (
    bca_parameters,
    bootstrap_distribution,
    bootstrap_pvalue,
)
from cvreport.methods.resampling_options import (
    check_bootstrap_options,
    check_option_names,
    check_permutation_options,
    options_checked,
)
from cvreport.methods.resampling_permutation import (
    enumerated_permutation,
    permutation_distribution,
    permutation_pvalue,
)
from cvreport.methods.resampling_results import BootstrapTestResult, PermutationTestResult
from cvreport.methods.run import with_table_design
from cvreport.methods.spec import record_spec

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable
    from cvreport.methods.spec import TestSpec

__all__ = [
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
    "the draws stay within each validation fold: this accounts for the finite validation sets "
    "but not for training-set variability or the dependence between folds sharing training "
    "records (the corrected t tests on per-fold values model those); it tests the trained "
    "models, not the learning algorithms."
)
NOTE_BCA_WITHIN_FOLDS = (
    "BCa needs a jackknife of one sample; within folds the percentile interval is given."
)


def _shared_fields(
    prep: Prepared, spec: TestSpec, alternative: str, notes: list[str]
) -> dict[str, Any]:
    """The fields the bootstrap and the permutation results fill alike."""
    paired = prep.paired
    observed = paired.observed()
    metric_a, metric_b = paired.metric_values()
    within = [NOTE_WITHIN_FOLDS] if paired.n_folds > 1 else []
    notes = [*alternative_note(alternative, paired.spec.name), *within, *notes]
    return {
        "statistic": observed,
        "alternative": alternative,
        "estimate": observed,
        "nobs": paired.n,
        "method": spec.method,
        "test": spec.name,
        "reference": spec.reference,
        "notes": tuple(notes),
        "loss_name": paired.spec.name,
        "direction": paired.spec.metric.direction,
        "metric_a": metric_a,
        "metric_b": metric_b,
        "units": "clusters" if prep.clustered else "records",
        "n_units": prep.n_units,
    }


# ---------------------------------------------------------------------------- bootstrap


def _run_bootstrap(
    prep: Prepared,
    *,
    n_resamples: int,
    confidence_level: float,
    method: str,
    alternative: str,
    rng: np.random.Generator,
    seed: str,
    batch: int | None,
    progress: bool | None,
) -> BootstrapTestResult:
    paired = prep.paired
    observed = paired.observed()
    work = float(n_resamples) * paired.n
    with progress_bar(n_resamples, progress, work, "paired bootstrap") as bar:
        dist = bootstrap_distribution(prep, rng, n_resamples, batch, bar)
    notes = []
    z0 = a_hat = math.nan
    used = method
    if method == "BCa":
        if paired.n_folds > 1:
            used = "percentile"
            notes.append(NOTE_BCA_WITHIN_FOLDS)
        else:
            jackknife = paired.jackknife(prep.units, prep.n_units)
            z0, a_hat = bca_parameters(dist, observed, jackknife)
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
        **_shared_fields(prep, PAIRED_BOOTSTRAP, alternative, notes),
        pvalue=bootstrap_pvalue(dist, observed, alternative),
        warnings=warnings,
        standard_error=float(np.std(dist, ddof=1)),
        n_resamples=n_resamples,
        seed=seed,
        interval_method=used,
        bias_correction=z0,
        acceleration=a_hat,
        bootstrap_distribution=dist,
    )


@fill_doc
@options_checked
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
    random_state : None, int, numpy.random.SeedSequence, Generator or RandomState
        Taken as :func:`scipy.stats.bootstrap` takes ``rng=``: the same seed draws the
        same resamples as scipy.
    batch : int, optional
        As scipy's ``batch``: resamples drawn per fold before the next fold's
        (default: all of them). It changes which indices each fold gets when
        there are several folds, as in scipy; memory stays bounded either way.
    progress : bool, optional
        Show a progress bar (default: when the run is long).

    {returns}

    Raises
    ------
    CVReportError
        An option out of range or of the wrong type, or a misspelt option name
        (the message names the accepted ones).
    DataError
        Inputs of different lengths, or a metric undefined on some resamples.

    {bootstrap_references}

    {examples_prediction_arrays}
    >>> res = paired_bootstrap_test_array(y, a, b, metric="f1", n_resamples=999, random_state=0)
    >>> round(res.estimate, 4), res.pvalue < 0.05
    (0.3, True)
    """
    options = check_bootstrap_options(
        n_resamples, confidence_level, method, alternative, random_state, batch, progress
    )
    return _run_bootstrap(prepare_pair(truth, a, b, metric, pos_label, folds, clusters), **options)


# ---------------------------------------------------------------------------- permutation


def _run_permutation(
    prep: Prepared,
    *,
    n_resamples: int,
    alternative: str,
    rng: np.random.Generator,
    seed: str,
    progress: bool | None,
) -> PermutationTestResult:
    n_units = prep.n_units
    if n_units < 63 and n_resamples >= 2**n_units:  # exact: every swap pattern
        null, pvalue = enumerated_permutation(prep, rng, n_resamples, alternative)
        seed = "none: every swap pattern was enumerated (exact)"
    else:
        work = float(n_resamples) * prep.paired.n
        with progress_bar(n_resamples, progress, work, "paired permutation") as bar:
            null = permutation_distribution(prep, rng, n_resamples, bar)
        pvalue = permutation_pvalue(null, prep.paired.observed(), alternative, exact=False)
    if not np.isfinite(null).all():
        raise DataError(f"{prep.paired.spec.name} is undefined on some permuted samples")
    warnings: tuple[str, ...] = ()
    if np.ptp(null) == 0:  # the observed difference is one of the swaps, so it is the same
        warnings = (
            "every swap of the two models' outputs gave the same difference: the models' "
            f"predictions do not differ in a way the metric sees, so p = {float(pvalue):g} "
            "carries no evidence either way.",
        )
    return PermutationTestResult(
        **_shared_fields(prep, PAIRED_PERMUTATION, alternative, []),
        pvalue=pvalue,
        warnings=warnings,
        n_resamples=int(null.shape[0]),
        seed=seed,
        null_distribution=null,
    )


@fill_doc
@options_checked
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
    with probability ½, with the swaps :func:`scipy.stats.permutation_test` draws
    for the same ``random_state``. The p-value is scipy's: one-sided
    ``p_greater = (1 + #{δ_perm ≥ δ}) / (B + 1)`` (``p_less`` with ≤), two-sided
    ``min(1, 2·min(p_less, p_greater))``; every swap pattern is enumerated, without
    the +1, when ``2ⁿ ≤ n_resamples``.

    Parameters
    ----------
    truth, a, b, metric, clusters, folds, pos_label, random_state, progress
        As :func:`paired_bootstrap_test_array`.
    batch : int, optional
        Accepted for scipy's signature; the swaps drawn do not depend on it.
    n_resamples : int
    alternative : {"two-sided", "less", "greater"}
        About metric(A) − metric(B).

    {returns}

    Raises
    ------
    CVReportError
        An option out of range or of the wrong type, or a misspelt option name.
    DataError
        Inputs of different lengths.

    {permutation_references}

    {examples_prediction_arrays}
    >>> res = paired_permutation_test_array(y, a, b, n_resamples=999, random_state=0)
    >>> round(res.estimate, 4), res.pvalue < 0.05
    (0.3, True)
    """
    options = check_permutation_options(n_resamples, alternative, random_state, batch, progress)
    return _run_permutation(
        prepare_pair(truth, a, b, metric, pos_label, folds, clusters), **options
    )


# ---------------------------------------------------------------------------- tables

_DATA_ARGUMENTS = ("truth", "a", "b", "metric", "clusters", "folds", "pos_label")
_BOOTSTRAP_OPTIONS = [
    name
    for name in inspect.signature(paired_bootstrap_test_array).parameters
    if name not in _DATA_ARGUMENTS
]
_PERMUTATION_OPTIONS = [
    name
    for name in inspect.signature(paired_permutation_test_array).parameters
    if name not in _DATA_ARGUMENTS
]


def _table_inputs(
    table: ResultsTable, a: Any, b: Any, metric: Any, use_clusters: bool, what: str
) -> tuple[dict[str, Any], tuple[str, str]]:
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


@fill_doc
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

    {returns}

    Raises
    ------
    {prediction_table_raises}
    DataError
        A metric undefined on some resamples.

    {bootstrap_references}

    {examples_predictions}
    >>> t = ResultsTable.from_predictions(df, truth="y", prediction="yhat", metric="f1",
    ...                                   replication=None, fold=None)
    >>> res = paired_bootstrap_test(t, n_resamples=999, random_state=0)
    >>> round(res.estimate, 4), res.models
    (0.3, ('A', 'B'))
    """
    check_option_names("cvreport.paired_bootstrap_test", options, _BOOTSTRAP_OPTIONS)
    check_bootstrap_options(**options)  # before reading the table
    inputs, models = _table_inputs(table, a, b, metric, clusters, "paired_bootstrap_test")
    result = paired_bootstrap_test_array(**inputs, **options)
    return with_table_design(result, table, models)


@fill_doc
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

    {returns}

    Raises
    ------
    {prediction_table_raises}

    {permutation_references}

    {examples_predictions}
    >>> t = ResultsTable.from_predictions(df, truth="y", prediction="yhat", metric="accuracy",
    ...                                   replication=None, fold=None)
    >>> round(paired_permutation_test(t, n_resamples=999, random_state=0).estimate, 4)
    0.3
    """
    check_option_names("cvreport.paired_permutation_test", options, _PERMUTATION_OPTIONS)
    check_permutation_options(**options)
    inputs, models = _table_inputs(table, a, b, metric, clusters, "paired_permutation_test")
    result = paired_permutation_test_array(**inputs, **options)
    return with_table_design(result, table, models)


PAIRED_BOOTSTRAP = record_spec(
    label="Paired bootstrap test",
    reference=REFERENCE_BOOTSTRAP,
    function=paired_bootstrap_test,
    result=BootstrapTestResult,
    statistic="metric(A) − metric(B) over records resampled in pairs",
    distribution="bootstrap",
    array_function=paired_bootstrap_test_array,
)
PAIRED_PERMUTATION = record_spec(
    label="Paired permutation test",
    method="Paired permutation test (approximate randomization)",
    reference=REFERENCE_PERMUTATION,
    function=paired_permutation_test,
    result=PermutationTestResult,
    statistic="metric(A) − metric(B) under swaps of A and B within records",
    distribution="permutation",
    array_function=paired_permutation_test_array,
)
