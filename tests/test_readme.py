"""The README's quick start runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import cvreport

README = Path(__file__).resolve().parent.parent / "README.md"


def _quick_start() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quick start in a notebook", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, flags=re.S)
    assert match, "README lost its quick-start code block"
    return match.group(1)


def test_quick_start_runs_and_gives_the_documented_numbers() -> None:
    namespace: dict[str, object] = {}
    exec(compile(_quick_start(), str(README), "exec"), namespace)
    table = namespace["table"]
    assert isinstance(table, cvreport.ResultsTable)
    result = cvreport.combined_ftest_5x2cv(table, "logistic_regression", "decision_tree")
    # the README's Markdown excerpt shows these figures
    assert f"{result.statistic:.4f}" == "6.3509"
    assert f"{result.pvalue:.3f}" == "0.027"
    readme = README.read_text(encoding="utf-8")
    assert "| 6.3509 | (10, 5) | 0.027 |" in readme


def test_readme_gives_exactly_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)```", setup, flags=re.S)
    assert len(commands) == 2
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1].strip() in ci
