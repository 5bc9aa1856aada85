"""The tests on plain numbers and arrays, for users without a results table.

Each function has the same name as its table-level counterpart in
:mod:`cvreport` but takes what the statistic is built from: an ``(m, 2)``
array of split differences for the m×2 tests, the K per-fold differences for
the K-fold t, the discordant counts b and c for McNemar, the 2m fold tables for
the BCV McNemar, and error counts or fold errors for the one-model tests. The
table-level functions call these, so both give the same numbers; each test's
specification names its array-level function (``TestSpec.array_function``) and
this module exports exactly those, read from :mod:`cvreport.methods.registry`.

Examples
--------
>>> from cvreport import arrays
>>> arrays.mcnemar(12, 4).pvalue.__round__(6)
0.080118
>>> d = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
>>> round(arrays.combined_ftest_5x2cv(d).statistic, 6)
0.909091
"""

from __future__ import annotations

from cvreport.methods.contingency_posterior import contingency_posteriors as contingency_posteriors
from cvreport.methods.registry import SPECS

globals().update({spec.name: spec.array_function for spec in SPECS if spec.array_function})

#: Every array-level test of the registry, and the posterior of a 2×2 table's cells.
__all__ = sorted([*(spec.name for spec in SPECS if spec.array_function), "contingency_posteriors"])
