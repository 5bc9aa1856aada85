"""The critical-difference diagram of Demšar (2006, §3.2.4) as an inline SVG.

The average ranks of the models lie on an axis turned so that the best rank
(1) is on the right; each model hangs from its rank by a line to its name, the
better half named on the right, the worse half on the left. Thick bars join
the cliques — groups of models the post-hoc test does not separate — and a
bar above the axis shows the critical difference when the test has one. The
statistics come in ready-made (:mod:`cvreport.multi`); nothing is computed
here but positions.

Like :mod:`cvreport.rendering.figures`, the figure is an accessible
``<svg role="img">`` with a ``<title>`` and a ``<desc>`` that says everything
the picture shows in words; every name is XML-escaped, long names are
shortened on the figure and given in full in their ``<title>``.

Examples
--------
>>> svg = cd_diagram({"C4.5": 3.143, "C4.5+m": 2.0, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964},
...                  cd=1.25, cliques=[("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5")],
...                  n_datasets=14, test="Nemenyi test at α = 0.05")
>>> svg.startswith("<svg") and 'role="img"' in svg and "CD = 1.25" in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from cvreport.rendering.figures import CHAR_WIDTH, COLOURS, _svg_open, _truncate, _x

__all__ = ["cd_diagram"]

ROW = 20  # vertical distance between two names
CLIQUE_ROW = 9  # vertical distance between two clique bars
MAX_LABEL = 260.0  # widest name column, in px


def _rank_text(value: float) -> str:
    return f"{value:.2f}"


def cd_diagram(
    average_ranks: Mapping[Any, float] | Any,
    *,
    cd: float | None = None,
    cliques: Sequence[Sequence[Any]] = (),
    n_datasets: int | None = None,
    test: str = "",
    highlight: Any = None,
    figure_id: str = "cvr-cd",
    title: str | None = None,
) -> str:
    """Draw a critical-difference diagram.

    Parameters
    ----------
    average_ranks : mapping or pandas.Series
        Average rank by model (1 = best).
    cd : float, optional
        The critical difference, drawn as a bar above the axis.
    cliques : sequence of sequences
        Groups of models not significantly different, joined by bars.
    n_datasets : int, optional
        N, for the description.
    test : str
        What decides the cliques, in words (e.g. "Nemenyi test at α = 0.05").
    highlight : str, optional
        A model (e.g. the baseline) whose name is set in bold.
    figure_id : str
        Unique id within the page.
    title : str, optional
        The figure's title (read out by screen readers).

    Returns
    -------
    str
        ``<svg>`` markup, safe to insert unescaped.
    """
    items = sorted(((str(k), float(v)) for k, v in dict(average_ranks).items()), key=lambda i: i[1])
    names = [name for name, _ in items]
    originals = {str(k): k for k in dict(average_ranks)}
    k = len(items)
    low_rank = 1.0
    high_rank = float(max(k, math.ceil(max(v for _, v in items))))
    label_width = min(MAX_LABEL, (max(len(n) for n in names) + 7) * CHAR_WIDTH + 24)
    axis_width = max(280.0, 34.0 * (high_rank - 1))
    width = int(2 * label_width + axis_width + 20)
    left, right = label_width + 10, label_width + 10 + axis_width

    def x_of(rank: float) -> float:
        span = high_rank - low_rank or 1.0
        return right - (rank - low_rank) / span * (right - left)

    has_cd = cd is not None and math.isfinite(cd) and cd > 0
    axis_y = 58 if has_cd else 34
    drawn_cliques = [tuple(str(m) for m in c) for c in cliques if len(c) >= 2]
    first_row = axis_y + 16 + CLIQUE_ROW * len(drawn_cliques) + 12
    n_right = math.ceil(k / 2)
    rows = max(n_right, k - n_right)
    height = int(first_row + ROW * (rows - 1) + 16)

    title = title or f"Critical-difference diagram of {k} models"
    ranks_words = ", ".join(f"{n} {_rank_text(v)}" for n, v in items)
    desc = (
        f"Average ranks of {k} models"
        + (f" over {n_datasets} data sets" if n_datasets else "")
        + f", 1 = best, drawn on the right: {ranks_words}."
    )
    if has_cd:
        desc += f" Critical difference CD = {cd:.3g}."
    if drawn_cliques:
        groups = "; ".join("{" + ", ".join(c) + "}" for c in drawn_cliques)
        desc += f" Bars join models that the {test or 'post-hoc test'} does not separate: {groups}."
    else:
        desc += f" The {test or 'post-hoc test'} separates every pair of models."

    out = _svg_open(figure_id, width, height, title, desc)
    out.append(f'<g class="cvr-axis" stroke="{COLOURS["muted"]}" stroke-width="1">')
    out.append(f'<line x1="{left:.1f}" y1="{axis_y}" x2="{right:.1f}" y2="{axis_y}"/>')
    for tick in range(int(low_rank), int(high_rank) + 1):
        x = x_of(tick)
        out.append(f'<line x1="{x:.1f}" y1="{axis_y - 6}" x2="{x:.1f}" y2="{axis_y}"/>')
        if tick < high_rank:
            half = x_of(tick + 0.5)
            out.append(f'<line x1="{half:.1f}" y1="{axis_y - 3}" x2="{half:.1f}" y2="{axis_y}"/>')
    out.append("</g>")
    out.append('<g class="cvr-ticks" text-anchor="middle" fill="currentColor">')
    for tick in range(int(low_rank), int(high_rank) + 1):
        out.append(f'<text x="{x_of(tick):.1f}" y="{axis_y - 10}">{tick}</text>')
    out.append("</g>")
    if has_cd:
        start = x_of(low_rank + cd)  # type: ignore[operator]
        end = x_of(low_rank)
        if start < left:
            start = left
        y = 16
        out.append(
            f'<g class="cvr-cd" stroke="currentColor" stroke-width="1.5">'
            f'<line x1="{start:.1f}" y1="{y}" x2="{end:.1f}" y2="{y}"/>'
            f'<line x1="{start:.1f}" y1="{y - 4}" x2="{start:.1f}" y2="{y + 4}"/>'
            f'<line x1="{end:.1f}" y1="{y - 4}" x2="{end:.1f}" y2="{y + 4}"/></g>'
        )
        out.append(
            f'<text x="{(start + end) / 2:.1f}" y="{y - 5}" text-anchor="middle" '
            f'fill="currentColor">CD = {_x(f"{cd:.3g}")}</text>'
        )
    rank_of = dict(items)
    for index, clique in enumerate(drawn_cliques):
        values = [rank_of[m] for m in clique if m in rank_of]
        if len(values) < 2:
            continue
        y = axis_y + 12 + CLIQUE_ROW * index
        x1, x2 = x_of(max(values)) - 3, x_of(min(values)) + 3
        members = ", ".join(clique)
        out.append(
            f'<line class="cvr-clique" x1="{x1:.1f}" y1="{y}" x2="{x2:.1f}" y2="{y}" '
            f'stroke="{COLOURS["accent"]}" stroke-width="4" stroke-linecap="round">'
            f"<title>{_x(f'not significantly different: {members}')}</title></line>"
        )
    best_first = names[:n_right]
    worst_first = names[n_right:][::-1]
    placements = [(n, i, "right") for i, n in enumerate(best_first)]
    placements += [(n, i, "left") for i, n in enumerate(worst_first)]
    for name, row, side in placements:
        rank = rank_of[name]
        x = x_of(rank)
        y = first_row + ROW * row
        end = right + 6 if side == "right" else left - 6
        weight = ' font-weight="bold"' if highlight is not None and name == str(highlight) else ""
        shown = _truncate(name, label_width - 12 - 7 * CHAR_WIDTH)
        anchor = "start" if side == "right" else "end"
        text_x = end + 4 if side == "right" else end - 4
        out.append(
            f'<g class="cvr-model"><title>{_x(f"{originals[name]}: average rank {rank:.3f}")}'
            f"</title>"
            f'<polyline points="{x:.1f},{axis_y} {x:.1f},{y} {end:.1f},{y}" fill="none" '
            f'stroke="currentColor" stroke-width="1"/>'
            f'<circle cx="{x:.1f}" cy="{axis_y}" r="2.5" fill="currentColor"/>'
            f'<text x="{text_x:.1f}" y="{y + 4}" text-anchor="{anchor}" fill="currentColor"'
            f"{weight}>{_x(shown)} "
            f'<tspan fill="{COLOURS["muted"]}" font-weight="normal">({_rank_text(rank)})</tspan>'
            "</text></g>"
        )
    out.append("</svg>")
    return "\n".join(out)
