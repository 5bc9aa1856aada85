"""A test's vectorised kernel on every pair of models at once.

The per-fold statistics of many pairs stack into one batch of
:class:`~cvreport.data.sufficient.FoldStatistics` (a leading pairs axis, as the
simulator's batches have a leading replications axis), so any test whose spec
reads its kernel inputs from per-fold statistics (``spec.inputs``) runs on all
pairs in one call, with the same numbers as calling the test on each pair.
Tests without such a kernel run pair by pair (:func:`all_pairs` returns None).

Examples
--------
>>> import numpy as np, pandas as pd
>>> from cvreport.data.table import ResultsTable
>>> from cvreport.methods.kfold import PAIRED_T_KFOLD, paired_ttest_kfold
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"model": np.repeat(["a", "b", "c"], 100),
...                    "fold": np.tile(np.arange(100) % 10, 3),
...                    "record": np.tile(np.arange(100), 3),
...                    "loss": (rng.random(300) < np.repeat([0.1, 0.2, 0.4], 100)).astype(float)})
>>> table = ResultsTable.from_formula("loss ~ model | fold", df)
>>> kernel = all_pairs(PAIRED_T_KFOLD, table, [("a", "b"), ("a", "c")])
>>> one = paired_ttest_kfold(table, "a", "c")
>>> bool(np.isclose(kernel.pvalue[1], one.pvalue))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from cvreport.data.sufficient import FoldStatistics
from cvreport.errors import CVReportError
from cvreport.methods.spec import TestSpec

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["all_pairs", "pair_batch"]

#: The fields of :class:`FoldStatistics` that differ between pairs; the others
#: describe the folds (their sizes) and are the same for every pair.
_PER_PAIR = ("differences", "tables")


def pair_batch(table: ResultsTable, pairs: Sequence[tuple[Any, Any]]) -> FoldStatistics:
    """The per-fold statistics of every pair, stacked along a leading axis."""
    models = list(table.models)
    with np.errstate(divide="ignore", invalid="ignore"):  # a fold a model lacks: NaN
        singles = [table.stats.pair(models.index(a), models.index(b)) for a, b in pairs]
    values = {}
    for field in fields(FoldStatistics):
        first = getattr(singles[0], field.name)
        if field.name in _PER_PAIR and first is not None:
            values[field.name] = np.stack([getattr(one, field.name) for one in singles])
        else:
            values[field.name] = first
    return FoldStatistics(**values)


def all_pairs(spec: TestSpec, table: ResultsTable, pairs: Sequence[tuple[Any, Any]]) -> Any:
    """The kernel of ``spec`` on every pair at once (two-sided, on the internal losses).

    Returns the kernel's result, whose ``statistic`` and ``pvalue`` hold one value
    per pair, or None when the test has no kernel fed from per-fold statistics
    (run it pair by pair) or the table does not fit it.
    """
    if not pairs or not spec.simulated:
        return None
    batch = pair_batch(table, pairs)
    try:
        assert spec.kernel is not None and spec.inputs is not None
        # two-sided whatever the test's own default (the CV interval's is one-sided)
        options = {"alternative": "two-sided"} if spec.takes_alternative else {}
        return spec.kernel(*spec.inputs(batch), **options)
    except (CVReportError, ValueError):  # e.g. no 2×2 counts for losses that are not 0/1
        return None
