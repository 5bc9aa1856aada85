"""Which kernel computes each test on simulated fold statistics, and on which designs.

Every test of the simulator is the vectorised kernel of the real test
(``cvreport.methods.<module>.<test>_kernel``) — the same code that the
array-level and table-level functions run on real data — applied to the
``(reps, ...)`` arrays of a batch of simulated data sets. This module only says
which slice of the :class:`~cvreport.simulate.aggregate.FoldStatistics` each
kernel takes; it computes no statistic.

Examples
--------
>>> runner = get_runner("mcnemar_5x2bcv")
>>> runner.needs_binary, runner.kernel
(True, 'mcnemar_5x2bcv_kernel')
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cvreport.errors import CVReportError, DesignError, describe_keys
from cvreport.simulate.aggregate import FoldStatistics
from cvreport.simulate.designs import SimulationDesign

__all__ = ["RUNNERS", "TABLE_V_TESTS", "TestRunner", "get_runner"]


def _kfold_differences(stats: FoldStatistics) -> tuple[Any, ...]:
    return (stats.differences[:, 0, :],)


def _mx2_differences(stats: FoldStatistics) -> tuple[Any, ...]:
    return (stats.differences,)


def _holdout_discordant(stats: FoldStatistics) -> tuple[Any, ...]:
    tables = _tables(stats)
    return (tables[:, 0, 0, 1], tables[:, 0, 0, 2])


def _kfold_discordant(stats: FoldStatistics) -> tuple[Any, ...]:
    tables = _tables(stats)
    return (tables[:, 0, :, 1], tables[:, 0, :, 2])


def _mx2_tables(stats: FoldStatistics) -> tuple[Any, ...]:
    return (_tables(stats),)


def _tables(stats: FoldStatistics) -> np.ndarray:
    if stats.tables is None:  # pragma: no cover - guarded by needs_binary
        raise CVReportError("this test needs 0/1 losses")
    return stats.tables


@dataclass(frozen=True)
class TestRunner:
    """How the simulator runs one test.

    Attributes
    ----------
    name : str
        The cvreport function name (``cvreport.<name>``).
    module : str
        Module of :mod:`cvreport.methods` holding the kernel.
    kernel : str
        Name of the vectorised kernel.
    kinds : tuple of str
        Design kinds the test accepts (``"kfold"``, ``"mx2"``, ``"holdout"``).
    needs_binary : bool
        Whether the test needs 0/1 losses (McNemar family).
    arguments : callable
        Positional kernel arguments from a batch's :class:`FoldStatistics`.
    """

    __test__ = False  # not a pytest test class

    name: str
    module: str
    kernel: str
    kinds: tuple[str, ...]
    needs_binary: bool
    arguments: Callable[[FoldStatistics], tuple[Any, ...]]

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
        """The kernel itself (imported on first use)."""
        try:
            module = importlib.import_module(f"cvreport.methods.{self.module}")
            return getattr(module, self.kernel)
        except (ImportError, AttributeError) as exc:
            raise CVReportError(
                f"the kernel {self.kernel} of {self.name} is not available in this "
                f"installation of cvreport ({exc})"
            ) from exc

    def pvalues(
        self, stats: FoldStatistics, options: Mapping[str, Any] | None = None
    ) -> np.ndarray:
        """The ``(reps,)`` p-values of the test on every simulated data set of the batch."""
        result = self.function()(*self.arguments(stats), **dict(options or {}))
        return np.asarray(result.pvalue, dtype=np.float64)


_KIND_WORDS = {
    "kfold": "K-fold cross-validation",
    "mx2": "an m×2 design",
    "holdout": "a hold-out split",
}

RUNNERS: dict[str, TestRunner] = {
    runner.name: runner
    for runner in (
        TestRunner(
            "paired_ttest_kfold",
            "kfold",
            "paired_ttest_kfold_kernel",
            ("kfold",),
            False,
            _kfold_differences,
        ),
        TestRunner(
            "paired_ttest_5x2cv",
            "mx2",
            "paired_ttest_5x2cv_kernel",
            ("mx2",),
            False,
            _mx2_differences,
        ),
        TestRunner(
            "combined_ftest_5x2cv",
            "mx2",
            "combined_ftest_5x2cv_kernel",
            ("mx2",),
            False,
            _mx2_differences,
        ),
        TestRunner(
            "calibrated_ftest_5x2cv",
            "mx2",
            "calibrated_ftest_5x2cv_kernel",
            ("mx2",),
            False,
            _mx2_differences,
        ),
        TestRunner(
            "mcnemar",
            "mcnemar",
            "mcnemar_kernel",
            ("holdout",),
            True,
            _holdout_discordant,
        ),
        TestRunner(
            "mcnemar_kfold",
            "mcnemar",
            "mcnemar_kfold_kernel",
            ("kfold",),
            True,
            _kfold_discordant,
        ),
        TestRunner(
            "mcnemar_5x2bcv",
            "mcnemar",
            "mcnemar_5x2bcv_kernel",
            ("mx2",),
            True,
            _mx2_tables,
        ),
        TestRunner(
            "combined_ttest_5x2cv",
            "mx2",
            "combined_ttest_5x2cv_kernel",
            ("mx2",),
            False,
            _mx2_differences,
        ),
        TestRunner(
            "blocked_ttest_3x2cv",
            "mx2",
            "blocked_ttest_3x2cv_kernel",
            ("mx2",),
            False,
            _mx2_differences,
        ),
    )
}

#: The tests in the order of Yang et al. Table V.
TABLE_V_TESTS: tuple[str, ...] = (
    "paired_ttest_kfold",
    "paired_ttest_5x2cv",
    "combined_ttest_5x2cv",
    "blocked_ttest_3x2cv",
    "combined_ftest_5x2cv",
    "calibrated_ftest_5x2cv",
    "mcnemar",
    "mcnemar_kfold",
    "mcnemar_5x2bcv",
)


def get_runner(name: str) -> TestRunner:
    """The :class:`TestRunner` of a cvreport test function name."""
    try:
        return RUNNERS[name]
    except KeyError:
        raise CVReportError(
            f"the simulator cannot run {name!r}; it runs {describe_keys(RUNNERS, limit=20)}"
        ) from None
