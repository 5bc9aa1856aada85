"""The one check of a numeric option (a real number, not text, not True/False), of a switch
and of a significance level.

Every numeric keyword of cvreport (a level, a null error rate ``p0``, a ROPE, a
margin, a test/train ratio, a correlation, a prior, a number of draws) goes
through :func:`real_option` or :func:`integer_option` before its range is
checked, so that ``p0="0.1"`` is refused in the same words as ``alpha="0.05"``
instead of being read through ``float()`` on one route and refused on another.
Numpy scalars (``np.float32(0.05)``, ``np.int64(3)``, a 0-d array of numbers),
fractions and decimals are numbers; ``True``, text, ``None`` and arrays of several values are not.
A switch (``tie_correction``, ``per_fold``) goes through :func:`bool_option`, so
that ``"no"`` is not read as true.

Examples
--------
>>> real_option(0.05, "p0", "a number strictly between 0 and 1")
0.05
>>> real_option("0.05", "p0", "a number strictly between 0 and 1")
Traceback (most recent call last):
...
cvreport.errors.CVReportError: p0 must be a number strictly between 0 and 1, got the text '0.05'; write the number itself (p0=0.05, not p0='0.05')
"""

from __future__ import annotations

import decimal
import math
import numbers
from typing import Any

import numpy as np

from cvreport.errors import CVReportError

__all__ = ["bool_option", "check_alpha", "integer_option", "real_option"]


def _not_a_number(
    value: Any, name: str, requirement: str, error: type[CVReportError]
) -> CVReportError:
    if isinstance(value, str | bytes):
        text = value.decode(errors="replace") if isinstance(value, bytes) else value
        return error(
            f"{name} must be {requirement}, got the text {value!r}; write the number itself "
            f"({name}={text.strip()}, not {name}={text!r})"
        )
    if isinstance(value, bool | np.bool_):
        return error(
            f"{name} must be {requirement}, got {value!r}: True and False are not numbers here"
        )
    return error(f"{name} must be {requirement}, got {value!r} ({type(value).__name__})")


def real_option(
    value: Any,
    name: str,
    requirement: str,
    *,
    finite: bool = True,
    error: type[CVReportError] = CVReportError,
    hint: str = "",
) -> float:
    """``value`` as a float when it is a real number, else a :class:`CVReportError`.

    Parameters
    ----------
    value : Any
        What the user passed.
    name : str
        The option's name, as the message shows it (``"p0"``, ``"--alpha"``).
    requirement : str
        What the option must be, completing "``name`` must be ...", e.g.
        ``"a number strictly between 0 and 1"``; the caller checks the range.
    finite : bool
        Refuse NaN and ±inf too (default).
    error : type of CVReportError
        The class raised (:class:`~cvreport.errors.DataError` where the option
        describes the data, e.g. a test/train ratio).
    hint : str
        A sentence added to the message of a value that is not a number.

    Returns
    -------
    float

    Raises
    ------
    CVReportError
        For text, ``True``/``False``, ``None``, arrays of several values and other
        non-numbers, and
        (with ``finite``) for NaN and infinities.

    Examples
    --------
    >>> real_option(np.float32(0.25), "rope", "a number ≥ 0")
    0.25
    >>> real_option(True, "rope", "a number ≥ 0")
    Traceback (most recent call last):
    ...
    cvreport.errors.CVReportError: rope must be a number ≥ 0, got True: True and False are not numbers here
    """
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value[()]  # a number that went through numpy, e.g. a ratio of sums
    if isinstance(value, decimal.Decimal):  # a number, though not a numbers.Real
        value = float(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        exc = _not_a_number(value, name, requirement, error)
        raise error(f"{exc}; {hint}" if hint else str(exc))
    number = float(value)
    if finite and not math.isfinite(number):
        raise error(f"{name} must be {requirement}, got {value!r}")
    return number


def integer_option(value: Any, name: str, requirement: str) -> int:
    """``value`` as an int when it is a whole real number (``5`` or ``5.0``), else an error.

    Examples
    --------
    >>> integer_option(np.int64(20), "n_sim", "an integer ≥ 1")
    20
    >>> integer_option(1.5, "n_sim", "an integer ≥ 1")
    Traceback (most recent call last):
    ...
    cvreport.errors.CVReportError: n_sim must be an integer ≥ 1, got 1.5
    """
    number = real_option(value, name, requirement)
    if not number.is_integer():
        raise CVReportError(f"{name} must be {requirement}, got {value!r}")
    return int(number)


def bool_option(value: Any, name: str) -> bool:
    """``value`` when it is True or False (numpy's too), else a :class:`CVReportError`.

    ``"no"`` or ``"False"`` would read as true; 0 and 1 are refused too, so that a
    switch is never a number.

    Examples
    --------
    >>> bool_option(np.bool_(False), "tie_correction")
    False
    >>> bool_option("no", "tie_correction")
    Traceback (most recent call last):
    ...
    cvreport.errors.CVReportError: tie_correction must be True or False, got the text 'no' (any text but '' would read as True)
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, str):
        raise CVReportError(
            f"{name} must be True or False, got the text {value!r} (any text but '' would "
            "read as True)"
        )
    raise CVReportError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")


def check_alpha(alpha: Any, name: str = "alpha") -> float:
    """Validate a significance level: a real number strictly between 0 and 1.

    The one check of a level in cvreport: results, reports, audits, plans, the
    explorer and the command line all call it.

    Parameters
    ----------
    alpha : float
        The level.
    name : str
        How the message names it (``"--alpha"`` on the command line).

    Returns
    -------
    float
        ``alpha`` as a float.

    Raises
    ------
    CVReportError
        When ``alpha`` is not a number in (0, 1).

    Examples
    --------
    >>> check_alpha(0.01)
    0.01
    >>> check_alpha(1.5)
    Traceback (most recent call last):
    ...
    cvreport.errors.CVReportError: alpha must lie strictly between 0 and 1, got 1.5; 0.05 is usual
    """
    usual = f"{name} must lie strictly between 0 and 1; 0.05 is usual"
    value = real_option(alpha, name, "a number between 0 and 1", finite=False, hint=usual)
    if not 0 < value < 1:
        raise CVReportError(
            f"{name} must lie strictly between 0 and 1, got {alpha!r}; 0.05 is usual"
        )
    return value
