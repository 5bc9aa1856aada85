"""One reader for the command line and notebooks: compressed CSV, --sep, a separator hint."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from cvreport.cli import main
from cvreport.data.io import data_format, read_results
from cvreport.errors import DataError
from tests._fakes import FORMULA, five_by_two_losses


@pytest.mark.parametrize("name", ["d.csv", "d.csv.gz", "d.csv.bz2", "d.csv.xz", "d.CSV.GZ"])
def test_csv_in_any_compression_pandas_reads(tmp_path: Path, name: str) -> None:
    frame = five_by_two_losses(n=8)
    frame.to_csv(tmp_path / name, index=False)
    pd.testing.assert_frame_equal(read_results(tmp_path / name), frame)


def test_tsv_and_explicit_separator(tmp_path: Path) -> None:
    frame = five_by_two_losses(n=8)
    frame.to_csv(tmp_path / "d.tsv", index=False, sep="\t")
    frame.to_csv(tmp_path / "d.csv", index=False, sep=";")
    pd.testing.assert_frame_equal(read_results(tmp_path / "d.tsv"), frame)
    pd.testing.assert_frame_equal(read_results(tmp_path / "d.csv", sep=";"), frame)


@pytest.mark.parametrize(("sep", "name"), [(";", "semicolon"), ("\t", "tab")])
def test_a_csv_read_at_the_wrong_separator_names_the_right_one(
    tmp_path: Path, sep: str, name: str
) -> None:
    five_by_two_losses(n=8).to_csv(tmp_path / "d.csv", index=False, sep=sep)
    with pytest.raises(DataError, match=re.escape(f"looks {name}-separated: pass --sep {sep!r}")):
        read_results(tmp_path / "d.csv")


def test_unknown_kinds_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"must be a \.csv or \.parquet file"):
        data_format("results.xlsx")
    with pytest.raises(DataError, match="not found"):
        read_results(tmp_path / "absent.csv.gz")
    assert data_format("a.b.parquet") == "parquet" and data_format("x.csv.zst") == "csv"


def test_cli_reads_gzip_and_semicolons(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    frame = five_by_two_losses(n=40)
    frame.to_csv(tmp_path / "d.csv.gz", index=False)
    frame.to_csv(tmp_path / "s.csv", index=False, sep=";")
    assert (
        main(["report", str(tmp_path / "d.csv.gz"), "-f", FORMULA, "-o", str(tmp_path / "a.md")])
        == 0
    )
    assert (
        main(["report", str(tmp_path / "s.csv"), "-f", FORMULA, "-o", str(tmp_path / "b.md")]) == 1
    )
    assert "pass --sep ';'" in capsys.readouterr().err
    argv = [
        "report",
        str(tmp_path / "s.csv"),
        "--sep",
        ";",
        "-f",
        FORMULA,
        "-o",
        str(tmp_path / "b.md"),
    ]
    assert main(argv) == 0
    assert (tmp_path / "a.md").read_text().count("|") == (tmp_path / "b.md").read_text().count("|")


def test_notebook_reads_with_the_same_function(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    from cvreport.jupyter import notebook

    five_by_two_losses(n=40).to_csv(tmp_path / "s.csv", index=False, sep=";")
    with pytest.raises(DataError, match="pass --sep ';'"):
        notebook.write(tmp_path / "n.ipynb", data=tmp_path / "s.csv", record="record")
    path = notebook.write(tmp_path / "n.ipynb", data=tmp_path / "s.csv", record="record", sep=";")
    load = next(c.source for c in nbformat.read(path, as_version=4).cells if c.id == "load-data")
    assert "read_results(DATA, sep=';')" in load


def test_a_path_that_is_no_regular_file_is_named_before_it_is_opened(tmp_path: Path) -> None:
    import os

    folder = tmp_path / "d.csv"
    folder.mkdir()
    with pytest.raises(DataError, match=re.escape(f"{str(folder)!r} is a folder")):
        read_results(folder)
    if hasattr(os, "mkfifo"):  # opening a FIFO for reading would wait for a writer for ever
        fifo = tmp_path / "f.csv"
        os.mkfifo(fifo)
        with pytest.raises(DataError, match=re.escape("is a named pipe (FIFO)")):
            read_results(fifo)
