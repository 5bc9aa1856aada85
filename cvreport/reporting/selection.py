"""Which tests fit which cross-validation design, and which one to recommend.

A small registry: every table-level test function of :mod:`cvreport.methods`
with the design kinds it applies to, what the losses must look like, and a
caution when the literature advises against relying on it. The report uses it
to run "all tests that fit" and to pick the recommended test with its reason:

- balanced or block-regularized 5×2 partitions: the calibrated 5×2cv F test
  (Wang, Li and Li 2017) and, for 0/1 losses, the 5×2 BCV McNemar test
  (Yang, Wang, Song and Li);
- random 5×2 partitions: Alpaydın's combined 5×2cv F test (Alpaydın 1999);
- K-fold and repeated K-fold: the corrected repeated K-fold t test
  (Bouckaert and Frank 2004; Nadeau and Bengio 2003);
- repeated hold-out: the corrected resampled t test (Nadeau and Bengio 2003);
- one hold-out split: McNemar's test (Dietterich 1998).

This module only looks up names; it imports no test until one is run.

Examples
--------
>>> [spec.name for spec in specs_for("holdout", binary=True, per_record=True)]
['mcnemar', 'proportion_test']
>>> recommended_names("mx2", partitions="balanced", binary=True, per_record=True)
('calibrated_ftest_5x2cv', 'mcnemar_5x2bcv')
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cvreport.errors import CVReportError, describe_keys

__all__ = [
    "DESIGN_KINDS",
    "TEST_SPECS",
    "TestSpec",
    "get_spec",
    "recommendation",
    "recommended_names",
    "resolve_test",
    "specs_for",
]

DESIGN_KINDS = ("holdout", "repeated_holdout", "kfold", "repeated_kfold", "mx2")

DESIGN_WORDS = {
    "holdout": "a single hold-out split",
    "repeated_holdout": "repeated hold-out splits",
    "kfold": "one run of K-fold cross-validation",
    "repeated_kfold": "repeated K-fold cross-validation",
    "mx2": "m×2 cross-validation",
}


@dataclass(frozen=True)
class TestSpec:
    """What the report needs to know about one test function.

    Attributes
    ----------
    name : str
        Name of the table-level function in :mod:`cvreport.methods`.
    label : str
        Short name shown in tables.
    designs : tuple of str
        Design kinds (``table.design.kind``) the test applies to.
    needs_binary : bool
        The test needs 0/1 losses.
    needs_per_record : bool
        The test needs per-record losses (not only per-fold scores).
    caution : str or None
        Why the literature advises against relying on the test; shown as a caveat.
    bayesian : bool
        The test reports posterior probabilities instead of a p-value.
    """

    __test__ = False  # not a pytest test class

    name: str
    label: str
    designs: tuple[str, ...]
    needs_binary: bool = False
    needs_per_record: bool = False
    caution: str | None = None
    bayesian: bool = False

    def fits(self, kind: str, *, binary: bool, per_record: bool) -> bool:
        """Whether the test applies to a design ``kind`` with such losses."""
        if kind not in self.designs:
            return False
        if self.needs_binary and not binary:
            return False
        return not (self.needs_per_record and not per_record)


TEST_SPECS: tuple[TestSpec, ...] = (
    TestSpec(
        "calibrated_ftest_5x2cv",
        "Calibrated 5×2cv F test",
        ("mx2",),
    ),
    TestSpec(
        "mcnemar_5x2bcv",
        "5×2 BCV McNemar test",
        ("mx2",),
        needs_binary=True,
        needs_per_record=True,
    ),
    TestSpec(
        "combined_ftest_5x2cv",
        "Combined 5×2cv F test",
        ("mx2",),
    ),
    TestSpec(
        "paired_ttest_5x2cv",
        "5×2cv paired t test",
        ("mx2",),
        caution=(
            "its numerator uses only the first fold of the first replication, so reordering "
            "the replications can change the decision (Alpaydın 1999)"
        ),
    ),
    TestSpec(
        "combined_ttest_5x2cv",
        "Combined 5×2cv t test",
        ("mx2",),
        caution=(
            "it rejects a true null hypothesis far more often than α in simulations "
            "(type I error 0.291 at α = 0.05, Yang et al., Table V)"
        ),
    ),
    TestSpec(
        "blocked_ttest_3x2cv",
        "Blocked 3×2cv t test",
        ("mx2",),
    ),
    TestSpec(
        "corrected_repeated_kfold_ttest",
        "Corrected repeated K-fold t test",
        ("kfold", "repeated_kfold", "mx2"),
    ),
    TestSpec(
        "paired_ttest_kfold",
        "K-fold paired t test",
        ("kfold",),
        caution=(
            "the folds share most of their training data, so the fold differences are "
            "correlated and the test rejects a true null hypothesis too often "
            "(Dietterich 1998; Nadeau and Bengio 2003)"
        ),
    ),
    TestSpec(
        "cv_confidence_interval",
        "CV confidence interval test",
        ("kfold",),
        needs_per_record=True,
    ),
    TestSpec(
        "mcnemar_kfold",
        "Naive K-fold McNemar test",
        ("kfold",),
        needs_binary=True,
        needs_per_record=True,
        caution=(
            "it adds up McNemar statistics of folds as if they were independent, which they "
            "are not; a labelled baseline only"
        ),
    ),
    TestSpec(
        "corrected_resampled_ttest",
        "Corrected resampled t test",
        ("repeated_holdout",),
    ),
    TestSpec(
        "paired_ttest_resampled",
        "Resampled paired t test",
        ("repeated_holdout",),
        caution=(
            "the repeated splits overlap, so it rejects a true null hypothesis much too often "
            "(Dietterich 1998); a labelled baseline only"
        ),
    ),
    TestSpec(
        "mcnemar",
        "McNemar test",
        ("holdout",),
        needs_binary=True,
        needs_per_record=True,
    ),
    TestSpec(
        "proportion_test",
        "Difference of proportions test",
        ("holdout",),
        needs_binary=True,
        caution=(
            "it treats the two error rates as independent although both models were scored "
            "on the same records (Dietterich 1998); not recommended"
        ),
    ),
    TestSpec(
        "bayesian_correlated_ttest",
        "Bayesian correlated t test",
        ("kfold", "repeated_kfold", "mx2", "repeated_holdout"),
        bayesian=True,
    ),
    # tests on the records of a table built from predictions (cvreport.reporting.metric_choice
    # recommends them); they need the predictions, which the design kind does not show
    TestSpec("delong_test", "DeLong's test of two AUCs", ()),
    TestSpec("paired_bootstrap_test", "Paired bootstrap test", ()),
    TestSpec("paired_permutation_test", "Paired permutation test", ()),
    TestSpec("clustered_paired_test", "Clustered paired test", ()),
)

_BY_NAME = {spec.name: spec for spec in TEST_SPECS}


def get_spec(name: str) -> TestSpec:
    """The :class:`TestSpec` of a test function name.

    Raises
    ------
    CVReportError
        When no test of that name is known; the message lists the known names.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise CVReportError(
            f"unknown test {name!r}; choose among {describe_keys(_BY_NAME, limit=20)}"
        ) from None


def specs_for(kind: str, *, binary: bool, per_record: bool) -> list[TestSpec]:
    """Every registered test that fits a design ``kind`` with such losses, in registry order."""
    return [spec for spec in TEST_SPECS if spec.fits(kind, binary=binary, per_record=per_record)]


def resolve_test(name: str) -> Callable[..., Any]:
    """Import the table-level test function ``name`` from :mod:`cvreport.methods`.

    Raises
    ------
    CVReportError
        When the function is not available in this installation.
    """
    get_spec(name)
    try:
        module = importlib.import_module("cvreport.methods")
        function: Callable[..., Any] = getattr(module, name)
        return function
    except (ImportError, AttributeError) as exc:
        raise CVReportError(
            f"the test {name!r} is not available in this installation of cvreport ({exc})"
        ) from exc


@dataclass(frozen=True)
class Recommendation:
    """The tests recommended for a design, in order of preference, with the reason.

    ``fallbacks`` are tried, in order, when a recommended test cannot run on the
    table (e.g. per-fold scores without training-set sizes).
    """

    names: tuple[str, ...]
    reason: str
    fallbacks: tuple[str, ...] = ()


def recommendation(
    kind: str,
    *,
    partitions: str | None = None,
    binary: bool,
    per_record: bool,
) -> Recommendation:
    """The recommended tests for a design and the reason, in plain words.

    Parameters
    ----------
    kind : str
        ``table.design.kind``.
    partitions : str or None
        For m×2 designs, the partition design the overlap audit recognised:
        ``"balanced"``, ``"block-regularized"`` or ``"random"`` (None when unknown).
    binary, per_record : bool
        Whether the losses are 0/1 and kept per record.
    """
    if kind == "mx2":
        if partitions in ("balanced", "block-regularized"):
            names = ["calibrated_ftest_5x2cv"]
            reason = (
                f"The partitions are {partitions}: every two training sets of different "
                "replications share the same number of records, which is what the calibrated "
                "5×2cv F test assumes when it corrects the degrees of freedom for the "
                "correlation between replications (Wang, Li and Li 2017)"
            )
            if binary and per_record:
                names.append("mcnemar_5x2bcv")
                reason += (
                    "; with 0/1 losses the 5×2 BCV McNemar test compresses the ten correlated "
                    "2×2 tables into one effective table and keeps a small type I error with "
                    "good power (Yang, Wang, Song and Li)"
                )
            return Recommendation(tuple(names), reason + ".")
        known = (
            "The partitions look random"
            if partitions == "random"
            else "The partition design could not be audited"
        )
        return Recommendation(
            ("combined_ftest_5x2cv",),
            f"{known}, so the calibration for balanced partitions does not apply; Alpaydın's "
            "combined 5×2cv F test uses all ten fold differences and, unlike the 5×2cv t test, "
            "does not depend on which fold comes first (Alpaydın 1999).",
        )
    if kind in ("kfold", "repeated_kfold"):
        return Recommendation(
            ("corrected_repeated_kfold_ttest",),
            "In K-fold cross-validation the training sets overlap, so the fold differences are "
            "correlated; the corrected t test widens the variance by the ratio of validation to "
            "training size to account for it (Nadeau and Bengio 2003; Bouckaert and Frank 2004).",
            fallbacks=("paired_ttest_kfold",) if kind == "kfold" else (),
        )
    if kind == "repeated_holdout":
        return Recommendation(
            ("corrected_resampled_ttest",),
            "Repeated hold-out splits overlap; the corrected resampled t test accounts for the "
            "overlap that makes the plain resampled t test reject far too often "
            "(Nadeau and Bengio 2003).",
        )
    if kind == "holdout":
        if binary and per_record:
            return Recommendation(
                ("mcnemar",),
                "With a single hold-out split and 0/1 losses, McNemar's test compares the "
                "records on which exactly one model errs; it has a type I error close to α "
                "(Dietterich 1998).",
            )
        return Recommendation(
            (),
            "A single hold-out split of non-0/1 losses fits none of cvreport's tests; record "
            "per-record 0/1 losses for McNemar's test, or repeat the split.",
        )
    raise CVReportError(
        f"unknown design kind {kind!r}; expected one of {describe_keys(DESIGN_KINDS)}"
    )


def recommended_names(
    kind: str, *, partitions: str | None = None, binary: bool, per_record: bool
) -> tuple[str, ...]:
    """Names of the recommended tests (see :func:`recommendation`)."""
    return recommendation(kind, partitions=partitions, binary=binary, per_record=per_record).names
