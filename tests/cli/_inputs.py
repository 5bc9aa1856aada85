"""Data files and helpers for the command-line tests: predictions, snapshots of a folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cvreport.cli import main

PREDICTIONS_FORMULA = "y ~ model | replication + fold"
NOISE = {"A": 0.6, "B": 1.0, "C": 1.6}


def predictions(n: int = 120, seed: int = 5, datasets: list[str] | None = None) -> pd.DataFrame:
    """5×2 CV of three models giving a probability for every record (A best, C worst).

    Columns ``replication, fold, model, record, y, proba, pred`` (and ``dataset``).
    """
    rng = np.random.default_rng(seed)
    frames = []
    for dataset in datasets or [None]:
        truth = rng.integers(0, 2, n)
        proba = {
            m: 1 / (1 + np.exp(-((2 * truth - 1) * 1.5 + rng.normal(0, s, n))))
            for m, s in NOISE.items()
        }
        for replication in range(1, 6):
            order = rng.permutation(n)
            fold = np.empty(n, dtype=int)
            fold[order[: n // 2]] = 1
            fold[order[n // 2 :]] = 2
            for model in NOISE:
                frame = pd.DataFrame(
                    {
                        "replication": replication,
                        "fold": fold,
                        "model": model,
                        "record": np.arange(n),
                        "y": truth,
                        "proba": proba[model],
                        "pred": (proba[model] > 0.5).astype(int),
                    }
                )
                if dataset is not None:
                    frame["dataset"] = dataset
                frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry below ``folder`` (hidden ones too): file bytes, or the kind of entry."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            found[name] = f"link to {path.readlink()}"
        elif path.is_file():
            found[name] = path.read_bytes()
        else:
            found[name] = "folder" if path.is_dir() else "special"
    return found


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``cvreport ARGV`` as the README shows it: exit status, standard output and error."""
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def fails_and_writes_nothing(
    argv: list[str], folder: Path, capsys: pytest.CaptureFixture[str], *messages: str
) -> str:
    """Run ``argv``: exit 1 with one error line holding ``messages``; ``folder`` unchanged."""
    before = snapshot(folder)
    status, stdout, stderr = run(argv, capsys)
    assert status == 1, (argv, stdout, stderr)
    errors = [line for line in stderr.splitlines() if line.startswith("cvreport: error: ")]
    assert len(errors) == 1 and "Traceback" not in stderr, stderr
    for message in messages:
        assert message in errors[0], (message, stderr)
    assert snapshot(folder) == before
    return errors[0]
