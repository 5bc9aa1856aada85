"""A printable summary of one result, in the manner of statsmodels' ``Summary``.

A :class:`Summary` holds raw values with a kind (number, p-value, df, text), the
plain :class:`~cvreport.summary_data.SummaryRow` and
:class:`~cvreport.summary_data.SummaryTable` of :mod:`cvreport.summary_data`;
the packaged templates turn them into text, Markdown, HTML or LaTeX through the
shared formatting filters, so every format shows the same digits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cvreport.rendering import formatting
from cvreport.rendering.display import SummaryDisplay, display_bundle
from cvreport.rendering.environment import html_environment, latex_environment, text_environment
from cvreport.summary_data import SummaryRow, SummaryTable

__all__ = ["TEXT_WIDTH", "Summary", "display_bundle"]

#: The narrowest plain-text summary, in characters: rules, notes, warnings and the
#: interpretation wrap at this width or at the width of the widest label and value.
TEXT_WIDTH = 78


@dataclass(frozen=True)
class Summary(SummaryDisplay):
    """Text, Markdown, HTML and LaTeX views of one result.

    Examples
    --------
    >>> s = Summary("McNemar's test", rows=(SummaryRow("statistic", 3.0625, "number"),))
    >>> "3.0625" in s.as_text()
    True
    """

    title: str
    rows: Sequence[SummaryRow] = ()
    tables: Sequence[SummaryTable] = ()
    notes: Sequence[str] = ()
    warnings: Sequence[str] = ()
    reference: str | None = None
    interpretation: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def _context(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "rows": list(self.rows),
            "tables": list(self.tables),
            "notes": list(self.notes),
            "warnings": list(self.warnings),
            "reference": self.reference,
            "interpretation": self.interpretation,
        }

    def as_text(self) -> str:
        """Plain text with aligned columns."""
        labels = [r.label for r in self.rows]
        values = [formatting.format_by_kind(r.value, r.kind) for r in self.rows]
        width = max([len(x) for x in labels] + [10])
        vwidth = max([len(x) for x in values] + [10])
        text_tables = []
        for table in self.tables:
            cells = [
                [formatting.format_by_kind(cell, table.kind_of(j)) for j, cell in enumerate(row)]
                for row in table.rows
            ]
            widths = [
                max([len(str(c))] + [len(row[j]) for row in cells])
                for j, c in enumerate(table.columns)
            ]
            text_tables.append(
                {
                    "caption": table.caption,
                    "header": "  ".join(str(c).rjust(w) for c, w in zip(table.columns, widths)),
                    "lines": ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells],
                }
            )
        rule = max(width + vwidth + 2, len(self.title), TEXT_WIDTH)
        context = self._context() | {
            "lines": [
                f"{lbl.ljust(width)}  {val.rjust(vwidth)}" for lbl, val in zip(labels, values)
            ],
            "text_tables": text_tables,
            "rule": rule,
        }
        return text_environment().get_template("summary.txt.j2").render(context).rstrip() + "\n"

    def as_markdown(self) -> str:
        """GitHub-flavoured Markdown."""
        return text_environment().get_template("summary.md.j2").render(self._context())

    def as_html(self) -> str:
        """An HTML fragment (escaped), suitable for notebooks and reports."""
        return html_environment().get_template("summary.html.j2").render(self._context())

    def as_latex(self) -> str:
        """A LaTeX fragment using booktabs."""
        return latex_environment().get_template("summary.tex.j2").render(self._context())

    def summary(self) -> Summary:
        """The summary itself (so that it displays like everything that has one)."""
        return self

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return self.as_text()
