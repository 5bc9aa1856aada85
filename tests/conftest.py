"""Fixtures shared by the tests; the stand-ins and builders they use are in tests/_fakes.py."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from cvreport.results import TestResult
from tests._fakes import CHROMIUM_ARGS, browser_unavailable, make_result, route_tests


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        browser_unavailable("Playwright for Python is not installed")
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        browser_unavailable("no chromium executable on PATH (Debian package 'chromium')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def fake_tests(monkeypatch: pytest.MonkeyPatch) -> dict[Any, Any]:
    """Route the report's test lookup to stand-ins; set p-values per (test, pair) in the dict."""
    pvalues: dict[Any, Any] = {}

    def resolve(name: str) -> Any:
        def run(table: Any, a: str, b: str) -> TestResult:
            value = pvalues.get((name, a, b), pvalues.get(name, 0.5))
            if isinstance(value, Exception):
                raise value
            if callable(value):
                return value(a, b)  # type: ignore[no-any-return,unused-ignore]
            return make_result(name, a, b, value)

        return run

    route_tests(monkeypatch, resolve)
    return pvalues
