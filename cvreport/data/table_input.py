"""What every public function that takes a results table accepts: a table, or a formula with data.

Examples
--------
>>> import cvreport
>>> table = as_table("loss ~ model | replication + fold", cvreport.load_example())
>>> table.design.kind
'mx2'
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from cvreport.data.table import ResultsTable
from cvreport.errors import DesignError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["as_table"]


def as_table(table: ResultsTable | str, data: pd.DataFrame | None = None) -> ResultsTable:
    """Accept a :class:`~cvreport.data.table.ResultsTable` or a formula string with ``data``.

    Raises
    ------
    DesignError
        When ``data`` comes with a table, a formula comes without it, or ``table``
        is neither; the message shows how to build a table.
    """
    if isinstance(table, ResultsTable):
        if data is not None:
            raise DesignError(
                "data= is only used with a formula string; pass either a ResultsTable or "
                "a formula such as 'loss ~ model | replication + fold' with data="
            )
        return table
    if isinstance(table, os.PathLike) or (
        isinstance(table, str) and "~" not in table and data is None
    ):
        raise DesignError(
            f"{os.fspath(table)!r} is no formula (a formula has '~', e.g. 'loss ~ model | "
            "replication + fold'); to read a file of results, give the formula first and the "
            f"file as data=, e.g. ('loss ~ model | replication + fold', "
            f"data={os.fspath(table)!r})"
        )
    if isinstance(table, str):
        if data is None:
            raise DesignError(
                f"the formula {table!r} needs data=: pass the long-format DataFrame of losses"
            )
        return ResultsTable.from_formula(table, data)
    raise DesignError(
        f"expected a ResultsTable or a formula string, got {type(table).__name__}; "
        "build one with cvreport.ResultsTable.from_formula('loss ~ model | replication + fold', df)"
    )
