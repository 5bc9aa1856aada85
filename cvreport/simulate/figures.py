"""Inline SVG power curves: rejection rate against a scenario parameter, one line per test.

Drawn as plain markup (no display, no plotting library), in the style of
:mod:`cvreport.rendering.figures`: an accessible ``<svg role="img">`` with ``<title>`` and
``<desc>``, every point carrying its exact value in a ``<title>``, colours from
CSS classes with presentation attributes as a fallback, every text XML-escaped.
Lines differ in dash pattern as well as colour, so the figure reads in black
and white.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"test": ["t"] * 3, "design": ["10-fold"] * 3,
...                       "parameter": [0.0, 0.1, 0.2], "rate": [0.05, 0.4, 0.9],
...                       "se": [0.01, 0.02, 0.01], "reps": [500] * 3})
>>> svg = power_curve_plot(frame, alpha=0.05, parameter="delta")
>>> svg.startswith("<svg") and "α = 0.05" in svg and "delta" in svg
True
"""

from __future__ import annotations

import pandas as pd

from cvreport.rendering.figures import _svg_open, _x, nice_ticks
from cvreport.rendering.formatting import format_number

__all__ = ["PALETTE", "power_curve_plot"]

#: Colour-blind-safe palette (Okabe–Ito without its pale yellow, then Tol's wine and teal).
PALETTE = (
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#000000",
    "#999999",
    "#882255",
    "#44aa99",
)
DASHES = ("", "6 3", "2 3", "8 3 2 3", "1 2", "10 4")


def _tick(value: float) -> str:
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text.replace("-", "−")


def power_curve_plot(
    frame: pd.DataFrame,
    *,
    alpha: float,
    parameter: str = "parameter",
    title: str = "Rejection rate against the scenario parameter",
    labels: dict[tuple[str, str], str] | None = None,
    figure_id: str = "cvr-power",
    width: int = 680,
) -> str:
    """Rejection rate of every (test, design) against the parameter, with α and 95% bands.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`~cvreport.simulate.power_curve` (columns ``test, design,
        parameter, rate, se``).
    alpha : float
        Drawn as a dashed horizontal line.
    parameter : str
        Name of the swept parameter (axis label).
    title : str
        Figure title.
    labels : dict, optional
        Legend label of each ``(test, design)``; default ``"test (design)"``.
    figure_id : str
        Unique id within the page.
    width : int
        Width in pixels.

    Returns
    -------
    str
        ``<svg>`` markup.
    """
    groups = list(frame.groupby(["test", "design"], sort=False))
    xs = frame["parameter"].astype(float)
    low, high = float(xs.min()), float(xs.max())
    if high - low < 1e-12:
        low, high = low - 0.5, high + 0.5
    ticks = [t for t in nice_ticks(low, high, 6) if low - 1e-9 <= t <= high + 1e-9]
    legend_rows = (len(groups) + 1) // 2
    left, right, top = 56, 20, 40
    plot_height = 260
    legend_top = top + plot_height + 50
    height = legend_top + legend_rows * 18 + 12
    plot_width = width - left - right

    def sx(v: float) -> float:
        return left + (v - low) / (high - low) * plot_width

    def sy(rate: float) -> float:
        return top + (1.0 - min(max(rate, 0.0), 1.0)) * plot_height

    desc = (
        f"Rejection rates of {len(groups)} test and design combinations at "
        f"{xs.nunique()} values of {parameter} from {format_number(low)} to "
        f"{format_number(high)}, with a dashed line at α = {alpha:g}. Under H0 a "
        "well-calibrated test stays near α; under an effect its curve should rise towards 1."
    )
    out = _svg_open(figure_id, width, height, title, desc)
    out.append(
        f'<text class="cvr-fig-title" x="{left}" y="18" font-weight="600" '
        f'fill="currentColor">{_x(title)}</text>'
    )
    for rate in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = sy(rate)
        out.append(
            f'<line class="cvr-grid" x1="{left}" x2="{left + plot_width}" y1="{y:.1f}" '
            f'y2="{y:.1f}" stroke="#6b7280" stroke-opacity="0.25"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
            f'fill="currentColor">{_x(_tick(rate))}</text>'
        )
    for t in ticks:
        x = sx(t)
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + plot_height}" '
            f'y2="{top + plot_height + 4}" stroke="currentColor"/>'
            f'<text x="{x:.1f}" y="{top + plot_height + 17}" text-anchor="middle" '
            f'font-size="11" fill="currentColor">{_x(_tick(t))}</text>'
        )
    out.append(
        f'<line class="cvr-axis" x1="{left}" x2="{left + plot_width}" y1="{top + plot_height}" '
        f'y2="{top + plot_height}" stroke="currentColor"/>'
        f'<line class="cvr-axis" x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_height}" '
        f'stroke="currentColor"/>'
        f'<text x="{left + plot_width / 2:.1f}" y="{top + plot_height + 34}" '
        f'text-anchor="middle" font-size="11" fill="currentColor">{_x(parameter)}</text>'
        f'<text x="14" y="{top + plot_height / 2:.1f}" text-anchor="middle" font-size="11" '
        f'fill="currentColor" transform="rotate(-90 14 {top + plot_height / 2:.1f})">'
        "rejection rate</text>"
    )
    ya = sy(alpha)
    out.append(
        f'<line class="cvr-alpha" x1="{left}" x2="{left + plot_width}" y1="{ya:.1f}" '
        f'y2="{ya:.1f}" stroke="#b91c1c" stroke-width="1.2" stroke-dasharray="5 3">'
        f"<title>α = {alpha:g}</title></line>"
        f'<text x="{left + plot_width - 4}" y="{ya - 4:.1f}" text-anchor="end" font-size="11" '
        f'fill="currentColor">α = {alpha:g}</text>'
    )
    column_width = plot_width / 2
    for index, ((test, design), group) in enumerate(groups):
        colour = PALETTE[index % len(PALETTE)]
        dash = DASHES[(index // 2) % len(DASHES)] if len(groups) > 1 else ""
        label = (labels or {}).get((str(test), str(design)), f"{test} ({design})")
        group = group.sort_values("parameter")
        points = " ".join(
            f"{sx(float(p)):.1f},{sy(float(r)):.1f}"
            for p, r in zip(group["parameter"], group["rate"])
        )
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<g class="cvr-curve" data-test="{_x(test)}" data-design="{_x(design)}">')
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"'
            f"{dash_attr}><title>{_x(label)}</title></polyline>"
        )
        for p, r, s in zip(group["parameter"], group["rate"], group["se"]):
            x, y = sx(float(p)), sy(float(r))
            y_low, y_high = sy(float(r) - 1.96 * float(s)), sy(float(r) + 1.96 * float(s))
            out.append(
                f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y_low:.1f}" y2="{y_high:.1f}" '
                f'stroke="{colour}" stroke-opacity="0.6"/>'
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}">'
                f"<title>{_x(label)}: {_x(parameter)} = {_x(_tick(float(p)))}, rate "
                f"{_x(format_number(float(r), 3))} ± {_x(format_number(1.96 * float(s), 3))}"
                "</title></circle>"
            )
        out.append("</g>")
        lx = left + (index % 2) * column_width
        ly = legend_top + (index // 2) * 18
        out.append(
            f'<g class="cvr-legend" font-size="11" fill="currentColor">'
            f'<line x1="{lx:.1f}" x2="{lx + 22:.1f}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="2"{dash_attr}/>'
            f'<text x="{lx + 28:.1f}" y="{ly}">{_x(label)}</text></g>'
        )
    out.append("</svg>")
    return "\n".join(out)
