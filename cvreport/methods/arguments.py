"""The arguments of the public test functions, checked in one place for every test.

Every test of :mod:`cvreport.methods.registry` is public twice, as ``cvreport.NAME``
and ``cvreport.arrays.NAME``. :func:`public_function` wraps both (the
:class:`~cvreport.methods.spec.TestSpec` does it for every spec), so that a call
with a keyword the function does not take, more positional arguments than it has,
or a missing argument raises an :class:`~cvreport.errors.ArgumentError` that names
the function as the user called it, the keyword, the keywords it takes and the
closest of them, instead of Python's :class:`TypeError` naming an internal
function (``mcnemar_array()``). The wrapper keeps the function's name, docstring
and :func:`inspect.signature`.

Examples
--------
>>> import cvreport
>>> cvreport.arrays.mcnemar(12, 4, alpha=0.05)
Traceback (most recent call last):
...
cvreport.errors.ArgumentError: cvreport.arrays.mcnemar() has no option 'alpha'; ...
"""

from __future__ import annotations

import difflib
import functools
import inspect
import sys
from collections.abc import Callable, Iterable
from typing import Any

from cvreport.errors import ArgumentError

__all__ = ["LEVEL_HINT", "SYNONYMS", "TWO_SIDED_ONLY", "option_error", "public_function"]

#: What a keyword often given by mistake stands for (the closest name is found otherwise).
SYNONYMS = {
    "alpha": "confidence_level (= 1 − alpha)",
    "seed": "random_state",
    "rng": "random_state",
    "n_boot": "n_resamples",
    "n_bootstrap": "n_resamples",
    "n_permutations": "n_resamples",
    "b": "n_resamples",
    "ci_method": "method",
    "interval": "method",
}

#: Where the significance level goes, for a test that takes none.
LEVEL_HINT = (
    "the significance level is not an option of the test: give it to the result "
    "(res.summary(alpha=...), res.conf_int(alpha), res.reject(alpha)) or to the report "
    "(Report(..., alpha=...))"
)

_SQUARES = "so it measures how far the two models are apart, never which one is better"
_ON_5X2 = (
    "For a one-sided question on a 5×2 design use corrected_repeated_kfold_ttest(table, a, b, "
    "alternative='less') or combined_ttest_5x2cv(..., alternative=...)"
)

#: Why a test takes no ``alternative`` and which test on its design does.
TWO_SIDED_ONLY = {
    "combined_ftest_5x2cv": (
        "Alpaydın's F statistic sums the squared differences of the 2m folds (Alpaydın 1999), "
        f"{_SQUARES}",
        _ON_5X2,
    ),
    "calibrated_ftest_5x2cv": (
        "the calibrated F statistic sums the squared differences of the 2m folds (Wang, Li & "
        f"Li 2017), {_SQUARES}",
        _ON_5X2,
    ),
    "mcnemar_5x2bcv": (
        f"its χ² statistic squares the difference of the discordant counts, {_SQUARES}",
        _ON_5X2,
    ),
    "mcnemar_kfold": (
        f"its χ² statistics square the difference of the discordant counts, {_SQUARES}",
        "For a one-sided question on a K-fold design use paired_ttest_kfold, wilcoxon_kfold "
        "or sign_test (..., alternative=...)",
    ),
    "mcnemar": (
        f"its χ² statistic squares the difference of the discordant counts, {_SQUARES}",
        "For a one-sided question on one hold-out set, the exact McNemar test is a binomial "
        "test of the discordant counts n01 and n10 of table.contingency(a, b): "
        "scipy.stats.binomtest(n01, n01 + n10, alternative=...); delong_test takes "
        "alternative= for AUC",
    ),
}


def _two_sided_hint(function: str) -> str | None:
    """Why ``function`` (as the user called it) takes no ``alternative``, or None."""
    known = TWO_SIDED_ONLY.get(function.rsplit(".", 1)[-1])
    if known is None:
        return None
    why, instead = known
    return f"the test is two-sided by construction: {why}. {instead}."


#: The wrapper of each (function, public name), made once.
_PUBLIC: dict[tuple[Callable[..., Any], str], Callable[..., Any]] = {}

_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_POSITIONAL_KINDS = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
)


def option_error(function: str, name: str, accepted: Iterable[str]) -> ArgumentError:
    """The error of keyword ``name`` given to ``function`` (as the user called it).

    It names the keyword, the closest accepted one (or what a common synonym
    stands for) and every accepted one; ``alpha`` given to a test that has no
    ``confidence_level`` says where the level goes instead.

    >>> str(option_error("cvreport.arrays.sign_test", "alternatve", ["differences", "alternative"]))
    "cvreport.arrays.sign_test() has no option 'alternatve'; did you mean alternative? Its options are: differences, alternative"
    """
    accepted = list(accepted)
    close = difflib.get_close_matches(name, accepted, n=1, cutoff=0.6)
    synonym = SYNONYMS.get(name.lower())
    if synonym is not None and synonym.split()[0] not in accepted:
        synonym = None
    hint = synonym or (close[0] if close else None)
    two_sided = _two_sided_hint(function) if name == "alternative" else None
    if two_sided:
        suggestion = f"; {two_sided}"
    elif hint:
        suggestion = f"; did you mean {hint}?"
    elif name.lower() == "alpha":
        suggestion = f"; {LEVEL_HINT}."
    else:
        suggestion = "."
    return ArgumentError(
        f"{function}() has no option {name!r}{suggestion} Its options are: {', '.join(accepted)}"
    )


def _surplus_error(function: str, positional: list[str], given: int, keywords: list[str]) -> Any:
    rest = [name for name in keywords if name not in positional]
    by_keyword = (
        f"; pass the others by keyword: {', '.join(f'{n}=...' for n in rest)}" if rest else ""
    )
    return ArgumentError(
        f"{function}() takes at most {len(positional)} positional arguments "
        f"({', '.join(positional)}), got {given}{by_keyword}"
    )


def public_function(function: Callable[..., Any], public_name: str) -> Callable[..., Any]:
    """``function`` as the public ``public_name``: its arguments checked before it runs.

    Keywords are checked against the function's parameters (a function that takes
    ``**options`` checks those itself), positional arguments against how many it
    has; a call Python still refuses (a missing argument, a value given twice) is
    worded with ``public_name``. Each raises :class:`~cvreport.errors.ArgumentError`.
    The wrapper keeps ``__name__``, ``__doc__``, ``__module__`` and, through
    ``__wrapped__``, :func:`inspect.signature`; a function is wrapped once (wrapping
    it again, or its wrapper, returns the same wrapper).
    """
    if getattr(function, "__public_name__", None) is not None:
        return function
    known = _PUBLIC.get((function, public_name))
    if known is not None:  # one wrapper per function: specs built twice compare equal
        return known
    parameters = inspect.signature(function).parameters.values()
    kinds = {parameter.kind for parameter in parameters}
    keywords = [p.name for p in parameters if p.kind in _KEYWORD_KINDS]
    accepted = frozenset(keywords)
    positional = [p.name for p in parameters if p.kind in _POSITIONAL_KINDS]
    any_keyword = inspect.Parameter.VAR_KEYWORD in kinds
    any_positional = inspect.Parameter.VAR_POSITIONAL in kinds

    @functools.wraps(function)
    def public(*args: Any, **kwargs: Any) -> Any:
        if not any_keyword and not accepted.issuperset(kwargs):
            unknown = next(name for name in kwargs if name not in accepted)
            raise option_error(public_name, unknown, keywords)
        if not any_positional and len(args) > len(positional):
            raise _surplus_error(public_name, positional, len(args), keywords)
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            traceback = error.__traceback__
            if traceback is None or traceback.tb_next is not None:
                raise  # raised inside the function, not by the call
            words = str(error).replace(f"{function.__name__}()", f"{public_name}()", 1)
            raise ArgumentError(f"{words}; its arguments are: {', '.join(keywords)}") from None

    public.__public_name__ = public_name  # type: ignore[attr-defined]
    # pickle finds a function by its module and name: the module's name now holds the
    # wrapper, so the wrapper pickles as itself and prints as the function it wraps
    module = sys.modules.get(function.__module__)
    if module is not None and getattr(module, function.__qualname__, None) is function:
        setattr(module, function.__qualname__, public)
    _PUBLIC[function, public_name] = public
    return public
