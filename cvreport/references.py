"""The bibliography of reports and plans: every paper once, with authors, year and venue.

Tests cite the equations they implement (``…, eqs. 4–7.``); a bibliography lists
the paper. :func:`bibliography` strips such pointers, completes citations the
tests give without year or venue, and keeps the first occurrence of each paper.

Examples
--------
>>> for line in bibliography([
...     "Wang, Y., Li, J., Li, Y. (2017). Choosing. Neural Processing Letters 46:1–13, eqs. 4–7.",
...     "Wang, Y., Li, J., Li, Y. (2017). Choosing. Neural Processing Letters 46:1–13.",
... ]):
...     print(line)
Wang, Y., Li, J., Li, Y. (2017). Choosing. Neural Processing Letters 46:1–13.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "BENAVOLI_REFERENCE",
    "HOLM_REFERENCE",
    "OVERLAP_REFERENCE",
    "SCHUIRMANN_REFERENCE",
    "bibliography",
    "cited_by_name",
]

HOLM_REFERENCE = (
    "Holm, S. (1979). A simple sequentially rejective multiple test procedure. "
    "Scandinavian Journal of Statistics 6(2):65–70."
)
OVERLAP_REFERENCE = (
    "Wang, Y., Li, J., Li, Y. (2015). Measure for data partitioning in m×2 cross-validation. "
    "Pattern Recognition Letters 65:211–217."
)
BENAVOLI_REFERENCE = (
    "Benavoli, A., Corani, G., Demšar, J., Zaffalon, M. (2017). Time for a change: a tutorial "
    "for comparing multiple classifiers through Bayesian analysis. Journal of Machine "
    "Learning Research 18(77):1–36."
)
SCHUIRMANN_REFERENCE = (
    "Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power "
    "approach for assessing the equivalence of average bioavailability. Journal of "
    "Pharmacokinetics and Biopharmaceutics 15(6):657–680."
)
YANG_REFERENCE = (
    "Yang, J., Wang, R., Song, Y., Li, J. (2023). Block-regularized 5×2 cross-validated "
    "McNemar's test for comparing two classification algorithms. arXiv:2304.03990."
)

# citations given without year or venue, recognised by their authors, completed here
_COMPLETE = {"Yang, J., Wang, R., Song, Y., Li, J.": YANG_REFERENCE}
# a pointer into a paper runs to the end of its citation: the next "; " starts another paper
_POINTER = re.compile(r",\s*(eqs?\.|§|Lemma|Corollary)\s[^;]*")
# a full citation's first author's surname and its year: "Nadeau, C. and Bengio, Y. (2003)."
_AUTHOR_YEAR = re.compile(r"\s*([^\W\d_][\w'’-]*),[^()]*\((\d{4})\)")


def _key(reference: str) -> str:
    """Authors and year (or title) of a citation: what makes two citations the same paper."""
    head = reference.split(").", 1)[0] if ")." in reference else reference[:80]
    return re.sub(r"\W+", " ", head).strip().lower()


def _clean(reference: str) -> str:
    text = " ".join(reference.split())
    for authors, full in _COMPLETE.items():
        if text.startswith(authors) and "(" not in text[: len(authors) + 2]:
            return full
    stripped = _POINTER.sub("", text).rstrip(",; ")
    if stripped and not stripped.endswith("."):
        stripped += "."
    return stripped or text


def bibliography(cited: Iterable[str]) -> list[str]:
    """Each cited paper once, in order of first citation, complete and without equation pointers."""
    seen: dict[str, str] = {}
    for reference in cited:
        for part in str(reference).split("\n"):
            if not part.strip():
                continue
            clean = _clean(part)
            seen.setdefault(_key(clean), clean)
    return list(seen.values())


def cited_by_name(
    texts: Iterable[str], known: Iterable[str], *, listed: Iterable[str] = ()
) -> list[str]:
    """The known papers that the texts cite by first author and year, complete and once.

    A report's sentences cite papers short (``Nadeau and Bengio 2003``); its
    bibliography must list each of them, though no test that ran gives it.

    Parameters
    ----------
    texts : iterable of str
        The sentences the reader sees.
    known : iterable of str
        Full citations (one per line; several lines each a paper).
    listed : iterable of str
        Citations already listed: a paper one of them names (first author and
        year, even inside a joint citation) is not returned again.

    Returns
    -------
    list of str
        The known papers cited in ``texts``, in the order of ``known``.

    Examples
    --------
    >>> cited_by_name(
    ...     ["the corrected t test widens the variance (Nadeau and Bengio 2003)."],
    ...     ["Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error. "
    ...      "Machine Learning 52(3):239–281.",
    ...      "Koehn, P. (2004). Statistical significance tests. EMNLP 2004:388–395."],
    ... )
    ['Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error. Machine Learning 52(3):239–281.']
    """
    text = " ".join(texts)
    listed = [" ".join(str(entry).split()) for entry in listed]
    found: list[str] = []
    for reference in known:
        for part in str(reference).split("\n"):
            clean = _clean(part)
            match = _AUTHOR_YEAR.match(clean)
            if match is None:
                continue
            surname, year = match[1], match[2]
            named = re.search(rf"\b{re.escape(surname)}\b[^()]{{0,60}}?\b{year}\b", text)
            known_already = any(f"{surname}, " in e and f"({year})" in e for e in listed)
            if named and not known_already and clean not in found:
                found.append(clean)
    return found
