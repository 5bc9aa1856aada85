"""A small options mechanism for display settings, in the manner of pandas' options.

Options are addressed by dotted keys (``"display.latex"``) through
:func:`get_option`, :func:`set_option`, :func:`reset_option` and the
:func:`option_context` context manager, or as attributes of :data:`options`
(``cvreport.options.display.latex = True``).

``display.latex`` is off by default: Jupyter front ends render every rich
format an object offers, and a LaTeX table rendered through MathJax is rarely
what a reader wants inline. Turn it on to let results, audits and summaries
offer ``text/latex`` (``_repr_latex_``) as well, as pandas does with
``display.latex.repr``.

Examples
--------
>>> from cvreport.options import get_option, option_context, set_option
>>> get_option("display.latex")
False
>>> with option_context("display.latex", True):
...     get_option("display.latex")
True
>>> get_option("display.latex")
False
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cvreport.errors import CVReportError

__all__ = [
    "describe_options",
    "display",
    "get_option",
    "option_context",
    "options",
    "reset_option",
    "set_option",
]


@dataclass(frozen=True)
class _Option:
    key: str
    default: Any
    doc: str
    validate: Callable[[Any], bool]
    expected: str


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


_REGISTRY: dict[str, _Option] = {}
_VALUES: dict[str, Any] = {}


def _register(
    key: str, default: Any, doc: str, validate: Callable[[Any], bool], expected: str
) -> None:
    _REGISTRY[key] = _Option(key, default, doc, validate, expected)
    _VALUES[key] = default


_register(
    "display.latex",
    False,
    "Offer text/latex (_repr_latex_) when a result, audit or summary is displayed in Jupyter.",
    _is_bool,
    "True or False",
)


def _resolve(key: str) -> _Option:
    option = _REGISTRY.get(key)
    if option is None:
        matches = [k for k in _REGISTRY if k.endswith("." + key) or k == key]
        if len(matches) == 1:
            return _REGISTRY[matches[0]]
        known = ", ".join(sorted(_REGISTRY))
        raise CVReportError(f"unknown option {key!r}; known options: {known}")
    return option


def get_option(key: str) -> Any:
    """Return the current value of the option ``key`` (e.g. ``"display.latex"``).

    >>> get_option("display.latex")
    False
    """
    return _VALUES[_resolve(key).key]


def set_option(key: str, value: Any) -> None:
    """Set the option ``key`` to ``value``; the value is validated.

    >>> set_option("display.latex", True)
    >>> get_option("display.latex")
    True
    >>> reset_option("display.latex")
    """
    option = _resolve(key)
    if not option.validate(value):
        raise CVReportError(f"option {option.key!r} expects {option.expected}, got {value!r}")
    _VALUES[option.key] = value


def reset_option(key: str | None = None) -> None:
    """Restore the default of ``key``, or of every option when ``key`` is None.

    >>> set_option("display.latex", True)
    >>> reset_option("display.latex")
    >>> get_option("display.latex")
    False
    """
    keys = list(_REGISTRY) if key is None else [_resolve(key).key]
    for k in keys:
        _VALUES[k] = _REGISTRY[k].default


@contextmanager
def option_context(*pairs: Any) -> Iterator[None]:
    """Set options inside a ``with`` block: ``option_context("display.latex", True)``.

    >>> with option_context("display.latex", True):
    ...     get_option("display.latex")
    True
    """
    if len(pairs) % 2:
        raise CVReportError(
            "option_context needs key, value pairs, e.g. option_context('display.latex', True)"
        )
    keys = [_resolve(k).key for k in pairs[::2]]
    saved = {k: _VALUES[k] for k in keys}
    try:
        for k, v in zip(keys, pairs[1::2]):
            set_option(k, v)
        yield
    finally:
        _VALUES.update(saved)


def describe_options() -> str:
    """One line per option: key, current value, default and what it does.

    >>> print(describe_options())  # doctest: +ELLIPSIS
    display.latex = False (default False): Offer text/latex (_repr_latex_) ...
    """
    return "\n".join(
        f"{o.key} = {_VALUES[o.key]!r} (default {o.default!r}): {o.doc}" for o in _REGISTRY.values()
    )


class _OptionNamespace:
    """Attribute access to the options below ``prefix`` (``options.display.latex``)."""

    __slots__ = ("_prefix",)

    def __init__(self, prefix: str = "") -> None:
        object.__setattr__(self, "_prefix", prefix)

    def _key(self, name: str) -> str:
        return f"{self._prefix}.{name}" if self._prefix else name

    def _children(self) -> set[str]:
        start = self._key("") if self._prefix else ""
        return {k[len(start) :].split(".")[0] for k in _REGISTRY if k.startswith(start)}

    def __getattr__(self, name: str) -> Any:
        key = self._key(name)
        if key in _REGISTRY:
            return _VALUES[key]
        if name in self._children():
            return _OptionNamespace(key)
        raise AttributeError(f"no option {key!r}; known options: {', '.join(sorted(_REGISTRY))}")

    def __setattr__(self, name: str, value: Any) -> None:
        key = self._key(name)
        if key not in _REGISTRY:
            raise AttributeError(
                f"no option {key!r}; known options: {', '.join(sorted(_REGISTRY))}"
            )
        set_option(key, value)

    def __dir__(self) -> list[str]:
        return sorted(self._children())

    def __repr__(self) -> str:
        return describe_options()


options = _OptionNamespace()
"""Attribute access to every option: ``options.display.latex = True``."""

display = _OptionNamespace("display")
"""The ``display.*`` options, so that ``cvreport.options.display.latex = True`` works."""
