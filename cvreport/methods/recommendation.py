"""Which tests to recommend for a design and a metric, and why: one recommender.

:func:`recommendation` takes the design kind, what the audit found of the
partitions, the losses (0/1 or real, per record or per fold) and the metric
(a mean of per-record values or not, clustered records) and returns
:class:`~cvreport.methods.spec.TestSpec` objects, never names. The advice
follows the literature:

- balanced or block-regularized 5×2 partitions: the calibrated 5×2cv F test
  (Wang, Li and Li 2017) decides; for 0/1 losses the 5×2 BCV McNemar test
  (Yang, Wang, Song and Li 2023) is run beside it as a secondary check, which
  does not decide (one deciding test keeps the chance of a false difference at α);
- random 5×2 partitions: Alpaydın's combined 5×2cv F test (Alpaydın 1999);
- K-fold and repeated K-fold: the corrected repeated K-fold t test
  (Bouckaert and Frank 2004; Nadeau and Bengio 2003);
- repeated hold-out: the corrected resampled t test (Nadeau and Bengio 2003);
- one hold-out split: McNemar's test for 0/1 losses (Dietterich 1998); the
  paired bootstrap for a per-record loss that is not 0/1 (log loss, Brier
  score), when the table keeps each record's prediction or score.

The metric changes the advice:

* a metric that is a **mean of per-record values** (0/1 error, accuracy, log
  loss, Brier score) keeps the design's usual tests: they are built on exactly
  such means; on one test set, where McNemar's test needs 0/1 losses, a loss
  that is not 0/1 is compared by the paired bootstrap over the records
  (Koehn 2004; Berg-Kirkpatrick et al. 2012), with the paired permutation test
  as its fallback;
* a metric that is **not** (AUC, F1, MCC, balanced accuracy, ...) has no
  per-record value to average. Within cross-validation it is computed once per
  fold, and the fold-level test of the design decides (the corrected t tests
  account for the training-set overlap). On **one test set** there is a single
  value per model, so the comparison rests on the records: DeLong's test for
  the AUC, whose variance is known in closed form (DeLong et al. 1988), and the
  paired bootstrap for any other metric (Koehn 2004; Berg-Kirkpatrick et al. 2012);
* **clustered records** on one test set are not independent: the
  cluster-robust standard error of the paired difference for a record mean
  (Miller 2024), the bootstrap over whole clusters otherwise.

tests/methods/test_contract.py checks that each recommended test fits the
design it is recommended for.

Examples
--------
>>> advice = recommendation("mx2", partitions="balanced", binary=True, per_record=True)
>>> [spec.name for spec in advice.tests], advice.secondaries
(['calibrated_ftest_5x2cv'], ('mcnemar_5x2bcv',))
>>> recommendation("holdout", binary=False, per_record=False, metric="roc_auc",
...                decomposable=False).names
('delong_test',)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cvreport.data.design import DesignKind
from cvreport.data.metrics import reader_name
from cvreport.errors import CVReportError, describe_keys
from cvreport.methods.clustered import CLUSTERED
from cvreport.methods.corrected import CORRECTED_RESAMPLED_T
from cvreport.methods.corrected_kfold import CORRECTED_REPEATED_KFOLD_T
from cvreport.methods.delong import DELONG
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.kfold import PAIRED_T_KFOLD
from cvreport.methods.mcnemar import MCNEMAR
from cvreport.methods.mcnemar_bcv import MCNEMAR_5X2BCV
from cvreport.methods.mx2_ftest import CALIBRATED_F_5X2CV, COMBINED_F_5X2CV
from cvreport.methods.resampling import PAIRED_BOOTSTRAP, PAIRED_PERMUTATION
from cvreport.methods.spec import DESIGN_KINDS, TestSpec

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "Recommendation",
    "recommendation",
    "recommendation_for",
    "recommended_names",
    "record_tests_for",
]


@dataclass(frozen=True)
class Recommendation:
    """The tests recommended for a design, in order of preference, with the reason.

    Attributes
    ----------
    tests : tuple of TestSpec
        The recommended tests.
    reason : str
        Why, in plain words with the papers.
    fallback_tests : tuple of TestSpec
        Tried, in order, when a recommended test cannot run on the table (e.g.
        per-fold scores without training-set sizes).
    secondary_tests : tuple of TestSpec
        Run beside the recommended tests as a check that also fits the design, but
        never deciding: deciding with whichever of two tests finds a difference would
        raise the chance of a false difference above α.
    """

    tests: tuple[TestSpec, ...]
    reason: str
    fallback_tests: tuple[TestSpec, ...] = ()
    secondary_tests: tuple[TestSpec, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The recommended tests' function names (for display)."""
        return tuple(spec.name for spec in self.tests)

    @property
    def fallbacks(self) -> tuple[str, ...]:
        """The fallbacks' function names (for display)."""
        return tuple(spec.name for spec in self.fallback_tests)

    @property
    def secondaries(self) -> tuple[str, ...]:
        """The secondary checks' function names (for display)."""
        return tuple(spec.name for spec in self.secondary_tests)


def recommendation(
    kind: DesignKind | str,
    *,
    partitions: str | None = None,
    binary: bool,
    per_record: bool,
    metric: str | None = None,
    decomposable: bool = True,
    clustered: bool = False,
) -> Recommendation:
    """The recommended tests for a design and a metric, and the reason, in plain words.

    Parameters
    ----------
    kind : DesignKind or str
        ``table.design.kind`` (a :class:`~cvreport.data.design.DesignKind`; its plain
        name, ``"kfold"``, is the same value).
    partitions : str or None
        For m×2 designs, the partition design the overlap audit recognised:
        ``"balanced"``, ``"block-regularized"`` or ``"random"`` (None when unknown).
    binary, per_record : bool
        Whether the losses are 0/1 and kept per record.
    metric : str or None
        The metric's name when the table was built from predictions with a metric
        or has clustered records (the reason then names it); None for a table of
        losses.
    decomposable : bool
        Whether the metric is a mean of per-record values (0/1 error, log loss) or
        not (AUC, F1).
    clustered : bool
        Whether the records come in clusters.

    Returns
    -------
    Recommendation

    Raises
    ------
    CVReportError
        For an unknown design kind.

    Examples
    --------
    >>> advice = recommendation("kfold", binary=False, per_record=False, metric="f1",
    ...                         decomposable=False)
    >>> advice.names, advice.fallbacks
    (('corrected_repeated_kfold_ttest',), ('paired_ttest_kfold',))
    >>> advice.reason.split(". ")[0]
    'F1 is not a mean of per-record values, so it is computed once per fold and the fold-level test of the design compares the per-fold values'
    """
    if kind not in DESIGN_KINDS:
        raise CVReportError(
            f"unknown design kind {kind!r}; expected one of {describe_keys(DESIGN_KINDS)}"
        )
    kind = DesignKind(kind)
    if metric is None and not clustered:
        return _design_recommendation(kind, partitions, binary=binary, per_record=per_record)
    one_test_set = kind is DesignKind.HOLDOUT
    # A sentence names the metric as a reader would ("AUC", "log loss"), not as code.
    named = "the loss" if metric is None else reader_name(str(metric))
    subject = named[:1].upper() + named[1:]
    if one_test_set and clustered:
        if decomposable:
            return Recommendation(
                (CLUSTERED,),
                f"The records come in clusters, so they are not independent: the paired "
                f"difference in {named} gets a cluster-robust standard error, which the naive "
                "one understates when records of a cluster succeed or fail together "
                "(Miller 2024).",
                (PAIRED_BOOTSTRAP,),
            )
        return Recommendation(
            (PAIRED_BOOTSTRAP,),
            f"{subject} is not a mean of per-record values and the records come in clusters: "
            "the paired bootstrap resamples whole clusters, which keeps their dependence "
            "(Miller 2024; Koehn 2004).",
        )
    if decomposable:
        if one_test_set and per_record and not binary:
            return Recommendation(
                (PAIRED_BOOTSTRAP,),
                f"{subject} is a mean of per-record values that are not 0/1, so on one test "
                "set McNemar's test (which counts the records only one model gets wrong) does "
                "not apply; the paired bootstrap resamples the records with both models' "
                "values kept together and gives an interval of the difference (Koehn 2004; "
                "Berg-Kirkpatrick et al. 2012).",
                (PAIRED_PERMUTATION,),
            )
        base = _design_recommendation(kind, partitions, binary=binary, per_record=per_record)
        return Recommendation(
            base.tests,
            f"{subject} is a mean of per-record values, so the design's usual tests apply. "
            + base.reason,
            base.fallback_tests,
            base.secondary_tests,
        )
    if one_test_set:
        if metric == "roc_auc":
            return Recommendation(
                (DELONG,),
                "On one test set the AUCs of two models scored on the same records are "
                "correlated; DeLong's test estimates that covariance in closed form from the "
                "placement of each positive among the negatives (DeLong, DeLong & "
                "Clarke-Pearson 1988).",
                (PAIRED_BOOTSTRAP,),
            )
        return Recommendation(
            (PAIRED_BOOTSTRAP,),
            f"{subject} is not a mean of per-record values, so on one test set its sampling "
            "variability comes from resampling the records with both models' predictions "
            "kept together: the paired bootstrap (Koehn 2004; Berg-Kirkpatrick et al. 2012).",
        )
    base = _design_recommendation(kind, partitions, binary=False, per_record=False)
    return Recommendation(
        base.tests,
        f"{subject} is not a mean of per-record values, so it is computed once per fold and the "
        "fold-level test of the design compares the per-fold values. " + base.reason,
        base.fallback_tests,
        base.secondary_tests,
    )


@fill_doc
def recommendation_for(table: ResultsTable, *, partitions: str | None = None) -> Recommendation:
    """:func:`recommendation` for a results table: its design, losses, metric and clusters.

    {examples_auc_scores}
    >>> recommendation_for(t).names
    ('delong_test',)
    """
    kept = getattr(table, "_record_predictions", None)
    clustered = getattr(table, "_record_clusters", None) is not None
    metric = None
    if kept is not None:
        metric = kept.spec.name
    elif clustered:
        metric = str(table.loss_name)
    return recommendation(
        table.design.kind,
        partitions=partitions,
        binary=bool(table.is_binary),
        per_record=bool(table.per_record),
        metric=metric,
        decomposable=kept is None or bool(kept.spec.decomposable),
        clustered=clustered,
    )


@fill_doc
def record_tests_for(table: ResultsTable) -> tuple[TestSpec, ...]:
    """The tests on the records of one table that run on ``table`` and test its metric.

    The design does not pick these tests (:func:`~cvreport.methods.registry.specs_for`
    lists none of them), the table does: the paired bootstrap and permutation tests
    run on any table that keeps each record's truth and prediction or score (within
    the folds of a cross-validation design); DeLong's test on one test set of scores
    when the metric is the AUC; the clustered paired test on one test set of
    per-record values in clusters. ``Report(tests="all")`` runs them beside the
    design's tests, so that "all" holds every test that runs on the table.

    {examples_auc_scores}
    >>> [spec.name for spec in record_tests_for(t)]
    ['delong_test', 'paired_bootstrap_test', 'paired_permutation_test']
    """
    found: list[TestSpec] = []
    kept = getattr(table, "_record_predictions", None)
    design = table.design
    one_test_set = design.kind is DesignKind.HOLDOUT
    if (
        kept is not None
        and one_test_set
        and kept.spec.name == "roc_auc"
        and kept.score_columns
        and len(kept.classes) == 2
    ):
        found.append(DELONG)
    if kept is not None:
        found.extend((PAIRED_BOOTSTRAP, PAIRED_PERMUTATION))
    clustered = getattr(table, "_record_clusters", None) is not None
    if clustered and one_test_set and bool(table.per_record):
        found.append(CLUSTERED)
    return tuple(found)


def recommended_names(
    kind: DesignKind | str, *, partitions: str | None = None, binary: bool, per_record: bool
) -> tuple[str, ...]:
    """Names of the recommended tests (see :func:`recommendation`).

    >>> recommended_names("mx2", partitions="balanced", binary=True, per_record=True)
    ('calibrated_ftest_5x2cv',)
    """
    return recommendation(kind, partitions=partitions, binary=binary, per_record=per_record).names


def _design_recommendation(
    kind: DesignKind, partitions: str | None, *, binary: bool, per_record: bool
) -> Recommendation:
    """The design's usual tests for a mean of per-record losses (or per-fold scores)."""
    if kind is DesignKind.MX2:
        if partitions in ("balanced", "block-regularized"):
            reason = (
                f"The partitions are {partitions}: every two training sets of different "
                "replications share the same number of records, which is what the calibrated "
                "5×2cv F test assumes when it corrects the degrees of freedom for the "
                "correlation between replications (Wang, Li and Li 2017)"
            )
            secondary: tuple[TestSpec, ...] = ()
            if binary and per_record:
                secondary = (MCNEMAR_5X2BCV,)
                reason += (
                    ". With 0/1 losses the 5×2 BCV McNemar test, which compresses the ten "
                    "correlated 2×2 tables into one effective table (Yang, Wang, Song and Li "
                    "2023), is shown beside it as a secondary check; the F test alone decides, "
                    "since deciding with whichever of two tests finds a difference would raise "
                    "the chance of a false difference above α"
                )
            return Recommendation((CALIBRATED_F_5X2CV,), reason + ".", (), secondary)
        known = (
            "The partitions look random"
            if partitions == "random"
            else "The partition design could not be audited"
        )
        return Recommendation(
            (COMBINED_F_5X2CV,),
            f"{known}, so the calibration for balanced partitions does not apply; Alpaydın's "
            "combined 5×2cv F test uses all ten fold differences and, unlike the 5×2cv t test, "
            "does not depend on which fold comes first (Alpaydın 1999).",
        )
    if kind in (DesignKind.KFOLD, DesignKind.REPEATED_KFOLD):
        return Recommendation(
            (CORRECTED_REPEATED_KFOLD_T,),
            "In K-fold cross-validation the training sets overlap, so the fold differences are "
            "correlated; the corrected t test widens the variance by the ratio of validation to "
            "training size to account for it (Nadeau and Bengio 2003; Bouckaert and Frank 2004).",
            (PAIRED_T_KFOLD,) if kind is DesignKind.KFOLD else (),
        )
    if kind is DesignKind.REPEATED_HOLDOUT:
        return Recommendation(
            (CORRECTED_RESAMPLED_T,),
            "Repeated hold-out splits overlap; the corrected resampled t test accounts for the "
            "overlap that makes the plain resampled t test reject far too often "
            "(Nadeau and Bengio 2003).",
        )
    if binary and per_record:
        return Recommendation(
            (MCNEMAR,),
            "With a single hold-out split and 0/1 losses, McNemar's test compares the "
            "records on which exactly one model errs; it has a type I error close to α "
            "(Dietterich 1998).",
        )
    if not per_record:
        return Recommendation(
            (),
            "A single hold-out split with one value per model leaves no variability to test "
            "with: keep the per-record values (losses, or each record's prediction or score), "
            "or repeat the split.",
        )
    return Recommendation(
        (),
        "A single hold-out split of per-record losses that are not 0/1, given as losses, "
        "fits none of cvreport's tests: McNemar's test needs 0/1 losses, and the paired "
        "bootstrap and permutation tests need each record's truth and prediction or score "
        "(build the table with ResultsTable.from_predictions(..., metric=...)); or repeat "
        "the split.",
    )
