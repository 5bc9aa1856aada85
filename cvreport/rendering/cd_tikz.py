r"""The critical-difference diagram of Demšar (2006, §3.2.4) as TikZ, and as text.

The same picture as :func:`cvreport.rendering.cd_diagram.cd_diagram` (the
SVG of the HTML report), drawn for a paper: a ``tikzpicture`` that plain
pdflatex compiles with ``\usepackage{tikz}`` and no external file, sized to
fit one column of a two-column paper by default (``width_cm=8``) or the whole
text width of a ``figure*``. The average ranks lie on an axis with the best
rank (1) on the right; each model hangs from its rank by a line to its name,
the better half named on the right, the worse half on the left; thick bars
join the cliques (models the post-hoc test does not separate) and a bar above
the axis shows the critical difference.

:func:`cd_text` draws the same content in monospaced characters for the
Markdown report, where an inline figure cannot go.

Examples
--------
>>> ranks = {"C4.5": 3.143, "C4.5+m": 2.0, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964}
>>> tikz = cd_tikz(ranks, cd=1.25, cliques=[tuple(ranks)], n_datasets=14)
>>> tikz.splitlines()[0]
'% Critical-difference diagram (Demšar 2006); needs \\usepackage{tikz}.'
>>> "CD = 1.25" in tikz and tikz.rstrip().endswith(r"\end{tikzpicture}")
True
>>> print(cd_text(ranks, cd=1.25, cliques=[tuple(ranks)], width=40))
Average rank (1 = best, on the right); critical difference CD = 1.25.
           4            3            2            1
           |------------|------------|------------|
                               CD [===============]
C4.5                  *                               3.14
C4.5+cf                  *                            2.89
C4.5+m                               *                2.00
C4.5+m+cf                            *                1.96
Not separated: C4.5+m+cf, C4.5+m, C4.5+cf, C4.5
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cvreport.rendering.formatting import escape_latex

__all__ = ["CDLayout", "cd_layout", "cd_text", "cd_tikz"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAME_CHARS = 22  # longest name the text figure sets in full; longer ones end in "..."
_CHAR_CM = 0.13  # width of a \scriptsize character of the TikZ figure, in cm


@dataclass(frozen=True)
class CDLayout:
    """Where everything of a critical-difference diagram goes, in rank units.

    Attributes
    ----------
    items : tuple of (name, rank)
        Models as text, best (lowest rank) first.
    high_rank : float
        The worst end of the axis (at least the number of models).
    cliques : tuple of tuples
        Groups of at least two models joined by a bar, as text.
    right, left : tuple of str
        Models named on the right (the better half, best first) and on the left
        (the worse half, worst first); the row of a model is its index here.
    """

    items: tuple[tuple[str, float], ...]
    high_rank: float
    cliques: tuple[tuple[str, ...], ...]
    right: tuple[str, ...]
    left: tuple[str, ...]

    @property
    def ranks(self) -> dict[str, float]:
        """Average rank by model name."""
        return dict(self.items)

    @property
    def rows(self) -> int:
        """Rows of names below the axis."""
        return max(len(self.right), len(self.left))


def cd_layout(
    average_ranks: Mapping[Any, float] | Any, cliques: Sequence[Sequence[Any]] = ()
) -> CDLayout:
    """Lay out a critical-difference diagram: sort, split the names in halves, keep real bars.

    Parameters
    ----------
    average_ranks : mapping or pandas.Series
        Average rank by model (1 = best).
    cliques : sequence of sequences
        Groups of models not significantly different.

    Returns
    -------
    CDLayout
    """
    items = tuple(
        sorted(((str(k), float(v)) for k, v in dict(average_ranks).items()), key=lambda i: i[1])
    )
    names = [name for name, _ in items]
    n_right = math.ceil(len(items) / 2)
    rank_of = dict(items)
    # a clique's members best first, like the names; one of fewer than two known models is no bar
    members = (sorted({str(m) for m in c if str(m) in rank_of}, key=rank_of.get) for c in cliques)
    drawn = tuple(tuple(c) for c in members if len(c) >= 2)
    return CDLayout(
        items=items,
        high_rank=float(max(len(items), math.ceil(max(v for _, v in items)))),
        cliques=drawn,
        right=tuple(names[:n_right]),
        left=tuple(names[n_right:][::-1]),
    )


def _short(name: str, limit: int = _NAME_CHARS) -> str:
    return name if len(name) <= limit else name[: limit - 3] + "..."


def cd_tikz(
    average_ranks: Mapping[Any, float] | Any,
    *,
    cd: float | None = None,
    cliques: Sequence[Sequence[Any]] = (),
    n_datasets: int | None = None,
    test: str = "",
    highlight: Any = None,
    width_cm: float = 8.0,
) -> str:
    r"""Draw a critical-difference diagram as a TikZ picture.

    Parameters
    ----------
    average_ranks : mapping or pandas.Series
        Average rank by model (1 = best).
    cd : float, optional
        The critical difference, drawn as a bar above the axis.
    cliques : sequence of sequences
        Groups of models not significantly different, joined by bars.
    n_datasets : int, optional
        N, for the comment line that describes the figure.
    test : str
        What decides the cliques, in words, for that comment.
    highlight : str, optional
        A model (e.g. the baseline) whose name is set in bold.
    width_cm : float
        Width of the whole picture: 8 fits one column of a two-column paper,
        17 the text width of a ``figure*``.

    Returns
    -------
    str
        A ``tikzpicture`` environment preceded by comment lines naming the
        package it needs (``\usepackage{tikz}``) and what it shows.

    Raises
    ------
    ValueError
        If there are no models or ``width_cm`` leaves no room for the axis.

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data
    sets. Journal of Machine Learning Research 7:1–30, §3.2.4.
    """
    if not dict(average_ranks):
        raise ValueError("a critical-difference diagram needs at least one model")
    layout = cd_layout(average_ranks, cliques)
    longest = max(len(name) for name, _ in layout.items)
    # \scriptsize Latin Modern sets about 0.13 cm a character; " (1.45)" is 7 more
    label = min(_CHAR_CM * (longest + 7) + 0.3, 0.36 * width_cm)
    room = int((label - 0.3) / _CHAR_CM)
    # where the names do not fit with their ranks, the ranks stay on the axis only
    show_rank = longest + 7 <= room
    limit = room - 7 if show_rank else room
    left, right = label, width_cm - label
    if right - left < 1.5:
        raise ValueError(f"width_cm={width_cm:g} leaves no room for the axis; give at least 5")
    span = layout.high_rank - 1.0 or 1.0

    def x_of(rank: float) -> float:
        return right - (rank - 1.0) / span * (right - left)

    has_cd = cd is not None and math.isfinite(cd) and cd > 0
    row, bar_row = 0.42, 0.16
    axis_y = 0.0
    first_row = -(0.3 + bar_row * len(layout.cliques) + 0.25)
    ranks_words = ", ".join(f"{name} {rank:.2f}" for name, rank in layout.items)
    lines = [
        r"% Critical-difference diagram (Demšar 2006); needs \usepackage{tikz}.",
        f"% Average ranks of {len(layout.items)} models"
        + (f" over {n_datasets} data sets" if n_datasets else "")
        + f" (1 = best, on the right): {ranks_words}.",
    ]
    if layout.cliques:
        groups = "; ".join("{" + ", ".join(c) + "}" for c in layout.cliques)
        lines.append(f"% Not separated by the {test or 'post-hoc test'}: {groups}.")
    # a name's line break or control character would end the comment early
    lines = [_CONTROL.sub(" ", line) for line in lines]
    lines += [
        r"\begin{tikzpicture}[font=\scriptsize, line cap=round]",
        f"\\draw[gray] ({left:.3f},{axis_y}) -- ({right:.3f},{axis_y});",
    ]
    for tick in range(1, int(layout.high_rank) + 1):
        x = x_of(tick)
        lines.append(
            f"\\draw[gray] ({x:.3f},{axis_y}) -- ({x:.3f},{axis_y + 0.12:.2f}) "
            f"node[above, text=black] {{{tick}}};"
        )
        if tick < layout.high_rank:
            half = x_of(tick + 0.5)
            lines.append(f"\\draw[gray] ({half:.3f},{axis_y}) -- ({half:.3f},{axis_y + 0.06:.2f});")
    if has_cd:
        start = max(x_of(1.0 + float(cd)), left)  # type: ignore[arg-type]
        end = x_of(1.0)
        y = axis_y + 0.75
        lines.append(
            f"\\draw[thick, |-|] ({start:.3f},{y:.2f}) -- ({end:.3f},{y:.2f}) "
            f"node[midway, above] {{CD = {cd:.3g}}};"
        )
    ranks = layout.ranks
    for index, clique in enumerate(layout.cliques):
        values = [ranks[m] for m in clique if m in ranks]
        y = axis_y - 0.22 - bar_row * index
        lines.append(
            f"\\draw[line width=2.2pt, blue!60!black] ({x_of(max(values)) - 0.06:.3f},{y:.2f}) "
            f"-- ({x_of(min(values)) + 0.06:.3f},{y:.2f});"
        )
    bold = None if highlight is None else str(highlight)
    for side, names in (("right", layout.right), ("left", layout.left)):
        for index, name in enumerate(names):
            x = x_of(ranks[name])
            y = first_row - row * index
            end = right + 0.15 if side == "right" else left - 0.15
            text = escape_latex(_short(name, max(limit, 4)))
            if name == bold:
                text = f"\\textbf{{{text}}}"
            if show_rank:
                text += f" ({ranks[name]:.2f})"
            anchor = "west" if side == "right" else "east"
            lines.append(
                f"\\draw ({x:.3f},{axis_y}) -- ({x:.3f},{y:.2f}) -- ({end:.3f},{y:.2f}) "
                f"node[anchor={anchor}, inner sep=2pt] {{{text}}};"
            )
            lines.append(f"\\fill ({x:.3f},{axis_y}) circle (0.8pt);")
    lines.append(r"\end{tikzpicture}")
    return "\n".join(lines) + "\n"


def cd_text(
    average_ranks: Mapping[Any, float] | Any,
    *,
    cd: float | None = None,
    cliques: Sequence[Sequence[Any]] = (),
    width: int = 50,
) -> str:
    """Draw a critical-difference diagram in monospaced text (for Markdown).

    One line per model, best last, with a ``*`` at its average rank on an axis
    whose best end (rank 1) is on the right, as in the figure; a bar of ``=``
    shows the critical difference; the cliques follow in words.

    Parameters
    ----------
    average_ranks : mapping or pandas.Series
        Average rank by model (1 = best).
    cd : float, optional
        The critical difference.
    cliques : sequence of sequences
        Groups of models not significantly different.
    width : int
        Characters of the axis.

    Returns
    -------
    str
        Lines to set in a code block.
    """
    layout = cd_layout(average_ranks, cliques)
    names = [name for name, _ in layout.items]
    pad = max(len(n) for n in names) + 2
    high = int(layout.high_rank)
    step = max(1, width // max(1, high - 1))
    axis = step * (high - 1)

    def col(rank: float) -> int:
        return round((high - rank) / max(1, high - 1) * axis)

    head = "Average rank (1 = best, on the right)"
    if cd is not None and math.isfinite(cd) and cd > 0:
        head += f"; critical difference CD = {cd:.3g}"
    out = [head + "."]
    numbers = [" "] * (axis + 1)
    ticks = ["-"] * (axis + 1)
    for tick in range(high, 0, -1):
        where = col(tick)
        label = str(tick)
        numbers[where : where + len(label)] = list(label)
        ticks[where] = "|"
    out.append(" " * pad + "".join(numbers).rstrip())
    out.append(" " * pad + "".join(ticks))
    if cd is not None and math.isfinite(cd) and cd > 0:
        length = min(axis, round(cd / max(1, high - 1) * axis))
        bar = "[" + "=" * max(0, length - 1) + "]"
        out.append(" " * (pad + axis - len(bar) + 1 - 3) + "CD " + bar)
    for name, rank in reversed(layout.items):
        line = [" "] * (axis + 1)
        line[col(rank)] = "*"
        out.append(name.ljust(pad) + "".join(line) + f"   {rank:.2f}")
    for clique in layout.cliques:
        out.append("Not separated: " + ", ".join(clique))
    return "\n".join(out)
