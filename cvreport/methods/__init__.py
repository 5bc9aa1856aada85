"""The statistical tests, grouped by family; every public function takes a ResultsTable.

Each table-level function also accepts a formula string with ``data=``; the
array-level versions live in :mod:`cvreport.arrays` and the vectorised kernels
in the family modules (``*_kernel``). Each test's specification
(:class:`~cvreport.methods.spec.TestSpec`) sits beside its function and
:mod:`cvreport.methods.registry` lists them all: the names below are read from it,
so a test added to the registry is exported here, in :mod:`cvreport` and in
:mod:`cvreport.arrays` without another line.

Examples
--------
>>> from cvreport import methods
>>> methods.mcnemar is methods.registry.get_spec("mcnemar").function
True
"""

from __future__ import annotations

from cvreport.methods.delong import delong_tests_per_fold as delong_tests_per_fold
from cvreport.methods.registry import SPECS

globals().update({spec.name: spec.function for spec in SPECS})

#: Every table-level test of the registry, and DeLong's test fold by fold.
__all__ = sorted([*(spec.name for spec in SPECS), "delong_tests_per_fold"])
