"""What cvreport knows about one test, written once: the :class:`TestSpec`.

A test is a specification, a vectorised kernel and one explicit public
function. The specification sits beside the function in its family module;
:mod:`cvreport.methods.registry` lists them. Everything that needs to know
about tests reads the specification: the public function checks its design
with :meth:`TestSpec.check_design`, the report selects and recommends from
:func:`cvreport.methods.registry.specs_for`, the simulator runs
``spec.kernel(*spec.inputs(stats))`` on batches, the explorer lists the
tests, docs/methods.md's table is :func:`cvreport.methods.registry.markdown_table`
and tests/methods/test_contract.py checks every test the same way.

:attr:`TestSpec.inputs` turns the per-fold statistics of a pair of models
(:class:`~cvreport.data.sufficient.FoldStatistics`) into the kernel's
positional arguments. The same function serves one results table (arrays of
shape ``(m, K)``) and a batch of simulated ones (a leading ``reps`` axis), so it
indexes from the right (``differences[..., 0, :]``).

Examples
--------
>>> import numpy as np
>>> from cvreport.data.sufficient import FoldStatistics
>>> stats = FoldStatistics(np.array([[0.1, 0.2, 0.3]]), None, np.full((1, 3), 10))
>>> kfold_differences(stats)[0].tolist()
[0.1, 0.2, 0.3]
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cvreport.errors import DesignError

if TYPE_CHECKING:
    from cvreport.data.sufficient import FoldStatistics
    from cvreport.data.table import Design, ResultsTable

__all__ = [
    "DESIGN_KINDS",
    "KFOLD_REQUIREMENT",
    "TestSpec",
    "holdout_discordant",
    "kfold_differences",
    "kfold_discordant",
    "mx2_differences",
    "mx2_tables",
]

#: The design kinds a :class:`~cvreport.data.table.ResultsTable` reports (``table.design.kind``).
DESIGN_KINDS = ("holdout", "repeated_holdout", "kfold", "repeated_kfold", "mx2")

#: The requirement of the tests on the folds of one K-fold cross-validation.
KFOLD_REQUIREMENT = "a K-fold design (one replication, K ≥ 2 folds)"

Inputs = Callable[["FoldStatistics"], tuple[Any, ...]]


@dataclass(frozen=True)
class TestSpec:
    """One test, described once.

    Attributes
    ----------
    name : str
        Name of the public function (``cvreport.<name>``, ``cvreport.arrays.<name>``).
    label : str
        Short name shown in reports and tables.
    method : str
        Full name of the method, as in the result's ``method``.
    reference : str
        The paper (or papers) the statistic comes from.
    designs : tuple of str
        Design kinds (:data:`DESIGN_KINDS`) the test is run on by the report and the simulator.
    requirement : str
        The accepted designs in words, ending the :class:`DesignError` of a wrong design.
    function : callable
        The table-level public function.
    result : type
        The result class it returns.
    statistic, distribution : str
        The statistic and its reference distribution, in words, for the docs table.
    array_function : callable or None
        The array-level function (:mod:`cvreport.arrays`), or None when there is none.
    kernel : callable or None
        The vectorised kernel over batches of inputs.
    inputs : callable or None
        Kernel arguments from the pair's :class:`~cvreport.data.sufficient.FoldStatistics`;
        None when the test needs more than per-fold statistics (training sizes, records).
    accepts : callable or None
        Which designs the public function accepts when that is wider than ``designs``
        (the m×2 tests run on any two-fold design); by default ``design.kind in designs``.
    needs_binary, needs_per_record : bool
        Whether the test needs 0/1 losses, per-record losses (not only per-fold scores).
    models : int
        How many models the test takes (2: a comparison; 1: one model against a target).
    caution : str or None
        Why the literature advises against relying on the test; shown as a caveat.
    bayesian : bool
        The test reports posterior probabilities instead of a p-value.
    in_report : bool
        Whether the report runs the test on the designs it fits.
    """

    __test__ = False  # not a pytest test class

    name: str
    label: str
    method: str
    reference: str
    designs: tuple[str, ...]
    requirement: str
    function: Callable[..., Any]
    result: type
    statistic: str
    distribution: str
    array_function: Callable[..., Any] | None = None
    kernel: Callable[..., Any] | None = None
    inputs: Inputs | None = None
    accepts: Callable[[Design], bool] | None = None
    needs_binary: bool = False
    needs_per_record: bool = False
    models: int = 2
    caution: str | None = None
    bayesian: bool = False
    in_report: bool = True

    def fits(self, kind: str, *, binary: bool, per_record: bool) -> bool:
        """Whether the test applies to a design ``kind`` with such losses."""
        if kind not in self.designs:
            return False
        if self.needs_binary and not binary:
            return False
        return not (self.needs_per_record and not per_record)

    def accepts_design(self, design: Design) -> bool:
        """Whether the public function accepts a table of this ``design``."""
        if self.accepts is not None:
            return self.accepts(design)
        return design.kind in self.designs

    def check_design(self, table: ResultsTable) -> None:
        """Raise :class:`DesignError` unless the test accepts the table's design."""
        design = table.design
        if not self.accepts_design(design):
            raise DesignError(
                f"{self.name} needs {self.requirement}, but the table holds {design.describe()}; "
                "choose a test that fits this design (see docs/methods.md)"
            )

    @property
    def keywords(self) -> frozenset[str]:
        """The options the public function takes beside the table and the pair (``alternative``,
        ``rope``, ...)."""
        parameters = inspect.signature(self.function).parameters
        return frozenset(parameters) - {"table", "a", "b", "data"}

    @property
    def simulated(self) -> bool:
        """Whether the simulator can run the test (a kernel fed from per-fold statistics)."""
        return self.kernel is not None and self.inputs is not None


# -- kernel inputs from per-fold statistics (one table or a simulated batch) --------
def kfold_differences(stats: FoldStatistics) -> tuple[Any, ...]:
    """The K per-fold differences of the first replication."""
    return (stats.differences[..., 0, :],)


def mx2_differences(stats: FoldStatistics) -> tuple[Any, ...]:
    """The ``(m, 2)`` split differences."""
    return (stats.differences,)


def holdout_discordant(stats: FoldStatistics) -> tuple[Any, ...]:
    """McNemar's b (A wrong, B right) and c (A right, B wrong) of the one validation set."""
    tables = stats.binary_tables()
    return (tables[..., 0, 0, 1], tables[..., 0, 0, 2])


def kfold_discordant(stats: FoldStatistics) -> tuple[Any, ...]:
    """b and c of every fold of the first replication."""
    tables = stats.binary_tables()
    return (tables[..., 0, :, 1], tables[..., 0, :, 2])


def mx2_tables(stats: FoldStatistics) -> tuple[Any, ...]:
    """The ``(m, 2, 4)`` 2×2 tables of every fold."""
    return (stats.binary_tables(),)
