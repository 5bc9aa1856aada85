"""The multiplicity corrections of many data sets, checked once where they are named.

Holm (1979) and the other step-wise procedures are statsmodels' ``multipletests``
methods (Seabold & Perktold 2010); Bergmann and Hommel (1988) is the exhaustive
procedure of :mod:`cvreport.multi.pairwise` for every pair of models.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cvreport.errors import CVReportError

__all__ = ["check_correction"]


def check_correction(
    correction: Any, *, own: Sequence[str] = (), option: str = "correction"
) -> str | None:
    """The correction named by ``correction``: ``None`` for none, else a method name.

    Parameters
    ----------
    correction : str or None
        ``None`` or ``"none"``, a statsmodels ``multipletests`` method (``"holm"``,
        ``"bonferroni"``, ``"fdr_bh"``, …) or one of ``own``.
    own : sequence of str
        Further methods the caller implements itself (e.g. ``"bergmann-hommel"``).
    option : str
        The option's name in the message.

    Returns
    -------
    str or None

    Raises
    ------
    CVReportError
        Anything else, before a single test runs.

    Examples
    --------
    >>> check_correction("holm"), check_correction("none"), check_correction(None)
    ('holm', None, None)
    >>> check_correction("holmm")
    Traceback (most recent call last):
    ...
    cvreport.errors.CVReportError: unknown correction='holmm'; use 'holm', 'none' or another statsmodels multipletests method such as 'bonferroni', 'holm-sidak' or 'fdr_bh'
    """
    if correction is None:
        return None
    if isinstance(correction, str):
        if correction.lower() == "none":
            return None
        if correction in own:
            return correction
        from statsmodels.stats.multitest import multipletests

        try:
            multipletests([0.01, 0.5], method=correction)
        except ValueError:
            pass
        else:
            return correction
    named = ", ".join(repr(name) for name in (*own, "holm", "none"))
    raise CVReportError(
        f"unknown {option}={correction!r}; use {named} or another statsmodels "
        "multipletests method such as 'bonferroni', 'holm-sidak' or 'fdr_bh'"
    )
