"""Every test cvreport knows, one :class:`~cvreport.methods.spec.TestSpec` each.

The specifications live beside their functions in the family modules; this
module lists them, in the order the report runs and shows them (the order of
the recommendation: m×2, K-fold, hold-out, Bayesian, then the one-model tests).
To add a test, write its kernel, its public function and its ``TestSpec`` in
one family module and add the spec to :data:`SPECS` (docs/adding-a-test.md).

Examples
--------
>>> get_spec("mcnemar").designs
('holdout',)
>>> [spec.name for spec in specs_for("holdout", binary=True, per_record=True)]
['mcnemar', 'proportion_test']
>>> get_spec("wilcoxon_kfold").function.__module__
'cvreport.methods.wilcoxon'
"""

from __future__ import annotations

from cvreport.data.design import DesignKind
from cvreport.errors import CVReportError, describe_keys
from cvreport.methods.bayesian import BAYESIAN_CORRELATED_T
from cvreport.methods.clustered import CLUSTERED
from cvreport.methods.corrected import CORRECTED_RESAMPLED_T, PAIRED_T_RESAMPLED
from cvreport.methods.corrected_kfold import CORRECTED_REPEATED_KFOLD_T
from cvreport.methods.cv_interval import CV_INTERVAL
from cvreport.methods.delong import DELONG
from cvreport.methods.kfold import PAIRED_T_KFOLD
from cvreport.methods.mcnemar import MCNEMAR, MCNEMAR_KFOLD
from cvreport.methods.mcnemar_bcv import MCNEMAR_5X2BCV
from cvreport.methods.mx2 import BLOCKED_T_3X2CV, COMBINED_T_5X2CV, PAIRED_T_5X2CV
from cvreport.methods.mx2_ftest import CALIBRATED_F_5X2CV, COMBINED_F_5X2CV
from cvreport.methods.one_algorithm import BINOMIAL, NORMAL, TTEST_ERROR
from cvreport.methods.proportion import PROPORTION
from cvreport.methods.resampling import PAIRED_BOOTSTRAP, PAIRED_PERMUTATION
from cvreport.methods.sign_test import SIGN_TEST
from cvreport.methods.spec import DESIGN_KINDS, TestSpec
from cvreport.methods.wilcoxon import WILCOXON_KFOLD

__all__ = ["DESIGN_KINDS", "SPECS", "TestSpec", "get_spec", "markdown_table", "specs_for"]

#: Every test, in the order the report runs them.
SPECS: tuple[TestSpec, ...] = (
    CALIBRATED_F_5X2CV,
    MCNEMAR_5X2BCV,
    COMBINED_F_5X2CV,
    PAIRED_T_5X2CV,
    COMBINED_T_5X2CV,
    BLOCKED_T_3X2CV,
    CORRECTED_REPEATED_KFOLD_T,
    PAIRED_T_KFOLD,
    WILCOXON_KFOLD,
    SIGN_TEST,
    CV_INTERVAL,
    MCNEMAR_KFOLD,
    CORRECTED_RESAMPLED_T,
    PAIRED_T_RESAMPLED,
    MCNEMAR,
    PROPORTION,
    BAYESIAN_CORRELATED_T,
    DELONG,
    PAIRED_BOOTSTRAP,
    PAIRED_PERMUTATION,
    CLUSTERED,
    BINOMIAL,
    NORMAL,
    TTEST_ERROR,
)

_BY_NAME = {spec.name: spec for spec in SPECS}


_IN_REPORT = {spec.name: spec for spec in SPECS if spec.in_report}


def get_spec(name: str, *, in_report: bool = False) -> TestSpec:
    """The :class:`TestSpec` of a test function name (only the report's tests with ``in_report``).

    Raises
    ------
    CVReportError
        When no test of that name is known; the message lists the known names.
    """
    known = _IN_REPORT if in_report else _BY_NAME
    try:
        return known[name]
    except KeyError:
        raise CVReportError(
            f"unknown test {name!r}; choose among {describe_keys(known, limit=20)}"
        ) from None


def specs_for(kind: DesignKind | str, *, binary: bool, per_record: bool) -> list[TestSpec]:
    """Every test the report runs on a design ``kind`` with such losses, in registry order."""
    return [
        spec
        for spec in SPECS
        if spec.in_report and spec.fits(kind, binary=binary, per_record=per_record)
    ]


def markdown_table() -> str:
    """The table of tests at the top of docs/methods.md, written from :data:`SPECS`.

    >>> row = markdown_table().splitlines()[3]
    >>> row.split(" | ")[:2], row.split(" | ")[-1]
    (['| `mcnemar_5x2bcv`', 'm×2'], '0/1 losses, records |')
    """
    lines = [
        "| function | design | statistic | reference distribution | needs |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in SPECS:
        if spec.models == 1:
            design = "any (one model)"
        elif not spec.designs:
            design = "records of one table (chosen by metric)"
        else:
            design = ", ".join(kind.short for kind in spec.designs)
        needs = [
            word
            for word, flag in (
                ("0/1 losses", spec.needs_binary),
                ("records", spec.needs_per_record),
            )
            if flag
        ]
        lines.append(
            f"| `{spec.name}` | {design} | {spec.statistic} | {spec.distribution} | "
            f"{', '.join(needs)} |"
        )
    return "\n".join(lines) + "\n"
