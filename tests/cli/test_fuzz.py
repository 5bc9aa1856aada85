"""Random command lines: every one ends in exit status 0, 1 or 2 with words, never a traceback.

Flags and values are drawn from the input flags every command shares, hostile
values included (control characters, formula-leading text, paths of folders,
FIFOs and the data file itself); a failing run leaves the folder as it was.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._fakes import FORMULA, five_by_two_losses
from tests.cli._inputs import PREDICTIONS_FORMULA, predictions, snapshot

VALUES = st.sampled_from(
    [
        "y", "proba", "pred", "loss", "model", "nonsense", "roc_auc", "log_loss", "f1",
        "=1+2", "-0.5", "a\x01b\x1b[31m", "", " ", "record", "dataset", "higher", "lower", "duckdb", "polars",
        FORMULA, PREDICTIONS_FORMULA, PREDICTIONS_FORMULA + " | dataset", "loss ~", "~ model",
    ]
)  # fmt: skip
FLAGS = st.sampled_from(
    ["-f", "--metric", "--score", "--prediction", "--truth", "--record", "--cluster", "--sep",
     "--direction", "--engine"]
)  # fmt: skip
SWITCHES = st.sampled_from(["--per-fold", "--overwrite", "--higher-is-better", "--example"])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    place = tmp_path_factory.mktemp("fuzz")
    frame = predictions(n=40)
    frame["loss"] = (frame["pred"] != frame["y"]).astype(int)
    frame.to_csv(place / "d.csv", index=False)
    five_by_two_losses(n=40).to_csv(place / "losses.csv", index=False)
    many = five_by_two_losses(n=40)
    pd.concat([many.assign(dataset=name) for name in "uvwxy"]).to_csv(
        place / "many.csv", index=False
    )
    os.mkfifo(place / "pipe.csv")
    (place / "dir.csv").mkdir()
    return place


BASES = [
    ["report", "losses.csv", "-f", FORMULA, "-o", "out.md"],
    ["report", "d.csv", "-f", PREDICTIONS_FORMULA, "--metric", "roc_auc", "--score", "proba",
     "-o", "out.html"],
    ["report", "d.csv", "-f", PREDICTIONS_FORMULA, "--metric", "f1", "--prediction", "pred",
     "-o", "out.md"],
    ["notebook", "losses.csv", "-f", FORMULA, "-o", "out.ipynb"],
    ["notebook", "d.csv", "-f", PREDICTIONS_FORMULA, "--metric", "log_loss", "--score", "proba",
     "-o", "out.ipynb"],
    ["datasets", "--example", "-o", "out.md", "--samples", "500"],
    ["datasets", "many.csv", "-f", FORMULA + " | dataset", "-o", "out.html", "--samples", "500"],
]  # fmt: skip
DATA = st.sampled_from(["d.csv", "losses.csv", "pipe.csv", "dir.csv", "missing.csv", "out.md"])
OUTPUT = st.sampled_from(["out.html", "out.md", "out.ipynb", "d.csv", "pipe.csv", "dir.csv"])


@settings(
    max_examples=int(os.environ.get("CVREPORT_FUZZ", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize="CVREPORT_FUZZ" not in os.environ,
)
@given(
    base=st.sampled_from(BASES),
    flags=st.lists(st.tuples(FLAGS, VALUES), max_size=2),
    switches=st.lists(SWITCHES, max_size=1, unique=True),
    data=st.one_of(st.none(), DATA),
    output=st.one_of(st.none(), OUTPUT),
    extra=st.sampled_from([[], ["--pairs-csv", "out.html"], ["--audit-csv", "a.csv"],
                           ["--pairs-csv", "p.csv", "--audit-csv", "a.csv"]]),
)  # fmt: skip
def test_random_command_lines_end_in_words(
    folder: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    base: list[str],
    flags: list[tuple[str, str]],
    switches: list[str],
    data: str | None,
    output: str | None,
    extra: list[str],
) -> None:
    from cvreport.cli import main

    monkeypatch.chdir(folder)
    argv = list(base)
    if data is not None and argv[1] != "--example":
        argv[1] = data
    if output is not None:
        argv[argv.index("-o") + 1] = output
    argv += [part for pair in flags for part in pair] + switches
    if argv[0] == "report":
        argv += extra
    before = snapshot(folder)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warnings are words too; only errors are checked
            status = main(argv)
    except SystemExit as exit_:  # argparse: a usage error
        assert exit_.code in (0, 2), argv
        status = 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, (argv, captured.err)
    assert status in (0, 1, 2), argv
    if status == 1:
        errors = [line for line in captured.err.splitlines() if line.startswith("cvreport: error:")]
        assert len(errors) == 1, (argv, captured.err)
    if status != 0:
        assert snapshot(folder) == before, argv
    for name in set(snapshot(folder)) - set(before):  # keep the folder as the fixture made it
        (folder / name).unlink()
    for name in ("d.csv", "losses.csv", "many.csv"):
        assert (folder / name).read_bytes() == before[name]
