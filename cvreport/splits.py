"""Scikit-learn splitters for designed partitions; see :mod:`cvreport.partitions.splits`."""

from cvreport.partitions.splits import *  # noqa: F403
from cvreport.partitions.splits import __all__  # noqa: F401
