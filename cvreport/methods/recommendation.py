"""Which tests to recommend for a cross-validation design, and why.

The recommendation follows the literature:

- balanced or block-regularized 5×2 partitions: the calibrated 5×2cv F test
  (Wang, Li and Li 2017) and, for 0/1 losses, the 5×2 BCV McNemar test
  (Yang, Wang, Song and Li);
- random 5×2 partitions: Alpaydın's combined 5×2cv F test (Alpaydın 1999);
- K-fold and repeated K-fold: the corrected repeated K-fold t test
  (Bouckaert and Frank 2004; Nadeau and Bengio 2003);
- repeated hold-out: the corrected resampled t test (Nadeau and Bengio 2003);
- one hold-out split: McNemar's test (Dietterich 1998).

Every name it returns is a test of :mod:`cvreport.methods.registry`
(tests/methods/test_contract.py checks that each fits the design it is
recommended for).

Examples
--------
>>> recommended_names("mx2", partitions="balanced", binary=True, per_record=True)
('calibrated_ftest_5x2cv', 'mcnemar_5x2bcv')
"""

from __future__ import annotations

from dataclasses import dataclass

from cvreport.errors import CVReportError, describe_keys
from cvreport.methods.spec import DESIGN_KINDS

__all__ = ["Recommendation", "recommendation", "recommended_names"]


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
