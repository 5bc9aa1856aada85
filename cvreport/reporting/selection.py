"""Which tests the report can run on a design, and which ones it recommends.

A thin reader of :mod:`cvreport.methods.registry` (one
:class:`~cvreport.methods.spec.TestSpec` per test: the design kinds it applies
to, what the losses must look like, a caution when the literature advises
against relying on it) and of :mod:`cvreport.methods.recommendation`. The
report runs "all tests that fit" through :func:`specs_for` and holds their
specs; :func:`cvreport.reporting.analysis.run_test` calls them.

Examples
--------
>>> [spec.name for spec in specs_for("holdout", binary=True, per_record=True)]
['mcnemar', 'proportion_test']
>>> recommended_names("mx2", partitions="balanced", binary=True, per_record=True)
('calibrated_ftest_5x2cv', 'mcnemar_5x2bcv')
"""

from __future__ import annotations

from cvreport.methods import registry
from cvreport.methods.recommendation import Recommendation, recommendation, recommended_names
from cvreport.methods.registry import SPECS, specs_for
from cvreport.methods.spec import DESIGN_KINDS, TestSpec

__all__ = [
    "DESIGN_KINDS",
    "TEST_SPECS",
    "Recommendation",
    "TestSpec",
    "get_spec",
    "recommendation",
    "recommended_names",
    "specs_for",
]

#: The tests the report can run: every two-model test of the registry.
TEST_SPECS: tuple[TestSpec, ...] = tuple(spec for spec in SPECS if spec.in_report)


def get_spec(name: str) -> TestSpec:
    """The :class:`TestSpec` of a test the report can run.

    Raises
    ------
    CVReportError
        When no such test is known; the message lists the known names.
    """
    return registry.get_spec(name, in_report=True)
