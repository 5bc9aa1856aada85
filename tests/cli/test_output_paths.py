"""Every output path of a command is checked before anything is written (issue: data loss).

``report``, ``notebook`` and ``datasets`` refuse two outputs naming one file (by
any spelling: ``..``, a symbolic link, a hard link), an output that is the data
file, an existing file without ``--overwrite`` and a design without the table
asked for, and then leave the folder exactly as it was.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pandas as pd
import pytest

from cvreport.rendering.writer import OutputExistsError, write_texts
from tests._fakes import FORMULA, five_by_two_losses
from tests.cli._inputs import fails_and_writes_nothing, run, snapshot

writer_module = importlib.import_module("cvreport.rendering.writer")


@pytest.fixture()
def losses(tmp_path: Path) -> Path:
    path = tmp_path / "d.csv"
    five_by_two_losses().to_csv(path, index=False)
    return path


def report(data: Path, out: Path, *extra: str) -> list[str]:
    return ["report", str(data), "-f", FORMULA, "-o", str(out), *extra]


def test_pairs_csv_on_the_report_is_refused_even_with_overwrite(
    losses: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    argv = report(losses, out, "--pairs-csv", str(out), "--overwrite")
    fails_and_writes_nothing(
        argv, tmp_path, capsys, "-o and --pairs-csv name the same file", "own file name"
    )
    assert not out.exists()
    out.write_text("my report", encoding="utf-8")  # an existing report is not replaced either
    fails_and_writes_nothing(argv, tmp_path, capsys, "name the same file")


def test_other_spellings_of_one_file_are_refused(
    losses: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    out.write_text("mine", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.csv").symlink_to(out)
    os.link(out, tmp_path / "hard.csv")
    for other in (tmp_path / "sub" / ".." / "r.html", tmp_path / "link.csv", tmp_path / "hard.csv"):
        argv = report(losses, out, "--audit-csv", str(other), "--overwrite")
        fails_and_writes_nothing(argv, tmp_path, capsys, "-o and --audit-csv name the same file")
    argv = report(losses, tmp_path / "new.html", "--pairs-csv", str(tmp_path / "p.csv"))
    argv += ["--audit-csv", str(tmp_path / "sub" / ".." / "p.csv")]
    fails_and_writes_nothing(argv, tmp_path, capsys, "--pairs-csv and --audit-csv name the same")


def test_an_output_is_never_the_data_file(
    losses: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    fails_and_writes_nothing(
        report(losses, out, "--pairs-csv", str(losses), "--overwrite"),
        tmp_path,
        capsys,
        f"--pairs-csv {losses} is the data file read",
    )
    os.link(losses, tmp_path / "same.html")  # a hard link to the data, under a report's name
    fails_and_writes_nothing(
        report(losses, tmp_path / "same.html", "--overwrite"), tmp_path, capsys, "data file read"
    )
    (tmp_path / "data.ipynb").symlink_to(losses)
    fails_and_writes_nothing(
        ["notebook", str(losses), "-f", FORMULA, "-o", str(tmp_path / "data.ipynb"), "--overwrite"],
        tmp_path,
        capsys,
        "-o",
        "is the data file read",
    )
    multi = tmp_path / "multi.csv"
    frame = five_by_two_losses()
    pd.concat([frame.assign(dataset=d) for d in ("x", "y")]).to_csv(multi, index=False)
    (tmp_path / "multi.html").symlink_to(multi)
    fails_and_writes_nothing(
        ["datasets", str(multi), "-f", FORMULA + " | dataset", "-o", str(tmp_path / "multi.html"),
         "--overwrite"],
        tmp_path,
        capsys,
        "is the data file read",
    )  # fmt: skip


def test_an_existing_csv_without_overwrite_fails_before_the_report_is_written(
    losses: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "existing.csv"
    existing.write_text("keep me\n", encoding="utf-8")
    out = tmp_path / "r.html"
    fails_and_writes_nothing(
        report(losses, out, "--pairs-csv", str(existing)),
        tmp_path,
        capsys,
        f"{existing} exists; pass --overwrite",
    )
    assert not out.exists() and existing.read_text(encoding="utf-8") == "keep me\n"
    status, stdout, _ = run(
        report(losses, out, "--pairs-csv", str(existing), "--overwrite"), capsys
    )
    assert status == 0 and stdout.splitlines()[1] == f"wrote {existing}"
    assert {"model_a", "model_b", "pvalue"} <= set(pd.read_csv(existing).columns)


def test_audit_csv_without_an_audit_fails_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = tmp_path / "auc.csv"
    pd.DataFrame(
        [(i, j, m, 0.8 + 0.01 * i + (0.05 if m == "A" else 0.0) + 0.003 * j)
         for i in range(1, 4) for j in range(1, 6) for m in ("A", "B")],
        columns=["replication", "fold", "model", "auc"],
    ).to_csv(scores, index=False)  # fmt: skip
    out = tmp_path / "r.html"
    argv = ["report", str(scores), "-f", "auc ~ model | replication + fold", "--per-fold"]
    argv += ["-o", str(out), "--pairs-csv", str(tmp_path / "p.csv")]
    fails_and_writes_nothing(
        [*argv, "--audit-csv", str(tmp_path / "a.csv")],
        tmp_path,
        capsys,
        "--audit-csv: this report has no overlap audit",
        "nothing was written",
    )
    status, _, stderr = run([*argv, "--audit-csv", str(tmp_path / "a.csv")], capsys)
    # the reason reads as one sentence: not a capitalised sentence in parentheses
    assert status == 1 and "audit: the overlap audit needs per-record losses" in stderr
    assert ".)" not in stderr and "(The" not in stderr
    status, _, stderr = run(argv, capsys)  # without --audit-csv both files are written
    assert status == 0, stderr
    assert out.is_file() and (tmp_path / "p.csv").is_file()


def test_outputs_that_cannot_be_written_are_refused_first(
    losses: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    fails_and_writes_nothing(
        report(losses, out, "--pairs-csv", str(tmp_path / "missing" / "p.csv")),
        tmp_path,
        capsys,
        "the folder",
        "does not exist",
    )
    (tmp_path / "folder.csv").mkdir()
    fails_and_writes_nothing(
        report(losses, out, "--audit-csv", str(tmp_path / "folder.csv")),
        tmp_path,
        capsys,
        "--audit-csv",
        "is a folder",
    )
    os.mkfifo(tmp_path / "pipe.csv")
    fails_and_writes_nothing(
        report(losses, out, "--pairs-csv", str(tmp_path / "pipe.csv"), "--overwrite"),
        tmp_path,
        capsys,
        "is not a regular file",
    )


def test_an_unwritable_folder_is_named_before_anything_is_written(
    losses: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access

    def access(path: object, mode: int, **kwargs: object) -> bool:  # as a non-root user sees it
        if Path(str(path)) == locked and mode & os.W_OK:
            return False
        return real_access(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    fails_and_writes_nothing(
        report(losses, tmp_path / "r.html", "--pairs-csv", str(locked / "p.csv")),
        tmp_path,
        capsys,
        f"cannot write {locked / 'p.csv'}: Permission denied",
    )


def test_a_failed_write_takes_back_the_files_already_placed(
    losses: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The report is placed, the CSV export then fails: the report's former text returns."""
    out = tmp_path / "r.html"
    out.write_text("former report", encoding="utf-8")
    real_place = writer_module._place

    def place(temporary: Path, target: Path, *, overwrite: bool) -> Path | None:
        if target.suffix == ".csv":
            raise writer_module.OutputWriteError(target, OSError(28, "No space left on device"))
        return real_place(temporary, target, overwrite=overwrite)

    monkeypatch.setattr(writer_module, "_place", place)
    line = fails_and_writes_nothing(
        report(losses, out, "--pairs-csv", str(tmp_path / "p.csv"), "--overwrite"),
        tmp_path,
        capsys,
        "No space left on device",
    )
    assert str(tmp_path / "p.csv") in line
    assert out.read_text(encoding="utf-8") == "former report"


def test_write_texts_is_all_or_nothing(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("old", encoding="utf-8")
    with pytest.raises(OutputExistsError, match=r"b\.txt exists"):
        write_texts([(tmp_path / "a.txt", "1"), (tmp_path / "b.txt", "2")])
    assert snapshot(tmp_path) == {"b.txt": b"old"}
    written = write_texts([(tmp_path / "a.txt", "1"), (tmp_path / "b.txt", "2")], overwrite=True)
    assert written == [tmp_path / "a.txt", tmp_path / "b.txt"]
    assert snapshot(tmp_path) == {"a.txt": b"1", "b.txt": b"2"}


def test_write_texts_stages_without_names_where_the_system_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed before every file is complete leaves no visible file."""
    if writer_module._unnamed(tmp_path) is None:
        pytest.skip("no O_TMPFILE here")
    seen: list[list[str]] = []
    real = writer_module._write_all

    def spy(descriptor: int, data: bytes) -> None:
        real(descriptor, data)
        seen.append(sorted(p.name for p in tmp_path.iterdir()))

    monkeypatch.setattr(writer_module, "_write_all", spy)
    write_texts([(tmp_path / "r.html", "x" * 10_000), (tmp_path / "p.csv", "a,b\n")])
    assert seen == [[], []]
    assert snapshot(tmp_path) == {"p.csv": b"a,b\n", "r.html": b"x" * 10_000}
