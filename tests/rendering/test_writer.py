"""The one atomic writer: errors name the file asked for, nothing half-written or left behind."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from cvreport.rendering import writer
from cvreport.rendering.writer import (
    MissingFolderError,
    OutputExistsError,
    OutputWriteError,
    write_text,
)


def test_writes_replaces_only_with_consent_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    assert write_text(target, "é\n") == target
    assert target.read_bytes() == "é\n".encode()
    with pytest.raises(OutputExistsError, match="exists; pass overwrite=True") as error:
        write_text(target, "other")
    assert error.value.filename == str(target)
    assert target.read_text(encoding="utf-8") == "é\n"
    write_text(target, "new", overwrite=True)
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("unnamed", [True, False])
def test_full_disk_names_the_file_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unnamed: bool
) -> None:
    if not unnamed:
        monkeypatch.setattr(writer, "_unnamed", lambda folder: None)

    def full(descriptor: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer, "_write_all", full)
    target = tmp_path / "report.html"
    with pytest.raises(OutputWriteError) as error:
        write_text(target, "x" * 1000)
    assert isinstance(error.value, OSError) and error.value.errno == errno.ENOSPC
    assert error.value.filename == str(target)
    assert str(error.value) == (
        f"cannot write {target}: No space left on device; free some space or write elsewhere "
        "(nothing was written)"
    )
    assert list(tmp_path.iterdir()) == []


def test_unnamed_temporary_file_is_used_where_the_system_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed while writing leaves no visible file: the text has no name until whole."""
    if writer._unnamed(tmp_path) is None:
        pytest.skip("no O_TMPFILE here")
    seen: list[list[str]] = []
    real = writer._write_all

    def spy(descriptor: int, data: bytes) -> None:
        real(descriptor, data)
        seen.append(sorted(p.name for p in tmp_path.iterdir()))  # after writing, before linking

    monkeypatch.setattr(writer, "_write_all", spy)
    write_text(tmp_path / "report.html", "x" * 100_000)
    assert seen == [[]]


def test_missing_folder_is_refused_not_created(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "r.html"
    with pytest.raises(MissingFolderError, match=r"the folder .* does not exist") as error:
        write_text(target, "x")
    assert isinstance(error.value, FileNotFoundError)
    assert not (tmp_path / "no").exists()


def test_read_only_folder_names_the_target_not_a_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> int:
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path / ".x.tmp"))

    monkeypatch.setattr(writer, "_unnamed", refuse)
    target = tmp_path / "nb.ipynb"
    with pytest.raises(OutputWriteError) as error:
        write_text(target, "{}")
    assert error.value.filename == str(target) and ".tmp" not in str(error.value)


def test_report_notebook_and_simulation_report_share_the_policy(tmp_path: Path) -> None:
    import cvreport
    from cvreport.jupyter import notebook
    from cvreport.reporting.report import ReportExistsError

    missing = tmp_path / "missing"
    report = cvreport.Report("loss ~ model | replication + fold", data=cvreport.load_example())
    with pytest.raises(MissingFolderError):
        report.save(missing / "r.html")
    with pytest.raises(MissingFolderError):
        notebook.write(missing / "n.ipynb", data="example")
    assert not missing.exists()
    report.save(tmp_path / "r.html")
    with pytest.raises(ReportExistsError) as exists:
        report.save(tmp_path / "r.html")
    assert isinstance(exists.value, OutputExistsError) and isinstance(exists.value, FileExistsError)
    notebook.write(tmp_path / "n.ipynb", data="example")
    with pytest.raises(notebook.NotebookExistsError):
        notebook.write(tmp_path / "n.ipynb", data="example")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.ipynb", "r.html"]


def test_simulation_report_uses_the_same_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cvreport import simulate

    frame = simulate.calibrate("epsilon", reps=200, seed=4, progress=False)
    report = simulate.calibration_report(frame)
    with pytest.raises(MissingFolderError):
        report.save(tmp_path / "missing" / "calibration.html")

    def full(descriptor: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer, "_write_all", full)
    with pytest.raises(OutputWriteError, match=r"cannot write .*calibration\.md: No space"):
        report.save(tmp_path / "calibration.md")
    assert list(tmp_path.iterdir()) == []
