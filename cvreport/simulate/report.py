"""A calibration report: the rejection-rate table and the power-curve figure of a simulation study.

:func:`calibration_report` turns the DataFrame of
:func:`~cvreport.simulate.calibrate` or :func:`~cvreport.simulate.power_curve`
into a :class:`CalibrationReport` that renders through the packaged Jinja2
templates (``calibration.html.j2``, ``calibration.md.j2``) as a standalone HTML
page, an HTML fragment for notebooks, or GitHub-flavoured Markdown. It
computes no statistic: it only lays out the rates, their Monte Carlo standard
errors, the published rates (Yang et al. Table V) where the scenario is one of
the paper's, and a power-curve figure when several parameter values were run.

Examples
--------
>>> from cvreport.simulate import calibrate
>>> frame = calibrate("epsilon", tests=["combined_ftest_5x2cv"], reps=1000, seed=3)
>>> report = calibration_report(frame)
>>> "combined_ftest_5x2cv" in report.to_markdown() and report.to_html().startswith("<!DOCTYPE")
True
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from cvreport._version import __version__
from cvreport.errors import CVReportError, describe_keys
from cvreport.methods.registry import get_spec
from cvreport.rendering.display import ReportDisplay
from cvreport.rendering.environment import html_environment, text_environment
from cvreport.rendering.formatting import format_number
from cvreport.rendering.writer import format_from_suffix, output_path, write_text
from cvreport.simulate.engine import COLUMNS
from cvreport.simulate.figures import power_curve_plot
from cvreport.simulate.reference import TABLE_V, compare_with_paper

__all__ = ["CalibrationReport", "calibration_report"]

FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}


def _rate(value: float, digits: int = 3) -> str:
    """A rate or standard error: ``digits`` decimals, two more below the last displayed digit."""
    value = float(value)
    small = 0 < abs(value) < 10.0**-digits
    return format_number(value, digits + 2 if small else digits)


def _value(value: float) -> str:
    """A parameter value as typed: 0.05, 1, 0.1667."""
    return f"{value:.4g}" if math.isfinite(value) else "—"


def _label(test: str) -> str:
    try:
        return get_spec(test).label
    except CVReportError:
        return test


def _verdict(rate: float, se: float, alpha: float) -> str:
    """Where a type I error lies relative to α, allowing two Monte Carlo standard errors."""
    if rate - 2 * se > alpha:
        return "rejects a true H0 too often"
    if rate + 2 * se < alpha:
        return "conservative"
    return "close to α"


@dataclass
class CalibrationReport(ReportDisplay):
    """Rejection rates of a simulation study, ready to render.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`~cvreport.simulate.calibrate` or :func:`~cvreport.simulate.power_curve`.
    reference : str or None
        Column of Yang et al. Table V to print beside the rates (``"epsilon"`` or
        ``"simple"``, ...). ``"auto"`` picks the column of the same name as the
        scenario when it was run under H0 with the paper's settings; ``None``
        prints none.
    title : str, optional
        Heading of the report.
    """

    frame: pd.DataFrame
    reference: str | None = "auto"
    title: str | None = None

    def __post_init__(self) -> None:
        missing = [c for c in COLUMNS if c not in self.frame.columns]
        if missing:
            raise CVReportError(
                f"a calibration report needs the columns of calibrate(); missing "
                f"{describe_keys(missing)}"
            )
        if self.reference not in (None, "auto") and self.reference not in TABLE_V:
            raise CVReportError(
                f"reference must be None, 'auto' or a column of Table V "
                f"({describe_keys(TABLE_V)}), got {self.reference!r}"
            )

    # -- context ------------------------------------------------------------
    @property
    def attrs(self) -> dict[str, Any]:
        """Metadata recorded by the simulation (scenario, α, seed, run time...)."""
        return {str(k): v for k, v in self.frame.attrs.items()}

    def _reference_column(self) -> str | None:
        if self.reference != "auto":
            return self.reference
        attrs = self.attrs
        scenario = attrs.get("scenario")
        defaults = {"epsilon": 300, "simple": 1000}
        if (
            scenario in defaults
            and attrs.get("null") is True
            and attrs.get("n") == defaults[scenario]
            and math.isclose(float(attrs.get("alpha", 0.0)), 0.05)
        ):
            return str(scenario)
        return None

    def context(self) -> dict[str, Any]:
        """The plain dictionary the templates render."""
        attrs = self.attrs
        alpha = float(attrs.get("alpha", 0.05))
        parameter = str(attrs.get("parameter") or "parameter")
        column = self._reference_column()
        frame = compare_with_paper(self.frame, column) if column else self.frame
        null = attrs.get("null") is True
        rows = []
        for record in frame.to_dict("records"):
            rate, se = float(record["rate"]), float(record["se"])
            low, high = max(rate - 1.96 * se, 0.0), min(rate + 1.96 * se, 1.0)
            row = {
                "label": _label(str(record["test"])),
                "test": str(record["test"]),
                "design": str(record["design"]),
                "parameter": _value(float(record["parameter"])),
                "rate": _rate(rate),
                "se": _rate(se, 4),
                "interval": f"{_rate(low)} – {_rate(high)}",
                "reps": f"{int(record['reps']):,}",
                "verdict": _verdict(rate, se, alpha) if null else "",
                "paper": "",
                "agrees": "",
            }
            if column and not pd.isna(record.get("paper")):
                row["paper"] = _rate(float(record["paper"]))
                row["agrees"] = "yes" if record["agrees"] else "no"
            rows.append(row)
        values = sorted(set(self.frame["parameter"].astype(float)))
        curve = None
        wide: dict[str, Any] | None = None
        if len(values) > 1:
            labels = {
                (t, d): f"{_label(t)} ({d})"
                for t, d in self.frame[["test", "design"]].drop_duplicates().itertuples(index=False)
            }
            curve = power_curve_plot(
                self.frame,
                alpha=alpha,
                parameter=parameter,
                labels=labels,
                title=f"Rejection rate against {parameter}",
            )
            table = self.frame.pivot_table(
                index=["test", "design"], columns="parameter", values="rate", sort=False
            )
            wide = {
                "values": [_value(float(v)) for v in table.columns],
                "rows": [
                    {
                        "label": labels[(t, d)],
                        "rates": [_rate(v) for v in table.loc[(t, d)]],
                    }
                    for t, d in table.index
                ],
            }
        facts = [
            ("replications", f"{int(self.frame['reps'].max()):,} simulated data sets per rate"),
            ("significance level", f"α = {alpha:g} (a test rejects when p ≤ α)"),
            (
                "parameter",
                parameter
                + (
                    f" from {_value(values[0])} to {_value(values[-1])} ({len(values)} values)"
                    if len(values) > 1
                    else f" = {_value(values[0])}"
                ),
            ),
            ("seed", "—" if attrs.get("seed") is None else str(attrs["seed"])),
        ]
        if attrs.get("seconds") is not None:
            facts.append(("run time", f"{float(attrs['seconds']):.1f} s"))
        designs = [
            {"name": name, "description": text}
            for name, text in dict(attrs.get("designs") or {}).items()
        ]
        notes = [
            "se is the Monte Carlo standard error sqrt(rate (1 − rate) / reps); the interval "
            "is rate ± 1.96 se.",
            "Records are shuffled before they are dealt into folds or blocks, afresh for every "
            "simulated data set; the tests are computed by the same kernels as on real data.",
        ]
        if null:
            notes.append(
                "H0 holds in this scenario, so the rate is the type I error: 'close to α' means "
                "within two standard errors of α, 'conservative' below, 'rejects a true H0 too "
                "often' above."
            )
        if column:
            notes.append(
                f"'paper' is Yang et al. Table V ({column} column), assumed from 1,000 "
                "replications; 'agrees' means |rate − paper| ≤ 2·sqrt(se_paper² + se²), with "
                "se_paper the standard error of a 1,000-replication estimate at the simulated rate."
            )
        title = self.title or f"Calibration of the tests: {attrs.get('scenario', 'simulation')}"
        return {
            "title": title,
            "subtitle": attrs.get("description") or "",
            "facts": facts,
            "designs": designs,
            "rows": rows,
            "null": null,
            "has_reference": bool(column),
            "reference": column or "",
            "curve": curve,
            "wide": wide,
            "parameter": parameter,
            "notes": notes,
            "version": _version(),
        }

    # -- outputs ------------------------------------------------------------
    def to_html(self, *, standalone: bool = True) -> str:
        """A standalone HTML page (inline CSS and SVG), or a fragment for notebooks."""
        template = html_environment().get_template("calibration.html.j2")
        return template.render(**self.context(), standalone=standalone)

    def to_markdown(self) -> str:
        """GitHub-flavoured Markdown (the figure becomes a table of rates by parameter)."""
        return text_environment().get_template("calibration.md.j2").render(**self.context())

    def save(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Write the report, atomically; ``.html``/``.htm`` or ``.md``/``.markdown`` choose the format.

        Refuses to replace an existing file unless ``overwrite=True``.
        """
        target = output_path(path)
        kind = format_from_suffix(target, FORMATS)
        text = self.to_html() if kind == "html" else self.to_markdown()
        write_text(target, text, overwrite=overwrite)
        return target


def _version() -> str:
    return __version__


def calibration_report(
    frame: pd.DataFrame, *, reference: str | None = "auto", title: str | None = None
) -> CalibrationReport:
    """A :class:`CalibrationReport` of a :func:`calibrate` or :func:`power_curve` result.

    Examples
    --------
    >>> from cvreport import simulate
    >>> frame = simulate.calibrate("epsilon", tests=["mcnemar"], reps=200, seed=1, progress=False)
    >>> report = simulate.calibration_report(frame)
    >>> report.to_markdown().splitlines()[0]
    '# Calibration of the tests: epsilon'
    """
    return CalibrationReport(frame, reference=reference, title=title)
