"""The options of the resampling tests, checked before any data is read.

Every option of :func:`~cvreport.methods.resampling.paired_bootstrap_test` and
:func:`~cvreport.methods.resampling.paired_permutation_test` is checked up front
with a :class:`~cvreport.errors.CVReportError` that names the option and the
values it takes; a misspelt keyword names the accepted ones and the closest.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from cvreport.errors import CVReportError
from cvreport.methods.arguments import option_error
from cvreport.option_values import integer_option, real_option
from cvreport.results import check_alternative

__all__ = [
    "BOOTSTRAP_METHODS",
    "check_bootstrap_options",
    "check_option_names",
    "check_permutation_options",
    "options_checked",
    "random_generator",
    "seed_words",
]


BOOTSTRAP_METHODS = ("BCa", "percentile")


def check_option_names(function: str, given: Any, accepted: list[str]) -> None:
    """An :class:`~cvreport.errors.ArgumentError` naming an unknown keyword, the accepted ones
    and the closest (:func:`cvreport.methods.arguments.option_error`)."""
    unknown = [name for name in given if name not in accepted]
    if unknown:
        raise option_error(function, unknown[0], accepted)


def options_checked(function: Callable[..., Any]) -> Callable[..., Any]:
    """Check the keyword names of a call against ``function``'s before running it."""
    accepted = list(inspect.signature(function).parameters)

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        check_option_names(function.__name__, kwargs, accepted)
        return function(*args, **kwargs)

    return checked


def _integer_option(name: str, value: Any, minimum: int) -> int:
    number = integer_option(value, name, f"an integer ≥ {minimum}")
    if number < minimum:
        raise CVReportError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return number


def _check_common(
    alternative: Any, n_resamples: Any, batch: Any, progress: Any, random_state: Any, minimum: int
) -> tuple[int, int | None, np.random.Generator]:
    if not isinstance(alternative, str):
        raise CVReportError(
            f"alternative must be 'two-sided', 'less' or 'greater', got {alternative!r}"
        )
    check_alternative(alternative)
    n = _integer_option("n_resamples", n_resamples, minimum)
    size = None if batch is None else _integer_option("batch", batch, 1)
    if progress is not None and not isinstance(progress, bool | np.bool_):
        raise CVReportError(f"progress must be True, False or None, got {progress!r}")
    return n, size, random_generator(random_state)


def random_generator(random_state: Any) -> np.random.Generator:
    """The generator scipy.stats would use for ``rng=random_state``, or a :class:`CVReportError`.

    None, a non-negative integer or a :class:`numpy.random.SeedSequence` seed
    :func:`numpy.random.default_rng`; a Generator is used as it is (and
    advanced); a legacy RandomState lends its bit generator to a Generator, as
    scipy.stats does with ``rng=``.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.Generator(random_state._bit_generator)
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state >= 0:
            return np.random.default_rng(int(random_state))
    raise CVReportError(
        "random_state must be None, a non-negative integer seed, a numpy.random.SeedSequence, "
        f"numpy.random.Generator or RandomState, got {random_state!r}"
    )


def seed_words(random_state: Any) -> str:
    """Which random draws a resampling test made, in words, for its summary.

    >>> seed_words(0), seed_words(None)[:9]
    ('seed 0', 'unseeded:')
    """
    if random_state is None:
        return (
            "unseeded: another run gives another p-value and interval; pass random_state= "
            "(e.g. 0) to repeat them"
        )
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return f"seed {int(random_state)}"
    if isinstance(random_state, np.random.SeedSequence):
        return f"numpy SeedSequence with entropy {random_state.entropy}"
    return (
        f"the {type(random_state).__name__} given as random_state, in the state it had "
        "(a second run with it continues from where this one stopped)"
    )


def check_bootstrap_options(
    n_resamples: Any = 9999,
    confidence_level: Any = 0.95,
    method: Any = "BCa",
    alternative: Any = "two-sided",
    random_state: Any = None,
    batch: Any = None,
    progress: Any = None,
) -> dict[str, Any]:
    """The bootstrap's options checked and normalised, or a :class:`CVReportError`."""
    if not isinstance(method, str) or method.lower() not in ("bca", "percentile"):
        raise CVReportError(f"method must be 'BCa' or 'percentile', got {method!r}")
    requirement = "a number in (0, 1), e.g. 0.95"
    level = real_option(confidence_level, "confidence_level", requirement, finite=False)
    if not 0 < level < 1:
        raise CVReportError(f"confidence_level must be {requirement}, got {confidence_level!r}")
    n, size, rng = _check_common(alternative, n_resamples, batch, progress, random_state, 2)
    return {
        "n_resamples": n,
        "confidence_level": level,
        "method": "BCa" if method.lower() == "bca" else "percentile",
        "alternative": alternative,
        "rng": rng,
        "seed": seed_words(random_state),
        "batch": size,
        "progress": progress,
    }


def check_permutation_options(
    n_resamples: Any = 9999,
    alternative: Any = "two-sided",
    random_state: Any = None,
    batch: Any = None,
    progress: Any = None,
) -> dict[str, Any]:
    """The permutation test's options checked and normalised, or a :class:`CVReportError`."""
    n, _, rng = _check_common(alternative, n_resamples, batch, progress, random_state, 1)
    return {
        "n_resamples": n,
        "alternative": alternative,
        "rng": rng,
        "seed": seed_words(random_state),
        "progress": progress,
    }
