"""Inline SVG figures for reports, drawn as plain markup (no display, no plotting library).

Two pictures:

- :func:`difference_plot`: per pair of models, every per-fold loss difference
  A − B as a dot (one row per replication), the zero line, the mean and,
  where the test defines one, its interval;
- :func:`pvalue_plot`: the p-value of every test against α on a log scale.

Each figure is an accessible ``<svg role="img">`` with a ``<title>`` and a
``<desc>`` that says in words what it shows, and every dot carries its own
``<title>`` with the exact value. Colours come from CSS classes (so the page can
switch them for dark mode) with presentation attributes as a fallback. Every
piece of text is XML-escaped here; the markup is safe to insert unescaped.

Examples
--------
>>> svg = difference_plot([[0.02, -0.01], [0.03, 0.0]], title="A vs B", mean=0.01)
>>> svg.startswith("<svg") and "<title" in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np

from cvreport.option_values import check_alpha
from cvreport.rendering.formatting import (
    format_number,
    format_pvalue,
    pvalue_equals,
    strip_xml_forbidden,
)

__all__ = ["PValuePoint", "difference_plot", "nice_ticks", "pvalue_plot"]

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
CHAR_WIDTH = 7.2  # approximate width of one character at font-size 12, for layout only
COLOURS = {"accent": "#1d4ed8", "muted": "#6b7280", "band": "#93c5fd", "reject": "#b91c1c"}
#: Pixels between a p-value plot's row label and its axis: room for the "<" that marks
#: a p-value below the axis, so that the mark never runs into the label.
OFF_SCALE_ROOM = 22


def _x(text: Any) -> str:
    """Escape text for XML content and attribute values, without the characters XML forbids."""
    return escape(strip_xml_forbidden(str(text)), quote=True)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick positions (1, 2 or 5 times a power of ten) covering ``[low, high]``.

    >>> nice_ticks(-0.03, 0.05)
    [-0.04, -0.02, 0.0, 0.02, 0.04, 0.06]
    """
    if not high > low:
        high = low + 1.0
    raw = (high - low) / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(i * step, 12) + 0.0 for i in range(first, last + 1)]


def _truncate(text: str, width: float) -> str:
    limit = max(int(width / CHAR_WIDTH), 4)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _svg_open(figure_id: str, width: int, height: int, title: str, desc: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="cvr-figure" id="{_x(figure_id)}" '
        f'role="img" aria-labelledby="{_x(figure_id)}-title {_x(figure_id)}-desc" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="{_x(FONT)}" font-size="12" style="max-width:100%;height:auto">',
        f'<title id="{_x(figure_id)}-title">{_x(title)}</title>',
        f'<desc id="{_x(figure_id)}-desc">{_x(desc)}</desc>',
    ]


def difference_plot(
    differences: Any,
    *,
    title: str,
    mean: float | None = None,
    interval: tuple[float, float] | None = None,
    interval_label: str = "interval",
    row_labels: Sequence[Any] | None = None,
    column_labels: Sequence[Any] | None = None,
    xlabel: str = "loss difference A − B (positive: A has the higher loss)",
    figure_id: str = "cvr-diff",
    width: int = 640,
    measure: str = "mean loss",
    right_of_zero: str = "model A had the higher loss",
) -> str:
    """Dot plot of per-fold differences A − B in the user's metric, one row per replication.

    Parameters
    ----------
    differences : array-like of shape (m, K)
        ``p_i^(j)``: mean loss of A minus mean loss of B on fold j of replication i
        (``ResultsTable.differences(a, b)``). NaN cells are left out.
    title : str
        Figure title (also read out by screen readers).
    mean : float, optional
        Drawn as a solid vertical line.
    interval : (float, float), optional
        Drawn as a shaded band, labelled ``interval_label``.
    row_labels, column_labels : sequences, optional
        Replication and fold labels (shown on the rows and in each dot's tooltip).
    xlabel : str
        Axis label.
    figure_id : str
        Unique id within the page (prefix of the ``<title>``/``<desc>`` ids).
    measure : str
        What each fold's value is, for the accessible description ("roc_auc").
    right_of_zero : str
        What a point right of zero means, in the user's metric and direction
        ("A had the higher roc_auc (higher is better)").

    Returns
    -------
    str
        ``<svg>`` markup.
    """
    values = np.asarray(getattr(differences, "to_numpy", lambda: differences)(), dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    framed = hasattr(differences, "columns") and hasattr(differences, "index")  # a DataFrame
    if row_labels is None:
        row_labels = list(differences.index) if framed else list(range(1, values.shape[0] + 1))
    if column_labels is None:
        column_labels = list(differences.columns) if framed else list(range(1, values.shape[1] + 1))
    m, k = values.shape
    finite = values[np.isfinite(values)]
    # many replications of one fold each (repeated hold-out) read better as one strip
    strip = m > 20 or (k == 1 and m > 1)
    rows = 1 if strip else m
    unit = "split" if k == 1 and m > 1 else "fold"  # a repeated hold-out validates on splits

    extent = [0.0, *finite.tolist()]
    if mean is not None and math.isfinite(mean):
        extent.append(mean)
    if interval is not None:
        extent.extend(v for v in interval if math.isfinite(v))
    low, high = min(extent), max(extent)
    if high - low < 1e-12:
        low, high = low - 0.01, high + 0.01
    pad = 0.06 * (high - low)
    ticks = nice_ticks(low - pad, high + pad)
    low, high = min(ticks[0], low - pad), max(ticks[-1], high + pad)

    left, right, top = 96, 24, 44
    # the interval's legend names its test in full: on a second line when the first is full
    band_x = left + 120 + (64 if mean is not None and math.isfinite(mean) else 0)
    band_width = 18 + len(interval_label) * CHAR_WIDTH * 11 / 12
    band_own_line = interval is not None and band_x + band_width > width - right
    if band_own_line:
        top += 16
    row_height = 26 if rows <= 10 else 18
    plot_height = rows * row_height
    height = top + plot_height + 52
    plot_width = width - left - right

    def sx(v: float) -> float:
        return left + (v - low) / (high - low) * plot_width

    n_points = int(finite.size)
    desc = (
        f"{n_points} per-{unit} differences in {measure} between the two models"
        f"{'' if strip or m == 1 else f', one row per replication ({m} rows)'}; "
        f"{'mean ' + format_number(mean) if mean is not None else 'no mean'}"
        + (
            f", {interval_label} from {format_number(interval[0])} to {format_number(interval[1])}"
            if interval is not None
            else ""
        )
        + f". Points right of the dashed zero line are {unit}s where {right_of_zero}."
    )
    out = _svg_open(figure_id, width, height, title, desc)
    out.append(
        f'<text class="cvr-fig-title" x="{left}" y="18" font-weight="600" '
        f'fill="currentColor">{_x(_truncate(title, width - left))}</text>'
    )
    # legend
    legend_y = 34
    legend = ['<g class="cvr-legend" font-size="11" fill="currentColor">']
    lx = left
    legend.append(
        f'<circle class="cvr-dot" cx="{lx + 4}" cy="{legend_y - 4}" r="4" '
        f'fill="{COLOURS["accent"]}"/><text x="{lx + 12}" y="{legend_y}">{unit} difference</text>'
    )
    lx += 120
    if mean is not None and math.isfinite(mean):
        legend.append(
            f'<line class="cvr-mean" x1="{lx}" x2="{lx + 14}" y1="{legend_y - 4}" '
            f'y2="{legend_y - 4}" stroke="currentColor" stroke-width="2"/>'
            f'<text x="{lx + 18}" y="{legend_y}">mean</text>'
        )
        lx += 64
    if interval is not None:
        if band_own_line:  # a line of its own, from the row labels' edge: the test's full name
            lx, legend_y = 12, legend_y + 16
        legend.append(
            f'<rect class="cvr-band" x="{lx}" y="{legend_y - 9}" width="14" height="10" '
            f'fill="{COLOURS["band"]}" fill-opacity="0.45"/>'
            f'<text x="{lx + 18}" y="{legend_y}">'
            f"{_x(_truncate(interval_label, (width - lx - 18) * 12 / 11))}</text>"
        )
    legend.append("</g>")
    out.extend(legend)

    y0, y1 = top, top + plot_height
    if interval is not None:
        a, b = sorted(interval)
        a, b = max(a, low), min(b, high)
        out.append(
            f'<rect class="cvr-band" x="{sx(a):.1f}" y="{y0}" width="{max(sx(b) - sx(a), 1):.1f}" '
            f'height="{plot_height}" fill="{COLOURS["band"]}" fill-opacity="0.45">'
            f"<title>{_x(interval_label)}: {_x(format_number(interval[0]))} to "
            f"{_x(format_number(interval[1]))}</title></rect>"
        )
    # row guides and labels
    for r in range(rows):
        cy = y0 + (r + 0.5) * row_height
        out.append(
            f'<line class="cvr-grid" x1="{left}" x2="{width - right}" y1="{cy:.1f}" '
            f'y2="{cy:.1f}" stroke="{COLOURS["muted"]}" stroke-opacity="0.25"/>'
        )
        label = "all folds" if strip else f"rep {row_labels[r]}"
        out.append(
            f'<text x="{left - 8}" y="{cy + 4:.1f}" text-anchor="end" fill="currentColor">'
            f"{_x(_truncate(label, left - 12))}</text>"
        )
    # zero line
    out.append(
        f'<line class="cvr-zero" x1="{sx(0):.1f}" x2="{sx(0):.1f}" y1="{y0 - 4}" y2="{y1 + 4}" '
        f'stroke="{COLOURS["muted"]}" stroke-dasharray="4 3"/>'
    )
    # dots
    for i in range(m):
        for j in range(k):
            v = values[i, j]
            if not math.isfinite(v):
                continue
            if strip:
                index = i * k + j
                offset = ((index * 0.618034) % 1.0 - 0.5) * (row_height - 8)
                cy = y0 + 0.5 * row_height + offset
            else:
                offset = (j - (k - 1) / 2) * min(6.0, (row_height - 10) / max(k - 1, 1))
                cy = y0 + (i + 0.5) * row_height + offset
            out.append(
                f'<circle class="cvr-dot" data-value="{_x(format_number(v))}" cx="{sx(v):.1f}" '
                f'cy="{cy:.1f}" r="4" fill="{COLOURS["accent"]}" fill-opacity="0.85">'
                f"<title>replication {_x(row_labels[i])}, fold {_x(column_labels[j])}: "
                f"{_x(format_number(v))}</title></circle>"
            )
    if mean is not None and math.isfinite(mean):
        out.append(
            f'<line class="cvr-mean" x1="{sx(mean):.1f}" x2="{sx(mean):.1f}" y1="{y0 - 4}" '
            f'y2="{y1 + 4}" stroke="currentColor" stroke-width="2">'
            f"<title>mean: {_x(format_number(mean))}</title></line>"
        )
    # axis
    out.append(
        f'<line class="cvr-axis" x1="{left}" x2="{width - right}" y1="{y1 + 6}" y2="{y1 + 6}" '
        f'stroke="currentColor"/>'
    )
    for t in ticks:
        if t < low - 1e-12 or t > high + 1e-12:
            continue
        out.append(
            f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{y1 + 6}" y2="{y1 + 10}" '
            f'stroke="currentColor"/><text x="{sx(t):.1f}" y="{y1 + 23}" text-anchor="middle" '
            f'font-size="11" fill="currentColor">{_x(_tick_label(t))}</text>'
        )
    out.append(
        f'<text x="{left + plot_width / 2:.1f}" y="{height - 8}" text-anchor="middle" '
        f'font-size="11" fill="currentColor">{_x(_truncate(xlabel, plot_width))}</text>'
    )
    out.append("</svg>")
    return "\n".join(out)


def _tick_label(value: float) -> str:
    if value == 0:
        return "0"
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text.replace("-", "−")


@dataclass(frozen=True)
class PValuePoint:
    """One test's p-value for the p-value chart.

    ``adjusted`` is the multiplicity-adjusted p-value, when there is one;
    ``reject`` the decision at α the report states.
    """

    label: str
    pvalue: float
    adjusted: float | None = None
    reject: bool = False
    group: str | None = None


def pvalue_plot(
    points: Sequence[PValuePoint],
    *,
    alpha: float,
    title: str = "p-values against α",
    figure_id: str = "cvr-pvalues",
    width: int = 760,
    floor: float = 1e-4,
) -> str:
    """Every test's p-value on a log scale with a vertical line at α.

    p-values below ``floor`` are drawn at the floor with a ``<`` mark. Filled dots
    are tests whose decision rejects H0 at α; hollow dots do not (so the
    decision is readable without colour). Adjusted p-values, when given, are
    diamonds joined to the raw p-value.

    Examples
    --------
    >>> svg = pvalue_plot([PValuePoint("F test", 0.02, reject=True)], alpha=0.05)
    >>> "α = 0.05" in svg
    True
    """
    alpha = check_alpha(alpha)
    floor = min(floor, alpha / 10)
    log_low = math.floor(math.log10(floor))
    # one row per point, plus a heading row where the group changes
    layout: list[tuple[str, Any]] = []
    current: str | None = None
    for point in points:
        if point.group is not None and point.group != current:
            layout.append(("group", point.group))
            current = point.group
        layout.append(("point", point))
    label_width = 290
    left, right, top = label_width + 12, 72, 46
    row_height = 24
    rows = max(len(layout), 1)
    plot_height = rows * row_height
    height = top + plot_height + 50
    plot_width = width - left - right

    def sx(p: float) -> float:
        p = min(max(p, 10.0**log_low), 1.0)
        return left + (math.log10(p) - log_low) / (0 - log_low) * plot_width

    n_reject = sum(point.reject for point in points)
    axis = (
        f"on a logarithmic axis from {format_pvalue(10.0**log_low, digits=-log_low)} to 1, "
        f"with a vertical line at α = {alpha:g}"
    )
    if len(points) == 1:
        where = "at or left of the line (reject H0)" if n_reject else "right of the line"
        desc = f"The p-value of 1 test {axis}; it lies {where}."
    else:
        verb = "lies" if n_reject == 1 else "lie"
        desc = (
            f"p-values of {len(points)} tests {axis}; {n_reject} of them {verb} at or left "
            "of the line (reject H0)."
        )
    out = _svg_open(figure_id, width, height, title, desc)
    out.append(
        f'<text class="cvr-fig-title" x="12" y="18" font-weight="600" fill="currentColor">'
        f"{_x(_truncate(title, width - 24))}</text>"
    )
    ly = 36
    out.append(
        f'<g class="cvr-legend" font-size="11" fill="currentColor">'
        f'<circle class="cvr-dot-reject" cx="{left + 4}" cy="{ly - 4}" r="4.5" '
        # the dots show the decision, which an adjusted p-value may reverse: a raw p ≤ α
        # whose adjusted p is above α is a hollow dot left of the line
        f'fill="{COLOURS["reject"]}"/><text x="{left + 12}" y="{ly}">rejects at α</text>'
        f'<circle class="cvr-dot-keep" cx="{left + 100}" cy="{ly - 4}" r="4.5" fill="none" '
        f'stroke="currentColor" stroke-width="1.5"/>'
        f'<text x="{left + 108}" y="{ly}">does not reject</text>'
        + (
            f'<path class="cvr-adjusted" d="M{left + 215},{ly - 9} l5,5 l-5,5 l-5,-5 z" '
            f'fill="none" stroke="currentColor"/><text x="{left + 225}" y="{ly}">adjusted p</text>'
            if any(point.adjusted is not None for point in points)
            else ""
        )
        + "</g>"
    )
    y0, y1 = top, top + plot_height
    # decades
    for e in range(log_low, 1):
        x = sx(10.0**e)
        out.append(
            f'<line class="cvr-grid" x1="{x:.1f}" x2="{x:.1f}" y1="{y0}" y2="{y1}" '
            f'stroke="{COLOURS["muted"]}" stroke-opacity="0.25"/>'
            f'<text x="{x:.1f}" y="{y1 + 22}" text-anchor="middle" font-size="11" '
            f'fill="currentColor">{_x(_decade_label(e))}</text>'
        )
    xa = sx(alpha)
    out.append(
        f'<line class="cvr-alpha" x1="{xa:.1f}" x2="{xa:.1f}" y1="{y0 - 4}" y2="{y1 + 4}" '
        f'stroke="{COLOURS["reject"]}" stroke-width="1.5" stroke-dasharray="5 3"/>'
        f'<text class="cvr-alpha-label" x="{xa + 4:.1f}" y="{y1 + 36}" font-size="11" '
        f'fill="currentColor">α = {alpha:g}</text>'
    )
    for r, (kind, item) in enumerate(layout):
        cy = y0 + (r + 0.5) * row_height
        if kind == "group":
            out.append(
                f'<text class="cvr-group" x="12" y="{cy + 4:.1f}" font-weight="600" '
                f'fill="currentColor">{_x(_truncate(str(item), width - 24))}</text>'
            )
            continue
        point = item
        indent = 24 if point.group is not None else 12
        out.append(
            f'<line class="cvr-grid" x1="{left}" x2="{left + plot_width}" y1="{cy:.1f}" '
            f'y2="{cy:.1f}" stroke="{COLOURS["muted"]}" stroke-opacity="0.25"/>'
            # the label ends short of the axis: a p-value below the axis is marked "<" between
            f'<text x="{left - OFF_SCALE_ROOM}" y="{cy + 4:.1f}" text-anchor="end" '
            f'fill="currentColor">'
            f"{_x(_truncate(point.label, label_width - indent - OFF_SCALE_ROOM + 10))}"
            f"<title>{_x(point.label)}</title></text>"
        )
        p = float(point.pvalue)
        x = sx(p)
        if point.adjusted is not None and math.isfinite(point.adjusted):
            xadj = sx(point.adjusted)
            out.append(
                f'<line x1="{x:.1f}" x2="{xadj:.1f}" y1="{cy:.1f}" y2="{cy:.1f}" '
                f'stroke="currentColor" stroke-opacity="0.5"/>'
                f'<path class="cvr-adjusted" d="M{xadj:.1f},{cy - 5:.1f} l5,5 l-5,5 l-5,-5 z" '
                f'fill="none" stroke="currentColor"><title>{_x(point.label)}: '
                f"{_x(pvalue_equals(point.adjusted, 'adjusted p'))}</title></path>"
            )
        if point.reject:
            dot = (
                f'<circle class="cvr-dot-reject" cx="{x:.1f}" cy="{cy:.1f}" r="5" '
                f'fill="{COLOURS["reject"]}">'
            )
        else:
            dot = (
                f'<circle class="cvr-dot-keep" cx="{x:.1f}" cy="{cy:.1f}" r="5" fill="none" '
                f'stroke="currentColor" stroke-width="1.5">'
            )
        out.append(f"{dot}<title>{_x(point.label)}: {_x(pvalue_equals(p))}</title></circle>")
        if p < 10.0**log_low:
            out.append(
                f'<text x="{x - 8:.1f}" y="{cy + 4:.1f}" text-anchor="end" fill="currentColor">'
                "&lt;</text>"
            )
        out.append(
            f'<text x="{left + plot_width + 8}" y="{cy + 4:.1f}" font-size="11" '
            f'fill="currentColor">{_x(pvalue_equals(p))}</text>'
        )
    out.append(
        f'<line class="cvr-axis" x1="{left}" x2="{left + plot_width}" y1="{y1 + 6}" '
        f'y2="{y1 + 6}" stroke="currentColor"/>'
    )
    out.append("</svg>")
    return "\n".join(out)


def _decade_label(exponent: int) -> str:
    if exponent >= -3:
        return f"{10.0**exponent:g}"
    return f"1e{exponent}".replace("-", "−")
