"""The ``cvreport`` command line: reports, notebooks and plans from cross-validation results.

One module per command (:mod:`~cvreport.cli.report`, :mod:`~cvreport.cli.notebook`,
:mod:`~cvreport.cli.datasets`, :mod:`~cvreport.cli.plan`) over one options layer
(:mod:`~cvreport.cli.inputs`: the input flags and the table they build) and one
set of output checks (:mod:`~cvreport.cli.checks`); :mod:`~cvreport.cli.main`
builds the parser and turns an error into one line and exit status 1.
"""

from cvreport.cli.inputs import read_data
from cvreport.cli.main import build_parser, main

__all__ = ["build_parser", "main", "read_data"]
