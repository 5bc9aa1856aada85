"""The note that says which alternative hypothesis a test of metric(A) − metric(B) ran.

A two-sided test gets no note: its result shows ``alternative`` and a report
says once that every test is two-sided unless marked. A one-sided test and a
test against a margin (Schuirmann 1987) get one sentence about the alternative
that was run, never about one that was not asked.
"""

from __future__ import annotations

__all__ = ["alternative_note"]


def alternative_note(
    alternative: str,
    measure: str,
    *,
    margin: float | None = None,
    higher_is_better: bool = True,
) -> tuple[str, ...]:
    """The note (none, or one sentence) naming H1 about ``measure``(A) − ``measure``(B).

    Parameters
    ----------
    alternative : {"two-sided", "less", "greater", "equivalent", "non-inferior"}
        The alternative the test ran.
    measure : str
        How the measure is written in the note, e.g. ``"AUC"`` or ``"accuracy"``.
    margin : float, optional
        The margin of "equivalent" and "non-inferior".
    higher_is_better : bool
        For "non-inferior": whether A may not fall more than ``margin`` below B
        (a score) or rise more than ``margin`` above it (a loss).

    Returns
    -------
    tuple of str
        Empty for "two-sided"; otherwise one sentence starting in lower case, so
        that it reads on after "name of the test:".

    Examples
    --------
    >>> alternative_note("two-sided", "AUC")
    ()
    >>> alternative_note("greater", "AUC")
    ('the alternative hypothesis is one-sided, AUC(A) > AUC(B).',)
    >>> alternative_note("non-inferior", "log_loss", margin=0.01, higher_is_better=False)
    ('the alternative hypothesis is non-inferiority, log_loss(A) − log_loss(B) < 0.01.',)
    """
    a, b = f"{measure}(A)", f"{measure}(B)"
    if alternative == "greater":
        return (f"the alternative hypothesis is one-sided, {a} > {b}.",)
    if alternative == "less":
        return (f"the alternative hypothesis is one-sided, {a} < {b}.",)
    if alternative == "equivalent":
        return (f"the alternative hypothesis is equivalence, |{a} − {b}| < {margin:g}.",)
    if alternative == "non-inferior":
        bound = f"> −{margin:g}" if higher_is_better else f"< {margin:g}"
        return (f"the alternative hypothesis is non-inferiority, {a} − {b} {bound}.",)
    return ()
