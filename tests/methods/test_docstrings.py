"""Every public test function keeps the numpydoc sections its readers rely on.

The docstrings share passages through :func:`cvreport.methods.docstrings.fill_doc`;
this checks the rendered ``__doc__`` (what ``help()`` shows), so moving a passage
into a shared snippet cannot drop a section, and no placeholder stays unfilled.
"""

from __future__ import annotations

import itertools
import re

import pytest

import cvreport
import cvreport.arrays
from cvreport.methods.docstrings import SECTIONS
from cvreport.methods.registry import SPECS

FUNCTIONS = [
    pytest.param(function, id=f"{function.__module__}.{function.__name__}")
    for spec in SPECS
    for function in (spec.function, spec.array_function)
    if function is not None
]

# a citation: "Author (1998)", "Author, A. (1998)", "Author et al. (2013)" or "..., 1998)"
CITATION = re.compile(r"[A-Z][^\s()]+.{0,80}?\(\d{4}[a-z]?\)|[A-Z]\w+ \d{4}\)|, \d{4}\)")


def sections(doc: str) -> set[str]:
    """The numpydoc section titles of ``doc``: a line underlined by dashes of its length."""
    lines = [line.strip() for line in doc.splitlines()]
    return {
        title for title, rule in itertools.pairwise(lines) if title and rule == "-" * len(title)
    }


@pytest.mark.parametrize("function", FUNCTIONS)
def test_public_test_function_has_every_section(function: object) -> None:
    doc = function.__doc__ or ""
    found = sections(doc)
    for title in ("Parameters", "Returns", "Raises", "Examples"):
        assert title in found, f"{function.__name__} lost its {title} section"
    assert ">>> " in doc.split("Examples", 1)[1], f"{function.__name__} has no runnable example"
    assert "References" in found or CITATION.search(doc), f"{function.__name__} cites no paper"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_no_placeholder_left_unfilled(function: object) -> None:
    doc = function.__doc__ or ""
    for name in SECTIONS:
        assert "{" + name + "}" not in doc, f"{function.__name__}: {{{name}}} not filled"


def test_the_exported_functions_are_the_documented_ones() -> None:
    for spec in SPECS:
        assert getattr(cvreport, spec.name).__doc__ == spec.function.__doc__
        if spec.array_function is not None:
            exported = getattr(cvreport.arrays, spec.name)
            assert exported.__doc__ == spec.array_function.__doc__


def test_sections_finds_titles_and_ignores_other_dashes() -> None:
    doc = "Sum.\n\n    Parameters\n    ----------\n    x : int\n    a - b\n    Notes\n    ---\n"
    assert sections(doc) == {"Parameters"}


def test_a_shared_snippet_is_filled_at_the_placeholder_indent() -> None:
    margin = SECTIONS["margin_raises"].splitlines()
    doc = cvreport.corrected_resampled_ttest.__doc__
    assert "    " + margin[0] + "\n    " + margin[1] + "\n" in doc
