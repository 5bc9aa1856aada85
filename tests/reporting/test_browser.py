"""The HTML report in a real headless Chromium: tables and figures visible, no console error.

Uses the system's Chromium (Debian package ``chromium``) through Playwright,
never a downloaded browser. Skipped when either is missing, unless
``CVREPORT_REQUIRE_BROWSER=1`` (set in CI), which turns the skip into a failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cvreport.rendering.formatting import format_number
from tests._fakes import SCRIPT, model_losses, open_page


def block_regularized_losses(n: int = 160, seed: int = 5) -> pd.DataFrame:
    from cvreport.partitions.splits import BlockRegularizedCV

    folds = BlockRegularizedCV(m=5, random_state=0).assignment(n)
    rng = np.random.default_rng(seed)
    return model_losses(folds, {"forest": 0.1, "tree": 0.2, SCRIPT: 0.15}, rng, n)


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    from cvreport.data.table import ResultsTable
    from cvreport.reporting.report import Report

    report = Report(ResultsTable(block_regularized_losses()), tests="all")
    path = report.save(tmp_path_factory.mktemp("browser") / "report.html")
    return path, report


def test_tables_and_figures_are_visible_without_console_errors(
    browser: Any, report_file: tuple[Path, Any]
) -> None:
    path, report = report_file
    page, seen = open_page(browser, path)
    try:
        tables = page.locator("table.cvr-table:not(details:not([open]) table)")
        assert tables.count() >= 2 + len(report.comparisons)
        for i in range(tables.count()):
            assert tables.nth(i).is_visible(), i
        for index in range(len(report.comparisons)):
            rows = page.locator(f"#pair-{index + 1}-tests tbody tr")
            assert rows.count() == len(
                [o for o in report.comparisons[index].outcomes if o.posterior is None]
            )
        figures = page.locator("svg.cvr-figure")
        assert figures.count() == len(report.comparisons) + 1
        for i in range(figures.count()):
            figure = figures.nth(i)
            assert figure.is_visible()
            box = figure.bounding_box()
            assert box is not None and box["width"] > 300 and box["height"] > 80
            assert figure.locator("title").count() >= 1
        # every per-fold difference is drawn as a dot
        first = report.table.differences(*report.pairs[0]).to_numpy()
        drawn = page.locator("#pair-1 svg circle[data-value]")
        shown = sorted(drawn.nth(i).get_attribute("data-value") for i in range(drawn.count()))
        assert shown == sorted(format_number(v) for v in first.ravel())
        # the model named like a script is text, not markup: nothing ran
        assert page.locator("h3", has_text=SCRIPT).count() >= 1
        assert seen["dialogs"] == []
        assert seen["errors"] == []
        assert seen["requests"] == [path.as_uri()]  # self-contained: nothing else was fetched
    finally:
        page.close()


def background(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.documentElement).backgroundColor"))


def test_light_dark_and_print(browser: Any, report_file: tuple[Path, Any]) -> None:
    path, _ = report_file
    light, seen_light = open_page(browser, path, color_scheme="light")
    dark, seen_dark = open_page(browser, path, color_scheme="dark")
    try:
        assert background(light) == "rgb(255, 255, 255)"
        assert background(dark) == "rgb(13, 17, 23)"
        text_colour = dark.evaluate("getComputedStyle(document.body).color")
        assert text_colour == "rgb(230, 237, 243)"
        # SVG text follows the page colour, so figures stay readable in dark mode
        svg_text = dark.evaluate(
            "getComputedStyle(document.querySelector('svg.cvr-figure text')).fill"
        )
        assert svg_text == "rgb(230, 237, 243)"
        dark.emulate_media(media="print")
        assert background(dark) == "rgb(255, 255, 255)"
        assert dark.locator("nav.cvr-toc").is_hidden()
        pdf = light.pdf(format="A4")
        assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
        assert seen_light["errors"] == [] and seen_dark["errors"] == []
    finally:
        light.close()
        dark.close()


def test_example_report_in_the_browser(browser: Any, tmp_path: Path) -> None:
    """README command (a)'s report opens cleanly too."""
    from cvreport.cli import main

    out = tmp_path / "report.html"
    assert main(["report", "--example", "-o", str(out)]) == 0
    page, seen = open_page(browser, out)
    try:
        assert page.locator("svg.cvr-figure").count() >= 2
        assert page.locator("svg.cvr-figure").first.is_visible()
        assert page.locator("table.cvr-tests").first.is_visible()
        assert seen["errors"] == [] and seen["dialogs"] == []
    finally:
        page.close()
