"""Jinja2 environments for the packaged templates.

The templates live in the top-level ``templates/`` folder of the project. A
wheel ships them inside the package (``cvreport/templates``); an editable
install or a plain checkout finds them beside the package. Jinja2 itself is
imported when the first environment is built, so importing this module (and
every module that renders) costs nothing until something is rendered.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import markupsafe

from cvreport.rendering import formatting
from cvreport.rendering.code_tokens import mark_code_tokens

if TYPE_CHECKING:
    import jinja2

__all__ = ["html_environment", "latex_environment", "templates_dir", "text_environment"]


def templates_dir() -> Path:
    """Return the folder holding cvreport's Jinja2 templates."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "templates", package.parent / "templates"):
        if (candidate / "summary.html.j2").is_file():
            return candidate
    raise FileNotFoundError(
        "cvreport's templates were not found next to the package; reinstall cvreport"
    )


def _environment(**options: Any) -> jinja2.Environment:
    """A strict environment over the templates with the filters every format shares.

    ``options`` are the format's own settings (escaping, delimiters, newlines).
    """
    import jinja2  # loaded on the first render, not when cvreport is imported

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        **options,
    )
    env.filters["number"] = formatting.format_number
    env.filters["df"] = formatting.format_df
    env.filters["value"] = formatting.format_value
    env.filters["interval"] = formatting.format_interval
    env.filters["stars"] = formatting.significance_stars
    env.filters["yesno"] = _yes_no
    env.filters["fmt"] = formatting.format_by_kind
    env.filters["pvalue"] = formatting.format_pvalue
    env.filters["probability"] = formatting.format_probability
    return env


# prose that names the audit's statistic writes Z_max; tables set it as Z with "max" below
_Z_MAX = "Z_max"


def _html_prose(text: Any) -> markupsafe.Markup:
    """Escaped prose with ``Z_max`` set as in the tables, Z<sub>max</sub>."""
    return markupsafe.Markup(str(markupsafe.escape(text)).replace(_Z_MAX, "Z<sub>max</sub>"))


def _latex_prose(text: Any) -> str:
    r"""Escaped prose with ``Z_max`` set as in the tables, ``$Z_{\max}$``."""
    return formatting.escape_latex(text).replace(r"Z\_max", r"$Z_{\max}$")


def _yes_no(value: Any) -> str:
    """``yes``/``no`` for a decision, ``—`` when there is none."""
    if value is None:
        return "—"
    return "yes" if value else "no"


def _without_bidi_controls(value: Any) -> Any:
    """Every value printed into HTML, without direction controls (names cannot reorder text)
    and without the characters XML forbids (inline SVG stays well-formed)."""
    if isinstance(value, markupsafe.Markup):
        return markupsafe.Markup(_printable(str(value)))
    if isinstance(value, str):
        return _printable(value)
    return value


def _printable(text: str) -> str:
    return formatting.strip_xml_forbidden(formatting.strip_bidi_controls(text))


@lru_cache(maxsize=1)
def html_environment() -> jinja2.Environment:
    """Environment for HTML templates: autoescaped, strict about undefined names.

    A rendered page has its command-line flags and API names set as ``<code>``
    (:func:`~cvreport.rendering.code_tokens.mark_code_tokens`).
    """
    import jinja2  # loaded on the first render, not when cvreport is imported

    class HtmlTemplate(jinja2.Template):
        """A page whose flags and API names in the text never break across lines."""

        def render(self, *args: Any, **kwargs: Any) -> str:
            return mark_code_tokens(super().render(*args, **kwargs))

    env = _environment(
        autoescape=jinja2.select_autoescape(["html", "html.j2"]),
        finalize=_without_bidi_controls,
    )
    env.template_class = HtmlTemplate
    env.filters["prose"] = _html_prose
    return env


@lru_cache(maxsize=1)
def text_environment() -> jinja2.Environment:
    """Environment for Markdown and plain-text templates (no autoescape)."""
    env = _environment(autoescape=False, keep_trailing_newline=True)
    env.filters["md"] = formatting.escape_markdown
    env.filters["md_code"] = formatting.markdown_table_code
    return env


@lru_cache(maxsize=1)
def latex_environment() -> jinja2.Environment:
    """Environment for LaTeX templates: ``((* *))`` blocks, ``((( )))`` variables, escape filter."""
    env = _environment(
        block_start_string="((*",
        block_end_string="*))",
        variable_start_string="(((",
        variable_end_string=")))",
        comment_start_string="((=",
        comment_end_string="=))",
        autoescape=False,
        keep_trailing_newline=True,
    )
    env.filters["e"] = formatting.escape_latex
    env.filters["escape"] = formatting.escape_latex
    env.filters["prose"] = _latex_prose
    # after an escaped underscore a long name may break across lines
    env.filters["breakable"] = lambda text: str(text).replace(r"\_", r"\_\allowbreak{}")
    # a negative number's sign is a minus, not a hyphen
    env.filters["number"] = lambda value, *args: formatting.latex_number_text(
        formatting.format_number(value, *args)
    )
    env.filters["value"] = lambda value, *args: formatting.latex_number_text(
        formatting.format_value(value, *args)
    )
    env.filters["interval"] = lambda value, *args: formatting.latex_number_text(
        formatting.format_interval(value, *args)
    )
    # (its output is escaped after, which sets a negative sign as a minus)
    env.filters["fmt"] = lambda value, kind="value": formatting.format_by_kind(
        value, kind, less_than="$<$", greater_than="$>$"
    )
    env.filters["pvalue"] = lambda p: formatting.format_pvalue(p, less_than="$<$")
    env.filters["probability"] = lambda p: formatting.format_probability(
        p, less_than="$<$", greater_than="$>$"
    )
    return env
