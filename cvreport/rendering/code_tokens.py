"""Command-line flags and API names in an HTML page's prose, set as ``<code>`` that never breaks.

A browser may break a line after a hyphen, so ``--rope`` in a sentence could
end one line with ``--`` and start the next with ``rope``. Every flag
(``--pairs-csv``, ``-f``) and every dotted name of the API (``Report.overview``,
``cvreport.splits.BlockRegularizedCV``) in the text of a rendered page is
wrapped in ``<code class="cvr-token">``, which the report's style sheet keeps
on one line (``white-space: nowrap``); the characters are unchanged, so a
copied flag pastes as typed. Text inside tags' attributes, ``<code>``,
``<pre>``, ``<script>``, ``<style>``, ``<svg>`` and ``<textarea>`` is left
as it is.

Examples
--------
>>> mark_code_tokens("<p>Pass a rope (test_options, --rope) or --tests all.</p>")
'<p>Pass a rope (test_options, <code class="cvr-token">--rope</code>) or \
<code class="cvr-token">--tests</code> all.</p>'
>>> mark_code_tokens('<p title="--rope">see <code>--rope</code></p>')
'<p title="--rope">see <code>--rope</code></p>'
"""

from __future__ import annotations

import re

__all__ = ["TOKEN_CLASS", "mark_code_tokens"]

TOKEN_CLASS = "cvr-token"

_MARKUP = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<[^>]*>", re.DOTALL)
_TAG_NAME = re.compile(r"<\s*(/?)\s*([A-Za-z][\w:-]*)")
_LITERAL = frozenset({"code", "pre", "script", "style", "svg", "textarea", "kbd", "samp"})
# a long flag (--rope, --pairs-csv) or the short flags the commands take (-f, -o),
# neither glued to a word nor part of a longer run of hyphens
_FLAG = r"(?<![\w&#;-])(?:--[a-z][a-z0-9]*(?:-[a-z0-9]+)*|-[fo])(?![\w-])"
# a dotted name of the API: cvreport.plan, Report.overview, ResultsTable.from_formula()
_API_NAME = (
    r"\b(?:cvreport|Report|DatasetsReport|ResultsTable|DatasetsTable)"
    r"(?:\.[A-Za-z_]\w*)+(?:\(\))?"
)
_TOKEN = re.compile(f"{_FLAG}|{_API_NAME}")


def mark_code_tokens(html: str) -> str:
    """Wrap each flag and dotted API name in ``html``'s text in ``<code class="cvr-token">``.

    Parameters
    ----------
    html : str
        A rendered HTML page or fragment (its text already escaped).

    Returns
    -------
    str
        The same page with those tokens wrapped; applying it twice changes nothing
        more, since text inside ``<code>`` is left alone.
    """
    parts: list[str] = []
    literal_depth = 0
    position = 0
    for match in _MARKUP.finditer(html):
        text = html[position : match.start()]
        parts.append(text if literal_depth else _TOKEN.sub(_wrap, text))
        tag = match.group(0)
        parts.append(tag)
        position = match.end()
        name = _TAG_NAME.match(tag)
        if name is None or name.group(2).lower() not in _LITERAL:
            continue
        if name.group(1):
            literal_depth = max(literal_depth - 1, 0)
        elif not tag.rstrip(">").rstrip().endswith("/"):
            literal_depth += 1
    tail = html[position:]
    parts.append(tail if literal_depth else _TOKEN.sub(_wrap, tail))
    return "".join(parts)


def _wrap(match: re.Match[str]) -> str:
    return f'<code class="{TOKEN_CLASS}">{match.group(0)}</code>'
