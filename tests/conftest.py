"""Fixtures shared by the tests; the stand-ins and builders they use are in tests/_fakes.py."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from cvreport.results import TestResult
from tests._engines import REQUIRED, SPARK_JAVA_OPTIONS, need
from tests._fakes import CHROMIUM_ARGS, browser_unavailable, make_result, route_tests
from tests._heap import freeze_heap


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


def pytest_collection_finish(session: pytest.Session) -> None:
    freeze_heap()


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session for every test module that reads from Spark."""
    pyspark_sql = need("pyspark.sql")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        if REQUIRED:
            pytest.fail("Spark needs a Java runtime (installed by .ci/run)")
        pytest.skip("no Java runtime for a local Spark session")
    session = (
        pyspark_sql.SparkSession.builder.master("local[2]")
        .appName("cvreport-tests")
        .config("spark.driver.extraJavaOptions", SPARK_JAVA_OPTIONS)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.codegen.wholeStage", "false")  # tiny frames: compiling costs more
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    freeze_heap()
    yield session
    session.stop()


@pytest.fixture(scope="session")
def dask_client() -> Iterator[Any]:
    """One in-process Dask cluster and its client for every test module that reads from Dask."""
    distributed = need("distributed")
    need("dask.dataframe")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    )
    client = distributed.Client(cluster)
    freeze_heap()
    yield client
    client.close()
    cluster.close()


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
