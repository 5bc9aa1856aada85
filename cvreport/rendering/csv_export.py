"""Tables as CSV text that a spreadsheet opens without running anything.

A spreadsheet reads a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and,
in some programs, a tab or a carriage return) as a formula, so a model or data
set named ``=HYPERLINK(...)`` would run when the exported file is opened. As
the OWASP guidance on CSV injection advises, :func:`csv_text` prefixes such
text cells with a single quote (``'=HYPERLINK(...)``), which spreadsheets show
as text. Only text is changed: numbers, including negative ones such as
``-0.013``, booleans and missing values are written as pandas writes them, so
the file reads back with the same numbers. Lines end in ``\n``; in a table
whose text holds a carriage return they end in ``\r\n`` (RFC 4180), so that
such a cell is quoted and the file still reads back cell by cell.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"model": ["=1+2", "-x", "plain"], "difference": [-0.013, 0.5, -2.0]})
>>> print(csv_text(frame), end="")
model,difference
'=1+2,-0.013
'-x,0.5
plain,-2.0
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["FORMULA_PREFIXES", "csv_text", "neutralise"]

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a text cell as a formula (OWASP)."""


def neutralise(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula.

    >>> neutralise("@SUM(A1)"), neutralise("-0.013"), neutralise(-0.013), neutralise("a-b")
    ("'@SUM(A1)", "'-0.013", -0.013, 'a-b')
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def csv_text(frame: pd.DataFrame, **options: Any) -> str:
    """``frame.to_csv(index=False)`` with formula-leading text cells neutralised.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; text cells and column names are neutralised, numeric columns
        are left as they are.
    **options
        Passed to :meth:`pandas.DataFrame.to_csv` (``index=False`` by default).

    Returns
    -------
    str
        The CSV text.
    """
    safe = frame.copy()
    carriage_return = False
    for i in range(safe.shape[1]):
        column = safe.iloc[:, i]
        if _holds_text(column):
            safe.isetitem(i, column.map(neutralise))
            carriage_return = carriage_return or bool(
                column.map(lambda v: isinstance(v, str) and "\r" in v).any()
            )
    safe.columns = [neutralise(str(c)) if isinstance(c, str) else c for c in safe.columns]
    options.setdefault("index", False)
    if carriage_return:  # Python's csv quotes a cell holding CR only when CR ends the lines
        options.setdefault("lineterminator", "\r\n")
    text: str = safe.to_csv(**options)
    return text


def _holds_text(column: pd.Series) -> bool:
    """Object, string and categorical columns hold text; numbers and dates are left alone."""
    dtype = column.dtype
    return isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_string_dtype(dtype)
