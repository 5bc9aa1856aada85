"""README.md and docs/*.md say what the code does: their examples run as written.

Every ```python block of a page runs, in the page's order and in one namespace
per page (as a reader pastes them into one notebook), in a temporary folder; a
block that shows its output as ``>>>`` lines runs as a doctest, so a printed
number that drifts from the code fails. Every ``cvreport ...`` command of a
```bash block runs as ``python -m cvreport ...`` in the same folder (the other
parts of a set-up line, ``pip install``, are not run). Only a block preceded by
an explicit ``<!-- no-test: why -->`` comment is left out.

The folder holds the files the pages name as the reader's own, written from the
bundled example data: ``results.csv`` and ``pilot.csv`` (the 5×2 CV example),
``results/part-*.parquet`` (the same rows in two files).
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import cvreport

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[ \t]*$")
_NO_TEST = re.compile(r"<!--\s*no-test:\s*(?P<why>.+?)\s*-->")
_DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: Path
    line: int  # line of the opening fence, 1-based
    lang: str
    code: str
    skip: str | None  # the reason of a ``<!-- no-test: ... -->`` marker

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def code_blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` with their language and ``no-test`` marker."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening or not opening["lang"]:
            i += 1
            continue
        indent = opening["indent"]
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        assert end < len(lines), f"{page.name}:{i + 1}: unclosed code block"
        body = [
            line[len(indent) :] if line.startswith(indent) else line.lstrip()
            for line in lines[i + 1 : end]
        ]
        before = next((line for line in reversed(lines[:i]) if line.strip()), "")
        marker = _NO_TEST.search(before)
        blocks.append(
            Block(page, i + 1, opening["lang"], "\n".join(body) + "\n", marker and marker["why"])
        )
        i = end + 1
    return blocks


def cvreport_commands(code: str) -> list[list[str]]:
    """The ``cvreport ...`` commands of a bash block, as argument lists."""
    joined = code.replace("\\\n", " ")
    commands = []
    for line in joined.splitlines():
        for part in line.split("&&"):
            words = shlex.split(part, comments=True)
            if words and words[0] == "cvreport":
                commands.append(words)
    return commands


def _run_command(words: list[str], folder: Path, where: str) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "cvreport", *words[1:]],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{where}: {shlex.join(words)} failed:\n{done.stderr}"
    return done.stdout


def _run_python(block: Block, namespace: dict[str, object]) -> None:
    if ">>>" in block.code:
        test = doctest.DocTestParser().get_doctest(
            block.code, namespace, block.where, str(block.page), block.line
        )
        runner = doctest.DocTestRunner(optionflags=_DOCTEST_FLAGS)
        output: list[str] = []
        runner.run(test, out=output.append, clear_globs=False)
        assert runner.failures == 0, f"{block.where}:\n" + "".join(output)
        namespace.update(test.globs)  # a doctest runs on a copy of the names
    else:
        exec(compile(block.code, block.where, "exec"), namespace)


@pytest.fixture
def reader_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the files the pages call the reader's own."""
    example = cvreport.load_example()
    example.to_csv(tmp_path / "results.csv", index=False)
    example.to_csv(tmp_path / "pilot.csv", index=False)
    (tmp_path / "results").mkdir()
    for part, rows in enumerate(example.groupby(example["replication"] > 2)):
        rows[1].to_parquet(tmp_path / "results" / f"part-{part}.parquet", index=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_page_examples_run_as_written(page: Path, reader_folder: Path) -> None:
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in code_blocks(page):
        if block.skip:
            continue
        if block.lang == "python":
            _run_python(block, namespace)
        elif block.lang == "bash":
            for words in cvreport_commands(block.code):
                _run_command(words, reader_folder, block.where)


def test_every_page_has_examples_and_few_skips() -> None:
    blocks = [block for page in PAGES for block in code_blocks(page)]
    with_python = {block.page.name for block in blocks if block.lang == "python"}
    assert with_python >= {"README.md", "adding-a-test.md", "datasets.md", "methods.md"}
    skipped = [block.where for block in blocks if block.skip]
    assert len(skipped) <= 3, skipped


def test_readme_markdown_piece_is_the_example_report(reader_folder: Path) -> None:
    """The Markdown README shows "for the example data" is in that report, line by line."""
    piece = next(
        block for block in code_blocks(README) if block.lang == "markdown"
    ).code.splitlines()
    _run_command(
        ["cvreport", "report", "--example", "-o", "example.md"], reader_folder, "README.md"
    )
    written = (reader_folder / "example.md").read_text(encoding="utf-8")
    lines = {line.strip() for line in written.splitlines()}
    missing = [line for line in piece if line.strip() and line.strip() not in lines]
    assert not missing, missing


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
