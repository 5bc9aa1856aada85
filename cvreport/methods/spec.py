"""What cvreport knows about one test, written once: the :class:`TestSpec`.

A test is one module: a vectorised kernel, a builder of its result, its two
public functions (thin wrappers over :meth:`TestSpec.run` and
:meth:`TestSpec.run_arrays`, with their numpydoc) and this specification; plus
one entry in :mod:`cvreport.methods.registry`. Everything that needs to know
about tests reads the specification: the one run path
(:mod:`cvreport.methods.run`: design check, pair, inputs, kernel, result, the
user's metric and direction, warnings), the exports of :mod:`cvreport`,
:mod:`cvreport.methods` and :mod:`cvreport.arrays`, the report's selection and
recommendation (:func:`cvreport.methods.registry.specs_for`), the simulator
(``spec.kernel(*spec.inputs(stats))`` on batches), every pair at once
(:mod:`cvreport.methods.pair_kernels`), the explorer's list of tests,
docs/methods.md's table (:func:`cvreport.methods.registry.markdown_table`) and
tests/methods/test_contract.py, which checks every test the same way.

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

import numpy as np

from cvreport.data.design import DESIGN_KINDS, DesignKind, design_kind
from cvreport.errors import DataError, DesignError
from cvreport.methods.arguments import public_function
from cvreport.methods.run import check_alternative_for, run_arrays, run_table

if TYPE_CHECKING:
    from cvreport.data.sufficient import FoldStatistics
    from cvreport.data.table import Design, ResultsTable

__all__ = [
    "DESIGN_KINDS",
    "KFOLD_REQUIREMENT",
    "RECORDS_REQUIREMENT",
    "TestSpec",
    "corrected_fold_differences",
    "corrected_split_differences",
    "flat_split_differences",
    "fold_grid_design",
    "holdout_discordant",
    "holdout_error_rates",
    "kfold_differences",
    "kfold_discordant",
    "kfold_record_differences",
    "mx2_differences",
    "mx2_tables",
    "record_spec",
    "split_design",
    "split_differences",
]

#: The requirement of the tests on the folds of one K-fold cross-validation.
KFOLD_REQUIREMENT = "a K-fold design (one replication, K ≥ 2 folds)"

#: The requirement of the tests on the records of one table built from predictions.
RECORDS_REQUIREMENT = "a table of per-record predictions or losses"

Inputs = Callable[["FoldStatistics"], tuple[Any, ...]]


@dataclass(frozen=True, kw_only=True)
class TestSpec:
    """One test, described once.

    Attributes
    ----------
    name : str
        Name of the public function (``cvreport.<name>``, ``cvreport.arrays.<name>``);
        by default read from ``function``.
    label : str
        Short name shown in reports and tables.
    method : str
        Full name of the method, as in the result's ``method``; by default the label.
    reference : str
        The paper (or papers) the statistic comes from.
    designs : tuple of DesignKind
        Design kinds (:data:`~cvreport.data.design.DESIGN_KINDS`) the test is run on by the
        report and the simulator; plain names (``"kfold"``) become the values.
    requirement : str
        The accepted designs in words, ending the :class:`DesignError` of a wrong design.
    function : callable
        The table-level public function (``cvreport.NAME``), wrapped by
        :func:`~cvreport.methods.arguments.public_function` so that an unknown keyword
        raises :class:`~cvreport.errors.ArgumentError`.
    result : type
        The result class it returns.
    statistic, distribution : str
        The statistic and its reference distribution, in words, for the docs table.
    array_function : callable or None
        The array-level function (``cvreport.arrays.NAME``, wrapped in the same way), or
        None when there is none.
    kernel : callable or None
        The vectorised kernel over batches of inputs.
    inputs : callable or None
        Kernel arguments from the pair's :class:`~cvreport.data.sufficient.FoldStatistics`;
        None when the test needs more than per-fold statistics (per-record losses of any
        kind, or one model only).
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
    build : callable or None
        ``build(*inputs, alternative=..., **options)`` (``alternative`` only when the test
        takes one, see ``takes_alternative``): runs the kernel on the inputs and
        returns the result on the internal losses (the run path of
        :mod:`cvreport.methods.run` does the rest).
    check_inputs : callable or None
        The array-level inputs as the user gives them → the validated kernel inputs
        (None: ``build`` validates them itself).
    prepare : callable or None
        ``prepare(spec, table, pair, stats, options) -> (inputs, options)`` when the
        kernel needs more than ``inputs(stats)`` (labels, ratios read from the table,
        records); for a one-model test ``prepare(spec, table, model, None, options) ->
        (model, inputs, options)``.
    partition_check : callable or None
        ``(table, name) -> (warnings, notes)`` about the partitions the test's
        distribution assumes (balanced m×2 partitions).
    finish : callable or None
        Replaces :func:`~cvreport.methods._common.finish_result` for a test whose result
        is not a comparison of A and B in the user's metric (the one-model tests).
    takes_alternative : bool
        Whether the test has one-sided forms; without, only ``"two-sided"`` is accepted.
    takes_margin : bool
        Whether it also takes ``alternative="equivalent"``/``"non-inferior"`` with a margin.
    takes_rope : bool
        Whether it takes a region of practical equivalence ``rope=`` (Bayesian tests).
    default_alternative : str
        The alternative when none is given.
    array_design : callable or None
        ``array_design(*inputs, **options) -> DesignKind | None``: the design kind the
        array-level inputs imply, for a test that runs on several kinds (read from
        their shape, :func:`fold_grid_design`, :func:`split_design`). By default the
        one kind in ``designs``, or None when there are several or none.
    """

    __test__ = False  # not a pytest test class

    name: str = ""
    label: str
    method: str = ""
    reference: str
    designs: tuple[DesignKind, ...]
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
    build: Callable[..., Any] | None = None
    check_inputs: Callable[..., tuple[Any, ...]] | None = None
    prepare: Callable[..., Any] | None = None
    partition_check: Callable[..., tuple[tuple[str, ...], tuple[str, ...]]] | None = None
    finish: Callable[..., Any] | None = None
    takes_alternative: bool = True
    takes_margin: bool = False
    takes_rope: bool = False
    default_alternative: str = "two-sided"
    in_metric: bool = False
    array_design: Callable[..., DesignKind | None] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.name or self.function.__name__)
        object.__setattr__(self, "method", self.method or self.label)
        # both public functions refuse an unknown keyword in words naming them as called
        object.__setattr__(
            self, "function", public_function(self.function, f"cvreport.{self.name}")
        )
        if self.array_function is not None:
            array_function = public_function(self.array_function, f"cvreport.arrays.{self.name}")
            object.__setattr__(self, "array_function", array_function)
        object.__setattr__(self, "designs", tuple(map(DesignKind.named, self.designs)))

    def run(
        self,
        table: ResultsTable | str,
        a: Any = None,
        b: Any = None,
        *,
        alternative: str | None = "two-sided",
        data: Any = None,
        **options: Any,
    ) -> Any:
        """Run the test on models ``a`` and ``b`` of ``table`` (:func:`~cvreport.methods.run.run_table`).

        ``alternative`` is about metric(A) − metric(B) in the user's metric (None: the
        test's own default, :attr:`default_alternative`); a test without one-sided
        forms (``takes_alternative`` false) accepts only ``"two-sided"`` and raises
        :class:`~cvreport.errors.DataError` otherwise.
        ``options`` are the test's own keywords (``rope=`` for the Bayesian tests,
        ``takes_rope``). Returns the test's result (:attr:`result`).
        """
        if self.build is None:  # a test whose public function still runs itself
            check_alternative_for(self, alternative)
            if self.takes_alternative and alternative is not None:
                options["alternative"] = alternative
            if data is not None:
                options["data"] = data
            args = (a,) if self.models == 1 else (a, b)
            return self.function(table, *args, **options)
        return run_table(self, table, a, b, alternative=alternative, data=data, **options)

    def run_arrays(self, *values: Any, alternative: str | None = None, **options: Any) -> Any:
        """Run the test on the arrays its array-level function takes (:mod:`cvreport.arrays`)."""
        return run_arrays(self, *values, alternative=alternative, **options)

    def array_design_kind(
        self, inputs: tuple[Any, ...], options: dict[str, Any]
    ) -> DesignKind | None:
        """The design kind arrays given to :meth:`run_arrays` come from (see ``array_design``).

        >>> from cvreport.methods.registry import get_spec
        >>> get_spec("mcnemar").array_design_kind((12, 4), {})
        'holdout'
        >>> get_spec("corrected_repeated_kfold_ttest").array_design_kind(([[0.1, 0.2]] * 3,), {})
        'mx2'
        """
        if self.array_design is not None:
            return self.array_design(*inputs, **options)
        return self.designs[0] if len(self.designs) == 1 else None

    def fits(self, kind: DesignKind | str, *, binary: bool, per_record: bool) -> bool:
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


def record_spec(**facts: Any) -> TestSpec:
    """The spec of a test on the records of one table (DeLong, bootstrap, permutation, clustered).

    The metric recommends these tests, not the design kind, so they list no design
    kinds (:func:`cvreport.methods.registry.specs_for` never picks them) and check
    the table themselves (their ``prepare``).
    """
    defaults: dict[str, Any] = {
        "designs": (),
        "requirement": RECORDS_REQUIREMENT,
        "needs_per_record": True,
        "accepts": _any_design,
        "in_metric": True,
    }
    return TestSpec(**(defaults | facts))


def _any_design(design: Design) -> bool:
    return True


# -- the design kind array-level inputs imply -----------------------------------------
def fold_grid_design(differences: Any, *rest: Any, **options: Any) -> DesignKind:
    """The kind of an ``(m, K)`` grid of fold values (a 1-D array is one K-fold run).

    The leading axes of the first input are replications × folds (``(m, 2, 4)``
    tables of an m×2 design too).

    >>> fold_grid_design([[0.1, 0.2]] * 5), fold_grid_design([0.1, 0.2, 0.3])
    ('mx2', 'kfold')
    """
    shape = np.shape(differences)
    m, n_folds = (1, shape[0]) if len(shape) == 1 else shape[:2]
    return design_kind(int(m), int(n_folds))


def split_design(
    differences: Any, test_train_ratio: Any = None, *rest: Any, **options: Any
) -> DesignKind | None:
    """The kind of split differences: an ``(r, k)`` grid, or J values of one K-fold run.

    J values with a ``test_train_ratio`` may be repeated hold-out splits or the
    folds of one K-fold run with unequal folds: None, the inputs do not say.

    >>> split_design([0.1, 0.2, 0.3]), split_design([0.1, 0.2, 0.3], 0.25)
    ('kfold', None)
    """
    if np.ndim(differences) == 1 and test_train_ratio is not None:
        return None
    return fold_grid_design(differences)


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


def holdout_error_rates(stats: FoldStatistics) -> tuple[Any, ...]:
    """Error rates of A and B on the one validation set, and its size (0/1 losses)."""
    tables = stats.binary_tables()[..., 0, 0, :]
    size = np.broadcast_to(stats.sizes, stats.differences.shape)[..., 0, 0]
    return (
        (tables[..., 0] + tables[..., 1]) / size,
        (tables[..., 0] + tables[..., 2]) / size,
        size,
    )


def split_differences(stats: FoldStatistics) -> tuple[Any, ...]:
    """The J differences of repeated hold-out splits (one validation fold each)."""
    return (stats.differences[..., :, 0],)


def corrected_split_differences(stats: FoldStatistics) -> tuple[Any, ...]:
    """The J split differences and ``n2/n1`` (Nadeau & Bengio 2003)."""
    return (stats.differences[..., :, 0], stats.validation_training_ratio())


def corrected_fold_differences(stats: FoldStatistics) -> tuple[Any, ...]:
    """The ``(r, k)`` fold differences and ``n2/n1`` (Bouckaert & Frank 2004)."""
    return (stats.differences, stats.validation_training_ratio())


def flat_split_differences(stats: FoldStatistics) -> tuple[Any, ...]:
    """All ``m·K`` split differences on one axis and ``n2/n1`` (Corani & Benavoli 2015)."""
    differences = stats.differences
    flat = differences.reshape(*differences.shape[:-2], -1)
    return (flat, stats.validation_training_ratio())


def kfold_record_differences(stats: FoldStatistics) -> tuple[Any, ...]:
    """Per-record differences A − B of one K-fold CV and the fold of every record.

    With 0/1 losses the 2×2 table of a fold holds every record's difference: n01
    records of +1 (A wrong, B right), n10 of −1 and the rest 0, so the records of
    every fold are rebuilt in that order (Bayle et al. 2020 need only their values
    and folds). Real-valued losses leave the per-record spread unknown.

    Raises
    ------
    DataError
        For losses that are not 0/1.
    """
    if stats.tables is None:
        raise DataError(
            "per-fold statistics of real-valued losses do not hold the per-record "
            "differences; pass the per-record losses (cv_confidence_interval on the table)"
        )
    tables = stats.tables[..., 0, :, :]  # (..., K, 4) of the one replication
    sizes = np.asarray(stats.sizes)[..., 0, :]
    if sizes.ndim > 1 and np.any(sizes != sizes[(0,) * (sizes.ndim - 1)]):
        raise DataError("a batch of K-fold CVs must share its fold sizes")
    sizes = sizes.reshape(-1, sizes.shape[-1])[0].astype(np.intp)
    folds = np.repeat(np.arange(sizes.size), sizes)
    offset = np.arange(folds.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    worse = tables[..., folds, 1]  # n01 of each record's fold
    better = tables[..., folds, 2]
    differences = (offset < worse).astype(np.float64) - (
        (offset >= worse) & (offset < worse + better)
    ).astype(np.float64)
    return (differences, folds)
