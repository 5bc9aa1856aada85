"""How a message names an option: the keyword in Python, the flag on the command line.

A message is written once, with :func:`option` where it names an option; it reads
``per_fold=True`` to a Python user and ``--per-fold`` to a command-line user. The
command line runs its commands inside :func:`command_line`, which switches the
spelling for every message raised or warned meanwhile (a context variable, so
threads and notebooks that run the API beside it keep the Python spelling).

Examples
--------
>>> option("per_fold", True), option("direction", "higher"), option("record")
('per_fold=True', "direction='higher'", 'record=...')
>>> with command_line():
...     option("per_fold", True), option("direction", "higher"), option("record")
('--per-fold', '--direction higher', '--record COLUMN')
>>> option("per_fold", False), on_command_line()
('per_fold=False', False)
>>> with command_line():
...     option("per_fold", False)
'no --per-fold'
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["command_line", "on_command_line", "option"]

_COMMAND_LINE: ContextVar[bool] = ContextVar("cvreport_command_line", default=False)

_NO_VALUE = object()

#: each keyword's flag, and what the flag's value is called in a message without one
#: (``None``: a switch, given or not)
_FLAGS: dict[str, tuple[str, str | None]] = {
    "per_fold": ("--per-fold", None),
    "overwrite": ("--overwrite", None),
    "direction": ("--direction", "lower|higher"),
    "record": ("--record", "COLUMN"),
    "truth": ("--truth", "COLUMN"),
    "prediction": ("--prediction", "COLUMN"),
    "score": ("--score", "COLUMN"),
    "cluster": ("--cluster", "COLUMN"),
    "metric": ("--metric", "NAME"),
    "test_train_ratio": ("--test-train-ratio", "RATIO"),
    "engine": ("--engine", "NAME"),
}


@contextmanager
def command_line() -> Iterator[None]:
    """Name options by their command-line flags in every message made inside."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


def on_command_line() -> bool:
    """Whether messages are being made for the command line."""
    return _COMMAND_LINE.get()


def option(keyword: str, value: object = _NO_VALUE, *, aside: bool = False) -> str:
    """How to give option ``keyword`` (with ``value``, if one is meant) where the user is.

    Parameters
    ----------
    keyword : str
        The Python keyword (``"per_fold"``); the flag is looked up from it.
    value : object, optional
        The value to name; without it the message names the option alone
        (``record=...``, ``--record COLUMN``).
    aside : bool
        Name the other spelling too: in Python the flag follows in parentheses
        (``record=... (--record on the command line)``), and on the command line the
        flag says where it goes (``--record on the command line``).

    Returns
    -------
    str
        ``keyword=value`` in Python; on the command line the flag, with the value
        when the flag takes one (``--direction higher``), for a switch the flag when
        ``value`` is true and ``no --flag`` when it is false.

    Examples
    --------
    >>> option("record", aside=True)
    'record=... (--record on the command line)'
    >>> with command_line():
    ...     option("record", aside=True)
    '--record on the command line'
    """
    python = f"{keyword}=..." if value is _NO_VALUE else f"{keyword}={value!r}"
    if keyword not in _FLAGS:
        return python
    flag, placeholder = _FLAGS[keyword]
    if placeholder is None:
        spelled = f"no {flag}" if value is not _NO_VALUE and not value else flag
        bare = spelled
    else:
        spelled = f"{flag} {placeholder if value is _NO_VALUE else value}"
        bare = flag if value is _NO_VALUE else spelled
    if on_command_line():
        return f"{bare} on the command line" if aside else spelled
    return f"{python} ({bare} on the command line)" if aside else python
