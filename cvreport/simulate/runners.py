"""Which tests the simulator runs, read from the test registry.

Every test of the simulator is the vectorised kernel of the real test — the
same code that the array-level and table-level functions run on real data —
applied to the ``(reps, ...)`` arrays of a batch of simulated data sets. Every
registered comparison of two models runs when its
:class:`~cvreport.methods.spec.TestSpec` has a kernel and ``inputs``, the
function that reads the :class:`~cvreport.data.sufficient.FoldStatistics`
(differences, 2×2 tables, validation and training sizes) for the kernel (the
same function serves one real table). This module computes no statistic and
names no test but the default selection, Yang et al.'s Table V.

Examples
--------
>>> runner = get_runner("mcnemar_5x2bcv")
>>> runner.needs_binary, runner.kernel.__name__
(True, 'mcnemar_5x2bcv_kernel')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cvreport.data.sufficient import FoldStatistics
from cvreport.errors import CVReportError, DesignError, describe_keys
from cvreport.methods.kfold import PAIRED_T_KFOLD
from cvreport.methods.mcnemar import MCNEMAR, MCNEMAR_KFOLD
from cvreport.methods.mcnemar_bcv import MCNEMAR_5X2BCV
from cvreport.methods.mx2 import BLOCKED_T_3X2CV, COMBINED_T_5X2CV, PAIRED_T_5X2CV
from cvreport.methods.mx2_ftest import CALIBRATED_F_5X2CV, COMBINED_F_5X2CV
from cvreport.methods.registry import SPECS
from cvreport.methods.spec import TestSpec
from cvreport.simulate.designs import SimulationDesign

__all__ = ["RUNNERS", "TABLE_V_SPECS", "TABLE_V_TESTS", "TestRunner", "get_runner"]

#: The design kinds the simulator draws.
SIMULATED_KINDS = ("kfold", "repeated_kfold", "mx2", "holdout", "repeated_holdout")


@dataclass(frozen=True)
class TestRunner:
    """How the simulator runs one test: its spec, restricted to the simulated designs.

    Attributes
    ----------
    spec : TestSpec
        The test's specification.
    """

    __test__ = False  # not a pytest test class

    spec: TestSpec

    @property
    def name(self) -> str:
        """The cvreport function name (``cvreport.<name>``)."""
        return self.spec.name

    @property
    def kernel(self) -> Callable[..., Any]:
        """The vectorised kernel."""
        assert self.spec.kernel is not None
        return self.spec.kernel

    @property
    def kinds(self) -> tuple[str, ...]:
        """Simulated design kinds the test accepts."""
        return tuple(kind for kind in self.spec.designs if kind in SIMULATED_KINDS)

    @property
    def needs_binary(self) -> bool:
        """Whether the simulator needs 0/1 losses to run the test.

        The McNemar family needs them anyway; a test of per-record losses runs on
        per-fold statistics only when the 2×2 tables hold every record's difference.
        """
        return self.spec.needs_binary or self.spec.needs_per_record

    def arguments(self, stats: FoldStatistics) -> tuple[Any, ...]:
        """Positional kernel arguments from a batch's :class:`FoldStatistics`."""
        assert self.spec.inputs is not None
        return self.spec.inputs(stats)

    def accepts(self, design: SimulationDesign) -> bool:
        """Whether the test applies to ``design``."""
        return design.kind in self.kinds

    def check(self, design: SimulationDesign) -> None:
        """Raise :class:`DesignError` unless the test applies to ``design``."""
        if not self.accepts(design):
            raise DesignError(
                f"{self.name} does not apply to the {design.name} design; it needs "
                f"{' or '.join(_KIND_WORDS[k] for k in self.kinds)}"
            )

    def function(self) -> Callable[..., Any]:
        """The kernel itself."""
        return self.kernel

    def pvalues(
        self, stats: FoldStatistics, options: Mapping[str, Any] | None = None
    ) -> np.ndarray:
        """The ``(reps,)`` p-values of the test on every simulated data set of the batch."""
        result = self.kernel(*self.arguments(stats), **dict(options or {}))
        return np.asarray(result.pvalue, dtype=np.float64)


_KIND_WORDS = {
    "kfold": "K-fold cross-validation",
    "repeated_kfold": "repeated K-fold cross-validation",
    "mx2": "an m×2 design",
    "holdout": "a hold-out split",
    "repeated_holdout": "repeated hold-out splits",
}

#: Every registered comparison of two models that runs on per-fold statistics.
RUNNERS: dict[str, TestRunner] = {
    spec.name: TestRunner(spec)
    for spec in SPECS
    if spec.simulated and spec.models == 2 and any(kind in SIMULATED_KINDS for kind in spec.designs)
}

#: The tests of Yang et al. Table V, in its order.
TABLE_V_SPECS: tuple[TestSpec, ...] = (
    PAIRED_T_KFOLD,
    PAIRED_T_5X2CV,
    COMBINED_T_5X2CV,
    BLOCKED_T_3X2CV,
    COMBINED_F_5X2CV,
    CALIBRATED_F_5X2CV,
    MCNEMAR,
    MCNEMAR_KFOLD,
    MCNEMAR_5X2BCV,
)
#: Their names, what ``tests=`` takes.
TABLE_V_TESTS: tuple[str, ...] = tuple(spec.name for spec in TABLE_V_SPECS)


def get_runner(name: str | TestSpec) -> TestRunner:
    """The :class:`TestRunner` of a test (its spec or its function name)."""
    if isinstance(name, TestSpec):
        name = name.name
    try:
        return RUNNERS[name]
    except KeyError:
        raise CVReportError(
            f"the simulator cannot run {name!r}; it runs {describe_keys(RUNNERS, limit=20)}"
        ) from None
