"""Argument checks every ``cvreport`` command shares, made before any computation.

:func:`check_outputs` looks at every file a command will write (the report,
its CSV exports, a notebook) before anything is read or written: the paths
must differ from each other and from the data read (compared after resolving
``..`` and symbolic links, and with :func:`os.path.samefile` for hard links),
their folders must exist and be writable, and an existing file is replaced
only with ``--overwrite``. A command that fails leaves no new or changed file.

Examples
--------
>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> check_outputs({"-o": folder / "r.html", "--pairs-csv": folder / "p.csv"}, overwrite=False)
>>> check_outputs({"-o": folder / "r.html", "--pairs-csv": folder / "r.html"}, overwrite=True)
Traceback (most recent call last):
...
cvreport.cli.checks.CommandError: -o and --pairs-csv name the same file ...
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from cvreport import option_values
from cvreport.errors import CVReportError

__all__ = ["CommandError", "check_alpha", "check_output", "check_outputs"]


class CommandError(CVReportError):
    """A command-line argument that cannot be used as given."""


def check_output(output: Path, *, overwrite: bool) -> None:
    """Fail before any computation when the output cannot be written."""
    check_outputs({"-o": output}, overwrite=overwrite)


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same resolved path, or one inode (hard links)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return False


def check_outputs(
    outputs: Mapping[str, Path | None],
    *,
    overwrite: bool,
    inputs: Iterable[Path] = (),
) -> None:
    """Check every output path of a command before anything is written.

    Parameters
    ----------
    outputs : mapping
        The flag that names each output (``"-o"``, ``"--pairs-csv"`` …) → its path;
        ``None`` for an output not asked for.
    overwrite : bool
        Whether existing files may be replaced (``--overwrite``).
    inputs : iterable of Path
        The data files the command reads; no output may be one of them, even
        with ``--overwrite``.

    Raises
    ------
    CommandError
        Two outputs name one file, an output is an input, an output is ``-``
        (which would be a file named ``-``, not the standard output), a folder is
        missing or not writable, an output is a folder or not a regular file, or
        an output exists without ``overwrite``.
    """
    named = [(flag, Path(path)) for flag, path in outputs.items() if path is not None]
    sources = [Path(p) for p in inputs]
    for i, (flag, path) in enumerate(named):
        for other_flag, other in named[:i]:
            if _same_file(path, other):
                raise CommandError(
                    f"{other_flag} and {flag} name the same file ({other}); give each "
                    "output its own file name"
                )
        for source in sources:
            if _same_file(path, source):
                raise CommandError(
                    f"{flag} {path} is the data file read; write the output to another file "
                    "(--overwrite never replaces the input)"
                )
    for flag, path in named:
        _check_one(flag, path, overwrite=overwrite)


def _check_one(flag: str, path: Path, *, overwrite: bool) -> None:
    if str(path) == "-":  # elsewhere the standard output; here it would be a file named '-'
        raise CommandError(
            f"{flag} - would write a file named '-'; cvreport writes its outputs to files: "
            "give a file name"
        )
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise CommandError(f"{flag} {path} is a folder; give a file name such as report.html")
    if not folder.is_dir():
        raise CommandError(f"cannot write {path}: the folder {folder} does not exist")
    if os.path.lexists(path):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG  # a dangling link: the write replaces the link itself
        if not stat.S_ISREG(mode):
            raise CommandError(
                f"{flag} {path} exists and is not a regular file (a FIFO, a device or a "
                "socket); give a file name"
            )
        if not overwrite:
            raise CommandError(f"{path} exists; pass --overwrite to replace it")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CommandError(
            f"cannot write {path}: Permission denied; the folder {folder} is not writable"
        )


def check_alpha(alpha: float) -> float:
    """``alpha`` itself, or a :class:`CommandError` unless 0 < alpha < 1.

    The message is :func:`cvreport.option_values.check_alpha`'s, about the option ``--alpha``.
    """
    try:
        return option_values.check_alpha(alpha, "--alpha")
    except CVReportError as error:
        raise CommandError(str(error)) from None
