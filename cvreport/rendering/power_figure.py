"""Inline SVG of the planned power against the number of replications, one line per test and K.

Drawn as plain markup in the style of :mod:`cvreport.rendering.figures` (whose
building blocks it uses): an accessible ``<svg role="img">`` with ``<title>`` and
``<desc>``, every point carrying its exact value in a ``<title>``, lines that
differ in dash pattern as well as colour, every text XML-escaped. It draws the
numbers :func:`cvreport.planning.curve.power_by_replications` computes and
computes nothing itself.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"test": ["t"] * 3, "label": ["t test"] * 3, "K": [10] * 3,
...                       "design": ["10-fold CV", "2×10 CV", "3×10 CV"], "m": [1, 2, 3],
...                       "power": [0.3, 0.6, 0.85]})
>>> svg = power_figure(frame, target=0.8, effect=0.01, size_tolerance=1.5)
>>> svg.startswith("<svg") and "power 0.8" in svg and "3×10 CV" in svg
True
"""

from __future__ import annotations

import pandas as pd

from cvreport.rendering.figures import _svg_open, _x, nice_ticks
from cvreport.rendering.formatting import format_number

__all__ = ["power_figure"]


def hollow_note(size_tolerance: float) -> str:
    """The note under the legend when some points are hollow."""
    return (
        f"Hollow points: type I error above {size_tolerance:g} α there (rejects too often; not "
        "recommended)."
    )


#: Okabe–Ito colours (colour-blind safe), then black.
COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000")
DASHES = ("", "6 3", "2 3", "8 3 2 3")


def power_figure(
    frame: pd.DataFrame,
    *,
    target: float,
    effect: float,
    size_tolerance: float,
    title: str | None = None,
    measure: str | None = None,
    figure_id: str = "cvr-plan-power",
    width: int = 680,
) -> str:
    """Power against replications, one line per (test, K), with the wanted power dashed.

    Parameters
    ----------
    frame : DataFrame
        Columns ``test, label, K, design, m, power`` and optionally ``holds_level``
        (:func:`cvreport.planning.curve.power_by_replications`): a point whose test
        does not hold its level there is drawn hollow and never ringed.
    target : float
        The wanted power, drawn as a dashed horizontal line; the first design of
        each line that reaches it with a test that holds its level is ringed.
    effect : float
        The difference the powers are computed for (named in the title and description).
    size_tolerance : float
        The multiple of α above which a type I error is "too often"
        (:data:`cvreport.planning.power.SIZE_TOLERANCE`), named in the legend.
    title : str, optional
        Figure title; default names the effect.
    measure : str, optional
        The metric the effect is a difference in, as a reader names it (``"AUC"``);
        the title and description then say "a difference of 0.05 in AUC".
    figure_id : str
        Unique id within the page.
    width : int
        Width in pixels.

    Returns
    -------
    str
        ``<svg>`` markup.
    """
    in_measure = f" in {measure}" if measure else ""
    title = title or f"Power to detect a difference of {effect:g}{in_measure}"
    if "holds_level" not in frame:
        frame = frame.assign(holds_level=True)
    groups = list(frame.groupby(["test", "K"], sort=False))
    over = frame.loc[~frame["holds_level"].astype(bool)]
    low, high = float(frame["m"].min()), float(frame["m"].max())
    if high - low < 1e-12:
        low, high = low - 0.5, high + 0.5
    ticks = [t for t in nice_ticks(low, high, 6) if low - 1e-9 <= t <= high + 1e-9]
    left, right, top, plot_height = 56, 20, 40, 260
    legend_top = top + plot_height + 50
    height = legend_top + ((len(groups) + 1) // 2) * 18 + 12 + (18 if len(over) else 0)
    plot_width = width - left - right

    def sx(value: float) -> float:
        return left + (value - low) / (high - low) * plot_width

    def sy(value: float) -> float:
        return top + (1.0 - min(max(value, 0.0), 1.0)) * plot_height

    reached = [
        f"{group['label'].iloc[0]} at K = {k}: {hit.iloc[0]}"
        for (_, k), group in groups
        if len(hit := group.loc[(group["power"] >= target) & group["holds_level"], "design"])
    ]
    too_often = [
        f"{group['label'].iloc[0]} from {group.loc[~group['holds_level'], 'design'].iloc[0]}"
        for (_, k), group in groups
        if not group["holds_level"].all()
    ]
    hollow = (
        "Hollow points: the test rejects a true null too often there (type I error under "
        f"the model above {size_tolerance:g} α), so its power there is not recommended"
    )
    desc = (
        f"Power of {len(groups)} test and fold-count combinations to detect a difference of "
        f"{format_number(effect)}{in_measure}, for {low:g} to {high:g} "
        f"replications, with a dashed line at power {target:g}. "
        + (
            "The first designs that reach it with a test that holds its level: "
            + "; ".join(reached)
            + "."
            if reached
            else "No line reaches it with a test that holds its level."
        )
        + (f" {hollow}: {'; '.join(too_often)}." if too_often else "")
    )
    out = _svg_open(figure_id, width, height, title, desc)
    out.append(
        f'<text class="cvr-fig-title" x="{left}" y="18" font-weight="600" '
        f'fill="currentColor">{_x(title)}</text>'
    )
    for level in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = sy(level)
        out.append(
            f'<line class="cvr-grid" x1="{left}" x2="{left + plot_width}" y1="{y:.1f}" '
            f'y2="{y:.1f}" stroke="#6b7280" stroke-opacity="0.25"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
            f'fill="currentColor">{level:g}</text>'
        )
    for tick in ticks:
        x = sx(tick)
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + plot_height}" '
            f'y2="{top + plot_height + 4}" stroke="currentColor"/>'
            f'<text x="{x:.1f}" y="{top + plot_height + 17}" text-anchor="middle" '
            f'font-size="11" fill="currentColor">{tick:g}</text>'
        )
    middle = top + plot_height / 2
    out.append(
        f'<line class="cvr-axis" x1="{left}" x2="{left + plot_width}" y1="{top + plot_height}" '
        f'y2="{top + plot_height}" stroke="currentColor"/>'
        f'<line class="cvr-axis" x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_height}" '
        f'stroke="currentColor"/>'
        f'<text x="{left + plot_width / 2:.1f}" y="{top + plot_height + 34}" '
        f'text-anchor="middle" font-size="11" fill="currentColor">replications m</text>'
        f'<text x="14" y="{middle:.1f}" text-anchor="middle" font-size="11" '
        f'fill="currentColor" transform="rotate(-90 14 {middle:.1f})">power</text>'
    )
    y_target = sy(target)
    out.append(
        f'<line class="cvr-alpha" x1="{left}" x2="{left + plot_width}" y1="{y_target:.1f}" '
        f'y2="{y_target:.1f}" stroke="#b91c1c" stroke-width="1.2" stroke-dasharray="5 3">'
        f"<title>wanted power {target:g}</title></line>"
        # below the line at the left, where the curves have not yet reached it
        f'<text x="{left + 4}" y="{y_target + 12:.1f}" text-anchor="start" '
        f'font-size="11" fill="currentColor">power {target:g}</text>'
    )
    for index, ((test, k), group) in enumerate(groups):
        colour = COLOURS[index % len(COLOURS)]
        dash = DASHES[index % len(DASHES)]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        label = f"{group['label'].iloc[0]}, K = {k}"
        group = group.sort_values("m")
        points = " ".join(
            f"{sx(float(m)):.1f},{sy(float(p)):.1f}" for m, p in zip(group["m"], group["power"])
        )
        out.append(f'<g class="cvr-curve" data-test="{_x(test)}" data-folds="{_x(k)}">')
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"'
            f"{dash_attr}><title>{_x(label)}</title></polyline>"
        )
        first = True
        for m, p, design, level in zip(
            group["m"], group["power"], group["design"], group["holds_level"]
        ):
            x, y = sx(float(m)), sy(float(p))
            ring = first and p >= target and bool(level)
            first = first and not ring
            note = " (first to reach the wanted power)" if ring else ""
            if not level:
                note = (
                    f" (type I error above {size_tolerance:g} α: rejects too often, "
                    "not recommended)"
                )
            out.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{5 if ring else 2.5}" '
                f'fill="{"none" if ring or not level else colour}" stroke="{colour}" '
                f'stroke-width="1.5">'
                f"<title>{_x(label)}: {_x(design)}, power {_x(format_number(float(p), 3))}"
                f"{note}</title></circle>"
            )
        out.append("</g>")
        lx = left + (index % 2) * plot_width / 2
        ly = legend_top + (index // 2) * 18
        out.append(
            f'<g class="cvr-legend" font-size="11" fill="currentColor">'
            f'<line x1="{lx:.1f}" x2="{lx + 22:.1f}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="2"{dash_attr}/>'
            f'<text x="{lx + 28:.1f}" y="{ly}">{_x(label)}</text></g>'
        )
    if len(over):
        ly = legend_top + ((len(groups) + 1) // 2) * 18 + 6
        out.append(
            f'<text class="cvr-fig-note" x="{left}" y="{ly}" font-size="11" '
            f'fill="currentColor">{_x(hollow_note(size_tolerance))}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)
