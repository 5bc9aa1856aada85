"""Specifications of the tests on the records of one table built from predictions.

DeLong's test, the paired bootstrap and permutation tests and the clustered
paired test are recommended by the metric (cvreport.reporting.metric_choice),
not by the design kind, so their specs list no design kinds: the report runs
them when named, and :func:`cvreport.methods.registry.specs_for` never picks them.
"""

from __future__ import annotations

from typing import Any

from cvreport.methods.clustered import (
    REFERENCE_MILLER,
    ClusteredTestResult,
    clustered_paired_test,
    clustered_paired_test_array,
)
from cvreport.methods.delong import (
    REFERENCE_DELONG,
    DeLongResult,
    delong_test,
    delong_test_array,
)
from cvreport.methods.resampling import (
    REFERENCE_BOOTSTRAP,
    REFERENCE_PERMUTATION,
    paired_bootstrap_test,
    paired_bootstrap_test_array,
    paired_permutation_test,
    paired_permutation_test_array,
)
from cvreport.methods.resampling_results import BootstrapTestResult, PermutationTestResult
from cvreport.methods.spec import TestSpec

__all__ = ["CLUSTERED", "DELONG", "PAIRED_BOOTSTRAP", "PAIRED_PERMUTATION"]

_RECORDS = "a table of per-record predictions or losses"


def _record_spec(**facts: Any) -> TestSpec:
    """The spec of a test on the records: no design kinds (the metric recommends it)."""
    return TestSpec(designs=(), requirement=_RECORDS, needs_per_record=True, **facts)


DELONG = _record_spec(
    name="delong_test",
    label="DeLong's test of two AUCs",
    method="DeLong's test of two correlated AUCs",
    reference=REFERENCE_DELONG,
    function=delong_test,
    result=DeLongResult,
    statistic="(AUC_A − AUC_B) / SE from the structural components",
    distribution="N(0, 1)",
    array_function=delong_test_array,
    takes_margin=True,
)
PAIRED_BOOTSTRAP = _record_spec(
    name="paired_bootstrap_test",
    label="Paired bootstrap test",
    method="Paired bootstrap test",
    reference=REFERENCE_BOOTSTRAP,
    function=paired_bootstrap_test,
    result=BootstrapTestResult,
    statistic="metric(A) − metric(B) over records resampled in pairs",
    distribution="bootstrap",
    array_function=paired_bootstrap_test_array,
)
PAIRED_PERMUTATION = _record_spec(
    name="paired_permutation_test",
    label="Paired permutation test",
    method="Paired permutation test (approximate randomization)",
    reference=REFERENCE_PERMUTATION,
    function=paired_permutation_test,
    result=PermutationTestResult,
    statistic="metric(A) − metric(B) under swaps of A and B within records",
    distribution="permutation",
    array_function=paired_permutation_test_array,
)
CLUSTERED = _record_spec(
    name="clustered_paired_test",
    label="Clustered paired test",
    method="Paired test with cluster-robust standard error",
    reference=REFERENCE_MILLER,
    function=clustered_paired_test,
    result=ClusteredTestResult,
    statistic="mean difference / cluster-robust SE",
    distribution="t(G − 1)",
    array_function=clustered_paired_test_array,
)
