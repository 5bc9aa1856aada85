"""Jupyter's rich display, written once for everything that has a summary.

A class that mixes in :class:`SummaryDisplay` and defines ``summary()`` (a
:class:`~cvreport.rendering.summary.Summary`) shows as HTML and Markdown in a
notebook, and as LaTeX when ``cvreport.options.display.latex`` is on (as pandas
does); one display renders the summary once. The idea is linearmodels'
``_SummaryStr`` mixin. Test results, results tables and summaries use it.

Examples
--------
>>> from cvreport.rendering.summary import Summary, SummaryRow
>>> class Shown(SummaryDisplay):
...     def summary(self):
...         return Summary("A test", rows=(SummaryRow("p-value", 0.0801, "pvalue"),))
>>> sorted(Shown()._repr_mimebundle_())
['text/html', 'text/markdown']
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from cvreport.options import get_option

if TYPE_CHECKING:
    from cvreport.rendering.summary import Summary

__all__ = ["SummaryDisplay", "display_bundle"]

_REPR_METHODS = ("_repr_html_", "_repr_markdown_", "_repr_latex_")


def display_bundle(
    summary: Summary,
    include: Collection[str] | None = None,
    exclude: Collection[str] | None = None,
) -> dict[str, str]:
    """The rich formats Jupyter shows for ``summary``, each rendered once.

    HTML and Markdown always; LaTeX only when the ``display.latex`` option is on
    (see :mod:`cvreport.options`). ``include``/``exclude`` are IPython's
    mimetype filters.
    """
    renderers = {"text/html": summary.as_html, "text/markdown": summary.as_markdown}
    if get_option("display.latex"):
        renderers["text/latex"] = summary.as_latex
    return {
        mime: render()
        for mime, render in renderers.items()
        if (include is None or mime in include) and (exclude is None or mime not in exclude)
    }


class SummaryDisplay:
    """Rich display from ``self.summary()``: HTML, Markdown and (optionally) LaTeX."""

    def summary(self) -> Summary:  # pragma: no cover - every user defines it
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def _repr_markdown_(self) -> str:
        return self.summary().as_markdown()

    def _repr_latex_(self) -> str | None:
        """LaTeX for Jupyter, only when ``cvreport.options.display.latex`` is on."""
        return self.summary().as_latex() if get_option("display.latex") else None

    def _repr_mimebundle_(
        self,
        include: Collection[str] | None = None,
        exclude: Collection[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, str] | None:
        """Every rich format for one Jupyter display from a single :meth:`summary` call.

        A subclass that overrides ``_repr_html_``, ``_repr_markdown_`` or
        ``_repr_latex_`` keeps its own methods: IPython then falls back to them.
        """
        cls = type(self)
        if any(getattr(cls, name) is not getattr(SummaryDisplay, name) for name in _REPR_METHODS):
            return None
        return display_bundle(self.summary(), include, exclude)
