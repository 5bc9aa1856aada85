"""Jupyter's rich display, written once for everything cvreport shows in a notebook.

:class:`RichDisplay` gives ``_repr_html_``, ``_repr_markdown_``, ``_repr_latex_``
and ``_repr_mimebundle_`` from one method, ``_display_renderers()``: HTML and
Markdown always, LaTeX when ``cvreport.options.display.latex`` is on (as pandas
does), and one display renders each format once from one shared computation.
The idea is linearmodels' ``_SummaryStr`` mixin. Its two kinds:

* :class:`SummaryDisplay`, for what has a ``summary()`` (a
  :class:`~cvreport.rendering.summary.Summary`): test results, results tables,
  audits and summaries;
* :class:`ReportDisplay`, for the reports, which render themselves with
  ``to_html(standalone=False)``, ``to_markdown()`` and, when they have one,
  ``to_latex(standalone=False)``.

Examples
--------
>>> from cvreport.rendering.summary import Summary
>>> from cvreport.summary_data import SummaryRow
>>> class Shown(SummaryDisplay):
...     def summary(self):
...         return Summary("A test", rows=(SummaryRow("p-value", 0.0801, "pvalue"),))
>>> sorted(Shown()._repr_mimebundle_())
['text/html', 'text/markdown']
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import cache
from typing import Any, Protocol

from cvreport.options import get_option

__all__ = ["ReportDisplay", "RichDisplay", "SummaryDisplay", "display_bundle"]

_REPR_METHODS = ("_repr_html_", "_repr_markdown_", "_repr_latex_")

Renderers = dict[str, Callable[[], str]]


class Summary(Protocol):
    """What a display needs of a summary: its HTML, Markdown and LaTeX views."""

    def as_html(self) -> str: ...

    def as_markdown(self) -> str: ...

    def as_latex(self) -> str: ...


def _bundle(
    renderers: Renderers,
    include: Collection[str] | None = None,
    exclude: Collection[str] | None = None,
) -> dict[str, str]:
    """Render the wanted formats: LaTeX only when ``display.latex`` is on, IPython's filters."""
    latex = get_option("display.latex")
    return {
        mime: render()
        for mime, render in renderers.items()
        if (latex or mime != "text/latex")
        and (include is None or mime in include)
        and (exclude is None or mime not in exclude)
    }


def _summary_renderers(summary: Callable[[], Summary]) -> Renderers:
    return {
        "text/html": lambda: summary().as_html(),
        "text/markdown": lambda: summary().as_markdown(),
        "text/latex": lambda: summary().as_latex(),
    }


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
    return _bundle(_summary_renderers(lambda: summary), include, exclude)


class RichDisplay:
    """Rich display from ``_display_renderers()``: HTML, Markdown and (optionally) LaTeX."""

    def _display_renderers(self) -> Renderers:  # pragma: no cover - every kind defines it
        """Each format's renderer; they share one computation, done only when one is called."""
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return self._display_renderers()["text/html"]()

    def _repr_markdown_(self) -> str:
        return self._display_renderers()["text/markdown"]()

    def _repr_latex_(self) -> str | None:
        """LaTeX for Jupyter, only when ``cvreport.options.display.latex`` is on."""
        if not get_option("display.latex"):
            return None
        render = self._display_renderers().get("text/latex")
        return None if render is None else render()

    def _repr_mimebundle_(
        self,
        include: Collection[str] | None = None,
        exclude: Collection[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, str] | None:
        """Every rich format for one Jupyter display from one shared computation.

        A subclass that overrides ``_repr_html_``, ``_repr_markdown_`` or
        ``_repr_latex_`` keeps its own methods: IPython then falls back to them.
        """
        cls = type(self)
        if any(getattr(cls, name) is not getattr(RichDisplay, name) for name in _REPR_METHODS):
            return None
        return _bundle(self._display_renderers(), include, exclude)


class SummaryDisplay(RichDisplay):
    """Rich display from ``self.summary()``, called once a display."""

    def summary(self) -> Summary:  # pragma: no cover - every user defines it
        raise NotImplementedError

    def _display_renderers(self) -> Renderers:
        return _summary_renderers(cache(self.summary))


class ReportDisplay(RichDisplay):
    """Rich display of a report: its HTML fragment, its Markdown, and its LaTeX if it has one."""

    def _display_renderers(self) -> Renderers:
        renderers: Renderers = {
            "text/html": lambda: self.to_html(standalone=False),  # type: ignore[attr-defined]
            "text/markdown": lambda: self.to_markdown(),  # type: ignore[attr-defined]
        }
        to_latex = getattr(self, "to_latex", None)
        if to_latex is not None:
            renderers["text/latex"] = lambda: to_latex(standalone=False)
        return renderers
