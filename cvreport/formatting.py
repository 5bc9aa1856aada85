"""Number, p-value and escaping filters shared by every output format.

HTML, Markdown, LaTeX and plain text all format numbers through these
functions, so every output agrees on every digit.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = [
    "PVALUE_DIGITS",
    "STAT_DIGITS",
    "escape_latex",
    "escape_markdown",
    "format_df",
    "format_number",
    "format_pvalue",
    "format_value",
]

STAT_DIGITS = 4
PVALUE_DIGITS = 3


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) or hasattr(x, "dtype")


def format_number(x: Any, digits: int = STAT_DIGITS) -> str:
    """Format a statistic with ``digits`` decimals; scientific when very small or large.

    >>> format_number(3.0625)
    '3.0625'
    >>> format_number(float("inf"))
    'inf'
    """
    if x is None:
        return "—"
    if not _is_number(x):
        return str(x)
    value = float(x)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if float(value).is_integer() and abs(value) < 1e9 and isinstance(x, int):
        return str(int(value))
    if value != 0 and (abs(value) < 10 ** (-digits) or abs(value) >= 1e7):
        return f"{value:.{digits - 1}e}"
    return f"{value:.{digits}f}"


def format_pvalue(p: Any, digits: int = PVALUE_DIGITS, *, less_than: str = "<") -> str:
    """Format a p-value with ``digits`` decimals, ``<0.001`` below display precision.

    >>> format_pvalue(0.080118)
    '0.080'
    >>> format_pvalue(1e-7)
    '<0.001'
    """
    if p is None:
        return "—"
    value = float(p)
    if math.isnan(value):
        return "nan"
    threshold = 10.0**-digits
    if value < threshold:
        return f"{less_than}{threshold:.{digits}f}"
    return f"{value:.{digits}f}"


def format_df(df: Any) -> str:
    """Format degrees of freedom: integers plainly, fractions with 4 decimals, pairs as ``(a, b)``."""
    if df is None:
        return "—"
    if isinstance(df, (tuple, list)):
        return "(" + ", ".join(format_df(d) for d in df) + ")"
    value = float(df)
    if value.is_integer():
        return str(int(value))
    return f"{value:.4f}"


def format_value(x: Any) -> str:
    """Format any summary value: numbers as statistics, pairs elementwise, others as text."""
    if isinstance(x, tuple):
        return "(" + ", ".join(format_value(v) for v in x) + ")"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if _is_number(x):
        return format_number(x)
    return "—" if x is None else str(x)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX_SPECIAL))


def escape_latex(text: Any) -> str:
    r"""Escape LaTeX special characters.

    >>> escape_latex("a_b & c%$#")
    'a\\_b \\& c\\%\\$\\#'
    """
    return _LATEX_RE.sub(lambda m: _LATEX_SPECIAL[m.group()], str(text))


_MD_RE = re.compile(r"([\\`*_\[\]<>|$])")


def escape_markdown(text: Any) -> str:
    """Escape characters that Markdown (GitHub flavour) would interpret, including ``|``."""
    return _MD_RE.sub(r"\\\1", str(text))
