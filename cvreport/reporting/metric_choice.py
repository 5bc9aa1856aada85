"""The recommended test for a table's metric, and why.

* A metric that is a **mean of per-record values** (0/1 error, accuracy, log
  loss, Brier score) keeps the design's usual tests: they are built on exactly
  such means.
* A metric that is **not** (AUC, F1, MCC, balanced accuracy, ...) has no
  per-record value to average. Within cross-validation it is computed once per
  fold, and the fold-level test of the design decides (the corrected t tests
  account for the training-set overlap). On **one test set** there is a single
  value per model, so the comparison rests on the records: DeLong's test for
  the AUC, whose variance is known in closed form (DeLong et al. 1988), and the
  paired bootstrap for any other metric (Koehn 2004; Berg-Kirkpatrick et al. 2012).
* **Clustered records** on one test set are not independent: the
  cluster-robust standard error of the paired difference for a record mean
  (Miller 2024), the bootstrap over whole clusters otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cvreport.reporting.selection import Recommendation, recommendation

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["metric_recommendation"]


def metric_recommendation(
    table: ResultsTable, *, partitions: str | None = None
) -> Recommendation | None:
    """The recommendation for a table built from predictions with a metric or clusters.

    Returns ``None`` when the table's usual recommendation applies unchanged
    (a table of losses without clusters).

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> df = pd.DataFrame({"model": ["A"] * 6 + ["B"] * 6, "record": list(range(6)) * 2,
    ...                    "y": [1, 1, 1, 0, 0, 0] * 2,
    ...                    "p": [0.9, 0.8, 0.3, 0.4, 0.2, 0.1, 0.7, 0.4, 0.6, 0.5, 0.3, 0.2]})
    >>> t = ResultsTable.from_predictions(df, truth="y", score="p", metric="roc_auc",
    ...                                   replication=None, fold=None)
    >>> metric_recommendation(t).names
    ('delong_test',)
    """
    kept = getattr(table, "_record_predictions", None)
    clustered = getattr(table, "_record_clusters", None) is not None
    if kept is None and not clustered:
        return None
    design = table.design
    one_test_set = design.m * design.K == 1
    name = kept.spec.name if kept is not None else table.loss_name
    decomposable = kept is None or kept.spec.decomposable
    if one_test_set and clustered:
        if decomposable:
            return Recommendation(
                ("clustered_paired_test",),
                f"The records come in clusters, so they are not independent: the paired "
                f"difference in {name} gets a cluster-robust standard error, which the naive "
                "one understates when records of a cluster succeed or fail together "
                "(Miller 2024).",
                fallbacks=("paired_bootstrap_test",),
            )
        return Recommendation(
            ("paired_bootstrap_test",),
            f"{name} is not a mean of per-record values and the records come in clusters: "
            "the paired bootstrap resamples whole clusters, which keeps their dependence "
            "(Miller 2024; Koehn 2004).",
        )
    if decomposable:
        base = recommendation(
            design.kind,
            partitions=partitions,
            binary=bool(table.is_binary),
            per_record=bool(table.per_record),
        )
        return Recommendation(
            base.names,
            f"{name} is a mean of per-record values, so the design's usual tests apply. "
            + base.reason,
            base.fallbacks,
        )
    if one_test_set:
        if name == "roc_auc":
            return Recommendation(
                ("delong_test",),
                "On one test set the AUCs of two models scored on the same records are "
                "correlated; DeLong's test estimates that covariance in closed form from the "
                "placement of each positive among the negatives (DeLong, DeLong & "
                "Clarke-Pearson 1988).",
                fallbacks=("paired_bootstrap_test",),
            )
        return Recommendation(
            ("paired_bootstrap_test",),
            f"{name} is not a mean of per-record values, so on one test set its sampling "
            "variability comes from resampling the records with both models' predictions "
            "kept together: the paired bootstrap (Koehn 2004; Berg-Kirkpatrick et al. 2012).",
        )
    base = recommendation(design.kind, partitions=partitions, binary=False, per_record=False)
    return Recommendation(
        base.names,
        f"{name} is not a mean of per-record values, so it is computed once per fold and the "
        "fold-level test of the design compares the per-fold values. " + base.reason,
        base.fallbacks,
    )
