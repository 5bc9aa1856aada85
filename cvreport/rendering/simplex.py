"""The posterior of a Bayesian comparison on the probability simplex, as inline SVG.

A Bayesian test with a region of practical equivalence gives, for every
posterior draw, three probabilities that add to one: A better, practically
equivalent, B better (Benavoli et al. 2017, §4.2 and Fig. 6). Each draw is a
point of the triangle whose corners are those three outcomes, placed by its
barycentric coordinates; the three lines from the centre to the middle of each
side cut the triangle into the regions where one outcome is the most probable,
so the share of points in a region is that outcome's posterior probability.
The probabilities come in ready-made (:mod:`cvreport.multi`); nothing is
computed here but positions.

Examples
--------
>>> import numpy as np
>>> theta = np.random.default_rng(0).dirichlet([8, 3, 1], size=500)
>>> svg = simplex_plot(theta, labels=("svm", "rf"), probabilities=(0.91, 0.08, 0.01))
>>> svg.startswith("<svg") and svg.count("<circle") == 500 and "P(svm better) = 0.910" in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cvreport.rendering.figures import COLOURS, _svg_open, _truncate, _x
from cvreport.rendering.formatting import format_probability

__all__ = ["simplex_plot"]

MAX_POINTS = 1500  # points drawn; more add bytes, not information


def simplex_plot(
    theta: Any,
    *,
    labels: Sequence[Any],
    probabilities: Sequence[float],
    rope: float | None = None,
    figure_id: str = "cvr-simplex",
    size: int = 320,
) -> str:
    """Draw posterior draws of (A better, equivalent, B better) on the simplex.

    Parameters
    ----------
    theta : array-like, shape (n, 3)
        Posterior draws of the three probabilities, each row adding to one.
        At most 1,500 evenly spaced rows are drawn.
    labels : (str, str)
        The two models, A and B.
    probabilities : (float, float, float)
        The posterior probabilities that A is better, that the two are
        practically equivalent, and that B is better (shown at the corners).
    rope : float, optional
        The rope's half-width, for the description.
    figure_id : str
        Unique id within the page.
    size : int
        Width of the figure in px.

    Returns
    -------
    str
        ``<svg>`` markup, safe to insert unescaped.

    Raises
    ------
    ValueError
        If ``theta`` is not an (n, 3) array of probabilities.

    References
    ----------
    Benavoli, A., Corani, G., Demšar, J., Zaffalon, M. (2017). Time for a change:
    a tutorial for comparing multiple classifiers through Bayesian analysis.
    JMLR 18(77):1–36.
    """
    draws = np.asarray(theta, dtype=float)
    if draws.ndim != 2 or draws.shape[1] != 3 or draws.shape[0] == 0:
        raise ValueError("theta must be an (n, 3) array of posterior probabilities")
    if not np.isfinite(draws).all() or (draws < -1e-9).any():
        raise ValueError("theta holds values that are not probabilities")
    if draws.shape[0] > MAX_POINTS:
        draws = draws[np.linspace(0, draws.shape[0] - 1, MAX_POINTS).astype(int)]
    a, b = (str(v) for v in labels)
    p_a, p_rope, p_b = (float(p) for p in probabilities)
    margin = 46
    side = size - 2 * margin
    height = int(side * math.sqrt(3) / 2 + 2 * margin + 24)
    # corners: A better bottom left, B better bottom right, equivalent on top
    corners = np.array(
        [
            [margin, margin + side * math.sqrt(3) / 2],
            [margin + side / 2, margin],
            [margin + side, margin + side * math.sqrt(3) / 2],
        ]
    )
    points = draws / draws.sum(axis=1, keepdims=True) @ corners
    centre = corners.mean(axis=0)
    title = f"Posterior of {a} against {b} on the probability simplex"
    desc = (
        f"{len(draws)} posterior draws of the probabilities that {a} is better, that the two "
        "are practically equivalent"
        + (f" (difference within ±{rope:g})" if rope is not None else "")
        + f", and that {b} is better, each a point of a triangle whose corners are those "
        f"outcomes. P({a} better) {_equals_or_bound(p_a)}, P(equivalent) "
        f"{_equals_or_bound(p_rope)}, P({b} better) {_equals_or_bound(p_b)}: the share of "
        "points in each corner's region."
    )
    out = _svg_open(figure_id, size, height, title, desc)
    triangle = " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)
    out.append(
        f'<polygon points="{triangle}" fill="none" stroke="{COLOURS["muted"]}" stroke-width="1"/>'
    )
    for i in range(3):
        middle = (corners[i] + corners[(i + 1) % 3]) / 2
        out.append(
            f'<line x1="{centre[0]:.1f}" y1="{centre[1]:.1f}" x2="{middle[0]:.1f}" '
            f'y2="{middle[1]:.1f}" stroke="{COLOURS["muted"]}" stroke-dasharray="3 3"/>'
        )
    out.append(f'<g class="cvr-draws" fill="{COLOURS["accent"]}" fill-opacity="0.25">')
    out.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="1.6"/>' for x, y in points)
    out.append("</g>")
    # the two lower corners' words sit on two lines under their corner (the name, then
    # "better: P = …"), anchored outwards
    # so that long model names do not run into each other
    name_width = size / 2 - 12
    left_x, right_x = 4.0, size - 4.0
    bottom = corners[0][1]
    for x, anchor, name, p in ((left_x, "start", a, p_a), (right_x, "end", b, p_b)):
        out.append(
            f'<text x="{x:.1f}" y="{bottom + 18:.1f}" text-anchor="{anchor}" '
            f'fill="currentColor">{_x(_truncate(name, name_width))}'
            # "better" on the line of the probability, so that no long name cuts it off
            f'<tspan x="{x:.1f}" dy="15">'
            f"{_x(f'better: P {_equals_or_bound(p)}')}</tspan></text>"
        )
    out.append(
        f'<text x="{corners[1][0]:.1f}" y="{corners[1][1] - 10:.1f}" text-anchor="middle" '
        f'fill="currentColor">{_x(f"equivalent: P {_equals_or_bound(p_rope)}")}</text>'
    )
    out.append("</svg>")
    return "\n".join(out)


def _equals_or_bound(p: float) -> str:
    """``= 0.307``, or the bound ``< 0.001`` / ``> 0.999`` the table beside the figure shows."""
    shown = format_probability(p, 3)
    return f"{shown[0]} {shown[1:]}" if shown[0] in "<>" else f"= {shown}"
