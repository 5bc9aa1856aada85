"""Write an output file atomically, with errors that name the file asked for.

Every file cvreport writes (reports, notebooks, the simulation report, CSV
tables) goes through :func:`write_text`:

* the text is written to an unnamed temporary file in the target's folder
  (Linux ``O_TMPFILE``) and linked into place only when complete, so a reader
  never sees half a file and a killed process leaves nothing behind; where the
  file system has no unnamed files, a hidden ``.NAME.XXXX.tmp`` is used and
  removed on every error;
* an existing file is kept unless ``overwrite=True`` (:class:`OutputExistsError`),
  also when it appears while the text is being written;
* a missing folder is an error, never created: a typo in a path should not
  make folders (:class:`MissingFolderError`);
* any other failure (a full disk, a read-only folder) is an
  :class:`OutputWriteError` that names the target, not the temporary file.

:func:`write_texts` writes several files as one: each is written whole to a
hidden file beside its target first, and only when all are complete are they
moved into place; if one cannot be placed, those already placed are taken
back (a replaced file gets its former contents again).

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_text(folder / "a.txt", "hello").read_text()
'hello'
>>> write_text(folder / "a.txt", "again")
Traceback (most recent call last):
...
cvreport.rendering.writer.OutputExistsError: ... exists; pass overwrite=True ...
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cvreport.errors import CVReportError
from cvreport.option_values import bool_option

__all__ = [
    "MissingFolderError",
    "OutputExistsError",
    "OutputWriteError",
    "format_from_suffix",
    "refuse_existing",
    "write_text",
    "write_texts",
]


class OutputExistsError(CVReportError, FileExistsError):
    """The output file exists and ``overwrite`` was not set."""

    def __init__(self, message: str, path: str | os.PathLike[str]) -> None:
        super().__init__(message)
        self.filename = os.fspath(path)

    def __str__(self) -> str:
        return str(self.args[0])


class OutputWriteError(CVReportError, OSError):
    """The output file could not be written; ``filename`` is the file asked for."""

    def __init__(self, path: str | os.PathLike[str], cause: OSError) -> None:
        target = os.fspath(path)
        reason = cause.strerror or str(cause)
        hint = _HINTS.get(cause.errno or 0, "")
        super().__init__(f"cannot write {target}: {reason}{hint}")
        self.errno = cause.errno
        self.strerror = f"{reason}{hint}"
        self.filename = target

    def __str__(self) -> str:
        return str(self.args[0])


class MissingFolderError(OutputWriteError, FileNotFoundError):
    """The folder of the output file does not exist (it is not created)."""


_HINTS = {
    errno.ENOSPC: "; free some space or write elsewhere (nothing was written)",
    errno.EDQUOT: "; the disk quota is exhausted (nothing was written)",
    errno.EACCES: "; the folder is not writable",
    errno.EPERM: "; the folder is not writable",
    errno.EROFS: "; the file system is read-only",
}


def _exists(
    target: Path, exists_error: type[OutputExistsError] = OutputExistsError
) -> OutputExistsError:
    return exists_error(
        f"{target} exists; pass overwrite=True (--overwrite on the command line) to replace it",
        target,
    )


def output_path(path: Any) -> Path:
    """``path`` as a :class:`~pathlib.Path`, or a :class:`CVReportError` when it is not a path.

    ``Path(None)`` or ``Path(b"x")`` would raise pathlib's TypeError, which does not say
    that a file name was expected.

    Examples
    --------
    >>> output_path("report.html").name
    'report.html'
    >>> output_path(None)
    Traceback (most recent call last):
    ...
    cvreport.errors.CVReportError: the output must be a file path (a str or pathlib.Path), got None
    """
    if isinstance(path, bytes) or not isinstance(path, str | os.PathLike):
        raise CVReportError(
            f"the output must be a file path (a str or pathlib.Path), got {path!r:.80}"
        )
    if not str(path).strip():
        raise CVReportError("the output path is empty; give a file name, e.g. 'report.html'")
    return Path(path)


def refuse_existing(
    path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    exists_error: type[OutputExistsError] = OutputExistsError,
) -> Path:
    """``path`` as a :class:`~pathlib.Path`, refused when the file exists and ``overwrite``
    is False: a writer checks before it renders, :func:`write_text` again when it writes.

    Parameters
    ----------
    path : path-like
    overwrite : bool
        Accept an existing file (it will be replaced).
    exists_error : type
        The :class:`OutputExistsError` subclass to raise (e.g. ``ReportExistsError``).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputExistsError
        When ``path`` exists and ``overwrite`` is False.
    CVReportError
        When ``overwrite`` is not True or False (``"no"`` would read as true).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "report.md"
    >>> refuse_existing(target).name
    'report.md'
    >>> _ = target.write_text("x")
    >>> refuse_existing(target)
    Traceback (most recent call last):
    ...
    cvreport.rendering.writer.OutputExistsError: ... exists; pass overwrite=True ...
    """
    target = output_path(path)
    replace = bool_option(overwrite, "overwrite")  # "no" would read as true and replace it
    if target.exists() and not replace:
        raise _exists(target, exists_error)
    return target


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
    os.fsync(descriptor)


_AT_FDCWD = -100
_AT_SYMLINK_FOLLOW = 0x400


def _link_descriptor(descriptor: int, target: Path) -> None:
    """Give the unnamed file ``descriptor`` the name ``target`` (``linkat``, following /proc)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    source = f"/proc/self/fd/{descriptor}".encode()
    if libc.linkat(_AT_FDCWD, source, _AT_FDCWD, os.fsencode(target), _AT_SYMLINK_FOLLOW) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), os.fspath(target))


def _unnamed(folder: Path) -> int | None:
    """An unnamed file in ``folder`` (Linux O_TMPFILE), or None where unsupported."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY, 0o666)
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None  # the file system has no unnamed files
        raise


def format_from_suffix(path: Path, formats: Mapping[str, str], *, or_else: str = "") -> str:
    """The format a file name's suffix stands for in ``formats`` (suffix → format).

    Raises
    ------
    CVReportError
        For a suffix ``formats`` does not know; the message lists the suffixes,
        followed by ``or_else`` (another way to name the format).

    Examples
    --------
    >>> format_from_suffix(Path("out/report.MD"), {".html": "html", ".md": "markdown"})
    'markdown'
    """
    kind = formats.get(path.suffix.lower())
    if kind is None:
        raise CVReportError(
            f"cannot tell the report format from {str(path)!r}: use a file name ending in "
            f"{', '.join(formats)}{or_else}"
        )
    return kind


def write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    overwrite: bool = False,
    exists_error: type[OutputExistsError] = OutputExistsError,
) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically.

    Parameters
    ----------
    path : path-like
    text : str
    overwrite : bool
        Replace an existing file.
    exists_error : type
        The :class:`OutputExistsError` subclass to raise (e.g. ``ReportExistsError``).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    OutputExistsError
        When ``path`` exists and ``overwrite`` is False.
    MissingFolderError
        When the folder of ``path`` does not exist.
    OutputWriteError
        On any other failure, naming ``path`` (e.g. a full disk: ``errno`` 28).
    """
    target = output_path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise MissingFolderError(
            target, FileNotFoundError(errno.ENOENT, f"the folder {folder} does not exist")
        ) from None
    if target.is_dir():
        raise OutputWriteError(target, IsADirectoryError(errno.EISDIR, "it is a folder"))
    refuse_existing(target, overwrite=overwrite, exists_error=exists_error)
    data = text.encode("utf-8")
    try:
        descriptor = _unnamed(folder)
        if descriptor is not None:
            try:
                _link_unnamed(
                    descriptor, data, target, overwrite=overwrite, exists_error=exists_error
                )
                return target
            except OSError as error:
                if error.errno not in _NO_LINKAT:
                    raise  # linking unnamed files is not possible here: write a named one
        _write_named(target, data, overwrite=overwrite, exists_error=exists_error)
    except OutputExistsError:
        raise
    except OSError as error:
        raise OutputWriteError(target, error) from error
    return target


def _link_unnamed(
    descriptor: int,
    data: bytes,
    target: Path,
    *,
    overwrite: bool,
    exists_error: type[OutputExistsError],
) -> None:
    try:
        _write_all(descriptor, data)
        if not overwrite:
            try:
                _link_descriptor(descriptor, target)  # fails if the target appeared meanwhile
            except FileExistsError:
                raise _exists(target, exists_error) from None
            return
        # a name is needed for the atomic replace; it exists only once the file is whole
        staged = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        _link_descriptor(descriptor, staged)
        try:
            os.replace(staged, target)
        finally:
            staged.unlink(missing_ok=True)
    finally:
        os.close(descriptor)


def _write_named(
    target: Path, data: bytes, *, overwrite: bool, exists_error: type[OutputExistsError]
) -> None:
    temporary = _named_copy(target, data)
    try:
        if overwrite:
            os.replace(temporary, target)
            return
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise _exists(target, exists_error) from None
        except OSError:  # a file system without hard links
            if target.exists():
                raise _exists(target, exists_error) from None
            os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def write_texts(
    texts: Sequence[tuple[str | os.PathLike[str], str]], *, overwrite: bool = False
) -> list[Path]:
    """Write several files all or nothing: no file is new or changed unless every one is written.

    Parameters
    ----------
    texts : sequence of (path, text)
        The files, each written as :func:`write_text` would (UTF-8).
    overwrite : bool
        Replace existing files.

    Returns
    -------
    list of pathlib.Path
        The paths written, in the order given.

    Raises
    ------
    OutputExistsError, MissingFolderError, OutputWriteError
        As :func:`write_text`; every file is then as it was before the call.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "b.txt").write_text("old")
    >>> write_texts([(folder / "a.txt", "1"), (folder / "b.txt", "2")])
    Traceback (most recent call last):
    ...
    cvreport.rendering.writer.OutputExistsError: ... exists; pass overwrite=True ...
    >>> sorted(p.name for p in folder.iterdir()), (folder / "b.txt").read_text()
    (['b.txt'], 'old')
    """
    overwrite = bool_option(overwrite, "overwrite")  # "no" would read as true
    targets = [Path(p) for p, _ in texts]
    for target in targets:  # the checks of write_text, before any byte is written
        folder = target.parent if str(target.parent) else Path(".")
        if not folder.is_dir():
            raise MissingFolderError(
                target, FileNotFoundError(errno.ENOENT, f"the folder {folder} does not exist")
            )
        if target.is_dir():
            raise OutputWriteError(target, IsADirectoryError(errno.EISDIR, "it is a folder"))
        if target.exists() and not overwrite:
            raise _exists(target)
    staged: list[_Staged] = []
    placed: list[tuple[Path, Path | None]] = []  # (target, backup of its former contents)
    try:
        for target, (_, text) in zip(targets, texts):
            staged.append(_stage(target, text.encode("utf-8")))
        for target, file in zip(targets, staged):
            placed.append((target, _place(file, target, overwrite=overwrite)))
    except BaseException:
        for target, backup in reversed(placed):
            if backup is None:
                target.unlink(missing_ok=True)
            else:
                os.replace(backup, target)
        raise
    finally:
        for file in staged:
            file.discard()
        for _, backup in placed:
            if backup is not None:
                backup.unlink(missing_ok=True)
    return targets


class _Staged:
    """A complete file not yet at its target: unnamed (``O_TMPFILE``) or a hidden name."""

    def __init__(self, target: Path, data: bytes) -> None:
        self.target = target
        self.data = data
        self.descriptor: int | None = None
        self.path: Path | None = None

    def named(self) -> Path:
        """A name for the staged file (giving the unnamed file one, or writing one)."""
        if self.path is None:
            if self.descriptor is not None:
                name = self.target.with_name(f".{self.target.name}.{os.getpid()}.tmp")
                name.unlink(missing_ok=True)
                try:
                    _link_descriptor(self.descriptor, name)
                    self.path = name
                    return name
                except OSError as error:
                    if error.errno not in _NO_LINKAT:
                        raise
            self.path = _named_copy(self.target, self.data)
        return self.path

    def discard(self) -> None:
        if self.descriptor is not None:
            os.close(self.descriptor)
            self.descriptor = None
        if self.path is not None:
            self.path.unlink(missing_ok=True)


_NO_LINKAT = (errno.EXDEV, errno.ENOENT, errno.EPERM, errno.ENOSYS)


def _stage(target: Path, data: bytes) -> _Staged:
    """``data`` complete and synced beside ``target``, without a name where the system allows."""
    folder = target.parent if str(target.parent) else Path(".")
    staged = _Staged(target, data)
    try:
        descriptor = _unnamed(folder)
        if descriptor is None:
            staged.path = _named_copy(target, data)
            return staged
        staged.descriptor = descriptor
        _write_all(descriptor, data)
    except OSError as error:
        staged.discard()
        raise OutputWriteError(target, error) from error
    return staged


def _named_copy(target: Path, data: bytes) -> Path:
    """``data`` in a hidden ``.NAME.XXXX.tmp`` beside ``target``, with the umask's mode."""
    folder = target.parent if str(target.parent) else Path(".")
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        try:
            _write_all(descriptor, data)
        finally:
            os.close(descriptor)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return Path(temporary)


def _place(file: _Staged, target: Path, *, overwrite: bool) -> Path | None:
    """Move a staged file to ``target``; returns a backup of what it replaced, if anything."""
    try:
        if not overwrite:
            if file.descriptor is not None and file.path is None:
                try:
                    _link_descriptor(file.descriptor, target)  # fails if the target exists
                    return None
                except FileExistsError:
                    raise _exists(target) from None
                except OSError as error:
                    if error.errno not in _NO_LINKAT:
                        raise
            temporary = file.named()
            try:
                os.link(temporary, target)
            except FileExistsError:
                raise _exists(target) from None
            except OSError:  # a file system without hard links
                if target.exists():
                    raise _exists(target) from None
                os.replace(temporary, target)
            return None
        temporary = file.named()
        backup = None
        if target.exists():
            backup = target.with_name(f".{target.name}.{os.getpid()}.bak")
            backup.unlink(missing_ok=True)
            try:
                os.link(target, backup)
            except OSError:  # a file system without hard links: keep a copy
                shutil.copy2(target, backup)
        os.replace(temporary, target)
        return backup
    except OutputExistsError:
        raise
    except OSError as error:
        raise OutputWriteError(target, error) from error
