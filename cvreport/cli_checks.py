"""Argument checks every ``cvreport`` command shares, made before any computation."""

from __future__ import annotations

from pathlib import Path

from cvreport.errors import CVReportError

__all__ = ["CommandError", "check_alpha", "check_output"]


class CommandError(CVReportError):
    """A command-line argument that cannot be used as given."""


def check_output(output: Path, *, overwrite: bool) -> None:
    """Fail before any computation when the output cannot be written."""
    folder = output.parent if str(output.parent) else Path(".")
    if output.exists() and not overwrite:
        raise CommandError(f"{output} exists; pass --overwrite to replace it")
    if output.is_dir():
        raise CommandError(f"{output} is a folder; give a file name such as report.html")
    if not folder.is_dir():
        raise CommandError(f"cannot write {output}: the folder {folder} does not exist")


def check_alpha(alpha: float) -> float:
    """``alpha`` itself, or a :class:`CommandError` unless 0 < alpha < 1."""
    if not 0 < alpha < 1:
        raise CommandError(f"--alpha must lie strictly between 0 and 1, got {alpha:g}")
    return alpha
