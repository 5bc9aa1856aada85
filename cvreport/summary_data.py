"""The plain data a result's summary is made of, below the rendering that formats it.

A result describes itself as labelled raw values (:class:`SummaryRow`) and small
tables (:class:`SummaryTable`); :mod:`cvreport.rendering.summary` turns them into
text, Markdown, HTML or LaTeX. Statistics build these values without importing
any rendering.

Examples
--------
>>> row = SummaryRow("p-value", 0.0801, "pvalue")
>>> row.label, row.kind
('p-value', 'pvalue')
>>> SummaryTable("counts", ("A", "B"), ((1, 2),), ("value",)).kind_of(1)
'value'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SummaryRow", "SummaryTable"]


@dataclass(frozen=True)
class SummaryRow:
    """One labelled value; ``kind`` is ``number``, ``pvalue``, ``probability``, ``df``, ``text`` or ``value``."""

    label: str
    value: Any
    kind: str = "value"


@dataclass(frozen=True)
class SummaryTable:
    """A small table inside a summary: a caption, column names and rows of raw cells."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    kinds: tuple[str, ...] = ()

    def kind_of(self, j: int) -> str:
        """The kind of column ``j`` (``value`` when not given)."""
        return self.kinds[j] if j < len(self.kinds) else "value"
