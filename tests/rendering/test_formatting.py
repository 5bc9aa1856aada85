"""The shared number, p-value and escaping filters, and their use by the three template environments."""

from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cvreport.rendering import formatting
from cvreport.rendering.environment import html_environment, latex_environment, text_environment
from cvreport.rendering.formatting import (
    escape_latex,
    escape_markdown,
    format_df,
    format_interval,
    format_number,
    format_pvalue,
    format_value,
    significance_stars,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3.0625, "3.0625"),
        (-0.0123456, "-0.0123"),
        (0.0, "0.0000"),
        (12, "12"),
        (np.float64(1.5), "1.5000"),
        (np.int64(7), "7.0000"),  # numpy scalars are read as floats
        (2.5e-7, "2.500e-07"),
        (1.23e8, "1.230e+08"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        (float("nan"), "nan"),
        (None, "—"),
        ("text", "text"),
    ],
)
def test_format_number(value: object, expected: str) -> None:
    assert format_number(value) == expected


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        (0.080118, "0.080"),
        (0.0455, "0.045"),  # 0.0455 is stored just below the tie (binary) and rounds down
        (1.0, "1.000"),
        (0.001, "0.001"),
        (0.000999, "<0.001"),
        (1e-12, "<0.001"),
        (0.0, "<0.001"),
        (None, "—"),
    ],
)
def test_format_pvalue(p: object, expected: str) -> None:
    assert format_pvalue(p) == expected


def test_format_pvalue_latex_marker_and_digits() -> None:
    assert format_pvalue(1e-9, less_than="$<$") == "$<$0.001"
    assert format_pvalue(0.00042, digits=4) == "0.0004"
    assert format_pvalue(0.00004, digits=4) == "<0.0001"


@pytest.mark.parametrize(
    ("df", "expected"),
    [
        (5, "5"),
        (5.0, "5"),
        (6.7551, "6.7551"),
        ((7, 5), "(7, 5)"),
        ((6.755118, 5.0), "(6.7551, 5)"),
        (None, "—"),
    ],
)
def test_format_df(df: object, expected: str) -> None:
    assert format_df(df) == expected


def test_format_interval_and_value() -> None:
    assert format_interval((-0.0123, 0.04)) == "[-0.0123, 0.0400]"
    assert format_interval(None) == "—"
    assert format_value(True) == "yes"
    assert format_value((1, 2.5)) == "(1, 2.5000)"


@pytest.mark.parametrize(
    ("p", "stars"),
    [
        (0.0009, "***"),
        (0.001, "**"),
        (0.0099, "**"),
        (0.01, "*"),
        (0.049, "*"),
        (0.05, ""),
        (0.7, ""),
        (None, ""),
        (math.nan, ""),
    ],
)
def test_significance_stars(p: object, stars: str) -> None:
    assert significance_stars(p) == stars


def test_escape_latex_specials() -> None:
    assert escape_latex("a_b & c%$#") == r"a\_b \& c\%\$\#"
    assert escape_latex("<script>") == r"\textless{}script\textgreater{}"
    assert escape_latex("{x}~^\\") == r"\{x\}\textasciitilde{}\textasciicircum{}\textbackslash{}"
    assert escape_latex("5×2 − α ≤ ρ²") == r"5$\times$2 $-$ $\alpha$ $\leq$ $\rho^{2}$"
    assert escape_latex("Alpaydın") == r"Alpayd{\i}n"
    assert escape_latex("μ̂ and p̄") == r"$\hat{\mu}$ and $\bar{p}$"
    assert escape_latex("ρ2 ∈ (0, ½)") == r"$\rho$2 $\in$ (0, $\frac{1}{2}$)"
    assert escape_latex("Σ Ω ς") == r"$\Sigma$ $\Omega$ $\varsigma$"
    assert escape_latex("é Š") == "é Š"  # Latin letters pass through (utf8 + T1)
    assert escape_latex("中\x01") == "{[}U+4E2D{]}{\\hskip0pt plus6pt}"
    assert escape_latex("\\$$x") == r"\textbackslash{}\$\$x"


T1_MISSING = {0x126, 0x127, 0x138, 0x13F, 0x140, 0x149, 0x166, 0x167, 0x17F}  # found with pdflatex
LATEX_SAFE = (
    {chr(c) for c in range(32, 127)}
    | {chr(c) for c in range(0xA0, 0x180) if c not in T1_MISSING}
    | {"\n"}
)


@given(st.text(max_size=40))
def test_escape_latex_output_is_typesettable_text(text: str) -> None:
    """Whatever the input, the output holds only characters pdflatex sets from UTF-8 with T1."""
    assert set(escape_latex(text)) <= LATEX_SAFE


def test_escaped_unicode_compiles_with_pdflatex(tmp_path: Path) -> None:
    exe = shutil.which("pdflatex")
    if exe is None:
        if os.environ.get("CVREPORT_REQUIRE_PDFLATEX") == "1":
            pytest.fail("pdflatex is required (CVREPORT_REQUIRE_PDFLATEX=1) but not installed")
        pytest.skip("pdflatex is not installed")
    rng = random.Random(20240601)
    pool = (
        [chr(c) for c in range(32, 0x250)]
        + list("×−±≤≥≈≠∈∩√·′→ρσαβλμνχΦΣΠδε₀₁²⁷½…“”‘’—–μ̂p̄x̃中")
        + ["\u0302"]
    )
    lines = ["".join(rng.choice(pool) for _ in range(30)) for _ in range(150)]
    lines += ["<script>alert(1)</script>", "a_b & c%$#", "{}~^\\|", "ρ²$$", "\\$$"]
    body = "\n\n".join(escape_latex(line) for line in lines)
    source = (
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n"
        "\\usepackage{lmodern}\n\\begin{document}\n" + body + "\n\\end{document}\n"
    )
    (tmp_path / "t.tex").write_text(source, encoding="utf-8")
    run = subprocess.run(
        [exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout.decode("utf-8", "replace")[-2000:]


@given(st.text(alphabet="ab_&%$#{}~^\\<>| ", max_size=30))
def test_escape_latex_leaves_no_bare_special(text: str) -> None:
    escaped = escape_latex(text)
    # remove the escapes we produce; nothing special may remain
    stripped = escaped
    for token in (
        r"\textbackslash{}",
        r"\textasciitilde{}",
        r"\textasciicircum{}",
        r"\textless{}",
        r"\textgreater{}",
        r"\textbar{}",
        r"\_",
        r"\&",
        r"\%",
        r"\$",
        r"\#",
        r"\{",
        r"\}",
    ):
        stripped = stripped.replace(token, "")
    assert not set(stripped) & set("_&%$#{}~^\\<>|")


def test_escape_markdown() -> None:
    assert escape_markdown("a|b_c*d") == r"a\|b\_c\*d"
    assert escape_markdown("<script>") == r"\<script\>"


def test_environments_share_the_formatting_functions() -> None:
    """HTML, Markdown and LaTeX print the same digits (LaTeX spells '<' as $<$ and a
    negative sign as $-$)."""
    values = {"x": -0.012345678, "p": 0.0000123, "q": 0.2345, "df": (7, 5), "ci": (-0.1, 0.25)}
    html = html_environment().from_string(
        "{{ x | number }}|{{ p | pvalue }}|{{ q | pvalue }}|{{ df | df }}|{{ ci | interval }}"
    )
    md = text_environment().from_string(
        "{{ x | number }}|{{ p | pvalue }}|{{ q | pvalue }}|{{ df | df }}|{{ ci | interval }}"
    )
    tex = latex_environment().from_string(
        "((( x | number )))|((( p | pvalue )))|((( q | pvalue )))|((( df | df )))|((( ci | interval )))"
    )
    expected = ["-0.0123", "&lt;0.001", "0.234", "(7, 5)", "[-0.1000, 0.2500]"]
    assert html.render(values).split("|") == expected
    assert md.render(values).split("|") == [
        "-0.0123",
        "<0.001",
        "0.234",
        "(7, 5)",
        "[-0.1000, 0.2500]",
    ]
    assert tex.render(values).split("|") == [
        "$-$0.0123",  # a minus sign, not a hyphen
        "$<$0.001",
        "0.234",
        "(7, 5)",
        "[$-$0.1000, 0.2500]",
    ]


def test_html_environment_escapes_and_latex_filter_escapes() -> None:
    html = html_environment().from_string("{{ name }}")
    assert html.render(name="<b>&") == "&lt;b&gt;&amp;"
    tex = latex_environment().from_string("((( name | e )))")
    assert tex.render(name="a_b & c%$#") == r"a\_b \& c\%\$\#"
    assert html_environment().from_string("{{ d | yesno }}").render(d=None) == "—"
    assert formatting.STAT_DIGITS == 4 and formatting.PVALUE_DIGITS == 3
