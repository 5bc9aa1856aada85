"""Stand-ins and data builders shared by the tests (the fixtures that use them are in conftest.py).

Stand-ins: a results table, design, audit and result objects with chosen
numbers for driving :class:`cvreport.reporting.report.Report` through every
branch. Builders: 0/1 losses of models on a partitioning, where each model errs
on a fixed set of records, so that the fold errors differ through the
partitions only (Dietterich's loss model). Helpers for the tests that need
Chromium or pdflatex: skipped when missing, failed when CI requires them.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cvreport.errors import DataError, DesignError
from cvreport.results import TestResult

report_module = importlib.import_module("cvreport.reporting.report")
analyse_module = importlib.import_module("cvreport.reporting.analyse")
analysis_module = importlib.import_module("cvreport.reporting.analysis")


# -- 0/1 losses ------------------------------------------------------------------------
FORMULA = "loss ~ model | replication + fold"


def five_by_two_losses(n: int = 120, seed: int = 3) -> pd.DataFrame:
    """Random 5×2 partitions of n records and 0/1 losses of three models (A best, C worst)."""
    rng = np.random.default_rng(seed)
    rows = []
    error_rate = {"A": 0.1, "B": 0.2, "C": 0.3}
    wrong = {m: rng.random(n) < p for m, p in error_rate.items()}
    for replication in range(1, 6):
        order = rng.permutation(n)
        fold = np.empty(n, dtype=int)
        fold[order[: n // 2]] = 1
        fold[order[n // 2 :]] = 2
        for model in error_rate:
            rows.append(
                pd.DataFrame(
                    {
                        "replication": replication,
                        "fold": fold,
                        "model": model,
                        "record": np.arange(n),
                        "loss": wrong[model].astype(int),
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def model_losses(
    assignment: pd.DataFrame,
    error_rates: Mapping[Any, float],
    rng: np.random.Generator,
    n: int,
    *,
    record: str = "record",
) -> pd.DataFrame:
    """0/1 losses of each model on ``assignment``: a model errs on a fixed set of the n records.

    The sets are drawn from ``rng`` one model after the other, in the order of ``error_rates``.
    """
    frames = []
    for model, rate in error_rates.items():
        wrong = (rng.random(n) < rate).astype(np.int64)
        frame = assignment.copy()
        frame["model"] = model
        frame["loss"] = wrong[frame[record].to_numpy()]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


# -- stand-ins for the report ------------------------------------------------------------
@dataclass(frozen=True)
class FakeDesign:
    kind: str = "mx2"
    m: int = 5
    K: int = 2
    n_records: int | None = 100
    complete: bool = True

    @property
    def fold_sizes(self) -> pd.DataFrame:
        size = (self.n_records or 100) // self.K
        return pd.DataFrame(
            [(i + 1, j + 1, size) for i in range(self.m) for j in range(self.K)],
            columns=["replication", "fold", "n"],
        )

    def describe(self) -> str:
        return f"{self.m}×{self.K} design"


class FakeTable:
    """Just enough of ResultsTable for the report: models, design, fold errors, differences."""

    def __init__(
        self,
        models: tuple[str, ...] = ("A", "B"),
        design: FakeDesign | None = None,
        *,
        binary: bool = True,
        per_record: bool = True,
        higher_is_better: bool | None = None,
        seed: int = 0,
    ) -> None:
        self.models = models
        self.design = design or FakeDesign()
        self.is_binary = binary
        self.per_record = per_record
        self.has_records = per_record
        self.loss_name = "loss"
        self.higher_is_better = higher_is_better
        self.source = "a stand-in table"
        self.formula = "loss ~ model | replication + fold"
        rng = np.random.default_rng(seed)
        d = self.design
        self.errors = {m: rng.uniform(0.1, 0.3, size=(d.m, d.K)) for m in models}

    def fold_errors(self) -> pd.DataFrame:
        rows = [
            (i + 1, j + 1, model, e[i, j], 50)
            for model, e in self.errors.items()
            for i in range(e.shape[0])
            for j in range(e.shape[1])
        ]
        return pd.DataFrame(rows, columns=["replication", "fold", "model", "loss", "n"])

    def differences(self, a: str, b: str) -> pd.DataFrame:
        d = self.design
        return pd.DataFrame(
            self.errors[a] - self.errors[b],
            index=pd.Index(range(1, d.m + 1), name="replication"),
            columns=pd.Index(range(1, d.K + 1), name="fold"),
        )

    def resolve_pair(self, a: Any = None, b: Any = None) -> tuple[Any, Any]:
        for name in (a, b):
            if name not in self.models:
                raise DataError(f"unknown model {name!r}; the models are {self.models!r}")
        return a, b

    def predictions(self) -> None:
        return None


@dataclass(frozen=True)
class FakeAudit:
    design: str
    z_max: float = 3.0
    pvalue: float = 0.4
    verdict: str = "fine"


@dataclass(frozen=True, kw_only=True, repr=False)
class IntervalResult(TestResult):
    low: float = -0.05
    high: float = 0.01

    def _conf_int(self, alpha: float) -> tuple[float, float] | None:
        return (self.low, self.high)


@dataclass(frozen=True, kw_only=True, repr=False)
class PosteriorResult(TestResult):
    prob_a_better: float = 0.2
    prob_equivalent: float = 0.3
    prob_b_better: float = 0.5
    rope: float = 0.01


def make_result(name: str, a: str, b: str, p: float, **extra: Any) -> TestResult:
    return TestResult(
        statistic=2.5,
        pvalue=p,
        df=(7, 5),
        distribution="F",
        estimate=-0.01,
        method=f"Method {name}",
        test=name,
        reference=f"Reference of {name}.",
        models=(a, b),
        **extra,
    )


def with_audit(monkeypatch: pytest.MonkeyPatch, design: str | None) -> None:
    def audit(table: Any) -> Any:
        if design is None:
            raise DesignError("no audit for this table")
        return FakeAudit(design)

    monkeypatch.setattr(analyse_module, "_audit", audit)


def route_tests(
    monkeypatch: pytest.MonkeyPatch, resolve: Callable[[str], Any], passed: tuple[str, ...] = ()
) -> None:
    """Route the report's tests to stand-ins: ``resolve(name)`` gives ``run(table, a, b)``.

    The stand-in gets the options the user gave, and of the report's defaults
    (``alternative``, ``rope``) those named in ``passed``.
    """

    def run_test(spec: Any, table: Any, a: str, b: str, options: Mapping[str, Any]) -> Any:
        given = {
            k: v for k, v in options.items() if k in passed or k not in ("alternative", "rope")
        }
        return resolve(spec.name)(table, a, b, **given)

    monkeypatch.setattr(analysis_module, "run_test", run_test)


# -- Chromium and pdflatex ---------------------------------------------------------------
SCRIPT = "<script>alert(1)</script>"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def browser_unavailable(reason: str) -> None:
    if os.environ.get("CVREPORT_REQUIRE_BROWSER") == "1":
        pytest.fail(f"CVREPORT_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def open_page(browser: Any, path: Path, **context: Any) -> tuple[Any, dict[str, list[str]]]:
    page = browser.new_page(viewport={"width": 1100, "height": 900}, **context)
    seen: dict[str, list[str]] = {"errors": [], "requests": [], "dialogs": []}
    page.on(
        "console",
        lambda message: seen["errors"].append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.on("request", lambda request: seen["requests"].append(request.url))

    def on_dialog(dialog: Any) -> None:
        seen["dialogs"].append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(path.as_uri(), wait_until="load")
    return page, seen


def run_pdflatex(
    exe: str, source: str, folder: Path, name: str = "report.tex"
) -> subprocess.CompletedProcess[bytes]:
    """pdflatex on ``source`` written to ``folder/name``; the log may hold any byte."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(source, encoding="utf-8")
    return subprocess.run(
        [exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", name],
        cwd=folder,
        capture_output=True,
        timeout=180,
        check=False,
    )


def compile_latex(exe: str, source: str, folder: Path) -> Path:
    """Compile ``source`` to ``folder/report.pdf``; a failure shows the end of the log."""
    run = run_pdflatex(exe, source, folder)
    assert run.returncode == 0, run.stdout.decode("utf-8", "replace")[-3000:]
    pdf = folder / "report.pdf"
    assert pdf.stat().st_size > 1000
    return pdf


def declared_packages(fragment: str) -> list[str]:
    r"""The packages a LaTeX fragment's first comment line says it needs (``\usepackage{a,b}``)."""
    first = fragment.lstrip().splitlines()[0]
    assert first.startswith("%") and "\\usepackage{" in first, first
    names = first.split("\\usepackage{", 1)[1].split("}", 1)[0]
    return [name.strip() for name in names.split(",")]


def overfull_boxes(log: str) -> list[float]:
    """How far each overfull box of a pdflatex log runs over, in pt."""
    return [float(x) for x in re.findall(r"Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\)", log)]


def pdflatex_or_skip() -> str:
    exe = shutil.which("pdflatex")
    if exe is None:
        if os.environ.get("CVREPORT_REQUIRE_PDFLATEX") == "1":
            pytest.fail("pdflatex is required (CVREPORT_REQUIRE_PDFLATEX=1) but not installed")
        pytest.skip("pdflatex is not installed")
    return exe


def holdout_split_losses(
    *,
    records: int = 200,
    splits: int = 10,
    validated: int = 20,
    rates: tuple[float, float] = (0.1, 0.2),
    seed: int = 3,
) -> pd.DataFrame:
    """0/1 losses of models A and B on ``splits`` random hold-out splits (ShuffleSplit):
    each split validates ``validated`` of the ``records`` records, and the table lists only
    those, as a repeated hold-out table does. A's error rate is ``rates[0]``, B's ``rates[1]``."""
    rng = np.random.default_rng(seed)
    frames = []
    for split in range(1, splits + 1):
        chosen = rng.choice(records, validated, replace=False)
        for model, rate in zip(("A", "B"), rates):
            frames.append(
                pd.DataFrame(
                    {
                        "replication": split,
                        "fold": 1,
                        "model": model,
                        "record": chosen,
                        "loss": (rng.random(validated) < rate).astype(int),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)
