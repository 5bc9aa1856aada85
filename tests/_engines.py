"""The engines the tests read tables from, and whether a missing one fails or skips."""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest

REQUIRED = os.environ.get("CVREPORT_REQUIRE_ENGINES") == "1"
"""In CI (``CVREPORT_REQUIRE_ENGINES=1``) a missing engine fails the test instead of skipping."""

SPARK_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""The test session's JVM: tiny queries run once each, so the quick compiler alone and one
garbage-collector thread leave the two cores of a CI machine to the work itself."""


def need(module: str) -> Any:
    """The module; in CI (CVREPORT_REQUIRE_ENGINES=1) a missing engine fails the test."""
    if REQUIRED:
        return importlib.import_module(module)
    return pytest.importorskip(module)
