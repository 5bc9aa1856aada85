"""cvreport: decide whether one classifier is really better than another.

From cross-validation results already collected (per-record losses keyed by
replication, fold, model and record), cvreport validates the table once,
detects the design, runs every test the literature recommends and renders a
report.

Examples
--------
>>> import cvreport
>>> table = cvreport.ResultsTable.from_formula(
...     "loss ~ model | replication + fold", cvreport.load_example())
>>> table.design.kind
'mx2'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cvreport import arrays, options
from cvreport._version import __version__
from cvreport.data.clusters import ClusterLeakageWarning, audit_clusters
from cvreport.data.datasets import DatasetsTable
from cvreport.data.examples import load_example
from cvreport.data.metrics import metric_names
from cvreport.data.table import Design, ResultsTable
from cvreport.errors import (
    ArgumentError,
    AssumedDirectionWarning,
    CVReportError,
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    FormulaError,
    IntervalUndefinedError,
    PartitionWarning,
    RepeatedPartitionWarning,
    ReversedScoreWarning,
    UnusedOptionsWarning,
)
from cvreport.methods import delong_tests_per_fold
from cvreport.methods.bootstrap_margin import paired_bootstrap_equivalence_test
from cvreport.methods.registry import SPECS as _SPECS
from cvreport.multi import compare_datasets
from cvreport.partitions import splits
from cvreport.partitions.audit import OverlapAudit, audit_overlap
from cvreport.partitions.collect import collect
from cvreport.partitions.overlap import overlap_quantile
from cvreport.partitions.splits import Balanced5x2CV, BlockRegularizedCV, RandomMx2CV
from cvreport.planning import plan
from cvreport.rendering.summary import Summary
from cvreport.reporting.power_curve import power_curve
from cvreport.results import TestResult

if TYPE_CHECKING:
    from cvreport import simulate
    from cvreport.jupyter import notebook
    from cvreport.jupyter.widgets import explore
    from cvreport.reporting.multi_report import DatasetsReport
    from cvreport.reporting.report import Report, ReportExistsError, report


# every test of the registry is cvreport.NAME (its table-level function)
globals().update({_spec.name: _spec.function for _spec in _SPECS})

__all__ = [
    "ArgumentError",
    "AssumedDirectionWarning",
    "Balanced5x2CV",
    "BlockRegularizedCV",
    "CVReportError",
    "ClusterLeakageWarning",
    "DataError",
    "DatasetsReport",
    "DatasetsTable",
    "DegenerateStatisticWarning",
    "Design",
    "DesignError",
    "FormulaError",
    "IntervalUndefinedError",
    "OverlapAudit",
    "PartitionWarning",
    "RandomMx2CV",
    "RepeatedPartitionWarning",
    "Report",
    "ReportExistsError",
    "ResultsTable",
    "ReversedScoreWarning",
    "Summary",
    "TestResult",
    "UnusedOptionsWarning",
    "__version__",
    "arrays",
    "audit_clusters",
    "audit_overlap",
    "collect",
    "compare_datasets",
    "delong_tests_per_fold",
    "explore",
    "load_example",
    "metric_names",
    "notebook",
    "options",
    "overlap_quantile",
    "paired_bootstrap_equivalence_test",
    "plan",
    "power_curve",
    "report",
    "simulate",
    "splits",
]
__all__ += [_spec.name for _spec in _SPECS]


#: What :func:`__getattr__` loads on first use: name -> (module, attribute; None: the module).
_LAZY: dict[str, tuple[str, str | None]] = {
    "Report": ("cvreport.reporting.report", "Report"),
    "ReportExistsError": ("cvreport.reporting.report", "ReportExistsError"),
    "report": ("cvreport.reporting.report", "report"),
    "DatasetsReport": ("cvreport.reporting.multi_report", "DatasetsReport"),
    "notebook": ("cvreport.jupyter.notebook", None),
    "explore": ("cvreport.jupyter.widgets", "explore"),
    "simulate": ("cvreport.simulate", None),
}


def __getattr__(name: str) -> Any:
    """Load the reports, notebook, explorer and simulator on first use (PEP 562).

    They pull in Jinja2, ipywidgets, nbformat and the simulation engine, which a
    script that only runs tests does not need.
    """
    if name not in _LAZY:
        raise AttributeError(f"module 'cvreport' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    # the heavy optional parts load here, once (``from cvreport import x`` would recurse)
    module = importlib.import_module(module_name)
    value: Any = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # the public names and the lazy ones, not the helpers this file imports for itself
    dunders = {name for name in globals() if name.startswith("__")}
    return sorted(dunders | set(__all__) | set(_LAZY))
