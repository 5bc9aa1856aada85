"""Which tests the report runs on a design, and which one it recommends.

A thin reader of :mod:`cvreport.methods.registry` (one
:class:`~cvreport.methods.spec.TestSpec` per test: the design kinds it applies
to, what the losses must look like, a caution when the literature advises
against relying on it) and of :mod:`cvreport.methods.recommendation`. The
report runs "all tests that fit" through :func:`specs_for` and calls each
through :func:`resolve_test`.

Examples
--------
>>> [spec.name for spec in specs_for("holdout", binary=True, per_record=True)]
['mcnemar', 'proportion_test']
>>> recommended_names("mx2", partitions="balanced", binary=True, per_record=True)
('calibrated_ftest_5x2cv', 'mcnemar_5x2bcv')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    "resolve_test",
    "specs_for",
]

DESIGN_WORDS = {
    "holdout": "a single hold-out split",
    "repeated_holdout": "repeated hold-out splits",
    "kfold": "one run of K-fold cross-validation",
    "repeated_kfold": "repeated K-fold cross-validation",
    "mx2": "m×2 cross-validation",
}

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


def resolve_test(name: str) -> Callable[..., Any]:
    """The table-level test function ``name`` (its spec's ``function``).

    Raises
    ------
    CVReportError
        When no test of that name is known.
    """
    return get_spec(name).function
