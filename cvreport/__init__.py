"""cvreport: decide whether one classifier is really better than another.

From cross-validation results already collected (per-record losses keyed by
replication, fold, model and record), cvreport validates the table once,
detects the design, runs every test the literature recommends and renders a
report.

Names are imported on first use so that ``import cvreport`` stays light and
front-end packages (ipywidgets) load only when asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # errors
    "CVReportError": "cvreport.errors",
    "FormulaError": "cvreport.errors",
    "DataError": "cvreport.errors",
    "DesignError": "cvreport.errors",
    "IntervalUndefinedError": "cvreport.errors",
    "DegenerateStatisticWarning": "cvreport.errors",
    "PartitionWarning": "cvreport.errors",
    # results
    "TestResult": "cvreport.results",
    "Summary": "cvreport.summary",
    # the table
    "ResultsTable": "cvreport.table",
    "Design": "cvreport.table",
    "load_example": "cvreport.examples",
}

__all__ = ["__version__", *_EXPORTS]


def _register(module: str, names: list[str]) -> None:
    for name in names:
        _EXPORTS.setdefault(name, module)
        if name not in __all__:
            __all__.append(name)


_register(
    "cvreport.methods",
    [
        # seed tests
        "paired_ttest_5x2cv",
        "combined_ftest_5x2cv",
        "calibrated_ftest_5x2cv",
        "blocked_ttest_3x2cv",
        "combined_ttest_5x2cv",
        "mcnemar",
        "mcnemar_kfold",
        "mcnemar_5x2bcv",
        "paired_ttest_kfold",
        "binomial_test",
        "normal_test",
        "ttest_error",
        # the rest of the family
        "paired_ttest_resampled",
        "corrected_resampled_ttest",
        "corrected_repeated_kfold_ttest",
        "proportion_test",
        "cv_confidence_interval",
        "bayesian_correlated_ttest",
    ],
)
_register("cvreport.overlap", ["overlap_quantile"])
_register("cvreport.audit", ["audit_overlap", "OverlapAudit"])
_register("cvreport.collect", ["collect"])
_register("cvreport.report", ["Report", "report"])
_register("cvreport.widgets", ["explore"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cvreport' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from cvreport.errors import (
        CVReportError,
        DataError,
        DegenerateStatisticWarning,
        DesignError,
        FormulaError,
        IntervalUndefinedError,
        PartitionWarning,
    )
    from cvreport.results import TestResult
    from cvreport.summary import Summary
