"""The one way every test runs: from a table or from arrays to a finished result.

A test's :class:`~cvreport.methods.spec.TestSpec` says what is particular to it;
this module does the rest, the same way for every test, whoever calls it (the
public functions of :mod:`cvreport` and :mod:`cvreport.arrays`, the report, the
explorer):

1. **design check**: :meth:`TestSpec.check_design` (a typed
   :class:`~cvreport.errors.DesignError` naming the designs it accepts);
2. **pair**: models A and B of the table and their per-fold statistics
   (:class:`~cvreport.data.sufficient.FoldStatistics`), or the one model of a
   one-model test;
3. **inputs**: ``spec.prepare`` (the kernel's arguments and the options read
   from the table, with notes on how), by default ``spec.inputs`` of the pair's
   statistics, every value present;
4. **kernel → result**: ``spec.build(*inputs, alternative=..., **options)`` runs the
   vectorised kernel on the inputs and builds the result on the internal
   losses, with its degenerate cases said in words;
5. **the user's metric and direction**: the alternative is turned into the
   internal losses' before and the result into the user's metric after
   (:func:`~cvreport.methods._common.loss_alternative`,
   :func:`~cvreport.methods._common.finish_result`): a score is shown as a
   score, A − B, higher is better;
6. **warnings**: a degenerate statistic as
   :class:`~cvreport.errors.DegenerateStatisticWarning`, unbalanced partitions
   (``spec.partition_check``) as :class:`~cvreport.errors.PartitionWarning`.

Every result carries the kind of its design as a value (``design_kind``): the
table's (``table.design.kind``) on the table route; on the array route
(:func:`run_arrays`, steps 3 (``spec.check_inputs`` validates the user's arrays),
4 and 6) the kind the arrays imply (:meth:`TestSpec.array_design_kind`), None
when they fit several designs.

Examples
--------
>>> from cvreport.methods.registry import get_spec
>>> spec = get_spec("wilcoxon_kfold")
>>> spec.run_arrays([0.02, -0.01, 0.03, 0.015, 0.04], alternative="two-sided").pvalue
0.125
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import TYPE_CHECKING, Any

import numpy as np

from cvreport.data.table_input import as_table
from cvreport.errors import CVReportError, DataError
from cvreport.methods._common import (
    emit_partition_warnings,
    emit_warnings,
    finish_result,
    loss_alternative,
    pair_statistics,
    refuse_masked,
)
from cvreport.methods.equivalence import check_margin
from cvreport.results import MARGIN_ALTERNATIVES, TestResult, check_alternative

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable

__all__ = ["check_alternative_for", "run_arrays", "run_table", "with_table_design"]


def check_alternative_for(spec: Any, alternative: str | None) -> None:
    """Refuse an ``alternative`` the test does not take, in words.

    A test without one (``spec.takes_alternative`` false: the F tests, McNemar's
    χ²) accepts only ``"two-sided"`` (its one form) or None.

    Raises
    ------
    CVReportError
        An alternative outside scipy's words (or the test's margin words).
    DataError
        A one-sided alternative for a test that has none.
    """
    if alternative is None:
        return
    if not spec.takes_alternative:
        if alternative != "two-sided":
            raise DataError(
                f"{spec.name} has no one-sided form: its statistic is not signed, so it "
                f"takes only alternative='two-sided', got {alternative!r}; choose a test "
                "with an alternative for a one-sided question"
            )
        return
    if not (spec.takes_margin and alternative in MARGIN_ALTERNATIVES):
        check_alternative(alternative)


def _present(spec: Any, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """The inputs, or a :class:`DataError` when a fold lacks a value."""
    for value in inputs:
        array = np.asarray(value)
        if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
            raise DataError(
                f"{spec.name} needs a value on every fold of both models; some are missing: "
                "drop the incomplete folds or fill them first"
            )
    return inputs


def _prepare(
    spec: Any, table: ResultsTable, a: Any, b: Any, options: dict[str, Any]
) -> tuple[Any, tuple[Any, ...], dict[str, Any], tuple[str, ...]]:
    """Steps 2 and 3: the pair (or one model), the kernel inputs, the options and notes.

    ``spec.prepare`` returns ``(inputs, options)`` or ``(inputs, options, notes)``,
    the notes saying how a setting was read from the table (``(model, inputs,
    options)`` for a one-model test).
    """
    if spec.models == 1:
        return (*spec.prepare(spec, table, a, None, options), ())
    if spec.in_metric:  # the record tests read the records, not per-fold statistics
        pair, stats = table.resolve_pair(a, b), None
    else:
        pair, stats = pair_statistics(table, a, b)
    if spec.prepare is None:
        return pair, _present(spec, spec.inputs(stats)), options, ()
    inputs, options, *notes = spec.prepare(spec, table, pair, stats, options)
    return pair, inputs, options, tuple(notes[0]) if notes else ()


def _build(spec: Any, inputs: tuple[Any, ...], alternative: str, options: dict[str, Any]) -> Any:
    """Step 4: the kernel on the inputs and the result on the internal losses."""
    if spec.takes_alternative:
        options = {"alternative": alternative, **options}
    return spec.build(*inputs, **options)


def with_table_design(result: TestResult, table: ResultsTable, models: Any) -> Any:
    """``result`` with models A and B and the design of ``table``, in words and as a kind."""
    return dataclasses.replace(
        result,
        models=(str(models[0]), str(models[1])),
        design=table.design.describe(),
        design_kind=table.design.kind,
    )


def run_table(
    spec: Any,
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    alternative: str | None = "two-sided",
    data: pd.DataFrame | None = None,
    **options: Any,
) -> TestResult:
    """Run the test of ``spec`` on models ``a`` and ``b`` of ``table`` (the six steps above).

    ``alternative`` is in the user's metric (A − B); None keeps the test's own
    default (``spec.default_alternative``, about the losses: the CV interval's
    one-sided "less" is H1 "A is better" for a score too). ``options`` are the
    test's keyword options (``rope``, ``test_train_ratio``, ...).
    """
    if spec.takes_margin:  # the margin's words before the table is read
        if alternative is not None:
            check_margin(alternative, options.get("margin"))
        elif options.get("margin") is not None:
            raise CVReportError(
                "margin= is used only with alternative='equivalent' or 'non-inferior'; pass "
                "one of them, or drop margin="
            )
    check_alternative_for(spec, alternative)
    table = as_table(table, data)
    spec.check_design(table)
    models, inputs, options, notes = _prepare(spec, table, a, b, dict(options))
    if alternative is None or not spec.takes_alternative or spec.models == 1 or spec.in_metric:
        internal = alternative or spec.default_alternative  # about the model's own losses
    else:
        internal = loss_alternative(table, alternative)
    result = _build(spec, inputs, internal, options)
    partition_warnings, partition_notes = (
        spec.partition_check(table, spec.name) if spec.partition_check else ((), ())
    )
    emit_warnings(result.warnings)
    emit_partition_warnings(partition_warnings)
    if spec.finish is not None:
        finished = spec.finish(result, table, models, partition_warnings, partition_notes)
        return dataclasses.replace(finished, design_kind=table.design.kind)
    if spec.in_metric:  # already in the user's metric: only the pair and the design
        return with_table_design(result, table, models)
    return finish_result(
        result,
        table,
        models,
        extra_warnings=tuple(partition_warnings),
        extra_notes=(*notes, *partition_notes),
    )


def run_arrays(spec: Any, *values: Any, alternative: str | None = None, **options: Any) -> Any:
    """Run the test of ``spec`` on the arrays a user gives (:mod:`cvreport.arrays`)."""
    names = list(inspect.signature(spec.array_function).parameters) if spec.array_function else []
    for index, value in enumerate(values):  # labels, scores, clusters as well as numbers
        refuse_masked(value, names[index] if index < len(names) else f"argument {index + 1}")
    for name, value in options.items():
        refuse_masked(value, name)
    check_alternative_for(spec, alternative)
    if alternative is None or not spec.takes_alternative:
        alternative = spec.default_alternative
    inputs = values if spec.check_inputs is None else spec.check_inputs(*values)
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    result = _build(spec, inputs, alternative, options)
    emit_warnings(result.warnings)
    if result.design_kind is None:  # the kind the inputs imply, once the builder took them
        result = dataclasses.replace(result, design_kind=spec.array_design_kind(inputs, options))
    return result
