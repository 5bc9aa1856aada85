"""An ipywidgets explorer of a results table: pick models, tests, α and format; save the report.

:func:`explore` returns an :class:`Explorer`, a small application whose report
region re-renders on every change of its controls. The controls are plain
attributes (``app.model_a``, ``app.alpha`` …) so that code and tests can set
``.value`` directly, without a browser or a kernel. ipywidgets is imported only
when an explorer is built, so ``import cvreport`` needs no front end.

The statistics come from :class:`cvreport.reporting.report.Report`; this module only
wires controls to it (see :mod:`cvreport.reporting.report` for what a report contains and
:mod:`cvreport.methods.registry` for the paper behind each test and recommendation).
"""

from __future__ import annotations

import html
import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvreport.data.direction import check_direction
from cvreport.data.table import ResultsTable
from cvreport.errors import CVReportError, describe_keys
from cvreport.methods.registry import specs_for
from cvreport.option_values import check_alpha
from cvreport.reporting.analyse import normalise_tests
from cvreport.reporting.report import CORRECTIONS, Report

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable
    from cvreport.reporting.report import Report

__all__ = ["FORMATS", "Explorer", "explore"]

FORMATS: dict[str, str] = {"html": ".html", "markdown": ".md", "latex": ".tex"}
"""Output formats the explorer shows, with the file suffix each saves to."""

TEST_SETS = ("recommended", "all", "selected")
"""How the tests are chosen: the design's recommended tests, every applicable test, or a list."""


class Explorer:
    """An interactive report on one :class:`~cvreport.data.table.ResultsTable`.

    Build it with :func:`explore`. Every control is an attribute; setting its
    ``value`` (in the browser or in code) re-renders :attr:`output`.

    Attributes
    ----------
    model_a, model_b : ipywidgets.Dropdown
        The pair to compare (A − B); ignored when :attr:`all_pairs` is ticked.
    all_pairs : ipywidgets.Checkbox
        Compare every pair of models (the report adjusts p-values for multiplicity).
    test_set : ipywidgets.ToggleButtons
        ``"recommended"``, ``"all"`` or ``"selected"`` (then :attr:`tests` applies).
    tests : ipywidgets.SelectMultiple
        The tests to run when :attr:`test_set` is ``"selected"``; choosing tests
        switches :attr:`test_set` to ``"selected"``.
    alpha : ipywidgets.BoundedFloatText
        The significance level α.
    correction : ipywidgets.Dropdown
        The multiplicity correction (statsmodels ``multipletests`` method).
    output_format : ipywidgets.ToggleButtons
        ``"html"`` (rendered), ``"markdown"`` or ``"latex"`` (source shown verbatim).
    output : ipywidgets.HTML
        The report region.
    path : ipywidgets.Text
        Where :attr:`save_button` writes; without a suffix the chosen format's is added.
    overwrite : ipywidgets.Checkbox
        Allow replacing an existing file.
    save_button : ipywidgets.Button
        Writes the report atomically through :meth:`cvreport.reporting.report.Report.save`.
    status : ipywidgets.HTML
        The outcome of the last save, or the error message.
    widget : ipywidgets.VBox
        The whole application (what Jupyter displays).
    report : Report or None
        The report shown, or None while the choices are invalid (see :attr:`error`).

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> app = Explorer(table, a="naive_bayes", b="decision_tree")
    >>> app.report.pairs
    [('naive_bayes', 'decision_tree')]
    >>> app.output_format.value = "markdown"
    >>> app.output.value.startswith("<pre")
    True
    """

    CACHE_SIZE = 16
    """Reports kept, so that returning to earlier choices recomputes nothing."""

    def __init__(
        self,
        table: ResultsTable,
        *,
        a: Any = None,
        b: Any = None,
        tests: str | Sequence[str] = "recommended",
        alpha: float = 0.05,
        correction: str | None = "holm",
        output_format: str = "html",
        path: str = "report.html",
    ) -> None:
        import ipywidgets as w

        self.table = table
        models = list(table.models)
        if len(models) < 2:
            raise CVReportError(
                f"the explorer compares models, but the table holds only {models!r}; "
                "add the losses of a second model"
            )
        if output_format not in FORMATS:
            raise CVReportError(
                f"output_format must be one of {tuple(FORMATS)}, got {output_format!r}"
            )
        alpha = check_alpha(alpha)
        given = correction
        if isinstance(correction, str):  # as the report reads it: case and spaces aside
            correction = correction.strip().lower()
        if correction is not None and correction not in _corrections():
            raise CVReportError(
                f"unknown correction {given!r}; choose one of {', '.join(_corrections())}"
            )
        if a is not None or b is not None:
            first, second = table.resolve_pair(a, b)
        else:
            first, second = models[0], models[1]

        available = _available_tests(table)
        tests = normalise_tests(tests)  # read as the report reads them
        chosen: tuple[str, ...] = () if isinstance(tests, str) else tests
        unknown = [t for t in chosen if t not in available]
        if unknown:
            raise CVReportError(
                f"unknown or inapplicable tests {unknown!r}; for this design choose from "
                f"{list(available)!r}"
            )

        labelled = [(str(model), model) for model in models]
        self.model_a = w.Dropdown(options=labelled, value=first, description="Model A")
        self.model_b = w.Dropdown(options=labelled, value=second, description="Model B")
        self.all_pairs = w.Checkbox(
            value=len(models) > 2 and a is None and b is None,
            description="all pairs",
            indent=False,
        )
        self.test_set = w.ToggleButtons(
            options=list(TEST_SETS),
            value="selected" if chosen else str(tests),
            description="Tests",
        )
        self.tests = w.SelectMultiple(
            options=[(label, name) for name, label in available.items()],
            value=chosen,
            rows=min(8, max(len(available), 1)),
        )
        # the control's bounds hold the α given, so the explorer never silently changes it
        self.alpha = w.BoundedFloatText(
            value=alpha,
            min=min(0.0001, float(alpha)),
            max=max(0.5, float(alpha)),
            step=0.01,
            description="α",
        )
        self.correction = w.Dropdown(
            options=list(_corrections()), value=correction or "none", description="Correction"
        )
        self.output_format = w.ToggleButtons(
            options=list(FORMATS), value=output_format, description="Format"
        )
        self.output = w.HTML(value="")
        self.path = w.Text(value=path, description="Save to")
        self.overwrite = w.Checkbox(value=False, description="overwrite", indent=False)
        self.save_button = w.Button(description="Save report", icon="save")
        self.status = w.HTML(value="")

        self.widget = w.VBox(
            [
                w.HBox([self.model_a, self.model_b, self.all_pairs]),
                w.HBox([self.test_set, self.tests]),
                w.HBox([self.alpha, self.correction]),
                self.output_format,
                self.output,
                w.HBox([self.path, self.overwrite, self.save_button]),
                self.status,
            ]
        )

        self._cache: dict[tuple[Any, ...], Report] = {}
        self.report: Report | None = None
        """The report currently shown (None while the choices are invalid)."""
        self.error: str | None = None
        """The message shown instead of a report, if any."""

        for control in (
            self.model_a,
            self.model_b,
            self.all_pairs,
            self.test_set,
            self.alpha,
            self.correction,
            self.output_format,
        ):
            control.observe(self._on_change, names="value")
        self.tests.observe(self._on_tests, names="value")
        self.save_button.on_click(self._on_save)
        self._sync_enabled()
        self.refresh()

    # -- what the controls mean ------------------------------------------
    @property
    def pairs(self) -> list[tuple[str, str]] | None:
        """The pairs passed to the report: None (all pairs) or ``[(A, B)]``."""
        if self.all_pairs.value:
            return None
        return [(self.model_a.value, self.model_b.value)]

    @property
    def chosen_tests(self) -> str | list[str]:
        """The ``tests`` argument passed to the report."""
        if self.test_set.value == "selected":
            return list(self.tests.value)
        return str(self.test_set.value)

    # -- rendering -------------------------------------------------------
    def build_report(self) -> Report:
        """The report for the current choices (cached, so a format change recomputes nothing)."""
        pairs = self.pairs
        if pairs is not None and pairs[0][0] == pairs[0][1]:
            raise CVReportError(
                f"model A and model B are both {pairs[0][0]!r}; choose two different models "
                "or tick 'all pairs'"
            )
        tests = self.chosen_tests
        if not tests:
            raise CVReportError(
                "no test selected; pick at least one test or choose 'recommended' or 'all'"
            )
        key = (
            None if pairs is None else tuple(pairs),
            tests if isinstance(tests, str) else tuple(tests),
            float(self.alpha.value),
            self.correction.value,
        )
        report = self._cache.get(key)
        if report is None:
            report = Report(
                self.table,
                pairs=pairs,
                tests=tests,
                alpha=float(self.alpha.value),
                correction=self.correction.value,
            )
            self._cache[key] = report
            while len(self._cache) > self.CACHE_SIZE:
                self._cache.pop(next(iter(self._cache)))
        return report

    def render(self, report: Report) -> str:
        """The report as the HTML the report region shows, in the chosen format."""
        fmt = self.output_format.value
        if fmt == "html":
            return _report_fragment(report)
        source = report.to_markdown() if fmt == "markdown" else report.to_latex()
        return f'<pre class="cvreport-source">{html.escape(source)}</pre>'

    def refresh(self) -> None:
        """Re-render the report region from the current control values."""
        try:
            report = self.build_report()
            shown = self.render(report)
        except CVReportError as exc:
            self.report = None
            self.error = str(exc)
            self.output.value = _message(self.error, "error")
            return
        self.report = report
        self.error = None
        self.output.value = shown

    # -- saving ----------------------------------------------------------
    def target_path(self) -> Path:
        """The file :meth:`save` writes: :attr:`path`, with the format's suffix if it has none."""
        text = str(self.path.value).strip()
        if not text:
            raise CVReportError("type a file name into 'Save to', e.g. report.html")
        target = Path(text).expanduser()
        if not target.suffix:
            target = target.with_suffix(FORMATS[self.output_format.value])
        return target

    def save(self) -> Path | None:
        """Save the current report; the outcome (or the error) is shown in :attr:`status`.

        Returns the path written, or None when nothing was written.
        """
        try:
            if self.report is None:
                raise CVReportError(f"nothing to save: {self.error or 'no report yet'}")
            target = self.target_path()
            path = Path(self.report.save(target, overwrite=bool(self.overwrite.value)))
        except (CVReportError, OSError) as exc:
            self.status.value = _message(_describe_error(exc), "error")
            return None
        self.status.value = _message(f"Saved the report to {path}", "ok")
        return path

    # -- callbacks -------------------------------------------------------
    def _on_change(self, change: dict[str, Any]) -> None:
        self._sync_enabled()
        self.refresh()

    def _on_tests(self, change: dict[str, Any]) -> None:
        if change["new"] and self.test_set.value != "selected":
            self.test_set.value = "selected"  # re-renders through _on_change
            return
        self.refresh()

    def _on_save(self, button: Any) -> None:
        self.save()

    def _sync_enabled(self) -> None:
        self.model_a.disabled = self.model_b.disabled = bool(self.all_pairs.value)

    # -- display ---------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        pairs = (
            "all pairs" if self.all_pairs.value else f"{self.model_a.value} vs {self.model_b.value}"
        )
        return (
            f"Explorer({pairs}, tests={self.chosen_tests!r}, alpha={self.alpha.value}, "
            f"correction={self.correction.value!r}, format={self.output_format.value!r})"
        )


def explore(
    table: ResultsTable | str,
    data: pd.DataFrame | None = None,
    *,
    direction: str | None = None,
    **options: Any,
) -> Explorer:
    """Open an interactive report on ``table`` in a notebook.

    Parameters
    ----------
    table : ResultsTable or str
        The results, or a formula such as ``"loss ~ model | replication + fold"``
        together with ``data``.
    data : pandas.DataFrame, optional
        The long-format losses when ``table`` is a formula.
    direction : {"lower", "higher"}, optional
        Which way is better for the formula's left side, as in
        :meth:`~cvreport.data.table.ResultsTable.from_formula` (default: from its name,
        else a loss). For a table, it must agree with ``table.metric.direction``.
    **options
        Initial choices: ``a``, ``b``, ``tests``, ``alpha``, ``correction``,
        ``output_format`` (``"html"``, ``"markdown"``, ``"latex"``) and ``path``.

    Returns
    -------
    Explorer
        Displays itself; its controls are attributes (``app.alpha.value = 0.01``).

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> app = cvreport.explore(table)
    >>> app.alpha.value = 0.01          # the report region re-renders
    >>> "0.01" in app.output.value
    True
    """
    direction = check_direction(direction)
    if isinstance(table, str):
        if data is None:
            raise CVReportError(f"the formula {table!r} needs data=, the long-format results")
        table = ResultsTable.from_formula(table, data, direction=direction)  # type: ignore[arg-type]
    elif not isinstance(table, ResultsTable):
        raise CVReportError(
            f"explore() opens one table of results, got a {type(table).__name__}; for many "
            "data sets display cvreport.DatasetsReport(table) in the notebook, or explore one "
            "data set's table (table.tables[name])"
        )
    elif direction is not None and direction != table.metric.direction:
        raise CVReportError(
            f"the table reads {table.metric.name!r} with direction={table.metric.direction!r}; "
            f"rebuild it with direction={direction!r} (ResultsTable.from_formula(..., "
            f"direction={direction!r})) instead of passing it here"
        )
    unknown = sorted(set(options) - _EXPLORER_OPTIONS)
    if unknown:
        raise CVReportError(
            f"explore() has no option {describe_keys(unknown)}; its options are "
            f"{describe_keys(sorted(_EXPLORER_OPTIONS), 10)}"
        )
    return Explorer(table, **options)


_EXPLORER_OPTIONS = frozenset(inspect.signature(Explorer.__init__).parameters) - {"self", "table"}
"""The keyword options of :class:`Explorer` that :func:`explore` passes on."""


def _available_tests(table: ResultsTable) -> dict[str, str]:
    """The tests that fit the table's design: function name -> the name the reports give it."""
    specs = specs_for(table.design.kind, binary=table.is_binary, per_record=table.per_record)
    return {spec.name: spec.method for spec in specs}


def _corrections() -> tuple[str, ...]:
    return tuple(CORRECTIONS)


def _report_fragment(report: Report) -> str:
    return report.to_html(standalone=False)


def _describe_error(exc: BaseException) -> str:
    if isinstance(exc, FileExistsError):
        name = exc.filename or (exc.args[0] if exc.args else "the file")
        return f"{name} exists; tick 'overwrite' to replace it"
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename}" if exc.filename else ""
        return f"could not write the report ({exc.strerror}{where})"
    return str(exc)


def _message(text: str, kind: str) -> str:
    return f'<p class="cvreport-{kind}">{html.escape(text)}</p>'
