"""Number, p-value and escaping filters shared by every output format.

HTML, Markdown, LaTeX and plain text all format numbers through these
functions, so every output agrees on every digit.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

__all__ = [
    "PVALUE_DIGITS",
    "STAT_DIGITS",
    "escape_latex",
    "escape_markdown",
    "format_by_kind",
    "format_df",
    "format_interval",
    "format_number",
    "format_probability",
    "format_pvalue",
    "format_value",
    "latex_number_text",
    "markdown_table_code",
    "pvalue_equals",
    "significance_stars",
    "strip_bidi_controls",
    "strip_xml_forbidden",
]

STAT_DIGITS = 4
PVALUE_DIGITS = 3


def _is_number(x: Any) -> bool:
    return (isinstance(x, (int, float)) and not isinstance(x, bool)) or hasattr(x, "dtype")


def format_number(x: Any, digits: int = STAT_DIGITS) -> str:
    """Format a statistic with ``digits`` decimals; scientific when very small or large.

    >>> format_number(3.0625)
    '3.0625'
    >>> format_number(float("inf"))
    'inf'
    """
    if x is None:
        return "—"
    if not _is_number(x):
        return str(x)
    value = float(x)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if float(value).is_integer() and abs(value) < 1e9 and isinstance(x, int):
        return str(int(value))
    if value != 0 and (abs(value) < 10 ** (-digits) or abs(value) >= 1e7):
        return f"{value:.{digits - 1}e}"
    return f"{value:.{digits}f}"


def format_pvalue(p: Any, digits: int = PVALUE_DIGITS, *, less_than: str = "<") -> str:
    """Format a p-value with ``digits`` decimals, ``<0.001`` below display precision.

    >>> format_pvalue(0.080118)
    '0.080'
    >>> format_pvalue(1e-7)
    '<0.001'
    """
    if p is None:
        return "—"
    value = float(p)
    if math.isnan(value):
        return "nan"
    threshold = 10.0**-digits
    if value < threshold:
        return f"{less_than}{threshold:.{digits}f}"
    return f"{value:.{digits}f}"


def format_probability(
    p: Any, digits: int = STAT_DIGITS, *, less_than: str = "<", greater_than: str = ">"
) -> str:
    """Format a probability with ``digits`` decimals, beside others of its table.

    A probability that rounds to 0 or 1 but is not is shown by its bound
    (``<0.0001``, ``>0.9999``), never in scientific notation: a posterior of
    8.7e-05 printed beside 0.9870 would read as another kind of number.

    >>> format_probability(3e-05), format_probability(8.733e-05), format_probability(0.0)
    ('<0.0001', '0.0001', '0.0000')
    >>> format_probability(0.99999)
    '>0.9999'
    """
    if p is None:
        return "—"
    value = float(p)
    if math.isnan(value):
        return "nan"
    step = 10.0**-digits
    if -step / 2 < value <= 0.0:
        value = 0.0  # −0.0 or a rounding error below 0 prints as 0, never "-0.0000"
    if 0.0 < value < step / 2:
        return f"{less_than}{step:.{digits}f}"
    if 1.0 - step / 2 <= value < 1.0:
        return f"{greater_than}{1.0 - step:.{digits}f}"
    return f"{value:.{digits}f}"


def format_df(df: Any) -> str:
    """Format degrees of freedom: integers plainly, fractions with 4 decimals, pairs as ``(a, b)``."""
    if df is None:
        return "—"
    if isinstance(df, (tuple, list)):
        return "(" + ", ".join(format_df(d) for d in df) + ")"
    value = float(df)
    if value.is_integer():
        return str(int(value))
    return f"{value:.4f}"


def format_value(x: Any) -> str:
    """Format any summary value: numbers as statistics, pairs elementwise, others as text."""
    if isinstance(x, tuple):
        return "(" + ", ".join(format_value(v) for v in x) + ")"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if _is_number(x):
        return format_number(x)
    return "—" if x is None else str(x)


def pvalue_equals(p: Any, name: str = "p") -> str:
    """``p = 0.012``, or ``p < 0.001`` below the display precision (never ``p = <0.001``).

    >>> pvalue_equals(0.0123), pvalue_equals(1e-6), pvalue_equals(0.2, "adjusted p")
    ('p = 0.012', 'p < 0.001', 'adjusted p = 0.200')
    """
    shown = format_pvalue(p)
    return f"{name} {shown[0]} {shown[1:]}" if shown[:1] in "<>" and shown else f"{name} = {shown}"


def format_interval(interval: Any, digits: int = STAT_DIGITS) -> str:
    """Format a ``(low, high)`` interval as ``[low, high]``; ``—`` when there is none.

    The open end of a one-sided interval is ``−∞`` or ``∞``, with a round bracket.

    >>> format_interval((-0.0123, 0.04))
    '[-0.0123, 0.0400]'
    >>> format_interval((float("-inf"), -0.0009))
    '(−∞, -0.0009]'
    >>> format_interval(None)
    '—'
    """
    if interval is None:
        return "—"
    low, high = interval
    left = "(−∞" if _is_infinite(low) else f"[{format_number(low, digits)}"
    right = "∞)" if _is_infinite(high) else f"{format_number(high, digits)}]"
    return f"{left}, {right}"


def _is_infinite(value: Any) -> bool:
    try:
        return math.isinf(float(value))
    except (TypeError, ValueError):
        return False


STAR_LEVELS = ((0.001, "***"), (0.01, "**"), (0.05, "*"))


def significance_stars(p: Any) -> str:
    """Conventional stars for a p-value: ``***`` below 0.001, ``**`` below 0.01, ``*`` below 0.05.

    >>> significance_stars(0.004), significance_stars(0.2)
    ('**', '')
    """
    if p is None:
        return ""
    value = float(p)
    if math.isnan(value):
        return ""
    for level, stars in STAR_LEVELS:
        if value < level:
            return stars
    return ""


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # a "[" opening a table cell or an \item would be read as an optional argument
    "[": "{[}",
    "]": "{]}",
    # T1 fonts turn `` '' ,, !` ?` into quotes and marks; keep the characters typed
    "`": r"\textasciigrave{}",
    '"': r"{\ttfamily\char34}",  # a straight quote in T1 and OT1 (\textquotedbl is T1 only)
}
# Symbols pdflatex cannot typeset from UTF-8 input without extra packages, spelled
# as LaTeX commands so that a fragment can be \input into any paper. Math symbols
# are given without the surrounding $...$ (added on output) so that combining
# accents can wrap them: "μ̂" becomes $\hat{\mu}$.
_LATEX_MATH = {
    "×": r"\times",
    "−": "-",
    "±": r"\pm",
    "∓": r"\mp",
    "≤": r"\leq",
    "≥": r"\geq",
    "≈": r"\approx",
    "≠": r"\neq",
    "≡": r"\equiv",
    "∼": r"\sim",
    "∝": r"\propto",
    "∈": r"\in",
    "∉": r"\notin",
    "⊂": r"\subset",
    "∩": r"\cap",
    "∪": r"\cup",
    "∅": r"\emptyset",
    "∞": r"\infty",
    "∑": r"\sum",
    "∏": r"\prod",
    "∫": r"\int",
    "∂": r"\partial",
    "∇": r"\nabla",
    "√": r"\surd",
    "·": r"\cdot",
    "•": r"\bullet",
    "∘": r"\circ",
    "′": r"\prime",
    "→": r"\rightarrow",
    "←": r"\leftarrow",
    "↔": r"\leftrightarrow",
    "⇒": r"\Rightarrow",
    "⇔": r"\Leftrightarrow",
    "÷": r"\div",
    "¬": r"\neg",
    "∧": r"\wedge",
    "∨": r"\vee",
    "∀": r"\forall",
    "∃": r"\exists",
    "ℓ": r"\ell",
    "°": r"^{\circ}",
    "µ": r"\mu",
}
_GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "varsigma sigma tau upsilon phi chi psi omega"
).split()
for _offset, _name in enumerate(_GREEK):
    _LATEX_MATH[chr(0x3B1 + _offset)] = {"epsilon": r"\varepsilon", "omicron": "o"}.get(
        _name, "\\" + _name
    )
    _upper = chr(0x391 + _offset)
    if _name in (
        "gamma",
        "delta",
        "theta",
        "lambda",
        "xi",
        "pi",
        "sigma",
        "upsilon",
        "phi",
        "psi",
        "omega",
    ):
        _LATEX_MATH[_upper] = "\\" + _name.capitalize()
    elif _name != "varsigma":
        _LATEX_MATH[_upper] = {
            "alpha": "A",
            "beta": "B",
            "epsilon": "E",
            "zeta": "Z",
            "eta": "H",
            "iota": "I",
            "kappa": "K",
            "mu": "M",
            "nu": "N",
            "omicron": "O",
            "rho": "P",
            "tau": "T",
            "chi": "X",
        }[_name]
_LATEX_MATH["ϕ"] = r"\phi"
_LATEX_MATH["ϵ"] = r"\epsilon"
for _digit, (_sup, _sub) in enumerate(zip("⁰¹²³⁴⁵⁶⁷⁸⁹", "₀₁₂₃₄₅₆₇₈₉")):
    _LATEX_MATH[_sup] = f"^{{{_digit}}}"
    _LATEX_MATH[_sub] = f"_{{{_digit}}}"
_LATEX_MATH.update({"⁺": "^{+}", "⁻": "^{-}", "ⁿ": "^{n}", "₊": "_{+}", "₋": "_{-}"})
_LATEX_MATH.update({"⁽": "^{(}", "⁾": "^{)}", "₍": "_{(}", "₎": "_{)}"})

# a permitted line break that may stretch a little (a word has no other glue)
_BREAK_GLUE = r"{\hskip0pt plus6pt}"
_LATEX_TEXT = {
    "—": "---",
    "–": "--",
    "…": r"\ldots{}",
    "“": "``",
    "”": "''",
    "‘": "`",
    "’": "'",
    "„": ",,",
    "«": "``",
    "»": "''",
    # the few Latin Extended-A letters pdflatex's T1 encoding lacks
    "Ħ": "H",
    "ħ": r"$\hbar$",
    "ĸ": "k",
    "Ŀ": r"L$\cdot$",
    "ŀ": r"l$\cdot$",
    "ŉ": "'n",
    "Ŧ": "T",
    "ŧ": "t",
    "ſ": "s",
    "½": r"$\frac{1}{2}$",
    "¼": r"$\frac{1}{4}$",
    "¾": r"$\frac{3}{4}$",
    "§": r"\S{}",
    "¶": r"\P{}",
    "ı": r"{\i}",
    "\u00a0": "~",
    "\t": " ",
    "\r": " ",
    # a blank line would end the paragraph (or break the table cell it is in)
    "\n": " ",
    "\u200b": _BREAK_GLUE,
}
_ACCENTS = {"\u0302": r"\hat", "\u0304": r"\bar", "\u0303": r"\tilde", "\u0307": r"\dot"}
_LATEX_RE = re.compile(
    # "--", "''" and ",," would become a dash or quotes: separate the pair
    "(?P<ligature>[-',](?=[-',]))|"
    "(?P<base>[A-Za-z" + re.escape("".join(k for k in _LATEX_MATH if len(k) == 1)) + "])"
    "(?P<accent>[" + "".join(_ACCENTS) + "])"
    "|(?P<char>[\\s\\S])"
)


def _latex_char(ch: str) -> str:
    if ch in _LATEX_SPECIAL:
        return _LATEX_SPECIAL[ch]
    if ch in _LATEX_MATH:
        return f"${_LATEX_MATH[ch]}$"
    if ch in _LATEX_TEXT:
        return _LATEX_TEXT[ch]
    code = ord(ch)
    if 32 <= code < 127 or 0xA0 <= code <= 0x17F:
        return ch  # ASCII, Latin-1 and Latin Extended-A: pdflatex sets them with T1 fonts
    if unicodedata.category(ch) in ("Mn", "Me", "Cf", "Cc", "Cs", "Co", "Cn"):
        return ""  # a combining mark without a base the table knows, or an invisible control
    if unicodedata.category(ch).startswith("Z"):
        return " "
    # anything else would stop pdflatex; keep it legible, in braces so that it
    # can open a table row or an \item
    return f"{{[}}U+{code:04X}{{]}}{_BREAK_GLUE}"


def _latex_match(match: re.Match[str]) -> str:
    ligature = match.group("ligature")
    if ligature is not None:
        return ligature + "{}"
    base = match.group("base")
    if base is not None:
        inner = _LATEX_MATH.get(base, base)
        return f"${_ACCENTS[match.group('accent')]}{{{inner}}}$"
    return _latex_char(match.group("char"))


def escape_latex(text: Any) -> str:
    r"""Escape LaTeX special characters and spell symbols pdflatex cannot set as commands.

    The output contains only ASCII and Latin-1/Latin Extended-A letters, which
    pdflatex's default UTF-8 input typesets with T1 fonts (``\usepackage[T1]{fontenc}``;
    plain ASCII needs nothing); other symbols become
    commands (``×`` → ``$\times$``, ``μ̂`` → ``$\hat{\mu}$``) or, when unknown,
    a visible ``[U+XXXX]``.

    >>> escape_latex("a_b & c%$#")
    'a\\_b \\& c\\%\\$\\#'
    >>> escape_latex("5×2, ρ² ∈ (0, ½), μ̂")
    '5$\\times$2, $\\rho^{2}$ $\\in$ (0, $\\frac{1}{2}$), $\\hat{\\mu}$'

    The sign of a negative number is a minus, not a hyphen; a hyphen inside a word or
    a range is kept:

    >>> escape_latex("A − B = -0.0573 on model-1, folds 284-285")
    'A $-$ B = $-$0.0573 on model-1, folds 284-285'
    """
    breakable = _LONG_WORD.sub(_breakable, _minus_signs(str(text)))
    merged = _ADJACENT_MATH.sub("", _LATEX_RE.sub(_latex_match, breakable))
    # "^{(}^{1}^{)}" is a double superscript to TeX: one group, "^{(1)}"
    return _CHAINED_SCRIPT.sub(_join_scripts, merged)


# a hyphen that starts a number ("-0.0573", "[-0.1") is its sign; typeset it as a minus
_NUMBER_SIGN = re.compile(r"(?<![\w.\-+])-(?=\.?\d)")


def _minus_signs(text: str) -> str:
    return _NUMBER_SIGN.sub("\u2212", text)


def latex_number_text(text: Any) -> str:
    """A formatted number (or interval) for LaTeX: its negative signs become minus signs.

    >>> latex_number_text("[-0.0415, 0.1255]"), latex_number_text("8.956e-05")
    ('[$-$0.0415, 0.1255]', '8.956e-05')
    """
    return _NUMBER_SIGN.sub("$-$", str(text))


# A word longer than a line stops pdflatex ("Dimension too large") or runs off
# the page: a zero-width space every few characters of a long run becomes a
# permitted line break.
_LONG_WORD = re.compile(r"\S{60,}")
_BREAK_EVERY = 8


def _breakable(match: re.Match[str]) -> str:
    word = match.group(0)
    return "\u200b".join(word[i : i + _BREAK_EVERY] for i in range(0, len(word), _BREAK_EVERY))


# "$\\rho$$^{2}$" reads better as "$\\rho^{2}$"; an escaped dollar "\\$" is never merged
_ADJACENT_MATH = re.compile(r"(?<!\\)\$\$")
_CHAINED_SCRIPT = re.compile(r"(\^|_)\{[^{}]*\}(?:\1\{[^{}]*\})+")


def _join_scripts(match: re.Match[str]) -> str:
    mark = match.group(1)
    parts = re.findall(r"\{([^{}]*)\}", match.group(0))
    return f"{mark}{{{''.join(parts)}}}"


_MD_RE = re.compile(r"([\\`*_\[\]<>|$&~])")


_LINE_BREAK_RE = re.compile(r"\s*[\r\n]+\s*")


# Explicit direction controls in a name would reorder the text after it (a p-value, the
# other model's name): "Trojan Source"-style spoofing of a report.
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def strip_bidi_controls(text: str) -> str:
    """Remove the Unicode bidirectional embedding, override and isolate controls.

    >>> strip_bidi_controls("model\u202eA")
    'modelA'
    """
    return _BIDI_CONTROLS.sub("", text)


# Characters XML 1.0 forbids (C0 controls but tab, newline and CR; lone surrogates; U+FFFE/FFFF):
# one in a model's name would make an SVG figure or an XHTML parser refuse the whole file.
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def strip_xml_forbidden(text: str) -> str:
    """Remove the characters XML 1.0 forbids (W3C XML 1.0, §2.2 "Characters").

    >>> strip_xml_forbidden("a\\x01b\\x1b[31m\\tc")
    'ab[31m\\tc'
    """
    return _XML_FORBIDDEN.sub("", text)


def escape_markdown(text: Any) -> str:
    """Escape characters that Markdown (GitHub flavour) would interpret, including ``|``.

    Line breaks become spaces, since one would end a table row.

    >>> escape_markdown("a|b\\nc_d")
    'a\\\\|b c\\\\_d'
    """
    return _MD_RE.sub(r"\\\1", _LINE_BREAK_RE.sub(" ", strip_bidi_controls(str(text))))


def format_by_kind(
    value: Any, kind: str = "value", *, less_than: str = "<", greater_than: str = ">"
) -> str:
    """A raw value as text by its kind: ``pvalue``, ``probability``, ``df``, ``count``
    (a count or rank sum: whole numbers plainly), ``number``, ``text`` or ``value``.

    >>> format_by_kind(0.00004, "pvalue"), format_by_kind(None, "text")
    ('<0.001', '—')
    >>> format_by_kind(3.8e-09, "probability"), format_by_kind(3.8e-09, "number")
    ('<0.0001', '3.800e-09')
    >>> format_by_kind(11.0, "count"), format_by_kind(10.5, "count")
    ('11', '10.5000')
    """
    if kind == "pvalue":
        return format_pvalue(value, less_than=less_than)
    if kind == "probability":
        return format_probability(value, less_than=less_than, greater_than=greater_than)
    if kind in ("df", "count"):
        return format_df(value)
    if kind == "number":
        return format_number(value)
    if kind == "text":
        return "—" if value is None else str(value)
    return format_value(value)


def markdown_table_code(text: Any) -> str:
    r"""A code span that stays one table cell in GitHub Markdown, whatever ``text`` holds.

    A code span does not protect ``|`` inside a GFM table (the row is split
    first), so pipes are escaped; line breaks become spaces; the fence is one
    backtick longer than the longest run of backticks in ``text``.

    >>> print(markdown_table_code("a|b\nc"))
    `a\|b c`
    >>> print(markdown_table_code("x `y` z"))
    ``x `y` z``
    """
    code = " ".join(str(text).split()).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{fence}{pad}{code}{pad}{fence}"
