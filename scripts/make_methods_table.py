"""Write the table of tests at the top of docs/methods.md from the registry.

The table is :func:`cvreport.methods.registry.markdown_table`: one row per
registered test. tests/methods/test_contract.py checks that docs/methods.md holds
it; after registering a test, run this from the repository root:
``python scripts/make_methods_table.py``.
"""

from __future__ import annotations

from pathlib import Path

from cvreport.methods.registry import markdown_table

MARKER = "<!-- test table: written by cvreport.methods.registry.markdown_table()"


def refreshed(text: str) -> str:
    """``text`` with the lines of the table after :data:`MARKER` replaced by the registry's."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(MARKER)) + 1
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "".join(lines[:start]) + markdown_table() + "".join(lines[end:])


def main() -> None:
    path = Path("docs/methods.md")
    path.write_text(refreshed(path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
